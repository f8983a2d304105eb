// SPDX-License-Identifier: Apache-2.0
/*
 * echelon place: load a cluster and workloads, place each workload in file
 * order on the first TAS flavor where the whole gang fits (the flavors of
 * its ClusterQueue, else every TAS flavor), assuming the usage of those
 * placed before it, and print per pod set the flavor and the
 * topologyAssignment or the failure reason, as a table, JSON or YAML.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "place/place_replace.h"
#include "place/place_workload.h"
#include "topo/topo.h"

#include "cli/output.h"

#include "base/banned.h"

struct place_opts {
	enum output_format fmt;
	enum place_policy policy;
	bool pods; /* print the node of every pod index */
};

/* One TAS flavor and its index. */
struct tas_flavor {
	const struct flavor *fl;
	struct topo *t;
};

struct tas_flavors {
	struct tas_flavor *items;
	size_t len, cap;
};

/* What was decided for one workload. */
struct decision {
	const struct workload *w;
	struct tas_flavor *tf; /* NULL when no TAS flavor applies */
	struct place_workload_result r;
	/* Admitted workloads: the node replaced per pod set, if any. */
	bool admitted;
	const char *replaced[WORKLOAD_MAX_PODSETS];
};

static void usage(FILE *out)
{
	static const char *const lines[] = {
		"usage: echelon place -f PATH [-f PATH...] [-o "
		"table|json|yaml]",
		"                     [--policy tas|kube-default|first-fit] "
		"[--pods]",
		"",
		"Place every workload (or Job) in file order on the cluster's "
		"TAS",
		"flavors (its ClusterQueue's, else all), each assuming the "
		"usage of",
		"those placed before it, and print the topology assignment of "
		"every",
		"pod set or the reason it does not fit. An admitted workload "
		"keeps",
		"its assignment (its usage counts: do not list its pods too); "
		"a node",
		"of it that is NotReady, cordoned or gone is replaced inside "
		"the",
		"same domain. The exit status is 0 whether or not workloads "
		"fit, 1",
		"for bad input, 2 for a usage error.",
		"",
		"  -f, --filename PATH   a file or a folder of YAML/JSON",
		"  -o, --output FORMAT   table (default), json or yaml",
		"      --policy POLICY   tas (default), kube-default, "
		"first-fit",
		"      --pods            also print the node of every pod "
		"index",
		"                        (rank order: same host, then rack)",
	};

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		fprintf(out, "%s\n", lines[i]);
}

static void build_flavors(struct cluster *c, struct tas_flavors *v)
{
	vec_foreach (&c->flavors, fl) {
		const struct topology *tp;

		if (!fl->topology_name)
			continue;
		tp = cluster_find(c, KIND_TOPOLOGY, NULL, fl->topology_name);
		if (!tp)
			continue;
		vec_push(v,
			 ((struct tas_flavor){
				 fl, topo_new(tp, fl, c->nodes.items,
					      c->nodes.len, c->resources) }));
	}
}

static struct tas_flavor *find_tf(struct tas_flavor *tfs, size_t n,
				  const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(tfs[i].fl->name, name) == 0)
			return &tfs[i];
	}
	return NULL;
}

/* The TAS flavors a workload may use, in order, into out; returns count. */
static size_t candidates(const struct cluster *c, const struct workload *w,
			 struct tas_flavor *tfs, size_t ntf,
			 struct tas_flavor **out)
{
	const struct local_queue *lq = NULL;
	const struct cluster_queue *cq = NULL;
	size_t n = 0;

	if (w->queue_name)
		lq = cluster_find(c, KIND_LOCAL_QUEUE, w->ns, w->queue_name);
	if (lq)
		cq = cluster_find(c, KIND_CLUSTER_QUEUE, NULL,
				  lq->cluster_queue);
	for (size_t g = 0; cq && g < cq->ngroups; g++) {
		for (size_t f = 0; f < cq->groups[g].nflavors; f++) {
			struct tas_flavor *tf = find_tf(
				tfs, ntf, cq->groups[g].flavors[f].flavor);
			bool dup = false;

			for (size_t k = 0; tf && k < n; k++)
				dup |= out[k] == tf;
			if (tf && !dup && n < ntf)
				out[n++] = tf;
		}
	}
	if (n)
		return n;
	for (size_t i = 0; i < ntf; i++)
		out[n++] = &tfs[i];
	return n;
}

static void decide(const struct cluster *c, struct tas_flavor *tfs, size_t ntf,
		   enum place_policy policy, struct decision *d)
{
	struct tas_flavor **cand = xcalloc(ntf + 1, sizeof(*cand));
	size_t n = candidates(c, d->w, tfs, ntf, cand);
	const struct placement_config *cfg = &cluster_config(c)->placement;

	for (size_t i = 0; i < n; i++) {
		struct place_workload_result r;

		place_workload_result_init(&r);
		if (place_workload(cand[i]->t, cand[i]->fl, d->w, cfg, policy,
				   true, &r) ||
		    !d->tf) {
			place_workload_result_release(&d->r);
			d->tf = cand[i];
			d->r = r;
			if (r.fit)
				break;
			continue;
		}
		place_workload_result_release(&r);
	}
	free(cand);
}

/* Add usage of podset ps on node k of index `from` to index `to`. */
static void share_node(const struct topo *from, uint32_t k, struct topo *to,
		       const struct podset *ps, int64_t pods)
{
	int64_t n;

	if (k == UINT32_MAX)
		return;
	n = topo_find_node(to, from->node_src[k]->name);
	if (n >= 0)
		topo_node_add_usage(to, (uint32_t)n, &ps->requests, pods);
}

/*
 * Flavors may share nodes (Kueue's TASHandleOverlappingFlavors): what a
 * workload took through one flavor's index is usage in every other index
 * that holds the same nodes, so no later workload double-books them.
 */
static void share_usage(struct tas_flavor *tfs, size_t ntf,
			const struct decision *d)
{
	const struct topo *from = d->tf ? d->tf->t : NULL;

	for (size_t f = 0; from && f < ntf; f++) {
		if (tfs[f].t == from)
			continue;
		for (size_t i = 0; i < d->w->npodsets; i++) {
			const struct place_result *res = &d->r.ps[i].res;
			const struct podset *ps = &d->w->podsets[i];
			int64_t total = 0;

			if (!res->fit || (!d->admitted && !d->r.fit))
				continue;
			for (size_t k = 0; k < res->workers.len; k++)
				total += res->workers.items[k].count;
			if ((int64_t)res->worker_nodes.len == total) {
				for (size_t k = 0; k < res->worker_nodes.len;
				     k++)
					share_node(from,
						   res->worker_nodes.items[k],
						   tfs[f].t, ps, 1);
				continue;
			}
			for (size_t k = 0; k < res->workers.len; k++)
				share_node(from,
					   from->dom_node[res->workers.items[k]
								  .unit],
					   tfs[f].t, ps,
					   res->workers.items[k].count);
		}
	}
}

static const struct podset_admission *ps_admission(const struct workload *w,
						   const struct podset *ps)
{
	for (size_t i = 0; w->admission && i < w->admission->npodsets; i++) {
		const struct podset_admission *pa = &w->admission->podsets[i];

		if (pa->name && strcmp(pa->name, ps->name) == 0 && pa->topology)
			return pa;
	}
	return NULL;
}

/* The flavor of an admitted pod set: the first one its resources use. */
static struct tas_flavor *admitted_flavor(const struct podset_admission *pa,
					  struct tas_flavor *tfs, size_t ntf)
{
	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (pa->flavors[r])
			return find_tf(tfs, ntf, pa->flavors[r]);
	}
	return ntf ? &tfs[0] : NULL;
}

/* Turn an admitted assignment into units (unknown nodes dropped) and add
 * or remove its usage; returns the first assigned node that is not live. */
static const char *admitted_units(struct topo *t, const struct podset *ps,
				  const struct topology_assignment *ta,
				  struct place_result *res, int sign)
{
	const char *failed = NULL;

	if (res)
		res->workers.len = 0;
	for (size_t i = 0; i < ta->ndomains; i++) {
		const char *host = ta->domains[i].values[ta->nlevels - 1];
		int64_t n = topo_find_node(t, host);

		if (n < 0 || !topo_node_live(t, (uint32_t)n)) {
			failed = failed ? failed : host;
			continue;
		}
		if (res)
			vec_push(&res->workers,
				 ((struct place_assign){
					 t->node_unit[n],
					 ta->domains[i].count }));
		if (sign)
			topo_node_add_usage(t, (uint32_t)n, &ps->requests,
					    sign * ta->domains[i].count);
	}
	if (res) {
		res->fit = true;
		res->level = (unsigned)t->nlevels - 1;
	}
	return failed;
}

/*
 * An admitted workload keeps its assignment, whose usage is assumed for
 * the workloads after it; a pod set with a node that is gone (NotReady,
 * cordoned, unknown) gets a replacement inside its domain, as Kueue's
 * hot swap would find it.
 */
static void keep_admitted(struct tas_flavor *tfs, size_t ntf,
			  const struct config *cfg, struct decision *d)
{
	const struct workload *w = d->w;

	d->admitted = true;
	d->r.fit = true;
	d->r.n = w->npodsets;
	for (size_t i = 0; i < w->npodsets; i++) {
		const struct podset *ps = &w->podsets[i];
		const struct podset_admission *pa = ps_admission(w, ps);
		struct place_result *res = &d->r.ps[i].res;
		struct place_replace_request rr;
		struct tas_flavor *tf;
		const char *failed;

		if (!pa || !(tf = admitted_flavor(pa, tfs, ntf)))
			continue;
		d->tf = tf;
		failed = admitted_units(tf->t, ps, pa->topology, res, 1);
		if (!failed || !tf->t->hostname_lowest)
			continue;
		memset(&rr, 0, sizeof(rr));
		rr.podset = ps;
		rr.current = pa->topology;
		rr.failed_node = failed;
		rr.flavor_tolerations = tf->fl->tolerations;
		rr.nflavor_tolerations = tf->fl->ntolerations;
		rr.config = &cfg->placement;
		d->replaced[i] = failed;
		/* the replacement sees the workload's own usage, as in Kueue */
		if (!place_replace(tf->t, &rr, res)) {
			d->r.fit = false;
			d->r.failed = i;
			continue;
		}
		admitted_units(tf->t, ps, pa->topology, NULL, -1);
		for (size_t k = 0; k < res->workers.len; k++)
			topo_node_add_usage(
				tf->t,
				tf->t->dom_node[res->workers.items[k].unit],
				&ps->requests, res->workers.items[k].count);
	}
}

/* The message of a pod set that has no assignment. */
static char *ps_error(const struct decision *d, size_t i)
{
	const struct workload *w = d->w;
	const char *g, *gi;

	if (!d->tf)
		return xstrdup("no TAS flavor for this workload");
	if (d->admitted)
		return xstrdup(d->r.ps[i].res.reason.buf);
	g = w->podsets[d->r.failed].topology.group_name;
	gi = w->podsets[i].topology.group_name;
	if (d->r.failed == i || (g && gi && strcmp(g, gi) == 0))
		return xstrdup(d->r.ps[d->r.failed].res.reason.buf);
	return xasprintf("not placed: pod set \"%s\" does not fit",
			 w->podsets[d->r.failed].name);
}

static bool ps_placed(const struct decision *d, size_t i)
{
	if (d->admitted)
		return d->tf && d->r.ps[i].res.fit;
	return d->tf && d->r.fit && d->w->podsets[i].count > 0;
}

static json_t *assignment_json(const struct topo *t,
			       const struct place_result *res)
{
	json_t *ta = json_object(), *levels = json_array(),
	       *doms = json_array();
	unsigned first = place_first_level(t);

	for (size_t l = first; l < t->nlevels; l++)
		json_array_append_new(levels,
				      json_string(t->topology->levels[l]));
	for (size_t i = 0; i < res->workers.len; i++) {
		const char *vals[TOPOLOGY_MAX_LEVELS];
		json_t *dom = json_object(), *jv = json_array();
		size_t n = topo_dom_values(t, res->workers.items[i].unit, vals);

		for (size_t l = first; l < n; l++)
			json_array_append_new(jv, json_string(vals[l]));
		json_object_set_new(dom, "values", jv);
		json_object_set_new(dom, "count",
				    json_integer(res->workers.items[i].count));
		json_array_append_new(doms, dom);
	}
	json_object_set_new(ta, "levels", levels);
	json_object_set_new(ta, "domains", doms);
	return ta;
}

/* The node of every pod index, in rank order ("" when not a single node). */
static json_t *pods_json(const struct topo *t, const struct place_result *res)
{
	json_t *a = json_array();

	for (size_t k = 0; k < res->worker_nodes.len; k++) {
		uint32_t n = res->worker_nodes.items[k];

		json_array_append_new(
			a, json_string(n == UINT32_MAX ? ""
						       : t->node_src[n]->name));
	}
	return a;
}

static json_t *decision_json(const struct decision *d, bool pods)
{
	json_t *jw = json_object(), *jps = json_array();

	json_object_set_new(
		jw, "name",
		json_sprintf("%s/%s", d->w->ns ? d->w->ns : "", d->w->name));
	for (size_t i = 0; i < d->w->npodsets; i++) {
		const struct podset *ps = &d->w->podsets[i];
		json_t *j = json_object();

		json_object_set_new(j, "name", json_string(ps->name));
		json_object_set_new(j, "count", json_integer(ps->count));
		if (d->tf)
			json_object_set_new(j, "flavor",
					    json_string(d->tf->fl->name));
		if (d->admitted)
			json_object_set_new(j, "admitted", json_true());
		if (d->replaced[i])
			json_object_set_new(j, "replacedNode",
					    json_string(d->replaced[i]));
		if (ps_placed(d, i)) {
			json_object_set_new(
				j, "topologyAssignment",
				assignment_json(d->tf->t, &d->r.ps[i].res));
			if (pods)
				json_object_set_new(
					j, "podNodes",
					pods_json(d->tf->t, &d->r.ps[i].res));
		} else if (!d->admitted && (ps->count > 0 || !d->r.fit)) {
			char *e = ps_error(d, i);

			json_object_set_new(j, "error", json_string(e));
			free(e);
		} else if (d->admitted && d->replaced[i]) {
			char *e = ps_error(d, i);

			json_object_set_new(j, "error", json_string(e));
			free(e);
		}
		json_array_append_new(jps, j);
	}
	json_object_set_new(jw, "podSets", jps);
	return jw;
}

static void print_structured(const struct decision *ds, size_t n,
			     const struct place_opts *po)
{
	json_t *root = json_object(), *jws = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(jws, decision_json(&ds[i], po->pods));
	json_object_set_new(root, "workloads", jws);
	output_print(root, po->fmt);
	json_decref(root);
}

static void table_domains(const struct topo *t, const struct place_result *res,
			  struct strbuf *sb)
{
	unsigned first = place_first_level(t);

	for (size_t i = 0; i < res->workers.len; i++) {
		const char *vals[TOPOLOGY_MAX_LEVELS];
		size_t n = topo_dom_values(t, res->workers.items[i].unit, vals);

		strbuf_addstr(sb, i ? " " : "");
		for (size_t l = first; l < n; l++)
			strbuf_addf(sb, "%s%s", l > first ? "/" : "", vals[l]);
		strbuf_addf(sb, "=%d", res->workers.items[i].count);
	}
}

/* "  pods 0-1: h3  2-3: h4": runs of consecutive ranks on one node. */
static void table_ranks(const struct topo *t, const struct place_result *res)
{
	const uint32_t *nodes = res->worker_nodes.items;
	size_t n = res->worker_nodes.len;

	printf("%-28s %-10s %5s", "", "", "pods");
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && nodes[j + 1] == nodes[i])
			j++;
		printf(" %zu", i);
		if (j > i)
			printf("-%zu", j);
		printf(":%s", nodes[i] == UINT32_MAX
				      ? "?"
				      : t->node_src[nodes[i]]->name);
		i = j + 1;
	}
	printf("\n");
}

static void print_table(const struct decision *ds, size_t n, bool pods)
{
	struct strbuf name, dom;

	strbuf_init(&name);
	strbuf_init(&dom);
	printf("%-28s %-10s %5s %-12s %-24s %s\n", "WORKLOAD", "PODSET",
	       "COUNT", "FLAVOR", "LEVEL", "DOMAINS (value=pods) / REASON");
	for (size_t i = 0; i < n; i++) {
		const struct decision *d = &ds[i];

		strbuf_reset(&name);
		strbuf_addf(&name, "%s/%s", d->w->ns ? d->w->ns : "",
			    d->w->name);
		for (size_t k = 0; k < d->w->npodsets; k++) {
			const struct podset *ps = &d->w->podsets[k];
			const char *level = "-";
			char *e = NULL;

			strbuf_reset(&dom);
			if (d->replaced[k])
				strbuf_addf(&dom, "[%s %s] ", d->replaced[k],
					    d->r.ps[k].res.fit ? "replaced"
							       : "failed");
			else if (d->admitted)
				strbuf_addstr(&dom, "[admitted] ");
			if (ps_placed(d, k)) {
				level = d->tf->t->topology
						->levels[d->r.ps[k].res.level];
				table_domains(d->tf->t, &d->r.ps[k].res, &dom);
			} else if (d->admitted && !d->replaced[k]) {
				/* admitted without a TAS assignment */
			} else if (ps->count > 0 || !d->r.fit) {
				e = ps_error(d, k);
				strbuf_addstr(&dom, e);
			}
			printf("%-28s %-10s %5d %-12s %-24s %s\n",
			       k ? "" : name.buf, ps->name, ps->count,
			       d->tf ? d->tf->fl->name : "-", level, dom.buf);
			if (pods && ps_placed(d, k))
				table_ranks(d->tf->t, &d->r.ps[k].res);
			free(e);
		}
	}
	strbuf_release(&name);
	strbuf_release(&dom);
}

static int parse_args(int argc, char **argv, const char **paths, size_t *n,
		      struct place_opts *po)
{
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "policy", required_argument, NULL, 'p' },
		{ "pods", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			paths[(*n)++] = optarg;
			break;
		case 'o':
			if (output_parse(optarg, &po->fmt) < 0)
				return cli_bad_value("place", "--output",
						     optarg,
						     "expected table, json or "
						     "yaml");
			break;
		case 'p':
			if (place_policy_parse(optarg, &po->policy) < 0)
				return cli_bad_value("place", "--policy",
						     optarg,
						     "expected tas, "
						     "kube-default or "
						     "first-fit");
			break;
		case 'P':
			po->pods = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return 2;
		}
	}
	return *n == 0 || optind < argc ? 2 : 0;
}

int cli_place(int argc, char **argv)
{
	const char **paths = xcalloc((size_t)argc + 1, sizeof(*paths));
	struct tas_flavors tfs = VEC_INIT;
	struct place_opts po = { OUTPUT_TABLE, PLACE_POLICY_TAS, false };
	struct decision *ds = NULL;
	struct cluster c;
	size_t n = 0;
	int rc;

	rc = parse_args(argc, argv, paths, &n, &po);
	if (rc) {
		if (rc == 2)
			usage(stderr);
		free(paths);
		return rc == 1 ? 0 : 2;
	}
	cluster_init(&c);
	rc = 1;
	if (cli_load(&c, paths, n, true, NULL) < 0)
		goto out;
	build_flavors(&c, &tfs);
	ds = xcalloc(c.workloads.len + 1, sizeof(*ds));
	for (size_t i = 0; i < c.workloads.len; i++) {
		ds[i].w = &c.workloads.items[i];
		place_workload_result_init(&ds[i].r);
		if (ds[i].w->admission)
			keep_admitted(tfs.items, tfs.len, cluster_config(&c),
				      &ds[i]);
		else
			decide(&c, tfs.items, tfs.len, po.policy, &ds[i]);
		share_usage(tfs.items, tfs.len, &ds[i]);
	}
	if (po.fmt == OUTPUT_TABLE)
		print_table(ds, c.workloads.len, po.pods);
	else
		print_structured(ds, c.workloads.len, &po);
	for (size_t i = 0; i < c.workloads.len; i++)
		place_workload_result_release(&ds[i].r);
	rc = 0;
out:
	free(ds);
	vec_foreach (&tfs, tf)
		topo_free(tf->t);
	vec_release(&tfs);
	cluster_release(&c);
	free(paths);
	return rc;
}

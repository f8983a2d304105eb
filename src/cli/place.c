// SPDX-License-Identifier: Apache-2.0
/*
 * echelon place: load a cluster and workloads, place each workload in file
 * order with the library's driver (place_flavors_place(): the first TAS
 * flavor where the whole gang fits, assuming the usage of those placed
 * before it), and print per pod set the flavor and the topologyAssignment
 * or the failure reason, as a table, JSON or YAML.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "manifest/enc.h"
#include "place/place_assignment.h"
#include "place/place_flavors.h"

#include "cli/output.h"
#include "topo/topo_span.h"
#include "cli/table.h"

#include "base/banned.h"

struct place_opts {
	enum output_format fmt;
	enum place_policy policy;
	bool pods;	    /* print the node of every pod index */
	bool set_algorithm; /* --placement-algorithm */
	enum placement_algorithm algorithm;
};

/* What was decided for one workload, and where to read it. */
struct decision {
	const struct workload *w;
	const struct place_flavors *pf;
	struct place_decision pd;
};

/* The index and the flavor d's placement is on (d->pd.flavor >= 0). */
static const struct topo *dtopo(const struct decision *d)
{
	return d->pf->t[d->pd.flavor];
}

static const char *dflavor(const struct decision *d)
{
	return d->pf->c->flavors.items[d->pd.flavor].name;
}

static void usage(FILE *out)
{
	static const char *const lines[] = {
		"usage: echelon place -f PATH [-f PATH...] [-o "
		"table|wide|json|yaml]",
		"                     [--policy tas|kube-default|first-fit] "
		"[--pods]",
		"                     [--placement-algorithm NAME]",
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
		"  -o, --output FORMAT   table (default: each placement in "
		"short,",
		"                        \"8 hosts, 1 rack (min 1)\"), wide "
		"(and",
		"                        every domain), json or yaml",
		"      --policy POLICY   tas (default), kube-default, "
		"first-fit",
		"      --pods            also print the node of every pod "
		"index",
		"                        (rank order: same host, then rack)",
		"      --placement-algorithm NAME  Mixed, BestFit, "
		"LeastFreeCapacity or",
		"                        FragmentationAware (over the "
		"Configuration's",
		"                        placement.algorithm)",
	};

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		fprintf(out, "%s\n", lines[i]);
}

/* The message of a pod set that has no assignment. */
static char *ps_error(const struct decision *d, size_t i)
{
	const struct workload *w = d->w;
	const char *g, *gi;

	if (d->pd.flavor < 0)
		return xstrdup("no TAS flavor for this workload");
	if (d->pd.admitted)
		return xstrdup(d->pd.r.ps[i].res.reason.buf);
	g = w->podsets[d->pd.r.failed].topology.group_name;
	gi = w->podsets[i].topology.group_name;
	if (d->pd.r.failed == i || (g && gi && strcmp(g, gi) == 0))
		return xstrdup(d->pd.r.ps[d->pd.r.failed].res.reason.buf);
	return xasprintf("not placed: pod set \"%s\" does not fit",
			 w->podsets[d->pd.r.failed].name);
}

static bool ps_placed(const struct decision *d, size_t i)
{
	if (d->pd.admitted)
		return d->pd.flavor >= 0 && d->pd.r.ps[i].res.fit;
	return d->pd.flavor >= 0 && d->pd.r.fit && d->w->podsets[i].count > 0;
}

static json_t *assignment_json(const struct topo *t,
			       const struct place_result *res)
{
	struct topology_assignment *ta =
		place_assignment(t, res->workers.items, res->workers.len);
	json_t *j = enc_topology_assignment(ta);

	topology_assignment_free(ta);
	return j;
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
		if (d->pd.flavor >= 0)
			json_object_set_new(j, "flavor",
					    json_string(dflavor(d)));
		if (d->pd.admitted)
			json_object_set_new(j, "admitted", json_true());
		if (d->pd.replaced[i])
			json_object_set_new(j, "replacedNode",
					    json_string(d->pd.replaced[i]));
		if (ps_placed(d, i)) {
			json_object_set_new(
				j, "topologyAssignment",
				assignment_json(dtopo(d), &d->pd.r.ps[i].res));
			if (pods)
				json_object_set_new(
					j, "podNodes",
					pods_json(dtopo(d),
						  &d->pd.r.ps[i].res));
		} else if (!d->pd.admitted && (ps->count > 0 || !d->pd.r.fit)) {
			char *e = ps_error(d, i);

			json_object_set_new(j, "error", json_string(e));
			free(e);
		} else if (d->pd.admitted && d->pd.replaced[i]) {
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
	struct topology_assignment *ta =
		place_assignment(t, res->workers.items, res->workers.len);

	for (size_t i = 0; i < ta->ndomains; i++) {
		strbuf_addstr(sb, i ? " " : "");
		for (size_t l = 0; l < ta->nlevels; l++)
			strbuf_addf(sb, "%s%s", l ? "/" : "",
				    ta->domains[i].values[l]);
		strbuf_addf(sb, "=%d", ta->domains[i].count);
	}
	topology_assignment_free(ta);
}

/* "8 hosts, 1 rack (min 1)" for a placed pod set. */
static void table_span(const struct topo *t, const struct place_result *res,
		       const struct podset *ps, struct strbuf *sb)
{
	size_t count = 0;
	uint32_t *n;

	for (size_t i = 0; i < res->workers.len; i++)
		count += (size_t)res->workers.items[i].count;
	n = xcalloc(count + 1, sizeof(*n));
	place_result_nodes(t, res, n);
	topo_span_summary(t, n, count, &ps->requests, sb);
	free(n);
}

/* "pods 0-1:h3 2-3:h4": runs of consecutive ranks on one node. */
static void table_ranks(const struct topo *t, const struct place_result *res,
			struct table *tb)
{
	const uint32_t *nodes = res->worker_nodes.items;
	size_t n = res->worker_nodes.len;
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addstr(&sb, "pods");
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && nodes[j + 1] == nodes[i])
			j++;
		strbuf_addf(&sb, " %zu", i);
		if (j > i)
			strbuf_addf(&sb, "-%zu", j);
		strbuf_addf(&sb, ":%s",
			    nodes[i] == UINT32_MAX
				    ? "?"
				    : t->node_src[nodes[i]]->name);
		i = j + 1;
	}
	for (int c = 0; c < 5; c++)
		table_cell(tb, "%s", "");
	table_cell(tb, "%s", sb.buf);
	table_row(tb);
	strbuf_release(&sb);
}

/* The row of pod set k of d: its placement in short (and in full when
 * wide), or the reason it has none as the row's last cell. */
static void table_podset(const struct decision *d, size_t k, bool wide,
			 struct table *tb)
{
	const struct podset *ps = &d->w->podsets[k];
	struct strbuf cell, dom;
	const char *level = "-";
	char *e = NULL;

	strbuf_init(&cell);
	strbuf_init(&dom);
	if (d->pd.replaced[k])
		strbuf_addf(&cell, "[%s %s] ", d->pd.replaced[k],
			    d->pd.r.ps[k].res.fit ? "replaced" : "failed");
	else if (d->pd.admitted)
		strbuf_addstr(&cell, "[admitted] ");
	if (ps_placed(d, k)) {
		level = dtopo(d)->topology->levels[d->pd.r.ps[k].res.level];
		table_span(dtopo(d), &d->pd.r.ps[k].res, ps, &cell);
		table_domains(dtopo(d), &d->pd.r.ps[k].res, &dom);
	} else if (d->pd.admitted && !d->pd.replaced[k]) {
		/* admitted without a TAS assignment */
	} else if (ps->count > 0 || !d->pd.r.fit) {
		e = ps_error(d, k);
		strbuf_addstr(&cell, e);
	}
	if (cell.len && cell.buf[cell.len - 1] == ' ')
		strbuf_truncate(&cell, cell.len - 1);
	table_cell(tb, "%s", ps->name);
	table_cell(tb, "%d", ps->count);
	table_cell(tb, "%s", d->pd.flavor >= 0 ? dflavor(d) : "-");
	table_cell(tb, "%s", level);
	table_cell(tb, "%s", cell.len ? cell.buf : "-");
	if (wide && ps_placed(d, k))
		table_cell(tb, "%s", dom.buf);
	table_row(tb);
	free(e);
	strbuf_release(&cell);
	strbuf_release(&dom);
}

static void print_table(const struct decision *ds, size_t n, bool pods,
			bool wide)
{
	struct table tb;
	struct strbuf out;

	table_init(&tb);
	strbuf_init(&out);
	table_cell(&tb, "WORKLOAD");
	table_cell(&tb, "PODSET");
	table_cell(&tb, "COUNT");
	table_cell(&tb, "FLAVOR");
	table_cell(&tb, "LEVEL");
	table_cell(&tb, "PLACEMENT");
	if (wide)
		table_cell(&tb, "DOMAINS");
	table_row(&tb);
	for (size_t i = 0; i < n; i++) {
		const struct decision *d = &ds[i];

		for (size_t k = 0; k < d->w->npodsets; k++) {
			if (k)
				table_cell(&tb, "%s", "");
			else
				table_cell(&tb, "%s/%s",
					   d->w->ns ? d->w->ns : "",
					   d->w->name);
			table_podset(d, k, wide, &tb);
			if (pods && ps_placed(d, k))
				table_ranks(dtopo(d), &d->pd.r.ps[k].res, &tb);
		}
	}
	table_print(&tb, &out);
	output_write(out.buf, out.len);
	strbuf_release(&out);
	table_release(&tb);
}

static int parse_args(int argc, char **argv, const char **paths, size_t *n,
		      struct place_opts *po)
{
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "policy", required_argument, NULL, 'p' },
		{ "pods", no_argument, NULL, 'P' },
		{ "placement-algorithm", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			paths[(*n)++] = optarg;
			break;
		case 'o':
			if (output_parse(optarg, &po->fmt) < 0)
				return cli_bad_value("place", "--output",
						     optarg,
						     "expected table, json, "
						     "yaml or wide");
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
		case 'A':
			po->set_algorithm = true;
			if (cli_parse_placement_algorithm("place", optarg,
							  &po->algorithm))
				return CLI_BAD_VALUE;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return cli_getopt_error("place", opt, argv);
		}
	}
	return cli_usage_args("place", argc, argv, *n);
}

int cli_place(int argc, char **argv)
{
	const char **paths = xcalloc((size_t)argc + 1, sizeof(*paths));
	struct place_opts po = { OUTPUT_TABLE, PLACE_POLICY_TAS, false, false,
				 PLACEMENT_MIXED };
	struct place_flavors pf = { 0 };
	struct decision *ds = NULL;
	struct cluster c;
	size_t n = 0;
	int rc;

	rc = parse_args(argc, argv, paths, &n, &po);
	if (rc) {
		free(paths);
		return rc == 1 ? 0 : 2;
	}
	cluster_init(&c);
	rc = 1;
	if (cli_load(&c, paths, n, true, NULL) < 0)
		goto out;
	if (po.set_algorithm)
		cli_set_placement_algorithm(&c, po.algorithm);
	place_flavors_init(&pf, &c);
	ds = xcalloc(c.workloads.len + 1, sizeof(*ds));
	for (size_t i = 0; i < c.workloads.len; i++) {
		ds[i].w = &c.workloads.items[i];
		ds[i].pf = &pf;
		place_decision_init(&ds[i].pd);
		place_flavors_place(&pf, ds[i].w, po.policy, &ds[i].pd);
	}
	if (po.fmt == OUTPUT_TABLE || po.fmt == OUTPUT_WIDE)
		print_table(ds, c.workloads.len, po.pods,
			    po.fmt == OUTPUT_WIDE);
	else
		print_structured(ds, c.workloads.len, &po);
	for (size_t i = 0; i < c.workloads.len; i++)
		place_decision_release(&ds[i].pd);
	rc = 0;
	place_flavors_release(&pf);
out:
	free(ds);
	cluster_release(&c);
	free(paths);
	return rc;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The input of `echelon sim`: cluster, queues and jobs (see sim_setup.h).
 */
#include "cli/sim_setup.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "manifest/manifest.h"
#include "model/ann.h"
#include "model/quantity.h"
#include "sim/gen.h"
#include "sim/itp.h"
#include "sim/synth.h"
#include "sim/trace.h"

#include "base/banned.h"

static void print_diag(const struct diag *d)
{
	struct strbuf sb;

	strbuf_init(&sb);
	diag_format(d, &sb);
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

/* Load YAML text made here; it is right by construction. */
static void load_text(struct cluster *c, const char *name, const char *text)
{
	struct diag d;

	diag_init(&d);
	if (manifest_load_buffer(c, name, text, strlen(text), &d) < 0) {
		print_diag(&d);
		BUG_ON(1);
	}
	diag_release(&d);
}

static int load_cluster(struct cluster *c, const struct sim_setup_opts *o)
{
	struct errbuf eb = { 0 };
	struct gen_spec spec;
	struct diag d;
	int rc = 0;

	if (o->npaths && cli_load(c, o->paths, o->npaths, o->quiet, NULL) < 0)
		return 1;
	if (!o->cluster_spec)
		return 0;
	if (gen_parse_network(o->cluster_spec, "--cluster", &spec, o->net,
			      &eb) < 0) {
		fprintf(stderr, "%s\n", eb.msg);
		return 2;
	}
	diag_init(&d);
	if (gen_build(c, &spec, &d) < 0) {
		print_diag(&d);
		rc = 1;
	}
	diag_release(&d);
	return rc;
}

/* Sum of the allocatable resources of the nodes a flavor selects. */
static void flavor_capacity(const struct cluster *c, const struct flavor *fl,
			    struct resvec *ret)
{
	resvec_zero(ret);
	vec_foreach (&c->nodes, n) {
		if (labels_contains_all(&n->labels, &fl->node_labels))
			resvec_add(ret, &n->allocatable);
	}
}

/* One ClusterQueue with the whole cluster as quota, and its LocalQueue. */
static void make_queues(struct cluster *c)
{
	const struct resource_registry *reg = c->resources;
	struct strbuf y;

	if (!c->flavors.len)
		load_text(c, "<sim defaults>",
			  "apiVersion: kueue.x-k8s.io/v1beta1\n"
			  "kind: ResourceFlavor\n"
			  "metadata: {name: default}\n");
	strbuf_init(&y);
	strbuf_addstr(&y, "apiVersion: kueue.x-k8s.io/v1beta1\n"
			  "kind: ClusterQueue\n"
			  "metadata: {name: " SIM_SETUP_QUEUE "}\n"
			  "spec:\n  namespaceSelector: {}\n"
			  "  resourceGroups:\n  - coveredResources: [");
	for (int r = 0; r < reg->count; r++)
		strbuf_addf(&y, "%s\"%s\"", r ? ", " : "",
			    resource_name(reg, r));
	strbuf_addstr(&y, "]\n    flavors:\n");
	vec_foreach (&c->flavors, fl) {
		struct resvec cap;

		flavor_capacity(c, fl, &cap);
		strbuf_addf(&y, "    - name: \"%s\"\n      resources:\n",
			    fl->name);
		for (int r = 0; r < reg->count; r++) {
			strbuf_addf(&y,
				    "      - name: \"%s\"\n"
				    "        nominalQuota: \"",
				    resource_name(reg, r));
			quantity_format(cap.v[r], reg->kinds[r], &y);
			strbuf_addstr(&y, "\"\n");
		}
	}
	strbuf_addstr(&y, "---\napiVersion: kueue.x-k8s.io/v1beta1\n"
			  "kind: LocalQueue\n"
			  "metadata: {name: " SIM_SETUP_QUEUE
			  ", namespace: default}\n"
			  "spec: {clusterQueue: " SIM_SETUP_QUEUE "}\n");
	load_text(c, "<sim defaults>", y.buf);
	strbuf_release(&y);
}

/* The files of a trace argument: itself, or a folder's files by name. */
static int trace_files(const char *path, char ***ret, size_t *n)
{
	struct dirent **ents;
	struct stat st;
	int k;

	*n = 0;
	*ret = NULL;
	if (strcmp(path, "-") != 0 && stat(path, &st) < 0) {
		fprintf(stderr, "echelon sim: --trace: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (strcmp(path, "-") == 0 || !S_ISDIR(st.st_mode)) {
		*ret = xcalloc(1, sizeof(**ret));
		(*ret)[(*n)++] = xstrdup(path);
		return 0;
	}
	k = scandir(path, &ents, NULL, alphasort);
	if (k < 0) {
		fprintf(stderr, "echelon sim: --trace: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	*ret = xcalloc((size_t)k + 1, sizeof(**ret));
	for (int i = 0; i < k; i++) {
		const char *dot = strrchr(ents[i]->d_name, '.');

		if (ents[i]->d_name[0] != '.' && dot &&
		    (strcmp(dot, ".csv") == 0 || strcmp(dot, ".jsonl") == 0))
			(*ret)[(*n)++] =
				xasprintf("%s/%s", path, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* "cluster04-" for ".../cluster04.csv": ITP job ids repeat across files. */
static char *itp_prefix(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	if (strcmp(path, "<stdin>") == 0)
		return xstrdup("stdin-");
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return xasprintf("%.*s-", (int)(dot ? dot - base : (int)strlen(base)),
			 base);
}

static int read_trace(struct trace *t, const char *path, bool quiet)
{
	struct errbuf eb = { 0 };
	struct strbuf data;
	struct diag d;
	int rc;

	strbuf_init(&data);
	diag_init(&d);
	rc = trace_read_file(path, TRACE_MAX_FILE_SIZE, &data, &eb);
	if (strcmp(path, "-") == 0)
		path = "<stdin>";
	if (rc < 0) {
		fprintf(stderr, "%s\n", eb.msg);
	} else if (trace_is_empty(data.buf, data.len)) {
		diag_add(&d, DIAG_ERROR, path, 0, 0,
			 "trace: no job found (the input is empty or holds "
			 "only blank and comment lines)");
		rc = -ENODATA;
	} else if (itp_recognise(data.buf, data.len)) {
		struct itp_options io;
		char *prefix = itp_prefix(path);

		itp_options_init(&io);
		io.name_prefix = prefix;
		rc = itp_parse(t, &io, path, data.buf, data.len, NULL, &d);
		free(prefix);
	} else if (trace_is_jsonl(data.buf, data.len)) {
		rc = trace_parse_jsonl(t, path, data.buf, data.len, &d);
	} else {
		fprintf(stderr,
			"%s:1:1: trace: neither echelon's JSONL nor the ITP "
			"CSV (a header with submission_time, duration and "
			"num_gpu)\n",
			path);
		rc = -EINVAL;
	}
	if (d.errors || (!quiet && d.warnings))
		print_diag(&d);
	diag_release(&d);
	strbuf_release(&data);
	return rc < 0 ? -1 : 0;
}

static int read_traces(struct trace *t, const struct sim_setup_opts *o)
{
	int rc = 0;

	/* Every file is read, so that all their errors are reported. */
	for (size_t i = 0; i < o->ntraces; i++) {
		char **files;
		size_t n;

		if (trace_files(o->traces[i], &files, &n) < 0) {
			rc = 1;
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			if (read_trace(t, files[k], o->quiet) < 0)
				rc = 1;
			free(files[k]);
		}
		free(files);
	}
	return rc;
}

static int synth(struct trace *t, const struct sim_setup_opts *o)
{
	struct errbuf eb = { 0 };
	struct synth_options so;
	struct rng r;

	if (!o->synth_jobs)
		return 0;
	synth_options_init(&so);
	so.jobs = o->synth_jobs;
	if (o->synth_rate > 0)
		so.rate_per_hour = o->synth_rate;
	rng_seed(&r, o->seed);
	if (synth_generate(t, &so, &r, &eb) < 0) {
		fprintf(stderr, "--synth: %s\n", eb.msg);
		return 2;
	}
	return 0;
}

/* One term of a --queue rule: FIELD OP N:QUEUE, or *:QUEUE. */
struct qrule {
	char field; /* 'g' GPUs, 'p' pods, '*' any */
	char op[3];
	int64_t v;
	const char *queue;
};

static int rule_error(const char *text, const char *at, const char *msg)
{
	fprintf(stderr, "--queue:1:%d: rule: %s\n", (int)(at - text) + 1, msg);
	return -1;
}

/* Parse "gpus<=8:small,pods>4:big,*:default" into rules. */
static int parse_rules(struct cluster *c, const char *text, struct qrule **ret,
		       size_t *n)
{
	const char *p = text;

	*n = 0;
	*ret = xcalloc(strlen(text) + 1, sizeof(**ret));
	while (*p) {
		struct qrule *r = &(*ret)[(*n)++];
		const char *colon, *end;
		size_t ol;

		if (*p == '*') {
			r->field = '*';
			p++;
		} else if (strncmp(p, "gpus", 4) == 0 ||
			   strncmp(p, "pods", 4) == 0) {
			char *e;

			r->field = p[0];
			p += 4;
			ol = strspn(p, "<>=");
			memcpy(r->op, p, ol < 3 ? ol : 2);
			if (ol < 1 || ol > 2 || (ol == 2 && r->op[1] != '='))
				return rule_error(text, p,
						  "expected <, <=, >, >=, = or "
						  "==");
			p += ol;
			errno = 0;
			r->v = strtoll(p, &e, 10);
			if (e == p || errno || r->v < 0)
				return rule_error(text, p,
						  "expected a whole number");
			p = e;
		} else {
			return rule_error(text, p, "expected gpus, pods or *");
		}
		if (*p != ':')
			return rule_error(text, p, "expected ':' and a queue");
		colon = ++p;
		end = colon + strcspn(colon, ",");
		if (end == colon)
			return rule_error(text, p, "empty queue name");
		r->queue =
			intern_strn(c->strings, colon, (size_t)(end - colon));
		p = *end ? end + 1 : end;
	}
	return 0;
}

static bool rule_matches(const struct qrule *r, int64_t gpus, int64_t pods)
{
	int64_t x = r->field == 'g' ? gpus : pods;

	if (r->field == '*')
		return true;
	if (strcmp(r->op, "<") == 0)
		return x < r->v;
	if (strcmp(r->op, "<=") == 0)
		return x <= r->v;
	if (strcmp(r->op, ">") == 0)
		return x > r->v;
	if (strcmp(r->op, ">=") == 0)
		return x >= r->v;
	return x == r->v; /* "=" or "==" */
}

/* --topology: "required:LEVEL", "preferred:LEVEL", "unconstrained",
 * "none". */
static int parse_topology(struct cluster *c, const char *s,
			  enum topology_mode *mode, const char **level)
{
	const char *colon = strchr(s, ':');
	size_t ml = colon ? (size_t)(colon - s) : strlen(s);

	*level = NULL;
	if (strcmp(s, "none") == 0) {
		*mode = TOPOLOGY_NONE;
		return 0;
	}
	if (strcmp(s, "unconstrained") == 0) {
		*mode = TOPOLOGY_UNCONSTRAINED;
		return 0;
	}
	if (colon && colon[1] && ml == 8 && strncmp(s, "required", ml) == 0)
		*mode = TOPOLOGY_REQUIRED;
	else if (colon && colon[1] && ml == 9 &&
		 strncmp(s, "preferred", ml) == 0)
		*mode = TOPOLOGY_PREFERRED;
	else {
		fprintf(stderr,
			"--topology:1:1: topology: expected required:LEVEL, "
			"preferred:LEVEL, unconstrained or none, not \"%s\"\n",
			s);
		return -1;
	}
	*level = cluster_str(c, colon + 1);
	return 0;
}

/* The queue of jobs that name none: the one made, or the only one. */
static const char *default_queue(const struct cluster *c, bool made)
{
	if (made)
		return SIM_SETUP_QUEUE;
	if (c->local_queues.len == 1 &&
	    strcmp(c->local_queues.items[0].ns, "default") == 0)
		return c->local_queues.items[0].name;
	return NULL;
}

/* The rack level of the first topology-aware flavor's Topology: the level
 * above the hosts (the lowest level, or the one above the hostname). */
static const char *rack_level(const struct cluster *c)
{
	const struct topology *tp = sim_topology(c);
	int l = tp ? topology_rack_level(tp) : -1;

	return l >= 0 ? tp->levels[l] : NULL;
}

/* Queue rule, default queue and topology request for the trace jobs. */
static int shape_jobs(struct cluster *c, struct trace *t,
		      const struct sim_setup_opts *o, bool made)
{
	const char *dq = default_queue(c, made);
	int gpu = resource_lookup(c->resources, GEN_GPU_RESOURCE);
	/* Gangs keep to a rack where they can when the cluster has a
	 * topology; --topology changes it. */
	const char *level = rack_level(c);
	enum topology_mode mode = level ? TOPOLOGY_PREFERRED : TOPOLOGY_NONE;
	struct qrule *rules = NULL;
	size_t nrules = 0;

	if (o->topology && parse_topology(c, o->topology, &mode, &level) < 0)
		return 2;
	if (o->queue_rule && parse_rules(c, o->queue_rule, &rules, &nrules)) {
		free(rules);
		return 2;
	}
	vec_foreach (&t->jobs, j) {
		int64_t gpus = gpu >= 0 ? j->requests.v[gpu] * j->pods : 0;

		for (size_t i = 0; !j->queue && i < nrules; i++) {
			if (rule_matches(&rules[i], gpus, j->pods))
				j->queue = rules[i].queue;
		}
		if (!j->queue && dq)
			j->queue = cluster_str(c, dq);
		if (j->pods > 1 && j->topology_mode == TOPOLOGY_NONE) {
			j->topology_mode = mode;
			j->topology_level = level;
		}
	}
	free(rules);
	return 0;
}

/* The trace's jobs as jobs of the input, whose workloads the runs make as
 * they arrive; a queue "ns/name" names the LocalQueue name in namespace
 * ns, else the namespace is "default". A name must be new in its
 * namespace among the manifests' workloads and the trace's jobs. */
static int add_trace_jobs(struct cluster *c, struct sim_input *in,
			  const struct trace *t)
{
	struct hmap names;
	struct strbuf key;
	struct errbuf eb = { 0 };
	int rc = 0;

	hmap_init(&names);
	strbuf_init(&key);
	sim_input_reserve(in, t->jobs.len);
	vec_foreach (&t->jobs, j) {
		struct trace_job x = *j;
		const char *slash = x.queue ? strchr(x.queue, '/') : NULL;
		const char *ns = "default";

		if (slash) {
			ns = intern_strn(c->strings, x.queue,
					 (size_t)(slash - x.queue));
			x.queue = cluster_str(c, slash + 1);
		}
		strbuf_reset(&key);
		strbuf_addf(&key, "%s/%s", ns, x.name);
		if (cluster_find(c, KIND_WORKLOAD, ns, x.name) ||
		    !hmap_put_str(&names, key.buf, 0)) {
			fprintf(stderr,
				"%s:%d:%d: name: a workload named \"%s\" "
				"exists already in namespace %s\n",
				j->pos.file ? j->pos.file : "trace",
				j->pos.line, j->pos.col, j->name, ns);
			rc = 1;
			continue;
		}
		if (sim_input_add_trace_job(in, &x, ns, &eb) < 0) {
			fprintf(stderr, "%s\n", eb.msg);
			rc = 1;
		}
	}
	strbuf_release(&key);
	hmap_release(&names);
	return rc;
}

/* The manifests' workloads with a sim.echelon.dev/duration as jobs. */
static int add_jobs(struct cluster *c, struct sim_input *in)
{
	struct errbuf eb = { 0 };
	size_t skipped = 0;

	for (size_t i = 0; i < c->workloads.len; i++) {
		const struct workload *w = &c->workloads.items[i];
		struct ann_sim sim;
		const char *key;

		/* checked when loaded: it reads back */
		BUG_ON(ann_sim_read(&w->annotations, &sim, &key, &eb) < 0);
		if (sim.duration_us < 0) {
			skipped++;
			continue;
		}
		if (sim_input_add_job(in, (uint32_t)i,
				      sim.submit_us < 0 ? 0 : sim.submit_us,
				      sim.duration_us, sim.klass, &eb) < 0) {
			fprintf(stderr, "%s\n", eb.msg);
			return 1;
		}
	}
	if (skipped)
		fprintf(stderr,
			"echelon sim: %zu workload(s) without a "
			"sim.echelon.dev/duration annotation are not "
			"simulated\n",
			skipped);
	return 0;
}

/* The input's jobs in submission order; no-gang's per-pod workloads. */
static int finish_jobs(struct cluster *c, struct sim_input *in, bool split)
{
	struct errbuf eb = { 0 };

	if (!in->jobs.len) {
		fprintf(stderr, "echelon sim: no job to simulate (give "
				"--trace, --synth, or workloads with a "
				"sim.echelon.dev/duration annotation)\n");
		return 1;
	}
	sim_input_sort(in);
	if (split && sim_input_add_split(in, c, &eb) < 0) {
		fprintf(stderr, "echelon sim: no-gang: %s\n", eb.msg);
		return 1;
	}
	return 0;
}

int sim_setup_load(struct cluster *c, struct sim_input *in,
		   const struct sim_setup_opts *o, bool split)
{
	bool made = false;
	struct trace t;
	int rc;

	memset(in, 0, sizeof(*in));
	rc = load_cluster(c, o);
	if (rc)
		return rc;
	if (!c->cluster_queues.len) {
		make_queues(c);
		made = true;
	}
	trace_init(&t, c->strings, c->resources);
	rc = read_traces(&t, o);
	if (!rc)
		rc = synth(&t, o);
	if (!rc)
		rc = shape_jobs(c, &t, o, made);
	if (!rc) {
		sim_input_init(in, c, NULL);
		rc = add_jobs(c, in);
	}
	if (!rc)
		rc = add_trace_jobs(c, in, &t);
	trace_release(&t);
	if (!rc)
		rc = finish_jobs(c, in, split);
	return rc;
}

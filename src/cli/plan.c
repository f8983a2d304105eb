// SPDX-License-Identifier: Apache-2.0
/*
 * echelon plan: load a cluster, its queues, admitted and pending
 * workloads, run the admission cycle until nothing changes (no time
 * passes), and print what happens: what ran already (Workloads with
 * status.admission, running Jobs), the workloads admitted with their
 * ClusterQueue, flavors and topology assignment, the workloads preempted
 * and why, and the pending ones with their reason and queue position.
 * Each workload's status is encoded by src/status, as the daemon's is.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "ctl/ctl.h"
#include "sched/sched.h"
#include "status/status.h"

#include "cli/output.h"
#include "topo/topo_span.h"
#include "cli/table.h"

#include "base/banned.h"

struct plan_opts {
	const char **paths;
	size_t npaths;
	enum output_format fmt;
	struct sched_options sched;
	bool set_algorithm; /* --placement-algorithm */
	enum placement_algorithm algorithm;
};

/* Why a workload counts as running when the plan starts. */
enum run_source {
	RUN_NO,
	RUN_WORKLOAD, /* its status.admission */
	RUN_JOB,      /* a Job's status.active */
	RUN_PODS,     /* a Job's pods, listed in the input */
	RUN_SOURCE_COUNT
};

static const char *const run_source_names[RUN_SOURCE_COUNT] = {
	[RUN_WORKLOAD] = "Workload",
	[RUN_JOB] = "Job",
	[RUN_PODS] = "Pods",
};

struct plan {
	const struct cluster *c;
	int64_t now_us; /* the newest creation time: no time passes */
	struct ctl *x;
	const struct sched *s; /* the controller's */
	bool *admitted_here;
	enum run_source *running; /* per workload */
	struct sched_decisions preempted;
	uint32_t *order; /* workloads by namespace and name */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: echelon plan -f PATH [-f PATH...] [-o "
		"table|wide|json|yaml]\n"
		"                    [--fair-sharing] "
		"[--no-partial-admission]\n"
		"                    [--placement-algorithm NAME]\n"
		"\n"
		"Load a cluster, its queues and workloads (a Workload with\n"
		"status.admission, a running Job and a running pod of a queue\n"
		"count as usage), run admission cycles until nothing changes,\n"
		"and print the workloads running before, admitted (queue,\n"
		"flavors, topology assignment), preempted (by whom, why) and\n"
		"pending (reason, position in its ClusterQueue).\n"
		"\n"
		"  -f, --filename PATH        a file or a folder of YAML/JSON\n"
		"  -o, --output FORMAT        table (default: placements in "
		"short,\n"
		"                             pending in queue order), wide "
		"(and\n"
		"                             every domain), json or yaml\n"
		"      --fair-sharing         order and preempt by dominant "
		"share\n"
		"      --no-partial-admission ignore minCount\n"
		"      --placement-algorithm NAME  Mixed, BestFit, "
		"LeastFreeCapacity\n"
		"                             or FragmentationAware (over "
		"the\n"
		"                             Configuration's "
		"placement.algorithm)\n");
}

static const char *wl_name(const struct workload *w, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s/%s", w->ns ? w->ns : "", w->name);
	return sb->buf;
}

static json_t *admitted_json(const struct plan *p)
{
	json_t *arr = json_array();

	for (uint32_t k = 0; k < p->c->workloads.len; k++) {
		uint32_t i = p->order[k];

		if (p->admitted_here[i] &&
		    sched_wl_state(p->s, i) == SCHED_WL_ADMITTED)
			json_array_append_new(arr,
					      status_admitted(p->c, p->s, i));
	}
	return arr;
}

static json_t *preempted_json(const struct plan *p)
{
	json_t *arr = json_array();

	vec_foreach (&p->preempted.items, d)
		json_array_append_new(arr, status_preempted(p->c, p->s, d));
	return arr;
}

static json_t *pending_json(const struct plan *p)
{
	size_t n = p->c->workloads.len;
	int64_t *cqp = xcalloc(n + 1, sizeof(*cqp));
	int64_t *lqp = xcalloc(n + 1, sizeof(*lqp));
	json_t *arr = json_array();

	sched_positions(p->s, cqp, lqp);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = p->order[k];

		if (sched_wl_state(p->s, i) == SCHED_WL_PENDING)
			json_array_append_new(
				arr,
				status_pending(p->c, p->s, i, cqp[i], lqp[i]));
	}
	free(cqp);
	free(lqp);
	return arr;
}

static json_t *running_json(const struct plan *p, struct strbuf *sb)
{
	json_t *arr = json_array();

	for (uint32_t k = 0; k < p->c->workloads.len; k++) {
		uint32_t i = p->order[k];
		const char *cq = sched_cq_name(p->s, sched_wl_cq(p->s, i));
		json_t *j;

		if (p->running[i] == RUN_NO)
			continue;
		j = json_object();
		json_object_set_new(
			j, "name",
			json_string(wl_name(&p->c->workloads.items[i], sb)));
		json_object_set_new(j, "clusterQueue",
				    cq ? json_string(cq) : json_null());
		json_object_set_new(
			j, "source",
			json_string(run_source_names[p->running[i]]));
		json_array_append_new(arr, j);
	}
	return arr;
}

static json_t *plan_json(const struct plan *p)
{
	json_t *root = json_object();
	struct strbuf sb;

	strbuf_init(&sb);
	json_object_set_new(root, "running", running_json(p, &sb));
	json_object_set_new(root, "admitted", admitted_json(p));
	json_object_set_new(root, "preempted", preempted_json(p));
	json_object_set_new(root, "pending", pending_json(p));
	strbuf_release(&sb);
	return root;
}

/*
 * The pod sets of admitted workload wl, one after the other: "main x4
 * cpu=cpu-pool: 2 hosts, 1 rack (min 1)", the placement in short on TAS
 * flavors; wide: then every domain ("@h1=2 h2=2").
 */
static void table_podsets(const struct plan *p, uint32_t wl, json_t *jps,
			  bool wide, struct strbuf *sb)
{
	const struct sched_admission *adm = sched_wl_admission(p->s, wl);
	const struct workload *w = &p->c->workloads.items[wl];
	size_t i, k;
	json_t *ps, *d;

	strbuf_reset(sb);
	json_array_foreach(jps, i, ps)
	{
		json_t *ta = json_object_get(ps, "topologyAssignment");
		const struct sched_podset_admission *pa =
			adm && i < adm->npodsets ? &adm->ps[i] : NULL;
		const char *key;
		json_t *f;

		strbuf_addf(sb, "%s%s x%lld", i ? "; " : "",
			    json_string_value(json_object_get(ps, "name")),
			    (long long)json_integer_value(
				    json_object_get(ps, "count")));
		json_object_foreach(json_object_get(ps, "flavors"), key, f)
			strbuf_addf(sb, " %s=%s", key, json_string_value(f));
		if (pa && pa->tas_flavor >= 0 && pa->nodes && pa->count > 0) {
			strbuf_addstr(sb, ": ");
			topo_span_summary(sched_topo(p->s, pa->tas_flavor),
					  pa->nodes, (size_t)pa->count,
					  &w->podsets[i].requests, sb);
		}
		if (!wide)
			continue;
		json_array_foreach(json_object_get(ta, "domains"), k, d)
		{
			json_t *vals = json_object_get(d, "values");

			strbuf_addf(sb, " %s%s=%lld", k ? "" : "@",
				    json_string_value(json_array_get(
					    vals, json_array_size(vals) - 1)),
				    (long long)json_integer_value(
					    json_object_get(d, "count")));
		}
	}
}

static const char *jstr(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s ? s : "-";
}

/* Pending rows in the order the queues would try them: by ClusterQueue,
 * then position; those in no queue last, by name. */
static int pending_cmp(const void *x, const void *y)
{
	json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	json_t *pa = json_object_get(a, "position");
	json_t *pb = json_object_get(b, "position");
	int r;

	if (json_is_integer(pa) != json_is_integer(pb))
		return json_is_integer(pa) ? -1 : 1;
	if (json_is_integer(pa)) {
		r = strcmp(jstr(a, "clusterQueue"), jstr(b, "clusterQueue"));
		if (r)
			return r;
		return (json_integer_value(pa) > json_integer_value(pb)) -
		       (json_integer_value(pa) < json_integer_value(pb));
	}
	return strcmp(jstr(a, "name"), jstr(b, "name"));
}

static void table_pending(json_t *root, struct table *tb)
{
	json_t *arr = json_object_get(root, "pending");
	size_t n = json_array_size(arr);
	json_t **rows = xcalloc(n + 1, sizeof(*rows));

	for (size_t i = 0; i < n; i++)
		rows[i] = json_array_get(arr, i);
	qsort(rows, n, sizeof(*rows), pending_cmp);
	for (size_t i = 0; i < n; i++) {
		json_t *pos = json_object_get(rows[i], "position");

		table_cell(tb, "pending");
		table_cell(tb, "%s", jstr(rows[i], "name"));
		table_cell(tb, "%s", jstr(rows[i], "clusterQueue"));
		if (json_is_integer(pos))
			table_cell(tb, "#%lld %s: %s",
				   (long long)json_integer_value(pos),
				   jstr(rows[i], "reason"),
				   jstr(rows[i], "message"));
		else
			table_cell(tb, "%s: %s", jstr(rows[i], "reason"),
				   jstr(rows[i], "message"));
		table_row(tb);
	}
	free(rows);
}

static void print_table(const struct plan *p, json_t *root, bool wide)
{
	struct strbuf sb;
	struct table tb;
	size_t i = 0;
	json_t *j;

	strbuf_init(&sb);
	table_init(&tb);
	table_cell(&tb, "STATUS");
	table_cell(&tb, "WORKLOAD");
	table_cell(&tb, "CLUSTERQUEUE");
	table_cell(&tb, "DETAIL");
	table_row(&tb);
	json_array_foreach(json_object_get(root, "running"), i, j)
	{
		table_cell(&tb, "running");
		table_cell(&tb, "%s", jstr(j, "name"));
		table_cell(&tb, "%s", jstr(j, "clusterQueue"));
		table_cell(&tb, "from %s", jstr(j, "source"));
		table_row(&tb);
	}
	/* the same order as admitted_json() */
	j = json_object_get(root, "admitted");
	i = 0;
	for (uint32_t k = 0; k < p->c->workloads.len; k++) {
		uint32_t wl = p->order[k];
		json_t *a;

		if (!p->admitted_here[wl] ||
		    sched_wl_state(p->s, wl) != SCHED_WL_ADMITTED)
			continue;
		a = json_array_get(j, i++);
		table_podsets(p, wl, json_object_get(a, "podSets"), wide, &sb);
		table_cell(&tb, "admitted");
		table_cell(&tb, "%s", jstr(a, "name"));
		table_cell(&tb, "%s", jstr(a, "clusterQueue"));
		table_cell(&tb, "%s", sb.buf);
		table_row(&tb);
	}
	json_array_foreach(json_object_get(root, "preempted"), i, j)
	{
		table_cell(&tb, "preempted");
		table_cell(&tb, "%s", jstr(j, "name"));
		table_cell(&tb, "%s", jstr(j, "clusterQueue"));
		table_cell(&tb, "%s by %s", jstr(j, "reason"), jstr(j, "by"));
		table_row(&tb);
	}
	table_pending(root, &tb);
	strbuf_reset(&sb);
	table_print(&tb, &sb);
	output_write(sb.buf, sb.len);
	table_release(&tb);
	strbuf_release(&sb);
}

static int parse_args(int argc, char **argv, struct plan_opts *o)
{
	static const struct option opts[] = {
		{ "filename", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "fair-sharing", no_argument, NULL, 'F' },
		{ "no-partial-admission", no_argument, NULL, 'P' },
		{ "placement-algorithm", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			o->paths[o->npaths++] = optarg;
			break;
		case 'o':
			if (output_parse(optarg, &o->fmt) < 0)
				return cli_bad_value("plan", "--output", optarg,
						     "expected table, json, "
						     "yaml or wide");
			break;
		case 'F':
			o->sched.fair_sharing = true;
			break;
		case 'P':
			o->sched.no_partial = true;
			break;
		case 'A':
			o->set_algorithm = true;
			if (cli_parse_placement_algorithm("plan", optarg,
							  &o->algorithm))
				return CLI_BAD_VALUE;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return cli_getopt_error("plan", opt, argv);
		}
	}
	return cli_usage_args("plan", argc, argv, o->npaths);
}

/* A workload without admission: a running Job's usage, or queued. */
static void submit_one(struct plan *p, uint32_t i, struct strbuf *name)
{
	const struct workload *w = &p->c->workloads.items[i];

	switch (ctl_assume_job(p->x, ctl_handle(p->x, i))) {
	case SCHED_JOB_NOT_RUNNING:
		BUG_ON(ctl_submit(p->x, ctl_handle(p->x, i), false, p->now_us) <
		       0);
		break;
	case SCHED_JOB_OWN_WORKLOAD: /* its Workload stands for it */
		break;
	case SCHED_JOB_PODS:
		p->running[i] = RUN_PODS;
		break;
	case SCHED_JOB_NO_FLAVOR:
		fprintf(stderr,
			"echelon plan: %s: no flavor of its queue covers the "
			"running Job's pods; its usage is not counted\n",
			wl_name(w, name));
		/* fall through */
	case SCHED_JOB_COUNTED:
	case SCHED_JOB_NO_QUEUE:
		p->running[i] = RUN_JOB;
		break;
	case SCHED_JOB_USAGE_COUNT:
		BUG_ON(1);
	}
}

static int by_name(const void *x, const void *y, void *ctx)
{
	const struct cluster *c = ctx;
	const struct workload *a = &c->workloads.items[*(const uint32_t *)x];
	const struct workload *b = &c->workloads.items[*(const uint32_t *)y];
	int r = strcmp(a->ns ? a->ns : "", b->ns ? b->ns : "");

	if (!r)
		r = strcmp(a->name, b->name);
	if (!r)
		r = a->from_job - b->from_job;
	return r;
}

/*
 * What runs as usage, the others queued, by namespace and name: the order
 * of the files must not decide anything (Kueue's queues have no order
 * among workloads of one priority and timestamp).
 */
static void submit_all(struct plan *p)
{
	struct strbuf why, name;

	strbuf_init(&why);
	strbuf_init(&name);
	for (uint32_t k = 0; k < p->c->workloads.len; k++) {
		uint32_t i = p->order[k];
		const struct workload *w = &p->c->workloads.items[i];

		if (!w->admission) {
			submit_one(p, i, &name);
			continue;
		}
		strbuf_reset(&why);
		if (ctl_adopt(p->x, ctl_handle(p->x, i), p->now_us, &why) < 0) {
			fprintf(stderr,
				"echelon plan: %s: admission ignored: %s\n",
				wl_name(w, &name), why.buf);
			BUG_ON(ctl_submit(p->x, ctl_handle(p->x, i), false,
					  p->now_us) < 0);
		} else {
			p->running[i] = RUN_WORKLOAD;
		}
	}
	strbuf_release(&why);
	strbuf_release(&name);
}

/* Running pods of a LocalQueue count as its quota usage. */
static void assume_pods(struct plan *p)
{
	vec_foreach (&p->c->pods, pod) {
		if (ctl_assume_pod(p->x, pod) == -ESRCH)
			fprintf(stderr,
				"echelon plan: pod %s/%s: no flavor of its "
				"queue matches node %s; not counted\n",
				pod->ns ? pod->ns : "", pod->name,
				pod->node_name);
	}
}

/* The controller's decisions: what this plan admits and preempts. */
static void on_event(void *ctx, const struct ctl_event *e)
{
	struct plan *p = ctx;
	struct sched_decision d = { .kind = SCHED_DECIDE_PREEMPT,
				    .wl = e->wl,
				    .by = e->by,
				    .reason = e->why,
				    .cq = e->cq };

	if (e->kind == CTL_EV_ADMITTED)
		p->admitted_here[e->wl] = true;
	else if (e->kind == CTL_EV_PREEMPTED)
		vec_push(&p->preempted.items, d);
}

static const struct ctl_backend_ops plan_ops = { NULL, NULL, on_event };

int cli_plan(int argc, char **argv)
{
	struct plan_opts o = { 0 };
	struct plan p = { 0 };
	struct cluster c;
	json_t *root;
	int rc;

	o.paths = xcalloc((size_t)argc + 1, sizeof(*o.paths));
	rc = parse_args(argc, argv, &o);
	if (rc) {
		free(o.paths);
		return rc == 1 ? 0 : 2;
	}
	cluster_init(&c);
	rc = 1;
	if (cli_load(&c, o.paths, o.npaths, true, NULL) < 0)
		goto out;
	if (o.set_algorithm)
		cli_set_placement_algorithm(&c, o.algorithm);
	p.c = &c;
	vec_foreach (&c.workloads, w) {
		if (w->creation_us > p.now_us)
			p.now_us = w->creation_us;
	}
	p.x = ctl_new(&c, &(struct ctl_options){ .sched = o.sched }, &plan_ops,
		      &p);
	p.s = ctl_sched(p.x);
	p.admitted_here = xcalloc(c.workloads.len + 1, sizeof(bool));
	p.running = xcalloc(c.workloads.len + 1, sizeof(*p.running));
	p.order = xcalloc(c.workloads.len + 1, sizeof(*p.order));
	for (uint32_t i = 0; i < c.workloads.len; i++)
		p.order[i] = i;
	qsort_r(p.order, c.workloads.len, sizeof(*p.order), by_name, &c);
	sched_decisions_init(&p.preempted);
	assume_pods(&p);
	submit_all(&p);
	ctl_run(p.x, p.now_us); /* cycles until nothing changes */
	root = plan_json(&p);
	if (o.fmt == OUTPUT_TABLE || o.fmt == OUTPUT_WIDE)
		print_table(&p, root, o.fmt == OUTPUT_WIDE);
	else
		output_print(root, o.fmt);
	json_decref(root);
	sched_decisions_release(&p.preempted);
	free(p.admitted_here);
	free(p.running);
	free(p.order);
	ctl_free(p.x);
	rc = 0;
out:
	cluster_release(&c);
	free(o.paths);
	return rc;
}

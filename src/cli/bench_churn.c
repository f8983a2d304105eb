// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench churn: stream workloads through the controller as a daemon
 * sees them. On the benchmarks' synthetic cluster (bench_cluster.h), each
 * workload is created when it arrives, queued, admitted, bound (a backend
 * that binds at once), its pods reported Ready, run for a random time,
 * finished and deleted; arrivals keep a backlog of pending workloads.
 * Prints admissions and events per second and the resident memory at half
 * way and at the peak: memory must follow the live workloads, not the
 * history.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "cli/bench_cluster.h"
#include "ctl/ctl.h"
#include "sim/evq.h"

#include "base/banned.h"

#define S ((int64_t)1000000)

struct churn_opts {
	uint32_t nodes, cqs, cohorts, backlog;
	uint64_t workloads, seed;
	bool json;
};

struct churn {
	const struct churn_opts *o;
	struct cluster c;
	struct ctl *x;
	struct evq q; /* finishes */
	struct rng g;
	int gpu;
	int64_t now;
	uint64_t submitted, finished, running, events;
	VEC(uint32_t) admitted; /* in the last ctl_run(): pods to report */
};

static void on_event(void *ctx, const struct ctl_event *e)
{
	struct churn *ch = ctx;

	if (e->kind == CTL_EV_ADMITTED)
		vec_push(&ch->admitted, e->wl);
}

static const struct ctl_backend_ops ops = { NULL, NULL, on_event };

/* A new workload arrives and is queued. */
static void arrive(struct churn *ch)
{
	struct workload w;
	struct podset *ps;
	uint32_t q = (uint32_t)rng_below(&ch->g, ch->o->cqs);
	char name[32];
	uint64_t h;

	workload_init(&w);
	snprintf(name, sizeof(name), "job-%" PRIu64, ch->submitted);
	w.ns = bench_str(&ch->c, "team-%u", q, 0, 0);
	w.name = name;
	w.queue_name = cluster_str(&ch->c, "training");
	w.priority = (int32_t)rng_below(&ch->g, 4);
	w.creation_us = ch->now;
	ps = workload_add_podset(&w);
	ps->name = cluster_str(&ch->c, "main");
	bench_shape(&ch->c, TOPOLOGY_HOSTNAME_LABEL, &ch->g, ps, ch->gpu);
	BUG_ON(ctl_workload_add(ch->x, &w, &h) < 0);
	workload_release(&w);
	BUG_ON(ctl_submit(ch->x, h, true, ch->now) < 0);
	ch->submitted++;
	ch->events++;
}

/* The pods of the admitted ones are Ready; each runs 1 to 120 s. */
static void start(struct churn *ch)
{
	vec_foreach (&ch->admitted, wl) {
		const struct workload *w = &ch->c.workloads.items[*wl];
		uint64_t h = ctl_handle(ch->x, *wl);
		struct evq_event e = { 0 };

		for (int32_t p = 0; p < w->podsets[0].count; p++) {
			BUG_ON(ctl_pod_event(ch->x, h, (uint32_t)p,
					     CTL_POD_READY, ch->now) < 0);
			ch->events++;
		}
		e.time_us = ch->now + (1 + (int64_t)rng_below(&ch->g, 120)) * S;
		e.a = (int64_t)h;
		evq_push(&ch->q, &e);
		ch->running++;
	}
	ch->admitted.len = 0;
}

static long rss_kb(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void report(const struct churn *ch, double wall, double cpu,
		   long half_kb)
{
	const struct churn_opts *o = ch->o;
	struct ctl_stats st = ctl_stats(ch->x);
	double adm_s = wall > 0 ? (double)st.admissions / wall : 0;
	double ev_s = wall > 0 ? (double)ch->events / wall : 0;
	long peak = cli_peak_rss_kb();

	if (o->json) {
		json_t *j = json_object();
		char *txt;

		json_object_set_new(j, "nodes", json_integer(o->nodes));
		json_object_set_new(j, "workloads",
				    json_integer((json_int_t)o->workloads));
		json_object_set_new(j, "backlog", json_integer(o->backlog));
		json_object_set_new(j, "admissions",
				    json_integer((json_int_t)st.admissions));
		json_object_set_new(j, "cycles",
				    json_integer((json_int_t)st.cycles));
		json_object_set_new(j, "events",
				    json_integer((json_int_t)ch->events));
		json_object_set_new(j, "seconds", json_real(wall));
		json_object_set_new(j, "cpu_seconds", json_real(cpu));
		json_object_set_new(j, "admissions_per_s",
				    json_integer((json_int_t)adm_s));
		json_object_set_new(j, "events_per_s",
				    json_integer((json_int_t)ev_s));
		json_object_set_new(j, "peak_rss_bytes",
				    json_integer((json_int_t)peak * 1024));
		json_object_set_new(j, "rss_at_half_bytes",
				    json_integer((json_int_t)half_kb * 1024));
		txt = json_dumps(j, JSON_PRESERVE_ORDER);
		printf("%s\n", txt);
		free(txt);
		json_decref(j);
		return;
	}
	printf("nodes %u, workloads %" PRIu64 " (backlog %u)\n", o->nodes,
	       o->workloads, o->backlog);
	printf("%" PRIu64 " admissions in %.2f s: %.0f admissions/s, %.0f "
	       "events/s (%.2f s CPU)\n",
	       st.admissions, wall, adm_s, ev_s, cpu);
	printf("resident memory: %.1f MB at half way, %.1f MB at the peak\n",
	       (double)half_kb / 1024, (double)peak / 1024);
}

static void run(const struct churn_opts *o)
{
	struct churn ch = { .o = o };
	struct evq_event e;
	double t0, c0;
	long half_kb = -1;

	cluster_init(&ch.c);
	rng_seed(&ch.g, o->seed);
	ch.gpu = resource_id(ch.c.resources, "nvidia.com/gpu", NULL);
	bench_cluster_build(
		&ch.c,
		&(struct bench_cluster_spec){ .nodes = o->nodes,
					      .cqs = o->cqs,
					      .cohorts = o->cohorts },
		ch.gpu);
	evq_init(&ch.q, NULL, 1);
	ch.x = ctl_new(&ch.c, NULL, &ops, &ch);
	t0 = cli_now_s();
	c0 = cli_cpu_s();
	while (ch.finished < o->workloads) {
		while (ch.submitted < o->workloads &&
		       ch.submitted - ch.finished - ch.running < o->backlog)
			arrive(&ch);
		ctl_run(ch.x, ch.now);
		start(&ch);
		if (!evq_pop(&ch.q, &e))
			break; /* nothing runs and nothing fits: stop */
		ch.now = e.time_us;
		do {
			BUG_ON(ctl_finish(ch.x, (uint64_t)e.a, ch.now) < 0);
			BUG_ON(ctl_workload_delete(ch.x, (uint64_t)e.a,
						   ch.now) < 0);
			ch.finished++;
			ch.running--;
			ch.events += 2;
			if (ch.finished == o->workloads / 2)
				half_kb = rss_kb();
		} while (evq_peek(&ch.q, &e) && e.time_us == ch.now &&
			 evq_pop(&ch.q, &e));
	}
	report(&ch, cli_now_s() - t0, cli_cpu_s() - c0, half_kb);
	ctl_free(ch.x);
	evq_release(&ch.q);
	vec_release(&ch.admitted);
	cluster_release(&ch.c);
}

static int parse_args(int argc, char **argv, struct churn_opts *o)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "backlog", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:w:b:s:o:", opts, NULL)) !=
	       -1) {
		uint64_t v = 0;

		if (opt == 'o') {
			if (strcmp(optarg, "json") != 0 &&
			    strcmp(optarg, "text") != 0) {
				fprintf(stderr,
					"echelon bench churn: -o: '%s' is not "
					"json or text\n",
					optarg);
				return -1;
			}
			o->json = strcmp(optarg, "json") == 0;
			continue;
		}
		if (opt == '?')
			return -1;
		if (cli_parse_u64(optarg, opt == 's' ? 0 : 1,
				  opt == 'w' ? UINT64_C(100000000) : 10000000,
				  &v) < 0) {
			fprintf(stderr,
				"echelon bench churn: --%s: '%s' is not a "
				"number in range\n",
				opt == 'n'   ? "nodes"
				: opt == 'w' ? "workloads"
				: opt == 'b' ? "backlog"
					     : "seed",
				optarg);
			return -1;
		}
		if (opt == 'n')
			o->nodes = (uint32_t)v;
		else if (opt == 'w')
			o->workloads = v;
		else if (opt == 'b')
			o->backlog = (uint32_t)v;
		else
			o->seed = v;
	}
	if (optind != argc) {
		fprintf(stderr, "echelon bench churn: unexpected '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
}

int cli_bench_churn(int argc, char **argv)
{
	struct churn_opts o = { .nodes = 10000,
				.cqs = 100,
				.cohorts = 10,
				.backlog = 1000,
				.workloads = 1000000,
				.seed = 1 };

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: echelon bench churn [--nodes N] [--workloads W] "
		       "[--backlog B] [--seed S] [-o json]\n\n"
		       "Streams W workloads (default 1,000,000) through the "
		       "controller on N nodes\n(default 10,000): each created, "
		       "queued, admitted, bound, run and deleted,\nwith B "
		       "pending at any time (default 1,000).\n");
		return 0;
	}
	if (parse_args(argc, argv, &o) < 0)
		return 2;
	run(&o);
	return 0;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench admit: build a synthetic cluster (10,000 GPU nodes in
 * blocks of racks, one TAS flavor, 100 ClusterQueues in 10 cohorts) and
 * 100,000 pending workloads of mixed sizes with topology requests, then
 * time the admission cycles: the first, which fills the cluster, and a
 * steady state where a share of the admitted workloads finishes before
 * each cycle. Prints admissions per second over all cycles (wall and CPU
 * time) and the median and p99 time of one cycle. --no-topology uses a
 * plain flavor (quota only) to measure the scheduler without placements.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "cli/bench_cluster.h"
#include "sched/sched.h"

#include "base/banned.h"

struct admit_opts {
	uint32_t nodes, cqs, cohorts, workloads, cycles;
	uint32_t finish_pct; /* admitted workloads finishing per cycle */
	uint64_t seed;
	const char *small_level; /* topology level of single-pod jobs */
	bool json, preemption;
	bool no_topology; /* a plain flavor: quota only, no placement */
};

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void add_workloads(struct cluster *c, const struct admit_opts *o,
			  struct rng *g, int gpu)
{
	for (uint32_t i = 0; i < o->workloads; i++) {
		struct podset *ps = bench_add_workload(c, i, o->cqs,
						       o->small_level, g, gpu);

		if (o->no_topology)
			ps->topology.mode = TOPOLOGY_NONE;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Finish finish_pct% of the admitted workloads, chosen at random. */
static void finish_some(struct sched *s, const struct admit_opts *o,
			struct rng *g, int64_t now)
{
	for (uint32_t i = 0; i < o->workloads; i++) {
		if (sched_wl_state(s, i) == SCHED_WL_ADMITTED &&
		    rng_below(g, 100) < o->finish_pct)
			sched_finish(s, i, now);
	}
}

static void report(const struct admit_opts *o, size_t admitted,
		   int64_t total_ns, int64_t cpu_ns, int64_t *cyc, uint32_t n,
		   int64_t first)
{
	double per_s = total_ns ? (double)admitted * 1e9 / (double)total_ns : 0;
	double per_cpu_s = cpu_ns ? (double)admitted * 1e9 / (double)cpu_ns : 0;
	int64_t p50, p99;

	qsort(cyc, n, sizeof(*cyc), cmp_i64);
	p50 = cyc[n / 2] / 1000;
	p99 = cyc[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1] / 1000;
	if (o->json) {
		json_t *j = json_object();
		char *txt;

		json_object_set_new(j, "nodes", json_integer(o->nodes));
		json_object_set_new(j, "cluster_queues", json_integer(o->cqs));
		json_object_set_new(j, "cohorts", json_integer(o->cohorts));
		json_object_set_new(j, "workloads", json_integer(o->workloads));
		json_object_set_new(j, "small_level",
				    json_string(o->small_level));
		json_object_set_new(j, "preemption",
				    json_boolean(o->preemption));
		json_object_set_new(j, "topology",
				    json_boolean(!o->no_topology));
		json_object_set_new(j, "cycles", json_integer(n));
		json_object_set_new(j, "admitted",
				    json_integer((json_int_t)admitted));
		json_object_set_new(j, "admissions_per_s",
				    json_integer((json_int_t)per_s));
		json_object_set_new(j, "admissions_per_cpu_s",
				    json_integer((json_int_t)per_cpu_s));
		json_object_set_new(j, "first_cycle_us",
				    json_integer(first / 1000));
		json_object_set_new(j, "cycle_p50_us", json_integer(p50));
		json_object_set_new(j, "cycle_p99_us", json_integer(p99));
		txt = json_dumps(j, JSON_PRESERVE_ORDER);
		printf("%s\n", txt);
		free(txt);
		json_decref(j);
		return;
	}
	printf("nodes %u, ClusterQueues %u in %u cohorts, workloads %u\n",
	       o->nodes, o->cqs, o->cohorts, o->workloads);
	printf("cycles %u, admitted %zu, %.0f admissions/s (%.0f per CPU "
	       "second)\n",
	       n, admitted, per_s, per_cpu_s);
	printf("first cycle %" PRId64 " us; cycle p50 %" PRId64
	       " us, p99 %" PRId64 " us\n",
	       first / 1000, p50, p99);
}

static void run(const struct admit_opts *o)
{
	struct cluster c;
	struct rng g;
	struct sched *s;
	struct sched_decisions d;
	int64_t *cyc = xcalloc(o->cycles + 2, sizeof(*cyc)), total = 0, cpu = 0;
	size_t admitted = 0;
	int gpu;

	cluster_init(&c);
	rng_seed(&g, o->seed);
	gpu = resource_id(c.resources, "nvidia.com/gpu", NULL);
	BUG_ON(gpu < 0);
	bench_cluster_build(&c,
			    &(struct bench_cluster_spec){
				    .nodes = o->nodes,
				    .cqs = o->cqs,
				    .cohorts = o->cohorts,
				    .preemption = o->preemption,
				    .no_topology = o->no_topology,
			    },
			    gpu);
	add_workloads(&c, o, &g, gpu);
	s = sched_new(&c, NULL);
	sched_decisions_init(&d);
	for (uint32_t i = 0; i < o->workloads; i++)
		sched_submit(s, i, 0);
	for (uint32_t k = 0; k <= o->cycles; k++) {
		int64_t t0, c0;

		if (k)
			finish_some(s, o, &g, k);
		d.items.len = 0;
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t0 = now_ns(CLOCK_MONOTONIC);
		sched_cycle(s, k, &d);
		cyc[k] = now_ns(CLOCK_MONOTONIC) - t0;
		cpu += now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		total += cyc[k];
		vec_foreach (&d.items, x)
			admitted += x->kind == SCHED_DECIDE_ADMIT;
	}
	report(o, admitted, total, cpu, cyc + 1, o->cycles ? o->cycles : 1,
	       cyc[0]);
	sched_decisions_release(&d);
	sched_free(s);
	cluster_release(&c);
	free(cyc);
}

/* "--name" of the option whose short code is opt. */
static const char *long_name(const struct option *opts, int opt)
{
	static char buf[64];

	for (; opts->name; opts++) {
		if (opts->val == opt) {
			snprintf(buf, sizeof(buf), "--%s", opts->name);
			return buf;
		}
	}
	return "option";
}

/* 0, CLI_BAD_VALUE (said), or -1 for the usage text. */
static int parse_args(int argc, char **argv, struct admit_opts *o)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "cycles", required_argument, NULL, 'c' },
		{ "finish", required_argument, NULL, 'F' },
		{ "seed", required_argument, NULL, 's' },
		{ "preemption", no_argument, NULL, 'P' },
		{ "small-level", required_argument, NULL, 'L' },
		{ "no-topology", no_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:w:c:s:o:", opts, NULL)) !=
	       -1) {
		char *end = NULL;
		unsigned long v = optarg ? strtoul(optarg, &end, 10) : 0;

		if (optarg && opt != 'o' && opt != 'L' &&
		    (*optarg < '0' || *optarg > '9' || *end || v == 0 ||
		     v > 10000000))
			return cli_bad_value("bench admit",
					     long_name(opts, opt), optarg,
					     "expected 1 to 10000000");
		switch (opt) {
		case 'n':
			o->nodes = (uint32_t)v;
			break;
		case 'w':
			o->workloads = (uint32_t)v;
			break;
		case 'c':
			o->cycles = (uint32_t)v;
			break;
		case 'F':
			o->finish_pct = (uint32_t)(v > 100 ? 100 : v);
			break;
		case 's':
			o->seed = v;
			break;
		case 'P':
			o->preemption = true;
			break;
		case 'T':
			o->no_topology = true;
			break;
		case 'L':
			if (strcmp(optarg, "hostname") == 0)
				optarg = TOPOLOGY_HOSTNAME_LABEL;
			else if (strcmp(optarg, "rack") &&
				 strcmp(optarg, "none"))
				return cli_bad_value("bench admit",
						     "--small-level", optarg,
						     "expected hostname, rack "
						     "or none");
			o->small_level = optarg;
			break;
		case 'o':
			if (strcmp(optarg, "json") && strcmp(optarg, "table"))
				return cli_bad_value("bench admit", "--output",
						     optarg,
						     "expected table or json");
			o->json = strcmp(optarg, "json") == 0;
			break;
		default:
			return -1;
		}
	}
	return optind < argc ? -1 : 0;
}

int cli_bench_admit(int argc, char **argv)
{
	struct admit_opts o = { .nodes = 10000,
				.cqs = 100,
				.cohorts = 10,
				.workloads = 100000,
				.cycles = 50,
				.finish_pct = 5,
				.seed = 1,
				.small_level = TOPOLOGY_HOSTNAME_LABEL };

	int rc = parse_args(argc, argv, &o);

	if (rc == CLI_BAD_VALUE)
		return 2;
	if (rc < 0) {
		fprintf(stderr,
			"usage: echelon bench admit [--nodes N] [--workloads N]"
			" [--cycles N]\n"
			"                           [--finish PCT] [--seed N] "
			"[--preemption] [--no-topology]\n"
			"                           [--small-level "
			"hostname|rack|none] [-o table|json]\n");
		return 2;
	}
	run(&o);
	return 0;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench forecast: the cost of one start-time forecast
 * (ctl/ctl_forecast.h), the work the daemon does at most once per change
 * of its controller when /metrics, explain or the visibility API asks.
 * The synthetic cluster of bench admit (GPU nodes in racks and blocks,
 * ClusterQueues in cohorts) with pending workloads of mixed sizes, each
 * with a runtime of 10 minutes to 10 hours; the cycles admit what fits,
 * then the forecast runs --repeat times. Prints the median wall time, the
 * steps it took and how many workloads it estimated.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "cli/bench_cluster.h"
#include "ctl/ctl.h"
#include "ctl/ctl_forecast.h"

#include "base/banned.h"

struct fc_opts {
	uint32_t nodes, cqs, cohorts, workloads, repeat;
	uint64_t seed;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void run(const struct fc_opts *o)
{
	double *t = xcalloc(o->repeat, sizeof(*t));
	struct ctl_forecast *f = NULL;
	size_t pending = 0, known = 0;
	struct cluster c;
	struct ctl *x;
	struct rng g;
	int gpu;

	cluster_init(&c);
	rng_seed(&g, o->seed);
	gpu = resource_id(c.resources, "nvidia.com/gpu", NULL);
	BUG_ON(gpu < 0);
	bench_cluster_build(
		&c,
		&(struct bench_cluster_spec){ .nodes = o->nodes,
					      .cqs = o->cqs,
					      .cohorts = o->cohorts },
		gpu);
	for (uint32_t i = 0; i < o->workloads; i++)
		(void)bench_add_workload(&c, i, o->cqs, TOPOLOGY_HOSTNAME_LABEL,
					 &g, gpu);
	x = ctl_new(&c, NULL, NULL, NULL);
	for (uint32_t i = 0; i < o->workloads; i++) {
		uint64_t h = ctl_handle(x, i);

		BUG_ON(ctl_set_estimate(x, h,
					(int64_t)(600 + rng_below(&g, 35400)) *
						1000000) < 0);
		BUG_ON(ctl_submit(x, h, true, 0) < 0);
	}
	ctl_run(x, 0);
	for (uint32_t k = 0; k < o->repeat; k++) {
		double t0 = cli_now_s();

		ctl_forecast_free(f);
		f = ctl_forecast(x, NULL);
		t[k] = cli_now_s() - t0;
	}
	for (size_t i = 0; i < f->n; i++) {
		pending += f->wl[i].pending;
		known += f->wl[i].pending &&
			 f->wl[i].at_us != CTL_FORECAST_UNKNOWN;
	}
	qsort(t, o->repeat, sizeof(*t), cmp_double);
	printf("forecast: %u nodes, %u workloads (%zu pending), %u steps%s, "
	       "%zu estimated: %.1f ms (median of %u)\n",
	       o->nodes, o->workloads, pending, f->steps,
	       f->truncated ? " (truncated)" : "", known,
	       t[o->repeat / 2] * 1e3, o->repeat);
	ctl_forecast_free(f);
	ctl_free(x);
	cluster_release(&c);
	free(t);
}

int cli_bench_forecast(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct fc_opts o = { .nodes = 1024,
			     .cqs = 16,
			     .cohorts = 4,
			     .workloads = 5000,
			     .repeat = 3,
			     .seed = 1 };
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:w:r:s:", opts, NULL)) != -1) {
		char *end = NULL;
		unsigned long v = optarg ? strtoul(optarg, &end, 10) : 0;
		const char *name = opt == 'n'	? "--nodes"
				   : opt == 'w' ? "--workloads"
				   : opt == 'r' ? "--repeat"
						: "--seed";

		if (opt == '?' || !optarg)
			goto usage;
		if (*optarg < '0' || *optarg > '9' || *end || v == 0 ||
		    v > 1000000) {
			(void)cli_bad_value("bench forecast", name, optarg,
					    "expected 1 to 1000000");
			return 2;
		}
		if (opt == 'n')
			o.nodes = (uint32_t)v;
		else if (opt == 'w')
			o.workloads = (uint32_t)v;
		else if (opt == 'r')
			o.repeat = (uint32_t)v;
		else
			o.seed = v;
	}
	if (optind < argc)
		goto usage;
	run(&o);
	return 0;
usage:
	fprintf(stderr, "usage: echelon bench forecast [--nodes N] "
			"[--workloads N] [--repeat N] [--seed N]\n");
	return 2;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench sim: replay a trace (by default the whole ITP 2021 trace,
 * ten clusters, 69,351 jobs) on a generated cluster (by default 4 blocks x
 * 8 racks x 32 hosts x 8 GPUs) under one policy, and print the time to
 * load and to simulate, the events handled and the peak memory as JSON.
 * Target: under 30 s and 1 GB on 2 cores.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

#include "base/alloc.h"
#include "cli/sim_setup.h"

#include "base/banned.h"

#define DEFAULT_TRACE "../shared/traces/elasticflow-itp-2021-raw"
#define DEFAULT_SPEC  "blocks=4,racks=8,hosts=32,gpus=8"

static void usage(FILE *out)
{
	fputs("usage: echelon bench sim [--trace PATH] [--cluster SPEC] "
	      "[--policy P]\n"
	      "\n"
	      "Replay a trace (default " DEFAULT_TRACE ",\n"
	      "every CSV in it) on a generated cluster (default " DEFAULT_SPEC
	      ")\n"
	      "and print load and simulation time, events and peak memory as "
	      "JSON.\n",
	      out);
}

static int parse(int argc, char **argv, struct sim_setup_opts *so,
		 struct sim_options *o)
{
	static const struct option opts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "cluster", required_argument, NULL, 'c' },
		{ "policy", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			so->traces[0] = optarg;
			break;
		case 'c':
			so->cluster_spec = optarg;
			break;
		case 'p':
			if (sim_policy_parse(optarg, &o->policy) == 0)
				break;
			cli_bad_value("bench sim", "--policy", optarg,
				      "expected tas, kube-default, first-fit "
				      "or no-gang");
			return 2;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	return optind < argc ? 2 : 0;
}

int cli_bench_sim(int argc, char **argv)
{
	const char *traces[1] = { DEFAULT_TRACE };
	struct sim_setup_opts so = { .traces = traces,
				     .ntraces = 1,
				     .cluster_spec = DEFAULT_SPEC,
				     .seed = 1,
				     .quiet = true };
	struct sim_result res;
	struct errbuf eb = { 0 };
	struct sim_options o;
	struct sim_input in;
	struct cluster c;
	double t0, t1, t2;
	int rc;

	sim_options_init(&o);
	rc = parse(argc, argv, &so, &o);
	if (rc)
		return rc == 1 ? 0 : 2;
	cluster_init(&c);
	t0 = cli_now_s();
	rc = sim_setup_load(&c, &in, &so, o.policy == SIM_POLICY_NO_GANG);
	t1 = cli_now_s();
	if (!rc && sim_run(&in, &o, &res, &eb) < 0) {
		fprintf(stderr, "echelon bench sim: %s\n", eb.msg);
		rc = 1;
	}
	t2 = cli_now_s();
	if (!rc) {
		printf("{\"policy\":\"%s\",\"jobs\":%zu,\"nodes\":%zu,"
		       "\"finished\":%lld,\"events\":%llu,\"cycles\":%llu,"
		       "\"load_s\":%.3f,\"sim_s\":%.3f,\"total_s\":%.3f,"
		       "\"events_per_s\":%.0f,\"peak_rss_mb\":%.1f}\n",
		       sim_policy_name(o.policy), in.jobs.len, c.nodes.len,
		       (long long)res.sum.jobs_finished,
		       (unsigned long long)res.events,
		       (unsigned long long)res.cycles, t1 - t0, t2 - t1,
		       t2 - t0, (double)res.events / (t2 - t1),
		       (double)cli_peak_rss_kb() / 1024.0);
		sim_result_release(&res);
	}
	sim_input_release(&in);
	cluster_release(&c);
	return rc;
}

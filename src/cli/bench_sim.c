// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench sim: replay a trace (by default the whole ITP 2021 trace,
 * ten clusters, 69,351 jobs) on a generated cluster (by default 4 blocks x
 * 8 racks x 32 hosts x 8 GPUs) under one policy, and print the time to
 * load and to simulate, the events handled and the peak memory as JSON.
 * Target: under 30 s and 1 GB on 2 cores.
 *
 * --scenario runs one of the bounds' reproducers instead: pods-4m (the
 * job limit of one-pod jobs, for memory per job), gang-100k (one gang of
 * the largest size, for the cost of gang events) and failures (jobs that
 * cannot complete at the failure rate, for time and memory to the stop).
 * queued submits --jobs one-pod jobs at once to 16 hosts, so that nearly
 * all of them wait in the queue together, and adds the bytes of peak
 * memory per job beyond what the process held before loading.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "cli/sim_setup.h"
#include "sim/trace.h"

#include "base/banned.h"

#define DEFAULT_TRACE "examples/itp-2021"
#define DEFAULT_SPEC  "blocks=4,racks=8,hosts=32,gpus=8"

static void usage(FILE *out)
{
	fputs("usage: echelon bench sim [--trace PATH] [--cluster SPEC] "
	      "[--policy P]\n"
	      "                         [--scenario pods-4m|gang-100k|"
	      "failures|queued]\n"
	      "                         [--jobs N]\n"
	      "\n"
	      "Replay a trace (default " DEFAULT_TRACE ",\n"
	      "every CSV in it) on a generated cluster (default " DEFAULT_SPEC
	      ")\n"
	      "and print load and simulation time, events and peak memory as "
	      "JSON.\n"
	      "--scenario replays a generated input instead: pods-4m, "
	      "4,194,304 one-pod\n"
	      "jobs arriving 10 s apart; gang-100k, one job of 100,000 pods on "
	      "12,800\n"
	      "hosts; failures, 20 synthetic jobs on 8 hosts with a pod "
	      "failure an hour\n"
	      "(they cannot complete: the run stops as stalled); queued, "
	      "--jobs one-pod\n"
	      "jobs (default 200,000) submitted at once to 16 hosts, with "
	      "the peak\n"
	      "memory per job (bytes_per_job).\n",
	      out);
}

enum scenario { SC_NONE, SC_PODS_4M, SC_GANG_100K, SC_FAILURES, SC_QUEUED };

#define QUEUED_DEFAULT_JOBS 200000

static int parse_scenario(const char *v, enum scenario *ret)
{
	static const char *const names[] = { "pods-4m", "gang-100k", "failures",
					     "queued" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (strcmp(v, names[i]) == 0) {
			*ret = (enum scenario)(i + 1);
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * Write the scenario's JSONL trace to a new temporary file whose path goes
 * to path (PATH_MAX), read back as `sim --trace` would. -1 on failure
 * (printed).
 */
static int write_trace(enum scenario sc, long jobs, char *path, size_t size)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(path, size, "%s/echelon-bench-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "echelon bench sim: %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (sc == SC_PODS_4M) {
		for (long i = 0; i < TRACE_MAX_JOBS; i++)
			fprintf(f,
				"{\"name\":\"j%ld\",\"submit_s\":%ld,"
				"\"duration_s\":60,\"requests\":"
				"{\"nvidia.com/gpu\":1}}\n",
				i, i * 10);
	} else if (sc == SC_QUEUED) {
		for (long i = 0; i < jobs; i++)
			fprintf(f,
				"{\"name\":\"j%ld\",\"submit_s\":0,"
				"\"duration_s\":60,\"requests\":"
				"{\"nvidia.com/gpu\":1}}\n",
				i);
	} else {
		fprintf(f, "{\"name\":\"gang\",\"submit_s\":0,"
			   "\"duration_s\":3600,\"pods\":100000,"
			   "\"requests\":{\"nvidia.com/gpu\":1}}\n");
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "echelon bench sim: %s: %s\n", path,
			strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

/* Set up the scenario's input options; path holds its trace file. */
static int setup_scenario(enum scenario sc, long jobs,
			  struct sim_setup_opts *so, struct sim_options *o,
			  char *path, size_t size)
{
	switch (sc) {
	case SC_NONE:
		return 0;
	case SC_FAILURES:
		so->ntraces = 0;
		so->synth_jobs = 20;
		so->cluster_spec = "blocks=1,racks=2,hosts=4,gpus=8";
		o->pod_fail_per_h = 1;
		return 0;
	case SC_GANG_100K:
		so->cluster_spec = "blocks=4,racks=16,hosts=200,gpus=8";
		break;
	case SC_QUEUED:
		so->cluster_spec = "blocks=1,racks=1,hosts=16,gpus=8";
		break;
	case SC_PODS_4M:
		break;
	}
	if (write_trace(sc, jobs, path, size) < 0)
		return -1;
	so->traces[0] = path;
	return 0;
}

/* --jobs: a count from 1 to the trace's job limit. */
static int parse_jobs(const char *v, long *ret)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 1 || n > TRACE_MAX_JOBS)
		return -EINVAL;
	*ret = n;
	return 0;
}

static int parse(int argc, char **argv, struct sim_setup_opts *so,
		 struct sim_options *o, enum scenario *sc, long *jobs)
{
	static const struct option opts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "cluster", required_argument, NULL, 'c' },
		{ "policy", required_argument, NULL, 'p' },
		{ "scenario", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'j' },
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
		case 's':
			if (parse_scenario(optarg, sc) == 0)
				break;
			cli_bad_value("bench sim", "--scenario", optarg,
				      "expected pods-4m, gang-100k, failures "
				      "or queued");
			return 2;
		case 'j':
			if (parse_jobs(optarg, jobs) == 0)
				break;
			cli_bad_value("bench sim", "--jobs", optarg,
				      "expected 1 to 4194304");
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
	enum scenario sc = SC_NONE;
	long jobs = QUEUED_DEFAULT_JOBS, rss0;
	struct sim_result res;
	struct errbuf eb = { 0 };
	struct sim_options o;
	struct sim_input in;
	struct cluster c;
	char path[4096] = "";
	double t0, t1, t2;
	int rc;

	sim_options_init(&o);
	o.metrics = false; /* as `echelon sim` without --out */
	rc = parse(argc, argv, &so, &o, &sc, &jobs);
	if (rc)
		return rc == 1 ? 0 : 2;
	if (setup_scenario(sc, jobs, &so, &o, path, sizeof(path)) < 0)
		return 1;
	rss0 = cli_peak_rss_kb();
	cluster_init(&c);
	t0 = cli_now_s();
	rc = sim_setup_load(&c, &in, &so, o.policy == SIM_POLICY_NO_GANG);
	if (*path)
		unlink(path);
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
		       "\"events_per_s\":%.0f,\"peak_rss_mb\":%.1f,"
		       "\"samples\":%zu,\"stalled\":%s,"
		       "\"bytes_per_job\":%.0f}\n",
		       sim_policy_name(o.policy), in.jobs.len, c.nodes.len,
		       (long long)res.sum.jobs_finished,
		       (unsigned long long)res.events,
		       (unsigned long long)res.cycles, t1 - t0, t2 - t1,
		       t2 - t0, (double)res.events / (t2 - t1),
		       (double)cli_peak_rss_kb() / 1024.0, res.samples.len,
		       res.stalled ? "true" : "false",
		       in.jobs.len ? (double)(cli_peak_rss_kb() - rss0) *
					     1024.0 / (double)in.jobs.len
				   : 0.0);
		sim_result_release(&res);
	}
	sim_input_release(&in);
	cluster_release(&c);
	return rc;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench: dispatch to the benchmark of each subsystem. Speed and
 * memory targets are checked here, never by timed unit tests.
 */
#include "cli/cli.h"

#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/banned.h"

static const struct cli_verb benches[] = {
	{ "place", cli_bench_place, "topology-aware placement of one gang" },
	{ "admit", cli_bench_admit, "admission cycles over queues and quota" },
	{ "load", cli_bench_load, "loading Node manifests" },
	{ "sim", cli_bench_sim, "replaying the ITP trace in the simulator" },
	{ "churn", cli_bench_churn,
	  "workloads streamed through the controller" },
	{ "forecast", cli_bench_forecast,
	  "one start-time forecast of the pending workloads" },
	{ "serve", cli_bench_serve,
	  "the daemon's API over HTTP: creates, lists, watches, Jobs" },
	{ "kube", cli_bench_kube,
	  "the Kubernetes backend: sync, binds/s, memory, failover" },
};

double cli_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double cli_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

long cli_peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: echelon bench <benchmark> [options]\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(benches); i++)
		fprintf(out, "  %-8s %s\n", benches[i].name,
			benches[i].summary);
	fprintf(out, "\nRun 'echelon bench <benchmark> --help' for its "
		     "options.\n");
}

int cli_bench(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(benches); i++) {
		if (strcmp(argv[1], benches[i].name) == 0)
			return benches[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "echelon bench: unknown benchmark '%s'\n\n",
		cli_quote(argv[1]));
	usage(stderr);
	return 2;
}

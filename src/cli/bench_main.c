// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench: dispatch to the benchmark of each subsystem. Speed and
 * memory targets are checked here, never by timed unit tests.
 */
#include "cli/cli.h"

#include <string.h>

#include "base/banned.h"

static const struct cli_verb benches[] = {
	{ "place", cli_bench_place, "topology-aware placement of one gang" },
	{ "admit", cli_bench_admit, "admission cycles over queues and quota" },
	{ "load", cli_bench_load, "loading Node manifests" },
};

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
	fprintf(stderr, "echelon bench: unknown benchmark '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}

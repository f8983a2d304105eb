// SPDX-License-Identifier: Apache-2.0
/*
 * The echelon command: dispatches to one function per verb.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/output.h"

#include "base/banned.h"

static const struct cli_verb verbs[] = {
	{ "validate", cli_validate, "check manifests and summarise them" },
	{ "place", cli_place, "place workloads on the cluster's topology" },
	{ "plan", cli_plan, "run admission cycles and print the plan" },
	{ "sim", cli_sim, "simulate jobs on a cluster, policies side by side" },
	{ "serve", cli_serve,
	  "schedule a live embedded cluster behind a "
	  "Kubernetes API" },
	{ "explain", cli_explain,
	  "why a workload of a running serve waits or runs as it does" },
	{ "bench", cli_bench, "measure placement speed and memory" },
	{ "version", cli_version, "print the version" },
	{ "help", cli_help, "show this help" },
};

void cli_usage(FILE *out)
{
	fprintf(out, "usage: echelon <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		fprintf(out, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(out,
		"\nRun 'echelon help <command>' for a command's options.\n");
}

const struct cli_verb *cli_find_verb(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cli_verb *verb;
	int rc;

#ifdef __GLIBC__
	/*
	 * Arrays of an entry per workload grow by doubling to millions of
	 * entries. Mapped on their own (a fixed threshold), they grow by
	 * mremap() and go back to the system when freed; glibc otherwise
	 * raises the threshold after the first large free, and such arrays
	 * are then copied within the heap as they grow, leaving holes: the
	 * peak memory of one and the same run varied by a fifth.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
	if (argc < 2) {
		cli_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		rc = cli_help(argc - 1, argv + 1);
	} else if (strcmp(argv[1], "--version") == 0) {
		rc = cli_version(argc - 1, argv + 1);
	} else if ((verb = cli_find_verb(argv[1]))) {
		rc = verb->run(argc - 1, argv + 1);
	} else {
		fprintf(stderr,
			"echelon: unknown command '%s'\n"
			"Run 'echelon help' for the list of commands.\n",
			cli_quote(argv[1]));
		rc = 2;
	}
	if (output_close_stdout() < 0 && rc == 0)
		rc = 1;
	return rc;
}

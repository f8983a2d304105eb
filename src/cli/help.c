// SPDX-License-Identifier: Apache-2.0
/*
 * echelon help: the list of commands.
 */
#include "cli/cli.h"

#include <stdio.h>

#include "base/banned.h"

int cli_help(int argc, char **argv)
{
	const struct cli_verb *verb;
	char help[] = "--help";
	char *args[3];

	if (argc < 2) {
		cli_usage(stdout);
		return 0;
	}
	verb = cli_find_verb(argv[1]);
	if (!verb) {
		fprintf(stderr,
			"echelon help: unknown command '%s'\n"
			"Run 'echelon help' for the list of commands.\n",
			cli_quote(argv[1]));
		return 2;
	}
	if (verb->run == cli_help) {
		cli_usage(stdout);
		return 0;
	}
	args[0] = argv[1];
	args[1] = help;
	args[2] = NULL;
	return verb->run(2, args);
}

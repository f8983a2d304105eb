// SPDX-License-Identifier: Apache-2.0
/*
 * echelon help: the list of commands.
 */
#include "cli/cli.h"

#include "base/banned.h"

int cli_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_usage(stdout);
	return 0;
}

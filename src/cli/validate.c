// SPDX-License-Identifier: Apache-2.0
/*
 * echelon validate: load manifests, report every error, summarise by kind.
 */
#include "cli/cli.h"

#include "base/banned.h"

int cli_validate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "echelon validate: not wired yet\n");
	return 1;
}

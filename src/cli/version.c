// SPDX-License-Identifier: Apache-2.0
/*
 * echelon version: the version of this build.
 */
#include "cli/cli.h"

#include "base/version.h"

#include "base/banned.h"

int cli_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("echelon %s\n", ECHELON_VERSION);
	return 0;
}

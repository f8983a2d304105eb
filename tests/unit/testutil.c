// SPDX-License-Identifier: Apache-2.0
/*
 * Helpers shared by the unit tests.
 */
#include "testutil.h"

#include <stdlib.h>

#include "base/alloc.h"

const char *testutil_source_dir(void)
{
	const char *dir = getenv("ECHELON_SOURCE_DIR");

	return dir && *dir ? dir : ".";
}

char *testutil_path(const char *rel)
{
	return xasprintf("%s/%s", testutil_source_dir(), rel);
}

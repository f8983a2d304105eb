// SPDX-License-Identifier: Apache-2.0
/*
 * Helpers shared by the unit tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"

const char *testutil_source_dir(void)
{
	const char *dir = getenv("ECHELON_SOURCE_DIR");

	return dir && *dir ? dir : ".";
}

char *testutil_path(const char *rel)
{
	return xasprintf("%s/%s", testutil_source_dir(), rel);
}

void testutil_assert_line(const char *text, const char *line)
{
	struct strbuf needle, hay;

	strbuf_init(&needle);
	strbuf_init(&hay);
	strbuf_addf(&needle, "\n%s\n", line);
	strbuf_addf(&hay, "\n%s", text);
	if (!strstr(hay.buf, needle.buf))
		fail_msg("missing line: %s", line);
	strbuf_release(&needle);
	strbuf_release(&hay);
}

json_t *testutil_json(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (!j)
		fail_msg("bad JSON in test: %s: %s", e.text, text);
	return j;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of kueue_build_info: one series at 1 whose labels describe this
 * build in the spelling Kueue's has (a "v" version, GOOS/GOARCH), an
 * empty go_version, and the compiler that built this test.
 */
#include "obs/obs_build.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/strbuf.h"
#include "base/version.h"
#include "testutil.h"

#include "base/banned.h"

static void test_build_info(void **state)
{
	struct obs_build b;
	struct metrics *m = metrics_new();
	struct strbuf out, line;
	const char *slash;

	(void)state;
	obs_build_get(&b);
	assert_string_equal(b.git_version, "v" ECHELON_VERSION);
	assert_string_equal(b.go_version, "");
	/* GOOS/GOARCH: lowercase, one slash */
	slash = strchr(b.platform, '/');
	assert_non_null(slash);
	assert_true(slash > b.platform && slash[1] != '\0');
	assert_null(strchr(slash + 1, '/'));
#if defined(__linux__) && defined(__x86_64__)
	assert_string_equal(b.platform, "linux/amd64");
#endif
#if defined(__clang__)
	assert_true(strncmp(b.compiler, "clang ", 6) == 0);
#elif defined(__GNUC__)
	assert_true(strncmp(b.compiler, "gcc ", 4) == 0);
	/* __VERSION__ starts with the same numbers on GCC */
	assert_true(strncmp(b.compiler + 4, __VERSION__,
			    strlen(b.compiler + 4)) == 0);
#endif

	strbuf_init(&out);
	strbuf_init(&line);
	obs_build_info(m);
	obs_build_info(m); /* again: the same series */
	metrics_write(m, &out);
	strbuf_addf(&line,
		    "kueue_build_info{build_date=\"%s\",compiler=\"%s\","
		    "git_commit=\"%s\",git_version=\"%s\",go_version=\"\","
		    "platform=\"%s\"} 1",
		    b.build_date, b.compiler, b.git_commit, b.git_version,
		    b.platform);
	testutil_assert_line(out.buf, line.buf);
	testutil_assert_line(out.buf, "# TYPE kueue_build_info gauge");
	/* one series */
	assert_null(strstr(strstr(out.buf, "kueue_build_info{") + 1,
			   "kueue_build_info{"));
	strbuf_release(&line);
	strbuf_release(&out);
	metrics_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_info),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the fixed-size error buffer: errbuf_set() and errbuf_vset()
 * return the code they are given, replace rather than append, truncate
 * long messages to fit with a terminator, and accept a NULL buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/errbuf.h"
#include "testutil.h"

static int PRINTF_LIKE(3, 4)
	vset_wrapper(struct errbuf *eb, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = errbuf_vset(eb, err, fmt, ap);
	va_end(ap);
	return ret;
}

static void test_set_returns_err(void **state)
{
	static const struct {
		int err;
		const char *arg;
		const char *want;
	} cases[] = {
		{ -EINVAL, "count", "count: must be a positive integer" },
		{ -ENOENT, "jobs.yaml",
		  "jobs.yaml: must be a positive integer" },
		{ -ERANGE, "", ": must be a positive integer" },
		{ 0, "x", "x: must be a positive integer" },
		{ 7, "y", "y: must be a positive integer" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct errbuf eb;

		memset(&eb, 'Z', sizeof(eb));
		assert_int_equal(errbuf_set(&eb, cases[i].err,
					    "%s: must be a positive %s",
					    cases[i].arg, "integer"),
				 cases[i].err);
		assert_string_equal(eb.msg, cases[i].want);
		memset(&eb, 'Z', sizeof(eb));
		assert_int_equal(vset_wrapper(&eb, cases[i].err,
					      "%s: must be a positive %s",
					      cases[i].arg, "integer"),
				 cases[i].err);
		assert_string_equal(eb.msg, cases[i].want);
	}
}

static void test_replace_and_clear(void **state)
{
	struct errbuf eb;

	(void)state;
	assert_int_equal(errbuf_set(&eb, -EINVAL, "a rather long message"),
			 -EINVAL);
	assert_int_equal(errbuf_set(&eb, -EIO, "short"), -EIO);
	assert_string_equal(eb.msg, "short");
	errbuf_clear(&eb);
	assert_string_equal(eb.msg, "");
	assert_int_equal(errbuf_set(&eb, -EIO, "%d", 5), -EIO);
	assert_string_equal(eb.msg, "5");
}

static void test_truncation(void **state)
{
	static const size_t lens[] = { ERRBUF_SIZE - 2, ERRBUF_SIZE - 1,
				       ERRBUF_SIZE, ERRBUF_SIZE + 1,
				       4 * ERRBUF_SIZE };
	char src[4 * ERRBUF_SIZE + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(src) - 1; i++)
		src[i] = (char)('a' + i % 26);
	src[sizeof(src) - 1] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		size_t want = lens[i] < ERRBUF_SIZE ? lens[i] : ERRBUF_SIZE - 1;
		struct errbuf eb;

		memset(&eb, 'Z', sizeof(eb));
		assert_int_equal(
			errbuf_set(&eb, -E2BIG, "%.*s", (int)lens[i], src),
			-E2BIG);
		assert_int_equal(strlen(eb.msg), want);
		assert_memory_equal(eb.msg, src, want);
	}
}

static void test_null_buffer(void **state)
{
	static const int errs[] = { -EINVAL, 0, -ENOMEM };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(errs); i++) {
		assert_int_equal(errbuf_set(NULL, errs[i], "%s", "ignored"),
				 errs[i]);
		assert_int_equal(vset_wrapper(NULL, errs[i], "%d", 1), errs[i]);
	}
	errbuf_clear(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_returns_err),
		cmocka_unit_test(test_replace_and_clear),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_null_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

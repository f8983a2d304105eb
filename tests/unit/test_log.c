// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the logger: level names parse exactly (anything else is
 * -EINVAL and leaves the output alone), the level round-trips, and
 * log_msg() writes "echelon: <level>: text" only at or above the level.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "testutil.h"

static void test_parse_level(void **state)
{
	static const struct {
		const char *s;
		int ret;
		enum log_level level;
	} cases[] = {
		{ "error", 0, LOG_ERROR }, { "warn", 0, LOG_WARN },
		{ "info", 0, LOG_INFO },   { "debug", 0, LOG_DEBUG },
		{ "", -EINVAL, 0 },	   { "ERROR", -EINVAL, 0 },
		{ "warning", -EINVAL, 0 }, { "err", -EINVAL, 0 },
		{ "debug ", -EINVAL, 0 },  { " info", -EINVAL, 0 },
		{ "trace", -EINVAL, 0 },   { "3", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum log_level level = LOG_LEVEL_COUNT;

		assert_int_equal(log_parse_level(cases[i].s, &level),
				 cases[i].ret);
		if (cases[i].ret == 0)
			assert_int_equal(level, cases[i].level);
		else
			assert_int_equal(level, LOG_LEVEL_COUNT);
	}
}

static void test_set_get(void **state)
{
	enum log_level saved = log_get_level();

	(void)state;
	for (int l = 0; l < LOG_LEVEL_COUNT; l++) {
		log_set_level((enum log_level)l);
		assert_int_equal(log_get_level(), l);
	}
	log_set_level(saved);
}

/* Run log_msg at each level with stderr captured; return what it wrote. */
static void capture(enum log_level threshold, char *out, size_t size)
{
	enum log_level saved = log_get_level();
	FILE *tmp = tmpfile();
	int fd, n;

	assert_non_null(tmp);
	fflush(stderr);
	fd = dup(STDERR_FILENO);
	assert_true(fd >= 0);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	log_set_level(threshold);
	log_error("e%d", 1);
	log_warn("w%s", "2");
	log_info("i%c", '3');
	log_debug("d%d", 4);
	fflush(stderr);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	close(fd);
	log_set_level(saved);
	rewind(tmp);
	n = (int)fread(out, 1, size - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static void test_msg_filtering(void **state)
{
	static const char *const want[LOG_LEVEL_COUNT] = {
		[LOG_ERROR] = "echelon: error: e1\n",
		[LOG_WARN] = "echelon: error: e1\nechelon: warn: w2\n",
		[LOG_INFO] = "echelon: error: e1\nechelon: warn: w2\n"
			     "echelon: info: i3\n",
		[LOG_DEBUG] = "echelon: error: e1\nechelon: warn: w2\n"
			      "echelon: info: i3\nechelon: debug: d4\n",
	};
	char buf[512];

	(void)state;
	for (int l = 0; l < LOG_LEVEL_COUNT; l++) {
		capture((enum log_level)l, buf, sizeof(buf));
		assert_string_equal(buf, want[l]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_level),
		cmocka_unit_test(test_set_get),
		cmocka_unit_test(test_msg_filtering),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the one duration grammar (src/base/duration.c): Go's
 * time.ParseDuration syntax with its sign, units, fractions and limits,
 * the messages that name the offending character, numbers of seconds in
 * JSON's syntax, and the simulator's times that take either.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/duration.h"
#include "testutil.h"

#include "base/banned.h"

#define GO    "must be a duration such as \"90s\", \"5m\" or \"1h30m\", not "
#define UNITS " (expected ns, us, ms, s, m or h)"

struct go_case {
	const char *in;
	int rc;
	int64_t us;
	const char *msg; /* when rc < 0: the message */
};

static const struct go_case go_cases[] = {
	/* the forms Go accepts */
	{ "0", 0, 0, NULL },
	{ "+0", 0, 0, NULL },
	{ "-0", 0, 0, NULL },
	{ "0s", 0, 0, NULL },
	{ "90s", 0, 90000000, NULL },
	{ "5m", 0, 300000000, NULL },
	{ "2h", 0, 7200000000LL, NULL },
	{ "1h30m", 0, 5400000000LL, NULL },
	{ "1.5h", 0, 5400000000LL, NULL },
	{ "1h0m0.5s", 0, 3600500000LL, NULL },
	{ "500ms", 0, 500000, NULL },
	{ "1500us", 0, 1500, NULL },
	{ "1500ns", 0, 2, NULL }, /* 1.5 us, half up */
	{ "1499ns", 0, 1, NULL },
	{ "1\xc2\xb5s", 0, 1, NULL }, /* micro sign */
	{ "1\xce\xbcs", 0, 1, NULL }, /* Greek mu */
	{ ".5s", 0, 500000, NULL },
	{ "1.s", 0, 1000000, NULL },
	{ "1m1m", 0, 120000000, NULL },
	{ "+90s", 0, 90000000, NULL },
	{ "-90s", 0, -90000000, NULL },
	{ "-1.5h", 0, -5400000000LL, NULL },
	{ "-1500ns", 0, -2, NULL },
	{ "0.000000000000000000000001h", 0, 0, NULL },
	/* limits: 10^10 s either way; sums never wrap */
	{ "10000000000s", 0, DURATION_MAX_US, NULL },
	{ "-10000000000s", 0, -DURATION_MAX_US, NULL },
	{ "2777777h46m40s", 0, DURATION_MAX_US, NULL },
	{ "10000000000000000499ns", 0, DURATION_MAX_US, NULL },
	{ "10000000000000000500ns", -ERANGE, 0,
	  "must be at most 10000000000 seconds" },
	{ "-2777778h", -ERANGE, 0, "must be at least -10000000000 seconds" },
	{ "9223372036854775807ns", 0, 9223372036854776LL, NULL }, /* Go's max */
	{ "9223372036854775807h9223372036854775807h", -ERANGE, 0,
	  "must be at most 10000000000 seconds" },
	{ "99999999999999999999999999999999999999999h", -ERANGE, 0,
	  "must be at most 10000000000 seconds" },
	{ "1h99999999999999999999999999999999999999999ns", -ERANGE, 0,
	  "must be at most 10000000000 seconds" },
	/* syntax, with the character that is wrong */
	{ "", -EINVAL, 0, GO "\"\": expected a number at character 1" },
	{ "-", -EINVAL, 0, GO "\"-\": expected a number at character 2" },
	{ "+-1s", -EINVAL, 0, GO "\"+-1s\": expected a number at character 2" },
	{ "1", -EINVAL, 0, GO "\"1\": missing unit at character 2" },
	{ "00", -EINVAL, 0, GO "\"00\": missing unit at character 3" },
	{ "90", -EINVAL, 0, GO "\"90\": missing unit at character 3" },
	{ "1h30", -EINVAL, 0, GO "\"1h30\": missing unit at character 5" },
	{ "1.2.3s", -EINVAL, 0, GO "\"1.2.3s\": missing unit at character 4" },
	{ "1h-5m", -EINVAL, 0,
	  GO "\"1h-5m\": unknown unit \"h-\" at character 2" UNITS },
	{ "h1", -EINVAL, 0, GO "\"h1\": expected a number at character 1" },
	{ ".s", -EINVAL, 0, GO "\".s\": expected a number at character 1" },
	{ "1s.", -EINVAL, 0, GO "\"1s.\": expected a number at character 3" },
	{ "5x", -EINVAL, 0,
	  GO "\"5x\": unknown unit \"x\" at character 2" UNITS },
	{ "1d", -EINVAL, 0,
	  GO "\"1d\": unknown unit \"d\" at character 2" UNITS },
	{ "1S", -EINVAL, 0,
	  GO "\"1S\": unknown unit \"S\" at character 2" UNITS },
	{ "1e3s", -EINVAL, 0,
	  GO "\"1e3s\": unknown unit \"e\" at character 2" UNITS },
	{ "0x10s", -EINVAL, 0,
	  GO "\"0x10s\": unknown unit \"x\" at character 2" UNITS },
	{ "1 s", -EINVAL, 0,
	  GO "\"1 s\": unknown unit \" s\" at character 2" UNITS },
	{ " 1s", -EINVAL, 0, GO "\" 1s\": expected a number at character 1" },
	{ "inf", -EINVAL, 0, GO "\"inf\": expected a number at character 1" },
	/* characters, not bytes: the micro sign is one */
	{ "1\xc2\xb5s2x", -EINVAL, 0,
	  GO "\"1\xc2\xb5s2x\": unknown unit \"x\" at character 5" UNITS },
};

static void test_go(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(go_cases); i++) {
		const struct go_case *c = &go_cases[i];
		int64_t us = -7;
		struct errbuf eb = { "" };
		int rc = duration_parse(c->in, strlen(c->in), &us, &eb);

		if (rc != c->rc)
			fail_msg("\"%s\": rc %d, want %d (%s)", c->in, rc,
				 c->rc, eb.msg);
		if (us != (rc == 0 ? c->us : -7))
			fail_msg("\"%s\": %lld us, want %lld", c->in,
				 (long long)us, (long long)c->us);
		if (rc < 0)
			assert_string_equal(eb.msg, c->msg);
	}
	/* n bytes only, and no message buffer */
	{
		int64_t us = -1;

		assert_int_equal(duration_parse("90sx", 3, &us, NULL), 0);
		assert_int_equal(us, 90000000);
		assert_int_equal(duration_parse("1h", 1, &us, NULL), -EINVAL);
		assert_int_equal(us, 90000000);
	}
}

struct sec_case {
	const char *in;
	int rc;
	int64_t us;
};

static const struct sec_case sec_cases[] = {
	{ "0", 0, 0 },
	{ "1", 0, 1000000 },
	{ "12.5", 0, 12500000 },
	{ "0.000001", 0, 1 },
	{ "0.0000005", 0, 1 }, /* half up */
	{ "0.0000004999", 0, 0 },
	{ "1.2345675", 0, 1234568 },
	{ "1e3", 0, 1000000000 },
	{ "1.5E+2", 0, 150000000 },
	{ "25e-1", 0, 2500000 },
	{ "0e999999", 0, 0 },
	{ "007", 0, 7000000 },
	{ "10000000000", 0, 10000000000000000LL },
	{ "10000000000.000001", -ERANGE, 0 },
	{ "1e19", -ERANGE, 0 },
	{ "99999999999999999999", -ERANGE, 0 },
	{ "-1", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ ".", -EINVAL, 0 },
	{ "1.2.3", -EINVAL, 0 },
	{ "1e", -EINVAL, 0 },
	{ "12s", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
};

static void test_seconds(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sec_cases); i++) {
		const struct sec_case *c = &sec_cases[i];
		int64_t us = -1;
		struct errbuf eb;
		int rc = duration_parse_seconds(c->in, strlen(c->in), &us, &eb);

		if (rc != c->rc)
			fail_msg("%s: rc %d, want %d", c->in, rc, c->rc);
		assert_int_equal(us, rc == 0 ? c->us : -1);
	}
}

struct time_case {
	const char *in;
	int rc;
	int64_t us;
	const char *msg; /* when rc < 0 and not NULL: the message */
};

#define NOT_DURATION(s)                                                        \
	"must be a number of seconds or a duration such as \"90s\", \"45m\" "  \
	"or \"1h30m\", not \"" s "\""
#define TOO_BIG "must be at most 10000000000 seconds"
/* A Go duration's syntax error, with what is wrong where. */
#define NOT_GO(s, why) NOT_DURATION(s) ": " why

static const struct time_case time_cases[] = {
	/* numbers of seconds, as duration_parse_seconds() reads them */
	{ "0", 0, 0, NULL },
	{ "3600", 0, 3600000000LL, NULL },
	{ "1.5", 0, 1500000, NULL },
	{ "+5", 0, 5000000, NULL },
	{ "1.5e3", 0, 1500000000LL, NULL },
	{ "0.0000005", 0, 1, NULL },
	{ "10000000000", 0, 10000000000000000LL, NULL },
	{ "10000000000.000001", -ERANGE, 0, TOO_BIG },
	{ "1e19", -ERANGE, 0, TOO_BIG },
	/* Go durations */
	{ "90s", 0, 90000000, NULL },
	{ "45m", 0, 2700000000LL, NULL },
	{ "2h", 0, 7200000000LL, NULL },
	{ "1h30m", 0, 5400000000LL, NULL },
	{ "1.5h", 0, 5400000000LL, NULL },
	{ "0.1h", 0, 360000000, NULL },
	{ "500ms", 0, 500000, NULL },
	{ "1h0m0s", 0, 3600000000LL, NULL },
	{ "1m1m", 0, 120000000, NULL },
	{ "+1s", 0, 1000000, NULL },
	{ ".5s", 0, 500000, NULL },
	{ "1.s", 0, 1000000, NULL },
	{ "0s", 0, 0, NULL },
	{ "1500001us", 0, 1500001, NULL },
	{ "1\xc2\xb5s", 0, 1, NULL }, /* micro sign */
	{ "1\xce\xbcs", 0, 1, NULL }, /* Greek mu */
	{ "1ns", 0, 0, NULL },
	{ "499ns", 0, 0, NULL },
	{ "500ns", 0, 1, NULL }, /* half up */
	{ "1.0000005s", 0, 1000001, NULL },
	{ "0.0000004999s", 0, 0, NULL },
	/* exact: 499.5 ns + 0.5 ns is 500 ns, which rounds up */
	{ "0.0000004995s0.0000000005s", 0, 1, NULL },
	{ "0.333333333333333333h", 0, 1200000000LL, NULL },
	{ "0.00000000000000000000001h", 0, 0, NULL },
	{ "10000000000s", 0, 10000000000000000LL, NULL },
	{ "2777777h46m40s", 0, 10000000000000000LL, NULL },
	{ "10000000000000000000ns", 0, 10000000000000000LL, NULL },
	{ "10000000000000000499ns", 0, 10000000000000000LL, NULL },
	{ "10000000000000000500ns", -ERANGE, 0, TOO_BIG },
	{ "2777778h", -ERANGE, 0, TOO_BIG },
	{ "99999999999999999999999999999999999999999h", -ERANGE, 0, TOO_BIG },
	{ "9223372036854775807h9223372036854775807h", -ERANGE, 0, TOO_BIG },
	/* negative */
	{ "-1", -EINVAL, 0, "must not be negative" },
	{ "-5m", -EINVAL, 0, "must not be negative" },
	{ "-0", -EINVAL, 0, "must not be negative" },
	{ "-1e19", -EINVAL, 0, "must not be negative" },
	/* not durations */
	{ "", -EINVAL, 0, NOT_DURATION("") },
	{ "-", -EINVAL, 0, NOT_DURATION("-") },
	{ "+", -EINVAL, 0, NOT_DURATION("+") },
	{ "+-1", -EINVAL, 0, NOT_DURATION("+-1") },
	{ "--1", -EINVAL, 0, NOT_DURATION("--1") },
	{ "-x", -EINVAL, 0, NOT_GO("-x", "expected a number at character 2") },
	{ "5x", -EINVAL, 0,
	  NOT_GO("5x", "unknown unit \"x\" at character 2" UNITS "") },
	{ "1d", -EINVAL, 0,
	  NOT_GO("1d", "unknown unit \"d\" at character 2" UNITS "") },
	{ "1e3s", -EINVAL, 0,
	  NOT_GO("1e3s", "unknown unit \"e\" at character 2" UNITS "") },
	{ "0x10s", -EINVAL, 0,
	  NOT_GO("0x10s", "unknown unit \"x\" at character 2" UNITS "") },
	{ "s", -EINVAL, 0, NOT_GO("s", "expected a number at character 1") },
	{ ".s", -EINVAL, 0, NOT_GO(".s", "expected a number at character 1") },
	{ ".", -EINVAL, 0, NOT_DURATION(".") },
	{ "1.2.3s", -EINVAL, 0,
	  NOT_GO("1.2.3s", "missing unit at character 4") },
	{ "1.2.3", -EINVAL, 0, NOT_DURATION("1.2.3") },
	{ " 1s", -EINVAL, 0,
	  NOT_GO(" 1s", "expected a number at character 1") },
	{ "1s ", -EINVAL, 0,
	  NOT_GO("1s ", "unknown unit \"s \" at character 2" UNITS "") },
	{ "1 s", -EINVAL, 0,
	  NOT_GO("1 s", "unknown unit \" s\" at character 2" UNITS "") },
	{ "1hh", -EINVAL, 0,
	  NOT_GO("1hh", "unknown unit \"hh\" at character 2" UNITS "") },
	{ "1mss", -EINVAL, 0,
	  NOT_GO("1mss", "unknown unit \"mss\" at character 2" UNITS "") },
	{ "1h-5m", -EINVAL, 0,
	  NOT_GO("1h-5m", "unknown unit \"h-\" at character 2" UNITS "") },
	{ "h1", -EINVAL, 0, NOT_DURATION("h1") },
	{ "inf", -EINVAL, 0,
	  NOT_GO("inf", "expected a number at character 1") },
	{ "nan", -EINVAL, 0,
	  NOT_GO("nan", "expected a number at character 1") },
	{ "1S", -EINVAL, 0,
	  NOT_GO("1S", "unknown unit \"S\" at character 2" UNITS "") },
	{ "1\xc2s", -EINVAL, 0,
	  NOT_GO("1\\xc2s",
		 "unknown unit \"\\xc2s\" at character 2" UNITS "") },
};

static void test_times(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(time_cases); i++) {
		const struct time_case *c = &time_cases[i];
		int64_t us = -1;
		struct errbuf eb;
		int rc = duration_parse_time(c->in, strlen(c->in), &us, &eb);

		if (rc != c->rc)
			fail_msg("\"%s\": rc %d, want %d", c->in, rc, c->rc);
		if (us != (rc == 0 ? c->us : -1))
			fail_msg("\"%s\": %lld us, want %lld", c->in,
				 (long long)us, (long long)c->us);
		if (rc < 0 && c->msg)
			assert_string_equal(eb.msg, c->msg);
	}
	/* n bytes only: the rest of the buffer is not read */
	{
		int64_t us = -1;
		struct errbuf eb;

		assert_int_equal(duration_parse_time("90sx", 3, &us, &eb), 0);
		assert_int_equal(us, 90000000);
		assert_int_equal(duration_parse_time("12", 1, &us, &eb), 0);
		assert_int_equal(us, 1000000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

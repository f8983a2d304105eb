// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the quantity parser and formatter: a table of accepted and
 * rejected texts with their values or error messages, the int64 boundaries
 * of each kind, canonical forms, and a randomized round trip.
 */
#include "model/quantity.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "testutil.h"

#include "base/banned.h"

/* Short names keep the tables to one line a case. */
#define M QUANTITY_MILLI
#define B QUANTITY_BYTES
#define U QUANTITY_UNITS

struct parse_case {
	const char *in;
	enum quantity_kind kind;
	int rc;
	int64_t value;	 /* when rc == 0 */
	const char *msg; /* substring of the message when rc < 0 */
};

static const struct parse_case parse_cases[] = {
	/* plain numbers and every decimal SI suffix */
	{ "0", B, 0, 0, NULL },
	{ "1", B, 0, 1, NULL },
	{ "+7", B, 0, 7, NULL },
	{ "-0", B, 0, 0, NULL },
	{ "-0.000", M, 0, 0, NULL },
	{ "-0Gi", B, 0, 0, NULL },
	{ "007", U, 0, 7, NULL },
	{ "1n", M, 0, 1, NULL },
	{ "1000000n", M, 0, 1, NULL },
	{ "1000001n", M, 0, 2, NULL },
	{ "1u", M, 0, 1, NULL },
	{ "2500000u", M, 0, 2500, NULL },
	{ "500m", M, 0, 500, NULL },
	{ "1500m", B, 0, 2, NULL },
	{ "2000m", U, 0, 2, NULL },
	{ "1k", B, 0, 1000, NULL },
	{ "1M", B, 0, 1000000, NULL },
	{ "1G", B, 0, 1000000000, NULL },
	{ "1T", B, 0, 1000000000000, NULL },
	{ "1P", B, 0, 1000000000000000, NULL },
	{ "1E", B, 0, 1000000000000000000, NULL },
	{ "2k", M, 0, 2000000, NULL },
	/* every binary suffix */
	{ "1Ki", B, 0, 1024, NULL },
	{ "1Mi", B, 0, 1048576, NULL },
	{ "1Gi", B, 0, 1073741824, NULL },
	{ "1Ti", B, 0, 1099511627776, NULL },
	{ "1Pi", B, 0, 1125899906842624, NULL },
	{ "1Ei", B, 0, 1152921504606846976, NULL },
	{ "16Gi", B, 0, 17179869184, NULL },
	{ "2Ki", U, 0, 2048, NULL },
	/* decimals */
	{ "1.5", M, 0, 1500, NULL },
	{ ".5", M, 0, 500, NULL },
	{ "5.", M, 0, 5000, NULL },
	{ "0.1", M, 0, 100, NULL },
	{ "1.5Gi", B, 0, 1610612736, NULL },
	{ "0.5Ki", B, 0, 512, NULL },
	{ "0.5Ki", U, 0, 512, NULL },
	{ "1.000", U, 0, 1, NULL },
	{ "2.50k", U, 0, 2500, NULL },
	{ "0.000000000000000000000000000000000000000000000001E", M, 0, 1,
	  NULL },
	/* exponents */
	{ "1e3", B, 0, 1000, NULL },
	{ "1E3", B, 0, 1000, NULL },
	{ "1e+3", B, 0, 1000, NULL },
	{ "1e-3", M, 0, 1, NULL },
	{ "15e-1", M, 0, 1500, NULL },
	{ "1.5e2", U, 0, 150, NULL },
	{ "0e999999999999", B, 0, 0, NULL },
	{ "1e-999999999999", B, 0, 1, NULL },
	{ "12e0", U, 0, 12, NULL },
	/* rounding up to the next whole canonical unit */
	{ "0.0001", M, 0, 1, NULL },
	{ "1.0001", M, 0, 1001, NULL },
	{ "1.5", B, 0, 2, NULL },
	{ "0.1", B, 0, 1, NULL },
	{ "1m", B, 0, 1, NULL },
	{ "0.3Ki", B, 0, 308, NULL },
	{ "1n", B, 0, 1, NULL },
	/* boundaries of int64 in canonical units */
	{ "9223372036854775807", B, 0, INT64_MAX, NULL },
	{ "9223372036854775808", B, -ERANGE, 0, "too large" },
	{ "9223372036854775807", U, 0, INT64_MAX, NULL },
	{ "9223372036854775806.5", B, 0, INT64_MAX, NULL },
	{ "9223372036854775807.1", B, -ERANGE, 0, "too large" },
	{ "9223372036854775807m", M, 0, INT64_MAX, NULL },
	{ "9223372036854775808m", M, -ERANGE, 0,
	  "too large (over 9223372036854775807m)" },
	{ "9223372036854775.807", M, 0, INT64_MAX, NULL },
	{ "9223372036854775.8071", M, -ERANGE, 0, "too large" },
	{ "9223372036854775.808", M, -ERANGE, 0, "too large" },
	{ "9223372036854775807000000n", M, 0, INT64_MAX, NULL },
	{ "9223372036854775807000001n", M, -ERANGE, 0, "too large" },
	{ "9223372036854775807000n", M, 0, 9223372036854776, NULL },
	{ "9.223372036854775807E", B, 0, INT64_MAX, NULL },
	{ "7Ei", B, 0, 8070450532247928832, NULL },
	{ "8Ei", B, -ERANGE, 0, "too large" },
	{ "8191Pi", B, 0, 9222246136947933184, NULL },
	{ "8192Pi", B, -ERANGE, 0, "too large" },
	{ "9E", B, 0, 9000000000000000000, NULL },
	{ "9E", M, -ERANGE, 0,
	  "\"9E\": too large (over 9223372036854775807m)" },
	{ "10E", B, -ERANGE, 0,
	  "\"10E\": too large (over 9223372036854775807)" },
	{ "9.3E", B, -ERANGE, 0, "too large" },
	{ "1e19", B, -ERANGE, 0, "too large" },
	{ "1e18", B, 0, 1000000000000000000, NULL },
	{ "1e999999999999", U, -ERANGE, 0, "too large" },
	{ "1000000000000000000000000000000000000000000000000000000000000000", B,
	  -ERANGE, 0, "too large" },
	{ "1.5e30", U, -ERANGE, 0, "too large" },
	/* whole units */
	{ "1.5", U, -EINVAL, 0, "\"1.5\": must be a whole number" },
	{ "500m", U, -EINVAL, 0, "must be a whole number" },
	{ "1e-1", U, -EINVAL, 0, "must be a whole number" },
	{ "0.3Ki", U, -EINVAL, 0, "must be a whole number" },
	/* errors */
	{ "", B, -EINVAL, 0, "\"\": empty quantity" },
	{ "-1", B, -EINVAL, 0, "\"-1\": must not be negative" },
	{ "-0.001", M, -EINVAL, 0, "must not be negative" },
	{ "-1Gi", B, -EINVAL, 0, "must not be negative" },
	{ "1.5x", B, -EINVAL, 0, "\"1.5x\": unknown suffix \"x\"" },
	{ "1K", B, -EINVAL, 0, "unknown suffix \"K\"" },
	{ "1ki", B, -EINVAL, 0, "unknown suffix \"ki\"" },
	{ "1KiB", B, -EINVAL, 0, "unknown suffix \"KiB\"" },
	{ "1e", B, -EINVAL, 0, "unknown suffix \"e\"" },
	{ "1Gi5", B, -EINVAL, 0, "unknown suffix \"Gi5\"" },
	{ "1\x01", B, -EINVAL, 0, "unknown suffix \"\\x01\"" },
	{ "1\"", B, -EINVAL, 0, "\"1\\\"\": unknown suffix \"\\\"\"" },
	{ "1e+", B, -EINVAL, 0, "malformed exponent \"e+\"" },
	{ "1e3.5", B, -EINVAL, 0, "malformed exponent \"e3.5\"" },
	{ "1e3Ki", B, -EINVAL, 0, "malformed exponent" },
	{ "1.2.3", B, -EINVAL, 0, "\"1.2.3\": malformed number" },
	{ "++1", B, -EINVAL, 0, "\"++1\": malformed number" },
	{ "+-1", B, -EINVAL, 0, "malformed number" },
	{ "1-2", B, -EINVAL, 0, "malformed number" },
	{ ".", B, -EINVAL, 0, "malformed number" },
	{ "+", B, -EINVAL, 0, "malformed number" },
	{ "-", B, -EINVAL, 0, "malformed number" },
	{ "..5", B, -EINVAL, 0, "malformed number" },
	{ "Gi", B, -EINVAL, 0, "\"Gi\": missing number before the suffix" },
	{ "m", M, -EINVAL, 0, "missing number" },
	{ "e3", B, -EINVAL, 0, "missing number" },
	{ "1 Gi", B, -EINVAL, 0, "\"1 Gi\": must not contain whitespace" },
	{ " 1", B, -EINVAL, 0, "must not contain whitespace" },
	{ "1\n", B, -EINVAL, 0, "must not contain whitespace" },
	{ "\t", B, -EINVAL, 0, "must not contain whitespace" },
	{ "10000000000000000000000000000000000000000000000000000000000000000",
	  B, -EINVAL, 0, "too long (over 64 characters)" },
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(parse_cases); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct errbuf eb = { "untouched" };
		int64_t v = -42;
		int rc = quantity_parse(c->in, c->kind, &v, &eb);

		if (rc != c->rc || (rc == 0 && v != c->value) ||
		    (rc < 0 && (v != -42 || !strstr(eb.msg, c->msg))))
			print_error("case %zu \"%s\" kind %d: rc %d value %lld "
				    "msg '%s'\n",
				    i, c->in, c->kind, rc, (long long)v,
				    eb.msg);
		assert_int_equal(rc, c->rc);
		if (rc == 0) {
			assert_true(v == c->value);
			assert_string_equal(eb.msg, "untouched");
		} else {
			assert_true(v == -42);
			assert_non_null(strstr(eb.msg, c->msg));
		}
	}
}

/* Errors are reported without an errbuf too. */
static void test_parse_null_errbuf(void **state)
{
	int64_t v = 5;

	(void)state;
	assert_int_equal(quantity_parse("x", B, &v, NULL), -EINVAL);
	assert_int_equal(quantity_parse("9E", M, &v, NULL), -ERANGE);
	assert_true(v == 5);
}

/* A long input is quoted in the message only up to the limit. */
static void test_parse_long_message(void **state)
{
	char in[200];
	struct errbuf eb;
	int64_t v;

	(void)state;
	memset(in, '7', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	assert_int_equal(quantity_parse(in, B, &v, &eb), -EINVAL);
	assert_non_null(strstr(eb.msg, "...\": too long"));
	assert_true(strlen(eb.msg) < 120);
}

struct format_case {
	int64_t value;
	enum quantity_kind kind;
	const char *out;
};

static const struct format_case format_cases[] = {
	{ 0, M, "0" },
	{ 2000, M, "2" },
	{ 1500, M, "1500m" },
	{ 1, M, "1m" },
	{ INT64_MAX, M, "9223372036854775807m" },
	{ -1500, M, "-1500m" },
	{ 0, B, "0" },
	{ 1, B, "1" },
	{ 1000, B, "1k" },
	{ 1024, B, "1Ki" },
	{ 2147483648, B, "2Gi" },
	{ 1610612736, B, "1536Mi" },
	{ 17179869184, B, "16Gi" },
	{ 1152921504606846976, B, "1Ei" },
	{ 1000000, B, "1M" },
	{ 500000000, B, "500M" },
	{ 1024000, B, "1024k" },
	{ 1048576000, B, "1000Mi" },
	{ 1000000000000, B, "1T" },
	{ 1099511627776000, B, "1000Ti" },
	{ 2048000000, B, "2048M" },
	{ 9000000000000000000, B, "9E" },
	{ 1000000000000000, B, "1P" },
	{ 1536, B, "1536" },
	{ 3072, B, "3Ki" },
	{ 1023, B, "1023" },
	{ 1500, B, "1500" },
	{ INT64_MAX, B, "9223372036854775807" },
	{ INT64_MIN, B, "-8Ei" },
	{ -1024, B, "-1Ki" },
	{ 0, U, "0" },
	{ 8, U, "8" },
	{ 1000, U, "1000" },
	{ INT64_MAX, U, "9223372036854775807" },
};

static void test_format_table(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(format_cases); i++) {
		const struct format_case *c = &format_cases[i];

		strbuf_reset(&sb);
		strbuf_addstr(&sb, "<");
		quantity_format(c->value, c->kind, &sb);
		assert_string_equal(sb.buf + 1, c->out);
	}
	strbuf_release(&sb);
}

static void check_round_trip(int64_t v, enum quantity_kind kind,
			     struct strbuf *sb)
{
	struct errbuf eb = { "" };
	int64_t back = -1;

	strbuf_reset(sb);
	quantity_format(v, kind, sb);
	if (quantity_parse(sb->buf, kind, &back, &eb) != 0 || back != v)
		print_error("%lld kind %d -> \"%s\" -> %lld (%s)\n",
			    (long long)v, kind, sb->buf, (long long)back,
			    eb.msg);
	assert_true(back == v);
}

/*
 * Values of every magnitude, many of them multiples of 1000 or 1024 so
 * that every suffix is exercised.
 */
static void test_round_trip_random(void **state)
{
	static const int64_t mults[] = {
		1, 1000, 1024, 1000000, 1048576, 1000000000000, 1099511627776
	};
	struct strbuf sb;
	struct rng rng;

	(void)state;
	strbuf_init(&sb);
	rng_seed(&rng, 20240601);
	for (int i = 0; i < 200000; i++) {
		int64_t v =
			(int64_t)(rng_next(&rng) >> (1 + rng_below(&rng, 63)));
		int64_t m = mults[rng_below(&rng, ARRAY_SIZE(mults))];

		if (v <= INT64_MAX / m && rng_below(&rng, 2))
			v *= m;
		check_round_trip(v,
				 (enum quantity_kind)rng_below(
					 &rng, QUANTITY_KIND_COUNT),
				 &sb);
	}
	for (int k = 0; k < QUANTITY_KIND_COUNT; k++) {
		check_round_trip(0, (enum quantity_kind)k, &sb);
		check_round_trip(INT64_MAX, (enum quantity_kind)k, &sb);
		check_round_trip(INT64_MAX - 1, (enum quantity_kind)k, &sb);
	}
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_null_errbuf),
		cmocka_unit_test(test_parse_long_message),
		cmocka_unit_test(test_format_table),
		cmocka_unit_test(test_round_trip_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

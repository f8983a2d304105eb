// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the growable string: every append keeps buf NUL-terminated and
 * len exact, formatted appends that cross the growth boundary at every
 * offset produce what snprintf() would, and take leaves a reusable buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "testutil.h"

static void check_sb(const struct strbuf *sb, const char *want, size_t len)
{
	assert_non_null(sb->buf);
	assert_int_equal(sb->len, len);
	assert_true(sb->cap > sb->len);
	assert_memory_equal(sb->buf, want, len);
	assert_int_equal(sb->buf[len], '\0');
}

static void test_init(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	check_sb(&sb, "", 0);
	strbuf_release(&sb);
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
}

static void test_add(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	strbuf_addstr(&sb, "abc");
	check_sb(&sb, "abc", 3);
	strbuf_addch(&sb, '-');
	check_sb(&sb, "abc-", 4);
	strbuf_add(&sb, "x\0y", 3); /* bytes, NUL included */
	check_sb(&sb, "abc-x\0y", 7);
	strbuf_add(&sb, "ignored", 0);
	check_sb(&sb, "abc-x\0y", 7);
	strbuf_addstr(&sb, "");
	check_sb(&sb, "abc-x\0y", 7);
	strbuf_addch(&sb, '\0');
	check_sb(&sb, "abc-x\0y\0", 8);
	strbuf_release(&sb);
}

/* Append one character at a time across several growths. */
static void test_addch_growth(void **state)
{
	struct strbuf sb;
	char want[1000];

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < sizeof(want); i++) {
		want[i] = (char)('a' + i % 26);
		strbuf_addch(&sb, want[i]);
		check_sb(&sb, want, i + 1);
	}
	strbuf_release(&sb);
}

/*
 * A prefix of p bytes, then "%s|%*d|%s" formatted: for every prefix and
 * width the result crosses the 32-, 64- or larger capacity boundary at a
 * different offset. The expected string comes from snprintf().
 */
static void test_addf_crossing_growth(void **state)
{
	static const size_t prefixes[] = { 0, 1, 15, 30, 31, 32, 33, 63, 64 };
	static const int widths[] = { 0,  1,  20, 29, 30,  31,	 32,
				      33, 62, 63, 64, 100, 1000, 5000 };
	char *want = xmalloc(8192);

	(void)state;
	for (size_t p = 0; p < ARRAY_SIZE(prefixes); p++) {
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++) {
			struct strbuf sb;
			size_t n;

			strbuf_init(&sb);
			for (size_t i = 0; i < prefixes[p]; i++)
				strbuf_addch(&sb, 'P');
			strbuf_addf(&sb, "%s|%*d|%s", "head", widths[w], 42,
				    "tail");
			n = (size_t)snprintf(want, 8192, "%.*s%s|%*d|%s",
					     (int)prefixes[p],
					     "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP"
					     "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP",
					     "head", widths[w], 42, "tail");
			check_sb(&sb, want, n);
			/* And appending still works after the growth. */
			strbuf_addf(&sb, "%c%u", '#', 7u);
			want[n] = '#';
			want[n + 1] = '7';
			check_sb(&sb, want, n + 2);
			strbuf_release(&sb);
		}
	}
	free(want);
}

static void test_addf_many(void **state)
{
	struct strbuf sb, ref;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&ref);
	for (int i = 0; i < 3000; i++) {
		char tmp[64];
		int n = snprintf(tmp, sizeof(tmp), "[%d:%x:%s]", i, i * 7,
				 i % 3 ? "odd" : "");

		strbuf_addf(&sb, "[%d:%x:%s]", i, i * 7, i % 3 ? "odd" : "");
		strbuf_add(&ref, tmp, (size_t)n);
		assert_int_equal(sb.len, ref.len);
	}
	check_sb(&sb, ref.buf, ref.len);
	assert_int_equal(strlen(sb.buf), sb.len);
	/* An empty format adds nothing. */
	strbuf_addf(&sb, "%s", "");
	check_sb(&sb, ref.buf, ref.len);
	strbuf_release(&sb);
	strbuf_release(&ref);
}

static void test_truncate(void **state)
{
	static const size_t cuts[] = { 10, 5, 5, 1, 0 };
	struct strbuf sb;
	const char *s = "0123456789";

	(void)state;
	strbuf_init(&sb);
	strbuf_addstr(&sb, s);
	for (size_t i = 0; i < ARRAY_SIZE(cuts); i++) {
		strbuf_truncate(&sb, cuts[i]);
		check_sb(&sb, s, cuts[i]);
	}
	/* Appending continues at the cut, not at the old end. */
	strbuf_addstr(&sb, "ab");
	check_sb(&sb, "ab", 2);
	strbuf_addstr(&sb, "cdefghijklmnopqrstuvwxyz0123456789");
	strbuf_truncate(&sb, 3);
	strbuf_addf(&sb, "%d", 9);
	check_sb(&sb, "abc9", 4);
	strbuf_reset(&sb);
	check_sb(&sb, "", 0);
	strbuf_release(&sb);
}

static void test_take(void **state)
{
	struct strbuf sb;
	char *s, *t;

	(void)state;
	strbuf_init(&sb);
	strbuf_addf(&sb, "%0100d", 0);
	s = strbuf_take(&sb);
	assert_int_equal(strlen(s), 100);
	assert_true(s[0] == '0' && s[99] == '0');
	/* Left empty, initialised, and not sharing the taken string. */
	check_sb(&sb, "", 0);
	assert_ptr_not_equal(sb.buf, s);
	strbuf_addstr(&sb, "again");
	check_sb(&sb, "again", 5);
	assert_int_equal(strlen(s), 100);
	t = strbuf_take(&sb);
	assert_string_equal(t, "again");
	/* Taking an empty buffer gives an empty string. */
	free(s);
	s = strbuf_take(&sb);
	assert_string_equal(s, "");
	free(s);
	free(t);
	strbuf_release(&sb);
}

static void test_json_string(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "\"\"" },
		{ "plain", "\"plain\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "a\nb\rc\td", "\"a\\nb\\rc\\td\"" },
		{ "\x01\x1f ", "\"\\u0001\\u001f \"" },
		{ "caf\xc3\xa9 <&>", "\"caf\xc3\xa9 <&>\"" },
	};
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		strbuf_reset(&sb);
		strbuf_add_json_string(&sb, cases[i].in);
		assert_string_equal(sb.buf, cases[i].want);
	}
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_addch_growth),
		cmocka_unit_test(test_addf_crossing_growth),
		cmocka_unit_test(test_addf_many),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_json_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

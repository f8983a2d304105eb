// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the message quoting helper: control characters, C1 controls and
 * bytes that are not UTF-8 are escaped, printable text (UTF-8 included) is
 * kept, quoting twice changes nothing, long text is cut in the middle, and
 * the byte-level checks (NUL position, UTF-8 length) are exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/diag.h"
#include "base/errbuf.h"
#include "base/text.h"
#include "testutil.h"

#include "base/banned.h"

static void test_quote(void **state)
{
	static const struct {
		const char *in;
		size_t len; /* 0: strlen */
		const char *want;
	} cases[] = {
		{ "plain text", 0, "plain text" },
		{ "back\\slash \"quotes\"", 0, "back\\slash \"quotes\"" },
		{ "a\nb", 0, "a\\nb" },
		{ "tab\there\r", 0, "tab\\there\\r" },
		{ "\x1b]0;title\x07", 0, "\\x1b]0;title\\x07" },
		{ "\x1b[2J", 0, "\\x1b[2J" },
		{ "del\x7f", 0, "del\\x7f" },
		{ "caf\xc3\xa9 \xe2\x82\xac", 0, "caf\xc3\xa9 \xe2\x82\xac" },
		/* C1 controls: U+0085 and the one-byte CSI U+009B */
		{ "\xc2\x85\xc2\x9b", 0, "\\xc2\\x85\\xc2\\x9b" },
		/* U+00A0 is printable */
		{ "\xc2\xa0", 0, "\xc2\xa0" },
		/* not UTF-8: a lone 0x9b, a truncated sequence, overlong */
		{ "\x9b", 0, "\\x9b" },
		{ "a\xe2\x82", 0, "a\\xe2\\x82" },
		{ "\xc0\xaf", 0, "\\xc0\\xaf" },
		{ "a\0b", 3, "a\\x00b" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
		struct strbuf sb, again;

		strbuf_init(&sb);
		strbuf_init(&again);
		text_quote(&sb, cases[i].in, len, 0);
		assert_string_equal(sb.buf, cases[i].want);
		text_quote(&again, sb.buf, sb.len, 0);
		assert_string_equal(again.buf, sb.buf);
		strbuf_release(&sb);
		strbuf_release(&again);
	}
}

static void test_cut(void **state)
{
	static const struct {
		size_t len, max;
		const char *want;
	} cases[] = {
		{ 10, 10, "abcdefghij" },
		{ 10, 0, "abcdefghij" },
		{ 11, 9, "abcdef[... 2 bytes ...]ijk" },
		{ 26, 6, "abcd[... 20 bytes ...]yz" },
	};
	const char *abc = "abcdefghijklmnopqrstuvwxyz";

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb;

		strbuf_init(&sb);
		text_quote(&sb, abc, cases[i].len, cases[i].max);
		assert_string_equal(sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
	/* a cut never splits a UTF-8 character */
	{
		struct strbuf sb;

		strbuf_init(&sb);
		text_quote(&sb, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, 3);
		assert_string_equal(sb.buf, "\xc3\xa9[... 4 bytes ...]"
					    "\xc3\xa9");
		strbuf_release(&sb);
	}
}

static void test_quote_buf(void **state)
{
	static const struct {
		const char *in;
		size_t size;
		const char *want;
	} cases[] = {
		{ "abc", 10, "abc" },
		{ "abcdef", 4, "abc" },
		/* no half escape at the end */
		{ "ab\x1b", 5, "ab" },
		{ "ab\x1b", 7, "ab\\x1b" },
		/* no half character */
		{ "a\xc3\xa9", 3, "a" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[16];

		text_quote_buf(buf, cases[i].size, cases[i].in,
			       strlen(cases[i].in), 0);
		assert_string_equal(buf, cases[i].want);
	}
}

/* Every diagnostic path quotes: the diag list and the error buffer. */
static void test_messages_quoted(void **state)
{
	struct errbuf eb;
	struct strbuf sb;
	struct diag d;

	(void)state;
	errbuf_set(&eb, -1, "name \"%s\"", "x\ny\x1b[0m");
	assert_string_equal(eb.msg, "name \"x\\ny\\x1b[0m\"");
	diag_init(&d);
	strbuf_init(&sb);
	diag_add(&d, DIAG_ERROR, "f\n.yaml", 1, 2, "bad \"%s\"", "\x1b]2;t");
	diag_format(&d, &sb);
	assert_string_equal(sb.buf, "f\\n.yaml:1:2: bad \"\\x1b]2;t\"\n");
	strbuf_release(&sb);
	diag_release(&d);
}

static void test_find_nul(void **state)
{
	static const struct {
		const char *in;
		size_t len, off;
		int line, col;
	} cases[] = {
		{ "abc", 3, 3, 0, 0 },
		{ "", 0, 0, 0, 0 },
		{ "\0", 1, 0, 1, 1 },
		{ "ab\ncd\0", 6, 5, 2, 3 },
		{ "\xc3\xa9\xc3\xa9\0", 5, 4, 1, 3 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int line = 0, col = 0;

		assert_int_equal(
			text_find_nul(cases[i].in, cases[i].len, &line, &col),
			cases[i].off);
		assert_int_equal(line, cases[i].line);
		assert_int_equal(col, cases[i].col);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_quote_buf),
		cmocka_unit_test(test_messages_quoted),
		cmocka_unit_test(test_find_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the diagnostics list: the "file:line:col: [warning: ]text"
 * format for each combination of known location, error and warning counts,
 * the DIAG_MAX cap with its "... and N more" line, and diag_move.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/diag.h"
#include "testutil.h"

static void check_format(const struct diag *d, const char *want)
{
	struct strbuf sb;

	strbuf_init(&sb);
	diag_format(d, &sb);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_format_one(void **state)
{
	static const struct {
		enum diag_severity sev;
		const char *file;
		int line, col;
		const char *text;
		const char *want;
	} cases[] = {
		{ DIAG_ERROR, "jobs.yaml", 14, 9,
		  "spec.podSets[0].count: must be a positive integer",
		  "jobs.yaml:14:9: spec.podSets[0].count: must be a positive "
		  "integer\n" },
		{ DIAG_WARNING, "cluster.yaml", 3, 1, "nodes[2]: unused label",
		  "cluster.yaml:3:1: warning: nodes[2]: unused label\n" },
		{ DIAG_ERROR, "trace.json", 0, 0, "empty file",
		  "trace.json: empty file\n" },
		{ DIAG_WARNING, "trace.json", 0, 0, "no jobs",
		  "trace.json: warning: no jobs\n" },
		{ DIAG_ERROR, NULL, 0, 0, "no input", "no input\n" },
		{ DIAG_WARNING, NULL, 0, 0, "deprecated flag",
		  "warning: deprecated flag\n" },
		{ DIAG_ERROR, "a b.yaml", 100000, 250, "x: y",
		  "a b.yaml:100000:250: x: y\n" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct diag d;

		diag_init(&d);
		diag_add(&d, cases[i].sev, cases[i].file, cases[i].line,
			 cases[i].col, "%s", cases[i].text);
		assert_int_equal(d.msgs.len, 1);
		assert_int_equal(d.errors, cases[i].sev == DIAG_ERROR);
		assert_int_equal(d.warnings, cases[i].sev == DIAG_WARNING);
		assert_int_equal(d.msgs.items[0].line, cases[i].line);
		assert_int_equal(d.msgs.items[0].col, cases[i].col);
		check_format(&d, cases[i].want);
		diag_release(&d);
	}
}

static void test_format_args_and_order(void **state)
{
	struct diag d;
	char file[32];

	(void)state;
	diag_init(&d);
	check_format(&d, "");
	snprintf(file, sizeof(file), "jobs.yaml");
	diag_add(&d, DIAG_ERROR, file, 2, 5, "%s[%d].%s: must be %s",
		 "spec.podSets", 1, "count", "positive");
	/* The diag keeps its own copy of the file name. */
	snprintf(file, sizeof(file), "other.yaml");
	diag_add(&d, DIAG_WARNING, file, 7, 1, "%d%%", 50);
	diag_add(&d, DIAG_ERROR, NULL, 0, 0, "%s", "last");
	check_format(&d, "jobs.yaml:2:5: spec.podSets[1].count: must be "
			 "positive\n"
			 "other.yaml:7:1: warning: 50%\n"
			 "last\n");
	assert_int_equal(d.errors, 2);
	assert_int_equal(d.warnings, 1);
	assert_int_equal(d.dropped, 0);
	diag_release(&d);
	/* Released diags are empty and reusable. */
	assert_int_equal(d.msgs.len, 0);
	assert_int_equal(d.errors, 0);
	assert_int_equal(d.warnings, 0);
	check_format(&d, "");
	diag_add(&d, DIAG_ERROR, "f", 1, 1, "again");
	check_format(&d, "f:1:1: again\n");
	diag_release(&d);
}

static void test_cap(void **state)
{
	static const struct {
		size_t errors, warnings;
	} cases[] = {
		{ DIAG_MAX, 0 },
		{ DIAG_MAX - 1, 1 },
		{ DIAG_MAX + 1, 0 },
		{ DIAG_MAX, 5 },
		{ 3 * DIAG_MAX, 2 * DIAG_MAX },
	};

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		size_t total = cases[c].errors + cases[c].warnings;
		size_t kept = total < DIAG_MAX ? total : DIAG_MAX;
		char tail[64];
		struct strbuf sb;
		struct diag d;

		diag_init(&d);
		for (size_t i = 0; i < cases[c].errors; i++)
			diag_add(&d, DIAG_ERROR, "f", (int)i + 1, 1, "e%zu", i);
		for (size_t i = 0; i < cases[c].warnings; i++)
			diag_add(&d, DIAG_WARNING, "f", 1, 1, "w%zu", i);
		assert_int_equal(d.msgs.len, kept);
		assert_int_equal(d.errors, cases[c].errors);
		assert_int_equal(d.warnings, cases[c].warnings);
		assert_int_equal(d.dropped, total - kept);
		/* The first messages are the ones kept. */
		assert_string_equal(d.msgs.items[0].text, "e0");
		strbuf_init(&sb);
		diag_format(&d, &sb);
		if (total > DIAG_MAX) {
			snprintf(tail, sizeof(tail), "\n... and %zu more\n",
				 total - DIAG_MAX);
			assert_int_equal(count_lines(sb.buf), DIAG_MAX + 1);
			assert_true(sb.len > strlen(tail));
			assert_string_equal(sb.buf + sb.len - strlen(tail),
					    tail);
		} else {
			assert_int_equal(count_lines(sb.buf), total);
			assert_null(strstr(sb.buf, "more"));
		}
		strbuf_release(&sb);
		diag_release(&d);
	}
}

static void test_move(void **state)
{
	struct diag dst, src;

	(void)state;
	diag_init(&dst);
	diag_init(&src);
	diag_add(&dst, DIAG_ERROR, "a.yaml", 1, 1, "first");
	diag_add(&src, DIAG_WARNING, "b.yaml", 2, 3, "second");
	diag_add(&src, DIAG_ERROR, "b.yaml", 4, 5, "third");
	diag_move(&dst, &src);
	check_format(&dst, "a.yaml:1:1: first\n"
			   "b.yaml:2:3: warning: second\n"
			   "b.yaml:4:5: third\n");
	assert_int_equal(dst.errors, 2);
	assert_int_equal(dst.warnings, 1);
	/* src is left empty, with no counts, and reusable. */
	assert_int_equal(src.msgs.len, 0);
	assert_int_equal(src.errors, 0);
	assert_int_equal(src.warnings, 0);
	assert_int_equal(src.dropped, 0);
	check_format(&src, "");
	diag_add(&src, DIAG_ERROR, NULL, 0, 0, "fourth");
	diag_move(&dst, &src);
	assert_int_equal(dst.msgs.len, 4);
	assert_string_equal(dst.msgs.items[3].text, "fourth");
	/* Moving an empty diag changes nothing. */
	diag_move(&dst, &src);
	assert_int_equal(dst.msgs.len, 4);
	assert_int_equal(dst.errors, 3);
	diag_release(&src);
	diag_release(&dst);
}

static void test_move_respects_cap(void **state)
{
	struct diag dst, src;
	struct strbuf sb;
	char tail[64];

	(void)state;
	diag_init(&dst);
	diag_init(&src);
	for (int i = 0; i < DIAG_MAX - 2; i++)
		diag_add(&dst, DIAG_ERROR, NULL, 0, 0, "d%d", i);
	for (int i = 0; i < DIAG_MAX + 3; i++)
		diag_add(&src, DIAG_WARNING, NULL, 0, 0, "s%d", i);
	assert_int_equal(src.dropped, 3);
	diag_move(&dst, &src);
	/* Two fit; the other DIAG_MAX - 2 and src's 3 dropped are counted. */
	assert_int_equal(dst.msgs.len, DIAG_MAX);
	assert_string_equal(dst.msgs.items[DIAG_MAX - 1].text, "s1");
	assert_int_equal(dst.dropped, DIAG_MAX - 2 + 3);
	assert_int_equal(dst.errors, DIAG_MAX - 2);
	assert_int_equal(dst.warnings, DIAG_MAX + 3);
	assert_int_equal(src.msgs.len, 0);
	strbuf_init(&sb);
	diag_format(&dst, &sb);
	snprintf(tail, sizeof(tail), "\n... and %d more\n", DIAG_MAX + 1);
	assert_non_null(strstr(sb.buf, tail));
	strbuf_release(&sb);
	diag_release(&src);
	diag_release(&dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_one),
		cmocka_unit_test(test_format_args_and_order),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_move_respects_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

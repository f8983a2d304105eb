// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of string interning: one stable copy and one id per distinct
 * string, ids dense in first-seen order, lookups that never add, and
 * pointers that stay valid while the table grows.
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
#include "base/intern.h"
#include "testutil.h"

static void test_first_seen_ids(void **state)
{
	static const struct {
		const char *s;
		uint32_t id;
	} seq[] = {
		{ "zone", 0 },	{ "rack", 1 }, { "zone", 0 }, { "", 2 },
		{ "node", 3 },	{ "rack", 1 }, { "Zone", 4 }, { "", 2 },
		{ "zone ", 5 }, { "node", 3 }, { "a", 6 },    { "zone", 0 },
	};
	struct intern t;

	(void)state;
	intern_init(&t);
	for (size_t i = 0; i < ARRAY_SIZE(seq); i++) {
		assert_int_equal(intern_id(&t, seq[i].s), seq[i].id);
		assert_string_equal(intern_name(&t, seq[i].id), seq[i].s);
		assert_int_equal(intern_find(&t, seq[i].s), seq[i].id);
	}
	assert_int_equal(t.strs.len, 7);
	intern_release(&t);
}

static void test_same_pointer(void **state)
{
	struct intern t;
	char buf[32];
	const char *a, *b, *c;

	(void)state;
	intern_init(&t);
	snprintf(buf, sizeof(buf), "gpu");
	a = intern_str(&t, buf);
	/* A copy, not the caller's buffer. */
	assert_ptr_not_equal(a, buf);
	assert_string_equal(a, "gpu");
	snprintf(buf, sizeof(buf), "cpu");
	assert_string_equal(a, "gpu");
	b = intern_str(&t, "gpu");
	assert_ptr_equal(a, b);
	c = intern_str(&t, buf);
	assert_ptr_not_equal(a, c);
	assert_ptr_equal(intern_name(&t, intern_id(&t, "gpu")), a);
	assert_ptr_equal(intern_name(&t, intern_id(&t, "cpu")), c);
	/* intern_str assigns ids too, in the same first-seen order. */
	assert_int_equal(intern_id(&t, "gpu"), 0);
	assert_int_equal(intern_id(&t, "cpu"), 1);
	intern_release(&t);
}

static void test_find_absent(void **state)
{
	static const char *const absent[] = { "x", "", "ab", "abc ", "ABC" };
	struct intern t;

	(void)state;
	intern_init(&t);
	/* Even on a table that has never allocated. */
	assert_int_equal(intern_find(&t, "abc"), -1);
	assert_int_equal(intern_id(&t, "abc"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(absent); i++) {
		assert_int_equal(intern_find(&t, absent[i]), -1);
		/* Lookups do not add. */
		assert_int_equal(t.strs.len, 1);
	}
	assert_int_equal(intern_id(&t, "next"), 1);
	intern_release(&t);
	/* Released tables are empty and reusable. */
	intern_init(&t);
	assert_int_equal(intern_find(&t, "abc"), -1);
	intern_release(&t);
}

static void test_many(void **state)
{
	enum { N = 50000 };
	struct intern t;
	const char **ptrs = xcalloc(N, sizeof(*ptrs));
	char buf[32];

	(void)state;
	intern_init(&t);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "label-%d", i);
		assert_int_equal(intern_id(&t, buf), (uint32_t)i);
		ptrs[i] = intern_name(&t, (uint32_t)i);
	}
	/* Repeating in another order changes nothing. */
	for (int i = N; i-- > 0;) {
		snprintf(buf, sizeof(buf), "label-%d", i);
		assert_int_equal(intern_id(&t, buf), (uint32_t)i);
		assert_ptr_equal(intern_str(&t, buf), ptrs[i]);
		assert_string_equal(ptrs[i], buf);
		assert_int_equal(intern_find(&t, buf), i);
	}
	assert_int_equal(t.strs.len, N);
	assert_int_equal(t.map.len, N);
	intern_release(&t);
	free(ptrs);
}

/* Counted strings leave with their last reference and their ids are
 * reused; a string interned for good stays whatever the counts. */
static void test_counted(void **state)
{
	struct intern t;
	const char *a, *b;
	char name[32];

	(void)state;
	intern_init(&t);
	intern_str(&t, "kept");
	a = intern_str_counted(&t, "job-1");
	b = intern_str_counted(&t, "job-1");
	assert_ptr_equal(a, b);
	assert_int_equal(intern_count(&t), 2);
	intern_unref(&t, "job-1");
	assert_int_equal(intern_find(&t, "job-1"), 1); /* one ref left */
	intern_unref(&t, "job-1");
	assert_int_equal(intern_find(&t, "job-1"), -1);
	assert_int_equal(intern_count(&t), 1);
	/* the freed id is taken again */
	assert_int_equal(intern_id(&t, "job-2"), 1);
	/* a counted string interned for good stays */
	intern_str_counted(&t, "kept");
	intern_unref(&t, "kept");
	intern_unref(&t, "kept");
	assert_int_equal(intern_find(&t, "kept"), 0);
	intern_str_counted(&t, "c");
	intern_str(&t, "c"); /* now for good */
	intern_unref(&t, "c");
	assert_true(intern_find(&t, "c") >= 0);
	/* churn: the table holds the live strings only */
	for (int k = 0; k < 10000; k++) {
		snprintf(name, sizeof(name), "w-%d", k);
		intern_str_counted(&t, name);
		intern_unref(&t, name);
	}
	assert_int_equal(intern_count(&t), 3);
	assert_true(t.strs.len <= 4);
	intern_release(&t);
}

/* Strings kept for good of every length, across many blocks: each stays
 * where it was put, whole, and is found again. */
static void test_lengths(void **state)
{
	enum { N = 3000 };
	static const size_t lengths[] = { 0, 1, 7, 100, 8191, 8192, 20000 };
	struct intern t;
	const char **ptrs = xcalloc(N, sizeof(*ptrs));
	char *buf = xmalloc(20001);

	(void)state;
	intern_init(&t);
	for (int i = 0; i < N; i++) {
		size_t len = lengths[(size_t)i % ARRAY_SIZE(lengths)];
		char id[16];
		int n = snprintf(id, sizeof(id), "%d.", i);

		memset(buf, 'a' + i % 26, len);
		memcpy(buf, id, (size_t)n < len ? (size_t)n : len);
		buf[len] = '\0';
		ptrs[i] = intern_str(&t, buf);
		assert_string_equal(ptrs[i], buf);
	}
	for (int i = 0; i < N; i++) {
		assert_int_equal(strlen(ptrs[i]),
				 lengths[(size_t)i % ARRAY_SIZE(lengths)]);
		assert_ptr_equal(intern_str(&t, ptrs[i]), ptrs[i]);
	}
	intern_release(&t);
	free(buf);
	free(ptrs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_seen_ids),
		cmocka_unit_test(test_same_pointer),
		cmocka_unit_test(test_find_absent),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_counted),
		cmocka_unit_test(test_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

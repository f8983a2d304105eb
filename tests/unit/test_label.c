// SPDX-License-Identifier: Apache-2.0
/*
 * Label sets (sorted insert, replace, lookup, containment, copy) and the
 * Kubernetes label key and value syntax, one table row per rule.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/label.h"
#include "testutil.h"

#include "base/banned.h"

/* A heap string of n copies of c. */
static char *repeat(char c, size_t n)
{
	char *s = xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

struct check_case {
	const char *in;	 /* NULL means: use the long string built below */
	const char *msg; /* NULL when valid */
};

static const struct check_case key_cases[] = {
	{ "app", NULL },
	{ "a", NULL },
	{ "1", NULL },
	{ "App.Name_v-2", NULL },
	{ "kubernetes.io/hostname", NULL },
	{ "topology.kubernetes.io/zone", NULL },
	{ "example.com/MyName", NULL },
	{ "a-b.c/x", NULL },
	{ "", "name part must be non-empty" },
	{ "example.com/", "name part must be non-empty" },
	{ "/name", "prefix part must be non-empty" },
	{ "-app", "name part must consist of alphanumeric characters" },
	{ "app-", "name part must consist of alphanumeric characters" },
	{ "_app", "name part must consist of alphanumeric characters" },
	{ "app.", "name part must consist of alphanumeric characters" },
	{ "ap p", "name part must consist of alphanumeric characters" },
	{ "app=x", "name part must consist of alphanumeric characters" },
	{ "Example.com/x", "prefix part a lowercase RFC 1123 subdomain" },
	{ "ex_ample.com/x", "prefix part a lowercase RFC 1123 subdomain" },
	{ "example..com/x", "prefix part a lowercase RFC 1123 subdomain" },
	{ ".example.com/x", "prefix part a lowercase RFC 1123 subdomain" },
	{ "example-.com/x", "prefix part a lowercase RFC 1123 subdomain" },
	{ "a/b/c", "a qualified name must consist of" },
	{ "example.com/-x", "name part must consist of alphanumeric" },
};

static void test_check_key(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(key_cases) / sizeof(key_cases[0]); i++) {
		const struct check_case *c = &key_cases[i];
		struct errbuf eb = { "" };
		int err = label_check_key(c->in, &eb);

		if (!c->msg) {
			if (err)
				fail_msg("\"%s\": %s", c->in, eb.msg);
			continue;
		}
		assert_int_equal(err, -EINVAL);
		if (!strstr(eb.msg, c->msg))
			fail_msg("\"%s\": got \"%s\"", c->in, eb.msg);
	}
}

static void expect_key(const char *key, const char *msg)
{
	struct errbuf eb = { "" };
	int err = label_check_key(key, &eb);

	if (!msg) {
		assert_int_equal(err, 0);
		return;
	}
	assert_int_equal(err, -EINVAL);
	assert_string_equal(eb.msg, msg);
}

/* Length limits sit exactly at 63 (name) and 253 (prefix). */
static void test_check_key_lengths(void **state)
{
	char *n63 = repeat('n', 63), *n64 = repeat('n', 64);
	char *p253 = repeat('p', 253), *p254 = repeat('p', 254);
	char *k;

	(void)state;
	expect_key(n63, NULL);
	expect_key(n64, "name part must be no more than 63 characters");
	k = xasprintf("%s/%s", p253, n63);
	expect_key(k, NULL);
	free(k);
	k = xasprintf("%s/x", p254);
	expect_key(k, "prefix part must be no more than 253 characters");
	free(k);
	k = xasprintf("example.com/%s", n64);
	expect_key(k, "name part must be no more than 63 characters");
	free(k);
	expect_key(NULL, "name part must be non-empty");
	free(n63);
	free(n64);
	free(p253);
	free(p254);
}

static const struct check_case value_cases[] = {
	{ "", NULL },
	{ "v", NULL },
	{ "9", NULL },
	{ "v1.2_3-b", NULL },
	{ "MixedCase", NULL },
	{ "-v", "a valid label must be an empty string or consist of" },
	{ "v-", "a valid label must be an empty string or consist of" },
	{ ".v", "a valid label must be an empty string or consist of" },
	{ "v_", "a valid label must be an empty string or consist of" },
	{ "a/b", "a valid label must be an empty string or consist of" },
	{ "a b", "a valid label must be an empty string or consist of" },
};

static void test_check_value(void **state)
{
	char *v63 = repeat('v', 63), *v64 = repeat('v', 64);
	struct errbuf eb = { "" };

	(void)state;
	for (size_t i = 0; i < sizeof(value_cases) / sizeof(value_cases[0]);
	     i++) {
		const struct check_case *c = &value_cases[i];
		int err = label_check_value(c->in, &eb);

		if (!c->msg) {
			if (err)
				fail_msg("\"%s\": %s", c->in, eb.msg);
			continue;
		}
		assert_int_equal(err, -EINVAL);
		if (!strstr(eb.msg, c->msg))
			fail_msg("\"%s\": got \"%s\"", c->in, eb.msg);
	}
	assert_int_equal(label_check_value(v63, &eb), 0);
	assert_int_equal(label_check_value(v64, &eb), -EINVAL);
	assert_string_equal(eb.msg, "must be no more than 63 characters");
	assert_int_equal(label_check_value(NULL, &eb), 0);
	/* A NULL errbuf is accepted. */
	assert_int_equal(label_check_value("-", NULL), -EINVAL);
	free(v63);
	free(v64);
}

static void assert_sorted_unique(const struct labels *l)
{
	for (size_t i = 1; i < l->len; i++)
		assert_true(strcmp(l->items[i - 1].key, l->items[i].key) < 0);
}

static void test_set_get(void **state)
{
	static const char *const keys[] = { "zone", "app", "rack", "gpu",
					    "b",    "a",   "zz" };
	struct labels l;

	(void)state;
	labels_init(&l);
	assert_null(labels_get(&l, "app"));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		labels_set(&l, keys[i], keys[i]);
	assert_int_equal(l.len, 7);
	assert_sorted_unique(&l);
	assert_string_equal(l.items[0].key, "a");
	assert_string_equal(l.items[6].key, "zz");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_string_equal(labels_get(&l, keys[i]), keys[i]);
	assert_null(labels_get(&l, "c"));
	assert_null(labels_get(&l, ""));
	assert_null(labels_get(&l, "zzz"));

	/* Replace keeps one entry per key and the order. */
	labels_set(&l, "rack", "r7");
	labels_set(&l, "a", "");
	assert_int_equal(l.len, 7);
	assert_sorted_unique(&l);
	assert_string_equal(labels_get(&l, "rack"), "r7");
	assert_string_equal(labels_get(&l, "a"), "");
	labels_release(&l);
	assert_int_equal(l.len, 0);
	assert_null(labels_get(&l, "a"));
	labels_release(&l);
	labels_release(NULL);
}

static void fill(struct labels *l, const char *const *kv)
{
	labels_init(l);
	for (; kv[0]; kv += 2)
		labels_set(l, kv[0], kv[1]);
}

/* Many inserts in reverse order exercise growth and shifting. */
static void test_set_many(void **state)
{
	char names[200][8];
	struct labels l;

	(void)state;
	labels_init(&l);
	for (int i = 199; i >= 0; i--) {
		snprintf(names[i], sizeof(names[i]), "k%03d", i);
		labels_set(&l, names[i], names[i]);
	}
	assert_int_equal(l.len, 200);
	assert_sorted_unique(&l);
	for (int i = 0; i < 200; i++)
		assert_ptr_equal(labels_get(&l, names[i]), names[i]);
	labels_release(&l);
}

struct contains_case {
	const char *have[9];
	const char *want[9];
	bool result;
};

static const struct contains_case contains_cases[] = {
	{ { NULL }, { NULL }, true },
	{ { "a", "1", NULL }, { NULL }, true },
	{ { NULL }, { "a", "1", NULL }, false },
	{ { "a", "1", "b", "2", NULL }, { "a", "1", NULL }, true },
	{ { "a", "1", "b", "2", NULL }, { "b", "2", "a", "1", NULL }, true },
	{ { "a", "1", "b", "2", NULL }, { "b", "3", NULL }, false },
	{ { "a", "1", "b", "2", NULL }, { "c", "2", NULL }, false },
	{ { "a", "1", "c", "3", NULL }, { "b", "2", NULL }, false },
	{ { "a", "1", "c", "3", NULL }, { "a", "1", "d", "4", NULL }, false },
	{ { "a", "", NULL }, { "a", "", NULL }, true },
	{ { "a", "x", NULL }, { "a", "", NULL }, false },
};

/* labels_set_all() gives what labels_set() one by one gives. */
static void test_set_all(void **state)
{
	static const struct {
		const char *before[9]; /* key, value, ..., NULL */
		const char *items[11];
		const char *want[11]; /* sorted */
	} cases[] = {
		{ { NULL }, { NULL }, { NULL } },
		{ { NULL },
		  { "b", "2", "a", "1", NULL },
		  { "a", "1", "b", "2", NULL } },
		/* the last of equal keys wins */
		{ { NULL },
		  { "a", "1", "b", "2", "a", "3", NULL },
		  { "a", "3", "b", "2", NULL } },
		/* new values win over the set's; old keys stay */
		{ { "a", "0", "c", "0", "e", "0", NULL },
		  { "d", "4", "c", "3", "b", "2", NULL },
		  { "a", "0", "b", "2", "c", "3", "d", "4", "e", "0", NULL } },
		{ { "m", "0", NULL },
		  { "z", "1", "a", "1", "m", "1", "m", "2", NULL },
		  { "a", "1", "m", "2", "z", "1", NULL } },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct label items[6];
		struct labels l, one;
		size_t n = 0, w = 0;

		fill(&l, cases[i].before);
		fill(&one, cases[i].before);
		for (; cases[i].items[2 * n]; n++) {
			items[n].key = cases[i].items[2 * n];
			items[n].value = cases[i].items[2 * n + 1];
			labels_set(&one, items[n].key, items[n].value);
		}
		labels_set_all(&l, items, n);
		assert_sorted_unique(&l);
		for (; cases[i].want[2 * w]; w++) {
			assert_string_equal(l.items[w].key,
					    cases[i].want[2 * w]);
			assert_string_equal(l.items[w].value,
					    cases[i].want[2 * w + 1]);
		}
		assert_int_equal(l.len, w);
		assert_int_equal(one.len, w);
		assert_true(labels_contains_all(&l, &one));
		labels_release(&l);
		labels_release(&one);
	}
}

/* 300,000 keys in random order: a linear-time build, not a quadratic one
 * (one by one this took tens of seconds; a unit test cannot wait that). */
static void test_set_all_large(void **state)
{
	enum { N = 300000 };
	struct label *items = calloc(N, sizeof(*items));
	char(*names)[12] = calloc(N, sizeof(*names));
	struct labels l;

	(void)state;
	assert_non_null(items);
	assert_non_null(names);
	for (size_t i = 0; i < N; i++) {
		/* a permutation of 0..N-1: 7919 is prime to N */
		snprintf(names[i], sizeof(names[i]), "k%06zu", i * 7919 % N);
		items[i] = (struct label){ names[i], names[i] };
	}
	labels_init(&l);
	labels_set_all(&l, items, N);
	assert_int_equal(l.len, N);
	assert_sorted_unique(&l);
	assert_string_equal(labels_get(&l, "k123456"), "k123456");
	labels_release(&l);
	free(items);
	free(names);
}

static void test_annotation_key(void **state)
{
	static const struct {
		const char *key;
		int rc;
	} cases[] = {
		{ "example.com/MyKey", 0 },
		/* compared in lower case: an upper-case prefix is fine */
		{ "Example.COM/key", 0 },
		{ "kueue.x-k8s.io/podset-required-topology", 0 },
		{ "has space", -EINVAL },
		{ "a/b/c", -EINVAL },
		{ "", -EINVAL },
		{ "/x", -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct errbuf eb;

		if (annotation_check_key(cases[i].key, &eb) != cases[i].rc)
			fail_msg("\"%s\": want %d", cases[i].key, cases[i].rc);
	}
}

static void test_contains_all(void **state)
{
	(void)state;
	for (size_t i = 0;
	     i < sizeof(contains_cases) / sizeof(contains_cases[0]); i++) {
		const struct contains_case *c = &contains_cases[i];
		struct labels have, want;

		fill(&have, c->have);
		fill(&want, c->want);
		if (labels_contains_all(&have, &want) != c->result)
			fail_msg("contains case %zu", i);
		labels_release(&have);
		labels_release(&want);
	}
}

static void test_copy(void **state)
{
	static const char *const kv[] = { "b", "2", "a", "1", NULL };
	struct labels src, dst;

	(void)state;
	fill(&src, kv);
	labels_init(&dst);
	labels_set(&dst, "old", "x");
	labels_copy(&dst, &src);
	assert_int_equal(dst.len, 2);
	assert_null(labels_get(&dst, "old"));
	assert_string_equal(labels_get(&dst, "a"), "1");
	assert_true(labels_contains_all(&dst, &src));
	assert_true(labels_contains_all(&src, &dst));
	/* The copy is independent of the source array. */
	labels_set(&src, "a", "9");
	assert_string_equal(labels_get(&dst, "a"), "1");
	labels_release(&src);
	labels_copy(&dst, &src);
	assert_int_equal(dst.len, 0);
	labels_release(&dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_key),
		cmocka_unit_test(test_check_key_lengths),
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_set_get),
		cmocka_unit_test(test_set_many),
		cmocka_unit_test(test_set_all),
		cmocka_unit_test(test_set_all_large),
		cmocka_unit_test(test_annotation_key),
		cmocka_unit_test(test_contains_all),
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

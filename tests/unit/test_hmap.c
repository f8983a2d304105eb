// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the open-addressing hash map. Besides fixed cases, a differential
 * test runs thousands of random put/get/del operations against a brute-force
 * array model over a small key universe (with embedded NULs), so collisions,
 * wrap-around probe runs and backward-shift deletion are all exercised.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/rng.h"
#include "testutil.h"

/* Whether the table obeys the linear-probing invariants. */
static void check_table(const struct hmap *m)
{
	size_t mask = m->cap - 1, used = 0;

	if (!m->cap) {
		assert_int_equal(m->len, 0);
		return;
	}
	assert_int_equal(m->cap & mask, 0);
	assert_true(m->len * 4 <= m->cap * 3);
	for (size_t j = 0; j < m->cap; j++) {
		const struct hmap_slot *s = &m->slots[j];

		if (!s->key)
			continue;
		used++;
		assert_true(s->hash == hmap_hash(s->key, s->keylen));
		assert_int_equal(s->key[s->keylen], '\0');
		/* No hole between the home slot and the slot it sits in. */
		for (size_t i = s->hash & mask; i != j; i = (i + 1) & mask)
			assert_non_null(m->slots[i].key);
	}
	assert_int_equal(used, m->len);
}

static void test_empty(void **state)
{
	struct hmap m;
	int64_t v = 77;
	size_t it = 0;
	const struct hmap_slot *s = NULL;

	(void)state;
	hmap_init(&m);
	assert_int_equal(m.len, 0);
	assert_false(hmap_get_str(&m, "a", &v));
	assert_false(hmap_get(&m, "", 0, &v));
	assert_false(hmap_del(&m, "a", 1));
	assert_false(hmap_next(&m, &it, &s));
	assert_int_equal(v, 77);
	assert_null(s);
	hmap_release(&m);
	hmap_release(&m); /* released maps are empty and reusable */
	assert_true(hmap_put_str(&m, "x", 1));
	hmap_release(&m);
}

enum op_kind { OP_PUT, OP_GET, OP_DEL };

struct op {
	enum op_kind kind;
	const char *key;
	int64_t value; /* put: value; get: expected when found */
	bool result;   /* put: new; get: found; del: present */
	size_t len_after;
};

static const struct op basic_ops[] = {
	{ OP_GET, "alpha", 0, false, 0 },
	{ OP_PUT, "alpha", 1, true, 1 },
	{ OP_GET, "alpha", 1, true, 1 },
	{ OP_PUT, "beta", 2, true, 2 },
	{ OP_PUT, "alpha", 10, false, 2 }, /* replace keeps len */
	{ OP_GET, "alpha", 10, true, 2 },
	{ OP_GET, "beta", 2, true, 2 },
	{ OP_GET, "alph", 0, false, 2 }, /* prefix is another key */
	{ OP_GET, "alphaa", 0, false, 2 },
	{ OP_PUT, "", -5, true, 3 }, /* empty key is a key */
	{ OP_GET, "", -5, true, 3 },
	{ OP_DEL, "gamma", 0, false, 3 },
	{ OP_DEL, "alpha", 0, true, 2 },
	{ OP_DEL, "alpha", 0, false, 2 },
	{ OP_GET, "alpha", 0, false, 2 },
	{ OP_GET, "beta", 2, true, 2 },
	{ OP_PUT, "alpha", INT64_MIN, true, 3 },
	{ OP_GET, "alpha", INT64_MIN, true, 3 },
	{ OP_PUT, "beta", INT64_MAX, false, 3 },
	{ OP_GET, "beta", INT64_MAX, true, 3 },
	{ OP_DEL, "", 0, true, 2 },
	{ OP_DEL, "beta", 0, true, 1 },
	{ OP_DEL, "alpha", 0, true, 0 },
	{ OP_GET, "alpha", 0, false, 0 },
};

static void test_basic_ops(void **state)
{
	struct hmap m;

	(void)state;
	hmap_init(&m);
	for (size_t i = 0; i < ARRAY_SIZE(basic_ops); i++) {
		const struct op *op = &basic_ops[i];
		int64_t v = 12345;

		switch (op->kind) {
		case OP_PUT:
			assert_int_equal(hmap_put_str(&m, op->key, op->value),
					 op->result);
			break;
		case OP_GET:
			assert_int_equal(hmap_get_str(&m, op->key, &v),
					 op->result);
			/* The value is written only when found. */
			assert_true(v == (op->result ? op->value : 12345));
			assert_int_equal(hmap_get_str(&m, op->key, NULL),
					 op->result);
			break;
		case OP_DEL:
			assert_int_equal(hmap_del(&m, op->key, strlen(op->key)),
					 op->result);
			break;
		}
		assert_int_equal(m.len, op->len_after);
		check_table(&m);
	}
	hmap_release(&m);
}

static void test_key_is_copied(void **state)
{
	struct hmap m;
	char buf[16];
	int64_t v;

	(void)state;
	hmap_init(&m);
	snprintf(buf, sizeof(buf), "temp");
	assert_true(hmap_put_str(&m, buf, 4));
	snprintf(buf, sizeof(buf), "XXXX");
	assert_true(hmap_get_str(&m, "temp", &v));
	assert_int_equal(v, 4);
	assert_false(hmap_get_str(&m, "XXXX", &v));
	hmap_release(&m);
}

struct bkey {
	const char *bytes;
	size_t len;
};

/* Keys that differ only after (or in) an embedded NUL. */
static const struct bkey nul_keys[] = {
	{ "a", 1 },	 { "a\0", 2 },	{ "a\0b", 3 }, { "a\0c", 3 },
	{ "\0", 1 },	 { "\0\0", 2 }, { "", 0 },     { "\0a", 2 },
	{ "a\0b\0", 4 }, { "ab", 2 },
};

static void test_embedded_nul(void **state)
{
	struct hmap m;
	size_t n = ARRAY_SIZE(nul_keys), it = 0;
	const struct hmap_slot *s;
	int seen[ARRAY_SIZE(nul_keys)] = { 0 };
	int64_t v;

	(void)state;
	hmap_init(&m);
	for (size_t i = 0; i < n; i++)
		assert_true(hmap_put(&m, nul_keys[i].bytes, nul_keys[i].len,
				     (int64_t)i));
	assert_int_equal(m.len, n);
	for (size_t i = 0; i < n; i++) {
		assert_true(
			hmap_get(&m, nul_keys[i].bytes, nul_keys[i].len, &v));
		assert_int_equal(v, (int64_t)i);
	}
	/* The string helpers see only up to the first NUL. */
	assert_true(hmap_get_str(&m, "a\0b", &v));
	assert_int_equal(v, 0);
	assert_true(hmap_get_str(&m, "\0a", &v));
	assert_int_equal(v, 6);
	/* Slots keep the exact bytes and length. */
	while (hmap_next(&m, &it, &s)) {
		size_t i = (size_t)s->value;

		assert_true(i < n);
		assert_int_equal(s->keylen, nul_keys[i].len);
		assert_memory_equal(s->key, nul_keys[i].bytes, s->keylen);
		seen[i]++;
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(seen[i], 1);
	/* Deleting one leaves its NUL-sharing neighbours. */
	assert_true(hmap_del(&m, "a\0b", 3));
	assert_false(hmap_get(&m, "a\0b", 3, NULL));
	assert_true(hmap_get(&m, "a\0c", 3, NULL));
	assert_true(hmap_get(&m, "a\0", 2, NULL));
	assert_true(hmap_get(&m, "a\0b\0", 4, NULL));
	check_table(&m);
	hmap_release(&m);
}

/*
 * Keys whose home slot in a 16-slot table is one of the last two, so their
 * probe runs wrap around the end of the table. Deleting them in different
 * orders exercises the backward shift across the wrap.
 */
static void test_wraparound_delete(void **state)
{
	static const size_t orders[][8] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7 },
		{ 7, 6, 5, 4, 3, 2, 1, 0 },
		{ 1, 3, 5, 7, 0, 2, 4, 6 },
		{ 4, 0, 6, 2, 7, 1, 3, 5 },
	};
	char keys[8][16];
	size_t nkeys = 0;

	(void)state;
	for (int i = 0; nkeys < 8; i++) {
		char k[16];
		uint64_t home;

		snprintf(k, sizeof(k), "w%d", i);
		home = hmap_hash(k, strlen(k)) & 15;
		/* Five at slot 15, three at slot 14: runs of 8 that wrap. */
		if ((home == 15 && nkeys < 5) || (home == 14 && nkeys >= 5))
			snprintf(keys[nkeys++], sizeof(keys[0]), "%s", k);
	}
	for (size_t o = 0; o < ARRAY_SIZE(orders); o++) {
		struct hmap m;
		bool gone[8] = { false };

		hmap_init(&m);
		for (size_t i = 0; i < 8; i++)
			assert_true(hmap_put_str(&m, keys[i], (int64_t)i));
		assert_int_equal(m.cap, 16);
		/* At least one of them was pushed past the end. */
		assert_non_null(m.slots[0].key);
		check_table(&m);
		for (size_t d = 0; d < 8; d++) {
			size_t k = orders[o][d];

			assert_true(hmap_del(&m, keys[k], strlen(keys[k])));
			gone[k] = true;
			check_table(&m);
			for (size_t i = 0; i < 8; i++) {
				int64_t v = -1;

				assert_int_equal(hmap_get_str(&m, keys[i], &v),
						 !gone[i]);
				if (!gone[i])
					assert_int_equal(v, (int64_t)i);
			}
		}
		assert_int_equal(m.len, 0);
		hmap_release(&m);
	}
}

struct universe {
	char (*bytes)[4];
	size_t *lens;
	size_t n;
};

/* Every string over alpha of length 0..maxlen (maxlen <= 4). */
static void universe_build(struct universe *u, const char *alpha, size_t nalpha,
			   size_t maxlen)
{
	size_t total = 0, p = 1;

	for (size_t l = 0; l <= maxlen; l++, p *= nalpha)
		total += p;
	u->bytes = xcalloc(total, sizeof(*u->bytes));
	u->lens = xcalloc(total, sizeof(*u->lens));
	u->n = 0;
	p = 1;
	for (size_t l = 0; l <= maxlen; l++, p *= nalpha) {
		for (size_t code = 0; code < p; code++) {
			size_t c = code;

			for (size_t i = 0; i < l; i++, c /= nalpha)
				u->bytes[u->n][i] = alpha[c % nalpha];
			u->lens[u->n++] = l;
		}
	}
	assert_int_equal(u->n, total);
}

static void universe_free(struct universe *u)
{
	free(u->bytes);
	free(u->lens);
}

struct diff_case {
	const char *alpha;
	size_t nalpha;
	size_t maxlen;
	uint64_t seed;
	int ops;
	int put_pct, del_pct; /* the rest are gets */
};

static const struct diff_case diff_cases[] = {
	/* 121 keys with NULs: balanced churn, then delete-heavy. */
	{ "ab\0", 3, 4, 1, 5000, 45, 35 },
	{ "ab\0", 3, 4, 2, 5000, 30, 50 },
	/* 585 keys: put-heavy, so the table resizes several times. */
	{ "abcdefgh", 8, 3, 3, 6000, 70, 15 },
	{ "\0\1\2\3\4\5\6\7", 8, 3, 4, 6000, 50, 40 },
};

static void check_against_model(const struct hmap *m, const struct universe *u,
				const bool *present, const int64_t *values,
				size_t count)
{
	assert_int_equal(m->len, count);
	for (size_t k = 0; k < u->n; k++) {
		int64_t v = INT64_MIN + 1;

		assert_int_equal(hmap_get(m, u->bytes[k], u->lens[k], &v),
				 present[k]);
		if (present[k])
			assert_true(v == values[k]);
		else
			assert_true(v == INT64_MIN + 1);
	}
}

static void check_iteration(const struct hmap *m, const struct universe *u,
			    const bool *present, const int64_t *values)
{
	int *seen = xcalloc(u->n, sizeof(*seen));
	const struct hmap_slot *s;
	size_t it = 0, visits = 0;

	while (hmap_next(m, &it, &s)) {
		size_t k;

		for (k = 0; k < u->n; k++) {
			if (u->lens[k] == s->keylen &&
			    memcmp(u->bytes[k], s->key, s->keylen) == 0)
				break;
		}
		assert_true(k < u->n);
		assert_true(present[k]);
		assert_true(s->value == values[k]);
		seen[k]++;
		visits++;
	}
	assert_int_equal(visits, m->len);
	for (size_t k = 0; k < u->n; k++)
		assert_int_equal(seen[k], present[k] ? 1 : 0);
	free(seen);
}

static void run_diff_case(const struct diff_case *c)
{
	struct universe u;
	struct hmap m;
	struct rng r;
	bool *present;
	int64_t *values;
	size_t count = 0, max_count = 0, dels_hit = 0, dels_miss = 0;

	universe_build(&u, c->alpha, c->nalpha, c->maxlen);
	present = xcalloc(u.n, sizeof(*present));
	values = xcalloc(u.n, sizeof(*values));
	rng_seed(&r, c->seed);
	hmap_init(&m);
	for (int i = 0; i < c->ops; i++) {
		size_t k = (size_t)rng_below(&r, u.n);
		int pick = (int)rng_below(&r, 100);
		int64_t v;

		if (pick < c->put_pct) {
			v = (int64_t)rng_next(&r);
			assert_int_equal(hmap_put(&m, u.bytes[k], u.lens[k], v),
					 !present[k]);
			count += !present[k];
			present[k] = true;
			values[k] = v;
		} else if (pick < c->put_pct + c->del_pct) {
			assert_int_equal(hmap_del(&m, u.bytes[k], u.lens[k]),
					 present[k]);
			if (present[k])
				dels_hit++;
			else
				dels_miss++;
			count -= present[k];
			present[k] = false;
		}
		check_against_model(&m, &u, present, values, count);
		if (count > max_count)
			max_count = count;
		if (i % 97 == 0) {
			check_table(&m);
			check_iteration(&m, &u, present, values);
		}
	}
	check_table(&m);
	check_iteration(&m, &u, present, values);
	/* The run did what it is meant to: both kinds of delete, growth. */
	assert_true(dels_hit > 100);
	assert_true(dels_miss > 100);
	assert_true(max_count > u.n / 3);
	hmap_release(&m);
	free(present);
	free(values);
	universe_free(&u);
}

static void test_differential(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(diff_cases); i++)
		run_diff_case(&diff_cases[i]);
}

static void test_growth(void **state)
{
	enum { N = 100000 };
	struct hmap m;
	char k[32];
	size_t resizes = 0, cap = 0;
	int64_t v;

	(void)state;
	hmap_init(&m);
	for (int i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key-%d", i);
		assert_true(hmap_put_str(&m, k, (int64_t)i * 3));
		if (m.cap != cap) {
			resizes++;
			cap = m.cap;
		}
	}
	assert_int_equal(m.len, N);
	assert_true(resizes >= 10);
	check_table(&m);
	for (int i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key-%d", i);
		assert_true(hmap_get_str(&m, k, &v));
		assert_int_equal(v, (int64_t)i * 3);
	}
	/* Drop the odd keys; the even ones must all survive the shifts. */
	for (int i = 1; i < N; i += 2) {
		snprintf(k, sizeof(k), "key-%d", i);
		assert_true(hmap_del(&m, k, strlen(k)));
	}
	assert_int_equal(m.len, N / 2);
	check_table(&m);
	for (int i = 0; i < N; i++) {
		snprintf(k, sizeof(k), "key-%d", i);
		assert_int_equal(hmap_get_str(&m, k, &v), i % 2 == 0);
		if (i % 2 == 0)
			assert_int_equal(v, (int64_t)i * 3);
	}
	hmap_release(&m);
}

static void test_hash_is_fnv1a(void **state)
{
	/* Published FNV-1a 64 vectors: callers rely on a stable hash. */
	static const struct {
		const char *s;
		uint64_t h;
	} vectors[] = {
		{ "", 0xcbf29ce484222325ULL },
		{ "a", 0xaf63dc4c8601ec8cULL },
		{ "foobar", 0x85944171f73967e8ULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++)
		assert_true(hmap_hash(vectors[i].s, strlen(vectors[i].s)) ==
			    vectors[i].h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_basic_ops),
		cmocka_unit_test(test_key_is_copied),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_wraparound_delete),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_hash_is_fnv1a),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the growable-array macros: push and pop order, capacity rules of
 * reserve, foreach visiting each element once in order, push_zero really
 * zeroing a reused slot, release leaving a reusable vector, large growth.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/vec.h"
#include "testutil.h"

struct point {
	int x, y;
	char tag[12];
};

static void test_push_pop(void **state)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 16, 17, 100 };

	(void)state;
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		VEC(int) v = VEC_INIT;

		for (size_t i = 0; i < sizes[s]; i++) {
			vec_push(&v, (int)(i * i));
			assert_int_equal(v.len, i + 1);
			assert_true(v.cap >= v.len);
			assert_int_equal(*vec_last(&v), (int)(i * i));
		}
		for (size_t i = 0; i < sizes[s]; i++)
			assert_int_equal(v.items[i], (int)(i * i));
		for (size_t i = sizes[s]; i-- > 0;) {
			assert_int_equal(vec_pop(&v), (int)(i * i));
			assert_int_equal(v.len, i);
		}
		vec_release(&v);
	}
}

static void test_reserve(void **state)
{
	static const struct {
		size_t n;
		size_t cap; /* doubling from 8 */
	} cases[] = {
		{ 0, 0 },     { 1, 8 },	      { 8, 8 },	      { 9, 16 },
		{ 100, 128 }, { 1024, 1024 }, { 1025, 2048 },
	};

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		VEC(long) v = VEC_INIT;
		long *before;

		vec_reserve(&v, cases[c].n);
		assert_int_equal(v.len, 0);
		assert_int_equal(v.cap, cases[c].cap);
		/* Reserving less never shrinks. */
		vec_reserve(&v, cases[c].n / 2);
		assert_int_equal(v.cap, cases[c].cap);
		/* Pushing up to the reserved size does not reallocate. */
		before = v.items;
		for (size_t i = 0; i < cases[c].n; i++)
			vec_push(&v, (long)i);
		assert_ptr_equal(v.items, before);
		assert_int_equal(v.cap, cases[c].cap);
		vec_release(&v);
	}
}

static void test_foreach(void **state)
{
	VEC(struct point) v = VEC_INIT;
	int visits = 0;

	(void)state;
	vec_foreach (&v, p) {
		(void)p;
		visits++;
	}
	assert_int_equal(visits, 0);
	for (int i = 0; i < 50; i++)
		vec_push(&v, ((struct point){ .x = i, .y = -i }));
	vec_foreach (&v, p) {
		/* In order, each once, and p points into the array. */
		assert_ptr_equal(p, &v.items[visits]);
		assert_int_equal(p->x, visits);
		p->y = p->x * 2; /* writable through p */
		visits++;
	}
	assert_int_equal(visits, 50);
	for (int i = 0; i < 50; i++)
		assert_int_equal(v.items[i].y, 2 * i);
	vec_release(&v);
}

static void test_push_zero(void **state)
{
	VEC(struct point) v = VEC_INIT;
	struct point *p;
	static const struct point zero;

	(void)state;
	/* Fill, then pop: the slots hold non-zero bytes push_zero must clear.
	 */
	for (int i = 0; i < 20; i++) {
		struct point q = { .x = 1000 + i, .y = 7 };

		memset(q.tag, 'x', sizeof(q.tag));
		vec_push(&v, q);
	}
	while (v.len > 3)
		(void)vec_pop(&v);
	for (size_t i = 3; i < 25; i++) {
		p = vec_push_zero(&v);
		assert_int_equal(v.len, i + 1);
		assert_ptr_equal(p, vec_last(&v));
		assert_memory_equal(p, &zero, sizeof(zero));
		p->x = (int)i;
	}
	/* Earlier elements are untouched. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(v.items[i].x, 1000 + i);
	for (int i = 3; i < 25; i++)
		assert_int_equal(v.items[i].x, i);
	vec_release(&v);
	/* On an empty vector it allocates. */
	p = vec_push_zero(&v);
	assert_non_null(p);
	assert_int_equal(v.len, 1);
	assert_memory_equal(p, &zero, sizeof(zero));
	vec_release(&v);
}

static void test_release(void **state)
{
	VEC(char *) v = VEC_INIT;

	(void)state;
	vec_release(&v); /* empty is fine */
	for (int round = 0; round < 3; round++) {
		vec_push(&v, "a");
		vec_push(&v, "b");
		assert_int_equal(v.len, 2);
		assert_string_equal(v.items[1], "b");
		vec_release(&v);
		assert_null(v.items);
		assert_int_equal(v.len, 0);
		assert_int_equal(v.cap, 0);
	}
}

static void test_large_growth(void **state)
{
	enum { N = 1 << 20 };
	VEC(uint32_t) v = VEC_INIT;
	size_t grows = 0, cap = 0;

	(void)state;
	for (uint32_t i = 0; i < N; i++) {
		vec_push(&v, i ^ 0x5a5a5a5au);
		if (v.cap != cap) {
			/* Capacity only ever doubles. */
			assert_true(cap == 0 || v.cap == 2 * cap);
			cap = v.cap;
			grows++;
		}
	}
	assert_int_equal(v.len, N);
	assert_int_equal(v.cap, N);
	assert_int_equal(grows, 18); /* 8, 16, ..., 2^20 */
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(v.items[i], i ^ 0x5a5a5a5au);
	vec_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_pop),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_push_zero),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_large_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

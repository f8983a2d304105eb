// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the binary min-heap. Items carry a key with many ties and a
 * sequence number that breaks them, so the expected pop order is exactly
 * the sorted order; random removals and interleaved push/pop are checked
 * against a brute-force model and the heap property.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/heap.h"
#include "base/rng.h"
#include "testutil.h"

struct item {
	int key;
	unsigned seq;
};

static int item_order(const struct item *a, const struct item *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

/* ctx points to an int: 1 for a min-heap, -1 to reverse the order. */
static int item_cmp(const void *a, const void *b, void *ctx)
{
	return *(const int *)ctx * item_order(a, b);
}

static int item_qsort_cmp(const void *a, const void *b)
{
	return item_order(*(const struct item *const *)a,
			  *(const struct item *const *)b);
}

static void check_heap_property(const struct heap *h)
{
	for (size_t i = 1; i < h->len; i++)
		assert_true(h->cmp(h->items[(i - 1) / 2], h->items[i],
				   h->ctx) <= 0);
}

/* n items with keys in [0, keys), sequence numbers 0..n-1. */
static struct item *make_items(struct rng *r, size_t n, int keys)
{
	struct item *items = xcalloc(n, sizeof(*items));

	for (size_t i = 0; i < n; i++) {
		items[i].key = (int)rng_below(r, (uint64_t)keys) - keys / 2;
		items[i].seq = (unsigned)i;
	}
	return items;
}

static void test_empty(void **state)
{
	struct heap h;
	int dir = 1;
	struct item a = { 1, 0 };

	(void)state;
	heap_init(&h, item_cmp, &dir);
	assert_null(heap_peek(&h));
	assert_null(heap_pop(&h));
	assert_int_equal(h.len, 0);
	heap_push(&h, &a);
	assert_ptr_equal(heap_peek(&h), &a);
	assert_int_equal(h.len, 1); /* peek does not remove */
	assert_ptr_equal(heap_pop(&h), &a);
	assert_null(heap_peek(&h));
	assert_null(heap_pop(&h));
	heap_release(&h);
	heap_release(&h);
}

struct order_case {
	size_t n;
	int keys; /* few keys: many ties */
	uint64_t seed;
	int dir;
};

static const struct order_case order_cases[] = {
	{ 1, 1, 1, 1 },		 { 2, 1, 2, 1 },      { 3, 2, 3, 1 },
	{ 17, 3, 4, 1 },	 { 100, 1, 5, 1 },    { 1000, 10, 6, 1 },
	{ 5000, 1000000, 7, 1 }, { 1000, 10, 8, -1 }, { 257, 4, 9, -1 },
};

static void test_pop_order(void **state)
{
	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(order_cases); c++) {
		const struct order_case *oc = &order_cases[c];
		struct rng r;
		struct heap h;
		struct item *items, **sorted;
		int dir = oc->dir;

		rng_seed(&r, oc->seed);
		items = make_items(&r, oc->n, oc->keys);
		sorted = xcalloc(oc->n, sizeof(*sorted));
		for (size_t i = 0; i < oc->n; i++)
			sorted[i] = &items[i];
		qsort(sorted, oc->n, sizeof(*sorted), item_qsort_cmp);

		heap_init(&h, item_cmp, &dir);
		for (size_t i = 0; i < oc->n; i++) {
			heap_push(&h, &items[i]);
			assert_int_equal(h.len, i + 1);
		}
		check_heap_property(&h);
		for (size_t i = 0; i < oc->n; i++) {
			/* A reversed order pops from the other end. */
			struct item *want =
				dir > 0 ? sorted[i] : sorted[oc->n - 1 - i];

			assert_ptr_equal(heap_peek(&h), want);
			assert_ptr_equal(heap_pop(&h), want);
			assert_int_equal(h.len, oc->n - 1 - i);
		}
		assert_null(heap_pop(&h));
		heap_release(&h);
		free(sorted);
		free(items);
	}
}

static void test_remove_at(void **state)
{
	static const struct {
		size_t n;
		size_t removals;
		int keys;
		uint64_t seed;
	} cases[] = {
		{ 1, 1, 1, 11 },     { 2, 1, 2, 12 },	     { 10, 10, 3, 13 },
		{ 300, 150, 5, 14 }, { 2000, 1500, 50, 15 },
	};

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct rng r;
		struct heap h;
		struct item *items, **rest;
		bool *removed;
		size_t nrest = 0;
		int dir = 1;

		rng_seed(&r, cases[c].seed);
		items = make_items(&r, cases[c].n, cases[c].keys);
		removed = xcalloc(cases[c].n, sizeof(*removed));
		heap_init(&h, item_cmp, &dir);
		for (size_t i = 0; i < cases[c].n; i++)
			heap_push(&h, &items[i]);
		for (size_t k = 0; k < cases[c].removals; k++) {
			size_t at = (size_t)rng_below(&r, h.len);
			struct item *expect = h.items[at], *got;

			got = heap_remove_at(&h, at);
			assert_ptr_equal(got, expect);
			assert_false(removed[got - items]);
			removed[got - items] = true;
			assert_int_equal(h.len, cases[c].n - k - 1);
			check_heap_property(&h);
		}
		/* The rest pop in sorted order, and nothing removed comes back.
		 */
		rest = xcalloc(cases[c].n, sizeof(*rest));
		for (size_t i = 0; i < cases[c].n; i++) {
			if (!removed[i])
				rest[nrest++] = &items[i];
		}
		assert_int_equal(nrest, h.len);
		qsort(rest, nrest, sizeof(*rest), item_qsort_cmp);
		for (size_t i = 0; i < nrest; i++)
			assert_ptr_equal(heap_pop(&h), rest[i]);
		assert_null(heap_peek(&h));
		heap_release(&h);
		free(rest);
		free(removed);
		free(items);
	}
}

/* Index of the smallest of n > 0 model items. */
static size_t model_min(struct item *const *model, size_t n)
{
	size_t min = 0;

	for (size_t i = 1; i < n; i++) {
		if (item_order(model[i], model[min]) < 0)
			min = i;
	}
	return min;
}

/* Interleaved pushes and pops against a linear-scan model. */
static void test_interleaved(void **state)
{
	enum { N = 4000 };
	struct rng r;
	struct heap h;
	struct item *items;
	struct item **model;
	size_t nmodel = 0, next = 0, pops = 0;
	int dir = 1;

	(void)state;
	rng_seed(&r, 99);
	items = make_items(&r, N, 20);
	model = xcalloc(N, sizeof(*model));
	heap_init(&h, item_cmp, &dir);
	while (next < N || nmodel) {
		if (next < N && (nmodel == 0 || rng_below(&r, 100) < 55)) {
			heap_push(&h, &items[next]);
			model[nmodel++] = &items[next++];
		} else {
			size_t min = model_min(model, nmodel);

			assert_ptr_equal(heap_pop(&h), model[min]);
			model[min] = model[--nmodel];
			pops++;
		}
		assert_int_equal(h.len, nmodel);
		if (nmodel)
			assert_ptr_equal(heap_peek(&h),
					 model[model_min(model, nmodel)]);
		else
			assert_null(heap_peek(&h));
	}
	assert_int_equal(pops, N);
	assert_null(heap_pop(&h));
	heap_release(&h);
	free(model);
	free(items);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_pop_order),
		cmocka_unit_test(test_remove_at),
		cmocka_unit_test(test_interleaved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

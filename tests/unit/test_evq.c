// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the simulator's event queue: a table of pushes whose pop order
 * is spelled out (time, then kind rank, then push order), a rank table that
 * reverses the kinds, lazy cancellation, and a randomized run checked
 * against a sorted model and repeated for determinism.
 */
#include "sim/evq.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "testutil.h"

#include "base/banned.h"

struct push {
	int64_t time_us;
	int32_t kind;
	int64_t tag; /* payload a */
};

static const struct push pushes[] = {
	{ 50, 1, 0 }, { 10, 2, 1 }, { 10, 0, 2 }, { 10, 2, 3 },
	{ 0, 3, 4 },  { 50, 0, 5 }, { 10, 0, 6 }, { 99, 0, 7 },
};

/* Expected tags: by time, then kind, then push order. */
static const int64_t order_by_kind[] = { 4, 2, 6, 1, 3, 5, 0, 7 };
/* Same with the rank table below (kind 3 first, kind 0 last). */
static const int32_t reversed_rank[] = { 3, 2, 1, 0 };
static const int64_t order_reversed[] = { 4, 1, 3, 2, 6, 0, 5, 7 };

static void push_all(struct evq *q, uint64_t *ids)
{
	for (size_t i = 0; i < ARRAY_SIZE(pushes); i++) {
		struct evq_event ev = { .time_us = pushes[i].time_us,
					.kind = pushes[i].kind,
					.a = pushes[i].tag };

		ids[i] = evq_push(q, &ev);
	}
}

static void check_order(struct evq *q, const int64_t *want, size_t n)
{
	struct evq_event ev;

	for (size_t i = 0; i < n; i++) {
		assert_true(evq_pop(q, &ev));
		assert_int_equal(ev.a, want[i]);
		assert_int_equal(ev.time_us, pushes[ev.a].time_us);
		assert_int_equal(ev.kind, pushes[ev.a].kind);
		assert_int_equal(evq_now_us(q), ev.time_us);
	}
	assert_false(evq_pop(q, &ev));
	assert_int_equal(evq_len(q), 0);
}

static void test_order(void **state)
{
	struct evq q;
	uint64_t ids[ARRAY_SIZE(pushes)];

	(void)state;
	evq_init(&q, NULL, 0);
	push_all(&q, ids);
	for (size_t i = 0; i < ARRAY_SIZE(pushes); i++)
		assert_int_equal(ids[i], i + 1);
	assert_int_equal(evq_len(&q), ARRAY_SIZE(pushes));
	check_order(&q, order_by_kind, ARRAY_SIZE(order_by_kind));
	evq_release(&q);

	evq_init(&q, reversed_rank, ARRAY_SIZE(reversed_rank));
	push_all(&q, ids);
	check_order(&q, order_reversed, ARRAY_SIZE(order_reversed));
	evq_release(&q);
}

static void test_cancel(void **state)
{
	struct evq q;
	struct evq_event ev;
	uint64_t ids[ARRAY_SIZE(pushes)];
	static const int64_t want[] = { 2, 6, 3, 5, 0, 7 };

	(void)state;
	evq_init(&q, NULL, 0);
	push_all(&q, ids);
	assert_true(evq_cancel(&q, ids[4])); /* the head */
	assert_true(evq_cancel(&q, ids[1]));
	assert_false(evq_cancel(&q, ids[1])); /* twice */
	assert_false(evq_cancel(&q, 0));
	assert_false(evq_cancel(&q, 1000));
	assert_int_equal(evq_len(&q), ARRAY_SIZE(pushes) - 2);
	assert_true(evq_peek(&q, &ev));
	assert_int_equal(ev.a, 2);
	assert_int_equal(evq_now_us(&q), 0); /* peek does not advance */
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_true(evq_pop(&q, &ev));
		assert_int_equal(ev.a, want[i]);
		/* a popped event can no longer be cancelled */
		assert_false(evq_cancel(&q, ev.id));
	}
	assert_false(evq_peek(&q, &ev));
	evq_release(&q);

	/* release frees records still queued, cancelled or not */
	evq_init(&q, NULL, 0);
	push_all(&q, ids);
	assert_true(evq_cancel(&q, ids[7]));
	evq_release(&q);
	evq_release(NULL);
}

/* Events pushed while the simulation runs may share the current time. */
static void test_push_at_now(void **state)
{
	struct evq q;
	struct evq_event ev = { .time_us = 10, .kind = 1 };

	(void)state;
	evq_init(&q, NULL, 0);
	evq_push(&q, &ev);
	assert_true(evq_pop(&q, &ev));
	ev.kind = 0;
	ev.a = 42;
	evq_push(&q, &ev);
	assert_true(evq_pop(&q, &ev));
	assert_int_equal(ev.a, 42);
	assert_int_equal(evq_now_us(&q), 10);
	evq_release(&q);
}

struct model_ev {
	int64_t time_us;
	int32_t kind;
	uint64_t id;
	bool cancelled;
};

static int model_cmp(const void *pa, const void *pb)
{
	const struct model_ev *a = pa, *b = pb;

	if (a->time_us != b->time_us)
		return a->time_us < b->time_us ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Random pushes with many ties and cancellations; returns a hash of the
 * pop sequence and checks it against a sorted model. */
static uint64_t random_run(uint64_t seed)
{
	enum { N = 2000 };
	struct model_ev *m = xcalloc(N, sizeof(*m));
	struct evq q;
	struct evq_event ev;
	struct rng r;
	uint64_t hash = 1469598103934665603ULL;
	size_t k = 0;

	rng_seed(&r, seed);
	evq_init(&q, NULL, 0);
	for (size_t i = 0; i < N; i++) {
		ev.time_us = (int64_t)rng_below(&r, 50);
		ev.kind = (int32_t)rng_below(&r, 4);
		ev.a = (int64_t)i;
		m[i] = (struct model_ev){ ev.time_us, ev.kind,
					  evq_push(&q, &ev), false };
	}
	for (size_t i = 0; i < N / 5; i++) {
		size_t j = rng_below(&r, N);

		assert_int_equal(evq_cancel(&q, m[j].id), !m[j].cancelled);
		m[j].cancelled = true;
	}
	qsort(m, N, sizeof(*m), model_cmp);
	while (evq_pop(&q, &ev)) {
		while (m[k].cancelled)
			k++;
		assert_int_equal(ev.id, m[k].id);
		assert_int_equal(ev.time_us, m[k].time_us);
		k++;
		hash = (hash ^ ev.id) * 1099511628211ULL;
	}
	while (k < N)
		assert_true(m[k++].cancelled);
	evq_release(&q);
	free(m);
	return hash;
}

static void test_random_deterministic(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++)
		assert_int_equal(random_run(seed), random_run(seed));
	assert_int_not_equal(random_run(1), random_run(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_push_at_now),
		cmocka_unit_test(test_random_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

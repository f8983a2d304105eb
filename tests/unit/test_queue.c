// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the indexed heap of workload ids: random pushes, pops and
 * removals of arbitrary ids checked against a brute-force model (the
 * smallest key in a plain array, ties broken by id), and the positions
 * it keeps for membership tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "base/rng.h"
#include "sched/queue.h"
#include "testutil.h"

#define N 512

static int keys[N];

static int cmp(uint32_t a, uint32_t b, void *ctx)
{
	(void)ctx;
	if (keys[a] != keys[b])
		return keys[a] < keys[b] ? -1 : 1;
	return a < b ? -1 : (a > b);
}

static uint32_t model_min(const bool *in)
{
	uint32_t best = QUEUE_NONE;

	for (uint32_t i = 0; i < N; i++) {
		if (in[i] && (best == QUEUE_NONE || cmp(i, best, NULL) < 0))
			best = i;
	}
	return best;
}

static void test_random_against_model(void **state)
{
	uint32_t pos_arr[N], *pos = pos_arr;
	bool in[N] = { false };
	struct queue q;
	struct rng r;

	(void)state;
	rng_seed(&r, 42);
	for (int i = 0; i < N; i++)
		keys[i] = (int)(rng_next(&r) % 16); /* many ties */
	queue_init(&q, cmp, NULL, &pos);
	for (int step = 0; step < 20000; step++) {
		uint32_t id = (uint32_t)(rng_next(&r) % N);
		unsigned op = (unsigned)(rng_next(&r) % 3);

		if (op == 0 && !in[id]) {
			queue_push(&q, id);
			in[id] = true;
		} else if (op == 1) {
			uint32_t want = model_min(in), got = queue_pop(&q);

			assert_int_equal(got, want);
			if (got != QUEUE_NONE)
				in[got] = false;
		} else if (in[id]) {
			queue_remove(&q, id);
			in[id] = false;
		}
		assert_int_equal(queue_contains(&q, id), in[id]);
		assert_int_equal(queue_peek(&q), model_min(in));
	}
	queue_release(&q);
}

static void test_empty(void **state)
{
	uint32_t pos_arr[4] = { 0 }, *pos = pos_arr;
	struct queue q;

	(void)state;
	queue_init(&q, cmp, NULL, &pos);
	assert_int_equal(queue_peek(&q), QUEUE_NONE);
	assert_int_equal(queue_pop(&q), QUEUE_NONE);
	assert_false(queue_contains(&q, 0));
	queue_release(&q);
	queue_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_against_model),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

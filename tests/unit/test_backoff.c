// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the waitForPodsReady requeue backoff: a table of strategies and
 * requeue counts with the exact delay or deactivation (no jitter), and the
 * bounds and determinism of the jittered delay.
 */
#include "gang/backoff.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include "base/banned.h"

#define S 1000000LL

struct backoff_case {
	int64_t base_s, max_s, limit;
	int64_t requeues;
	enum backoff_action action;
	int64_t delay_us;
};

static const struct backoff_case cases[] = {
	/* Kueue's defaults: 60 s doubling to 3600 s, no limit */
	{ 60, 3600, -1, 0, BACKOFF_REQUEUE, 60 * S },
	{ 60, 3600, -1, 1, BACKOFF_REQUEUE, 120 * S },
	{ 60, 3600, -1, 2, BACKOFF_REQUEUE, 240 * S },
	{ 60, 3600, -1, 3, BACKOFF_REQUEUE, 480 * S },
	{ 60, 3600, -1, 4, BACKOFF_REQUEUE, 960 * S },
	{ 60, 3600, -1, 5, BACKOFF_REQUEUE, 1920 * S },
	{ 60, 3600, -1, 6, BACKOFF_REQUEUE, 3600 * S }, /* 3840 capped */
	{ 60, 3600, -1, 7, BACKOFF_REQUEUE, 3600 * S },
	{ 60, 3600, -1, 40, BACKOFF_REQUEUE, 3600 * S }, /* Go overflows */
	{ 60, 3600, -1, 1000000, BACKOFF_REQUEUE, 3600 * S },
	{ 60, 3600, -1, INT64_MAX - 1, BACKOFF_REQUEUE, 3600 * S },
	/* limit 3: three requeues, then deactivation */
	{ 60, 3600, 3, 0, BACKOFF_REQUEUE, 60 * S },
	{ 60, 3600, 3, 2, BACKOFF_REQUEUE, 240 * S },
	{ 60, 3600, 3, 3, BACKOFF_DEACTIVATE, 0 },
	{ 60, 3600, 3, 9, BACKOFF_DEACTIVATE, 0 },
	{ 60, 3600, 0, 0, BACKOFF_DEACTIVATE, 0 },
	/* a max below the base, zero and negative values */
	{ 60, 30, -1, 0, BACKOFF_REQUEUE, 30 * S },
	{ 0, 3600, -1, 5, BACKOFF_REQUEUE, 0 },
	{ 1, 0, -1, 5, BACKOFF_REQUEUE, 0 },
	{ -5, 100, -1, 0, BACKOFF_REQUEUE, 0 },
	{ 1, 1 << 20, -1, 20, BACKOFF_REQUEUE, (1LL << 20) * S },
	{ 1, 1 << 20, -1, 19, BACKOFF_REQUEUE, (1LL << 19) * S },
	/* huge seconds saturate instead of overflowing */
	{ INT64_MAX, INT64_MAX, -1, 3, BACKOFF_REQUEUE, INT64_MAX / S *S },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct backoff_case *c = &cases[i];
		struct requeuing_strategy s = {
			.timestamp = REQUEUE_EVICTION,
			.backoff_base_s = c->base_s,
			.backoff_max_s = c->max_s,
			.backoff_limit_count = c->limit,
		};
		int64_t d = -1;

		assert_int_equal(backoff_next(&s, c->requeues, NULL, &d),
				 c->action);
		if (c->action == BACKOFF_REQUEUE)
			assert_int_equal(d, c->delay_us);
		else
			assert_int_equal(d, -1); /* untouched */
	}
}

static void test_defaults_from_config(void **state)
{
	struct config cfg;
	int64_t d;

	(void)state;
	config_init(&cfg);
	assert_int_equal(
		backoff_next(&cfg.wait_for_pods_ready.requeuing, 0, NULL, &d),
		BACKOFF_REQUEUE);
	assert_int_equal(d, 60 * S);
}

static void test_jitter(void **state)
{
	struct requeuing_strategy s = { REQUEUE_EVICTION, 60, 3600, -1 };
	struct rng r1, r2;
	int64_t d1, d2, lo, spread = 0;

	(void)state;
	rng_seed(&r1, 7);
	rng_seed(&r2, 7);
	for (int64_t n = 0; n < 10; n++) {
		assert_int_equal(backoff_next(&s, n, &r1, &d1),
				 BACKOFF_REQUEUE);
		assert_int_equal(backoff_next(&s, n, &r2, &d2),
				 BACKOFF_REQUEUE);
		assert_int_equal(d1, d2); /* same seed, same delays */
		assert_int_equal(backoff_next(&s, n, NULL, &lo),
				 BACKOFF_REQUEUE);
		/* within [d, d * 1.0001), and exactly max once capped */
		assert_true(d1 >= lo);
		assert_true((double)d1 < (double)lo * (1 + BACKOFF_JITTER));
		if (lo == 3600 * S)
			assert_int_equal(d1, lo);
		spread += d1 - lo;
	}
	assert_true(spread > 0); /* the jitter did something */
	assert_string_equal(backoff_action_name(BACKOFF_DEACTIVATE),
			    "Deactivate");
	assert_string_equal(backoff_action_name(BACKOFF_REQUEUE), "Requeue");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_defaults_from_config),
		cmocka_unit_test(test_jitter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

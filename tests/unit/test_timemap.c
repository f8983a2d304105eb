// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the map from the embedded clock to the wall-clock times that
 * timestamps show (src/base/timemap.c): the identity by default, a run
 * at --speed 60 whose stamps follow the wall clock, a restart after
 * downtime (time stands still for the embedded cluster; the wall times
 * between runs map to the later start), a wall clock set back, the text
 * kept in the database, and that a stamp read and written again is the
 * same text at any speed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/rng.h"
#include "base/timemap.h"
#include "testutil.h"

#include "base/banned.h"

#define SEC 1000000LL
#define T0  1796130000000000LL /* 2026-12-01T13:00:00Z */

static int reset(void **state)
{
	(void)state;
	assert_int_equal(timemap_set(NULL, 0), 0);
	return 0;
}

static void test_identity(void **state)
{
	(void)state;
	assert_int_equal(timemap_wall(T0 + 7), T0 + 7);
	assert_int_equal(timemap_clock(T0 + 7), T0 + 7);
	assert_null(timemap_get(&(size_t){ 0 }));
}

/* A first run at T0 at --speed 60, then a restart 90 s of the wall clock
 * after it stopped, at --speed 2. */
static void test_runs(void **state)
{
	static const struct {
		int64_t clock, wall; /* wall = timemap_wall(clock) */
		int64_t back;	     /* timemap_clock(wall) */
	} table[] = {
		{ T0, T0, T0 },
		{ T0 + 600 * SEC, T0 + 10 * SEC, T0 + 600 * SEC },
		{ T0 + 30, T0 + 1, T0 + 60 }, /* round up on the way back */
		{ T0 + 3540 * SEC, T0 + 59 * SEC, T0 + 3540 * SEC },
		/* the second run starts at clock T0 + 3600 s, wall + 150 s */
		{ T0 + 3600 * SEC, T0 + 150 * SEC, T0 + 3600 * SEC },
		{ T0 + 3601 * SEC, T0 + 150 * SEC + SEC / 2, T0 + 3601 * SEC },
		{ T0 + 3700 * SEC, T0 + 200 * SEC, T0 + 3700 * SEC },
		/* before the first run: the identity it was written with */
		{ T0 - SEC, T0 - SEC, T0 - SEC },
	};
	size_t n;

	(void)state;
	timemap_start(T0, T0, 60);
	timemap_start(T0 + 3600 * SEC, T0 + 150 * SEC, 2);
	assert_non_null(timemap_get(&n));
	assert_int_equal(n, 3); /* the identity, then the two runs */
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		assert_int_equal(timemap_wall(table[i].clock), table[i].wall);
		assert_int_equal(timemap_clock(table[i].wall), table[i].back);
	}
	/* The wall clock while the daemon was down: the second start. */
	assert_int_equal(timemap_clock(T0 + 100 * SEC), T0 + 3600 * SEC);
}

/* A wall clock set back does not send stamps back. */
static void test_monotonic(void **state)
{
	(void)state;
	timemap_start(T0, T0, 60);
	timemap_start(T0 + 6000 * SEC, T0 + 50 * SEC, 60);
	assert_int_equal(timemap_wall(T0 + 6000 * SEC), T0 + 100 * SEC);
	for (int64_t c = T0; c < T0 + 7000 * SEC; c += 7 * SEC)
		assert_true(timemap_wall(c + 7 * SEC) >= timemap_wall(c));
}

/* Whole-second stamps read back and written again are the same text,
 * at speeds above and below 1. */
static void test_round_trip(void **state)
{
	static const double speeds[] = { 0.5, 1, 1.5, 60, 3600, 7 / 3.0 };
	struct rng r;

	(void)state;
	rng_seed(&r, 11);
	for (size_t i = 0; i < ARRAY_SIZE(speeds); i++) {
		assert_int_equal(timemap_set(NULL, 0), 0);
		timemap_start(T0 + 123457, T0 + 98765, speeds[i]);
		timemap_start(T0 + 86400 * SEC * 400 + 3, T0 + 86400 * SEC * 30,
			      speeds[i]);
		for (int k = 0; k < 2000; k++) {
			int64_t c = T0 + (int64_t)rng_below(&r, 86400ULL * SEC *
									800);
			int64_t w = timemap_wall(c) / SEC * SEC;
			int64_t back = timemap_clock(w);

			assert_int_equal(timemap_wall(back) / SEC * SEC, w);
			/* within a microsecond of the wall clock */
			assert_true(back <= c + (int64_t)speeds[i] + 1);
		}
	}
}

static void test_text(void **state)
{
	static const char *const bad[] = {
		"x",	       "1:2",	      "1:2:0",	"1:2:-1",
		"5:5:1;4:6:1", "5:5:1;6:4:1", "1:2:3;", "1:2:3,4:5:6",
	};
	struct timemap_seg segs[TIMEMAP_MAX];
	char text[TIMEMAP_TEXT_MAX], again[TIMEMAP_TEXT_MAX];
	size_t n;

	(void)state;
	assert_string_equal(timemap_format(text, sizeof(text)), "");
	timemap_start(T0, T0 + 5, 60);
	timemap_start(T0 + 60 * SEC, T0 + 100 * SEC, 1.5);
	timemap_format(text, sizeof(text));
	assert_string_equal(text, "0:0:1;1796130000000000:1796130000000005:60;"
				  "1796130060000000:1796130100000000:1.5");
	assert_int_equal(timemap_parse(text, segs), 3);
	assert_int_equal(timemap_set(segs, 3), 0);
	assert_string_equal(timemap_format(again, sizeof(again)), text);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (timemap_parse(bad[i], segs) != -EINVAL)
			fail_msg("\"%s\" parsed", bad[i]);
	/* Set refuses a map that goes back, and keeps the one it had. */
	segs[1].wall_us = segs[2].wall_us + 1;
	assert_int_equal(timemap_set(segs, 3), -EINVAL);
	assert_non_null(timemap_get(&n));
	assert_int_equal(n, 3);

	/* Restarts beyond TIMEMAP_MAX drop the oldest. */
	for (int i = 0; i < 2 * TIMEMAP_MAX; i++)
		timemap_start(T0 + i * 100 * SEC, T0 + i * 200 * SEC, 1);
	assert_non_null(timemap_get(&n));
	assert_int_equal(n, TIMEMAP_MAX);
	timemap_format(text, sizeof(text));
	assert_int_equal(timemap_parse(text, segs), TIMEMAP_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_identity, reset),
		cmocka_unit_test_setup(test_runs, reset),
		cmocka_unit_test_setup(test_monotonic, reset),
		cmocka_unit_test_setup(test_round_trip, reset),
		cmocka_unit_test_setup(test_text, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * waitForPodsReady requeue backoff: doubling from a base, capped, with
 * Kueue's tiny multiplicative jitter, and deactivation past the limit.
 *
 * Kueue calls wait.Backoff.Step() n times and keeps the last value, so it
 * draws n random numbers of which only the last matters; one draw gives the
 * same distribution. It also lets time.Duration overflow for very large n
 * (the doubling passes 2^63 ns at n = 29 with a 60 s base); here the
 * doubling stops at the cap, so every n gives max.
 */
#include "gang/backoff.h"

#include "base/alloc.h"

#include "base/banned.h"

#define US_PER_S 1000000LL

static int64_t clamp_s(int64_t s)
{
	/* Seconds beyond ~292,000 years would overflow microseconds. */
	if (s < 0)
		return 0;
	return s > INT64_MAX / US_PER_S ? INT64_MAX / US_PER_S : s;
}

enum backoff_action backoff_next(const struct requeuing_strategy *s,
				 int64_t requeues, struct rng *r,
				 int64_t *ret_delay_us)
{
	int64_t base_us = clamp_s(s->backoff_base_s) * US_PER_S;
	int64_t max_us = clamp_s(s->backoff_max_s) * US_PER_S;
	int64_t d = base_us;

	BUG_ON(requeues < 0);
	/* requeues + 1 > limit, without the overflow */
	if (s->backoff_limit_count >= 0 && requeues >= s->backoff_limit_count)
		return BACKOFF_DEACTIVATE;
	/* base * 2^(requeues), stopping as soon as it passes the cap. */
	for (int64_t i = 0; i < requeues && d <= max_us; i++)
		d = d > INT64_MAX / 2 ? INT64_MAX : d * 2;
	/* One draw whenever r is given, so callers' streams stay aligned. */
	if (r) {
		double j = rng_double(r) * BACKOFF_JITTER * (double)d;

		if (d <= max_us)
			d += (int64_t)
				j; /* truncated, as Go's time.Duration() */
	}
	*ret_delay_us = d < max_us ? d : max_us;
	return BACKOFF_REQUEUE;
}

const char *backoff_action_name(enum backoff_action a)
{
	switch (a) {
	case BACKOFF_REQUEUE:
		return "Requeue";
	case BACKOFF_DEACTIVATE:
		return "Deactivate";
	default:
		return "?";
	}
}

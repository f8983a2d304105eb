/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The requeue backoff of waitForPodsReady: how long a workload evicted
 * because its pods did not all become Ready waits before it may be
 * admitted again, or whether it is deactivated instead.
 *
 * Kueue (pkg/workload UpdateRequeueState, with the deactivation check of
 * the workload controller): the n-th requeue (n = 1, 2, ...) waits
 * min(base * 2^(n-1) * (1 + j), max) with j uniform in [0, 0.0001), the
 * jitter of k8s.io/apimachinery wait.Backoff{Factor: 2, Jitter: 0.0001};
 * a workload whose next requeue would exceed backoffLimitCount is
 * deactivated. Pure: the jitter comes from a caller-seeded rng.
 */
#ifndef ECHELON_GANG_BACKOFF_H
#define ECHELON_GANG_BACKOFF_H

#include <stdint.h>

#include "base/rng.h"
#include "model/config.h"

/* wait.Backoff's Jitter in Kueue's requeue backoff. */
#define BACKOFF_JITTER 0.0001

enum backoff_action {
	BACKOFF_REQUEUE,    /* requeue after the delay */
	BACKOFF_DEACTIVATE, /* limit exceeded: deactivate the workload */
	BACKOFF_ACTION_COUNT
};

/*
 * The action after a workload's pods-ready timeout, given the strategy and
 * the number of requeues it has had so far (requeueState.count, >= 0).
 * BACKOFF_REQUEUE writes the delay before the requeue (n = requeues + 1)
 * to *ret_delay_us; BACKOFF_DEACTIVATE writes nothing. r draws the jitter;
 * NULL means none (the exact base * 2^(n-1), capped). A negative base or
 * max counts as 0; backoff_limit_count < 0 means unlimited.
 */
enum backoff_action backoff_next(const struct requeuing_strategy *s,
				 int64_t requeues, struct rng *r,
				 int64_t *ret_delay_us);

const char *backoff_action_name(enum backoff_action a);

#endif

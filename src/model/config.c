// SPDX-License-Identifier: Apache-2.0
/*
 * Configuration defaults and names.
 */
#include "model/config.h"

#include <errno.h>
#include <string.h>

#include "base/banned.h"

static const char *const algorithm_names[PLACEMENT_ALGORITHM_COUNT] = {
	[PLACEMENT_MIXED] = "Mixed",
	[PLACEMENT_BEST_FIT] = "BestFit",
	[PLACEMENT_LEAST_FREE_CAPACITY] = "LeastFreeCapacity",
	[PLACEMENT_FRAGMENTATION_AWARE] = "FragmentationAware",
};

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->placement.algorithm = PLACEMENT_MIXED;
	c->wait_for_pods_ready.timeout_us = 30 * 60 * 1000000LL;
	c->wait_for_pods_ready.recovery_timeout_us =
		c->wait_for_pods_ready.timeout_us;
	c->wait_for_pods_ready.requeuing.timestamp = REQUEUE_EVICTION;
	c->wait_for_pods_ready.requeuing.backoff_base_s = 60;
	c->wait_for_pods_ready.requeuing.backoff_max_s = 3600;
	c->wait_for_pods_ready.requeuing.backoff_limit_count = -1;
}

const char *placement_algorithm_name(enum placement_algorithm a)
{
	return a < PLACEMENT_ALGORITHM_COUNT ? algorithm_names[a] : "?";
}

int placement_algorithm_parse(const char *s, enum placement_algorithm *ret)
{
	for (int i = 0; i < PLACEMENT_ALGORITHM_COUNT; i++) {
		if (strcmp(s, algorithm_names[i]) == 0) {
			*ret = (enum placement_algorithm)i;
			return 0;
		}
	}
	return -EINVAL;
}

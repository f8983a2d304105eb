/* SPDX-License-Identifier: Apache-2.0 */
/*
 * echelon's Configuration (echelon.dev/v1alpha1 Configuration): the
 * placement algorithm and options, and waitForPodsReady, with the field
 * names and defaults of Kueue's own Configuration. Plain data.
 */
#ifndef ECHELON_MODEL_CONFIG_H
#define ECHELON_MODEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"

enum placement_algorithm {
	PLACEMENT_MIXED, /* BestFit, LeastFreeCapacity for
			    unconstrained (Kueue's default) */
	PLACEMENT_BEST_FIT,
	PLACEMENT_LEAST_FREE_CAPACITY,
	/* echelon's: BestFit, except that among the domains that hold the
	   rest of a pod set it takes the one whose use leaves the most idle
	   nodes per domain, level by level (placement.md §9) */
	PLACEMENT_FRAGMENTATION_AWARE,
	PLACEMENT_ALGORITHM_COUNT
};

enum requeue_timestamp {
	REQUEUE_EVICTION, /* queue order by eviction time (default) */
	REQUEUE_CREATION,
	REQUEUE_TIMESTAMP_COUNT
};

struct placement_config {
	enum placement_algorithm algorithm;
	bool balanced;
	bool preferred_node_affinity;
};

struct requeuing_strategy {
	enum requeue_timestamp timestamp;
	int64_t backoff_base_s;	     /* default 60 */
	int64_t backoff_max_s;	     /* default 3600 */
	int64_t backoff_limit_count; /* -1: unlimited (default) */
};

struct wait_for_pods_ready {
	bool enable;
	int64_t timeout_us;	     /* default 30 minutes (Kueue v1beta2) */
	int64_t recovery_timeout_us; /* default: timeout; 0 disables */
	bool block_admission;	     /* default false */
	struct requeuing_strategy requeuing;
};

struct config {
	struct placement_config placement;
	struct wait_for_pods_ready wait_for_pods_ready;
	struct srcpos pos;
};

/* Kueue's defaults. */
void config_init(struct config *c);
const char *placement_algorithm_name(enum placement_algorithm a);
/* "BestFit", "LeastFreeCapacity", "Mixed" or "FragmentationAware";
 * -EINVAL otherwise. */
int placement_algorithm_parse(const char *s,
			      enum placement_algorithm *ret) MUST_CHECK;

#endif

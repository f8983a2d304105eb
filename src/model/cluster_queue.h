/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A ClusterQueue (and the quota part of a Cohort): resource groups of
 * flavors with nominal quota and borrowing and lending limits, the cohort it
 * belongs to, its queueing strategy, preemption policy, stop policy and
 * fair-sharing weight, as in Kueue's API.
 *
 * Quantities are in canonical units (see quantity.h); QUOTA_UNLIMITED marks
 * a limit that is not set. Strings are interned elsewhere; the queue owns
 * its arrays.
 */
#ifndef ECHELON_MODEL_CLUSTER_QUEUE_H
#define ECHELON_MODEL_CLUSTER_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "model/resource.h"
#include "model/selector.h"

#define QUOTA_UNLIMITED INT64_MAX

enum queueing_strategy {
	QUEUEING_BEST_EFFORT_FIFO,
	QUEUEING_STRICT_FIFO,
	QUEUEING_STRATEGY_COUNT
};

enum preempt_within_cq {
	PREEMPT_NEVER,
	PREEMPT_LOWER_PRIORITY,
	PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY,
	PREEMPT_ANY, /* reclaimWithinCohort only */
	PREEMPT_POLICY_COUNT
};

enum borrow_within_cohort_policy {
	BORROW_PREEMPT_NEVER,
	BORROW_PREEMPT_LOWER_PRIORITY,
	BORROW_PREEMPT_POLICY_COUNT
};

enum stop_policy {
	STOP_NONE,
	STOP_HOLD,
	STOP_HOLD_AND_DRAIN,
	STOP_POLICY_COUNT
};

enum flavor_fungibility {
	FUNGIBILITY_BORROW,   /* whenCanBorrow: Borrow (default) */
	FUNGIBILITY_TRY_NEXT, /* TryNextFlavor */
	FUNGIBILITY_PREEMPT,  /* whenCanPreempt: Preempt */
	FUNGIBILITY_COUNT
};

/* flavorFungibility.preference: how isPreferred ranks two flavors. */
enum fungibility_preference {
	PREFER_BORROWING_OVER_PREEMPTION, /* default (also when absent) */
	PREFER_PREEMPTION_OVER_BORROWING,
	FUNGIBILITY_PREFERENCE_COUNT
};

struct resource_quota {
	int resource; /* id in the cluster's resource registry */
	int64_t nominal;
	int64_t borrowing_limit; /* QUOTA_UNLIMITED when unset */
	int64_t lending_limit;	 /* QUOTA_UNLIMITED when unset */
};

struct flavor_quotas {
	const char *flavor;
	struct resource_quota *resources;
	size_t nresources;
};

struct resource_group {
	int covered[RESOURCE_MAX]; /* resource ids */
	size_t ncovered;
	struct flavor_quotas *flavors;
	size_t nflavors;
};

struct cluster_queue {
	const char *name;
	const char *cohort; /* NULL: none */
	struct resource_group *groups;
	size_t ngroups;
	enum queueing_strategy queueing;
	struct selector namespace_selector; /* empty: every namespace */
	enum preempt_within_cq within_cluster_queue;
	enum preempt_within_cq reclaim_within_cohort;
	enum borrow_within_cohort_policy borrow_within_cohort;
	int32_t borrow_max_priority_threshold; /* when has_threshold */
	bool has_threshold;
	enum flavor_fungibility when_can_borrow;
	enum flavor_fungibility when_can_preempt;
	enum fungibility_preference preference;
	bool has_preference; /* given in the input */
	enum stop_policy stop;
	int64_t fair_weight_milli; /* fairSharing.weight, default 1000 */
	/* metadata.deletionTimestamp is set: inactive, admits nothing new;
	 * what it admitted keeps running (Kueue's finalizer). */
	bool deleting;
	struct srcpos pos;
};

void cluster_queue_init(struct cluster_queue *cq);
void cluster_queue_release(struct cluster_queue *cq);
/* Add an empty resource group / flavor; the returned pointer is valid until
 * the next add on the same object. */
struct resource_group *cluster_queue_add_group(struct cluster_queue *cq);
struct flavor_quotas *resource_group_add_flavor(struct resource_group *g);
struct resource_quota *flavor_quotas_add(struct flavor_quotas *fq);
void resource_groups_release(struct resource_group *groups, size_t n);

/* The quota of flavor/resource in any group, or NULL. */
const struct resource_quota *cluster_queue_quota(const struct cluster_queue *cq,
						 const char *flavor,
						 int resource);

#endif

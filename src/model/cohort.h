/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Cohort (kueue.x-k8s.io Cohort): a node in the tree of ClusterQueues that
 * share quota. It may name a parent cohort and hold quota of its own, in the
 * same resource-group form as a ClusterQueue. Cohorts named by a
 * ClusterQueue but never declared exist implicitly with no quota.
 */
#ifndef ECHELON_MODEL_COHORT_H
#define ECHELON_MODEL_COHORT_H

#include "model/cluster_queue.h"

struct cohort {
	const char *name;
	const char *parent; /* NULL: a root */
	struct resource_group *groups;
	size_t ngroups;
	int64_t fair_weight_milli;
	struct srcpos pos;
};

void cohort_init(struct cohort *c);
void cohort_release(struct cohort *c);
struct resource_group *cohort_add_group(struct cohort *c);

#endif

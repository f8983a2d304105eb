// SPDX-License-Identifier: Apache-2.0
/*
 * ClusterQueues: construction, release and quota lookup.
 */
#include "model/cluster_queue.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

void cluster_queue_init(struct cluster_queue *cq)
{
	memset(cq, 0, sizeof(*cq));
	selector_init(&cq->namespace_selector);
	cq->within_cluster_queue = PREEMPT_NEVER;
	cq->reclaim_within_cohort = PREEMPT_NEVER;
	cq->borrow_within_cohort = BORROW_PREEMPT_NEVER;
	cq->when_can_borrow = FUNGIBILITY_BORROW;
	cq->when_can_preempt = FUNGIBILITY_TRY_NEXT;
	cq->fair_weight_milli = 1000;
}

void resource_groups_release(struct resource_group *groups, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < groups[i].nflavors; j++)
			free(groups[i].flavors[j].resources);
		free(groups[i].flavors);
	}
	free(groups);
}

void cluster_queue_release(struct cluster_queue *cq)
{
	if (!cq)
		return;
	resource_groups_release(cq->groups, cq->ngroups);
	selector_release(&cq->namespace_selector);
	memset(cq, 0, sizeof(*cq));
}

struct resource_group *cluster_queue_add_group(struct cluster_queue *cq)
{
	cq->groups =
		xreallocarray(cq->groups, cq->ngroups + 1, sizeof(*cq->groups));
	memset(&cq->groups[cq->ngroups], 0, sizeof(*cq->groups));
	return &cq->groups[cq->ngroups++];
}

struct flavor_quotas *resource_group_add_flavor(struct resource_group *g)
{
	g->flavors =
		xreallocarray(g->flavors, g->nflavors + 1, sizeof(*g->flavors));
	memset(&g->flavors[g->nflavors], 0, sizeof(*g->flavors));
	return &g->flavors[g->nflavors++];
}

struct resource_quota *flavor_quotas_add(struct flavor_quotas *fq)
{
	struct resource_quota *q;

	fq->resources = xreallocarray(fq->resources, fq->nresources + 1,
				      sizeof(*fq->resources));
	q = &fq->resources[fq->nresources++];
	q->resource = -1;
	q->nominal = 0;
	q->borrowing_limit = QUOTA_UNLIMITED;
	q->lending_limit = QUOTA_UNLIMITED;
	return q;
}

const struct resource_quota *cluster_queue_quota(const struct cluster_queue *cq,
						 const char *flavor,
						 int resource)
{
	for (size_t g = 0; g < cq->ngroups; g++) {
		const struct resource_group *rg = &cq->groups[g];

		for (size_t f = 0; f < rg->nflavors; f++) {
			const struct flavor_quotas *fq = &rg->flavors[f];

			if (strcmp(fq->flavor, flavor) != 0)
				continue;
			for (size_t r = 0; r < fq->nresources; r++) {
				if (fq->resources[r].resource == resource)
					return &fq->resources[r];
			}
		}
	}
	return NULL;
}

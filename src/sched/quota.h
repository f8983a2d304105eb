/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Quota accounting: the tree of ClusterQueues and Cohorts with, for every
 * (flavor, resource) pair ("fr"), nominal quota, borrowing and lending
 * limits and usage, following Kueue's hierarchical resource nodes.
 *
 * Nodes [0, ncq) are the cluster's ClusterQueues in cluster order, then
 * the cohorts (declared ones in order, then implicit ones by first use).
 * For a node n and pair fr:
 *  - guaranteed(n) = max(0, subtree(n) - lend(n)) (0 without a lending
 *    limit): the part of n's quota that its parent cannot lend away;
 *  - subtree(cohort) = own nominal + sum over children of
 *    subtree(child) - guaranteed(child); subtree(cq) = its nominal;
 *  - usage(cohort) = sum over children of max(0, usage - guaranteed).
 * available() is what n can still take (its guarantee left plus what its
 * parent can give within the borrowing limit), potential() the same with
 * every usage at zero. Usage updates cost O(depth).
 *
 * A parent cycle among cohorts is broken by making the cohort that
 * closes it a root; the cohorts on the cycle are marked so that their
 * ClusterQueues admit nothing. The tree borrows the cluster's strings;
 * free it with quota_release().
 */
#ifndef ECHELON_SCHED_QUOTA_H
#define ECHELON_SCHED_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/cluster.h"
#include "model/resource.h"

/* The index of (flavor id, resource id) in a node's arrays. */
#define QUOTA_FR(f, r) ((size_t)(f)*RESOURCE_MAX + (size_t)(r))

struct quota_node {
	const char *name;
	int32_t parent; /* -1: a root */
	int32_t root;	/* the root of its tree (itself when a root) */
	bool is_cq;
	bool in_cycle;	      /* on a parent cycle: admits nothing */
	int64_t weight_milli; /* fair-sharing weight, 1000 = 1 */
	int64_t *nominal;     /* [nfr] own nominal quota */
	int64_t *borrow;      /* borrowing limit, QUOTA_UNLIMITED */
	int64_t *lend;	      /* lending limit, QUOTA_UNLIMITED */
	int64_t *subtree;     /* see above */
	int64_t *usage;	      /* see above */
	bool *listed;	      /* the node names the pair in its groups */
	size_t nborrowing;    /* pairs where usage > subtree quota */
	int32_t height;	      /* Kueue's node height: 0 for a queue, 1 for
				 a cohort of queues, +1 per cohort level */
	int32_t *children;
	size_t nchildren;
};

struct quota {
	size_t nflavors; /* flavor ids are positions in cluster->flavors */
	size_t nfr;	 /* nflavors * RESOURCE_MAX */
	size_t ncq;
	size_t nnodes;
	struct quota_node *nodes;
};

/*
 * Build the tree of c's ClusterQueues and cohorts with zero usage.
 * Quotas naming an unknown flavor are ignored (the caller marks such a
 * ClusterQueue inactive). Never fails.
 */
void quota_init(struct quota *q, const struct cluster *c);
/* Free every array; q may be NULL. */
void quota_release(struct quota *q);

/* The node of the cohort called name, or -1. */
int32_t quota_find_cohort(const struct quota *q, const char *name);

/* What node n may still use of fr, and the most it could ever use. */
int64_t quota_available(const struct quota *q, int32_t n, size_t fr);
int64_t quota_potential(const struct quota *q, int32_t n, size_t fr);
/* The part of n's quota of fr its parent cannot lend away. */
int64_t quota_guaranteed(const struct quota *q, int32_t n, size_t fr);

/* usage(n, fr) += delta (negative to release), propagated to the root. */
void quota_add(struct quota *q, int32_t n, size_t fr, int64_t delta);

/* Whether n uses more of fr than its own subtree quota. */
bool quota_borrowing(const struct quota *q, int32_t n, size_t fr);
/*
 * Kueue's FindHeightOfLowestSubtreeThatFits: 0 when val more of fr keeps
 * n within its own quota (or n has no parent), else the height of the
 * lowest ancestor whose subtree holds what n's guarantee cannot (the
 * root's when none does). *ret_may_reclaim says whether that subtree has
 * a parent, from which quota lent away could be reclaimed.
 */
int32_t quota_fit_height(const struct quota *q, int32_t n, size_t fr,
			 int64_t val, bool *ret_may_reclaim);

/* Whether n uses more than its subtree quota of any pair. O(1). */
static inline bool quota_borrows_any(const struct quota *q, int32_t n)
{
	return q->nodes[n].nborrowing > 0;
}

/*
 * Dominant resource share of n (Kueue's fair sharing), weighted, with
 * extra[fr] (may be NULL) added to its usage: for each resource, what n
 * uses above its subtree quota over all flavors, per mille of what its
 * parent could ever use of that resource (quota_potential(): in a nested
 * cohort, what the parent could borrow above too), the largest, times
 * 1000 divided by the weight: Kueue's WeightedShare, rounded down. 0 when
 * n borrows nothing or has no parent; INT64_MAX when it borrows with
 * weight 0 (or its parent could use none of what it borrows).
 */
int64_t quota_share(const struct quota *q, int32_t n, const int64_t *extra);

/*
 * Recompute every cohort's subtree quota and usage from the
 * ClusterQueues' and compare. Returns true when equal; otherwise false
 * with the first difference in why (may be NULL).
 */
bool quota_check(const struct quota *q, struct strbuf *why);

#endif

// SPDX-License-Identifier: Apache-2.0
/*
 * The quota tree of ClusterQueues and Cohorts, with Kueue's arithmetic of
 * hierarchical resource nodes (guaranteed quota, subtree quota, usage
 * above the guarantee, available and potential quota). Usage is kept
 * incrementally: a change at a ClusterQueue walks up its ancestors only
 * while the part above the guarantee changes.
 */
#include "sched/quota.h"

#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

static int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

static void node_alloc(struct quota_node *n, size_t nfr)
{
	n->nominal = xcalloc(5 * nfr + 1, sizeof(int64_t));
	n->borrow = n->nominal + nfr;
	n->lend = n->borrow + nfr;
	n->subtree = n->lend + nfr;
	n->usage = n->subtree + nfr;
	n->listed = xcalloc(nfr + 1, sizeof(bool));
	for (size_t i = 0; i < nfr; i++)
		n->borrow[i] = n->lend[i] = QUOTA_UNLIMITED;
	n->parent = -1;
	n->weight_milli = 1000;
}

static int32_t flavor_id(const struct cluster *c, const char *name)
{
	for (size_t i = 0; i < c->flavors.len; i++) {
		if (strcmp(c->flavors.items[i].name, name) == 0)
			return (int32_t)i;
	}
	return -1;
}

static void set_groups(struct quota_node *n, const struct cluster *c,
		       const struct resource_group *groups, size_t ngroups)
{
	for (size_t g = 0; g < ngroups; g++) {
		for (size_t f = 0; f < groups[g].nflavors; f++) {
			const struct flavor_quotas *fq = &groups[g].flavors[f];
			int32_t fid = flavor_id(c, fq->flavor);

			for (size_t k = 0; fid >= 0 && k < fq->nresources;
			     k++) {
				const struct resource_quota *rq =
					&fq->resources[k];
				size_t fr = QUOTA_FR(fid, rq->resource);

				n->nominal[fr] = rq->nominal;
				n->borrow[fr] = rq->borrowing_limit;
				n->lend[fr] = rq->lending_limit;
				n->listed[fr] = true;
			}
		}
	}
}

int32_t quota_find_cohort(const struct quota *q, const char *name)
{
	for (size_t i = q->ncq; i < q->nnodes; i++) {
		if (strcmp(q->nodes[i].name, name) == 0)
			return (int32_t)i;
	}
	return -1;
}

/* The cohort node called name, created (implicit, no quota) if new. */
static int32_t cohort_node(struct quota *q, const char *name, size_t cap)
{
	int32_t i = quota_find_cohort(q, name);

	if (i >= 0)
		return i;
	BUG_ON(q->nnodes >= cap);
	node_alloc(&q->nodes[q->nnodes], q->nfr);
	q->nodes[q->nnodes].name = name;
	return (int32_t)q->nnodes++;
}

static void link_children(struct quota *q)
{
	for (size_t i = 0; i < q->nnodes; i++) {
		int32_t p = q->nodes[i].parent;
		struct quota_node *pn;

		if (p < 0)
			continue;
		pn = &q->nodes[p];
		pn->children = xreallocarray(pn->children, pn->nchildren + 1,
					     sizeof(*pn->children));
		pn->children[pn->nchildren++] = (int32_t)i;
	}
}

/* Break parent cycles: a cohort whose ancestors reach itself is a root. */
static void break_cycles(struct quota *q)
{
	for (size_t i = q->ncq; i < q->nnodes; i++) {
		int32_t p = q->nodes[i].parent;
		size_t steps = 0;

		while (p >= 0 && p != (int32_t)i && steps++ <= q->nnodes)
			p = q->nodes[p].parent;
		if (p != (int32_t)i)
			continue;
		p = (int32_t)i;
		do {
			q->nodes[p].in_cycle = true;
			p = q->nodes[p].parent;
		} while (p != (int32_t)i);
		q->nodes[i].parent = -1;
	}
}

static void compute_subtree(struct quota *q, int32_t n)
{
	struct quota_node *qn = &q->nodes[n];

	memcpy(qn->subtree, qn->nominal, q->nfr * sizeof(int64_t));
	for (size_t k = 0; k < qn->nchildren; k++) {
		int32_t ch = qn->children[k];

		compute_subtree(q, ch);
		for (size_t fr = 0; fr < q->nfr; fr++)
			qn->subtree[fr] += q->nodes[ch].subtree[fr] -
					   quota_guaranteed(q, ch, fr);
	}
}

static void set_roots(struct quota *q)
{
	for (size_t i = 0; i < q->nnodes; i++) {
		int32_t r = (int32_t)i;

		while (q->nodes[r].parent >= 0)
			r = q->nodes[r].parent;
		q->nodes[i].root = r;
		if (q->nodes[r].in_cycle)
			q->nodes[i].in_cycle = true;
	}
	for (size_t i = 0; i < q->nnodes; i++) {
		if (q->nodes[i].parent < 0)
			compute_subtree(q, (int32_t)i);
	}
}

/* Kueue's getNodeHeight: 1 for a cohort with children, one more per
 * level of child cohorts below; 0 for a ClusterQueue or an empty one. */
static int32_t node_height(struct quota *q, int32_t n)
{
	struct quota_node *qn = &q->nodes[n];
	int32_t h = qn->is_cq ? 0 : qn->nchildren > 0;

	for (size_t i = 0; !qn->is_cq && i < qn->nchildren; i++) {
		int32_t ch = qn->children[i];

		if (!q->nodes[ch].is_cq && node_height(q, ch) + 1 > h)
			h = q->nodes[ch].height + 1;
	}
	qn->height = h;
	return h;
}

void quota_init(struct quota *q, const struct cluster *c)
{
	size_t cap = c->cluster_queues.len * 2 + c->cohorts.len * 2 + 1;

	memset(q, 0, sizeof(*q));
	q->nflavors = c->flavors.len;
	q->nfr = (q->nflavors ? q->nflavors : 1) * RESOURCE_MAX;
	q->ncq = c->cluster_queues.len;
	q->nodes = xcalloc(cap, sizeof(*q->nodes));
	for (size_t i = 0; i < q->ncq; i++) {
		const struct cluster_queue *cq = &c->cluster_queues.items[i];

		node_alloc(&q->nodes[i], q->nfr);
		q->nodes[i].name = cq->name;
		q->nodes[i].is_cq = true;
		q->nodes[i].weight_milli = cq->fair_weight_milli;
		set_groups(&q->nodes[i], c, cq->groups, cq->ngroups);
	}
	q->nnodes = q->ncq;
	vec_foreach (&c->cohorts, co) {
		int32_t n = cohort_node(q, co->name, cap);

		q->nodes[n].weight_milli = co->fair_weight_milli;
		set_groups(&q->nodes[n], c, co->groups, co->ngroups);
		if (co->parent)
			q->nodes[n].parent = cohort_node(q, co->parent, cap);
	}
	for (size_t i = 0; i < q->ncq; i++) {
		const char *co = c->cluster_queues.items[i].cohort;

		if (co)
			q->nodes[i].parent = cohort_node(q, co, cap);
	}
	break_cycles(q);
	link_children(q);
	set_roots(q);
	for (size_t i = 0; i < q->nnodes; i++)
		node_height(q, (int32_t)i);
}

void quota_release(struct quota *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nnodes; i++) {
		free(q->nodes[i].nominal);
		free(q->nodes[i].listed);
		free(q->nodes[i].children);
	}
	free(q->nodes);
	memset(q, 0, sizeof(*q));
}

int64_t quota_guaranteed(const struct quota *q, int32_t n, size_t fr)
{
	const struct quota_node *qn = &q->nodes[n];

	if (qn->lend[fr] == QUOTA_UNLIMITED)
		return 0;
	return qn->subtree[fr] > qn->lend[fr] ? qn->subtree[fr] - qn->lend[fr]
					      : 0;
}

/* Kueue's LocalAvailable: the guarantee of n not used yet. */
static int64_t local_available(const struct quota *q, int32_t n, size_t fr)
{
	int64_t v = quota_guaranteed(q, n, fr) - q->nodes[n].usage[fr];

	return v > 0 ? v : 0;
}

/* What n uses of its parent's pool: usage above its guarantee. */
static int64_t above(const struct quota *q, int32_t n, size_t fr)
{
	int64_t u = q->nodes[n].usage[fr] - quota_guaranteed(q, n, fr);

	return u > 0 ? u : 0;
}

int64_t quota_available(const struct quota *q, int32_t n, size_t fr)
{
	const struct quota_node *qn = &q->nodes[n];
	int64_t g, local, pa;

	if (qn->parent < 0)
		return qn->subtree[fr] - qn->usage[fr];
	g = quota_guaranteed(q, n, fr);
	local = g > qn->usage[fr] ? g - qn->usage[fr] : 0;
	pa = quota_available(q, qn->parent, fr);
	if (qn->borrow[fr] != QUOTA_UNLIMITED) {
		int64_t lim = sat_add(qn->subtree[fr] - g - above(q, n, fr),
				      qn->borrow[fr]);

		pa = pa < lim ? pa : lim;
	}
	return sat_add(local, pa);
}

int64_t quota_potential(const struct quota *q, int32_t n, size_t fr)
{
	const struct quota_node *qn = &q->nodes[n];
	int64_t g, pa;

	if (qn->parent < 0)
		return qn->subtree[fr];
	g = quota_guaranteed(q, n, fr);
	pa = quota_potential(q, qn->parent, fr);
	if (qn->borrow[fr] != QUOTA_UNLIMITED) {
		int64_t lim = sat_add(qn->subtree[fr] - g, qn->borrow[fr]);

		pa = pa < lim ? pa : lim;
	}
	return sat_add(g, pa);
}

void quota_add(struct quota *q, int32_t n, size_t fr, int64_t delta)
{
	while (n >= 0 && delta != 0) {
		struct quota_node *qn = &q->nodes[n];
		int64_t before = above(q, n, fr);
		bool was = qn->usage[fr] > qn->subtree[fr];

		qn->usage[fr] += delta;
		if (was != (qn->usage[fr] > qn->subtree[fr])) {
			if (was)
				qn->nborrowing--;
			else
				qn->nborrowing++;
		}
		delta = above(q, n, fr) - before;
		n = qn->parent;
	}
}

bool quota_borrowing(const struct quota *q, int32_t n, size_t fr)
{
	return q->nodes[n].usage[fr] > q->nodes[n].subtree[fr];
}

int32_t quota_fit_height(const struct quota *q, int32_t n, size_t fr,
			 int64_t val, bool *ret_may_reclaim)
{
	int32_t p = q->nodes[n].parent;
	int64_t rem;

	if (p < 0 || q->nodes[n].usage[fr] + val <= q->nodes[n].subtree[fr]) {
		*ret_may_reclaim = p >= 0;
		return 0;
	}
	rem = val - local_available(q, n, fr);
	for (; p >= 0; p = q->nodes[p].parent) {
		if (q->nodes[p].usage[fr] + rem <= q->nodes[p].subtree[fr]) {
			*ret_may_reclaim = q->nodes[p].parent >= 0;
			return q->nodes[p].height;
		}
		rem -= local_available(q, p, fr);
	}
	*ret_may_reclaim = false;
	return q->nodes[q->nodes[n].root].height;
}

/* What n uses of resource r above its subtree quota, summed over the
 * flavors, per mille of what its parent could ever use of r (Kueue's
 * calculateLendable: potentialAvailable of the parent, so that a cohort
 * without quota of its own lends what it could borrow above). */
static int64_t share_of(const struct quota *q, int32_t n, int r,
			const int64_t *extra)
{
	const struct quota_node *qn = &q->nodes[n];
	int64_t borrowed = 0, lendable = 0;

	for (size_t f = 0; f < q->nflavors; f++) {
		size_t fr = QUOTA_FR(f, r);
		int64_t u = qn->usage[fr] + (extra ? extra[fr] : 0);

		if (u > qn->subtree[fr])
			borrowed += u - qn->subtree[fr];
	}
	if (borrowed == 0)
		return 0; /* the common case: no walk up the tree */
	for (size_t f = 0; f < q->nflavors; f++)
		lendable = sat_add(lendable, quota_potential(q, qn->parent,
							     QUOTA_FR(f, r)));
	if (lendable <= 0)
		return INT64_MAX;
	return (int64_t)((__int128)borrowed * 1000 / lendable);
}

int64_t quota_share(const struct quota *q, int32_t n, const int64_t *extra)
{
	int64_t drs = 0;

	if (q->nodes[n].parent < 0)
		return 0;
	for (int r = 0; r < RESOURCE_MAX; r++) {
		int64_t s = share_of(q, n, r, extra);

		drs = s > drs ? s : drs;
	}
	if (drs == 0)
		return 0;
	if (q->nodes[n].weight_milli <= 0 || drs == INT64_MAX)
		return INT64_MAX;
	return (int64_t)((__int128)drs * 1000 / q->nodes[n].weight_milli);
}

static bool check_node(const struct quota *q, int32_t n, struct strbuf *why)
{
	const struct quota_node *qn = &q->nodes[n];

	for (size_t k = 0; k < qn->nchildren; k++) {
		if (!check_node(q, qn->children[k], why))
			return false;
	}
	if (qn->is_cq)
		return true;
	for (size_t fr = 0; fr < q->nfr; fr++) {
		int64_t sub = qn->nominal[fr], use = 0;

		for (size_t k = 0; k < qn->nchildren; k++) {
			int32_t ch = qn->children[k];

			sub += q->nodes[ch].subtree[fr] -
			       quota_guaranteed(q, ch, fr);
			use += above(q, ch, fr);
		}
		if (sub != qn->subtree[fr] || use != qn->usage[fr]) {
			if (why)
				strbuf_addf(
					why,
					"cohort %s fr %zu: subtree %lld/%lld"
					" usage %lld/%lld",
					qn->name, fr,
					(long long)qn->subtree[fr],
					(long long)sub,
					(long long)qn->usage[fr],
					(long long)use);
			return false;
		}
	}
	return true;
}

bool quota_check(const struct quota *q, struct strbuf *why)
{
	for (size_t i = 0; i < q->nnodes; i++) {
		if (q->nodes[i].parent < 0 && !check_node(q, (int32_t)i, why))
			return false;
	}
	return true;
}

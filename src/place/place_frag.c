// SPDX-License-Identifier: Apache-2.0
/*
 * The FragmentationAware choice (configuration "FragmentationAware", an
 * echelon profile beside Kueue's BestFit and LeastFreeCapacity). Where
 * BestFit takes the tightest of the domains that hold the rest of a pod
 * set, this takes the one whose use leaves the largest gangs placeable:
 * it compares, from the top level down to the candidates' own, the most
 * idle nodes (live, nothing allocated: whole nodes a later gang can
 * take) left in any domain of each level, lexicographically; then fewer
 * idle nodes used; then BestFit's own order (the least count that holds
 * the rest, then Kueue's sort order), which makes it total. See
 * docs/internals/placement.md §9.
 *
 * Cost: a key is O(levels); the idle counts of the domains above the
 * hostname level (kept by the index as nodes change) are read once per
 * placement, and only when a candidate would take an idle node.
 */
#include "place/place_run.h"

#include "base/alloc.h"

#include "base/banned.h"

/* The figures of the levels above the hosts, once per run. */
static const struct frag_levels *levels(const struct run *r)
{
	const struct topo *t = r->t;
	struct frag_levels *fl = r->fl;

	if (fl->ready)
		return fl;
	/* a host holds one node: its idle count says nothing of gangs */
	fl->n = t->hostname_lowest ? r->unit_level : r->nlevels;
	for (unsigned l = 0; l < fl->n; l++) {
		uint32_t top = DOM_NONE, m1 = 0, m2 = 0;

		for (uint32_t d = t->level_off[l]; d < t->level_off[l + 1];
		     d++) {
			uint32_t v = t->dom_idle[d];

			if (top == DOM_NONE || v > m1) {
				m2 = top == DOM_NONE ? 0 : m1;
				m1 = v;
				top = d;
			} else if (v > m2) {
				m2 = v;
			}
		}
		fl->top[l] = top;
		fl->max1[l] = m1;
		fl->max2[l] = m2;
	}
	fl->ready = true;
	return fl;
}

/*
 * Pods of the request that one empty node of domain d holds (its first
 * node's allocatable: the nodes of a domain are mostly alike). Nodes with
 * the same allocatable as the last one counted reuse its count.
 */
static int64_t pods_per_node(const struct run *r, uint32_t d)
{
	const struct topo *t = r->t;
	struct frag_levels *fl = r->fl;
	size_t nr = (size_t)t->nres;
	uint32_t n = t->dom_node[d];
	const int64_t *a = &t->node_alloc[n * nr];
	int64_t best = INT32_MAX;

	if (fl->ppn_node != UINT32_MAX) {
		const int64_t *b = &t->node_alloc[fl->ppn_node * nr];
		size_t k = 0;

		while (k < nr && a[k] == b[k])
			k++;
		if (k == nr)
			return fl->ppn;
	}
	for (int i = 0; i < r->nreq; i++) {
		int id = r->req_ids[i];

		if (id >= t->nres || r->wreq[id] <= 0)
			continue;
		if (a[id] / r->wreq[id] < best)
			best = a[id] / r->wreq[id];
	}
	fl->ppn_node = n;
	fl->ppn = best;
	return best;
}

/*
 * Idle nodes of d that `pods` more pods use: the pods that fit on its
 * busy nodes go there, the rest take whole idle nodes. Exact for a host,
 * and for pods that each need a whole node.
 */
static int64_t idle_used(const struct run *r, uint32_t d, int64_t pods)
{
	int64_t idle = r->t->dom_idle[d], ppn, busy, k;

	if (!idle || pods <= 0)
		return 0;
	if (d >= r->t->level_off[r->unit_level] && r->t->hostname_lowest)
		return 1; /* an idle host: whatever fits takes it */
	ppn = pods_per_node(r, d);
	if (ppn <= 0)
		return 0;
	busy = r->pd[d].state - idle * ppn;
	if (pods <= busy)
		return 0;
	busy = busy < 0 ? 0 : busy;
	k = (pods - busy + ppn - 1) / ppn;
	return k < idle ? k : idle;
}

void place_frag_key(const struct run *r, uint32_t d, int64_t pods,
		    struct frag_key *k)
{
	const struct topo *t = r->t;
	const struct frag_levels *fl;
	unsigned l;

	k->used = idle_used(r, d, pods);
	k->n = 0;
	if (!k->used)
		return; /* every level keeps its most idle nodes */
	fl = levels(r);
	l = topo_dom_level(t, d);
	k->n = l + 1 < fl->n ? l + 1 : fl->n;
	/* walk up from d: ancestor at level l, then l - 1, ... */
	for (unsigned i = l + 1; i-- > 0; d = t->dom_parent[d]) {
		int64_t own = (int64_t)t->dom_idle[d] - k->used;
		int64_t other;

		if (i >= k->n)
			continue;
		other = fl->top[i] == d ? fl->max2[i] : fl->max1[i];
		k->v[i] = own > other ? own : other;
	}
}

int place_frag_key_cmp(const struct frag_key *a, const struct frag_key *b)
{
	/*
	 * A key that uses no idle node keeps every level's most, which the
	 * other's figures cannot exceed: fewer idle nodes used decides.
	 */
	if (a->used && b->used) {
		BUG_ON(a->n != b->n);
		for (unsigned l = 0; l < a->n; l++) {
			if (a->v[l] != b->v[l])
				return a->v[l] > b->v[l] ? -1 : 1;
		}
	}
	return (a->used > b->used) - (a->used < b->used);
}

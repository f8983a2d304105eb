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
 * Cost: place_frag_setup() reads the idle counts of the domains above the
 * hostname level once per placement (a few dozen on a large cluster, kept
 * by the index as nodes change); a comparison is O(levels).
 */
#include "place/place_run.h"

#include "base/alloc.h"

#include "base/banned.h"

void place_frag_setup(struct run *r)
{
	const struct topo *t = r->t;

	/* a host holds one node: its idle count says nothing of gangs */
	r->frag_levels = t->hostname_lowest ? r->unit_level : r->nlevels;
	for (unsigned l = 0; l < r->frag_levels; l++) {
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
		r->frag_top[l] = top;
		r->frag_max1[l] = m1;
		r->frag_max2[l] = m2;
	}
}

/* Pods of the request that one empty node of domain d holds (its first
 * node's allocatable: the nodes of a domain are mostly alike). */
static int64_t pods_per_node(const struct run *r, uint32_t d)
{
	const struct topo *t = r->t;
	const int64_t *a = &t->node_alloc[(size_t)t->dom_node[d] * t->nres];
	int64_t best = INT32_MAX;

	for (int i = 0; i < r->nreq; i++) {
		int id = r->req_ids[i];

		if (id >= t->nres || r->wreq[id] <= 0)
			continue;
		if (a[id] / r->wreq[id] < best)
			best = a[id] / r->wreq[id];
	}
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

/* The ancestors of d by level into up[0..level]; returns d's level. */
static unsigned path(const struct topo *t, uint32_t d, uint32_t *up)
{
	unsigned l = topo_dom_level(t, d);

	for (unsigned k = l + 1; k-- > 0; d = t->dom_parent[d])
		up[k] = d;
	return l;
}

/* The most idle nodes of a level-l domain once x, on l, loses e. */
static int64_t level_max(const struct run *r, unsigned l, uint32_t x,
			 int64_t e)
{
	int64_t own = (int64_t)r->t->dom_idle[x] - e;
	int64_t other = r->frag_top[l] == x ? r->frag_max2[l] : r->frag_max1[l];

	return own > other ? own : other;
}

static int cmp_desc(int64_t a, int64_t b)
{
	return (a < b) - (a > b);
}

int place_frag_cmp(const struct run *r, uint32_t a, uint32_t b, int64_t pods)
{
	uint32_t ua[TOPOLOGY_MAX_LEVELS], ub[TOPOLOGY_MAX_LEVELS];
	int64_t ea = idle_used(r, a, pods), eb = idle_used(r, b, pods);
	unsigned la, n;

	if (!ea && !eb)
		return 0; /* every level keeps its most idle nodes */
	la = path(r->t, a, ua);
	BUG_ON(path(r->t, b, ub) != la);
	n = la + 1 < r->frag_levels ? la + 1 : r->frag_levels;
	for (unsigned l = 0; l < n; l++) {
		int c = cmp_desc(level_max(r, l, ua[l], ea),
				 level_max(r, l, ub[l], eb));

		if (c)
			return c;
	}
	return ea == eb ? 0 : ea < eb ? -1 : 1;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * findLevelWithFitDomains without sorting the level. Kueue sorts every
 * domain of the fit level on every call: for an unconstrained or implied
 * request, every host of the flavor. Here one scan finds the domain a
 * single-domain answer takes, and the greedy walk over several domains
 * selects only the few it takes with a bounded heap. The answers are the
 * sort's (tests/unit/test_place_select.c compares them with req->sorted);
 * affinity tiers keep the sort (place.c). See docs/internals/placement.md
 * §4, item 4.
 */
#include "place/place_run.h"

#include "base/banned.h"

/*
 * The domains a scan looks at: ids[0..n), or with ids NULL the live
 * domains among lo .. lo + n - 1 (a whole level, in id order).
 */
struct scan {
	const uint32_t *ids;
	uint32_t lo, n;
};

/* The i-th domain of the scan; DOM_NONE when it is not live. */
static uint32_t scan_at(const struct run *r, const struct scan *sc, uint32_t i)
{
	uint32_t d;

	if (sc->ids)
		return sc->ids[i];
	d = sc->lo + i;
	return r->t->dom_live[d] ? d : DOM_NONE;
}

/* (slices, pods, id): the order of pick_plain(). */
static bool plain_less(const struct run *r, uint32_t a, uint32_t b)
{
	const struct pdom *p = &r->pd[a], *q = &r->pd[b];

	if (p->slice != q->slice)
		return p->slice < q->slice;
	if (p->state != q->state)
		return p->state < q->state;
	return a < b;
}

/*
 * A candidate and, under FragmentationAware, its key for the rest of the
 * request (`slices` slices), computed once per candidate.
 */
struct cand {
	uint32_t d;
	struct frag_key k;
};

static void cand_set(const struct run *r, struct cand *c, uint32_t d,
		     int64_t slices)
{
	c->d = d;
	c->k.used = 0;
	c->k.n = 0;
	if (r->frag)
		place_frag_key(r, d, slices * r->slice_size, &c->k);
}

/* FragmentationAware's first key; 0 for ties and the other profiles,
 * which leave the order to BestFit's keys. */
static int frag_order(const struct run *r, const struct cand *a,
		      const struct cand *b)
{
	return r->frag ? place_frag_key_cmp(&a->k, &b->k) : 0;
}

/* The order of pick_plain(): frag_order(), then plain_less(). */
static bool plain_better(const struct run *r, const struct cand *a,
			 const struct cand *b)
{
	int c = frag_order(r, a, b);

	return c ? c < 0 : plain_less(r, a->d, b->d);
}

/*
 * The pick without a leader: then slices and pods equal their "with
 * leader" forms, so BestFit's best fit and LeastFreeCapacity's first fit
 * are both the least by (slices, pods, id) among the domains that hold the
 * request, and BestFit's top domain holds it whenever any does. At the
 * slice level pods >= slices * slice size, so in a scan of the level in id
 * order a domain with exactly the slices needed and no spare pod cannot be
 * beaten: the scan stops there.
 */
static uint32_t pick_plain(const struct run *r, const struct scan *sc,
			   unsigned level, int64_t slices)
{
	bool stop = !sc->ids && level == r->slice_level && !r->req->sorted &&
		    !r->frag;
	int64_t tight = slices * r->slice_size;
	struct cand best = { .d = DOM_NONE }, c;

	for (uint32_t i = 0; i < sc->n; i++) {
		uint32_t d = scan_at(r, sc, i);

		if (d == DOM_NONE || r->pd[d].slice < slices)
			continue;
		cand_set(r, &c, d, slices);
		if (best.d != DOM_NONE && !plain_better(r, &c, &best))
			continue;
		best = c;
		if (stop && r->pd[d].slice == slices && r->pd[d].state == tight)
			break;
	}
	return best.d;
}

/*
 * BestFit's order among the domains that hold the rest (slices with the
 * leader when wl): frag_order(), then the least slices, then the sort
 * order (sortedDomainsWithLeader's when sort_wl).
 */
static bool fit_better(const struct run *r, const struct cand *a,
		       const struct cand *b, bool wl, bool sort_wl)
{
	struct sort_arg sa = { r, sort_wl };
	int32_t va = wl ? r->pd[a->d].slice_wl : r->pd[a->d].slice;
	int32_t vb = wl ? r->pd[b->d].slice_wl : r->pd[b->d].slice;
	int c = frag_order(r, a, b);

	if (c)
		return c < 0;
	if (va != vb)
		return va < vb;
	return place_run_cmp(&a->d, &b->d, &sa) < 0;
}

/*
 * The pick with a leader: the first domain of the sorted order is the
 * least under place_run_cmp, BestFit's best fit the least by (slices with
 * the leader, place_run_cmp) among those with enough of them, and
 * LeastFreeCapacity's choice the least that holds the request.
 */
static uint32_t pick_leader(const struct run *r, const struct scan *sc,
			    int64_t slices)
{
	struct sort_arg sa = { r, true };
	uint32_t top = DOM_NONE, first = DOM_NONE;
	struct cand best = { .d = DOM_NONE }, c;

	for (uint32_t i = 0; i < sc->n; i++) {
		uint32_t d = scan_at(r, sc, i);
		const struct pdom *p;

		if (d == DOM_NONE)
			continue;
		p = &r->pd[d];
		if (top == DOM_NONE || place_run_cmp(&d, &top, &sa) < 0)
			top = d;
		if (p->slice >= slices &&
		    (first == DOM_NONE || place_run_cmp(&d, &first, &sa) < 0))
			first = d;
		if (p->slice_wl < slices)
			continue;
		cand_set(r, &c, d, slices);
		if (best.d == DOM_NONE || fit_better(r, &c, &best, true, true))
			best = c;
	}
	if (r->lfc)
		return first;
	if (top == DOM_NONE || !place_run_holds(r, top, slices))
		return DOM_NONE;
	return place_run_holds(r, best.d, slices) ? best.d : DOM_NONE;
}

uint32_t place_select_one(const struct run *r, unsigned level,
			  const uint32_t *ids, size_t n)
{
	const struct topo *t = r->t;
	int64_t slices = r->count / r->slice_size;
	struct scan sc = { ids, 0, (uint32_t)n };

	if (!ids) {
		sc.lo = t->level_off[level];
		sc.n = t->level_off[level + 1] - t->level_off[level];
	}
	if (r->has_leader)
		return pick_leader(r, &sc, slices);
	return pick_plain(r, &sc, level, slices);
}

/*
 * findBestFitDomainBy on the sorted level without sorting it (no affinity
 * tiers): the least by (slices, or slices with the leader, then order)
 * among the domains with at least `needed`. Called when the first domain
 * has enough, so there is one.
 */
static uint32_t best_fit_scan(const struct run *r, const struct idvec *ids,
			      int64_t needed)
{
	bool wl = r->leader_count > 0;
	struct cand best = { .d = DOM_NONE }, c;

	for (size_t i = 0; i < ids->len; i++) {
		uint32_t d = ids->items[i];
		int32_t v = wl ? r->pd[d].slice_wl : r->pd[d].slice;

		if (v < needed)
			continue;
		cand_set(r, &c, d, needed);
		if (best.d == DOM_NONE || fit_better(r, &c, &best, wl, true))
			best = c;
	}
	return best.d;
}

uint32_t place_select_top(const struct run *r, const struct idvec *ids,
			  uint32_t *ret_first)
{
	struct sort_arg sa = { r, true };
	int64_t slices = r->count / r->slice_size;
	uint32_t first = ids->items[0];

	for (size_t i = 1; i < ids->len; i++) {
		if (place_run_cmp(&ids->items[i], &first, &sa) < 0)
			first = ids->items[i];
	}
	*ret_first = first;
	if (!r->lfc && place_run_holds(r, first, slices))
		return best_fit_scan(r, ids, slices);
	return first;
}

/* Max-heap under the sortedDomains order (the greatest at the root). */
static void heap_sift_down(struct sort_arg *sa, uint32_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && place_run_cmp(&h[c + 1], &h[c], sa) > 0)
			c++;
		if (place_run_cmp(&h[c], &h[i], sa) <= 0)
			return;
		SWAP(h[c], h[i]);
		i = c;
	}
}

static void heap_sift_up(struct sort_arg *sa, uint32_t *h, size_t i)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (place_run_cmp(&h[i], &h[p], sa) <= 0)
			return;
		SWAP(h[i], h[p]);
		i = p;
	}
}

/*
 * The k first in sortedDomains order of the domains of ids that have a
 * slice, skip excepted, into sel, in that order: a bounded heap, then a
 * sort of the k it kept, O(n log k) where sorting the level is O(n log n).
 */
static void first_k(const struct run *r, const struct idvec *ids, uint32_t skip,
		    size_t k, struct idvec *sel)
{
	struct sort_arg sa = { r, false };
	bool all = k >= ids->len; /* nothing to drop: just sort */

	sel->len = 0;
	for (size_t i = 0; k && i < ids->len; i++) {
		uint32_t d = ids->items[i];

		if (d == skip || r->pd[d].slice <= 0)
			continue;
		if (sel->len < k) {
			vec_push(sel, d);
			if (!all)
				heap_sift_up(&sa, sel->items, sel->len - 1);
		} else if (place_run_cmp(&d, &sel->items[0], &sa) < 0) {
			sel->items[0] = d;
			heap_sift_down(&sa, sel->items, sel->len, 0);
		}
	}
	place_run_sort(r, sel->items, sel->len, false);
}

/*
 * BestFit's last domain in the greedy walk: the least by (slices, order)
 * among the domains of ids (skip excepted) at or after `from` in
 * sortedDomains order with at least `needed` slices; `from` has them.
 */
static uint32_t best_fit_after(const struct run *r, const struct idvec *ids,
			       uint32_t skip, uint32_t from, int64_t needed)
{
	struct sort_arg sa = { r, false };
	struct cand best, c;

	cand_set(r, &best, from, needed);
	for (size_t i = 0; i < ids->len; i++) {
		uint32_t d = ids->items[i];
		int32_t v = r->pd[d].slice;

		if (d == skip || d == from || v < needed ||
		    place_run_cmp(&d, &from, &sa) < 0)
			continue;
		cand_set(r, &c, d, needed);
		if (fit_better(r, &c, &best, false, false))
			best = c;
	}
	return best.d;
}

/*
 * The leader goes to `first`, the first domain in sort order (leader
 * capacity is the first key). The workers' walk then takes domains in
 * sortedDomains order until the request is met. A domain with no slice
 * adds nothing and gets no pod in the descent (LeastFreeCapacity sorts
 * those first; BestFit sorts them last, where only a failing walk reaches
 * them), so they are left out; every other one adds a slice at least, so
 * the walk reads at most the first `rem` of them, which first_k() selects.
 * The rare walk where BestFit swaps the leader's domain for a tighter one
 * (which need not hold the leader) is left to the sort.
 */
enum select_walk place_select_greedy(struct run *r, const struct idvec *ids,
				     uint32_t first, struct idvec *out,
				     int32_t *ret_fit)
{
	int64_t slices = r->count / r->slice_size, rem = slices;
	int64_t reml = r->leader_count;
	const struct pdom *p = &r->pd[first];
	struct idvec *sel = &r->s->c;
	uint32_t skip = DOM_NONE;

	if (reml > 0 && p->leader > 0) {
		if (!r->lfc && p->slice_wl >= rem)
			return WALK_SORT;
		vec_push(out, first);
		reml -= p->leader;
		rem -= p->slice_wl;
		skip = first;
	}
	if (reml > 0) {
		*ret_fit = (int32_t)(r->leader_count - reml);
		return WALK_SHORT;
	}
	if (rem <= 0)
		return WALK_DONE;
	first_k(r, ids, skip, rem < (int64_t)ids->len ? (size_t)rem : ids->len,
		sel);
	for (size_t i = 0; i < sel->len; i++) {
		uint32_t d = sel->items[i];

		if (!r->lfc && r->pd[d].slice >= rem)
			d = best_fit_after(r, ids, skip, d, rem);
		vec_push(out, d);
		rem -= r->pd[d].slice;
		if (rem <= 0)
			return WALK_DONE;
	}
	*ret_fit = (int32_t)(slices - rem);
	return WALK_SHORT;
}

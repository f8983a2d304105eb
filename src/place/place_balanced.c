// SPDX-License-Identifier: Apache-2.0
/*
 * Kueue's balanced placement (tas_balanced_placement.go), for preferred
 * requests when the configuration enables it: among the groups of sibling
 * domains at the preferred level (the children of each domain one level
 * up, or all roots), find the one whose greedy fit gives the highest
 * per-domain threshold T (slices / domains used, capped by the last
 * domain's capacity), prune the domains below T, choose the fewest domains
 * of least total capacity by dynamic programming, and give each chosen
 * domain T slices plus the extra ones in order. The pruned counts live in
 * a copy of the per-domain state (scratch pd2), so a failure leaves the
 * standard algorithm's counts intact, as Kueue's cloned domains do.
 */
#include "place/place_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"

#include "base/banned.h"

struct greedy_eval {
	bool fits;
	int32_t used;
	uint32_t last_wl, last; /* DOM_NONE when none */
};

/* evaluateGreedyAssignment over ids (not modified). */
static struct greedy_eval evaluate(const struct run *r, const uint32_t *ids,
				   size_t n, int64_t slices, int32_t leaders)
{
	struct greedy_eval e = { false, 0, DOM_NONE, DOM_NONE };
	uint32_t *v = xmalloc((n + 1) * sizeof(*v));
	int64_t rem = slices, reml = leaders;
	size_t idx = 0;

	if (n)
		memcpy(v, ids, n * sizeof(*v));
	if (leaders > 0) {
		place_run_sort(r, v, n, true);
		for (; reml > 0 && idx < n && r->pd[v[idx]].leader > 0; idx++) {
			e.used++;
			e.last_wl = v[idx];
			reml -= r->pd[v[idx]].leader;
			rem -= r->pd[v[idx]].slice_wl;
		}
	}
	place_run_sort(r, v + idx, n - idx, false);
	if (reml > 0)
		goto out;
	for (size_t i = idx; rem > 0 && i < n && r->pd[v[i]].slice > 0; i++) {
		e.used++;
		e.last = v[i];
		rem -= r->pd[v[i]].slice;
	}
	e.fits = rem <= 0;
out:
	free(v);
	if (!e.fits)
		e.used = 0;
	return e;
}

static int32_t threshold_of(const struct run *r, int64_t slices,
			    const struct greedy_eval *e)
{
	int64_t t = e->used ? slices / e->used : 0;

	if (e->last_wl != DOM_NONE && r->pd[e->last_wl].slice_wl < t)
		t = r->pd[e->last_wl].slice_wl;
	if (e->last != DOM_NONE && r->pd[e->last].slice < t)
		t = r->pd[e->last].slice;
	return (int32_t)t;
}

/* Zero a subtree's counts (clearState) or only its leader capacity. */
static void clear_subtree(struct run *r, uint32_t d, bool leader_only)
{
	const struct topo *t = r->t;
	uint32_t lo = d, hi = d + 1;

	for (unsigned l = topo_dom_level(t, d);; l++) {
		for (uint32_t x = lo; x < hi; x++) {
			struct pdom *p = &r->pd[x];

			if (leader_only) {
				p->state_wl = p->slice_wl = p->leader = 0;
			} else {
				int64_t aff = p->aff;

				memset(p, 0, sizeof(*p));
				p->aff = aff;
			}
		}
		if (l == r->unit_level)
			break;
		lo = t->dom_child[lo];
		hi = t->dom_child[hi - 1] + t->dom_nchildren[hi - 1];
	}
}

static void prune_node(struct run *r, uint32_t d, int32_t thr)
{
	const struct pdom *p = &r->pd[d];

	if (p->slice < thr)
		clear_subtree(r, d, false);
	else if (r->has_leader && p->leader > 0 && p->slice_wl < thr)
		clear_subtree(r, d, true);
}

/* fillInCountsHelper on the whole subtree of d, bottom-up. */
static void refill_subtree(struct run *r, uint32_t d, unsigned level)
{
	const struct topo *t = r->t;

	if (level == r->unit_level) {
		struct pdom *p = &r->pd[d];

		if (level == r->slice_level) {
			p->slice = p->state / r->slice_size;
			p->slice_wl = p->state_wl / r->slice_size;
		}
		return;
	}
	for (uint32_t c = t->dom_child[d];
	     c < t->dom_child[d] + t->dom_nchildren[d]; c++) {
		if (t->dom_live[c])
			refill_subtree(r, c, level + 1);
	}
	place_run_fill_parent(r, d, level);
}

/* pruneDomainsBelowThreshold for a group of siblings at `level`. */
static void prune_group(struct run *r, const struct idvec *g, unsigned level,
			int32_t thr)
{
	struct idvec kids = { NULL, 0, 0 };

	place_run_children(r, g->items, g->len, &kids);
	for (size_t i = 0; i < kids.len; i++)
		prune_node(r, kids.items[i], thr);
	for (size_t i = 0; i < g->len; i++) {
		refill_subtree(r, g->items[i], level);
		prune_node(r, g->items[i], thr);
	}
	vec_release(&kids);
}

/* Copy the counts of the subtrees of g from the filled state to pd2. */
static void clone_group(struct run *r, const struct pdom *from,
			const struct idvec *g)
{
	const struct topo *t = r->t;

	for (size_t i = 0; i < g->len; i++) {
		uint32_t lo = g->items[i], hi = lo + 1;

		for (unsigned l = topo_dom_level(t, lo);; l++) {
			memcpy(&r->pd[lo], &from[lo],
			       (hi - lo) * sizeof(*from));
			if (l == r->unit_level)
				break;
			lo = t->dom_child[lo];
			hi = t->dom_child[hi - 1] + t->dom_nchildren[hi - 1];
		}
	}
}

/* The domains greedy fitting looks at: the group, or its children when
 * the preferred level is above the slice level. */
static void lower_of(const struct run *r, const struct idvec *g,
		     struct idvec *out)
{
	out->len = 0;
	if (r->req_level < r->slice_level) {
		place_run_children(r, g->items, g->len, out);
		return;
	}
	for (size_t i = 0; i < g->len; i++)
		vec_push(out, g->items[i]);
}

struct best {
	struct idvec doms;
	int32_t thr;
	int32_t count; /* domains at the preferred level */
};

/* Try one group of siblings; keep it in *b when it beats b. */
static void try_group(struct run *r, const struct pdom *orig,
		      const struct idvec *g, struct best *b)
{
	int64_t slices = r->count / r->slice_size;
	struct idvec low = { NULL, 0, 0 };
	struct greedy_eval e, after;
	int32_t thr, thr_res;

	clone_group(r, orig, g);
	lower_of(r, g, &low);
	e = evaluate(r, low.items, low.len, slices, r->leader_count);
	if (!e.fits)
		goto out;
	thr = threshold_of(r, slices, &e);
	thr_res = thr;
	if (r->leader_count > 0 && e.last != DOM_NONE &&
	    r->pd[e.last].slice_wl < thr)
		thr_res = r->pd[e.last].slice_wl;
	if (thr < b->thr)
		goto out;
	prune_group(r, g, r->req_level, thr);
	after = evaluate(r, g->items, g->len, slices, r->leader_count);
	if (!after.fits && thr_res < thr) {
		if (thr_res <= 0 || thr_res < b->thr)
			goto out;
		thr = thr_res;
		clone_group(r, orig, g);
		prune_group(r, g, r->req_level, thr);
		after = evaluate(r, g->items, g->len, slices, r->leader_count);
	}
	if (!after.fits)
		goto out;
	if (thr > b->thr || (thr == b->thr && after.used < b->count)) {
		b->thr = thr;
		b->count = after.used;
		b->doms.len = 0;
		for (size_t i = 0; i < g->len; i++)
			vec_push(&b->doms, g->items[i]);
	}
out:
	vec_release(&low);
}

/* ---- selectOptimalDomainSetToFit ------------------------------------- */

struct dp_node {
	uint32_t dom;
	int64_t prev; /* index of the previous node, -1 at the start */
};

struct dp_entry {
	int32_t leaders;
	int64_t pods;
	int64_t node;
};

struct dp {
	VEC(struct dp_node) nodes;
	VEC(struct dp_entry) * lv; /* per number of domains used */
	struct hmap seen;	   /* "i,leaders,pods" */
};

static int entry_cmp(const void *a, const void *b)
{
	const struct dp_entry *x = a, *y = b;

	if (x->leaders != y->leaders)
		return x->leaders < y->leaders ? -1 : 1;
	return (x->pods > y->pods) - (x->pods < y->pods);
}

static void dp_put(struct dp *dp, int32_t i, int32_t leaders, int64_t pods,
		   uint32_t dom, int64_t prev)
{
	char key[64];
	int n = snprintf(key, sizeof(key), "%d,%d,%lld", i, leaders,
			 (long long)pods);

	if (!hmap_put(&dp->seen, key, (size_t)n, 0))
		return;
	vec_push(&dp->nodes, ((struct dp_node){ dom, prev }));
	vec_push(&dp->lv[i], ((struct dp_entry){ leaders, pods,
						 (int64_t)dp->nodes.len - 1 }));
}

static double entropy(const struct run *r, uint32_t d)
{
	const struct topo *t = r->t;
	uint32_t c0 = t->dom_child[d], c1 = c0 + t->dom_nchildren[d];
	double total = 0, h = 0;

	if (topo_dom_level(t, d) == r->unit_level)
		return 0;
	for (uint32_t c = c0; c < c1; c++)
		total += t->dom_live[c] ? r->pd[c].state : 0;
	for (uint32_t c = c0; total > 0 && c < c1; c++) {
		double p = t->dom_live[c] ? r->pd[c].state / total : 0;

		if (p > 0)
			h -= p * log2(p);
	}
	return h;
}

/* compareDomainCapacityAndEntropy. */
static int entropy_cmp(const void *pa, const void *pb, void *arg)
{
	const struct run *r = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	double ea, eb;

	if (r->pd[a].leader != r->pd[b].leader)
		return r->pd[a].leader > r->pd[b].leader ? -1 : 1;
	if (r->pd[a].slice_wl != r->pd[b].slice_wl)
		return r->pd[a].slice_wl > r->pd[b].slice_wl ? -1 : 1;
	ea = entropy(r, a);
	eb = entropy(r, b);
	if (ea != eb)
		return ea > eb ? -1 : 1;
	return (a > b) - (a < b);
}

static int id_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a > b) - (a < b);
}

static void dp_step(const struct run *r, struct dp *dp, uint32_t d, int32_t i)
{
	const struct pdom *p = &r->pd[d];
	size_t n = dp->lv[i - 1].len;
	struct dp_entry *es = xmalloc((n + 1) * sizeof(*es));

	if (!n) {
		free(es);
		return;
	}
	memcpy(es, dp->lv[i - 1].items, n * sizeof(*es));
	qsort(es, n, sizeof(*es), entry_cmp);
	for (size_t k = 0; k < n; k++) {
		if (es[k].leaders <= 0 && es[k].pods <= 0)
			continue;
		if (es[k].leaders > 0 && p->leader > 0)
			dp_put(dp, i, es[k].leaders - p->leader,
			       es[k].pods - p->state_wl, d, es[k].node);
		if (p->slice > 0)
			dp_put(dp, i, es[k].leaders, es[k].pods - p->state, d,
			       es[k].node);
	}
	free(es);
}

/*
 * The fewest domains (as many as greedy needs) of least total capacity
 * that hold the request; into out, in the order they were considered.
 * False when none.
 */
static bool optimal_set(const struct run *r, const struct idvec *g,
			int64_t slices, bool by_entropy, struct idvec *out)
{
	struct greedy_eval e =
		evaluate(r, g->items, g->len, slices, r->leader_count);
	uint32_t *ord;
	struct dp dp;
	int64_t best = -1, best_pods = INT64_MIN;

	out->len = 0;
	if (!e.fits)
		return false;
	ord = xmalloc((g->len + 1) * sizeof(*ord));
	if (g->len)
		memcpy(ord, g->items, g->len * sizeof(*ord));
	if (by_entropy)
		qsort_r(ord, g->len, sizeof(*ord), entropy_cmp, (void *)r);
	else
		qsort(ord, g->len, sizeof(*ord), id_cmp);
	memset(&dp, 0, sizeof(dp));
	hmap_init(&dp.seen);
	dp.lv = xcalloc((size_t)e.used + 1, sizeof(*dp.lv));
	vec_push(&dp.lv[0], ((struct dp_entry){ r->leader_count,
						slices * r->slice_size, -1 }));
	for (size_t k = 0; k < g->len; k++) {
		for (int32_t i = e.used; i > 0; i--)
			dp_step(r, &dp, ord[k], i);
	}
	vec_foreach (&dp.lv[e.used], en) {
		if (en->leaders == 0 && en->pods <= 0 && en->pods > best_pods) {
			best_pods = en->pods;
			best = en->node;
		}
	}
	for (int64_t k = best; k >= 0; k = dp.nodes.items[k].prev)
		vec_push(out, dp.nodes.items[k].dom);
	for (size_t a = 0, z = out->len; a + 1 < z; a++, z--)
		SWAP(out->items[a], out->items[z - 1]);
	for (int32_t i = 0; i <= e.used; i++)
		vec_release(&dp.lv[i]);
	free(dp.lv);
	vec_release(&dp.nodes);
	hmap_release(&dp.seen);
	free(ord);
	return best >= 0;
}

/* placeSlicesOnDomainsBalanced. */
static bool place_slices(struct run *r, struct idvec *doms, int64_t slices,
			 int32_t thr)
{
	struct idvec res = { NULL, 0, 0 };
	int64_t extra;
	int32_t leaders = r->leader_count;
	bool ok = false;

	if (!optimal_set(r, doms, slices, false, &res) ||
	    slices < (int64_t)res.len * thr)
		goto out;
	place_run_sort(r, res.items, res.len, true);
	extra = slices - (int64_t)res.len * thr;
	for (size_t i = 0; i < res.len; i++) {
		struct pdom *p = &r->pd[res.items[i]];
		int64_t take = 0;

		if (leaders > 0) {
			take = p->slice_wl - thr < extra ? p->slice_wl - thr
							 : extra;
			p->leader = 1;
			leaders--;
		} else {
			if (extra > 0)
				take = p->slice - thr < extra ? p->slice - thr
							      : extra;
			p->leader = 0;
		}
		p->slice = (int32_t)(thr + take);
		p->state = p->slice * r->slice_size;
		p->slice_wl = p->slice;
		p->state_wl = p->state - p->leader;
		extra -= take;
	}
	ok = extra <= 0 && leaders <= 0;
	doms->len = 0;
	for (size_t i = 0; ok && i < res.len; i++)
		vec_push(doms, res.items[i]);
out:
	vec_release(&res);
	return ok;
}

/* The groups of siblings at the preferred level, each tried in turn. */
static void find_best(struct run *r, const struct pdom *orig, struct best *b)
{
	const struct topo *t = r->t;
	unsigned l = r->req_level;
	struct idvec g = { NULL, 0, 0 };

	if (l == 0) {
		for (uint32_t d = t->level_off[0]; d < t->level_off[1]; d++) {
			if (t->dom_live[d])
				vec_push(&g, d);
		}
		try_group(r, orig, &g, b);
	}
	for (uint32_t p = t->level_off[l ? l - 1 : 0];
	     l > 0 && p < t->level_off[l]; p++) {
		if (!t->dom_live[p])
			continue;
		g.len = 0;
		place_run_children(r, &p, 1, &g);
		try_group(r, orig, &g, b);
	}
	vec_release(&g);
}

bool place_balanced(struct run *r, struct idvec *out, unsigned *ret_level)
{
	struct place_scratch *s = r->s;
	struct pdom *orig = r->pd;
	struct best b = { { NULL, 0, 0 }, 0, 0 };
	int64_t slices = r->count / r->slice_size;
	struct idvec cur = { NULL, 0, 0 };
	unsigned level = r->req_level;
	bool ok = false;

	if (!s->pd2)
		s->pd2 = xcalloc(s->cap, sizeof(*s->pd2));
	r->pd = s->pd2;
	find_best(r, orig, &b);
	if (b.thr <= 0)
		goto out;
	for (size_t i = 0; i < b.doms.len; i++)
		vec_push(&cur, b.doms.items[i]);
	if (r->req_level < r->slice_level) {
		struct idvec set = { NULL, 0, 0 };

		if (!optimal_set(r, &cur, slices, true, &set)) {
			vec_release(&set);
			goto out;
		}
		cur.len = 0;
		place_run_children(r, set.items, set.len, &cur);
		vec_release(&set);
		level++;
	}
	if (!place_slices(r, &cur, slices, b.thr))
		goto out;
	out->len = 0;
	for (size_t i = 0; i < cur.len; i++)
		vec_push(out, cur.items[i]);
	*ret_level = level;
	ok = true;
out:
	if (!ok)
		r->pd = orig;
	vec_release(&cur);
	vec_release(&b.doms);
	return ok;
}

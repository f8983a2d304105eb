// SPDX-License-Identifier: Apache-2.0
/*
 * Kueue's TAS placement algorithm over the topology index.
 *
 * Phase 1 computes, for every unit (leaf domain), how many pods fit and
 * whether the leader fits, and rolls the counts up the tree (pods, slices,
 * counts with the leader, leader capacity). Phase 2a picks the fit level and
 * its domains (one domain for required and preferred, climbing levels for
 * preferred, a greedy walk for the top level and unconstrained), and phase
 * 2b walks down level by level, handing each chosen domain's pods to its
 * children. Every sort key, tie-break, quirk and message follows
 * pkg/cache/scheduler/tas_flavor_snapshot.go (see the design page).
 *
 * Speed: the domains of one level are numbered in the order of their values
 * and their nodes are contiguous, so the tie-break on values is an integer
 * compare and a subtree is an id range. For required and preferred requests
 * a fast pass first bounds each domain at the requested level by its
 * aggregate free capacity (sum over units of min over resources), fills
 * only the subtrees that may hold the whole request and keeps the result
 * when one does: that result is the one the full pass would give, because
 * the pruned domains cannot fit and only a fitting domain is ever chosen.
 * Otherwise (no fit, climbing, greedy) the full pass runs over every unit.
 *
 * No level is sorted (Kueue sorts every domain of the fit level, for an
 * unconstrained request every host): place_select.c scans for a single
 * domain and selects the few the greedy walk takes. Affinity tiers keep
 * the sort (find_sorted()), and req->sorted keeps it for the tests.
 */
#include "place/place.h"
#include "place/place_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/label.h"
#include "model/selector.h"

#include "base/banned.h"

void place_request_init(struct place_request *req, const struct podset *ps)
{
	memset(req, 0, sizeof(*req));
	req->podset = ps;
	req->count = ps ? ps->count : 0;
	req->within = -1;
}

void place_result_init(struct place_result *res)
{
	memset(res, 0, sizeof(*res));
	strbuf_init(&res->reason);
	res->scratch = xcalloc(1, sizeof(*res->scratch));
}

static void clear_taint_stats(struct place_scratch *s)
{
	vec_foreach (&s->taints, ts)
		free(ts->text);
	s->taints.len = 0;
}

void place_result_release(struct place_result *res)
{
	struct place_scratch *s;

	if (!res)
		return;
	s = res->scratch;
	strbuf_release(&res->reason);
	vec_release(&res->workers);
	vec_release(&res->leader);
	vec_release(&res->worker_nodes);
	vec_release(&res->leader_nodes);
	if (s) {
		free(s->pd);
		free(s->pd2);
		free(s->ex);
		free(s->ex_seen);
		free(s->seen);
		vec_release(&s->a);
		vec_release(&s->b);
		vec_release(&s->c);
		vec_release(&s->by_unit);
		vec_release(&s->tols);
		clear_taint_stats(s);
		vec_release(&s->taints);
		free(s);
	}
	res->scratch = NULL;
}

size_t place_result_bytes(const struct place_result *res)
{
	const struct place_scratch *s = res->scratch;

	return sizeof(*s) + s->cap * (sizeof(*s->pd) + sizeof(*s->seen)) +
	       s->ex_cap * (sizeof(*s->ex) + sizeof(*s->ex_seen)) +
	       (s->a.cap + s->b.cap + s->c.cap) * sizeof(uint32_t) +
	       (res->workers.cap + res->leader.cap) *
		       sizeof(struct place_assign) +
	       (res->worker_nodes.cap + res->leader_nodes.cap) *
		       sizeof(uint32_t);
}

unsigned place_first_level(const struct topo *t)
{
	return t->hostname_lowest ? (unsigned)t->nlevels - 1 : 0;
}

/* ---- Phase 1: counts ------------------------------------------------- */

static int32_t clamp32(int64_t v)
{
	if (v < 0)
		return 0;
	return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/*
 * Kueue's CountInWithLimitingResource: how many times req fits in cap,
 * and the limiting resource (ties by name; -1 when nothing is requested).
 */
static int32_t count_in(const struct run *r, const int64_t *req,
			const int64_t *cap, int *ret_limiting)
{
	int32_t best = INT32_MAX;
	int lim = -1;

	for (int i = 0; i < r->nreq; i++) {
		int id = r->req_ids[i];
		int64_t c = id < r->t->nres ? cap[id] : 0;
		int32_t n;

		if (!req[id])
			continue;
		n = clamp32(c / req[id]);
		if (lim < 0 || n < best) {
			best = n;
			lim = id;
		}
	}
	if (ret_limiting)
		*ret_limiting = lim;
	return lim < 0 ? 0 : best;
}

static void count_taint(struct run *r, const struct taint *tn)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addstr(&sb, tn->key);
	if (tn->value && tn->value[0])
		strbuf_addf(&sb, "=%s", tn->value);
	strbuf_addf(&sb, ":%s", taint_effect_name(tn->effect));
	vec_foreach (&r->s->taints, ts) {
		if (strcmp(ts->text, sb.buf) == 0) {
			ts->n++;
			strbuf_release(&sb);
			return;
		}
	}
	vec_push(&r->s->taints, ((struct taint_stat){ xstrdup(sb.buf), 1 }));
	strbuf_release(&sb);
}

/* FindFeasibleNodes on the unit's node: false when it is filtered out. */
static bool unit_passes(struct run *r, uint32_t u)
{
	const struct podset *ps = r->req->podset;
	const struct node *n = r->t->node_src[r->t->dom_node[u]];
	const struct taint *tn;

	tn = taint_find_untolerated(n->taints, n->ntaints, r->s->tols.items,
				    r->s->tols.len);
	if (tn) {
		if (r->stats)
			count_taint(r, tn);
		return false;
	}
	if (!labels_contains_all(&n->labels, &ps->node_selector)) {
		r->n_selector += r->stats;
		return false;
	}
	if (!node_affinity_matches(&ps->affinity, &n->labels)) {
		r->n_affinity += r->stats;
		return false;
	}
	return true;
}

static bool in_domain(const struct run *r, uint32_t u)
{
	int64_t w = r->req->within;

	if (w < 0)
		return true;
	for (uint32_t d = u; d != DOM_NONE; d = r->t->dom_parent[d]) {
		if (d == (uint32_t)w)
			return true;
	}
	return false;
}

/*
 * Pods of the worker request that fit in cap, as count_in() computes them
 * but mostly without dividing: once a count k is known, a resource with
 * k * request <= free cannot lower it.
 */
static int32_t fast_count(const struct run *r, const int64_t *cap)
{
	int64_t k = INT64_MAX;

	if (r->missing || !r->nfast)
		return 0;
	for (int i = 0; i < r->nfast; i++) {
		int id = r->fast_ids[i];
		int64_t q = r->wreq[id], f = cap[id], m, c;

		if (f <= 0)
			return 0;
		if (k != INT64_MAX && !__builtin_mul_overflow(k, q, &m) &&
		    m <= f)
			continue;
		c = q == 1 ? f : f / q;
		k = c < k ? c : k;
	}
	return clamp32(k);
}

/* Sum of the weights of the preferred terms the unit's node matches. */
static int64_t affinity_score(const struct run *r, uint32_t u)
{
	const struct podset *ps = r->req->podset;
	const struct node *n = r->t->node_src[r->t->dom_node[u]];
	int64_t score = 0;

	for (size_t i = 0; i < ps->npreferred; i++) {
		if (selector_matches(&ps->preferred[i].match, &n->labels))
			score += ps->preferred[i].weight;
	}
	return score;
}

/* fillLeafCounts for one live unit (exclusions are counted apart). */
static void fill_unit(struct run *r, uint32_t u)
{
	const struct topo *t = r->t;
	struct pdom *p = &r->pd[u];
	const int64_t *cap = &t->dom_free[(size_t)u * t->nres];
	int64_t rem[RESOURCE_MAX];

	memset(p, 0, sizeof(*p));
	if (r->filters && (r->need_filter || t->dom_tainted[u]) &&
	    !unit_passes(r, u))
		return;
	if (r->req->within >= 0 && !in_domain(r, u))
		return;
	if (r->aff)
		p->aff = affinity_score(r, u);
	p->state = fast_count(r, cap);
	p->state_wl = p->state;
	if (r->has_leader) {
		memcpy(rem, cap, (size_t)t->nres * sizeof(int64_t));
		if (count_in(r, r->lreq, rem, NULL) > 0) {
			p->leader = 1;
			for (int i = 0; i < t->nres; i++)
				rem[i] -= r->lreq[i];
		}
		p->state_wl = count_in(r, r->wreq, rem, NULL);
	}
	if (r->unit_level == r->slice_level) {
		p->slice = r->slice_size == 1 ? p->state
					      : p->state / r->slice_size;
		p->slice_wl = r->slice_size == 1 ? p->state_wl
						 : p->state_wl / r->slice_size;
	}
}

/* fillInCountsHelper for a parent whose children are filled. */
void place_run_fill_parent(struct run *r, uint32_t d, unsigned level)
{
	const struct topo *t = r->t;
	struct pdom *p = &r->pd[d];
	int32_t inner = r->size_at[level + 1];
	int64_t cap = 0, scap = 0, mind = INT64_MAX, minsd = INT64_MAX;
	int64_t swl = 0, aff = 0;
	int32_t leader = 0;
	bool has = false;
	uint32_t c0 = t->dom_child[d], c1 = c0 + t->dom_nchildren[d];

	for (uint32_t c = c0; c < c1; c++) {
		const struct pdom *q = &r->pd[c];
		int64_t cs = q->state, cwl = q->state_wl;

		if (!t->dom_live[c])
			continue;
		if (inner) {
			cs = cs / inner * inner;
			cwl = cwl / inner * inner;
		}
		cap += cs;
		scap += q->slice;
		if (!r->has_leader || q->leader > 0) {
			has = true;
			mind = cs - cwl < mind ? cs - cwl : mind;
			minsd = q->slice - q->slice_wl < minsd
					? q->slice - q->slice_wl
					: minsd;
		}
		leader = q->leader > leader ? q->leader : leader;
		aff += q->aff;
	}
	p->state = clamp32(cap);
	p->state_wl = has ? clamp32(cap - mind) : 0;
	swl = has ? scap - minsd : 0;
	p->leader = leader;
	p->aff = aff;
	if (level == r->slice_level) {
		scap = p->state / r->slice_size;
		swl = p->state_wl / r->slice_size;
	}
	p->slice = clamp32(scap);
	p->slice_wl = clamp32(swl);
}

/* Ids [*lo, *hi) at level `to` below the domains [*lo, *hi) at `from`. */
static void range_down(const struct topo *t, unsigned from, unsigned to,
		       uint32_t *lo, uint32_t *hi)
{
	for (unsigned l = from; l < to; l++) {
		uint32_t last = *hi - 1;

		*lo = t->dom_child[*lo];
		*hi = t->dom_child[last] + t->dom_nchildren[last];
	}
}

static bool cached(const struct run *r, uint32_t d)
{
	return r->use_cache && r->s->seen[d] == r->t->dom_version[d];
}

static void mark(struct run *r, uint32_t d)
{
	r->s->seen[d] = r->t->dom_version[d];
}

/*
 * Phase 2 rewrites the counts of the domains it walks: forget them and
 * their ancestors. A filled domain's subtree is always filled (marks go
 * bottom-up), so the walk stops at the first domain already forgotten.
 */
static void touch(struct run *r, uint32_t d)
{
	for (; d != DOM_NONE && r->s->seen[d] != SEEN_NONE;
	     d = r->t->dom_parent[d])
		r->s->seen[d] = SEEN_NONE;
}

/*
 * fill_unit() for the units [c0, c1) in the common case (no leader, no
 * affinity, no replacement domain, no selector or affinity to check): a
 * tight loop; units with a hard taint still go through fill_unit().
 */
static void fill_units_simple(struct run *r, uint32_t c0, uint32_t c1)
{
	const struct topo *t = r->t;
	const int64_t *fr = t->dom_free;
	size_t nr = (size_t)t->nres;
	bool at_slice = r->unit_level == r->slice_level;
	int32_t ss = r->slice_size;

	for (uint32_t c = c0; c < c1; c++) {
		struct pdom *p = &r->pd[c];
		int32_t k;

		if (!t->dom_live[c] || cached(r, c))
			continue;
		if (r->filters && t->dom_tainted[c]) {
			fill_unit(r, c);
			mark(r, c);
			continue;
		}
		k = fast_count(r, fr + c * nr);
		p->state = p->state_wl = k;
		p->slice = p->slice_wl = at_slice ? (ss == 1 ? k : k / ss) : 0;
		p->leader = 0;
		p->aff = 0;
		mark(r, c);
	}
}

/* Fill the subtree of d (at `level`), reusing subtrees unchanged since. */
static void fill_dom(struct run *r, uint32_t d, unsigned level)
{
	const struct topo *t = r->t;
	uint32_t c0, c1;

	if (cached(r, d))
		return;
	if (level == r->unit_level) {
		fill_unit(r, d);
		mark(r, d);
		return;
	}
	c0 = t->dom_child[d];
	c1 = c0 + t->dom_nchildren[d];
	if (level + 1 == r->unit_level && r->simple) {
		fill_units_simple(r, c0, c1);
		c1 = c0; /* done */
	}
	for (uint32_t c = c0; c < c1; c++) {
		if (!t->dom_live[c] || cached(r, c))
			continue;
		if (level + 1 == r->unit_level) {
			fill_unit(r, c);
			mark(r, c);
		} else {
			fill_dom(r, c, level + 1);
		}
	}
	place_run_fill_parent(r, d, level);
	mark(r, d);
}

static void fill_all(struct run *r)
{
	const struct topo *t = r->t;

	for (uint32_t d = t->level_off[0]; d < t->level_off[1]; d++) {
		if (t->dom_live[d])
			fill_dom(r, d, 0);
	}
}

/* ---- Messages ---------------------------------------------------------- */

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

/* ". Total nodes: T; excluded: a, b" when anything was excluded. */
static void add_exclusions(const struct run *r, struct strbuf *out)
{
	char *items[RESOURCE_MAX + 3 + 64];
	size_t n = 0;
	struct strbuf sb;

	strbuf_init(&sb);
	if (r->n_selector)
		items[n++] = xasprintf("nodeSelector: %" PRIu32, r->n_selector);
	if (r->n_affinity)
		items[n++] = xasprintf("affinity: %" PRIu32, r->n_affinity);
	if (r->n_domain)
		items[n++] = xasprintf("topologyDomain: %" PRIu32, r->n_domain);
	for (size_t i = 0; i < r->s->taints.len && n < ARRAY_SIZE(items); i++) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "taint ");
		add_quoted(&sb, r->s->taints.items[i].text);
		strbuf_addf(&sb, ": %" PRIu32, r->s->taints.items[i].n);
		items[n++] = xstrdup(sb.buf);
	}
	for (int i = 0; i < RESOURCE_MAX && n < ARRAY_SIZE(items); i++) {
		if (!r->n_res[i])
			continue;
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "resource ");
		add_quoted(&sb, resource_name(r->t->reg, i));
		strbuf_addf(&sb, ": %" PRIu32, r->n_res[i]);
		items[n++] = xstrdup(sb.buf);
	}
	strbuf_release(&sb);
	if (!n)
		return;
	qsort(items, n, sizeof(items[0]), strp_cmp);
	strbuf_addf(out, ". Total nodes: %" PRIu32 "; excluded: ", r->total);
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(out, i ? ", " : "");
		strbuf_addstr(out, items[i]);
		free(items[i]);
	}
}

static void not_fit(struct run *r, struct place_result *res, int32_t fit,
		    int32_t total)
{
	const char *unit = r->slice_size == 1 ? "pod" : "slice";

	strbuf_addstr(&res->reason, "topology ");
	add_quoted(&res->reason, r->t->topology->name);
	if (fit == 0)
		strbuf_addf(&res->reason,
			    " doesn't allow to fit any of %" PRId32 " %s(s)",
			    total, unit);
	else
		strbuf_addf(&res->reason,
			    " allows to fit only %" PRId32 " out of %" PRId32
			    " %s(s)",
			    fit, total, unit);
	add_exclusions(r, &res->reason);
}

/* Slices of `size` that fit in the subtree of d down to `target`. */
static int64_t subtree_slices(const struct run *r, uint32_t d, unsigned level,
			      unsigned target, int32_t size)
{
	const struct topo *t = r->t;
	uint32_t lo = d, hi = d + 1;
	int64_t n = 0;

	if (level > target)
		return 0;
	range_down(t, level, target, &lo, &hi);
	for (uint32_t c = lo; c < hi; c++) {
		if (t->dom_live[c])
			n += r->pd[c].state / size;
	}
	return n;
}

static void multi_layer_not_fit(struct run *r, struct place_result *res,
				unsigned level)
{
	const struct topo *t = r->t;
	uint32_t best = DOM_NONE;

	strbuf_addstr(&res->reason, "topology ");
	add_quoted(&res->reason, t->topology->name);
	strbuf_addstr(&res->reason, " doesn't allow to fit");
	for (uint32_t d = t->level_off[level]; d < t->level_off[level + 1];
	     d++) {
		if (t->dom_live[d] &&
		    (best == DOM_NONE || r->pd[d].slice > r->pd[best].slice))
			best = d;
	}
	if (best == DOM_NONE)
		return;
	for (size_t i = 0; i < r->nlayers; i++) {
		int l = topology_level_index(t->topology, r->layers[i].level);

		if (l < 0)
			continue;
		strbuf_addf(&res->reason,
			    "; %" PRId64 "/%" PRId32
			    " slice(s) fit on level %s",
			    subtree_slices(r, best, level, (unsigned)l,
					   r->layers[i].size),
			    r->count / r->layers[i].size, r->layers[i].level);
	}
	add_exclusions(r, &res->reason);
}

/* ---- Phase 2a: the fit level and its domains ----------------------------- */

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* sortedDomainsWithLeader / sortedDomains. */
int place_run_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_arg *sa = arg;
	const struct run *r = sa->r;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct pdom *a = &r->pd[ia], *b = &r->pd[ib];
	int c;

	if (sa->with_leader && a->leader != b->leader)
		return cmp_i64(b->leader, a->leader);
	if (r->aff && a->aff != b->aff)
		return cmp_i64(b->aff, a->aff);
	if (sa->with_leader) {
		if (a->slice_wl != b->slice_wl)
			return r->lfc ? cmp_i64(a->slice_wl, b->slice_wl)
				      : cmp_i64(b->slice_wl, a->slice_wl);
		if ((c = cmp_i64(a->state_wl, b->state_wl)))
			return c;
	} else {
		if (a->slice != b->slice)
			return r->lfc ? cmp_i64(a->slice, b->slice)
				      : cmp_i64(b->slice, a->slice);
		if ((c = cmp_i64(a->state, b->state)))
			return c;
	}
	return cmp_i64(ia, ib);
}

void place_run_sort(const struct run *r, uint32_t *ids, size_t n,
		    bool with_leader)
{
	struct sort_arg sa = { r, with_leader };

	if (n < 2)
		return;
	qsort_r(ids, n, sizeof(*ids), place_run_cmp, &sa);
}

enum field { F_STATE, F_STATE_WL, F_SLICE, F_SLICE_WL };

static int32_t field(const struct pdom *p, enum field f)
{
	switch (f) {
	case F_STATE:
		return p->state;
	case F_STATE_WL:
		return p->state_wl;
	case F_SLICE:
		return p->slice;
	default:
		return p->slice_wl;
	}
}

/* findBestFitDomainBy: the first domain with the least f >= needed, else
 * the first domain; only the top affinity tier is looked at. */
static uint32_t best_fit_by(const struct run *r, const uint32_t *ids, size_t n,
			    int64_t needed, enum field f)
{
	uint32_t best = ids[0];
	int32_t bs = field(&r->pd[best], f);

	for (size_t i = 0; i < n; i++) {
		int32_t s = field(&r->pd[ids[i]], f);

		if (r->aff && r->pd[ids[i]].aff != r->pd[ids[0]].aff)
			break;
		if (s >= needed && s < bs) {
			best = ids[i];
			bs = s;
		}
	}
	return best;
}

/*
 * FragmentationAware in place of findBestFitDomainBy: among the domains
 * with f >= needed (ids[0] is one), the best under place_frag_key_cmp() for
 * `pods` pods, then BestFit's least f, then the first.
 */
static uint32_t frag_fit_by(const struct run *r, const uint32_t *ids, size_t n,
			    int64_t needed, enum field f, int64_t pods)
{
	uint32_t best = ids[0];
	int32_t bs = field(&r->pd[best], f);
	struct frag_key bk, k;

	place_frag_key(r, best, pods, &bk);
	for (size_t i = 1; i < n; i++) {
		int32_t s = field(&r->pd[ids[i]], f);
		int c;

		if (r->aff && r->pd[ids[i]].aff != r->pd[ids[0]].aff)
			break;
		if (s < needed)
			continue;
		place_frag_key(r, ids[i], pods, &k);
		c = place_frag_key_cmp(&k, &bk);
		if (c < 0 || (c == 0 && s < bs)) {
			best = ids[i];
			bs = s;
			bk = k;
		}
	}
	return best;
}

/* unit: pods per slice when slices (for the FragmentationAware choice). */
static uint32_t best_fit(const struct run *r, const uint32_t *ids, size_t n,
			 int64_t needed, int32_t leaders, bool slices,
			 int32_t unit)
{
	enum field f;

	if (slices)
		f = leaders > 0 ? F_SLICE_WL : F_SLICE;
	else
		f = leaders > 0 ? F_STATE_WL : F_STATE;
	if (r->frag)
		return frag_fit_by(r, ids, n, needed, f,
				   slices ? needed * unit : needed);
	return best_fit_by(r, ids, n, needed, f);
}

/* The live domains of a level, into v. */
static void level_doms(const struct run *r, unsigned level, struct idvec *v)
{
	const struct topo *t = r->t;

	v->len = 0;
	for (uint32_t d = t->level_off[level]; d < t->level_off[level + 1];
	     d++) {
		if (t->dom_live[d])
			vec_push(v, d);
	}
}

/* Record a "does not fit"; the text is made once the stats are known. */
static bool fail_at(struct run *r, struct place_result *res, unsigned level,
		    int32_t fit, int32_t total)
{
	(void)res;
	r->failed = true;
	r->fail_level = level;
	r->fail_fit = fit;
	r->fail_total = total;
	return false;
}

/*
 * The exclusion stats of Kueue's message: every live unit counted, then
 * the first filter that drops it, else the limiting resource when no pod
 * fits. Runs after fill_all(), so units with pods are skipped at once.
 */
/*
 * Kueue's vector CountIn returns no limiting resource when the capacity is
 * empty (every remaining value exactly 0), so such a unit is not counted
 * as a resource exclusion.
 */
static bool all_zero(const struct topo *t, uint32_t u)
{
	for (int i = 0; i < t->nres; i++) {
		if (t->dom_free[(size_t)u * t->nres + i])
			return false;
	}
	return true;
}

/* One unit's part of the stats (taints go to the scratch's list). */
static void unit_exclusions(struct run *r, uint32_t u, struct excl *e)
{
	const struct topo *t = r->t;
	int lim;

	e->total++;
	/* fill_all() ran: a unit where pods fit excludes nothing */
	if (r->pd[u].state > 0)
		return;
	r->n_selector = r->n_affinity = 0;
	if (r->filters && (r->need_filter || t->dom_tainted[u]) &&
	    !unit_passes(r, u)) {
		e->selector += r->n_selector;
		e->affinity += r->n_affinity;
		return;
	}
	if (r->req->within >= 0 && !in_domain(r, u)) {
		e->domain++;
		return;
	}
	if (fast_count(r, &t->dom_free[(size_t)u * t->nres]) > 0 ||
	    all_zero(t, u))
		return;
	count_in(r, r->wreq, &t->dom_free[(size_t)u * t->nres], &lim);
	if (lim >= 0)
		e->res[lim]++;
}

static void excl_add(struct excl *a, const struct excl *b)
{
	a->total += b->total;
	a->selector += b->selector;
	a->affinity += b->affinity;
	a->domain += b->domain;
	for (int i = 0; i < RESOURCE_MAX; i++)
		a->res[i] += b->res[i];
}

/*
 * The stats of d's subtree into e. A subtree without tainted nodes keeps
 * its stats in the scratch until its version moves (taint exclusions are
 * a list by taint, so tainted subtrees are always recounted).
 */
static void dom_exclusions(struct run *r, uint32_t d, unsigned level,
			   struct excl *e)
{
	const struct topo *t = r->t;
	struct place_scratch *s = r->s;
	struct excl mine;
	uint32_t c0, c1;
	bool keep = !t->dom_tainted[d];

	if (level == r->unit_level) {
		unit_exclusions(r, d, e);
		return;
	}
	if (keep && r->use_cache && s->ex_seen[d] == t->dom_version[d]) {
		excl_add(e, &s->ex[d]);
		return;
	}
	memset(&mine, 0, sizeof(mine));
	c0 = t->dom_child[d];
	c1 = c0 + t->dom_nchildren[d];
	for (uint32_t c = c0; c < c1; c++) {
		if (t->dom_live[c])
			dom_exclusions(r, c, level + 1, &mine);
	}
	if (keep) {
		s->ex[d] = mine;
		s->ex_seen[d] = t->dom_version[d];
	}
	excl_add(e, &mine);
}

/*
 * The exclusion stats of Kueue's message: every live unit counted, then
 * the first filter that drops it, else the limiting resource when no pod
 * fits. Runs after fill_all(), so units with pods are skipped at once.
 */
static void count_exclusions(struct run *r)
{
	const struct topo *t = r->t;
	struct excl e;

	memset(&e, 0, sizeof(e));
	r->stats = true;
	for (uint32_t d = t->level_off[0]; d < t->level_off[1]; d++) {
		if (t->dom_live[d])
			dom_exclusions(r, d, 0, &e);
	}
	r->total = e.total;
	r->n_selector = e.selector;
	r->n_affinity = e.affinity;
	r->n_domain = e.domain;
	memcpy(r->n_res, e.res, sizeof(r->n_res));
}

static void fail_message(struct run *r, struct place_result *res)
{
	count_exclusions(r);
	if (r->nlayers > 1)
		multi_layer_not_fit(r, res, r->fail_level);
	else
		not_fit(r, res, r->fail_fit, r->fail_total);
}

/* The greedy walk over several domains of one level (sorted in ids). */
static bool greedy(struct run *r, struct place_result *res, unsigned level,
		   uint32_t *ids, size_t n, struct idvec *out)
{
	int64_t slices = r->count / r->slice_size, rem = slices;
	int64_t reml = r->leader_count;
	size_t idx = 0;

	for (; reml > 0 && idx < n && r->pd[ids[idx]].leader > 0; idx++) {
		uint32_t d = ids[idx];

		if (!r->lfc && r->pd[d].slice_wl >= rem)
			d = best_fit(r, ids + idx, n - idx, rem, (int32_t)reml,
				     true, r->slice_size);
		vec_push(out, d);
		reml -= r->pd[d].leader;
		rem -= r->pd[d].slice_wl;
	}
	if (reml > 0)
		return fail_at(r, res, level, (int32_t)(r->leader_count - reml),
			       (int32_t)slices);
	place_run_sort(r, ids + idx, n - idx, false);
	for (size_t i = idx; rem > 0 && i < n; i++) {
		uint32_t d = ids[i];

		if (!r->lfc && r->pd[d].slice >= rem)
			d = best_fit(r, ids + i, n - i, rem, 0, true,
				     r->slice_size);
		vec_push(out, d);
		rem -= r->pd[d].slice;
	}
	if (rem > 0)
		return fail_at(r, res, level, (int32_t)(slices - rem),
			       (int32_t)slices);
	return true;
}

/* Whether the domain that a required request would pick can hold it. */
static bool fits_anywhere(const struct run *r, const struct idvec *ids,
			  int64_t slices)
{
	struct sort_arg sa = { r, true };
	uint32_t top = ids->items[0];

	for (size_t i = 0; i < ids->len; i++) {
		const struct pdom *p = &r->pd[ids->items[i]];

		if (r->lfc && p->slice >= slices)
			return true;
		if (place_run_cmp(&ids->items[i], &top, &sa) < 0)
			top = ids->items[i];
	}
	return !r->lfc && r->pd[top].slice_wl >= slices &&
	       r->pd[top].leader >= r->leader_count;
}

/* The count a required failure reports: the first domain's slices
 * (BestFit) or the last one's pods (LeastFreeCapacity), in sort order. */
static int32_t failed_count(const struct run *r, const struct idvec *ids)
{
	struct sort_arg sa = { r, true };
	uint32_t pick = ids->items[0];

	for (size_t i = 1; i < ids->len; i++) {
		int c = place_run_cmp(&ids->items[i], &pick, &sa);

		if (r->lfc ? c > 0 : c < 0)
			pick = ids->items[i];
	}
	return r->lfc ? r->pd[pick].state : r->pd[pick].slice;
}

static bool find_level(struct run *r, struct place_result *res, unsigned level,
		       struct idvec *ids, struct idvec *out);

/*
 * find_level() once place_select_one() found no single domain (no
 * affinity tiers), as find_sorted() goes on, with scans for the sort:
 * required fails, preferred climbs a level, the rest is the greedy walk.
 * top does not hold the request (else it had been chosen); a required
 * LeastFreeCapacity request that fails never gets here, as
 * fits_anywhere() decided it.
 */
static bool no_single(struct run *r, struct place_result *res, unsigned level,
		      struct idvec *ids, struct idvec *out)
{
	int64_t slices = r->count / r->slice_size;
	uint32_t first, top;
	int32_t fit;

	top = place_select_top(r, ids, &first);
	if (r->required)
		return fail_at(r, res, level, r->pd[top].slice,
			       (int32_t)slices);
	if (level > 0 && !r->unconstrained)
		return find_level(r, res, level - 1, ids, out);
	res->level = level;
	switch (place_select_greedy(r, ids, first, out, &fit)) {
	case WALK_DONE:
		return true;
	case WALK_SHORT:
		return fail_at(r, res, level, fit, (int32_t)slices);
	default:
		place_run_sort(r, ids->items, ids->len, true);
		return greedy(r, res, level, ids->items, ids->len, out);
	}
}

/* findLevelWithFitDomains on the sorted level (ids, all live domains). */
static bool find_sorted(struct run *r, struct place_result *res, unsigned level,
			struct idvec *ids, struct idvec *out)
{
	int64_t slices = r->count / r->slice_size;
	uint32_t top;

	place_run_sort(r, ids->items, ids->len, true);
	top = ids->items[0];
	if (!r->lfc && place_run_holds(r, top, slices))
		top = best_fit(r, ids->items, ids->len, slices, r->leader_count,
			       true, r->slice_size);
	if (r->lfc) {
		for (size_t i = 0; i < ids->len; i++) {
			if (r->pd[ids->items[i]].slice >= slices) {
				vec_push(out, ids->items[i]);
				res->level = level;
				return true;
			}
		}
		if (r->required)
			return fail_at(r, res, level,
				       r->pd[vec_last(ids)[0]].state,
				       (int32_t)slices);
	}
	if (place_run_holds(r, top, slices)) {
		vec_push(out, top);
		res->level = level;
		return true;
	}
	if (r->required && r->aff) {
		/* a lower affinity tier may still hold it */
		for (size_t i = 1; i < ids->len; i++) {
			if (!place_run_holds(r, ids->items[i], slices))
				continue;
			vec_push(out, best_fit(r, ids->items + i, ids->len - i,
					       slices, r->leader_count, true,
					       r->slice_size));
			res->level = level;
			return true;
		}
	}
	if (r->required)
		return fail_at(r, res, level, r->pd[top].slice,
			       (int32_t)slices);
	if (level > 0 && !r->unconstrained)
		return find_level(r, res, level - 1, ids, out);
	res->level = level;
	return greedy(r, res, level, ids->items, ids->len, out);
}

/*
 * findLevelWithFitDomains: the chosen domains of `level` (or of a level
 * above, climbing) go to out; ids is scratch. Kueue sorts the level; here
 * one scan finds a single fitting domain, and only the greedy walk looks
 * further, at no more domains than it takes. Affinity tiers (and the
 * tests' reference, req->sorted) take the sort.
 */
static bool find_level(struct run *r, struct place_result *res, unsigned level,
		       struct idvec *ids, struct idvec *out)
{
	const struct topo *t = r->t;
	int64_t slices = r->count / r->slice_size;
	bool scan = !r->aff && !r->req->sorted;

	if (scan) {
		uint32_t d = place_select_one(r, level, NULL, 0);

		if (d != DOM_NONE) {
			vec_push(out, d);
			res->level = level;
			return true;
		}
	}
	level_doms(r, level, ids);
	if (!ids->len) {
		strbuf_addf(&res->reason, "no topology domains at level: %s",
			    t->topology->levels[level]);
		return false;
	}
	if (r->required && !r->aff && !fits_anywhere(r, ids, slices))
		return fail_at(r, res, level, failed_count(r, ids),
			       (int32_t)slices);
	if (scan)
		return no_single(r, res, level, ids, out);
	return find_sorted(r, res, level, ids, out);
}

/* ---- Phase 2b: down to the units --------------------------------------- */

/*
 * consumeWithLeadersGeneric. wl and pr name the fields (with leader,
 * primary) of the domain in use; unit is 1 for pods or the slice size.
 * Returns the domain used; *done when the request is complete.
 */
static uint32_t consume(struct run *r, uint32_t d, const uint32_t *rest,
			size_t nrest, int64_t *remp, int64_t *reml, bool slices,
			int32_t unit, bool *done)
{
	struct pdom *p = &r->pd[d];
	int32_t *wl = slices ? &p->slice_wl : &p->state_wl;
	int32_t *pr = slices ? &p->slice : &p->state;

	if (!r->lfc && *wl >= *remp && p->leader >= *reml) {
		d = best_fit(r, rest, nrest, *remp, (int32_t)*reml, slices,
			     unit);
		p = &r->pd[d];
		wl = slices ? &p->slice_wl : &p->state_wl;
		pr = slices ? &p->slice : &p->state;
	}
	*done = false;
	if (*wl >= *remp && p->leader >= *reml) {
		*pr = (int32_t)*remp;
		p->leader = (int32_t)*reml;
		p->state = (int32_t)(*remp * unit);
		*done = true;
		return d;
	}
	if (slices) {
		if (*wl > *remp)
			*wl = (int32_t)*remp;
		if (p->leader > *reml)
			p->leader = (int32_t)*reml;
		p->state = *wl * unit;
		*reml -= p->leader;
		*remp -= *wl;
		return d;
	}
	*remp -= *wl;
	*reml -= p->leader;
	if (*wl > *remp)
		*wl = (int32_t)*remp;
	if (p->leader > *reml)
		p->leader = (int32_t)*reml;
	return d;
}

/*
 * updateCountsToMinimumGeneric: hand count pods (count / unit slices when
 * slices) to the sorted domains, whole domains first, the last one
 * trimmed. Appends the domains used to out; on running out of domains
 * (which Kueue logs as a violated assumption) out gets nothing.
 */
static void take_counts(struct run *r, const uint32_t *ids, size_t n,
			int32_t count, int32_t leaders, int32_t unit,
			bool slices, struct idvec *out)
{
	size_t start = out->len;
	int64_t remp = slices ? count / unit : count, reml = leaders;

	for (size_t i = 0; i < n; i++) {
		uint32_t d = ids[i];
		struct pdom *p;
		bool done;

		if (reml > 0) {
			d = consume(r, d, ids + i, n - i, &remp, &reml, slices,
				    unit, &done);
			touch(r, d);
			vec_push(out, d);
			if (done)
				return;
			continue;
		}
		p = &r->pd[d];
		if (!r->lfc && (slices ? p->slice : p->state) >= remp) {
			d = best_fit(r, ids + i, n - i, remp, 0, slices, unit);
			p = &r->pd[d];
		}
		p->leader = 0;
		touch(r, d);
		vec_push(out, d);
		if (slices) {
			if (p->slice >= remp) {
				p->state = (int32_t)(remp * unit);
				p->slice = (int32_t)remp;
				return;
			}
			p->state = p->slice * unit;
			remp -= p->slice;
			continue;
		}
		if (p->state >= remp) {
			p->state = (int32_t)remp;
			return;
		}
		remp -= p->state;
	}
	out->len = start;
}

/* The live children of the domains in `from`, appended to `to`. */
void place_run_children(const struct run *r, const uint32_t *from, size_t n,
			struct idvec *to)
{
	const struct topo *t = r->t;

	for (size_t i = 0; i < n; i++) {
		uint32_t c0 = t->dom_child[from[i]];
		uint32_t c1 = c0 + t->dom_nchildren[from[i]];

		for (uint32_t c = c0; c < c1; c++) {
			if (t->dom_live[c])
				vec_push(to, c);
		}
	}
}

/* Phase 2b from the fit level; cur holds the fit-level domains on entry
 * and the units on return. */
static void descend(struct run *r, unsigned level, struct idvec *cur,
		    struct idvec *tmp, bool balanced)
{
	unsigned stop =
		r->slice_level < r->unit_level ? r->slice_level : r->unit_level;

	if (balanced)
		stop = level; /* each parent's own children from here */
	tmp->len = 0;
	take_counts(r, cur->items, cur->len, r->count, r->leader_count,
		    r->slice_size, true, tmp);
	SWAP(*cur, *tmp);
	for (; level < stop; level++) {
		tmp->len = 0;
		place_run_children(r, cur->items, cur->len, tmp);
		place_run_sort(r, tmp->items, tmp->len, false);
		cur->len = 0;
		take_counts(r, tmp->items, tmp->len, r->count, r->leader_count,
			    r->slice_size, true, cur);
	}
	for (; level < r->unit_level; level++) {
		int32_t unit = r->slice_size;
		struct idvec *kids = &r->s->c;

		if (level >= r->slice_level)
			unit = r->size_at[level + 1] ? r->size_at[level + 1]
						     : 1;
		tmp->len = 0;
		for (size_t i = 0; i < cur->len; i++) {
			uint32_t d = cur->items[i];

			kids->len = 0;
			place_run_children(r, &d, 1, kids);
			place_run_sort(r, kids->items, kids->len, false);
			for (size_t k = 0; unit > 1 && k < kids->len; k++) {
				struct pdom *q = &r->pd[kids->items[k]];

				touch(r, kids->items[k]);
				q->slice = q->state / unit;
				q->slice_wl = q->state_wl / unit;
			}
			take_counts(r, kids->items, kids->len, r->pd[d].state,
				    r->pd[d].leader, unit, unit > 1, tmp);
		}
		SWAP(*cur, *tmp);
	}
}

static void scratch_fit(struct place_scratch *s, const struct topo *t)
{
	if (s->cap < t->ndomains + 1) {
		free(s->pd);
		free(s->pd2);
		s->pd2 = NULL;
		free(s->seen);
		free(s->ex);
		free(s->ex_seen);
		/* only domains above the units keep stats */
		s->ex_cap = t->level_off[t->nlevels - 1] + 1;
		s->ex = xcalloc(s->ex_cap, sizeof(*s->ex));
		s->ex_seen = xmalloc(s->ex_cap * sizeof(*s->ex_seen));
		s->cap = t->ndomains + 1;
		s->pd = xcalloc(s->cap, sizeof(*s->pd));
		s->seen = xmalloc(s->cap * sizeof(*s->seen));
		memset(&s->key, 0, sizeof(s->key));
	}
	clear_taint_stats(s);
}

/* ---- Driver -------------------------------------------------------------- */

/*
 * Whether domain d's aggregates allow `pods` pods: for every requested
 * resource, free >= pods * request (the sum over units of what fits is
 * at most the sum of free over the request).
 */
static bool dom_may_hold(const struct run *r, uint32_t d, const int64_t *thr)
{
	const int64_t *f = &r->t->dom_free[(size_t)d * r->t->nres];

	for (int i = 0; i < r->nfast; i++) {
		if (f[r->fast_ids[i]] < thr[i])
			return false;
	}
	return true;
}

/*
 * The fast pass: fill only the requested level's domains whose aggregates
 * allow the whole request, and keep the answer when one of them fits. At
 * the lowest level nothing is pruned: every unit is filled (mostly from
 * the cache) and the level is scanned without listing it.
 */
static bool try_fast(struct run *r, struct place_result *res, struct idvec *ids,
		     struct idvec *out)
{
	const struct topo *t = r->t;
	unsigned level = r->req_level;
	int64_t slices = r->count / r->slice_size;
	int64_t thr[RESOURCE_MAX];
	uint32_t d;

	r->stats = false;
	if (level == r->unit_level) {
		fill_all(r);
		d = place_select_one(r, level, NULL, 0);
		goto out;
	}
	ids->len = 0;
	for (int i = 0; i < r->nfast; i++) {
		if (__builtin_mul_overflow(slices * r->slice_size,
					   r->wreq[r->fast_ids[i]], &thr[i]))
			thr[i] = INT64_MAX;
	}
	for (d = t->level_off[level]; d < t->level_off[level + 1]; d++) {
		if (t->dom_live[d] && (r->missing || dom_may_hold(r, d, thr)))
			vec_push(ids, d);
	}
	for (size_t i = 0; i < ids->len; i++)
		fill_dom(r, ids->items[i], level);
	d = place_select_one(r, level, ids->items, ids->len);
out:
	if (d == DOM_NONE)
		return false;
	vec_push(out, d);
	res->level = level;
	return true;
}

static void split_result(struct run *r, struct place_result *res,
			 const struct idvec *units)
{
	for (size_t i = 0; i < units->len; i++) {
		uint32_t u = units->items[i];
		const struct pdom *p = &r->pd[u];

		if (r->has_leader && p->leader > 0)
			vec_push(&res->leader,
				 ((struct place_assign){ u, p->leader }));
		if (p->state > 0)
			vec_push(&res->workers,
				 ((struct place_assign){ u, p->state }));
	}
}

/* Whether the units hold every worker and the leader. */
static bool complete(const struct run *r, const struct place_result *res)
{
	int64_t w = 0, l = 0;

	for (size_t i = 0; i < res->workers.len; i++)
		w += res->workers.items[i].count;
	for (size_t i = 0; i < res->leader.len; i++)
		l += res->leader.items[i].count;
	return w == r->count && l == r->leader_count;
}

static int assign_cmp(const void *a, const void *b)
{
	const struct place_assign *x = a, *y = b;

	return (x->unit > y->unit) - (x->unit < y->unit);
}

/*
 * Sort an assignment by unit id. Its units are distinct and, for a gang
 * in one domain, lie in a narrow id range: counting them into a table over
 * that range is linear, where qsort was a tenth of a placement of 1,024
 * pods. Wide ranges (spread placements) still use qsort.
 */
static void sort_by_unit(struct place_scratch *s, struct place_assign *as,
			 size_t n)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t range, k = 0;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		lo = as[i].unit < lo ? as[i].unit : lo;
		hi = as[i].unit > hi ? as[i].unit : hi;
	}
	range = (size_t)(hi - lo) + 1;
	if (range > 8 * n + 256) {
		qsort(as, n, sizeof(*as), assign_cmp);
		return;
	}
	vec_reserve(&s->by_unit, range);
	memset(s->by_unit.items, 0, range * sizeof(*s->by_unit.items));
	for (size_t i = 0; i < n; i++) {
		int32_t *slot = &s->by_unit.items[as[i].unit - lo];

		if (*slot || as[i].count < 0 || as[i].count == INT32_MAX) {
			/* not a plain set of units: keep qsort's order */
			qsort(as, n, sizeof(*as), assign_cmp);
			return;
		}
		*slot = as[i].count + 1; /* 0 marks an absent unit */
	}
	for (size_t u = 0; u < range; u++) {
		if (s->by_unit.items[u])
			as[k++] = (struct place_assign){
				(uint32_t)(lo + u), s->by_unit.items[u] - 1
			};
	}
	BUG_ON(k != n);
}

/*
 * Node of each pod of one assignment, in rank order: the unit's node for
 * hostname units; else the unit's live nodes first-fit in node order.
 */
static void pod_nodes(const struct topo *t, const struct resvec *req,
		      const struct place_assign *as, size_t n,
		      struct place_nodes *out)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t n0 = t->dom_node[as[i].unit];
		uint32_t n1 = n0 + t->dom_nnodes[as[i].unit];
		int32_t left = as[i].count;

		for (uint32_t k = n0; k < n1 && left > 0; k++) {
			struct resvec f = { { 0 } };
			int64_t fit = left;

			if (!topo_node_live(t, k))
				continue;
			if (!t->hostname_lowest) {
				memcpy(f.v, &t->node_free[(size_t)k * t->nres],
				       (size_t)t->nres * sizeof(int64_t));
				fit = resvec_count_fits(req, &f);
			}
			for (; fit > 0 && left > 0; fit--, left--)
				vec_push(out, k);
		}
		for (; left > 0; left--)
			vec_push(out, UINT32_MAX);
	}
}

static void reset_result(struct place_result *res)
{
	res->fit = false;
	res->level = 0;
	strbuf_reset(&res->reason);
	res->workers.len = 0;
	res->leader.len = 0;
	res->worker_nodes.len = 0;
	res->leader_nodes.len = 0;
}

static bool run_place(struct run *r, struct place_result *res)
{
	struct place_scratch *s = r->s;
	bool ok = false;

	const struct placement_config *cfg = r->req->config;
	bool balanced = cfg && cfg->balanced && !r->required &&
			!r->unconstrained && r->nlayers <= 1;
	bool used_balanced = false;

	s->a.len = 0;
	if (!balanced && !r->unconstrained && !r->aff && r->req->within < 0 &&
	    !r->req->exhaustive)
		ok = try_fast(r, res, &s->b, &s->a);
	if (!ok) {
		s->a.len = 0;
		strbuf_reset(&res->reason);
		fill_all(r);
		if (balanced)
			ok = used_balanced =
				place_balanced(r, &s->a, &res->level);
		if (!ok)
			ok = find_level(r, res, r->req_level, &s->b, &s->a);
	}
	if (!ok) {
		if (r->failed)
			fail_message(r, res);
		return false;
	}
	descend(r, res->level, &s->a, &s->b, used_balanced);
	split_result(r, res, &s->a);
	if (!complete(r, res)) {
		/*
		 * Kueue's updateCountsToMinimumGeneric ran out of domains (it
		 * logs "unexpected remainingCount" and returns an empty
		 * assignment); say so rather than admit nothing.
		 */
		res->workers.len = res->leader.len = 0;
		strbuf_addstr(&res->reason, "topology ");
		add_quoted(&res->reason, r->t->topology->name);
		strbuf_addstr(&res->reason,
			      ": the pods fit the chosen domain but could not "
			      "be spread below it (Kueue returns an empty "
			      "assignment here)");
		return false;
	}
	sort_by_unit(s, res->workers.items, res->workers.len);
	sort_by_unit(s, res->leader.items, res->leader.len);
	return true;
}

bool place_podset(const struct topo *t, const struct place_request *req,
		  struct place_result *res)
{
	struct run r;
	struct frag_levels fl;

	reset_result(res);
	memset(&r, 0, sizeof(r));
	fl.ready = false;
	fl.ppn_node = UINT32_MAX;
	r.fl = &fl;
	r.t = t;
	r.req = req;
	r.s = res->scratch;
	r.count = req->count;
	r.nlevels = (unsigned)t->nlevels;
	r.unit_level = r.nlevels - 1;
	r.has_leader = req->leader != NULL;
	r.leader_count = r.has_leader ? 1 : 0;
	r.filters = t->hostname_lowest;
	if (req->count <= 0) {
		res->fit = true;
		return true;
	}
	scratch_fit(r.s, t);
	r.pd = r.s->pd;
	place_setup_requests(&r);
	if (!place_setup(&r, res))
		return false;
	place_setup_cache(&r);
	r.simple = !r.has_leader && !r.aff && req->within < 0 &&
		   !(r.filters && r.need_filter);
	if (!run_place(&r, res))
		return false;
	pod_nodes(t, &req->podset->requests, res->workers.items,
		  res->workers.len, &res->worker_nodes);
	if (r.has_leader)
		pod_nodes(t, &req->leader->requests, res->leader.items,
			  res->leader.len, &res->leader_nodes);
	res->fit = true;
	return true;
}

/* The first live node of unit u (its first node when none is live). */
static uint32_t first_live_node(const struct topo *t, uint32_t u)
{
	uint32_t n0 = t->dom_node[u], n1 = n0 + t->dom_nnodes[u];

	for (uint32_t n = n0; n < n1; n++) {
		if (topo_node_live(t, n))
			return n;
	}
	return n0;
}

static void apply_nodes(struct topo *t, const struct resvec *req,
			const uint32_t *nodes, size_t n,
			const struct place_assign *as, size_t nas, int sign)
{
	size_t k = 0;

	for (size_t i = 0; i < nas; i++) {
		for (int32_t c = 0; c < as[i].count; c++, k++) {
			uint32_t node = k < n ? nodes[k] : UINT32_MAX;

			if (node == UINT32_MAX)
				node = first_live_node(t, as[i].unit);
			topo_node_add_usage(t, node, req, sign);
		}
	}
}

void place_apply(struct topo *t, const struct place_request *req,
		 const struct place_result *res, int sign)
{
	BUG_ON(!res->fit);
	BUG_ON(sign != 1 && sign != -1);
	apply_nodes(t, &req->podset->requests, res->worker_nodes.items,
		    res->worker_nodes.len, res->workers.items, res->workers.len,
		    sign);
	if (req->leader)
		apply_nodes(t, &req->leader->requests, res->leader_nodes.items,
			    res->leader_nodes.len, res->leader.items,
			    res->leader.len, sign);
}

void place_result_nodes(const struct topo *t, const struct place_result *res,
			uint32_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < res->workers.len; i++) {
		for (int32_t j = 0; j < res->workers.items[i].count; j++, k++) {
			uint32_t x = k < res->worker_nodes.len
					     ? res->worker_nodes.items[k]
					     : UINT32_MAX;

			n[k] = x == UINT32_MAX
				       ? t->dom_node[res->workers.items[i].unit]
				       : x;
		}
	}
}

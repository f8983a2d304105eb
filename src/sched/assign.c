// SPDX-License-Identifier: Apache-2.0
/*
 * Flavor assignment: for each resource group a workload needs, walk the
 * group's flavors in order and keep the first that fits without
 * borrowing, or the best by mode (fit, then preempt) and borrowing, as
 * the ClusterQueue's flavor fungibility says. A flavor with a topology
 * also needs a placement. Every pod set of a workload gets the same
 * flavor for a group, so a gang never straddles node pools (Kueue may
 * split pod sets over flavors, a reported surprise). What did not fit is
 * returned as data: the reason code and a message with the amounts.
 */
#include "sched/sched_int.h"

#include <stdarg.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/* Append the strings up to NULL: cheaper than a format on hot paths. */
static void add_strs(struct strbuf *sb, ...)
{
	const char *p;
	va_list ap;

	va_start(ap, sb);
	while ((p = va_arg(ap, const char *)))
		strbuf_addstr(sb, p);
	va_end(ap);
}

void assign_init(struct assign *a)
{
	memset(a, 0, sizeof(*a));
}

void assign_release(struct assign *a)
{
	if (a)
		sched_why_set(&a->why, SCHED_PEND_EVALUATION, NULL);
}

bool assign_can_preempt(const struct sched *s, int32_t cq)
{
	const struct cluster_queue *c = s->cqs[cq].cq;

	return c->within_cluster_queue != PREEMPT_NEVER ||
	       (s->q.nodes[cq].parent >= 0 &&
		c->reclaim_within_cohort != PREEMPT_NEVER);
}

static bool tolerated(const struct taint *t, const struct podset *ps,
		      const struct flavor *fl)
{
	if (t->effect == TAINT_PREFER_NO_SCHEDULE)
		return true;
	for (size_t i = 0; i < ps->ntolerations; i++) {
		if (toleration_tolerates(&ps->tolerations[i], t))
			return true;
	}
	for (size_t i = 0; i < fl->ntolerations; i++) {
		if (toleration_tolerates(&fl->tolerations[i], t))
			return true;
	}
	return false;
}

/*
 * Required node affinity against a flavor, as Kueue matches it: only the
 * requirements on keys the flavor's node labels have count; the terms are
 * ORed.
 */
static bool affinity_ok(const struct node_affinity *a, const struct labels *fl)
{
	if (!a->present)
		return true;
	for (size_t t = 0; t < a->len; t++) {
		const struct selector *term = &a->terms[t];
		bool ok = true;

		for (size_t k = 0; k < term->len && ok; k++) {
			struct selector one = { &term->reqs[k], 1, 1 };

			if (labels_get(fl, term->reqs[k].key))
				ok = selector_matches(&one, fl);
		}
		if (ok)
			return true;
	}
	return false;
}

bool assign_eligible(const struct sched *s, const struct workload *w,
		     const struct flavor *fl, struct strbuf *out)
{
	bool tas = s->tas[fl - s->c->flavors.items].t != NULL;

	for (size_t i = 0; i < w->npodsets; i++) {
		const struct podset *ps = &w->podsets[i];

		if (ps->topology.mode != TOPOLOGY_NONE && !tas) {
			strbuf_addf(out,
				    "flavor %s does not support "
				    "TopologyAwareScheduling",
				    fl->name);
			return false;
		}
		for (size_t k = 0; k < ps->node_selector.len; k++) {
			const struct label *l = &ps->node_selector.items[k];
			const char *v = labels_get(&fl->node_labels, l->key);

			if (v && strcmp(v, l->value) != 0) {
				strbuf_addf(out,
					    "flavor %s doesn't match "
					    "node selector %s=%s",
					    fl->name, l->key, l->value);
				return false;
			}
		}
		if (!affinity_ok(&ps->affinity, &fl->node_labels)) {
			add_strs(out, "flavor ", fl->name,
				 " doesn't match node affinity", NULL);
			return false;
		}
		for (size_t k = 0; k < fl->nnode_taints; k++) {
			if (!tolerated(&fl->node_taints[k], ps, fl)) {
				strbuf_addf(out,
					    "untolerated taint %s in "
					    "flavor %s",
					    fl->node_taints[k].key, fl->name);
				return false;
			}
		}
	}
	return true;
}

/*
 * The outcome of one flavor of a group, Kueue's granularMode: how it
 * could be used and how high in the cohort tree it must borrow.
 */
struct
try {
	enum assign_pmode mode;
	int32_t borrow;	       /* Kueue's borrowing level (tree height) */
	uint32_t need_preempt; /* resources that need preemption */
	bool tas_short;
	bool exceeds, waits;
};

static void amount(const struct sched *s, int r, int64_t v, struct strbuf *out)
{
	quantity_format(v, s->c->resources->kinds[r], out);
}

/* Kueue's canPreemptWhileBorrowing. */
static bool preempt_while_borrowing(const struct sched *s, int32_t cq)
{
	const struct cluster_queue *c = s->cqs[cq].cq;

	return c->borrow_within_cohort != BORROW_PREEMPT_NEVER ||
	       (s->opt.fair_sharing &&
		c->reclaim_within_cohort != PREEMPT_NEVER);
}

/*
 * Kueue's isPreferred (flavorassigner.go): whether a is better than b.
 * noFit is worst; a flavor without preemption candidates ranks below
 * every viable one; then BorrowingOverPreemption (the default) compares
 * the mode first and the borrowing level second, PreemptionOverBorrowing
 * the other way round.
 */
static bool preferred(const struct try *a, const struct try *b,
		      enum fungibility_preference pref)
{
	bool anc = a->mode == ASSIGN_PM_NO_CANDIDATES;
	bool bnc = b->mode == ASSIGN_PM_NO_CANDIDATES;

	if (a->mode == ASSIGN_PM_NOFIT)
		return false;
	if (b->mode == ASSIGN_PM_NOFIT)
		return true;
	if (anc != bnc)
		return !anc;
	if (pref == PREFER_PREEMPTION_OVER_BORROWING && a->borrow != b->borrow)
		return a->borrow < b->borrow;
	if (a->mode != b->mode)
		return a->mode > b->mode;
	return a->borrow < b->borrow;
}

/* The worse of the per-resource outcomes of one flavor into t. */
static void keep_worse(const struct sched *s, int32_t cq, struct try *t,
		       enum assign_pmode mode, int32_t borrow)
{
	struct try m = { .mode = mode, .borrow = borrow };

	if (preferred(t, &m, s->cqs[cq].cq->preference)) {
		t->mode = mode;
		t->borrow = borrow;
	}
}

/*
 * Kueue's preemption oracle for one flavor: whether evicting admitted
 * workloads would let the resources of probe (those needing preemption)
 * fit, and the borrowing level after it (*ret_borrow holds the level
 * without preemption on entry).
 */
static enum assign_pmode oracle(struct sched *s, uint32_t id,
				const struct assign *probe, int32_t *ret_borrow)
{
	if (!assign_can_preempt(s, s->wl[id].cq))
		return ASSIGN_PM_NO_CANDIDATES; /* *ret_borrow as it is */
	return preempt_oracle(s, id, probe, ret_borrow);
}

/* A probe for the oracle: only resource r of flavor f. */
static void probe_one(const struct assign *a, int32_t f, int r,
		      struct assign *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->counts, a->counts, sizeof(out->counts));
	for (int k = 0; k < RESOURCE_MAX; k++)
		out->flavor[k] = -1;
	out->flavor[r] = (int16_t)f;
	out->need[r] = a->need[r];
	out->preempt_res = 1u << r;
	out->tas_flavor = -1;
	out->mode = ASSIGN_PREEMPT;
}

/*
 * Kueue's fitsResourceQuota for each resource of g on flavor f: over the
 * maximum capacity, no fit; within the available quota, fit at the
 * borrowing level of the lowest subtree that holds it; otherwise the
 * oracle decides, when the request is within the queue's nominal quota,
 * quota lent away could be reclaimed, or the queue may preempt while
 * borrowing; else no fit.
 */
static void quota_mode(struct sched *s, uint32_t id, int32_t f,
		       const struct resource_group *g, const struct assign *a,
		       struct try *t, struct strbuf *msg)
{
	int32_t cq = s->wl[id].cq;
	const char *fn = s->c->flavors.items[f].name;

	for (size_t k = 0; k < g->ncovered; k++) {
		int r = g->covered[k];
		size_t fr = QUOTA_FR(f, r);
		int64_t need = a->need[r], pot, avail;
		const char *rn = resource_name(s->c->resources, r);
		bool reclaim;
		int32_t borrow;

		if (need <= 0)
			continue;
		pot = s->q.nodes[cq].listed[fr] ? quota_potential(&s->q, cq, fr)
						: 0;
		avail = quota_available(&s->q, cq, fr);
		if (need > pot) {
			keep_worse(s, cq, t, ASSIGN_PM_NOFIT, 0);
			t->exceeds = true;
			add_strs(msg, msg->len ? "; " : "",
				 "insufficient quota for ", rn, " in flavor ",
				 fn, ", request > maximum capacity (", NULL);
			amount(s, r, need, msg);
			strbuf_addstr(msg, " > ");
			amount(s, r, pot, msg);
			strbuf_addch(msg, ')');
			continue;
		}
		borrow = quota_fit_height(&s->q, cq, fr, need, &reclaim);
		if (need <= avail) {
			keep_worse(s, cq, t, ASSIGN_PM_FIT, borrow);
			continue;
		}
		t->waits = true;
		add_strs(msg, msg->len ? "; " : "",
			 "insufficient unused quota for ", rn, " in flavor ",
			 fn, ", ", NULL);
		amount(s, r, need - (avail > 0 ? avail : 0), msg);
		strbuf_addstr(msg, " more needed");
		if (t->mode == ASSIGN_PM_NOFIT)
			continue; /* decided: no oracle needed */
		if (s->q.nodes[cq].nominal[fr] >= need || reclaim ||
		    preempt_while_borrowing(s, cq)) {
			struct assign probe;
			enum assign_pmode m;

			probe_one(a, f, r, &probe);
			m = oracle(s, id, &probe, &borrow);
			keep_worse(s, cq, t, m, borrow);
			t->need_preempt |= 1u << r;
		} else {
			keep_worse(s, cq, t, ASSIGN_PM_NOFIT, borrow);
		}
	}
}

static bool full_counts(const struct workload *w, const struct assign *a)
{
	for (size_t i = 0; i < w->npodsets; i++) {
		if (a->counts[i] != w->podsets[i].count)
			return false;
	}
	return true;
}

/* The placement on TAS flavor f failed: can preemption make room? */
static void tas_oracle(struct sched *s, uint32_t id, int32_t f,
		       const struct resource_group *g, const struct assign *a,
		       struct try *t)
{
	struct assign probe;
	int32_t borrow = t->borrow;

	memset(&probe, 0, sizeof(probe));
	memcpy(probe.counts, a->counts, sizeof(probe.counts));
	for (int k = 0; k < RESOURCE_MAX; k++)
		probe.flavor[k] = -1;
	for (size_t k = 0; k < g->ncovered; k++) {
		int r = g->covered[k];

		if (a->need[r] <= 0)
			continue;
		probe.flavor[r] = (int16_t)f;
		probe.need[r] = a->need[r];
	}
	probe.tas_flavor = f;
	probe.mode = ASSIGN_PREEMPT;
	t->mode = oracle(s, id, &probe, &borrow);
	if (borrow > t->borrow)
		t->borrow = borrow;
}

static void try_flavor(struct sched *s, uint32_t id, int32_t f,
		       const struct resource_group *g, struct assign *a,
		       struct try *t, struct strbuf *msg)
{
	struct sched_wl *wl = &s->wl[id];
	const struct topology_request *tr = &wl->w->podsets[0].topology;

	memset(t, 0, sizeof(*t));
	t->mode = ASSIGN_PM_FIT;
	quota_mode(s, id, f, g, a, t, msg);
	if (t->mode != ASSIGN_PM_FIT || !s->tas[f].t)
		return;
	add_strs(msg, "flavor ", s->c->flavors.items[f].name, ": ", NULL);
	if (full_counts(wl->w, a)
		    ? tas_check(s, f, id, msg)
		    : tas_place(s, f, wl->w, a->counts, false, NULL, msg)) {
		strbuf_reset(msg);
		return;
	}
	if (tr->level)
		add_strs(msg, " (", topology_mode_name(tr->mode), " level ",
			 tr->level, ")", NULL);
	t->tas_short = true;
	tas_oracle(s, id, f, g, a, t);
}

/*
 * Kueue's shouldTryNextFlavor: go on after no fit or no preemption
 * candidates; after a preemption under whenCanPreempt TryNextFlavor;
 * after borrowing under whenCanBorrow TryNextFlavor.
 */
static bool stop_at(const struct cluster_queue *cq, const struct try *t)
{
	if (t->mode == ASSIGN_PM_NOFIT || t->mode == ASSIGN_PM_NO_CANDIDATES)
		return false;
	if (t->mode != ASSIGN_PM_FIT &&
	    cq->when_can_preempt == FUNGIBILITY_TRY_NEXT)
		return false;
	return !(t->borrow > 0 && cq->when_can_borrow == FUNGIBILITY_TRY_NEXT);
}

/* The reason of a group where no flavor was usable. */
static enum sched_pend group_reason(bool any_eligible, bool all_exceed,
				    bool waits, bool topology)
{
	if (!any_eligible)
		return SCHED_PEND_NO_MATCHING_FLAVOR;
	if (waits)
		return SCHED_PEND_WAITING_FOR_QUOTA;
	if (topology)
		return SCHED_PEND_TOPOLOGY;
	if (all_exceed)
		return SCHED_PEND_EXCEEDS_MAX_QUOTA;
	return SCHED_PEND_NO_MATCHING_FLAVOR;
}

static void walk_group(struct sched *s, uint32_t id,
		       const struct resource_group *g, struct assign *a,
		       struct strbuf *msg)
{
	const struct sched_cq *q = &s->cqs[s->wl[id].cq];
	const struct cluster_queue *cq = q->cq;
	const int32_t *ids = q->gflavor[g - cq->groups];
	struct try best = { .mode = ASSIGN_PM_NOFIT, .borrow = INT32_MAX }, t;
	bool any = false, all_exceed = true, waits = false, topo = false;
	int32_t best_f = -1;
	enum assign_mode mode;
	struct strbuf fm;

	strbuf_init(&fm);
	for (size_t k = 0; k < g->nflavors; k++) {
		int32_t f = ids[k];

		strbuf_reset(&fm);
		if (f >= 0 && !assign_eligible(s, s->wl[id].w,
					       &s->c->flavors.items[f], &fm))
			f = -1;
		if (f >= 0) {
			any = true;
			try_flavor(s, id, f, g, a, &t, &fm);
			all_exceed &= t.exceeds;
			waits |= t.waits && !t.exceeds;
			topo |= t.tas_short;
			if (stop_at(cq, &t) ||
			    preferred(&t, &best, cq->preference)) {
				best = t;
				best_f = f;
			}
		}
		if (fm.len)
			add_strs(msg, msg->len ? "; " : "", fm.buf, NULL);
		if (f >= 0 && stop_at(cq, &t))
			break;
	}
	strbuf_release(&fm);
	if (best_f < 0 || best.mode == ASSIGN_PM_NOFIT) {
		a->mode = ASSIGN_NOFIT;
		a->why.code = group_reason(any, all_exceed, waits, topo);
		return;
	}
	for (size_t k = 0; k < g->ncovered; k++) {
		if (a->need[g->covered[k]] > 0)
			a->flavor[g->covered[k]] = (int16_t)best_f;
	}
	mode = best.mode == ASSIGN_PM_FIT ? ASSIGN_FIT : ASSIGN_PREEMPT;
	if (mode > a->mode)
		a->mode = mode;
	if (best.mode < a->pmode)
		a->pmode = best.mode;
	if (mode == ASSIGN_PREEMPT && a->why.code == SCHED_PEND_EVALUATION)
		a->why.code = best.tas_short ? SCHED_PEND_TOPOLOGY
					     : SCHED_PEND_WAITING_FOR_QUOTA;
	if (best.borrow > a->borrow_level)
		a->borrow_level = best.borrow;
	a->borrows = a->borrow_level > 0;
	a->preempt_res |= best.need_preempt;
	if (s->tas[best_f].t && a->tas_flavor < 0) {
		a->tas_flavor = best_f;
		a->tas_short = best.tas_short;
	}
}

static const struct resource_group *group_of(const struct cluster_queue *cq,
					     int r)
{
	for (size_t g = 0; g < cq->ngroups; g++) {
		for (size_t k = 0; k < cq->groups[g].ncovered; k++) {
			if (cq->groups[g].covered[k] == r)
				return &cq->groups[g];
		}
	}
	return NULL;
}

static void reset(struct assign *a, const struct workload *w,
		  const int32_t *counts)
{
	sched_why_set(&a->why, SCHED_PEND_EVALUATION, NULL);
	a->mode = ASSIGN_FIT;
	a->pmode = ASSIGN_PM_FIT;
	a->borrows = a->tas_short = false;
	a->borrow_level = 0;
	a->preempt_res = 0;
	a->tas_flavor = -1;
	memset(a->need, 0, sizeof(a->need));
	for (int r = 0; r < RESOURCE_MAX; r++)
		a->flavor[r] = -1;
	for (size_t i = 0; i < w->npodsets; i++) {
		a->counts[i] = counts ? counts[i] : w->podsets[i].count;
		for (int r = 0; r < RESOURCE_MAX; r++)
			a->need[r] +=
				w->podsets[i].requests.v[r] * a->counts[i];
	}
}

void assign_workload(struct sched *s, uint32_t id, const int32_t *counts,
		     struct assign *a)
{
	const struct cluster_queue *cq = s->cqs[s->wl[id].cq].cq;
	const struct resource_group *done[RESOURCE_MAX];
	size_t ndone = 0;
	struct strbuf msg;

	reset(a, s->wl[id].w, counts);
	strbuf_init(&msg);
	for (int r = 0; r < RESOURCE_MAX && a->mode != ASSIGN_NOFIT; r++) {
		const struct resource_group *g;
		bool seen = false;

		if (a->need[r] <= 0)
			continue;
		g = group_of(cq, r);
		if (!g && r == RESOURCE_PODS)
			continue;
		if (!g) {
			a->mode = ASSIGN_NOFIT;
			a->why.code = SCHED_PEND_NO_MATCHING_FLAVOR;
			strbuf_addf(&msg,
				    "resource %s unavailable in "
				    "ClusterQueue %s",
				    resource_name(s->c->resources, r),
				    cq->name);
			break;
		}
		for (size_t k = 0; k < ndone; k++)
			seen |= done[k] == g;
		if (seen)
			continue;
		done[ndone++] = g;
		walk_group(s, id, g, a, &msg);
	}
	if (a->mode != ASSIGN_FIT) {
		struct strbuf out;

		strbuf_init(&out);
		strbuf_addstr(&out,
			      "couldn't assign flavors to the workload: ");
		strbuf_add(&out, msg.buf, msg.len);
		a->why.msg = strbuf_take(&out);
		strbuf_release(&out);
	}
	strbuf_release(&msg);
}

/* One flavor by quota alone, for assign_estimate(). */
static void estimate_flavor(struct sched *s, int32_t cq, int32_t f,
			    const struct resource_group *g, const int64_t *need,
			    struct try *t)
{
	memset(t, 0, sizeof(*t));
	t->mode = ASSIGN_PM_FIT;
	for (size_t k = 0; k < g->ncovered; k++) {
		int r = g->covered[k];
		size_t fr = QUOTA_FR(f, r);
		bool reclaim;
		int32_t h;

		if (need[r] <= 0)
			continue;
		if (!s->q.nodes[cq].listed[fr] ||
		    need[r] > quota_potential(&s->q, cq, fr)) {
			keep_worse(s, cq, t, ASSIGN_PM_NOFIT, 0);
			continue;
		}
		h = quota_fit_height(&s->q, cq, fr, need[r], &reclaim);
		keep_worse(s, cq, t,
			   need[r] <= quota_available(&s->q, cq, fr)
				   ? ASSIGN_PM_FIT
				   : ASSIGN_PM_PREEMPT,
			   h);
	}
}

int32_t assign_estimate(struct sched *s, uint32_t id,
			int16_t flavor[RESOURCE_MAX],
			int64_t need[RESOURCE_MAX])
{
	const struct workload *w = s->wl[id].w;
	int32_t cq = s->wl[id].cq, level = 0;
	const struct cluster_queue *c = s->cqs[cq].cq;
	uint32_t mask = s->wl[id].resmask;
	struct strbuf why;

	strbuf_init(&why);
	for (int r = 0; r < RESOURCE_MAX; r++) {
		need[r] = 0;
		flavor[r] = -1;
	}
	for (uint32_t m = mask; m; m &= m - 1) {
		int r = __builtin_ctz(m);

		for (size_t i = 0; i < w->npodsets; i++)
			need[r] += w->podsets[i].requests.v[r] *
				   w->podsets[i].count;
	}
	for (uint32_t m = mask; m; m &= m - 1) {
		int r = __builtin_ctz(m);
		const struct resource_group *g;
		struct try best = { .mode = ASSIGN_PM_NOFIT }, t;
		int32_t best_f = -1;

		if (need[r] <= 0 || flavor[r] >= 0 || !(g = group_of(c, r)))
			continue;
		if (g->nflavors == 1) { /* the common case: no choice */
			best_f = s->cqs[cq].gflavor[g - c->groups][0];
			for (size_t k = 0; best_f >= 0 && k < g->ncovered;
			     k++) {
				int rr = g->covered[k];
				bool reclaim;
				int32_t h;

				if (need[rr] <= 0)
					continue;
				flavor[rr] = (int16_t)best_f;
				h = quota_fit_height(&s->q, cq,
						     QUOTA_FR(best_f, rr),
						     need[rr], &reclaim);
				level = h > level ? h : level;
			}
			continue;
		}
		for (size_t k = 0; k < g->nflavors; k++) {
			int32_t f = s->cqs[cq].gflavor[g - c->groups][k];

			/* a single flavor is the estimate whatever its
			 * eligibility: only the order of heads depends on it */
			strbuf_reset(&why);
			if (f < 0 ||
			    (g->nflavors > 1 &&
			     !assign_eligible(s, w, &s->c->flavors.items[f],
					      &why)))
				continue;
			estimate_flavor(s, cq, f, g, need, &t);
			if (stop_at(c, &t) ||
			    preferred(&t, &best, c->preference)) {
				best = t;
				best_f = f;
			}
			if (stop_at(c, &t))
				break;
		}
		for (size_t k = 0; best_f >= 0 && k < g->ncovered; k++) {
			if (need[g->covered[k]] > 0)
				flavor[g->covered[k]] = (int16_t)best_f;
		}
		if (best_f >= 0 && best.borrow > level)
			level = best.borrow;
	}
	strbuf_release(&why);
	return level;
}

bool assign_fits(struct sched *s, uint32_t id, const struct assign *a,
		 bool allow_borrow)
{
	int32_t cq = s->wl[id].cq;

	for (int r = 0; r < RESOURCE_MAX; r++) {
		size_t fr;

		if (a->flavor[r] < 0 || a->need[r] <= 0)
			continue;
		fr = QUOTA_FR(a->flavor[r], r);
		if (a->need[r] > quota_available(&s->q, cq, fr))
			return false;
		if (!allow_borrow && s->q.nodes[cq].usage[fr] + a->need[r] >
					     s->q.nodes[cq].subtree[fr])
			return false;
	}
	if (a->tas_flavor < 0)
		return true;
	return tas_place(s, a->tas_flavor, s->wl[id].w, a->counts, false, NULL,
			 NULL);
}

void assign_charge(struct sched *s, int32_t cq, const struct assign *a,
		   int sign)
{
	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (a->flavor[r] >= 0 && a->need[r] > 0)
			quota_add(&s->q, cq, QUOTA_FR(a->flavor[r], r),
				  sign * a->need[r]);
	}
}

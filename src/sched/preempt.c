// SPDX-License-Identifier: Apache-2.0
/*
 * Victim selection, as Kueue's classical preemption: candidates are the
 * admitted workloads of the preemptor's cohort tree that use what it
 * needs, allowed by withinClusterQueue (own queue), reclaimWithinCohort
 * (queues that borrow) or borrowWithinCohort (when the preemptor must
 * borrow itself); ordered other queues first, lower priority first,
 * newest admission first. Targets are taken greedily until the preemptor
 * fits, then those not needed are given back in reverse order.
 *
 * Topology-aware: on a TAS flavor the same search runs once per domain
 * of the requested level with only the candidates in that domain, and the
 * smallest, lowest-priority set wins, so that one domain is freed rather
 * than victims scattered over racks that still do not make room. With
 * fair sharing, a candidate of another queue is taken only while that
 * queue's share after the removal stays at least the preemptor's queue's
 * share after admission (Kueue's LessThanOrEqualToFinalShare).
 */
#include "sched/sched_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

struct cand {
	uint32_t id;
	bool own;	 /* in the preemptor's queue */
	bool reclaim;	 /* allowed without borrowing */
	bool borrow;	 /* allowed while borrowing */
	int64_t share;	 /* its queue's share (fair sharing) */
	uint32_t dom[4]; /* domains at the TAS level it uses */
	size_t ndom;	 /* > 4: spans more */
};

struct search {
	struct sched *s;
	uint32_t id;
	const struct assign *a;
	bool allow_borrow;
	int64_t *extra; /* the preemptor's usage, for shares */
};

static bool within_ok(const struct sched *s, const struct sched_wl *p,
		      const struct sched_wl *v)
{
	switch (s->cqs[p->cq].cq->within_cluster_queue) {
	case PREEMPT_LOWER_PRIORITY:
		return v->priority < p->priority;
	case PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY:
		/* Kueue's SatisfiesPreemptionPolicy: equal priority and a
		 * strictly later queue-order timestamp; no other tie-break. */
		return v->priority < p->priority ||
		       (v->priority == p->priority &&
			v->queue_ts_us > p->queue_ts_us);
	default:
		return false;
	}
}

static bool uses(const struct sched *s, const struct sched_wl *v,
		 const struct assign *a)
{
	const struct sched_admission *adm = v->adm;

	for (size_t i = 0; i < adm->npodsets; i++) {
		if (a->tas_flavor >= 0 &&
		    adm->ps[i].tas_flavor == a->tas_flavor)
			return true;
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if (a->need[r] > 0 && a->flavor[r] >= 0 &&
			    adm->ps[i].flavor[r] == a->flavor[r] &&
			    v->w->podsets[i].requests.v[r] > 0)
				return true;
		}
	}
	(void)s;
	return false;
}

static void classify(const struct sched *s, const struct sched_wl *p,
		     const struct sched_wl *v, struct cand *c)
{
	const struct cluster_queue *cq = s->cqs[p->cq].cq;

	if (c->own) {
		c->reclaim = c->borrow = within_ok(s, p, v);
		return;
	}
	c->reclaim = cq->reclaim_within_cohort == PREEMPT_ANY ||
		     (cq->reclaim_within_cohort == PREEMPT_LOWER_PRIORITY &&
		      v->priority < p->priority);
	c->borrow = cq->borrow_within_cohort == BORROW_PREEMPT_LOWER_PRIORITY &&
		    v->priority < p->priority &&
		    (!cq->has_threshold ||
		     v->priority <= cq->borrow_max_priority_threshold);
}

static int cand_cmp(const void *x, const void *y, void *ctx)
{
	const struct cand *a = x, *b = y;
	const struct sched *s = ctx;
	const struct sched_wl *va = &s->wl[a->id], *vb = &s->wl[b->id];

	if (a->own != b->own)
		return a->own ? 1 : -1;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	if (va->priority != vb->priority)
		return va->priority < vb->priority ? -1 : 1;
	/* Kueue's CandidatesOrdering: admitted more recently first, by
	 * QuotaReserved's time; then, at one time, the later decision. */
	if (va->admit_us != vb->admit_us)
		return va->admit_us > vb->admit_us ? -1 : 1;
	if (va->admit_seq != vb->admit_seq)
		return va->admit_seq > vb->admit_seq ? -1 : 1;
	return sched_name_cmp(s, a->id, b->id);
}

static void note_domains(const struct sched *s, const struct assign *a,
			 unsigned level, struct cand *c)
{
	const struct sched_admission *adm = s->wl[c->id].adm;

	c->ndom = 0;
	for (size_t i = 0; i < adm->npodsets; i++) {
		const struct sched_podset_admission *pa = &adm->ps[i];

		if (pa->tas_flavor != a->tas_flavor || !pa->nodes)
			continue;
		for (int32_t k = 0; k < pa->count; k++) {
			uint32_t d = tas_domain_of(s, pa->tas_flavor,
						   pa->nodes[k], level);
			bool seen = false;

			for (size_t j = 0; j < c->ndom && j < 4; j++)
				seen |= c->dom[j] == d;
			if (seen)
				continue;
			if (c->ndom < 4)
				c->dom[c->ndom] = d;
			c->ndom++;
		}
	}
}

static size_t collect(struct sched *s, uint32_t id, const struct assign *a,
		      struct cand *out)
{
	const struct sched_wl *p = &s->wl[id];
	int32_t root = s->cqs[p->cq].root;
	size_t n = 0;

	for (size_t i = 0; i < s->ncq; i++) {
		if (s->cqs[i].root != root)
			continue;
		vec_foreach (&s->cqs[i].admitted, v) {
			struct cand c = { .id = *v,
					  .own = (int32_t)i == p->cq };

			/* Admitted by this very cycle: the decision stands
			 * (Kueue takes victims from the cycle's snapshot). */
			if (s->wl[*v].admit_cycle == s->cycle ||
			    !uses(s, &s->wl[*v], a))
				continue;
			classify(s, p, &s->wl[*v], &c);
			if (s->opt.fair_sharing && !c.own)
				c.share = quota_share(&s->q, (int32_t)i, NULL);
			if (c.reclaim || c.borrow)
				out[n++] = c;
		}
	}
	qsort_r(out, n, sizeof(*out), cand_cmp, s);
	return n;
}

static void charge(struct sched *s, uint32_t v, int sign)
{
	const struct sched_wl *wl = &s->wl[v];

	for (size_t i = 0; i < wl->adm->npodsets; i++) {
		const struct sched_podset_admission *pa = &wl->adm->ps[i];

		for (int r = 0; r < RESOURCE_MAX; r++) {
			int64_t x = wl->w->podsets[i].requests.v[r] * pa->count;

			if (pa->flavor[r] >= 0 && x)
				quota_add(&s->q, wl->adm->cq,
					  QUOTA_FR(pa->flavor[r], r), sign * x);
		}
	}
	tas_charge(s, wl->w, wl->adm, sign);
}

/* Whether the queue of another-queue candidate v still borrows. */
static bool still_borrowing(const struct search *x, uint32_t v)
{
	const struct sched *s = x->s;
	int32_t cq = s->wl[v].adm->cq;

	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (x->a->flavor[r] >= 0 && x->a->need[r] > 0 &&
		    quota_borrowing(&s->q, cq, QUOTA_FR(x->a->flavor[r], r)))
			return true;
	}
	return false;
}

/* Remove c if the policy allows it now; whether it was removed. */
static bool take(const struct search *x, const struct cand *c)
{
	struct sched *s = x->s;
	int32_t cq = s->wl[c->id].adm->cq;
	bool fs = s->opt.fair_sharing;

	if (!(x->allow_borrow && !fs ? c->borrow : c->reclaim))
		return false;
	if (c->own)
		goto remove;
	if (!still_borrowing(x, c->id))
		return false;
	if (s->opt.fair_sharing) {
		int64_t mine = quota_share(&s->q, s->wl[x->id].cq, x->extra);

		charge(s, c->id, -1);
		if (quota_share(&s->q, cq, NULL) < mine) {
			charge(s, c->id, 1);
			return false;
		}
		return true;
	}
remove:
	charge(s, c->id, -1);
	return true;
}

/* Whether taking every candidate it may would let the preemptor fit:
 * one oracle call instead of one per candidate when it would not. */
static bool could_fit(const struct search *x, const struct cand *cands,
		      size_t n, uint32_t *tmp)
{
	size_t k = 0;
	bool fit;

	for (size_t i = 0; i < n; i++) {
		if (take(x, &cands[i]))
			tmp[k++] = cands[i].id;
	}
	fit = k && assign_fits(x->s, x->id, x->a, x->allow_borrow);
	while (k > 0)
		charge(x->s, tmp[--k], 1);
	return fit;
}

/* Greedy then fill back over cands; the targets into out, or 0. */
static size_t greedy(const struct search *x, const struct cand *cands, size_t n,
		     uint32_t *out)
{
	struct sched *s = x->s;
	size_t k = 0, kept;
	bool fit = false;

	if (!could_fit(x, cands, n, out))
		return 0;

	for (size_t i = 0; i < n && !fit; i++) {
		if (!take(x, &cands[i]))
			continue;
		out[k++] = cands[i].id;
		fit = assign_fits(s, x->id, x->a, x->allow_borrow);
	}
	if (!fit) {
		while (k > 0)
			charge(s, out[--k], 1);
		return 0;
	}
	/* Give back, newest target first, those not needed. */
	kept = k;
	for (size_t i = k - 1; i-- > 0;) {
		charge(s, out[i], 1);
		if (assign_fits(s, x->id, x->a, x->allow_borrow)) {
			memmove(&out[i], &out[i + 1],
				(kept - i - 1) * sizeof(*out));
			kept--;
			continue;
		}
		charge(s, out[i], -1);
	}
	for (size_t i = 0; i < kept; i++)
		charge(s, out[i], 1);
	return kept;
}

static int32_t max_priority(const struct sched *s, const uint32_t *t, size_t n)
{
	int32_t m = INT32_MIN;

	for (size_t i = 0; i < n; i++)
		m = s->wl[t[i]].priority > m ? s->wl[t[i]].priority : m;
	return m;
}

/* Whether (n, t) disrupts less than (bn, bt): fewer, then lower. */
static bool less_disruptive(const struct sched *s, const uint32_t *t, size_t n,
			    const uint32_t *bt, size_t bn)
{
	if (!bn)
		return n > 0;
	if (n != bn)
		return n < bn;
	return max_priority(s, t, n) < max_priority(s, bt, bn);
}

static unsigned tas_level(const struct sched *s, const struct sched_wl *p,
			  int32_t f)
{
	const struct topology *tp = s->tas[f].t->topology;

	for (size_t i = 0; i < p->w->npodsets; i++) {
		const char *l = p->w->podsets[i].topology.level;
		int k = l ? topology_level_index(tp, l) : -1;

		if (k >= 0)
			return (unsigned)k;
	}
	return 0;
}

static bool in_domain(const struct cand *c, uint32_t d)
{
	if (c->ndom > 4)
		return true; /* spans many: worth trying everywhere */
	for (size_t j = 0; j < c->ndom; j++) {
		if (c->dom[j] == d)
			return true;
	}
	return false;
}

/* Search domain by domain; the best set into best, its size returned. */
static size_t by_domain(const struct search *x, struct cand *cands, size_t n,
			uint32_t *best, uint32_t *tmp, struct cand *sub)
{
	struct sched *s = x->s;
	const struct topo *t = s->tas[x->a->tas_flavor].t;
	unsigned level = tas_level(s, &s->wl[x->id], x->a->tas_flavor);
	size_t bn = 0, tried = 0;

	for (size_t i = 0; i < n; i++)
		note_domains(s, x->a, level, &cands[i]);
	for (uint32_t d = t->level_off[level];
	     d < t->level_off[level + 1] && tried < s->opt.max_tas_domains;
	     d++) {
		size_t m = 0, k;

		for (size_t i = 0; i < n; i++) {
			if (in_domain(&cands[i], d))
				sub[m++] = cands[i];
		}
		if (!m)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (cands[i].ndom == 0)
				sub[m++] = cands[i];
		}
		tried++;
		k = greedy(x, sub, m, tmp);
		if (k && less_disruptive(s, tmp, k, best, bn)) {
			memcpy(best, tmp, k * sizeof(*best));
			bn = k;
		}
	}
	return bn;
}

static size_t search_once(struct search *x, struct cand *cands, size_t n,
			  uint32_t *targets)
{
	struct sched *s = x->s;
	uint32_t *tmp = xcalloc(n + 1, sizeof(*tmp));
	uint32_t *dom = xcalloc(n + 1, sizeof(*dom));
	struct cand *sub = xcalloc(n + 1, sizeof(*sub));
	size_t k = greedy(x, cands, n, targets), dk = 0;

	if (x->a->tas_flavor >= 0)
		dk = by_domain(x, cands, n, dom, tmp, sub);
	if (dk && (!k || !less_disruptive(s, targets, k, dom, dk))) {
		memcpy(targets, dom, dk * sizeof(*dom));
		k = dk;
	}
	free(tmp);
	free(dom);
	free(sub);
	return k;
}

static enum sched_preempt_reason reason_of(const struct search *x,
					   const struct cand *c)
{
	if (c->own)
		return SCHED_PREEMPT_IN_CLUSTER_QUEUE;
	if (x->s->opt.fair_sharing)
		return SCHED_PREEMPT_FAIR_SHARING;
	return x->allow_borrow ? SCHED_PREEMPT_RECLAIM_WHILE_BORROWING
			       : SCHED_PREEMPT_RECLAMATION;
}

/* Admitted workloads in the preemptor's cohort tree: a bound on cands. */
static size_t admitted_in_tree(const struct sched *s, uint32_t id)
{
	int32_t root = s->cqs[s->wl[id].cq].root;
	size_t n = 0;

	for (size_t i = 0; i < s->ncq; i++) {
		if (s->cqs[i].root == root)
			n += s->cqs[i].admitted.len;
	}
	return n;
}

size_t preempt_find(struct sched *s, uint32_t id, const struct assign *a,
		    uint32_t **ret_targets,
		    enum sched_preempt_reason **ret_reasons)
{
	const struct cluster_queue *cq = s->cqs[s->wl[id].cq].cq;
	size_t max = admitted_in_tree(s, id);
	struct cand *cands = xcalloc(max + 1, sizeof(*cands));
	uint32_t *targets = xcalloc(max + 1, sizeof(*targets));
	enum sched_preempt_reason *reasons = xcalloc(max + 1, sizeof(*reasons));
	struct search x = { s, id, a, s->opt.fair_sharing, NULL };
	size_t n = collect(s, id, a, cands), k = 0;

	if (s->opt.fair_sharing) {
		x.extra = xcalloc(s->q.nfr, sizeof(int64_t));
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if (a->flavor[r] >= 0)
				x.extra[QUOTA_FR(a->flavor[r], r)] = a->need[r];
		}
	}
	if (n)
		k = search_once(&x, cands, n, targets);
	if (!k && n && !x.allow_borrow &&
	    cq->borrow_within_cohort != BORROW_PREEMPT_NEVER) {
		x.allow_borrow = true;
		k = search_once(&x, cands, n, targets);
	}
	for (size_t i = 0; i < k; i++) {
		for (size_t j = 0; j < n; j++) {
			if (cands[j].id == targets[i])
				reasons[i] = reason_of(&x, &cands[j]);
		}
	}
	free(x.extra);
	free(cands);
	*ret_targets = targets;
	*ret_reasons = reasons;
	return k;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Victim selection, as Kueue's preemption (pkg/scheduler/preemption).
 *
 * Classical: candidates are the admitted workloads that use a (flavor,
 * resource) needing preemption (or the preemptor's TAS flavor): of its
 * own queue by withinClusterQueue; of other queues, found walking up the
 * cohort tree and skipping subtrees within their nominal quota, by
 * reclaimWithinCohort. Those found below the lowest subtree that holds the
 * preemptor's request are "hierarchy" candidates (InCohortReclamation);
 * the others may only be taken without borrowing, or while borrowing under
 * borrowWithinCohort below its priority threshold
 * (InCohortReclaimWhileBorrowing). The list is hierarchy, then the other
 * queues', then the own queue's candidates, each lower priority and more
 * recently admitted first. Targets are taken greedily, while their queue
 * still borrows, until the preemptor fits, then those not needed are
 * given back in reverse order; the search runs with borrowing allowed,
 * forbidden or both, in Kueue's order.
 *
 * Fair sharing: queues are visited highest dominant share first, again
 * after each removal; a candidate of another queue is taken while that
 * queue's share after the removal stays at least the preemptor's queue's
 * share after admission (LessThanOrEqualToFinalShare), then, failing
 * that, while the preemptor's share stays below the target's
 * (LessThanInitialShare). A preemptor whose queue stays within its
 * nominal quota takes candidates without the share test
 * (FairSharingPreemptWithinNominal, InCohortReclamation).
 *
 * Topology-aware: on a TAS flavor the same search also runs once per
 * domain of the requested level with only the candidates in that domain,
 * and the smallest, lowest-priority set wins, so that one domain is freed
 * rather than victims scattered over racks that still do not make room.
 */
#include "sched/sched_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/* How a candidate may be taken: Kueue's preemptionVariant. */
enum variant {
	V_WITHIN_CQ,	       /* own queue: InClusterQueue */
	V_HIERARCHICAL,	       /* InCohortReclamation, any attempt */
	V_RECLAIM_NO_BORROW,   /* InCohortReclamation, preemptor not
				  borrowing */
	V_RECLAIM_WHILE_BORROW /* InCohortReclaimWhileBorrowing */
};

struct cand {
	uint32_t id;
	int32_t cq;  /* its ClusterQueue */
	int32_t lca; /* the subtree where it was found (-1: own queue) */
	bool own;    /* in the preemptor's queue */
	enum variant variant;
	uint8_t list;	 /* 0 hierarchy, 1 other queues, 2 own queue */
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

static bool policy_ok(const struct sched *s, enum preempt_within_cq policy,
		      const struct sched_wl *p, const struct sched_wl *v)
{
	switch (policy) {
	case PREEMPT_LOWER_PRIORITY:
		return v->priority < p->priority;
	case PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY:
		/* Kueue's SatisfiesPreemptionPolicy: equal priority and a
		 * strictly later queue-order timestamp; no other tie-break. */
		return v->priority < p->priority ||
		       (v->priority == p->priority &&
			v->queue_ts_us > p->queue_ts_us);
	case PREEMPT_ANY:
		return true;
	default:
		(void)s;
		return false;
	}
}

/* The flavor-resource pairs needing preemption: Kueue's frsNeedPreemption
 * (every requested one when only the placement is short). */
static uint32_t frs_of(const struct assign *a)
{
	uint32_t m = a->preempt_res;

	for (int r = 0; !m && r < RESOURCE_MAX; r++) {
		if (a->need[r] > 0 && a->flavor[r] >= 0)
			m |= 1u << r;
	}
	return m;
}

static bool uses(const struct sched_wl *v, const struct assign *a, uint32_t frs)
{
	const struct sched_admission *adm = v->adm;

	for (size_t i = 0; i < adm->npodsets; i++) {
		if (a->tas_flavor >= 0 &&
		    adm->ps[i].tas_flavor == a->tas_flavor)
			return true;
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if ((frs >> r & 1) && a->flavor[r] >= 0 &&
			    adm->ps[i].flavor[r] == a->flavor[r] &&
			    v->w->podsets[i].requests.v[r] > 0)
				return true;
		}
	}
	return false;
}

/* Kueue's IsWithinNominalInResources for quota node n. */
static bool within_nominal(const struct sched *s, int32_t n,
			   const struct assign *a, uint32_t frs)
{
	for (int r = 0; r < RESOURCE_MAX; r++) {
		if ((frs >> r & 1) && a->flavor[r] >= 0 &&
		    quota_borrowing(&s->q, n, QUOTA_FR(a->flavor[r], r)))
			return false;
	}
	return true;
}

/* Kueue's queueUnderNominalInResourcesNeedingPreemption. */
static bool under_nominal(const struct sched *s, int32_t cq,
			  const struct assign *a, uint32_t frs)
{
	for (int r = 0; r < RESOURCE_MAX; r++) {
		size_t fr;

		if (!(frs >> r & 1) || a->flavor[r] < 0)
			continue;
		fr = QUOTA_FR(a->flavor[r], r);
		if (s->q.nodes[cq].nominal[fr] <= s->q.nodes[cq].usage[fr])
			return false;
	}
	return true;
}

/*
 * Kueue's QuantitiesFitInQuota: whether rem (per resource, on a's
 * flavors) fits n's subtree quota; rem becomes what n's guarantee cannot
 * hold, for the next node up.
 */
static bool fits_in_quota(const struct sched *s, int32_t n,
			  const struct assign *a, int64_t *rem)
{
	bool fits = true;

	for (int r = 0; r < RESOURCE_MAX; r++) {
		size_t fr;
		int64_t left;

		if (a->flavor[r] < 0 || a->need[r] <= 0)
			continue;
		fr = QUOTA_FR(a->flavor[r], r);
		if (s->q.nodes[n].subtree[fr] <
		    s->q.nodes[n].usage[fr] + rem[r])
			fits = false;
		left = quota_guaranteed(&s->q, n, fr) - s->q.nodes[n].usage[fr];
		rem[r] -= left > 0 ? left : 0;
		if (rem[r] < 0)
			rem[r] = 0;
	}
	return fits;
}

/* Kueue's candidatesOrdering: lower priority, admitted more recently. */
static int cand_cmp(const void *x, const void *y, void *ctx)
{
	const struct cand *a = x, *b = y;
	const struct sched *s = ctx;
	const struct sched_wl *va = &s->wl[a->id], *vb = &s->wl[b->id];

	if (a->list != b->list)
		return a->list < b->list ? -1 : 1;
	if (a->own != b->own)
		return a->own ? 1 : -1;
	if (va->priority != vb->priority)
		return va->priority < vb->priority ? -1 : 1;
	/* admitted more recently first, by QuotaReserved's time; then, at
	 * one time, the later decision */
	if (va->admit_us != vb->admit_us)
		return va->admit_us > vb->admit_us ? -1 : 1;
	if (va->admit_seq != vb->admit_seq)
		return va->admit_seq > vb->admit_seq ? -1 : 1;
	return sched_name_cmp(s, a->id, b->id);
}

/* Whether v may be taken from another queue, and how. */
static bool classify(const struct sched *s, const struct sched_wl *p,
		     const struct sched_wl *v, bool advantage, struct cand *c)
{
	const struct cluster_queue *cq = s->cqs[p->cq].cq;

	if (!policy_ok(s, cq->reclaim_within_cohort, p, v))
		return false;
	if (advantage)
		c->variant = V_HIERARCHICAL;
	else if (cq->borrow_within_cohort == BORROW_PREEMPT_NEVER ||
		 v->priority >= p->priority ||
		 (cq->has_threshold &&
		  v->priority > cq->borrow_max_priority_threshold))
		c->variant = V_RECLAIM_NO_BORROW;
	else
		c->variant = V_RECLAIM_WHILE_BORROW;
	c->list = advantage ? 0 : 1;
	return true;
}

struct collector {
	struct sched *s;
	uint32_t id;
	const struct assign *a;
	uint32_t frs;
	struct cand *out;
	size_t n;
};

/* The admitted workloads of queue i that may be candidates. */
static void collect_cq(struct collector *k, int32_t i, int32_t lca,
		       bool advantage)
{
	struct sched *s = k->s;
	const struct sched_wl *p = &s->wl[k->id];
	bool own = i == p->cq;

	vec_foreach (&s->cqs[i].admitted, v) {
		struct cand c = { .id = *v, .cq = i, .lca = lca, .own = own };

		/* Admitted by this very cycle: the decision stands
		 * (Kueue takes victims from the cycle's snapshot). */
		if (s->wl[*v].admit_cycle == s->cycle ||
		    !uses(&s->wl[*v], k->a, k->frs))
			continue;
		if (own) {
			if (!policy_ok(s, s->cqs[i].cq->within_cluster_queue, p,
				       &s->wl[*v]))
				continue;
			c.variant = V_WITHIN_CQ;
			c.list = 2;
		} else if (!classify(s, p, &s->wl[*v], advantage, &c)) {
			continue;
		}
		k->out[k->n++] = c;
	}
}

/* Kueue's collectCandidatesInSubtree. */
static void collect_subtree(struct collector *k, int32_t node, int32_t lca,
			    int32_t skip, bool advantage)
{
	const struct quota_node *qn = &k->s->q.nodes[node];
	int32_t own = k->s->wl[k->id].cq;

	for (size_t i = 0; i < qn->nchildren; i++) {
		int32_t ch = qn->children[i];

		if (ch == skip || ch == own ||
		    within_nominal(k->s, ch, k->a, k->frs))
			continue;
		if (k->s->q.nodes[ch].is_cq)
			collect_cq(k, ch, lca, advantage);
		else
			collect_subtree(k, ch, lca, skip, advantage);
	}
}

/* Every candidate, in Kueue's order; the number into *ret_other of
 * those in other queues and into *ret_hier of hierarchy candidates. */
static size_t collect(struct sched *s, uint32_t id, const struct assign *a,
		      struct cand *out, size_t *ret_other, size_t *ret_hier)
{
	int32_t cq = s->wl[id].cq;
	const struct cluster_queue *c = s->cqs[cq].cq;
	struct collector k = { s, id, a, frs_of(a), out, 0 };
	int64_t rem[RESOURCE_MAX];
	size_t own, hier = 0;
	bool adv;

	if (c->within_cluster_queue != PREEMPT_NEVER)
		collect_cq(&k, cq, -1, false);
	own = k.n;
	if (s->q.nodes[cq].parent >= 0 &&
	    c->reclaim_within_cohort != PREEMPT_NEVER && s->opt.fair_sharing) {
		/* Kueue's findCandidates: every queue of the tree that
		 * borrows the contested resources */
		for (size_t i = 0; i < s->ncq; i++) {
			if ((int32_t)i != cq &&
			    s->cqs[i].root == s->cqs[cq].root &&
			    !within_nominal(s, (int32_t)i, a, k.frs))
				collect_cq(&k, (int32_t)i, -1, true);
		}
	} else if (s->q.nodes[cq].parent >= 0 &&
		   c->reclaim_within_cohort != PREEMPT_NEVER) {
		int32_t prev = cq;

		memcpy(rem, a->need, sizeof(rem));
		adv = fits_in_quota(s, cq, a, rem);
		for (int32_t n = s->q.nodes[cq].parent; n >= 0;
		     n = s->q.nodes[n].parent) {
			collect_subtree(&k, n, n, prev, adv);
			adv |= fits_in_quota(s, n, a, rem);
			prev = n;
		}
	}
	for (size_t i = own; i < k.n; i++)
		hier += out[i].list == 0;
	qsort_r(out, k.n, sizeof(*out), cand_cmp, s);
	*ret_other = k.n - own;
	*ret_hier = hier;
	return k.n;
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

/* Kueue's candidateIsValid: may c be taken now, in this attempt? */
static bool valid(const struct search *x, const struct cand *c)
{
	const struct sched *s = x->s;
	uint32_t frs = frs_of(x->a);

	if (c->own)
		return true;
	if (x->allow_borrow && c->variant == V_RECLAIM_NO_BORROW)
		return false;
	for (int32_t n = c->cq; n >= 0 && n != c->lca;
	     n = s->q.nodes[n].parent) {
		if (within_nominal(s, n, x->a, frs))
			return false;
	}
	return true;
}

/* Remove c if it may be taken now; whether it was removed. */
static bool take(const struct search *x, const struct cand *c)
{
	if (!valid(x, c))
		return false;
	charge(x->s, c->id, -1);
	return true;
}

/* A set of targets with the reason of each. */
struct targets {
	uint32_t *id;
	enum sched_preempt_reason *why;
	size_t n;
};

static enum sched_preempt_reason variant_reason(enum variant v)
{
	switch (v) {
	case V_WITHIN_CQ:
		return SCHED_PREEMPT_IN_CLUSTER_QUEUE;
	case V_RECLAIM_WHILE_BORROW:
		return SCHED_PREEMPT_RECLAIM_WHILE_BORROWING;
	default:
		return SCHED_PREEMPT_RECLAMATION;
	}
}

static void push(struct targets *t, uint32_t id, enum sched_preempt_reason r)
{
	t->id[t->n] = id;
	t->why[t->n++] = r;
}

/* Put every target back into the usage. */
static void restore(struct sched *s, struct targets *t)
{
	while (t->n > 0)
		charge(s, t->id[--t->n], 1);
}

/*
 * Kueue's fillBackWorkloads: the preemptor fits with t removed; give back,
 * from the second newest target down, each whose return still leaves room.
 * Leaves the usage as it found it (t removed).
 */
static void fill_back(const struct search *x, struct targets *t)
{
	struct sched *s = x->s;

	for (size_t i = t->n - 1; i-- > 0;) {
		charge(s, t->id[i], 1);
		if (assign_fits(s, x->id, x->a, x->allow_borrow)) {
			memmove(&t->id[i], &t->id[i + 1],
				(t->n - i - 1) * sizeof(*t->id));
			memmove(&t->why[i], &t->why[i + 1],
				(t->n - i - 1) * sizeof(*t->why));
			t->n--;
			continue;
		}
		charge(s, t->id[i], -1);
	}
}

/*
 * End of a search with out removed from the usage: when the preemptor
 * fits, the targets not needed are given back; the usage is restored
 * either way. Returns the number of targets (0 when it did not fit).
 */
static size_t settle(const struct search *x, struct targets *out, bool fit)
{
	if (!fit) {
		restore(x->s, out);
		return 0;
	}
	fill_back(x, out);
	for (size_t i = 0; i < out->n; i++)
		charge(x->s, out->id[i], 1);
	return out->n;
}

/* Whether taking every candidate it may would let the preemptor fit:
 * one oracle call instead of one per candidate when it would not. */
static bool could_fit(const struct search *x, const struct cand *cands,
		      size_t n, struct targets *tmp)
{
	bool fit;

	tmp->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (take(x, &cands[i]))
			push(tmp, cands[i].id, 0);
	}
	fit = tmp->n && assign_fits(x->s, x->id, x->a, x->allow_borrow);
	restore(x->s, tmp);
	return fit;
}

/* Kueue's classicalPreemptions, one attempt: greedy over cands, then fill
 * back. The targets into out (0 when none makes room); usage unchanged. */
static size_t greedy(const struct search *x, const struct cand *cands, size_t n,
		     struct targets *out)
{
	struct sched *s = x->s;
	bool fit = false;

	if (!could_fit(x, cands, n, out))
		return 0;
	out->n = 0;
	for (size_t i = 0; i < n && !fit; i++) {
		if (!take(x, &cands[i]))
			continue;
		push(out, cands[i].id, variant_reason(cands[i].variant));
		fit = assign_fits(s, x->id, x->a, x->allow_borrow);
	}
	return settle(x, out, fit);
}

/* The preemptor's queue, with its own request added, stays within its
 * nominal quota of the resources needing preemption. */
static bool preemptor_within_nominal(const struct search *x)
{
	const struct sched *s = x->s;
	int32_t cq = s->wl[x->id].cq;
	uint32_t frs = frs_of(x->a);

	for (int r = 0; r < RESOURCE_MAX; r++) {
		size_t fr;

		if (!(frs >> r & 1) || x->a->flavor[r] < 0)
			continue;
		fr = QUOTA_FR(x->a->flavor[r], r);
		if (s->q.nodes[cq].usage[fr] + x->a->need[r] >
		    s->q.nodes[cq].subtree[fr])
			return false;
	}
	return true;
}

static int64_t share_of(const struct search *x, int32_t cq)
{
	int32_t mine = x->s->wl[x->id].cq;

	return quota_share(&x->s->q, cq, cq == mine ? x->extra : NULL);
}

/*
 * Kueue's fair-sharing target ordering (fairsharing/ordering.go), over
 * the candidates not yet looked at (unused[i]): the queue with the highest
 * dominant share now, the preemptor's own with its request added; queues
 * of others that no longer borrow are out. Ties go to the queue whose
 * next candidate comes first. Returns the index of that queue's next
 * candidate, or -1.
 */
static ssize_t next_target(const struct search *x, const struct cand *cands,
			   size_t n, const bool *unused)
{
	int32_t mine = x->s->wl[x->id].cq;
	ssize_t best = -1;
	int64_t best_share = -1;

	for (size_t i = 0; i < n; i++) {
		int32_t cq = cands[i].cq;
		bool first = true;
		int64_t sh;

		if (!unused[i])
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = !(unused[j] && cands[j].cq == cq);
		if (!first || (cq != mine && !quota_borrows_any(&x->s->q, cq)))
			continue;
		sh = share_of(x, cq);
		if (best < 0 || sh > best_share) {
			best = (ssize_t)i;
			best_share = sh;
		}
	}
	return best;
}

/* Take cands[i] for the fair-sharing search; whether the preemptor fits. */
static bool fs_take(const struct search *x, const struct cand *c,
		    enum sched_preempt_reason why, struct targets *out)
{
	charge(x->s, c->id, -1);
	push(out, c->id, why);
	return assign_fits(x->s, x->id, x->a, true);
}

/*
 * Kueue's fairPreemptions over cands (ordered by candidatesOrdering):
 * the first strategy (LessThanOrEqualToFinalShare) queue by queue, the
 * queue chosen again after each removal; the candidates that failed it
 * then get the second (LessThanInitialShare), one per queue. The targets
 * into out (0 when none makes room); usage unchanged.
 */
static size_t fs_run(const struct search *x, const struct cand *cands, size_t n,
		     struct targets *out)
{
	struct sched *s = x->s;
	int32_t mine = s->wl[x->id].cq;
	bool within = preemptor_within_nominal(x), fit = false;
	bool *unused = xcalloc(n + 1, sizeof(bool));
	bool *retry = xcalloc(n + 1, sizeof(bool));
	ssize_t i;

	out->n = 0;
	for (size_t k = 0; k < n; k++)
		unused[k] = true;
	while (!fit && (i = next_target(x, cands, n, unused)) >= 0) {
		int32_t cq = cands[i].cq;
		int64_t pshare;

		if (cq == mine || within) {
			unused[i] = false;
			fit = fs_take(x, &cands[i],
				      cq == mine
					      ? SCHED_PREEMPT_IN_CLUSTER_QUEUE
					      : SCHED_PREEMPT_RECLAMATION,
				      out);
			continue;
		}
		pshare = share_of(x, mine);
		for (size_t k = (size_t)i; k < n && !fit; k++) {
			if (!unused[k] || cands[k].cq != cq)
				continue;
			unused[k] = false;
			charge(s, cands[k].id, -1);
			if (pshare <= quota_share(&s->q, cq, NULL)) {
				push(out, cands[k].id,
				     SCHED_PREEMPT_FAIR_SHARING);
				fit = assign_fits(s, x->id, x->a, true);
				break; /* choose the queue again */
			}
			charge(s, cands[k].id, 1);
			retry[k] = true;
		}
	}
	while (!fit && (i = next_target(x, cands, n, retry)) >= 0) {
		int32_t cq = cands[i].cq;

		if (share_of(x, mine) < quota_share(&s->q, cq, NULL))
			fit = fs_take(x, &cands[i], SCHED_PREEMPT_FAIR_SHARING,
				      out);
		for (size_t k = 0; k < n; k++)
			retry[k] &= cands[k].cq != cq; /* one per queue */
	}
	free(unused);
	free(retry);
	return settle(x, out, fit);
}

static size_t run(const struct search *x, const struct cand *cands, size_t n,
		  struct targets *out)
{
	return x->s->opt.fair_sharing ? fs_run(x, cands, n, out)
				      : greedy(x, cands, n, out);
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
			struct targets *best, struct targets *tmp,
			struct cand *sub)
{
	struct sched *s = x->s;
	const struct topo *t = s->tas[x->a->tas_flavor].t;
	unsigned level = tas_level(s, &s->wl[x->id], x->a->tas_flavor);
	size_t tried = 0;

	best->n = 0;
	for (size_t i = 0; i < n; i++)
		note_domains(s, x->a, level, &cands[i]);
	for (uint32_t d = t->level_off[level];
	     d < t->level_off[level + 1] && tried < s->opt.max_tas_domains;
	     d++) {
		size_t m = 0;

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
		if (run(x, sub, m, tmp) &&
		    less_disruptive(s, tmp->id, tmp->n, best->id, best->n)) {
			memcpy(best->id, tmp->id, tmp->n * sizeof(*tmp->id));
			memcpy(best->why, tmp->why, tmp->n * sizeof(*tmp->why));
			best->n = tmp->n;
		}
	}
	return best->n;
}

static void targets_alloc(struct targets *t, size_t n)
{
	t->id = xcalloc(n + 1, sizeof(*t->id));
	t->why = xcalloc(n + 1, sizeof(*t->why));
	t->n = 0;
}

static void targets_free(struct targets *t)
{
	free(t->id);
	free(t->why);
}

/* One attempt: over all candidates, and domain by domain on a TAS flavor;
 * the least disruptive set into out. */
static size_t search_once(struct search *x, struct cand *cands, size_t n,
			  struct targets *out)
{
	struct sched *s = x->s;
	struct targets tmp, dom;
	struct cand *sub;

	run(x, cands, n, out);
	if (x->a->tas_flavor < 0)
		return out->n;
	targets_alloc(&tmp, n);
	targets_alloc(&dom, n);
	sub = xcalloc(n + 1, sizeof(*sub));
	if (by_domain(x, cands, n, &dom, &tmp, sub) &&
	    (!out->n || !less_disruptive(s, out->id, out->n, dom.id, dom.n))) {
		memcpy(out->id, dom.id, dom.n * sizeof(*dom.id));
		memcpy(out->why, dom.why, dom.n * sizeof(*dom.why));
		out->n = dom.n;
	}
	targets_free(&tmp);
	targets_free(&dom);
	free(sub);
	return out->n;
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

/*
 * The search of Kueue's getTargets: fair sharing in one run; classical
 * with borrowing allowed, forbidden or both, in the order of
 * classicalPreemptions.
 */
static size_t find(struct sched *s, uint32_t id, const struct assign *a,
		   struct targets *out)
{
	const struct cluster_queue *cq = s->cqs[s->wl[id].cq].cq;
	size_t max, other, hier, n;
	struct cand *cands;
	struct search x = { s, id, a, true, NULL };
	bool forbidden = cq->borrow_within_cohort == BORROW_PREEMPT_NEVER;
	bool tries[2] = { true, false };
	size_t ntries = 2;

	if (!assign_can_preempt(s, s->wl[id].cq)) {
		targets_alloc(out, 0);
		return 0;
	}
	max = admitted_in_tree(s, id);
	if (!s->cand_buf || max > s->cand_cap) {
		free(s->cand_buf);
		s->cand_cap = max * 2;
		s->cand_buf = xmalloc((s->cand_cap + 1) * sizeof(*cands));
	}
	cands = s->cand_buf;
	n = collect(s, id, a, cands, &other, &hier);
	targets_alloc(out, n);
	if (!n)
		goto out;
	if (s->opt.fair_sharing) {
		x.extra = xcalloc(s->q.nfr, sizeof(int64_t));
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if (a->flavor[r] >= 0)
				x.extra[QUOTA_FR(a->flavor[r], r)] = a->need[r];
		}
		search_once(&x, cands, n, out);
		goto out;
	}
	if (!other ||
	    (forbidden && !under_nominal(s, s->wl[id].cq, a, frs_of(a)))) {
		ntries = 1;
	} else if (forbidden && !hier) {
		tries[0] = false;
		tries[1] = true;
	}
	for (size_t k = 0; k < ntries && !out->n; k++) {
		x.allow_borrow = tries[k];
		search_once(&x, cands, n, out);
	}
out:
	free(x.extra);
	return out->n;
}

size_t preempt_find(struct sched *s, uint32_t id, const struct assign *a,
		    uint32_t **ret_targets,
		    enum sched_preempt_reason **ret_reasons)
{
	struct targets t;
	size_t n = find(s, id, a, &t);

	*ret_targets = t.id;
	*ret_reasons = t.why;
	return n;
}

enum assign_pmode preempt_oracle(struct sched *s, uint32_t id,
				 const struct assign *probe,
				 int32_t *ret_borrow)
{
	struct targets t;
	enum assign_pmode m = ASSIGN_PM_RECLAIM;
	int32_t cq = s->wl[id].cq, h = 0;
	size_t n = find(s, id, probe, &t);

	for (size_t i = 0; i < n; i++) {
		charge(s, t.id[i], -1);
		if (s->wl[t.id[i]].adm->cq == cq)
			m = ASSIGN_PM_PREEMPT;
	}
	for (int r = 0; r < RESOURCE_MAX; r++) {
		bool reclaim;
		int32_t hr;

		if (probe->flavor[r] < 0 || probe->need[r] <= 0)
			continue;
		hr = quota_fit_height(&s->q, cq, QUOTA_FR(probe->flavor[r], r),
				      probe->need[r], &reclaim);
		h = hr > h ? hr : h;
	}
	for (size_t i = 0; i < n; i++)
		charge(s, t.id[i], 1);
	targets_free(&t);
	*ret_borrow = h;
	return n ? m : ASSIGN_PM_NO_CANDIDATES;
}

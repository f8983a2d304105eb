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

static bool can_preempt(const struct sched *s, int32_t cq)
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

/* The outcome of one flavor of a group. */
struct
try {
	enum assign_mode mode;
	bool borrow, tas_short;
	bool exceeds, waits;
};

static void amount(const struct sched *s, int r, int64_t v, struct strbuf *out)
{
	quantity_format(v, s->c->resources->kinds[r], out);
}

static void quota_mode(struct sched *s, int32_t cq, int32_t f,
		       const struct resource_group *g, const struct assign *a,
		       struct try *t, struct strbuf *msg)
{
	const char *fn = s->c->flavors.items[f].name;

	for (size_t k = 0; k < g->ncovered; k++) {
		int r = g->covered[k];
		size_t fr = QUOTA_FR(f, r);
		int64_t need = a->need[r], pot, avail;
		const char *rn = resource_name(s->c->resources, r);

		if (need <= 0)
			continue;
		pot = s->q.nodes[cq].listed[fr] ? quota_potential(&s->q, cq, fr)
						: 0;
		avail = quota_available(&s->q, cq, fr);
		if (need > pot) {
			t->mode = ASSIGN_NOFIT;
			t->exceeds = true;
			add_strs(msg, msg->len ? "; " : "",
				 "insufficient quota for ", rn, " in flavor ",
				 fn, ", request > maximum capacity (", NULL);
			amount(s, r, need, msg);
			strbuf_addstr(msg, " > ");
			amount(s, r, pot, msg);
			strbuf_addch(msg, ')');
		} else if (need > avail) {
			if (t->mode == ASSIGN_FIT)
				t->mode = can_preempt(s, cq) ? ASSIGN_PREEMPT
							     : ASSIGN_NOFIT;
			t->waits = true;
			add_strs(msg, msg->len ? "; " : "",
				 "insufficient unused quota for ", rn,
				 " in flavor ", fn, ", ", NULL);
			amount(s, r, need - (avail > 0 ? avail : 0), msg);
			strbuf_addstr(msg, " more needed");
		} else if (s->q.nodes[cq].usage[fr] + need >
			   s->q.nodes[cq].subtree[fr]) {
			t->borrow = true;
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

static void try_flavor(struct sched *s, uint32_t id, int32_t f,
		       const struct resource_group *g, struct assign *a,
		       struct try *t, struct strbuf *msg)
{
	struct sched_wl *wl = &s->wl[id];
	const struct topology_request *tr = &wl->w->podsets[0].topology;

	memset(t, 0, sizeof(*t));
	t->mode = ASSIGN_FIT;
	quota_mode(s, wl->cq, f, g, a, t, msg);
	if (t->mode != ASSIGN_FIT || !s->tas[f].t)
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
	t->mode = can_preempt(s, wl->cq) ? ASSIGN_PREEMPT : ASSIGN_NOFIT;
}

static bool better(const struct try *t, const struct try *best)
{
	if (t->mode != best->mode)
		return t->mode < best->mode;
	return !t->borrow && best->borrow;
}

/* Kueue's stop rule: whether to stop the walk at a flavor like t. */
static bool stop_at(const struct cluster_queue *cq, const struct try *t)
{
	if (t->mode == ASSIGN_FIT)
		return !t->borrow || cq->when_can_borrow == FUNGIBILITY_BORROW;
	if (t->mode == ASSIGN_PREEMPT)
		return cq->when_can_preempt == FUNGIBILITY_PREEMPT;
	return false;
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
	const struct cluster_queue *cq = s->cqs[s->wl[id].cq].cq;
	struct try best = { .mode = ASSIGN_NOFIT + 1 }, t;
	bool any = false, all_exceed = true, waits = false, topo = false;
	int32_t best_f = -1;

	struct strbuf fm;

	strbuf_init(&fm);
	for (size_t k = 0; k < g->nflavors; k++) {
		const struct flavor *fl = cluster_find(s->c, KIND_FLAVOR, NULL,
						       g->flavors[k].flavor);
		int32_t f = -1;

		strbuf_reset(&fm);
		if (fl && assign_eligible(s, s->wl[id].w, fl, &fm)) {
			f = (int32_t)(fl - s->c->flavors.items);
			any = true;
			try_flavor(s, id, f, g, a, &t, &fm);
			all_exceed &= t.exceeds;
			waits |= t.waits && !t.exceeds;
			topo |= t.tas_short;
			if (better(&t, &best)) {
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
	if (best_f < 0 || best.mode == ASSIGN_NOFIT) {
		a->mode = ASSIGN_NOFIT;
		a->why.code = group_reason(any, all_exceed, waits, topo);
		return;
	}
	for (size_t k = 0; k < g->ncovered; k++) {
		if (a->need[g->covered[k]] > 0)
			a->flavor[g->covered[k]] = (int16_t)best_f;
	}
	if (best.mode > a->mode)
		a->mode = best.mode;
	if (best.mode == ASSIGN_PREEMPT && a->why.code == SCHED_PEND_EVALUATION)
		a->why.code = best.tas_short ? SCHED_PEND_TOPOLOGY
					     : SCHED_PEND_WAITING_FOR_QUOTA;
	a->borrows |= best.borrow;
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
	a->borrows = a->tas_short = false;
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

// SPDX-License-Identifier: Apache-2.0
/*
 * Export and import of the scheduler's state per workload (sched.h,
 * struct sched_saved), so that a scheduler rebuilt over the same
 * cluster (after a restart, or a change of queues, flavors or topologies)
 * continues exactly where the old one stopped. Caches (placement memos,
 * parked classes) are not state: the new scheduler finds the same answers
 * again.
 */
#include "sched/sched_int.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

void sched_wl_export(const struct sched *s, uint32_t id,
		     struct sched_saved *out)
{
	const struct sched_wl *wl;

	BUG_ON(id >= s->nwl || !s->wl[id].w);
	wl = &s->wl[id];
	memset(out, 0, sizeof(*out));
	out->state = wl->state;
	out->deactivated = wl->deactivated;
	/* pending in its queue: not deactivated, not waiting for its
	 * backoff, not a victim whose pods are still going */
	out->queued = wl->state == SCHED_WL_PENDING && !wl->deactivated &&
		      !wl->held && !queue_contains(&s->waiting, id);
	out->queue_ts_us = wl->queue_ts_us;
	out->requeue_at_us =
		queue_contains(&s->waiting, id) ? wl->requeue_at_us : 0;
	out->admit_us = wl->admit_us;
	out->why = wl->why.code;
	out->why_msg = wl->why.msg;
	if (out->queued && sched_parked_why(s, id)) {
		const struct sched_why *w = sched_parked_why(s, id);

		out->parked = true;
		out->why = w->code;
		out->why_msg = w->msg;
	}
	out->seq = wl->seq;
	out->admit_seq = wl->admit_seq;
	out->admit_cycle = wl->admit_cycle;
	out->adm = wl->adm;
	out->held = wl->held;
	out->held_for = wl->held_for;
	out->victims_held = wl->victims_held;
	out->est_us = wl->est_us;
	out->resv_flavor =
		sched_wl_reservation(s, id, &out->resv_start_us,
				     &out->resv_nodes, &out->resv_nnodes) +
		1;
	for (int c = 0; c < SCHED_COND_COUNT; c++)
		out->cond[c] = *sched_cond_of(wl, (enum sched_cond)c);
}

void sched_export_global(const struct sched *s, struct sched_global *out)
{
	out->seq = s->seq;
	out->admit_seq = s->admit_seq;
	out->cycle = s->cycle;
	out->bf = s->bf;
}

void sched_import_global(struct sched *s, const struct sched_global *in)
{
	s->seq = in->seq;
	s->admit_seq = in->admit_seq;
	s->cycle = in->cycle;
	s->bf = in->bf;
}

/* A copy of an exported admission, checked against this scheduler. */
static int copy_adm(struct sched *s, const struct workload *w,
		    const struct sched_admission *in,
		    struct sched_admission **ret)
{
	struct sched_admission *a;

	if (in->cq < 0 || (size_t)in->cq >= s->ncq ||
	    in->npodsets != w->npodsets)
		return -EINVAL;
	a = xcalloc(1, sizeof(*a));
	*a = *in;
	for (size_t i = 0; i < a->npodsets; i++)
		a->ps[i].nodes = NULL; /* in's: copied below */
	for (size_t i = 0; i < a->npodsets; i++) {
		const struct sched_podset_admission *p = &in->ps[i];
		int32_t f = p->tas_flavor;

		if (f < 0 || !p->nodes)
			continue;
		if ((size_t)f >= s->c->flavors.len || !s->tas[f].t) {
			sched_free_adm(a);
			return -EINVAL;
		}
		a->ps[i].nodes =
			xcalloc((size_t)p->count + 1, sizeof(*p->nodes));
		memcpy(a->ps[i].nodes, p->nodes,
		       (size_t)p->count * sizeof(*p->nodes));
	}
	*ret = a;
	return 0;
}

/* Park id again when it was parked: the first member of its class to
 * come back parks the class, the others follow into it. */
static void park(struct sched *s, uint32_t id, const struct sched_saved *in)
{
	struct sched_cq *q = &s->cqs[s->wl[id].cq];
	struct sched_why why = { .code = in->why, .msg = (char *)in->why_msg };
	int64_t i;

	if (!in->parked || !hmap_get(&q->class_of, &s->wl[id].hash,
				     sizeof(s->wl[id].hash), &i))
		return;
	if (q->classes.items[i].out == id) {
		queue_remove(&q->heap, id);
		sched_park(s, id, &why);
	}
}

bool sched_cq_dirty(const struct sched *s, int32_t cq)
{
	return s->cqs[cq].dirty;
}

void sched_cq_set_dirty(struct sched *s, int32_t cq)
{
	s->cqs[cq].dirty = true;
}

static void set_conds(struct sched_wl *wl, const struct sched_saved *in)
{
	sched_conds_free(wl);
	for (int c = 0; c < SCHED_COND_COUNT; c++) {
		const struct sched_condition *x = &in->cond[c];

		if (!x->present)
			continue;
		sched_set_cond(wl, (enum sched_cond)c, x->status, x->reason,
			       x->message ? xstrdup(x->message) : NULL,
			       x->transition_us);
		wl->conds->cond[c].transition_us = x->transition_us;
	}
}

int sched_wl_import(struct sched *s, uint32_t id, const struct sched_saved *in,
		    int64_t now_us)
{
	struct sched_wl *wl;
	struct sched_admission *adm = NULL, *held = NULL;
	int rc;

	BUG_ON(id >= s->nwl || !s->wl[id].w);
	wl = &s->wl[id];
	BUG_ON(wl->state != SCHED_WL_NEW);
	sched_touch(s, id);
	if (in->held) {
		rc = copy_adm(s, wl->w, in->held, &held);
		if (rc < 0)
			return rc;
	}
	if (in->state == SCHED_WL_ADMITTED) {
		if (!in->adm)
			return -EINVAL;
		rc = copy_adm(s, wl->w, in->adm, &adm);
		if (rc < 0) {
			sched_free_adm(held);
			return rc;
		}
	}
	if (held)
		sched_hold_restored(s, id, held);
	wl->held_for = in->held_for;
	wl->victims_held = in->victims_held;
	wl->est_us = in->est_us;
	if (in->state == SCHED_WL_PENDING)
		backfill_import(s, id, in);
	wl->deactivated = in->deactivated;
	wl->queue_ts_us = in->queue_ts_us;
	wl->seq = in->seq;
	switch (in->state) {
	case SCHED_WL_ADMITTED:
		sched_admit_restored(s, id, adm, in->admit_us);
		wl->admit_seq = in->admit_seq;
		wl->admit_cycle = in->admit_cycle;
		break;
	case SCHED_WL_PENDING:
		wl->state = SCHED_WL_PENDING;
		sched_why_set(&wl->why, in->why,
			      in->why_msg ? xstrdup(in->why_msg) : NULL);
		if (in->requeue_at_us) {
			wl->requeue_at_us = in->requeue_at_us;
			queue_push(&s->waiting, id);
		} else if (in->queued && wl->cq >= 0) {
			sched_enqueue(s, id);
			park(s, id, in);
		} else if (in->held) {
			/* queued again when its pods are gone */
		} else if (wl->deactivated) {
			sched_why_set(&wl->why, SCHED_PEND_DEACTIVATED,
				      xstrdup("the workload is deactivated "
					      "(spec.active: false)"));
		} else {
			/* held out of every queue: submitted again */
			wl->state = SCHED_WL_NEW;
			sched_submit(s, id, now_us);
			wl->queue_ts_us = in->queue_ts_us;
			wl->seq = in->seq;
		}
		break;
	default:
		wl->state = in->state;
		break;
	}
	set_conds(wl, in);
	return 0;
}

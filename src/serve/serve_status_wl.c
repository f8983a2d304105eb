// SPDX-License-Identifier: Apache-2.0
/*
 * Workload and PodGroup status from the model. A Workload gets Kueue's
 * conditions (the scheduler's, and PodsReady from the gang lifecycle when
 * waitForPodsReady is on), status.admission in v1beta2 and requeueState;
 * the Events Kueue records go out on the edges, found by comparing the
 * stored status with the new one, so an edge is seen once however often
 * the sync runs, and again after a restart only if the status changed.
 * A model workload without a Workload object but with a PodGroup of its
 * name gets Coscheduling's PodGroup status.
 */
#include "serve/serve_status_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "manifest/enc.h"
#include "model/config.h"
#include "serve/serve_event.h"
#include "serve/serve_status.h"
#include "status/status.h"

#include "base/banned.h"

/* What the Workload's conditions were before this sync, by type. */
struct edges {
	enum ss_prev prev[SCHED_COND_COUNT];
	struct sched_condition now[SCHED_COND_COUNT];
	bool pending_changed; /* QuotaReserved False, new reason or text */
};

/* Whether condition type in conds differs from reason and message. */
static bool cond_differs(const json_t *conds, const char *type,
			 const char *reason, const char *message)
{
	const json_t *c = ss_cond_find(conds, type);
	const char *r = json_string_value(json_object_get(c, "reason"));
	const char *m = json_string_value(json_object_get(c, "message"));

	return !r || !m || strcmp(r, reason) != 0 ||
	       strcmp(m, message ? message : "") != 0;
}

/* Kueue's job reconciler (generatePodsReadyCondition) from the gang's
 * state and the stored condition. */
static void pods_ready(struct ss *ss, uint32_t wl, json_t *conds, int64_t gen)
{
	static const char not_ready[] = "Not all pods are ready or succeeded",
			  recovering[] = "At least one pod has failed, waiting "
					 "for recovery",
			  ready[] = "All pods reached readiness and the "
				    "workload is running";
	const json_t *old = ss_cond_find(conds, "PodsReady");
	const char *old_reason =
		json_string_value(json_object_get(old, "reason"));
	const char *old_status =
		json_string_value(json_object_get(old, "status"));
	bool admitted = sched_wl_state(ss->sc, wl) == SCHED_WL_ADMITTED;
	bool all = admitted && gang_state(ss->g, wl) == GANG_READY;
	bool was_recovering =
		old_reason && (strcmp(old_reason, "WaitForRecovery") == 0 ||
			       strcmp(old_reason, "Recovered") == 0);

	if (all)
		ss_cond_set(conds, "PodsReady", true,
			    was_recovering ? "Recovered" : "Started", ready, 0,
			    gen, ss->now_us);
	else if (admitted && old_status && strcmp(old_status, "True") == 0)
		ss_cond_set(conds, "PodsReady", false, "WaitForRecovery",
			    recovering, 0, gen, ss->now_us);
	else if (admitted && old_reason &&
		 strcmp(old_reason, "WaitForRecovery") == 0)
		ss_cond_set(conds, "PodsReady", false, "WaitForRecovery",
			    recovering, 0, gen, ss->now_us);
	else
		ss_cond_set(conds, "PodsReady", false, "WaitForStart",
			    not_ready, 0, gen, ss->now_us);
}

/* status.requeueState {count, requeueAt}, or NULL when never requeued. */
static json_t *requeue_state(struct ss *ss, uint32_t wl)
{
	struct sched_saved sv;
	int64_t n = gang_requeues(ss->g, wl);
	json_t *j;

	sched_wl_export(ss->sc, wl, &sv);
	if (n <= 0 && sv.requeue_at_us <= 0)
		return NULL;
	j = json_object();
	if (n > 0)
		json_object_set_new(j, "count", json_integer(n));
	if (sv.requeue_at_us > 0)
		json_object_set_new(j, "requeueAt",
				    enc_timestamp(sv.requeue_at_us));
	return j;
}

/* Count an Event written (rc 0) or the first failure. */
static void count_event(struct ss *ss, int rc)
{
	if (rc < 0 && !ss->err)
		ss->err = rc;
	else if (rc >= 0)
		ss->writes++;
}

static double secs(int64_t us)
{
	return us > 0 ? (double)us / 1e6 : 0;
}

/* One Event per condition that turned True in this write. */
static void record_edges(struct ss *ss, uint32_t wl, const json_t *regarding,
			 const struct edges *e)
{
	const struct sched_condition *qr = &e->now[SCHED_COND_QUOTA_RESERVED];
	const char *cq = sched_cq_name(ss->sc, sched_wl_cq(ss->sc, wl));
	struct sched_saved sv;
	char reason[128];

	sched_wl_export(ss->sc, wl, &sv);
	/* Kueue's scheduler after a failed attempt: a Warning with the
	 * pending reason and message (not before the first attempt) */
	if (e->pending_changed && strcmp(qr->reason, "PendingEvaluation") != 0)
		count_event(ss,
			    serve_event(ss->s, regarding, "Warning", qr->reason,
					qr->reason, SERVE_STATUS_ADMISSION,
					ss->now_us, "%s",
					qr->message ? qr->message : ""));
	for (int t = 0; t < SCHED_COND_COUNT; t++) {
		const struct sched_condition *k = &e->now[t];
		const char *msg = k->message ? k->message : "";
		int rc = 0;

		if (!k->present || !k->status || e->prev[t] == SS_TRUE)
			continue;
		switch ((enum sched_cond)t) {
		case SCHED_COND_QUOTA_RESERVED:
			rc = serve_event(
				ss->s, regarding, "Normal", "QuotaReserved",
				"QuotaReserved", SERVE_STATUS_ADMISSION,
				ss->now_us,
				"Quota reserved in ClusterQueue %s, "
				"wait time since queued was %.0fs",
				cq ? cq : "",
				secs(k->transition_us - sv.queue_ts_us));
			break;
		case SCHED_COND_ADMITTED:
			rc = serve_event(
				ss->s, regarding, "Normal", "Admitted",
				"Admitted", SERVE_STATUS_ADMISSION, ss->now_us,
				"Admitted by ClusterQueue %s, wait "
				"time since reservation was %.0fs",
				cq ? cq : "",
				secs(k->transition_us - qr->transition_us));
			break;
		case SCHED_COND_PREEMPTED:
			rc = serve_event(ss->s, regarding, "Normal",
					 "Preempted", "Preempted",
					 SERVE_STATUS_ADMISSION, ss->now_us,
					 "%s", msg);
			break;
		case SCHED_COND_EVICTED:
			/* Kueue's ReasonWithCause: "EvictedDueTo<reason>" */
			snprintf(reason, sizeof(reason), "EvictedDueTo%s",
				 k->reason);
			rc = serve_event(ss->s, regarding, "Normal", reason,
					 reason, SERVE_STATUS_WORKLOAD_CTL,
					 ss->now_us, "%s", msg);
			break;
		case SCHED_COND_REQUEUED:
		case SCHED_COND_FINISHED:
			rc = serve_event(ss->s, regarding, "Normal",
					 sched_cond_name((enum sched_cond)t),
					 sched_cond_name((enum sched_cond)t),
					 SERVE_STATUS_WORKLOAD_CTL, ss->now_us,
					 "%s", msg);
			break;
		default:
			break;
		}
		count_event(ss, rc);
	}
}

/* The status of Workload o from model workload wl. */
static void workload_status(struct ss *ss, uint32_t wl, const struct api_obj *o)
{
	json_t *conds, *st = ss_status_copy(o, &conds);
	json_t *adm, *rq, *regarding;
	int64_t gen = ss_generation(o->body);
	struct edges e = { .pending_changed = false };

	for (int t = 0; t < SCHED_COND_COUNT; t++) {
		struct sched_condition k =
			sched_wl_condition(ss->sc, wl, (enum sched_cond)t);

		e.now[t] = k;
		e.prev[t] = SS_ABSENT;
		if (t == SCHED_COND_QUOTA_RESERVED && k.present && !k.status)
			e.pending_changed = cond_differs(conds, "QuotaReserved",
							 k.reason, k.message);
		if (k.present)
			e.prev[t] = ss_cond_set(
				conds, sched_cond_name((enum sched_cond)t),
				k.status, k.reason, k.message, k.transition_us,
				gen, ss->now_us);
	}
	if (cluster_config(ss->c)->wait_for_pods_ready.enable)
		pods_ready(ss, wl, conds, gen);
	/* a finished workload keeps the admission it ran with, as Kueue's
	 * (its quota is free: the scheduler holds no admission for it) */
	adm = status_admission(ss->c, ss->sc, wl);
	if (adm)
		json_object_set_new(st, "admission", adm);
	else if (sched_wl_state(ss->sc, wl) != SCHED_WL_FINISHED)
		json_object_del(st, "admission");
	rq = requeue_state(ss, wl);
	if (rq)
		json_object_set_new(st, "requeueState", rq);
	else
		json_object_del(st, "requeueState");
	regarding = json_incref(o->body); /* o is stale after the write */
	if (ss_put_status(ss, o, st) > 0)
		record_edges(ss, wl, regarding, &e);
	json_decref(regarding);
}

struct occupant {
	const char *group;
	json_t *refs; /* "ns/owner" strings */
};

static int first_member(void *ctx, const struct api_obj *o)
{
	struct occupant *oc = ctx;
	const json_t *md = json_object_get(o->body, "metadata");
	const char *g = json_string_value(
		json_object_get(json_object_get(md, "labels"),
				"scheduling.x-k8s.io/pod-group"));
	const json_t *refs = json_object_get(md, "ownerReferences");
	const json_t *r;
	size_t i;

	if (!g || strcmp(g, oc->group) != 0)
		return 0;
	json_array_foreach(refs, i, r)
	{
		const char *name =
			json_string_value(json_object_get(r, "name"));

		if (name)
			json_array_append_new(
				oc->refs, json_sprintf("%s/%s", o->ns, name));
	}
	return 1;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
		      json_string_value(*(json_t *const *)b));
}

/* Coscheduling's occupiedBy, set when the group leaves Pending: the owners
 * of its first pod ("ns/name", sorted, joined by ","), or NULL. */
static json_t *occupied_by(struct ss *ss, const struct api_obj *pg)
{
	const struct api_kind *k = ss_kind("v1", "Pod");
	struct occupant oc = { pg->name, json_array() };
	json_t **v, *out = NULL;
	size_t n = 0;
	struct strbuf sb;

	if (ss->st->member) {
		const json_t *body =
			ss->st->member(ss->st->member_ctx, pg->ns, pg->name);
		struct api_obj o = { .ns = pg->ns, .body = (json_t *)body };

		if (body)
			(void)first_member(&oc, &o);
	} else if (k) {
		(void)api_store_each(ss->s, k, pg->ns, NULL, NULL, first_member,
				     &oc);
	}
	n = json_array_size(oc.refs);
	if (n) {
		v = xcalloc(n, sizeof(*v));
		strbuf_init(&sb);
		for (size_t i = 0; i < n; i++)
			v[i] = json_array_get(oc.refs, i);
		qsort(v, n, sizeof(*v), by_text);
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&sb, "%s%s", i ? "," : "",
				    json_string_value(v[i]));
		out = json_string(sb.buf);
		strbuf_release(&sb);
		free(v);
	}
	json_decref(oc.refs);
	return out;
}

/*
 * A gang without a Workload object keeps its admission on its PodGroup
 * (annotation SERVE_ADMISSION_ANNOTATION, the v1beta2 status.admission),
 * so that a restarted scheduler adopts it (serve_sched_gang.c) instead of
 * finding bound pods it cannot account to any quota; so does a Job when
 * the cluster stores no Workload objects (serve_sched_job.c).
 */
static void admission_annotation(struct ss *ss, uint32_t wl,
				 const struct api_obj *o)
{
	json_t *adm = status_admission(ss->c, ss->sc, wl);
	char *text =
		adm ? json_dumps(adm, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	const json_t *anns = json_object_get(
		json_object_get(o->body, "metadata"), "annotations");
	const char *cur = json_string_value(
		json_object_get(anns, SERVE_ADMISSION_ANNOTATION));
	json_t *body, *md, *a;
	int rc;

	json_decref(adm);
	if (text ? cur && strcmp(text, cur) == 0 : !cur) {
		free(text);
		return;
	}
	body = json_deep_copy(o->body);
	md = json_object_get(body, "metadata");
	a = json_object_get(md, "annotations");
	if (!json_is_object(a)) {
		a = json_object();
		json_object_set_new(md, "annotations", a);
	}
	if (text)
		json_object_set_new(a, SERVE_ADMISSION_ANNOTATION,
				    json_string(text));
	else
		json_object_del(a, SERVE_ADMISSION_ANNOTATION);
	free(text);
	rc = api_store_update(ss->s, o->kind, body, o->rv, ss->now_us, NULL);
	if (rc < 0 && !ss->err)
		ss->err = rc;
	else if (rc == 0)
		ss->writes++;
}

/* Store status (stolen) on gang object o, then its admission
 * annotation (o is stale after the first write). */
static void put_gang_status(struct ss *ss, uint32_t wl, const struct api_obj *o,
			    json_t *status)
{
	const struct api_kind *kind = o->kind;
	char *ns = xstrdup(o->ns), *name = xstrdup(o->name);

	ss_put_status(ss, o, status);
	o = api_store_get(ss->s, kind, ns, name);
	if (o)
		admission_annotation(ss, wl, o);
	free(ns);
	free(name);
}

/* Whether the status stored, old, is still Pending (or has no phase):
 * the group leaves Pending with this update. occupiedBy is looked for
 * then only (a walk of the namespace's pods): once left, a group whose
 * pods have no owner keeps none, and is not looked for at each update
 * (quadratic over 3,125 groups of 50,000 pods: turns of 8 s). */
static bool left_pending_now(const json_t *old)
{
	const char *ph = json_string_value(json_object_get(old, "phase"));

	return !ph || strcmp(ph, "Pending") == 0;
}

/* Coscheduling's PodGroup status: phase and pod counts (left out at 0,
 * as omitempty does), scheduleStartTime, and occupiedBy once the group
 * has left Pending (kept as stored afterwards). */
static void pod_group_status(struct ss *ss, uint32_t wl,
			     const struct api_obj *o)
{
	const json_t *old = json_object_get(o->body, "status");
	json_t *st = json_object();
	struct gang_saved gs;
	enum podgroup_phase ph = gang_phase(ss->g, wl);

	gang_wl_export(ss->g, wl, &gs);
	if (ph != PODGROUP_NONE)
		json_object_set_new(st, "phase",
				    json_string(podgroup_phase_name(ph)));
	if (json_object_get(old, "occupiedBy")) {
		json_object_set(st, "occupiedBy",
				json_object_get(old, "occupiedBy"));
	} else if (ph != PODGROUP_NONE && ph != PODGROUP_PENDING &&
		   left_pending_now(old)) {
		json_t *by = occupied_by(ss, o);

		if (by)
			json_object_set_new(st, "occupiedBy", by);
	}
	if (gs.pgs.running)
		json_object_set_new(st, "running",
				    json_integer(gs.pgs.running));
	if (gs.pgs.succeeded)
		json_object_set_new(st, "succeeded",
				    json_integer(gs.pgs.succeeded));
	if (gs.pgs.failed)
		json_object_set_new(st, "failed", json_integer(gs.pgs.failed));
	if (gs.pgs.schedule_start_us > 0)
		json_object_set_new(st, "scheduleStartTime",
				    enc_timestamp(gs.pgs.schedule_start_us));
	put_gang_status(ss, wl, o, st);
}

#define INITIALLY_SCHEDULED "PodGroupInitiallyScheduled"

/* Whether o's condition type is True. */
static bool cond_is_true(const json_t *conds, const char *type)
{
	const char *s = json_string_value(
		json_object_get(ss_cond_find(conds, type), "status"));

	return s && strcmp(s, "True") == 0;
}

/*
 * A scheduling.k8s.io PodGroup's status, as kube-scheduler keeps it:
 * PodGroupInitiallyScheduled True once every pod of the gang is bound
 * (sticky: never False again), False with reason Unschedulable and the
 * queue's reason while it waits; and its admission annotation.
 */
static void native_pod_group_status(struct ss *ss, uint32_t wl,
				    const struct api_obj *o)
{
	json_t *conds, *st = ss_status_copy(o, &conds);
	int64_t gen = ss_generation(o->body);
	struct sched_condition k =
		sched_wl_condition(ss->sc, wl, SCHED_COND_QUOTA_RESERVED);
	char *msg;

	if (cond_is_true(conds, INITIALLY_SCHEDULED)) {
		/* sticky */
	} else if (ctl_wl_bound(ss->x, wl)) {
		ss_cond_set(conds, INITIALLY_SCHEDULED, true, "Scheduled",
			    "Every pod of the group is bound", 0, gen,
			    ss->now_us);
	} else if (sched_wl_state(ss->sc, wl) == SCHED_WL_PENDING &&
		   k.present && !k.status && k.message) {
		msg = xasprintf("%s: %s", k.reason ? k.reason : "Pending",
				k.message);
		ss_cond_set(conds, INITIALLY_SCHEDULED, false, "Unschedulable",
			    msg, 0, gen, ss->now_us);
		free(msg);
	}
	put_gang_status(ss, wl, o, st);
}

int serve_status_pod_group_error(struct api_store *s, const struct api_obj *o,
				 const char *msg, int64_t now_us)
{
	struct ss ss = { .s = s, .now_us = now_us };
	json_t *conds, *st = ss_status_copy(o, &conds);
	int rc;

	if (cond_is_true(conds, INITIALLY_SCHEDULED)) {
		json_decref(st);
		return 0;
	}
	ss_cond_set(conds, INITIALLY_SCHEDULED, false, "SchedulerError", msg, 0,
		    ss_generation(o->body), now_us);
	rc = ss_put_status(&ss, o, st);
	return rc;
}

/* The Job that controls Workload ns/name (of kind wk) keeps its
 * admission too (serve_status_set_job_admission()). */
static void job_admission(struct ss *ss, uint32_t wl, const struct api_kind *wk,
			  const char *ns, const char *name)
{
	const struct api_obj *o = api_store_get(ss->s, wk, ns, name);
	const struct api_kind *jk = ss_kind("batch/v1", "Job");
	const json_t *ref;
	size_t i;

	if (!o || !jk)
		return;
	json_array_foreach(json_object_get(json_object_get(o->body, "metadata"),
					   "ownerReferences"),
			   i, ref)
	{
		const char *kind =
			json_string_value(json_object_get(ref, "kind"));
		const char *job =
			json_string_value(json_object_get(ref, "name"));
		const char *uid =
			json_string_value(json_object_get(ref, "uid"));
		const struct api_obj *j;

		if (!json_is_true(json_object_get(ref, "controller")) ||
		    !kind || strcmp(kind, "Job") != 0 || !job || !uid)
			continue;
		j = api_store_get(ss->s, jk, ns, job);
		if (j && strcmp(j->uid, uid) == 0)
			admission_annotation(ss, wl, j);
		return;
	}
}

/* Add amount v of pair fr to c's usage. */
static void add_use(struct ss_seen *c, uint32_t fr, int64_t v)
{
	for (uint32_t j = 0; j < c->nuse; j++) {
		if (c->use[j].fr == fr) {
			c->use[j].v += v;
			return;
		}
	}
	c->use = xreallocarray(c->use, c->nuse + 1, sizeof(*c->use));
	c->use[c->nuse++] = (struct ss_use){ fr, v };
}

/* What live slot i adds to its queues' status now (into c, zeroed). */
static void contribution(const struct ss *ss, uint32_t i, struct ss_seen *c)
{
	const struct workload *w = &ss->c->workloads.items[i];
	const struct local_queue *lq =
		w->queue_name ? cluster_find(ss->c, KIND_LOCAL_QUEUE, w->ns,
					     w->queue_name)
			      : NULL;
	const struct sched_admission *adm = sched_wl_admission(ss->sc, i);

	c->cq = sched_wl_cq(ss->sc, i);
	c->lq = lq ? (int32_t)(lq - ss->c->local_queues.items) : -1;
	switch (sched_wl_state(ss->sc, i)) {
	case SCHED_WL_ADMITTED:
		c->n.reserving = c->n.admitted = 1;
		break;
	case SCHED_WL_PENDING:
		if (sched_wl_held(ss->sc, i))
			c->n.reserving = 1;
		else if (sched_wl_listed(ss->sc, i))
			c->n.pending = 1;
		break;
	default:
		break;
	}
	for (size_t k = 0; adm && k < adm->npodsets; k++) {
		for (int r = 0; r < RESOURCE_MAX; r++) {
			int16_t f = adm->ps[k].flavor[r];

			if (f >= 0)
				add_use(c,
					(uint32_t)f * RESOURCE_MAX +
						(uint32_t)r,
					w->podsets[k].requests.v[r] *
						adm->ps[k].count);
		}
	}
}

static bool same_contribution(const struct ss_seen *a, const struct ss_seen *b)
{
	return a->cq == b->cq && a->lq == b->lq &&
	       a->n.pending == b->n.pending &&
	       a->n.reserving == b->n.reserving &&
	       a->n.admitted == b->n.admitted && a->nuse == b->nuse &&
	       (!a->nuse ||
		memcmp(a->use, b->use, a->nuse * sizeof(*a->use)) == 0);
}

/* Add (sign 1) or take away (-1) c from its queues' sums, and mark them
 * to be written. */
static void count_in(struct serve_status *st, const struct ss_seen *c, int sign)
{
	if (c->cq >= 0 && (size_t)c->cq < st->ncq) {
		st->cq_n[c->cq].pending += sign * c->n.pending;
		st->cq_n[c->cq].reserving += sign * c->n.reserving;
		st->cq_n[c->cq].admitted += sign * c->n.admitted;
		st->cq_stale[c->cq] = true;
	}
	if (c->lq >= 0 && (size_t)c->lq < st->nlq) {
		int64_t *use = st->lq_use + (size_t)c->lq * st->nfr;

		st->lq_n[c->lq].pending += sign * c->n.pending;
		st->lq_n[c->lq].reserving += sign * c->n.reserving;
		st->lq_n[c->lq].admitted += sign * c->n.admitted;
		for (uint32_t j = 0; j < c->nuse; j++) {
			if (c->use[j].fr < st->nfr)
				use[c->use[j].fr] += sign * c->use[j].v;
		}
		st->lq_stale[c->lq] = true;
	}
}

/* Slot i's status, and what it adds to its queues. */
static void workload_sync(struct ss *ss, uint32_t i, const struct api_kind *wk,
			  const struct api_kind *pk, const struct api_kind *nk)
{
	struct serve_status *st = ss->st;
	struct ss_seen *seen = &st->wl[i];
	struct ss_seen now = { .cq = -1, .lq = -1 };
	int err = ss->err;

	if (i < ss->c->workloads.len && ctl_handle(ss->x, i)) {
		const struct workload *w = &ss->c->workloads.items[i];
		const char *ns = w->ns ? w->ns : "";
		const struct api_obj *o =
			wk ? api_store_get(ss->s, wk, ns, w->name) : NULL;

		if (o) {
			workload_status(ss, i, o);
			if (st->job_admission)
				job_admission(ss, i, wk, ns, w->name);
		} else if (pk && (o = api_store_get(ss->s, pk, ns, w->name))) {
			pod_group_status(ss, i, o);
		} else if (nk && (o = api_store_get(ss->s, nk, ns, w->name))) {
			native_pod_group_status(ss, i, o);
		}
		st->computed++;
		contribution(ss, i, &now);
	}
	if (!same_contribution(seen, &now)) {
		count_in(st, seen, -1);
		count_in(st, &now, 1);
	}
	free(seen->use);
	*seen = now;
	/* a failed write is tried again at the next update */
	if (ss->err != err)
		ss_mark_stale(st, i);
}

int ss_workloads(struct ss *ss)
{
	const struct api_kind *wk =
		ss_kind("kueue.x-k8s.io/v1beta2", "Workload");
	const struct api_kind *pk =
		ss_kind("scheduling.x-k8s.io/v1alpha1", "PodGroup");
	const struct api_kind *nk =
		ss_kind("scheduling.k8s.io/v1beta1", "PodGroup");
	struct serve_status *st = ss->st;
	uint32_t *slots = st->stale.items;
	size_t n = st->stale.len;

	/* failed ones go back into a new list */
	st->stale.items = NULL;
	st->stale.len = st->stale.cap = 0;
	for (size_t j = 0; j < n; j++)
		workload_sync(ss, slots[j], wk, pk, nk);
	free(slots);
	return ss->err ? ss->err : ss->writes;
}

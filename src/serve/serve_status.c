// SPDX-License-Identifier: Apache-2.0
/*
 * Status as a function of the controller's model. Each sync computes the
 * status of every Workload, PodGroup, ClusterQueue and LocalQueue object
 * from the scheduler and the gang lifecycle and writes those that differ
 * from the stored ones, so that a second sync with nothing changed writes
 * nothing. An incremental update (struct serve_status) computes it only
 * for the workloads that the controller's journal (ctl_changes()) or the
 * store's events say changed, and a queue's only when what its workloads
 * add to it or its object did. Conditions keep their lastTransitionTime
 * while their status holds, as apimeta.SetStatusCondition keeps it.
 */
#include "serve/serve_status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "manifest/enc.h"
#include "serve/serve_status_int.h"

#include "base/banned.h"

const struct api_kind *ss_kind(const char *api_version, const char *kind)
{
	return api_kind_of(api_version, kind);
}

int ss_put_status(struct ss *ss, const struct api_obj *o, json_t *status)
{
	const json_t *old = json_object_get(o->body, "status");
	json_t *body;
	int rc;

	if (old ? json_equal(old, status) : json_object_size(status) == 0) {
		json_decref(status);
		return 0;
	}
	/* status shares members with the stored one: the store gets its
	 * own copy, never a shared node */
	body = json_deep_copy(o->body);
	json_object_set_new(body, "status", json_deep_copy(status));
	json_decref(status);
	rc = api_store_update(ss->s, o->kind, body, o->rv, ss->now_us, NULL);
	if (rc < 0) {
		if (!ss->err)
			ss->err = rc;
		return rc;
	}
	ss->writes++;
	return 1;
}

json_t *ss_cond_find(const json_t *conds, const char *type)
{
	size_t i;
	json_t *c;

	json_array_foreach(conds, i, c)
	{
		const char *t = json_string_value(json_object_get(c, "type"));

		if (t && strcmp(t, type) == 0)
			return c;
	}
	return NULL;
}

static bool str_is(const json_t *j, const char *s)
{
	const char *v = json_string_value(j);

	return v && strcmp(v, s) == 0;
}

enum ss_prev ss_cond_set(json_t *conds, const char *type, bool status,
			 const char *reason, const char *message,
			 int64_t transition_us, int64_t gen, int64_t now_us)
{
	json_t *old = ss_cond_find(conds, type), *c;
	const char *st = status ? "True" : "False";
	enum ss_prev prev = SS_ABSENT;
	bool same_status = false, same = false;

	if (old) {
		same_status = str_is(json_object_get(old, "status"), st);
		prev = str_is(json_object_get(old, "status"), "True")
			       ? SS_TRUE
			       : SS_FALSE;
		same = same_status &&
		       str_is(json_object_get(old, "reason"), reason) &&
		       str_is(json_object_get(old, "message"),
			      message ? message : "");
	}
	/* nothing changes: the stored condition stays as it is (shared,
	 * never edited: conds may be a shallow copy of the stored array) */
	if (same && json_object_get(old, "lastTransitionTime") &&
	    (gen < 0 || json_object_get(old, "observedGeneration")))
		return prev;
	c = json_object();
	json_object_set_new(c, "type", json_string(type));
	json_object_set_new(c, "status", json_string(st));
	if (same && json_object_get(old, "observedGeneration"))
		json_object_set(c, "observedGeneration",
				json_object_get(old, "observedGeneration"));
	else if (gen >= 0)
		json_object_set_new(c, "observedGeneration", json_integer(gen));
	if (same_status && json_object_get(old, "lastTransitionTime"))
		json_object_set(c, "lastTransitionTime",
				json_object_get(old, "lastTransitionTime"));
	else
		json_object_set_new(c, "lastTransitionTime",
				    enc_timestamp(transition_us > 0
							  ? transition_us
							  : now_us));
	json_object_set_new(c, "reason", json_string(reason));
	/* metav1.Condition's message is required: "" rather than absent */
	json_object_set_new(c, "message", json_string(message ? message : ""));
	if (old) {
		size_t i;
		json_t *k;

		json_array_foreach(conds, i, k)
		{
			if (k == old) {
				json_array_set_new(conds, i, c);
				break;
			}
		}
	} else {
		json_array_append_new(conds, c);
	}
	return prev;
}

json_t *ss_status_copy(const struct api_obj *o, json_t **ret_conds)
{
	const json_t *old = json_object_get(o->body, "status");
	json_t *st =
		json_is_object(old) ? json_copy((json_t *)old) : json_object();
	json_t *conds = json_object_get(st, "conditions");

	conds = json_is_array(conds) ? json_copy(conds) : json_array();
	json_object_set_new(st, "conditions", conds);
	*ret_conds = conds;
	return st;
}

int64_t ss_generation(const json_t *obj)
{
	const json_t *g =
		json_object_get(json_object_get(obj, "metadata"), "generation");

	return json_is_integer(g) ? (int64_t)json_integer_value(g) : -1;
}

void ss_mark_stale(struct serve_status *st, uint32_t i)
{
	if (i < st->nwl && !st->wl[i].stale) {
		st->wl[i].stale = true;
		vec_push(&st->stale, i);
	}
}

static int take_changed(void *ctx, uint32_t slot)
{
	ss_mark_stale(ctx, slot);
	return 0;
}

struct marks {
	struct serve_status *st;
	const struct cluster *c;
	const struct api_kind *wl, *pg, *cq, *lq, *npg;
};

static bool is_kind(const struct api_kind *k, const struct api_kind *want)
{
	return want && api_kind_storage(k) == api_kind_storage(want);
}

/* A change of the store: the slot of a Workload or PodGroup object (they
 * share namespace and name with their model workload), or the queues. */
static int mark(void *ctx, const struct api_event *ev)
{
	struct marks *m = ctx;
	const struct workload *w;

	if (is_kind(ev->kind, m->cq) || is_kind(ev->kind, m->lq)) {
		m->st->queues = true;
		return 0;
	}
	if (!is_kind(ev->kind, m->wl) && !is_kind(ev->kind, m->pg) &&
	    !is_kind(ev->kind, m->npg))
		return 0;
	w = cluster_find(m->c, KIND_WORKLOAD, ev->ns, ev->name);
	if (w)
		ss_mark_stale(m->st, (uint32_t)(w - m->c->workloads.items));
	return 0;
}

static void seen_release(struct ss_seen *seen)
{
	free(seen->use);
	*seen = (struct ss_seen){ .cq = -1, .lq = -1 };
}

/* Forget every slot and queue sum, sized to the cluster now: the next
 * pass does every slot and queue. */
static void start_over(struct ss *ss)
{
	struct serve_status *st = ss->st;
	size_t n = ss->c->workloads.len;

	for (size_t i = 0; i < st->nwl; i++)
		seen_release(&st->wl[i]);
	if (st->nwl < n) {
		st->wl = xreallocarray(st->wl, n, sizeof(*st->wl));
		for (size_t i = st->nwl; i < n; i++)
			st->wl[i] = (struct ss_seen){ .cq = -1, .lq = -1 };
		st->nwl = n;
	}
	st->stale.len = 0;
	for (uint32_t i = 0; i < n; i++)
		ss_mark_stale(st, i);
	free(st->cq_n);
	free(st->lq_n);
	free(st->lq_use);
	free(st->cq_stale);
	free(st->lq_stale);
	st->ncq = ss->c->cluster_queues.len;
	st->nlq = ss->c->local_queues.len;
	st->nfr = ss->c->flavors.len * RESOURCE_MAX;
	st->cq_n = xcalloc(st->ncq + 1, sizeof(*st->cq_n));
	st->lq_n = xcalloc(st->nlq + 1, sizeof(*st->lq_n));
	st->lq_use = xcalloc(st->nlq * st->nfr + 1, sizeof(*st->lq_use));
	st->cq_stale = xcalloc(st->ncq + 1, sizeof(*st->cq_stale));
	st->lq_stale = xcalloc(st->nlq + 1, sizeof(*st->lq_stale));
	st->queues = true;
}

/* What changed since the last update: the slots the controller marked
 * and those whose objects the store changed. Everything when either
 * history no longer reaches back, after a rebuild of the controller, or
 * when the cluster's queues or flavors are not those of the last full
 * update. */
static void changes(struct ss *ss)
{
	struct serve_status *st = ss->st;
	struct marks m = {
		st,
		ss->c,
		ss_kind("kueue.x-k8s.io/v1beta2", "Workload"),
		ss_kind("scheduling.x-k8s.io/v1alpha1", "PodGroup"),
		ss_kind("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
		ss_kind("kueue.x-k8s.io/v1beta2", "LocalQueue"),
		ss_kind("scheduling.k8s.io/v1beta1", "PodGroup"),
	};
	size_t n = ss->c->workloads.len;

	if (st->ncq != ss->c->cluster_queues.len ||
	    st->nlq != ss->c->local_queues.len ||
	    st->nfr != ss->c->flavors.len * RESOURCE_MAX)
		st->all = true;
	if (!st->all && st->nwl < n) { /* new slots: marked when filled */
		st->wl = xreallocarray(st->wl, n, sizeof(*st->wl));
		for (size_t i = st->nwl; i < n; i++)
			st->wl[i] = (struct ss_seen){ .cq = -1, .lq = -1 };
		st->nwl = n;
	}
	if (!st->all &&
	    ctl_changes(ss->x, st->ctl_cursor, take_changed, st) < 0)
		st->all = true;
	if (!st->all && api_store_events(ss->s, st->cursor, mark, &m) < 0)
		st->all = true;
	if (st->all)
		start_over(ss);
}

/* The queues' status: those whose sums changed, or all of them when a
 * queue object changed (or at a full update). */
static void queues(struct ss *ss)
{
	struct serve_status *st = ss->st;

	if (st->queues) {
		for (size_t i = 0; i < st->ncq; i++)
			st->cq_stale[i] = true;
		for (size_t i = 0; i < st->nlq; i++)
			st->lq_stale[i] = true;
	}
	ss_cluster_queues(ss);
	ss_local_queues(ss);
	st->queues = false; /* a queue whose write failed stays marked */
}

struct serve_status *serve_status_new(void)
{
	struct serve_status *st = xcalloc(1, sizeof(*st));

	st->all = true;
	return st;
}

void serve_status_set_job_admission(struct serve_status *st, bool on)
{
	st->job_admission = on;
}

void serve_status_set_members(struct serve_status *st,
			      serve_status_member_fn fn, void *ctx)
{
	st->member = fn;
	st->member_ctx = ctx;
}

void serve_status_free(struct serve_status *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nwl; i++)
		seen_release(&st->wl[i]);
	free(st->wl);
	vec_release(&st->stale);
	free(st->cq_n);
	free(st->lq_n);
	free(st->lq_use);
	free(st->cq_stale);
	free(st->lq_stale);
	free(st);
}

void serve_status_reset(struct serve_status *st)
{
	st->all = true;
}

uint64_t serve_status_computed(const struct serve_status *st)
{
	return st->computed;
}

int serve_status_update(struct serve_status *st, struct api_store *s,
			const struct ctl *x, int64_t now_us)
{
	struct ss ss = { .st = st, .s = s, .x = x, .now_us = now_us };

	ss.c = ctl_cluster(x);
	ss.sc = ctl_sched(x);
	ss.g = ctl_gang(x);
	changes(&ss);
	ss_workloads(&ss);
	queues(&ss);
	st->all = false;
	/* its own writes are seen: not changes for the next update */
	st->cursor = api_store_rv(s);
	st->ctl_cursor = ctl_changes_seq(x);
	return ss.err ? ss.err : ss.writes;
}

int serve_status_sync(struct api_store *s, const struct ctl *x, int64_t now_us)
{
	struct serve_status *st = serve_status_new();
	int rc = serve_status_update(st, s, x, now_us);

	serve_status_free(st);
	return rc;
}

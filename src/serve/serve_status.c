// SPDX-License-Identifier: Apache-2.0
/*
 * Status as a function of the controller's model. Each sync computes the
 * status of every Workload, PodGroup, ClusterQueue and LocalQueue object
 * from the scheduler and the gang lifecycle and writes those that differ
 * from the stored ones, so that a second sync with nothing changed writes
 * nothing. An incremental update (struct serve_status) computes it only
 * for the workloads whose model fingerprint or object changed, and the
 * queues' only when a workload or a queue object did. Conditions keep their
 * lastTransitionTime while their status holds, as apimeta.SetStatusCondition
 * keeps it.
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

struct keys {
	VEC(char *) ns;
	VEC(char *) name;
};

static int take_key(void *ctx, const struct api_obj *o)
{
	struct keys *k = ctx;

	vec_push(&k->ns, xstrdup(o->ns));
	vec_push(&k->name, xstrdup(o->name));
	return 0;
}

void ss_each(struct ss *ss, const struct api_kind *k,
	     void (*fn)(struct ss *ss, const struct api_obj *o))
{
	struct keys keys = { VEC_INIT, VEC_INIT };

	(void)api_store_each(ss->s, k, NULL, NULL, NULL, take_key, &keys);
	for (size_t i = 0; i < keys.ns.len; i++) {
		const struct api_obj *o = api_store_get(
			ss->s, k, keys.ns.items[i], keys.name.items[i]);

		if (o)
			fn(ss, o);
		free(keys.ns.items[i]);
		free(keys.name.items[i]);
	}
	vec_release(&keys.ns);
	vec_release(&keys.name);
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

/* Each workload slot's LocalQueue (by its namespace and queue name), the
 * slots of each LocalQueue, and the counts of every queue. */
static void tally(struct ss *ss)
{
	const struct cluster *c = ss->c;

	for (size_t q = 0; q < c->local_queues.len; q++)
		ss->lq_first[q] = -1;
	for (size_t i = c->workloads.len; i-- > 0;) {
		const struct workload *w = &c->workloads.items[i];
		const struct local_queue *lq =
			ctl_handle(ss->x, (uint32_t)i) && w->queue_name
				? cluster_find(c, KIND_LOCAL_QUEUE, w->ns,
					       w->queue_name)
				: NULL;
		int32_t l = lq ? (int32_t)(lq - c->local_queues.items) : -1;
		int32_t cq = sched_wl_cq(ss->sc, (uint32_t)i);
		struct ss_counts n = { 0 };

		ss->wl_lq[i] = l;
		ss->lq_next[i] = -1;
		if (!ctl_handle(ss->x, (uint32_t)i))
			continue;
		switch (sched_wl_state(ss->sc, (uint32_t)i)) {
		case SCHED_WL_ADMITTED:
			n.reserving = n.admitted = 1;
			break;
		case SCHED_WL_PENDING:
			if (sched_wl_held(ss->sc, (uint32_t)i))
				n.reserving = 1;
			else if (ss->cq_pos[i] >= 0)
				n.pending = 1;
			break;
		default:
			break;
		}
		if (cq >= 0) {
			ss->cq_n[cq].pending += n.pending;
			ss->cq_n[cq].reserving += n.reserving;
			ss->cq_n[cq].admitted += n.admitted;
		}
		if (l >= 0) {
			ss->lq_n[l].pending += n.pending;
			ss->lq_n[l].reserving += n.reserving;
			ss->lq_n[l].admitted += n.admitted;
			ss->lq_next[i] = ss->lq_first[l];
			ss->lq_first[l] = (int32_t)i;
		}
	}
}

struct marks {
	struct serve_status *st;
	const struct cluster *c;
	const struct api_kind *wl, *pg, *cq, *lq;
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
	if (!is_kind(ev->kind, m->wl) && !is_kind(ev->kind, m->pg))
		return 0;
	w = cluster_find(m->c, KIND_WORKLOAD, ev->ns, ev->name);
	if (w)
		m->st->obj[w - m->c->workloads.items] = true;
	return 0;
}

/* Size the per-slot arrays, and mark what the store changed since the
 * last update (everything when its history no longer reaches back). */
static void changes(struct ss *ss)
{
	struct serve_status *st = ss->st;
	size_t n = ss->c->workloads.len;
	struct marks m = {
		st,
		ss->c,
		ss_kind("kueue.x-k8s.io/v1beta2", "Workload"),
		ss_kind("scheduling.x-k8s.io/v1alpha1", "PodGroup"),
		ss_kind("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
		ss_kind("kueue.x-k8s.io/v1beta2", "LocalQueue"),
	};

	if (st->nwl < n) {
		st->wl = xreallocarray(st->wl, n, sizeof(*st->wl));
		st->obj = xreallocarray(st->obj, n, sizeof(*st->obj));
		memset(st->wl + st->nwl, 0, (n - st->nwl) * sizeof(*st->wl));
		memset(st->obj + st->nwl, 0, (n - st->nwl) * sizeof(*st->obj));
		st->nwl = n;
	}
	if (!st->all && api_store_events(ss->s, st->cursor, mark, &m) < 0)
		st->all = true;
}

/* At least n slots, nlq LocalQueues and ncq ClusterQueues in b (the
 * positions and links are all written by each pass; counts are not). */
static void bufs_grow(struct ss_bufs *b, size_t n, size_t nlq, size_t ncq)
{
	if (b->n < n) {
		b->cq_pos = xreallocarray(b->cq_pos, n, sizeof(*b->cq_pos));
		b->lq_pos = xreallocarray(b->lq_pos, n, sizeof(*b->lq_pos));
		b->wl_lq = xreallocarray(b->wl_lq, n, sizeof(*b->wl_lq));
		b->lq_next = xreallocarray(b->lq_next, n, sizeof(*b->lq_next));
		b->n = n;
	}
	if (b->nlq < nlq) {
		b->lq_first =
			xreallocarray(b->lq_first, nlq, sizeof(*b->lq_first));
		b->lq_n = xreallocarray(b->lq_n, nlq, sizeof(*b->lq_n));
		b->nlq = nlq;
	}
	if (b->ncq < ncq) {
		b->cq_n = xreallocarray(b->cq_n, ncq, sizeof(*b->cq_n));
		b->ncq = ncq;
	}
}

static void bufs_release(struct ss_bufs *b)
{
	free(b->cq_pos);
	free(b->lq_pos);
	free(b->wl_lq);
	free(b->lq_next);
	free(b->lq_first);
	free(b->lq_n);
	free(b->cq_n);
}

/* The queues' status, from counts tallied over every workload: only when
 * a workload or a queue object changed since the last update. */
static void queues(struct ss *ss)
{
	size_t n = ss->c->workloads.len + 1;
	size_t nlq = ss->c->local_queues.len + 1;
	size_t ncq = ss->c->cluster_queues.len + 1;
	int err = ss->err;

	if (!ss->st->all && !ss->changed && !ss->st->queues)
		return;
	bufs_grow(&ss->st->bufs, n, nlq, ncq);
	ss->cq_pos = ss->st->bufs.cq_pos;
	ss->lq_pos = ss->st->bufs.lq_pos;
	ss->wl_lq = ss->st->bufs.wl_lq;
	ss->lq_next = ss->st->bufs.lq_next;
	ss->lq_first = ss->st->bufs.lq_first;
	ss->lq_n = ss->st->bufs.lq_n;
	ss->cq_n = ss->st->bufs.cq_n;
	memset(ss->lq_n, 0, nlq * sizeof(*ss->lq_n));
	memset(ss->cq_n, 0, ncq * sizeof(*ss->cq_n));
	sched_positions(ss->sc, ss->cq_pos, ss->lq_pos);
	tally(ss);
	ss_cluster_queues(ss);
	ss_local_queues(ss);
	/* a failed write is tried again at the next update */
	ss->st->queues = ss->err != err;
}

struct serve_status *serve_status_new(void)
{
	struct serve_status *st = xcalloc(1, sizeof(*st));

	st->all = true;
	return st;
}

void serve_status_free(struct serve_status *st)
{
	if (!st)
		return;
	bufs_release(&st->bufs);
	free(st->wl);
	free(st->obj);
	free(st);
}

void serve_status_reset(struct serve_status *st)
{
	st->all = true;
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
	return ss.err ? ss.err : ss.writes;
}

int serve_status_sync(struct api_store *s, const struct ctl *x, int64_t now_us)
{
	struct serve_status *st = serve_status_new();
	int rc = serve_status_update(st, s, x, now_us);

	serve_status_free(st);
	return rc;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The outbox: the replica's local changes, forwarded to the API server.
 *
 * Each flush reads the store's changes since its cursor. Mirrored ones
 * only update the last body seen of their object (a reference, so the
 * next local change can be diffed against it); local ones become writes
 * queued on their object: a create, an update (the pair of bodies
 * before and after, turned into patches when sent, so later changes
 * coalesce into a queued update by replacing its "after"), a bind, a
 * delete. An object sends one write at a time, in order; the heads of
 * the queues wait in heaps ordered by queueing order. A bind goes only
 * once the writes counted for it are answered (a write is counted when
 * it is neither a bind nor an Event, nor queued behind a bind of its own
 * object): those of its gang's record objects (options.records) queued
 * in its flush or earlier (the bind waits on each such object's list of
 * gated binds, not in a heap), or, when its gang's records are not
 * known, every counted write of its flush or an earlier one (the intent
 * barrier: its own heap). Other writes and released binds go in queueing
 * order; Events last. Events are neither the decision's record nor read
 * back, and kube-scheduler records `Scheduled` after the binding: a
 * gang's binds do not wait for them. A patch of an Event the server does
 * not have (its create dropped when leadership was lost) creates it
 * instead.
 *
 * A refused write makes the reflector fetch the object again. A refused
 * bind is also remembered on its object: once a mirrored change shows
 * the refresh landed, a pod still there, unbound, with the same uid, is
 * bound again in the replica (api_bind, as the scheduler binds), which
 * the next read of the store forwards: at most BIND_TRIES binds per pod.
 */
#include "kube/kube_outbox.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "base/alloc.h"
#include "base/errbuf.h"
#include "base/heap.h"
#include "base/hmap.h"
#include "base/log.h"
#include "base/metrics.h"
#include "base/vec.h"
#include "kube/kube_diff.h"

#include "base/banned.h"

/* A refused bind is sent again until this many binds of the pod (of
 * one uid, the scheduler's own included) went out: the first and 5 more. */
#define BIND_TRIES 6

enum verb { V_CREATE, V_UPDATE, V_BIND, V_DELETE, V_COUNT };

/* What one call does, for the metrics. */
enum call_verb { C_CREATE, C_PATCH, C_STATUS, C_BIND, C_DELETE, C_COUNT };
static const char *const call_verbs[C_COUNT] = {
	[C_CREATE] = "create", [C_PATCH] = "patch",   [C_STATUS] = "status",
	[C_BIND] = "bind",     [C_DELETE] = "delete",
};

/* ok: answered 2xx (or its equivalent); refused: a 4xx; failed: no
 * answer, 429 or 5xx after the transport's retries. */
enum result { R_OK, R_REFUSED, R_FAILED, R_COUNT };
static const char *const results[R_COUNT] = { "ok", "refused", "failed" };

struct obj;

struct write {
	struct kube_outbox *b;
	struct obj *o;
	struct write *next; /* the object's queue */
	enum verb verb;
	enum call_verb cv; /* of the call in flight */
	uint64_t seq, flush;
	json_t *old, *new; /* CREATE: new; UPDATE: both (references) */
	char *node, *uid;  /* BIND: target, pod uid; DELETE: precondition */
	int step;	   /* CREATE, UPDATE: 0 the object, 1 its status */
	bool counted;	   /* holds the binds of its flush and later */
	bool sent;	   /* a call of it went out: no longer coalesced */
	bool in_heap, dead;
	/* BIND: its gates are known (at the end of the store's read that
	 * queued it); global: its gang's records are not, it waits for the
	 * intent barrier; gates: objects whose waiters list holds it. */
	bool resolved, global;
	unsigned gates;
	uint64_t call; /* in flight */
	int64_t queued_us;
};

struct obj {
	const struct api_kind *kind;
	char *ns, *name, *key;
	size_t keylen;
	json_t *last;	  /* the last body seen, NULL once deleted */
	char *remote_uid; /* the server's uid, when known */
	struct write *head, *tail;
	unsigned binds; /* binds sent for remote_uid */
	/* A refused bind waiting for its refresh to land. */
	char *retry_node, *retry_uid;
	uint64_t retry_rv;
	bool retry_landed;
	/* What answered writes made of it: a remote body that shows less
	 * is older (kube_outbox_stale). */
	char *echo_node, *echo_uid; /* a bind answered */
	uint64_t echo_rv;	    /* a patch's or create's answer */
	/* Binds of its gang waiting for its counted writes of their flush
	 * or earlier (it records their admission). */
	VEC(struct write *) waiters;
};

/* Unanswered counted writes of one flush. */
struct open_flush {
	uint64_t flush;
	size_t open;
};

enum fam { F_WRITES, F_BINDS, F_BIND_S, F_QUEUED, F_RETRIES, F_COUNT };

struct kube_outbox {
	struct kube_outbox_options o;
	uint64_t cursor, seq, flush;
	int64_t now_us;
	struct hmap objs; /* key → struct obj * */
	/* ready: other writes and binds released; barrier: binds waiting
	 * for the intent barrier */
	struct heap ready, ready_barrier, ready_events;
	VEC(struct open_flush) open;
	VEC(struct write *) unresolved; /* binds queued by this read */
	VEC(struct obj *) retries;
	VEC(int64_t)
	bound_us; /* binds answered since the last flush: when
		     each was queued */
	unsigned inflight;
	size_t queued; /* writes queued or in flight */
	struct metrics *m;
	int fam[F_COUNT];
};

static const double bind_buckets[] = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
				       0.5,   1,    2.5,   5,	 10 };

static const struct metrics_def defs[F_COUNT] = {
	[F_WRITES] = { "echelon_kube_writes_total",
		       "Writes sent to the API server, by verb and result "
		       "(ok, refused: a 4xx, failed: no answer or 429/5xx "
		       "after retries).",
		       METRICS_COUNTER, NULL, 0 },
	[F_BINDS] = { "echelon_kube_binds_total",
		      "Pods bound in the API server by the outbox.",
		      METRICS_COUNTER, NULL, 0 },
	[F_BIND_S] = { "echelon_kube_bind_seconds",
		       "From the bind in the replica to the server's answer, "
		       "at the resolution of the loop's turns (the answer is "
		       "timed at the next flush).",
		       METRICS_HISTOGRAM, bind_buckets,
		       sizeof(bind_buckets) / sizeof(*bind_buckets) },
	[F_QUEUED] = { "echelon_kube_writes_queued",
		       "Writes queued or in flight.", METRICS_GAUGE, NULL, 0 },
	[F_RETRIES] = { "echelon_kube_bind_retries_total",
			"Binds sent again after a refusal, the refreshed "
			"pod still unbound.",
			METRICS_COUNTER, NULL, 0 },
};

static void pump(struct kube_outbox *b);

/* ---- objects ---- */

static void obj_key(struct strbuf *sb, const struct api_kind *k, const char *ns,
		    const char *name)
{
	strbuf_addf(sb, "%u", k->id);
	strbuf_addch(sb, 0);
	strbuf_addstr(sb, ns ? ns : "");
	strbuf_addch(sb, 0);
	strbuf_addstr(sb, name);
}

static struct obj *obj_find(const struct kube_outbox *b,
			    const struct api_kind *k, const char *ns,
			    const char *name)
{
	struct strbuf key;
	int64_t v = 0;
	bool found;

	strbuf_init(&key);
	obj_key(&key, k, ns, name);
	found = hmap_get(&b->objs, key.buf, key.len, &v);
	strbuf_release(&key);
	return found ? (struct obj *)(intptr_t)v : NULL;
}

static struct obj *obj_get(struct kube_outbox *b, const struct api_kind *k,
			   const char *ns, const char *name)
{
	struct obj *o = obj_find(b, k, ns, name);
	struct strbuf key;

	if (o)
		return o;
	o = xcalloc(1, sizeof(*o));
	o->kind = k;
	o->ns = xstrdup(ns ? ns : "");
	o->name = xstrdup(name);
	strbuf_init(&key);
	obj_key(&key, k, ns, name);
	o->keylen = key.len;
	o->key = xmalloc(key.len);
	memcpy(o->key, key.buf, key.len);
	strbuf_release(&key);
	hmap_put(&b->objs, o->key, o->keylen, (int64_t)(intptr_t)o);
	return o;
}

static void retry_clear(struct obj *o)
{
	free(o->retry_node);
	free(o->retry_uid);
	o->retry_node = o->retry_uid = NULL;
	o->retry_landed = false;
}

static void echo_clear(struct obj *o)
{
	free(o->echo_node);
	free(o->echo_uid);
	o->echo_node = o->echo_uid = NULL;
	o->echo_rv = 0;
}

static void obj_free(struct obj *o)
{
	json_decref(o->last);
	free(o->remote_uid);
	retry_clear(o);
	echo_clear(o);
	vec_release(&o->waiters);
	free(o->ns);
	free(o->name);
	free(o->key);
	free(o);
}

/* Forget o when nothing of it is left to remember. */
static void obj_maybe_free(struct kube_outbox *b, struct obj *o)
{
	if (o->last || o->head || o->retry_node || o->waiters.len)
		return;
	hmap_del(&b->objs, o->key, o->keylen);
	obj_free(o);
}

static void set_last(struct obj *o, json_t *body)
{
	json_incref(body);
	json_decref(o->last);
	o->last = body;
}

static void set_str(char **p, const char *s)
{
	char *v = s ? xstrdup(s) : NULL;

	free(*p);
	*p = v;
}

static const char *meta_str(const json_t *body, const char *key)
{
	return json_string_value(
		json_object_get(json_object_get(body, "metadata"), key));
}

static const char *node_of(const json_t *pod)
{
	const char *n = json_string_value(
		json_object_get(json_object_get(pod, "spec"), "nodeName"));

	return n && *n ? n : NULL;
}

static bool deleting(const json_t *body)
{
	return json_object_get(json_object_get(body, "metadata"),
			       "deletionTimestamp") != NULL;
}

/* ---- kinds ---- */

static bool is_event(const struct api_kind *k)
{
	return k == api_kind_at(API_KIND_EVENT);
}

/* The version the server serves k at, or NULL: k stays local. */
static const char *version_of(const struct kube_outbox *b,
			      const struct api_kind *k)
{
	if (is_event(k))
		return "v1";
	if (!b->o.reflect)
		return k->versions[0];
	return kube_reflect_version(b->o.reflect, k);
}

/* Built-in kinds take strategic merge patches; custom resources do not. */
static bool strategic(const struct api_kind *k)
{
	size_t n = strlen(k->group);

	return !n || !strcmp(k->group, "batch") ||
	       (n > 7 && !strcmp(k->group + n - 7, ".k8s.io"));
}

/* body as the server serves k (a new reference; NULL for NULL). */
static json_t *remote_form(const struct api_kind *k, const char *version,
			   const json_t *body)
{
	if (!body)
		return NULL;
	if (!strcmp(version, k->versions[0]))
		return json_incref((json_t *)body);
	return api_kind_convert(body, k, version);
}

static void add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == ':' || c == '~')
			strbuf_addch(sb, (char)c);
		else
			strbuf_addf(sb, "%%%02X", c);
	}
}

/* The path of o (name false: its collection), then "/sub" when given. */
static void obj_path(struct strbuf *sb, const struct obj *o,
		     const char *version, bool name, const char *sub)
{
	const struct api_kind *k = o->kind;

	if (*k->group)
		strbuf_addf(sb, "/apis/%s/%s", k->group, version);
	else
		strbuf_addf(sb, "/api/%s", version);
	if (k->namespaced && *o->ns) {
		strbuf_addstr(sb, "/namespaces/");
		add_escaped(sb, o->ns);
	}
	strbuf_addf(sb, "/%s", k->resource);
	if (name) {
		strbuf_addch(sb, '/');
		add_escaped(sb, o->name);
	}
	if (sub)
		strbuf_addf(sb, "/%s", sub);
}

/* ---- the intent barrier ---- */

static void open_add(struct kube_outbox *b, uint64_t flush)
{
	if (b->open.len && vec_last(&b->open)->flush == flush) {
		vec_last(&b->open)->open++;
		return;
	}
	vec_push(&b->open, ((struct open_flush){ flush, 1 }));
}

static void open_done(struct kube_outbox *b, uint64_t flush)
{
	size_t i;

	for (i = 0; i < b->open.len && b->open.items[i].flush != flush; i++)
		;
	BUG_ON(i == b->open.len || !b->open.items[i].open);
	b->open.items[i].open--;
	/* Drop the answered flushes at the front (kept in flush order). */
	for (i = 0; i < b->open.len && !b->open.items[i].open; i++)
		;
	if (i) {
		memmove(b->open.items, b->open.items + i,
			(b->open.len - i) * sizeof(*b->open.items));
		b->open.len -= i;
	}
}

/* Whether a bind queued in flush may go. */
static bool barrier_open(const struct kube_outbox *b, uint64_t flush)
{
	for (size_t i = 0; i < b->open.len; i++)
		if (b->open.items[i].open)
			return b->open.items[i].flush > flush;
	return true;
}

/* ---- the queues ---- */

static int by_seq(const void *a, const void *c, void *ctx)
{
	const struct write *x = a, *y = c;

	(void)ctx;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void write_free(struct write *w)
{
	json_decref(w->old);
	json_decref(w->new);
	free(w->node);
	free(w->uid);
	free(w);
}

/* w, the head of its object's queue, into its heap; a bind not yet
 * resolved or still gated waits outside (released() pushes it). */
static void make_ready(struct kube_outbox *b, struct write *w)
{
	if (w->verb == V_BIND && (!w->resolved || w->gates))
		return;
	w->in_heap = true;
	if (w->verb == V_BIND && w->global)
		heap_push(&b->ready_barrier, w);
	else if (is_event(w->o->kind))
		heap_push(&b->ready_events, w);
	else
		heap_push(&b->ready, w);
}

/* Free w unless a heap, a gate or the read that queued it still holds
 * it: then it is dead, freed by the last of them. */
static void write_drop(struct write *w)
{
	if (w->in_heap || w->gates || !w->resolved)
		w->dead = true;
	else
		write_free(w);
}

/* Take w out of the counts (answered or dropped). */
static void uncount(struct kube_outbox *b, struct write *w)
{
	if (w->counted)
		open_done(b, w->flush);
	w->counted = false;
	b->queued--;
}

static bool queue_has_bind(const struct obj *o)
{
	for (const struct write *w = o->head; w; w = w->next)
		if (w->verb == V_BIND)
			return true;
	return false;
}

static struct write *enqueue(struct kube_outbox *b, struct obj *o,
			     enum verb verb, const json_t *old,
			     const json_t *new)
{
	struct write *w = o->tail;

	/* A change to a create or an update not yet sent joins it. */
	if (verb == V_UPDATE && w && !w->sent &&
	    (w->verb == V_UPDATE || w->verb == V_CREATE)) {
		json_incref((json_t *)new);
		json_decref(w->new);
		w->new = (json_t *)new;
		return w;
	}
	w = xcalloc(1, sizeof(*w));
	w->b = b;
	w->o = o;
	w->verb = verb;
	w->seq = ++b->seq;
	w->flush = b->flush;
	w->queued_us = b->now_us;
	w->old = json_incref((json_t *)old);
	w->new = json_incref((json_t *)new);
	w->counted = verb != V_BIND && !is_event(o->kind) && !queue_has_bind(o);
	if (w->counted)
		open_add(b, w->flush);
	w->resolved = verb != V_BIND;
	if (!w->resolved)
		vec_push(&b->unresolved, w);
	b->queued++;
	if (o->tail)
		o->tail->next = w;
	else
		o->head = w;
	o->tail = w;
	if (o->head == w)
		make_ready(b, w);
	return w;
}

/* ---- binds gated on their gang's records ---- */

/* Whether o has a counted write of flush or an earlier one unanswered. */
static bool counted_open(const struct obj *o, uint64_t flush)
{
	for (const struct write *w = o->head; w && w->flush <= flush;
	     w = w->next)
		if (w->counted)
			return true;
	return false;
}

/* One gate of bind w opened (or dropped). */
static void ungate(struct kube_outbox *b, struct write *w)
{
	BUG_ON(!w->gates);
	if (--w->gates)
		return;
	if (w->dead)
		write_drop(w);
	else if (w->o->head == w)
		make_ready(b, w);
}

/* The binds waiting on o whose writes of their flush are answered. */
static void release_gated(struct kube_outbox *b, struct obj *o)
{
	size_t i = 0;

	while (i < o->waiters.len) {
		struct write *w = o->waiters.items[i];

		if (!w->dead && counted_open(o, w->flush)) {
			i++;
			continue;
		}
		memmove(o->waiters.items + i, o->waiters.items + i + 1,
			(o->waiters.len - i - 1) * sizeof(w));
		o->waiters.len--;
		ungate(b, w);
	}
	if (!o->waiters.len)
		vec_release(&o->waiters); /* a gang's record waits seldom */
}

/* Bind w's gates: each record object of its gang with counted writes
 * of its flush or earlier unanswered. Records not known: the barrier. */
static void resolve(struct kube_outbox *b, struct write *w)
{
	const struct api_kind *kinds[KUBE_OUTBOX_RECORDS];
	const char *names[KUBE_OUTBOX_RECORDS];
	int n = -1;

	w->resolved = true;
	if (w->dead) {
		write_drop(w);
		return;
	}
	if (b->o.records && w->o->last)
		n = b->o.records(b->o.records_ctx, w->o->last, kinds, names,
				 KUBE_OUTBOX_RECORDS);
	BUG_ON(n > KUBE_OUTBOX_RECORDS);
	w->global = n < 0;
	for (int i = 0; i < n; i++) {
		struct obj *r = obj_find(b, api_kind_storage(kinds[i]),
					 w->o->ns, names[i]);

		if (r && r != w->o && counted_open(r, w->flush)) {
			vec_push(&r->waiters, w);
			w->gates++;
		}
	}
	if (!w->gates && w->o->head == w)
		make_ready(b, w);
}

/* The binds queued by this read of the store, their records written. */
static void resolve_all(struct kube_outbox *b)
{
	for (size_t i = 0; i < b->unresolved.len; i++)
		resolve(b, b->unresolved.items[i]);
	b->unresolved.len = 0;
}

/* Drop o's writes not yet sent; true when one was a create (the server
 * never saw the object). */
static bool drop_unsent(struct kube_outbox *b, struct obj *o)
{
	struct write **p = &o->head, *w;
	bool create = false;

	while ((w = *p)) {
		if (w->sent) {
			p = &w->next;
			continue;
		}
		*p = w->next;
		create |= w->verb == V_CREATE;
		uncount(b, w);
		write_drop(w);
	}
	o->tail = NULL;
	for (w = o->head; w; w = w->next)
		o->tail = w;
	release_gated(b, o);
	return create;
}

/* w answered: off its queue, the next write of its object ready. */
static void done(struct kube_outbox *b, struct write *w)
{
	struct obj *o = w->o;

	BUG_ON(o->head != w);
	o->head = w->next;
	if (!o->head)
		o->tail = NULL;
	uncount(b, w);
	write_free(w);
	if (o->head)
		make_ready(b, o->head);
	release_gated(b, o);
	obj_maybe_free(b, o);
}

/* ---- reading the store ---- */

/* body: the object after ev, NULL when ev deleted it. */
static void local_change(struct kube_outbox *b, struct obj *o,
			 const struct api_event *ev, json_t *body)
{
	struct write *w;

	switch (ev->type) {
	case API_ADDED:
		enqueue(b, o, V_CREATE, NULL, body);
		break;
	case API_MODIFIED:
		if (!o->last) {
			log_debug("kube outbox: %s %s/%s changed unseen",
				  o->kind->kind, o->ns, o->name);
			break;
		}
		if (o->kind == api_kind_at(API_KIND_POD) && !node_of(o->last) &&
		    node_of(body)) {
			w = enqueue(b, o, V_BIND, NULL, NULL);
			w->node = xstrdup(node_of(body));
			w->uid = xstrdup(o->remote_uid ? o->remote_uid
						       : meta_str(body, "uid"));
		} else if (deleting(body) && !deleting(o->last)) {
			if (drop_unsent(b, o))
				break;
			w = enqueue(b, o, V_DELETE, NULL, NULL);
			set_str(&w->uid, o->remote_uid);
		} else {
			enqueue(b, o, V_UPDATE, o->last, body);
		}
		break;
	case API_DELETED:
		if (deleting(o->last))
			break; /* its delete is queued or sent already */
		if (drop_unsent(b, o))
			break; /* the server never saw it */
		w = enqueue(b, o, V_DELETE, NULL, NULL);
		set_str(&w->uid, o->remote_uid);
		break;
	default:
		break;
	}
}

static void mirrored(struct kube_outbox *b, struct obj *o,
		     const struct api_event *ev, const json_t *body)
{
	const char *uid = body ? meta_str(body, "uid") : NULL;

	/* Another object of that name, or none: what binds and answered
	 * writes did was to the one before. What they made of an object
	 * holds while it lives (a pod's node is set once; resourceVersions
	 * only grow). */
	if (!uid || !o->remote_uid || strcmp(uid, o->remote_uid)) {
		o->binds = 0;
		echo_clear(o);
	}
	set_str(&o->remote_uid, uid);
	if (o->retry_node && ev->rv > o->retry_rv)
		o->retry_landed = true;
	(void)b;
}

/* A change read from the store: a mirrored one updates what the remote
 * did; a local one is queued to be sent, unless following (a follower
 * sends nothing: its changes are remembered as the base of later diffs,
 * as the snapshot would have them). */
static void take_event(struct kube_outbox *b, const struct api_event *ev,
		       bool following)
{
	const struct api_kind *k = api_kind_storage(ev->kind);
	json_t *body = ev->type == API_DELETED ? NULL : api_event_body(ev);
	struct obj *o;

	b->cursor = ev->rv;
	o = obj_get(b, k, ev->ns, ev->name);
	if (ev->mirror)
		mirrored(b, o, ev, body);
	else if (!following && version_of(b, k))
		local_change(b, o, ev, body);
	set_last(o, body);
	obj_maybe_free(b, o);
}

static int on_event(void *ctx, const struct api_event *ev)
{
	take_event(ctx, ev, false);
	return 0;
}

static int snap_one(void *ctx, const struct api_obj *so)
{
	struct kube_outbox *b = ctx;
	struct obj *o = obj_get(b, so->kind, so->ns, so->name);

	set_last(o, so->body);
	if (!o->remote_uid)
		set_str(&o->remote_uid, so->uid);
	return 0;
}

/* Remember every stored object as it is now, and read on from here. */
static void snapshot(struct kube_outbox *b)
{
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);

		if (api_kind_storage(k) == k)
			(void)api_store_each(b->o.store, k, NULL, NULL, NULL,
					     snap_one, b);
	}
	b->cursor = api_store_rv(b->o.store);
}

/* Bind again the pods whose refused bind's refresh has landed and which
 * are still there, unbound, with the same uid. True when one was. */
static bool run_retries(struct kube_outbox *b)
{
	const struct api_kind *pk = api_kind_at(API_KIND_POD);
	bool any = false;
	size_t i = 0;

	while (i < b->retries.len) {
		struct obj *o = b->retries.items[i];
		const struct api_obj *cur;
		struct errbuf eb;

		if (!o->retry_landed) {
			i++;
			continue;
		}
		b->retries.items[i] = vec_pop(&b->retries);
		cur = api_store_get(b->o.store, pk, o->ns, o->name);
		errbuf_clear(&eb);
		if (cur && !strcmp(cur->uid, o->retry_uid) &&
		    !node_of(cur->body) && !deleting(cur->body) && !o->head &&
		    api_bind(b->o.store, o->ns, o->name, o->retry_uid,
			     o->retry_node, b->now_us, &eb) == 0) {
			metrics_add(b->m, b->fam[F_RETRIES], NULL, 1);
			any = true;
		}
		retry_clear(o);
		obj_maybe_free(b, o);
	}
	return any;
}

static void read_store(struct kube_outbox *b)
{
	if (api_store_events(b->o.store, b->cursor, on_event, b) == -ERANGE) {
		/* Changes lost to the history's bound: they cannot be sent;
		 * the diffs go on from the store as it is now. */
		log_warn("kube outbox: local changes after rv %" PRIu64
			 " fell out of the store's history; not forwarded",
			 b->cursor);
		snapshot(b);
	}
	/* a gang's records are written after its binds in one turn */
	resolve_all(b);
}

/* ---- sending ---- */

static void send_call(struct kube_outbox *b, struct write *w, enum call_verb cv,
		      const char *method, const char *path, const char *ctype,
		      const json_t *body);

/* An Event's involvedObject names the replica's resourceVersion: the
 * server's instead, when the reflector knows it (else none). */
static void event_ref(const struct kube_outbox *b, json_t *ev)
{
	json_t *ref = json_object_get(ev, "involvedObject");
	const struct api_kind *k = api_kind_of(
		json_string_value(json_object_get(ref, "apiVersion")),
		json_string_value(json_object_get(ref, "kind")));
	const char *ns = json_string_value(json_object_get(ref, "namespace"));
	const char *name = json_string_value(json_object_get(ref, "name"));
	const char *rv = NULL;

	if (!json_is_object(ref))
		return;
	if (k && name && b->o.reflect)
		rv = kube_reflect_rv(b->o.reflect, api_kind_storage(k),
				     ns ? ns : "", name);
	if (rv)
		json_object_set_new(ref, "resourceVersion", json_string(rv));
	else
		json_object_del(ref, "resourceVersion");
}

/* One call of a write. */
struct req {
	enum call_verb cv;
	const char *method, *ctype;
	bool named;	 /* the object's path, not its collection's */
	const char *sub; /* a subresource, or NULL */
	json_t *body;
};

static const char *patch_type(const struct api_kind *k)
{
	return strategic(k) ? "application/strategic-merge-patch+json"
			    : "application/merge-patch+json";
}

/* A create: the object, then its status (a create drops it). */
static void create_req(const struct kube_outbox *b, const struct write *w,
		       const json_t *new, struct req *q)
{
	const struct api_kind *k = w->o->kind;
	json_t *meta;

	if (w->step == 0) {
		*q = (struct req){ C_CREATE, "POST", "application/json",
				   false,    NULL,   json_deep_copy(new) };
		meta = json_object_get(q->body, "metadata");
		json_object_del(meta, "uid");
		json_object_del(meta, "resourceVersion");
		json_object_del(meta, "creationTimestamp");
		json_object_del(meta, "generation");
		json_object_del(meta, "managedFields");
		if (is_event(k))
			event_ref(b, q->body);
	} else if (k->subresources & API_SUB_STATUS) {
		*q = (struct req){
			C_STATUS,
			"PATCH",
			patch_type(k),
			true,
			"status",
			kube_diff(NULL, new, strategic(k), KUBE_DIFF_STATUS)
		};
	}
}

/* An update: the patch of the object, then of its status subresource
 * (all in the first when the kind has none). */
static void update_req(const struct write *w, const json_t *old,
		       const json_t *new, struct req *q)
{
	const struct api_kind *k = w->o->kind;
	bool status_sub = k->subresources & API_SUB_STATUS;

	if (w->step == 1 && !status_sub)
		return;
	*q = (struct req){
		w->step ? C_STATUS : C_PATCH,
		"PATCH",
		patch_type(k),
		true,
		w->step ? "status" : NULL,
		kube_diff(old, new, strategic(k),
			  w->step      ? KUBE_DIFF_STATUS
			  : status_sub ? KUBE_DIFF_OBJECT
				       : KUBE_DIFF_ALL),
	};
}

static void bind_req(const struct write *w, struct req *q)
{
	const struct obj *o = w->o;

	*q = (struct req){
		C_BIND,
		"POST",
		"application/json",
		true,
		"binding",
		json_pack("{sssss{ssssss}s{ssssss}}", "apiVersion", "v1",
			  "kind", "Binding", "metadata", "name", o->name,
			  "namespace", o->ns, "uid", w->uid ? w->uid : "",
			  "target", "apiVersion", "v1", "kind", "Node", "name",
			  w->node),
	};
}

static void delete_req(const struct write *w, struct req *q)
{
	/* The uid of the object deleted; for one created here, the uid the
	 * server gave it (its create answered since). */
	const char *uid = w->uid ? w->uid : w->o->remote_uid;

	*q = (struct req){ C_DELETE,
			   "DELETE",
			   "application/json",
			   true,
			   NULL,
			   json_pack("{ssss}", "kind", "DeleteOptions",
				     "apiVersion", "v1") };
	if (uid)
		json_object_set_new(q->body, "preconditions",
				    json_pack("{ss}", "uid", uid));
}

/* Send w's current step; false when that step has nothing to send. */
static bool send_step(struct kube_outbox *b, struct write *w)
{
	struct obj *o = w->o;
	const char *version = version_of(b, o->kind);
	struct req q = { 0 };
	json_t *old, *new;
	struct strbuf path;

	if (!version)
		return false; /* no longer served */
	old = remote_form(o->kind, version, w->old);
	new = remote_form(o->kind, version, w->new);
	if (w->verb == V_CREATE)
		create_req(b, w, new, &q);
	else if (w->verb == V_UPDATE)
		update_req(w, old, new, &q);
	else if (w->verb == V_BIND && !w->step)
		bind_req(w, &q);
	else if (w->verb == V_DELETE && !w->step)
		delete_req(w, &q);
	json_decref(old);
	json_decref(new);
	if (!q.body)
		return false;
	strbuf_init(&path);
	obj_path(&path, o, version, q.named, q.sub);
	if (q.cv == C_BIND)
		o->binds++;
	send_call(b, w, q.cv, q.method, path.buf, q.ctype, q.body);
	strbuf_release(&path);
	json_decref(q.body);
	return true;
}

/* Go on with w from its current step: send what is left, or end it. */
static void advance(struct kube_outbox *b, struct write *w)
{
	for (; w->step < 2; w->step++)
		if (send_step(b, w))
			return;
	done(b, w);
}

/* The message of a Status reply, or the transport's error. */
static char *reply_message(const struct kube_reply *r)
{
	json_t *st;
	char *msg = NULL;

	if (!r->code)
		return xstrdup(r->error ? r->error : "no answer");
	st = r->body ? json_loadb(r->body, r->len, 0, NULL) : NULL;
	if (json_string_value(json_object_get(st, "message")))
		msg = xstrdup(
			json_string_value(json_object_get(st, "message")));
	json_decref(st);
	return msg ? msg : xasprintf("HTTP %d", r->code);
}

static void refused(struct kube_outbox *b, struct write *w,
		    const struct kube_reply *r, const char *msg)
{
	struct obj *o = w->o;
	struct strbuf kv;

	strbuf_init(&kv);
	strbuf_addf(&kv, "verb=%s kind=%s ns=", call_verbs[w->cv],
		    o->kind->kind);
	strbuf_add_json_string(&kv, o->ns);
	strbuf_addstr(&kv, " name=");
	strbuf_add_json_string(&kv, o->name);
	strbuf_addf(&kv, " code=%d tries=%u reason=", r->code, r->tries);
	strbuf_add_json_string(&kv, msg);
	if (b->o.log)
		b->o.log(b->o.log_ctx, "write refused by the API server",
			 kv.buf);
	else
		log_debug("kube outbox: write refused: %s", kv.buf);
	strbuf_release(&kv);
	/* Events are not reflected: nothing to fetch again. */
	if (b->o.reflect && !is_event(o->kind))
		kube_reflect_refresh(b->o.reflect, o->kind, o->ns, o->name);
	if (w->verb == V_BIND && b->o.reflect && o->binds < BIND_TRIES) {
		if (!o->retry_node)
			vec_push(&b->retries, o);
		set_str(&o->retry_node, w->node);
		set_str(&o->retry_uid, w->uid);
		o->retry_rv = api_store_rv(b->o.store);
		o->retry_landed = false;
	}
}

/* A 409 on a binding to the node it names: the pod is bound there. */
static bool bound_already(const struct write *w, const char *msg)
{
	char *want = xasprintf("already assigned to node \"%s\"", w->node);
	bool yes = strstr(msg, want) != NULL;

	free(want);
	return yes;
}

/* A resourceVersion as a number, or 0 when it is not one (they are
 * opaque to clients; the API server's are etcd revisions). */
static uint64_t rv_num(const char *rv)
{
	uint64_t v = 0;

	if (!rv || !*rv)
		return 0;
	for (; *rv; rv++) {
		if (*rv < '0' || *rv > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*rv - '0');
	}
	return v;
}

/* A create or patch answered: the object the server now has. */
static void answered(struct write *w, const struct kube_reply *r)
{
	json_t *obj = r->body ? json_loadb(r->body, r->len, 0, NULL) : NULL;
	uint64_t rv = rv_num(meta_str(obj, "resourceVersion"));

	if (w->verb == V_CREATE && w->step == 0 && meta_str(obj, "uid"))
		set_str(&w->o->remote_uid, meta_str(obj, "uid"));
	if (rv > w->o->echo_rv)
		w->o->echo_rv = rv;
	json_decref(obj);
}

/* A patch of an Event the server does not have: sent again as its
 * create, as client-go's event recorder does. */
static bool recreate(struct kube_outbox *b, struct write *w,
		     const struct kube_reply *r)
{
	if (r->code != 404 || w->verb != V_UPDATE || w->step ||
	    !is_event(w->o->kind))
		return false;
	w->verb = V_CREATE;
	json_decref(w->old);
	w->old = NULL;
	advance(b, w);
	return true;
}

static void on_done(void *ctx, const struct kube_reply *r)
{
	struct write *w = ctx;
	struct kube_outbox *b = w->b;
	bool ok = r->code >= 200 && r->code < 300;
	enum result res = R_OK;
	char *msg = NULL;
	const char *labels[5] = { "verb", call_verbs[w->cv], "result", NULL,
				  NULL };

	b->inflight--;
	w->call = 0;
	if (!ok) {
		msg = reply_message(r);
		if (w->verb == V_BIND && r->code == 409)
			ok = bound_already(w, msg);
		else if (w->verb == V_DELETE && r->code == 404)
			ok = true; /* gone already */
	}
	if (!ok)
		res = !r->code || r->code == 429 || r->code >= 500 ? R_FAILED
								   : R_REFUSED;
	labels[3] = results[res];
	metrics_add(b->m, b->fam[F_WRITES], labels, 1);
	if (ok && w->verb == V_BIND) {
		metrics_add(b->m, b->fam[F_BINDS], NULL, 1);
		vec_push(&b->bound_us, w->queued_us);
		set_str(&w->o->echo_node, w->node);
		set_str(&w->o->echo_uid, w->uid);
	}
	if (ok && (w->verb == V_CREATE || w->verb == V_UPDATE))
		answered(w, r);
	if (ok) {
		w->step++;
		advance(b, w);
	} else if (!recreate(b, w, r)) {
		refused(b, w, r, msg);
		done(b, w);
	}
	free(msg);
	pump(b);
}

static void send_call(struct kube_outbox *b, struct write *w, enum call_verb cv,
		      const char *method, const char *path, const char *ctype,
		      const json_t *body)
{
	char *text = json_dumps(body, JSON_COMPACT);
	struct kube_call c = {
		.method = method,
		.path = path,
		.content_type = ctype,
		.body = text,
		.len = text ? strlen(text) : 0,
		.flags = KUBE_RETRY,
		.retry_us = b->o.give_up_us,
	};

	w->cv = cv;
	w->sent = true;
	b->inflight++;
	w->call = kube_send(b->o.tr, &c, on_done, NULL, w);
	free(text);
}

/* The next write to send, out of its heap: the first queued of the
 * other writes, the released binds and the binds whose barrier is open;
 * else Events; NULL when none may go. */
static struct write *next_ready(struct kube_outbox *b)
{
	struct write *w = heap_peek(&b->ready);
	struct write *g = heap_peek(&b->ready_barrier);

	if (g && barrier_open(b, g->flush) && (!w || g->seq < w->seq))
		return heap_pop(&b->ready_barrier);
	if (w)
		return heap_pop(&b->ready);
	return heap_peek(&b->ready_events) ? heap_pop(&b->ready_events) : NULL;
}

static void pump(struct kube_outbox *b)
{
	unsigned max = b->o.max_inflight ? b->o.max_inflight : 256;

	while (b->inflight < max) {
		struct write *w = next_ready(b);

		if (!w)
			break;
		w->in_heap = false;
		if (w->dead)
			write_free(w);
		else
			advance(b, w);
	}
}

/* ---- the interface ---- */

struct kube_outbox *kube_outbox_new(const struct kube_outbox_options *o)
{
	struct kube_outbox *b = xcalloc(1, sizeof(*b));

	b->o = *o;
	if (!b->o.give_up_us)
		b->o.give_up_us = 30000000;
	hmap_init(&b->objs);
	heap_init(&b->ready, by_seq, NULL);
	heap_init(&b->ready_barrier, by_seq, NULL);
	heap_init(&b->ready_events, by_seq, NULL);
	b->m = metrics_new();
	metrics_register(b->m, defs, F_COUNT, b->fam);
	snapshot(b);
	return b;
}

/* Free the writes left in h (all dead). */
static void heap_drain(struct heap *h)
{
	while (heap_peek(h)) {
		struct write *w = heap_pop(h);

		w->in_heap = false;
		write_drop(w);
	}
}

/* Cancel and free every write; forget the retries. */
static void drop_all(struct kube_outbox *b)
{
	const struct hmap_slot *slot;
	size_t iter = 0;

	while (hmap_next(&b->objs, &iter, &slot)) {
		struct obj *o = (struct obj *)(intptr_t)slot->value;

		while (o->head) {
			struct write *w = o->head;

			o->head = w->next;
			if (w->call)
				kube_cancel(b->o.tr, w->call);
			write_drop(w);
		}
		o->tail = NULL;
		retry_clear(o);
	}
	/* Then what still holds them (all dead now). */
	vec_foreach (&b->unresolved, pw) {
		(*pw)->resolved = true;
		write_drop(*pw);
	}
	b->unresolved.len = 0;
	iter = 0;
	while (hmap_next(&b->objs, &iter, &slot)) {
		struct obj *o = (struct obj *)(intptr_t)slot->value;

		vec_foreach (&o->waiters, pw)
			ungate(b, *pw);
		o->waiters.len = 0;
	}
	heap_drain(&b->ready);
	heap_drain(&b->ready_barrier);
	heap_drain(&b->ready_events);
	b->retries.len = 0;
	b->open.len = 0;
	b->inflight = 0;
	b->queued = 0;
}

static void free_objs(struct kube_outbox *b)
{
	const struct hmap_slot *slot;
	size_t iter = 0;

	while (hmap_next(&b->objs, &iter, &slot))
		obj_free((struct obj *)(intptr_t)slot->value);
	hmap_release(&b->objs);
}

void kube_outbox_free(struct kube_outbox *b)
{
	if (!b)
		return;
	drop_all(b);
	free_objs(b);
	heap_release(&b->ready);
	heap_release(&b->ready_barrier);
	vec_release(&b->unresolved);
	heap_release(&b->ready_events);
	vec_release(&b->open);
	vec_release(&b->retries);
	vec_release(&b->bound_us);
	metrics_free(b->m);
	free(b);
}

void kube_outbox_flush(struct kube_outbox *b, int64_t mono_us)
{
	b->now_us = mono_us;
	b->flush++;
	/* Callbacks have no clock: the binds answered since the last turn
	 * are timed now. */
	vec_foreach (&b->bound_us, q)
		metrics_observe(b->m, b->fam[F_BIND_S], NULL,
				(double)(mono_us - *q) / 1e6);
	b->bound_us.len = 0;
	read_store(b);
	if (run_retries(b))
		read_store(b);
	pump(b);
}

bool kube_outbox_pending(void *ctx, const struct api_kind *k, const char *ns,
			 const char *name)
{
	struct kube_outbox *b = ctx;
	const struct obj *o = obj_find(b, api_kind_storage(k), ns, name);

	return o && o->head;
}

bool kube_outbox_stale(void *ctx, const struct api_kind *k, const char *ns,
		       const char *name, const json_t *body)
{
	struct kube_outbox *b = ctx;
	const struct obj *o = obj_find(b, api_kind_storage(k), ns, name);
	const char *uid = meta_str(body, "uid");
	uint64_t rv = rv_num(meta_str(body, "resourceVersion"));

	if (!o)
		return false;
	if (o->echo_node && uid && !strcmp(uid, o->echo_uid) && !node_of(body))
		return true;
	return rv && rv < o->echo_rv;
}

bool kube_outbox_idle(const struct kube_outbox *b)
{
	return !b->queued;
}

void kube_outbox_reset(struct kube_outbox *b)
{
	drop_all(b);
	free_objs(b);
	hmap_init(&b->objs);
	snapshot(b);
}

static int on_follow(void *ctx, const struct api_event *ev)
{
	take_event(ctx, ev, true);
	return 0;
}

void kube_outbox_follow(struct kube_outbox *b)
{
	if (b->queued) {
		kube_outbox_reset(b);
		return;
	}
	if (api_store_events(b->o.store, b->cursor, on_follow, b) == -ERANGE)
		kube_outbox_reset(b);
}

void kube_outbox_metrics(const struct kube_outbox *b, struct strbuf *out)
{
	metrics_set(b->m, b->fam[F_QUEUED], NULL, (double)b->queued);
	metrics_write(b->m, out);
}

struct unread {
	const struct api_kind *k;
	const char *ns, *name;
};

static int unread_fn(void *ctx, const struct api_event *ev)
{
	const struct unread *u = ctx;

	return !ev->mirror && ev->kind == u->k && !strcmp(ev->ns, u->ns) &&
	       !strcmp(ev->name, u->name);
}

bool kube_outbox_rebinding(const struct kube_outbox *b, const char *ns,
			   const char *name)
{
	const struct obj *o = obj_find(b, api_kind_at(API_KIND_POD), ns, name);

	return o && o->retry_node;
}

bool kube_outbox_unread(const struct kube_outbox *b, const struct api_kind *k,
			const char *ns, const char *name)
{
	struct unread u = { api_kind_storage(k), ns ? ns : "", name };

	/* -ERANGE: the changes fell out of the history, unread for good */
	return api_store_events(b->o.store, b->cursor, unread_fn, &u) > 0;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The embedded cluster's sync loop: it reads the store's changes since its
 * cursor, sorts them into work (Jobs to reconcile, pods for their node's
 * kubelet, Nodes to check, owners whose dependents to collect), fires the
 * timers that are due, then runs the controllers in a fixed order. It
 * also holds the helpers they share: JSON paths, conditions, timestamps
 * and the writes that skip no-ops.
 *
 * Level-triggered like Kubernetes' controllers: a change only says what
 * to look at; each controller reads the object as it is now and writes
 * the difference, so a missed or repeated change costs nothing but work.
 * After a restart (or when the store's history no longer holds the
 * cursor) everything is read again.
 */
#include "serve/serve_cluster.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/api_default.h"
#include "base/alloc.h"
#include "base/timemap.h"
#include "serve/serve_cluster_int.h"

#include "base/banned.h"

/* ---- key sets and references ---- */

void cl_keyset_init(struct cl_keyset *k)
{
	hmap_init(&k->index);
	k->keys.items = NULL;
	k->keys.len = k->keys.cap = 0;
}

void cl_keyset_release(struct cl_keyset *k)
{
	for (size_t i = 0; i < k->keys.len; i++)
		free(k->keys.items[i]);
	vec_release(&k->keys);
	hmap_release(&k->index);
}

void cl_keyset_add(struct cl_keyset *k, const char *key)
{
	if (hmap_put_str(&k->index, key, 1))
		vec_push(&k->keys, xstrdup(key));
}

char **cl_keyset_take(struct cl_keyset *k, size_t *ret_n)
{
	char **keys = k->keys.items;

	*ret_n = k->keys.len;
	k->keys.items = NULL;
	k->keys.len = k->keys.cap = 0;
	hmap_release(&k->index);
	hmap_init(&k->index);
	return keys;
}

static void free_keys(char **keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

void cl_refs_add(struct cl_refs *r, const struct api_kind *k, const char *ns,
		 const char *name, const char *uid)
{
	struct cl_ref *x = vec_push_zero(r);

	x->kind = k;
	x->ns = xstrdup(ns ? ns : "");
	x->name = xstrdup(name ? name : "");
	x->uid = xstrdup(uid ? uid : "");
}

void cl_refs_release(struct cl_refs *r)
{
	vec_foreach (r, x) {
		free(x->ns);
		free(x->name);
		free(x->uid);
	}
	vec_release(r);
}

/* ---- indexes ---- */

void cl_index_init(struct cl_index *x)
{
	memset(x, 0, sizeof(*x));
	hmap_init(&x->index);
	hmap_init(&x->seen);
}

void cl_index_release(struct cl_index *x)
{
	vec_foreach (&x->lists, l) {
		cl_refs_release(&l->list);
		free(l->key);
	}
	vec_release(&x->lists);
	hmap_release(&x->index);
	hmap_release(&x->seen);
}

static struct cl_index_list *index_list(struct cl_index *x, const char *key,
					bool create)
{
	struct cl_index_list *l;
	int64_t i;

	if (hmap_get_str(&x->index, key, &i))
		return &x->lists.items[i];
	if (!create)
		return NULL;
	hmap_put_str(&x->index, key, (int64_t)x->lists.len);
	l = vec_push_zero(&x->lists);
	l->key = xstrdup(key);
	return l;
}

static void seen_key(char *buf, size_t size, const char *key, const char *uid)
{
	snprintf(buf, size, "%s/%s", key, uid);
}

void cl_index_add(struct cl_index *x, const char *key, const struct api_kind *k,
		  const json_t *obj)
{
	const char *uid = cl_str(obj, "metadata.uid");
	char seen[640];

	if (!uid)
		return;
	seen_key(seen, sizeof(seen), key, uid);
	if (hmap_put_str(&x->seen, seen, 1))
		cl_refs_add(&index_list(x, key, true)->list, k,
			    cl_str(obj, "metadata.namespace"),
			    cl_str(obj, "metadata.name"), uid);
}

void cl_index_get(struct cl_index *x, struct api_store *s, const char *key,
		  cl_index_check_fn check, struct cl_refs *out)
{
	struct cl_index_list *l = index_list(x, key, false);
	size_t kept = 0;

	if (!l)
		return;
	for (size_t i = 0; i < l->list.len; i++) {
		struct cl_ref *r = &l->list.items[i];
		const struct api_obj *o =
			api_store_get(s, r->kind, r->ns, r->name);
		char seen[640];

		if (o && strcmp(o->uid, r->uid) == 0 && check(o->body, key)) {
			cl_refs_add(out, r->kind, r->ns, r->name, r->uid);
			l->list.items[kept++] = *r;
			continue;
		}
		seen_key(seen, sizeof(seen), key, r->uid);
		hmap_del(&x->seen, seen, strlen(seen));
		free(r->ns);
		free(r->name);
		free(r->uid);
	}
	l->list.len = kept;
}

void cl_index_forget(struct cl_index *x, const char *key)
{
	struct cl_index_list *l = index_list(x, key, false);
	size_t i;

	if (!l)
		return;
	vec_foreach (&l->list, r) {
		char seen[640];

		seen_key(seen, sizeof(seen), key, r->uid);
		hmap_del(&x->seen, seen, strlen(seen));
	}
	cl_refs_release(&l->list);
	/* The last list moves into the freed slot. */
	i = (size_t)(l - x->lists.items);
	hmap_del(&x->index, l->key, strlen(l->key));
	free(l->key);
	if (i + 1 < x->lists.len) {
		x->lists.items[i] = x->lists.items[x->lists.len - 1];
		hmap_put_str(&x->index, x->lists.items[i].key, (int64_t)i);
	}
	x->lists.len--;
}

/* ---- JSON ---- */

json_t *cl_get(const json_t *o, const char *path)
{
	char key[128];

	while (o && json_is_object(o)) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		if (!dot)
			return (json_t *)o;
		path = dot + 1;
	}
	return NULL;
}

const char *cl_str(const json_t *o, const char *path)
{
	return json_string_value(cl_get(o, path));
}

json_t *cl_obj(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_object(v)) {
		v = json_object();
		json_object_set_new(o, key, v);
	}
	return v;
}

json_t *cl_arr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_array(v)) {
		v = json_array();
		json_object_set_new(o, key, v);
	}
	return v;
}

json_t *cl_jtime(int64_t us)
{
	char buf[32];

	return json_string(api_store_timestamp(us, buf, sizeof(buf)));
}

int64_t cl_parse_time(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		return -1;
	if (*end == '.')
		for (end++; *end >= '0' && *end <= '9'; end++)
			;
	if (strcmp(end, "Z") != 0)
		return -1;
	return timemap_clock((int64_t)timegm(&tm) * 1000000);
}

json_t *cl_cond(const json_t *conds, const char *type)
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

static bool set_str(json_t *o, const char *key, const char *v)
{
	const char *old = json_string_value(json_object_get(o, key));

	if (!v || !*v) {
		if (!json_object_get(o, key))
			return false;
		json_object_del(o, key);
		return true;
	}
	if (old && strcmp(old, v) == 0)
		return false;
	json_object_set_new(o, key, json_string(v));
	return true;
}

bool cl_set_cond(json_t *status, const char *type, const char *st,
		 const char *reason, const char *message, int64_t now_us,
		 enum cl_cond_style style)
{
	json_t *conds = cl_arr(status, "conditions");
	json_t *c = cl_cond(conds, type);
	bool changed = false, moved;

	if (!c) {
		c = json_object();
		json_object_set_new(c, "type", json_string(type));
		json_array_append_new(conds, c);
		changed = true;
	}
	moved = set_str(c, "status", st);
	changed |= moved;
	changed |= set_str(c, "reason", reason);
	changed |= set_str(c, "message", message);
	if (!changed)
		return false;
	switch (style) {
	case CL_COND_JOB:
		json_object_set_new(c, "lastProbeTime", cl_jtime(now_us));
		json_object_set_new(c, "lastTransitionTime", cl_jtime(now_us));
		break;
	case CL_COND_POD:
		json_object_set_new(c, "lastProbeTime", json_null());
		if (moved || !json_object_get(c, "lastTransitionTime"))
			json_object_set_new(c, "lastTransitionTime",
					    cl_jtime(now_us));
		break;
	default:
		json_object_set_new(c, "lastHeartbeatTime", cl_jtime(now_us));
		if (moved || !json_object_get(c, "lastTransitionTime"))
			json_object_set_new(c, "lastTransitionTime",
					    cl_jtime(now_us));
		break;
	}
	return true;
}

bool cl_cond_true(const json_t *obj, const char *type)
{
	const json_t *c = cl_cond(cl_get(obj, "status.conditions"), type);
	const char *st = c ? cl_str(c, "status") : NULL;

	return st && strcmp(st, "True") == 0;
}

bool cl_has_finalizer(const json_t *obj, const char *f)
{
	size_t i;
	json_t *v;

	json_array_foreach(cl_get(obj, "metadata.finalizers"), i, v)
	{
		const char *s = json_string_value(v);

		if (s && strcmp(s, f) == 0)
			return true;
	}
	return false;
}

bool cl_drop_finalizer(json_t *obj, const char *f)
{
	json_t *meta = json_object_get(obj, "metadata");
	json_t *fs = json_object_get(meta, "finalizers");
	bool found = false;

	for (size_t i = 0; i < json_array_size(fs);) {
		const char *s = json_string_value(json_array_get(fs, i));

		if (s && strcmp(s, f) == 0) {
			json_array_remove(fs, i);
			found = true;
		} else {
			i++;
		}
	}
	if (fs && json_array_size(fs) == 0)
		json_object_del(meta, "finalizers");
	return found;
}

const json_t *cl_controller_ref(const json_t *obj)
{
	size_t i;
	json_t *r;

	json_array_foreach(cl_get(obj, "metadata.ownerReferences"), i, r)
	{
		if (json_is_true(json_object_get(r, "controller")))
			return r;
	}
	return NULL;
}

bool cl_terminal(const json_t *pod)
{
	const char *p = cl_str(pod, "status.phase");

	return p && (strcmp(p, "Succeeded") == 0 || strcmp(p, "Failed") == 0);
}

bool cl_deleting(const json_t *obj)
{
	return cl_get(obj, "metadata.deletionTimestamp") &&
	       !json_is_null(cl_get(obj, "metadata.deletionTimestamp"));
}

/* ---- writes ---- */

int cl_update(struct serve_cluster *c, const struct api_obj *o, json_t *body,
	      int64_t now_us)
{
	int r;

	if (json_equal(o->body, body)) {
		json_decref(body);
		return 0;
	}
	r = api_store_update(c->s, o->kind, body, o->rv, now_us, NULL);
	if (r == 0)
		c->writes++;
	return r;
}

int cl_create(struct serve_cluster *c, const struct api_kind *k, json_t *body,
	      int64_t now_us, const struct api_obj **ret)
{
	char uid[64];
	int r;

	api_store_new_uid(c->s, uid, sizeof(uid));
	api_default(k, body, uid, true);
	r = api_store_create_as(c->s, k, body, uid, now_us, ret);
	if (r == 0)
		c->writes++;
	return r;
}

int cl_delete(struct serve_cluster *c, const struct api_obj *o, int64_t now_us)
{
	int r;

	if (cl_deleting(o->body) &&
	    json_array_size(cl_get(o->body, "metadata.finalizers")))
		return 0;
	r = api_store_delete(c->s, o->kind, o->ns, o->name, o->rv, now_us);

	if (r == 0)
		c->writes++;
	return r;
}

int cl_release_finalizer(struct serve_cluster *c, const struct api_obj *o,
			 const char *f, int64_t now_us)
{
	json_t *body;

	if (!cl_has_finalizer(o->body, f))
		return 0;
	body = json_deep_copy(o->body);
	cl_drop_finalizer(body, f);
	return cl_update(c, o, body, now_us);
}

int cl_delete_dropping(struct serve_cluster *c, const struct api_obj *o,
		       const char *f, int64_t now_us)
{
	json_t *body, *meta;
	char *uid;
	int r;

	if (!cl_has_finalizer(o->body, f))
		return cl_delete(c, o, now_us);
	body = json_deep_copy(o->body);
	meta = cl_obj(body, "metadata");
	cl_drop_finalizer(body, f);
	if (!json_array_size(json_object_get(meta, "finalizers"))) {
		/* The update that empties the finalizers of an object being
		 * deleted removes it: one write. */
		if (!cl_deleting(body)) {
			json_object_set_new(meta, "deletionTimestamp",
					    cl_jtime(now_us));
			json_object_set_new(meta, "deletionGracePeriodSeconds",
					    json_integer(0));
		}
		return cl_update(c, o, body, now_us);
	}
	uid = xstrdup(o->uid);
	r = cl_update(c, o, body, now_us);
	o = r == 0 ? api_store_find_uid(c->s, uid) : NULL;
	free(uid);
	return o ? cl_delete(c, o, now_us) : r;
}

/* ---- timers ---- */

static int timer_cmp(const void *a, const void *b, void *ctx)
{
	const struct cl_timer *x = a, *y = b;

	(void)ctx;
	if (x->at_us != y->at_us)
		return x->at_us < y->at_us ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void armed_key(char *buf, size_t size, const char *uid,
		      enum cl_timer_kind kind)
{
	snprintf(buf, size, "%s/%d", uid, (int)kind);
}

void cl_arm(struct serve_cluster *c, enum cl_timer_kind kind, int64_t at_us,
	    const char *ns, const char *name, const char *uid)
{
	struct cl_timer *t;
	char key[320];
	int64_t at;

	armed_key(key, sizeof(key), uid, kind);
	if (hmap_get_str(&c->armed, key, &at) && at == at_us)
		return; /* armed already: reconciles re-arm freely */
	t = xcalloc(1, sizeof(*t));
	t->at_us = at_us;
	t->seq = ++c->timer_seq;
	t->kind = kind;
	t->ns = xstrdup(ns);
	t->name = xstrdup(name);
	t->uid = xstrdup(uid);
	hmap_put_str(&c->armed, key, at_us);
	heap_push(&c->timers, t);
}

bool cl_armed(const struct serve_cluster *c, const char *uid,
	      enum cl_timer_kind kind)
{
	char key[320];

	armed_key(key, sizeof(key), uid, kind);
	return hmap_get_str(&c->armed, key, NULL);
}

int64_t cl_armed_at(const struct serve_cluster *c, const char *uid,
		    enum cl_timer_kind kind)
{
	char key[320];
	int64_t at;

	armed_key(key, sizeof(key), uid, kind);
	return hmap_get_str(&c->armed, key, &at) ? at : -1;
}

void cl_disarm_mark(struct serve_cluster *c, const char *uid,
		    enum cl_timer_kind kind)
{
	char key[320];

	armed_key(key, sizeof(key), uid, kind);
	hmap_del(&c->armed, key, strlen(key));
}

static void timer_free(struct cl_timer *t)
{
	if (!t)
		return;
	free(t->ns);
	free(t->name);
	free(t->uid);
	free(t);
}

/* Whether t is still the armed timer of its object and kind (the map
 * holds the time each key is armed for). */
static bool timer_live(const struct serve_cluster *c, const struct cl_timer *t)
{
	char key[320];
	int64_t at;

	armed_key(key, sizeof(key), t->uid, t->kind);
	return hmap_get_str(&c->armed, key, &at) && at == t->at_us;
}

/* When an Event expires: an hour of the wall clock after it last
 * happened (the TTL is the API server's, which runs at the wall clock's
 * pace: at --speed 60 Events stay an hour, not a minute). */
static int64_t event_expiry(const struct serve_cluster *c, const json_t *ev)
{
	int64_t t = cl_parse_time(cl_str(ev, "lastTimestamp"));

	if (t < 0)
		t = cl_parse_time(cl_str(ev, "eventTime"));
	if (t < 0)
		t = cl_parse_time(cl_str(ev, "metadata.creationTimestamp"));
	return t < 0 ? -1 : t + (int64_t)((double)CL_EVENT_TTL_US * c->o.speed);
}

static void expire_event(struct serve_cluster *c, const struct cl_timer *t,
			 int64_t now_us)
{
	const struct api_obj *o =
		api_store_get(c->s, c->event_k, t->ns, t->name);

	if (o && strcmp(o->uid, t->uid) == 0 &&
	    event_expiry(c, o->body) <= now_us)
		(void)cl_delete(c, o, now_us);
}

/*
 * The timers due, at most CL_TIMERS_PER_TURN for one now_us (a turn's
 * syncs share it): the rest stay due, and next_us() says so, so the
 * daemon answers its requests between turns instead of starting 30,000
 * pods in one (turns of 6 s at 50,000 pods, past a client's Lease
 * renewal timeout).
 */
static void fire_timers(struct serve_cluster *c, int64_t now_us)
{
	struct cl_timer *t;

	if (c->fired_us != now_us) {
		c->fired_us = now_us;
		c->fired = 0;
	}
	while (c->fired < CL_TIMERS_PER_TURN && (t = heap_peek(&c->timers)) &&
	       t->at_us <= now_us) {
		heap_pop(&c->timers);
		if (timer_live(c, t)) {
			c->fired++;
			cl_disarm_mark(c, t->uid, t->kind);
			if (t->kind == CL_T_JOB || t->kind == CL_T_BACKOFF ||
			    t->kind == CL_T_BATCH)
				cl_mark_job(c, t->ns, t->name);
			else if (t->kind == CL_T_EVENT_TTL)
				expire_event(c, t, now_us);
			else if (t->kind == CL_T_LEASE)
				cl_lease_timer(c, t, now_us);
			else
				cl_kubelet_timer(c, t, now_us);
		}
		timer_free(t);
	}
}

/* Drop disarmed timers from the top, so that next_us is exact. */
static void prune_timers(struct serve_cluster *c)
{
	struct cl_timer *t;

	while ((t = heap_peek(&c->timers)) && !timer_live(c, t))
		timer_free(heap_pop(&c->timers));
}

void cl_mark_job(struct serve_cluster *c, const char *ns, const char *name)
{
	char key[512];

	snprintf(key, sizeof(key), "%s/%s", ns, name);
	cl_keyset_add(&c->jobs, key);
}

/* ---- changes ---- */

static void observe(struct serve_cluster *c, const struct api_kind *k,
		    enum api_ev_type type, const json_t *body)
{
	const char *ns = cl_str(body, "metadata.namespace");
	const char *name = cl_str(body, "metadata.name");
	const char *uid = cl_str(body, "metadata.uid");
	char key[512];
	size_t i;
	json_t *ref;

	if (!name)
		return;
	ns = ns ? ns : "";
	if (k == c->event_k) {
		int64_t at = event_expiry(c, body);

		/* Events go after an hour, as kube-apiserver's --event-ttl:
		 * a daemon's store does not fill up with them. */
		if (type != API_DELETED && uid && at >= 0)
			cl_arm(c, CL_T_EVENT_TTL, at, ns, name, uid);
		return;
	}
	if (type == API_DELETED) {
		if (uid)
			cl_keyset_add(&c->gone, uid);
		if (k == c->pod_k)
			cl_kubelet_gone(c, body);
		json_array_foreach(cl_get(body, "metadata.ownerReferences"), i,
				   ref)
		{
			const char *o = cl_str(ref, "uid");

			if (o)
				cl_keyset_add(&c->owners, o);
		}
		if (k == c->node_k)
			cl_keyset_add(&c->dropped, name);
		return;
	}
	cl_gc_index(c, k, body);
	if (uid && cl_deleting(body) &&
	    (cl_has_finalizer(body, CL_FG_FINALIZER) ||
	     cl_has_finalizer(body, CL_ORPHAN_FINALIZ)))
		cl_keyset_add(&c->owners, uid);
	if (k == c->job_k) {
		cl_mark_job(c, ns, name);
	} else if (k == c->pod_k) {
		const json_t *cref = cl_controller_ref(body);
		const char *ck = cref ? cl_str(cref, "kind") : NULL;
		const char *cn = cref ? cl_str(cref, "name") : NULL;
		const char *cu = cref ? cl_str(cref, "uid") : NULL;

		/* Pod changes reach their Job batched, as Kubernetes'
		 * syncJobBatchPeriod: a 1000-pod Job is reconciled once a
		 * second, not once per pod change. */
		if (ck && cn && cu && strcmp(ck, "Job") == 0 &&
		    !cl_armed(c, cu, CL_T_BATCH))
			cl_arm(c, CL_T_BATCH, c->now_us + CL_JOB_BATCH_US, ns,
			       cn, cu);
		snprintf(key, sizeof(key), "%s/%s", ns, name);
		cl_keyset_add(&c->pods, key);
		if (cl_str(body, "spec.nodeName"))
			cl_index_add(&c->on_node, cl_str(body, "spec.nodeName"),
				     k, body);
	} else if (k == c->node_k) {
		cl_keyset_add(&c->nodes, name);
	}
}

static int on_event(void *ctx, const struct api_event *ev)
{
	struct serve_cluster *c = ctx;

	c->cursor = ev->rv;
	observe(c, ev->kind, ev->type, api_event_body(ev));
	return 0;
}

static int on_object(void *ctx, const struct api_obj *o)
{
	observe(ctx, o->kind, API_ADDED, o->body);
	return 0;
}

static void relist(struct serve_cluster *c)
{
	c->cursor = api_store_rv(c->s);
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);

		if (api_kind_storage(k) != k)
			continue;
		(void)api_store_each(c->s, k, NULL, NULL, NULL, on_object, c);
	}
	c->relist = false;
}

static void read_changes(struct serve_cluster *c)
{
	if (!c->relist &&
	    api_store_events(c->s, c->cursor, on_event, c) == -ERANGE)
		c->relist = true;
	if (c->relist)
		relist(c);
}

/* ---- the loop ---- */

struct serve_cluster *serve_cluster_new(struct api_store *s,
					const struct serve_cluster_options *o)
{
	struct serve_cluster *c = xcalloc(1, sizeof(*c));

	c->s = s;
	if (o)
		c->o = *o;
	if (c->o.startup_us <= 0)
		c->o.startup_us = 10 * 1000000LL;
	if (!(c->o.speed > 0))
		c->o.speed = 1;
	c->pod_k = api_kind_of("v1", "Pod");
	c->job_k = api_kind_of("batch/v1", "Job");
	c->node_k = api_kind_of("v1", "Node");
	c->event_k = api_kind_of("v1", "Event");
	c->lease_k = api_kind_of("coordination.k8s.io/v1", "Lease");
	BUG_ON(!c->pod_k || !c->job_k || !c->node_k || !c->event_k ||
	       !c->lease_k);
	rng_seed(&c->rng, c->o.seed);
	c->relist = true;
	heap_init(&c->timers, timer_cmp, NULL);
	hmap_init(&c->armed);
	cl_keyset_init(&c->jobs);
	cl_keyset_init(&c->nodes);
	cl_keyset_init(&c->pods);
	cl_keyset_init(&c->gone);
	cl_keyset_init(&c->owners);
	cl_keyset_init(&c->dropped);
	hmap_init(&c->backoff_index);
	cl_index_init(&c->owned);
	cl_index_init(&c->on_node);
	hmap_init(&c->images);
	hmap_init(&c->pulling);
	hmap_init(&c->bucket_index);
	hmap_init(&c->killed);
	hmap_init(&c->speed);
	hmap_init(&c->fault_warned);
	return c;
}

void serve_cluster_free(struct serve_cluster *c)
{
	struct cl_timer *t;

	if (!c)
		return;
	while ((t = heap_pop(&c->timers)))
		timer_free(t);
	heap_release(&c->timers);
	hmap_release(&c->armed);
	cl_keyset_release(&c->jobs);
	cl_keyset_release(&c->nodes);
	cl_keyset_release(&c->pods);
	cl_keyset_release(&c->gone);
	cl_keyset_release(&c->owners);
	cl_keyset_release(&c->dropped);
	cl_index_release(&c->owned);
	cl_index_release(&c->on_node);
	cl_jobs_release(c);
	cl_kubelet_release(c);
	free(c);
}

/* One phase: fn for each key of set, in the order they came. */
typedef void (*phase_fn)(struct serve_cluster *c, char *key, int64_t now_us);

static void run_phase(struct serve_cluster *c, struct cl_keyset *set,
		      phase_fn fn, int64_t now_us)
{
	size_t n;
	char **keys = cl_keyset_take(set, &n);

	for (size_t i = 0; i < n; i++)
		fn(c, keys[i], now_us);
	free_keys(keys, n);
}

static void node_gone_phase(struct serve_cluster *c, char *key, int64_t now)
{
	cl_node_deleted(c, key, now);
}

static void node_phase(struct serve_cluster *c, char *key, int64_t now)
{
	cl_node_check(c, key, now);
}

static void owner_phase(struct serve_cluster *c, char *key, int64_t now)
{
	cl_gc_owner(c, key, now);
}

static void gone_phase(struct serve_cluster *c, char *key, int64_t now)
{
	cl_gc_collect(c, key, now);
}

/* Keys "ns/name". */
static void pod_phase(struct serve_cluster *c, char *key, int64_t now)
{
	char *slash = strchr(key, '/');

	*slash = '\0';
	cl_kubelet_pod(c, key, slash + 1, now);
}

static void job_phase(struct serve_cluster *c, char *key, int64_t now)
{
	char *slash = strchr(key, '/');

	*slash = '\0';
	cl_jobs_reconcile(c, key, slash + 1, now);
}

/*
 * The order matters only for work one phase queues for a later one in
 * the same pass: a Node's check queues its pods, garbage collection the
 * pods whose Job went while they were terminating.
 */
int serve_cluster_sync(struct serve_cluster *c, int64_t now_us)
{
	c->writes = 0;
	c->now_us = now_us;
	read_changes(c);
	fire_timers(c, now_us);
	cl_kubelet_stopped(c, now_us);
	run_phase(c, &c->dropped, node_gone_phase, now_us);
	run_phase(c, &c->nodes, node_phase, now_us);
	run_phase(c, &c->owners, owner_phase, now_us);
	run_phase(c, &c->gone, gone_phase, now_us);
	run_phase(c, &c->pods, pod_phase, now_us);
	run_phase(c, &c->jobs, job_phase, now_us);
	prune_timers(c);
	return c->writes;
}

int64_t serve_cluster_next_us(const struct serve_cluster *c)
{
	const struct cl_timer *t = heap_peek(&c->timers);

	if (c->jobs.keys.len || c->nodes.keys.len || c->pods.keys.len ||
	    c->gone.keys.len || c->owners.keys.len || c->dropped.keys.len)
		return 0;
	return t ? t->at_us : INT64_MAX;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The reflectors: per served kind a paginated list, then a watch from the
 * list's resourceVersion, mirrored into the replica (kube_reflect.h).
 *
 * A kind is a small state machine (enum rk_state) driven by the
 * transport's callbacks and by run() for what waits on the clock
 * (backoff). A list page is parsed once and its objects are stolen from
 * the page's array into the store, so a body exists once. The remote
 * resourceVersion of each mirrored object is kept beside it (struct
 * rent), with the list that last saw it: at the end of a list the
 * objects it did not see are deleted (the relist diff), so a relist after
 * a 410 converges on the server's state without clearing the replica.
 */
#include "kube/kube_reflect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "kube/kube_reflect_int.h"

#include "base/banned.h"

#define PAGE_DEFAULT 500
#define WATCH_MIN_S  300 /* client-go's minWatchTimeout */

enum { EV_ADDED, EV_MODIFIED, EV_DELETED, EV_BOOKMARK, EV_ERROR, EV_COUNT };
static const char *const ev_names[EV_COUNT] = { "ADDED", "MODIFIED", "DELETED",
						"BOOKMARK", "ERROR" };

int64_t kube_reflect_backoff(struct kube_reflect *r, int64_t *backoff_us)
{
	int64_t b = *backoff_us ? *backoff_us : KR_BACKOFF_MIN_US;

	*backoff_us = b * 2 > KR_BACKOFF_MAX_US ? KR_BACKOFF_MAX_US : b * 2;
	return b / 2 + (int64_t)rng_below(&r->rng, (uint64_t)b / 2 + 1);
}

struct rcall *kube_reflect_call_new(struct kube_reflect *r, const char *arg)
{
	struct rcall *c = xcalloc(1, sizeof(*c));

	c->r = r;
	c->arg = xstrdup(arg ? arg : "");
	vec_push(&r->calls, c);
	return c;
}

static void call_free(struct rcall *c)
{
	free(c->arg);
	free(c->rv);
	free(c);
}

void kube_reflect_call_end(struct kube_reflect *r, struct rcall *c)
{
	for (size_t i = 0; i < r->calls.len; i++) {
		if (r->calls.items[i] == c) {
			r->calls.items[i] = vec_pop(&r->calls);
			break;
		}
	}
	call_free(c);
}

/* --- metrics --------------------------------------------------------- */

enum {
	F_LISTS,
	F_RELISTS,
	F_WATCHES,
	F_EXPIRED,
	F_FAILURES,
	F_EVENTS,
	F_OBJECTS,
	F_SYNCED,
	F_COUNT
};

static const struct metrics_def families[F_COUNT] = {
	{ "echelon_kube_reflector_lists_total",
	  "Complete lists of a resource (first lists and relists).",
	  METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_reflector_relists_total",
	  "Lists after the first: after a 410 Expired or a failed list.",
	  METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_reflector_watches_total",
	  "Watch streams started (the first and every restart).",
	  METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_reflector_expired_total",
	  "410 Expired answers (watch or list continue): relists.",
	  METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_reflector_failures_total",
	  "Lists and watches that failed (then retried after a backoff).",
	  METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_reflector_events_total",
	  "Watch events received, by type.", METRICS_COUNTER, NULL, 0 },
	{ "echelon_kube_reflector_objects",
	  "Objects of a resource in the replica.", METRICS_GAUGE, NULL, 0 },
	{ "echelon_kube_reflector_synced_seconds",
	  "Seconds from the start to the first complete list of every "
	  "served resource (absent before).",
	  METRICS_GAUGE, NULL, 0 },
};

_Static_assert(F_COUNT <= ARRAY_SIZE(((struct kube_reflect *)0)->fam),
	       "room for the families");

static void metrics_init(struct kube_reflect *r, struct rkind *rk)
{
	const char *lab[] = { "resource", rk->label, NULL };
	const int *ids = r->fam;

	rk->m_lists = metrics_handle(r->m, ids[F_LISTS], lab);
	rk->m_relists = metrics_handle(r->m, ids[F_RELISTS], lab);
	rk->m_watches = metrics_handle(r->m, ids[F_WATCHES], lab);
	rk->m_expired = metrics_handle(r->m, ids[F_EXPIRED], lab);
	rk->m_failures = metrics_handle(r->m, ids[F_FAILURES], lab);
	rk->m_objects = metrics_handle(r->m, ids[F_OBJECTS], lab);
	for (int t = 0; t < EV_COUNT; t++) {
		const char *el[] = { "resource", rk->label, "type", ev_names[t],
				     NULL };

		rk->m_events[t] = metrics_handle(r->m, ids[F_EVENTS], el);
	}
}

void kube_reflect_metrics(const struct kube_reflect *r, struct strbuf *out)
{
	for (size_t i = 0; r->kinds_ready && i < r->nkinds; i++) {
		const struct rkind *rk = &r->kinds[i];

		if (rk->version)
			metrics_set_handle(
				r->m, rk->m_objects,
				(double)api_store_count(r->o.store, rk->kind));
	}
	metrics_write(r->m, out);
}

/* --- the objects ------------------------------------------------------ */

static void key_of(char *buf, size_t size, const char *ns, const char *name)
{
	snprintf(buf, size, "%s/%s", ns ? ns : "", name);
}

static struct rent *rent_get(const struct rkind *rk, const char *key)
{
	int64_t v;

	return hmap_get_str(&rk->objs, key, &v) ? (struct rent *)(intptr_t)v
						: NULL;
}

static void rent_drop(struct rkind *rk, const char *key)
{
	struct rent *e = rent_get(rk, key);

	if (!e)
		return;
	hmap_del(&rk->objs, key, strlen(key));
	json_decref(e->held);
	free(e->rv);
	free(e);
}

static const char *md_str(const json_t *obj, const char *field)
{
	return json_string_value(
		json_object_get(json_object_get(obj, "metadata"), field));
}

/* obj (stolen) as the replica keeps it: apiVersion and kind as served
 * (list items come without), managedFields dropped, converted to the
 * storage form when served as another. NULL when it is no object with a
 * name. */
static json_t *decode(const struct rkind *rk, json_t *obj)
{
	json_t *md = json_object_get(obj, "metadata"), *conv;
	char gv[96];

	if (!json_is_object(md) || !md_str(obj, "name")) {
		json_decref(obj);
		return NULL;
	}
	json_object_del(md, "managedFields");
	json_object_set_new(obj, "apiVersion",
			    json_string(api_kind_gv(rk->served, rk->version, gv,
						    sizeof(gv))));
	json_object_set_new(obj, "kind", json_string(rk->served->kind));
	if (!rk->convert)
		return obj;
	conv = api_kind_convert(obj, rk->kind, NULL);
	json_decref(obj);
	return conv;
}

/* Mirror obj (stolen, decoded) now. */
static void apply(struct rkind *rk, struct rent *e, json_t *obj)
{
	struct kube_reflect *r = rk->r;
	const char *rv = md_str(obj, "resourceVersion");
	int rc;

	free(e->rv);
	e->rv = rv ? xstrdup(rv) : NULL;
	json_incref(obj); /* for the message: the store takes it */
	rc = api_store_mirror(r->o.store, rk->kind, obj, r->now_us, NULL);
	if (rc)
		log_debug("kube: %s %s/%s not mirrored: %s", rk->label,
			  md_str(obj, "namespace"), md_str(obj, "name"),
			  strerror(-rc));
	json_decref(obj);
}

/* A remote object's current body (stolen): mirrored, or held while the
 * object has local writes on their way. in_list: seen by the current
 * list. */
/* Whether the options' stale() says body is older than an answered local
 * write of ns/name made of it. */
static bool is_stale(const struct kube_reflect *r, const struct rkind *rk,
		     const char *ns, const char *name, const json_t *body)
{
	return r->o.stale && name &&
	       r->o.stale(r->o.pending_ctx, rk->kind, ns, name, body);
}

static void put(struct rkind *rk, json_t *obj, bool in_list)
{
	struct kube_reflect *r = rk->r;
	const char *ns, *name;
	char key[512];
	struct rent *e;

	obj = decode(rk, obj);
	if (!obj)
		return;
	ns = rk->kind->namespaced ? md_str(obj, "namespace") : "";
	if (!ns) /* as the store names it */
		ns = "default";
	name = md_str(obj, "name");
	key_of(key, sizeof(key), ns, name);
	e = rent_get(rk, key);
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		hmap_put_str(&rk->objs, key, (int64_t)(intptr_t)e);
	}
	if (in_list)
		e->gen = rk->gen;
	if (r->o.pending &&
	    r->o.pending(r->o.pending_ctx, rk->kind, ns, name)) {
		if (!e->held)
			vec_push(&rk->held, xstrdup(key));
		json_decref(e->held);
		e->held = obj;
		return;
	}
	json_decref(e->held);
	e->held = NULL;
	if (!in_list && is_stale(r, rk, ns, name, obj)) {
		json_decref(obj);
		return;
	}
	apply(rk, e, obj);
}

/* The remote deleted ns/name (uid: the deleted one's, or NULL). */
static void gone(struct rkind *rk, const char *ns, const char *name,
		 const char *uid)
{
	struct kube_reflect *r = rk->r;
	const struct api_obj *o;
	struct rent *e;
	char key[512];

	if (!rk->kind->namespaced || !ns)
		ns = "";
	key_of(key, sizeof(key), ns, name);
	o = api_store_get(r->o.store, rk->kind, ns, name);
	e = rent_get(rk, key);
	if (o && uid && strcmp(o->uid, uid)) {
		/* Another object of that name (a local create on its way,
		 * or a newer one) stays; only a held body of this one goes. */
		const char *held = e && e->held ? md_str(e->held, "uid") : NULL;

		if (held && !strcmp(held, uid)) {
			json_decref(e->held);
			e->held = NULL;
		}
		return;
	}
	rent_drop(rk, key);
	if (o &&
	    api_store_mirror_delete(r->o.store, rk->kind, ns, name, r->now_us))
		BUG_ON(1); /* it was there */
}

/* Mirror the held bodies whose objects are no longer pending. */
static void release_held(struct rkind *rk)
{
	struct kube_reflect *r = rk->r;
	size_t j = 0;

	for (size_t i = 0; i < rk->held.len; i++) {
		char *key = rk->held.items[i];
		struct rent *e = rent_get(rk, key);
		json_t *obj;

		if (e && e->held) {
			const char *ns = rk->kind->namespaced
						 ? md_str(e->held, "namespace")
						 : "";

			if (!ns)
				ns = "default";

			if (r->o.pending(r->o.pending_ctx, rk->kind, ns,
					 md_str(e->held, "name"))) {
				rk->held.items[j++] = key;
				continue;
			}
			obj = e->held;
			e->held = NULL;
			if (is_stale(r, rk, ns, md_str(obj, "name"), obj))
				json_decref(obj);
			else
				apply(rk, e, obj);
		}
		free(key);
	}
	rk->held.len = j;
}

/* --- lists and watches ----------------------------------------------- */

static void start(struct rkind *rk);

/* Run again after a jittered backoff (failure). */
static void retry_later(struct rkind *rk, const char *what,
			const struct kube_reply *rep)
{
	struct kube_reflect *r = rk->r;

	log_debug("kube: %s %s failed: %d %s", rk->label, what, rep->code,
		  rep->error ? rep->error : "");
	metrics_add_handle(r->m, rk->m_failures, 1);
	rk->st = RK_DUE;
	rk->call = 0;
	rk->due_us = r->now_us + kube_reflect_backoff(r, &rk->backoff_us);
}

/* The next start lists from the beginning, from etcd (not from a cache
 * that may be as old). */
static void list_again(struct rkind *rk)
{
	rk->relist = true;
	rk->any = false;
	free(rk->cont);
	rk->cont = NULL;
}

static void relist(struct rkind *rk)
{
	metrics_add_handle(rk->r->m, rk->m_expired, 1);
	list_again(rk);
}

/* The keys a list's end deletes. */
struct unseen {
	struct rkind *rk;
	VEC(char *) keys;
};

/* An object of the store the reflector never mirrored (a local create,
 * not pending): its key, for a resync's end. */
static int local_only(void *ctx, const struct api_obj *o)
{
	struct unseen *u = ctx;
	const struct kube_reflect *r = u->rk->r;
	const char *ns = u->rk->kind->namespaced ? o->ns : "";
	char key[512];

	key_of(key, sizeof(key), ns, o->name);
	if (!rent_get(u->rk, key) &&
	    !(r->o.pending &&
	      r->o.pending(r->o.pending_ctx, u->rk->kind, ns, o->name)))
		vec_push(&u->keys, xstrdup(key));
	return 0;
}

/* The list is complete at resourceVersion rv: delete what it did not
 * see (after a resync, local objects too), watch from rv. */
static void list_end(struct rkind *rk)
{
	struct kube_reflect *r = rk->r;
	const struct hmap_slot *slot;
	struct unseen u = { .rk = rk };
	size_t it = 0;

	while (hmap_next(&rk->objs, &it, &slot))
		if (((struct rent *)(intptr_t)slot->value)->gen != rk->gen)
			vec_push(&u.keys, xstrndup(slot->key, slot->keylen));
	if (rk->resync)
		(void)api_store_each(r->o.store, rk->kind, NULL, NULL, NULL,
				     local_only, &u);
	vec_foreach (&u.keys, p) {
		char *slash = strchr(*p, '/');

		*slash = '\0';
		gone(rk, *p, slash + 1, NULL);
		free(*p);
	}
	vec_release(&u.keys);
	metrics_add_handle(r->m, rk->m_lists, 1);
	if (rk->listed)
		metrics_add_handle(r->m, rk->m_relists, 1);
	rk->listed = true;
	rk->relist = false;
	rk->resync = false;
	rk->any = false;
	rk->backoff_us = 0;
	if (!r->synced_us && kube_reflect_synced(r)) {
		r->synced_us = r->now_us;
		metrics_set(r->m, r->fam[F_SYNCED], NULL,
			    (double)(r->now_us - r->start_us) / 1e6);
	}
	start(rk);
}

static void on_page(void *ctx, const struct kube_reply *rep)
{
	struct rkind *rk = ctx;
	json_t *page, *items, *md;
	const char *cont, *rv;

	rk->call = 0;
	if (rep->code == 410) {
		/* An expired continue token: the list starts again. */
		bool was_paging = rk->cont != NULL;

		relist(rk);
		if (was_paging)
			start(rk);
		else
			retry_later(rk, "list", rep);
		return;
	}
	page = rep->code == 200 ? json_loadb(rep->body, rep->len, 0, NULL)
				: NULL;
	items = json_object_get(page, "items");
	md = json_object_get(page, "metadata");
	rv = json_string_value(json_object_get(md, "resourceVersion"));
	if (!json_is_array(items) || !rv) {
		json_decref(page);
		free(rk->cont);
		rk->cont = NULL;
		retry_later(rk, "list", rep);
		return;
	}
	/* Each item taken out of the page: the store keeps the only copy. */
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *obj = json_incref(json_array_get(items, i));

		json_array_set_new(items, i, json_null());
		put(rk, obj, true);
	}
	free(rk->rv);
	rk->rv = xstrdup(rv);
	cont = json_string_value(json_object_get(md, "continue"));
	free(rk->cont);
	rk->cont = cont && *cont ? xstrdup(cont) : NULL;
	json_decref(page);
	if (rk->cont)
		start(rk);
	else
		list_end(rk);
}

/* One line of the watch. Non-zero ends the stream. */
static int on_line(void *ctx, const char *line, size_t len)
{
	struct rkind *rk = ctx;
	struct kube_reflect *r = rk->r;
	json_t *ev = json_loadb(line, len, 0, NULL), *obj;
	const char *type = json_string_value(json_object_get(ev, "type"));
	const char *rv;
	int t;

	obj = json_object_get(ev, "object");
	for (t = 0; t < EV_COUNT && (!type || strcmp(type, ev_names[t])); t++)
		;
	if (t == EV_COUNT || !json_is_object(obj)) {
		/* Nothing after it can be trusted: watch again from the
		 * last event taken. */
		json_decref(ev);
		return 1;
	}
	metrics_add_handle(r->m, rk->m_events[t], 1);
	if (t == EV_ERROR) {
		rk->expired =
			json_integer_value(json_object_get(obj, "code")) == 410;
		json_decref(ev);
		return 1;
	}
	rk->backoff_us = 0;
	rv = md_str(obj, "resourceVersion");
	if (rv) {
		free(rk->rv);
		rk->rv = xstrdup(rv);
	}
	if (t == EV_DELETED && md_str(obj, "name"))
		gone(rk, md_str(obj, "namespace"), md_str(obj, "name"),
		     md_str(obj, "uid"));
	else if (t == EV_ADDED || t == EV_MODIFIED)
		put(rk, json_incref(obj), false);
	json_decref(ev);
	return 0;
}

static void on_watch_end(void *ctx, const struct kube_reply *rep)
{
	struct rkind *rk = ctx;

	rk->call = 0;
	if (rk->expired || rep->code == 410) {
		rk->expired = false;
		relist(rk);
		start(rk);
	} else if (rep->code == 200) {
		start(rk); /* the server's timeout: watch on from rv */
	} else {
		retry_later(rk, "watch", rep);
	}
}

static void add_param(struct strbuf *sb, const char *key, const char *value)
{
	strbuf_addch(sb, strchr(sb->buf, '?') ? '&' : '?');
	strbuf_addstr(sb, key);
	strbuf_addch(sb, '=');
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p))
			strbuf_addch(sb, (char)*p);
		else
			strbuf_addf(sb, "%%%02X", *p);
	}
}

/* Send the kind's next call: a list page or the watch. */
static void start(struct rkind *rk)
{
	struct kube_reflect *r = rk->r;
	struct kube_call kc = { .method = "GET" };
	struct strbuf path;
	char num[32];

	strbuf_init(&path);
	strbuf_addstr(&path, rk->base);
	if (rk->relist) {
		if (!rk->cont)
			rk->gen++;
		snprintf(num, sizeof(num), "%u",
			 r->o.page ? r->o.page : PAGE_DEFAULT);
		add_param(&path, "limit", num);
		if (rk->cont)
			add_param(&path, "continue", rk->cont);
		else if (rk->any)
			add_param(&path, "resourceVersion", "0");
		kc.flags = KUBE_RETRY;
		rk->st = RK_LIST;
	} else {
		snprintf(num, sizeof(num), "%u",
			 WATCH_MIN_S +
				 (unsigned)rng_below(&r->rng, WATCH_MIN_S + 1));
		add_param(&path, "watch", "1");
		add_param(&path, "allowWatchBookmarks", "true");
		add_param(&path, "resourceVersion", rk->rv);
		add_param(&path, "timeoutSeconds", num);
		kc.flags = KUBE_STREAM | KUBE_NO_LIMIT;
		rk->st = RK_WATCH;
		metrics_add_handle(r->m, rk->m_watches, 1);
	}
	kc.path = path.buf;
	if (rk->st == RK_LIST)
		rk->call = kube_send(r->o.tr, &kc, on_page, NULL, rk);
	else
		rk->call = kube_send(r->o.tr, &kc, on_watch_end, on_line, rk);
	strbuf_release(&path);
}

/* --- refresh ----------------------------------------------------------- */

/* List rk again now, its watch or list in flight cancelled; at the end
 * of the list, what the replica has of the kind that the server did not
 * list goes, local objects too (list_end()). */
static void resync(struct rkind *rk)
{
	struct kube_reflect *r = rk->r;

	if (!rk->version || !rk->listed)
		return; /* not served, or its first list is yet to end */
	rk->resync = true;
	list_again(rk);
	if (rk->st == RK_DUE)
		return; /* after its backoff */
	kube_cancel(r->o.tr, rk->call);
	rk->call = 0;
	start(rk);
}

void kube_reflect_resync(struct kube_reflect *r, const struct api_kind *k)
{
	for (size_t i = 0; i < r->nkinds; i++)
		if (!k || r->kinds[i].kind == api_kind_storage(k))
			resync(&r->kinds[i]);
}

bool kube_reflect_settled(const struct kube_reflect *r)
{
	for (size_t i = 0; i < r->calls.len; i++)
		if (r->calls.items[i]->rk)
			return false; /* a refresh */
	for (size_t i = 0; i < r->nkinds; i++)
		if (r->kinds[i].resync && r->kinds[i].version)
			return false; /* (a kind no longer served is not) */
	return true;
}

static void on_refresh(void *ctx, const struct kube_reply *rep)
{
	struct rcall *c = ctx;
	struct rkind *rk = c->rk;
	struct rent *e = rent_get(rk, c->arg);
	const char *now_rv = e ? e->rv : NULL;
	char *slash;

	/* A watch event newer than the request came first: it wins. */
	if ((now_rv || c->rv) && (!now_rv || !c->rv || strcmp(now_rv, c->rv))) {
		kube_reflect_call_end(c->r, c);
		return;
	}
	if (rep->code == 200) {
		json_t *obj = json_loadb(rep->body, rep->len, 0, NULL);

		if (json_is_object(obj))
			put(rk, obj, false);
		else
			json_decref(obj);
	} else if (rep->code == 404) {
		slash = strchr(c->arg, '/');
		*slash = '\0';
		gone(rk, c->arg, slash + 1, NULL);
	} else {
		/* Retried in vain: the kind is listed again instead, so the
		 * replica does not keep what the server refused. */
		resync(rk);
	}
	kube_reflect_call_end(c->r, c);
}

static struct rkind *rkind_of(struct kube_reflect *r, const struct api_kind *k)
{
	k = api_kind_storage(k);
	for (size_t i = 0; i < r->nkinds; i++)
		if (r->kinds[i].kind == k)
			return &r->kinds[i];
	return NULL;
}

void kube_reflect_refresh(struct kube_reflect *r, const struct api_kind *k,
			  const char *ns, const char *name)
{
	struct rkind *rk = rkind_of(r, k);
	struct kube_call kc = { .method = "GET", .flags = KUBE_RETRY };
	struct strbuf path;
	struct rcall *c;
	struct rent *e;
	char key[512];
	const char *slash;

	if (!rk || !rk->version || !name)
		return;
	if (!rk->kind->namespaced || !ns)
		ns = "";
	key_of(key, sizeof(key), ns, name);
	c = kube_reflect_call_new(r, key);
	c->rk = rk;
	e = rent_get(rk, key);
	c->rv = e && e->rv ? xstrdup(e->rv) : NULL;
	strbuf_init(&path);
	if (*ns) {
		/* .../v1/pods -> .../v1/namespaces/NS/pods/NAME */
		slash = strrchr(rk->base, '/');
		strbuf_add(&path, rk->base, (size_t)(slash - rk->base));
		strbuf_addf(&path, "/namespaces/%s%s/%s", ns, slash, name);
	} else {
		strbuf_addf(&path, "%s/%s", rk->base, name);
	}
	kc.path = path.buf;
	c->id = kube_send(r->o.tr, &kc, on_refresh, NULL, c);
	strbuf_release(&path);
}

/* --- the reflector ----------------------------------------------------- */

struct kube_reflect *kube_reflect_new(const struct kube_reflect_options *o)
{
	struct kube_reflect *r = xcalloc(1, sizeof(*r));

	BUG_ON(!o || !o->store || !o->tr);
	r->o = *o;
	rng_seed(&r->rng, o->seed);
	hmap_init(&r->gvs);
	hmap_init(&r->served);
	r->m = metrics_new();
	metrics_register(r->m, families, F_COUNT, r->fam);
	return r;
}

void kube_reflect_free(struct kube_reflect *r)
{
	const struct hmap_slot *slot;

	if (!r)
		return;
	while (r->calls.len) {
		struct rcall *c = vec_pop(&r->calls);

		kube_cancel(r->o.tr, c->id);
		call_free(c);
	}
	vec_release(&r->calls);
	for (size_t i = 0; i < r->nkinds; i++) {
		struct rkind *rk = &r->kinds[i];
		size_t it = 0;

		if (rk->call)
			kube_cancel(r->o.tr, rk->call);
		while (hmap_next(&rk->objs, &it, &slot)) {
			struct rent *e = (struct rent *)(intptr_t)slot->value;

			json_decref(e->held);
			free(e->rv);
			free(e);
		}
		hmap_release(&rk->objs);
		vec_foreach (&rk->held, p)
			free(*p);
		vec_release(&rk->held);
		free(rk->base);
		free(rk->rv);
		free(rk->cont);
	}
	hmap_release(&r->gvs);
	hmap_release(&r->served);
	metrics_free(r->m);
	free(r);
}

void kube_reflect_run(struct kube_reflect *r, int64_t mono_us)
{
	r->now_us = mono_us;
	if (!r->started) {
		r->started = true;
		r->start_us = mono_us;
	}
	kube_reflect_discover(r);
	if (r->disc_done && !r->kinds_ready) {
		r->kinds_ready = true;
		for (size_t i = 0; i < r->nkinds; i++)
			metrics_init(r, &r->kinds[i]);
		if (!r->synced_us && kube_reflect_synced(r))
			r->synced_us = mono_us; /* nothing served */
	}
	for (size_t i = 0; i < r->nkinds; i++) {
		struct rkind *rk = &r->kinds[i];

		if (rk->held.len)
			release_held(rk);
		if (rk->st == RK_DUE && rk->due_us <= mono_us)
			start(rk);
	}
}

int64_t kube_reflect_next_us(const struct kube_reflect *r)
{
	int64_t next = INT64_MAX;

	if (!r->disc_done && !r->disc_phase)
		next = r->disc_due_us;
	for (size_t i = 0; i < r->nkinds; i++)
		if (r->kinds[i].st == RK_DUE && r->kinds[i].due_us < next)
			next = r->kinds[i].due_us;
	return next;
}

bool kube_reflect_synced(const struct kube_reflect *r)
{
	if (!r->disc_done)
		return false;
	for (size_t i = 0; i < r->nkinds; i++)
		if (r->kinds[i].version && !r->kinds[i].listed)
			return false;
	return true;
}

const char *kube_reflect_version(const struct kube_reflect *r,
				 const struct api_kind *k)
{
	for (size_t i = 0; i < r->nkinds; i++)
		if (r->kinds[i].kind == k)
			return r->kinds[i].version;
	return NULL;
}

const char *kube_reflect_rv(const struct kube_reflect *r,
			    const struct api_kind *k, const char *ns,
			    const char *name)
{
	struct rent *e;
	char key[512];

	for (size_t i = 0; i < r->nkinds; i++) {
		if (r->kinds[i].kind != k)
			continue;
		key_of(key, sizeof(key), k->namespaced ? ns : "", name);
		e = rent_get(&r->kinds[i], key);
		return e ? e->rv : NULL;
	}
	return NULL;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the reflectors over the in-process transport: a source store
 * behind the real api (the "remote" server) and a replica store the
 * reflector mirrors into. After the loop is quiet the replica equals the
 * source: the same objects with the same uids, bodies equal but for
 * resourceVersion and managedFields. Covered: discovery, pagination,
 * relists after 410 (in a watch and on a continue token) with the relist
 * diff, dropped streams, bodies held while pending(), refresh, metrics,
 * and a randomized run of source changes under seeded faults.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "base/alloc.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "kube/kube_loop.h"
#include "kube/kube_reflect.h"

#define T0 1796130000000000LL
#define S  1000000LL

struct fx {
	struct api_store *src, *rep;
	struct api *a;
	struct kube_loop *l;
	struct kube_transport loop_tr, tr;
	struct kube_reflect *r;
	int64_t now;
	/* Requests seen (the wrapping transport). */
	VEC(char *) paths;
	VEC(int64_t) times; /* the clock each was sent at */
	/* A group version /apis does not name (served only at others). */
	const char *hide;
	VEC(struct wrap *) wraps;
	/* Called before a list page with a continue token is sent. */
	void (*before_continue)(struct fx *f);
	/* pending(): "ns/name" of pods with local writes on their way. */
	char pending[4][64];
};

struct wrap {
	struct fx *f;
	kube_done_fn done;
	void *ctx;
};

/* The /apis reply without f->hide. */
static void hide_done(void *ctx, const struct kube_reply *r)
{
	struct wrap *w = ctx;
	struct kube_reply r2 = *r;
	struct strbuf sb;
	const char *at, *from = r->body;
	char needle[128];

	snprintf(needle, sizeof(needle), "\"groupVersion\":\"%s\"", w->f->hide);
	strbuf_init(&sb);
	while (r->code == 200 && (at = strstr(from, needle))) {
		strbuf_add(&sb, from, (size_t)(at - from));
		strbuf_addstr(&sb, "\"groupVersion\":\"hidden.example/v0\"");
		from = at + strlen(needle);
	}
	strbuf_addstr(&sb, from);
	r2.body = sb.buf;
	r2.len = sb.len;
	w->done(w->ctx, &r2);
	strbuf_release(&sb);
}

static uint64_t rec_send(void *impl, const struct kube_call *c,
			 kube_done_fn done, kube_line_fn line, void *ctx)
{
	struct fx *f = impl;

	vec_push(&f->paths, xstrdup(c->path));
	vec_push(&f->times, f->now);
	if (f->before_continue && strstr(c->path, "continue=")) {
		void (*fn)(struct fx *) = f->before_continue;

		f->before_continue = NULL;
		fn(f);
	}
	if (f->hide && !strcmp(c->path, "/apis")) {
		struct wrap *w = xcalloc(1, sizeof(*w));

		*w = (struct wrap){ f, done, ctx };
		vec_push(&f->wraps, w);
		return kube_send(&f->loop_tr, c, hide_done, NULL, w);
	}
	return kube_send(&f->loop_tr, c, done, line, ctx);
}

static void rec_cancel(void *impl, uint64_t id)
{
	struct fx *f = impl;

	kube_cancel(&f->loop_tr, id);
}

static bool pending(void *ctx, const struct api_kind *k, const char *ns,
		    const char *name)
{
	struct fx *f = ctx;
	char key[160];

	if (k != api_kind_at(API_KIND_POD))
		return false;
	snprintf(key, sizeof(key), "%s/%s", ns, name);
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(f->pending[i], key))
			return true;
	return false;
}

static const struct api_kind *K(enum api_kind_id id)
{
	return api_kind_at(id);
}

/* A source object of kind id, with spec {"v": v}. */
static json_t *obj(enum api_kind_id id, const char *ns, const char *name, int v)
{
	const struct api_kind *k = K(id);
	char gv[96];
	json_t *o =
		json_pack("{s:s, s:s, s:{s:s}, s:{s:i}}", "apiVersion",
			  api_kind_gv(k, NULL, gv, sizeof(gv)), "kind", k->kind,
			  "metadata", "name", name, "spec", "v", v);

	if (ns)
		json_object_set_new(json_object_get(o, "metadata"), "namespace",
				    json_string(ns));
	return o;
}

static void src_create(struct fx *f, enum api_kind_id id, const char *ns,
		       const char *name, int v)
{
	assert_int_equal(api_store_create(f->src, K(id), obj(id, ns, name, v),
					  f->now, NULL),
			 0);
}

static void src_set(struct fx *f, enum api_kind_id id, const char *ns,
		    const char *name, int v)
{
	const struct api_obj *o = api_store_get(f->src, K(id), ns, name);
	json_t *b;

	assert_non_null(o);
	b = json_deep_copy(o->body);
	json_object_set_new(json_object_get(b, "spec"), "v", json_integer(v));
	assert_int_equal(api_store_update(f->src, K(id), b, 0, f->now, NULL),
			 0);
}

static void src_delete(struct fx *f, enum api_kind_id id, const char *ns,
		       const char *name)
{
	assert_int_equal(api_store_delete(f->src, K(id), ns, name, 0, f->now),
			 0);
}

static int setup_with(void **state, unsigned page, size_t history)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct api_store_options so = { .history = history,
					.uid_prefix = "5ec" };
	struct api_store_options ro = { .uid_prefix = "a11" };
	struct api_hooks h = { .git_version = "v1.35.0" };
	struct kube_reflect_options o = { .page = page,
					  .seed = 7,
					  .pending = pending };

	f->src = api_store_new(&so);
	f->rep = api_store_new(&ro);
	f->a = api_new(f->src, &h);
	f->l = kube_loop_new(f->a);
	f->loop_tr = kube_loop_transport(f->l);
	f->tr = (struct kube_transport){ .send = rec_send,
					 .cancel = rec_cancel,
					 .impl = f };
	f->now = T0;
	o.store = f->rep;
	o.tr = &f->tr;
	o.pending_ctx = f;
	f->r = kube_reflect_new(&o);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, 0, 0);
}

static int setup_paged(void **state)
{
	return setup_with(state, 2, 0);
}

static int setup_short(void **state)
{
	return setup_with(state, 2, 64);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	kube_reflect_free(f->r);
	assert_int_equal(kube_loop_active(f->l), 0);
	kube_loop_free(f->l);
	api_free(f->a);
	api_store_free(f->src);
	api_store_free(f->rep);
	vec_foreach (&f->paths, p)
		free(*p);
	vec_release(&f->paths);
	vec_release(&f->times);
	vec_foreach (&f->wraps, w)
		free(*w);
	vec_release(&f->wraps);
	free(f);
	return 0;
}

/* Run the loop and the reflector until quiet: nothing answered, nothing
 * due but watch deadlines. The clock jumps to each due time. Returns the
 * steps taken (fails past max). */
static int settle(struct fx *f, int max)
{
	for (int i = 0; i < max; i++) {
		int64_t next, rnext;
		int n;

		kube_reflect_run(f->r, f->now);
		n = kube_loop_run(f->l, f->now);
		kube_reflect_run(f->r, f->now);
		if (n)
			continue;
		next = kube_loop_next_us(f->l);
		rnext = kube_reflect_next_us(f->r);
		if (rnext == INT64_MAX && next >= f->now + 20 * S)
			return i;
		if (rnext < next)
			next = rnext;
		f->now = next > f->now ? next : f->now + 1000;
	}
	fail_msg("not quiet after %d steps", max);
	return max;
}

/* A copy of body without metadata.resourceVersion and managedFields. */
static json_t *comparable(const json_t *body)
{
	json_t *c = json_deep_copy(body);
	json_t *md = json_object_get(c, "metadata");

	json_object_del(md, "resourceVersion");
	json_object_del(md, "managedFields");
	return c;
}

struct cmp {
	struct fx *f;
	size_t n;
};

static int cmp_one(void *ctx, const struct api_obj *o)
{
	struct cmp *c = ctx;
	const struct api_obj *m =
		api_store_get(c->f->rep, o->kind, o->ns, o->name);
	json_t *a, *b;

	if (!m)
		fail_msg("%s %s/%s missing in the replica", o->kind->kind,
			 o->ns, o->name);
	assert_string_equal(m->uid, o->uid);
	a = comparable(o->body);
	b = comparable(m->body);
	if (!json_equal(a, b)) {
		char *sa = json_dumps(a, JSON_SORT_KEYS | JSON_COMPACT);
		char *sb = json_dumps(b, JSON_SORT_KEYS | JSON_COMPACT);

		fail_msg("%s %s/%s differs:\n source  %s\n replica %s",
			 o->kind->kind, o->ns, o->name, sa, sb);
	}
	json_decref(a);
	json_decref(b);
	c->n++;
	return 0;
}

/* The replica holds exactly the source's objects of the reflected
 * kinds. Returns how many. */
static size_t assert_replica(struct fx *f)
{
	static const enum api_kind_id kinds[] = {
		API_KIND_NAMESPACE,
		API_KIND_NODE,
		API_KIND_POD,
		API_KIND_JOB,
		API_KIND_PRIORITY_CLASS,
		API_KIND_CLUSTER_QUEUE,
		API_KIND_WORKLOAD,
		API_KIND_POD_GROUP,
	};
	struct cmp c = { .f = f };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t before = c.n;

		assert_int_equal(api_store_each(f->src, K(kinds[i]), NULL, NULL,
						NULL, cmp_one, &c),
				 0);
		assert_int_equal(api_store_count(f->rep, K(kinds[i])),
				 c.n - before);
	}
	return c.n;
}

static size_t count_paths(struct fx *f, const char *part)
{
	size_t n = 0;

	vec_foreach (&f->paths, p)
		n += strstr(*p, part) != NULL;
	return n;
}

static size_t count_exact(struct fx *f, const char *path)
{
	size_t n = 0;

	vec_foreach (&f->paths, p)
		n += !strcmp(*p, path);
	return n;
}

static double metric(struct fx *f, const char *series)
{
	struct strbuf sb;
	const char *at;
	double v = -1;

	strbuf_init(&sb);
	kube_reflect_metrics(f->r, &sb);
	at = strstr(sb.buf, series);
	if (at && at[strlen(series)] == ' ')
		v = strtod(at + strlen(series) + 1, NULL);
	strbuf_release(&sb);
	return v;
}

static const char *src_rv(struct fx *f, const char *ns, const char *name)
{
	const struct api_obj *o =
		api_store_get(f->src, K(API_KIND_POD), ns, name);

	return json_string_value(json_object_get(
		json_object_get(o->body, "metadata"), "resourceVersion"));
}

static void populate(struct fx *f)
{
	src_create(f, API_KIND_NAMESPACE, NULL, "default", 0);
	src_create(f, API_KIND_NAMESPACE, NULL, "team", 0);
	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		src_create(f, API_KIND_NODE, NULL, name, i);
	}
	src_create(f, API_KIND_POD, "team", "a", 1);
	src_create(f, API_KIND_POD, "team", "b", 2);
	src_create(f, API_KIND_POD, "default", "c", 3);
	src_create(f, API_KIND_JOB, "team", "j", 1);
	src_create(f, API_KIND_CLUSTER_QUEUE, NULL, "cq", 1);
	src_create(f, API_KIND_POD_GROUP, "team", "pg", 1);
}

/* Pods team/<prefix>0 .. n-1. */
static void add_pods(struct fx *f, const char *prefix, int n)
{
	char name[16];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%d", prefix, i);
		src_create(f, API_KIND_POD, "team", name, i);
	}
}

static void test_discovery_and_first_sync(void **state)
{
	struct fx *f = *state;
	const struct api_obj *o;
	json_t *b;

	populate(f);
	/* Bodies the replica must not keep. */
	o = api_store_get(f->src, K(API_KIND_POD), "team", "a");
	b = json_deep_copy(o->body);
	json_object_set_new(json_object_get(b, "metadata"), "managedFields",
			    json_pack("[{s:s}]", "manager", "kubectl"));
	assert_int_equal(
		api_store_update(f->src, K(API_KIND_POD), b, 0, f->now, NULL),
		0);
	assert_false(kube_reflect_synced(f->r));
	assert_null(kube_reflect_version(f->r, K(API_KIND_POD)));
	settle(f, 200);
	assert_true(kube_reflect_synced(f->r));
	assert_string_equal(kube_reflect_version(f->r, K(API_KIND_POD)), "v1");
	assert_string_equal(kube_reflect_version(f->r, K(API_KIND_WORKLOAD)),
			    "v1beta2");
	assert_string_equal(kube_reflect_version(f->r, K(API_KIND_POD_GROUP)),
			    "v1alpha1");
	/* Never reflected. */
	assert_null(kube_reflect_version(f->r, K(API_KIND_EVENT)));
	assert_null(kube_reflect_version(f->r, K(API_KIND_LEASE)));
	assert_null(kube_reflect_version(f->r, K(API_KIND_CONFIGURATION)));
	assert_int_equal(count_paths(f, "/events"), 0);
	assert_int_equal(count_paths(f, "/leases"), 0);
	assert_int_equal(assert_replica(f), 11);
	o = api_store_get(f->rep, K(API_KIND_POD), "team", "a");
	assert_null(json_object_get(json_object_get(o->body, "metadata"),
				    "managedFields"));
	assert_non_null(kube_reflect_rv(f->r, K(API_KIND_POD), "team", "a"));
	assert_string_equal(kube_reflect_rv(f->r, K(API_KIND_POD), "team", "a"),
			    src_rv(f, "team", "a"));
	/* The first page from the watch cache, all pods (no field
	 * selector), then a watch with bookmarks and a timeout. */
	assert_int_equal(count_paths(f, "/api/v1/pods?limit=500&"
					"resourceVersion=0"),
			 1);
	assert_int_equal(count_paths(f, "fieldSelector"), 0);
	assert_int_equal(count_paths(f, "/api/v1/pods?watch=1&"
					"allowWatchBookmarks=true&"
					"resourceVersion="),
			 1);
	assert_true(metric(f, "echelon_kube_reflector_lists_total{resource="
			      "\"pods\"}") == 1);
	assert_true(metric(f, "echelon_kube_reflector_objects{resource="
			      "\"clusterqueues.kueue.x-k8s.io\"}") == 1);
	assert_true(metric(f, "echelon_kube_reflector_synced_seconds") >= 0);
}

static void test_changes(void **state)
{
	struct fx *f = *state;
	uint64_t rv;

	populate(f);
	settle(f, 200);
	src_set(f, API_KIND_POD, "team", "a", 10);
	src_delete(f, API_KIND_POD, "team", "b");
	src_create(f, API_KIND_POD, "team", "d", 4);
	src_set(f, API_KIND_NODE, NULL, "n1", 11);
	src_delete(f, API_KIND_NODE, NULL, "n2");
	src_create(f, API_KIND_WORKLOAD, "team", "w", 1);
	settle(f, 200);
	assert_int_equal(assert_replica(f), 11);
	/* Re-created under the same name: the new uid, in place. */
	src_delete(f, API_KIND_POD, "team", "a");
	src_create(f, API_KIND_POD, "team", "a", 10);
	settle(f, 200);
	assert_int_equal(assert_replica(f), 11);
	/* Nothing changes: the replica is not written. */
	rv = api_store_rv(f->rep);
	f->now += 700 * S; /* past every watch's timeout: re-watched */
	settle(f, 200);
	assert_int_equal(api_store_rv(f->rep), rv);
	assert_true(metric(f, "echelon_kube_reflector_watches_total{resource="
			      "\"pods\"}") >= 2);
	assert_true(metric(f, "echelon_kube_reflector_relists_total{resource="
			      "\"pods\"}") == 0);
}

static void test_pagination(void **state)
{
	struct fx *f = *state;

	populate(f);
	add_pods(f, "p", 6);
	settle(f, 200);
	assert_int_equal(assert_replica(f), 17);
	/* 9 pods in pages of 2: four with a continue token. */
	assert_int_equal(count_paths(f, "/api/v1/pods?limit=2&continue="), 4);
	assert_int_equal(count_paths(f, "/api/v1/pods?limit=2&resourceVersion"
					"=0"),
			 1);
}

/* Between two pages, more writes than the source's history (64) holds:
 * the continue token expires (410) and the list starts again. */
static void write_past_history(struct fx *f)
{
	for (int i = 0; i < 70; i++)
		src_set(f, API_KIND_NODE, NULL, "n0", 100 + i);
	src_delete(f, API_KIND_POD, "team", "p5");
	src_delete(f, API_KIND_POD, "team", "a");
}

static void test_continue_expired(void **state)
{
	struct fx *f = *state;

	populate(f);
	add_pods(f, "p", 6);
	f->before_continue = write_past_history;
	settle(f, 400);

	assert_int_equal(assert_replica(f), 15);
	/* Nodes (3) were the first kind with a second page. */
	assert_int_equal(count_exact(f, "/api/v1/nodes?limit=2"), 1);
	assert_true(metric(f, "echelon_kube_reflector_expired_total{resource="
			      "\"nodes\"}") == 1);
	assert_true(metric(f, "echelon_kube_reflector_lists_total{resource="
			      "\"nodes\"}") == 1);
}

/* Every watch line replaced by a 410: each change is taken by a relist,
 * whose diff deletes what is gone. */
static void test_expired_watch(void **state)
{
	struct fx *f = *state;
	struct kube_loop_faults fl = { .seed = 5, .expire = 1.0 };

	populate(f);
	settle(f, 200);
	kube_loop_set_faults(f->l, &fl);
	src_delete(f, API_KIND_POD, "team", "b");
	src_set(f, API_KIND_POD, "team", "a", 20);
	src_delete(f, API_KIND_NODE, NULL, "n0");
	src_delete(f, API_KIND_POD, "default", "c");
	src_create(f, API_KIND_POD, "default", "c", 30); /* another uid */
	settle(f, 400);
	kube_loop_set_faults(f->l, NULL);
	settle(f, 200);
	assert_int_equal(assert_replica(f), 9);
	assert_true(metric(f, "echelon_kube_reflector_relists_total{resource="
			      "\"pods\"}") >= 1);
	assert_true(metric(f, "echelon_kube_reflector_expired_total{resource="
			      "\"nodes\"}") >= 1);
}

/* A relist deletes only what it mirrored: an object the scheduler
 * created locally (its create still on its way) stays. */
static void test_relist_keeps_local(void **state)
{
	struct fx *f = *state;
	struct kube_loop_faults fl = { .seed = 5, .expire = 1.0 };

	populate(f);
	settle(f, 200);
	assert_int_equal(api_store_create(f->rep, K(API_KIND_POD),
					  obj(API_KIND_POD, "team", "local", 1),
					  f->now, NULL),
			 0);
	kube_loop_set_faults(f->l, &fl);
	src_delete(f, API_KIND_POD, "team", "a");
	settle(f, 400);
	kube_loop_set_faults(f->l, NULL);
	settle(f, 200);
	assert_true(metric(f, "echelon_kube_reflector_relists_total{resource="
			      "\"pods\"}") >= 1);
	assert_non_null(
		api_store_get(f->rep, K(API_KIND_POD), "team", "local"));
	assert_null(api_store_get(f->rep, K(API_KIND_POD), "team", "a"));
	assert_int_equal(api_store_delete(f->rep, K(API_KIND_POD), "team",
					  "local", 0, f->now),
			 0);
	assert_int_equal(assert_replica(f), 10);
}

static void test_dropped_streams(void **state)
{
	struct fx *f = *state;
	struct kube_loop_faults fl = { .seed = 9, .drop = 0.5 };
	char name[16];

	populate(f);
	settle(f, 200);
	kube_loop_set_faults(f->l, &fl);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "q%d", i);
		src_create(f, API_KIND_POD, "team", name, i);
		if (i % 3 == 0)
			src_set(f, API_KIND_POD, "team", "a", i);
		settle(f, 400);
	}
	src_delete(f, API_KIND_POD, "team", "q4");
	settle(f, 400);
	kube_loop_set_faults(f->l, NULL);
	settle(f, 200);
	assert_int_equal(assert_replica(f), 30);
	assert_true(metric(f, "echelon_kube_reflector_failures_total{resource="
			      "\"pods\"}") >= 1);
	/* Dropped streams re-watch from the last rv: no relist. */
	assert_true(metric(f, "echelon_kube_reflector_relists_total{resource="
			      "\"pods\"}") == 0);
}

static void test_held_while_pending(void **state)
{
	struct fx *f = *state;
	const struct api_obj *o;

	populate(f);
	settle(f, 200);
	snprintf(f->pending[0], sizeof(f->pending[0]), "team/a");
	snprintf(f->pending[1], sizeof(f->pending[1]), "team/b");
	src_set(f, API_KIND_POD, "team", "a", 40);
	src_set(f, API_KIND_POD, "team", "a", 41);
	src_set(f, API_KIND_POD, "team", "b", 50);
	src_delete(f, API_KIND_POD, "team", "b"); /* at once, held or not */
	settle(f, 200);
	o = api_store_get(f->rep, K(API_KIND_POD), "team", "a");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(o->body, "spec"), "v")),
			 1);
	assert_null(api_store_get(f->rep, K(API_KIND_POD), "team", "b"));
	/* No longer pending: the newest body is mirrored by run(). */
	f->pending[0][0] = f->pending[1][0] = '\0';
	kube_reflect_run(f->r, f->now);
	o = api_store_get(f->rep, K(API_KIND_POD), "team", "a");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(o->body, "spec"), "v")),
			 41);
	assert_string_equal(kube_reflect_rv(f->r, K(API_KIND_POD), "team", "a"),
			    src_rv(f, "team", "a"));
	assert_int_equal(assert_replica(f), 10);
}

static void test_refresh(void **state)
{
	struct fx *f = *state;
	const struct api_obj *o;
	json_t *b;

	populate(f);
	settle(f, 200);
	/* A local write the server refused: the refresh shows the truth. */
	o = api_store_get(f->rep, K(API_KIND_POD), "team", "a");
	b = json_deep_copy(o->body);
	json_object_set_new(b, "spec", json_pack("{s:i}", "v", 99));
	assert_int_equal(
		api_store_update(f->rep, K(API_KIND_POD), b, 0, f->now, NULL),
		0);
	/* A local create the server refused: gone after the refresh. */
	assert_int_equal(api_store_create(f->rep, K(API_KIND_POD),
					  obj(API_KIND_POD, "team", "x", 1),
					  f->now, NULL),
			 0);
	kube_reflect_refresh(f->r, K(API_KIND_POD), "team", "a");
	kube_reflect_refresh(f->r, K(API_KIND_POD), "team", "x");
	kube_reflect_refresh(f->r, K(API_KIND_NODE), NULL, "n1");
	kube_reflect_refresh(f->r, K(API_KIND_EVENT), "team", "e"); /* none */
	settle(f, 200);
	assert_int_equal(count_paths(f, "/api/v1/namespaces/team/pods/a"), 1);
	assert_int_equal(count_paths(f, "/api/v1/nodes/n1"), 1);
	assert_null(api_store_get(f->rep, K(API_KIND_POD), "team", "x"));
	assert_int_equal(assert_replica(f), 11);
}

/* Set spec.v of the replica's ns/name to v, as a local write does. */
static void rep_set(struct fx *f, const char *ns, const char *name, int v)
{
	const struct api_obj *o =
		api_store_get(f->rep, K(API_KIND_POD), ns, name);
	json_t *b = json_deep_copy(o->body);

	json_object_set_new(b, "spec", json_pack("{s:i}", "v", v));
	assert_int_equal(
		api_store_update(f->rep, K(API_KIND_POD), b, 0, f->now, NULL),
		0);
}

/* A resync (what a lost leadership asks for when it has many objects to
 * read again) lists again: the replica's own writes are replaced by the
 * server's versions and its own creates go, but for one still pending;
 * settled() is false until the list ends. */
static void test_resync(void **state)
{
	struct fx *f = *state;

	populate(f);
	settle(f, 200);
	assert_true(kube_reflect_settled(f->r));
	rep_set(f, "team", "a", 99);
	assert_int_equal(api_store_create(f->rep, K(API_KIND_POD),
					  obj(API_KIND_POD, "team", "x", 1),
					  f->now, NULL),
			 0);
	assert_int_equal(api_store_create(f->rep, K(API_KIND_POD),
					  obj(API_KIND_POD, "team", "y", 1),
					  f->now, NULL),
			 0);
	snprintf(f->pending[0], sizeof(f->pending[0]), "team/y");
	kube_reflect_resync(f->r, K(API_KIND_POD));
	assert_false(kube_reflect_settled(f->r));
	settle(f, 200);
	assert_true(kube_reflect_settled(f->r));
	assert_null(api_store_get(f->rep, K(API_KIND_POD), "team", "x"));
	assert_non_null(api_store_get(f->rep, K(API_KIND_POD), "team", "y"));
	assert_true(metric(f, "echelon_kube_reflector_relists_total{resource="
			      "\"pods\"}") == 1);
	f->pending[0][0] = '\0';
	assert_int_equal(api_store_delete(f->rep, K(API_KIND_POD), "team", "y",
					  0, f->now),
			 0);
	assert_int_equal(assert_replica(f), 11);
	/* the watch goes on from the list */
	src_set(f, API_KIND_POD, "team", "a", 7);
	settle(f, 200);
	assert_int_equal(assert_replica(f), 11);
}

/* A refresh that fails after its retries resyncs its kind, so that the
 * replica does not keep a write the server refused. */
static void test_refresh_fails(void **state)
{
	struct fx *f = *state;
	struct kube_loop_faults fl = {
		.seed = 3, .fail = 1, .fail_code = 500, .only = "/pods/a"
	};

	populate(f);
	settle(f, 200);
	rep_set(f, "team", "a", 99);
	kube_loop_set_faults(f->l, &fl);
	kube_reflect_refresh(f->r, K(API_KIND_POD), "team", "a");
	assert_false(kube_reflect_settled(f->r));
	settle(f, 400);
	kube_loop_set_faults(f->l, NULL);
	assert_true(kube_reflect_settled(f->r));
	/* sent once, retried by the transport for 30 s */
	assert_int_equal(count_paths(f, "/api/v1/namespaces/team/pods/a"), 1);
	assert_true(metric(f, "echelon_kube_reflector_relists_total{resource="
			      "\"pods\"}") == 1);
	assert_int_equal(assert_replica(f), 11);
}

/* Failed lists are tried again after a jittered backoff that doubles
 * from 200 ms to 30 s; the kind syncs once the server answers. */
static void test_backoff(void **state)
{
	struct fx *f = *state;
	struct kube_loop_faults fl = {
		.seed = 2, .fail = 1.0, .fail_code = 404, .only = "/api/v1/pods"
	};
	int64_t last = -1, gap, prev_gap = 0;
	size_t tries = 0;

	populate(f);
	kube_loop_set_faults(f->l, &fl);
	for (int i = 0; i < 5000 && f->now < T0 + 300 * S; i++) {
		int64_t next;

		kube_reflect_run(f->r, f->now);
		kube_loop_run(f->l, f->now);
		kube_reflect_run(f->r, f->now);
		next = kube_reflect_next_us(f->r);
		if (kube_loop_next_us(f->l) < next)
			next = kube_loop_next_us(f->l);
		f->now = next > f->now ? next : f->now + 10000;
	}
	assert_false(kube_reflect_synced(f->r));
	for (size_t i = 0; i < f->paths.len; i++) {
		if (strncmp(f->paths.items[i], "/api/v1/pods?", 13))
			continue;
		if (last >= 0) {
			gap = f->times.items[i] - last;
			/* b/2 .. b of the doubling b. */
			assert_true(gap >= 100000);
			assert_true(gap <= 30 * S);
			if (prev_gap < 15 * S)
				assert_true(gap >= prev_gap / 2);
			prev_gap = gap;
		}
		last = f->times.items[i];
		tries++;
	}
	/* 200 ms doubling to 30 s over 300 s: about a dozen tries. */
	assert_true(tries >= 8 && tries <= 25);
	assert_true(prev_gap >= 15 * S);
	kube_loop_set_faults(f->l, NULL);
	settle(f, 200);
	assert_true(kube_reflect_synced(f->r));
	assert_int_equal(assert_replica(f), 11);
}

/* Kueue's kinds served only at v1beta1: read there, converted to the
 * storage version (v1beta2) on the way in. */
static void test_other_version(void **state)
{
	struct fx *f = *state;
	json_t *cq = obj(API_KIND_CLUSTER_QUEUE, NULL, "cq2", 1);

	f->hide = "kueue.x-k8s.io/v1beta2";
	json_object_set_new(json_object_get(cq, "spec"), "cohortName",
			    json_string("all"));
	assert_int_equal(api_store_create(f->src, K(API_KIND_CLUSTER_QUEUE), cq,
					  f->now, NULL),
			 0);
	populate(f);
	settle(f, 200);
	assert_string_equal(
		kube_reflect_version(f->r, K(API_KIND_CLUSTER_QUEUE)),
		"v1beta1");
	assert_string_equal(kube_reflect_version(f->r, K(API_KIND_POD)), "v1");
	assert_int_equal(count_paths(f, "/apis/kueue.x-k8s.io/v1beta1/"
					"clusterqueues?limit="),
			 1);
	assert_int_equal(count_paths(f, "kueue.x-k8s.io/v1beta2"), 0);
	src_set(f, API_KIND_CLUSTER_QUEUE, NULL, "cq2", 5);
	settle(f, 200);
	assert_int_equal(assert_replica(f), 12);
}

/* Random changes of the source under random faults (expired and dropped
 * watches, failed list pages); once the faults stop and the loop is
 * quiet, the replica equals the source. */
static void random_run(unsigned long long seed)
{
	struct fx *f;
	struct rng rng;
	char ns[8], name[16];
	void *st;

	setup_with(&st, 3, 200);
	f = st;
	rng_seed(&rng, seed);
	populate(f);
	for (int step = 0; step < 60; step++) {
		struct kube_loop_faults fl = {
			.seed = seed * 100 + (unsigned)step,
			.expire = rng_below(&rng, 4) ? 0 : 0.2,
			.drop = rng_below(&rng, 3) ? 0 : 0.3,
			.fail = rng_below(&rng, 3) ? 0 : 0.3,
			.only = "limit=",
		};
		enum api_kind_id kind =
			rng_below(&rng, 3) ? API_KIND_POD : API_KIND_NODE;

		kube_loop_set_faults(f->l, &fl);
		for (int n = (int)rng_below(&rng, 8); n >= 0; n--) {
			const struct api_obj *o;

			snprintf(ns, sizeof(ns), "%s",
				 kind == API_KIND_POD
					 ? (rng_below(&rng, 2) ? "team"
							       : "default")
					 : "");
			snprintf(name, sizeof(name), "o%u",
				 (unsigned)rng_below(&rng, 12));
			o = api_store_get(f->src, K(kind), ns, name);
			if (!o)
				src_create(f, kind, *ns ? ns : NULL, name,
					   (int)rng_below(&rng, 5));
			else if (rng_below(&rng, 3))
				src_set(f, kind, ns, name,
					(int)rng_below(&rng, 5));
			else
				src_delete(f, kind, ns, name);
		}
		for (int i = (int)rng_below(&rng, 30); i > 0; i--) {
			kube_reflect_run(f->r, f->now);
			kube_loop_run(f->l, f->now);
			f->now += (int64_t)rng_below(&rng, 400000);
		}
	}
	kube_loop_set_faults(f->l, NULL);
	settle(f, 2000);
	assert_replica(f);
	teardown(&st);
}

static void test_random(void **state)
{
	(void)state;
	for (unsigned long long seed = 1; seed <= 8; seed++)
		random_run(seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_discovery_and_first_sync,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pagination, setup_paged,
						teardown),
		cmocka_unit_test_setup_teardown(test_continue_expired,
						setup_short, teardown),
		cmocka_unit_test_setup_teardown(test_expired_watch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_relist_keeps_local, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dropped_streams, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_held_while_pending, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_fails, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_backoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_version, setup,
						teardown),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

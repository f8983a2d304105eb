// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the API object store: table-driven cases of each write and its
 * errors, finalizers and no-op updates, the history ring and its 410
 * boundary, restore, and a randomized differential run against a
 * brute-force model (a plain array of live objects and a list of every
 * change): resourceVersions strictly increase, the history is complete,
 * api_store_each walks in (namespace, name) order from any key.
 *
 * The store only reads a kind's id and scope, so the tests carry their
 * own two-kind registry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_store.h"
#include "base/alloc.h"
#include "base/rng.h"
#include "base/vec.h"
#include "testutil.h"

static const struct api_kind kpod = {
	.id = 0,
	.versions = { "v1" },
	.resource = "pods",
	.kind = "Pod",
	.namespaced = true,
};
static const struct api_kind knode = {
	.id = 3,
	.versions = { "v1" },
	.resource = "nodes",
	.kind = "Node",
	.namespaced = false,
};

#define T0 1796130000000000LL /* 2026-12-01T13:00:00Z */

static json_t *obj(const char *ns, const char *name, const char *spec)
{
	json_t *o = json_pack("{s:{s:s}}", "metadata", "name", name);

	if (ns)
		json_object_set_new(json_object_get(o, "metadata"), "namespace",
				    json_string(ns));
	if (spec)
		json_object_set_new(o, "spec", json_loads(spec, 0, NULL));
	return o;
}

static const char *md_str(const struct api_obj *o, const char *key)
{
	return json_string_value(
		json_object_get(json_object_get(o->body, "metadata"), key));
}

static json_int_t md_int(const struct api_obj *o, const char *key)
{
	return json_integer_value(
		json_object_get(json_object_get(o->body, "metadata"), key));
}

/* A copy of a stored object, ready to be changed and written back. */
static json_t *edit(const struct api_obj *o)
{
	return json_deep_copy(o->body);
}

struct collect {
	char keys[64][48];
	uint64_t rvs[64];
	enum api_ev_type types[64];
	size_t n;
};

static int collect_obj(void *ctx, const struct api_obj *o)
{
	struct collect *c = ctx;

	snprintf(c->keys[c->n], sizeof(c->keys[0]), "%s/%s", o->ns, o->name);
	c->rvs[c->n++] = o->rv;
	return c->n == 64;
}

static int collect_ev(void *ctx, const struct api_event *ev)
{
	struct collect *c = ctx;

	snprintf(c->keys[c->n], sizeof(c->keys[0]), "%s/%s", ev->ns, ev->name);
	c->types[c->n] = ev->type;
	c->rvs[c->n++] = ev->rv;
	return 0;
}

static void test_create_fills_metadata(void **state)
{
	struct api_store_options opt = { .first_rv = 100,
					 .uid_prefix = "ab12" };
	struct api_store *s = api_store_new(&opt);
	const struct api_obj *o = NULL, *n = NULL;
	json_t *body;

	(void)state;
	assert_int_equal(api_store_rv(s), 100);
	assert_int_equal(api_store_oldest_rv(s), 100);
	assert_int_equal(
		api_store_create(s, &kpod, obj(NULL, "a", "{}"), T0, &o), 0);
	assert_int_equal(o->rv, 101);
	assert_string_equal(o->ns, "default");
	assert_string_equal(md_str(o, "namespace"), "default");
	assert_string_equal(md_str(o, "resourceVersion"), "101");
	assert_string_equal(md_str(o, "creationTimestamp"),
			    "2026-12-01T13:00:00Z");
	assert_string_equal(md_str(o, "uid"),
			    "0000ab12-0000-4000-8000-000000000001");
	assert_int_equal(strlen(o->uid), 36);
	assert_int_equal(md_int(o, "generation"), 1);
	assert_int_equal(o->len, strlen(o->text));
	body = json_loads(o->text, 0, NULL);
	assert_true(json_equal(body, o->body));
	json_decref(body);
	assert_ptr_equal(api_store_find_uid(s, o->uid), o);
	assert_ptr_equal(api_store_get(s, &kpod, "default", "a"), o);

	/* Cluster-scoped: a namespace in the body is dropped. */
	assert_int_equal(
		api_store_create(s, &knode, obj("x", "n1", NULL), T0, &n), 0);
	assert_string_equal(n->ns, "");
	assert_null(md_str(n, "namespace"));
	assert_ptr_equal(api_store_get(s, &knode, NULL, "n1"), n);
	assert_ptr_equal(api_store_get(s, &knode, "x", "n1"), n);
	assert_null(api_store_get(s, &kpod, "other", "a"));
	assert_int_equal(api_store_count(s, &kpod), 1);
	assert_int_equal(api_store_count(s, &knode), 1);
	api_store_free(s);
}

static void test_write_errors(void **state)
{
	static const struct {
		const char *what;
		int op; /* 0 create, 1 update, 2 delete */
		const char *ns, *name;
		uint64_t if_rv;
		int rc;
	} cases[] = {
		{ "create of a present name", 0, "default", "a", 0, -EEXIST },
		{ "create without a name", 0, "default", NULL, 0, -EINVAL },
		{ "create with an empty name", 0, "default", "", 0, -EINVAL },
		{ "update of a missing object", 1, "default", "zz", 0,
		  -ENOENT },
		{ "update in another namespace", 1, "other", "a", 0, -ENOENT },
		{ "update with a stale rv", 1, "default", "a", 99, -ECANCELED },
		{ "update without a name", 1, "default", NULL, 0, -EINVAL },
		{ "delete of a missing object", 2, "default", "zz", 0,
		  -ENOENT },
		{ "delete with a stale rv", 2, "default", "a", 99, -ECANCELED },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct api_store *s = api_store_new(NULL);
		const struct api_obj *o;
		uint64_t rv;
		json_t *body;
		int rc;

		assert_int_equal(api_store_create(s, &kpod,
						  obj("default", "a", "{}"), T0,
						  NULL),
				 0);
		assert_int_equal(api_store_create(s, &kpod,
						  obj("default", "b", "{}"), T0,
						  NULL),
				 0);
		o = api_store_get(s, &kpod, "default", "a");
		rv = api_store_rv(s);
		body = json_pack("{s:{},s:{s:i}}", "metadata", "spec", "x", 1);
		if (cases[i].name)
			json_object_set_new(json_object_get(body, "metadata"),
					    "name", json_string(cases[i].name));
		json_object_set_new(json_object_get(body, "metadata"),
				    "namespace", json_string(cases[i].ns));
		if (cases[i].op == 0) {
			rc = api_store_create(s, &kpod, body, T0, NULL);
		} else if (cases[i].op == 1) {
			rc = api_store_update(s, &kpod, body, cases[i].if_rv,
					      T0, NULL);
		} else {
			json_decref(body);
			rc = api_store_delete(s, &kpod, cases[i].ns,
					      cases[i].name, cases[i].if_rv,
					      T0);
		}
		if (rc != cases[i].rc)
			fail_msg("%s: %d, want %d", cases[i].what, rc,
				 cases[i].rc);
		/* Nothing changed. */
		assert_int_equal(api_store_rv(s), rv);
		assert_ptr_equal(api_store_get(s, &kpod, "default", "a"), o);
		assert_int_equal(api_store_count(s, &kpod), 2);
		api_store_free(s);
	}
	/* Bodies that are not objects are refused too. */
	{
		struct api_store *s = api_store_new(NULL);

		assert_int_equal(
			api_store_create(s, &kpod, json_string("x"), T0, NULL),
			-EINVAL);
		assert_int_equal(
			api_store_update(s, &kpod, json_array(), 0, T0, NULL),
			-EINVAL);
		assert_int_equal(api_store_load(s, &kpod, json_integer(1)),
				 -EINVAL);
		api_store_free(s);
	}
}

static void test_update_semantics(void **state)
{
	struct api_store *s = api_store_new(NULL);
	const struct api_obj *o, *u;
	char uid[64], created[32];
	json_t *body;
	struct collect c = { 0 };

	(void)state;
	assert_int_equal(
		api_store_create(s, &kpod, obj("ns", "a", "{\"x\":1}"), T0, &o),
		0);
	snprintf(uid, sizeof(uid), "%s", o->uid);
	snprintf(created, sizeof(created), "%s",
		 md_str(o, "creationTimestamp"));

	/* Server-owned fields are kept; a label change keeps generation. */
	body = edit(o);
	json_object_set_new(json_object_get(body, "metadata"), "uid",
			    json_string("forged"));
	json_object_set_new(json_object_get(body, "metadata"), "labels",
			    json_pack("{s:s}", "k", "v"));
	assert_int_equal(api_store_update(s, &kpod, body, 1, T0 + 5000000, &u),
			 0);
	assert_int_equal(u->rv, 2);
	assert_string_equal(u->uid, uid);
	assert_string_equal(md_str(u, "creationTimestamp"), created);
	assert_int_equal(md_int(u, "generation"), 1);
	assert_ptr_equal(api_store_find_uid(s, uid), u);

	/* A status change keeps generation; a spec change bumps it. */
	body = edit(u);
	json_object_set_new(body, "status", json_pack("{s:s}", "p", "R"));
	assert_int_equal(api_store_update(s, &kpod, body, 0, T0, &u), 0);
	assert_int_equal(md_int(u, "generation"), 1);
	body = edit(u);
	json_object_set_new(body, "spec", json_pack("{s:i}", "x", 2));
	assert_int_equal(api_store_update(s, &kpod, body, 0, T0, &u), 0);
	assert_int_equal(md_int(u, "generation"), 2);
	assert_int_equal(u->rv, 4);

	/* A write that changes nothing is no write. */
	assert_int_equal(api_store_update(s, &kpod, edit(u), 0, T0, &o), 0);
	assert_ptr_equal(o, u);
	assert_int_equal(api_store_rv(s), 4);

	assert_int_equal(api_store_events(s, 0, collect_ev, &c), 0);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.types[0], API_ADDED);
	assert_int_equal(c.types[3], API_MODIFIED);
	assert_string_equal(c.keys[3], "ns/a");
	api_store_free(s);
}

static void test_finalizers(void **state)
{
	struct api_store *s = api_store_new(NULL);
	const struct api_obj *o;
	json_t *body;
	struct collect c = { 0 };

	(void)state;
	body = obj("ns", "a", "{}");
	json_object_set_new(json_object_get(body, "metadata"), "finalizers",
			    json_pack("[s]", "example.com/hold"));
	assert_int_equal(api_store_create(s, &kpod, body, T0, NULL), 0);
	assert_int_equal(api_store_delete(s, &kpod, "ns", "a", 0, T0 + 1000000),
			 0);
	o = api_store_get(s, &kpod, "ns", "a");
	assert_non_null(o);
	assert_string_equal(md_str(o, "deletionTimestamp"),
			    "2026-12-01T13:00:01Z");
	assert_int_equal(md_int(o, "generation"), 2);
	assert_int_equal(api_store_rv(s), 2);
	/* Deleting again changes nothing. */
	assert_int_equal(api_store_delete(s, &kpod, "ns", "a", 0, T0), 0);
	assert_int_equal(api_store_rv(s), 2);
	/* An update cannot clear the deletion mark. */
	body = edit(o);
	json_object_del(json_object_get(body, "metadata"), "deletionTimestamp");
	json_object_set_new(json_object_get(body, "metadata"), "labels",
			    json_pack("{s:s}", "k", "v"));
	assert_int_equal(api_store_update(s, &kpod, body, 0, T0, &o), 0);
	assert_non_null(md_str(o, "deletionTimestamp"));
	/* Emptying the finalizers removes it. */
	body = edit(o);
	json_object_set_new(json_object_get(body, "metadata"), "finalizers",
			    json_array());
	assert_int_equal(api_store_update(s, &kpod, body, 0, T0, &o), 0);
	assert_int_equal(o->rv, 4);
	assert_string_equal(md_str(o, "resourceVersion"), "4");
	assert_null(api_store_get(s, &kpod, "ns", "a"));
	assert_null(api_store_find_uid(s, o->uid));
	assert_int_equal(api_store_count(s, &kpod), 0);
	assert_int_equal(api_store_events(s, 0, collect_ev, &c), 0);
	assert_int_equal(c.n, 4);
	assert_int_equal(c.types[1], API_MODIFIED);
	assert_int_equal(c.types[3], API_DELETED);
	api_store_free(s);
}

static void test_history_ring(void **state)
{
	struct api_store_options opt = { .history = 4 };
	struct api_store *s = api_store_new(&opt);
	struct collect c = { 0 };
	char name[16];

	(void)state;
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		assert_int_equal(api_store_create(s, &kpod,
						  obj("ns", name, NULL), T0,
						  NULL),
				 0);
	}
	assert_int_equal(api_store_rv(s), 10);
	assert_int_equal(api_store_oldest_rv(s), 6);
	assert_int_equal(api_store_events(s, 5, collect_ev, &c), -ERANGE);
	assert_int_equal(c.n, 0);
	assert_int_equal(api_store_events(s, 6, collect_ev, &c), 0);
	assert_int_equal(c.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(c.rvs[i], 7 + i);
	assert_string_equal(c.keys[0], "ns/p6");
	c.n = 0;
	assert_int_equal(api_store_events(s, 10, collect_ev, &c), 0);
	assert_int_equal(api_store_events(s, 99, collect_ev, &c), 0);
	assert_int_equal(c.n, 0);
	/* An event body outlives the object's later versions. */
	assert_int_equal(api_store_delete(s, &kpod, "ns", "p9", 0, T0), 0);
	assert_int_equal(api_store_events(s, 9, collect_ev, &c), 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.types[0], API_ADDED);
	assert_int_equal(c.types[1], API_DELETED);
	assert_int_equal(c.rvs[1], 11);
	api_store_free(s);
}

static void test_each_order_and_resume(void **state)
{
	static const char *const names[][2] = {
		{ "b", "x" }, { "a", "z" }, { "b", "a" },
		{ "a", "a" }, { "c", "m" }, { "a", "m" },
	};
	static const struct {
		const char *ns, *after_ns, *after_name;
		const char *want;
	} cases[] = {
		{ NULL, NULL, NULL, "a/a a/m a/z b/a b/x c/m" },
		{ "", NULL, NULL, "a/a a/m a/z b/a b/x c/m" },
		{ "a", NULL, NULL, "a/a a/m a/z" },
		{ "b", NULL, NULL, "b/a b/x" },
		{ "zz", NULL, NULL, "" },
		{ NULL, "a", "m", "a/z b/a b/x c/m" },
		{ NULL, "a", "n", "a/z b/a b/x c/m" },
		{ NULL, "b", "x", "c/m" },
		{ "a", "a", "m", "a/z" },
		{ "b", "a", "m", "b/a b/x" },
		{ "a", "b", "a", "" },
		{ NULL, "c", "m", "" },
	};
	struct api_store *s = api_store_new(NULL);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		assert_int_equal(
			api_store_create(s, &kpod,
					 obj(names[i][0], names[i][1], NULL),
					 T0, NULL),
			0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct collect c = { 0 };
		char got[256] = "";

		assert_int_equal(
			api_store_each(s, &kpod, cases[i].ns, cases[i].after_ns,
				       cases[i].after_name, collect_obj, &c),
			0);
		for (size_t j = 0; j < c.n; j++) {
			if (j)
				strcat(got, " ");
			strcat(got, c.keys[j]);
		}
		assert_string_equal(got, cases[i].want);
		/* what the walk visits, counted without it */
		assert_int_equal(api_store_count_after(s, &kpod, cases[i].ns,
						       cases[i].after_ns,
						       cases[i].after_name),
				 c.n);
	}
	/* A non-zero return stops the walk and is returned. */
	{
		struct collect c = { .n = 63 };

		assert_int_equal(api_store_each(s, &kpod, NULL, NULL, NULL,
						collect_obj, &c),
				 1);
		assert_int_equal(c.n, 64);
	}
	assert_int_equal(
		api_store_each(s, &knode, NULL, NULL, NULL, collect_obj, NULL),
		0);
	api_store_free(s);
}

static void test_load_and_restored(void **state)
{
	struct api_store_options opt = { .uid_prefix = "cafe" };
	struct api_store *s = api_store_new(&opt);
	const struct api_obj *o;
	json_t *body;
	struct collect c = { 0 };

	(void)state;
	body = obj("ns", "a", NULL);
	json_object_set_new(
		json_object_get(body, "metadata"), "uid",
		json_string("0000cafe-0000-4000-8000-000000000007"));
	json_object_set_new(json_object_get(body, "metadata"),
			    "resourceVersion", json_string("40"));
	assert_int_equal(api_store_load(s, &kpod, body), 0);
	body = obj("ns", "b", NULL);
	json_object_set_new(json_object_get(body, "metadata"),
			    "resourceVersion", json_string("41"));
	assert_int_equal(api_store_load(s, &kpod, body), 0);
	assert_int_equal(api_store_load(s, &kpod, obj("ns", "b", NULL)),
			 -EEXIST);
	api_store_restored(s, 50);
	assert_int_equal(api_store_rv(s), 50);
	assert_int_equal(api_store_oldest_rv(s), 50);
	assert_int_equal(api_store_events(s, 49, collect_ev, &c), -ERANGE);
	o = api_store_get(s, &kpod, "ns", "a");
	assert_int_equal(o->rv, 40);
	assert_string_equal(o->uid, "0000cafe-0000-4000-8000-000000000007");
	/* b got a generated uid, after the loaded one. */
	o = api_store_get(s, &kpod, "ns", "b");
	assert_string_equal(o->uid, "0000cafe-0000-4000-8000-000000000008");
	assert_int_equal(
		api_store_create(s, &kpod, obj("ns", "c", NULL), T0, &o), 0);
	assert_int_equal(o->rv, 51);
	assert_string_equal(o->uid, "0000cafe-0000-4000-8000-000000000009");
	assert_int_equal(api_store_events(s, 50, collect_ev, &c), 0);
	assert_int_equal(c.n, 1);
	api_store_free(s);
}

/* Persisted changes put back newest first extend the history one rv
 * back each, so a watch from before a restart resumes. */
static void test_restore_event(void **state)
{
	static const struct {
		uint64_t rv;
		enum api_ev_type type;
		const char *name;
		int want;
	} steps[] = {
		{ 21, API_MODIFIED, "a", -EINVAL }, /* not oldest_rv */
		{ 20, API_DELETED, "b", 0 },
		{ 20, API_DELETED, "b", -EINVAL }, /* already there */
		{ 19, API_EV_COUNT, "b", -EINVAL },
		{ 19, API_MODIFIED, "", -EINVAL },
		{ 19, API_MODIFIED, "b", 0 },
		{ 18, API_ADDED, "a", 0 },
		{ 17, API_ADDED, "b", -ENOSPC }, /* history of 3 is full */
	};
	struct api_store_options opt = { .history = 3 };
	struct api_store *s = api_store_new(&opt);
	struct collect c = { 0 };
	const struct api_obj *o;

	(void)state;
	api_store_restored(s, 20);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++)
		assert_int_equal(api_store_restore_event(
					 s, steps[i].rv, steps[i].type, &kpod,
					 obj("ns", steps[i].name, NULL)),
				 steps[i].want);
	assert_int_equal(api_store_oldest_rv(s), 17);
	assert_int_equal(api_store_rv(s), 20);
	assert_int_equal(api_store_events(s, 16, collect_ev, &c), -ERANGE);
	assert_int_equal(api_store_events(s, 17, collect_ev, &c), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.keys[0], "ns/a");
	assert_string_equal(c.keys[2], "ns/b");
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(c.rvs[i], 18 + i);
	assert_int_equal(c.types[0], API_ADDED);
	assert_int_equal(c.types[1], API_MODIFIED);
	assert_int_equal(c.types[2], API_DELETED);
	/* Restored changes are history only, and new writes go on. */
	assert_null(api_store_get(s, &kpod, "ns", "a"));
	assert_int_equal(
		api_store_create(s, &kpod, obj("ns", "c", NULL), T0, &o), 0);
	assert_int_equal(o->rv, 21);
	assert_int_equal(api_store_oldest_rv(s), 18);
	c.n = 0;
	assert_int_equal(api_store_events(s, 18, collect_ev, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.rvs[2], 21);
	api_store_free(s);
}

/* The brute-force model: live objects and every change. */
struct model_obj {
	int ns, name;
	int spec, v;
	uint64_t rv;
	bool live;
};

struct model_ev {
	uint64_t rv;
	enum api_ev_type type;
	int ns, name;
	int v; /* spec.v of the version */
};

#define NNS   3
#define NNAME 12

static int model_cmp(const void *a, const void *b)
{
	const struct model_obj *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns - y->ns;
	return x->name - y->name;
}

struct walk {
	const struct model_obj *want;
	size_t n, at;
};

static int check_walk(void *ctx, const struct api_obj *o)
{
	struct walk *w = ctx;
	char ns[16], name[16];

	assert_true(w->at < w->n);
	snprintf(ns, sizeof(ns), "n%d", w->want[w->at].ns);
	snprintf(name, sizeof(name), "o%02d", w->want[w->at].name);
	assert_string_equal(o->ns, ns);
	assert_string_equal(o->name, name);
	assert_int_equal(o->rv, w->want[w->at].rv);
	w->at++;
	return 0;
}

struct evcheck {
	const struct model_ev *want;
	size_t n, at;
};

static int check_ev(void *ctx, const struct api_event *ev)
{
	struct evcheck *e = ctx;
	char ns[16], name[16];

	assert_true(e->at < e->n);
	snprintf(ns, sizeof(ns), "n%d", e->want[e->at].ns);
	snprintf(name, sizeof(name), "o%02d", e->want[e->at].name);
	assert_int_equal(ev->rv, e->want[e->at].rv);
	assert_int_equal(ev->type, e->want[e->at].type);
	assert_string_equal(ev->ns, ns);
	assert_string_equal(ev->name, name);
	assert_int_equal(ev->len, strlen(ev->text));
	/* compacted or not, the body is the version's */
	assert_int_equal(
		json_integer_value(json_object_get(
			json_object_get(api_event_body(ev), "spec"), "v")),
		e->want[e->at].v);
	{
		json_t *t = json_loadb(ev->text, ev->len, 0, NULL);

		assert_true(json_equal(t, api_event_body(ev)));
		json_decref(t);
	}
	e->at++;
	return 0;
}

static void test_random_against_model(void **state)
{
	struct api_store_options opt = { .history = 50, .first_rv = 7 };
	struct model_obj m[NNS * NNAME] = { 0 };
	VEC(struct model_ev) evs = VEC_INIT;
	struct api_store *s = api_store_new(&opt);
	uint64_t last_rv = 7;
	struct rng r;

	(void)state;
	rng_seed(&r, 42);
	for (int step = 0; step < 3000; step++) {
		int i = (int)rng_below(&r, NNS * NNAME);
		int op = (int)rng_below(&r, 3);
		char ns[16], name[16], spec[32];
		const struct api_obj *o = NULL;
		int rc;

		m[i].ns = i / NNAME;
		m[i].name = i % NNAME;
		snprintf(ns, sizeof(ns), "n%d", m[i].ns);
		snprintf(name, sizeof(name), "o%02d", m[i].name);
		snprintf(spec, sizeof(spec), "{\"v\":%d}", step);
		if (op == 0) {
			rc = api_store_create(s, &kpod, obj(ns, name, spec), T0,
					      &o);
			assert_int_equal(rc, m[i].live ? -EEXIST : 0);
		} else if (op == 1) {
			rc = api_store_update(s, &kpod, obj(ns, name, spec),
					      m[i].live && rng_below(&r, 4) == 0
						      ? m[i].rv + 1
						      : 0,
					      T0, &o);
			if (!m[i].live)
				assert_int_equal(rc, -ENOENT);
			else if (rc == -ECANCELED)
				continue;
			else
				assert_int_equal(rc, 0);
		} else {
			rc = api_store_delete(s, &kpod, ns, name, 0, T0);
			assert_int_equal(rc, m[i].live ? 0 : -ENOENT);
		}
		if (rc)
			continue;
		assert_true(api_store_rv(s) == last_rv + 1);
		last_rv = api_store_rv(s);
		if (op != 2)
			m[i].v = step;
		vec_push(&evs,
			 ((struct model_ev){ last_rv,
					     op == 0   ? API_ADDED
					     : op == 1 ? API_MODIFIED
						       : API_DELETED,
					     m[i].ns, m[i].name, m[i].v }));
		/* versions no longer current keep their text only */
		if (rng_below(&r, 5) == 0)
			api_store_compact(s);
		m[i].live = op != 2;
		m[i].rv = last_rv;
		if (o)
			assert_int_equal(o->rv, last_rv);

		if (step % 97 == 0 || step == 2999) {
			struct model_obj live[NNS * NNAME];
			size_t n = 0;
			uint64_t since;

			for (size_t j = 0; j < ARRAY_SIZE(m); j++)
				if (m[j].live)
					live[n++] = m[j];
			qsort(live, n, sizeof(live[0]), model_cmp);
			assert_int_equal(api_store_count(s, &kpod), n);
			for (size_t from = 0; from <= n; from++) {
				struct walk w = { live + from, n - from, 0 };
				char ans[16], aname[16];

				snprintf(ans, sizeof(ans), "n%d",
					 from ? live[from - 1].ns : 0);
				snprintf(aname, sizeof(aname), "o%02d",
					 from ? live[from - 1].name : 0);
				assert_int_equal(
					api_store_each(s, &kpod, NULL,
						       from ? ans : NULL,
						       from ? aname : NULL,
						       check_walk, &w),
					0);
				assert_int_equal(w.at, w.n);
			}
			/* The history: every change after oldest_rv. */
			assert_true(api_store_oldest_rv(s) >= 7);
			assert_true(api_store_rv(s) - api_store_oldest_rv(s) <=
				    50);
			since = api_store_oldest_rv(s);
			{
				size_t first = evs.len - (last_rv - since);
				struct evcheck e = { evs.items + first,
						     evs.len - first, 0 };

				assert_int_equal(api_store_events(s, since,
								  check_ev, &e),
						 0);
				assert_int_equal(e.at, e.n);
			}
			if (since > 7)
				assert_int_equal(api_store_events(s, since - 1,
								  check_ev,
								  NULL),
						 -ERANGE);
		}
	}
	vec_release(&evs);
	api_store_free(s);
}

/* 20,000 objects of one kind: inserts, gets and a full ordered walk. */
static int count_obj(void *ctx, const struct api_obj *o)
{
	(void)o;
	(*(size_t *)ctx)++;
	return 0;
}

static void test_many_objects(void **state)
{
	struct api_store_options opt = { .history = 1000 };
	struct api_store *s = api_store_new(&opt);
	struct rng r;
	size_t n = 0;

	(void)state;
	rng_seed(&r, 7);
	for (int i = 0; i < 20000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "w-%08" PRIu64,
			 rng_next(&r) % 100000000);
		if (api_store_create(s, &kpod, obj("ns", name, NULL), T0, NULL))
			continue;
		n++;
	}
	assert_int_equal(api_store_count(s, &kpod), n);
	{
		size_t seen = 0;

		assert_int_equal(api_store_each(s, &kpod, "ns", NULL, NULL,
						count_obj, &seen),
				 0);
		assert_int_equal(seen, n);
	}
	api_store_free(s);
}

/* A resourceVersion is decimal digits only: strtoull() took "-1" as
 * 2^64 - 1, and a watch from it read the history from before its start
 * (found by fuzz_api). */
static int first_body(void *ctx, const struct api_event *ev)
{
	*(json_t **)ctx = json_incref(api_event_body(ev));
	return 1;
}

/* A version built with json_copy() and api_store_own() shares what it
 * does not change with the one before, which stays as it was. */
static void test_own_shares(void **state)
{
	struct api_store *s = api_store_new(NULL);
	const struct api_obj *o = NULL, *n = NULL;
	json_t *body, *spec, *old = NULL, *same;
	uint64_t rv;

	(void)state;
	assert_int_equal(api_store_create(s, &kpod,
					  obj("a", "p",
					      "{\"containers\":[{\"name\":"
					      "\"c\"}],\"x\":1}"),
					  T0, &o),
			 0);
	rv = o->rv;
	body = json_copy(o->body);
	spec = api_store_own(body, "spec", false);
	assert_ptr_not_equal(spec, json_object_get(o->body, "spec"));
	json_object_set_new(spec, "nodeName", json_string("n1"));
	/* private now: owned again, the same object */
	assert_ptr_equal(api_store_own(body, "spec", false), spec);
	/* missing or of another type: made empty */
	assert_true(json_is_array(api_store_own(body, "list", true)));
	json_object_set_new(body, "obj", json_integer(1));
	assert_int_equal(json_object_size(api_store_own(body, "obj", false)),
			 0);
	json_object_del(body, "list");
	json_object_del(body, "obj");
	assert_int_equal(api_store_update(s, &kpod, body, 0, T0, &n), 0);
	assert_int_equal(api_store_events(s, rv - 1, first_body, &old), 1);
	assert_null(json_object_get(json_object_get(old, "spec"), "nodeName"));
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(n->body, "spec"), "nodeName")),
		"n1");
	/* the containers are the old version's, not a copy */
	same = json_object_get(json_object_get(n->body, "spec"), "containers");
	assert_ptr_equal(same, json_object_get(json_object_get(old, "spec"),
					       "containers"));
	json_decref(old);
	api_store_free(s);
}

static void test_rv_parse(void **state)
{
	static const struct {
		const char *text;
		bool ok;
		uint64_t rv;
	} cases[] = {
		{ "0", true, 0 },
		{ "1", true, 1 },
		{ "007", true, 7 },
		{ "18446744073709551615", true, UINT64_MAX },
		{ "18446744073709551616", false, 0 },
		{ "99999999999999999999", false, 0 },
		{ "", false, 0 },
		{ "-1", false, 0 },
		{ "+1", false, 0 },
		{ " 1", false, 0 },
		{ "1 ", false, 0 },
		{ "0x10", false, 0 },
		{ "1.5", false, 0 },
	};
	uint64_t rv;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rv = 12345;
		assert_int_equal(
			api_rv_parse(cases[i].text, strlen(cases[i].text), &rv),
			cases[i].ok);
		if (cases[i].ok)
			assert_true(rv == cases[i].rv);
	}
	assert_true(api_rv_parse("12.ab", 2, &rv) && rv == 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_fills_metadata),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_update_semantics),
		cmocka_unit_test(test_finalizers),
		cmocka_unit_test(test_history_ring),
		cmocka_unit_test(test_each_order_and_resume),
		cmocka_unit_test(test_load_and_restored),
		cmocka_unit_test(test_restore_event),
		cmocka_unit_test(test_random_against_model),
		cmocka_unit_test(test_many_objects),
		cmocka_unit_test(test_rv_parse),
		cmocka_unit_test(test_own_shares),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

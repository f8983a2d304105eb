// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the store's replica writes (api_store_mirror and
 * api_store_mirror_delete): the remote identity is kept (uid,
 * creationTimestamp, generation, deletionTimestamp), the resourceVersion
 * is the store's, an object re-created remotely under the same name is
 * replaced in place with one MODIFIED, an unchanged body is no write,
 * finalizers are not acted on, and only these writes mark their events
 * mirror.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/api_store.h"
#include "base/strbuf.h"
#include "testutil.h"

static const struct api_kind kpod = {
	.id = 0,
	.versions = { "v1" },
	.resource = "pods",
	.kind = "Pod",
	.namespaced = true,
};
static const struct api_kind knode = {
	.id = 1,
	.versions = { "v1" },
	.resource = "nodes",
	.kind = "Node",
	.namespaced = false,
};

#define T0    1796130000000000LL /* 2026-12-01T13:00:00Z */
#define UID_A "6f1d2c3b-0000-4000-8000-00000000000a"
#define UID_B "6f1d2c3b-0000-4000-8000-00000000000b"

/* A remote object as a reflector hands it over. */
static json_t *remote(const char *ns, const char *name, const char *uid,
		      const char *rv, const char *spec)
{
	json_t *o = json_pack("{s:{s:s, s:s, s:s, s:i}}", "metadata", "name",
			      name, "resourceVersion", rv, "creationTimestamp",
			      "2025-01-02T03:04:05Z", "generation", 7);
	json_t *md = json_object_get(o, "metadata");

	if (uid)
		json_object_set_new(md, "uid", json_string(uid));
	if (ns)
		json_object_set_new(md, "namespace", json_string(ns));
	if (spec)
		json_object_set_new(o, "spec", json_loads(spec, 0, NULL));
	return o;
}

static const char *md_str(const struct api_obj *o, const char *key)
{
	return json_string_value(
		json_object_get(json_object_get(o->body, "metadata"), key));
}

struct evs {
	enum api_ev_type type[16];
	bool mirror[16];
	uint64_t rv[16];
	char uid[16][40];
	size_t n;
};

static int collect(void *ctx, const struct api_event *ev)
{
	struct evs *e = ctx;
	const char *uid = json_string_value(json_object_get(
		json_object_get(api_event_body(ev), "metadata"), "uid"));

	if (e->n == 16)
		return 1;
	e->type[e->n] = ev->type;
	e->mirror[e->n] = ev->mirror;
	e->rv[e->n] = ev->rv;
	snprintf(e->uid[e->n], sizeof(e->uid[0]), "%s", uid ? uid : "");
	e->n++;
	return 0;
}

/* Pod team/a of uid UID_A, spec {"x":1}, mirrored into s. */
static void mirror_a(struct api_store *s, const struct api_obj **o)
{
	assert_int_equal(api_store_mirror(s, &kpod,
					  remote("team", "a", UID_A, "9001",
						 "{\"x\":1}"),
					  T0, o),
			 0);
}

static void test_mirror_keeps_identity(void **state)
{
	struct api_store_options opt = { .first_rv = 40 };
	struct api_store *s = api_store_new(&opt);
	const struct api_obj *o = NULL;
	struct evs e = { 0 };

	(void)state;
	mirror_a(s, &o);
	assert_int_equal(o->rv, 41);
	assert_string_equal(o->uid, UID_A);
	assert_string_equal(md_str(o, "uid"), UID_A);
	assert_string_equal(md_str(o, "resourceVersion"), "41");
	assert_string_equal(md_str(o, "creationTimestamp"),
			    "2025-01-02T03:04:05Z");
	assert_int_equal(
		json_integer_value(json_object_get(
			json_object_get(o->body, "metadata"), "generation")),
		7);
	assert_ptr_equal(api_store_find_uid(s, UID_A), o);
	/* Cluster-scoped: stored without a namespace; a missing
	 * creationTimestamp is the store's clock. */
	json_t *n = remote(NULL, "n1", UID_B, "1", NULL);
	json_object_del(json_object_get(n, "metadata"), "creationTimestamp");
	assert_int_equal(api_store_mirror(s, &knode, n, T0, &o), 0);
	assert_string_equal(o->ns, "");
	assert_string_equal(md_str(o, "creationTimestamp"),
			    "2026-12-01T13:00:00Z");
	/* A local write is no mirror. */
	assert_int_equal(
		api_store_create(s, &kpod,
				 remote("team", "local", NULL, "0", NULL), T0,
				 NULL),
		0);
	assert_int_equal(api_store_events(s, 40, collect, &e), 0);
	assert_int_equal(e.n, 3);
	assert_int_equal(e.type[0], API_ADDED);
	assert_true(e.mirror[0]);
	assert_true(e.mirror[1]);
	assert_false(e.mirror[2]);
	api_store_free(s);
}

static void test_mirror_errors(void **state)
{
	static const struct {
		const char *name, *uid;
		int rc;
	} cases[] = {
		{ NULL, UID_A, -EINVAL }, /* no name */
		{ "", UID_A, -EINVAL },
		{ "a", NULL, -EINVAL }, /* no uid */
		{ "a", "", -EINVAL },
		{ "b", UID_B, -EEXIST }, /* another object has the uid */
		{ "a", UID_A, 0 },
	};
	struct api_store *s = api_store_new(NULL);

	(void)state;
	assert_int_equal(
		api_store_mirror(s, &kpod,
				 remote("ns", "taken", UID_B, "1", NULL), T0,
				 NULL),
		0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *b = remote("ns", "x", cases[i].uid, "1", NULL);
		json_t *md = json_object_get(b, "metadata");
		uint64_t rv = api_store_rv(s);

		if (cases[i].name)
			json_object_set_new(md, "name",
					    json_string(cases[i].name));
		else
			json_object_del(md, "name");
		assert_int_equal(api_store_mirror(s, &kpod, b, T0, NULL),
				 cases[i].rc);
		if (cases[i].rc)
			assert_int_equal(api_store_rv(s), rv);
	}
	assert_int_equal(api_store_mirror(s, &kpod, json_string("x"), T0, NULL),
			 -EINVAL);
	assert_int_equal(api_store_mirror_delete(s, &kpod, "ns", "none", T0),
			 -ENOENT);
	assert_int_equal(api_store_count(s, &kpod), 2);
	api_store_free(s);
}

static void test_mirror_replace(void **state)
{
	struct api_store *s = api_store_new(NULL);
	const struct api_obj *o = NULL, *same = NULL;
	struct evs e = { 0 };

	(void)state;
	assert_int_equal(
		api_store_mirror(s, &kpod,
				 remote("ns", "a", UID_A, "5", "{\"x\":1}"), T0,
				 &o),
		0);
	/* The same body again (another remote rv): no write. */
	assert_int_equal(
		api_store_mirror(s, &kpod,
				 remote("ns", "a", UID_A, "6", "{\"x\":1}"), T0,
				 &same),
		0);
	assert_ptr_equal(same, o);
	assert_int_equal(api_store_rv(s), 1);
	/* A changed body: MODIFIED. */
	assert_int_equal(
		api_store_mirror(s, &kpod,
				 remote("ns", "a", UID_A, "7", "{\"x\":2}"), T0,
				 &o),
		0);
	assert_int_equal(o->rv, 2);
	/* Re-created remotely under the same name: one MODIFIED, the new
	 * uid replaces the old in the index. */
	assert_int_equal(
		api_store_mirror(s, &kpod,
				 remote("ns", "a", UID_B, "9", "{\"x\":2}"), T0,
				 &o),
		0);
	assert_string_equal(o->uid, UID_B);
	assert_null(api_store_find_uid(s, UID_A));
	assert_ptr_equal(api_store_find_uid(s, UID_B), o);
	assert_int_equal(api_store_count(s, &kpod), 1);
	/* A local object replaced by the remote one of its name. */
	assert_int_equal(api_store_create(s, &kpod,
					  remote("ns", "w", NULL, "0", NULL),
					  T0, &o),
			 0);
	assert_int_equal(api_store_mirror(s, &kpod,
					  remote("ns", "w", UID_A, "3", NULL),
					  T0, &o),
			 0);
	assert_string_equal(o->uid, UID_A);
	assert_int_equal(api_store_events(s, 0, collect, &e), 0);
	assert_int_equal(e.n, 5);
	assert_int_equal(e.type[1], API_MODIFIED);
	assert_int_equal(e.type[2], API_MODIFIED);
	assert_string_equal(e.uid[2], UID_B);
	assert_false(e.mirror[3]);
	assert_int_equal(e.type[4], API_MODIFIED);
	assert_true(e.mirror[4]);
	api_store_free(s);
}

static void test_mirror_deletion(void **state)
{
	struct api_store *s = api_store_new(NULL);
	const struct api_obj *o = NULL;
	struct evs e = { 0 };
	json_t *b;

	(void)state;
	/* Being deleted remotely, finalizers held: kept as it is. */
	b = remote("ns", "a", UID_A, "5", NULL);
	json_object_set_new(json_object_get(b, "metadata"), "finalizers",
			    json_pack("[s]", "example.com/hold"));
	json_object_set_new(json_object_get(b, "metadata"), "deletionTimestamp",
			    json_string("2025-01-02T03:05:00Z"));
	assert_int_equal(api_store_mirror(s, &kpod, b, T0, &o), 0);
	assert_string_equal(md_str(o, "deletionTimestamp"),
			    "2025-01-02T03:05:00Z");
	/* The finalizers gone (the remote's next step before DELETED):
	 * still stored, not removed by the store. */
	b = json_deep_copy(o->body);
	json_object_set_new(json_object_get(b, "metadata"), "finalizers",
			    json_array());
	assert_int_equal(api_store_mirror(s, &kpod, b, T0, &o), 0);
	assert_non_null(api_store_get(s, &kpod, "ns", "a"));
	assert_string_equal(md_str(o, "deletionTimestamp"),
			    "2025-01-02T03:05:00Z");
	/* The remote's DELETED. */
	assert_int_equal(api_store_mirror_delete(s, &kpod, "ns", "a", T0), 0);
	assert_null(api_store_get(s, &kpod, "ns", "a"));
	assert_null(api_store_find_uid(s, UID_A));
	/* A local delete of a mirrored object is a local write. */
	assert_int_equal(api_store_mirror(s, &kpod,
					  remote("ns", "b", UID_B, "6", NULL),
					  T0, NULL),
			 0);
	assert_int_equal(api_store_delete(s, &kpod, "ns", "b", 0, T0), 0);
	assert_int_equal(api_store_events(s, 0, collect, &e), 0);
	assert_int_equal(e.n, 5);
	assert_int_equal(e.type[2], API_DELETED);
	assert_true(e.mirror[2]);
	assert_int_equal(e.rv[2], 3);
	assert_string_equal(e.uid[2], UID_A);
	assert_int_equal(e.type[4], API_DELETED);
	assert_false(e.mirror[4]);
	api_store_free(s);
}

/* Watches read mirrored changes as any other (the local clients of a
 * replica, kubectl against the daemon, see the remote's changes). */
static void test_mirror_watched(void **state)
{
	const struct api_kind *pod = api_kind_at(API_KIND_POD);
	struct api_store *s = api_store_new(NULL);
	struct api *a = api_new(s, NULL);
	struct api_req req = { .method = "GET",
			       .path = "/api/v1/namespaces/ns/pods",
			       .query = "watch=1&resourceVersion=1" };
	struct api_resp resp;
	struct strbuf out;
	json_t *b;

	(void)state;
	b = remote("ns", "a", UID_A, "5", "{}");
	json_object_set_new(b, "apiVersion", json_string("v1"));
	json_object_set_new(b, "kind", json_string("Pod"));
	assert_int_equal(api_store_mirror(s, pod, json_deep_copy(b), T0, NULL),
			 0);
	api_handle(a, &req, T0, &resp);
	assert_int_equal(resp.code, 200);
	assert_non_null(resp.watch);
	json_object_set_new(b, "spec", json_pack("{s:i}", "x", 1));
	assert_int_equal(api_store_mirror(s, pod, b, T0, NULL), 0);
	assert_int_equal(api_store_mirror_delete(s, pod, "ns", "a", T0), 0);
	strbuf_init(&out);
	assert_int_equal(api_watch_next(resp.watch, T0, &out), 1);
	assert_non_null(strstr(out.buf, "{\"type\":\"MODIFIED\""));
	assert_non_null(strstr(out.buf, "{\"type\":\"DELETED\""));
	assert_non_null(strstr(out.buf, UID_A));
	assert_null(strstr(out.buf, "ADDED"));
	strbuf_release(&out);
	api_resp_release(&resp);
	api_free(a);
	api_store_free(s);
}

/* A read-only store refuses its own writes, whole, and counts them; a
 * replica's mirrored writes go on; writable again, it writes. */
static void test_read_only(void **state)
{
	struct api_store *s = api_store_new(NULL);
	const struct api_obj *o = NULL;
	struct evs e = { 0 };
	uint64_t rv;

	(void)state;
	mirror_a(s, &o);
	rv = api_store_rv(s);
	api_store_read_only(s, true);
	assert_int_equal(api_store_create(s, &kpod,
					  remote("team", "b", NULL, "1", NULL),
					  T0, NULL),
			 -EROFS);
	assert_int_equal(
		api_store_update(s, &kpod,
				 remote("team", "a", UID_A, "1", "{\"x\":2}"),
				 0, T0, NULL),
		-EROFS);
	assert_int_equal(api_store_delete(s, &kpod, "team", "a", 0, T0),
			 -EROFS);
	assert_int_equal(api_store_refused(s), 3);
	/* an update that changes nothing is no write */
	assert_int_equal(
		api_store_update(
			s, &kpod,
			json_deep_copy(
				api_store_get(s, &kpod, "team", "a")->body),
			0, T0, NULL),
		0);
	assert_int_equal(api_store_refused(s), 3);
	assert_int_equal(api_store_rv(s), rv);
	assert_null(api_store_get(s, &kpod, "team", "b"));
	o = api_store_get(s, &kpod, "team", "a");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(o->body, "spec"), "x")),
			 1);
	/* the remote's changes still come in */
	assert_int_equal(
		api_store_mirror(s, &kpod,
				 remote("team", "c", UID_B, "9002", NULL), T0,
				 NULL),
		0);
	assert_int_equal(api_store_events(s, rv, collect, &e), 0);
	assert_int_equal(e.n, 1);
	assert_true(e.mirror[0]);
	api_store_read_only(s, false);
	assert_int_equal(api_store_delete(s, &kpod, "team", "a", 0, T0), 0);
	assert_int_equal(api_store_refused(s), 3);
	api_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mirror_keeps_identity),
		cmocka_unit_test(test_mirror_errors),
		cmocka_unit_test(test_mirror_replace),
		cmocka_unit_test(test_mirror_deletion),
		cmocka_unit_test(test_mirror_watched),
		cmocka_unit_test(test_read_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

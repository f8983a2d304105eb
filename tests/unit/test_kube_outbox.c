// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the outbox over the in-process transport: a "remote" store
 * answered by the real api, and a replica store the tests write to as
 * serve_sched does (api_bind, status updates, Events, deletes), kept in
 * step with the remote by the reflector. Checked: what the remote then
 * holds, the writes it got, intent first, coalescing, reset, refused
 * writes read again, refused binds sent again, and seeded faults (binds
 * end bound once, nothing bound twice).
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

#include "api/api.h"
#include "base/alloc.h"
#include "base/errbuf.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "kube/kube_loop.h"
#include "kube/kube_outbox.h"
#include "kube/kube_reflect.h"
#include "serve/serve_event.h"
#include "testutil.h"

#define T0 1796130000000000LL
#define NS "default"

#define SWEEP_SEEDS 160ULL /* seeds 100.. of test_random_sweep */

struct fx {
	struct api_store *remote, *replica;
	struct api *api;
	struct kube_loop *l;
	struct kube_transport inner, tr; /* tr records, then inner */
	struct kube_reflect *r;
	struct kube_outbox *ob;
	VEC(char *) calls; /* the writes sent: "METHOD PATH BODY" */
	unsigned logged;   /* refused-write lines */
	int64_t now;
	bool gated; /* records(): pods p1, p2 of Workload w, p3, p4 of w2,
		       p5 of none; else not known */
};

/* A bind of a pod bound already: the real API server answers 409 even
 * for the same node (echelon's answers 201 there). */
struct conflict {
	kube_done_fn done;
	void *ctx;
	char *msg;
};

static void conflict_done(void *ctx, const struct kube_reply *r)
{
	struct conflict *c = ctx;
	struct kube_reply r2 = *r;
	char *body = NULL;

	if (r->code == 201) {
		body = xasprintf("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
				 "\"status\":\"Failure\",\"message\":\"%s\","
				 "\"reason\":\"Conflict\",\"code\":409}",
				 c->msg);
		r2.code = 409;
		r2.body = body;
		r2.len = strlen(body);
	}
	c->done(c->ctx, &r2);
	free(body);
	free(c->msg);
	free(c);
}

static const char *node_of(const json_t *pod_body);

/* A group version hidden from discovery (the server serves the kind only
 * at another version), for the next setup. */
static const char *hide;

/* The /apis reply without hide's group version. */
static void hide_done(void *ctx, const struct kube_reply *r)
{
	struct conflict *c = ctx;
	struct kube_reply r2 = *r;
	struct strbuf sb;
	const char *at, *from = r->body;

	strbuf_init(&sb);
	while (r->code == 200 && (at = strstr(from, c->msg))) {
		strbuf_add(&sb, from, (size_t)(at - from));
		strbuf_addstr(&sb, "\"groupVersion\":\"hidden.example/v0\"");
		from = at + strlen(c->msg);
	}
	strbuf_addstr(&sb, from);
	r2.body = sb.buf;
	r2.len = sb.len;
	c->done(c->ctx, &r2);
	strbuf_release(&sb);
	free(c->msg);
	free(c);
}

static uint64_t rec_send(void *impl, const struct kube_call *c,
			 kube_done_fn done, kube_line_fn line, void *ctx)
{
	struct fx *f = impl;
	static const char pods[] = "/api/v1/namespaces/default/pods/";
	const char *end = strstr(c->path, "/binding");

	if (strcmp(c->method, "GET"))
		vec_push(&f->calls,
			 xasprintf("%s %s %.*s", c->method, c->path,
				   (int)c->len, c->body ? c->body : ""));
	if (hide && !strcmp(c->path, "/apis")) {
		struct conflict *k = xcalloc(1, sizeof(*k));

		*k = (struct conflict){
			done, ctx, xasprintf("\"groupVersion\":\"%s\"", hide)
		};
		return kube_send(&f->inner, c, hide_done, line, k);
	}
	if (end && !strncmp(c->path, pods, strlen(pods))) {
		char *name = xstrndup(c->path + strlen(pods),
				      (size_t)(end - c->path - strlen(pods)));
		const struct api_obj *o = api_store_get(
			f->remote, api_kind_at(API_KIND_POD), NS, name);
		const char *node = o ? node_of(o->body) : NULL;

		if (node) {
			struct conflict *k = xcalloc(1, sizeof(*k));

			*k = (struct conflict){
				done, ctx,
				xasprintf("Operation cannot be fulfilled on "
					  "pods/binding \\\"%s\\\": pod %s is "
					  "already assigned to node \\\"%s\\\"",
					  name, name, node)
			};
			free(name);
			return kube_send(&f->inner, c, conflict_done, line, k);
		}
		free(name);
	}
	return kube_send(&f->inner, c, done, line, ctx);
}

static void rec_cancel(void *impl, uint64_t id)
{
	struct fx *f = impl;

	kube_cancel(&f->inner, id);
}

static void on_log(void *ctx, const char *msg, const char *kv)
{
	struct fx *f = ctx;

	assert_non_null(strstr(kv, "verb="));
	assert_non_null(msg);
	f->logged++;
}

static const struct api_kind *kind(enum api_kind_id id)
{
	return api_kind_at(id);
}

static int records(void *ctx, const json_t *pod, const struct api_kind **kinds,
		   const char **names, int max)
{
	struct fx *f = ctx;
	const char *name = json_string_value(
		json_object_get(json_object_get(pod, "metadata"), "name"));
	int i = name ? atoi(name + 1) : 0;

	assert_true(max >= 2);
	if (!f->gated || i < 1 || i > 5)
		return -1;
	if (i == 5)
		return 0;
	kinds[0] = kind(API_KIND_WORKLOAD);
	names[0] = i <= 2 ? "w" : "w2";
	kinds[1] = kind(API_KIND_JOB); /* no such object: no gate */
	names[1] = "j";
	return 2;
}

static void create(struct api_store *s, enum api_kind_id id, json_t *body)
{
	assert_int_equal(api_store_create(s, kind(id), body, T0, NULL), 0);
}

static json_t *pod(const char *name)
{
	return json_pack("{ss ss s{ss ss} s{s[{ss ss}] ss}}", "apiVersion",
			 "v1", "kind", "Pod", "metadata", "name", name,
			 "namespace", NS, "spec", "containers", "name", "c",
			 "image", "busybox", "schedulerName", "echelon");
}

static bool pending(void *ctx, const struct api_kind *k, const char *ns,
		    const char *name)
{
	struct fx *f = ctx;

	return f->ob && kube_outbox_pending(f->ob, k, ns, name);
}

static bool stale(void *ctx, const struct api_kind *k, const char *ns,
		  const char *name, const json_t *body)
{
	struct fx *f = ctx;

	return f->ob && kube_outbox_stale(f->ob, k, ns, name, body);
}

/* One loop turn of the daemon: reflector, outbox, transport. Returns
 * the callbacks that ran. */
static int turn(struct fx *f)
{
	int n;

	kube_reflect_run(f->r, f->now);
	if (f->ob)
		kube_outbox_flush(f->ob, f->now);
	n = kube_loop_run(f->l, f->now);
	kube_reflect_run(f->r, f->now);
	return n;
}

/* Turns until quiet: the outbox idle, nothing due but watch deadlines
 * (the clock jumping to each due time). */
static void settle(struct fx *f)
{
	for (int i = 0; i < 5000; i++) {
		int64_t next, rnext;

		if (turn(f))
			continue;
		next = kube_loop_next_us(f->l);
		rnext = kube_reflect_next_us(f->r);
		if ((!f->ob || kube_outbox_idle(f->ob)) && next > f->now &&
		    rnext == INT64_MAX && next >= f->now + 20000000)
			return;
		if (rnext < next)
			next = rnext;
		f->now = next > f->now ? next : f->now + 1000;
	}
	fail_msg("not quiet");
}

static void calls_clear(struct fx *f)
{
	for (size_t i = 0; i < f->calls.len; i++)
		free(f->calls.items[i]);
	f->calls.len = 0;
}

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct api_store_options ro = { .history = 100000 };
	struct api_store_options lo = { .history = 100000,
					.uid_prefix = "local" };
	struct api_hooks h = { .git_version = "v1.35.0" };
	struct kube_outbox_options oo = { 0 };

	f->remote = api_store_new(&ro);
	f->replica = api_store_new(&lo);
	f->api = api_new(f->remote, &h);
	f->l = kube_loop_new(f->api);
	f->inner = kube_loop_transport(f->l);
	f->tr = (struct kube_transport){ rec_send, rec_cancel, f };
	f->now = T0;
	create(f->remote, API_KIND_NAMESPACE,
	       json_pack("{s{ss}}", "metadata", "name", NS));
	for (int i = 1; i <= 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		create(f->remote, API_KIND_NODE,
		       json_pack("{ssss s{ss}}", "apiVersion", "v1", "kind",
				 "Node", "metadata", "name", name));
	}
	for (int i = 1; i <= 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		create(f->remote, API_KIND_POD, pod(name));
	}
	f->r = kube_reflect_new(&(struct kube_reflect_options){
		.store = f->replica,
		.tr = &f->tr,
		.seed = 1,
		.pending = pending,
		.stale = stale,
		.pending_ctx = f,
	});
	settle(f);
	assert_true(kube_reflect_synced(f->r));
	assert_non_null(
		api_store_get(f->replica, kind(API_KIND_POD), NS, "p8"));
	calls_clear(f);
	oo.reflect = f->r;
	oo.store = f->replica;
	oo.tr = &f->tr;
	oo.max_inflight = 4;
	oo.give_up_us = 20000000;
	oo.log = on_log;
	oo.log_ctx = f;
	oo.records = records;
	oo.records_ctx = f;
	f->ob = kube_outbox_new(&oo);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	kube_outbox_free(f->ob);
	kube_reflect_free(f->r);
	kube_loop_free(f->l);
	api_free(f->api);
	api_store_free(f->replica);
	api_store_free(f->remote);
	calls_clear(f);
	vec_release(&f->calls);
	free(f);
	return 0;
}

/* ---- helpers ---- */

static const json_t *remote_body(struct fx *f, enum api_kind_id id,
				 const char *ns, const char *name)
{
	const struct api_obj *o = api_store_get(f->remote, kind(id), ns, name);

	return o ? o->body : NULL;
}

static const char *node_of(const json_t *pod_body)
{
	return json_string_value(
		json_object_get(json_object_get(pod_body, "spec"), "nodeName"));
}

static void bind(struct fx *f, const char *name, const char *node)
{
	const struct api_obj *o =
		api_store_get(f->replica, kind(API_KIND_POD), NS, name);
	struct errbuf eb;

	assert_non_null(o);
	assert_int_equal(
		api_bind(f->replica, NS, name, o->uid, node, f->now, &eb), 0);
}

/* Update the replica's object with fn(copy) as serve_sched does. */
static void update(struct fx *f, enum api_kind_id id, const char *ns,
		   const char *name, void (*fn)(json_t *body, const char *arg),
		   const char *arg)
{
	const struct api_obj *o = api_store_get(f->replica, kind(id), ns, name);
	json_t *body;

	assert_non_null(o);
	body = json_deep_copy(o->body);
	fn(body, arg);
	assert_int_equal(
		api_store_update(f->replica, kind(id), body, 0, f->now, NULL),
		0);
}

/* status.conditions PodScheduled=False with reason arg. */
static void set_waiting(json_t *body, const char *reason)
{
	json_t *st = json_object_get(body, "status");

	if (!st) {
		st = json_object();
		json_object_set_new(body, "status", st);
	}
	json_object_set_new(st, "conditions",
			    json_pack("[{ssssssss}]", "type", "PodScheduled",
				      "status", "False", "reason", reason,
				      "message", "waiting for quota"));
}

static void set_label(json_t *body, const char *value)
{
	json_t *meta = json_object_get(body, "metadata");
	json_t *labels = json_object_get(meta, "labels");

	if (!labels) {
		labels = json_object();
		json_object_set_new(meta, "labels", labels);
	}
	if (value)
		json_object_set_new(labels, "echelon.dev/x",
				    json_string(value));
	else
		json_object_del(labels, "echelon.dev/x");
}

static size_t count_calls(struct fx *f, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < f->calls.len; i++)
		n += !strncmp(f->calls.items[i], prefix, strlen(prefix));
	return n;
}

static const char *cond_reason(const json_t *body, const char *type)
{
	const json_t *c;
	size_t i;

	json_array_foreach(
		json_object_get(json_object_get(body, "status"), "conditions"),
		i,
		c) if (!strcmp(json_string_value(json_object_get(c, "type"))
				       ?: "",
			       type)) return json_string_value(json_object_get(c,
									       "reason"));
	return NULL;
}

/* ---- tests ---- */

static void test_bind(void **state)
{
	struct fx *f = *state;
	const json_t *p;

	bind(f, "p1", "n2");
	assert_true(kube_outbox_idle(f->ob));
	kube_outbox_flush(f->ob, f->now);
	assert_true(kube_outbox_pending(f->ob, kind(API_KIND_POD), NS, "p1"));
	assert_false(kube_outbox_pending(f->ob, kind(API_KIND_POD), NS, "p2"));
	settle(f);
	p = remote_body(f, API_KIND_POD, NS, "p1");
	assert_string_equal(node_of(p), "n2");
	assert_string_equal(cond_reason(p, "PodScheduled") ?: "none", "none");
	assert_int_equal(f->calls.len, 1);
	assert_non_null(strstr(f->calls.items[0],
			       "POST /api/v1/namespaces/default/pods/p1/"
			       "binding {"));
	assert_non_null(strstr(f->calls.items[0], "\"kind\":\"Binding\""));
	assert_non_null(strstr(f->calls.items[0], "\"target\":{"));
	assert_false(kube_outbox_pending(f->ob, kind(API_KIND_POD), NS, "p1"));
	/* The echo came back: the replica holds the remote's version. */
	assert_string_equal(
		node_of(api_store_get(f->replica, kind(API_KIND_POD), NS, "p1")
				->body),
		"n2");
}

static void test_status_and_labels(void **state)
{
	struct fx *f = *state;
	const json_t *p;

	update(f, API_KIND_POD, NS, "p2", set_waiting, "WaitingForQuota");
	settle(f);
	p = remote_body(f, API_KIND_POD, NS, "p2");
	assert_string_equal(cond_reason(p, "PodScheduled"), "WaitingForQuota");
	assert_int_equal(f->calls.len, 1);
	assert_non_null(strstr(
		f->calls.items[0],
		"PATCH /api/v1/namespaces/default/pods/p2/status "
		"{\"status\":{\"conditions\":[{\"type\":\"PodScheduled\","));
	calls_clear(f);

	/* Only the changed condition's changed members go. */
	update(f, API_KIND_POD, NS, "p2", set_waiting, "Unschedulable");
	settle(f);
	assert_int_equal(f->calls.len, 1);
	assert_string_equal(f->calls.items[0],
			    "PATCH /api/v1/namespaces/default/pods/p2/status "
			    "{\"status\":{\"conditions\":[{\"reason\":"
			    "\"Unschedulable\",\"type\":\"PodScheduled\"}]}}");
	p = remote_body(f, API_KIND_POD, NS, "p2");
	assert_string_equal(cond_reason(p, "PodScheduled"), "Unschedulable");
	calls_clear(f);

	/* Metadata goes to the object, not its status; removal is null. */
	update(f, API_KIND_POD, NS, "p2", set_label, "a");
	settle(f);
	update(f, API_KIND_POD, NS, "p2", set_label, NULL);
	settle(f);
	assert_int_equal(f->calls.len, 2);
	assert_string_equal(f->calls.items[1],
			    "PATCH /api/v1/namespaces/default/pods/p2 "
			    "{\"metadata\":{\"labels\":{\"echelon.dev/x\":"
			    "null}}}");
	p = remote_body(f, API_KIND_POD, NS, "p2");
	assert_null(json_object_get(
		json_object_get(json_object_get(p, "metadata"), "labels"),
		"echelon.dev/x"));
}

static void test_coalesce(void **state)
{
	struct fx *f = *state;

	update(f, API_KIND_POD, NS, "p3", set_label, "a");
	kube_outbox_flush(f->ob, f->now);
	update(f, API_KIND_POD, NS, "p3", set_label, "b");
	update(f, API_KIND_POD, NS, "p4", set_label, "c");
	update(f, API_KIND_POD, NS, "p4", set_label, "d");
	settle(f);
	/* p3's first write went at the first flush; p4's two as one. */
	assert_int_equal(count_calls(f, "PATCH /api/v1/namespaces/default/"
					"pods/p3 "),
			 2);
	assert_int_equal(count_calls(f, "PATCH /api/v1/namespaces/default/"
					"pods/p4 "),
			 1);
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(
				json_object_get(
					remote_body(f, API_KIND_POD, NS, "p4"),
					"metadata"),
				"labels"),
			"echelon.dev/x")),
		"d");
}

static int first_event(void *ctx, const struct api_obj *o)
{
	*(const struct api_obj **)ctx = o;
	return 1;
}

static void test_event_and_delete(void **state)
{
	struct fx *f = *state;
	const struct api_obj *p =
		api_store_get(f->replica, kind(API_KIND_POD), NS, "p5");
	const struct api_obj *lo = NULL;
	const json_t *ev;

	assert_int_equal(serve_event(f->replica, p->body, "Warning",
				     "FailedScheduling", "Scheduling",
				     "echelon.dev/scheduler", f->now,
				     "gang %s waits", "g"),
			 0);
	settle(f);
	assert_int_equal(
		count_calls(f, "POST /api/v1/namespaces/default/events "), 1);
	assert_int_equal(api_store_count(f->remote, kind(API_KIND_EVENT)), 1);
	(void)api_store_each(f->replica, kind(API_KIND_EVENT), NS, NULL, NULL,
			     first_event, &lo);
	assert_non_null(lo);
	/* The remote's Event has its own uid: the local one was dropped. */
	ev = remote_body(f, API_KIND_EVENT, NS, lo->name);
	assert_non_null(ev);
	assert_string_not_equal(
		json_string_value(json_object_get(
			json_object_get(ev, "metadata"), "uid")),
		lo->uid);
	assert_null(strstr(f->calls.items[0], lo->uid));
	{
		/* involvedObject names the cluster's resourceVersion. */
		char want[64];

		snprintf(want, sizeof(want), "\"resourceVersion\":\"%llu\"",
			 (unsigned long long)api_store_get(
				 f->remote, kind(API_KIND_POD), NS, "p5")
				 ->rv);
		assert_non_null(strstr(f->calls.items[0], want));
	}

	/* A repeat patches its count. */
	assert_int_equal(serve_event(f->replica, p->body, "Warning",
				     "FailedScheduling", "Scheduling",
				     "echelon.dev/scheduler", f->now,
				     "gang %s waits", "g"),
			 0);
	settle(f);
	assert_int_equal(f->calls.len, 2);
	assert_non_null(strstr(f->calls.items[1], "PATCH /api/v1/namespaces/"
						  "default/events/p5."));
	(void)api_store_each(f->replica, kind(API_KIND_EVENT), NS, NULL, NULL,
			     first_event, &lo);
	ev = remote_body(f, API_KIND_EVENT, NS, lo->name);
	assert_int_equal(json_integer_value(json_object_get(ev, "count")), 2);

	/* A delete carries the uid as precondition. */
	calls_clear(f);
	assert_int_equal(api_store_delete(f->replica, kind(API_KIND_POD), NS,
					  "p6", 0, f->now),
			 0);
	settle(f);
	assert_int_equal(f->calls.len, 1);
	assert_non_null(strstr(f->calls.items[0],
			       "DELETE /api/v1/namespaces/default/pods/p6 "));
	assert_non_null(strstr(f->calls.items[0], "\"preconditions\":{"));
	assert_null(remote_body(f, API_KIND_POD, NS, "p6"));
	assert_int_equal(f->logged, 0);
}

static void faults(struct fx *f, double fail, int code, const char *only);

/* The index of the first call starting with prefix, or -1. */
static int call_at(struct fx *f, const char *prefix)
{
	for (size_t i = 0; i < f->calls.len; i++)
		if (!strncmp(f->calls.items[i], prefix, strlen(prefix)))
			return (int)i;
	return -1;
}

static void scheduled(struct fx *f, const char *name)
{
	const struct api_obj *p =
		api_store_get(f->replica, kind(API_KIND_POD), NS, name);

	assert_int_equal(serve_event(f->replica, p->body, "Normal", "Scheduled",
				     "Binding", "echelon.dev/scheduler", f->now,
				     "assigned %s", name),
			 0);
}

/* Events go after the binds queued with them, and binds do not wait for
 * them: an Event failing does not hold a gang back. */
static void test_events_after_binds(void **state)
{
	struct fx *f = *state;
	int ev;

	scheduled(f, "p1");
	scheduled(f, "p2");
	bind(f, "p1", "n1");
	bind(f, "p2", "n1");
	settle(f);
	ev = call_at(f, "POST /api/v1/namespaces/default/events ");
	assert_true(ev >= 0);
	assert_true(call_at(f, "POST /api/v1/namespaces/default/pods/p1/"
			       "binding") < ev);
	assert_true(call_at(f, "POST /api/v1/namespaces/default/pods/p2/"
			       "binding") < ev);
	assert_int_equal(api_store_count(f->remote, kind(API_KIND_EVENT)), 2);

	calls_clear(f);
	faults(f, 1, 500, "/events");
	scheduled(f, "p3");
	bind(f, "p3", "n2");
	for (int i = 0; i < 5; i++) {
		turn(f);
		f->now += 200000;
	}
	assert_string_equal(node_of(remote_body(f, API_KIND_POD, NS, "p3")),
			    "n2");
	faults(f, 0, 0, NULL);
	settle(f);
}

/* A repeat of an Event the server lost (its create dropped with the
 * leadership, or deleted by its TTL): the patch's 404 turns into the
 * Event's create, nothing refused. */
static void test_event_recreated(void **state)
{
	struct fx *f = *state;
	const struct api_obj *lo = NULL;
	const json_t *ev;

	scheduled(f, "p5");
	settle(f);
	(void)api_store_each(f->replica, kind(API_KIND_EVENT), NS, NULL, NULL,
			     first_event, &lo);
	assert_non_null(lo);
	assert_int_equal(api_store_delete(f->remote, kind(API_KIND_EVENT), NS,
					  lo->name, 0, f->now),
			 0);
	calls_clear(f);
	scheduled(f, "p5");
	settle(f);
	assert_int_equal(f->calls.len, 2);
	assert_non_null(strstr(f->calls.items[0],
			       "PATCH /api/v1/namespaces/default/events/p5."));
	assert_int_equal(call_at(f, "POST /api/v1/namespaces/default/events "),
			 1);
	(void)api_store_each(f->replica, kind(API_KIND_EVENT), NS, NULL, NULL,
			     first_event, &lo);
	ev = remote_body(f, API_KIND_EVENT, NS, lo->name);
	assert_non_null(ev);
	assert_int_equal(json_integer_value(json_object_get(ev, "count")), 2);
	assert_int_equal(f->logged, 0);
}

/* An object created here and deleted while its create is on its way:
 * the delete follows, with the uid the server gave it; one created and
 * deleted before it was sent is never sent. */
static void test_create_then_delete(void **state)
{
	struct fx *f = *state;
	const struct api_obj *p =
		api_store_get(f->replica, kind(API_KIND_POD), NS, "p5");
	const struct api_obj *lo = NULL;
	char *local_uid;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(serve_event(f->replica, p->body, "Normal",
					     i ? "Other" : "Scheduled",
					     "Scheduling",
					     "echelon.dev/scheduler", f->now,
					     "event %d", i),
				 0);
		if (!i)
			kube_outbox_flush(f->ob, f->now); /* POST in flight */
		lo = NULL;
		(void)api_store_each(f->replica, kind(API_KIND_EVENT), NS, NULL,
				     NULL, first_event, &lo);
		local_uid = xstrdup(lo->uid);
		assert_int_equal(api_store_delete(f->replica,
						  kind(API_KIND_EVENT), NS,
						  lo->name, 0, f->now),
				 0);
		settle(f);
		if (!i) {
			assert_int_equal(f->calls.len, 2);
			assert_non_null(strstr(f->calls.items[1], "DELETE "));
			assert_non_null(
				strstr(f->calls.items[1], "\"preconditions\""));
			assert_null(strstr(f->calls.items[1], local_uid));
		} else {
			assert_int_equal(f->calls.len, 2); /* nothing more */
		}
		free(local_uid);
		assert_int_equal(
			api_store_count(f->remote, kind(API_KIND_EVENT)), 0);
	}
	assert_int_equal(f->logged, 0);
}

/* The remote's history: the rv of the first change that shows the
 * intent (the Workload's admission) and of each pod's binds. */
struct order {
	uint64_t intent_rv, first_bind_rv;
	unsigned binds[16];
	char node[16][16];
};

static int see_order(void *ctx, const struct api_event *ev)
{
	struct order *o = ctx;

	if (ev->kind == kind(API_KIND_WORKLOAD) && !o->intent_rv &&
	    json_object_get(json_object_get(api_event_body(ev), "status"),
			    "admission"))
		o->intent_rv = ev->rv;
	if (ev->kind == kind(API_KIND_POD) && ev->type != API_DELETED) {
		int i = (int)strtol(ev->name + 1, NULL, 10) % 16;
		const char *n = node_of(api_event_body(ev));

		if (n && !o->node[i][0]) {
			o->binds[i]++;
			if (!o->first_bind_rv)
				o->first_bind_rv = ev->rv;
		}
		snprintf(o->node[i], sizeof(o->node[i]), "%s", n ? n : "");
	}
	return 0;
}

static void admit(json_t *body, const char *arg)
{
	(void)arg;
	json_object_set_new(body, "status",
			    json_pack("{s{ss s[{ss s{ss} si}]}}", "admission",
				      "clusterQueue", "cq", "podSetAssignments",
				      "name", "main", "flavors",
				      "nvidia.com/gpu", "f", "count", 4));
}

static void add_workload_named(struct fx *f, const char *name)
{
	create(f->remote, API_KIND_WORKLOAD,
	       json_pack("{ss ss s{ss ss} s{ss s[{ss si s{s{s[{ss ss}]}}}]}}",
			 "apiVersion", "kueue.x-k8s.io/v1beta2", "kind",
			 "Workload", "metadata", "name", name, "namespace", NS,
			 "spec", "queueName", "q", "podSets", "name", "main",
			 "count", 4, "template", "spec", "containers", "name",
			 "c", "image", "busybox"));
	settle(f);
}

static void add_workload(struct fx *f)
{
	add_workload_named(f, "w");
}

/* The remote's history: rv of each Workload's first change showing an
 * admission (w, w2) and of each pod's first bind (p1..p5). */
struct gates_seen {
	uint64_t admitted[2], bound[6];
};

static int see_gates(void *ctx, const struct api_event *ev)
{
	struct gates_seen *g = ctx;
	const json_t *body =
		ev->type == API_DELETED ? NULL : api_event_body(ev);

	if (ev->kind == kind(API_KIND_WORKLOAD) &&
	    json_object_get(json_object_get(body, "status"), "admission")) {
		int i = strcmp(ev->name, "w") != 0;

		if (!g->admitted[i])
			g->admitted[i] = ev->rv;
	}
	if (ev->kind == kind(API_KIND_POD) && body && node_of(body)) {
		int i = atoi(ev->name + 1);

		if (i >= 1 && i <= 5 && !g->bound[i])
			g->bound[i] = ev->rv;
	}
	return 0;
}

#define BINDING(p) "POST /api/v1/namespaces/default/pods/" p "/binding"

/* A bind waits for its own gang's records only: a failing admission of
 * one gang holds its pods back, not another gang's nor a pod of no gang;
 * a pod deleted while its bind waits leaves nothing behind. */
static void test_gated_per_gang(void **state)
{
	struct fx *f = *state;
	struct gates_seen g = { 0 };

	add_workload_named(f, "w");
	add_workload_named(f, "w2");
	kube_outbox_flush(f->ob, f->now); /* the mirror events only */
	f->gated = true;
	faults(f, 1, 500, "/workloads/w/");
	bind(f, "p1", "n1");
	bind(f, "p2", "n1");
	bind(f, "p3", "n2");
	bind(f, "p5", "n3");
	update(f, API_KIND_WORKLOAD, NS, "w", admit, NULL);
	update(f, API_KIND_WORKLOAD, NS, "w2", admit, NULL);
	for (int i = 0; i < 5; i++) {
		turn(f);
		f->now += 200000;
	}
	assert_true(call_at(f, BINDING("p3")) >= 0);
	assert_true(call_at(f, BINDING("p5")) >= 0);
	assert_int_equal(call_at(f, BINDING("p1")), -1);
	assert_int_equal(call_at(f, BINDING("p2")), -1);
	assert_int_equal(api_store_delete(f->replica, kind(API_KIND_POD), NS,
					  "p2", 0, f->now),
			 0);
	faults(f, 0, 0, NULL);
	settle(f);
	assert_int_equal(api_store_events(f->remote, 0, see_gates, &g), 0);
	assert_true(g.admitted[0] && g.admitted[1]);
	assert_true(g.bound[1] > g.admitted[0]);
	assert_true(g.bound[3] > g.admitted[1]);
	assert_true(g.bound[3] < g.admitted[0]); /* not held by w */
	assert_true(g.bound[5] < g.admitted[0]);
	assert_int_equal(g.bound[2], 0);
	assert_int_equal(call_at(f, BINDING("p2")), -1);
	assert_null(remote_body(f, API_KIND_POD, NS, "p2"));
	assert_true(kube_outbox_idle(f->ob));
}

static void test_intent_first(void **state)
{
	struct fx *f = *state;
	struct order o = { 0 };

	add_workload(f);
	kube_outbox_flush(f->ob, f->now); /* the mirror event only */
	assert_true(kube_outbox_idle(f->ob));
	/* Binds before the admission in the store's order, even; and the
	 * admission's first tries fail. */
	faults(f, 1, 500, "/workloads/");
	bind(f, "p1", "n1");
	bind(f, "p2", "n1");
	update(f, API_KIND_WORKLOAD, NS, "w", admit, NULL);
	bind(f, "p3", "n2");
	bind(f, "p4", "n2");
	for (int i = 0; i < 5; i++) {
		turn(f);
		f->now += 200000;
	}
	assert_int_equal(count_calls(f, "POST "), 0);
	faults(f, 0, 0, NULL);
	settle(f);
	assert_int_equal(api_store_events(f->remote, 0, see_order, &o), 0);
	assert_true(o.intent_rv > 0);
	assert_true(o.first_bind_rv > o.intent_rv);
	for (int i = 1; i <= 4; i++)
		assert_int_equal(o.binds[i], 1);
	/* The custom resource's status went as a JSON merge patch. */
	assert_int_equal(count_calls(f, "PATCH /apis/kueue.x-k8s.io/v1beta2/"
					"namespaces/default/workloads/w/"
					"status {\"status\":{\"admission\""),
			 1);
	assert_string_equal(f->calls.items[0],
			    "PATCH /apis/kueue.x-k8s.io/v1beta2/namespaces/"
			    "default/workloads/w/status "
			    "{\"status\":{\"admission\":{\"clusterQueue\":"
			    "\"cq\",\"podSetAssignments\":[{\"name\":"
			    "\"main\",\"flavors\":{\"nvidia.com/gpu\":\"f\"},"
			    "\"count\":4}]}}}");
}

static int setup_v1beta1(void **state)
{
	int rc;

	hide = "kueue.x-k8s.io/v1beta2";
	rc = setup(state);
	hide = NULL;
	return rc;
}

static void run_time(json_t *body, const char *arg)
{
	json_t *st = json_object_get(body, "status");

	(void)arg;
	if (!st) {
		st = json_object();
		json_object_set_new(body, "status", st);
	}
	json_object_set_new(st, "accumulatedPastExecutionTimeSeconds",
			    json_integer(42));
}

/* A kind the server serves only at another version than its storage:
 * written there, in that version's shape. */
static void test_other_version(void **state)
{
	struct fx *f = *state;
	const json_t *st;

	add_workload(f);
	update(f, API_KIND_WORKLOAD, NS, "w", run_time, NULL);
	settle(f);
	assert_int_equal(f->calls.len, 1);
	assert_string_equal(f->calls.items[0],
			    "PATCH /apis/kueue.x-k8s.io/v1beta1/namespaces/"
			    "default/workloads/w/status {\"status\":{"
			    "\"accumulatedPastExexcutionTimeSeconds\":42}}");
	st = json_object_get(remote_body(f, API_KIND_WORKLOAD, NS, "w"),
			     "status");
	assert_int_equal(json_integer_value(json_object_get(
				 st, "accumulatedPastExecutionTimeSeconds")),
			 42);
}

/* Remote bodies older than what an answered write made of the object
 * are stale: a pod unbound after its bind, an older resourceVersion. */
static void test_stale(void **state)
{
	struct fx *f = *state;
	const struct api_kind *pk = kind(API_KIND_POD);
	json_t *unbound =
		json_deep_copy(remote_body(f, API_KIND_POD, NS, "p1"));
	json_t *before = json_deep_copy(remote_body(f, API_KIND_POD, NS, "p2"));
	json_t *other = json_deep_copy(unbound), *after;

	json_object_set_new(json_object_get(other, "metadata"), "uid",
			    json_string("another"));
	bind(f, "p1", "n1");
	update(f, API_KIND_POD, NS, "p2", set_label, "a");
	kube_outbox_flush(f->ob, f->now);
	assert_false(kube_outbox_stale(f->ob, pk, NS, "p1", unbound));
	kube_loop_run(f->l, f->now); /* answered; echoes not yet read */
	assert_true(kube_outbox_stale(f->ob, pk, NS, "p1", unbound));
	assert_false(kube_outbox_stale(f->ob, pk, NS, "p1", other));
	assert_false(kube_outbox_stale(f->ob, pk, NS, "p1",
				       remote_body(f, API_KIND_POD, NS, "p1")));
	after = json_deep_copy(remote_body(f, API_KIND_POD, NS, "p2"));
	assert_true(kube_outbox_stale(f->ob, pk, NS, "p2", before));
	assert_false(kube_outbox_stale(f->ob, pk, NS, "p2", after));
	assert_false(kube_outbox_stale(f->ob, pk, NS, "p3", before));
	/* Facts while the object lives: after the echoes as before. */
	settle(f);
	assert_true(kube_outbox_stale(f->ob, pk, NS, "p1", unbound));
	assert_true(kube_outbox_stale(f->ob, pk, NS, "p2", before));
	assert_false(kube_outbox_stale(f->ob, pk, NS, "p2",
				       remote_body(f, API_KIND_POD, NS, "p2")));
	json_decref(unbound);
	json_decref(before);
	json_decref(other);
	json_decref(after);
}

static void test_reset(void **state)
{
	struct fx *f = *state;

	bind(f, "p1", "n1");
	update(f, API_KIND_POD, NS, "p2", set_label, "a");
	kube_outbox_flush(f->ob, f->now);
	assert_false(kube_outbox_idle(f->ob));
	kube_outbox_reset(f->ob);
	assert_true(kube_outbox_idle(f->ob));
	assert_false(kube_outbox_pending(f->ob, kind(API_KIND_POD), NS, "p1"));
	settle(f);
	/* What was in flight was cancelled; nothing queued went. */
	assert_null(node_of(remote_body(f, API_KIND_POD, NS, "p1")));
	/* Later writes go, diffed against the store as reset saw it. */
	update(f, API_KIND_POD, NS, "p3", set_label, "b");
	settle(f);
	assert_int_equal(count_calls(f, "PATCH /api/v1/namespaces/default/"
					"pods/p3 "),
			 1);
	assert_null(json_object_get(
		json_object_get(remote_body(f, API_KIND_POD, NS, "p2"),
				"metadata"),
		"labels"));
}

/* A follower's turn: the reflector, and the outbox reading only. */
static int follow_turn(struct fx *f)
{
	int n;

	kube_reflect_run(f->r, f->now);
	kube_outbox_follow(f->ob);
	n = kube_loop_run(f->l, f->now);
	kube_reflect_run(f->r, f->now);
	f->now += 100000;
	return n;
}

/* A follower's outbox reads every change and sends none; elected, its
 * writes are diffs from the store as it followed it, as after a reset,
 * without one; queued writes make a follow a reset. */
static void test_follow(void **state)
{
	struct fx *f = *state;
	json_t *body = json_deep_copy(remote_body(f, API_KIND_POD, NS, "p3"));
	const json_t *p3;

	set_label(body, "remote");
	assert_int_equal(api_store_update(f->remote, kind(API_KIND_POD), body,
					  0, f->now, NULL),
			 0);
	update(f, API_KIND_POD, NS, "p2", set_label, "a");
	for (int i = 0; i < 20; i++)
		follow_turn(f);
	assert_true(kube_outbox_idle(f->ob));
	assert_int_equal(f->calls.len, 0);
	/* elected: a later change goes, diffed against the mirrored p3 */
	update(f, API_KIND_POD, NS, "p3", set_label, "local");
	settle(f);
	assert_int_equal(count_calls(f, "PATCH /api/v1/namespaces/default/"
					"pods/p3 "),
			 1);
	assert_int_equal(count_calls(f, "PATCH /api/v1/namespaces/default/"
					"pods/p2 "),
			 0);
	p3 = remote_body(f, API_KIND_POD, NS, "p3");
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(p3, "metadata"),
					"labels"),
			"echelon.dev/x")),
		"local");
	assert_null(json_object_get(
		json_object_get(remote_body(f, API_KIND_POD, NS, "p2"),
				"metadata"),
		"labels"));
	/* queued writes, then a follow: cancelled, as by a reset */
	bind(f, "p1", "n1");
	kube_outbox_flush(f->ob, f->now);
	assert_false(kube_outbox_idle(f->ob));
	kube_outbox_follow(f->ob);
	assert_true(kube_outbox_idle(f->ob));
	settle(f);
	assert_null(node_of(remote_body(f, API_KIND_POD, NS, "p1")));
}

static void test_metrics(void **state)
{
	struct fx *f = *state;
	struct strbuf out;

	bind(f, "p1", "n1");
	update(f, API_KIND_POD, NS, "p2", set_label, "a");
	kube_outbox_flush(f->ob, f->now);
	kube_loop_run(f->l, f->now);
	f->now += 30000; /* the answer is seen 30 ms later */
	settle(f);
	strbuf_init(&out);
	kube_outbox_metrics(f->ob, &out);
	testutil_assert_line(
		out.buf, "echelon_kube_bind_seconds_bucket{le=\"0.025\"} 0");
	testutil_assert_line(out.buf,
			     "echelon_kube_bind_seconds_bucket{le=\"0.05\"} 1");
	testutil_assert_line(out.buf, "echelon_kube_writes_total{result=\"ok\","
				      "verb=\"bind\"} 1");
	testutil_assert_line(out.buf, "echelon_kube_writes_total{result=\"ok\","
				      "verb=\"patch\"} 1");
	testutil_assert_line(out.buf, "echelon_kube_binds_total 1");
	testutil_assert_line(out.buf, "echelon_kube_writes_queued 0");
	testutil_assert_line(out.buf, "echelon_kube_bind_seconds_count 1");
	strbuf_release(&out);
}

static void faults(struct fx *f, double fail, int code, const char *only)
{
	struct kube_loop_faults lf = {
		.seed = 7, .fail = fail, .fail_code = code, .only = only
	};

	kube_loop_set_faults(f->l, fail > 0 ? &lf : NULL);
}

/* Transient failures of binds and status writes are retried through:
 * every pod ends bound once, each status as written. */
static void test_faults_transient(void **state)
{
	static const int codes[] = { 500, 429 };
	struct fx *f = *state;
	struct order o = { 0 };

	for (size_t c = 0; c < 2; c++) {
		faults(f, 0.5, codes[c], NULL);
		for (int i = 1 + 4 * (int)c; i <= 4 + 4 * (int)c; i++) {
			char name[16], node[16];

			snprintf(name, sizeof(name), "p%d", i);
			snprintf(node, sizeof(node), "n%d", 1 + i % 4);
			bind(f, name, node);
		}
		update(f, API_KIND_POD, NS, c ? "p1" : "p5", set_label, "z");
		settle(f);
	}
	faults(f, 0, 0, NULL);
	assert_int_equal(api_store_events(f->remote, 0, see_order, &o), 0);
	for (int i = 1; i <= 8; i++) {
		char name[16], node[16];

		snprintf(name, sizeof(name), "p%d", i);
		snprintf(node, sizeof(node), "n%d", 1 + i % 4);
		assert_int_equal(o.binds[i], 1);
		assert_string_equal(
			node_of(remote_body(f, API_KIND_POD, NS, name)), node);
	}
	assert_int_equal(f->logged, 0);
}

static const char *replica_node(struct fx *f, const char *name)
{
	const struct api_obj *o =
		api_store_get(f->replica, kind(API_KIND_POD), NS, name);

	return o ? node_of(o->body) : NULL;
}

/* A bind refused for good: read again, sent again while the pod is
 * there unbound, five times more at most; then only the scheduler's own
 * binds go. Each refusal is logged and counted. */
static void test_bind_retries(void **state)
{
	static const int codes[] = { 409, 404 };
	struct fx *f = *state;
	struct strbuf out;

	for (size_t c = 0; c < 2; c++) {
		const char *name = c ? "p2" : "p1";
		char prefix[96];

		faults(f, 1, codes[c], "/binding");
		bind(f, name, "n1");
		update(f, API_KIND_POD, NS, "p3", set_label, c ? "b" : "a");
		settle(f);
		snprintf(prefix, sizeof(prefix),
			 "POST /api/v1/namespaces/default/pods/%s/binding ",
			 name);
		assert_int_equal(count_calls(f, prefix), 6);
		assert_int_equal(f->logged, 6 * (c + 1));
		assert_null(node_of(remote_body(f, API_KIND_POD, NS, name)));
		/* The replica shows the truth: not bound. */
		assert_null(replica_node(f, name));
	}
	faults(f, 0, 0, NULL);
	strbuf_init(&out);
	kube_outbox_metrics(f->ob, &out);
	testutil_assert_line(out.buf, "echelon_kube_writes_total{result="
				      "\"refused\",verb=\"bind\"} 12");
	testutil_assert_line(out.buf, "echelon_kube_bind_retries_total 10");
	testutil_assert_line(out.buf, "echelon_kube_writes_total{result=\"ok\","
				      "verb=\"patch\"} 2");
	strbuf_release(&out);
	/* The scheduler binds it again itself: that goes. */
	bind(f, "p1", "n2");
	settle(f);
	assert_string_equal(node_of(remote_body(f, API_KIND_POD, NS, "p1")),
			    "n2");
}

/* A bind refused once is sent again and ends bound, once. */
static void test_bind_retry_succeeds(void **state)
{
	struct fx *f = *state;
	struct order o = { 0 };

	faults(f, 1, 409, "/binding");
	bind(f, "p1", "n3");
	turn(f);
	assert_int_equal(f->logged, 1);
	faults(f, 0, 0, NULL);
	settle(f);
	assert_int_equal(count_calls(f, "POST "), 2);
	assert_string_equal(node_of(remote_body(f, API_KIND_POD, NS, "p1")),
			    "n3");
	assert_string_equal(replica_node(f, "p1"), "n3");
	assert_int_equal(api_store_events(f->remote, 0, see_order, &o), 0);
	assert_int_equal(o.binds[1], 1);
}

/* A pod deleted in the cluster before its bind: the replica loses it,
 * and nothing is sent again. */
static void test_bind_pod_gone(void **state)
{
	struct fx *f = *state;

	bind(f, "p1", "n1");
	kube_outbox_flush(f->ob, f->now);
	assert_int_equal(api_store_delete(f->remote, kind(API_KIND_POD), NS,
					  "p1", 0, f->now),
			 0);
	settle(f);
	assert_int_equal(count_calls(f, "POST "), 1);
	assert_int_equal(f->logged, 1);
	assert_null(api_store_get(f->replica, kind(API_KIND_POD), NS, "p1"));
	assert_true(kube_outbox_idle(f->ob));
}

/* A refused status write: logged once, not sent again, and the replica
 * reads the object again (the condition the cluster does not have is
 * gone). */
static void test_refused_status(void **state)
{
	struct fx *f = *state;

	faults(f, 1, 422, "/status");
	update(f, API_KIND_POD, NS, "p3", set_waiting, "WaitingForQuota");
	settle(f);
	faults(f, 0, 0, NULL);
	assert_int_equal(count_calls(f, "PATCH "), 1);
	assert_int_equal(f->logged, 1);
	assert_null(cond_reason(remote_body(f, API_KIND_POD, NS, "p3"),
				"PodScheduled"));
	assert_null(cond_reason(
		api_store_get(f->replica, kind(API_KIND_POD), NS, "p3")->body,
		"PodScheduled"));
}

/* 409 "already assigned" to the target node is success; to another
 * node it is a refusal. */
static void test_bound_already(void **state)
{
	struct fx *f = *state;
	const struct api_obj *o;
	struct errbuf eb;

	for (int i = 1; i <= 2; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		o = api_store_get(f->remote, kind(API_KIND_POD), NS, name);
		assert_int_equal(api_bind(f->remote, NS, name, o->uid,
					  i == 1 ? "n2" : "n3", f->now, &eb),
				 0);
		bind(f, name, "n2");
	}
	settle(f);
	assert_int_equal(f->logged, 1);
	assert_int_equal(count_calls(f, "POST "), 2);
	assert_string_equal(node_of(remote_body(f, API_KIND_POD, NS, "p2")),
			    "n3");
}

/* json_equal(), with two missing members equal. */
static bool same(const json_t *a, const json_t *b)
{
	return a == b || json_equal(a, b);
}

/* Gated random runs: each Workload's generation of its record (label
 * echelon.dev/x "gN") as the replica last wrote it, and per pod p1..p4
 * the generation its bind waits for (its Workload's at the end of the
 * turn that bound it: records follow binds within a turn). */
struct gens {
	int now[2], want[5];
	int remote[2];
	bool bad;
};

static int gen_of(const json_t *body)
{
	const char *v = json_string_value(json_object_get(
		json_object_get(json_object_get(body, "metadata"), "labels"),
		"echelon.dev/x"));

	return v && v[0] == 'g' ? atoi(v + 1) : 0;
}

/* Over the remote's history: no pod of a Workload bound before the
 * record its bind waited for. */
static int see_gens(void *ctx, const struct api_event *ev)
{
	struct gens *g = ctx;
	const json_t *body =
		ev->type == API_DELETED ? NULL : api_event_body(ev);

	if (ev->kind == kind(API_KIND_WORKLOAD) && body)
		g->remote[strcmp(ev->name, "w") != 0] = gen_of(body);
	if (ev->kind == kind(API_KIND_POD) && body && node_of(body)) {
		int i = atoi(ev->name + 1);

		if (i >= 1 && i <= 4 && g->want[i] > g->remote[i > 2])
			g->bad = true;
	}
	return 0;
}

/* Seeded random writes under faults: the remote ends as the replica
 * wrote it (transient faults), and never binds a pod twice or to a node
 * the replica did not choose (any faults). Gated (f->gated), Workloads
 * w and w2 record pods p1, p2 and p3, p4 and are written at random too:
 * with transient faults, no pod is bound in the remote before the record
 * its bind waited for. */
static void random_run(struct fx *f, unsigned long long seed, int code)
{
	struct kube_loop_faults lf = { .seed = seed,
				       .fail = 0.3,
				       .fail_code = code };
	struct order o = { 0 };
	struct gens g = { 0 };
	struct rng rng;
	bool exact = code != 0; /* only transient faults */

	rng_seed(&rng, seed);
	if (f->gated) {
		add_workload_named(f, "w");
		add_workload_named(f, "w2");
	}
	kube_loop_set_faults(f->l, &lf);
	for (int t = 0; t < 60; t++) {
		int ops = 1 + (int)rng_below(&rng, 4);
		bool bound[5] = { 0 };

		for (int k = 0; f->gated && k < 2; k++) {
			char v[16];

			/* under refusals a refresh may lose it a while */
			if (rng_below(&rng, 3) ||
			    !api_store_get(f->replica, kind(API_KIND_WORKLOAD),
					   NS, k ? "w2" : "w"))
				continue;
			snprintf(v, sizeof(v), "g%d", ++g.now[k]);
			update(f, API_KIND_WORKLOAD, NS, k ? "w2" : "w",
			       set_label, v);
		}

		for (int k = 0; k < ops; k++) {
			char name[16], node[16], v[16];
			const struct api_obj *p;

			snprintf(name, sizeof(name), "p%d",
				 1 + (int)rng_below(&rng, 8));
			snprintf(node, sizeof(node), "n%d",
				 1 + (int)rng_below(&rng, 4));
			snprintf(v, sizeof(v), "v%d", (int)rng_below(&rng, 3));
			p = api_store_get(f->replica, kind(API_KIND_POD), NS,
					  name);
			if (!p)
				continue;
			switch (rng_below(&rng, 10)) {
			case 0:
			case 1:
			case 2:
				if (node_of(p->body))
					break;
				bind(f, name, node);
				if (name[1] <= '4')
					bound[name[1] - '0'] = true;
				break;
			case 3:
			case 4:
				if (!node_of(p->body))
					update(f, API_KIND_POD, NS, name,
					       set_waiting,
					       v[1] == '0' ? "WaitingForQuota"
							   : "Unschedulable");
				break;
			case 5:
				if (t > 50)
					assert_int_equal(
						api_store_delete(
							f->replica,
							kind(API_KIND_POD), NS,
							name, 0, f->now),
						0);
				break;
			default:
				update(f, API_KIND_POD, NS, name, set_label, v);
				break;
			}
		}
		for (int i = 1; i <= 4; i++)
			if (bound[i])
				g.want[i] = g.now[i > 2];
		turn(f);
		f->now += 50000 + (int64_t)rng_below(&rng, 200000);
	}
	settle(f);
	kube_loop_set_faults(f->l, NULL);
	assert_int_equal(api_store_events(f->remote, 0, see_order, &o), 0);
	assert_int_equal(api_store_events(f->remote, 0, see_gens, &g), 0);
	assert_true(!exact || !g.bad);
	/* With transient faults only, no bind is ever sent twice: the
	 * replica never shows the scheduler its own bind undone by an older
	 * remote version (kube_reflect's stale(), kube_outbox_stale()). */
	for (int i = 1; exact && i <= 8; i++) {
		char path[64];
		unsigned sent = 0;

		snprintf(path, sizeof(path),
			 "POST /api/v1/namespaces/%s/pods/p%d/binding", NS, i);
		vec_foreach (&f->calls, c)
			sent += strncmp(*c, path, strlen(path)) == 0;
		assert_true(sent <= 1);
	}
	for (int i = 1; i <= 8; i++) {
		char name[16];
		const json_t *r, *l;
		const struct api_obj *lo;

		snprintf(name, sizeof(name), "p%d", i);
		r = remote_body(f, API_KIND_POD, NS, name);
		lo = api_store_get(f->replica, kind(API_KIND_POD), NS, name);
		l = lo ? lo->body : NULL;
		assert_true(o.binds[i] <= 1);
		if (!r || !l) {
			assert_true(!exact || (!r && !l));
			continue;
		}
		if (node_of(r))
			assert_string_equal(node_of(r), node_of(l) ?: "");
		if (!exact)
			continue;
		assert_string_equal(node_of(r) ?: "", node_of(l) ?: "");
		assert_true(same(json_object_get(json_object_get(r, "metadata"),
						 "labels"),
				 json_object_get(json_object_get(l, "metadata"),
						 "labels")));
		if (!node_of(l))
			assert_string_equal(
				cond_reason(r, "PodScheduled") ?: "",
				cond_reason(l, "PodScheduled") ?: "");
	}
	assert_true(kube_outbox_idle(f->ob));
}

/* Many seeds of the transient run, each on a fresh fixture: the bind
 * never sent twice holds on every one (without the stale-body check some
 * of these seeds bind a pod again). */
static void test_random_sweep(void **state)
{
	void *f = NULL;

	(void)state;
	for (unsigned long long seed = 100; seed < SWEEP_SEEDS; seed++) {
		assert_int_equal(setup(&f), 0);
		((struct fx *)f)->gated = seed % 4 >= 2;
		random_run(f, seed, seed % 2 ? 500 : 429);
		assert_int_equal(teardown(&f), 0);
	}
}

static void test_random_transient(void **state)
{
	random_run(*state, 11, 500);
}

static void test_random_429(void **state)
{
	random_run(*state, 12, 429);
}

static void test_random_mixed(void **state)
{
	random_run(*state, 13, 0);
}

static void test_random_gated(void **state)
{
	struct fx *f = *state;

	f->gated = true;
	random_run(f, 14, 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_and_labels, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_coalesce, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_and_delete, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gated_per_gang, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_events_after_binds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_event_recreated, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_create_then_delete, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_intent_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_other_version,
						setup_v1beta1, teardown),
		cmocka_unit_test_setup_teardown(test_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_faults_transient, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_retries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_retry_succeeds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bind_pod_gone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused_status, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bound_already, setup,
						teardown),
		cmocka_unit_test(test_random_sweep),
		cmocka_unit_test_setup_teardown(test_random_transient, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_random_429, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_random_mixed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_random_gated, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

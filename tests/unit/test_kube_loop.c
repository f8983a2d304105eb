// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the in-process transport: replies of the real api, watch
 * streams line by line, retries of transient failures within the budget
 * and none for permanent ones, injected faults (a 410 in a stream, a
 * dropped stream), and cancel from inside a callback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "base/alloc.h"
#include "kube/kube_loop.h"

#define T0 1796130000000000LL

struct fx {
	struct api_store *s;
	struct api *a;
	struct kube_loop *l;
	struct kube_transport tr;
	int64_t now;
};

struct got {
	int done, code, lines;
	unsigned tries;
	char last[512];
	char body[2048];
	uint64_t cancel; /* id to cancel from the line callback */
	struct kube_transport *tr;
};

static void on_done(void *ctx, const struct kube_reply *r)
{
	struct got *g = ctx;

	g->done++;
	g->code = r->code;
	g->tries = r->tries;
	snprintf(g->body, sizeof(g->body), "%s", r->body ? r->body : "");
}

static int on_line(void *ctx, const char *line, size_t len)
{
	struct got *g = ctx;

	g->lines++;
	snprintf(g->last, sizeof(g->last), "%.*s", (int)len, line);
	if (g->cancel)
		kube_cancel(g->tr, g->cancel);
	return 0;
}

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct api_store_options o = { .history = 64 };
	struct api_hooks h = { .git_version = "v1.35.0" };

	f->s = api_store_new(&o);
	f->a = api_new(f->s, &h);
	f->l = kube_loop_new(f->a);
	f->tr = kube_loop_transport(f->l);
	f->now = T0;
	assert_int_equal(api_store_create(f->s, api_kind_at(API_KIND_NAMESPACE),
					  json_pack("{s{ss}}", "metadata",
						    "name", "default"),
					  T0, NULL),
			 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	kube_loop_free(f->l);
	api_free(f->a);
	api_store_free(f->s);
	free(f);
	return 0;
}

static uint64_t send(struct fx *f, const char *method, const char *path,
		     const char *body, unsigned flags, struct got *g)
{
	struct kube_call c = { .method = method,
			       .path = path,
			       .body = body,
			       .len = body ? strlen(body) : 0,
			       .flags = flags,
			       .retry_us = 3000000 };

	g->tr = &f->tr;
	return kube_send(&f->tr, &c, on_done,
			 (flags & KUBE_STREAM) ? on_line : NULL, g);
}

/* Run the loop, advancing the clock to each due time, at most steps. */
static void settle(struct fx *f, int steps)
{
	for (int i = 0; i < steps; i++) {
		int64_t next = kube_loop_next_us(f->l);

		kube_loop_run(f->l, f->now);
		next = kube_loop_next_us(f->l);
		if (next == INT64_MAX || next > f->now + 10000000)
			break;
		if (next > f->now)
			f->now = next;
	}
}

static void test_reply(void **state)
{
	struct fx *f = *state;
	struct got g = { 0 }, h = { 0 };

	send(f, "POST", "/api/v1/nodes",
	     "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	     "\"metadata\":{\"name\":\"n1\"}}",
	     0, &g);
	assert_int_equal(g.done, 0); /* never before run() */
	kube_loop_run(f->l, f->now);
	assert_int_equal(g.done, 1);
	assert_int_equal(g.code, 201);
	send(f, "GET", "/api/v1/nodes/n1", NULL, KUBE_RETRY, &h);
	kube_loop_run(f->l, f->now);
	assert_int_equal(h.code, 200);
	assert_non_null(strstr(h.body, "\"n1\""));
	memset(&h, 0, sizeof(h));
	send(f, "GET", "/api/v1/nodes/nope", NULL, KUBE_RETRY, &h);
	settle(f, 20);
	assert_int_equal(h.code, 404); /* permanent: not retried */
	assert_int_equal(h.tries, 1);
	assert_int_equal(kube_loop_active(f->l), 0);
}

static void test_retry(void **state)
{
	struct fx *f = *state;
	struct kube_loop_faults fl = { .seed = 3,
				       .fail = 1.0,
				       .fail_code = 500 };
	struct got g = { 0 };

	kube_loop_set_faults(f->l, &fl);
	send(f, "GET", "/api/v1/nodes", NULL, KUBE_RETRY, &g);
	settle(f, 100);
	assert_int_equal(g.done, 1);
	assert_int_equal(g.code, 500); /* the budget (3 s) ran out */
	assert_true(g.tries > 3);
	kube_loop_set_faults(f->l, NULL);
	memset(&g, 0, sizeof(g));
	fl.fail = 1.0;
	fl.fail_code = 429;
	kube_loop_set_faults(f->l, &fl);
	send(f, "GET", "/api/v1/nodes", NULL, KUBE_RETRY, &g);
	kube_loop_run(f->l, f->now);
	assert_int_equal(g.done, 0);
	/* Retry-After: not again before a second. */
	assert_true(kube_loop_next_us(f->l) >= f->now + 1000000);
	kube_loop_set_faults(f->l, NULL);
	settle(f, 10);
	assert_int_equal(g.code, 200);
	assert_int_equal(g.tries, 2);
}

static void test_watch(void **state)
{
	struct fx *f = *state;
	struct got w = { 0 }, g = { 0 };
	struct kube_loop_faults fl = { .seed = 1, .expire = 1.0 };

	send(f, "GET", "/api/v1/nodes?watch=1&resourceVersion=0", NULL,
	     KUBE_STREAM, &w);
	kube_loop_run(f->l, f->now);
	assert_int_equal(w.lines, 0);
	send(f, "POST", "/api/v1/nodes",
	     "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	     "\"metadata\":{\"name\":\"n2\"}}",
	     0, &g);
	kube_loop_run(f->l, f->now);
	kube_loop_run(f->l, f->now);
	assert_int_equal(w.lines, 1);
	assert_non_null(strstr(w.last, "\"ADDED\""));
	kube_loop_set_faults(f->l, &fl);
	memset(&g, 0, sizeof(g));
	send(f, "DELETE", "/api/v1/nodes/n2", NULL, 0, &g);
	kube_loop_run(f->l, f->now);
	kube_loop_run(f->l, f->now);
	assert_int_equal(g.code, 200);
	assert_int_equal(w.lines, 2);
	assert_non_null(strstr(w.last, "\"code\":410"));
	assert_int_equal(w.done, 1);
	assert_int_equal(kube_loop_active(f->l), 0);
}

static void test_cancel_in_callback(void **state)
{
	struct fx *f = *state;
	struct got w = { 0 }, g = { 0 };

	w.cancel =
		send(f, "GET", "/api/v1/nodes?watch=1", NULL, KUBE_STREAM, &w);
	send(f, "POST", "/api/v1/nodes",
	     "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	     "\"metadata\":{\"name\":\"n3\"}}",
	     0, &g);
	kube_loop_run(f->l, f->now);
	kube_loop_run(f->l, f->now);
	assert_int_equal(w.lines, 1);
	assert_int_equal(w.done, 0); /* cancelled: no callback */
	assert_int_equal(kube_loop_active(f->l), 0);
}

static void test_drop(void **state)
{
	struct fx *f = *state;
	struct got w = { 0 }, g = { 0 };
	struct kube_loop_faults fl = { .seed = 1, .drop = 1.0 };

	kube_loop_set_faults(f->l, &fl);
	send(f, "GET", "/api/v1/nodes?watch=1", NULL, KUBE_STREAM, &w);
	send(f, "POST", "/api/v1/nodes",
	     "{\"apiVersion\":\"v1\",\"kind\":\"Node\","
	     "\"metadata\":{\"name\":\"n4\"}}",
	     0, &g);
	kube_loop_run(f->l, f->now);
	kube_loop_run(f->l, f->now);
	assert_int_equal(w.lines, 1);
	assert_int_equal(w.done, 1);
	assert_int_equal(w.code, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_in_callback, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_drop, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

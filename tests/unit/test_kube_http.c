// SPDX-License-Identifier: Apache-2.0
/*
 * The libcurl transport against a real server in the same process: serve's
 * HTTP layer answering from a struct api over an api_store, as `echelon
 * serve` does, on 127.0.0.1, both loops driven here. Round trips, a watch
 * stream's lines, retries (429 with Retry-After, 500 until retry_us, 404
 * never), the rate limit on a clock the test moves, cancels from inside
 * callbacks, a stream whose server goes away, TLS with a CA, a client
 * certificate, a server name and a bearer token, a rotated token file,
 * and the metrics.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "base/alloc.h"
#include "kube/kube_http.h"
#include "serve/serve_http.h"
#include "serve/serve_tls.h"

#define WALL_US (1796126400LL * 1000000) /* the API's clock: 2026-12-01 */

struct fx {
	struct api_store *store;
	struct api *api;
	struct serve_http *srv;
	struct kube_target target;
	struct kube_http *h;
	struct kube_transport tr;
	int64_t clock_off_us; /* kube_http's clock: real + offset... */
	bool frozen;	      /* ...or frozen at frozen_us */
	int64_t frozen_us;
	/* Faults: answer inject_code to paths starting with inject_path,
	 * inject_left times (-1: always). */
	const char *inject_path;
	int inject_code, inject_left, injected;
};

static struct fx fx;

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t kube_clock(void)
{
	return fx.frozen ? fx.frozen_us : mono_us() + fx.clock_off_us;
}

static void handle(void *ctx, const struct api_req *r, int64_t now_us,
		   struct api_resp *resp)
{
	(void)ctx;
	if (fx.inject_path && fx.inject_left != 0 &&
	    strncmp(r->path, fx.inject_path, strlen(fx.inject_path)) == 0) {
		if (fx.inject_left > 0)
			fx.inject_left--;
		fx.injected++;
		memset(resp, 0, sizeof(*resp));
		strbuf_init(&resp->body);
		api_resp_status(resp, fx.inject_code, "InternalError",
				"injected");
		return;
	}
	api_handle(fx.api, r, now_us, resp);
}

static const struct serve_http_ops ops = {
	.handle = handle,
	.watch_next = api_watch_next,
	.watch_deadline_us = api_watch_deadline_us,
	.watch_free = api_watch_free,
};

/* One turn of both loops, as the daemon's would: each runs when its fd
 * is ready or its timeout has passed (at most 5 ms of sleep). */
static void turn(void)
{
	struct pollfd p[2] = { { .fd = kube_http_fd(fx.h), .events = POLLIN },
			       { .fd = -1, .events = POLLIN } };
	int t = kube_http_timeout_ms(fx.h, kube_clock());
	int st = -1;

	if (fx.srv) {
		p[1].fd = serve_http_fd(fx.srv);
		st = serve_http_timeout_ms(fx.srv);
	}
	if (t < 0 || t > 5)
		t = 5;
	if (st >= 0 && st < t)
		t = st;
	poll(p, 2, t);
	if (fx.srv) {
		serve_http_run(fx.srv, WALL_US, mono_us());
		if (serve_http_holding(fx.srv))
			serve_http_commit(fx.srv, true);
		serve_http_pump(fx.srv, WALL_US);
	}
	kube_http_run(fx.h, kube_clock());
}

/* Turn until *flag or 5 s of wall time; true when *flag. */
static bool until(const unsigned *counter, unsigned want)
{
	int64_t end = mono_us() + 5000000;

	while (*counter < want && mono_us() < end)
		turn();
	return *counter >= want;
}

/* Turn for ms of wall time. */
static void idle(int ms)
{
	int64_t end = mono_us() + ms * 1000;

	while (mono_us() < end)
		turn();
}

static void start_client(const struct kube_http_options *extra)
{
	struct kube_http_options o = { .target = &fx.target, .seed = 7 };
	struct errbuf err;

	if (extra)
		o = *extra;
	o.target = &fx.target;
	assert_int_equal(kube_http_new(&o, &fx.h, &err), 0);
	fx.tr = kube_http_transport(fx.h);
}

static void start(const struct serve_http_options *so,
		  const struct kube_http_options *ko)
{
	struct api_store_options opt = { .history = 1000 };
	struct serve_http_options o = { .addr = "127.0.0.1" };
	struct errbuf err;

	memset(&fx, 0, sizeof(fx));
	if (so)
		o = *so;
	fx.store = api_store_new(&opt);
	fx.api = api_new(fx.store, NULL);
	assert_int_equal(serve_http_new(&o, &ops, &fx.srv, &err), 0);
	fx.target.server =
		xasprintf("%s://127.0.0.1:%u", o.cert_pem ? "https" : "http",
			  serve_http_port(fx.srv));
	start_client(ko);
}

static void stop(void)
{
	kube_http_free(fx.h);
	serve_http_free(fx.srv);
	api_free(fx.api);
	api_store_free(fx.store);
	kube_target_free(&fx.target);
}

/* What the callbacks saw. */
struct seen {
	unsigned done, lines, tries;
	int code;
	char body[4096];
	char error[256];
	int64_t retry_after_us;
	char line[8][256];
	int close_after;	   /* line(): return 1 after this many */
	int cancel_after;	   /* line(): cancel own_id after this many */
	uint64_t own_id, other_id; /* done(): cancel other_id */
	unsigned order[16];	   /* done(): ids in order */
};

static void on_done(void *ctx, const struct kube_reply *r)
{
	struct seen *s = ctx;

	s->done++;
	s->code = r->code;
	s->tries = r->tries;
	s->retry_after_us = r->retry_after_us;
	snprintf(s->body, sizeof(s->body), "%s", r->body ? r->body : "");
	snprintf(s->error, sizeof(s->error), "%s", r->error ? r->error : "");
	if (s->other_id)
		kube_cancel(&fx.tr, s->other_id);
}

static int on_line(void *ctx, const char *line, size_t len)
{
	struct seen *s = ctx;

	if (s->lines < 8)
		snprintf(s->line[s->lines], sizeof(s->line[0]), "%.*s",
			 (int)len, line);
	s->lines++;
	if (s->cancel_after && s->lines == (unsigned)s->cancel_after)
		kube_cancel(&fx.tr, s->own_id);
	return s->close_after && s->lines >= (unsigned)s->close_after;
}

static uint64_t call(const char *method, const char *path, const char *body,
		     unsigned flags, struct seen *s)
{
	struct kube_call c = {
		.method = method,
		.path = path,
		.body = body,
		.len = body ? strlen(body) : 0,
		.flags = flags,
		.retry_us = 3000000,
	};

	if (strcmp(method, "PATCH") == 0)
		c.content_type = "application/merge-patch+json";
	return kube_send(&fx.tr, &c, on_done,
			 (flags & KUBE_STREAM) ? on_line : NULL, s);
}

static void test_round_trips(void **state)
{
	static const struct {
		const char *method, *path, *body;
		int code;
		const char *want;
	} steps[] = {
		{ "POST", "/api/v1/namespaces",
		  "{\"metadata\":{\"name\":\"team-a\"}}", 201,
		  "\"name\":\"team-a\"" },
		{ "GET", "/api/v1/namespaces/team-a", NULL, 200,
		  "\"kind\":\"Namespace\"" },
		{ "PATCH", "/api/v1/namespaces/team-a",
		  "{\"metadata\":{\"labels\":{\"tier\":\"gpu\"}}}", 200,
		  "\"tier\":\"gpu\"" },
		{ "GET", "/api/v1/namespaces?labelSelector=tier%3Dgpu", NULL,
		  200, "\"team-a\"" },
		{ "POST", "/api/v1/namespaces",
		  "{\"metadata\":{\"name\":\"team-a\"}}", 409,
		  "AlreadyExists" },
		{ "DELETE", "/api/v1/namespaces/team-a", NULL, 200, "" },
	};

	(void)state;
	start(NULL, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		struct seen s = { 0 };

		call(steps[i].method, steps[i].path, steps[i].body, KUBE_RETRY,
		     &s);
		/* send() never calls back before it returns */
		assert_int_equal(s.done, 0);
		assert_true(until(&s.done, 1));
		if (s.code != steps[i].code || !strstr(s.body, steps[i].want))
			fail_msg("step %zu: %d %s", i, s.code, s.body);
		assert_int_equal(s.tries, 1);
	}
	assert_int_equal(kube_http_active(fx.h), 0);
	stop();
}

/* 404 is final; 500 is retried until retry_us, then given up; 500 twice
 * then an answer succeeds on the third try. */
static void test_retries(void **state)
{
	struct seen s = { 0 };
	int64_t t0;

	(void)state;
	start(NULL, NULL);
	call("GET", "/api/v1/namespaces/nope", NULL, KUBE_RETRY, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 404);
	assert_int_equal(s.tries, 1);

	fx.inject_path = "/api/v1/namespaces";
	fx.inject_code = 500;
	fx.inject_left = 2;
	memset(&s, 0, sizeof(s));
	call("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"b\"}}",
	     KUBE_RETRY, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 201);
	assert_int_equal(s.tries, 3);
	assert_int_equal(fx.injected, 2);

	/* Always 500: tries at about 0, 0.1, 0.3, 0.7 s: given up at 0.5 s
	 * before the fourth. */
	fx.inject_left = -1;
	fx.injected = 0;
	memset(&s, 0, sizeof(s));
	{
		struct kube_call c = { .method = "GET",
				       .path = "/api/v1/namespaces/b",
				       .flags = KUBE_RETRY,
				       .retry_us = 500000 };

		t0 = mono_us();
		kube_send(&fx.tr, &c, on_done, NULL, &s);
	}
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 500);
	assert_true(s.tries >= 2 && s.tries <= 3);
	assert_int_equal((unsigned)fx.injected, s.tries);
	assert_true(mono_us() - t0 < 500000 + 200000);

	/* Without KUBE_RETRY a 500 is final. */
	memset(&s, 0, sizeof(s));
	call("GET", "/api/v1/namespaces/b", NULL, 0, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 500);
	assert_int_equal(s.tries, 1);
	stop();
}

/* serve's own per-client limit answers 429 with Retry-After: 1; the call
 * is sent again after a second, not after the 100 ms backoff. */
static void test_retry_after(void **state)
{
	struct serve_http_options so = { .addr = "127.0.0.1",
					 .rate = 2,
					 .burst = 1 };
	struct seen a = { 0 }, b = { 0 };
	int64_t t0;

	(void)state;
	start(&so, NULL);
	call("GET", "/api/v1/namespaces", NULL, KUBE_RETRY, &a);
	assert_true(until(&a.done, 1));
	assert_int_equal(a.code, 200);
	t0 = mono_us();
	call("GET", "/api/v1/namespaces", NULL, KUBE_RETRY, &b);
	assert_true(until(&b.done, 1));
	assert_int_equal(b.code, 200);
	assert_int_equal(b.tries, 2);
	assert_true(mono_us() - t0 >= 1000000);

	/* Without retries the 429 and its Retry-After reach done(). */
	memset(&b, 0, sizeof(b));
	call("GET", "/api/v1/namespaces", NULL, 0, &b);
	assert_true(until(&b.done, 1));
	assert_int_equal(b.code, 429);
	assert_int_equal(b.retry_after_us, 1000000);
	stop();
}

/* Lines of a watch while objects are created; line() closing it; a
 * watch refused with a plain reply. */
static void test_watch(void **state)
{
	struct seen w = { 0 }, c = { 0 };
	char path[128];

	(void)state;
	start(NULL, NULL);
	snprintf(path, sizeof(path),
		 "/api/v1/namespaces?watch=true&resourceVersion=%llu",
		 (unsigned long long)api_store_rv(fx.store));
	call("GET", path, NULL, KUBE_STREAM | KUBE_NO_LIMIT, &w);
	idle(50);
	for (int i = 0; i < 3; i++) {
		char body[64];

		snprintf(body, sizeof(body),
			 "{\"metadata\":{\"name\":\"n%d\"}}", i);
		memset(&c, 0, sizeof(c));
		call("POST", "/api/v1/namespaces", body, 0, &c);
		assert_true(until(&c.done, 1));
		assert_int_equal(c.code, 201);
	}
	assert_true(until(&w.lines, 3));
	assert_int_equal(w.done, 0);
	for (int i = 0; i < 3; i++) {
		char want[32];

		snprintf(want, sizeof(want), "\"name\":\"n%d\"", i);
		assert_non_null(strstr(w.line[i], "{\"type\":\"ADDED\""));
		assert_non_null(strstr(w.line[i], want));
		assert_null(strchr(w.line[i], '\n'));
	}
	assert_int_equal(kube_http_active(fx.h), 1);

	/* line() returning non-zero closes the stream: done(0, "closed"). */
	memset(&w, 0, sizeof(w));
	w.close_after = 2;
	call("GET", "/api/v1/namespaces?watch=true&resourceVersion=0", NULL,
	     KUBE_STREAM, &w);
	assert_true(until(&w.done, 1));
	assert_int_equal(w.lines, 2);
	assert_int_equal(w.code, 0);
	assert_string_equal(w.error, "closed");

	/* A watch refused (410 for a too old version is in-stream; a bad
	 * request is a plain reply): done() gets the Status. */
	memset(&w, 0, sizeof(w));
	call("GET", "/api/v1/namespaces?watch=true&labelSelector=%3D%3D", NULL,
	     KUBE_STREAM, &w);
	assert_true(until(&w.done, 1));
	assert_int_equal(w.code, 400);
	assert_int_equal(w.lines, 0);
	assert_non_null(strstr(w.body, "\"kind\":\"Status\""));
	stop();
}

/* A stream whose server goes away ends with done(0, why). */
static void test_stream_dropped(void **state)
{
	struct seen w = { 0 }, c = { 0 };

	(void)state;
	start(NULL, NULL);
	call("GET", "/api/v1/namespaces?watch=true&resourceVersion=0", NULL,
	     KUBE_STREAM | KUBE_NO_LIMIT | KUBE_RETRY, &w);
	call("POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"x\"}}", 0,
	     &c);
	assert_true(until(&w.lines, 1));
	serve_http_free(fx.srv);
	fx.srv = NULL;
	assert_true(until(&w.done, 1));
	assert_int_equal(w.code, 0);
	assert_true(w.error[0] != '\0');
	assert_int_equal(w.tries, 1);
	assert_int_equal(kube_http_active(fx.h), 0);

	/* Nothing listens: a call without retries fails at once, one with
	 * retries gives up after retry_us. */
	memset(&c, 0, sizeof(c));
	call("GET", "/api/v1/namespaces", NULL, 0, &c);
	assert_true(until(&c.done, 1));
	assert_int_equal(c.code, 0);
	assert_non_null(strstr(c.error, "onnect"));
	memset(&c, 0, sizeof(c));
	{
		struct kube_call kc = { .method = "GET",
					.path = "/api/v1/namespaces",
					.flags = KUBE_RETRY,
					.retry_us = 300000 };

		kube_send(&fx.tr, &kc, on_done, NULL, &c);
	}
	assert_true(until(&c.done, 1));
	assert_int_equal(c.code, 0);
	assert_true(c.tries >= 2);
	stop();
}

/* Cancels from inside callbacks: a stream cancelling itself from line(),
 * a done() cancelling another call in flight; neither calls back again. */
static void test_cancel_in_callback(void **state)
{
	struct seen w = { 0 }, a = { 0 }, b = { 0 }, c = { 0 };

	(void)state;
	start(NULL, NULL);
	for (int i = 0; i < 3; i++) {
		char body[64];

		snprintf(body, sizeof(body),
			 "{\"metadata\":{\"name\":\"m%d\"}}", i);
		memset(&c, 0, sizeof(c));
		call("POST", "/api/v1/namespaces", body, 0, &c);
		assert_true(until(&c.done, 1));
	}
	w.cancel_after = 2;
	w.own_id =
		call("GET", "/api/v1/namespaces?watch=true&resourceVersion=0",
		     NULL, KUBE_STREAM, &w);
	assert_true(until(&w.lines, 2));
	idle(50);
	assert_int_equal(w.lines, 2);
	assert_int_equal(w.done, 0);
	assert_int_equal(kube_http_active(fx.h), 0);

	/* b waits in a watch that never ends; a's done() cancels it. */
	b.own_id = call("GET", "/api/v1/namespaces?watch=true", NULL,
			KUBE_STREAM | KUBE_NO_LIMIT, &b);
	a.other_id = b.own_id;
	call("GET", "/api/v1/namespaces/m1", NULL, 0, &a);
	assert_true(until(&a.done, 1));
	assert_int_equal(a.code, 200);
	idle(50);
	assert_int_equal(b.done, 0);
	assert_int_equal(kube_http_active(fx.h), 0);

	/* Cancelled while queued: never sent. */
	memset(&a, 0, sizeof(a));
	kube_cancel(&fx.tr, call("GET", "/api/v1/namespaces", NULL, 0, &a));
	kube_cancel(&fx.tr, 999999); /* unknown: ignored */
	idle(30);
	assert_int_equal(a.done, 0);
	assert_int_equal(kube_http_active(fx.h), 0);
	stop();
}

/* qps 10, burst 2 on a clock the test moves: two calls at once, then one
 * per 100 ms, in the order sent; a KUBE_NO_LIMIT call passes the queue. */
static void test_rate_limit(void **state)
{
	struct kube_http_options ko = { .qps = 10, .burst = 2, .seed = 1 };
	struct seen s[6] = { { 0 } }, free_call = { 0 };
	unsigned finished = 0;

	(void)state;
	start(NULL, &ko);
	fx.frozen = true;
	fx.frozen_us = 1000000;
	for (int i = 0; i < 6; i++)
		call("GET", "/api/v1/namespaces", NULL, 0, &s[i]);
	call("GET", "/version", NULL, KUBE_NO_LIMIT, &free_call);
	assert_true(until(&free_call.done, 1));
	assert_int_equal(free_call.code, 200);
	idle(100);
	for (int i = 0; i < 6; i++)
		finished += s[i].done;
	assert_int_equal(finished, 2);
	assert_int_equal(s[0].done + s[1].done, 2);
	/* The next token is 100 ms away on kube_http's clock. */
	assert_int_equal(kube_http_timeout_ms(fx.h, fx.frozen_us), 100);
	for (int step = 0; step < 4; step++) {
		fx.frozen_us += 100000;
		assert_true(until(&s[2 + step].done, 1));
		idle(30);
		for (int i = 3 + step; i < 6; i++)
			assert_int_equal(s[i].done, 0);
	}
	assert_int_equal(kube_http_active(fx.h), 0);
	{
		struct strbuf m;

		strbuf_init(&m);
		kube_http_metrics(fx.h, &m);
		/* 4 calls waited 100, 200, 300, 400 ms */
		assert_non_null(strstr(m.buf, "echelon_kube_client_rate_limit_"
					      "wait_seconds_total 1\n"));
		assert_non_null(
			strstr(m.buf, "echelon_kube_client_requests_total{code="
				      "\"200\",verb=\"GET\"} 7\n"));
		assert_non_null(strstr(
			m.buf,
			"echelon_kube_client_request_duration_seconds_count{"
			"verb=\"GET\"} 7\n"));
		strbuf_release(&m);
	}
	stop();
}

/* TLS: serve's self-signed certificate as the CA, a bearer token, a
 * client certificate, and the name to verify given apart from the
 * address (tls-server-name). */
static void test_tls(void **state)
{
	char dir[] = "/tmp/echelon-khttp-XXXXXX";
	struct serve_secrets sec = { 0 };
	struct serve_http_options so = { .addr = "127.0.0.1" };
	struct errbuf err;
	struct seen s = { 0 }, w = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(serve_tls_load(dir, "127.0.0.1", WALL_US, &sec, &err),
			 0);
	so.cert_pem = sec.cert_pem;
	so.key_pem = sec.key_pem;
	so.token = sec.token;
	start(&so, NULL);
	kube_http_free(fx.h);
	fx.target.ca_pem = xstrdup(sec.cert_pem);
	fx.target.token = xstrdup(sec.token);
	fx.target.cert_pem = xstrdup(sec.cert_pem);
	fx.target.key_pem = xstrdup(sec.key_pem);
	start_client(NULL);
	/* A watch and a call sent together: the server speaks HTTP/1.1 only
	 * (ALPN), so the call does not wait behind the stream. */
	call("GET", "/api/v1/namespaces?watch=true", NULL,
	     KUBE_STREAM | KUBE_NO_LIMIT, &w);
	call("GET", "/api/v1/namespaces", NULL, 0, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 200);
	assert_non_null(strstr(s.body, "NamespaceList"));
	assert_int_equal(w.done, 0);

	/* Verified against the name "localhost", connecting to 127.0.0.1. */
	kube_http_free(fx.h);
	fx.target.tls_server_name = xstrdup("localhost");
	start_client(NULL);
	memset(&s, 0, sizeof(s));
	call("GET", "/version", NULL, 0, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 200);

	/* A name the certificate does not hold fails verification. */
	kube_http_free(fx.h);
	free(fx.target.tls_server_name);
	fx.target.tls_server_name = xstrdup("elsewhere.example");
	start_client(NULL);
	memset(&s, 0, sizeof(s));
	call("GET", "/version", NULL, 0, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 0);

	/* A wrong token: 401, not retried. */
	kube_http_free(fx.h);
	free(fx.target.tls_server_name);
	fx.target.tls_server_name = NULL;
	free(fx.target.token);
	fx.target.token = xstrdup("wrong");
	start_client(NULL);
	memset(&s, 0, sizeof(s));
	call("GET", "/api/v1/namespaces", NULL, KUBE_RETRY, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 401);
	assert_int_equal(s.tries, 1);
	stop();
	serve_secrets_release(&sec);
	{
		static const char *const names[] = { "token", "tls.crt",
						     "tls.key" };

		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			char *p = xasprintf("%s/%s", dir, names[i]);

			unlink(p);
			free(p);
		}
		rmdir(dir);
	}
}

static unsigned many_done, many_ok;

static void on_many(void *ctx, const struct kube_reply *r)
{
	(void)ctx;
	many_done++;
	many_ok += r->code == 201;
}

/* More calls than curl is handed at once (two connections: one): each
 * completion lets the next one go; none is lost or stuck. */
static void test_many_calls(void **state)
{
	struct kube_http_options ko = { .max_connections = 2, .seed = 3 };
	enum { N = 300 };

	(void)state;
	start(NULL, &ko);
	many_done = many_ok = 0;
	for (int i = 0; i < N; i++) {
		char body[64];
		struct kube_call c = { .method = "POST",
				       .path = "/api/v1/namespaces",
				       .body = body,
				       .flags = KUBE_RETRY };

		snprintf(body, sizeof(body),
			 "{\"metadata\":{\"name\":\"p%d\"}}", i);
		c.len = strlen(body);
		kube_send(&fx.tr, &c, on_many, NULL, NULL);
	}
	assert_int_equal(kube_http_active(fx.h), N);
	assert_true(until(&many_done, N));
	assert_int_equal(many_ok, N);
	assert_int_equal(kube_http_active(fx.h), 0);
	assert_int_equal(
		api_store_count(fx.store, api_kind_at(API_KIND_NAMESPACE)), N);
	stop();
}

/* A token file is read again when it changes (at most once a second of
 * the loop's clock): a rotated token is used without a restart. */
static void test_token_rotation(void **state)
{
	struct serve_http_options so = { .addr = "127.0.0.1",
					 .token = "new-token" };
	char path[] = "/tmp/echelon-khttp-token-XXXXXX";
	int fd = mkstemp(path);
	struct seen s = { 0 };

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old-token\n", 10), 10);
	close(fd);
	start(&so, NULL);
	kube_http_free(fx.h);
	fx.target.token = xstrdup("old-token");
	fx.target.token_file = xstrdup(path);
	start_client(NULL);
	call("GET", "/api/v1/namespaces", NULL, 0, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 401);

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "new-token\n", 10), 10);
	close(fd);
	{
		/* A different mtime even on a coarse clock. */
		struct timespec ts[2] = { { .tv_sec = 1 }, { .tv_sec = 1 } };

		assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	}
	fx.clock_off_us += 2000000;
	memset(&s, 0, sizeof(s));
	call("GET", "/api/v1/namespaces", NULL, 0, &s);
	assert_true(until(&s.done, 1));
	assert_int_equal(s.code, 200);
	stop();
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_retries),
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_stream_dropped),
		cmocka_unit_test(test_cancel_in_callback),
		cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_tls),
		cmocka_unit_test(test_token_rotation),
		cmocka_unit_test(test_many_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The HTTP layer of `echelon serve` over a real loopback socket, with a
 * stand-in for the API defined here: requests decoded (path, raw query,
 * body), replies held until the commit, 413 before the body is read
 * (Expect: 100-continue, or absurd sizes) or after it is read and dropped, the
 * bearer token, the per-client rate limit with Retry-After, watch
 * streams and their limit, health and metrics.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "serve/serve_http.h"

/* The stand-in's watch: one line per event published since it began. */
struct api_watch {
	unsigned seen;
};

static unsigned published; /* events the stand-in's "store" has */
static bool watches_end;
static unsigned watches_freed;

static void stand_in(void *ctx, const struct api_req *r, int64_t now_us,
		     struct api_resp *resp)
{
	(void)ctx;
	(void)now_us;
	memset(resp, 0, sizeof(*resp));
	strbuf_init(&resp->body);
	resp->content_type = "text/plain";
	resp->code = 200;
	if (strcmp(r->path, "/write") == 0) {
		resp->code = 201;
		resp->wrote = true;
		strbuf_addstr(&resp->body, "created");
	} else if (strcmp(r->path, "/watch") == 0) {
		resp->watch = xcalloc(1, sizeof(*resp->watch));
		resp->watch->seen = published;
		strbuf_addstr(&resp->body, "begin\n");
	} else {
		strbuf_addf(&resp->body, "%s %s ?%s [%zu:%.*s] accept=%s",
			    r->method, r->path, r->query ? r->query : "",
			    r->body_len, (int)r->body_len,
			    r->body ? r->body : "",
			    r->accept ? r->accept : "-");
	}
}

static int stand_in_next(struct api_watch *w, int64_t now_us,
			 struct strbuf *out)
{
	(void)now_us;
	for (; w->seen < published; w->seen++)
		strbuf_addf(out, "event %u\n", w->seen + 1);
	return watches_end ? 0 : 1;
}

static int64_t stand_in_deadline(const struct api_watch *w)
{
	(void)w;
	return INT64_MAX;
}

static void stand_in_free(struct api_watch *w)
{
	watches_freed++;
	free(w);
}

static void stand_in_metrics(void *ctx, struct strbuf *out)
{
	(void)ctx;
	strbuf_addstr(out, "stand_in_metric 1\n");
}

static bool unready; /* what the stand-in's ready() says, negated */

static bool stand_in_ready(void *ctx)
{
	(void)ctx;
	return !unready;
}

static const struct serve_http_ops ops = {
	.handle = stand_in,
	.watch_next = stand_in_next,
	.watch_deadline_us = stand_in_deadline,
	.watch_free = stand_in_free,
	.metrics = stand_in_metrics,
	.ready = stand_in_ready,
};

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* One turn as the daemon's loop does it: libmicrohttpd runs only when its
 * epoll fd is ready or its own timeout has passed, so a stream that
 * waits for a wake-up that never comes fails the test. */
static void run(struct serve_http *h)
{
	struct pollfd p = { .fd = serve_http_fd(h), .events = POLLIN };
	int t = serve_http_timeout_ms(h);

	if (poll(&p, 1, t < 0 || t > 20 ? 20 : t) == 0 && (t < 0 || t > 20))
		return;
	serve_http_run(h, 0, mono_us());
}

static int dial(const struct serve_http *h)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_port = htons(serve_http_port(h));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void send_str(int fd, const char *s)
{
	size_t n = strlen(s);

	assert_int_equal(send(fd, s, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* Read into sb, running the server, until needle appears (or EOF when
 * needle is NULL) or 3 s pass. True when it did. */
static bool read_until(struct serve_http *h, int fd, struct strbuf *sb,
		       const char *needle)
{
	int64_t end = mono_us() + 3000000;
	char buf[4096];

	while (mono_us() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (needle && strstr(sb->buf, needle))
			return true;
		run(h);
		if (poll(&p, 1, 0) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0)
			return !needle;
		if (n < 0)
			return false;
		strbuf_add(sb, buf, (size_t)n);
	}
	return needle && strstr(sb->buf, needle);
}

/* One request on its own connection; the whole reply. */
static char *request(struct serve_http *h, const char *req)
{
	struct strbuf sb;
	int fd = dial(h);
	char *reply;

	strbuf_init(&sb);
	send_str(fd, req);
	assert_true(read_until(h, fd, &sb, NULL));
	close(fd);
	reply = strbuf_take(&sb);
	strbuf_release(&sb); /* take leaves sb initialised, with a buffer */
	return reply;
}

static struct serve_http *server(const struct serve_http_options *extra)
{
	struct serve_http_options o = { .addr = "127.0.0.1" };
	struct serve_http *h = NULL;
	struct errbuf err;

	if (extra)
		o = *extra;
	assert_int_equal(serve_http_new(&o, &ops, &h, &err), 0);
	assert_true(serve_http_port(h) > 0);
	published = 0;
	watches_end = false;
	return h;
}

struct exchange {
	const char *req;
	const char *want[3]; /* substrings of the reply, NULL ends */
};

static void test_requests(void **state)
{
	static const struct exchange table[] = {
		{ "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: "
		  "close\r\n\r\n",
		  { "HTTP/1.1 200", "\r\n\r\nok" } },
		{ "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: "
		  "close\r\n\r\n",
		  { "HTTP/1.1 200", "\r\n\r\nok" } },
		{ "GET /api/v1/nodes?limit=500&labelSelector=a%3Db%2Cc "
		  "HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n"
		  "Connection: close\r\n\r\n",
		  { "HTTP/1.1 200",
		    "GET /api/v1/nodes ?limit=500&labelSelector=a%3Db%2Cc "
		    "[0:] accept=application/json" } },
		{ "GET /api/v1/namespaces/a%2Fb HTTP/1.1\r\nHost: x\r\n"
		  "Connection: close\r\n\r\n",
		  { "GET /api/v1/namespaces/a/b ?" } },
		{ "PATCH /api/v1/nodes/n HTTP/1.1\r\nHost: x\r\n"
		  "Content-Type: application/merge-patch+json\r\n"
		  "Content-Length: 7\r\nConnection: close\r\n\r\n{\"a\":1}",
		  { "PATCH /api/v1/nodes/n ? [7:{\"a\":1}]" } },
		{ "POST /api/v1/pods HTTP/1.1\r\nHost: x\r\n"
		  "Content-Length: 4000000\r\nExpect: 100-continue\r\n"
		  "Connection: close\r\n\r\n",
		  { "HTTP/1.1 413", "\"reason\":\"RequestEntityTooLarge\"",
		    "\"code\":413" } },
		{ "POST /api/v1/pods HTTP/1.1\r\nHost: x\r\n"
		  "Content-Length: 40000000\r\nConnection: close\r\n\r\n",
		  { "HTTP/1.1 413", "\"reason\":\"RequestEntityTooLarge\"",
		    "\"code\":413" } },
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: "
		  "close\r\n\r\n",
		  { "echelon_serve_requests_total{verb=\"POST\",code=\"413\"} "
		    "2",
		    "echelon_serve_refused_total{reason=\"body\"} 2",
		    "stand_in_metric 1" } },
	};
	struct serve_http *h = server(NULL);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		char *reply = request(h, table[i].req);

		for (size_t j = 0; j < 3 && table[i].want[j]; j++) {
			if (!strstr(reply, table[i].want[j]))
				fail_msg("request %zu: no \"%s\" in:\n%s", i,
					 table[i].want[j], reply);
		}
		free(reply);
	}
	serve_http_free(h);
}

/* /readyz follows ops->ready (a replica not yet synced); /healthz and
 * /livez do not. */
static void test_readyz(void **state)
{
	static const struct {
		bool unready;
		const char *path, *want;
	} table[] = {
		{ true, "/readyz", "HTTP/1.1 503" },
		{ true, "/healthz", "HTTP/1.1 200" },
		{ true, "/livez", "HTTP/1.1 200" },
		{ false, "/readyz", "HTTP/1.1 200" },
	};
	struct serve_http *h = server(NULL);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		char *req = xasprintf("GET %s HTTP/1.1\r\nHost: x\r\n"
				      "Connection: close\r\n\r\n",
				      table[i].path);
		char *reply;

		unready = table[i].unready;
		reply = request(h, req);
		if (strncmp(reply, table[i].want, strlen(table[i].want)))
			fail_msg("%zu: %s: want %s, got:\n%s", i, table[i].path,
				 table[i].want, reply);
		free(reply);
		free(req);
	}
	unready = false;
	serve_http_free(h);
}

/* Send len bytes of buf while the server runs; false if it closed. */
static bool send_running(struct serve_http *h, int fd, const char *buf,
			 size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0)
			off += (size_t)n;
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			return false;
		run(h);
	}
	return true;
}

/* Read the reply on fd: a 413. Closes fd. */
static void read_413(struct serve_http *h, int fd)
{
	struct strbuf sb;

	strbuf_init(&sb);
	assert_true(read_until(h, fd, &sb, "RequestEntityTooLarge"));
	assert_non_null(strstr(sb.buf, "HTTP/1.1 413"));
	close(fd);
	strbuf_release(&sb);
}

/* A chunked body past the limit (no Content-Length) is dropped: 413. */
static void test_chunked_too_large(void **state)
{
	struct serve_http *h = server(NULL);
	char *chunk = xmalloc(1 << 20);
	int fd = dial(h);

	(void)state;
	memset(chunk, 'x', 1 << 20);
	send_str(fd, "POST /api/v1/pods HTTP/1.1\r\nHost: x\r\n"
		     "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
	for (int i = 0; i < 4; i++) {
		send_str(fd, "100000\r\n");
		assert_true(send_running(h, fd, chunk, 1 << 20));
		send_str(fd, "\r\n");
	}
	send_str(fd, "0\r\n\r\n");
	read_413(h, fd);
	free(chunk);
	serve_http_free(h);
}

/* A body declared past the limit and sent at once, without waiting for
 * 100 Continue (as Go's clients do), can be sent whole: it is read and
 * dropped, then answered 413 (closing under it would reset the
 * connection, and the client would lose the 413). */
static void test_declared_too_large(void **state)
{
	struct serve_http *h = server(NULL);
	size_t len = 4u << 20;
	char *body = xmalloc(len), head[160];
	int fd = dial(h);

	(void)state;
	memset(body, 'x', len);
	snprintf(head, sizeof(head),
		 "POST /api/v1/pods HTTP/1.1\r\nHost: x\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		 len);
	send_str(fd, head);
	for (int i = 0; i < 20; i++)
		run(h); /* the headers are seen before the body comes */
	assert_true(send_running(h, fd, body, len));
	read_413(h, fd);
	free(body);
	serve_http_free(h);
}

/* A write is answered only after the commit; a failed commit is 500. */
static void test_held_until_commit(void **state)
{
	struct serve_http *h = server(NULL);
	const char *req = "POST /write HTTP/1.1\r\nHost: x\r\n"
			  "Content-Length: 2\r\nConnection: close\r\n\r\n{}";

	(void)state;
	for (int ok = 1; ok >= 0; ok--) {
		struct strbuf sb;
		int fd = dial(h);

		strbuf_init(&sb);
		send_str(fd, req);
		for (int i = 0; i < 50 && !serve_http_holding(h); i++)
			run(h);
		assert_true(serve_http_holding(h));
		for (int i = 0; i < 20; i++)
			run(h);
		assert_false(read_until(h, fd, &sb, "HTTP/1.1"));
		serve_http_commit(h, ok);
		assert_false(serve_http_holding(h));
		assert_true(read_until(h, fd, &sb, NULL));
		if (ok) {
			assert_non_null(strstr(sb.buf, "HTTP/1.1 201"));
			assert_non_null(strstr(sb.buf, "created"));
		} else {
			assert_non_null(strstr(sb.buf, "HTTP/1.1 500"));
			assert_non_null(strstr(sb.buf, "InternalError"));
		}
		close(fd);
		strbuf_release(&sb);
	}
	serve_http_free(h);
}

static void test_token(void **state)
{
	struct serve_http_options o = { .addr = "127.0.0.1",
					.token = "s3cret" };
	static const struct {
		const char *auth;
		const char *want;
	} table[] = {
		{ "", "HTTP/1.1 401" },
		{ "Authorization: Bearer wrong\r\n", "HTTP/1.1 401" },
		{ "Authorization: Bearer s3cre\r\n", "HTTP/1.1 401" },
		{ "Authorization: Bearer s3cret2\r\n", "HTTP/1.1 401" },
		{ "Authorization: Basic s3cret\r\n", "HTTP/1.1 401" },
		{ "Authorization: Bearer s3cret\r\n", "HTTP/1.1 200" },
	};
	/* The health checks answer anyone (a kubelet's probe has no
	 * token); everything else, /metrics included, needs it. */
	static const struct {
		const char *line;
		const char *want;
	} paths[] = {
		{ "GET /healthz", "HTTP/1.1 200" },
		{ "GET /readyz", "HTTP/1.1 200" },
		{ "GET /livez", "HTTP/1.1 200" },
		{ "GET /metrics", "HTTP/1.1 401" },
		{ "GET /healthz/x", "HTTP/1.1 401" },
		{ "GET /api/v1/namespaces/default/pods", "HTTP/1.1 401" },
		{ "POST /healthz", "HTTP/1.1 401" },
	};
	struct serve_http *h = server(&o);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		char req[256], *reply;

		snprintf(req, sizeof(req),
			 "%s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
			 "Connection: close\r\n\r\n",
			 paths[i].line);
		reply = request(h, req);
		if (!strstr(reply, paths[i].want))
			fail_msg("%s: want %s:\n%s", paths[i].line,
				 paths[i].want, reply);
		free(reply);
	}
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		char req[256], *reply;

		snprintf(req, sizeof(req),
			 "GET /api HTTP/1.1\r\nHost: x\r\n%sConnection: "
			 "close\r\n\r\n",
			 table[i].auth);
		reply = request(h, req);
		if (!strstr(reply, table[i].want))
			fail_msg("case %zu: want %s:\n%s", i, table[i].want,
				 reply);
		if (strstr(table[i].want, "401"))
			assert_non_null(strstr(reply, "\"Unauthorized\""));
		free(reply);
	}
	serve_http_free(h);
}

static void test_rate_limit(void **state)
{
	struct serve_http_options o = { .addr = "127.0.0.1",
					.rate = 0.5,
					.burst = 3 };
	struct serve_http *h = server(&o);
	const char *req = "GET /api HTTP/1.1\r\nHost: x\r\n"
			  "Connection: close\r\n\r\n";

	(void)state;
	for (int i = 0; i < 4; i++) {
		char *reply = request(h, req);

		if (i < 3) {
			assert_non_null(strstr(reply, "HTTP/1.1 200"));
		} else {
			assert_non_null(strstr(reply, "HTTP/1.1 429"));
			assert_non_null(strstr(reply, "Retry-After: 2"));
			assert_non_null(strstr(reply, "TooManyRequests"));
		}
		free(reply);
	}
	serve_http_free(h);
}

static void test_watch(void **state)
{
	struct serve_http_options o = { .addr = "127.0.0.1", .max_watches = 1 };
	struct serve_http *h = server(&o);
	const char *req = "GET /watch HTTP/1.1\r\nHost: x\r\n\r\n";
	struct strbuf sb;
	char *reply;
	int fd = dial(h);

	(void)state;
	watches_freed = 0;
	strbuf_init(&sb);
	send_str(fd, req);
	assert_true(read_until(h, fd, &sb, "begin\n"));
	assert_non_null(strstr(sb.buf, "Transfer-Encoding: chunked"));
	assert_int_equal(serve_http_watches(h), 1);
	/* The second watch is over the limit. */
	reply = request(h, "GET /watch HTTP/1.1\r\nHost: x\r\n"
			   "Connection: close\r\n\r\n");
	assert_non_null(strstr(reply, "HTTP/1.1 429"));
	free(reply);
	assert_int_equal(watches_freed, 1);
	/* Events reach the stream after a pump, in order. */
	published = 2;
	for (int i = 0; i < 5; i++)
		run(h);
	assert_null(strstr(sb.buf, "event 1"));
	serve_http_pump(h, 0);
	assert_true(read_until(h, fd, &sb, "event 2\n"));
	assert_true(strstr(sb.buf, "event 1\n") < strstr(sb.buf, "event 2\n"));
	for (unsigned e = 3; e <= 6; e++) {
		char want[32];

		published = e;
		serve_http_pump(h, 0);
		snprintf(want, sizeof(want), "event %u\n", e);
		assert_true(read_until(h, fd, &sb, want));
	}
	/* The end of the watch ends the chunked stream. */
	watches_end = true;
	serve_http_pump(h, 0);
	assert_true(read_until(h, fd, &sb, "\r\n0\r\n\r\n"));
	close(fd);
	for (int i = 0; i < 20 && serve_http_watches(h); i++)
		run(h);
	assert_int_equal(serve_http_watches(h), 0);
	assert_int_equal(watches_freed, 2);
	strbuf_release(&sb);
	serve_http_free(h);
}

/* Freeing the server with a watch open and a reply held ends both. */
static void test_free_with_open_streams(void **state)
{
	struct serve_http *h = server(NULL);
	struct strbuf sb;
	int fw = dial(h), fh = dial(h);

	(void)state;
	watches_freed = 0;
	strbuf_init(&sb);
	send_str(fw, "GET /watch HTTP/1.1\r\nHost: x\r\n\r\n");
	assert_true(read_until(h, fw, &sb, "begin\n"));
	send_str(fh, "POST /write HTTP/1.1\r\nHost: x\r\n"
		     "Content-Length: 0\r\n\r\n");
	for (int i = 0; i < 50 && !serve_http_holding(h); i++)
		run(h);
	assert_true(serve_http_holding(h));
	serve_http_free(h);
	assert_int_equal(watches_freed, 1);
	close(fw);
	close(fh);
	strbuf_release(&sb);
}

static void test_bad_address(void **state)
{
	struct serve_http_options o = { .addr = "localhost" };
	struct serve_http *h = NULL;
	struct errbuf err;

	(void)state;
	assert_int_equal(serve_http_new(&o, &ops, &h, &err), -EINVAL);
	assert_null(h);
	assert_non_null(strstr(err.msg, "numeric"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_readyz),
		cmocka_unit_test(test_chunked_too_large),
		cmocka_unit_test(test_declared_too_large),
		cmocka_unit_test(test_held_until_commit),
		cmocka_unit_test(test_token),
		cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_free_with_open_streams),
		cmocka_unit_test(test_bad_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

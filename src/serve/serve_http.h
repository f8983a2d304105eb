/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP side of `echelon serve`: libmicrohttpd in external-epoll mode,
 * driven by the daemon's loop. Each request is decoded into a struct
 * api_req and answered by ops->handle; a reply that changed the store is
 * held (its connection suspended) until serve_http_commit() says the
 * turn's group commit is durable; watch replies stream (chunked) from
 * what serve_http_pump() collects after each commit.
 *
 * Limits, all fixed when the server is made: request bodies (413 beyond
 * API_MAX_BODY, refused from Content-Length before any byte is read),
 * header memory, connections in all and per client address, open watches
 * (429), requests per client address and second (a token bucket: 429
 * with Retry-After), idle connection time, and the bytes a watch may have
 * waiting for a slow reader (the stream is closed beyond). With a token
 * set, every request but the probes (GET /healthz, /readyz, /livez) and
 * the dashboard page (GET /) needs "Authorization: Bearer TOKEN" (401
 * otherwise).
 *
 * With faults set (tests of clients), requests are failed, dropped or
 * delayed, and watches cut, as serve_faults.h describes, before
 * ops->handle sees them (an injected failure applies nothing); each
 * successful binding is then logged once durable, whether or not its
 * client is still there for the reply (info: "faults: bound
 * pod=NS/NAME node=NODE uid=UID"), so that a test can tell no pod was
 * bound twice.
 *
 * Served here, before ops->handle: /metrics (Prometheus text: requests by
 * verb and code, latency, connections, watches, refusals, then
 * ops->metrics), /metrics/dcgm (ops->dcgm_metrics: the embedded cluster's
 * simulated dcgm-exporter; 404 when NULL), /healthz and /livez ("ok"),
 * /readyz ("ok", or 503 while ops->ready says no).
 *
 * One thread: every function here, and every op, runs on the loop's
 * thread; ops never call back into this module.
 */
#ifndef ECHELON_SERVE_HTTP_H
#define ECHELON_SERVE_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "api/api.h"
#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"

struct serve_http_ops {
	/* Answer r at the embedded clock's now_us into *resp (the op
	 * initializes it); never fails: problems are Status replies. */
	void (*handle)(void *ctx, const struct api_req *r, int64_t now_us,
		       struct api_resp *resp);
	/* api_watch_next(), api_watch_deadline_us(), api_watch_free(). */
	int (*watch_next)(struct api_watch *w, int64_t now_us,
			  struct strbuf *out);
	int64_t (*watch_deadline_us)(const struct api_watch *w);
	void (*watch_free)(struct api_watch *w);
	/* Append more Prometheus text to /metrics; may be NULL. */
	void (*metrics)(void *ctx, struct strbuf *out);
	/* Write /metrics/dcgm; NULL: there is no such path. */
	void (*dcgm_metrics)(void *ctx, struct strbuf *out);
	/* Whether /readyz says ok (else 503); NULL: always. */
	bool (*ready)(void *ctx);
	void *ctx;
};

struct serve_http_options {
	const char *addr; /* numeric IPv4 or IPv6 address */
	uint16_t port;	  /* 0: any free port (serve_http_port()) */
	const char *cert_pem, *key_pem; /* both set: TLS */
	const char *token;		/* set: bearer token required */
	unsigned max_connections;	/* 0: 1,024 */
	unsigned max_per_client;	/* 0: 512 */
	unsigned max_watches;		/* 0: 1,000 */
	double rate;			/* requests/s per client; 0: 10,000 */
	double burst;			/* bucket size; 0: 2 * rate */
	unsigned timeout_s;		/* idle connections; 0: 300 */
	size_t header_memory;		/* per connection; 0: 64 KiB */
	size_t watch_buffer;		/* per watch; 0: 16 MiB */
	const char *faults; /* --faults SPEC (serve_faults.h) or NULL */
};

struct serve_http;
/* Listen as o says. Returns 0 and *ret, or a negative errno with a message
 * in err (a bad o->faults: -EINVAL). ops is borrowed and must outlive the
 * server. */
int serve_http_new(const struct serve_http_options *o,
		   const struct serve_http_ops *ops, struct serve_http **ret,
		   struct errbuf *err) MUST_CHECK;
/* Stop listening, close every connection (watches end), free. NULL ok. */
void serve_http_free(struct serve_http *h);
/* The port listened on. */
uint16_t serve_http_port(const struct serve_http *h);
/* The file descriptor to watch for input (libmicrohttpd's epoll fd). */
int serve_http_fd(const struct serve_http *h);
/* Accept, read, answer and write what is ready. now_us: the embedded
 * clock (for the API), mono_us: a monotonic clock (limits, latency). */
void serve_http_run(struct serve_http *h, int64_t now_us, int64_t mono_us);
/* True when replies are held for the next commit. */
bool serve_http_holding(const struct serve_http *h);
/* The turn's writes are durable (ok) or could not be written (the held
 * replies become 500): release the held replies. */
void serve_http_commit(struct serve_http *h, bool ok);
/* Collect the committed changes for every open watch, wake their
 * streams, and close the watches whose client went away. */
void serve_http_pump(struct serve_http *h, int64_t now_us);
/* The earliest embedded time a watch wants to run (INT64_MAX: none). */
int64_t serve_http_next_us(const struct serve_http *h);
/* How long libmicrohttpd may wait at most, in ms (-1: no limit). */
int serve_http_timeout_ms(const struct serve_http *h);
/* Open watch streams now. */
unsigned serve_http_watches(const struct serve_http *h);
/* Stop accepting connections (shutdown); the open ones go on. */
void serve_http_quiesce(struct serve_http *h);

#endif

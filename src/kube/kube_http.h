/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transport to a real API server (kube_transport.h): libcurl's multi
 * interface, driven from the daemon's epoll loop through one file
 * descriptor (an epoll set of curl's sockets) and a timeout. HTTP/2 over
 * TLS where the server offers it (one connection, many streams), else
 * HTTP/1.1 keep-alive connections, at most max_connections at once.
 * Bearer token (re-read from token_file when it changes) or client
 * certificate; the CA of the target. A token bucket limits requests
 * (qps, burst), except calls with KUBE_NO_LIMIT; a 429's Retry-After
 * holds that call for as long as the server asked.
 */
#ifndef ECHELON_KUBE_HTTP_H
#define ECHELON_KUBE_HTTP_H

#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "kube/kube_config.h"
#include "kube/kube_transport.h"

struct kube_http_options {
	const struct kube_target *target; /* borrowed, outlives the http */
	double qps;			  /* 0: 200 */
	double burst;			  /* 0: 400 */
	unsigned max_connections;	  /* 0: 256 */
	const char *user_agent;		  /* NULL: "echelon/VERSION" */
	unsigned long long seed;	  /* backoff jitter */
};

struct kube_http;
int kube_http_new(const struct kube_http_options *o, struct kube_http **ret,
		  struct errbuf *err) MUST_CHECK;
/* Cancel every call (no callbacks) and free. NULL ok. */
void kube_http_free(struct kube_http *h);
/* The transport interface over h (impl = h). */
struct kube_transport kube_http_transport(struct kube_http *h);
/* The file descriptor to wait on for input (an epoll fd of curl's
 * sockets, level-triggered: add it with EPOLLIN). */
int kube_http_fd(const struct kube_http *h);
/* How long the loop may sleep at most, in ms (-1: no limit); 0 while a
 * call waits to start (send() only queues: ask after the turn's sends). */
int kube_http_timeout_ms(const struct kube_http *h, int64_t mono_us);
/* Do what is ready: I/O, timeouts, retries due; callbacks run here.
 * mono_us: a monotonic clock. */
void kube_http_run(struct kube_http *h, int64_t mono_us);
/* Calls in flight or waiting (rate limit, backoff). */
unsigned kube_http_active(const struct kube_http *h);
/* Prometheus text: requests by verb and code, retries, rate-limit wait
 * seconds, latency (echelon_kube_client_*). */
void kube_http_metrics(const struct kube_http *h, struct strbuf *out);

#endif

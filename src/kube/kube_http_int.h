/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kube_http's insides, shared by kube_http.c (calls, queues, rate limit,
 * retries, the loop) and kube_http_easy.c (one try as a curl easy
 * handle, its body and lines, the credentials, curl's socket and timer
 * callbacks). Not for other modules.
 */
#ifndef ECHELON_KUBE_HTTP_INT_H
#define ECHELON_KUBE_HTTP_INT_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/metrics.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "kube/kube_http.h"

/* The longest stream line, and the largest whole reply, accepted. */
#define KUBE_HTTP_MAX_LINE (16u << 20)
#define KUBE_HTTP_MAX_BODY (512u << 20)
/* A stream that moves less than one byte in this long is dead (longer
 * than the API server's one-minute bookmark interval). */
#define KUBE_HTTP_STALL_S 120
/* Rate-limited calls handed to curl at once: half the connections
 * allowed (at least one). The other half is kept for the calls that
 * bypass the limit: the watches, each holding a connection over
 * HTTP/1.1, and the Lease's renewals, which must never queue inside
 * curl behind a burst of binds, where it could wait past the renew
 * deadline. */
#define KUBE_HTTP_LIMITED_SHARE 2

enum call_state {
	CALL_READY,   /* in h->ready: starts when the rate limit allows */
	CALL_BACKOFF, /* in h->backoff: ready again at due_us */
	CALL_RUNNING, /* an easy handle in the multi */
	CALL_DEAD,    /* in h->dead: freed when no callback is running */
};

struct call {
	struct call *prev, *next; /* h->calls: every call not dead */
	struct call *qnext;	  /* h->ready, h->backoff or h->dead */
	struct kube_http *h;
	uint64_t id;
	enum call_state state;
	char *method, *path, *content_type, *body;
	size_t len;
	unsigned flags;
	int64_t retry_us, timeout_us;
	kube_done_fn done;
	kube_line_fn line;
	void *ctx;
	int64_t first_us;  /* the first try began */
	int64_t queued_us; /* entered h->ready */
	int64_t start_us;  /* this try began */
	int64_t due_us;	   /* CALL_BACKOFF: when to try again */
	unsigned tries;
	/* This try. */
	CURL *easy;
	struct curl_slist *headers;
	struct strbuf in; /* the body, or a stream's partial line */
	bool streaming;	  /* a stream answered 200: lines flow */
	bool closed;	  /* line() asked to close */
	bool too_long;	  /* a line or body over its limit */
	bool cancelled;
	bool answered; /* a first header came */
	bool deferred; /* refused a new connection: another is opening */
	char curl_err[CURL_ERROR_SIZE];
};

struct kube_http {
	const struct kube_target *target;
	double qps, burst, tokens;
	int64_t refill_us; /* tokens last refilled (0: never) */
	unsigned max_connections;
	char *user_agent;
	char *base;		       /* the server URL requests go to */
	struct curl_slist *connect_to; /* SNI name -> real host */
	/* Credentials: the bearer header, and the token file's state. */
	char *auth;
	struct timespec token_mtime;
	int64_t token_checked_us;
	struct rng rng;
	CURLM *multi;
	bool curl_global; /* curl_global_init() called */
	int epfd;
	int64_t now_us;	      /* the clock of the current or last run */
	int64_t first_run_us; /* the clock of the first run (0: none yet) */
	int64_t curl_due_us;  /* curl's timer (INT64_MAX: none) */
	unsigned depth;	      /* inside run: frees are deferred */
	uint64_t next_id;
	unsigned active;     /* calls not dead */
	unsigned ready_free; /* KUBE_NO_LIMIT calls in h->ready */
	unsigned ready_limited;
	unsigned running; /* rate-limited calls in curl */
	unsigned max_running;
	/* HTTP/2: the last reply's protocol, and the call opening a new
	 * connection (the others wait for it). */
	bool multiplexed;
	struct call *opener;
	struct call *calls;
	struct call *ready, **ready_tail;
	struct call *backoff;
	struct call *dead;
	struct metrics *metrics;
	int m_requests, m_retries, m_wait, m_latency;
};

/* kube_http_easy.c */
int kube_http_curl_init(struct kube_http *h, struct errbuf *err) MUST_CHECK;
/* Start c's next try at h->now_us (an easy handle in the multi). */
void kube_http_easy_start(struct kube_http *h, struct call *c);
/* Take c's easy handle out of the multi and free this try's state. */
void kube_http_easy_stop(struct kube_http *h, struct call *c);
/* Re-read the token file when it changed (at most once a second). */
void kube_http_token_refresh(struct kube_http *h);

#endif

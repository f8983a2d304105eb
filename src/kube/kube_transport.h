/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seam between the Kubernetes backend and a Kubernetes API server:
 * one request at a time, answered later through a callback. Two
 * implementations: kube_http (libcurl, a real server over HTTP/1.1 or
 * HTTP/2) and kube_loop (an in-process struct api over a store: the
 * deterministic transport of the unit tests). The reflectors, the outbox
 * and the lease speak only this interface.
 *
 * One thread: send() never calls back before it returns; the callbacks
 * run inside the implementation's run function (kube_http_run,
 * kube_loop_run), on the daemon's loop thread. A callback may send new
 * calls and cancel any call, its own included.
 *
 * Retries belong to the transport: with KUBE_RETRY a transient failure
 * (no connection, a dropped one, 429, 500, 502, 503, 504) is sent again
 * after a jittered exponential backoff (100 ms doubling to 5 s, or the
 * server's Retry-After when longer) until retry_us has passed since the
 * first try; then done() gets the last failure. A permanent failure
 * (other 4xx) goes to done() at once.
 */
#ifndef ECHELON_KUBE_TRANSPORT_H
#define ECHELON_KUBE_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

enum {
	KUBE_RETRY = 1 << 0,	/* retry transient failures (above) */
	KUBE_STREAM = 1 << 1,	/* a watch: body lines go to line() */
	KUBE_NO_LIMIT = 1 << 2, /* bypass the client rate limit (lease,
				   watches: they must not queue behind
				   binds) */
};

/* One request. Every pointer is borrowed for the duration of send()
 * only: the transport copies what it keeps. */
struct kube_call {
	const char *method;	  /* "GET", "POST", "PUT", "PATCH", "DELETE" */
	const char *path;	  /* "/api/v1/pods?limit=500", query encoded */
	const char *content_type; /* NULL: application/json when a body */
	const char *body;	  /* NULL: none */
	size_t len;
	unsigned flags;	    /* KUBE_* */
	int64_t retry_us;   /* with KUBE_RETRY; 0: 30 s */
	int64_t timeout_us; /* whole call (not a stream); 0: 60 s */
};

/* The answer. Borrowed: valid during the callback only. */
struct kube_reply {
	int code;	  /* HTTP status; 0: no HTTP answer (transport) */
	const char *body; /* the whole body (not for streams), NUL-ended */
	size_t len;
	const char *error;	/* set when code is 0: what failed, one line */
	int64_t retry_after_us; /* Retry-After of a 429/503, else 0 */
	unsigned tries;		/* sends it took (1: the first) */
};

/* The end of a call: a full reply, or for a stream its end (code 200
 * when the server ended it normally, else the failure). */
typedef void (*kube_done_fn)(void *ctx, const struct kube_reply *r);
/* One line of a stream (a watch event), without its '\n'. Return
 * non-zero to close the stream (done() then gets code 0, error
 * "closed"). Lines longer than 16 MiB end the stream (code 0). */
typedef int (*kube_line_fn)(void *ctx, const char *line, size_t len);

struct kube_transport {
	/* Start c; done (and line for a stream) later. Returns an id > 0,
	 * never fails (a call that cannot start fails through done). */
	uint64_t (*send)(void *impl, const struct kube_call *c,
			 kube_done_fn done, kube_line_fn line, void *ctx);
	/* Forget call id: no callback for it after this returns; its
	 * connection or stream is closed. Unknown ids are ignored. */
	void (*cancel)(void *impl, uint64_t id);
	void *impl;
};

static inline uint64_t kube_send(const struct kube_transport *t,
				 const struct kube_call *c, kube_done_fn done,
				 kube_line_fn line, void *ctx)
{
	return t->send(t->impl, c, done, line, ctx);
}

static inline void kube_cancel(const struct kube_transport *t, uint64_t id)
{
	t->cancel(t->impl, id);
}

#endif

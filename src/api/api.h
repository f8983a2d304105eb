/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Kubernetes-compatible API of `echelon serve`, as a pure function
 * from a decoded HTTP request to a reply, over the object store: routing
 * of /api and /apis paths, /version, discovery (aggregated
 * apidiscovery.k8s.io/v2 when asked, legacy otherwise), the minimal
 * /openapi/v3, get, list (limit/continue, selectors, Table), create,
 * update, patch, delete (with propagation to dependents), the binding
 * subresource, and the start of watches, which the caller then pumps
 * with api_watch_next(). Errors are Status bodies.
 *
 * No I/O, no clock, no thread: the daemon (src/serve) owns the sockets,
 * the database and the clock, and calls api_handle() once per request.
 * Parsing of everything in the request (path, query, headers, body) holds
 * no authority and is fuzzed (fuzz/fuzz_api.c).
 *
 * Hooks let the daemon answer what the store alone cannot (Kueue's
 * visibility API, echelon's extras); a NULL hook answers 404.
 */
#ifndef ECHELON_API_H
#define ECHELON_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/api_store.h"
#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"

/* Largest request body accepted (413 beyond). */
#define API_MAX_BODY (3u << 20)
/* Deepest JSON nesting accepted in a body (400 beyond). */
#define API_MAX_DEPTH 64

struct api_req {
	const char *method; /* "GET", "POST", "PUT", "PATCH", "DELETE" */
	const char *path;   /* decoded path, no query */
	const char *query;  /* raw query string without '?', may be NULL */
	const char *accept; /* Accept header, may be NULL */
	const char *content_type;
	const char *body; /* may be NULL; need not be NUL-terminated */
	size_t body_len;
	const char *user_agent;
};

struct api_resp {
	int code;
	const char *content_type; /* static string */
	struct strbuf body;	  /* the reply body */
	char *warning;		  /* Warning header value or NULL (owned) */
	struct api_watch *watch;  /* set: stream this watch (owned) */
	bool wrote;		  /* the store changed (group commit first) */
};

struct api_hooks {
	/* Answer a path the store does not serve (visibility API, echelon's
	 * extras). Return 0 with resp filled, or -ENOENT (404). */
	int (*extra)(void *ctx, const struct api_req *r, int64_t now_us,
		     struct api_resp *resp);
	/* Mutating admission (Kueue's webhooks): called on create and
	 * update of obj (kind k, old: stored object or NULL) after decoding
	 * and before validation; may edit obj (e.g. suspend a queued Job).
	 * Return 0, or -EINVAL with a message in err to refuse (400). */
	int (*mutate)(void *ctx, const struct api_kind *k, json_t *obj,
		      const json_t *old, struct errbuf *err);
	void *ctx;
	const char *git_version; /* /version's gitVersion, e.g. "v1.35.0" */
};

struct api;
/* An API over store (borrowed). hooks may be NULL. Never NULL. */
struct api *api_new(struct api_store *s, const struct api_hooks *hooks);
void api_free(struct api *a);

/* Answer r at now_us into *resp (initialized by this call; release with
 * api_resp_release). Never fails: every problem is a Status reply. */
void api_handle(struct api *a, const struct api_req *r, int64_t now_us,
		struct api_resp *resp);
void api_resp_release(struct api_resp *resp);

/* A Status reply: code, reason ("NotFound", "Invalid"...), message. */
void api_resp_status(struct api_resp *resp, int code, const char *reason,
		     const char *fmt, ...) PRINTF_LIKE(4, 5);

/*
 * Bind pod ns/pod (uid: a precondition when non-NULL) to node, as the
 * binding subresource does: spec.nodeName set and PodScheduled=True.
 * -ENOENT (pod or node missing), -EEXIST (assigned to another node; to
 * the same node is success), -ECANCELED (uid differs), -EBUSY (the pod
 * has scheduling gates or is being deleted); a message in err. The one
 * implementation of binding: the API's and the embedded scheduler's.
 */
int api_bind(struct api_store *s, const char *ns, const char *pod,
	     const char *uid, const char *node, int64_t now_us,
	     struct errbuf *err) MUST_CHECK;

/*
 * Watches. api_watch_next() appends to out the newline-terminated events
 * since the watch's cursor that match its selectors (encoded as the
 * client asked: objects or one-row Tables), BOOKMARKs when allowed and
 * due, and the initial-events-end bookmark. Returns 1 while the watch
 * goes on, 0 when it has ended (timeoutSeconds reached: close the
 * stream), and ends with an ERROR 410 Expired event when the history no
 * longer holds its cursor.
 */
struct api_watch;
int api_watch_next(struct api_watch *w, int64_t now_us, struct strbuf *out);
/* When the watch next wants to run without a store change (bookmark,
 * timeout), or INT64_MAX. */
int64_t api_watch_deadline_us(const struct api_watch *w);
void api_watch_free(struct api_watch *w);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Injected API failures of `echelon serve --faults SPEC`, for tests of
 * clients (the Kubernetes backend, client libraries): with a seeded
 * probability a request is answered with an error instead of by the API
 * (nothing is applied: the client sees a true failure), its connection
 * is closed without a reply, its reply is delayed, or a watch ends early
 * with an ERROR 410 Expired event or a cut stream.
 *
 * SPEC is a comma-separated list of items, each at most once:
 *
 *   seed=N              the generator's seed (default 1)
 *   CLASS=P:CODE[|CODE] answer P of the requests of CLASS with one of
 *                       the codes, drawn uniformly; CLASS is bind (pod
 *                       binding subresource and legacy bindings),
 *                       status (PUT/PATCH of a status subresource),
 *                       write (other POST, PUT, PATCH, DELETE), watch
 *                       (refused at its start) or read (other GET);
 *                       CODE is 404, 409, 429 (with Retry-After: 1),
 *                       500, 503 or 504, with Kubernetes' Status reason
 *   watch410=P[:N]      end P of the watches with ERROR 410 Expired
 *                       after 0..N events (uniform; N default 10)
 *   drop=P[:N[:CLASSES]]
 *                       close P of the connections without a reply (a
 *                       watch: mid-stream, after 0..N events)
 *   slow=P:MS[:CLASSES] delay P of the replies by MS milliseconds
 *
 * CLASSES (CLASS[|CLASS...]) limits drop and slow to those classes;
 * without it they hit every class.
 *
 * P is a probability from 0 to 1. For each request the draws come in a
 * fixed order (drop, the class's codes, for a watch watch410, slow),
 * the first that hits wins, so a seed and the order of requests give
 * the same faults. /metrics, /healthz, /readyz and /livez are never
 * faulted.
 *
 * Pure: no I/O, no clock; the HTTP layer (serve_http.c) applies what
 * serve_faults_draw() decides.
 */
#ifndef ECHELON_SERVE_FAULTS_H
#define ECHELON_SERVE_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"

enum serve_fault_class {
	SERVE_FAULT_BIND,
	SERVE_FAULT_STATUS,
	SERVE_FAULT_WRITE,
	SERVE_FAULT_WATCH,
	SERVE_FAULT_READ,
	SERVE_FAULT_CLASS_COUNT
};

enum serve_fault_kind {
	SERVE_FAULT_NONE,
	SERVE_FAULT_REPLY,  /* answer code instead of the API */
	SERVE_FAULT_DROP,   /* close the connection (watch: after events) */
	SERVE_FAULT_SLOW,   /* answer after delay_us */
	SERVE_FAULT_EXPIRE, /* watch: ERROR 410 Expired after events */
};

struct serve_fault {
	enum serve_fault_kind kind;
	int code;	  /* SERVE_FAULT_REPLY */
	int64_t delay_us; /* SERVE_FAULT_SLOW */
	unsigned events;  /* watch DROP or EXPIRE: events sent before */
};

struct serve_faults;

/* Parse SPEC. Returns 0 and a new *ret, or -EINVAL with a message naming
 * the bad item in err (e.g. `item "bind=2:409": the probability must be
 * from 0 to 1`); nothing is allocated then. */
int serve_faults_parse(const char *spec, struct serve_faults **ret,
		       struct errbuf *err) MUST_CHECK;
/* NULL ok. */
void serve_faults_free(struct serve_faults *f);

/* The class of a request: method, path without the query, raw query
 * (NULL ok). */
enum serve_fault_class
serve_faults_classify(const char *method, const char *path, const char *query);
/* The name of a class as in SPEC and the metrics ("bind"...). */
const char *serve_faults_class_name(enum serve_fault_class c);

/* Draw the fault of one request of class c into *ret (kind NONE: none)
 * and count it for serve_faults_metrics(). */
void serve_faults_draw(struct serve_faults *f, enum serve_fault_class c,
		       struct serve_fault *ret);

/* The Status body of an injected reply of code to a request on path, as
 * Kubernetes words it (reason Conflict, NotFound, ...), into out
 * (appended). Returns the reason. */
const char *serve_faults_status(int code, const char *path, struct strbuf *out);
/* The ERROR 410 Expired event that ends a watch, newline included. */
void serve_faults_expired(struct strbuf *out);

/* A successful binding request (path and JSON body, len bytes) as
 * "pod=NS/NAME node=NODE uid=UID" ("-" for what the body does not say),
 * into out (appended): the cluster's record of what was bound. */
void serve_faults_binding(const char *path, const char *body, size_t len,
			  struct strbuf *out);

/* Note one successful binding (echelon_faults_bindings_total). */
void serve_faults_count_binding(struct serve_faults *f);

/* echelon_faults_injected_total{class,code} (code: the HTTP code, 410 for
 * expired watches, "drop" or "slow") and the bindings, appended. */
void serve_faults_metrics(const struct serve_faults *f, struct strbuf *out);

#endif

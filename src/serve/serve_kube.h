/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Kubernetes backend's side of `echelon serve` (--kubeconfig,
 * --in-cluster; docs/internals/kube.md). It owns the replica of the
 * remote cluster (an api_store kept by kube_reflect), the read-only API
 * over it, the transport (kube_http), the Lease (kube_lease) and, while
 * this replica leads, the scheduler (serve_sched over the replica) and
 * the outbox forwarding its writes (kube_outbox). There is no database,
 * no embedded cluster, and the clock is the wall clock.
 *
 * serve.c's loop drives it at its branch points: the descriptor and the
 * timeout to wait on, one run per turn (in place of the embedded
 * controllers), HTTP requests, /readyz, /metrics, and the stop. Every
 * function runs on the loop's thread.
 */
#ifndef ECHELON_SERVE_KUBE_H
#define ECHELON_SERVE_KUBE_H

#include <stdbool.h>
#include <stdint.h>

#include "api/api.h"
#include "api/api_store.h"
#include "base/compiler.h"
#include "base/strbuf.h"
#include "kube/kube_transport.h"
#include "serve/serve.h"

/* serve.c's log: one logfmt line (ts, level, msg, then kv). */
typedef void (*serve_log_fn)(const char *level, const char *msg, const char *kv,
			     ...) PRINTF_LIKE(3, 4);

struct serve_kube;
/*
 * Read the target (o->remote or o->in_cluster), check o's -f files,
 * make the replica, the API over it, the transport, reflectors, outbox
 * and Lease; nothing is sent before the first serve_kube_run(). Returns
 * 0 and *ret, or a negative errno with the message on stderr.
 */
int serve_kube_new(const struct serve_options *o, serve_log_fn log,
		   int64_t mono_us, struct serve_kube **ret) MUST_CHECK;
/* As serve_kube_new(), over the transport tr (borrowed; the tests'
 * kube_loop) instead of kube_http to o's target, named server in
 * messages: serve_kube_fd() is then -1 and the timeout is the caller's. */
int serve_kube_new_transport(const struct serve_options *o,
			     const struct kube_transport *tr,
			     const char *server, serve_log_fn log,
			     int64_t mono_us,
			     struct serve_kube **ret) MUST_CHECK;
/* Cancel every call and free everything, the replica too. NULL ok. */
void serve_kube_free(struct serve_kube *k);
/* The replica and the API over it (owned by k). */
struct api_store *serve_kube_store(const struct serve_kube *k);
struct api *serve_kube_api(const struct serve_kube *k);
/* The transport's descriptor to wait on for input. */
int serve_kube_fd(const struct serve_kube *k);
/* timeout_ms shortened to what the transport needs (-1: no limit). */
int serve_kube_timeout_ms(const struct serve_kube *k, int timeout_ms,
			  int64_t mono_us);
/* The earliest time to run again, on the clock of now_us (INT64_MAX:
 * none); mono_us is the same instant on the monotonic clock. */
int64_t serve_kube_next_us(const struct serve_kube *k, int64_t now_us,
			   int64_t mono_us);
/* One turn: transport, reflectors, Lease; once synced the -f objects;
 * on the leader the scheduler until quiet, then the outbox. */
void serve_kube_run(struct serve_kube *k, int64_t now_us, int64_t mono_us);
/* The daemon must stop with status 1 (a -f object refused). */
bool serve_kube_failed(const struct serve_kube *k);
/* Answer a client: reads of the replica; writes get 405. */
void serve_kube_handle(struct serve_kube *k, const struct api_req *r,
		       int64_t now_us, struct api_resp *resp);
/* The replica is synced (/readyz). */
bool serve_kube_ready(const struct serve_kube *k);
/* Prometheus text: the replica, transport, reflectors, outbox, Lease
 * and, on the leader, the scheduler. */
void serve_kube_metrics(const struct serve_kube *k, struct strbuf *out);
/* Stop: scheduling at once, then the outbox drains (5 s at most), then
 * the Lease is released. serve_kube_stopped() says when all is done. */
void serve_kube_stop(struct serve_kube *k, int64_t mono_us);
bool serve_kube_stopped(const struct serve_kube *k, int64_t mono_us);

#endif

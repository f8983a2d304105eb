/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scheduler's writes, forwarded to the API server. The scheduler
 * (serve_sched) writes to the local replica exactly as it does on the
 * embedded cluster; the outbox reads the store's changes that were not
 * mirrored (api_event.mirror false) and sends each to the server:
 *
 *   - a Pod whose spec.nodeName became set: POST pods/NAME/binding with
 *     the pod's UID as precondition (a 409 "already assigned" to that
 *     same node is success);
 *   - another update: a patch of what changed, split into the object
 *     (metadata, spec) and its status subresource when the kind has one;
 *     strategic merge for core kinds (conditions keyed by type), JSON
 *     merge patch for custom resources;
 *   - a create (Workloads, Events): POST to the collection, without the
 *     local uid and resourceVersion;
 *   - a delete: DELETE with the uid as precondition.
 *
 * Only kinds the server serves are forwarded (kube_reflect_version), and
 * Events; a local kind (from -f files) stays local.
 *
 * Order: writes to one object go one at a time, in order; writes to
 * different objects go concurrently (max_inflight). Intent first: a
 * pod's bind starts only after the writes of its gang's record objects
 * (options.records: its Workload, PodGroup or Job) queued in its flush
 * or an earlier one have been answered, so an admission is in the API
 * server (Workload status, or the gang's echelon.dev/admission
 * annotation) before any of its pods is bound, and a new leader can
 * finish or undo it from the cluster alone. A bind whose records are
 * not known waits for every other write of its flush and earlier ones
 * (the intent barrier). Other gangs' writes never hold a bind back.
 *
 * Failures: transient ones are retried by the transport (KUBE_RETRY, for
 * give_up_us); a refused or given-up write makes the reflector refresh
 * the object (kube_reflect_refresh), so the scheduler sees the truth
 * and reacts. A bind refused while the refreshed pod is still there,
 * unbound, with the same uid, is sent again (at most 5 times).
 */
#ifndef ECHELON_KUBE_OUTBOX_H
#define ECHELON_KUBE_OUTBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/strbuf.h"
#include "kube/kube_reflect.h"
#include "kube/kube_transport.h"

/* One line about a write the server refused: msg, then logfmt pairs
 * ("verb=bind kind=Pod ns=a name=p code=409 reason=\"...\""). */
typedef void (*kube_outbox_log_fn)(void *ctx, const char *msg, const char *kv);

#define KUBE_OUTBOX_RECORDS 4
/* The objects, in pod's namespace, that record the admission of the
 * gang of pod (the replica's body of a pod being bound): up to max kinds
 * and names put in the arrays (valid until the next call), their number
 * returned; 0: the pod's bind records nothing (a pod of no gang); -1:
 * not known (the bind waits for the intent barrier). */
typedef int (*kube_outbox_records_fn)(void *ctx, const json_t *pod,
				      const struct api_kind **kinds,
				      const char **names, int max);

struct kube_outbox_options {
	struct api_store *store;	 /* the replica (borrowed) */
	const struct kube_transport *tr; /* borrowed */
	struct kube_reflect *reflect;	 /* versions, refresh (borrowed);
					    NULL: every kind served at its
					    storage version, nothing
					    refreshed (the outbox alone) */
	unsigned max_inflight;		 /* 0: 256 */
	int64_t give_up_us;		 /* retry budget; 0: 30 s */
	kube_outbox_log_fn log;		 /* NULL: log_debug() */
	void *log_ctx;
	kube_outbox_records_fn records; /* NULL: every bind waits for
					   the intent barrier */
	void *records_ctx;
};

struct kube_outbox;
/* Starts reading the store's changes after its current rv. */
struct kube_outbox *kube_outbox_new(const struct kube_outbox_options *o);
void kube_outbox_free(struct kube_outbox *b);
/* Queue the store's local changes since the last flush and send what
 * may go. Call after the controllers' phase of every loop turn. */
void kube_outbox_flush(struct kube_outbox *b, int64_t mono_us);
/* kube_pending_fn: writes of this object queued or in flight. */
bool kube_outbox_pending(void *b, const struct api_kind *k, const char *ns,
			 const char *name);
/* Whether body, a remote version of an object that the reflector is
 * about to mirror (one held while pending(), or a watch event arriving
 * after the write's answer), is older than what an answered write of
 * this outbox made of it: the pod unbound after its bind was answered
 * (same uid), or a resourceVersion older than a create's or patch's
 * answer. Mirroring it would show the scheduler its own write undone
 * until the write's echo arrives; the reflector may drop it instead (the
 * echo, or a relist, follows). */
bool kube_outbox_stale(void *b, const struct api_kind *k, const char *ns,
		       const char *name, const json_t *body);
/* Whether the store holds a local change of the object that the outbox
 * has not read yet (written since the last flush): with pending(), the
 * object's writes not yet answered by the server. */
bool kube_outbox_unread(const struct kube_outbox *b, const struct api_kind *k,
			const char *ns, const char *name);
/* Whether a refused bind of pod ns/name is to be sent again (its
 * object's refresh not landed yet, or landed and the bind not redone):
 * the pod shows unbound meanwhile, but the bind's outcome is not known
 * yet. */
bool kube_outbox_rebinding(const struct kube_outbox *b, const char *ns,
			   const char *name);
/* Nothing queued or in flight. */
bool kube_outbox_idle(const struct kube_outbox *b);
/* Drop every queued write and cancel those in flight; read on from the
 * store's current rv (a leader that lost its lease). */
void kube_outbox_reset(struct kube_outbox *b);
/*
 * A replica that does not lead: read the store's changes since the last
 * call without sending any, so that when it is elected its outbox already
 * holds the store as it is (what kube_outbox_reset() would snapshot, at
 * the cost of one look per change instead of one per stored object: 0.1
 * to 0.4 s at 50,000 pods, in a new leader's first turn). Queued writes,
 * or changes lost to the store's history, make it a kube_outbox_reset().
 * A local change read here is the base of later diffs, never sent.
 */
void kube_outbox_follow(struct kube_outbox *b);
/* Prometheus text (echelon_kube_writes_total{verb,result}, binds,
 * bind latency, writes queued). */
void kube_outbox_metrics(const struct kube_outbox *b, struct strbuf *out);

#endif

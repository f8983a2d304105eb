/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cache: a replica of the remote cluster's objects in a local store
 * (api_store), kept by one reflector per kind, as client-go's informers
 * keep theirs.
 *
 * Discovery first (/api, /apis: which of echelon's kinds the server
 * serves, at which version; a kind it serves at a version echelon knows
 * only under another is converted with api_kind_convert). Then per
 * served kind: a paginated list (limit, continue; resourceVersion=0 for
 * the first page of the first list), then a watch from the list's
 * resourceVersion with bookmarks and a timeout of 5 to 10 min; a 410
 * (HTTP or an ERROR event) relists and mirrors the difference (objects
 * gone are deleted, others replaced); a failed watch reconnects after a
 * jittered backoff (200 ms doubling to 30 s).
 *
 * Mirroring: remote objects enter the store with api_store_mirror(): the
 * remote's uid, creationTimestamp and generation kept, managedFields
 * dropped while decoding, the remote resourceVersion kept here (not in
 * the object). A remote change to an object with local writes still on
 * their way to the server (pending(), the outbox's) is held and mirrored
 * once they are done, newest version only, so the scheduler never sees
 * its own write undone by an older echo. A deletion is mirrored at once.
 *
 * Kinds: Namespaces, Nodes, Pods (all of them: a gang counts its ended
 * members), Jobs, PriorityClasses, the PodGroups of
 * scheduler-plugins and of scheduling.k8s.io, and Kueue's kinds
 * (ResourceFlavor, Topology, ClusterQueue, Cohort, LocalQueue,
 * WorkloadPriorityClass, Workload), each when served. Events and Leases
 * are never reflected. A kind the server does not serve is local: its
 * objects come from -f files (the daemon applies them to the store) and
 * nothing of it is forwarded.
 */
#ifndef ECHELON_KUBE_REFLECT_H
#define ECHELON_KUBE_REFLECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/strbuf.h"
#include "kube/kube_transport.h"

/* Whether the object has local writes not yet answered by the server. */
typedef bool (*kube_pending_fn)(void *ctx, const struct api_kind *k,
				const char *ns, const char *name);

struct kube_reflect_options {
	struct api_store *store;	 /* the replica (borrowed) */
	const struct kube_transport *tr; /* borrowed */
	unsigned page;			 /* list page size; 0: 500 */
	unsigned long long seed;	 /* watch timeouts, backoff jitter */
	kube_pending_fn pending;	 /* NULL: nothing is ever held */
	/* Whether body, a remote version about to be mirrored (a watch
	 * event, or one held while pending), is older than what a local
	 * write already answered made of the object (kube_outbox_stale):
	 * it is then dropped, since the write's echo or a relist follows.
	 * NULL: never. Called with pending_ctx. */
	bool (*stale)(void *ctx, const struct api_kind *k, const char *ns,
		      const char *name, const json_t *body);
	void *pending_ctx;
};

struct kube_reflect;
struct kube_reflect *kube_reflect_new(const struct kube_reflect_options *o);
/* Cancel its calls and free (the store keeps what was mirrored). */
void kube_reflect_free(struct kube_reflect *r);
/* Start what is due at mono_us (discovery, lists, watches, reconnects)
 * and mirror the held changes whose objects are no longer pending. Call
 * every loop turn; the transport's callbacks do the rest. */
void kube_reflect_run(struct kube_reflect *r, int64_t mono_us);
/* The earliest mono_us run() has something to do (INT64_MAX: none). */
int64_t kube_reflect_next_us(const struct kube_reflect *r);
/* Discovery done and every served kind listed completely at least once
 * (the scheduler may start). Stays true across relists. */
bool kube_reflect_synced(const struct kube_reflect *r);
/* The version the server serves kind k (a storage kind) at, or NULL when
 * it does not serve it (or before discovery). */
const char *kube_reflect_version(const struct kube_reflect *r,
				 const struct api_kind *k);
/* The remote resourceVersion of a mirrored object, or NULL. */
const char *kube_reflect_rv(const struct kube_reflect *r,
			    const struct api_kind *k, const char *ns,
			    const char *name);
/* GET one object now and mirror the answer (its deletion on 404): after
 * a write the server refused, so the replica shows the truth. A newer
 * watch event wins; a GET that fails after its retries resyncs the
 * kind. */
void kube_reflect_refresh(struct kube_reflect *r, const struct api_kind *k,
			  const char *ns, const char *name);
/* List kind k (NULL: every served kind) again now; at the list's end
 * what the replica has of the kind and the server did not list goes,
 * objects created locally (and not pending) too. After a lost
 * leadership, the replica then shows the cluster, not what the leader
 * had decided. A refresh that fails after its retries resyncs its kind. */
void kube_reflect_resync(struct kube_reflect *r, const struct api_kind *k);
/* Whether no refresh and no resync is on its way (a replica that lost
 * the Lease leads again only once it is: serve_kube.c). */
bool kube_reflect_settled(const struct kube_reflect *r);
/* Prometheus text (echelon_kube_reflector_*: lists, relists, watch
 * restarts, 410s, failures, events, objects, seconds to first sync;
 * label resource, "pods" or "podgroups.scheduling.x-k8s.io"). */
void kube_reflect_metrics(const struct kube_reflect *r, struct strbuf *out);

#endif

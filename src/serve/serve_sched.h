/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scheduler side of `echelon serve`: what Kueue and Coscheduling do
 * on a real cluster, over the API objects, with echelon's controller
 * (src/ctl) deciding. It builds the controller's cluster from the stored
 * Nodes, Topologies, ResourceFlavors, queues and priority classes (decoded
 * by src/manifest), suspends queued Jobs and makes the Workload objects of
 * queued Jobs and plain pods (Kueue's Job and pod integrations, under
 * Kueue's names), feeds Workloads, PodGroups and pods to the
 * controller, and writes back what it decides: bindings (whole gangs,
 * spec.nodeName through the binding path), Workload status.admission with
 * flavors and topologyAssignment and Kueue's conditions, Job unsuspend,
 * PodGroup, ClusterQueue and LocalQueue status, the pods' PodScheduled
 * condition, Events with Kueue's and kube-scheduler's reasons. Gangs come
 * in four dialects (Kubernetes' own PodGroup, Coscheduling's, Kueue's
 * Job, a queued pod); pods asking for what echelon cannot honour are
 * refused, never placed. The same code runs over a replica of a real
 * cluster (src/kube), with the options below.
 */
#ifndef ECHELON_SERVE_SCHED_H
#define ECHELON_SERVE_SCHED_H

#include <stdint.h>

#include "api/api.h"
#include "api/api_store.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "ctl/ctl.h"

struct serve_sched;
struct serve_sched_options;
/* A scheduler over store s with options o (copied; NULL: defaults),
 * built from what s holds now. */
struct serve_sched *serve_sched_new(struct api_store *s,
				    const struct serve_sched_options *o);
void serve_sched_free(struct serve_sched *x);

/* What the scheduler takes as its own and how it keeps its decisions. */
struct serve_sched_options {
	/* The spec.schedulerName of echelon's pods (NULL: "echelon");
	 * copied. */
	const char *scheduler_name;
	/*
	 * The store is a replica of a real cluster (src/kube): only pods
	 * naming scheduler_name are echelon's (the embedded cluster also
	 * takes pods of no scheduler name or "default-scheduler"), and a
	 * queued Job is not suspended at create (there is no webhook): its
	 * pods stay Pending until echelon binds them. An evicted gang's Job
	 * is still suspended, and unsuspended when admitted again.
	 */
	bool kube;
	/*
	 * The cluster stores Kueue's Workload objects (its CRD is
	 * installed). When false, a Job's admission is also kept in the
	 * annotation SERVE_ADMISSION_ANNOTATION of the Job, as a PodGroup's
	 * is, and a restarted scheduler adopts it from there.
	 */
	bool workloads_remote;
	/*
	 * Whether a write of Pod ns/name is still on its way to the cluster
	 * (the outbox's kube_outbox_pending), or a refused bind of it is to
	 * be sent again (kube_outbox_rebinding): a released gang's pod that
	 * echelon deleted holds its node, and the gang its quota, until the
	 * cluster has answered the delete, not only the replica; a pod shown
	 * unbound while its bind is sent again is not a bind undone. NULL:
	 * the store is the cluster (embedded).
	 */
	bool (*pod_pending)(void *ctx, const char *ns, const char *name);
	void *pod_pending_ctx;
	/* The embedded kubelets' pod start-up delay (before up to 10 %
	 * jitter), part of the runtime of a Job with a
	 * sim.echelon.dev/duration in start-time estimates; 0: none. */
	int64_t pod_startup_us;
	/*
	 * Writes one serve_sched_sync() makes at most before it stops
	 * binding (0: no limit): the gangs and plain pods left are bound by
	 * the next calls, in the same order. A replica's store keeps a
	 * bounded history of changes, which the outbox must read before it
	 * moves on; one pass binding 50,000 pods would outrun it.
	 */
	int max_writes;
	/*
	 * Called between events while one serve_sched_sync() reads many
	 * (every SERVE_SCHED_PROGRESS_EVENTS) and between its controller
	 * turns, so that a daemon keeps its connections and its Lease alive
	 * during a pass that takes seconds (a new leader's first pass over a
	 * replica of 50,000 pods). It may add to the store (a replica's
	 * mirrored changes: the next sync reads them) but must not call
	 * into this scheduler. NULL: none.
	 */
	void (*progress)(void *ctx);
	void *progress_ctx;
};
#define SERVE_SCHED_PROGRESS_EVENTS 1024
/* The defaults: "echelon", embedded, workloads_remote. */
void serve_sched_options_init(struct serve_sched_options *o);
/* Use o (copied; NULL: the defaults) from now on: the scheduler starts
 * over from the store, as a restart does. */
void serve_sched_set_options(struct serve_sched *x,
			     const struct serve_sched_options *o);
/* React to the store's changes since the last call and to the
 * controller's deadlines at now_us. Returns how many writes it made. */
int serve_sched_sync(struct serve_sched *x, int64_t now_us);
/*
 * What a sync does before the controller runs, alone: read the store's
 * changes since the last call (a new scheduler's first: everything,
 * adopting the admissions the cluster records). A Kubernetes replica
 * prepares its scheduler so while it follows, with the store read-only
 * (api_store_read_only()), and the first sync after its election only
 * reads what changed since. Returns the writes it made.
 */
int serve_sched_prepare(struct serve_sched *x, int64_t now_us);
/* Whether the store holds changes the scheduler has not read that may
 * be another scheduler's decisions (a late write of a leader before
 * it): a Workload or PodGroup changed, a Job changed (not created), a
 * pod of ours bound that was not when a prepare read it; its history
 * lost counts as such. A prepared scheduler without them reads the rest
 * at its next sync as a running scheduler does: the config, pods
 * created, deleted or their status written, Jobs created. */
bool serve_sched_state_unread(const struct serve_sched *x);
int64_t serve_sched_next_us(const struct serve_sched *x);
/* The controller it drives (read-only: status, figures, tests). */
const struct ctl *serve_sched_ctl(const struct serve_sched *x);
/* The api hook for Kueue's visibility API
 * (/apis/visibility.kueue.x-k8s.io/v1beta2/.../pendingworkloads) and
 * echelon's extras; -ENOENT for other paths. */
int serve_sched_extra(void *x, const struct api_req *r, int64_t now_us,
		      struct api_resp *resp);
/* The api hook for mutating admission (api_hooks.mutate, ctx the
 * serve_sched or NULL): Kueue's Job webhook, spec.suspend=true on the
 * create of a batch/v1 Job with the label kueue.x-k8s.io/queue-name.
 * Never refuses. */
int serve_sched_mutate(void *ctx, const struct api_kind *k, json_t *obj,
		       const json_t *old, struct errbuf *err);
/* Kueue's name of the Workload it makes for an owner object (a Job, a
 * Pod): "<kind in lower case>-<name>" cut to 247 bytes, "-", and the
 * first 5 hex digits of the SHA-1 of "<kind>\n<group>\n<name>\n<uid>"
 * (group "" for the core group), so that names fit in 253 bytes. The
 * caller frees the result. */
char *serve_sched_workload_name(const char *group, const char *kind,
				const char *name, const char *uid);
/*
 * The objects, in pod's namespace, that keep the admission of the gang
 * of pod (a body of a pod it bound): its Workload, its PodGroup (either
 * kind) and its Job, whichever the store holds; their kinds and names
 * (valid until the store changes) put in the arrays, at most max (4
 * suffice), their number returned. 0: a pod of no gang (bound one by
 * one, nothing recorded); -1: a pod it does not know as bound by it. The
 * Kubernetes backend sends a bind after these objects' writes only
 * (kube_outbox_records_fn).
 */
int serve_sched_records(const struct serve_sched *x, const json_t *pod,
			const struct api_kind **kinds, const char **names,
			int max);
/* Prometheus text of the scheduler's metrics, appended to out. */
void serve_sched_metrics(const struct serve_sched *x, struct strbuf *out);

#endif

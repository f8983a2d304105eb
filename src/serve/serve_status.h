/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the scheduler knows, written onto API objects as Kueue and
 * Coscheduling write it: status is a function of the controller's model
 * (src/ctl, its scheduler and gang lifecycle), computed for every
 * Workload, ClusterQueue, LocalQueue and PodGroup and written only where
 * it differs from the stored object, so repeated syncs settle. Edges
 * (a condition turning True) also record Kueue's Events (QuotaReserved,
 * Admitted, Preempted, Evicted, Requeued, Finished...). Also answers
 * Kueue's visibility API.
 *
 * Model workloads and Workload objects share namespace and name; a model
 * workload whose object is missing (a PodGroup's gang) gets its status
 * on the PodGroup instead: Coscheduling's phase and counts, or the
 * PodGroupInitiallyScheduled condition of a scheduling.k8s.io one.
 */
#ifndef ECHELON_SERVE_STATUS_H
#define ECHELON_SERVE_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "api/api.h"
#include "api/api_store.h"
#include "base/strbuf.h"
#include "ctl/ctl.h"

/* Where a gang of pods without a Workload object keeps its admission (the
 * JSON of a v1beta2 status.admission): an annotation of its PodGroup,
 * written by the status writer, read back by a restarted scheduler. */
#define SERVE_ADMISSION_ANNOTATION "echelon.dev/admission"

/* Write the status of every object whose model state changed since the
 * last call (all of them on the first), and the Events of the conditions
 * that turned True. Returns how many writes, or the first negative errno
 * of the store (the other objects are still written). */
int serve_status_sync(struct api_store *s, const struct ctl *x, int64_t now_us);

/*
 * The same writes, incremental: st takes from the controller the workload
 * slots whose model state changed since its last update (ctl_changes())
 * and from the store those whose Workload or PodGroup object changed, and
 * computes the status of those only; a full sync would write nothing for
 * the others. It keeps what each slot adds to its queues (counts, usage),
 * so a ClusterQueue or LocalQueue is written when its sums change or its
 * object does. The first update, and the first after the controller was
 * rebuilt (ctl_reconfigure(), or serve_status_reset()), does all. So an
 * update costs O(changed workloads), not O(stored).
 * serve_status_sync() is an update with a fresh st: the oracle the
 * incremental path is tested against.
 */
struct serve_status;
struct serve_status *serve_status_new(void);
/* NULL ok. */
void serve_status_free(struct serve_status *st);
/* Forget what was written: the controller was rebuilt (reconfigured,
 * restarted), so flavors, nodes or queues may have other names. */
void serve_status_reset(struct serve_status *st);
int serve_status_update(struct serve_status *st, struct api_store *s,
			const struct ctl *x, int64_t now_us);
/* Keep the admission of a Job's Workload also in the annotation
 * SERVE_ADMISSION_ANNOTATION of the Job (the cluster stores no Workload
 * objects: a restarted scheduler adopts it from there). Off at first. */
void serve_status_set_job_admission(struct serve_status *st, bool on);
/* The first member, in name order, of scheduler-plugins PodGroup ns/pg
 * (its pod's body), or NULL. */
typedef const json_t *(*serve_status_member_fn)(void *ctx, const char *ns,
						const char *pg);
/* Find a PodGroup's first member with fn (an index of the scheduler's)
 * when its occupiedBy is looked for, instead of walking the namespace's
 * pods: one walk per group that leaves Pending is quadratic over 3,125
 * groups of 50,000 pods (a new leader's first pass took 44 s). NULL: the
 * walk. */
void serve_status_set_members(struct serve_status *st,
			      serve_status_member_fn fn, void *ctx);
/*
 * scheduling.k8s.io PodGroup o: condition PodGroupInitiallyScheduled
 * False with reason SchedulerError and message msg, unless it is True
 * (the condition is sticky once True). Returns 1 written, 0 unchanged, or
 * the store's negative errno.
 */
int serve_status_pod_group_error(struct api_store *s, const struct api_obj *o,
				 const char *msg, int64_t now_us);
/* How many workload statuses st has computed (all its updates). */
uint64_t serve_status_computed(const struct serve_status *st);
/* Kueue's visibility API: GET
 * /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/NAME/pendingworkloads
 * and .../namespaces/NS/localqueues/NAME/pendingworkloads (limit, offset),
 * reply PendingWorkloadsSummary with positions. -ENOENT for other
 * paths. */
int serve_status_visibility(const struct ctl *x, const struct api_req *r,
			    int64_t now_us, struct api_resp *resp);
/*
 * The same as serve_status_visibility(), with each item's
 * metadata.ownerReferences ({apiVersion, kind, name, uid}, as Kueue copies
 * them) read from the Workload objects of s (NULL: none).
 */
int serve_status_pending_workloads(const struct ctl *x,
				   const struct api_store *s,
				   const struct api_req *r, int64_t now_us,
				   struct api_resp *resp);
/*
 * The same, with echelon's estimatedAdmissionTime beside each item's
 * positions (a timestamp; absent when unknown) from the start-time
 * forecast f of x (ctl/ctl_forecast.h; NULL: none).
 */
struct ctl_forecast;
int serve_status_pending_estimated(const struct ctl *x,
				   const struct api_store *s,
				   const struct ctl_forecast *f,
				   const struct api_req *r, int64_t now_us,
				   struct api_resp *resp);
/* Whether path is under Kueue's visibility API group (a caller computes
 * the forecast only for those). */
bool serve_status_is_visibility(const char *path);

#endif

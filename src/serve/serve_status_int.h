/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of serve_status (serve_status.c, serve_status_wl.c,
 * serve_status_queue.c): one sync's view of the controller's model and
 * the helpers that write status only where it differs, keeping
 * conditions' lastTransitionTime as Kubernetes' SetStatusCondition does.
 */
#ifndef ECHELON_SERVE_STATUS_INT_H
#define ECHELON_SERVE_STATUS_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/api_store.h"
#include "base/vec.h"
#include "ctl/ctl.h"
#include "serve/serve_status.h"

/* The event recorders whose names `kubectl describe` shows, as Kueue
 * names its components: the scheduler (quota reservation, admission,
 * preemption) and the workload controller (eviction, requeue, finish). */
#define SERVE_STATUS_ADMISSION	  "kueue-admission"
#define SERVE_STATUS_WORKLOAD_CTL "kueue-workload-controller"

/* Workloads of a queue: pending (queued or parked), reserving quota
 * (admitted, or preempted and still holding it), admitted. */
struct ss_counts {
	int64_t pending, reserving, admitted;
};

/* One pair of a workload's admitted usage: flavor * RESOURCE_MAX +
 * resource, and the amount (per-pod request times admitted pods). */
struct ss_use {
	uint32_t fr;
	int64_t v;
};

/* What one workload slot added to its queues' status at the last update:
 * its ClusterQueue and LocalQueue (-1: none), its counts, and the usage of
 * its admission (summed per LocalQueue; compared, so that a ClusterQueue
 * whose usage moved is written). */
struct ss_seen {
	int32_t cq, lq;
	struct ss_counts n;
	struct ss_use *use; /* owned; nuse pairs */
	uint32_t nuse;
	bool stale; /* in serve_status.stale */
};

struct serve_status {
	struct ss_seen *wl; /* per slot, nwl of them */
	size_t nwl;
	VEC(uint32_t) stale; /* slots to recompute at the next update */
	/* Per ClusterQueue and LocalQueue of the cluster (sized at the last
	 * full update): the counts summed over the slots, the LocalQueues'
	 * usage ([nlq][nfr]), and which to write at the next update. */
	struct ss_counts *cq_n, *lq_n;
	int64_t *lq_use;
	bool *cq_stale, *lq_stale;
	size_t ncq, nlq, nfr;
	uint64_t cursor;     /* the store's rv after the last update */
	uint64_t ctl_cursor; /* ctl_changes_seq() after the last update */
	uint64_t computed;   /* workload statuses computed, ever */
	bool queues;	     /* a queue object changed: write every queue */
	bool job_admission;  /* serve_status_set_job_admission() */
	serve_status_member_fn member; /* serve_status_set_members() */
	void *member_ctx;
	bool all; /* the next update does everything */
};

/* Slot i (of st->wl) is recomputed at the next update (once). */
void ss_mark_stale(struct serve_status *st, uint32_t i);

/* One sync: the model, read-only, and the writer's state. */
struct ss {
	struct serve_status *st; /* what was seen before; all when fresh */
	struct api_store *s;
	const struct ctl *x;
	const struct cluster *c;
	const struct sched *sc;
	const struct gang *g;
	int64_t now_us;
	int writes;
	int err; /* the first failed write, 0 when none */
};

/* The registered kind (NULL when the registry does not serve it). */
const struct api_kind *ss_kind(const char *api_version, const char *kind);

/* Store o (its kind's object) with status (stolen) in place of its own
 * when the two differ; counts the write in ss. Returns 1 written, 0 the
 * same, or the store's negative errno. o is stale after a write. */
int ss_put_status(struct ss *ss, const struct api_obj *o, json_t *status);

/* The condition of type in conds (NULL or an array), or NULL. */
json_t *ss_cond_find(const json_t *conds, const char *type);

/* The previous status of a condition that ss_cond_set() changed. */
enum ss_prev { SS_ABSENT, SS_FALSE, SS_TRUE };

/*
 * Set condition type in conds (an array the caller owns) to status,
 * reason, message, as metav1.Condition: lastTransitionTime stays when the
 * status does not change (else transition_us, or now when that is 0), and
 * observedGeneration too when nothing changes (else gen; left out when
 * gen < 0). A new type is appended. The conditions in conds are never
 * edited, only replaced: conds may be a shallow copy of a stored array.
 * Returns what the status was.
 */
enum ss_prev ss_cond_set(json_t *conds, const char *type, bool status,
			 const char *reason, const char *message,
			 int64_t transition_us, int64_t gen, int64_t now_us);

/* A shallow copy of o's status (or {}) to edit by replacing members, and
 * in *ret_conds its conditions array, also a shallow copy (or []),
 * already set in it: the stored object is never edited. */
json_t *ss_status_copy(const struct api_obj *o, json_t **ret_conds);

/* metadata.generation of obj, or -1. */
int64_t ss_generation(const json_t *obj);

/* The parts of serve_status_sync(). Each returns its writes or the first
 * negative errno (and goes on with the other objects). The workloads of
 * st->stale (every slot when st->all): their status, and what they add to
 * their queues (marking the queues whose status changes). */
int ss_workloads(struct ss *ss);
/* The ClusterQueues and LocalQueues marked (all with st->all or
 * st->queues). */
int ss_cluster_queues(struct ss *ss);
int ss_local_queues(struct ss *ss);

#endif

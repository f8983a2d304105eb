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
#include "ctl/ctl.h"

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

/* What an incremental update saw of one workload slot: its handle, the
 * fingerprint of its model state and its object's resourceVersion after
 * the sync (0: not seen, or no object). */
struct ss_seen {
	uint64_t handle, fp, rv;
};

/* The queue pass's arrays, kept between updates (sized to the cluster):
 * per workload slot, per LocalQueue, per ClusterQueue. */
struct ss_bufs {
	int64_t *cq_pos, *lq_pos;
	int32_t *wl_lq, *lq_next, *lq_first;
	struct ss_counts *lq_n, *cq_n;
	size_t n, nlq, ncq;
};

struct serve_status {
	struct ss_bufs bufs;
	struct ss_seen *wl; /* per slot */
	bool *obj;	    /* per slot: its object changed since cursor */
	size_t nwl;
	uint64_t cursor; /* the store's rv after the last update */
	bool queues;	 /* a queue object changed since cursor */
	bool all;	 /* the next update does everything */
};

/* One sync: the model, read-only, and what every queue needs worked out
 * in one pass over the workloads. */
struct ss {
	struct serve_status *st; /* what was seen before; all when fresh */
	int changed;		 /* workloads whose state or object changed */
	struct api_store *s;
	const struct ctl *x;
	const struct cluster *c;
	const struct sched *sc;
	const struct gang *g;
	int64_t now_us;
	int64_t *cq_pos, *lq_pos; /* per workload slot; -1: not queued */
	int32_t *wl_lq;		  /* per slot: its LocalQueue index or -1 */
	/* per LocalQueue its first slot, per slot the next of its
	 * LocalQueue (-1 ends) */
	int32_t *lq_first, *lq_next;
	struct ss_counts *cq_n, *lq_n; /* per ClusterQueue, LocalQueue */
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

/* Call fn for each stored object of kind k, in the store's order; fn may
 * write (the keys are taken first, each object is looked up again). */
void ss_each(struct ss *ss, const struct api_kind *k,
	     void (*fn)(struct ss *ss, const struct api_obj *o));

/* A shallow copy of o's status (or {}) to edit by replacing members, and
 * in *ret_conds its conditions array, also a shallow copy (or []),
 * already set in it: the stored object is never edited. */
json_t *ss_status_copy(const struct api_obj *o, json_t **ret_conds);

/* metadata.generation of obj, or -1. */
int64_t ss_generation(const json_t *obj);

/* The parts of serve_status_sync(). Each returns its writes or the first
 * negative errno (and goes on with the other objects). */
int ss_workloads(struct ss *ss);
/* A fingerprint of everything the status of workload slot wl is computed
 * from in the model (not its stored object). */
uint64_t ss_wl_fingerprint(const struct ss *ss, uint32_t wl);
int ss_cluster_queues(struct ss *ss);
int ss_local_queues(struct ss *ss);

#endif

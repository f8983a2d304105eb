/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller: the one piece of code that drives the scheduler core
 * (src/sched) and the gang lifecycle (src/gang) together. The simulator,
 * `echelon plan`, the daemon's embedded cluster and the Kubernetes backend
 * are all backends of it, so that they make the same decisions from the
 * same events. See docs/internals/controller.md.
 *
 * Like the core it is pure: it reads no clock (time comes in as now_us),
 * makes no system call, never logs, and uses no thread. A driver feeds it
 * events (submissions, pod and node events, bind results) and calls
 * ctl_run() whenever something happened or ctl_next_wakeup_us() is due.
 * ctl_run() runs, in this fixed order of phases:
 *
 *   1. timeouts: the gang lifecycle's deadlines due at now (schedule
 *      timeout, waitForPodsReady, recovery, bind timeout) and their
 *      evictions, deactivations and releases;
 *   2. requeues: evicted workloads whose requeue time has come;
 *   3. admission: scheduler cycles while something changed and
 *      waitForPodsReady.blockAdmission does not hold them; each admission
 *      binds its gang, each preemption releases its victim.
 *
 * Calls to the backend happen only from the controller's own functions,
 * after the core has finished its step: no backend op is called while the
 * scheduler or the lifecycle is in the middle of a change, and no backend
 * op may call back into the controller.
 *
 * Workloads are the cluster's workloads, named by a handle that carries
 * their slot (their index in cluster->workloads) and a generation: a
 * handle of a deleted workload is stale and every call taking one returns
 * -ESTALE for it. Backend ops receive slots, which are valid for the
 * duration of the call.
 */
#ifndef ECHELON_CTL_CTL_H
#define ECHELON_CTL_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "gang/gang.h"
#include "model/cluster.h"
#include "sched/sched.h"

struct ctl;

/* A workload's handle: generation << 32 | slot. 0 is never a handle. */
#define CTL_HANDLE(slot, gen) (((uint64_t)(gen) << 32) | (uint32_t)(slot))
#define CTL_SLOT(h)	      ((uint32_t)((h)&0xffffffffu))
#define CTL_GEN(h)	      ((uint32_t)((h) >> 32))

/* No node: the admission fixed none and the backend chooses. */
#define CTL_NO_NODE UINT32_MAX

/* What a bind op says at once. */
enum ctl_bind_rc {
	CTL_BIND_DONE = 0,    /* bound now */
	CTL_BIND_STARTED = 1, /* completes later: ctl_bind_result() */
};

/*
 * What the controller decided, reported to the backend's observer. Each
 * admission is followed by CTL_EV_BOUND once all its pods are bound and
 * CTL_EV_READY once all are Ready (neither again until the next
 * admission; neither for a gang adopted or restored already bound), unless
 * it is evicted or finishes first.
 */
enum ctl_event_kind {
	CTL_EV_ADMITTED,    /* quota reserved; its binds follow */
	CTL_EV_PREEMPTED,   /* evicted for `by`, queued again */
	CTL_EV_EVICTED,	    /* evicted by the lifecycle, requeue at */
	CTL_EV_DEACTIVATED, /* evicted for good (backoff limit) */
	CTL_EV_REPLACED,    /* pods moved to other nodes in the domain */
	CTL_EV_BOUND,	    /* every pod of the admitted gang bound */
	CTL_EV_READY,	    /* every pod Ready, first time since admission */
	CTL_EV_FINISHED,    /* ctl_finish(): completed, quota released */
	CTL_EV_KIND_COUNT
};

struct ctl_event {
	enum ctl_event_kind kind;
	uint32_t wl;		       /* slot */
	uint32_t by;		       /* CTL_EV_PREEMPTED: the preemptor */
	enum sched_preempt_reason why; /* CTL_EV_PREEMPTED */
	int32_t cq;		       /* CTL_EV_PREEMPTED: its queue */
	const char *reason;	       /* static: "PodsReadyTimeout"... */
	int64_t requeue_at_us;	       /* CTL_EV_EVICTED */
	uint32_t pods;		       /* CTL_EV_REPLACED: pods moved */
	int64_t at_us; /* when: the controller's now, set by the controller */
};

/*
 * The backend. Every op is called on the controller's thread, from inside
 * a ctl_* call, after the core has finished the step that asked for it;
 * none may call any ctl_* function (queue work and feed it in later).
 */
struct ctl_backend_ops {
	/*
	 * Bind pod `pod` of workload slot wl to node (an index into
	 * cluster->nodes, or CTL_NO_NODE). The controller has already
	 * counted the pod's usage on that node. Returns CTL_BIND_DONE,
	 * CTL_BIND_STARTED (the result comes later through
	 * ctl_bind_result()), or a negative errno when it failed at once
	 * (then as ctl_bind_result() with that error). May be NULL: every
	 * bind is done at once.
	 */
	int (*bind)(void *ctx, uint32_t wl, uint32_t pod, uint32_t node);
	/*
	 * Take every pod of wl off its node (unbind or delete them). The
	 * controller has already released their usage. Cannot fail: a
	 * backend retries on its own. May be NULL.
	 */
	void (*release)(void *ctx, uint32_t wl);
	/* A decision, for the backend's records and status. May be NULL. */
	void (*event)(void *ctx, const struct ctl_event *e);
};

struct ctl_options {
	struct sched_options sched; /* admit_limit is set from the config */
	struct gang_options gang;
	/* How long a gang may stay partly bound (binds started and not all
	 * completed) before it is evicted whole; 0: 30 s. */
	int64_t bind_timeout_us;
	/* Live operation, as Kueue: a preempted workload keeps its quota and
	 * nodes until the backend says its pods are gone (ctl_released()),
	 * and its preemptor waits at the head meanwhile. Off (the simulator,
	 * plan): victims are gone at once. */
	bool wait_victims;
	/* Keep the journal of ctl_changes() (the daemon's status writer
	 * reads it). Off (the simulator, plan): nothing marks it, no memory
	 * per workload, and ctl_changes() answers -ERANGE: every slot. */
	bool track_changes;
};

struct ctl_stats {
	uint64_t cycles;	  /* scheduler cycles run */
	uint64_t cycles_admitted; /* of those, cycles that admitted some */
	uint64_t admissions;	  /* CTL_EV_ADMITTED */
	uint64_t binds;		  /* bind ops called */
	uint64_t bind_failures;
	uint64_t reconfigures; /* ctl_reconfigure() calls */
};

/*
 * A controller over c (borrowed: it must outlive the controller), with
 * options o (NULL: defaults) and the backend ops (borrowed) called with
 * ctx. Builds its scheduler and lifecycle over c's objects. Never NULL.
 */
struct ctl *ctl_new(struct cluster *c, const struct ctl_options *o,
		    const struct ctl_backend_ops *ops, void *ctx);
/* Free everything; NULL ok. The cluster stays the caller's. */
void ctl_free(struct ctl *x);

/* The handle of the workload in slot wl now (0 when the slot is free). */
uint64_t ctl_handle(const struct ctl *x, uint32_t wl);

/* The scheduler and the lifecycle, read-only, for status and figures. */
const struct sched *ctl_sched(const struct ctl *x);
const struct gang *ctl_gang(const struct ctl *x);
struct ctl_stats ctl_stats(const struct ctl *x);
/*
 * A counter that moves whenever the controller's state may have changed:
 * every call on a workload, every decision and scheduler cycle, a node's
 * status or usage, a reconfiguration or restore. Equal values mean the
 * same state (time aside), so a reader may keep what it derived from it
 * (the forecast's cache, ctl_forecast.h).
 */
uint64_t ctl_generation(const struct ctl *x);
/*
 * What changed, for a status writer that redoes its work per workload:
 * every change of what it reads of a workload (the scheduler's state of
 * it and its lifecycle, see sched_track() and gang_track(); its handle)
 * marks the workload's slot in a journal. ctl_changes_seq() is a cursor
 * past every mark so far. ctl_changes() calls fn(ctx, slot) once for each
 * slot marked after cursor since (a negative return of fn stops and is
 * returned), or returns -ERANGE when since is from before the scheduler
 * and lifecycle were last rebuilt (ctl_restore(), ctl_reconfigure()), or
 * is 0, or the journal is off (ctl_options.track_changes): every slot
 * must then be taken as changed. A workload's position in
 * its queue is not tracked (it moves whenever one ahead leaves).
 */
uint64_t ctl_changes_seq(const struct ctl *x);
int ctl_changes(const struct ctl *x, uint64_t since,
		int (*fn)(void *ctx, uint32_t wl), void *ctx) MUST_CHECK;
/* The cluster the controller runs over (the one given to ctl_new()),
 * read-only, for status: its workloads are the slots of the handles. */
const struct cluster *ctl_cluster(const struct ctl *x);

/*
 * Add workload *w (moved in, *w zeroed; see cluster_workload_put()) to the
 * cluster, as NEW: ctl_submit() queues it. Writes its handle to *ret_h.
 * Returns 0, or -EEXIST when its namespace/name is taken (w untouched).
 */
int ctl_workload_add(struct ctl *x, struct workload *w,
		     uint64_t *ret_h) MUST_CHECK;

/*
 * Workload h's object changed (an update of the Workload or its Job):
 * *w (same namespace and name) takes its place, moved in and zeroed. Its
 * priority, queue and shape apply from the next cycle, and a pending one
 * keeps its place in its queue; spec.active false deactivates it (an
 * admitted one is evicted whole first, CTL_EV_DEACTIVATED), true again
 * queues it. Returns 0, -ESTALE, -EINVAL when the name differs, or -EBUSY
 * when an admitted workload's pod sets change (Kueue refuses that too).
 */
int ctl_workload_update(struct ctl *x, uint64_t h, struct workload *w,
			int64_t now_us) MUST_CHECK;

/*
 * Delete workload h (Kubernetes deleted the object): an admitted one
 * releases its pods (the release op) and its quota, a pending one leaves
 * its queue; its slot is freed and every handle of it is stale from now
 * on. Returns 0 or -ESTALE.
 */
int ctl_workload_delete(struct ctl *x, uint64_t h, int64_t now_us);

/*
 * Queue workload h at now_us (sched_submit()). With pods_exist, its pods
 * exist already (a PodGroup's quorum counts them at admission). A Workload
 * read back with status.requeueState continues its backoff: it is queued
 * at requeueAt, and its next backoff counts from requeueState.count.
 * Returns 0 or -ESTALE.
 */
int ctl_submit(struct ctl *x, uint64_t h, bool pods_exist, int64_t now_us);

/*
 * Workload h was admitted before the controller started: count its
 * status.admission (sched_assume_admitted()) and take its pods as bound
 * where the admission says, without asking the backend to bind them.
 * Pods report Ready through ctl_pod_event(). Returns 0, -ESTALE, or
 * -ENOENT with a message in why (may be NULL) when the admission names an
 * unknown ClusterQueue, flavor or domain.
 */
int ctl_adopt(struct ctl *x, uint64_t h, int64_t now_us,
	      struct strbuf *why) MUST_CHECK;

/*
 * Usage that runs outside the scheduler's admissions, for a controller
 * started over a snapshot of a cluster (`echelon plan`): a running Job
 * without a Workload (sched_assume_job()), a running pod of a LocalQueue
 * (sched_assume_pod()). Return what those return; -ESTALE for a stale h.
 */
int ctl_assume_job(struct ctl *x, uint64_t h);
int ctl_assume_pod(struct ctl *x, const struct pod *p);

/*
 * Workload h completed: its pods are gone, its quota and nodes are
 * released. Returns 0 or -ESTALE.
 */
int ctl_finish(struct ctl *x, uint64_t h, int64_t now_us);
/* The same, with the reason and message of its Finished condition
 * (sched_finish_as); ctl_finish says "Succeeded". */
int ctl_finish_as(struct ctl *x, uint64_t h, const char *reason,
		  const char *message, int64_t now_us);

/*
 * Give workload h a runtime estimate (sched_wl_set_estimate(); 0: none).
 * Returns 0 or -ESTALE.
 */
int ctl_set_estimate(struct ctl *x, uint64_t h, int64_t est_us);

/* Pod events of workload h's pod `pod` (spec order, see gang.h). Return
 * 0, -ESTALE, or -EINVAL for a pod outside the workload. */
enum ctl_pod_ev { CTL_POD_READY, CTL_POD_FAILED, CTL_POD_RESTARTED };
int ctl_pod_event(struct ctl *x, uint64_t h, uint32_t pod, enum ctl_pod_ev ev,
		  int64_t now_us);

/*
 * Kubernetes names pods by UID: map uid to pod `pod` of workload h, so
 * that the backend finds the workload and pod index of a pod event with
 * ctl_pod_find(). Deleting the workload drops its pods' entries. Returns
 * 0, -ESTALE, -EINVAL for a pod outside the workload, or -EEXIST when uid
 * is mapped already.
 */
int ctl_pod_map(struct ctl *x, const char *uid, uint64_t h, uint32_t pod);
/* The workload and pod of uid: 0, or -ENOENT when it is not mapped. */
int ctl_pod_find(const struct ctl *x, const char *uid, uint64_t *ret_h,
		 uint32_t *ret_pod);

/*
 * The result of a bind that returned CTL_BIND_STARTED: err 0 (bound) or a
 * negative errno (-EEXIST conflict, -ENOENT pod gone, -ENODEV node gone).
 * A failed bind evicts the whole gang, which is queued again; a result for
 * a pod the controller no longer binds (evicted since, moved) is ignored.
 * Returns 0 or -ESTALE.
 */
int ctl_bind_result(struct ctl *x, uint64_t h, uint32_t pod, int err,
		    int64_t now_us);

/*
 * Evict admitted workload h whole, as a failed bind does (CTL_EV_EVICTED
 * with reason, a static string; its pods released through the release
 * op; queued again after the bind backoff): for a backend that finds a
 * bind it was told of undone (a pod bound by someone else to another
 * node, a bind the cluster refused after all). Returns 0, -ESTALE, or
 * -EINVAL when h is not admitted.
 */
int ctl_evict(struct ctl *x, uint64_t h, const char *reason, int64_t now_us);
/* Whether admitted slot wl has every pod bound (no bind in flight). */
bool ctl_wl_bound(const struct ctl *x, uint32_t wl);

/*
 * With wait_victims: the pods of preempted workload h are gone (after its
 * release op); its quota and nodes are free for its preemptor at the next
 * cycle, and it is queued again. Returns 0 or -ESTALE.
 */
int ctl_released(struct ctl *x, uint64_t h, int64_t now_us);

/*
 * Node node (an index into cluster->nodes) went down: it takes no new
 * pods, and every gang with pods there is re-placed inside its domain or
 * evicted (NodeFailures). Up: schedulable again. Idempotent.
 */
void ctl_node_down(struct ctl *x, uint32_t node, bool down, int64_t now_us);

/*
 * The whole scheduling state, by names (ClusterQueues, flavors and nodes
 * are named, not indexed): every workload's queue order, admission,
 * conditions, requeue count and time, lifecycle and binds, with the
 * core's tie-break counters. A controller restored from it over the same
 * cluster continues exactly as the one it was taken from would have.
 * The snapshot borrows the cluster's strings: it must not outlive it.
 */
struct ctl_snapshot;
struct ctl_snapshot *ctl_snapshot(const struct ctl *x);
void ctl_snapshot_free(struct ctl_snapshot *sn);
/*
 * Restore sn into x, a controller just made over the cluster sn was taken
 * from (whose objects may have changed since): workloads are found by
 * namespace and name (a handle stays valid when its slot is the same); one
 * that is gone is dropped. A workload whose admission names a
 * ClusterQueue, flavor or node that is gone, or whose pods changed, is
 * evicted and queued again (CTL_EV_EVICTED, reason NodeFailures; its pods
 * are released). Returns how many were.
 */
int ctl_restore(struct ctl *x, const struct ctl_snapshot *sn) MUST_CHECK;

/*
 * Change the cluster's objects other than workloads (ClusterQueues,
 * LocalQueues, cohorts, flavors, topologies, priority classes, the
 * configuration, nodes added, removed or relabelled) while running: the
 * state is taken by names, the scheduler and the lifecycle are freed,
 * change(ctx, c) edits the cluster, and both are built again over it and
 * restored. A quota change so applies to the next cycle. Returns what
 * change returned when negative (the cluster must then be as before), or
 * the number of workloads evicted because what they held is gone. The
 * pointers ctl_sched() and ctl_gang() returned before are stale after.
 */
int ctl_reconfigure(struct ctl *x, int (*change)(void *ctx, struct cluster *c),
		    void *ctx, int64_t now_us);

/*
 * Node node's status changed: its Ready condition and spec.unschedulable
 * (a cordon). A node not Ready or cordoned takes no new pods; the pods on
 * it keep running (a backend that decides the node failed calls
 * ctl_node_down()). The cluster's node is updated too.
 */
void ctl_node_status(struct ctl *x, uint32_t node, bool ready,
		     bool unschedulable, int64_t now_us);

/*
 * Usage on node node that no workload of the controller holds changed
 * (sign 1: req added; -1: taken away): a pod bound by another scheduler,
 * or one placed alone. The cluster's node and the scheduler's indexes
 * follow at once, without ctl_reconfigure().
 */
void ctl_node_usage(struct ctl *x, uint32_t node, const struct resvec *req,
		    int sign, int64_t now_us);

/* Run everything due at now_us, in the phases above, until nothing
 * changes. now_us never goes back between calls. */
void ctl_run(struct ctl *x, int64_t now_us);

/* Only phases 1 and 2 (timeouts and requeues), for drivers that order
 * them among their own events; the cycles wait for ctl_run(). */
void ctl_tick(struct ctl *x, int64_t now_us);

/*
 * When ctl_run() must be called next without any new event: the earliest
 * lifecycle deadline or requeue time (requeues are not counted while
 * blockAdmission holds the cycles: the pod events that release it come
 * first). INT64_MAX when nothing is due; at most now_us when a change is
 * waiting for a cycle.
 */
int64_t ctl_next_wakeup_us(struct ctl *x, int64_t now_us);

/*
 * Check the controller's invariants (for tests, after any event): the
 * outbox is empty, each slot's count of pending binds matches its pods, a
 * pod binds only while its workload is admitted, the live slots are the
 * cluster's live workloads. Returns true, or false with the first broken
 * one in why (may be NULL).
 */
bool ctl_check(const struct ctl *x, struct strbuf *why);

/*
 * Why a workload does not run now: the answer `plan`, the daemon and the
 * simulator's records share. A queued workload waits for its Kueue
 * pending reason (sched_wl_pending()), except in three cases that reason
 * does not tell apart; an admitted one waits for its gang.
 */
enum ctl_wait {
	CTL_WAIT_NONE,	   /* runs (all pods Ready), or is not submitted or
			      finished */
	CTL_WAIT_PENDING,  /* queued, for the reason in *ret_pend */
	CTL_WAIT_COMPACT,  /* TopologyPlacementFailed as a compact gang: the
			      free domains would scatter it (CompactPlacement) */
	CTL_WAIT_BACKOFF,  /* evicted, waiting for its requeue time (Backoff) */
	CTL_WAIT_BLOCKED,  /* not tried yet: waitForPodsReady.blockAdmission
			      holds the cycles until another gang is Ready
			      (BlockedByPodsReady) */
	CTL_WAIT_ASSEMBLY, /* admitted, its pods not all bound and Ready yet
			      (Kueue's PodsReady=False reason WaitForStart) */
	CTL_WAIT_RECOVERY, /* was Ready, a pod failed or was lost since
			      (WaitForRecovery) */
	CTL_WAIT_COUNT
};

/* Why workload slot wl waits now; its Kueue pending reason into *ret_pend
 * (may be NULL) when CTL_WAIT_PENDING. */
enum ctl_wait ctl_wl_wait(const struct ctl *x, uint32_t wl,
			  enum sched_pend *ret_pend);
/* The reason's name: sched_pend_name(pend) for CTL_WAIT_PENDING, else the
 * name above in parentheses; NULL for CTL_WAIT_NONE. */
const char *ctl_wait_name(enum ctl_wait w, enum sched_pend pend);

const char *ctl_event_kind_name(enum ctl_event_kind k);

#endif

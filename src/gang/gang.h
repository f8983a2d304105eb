/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The gang lifecycle of admitted workloads: all-or-nothing binding (with
 * Coscheduling's PodGroup quorum and scheduleTimeoutSeconds), the PodGroup
 * phase, waitForPodsReady (timeout, recoveryTimeout, requeue backoff,
 * deactivation, blockAdmission) and node failures under a running gang
 * (replacement inside the same domain, else eviction). See
 * docs/internals/gang.md.
 *
 * A pure, deterministic state machine per workload, driven by events with
 * the time passed in (now_us): it reads no clock, makes no system call and
 * never logs. It reaches the backend only through struct gang_ops (bind a
 * pod, release a gang) and hands every scheduling consequence (evict,
 * deactivate, release) back to the caller as a struct gang_decision; it
 * never calls sched_evict() itself. Every walk is in a fixed order (a
 * node failure's gangs in admission order, deadlines by time then slot,
 * pods in index order), so the same events give the same calls and
 * decisions.
 *
 * Pods are named by their index in the workload's spec: pod set 0's pods
 * first (0 .. count - 1), then pod set 1's, and so on. Only the pods inside
 * the admitted count of each pod set are bound.
 *
 * Invariants (BUG_ON): a gang is bound as a whole or not at all; pod
 * indices are inside the workload; a workload is admitted only while the
 * lifecycle does not hold it already.
 */
#ifndef ECHELON_GANG_GANG_H
#define ECHELON_GANG_GANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/dirty.h"
#include "base/rng.h"
#include "base/vec.h"
#include "gang/podgroup.h"
#include "model/cluster.h"
#include "sched/sched.h"

struct gang;

/* Where a workload is in its lifecycle. */
enum gang_state {
	GANG_IDLE,	 /* not admitted (or evicted, released, finished) */
	GANG_WAITING,	 /* admitted, waiting for minMember pods to exist */
	GANG_BOUND,	 /* bound, not all Ready yet since admission */
	GANG_READY,	 /* all pods Ready (or Succeeded) */
	GANG_RECOVERING, /* was Ready, a pod failed or was lost */
	GANG_STATE_COUNT
};

/* What the lifecycle knows of one pod (struct gang_pod.flags). */
enum gang_pod_flag {
	GANG_POD_CREATED = 1 << 0,
	GANG_POD_READY = 1 << 1,
	GANG_POD_FAILED = 1 << 2,
	GANG_POD_SUCCEEDED = 1 << 3,
};

/* One pod of a gang, as the lifecycle knows it. */
struct gang_pod {
	uint32_t node; /* topo node in its pod set's flavor, or UINT32_MAX */
	uint8_t flags; /* enum gang_pod_flag */
};

/*
 * The lifecycle's state of one workload, exported so that a lifecycle
 * rebuilt over the same cluster continues exactly (see sched_saved).
 */
struct gang_saved {
	enum gang_state state;
	uint32_t npods;		     /* 0: no pod state yet */
	const struct gang_pod *pods; /* [npods]; borrowed */
	int32_t adm_count[WORKLOAD_MAX_PODSETS];
	int32_t tas_flavor[WORKLOAD_MAX_PODSETS];
	uint32_t admitted;
	bool bound;
	int64_t permit_deadline_us, ready_deadline_us, ckpt_base_us;
	int64_t requeues, lost_pod_us, lost_gpu_us;
	struct podgroup_status pgs;
};

/* The backend: the simulator, a Kubernetes binder, or a test's recorder. */
struct gang_ops {
	/* Bind pod of wl to node (its name; NULL when the admission fixed
	 * no node, and the backend chooses). */
	void (*bind)(void *ctx, uint32_t wl, uint32_t pod, const char *node);
	/* Take every pod of wl off its node (unbind or delete). */
	void (*release)(void *ctx, uint32_t wl);
};

struct gang_options {
	/* Coscheduling's permitWaitingTimeSeconds, used when a PodGroup has
	 * no scheduleTimeoutSeconds; 0: 60 s. */
	int64_t permit_wait_us;
	/* Checkpoint period of a running gang, for the work a node failure
	 * loses; 0: no checkpoints (all work since it last started). */
	int64_t checkpoint_interval_us;
	const char *gpu_resource; /* NULL: "nvidia.com/gpu" */
	bool jitter;		  /* the requeue backoff's 0.0001 jitter */
	uint64_t seed;		  /* of the jitter */
};

enum gang_decision_kind {
	GANG_EVICT,	 /* sched_evict(wl, reason); requeue at requeue_at_us */
	GANG_DEACTIVATE, /* evict and never requeue (backoff limit) */
	GANG_RELEASE,	 /* PodGroup timeout: back to the scheduler */
	GANG_REPLACED,	 /* pods moved to replacement nodes (information) */
	GANG_DECISION_KIND_COUNT
};

struct gang_decision {
	enum gang_decision_kind kind;
	uint32_t wl;
	const char *reason; /* static: "PodsReadyTimeout", "NodeFailures"... */
	const char *cause;  /* static underlying cause, or NULL */
	int64_t requeue_at_us; /* GANG_EVICT and GANG_RELEASE */
	int64_t requeues;      /* the workload's requeue count afterwards */
	uint32_t pods;	       /* GANG_REPLACED: pods moved */
};

struct gang_decisions {
	VEC(struct gang_decision) items;
};

void gang_decisions_init(struct gang_decisions *d);
void gang_decisions_release(struct gang_decisions *d);

/*
 * A lifecycle over the workloads of c, whose admissions s holds (both
 * borrowed: they must outlive it), with opt (NULL for defaults) and the
 * backend ops (borrowed, called with ctx). waitForPodsReady comes from
 * cluster_config(c). A workload's PodGroup is the one with its namespace
 * and name, unless gang_set_pod_group() says otherwise. Never NULL.
 */
struct gang *gang_new(const struct cluster *c, const struct sched *s,
		      const struct gang_options *opt,
		      const struct gang_ops *ops, void *ctx);
/* Free everything; NULL ok. */
void gang_free(struct gang *g);

/* Mark in d (borrowed; NULL stops) the slot of every workload whose
 * lifecycle state changes from now on (state, pods, requeues, PodGroup
 * status): any call that may change it marks it. */
void gang_track(struct gang *g, struct dirty *d);
/* Workload slot wl of the cluster was just filled: take it in, IDLE. */
void gang_wl_add(struct gang *g, uint32_t wl);
/* Forget wl before its slot is freed; the caller has taken its pods off
 * their nodes (gang_evicted()) if it held any. */
void gang_wl_remove(struct gang *g, uint32_t wl);

/* The PodGroup of wl (borrowed; NULL: none, all pods are the quorum). */
void gang_set_pod_group(struct gang *g, uint32_t wl,
			const struct pod_group *pg);

/*
 * wl was admitted by s at now_us (sched_wl_admission() is set): take its
 * placement and bind all its pods, or, with a PodGroup whose quorum does
 * not exist yet, wait for it until the schedule timeout. Starts the
 * waitForPodsReady timeout. wl must be GANG_IDLE.
 */
void gang_admitted(struct gang *g, uint32_t wl, int64_t now_us);

/* Pod events from the backend. A created pod is new (again): not Ready. */
void gang_pod_created(struct gang *g, uint32_t wl, uint32_t pod,
		      int64_t now_us);
void gang_pod_ready(struct gang *g, uint32_t wl, uint32_t pod, int64_t now_us);
void gang_pod_failed(struct gang *g, uint32_t wl, uint32_t pod, int64_t now_us);
void gang_pod_succeeded(struct gang *g, uint32_t wl, uint32_t pod,
			int64_t now_us);

/*
 * Node node (by name) failed at now_us. The caller has already made it
 * not live in the scheduler's topology index. Every bound workload with
 * pods there gets a replacement inside its domain (its lost pods rebound,
 * a GANG_REPLACED decision) or is evicted with "NodeFailures". Appends to
 * out; returns the number of decisions appended. On GANG_REPLACED the
 * caller moves the pods' usage in the scheduler's index to the nodes
 * gang_pod_node() names now, or a later placement may double-book them.
 */
size_t gang_node_failed(struct gang *g, const char *node, int64_t now_us,
			struct gang_decisions *out);

/*
 * Expire the timeouts due at now_us (schedule timeout, PodsReady timeout,
 * recovery timeout), in workload order; appends the decisions to out and
 * returns how many.
 */
size_t gang_tick(struct gang *g, int64_t now_us, struct gang_decisions *out);
/* The earliest pending timeout, or INT64_MAX when none. O(log n)
 * amortised: entries of deadlines that changed are dropped here. */
int64_t gang_next_deadline_us(struct gang *g);

/*
 * The scheduler evicted wl on its own (a preemption, a drained queue):
 * take its pods off their nodes (the release op) and forget its
 * placement; its requeue count stays. Nothing when wl is GANG_IDLE.
 */
void gang_evicted(struct gang *g, uint32_t wl, int64_t now_us);

/* wl completed (the caller calls sched_finish): forget it, requeues too. */
void gang_finished(struct gang *g, uint32_t wl, int64_t now_us);

enum gang_state gang_state(const struct gang *g, uint32_t wl);
/* The PodGroup phase of wl from its pod counts (Coscheduling's rules). */
enum podgroup_phase gang_phase(const struct gang *g, uint32_t wl);
/* waitForPodsReady.blockAdmission is on and some admitted workload has
 * not been all Ready since its admission: hold the scheduler. */
bool gang_blocks_admission(const struct gang *g);
/* The node pod of wl is placed on (after replacements), NULL when none. */
const char *gang_pod_node(const struct gang *g, uint32_t wl, uint32_t pod);
/* Set the requeues of wl so far (a Workload's requeueState.count, read
 * back after a restart): the next backoff continues from it. */
void gang_set_requeues(struct gang *g, uint32_t wl, int64_t n);
/* Requeues of wl so far (requeueState.count). */
int64_t gang_requeues(const struct gang *g, uint32_t wl);
/* Work lost to node failures: pod-microseconds and GPU-microseconds. */
void gang_lost_work(const struct gang *g, uint32_t wl, int64_t *ret_pod_us,
		    int64_t *ret_gpu_us);

/* The state of wl into *out; its pods stay g's (valid until g changes). */
void gang_wl_export(const struct gang *g, uint32_t wl, struct gang_saved *out);
/* Give IDLE workload wl the state *in (copied), deadlines included.
 * Returns 0, or -EINVAL when wl is not IDLE or the pod count differs. */
int gang_wl_import(struct gang *g, uint32_t wl,
		   const struct gang_saved *in) MUST_CHECK;
/* The backoff jitter's random state. */
void gang_export_rng(const struct gang *g, struct rng *out);
void gang_import_rng(struct gang *g, const struct rng *in);

const char *gang_state_name(enum gang_state st);
const char *gang_decision_kind_name(enum gang_decision_kind k);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the controller shared by its files (ctl.c: events, phases
 * and the backend; ctl_world.c: workloads, pods and nodes that come and
 * go; ctl_state.c: snapshots by name and restore). Not an API: nothing
 * outside src/ctl includes it (but the controller's own tests).
 *
 * Invariants: the outbox is empty between ctl_* calls (every call hands
 * it to the backend before it returns); a pod is BINDING only while its
 * workload is admitted, and a workload with BINDING pods has a bind
 * deadline in dl; live slots are exactly the cluster's live workloads.
 */
#ifndef ECHELON_CTL_CTL_INT_H
#define ECHELON_CTL_CTL_INT_H

#include "base/dirty.h"
#include "base/hmap.h"
#include "base/rng.h"
#include "base/vec.h"
#include "ctl/ctl.h"

#define DEFAULT_BIND_TIMEOUT_US (30LL * 1000000)
/* kube-scheduler's podInitialBackoffSeconds and podMaxBackoffSeconds,
 * for a gang whose binds failed. */
#define BIND_BACKOFF_US	    (1LL * 1000000)
#define BIND_BACKOFF_MAX_US (10LL * 1000000)

enum ctl_pod_bind { CTL_POD_UNBOUND, CTL_POD_BINDING, CTL_POD_BOUND };

/* One slot's workload as the controller knows it. */
struct ctl_wl {
	uint32_t gen;	  /* of the slot's workload; bumped when freed */
	bool live;	  /* the slot holds a workload */
	bool pods_exist;  /* ctl_submit(pods_exist) */
	uint32_t npods;	  /* spec pods; 0 until the first bind */
	uint8_t *bind;	  /* enum ctl_pod_bind per pod */
	uint32_t *node;	  /* node index per pod, CTL_NO_NODE */
	uint32_t binding; /* pods in CTL_POD_BINDING */
	int64_t bind_deadline_us; /* while binding */
	uint64_t bind_epoch;	  /* bumped on every release: old timeouts */
	uint32_t bind_fails;	  /* in a row: the requeue backoff */
	/* CTL_EV_BOUND and CTL_EV_READY said since the last admission */
	bool bound_said, ready_said;
	VEC(const char *) uids; /* its pods' UIDs (ctl_pod_map) */
};

/* A call to the backend waiting for the core to finish its step. */
struct ctl_out {
	bool release;
	uint32_t wl, pod, node;
};

/* A bind timeout: wl must have no pod BINDING from epoch by then. */
struct ctl_bind_dl {
	int64_t at_us;
	uint32_t wl;
	uint64_t epoch;
};

struct ctl {
	struct cluster *c;
	struct ctl_options opt;
	const struct ctl_backend_ops *ops;
	void *ctx;
	struct sched *s;
	struct gang *g;
	bool one_per_cycle; /* blockAdmission: one admission, then wait */
	bool dirty;
	int64_t now_us;
	struct ctl_wl *wl;
	size_t nwl;
	bool *node_down;
	size_t nnodes;
	VEC(struct ctl_out) out;
	/* Bind deadlines in time order, from dl_head on. */
	VEC(struct ctl_bind_dl) dl;
	size_t dl_head;
	VEC(uint32_t) failed; /* slots whose bind failed, to evict */
	struct hmap pod_uid;  /* pod UID -> slot << 32 | pod */
	struct ctl_stats stats;
	struct dirty changes; /* ctl_changes(): the core marks it */
	uint64_t generation;  /* ctl_generation() */
};

/* One pod set's admission by names. */
struct ctl_ps_snap {
	int32_t count;
	const char *flavor[RESOURCE_MAX]; /* NULL: none */
	const char *tas_flavor;		  /* NULL: no placement */
	const char **nodes;		  /* [count] or NULL; owned array */
};

/* One workload's state by names (ctl_state.c). */
struct ctl_wl_snap {
	uint32_t slot, gen;
	char *ns, *name;	  /* restored by name: slots may differ */
	struct sched_saved sched; /* adm NULL: it is in cq and ps */
	char *msg[SCHED_COND_COUNT];
	char *why_msg;
	/* Its reservation (backfill): flavor and nodes by name; NULL when
	 * none (sched.resv_* are not kept). */
	const char *resv_flavor;
	const char **resv_nodes; /* [sched.resv_nnodes], owned array */
	const char *cq;		 /* of the admission; NULL when not admitted */
	bool held; /* it is the quota a preempted workload holds */
	size_t npodsets;
	struct ctl_ps_snap ps[WORKLOAD_MAX_PODSETS];
	struct gang_saved gang; /* pods: gang_pods */
	struct gang_pod *gang_pods;
	const char **pod_node; /* per gang pod, by name; NULL: none */
	bool pods_exist;
	uint32_t bind_fails;
	int64_t bind_deadline_us;
	uint32_t npods;
	uint8_t *bind;
	const char **bind_node;
};

struct ctl_snapshot {
	struct sched_global sched;
	VEC(const char *) dirty_cqs;  /* capacity freed since their cycle */
	VEC(const char *) down_nodes; /* ctl_node_down() */
	struct rng rng;
	int64_t now_us;
	VEC(struct ctl_wl_snap) wls;
};

/* ctl.c */
/* The slot of a live handle, or -ESTALE. */
int64_t ctl_slot_of(struct ctl *x, uint64_t h);
/* The slot of live handle h, with time moved to now_us; -ESTALE (time
 * unchanged) for a stale handle. How every call on a workload starts. */
int64_t ctl_enter(struct ctl *x, uint64_t h, int64_t now_us);
/* Time moves to now_us (never back). */
void ctl_set_now(struct ctl *x, int64_t now_us);
/* Free a slot's pod arrays. */
void ctl_drop_pods(struct ctl_wl *w);
/* The pod arrays of slot wl, made on first use. */
struct ctl_wl *ctl_pods_of(struct ctl *x, uint32_t wl);
/* Take in workloads and nodes added to the cluster since. */
void ctl_grow(struct ctl *x);
/* Hand the outbox to the backend. */
void ctl_flush(struct ctl *x);
void ctl_emit(struct ctl *x, const struct ctl_event *e);
/* Remember wl's bind deadline (cw->bind_deadline_us), in time order. */
void ctl_push_bind_deadline(struct ctl *x, uint32_t wl);

/* ctl_world.c */
/* Drop the UIDs of a slot's pods from the map. */
void ctl_unmap_pods(struct ctl *x, struct ctl_wl *w);

#endif

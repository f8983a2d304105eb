/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scheduler core: queues, quota, the admission cycle and preemption,
 * with Kueue's model (ClusterQueues in a cohort tree, flavors walked in
 * order, LocalQueues feeding them), and the status of every workload
 * (conditions, admission, pending reason, position). See
 * docs/internals/admission.md.
 *
 * A struct sched refers to a loaded struct cluster, which must outlive it;
 * workloads are named by their slot in cluster->workloads. Workloads may
 * come and go while it lives (sched_wl_add(), sched_wl_remove()); other
 * objects of the cluster must not change (the controller rebuilds the
 * scheduler when they do). The core is pure: it reads no clock (time comes in
 * as now_us arguments), makes no system calls and never logs. Every order
 * it uses has a total tie-break, so the same calls give the same
 * decisions. Three drivers use it: `echelon plan` (no time passes), the
 * simulator (virtual clock) and the daemon (wall clock).
 *
 * Lifecycle of a workload: sched_submit() queues it (pending);
 * sched_cycle() admits it (or preempts others for it); sched_finish()
 * releases its quota for good; sched_evict() releases it and queues it
 * again, sched_evict_until() once a requeue backoff has passed;
 * sched_deactivate() takes it out for good. "Does not fit" is data: the
 * pending reason says why, with the flavor, resource and amounts, or the
 * topology level.
 *
 * Drivers with nodes that fail tell the scheduler with
 * sched_node_set_down() and move the pods of a gang that the lifecycle
 * (src/gang) replaced with sched_move_pod(), so that the topology indexes
 * stay exact.
 */
#ifndef ECHELON_SCHED_SCHED_H
#define ECHELON_SCHED_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/dirty.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "model/cluster.h"
#include "place/place_baseline.h"
#include "topo/topo.h"

struct sched;

enum sched_wl_state {
	SCHED_WL_NEW,	   /* not submitted */
	SCHED_WL_PENDING,  /* queued or parked, or unqueueable (reason) */
	SCHED_WL_ADMITTED, /* holds quota (QuotaReserved and Admitted) */
	SCHED_WL_FINISHED,
	SCHED_WL_STATE_COUNT
};

/* Why a workload is pending; names are Kueue's QuotaReserved reasons. */
enum sched_pend {
	SCHED_PEND_EVALUATION,	  /* PendingEvaluation: not tried yet */
	SCHED_PEND_MISCONFIGURED, /* no LocalQueue or ClusterQueue, or its
				     namespace is not selected by it */
	SCHED_PEND_DEACTIVATED,	  /* spec.active is false */
	SCHED_PEND_ON_HOLD,	  /* stopped LocalQueue, stopped or inactive
				     ClusterQueue */
	SCHED_PEND_NO_MATCHING_FLAVOR,
	SCHED_PEND_EXCEEDS_MAX_QUOTA, /* more than it could ever borrow */
	SCHED_PEND_WAITING_FOR_QUOTA,
	SCHED_PEND_TOPOLOGY, /* TopologyPlacementFailed */
	SCHED_PEND_BEHIND,   /* StrictFIFO: behind a blocked head */
	SCHED_PEND_COUNT
};

/* Kueue's Preempted condition reasons. */
enum sched_preempt_reason {
	SCHED_PREEMPT_IN_CLUSTER_QUEUE,
	SCHED_PREEMPT_RECLAMATION,	       /* InCohortReclamation */
	SCHED_PREEMPT_RECLAIM_WHILE_BORROWING, /* ...WhileBorrowing */
	SCHED_PREEMPT_FAIR_SHARING,	       /* InCohortFairSharing */
	SCHED_PREEMPT_REASON_COUNT
};

/* Kueue's workload condition types, in this order in the status. */
enum sched_cond {
	SCHED_COND_QUOTA_RESERVED,
	SCHED_COND_ADMITTED,
	SCHED_COND_EVICTED,
	SCHED_COND_PREEMPTED,
	SCHED_COND_REQUEUED,
	SCHED_COND_FINISHED,
	SCHED_COND_COUNT
};

struct sched_condition {
	bool present;
	bool status;
	const char *reason;  /* static string */
	const char *message; /* owned by the scheduler; may be "" */
	int64_t transition_us;
};

struct sched_options {
	bool fair_sharing;	/* order and preempt by dominant share */
	bool no_partial;	/* disable partial admission (minCount) */
	size_t max_tas_domains; /* domains tried per topology-aware
				   preemption; 0: 256 */
	/* How pods of TAS flavors are put on nodes: Kueue's topology-aware
	 * placement (the default, 0), or a baseline that ignores the
	 * topology request (kube-default, first-fit) for comparison. */
	enum place_policy policy;
	/* echelon's compact gangs: accept a placement only when no pod set
	 * spans more domains at any level than the fewest that could hold
	 * it on an empty cluster; otherwise the gang waits for room. */
	bool compact;
	/* Admissions per cycle, 0: as many as fit. Kueue's
	 * waitForPodsReady.blockAdmission admits one workload and then
	 * waits for its pods: the driver sets 1 and holds the next cycles
	 * while the lifecycle says admission is blocked. */
	size_t admit_limit;
	/* Live operation (Kueue): a preempted workload keeps its quota and
	 * nodes until its pods are gone (sched_victim_released()), and its
	 * preemptor waits at the head of its queue meanwhile, without
	 * preempting more. Off: victims release at once (plan, simulator). */
	bool hold_victims;
	/* With compact: a gang that waits for room reserves the domains it
	 * is expected to fit in earliest (by the runtime estimates of the
	 * workloads there), and others start inside them only when they are
	 * expected to end before (Slurm's backfill, per topology domain).
	 * See docs/internals/backfill.md. */
	bool backfill;
	/* A monotonic clock in nanoseconds that the scheduler reads around
	 * each run of the placement engine, to time admission attempts
	 * (sched_place_attempts()); ctx is its argument. NULL: not timed,
	 * every attempt reads 0 (the simulator, whose outputs must not
	 * depend on the machine). The scheduler reads no clock of its own. */
	int64_t (*clock_ns)(void *ctx);
	void *clock_ctx;
};

/* An admission attempt (a queue's head tried in a cycle) that ran the
 * placement engine: the time it spent there, all flavors and the
 * preemption's trials included (0 when not timed), and whether the
 * attempt admitted the workload. */
struct sched_place_time {
	int64_t ns;
	bool admitted;
};

/* How many of the last attempts sched_place_time_at() keeps. */
#define SCHED_PLACE_LOG 1024

/* What backfill did (sched_options.backfill). */
struct sched_backfill_stats {
	uint64_t reservations; /* made (a gang's first one counts) */
	uint64_t honoured;     /* gangs admitted on time or before */
	uint64_t delayed;      /* gangs admitted after their start */
	int64_t delay_us;      /* total of those delays */
};

/* The scheduler's own counters (tie-breaks, backfill's), exported with the
 * state. */
struct sched_global {
	uint64_t seq, admit_seq, cycle;
	struct sched_backfill_stats bf;
};

/* What one cycle did, in order. */
enum sched_decision_kind { SCHED_DECIDE_ADMIT, SCHED_DECIDE_PREEMPT };

struct sched_decision {
	enum sched_decision_kind kind;
	uint32_t wl;
	uint32_t by; /* preemptor of a SCHED_DECIDE_PREEMPT */
	enum sched_preempt_reason reason;
	int32_t cq; /* the ClusterQueue it was admitted in (or is now) */
};

struct sched_decisions {
	VEC(struct sched_decision) items;
};

/* The admission of one pod set: count, flavor per resource, placement. */
struct sched_podset_admission {
	int32_t count;
	int16_t flavor[RESOURCE_MAX]; /* flavor id, -1 for none */
	int32_t tas_flavor;	      /* flavor id of its placement, or -1 */
	uint32_t *nodes;	      /* topo node of each pod; owned */
};

struct sched_admission {
	int32_t cq; /* ClusterQueue index */
	size_t npodsets;
	struct sched_podset_admission ps[WORKLOAD_MAX_PODSETS];
};

/*
 * A scheduler over c (borrowed, must outlive it) with opt (NULL for
 * defaults): quota tree, one queue per ClusterQueue, one topology index
 * per TAS flavor built from the nodes' current usage. Never NULL.
 */
struct sched *sched_new(const struct cluster *c,
			const struct sched_options *opt);
/* Free everything; NULL ok. */
void sched_free(struct sched *s);

/*
 * Mark in d (borrowed; NULL stops) the slot of every workload whose status
 * as a status writer reads it changes from now on: its state, queue,
 * conditions, pending reason (its own; its parked class's as its
 * members show it, marked at the end of each cycle; in a StrictFIFO queue
 * the head it waits behind, so a new head marks the queue's members),
 * admission and placement, held quota, requeue time, and whether
 * sched_wl_listed(): everything sched_wl_pending_key() reads but the
 * scheduler's own stamp. Others are marked too (a mark means "maybe").
 * Positions in a queue are not: they move for every member whenever one
 * enters or leaves.
 */
void sched_track(struct sched *s, struct dirty *d);

/*
 * Workload slot id of the cluster was just filled (cluster_workload_put()):
 * take it in, as NEW. The slot must be free here.
 */
void sched_wl_add(struct sched *s, uint32_t id);
/*
 * Workload id's object changed in place (same name; an admitted one with
 * the same pod sets): its priority, queue and shape are read again, and a
 * pending one keeps its place in the queue (queue-order timestamp and
 * sequence). A pending one with spec.active false is deactivated, a
 * deactivated one with spec.active true again is queued; deactivating an
 * admitted one is the caller's (its gang goes first).
 */
void sched_wl_update(struct sched *s, uint32_t id, int64_t now_us);
/*
 * Forget workload id before its slot is freed: an admitted one releases
 * its quota and placement (its capacity is free at the next cycle), a
 * pending one leaves its queue; nothing of it stays.
 */
void sched_wl_remove(struct sched *s, uint32_t id);

/*
 * Count workload wl's status.admission as usage: quota in its
 * ClusterQueue and, on TAS flavors, its topologyAssignment on the nodes.
 * Returns 0, or -ENOENT with a message in why (may be NULL) when the
 * admission names an unknown ClusterQueue or flavor.
 */
int sched_assume_admitted(struct sched *s, uint32_t wl, int64_t now_us,
			  struct strbuf *why) MUST_CHECK;

/*
 * Count a running pod of a LocalQueue (label kueue.x-k8s.io/queue-name, or
 * else the queue of the Job named by its label batch.kubernetes.io/job-name
 * or job-name, in its namespace) as quota usage of that queue's
 * ClusterQueue, on the queue's first flavor whose node labels its node
 * carries. Its node usage is already in the topology indexes. Returns 0,
 * -ENOENT when the pod has no such queue or holds no resources, -ESRCH
 * when no flavor matches.
 */
int sched_assume_pod(struct sched *s, const struct pod *p) MUST_CHECK;

/* What sched_assume_job() made of a workload. */
enum sched_job_usage {
	SCHED_JOB_NOT_RUNNING,	/* not a Job, suspended or no active pod */
	SCHED_JOB_OWN_WORKLOAD, /* a Workload of the input stands for it */
	SCHED_JOB_PODS,		/* its pods are in the input: they count */
	SCHED_JOB_COUNTED,	/* running: its usage is counted */
	SCHED_JOB_NO_QUEUE,	/* running, without LocalQueue/ClusterQueue */
	SCHED_JOB_NO_FLAVOR,	/* running, no flavor of its queue covers it */
	SCHED_JOB_USAGE_COUNT
};

/*
 * Kueue suspends a Job until its Workload is admitted, so a workload made
 * from a Job with spec.suspend false and status.active > 0 runs already:
 * count active x the per-pod requests as quota usage of its ClusterQueue,
 * on the queue's first flavor that the pod template may use (node
 * selector, affinity, taints) and that has quota for every resource it
 * requests; its node usage is unknown. Such a workload (and any but
 * SCHED_JOB_NOT_RUNNING) must not be submitted. A Job that a Workload
 * (metadata.ownerReferences) or pods (label job-name) of the input stand
 * for is not counted: those are. wl must be NEW.
 */
enum sched_job_usage sched_assume_job(struct sched *s, uint32_t wl);

/*
 * Queue wl (a NEW or FINISHED workload) at now_us. One that cannot be
 * queued stays pending outside every queue, with its reason: deactivated,
 * no LocalQueue or ClusterQueue, a stopped LocalQueue (OnHold), or a
 * namespace that its ClusterQueue's namespaceSelector does not select
 * (Misconfigured). The last two hold for every later requeue as well.
 */
void sched_submit(struct sched *s, uint32_t wl, int64_t now_us);

/*
 * Queue wl as sched_submit() does, but only from requeue_at_us on: a
 * Workload whose status.requeueState.requeueAt is still to come continues
 * the backoff it was in (Requeued=False until then).
 */
void sched_submit_after(struct sched *s, uint32_t wl, int64_t requeue_at_us,
			int64_t now_us);

/*
 * Run one admission cycle at now_us: admit as many pending workloads as
 * fit, preempting where policies allow. Appends what it did to out (may
 * be NULL). Returns the number of decisions.
 */
size_t sched_cycle(struct sched *s, int64_t now_us,
		   struct sched_decisions *out);

/*
 * With opt.hold_victims: the pods of preempted wl are gone; its quota and
 * nodes are released (its preemptor may be admitted at the next cycle)
 * and it is queued again. Nothing when wl holds nothing.
 */
void sched_victim_released(struct sched *s, uint32_t wl, int64_t now_us);

/* Whether wl is a victim still holding its quota (hold_victims). */
bool sched_wl_held(const struct sched *s, uint32_t wl);
/* How many of preemptor wl's victims still hold their quota: it waits
 * for them (hold_victims). O(1). */
uint32_t sched_wl_victims_held(const struct sched *s, uint32_t wl);
/* Count again each preemptor's victims from the victims' links (after a
 * restore that may have dropped some). */
void sched_recount_victims(struct sched *s);

/* wl (admitted) completed: release its quota and placement; its Finished
 * condition says reason and message (Kueue's "Succeeded", "Failed",
 * "OwnerNotFound"; message copied). sched_finish is sched_finish_as with
 * "Succeeded" and "Job finished successfully". */
void sched_finish(struct sched *s, uint32_t wl, int64_t now_us);
void sched_finish_as(struct sched *s, uint32_t wl, const char *reason,
		     const char *message, int64_t now_us);

/*
 * Evict admitted wl with Kueue's Evicted reason (e.g. "PodsReadyTimeout")
 * and queue it again in its LocalQueue's ClusterQueue (none without a
 * LocalQueue: it stays pending, Misconfigured). As Kueue's
 * GetQueueOrderTimestamp, its place is its creation time, or now_us after
 * a "PodsReadyTimeout" under the Eviction requeuing strategy.
 */
void sched_evict(struct sched *s, uint32_t wl, const char *reason,
		 int64_t now_us);

/*
 * Evict admitted wl like sched_evict(), but queue it again only at the
 * first sched_cycle() at or after requeue_at_us (Kueue's
 * requeueState.requeueAt). Until then it is PENDING in no queue, with
 * condition Requeued=False and a pending message that names the time.
 * requeue_at_us <= now_us is exactly sched_evict(). reason is static.
 */
void sched_evict_until(struct sched *s, uint32_t wl, const char *reason,
		       int64_t requeue_at_us, int64_t now_us);

/*
 * sched_evict_until(), but with opt.hold_victims wl keeps its quota and
 * nodes until sched_victim_released(), as a preempted victim does: a gang
 * evicted because a bind failed may have pods still bound, and nothing
 * else may take their place before they are gone. It is queued again at
 * requeue_at_us or at its release, whichever is later. Without
 * hold_victims, exactly sched_evict_until().
 */
void sched_evict_held(struct sched *s, uint32_t wl, const char *reason,
		      int64_t requeue_at_us, int64_t now_us);

/* The earliest requeue time of sched_evict_until() still to come, or
 * INT64_MAX when no workload waits: the driver runs a cycle then. */
int64_t sched_next_requeue_us(const struct sched *s);

/*
 * Deactivate wl for good (Kueue's spec.active: false, e.g. after the
 * backoff limit): an admitted one is evicted with reason (static, e.g.
 * "Deactivated"), a pending one leaves its queue or its backoff wait, and
 * neither is queued again; a NEW or FINISHED one stays out at its next
 * sched_submit(). The pending reason becomes SCHED_PEND_DEACTIVATED.
 * Idempotent.
 */
void sched_deactivate(struct sched *s, uint32_t wl, const char *reason,
		      int64_t now_us);

/*
 * Node node (an index into cluster->nodes) failed (down) or came back.
 * Down: it stops being schedulable in every topology index that holds it;
 * the usage of the admitted pods on it stays counted (their release later
 * is exact) and nothing is evicted here: the gang lifecycle decides.
 * Up: schedulable again (unless its own status says otherwise: NotReady
 * or cordoned), and the workloads parked on its flavors are tried again
 * at the next cycle. Flavors without a topology are not affected.
 * Idempotent.
 */
void sched_node_set_down(struct sched *s, uint32_t node, bool down,
			 int64_t now_us);

/*
 * Node node's status changed (Ready condition, spec.unschedulable, as a
 * cordon sets it): a node that is not Ready or is cordoned takes no new
 * pods in any topology index that holds it; the pods on it stay and are
 * not evicted here. A node that becomes schedulable again frees capacity
 * (parked workloads are tried at the next cycle). Idempotent.
 */
void sched_node_set_status(struct sched *s, uint32_t node, bool ready,
			   bool unschedulable);

/*
 * Usage that is not the core's changed on node node: requests req added
 * (sign 1) or taken away (-1), as by a pod that another scheduler bound
 * or a pod placed alone. The topology indexes that hold the node follow
 * (the cluster's node usage is the caller's); taken away, it frees
 * capacity as a release does.
 */
void sched_node_usage(struct sched *s, uint32_t node, const struct resvec *req,
		      int sign);

/*
 * Move pod pod of admitted wl (pods numbered over the spec: pod set 0's
 * first, then pod set 1's...) to the node called node (not NULL) in its
 * pod set's topology index: its requests leave the old node and go to the
 * new one, and the admission records the new node. This is what a driver
 * does for each pod of a GANG_REPLACED decision. Returns 0 (also when it
 * is there already), -EINVAL when wl is not admitted, pod is outside the
 * admitted counts or its pod set has no placement, -ENOENT when the node
 * is not in that index.
 */
int sched_move_pod(struct sched *s, uint32_t wl, uint32_t pod, const char *node,
		   int64_t now_us) MUST_CHECK;

/*
 * The scheduling state of one workload: what Kueue keeps in the Workload's
 * status (conditions, admission, requeueState.requeueAt, the queue-order
 * timestamp) and echelon's tie-breaks, so that a scheduler rebuilt over
 * the same cluster continues exactly as the old one would have.
 */
struct sched_saved {
	enum sched_wl_state state;
	bool deactivated;
	bool queued; /* PENDING in its ClusterQueue's queue */
	/* Parked (BestEffortFIFO: inadmissible until capacity is freed),
	 * with the reason of its class. */
	bool parked;
	enum sched_pend why;
	const char *why_msg;   /* borrowed; NULL: none */
	int64_t queue_ts_us;   /* queue-order timestamp */
	int64_t requeue_at_us; /* in backoff until then; 0: not */
	int64_t admit_us;
	uint64_t seq, admit_seq, admit_cycle;
	const struct sched_admission *adm;	       /* ADMITTED; borrowed */
	struct sched_condition cond[SCHED_COND_COUNT]; /* borrowed texts */
	/* A preempted workload still holding its quota (hold_victims):
	 * its admission, and its preemptor + 1; a preemptor's count of
	 * such victims. */
	const struct sched_admission *held;
	uint32_t held_for, victims_held;
	int64_t est_us; /* set by sched_wl_set_estimate(); 0: none */
	/* Its reservation (backfill): flavor id + 1 (0: none), start, and
	 * nodes in that flavor's index (borrowed). */
	int32_t resv_flavor;
	int64_t resv_start_us;
	const uint32_t *resv_nodes;
	size_t resv_nnodes;
};

/* Whether ClusterQueue cq had capacity freed since its last cycle (its
 * parked workloads are tried again at the next one), and set it so. */
bool sched_cq_dirty(const struct sched *s, int32_t cq);
void sched_cq_set_dirty(struct sched *s, int32_t cq);

/* The state of workload id into *out; what it points to is s's, valid
 * until s changes. */
void sched_wl_export(const struct sched *s, uint32_t id,
		     struct sched_saved *out);
/*
 * Give NEW workload id the state *in (copied), as if it had lived here:
 * an admitted one counts its quota and placement, a pending one goes to
 * its queue or its backoff wait. Returns 0, or -EINVAL when the admission
 * names a ClusterQueue, flavor or pod sets this scheduler does not have.
 * Condition reasons must be static or live as long as s.
 */
int sched_wl_import(struct sched *s, uint32_t id, const struct sched_saved *in,
		    int64_t now_us) MUST_CHECK;
void sched_export_global(const struct sched *s, struct sched_global *out);
/* Set the counters; after every sched_wl_import(). */
void sched_import_global(struct sched *s, const struct sched_global *in);

void sched_decisions_init(struct sched_decisions *d);
void sched_decisions_release(struct sched_decisions *d);

/* Status of a workload. */
enum sched_wl_state sched_wl_state(const struct sched *s, uint32_t wl);
/* The order of wl's latest admission among all admissions (1, 2, ...;
 * unique), 0 when never admitted. */
uint64_t sched_wl_admit_seq(const struct sched *s, uint32_t wl);
/* Its ClusterQueue index (-1 when none), and that queue's name. */
int32_t sched_wl_cq(const struct sched *s, uint32_t wl);
const char *sched_cq_name(const struct sched *s, int32_t cq);
/* Whether ClusterQueue cq admits (not stopped, deleted, in a cohort
 * cycle, or naming a missing flavor or topology); why not into *ret_why
 * (static text; may be NULL) when it does not. */
bool sched_cq_active(const struct sched *s, int32_t cq, const char **ret_why);
/*
 * Effective priority, the first that applies: the WorkloadPriorityClass
 * named (Workload spec.priorityClassName, Job label
 * kueue.x-k8s.io/priority-class), Workload spec.priority, the pod
 * template's PriorityClass (spec.priorityClassName; also the built-in
 * system-cluster-critical and system-node-critical), the pod template's
 * spec.priority, the PriorityClass with globalDefault, 0. A class that is
 * not defined is skipped.
 */
int32_t sched_wl_priority(const struct sched *s, uint32_t wl);
/* The admission of an admitted workload, else NULL. */
const struct sched_admission *sched_wl_admission(const struct sched *s,
						 uint32_t wl);
/* The admission whose quota wl holds: its admission while admitted,
 * the one it keeps while preempted and not yet gone, else NULL. */
const struct sched_admission *sched_wl_reserved(const struct sched *s,
						uint32_t wl);
/* The pending reason code and its message into msg (may be NULL). */
enum sched_pend sched_wl_pending(const struct sched *s, uint32_t wl,
				 struct strbuf *msg);
/* Whether pending wl's reason is TopologyPlacementFailed because, as a
 * compact gang (sched_options.compact), every placement free now would
 * span more domains than the fewest that could hold it. */
bool sched_wl_compact(const struct sched *s, uint32_t wl);
/* Whether pending wl waits for its requeue backoff (sched_evict_until()):
 * in no queue until then. */
bool sched_wl_backoff(const struct sched *s, uint32_t wl);
/* A key of everything sched_wl_pending() reads for wl (never 0): while it
 * stays the same, so do the code and the message, so a caller that keeps
 * the last key need not build the message again. Keys of a rebuilt
 * scheduler differ from the old one's. */
uint64_t sched_wl_pending_key(const struct sched *s, uint32_t wl);
/* A condition of wl (present false when it has none of that type). */
struct sched_condition sched_wl_condition(const struct sched *s, uint32_t wl,
					  enum sched_cond type);
/* How many times a condition of wl was set to another status, reason or
 * message: a status writer recomputes only when this (or other state)
 * moved. Starts at 0 in a new scheduler. */
uint64_t sched_wl_cond_changes(const struct sched *s, uint32_t wl);
/* Whether wl is among its ClusterQueue's pending workloads, as
 * sched_positions() lists them (a position >= 0): queued, parked, or
 * preempted and queued again at the next cycle. O(1). */
bool sched_wl_listed(const struct sched *s, uint32_t wl);
/*
 * 0-based positions of every pending workload in its ClusterQueue and
 * LocalQueue (the order the next cycle would try them), into cq_pos and
 * lq_pos indexed by workload (-1 for workloads not queued). Arrays of
 * cluster->workloads.len entries.
 */
void sched_positions(const struct sched *s, int64_t *cq_pos, int64_t *lq_pos);

/* The topology index of flavor id f, or NULL when it is not TAS. */
const struct topo *sched_topo(const struct sched *s, int32_t f);
/* The quota tree, read-only (for checks and reports). */
const struct quota *sched_quota(const struct sched *s);
/* Quota usage of ClusterQueue cq for flavor id flavor and resource id
 * resource (admitted workloads, running pods and Jobs). */
int64_t sched_cq_usage(const struct sched *s, int32_t cq, int32_t flavor,
		       int resource);
/* cq's nominal quota of resource summed over the flavors that list it,
 * or -1 when none does. */
int64_t sched_cq_nominal(const struct sched *s, int32_t cq, int resource);

/*
 * Runtime estimates (docs/internals/backfill.md). The driver may give wl
 * an estimate of its runtime, est_us > 0 (the simulator: the trace's
 * duration, a per-queue history, perturbed when asked); 0 takes it back.
 * It stays through sched_wl_update() and is exported with the state.
 */
void sched_wl_set_estimate(struct sched *s, uint32_t wl, int64_t est_us);
/* wl's estimated runtime: the driver's, else its own limit
 * (workload.max_exec_us); 0 when it has none. */
int64_t sched_wl_estimate(const struct sched *s, uint32_t wl);

/* The counters of backfill. */
struct sched_backfill_stats sched_backfill_stats(const struct sched *s);

/*
 * The admission attempts of s that ran the placement engine, numbered
 * from 0: returns how many so far, and in *ret_stamp (NULL: not wanted)
 * the identity of s, since a rebuilt scheduler numbers afresh.
 * sched_place_time_at() is attempt i while it is among the last
 * SCHED_PLACE_LOG, NULL otherwise; valid until the next cycle.
 */
uint64_t sched_place_attempts(const struct sched *s, uint64_t *ret_stamp);
const struct sched_place_time *sched_place_time_at(const struct sched *s,
						   uint64_t i);
/* wl's reservation: its flavor (-1: none) and start into *ret_start_us
 * (may be NULL); its nodes (in that flavor's index) into *ret_nodes and
 * their number into *ret_n when not NULL (valid until s changes). */
int32_t sched_wl_reservation(const struct sched *s, uint32_t wl,
			     int64_t *ret_start_us, const uint32_t **ret_nodes,
			     size_t *ret_n);

/* Names of the enums above. */
const char *sched_pend_name(enum sched_pend p);
const char *sched_preempt_reason_name(enum sched_preempt_reason r);
const char *sched_cond_name(enum sched_cond c);

#endif

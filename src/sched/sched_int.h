/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the scheduler core shared by its files (sched.c: state and
 * lifecycle; sched_cycle.c: the cycle; assign.c: flavor assignment;
 * preempt.c: victim selection; tas.c: placements; nodes.c: node failures
 * and pod moves). Not an API: nothing outside src/sched includes it.
 *
 * Invariants: a workload is in at most one queue (its ClusterQueue's heap
 * or one parking class of it, or the queue of workloads waiting for their
 * requeue time), and in one only while PENDING; a deactivated workload is
 * in none; an admitted workload's quota usage is in the quota tree and
 * its placement applied to the topology index of its flavor, exactly
 * once, on the nodes its admission records.
 */
#ifndef ECHELON_SCHED_SCHED_INT_H
#define ECHELON_SCHED_SCHED_INT_H

#include "base/dirty.h"
#include "base/hmap.h"
#include "place/place_flavors.h"
#include "place/place_workload.h"
#include "sched/queue.h"
#include "sched/quota.h"
#include "sched/sched.h"

/* A workload's conditions, made when the first is set: most queued
 * workloads have none, and a queue may hold millions. */
struct sched_conds {
	struct sched_condition cond[SCHED_COND_COUNT];
	char *msg[SCHED_COND_COUNT]; /* owned messages */
};

/* The reason a workload is pending, with numbers. */
struct sched_why {
	enum sched_pend code;
	char *msg;	/* owned; NULL: none */
	uint64_t stamp; /* unique per sched_why_set(); 0: never set */
};

struct sched_wl {
	const struct workload *w;
	int32_t cq, lq; /* -1: none */
	int32_t priority;
	enum sched_wl_state state;
	bool deferred;	  /* evicted this cycle: queued again next cycle */
	bool deactivated; /* sched_deactivate(): never queued again */
	/* Made from a Job: a Workload of the input is its own (ownerRef),
	 * its pods are in the input (label job-name), sched_assume_job()
	 * counted it or found it counted otherwise (never queued then). */
	bool job_own_wl, job_pods, assumed;
	int64_t requeue_at_us; /* in s->waiting: queued again from then */
	int64_t queue_ts_us;
	int64_t admit_us;      /* QuotaReserved's time */
	int64_t est_us;	       /* sched_wl_set_estimate(); 0: none */
	int64_t order_est_us;  /* sched_wl_cmp(): estimate when queued */
	uint64_t seq;	       /* submission order, the last tie-break */
	uint64_t admit_seq;    /* admission order (victims: newest first);
				  0 for admissions loaded with the input */
	uint64_t admit_cycle;  /* the cycle that admitted it: not a victim
				  of that same cycle */
	uint64_t hash;	       /* scheduling shape (parking class) */
	uint64_t phash;	       /* placement shape: pod sets only */
	int32_t klass;	       /* parking class in its queue, or -1 */
	uint32_t resmask;      /* resources its pod sets request, bit r */
	uint32_t adm_pos;      /* index in its queue's admitted list */
	uint32_t victims_held; /* as a preemptor: victims not yet gone */
	/* Preempted with opt.hold_victims: its quota and nodes, still
	 * charged until sched_victim_released(); and its preemptor + 1. */
	uint32_t held_for;
	struct sched_admission *held;
	struct sched_admission *adm;
	struct sched_why why;
	struct sched_conds *conds; /* owned; NULL until one is set */
	uint64_t cond_changes;	   /* sched_set_cond() changed conds */
};

/*
 * The pending workloads of one shape in a BestEffortFIFO queue. Only the
 * best of them ("out") is in the queue's heap, so the heap is a merge of
 * classes and a class that does not fit is parked as a whole in O(1):
 * its members are never looked at until capacity changes.
 */
struct sched_class {
	uint64_t hash;
	struct queue q;	      /* members not in the heap, in queue order */
	uint32_t out;	      /* the member in the heap, or QUEUE_NONE */
	bool parked;	      /* did not fit; waits for a release */
	struct sched_why why; /* of the last failure */
	/* What its members' QuotaReserved shows, as last marked: why's
	 * stamp while parked, else 0 (sched_settle_classes()); and whether
	 * it is in sched.moved. */
	uint64_t shown;
	bool moved;
};

/* A class, by its queue and index (classes are never freed). */
struct sched_class_ref {
	int32_t cq;
	uint32_t k;
};

struct sched_cq {
	const struct cluster_queue *cq;
	bool active;
	const char *inactive; /* why not active (static text) */
	struct queue heap;
	struct hmap class_of; /* hash -> index in classes */
	VEC(struct sched_class) classes;
	VEC(uint32_t) admitted;
	bool drains;	   /* HoldAndDrain may evict here (init_drains()) */
	bool dirty;	   /* capacity changed: unpark at the next cycle */
	bool blocked;	   /* StrictFIFO head did not fit this cycle */
	int32_t root;	   /* quota node of its tree's root */
	int32_t **gflavor; /* [group][k]: flavor id of the k-th flavor, -1
			      when it does not exist */
	/* The head's assignment as Kueue's cycle sees it, worked out once
	 * per head and cycle (assign_estimate): its borrowing level and the
	 * flavor of each resource it requests (-1: none). */
	uint32_t est_id;
	uint64_t est_cycle;
	int32_t est_level;
	int16_t est_flavor[RESOURCE_MAX];
	int64_t est_need[RESOURCE_MAX];
	/* opt.hold_victims: the first of its workloads that waits for its
	 * victims (QUEUE_NONE: none); the ones behind it wait too, as they
	 * do behind Kueue's head of the queue. Set each cycle. */
	uint32_t waiting;
};

/* A node on a queue's path to its root, with the queue's head admitted:
 * its dominant share and whether it borrows a requested pair. */
struct sched_fs_level {
	int64_t share;
	bool borrows;
};

#define SCHED_SCRATCH_SLOTS 32

/* A placement that failed, valid while no usage is released. */
struct sched_tas_fail {
	uint64_t epoch;
	char *msg;
};

struct sched_tas {
	const struct flavor *fl;
	struct topo *t;
};

/* A reservation of backfill.c: the nodes of f's index, in whole domains
 * of the level above the hosts, that gang wl is expected to fit on from
 * start_us (docs/internals/backfill.md). */
struct sched_resv {
	uint32_t wl;
	int32_t f;
	int64_t start_us;
	VEC(uint32_t) nodes;
};

#define SCHED_MAX_RESERVATIONS 16

struct sched {
	const struct cluster *c;
	uint64_t stamp; /* unique per scheduler, as sched_why's stamps */
	struct sched_options opt;
	struct quota q;
	struct sched_wl *wl; /* [nwl]; w NULL: a free slot */
	size_t nwl;
	const struct workload *wl_base; /* c->workloads.items seen last */
	uint32_t *pos;			/* queue positions, [nwl] */
	struct sched_cq *cqs;		/* [ncq] */
	size_t ncq;
	struct sched_tas *tas; /* [nflavors]; t NULL when not TAS */
	/* [nflavors] CQs to wake when capacity on the flavor's nodes grows:
	 * those listing it or a TAS flavor that shares a node with it. */
	VEC(int32_t) * flavor_cqs;
	/* The indexes of tas[].t, whose node usage is shared by every index
	 * that holds the node (flavors may select overlapping nodes). */
	struct place_flavors pf;
	VEC(uint32_t) deferred;
	/* Evicted with a requeue time still to come, by (time, index). */
	struct queue waiting;
	bool *node_down; /* [c->nodes.len], sched_node_set_down() */
	uint64_t seq, admit_seq;
	uint64_t cycle;	     /* cycles run */
	size_t cycle_admits; /* admissions in the current cycle */
	uint64_t epoch;	     /* bumped whenever capacity grows */
	int64_t *fs_extra;   /* [q.nfr] zeroes: a head's usage, for shares */
	/* sched_cycle.c, fair sharing: per queue and level of its path
	 * (0: the queue, 1: its cohort...), fs_depth levels each. */
	struct sched_fs_level *fs_path;
	size_t fs_depth;
	void *cand_buf; /* preempt.c: candidates, cand_cap of them */
	size_t cand_cap;
	bool requeue_by_creation;
	/* The current attempt's time in the placement engine, whether it
	 * ran it; the last attempts that did (sched_place_attempts()). */
	int64_t place_ns;
	bool placed;
	uint64_t nplace;
	struct sched_place_time place_log[SCHED_PLACE_LOG];
	/* Placement results by shape, so that the engine's per-request
	 * cache stays warm across workloads of one shape. */
	struct place_workload_result *scratch[SCHED_SCRATCH_SLOTS];
	struct hmap tas_memo; /* (placement shape, flavor) -> tas_fails */
	uint64_t tas_gen;     /* bumped on every change of node usage */
	struct {	      /* the last successful tas_check() */
		uint32_t id;
		int32_t f;
		uint64_t gen;
		bool valid;
		struct place_workload_result *r;
	} last_check;
	VEC(struct sched_tas_fail) tas_fails;
	/* compact.c: (placement shape, flavor, pod set, count) -> the fewest
	 * domains per level, TOPOLOGY_MAX_LEVELS entries in compact_min. */
	struct hmap compact_memo;
	VEC(int32_t) compact_min;
	/* backfill.c: reservations (at most SCHED_MAX_RESERVATIONS), the
	 * nodes masked during one placement, the time of the current
	 * cycle, and the counters. */
	VEC(struct sched_resv) resv;
	VEC(uint32_t) masked;
	int64_t now_us;
	bool resv_stale; /* an admitted workload's estimate changed */
	struct sched_backfill_stats bf;
	/* sched_track(): each change of what a workload's status reads is
	 * marked in dirty (borrowed; NULL: not tracked); classes parked or
	 * unparked since the last sched_settle_classes(). */
	struct dirty *dirty;
	VEC(struct sched_class_ref) moved;
	size_t nheld; /* preempted workloads holding their quota */
};

/* The flavor assignment of one workload at given pod counts. */
enum assign_mode { ASSIGN_FIT, ASSIGN_PREEMPT, ASSIGN_NOFIT };

/*
 * Kueue's preemption modes of a flavor, from worst to best: no fit,
 * preemption needed but the oracle found no candidates, preemption with a
 * candidate in the preemptor's own queue, reclamation from other queues
 * only, fit.
 */
enum assign_pmode {
	ASSIGN_PM_NOFIT,
	ASSIGN_PM_NO_CANDIDATES,
	ASSIGN_PM_PREEMPT,
	ASSIGN_PM_RECLAIM,
	ASSIGN_PM_FIT,
};

struct assign {
	enum assign_mode mode;
	enum assign_pmode pmode; /* the worst of its groups' flavors */
	bool borrows;		 /* borrow_level > 0 */
	int32_t borrow_level;	 /* Kueue's Assignment.Borrows() */
	uint32_t preempt_res;	 /* resources whose flavor needs preemption
				    (Kueue's frsNeedPreemption), bit r */
	int32_t counts[WORKLOAD_MAX_PODSETS];
	int16_t flavor[RESOURCE_MAX]; /* per resource, -1 for none */
	int64_t need[RESOURCE_MAX];   /* total request per resource */
	int32_t tas_flavor;	      /* -1: no placement needed */
	bool tas_short;		      /* quota fits, placement does not */
	struct sched_why why;	      /* when not FIT */
};

/* sched.c */
/* Workload id's state changed (sched_track()). */
void sched_touch(struct sched *s, uint32_t id);
/* Class k of queue q was parked or unparked: what its members show may
 * change (with tracking only). */
void sched_class_moved(struct sched *s, struct sched_cq *q,
		       struct sched_class *k);
/* Mark the members of every moved class whose parked reason, as its
 * members show it, is not what was marked last. */
void sched_settle_classes(struct sched *s);
int sched_wl_cmp(const struct sched *s, uint32_t a, uint32_t b);
/* By namespace, then name, then index: the tie-break that makes decisions
 * independent of the order of the input. */
int sched_name_cmp(const struct sched *s, uint32_t a, uint32_t b);
/* Index of the LocalQueue or ClusterQueue named, or -1. */
int32_t sched_find_index(const struct cluster *c, enum kind k, const char *ns,
			 const char *name);
void sched_why_set(struct sched_why *w, enum sched_pend code, char *msg);
void sched_enqueue(struct sched *s, uint32_t id);
void sched_park(struct sched *s, uint32_t id, struct sched_why *why);
void sched_leave_heap(struct sched *s, uint32_t id);
void sched_unpark_dirty(struct sched *s);
void sched_admit(struct sched *s, uint32_t id, const struct assign *a,
		 int64_t now_us);
void sched_release(struct sched *s, uint32_t id);
void sched_preempt(struct sched *s, uint32_t victim, uint32_t by,
		   enum sched_preempt_reason reason, int64_t now_us);
void sched_set_cond(struct sched_wl *wl, enum sched_cond c, bool status,
		    const char *reason, char *msg, int64_t now_us);
/* Condition c of wl as set (present false when never). */
const struct sched_condition *sched_cond_of(const struct sched_wl *wl,
					    enum sched_cond c);
/* Free wl's conditions. */
void sched_conds_free(struct sched_wl *wl);
/* The reason of a member of a parked class (BestEffortFIFO's
 * inadmissible workloads), or NULL when id is not parked. */
const struct sched_why *sched_parked_why(const struct sched *s, uint32_t id);
/* Hold for id the admission of a restored victim (taken). */
void sched_hold_restored(struct sched *s, uint32_t id,
			 struct sched_admission *held);
void sched_free_adm(struct sched_admission *adm);
/* Admit id with an admission restored from an export (adm is taken). */
void sched_admit_restored(struct sched *s, uint32_t id,
			  struct sched_admission *adm, int64_t admit_us);
/* Queue the workloads whose requeue time is at or before now_us. */
void sched_requeue_due(struct sched *s, int64_t now_us);

/* assign.c */
/* Whether ClusterQueue cq has any preemption policy that applies. */
bool assign_can_preempt(const struct sched *s, int32_t cq);
/* Whether w may use flavor fl (node selector, required affinity, taints,
 * topology request); why not into out. */
bool assign_eligible(const struct sched *s, const struct workload *w,
		     const struct flavor *fl, struct strbuf *out);
void assign_init(struct assign *a);
void assign_release(struct assign *a);
/*
 * Choose flavors for wl at counts (NULL: full counts) against current
 * usage and decide FIT / PREEMPT / NOFIT. a is overwritten.
 */
void assign_workload(struct sched *s, uint32_t id, const int32_t *counts,
		     struct assign *a);
/*
 * The flavors Kueue's assigner would choose for wl at full counts by quota
 * alone (no placement, no preemption oracle) and the borrowing level of
 * that assignment (Kueue's Assignment.Borrows()), against current usage:
 * what orders the heads of a cycle. flavor[r] is -1 for resources without
 * a flavor; need[r] the total request. Changes nothing.
 */
int32_t assign_estimate(struct sched *s, uint32_t id,
			int16_t flavor[RESOURCE_MAX],
			int64_t need[RESOURCE_MAX]);
/* Whether wl fits a's flavors now (quota, and placement when TAS);
 * without borrowing beyond its nominal quota unless allow_borrow. */
bool assign_fits(struct sched *s, uint32_t id, const struct assign *a,
		 bool allow_borrow);
/* Add (sign 1) or remove (-1) a's quota usage in ClusterQueue cq. */
void assign_charge(struct sched *s, int32_t cq, const struct assign *a,
		   int sign);

/* preempt.c */
/*
 * Find a minimal set of admitted workloads whose eviction lets wl fit a
 * (whose mode is PREEMPT). Returns the number of targets (0: none); the
 * targets and their reasons go to arrays allocated here (caller frees,
 * also when 0 is returned).
 */
size_t preempt_find(struct sched *s, uint32_t id, const struct assign *a,
		    uint32_t **ret_targets,
		    enum sched_preempt_reason **ret_reasons);

/*
 * Kueue's preemption oracle: whether victims can be found for probe (an
 * assignment of the resources that need preemption on one flavor):
 * ASSIGN_PM_NO_CANDIDATES, ASSIGN_PM_PREEMPT (a victim is in id's own
 * queue) or ASSIGN_PM_RECLAIM (all in other queues); the borrowing level
 * after evicting them into *ret_borrow. Changes nothing.
 */
enum assign_pmode preempt_oracle(struct sched *s, uint32_t id,
				 const struct assign *probe,
				 int32_t *ret_borrow);

/* running.c */
/* Mark the Jobs that a Workload or pods of the input stand for. */
void running_init(struct sched *s);

/* tas.c */
/* Build the topology index of every TAS flavor of c. */
void tas_build(struct sched *s);
/* Add the CQs of every TAS flavor sharing a node with f to flavor_cqs[f];
 * after tas_build() and the CQs. */
void tas_wake_shared(struct sched *s);
void tas_free(struct sched *s);
/*
 * Place wl at counts on TAS flavor f. With apply, keep the usage on the
 * index and fill ps[i].nodes (allocated) for each pod set. Returns fit;
 * on failure the reason text goes to why (may be NULL).
 */
bool tas_place(struct sched *s, int32_t f, const struct workload *w,
	       const int32_t *counts, bool apply, struct sched_admission *adm,
	       struct strbuf *why);
/*
 * Place wl (full counts) on f without applying, remembering failures:
 * a shape that did not fit f fails again without a new try until usage is
 * released (epoch), whatever its queue. Returns fit; the reason into why.
 */
bool tas_check(struct sched *s, int32_t f, uint32_t id, struct strbuf *why);
/* Add (sign 1) or remove (-1) the node usage recorded in adm. */
void tas_charge(struct sched *s, const struct workload *w,
		const struct sched_admission *adm, int sign);
/*
 * Nodes of an admission given as a topologyAssignment (status.admission
 * of a loaded workload): resolve each domain to its unit and put its pods
 * on the unit's nodes. Returns 0 or -ENOENT when a domain is unknown.
 */
int tas_resolve(struct sched *s, int32_t f, const struct podset *ps,
		const struct topology_assignment *ta, int32_t count,
		struct sched_podset_admission *pa) MUST_CHECK;
/* compact.c */
/* How the pending message of a compact gang's failure starts: the one
 * thing that tells it from other topology failures (sched_wl_compact()). */
#define SCHED_COMPACT_WHY "compact placement: "
/*
 * Whether the fitting placement r of wl at counts (NULL: full) on flavor
 * f spans, at every level above the lowest, no more domains than the
 * fewest that could hold each pod set; why not into why (may be NULL).
 */
bool compact_check(struct sched *s, int32_t f, uint32_t id,
		   const struct place_workload_result *r, const int32_t *counts,
		   struct strbuf *why);
/*
 * After a fitting placement r of tmp (wl at counts) on f: true when it is
 * compact. Otherwise it is taken back (when applied) and, for pod sets
 * without a request of their own (Kueue's implied or unconstrained
 * placement packs into the fullest domains), tried once more preferring
 * the level above the hosts; true when that one is compact (then kept,
 * applied when apply). tmp's requests may be changed. The reason of the
 * first failure goes to why (may be NULL) on false.
 */
bool compact_place(struct sched *s, int32_t f, uint32_t id,
		   struct workload *tmp, struct place_workload_result *r,
		   const int32_t *counts, bool apply, struct strbuf *why);
/* Take back the usage that an applied placement r added to f's index. */
void compact_unapply(struct sched *s, int32_t f, const struct workload *w,
		     const struct place_workload_result *r,
		     const int32_t *counts);

/* backfill.c */
/*
 * Gang id (its assignment a: quota fits, placement does not on
 * a->tas_flavor) waits: reserve the domains it is expected to fit in
 * earliest, by the estimated ends of the workloads there. Nothing when
 * it has more than one pod set, a single pod, or no estimated time fits.
 */
void backfill_reserve(struct sched *s, uint32_t id, const struct assign *a);
/* id leaves the pending state (admitted: count the reservation's delay
 * into the counters) or is removed: its reservation goes. */
void backfill_drop(struct sched *s, uint32_t id, bool admitted);
/* Before placing id on f: take out of f's index the reserved nodes it may
 * not use (it is not expected to end before the reservation starts, or
 * has no estimate), until backfill_unmask(). */
void backfill_mask(struct sched *s, int32_t f, uint32_t id);
void backfill_unmask(struct sched *s, int32_t f);
/* At the start of a cycle: reservations of workloads no longer pending
 * go, those that an estimate change made stale are made again. */
void backfill_cycle(struct sched *s);
/* Pending id is imported with its reservation (in->resv_*; nothing
 * when it has none or names nodes the index does not have). */
void backfill_import(struct sched *s, uint32_t id,
		     const struct sched_saved *in);
void backfill_free(struct sched *s);

/* The level-l domain of node n on the index of flavor f. */
uint32_t tas_domain_of(const struct sched *s, int32_t f, uint32_t node,
		       unsigned level);

#endif

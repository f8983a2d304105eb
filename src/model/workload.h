/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Workload (kueue.x-k8s.io Workload, or one made from a batch/v1 Job): the
 * pod sets of one job as the scheduler sees them, its queue and priority,
 * and, once admitted, its admission (ClusterQueue, flavors, counts and
 * topology assignment per pod set).
 *
 * Each pod set's requests are per pod and already include one "pods" unit.
 * Its metadata.annotations are kept as they are; echelon's simulation
 * inputs among them (sim.echelon.dev/...) are read with model/ann.h.
 * Strings are interned in the owning cluster; a workload owns its arrays.
 */
#ifndef ECHELON_MODEL_WORKLOAD_H
#define ECHELON_MODEL_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/errbuf.h"
#include "base/vec.h"
#include "model/label.h"
#include "model/resvec.h"
#include "model/selector.h"
#include "model/taint.h"

#define WORKLOAD_MAX_PODSETS   8
#define SLICE_MAX_LAYERS       3
#define WORKLOAD_CLASS_MAX_LEN 63

enum topology_mode {
	TOPOLOGY_NONE, /* no request: implied by the flavor */
	TOPOLOGY_REQUIRED,
	TOPOLOGY_PREFERRED,
	TOPOLOGY_UNCONSTRAINED,
	TOPOLOGY_MODE_COUNT
};

struct slice_layer {
	const char *level;
	int32_t size;
};

struct topology_request {
	enum topology_mode mode;
	const char *level; /* required/preferred level; NULL otherwise */
	/* Slices: single layer (podSetSliceRequiredTopology + size), or up to
	 * SLICE_MAX_LAYERS layers, outermost first. nslices is 0 without. */
	struct slice_layer slices[SLICE_MAX_LAYERS];
	size_t nslices;
	const char *group_name;	     /* podSetGroupName; NULL when none */
	const char *pod_index_label; /* NULL when none */
};

/* One preferredDuringSchedulingIgnoredDuringExecution term. */
struct preferred_term {
	int32_t weight; /* 1..100 */
	struct selector match;
};

struct podset {
	const char *name;
	int32_t count;
	int32_t min_count; /* == count unless partial admission is allowed */
	struct resvec requests;
	struct labels node_selector;
	struct node_affinity affinity;
	struct preferred_term *preferred; /* owned; NULL when none */
	size_t npreferred;
	struct toleration *tolerations;
	size_t ntolerations;
	struct topology_request topology;
	struct srcpos pos;
};

struct topology_domain {
	const char **values; /* one per level */
	int32_t count;
};

struct topology_assignment {
	const char **levels;
	size_t nlevels;
	struct topology_domain *domains;
	size_t ndomains;
};

struct podset_admission {
	const char *name;
	int32_t count;
	const char *flavors[RESOURCE_MAX];    /* by resource id; NULL: none */
	struct topology_assignment *topology; /* NULL: none */
};

struct admission {
	const char *cluster_queue;
	struct podset_admission podsets[WORKLOAD_MAX_PODSETS];
	size_t npodsets;
};

/*
 * Kueue's condition types of a Workload's status.conditions that echelon
 * reads: the admission it holds and how it got there. The scheduler ranks
 * preemption candidates loaded as admitted by QuotaReserved's time (Kueue
 * ranks "admitted more recently first"); the others are kept for drivers
 * that continue a live Workload (eviction reason and time, backoff).
 */
enum workload_cond {
	WORKLOAD_COND_QUOTA_RESERVED,
	WORKLOAD_COND_ADMITTED,
	WORKLOAD_COND_EVICTED,
	WORKLOAD_COND_PREEMPTED,
	WORKLOAD_COND_REQUEUED,
	WORKLOAD_COND_FINISHED,
	WORKLOAD_COND_PODS_READY,
	WORKLOAD_COND_COUNT
};

struct workload_condition {
	bool present;
	bool status;	       /* "True" */
	const char *reason;    /* NULL when absent */
	int64_t transition_us; /* lastTransitionTime; 0 when absent */
};

/* status.requeueState: Kueue's waitForPodsReady backoff. */
struct workload_requeue_state {
	bool present;
	int32_t count;
	int64_t requeue_at_us; /* requeueAt; 0 when absent */
};

/* What a batch/v1 Job says about its own progress. */
struct job_status {
	bool suspend;	/* spec.suspend (false when absent) */
	int32_t active; /* status.active: pods running or pending */
	int32_t ready;	/* status.ready; -1 when absent */
};

struct workload {
	const char *ns;
	const char *name;
	const char *queue_name; /* LocalQueue; NULL when none */
	/* A WorkloadPriorityClass (Workload spec.priorityClassName or
	 * priorityClassRef, a Job's label kueue.x-k8s.io/priority-class);
	 * NULL when none. */
	const char *priority_class_name;
	int32_t priority; /* spec.priority, when has_priority */
	bool has_priority;
	/* The pods' scheduling.k8s.io PriorityClass (the one a Workload
	 * names through priorityClassSource or priorityClassRef, else the
	 * pod templates' spec.priorityClassName) and spec.priority: the
	 * first pod set's that has one. sched_wl_priority() says in which
	 * order they count. */
	const char *pod_priority_class_name; /* NULL when none */
	int32_t pod_priority;		     /* when has_pod_priority */
	bool has_pod_priority;
	bool active;
	int64_t creation_us; /* metadata.creationTimestamp; 0 when absent */
	/* The controlling owner: the Job a workload was made from (from_job),
	 * or a Workload's metadata.ownerReferences entry (controller: true,
	 * else the first). NULL when none. */
	const char *owner_kind;
	const char *owner_name;
	bool from_job;	       /* made from a batch/v1 Job */
	struct job_status job; /* when from_job */
	/* metadata.annotations of the Workload or Job, as they are (strings
	 * interned); echelon's own are read with model/ann.h. */
	struct labels annotations;
	/* [npodsets], at most WORKLOAD_MAX_PODSETS: allocated to the count,
	 * since a queued workload usually has one pod set and a queue may
	 * hold millions. Owned, or shared read-only with other workloads of
	 * the same shape (workload_share_podsets()): freed with the last
	 * workload that holds them. A struct copy of a workload shares them
	 * without counting: only one of the two is released. */
	struct podset *podsets;
	size_t npodsets;
	struct admission *admission; /* owned; NULL while not admitted */
	/* status.conditions by type (the known ones) and requeueState. */
	struct workload_condition *cond; /* [WORKLOAD_COND_COUNT], owned;
					    NULL when there are none */
	struct workload_requeue_state requeue;
	struct srcpos pos;
};

/* An empty workload: active, job.ready -1. */
void workload_init(struct workload *w);
void workload_release(struct workload *w);
/* Append an initialised pod set; NULL when WORKLOAD_MAX_PODSETS are used.
 * Pointers to w's earlier pod sets are stale afterwards. BUG when w's pod
 * sets are shared. */
struct podset *workload_add_podset(struct workload *w);
/* w, which has no pod sets, holds src's from now on, shared: neither may
 * change them (workload_add_podset() or a write through w->podsets); each
 * releases its hold with workload_release(). Nothing when src has none. */
void workload_share_podsets(struct workload *w, const struct workload *src);
/* Whether w's pod sets are held by another workload too. */
bool workload_podsets_shared(const struct workload *w);
void podset_init(struct podset *ps);
void podset_release(struct podset *ps);
void topology_assignment_free(struct topology_assignment *ta);
/* Free an array of preferred terms and their selectors; NULL ok. */
void preferred_terms_free(struct preferred_term *terms, size_t n);
/* Total pods over all pod sets. */
int64_t workload_pod_count(const struct workload *w);
/* Whether s (not NULL) is a valid job class (model/ann.h): 1 to
 * WORKLOAD_CLASS_MAX_LEN ASCII letters, digits, '.', '_' and '-'. */
bool workload_class_valid(const char *s);
const char *topology_mode_name(enum topology_mode mode);
/* Condition k of w's status (present false when it has none). */
const struct workload_condition *workload_cond(const struct workload *w,
					       enum workload_cond k);
/* Condition k of w to set, the array made on first use. */
struct workload_condition *workload_cond_set(struct workload *w,
					     enum workload_cond k);
/* Kueue's name of a condition type ("QuotaReserved"). */
const char *workload_cond_name(enum workload_cond c);

/*
 * Check a pod set's topology request against Kueue's validation rules that
 * need no Topology: slice size with a slice level, sizes dividing the
 * count and each other, at most SLICE_MAX_LAYERS unique layers, a group
 * name only with required or preferred. -EINVAL with a message naming the
 * field ("podSetSliceSize: must evenly divide count 6").
 */
int podset_check_topology(const struct podset *ps,
			  struct errbuf *eb) MUST_CHECK;

/* Whether a cluster's workload slot holds a workload (see
 * cluster_workload_put()). */
static inline bool workload_live(const struct workload *w)
{
	return w->name != NULL;
}

#endif

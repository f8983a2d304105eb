// SPDX-License-Identifier: Apache-2.0
/*
 * Kueue's metrics fed by the controller's events. Counters and histograms
 * move on events; what an event's histogram measures from (the time a
 * workload was queued or requeued, its admission) is kept per workload
 * slot, with the slot's generation, so that a slot reused by another
 * workload starts afresh. Gauges are set from the state on refresh, for
 * every ClusterQueue and LocalQueue, so that idle ones read zero.
 */
#include "obs/obs_metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "gang/gang.h"
#include "model/cluster.h"
#include "obs/obs_placement.h"
#include "sched/quota.h"
#include "sched/sched.h"
#include "topo/topo.h"

#include "base/banned.h"

/* Prometheus' default buckets, Kueue's for the attempt duration. */
static const double def_buckets[] = { .005, .01, .025, .05, .1, .25,
				      .5,   1,	 2.5,  5,   10 };

/* A placement takes microseconds to seconds: 10 us to 10 s, x2.5, x2. */
static const double place_buckets[] = { 1e-5, 2.5e-5, 5e-5,   1e-4, 2.5e-4,
					5e-4, 1e-3,   2.5e-3, 5e-3, .01,
					.025, .05,    .1,     .25,  .5,
					1,    2.5,    5,      10 };

enum fam {
	F_ATTEMPTS,
	F_ATTEMPT_DURATION,
	F_QUOTA_RESERVED,
	F_QUOTA_RESERVED_WAIT,
	F_ADMITTED,
	F_ADMISSION_WAIT,
	F_READY_WAIT,
	F_ADMITTED_UNTIL_READY,
	F_FINISHED,
	F_EXECUTION_TIME,
	F_EVICTED,
	F_PREEMPTED,
	F_LQ_QUOTA_RESERVED,
	F_LQ_QUOTA_RESERVED_WAIT,
	F_LQ_ADMITTED,
	F_LQ_ADMISSION_WAIT,
	F_LQ_READY_WAIT,
	F_LQ_ADMITTED_UNTIL_READY,
	F_LQ_FINISHED,
	F_LQ_EXECUTION_TIME,
	F_LQ_EVICTED,
	F_EVICTED_ONCE,
	F_COHORT_ADMITTED,
	F_GANG_BOUND_WAIT,
	F_GANG_PARTLY_BOUND,
	F_PLACE_DURATION,
	/* gauges */
	F_PENDING,
	F_RESERVING,
	F_ADMITTED_ACTIVE,
	F_FINISHED_ACTIVE,
	F_CQ_STATUS,
	F_NOMINAL,
	F_BORROWING,
	F_LENDING,
	F_RESERVATION,
	F_USAGE,
	F_LQ_PENDING,
	F_LQ_RESERVING,
	F_LQ_ADMITTED_ACTIVE,
	F_LQ_FINISHED_ACTIVE,
	F_LQ_STATUS,
	F_LQ_RESERVATION,
	F_LQ_USAGE,
	F_COHORT_ADMITTED_ACTIVE,
	F_PODGROUPS,
	F_DOMAIN_GPUS,
	F_DOMAIN_GPUS_USED,
	F_DOMAIN_FREE_HOSTS,
	F_CQ_CROSS_RACK,
	F_CQ_CROSS_BLOCK,
	F_COHORT_QUOTA,
	F_COHORT_RESERVATIONS,
	F_COHORT_INFO,
	F_CQ_INFO,
	F_UNADMITTED,
	F_LQ_UNADMITTED,
	F_CQ_SHARE,
	F_COHORT_SHARE,
	F_RESOURCE_PENDING,
	F_COUNT
};

#define B16	metrics_buckets_b16, METRICS_B16_LEN
#define B14	metrics_buckets_b16, METRICS_B14_LEN
#define COUNTER METRICS_COUNTER, NULL, 0
#define GAUGE	METRICS_GAUGE, NULL, 0
#define HIST	METRICS_HISTOGRAM

static const struct metrics_def defs[F_COUNT] = {
	[F_ATTEMPTS] = { "kueue_admission_attempts_total",
			 "Scheduler cycles, per 'result': 'success' (some "
			 "workload admitted) or 'inadmissible'.",
			 COUNTER },
	[F_ATTEMPT_DURATION] = { "kueue_admission_attempt_duration_seconds",
				 "Duration of a scheduler cycle, per 'result' "
				 "(simulated runs: 0).",
				 HIST, def_buckets,
				 sizeof(def_buckets) / sizeof(*def_buckets) },
	[F_QUOTA_RESERVED] = { "kueue_quota_reserved_workloads_total",
			       "Quota reservations, per 'cluster_queue'.",
			       COUNTER },
	[F_QUOTA_RESERVED_WAIT] = { "kueue_quota_reserved_wait_time_seconds",
				    "Time from a workload's creation or "
				    "requeue to its quota reservation.",
				    HIST, B14 },
	[F_ADMITTED] = { "kueue_admitted_workloads_total",
			 "Admissions, per 'cluster_queue'.", COUNTER },
	[F_ADMISSION_WAIT] = { "kueue_admission_wait_time_seconds",
			       "Time from a workload's creation or requeue "
			       "to its admission.",
			       HIST, B16 },
	[F_READY_WAIT] = { "kueue_ready_wait_time_seconds",
			   "Time from a workload's creation or requeue until "
			   "all its pods are Ready.",
			   HIST, B14 },
	[F_ADMITTED_UNTIL_READY] = { "kueue_admitted_until_ready_wait_time_"
				     "seconds",
				     "Time from a workload's admission until "
				     "all its pods are Ready.",
				     HIST, B14 },
	[F_FINISHED] = { "kueue_finished_workloads_total",
			 "Workloads finished, per 'cluster_queue'.", COUNTER },
	[F_EXECUTION_TIME] = { "kueue_execution_time_seconds",
			       "Time from a workload's first admission to its "
			       "finish, re-admissions included.",
			       HIST, B16 },
	[F_EVICTED] = { "kueue_evicted_workloads_total",
			"Evictions, per 'cluster_queue', 'reason' "
			"(Preempted, PodsReadyTimeout, NodeFailures, "
			"Deactivated, ...) and 'underlying_cause' (\"\" or "
			"RequeuingLimitExceeded).",
			COUNTER },
	[F_EVICTED_ONCE] = { "kueue_evicted_workloads_once_total",
			     "Workloads evicted, each counted once per "
			     "'reason' and 'underlying_cause', per "
			     "'cluster_queue' and 'priority_class'.",
			     COUNTER },
	[F_PREEMPTED] = { "kueue_preempted_workloads_total",
			  "Preemptions, per 'preempting_cluster_queue' and "
			  "'reason' (InClusterQueue, InCohortReclamation, "
			  "InCohortFairSharing, "
			  "InCohortReclaimWhileBorrowing).",
			  COUNTER },
	[F_LQ_QUOTA_RESERVED] = { "kueue_local_queue_quota_reserved_workloads_"
				  "total",
				  "Quota reservations, per LocalQueue.",
				  COUNTER },
	[F_LQ_QUOTA_RESERVED_WAIT] = { "kueue_local_queue_quota_reserved_wait_"
				       "time_seconds",
				       "Time from a workload's creation or "
				       "requeue to its quota reservation, per "
				       "LocalQueue.",
				       HIST, B14 },
	[F_LQ_ADMITTED] = { "kueue_local_queue_admitted_workloads_total",
			    "Admissions, per LocalQueue.", COUNTER },
	[F_LQ_ADMISSION_WAIT] = { "kueue_local_queue_admission_wait_time_"
				  "seconds",
				  "Time from a workload's creation or requeue "
				  "to its admission, per LocalQueue.",
				  HIST, B14 },
	[F_LQ_READY_WAIT] = { "kueue_local_queue_ready_wait_time_seconds",
			      "Time from a workload's creation or requeue "
			      "until all its pods are Ready, per LocalQueue.",
			      HIST, B14 },
	[F_LQ_ADMITTED_UNTIL_READY] = { "kueue_local_queue_admitted_until_"
					"ready_wait_time_seconds",
					"Time from a workload's admission "
					"until all its pods are Ready, per "
					"LocalQueue.",
					HIST, B14 },
	[F_LQ_FINISHED] = { "kueue_local_queue_finished_workloads_total",
			    "Workloads finished, per LocalQueue.", COUNTER },
	[F_LQ_EXECUTION_TIME] = { "kueue_local_queue_execution_time_seconds",
				  "Time from a workload's first admission to "
				  "its finish, per LocalQueue.",
				  HIST, B16 },
	[F_LQ_EVICTED] = { "kueue_local_queue_evicted_workloads_total",
			   "Evictions, per LocalQueue, 'reason' and "
			   "'underlying_cause'.",
			   COUNTER },
	[F_COHORT_ADMITTED] = { "kueue_cohort_subtree_admitted_workloads_"
				"total",
				"Admissions in the ClusterQueues of a "
				"cohort's subtree.",
				COUNTER },
	[F_GANG_BOUND_WAIT] = { "echelon_gang_bound_wait_time_seconds",
				"Time from a gang's admission until all its "
				"pods are bound.",
				HIST, B14 },
	[F_GANG_PARTLY_BOUND] = { "echelon_gang_partly_bound_seconds_total",
				  "Time gangs spent admitted and not all "
				  "bound, summed over gangs, up to all bound "
				  "or their eviction.",
				  COUNTER },
	[F_PLACE_DURATION] = { "echelon_placement_duration_seconds",
			       "Time an admission attempt spent in the "
			       "placement engine, per 'result' (simulated "
			       "runs: 0).",
			       HIST, place_buckets,
			       sizeof(place_buckets) / sizeof(*place_buckets) },
	[F_PENDING] = { "kueue_pending_workloads",
			"Pending workloads, per 'cluster_queue' and 'status' "
			"('active': in the queue; 'inadmissible': parked "
			"until capacity is freed).",
			GAUGE },
	[F_RESERVING] = { "kueue_reserving_active_workloads",
			  "Workloads holding quota, per 'cluster_queue'.",
			  GAUGE },
	[F_ADMITTED_ACTIVE] = { "kueue_admitted_active_workloads",
				"Admitted workloads not finished, per "
				"'cluster_queue'.",
				GAUGE },
	[F_FINISHED_ACTIVE] = { "kueue_finished_workloads",
				"Finished workloads still present, per "
				"'cluster_queue'.",
				GAUGE },
	[F_CQ_STATUS] = { "kueue_cluster_queue_status",
			  "1 on the 'status' of 'cluster_queue' ('pending', "
			  "'active' or 'terminating'), 0 on the others.",
			  GAUGE },
	[F_NOMINAL] = { "kueue_cluster_queue_nominal_quota",
			"Nominal quota of a ClusterQueue per flavor and "
			"resource (cpu in cores, memory in bytes).",
			GAUGE },
	[F_BORROWING] = { "kueue_cluster_queue_borrowing_limit",
			  "Borrowing limit of a ClusterQueue per flavor and "
			  "resource; +Inf when unset.",
			  GAUGE },
	[F_LENDING] = { "kueue_cluster_queue_lending_limit",
			"Lending limit of a ClusterQueue per flavor and "
			"resource; +Inf when unset.",
			GAUGE },
	[F_RESERVATION] = { "kueue_cluster_queue_resource_reservation",
			    "Quota a ClusterQueue's workloads reserve, per "
			    "flavor and resource.",
			    GAUGE },
	[F_USAGE] = { "kueue_cluster_queue_resource_usage",
		      "Quota a ClusterQueue's admitted workloads use, per "
		      "flavor and resource.",
		      GAUGE },
	[F_LQ_PENDING] = { "kueue_local_queue_pending_workloads",
			   "Pending workloads, per LocalQueue and 'status'.",
			   GAUGE },
	[F_LQ_RESERVING] = { "kueue_local_queue_reserving_active_workloads",
			     "Workloads holding quota, per LocalQueue.",
			     GAUGE },
	[F_LQ_ADMITTED_ACTIVE] = { "kueue_local_queue_admitted_active_"
				   "workloads",
				   "Admitted workloads not finished, per "
				   "LocalQueue.",
				   GAUGE },
	[F_LQ_FINISHED_ACTIVE] = { "kueue_local_queue_finished_workloads",
				   "Finished workloads still present, per "
				   "LocalQueue.",
				   GAUGE },
	[F_LQ_STATUS] = { "kueue_local_queue_status",
			  "1 on the 'active' status of a LocalQueue ('True', "
			  "'False' or 'Unknown'), 0 on the others.",
			  GAUGE },
	[F_LQ_RESERVATION] = { "kueue_local_queue_resource_reservation",
			       "Quota a LocalQueue's workloads reserve, per "
			       "flavor and resource of its ClusterQueue.",
			       GAUGE },
	[F_LQ_USAGE] = { "kueue_local_queue_resource_usage",
			 "Quota a LocalQueue's admitted workloads use, per "
			 "flavor and resource of its ClusterQueue.",
			 GAUGE },
	[F_COHORT_ADMITTED_ACTIVE] = { "kueue_cohort_subtree_admitted_active_"
				       "workloads",
				       "Admitted workloads not finished in the "
				       "ClusterQueues of a cohort's subtree.",
				       GAUGE },
	[F_DOMAIN_GPUS] = { "echelon_topology_domain_gpus",
			    "GPUs of the live nodes of a topology domain, per "
			    "'flavor', 'level' (its node label) and 'domain' "
			    "(its values from the top, joined by '/').",
			    GAUGE },
	[F_DOMAIN_GPUS_USED] = { "echelon_topology_domain_gpus_used",
				 "GPUs of a topology domain's live nodes "
				 "requested by the pods on them.",
				 GAUGE },
	[F_DOMAIN_FREE_HOSTS] = { "echelon_topology_domain_free_hosts",
				  "Live nodes of a topology domain with all "
				  "their GPUs free: the largest gang of "
				  "whole-node pods the domain still takes.",
				  GAUGE },
	[F_CQ_CROSS_RACK] = { "echelon_cluster_queue_cross_rack_bytes_per_"
			      "second",
			      "Modelled all-reduce bytes per second the "
			      "placements of a ClusterQueue's admitted "
			      "workloads send out of their racks.",
			      GAUGE },
	[F_CQ_CROSS_BLOCK] = { "echelon_cluster_queue_cross_block_bytes_per_"
			       "second",
			       "Modelled all-reduce bytes per second the "
			       "placements of a ClusterQueue's admitted "
			       "workloads send out of their blocks.",
			       GAUGE },
	[F_COHORT_QUOTA] = { "kueue_cohort_subtree_quota",
			     "Quota of a cohort's subtree per flavor and "
			     "resource: its own nominal quota and what its "
			     "children can lend.",
			     GAUGE },
	[F_COHORT_RESERVATIONS] = { "kueue_cohort_subtree_resource_"
				    "reservations",
				    "Quota reserved in a cohort's subtree "
				    "beyond its members' guarantees, per "
				    "flavor and resource.",
				    GAUGE },
	[F_COHORT_INFO] = { "kueue_cohort_info",
			    "1 per cohort, with its 'parent_cohort' and "
			    "'root_cohort'.",
			    GAUGE },
	[F_CQ_INFO] = { "kueue_cluster_queue_info",
			"1 per ClusterQueue, with its 'parent_cohort' and "
			"'root_cohort' (\"\" without a cohort).",
			GAUGE },
	[F_UNADMITTED] = { "kueue_unadmitted_workloads",
			   "Workloads not admitted, per 'cluster_queue', "
			   "'reason' (NoReservation) and 'underlying_cause' "
			   "(why quota is not reserved).",
			   GAUGE },
	[F_LQ_UNADMITTED] = { "kueue_local_queue_unadmitted_workloads",
			      "Workloads not admitted, per LocalQueue, "
			      "'cluster_queue', 'reason' and "
			      "'underlying_cause'.",
			      GAUGE },
	[F_CQ_SHARE] = { "kueue_cluster_queue_weighted_share",
			 "Fair sharing's dominant resource share of a "
			 "ClusterQueue: its usage above its quota per mille of "
			 "what its cohort could use, the largest over the "
			 "resources, divided by its weight; 0 when it borrows "
			 "nothing, NaN when it borrows with weight 0.",
			 GAUGE },
	[F_COHORT_SHARE] = { "kueue_cohort_weighted_share",
			     "The same for a cohort within its parent "
			     "cohort; 0 for a root.",
			     GAUGE },
	[F_RESOURCE_PENDING] = { "kueue_cluster_queue_resource_pending",
				 "Requests of a ClusterQueue's pending "
				 "workloads, per 'resource' (cpu in cores, "
				 "memory in bytes), no flavor assigned yet.",
				 GAUGE },
	[F_PODGROUPS] = { "echelon_podgroups",
			  "Workloads of a ClusterQueue per PodGroup 'phase' "
			  "(Pending, Scheduling, Running, ...).",
			  GAUGE },
};

/* What is kept per workload slot for the histograms. */
struct wl_obs {
	uint32_t gen;	   /* of the workload this is about; 0: nothing */
	int64_t since_us;  /* evicted and queued again at; -1: at creation */
	int64_t admit_us;  /* last admission; -1 while not admitted */
	int64_t first_us;  /* first admission; -1: never */
	int32_t cq;	   /* of the last admission */
	int32_t lq;	   /* its LocalQueue's index; -1: none, -2: unknown */
	bool bound, ready; /* since the last admission */
	/* the eviction kinds it had (bit k: om->ekinds[k]) */
	uint32_t evicted;
	/* the placement's modelled traffic out of racks and blocks, bytes/s,
	 * once the first refresh after its admission worked it out */
	bool traffic;
	double rack_bps, block_bps;
};

/* The gauges of one topology domain, kept while its path stays. */
struct dom_cache {
	char *path; /* flavor, NUL, level, NUL, path: the labels' values */
	size_t len;
	int64_t h[3]; /* gpus, used, free hosts */
};

/* One gauge's handle, kept while the values of its labels (key) stay. */
struct hslot {
	char *key;
	size_t len;
	int64_t h;
};

struct hcache {
	VEC(struct hslot) v;
};

struct obs_metrics {
	struct metrics *m;
	/* per ClusterQueue, LocalQueue and quota the gauges' handles, so
	 * that a refresh does not look labels up again */
	struct hcache cqc, lqc, qc, lqrc, cohc;
	/* the unadmitted gauges per ClusterQueue and LocalQueue and cause,
	 * the weighted share per quota node */
	struct hcache unc, lunc, shc;
	/* the pending requests per ClusterQueue and resource */
	struct hcache pendc;
	/* eviction reason and underlying cause pairs seen, static strings */
	VEC(const char *) ekinds;
	/* per flavor id, per domain id */
	VEC(struct dom_cache) * doms;
	size_t ndoms;
	int ids[F_COUNT];
	char *label, *value;
	struct wl_obs *wl;
	size_t nwl;
	uint64_t cycles, cycles_admitted; /* counted so far */
	/* the admission attempts' series: success, inadmissible */
	int64_t attempts[2], durations[2], place[2];
	/* the placement attempts observed so far, of scheduler place_stamp */
	uint64_t place_seen, place_stamp;
	struct throughput_config tc; /* the model of the traffic gauges */
};

/* Up to five label pairs, the extra pair and the NULL. */
#define MAX_LABELS 13

/* labels(om, out, k1, v1, ..., NULL): out with the extra pair added. */
static const char *const *labels(const struct obs_metrics *om, const char **out,
				 ...)
{
	size_t n = 0;
	const char *k;
	va_list ap;

	va_start(ap, out);
	while ((k = va_arg(ap, const char *))) {
		BUG_ON(n + 2 >= MAX_LABELS - 2);
		out[n++] = k;
		out[n++] = va_arg(ap, const char *);
	}
	va_end(ap);
	if (om->label) {
		out[n++] = om->label;
		out[n++] = om->value;
	}
	out[n] = NULL;
	return out;
}

/* key_of(key, s1, s2, ..., NULL): the strings into key, NUL between. */
static void key_of(struct strbuf *key, ...)
{
	const char *s;
	bool first = true;
	va_list ap;

	strbuf_reset(key);
	va_start(ap, key);
	for (s = va_arg(ap, const char *); s; s = va_arg(ap, const char *)) {
		if (!first)
			strbuf_addch(key, '\0');
		strbuf_addstr(key, s);
		first = false;
	}
	va_end(ap);
}

static void hcache_release(struct hcache *c)
{
	vec_foreach (&c->v, s)
		free(s->key);
	vec_release(&c->v);
}

/* Slot number slot of c, made when missing. */
static struct hslot *slot_at(struct hcache *c, size_t slot)
{
	while (slot >= c->v.len)
		vec_push_zero(&c->v);
	return &c->v.items[slot];
}

/* Whether s holds the series of labels' values key[0..len). */
static bool slot_holds(const struct hslot *s, const char *key, size_t len)
{
	return s->key && s->len == len && memcmp(s->key, key, len) == 0;
}

/* s now holds the series fam{l}, of labels' values key[0..len). */
static void slot_take(struct obs_metrics *om, struct hslot *s, const char *key,
		      size_t len, int fam, const char *const *l)
{
	free(s->key);
	s->key = xmalloc(len + 1);
	memcpy(s->key, key, len);
	s->key[len] = '\0';
	s->len = len;
	s->h = metrics_handle(om->m, om->ids[fam], l);
}

/* Set gauge fam{l} to v through slot of c, whose labels' values are key
 * (key[0..len)): the handle is looked up only when they changed. */
static void set_cached(struct obs_metrics *om, struct hcache *c, size_t slot,
		       const char *key, size_t len, int fam,
		       const char *const *l, double v)
{
	struct hslot *s = slot_at(c, slot);

	if (!slot_holds(s, key, len))
		slot_take(om, s, key, len, fam, l);
	metrics_set_handle(om->m, s->h, v);
}

/*
 * Gauge fam{l} = v through slot of c, whose labels' values are key: when
 * they changed, the series of the old ones goes to 0. With sticky, a
 * series is made only for a v other than 0 and stays, at 0, once made
 * (Kueue deletes it; the registry keeps every series).
 */
static void set_moving(struct obs_metrics *om, struct hcache *c, size_t slot,
		       const struct strbuf *key, int fam, const char *const *l,
		       double v, bool sticky)
{
	struct hslot *sl = slot_at(c, slot);

	if (!slot_holds(sl, key->buf, key->len)) {
		if (sl->key)
			metrics_set_handle(om->m, sl->h, 0);
		free(sl->key);
		sl->key = NULL;
		if (sticky && v == 0)
			return;
		slot_take(om, sl, key->buf, key->len, fam, l);
	}
	metrics_set_handle(om->m, sl->h, v);
}

/* Set the gauges of the slots of c from n on to 0 and forget them. */
static void hcache_drop(struct obs_metrics *om, struct hcache *c, size_t n)
{
	for (; n < c->v.len; n++) {
		struct hslot *sl = &c->v.items[n];

		if (sl->key)
			metrics_set_handle(om->m, sl->h, 0);
		free(sl->key);
		sl->key = NULL;
	}
}

struct obs_metrics *obs_metrics_new(struct metrics *m, const char *label,
				    const char *value)
{
	struct obs_metrics *om = xcalloc(1, sizeof(*om));

	BUG_ON(!label != !value);
	om->m = m;
	om->label = label ? xstrdup(label) : NULL;
	om->value = value ? xstrdup(value) : NULL;
	metrics_register(m, defs, F_COUNT, om->ids);
	for (size_t k = 0; k < 2; k++) {
		const char *l[MAX_LABELS];

		labels(om, l, "result", k ? "inadmissible" : "success", NULL);
		om->attempts[k] = metrics_handle(m, om->ids[F_ATTEMPTS], l);
		om->durations[k] =
			metrics_handle(m, om->ids[F_ATTEMPT_DURATION], l);
		om->place[k] = metrics_handle(m, om->ids[F_PLACE_DURATION], l);
	}
	throughput_config_init(&om->tc);
	return om;
}

void obs_metrics_free(struct obs_metrics *om)
{
	if (!om)
		return;
	for (size_t f = 0; f < om->ndoms; f++) {
		vec_foreach (&om->doms[f], d)
			free(d->path);
		vec_release(&om->doms[f]);
	}
	free(om->doms);
	hcache_release(&om->cqc);
	hcache_release(&om->lqc);
	hcache_release(&om->qc);
	hcache_release(&om->lqrc);
	hcache_release(&om->cohc);
	hcache_release(&om->unc);
	hcache_release(&om->lunc);
	hcache_release(&om->shc);
	hcache_release(&om->pendc);
	vec_release(&om->ekinds);
	free(om->label);
	free(om->value);
	free(om->wl);
	free(om);
}

static double seconds(int64_t us)
{
	return (double)us / 1e6;
}

/* The record of slot wl, fresh when it is about another workload. */
static struct wl_obs *wl_of(struct obs_metrics *om, const struct ctl *x,
			    uint32_t wl)
{
	uint32_t gen = CTL_GEN(ctl_handle(x, wl));
	struct wl_obs *w;

	if (wl >= om->nwl) {
		size_t n = om->nwl ? om->nwl : 64;

		while (n <= wl)
			n *= 2;
		om->wl = xreallocarray(om->wl, n, sizeof(*om->wl));
		memset(om->wl + om->nwl, 0, (n - om->nwl) * sizeof(*om->wl));
		om->nwl = n;
	}
	w = &om->wl[wl];
	if (w->gen != gen || !gen)
		*w = (struct wl_obs){ .gen = gen,
				      .since_us = -1,
				      .admit_us = -1,
				      .first_us = -1,
				      .cq = -1,
				      .lq = -2 };
	return w;
}

/* When wl was queued for the admission it just got: its requeue, else
 * its creation (the scheduler's queue time of a new workload). */
static int64_t queued_at(const struct ctl *x, const struct wl_obs *w,
			 uint32_t wl)
{
	const struct workload *cw = &ctl_cluster(x)->workloads.items[wl];
	struct sched_saved sv;

	if (w->since_us >= 0)
		return w->since_us;
	if (cw->creation_us)
		return cw->creation_us;
	sched_wl_export(ctl_sched(x), wl, &sv);
	return sv.queue_ts_us;
}

static const char *cq_label(const struct ctl *x, int32_t cq)
{
	return cq >= 0 ? sched_cq_name(ctl_sched(x), cq) : NULL;
}

/* The LocalQueue labels of wl: false when it names none. */
static bool lq_of(const struct ctl *x, uint32_t wl, const char **ret_name,
		  const char **ret_ns)
{
	const struct workload *cw = &ctl_cluster(x)->workloads.items[wl];

	if (!cw->queue_name)
		return false;
	*ret_name = cw->queue_name;
	*ret_ns = cw->ns ? cw->ns : "default";
	return true;
}

/* Add v to a cohort family for the cohort of cq and each above it; with
 * zero, set them to 0. */
static void per_cohort(struct obs_metrics *om, const struct ctl *x, int fam,
		       int32_t cq, double v, bool zero)
{
	const struct cluster *c = ctl_cluster(x);
	const char *name = c->cluster_queues.items[cq].cohort;
	const char *l[MAX_LABELS];

	/* a cycle of parents is bounded by the number of cohorts */
	for (size_t depth = 0; name && depth <= c->cohorts.len; depth++) {
		const struct cohort *co =
			cluster_find(c, KIND_COHORT, NULL, name);

		labels(om, l, "cohort", name, NULL);
		if (zero)
			metrics_set(om->m, fam, l, 0);
		else
			metrics_add(om->m, fam, l, v);
		name = co ? co->parent : NULL;
	}
}

static void on_admitted(struct obs_metrics *om, const struct ctl *x,
			const struct ctl_event *e)
{
	struct wl_obs *w = wl_of(om, x, e->wl);
	const struct sched_admission *adm =
		sched_wl_admission(ctl_sched(x), e->wl);
	const char *cq, *lq, *ns, *l[MAX_LABELS];
	double wait;

	BUG_ON(!adm);
	wait = seconds(e->at_us - queued_at(x, w, e->wl));
	w->cq = adm->cq;
	w->admit_us = e->at_us;
	if (w->first_us < 0)
		w->first_us = e->at_us;
	w->bound = w->ready = w->traffic = false;
	cq = cq_label(x, adm->cq);
	labels(om, l, "cluster_queue", cq, NULL);
	metrics_add(om->m, om->ids[F_QUOTA_RESERVED], l, 1);
	metrics_observe(om->m, om->ids[F_QUOTA_RESERVED_WAIT], l, wait);
	metrics_add(om->m, om->ids[F_ADMITTED], l, 1);
	metrics_observe(om->m, om->ids[F_ADMISSION_WAIT], l, wait);
	per_cohort(om, x, om->ids[F_COHORT_ADMITTED], adm->cq, 1, false);
	if (!lq_of(x, e->wl, &lq, &ns))
		return;
	labels(om, l, "name", lq, "namespace", ns, NULL);
	metrics_add(om->m, om->ids[F_LQ_QUOTA_RESERVED], l, 1);
	metrics_observe(om->m, om->ids[F_LQ_QUOTA_RESERVED_WAIT], l, wait);
	metrics_add(om->m, om->ids[F_LQ_ADMITTED], l, 1);
	metrics_observe(om->m, om->ids[F_LQ_ADMISSION_WAIT], l, wait);
}

/* An admitted gang that never got all its pods bound stops counting. */
static void end_partly_bound(struct obs_metrics *om, const struct ctl *x,
			     struct wl_obs *w, int64_t at_us)
{
	const char *l[MAX_LABELS];

	if (w->admit_us < 0 || w->bound)
		return;
	metrics_add(om->m, om->ids[F_GANG_PARTLY_BOUND],
		    labels(om, l, "cluster_queue", cq_label(x, w->cq), NULL),
		    seconds(at_us - w->admit_us));
}

/* Whether w was not evicted for reason and cause before, and remember
 * that it was. More than 32 kinds in a run count every time. */
static bool first_eviction(struct obs_metrics *om, struct wl_obs *w,
			   const char *reason, const char *cause)
{
	size_t k;

	for (k = 0; k < om->ekinds.len; k += 2)
		if (strcmp(om->ekinds.items[k], reason) == 0 &&
		    strcmp(om->ekinds.items[k + 1], cause) == 0)
			break;
	if (k == om->ekinds.len) {
		vec_push(&om->ekinds, reason);
		vec_push(&om->ekinds, cause);
	}
	k /= 2;
	if (k >= 32)
		return true;
	if (w->evicted & (UINT32_C(1) << k))
		return false;
	w->evicted |= UINT32_C(1) << k;
	return true;
}

/* Kueue's priority_class of wl: the class its priority comes from (a
 * WorkloadPriorityClass, else the pods' PriorityClass), "" when none. */
static const char *priority_class(const struct ctl *x, uint32_t wl)
{
	const struct workload *w = &ctl_cluster(x)->workloads.items[wl];

	if (w->priority_class_name)
		return w->priority_class_name;
	return w->pod_priority_class_name ? w->pod_priority_class_name : "";
}

static void on_evicted(struct obs_metrics *om, const struct ctl *x,
		       const struct ctl_event *e, const char *reason,
		       const char *cause, int64_t requeue_us)
{
	struct wl_obs *w = wl_of(om, x, e->wl);
	int32_t cq = w->cq >= 0 ? w->cq : sched_wl_cq(ctl_sched(x), e->wl);
	const char *lq, *ns, *l[MAX_LABELS];

	end_partly_bound(om, x, w, e->at_us);
	w->admit_us = -1;
	w->since_us = requeue_us;
	if (cq >= 0) {
		const char *cql = cq_label(x, cq);

		metrics_add(om->m, om->ids[F_EVICTED],
			    labels(om, l, "cluster_queue", cql, "reason",
				   reason, "underlying_cause", cause, NULL),
			    1);
		if (first_eviction(om, w, reason, cause))
			metrics_add(om->m, om->ids[F_EVICTED_ONCE],
				    labels(om, l, "cluster_queue", cql,
					   "reason", reason, "underlying_cause",
					   cause, "priority_class",
					   priority_class(x, e->wl), NULL),
				    1);
	}
	if (lq_of(x, e->wl, &lq, &ns))
		metrics_add(om->m, om->ids[F_LQ_EVICTED],
			    labels(om, l, "name", lq, "namespace", ns, "reason",
				   reason, "underlying_cause", cause, NULL),
			    1);
}

static void on_bound(struct obs_metrics *om, const struct ctl *x,
		     const struct ctl_event *e)
{
	struct wl_obs *w = wl_of(om, x, e->wl);
	const char *l[MAX_LABELS];
	double dt;

	if (w->admit_us < 0 || w->bound)
		return; /* admitted before this observer started */
	w->bound = true;
	dt = seconds(e->at_us - w->admit_us);
	labels(om, l, "cluster_queue", cq_label(x, w->cq), NULL);
	metrics_observe(om->m, om->ids[F_GANG_BOUND_WAIT], l, dt);
	metrics_add(om->m, om->ids[F_GANG_PARTLY_BOUND], l, dt);
}

static void on_ready(struct obs_metrics *om, const struct ctl *x,
		     const struct ctl_event *e)
{
	struct wl_obs *w = wl_of(om, x, e->wl);
	const char *lq, *ns, *l[MAX_LABELS];
	double since, admitted;

	if (w->admit_us < 0 || w->ready)
		return;
	w->ready = true;
	since = seconds(e->at_us - queued_at(x, w, e->wl));
	admitted = seconds(e->at_us - w->admit_us);
	labels(om, l, "cluster_queue", cq_label(x, w->cq), NULL);
	metrics_observe(om->m, om->ids[F_READY_WAIT], l, since);
	metrics_observe(om->m, om->ids[F_ADMITTED_UNTIL_READY], l, admitted);
	if (!lq_of(x, e->wl, &lq, &ns))
		return;
	labels(om, l, "name", lq, "namespace", ns, NULL);
	metrics_observe(om->m, om->ids[F_LQ_READY_WAIT], l, since);
	metrics_observe(om->m, om->ids[F_LQ_ADMITTED_UNTIL_READY], l, admitted);
}

static void on_finished(struct obs_metrics *om, const struct ctl *x,
			const struct ctl_event *e)
{
	struct wl_obs *w = wl_of(om, x, e->wl);
	int32_t cq = w->cq >= 0 ? w->cq : e->cq;
	const char *lq, *ns, *l[MAX_LABELS];
	bool lqok = lq_of(x, e->wl, &lq, &ns);

	end_partly_bound(om, x, w, e->at_us);
	if (cq >= 0) {
		labels(om, l, "cluster_queue", cq_label(x, cq), NULL);
		metrics_add(om->m, om->ids[F_FINISHED], l, 1);
		if (w->first_us >= 0)
			metrics_observe(om->m, om->ids[F_EXECUTION_TIME], l,
					seconds(e->at_us - w->first_us));
	}
	if (lqok) {
		labels(om, l, "name", lq, "namespace", ns, NULL);
		metrics_add(om->m, om->ids[F_LQ_FINISHED], l, 1);
		if (w->first_us >= 0)
			metrics_observe(om->m, om->ids[F_LQ_EXECUTION_TIME], l,
					seconds(e->at_us - w->first_us));
	}
	w->admit_us = -1;
}

void obs_metrics_event(struct obs_metrics *om, const struct ctl *x,
		       const struct ctl_event *e)
{
	const char *l[MAX_LABELS];

	switch (e->kind) {
	case CTL_EV_ADMITTED:
		on_admitted(om, x, e);
		break;
	case CTL_EV_PREEMPTED:
		/* Kueue: reason Preempted, the root cause itself */
		on_evicted(om, x, e, "Preempted", "", e->at_us);
		metrics_add(
			om->m, om->ids[F_PREEMPTED],
			labels(om, l, "preempting_cluster_queue",
			       cq_label(x, sched_wl_cq(ctl_sched(x), e->by)),
			       "reason", sched_preempt_reason_name(e->why),
			       NULL),
			1);
		break;
	case CTL_EV_EVICTED:
		on_evicted(om, x, e, e->reason, "", e->requeue_at_us);
		break;
	case CTL_EV_DEACTIVATED:
		/* the backoff limit, or spec.active set to false */
		on_evicted(om, x, e, "Deactivated",
			   strcmp(e->reason, "Deactivated") == 0
				   ? ""
				   : "RequeuingLimitExceeded",
			   -1);
		break;
	case CTL_EV_BOUND:
		on_bound(om, x, e);
		break;
	case CTL_EV_READY:
		on_ready(om, x, e);
		break;
	case CTL_EV_FINISHED:
		on_finished(om, x, e);
		break;
	case CTL_EV_REPLACED:
		wl_of(om, x, e->wl)->traffic = false; /* a new placement */
		break;
	case CTL_EV_KIND_COUNT:
		break;
	}
}

void obs_metrics_set_model(struct obs_metrics *om,
			   const struct throughput_config *tc)
{
	om->tc = *tc;
}

/* Observe the placement times of the attempts since the last call; those
 * the scheduler no longer keeps are lost (more than SCHED_PLACE_LOG in
 * one run of the controller). */
static void place_times(struct obs_metrics *om, const struct ctl *x)
{
	uint64_t stamp, n = sched_place_attempts(ctl_sched(x), &stamp);

	if (stamp != om->place_stamp) /* a rebuilt scheduler */
		om->place_seen = 0;
	om->place_stamp = stamp;
	if (n - om->place_seen > SCHED_PLACE_LOG)
		om->place_seen = n - SCHED_PLACE_LOG;
	for (; om->place_seen < n; om->place_seen++) {
		const struct sched_place_time *t =
			sched_place_time_at(ctl_sched(x), om->place_seen);

		metrics_observe_handle(om->m, om->place[t->admitted ? 0 : 1],
				       (double)t->ns / 1e9);
	}
}

void obs_metrics_cycles(struct obs_metrics *om, const struct ctl *x,
			double seconds_)
{
	struct ctl_stats st = ctl_stats(x);
	uint64_t n, ok;
	double each;

	if (st.cycles < om->cycles) /* a new controller: count afresh */
		om->cycles = om->cycles_admitted = 0;
	n = st.cycles - om->cycles;
	ok = st.cycles_admitted - om->cycles_admitted;
	each = n ? seconds_ / (double)n : 0;
	metrics_add_handle(om->m, om->attempts[0], (double)ok);
	metrics_add_handle(om->m, om->attempts[1], (double)(n - ok));
	for (uint64_t i = 0; i < n; i++)
		metrics_observe_handle(om->m, om->durations[i < ok ? 0 : 1],
				       each);
	om->cycles = st.cycles;
	om->cycles_admitted = st.cycles_admitted;
	place_times(om, x);
}

/* What the gauges of one ClusterQueue or LocalQueue count. */
struct tally {
	int64_t active, inadmissible, reserving, admitted, finished;
	double rack_bps, block_bps; /* of the admitted ones' placements */
};

static void tally_add(struct tally *t, const struct tally *one)
{
	t->active += one->active;
	t->inadmissible += one->inadmissible;
	t->reserving += one->reserving;
	t->admitted += one->admitted;
	t->finished += one->finished;
	t->rack_bps += one->rack_bps;
	t->block_bps += one->block_bps;
}

/* Count wl in t; false when it is in none of the gauges. */
static bool tally_wl(const struct sched *s, uint32_t wl, struct tally *t)
{
	enum sched_wl_state st = sched_wl_state(s, wl);
	struct sched_saved sv;

	if (st == SCHED_WL_ADMITTED) {
		t->reserving++;
		t->admitted++;
	} else if (st == SCHED_WL_FINISHED) {
		t->finished++;
	} else if (sched_wl_held(s, wl)) {
		t->reserving++;
	} else if (st == SCHED_WL_PENDING) {
		/* in its queue: not deactivated, in backoff or going */
		sched_wl_export(s, wl, &sv);
		if (!sv.queued)
			return false;
		if (sv.parked)
			t->inadmissible++;
		else
			t->active++;
	} else {
		return false;
	}
	return true;
}

/* The index of wl's LocalQueue in the cluster, -1 when none: found once
 * per workload, checked again since the cluster's queues may change. */
static int32_t lq_index(struct obs_metrics *om, const struct ctl *x,
			uint32_t wl)
{
	const struct cluster *c = ctl_cluster(x);
	const struct workload *w = &c->workloads.items[wl];
	const char *ns = w->ns ? w->ns : "default";
	struct wl_obs *o = wl_of(om, x, wl);
	const struct local_queue *lq;

	if (o->lq >= 0 && (size_t)o->lq < c->local_queues.len) {
		lq = &c->local_queues.items[o->lq];
		if (w->queue_name && strcmp(lq->name, w->queue_name) == 0 &&
		    strcmp(lq->ns ? lq->ns : "default", ns) == 0)
			return o->lq;
	}
	lq = w->queue_name
		     ? cluster_find(c, KIND_LOCAL_QUEUE, ns, w->queue_name)
		     : NULL;
	o->lq = lq ? (int32_t)(lq - c->local_queues.items) : -1;
	return o->lq;
}

/* Add the modelled traffic of admitted wl to t, worked out once per
 * placement. */
static void traffic(struct obs_metrics *om, const struct ctl *x, uint32_t wl,
		    int gpu, struct tally *t)
{
	struct wl_obs *o = wl_of(om, x, wl);

	if (!o->traffic) {
		o->traffic = true;
		if (!obs_placement_traffic(ctl_sched(x), ctl_cluster(x), wl,
					   gpu, &om->tc, &o->rack_bps,
					   &o->block_bps))
			o->rack_bps = o->block_bps = 0;
	}
	t->rack_bps = o->rack_bps;
	t->block_bps = o->block_bps;
}

/* Add the quota wl holds to use ([flavor id * RESOURCE_MAX + resource]). */
static void add_reserved(const struct ctl *x, uint32_t wl, int64_t *use)
{
	const struct workload *w = &ctl_cluster(x)->workloads.items[wl];
	const struct sched_admission *adm = sched_wl_reserved(ctl_sched(x), wl);

	for (size_t k = 0; adm && k < adm->npodsets; k++)
		for (int r = 0; r < RESOURCE_MAX; r++)
			if (adm->ps[k].flavor[r] >= 0)
				use[(size_t)adm->ps[k].flavor[r] *
					    RESOURCE_MAX +
				    (size_t)r] += w->podsets[k].requests.v[r] *
						  adm->ps[k].count;
}

/* Add the requests of all of wl's pods to req ([RESOURCE_MAX]). */
static void add_requests(const struct ctl *x, uint32_t wl, int64_t *req)
{
	const struct workload *w = &ctl_cluster(x)->workloads.items[wl];

	for (size_t k = 0; k < w->npodsets; k++)
		for (int r = 0; r < RESOURCE_MAX; r++)
			req[r] += w->podsets[k].requests.v[r] *
				  w->podsets[k].count;
}

/* Kueue's underlying_cause of an unadmitted workload: its QuotaReserved
 * condition's reason (docs/observability.md has the mapping). */
enum cause {
	CAUSE_EVALUATION,
	CAUSE_MISCONFIGURED,
	CAUSE_SUSPENDED,
	CAUSE_NO_FLAVOR,
	CAUSE_MAX_QUOTA,
	CAUSE_QUOTA,
	CAUSE_TOPOLOGY,
	CAUSE_PODS_READY,
	CAUSE_PREEMPTED,
	CAUSE_DEACTIVATED,
	CAUSE_BACKOFF,
	CAUSE_COUNT
};

static const char *const cause_names[CAUSE_COUNT] = {
	[CAUSE_EVALUATION] = "PendingEvaluation",
	[CAUSE_MISCONFIGURED] = "Misconfigured",
	[CAUSE_SUSPENDED] = "Suspended",
	[CAUSE_NO_FLAVOR] = "NoMatchingFlavor",
	[CAUSE_MAX_QUOTA] = "ExceedsMaxQuota",
	[CAUSE_QUOTA] = "WaitingForQuota",
	[CAUSE_TOPOLOGY] = "TopologyPlacementFailed",
	[CAUSE_PODS_READY] = "WaitingForPodsReady",
	[CAUSE_PREEMPTED] = "WaitingForPreemptedWorkloads",
	[CAUSE_DEACTIVATED] = "Deactivated",
	[CAUSE_BACKOFF] = "Backoff",
};

/* The cause of pending wl from the controller's answer to why it waits. */
static enum cause cause_of(const struct ctl *x, uint32_t wl)
{
	static const enum cause of_pend[SCHED_PEND_COUNT] = {
		[SCHED_PEND_EVALUATION] = CAUSE_EVALUATION,
		[SCHED_PEND_MISCONFIGURED] = CAUSE_MISCONFIGURED,
		[SCHED_PEND_DEACTIVATED] = CAUSE_DEACTIVATED,
		[SCHED_PEND_ON_HOLD] = CAUSE_SUSPENDED,
		[SCHED_PEND_NO_MATCHING_FLAVOR] = CAUSE_NO_FLAVOR,
		[SCHED_PEND_EXCEEDS_MAX_QUOTA] = CAUSE_MAX_QUOTA,
		[SCHED_PEND_WAITING_FOR_QUOTA] = CAUSE_QUOTA,
		[SCHED_PEND_TOPOLOGY] = CAUSE_TOPOLOGY,
		/* Kueue's StrictFIFO does not evaluate what is behind */
		[SCHED_PEND_BEHIND] = CAUSE_EVALUATION,
	};
	enum sched_pend p = SCHED_PEND_EVALUATION;

	/* a preemptor whose victims still hold their quota (live only) */
	if (sched_wl_victims_held(ctl_sched(x), wl))
		return CAUSE_PREEMPTED;
	switch (ctl_wl_wait(x, wl, &p)) {
	case CTL_WAIT_COMPACT:
		return CAUSE_TOPOLOGY;
	case CTL_WAIT_BACKOFF:
		return CAUSE_BACKOFF;
	case CTL_WAIT_BLOCKED:
		return CAUSE_PODS_READY;
	default:
		return of_pend[p];
	}
}

/* The workloads without a reservation, by queue and underlying cause
 * (kueue_unadmitted_workloads): counted by count(), written by
 * unadmitted_gauges(). */
struct unadmitted {
	int64_t *cqn;  /* [cq * CAUSE_COUNT + cause] */
	int64_t *lqn;  /* [lq * CAUSE_COUNT + cause] */
	int32_t *lqcq; /* the ClusterQueue of a LocalQueue's workloads, -1 */
};

static void unadmitted_init(struct unadmitted *un, size_t ncq, size_t nlq)
{
	un->cqn = xcalloc(ncq * CAUSE_COUNT + 1, sizeof(*un->cqn));
	un->lqn = xcalloc(nlq * CAUSE_COUNT + 1, sizeof(*un->lqn));
	un->lqcq = xmalloc((nlq + 1) * sizeof(*un->lqcq));
	for (size_t i = 0; i < nlq; i++)
		un->lqcq[i] = -1;
}

static void unadmitted_release(struct unadmitted *un)
{
	free(un->lqcq);
	free(un->lqn);
	free(un->cqn);
}

/* Tally the live workloads per ClusterQueue (cqt, [ncq]) and LocalQueue
 * (lqt, [nlq]), the quota each LocalQueue's hold into lquse (nflavors *
 * RESOURCE_MAX per LocalQueue), the requests of each ClusterQueue's
 * pending ones into cqpend (RESOURCE_MAX per ClusterQueue); the PodGroup
 * phases per ClusterQueue into phases; the unadmitted ones by queue and
 * cause into un. */
static void count(struct obs_metrics *om, const struct ctl *x,
		  struct tally *cqt, struct tally *lqt, int64_t *lquse,
		  int64_t *cqpend, int64_t *phases, struct unadmitted *un)
{
	const struct cluster *c = ctl_cluster(x);
	const struct sched *s = ctl_sched(x);
	int gpu = resource_lookup(c->resources, "nvidia.com/gpu");
	size_t nfr = c->flavors.len * RESOURCE_MAX;

	for (uint32_t i = 0; i < c->workloads.len; i++) {
		int32_t cq = ctl_handle(x, i) ? sched_wl_cq(s, i) : -1;
		int32_t lq;
		struct tally one = { 0 };

		if (cq < 0)
			continue;
		phases[(size_t)cq * PODGROUP_PHASE_COUNT +
		       gang_phase(ctl_gang(x), i)]++;
		lq = lq_index(om, x, i);
		if (sched_wl_state(s, i) == SCHED_WL_PENDING &&
		    !sched_wl_held(s, i)) {
			enum cause k = cause_of(x, i);

			un->cqn[(size_t)cq * CAUSE_COUNT + k]++;
			if (lq >= 0) {
				un->lqn[(size_t)lq * CAUSE_COUNT + k]++;
				un->lqcq[lq] = cq;
			}
		}
		if (!tally_wl(s, i, &one))
			continue;
		if (one.admitted)
			traffic(om, x, i, gpu, &one);
		tally_add(&cqt[cq], &one);
		if (one.active || one.inadmissible)
			add_requests(x, i, cqpend + (size_t)cq * RESOURCE_MAX);
		if (lq < 0)
			continue;
		tally_add(&lqt[lq], &one);
		if (one.reserving)
			add_reserved(x, i, lquse + (size_t)lq * nfr);
	}
}

static const char *cq_status(const struct ctl *x, int32_t cq)
{
	if (ctl_cluster(x)->cluster_queues.items[cq].deleting)
		return "terminating";
	return sched_cq_active(ctl_sched(x), cq, NULL) ? "active" : "pending";
}

/* A quantity in the unit Kueue's gauges use: cores for cpu, bytes,
 * units; +Inf for no limit. */
static double value(const struct cluster *c, int resource, int64_t v)
{
	if (v == QUOTA_UNLIMITED)
		return INFINITY;
	return c->resources->kinds[resource] == QUANTITY_MILLI ? (double)v / 1e3
							       : (double)v;
}

/* The quota gauges of one flavor and resource of ClusterQueue cq, the
 * slot-th of this refresh. */
static void quota_series(struct obs_metrics *om, const struct ctl *x,
			 int32_t cq, const struct flavor_quotas *fq,
			 const struct resource_quota *rq, size_t slot,
			 struct strbuf *key)
{
	static const int fams[5] = { F_NOMINAL, F_BORROWING, F_LENDING,
				     F_RESERVATION, F_USAGE };
	const struct cluster *c = ctl_cluster(x);
	const struct cluster_queue *q = &c->cluster_queues.items[cq];
	const struct flavor *fl =
		cluster_find(c, KIND_FLAVOR, NULL, fq->flavor);
	const char *res = resource_name(c->resources, rq->resource);
	const char *l[MAX_LABELS];
	double v[5], used = 0;

	labels(om, l, "cohort", q->cohort ? q->cohort : "", "cluster_queue",
	       q->name, "flavor", fq->flavor, "resource", res, NULL);
	if (fl)
		used = value(c, rq->resource,
			     sched_cq_usage(ctl_sched(x), cq,
					    (int32_t)(fl - c->flavors.items),
					    rq->resource));
	v[0] = value(c, rq->resource, rq->nominal);
	v[1] = value(c, rq->resource, rq->borrowing_limit);
	v[2] = value(c, rq->resource, rq->lending_limit);
	/* no admission checks: what is reserved is admitted */
	v[3] = v[4] = used;
	key_of(key, q->cohort ? q->cohort : "", q->name, fq->flavor, res, NULL);
	for (size_t k = 0; k < 5; k++)
		set_cached(om, &om->qc, slot * 5 + k, key->buf, key->len,
			   fams[k], l, v[k]);
}

/*
 * Kueue's pending requests of ClusterQueue cq, pend[RESOURCE_MAX]: every
 * resource its groups cover, at 0 when nothing waits, and any other one
 * its pending workloads request (but the pods every pod counts), from
 * when they first do.
 */
static void pending_series(struct obs_metrics *om, const struct ctl *x,
			   int32_t cq, const int64_t *pend, struct strbuf *key)
{
	const struct cluster *c = ctl_cluster(x);
	const struct cluster_queue *q = &c->cluster_queues.items[cq];
	bool covered[RESOURCE_MAX] = { false };
	const char *l[MAX_LABELS];

	for (size_t g = 0; g < q->ngroups; g++)
		for (size_t k = 0; k < q->groups[g].ncovered; k++)
			covered[q->groups[g].covered[k]] = true;
	for (int r = 0; r < c->resources->count; r++) {
		const char *rn = resource_name(c->resources, r);

		if (!covered[r] && r == RESOURCE_PODS)
			continue;
		labels(om, l, "cluster_queue", q->name, "resource", rn, NULL);
		key_of(key, q->name, rn, NULL);
		set_moving(om, &om->pendc,
			   (size_t)cq * RESOURCE_MAX + (size_t)r, key,
			   F_RESOURCE_PENDING, l, value(c, r, pend[r]),
			   !covered[r]);
	}
}

/* Slots of one ClusterQueue's gauges: pending (2), reserving, admitted,
 * status (3), PodGroup phases, traffic (2), finished. */
#define CQ_SLOTS (10 + PODGROUP_PHASE_COUNT)

/* The gauges of ClusterQueue cq; *qslot counts the quota slots used. */
static void cq_gauges(struct obs_metrics *om, const struct ctl *x, int32_t cq,
		      const struct tally *t, const int64_t *phases,
		      size_t *qslot, struct strbuf *key)
{
	static const char *const statuses[] = { "pending", "active",
						"terminating" };
	const struct cluster_queue *q =
		&ctl_cluster(x)->cluster_queues.items[cq];
	const char *l[MAX_LABELS], *now = cq_status(x, cq);
	size_t base = (size_t)cq * CQ_SLOTS, len = strlen(q->name);

	set_cached(om, &om->cqc, base, q->name, len, F_PENDING,
		   labels(om, l, "cluster_queue", q->name, "status", "active",
			  NULL),
		   (double)t->active);
	set_cached(om, &om->cqc, base + 1, q->name, len, F_PENDING,
		   labels(om, l, "cluster_queue", q->name, "status",
			  "inadmissible", NULL),
		   (double)t->inadmissible);
	labels(om, l, "cluster_queue", q->name, NULL);
	set_cached(om, &om->cqc, base + 2, q->name, len, F_RESERVING, l,
		   (double)t->reserving);
	set_cached(om, &om->cqc, base + 3, q->name, len, F_ADMITTED_ACTIVE, l,
		   (double)t->admitted);
	for (size_t k = 0; k < ARRAY_SIZE(statuses); k++)
		set_cached(om, &om->cqc, base + 4 + k, q->name, len,
			   F_CQ_STATUS,
			   labels(om, l, "cluster_queue", q->name, "status",
				  statuses[k], NULL),
			   strcmp(now, statuses[k]) == 0);
	for (int p = PODGROUP_PENDING; p < PODGROUP_PHASE_COUNT; p++)
		set_cached(om, &om->cqc, base + 7 + (size_t)p, q->name, len,
			   F_PODGROUPS,
			   labels(om, l, "cluster_queue", q->name, "phase",
				  podgroup_phase_name((enum podgroup_phase)p),
				  NULL),
			   (double)phases[p]);
	labels(om, l, "cluster_queue", q->name, NULL);
	base += 7 + PODGROUP_PHASE_COUNT;
	set_cached(om, &om->cqc, base, q->name, len, F_CQ_CROSS_RACK, l,
		   t->rack_bps);
	set_cached(om, &om->cqc, base + 1, q->name, len, F_CQ_CROSS_BLOCK, l,
		   t->block_bps);
	set_cached(om, &om->cqc, base + 2, q->name, len, F_FINISHED_ACTIVE, l,
		   (double)t->finished);
	for (size_t g = 0; g < q->ngroups; g++)
		for (size_t f = 0; f < q->groups[g].nflavors; f++)
			for (size_t r = 0;
			     r < q->groups[g].flavors[f].nresources; r++)
				quota_series(
					om, x, cq, &q->groups[g].flavors[f],
					&q->groups[g].flavors[f].resources[r],
					(*qslot)++, key);
}

/* Whether LocalQueue lq takes workloads ("True" or "False"), as Kueue's
 * LocalQueue reconciler sets its Active condition; its ClusterQueue's
 * index into *ret_cq, -1 when that does not exist. */
static const char *lq_active(const struct ctl *x, const struct local_queue *lq,
			     int32_t *ret_cq)
{
	const struct cluster *c = ctl_cluster(x);
	const struct cluster_queue *q =
		cluster_find(c, KIND_CLUSTER_QUEUE, NULL, lq->cluster_queue);

	*ret_cq = q ? (int32_t)(q - c->cluster_queues.items) : -1;
	if (lq->stop != STOP_NONE || !q)
		return "False";
	return sched_cq_active(ctl_sched(x), *ret_cq, NULL) ? "True" : "False";
}

/* The quota gauges of LocalQueue lq, whose workloads hold use, for each
 * flavor and resource of its ClusterQueue cq; *slot counts the slots
 * used. */
static void lq_quota_series(struct obs_metrics *om, const struct ctl *x,
			    const struct local_queue *lq, int32_t cq,
			    const int64_t *use, size_t *slot,
			    struct strbuf *key)
{
	const struct cluster *c = ctl_cluster(x);
	const struct cluster_queue *q = &c->cluster_queues.items[cq];
	const char *ns = lq->ns ? lq->ns : "default";
	const char *l[MAX_LABELS];

	for (size_t g = 0; g < q->ngroups; g++) {
		for (size_t f = 0; f < q->groups[g].nflavors; f++) {
			const struct flavor_quotas *fq =
				&q->groups[g].flavors[f];
			const struct flavor *fl =
				cluster_find(c, KIND_FLAVOR, NULL, fq->flavor);

			for (size_t r = 0; r < fq->nresources; r++) {
				int res = fq->resources[r].resource;
				const char *rn =
					resource_name(c->resources, res);
				/* no admission checks: what is reserved
				 * is admitted */
				double v = value(
					c, res,
					fl ? use[(size_t)(fl -
							  c->flavors.items) *
							 RESOURCE_MAX +
						 (size_t)res]
					   : 0);

				labels(om, l, "name", lq->name, "namespace", ns,
				       "flavor", fq->flavor, "resource", rn,
				       NULL);
				key_of(key, ns, lq->name, fq->flavor, rn, NULL);
				set_cached(om, &om->lqrc, *slot * 2, key->buf,
					   key->len, F_LQ_RESERVATION, l, v);
				set_cached(om, &om->lqrc, *slot * 2 + 1,
					   key->buf, key->len, F_LQ_USAGE, l,
					   v);
				(*slot)++;
			}
		}
	}
}

/* Slots of one LocalQueue's gauges: pending (2), reserving, admitted,
 * finished, status (3). */
#define LQ_SLOTS 8

/* The gauges of LocalQueue i, whose workloads hold use; *qslot counts
 * the quota slots used. */
static void lq_gauges(struct obs_metrics *om, const struct ctl *x, size_t i,
		      const struct tally *t, const int64_t *use, size_t *qslot,
		      struct strbuf *key)
{
	static const char *const statuses[] = { "True", "False", "Unknown" };
	const struct local_queue *lq = &ctl_cluster(x)->local_queues.items[i];
	const char *l[MAX_LABELS];
	const char *ns = lq->ns ? lq->ns : "default";
	size_t base = i * LQ_SLOTS;
	int32_t cq;
	const char *now = lq_active(x, lq, &cq);

	key_of(key, ns, lq->name, NULL);
	set_cached(om, &om->lqc, base, key->buf, key->len, F_LQ_PENDING,
		   labels(om, l, "name", lq->name, "namespace", ns, "status",
			  "active", NULL),
		   (double)t->active);
	set_cached(om, &om->lqc, base + 1, key->buf, key->len, F_LQ_PENDING,
		   labels(om, l, "name", lq->name, "namespace", ns, "status",
			  "inadmissible", NULL),
		   (double)t->inadmissible);
	labels(om, l, "name", lq->name, "namespace", ns, NULL);
	set_cached(om, &om->lqc, base + 2, key->buf, key->len, F_LQ_RESERVING,
		   l, (double)t->reserving);
	set_cached(om, &om->lqc, base + 3, key->buf, key->len,
		   F_LQ_ADMITTED_ACTIVE, l, (double)t->admitted);
	set_cached(om, &om->lqc, base + 4, key->buf, key->len,
		   F_LQ_FINISHED_ACTIVE, l, (double)t->finished);
	for (size_t k = 0; k < ARRAY_SIZE(statuses); k++)
		set_cached(om, &om->lqc, base + 5 + k, key->buf, key->len,
			   F_LQ_STATUS,
			   labels(om, l, "name", lq->name, "namespace", ns,
				  "active", statuses[k], NULL),
			   strcmp(now, statuses[k]) == 0);
	if (cq >= 0)
		lq_quota_series(om, x, lq, cq, use, qslot, key);
}

/* The gauges of domain d of flavor f, found again while their labels
 * (key) stay the same. */
static const int64_t *domain_handles(struct obs_metrics *om, size_t f,
				     uint32_t d, const struct strbuf *key)
{
	const char *flavor = key->buf;
	const char *level = flavor + strlen(flavor) + 1;
	const char *path = level + strlen(level) + 1;
	static const int fams[3] = { F_DOMAIN_GPUS, F_DOMAIN_GPUS_USED,
				     F_DOMAIN_FREE_HOSTS };
	const char *l[MAX_LABELS];
	struct dom_cache *dc;

	while (d >= om->doms[f].len)
		vec_push_zero(&om->doms[f]);
	dc = &om->doms[f].items[d];
	if (dc->path && dc->len == key->len &&
	    memcmp(dc->path, key->buf, key->len) == 0)
		return dc->h;
	free(dc->path);
	dc->path = xmalloc(key->len + 1);
	memcpy(dc->path, key->buf, key->len + 1);
	dc->len = key->len;
	labels(om, l, "flavor", flavor, "level", level, "domain", path, NULL);
	for (size_t k = 0; k < 3; k++)
		dc->h[k] = metrics_handle(om->m, om->ids[fams[k]], l);
	return dc->h;
}

/* The GPU gauges of every domain of t above its hosts (the racks and
 * blocks): the usage and what still fits, fragmentation in numbers. */
static void domain_gauges(struct obs_metrics *om, size_t fl,
			  const struct topo *t, const char *flavor, int gpu,
			  struct strbuf *path)
{
	/* a unit is a host when the lowest level is the hostname */
	unsigned levels = (unsigned)t->nlevels - (t->hostname_lowest ? 1 : 0);

	for (uint32_t d = 0; d < t->level_off[levels]; d++) {
		const int64_t *h;
		int64_t gpus = 0, used = 0, free_hosts = 0;

		for (uint32_t n = t->dom_node[d];
		     n < t->dom_node[d] + t->dom_nnodes[d]; n++) {
			int64_t a = t->node_alloc[(size_t)n * t->nres + gpu];
			int64_t f = t->node_free[(size_t)n * t->nres + gpu];

			if (!topo_node_live(t, n) || a <= 0)
				continue;
			gpus += a;
			used += a - f;
			free_hosts += f >= a;
		}
		/* the labels, flavor and level first, as the cache's key */
		key_of(path, flavor, t->topology->levels[topo_dom_level(t, d)],
		       NULL);
		strbuf_addch(path, '\0');
		topo_dom_path(t, d, "/", path);
		h = domain_handles(om, fl, d, path);
		metrics_set_handle(om->m, h[0], (double)gpus);
		metrics_set_handle(om->m, h[1], (double)used);
		metrics_set_handle(om->m, h[2], (double)free_hosts);
	}
}

static void topology_gauges(struct obs_metrics *om, const struct ctl *x)
{
	const struct cluster *c = ctl_cluster(x);
	int gpu = resource_lookup(c->resources, "nvidia.com/gpu");
	struct strbuf path;

	if (gpu < 0)
		return;
	if (om->ndoms < c->flavors.len) {
		om->doms = xreallocarray(om->doms, c->flavors.len,
					 sizeof(*om->doms));
		memset(om->doms + om->ndoms, 0,
		       (c->flavors.len - om->ndoms) * sizeof(*om->doms));
		om->ndoms = c->flavors.len;
	}
	strbuf_init(&path);
	for (size_t f = 0; f < c->flavors.len; f++) {
		const struct topo *t = sched_topo(ctl_sched(x), (int32_t)f);

		if (t && gpu < t->nres)
			domain_gauges(om, f, t, c->flavors.items[f].name, gpu,
				      &path);
	}
	strbuf_release(&path);
}

/* The info gauge of quota node n in slot n of om->cohc: 1 on its labels
 * now, 0 on those it had before a change of its parent. */
static void info(struct obs_metrics *om, const struct quota *q, int32_t n,
		 struct strbuf *key)
{
	const struct quota_node *qn = &q->nodes[n];
	const char *parent = qn->parent >= 0 ? q->nodes[qn->parent].name : "";
	const char *root =
		q->nodes[qn->root].is_cq ? "" : q->nodes[qn->root].name;
	const char *l[MAX_LABELS];

	key_of(key, qn->is_cq ? "q" : "c", qn->name, parent, root, NULL);
	labels(om, l, qn->is_cq ? "cluster_queue" : "cohort", qn->name,
	       "parent_cohort", parent, "root_cohort", root, NULL);
	set_moving(om, &om->cohc, (size_t)n, key,
		   qn->is_cq ? F_CQ_INFO : F_COHORT_INFO, l, 1, false);
}

/*
 * Kueue's weighted share of quota node n in slot n of om->shc: fair
 * sharing's own dominant resource share (quota_share(), what the
 * scheduler orders and preempts by), per mille of the lendable quota
 * divided by the weight, as Kueue reports it; NaN when the weight is 0
 * and it borrows.
 */
static void share(struct obs_metrics *om, const struct quota *q, int32_t n,
		  struct strbuf *key)
{
	const struct quota_node *qn = &q->nodes[n];
	const char *parent = qn->parent >= 0 ? q->nodes[qn->parent].name : "";
	int64_t drs = quota_share(q, n, NULL);
	double v = (double)drs;
	const char *l[MAX_LABELS];

	if (drs == INT64_MAX) /* weight 0, or its parent lends none */
		v = qn->weight_milli <= 0 ? NAN : INFINITY;
	if (qn->is_cq) {
		labels(om, l, "cluster_queue", qn->name, "cohort", parent,
		       NULL);
		key_of(key, "q", qn->name, parent, NULL);
	} else {
		labels(om, l, "cohort", qn->name, NULL);
		key_of(key, "c", qn->name, NULL);
	}
	set_moving(om, &om->shc, (size_t)n, key,
		   qn->is_cq ? F_CQ_SHARE : F_COHORT_SHARE, l, v, false);
}

/* Kueue's cohort series from the quota tree: per cohort its info, weighted
 * share and, per flavor and resource its subtree has quota of, the
 * subtree's quota and reservations; per ClusterQueue its info and
 * weighted share. */
static void cohort_gauges(struct obs_metrics *om, const struct ctl *x)
{
	const struct cluster *c = ctl_cluster(x);
	const struct quota *q = sched_quota(ctl_sched(x));
	const char *l[MAX_LABELS];
	struct strbuf key;

	strbuf_init(&key);
	for (int32_t n = 0; n < (int32_t)q->nnodes; n++) {
		const struct quota_node *qn = &q->nodes[n];

		info(om, q, n, &key);
		share(om, q, n, &key);
		if (qn->is_cq)
			continue;
		for (size_t f = 0; f < q->nflavors && f < c->flavors.len; f++)
			for (int r = 0; r < c->resources->count; r++) {
				size_t fr = QUOTA_FR(f, r);

				if (qn->subtree[fr] <= 0 && !qn->listed[fr])
					continue;
				labels(om, l, "cohort", qn->name, "flavor",
				       c->flavors.items[f].name, "resource",
				       resource_name(c->resources, r), NULL);
				metrics_set(om->m, om->ids[F_COHORT_QUOTA], l,
					    value(c, r, qn->subtree[fr]));
				metrics_set(om->m,
					    om->ids[F_COHORT_RESERVATIONS], l,
					    value(c, r, qn->usage[fr]));
			}
	}
	/* nodes gone with a smaller tree */
	hcache_drop(om, &om->cohc, q->nnodes);
	hcache_drop(om, &om->shc, q->nnodes);
	strbuf_release(&key);
}

/*
 * Kueue's unadmitted workloads per ClusterQueue and LocalQueue and cause:
 * every workload of a queue that holds no quota (a preempted one still
 * holding it is admitted until it is gone), queued or not. A LocalQueue
 * counts only while it exists, under the ClusterQueue of its workloads.
 */
static void unadmitted_gauges(struct obs_metrics *om, const struct ctl *x,
			      const struct unadmitted *un)
{
	const struct cluster *c = ctl_cluster(x);
	size_t ncq = c->cluster_queues.len, nlq = c->local_queues.len;
	const int64_t *cqn = un->cqn, *lqn = un->lqn;
	const int32_t *lqcq = un->lqcq;
	const char *l[MAX_LABELS];
	struct strbuf key;

	strbuf_init(&key);
	for (size_t q = 0; q < ncq; q++) {
		const char *name = c->cluster_queues.items[q].name;

		for (size_t k = 0; k < CAUSE_COUNT; k++) {
			labels(om, l, "cluster_queue", name, "reason",
			       "NoReservation", "underlying_cause",
			       cause_names[k], NULL);
			key_of(&key, name, cause_names[k], NULL);
			set_moving(om, &om->unc, q * CAUSE_COUNT + k, &key,
				   F_UNADMITTED, l,
				   (double)cqn[q * CAUSE_COUNT + k], true);
		}
	}
	for (size_t i = 0; i < nlq; i++) {
		const struct local_queue *lq = &c->local_queues.items[i];
		const char *ns = lq->ns ? lq->ns : "default";
		/* without workloads, the ClusterQueue the LocalQueue names */
		const char *cq =
			lqcq[i] >= 0 ? cq_label(x, lqcq[i]) : lq->cluster_queue;

		for (size_t k = 0; k < CAUSE_COUNT; k++) {
			labels(om, l, "name", lq->name, "namespace", ns,
			       "cluster_queue", cq ? cq : "", "reason",
			       "NoReservation", "underlying_cause",
			       cause_names[k], NULL);
			key_of(&key, ns, lq->name, cq ? cq : "", cause_names[k],
			       NULL);
			set_moving(om, &om->lunc, i * CAUSE_COUNT + k, &key,
				   F_LQ_UNADMITTED, l,
				   (double)lqn[i * CAUSE_COUNT + k], true);
		}
	}
	strbuf_release(&key);
}

void obs_metrics_refresh(struct obs_metrics *om, const struct ctl *x)
{
	const struct cluster *c = ctl_cluster(x);
	size_t ncq = c->cluster_queues.len, nlq = c->local_queues.len;
	struct tally *cqt = xcalloc(ncq + 1, sizeof(*cqt));
	struct tally *lqt = xcalloc(nlq + 1, sizeof(*lqt));
	size_t nfr = c->flavors.len * RESOURCE_MAX;
	int64_t *lquse = xcalloc(nlq * nfr + 1, sizeof(*lquse));
	int64_t *phases =
		xcalloc((ncq + 1) * PODGROUP_PHASE_COUNT, sizeof(*phases));
	int64_t *cqpend = xcalloc((ncq + 1) * RESOURCE_MAX, sizeof(*cqpend));
	const char *l[MAX_LABELS];
	struct strbuf key;
	struct unadmitted un;
	size_t qslot = 0, lqslot = 0;

	unadmitted_init(&un, ncq, nlq);
	count(om, x, cqt, lqt, lquse, cqpend, phases, &un);
	/* cohorts first at zero, then each queue's share added */
	for (size_t i = 0; i < c->cohorts.len; i++)
		metrics_set(
			om->m, om->ids[F_COHORT_ADMITTED_ACTIVE],
			labels(om, l, "cohort", c->cohorts.items[i].name, NULL),
			0);
	for (int32_t cq = 0; cq < (int32_t)ncq; cq++)
		per_cohort(om, x, om->ids[F_COHORT_ADMITTED_ACTIVE], cq, 0,
			   true);
	strbuf_init(&key);
	for (int32_t cq = 0; cq < (int32_t)ncq; cq++) {
		cq_gauges(om, x, cq, &cqt[cq],
			  &phases[(size_t)cq * PODGROUP_PHASE_COUNT], &qslot,
			  &key);
		pending_series(om, x, cq, cqpend + (size_t)cq * RESOURCE_MAX,
			       &key);
		per_cohort(om, x, om->ids[F_COHORT_ADMITTED_ACTIVE], cq,
			   (double)cqt[cq].admitted, false);
	}
	for (size_t i = 0; i < nlq; i++)
		lq_gauges(om, x, i, &lqt[i], lquse + i * nfr, &lqslot, &key);
	strbuf_release(&key);
	cohort_gauges(om, x);
	unadmitted_gauges(om, x, &un);
	unadmitted_release(&un);
	topology_gauges(om, x);
	free(cqpend);
	free(phases);
	free(lquse);
	free(lqt);
	free(cqt);
}

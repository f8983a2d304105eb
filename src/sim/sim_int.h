/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of one simulation run, shared by sim_run.c (the event loop and
 * the state of jobs and pods), sim_apply.c (admission cycles, timeouts and
 * failures: the scheduler's and the lifecycle's decisions applied) and
 * sim_figures.c (placement shapes, invariant checks, the summary). Not an
 * API: nothing outside src/sim includes it.
 *
 * Invariants (sim_figures_check()): a job's pods are bound all or none
 * under the gang policies; a node's bound GPUs never exceed its
 * allocatable ones; the quota tree is consistent and no ClusterQueue uses
 * more than it may; the GPU totals equal the sums over pods and jobs.
 */
#ifndef ECHELON_SIM_SIM_INT_H
#define ECHELON_SIM_SIM_INT_H

#include <stdarg.h>

#include "base/rng.h"
#include "ctl/ctl.h"
#include "gang/gang.h"
#include "obs/obs_metrics.h"
#include "sched/quota.h"
#include "sched/sched.h"
#include "sim/evq.h"
#include "sim/sim.h"

/* Event kinds; at one time they are handled in the rank order of
 * sim_run.c's table. */
enum sim_ev {
	EV_NODE_UP,   /* b: 1 after a failure drawn from the rate */
	EV_NODE_DOWN, /* b: index of the scheduled failure, -1 drawn */
	EV_FINISH,
	EV_POD_FAIL,
	EV_POD_UP,
	EV_TICK,   /* a gang timeout or a requeue time */
	EV_ARRIVE, /* a job is submitted (no-gang: its first pod) */
	EV_SUBMIT, /* no-gang: the job's next pod */
	EV_KIND_COUNT
};

struct sim_pod {
	int32_t node; /* cluster node index; -1 unbound or without node */
	bool bound, up;
	int64_t gpus;
	uint64_t up_ev; /* pending start-up event, 0: none */
};

/* What a job needs once admitted, made at its first admission with its
 * pods (most jobs of a long queue wait without). */
struct sim_jrun {
	int64_t seg_start_us; /* running since */
	double ratio;	      /* throughput of its placement */
	int64_t run_gpus;     /* GPUs of its running pods */
	int64_t progress_us;  /* ideal work kept by checkpoints */
	uint64_t end_ev, fail_ev;
	int64_t first_int_us, last_int_us; /* its interruptions */
	struct sim_pod pods[];		   /* [job pods] */
};

/* The run's view of one job. */
struct sim_jst {
	uint32_t wl;	      /* slot of its gang workload; UINT32_MAX: a
				 trace job not arrived, or ended */
	int32_t min_hosts;    /* of its ideal placement */
	uint32_t *split_wl;   /* no-gang, trace job: slot of each pod's
				 workload (UINT32_MAX: none now) */
	struct sim_jrun *run; /* made at first admission; a trace job's
				 freed when it finishes */
	int32_t bound, up;    /* pods bound, pods up */
	int32_t want;	      /* pods its admission(s) hold */
	int32_t adm;	      /* its workloads admitted now */
	uint32_t active_pos;  /* 1 + its place in sim_state.active; 0: none */
	int32_t ints;	      /* interruptions: lost its work, or evicted */
	uint8_t wait;	      /* its wait reason now (sim.h), 0: none */
	uint32_t watch_pos;   /* 1 + its place in sim_state.watch; 0: none */
	int64_t wait_since;   /* when that reason began */
};

/* Observed runtimes of the finished jobs of one (queue, GPUs) bucket. */
struct sim_est_hist {
	int64_t sum_us, n;
};

struct sim_state {
	const struct sim_input *in;
	const struct sim_options *o;
	struct sim_result *res;
	struct ctl *ctl;
	struct obs_metrics *obs; /* into res->metrics */
	const struct sched *s;	 /* the controller's, read-only */
	const struct gang *g;
	struct evq q;
	struct rng rng;
	bool split; /* no-gang: pods are workloads of their own */

	/* Per cluster workload slot (grown as trace jobs arrive): */
	int32_t *wl_job;   /* its job, -1 none */
	uint32_t *wl_pod0; /* its first pod in that job */
	int32_t *wl_count; /* pods its admission holds, 0: not admitted */
	size_t nslots;
	struct sim_jst *js;
	/* Pod sets shared by the live trace workloads of one shape (struct
	 * sim_shape_key -> index in shapes; a free entry has no pod sets),
	 * held while a workload of the shape lives. */
	struct hmap shape_ids;
	VEC(struct workload) shapes;
	VEC(uint32_t) free_shapes;
	int64_t *node_gpus; /* GPUs bound on each node */
	bool *node_down;
	VEC(uint32_t) active; /* jobs holding quota or pods (for checks) */

	int64_t now, last_t;
	size_t live; /* pending events that can change the outcome */
	int64_t count[SIM_JOB_STATE_COUNT];
	size_t submitted, terminal;
	/* Stalls (sim.h): interruptions since a job last finished or kept
	 * work; failures and interruptions since a job last finished or
	 * arrived, and when that was; the longest span allowed without. */
	int32_t futile;
	int64_t since_finish, last_finish_us, stall_us;
	int64_t busy_until_us; /* the latest end a job was started for */
	unsigned progress_pm;

	int64_t alloc_gpus, busy_gpus;
	/* GPU-us integrated over time: busy, and allocated but idle. The
	 * busy ones are also summed over the running segments of jobs, and
	 * the part of those on pods without a node (the rest is
	 * node_busy_gpu_us): the checks compare the three. */
	int64_t busy_sum, idle_sum, busy_jobs, busy_unplaced;
	/* Work kept (not lost to an interruption) in GPU-us at the ideal
	 * speed: segment x throughput ratio x GPUs (goodput). */
	double good_sum;
	int64_t sample_us, next_sample;
	int64_t last_obs_ms;   /* of the last metrics sample */
	int64_t obs_period_us; /* of the metrics history */
	uint64_t obs_events; /* res->events at the last refresh + 1; 0: none */
	int cq_res;	     /* resource of the ClusterQueue usage figure */
	size_t ncq;
	double *cq_int; /* usage x time per ClusterQueue */

	VEC(uint32_t) watch; /* sim_wait.c: jobs that wait or may */

	uint64_t tick_ev;
	int64_t tick_at;
	/* Jobs in arrival order when the input is not sorted (NULL: it is);
	 * only the next arrival is in the queue. */
	uint32_t *arrivals;
	/* sim_estimate.c: (queue, GPUs) -> index into est_hist */
	struct hmap est_bucket;
	VEC(struct sim_est_hist) est_hist;
};

/* sim_run.c */
void sim_run_log(struct sim_state *st, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Push an event (counted in live unless it cannot change the outcome). */
uint64_t sim_run_push(struct sim_state *st, int64_t t, enum sim_ev kind,
		      int64_t a, int64_t b);
/* The index in cluster->nodes of the node called name (BUG if none). */
int32_t sim_run_node(const struct sim_state *st, const char *name);
/* Cancel *id (0: none), an event of that kind, and clear it. */
void sim_run_cancel(struct sim_state *st, uint64_t *id, enum sim_ev kind);
void sim_run_set_state(struct sim_state *st, uint32_t j, enum sim_job_state s);
/* Stop job j if it runs; finished or not (lost work). */
void sim_run_stop(struct sim_state *st, uint32_t j, bool finished);
/* Add a running segment of seg us of job j to the busy figures (per
 * node for the heat map). */
void sim_run_account(struct sim_state *st, uint32_t j, int64_t seg);
/* Samples before t and the integrals up to t (before t's events). */
void sim_run_advance(struct sim_state *st, int64_t t);
/* One sample of the state now, at time t. */
void sim_run_sample(struct sim_state *st, int64_t t);
/* The metrics history's sample at t, when t is on its period (a multiple
 * of the time series', doubled when the history reaches its bound) or
 * last: the run's end, always kept. */
void sim_run_sample_metrics(struct sim_state *st, int64_t t, bool last);
/* The samples due before t (and at t with at_t), thinned to at most
 * SIM_MAX_SAMPLES. */
void sim_run_sample_until(struct sim_state *st, int64_t t, bool at_t);
/* The job of workload wl's admission: count it, with its pods. */
void sim_run_admitted(struct sim_state *st, uint32_t wl);
/* A node failed: counts towards a stall (sim.h). */
void sim_run_failure(struct sim_state *st);
/* Workload wl no longer holds quota (evicted, deactivated). */
void sim_run_unadmitted(struct sim_state *st, uint32_t wl, bool deactivated);

/* sim_wait.c (sim_options.waits) */
/* Job j changed state: watch it while it may wait. */
void sim_wait_track(struct sim_state *st, uint32_t j);
/* After the events of a time and their cycles: every watched job's reason
 * now, its time in the one before, and a log line per change. */
void sim_wait_update(struct sim_state *st);
/* The run stopped: close every reason at the stop time. */
void sim_wait_finish(struct sim_state *st);
/* The slot of no-gang pod k of job j now (UINT32_MAX: none). */
uint32_t sim_run_split_slot(const struct sim_state *st, uint32_t j, uint32_t k);

/* sim_estimate.c */
/* The runtime estimate for job j now (sim_options.estimates), perturbed
 * by estimate_error; 0 when none. */
int64_t sim_estimate(const struct sim_state *st, uint32_t j);
/* Exact estimates: job j's pods are all bound; its runtime from now
 * (start-up, placement slow-down), perturbed; 0 for other sources. */
int64_t sim_estimate_placed(struct sim_state *st, uint32_t j);
/* Job j finished after running runtime_us: into its bucket's history. */
void sim_estimate_record(struct sim_state *st, uint32_t j, int64_t runtime_us);

/* sim_apply.c */
/* Node down; which: the index of its scheduled failure, -1 when drawn. */
void sim_apply_node_down(struct sim_state *st, uint32_t node, int64_t which);
/* Node repaired; random: it failed at random (draw its next failure). */
void sim_apply_node_up(struct sim_state *st, uint32_t node, int64_t random);
/* The scheduled failures and the first random one of every node. */
void sim_apply_failures(struct sim_state *st);

/* sim_figures.c */
/* Hosts, racks, blocks and throughput ratio of job j's placement. */
void sim_figures_shape(struct sim_state *st, uint32_t j);
/* The invariants above; BUG when one fails. */
void sim_figures_check(struct sim_state *st);
/* Close the run: samples to the end, records, summary. */
void sim_figures_finish(struct sim_state *st);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cluster simulator: a discrete-event simulation in virtual time of
 * jobs submitted to the scheduler core (src/sched), bound and supervised by
 * the gang lifecycle (src/gang), running for their trace duration stretched
 * by the training-throughput model (sim/throughput.h), under node and pod
 * failures. See docs/internals/simulator.md.
 *
 * Ownership: a struct sim_input owns its job array and the trace jobs'
 * templates; it refers to a struct cluster (borrowed) whose workloads
 * include every manifest job's workload, and, for the no-gang policy, one
 * single-pod workload per pod of such a job (sim_input_add_split()). A run
 * adds the workloads of trace jobs as they arrive and deletes them as they
 * end; the cluster is as before at the end of the run. Nothing else may
 * change the cluster while runs use it. A struct sim_result is owned by the
 * caller of sim_run() and freed with sim_result_release().
 *
 * Pure and deterministic: no I/O, no clock; randomness (failures, backoff
 * jitter) comes from the seed; every order has a total tie-break. The same
 * input, options and seed give the same result, byte for byte once
 * written out (sim_out.h).
 */
#ifndef ECHELON_SIM_SIM_H
#define ECHELON_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/hmap.h"
#include "base/metrics.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "model/cluster.h"
#include "sim/throughput.h"
#include "sim/trace.h"

/*
 * Bounds that keep every run finite in time and memory whatever its
 * failure rates. The time series holds at most SIM_MAX_SAMPLES samples: a
 * full one keeps every other sample and doubles its period. A run stops
 * when no job finished or kept work (a checkpoint) through
 * SIM_STALL_INTERRUPTIONS interruptions (a failure, an eviction of a job
 * that lost its work), or when no job finished or arrived for
 * SIM_STALL_SPAN_FACTOR times the longest job's duration while failures
 * went on and no job started then is due to end later: its unfinished jobs
 * cannot complete at that failure rate, and sim_result.stop_reason says which.
 * Rates above SIM_MAX_POD_FAIL_PER_H (a pod failing more than once a second) or
 * node MTBFs under SIM_MIN_NODE_MTBF_H (a second) are refused.
 */
#define SIM_MAX_SAMPLES		4096
#define SIM_STALL_INTERRUPTIONS 10000
#define SIM_STALL_SPAN_FACTOR	100
#define SIM_MAX_POD_FAIL_PER_H	3600.0
#define SIM_MIN_NODE_MTBF_H	(1.0 / 3600)

/* How a run schedules. The first three place gangs all or nothing and
 * differ in placement; no-gang admits every pod on its own (kube-default
 * placement) and a job runs once all its pods are up. */
enum sim_policy {
	SIM_POLICY_TAS,
	SIM_POLICY_KUBE_DEFAULT,
	SIM_POLICY_FIRST_FIT,
	SIM_POLICY_NO_GANG,
	SIM_POLICY_COUNT
};

/* Where a job ends up when the run stops. */
enum sim_job_state {
	SIM_JOB_UNSUBMITTED, /* submitted after the run stopped */
	SIM_JOB_PENDING,     /* queued (or evicted and queued again) */
	SIM_JOB_ADMITTED,    /* holds quota, not all pods running yet */
	SIM_JOB_RUNNING,
	SIM_JOB_FINISHED,
	SIM_JOB_DEACTIVATED, /* waitForPodsReady backoff limit reached */
	SIM_JOB_STATE_COUNT
};

/*
 * One job of the input: a gang workload of the cluster (one of the
 * manifests), or a trace job whose workload a run creates when it arrives
 * and deletes when it ends (tmpl >= 0).
 */
struct sim_job {
	uint32_t wl;	/* its workload in cluster->workloads, or
			   UINT32_MAX for a trace job */
	int32_t tmpl;	/* its trace job in sim_input.templates, -1 */
	uint32_t order; /* input order, the tie-break of the sort */
	int32_t pods;	/* all pods of all pod sets */
	const char *name, *ns, *queue; /* of its workload; interned */
	int64_t submit_us;	       /* >= 0 */
	int64_t duration_us;	       /* runtime at the ideal placement, > 0 */
	const char *klass;    /* class for per-class figures; NULL: none */
	int64_t gpus;	      /* GPUs of all pods */
	int32_t gpus_per_pod; /* most GPUs of one pod (the model's rank) */
	uint32_t split;	      /* no-gang: first of its pods' workloads,
				 UINT32_MAX when not split or a trace job
				 (whose pods' workloads come at arrival) */
};

/*
 * A trace job as the input keeps it: what its struct sim_job does not say
 * already. Its per-pod requests are shared with every trace job that asks
 * for the same (sim_input.requests), so a job costs its sim_job and these
 * 40 bytes until a run makes its workload.
 */
struct sim_tmpl {
	const char *topology_level; /* interned; NULL when none */
	struct srcpos pos;	    /* where the job was read */
	uint32_t requests;	    /* index into sim_input.requests */
	int32_t min_count;
	int32_t priority;
	uint8_t topology_mode; /* enum topology_mode */
	uint8_t parallelism;   /* 1 + enum throughput_class; 0: by size */
};

/* Domains of a node for topology figures (-1: not in a topology). */
struct sim_node_place {
	int32_t block, rack; /* indices into sim_input's names */
};

struct sim_input {
	struct cluster *c;
	VEC(struct sim_job) jobs; /* in submission order (then input order) */
	VEC(struct sim_tmpl) templates; /* of trace jobs */
	VEC(struct resvec) requests;	/* distinct requests of trace jobs */
	struct hmap request_ids;	/* a resvec's bytes -> its index */
	const char *gpu_resource; /* interned; "nvidia.com/gpu" by default */
	int gpu_id;		  /* its resource id, -1 when not registered */
	/* Topology of the nodes for the figures: per cluster node its block
	 * and rack, the names, and the geometry of the ideal placement (the
	 * largest host, rack and block). Filled by sim_input_init(). */
	struct sim_node_place *node_place; /* [c->nodes.len] */
	VEC(const char *) block_names;
	VEC(const char *) rack_names;
	struct throughput_geometry geometry;
	int64_t total_gpus; /* allocatable GPUs of all nodes */
};

/* A node failure from a schedule: node down at at_us, back after
 * repair_us (0: never). */
struct sim_failure {
	int64_t at_us;
	const char *node; /* node name */
	int64_t repair_us;
};

/* Where the runtime estimates a run gives the scheduler come from (see
 * docs/internals/backfill.md). A workload's own limit counts when the run
 * gives none. */
enum sim_estimates {
	SIM_EST_HISTORY, /* mean runtime of finished jobs of its (queue, GPUs)
			  */
	SIM_EST_EXACT,	 /* the trace's duration */
	SIM_EST_NONE,
	SIM_EST_COUNT
};

/* Where a run is, for a progress bar. */
struct sim_progress {
	double done;	 /* fraction of submissions and ends, [0, 1] */
	int64_t now_us;	 /* simulated time */
	size_t finished; /* jobs finished or deactivated */
	size_t jobs;	 /* of the input */
};

struct sim_options {
	enum sim_policy policy;
	uint64_t seed;
	int64_t until_us;     /* stop at this time; 0: when nothing is left */
	int64_t pod_start_us; /* bind -> pod Running and Ready; default 10 s */
	int64_t sample_us;    /* timeseries period; 0: span / 1,000, >= 1 s;
				 doubled as the series fills up */
	double node_mtbf_h;   /* mean hours between failures of a node; 0 */
	int64_t node_repair_us; /* default 1 h */
	double pod_fail_per_h;	/* failures per running pod-hour; 0 */
	const struct sim_failure *failures; /* borrowed schedule */
	size_t nfailures;
	int64_t checkpoint_us; /* checkpoint period (lost work); 0: none */
	struct throughput_config tp;
	/* tas: Kueue's placement as it is, without echelon's compact gangs
	 * (a gang may span more racks than it needs when that is free). */
	bool loose;
	/* tas: reservations and backfill (sched_options.backfill). */
	bool backfill;
	enum sim_estimates estimates;
	/* sigma of the log-normal error on each estimate; 0: none */
	double estimate_error;
	bool check; /* check the invariants after the events of each time
		       (on by default in debug builds, without NDEBUG) */
	/* Record why each job waits and for how long (sim_job_rec.waits),
	 * and log each change of reason: a look at every waiting job after
	 * each step, so off unless asked for. */
	bool waits;
	/* Collect Kueue's and echelon's metrics and their history
	 * (sim_result.metrics; NULL when off): a look at every controller
	 * event, about a fifth of a run's time, so the CLI asks for it only
	 * when it writes them (--out). On after sim_options_init(). */
	bool metrics;
	/* Event log for golden tests (one line per event); NULL: none. */
	struct strbuf *log;
	/* Called every ~1/1000 of the work (submissions and ends) with
	 * where the run is; NULL: none. */
	void (*progress)(void *ctx, const struct sim_progress *p);
	void *progress_ctx;
};

/*
 * Why a job waits (sim_options.waits), as the controller says it
 * (ctl_wl_wait()): 0 for not waiting, 1 + a Kueue pending reason (enum
 * sched_pend), or SIM_WAIT_CTL + a finer wait (enum ctl_wait: a compact
 * gang, a backoff, cycles held by blockAdmission, its gang assembling or
 * recovering).
 */
#define SIM_WAIT_CTL   (1 + 9)		  /* 1 + SCHED_PEND_COUNT */
#define SIM_WAIT_COUNT (SIM_WAIT_CTL + 7) /* + CTL_WAIT_COUNT */

/* Time spent waiting for one reason. */
struct sim_wait {
	uint8_t reason; /* 1 to SIM_WAIT_COUNT - 1 */
	int64_t us;
};

/* One job's outcome. Times are -1 where they do not apply. */
struct sim_job_rec {
	enum sim_job_state state;
	int32_t evictions;	      /* preemptions and lifecycle evictions */
	int64_t admit_us;	      /* first admission */
	int64_t start_us;	      /* first time all pods ran (last start) */
	int64_t end_us;		      /* finished */
	int32_t hosts, racks, blocks; /* spanned by its last placement */
	int32_t min_racks, min_blocks;
	int32_t preemptions;
	double throughput_ratio; /* of its last placement; -1: n/a */
	/* the modelled all-reduce traffic its last placement sends out of
	 * its racks and out of its blocks, bytes/s (obs_placement.h, as the
	 * daemon's per-workload series); -1: never placed, or not on a
	 * topology-aware flavor */
	double rack_bps, block_bps;
	int64_t lost_gpu_us; /* work lost to evictions and node failures */
	int64_t cq;	     /* ClusterQueue index, -1 when none */
	/* With sim_options.waits: the time spent per reason, in the order
	 * the reasons first applied (owned), and the reason it waited for
	 * when the run stopped (0: none) */
	struct sim_wait *waits;
	uint8_t nwaits;
	uint8_t wait_end;
	/* the scheduler's message for a queued job's wait_end, with its
	 * numbers (owned; NULL: none) */
	char *wait_msg;
};

/* One row of the time series. */
struct sim_sample {
	int64_t t_us;
	int64_t gpus_allocated; /* held by bound pods */
	int64_t gpus_busy;	/* of running jobs */
	int32_t pending, admitted, running, finished;
	/* Fragmentation: nodes up with GPUs and none bound (a gang of
	 * whole-node pods fits in as many), and the most of those in one
	 * rack and in one block. */
	int32_t free_hosts, free_rack_hosts, free_block_hosts;
};

/* Kueue's preemption reasons (enum sched_preempt_reason,
 * sched_preempt_reason_name()). */
#define SIM_PREEMPT_REASONS 4

/* One ClusterQueue at one sample (sim_result.cq_samples). */
struct sim_cq_sample {
	int32_t pending; /* its jobs queued (by their LocalQueue) */
	int64_t usage;	 /* of sim_result.cq_resource, all flavors */
};

/* The summary table of one run (summary.json). Means over the jobs they
 * apply to; -1 where no job applies. */
struct sim_summary {
	int64_t jobs, jobs_finished, jobs_started;
	double mean_wait_s, p50_wait_s, p95_wait_s; /* submit -> start */
	double mean_admit_wait_s;		    /* submit -> admission */
	double mean_jct_s;			    /* submit -> end */
	double gpu_utilization; /* busy GPU-time / (GPUs x span) */
	/* ideal-speed work kept / allocated GPU-time (busy and idle): the
	 * share of held GPU-time that trained at full speed; -1 when no
	 * GPU-time was allocated */
	double goodput;
	double idle_allocated_gpu_hours;
	double mean_racks_spanned, mean_min_racks;
	double mean_blocks_spanned, mean_min_blocks;
	double on_min_racks; /* fraction of multi-node jobs on min racks */
	int64_t multi_node_jobs;
	double mean_throughput_ratio;
	double mean_multi_node_throughput_ratio; /* of multi-node jobs */
	int64_t makespan_us; /* last end (or the stop time) */
	int64_t evictions, preemptions, node_failures, pod_failures;
	double lost_gpu_hours;
	double min_cq_usage; /* least time-averaged ClusterQueue usage */
	/* Backfill (sim_options.backfill): reservations made, gangs
	 * admitted after their reservation's start (a workload overran its
	 * estimate) and the total of those delays. */
	bool backfill;
	int64_t reservations, reservations_delayed;
	double reservation_delay_s;
};

/* Per-class figures (jobs with a klass). */
struct sim_class_summary {
	const char *klass;
	int64_t jobs, admitted;
	double mean_admit_wait_s; /* submit -> first admission */
};

/* Most lines the metrics history of one run may write (OpenMetrics, about
 * 100 bytes a line): beyond, its resolution is halved. */
#define SIM_METRICS_MAX_LINES 150000

struct sim_result {
	enum sim_policy policy;
	struct throughput_config tp; /* the model the run used (outputs
					record it) */
	struct sim_job_rec *jobs;    /* [in->jobs.len] */
	VEC(struct sim_sample) samples;
	int64_t *node_busy_gpu_us; /* per cluster node: GPU-time of running
				      jobs on it, for the heat map */
	int64_t span_us;	   /* simulated time */
	struct sim_summary sum;
	VEC(struct sim_class_summary) classes; /* sorted by name */
	double *cq_usage; /* per ClusterQueue: time-averaged usage of its
			     nominal GPU (else cpu) quota, -1: no quota */
	/* The ClusterQueues over time: ncq entries per sample, sample by
	 * sample (thinned with the samples); the resource of their usage
	 * (GPUs where some ClusterQueue has GPU quota, else cpu; NULL: none)
	 * and each one's nominal quota of it (-1: none). */
	size_t ncq;
	VEC(struct sim_cq_sample) cq_samples;
	const char *cq_resource;
	int64_t *cq_nominal;
	/* Preemptions of each ClusterQueue's jobs by Kueue's reason:
	 * [cq * SIM_PREEMPT_REASONS + enum sched_preempt_reason]. */
	int64_t *cq_preempted;
	uint64_t events, cycles;
	size_t njobs; /* entries of jobs: in->jobs.len */
	/* The run stopped making progress (SIM_STALL_INTERRUPTIONS): the
	 * figures cover 0 to that time, and stop_reason says which jobs
	 * cannot complete and what would let them. Empty otherwise. */
	bool stalled;
	struct strbuf stop_reason;
	/* Kueue's metrics and echelon's (src/obs/obs_metrics.h), labelled
	 * with the policy: the state when the run stopped, and a sample of
	 * every series at each time-series sample (metrics_sample(), in
	 * milliseconds of simulated time), every other one each time the
	 * history would exceed SIM_METRICS_MAX_LINES lines. */
	struct metrics *metrics;
};

/*
 * Prepare an input over c: node domains from the first topology-aware
 * flavor's Topology (its last three levels taken as block, rack, host;
 * without one every node is its own host in one rack), the geometry, and
 * the GPU resource (NULL: "nvidia.com/gpu"). No jobs yet.
 */
void sim_input_init(struct sim_input *in, struct cluster *c,
		    const char *gpu_resource);
void sim_input_release(struct sim_input *in);

/*
 * Add a job for workload wl of c (after its workload was added to c):
 * pods, GPUs and the split index are computed here. Returns 0, or
 * -EINVAL with a message when duration_us <= 0 or submit_us < 0.
 */
int sim_input_add_job(struct sim_input *in, uint32_t wl, int64_t submit_us,
		      int64_t duration_us, const char *klass,
		      struct errbuf *eb) MUST_CHECK;
/*
 * Add trace job j (copied; its strings interned in the cluster's table) in
 * namespace ns (NULL: "default"): a run makes its workload when it arrives
 * (trace_job_workload()) and deletes it when it ends, so the input holds
 * the trace's few fields, not a workload, per job. Returns 0, or -EINVAL
 * with a message as sim_input_add_job().
 */
int sim_input_add_trace_job(struct sim_input *in, const struct trace_job *j,
			    const char *ns, struct errbuf *eb) MUST_CHECK;
/* Trace job j of the input (its tmpl >= 0) whole again, into *out. */
void sim_input_trace_job(const struct sim_input *in, uint32_t j,
			 struct trace_job *out);
/* Room for n more jobs (a trace's) without growing the arrays again. */
void sim_input_reserve(struct sim_input *in, size_t n);
/* Order jobs by submission time, then input order (stable). */
void sim_input_sort(struct sim_input *in);

/*
 * For the no-gang policy: add to c, for every job, one workload per pod
 * ("<name>-pod-<i>": one pod of its pod set's requests, its queue,
 * priority and creation), and set each job's split. Needs a cluster the
 * caller may change (the same one in->c points to). Returns 0 or -EEXIST
 * when a name is taken (nothing added).
 */
int sim_input_add_split(struct sim_input *in, struct cluster *c,
			struct errbuf *eb) MUST_CHECK;

/* The Topology of c's first topology-aware flavor (the one whose levels
 * the figures call block and rack), or NULL. */
const struct topology *sim_topology(const struct cluster *c);

/* Defaults: TAS, seed 1, 10 s pod start, 1 h repair, model defaults. */
void sim_options_init(struct sim_options *o);

/*
 * Run the simulation of in under o into res (initialised here; release
 * with sim_result_release()). Returns 0, or -EINVAL with a message when
 * an option is out of range (failure rates beyond the limits above) or a
 * scheduled failure names no node. A run that stalled returns 0 with
 * res->stalled set.
 */
int sim_run(const struct sim_input *in, const struct sim_options *o,
	    struct sim_result *res, struct errbuf *eb) MUST_CHECK;
void sim_result_release(struct sim_result *res);

const char *sim_policy_name(enum sim_policy p);
/* The ClusterQueue job j of in is queued in: the one its LocalQueue
 * (namespace and name) points to; -1 when none. */
int64_t sim_job_cq(const struct sim_input *in, uint32_t j);
/* The throughput class of job j of in under tp: its own (a trace job's
 * parallelism, a manifest job's sim.echelon.dev/parallelism), else by its
 * GPUs. */
enum throughput_class sim_job_class(const struct sim_input *in,
				    const struct throughput_config *tp,
				    uint32_t j);
/* "history", "exact", "none". */
const char *sim_estimates_name(enum sim_estimates e);
/* "tas", "kube-default", "first-fit", "no-gang"; -EINVAL otherwise. */
int sim_policy_parse(const char *s, enum sim_policy *ret) MUST_CHECK;
const char *sim_job_state_name(enum sim_job_state s);
/* The name of a wait reason (struct sim_wait): Kueue's pending reason or
 * ctl_wait_name()'s; NULL for 0. */
const char *sim_wait_name(unsigned reason);

#endif

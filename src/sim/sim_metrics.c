// SPDX-License-Identifier: Apache-2.0
/*
 * Prometheus metrics of simulation runs. Per-queue counts are tallied over
 * a run's job records first and recorded once per ClusterQueue, so that
 * every queue with a job has all its series even when they stay at zero;
 * the histograms are fed job by job. Figures the summary marks as not
 * applicable (-1) are written as NaN rather than left out, so that every
 * policy has the same series.
 */
#include "sim/sim_metrics.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/alloc.h"

#include "base/banned.h"

const double sim_metrics_ratio_buckets[SIM_METRICS_RATIO_BUCKETS] = {
	0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
};

enum fam {
	/* per ClusterQueue and policy */
	F_ADMITTED,
	F_FINISHED,
	F_ADMISSION_WAIT,
	F_EXECUTION_TIME,
	F_EVICTED,
	F_PREEMPTED,
	F_PENDING,
	F_ADMITTED_ACTIVE,
	/* per policy */
	F_THROUGHPUT_RATIO,
	F_GPU_UTILIZATION,
	F_GOODPUT,
	F_IDLE_ALLOCATED,
	F_MEAN_THROUGHPUT,
	F_MULTI_THROUGHPUT,
	F_ON_MIN_RACKS,
	F_MAKESPAN,
	F_NODE_FAILURES,
	F_POD_FAILURES,
	F_LOST_GPU_HOURS,
	F_RESERVATIONS,
	F_RESERVATIONS_DELAYED,
	F_RESERVATION_DELAY,
	F_COUNT
};

struct fam_def {
	const char *name, *help;
	enum metrics_type type;
	const double *buckets;
	size_t nbuckets;
};

static const struct fam_def defs[F_COUNT] = {
	[F_ADMITTED] = { "echelon_admitted_workloads_total",
			 "Workloads admitted (first admission).",
			 METRICS_COUNTER, NULL, 0 },
	[F_FINISHED] = { "echelon_finished_workloads_total",
			 "Workloads that finished.", METRICS_COUNTER, NULL, 0 },
	[F_ADMISSION_WAIT] = { "echelon_admission_wait_time_seconds",
			       "Time from submission to first admission "
			       "of admitted workloads.",
			       METRICS_HISTOGRAM, metrics_buckets_b16,
			       METRICS_B16_LEN },
	[F_EXECUTION_TIME] = { "echelon_execution_time_seconds",
			       "Time from first admission to finish of "
			       "finished workloads, re-admissions "
			       "included.",
			       METRICS_HISTOGRAM, metrics_buckets_b16,
			       METRICS_B16_LEN },
	[F_EVICTED] = { "echelon_evicted_workloads_total",
			"Evictions of workloads (preemptions and "
			"lifecycle evictions).",
			METRICS_COUNTER, NULL, 0 },
	[F_PREEMPTED] = { "echelon_preempted_workloads_total",
			  "Preemptions of workloads of the queue.",
			  METRICS_COUNTER, NULL, 0 },
	[F_PENDING] = { "echelon_pending_workloads",
			"Workloads pending when the run stopped.",
			METRICS_GAUGE, NULL, 0 },
	[F_ADMITTED_ACTIVE] = { "echelon_admitted_active_workloads",
				"Workloads admitted or running when the "
				"run stopped.",
				METRICS_GAUGE, NULL, 0 },
	[F_THROUGHPUT_RATIO] = { "echelon_workload_throughput_ratio",
				 "Training throughput of a workload's last "
				 "placement relative to the ideal one.",
				 METRICS_HISTOGRAM, sim_metrics_ratio_buckets,
				 SIM_METRICS_RATIO_BUCKETS },
	[F_GPU_UTILIZATION] = { "echelon_sim_gpu_utilization",
				"Busy GPU-time over all GPUs times the "
				"simulated span.",
				METRICS_GAUGE, NULL, 0 },
	[F_GOODPUT] = { "echelon_sim_goodput_ratio",
			"Work at ideal training speed kept per allocated "
			"GPU-hour; NaN when no GPU-time was allocated.",
			METRICS_GAUGE, NULL, 0 },
	[F_IDLE_ALLOCATED] = { "echelon_sim_idle_allocated_gpu_hours",
			       "GPU-hours allocated to bound pods while "
			       "their job was not running.",
			       METRICS_GAUGE, NULL, 0 },
	[F_MEAN_THROUGHPUT] = { "echelon_sim_mean_throughput_ratio",
				"Mean throughput ratio of the placed "
				"workloads; NaN when none.",
				METRICS_GAUGE, NULL, 0 },
	[F_MULTI_THROUGHPUT] = { "echelon_sim_multi_node_throughput_ratio",
				 "Mean throughput ratio of the placed "
				 "multi-node workloads; NaN when none.",
				 METRICS_GAUGE, NULL, 0 },
	[F_ON_MIN_RACKS] = { "echelon_sim_on_min_racks_ratio",
			     "Fraction of multi-node workloads placed on "
			     "the fewest racks possible; NaN when none.",
			     METRICS_GAUGE, NULL, 0 },
	[F_MAKESPAN] = { "echelon_sim_makespan_seconds",
			 "Time of the last finish, or the stop time.",
			 METRICS_GAUGE, NULL, 0 },
	[F_NODE_FAILURES] = { "echelon_sim_node_failures_total",
			      "Node failures.", METRICS_COUNTER, NULL, 0 },
	[F_POD_FAILURES] = { "echelon_sim_pod_failures_total", "Pod failures.",
			     METRICS_COUNTER, NULL, 0 },
	[F_LOST_GPU_HOURS] = { "echelon_sim_lost_gpu_hours",
			       "GPU-hours of work lost to evictions and "
			       "failures.",
			       METRICS_GAUGE, NULL, 0 },
	[F_RESERVATIONS] = { "echelon_sim_reservations_total",
			     "Reservations made by waiting gangs (backfill "
			     "runs only).",
			     METRICS_COUNTER, NULL, 0 },
	[F_RESERVATIONS_DELAYED] = { "echelon_sim_reservations_delayed_total",
				     "Gangs admitted after their reservation's "
				     "start (backfill runs only).",
				     METRICS_COUNTER, NULL, 0 },
	[F_RESERVATION_DELAY] = { "echelon_sim_reservation_delay_seconds_total",
				  "Total delay of those gangs past their "
				  "reservations' start (backfill runs only).",
				  METRICS_COUNTER, NULL, 0 },
};

/* What happened to the jobs of one ClusterQueue in one run. */
struct tally {
	bool seen;
	int64_t admitted, finished, evicted, preempted, pending, active;
};

static double seconds(int64_t us)
{
	return (double)us / 1e6;
}

/* A summary figure; its -1 "no job applies" is NaN. */
static double figure(double v)
{
	return v < 0 ? NAN : v;
}

/* The cluster_queue label of a job: its ClusterQueue's name, or "". */
static const char *cq_name(const struct sim_input *in, int64_t cq)
{
	BUG_ON(cq < -1 || cq >= (int64_t)in->c->cluster_queues.len);
	return cq < 0 ? "" : in->c->cluster_queues.items[cq].name;
}

static void count_job(struct metrics *m, const int *ids,
		      const struct sim_job *job, const struct sim_job_rec *rec,
		      const char *const *labels, const char *const *plabels,
		      struct tally *t)
{
	t->seen = true;
	if (rec->admit_us >= 0) {
		t->admitted++;
		metrics_observe(m, ids[F_ADMISSION_WAIT], labels,
				seconds(rec->admit_us - job->submit_us));
	}
	if (rec->state == SIM_JOB_FINISHED) {
		t->finished++;
		if (rec->admit_us >= 0 && rec->end_us >= 0)
			metrics_observe(m, ids[F_EXECUTION_TIME], labels,
					seconds(rec->end_us - rec->admit_us));
	}
	t->evicted += rec->evictions;
	t->preempted += rec->preemptions;
	if (rec->state == SIM_JOB_PENDING)
		t->pending++;
	if (rec->state == SIM_JOB_ADMITTED || rec->state == SIM_JOB_RUNNING)
		t->active++;
	if (rec->throughput_ratio >= 0)
		metrics_observe(m, ids[F_THROUGHPUT_RATIO], plabels,
				rec->throughput_ratio);
}

static void record_tally(struct metrics *m, const int *ids,
			 const struct tally *t, const char *const *labels)
{
	metrics_add(m, ids[F_ADMITTED], labels, (double)t->admitted);
	metrics_add(m, ids[F_FINISHED], labels, (double)t->finished);
	metrics_add(m, ids[F_EVICTED], labels, (double)t->evicted);
	metrics_add(m, ids[F_PREEMPTED], labels, (double)t->preempted);
	metrics_set(m, ids[F_PENDING], labels, (double)t->pending);
	metrics_set(m, ids[F_ADMITTED_ACTIVE], labels, (double)t->active);
	metrics_touch(m, ids[F_ADMISSION_WAIT], labels);
	metrics_touch(m, ids[F_EXECUTION_TIME], labels);
}

static void record_summary(struct metrics *m, const int *ids,
			   const struct sim_summary *s,
			   const char *const *plabels)
{
	metrics_touch(m, ids[F_THROUGHPUT_RATIO], plabels);
	metrics_set(m, ids[F_GPU_UTILIZATION], plabels,
		    figure(s->gpu_utilization));
	metrics_set(m, ids[F_GOODPUT], plabels, figure(s->goodput));
	metrics_set(m, ids[F_IDLE_ALLOCATED], plabels,
		    s->idle_allocated_gpu_hours);
	metrics_set(m, ids[F_MEAN_THROUGHPUT], plabels,
		    figure(s->mean_throughput_ratio));
	metrics_set(m, ids[F_MULTI_THROUGHPUT], plabels,
		    figure(s->mean_multi_node_throughput_ratio));
	metrics_set(m, ids[F_ON_MIN_RACKS], plabels, figure(s->on_min_racks));
	metrics_set(m, ids[F_MAKESPAN], plabels, seconds(s->makespan_us));
	metrics_add(m, ids[F_NODE_FAILURES], plabels, (double)s->node_failures);
	metrics_add(m, ids[F_POD_FAILURES], plabels, (double)s->pod_failures);
	metrics_set(m, ids[F_LOST_GPU_HOURS], plabels, s->lost_gpu_hours);
	if (!s->backfill)
		return;
	metrics_add(m, ids[F_RESERVATIONS], plabels, (double)s->reservations);
	metrics_add(m, ids[F_RESERVATIONS_DELAYED], plabels,
		    (double)s->reservations_delayed);
	metrics_add(m, ids[F_RESERVATION_DELAY], plabels,
		    s->reservation_delay_s);
}

static void fill_run(struct metrics *m, const int *ids,
		     const struct sim_input *in, const struct sim_result *run)
{
	size_t ncq = in->c->cluster_queues.len;
	struct tally *tallies = xcalloc(ncq + 1, sizeof(*tallies));
	const char *policy = sim_policy_name(run->policy);
	const char *const plabels[] = { "policy", policy, NULL };

	for (size_t i = 0; i < in->jobs.len; i++) {
		const struct sim_job_rec *rec = &run->jobs[i];
		const char *const labels[] = { "cluster_queue",
					       cq_name(in, rec->cq), "policy",
					       policy, NULL };

		count_job(m, ids, &in->jobs.items[i], rec, labels, plabels,
			  &tallies[rec->cq + 1]);
	}
	/* slot 0 holds the jobs without a ClusterQueue */
	for (size_t q = 0; q <= ncq; q++) {
		const char *const labels[] = { "cluster_queue",
					       cq_name(in, (int64_t)q - 1),
					       "policy", policy, NULL };

		if (tallies[q].seen)
			record_tally(m, ids, &tallies[q], labels);
	}
	record_summary(m, ids, &run->sum, plabels);
	free(tallies);
}

void sim_metrics_fill(struct metrics *m, const struct sim_input *in,
		      const struct sim_result *runs, size_t nruns)
{
	bool backfill = false;
	int ids[F_COUNT];

	for (size_t r = 0; r < nruns; r++)
		backfill |= runs[r].sum.backfill;
	/* backfill's families only where a run has them */
	for (size_t f = 0; f < F_COUNT; f++)
		ids[f] = f >= F_RESERVATIONS && !backfill
				 ? -1
				 : metrics_family(m, defs[f].name, defs[f].help,
						  defs[f].type, defs[f].buckets,
						  defs[f].nbuckets);
	for (size_t r = 0; r < nruns; r++)
		fill_run(m, ids, in, &runs[r]);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The simulator's own Prometheus metrics, from the runs' records and
 * summaries: the placement histograms are fed job by job, the summary's
 * figures are gauges and counters. Figures the summary marks as not
 * applicable (-1) are written as NaN rather than left out, so that every
 * policy has the same series. The queues' metrics are each run's own
 * registry (sim_result.metrics).
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
	F_THROUGHPUT_RATIO,
	F_WL_THROUGHPUT,
	F_WL_CROSS_RACK,
	F_WL_CROSS_BLOCK,
	F_EXTRA_RACKS,
	F_EXTRA_BLOCKS,
	F_GPU_UTILIZATION,
	F_GOODPUT,
	F_IDLE_ALLOCATED,
	F_MEAN_THROUGHPUT,
	F_MULTI_THROUGHPUT,
	F_ON_MIN_RACKS,
	F_MAKESPAN,
	F_NODE_FAILURES,
	F_POD_FAILURES,
	F_LOST_GPU,
	F_RESERVATIONS,
	F_RESERVATIONS_DELAYED,
	F_RESERVATION_DELAY,
	F_COUNT
};

/* Domains spanned beyond the fewest possible: 0, 1, 2, 4, ... */
static const double extra_buckets[] = { 0, 1, 2, 4, 8, 16, 32 };

static const struct metrics_def defs[F_COUNT] = {
	[F_THROUGHPUT_RATIO] = { "echelon_workload_throughput_ratio",
				 "Training throughput of a workload's last "
				 "placement relative to the ideal one.",
				 METRICS_HISTOGRAM, sim_metrics_ratio_buckets,
				 SIM_METRICS_RATIO_BUCKETS },
	[F_WL_THROUGHPUT] = { "echelon_workload_placement_throughput_ratio",
			      "Training throughput of each placed workload's "
			      "last placement relative to the ideal one, per "
			      "'namespace' and 'name'.",
			      METRICS_GAUGE, NULL, 0 },
	[F_WL_CROSS_RACK] = { "echelon_workload_cross_rack_bytes_per_second",
			      "Modelled all-reduce bytes per second each "
			      "placed workload's last placement sends out of "
			      "its racks, per 'namespace' and 'name'.",
			      METRICS_GAUGE, NULL, 0 },
	[F_WL_CROSS_BLOCK] = { "echelon_workload_cross_block_bytes_per_second",
			       "Modelled all-reduce bytes per second each "
			       "placed workload's last placement sends out "
			       "of its blocks, per 'namespace' and 'name'.",
			       METRICS_GAUGE, NULL, 0 },
	[F_EXTRA_RACKS] = { "echelon_placement_extra_racks",
			    "Racks a multi-node workload's last placement "
			    "spans beyond the fewest that could hold it.",
			    METRICS_HISTOGRAM, extra_buckets,
			    ARRAY_SIZE(extra_buckets) },
	[F_EXTRA_BLOCKS] = { "echelon_placement_extra_blocks",
			     "Blocks a multi-node workload's last placement "
			     "spans beyond the fewest that could hold it.",
			     METRICS_HISTOGRAM, extra_buckets,
			     ARRAY_SIZE(extra_buckets) },
	[F_GPU_UTILIZATION] = { "echelon_sim_gpu_utilization",
				"Busy GPU-time over all GPUs times the "
				"simulated span.",
				METRICS_GAUGE, NULL, 0 },
	[F_GOODPUT] = { "echelon_sim_goodput_ratio",
			"Work at ideal training speed kept per allocated "
			"GPU-hour; NaN when no GPU-time was allocated.",
			METRICS_GAUGE, NULL, 0 },
	[F_IDLE_ALLOCATED] = { "echelon_sim_idle_allocated_gpu_seconds",
			       "GPU-seconds allocated to bound pods while "
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
	[F_LOST_GPU] = { "echelon_sim_lost_gpu_seconds",
			 "GPU-seconds of work lost to evictions and failures.",
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

static double seconds(int64_t us)
{
	return (double)us / 1e6;
}

/* A summary figure; its -1 "no job applies" is NaN. */
static double figure(double v)
{
	return v < 0 ? NAN : v;
}

/* The placement figures of one job's record. */
static void count_job(struct metrics *m, const int *ids,
		      const struct sim_job *job, const struct sim_job_rec *rec,
		      const char *const *plabels)
{
	const char *const wl[] = { "namespace", job->ns ? job->ns : "default",
				   "name",	job->name,
				   plabels[0],	plabels[1],
				   NULL };

	if (rec->throughput_ratio >= 0) {
		metrics_observe(m, ids[F_THROUGHPUT_RATIO], plabels,
				rec->throughput_ratio);
		metrics_set(m, ids[F_WL_THROUGHPUT], wl, rec->throughput_ratio);
	}
	if (rec->rack_bps >= 0) {
		metrics_set(m, ids[F_WL_CROSS_RACK], wl, rec->rack_bps);
		metrics_set(m, ids[F_WL_CROSS_BLOCK], wl, rec->block_bps);
	}
	if (rec->hosts > 1 && rec->racks >= 0 && rec->min_racks >= 0)
		metrics_observe(m, ids[F_EXTRA_RACKS], plabels,
				(double)(rec->racks - rec->min_racks));
	if (rec->hosts > 1 && rec->blocks >= 0 && rec->min_blocks >= 0)
		metrics_observe(m, ids[F_EXTRA_BLOCKS], plabels,
				(double)(rec->blocks - rec->min_blocks));
}

static void record_summary(struct metrics *m, const int *ids,
			   const struct sim_summary *s,
			   const char *const *plabels)
{
	metrics_touch(m, ids[F_THROUGHPUT_RATIO], plabels);
	metrics_touch(m, ids[F_EXTRA_RACKS], plabels);
	metrics_touch(m, ids[F_EXTRA_BLOCKS], plabels);
	metrics_set(m, ids[F_GPU_UTILIZATION], plabels,
		    figure(s->gpu_utilization));
	metrics_set(m, ids[F_GOODPUT], plabels, figure(s->goodput));
	metrics_set(m, ids[F_IDLE_ALLOCATED], plabels,
		    s->idle_allocated_gpu_hours * 3600);
	metrics_set(m, ids[F_MEAN_THROUGHPUT], plabels,
		    figure(s->mean_throughput_ratio));
	metrics_set(m, ids[F_MULTI_THROUGHPUT], plabels,
		    figure(s->mean_multi_node_throughput_ratio));
	metrics_set(m, ids[F_ON_MIN_RACKS], plabels, figure(s->on_min_racks));
	metrics_set(m, ids[F_MAKESPAN], plabels, seconds(s->makespan_us));
	metrics_add(m, ids[F_NODE_FAILURES], plabels, (double)s->node_failures);
	metrics_add(m, ids[F_POD_FAILURES], plabels, (double)s->pod_failures);
	metrics_set(m, ids[F_LOST_GPU], plabels, s->lost_gpu_hours * 3600);
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
	const char *const plabels[] = { "policy", sim_policy_name(run->policy),
					NULL };

	for (size_t i = 0; i < in->jobs.len; i++)
		count_job(m, ids, &in->jobs.items[i], &run->jobs[i], plabels);
	record_summary(m, ids, &run->sum, plabels);
}

void sim_metrics_fill(struct metrics *m, const struct sim_input *in,
		      const struct sim_result *runs, size_t nruns)
{
	bool backfill = false;
	int ids[F_COUNT];

	for (size_t r = 0; r < nruns; r++)
		backfill |= runs[r].sum.backfill;
	/* backfill's families only where a run has them */
	for (size_t f = F_RESERVATIONS; f < F_COUNT; f++)
		ids[f] = -1;
	metrics_register(m, defs, backfill ? F_COUNT : F_RESERVATIONS, ids);
	for (size_t r = 0; r < nruns; r++)
		fill_run(m, ids, in, &runs[r]);
}

void sim_metrics_write(const struct sim_input *in,
		       const struct sim_result *runs, size_t nruns,
		       struct strbuf *out)
{
	struct metrics *m = metrics_new();
	const struct metrics **ms = xcalloc(nruns + 1, sizeof(*ms));
	size_t n = 0;

	sim_metrics_fill(m, in, runs, nruns);
	ms[n++] = m;
	for (size_t r = 0; r < nruns; r++)
		if (runs[r].metrics)
			ms[n++] = runs[r].metrics;
	metrics_write_all(ms, n, out);
	free(ms);
	metrics_free(m);
}

void sim_metrics_write_openmetrics(const struct sim_result *runs, size_t nruns,
				   struct strbuf *out)
{
	const struct metrics **ms = xcalloc(nruns + 1, sizeof(*ms));
	size_t n = 0;

	for (size_t r = 0; r < nruns; r++)
		if (runs[r].metrics)
			ms[n++] = runs[r].metrics;
	metrics_write_openmetrics(ms, n, SIM_METRICS_EPOCH_S, out);
	free(ms);
}

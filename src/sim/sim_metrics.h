/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulator's own Prometheus metrics of finished runs: placement
 * histograms (echelon_workload_throughput_ratio, echelon_placement_*) and
 * the summary's figures (echelon_sim_*). Every series carries the label
 * policy. Kueue's metrics of a run are in its own registry,
 * sim_result.metrics (src/obs/obs_metrics.h); sim_metrics_write() writes
 * both. The list and the meaning of each metric are in
 * docs/internals/metrics.md.
 *
 * Pure and deterministic: the same runs give the same registry, hence the
 * same text from metrics_write().
 */
#ifndef ECHELON_SIM_SIM_METRICS_H
#define ECHELON_SIM_SIM_METRICS_H

#include <stddef.h>

#include "base/metrics.h"
#include "sim/sim.h"

/* Buckets of echelon_workload_throughput_ratio: 0.1 to 1.0 by 0.1. */
#define SIM_METRICS_RATIO_BUCKETS 10
extern const double sim_metrics_ratio_buckets[SIM_METRICS_RATIO_BUCKETS];

/*
 * Register the simulator's families in m (again is fine) and record
 * runs[0..nruns) of sim_run() over in (runs may be NULL when nruns is 0).
 * Meant for one run per policy: a second run of the same policy adds to
 * its counters and histograms and replaces its gauges. Nothing is kept
 * from in or runs.
 */
void sim_metrics_fill(struct metrics *m, const struct sim_input *in,
		      const struct sim_result *runs, size_t nruns);

/*
 * The metrics file of runs[0..nruns) (one per policy), appended to out:
 * sim_metrics_fill()'s families and each run's own registry, in the text
 * exposition format (0.0.4), the state when each run stopped.
 */
void sim_metrics_write(const struct sim_input *in,
		       const struct sim_result *runs, size_t nruns,
		       struct strbuf *out);

/*
 * Unix time of simulated second 0 in the OpenMetrics history:
 * 2025-01-01T00:00:00Z.
 */
#define SIM_METRICS_EPOCH_S 1735689600

/*
 * The history of each run's registry (a sample at each time-series
 * sample) in the OpenMetrics text format, appended to out: timestamps are
 * SIM_METRICS_EPOCH_S plus simulated seconds.
 */
void sim_metrics_write_openmetrics(const struct sim_result *runs, size_t nruns,
				   struct strbuf *out);

#endif

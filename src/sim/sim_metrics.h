/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Prometheus metrics of finished simulation runs, named after Kueue's with
 * the prefix "echelon_" (kueue_admitted_workloads_total becomes
 * echelon_admitted_workloads_total), plus simulator-level figures
 * (echelon_sim_*). Every series carries the label policy; per-queue series
 * also cluster_queue. The list and the meaning of each metric are in
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
 * Every ClusterQueue that has a job in a run gets all its per-queue series,
 * at zero when nothing happened. Meant for one run per policy: a second
 * run of the same policy adds to its counters and histograms and replaces
 * its gauges. Nothing is kept from in or runs.
 */
void sim_metrics_fill(struct metrics *m, const struct sim_input *in,
		      const struct sim_result *runs, size_t nruns);

#endif

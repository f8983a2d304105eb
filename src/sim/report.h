/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulator's HTML report: one self-contained page (inline CSS and
 * SVG drawn here, no script, no external reference) comparing the runs of
 * one input, so that it says why jobs waited, where they landed and what
 * that cost: a header with the command, seed and version; the throughput
 * model's figures (and a sweep of one of them); the summary table with
 * what each row means; per ClusterQueue its waits, usage against nominal
 * quota and preemptions by reason, and its pending jobs and usage over
 * time; the jobs that waited longest with their reasons and placement;
 * GPU utilization and queue depth over time; the distributions of wait and
 * job completion time; throughput of multi-node jobs against the ideal
 * placement and goodput; free hosts per block and rack over time; and a
 * heat map of the topology per run. See docs/internals/sim-outputs.md.
 *
 * Pure and deterministic like sim_out.h: the same input gives the same
 * bytes. Every text from the input is escaped. The page stays small on
 * large runs: a time series is averaged down to at most
 * REPORT_MAX_SERIES_POINTS points per line (REPORT_MAX_CQ_POINTS for a
 * ClusterQueue's), a distribution to REPORT_MAX_CDF_POINTS, the job table
 * to REPORT_MAX_JOB_ROWS rows per run.
 */
#ifndef ECHELON_SIM_REPORT_H
#define ECHELON_SIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "sim/sim.h"

#define REPORT_MAX_SERIES_POINTS 1000
#define REPORT_MAX_CDF_POINTS	 200
/* Rows of the workload table per run: the jobs that waited longest. */
#define REPORT_MAX_JOB_ROWS 50
/* Points per line of a ClusterQueue's charts (two per ClusterQueue). */
#define REPORT_MAX_CQ_POINTS 250

/*
 * Append the page for runs[0..n) of sim_run() over in (runs may be NULL
 * when n is 0). title (NULL: "echelon simulation") heads the page. The
 * page holds 5 + 2n <svg> charts: utilization, queue depth, wait CDF, JCT
 * CDF, throughput histogram, one fragmentation chart and one heat map per
 * run; and where the runs carry the ClusterQueues' series (sim_run()'s
 * do), one or two per ClusterQueue.
 */
void report_html(const struct sim_input *in, const struct sim_result *runs,
		 size_t n, const char *title, struct strbuf *out);

struct sim_sweep;

/* The same with the table of a sweep (sim_sweep_table()) after the
 * model's figures when sw is not NULL (every value recorded). */
void report_html_sweep(const struct sim_input *in,
		       const struct sim_result *runs, size_t n,
		       const char *title, const struct sim_sweep *sw,
		       struct strbuf *out);

/* What the page's header says of how the runs were made. */
struct report_info {
	const char *title;   /* NULL: "echelon simulation" */
	const char *command; /* the command line; NULL: not shown */
	const char *version; /* echelon's; NULL: not shown */
	uint64_t seed;
	bool has_seed;
	const struct sim_sweep *sweep; /* NULL: none */
};

/* The page with the header of ri: report_html_sweep() is this with only
 * a title and a sweep. */
void report_html_info(const struct sim_input *in, const struct sim_result *runs,
		      size_t n, const struct report_info *ri,
		      struct strbuf *out);

#endif

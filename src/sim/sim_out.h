/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulator's machine-readable outputs and its terminal table: per-job
 * records (JSON Lines), the time series (CSV), the summary (JSON) and the
 * summary table, each appended to a strbuf. See docs/internals/sim-outputs.md
 * for every field.
 *
 * Pure and deterministic: no I/O, no clock, no locale. Numbers are written
 * by integer arithmetic (times exactly from microseconds, doubles rounded to
 * a fixed number of decimals), so the same input gives the same bytes.
 * Every function takes runs[0..n) of sim_run() over one input in; runs may
 * be NULL when n is 0. Where one object is keyed by policy (the summary) the
 * runs' policies must be distinct (BUG otherwise).
 */
#ifndef ECHELON_SIM_SIM_OUT_H
#define ECHELON_SIM_SIM_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "sim/sim.h"

/* Rows of the summary table (sim_out_table(), sim_out_cell()). */
enum { SIM_OUT_TABLE_ROWS = 18 };

/* One JSON object per line per job per run: runs in order, jobs in input
 * order. */
void sim_out_workloads_jsonl(const struct sim_input *in,
			     const struct sim_result *runs, size_t n,
			     struct strbuf *out);

/* A header line, then one CSV row per sample per run. */
void sim_out_timeseries_csv(const struct sim_input *in,
			    const struct sim_result *runs, size_t n,
			    struct strbuf *out);

struct sim_sweep;

/* {"model": {...}, "policies": {<policy>: {...}, ...}} pretty-printed
 * with two-space indentation and a final newline: the throughput model of
 * the first run (every run of one output shares it; no "model" when n is
 * 0), then the figures of each run. */
void sim_out_summary_json(const struct sim_result *runs, size_t n,
			  struct strbuf *out);
/* The same with a "sweep" member after "policies" when sw is not NULL
 * (every value recorded): the key, its values, and per policy each
 * figure of sim_sweep.h as an array over the values. */
void sim_out_summary_json_sweep(const struct sim_result *runs, size_t n,
				const struct sim_sweep *sw, struct strbuf *out);

/* The terminal table: a header line of policy names, then one aligned line
 * per figure and one per job class (its mean time to admission); plain
 * ASCII. Nothing when n is 0. */
void sim_out_table(const struct sim_result *runs, size_t n, struct strbuf *out);

/* The label of table row row (< SIM_OUT_TABLE_ROWS; BUG otherwise), static. */
const char *sim_out_row_label(size_t row);
/* Append the text of one table cell: row row for run r ("-" for n/a). */
void sim_out_cell(const struct sim_result *r, size_t row, struct strbuf *out);

/* Append us as seconds: up to six decimals, trailing zeros trimmed, exact
 * ("1.5", "3600", "0.000001", "-2"). */
void sim_out_seconds(int64_t us, struct strbuf *out);
/* Append x rounded to decimals (0..9) digits after the point, trimmed of
 * trailing zeros when trim; "-0" is never written. x must be finite. */
void sim_out_fixed(double x, int decimals, bool trim, struct strbuf *out);
/* Append a rate in bytes per second for people, in powers of 1000 with
 * one decimal: "0 B/s", "640 B/s", "12.4 GB/s"; "-" when bps is negative
 * or not finite. */
void sim_out_rate(double bps, struct strbuf *out);
/* Append a duration in seconds for people: "42 s", "17.5 min", "3.2 h",
 * "2.1 d"; "-" when s is negative or not finite. */
void sim_out_duration(double s, struct strbuf *out);

#endif

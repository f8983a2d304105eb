/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Microsoft ITP 2021 job trace (ElasticFlow, ASPLOS'23; MIT licence),
 * one CSV file per cluster: job_id, submission_time (s), duration (s),
 * num_gpu. The reader finds the columns by name in the header line, so the
 * ElasticFlow variant with extra columns (num_iteration, model_name, ...)
 * reads too.
 *
 * Mapping to jobs (gpus_per_pod = 8 by default, an HGX host):
 *   - g <= 8 GPUs: one pod with g GPUs;
 *   - g > 8: a gang of ceil(g / 8) pods of 8 GPUs each. The trace only has
 *     16, 32 and 64; a g that is not a multiple of 8 is rounded up to
 *     whole pods (counted in rounded_up), since multi-host jobs take whole
 *     hosts;
 *   - cpu and memory per pod in proportion to its GPUs: 12 cpu and
 *     192 GiB per GPU by default (96 cpu, 1.5 TiB per 8-GPU pod, the
 *     examples' hosts), configurable; 0 leaves a resource out;
 *   - the duration is taken as the runtime at the ideal placement;
 *   - submission times are made relative to the earliest usable job.
 * Rows the trace marks unusable (num_gpu 0, an empty time or GPU count, a
 * zero duration) are skipped and counted, not errors. Malformed rows
 * (wrong field count, text where a number belongs, negative values) are
 * errors as in sim/trace.h: located, and the file adds nothing.
 */
#ifndef ECHELON_SIM_ITP_H
#define ECHELON_SIM_ITP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "sim/trace.h"

/* A job of more GPUs than this is an error (the trace has at most 64). */
#define ITP_MAX_GPUS 65536

struct itp_options {
	int32_t gpus_per_pod;	   /* default 8 */
	int64_t cpu_milli_per_gpu; /* default 12000 (12 cpu) */
	int64_t memory_per_gpu;	   /* bytes; default 192 GiB */
	const char *gpu_resource;  /* default "nvidia.com/gpu" */
	const char *name_prefix;   /* prepended to job_id; NULL: none */
	const char *queue;	   /* every job's queue; NULL: none */
	int32_t priority;
	enum topology_mode topology_mode; /* for every job; default none */
	const char *topology_level;
};

struct itp_summary {
	size_t rows;		 /* data rows (not blank lines) */
	size_t jobs;		 /* jobs added */
	size_t skipped_zero_gpu; /* num_gpu 0 */
	size_t skipped_missing;	 /* an empty time or GPU count */
	size_t skipped_zero_duration;
	size_t rounded_up; /* GPUs rounded up to whole pods */
	int64_t origin_us; /* earliest submission_time, subtracted */
	int64_t span_us;   /* last submission, relative */
	int64_t gpus_max;  /* largest job */
	int64_t gpu_us;	   /* GPU time at ideal placement, GPU x us */
};

void itp_options_init(struct itp_options *o);

/* Whether data's first line is a header naming submission_time, duration
 * and num_gpu (a UTF-8 BOM and surrounding spaces are allowed). */
bool itp_recognise(const char *data, size_t len);

/*
 * Parse data[0..len) (named file in messages) and append its jobs to t.
 * Returns 0 and fills *ret_summary (may be NULL), or -EINVAL when an error
 * was reported in d (t unchanged, *ret_summary untouched).
 */
int itp_parse(struct trace *t, const struct itp_options *o, const char *file,
	      const char *data, size_t len, struct itp_summary *ret_summary,
	      struct diag *d) MUST_CHECK;

/* "1595 rows, 1595 jobs, 0 skipped (...)": one line, no newline. */
void itp_summary_format(const struct itp_summary *s, struct strbuf *out);

#endif

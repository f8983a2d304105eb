/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A synthetic job trace: N jobs with Poisson arrivals, a mix of sizes from
 * 1 to 128 GPUs (mostly small, with a tail of large gangs) and log-normal
 * durations, shaped into pods like the ITP trace (sim/itp.h).
 *
 * Defaults are calibrated on the ITP 2021 trace [D: computed from the
 * 69,351 jobs]: sizes weighted by its job counts (1: 57,682, 2: 1,483,
 * 4: 2,371, 8: 7,009, 16: 381, 32: 354, 64: 71) plus 35 jobs of 128 GPUs
 * (half the 64s) for the tail ITP lacks; durations log-normal with median
 * e^mu = 8,260 s and sigma 1.21 (the mean and deviation of ln(duration)),
 * clamped to ITP's range 600..1,573,360 s; 10 arrivals an hour (cluster04
 * has 15,802 jobs over 1,427 h). The first job arrives at 0.
 *
 * Deterministic: the same options and rng state give the same jobs, the
 * same draws in the same order (see synth.c), on every run. Pure: no I/O,
 * randomness only from the caller's rng.
 */
#ifndef ECHELON_SIM_SYNTH_H
#define ECHELON_SIM_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/rng.h"
#include "sim/trace.h"

/* One entry of the size mix: GPUs of a job and its relative weight. */
struct synth_size {
	int32_t gpus;
	double weight;
};

struct synth_options {
	size_t jobs;
	double rate_per_hour;		/* mean arrivals per hour, > 0 */
	const struct synth_size *sizes; /* borrowed; NULL: the default mix */
	size_t nsizes;
	double duration_median_s; /* e^mu of the log-normal */
	double duration_sigma;	  /* sigma of ln(duration), >= 0 */
	int64_t duration_min_s, duration_max_s;
	int32_t gpus_per_pod;	   /* 8 */
	int64_t cpu_milli_per_gpu; /* 12000 */
	int64_t memory_per_gpu;	   /* 192 GiB */
	const char *gpu_resource;  /* "nvidia.com/gpu" */
	const char *name_prefix;   /* "synth-" */
	const char *const *queues; /* each job picks one uniformly; borrowed */
	size_t nqueues;		   /* 0: no queue */
	enum topology_mode topology_mode; /* for jobs of more than one pod */
	const char *topology_level;
};

/* The default size mix (ITP's, plus the 128-GPU tail). */
extern const struct synth_size synth_default_sizes[];
extern const size_t synth_default_nsizes;

void synth_options_init(struct synth_options *o);

/*
 * Append o->jobs jobs to t, drawing from r (seeded by the caller), named
 * <name_prefix><index> with the index from 1, zero-padded to a fixed
 * width. Returns 0, or -EINVAL with a message in eb (naming the option)
 * when an option is out of range, the trace would exceed its max_jobs, or
 * a job already in t has a name starting with the prefix; t is unchanged
 * then.
 */
int synth_generate(struct trace *t, const struct synth_options *o,
		   struct rng *r, struct errbuf *eb) MUST_CHECK;

#endif

// SPDX-License-Identifier: Apache-2.0
/*
 * The runtime estimates a run gives the scheduler (sim_options.estimates):
 * the trace's duration (exact), the running mean of the observed runtimes
 * of the jobs that finished before in the same (queue, GPU count) bucket
 * (history), or none. A workload's own limit (workload.max_exec_us) is
 * what the scheduler uses when the run gives nothing. With
 * sim_options.estimate_error F each estimate is multiplied by exp(F x N),
 * N standard normal, drawn from the seed and the job's index alone so that
 * the draw does not depend on the order of events. Exact estimates are made
 * again once a job's pods are bound: its runtime then, start-up and the
 * slow-down of its placement (sim/throughput.h) included.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <string.h>

#include "base/banned.h"

struct bucket_key {
	const char *queue; /* interned */
	int64_t gpus;
};

static bool bucket(const struct sim_state *st, const struct sim_job *job,
		   int64_t *ret)
{
	struct bucket_key k;

	memset(&k, 0, sizeof(k));
	k.queue = job->queue;
	k.gpus = job->gpus;
	return hmap_get(&st->est_bucket, &k, sizeof(k), ret);
}

/* A standard normal draw for job j (Box-Muller). */
static double normal(uint64_t seed, uint32_t j)
{
	struct rng r;
	double u1, u2;

	rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ULL * ((uint64_t)j + 1)));
	u1 = 1.0 - rng_double(&r); /* (0, 1] */
	u2 = rng_double(&r);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* est perturbed by job j's error (the same factor at every call). */
static int64_t perturb(const struct sim_state *st, uint32_t j, int64_t est)
{
	double v;

	if (est <= 0 || st->o->estimate_error <= 0)
		return est;
	v = (double)est * exp(st->o->estimate_error * normal(st->o->seed, j));
	return v < 1.0 ? 1 : v > 1e15 ? (int64_t)1e15 : (int64_t)v;
}

int64_t sim_estimate_placed(struct sim_state *st, uint32_t j)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	struct sim_jst *x = &st->js[j];
	struct sim_job_rec keep = st->res->jobs[j];
	int64_t rem = job->duration_us - x->run->progress_us;
	double ratio;

	if (st->o->estimates != SIM_EST_EXACT)
		return 0;
	/* the shape of its placement, leaving the records as they are
	 * until it starts */
	sim_figures_shape(st, j);
	ratio = x->run->ratio;
	st->res->jobs[j] = keep;
	if (x->want < job->pods && x->want > 0)
		rem = rem * job->pods / x->want;
	return perturb(st, j,
		       st->o->pod_start_us + throughput_stretch_us(rem, ratio));
}

int64_t sim_estimate(const struct sim_state *st, uint32_t j)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	int64_t est = 0, i;

	switch (st->o->estimates) {
	case SIM_EST_EXACT: /* its pods start, then it runs */
		est = job->duration_us + st->o->pod_start_us;
		break;
	case SIM_EST_HISTORY:
		if (bucket(st, job, &i))
			est = st->est_hist.items[i].sum_us /
			      st->est_hist.items[i].n;
		break;
	default:
		break;
	}
	return perturb(st, j, est);
}

void sim_estimate_record(struct sim_state *st, uint32_t j, int64_t runtime_us)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	struct bucket_key k;
	int64_t i;

	if (runtime_us <= 0)
		return;
	if (!bucket(st, job, &i)) {
		memset(&k, 0, sizeof(k));
		k.queue = job->queue;
		k.gpus = job->gpus;
		i = (int64_t)st->est_hist.len;
		vec_push_zero(&st->est_hist);
		hmap_put(&st->est_bucket, &k, sizeof(k), i);
	}
	st->est_hist.items[i].sum_us += runtime_us;
	st->est_hist.items[i].n++;
}

const char *sim_estimates_name(enum sim_estimates e)
{
	static const char *const names[SIM_EST_COUNT] = { "history", "exact",
							  "none" };

	return (unsigned)e < SIM_EST_COUNT ? names[e] : "?";
}

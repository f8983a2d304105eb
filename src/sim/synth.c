// SPDX-License-Identifier: Apache-2.0
/*
 * The synthetic trace generator. Each job draws, in this order: its size
 * (one uniform), its duration (a standard normal by Marsaglia's polar
 * method: pairs of uniforms until one falls in the unit disc, the second
 * normal of the pair discarded so that a job's draws do not depend on the
 * previous job), its queue (when there are several) and the gap to the next
 * arrival (one uniform, exponential). Times accumulate in integer
 * microseconds so that a long trace does not drift.
 */
#include "sim/synth.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

const struct synth_size synth_default_sizes[] = {
	{ 1, 57682 }, { 2, 1483 }, { 4, 2371 }, { 8, 7009 },
	{ 16, 381 },  { 32, 354 }, { 64, 71 },	{ 128, 35 },
};
const size_t synth_default_nsizes = ARRAY_SIZE(synth_default_sizes);

void synth_options_init(struct synth_options *o)
{
	memset(o, 0, sizeof(*o));
	o->jobs = 1000;
	o->rate_per_hour = 10;
	o->duration_median_s = 8260;
	o->duration_sigma = 1.21;
	o->duration_min_s = 600;
	o->duration_max_s = 1573360;
	o->gpus_per_pod = 8;
	o->cpu_milli_per_gpu = 12000;
	o->memory_per_gpu = 192LL << 30;
	o->gpu_resource = "nvidia.com/gpu";
	o->name_prefix = "synth-";
	o->topology_mode = TOPOLOGY_NONE;
}

static int check_sizes(const struct synth_options *o, double *ret_total,
		       struct errbuf *eb)
{
	double total = 0;

	for (size_t i = 0; i < o->nsizes; i++) {
		const struct synth_size *s = &o->sizes[i];

		if (s->gpus < 1 || s->gpus > 65536)
			return errbuf_set(eb, -EINVAL,
					  "sizes[%zu].gpus: must be 1 to 65536",
					  i);
		if (!(s->weight >= 0) || isinf(s->weight))
			return errbuf_set(eb, -EINVAL,
					  "sizes[%zu].weight: must be a finite "
					  "number >= 0",
					  i);
		total += s->weight;
	}
	if (!(total > 0))
		return errbuf_set(eb, -EINVAL,
				  "sizes: the weights must not all be 0");
	*ret_total = total;
	return 0;
}

static int check(const struct trace *t, const struct synth_options *o,
		 struct errbuf *eb)
{
	if (o->jobs > t->max_jobs - t->jobs.len)
		return errbuf_set(eb, -EINVAL,
				  "jobs: %zu would exceed the trace limit of "
				  "%zu",
				  o->jobs, t->max_jobs);
	if (!(o->rate_per_hour > 0) || isinf(o->rate_per_hour))
		return errbuf_set(eb, -EINVAL, "rate: must be positive");
	if (!(o->duration_median_s > 0) || isinf(o->duration_median_s) ||
	    !(o->duration_sigma >= 0) || o->duration_sigma > 10)
		return errbuf_set(eb, -EINVAL,
				  "duration: the median must be positive, "
				  "sigma from 0 to 10");
	if (o->duration_min_s < 1 || o->duration_max_s < o->duration_min_s ||
	    o->duration_max_s > TRACE_MAX_SECONDS)
		return errbuf_set(eb, -EINVAL,
				  "duration: need 1 <= min <= max <= %lld s",
				  (long long)TRACE_MAX_SECONDS);
	if (o->gpus_per_pod < 1 || o->gpus_per_pod > 1024 ||
	    o->cpu_milli_per_gpu < 0 || o->memory_per_gpu < 0 ||
	    o->cpu_milli_per_gpu > INT64_MAX / 1024 ||
	    o->memory_per_gpu > INT64_MAX / 1024)
		return errbuf_set(
			eb, -EINVAL,
			"pods: GPUs per pod must be 1 to 1024, cpu "
			"and memory per GPU non-negative and bounded");
	if (o->nqueues && !o->queues)
		return errbuf_set(eb, -EINVAL, "queues: missing");
	if (o->topology_mode >= TOPOLOGY_MODE_COUNT)
		return errbuf_set(eb, -EINVAL, "topology: unknown mode");
	return 0;
}

static int32_t pick_size(const struct synth_size *sizes, size_t n, double total,
			 struct rng *r)
{
	double u = rng_double(r) * total;

	for (size_t i = 0; i + 1 < n; i++) {
		if (u < sizes[i].weight)
			return sizes[i].gpus;
		u -= sizes[i].weight;
	}
	return sizes[n - 1].gpus;
}

static double normal(struct rng *r)
{
	double u, v, s;

	do {
		u = 2 * rng_double(r) - 1;
		v = 2 * rng_double(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

static int64_t pick_duration_us(const struct synth_options *o, struct rng *r)
{
	double d = o->duration_median_s * exp(o->duration_sigma * normal(r));

	if (d < (double)o->duration_min_s)
		d = (double)o->duration_min_s;
	if (d > (double)o->duration_max_s)
		d = (double)o->duration_max_s;
	return llround(d * 1e6);
}

static int gpu_resource(struct trace *t, const char *name, struct errbuf *eb)
{
	struct errbuf inner;
	int id = resource_id(t->resources, name ? name : "", &inner);

	if (id < 0)
		return errbuf_set(eb, -EINVAL, "gpuResource: %s", inner.msg);
	if (id < RESOURCE_FIXED_COUNT)
		return errbuf_set(eb, -EINVAL,
				  "gpuResource: must be an extended resource, "
				  "not %s",
				  name);
	return id;
}

/* "<prefix><i>" with i zero-padded to the width of the largest index. */
static const char *job_name(struct trace *t, const struct synth_options *o,
			    size_t i, int width, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s%0*zu", o->name_prefix ? o->name_prefix : "", width,
		    i);
	if (!trace_name_valid(sb->buf))
		return NULL;
	return intern_str(t->strings, sb->buf);
}

static int generate(struct trace *t, const struct synth_options *o,
		    double total, int gpu_id, struct rng *r, struct errbuf *eb)
{
	double per_us = o->rate_per_hour / 3.6e9;
	int64_t now = 0;
	int width = 1;
	struct strbuf sb;
	int rc = 0;

	for (size_t n = o->jobs; n >= 10; n /= 10)
		width++;
	strbuf_init(&sb);
	for (size_t i = 1; i <= o->jobs && rc == 0; i++) {
		struct trace_job *j = vec_push_zero(&t->jobs);
		double gap;

		trace_job_init(j);
		j->name = job_name(t, o, i, width, &sb);
		j->submit_us = now;
		trace_job_set_gpus(j, pick_size(o->sizes, o->nsizes, total, r),
				   o->gpus_per_pod, gpu_id,
				   o->cpu_milli_per_gpu, o->memory_per_gpu);
		j->duration_us = pick_duration_us(o, r);
		if (o->nqueues)
			j->queue =
				intern_str(t->strings,
					   o->queues[rng_below(r, o->nqueues)]);
		if (j->pods > 1 && o->topology_mode != TOPOLOGY_NONE) {
			j->topology_mode = o->topology_mode;
			j->topology_level =
				o->topology_level
					? intern_str(t->strings,
						     o->topology_level)
					: NULL;
		}
		gap = -log1p(-rng_double(r)) / per_us;
		if (!j->name)
			rc = errbuf_set(eb, -EINVAL,
					"namePrefix: \"%s\" does not make "
					"valid job names",
					o->name_prefix);
		else if (gap > (double)(TRACE_MAX_SECONDS * 1000000 - now))
			rc = errbuf_set(eb, -EINVAL,
					"rate: arrivals run past %lld s",
					(long long)TRACE_MAX_SECONDS);
		else
			now += llround(gap);
	}
	strbuf_release(&sb);
	return rc;
}

int synth_generate(struct trace *t, const struct synth_options *o,
		   struct rng *r, struct errbuf *eb)
{
	struct synth_options opt = *o;
	size_t before = t->jobs.len;
	double total = 0;
	int gpu_id, rc;

	if (!opt.sizes) {
		opt.sizes = synth_default_sizes;
		opt.nsizes = synth_default_nsizes;
	}
	if ((rc = check(t, &opt, eb)) < 0 ||
	    (rc = check_sizes(&opt, &total, eb)) < 0)
		return rc;
	gpu_id = gpu_resource(t, opt.gpu_resource, eb);
	if (gpu_id < 0)
		return gpu_id;
	for (size_t i = 0; i < before; i++)
		if (strncmp(t->jobs.items[i].name,
			    opt.name_prefix ? opt.name_prefix : "",
			    strlen(opt.name_prefix ? opt.name_prefix : "")) ==
		    0)
			return errbuf_set(eb, -EINVAL,
					  "namePrefix: \"%s\" is already used "
					  "by job %s",
					  opt.name_prefix,
					  t->jobs.items[i].name);
	rc = generate(t, &opt, total, gpu_id, r, eb);
	if (rc < 0)
		t->jobs.len = before;
	return rc;
}

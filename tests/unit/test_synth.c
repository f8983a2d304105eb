// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the synthetic trace generator: byte-identical output for the
 * same seed (and different output for another), the statistics of a large
 * sample against the configured rate, size mix and log-normal durations,
 * the shaping of gangs, custom mixes, queues and topology, and a table of
 * rejected options.
 */
#include "sim/synth.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "testutil.h"

#include "base/banned.h"

struct env {
	struct intern strings;
	struct resource_registry res;
	struct trace t;
};

static int setup(void **state)
{
	struct env *e = xcalloc(1, sizeof(*e));

	intern_init(&e->strings);
	resource_registry_init(&e->res);
	trace_init(&e->t, &e->strings, &e->res);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	trace_release(&e->t);
	resource_registry_release(&e->res);
	intern_release(&e->strings);
	free(e);
	return 0;
}

/* Generate with seed and return the JSONL text (caller frees). */
static char *generate(const struct synth_options *o, uint64_t seed)
{
	struct intern strings;
	struct resource_registry res;
	struct trace t;
	struct strbuf sb;
	struct errbuf eb;
	struct rng r;
	char *s;

	intern_init(&strings);
	resource_registry_init(&res);
	trace_init(&t, &strings, &res);
	rng_seed(&r, seed);
	if (synth_generate(&t, o, &r, &eb) < 0)
		fail_msg("%s", eb.msg);
	strbuf_init(&sb);
	trace_write_jsonl(&t, &sb);
	s = strbuf_take(&sb);
	strbuf_release(&sb);
	trace_release(&t);
	resource_registry_release(&res);
	intern_release(&strings);
	return s;
}

static void test_deterministic(void **state)
{
	struct synth_options o;
	char *a, *b, *c;

	(void)state;
	synth_options_init(&o);
	o.jobs = 500;
	a = generate(&o, 1);
	b = generate(&o, 1);
	c = generate(&o, 2);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_true(strncmp(a, "{\"name\":\"synth-001\",\"submit_s\":0,", 33) ==
		    0);
	free(a);
	free(b);
	free(c);
}

static void test_statistics(void **state)
{
	struct env *e = *state;
	struct synth_options o;
	struct errbuf eb;
	struct rng r;
	size_t n = 40000, ones = 0, big = 0, below_median = 0;
	int gpu;
	double mean_gap, expect_ones;

	synth_options_init(&o);
	o.jobs = n;
	o.rate_per_hour = 36; /* a gap of 100 s on average */
	rng_seed(&r, 7);
	assert_int_equal(synth_generate(&e->t, &o, &r, &eb), 0);
	assert_int_equal(e->t.jobs.len, n);
	gpu = resource_lookup(&e->res, "nvidia.com/gpu");
	for (size_t i = 0; i < n; i++) {
		const struct trace_job *j = &e->t.jobs.items[i];
		int64_t gpus = j->pods * j->requests.v[gpu];

		if (i)
			assert_true(j->submit_us >=
				    e->t.jobs.items[i - 1].submit_us);
		assert_true(j->duration_us >= 600000000LL &&
			    j->duration_us <= 1573360000000LL);
		ones += gpus == 1;
		big += gpus > 8;
		below_median += j->duration_us < 8260000000LL;
		/* gangs are whole 8-GPU pods; small jobs one pod */
		if (gpus > 8) {
			assert_int_equal(j->requests.v[gpu], 8);
			assert_int_equal(j->min_count, j->pods);
		} else {
			assert_int_equal(j->pods, 1);
		}
		assert_int_equal(j->requests.v[RESOURCE_CPU],
				 j->requests.v[gpu] * 12000);
		assert_null(j->queue);
		assert_int_equal(j->topology_mode, TOPOLOGY_NONE);
	}
	assert_int_equal(e->t.jobs.items[0].submit_us, 0);
	mean_gap = (double)e->t.jobs.items[n - 1].submit_us / (double)(n - 1);
	assert_true(fabs(mean_gap - 100e6) < 3e6);
	expect_ones = 57682.0 / 69386.0;
	assert_true(fabs((double)ones / (double)n - expect_ones) < 0.01);
	assert_true(fabs((double)big / (double)n - 841.0 / 69386) < 0.003);
	/* the median of a log-normal is e^mu (clamping keeps it) */
	assert_true(fabs((double)below_median / (double)n - 0.5) < 0.01);
}

static void test_custom(void **state)
{
	struct env *e = *state;
	static const struct synth_size sizes[] = { { 4, 1 },
						   { 24, 1 },
						   { 3, 0 } };
	static const char *const queues[] = { "a", "b" };
	struct synth_options o;
	struct errbuf eb;
	struct rng r;
	size_t per_queue[2] = { 0, 0 }, rounded = 0;
	int gpu;

	synth_options_init(&o);
	o.jobs = 2000;
	o.sizes = sizes;
	o.nsizes = ARRAY_SIZE(sizes);
	o.queues = queues;
	o.nqueues = 2;
	o.duration_sigma = 0;
	o.duration_median_s = 1234.5;
	o.gpus_per_pod = 16;
	o.gpu_resource = "example.com/tpu";
	o.name_prefix = "x.";
	o.topology_mode = TOPOLOGY_REQUIRED;
	o.topology_level = "rack";
	rng_seed(&r, 3);
	assert_int_equal(synth_generate(&e->t, &o, &r, &eb), 0);
	gpu = resource_lookup(&e->res, "example.com/tpu");
	assert_string_equal(e->t.jobs.items[0].name, "x.0001");
	assert_string_equal(e->t.jobs.items[1999].name, "x.2000");
	vec_foreach (&e->t.jobs, j) {
		assert_int_equal(j->duration_us, 1234500000);
		per_queue[j->queue[0] - 'a']++;
		if (j->pods == 1) {
			assert_int_equal(j->requests.v[gpu], 4);
			assert_int_equal(j->topology_mode, TOPOLOGY_NONE);
		} else {
			/* 24 GPUs: two pods of 16, rounded up */
			assert_int_equal(j->pods, 2);
			assert_int_equal(j->requests.v[gpu], 16);
			assert_int_equal(j->topology_mode, TOPOLOGY_REQUIRED);
			assert_string_equal(j->topology_level, "rack");
			rounded++;
		}
	}
	assert_true(per_queue[0] > 900 && per_queue[1] > 900);
	assert_true(rounded > 900 && rounded < 1100);
	/* a second batch with the same prefix would clash */
	assert_int_equal(synth_generate(&e->t, &o, &r, &eb), -EINVAL);
	assert_string_equal(eb.msg, "namePrefix: \"x.\" is already used by "
				    "job x.0001");
	assert_int_equal(e->t.jobs.len, 2000);
}

struct bad_case {
	void (*edit)(struct synth_options *o);
	const char *msg;
};

static void bad_rate(struct synth_options *o)
{
	o->rate_per_hour = 0;
}
static void bad_median(struct synth_options *o)
{
	o->duration_median_s = NAN;
}
static void bad_minmax(struct synth_options *o)
{
	o->duration_min_s = 100;
	o->duration_max_s = 50;
}
static void bad_weights(struct synth_options *o)
{
	static const struct synth_size zero[] = { { 8, 0 } };

	o->sizes = zero;
	o->nsizes = 1;
}
static void bad_gpus(struct synth_options *o)
{
	static const struct synth_size neg[] = { { 8, 1 }, { 0, 1 } };

	o->sizes = neg;
	o->nsizes = 2;
}
static void bad_resource(struct synth_options *o)
{
	o->gpu_resource = "memory";
}
static void bad_prefix(struct synth_options *o)
{
	o->name_prefix = "Upper-";
}
static void bad_jobs(struct synth_options *o)
{
	o->jobs = (size_t)TRACE_MAX_JOBS + 1;
}
static void bad_far(struct synth_options *o)
{
	o->rate_per_hour = 1e-12;
}

static const struct bad_case bad_cases[] = {
	{ bad_rate, "rate: must be positive" },
	{ bad_median,
	  "duration: the median must be positive, sigma from 0 to 10" },
	{ bad_minmax, "duration: need 1 <= min <= max <= 10000000000 s" },
	{ bad_weights, "sizes: the weights must not all be 0" },
	{ bad_gpus, "sizes[1].gpus: must be 1 to 65536" },
	{ bad_resource,
	  "gpuResource: must be an extended resource, not memory" },
	{ bad_prefix, "namePrefix: \"Upper-\" does not make valid job names" },
	{ bad_jobs, "jobs: 4194305 would exceed the trace limit of 4194304" },
	{ bad_far, "rate: arrivals run past 10000000000 s" },
};

static void test_bad_options(void **state)
{
	struct env *e = *state;

	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		struct synth_options o;
		struct errbuf eb = { "" };
		struct rng r;

		synth_options_init(&o);
		o.jobs = 10;
		bad_cases[i].edit(&o);
		rng_seed(&r, 1);
		assert_int_equal(synth_generate(&e->t, &o, &r, &eb), -EINVAL);
		assert_string_equal(eb.msg, bad_cases[i].msg);
		assert_int_equal(e->t.jobs.len, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test_setup_teardown(test_statistics, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_custom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_options, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the ITP 2021 CSV reader: header recognition, the shaping of jobs
 * into pods (small jobs, gangs of 8-GPU pods, rounding up), skipped rows,
 * relative times, located errors with all-or-nothing, options and limits,
 * and the ten real cluster files shipped in examples/itp-2021 (or the
 * folder ECHELON_ITP_DIR names).
 */
#include "sim/itp.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "testutil.h"

#include "base/banned.h"

#define S   1000000LL
#define GIB (1LL << 30)

struct env {
	struct intern strings;
	struct resource_registry res;
	struct trace t;
	struct diag d;
	struct itp_options o;
	struct strbuf data;
};

static int setup(void **state)
{
	struct env *e = xcalloc(1, sizeof(*e));

	intern_init(&e->strings);
	resource_registry_init(&e->res);
	trace_init(&e->t, &e->strings, &e->res);
	diag_init(&e->d);
	itp_options_init(&e->o);
	strbuf_init(&e->data);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	trace_release(&e->t);
	diag_release(&e->d);
	resource_registry_release(&e->res);
	intern_release(&e->strings);
	strbuf_release(&e->data);
	free(e);
	return 0;
}

static void load(struct env *e, const char *rel)
{
	char *path = testutil_path(rel);
	struct errbuf eb;

	strbuf_reset(&e->data);
	if (trace_read_file(path, 1 << 24, &e->data, &eb) < 0)
		fail_msg("%s", eb.msg);
	free(path);
}

static char *diags(struct env *e)
{
	struct strbuf sb;
	char *s;

	strbuf_init(&sb);
	diag_format(&e->d, &sb);
	s = strbuf_take(&sb);
	strbuf_release(&sb);
	return s;
}

struct want_job {
	const char *name;
	int64_t submit_us, duration_us;
	int32_t pods;
	int64_t gpus_per_pod;
};

static const struct want_job small_jobs[] = {
	{ "a1", 0, 600 * S, 1, 1 },	  { "a2", 0, 3600 * S, 1, 2 },
	{ "a3", 10 * S, 7200 * S, 1, 8 }, { "a4", 20500000, 1800 * S, 2, 8 },
	{ "a5", 30 * S, 1800 * S, 2, 8 }, /* 12 GPUs rounded up */
	{ "a11", 80 * S, 60 * S, 8, 8 },  { "a12", 90 * S, 60 * S, 1, 4 },
};

static void test_small(void **state)
{
	struct env *e = *state;
	struct itp_summary sum;
	struct strbuf sb;
	int gpu;

	load(e, "tests/data/trace/itp-small.csv");
	assert_true(itp_recognise(e->data.buf, e->data.len));
	assert_false(trace_is_jsonl(e->data.buf, e->data.len));
	assert_int_equal(itp_parse(&e->t, &e->o, "small.csv", e->data.buf,
				   e->data.len, &sum, &e->d),
			 0);
	assert_int_equal(e->d.errors + e->d.warnings, 0);
	gpu = resource_lookup(&e->res, "nvidia.com/gpu");
	assert_int_equal(e->t.jobs.len, ARRAY_SIZE(small_jobs));
	for (size_t i = 0; i < ARRAY_SIZE(small_jobs); i++) {
		const struct want_job *w = &small_jobs[i];
		const struct trace_job *j = &e->t.jobs.items[i];

		assert_string_equal(j->name, w->name);
		assert_int_equal(j->submit_us, w->submit_us);
		assert_int_equal(j->duration_us, w->duration_us);
		assert_int_equal(j->pods, w->pods);
		assert_int_equal(j->min_count, w->pods);
		assert_int_equal(j->requests.v[gpu], w->gpus_per_pod);
		assert_int_equal(j->requests.v[RESOURCE_CPU],
				 w->gpus_per_pod * 12000);
		assert_int_equal(j->requests.v[RESOURCE_MEMORY],
				 w->gpus_per_pod * 192 * GIB);
		assert_int_equal(j->requests.v[RESOURCE_PODS], 1);
		assert_null(j->queue);
		assert_int_equal(j->topology_mode, TOPOLOGY_NONE);
	}
	assert_int_equal(e->t.jobs.items[5].pos.line, 13);
	assert_int_equal(sum.rows, 12);
	assert_int_equal(sum.jobs, 7);
	assert_int_equal(sum.skipped_zero_gpu, 1);
	assert_int_equal(sum.skipped_missing, 3);
	assert_int_equal(sum.skipped_zero_duration, 1);
	assert_int_equal(sum.rounded_up, 1);
	assert_int_equal(sum.origin_us, 1000 * S);
	assert_int_equal(sum.span_us, 90 * S);
	assert_int_equal(sum.gpus_max, 64);
	/* 600 + 2x3600 + 8x7200 + 16x1800 + 16x1800 + 64x60 + 4x60 */
	assert_int_equal(sum.gpu_us, 127080 * S);
	strbuf_init(&sb);
	itp_summary_format(&sum, &sb);
	assert_string_equal(sb.buf,
			    "12 rows, 7 jobs, 5 skipped (1 with 0 GPUs, 3 "
			    "with a missing field, 1 with a zero duration), "
			    "1 rounded up to whole pods; largest job 64 GPUs, "
			    "submissions over 0.0 h, 35.3 GPU-hours");
	strbuf_release(&sb);
}

static void test_options_and_variant(void **state)
{
	struct env *e = *state;
	const struct trace_job *j;

	load(e, "tests/data/trace/elasticflow.csv");
	assert_true(itp_recognise(e->data.buf, e->data.len));
	e->o.gpus_per_pod = 2;
	e->o.cpu_milli_per_gpu = 0;
	e->o.memory_per_gpu = 1000;
	e->o.gpu_resource = "example.com/accel";
	e->o.name_prefix = "c06-";
	e->o.queue = "itp";
	e->o.priority = 5;
	e->o.topology_mode = TOPOLOGY_PREFERRED;
	e->o.topology_level = "rack";
	assert_int_equal(itp_parse(&e->t, &e->o, "ef.csv", e->data.buf,
				   e->data.len, NULL, &e->d),
			 0);
	assert_int_equal(e->t.jobs.len, 1);
	j = &e->t.jobs.items[0];
	assert_string_equal(j->name,
			    "c06-6b2d9ccc-6279-403c-e1a2-cfe7810d5c57");
	assert_int_equal(j->submit_us, 0);
	assert_int_equal(j->duration_us, 3890 * S);
	assert_int_equal(j->pods, 2);
	assert_int_equal(
		j->requests.v[resource_lookup(&e->res, "example.com/accel")],
		2);
	assert_int_equal(j->requests.v[RESOURCE_CPU], 0);
	assert_int_equal(j->requests.v[RESOURCE_MEMORY], 2000);
	assert_string_equal(j->queue, "itp");
	assert_int_equal(j->priority, 5);
	assert_int_equal(j->topology_mode, TOPOLOGY_PREFERRED);
	assert_string_equal(j->topology_level, "rack");
	/* the same names again clash with the jobs already loaded */
	assert_int_equal(itp_parse(&e->t, &e->o, "ef.csv", e->data.buf,
				   e->data.len, NULL, &e->d),
			 -EINVAL);
	assert_int_equal(e->t.jobs.len, 1);
}

static void test_errors(void **state)
{
	struct env *e = *state;
	struct itp_summary sum = { .rows = 99 };
	char *got;

	load(e, "tests/data/trace/itp-bad.csv");
	assert_int_equal(itp_parse(&e->t, &e->o, "bad.csv", e->data.buf,
				   e->data.len, &sum, &e->d),
			 -EINVAL);
	assert_int_equal(e->t.jobs.len, 0);
	assert_int_equal(sum.rows, 99); /* untouched */
	got = diags(e);
	assert_string_equal(
		got,
		"bad.csv:3:4: submission_time: \"ten\" is not a number\n"
		"bad.csv:4:7: duration: must not be negative\n"
		"bad.csv:5:1: the row has 3 fields, the header 4\n"
		"bad.csv:6:10: num_gpu: \"1.5\" is not an integer from 0 to "
		"65536\n"
		"bad.csv:7:1: job_id: \"b1\" is already used on line 2\n"
		"bad.csv:8:1: job_id: \"B6\" is not a valid job name (a "
		"DNS-1123 subdomain)\n"
		"bad.csv:9:10: num_gpu: 100000 is more than 65536\n");
	free(got);
}

struct text_case {
	const char *text;
	const char *diag;
};

static const struct text_case text_cases[] = {
	{ "job_id,duration,num_gpu\na,1,1\n",
	  "x.csv:1:1: header: no \"submission_time\" column (an ITP trace has "
	  "job_id,submission_time,duration,num_gpu)\n" },
	{ "", "x.csv:1:1: header: no \"submission_time\" column (an ITP trace "
	      "has job_id,submission_time,duration,num_gpu)\n"
	      "x.csv:1:1: header: no \"duration\" column (an ITP trace has "
	      "job_id,submission_time,duration,num_gpu)\n"
	      "x.csv:1:1: header: no \"num_gpu\" column (an ITP trace has "
	      "job_id,submission_time,duration,num_gpu)\n" },
	{ "submission_time,duration,num_gpu\n1,1,1,\n",
	  "x.csv:2:1: the row has 4 fields, the header 3\n" },
	{ "submission_time,duration,num_gpu\n1,1,1\n2,1e12,1\n",
	  "x.csv:3:3: duration: must be at most 10000000000 seconds\n" },
	{ "submission_time,duration,num_gpu\n1,1,99999999999999999999\n",
	  "x.csv:2:5: num_gpu: \"99999999999999999999\" is not an integer "
	  "from 0 to 65536\n" },
	{ "submission_time,duration,num_gpu\n,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"
	  ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n",
	  "x.csv:2:1: the row has more than 64 fields, the header 3\n" },
};

static void test_text_errors(void **state)
{
	struct env *e = *state;

	for (size_t i = 0; i < ARRAY_SIZE(text_cases); i++) {
		const char *text = text_cases[i].text;
		char *got;

		diag_release(&e->d);
		diag_init(&e->d);
		assert_int_equal(itp_parse(&e->t, &e->o, "x.csv", text,
					   strlen(text), NULL, &e->d),
				 -EINVAL);
		got = diags(e);
		if (strcmp(got, text_cases[i].diag) != 0)
			fail_msg("case %zu:\ngot:  %swant: %s", i, got,
				 text_cases[i].diag);
		free(got);
	}
	assert_false(itp_recognise("{\"name\":1}\n", 11));
	assert_false(itp_recognise("job_id,submission_time,num_gpu\n", 31));
	assert_int_equal(e->t.jobs.len, 0);
}

static void test_limits_and_options(void **state)
{
	struct env *e = *state;
	static const char text[] = "submission_time,duration,num_gpu\n"
				   "1,1,1\n2,1,1\n\n3,1,1\n";
	char *got;

	e->t.max_jobs = 2;
	assert_int_equal(itp_parse(&e->t, &e->o, "x.csv", text, strlen(text),
				   NULL, &e->d),
			 -EINVAL);
	got = diags(e);
	assert_string_equal(got, "x.csv:5:1: too many jobs: a trace holds at "
				 "most 2\n");
	free(got);
	e->t.max_jobs = 3;
	assert_int_equal(itp_parse(&e->t, &e->o, "x.csv", text, strlen(text),
				   NULL, &e->d),
			 0);
	assert_string_equal(e->t.jobs.items[2].name, "job-5");

	diag_release(&e->d);
	diag_init(&e->d);
	e->o.gpus_per_pod = 0;
	assert_int_equal(itp_parse(&e->t, &e->o, "x.csv", text, strlen(text),
				   NULL, &e->d),
			 -EINVAL);
	itp_options_init(&e->o);
	e->o.gpu_resource = "not a resource";
	assert_int_equal(itp_parse(&e->t, &e->o, "x.csv", text, strlen(text),
				   NULL, &e->d),
			 -EINVAL);
	assert_int_equal(e->d.errors, 2);
}

/* Jobs per file (PROVENANCE.md), jobs over 8 GPUs and the largest job
 * (counted with awk), and GPU-hours (1,632,719.7 in all, as upstream). */
static const struct {
	const char *file;
	size_t jobs, gangs;
	int64_t gpus_max;
	int64_t gpu_hours; /* rounded down */
} real[] = {
	{ "cluster01.csv", 1595, 43, 64, 22740 },
	{ "cluster02.csv", 5778, 86, 64, 123748 },
	{ "cluster03.csv", 3011, 135, 64, 165442 },
	{ "cluster04.csv", 15802, 442, 64, 705682 },
	{ "cluster05.csv", 3629, 0, 8, 14303 },
	{ "cluster06.csv", 2396, 87, 64, 123878 },
	{ "cluster07.csv", 12699, 2, 16, 366799 },
	{ "cluster08.csv", 13047, 9, 32, 67099 },
	{ "cluster09.csv", 11134, 0, 1, 39000 },
	{ "cluster10.csv", 260, 2, 16, 4023 },
};

static void test_real_trace(void **state)
{
	struct env *e = *state;
	const char *dir = getenv("ECHELON_ITP_DIR");
	char *shipped = testutil_path("examples/itp-2021");
	size_t total = 0;
	int64_t gpu_us = 0;

	/* The copy shipped with the sources, unless told otherwise. */
	if (!dir)
		dir = shipped;
	for (size_t i = 0; i < ARRAY_SIZE(real); i++) {
		char *path = xasprintf("%s/%s", dir, real[i].file);
		struct itp_summary sum;
		struct strbuf sb;
		struct errbuf eb;
		size_t gangs = 0, before = e->t.jobs.len;

		strbuf_reset(&e->data);
		if (access(path, R_OK) != 0) {
			/* The trace ships with the sources: missing, it is
			 * a broken checkout, never a reason to skip. */
			fail_msg("%s: not readable", path);
		}
		assert_int_equal(trace_read_file(path, 1 << 24, &e->data, &eb),
				 0);
		assert_true(itp_recognise(e->data.buf, e->data.len));
		assert_int_equal(itp_parse(&e->t, &e->o, real[i].file,
					   e->data.buf, e->data.len, &sum,
					   &e->d),
				 0);
		assert_int_equal(sum.rows, real[i].jobs);
		assert_int_equal(sum.jobs, real[i].jobs);
		assert_int_equal(sum.rounded_up, 0);
		assert_int_equal(sum.gpus_max, real[i].gpus_max);
		assert_int_equal(sum.gpu_us / (3600 * S), real[i].gpu_hours);
		gpu_us += sum.gpu_us;
		for (size_t k = before; k < e->t.jobs.len; k++)
			gangs += e->t.jobs.items[k].pods > 1;
		assert_int_equal(gangs, real[i].gangs);
		assert_int_equal(e->t.jobs.items[before].submit_us, 0);
		strbuf_init(&sb);
		itp_summary_format(&sum, &sb);
		print_message("%s: %s\n", real[i].file, sb.buf);
		strbuf_release(&sb);
		total += sum.jobs;
		free(path);
	}
	free(shipped);
	assert_int_equal(total, 69351);
	assert_int_equal(gpu_us / (360 * S), 16327197); /* 1,632,719.7 h */
	assert_int_equal(e->d.errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_small, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options_and_variant, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_limits_and_options, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_real_trace, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

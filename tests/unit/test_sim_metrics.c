// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the simulator's own metrics: hand-made runs give the expected
 * placement histograms and summary figures (GPU-time in GPU-seconds),
 * figures that do not apply are NaN, and the text does not depend on the
 * order in which runs are recorded. The queues' metrics of real runs are
 * tested in test_obs_metrics.c.
 */
#include "sim/sim_metrics.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/vec.h"
#include "model/cluster.h"
#include "testutil.h"

#include "base/banned.h"

#define S 1000000LL /* microseconds */

struct fixture {
	struct cluster c;
	struct sim_input in;
	struct sim_job_rec tas[4], ff[4];
	struct sim_result runs[2];
};

static void add_cq(struct cluster *c, const char *name)
{
	struct cluster_queue *q = vec_push_zero(&c->cluster_queues);

	cluster_queue_init(q);
	q->name = cluster_str(c, name);
	assert_int_equal(cluster_index_last(c, KIND_CLUSTER_QUEUE), 0);
}

static void add_job(struct sim_input *in, const char *name, int64_t submit_us)
{
	struct sim_job j = { .name = name,
			     .submit_us = submit_us,
			     .tmpl = -1,
			     .duration_us = 100 * S,
			     .pods = 1,
			     .gpus = 8,
			     .gpus_per_pod = 8,
			     .split = UINT32_MAX };

	j.wl = (uint32_t)in->jobs.len;
	vec_push(&in->jobs, j);
}

static struct sim_job_rec rec(enum sim_job_state st, int64_t cq,
			      int64_t admit_us, int64_t end_us, double ratio)
{
	struct sim_job_rec r = { .state = st,
				 .admit_us = admit_us,
				 .start_us = admit_us,
				 .end_us = end_us,
				 .throughput_ratio = ratio,
				 .rack_bps = ratio < 0 ? -1 : 0,
				 .block_bps = ratio < 0 ? -1 : 0,
				 .cq = cq };

	return r;
}

/*
 * Jobs: 0 and 1 in team-a, 2 in team-b, 3 without a ClusterQueue.
 * tas: job 0 waits 2 s, runs 98 s, was evicted (preempted) once; job 1
 * waits 30 s and is running; job 2 is pending after two evictions; job 3
 * is pending. first-fit: job 0 waits 10 s and runs 40 s; the rest pend.
 */
static struct fixture *fixture_new(void)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	cluster_init(&f->c);
	add_cq(&f->c, "team-a");
	add_cq(&f->c, "team-b");
	f->in.c = &f->c;
	add_job(&f->in, "j0", 0);
	add_job(&f->in, "j1", 1 * S);
	add_job(&f->in, "j2", 5 * S);
	add_job(&f->in, "j3", 0);

	f->tas[0] = rec(SIM_JOB_FINISHED, 0, 2 * S, 100 * S, 0.95);
	f->tas[0].evictions = 1;
	f->tas[0].preemptions = 1;
	f->tas[0].hosts = 2;
	f->tas[0].racks = 3;
	f->tas[0].min_racks = 1;
	f->tas[0].blocks = f->tas[0].min_blocks = 1;
	f->tas[0].rack_bps = 25e9;
	f->tas[1] = rec(SIM_JOB_RUNNING, 0, 31 * S, -1, 0.5);
	f->tas[2] = rec(SIM_JOB_PENDING, 1, -1, -1, -1);
	f->tas[2].evictions = 2;
	f->tas[3] = rec(SIM_JOB_PENDING, -1, -1, -1, -1);
	f->runs[0].policy = SIM_POLICY_TAS;
	f->runs[0].jobs = f->tas;
	f->runs[0].sum = (struct sim_summary){
		.gpu_utilization = 0.75,
		.goodput = 0.625,
		.idle_allocated_gpu_hours = 1.5,
		.mean_throughput_ratio = 0.725,
		.mean_multi_node_throughput_ratio = 0.5,
		.on_min_racks = -1,
		.makespan_us = 100 * S,
		.node_failures = 2,
		.pod_failures = 3,
		.lost_gpu_hours = 0.25,
	};

	f->ff[0] = rec(SIM_JOB_FINISHED, 0, 10 * S, 50 * S, 1.0);
	f->ff[1] = rec(SIM_JOB_PENDING, 0, -1, -1, -1);
	f->ff[2] = rec(SIM_JOB_PENDING, 1, -1, -1, -1);
	f->ff[3] = rec(SIM_JOB_PENDING, -1, -1, -1, -1);
	f->runs[1].policy = SIM_POLICY_FIRST_FIT;
	f->runs[1].jobs = f->ff;
	f->runs[1].sum = (struct sim_summary){
		.gpu_utilization = 0.5,
		.goodput = 1,
		.mean_throughput_ratio = 1,
		.on_min_racks = 1,
		.makespan_us = 50 * S,
	};
	return f;
}

static void fixture_free(struct fixture *f)
{
	vec_release(&f->in.jobs);
	cluster_release(&f->c);
	free(f);
}

static char *fill_text(const struct sim_input *in,
		       const struct sim_result *runs, size_t n)
{
	struct metrics *m = metrics_new();
	struct strbuf sb;
	char *text;

	strbuf_init(&sb);
	sim_metrics_fill(m, in, runs, n);
	metrics_write(m, &sb);
	metrics_free(m);
	text = strbuf_take(&sb);
	strbuf_release(&sb);
	return text;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Lines the text of both runs must hold, each whole. */
static const char *const want_lines[] = {
	/* throughput ratios 0.95 and 0.5 (tas), 1 (first-fit) */
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"tas\",le=\"0.4\"} 0",
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"tas\",le=\"0.5\"} 1",
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"tas\",le=\"0.9\"} 1",
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"tas\",le=\"1\"} 2",
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"tas\",le=\"+Inf\"} 2",
	"echelon_workload_throughput_ratio_sum{policy=\"tas\"} 1.45",
	"echelon_workload_throughput_ratio_count{policy=\"tas\"} 2",
	"echelon_workload_placement_throughput_ratio"
	"{name=\"j1\",namespace=\"default\",policy=\"tas\"} 0.5",
	"echelon_workload_placement_throughput_ratio"
	"{name=\"j0\",namespace=\"default\",policy=\"first-fit\"} 1",
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"first-fit\",le=\"0.9\"} 0",
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"first-fit\",le=\"1\"} 1",
	/* the traffic of every placed job's placement, none of a pending
	 * one's */
	"echelon_workload_cross_rack_bytes_per_second"
	"{name=\"j0\",namespace=\"default\",policy=\"tas\"} 25000000000",
	"echelon_workload_cross_block_bytes_per_second"
	"{name=\"j0\",namespace=\"default\",policy=\"tas\"} 0",
	"echelon_workload_cross_rack_bytes_per_second"
	"{name=\"j1\",namespace=\"default\",policy=\"tas\"} 0",
	/* tas job 0: 2 hosts on 3 racks (1 would do), 1 block of 1 */
	"echelon_placement_extra_racks_bucket{policy=\"tas\",le=\"1\"} 0",
	"echelon_placement_extra_racks_bucket{policy=\"tas\",le=\"2\"} 1",
	"echelon_placement_extra_racks_sum{policy=\"tas\"} 2",
	"echelon_placement_extra_blocks_bucket{policy=\"tas\",le=\"0\"} 1",
	"echelon_placement_extra_blocks_count{policy=\"first-fit\"} 0",
	/* the summaries; GPU-time in GPU-seconds, Prometheus' base unit */
	"echelon_sim_goodput_ratio{policy=\"first-fit\"} 1",
	"echelon_sim_goodput_ratio{policy=\"tas\"} 0.625",
	"echelon_sim_gpu_utilization{policy=\"first-fit\"} 0.5",
	"echelon_sim_gpu_utilization{policy=\"tas\"} 0.75",
	"echelon_sim_idle_allocated_gpu_seconds{policy=\"tas\"} 5400",
	"echelon_sim_mean_throughput_ratio{policy=\"tas\"} 0.725",
	"echelon_sim_multi_node_throughput_ratio{policy=\"tas\"} 0.5",
	"echelon_sim_on_min_racks_ratio{policy=\"first-fit\"} 1",
	"echelon_sim_on_min_racks_ratio{policy=\"tas\"} NaN",
	"echelon_sim_makespan_seconds{policy=\"first-fit\"} 50",
	"echelon_sim_makespan_seconds{policy=\"tas\"} 100",
	"echelon_sim_node_failures_total{policy=\"tas\"} 2",
	"echelon_sim_pod_failures_total{policy=\"tas\"} 3",
	"echelon_sim_pod_failures_total{policy=\"first-fit\"} 0",
	"echelon_sim_lost_gpu_seconds{policy=\"tas\"} 900",
};

static void test_two_runs(void **state)
{
	struct fixture *f = fixture_new();
	char *text;

	(void)state;
	text = fill_text(&f->in, f->runs, 2);
	for (size_t i = 0; i < ARRAY_SIZE(want_lines); i++)
		testutil_assert_line(text, want_lines[i]);
	assert_null(strstr(text, "gpu_hours"));
	assert_null(strstr(text, "{name=\"j2\""));
	/*
	 * 16 families of 2 header lines; per policy 10 plain series, a
	 * histogram of 13 lines and two of 10; a ratio and two traffic
	 * figures per placed job.
	 */
	assert_int_equal(count_lines(text),
			 16 * 2 + 2 * (10 + 13 + 2 * 10) + 3 * 3);
	free(text);
	fixture_free(f);
}

/* Runs recorded in another order, or one call each, give the same bytes. */
static void test_run_order(void **state)
{
	struct fixture *f = fixture_new();
	struct sim_result swapped[2];
	struct metrics *m = metrics_new();
	struct strbuf sb;
	char *a, *b;

	(void)state;
	a = fill_text(&f->in, f->runs, 2);
	swapped[0] = f->runs[1];
	swapped[1] = f->runs[0];
	b = fill_text(&f->in, swapped, 2);
	assert_string_equal(a, b);
	free(b);

	sim_metrics_fill(m, &f->in, &f->runs[1], 1);
	sim_metrics_fill(m, &f->in, &f->runs[0], 1);
	strbuf_init(&sb);
	metrics_write(m, &sb);
	assert_string_equal(a, sb.buf);
	strbuf_release(&sb);
	metrics_free(m);
	free(a);
	fixture_free(f);
}

/* No jobs: the per-policy series, NaN where nothing applies. */
static const char *const want_empty[] = {
	"echelon_sim_goodput_ratio{policy=\"no-gang\"} NaN",
	"echelon_sim_gpu_utilization{policy=\"no-gang\"} NaN",
	"echelon_sim_idle_allocated_gpu_seconds{policy=\"no-gang\"} 0",
	"echelon_sim_lost_gpu_seconds{policy=\"no-gang\"} 0",
	"echelon_sim_makespan_seconds{policy=\"no-gang\"} 3600.5",
	"echelon_sim_mean_throughput_ratio{policy=\"no-gang\"} NaN",
	"echelon_sim_node_failures_total{policy=\"no-gang\"} 4",
	"echelon_workload_throughput_ratio_count{policy=\"no-gang\"} 0",
	"echelon_placement_extra_racks_count{policy=\"no-gang\"} 0",
};

static void test_empty_run(void **state)
{
	struct cluster c;
	struct sim_input in = { 0 };
	struct sim_result run = { 0 };
	char *text;

	(void)state;
	cluster_init(&c);
	in.c = &c;
	run.policy = SIM_POLICY_NO_GANG;
	run.sum.gpu_utilization = -1;
	run.sum.goodput = -1;
	run.sum.mean_throughput_ratio = -1;
	run.sum.mean_multi_node_throughput_ratio = -1;
	run.sum.on_min_racks = -1;
	run.sum.makespan_us = 3600 * S + S / 2;
	run.sum.node_failures = 4;
	text = fill_text(&in, &run, 1);
	for (size_t i = 0; i < ARRAY_SIZE(want_empty); i++)
		testutil_assert_line(text, want_empty[i]);
	assert_int_equal(count_lines(text), 16 * 2 + 10 + 13 + 2 * 10);
	free(text);

	/* no runs: the families alone */
	text = fill_text(&in, NULL, 0);
	assert_int_equal(count_lines(text), 16 * 2);
	free(text);
	cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_runs),
		cmocka_unit_test(test_run_order),
		cmocka_unit_test(test_empty_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

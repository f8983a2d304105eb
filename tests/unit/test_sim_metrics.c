// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the simulator's metrics: hand-made runs over a cluster with two
 * ClusterQueues (and a job without one) give the expected series, every
 * queue with a job has all its series, figures that do not apply are NaN,
 * the text of an empty run is exact, and the text does not depend on the
 * order in which runs are recorded.
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

static void add_job(struct sim_input *in, int64_t submit_us)
{
	struct sim_job j = { .submit_us = submit_us,
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
	add_job(&f->in, 0);
	add_job(&f->in, 1 * S);
	add_job(&f->in, 5 * S);
	add_job(&f->in, 0);

	f->tas[0] = rec(SIM_JOB_FINISHED, 0, 2 * S, 100 * S, 0.95);
	f->tas[0].evictions = 1;
	f->tas[0].preemptions = 1;
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
	"echelon_finished_workloads_total"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 1",
	"echelon_finished_workloads_total"
	"{cluster_queue=\"team-b\",policy=\"tas\"} 0",
	"echelon_evicted_workloads_total"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 1",
	"echelon_evicted_workloads_total"
	"{cluster_queue=\"team-b\",policy=\"tas\"} 2",
	"echelon_evicted_workloads_total"
	"{cluster_queue=\"team-a\",policy=\"first-fit\"} 0",
	"echelon_preempted_workloads_total"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 1",
	"echelon_preempted_workloads_total"
	"{cluster_queue=\"team-b\",policy=\"tas\"} 0",
	"echelon_pending_workloads{cluster_queue=\"\",policy=\"tas\"} 1",
	"echelon_pending_workloads{cluster_queue=\"team-a\",policy=\"tas\"} 0",
	"echelon_pending_workloads{cluster_queue=\"team-b\",policy=\"tas\"} 1",
	"echelon_pending_workloads"
	"{cluster_queue=\"team-a\",policy=\"first-fit\"} 1",
	"echelon_admitted_active_workloads"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 1",
	"echelon_admitted_active_workloads"
	"{cluster_queue=\"team-a\",policy=\"first-fit\"} 0",
	/* admission wait, tas, team-a: 2 s and 30 s */
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"1\"} 0",
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"2.5\"} 1",
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"20\"} 1",
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"40\"} 2",
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"40960\"} 2",
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"+Inf\"} 2",
	"echelon_admission_wait_time_seconds_sum"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 32",
	"echelon_admission_wait_time_seconds_count"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 2",
	/* first-fit, team-a: 10 s */
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"first-fit\",le=\"5\"} 0",
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"first-fit\",le=\"10\"} 1",
	/* nothing admitted: an empty histogram */
	"echelon_admission_wait_time_seconds_bucket"
	"{cluster_queue=\"team-b\",policy=\"tas\",le=\"+Inf\"} 0",
	"echelon_admission_wait_time_seconds_count"
	"{cluster_queue=\"\",policy=\"tas\"} 0",
	/* execution time: 98 s (tas), 40 s (first-fit) */
	"echelon_execution_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"80\"} 0",
	"echelon_execution_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"tas\",le=\"160\"} 1",
	"echelon_execution_time_seconds_sum"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 98",
	"echelon_execution_time_seconds_count"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 1",
	"echelon_execution_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"first-fit\",le=\"20\"} 0",
	"echelon_execution_time_seconds_bucket"
	"{cluster_queue=\"team-a\",policy=\"first-fit\",le=\"40\"} 1",
	"echelon_execution_time_seconds_sum"
	"{cluster_queue=\"team-b\",policy=\"tas\"} 0",
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
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"first-fit\",le=\"0.9\"} 0",
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"first-fit\",le=\"1\"} 1",
	/* the summaries */
	"echelon_sim_goodput_ratio{policy=\"first-fit\"} 1",
	"echelon_sim_goodput_ratio{policy=\"tas\"} 0.625",
	"echelon_sim_gpu_utilization{policy=\"first-fit\"} 0.5",
	"echelon_sim_gpu_utilization{policy=\"tas\"} 0.75",
	"echelon_sim_idle_allocated_gpu_hours{policy=\"tas\"} 1.5",
	"echelon_sim_mean_throughput_ratio{policy=\"tas\"} 0.725",
	"echelon_sim_multi_node_throughput_ratio{policy=\"tas\"} 0.5",
	"echelon_sim_on_min_racks_ratio{policy=\"first-fit\"} 1",
	"echelon_sim_on_min_racks_ratio{policy=\"tas\"} NaN",
	"echelon_sim_makespan_seconds{policy=\"first-fit\"} 50",
	"echelon_sim_makespan_seconds{policy=\"tas\"} 100",
	"echelon_sim_node_failures_total{policy=\"tas\"} 2",
	"echelon_sim_pod_failures_total{policy=\"tas\"} 3",
	"echelon_sim_pod_failures_total{policy=\"first-fit\"} 0",
	"echelon_sim_lost_gpu_hours{policy=\"tas\"} 0.25",
};

/* A whole family, series in label order. */
static const char want_admitted[] =
	"# HELP echelon_admitted_workloads_total Workloads admitted "
	"(first admission).\n"
	"# TYPE echelon_admitted_workloads_total counter\n"
	"echelon_admitted_workloads_total"
	"{cluster_queue=\"\",policy=\"first-fit\"} 0\n"
	"echelon_admitted_workloads_total"
	"{cluster_queue=\"\",policy=\"tas\"} 0\n"
	"echelon_admitted_workloads_total"
	"{cluster_queue=\"team-a\",policy=\"first-fit\"} 1\n"
	"echelon_admitted_workloads_total"
	"{cluster_queue=\"team-a\",policy=\"tas\"} 2\n"
	"echelon_admitted_workloads_total"
	"{cluster_queue=\"team-b\",policy=\"first-fit\"} 0\n"
	"echelon_admitted_workloads_total"
	"{cluster_queue=\"team-b\",policy=\"tas\"} 0\n"
	"# HELP echelon_evicted_workloads_total ";

static void assert_has_line(const char *text, const char *line)
{
	struct strbuf needle, hay;

	strbuf_init(&needle);
	strbuf_init(&hay);
	strbuf_addf(&needle, "\n%s\n", line);
	strbuf_addf(&hay, "\n%s", text);
	if (!strstr(hay.buf, needle.buf))
		fail_msg("missing line: %s", line);
	strbuf_release(&needle);
	strbuf_release(&hay);
}

static void test_two_runs(void **state)
{
	struct fixture *f = fixture_new();
	char *text;

	(void)state;
	text = fill_text(&f->in, f->runs, 2);
	for (size_t i = 0; i < ARRAY_SIZE(want_lines); i++)
		assert_has_line(text, want_lines[i]);
	assert_non_null(strstr(text, want_admitted));
	/*
	 * 19 families of 2 header lines; 3 queues x 2 policies of 6 plain
	 * series and 2 histograms of 19 lines; per policy 10 plain series
	 * and a histogram of 13 lines.
	 */
	assert_int_equal(count_lines(text),
			 19 * 2 + 6 * (6 + 2 * 19) + 2 * (10 + 13));
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

/* No jobs: only the per-policy series, and NaN where nothing applies. */
static const char want_empty[] =
	"# HELP echelon_admission_wait_time_seconds Time from submission to "
	"first admission of admitted workloads.\n"
	"# TYPE echelon_admission_wait_time_seconds histogram\n"
	"# HELP echelon_admitted_active_workloads Workloads admitted or "
	"running when the run stopped.\n"
	"# TYPE echelon_admitted_active_workloads gauge\n"
	"# HELP echelon_admitted_workloads_total Workloads admitted (first "
	"admission).\n"
	"# TYPE echelon_admitted_workloads_total counter\n"
	"# HELP echelon_evicted_workloads_total Evictions of workloads "
	"(preemptions and lifecycle evictions).\n"
	"# TYPE echelon_evicted_workloads_total counter\n"
	"# HELP echelon_execution_time_seconds Time from first admission to "
	"finish of finished workloads, re-admissions included.\n"
	"# TYPE echelon_execution_time_seconds histogram\n"
	"# HELP echelon_finished_workloads_total Workloads that finished.\n"
	"# TYPE echelon_finished_workloads_total counter\n"
	"# HELP echelon_pending_workloads Workloads pending when the run "
	"stopped.\n"
	"# TYPE echelon_pending_workloads gauge\n"
	"# HELP echelon_preempted_workloads_total Preemptions of workloads of "
	"the queue.\n"
	"# TYPE echelon_preempted_workloads_total counter\n"
	"# HELP echelon_sim_goodput_ratio Work at ideal training speed kept "
	"per allocated GPU-hour; NaN when no GPU-time was allocated.\n"
	"# TYPE echelon_sim_goodput_ratio gauge\n"
	"echelon_sim_goodput_ratio{policy=\"no-gang\"} NaN\n"
	"# HELP echelon_sim_gpu_utilization Busy GPU-time over all GPUs times "
	"the simulated span.\n"
	"# TYPE echelon_sim_gpu_utilization gauge\n"
	"echelon_sim_gpu_utilization{policy=\"no-gang\"} NaN\n"
	"# HELP echelon_sim_idle_allocated_gpu_hours GPU-hours allocated to "
	"bound pods while their job was not running.\n"
	"# TYPE echelon_sim_idle_allocated_gpu_hours gauge\n"
	"echelon_sim_idle_allocated_gpu_hours{policy=\"no-gang\"} 0\n"
	"# HELP echelon_sim_lost_gpu_hours GPU-hours of work lost to "
	"evictions and failures.\n"
	"# TYPE echelon_sim_lost_gpu_hours gauge\n"
	"echelon_sim_lost_gpu_hours{policy=\"no-gang\"} 0\n"
	"# HELP echelon_sim_makespan_seconds Time of the last finish, or the "
	"stop time.\n"
	"# TYPE echelon_sim_makespan_seconds gauge\n"
	"echelon_sim_makespan_seconds{policy=\"no-gang\"} 3600.5\n"
	"# HELP echelon_sim_mean_throughput_ratio Mean throughput ratio of "
	"the placed workloads; NaN when none.\n"
	"# TYPE echelon_sim_mean_throughput_ratio gauge\n"
	"echelon_sim_mean_throughput_ratio{policy=\"no-gang\"} NaN\n"
	"# HELP echelon_sim_multi_node_throughput_ratio Mean throughput ratio "
	"of the placed multi-node workloads; NaN when none.\n"
	"# TYPE echelon_sim_multi_node_throughput_ratio gauge\n"
	"echelon_sim_multi_node_throughput_ratio{policy=\"no-gang\"} NaN\n"
	"# HELP echelon_sim_node_failures_total Node failures.\n"
	"# TYPE echelon_sim_node_failures_total counter\n"
	"echelon_sim_node_failures_total{policy=\"no-gang\"} 4\n"
	"# HELP echelon_sim_on_min_racks_ratio Fraction of multi-node "
	"workloads placed on the fewest racks possible; NaN when none.\n"
	"# TYPE echelon_sim_on_min_racks_ratio gauge\n"
	"echelon_sim_on_min_racks_ratio{policy=\"no-gang\"} NaN\n"
	"# HELP echelon_sim_pod_failures_total Pod failures.\n"
	"# TYPE echelon_sim_pod_failures_total counter\n"
	"echelon_sim_pod_failures_total{policy=\"no-gang\"} 0\n"
	"# HELP echelon_workload_throughput_ratio Training throughput of a "
	"workload's last placement relative to the ideal one.\n"
	"# TYPE echelon_workload_throughput_ratio histogram\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.1\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.2\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.3\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.4\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.5\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.6\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.7\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.8\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"0.9\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"1\"} 0\n"
	"echelon_workload_throughput_ratio_bucket"
	"{policy=\"no-gang\",le=\"+Inf\"} 0\n"
	"echelon_workload_throughput_ratio_sum{policy=\"no-gang\"} 0\n"
	"echelon_workload_throughput_ratio_count{policy=\"no-gang\"} 0\n";

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
	assert_string_equal(text, want_empty);
	free(text);

	/* no runs: the families alone */
	text = fill_text(&in, NULL, 0);
	assert_int_equal(count_lines(text), 19 * 2);
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

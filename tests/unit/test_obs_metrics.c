// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of Kueue's metrics as the observer records them from a real
 * simulated run: team b reclaims its quota from team a's borrower, which
 * is admitted again later, and a job of a queue without quota is never
 * admitted. Counters count events (the borrower's two admissions), waits
 * run from the creation or the requeue, the preemption is labelled with
 * the preemptor's queue, the never-admitted job counts under its
 * ClusterQueue (not cluster_queue=""), and the history has a sample per
 * time-series sample. Placement attempts are counted at no simulated
 * time, the cohort's series come from the quota tree, and a spread gang's
 * modelled traffic is its ClusterQueue's. Two LocalQueues of one
 * ClusterQueue each have the quota of their own workloads, and a held
 * LocalQueue is not active.
 */
#include "obs/obs_metrics.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "manifest/manifest.h"
#include "sim/gen.h"
#include "sim/sim.h"
#include "sim/throughput.h"
#include "sim/trace.h"
#include "testutil.h"

#include "base/banned.h"

#define S INT64_C(1000000)

/* A ClusterQueue of 16 GPUs in cohort "all" that reclaims and preempts. */
#define TEAM(name)                                                             \
	"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\n"        \
	"metadata: {name: " name "}\n"                                         \
	"spec:\n  cohort: all\n  namespaceSelector: {}\n"                      \
	"  preemption: {reclaimWithinCohort: Any, "                            \
	"withinClusterQueue: LowerPriority}\n"                                 \
	"  resourceGroups:\n  - coveredResources: [\"nvidia.com/gpu\"]\n"      \
	"    flavors: [{name: tas-gpu, resources: [{name: nvidia.com/gpu, "    \
	"nominalQuota: 16}]}]\n"

static const char queues[] =
	"apiVersion: kueue.x-k8s.io/v1beta1\nkind: Cohort\n"
	"metadata: {name: all}\n" TEAM("team-a") TEAM(
		"team-b") "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
			  "ClusterQueue\n"
			  "metadata: {name: team-c}\n"
			  "spec:\n  namespaceSelector: {}\n"
			  "  resourceGroups:\n  - coveredResources: "
			  "[\"nvidia.com/gpu\"]\n"
			  "    flavors: [{name: tas-gpu, resources: "
			  "[{name: nvidia.com/gpu, "
			  "nominalQuota: 0}]}]\n"
			  "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
			  "LocalQueue\n"
			  "metadata: {name: a, namespace: default}\nspec: "
			  "{clusterQueue: team-a}\n"
			  "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
			  "LocalQueue\n"
			  "metadata: {name: b, namespace: default}\nspec: "
			  "{clusterQueue: team-b}\n"
			  "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
			  "LocalQueue\n"
			  "metadata: {name: c, namespace: default}\nspec: "
			  "{clusterQueue: team-c}\n"
			  "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
			  "LocalQueue\n"
			  "metadata: {name: a2, namespace: default}\nspec: "
			  "{clusterQueue: team-a}\n"
			  "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: "
			  "LocalQueue\n"
			  "metadata: {name: held, namespace: default}\n"
			  "spec: {clusterQueue: team-b, stopPolicy: Hold}\n";

static const char jobs[] =
	"{\"name\": \"borrower\", \"submit_s\": 0, \"duration_s\": 3600, "
	"\"pods\": 4, \"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": "
	"\"a\"}\n"
	"{\"name\": \"owner\", \"submit_s\": 900, \"duration_s\": 1200, "
	"\"pods\": 2, \"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": \"b\", "
	"\"priority\": 10}\n"
	"{\"name\": \"small\", \"submit_s\": 1000, \"duration_s\": 600, "
	"\"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": \"a\"}\n"
	"{\"name\": \"never\", \"submit_s\": 0, \"duration_s\": 60, "
	"\"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": \"c\"}\n";

struct world {
	struct cluster c;
	struct sim_input in;
	struct sim_result res;
	struct strbuf text;
};

/* Run jobs (JSON lines) on the cluster of spec with the queues of the
 * manifest qs, until until_us (0: the end). */
static void world_run_with(struct world *w, const char *qs, const char *spec,
			   const char *lines, int64_t until_us)
{
	struct errbuf eb = { 0 };
	struct sim_options o;
	struct gen_spec gs;
	struct trace t;
	struct diag d;

	memset(w, 0, sizeof(*w));
	cluster_init(&w->c);
	assert_int_equal(gen_parse(spec, NULL, &gs, &eb), 0);
	diag_init(&d);
	assert_int_equal(gen_build(&w->c, &gs, &d), 0);
	assert_int_equal(
		manifest_load_buffer(&w->c, "q.yaml", qs, strlen(qs), &d), 0);
	trace_init(&t, w->c.strings, w->c.resources);
	assert_int_equal(
		trace_parse_jsonl(&t, "t.jsonl", lines, strlen(lines), &d), 0);
	diag_release(&d);
	sim_input_init(&w->in, &w->c, NULL);
	vec_foreach (&t.jobs, j)
		assert_int_equal(
			sim_input_add_trace_job(&w->in, j, "default", &eb), 0);
	sim_input_sort(&w->in);
	trace_release(&t);

	sim_options_init(&o);
	o.check = true;
	o.checkpoint_us = 300 * S;
	o.until_us = until_us;
	assert_int_equal(sim_run(&w->in, &o, &w->res, &eb), 0);
	strbuf_init(&w->text);
	metrics_write(w->res.metrics, &w->text);
}

/* The same with the queues above. */
static void world_run_on(struct world *w, const char *spec, const char *lines,
			 int64_t until_us)
{
	world_run_with(w, queues, spec, lines, until_us);
}

static void world_run(struct world *w)
{
	world_run_on(w, "blocks=1,racks=1,hosts=4,gpus=8", jobs, 0);
}

static void assert_near_rel(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void world_release(struct world *w)
{
	strbuf_release(&w->text);
	sim_result_release(&w->res);
	sim_input_release(&w->in);
	cluster_release(&w->c);
}

#define A "cluster_queue=\"team-a\",policy=\"tas\""

static const char *const want[] = {
	/* the borrower twice, small once: each admission counts */
	"kueue_admitted_workloads_total{" A "} 3",
	"kueue_quota_reserved_workloads_total{" A "} 3",
	"kueue_admitted_workloads_total{cluster_queue=\"team-b\","
	"policy=\"tas\"} 1",
	"kueue_local_queue_admitted_workloads_total{name=\"a\","
	"namespace=\"default\",policy=\"tas\"} 3",
	"kueue_cohort_subtree_admitted_workloads_total{cohort=\"all\","
	"policy=\"tas\"} 4",
	/* waits 0 s (borrower), 0 s (small), 1210 s (the borrower from its
	 * eviction at 900 s to its second admission at 2110 s) */
	"kueue_admission_wait_time_seconds_sum{" A "} 1210",
	"kueue_admission_wait_time_seconds_count{" A "} 3",
	"kueue_admission_wait_time_seconds_bucket{" A ",le=\"1\"} 2",
	/* pods start 10 s after their bind */
	"kueue_admitted_until_ready_wait_time_seconds_sum{" A "} 30",
	"kueue_admitted_until_ready_wait_time_seconds_count{" A "} 3",
	"echelon_gang_bound_wait_time_seconds_count{" A "} 3",
	/* first admission to finish, re-admission included: 5120 s, 610 s */
	"kueue_execution_time_seconds_sum{" A "} 5730",
	"kueue_finished_workloads_total{" A "} 2",
	"kueue_evicted_workloads_total{" A ",reason=\"Preempted\","
	"underlying_cause=\"\"} 1",
	"kueue_local_queue_evicted_workloads_total{name=\"a\","
	"namespace=\"default\",policy=\"tas\",reason=\"Preempted\","
	"underlying_cause=\"\"} 1",
	"kueue_preempted_workloads_total{policy=\"tas\","
	"preempting_cluster_queue=\"team-b\",reason=\"InCohortReclamation\"} "
	"1",
	/* never admitted: pending in its own ClusterQueue */
	"kueue_pending_workloads{cluster_queue=\"team-c\",policy=\"tas\","
	"status=\"inadmissible\"} 1",
	"kueue_local_queue_pending_workloads{name=\"c\",namespace=\"default\","
	"policy=\"tas\",status=\"inadmissible\"} 1",
	"kueue_pending_workloads{" A ",status=\"active\"} 0",
	/* why: it asks team-c for more than it will ever have */
	"kueue_unadmitted_workloads{cluster_queue=\"team-c\",policy=\"tas\","
	"reason=\"NoReservation\",underlying_cause=\"ExceedsMaxQuota\"} 1",
	/* the borrower waited for quota after its preemption, no more */
	"kueue_unadmitted_workloads{" A ",reason=\"NoReservation\","
	"underlying_cause=\"WaitingForQuota\"} 0",
	"kueue_admitted_active_workloads{" A "} 0",
	"kueue_cluster_queue_nominal_quota{cluster_queue=\"team-a\","
	"cohort=\"all\",flavor=\"tas-gpu\",policy=\"tas\","
	"resource=\"nvidia.com/gpu\"} 16",
	"kueue_cluster_queue_borrowing_limit{cluster_queue=\"team-a\","
	"cohort=\"all\",flavor=\"tas-gpu\",policy=\"tas\","
	"resource=\"nvidia.com/gpu\"} +Inf",
	"kueue_cluster_queue_status{" A ",status=\"active\"} 1",
	"echelon_podgroups{cluster_queue=\"team-a\",phase=\"Running\","
	"policy=\"tas\"} 0",
	/* all done but the job that never fits: every host free */
	"echelon_topology_domain_free_hosts{domain=\"block-0/rack-0-0\","
	"flavor=\"tas-gpu\",level=\"cloud.provider.com/topology-rack\","
	"policy=\"tas\"} 4",
	"echelon_topology_domain_gpus_used{domain=\"block-0\","
	"flavor=\"tas-gpu\",level=\"cloud.provider.com/topology-block\","
	"policy=\"tas\"} 0",
	"kueue_admission_attempt_duration_seconds_sum{policy=\"tas\","
	"result=\"success\"} 0",
	/* each admission ran the placement engine; simulated: no time */
	"echelon_placement_duration_seconds_count{policy=\"tas\","
	"result=\"success\"} 4",
	"echelon_placement_duration_seconds_sum{policy=\"tas\","
	"result=\"success\"} 0",
	/* the cohort's subtree: both teams' 16 GPUs, nothing left in use */
	"kueue_cohort_subtree_quota{cohort=\"all\",flavor=\"tas-gpu\","
	"policy=\"tas\",resource=\"nvidia.com/gpu\"} 32",
	"kueue_cohort_subtree_resource_reservations{cohort=\"all\","
	"flavor=\"tas-gpu\",policy=\"tas\",resource=\"nvidia.com/gpu\"} 0",
	"kueue_cohort_info{cohort=\"all\",parent_cohort=\"\",policy=\"tas\","
	"root_cohort=\"all\"} 1",
	"kueue_cluster_queue_info{cluster_queue=\"team-a\","
	"parent_cohort=\"all\",policy=\"tas\",root_cohort=\"all\"} 1",
	"kueue_cluster_queue_info{cluster_queue=\"team-c\","
	"parent_cohort=\"\",policy=\"tas\",root_cohort=\"\"} 1",
	/* per LocalQueue as per ClusterQueue */
	"kueue_local_queue_quota_reserved_wait_time_seconds_sum{name=\"a\","
	"namespace=\"default\",policy=\"tas\"} 1210",
	"kueue_local_queue_quota_reserved_wait_time_seconds_count{name=\"a\","
	"namespace=\"default\",policy=\"tas\"} 3",
	/* finished workloads still there: a trace job's goes with it */
	"kueue_finished_workloads{" A "} 0",
	"kueue_local_queue_finished_workloads{name=\"a\","
	"namespace=\"default\",policy=\"tas\"} 0",
	"kueue_finished_workloads{cluster_queue=\"team-c\",policy=\"tas\"} 0",
	/* nothing admitted any more: no traffic */
	"echelon_cluster_queue_cross_rack_bytes_per_second{" A "} 0",
};

static void test_sim_run(void **state)
{
	struct world w;
	char *p;

	(void)state;
	world_run(&w);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		testutil_assert_line(w.text.buf, want[i]);
	assert_null(strstr(w.text.buf, "cluster_queue=\"\""));
	/* one admitting cycle per admission here, at least */
	p = strstr(w.text.buf, "kueue_admission_attempts_total{policy=\"tas\","
			       "result=\"success\"} ");
	assert_non_null(p);
	assert_true(strtol(strchr(p, '}') + 2, NULL, 10) >= 4);
	/* a history of the time-series samples, within its bound */
	assert_true(metrics_samples(w.res.metrics) <= w.res.samples.len);
	assert_true(metrics_samples(w.res.metrics) *
			    metrics_sample_lines(w.res.metrics) <=
		    SIM_METRICS_MAX_LINES);
	/* halved only when it had to be */
	assert_true(metrics_samples(w.res.metrics) == w.res.samples.len ||
		    metrics_samples(w.res.metrics) *
				    metrics_sample_lines(w.res.metrics) >=
			    SIM_METRICS_MAX_LINES / 4);
	world_release(&w);
}

/* The value of the series that starts line, as a double. */
static double value_of(const char *text, const char *line)
{
	const char *p = strstr(text, line);

	if (!p)
		fail_msg("no series %s", line);
	return strtod(p + strlen(line), NULL);
}

/*
 * A gang of 4 whole hosts, one host per rack and two racks per block, is
 * admitted when the run stops: its ClusterQueue's traffic gauges are what
 * the throughput model gives its placement, and its 32 GPUs are reserved
 * in its cohort (no lending limit: nothing is guaranteed to a member).
 */
static void test_traffic(void **state)
{
	static const char spread[] =
		"{\"name\": \"spread\", \"submit_s\": 0, \"duration_s\": "
		"3600, \"pods\": 4, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"a\"}\n";
	struct throughput_config tc;
	struct throughput_shape act = { 32, 4, 4, 2, 8, 8 };
	enum throughput_class k;
	double step_s;
	struct world w;

	(void)state;
	world_run_on(&w, "blocks=2,racks=2,hosts=1,gpus=8", spread, 600 * S);
	throughput_config_init(&tc);
	k = throughput_class_of(&tc, THROUGHPUT_CLASS_BY_SIZE, 32);
	step_s = throughput_step_us(&tc, k, &act, &act) / 1e6;
	assert_true(step_s > 0);
	assert_near_rel(value_of(w.text.buf,
				 "echelon_cluster_queue_cross_rack_bytes_per_"
				 "second{" A "} "),
			throughput_crossing_bytes(&tc, &act, THROUGHPUT_RACK) /
				step_s);
	assert_near_rel(value_of(w.text.buf,
				 "echelon_cluster_queue_cross_block_bytes_per_"
				 "second{" A "} "),
			throughput_crossing_bytes(&tc, &act, THROUGHPUT_BLOCK) /
				step_s);
	assert_true(value_of(w.text.buf,
			     "echelon_cluster_queue_cross_block_bytes_per_"
			     "second{" A "} ") > 0);
	testutil_assert_line(w.text.buf,
			     "kueue_cohort_subtree_resource_reservations{"
			     "cohort=\"all\",flavor=\"tas-gpu\",policy=\"tas\","
			     "resource=\"nvidia.com/gpu\"} 32");
	world_release(&w);
}

#define LQ_GPU(name)                                                           \
	"{flavor=\"tas-gpu\",name=\"" name "\",namespace=\"default\","         \
	"policy=\"tas\",resource=\"nvidia.com/gpu\"} "

/*
 * LocalQueues a (two pods of 8 GPUs) and a2 (one pod of 8) both admit
 * into team-a, which borrows 8 GPUs of team-b: each LocalQueue reserves
 * and uses the GPUs of its own workloads, their sum is the ClusterQueue's
 * reservation, team-b's LocalQueue b holds nothing, and the stopped
 * LocalQueue "held" is not active while the others are.
 */
static void test_local_queue_quota(void **state)
{
	static const char two[] =
		"{\"name\": \"x\", \"submit_s\": 0, \"duration_s\": 3600, "
		"\"pods\": 2, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"a\"}\n"
		"{\"name\": \"y\", \"submit_s\": 0, \"duration_s\": 3600, "
		"\"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": \"a2\"}\n";
	static const char *const lines[] = {
		"kueue_local_queue_resource_reservation" LQ_GPU("a") "16",
		"kueue_local_queue_resource_usage" LQ_GPU("a") "16",
		"kueue_local_queue_resource_reservation" LQ_GPU("a2") "8",
		"kueue_local_queue_resource_usage" LQ_GPU("a2") "8",
		"kueue_local_queue_resource_reservation" LQ_GPU("b") "0",
		"kueue_local_queue_resource_usage" LQ_GPU("held") "0",
		"kueue_cluster_queue_resource_reservation{cluster_queue="
		"\"team-a\",cohort=\"all\",flavor=\"tas-gpu\",policy=\"tas\","
		"resource=\"nvidia.com/gpu\"} 24",
		"kueue_local_queue_status{active=\"True\",name=\"a2\","
		"namespace=\"default\",policy=\"tas\"} 1",
		"kueue_local_queue_status{active=\"False\",name=\"a2\","
		"namespace=\"default\",policy=\"tas\"} 0",
		"kueue_local_queue_status{active=\"Unknown\",name=\"a2\","
		"namespace=\"default\",policy=\"tas\"} 0",
		"kueue_local_queue_status{active=\"True\",name=\"held\","
		"namespace=\"default\",policy=\"tas\"} 0",
		"kueue_local_queue_status{active=\"False\",name=\"held\","
		"namespace=\"default\",policy=\"tas\"} 1",
	};
	struct world w;

	(void)state;
	world_run_on(&w, "blocks=1,racks=1,hosts=4,gpus=8", two, 600 * S);
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		testutil_assert_line(w.text.buf, lines[i]);
	world_release(&w);
}

/* A ClusterQueue of n GPUs of flavor tas-gpu, more spec lines in extra. */
#define CQ(name, n, extra)                                                     \
	"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\n"        \
	"metadata: {name: " name "}\n"                                         \
	"spec:\n  namespaceSelector: {}\n" extra                               \
	"  resourceGroups:\n  - coveredResources: [\"nvidia.com/gpu\"]\n"      \
	"    flavors: [{name: tas-gpu, resources: [{name: nvidia.com/gpu, "    \
	"nominalQuota: " n "}]}]\n"
#define LQ(name, cq, extra)                                                    \
	"---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"          \
	"metadata: {name: " name ", namespace: default}\n"                     \
	"spec: {clusterQueue: " cq extra "}\n"
#define UN(cq, cause)                                                          \
	"kueue_unadmitted_workloads{cluster_queue=\"" cq "\",policy=\"tas\","  \
	"reason=\"NoReservation\",underlying_cause=\"" cause "\"} "
#define LQ_UN(cq, name, cause)                                                 \
	"kueue_local_queue_unadmitted_workloads{cluster_queue=\"" cq "\","     \
	"name=\"" name "\",namespace=\"default\",policy=\"tas\","              \
	"reason=\"NoReservation\",underlying_cause=\"" cause "\"} "

/*
 * Why each workload that is not admitted waits, as Kueue's
 * underlying_cause: on 4 hosts of 8 GPUs in 2 racks, "one" (3 pods)
 * leaves one host free; "rack" (2 pods in one rack) has the quota of
 * ClusterQueue q but no rack to fit in, "x" takes small's 8 GPUs so that
 * "y" waits for quota, "huge" asks small for more than it ever has, and
 * "h" waits in a stopped LocalQueue. Each count is in its ClusterQueue's
 * and its LocalQueue's series; a cause no workload has has no series.
 * Their requests are their ClusterQueue's pending GPUs.
 */
static void test_unadmitted(void **state)
{
	static const char qs[] = CQ("q", "64", "") CQ("small", "8", "")
		LQ("a", "q", "") LQ("s", "small", "")
			LQ("held", "q", ", stopPolicy: Hold");
	static const char jobs_un[] =
		"{\"name\": \"one\", \"submit_s\": 0, \"duration_s\": 3600, "
		"\"pods\": 3, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"a\"}\n"
		"{\"name\": \"x\", \"submit_s\": 1, \"duration_s\": 3600, "
		"\"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": \"s\"}\n"
		"{\"name\": \"rack\", \"submit_s\": 2, \"duration_s\": 60, "
		"\"pods\": 2, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"a\", \"topology\": {\"required\": "
		"\"cloud.provider.com/topology-rack\"}}\n"
		"{\"name\": \"y\", \"submit_s\": 2, \"duration_s\": 60, "
		"\"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": \"s\"}\n"
		"{\"name\": \"huge\", \"submit_s\": 2, \"duration_s\": 60, "
		"\"pods\": 2, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"s\"}\n"
		"{\"name\": \"h\", \"submit_s\": 2, \"duration_s\": 60, "
		"\"requests\": {\"nvidia.com/gpu\": 8}, \"queue\": \"held\"}\n";
	static const char *const lines[] = {
		UN("q", "TopologyPlacementFailed") "1",
		UN("q", "Suspended") "1",
		UN("small", "WaitingForQuota") "1",
		UN("small", "ExceedsMaxQuota") "1",
		LQ_UN("q", "a", "TopologyPlacementFailed") "1",
		LQ_UN("q", "held", "Suspended") "1",
		LQ_UN("small", "s", "WaitingForQuota") "1",
		LQ_UN("small", "s", "ExceedsMaxQuota") "1",
		/* their requests, by resource: rack and h, y and huge */
		"kueue_cluster_queue_resource_pending{cluster_queue=\"q\","
		"policy=\"tas\",resource=\"nvidia.com/gpu\"} 24",
		"kueue_cluster_queue_resource_pending{cluster_queue=\"small\","
		"policy=\"tas\",resource=\"nvidia.com/gpu\"} 24",
	};
	static const char *const absent[] = {
		UN("q", "WaitingForQuota"),
		UN("small", "TopologyPlacementFailed"),
		LQ_UN("q", "a", "Suspended"),
		"underlying_cause=\"PendingEvaluation\"",
		/* neither covered nor requested */
		("kueue_cluster_queue_resource_pending{cluster_queue=\"q\","
		 "policy=\"tas\",resource=\"cpu\"}"),
		"resource=\"pods\"",
	};
	struct world w;

	(void)state;
	world_run_with(&w, qs, "blocks=1,racks=2,hosts=2,gpus=8", jobs_un,
		       600 * S);
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		testutil_assert_line(w.text.buf, lines[i]);
	for (size_t i = 0; i < ARRAY_SIZE(absent); i++)
		if (strstr(w.text.buf, absent[i]))
			fail_msg("unexpected series %s", absent[i]);
	world_release(&w);
}

/*
 * Fair sharing's weighted share, as Kueue reports it: ClusterQueue
 * "borrow" (no quota of its own, weight given) uses 4 of the 8 GPUs its
 * cohort can lend, 500 per mille, divided by its weight; "lend" borrows
 * nothing, nor does the root cohort.
 */
static void test_weighted_share(void **state)
{
	static const struct {
		const char *weight; /* "" for the default, 1 */
		const char *gpus;   /* per pod of the job in "borrow" */
		const char *borrow, *lend;
	} cases[] = {
		{ "2", "4", "250", "0" },    { "", "4", "500", "0" },
		{ "0.5", "4", "1000", "0" }, { "0", "4", "NaN", "0" },
		{ "4", "8", "250", "0" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf qs, job, line;
		struct world w;

		strbuf_init(&qs);
		strbuf_init(&job);
		strbuf_init(&line);
		strbuf_addstr(&qs, "apiVersion: kueue.x-k8s.io/v1beta1\n"
				   "kind: Cohort\nmetadata: {name: all}\n");
		strbuf_addf(&qs,
			    CQ("lend", "8", "  cohort: all\n")
				    CQ("borrow", "0", "  cohort: all\n%s%s%s")
					    LQ("b", "borrow", ""),
			    *cases[i].weight ? "  fairSharing: {weight: " : "",
			    cases[i].weight, *cases[i].weight ? "}\n" : "");
		strbuf_addf(&job,
			    "{\"name\": \"j\", \"submit_s\": 0, "
			    "\"duration_s\": 3600, \"requests\": "
			    "{\"nvidia.com/gpu\": %s}, \"queue\": \"b\"}\n",
			    cases[i].gpus);
		world_run_with(&w, qs.buf, "blocks=1,racks=1,hosts=1,gpus=8",
			       job.buf, 600 * S);
		strbuf_addf(&line,
			    "kueue_cluster_queue_weighted_share{cluster_queue="
			    "\"borrow\",cohort=\"all\",policy=\"tas\"} %s",
			    cases[i].borrow);
		testutil_assert_line(w.text.buf, line.buf);
		strbuf_reset(&line);
		strbuf_addf(&line,
			    "kueue_cluster_queue_weighted_share{cluster_queue="
			    "\"lend\",cohort=\"all\",policy=\"tas\"} %s",
			    cases[i].lend);
		testutil_assert_line(w.text.buf, line.buf);
		testutil_assert_line(w.text.buf,
				     "kueue_cohort_weighted_share{cohort="
				     "\"all\",policy=\"tas\"} 0");
		world_release(&w);
		strbuf_release(&line);
		strbuf_release(&job);
		strbuf_release(&qs);
	}
}

/*
 * Team b reclaims its quota from team a's borrower twice: two evictions
 * of one workload for one reason, one of them counted once.
 */
static void test_evicted_once(void **state)
{
	static const char twice[] =
		"{\"name\": \"borrower\", \"submit_s\": 0, \"duration_s\": "
		"3600, \"pods\": 4, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"a\"}\n"
		"{\"name\": \"owner\", \"submit_s\": 900, \"duration_s\": "
		"1200, \"pods\": 2, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"b\", \"priority\": 10}\n"
		"{\"name\": \"again\", \"submit_s\": 2400, \"duration_s\": "
		"600, \"pods\": 2, \"requests\": {\"nvidia.com/gpu\": 8}, "
		"\"queue\": \"b\", \"priority\": 10}\n";
	struct world w;

	(void)state;
	world_run_on(&w, "blocks=1,racks=1,hosts=4,gpus=8", twice, 0);
	testutil_assert_line(w.text.buf,
			     "kueue_evicted_workloads_total{" A
			     ",reason=\"Preempted\",underlying_cause=\"\"} 2");
	testutil_assert_line(w.text.buf,
			     "kueue_evicted_workloads_once_total{" A
			     ",priority_class=\"\",reason=\"Preempted\","
			     "underlying_cause=\"\"} 1");
	world_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_run),
		cmocka_unit_test(test_traffic),
		cmocka_unit_test(test_local_queue_quota),
		cmocka_unit_test(test_unadmitted),
		cmocka_unit_test(test_weighted_share),
		cmocka_unit_test(test_evicted_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the simulator's outputs: number formatting tables (exact
 * seconds, fixed decimals, durations for people), and the exact bytes of
 * the JSON Lines, CSV, summary JSON and terminal table for two runs built
 * by hand over a four-node cluster with awkward names; the HTML report is
 * checked for shape (one <svg> per chart, escaped names, no external
 * reference), size bounds on a large input, and repeatability.
 */
#include "sim/sim_out.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "ctl/ctl.h"
#include "sim/report.h"
#include "testutil.h"

#include "base/banned.h"

#define S 1000000LL /* microseconds per second */

/* A cluster of four 8-GPU nodes: n1, n2 in rack-a1, one node in a rack
 * with a name to escape (both in block-a), n4 outside the topology; two
 * workloads, one with a name to escape, and two runs over them. */
struct fixture {
	struct cluster c;
	struct sim_input in;
	struct sim_node_place place[4];
	struct sim_result runs[2];
	struct sim_job_rec recs[2][2];
};

static void add_node(struct fixture *f, const char *name, int64_t gpus)
{
	struct node *n = vec_push_zero(&f->c.nodes);

	node_init(n);
	n->name = cluster_str(&f->c, name);
	n->allocatable.v[f->in.gpu_id] = gpus;
}

static void add_workload(struct fixture *f, const char *ns, const char *name,
			 const char *queue)
{
	struct workload *w = vec_push_zero(&f->c.workloads);

	workload_init(w);
	w->ns = cluster_str(&f->c, ns);
	w->name = cluster_str(&f->c, name);
	w->queue_name = queue ? cluster_str(&f->c, queue) : NULL;
}

static void add_job(struct fixture *f, uint32_t wl, int64_t submit_us,
		    const char *klass, int32_t pods, int64_t gpus)
{
	struct sim_job *j = vec_push_zero(&f->in.jobs);
	const struct workload *w = &f->c.workloads.items[wl];

	j->wl = wl;
	j->tmpl = -1;
	j->name = w->name;
	j->ns = w->ns;
	j->queue = w->queue_name;
	j->submit_us = submit_us;
	j->duration_us = 3600 * S;
	j->klass = klass;
	j->pods = pods;
	j->gpus = gpus;
	j->gpus_per_pod = (int32_t)(gpus / pods);
	j->split = UINT32_MAX;
}

static void build_input(struct fixture *f)
{
	struct cluster_queue *cq;
	struct local_queue *lq;

	static const struct sim_node_place place[4] = {
		{ 0, 0 }, { 0, 0 }, { 0, 1 }, { -1, -1 }
	};

	cluster_init(&f->c);
	f->in.c = &f->c;
	f->in.gpu_resource = cluster_str(&f->c, "nvidia.com/gpu");
	f->in.gpu_id = resource_id(f->c.resources, "nvidia.com/gpu", NULL);
	assert_true(f->in.gpu_id >= 0);
	add_node(f, "n1", 8);
	add_node(f, "n2", 8);
	add_node(f, "n3\"<x>", 8);
	add_node(f, "n4", 8);
	memcpy(f->place, place, sizeof(place));
	f->in.node_place = f->place;
	vec_push(&f->in.block_names, "block-a");
	vec_push(&f->in.rack_names, "rack-a1");
	vec_push(&f->in.rack_names, "rack<a2>&");
	f->in.total_gpus = 32;
	cq = vec_push_zero(&f->c.cluster_queues);
	cluster_queue_init(cq);
	cq->name = cluster_str(&f->c, "cq-a");
	lq = vec_push_zero(&f->c.local_queues);
	lq->ns = cluster_str(&f->c, "team-a");
	lq->name = cluster_str(&f->c, "q-a");
	lq->cluster_queue = cq->name;
	add_workload(f, "team-a", "train-a", "q-a");
	add_workload(f, "team-b", "ev\"a\\l\t\x01", NULL);
	add_job(f, 0, 0, "train", 2, 16);
	add_job(f, 1, 1500000, NULL, 1, 1);
}

static const struct sim_job_rec none_rec = {
	.state = SIM_JOB_PENDING,
	.admit_us = -1,
	.start_us = -1,
	.end_us = -1,
	.hosts = -1,
	.racks = -1,
	.blocks = -1,
	.min_racks = -1,
	.min_blocks = -1,
	.throughput_ratio = -1,
	.rack_bps = -1,
	.block_bps = -1,
	.cq = -1,
};

/* A job placed on one host of one rack at its ideal speed. */
static struct sim_job_rec placed(enum sim_job_state state, int64_t admit_us,
				 int64_t start_us, int64_t end_us)
{
	return (struct sim_job_rec){
		.state = state,
		.admit_us = admit_us,
		.start_us = start_us,
		.end_us = end_us,
		.hosts = 1,
		.racks = 1,
		.blocks = 1,
		.min_racks = 1,
		.min_blocks = 1,
		.throughput_ratio = 1,
		.cq = 0,
	};
}

static void add_sample(struct sim_result *r, int64_t t_us, int64_t alloc,
		       int64_t busy, int32_t pending, int32_t running)
{
	struct sim_sample *s = vec_push_zero(&r->samples);

	s->t_us = t_us;
	s->gpus_allocated = alloc;
	s->gpus_busy = busy;
	s->pending = pending;
	s->admitted = running;
	s->running = running;
	s->finished = 0;
}

/* The second job waited for quota, then for its pods, 0.5 s and 10 s,
 * then after its eviction for quota again; times exact to the us. */
static struct sim_wait tas_waits[] = {
	{ 1 + SCHED_PEND_WAITING_FOR_QUOTA, 500001 },
	{ SIM_WAIT_CTL + CTL_WAIT_ASSEMBLY, 10 * S },
};
/* The first job, pending when the run stopped, as a compact gang. */
static char kube_msg[] = "compact placement: 2 domains of \"rack\"";
static struct sim_wait kube_waits[] = {
	{ SIM_WAIT_CTL + CTL_WAIT_COMPACT, 3600 * S },
};

/* TAS: train-a ran and finished; the other runs after an eviction. */
static void build_tas(struct fixture *f)
{
	struct sim_result *r = &f->runs[0];
	struct sim_summary *s = &r->sum;
	struct sim_class_summary *cl;

	r->policy = SIM_POLICY_TAS;
	throughput_config_init(&r->tp);
	r->jobs = f->recs[0];
	r->jobs[0] = placed(SIM_JOB_FINISHED, 10, 10 * S + 10, 3610 * S + 10);
	r->jobs[0].hosts = 2;
	r->jobs[0].racks = 2;
	r->jobs[0].rack_bps = 12345678901.6; /* written whole */
	r->jobs[1] = placed(SIM_JOB_RUNNING, 1500000, 12 * S, -1);
	r->jobs[1].throughput_ratio = 0.875;
	r->jobs[1].evictions = 1;
	r->jobs[1].preemptions = 1;
	r->jobs[1].lost_gpu_us = 5400001800;
	r->jobs[1].waits = tas_waits;
	r->jobs[1].nwaits = ARRAY_SIZE(tas_waits);
	add_sample(r, 0, 0, 0, 2, 0);
	add_sample(r, 60 * S, 17, 16, 0, 2);
	add_sample(r, 90500000, 1, 1, 0, 1);
	r->span_us = 3610 * S + 10;
	r->node_busy_gpu_us = xcalloc(4, sizeof(int64_t));
	r->node_busy_gpu_us[0] = 8 * r->span_us; /* n1 fully busy */
	r->node_busy_gpu_us[2] = 2 * r->span_us; /* 25 % */
	*s = (struct sim_summary){
		.jobs = 2,
		.jobs_finished = 1,
		.jobs_started = 2,
		.mean_wait_s = 11.25,
		.p50_wait_s = 10.00001,
		.p95_wait_s = 12,
		.mean_admit_wait_s = 0.75,
		.mean_jct_s = 3610.00001,
		.gpu_utilization = 0.123456789,
		.goodput = 0.8125,
		.idle_allocated_gpu_hours = 1.5,
		.mean_racks_spanned = 1,
		.mean_min_racks = 1,
		.mean_blocks_spanned = 1,
		.mean_min_blocks = 1,
		.on_min_racks = 1,
		.multi_node_jobs = 1,
		.mean_throughput_ratio = 0.9375,
		.mean_multi_node_throughput_ratio = 0.875,
		.makespan_us = 3610 * S + 10,
		.evictions = 1,
		.preemptions = 1,
		.pod_failures = 1,
		.lost_gpu_hours = 1.500001,
		.min_cq_usage = 0.25,
	};
	cl = vec_push_zero(&r->classes);
	*cl = (struct sim_class_summary){ "train", 1, 1, 0.00001 };
}

/* kube-default: train-a never started; the other finished in a minute. */
static void build_kube(struct fixture *f)
{
	struct sim_result *r = &f->runs[1];

	r->policy = SIM_POLICY_KUBE_DEFAULT;
	throughput_config_init(&r->tp);
	r->jobs = f->recs[1];
	r->jobs[0] = none_rec;
	r->jobs[0].waits = kube_waits;
	r->jobs[0].nwaits = ARRAY_SIZE(kube_waits);
	r->jobs[0].wait_end = SIM_WAIT_CTL + CTL_WAIT_COMPACT;
	r->jobs[0].wait_msg = kube_msg;
	r->jobs[1] = placed(SIM_JOB_FINISHED, 1500000, 1500000, 61500000);
	add_sample(r, 0, 1, 1, 1, 1);
	r->span_us = 61500000;
	r->sum = (struct sim_summary){
		.jobs = 2,
		.jobs_finished = 1,
		.jobs_started = 1,
		.mean_wait_s = 0,
		.p50_wait_s = 0,
		.p95_wait_s = 0,
		.mean_admit_wait_s = 0,
		.mean_jct_s = 60,
		.gpu_utilization = 0.01,
		.goodput = -1,
		.idle_allocated_gpu_hours = 0,
		.mean_racks_spanned = 1,
		.mean_min_racks = 1,
		.mean_blocks_spanned = 1,
		.mean_min_blocks = 1,
		.on_min_racks = -1,
		.multi_node_jobs = 0,
		.mean_throughput_ratio = 1,
		.mean_multi_node_throughput_ratio = -1,
		.makespan_us = 61500000,
		.lost_gpu_hours = 0,
		.min_cq_usage = -1,
	};
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	build_input(f);
	build_tas(f);
	build_kube(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	for (size_t r = 0; r < 2; r++) {
		vec_release(&f->runs[r].samples);
		vec_release(&f->runs[r].classes);
		free(f->runs[r].node_busy_gpu_us);
	}
	vec_release(&f->in.jobs);
	vec_release(&f->in.block_names);
	vec_release(&f->in.rack_names);
	cluster_release(&f->c);
	free(f);
	return 0;
}

static void assert_out(const struct strbuf *sb, const char *want)
{
	if (strcmp(sb->buf, want) != 0)
		fail_msg("got:\n%s\nwant:\n%s", sb->buf, want);
}

static const struct {
	int64_t us;
	const char *want;
} seconds_cases[] = {
	{ 0, "0" },
	{ 1, "0.000001" },
	{ 10, "0.00001" },
	{ 1500000, "1.5" },
	{ 3600 * S, "3600" },
	{ 3610 * S + 10, "3610.00001" },
	{ -2 * S, "-2" },
	{ -250000, "-0.25" },
	{ INT64_MAX, "9223372036854.775807" },
	{ INT64_MIN, "-9223372036854.775808" },
};

static void test_seconds(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(seconds_cases); i++) {
		strbuf_reset(&sb);
		sim_out_seconds(seconds_cases[i].us, &sb);
		assert_string_equal(sb.buf, seconds_cases[i].want);
	}
	strbuf_release(&sb);
}

static const struct {
	double x;
	int decimals;
	bool trim;
	const char *want;
} fixed_cases[] = {
	{ 0.123456789, 6, true, "0.123457" },
	{ 1.0, 2, false, "1.00" },
	{ 1.0, 2, true, "1" },
	{ 2.5, 0, true, "3" },
	{ -0.00000001, 3, true, "0" },
	{ -0.00000001, 3, false, "0.000" },
	{ -1.25, 2, true, "-1.25" },
	{ 93.75, 1, false, "93.8" },
	{ 1e20, 2, true, "100000000000000000000" },
	{ 12345.6789, 9, true, "12345.6789" },
};

static void test_fixed(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(fixed_cases); i++) {
		strbuf_reset(&sb);
		sim_out_fixed(fixed_cases[i].x, fixed_cases[i].decimals,
			      fixed_cases[i].trim, &sb);
		assert_string_equal(sb.buf, fixed_cases[i].want);
	}
	strbuf_release(&sb);
}

static const struct {
	double s;
	const char *want;
} duration_cases[] = {
	{ 0, "0 s" },	     { 4.25, "4.3 s" },	   { 9.94, "9.9 s" },
	{ 9.96, "10 s" },    { 42, "42 s" },	   { 59.4, "59 s" },
	{ 59.6, "1.0 min" }, { 1050, "17.5 min" }, { 3596, "59.9 min" },
	{ 3597, "1.0 h" },   { 11520, "3.2 h" },   { 86219, "23.9 h" },
	{ 86220, "1.0 d" },  { 181440, "2.1 d" },  { -1, "-" },
	{ NAN, "-" },	     { INFINITY, "-" },
};

static const struct {
	double bps;
	const char *want;
} rate_cases[] = {
	{ 0, "0 B/s" },
	{ 640.4, "640 B/s" },
	{ 999.4, "999 B/s" },
	{ 999.5, "1.0 kB/s" },
	{ 12.4e9, "12.4 GB/s" },
	{ 999.94e6, "999.9 MB/s" },
	{ 999.96e6, "1.0 GB/s" },
	{ 3.5e15, "3.5 PB/s" },
	{ 2e21, "2000.0 EB/s" },
	{ -1, "-" },
	{ NAN, "-" },
	{ INFINITY, "-" },
};

static void test_rate(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(rate_cases); i++) {
		strbuf_reset(&sb);
		sim_out_rate(rate_cases[i].bps, &sb);
		assert_string_equal(sb.buf, rate_cases[i].want);
	}
	strbuf_release(&sb);
}

static void test_duration(void **state)
{
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(duration_cases); i++) {
		strbuf_reset(&sb);
		sim_out_duration(duration_cases[i].s, &sb);
		assert_string_equal(sb.buf, duration_cases[i].want);
	}
	strbuf_release(&sb);
}

static const char want_jsonl[] =
	"{\"policy\":\"tas\",\"name\":\"train-a\",\"namespace\":\"team-a\","
	"\"queue\":\"q-a\",\"class\":\"train\",\"pods\":2,\"gpus\":16,"
	"\"state\":\"finished\",\"submit_s\":0,\"admit_s\":0.00001,"
	"\"start_s\":10.00001,\"end_s\":3610.00001,\"wait_s\":10.00001,"
	"\"jct_s\":3610.00001,\"hosts\":2,\"racks\":2,\"min_racks\":1,"
	"\"blocks\":1,\"min_blocks\":1,\"throughput_ratio\":1,"
	"\"cross_rack_bytes_per_second\":12345678902,"
	"\"cross_block_bytes_per_second\":0,\"evictions\":0,\"preemptions\":0,"
	"\"lost_gpu_hours\":0,"
	"\"reason\":null,\"message\":null,\"waits\":{}}\n"
	"{\"policy\":\"tas\",\"name\":\"ev\\\"a\\\\l\\t\\u0001\","
	"\"namespace\":\"team-b\",\"queue\":null,\"class\":null,\"pods\":1,"
	"\"gpus\":1,\"state\":\"running\",\"submit_s\":1.5,\"admit_s\":1.5,"
	"\"start_s\":12,\"end_s\":null,\"wait_s\":10.5,\"jct_s\":null,"
	"\"hosts\":1,\"racks\":1,\"min_racks\":1,\"blocks\":1,"
	"\"min_blocks\":1,\"throughput_ratio\":0.875,"
	"\"cross_rack_bytes_per_second\":0,"
	"\"cross_block_bytes_per_second\":0,\"evictions\":1,"
	"\"preemptions\":1,\"lost_gpu_hours\":1.500001,\"reason\":null,"
	"\"message\":null,"
	"\"waits\":{\"WaitingForQuota\":0.500001,\"WaitForStart\":10}}\n"
	"{\"policy\":\"kube-default\",\"name\":\"train-a\","
	"\"namespace\":\"team-a\",\"queue\":\"q-a\",\"class\":\"train\","
	"\"pods\":2,\"gpus\":16,\"state\":\"pending\",\"submit_s\":0,"
	"\"admit_s\":null,\"start_s\":null,\"end_s\":null,\"wait_s\":null,"
	"\"jct_s\":null,\"hosts\":null,\"racks\":null,\"min_racks\":null,"
	"\"blocks\":null,\"min_blocks\":null,\"throughput_ratio\":null,"
	"\"cross_rack_bytes_per_second\":null,"
	"\"cross_block_bytes_per_second\":null,"
	"\"evictions\":0,\"preemptions\":0,\"lost_gpu_hours\":0,"
	"\"reason\":\"CompactPlacement\","
	"\"message\":\"compact placement: 2 domains of \\\"rack\\\"\","
	"\"waits\":{\"CompactPlacement\":3600}}\n"
	"{\"policy\":\"kube-default\",\"name\":\"ev\\\"a\\\\l\\t\\u0001\","
	"\"namespace\":\"team-b\",\"queue\":null,\"class\":null,\"pods\":1,"
	"\"gpus\":1,\"state\":\"finished\",\"submit_s\":1.5,\"admit_s\":1.5,"
	"\"start_s\":1.5,\"end_s\":61.5,\"wait_s\":0,\"jct_s\":60,"
	"\"hosts\":1,\"racks\":1,\"min_racks\":1,\"blocks\":1,"
	"\"min_blocks\":1,\"throughput_ratio\":1,"
	"\"cross_rack_bytes_per_second\":0,"
	"\"cross_block_bytes_per_second\":0,\"evictions\":0,"
	"\"preemptions\":0,\"lost_gpu_hours\":0,\"reason\":null,"
	"\"message\":null,\"waits\":{}}\n";

static void test_jsonl(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb;

	strbuf_init(&sb);
	sim_out_workloads_jsonl(&f->in, f->runs, 2, &sb);
	assert_out(&sb, want_jsonl);
	strbuf_reset(&sb);
	sim_out_workloads_jsonl(&f->in, f->runs, 0, &sb);
	assert_out(&sb, "");
	strbuf_release(&sb);
}

static void test_gpu_hours_rounding(void **state)
{
	static const struct {
		int64_t gpu_us;
		const char *want;
	} cases[] = {
		{ 1799, "0" },	       /* 0.49975e-6 h */
		{ 1800, "0.000001" },  /* half up */
		{ 3600000000LL, "1" }, /* one GPU-hour */
		{ 5400001799, "1.5" }, /* 1.5000004997 h */
		{ -1, "null" },	       /* n/a */
	};
	struct fixture *f = *state;
	struct strbuf sb, want;

	strbuf_init(&sb);
	strbuf_init(&want);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *tail;

		f->recs[0][0].lost_gpu_us = cases[i].gpu_us;
		strbuf_reset(&sb);
		sim_out_workloads_jsonl(&f->in, f->runs, 1, &sb);
		strbuf_reset(&want);
		strbuf_addf(&want,
			    "\"lost_gpu_hours\":%s,\"reason\":null,"
			    "\"message\":null,\"waits\":{}}\n",
			    cases[i].want);
		tail = strstr(sb.buf, "}\n");
		assert_non_null(tail);
		tail += 2; /* past the line's end, then back */
		assert_true((size_t)(tail - sb.buf) >= want.len);
		tail -= want.len;
		assert_memory_equal(tail, want.buf, want.len);
	}
	strbuf_release(&sb);
	strbuf_release(&want);
}

static const char want_csv[] =
	"policy,t_s,gpus_allocated,gpus_busy,utilization,pending,admitted,"
	"running,finished\n"
	"tas,0,0,0,0.0000,2,0,0,0\n"
	"tas,60,17,16,0.5000,0,2,2,0\n"
	"tas,90.5,1,1,0.0313,0,1,1,0\n"
	"kube-default,0,1,1,0.0313,1,1,1,0\n";

static void test_csv(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb;

	strbuf_init(&sb);
	sim_out_timeseries_csv(&f->in, f->runs, 2, &sb);
	assert_out(&sb, want_csv);
	/* No GPUs at all: utilization 0, not a division by zero. */
	f->in.total_gpus = 0;
	strbuf_reset(&sb);
	sim_out_timeseries_csv(&f->in, f->runs + 1, 1, &sb);
	assert_out(&sb, "policy,t_s,gpus_allocated,gpus_busy,utilization,"
			"pending,admitted,running,finished\n"
			"kube-default,0,1,1,0.0000,1,1,1,0\n");
	strbuf_release(&sb);
}

/* The default model, as every summary records it. */
#define WANT_MODEL                                                             \
	"  \"model\": {\n"                                                     \
	"    \"algo\": \"ring\",\n"                                            \
	"    \"bw-host\": 367.61,\n"                                           \
	"    \"bw-rack\": 43.5,\n"                                             \
	"    \"bw-block\": 43.5,\n"                                            \
	"    \"bw-cluster\": 43.5,\n"                                          \
	"    \"lat-host\": 1.3,\n"                                             \
	"    \"lat-rack\": 1.6,\n"                                             \
	"    \"lat-block\": 2.6,\n"                                            \
	"    \"lat-cluster\": 3.6,\n"                                          \
	"    \"oversub-host\": 1,\n"                                           \
	"    \"oversub-rack\": 1,\n"                                           \
	"    \"oversub-block\": 1.5,\n"                                        \
	"    \"oversub-cluster\": 4,\n"                                        \
	"    \"grad\": 1073741824,\n"                                          \
	"    \"compute\": 0,\n"                                                \
	"    \"comm-fraction\": 0,\n"                                          \
	"    \"overlap\": 0,\n"                                                \
	"    \"share-data\": 0.21,\n"                                          \
	"    \"share-tensor\": 0.4,\n"                                         \
	"    \"share-pipeline\": 0.125,\n"                                     \
	"    \"tensor-from\": 64\n"                                            \
	"  },\n"

static const char want_summary[] =
	"{\n" WANT_MODEL "  \"policies\": {\n"
	"    \"tas\": {\n"
	"      \"jobs\": 2,\n"
	"      \"jobs_finished\": 1,\n"
	"      \"mean_wait_s\": 11.25,\n"
	"      \"p50_wait_s\": 10.00001,\n"
	"      \"p95_wait_s\": 12,\n"
	"      \"mean_jct_s\": 3610.00001,\n"
	"      \"gpu_utilization\": 0.123457,\n"
	"      \"goodput\": 0.8125,\n"
	"      \"idle_allocated_gpu_hours\": 1.5,\n"
	"      \"mean_racks_spanned\": 1,\n"
	"      \"mean_min_racks\": 1,\n"
	"      \"mean_blocks_spanned\": 1,\n"
	"      \"mean_min_blocks\": 1,\n"
	"      \"mean_throughput_ratio\": 0.9375,\n"
	"      \"jobs_started\": 2,\n"
	"      \"mean_admit_wait_s\": 0.75,\n"
	"      \"on_min_racks\": 1,\n"
	"      \"multi_node_jobs\": 1,\n"
	"      \"mean_multi_node_throughput_ratio\": "
	"0.875,\n"
	"      \"makespan_s\": 3610.00001,\n"
	"      \"evictions\": 1,\n"
	"      \"preemptions\": 1,\n"
	"      \"node_failures\": 0,\n"
	"      \"pod_failures\": 1,\n"
	"      \"lost_gpu_hours\": 1.500001,\n"
	"      \"min_cq_usage\": 0.25,\n"
	"      \"classes\": {\n"
	"        \"train\": {\n"
	"          \"jobs\": 1,\n"
	"          \"admitted\": 1,\n"
	"          \"mean_admit_wait_s\": 0.00001\n"
	"        }\n"
	"      }\n"
	"    },\n"
	"    \"kube-default\": {\n"
	"      \"jobs\": 2,\n"
	"      \"jobs_finished\": 1,\n"
	"      \"mean_wait_s\": 0,\n"
	"      \"p50_wait_s\": 0,\n"
	"      \"p95_wait_s\": 0,\n"
	"      \"mean_jct_s\": 60,\n"
	"      \"gpu_utilization\": 0.01,\n"
	"      \"goodput\": null,\n"
	"      \"idle_allocated_gpu_hours\": 0,\n"
	"      \"mean_racks_spanned\": 1,\n"
	"      \"mean_min_racks\": 1,\n"
	"      \"mean_blocks_spanned\": 1,\n"
	"      \"mean_min_blocks\": 1,\n"
	"      \"mean_throughput_ratio\": 1,\n"
	"      \"jobs_started\": 1,\n"
	"      \"mean_admit_wait_s\": 0,\n"
	"      \"on_min_racks\": null,\n"
	"      \"multi_node_jobs\": 0,\n"
	"      \"mean_multi_node_throughput_ratio\": "
	"null,\n"
	"      \"makespan_s\": 61.5,\n"
	"      \"evictions\": 0,\n"
	"      \"preemptions\": 0,\n"
	"      \"node_failures\": 0,\n"
	"      \"pod_failures\": 0,\n"
	"      \"lost_gpu_hours\": 0,\n"
	"      \"min_cq_usage\": null\n"
	"    }\n"
	"  }\n"
	"}\n";

static void test_summary(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb;

	strbuf_init(&sb);
	sim_out_summary_json(f->runs, 2, &sb);
	assert_out(&sb, want_summary);
	strbuf_reset(&sb);
	sim_out_summary_json(NULL, 0, &sb);
	assert_out(&sb, "{\n  \"policies\": {}\n}\n");
	strbuf_release(&sb);
}

static const char want_table[] =
	"                                  tas  kube-default\n"
	"jobs finished                   1 / 2         1 / 2\n"
	"mean wait                        11 s           0 s\n"
	"p50 wait                         10 s           0 s\n"
	"p95 wait                         12 s           0 s\n"
	"mean JCT                        1.0 h       1.0 min\n"
	"GPU utilization                12.3 %         1.0 %\n"
	"goodput                        81.3 %             -\n"
	"idle allocated GPU-h              1.5           0.0\n"
	"racks spanned / min       1.00 / 1.00   1.00 / 1.00\n"
	"blocks spanned / min      1.00 / 1.00   1.00 / 1.00\n"
	"on min racks                  100.0 %             -\n"
	"throughput vs ideal            93.8 %       100.0 %\n"
	"  multi-node jobs              87.5 %             -\n"
	"evictions                           1             0\n"
	"lost GPU-h                        1.5           0.0\n"
	"makespan                        1.0 h       1.0 min\n"
	"mean time to admission          0.8 s           0 s\n"
	"least ClusterQueue usage       25.0 %             -\n"
	"  admission, train                0 s             -\n";

static void test_table(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb;

	strbuf_init(&sb);
	sim_out_table(f->runs, 2, &sb);
	assert_out(&sb, want_table);
	strbuf_reset(&sb);
	sim_out_table(f->runs, 0, &sb);
	assert_out(&sb, "");
	for (size_t row = 0; row < SIM_OUT_TABLE_ROWS; row++)
		assert_non_null(strstr(want_table, sim_out_row_label(row)));
	strbuf_release(&sb);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_report(void **state)
{
	struct fixture *f = *state;
	struct strbuf a, b;
	const char *hm, *a1, *a2, *none;

	strbuf_init(&a);
	strbuf_init(&b);
	report_html(&f->in, f->runs, 2, "load <test> & \"more\"", &a);
	report_html(&f->in, f->runs, 2, "load <test> & \"more\"", &b);
	assert_out(&a, b.buf);
	assert_true(strncmp(a.buf, "<!DOCTYPE html>\n", 16) == 0);
	/* 5 charts, fragmentation and heat map per run; no ClusterQueue
	 * series in these results */
	assert_int_equal(count(a.buf, "<svg"), 5 + 2 * 2);
	assert_int_equal(count(a.buf, "</svg>"), 5 + 2 * 2);
	assert_int_equal(count(a.buf, "<polyline"), 2 * 4 + 2 * 3);
	/* every summary row says what it means; no command without one */
	assert_int_equal(count(a.buf, "<td class=\"m\">"), SIM_OUT_TABLE_ROWS);
	assert_non_null(strstr(a.buf, "<td>p95 wait</td><td>12 s</td><td>0 s"
				      "</td><td class=\"m\">"));
	assert_non_null(strstr(a.buf, "the 95th percentile: how long the "
				      "unlucky wait; better: lower</td>"));
	assert_null(strstr(a.buf, "Command:"));
	/* the ClusterQueue of a job never admitted is its LocalQueue's */
	assert_non_null(strstr(a.buf, "<tr><td>cq-a <small>kube-default"
				      "</small></td><td>2</td><td>1</td>"));
	/* the job that waited longest first, its exact wait in the tooltip,
	 * its reasons with their times, its placement */
	assert_non_null(strstr(a.buf, "<tr><td>team-b/ev&quot;a\\l\t?</td>"
				      "<td>cq-a</td><td>running</td><td>1</td>"
				      "<td title=\"10.5 s\">"));
	assert_non_null(strstr(a.buf, "<td>WaitingForQuota 0.5 s, "
				      "WaitForStart 10 s</td><td>1 host, 1 "
				      "rack (min 1), 1 block (min 1)</td>"
				      "<td>87.5 %</td><td>0 B/s</td>"
				      "<td>0 B/s</td><td>1</td></tr>"));
	assert_non_null(strstr(a.buf, "(min 1)</td><td>100.0 %</td>"
				      "<td>12.3 GB/s</td><td>0 B/s</td>"));
	assert_true(strstr(a.buf, "ev&quot;a") <
		    strstr(a.buf, "<tr><td>team-a/train-a</td>"));
	assert_non_null(strstr(a.buf, "<td>CompactPlacement 1.0 h; still "
				      "CompactPlacement</td>"));
	/* goodput beside the multi-node histogram */
	assert_non_null(strstr(a.buf, "(higher is better): tas 81.3 %, "
				      "kube-default -.</p>"));
	assert_null(strstr(a.buf, "http"));
	assert_null(strstr(a.buf, "<script"));
	assert_null(strstr(a.buf, "<test>"));
	assert_null(strstr(a.buf, "rack<a2>"));
	assert_null(strstr(a.buf, "n3\"<x>"));
	assert_non_null(strstr(a.buf, "<title>load &lt;test&gt; &amp; "
				      "&quot;more&quot;</title>"));
	assert_non_null(strstr(a.buf, "n3&quot;&lt;x&gt;: 25.0 % busy"));
	assert_non_null(strstr(a.buf, "<td>racks spanned / min</td>"
				      "<td>1.00 / 1.00</td>"));
	/* the model every run used, each figure with its range and source */
	assert_non_null(strstr(a.buf, "<h2>Throughput model</h2>"));
	assert_non_null(strstr(a.buf, "All-reduce: ring."));
	assert_non_null(strstr(a.buf, "<tr><td>share-data</td><td>0.21</td>"
				      "<td>0.1 - 0.32</td><td>Horovod 2018"));
	assert_non_null(
		strstr(a.buf, "<tr><td>bw-rack</td><td>43.5 GB/s</td>"));
	assert_non_null(strstr(a.buf, "<tr><td>oversub-block</td><td>1.5</td>"
				      "<td>1 - 2</td>"));
	assert_true(strstr(a.buf, "<h2>Throughput model</h2>") <
		    strstr(a.buf, "<h2>GPU utilization</h2>"));
	/* n1 fully busy: the darkest colour; rows by block, no topology last */
	hm = strstr(a.buf, "<h3>tas</h3>");
	assert_non_null(hm);
	assert_non_null(strstr(hm, "fill=\"#08306b\"><title>n1: 100.0 %"));
	a1 = strstr(hm, ">rack-a1<");
	a2 = strstr(hm, ">rack&lt;a2&gt;&amp;<");
	none = strstr(hm, ">no topology<");
	assert_true(strstr(hm, ">block-a<") < a1);
	assert_true(a1 && a2 && none && a1 < a2 && a2 < none);
	assert_true(strcmp(a.buf + a.len - 8, "</html>\n") == 0);
	strbuf_release(&a);
	strbuf_release(&b);
}

/* With the ClusterQueues' series, their preemptions by reason and the
 * free hosts: a chart of pending jobs and one of usage against nominal
 * per ClusterQueue, the fragmentation lines; the header names the
 * command, seed and version. */
static void test_report_queues(void **state)
{
	struct fixture *f = *state;
	struct report_info ri = {
		.command = "echelon sim --seed 3 <x>",
		.version = "1.2.3",
		.seed = 3,
		.has_seed = true,
	};
	struct strbuf sb;
	const char *p;

	for (size_t r = 0; r < 2; r++) {
		struct sim_result *res = &f->runs[r];

		res->ncq = 1;
		res->cq_resource = "nvidia.com/gpu";
		res->cq_nominal = xcalloc(1, sizeof(int64_t));
		res->cq_nominal[0] = 16;
		res->cq_preempted =
			xcalloc(SIM_PREEMPT_REASONS, sizeof(int64_t));
		for (size_t i = 0; i < res->samples.len; i++) {
			struct sim_cq_sample cs = { (int32_t)i,
						    8 * (int64_t)i };

			vec_push(&res->cq_samples, cs);
			res->samples.items[i].free_hosts = 3;
			res->samples.items[i].free_block_hosts = 2;
			res->samples.items[i].free_rack_hosts = 1;
		}
	}
	f->runs[0].cq_preempted[SCHED_PREEMPT_IN_CLUSTER_QUEUE] = 1;
	strbuf_init(&sb);
	report_html_info(&f->in, f->runs, 2, &ri, &sb);
	assert_int_equal(count(sb.buf, "<svg"), 5 + 2 + 2 * 2);
	assert_non_null(strstr(sb.buf, "Command: <code>echelon sim --seed 3 "
				       "&lt;x&gt;</code><br>\nSeed: 3<br>\n"
				       "echelon 1.2.3</p>"));
	assert_non_null(strstr(sb.buf, "aria-label=\"cq-a: pending over "
				       "time\""));
	p = strstr(sb.buf, "aria-label=\"cq-a: usage against nominal quota\"");
	assert_non_null(p);
	/* the nominal quota's level, dashed, over the lines of both runs */
	assert_non_null(strstr(p, "nvidia.com/gpu in use, % of nominal"));
	assert_non_null(strstr(p, "stroke-dasharray"));
	assert_non_null(strstr(p, ">nominal quota<"));
	assert_non_null(strstr(sb.buf, "<td>1: InClusterQueue 1</td>"));
	assert_non_null(strstr(sb.buf, "aria-label=\"tas: free hosts over "
				       "time\""));
	assert_non_null(strstr(sb.buf, ">in one rack<"));
	assert_true(strstr(sb.buf, "<h2>Fragmentation</h2>") <
		    strstr(sb.buf, "<h2>Topology heat map</h2>"));
	for (size_t r = 0; r < 2; r++) {
		vec_release(&f->runs[r].cq_samples);
		free(f->runs[r].cq_nominal);
		free(f->runs[r].cq_preempted);
		f->runs[r].cq_nominal = f->runs[r].cq_preempted = NULL;
		f->runs[r].ncq = 0;
	}
	strbuf_release(&sb);
}

/* The longest points attribute of any polyline, in points. */
static size_t max_points(const char *s)
{
	size_t most = 0;

	for (const char *p = strstr(s, "points=\""); p;
	     p = strstr(p + 1, "points=\"")) {
		const char *end = strchr(p + 8, '"');
		size_t n = 1;

		for (const char *q = p + 8; q < end; q++)
			n += *q == ' ';
		most = n > most ? n : most;
	}
	return most;
}

/* 1,024 nodes, 4,000 jobs and 20,000 samples: lines are averaged down,
 * CDFs sampled, and the page stays under 1 MiB. */
static void test_report_large(void **state)
{
	struct fixture *f = *state;
	struct sim_result *r = &f->runs[0];
	struct sim_job_rec *recs = xcalloc(4000, sizeof(*recs));
	struct strbuf sb;

	for (int i = 4; i < 1024; i++) {
		char name[32];

		snprintf(name, sizeof(name), "gpu-%04d", i);
		add_node(f, name, 8);
	}
	f->in.node_place = NULL; /* all in "no topology", wrapped */
	r->node_busy_gpu_us =
		xreallocarray(r->node_busy_gpu_us, 1024, sizeof(int64_t));
	memset(r->node_busy_gpu_us, 0, 1024 * sizeof(int64_t));
	for (int i = 2; i < 4000; i++)
		add_job(f, 0, i * S, NULL, 1, 8);
	for (int i = 0; i < 4000; i++) {
		recs[i] = placed(SIM_JOB_FINISHED, i * S, i * S + i,
				 i * S + 7200 * S);
		recs[i].throughput_ratio = (i % 10) / 10.0;
	}
	r->jobs = recs;
	for (int i = 3; i < 20000; i++)
		add_sample(r, i * 60 * S, i % 1000, i % 900, i % 77, 1);
	r->span_us = 20000 * 60 * S;
	strbuf_init(&sb);
	report_html(&f->in, f->runs, 1, NULL, &sb);
	assert_true(sb.len < 1024 * 1024);
	assert_true(max_points(sb.buf) <= REPORT_MAX_SERIES_POINTS);
	assert_true(max_points(sb.buf) >= REPORT_MAX_SERIES_POINTS / 2);
	assert_int_equal(count(sb.buf, "<svg"), 5 + 2);
	assert_int_equal(count(sb.buf, "<title>gpu-"), 1020);
	assert_int_equal(count(sb.buf, "<tr><td>team-"), REPORT_MAX_JOB_ROWS);
	assert_non_null(strstr(sb.buf, "<p>50 of the 4000 jobs submitted "
				       "shown.</p>"));
	assert_non_null(strstr(sb.buf, "<title>echelon simulation</title>"));
	r->jobs = f->recs[0];
	free(recs);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_rate),
		cmocka_unit_test_setup_teardown(test_jsonl, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_hours_rounding, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_large, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_report_queues, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

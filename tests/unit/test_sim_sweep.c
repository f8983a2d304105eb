// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of sweeps of the throughput model: "KEY=V1,V2,..." parsed or
 * refused with the column at fault, values applied all or nothing, and
 * the exact bytes of the table and of the summary's "sweep" member for two
 * policies at two values built by hand.
 */
#include "sim/sim_sweep.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "sim/sim_out.h"
#include "testutil.h"

#include "base/banned.h"

static const struct {
	const char *text;
	const char *err; /* NULL: parses */
	size_t nvalues;
} parse_cases[] = {
	{ "comm-fraction=0.05,0.1,0.3", NULL, 3 },
	{ "oversub-block=1,2,4", NULL, 3 },
	{ "algo=ring,hierarchical", NULL, 2 },
	{ "share-tensor=0.3", NULL, 1 },
	{ "comm-fraction", "s:1:1: expected KEY=VALUE,VALUE,...", 0 },
	{ "=1,2", "s:1:1: expected KEY=VALUE,VALUE,...", 0 },
	{ "bogus=1", "s:1:1: bogus: unknown key", 0 },
	{ "comm-fraction=0.1,,0.3",
	  "s:1:19: comm-fraction: expected a value of 1 to 32 bytes", 0 },
	{ "comm-fraction=0.1,", "s:1:19: comm-fraction: expected a value", 0 },
	{ "comm-fraction=0.1,x",
	  "s:1:19: comm-fraction: must be a number of at least 0, not \"x\"",
	  0 },
	{ "comm-fraction=0.1,1.5",
	  "s:1:19: comm-fraction: commFraction: must be 0 (per class) or in "
	  "(0, 1]",
	  0 },
	{ "share-data=0.2,0.2", "s:1:16: share-data: \"0.2\" is listed twice",
	  0 },
	{ "overlap=0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1,0.01,0.02,0.03,"
	  "0.04,0.05,0.06",
	  "s:1:74: at most 16 values", 0 },
	{ "algo=ring,tree", "s:1:11: algo: must be ring or hierarchical", 0 },
};

static void test_parse(void **state)
{
	struct sim_sweep sw;
	struct errbuf eb;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(parse_cases); i++) {
		int rc = sim_sweep_parse(&sw, parse_cases[i].text, "s", &eb);

		if (!parse_cases[i].err) {
			if (rc != 0)
				fail_msg("%s: %s", parse_cases[i].text, eb.msg);
			assert_int_equal(sw.nvalues, parse_cases[i].nvalues);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		if (strncmp(eb.msg, parse_cases[i].err,
			    strlen(parse_cases[i].err)) != 0)
			fail_msg("%s: got \"%s\", want \"%s...\"",
				 parse_cases[i].text, eb.msg,
				 parse_cases[i].err);
	}
}

static void test_apply(void **state)
{
	struct throughput_config tp, before;
	struct sim_sweep sw;
	struct errbuf eb;

	(void)state;
	throughput_config_init(&tp);
	assert_int_equal(sim_sweep_parse(&sw, "oversub-block=1,3", "s", &eb),
			 0);
	assert_string_equal(sw.key, "oversub-block");
	assert_string_equal(sw.values[1], "3");
	assert_int_equal(sim_sweep_apply(&sw, 1, &tp, &eb), 0);
	assert_true(tp.link[THROUGHPUT_BLOCK].oversub == 3);
	assert_int_equal(sim_sweep_apply(&sw, 0, &tp, &eb), 0);
	assert_true(tp.link[THROUGHPUT_BLOCK].oversub == 1);
	/* valid on the defaults, not on this model: nothing applied */
	assert_int_equal(sim_sweep_parse(&sw, "comm-fraction=0", "s", &eb), 0);
	tp.compute_us = 0;
	tp.share[THROUGHPUT_DATA] = 2; /* broken by hand */
	before = tp;
	assert_int_equal(sim_sweep_apply(&sw, 0, &tp, &eb), -EINVAL);
	assert_string_equal(eb.msg, "comm-fraction=0: share.data: must be in "
				    "(0, 1)");
	assert_memory_equal(&tp, &before, sizeof(tp));
}

/* Two policies at two values: kube-default slower as the share grows. */
static void record(struct sim_sweep *sw)
{
	struct sim_result runs[2];
	struct errbuf eb;

	assert_int_equal(
		sim_sweep_parse(sw, "comm-fraction=0.1,0.3", "--sweep", &eb),
		0);
	memset(runs, 0, sizeof(runs));
	runs[0].policy = SIM_POLICY_TAS;
	runs[1].policy = SIM_POLICY_KUBE_DEFAULT;
	for (size_t v = 0; v < 2; v++) {
		for (size_t r = 0; r < 2; r++) {
			struct sim_summary *s = &runs[r].sum;

			s->mean_wait_s = 60 * (1 + (double)(v + r));
			s->p95_wait_s = 3600;
			s->mean_jct_s = 3600 * (1 + (double)(r * (v + 1)));
			s->gpu_utilization = 0.5 + 0.1 * (double)r;
			s->goodput = r ? 0.75 - 0.25 * (double)v : 0.99;
			s->mean_throughput_ratio = r ? 0.8 : 1;
			s->mean_multi_node_throughput_ratio = r ? 0.5 : -1;
			s->makespan_us = 86400000000;
		}
		sim_sweep_record(sw, v, runs, 2);
	}
}

static const char want_table[] =
	"tas, comm-fraction =      0.1      0.3\n"
	"mean wait             1.0 min  2.0 min\n"
	"p95 wait                1.0 h    1.0 h\n"
	"mean JCT                1.0 h    1.0 h\n"
	"GPU utilization        50.0 %   50.0 %\n"
	"goodput                99.0 %   99.0 %\n"
	"throughput vs ideal   100.0 %  100.0 %\n"
	"  multi-node jobs           -        -\n"
	"makespan                1.0 d    1.0 d\n"
	"\n"
	"kube-default, comm-fraction =      0.1      0.3\n"
	"mean wait                      2.0 min  3.0 min\n"
	"p95 wait                         1.0 h    1.0 h\n"
	"mean JCT                         2.0 h    3.0 h\n"
	"GPU utilization                 60.0 %   60.0 %\n"
	"goodput                         75.0 %   50.0 %\n"
	"throughput vs ideal             80.0 %   80.0 %\n"
	"  multi-node jobs               50.0 %   50.0 %\n"
	"makespan                         1.0 d    1.0 d\n"
	"\n"
	"kube-default / tas, comm-fraction =     0.1     0.3\n"
	"mean wait                            2.00 x  1.50 x\n"
	"p95 wait                             1.00 x  1.00 x\n"
	"mean JCT                             2.00 x  3.00 x\n"
	"GPU utilization                      1.20 x  1.20 x\n"
	"goodput                              0.76 x  0.51 x\n"
	"throughput vs ideal                  0.80 x  0.80 x\n"
	"  multi-node jobs                         -       -\n"
	"makespan                             1.00 x  1.00 x\n";

static void test_table(void **state)
{
	struct sim_sweep sw;
	struct strbuf sb;

	(void)state;
	record(&sw);
	strbuf_init(&sb);
	sim_sweep_table(&sw, &sb);
	if (strcmp(sb.buf, want_table) != 0)
		fail_msg("got:\n%s\nwant:\n%s", sb.buf, want_table);
	strbuf_release(&sb);
}

static void test_summary_json(void **state)
{
	static const char want[] =
		"  \"sweep\": {\n"
		"    \"key\": \"comm-fraction\",\n"
		"    \"values\": [\"0.1\", \"0.3\"],\n"
		"    \"policies\": {\n"
		"      \"tas\": {\n"
		"        \"mean_wait_s\": [60, 120],\n"
		"        \"p95_wait_s\": [3600, 3600],\n"
		"        \"mean_jct_s\": [3600, 3600],\n"
		"        \"gpu_utilization\": [0.5, 0.5],\n"
		"        \"goodput\": [0.99, 0.99],\n"
		"        \"mean_throughput_ratio\": [1, 1],\n"
		"        \"mean_multi_node_throughput_ratio\": [null, null],\n"
		"        \"makespan_s\": [86400, 86400]\n"
		"      },\n"
		"      \"kube-default\": {\n"
		"        \"mean_wait_s\": [120, 180],\n"
		"        \"p95_wait_s\": [3600, 3600],\n"
		"        \"mean_jct_s\": [7200, 10800],\n"
		"        \"gpu_utilization\": [0.6, 0.6],\n"
		"        \"goodput\": [0.75, 0.5],\n"
		"        \"mean_throughput_ratio\": [0.8, 0.8],\n"
		"        \"mean_multi_node_throughput_ratio\": [0.5, 0.5],\n"
		"        \"makespan_s\": [86400, 86400]\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n";
	struct sim_sweep sw;
	struct strbuf sb;
	const char *at;

	(void)state;
	record(&sw);
	strbuf_init(&sb);
	sim_out_summary_json_sweep(NULL, 0, &sw, &sb);
	at = strstr(sb.buf, "  \"sweep\"");
	assert_non_null(at);
	if (strcmp(at, want) != 0)
		fail_msg("got:\n%s\nwant:\n%s", at, want);
	/* without a sweep, no member */
	strbuf_reset(&sb);
	sim_out_summary_json_sweep(NULL, 0, NULL, &sb);
	assert_string_equal(sb.buf, "{\n  \"policies\": {}\n}\n");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_summary_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of a placement's modelled traffic: one gang admitted by the
 * scheduler as the daemon runs it, its /metrics series
 * (obs_placement_metrics()) against the simulator's record of the same
 * workload placed the same way, as a gang and pod by pod (no gang). Two
 * pods on two racks of one block send traffic out of their racks and none
 * out of the block, on two blocks out of both, on one host out of neither.
 */
#include "obs/obs_placement.h"

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
#include "manifest/manifest.h"
#include "sim/gen.h"
#include "sim/sim.h"
#include "testutil.h"

#include "base/banned.h"

#define S INT64_C(1000000)

struct traffic_case {
	const char *name;
	const char *spec; /* the cluster (gen_parse()) */
	int pods, gpus;	  /* of the gang: pods of gpus GPUs */
	bool rack, block; /* traffic out of its racks, out of its blocks */
};

static const struct traffic_case cases[] = {
	{ "2 pods on 2 racks of one block", "blocks=1,racks=2,hosts=1,gpus=8",
	  2, 8, true, false },
	{ "2 pods on 2 blocks", "blocks=2,racks=1,hosts=1,gpus=8", 2, 8, true,
	  true },
	{ "2 pods on one host", "blocks=1,racks=1,hosts=1,gpus=8", 2, 4, false,
	  false },
	{ "4 pods on 2 hosts of one rack", "blocks=1,racks=1,hosts=2,gpus=8", 4,
	  4, false, false },
};

/* The cluster of spec with queue sim (quota for every GPU) and workload
 * g of the case in it. */
static void build(struct cluster *c, const struct traffic_case *tc)
{
	struct gen_spec gs;
	struct errbuf eb = { 0 };
	struct strbuf y;
	struct diag d;

	cluster_init(c);
	assert_int_equal(gen_parse(tc->spec, NULL, &gs, &eb), 0);
	diag_init(&d);
	assert_int_equal(gen_build(c, &gs, &d), 0);
	strbuf_init(&y);
	strbuf_addf(&y,
		    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\n"
		    "metadata: {name: sim}\n"
		    "spec:\n  namespaceSelector: {}\n"
		    "  resourceGroups:\n"
		    "  - coveredResources: [\"nvidia.com/gpu\"]\n"
		    "    flavors: [{name: tas-gpu, resources: [{name: "
		    "nvidia.com/gpu, nominalQuota: 1000}]}]\n"
		    "---\napiVersion: kueue.x-k8s.io/v1beta1\n"
		    "kind: LocalQueue\n"
		    "metadata: {name: sim, namespace: default}\n"
		    "spec: {clusterQueue: sim}\n"
		    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\n"
		    "metadata: {name: g, namespace: default}\n"
		    "spec:\n  queueName: sim\n"
		    "  podSets:\n  - name: main\n    count: %d\n"
		    "    template: {spec: {containers: [{name: c, resources: "
		    "{requests: {nvidia.com/gpu: \"%d\"}}}]}}\n",
		    tc->pods, tc->gpus);
	assert_int_equal(manifest_load_buffer(c, "q.yaml", y.buf, y.len, &d),
			 0);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	strbuf_release(&y);
}

/* The value of series line (up to its value) in text. */
static double value_of(const char *text, const char *line)
{
	const char *p = strstr(text, line);

	if (!p)
		fail_msg("no series %s in\n%s", line, text);
	return strtod(p + strlen(line), NULL);
}

/* The daemon's figures of g: its series, and obs_placement_traffic(). */
static void serve_traffic(const struct traffic_case *tc, double *ret_rack,
			  double *ret_block)
{
	struct throughput_config model;
	struct cluster c;
	struct strbuf out;
	struct sched *s;
	double rack, block;
	uint32_t g;
	int gpu;

	build(&c, tc);
	g = (uint32_t)c.workloads.len - 1;
	gpu = resource_lookup(c.resources, "nvidia.com/gpu");
	s = sched_new(&c, NULL);
	sched_submit(s, g, 0);
	for (int k = 0; k < 10 && sched_cycle(s, 0, NULL); k++)
		;
	if (sched_wl_state(s, g) != SCHED_WL_ADMITTED)
		fail_msg("%s: g not admitted", tc->name);
	throughput_config_init(&model);
	strbuf_init(&out);
	obs_placement_metrics(s, &c, &model, &out);
	assert_true(obs_placement_traffic(s, &c, g, gpu, &model, ret_rack,
					  ret_block));
	rack = value_of(out.buf, "echelon_workload_cross_rack_bytes_per_second"
				 "{namespace=\"default\",name=\"g\"} ");
	block = value_of(out.buf,
			 "echelon_workload_cross_block_bytes_per_second"
			 "{namespace=\"default\",name=\"g\"} ");
	/* the series has six digits */
	assert_true(fabs(rack - *ret_rack) <= 1e-5 * *ret_rack);
	assert_true(fabs(block - *ret_block) <= 1e-5 * *ret_block);
	strbuf_release(&out);
	sched_free(s);
	cluster_release(&c);
}

/* The simulator's record of g under policy. */
static void sim_traffic(const struct traffic_case *tc, enum sim_policy policy,
			double *ret_rack, double *ret_block)
{
	struct errbuf eb = { 0 };
	struct sim_options o;
	struct sim_result res;
	struct sim_input in;
	struct cluster c;

	build(&c, tc);
	sim_input_init(&in, &c, NULL);
	assert_int_equal(sim_input_add_job(&in, (uint32_t)c.workloads.len - 1,
					   0, 3600 * S, NULL, &eb),
			 0);
	if (policy == SIM_POLICY_NO_GANG)
		assert_int_equal(sim_input_add_split(&in, &c, &eb), 0);
	sim_input_sort(&in);
	sim_options_init(&o);
	o.policy = policy;
	o.check = true;
	if (sim_run(&in, &o, &res, &eb) < 0)
		fail_msg("%s: %s", tc->name, eb.msg);
	assert_int_equal(res.jobs[0].state, SIM_JOB_FINISHED);
	*ret_rack = res.jobs[0].rack_bps;
	*ret_block = res.jobs[0].block_bps;
	sim_result_release(&res);
	sim_input_release(&in);
	cluster_release(&c);
}

static void test_sim_as_serve(void **state)
{
	static const enum sim_policy policies[] = { SIM_POLICY_TAS,
						    SIM_POLICY_NO_GANG };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct traffic_case *tc = &cases[i];
		double rack, block, sr, sb;

		serve_traffic(tc, &rack, &block);
		if ((rack > 0) != tc->rack || (block > 0) != tc->block ||
		    rack < 0 || block < 0 || block > rack)
			fail_msg("%s: rack %g, block %g B/s", tc->name, rack,
				 block);
		for (size_t p = 0; p < ARRAY_SIZE(policies); p++) {
			sim_traffic(tc, policies[p], &sr, &sb);
			if (sr != rack || sb != block)
				fail_msg("%s, %s: sim %.17g, %.17g B/s; "
					 "serve %.17g, %.17g",
					 tc->name, sim_policy_name(policies[p]),
					 sr, sb, rack, block);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_as_serve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Differential test of the scheduler's placement fast path (one pod
 * required at the hostname level, nothing filtering nodes) against the
 * placement engine: on random clusters with random usage, cordoned and
 * not-ready nodes, the node tas_fast_node() picks must be the node
 * place_workload() picks, and both must agree when nothing fits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "base/rng.h"
#include "sched/sched_int.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#define ROUNDS	 60
#define REQUESTS 40

static void gen(struct rng *r, struct strbuf *sb)
{
	unsigned racks = 1 + (unsigned)rng_below(r, 4);
	unsigned hosts = 1 + (unsigned)rng_below(r, 6);

	strbuf_addstr(sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			  "spec: {levels: [{nodeLabel: rack}, "
			  "{nodeLabel: kubernetes.io/hostname}]}\n");
	for (unsigned k = 0; k < racks; k++)
		for (unsigned h = 0; h < hosts; h++)
			strbuf_addf(sb,
				    "---\napiVersion: v1\nkind: Node\n"
				    "metadata: {name: n%u-%u, labels: {pool: "
				    "g, rack: "
				    "r%u, kubernetes.io/hostname: n%u-%u}}\n"
				    "status: {allocatable: {cpu: \"%u\", pods: "
				    "\"%u\", nvidia.com/gpu: \"%u\"}}\n",
				    k, h, k, k, h,
				    4 + (unsigned)rng_below(r, 29),
				    1 + (unsigned)rng_below(r, 9),
				    (unsigned)rng_below(r, 9));
	strbuf_addstr(sb,
		      "---\n" K2 "kind: ResourceFlavor\nmetadata: "
		      "{name: f}\nspec: {nodeLabels: {pool: g}, topologyName: "
		      "t}\n");
	strbuf_addstr(sb, "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
			  "spec:\n  resourceGroups:\n  - coveredResources: "
			  "[cpu, nvidia.com/gpu]\n    flavors: [{name: f, "
			  "resources: [{name: cpu, nominalQuota: 1000}, "
			  "{name: nvidia.com/gpu, nominalQuota: 1000}]}]\n");
	fx_lq(sb, "lq", "q");
	for (unsigned i = 0; i < REQUESTS; i++) {
		char name[16], cpu[8];

		snprintf(name, sizeof(name), "w%u", i);
		snprintf(cpu, sizeof(cpu), "%u", 1 + (unsigned)rng_below(r, 6));
		fx_wl(sb, name, "lq", 0, 1, cpu, (int)rng_below(r, 4),
		      "    topologyRequest: {required: "
		      "kubernetes.io/hostname}\n");
	}
}

/* The node the engine picks for w, or UINT32_MAX when it does not fit. */
static uint32_t engine(struct sched *s, const struct workload *w)
{
	const struct place_result *res;
	const struct topo *t = s->tas[0].t;

	s->no_fast = true;
	if (!tas_place(s, 0, w, NULL, false, NULL, NULL)) {
		s->no_fast = false;
		return UINT32_MAX;
	}
	s->no_fast = false;
	res = &s->last_check.r->ps[0].res;
	assert_int_equal(res->workers.len, 1);
	if (res->worker_nodes.len && res->worker_nodes.items[0] != UINT32_MAX)
		return res->worker_nodes.items[0];
	return t->dom_node[res->workers.items[0].unit];
}

static void test_against_engine(void **state)
{
	size_t compared = 0, fits = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= ROUNDS; seed++) {
		struct rng r;
		struct strbuf sb;
		struct cluster c;
		struct sched *s;
		struct topo *t;

		rng_seed(&r, seed);
		strbuf_init(&sb);
		gen(&r, &sb);
		fx_load(&c, sb.buf);
		strbuf_release(&sb);
		s = sched_new(&c, NULL);
		t = s->tas[0].t;
		for (uint32_t n = 0; n < t->nnodes; n++) {
			struct resvec u;

			resvec_zero(&u);
			u.v[RESOURCE_CPU] = (int64_t)rng_below(&r, 5) * 1000;
			topo_node_add_usage(t, n, &u, 1);
			if (rng_below(&r, 8) == 0)
				topo_node_set_unschedulable(t, n, true);
			if (rng_below(&r, 10) == 0)
				topo_node_set_ready(t, n, false);
		}
		for (uint32_t i = 0; i < c.workloads.len; i++) {
			const struct workload *w = &c.workloads.items[i];
			uint32_t fast = tas_fast_node(s, 0, w, NULL);
			uint32_t slow = engine(s, w);

			assert_int_equal(fast, slow);
			compared++;
			fits += fast != UINT32_MAX;
			if (fast != UINT32_MAX && rng_below(&r, 2))
				topo_node_add_usage(t, fast,
						    &w->podsets[0].requests, 1);
		}
		sched_free(s);
		cluster_release(&c);
	}
	assert_true(compared == ROUNDS * REQUESTS && fits > compared / 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_engine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

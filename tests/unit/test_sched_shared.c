// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of TAS flavors whose nodeLabels select the same nodes. Each flavor
 * has its own topology index, but a node has one capacity: what one
 * flavor's admission takes must be gone from every index that holds the
 * node, and what a release gives back must wake the queues of every such
 * flavor. Flavor fa selects the nodes labelled a: "1", fb those labelled
 * b: "1"; every node has 4 CPUs and every workload asks for one CPU on one
 * host, with quota for all of them: only the nodes limit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "test_sched_fixture.h"
#include "testutil.h"
#include "topo/topo.h"

#include "base/banned.h"

#define HOST "    topologyRequest: {required: kubernetes.io/hostname}\n"

struct shared_case {
	const char *name;
	const char *nodes[4]; /* per node: the flavors selecting it */
	bool one_cq;	      /* one queue lists both, else a: fa, b: fb */
	int wa, wb;	      /* workloads in queue a and b */
	int admitted;	      /* after the first cycles */
};

static const struct shared_case cases[] = {
	{ "same nodes, one queue", { "ab", "ab" }, true, 12, 0, 8 },
	{ "same nodes, two queues", { "ab", "ab" }, false, 6, 6, 8 },
	{ "one node shared", { "a", "ab", "b" }, false, 10, 10, 12 },
	{ "disjoint", { "a", "b" }, false, 6, 6, 8 },
};

static void cq(struct strbuf *sb, const char *name, const char *flavors)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: %s}\n"
		    "spec:\n  resourceGroups:\n"
		    "  - coveredResources: [cpu]\n    flavors:\n",
		    name);
	for (const char *f = flavors; *f; f++)
		strbuf_addf(sb,
			    "    - {name: f%c, resources: [{name: cpu, "
			    "nominalQuota: 1000}]}\n",
			    *f);
	fx_lq(sb, name, name);
}

static void load(struct cluster *c, const struct shared_case *tc)
{
	struct strbuf sb;
	char name[16];

	strbuf_init(&sb);
	fx_two_flavors(&sb, tc->nodes, ARRAY_SIZE(tc->nodes));
	if (tc->one_cq) {
		cq(&sb, "a", "ab");
	} else {
		cq(&sb, "a", "a");
		cq(&sb, "b", "b");
	}
	for (int i = 0; i < tc->wa + tc->wb; i++) {
		snprintf(name, sizeof(name), "w%02d", i);
		fx_wl(&sb, name, i < tc->wa ? "a" : "b", 0, 1, "1", 0, HOST);
	}
	fx_load(c, sb.buf);
	strbuf_release(&sb);
}

/*
 * Every index is consistent, no node is over its CPUs, and a node held by
 * both indexes has the same free capacity in each; returns the CPUs in
 * use over all nodes (each counted once).
 */
static int64_t check_nodes(const struct sched *s, const struct cluster *c,
			   const char *tc)
{
	const struct topo *t[2];
	int64_t used = 0;
	struct strbuf why;

	strbuf_init(&why);
	for (int f = 0; f < 2; f++) {
		t[f] = sched_topo(s, f);
		assert_non_null(t[f]);
		if (!topo_check(t[f], &why))
			fail_msg("%s: index %d: %s", tc, f, why.buf);
	}
	for (size_t n = 0; n < c->nodes.len; n++) {
		const char *name = c->nodes.items[n].name;
		int64_t free_cpu = -1;

		for (int f = 0; f < 2; f++) {
			int64_t k = topo_find_node(t[f], name);
			int64_t v;

			if (k < 0)
				continue;
			v = t[f]->node_free[k * t[f]->nres + RESOURCE_CPU];
			if (v < 0)
				fail_msg("%s: %s over capacity", tc, name);
			if (free_cpu >= 0 && v != free_cpu)
				fail_msg("%s: %s free %lld in one index, %lld "
					 "in the other",
					 tc, name, (long long)free_cpu,
					 (long long)v);
			if (free_cpu < 0)
				used += t[f]->node_alloc[k * t[f]->nres +
							 RESOURCE_CPU] -
					v;
			free_cpu = v;
		}
	}
	strbuf_release(&why);
	return used;
}

static int count_admitted(const struct sched *s, const struct cluster *c)
{
	int n = 0;

	for (uint32_t i = 0; i < c->workloads.len; i++)
		n += sched_wl_state(s, i) == SCHED_WL_ADMITTED;
	return n;
}

static void test_shared_nodes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct shared_case *tc = &cases[i];
		struct sched_decisions d;
		struct cluster c;
		struct sched *s;
		int64_t one, cap;
		int n, left;

		load(&c, tc);
		s = sched_new(&c, NULL);
		sched_decisions_init(&d);
		fx_run(s, &c, &d);
		n = count_admitted(s, &c);
		if (n != tc->admitted)
			fail_msg("%s: %d admitted, want %d", tc->name, n,
				 tc->admitted);
		one = check_nodes(s, &c, tc->name) / n;
		cap = (int64_t)tc->admitted;
		/* Every admitted workload finishes: the rest take the
		 * capacity back, whichever flavor released it. */
		for (uint32_t k = 0; k < c.workloads.len; k++) {
			if (sched_wl_state(s, k) == SCHED_WL_ADMITTED)
				sched_finish(s, k, 1);
		}
		assert_int_equal(check_nodes(s, &c, tc->name), 0);
		for (int k = 0; k < 100 && sched_cycle(s, 1, &d); k++)
			;
		left = tc->wa + tc->wb - tc->admitted;
		n = count_admitted(s, &c);
		if (n != (left < cap ? left : (int)cap))
			fail_msg("%s: %d admitted after the release, want %d",
				 tc->name, n, left < cap ? left : (int)cap);
		assert_int_equal(check_nodes(s, &c, tc->name), n * one);
		sched_decisions_release(&d);
		sched_free(s);
		cluster_release(&c);
	}
}

/* A pod that moves (a replaced pod of a gang) moves in both indexes. */
static void test_move_shared(void **state)
{
	static const struct shared_case tc = { "move", { "ab", "ab" },
					       true,   1,
					       0,      1 };
	const struct sched_admission *adm;
	struct sched_decisions d;
	struct cluster c;
	struct sched *s;
	const char *from, *to;
	const struct topo *t;

	(void)state;
	load(&c, &tc);
	s = sched_new(&c, NULL);
	sched_decisions_init(&d);
	fx_run(s, &c, &d);
	assert_true(fx_admitted(s, &c, "w00"));
	adm = sched_wl_admission(s, fx_id(&c, "w00"));
	t = sched_topo(s, adm->ps[0].tas_flavor);
	from = t->node_src[adm->ps[0].nodes[0]]->name;
	to = strcmp(from, "n0") == 0 ? "n1" : "n0";
	assert_int_equal(sched_move_pod(s, fx_id(&c, "w00"), 0, to, 2), 0);
	assert_int_equal(check_nodes(s, &c, "move"), 1000);
	for (int f = 0; f < 2; f++) {
		const struct topo *u = sched_topo(s, f);
		int64_t k = topo_find_node(u, to);

		assert_int_equal(u->node_free[k * u->nres + RESOURCE_CPU],
				 3000);
	}
	sched_decisions_release(&d);
	sched_free(s);
	cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_nodes),
		cmocka_unit_test(test_move_shared),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

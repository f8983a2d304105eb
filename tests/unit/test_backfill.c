// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of reservations and backfill (src/sched/backfill.c) on a small
 * cluster of two racks of two one-GPU nodes: a gang of two pods that must
 * share a rack waits while one node of each rack is busy, reserves the
 * rack that frees up first, and a late job may start on the reserved
 * node only when it is expected to end before the reservation starts or
 * outranks the gang. And the queue order backfill gives a batch of
 * workloads submitted at once: longest expected runtime first.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "test_sched_fixture.h"
#include "testutil.h"

#define S 1000000LL

struct late_case {
	const char *what;
	int prio;	/* the gang's is 1 */
	int64_t est_us; /* 0: none */
	bool admitted;
};

static const struct late_case late_cases[] = {
	{ "ends before the reservation starts", 0, 500 * S, true },
	{ "ends after it", 0, 5000 * S, false },
	{ "without an estimate", 0, 0, false },
	{ "outranks the gang", 5, 5000 * S, true },
};

static void world(struct cluster *c, int late_prio)
{
	struct strbuf sb;

	strbuf_init(&sb);
	for (int i = 0; i < 4; i++)
		strbuf_addf(&sb,
			    "---\napiVersion: v1\nkind: Node\n"
			    "metadata: {name: n%d, labels: {pool: g, "
			    "rack: r%d, kubernetes.io/hostname: n%d}}\n"
			    "status: {allocatable: {cpu: \"8\", pods: \"10\", "
			    "nvidia.com/gpu: \"1\"}}\n",
			    i, i / 2, i);
	strbuf_addstr(&sb,
		      "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
		      "spec: {levels: [{nodeLabel: rack}, "
		      "{nodeLabel: kubernetes.io/hostname}]}\n"
		      "---\n" K2 "kind: ResourceFlavor\nmetadata: "
		      "{name: f}\nspec: {nodeLabels: {pool: g}, "
		      "topologyName: t}\n"
		      "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
		      "spec:\n  resourceGroups:\n"
		      "  - coveredResources: [cpu, nvidia.com/gpu]\n"
		      "    flavors: [{name: f, resources: [{name: cpu, "
		      "nominalQuota: 1000}, {name: nvidia.com/gpu, "
		      "nominalQuota: 8}]}]\n");
	fx_lq(&sb, "lq", "q");
	for (int i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "p%d", i);
		fx_wl(&sb, name, "lq", 0, 1, "1", 1,
		      "    topologyRequest: {required: rack}\n");
	}
	fx_wl(&sb, "g", "lq", 1, 2, "1", 1,
	      "    topologyRequest: {required: rack}\n");
	fx_wl(&sb, "filler", "lq", 0, 1, "2", 1,
	      "    topologyRequest: {required: rack}\n");
	fx_wl(&sb, "late", "lq", late_prio, 1, "3", 1,
	      "    topologyRequest: {required: rack}\n");
	fx_load(c, sb.buf);
	strbuf_release(&sb);
}

/* The rack (0, 1) of wl's only pod. */
static int rack_of(const struct sched *s, uint32_t wl)
{
	const struct sched_admission *a = sched_wl_admission(s, wl);
	const struct topo *t;

	assert_non_null(a);
	t = sched_topo(s, a->ps[0].tas_flavor);
	return t->node_src[a->ps[0].nodes[0]]->name[1] - '0' >= 2;
}

static void test_late_job(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(late_cases); i++) {
		const struct late_case *tc = &late_cases[i];
		struct sched_options o = { .compact = true, .backfill = true };
		uint32_t p[4], g, filler, late, keep[2] = { 0, 0 };
		bool seen[2] = { false, false };
		const uint32_t *nodes;
		struct sched *s;
		struct cluster c;
		int64_t start;
		size_t n;

		world(&c, tc->prio);
		s = sched_new(&c, &o);
		for (int k = 0; k < 4; k++) {
			char name[8];

			snprintf(name, sizeof(name), "p%d", k);
			p[k] = fx_id(&c, name);
			sched_submit(s, p[k], 0);
		}
		sched_cycle(s, 0, NULL);
		/* one job of each rack ends; the other one of rack 0 is
		 * expected to end at 1000 s, of rack 1 at 3000 s */
		for (int k = 0; k < 4; k++) {
			int r = rack_of(s, p[k]);

			if (!seen[r]) {
				seen[r] = true;
				sched_finish(s, p[k], 5 * S);
			} else {
				keep[r] = p[k];
			}
		}
		sched_wl_set_estimate(s, keep[0], 1000 * S);
		sched_wl_set_estimate(s, keep[1], 3000 * S);
		g = fx_id(&c, "g");
		sched_submit(s, g, 10 * S);
		sched_cycle(s, 10 * S, NULL);
		assert_int_equal(sched_wl_state(s, g), SCHED_WL_PENDING);
		assert_int_equal(sched_wl_reservation(s, g, &start, &nodes, &n),
				 0);
		assert_int_equal(start, 1000 * S);
		assert_int_equal(n, 2); /* rack 0's nodes */
		/* a long job takes the free node of rack 1, not rack 0's */
		filler = fx_id(&c, "filler");
		sched_wl_set_estimate(s, filler, 5000 * S);
		sched_submit(s, filler, 20 * S);
		sched_cycle(s, 20 * S, NULL);
		assert_int_equal(sched_wl_state(s, filler), SCHED_WL_ADMITTED);
		assert_int_equal(rack_of(s, filler), 1);
		late = fx_id(&c, "late");
		if (tc->est_us)
			sched_wl_set_estimate(s, late, tc->est_us);
		sched_submit(s, late, 30 * S);
		sched_cycle(s, 30 * S, NULL);
		if ((sched_wl_state(s, late) == SCHED_WL_ADMITTED) !=
		    tc->admitted)
			fail_msg("late job that %s: admitted %d, want %d",
				 tc->what,
				 sched_wl_state(s, late) == SCHED_WL_ADMITTED,
				 tc->admitted);
		/* the gang starts when rack 0's job ends, unless a job that
		 * outranks it holds the rack */
		sched_finish(s, keep[0], 1000 * S);
		sched_cycle(s, 1000 * S, NULL);
		if (tc->admitted && tc->prio == 0)
			sched_finish(s, late, 1000 * S);
		sched_cycle(s, 1000 * S, NULL);
		assert_int_equal(sched_wl_state(s, g) == SCHED_WL_ADMITTED,
				 tc->prio == 0);
		assert_int_equal(sched_backfill_stats(s).reservations, 1);
		assert_int_equal(sched_backfill_stats(s).delayed, 0);
		sched_free(s);
		cluster_release(&c);
	}
}

struct order_case {
	const char *what;
	bool backfill;
	int64_t est_s[5];    /* p0..p3, late; 0: none */
	int64_t submit_s[5]; /* queue timestamps */
	const char *left;    /* the one of the five that does not fit */
};

static const struct order_case order_cases[] = {
	{ "without backfill, submission order",
	  false,
	  { 100, 200, 300, 400, 500 },
	  { 0, 0, 0, 0, 0 },
	  "late" },
	{ "a batch goes longest expected first",
	  true,
	  { 100, 200, 300, 400, 500 },
	  { 0, 0, 0, 0, 0 },
	  "p0" },
	{ "the shortest of a batch waits wherever it was submitted",
	  true,
	  { 500, 400, 50, 300, 200 },
	  { 0, 0, 0, 0, 0 },
	  "p2" },
	{ "no estimate: expected never to end, first",
	  true,
	  { 0, 200, 300, 400, 50 },
	  { 0, 0, 0, 0, 0 },
	  "late" },
	{ "older first whatever the estimates (FIFO)",
	  true,
	  { 100, 200, 300, 400, 500 },
	  { 0, 1, 2, 3, 4 },
	  "late" },
};

/* Five one-pod workloads for four one-GPU nodes, submitted together or
 * in turn: which one is left waiting. */
static void test_batch_order(void **state)
{
	static const char *const names[] = { "p0", "p1", "p2", "p3", "late" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(order_cases); i++) {
		const struct order_case *tc = &order_cases[i];
		struct sched_options o = { .compact = true,
					   .backfill = tc->backfill };
		struct sched *s;
		struct cluster c;
		const char *left = NULL;
		int waiting = 0;

		world(&c, 0);
		s = sched_new(&c, &o);
		for (int k = 0; k < 5; k++) {
			uint32_t id = fx_id(&c, names[k]);

			if (tc->est_s[k])
				sched_wl_set_estimate(s, id, tc->est_s[k] * S);
			sched_submit(s, id, tc->submit_s[k] * S);
		}
		sched_cycle(s, 10 * S, NULL);
		for (int k = 0; k < 5; k++) {
			if (sched_wl_state(s, fx_id(&c, names[k])) ==
			    SCHED_WL_ADMITTED)
				continue;
			waiting++;
			left = names[k];
		}
		if (waiting != 1 || strcmp(left, tc->left) != 0)
			fail_msg("%s: %d waiting, the last %s; want %s",
				 tc->what, waiting, left ? left : "none",
				 tc->left);
		sched_free(s);
		cluster_release(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_job),
		cmocka_unit_test(test_batch_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

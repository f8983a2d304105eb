// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the workload driver over a cluster's TAS flavors
 * (place_flavors_place): the flavor walk (the ClusterQueue's TAS flavors
 * in order, else all; the first that fits whole wins, else the first
 * failure is the answer) and one usage per node whatever flavors select
 * it, for new workloads and for the kept assignments of admitted ones.
 * Flavor fa selects the nodes labelled a: "1", fb those labelled b: "1";
 * every node has 4 CPUs; every workload asks for one CPU per pod on one
 * host, so a node takes at most 4 pods.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "place/place_flavors.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#include "base/banned.h"

#define HOST "    topologyRequest: {required: kubernetes.io/hostname}\n"

/* An admission of pod set main on node n0 with count pods, on fa. */
#define ADMITTED(count)                                                        \
	"status:\n  admission:\n    clusterQueue: q\n"                         \
	"    podSetAssignments:\n    - name: main\n      count: " count        \
	"\n      flavors: {cpu: fa}\n      topologyAssignment:\n"              \
	"        levels: [kubernetes.io/hostname]\n"                           \
	"        domains: [{values: [n0], count: " count "}]\n"

struct walk_case {
	const char *name;
	const char *nodes[3]; /* per node: the flavors selecting it */
	const char *queue;    /* the CQ's flavors, in order; NULL: none */
	const char *admitted; /* a first workload's ADMITTED(), or NULL */
	int first, second;    /* pods of the workloads to place in turn */
	/* per workload to place: its flavor ('a', 'b' or '-') and fit */
	const char *want;
};

static const struct walk_case cases[] = {
	/* no queue: every TAS flavor in order */
	{ "walk", { "a", "b" }, NULL, NULL, 4, 4, "a+ b+" },
	{ "queue order", { "a", "b" }, "ba", NULL, 4, 4, "b+ a+" },
	{ "queue lists one", { "a", "b" }, "b", NULL, 4, 4, "b+ b-" },
	/* shared nodes: what fa took is gone for fb */
	{ "shared", { "ab" }, NULL, NULL, 3, 2, "a+ a-" },
	{ "shared, room left", { "ab", "b" }, NULL, NULL, 4, 4, "a+ b+" },
	/* an admitted assignment on fa holds n0 in fb's index too */
	{ "admitted", { "ab" }, "b", ADMITTED("3"), 0, 2, "- b-" },
	{ "admitted, room", { "ab" }, "b", ADMITTED("2"), 0, 2, "- b+" },
};

static void load(struct cluster *c, const struct walk_case *tc)
{
	struct strbuf sb;

	strbuf_init(&sb);
	fx_two_flavors(&sb, tc->nodes, ARRAY_SIZE(tc->nodes));
	if (tc->queue) {
		strbuf_addstr(&sb, "---\n" K2 "kind: ClusterQueue\n"
				   "metadata: {name: q}\nspec:\n"
				   "  resourceGroups:\n"
				   "  - coveredResources: [cpu]\n"
				   "    flavors:\n");
		for (const char *f = tc->queue; *f; f++)
			strbuf_addf(&sb,
				    "    - {name: f%c, resources: [{name: "
				    "cpu, nominalQuota: 100}]}\n",
				    *f);
		fx_lq(&sb, "q", "q");
	}
	if (tc->admitted) {
		fx_wl(&sb, "w0", "q", 0, 4, "1", 0, HOST);
		strbuf_addstr(&sb, tc->admitted);
	} else {
		fx_wl(&sb, "w0", tc->queue ? "q" : "none", 0, tc->first, "1", 0,
		      HOST);
	}
	fx_wl(&sb, "w1", tc->queue ? "q" : "none", 0, tc->second, "1", 0, HOST);
	fx_load(c, sb.buf);
	strbuf_release(&sb);
}

static void test_walk(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct walk_case *tc = &cases[i];
		struct place_flavors pf;
		struct strbuf got;
		struct cluster c;

		load(&c, tc);
		place_flavors_init(&pf, &c);
		strbuf_init(&got);
		for (size_t k = 0; k < c.workloads.len; k++) {
			const struct workload *w = &c.workloads.items[k];
			struct place_decision d;

			place_decision_init(&d);
			place_flavors_place(&pf, w, PLACE_POLICY_TAS, &d);
			if (d.admitted) {
				strbuf_addstr(&got, "- ");
			} else {
				strbuf_addf(&got, "%c%c ",
					    d.flavor < 0
						    ? '-'
						    : c.flavors.items[d.flavor]
							      .name[1],
					    d.r.fit ? '+' : '-');
			}
			place_decision_release(&d);
		}
		strbuf_truncate(&got, got.len - 1);
		if (strcmp(got.buf, tc->want) != 0)
			fail_msg("%s: got \"%s\", want \"%s\"", tc->name,
				 got.buf, tc->want);
		for (int32_t f = 0; f < (int32_t)c.flavors.len; f++) {
			struct strbuf why;

			strbuf_init(&why);
			if (!topo_check(pf.t[f], &why))
				fail_msg("%s: %s", tc->name, why.buf);
			strbuf_release(&why);
		}
		strbuf_release(&got);
		place_flavors_release(&pf);
		cluster_release(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

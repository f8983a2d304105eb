// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of placements as topologyAssignments (place_assignment.c) and of
 * their one encoder (enc_topology_assignment): Kueue's levels (the
 * hostname alone when it is the lowest level, else every level), one
 * domain per unit with its values and count, the nodes of pods grouped by
 * unit in unit order, and the JSON text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "manifest/enc.h"
#include "place/place_assignment.h"
#include "test_place_fixture.h"
#include "testutil.h"

#include "base/banned.h"

struct assign_case {
	const char *levels; /* fx_init() */
	const char *nodes;  /* paths, space-separated */
	const char *pods;   /* node index of each pod, e.g. "2 0 2" */
	const char *want;   /* the encoded assignment */
};

static const struct assign_case cases[] = {
	/* hostname lowest: the hostname level only, units in node order */
	{ "rack,kubernetes.io/hostname", "r1/h1 r1/h2 r2/h3", "2 0 2 2",
	  "{\"levels\": [\"kubernetes.io/hostname\"], \"domains\": "
	  "[{\"values\": [\"h1\"], \"count\": 1}, "
	  "{\"values\": [\"h3\"], \"count\": 3}]}" },
	/* other lowest level: every level, nodes summed into their unit */
	{ "block,rack", "b1/r1 b1/r1 b1/r2 b2/r3", "3 1 0 2",
	  "{\"levels\": [\"block\", \"rack\"], \"domains\": "
	  "[{\"values\": [\"b1\", \"r1\"], \"count\": 2}, "
	  "{\"values\": [\"b1\", \"r2\"], \"count\": 1}, "
	  "{\"values\": [\"b2\", \"r3\"], \"count\": 1}]}" },
	/* no pod: no domain */
	{ "kubernetes.io/hostname", "h1", "",
	  "{\"levels\": [\"kubernetes.io/hostname\"], \"domains\": []}" },
};

static void test_assignment(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct assign_case *tc = &cases[i];
		struct topology_assignment *ta;
		uint32_t pods[16];
		size_t npods = 0;
		char buf[256], *save = NULL, *text;
		struct topo *t;
		struct fx f;
		json_t *j;

		fx_init(&f, tc->levels);
		snprintf(buf, sizeof(buf), "%s", tc->nodes);
		for (char *p = strtok_r(buf, " ", &save); p;
		     p = strtok_r(NULL, " ", &save))
			fx_node(&f, p, 8, 0, 10);
		t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
		snprintf(buf, sizeof(buf), "%s", tc->pods);
		for (char *p = strtok_r(buf, " ", &save); p;
		     p = strtok_r(NULL, " ", &save)) {
			int64_t n = topo_find_node(
				t, f.nodes[strtol(p, NULL, 10)].name);

			assert_true(n >= 0);
			pods[npods++] = (uint32_t)n;
		}
		ta = place_assignment_of_nodes(t, pods, npods);
		j = enc_topology_assignment(ta);
		text = json_dumps(j, JSON_PRESERVE_ORDER);
		if (strcmp(text, tc->want) != 0)
			fail_msg("case %zu:\n got %s\nwant %s", i, text,
				 tc->want);
		free(text);
		json_decref(j);
		topology_assignment_free(ta);
		topo_free(t);
		fx_release(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assignment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The topology index: depth-first node order, dense domain ids per level in
 * value order, contiguous ranges, flavor filtering, and aggregates that stay
 * equal to a from-scratch recomputation after every random change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "base/rng.h"
#include "model/flavor.h"
#include "test_place_fixture.h"

#include "base/banned.h"

static void test_build_order(void **state)
{
	static const char *const paths[] = {
		"b2/r1/h5", "b1/r2/h3", "b1/r1/h2",
		"b2/r1/h4", "b1/r1/h1", "b1/r2/h0"
	};
	static const char *const want[] = {
		"h1", "h2", "h0", "h3", "h4", "h5"
	};
	struct fx f;
	struct topo *t;

	(void)state;
	fx_init(&f, "block,rack,kubernetes.io/hostname");
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		fx_node(&f, paths[i], 4, 8, 110);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	assert_int_equal(t->nnodes, 6);
	assert_true(t->hostname_lowest);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(t->node_src[i]->name, want[i]);
	/* 2 blocks, 3 racks, 6 hosts */
	assert_int_equal(t->level_off[1] - t->level_off[0], 2);
	assert_int_equal(t->level_off[2] - t->level_off[1], 3);
	assert_int_equal(t->level_off[3] - t->level_off[2], 6);
	assert_string_equal(t->dom_value[0], "b1");
	assert_string_equal(t->dom_value[1], "b2");
	assert_int_equal(t->dom_nnodes[0], 4);
	assert_int_equal(t->dom_node[1], 4);
	assert_int_equal(t->dom_nchildren[0], 2);
	assert_int_equal(t->dom_child[1], t->level_off[1] + 2);
	assert_int_equal(t->dom_live[0], 4);
	assert_int_equal(t->dom_free[0 * t->nres + RESOURCE_CPU], 16000);
	assert_int_equal(t->dom_free[1 * t->nres + f.gpu], 16);
	assert_int_equal(topo_find_node(t, "h3"), 3);
	assert_int_equal(topo_find_node(t, "nope"), -1);
	assert_int_equal(topo_dom_level(t, t->level_off[2]), 2);
	assert_true(topo_check(t, NULL));
	topo_free(t);
	fx_release(&f);
}

static void test_flavor_filter(void **state)
{
	struct fx f;
	struct flavor fl;
	struct topo *t;
	struct node *n;

	(void)state;
	fx_init(&f, "rack,kubernetes.io/hostname");
	flavor_init(&fl);
	labels_set(&fl.node_labels, "pool", "gpu");
	n = fx_node(&f, "r1/h1", 4, 8, 110);
	labels_set(&n->labels, "pool", "gpu");
	n = fx_node(&f, "r1/h2", 4, 8, 110);
	labels_set(&n->labels, "pool", "cpu");
	n = fx_node(&f, "r2/h3", 4, 8, 110);
	labels_set(&n->labels, "pool", "gpu");
	/* no rack label: not in the tree */
	n = fx_node(&f, "h4", 4, 8, 110);
	labels_set(&n->labels, "pool", "gpu");
	t = topo_new(&f.topology, &fl, f.nodes, f.nnodes, &f.reg);
	assert_int_equal(t->nnodes, 2);
	assert_int_equal(topo_find_node(t, "h2"), -1);
	assert_int_equal(topo_find_node(t, "h4"), -1);
	topo_free(t);
	flavor_release(&fl);
	fx_release(&f);
}

static void test_non_hostname_units(void **state)
{
	struct fx f;
	struct topo *t;
	struct resvec use = { { 0 } };

	(void)state;
	fx_init(&f, "block,rack");
	fx_node(&f, "b1/r1", 4, 8, 110)->name = "n1";
	fx_node(&f, "b1/r1", 4, 8, 110)->name = "n2";
	fx_node(&f, "b1/r2", 4, 8, 110)->name = "n3";
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	assert_false(t->hostname_lowest);
	assert_int_equal(t->level_off[2] - t->level_off[1], 2);
	assert_int_equal(t->dom_nnodes[t->level_off[1]], 2);
	assert_int_equal(t->dom_free[t->level_off[1] * t->nres + f.gpu], 16);
	/* an over-committed node counts negative inside its unit */
	use.v[f.gpu] = 10;
	topo_node_add_usage(t, 0, &use, 1);
	assert_int_equal(t->dom_free[t->level_off[1] * t->nres + f.gpu], 6);
	assert_int_equal(t->dom_free[0 * t->nres + f.gpu], 14);
	use.v[f.gpu] = 8;
	topo_node_add_usage(t, 1, &use, 1);
	assert_int_equal(t->dom_free[t->level_off[1] * t->nres + f.gpu], -2);
	assert_int_equal(t->dom_free[0 * t->nres + f.gpu], 8);
	assert_true(topo_check(t, NULL));
	topo_free(t);
	fx_release(&f);
}

static void random_change(struct topo *t, struct fx *f, struct rng *g)
{
	uint32_t n = (uint32_t)rng_below(g, t->nnodes);
	struct resvec v = { { 0 } };

	switch (rng_below(g, 6)) {
	case 0:
	case 1:
		v.v[RESOURCE_CPU] = (int64_t)rng_below(g, 3000);
		v.v[f->gpu] = (int64_t)rng_below(g, 4);
		v.v[RESOURCE_PODS] = 1;
		topo_node_add_usage(t, n, &v, rng_below(g, 2) ? 1 : -1);
		break;
	case 2:
		topo_node_set_ready(t, n, rng_below(g, 2));
		break;
	case 3:
		topo_node_set_unschedulable(t, n, rng_below(g, 2));
		break;
	case 4:
		topo_node_set_removed(t, n, rng_below(g, 3) == 0);
		break;
	default:
		v.v[RESOURCE_CPU] = (int64_t)rng_below(g, 8000);
		v.v[f->gpu] = (int64_t)rng_below(g, 9);
		v.v[RESOURCE_PODS] = 110;
		topo_node_set_allocatable(t, n, &v);
		break;
	}
}

static void random_cluster(struct fx *f, struct rng *g, size_t nnodes)
{
	char path[64];

	for (size_t i = 0; i < nnodes; i++) {
		struct node *n;

		snprintf(path, sizeof(path), "b%d/r%d/h%zu",
			 (int)rng_below(g, 3), (int)rng_below(g, 3), i);
		n = fx_node(f, path, (int)rng_below(g, 8), (int)rng_below(g, 9),
			    110);
		if (f->topology.nlevels == 2)
			n->name = fx_str(f, path);
	}
}

static void test_random_aggregates(void **state)
{
	struct rng g;
	struct strbuf why;

	(void)state;
	rng_seed(&g, 42);
	strbuf_init(&why);
	for (int round = 0; round < 40; round++) {
		struct fx f;
		struct topo *t;

		fx_init(&f, round % 2 ? "block,rack,kubernetes.io/hostname"
				      : "block,rack");
		random_cluster(&f, &g, 1 + rng_below(&g, 40));
		t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
		for (int i = 0; i < 300; i++) {
			random_change(t, &f, &g);
			if (!topo_check(t, &why))
				fail_msg("round %d step %d: %s", round, i,
					 why.buf);
		}
		topo_free(t);
		fx_release(&f);
	}
	strbuf_release(&why);
}

/* Brute force: the smallest number of level-l domains, any of them, whose
 * empty nodes hold count pods of req; all of them when none do. */
static int32_t fewest_brute(const struct topo *t, unsigned l,
			    const struct resvec *req, int32_t count)
{
	uint32_t lo = t->level_off[l], n = t->level_off[l + 1] - lo;
	int64_t cap[16] = { 0 };
	int32_t best = (int32_t)n;

	assert_true(n <= 16);
	for (uint32_t d = 0; d < n; d++) {
		for (uint32_t i = 0; i < t->dom_nnodes[lo + d]; i++) {
			uint32_t node = t->dom_node[lo + d] + i;
			int64_t k = INT32_MAX;

			for (int r = 0; r < t->nres; r++) {
				int64_t a =
					t->node_alloc[(size_t)node *
							      (size_t)t->nres +
						      (size_t)r];

				if (req->v[r] > 0 && a / req->v[r] < k)
					k = a / req->v[r];
			}
			cap[d] += k;
		}
	}
	for (uint32_t set = 1; set < (1u << n); set++) {
		int64_t sum = 0;

		for (uint32_t d = 0; d < n; d++)
			sum += set >> d & 1 ? cap[d] : 0;
		if (sum >= count && __builtin_popcount(set) < best)
			best = __builtin_popcount(set);
	}
	return count <= 0 || n == 0 ? 1 : best;
}

/* topo_fewest_domains() and its memo against brute force, on random
 * clusters, several requests sharing one memo. */
static void test_fewest_domains(void **state)
{
	struct rng g;

	(void)state;
	rng_seed(&g, 7);
	for (int round = 0; round < 60; round++) {
		struct topo_fewest_memo memo;
		struct fx f;
		struct topo *t;

		fx_init(&f, "block,rack,kubernetes.io/hostname");
		random_cluster(&f, &g, 1 + rng_below(&g, 14));
		t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
		topo_fewest_memo_init(&memo);
		for (int q = 0; q < 40; q++) {
			struct resvec req;
			unsigned l = (unsigned)rng_below(&g, 3);
			int32_t count = (int32_t)rng_below(&g, 60);
			int32_t want;

			resvec_zero(&req);
			req.v[RESOURCE_CPU] =
				500 * (1 + (int64_t)rng_below(&g, 3));
			req.v[f.gpu] = (int64_t)rng_below(&g, 3);
			want = fewest_brute(t, l, &req, count);
			assert_int_equal(topo_fewest_domains(t, l, &req, count),
					 want);
			assert_int_equal(topo_fewest_domains_memo(&memo, t, l,
								  &req, count),
					 want);
		}
		topo_fewest_memo_release(&memo);
		topo_free(t);
		fx_release(&f);
	}
}

static void test_add_node_rebuilds(void **state)
{
	struct fx f;
	struct topo *t;
	struct resvec use = { { 0 } };
	struct node *extra;

	(void)state;
	fx_init(&f, "rack,kubernetes.io/hostname");
	fx_node(&f, "r1/h1", 4, 8, 110);
	fx_node(&f, "r2/h3", 4, 8, 110);
	extra = fx_node(&f, "r1/h2", 4, 8, 110);
	t = topo_new(&f.topology, NULL, f.nodes, 2, &f.reg);
	use.v[f.gpu] = 3;
	topo_node_add_usage(t, (uint32_t)topo_find_node(t, "h3"), &use, 1);
	topo_node_set_ready(t, (uint32_t)topo_find_node(t, "h1"), false);
	assert_int_equal(topo_add_node(t, NULL, extra), 0);
	assert_int_equal(topo_add_node(t, NULL, extra), -EEXIST);
	assert_int_equal(t->nnodes, 3);
	assert_int_equal(topo_find_node(t, "h2"), 1);
	assert_false(topo_node_live(t, 0));
	assert_int_equal(t->dom_free[1 * t->nres + f.gpu], 5);
	assert_int_equal(t->dom_free[0 * t->nres + f.gpu], 8);
	assert_true(topo_check(t, NULL));
	topo_free(t);
	fx_release(&f);
}

/*
 * Idle nodes (live, nothing allocated) per domain follow usage, readiness,
 * cordons and removal: one row per change, with the idle count of b1, r1
 * (under b1) and the whole of b2 after it.
 */
static void test_idle_nodes(void **state)
{
	static const struct {
		const char *what;
		uint32_t node; /* index in depth-first order */
		int op;	       /* 0 usage, 1 release, 2 NotReady, 3 Ready,
				  4 cordon, 5 remove, 6 add back */
		int64_t gpu;
		uint32_t b1, r1, b2;
	} rows[] = {
		{ "start", 0, -1, 0, 3, 2, 1 },
		{ "a pod on h1", 0, 0, 1, 2, 1, 1 },
		{ "a second pod on h1", 0, 0, 1, 2, 1, 1 },
		{ "one released", 0, 1, 1, 2, 1, 1 },
		{ "the last released", 0, 1, 1, 3, 2, 1 },
		{ "h3 NotReady", 2, 2, 0, 2, 2, 1 },
		{ "h3 Ready again", 2, 3, 0, 3, 2, 1 },
		{ "h4 cordoned", 3, 4, 0, 3, 2, 0 },
		{ "h2 removed", 1, 5, 0, 2, 1, 0 },
		{ "h2 back", 1, 6, 0, 3, 2, 0 },
	};
	struct fx f;
	struct topo *t;

	(void)state;
	fx_init(&f, "block,rack,kubernetes.io/hostname");
	fx_node(&f, "b1/r1/h1", 4, 8, 110);
	fx_node(&f, "b1/r1/h2", 4, 8, 110);
	fx_node(&f, "b1/r2/h3", 4, 8, 110);
	fx_node(&f, "b2/r3/h4", 4, 8, 110);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct resvec use = { { 0 } };
		uint32_t n = rows[i].node;

		use.v[f.gpu] = rows[i].gpu;
		switch (rows[i].op) {
		case 0:
		case 1:
			topo_node_add_usage(t, n, &use, rows[i].op ? -1 : 1);
			break;
		case 2:
		case 3:
			topo_node_set_ready(t, n, rows[i].op == 3);
			break;
		case 4:
			topo_node_set_unschedulable(t, n, true);
			break;
		case 5:
		case 6:
			topo_node_set_removed(t, n, rows[i].op == 5);
			break;
		default:
			break;
		}
		if (t->dom_idle[0] != rows[i].b1 ||
		    t->dom_idle[t->level_off[1]] != rows[i].r1 ||
		    t->dom_idle[1] != rows[i].b2)
			fail_msg("%s: idle b1 %u r1 %u b2 %u", rows[i].what,
				 t->dom_idle[0], t->dom_idle[t->level_off[1]],
				 t->dom_idle[1]);
		assert_true(topo_check(t, NULL));
	}
	topo_free(t);
	fx_release(&f);
}

/* The check itself notices a wrong aggregate, and removal stops counting. */
static void test_check_and_removal(void **state)
{
	struct fx f;
	struct topo *t;
	struct strbuf why;

	(void)state;
	fx_init(&f, "rack,kubernetes.io/hostname");
	fx_node(&f, "r1/h1", 4, 8, 110);
	fx_node(&f, "r1/h2", 4, 8, 110);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	topo_node_set_removed(t, 0, true);
	assert_int_equal(t->dom_live[0], 1);
	assert_int_equal(t->dom_free[0 * t->nres + f.gpu], 8);
	assert_true(topo_check(t, NULL));
	topo_node_set_removed(t, 0, false);
	assert_int_equal(t->dom_free[0 * t->nres + f.gpu], 16);
	t->dom_free[0 * t->nres + f.gpu]++;
	strbuf_init(&why);
	assert_false(topo_check(t, &why));
	assert_string_equal(why.buf, "domain 0 (r1): aggregates differ");
	strbuf_release(&why);
	topo_free(t);
	fx_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_order),
		cmocka_unit_test(test_flavor_filter),
		cmocka_unit_test(test_non_hostname_units),
		cmocka_unit_test(test_random_aggregates),
		cmocka_unit_test(test_add_node_rebuilds),
		cmocka_unit_test(test_check_and_removal),
		cmocka_unit_test(test_idle_nodes),
		cmocka_unit_test(test_fewest_domains),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

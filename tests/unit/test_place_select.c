// SPDX-License-Identifier: Apache-2.0
/*
 * Placement without sorting a level (one scan for a single fitting domain,
 * a bounded selection for the greedy walk) against the full sort Kueue
 * does, kept as the reference behind req->sorted: random clusters of up to
 * 300 nodes, where a gang spans many units and most units are full, every
 * mode, algorithm, leader and slice option, fresh and with a result reused
 * while the index changes. Both must give the same answer, byte for byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "test_place_fixture.h"

#include "base/banned.h"

#define ROUNDS 3000

static const char *const level_sets[] = {
	"block,rack,kubernetes.io/hostname", "rack,kubernetes.io/hostname",
	"kubernetes.io/hostname",
	"block,rack", /* units of several nodes, capacity summed */
};

static const struct taint taint_a = { "a", NULL, TAINT_NO_SCHEDULE };
static const struct toleration tol_a = { "a",	TOLERATION_EXISTS,
					 NULL,	-1,
					 false, 0 };

/* Nodes with 0-8 GPUs, a third of them full, a few unusable. */
static void make_nodes(struct fx *f, struct rng *g, size_t n)
{
	char path[64];

	for (size_t i = 0; i < n; i++) {
		int gpu = (int)rng_below(g, 9);
		struct node *nd;

		snprintf(path, sizeof(path), "b%d/r%d/h%zu",
			 (int)rng_below(g, 3), (int)rng_below(g, 6), i);
		if (f->topology.nlevels == 2 &&
		    topology_lowest_is_hostname(&f->topology))
			snprintf(path, sizeof(path), "r%d/h%zu",
				 (int)rng_below(g, 8), i);
		else if (f->topology.nlevels == 1)
			snprintf(path, sizeof(path), "h%zu", i);
		nd = fx_node(f, path, 1 + (int)rng_below(g, 8), gpu, 110);
		if (rng_below(g, 3) == 0)
			nd->usage.v[f->gpu] = gpu;
		else
			nd->usage.v[f->gpu] = (int64_t)rng_below(g, 3);
		nd->usage.v[RESOURCE_CPU] = (int64_t)rng_below(g, 3000);
		labels_set(&nd->labels, "pool", rng_below(g, 6) ? "a" : "b");
		if (rng_below(g, 10) == 0)
			node_add_taint(nd, &taint_a);
		nd->ready = rng_below(g, 15) != 0;
		nd->unschedulable = rng_below(g, 15) == 0;
	}
}

static void same_nodes(const struct place_nodes *a, const struct place_nodes *b)
{
	assert_int_equal(a->len, b->len);
	for (size_t i = 0; i < a->len; i++)
		assert_int_equal(a->items[i], b->items[i]);
}

static void same_assign(const struct place_result *a,
			const struct place_result *b)
{
	assert_int_equal(a->workers.len, b->workers.len);
	for (size_t i = 0; i < a->workers.len; i++) {
		assert_int_equal(a->workers.items[i].unit,
				 b->workers.items[i].unit);
		assert_int_equal(a->workers.items[i].count,
				 b->workers.items[i].count);
	}
	assert_int_equal(a->leader.len, b->leader.len);
	for (size_t i = 0; i < a->leader.len; i++) {
		assert_int_equal(a->leader.items[i].unit,
				 b->leader.items[i].unit);
		assert_int_equal(a->leader.items[i].count,
				 b->leader.items[i].count);
	}
}

static void same_result(const struct place_result *a,
			const struct place_result *b)
{
	assert_int_equal(a->fit, b->fit);
	assert_string_equal(a->reason.buf, b->reason.buf);
	if (a->fit)
		assert_int_equal(a->level, b->level);
	same_assign(a, b);
	same_nodes(&a->worker_nodes, &b->worker_nodes);
	same_nodes(&a->leader_nodes, &b->leader_nodes);
}

/*
 * Place req with the scan and selection, fast pass and cache on (into
 * warm), with the fast pass off, and with the reference full sort; the
 * three must agree.
 */
static void check_against_sort(const struct topo *t, struct place_request *req,
			       struct place_result *warm)
{
	struct place_result ex, ref;

	place_result_init(&ex);
	place_result_init(&ref);
	req->exhaustive = false;
	req->sorted = false;
	place_podset(t, req, warm);
	req->exhaustive = true;
	place_podset(t, req, &ex);
	req->sorted = true;
	place_podset(t, req, &ref);
	same_result(&ex, &ref);
	same_result(warm, &ref);
	req->exhaustive = false;
	req->sorted = false;
	place_result_release(&ex);
	place_result_release(&ref);
}

static const enum topology_mode modes[] = {
	TOPOLOGY_REQUIRED,	TOPOLOGY_PREFERRED, TOPOLOGY_UNCONSTRAINED,
	TOPOLOGY_UNCONSTRAINED, TOPOLOGY_NONE,	    TOPOLOGY_NONE,
};

/* A random pod set: mostly gangs larger than one unit holds. */
static void random_podset(struct fx *f, struct rng *g, struct podset *ps)
{
	int nl = (int)f->topology.nlevels;
	enum topology_mode m = modes[rng_below(g, ARRAY_SIZE(modes))];
	int level = (int)rng_below(g, (uint64_t)nl);
	int count = 1 + (int)rng_below(g, rng_below(g, 2) ? 4 : 60);

	fx_podset(f, ps, count, (int)rng_below(g, 2), (int)rng_below(g, 3), m,
		  m == TOPOLOGY_REQUIRED || m == TOPOLOGY_PREFERRED
			  ? f->topology.levels[level]
			  : NULL);
	if (rng_below(g, 5) == 0)
		labels_set(&ps->node_selector, "pool", "a");
	if (rng_below(g, 4) == 0) {
		/* slices; with no mode, slice-only (the highest level) */
		int sl = m == TOPOLOGY_REQUIRED || m == TOPOLOGY_PREFERRED
				 ? level + (int)rng_below(
						   g, (uint64_t)(nl - level))
				 : (int)rng_below(g, (uint64_t)nl);
		int ss = 1 + (int)rng_below(g, 3);

		ps->count = ss * (1 + (int)rng_below(g, 12));
		ps->topology.slices[0].level = f->topology.levels[sl];
		ps->topology.slices[0].size = ss;
		ps->topology.nslices = 1;
	}
}

static void one_round(struct rng *g, int round)
{
	struct fx f;
	struct topo *t;
	struct podset ps, leader;
	struct place_request req;
	struct place_result res;
	struct placement_config cfg = { (enum placement_algorithm)(round % 4),
					rng_below(g, 4) == 0, false };
	bool with_leader = rng_below(g, 4) == 0;

	fx_init(&f, level_sets[rng_below(g, ARRAY_SIZE(level_sets))]);
	make_nodes(&f, g, 1 + rng_below(g, rng_below(g, 2) ? 20 : 300));
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	random_podset(&f, g, &ps);
	place_request_init(&req, &ps);
	req.config = &cfg;
	req.flavor_tolerations = &tol_a;
	req.nflavor_tolerations = rng_below(g, 2);
	if (with_leader) {
		fx_podset(&f, &leader, 1, 1 + (int)rng_below(g, 4),
			  (int)rng_below(g, 2), ps.topology.mode,
			  ps.topology.level);
		req.leader = &leader;
	}
	place_result_init(&res);
	check_against_sort(t, &req, &res);
	place_result_release(&res);
	if (with_leader)
		podset_release(&leader);
	podset_release(&ps);
	topo_free(t);
	fx_release(&f);
}

static void test_random_clusters(void **state)
{
	struct rng g;

	(void)state;
	rng_seed(&g, 20261130);
	for (int i = 0; i < ROUNDS; i++)
		one_round(&g, i);
}

/*
 * One result per shape reused while usage, readiness and applied
 * placements change the index: the greedy walk leaves full units out of
 * its list, so their cached counts must stay right.
 */
static void test_reuse(void **state)
{
	struct rng g;
	struct fx f;
	struct topo *t;
	struct podset shapes[6], leader;
	struct place_result warm[6];
	struct placement_config cfg[4] = {
		{ PLACEMENT_MIXED, false, false },
		{ PLACEMENT_BEST_FIT, false, false },
		{ PLACEMENT_LEAST_FREE_CAPACITY, false, false },
		{ PLACEMENT_FRAGMENTATION_AWARE, false, false },
	};

	(void)state;
	rng_seed(&g, 5);
	fx_init(&f, "block,rack,kubernetes.io/hostname");
	make_nodes(&f, &g, 240);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	fx_podset(&f, &shapes[0], 1, 1, 1, TOPOLOGY_NONE, NULL);
	fx_podset(&f, &shapes[1], 1, 0, 4, TOPOLOGY_NONE, NULL);
	fx_podset(&f, &shapes[2], 24, 1, 2, TOPOLOGY_UNCONSTRAINED, NULL);
	fx_podset(&f, &shapes[3], 12, 1, 1, TOPOLOGY_NONE, NULL);
	fx_podset(&f, &shapes[4], 1, 1, 1, TOPOLOGY_REQUIRED,
		  "kubernetes.io/hostname");
	fx_podset(&f, &shapes[5], 30, 1, 1, TOPOLOGY_PREFERRED,
		  "kubernetes.io/hostname");
	fx_podset(&f, &leader, 1, 2, 0, TOPOLOGY_NONE, NULL);
	for (int i = 0; i < 6; i++)
		place_result_init(&warm[i]);
	for (int i = 0; i < 3000; i++) {
		size_t s = rng_below(&g, 6);
		struct place_request req;
		uint32_t n = (uint32_t)rng_below(&g, t->nnodes);
		struct resvec one = { { 0 } };

		one.v[f.gpu] = 1 + (int64_t)rng_below(&g, 4);
		one.v[RESOURCE_PODS] = 1;
		if (rng_below(&g, 3))
			topo_node_add_usage(t, n, &one,
					    rng_below(&g, 2) ? 1 : -1);
		else
			topo_node_set_ready(t, n, rng_below(&g, 5) != 0);
		place_request_init(&req, &shapes[s]);
		req.config = &cfg[rng_below(&g, 4)];
		req.leader = s == 3 ? &leader : NULL;
		check_against_sort(t, &req, &warm[s]);
		if (warm[s].fit && rng_below(&g, 3) == 0)
			place_apply(t, &req, &warm[s], 1);
	}
	assert_true(topo_check(t, NULL));
	for (int i = 0; i < 6; i++) {
		podset_release(&shapes[i]);
		place_result_release(&warm[i]);
	}
	podset_release(&leader);
	topo_free(t);
	fx_release(&f);
}

struct scase {
	const char *name;
	const char *levels;
	const char *nodes; /* "path=gpus[,cpus]" */
	enum topology_mode mode;
	int count;
	enum placement_algorithm algo;
	int leader_cpu; /* a leader asking this many cpus; 0: none */
	const char *want;
};

/* Gangs spread over units, where the selection replaces the sort. */
static const struct scase cases[] = {
	{ "LeastFreeCapacity: full hosts left out, smallest first",
	  "kubernetes.io/hostname", "h1=0 h2=3 h3=0 h4=1 h5=2 h6=0",
	  TOPOLOGY_NONE, 5, PLACEMENT_MIXED, 0, "h2:2 h4:1 h5:2" },
	{ "LeastFreeCapacity: ties by name", "kubernetes.io/hostname",
	  "h1=2 h2=1 h3=2 h4=1", TOPOLOGY_UNCONSTRAINED, 3, PLACEMENT_MIXED, 0,
	  "h1:1 h2:1 h4:1" },
	{ "LeastFreeCapacity: one host that fits exactly wins",
	  "kubernetes.io/hostname", "h1=8 h2=3 h3=4 h4=3", TOPOLOGY_NONE, 3,
	  PLACEMENT_MIXED, 0, "h2:3" },
	{ "BestFit unconstrained: largest first, tightest last",
	  "kubernetes.io/hostname", "h1=1 h2=5 h3=2 h4=4 h5=0",
	  TOPOLOGY_UNCONSTRAINED, 10, PLACEMENT_BEST_FIT, 0, "h1:1 h2:5 h4:4" },
	{ "BestFit unconstrained: not enough anywhere",
	  "kubernetes.io/hostname", "h1=1 h2=5 h3=0", TOPOLOGY_UNCONSTRAINED, 7,
	  PLACEMENT_BEST_FIT, 0,
	  "topology \"default\" allows to fit only 6 out of 7 pod(s). Total "
	  "nodes: 3; excluded: resource \"nvidia.com/gpu\": 1" },
	{ "LeastFreeCapacity: leader first, then workers smallest first",
	  "kubernetes.io/hostname", "h1=4,8 h2=1,0 h3=2,0 h4=0,8",
	  TOPOLOGY_NONE, 6, PLACEMENT_MIXED, 2, "Lh4:1 | h1:3 h2:1 h3:2" },
	{ "BestFit: the leader's host swapped for a tighter one",
	  "kubernetes.io/hostname", "h1=5,8 h2=4,0 h3=1,0",
	  TOPOLOGY_UNCONSTRAINED, 4, PLACEMENT_BEST_FIT, 2, NULL },
	{ "rack units: summed capacity, full racks left out", "block,rack",
	  "b1/r1/h1=0 b1/r1/h2=0 b1/r2/h3=1 b1/r2/h4=1 b2/r3/h5=4",
	  TOPOLOGY_NONE, 5, PLACEMENT_MIXED, 0, "r2:2 r3:3" },
};

/* "path=gpus[,cpus]" separated by spaces. */
static void parse_nodes(struct fx *f, const char *spec)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		char *comma = strchr(eq + 1, ',');
		int cpu = comma ? (int)strtol(comma + 1, NULL, 10) : 8;

		*eq = '\0';
		fx_node(f, tok, cpu, (int)strtol(eq + 1, NULL, 10), 110);
	}
}

static void run_case(const struct scase *c)
{
	struct fx f;
	struct topo *t;
	struct podset ps, leader;
	struct place_request req;
	struct place_result res;
	struct placement_config cfg = { c->algo, false, false };
	struct strbuf got;

	fx_init(&f, c->levels);
	parse_nodes(&f, c->nodes);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	fx_podset(&f, &ps, c->count, 0, 1, c->mode, NULL);
	fx_podset(&f, &leader, 1, c->leader_cpu, 0, c->mode, NULL);
	place_request_init(&req, &ps);
	req.config = &cfg;
	req.leader = c->leader_cpu ? &leader : NULL;
	place_result_init(&res);
	check_against_sort(t, &req, &res);
	strbuf_init(&got);
	fx_format(t, &res, &got);
	if (c->want && strcmp(got.buf, c->want))
		fail_msg("%s: got \"%s\", want \"%s\"", c->name, got.buf,
			 c->want);
	strbuf_release(&got);
	place_result_release(&res);
	podset_release(&ps);
	podset_release(&leader);
	topo_free(t);
	fx_release(&f);
}

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_random_clusters),
		cmocka_unit_test(test_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

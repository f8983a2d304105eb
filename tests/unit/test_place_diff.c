// SPDX-License-Identifier: Apache-2.0
/*
 * Differential tests of placement on thousands of small random clusters
 * (up to 3 levels, 12 nodes, taints, selectors, NotReady and cordoned
 * nodes, prior usage): a required placement is found exactly when a
 * brute-force search over the original node structs finds one, every
 * placement is valid (one domain, per-node capacity, whole slices, the
 * right count), preferred and unconstrained fit exactly when the whole
 * flavor has room, and the fast pass agrees with the exhaustive one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/rng.h"
#include "model/selector.h"
#include "test_place_fixture.h"

#include "base/banned.h"

#define ROUNDS 4000

static const char *const level_sets[] = {
	"block,rack,kubernetes.io/hostname",
	"rack,kubernetes.io/hostname",
	"kubernetes.io/hostname",
};

static const struct taint taint_a = { "a", NULL, TAINT_NO_SCHEDULE };
static const struct taint taint_soft = { "s", "x", TAINT_PREFER_NO_SCHEDULE };
static const struct toleration tol_a = { "a",	TOLERATION_EXISTS,
					 NULL,	-1,
					 false, 0 };

struct world {
	struct fx f;
	struct podset ps;
	bool tolerate;
};

static void make_world(struct world *w, struct rng *g)
{
	const char *levels = level_sets[rng_below(g, 3)];
	size_t n = 1 + rng_below(g, 12);
	char path[64];

	fx_init(&w->f, levels);
	for (size_t i = 0; i < n; i++) {
		struct node *nd;

		snprintf(path, sizeof(path), "b%d/r%d/h%zu",
			 (int)rng_below(g, 2), (int)rng_below(g, 3), i);
		if (w->f.topology.nlevels == 2)
			snprintf(path, sizeof(path), "r%d/h%zu",
				 (int)rng_below(g, 3), i);
		else if (w->f.topology.nlevels == 1)
			snprintf(path, sizeof(path), "h%zu", i);
		nd = fx_node(&w->f, path, (int)rng_below(g, 9),
			     (int)rng_below(g, 9), 2 + (int)rng_below(g, 8));
		nd->usage.v[w->f.gpu] = (int64_t)rng_below(g, 3);
		nd->usage.v[RESOURCE_CPU] = (int64_t)rng_below(g, 2000);
		labels_set(&nd->labels, "pool", rng_below(g, 6) ? "a" : "b");
		if (rng_below(g, 8) == 0)
			node_add_taint(nd, &taint_a);
		if (rng_below(g, 8) == 0)
			node_add_taint(nd, &taint_soft);
		nd->ready = rng_below(g, 12) != 0;
		nd->unschedulable = rng_below(g, 12) == 0;
	}
	w->tolerate = rng_below(g, 2);
}

/* Does node nd accept the pod set at all (filters, readiness)? */
static bool node_ok(const struct world *w, const struct node *nd)
{
	const struct podset *ps = &w->ps;

	if (!node_schedulable(nd))
		return false;
	if (taint_find_untolerated(nd->taints, nd->ntaints, &tol_a,
				   w->tolerate ? 1 : 0))
		return false;
	return labels_contains_all(&nd->labels, &ps->node_selector);
}

/* Whether node a is in the same domain of `level` as node b. */
static bool same_domain(const struct world *w, const struct node *a,
			const struct node *b, int level)
{
	for (int l = 0; l <= level; l++) {
		const char *k = w->f.topology.levels[l];

		if (strcmp(labels_get(&a->labels, k),
			   labels_get(&b->labels, k)))
			return false;
	}
	return true;
}

/* Pods that fit on one node, placed one by one. */
static int node_capacity(const struct world *w, const struct node *nd)
{
	struct resvec fr = nd->allocatable;
	int n = 0;

	if (!node_ok(w, nd))
		return 0;
	resvec_sub(&fr, &nd->usage);
	while (n < 1000 && resvec_fits(&w->ps.requests, &fr)) {
		resvec_sub(&fr, &w->ps.requests);
		n++;
	}
	return n;
}

/*
 * Slices (of size ss at slice level sl) that fit in the domain of `level`
 * containing node `rep`, brute force over the node structs.
 */
static int domain_slices(const struct world *w, const struct node *rep,
			 int level, int sl, int ss)
{
	const struct fx *f = &w->f;
	bool seen[FX_MAX_NODES] = { false };
	int slices = 0;

	for (size_t i = 0; i < f->nnodes; i++) {
		int pods = 0;

		if (seen[i] || !same_domain(w, &f->nodes[i], rep, level))
			continue;
		for (size_t j = i; j < f->nnodes; j++) {
			if (seen[j] ||
			    !same_domain(w, &f->nodes[j], &f->nodes[i], sl))
				continue;
			seen[j] = true;
			pods += node_capacity(w, &f->nodes[j]);
		}
		slices += pods / ss;
	}
	return slices;
}

/* Brute force: does some domain of `level` hold count / ss slices? */
static bool brute_required(const struct world *w, int level, int sl, int ss,
			   int count)
{
	for (size_t i = 0; i < w->f.nnodes; i++) {
		if (domain_slices(w, &w->f.nodes[i], level, sl, ss) >=
		    count / ss)
			return true;
	}
	return false;
}

static bool brute_anywhere(const struct world *w, int sl, int ss, int count)
{
	int total = 0;
	bool seen_root[FX_MAX_NODES] = { false };

	for (size_t i = 0; i < w->f.nnodes; i++) {
		if (seen_root[i])
			continue;
		for (size_t j = i; j < w->f.nnodes; j++)
			if (same_domain(w, &w->f.nodes[j], &w->f.nodes[i], 0))
				seen_root[j] = true;
		total += domain_slices(w, &w->f.nodes[i], 0, sl, ss);
	}
	return total >= count / ss;
}

/* A fitting result: right count, per-node capacity, one domain when
 * required, whole slices per slice domain. */
static void check_valid(const struct world *w, const struct topo *t,
			const struct place_result *res, int level, int sl,
			int ss, int count)
{
	const struct node *first = NULL;
	int total = 0;

	for (size_t i = 0; i < res->workers.len; i++) {
		uint32_t u = res->workers.items[i].unit;
		const struct node *nd = t->node_src[t->dom_node[u]];
		int c = res->workers.items[i].count;

		assert_true(c > 0 && c <= node_capacity(w, nd));
		if (i)
			assert_true(u > res->workers.items[i - 1].unit);
		if (!first)
			first = nd;
		if (level >= 0)
			assert_true(same_domain(w, nd, first, level));
		total += c;
	}
	assert_int_equal(total, count);
	for (size_t i = 0; ss > 1 && i < res->workers.len; i++) {
		const struct node *a =
			t->node_src[t->dom_node[res->workers.items[i].unit]];
		int in = 0;

		for (size_t j = 0; j < res->workers.len; j++) {
			const struct node *b =
				t->node_src[t->dom_node[res->workers.items[j]
								.unit]];

			if (same_domain(w, a, b, sl))
				in += res->workers.items[j].count;
		}
		assert_int_equal(in % ss, 0);
	}
}

static void random_request(struct world *w, struct rng *g, int *level, int *sl,
			   int *ss)
{
	int nl = (int)w->f.topology.nlevels;
	static const enum topology_mode modes[] = {
		TOPOLOGY_REQUIRED, TOPOLOGY_REQUIRED, TOPOLOGY_PREFERRED,
		TOPOLOGY_UNCONSTRAINED, TOPOLOGY_NONE
	};
	enum topology_mode m = modes[rng_below(g, ARRAY_SIZE(modes))];

	*level = (int)rng_below(g, (uint64_t)nl);
	*sl = nl - 1;
	*ss = 1;
	fx_podset(&w->f, &w->ps, 1 + (int)rng_below(g, 12),
		  (int)rng_below(g, 2), (int)rng_below(g, 3), m,
		  m == TOPOLOGY_REQUIRED || m == TOPOLOGY_PREFERRED
			  ? w->f.topology.levels[*level]
			  : NULL);
	if (rng_below(g, 4) == 0)
		labels_set(&w->ps.node_selector, "pool", "a");
	if (m != TOPOLOGY_NONE && m != TOPOLOGY_UNCONSTRAINED &&
	    rng_below(g, 3) == 0) {
		*sl = *level + (int)rng_below(g, (uint64_t)(nl - *level));
		*ss = 1 + (int)rng_below(g, 3);
		w->ps.count = *ss * (1 + (int)rng_below(g, 4));
		w->ps.topology.slices[0].level = w->f.topology.levels[*sl];
		w->ps.topology.slices[0].size = *ss;
		w->ps.topology.nslices = 1;
	}
}

static void same_result(const struct place_result *a,
			const struct place_result *b)
{
	assert_int_equal(a->fit, b->fit);
	assert_string_equal(a->reason.buf, b->reason.buf);
	assert_int_equal(a->workers.len, b->workers.len);
	assert_int_equal(a->leader.len, b->leader.len);
	for (size_t i = 0; i < a->leader.len; i++)
		assert_int_equal(a->leader.items[i].unit,
				 b->leader.items[i].unit);
	for (size_t i = 0; i < a->workers.len; i++) {
		assert_int_equal(a->workers.items[i].unit,
				 b->workers.items[i].unit);
		assert_int_equal(a->workers.items[i].count,
				 b->workers.items[i].count);
	}
}

static void one_round(struct rng *g, enum placement_algorithm algo)
{
	struct world w;
	struct topo *t;
	struct place_request req;
	struct place_result res, ex;
	struct placement_config cfg = { algo, false, false };
	int level, sl, ss;
	bool want;

	make_world(&w, g);
	t = topo_new(&w.f.topology, NULL, w.f.nodes, w.f.nnodes, &w.f.reg);
	random_request(&w, g, &level, &sl, &ss);
	cfg.balanced = rng_below(g, 3) == 0;
	place_request_init(&req, &w.ps);
	req.config = &cfg;
	req.flavor_tolerations = &tol_a;
	req.nflavor_tolerations = w.tolerate ? 1 : 0;
	place_result_init(&res);
	place_result_init(&ex);
	if (rng_below(g, 4) == 0) {
		/* a leader: only the fast and exhaustive passes are compared */
		struct podset leader;

		fx_podset(&w.f, &leader, 1, 1, 1, w.ps.topology.mode,
			  w.ps.topology.level);
		req.leader = &leader;
		place_podset(t, &req, &res);
		req.exhaustive = true;
		place_podset(t, &req, &ex);
		same_result(&res, &ex);
		podset_release(&leader);
		goto out;
	}
	place_podset(t, &req, &res);
	req.exhaustive = true;
	place_podset(t, &req, &ex);
	same_result(&res, &ex);
	if (w.ps.topology.mode == TOPOLOGY_REQUIRED)
		want = brute_required(&w, level, sl, ss, w.ps.count);
	else
		want = brute_anywhere(&w, sl, ss, w.ps.count);
	if (res.fit != want)
		fail_msg("mode %s level %d count %d: placement says %d (%s), "
			 "brute force %d",
			 topology_mode_name(w.ps.topology.mode), level,
			 w.ps.count, res.fit, res.reason.buf, want);
	if (res.fit)
		check_valid(&w, t, &res,
			    w.ps.topology.mode == TOPOLOGY_REQUIRED ? level
								    : -1,
			    sl, ss, w.ps.count);
out:
	place_result_release(&res);
	place_result_release(&ex);
	podset_release(&w.ps);
	topo_free(t);
	fx_release(&w.f);
}

static void test_differential(void **state)
{
	struct rng g;

	(void)state;
	rng_seed(&g, 7);
	for (int i = 0; i < ROUNDS; i++)
		one_round(&g, (enum placement_algorithm)(i % 4));
}

/*
 * One result reused across many placements, with the index changing in
 * between (usage, readiness, applied placements): the cached counts must
 * give the answer a fresh, exhaustive computation gives.
 */
static void test_cache_reuse(void **state)
{
	struct rng g;
	struct fx f;
	struct topo *t;
	struct podset shapes[7];
	struct podset leader;
	struct place_result warm, ex;
	char path[64];

	(void)state;
	rng_seed(&g, 11);
	fx_init(&f, "block,rack,kubernetes.io/hostname");
	for (int i = 0; i < 60; i++) {
		snprintf(path, sizeof(path), "b%d/r%d/h%d", i / 20, i / 5, i);
		struct node *nd =
			fx_node(&f, path, 8, (int)rng_below(&g, 9), 6);

		labels_set(&nd->labels, "pool", rng_below(&g, 4) ? "a" : "b");
		if (rng_below(&g, 10) == 0)
			node_add_taint(nd, &taint_a);
	}
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	fx_podset(&f, &shapes[0], 6, 1, 1, TOPOLOGY_REQUIRED, "rack");
	fx_podset(&f, &shapes[1], 12, 1, 1, TOPOLOGY_PREFERRED, "rack");
	fx_podset(&f, &shapes[2], 9, 2, 2, TOPOLOGY_REQUIRED, "block");
	fx_podset(&f, &shapes[3], 5, 1, 1, TOPOLOGY_UNCONSTRAINED, NULL);
	fx_podset(&f, &shapes[4], 6, 1, 1, TOPOLOGY_REQUIRED, "rack");
	shapes[4].topology.slices[0].level =
		fx_str(&f, "kubernetes.io/hostname");
	shapes[4].topology.slices[0].size = 2;
	shapes[4].topology.nslices = 1;
	fx_podset(&f, &shapes[5], 5, 1, 1, TOPOLOGY_REQUIRED, "block");
	labels_set(&shapes[5].node_selector, "pool", "a");
	fx_podset(&f, &shapes[6], 4, 1, 1, TOPOLOGY_PREFERRED, "rack");
	fx_podset(&f, &leader, 1, 1, 1, TOPOLOGY_PREFERRED, "rack");
	place_result_init(&warm);
	place_result_init(&ex);
	for (int i = 0; i < 2000; i++) {
		size_t shape = rng_below(&g, 7);
		struct podset *ps = &shapes[shape];
		struct place_request req;
		uint32_t n = (uint32_t)rng_below(&g, t->nnodes);
		struct resvec one = { { 0 } };

		one.v[f.gpu] = 1;
		one.v[RESOURCE_PODS] = 1;
		if (rng_below(&g, 2))
			topo_node_add_usage(t, n, &one,
					    rng_below(&g, 2) ? 1 : -1);
		else
			topo_node_set_ready(t, n, rng_below(&g, 4) != 0);
		place_request_init(&req, ps);
		req.leader = shape == 6 ? &leader : NULL;
		req.flavor_tolerations = &tol_a;
		req.nflavor_tolerations = i % 3 == 0;
		place_podset(t, &req, &warm);
		req.exhaustive = true;
		place_podset(t, &req, &ex);
		same_result(&warm, &ex);
		if (warm.fit && rng_below(&g, 4) == 0)
			place_apply(t, &req, &warm, 1);
	}
	assert_true(topo_check(t, NULL));
	for (int i = 0; i < 7; i++)
		podset_release(&shapes[i]);
	podset_release(&leader);
	place_result_release(&warm);
	place_result_release(&ex);
	topo_free(t);
	fx_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_cache_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

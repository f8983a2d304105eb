// SPDX-License-Identifier: Apache-2.0
/*
 * Placement, one table row per behaviour of Kueue's TAS: required,
 * preferred and unconstrained modes, implied TAS, BestFit and
 * LeastFreeCapacity, slices, leaders, node filters, readiness and every
 * failure text, each checked against the assignment Kueue computes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "model/config.h"
#include "place/place_baseline.h"
#include "place/place_replace.h"
#include "test_place_fixture.h"

#include "base/banned.h"

#define HOST_LEVELS "block,rack,kubernetes.io/hostname"

struct pcase {
	const char *name;
	const char *levels; /* NULL: HOST_LEVELS */
	/* "path=gpus[flags]": T taint gpu=true:NoSchedule, N NotReady,
	 * C cordoned, S label pool=b (else pool=a) */
	const char *nodes;
	enum topology_mode mode;
	const char *level;
	int count;
	int gpu;
	const char *slice_level;
	int slice_size;
	enum placement_algorithm algo;
	bool leader;
	bool tolerate;
	bool selector; /* nodeSelector pool=a */
	const char *want;
	const char *slice2_level; /* an inner slice layer */
	int slice2_size;
	bool balanced;
	bool prefer_b; /* preferred affinity pool=b, weight 10 (gate on) */
};

static const struct pcase cases[] = {
	{ "required rack: tightest rack that fits, best fit below", NULL,
	  "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=2 b1/r2/h4=2 b2/r3/h5=1",
	  TOPOLOGY_REQUIRED, "rack", 4, 1, .want = "h3:2 h4:2" },
	{ "required rack: fits only 8 of 9", NULL,
	  "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=2 b1/r2/h4=2 b2/r3/h5=1",
	  TOPOLOGY_REQUIRED, "rack", 9, 1,
	  .want = "topology \"default\" allows to fit only 8 out of 9 pod(s)" },
	{ "required rack: nothing fits, resource exclusions", NULL,
	  "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=2 b1/r2/h4=2 b2/r3/h5=1",
	  TOPOLOGY_REQUIRED, "rack", 1, 8,
	  .want = "topology \"default\" doesn't allow to fit any of 1 pod(s)."
		  " Total nodes: 5; excluded: resource \"nvidia.com/gpu\": 5" },
	{ "required host: best fit host", NULL,
	  "b1/r1/h1=4 b1/r1/h2=3 b1/r2/h3=8", TOPOLOGY_REQUIRED,
	  "kubernetes.io/hostname", 3, 1, .want = "h2:3" },
	{ "preferred rack falls back to block", NULL,
	  "b1/r1/h1=4 b1/r2/h2=4 b2/r3/h3=6", TOPOLOGY_PREFERRED, "rack", 7, 1,
	  .want = "h1:4 h2:3" },
	{ "preferred rack spreads over blocks", NULL,
	  "b1/r1/h1=4 b1/r2/h2=4 b2/r3/h3=6", TOPOLOGY_PREFERRED, "rack", 12, 1,
	  .want = "h1:4 h2:2 h3:6" },
	{ "preferred: greedy failure counts what it got", NULL,
	  "b1/r1/h1=4 b1/r2/h2=4 b2/r3/h3=6", TOPOLOGY_PREFERRED, "rack", 15, 1,
	  .want = "topology \"default\" allows to fit only 14 out of 15 "
		  "pod(s)" },
	{ "unconstrained BestFit: 3+3+1 (KEP)", "rack,kubernetes.io/hostname",
	  "r1/h1=3 r1/h2=3 r1/h3=2 r1/h4=1", TOPOLOGY_UNCONSTRAINED, NULL, 7, 1,
	  .algo = PLACEMENT_BEST_FIT, .want = "h1:3 h2:3 h4:1" },
	{ "unconstrained Mixed is LeastFreeCapacity: 1+2+3+1 (KEP)",
	  "rack,kubernetes.io/hostname", "r1/h1=3 r1/h2=3 r1/h3=2 r1/h4=1",
	  TOPOLOGY_UNCONSTRAINED, NULL, 7, 1, .want = "h1:3 h2:1 h3:2 h4:1" },
	{ "unconstrained LFC: tightest single node",
	  "rack,kubernetes.io/hostname", "r1/h1=3 r1/h2=3 r1/h3=2 r1/h4=1",
	  TOPOLOGY_UNCONSTRAINED, NULL, 2, 1, .want = "h3:2" },
	{ "implied TAS is unconstrained at the lowest level",
	  "rack,kubernetes.io/hostname", "r1/h1=3 r1/h2=3 r1/h3=2 r1/h4=1",
	  TOPOLOGY_NONE, NULL, 2, 1, .want = "h3:2" },
	{ "unconstrained never climbs: spreads over racks", NULL,
	  "b1/r1/h1=2 b1/r2/h2=2", TOPOLOGY_UNCONSTRAINED, NULL, 4, 1,
	  .want = "h1:2 h2:2" },
	{ "slices BestFit: 6,.,4,.,2 (KEP)", "rack,kubernetes.io/hostname",
	  "r1/h1=6 r1/h2=5 r1/h3=4 r1/h4=3 r1/h5=2", TOPOLOGY_REQUIRED, "rack",
	  12, 1, "kubernetes.io/hostname", 2, .want = "h1:6 h3:4 h5:2" },
	{ "slices: fits only 3 of 4 slices", "rack,kubernetes.io/hostname",
	  "r1/h1=6 r1/h2=5 r1/h3=4 r1/h4=3 r1/h5=2", TOPOLOGY_REQUIRED, "rack",
	  16, 1, "kubernetes.io/hostname", 4,
	  .want = "topology \"default\" allows to fit only 3 out of 4 "
		  "slice(s)" },
	{ "slice-only request is unconstrained at the top", NULL,
	  "b1/r1/h1=3 b1/r1/h2=1 b1/r2/h3=4 b2/r3/h4=4", TOPOLOGY_NONE, NULL, 4,
	  1, "rack", 4, .want = "h4:4" },
	{ "taint excludes a node", "rack,kubernetes.io/hostname",
	  "r1/h1=4T r1/h2=2", TOPOLOGY_REQUIRED, "rack", 4, 1,
	  .want = "topology \"default\" allows to fit only 2 out of 4 pod(s)."
		  " Total nodes: 2; excluded: taint \"gpu=true:NoSchedule\": "
		  "1" },
	{ "toleration lets it in", "rack,kubernetes.io/hostname",
	  "r1/h1=4T r1/h2=2", TOPOLOGY_REQUIRED, "rack", 4, 1, .tolerate = true,
	  .want = "h1:4" },
	{ "node selector excludes a node", "rack,kubernetes.io/hostname",
	  "r1/h1=4S r1/h2=2 r1/h3=0", TOPOLOGY_REQUIRED, "rack", 4, 1,
	  .selector = true,
	  .want = "topology \"default\" allows to fit only 2 out of 4 pod(s)."
		  " Total nodes: 3; excluded: nodeSelector: 1, resource"
		  " \"nvidia.com/gpu\": 1" },
	{ "NotReady and cordoned nodes are not counted",
	  "rack,kubernetes.io/hostname", "r1/h1=4N r1/h2=4C r1/h3=2",
	  TOPOLOGY_REQUIRED, "rack", 4, 1,
	  .want = "topology \"default\" allows to fit only 2 out of 4 pod(s)" },
	{ "no live node: no domains", "rack,kubernetes.io/hostname",
	  "r1/h1=4N r1/h2=4C", TOPOLOGY_REQUIRED, "rack", 4, 1,
	  .want = "no topology domains at level: rack" },
	{ "unknown level", NULL, "b1/r1/h1=4", TOPOLOGY_REQUIRED, "zone", 1, 1,
	  .want = "no requested topology level: zone" },
	{ "unknown slice level", NULL, "b1/r1/h1=4", TOPOLOGY_REQUIRED, "rack",
	  2, 1, "zone", 2,
	  .want = "no requested topology level for slices: zone" },
	{ "slice size missing", NULL, "b1/r1/h1=4", TOPOLOGY_REQUIRED, "rack",
	  2, 1, "rack", 0,
	  .want = "slice topology requested, but slice size not provided" },
	{ "slice above the main level", NULL, "b1/r1/h1=4", TOPOLOGY_REQUIRED,
	  "kubernetes.io/hostname", 2, 1, "rack", 2,
	  .want = "podset slice topology rack is above the podset topology"
		  " kubernetes.io/hostname" },
	{ "stable tie break by name", "rack,kubernetes.io/hostname",
	  "r1/h3=2 r1/h1=2 r1/h4=2 r1/h2=2", TOPOLOGY_REQUIRED, "rack", 2, 1,
	  .want = "h1:2" },
	{ "leader and workers in one rack", "rack,kubernetes.io/hostname",
	  "r1/h1=1 r1/h2=4 r2/h3=8", TOPOLOGY_REQUIRED, "rack", 4, 1,
	  .leader = true, .want = "Lh2:1 | h1:1 h2:3" },
	{ "leader: quirk reports workers only", "rack,kubernetes.io/hostname",
	  "r1/h1=2 r1/h2=2", TOPOLOGY_REQUIRED, "rack", 4, 1, .leader = true,
	  .want = "topology \"default\" allows to fit only 4 out of 4 pod(s)" },
	{ "LeastFreeCapacity for required: smallest rack, smallest host first",
	  NULL, "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=3 b1/r2/h4=2 b2/r3/h5=1",
	  TOPOLOGY_REQUIRED, "rack", 4, 1,
	  .algo = PLACEMENT_LEAST_FREE_CAPACITY, .want = "h3:2 h4:2" },
	{ "BestFit below the fit level fills the largest host first", NULL,
	  "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=3 b1/r2/h4=2 b2/r3/h5=1",
	  TOPOLOGY_REQUIRED, "rack", 4, 1, .want = "h3:3 h4:1" },
	{ "LFC required: failure reports the largest domain", NULL,
	  "b1/r1/h1=4 b1/r2/h3=3", TOPOLOGY_REQUIRED, "rack", 5, 1,
	  .algo = PLACEMENT_LEAST_FREE_CAPACITY,
	  .want = "topology \"default\" allows to fit only 4 out of 5 pod(s)" },
	{ "rack lowest: units sum their nodes, no node filters", "block,rack",
	  "b1/r1/n1=3T b1/r1/n2=3 b1/r2/n3=4", TOPOLOGY_REQUIRED, "block", 5, 1,
	  .want = "r1:5" },
	{ "rack lowest: failure counts racks as nodes", "block,rack",
	  "b1/r1/n1=3 b1/r1/n2=3 b1/r2/n3=0", TOPOLOGY_REQUIRED, "rack", 7, 1,
	  .want = "topology \"default\" allows to fit only 6 out of 7 pod(s)."
		  " Total nodes: 2; excluded: resource \"nvidia.com/gpu\": 1" },
	{ "multi-layer slices: racks of 4, hosts of 2", NULL,
	  "b1/r1/h1=3 b1/r1/h2=2 b1/r2/h3=2 b1/r2/h4=2 b1/r3/h5=4",
	  TOPOLOGY_REQUIRED, "block", 8, 1, "rack", 4,
	  .want = "h1:2 h2:2 h3:2 h4:2",
	  .slice2_level = "kubernetes.io/hostname", .slice2_size = 2 },
	{ "multi-layer slices: the per-layer failure text", NULL,
	  "b1/r1/h1=3 b1/r1/h2=2 b1/r2/h3=2 b1/r2/h4=2 b1/r3/h5=4",
	  TOPOLOGY_REQUIRED, "block", 16, 1, "rack", 4,
	  .want = "topology \"default\" doesn't allow to fit; 3/4 slice(s) fit"
		  " on level rack; 6/8 slice(s) fit on level"
		  " kubernetes.io/hostname",
	  .slice2_level = "kubernetes.io/hostname", .slice2_size = 2 },
	{ "multi-layer: inner size must divide", NULL, "b1/r1/h1=3",
	  TOPOLOGY_REQUIRED, "block", 8, 1, "rack", 4,
	  .want = "additional slice layer size 3 must evenly divide parent"
		  " layer size 4",
	  .slice2_level = "kubernetes.io/hostname", .slice2_size = 3 },
	{ "multi-layer: inner layer must be lower", NULL, "b1/r1/h1=3",
	  TOPOLOGY_REQUIRED, "block", 8, 1, "rack", 4,
	  .want = "additional slice layer topology block must be at a lower"
		  " level than rack",
	  .slice2_level = "block", .slice2_size = 2 },
	{ "multi-layer: unknown inner level", NULL, "b1/r1/h1=3",
	  TOPOLOGY_REQUIRED, "block", 8, 1, "rack", 4,
	  .want = "no requested topology level for additional slice layer:"
		  " zone",
	  .slice2_level = "zone", .slice2_size = 2 },
	{ "slices with a leader in one rack", "rack,kubernetes.io/hostname",
	  "r1/h1=4 r1/h2=2 r2/h3=3", TOPOLOGY_REQUIRED, "rack", 4, 1,
	  "kubernetes.io/hostname", 2, .leader = true,
	  .want = "Lh1:1 | h1:2 h2:2" },
	{ "slices with a leader: Kueue's dead end is reported",
	  "rack,kubernetes.io/hostname", "r1/h1=3 r1/h2=2 r2/h3=4",
	  TOPOLOGY_REQUIRED, "rack", 4, 1, "kubernetes.io/hostname", 2,
	  .leader = true,
	  .want = "topology \"default\": the pods fit the chosen domain but"
		  " could not be spread below it (Kueue returns an empty"
		  " assignment here)" },
	{ "preferred block: LeastFreeCapacity everywhere", NULL,
	  "b1/r1/h1=4 b1/r2/h2=1 b2/r3/h3=3", TOPOLOGY_PREFERRED, "block", 3, 1,
	  .algo = PLACEMENT_LEAST_FREE_CAPACITY, .want = "h3:3" },
	{ "balanced: (15,15) with 25 gives 13/12", NULL,
	  "b1/r1/h1=15 b1/r2/h2=15", TOPOLOGY_PREFERRED, "rack", 25, 1,
	  .want = "h1:13 h2:12", .balanced = true },
	{ "balanced: (15,13,10) with 23 gives 12/11/0", NULL,
	  "b1/r1/h1=15 b1/r2/h2=13 b1/r3/h3=10", TOPOLOGY_PREFERRED, "rack", 23,
	  1, .want = "h1:12 h2:11", .balanced = true },
	{ "balanced: hosts (20,15,10), slices of 5, 25 pods: 0/15/10", NULL,
	  "b1/r1/h1=20 b1/r2/h2=15 b1/r3/h3=10", TOPOLOGY_PREFERRED, "rack", 25,
	  1, "kubernetes.io/hostname", 5, .want = "h2:15 h3:10",
	  .balanced = true },
	{ "balanced: [[20,10],[15,15]] with 22: second block, 11/11",
	  "block,kubernetes.io/hostname", "b1/h1=20 b1/h2=10 b2/h3=15 b2/h4=15",
	  TOPOLOGY_PREFERRED, "kubernetes.io/hostname", 22, 1,
	  .want = "h3:11 h4:11", .balanced = true },
	{ "balanced is only for preferred: required is BestFit", NULL,
	  "b1/r1/h1=15 b1/r1/h2=15", TOPOLOGY_REQUIRED, "rack", 25, 1,
	  .want = "h1:15 h2:10", .balanced = true },
	{ "preferred affinity: the matching rack first", NULL,
	  "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=4S b1/r2/h4=4S", TOPOLOGY_REQUIRED,
	  "rack", 4, 1, .want = "h3:4", .prefer_b = true },
	{ "preferred affinity off: best fit by name", NULL,
	  "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=4S b1/r2/h4=4S", TOPOLOGY_REQUIRED,
	  "rack", 4, 1, .want = "h1:4" },
	{ "preferred affinity: a lower tier when the top one is too small",
	  NULL, "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=1S b1/r2/h4=1S",
	  TOPOLOGY_REQUIRED, "rack", 4, 1, .want = "h1:4", .prefer_b = true },
	{ "preferred affinity inside a rack", "rack,kubernetes.io/hostname",
	  "r1/h1=8 r1/h2=2S r1/h3=2S", TOPOLOGY_REQUIRED, "rack", 4, 1,
	  .want = "h2:2 h3:2", .prefer_b = true },
	{ "count 0 fits with nothing", NULL, "b1/r1/h1=1", TOPOLOGY_REQUIRED,
	  "rack", 0, 1, .want = "" },
};

static int atoi_safe(const char *s)
{
	return (int)strtol(s, NULL, 10);
}

static const struct taint gpu_taint = { "gpu", "true", TAINT_NO_SCHEDULE };
static const struct toleration gpu_tol = { "gpu",  TOLERATION_EQUAL,
					   "true", -1,
					   false,  0 };

static void add_nodes(struct fx *f, const char *spec)
{
	char buf[1024], path[128];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '='), *end;
		long gpu;
		struct node *n;

		assert_non_null(eq);
		snprintf(path, sizeof(path), "%.*s", (int)(eq - tok), tok);
		gpu = strtol(eq + 1, &end, 10);
		n = fx_node(f, path, 64, (int)gpu, 110);
		if (!topology_lowest_is_hostname(&f->topology))
			n->name = fx_str(f, strrchr(path, '/') + 1);
		labels_set(&n->labels, "pool", strchr(end, 'S') ? "b" : "a");
		if (strchr(end, 'T'))
			node_add_taint(n, &gpu_taint);
		n->ready = !strchr(end, 'N');
		n->unschedulable = strchr(end, 'C') != NULL;
	}
}

static void run_case(const struct pcase *c, bool exhaustive, struct strbuf *out)
{
	struct fx f;
	struct topo *t;
	struct podset ps, leader;
	struct place_request req;
	struct place_result res;
	struct placement_config cfg = { c->algo, c->balanced, false };

	fx_init(&f, c->levels ? c->levels : HOST_LEVELS);
	add_nodes(&f, c->nodes);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	fx_podset(&f, &ps, c->count, 1, c->gpu, c->mode, c->level);
	if (c->slice_level) {
		ps.topology.slices[0].level = fx_str(&f, c->slice_level);
		ps.topology.slices[0].size = c->slice_size;
		ps.topology.nslices = 1;
	}
	if (c->slice2_level) {
		ps.topology.slices[1].level = fx_str(&f, c->slice2_level);
		ps.topology.slices[1].size = c->slice2_size;
		ps.topology.nslices = 2;
	}
	if (c->selector)
		labels_set(&ps.node_selector, "pool", "a");
	if (c->prefer_b) {
		ps.preferred = xcalloc(1, sizeof(*ps.preferred));
		ps.npreferred = 1;
		ps.preferred[0].weight = 10;
		selector_init(&ps.preferred[0].match);
		selector_add_match_label(&ps.preferred[0].match, "pool", "b");
		cfg.preferred_node_affinity = true;
	}
	fx_podset(&f, &leader, 1, 1, 1, c->mode, c->level);
	place_request_init(&req, &ps);
	req.leader = c->leader ? &leader : NULL;
	req.config = &cfg;
	req.exhaustive = exhaustive;
	if (c->tolerate) {
		req.flavor_tolerations = &gpu_tol;
		req.nflavor_tolerations = 1;
	}
	place_result_init(&res);
	place_podset(t, &req, &res);
	fx_format(t, &res, out);
	place_result_release(&res);
	podset_release(&ps);
	podset_release(&leader);
	topo_free(t);
	fx_release(&f);
}

static void test_cases(void **state)
{
	struct strbuf got;

	(void)state;
	strbuf_init(&got);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		for (int ex = 0; ex < 2; ex++) {
			strbuf_reset(&got);
			run_case(&cases[i], ex, &got);
			if (strcmp(got.buf, cases[i].want) != 0)
				fail_msg("%s%s:\n  got  %s\n  want %s",
					 cases[i].name,
					 ex ? " (exhaustive)" : "", got.buf,
					 cases[i].want);
		}
	}
	strbuf_release(&got);
}

/* Rank order, apply and unapply. */
static void test_apply_and_ranks(void **state)
{
	struct fx f;
	struct topo *t;
	struct podset ps;
	struct place_request req;
	struct place_result res;

	(void)state;
	fx_init(&f, HOST_LEVELS);
	add_nodes(&f, "b1/r1/h1=4 b1/r1/h2=4 b1/r2/h3=2 b1/r2/h4=2");
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	fx_podset(&f, &ps, 4, 1, 1, TOPOLOGY_REQUIRED, "rack");
	place_request_init(&req, &ps);
	place_result_init(&res);
	assert_true(place_podset(t, &req, &res));
	assert_int_equal(res.worker_nodes.len, 4);
	assert_string_equal(t->node_src[res.worker_nodes.items[0]]->name, "h3");
	assert_string_equal(t->node_src[res.worker_nodes.items[1]]->name, "h3");
	assert_string_equal(t->node_src[res.worker_nodes.items[3]]->name, "h4");
	place_apply(t, &req, &res, 1);
	assert_true(topo_check(t, NULL));
	assert_int_equal(t->dom_free[t->level_off[1] * t->nres + f.gpu], 8);
	assert_int_equal(t->dom_free[(t->level_off[1] + 1) * t->nres + f.gpu],
			 0);
	/* the next gang of 4 goes to r1 */
	assert_true(place_podset(t, &req, &res));
	assert_int_equal(res.workers.len, 1);
	assert_string_equal(t->dom_value[res.workers.items[0].unit], "h1");
	place_apply(t, &req, &res, 1);
	req.count = 5;
	assert_false(place_podset(t, &req, &res));
	assert_string_equal(res.reason.buf, "topology \"default\" allows to "
					    "fit only 4 out of 5 pod(s)"
					    ". Total nodes: 4; excluded: "
					    "resource \"nvidia.com/gpu\": 3");
	/* taking both back restores the index */
	req.count = 4;
	assert_true(place_podset(t, &req, &res));
	assert_string_equal(t->dom_value[res.workers.items[0].unit], "h2");
	place_apply(t, &req, &res, 1);
	place_apply(t, &req, &res, -1);
	assert_int_equal(t->dom_free[t->level_off[1] * t->nres + f.gpu], 4);
	assert_true(topo_check(t, NULL));
	place_result_release(&res);
	podset_release(&ps);
	topo_free(t);
	fx_release(&f);
}

struct replace_case {
	const char *name;
	const char *nodes;  /* "path=gpus[flags]" as above */
	const char *assign; /* "h1:4 h2:2" */
	const char *used;   /* extra usage: "h3:4" */
	const char *failed;
	const char *slice_level;
	int slice_size;
	const char *want;
};

static const struct replace_case replace_cases[] = {
	{ "replacement stays in the required rack",
	  "r1/h1=4N r1/h2=4 r1/h3=4 r2/h4=8", "h1:4 h2:2", "", "h1",
	  .want = "h2:2 h3:4" },
	{ "no room left in the rack", "r1/h1=4N r1/h2=4 r1/h3=4 r2/h4=8",
	  "h1:4 h2:2", "h3:4", "h1",
	  .want = "topology \"default\" allows to fit only 2 out of 4 pod(s)."
		  " Total nodes: 3; excluded: resource \"nvidia.com/gpu\": 1,"
		  " topologyDomain: 1" },
	{ "another assigned node is gone: stale",
	  "r1/h1=4N r1/h2=4C r1/h3=4 r2/h4=8", "h1:4 h2:2", "", "h1",
	  .want = "Cannot replace the node, because the existing "
		  "topologyAssignment"
		  " is invalid, as it contains the stale domain h2" },
	{ "failed node not in the assignment",
	  "r1/h1=4N r1/h2=4 r1/h3=4 r2/h4=8", "h2:2", "", "h9",
	  .want = "cannot find replacement assignment for unhealthy node: h9" },
	{ "slices: the missing pods complete a slice domain",
	  "r1/h1=2 r2/h3=2N r2/h4=2", "h1:2 h3:1 h4:1", "", "h3", "rack", 2,
	  .want = "h1:2 h4:2" },
	{ "slices: no room in the slice domain", "r1/h1=3 r2/h3=2N r2/h4=1",
	  "h1:2 h3:1 h4:1", "", "h3", "rack", 2,
	  .want = "topology \"default\" doesn't allow to fit any of 1 pod(s)."
		  " Total nodes: 2; excluded: resource \"nvidia.com/gpu\": 1,"
		  " topologyDomain: 1" },
};

static void add_usage(struct fx *f, const char *spec, bool skip_dead)
{
	char buf[256];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *colon = strchr(tok, ':');

		*colon = '\0';
		for (size_t i = 0; i < f->nnodes; i++) {
			if (strcmp(f->nodes[i].name, tok) == 0 &&
			    !(skip_dead && !node_schedulable(&f->nodes[i])))
				f->nodes[i].usage.v[f->gpu] +=
					atoi_safe(colon + 1);
		}
	}
}

static void run_replace(const struct replace_case *c, struct strbuf *out)
{
	struct fx f;
	struct topo *t;
	struct podset ps;
	struct place_replace_request rr;
	struct place_result res;
	struct topology_assignment ta = { 0 };
	struct topology_domain doms[8];
	const char *vals[8];
	const char *level = "kubernetes.io/hostname";
	char buf[256];
	char *save = NULL;

	fx_init(&f, "rack,kubernetes.io/hostname");
	add_nodes(&f, c->nodes);
	add_usage(&f, c->assign, true);
	add_usage(&f, c->used, false);
	t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
	fx_podset(&f, &ps, 0, 1, 1,
		  c->slice_level ? TOPOLOGY_PREFERRED : TOPOLOGY_REQUIRED,
		  "rack");
	if (c->slice_level) {
		ps.topology.slices[0].level = fx_str(&f, c->slice_level);
		ps.topology.slices[0].size = c->slice_size;
		ps.topology.nslices = 1;
	}
	ta.levels = &level;
	ta.nlevels = 1;
	ta.domains = doms;
	snprintf(buf, sizeof(buf), "%s", c->assign);
	for (char *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *colon = strchr(tok, ':');

		*colon = '\0';
		vals[ta.ndomains] = fx_str(&f, tok);
		doms[ta.ndomains].values = &vals[ta.ndomains];
		doms[ta.ndomains].count = atoi_safe(colon + 1);
		ps.count += doms[ta.ndomains].count;
		ta.ndomains++;
	}
	memset(&rr, 0, sizeof(rr));
	rr.podset = &ps;
	rr.current = &ta;
	rr.failed_node = c->failed;
	place_result_init(&res);
	place_replace(t, &rr, &res);
	fx_format(t, &res, out);
	place_result_release(&res);
	podset_release(&ps);
	topo_free(t);
	fx_release(&f);
}

static void test_replace(void **state)
{
	struct strbuf got;

	(void)state;
	strbuf_init(&got);
	for (size_t i = 0; i < ARRAY_SIZE(replace_cases); i++) {
		strbuf_reset(&got);
		run_replace(&replace_cases[i], &got);
		if (strcmp(got.buf, replace_cases[i].want) != 0)
			fail_msg("%s:\n  got  %s\n  want %s",
				 replace_cases[i].name, got.buf,
				 replace_cases[i].want);
	}
	strbuf_release(&got);
}

/* kube-default spreads by least-allocated cpu; first-fit packs in order. */
static void test_baselines(void **state)
{
	static const struct {
		enum place_policy policy;
		int count;
		const char *want;
	} rows[] = {
		{ PLACE_POLICY_FIRST_FIT, 2, "h1:2" },
		{ PLACE_POLICY_KUBE_DEFAULT, 2, "h2:2" },
		{ PLACE_POLICY_KUBE_DEFAULT, 9, "h1:3 h2:6" },
		{ PLACE_POLICY_FIRST_FIT, 40,
		  "first-fit: only 12 out of 40 pod(s) fit" },
		{ PLACE_POLICY_KUBE_DEFAULT, 40,
		  "kube-default: only 12 out of 40 pod(s) fit" },
	};
	enum place_policy p;

	(void)state;
	assert_int_equal(place_policy_parse("kube-default", &p), 0);
	assert_int_equal(p, PLACE_POLICY_KUBE_DEFAULT);
	assert_int_equal(place_policy_parse("best", &p), -EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct fx f;
		struct topo *t;
		struct podset ps;
		struct place_request req;
		struct place_result res;
		struct strbuf got;

		fx_init(&f, "rack,kubernetes.io/hostname");
		add_nodes(&f, "r1/h1=8 r1/h2=8 r2/h3=8T");
		f.nodes[0].usage.v[RESOURCE_CPU] = 32000;
		f.nodes[2].usage.v[RESOURCE_CPU] = 48000;
		t = topo_new(&f.topology, NULL, f.nodes, f.nnodes, &f.reg);
		fx_podset(&f, &ps, rows[i].count, 8, 1, TOPOLOGY_REQUIRED,
			  "rack");
		place_request_init(&req, &ps);
		place_result_init(&res);
		strbuf_init(&got);
		place_baseline_podset(t, rows[i].policy, &req, &res);
		fx_format(t, &res, &got);
		assert_string_equal(got.buf, rows[i].want);
		if (res.fit) {
			place_apply(t, &req, &res, 1);
			assert_true(topo_check(t, NULL));
		}
		strbuf_release(&got);
		place_result_release(&res);
		podset_release(&ps);
		topo_free(t);
		fx_release(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_apply_and_ranks),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_baselines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

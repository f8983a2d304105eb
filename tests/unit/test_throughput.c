// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the training-throughput model: all-reduce times worked out by
 * hand for both algorithms, the figures of traces-and-models.md 2.5 with
 * latency off, ideal shapes for several geometries, shapes of pod lists,
 * throughput ratios, the per-class communication shares by size, the table
 * of figures (defaults inside their ranges, every key settable and read
 * back), and randomized monotonicity: spreading a gang over more racks or
 * blocks or fewer rails never makes it faster, the ratio is in (0, 1] and
 * exactly 1 for the ideal placement.
 */
#include "sim/throughput.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "testutil.h"

#include "base/banned.h"

#define GIB 1073741824.0

static void assert_near(double got, double want, double tol)
{
	if (fabs(got - want) > tol)
		fail_msg("got %.6f, want %.6f (+-%g)", got, want, tol);
}

/* The figures the cases below were worked out with by hand: 45 GB/s a
 * rail (0.9 x 400 Gb/s), 2:1 above the rack, 4:1 across blocks, one comm
 * share of 0.3 (traces-and-models.md 2.5). */
static void worked_config(struct throughput_config *c)
{
	throughput_config_init(c);
	for (int l = THROUGHPUT_RACK; l < THROUGHPUT_LEVEL_COUNT; l++)
		c->link[l].bw_gbps = 45;
	c->link[THROUGHPUT_BLOCK].oversub = 2;
	c->link[THROUGHPUT_CLUSTER].oversub = 4;
	c->comm_fraction = 0.3;
}

#define D THROUGHPUT_DATA

struct ar_case {
	enum throughput_algo algo;
	struct throughput_shape s; /* gpus, hosts, racks, blocks, kmin, kmax */
	double want_us;
};

/*
 * n = 2^30 bytes; ring(m, a, B) = 2(m-1) a + 2((m-1)/m) n / B, with B in
 * bytes per microsecond (GB/s x 1000).
 */
static const struct ar_case ar_cases[] = {
	/* one GPU: nothing to reduce */
	{ THROUGHPUT_RING, { 1, 1, 1, 1, 1, 1 }, 0 },
	/* 8 GPUs in a host: 14 x 1.3 + 1.75 n / 367610 */
	{ THROUGHPUT_RING, { 8, 1, 1, 1, 8, 8 }, 5129.726324093468 },
	/* 2 hosts x 8 in a rack: 30 x 1.6 + 1.875 n / min(367610, 8 x 45000) */
	{ THROUGHPUT_RING, { 16, 2, 1, 1, 8, 8 }, 5640.405333333333 },
	/* 4 hosts x 4 in a rack: 4 rails, B = 180000 */
	{ THROUGHPUT_RING, { 16, 4, 1, 1, 4, 4 }, 11232.810666666666 },
	/* 2 hosts x 8 over 2 racks: 2:1 spine, B = 8 x 45000 / 2, a = 2.6 */
	{ THROUGHPUT_RING, { 16, 2, 2, 1, 8, 8 }, 11262.810666666666 },
	/* 2 hosts x 8 over 2 blocks: 4:1, B = 90000, a = 3.6 */
	{ THROUGHPUT_RING, { 16, 2, 2, 2, 8, 8 }, 22477.621333333333 },
	/* 64 GPUs on 8 hosts of a rack: 126 x 1.6 + (63/32) n / 360000 */
	{ THROUGHPUT_RING, { 64, 8, 1, 1, 8, 8 }, 6073.6256 },
	/* hierarchical in one host is the ring */
	{ THROUGHPUT_HIERARCHICAL, { 8, 1, 1, 1, 8, 8 }, 5129.726324093468 },
	/* 2 x 8 in a rack: ring(8, 1.3, n, 367610) + ring(2, 1.6, n/8, 45000)
	 */
	{ THROUGHPUT_HIERARCHICAL, { 16, 2, 1, 1, 8, 8 }, 8115.542501871246 },
	/* 4 x 8 over 2 racks: ring(8,...) + ring(4, 2.6, n/8, 22500) */
	{ THROUGHPUT_HIERARCHICAL, { 32, 4, 2, 1, 8, 8 }, 14093.174857426802 },
};

static void test_allreduce_table(void **state)
{
	struct throughput_config c;

	(void)state;
	worked_config(&c);
	assert_int_equal(throughput_config_check(&c, NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(ar_cases); i++) {
		c.algo = ar_cases[i].algo;
		assert_near(throughput_allreduce_us(&c, &ar_cases[i].s),
			    ar_cases[i].want_us, 1e-6);
	}
}

/* traces-and-models.md 2.5: 1 GiB, bandwidth terms only. */
static void test_reference_figures(void **state)
{
	static const struct {
		struct throughput_shape s;
		double bw_host, want_ms;
	} figs[] = {
		{ { 8, 1, 1, 1, 8, 8 }, 367, 5.1 },   /* in-node ring */
		{ { 16, 2, 1, 1, 8, 8 }, 367, 5.6 },  /* 2 nodes, one leaf */
		{ { 16, 4, 1, 1, 4, 4 }, 367, 11.2 }, /* 4 nodes x 4 GPUs */
		{ { 16, 2, 2, 1, 8, 8 }, 367, 11.2 }, /* 2:1 spine */
		{ { 16, 2, 2, 2, 8, 8 }, 367, 22.4 }, /* 4:1 */
		{ { 8, 1, 1, 1, 8, 8 }, 480, 3.9 },   /* NVLS */
	};
	struct throughput_config c;

	(void)state;
	worked_config(&c);
	for (int l = 0; l < THROUGHPUT_LEVEL_COUNT; l++)
		c.link[l].alpha_us = 0;
	for (size_t i = 0; i < ARRAY_SIZE(figs); i++) {
		c.link[THROUGHPUT_HOST].bw_gbps = figs[i].bw_host;
		assert_near(throughput_allreduce_us(&c, &figs[i].s) / 1000,
			    figs[i].want_ms, 0.05);
	}
}

struct ideal_case {
	struct throughput_geometry g;
	int32_t pods, gpus_per_pod;
	struct throughput_shape want;
};

static const struct ideal_case ideal_cases[] = {
	{ { 8, 32, 8 }, 1, 8, { 8, 1, 1, 1, 8, 8 } },
	{ { 8, 32, 8 }, 1, 1, { 1, 1, 1, 1, 1, 1 } },
	{ { 8, 32, 8 }, 8, 1, { 8, 1, 1, 1, 8, 8 } },
	{ { 8, 32, 8 }, 9, 1, { 9, 2, 1, 1, 4, 5 } },	  /* 5 + 4 */
	{ { 8, 32, 8 }, 3, 4, { 12, 2, 1, 1, 4, 8 } },	  /* 8 + 4 */
	{ { 8, 32, 8 }, 32, 8, { 256, 32, 1, 1, 8, 8 } }, /* a full rack */
	{ { 8, 32, 8 }, 33, 8, { 264, 33, 2, 1, 8, 8 } },
	{ { 8, 32, 8 }, 256, 8, { 2048, 256, 8, 1, 8, 8 } },
	{ { 8, 32, 8 }, 257, 8, { 2056, 257, 9, 2, 8, 8 } },
	{ { 8, 4, 2 }, 17, 8, { 136, 17, 5, 3, 8, 8 } },
	{ { 8, 4, 2 }, 10, 3, { 30, 5, 2, 1, 6, 6 } }, /* 2 pods a host */
	{ { 4, 1, 1 }, 3, 3, { 9, 3, 3, 3, 3, 3 } },
};

static void test_ideal_shape(void **state)
{
	struct throughput_shape s;
	struct errbuf eb;
	struct throughput_geometry g = { 8, 4, 2 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ideal_cases); i++) {
		const struct ideal_case *c = &ideal_cases[i];

		assert_int_equal(throughput_ideal_shape(&c->g, c->pods,
							c->gpus_per_pod, &s,
							NULL),
				 0);
		assert_memory_equal(&s, &c->want, sizeof(s));
	}
	assert_int_equal(throughput_ideal_shape(&g, 2, 16, &s, &eb), -EINVAL);
	assert_string_equal(eb.msg,
			    "a pod of 16 GPUs does not fit a host of 8");
	assert_int_equal(throughput_ideal_shape(&g, 0, 8, &s, &eb), -EINVAL);
	assert_int_equal(throughput_ideal_shape(&g, INT32_MAX, 8, &s, &eb),
			 -EINVAL);
	g.hosts_per_rack = 0;
	assert_int_equal(throughput_ideal_shape(&g, 1, 8, &s, &eb), -EINVAL);
}

static void test_shape_of(void **state)
{
	/* block, rack, host given as host, rack, block */
	static const struct throughput_pod one_host[] = { { 7, 1, 0 },
							  { 7, 1, 0 } };
	/* host 0 of rack 0 in blocks 0 and 1 are different hosts */
	static const struct throughput_pod relative[] = {
		{ 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 },
		{ 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 },
	};
	struct throughput_shape s;
	struct errbuf eb;

	(void)state;
	assert_int_equal(throughput_shape_of(one_host, 2, 4, &s, NULL), 0);
	assert_memory_equal(&s,
			    (&(struct throughput_shape){ 8, 1, 1, 1, 8, 8 }),
			    sizeof(s));
	assert_int_equal(throughput_level_of(&s), THROUGHPUT_HOST);
	assert_int_equal(throughput_shape_of(relative, 6, 2, &s, NULL), 0);
	assert_memory_equal(&s,
			    (&(struct throughput_shape){ 12, 4, 3, 2, 2, 6 }),
			    sizeof(s));
	assert_int_equal(throughput_level_of(&s), THROUGHPUT_CLUSTER);
	assert_int_equal(throughput_shape_of(relative, 0, 2, &s, &eb), -EINVAL);
	assert_int_equal(throughput_shape_of(relative, 6, 0, &s, &eb), -EINVAL);
	assert_string_equal(eb.msg, "GPUs per pod: must be positive, not 0");
}

static void test_shape_of_nodes(void **state)
{
	struct node n[4];
	const struct node *pods[6];
	static const char *const names[] = { "h0", "h1", "h2", "h3" };
	static const char *const racks[] = { "r0", "r0", "r1", "r2" };
	static const char *const blocks[] = { "b0", "b0", "b0", "b1" };
	struct throughput_shape s;
	struct errbuf eb;

	(void)state;
	for (int i = 0; i < 4; i++) {
		node_init(&n[i]);
		n[i].name = names[i];
		labels_set(&n[i].labels, "rack", racks[i]);
		labels_set(&n[i].labels, "block", blocks[i]);
	}
	pods[0] = pods[1] = pods[2] = &n[0];
	pods[3] = &n[1];
	pods[4] = &n[2];
	pods[5] = &n[3];
	assert_int_equal(throughput_shape_of_nodes(pods, 6, 2, "block", "rack",
						   &s, NULL),
			 0);
	assert_memory_equal(&s,
			    (&(struct throughput_shape){ 12, 4, 3, 2, 2, 6 }),
			    sizeof(s));
	/* no block level: one block; no rack level: a rack per host */
	assert_int_equal(
		throughput_shape_of_nodes(pods, 6, 2, NULL, NULL, &s, NULL), 0);
	assert_memory_equal(&s,
			    (&(struct throughput_shape){ 12, 4, 4, 1, 2, 6 }),
			    sizeof(s));
	assert_int_equal(throughput_shape_of_nodes(pods, 4, 8, "block", "rack",
						   &s, NULL),
			 0);
	assert_int_equal(throughput_level_of(&s), THROUGHPUT_RACK);
	pods[2] = NULL;
	assert_int_equal(
		throughput_shape_of_nodes(pods, 6, 2, "block", "rack", &s, &eb),
		-EINVAL);
	assert_string_equal(eb.msg, "pod 2 has no node");
	for (int i = 0; i < 4; i++)
		node_release(&n[i]);
}

static void test_ratio(void **state)
{
	struct throughput_config c;
	struct throughput_shape ideal = { 16, 2, 1, 1, 8, 8 };
	struct throughput_shape spine = { 16, 2, 2, 1, 8, 8 };
	double r;

	(void)state;
	worked_config(&c);
	/* comm share 0.3: 1 / (0.7 + 0.3 x T_spine / T_ideal) */
	r = throughput_ratio(&c, D, &spine, &ideal);
	assert_near(r, 1 / (0.7 + 0.3 * 11262.810666666666 / 5640.405333333333),
		    1e-12);
	assert_near(r, 0.7698, 1e-4);
	assert_near(throughput_ratio(&c, D, &ideal, &ideal), 1, 0);
	/* fixed compute of 20 ms: (20000 + 5640.4) / (20000 + 11262.8) */
	c.compute_us = 20000;
	assert_near(throughput_step_us(&c, D, &spine, &ideal),
		    31262.810666666666, 1e-6);
	assert_near(throughput_ratio(&c, D, &spine, &ideal),
		    25640.405333333333 / 31262.810666666666, 1e-12);
	/* half of compute overlaps: exposed max(0, T - 10000) */
	c.overlap = 0.5;
	assert_near(throughput_ratio(&c, D, &spine, &ideal),
		    20000 / (20000 + 1262.810666666666), 1e-12);
	/* all communication hidden: no cost */
	c.overlap = 1;
	assert_near(throughput_ratio(&c, D, &spine, &ideal), 1, 0);
	/* communication only */
	c.compute_us = 0;
	c.overlap = 0;
	c.comm_fraction = 1;
	assert_near(throughput_ratio(&c, D, &spine, &ideal),
		    5640.405333333333 / 11262.810666666666, 1e-12);

	assert_int_equal(throughput_stretch_us(1000000, 0.5), 2000000);
	assert_int_equal(throughput_stretch_us(1000000, 1), 1000000);
	assert_int_equal(throughput_stretch_us(3, 0.7698), 4);
	assert_int_equal(throughput_stretch_us(INT64_MAX / 2, 1e-3), INT64_MAX);
}

static void test_config_check(void **state)
{
	struct throughput_config c;
	struct errbuf eb;

	(void)state;
	throughput_config_init(&c);
	c.link[THROUGHPUT_BLOCK].oversub = 0.5;
	assert_int_equal(throughput_config_check(&c, &eb), -EINVAL);
	assert_string_equal(eb.msg,
			    "link.block.oversubscription: must be >= 1");
	throughput_config_init(&c);
	c.link[THROUGHPUT_HOST].bw_gbps = 0;
	assert_int_equal(throughput_config_check(&c, &eb), -EINVAL);
	assert_string_equal(eb.msg, "link.host.bandwidth: must be positive");
	throughput_config_init(&c);
	c.comm_fraction = 1.5;
	assert_int_equal(throughput_config_check(&c, &eb), -EINVAL);
	assert_string_equal(eb.msg,
			    "commFraction: must be 0 (per class) or in (0, 1]");
	c.comm_fraction = 0;
	assert_int_equal(throughput_config_check(&c, &eb), 0);
	c.share[THROUGHPUT_TENSOR] = 1;
	assert_int_equal(throughput_config_check(&c, &eb), -EINVAL);
	assert_string_equal(eb.msg, "share.tensor: must be in (0, 1)");
	throughput_config_init(&c);
	c.tensor_from = -1;
	assert_int_equal(throughput_config_check(&c, &eb), -EINVAL);
	assert_string_equal(eb.msg, "tensorFrom: must be >= 0");
	throughput_config_init(&c);
	c.compute_us = 100;
	assert_int_equal(throughput_config_check(&c, &eb), 0);
	c.overlap = NAN;
	assert_int_equal(throughput_config_check(&c, &eb), -EINVAL);
	assert_string_equal(throughput_level_name(THROUGHPUT_BLOCK), "block");
	assert_string_equal(throughput_algo_name(THROUGHPUT_HIERARCHICAL),
			    "hierarchical");
}

/* Shares with the default figures: the class's share at the reference
 * placement (2 hosts x 8 GPUs, one leaf), less in one host, more as the
 * ideal placement spans more hosts, racks and blocks. T_ref = 30 x 1.6 +
 * 1.875 n / 348000 = 5833.2469 us; share = T / (T_ref (1 - s) / s + T). */
static const struct share_case {
	enum throughput_class k;
	struct throughput_shape s;
	double want;
} share_cases[] = {
	{ THROUGHPUT_DATA, { 1, 1, 1, 1, 1, 1 }, 0 },
	{ THROUGHPUT_DATA, { 8, 1, 1, 1, 8, 8 }, 0.18947165465813148 },
	{ THROUGHPUT_DATA, { 16, 2, 1, 1, 8, 8 }, 0.21 },
	{ THROUGHPUT_DATA, { 64, 8, 1, 1, 8, 8 }, 0.22239753434950696 },
	{ THROUGHPUT_DATA, { 128, 16, 2, 1, 8, 8 }, 0.309685857284806 },
	{ THROUGHPUT_DATA, { 512, 64, 2, 2, 8, 8 }, 0.5633778238879292 },
	{ THROUGHPUT_TENSOR, { 8, 1, 1, 1, 8, 8 }, 0.3695875641386511 },
	{ THROUGHPUT_TENSOR, { 16, 2, 1, 1, 8, 8 }, 0.4 },
	{ THROUGHPUT_TENSOR, { 128, 16, 2, 1, 8, 8 }, 0.5294339171745135 },
	{ THROUGHPUT_PIPELINE, { 16, 2, 1, 1, 8, 8 }, 0.125 },
	{ THROUGHPUT_PIPELINE, { 64, 8, 1, 1, 8, 8 }, 0.1332257294415791 },
	{ THROUGHPUT_PIPELINE, { 512, 64, 2, 2, 8, 8 }, 0.4094831353052131 },
};

static void test_class_shares(void **state)
{
	struct throughput_config c;
	struct throughput_shape ref;

	(void)state;
	throughput_config_init(&c);
	assert_int_equal(throughput_config_check(&c, NULL), 0);
	throughput_reference_shape(&ref);
	assert_near(throughput_allreduce_us(&c, &ref), 5833.246896551724, 1e-6);
	for (size_t i = 0; i < ARRAY_SIZE(share_cases); i++) {
		const struct share_case *x = &share_cases[i];

		assert_near(throughput_share(&c, x->k, &x->s), x->want, 1e-9);
	}
	/* one comm-fraction overrides the classes: that share at every
	 * job's own ideal placement */
	c.comm_fraction = 0.3;
	for (size_t i = 1; i < ARRAY_SIZE(share_cases); i++)
		assert_near(throughput_share(&c, share_cases[i].k,
					     &share_cases[i].s),
			    0.3, 1e-12);
	/* and a compute time overrides both */
	c.compute_us = 3 * throughput_allreduce_us(&c, &ref);
	assert_near(throughput_share(&c, THROUGHPUT_TENSOR, &ref), 0.25, 1e-12);
}

static void test_class_of(void **state)
{
	static const struct {
		enum throughput_class given;
		double tensor_from;
		int64_t gpus;
		enum throughput_class want;
	} cases[] = {
		{ THROUGHPUT_CLASS_BY_SIZE, 64, 1, THROUGHPUT_DATA },
		{ THROUGHPUT_CLASS_BY_SIZE, 64, 63, THROUGHPUT_DATA },
		{ THROUGHPUT_CLASS_BY_SIZE, 64, 64, THROUGHPUT_TENSOR },
		{ THROUGHPUT_CLASS_BY_SIZE, 0, 4096, THROUGHPUT_DATA },
		{ THROUGHPUT_CLASS_BY_SIZE, 16, 16, THROUGHPUT_TENSOR },
		{ THROUGHPUT_PIPELINE, 64, 512, THROUGHPUT_PIPELINE },
		{ THROUGHPUT_DATA, 64, 512, THROUGHPUT_DATA },
		{ THROUGHPUT_TENSOR, 64, 8, THROUGHPUT_TENSOR },
	};
	struct throughput_config c;
	enum throughput_class k;

	(void)state;
	throughput_config_init(&c);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		c.tensor_from = cases[i].tensor_from;
		assert_int_equal(
			throughput_class_of(&c, cases[i].given, cases[i].gpus),
			cases[i].want);
	}
	for (int i = 0; i < THROUGHPUT_CLASS_COUNT; i++) {
		const char *name =
			throughput_class_name((enum throughput_class)i);

		assert_int_equal(throughput_class_parse(name, strlen(name), &k),
				 0);
		assert_int_equal(k, i);
	}
	assert_int_equal(throughput_class_parse("Data", 4, &k), -EINVAL);
	assert_int_equal(throughput_class_parse("dat", 3, &k), -EINVAL);
	assert_string_equal(throughput_class_name(THROUGHPUT_CLASS_BY_SIZE),
			    "");
}

/* The table of figures: every row a key that sets and reads back, its
 * default what throughput_config_init() sets and inside its range, each
 * with a source; the keys are distinct. */
static void test_param_table(void **state)
{
	struct throughput_config c, d;
	struct errbuf eb;
	double v;

	(void)state;
	throughput_config_init(&d);
	assert_int_equal(throughput_param_count(), 20);
	assert_null(throughput_param_at(throughput_param_count()));
	for (size_t i = 0; i < throughput_param_count(); i++) {
		const struct throughput_param *p = throughput_param_at(i);
		char text[64];

		assert_non_null(p->key);
		assert_true(p->source && *p->source);
		assert_true(p->lo <= p->def && p->def <= p->hi);
		assert_int_equal(throughput_get(&d, p->key, &v), 0);
		assert_true(v == p->def);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(throughput_param_at(j)->key,
						p->key);
		/* the upper end of its range is a valid setting */
		c = d;
		snprintf(text, sizeof(text), "%s=%.17g", p->key, p->hi);
		assert_int_equal(throughput_parse(text, "t", &c, &eb), 0);
		assert_int_equal(throughput_get(&c, p->key, &v), 0);
		assert_true(v == p->hi);
	}
	assert_int_equal(throughput_get(&d, "algo", &v), -ENOENT);
	assert_int_equal(throughput_get(&d, "share-bogus", &v), -ENOENT);
	c = d;
	assert_int_equal(throughput_parse("share-tensor=0.5,tensor-from=8", "t",
					  &c, &eb),
			 0);
	assert_true(c.share[THROUGHPUT_TENSOR] == 0.5 && c.tensor_from == 8);
	assert_int_equal(throughput_parse("share-data=1", "t", &c, &eb),
			 -EINVAL);
	assert_string_equal(eb.msg, "t:1:1: share.data: must be in (0, 1)");
	assert_int_equal(throughput_parse("share-x=0.1", "t", &c, &eb),
			 -EINVAL);
	assert_true(strstr(eb.msg, "t:1:1: share-x: unknown key") == eb.msg);
}

/* A random placement of pods on geometry g, as a shape. */
static void random_shape(struct rng *r, const struct throughput_geometry *g,
			 int32_t pods, int32_t gpp, struct throughput_shape *s)
{
	int32_t per_host = g->gpus_per_host / gpp;
	int32_t nhosts = 4 * pods; /* plenty of room to scatter */
	int32_t *load = xcalloc((size_t)nhosts, sizeof(*load));
	struct throughput_pod *p = xcalloc((size_t)pods, sizeof(*p));

	for (int32_t i = 0; i < pods; i++) {
		int32_t h;

		do {
			h = (int32_t)rng_below(r, (uint64_t)nhosts);
		} while (load[h] == per_host);
		load[h]++;
		p[i].host = h;
		p[i].rack = h / g->hosts_per_rack;
		p[i].block = p[i].rack / g->racks_per_block;
	}
	assert_int_equal(throughput_shape_of(p, (size_t)pods, gpp, s, NULL), 0);
	free(load);
	free(p);
}

static void test_monotonic(void **state)
{
	struct throughput_config c;
	struct rng r;

	(void)state;
	rng_seed(&r, 42);
	worked_config(&c);
	for (int i = 0; i < 3000; i++) {
		static const int32_t gpps[] = { 1, 2, 4, 8 };
		struct throughput_geometry g = {
			8, 1 + (int32_t)rng_below(&r, 8),
			1 + (int32_t)rng_below(&r, 4)
		};
		int32_t gpp = gpps[rng_below(&r, 4)];
		int32_t pods = 1 + (int32_t)rng_below(&r, 40);
		struct throughput_shape ideal, s, wider;
		double t, ratio;

		c.algo = (enum throughput_algo)(i % 2);
		assert_int_equal(
			throughput_ideal_shape(&g, pods, gpp, &ideal, NULL), 0);
		random_shape(&r, &g, pods, gpp, &s);
		assert_true(s.hosts >= ideal.hosts);
		assert_true(s.racks >= ideal.racks);
		assert_true(s.blocks >= ideal.blocks);
		/* one share, then the classes' shares by size */
		c.comm_fraction = i % 3 ? 0.3 : 0;
		ratio = throughput_ratio(&c, (enum throughput_class)(i % 3), &s,
					 &ideal);
		assert_true(ratio > 0 && ratio <= 1);
		assert_true(throughput_ratio(&c, D, &ideal, &ideal) == 1);
		if (s.hosts == 1)
			assert_true(ratio == 1);
		t = throughput_allreduce_us(&c, &s);
		/* with the default figures the packing is never slower */
		assert_true(t >= throughput_allreduce_us(&c, &ideal) - 1e-9);
		/* more racks, more blocks, fewer rails: never faster */
		wider = s;
		if (wider.hosts > wider.racks) {
			wider.racks++;
			assert_true(throughput_allreduce_us(&c, &wider) >= t);
		}
		if (wider.racks > wider.blocks) {
			wider.blocks++;
			assert_true(throughput_allreduce_us(&c, &wider) >= t);
		}
		if (s.hosts > 1 && s.host_gpus_min > 1) {
			wider = s;
			wider.host_gpus_min--;
			assert_true(throughput_allreduce_us(&c, &wider) >= t);
		}
	}
}

struct cross_case {
	enum throughput_algo algo;
	struct throughput_shape s; /* gpus, hosts, racks, blocks, kmin, kmax */
	double rack, block; /* bytes out of racks, blocks, in units of n */
};

/*
 * The ring leaves each domain it spans once, a hop carrying 2((m-1)/m) n
 * (m: GPUs for the flat ring, hosts for the per-rail rings of the
 * hierarchical algorithm, whose k rails carry n/k each).
 */
static const struct cross_case cross_cases[] = {
	/* one rack, one block: nothing leaves them */
	{ THROUGHPUT_RING, { 16, 2, 1, 1, 8, 8 }, 0, 0 },
	/* 16 GPUs over 2 racks: 2 hops of 2 x 15/16 */
	{ THROUGHPUT_RING, { 16, 2, 2, 1, 8, 8 }, 3.75, 0 },
	/* 32 GPUs, 4 racks in 2 blocks: 4 and 2 hops of 2 x 31/32 */
	{ THROUGHPUT_RING, { 32, 4, 4, 2, 8, 8 }, 7.75, 3.875 },
	/* hierarchical, 4 hosts over 2 racks: 2 hops of 2 x 3/4 */
	{ THROUGHPUT_HIERARCHICAL, { 32, 4, 2, 1, 8, 8 }, 3, 0 },
	/* one GPU: nothing to reduce */
	{ THROUGHPUT_RING, { 1, 1, 1, 1, 1, 1 }, 0, 0 },
};

static void test_crossing_bytes(void **state)
{
	struct throughput_config c;

	(void)state;
	throughput_config_init(&c);
	for (size_t i = 0; i < ARRAY_SIZE(cross_cases); i++) {
		const struct cross_case *k = &cross_cases[i];

		c.algo = k->algo;
		assert_near(
			throughput_crossing_bytes(&c, &k->s, THROUGHPUT_RACK) /
				c.grad_bytes,
			k->rack, 1e-12);
		assert_near(
			throughput_crossing_bytes(&c, &k->s, THROUGHPUT_BLOCK) /
				c.grad_bytes,
			k->block, 1e-12);
	}
	/* the compute time depends on the ideal placement only through
	 * comm-fraction, unless compute is set */
	assert_false(throughput_compute_uses_ideal(&c));
	c.comm_fraction = 0.3;
	assert_true(throughput_compute_uses_ideal(&c));
	c.compute_us = 1000;
	assert_false(throughput_compute_uses_ideal(&c));
	c.comm_fraction = 0;
	c.compute_us = 0;
	/* a host's NVLink: 2 hosts of a flat ring of 16, 2 hops */
	c.algo = THROUGHPUT_RING;
	assert_near(throughput_crossing_bytes(&c, &cross_cases[0].s,
					      THROUGHPUT_HOST) /
			    c.grad_bytes,
		    3.75, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allreduce_table),
		cmocka_unit_test(test_reference_figures),
		cmocka_unit_test(test_ideal_shape),
		cmocka_unit_test(test_shape_of),
		cmocka_unit_test(test_shape_of_nodes),
		cmocka_unit_test(test_ratio),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_class_shares),
		cmocka_unit_test(test_class_of),
		cmocka_unit_test(test_param_table),
		cmocka_unit_test(test_monotonic),
		cmocka_unit_test(test_crossing_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

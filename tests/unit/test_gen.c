// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the cluster generator: a table of specs with the values they
 * give or the exact error they raise, the format/parse round trip, and the
 * generated nodes, labels, capacities, Topology and ResourceFlavor, added
 * all or nothing.
 */
#include "sim/gen.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "place/place.h"
#include "sim/throughput.h"
#include "topo/topo.h"
#include "testutil.h"

#include "base/banned.h"

#define GI (1LL << 30)

struct good_case {
	const char *spec;
	int32_t blocks, racks, hosts, gpus;
	int64_t cpu, memory, pods;
	const char *prefix, *topology, *flavor;
};

static const struct good_case good[] = {
	{ "blocks=4,racks=8,hosts=32,gpus=8", 4, 8, 32, 8, 12000, 192 * GI, 14,
	  "gpu", "gpu-topology", "tas-gpu" },
	{ "hosts=2", 1, 1, 2, 8, 12000, 192 * GI, 14, "gpu", "gpu-topology",
	  "tas-gpu" },
	{ "gpus=4,cpu=500m,memory=100Gi,pods=2,blocks=1", 1, 1, 1, 4, 500,
	  100 * GI, 2, "gpu", "gpu-topology", "tas-gpu" },
	{ "prefix=h100,topology=t,flavor=f", 1, 1, 1, 8, 12000, 192 * GI, 14,
	  "h100", "t", "f" },
	{ "topology=,flavor=", 1, 1, 1, 8, 12000, 192 * GI, 14, "gpu", "", "" },
	{ "blocks=1024,racks=32,hosts=32,cpu=0", 1024, 32, 32, 8, 0, 192 * GI,
	  14, "gpu", "gpu-topology", "tas-gpu" },
};

struct bad_case {
	const char *spec;
	const char *msg;
};

static const struct bad_case bad[] = {
	{ "", "spec:1:1: the spec is empty (expected e.g. "
	      "blocks=4,racks=8,hosts=32,gpus=8)" },
	{ "blocks=4,racks", "spec:1:10: expected key=value, not \"racks\"" },
	{ "blocks=4,", "spec:1:10: expected key=value, not \"\"" },
	{ "blocks=4,rack=2",
	  "spec:1:10: rack: unknown key (expected blocks, racks, hosts, gpus, "
	  "cpu, memory, pods, prefix, topology or flavor)" },
	{ "blocks=4,racks=x", "spec:1:16: racks: must be an integer from 1 to "
			      "1048576, not \"x\"" },
	{ "blocks=0", "spec:1:8: blocks: must be an integer from 1 to 1048576, "
		      "not \"0\"" },
	{ "blocks=-1", "spec:1:8: blocks: must be an integer from 1 to "
		       "1048576, not \"-1\"" },
	{ "hosts=", "spec:1:7: hosts: must be an integer from 1 to 1048576, "
		    "not \"\"" },
	{ "gpus=1025", "spec:1:6: gpus: must be an integer from 1 to 1024, "
		       "not \"1025\"" },
	{ "blocks=99999999999999999999", "spec:1:8: blocks: must be an "
					 "integer from 1 to 1048576, not "
					 "\"99999999999999999999\"" },
	{ "hosts=2,hosts=3", "spec:1:9: hosts: given twice" },
	{ "cpu=12x", "spec:1:5: cpu: \"12x\": unknown suffix \"x\"" },
	{ "memory=-1Gi", "spec:1:8: memory: \"-1Gi\": must not be negative" },
	{ "pods=0", "spec:1:1: pods: must be at least 1 per GPU" },
	{ "prefix=", "spec:1:8: prefix: must be a DNS-1123 label of at most 63 "
		     "characters" },
	{ "prefix=GPU", "spec:1:8: prefix: must be a DNS-1123 label of at "
			"most 63 characters" },
	{ "flavor=a.b", "spec:1:8: flavor: must be a DNS-1123 label of at most "
			"63 characters" },
	{ "blocks=1024,racks=32,hosts=33",
	  "spec:1:1: 1024 blocks x 32 racks x 33 hosts = 1081344 hosts, more "
	  "than the limit of 1048576" },
	{ "gpus=1024,memory=9E", "spec:1:1: cpu, memory or pods per GPU times "
				 "1024 GPUs is too large" },
};

static void test_parse(void **state)
{
	struct gen_spec s;
	struct errbuf eb;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		const struct good_case *c = &good[i];

		if (gen_parse(c->spec, NULL, &s, &eb) < 0)
			fail_msg("%s: %s", c->spec, eb.msg);
		assert_int_equal(s.blocks, c->blocks);
		assert_int_equal(s.racks_per_block, c->racks);
		assert_int_equal(s.hosts_per_rack, c->hosts);
		assert_int_equal(s.gpus_per_host, c->gpus);
		assert_int_equal(s.cpu_milli_per_gpu, c->cpu);
		assert_int_equal(s.memory_per_gpu, c->memory);
		assert_int_equal(s.pods_per_gpu, c->pods);
		assert_string_equal(s.prefix, c->prefix);
		assert_string_equal(s.topology_name, c->topology);
		assert_string_equal(s.flavor_name, c->flavor);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&s, 0x5a, sizeof(s));
		assert_int_equal(gen_parse(bad[i].spec, NULL, &s, &eb),
				 -EINVAL);
		if (strcmp(eb.msg, bad[i].msg) != 0)
			fail_msg("%s:\ngot:  %s\nwant: %s", bad[i].spec, eb.msg,
				 bad[i].msg);
		assert_int_equal(s.blocks, 0x5a5a5a5a); /* untouched */
	}
	assert_int_equal(gen_parse("x", "--cluster", &s, &eb), -EINVAL);
	assert_string_equal(eb.msg, "--cluster:1:1: expected key=value, not "
				    "\"x\"");
}

static void test_format_round_trip(void **state)
{
	struct gen_spec a, b;
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		assert_int_equal(gen_parse(good[i].spec, NULL, &a, NULL), 0);
		strbuf_reset(&sb);
		gen_format(&a, &sb);
		assert_int_equal(gen_parse(sb.buf, NULL, &b, NULL), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	gen_spec_init(&a);
	strbuf_reset(&sb);
	gen_format(&a, &sb);
	assert_string_equal(sb.buf, "blocks=1,racks=1,hosts=1,gpus=8,cpu=12,"
				    "memory=192Gi,pods=14,prefix=gpu,"
				    "topology=gpu-topology,flavor=tas-gpu");
	strbuf_release(&sb);
}

static void test_build(void **state)
{
	struct cluster c;
	struct gen_spec s;
	struct diag d;
	const struct node *n;
	const struct topology *t;
	const struct flavor *f;
	int gpu;

	(void)state;
	cluster_init(&c);
	diag_init(&d);
	assert_int_equal(
		gen_parse("blocks=2,racks=3,hosts=4,gpus=8", NULL, &s, NULL),
		0);
	assert_int_equal(gen_build(&c, &s, &d), 0);
	assert_int_equal(cluster_count(&c, KIND_NODE), 24);
	gpu = resource_lookup(c.resources, "nvidia.com/gpu");
	assert_true(gpu >= RESOURCE_FIXED_COUNT);
	/* depth-first: block, then rack, then host */
	n = &c.nodes.items[0];
	assert_string_equal(n->name, "gpu-b0-r0-h0");
	n = &c.nodes.items[23];
	assert_string_equal(n->name, "gpu-b1-r2-h3");
	n = cluster_find(&c, KIND_NODE, NULL, "gpu-b1-r2-h1");
	assert_non_null(n);
	assert_ptr_equal(n, &c.nodes.items[21]);
	assert_string_equal(labels_get(&n->labels, GEN_LABEL_BLOCK), "block-1");
	assert_string_equal(labels_get(&n->labels, GEN_LABEL_RACK), "rack-1-2");
	assert_string_equal(labels_get(&n->labels, TOPOLOGY_HOSTNAME_LABEL),
			    "gpu-b1-r2-h1");
	assert_string_equal(labels_get(&n->labels, GEN_LABEL_GROUP), "tas-gpu");
	assert_int_equal(n->labels.len, 4);
	assert_int_equal(n->allocatable.v[RESOURCE_CPU], 96000);
	assert_int_equal(n->allocatable.v[RESOURCE_MEMORY], 1536 * GI);
	assert_int_equal(n->allocatable.v[RESOURCE_PODS], 112);
	assert_int_equal(n->allocatable.v[gpu], 8);
	assert_true(node_schedulable(n));
	assert_int_equal(n->ntaints, 0);

	t = cluster_find(&c, KIND_TOPOLOGY, NULL, "gpu-topology");
	assert_non_null(t);
	assert_int_equal(t->nlevels, 3);
	assert_string_equal(t->levels[0], GEN_LABEL_BLOCK);
	assert_string_equal(t->levels[1], GEN_LABEL_RACK);
	assert_true(topology_lowest_is_hostname(t));
	assert_int_equal(topology_rack_level(t), 1);
	f = cluster_find(&c, KIND_FLAVOR, NULL, "tas-gpu");
	assert_non_null(f);
	assert_string_equal(f->topology_name, "gpu-topology");
	assert_string_equal(labels_get(&f->node_labels, GEN_LABEL_GROUP),
			    "tas-gpu");
	assert_true(labels_contains_all(&n->labels, &f->node_labels));

	/* the same again clashes everywhere and adds nothing */
	assert_int_equal(gen_build(&c, &s, &d), -EEXIST);
	assert_int_equal(d.errors, 26);
	assert_int_equal(cluster_count(&c, KIND_NODE), 24);
	assert_int_equal(cluster_count(&c, KIND_TOPOLOGY), 1);

	/* another prefix without topology and flavor adds only hosts */
	diag_release(&d);
	diag_init(&d);
	assert_int_equal(gen_parse("hosts=2,gpus=4,prefix=cpu,topology=,"
				   "flavor=",
				   NULL, &s, NULL),
			 0);
	assert_int_equal(gen_build(&c, &s, &d), 0);
	assert_int_equal(cluster_count(&c, KIND_NODE), 26);
	assert_int_equal(cluster_count(&c, KIND_FLAVOR), 1);
	n = cluster_find(&c, KIND_NODE, NULL, "cpu-b0-r0-h1");
	assert_non_null(n);
	assert_null(labels_get(&n->labels, GEN_LABEL_GROUP));
	assert_int_equal(n->allocatable.v[gpu], 4);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	cluster_release(&c);
}

/* The placement's shape, and its throughput against the ideal. */
static void check_throughput(const struct topo *t,
			     const struct place_result *res, int32_t n)
{
	const struct node **nodes = xcalloc((size_t)n, sizeof(*nodes));
	struct throughput_geometry g = { 8, 4, 2 };
	struct throughput_shape s, ideal;
	struct throughput_config c;

	for (int32_t i = 0; i < n; i++)
		nodes[i] = t->node_src[res->worker_nodes.items[i]];
	assert_int_equal(throughput_shape_of_nodes(nodes, (size_t)n, 8,
						   GEN_LABEL_BLOCK,
						   GEN_LABEL_RACK, &s, NULL),
			 0);
	assert_int_equal(throughput_ideal_shape(&g, n, 8, &ideal, NULL), 0);
	assert_int_equal(s.hosts, n);
	throughput_config_init(&c);
	/* the placement packs as tightly as possible here */
	assert_true(throughput_ratio(&c, THROUGHPUT_DATA, &s, &ideal) == 1);
	assert_int_equal(s.racks, ideal.racks);
	free(nodes);
}

/* Place a gang of n 8-GPU pods with a topology request; return the
 * number of distinct racks it landed on, or 0 when it does not fit. */
static int place_gang(const struct topo *t, int gpu, int32_t n,
		      enum topology_mode mode, const char *level)
{
	struct podset ps;
	struct place_request req;
	struct place_result res;
	int racks = 0;
	const char *last = NULL;

	podset_init(&ps);
	ps.count = ps.min_count = n;
	ps.requests.v[gpu] = 8;
	ps.requests.v[RESOURCE_CPU] = 96000;
	ps.requests.v[RESOURCE_PODS] = 1;
	ps.topology.mode = mode;
	ps.topology.level = level;
	place_request_init(&req, &ps);
	place_result_init(&res);
	if (place_podset(t, &req, &res)) {
		for (size_t i = 0; i < res.worker_nodes.len; i++) {
			const struct node *nd =
				t->node_src[res.worker_nodes.items[i]];
			const char *rack =
				labels_get(&nd->labels, GEN_LABEL_RACK);

			if (!last || strcmp(rack, last) != 0)
				racks++;
			last = rack;
		}
		assert_int_equal(res.worker_nodes.len, n);
		check_throughput(t, &res, n);
	}
	place_result_release(&res);
	podset_release(&ps);
	return racks;
}

/* TAS placement runs on a generated cluster. */
static void test_placement(void **state)
{
	struct cluster c;
	struct gen_spec s;
	struct diag d;
	struct topo *t;
	int gpu;

	(void)state;
	cluster_init(&c);
	diag_init(&d);
	assert_int_equal(gen_parse("blocks=2,racks=2,hosts=4", NULL, &s, NULL),
			 0);
	assert_int_equal(gen_build(&c, &s, &d), 0);
	gpu = resource_lookup(c.resources, GEN_GPU_RESOURCE);
	t = topo_new(cluster_find(&c, KIND_TOPOLOGY, NULL, "gpu-topology"),
		     cluster_find(&c, KIND_FLAVOR, NULL, "tas-gpu"),
		     c.nodes.items, c.nodes.len, c.resources);
	assert_int_equal(t->nnodes, 16);
	assert_int_equal(t->nlevels, 3);
	assert_int_equal(t->ndomains, 2 + 4 + 16);
	assert_true(topo_check(t, NULL));
	/* 4 whole hosts fit one rack; 5 do not, unless only preferred */
	assert_int_equal(
		place_gang(t, gpu, 4, TOPOLOGY_REQUIRED, GEN_LABEL_RACK), 1);
	assert_int_equal(
		place_gang(t, gpu, 5, TOPOLOGY_REQUIRED, GEN_LABEL_RACK), 0);
	assert_int_equal(
		place_gang(t, gpu, 5, TOPOLOGY_PREFERRED, GEN_LABEL_RACK), 2);
	assert_int_equal(
		place_gang(t, gpu, 8, TOPOLOGY_REQUIRED, GEN_LABEL_BLOCK), 2);
	topo_free(t);
	diag_release(&d);
	cluster_release(&c);
}

static void test_level_label(void **state)
{
	(void)state;
	assert_string_equal(gen_level_label("block"), GEN_LABEL_BLOCK);
	assert_string_equal(gen_level_label("rack"), GEN_LABEL_RACK);
	assert_string_equal(gen_level_label("host"), TOPOLOGY_HOSTNAME_LABEL);
	assert_string_equal(gen_level_label("hostname"),
			    TOPOLOGY_HOSTNAME_LABEL);
	assert_string_equal(gen_level_label("example.com/zone"),
			    "example.com/zone");
}

/* The level above the hosts, with and without a hostname level. */
static void test_rack_level(void **state)
{
	struct topology t = { .name = "t" };

	(void)state;
	assert_int_equal(topology_rack_level(&t), -1);
	t.levels[0] = "zone";
	t.nlevels = 1;
	assert_int_equal(topology_rack_level(&t), 0);
	t.levels[0] = TOPOLOGY_HOSTNAME_LABEL;
	assert_int_equal(topology_rack_level(&t), -1);
	t.levels[0] = "block";
	t.levels[1] = "rack";
	t.nlevels = 2;
	assert_int_equal(topology_rack_level(&t), 1);
	t.levels[2] = TOPOLOGY_HOSTNAME_LABEL;
	t.nlevels = 3;
	assert_int_equal(topology_rack_level(&t), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_rack_level),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_level_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

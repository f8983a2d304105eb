// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench place: build a synthetic GPU cluster (blocks of 16 racks of
 * 32 hosts, 8 GPUs each, about half of the GPUs used in a random,
 * fragmented pattern), then time placements of one gang with a required
 * rack or block, with a little usage churn between placements so that no
 * two see the same state. Prints the median and p99 time per placement and
 * the bytes per node of the index and the placement scratch.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/intern.h"
#include "base/rng.h"
#include "place/place_baseline.h"
#include "topo/topo.h"

#include "base/banned.h"

#define HOSTS_PER_RACK	32
#define RACKS_PER_BLOCK 16
#define GPUS		8
#define GIB		(INT64_C(1) << 30)

struct bench_opts {
	uint32_t nodes;
	int32_t gang;
	const char *level;
	uint32_t placements;
	uint64_t seed;
	bool json;
	enum place_policy policy;
	bool cold;
	enum placement_algorithm algorithm; /* --placement-algorithm */
};

struct bench_cluster {
	struct intern strs;
	struct resource_registry reg;
	struct topology topology;
	struct node *nodes;
	uint32_t n;
	int gpu;
};

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of this thread: what a placement costs without the time the
 * machine gave to other processes meanwhile. */
static int64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void use_gpus(const struct bench_cluster *bc, struct node *n, int64_t k)
{
	n->usage.v[bc->gpu] = k;
	n->usage.v[RESOURCE_CPU] = k * 12000;
	n->usage.v[RESOURCE_MEMORY] = k * 96 * GIB;
	n->usage.v[RESOURCE_PODS] = k;
}

static void gen_cluster(struct bench_cluster *bc, uint32_t nnodes,
			struct rng *g)
{
	char name[64];

	intern_init(&bc->strs);
	resource_registry_init(&bc->reg);
	bc->gpu = resource_id(&bc->reg, "nvidia.com/gpu", NULL);
	bc->topology.name = intern_str(&bc->strs, "gpu-topology");
	bc->topology.levels[0] = intern_str(&bc->strs, "block");
	bc->topology.levels[1] = intern_str(&bc->strs, "rack");
	bc->topology.levels[2] = intern_str(&bc->strs, TOPOLOGY_HOSTNAME_LABEL);
	bc->topology.nlevels = 3;
	bc->nodes = xcalloc(nnodes + 1, sizeof(*bc->nodes));
	bc->n = nnodes;
	for (uint32_t i = 0; i < nnodes; i++) {
		struct node *n = &bc->nodes[i];
		uint32_t rack = i / HOSTS_PER_RACK;
		uint32_t block = rack / RACKS_PER_BLOCK;

		node_init(n);
		snprintf(name, sizeof(name), "b%03" PRIu32, block);
		labels_set(&n->labels, bc->topology.levels[0],
			   intern_str(&bc->strs, name));
		snprintf(name, sizeof(name), "b%03" PRIu32 "-r%02" PRIu32,
			 block, rack % RACKS_PER_BLOCK);
		labels_set(&n->labels, bc->topology.levels[1],
			   intern_str(&bc->strs, name));
		snprintf(name, sizeof(name),
			 "b%03" PRIu32 "-r%02" PRIu32 "-h%02" PRIu32, block,
			 rack % RACKS_PER_BLOCK, i % HOSTS_PER_RACK);
		n->name = intern_str(&bc->strs, name);
		labels_set(&n->labels, bc->topology.levels[2], n->name);
		n->allocatable.v[RESOURCE_CPU] = 128000;
		n->allocatable.v[RESOURCE_MEMORY] = 1024 * GIB;
		n->allocatable.v[RESOURCE_PODS] = 110;
		n->allocatable.v[bc->gpu] = GPUS;
		/* uniform 0..8 used GPUs: half used, fragmented */
		use_gpus(bc, n, (int64_t)rng_below(g, GPUS + 1));
	}
}

static void free_cluster(struct bench_cluster *bc)
{
	for (uint32_t i = 0; i < bc->n; i++)
		node_release(&bc->nodes[i]);
	free(bc->nodes);
	resource_registry_release(&bc->reg);
	intern_release(&bc->strs);
}

/* Move one GPU pod on 16 random nodes (allocate or release). */
static void churn(struct topo *t, const struct resvec *pod, int gpu,
		  struct rng *g)
{
	for (int i = 0; i < 16; i++) {
		uint32_t n = (uint32_t)rng_below(g, t->nnodes);
		int64_t used = GPUS - t->node_free[(size_t)n * t->nres + gpu];
		int64_t k = rng_below(g, 2) ? 1 : -1;

		if (used + k < 0 || used + k > GPUS)
			k = -k;
		topo_node_add_usage(t, n, pod, k);
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

struct bench_out {
	int64_t *ns;
	int64_t *cpu;
	uint32_t fits;
	double build_ms;
	size_t index_bytes, scratch_bytes, model_bytes;
};

static void run_placements(const struct bench_opts *o, struct bench_cluster *bc,
			   struct topo *t, struct bench_out *bo, struct rng *g)
{
	struct podset ps;
	struct place_request req;
	struct place_result res;
	struct placement_config cfg = { o->algorithm, false, false };

	podset_init(&ps);
	ps.name = "bench";
	ps.count = o->gang;
	ps.requests.v[RESOURCE_CPU] = 12000;
	ps.requests.v[RESOURCE_MEMORY] = 96 * GIB;
	ps.requests.v[RESOURCE_PODS] = 1;
	ps.requests.v[bc->gpu] = 1;
	ps.topology.mode = TOPOLOGY_REQUIRED;
	ps.topology.level = o->level;
	place_request_init(&req, &ps);
	req.cold = o->cold;
	req.config = &cfg;
	place_result_init(&res);
	for (uint32_t i = 0; i < o->placements; i++) {
		int64_t t0, c0;
		bool ok;

		churn(t, &ps.requests, bc->gpu, g);
		c0 = cpu_ns();
		t0 = now_ns();
		if (o->policy == PLACE_POLICY_TAS)
			ok = place_podset(t, &req, &res);
		else
			ok = place_baseline_podset(t, o->policy, &req, &res);
		bo->ns[i] = now_ns() - t0;
		bo->cpu[i] = cpu_ns() - c0;
		bo->fits += ok;
	}
	bo->scratch_bytes = place_result_bytes(&res);
	place_result_release(&res);
	podset_release(&ps);
}

static int64_t pct(const int64_t *sorted, uint32_t n, double p)
{
	uint32_t i = (uint32_t)(p * (n - 1) + 0.5);

	return sorted[i < n ? i : n - 1];
}

static void report(const struct bench_opts *o, const struct bench_out *bo)
{
	uint32_t n = o->placements;
	double per_node =
		(double)(bo->index_bytes + bo->scratch_bytes) / o->nodes;
	int64_t sum = 0;

	qsort(bo->ns, n, sizeof(int64_t), cmp_i64);
	qsort(bo->cpu, n, sizeof(int64_t), cmp_i64);
	for (uint32_t i = 0; i < n; i++)
		sum += bo->ns[i];
	if (o->json) {
		printf("{\"nodes\":%" PRIu32 ",\"gang\":%" PRId32
		       ",\"level\":\"%s\",\"policy\":\"%s\",\"cache\":%s,"
		       "\"placements\":%" PRIu32 ",\"fits\":%" PRIu32
		       ",\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,"
		       "\"mean_us\":%.1f,\"cpu_p50_us\":%.1f,"
		       "\"cpu_p99_us\":%.1f,\"build_ms\":%.1f,"
		       "\"bytes_per_node\":%.0f,\"model_bytes_per_node\":%.0f}"
		       "\n",
		       o->nodes, o->gang, o->level,
		       place_policy_name(o->policy), o->cold ? "false" : "true",
		       n, bo->fits, pct(bo->ns, n, 0.5) / 1e3,
		       pct(bo->ns, n, 0.99) / 1e3, bo->ns[n - 1] / 1e3,
		       (double)sum / n / 1e3, pct(bo->cpu, n, 0.5) / 1e3,
		       pct(bo->cpu, n, 0.99) / 1e3, bo->build_ms, per_node,
		       (double)bo->model_bytes / o->nodes);
		return;
	}
	printf("nodes %" PRIu32 ", gang %" PRId32
	       ", required %s, policy %s%s\n",
	       o->nodes, o->gang, o->level, place_policy_name(o->policy),
	       o->cold ? ", cold" : "");
	printf("  placements %" PRIu32 " (%" PRIu32 " fit)\n", n, bo->fits);
	printf("  wall: p50 %.1f us, p99 %.1f us, max %.1f us, mean %.1f us\n",
	       pct(bo->ns, n, 0.5) / 1e3, pct(bo->ns, n, 0.99) / 1e3,
	       bo->ns[n - 1] / 1e3, (double)sum / n / 1e3);
	printf("  cpu:  p50 %.1f us, p99 %.1f us\n", pct(bo->cpu, n, 0.5) / 1e3,
	       pct(bo->cpu, n, 0.99) / 1e3);
	printf("  index build %.1f ms; %.0f bytes per node (index and "
	       "scratch), %.0f more in the node model\n",
	       bo->build_ms, per_node, (double)bo->model_bytes / o->nodes);
}

static int bench_place(const struct bench_opts *o)
{
	struct bench_cluster bc;
	struct bench_out bo = { 0 };
	struct rng g;
	struct topo *t;
	int64_t t0;

	rng_seed(&g, o->seed);
	gen_cluster(&bc, o->nodes, &g);
	t0 = now_ns();
	t = topo_new(&bc.topology, NULL, bc.nodes, bc.n, &bc.reg);
	bo.build_ms = (now_ns() - t0) / 1e6;
	bo.index_bytes = topo_bytes(t);
	bo.model_bytes =
		bc.n * (sizeof(struct node) + 3 * sizeof(struct label));
	bo.ns = xcalloc(o->placements, sizeof(int64_t));
	bo.cpu = xcalloc(o->placements, sizeof(int64_t));
	run_placements(o, &bc, t, &bo, &g);
	report(o, &bo);
	free(bo.ns);
	free(bo.cpu);
	topo_free(t);
	free_cluster(&bc);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: echelon bench place [--nodes N] [--gang K]\n"
		"                           [--level rack|block]\n"
		"                           [--placements P] [--seed S]\n"
		"                           [--policy "
		"tas|kube-default|first-fit]\n"
		"                           [--cold] [-o text|json]\n"
		"                           [--placement-algorithm NAME]\n"
		"\n"
		"Time placements of one gang (K pods of 1 GPU, 12 cores, "
		"96Gi)\n"
		"with a required rack or block on a synthetic cluster of N\n"
		"nodes (blocks of 16 racks of 32 hosts, 8 GPUs each, half of\n"
		"the GPUs used at random), and report p50/p99 and memory.\n"
		"16 nodes change usage between two placements. --cold drops\n"
		"the counts cached from the previous placement each time.\n"
		"--placement-algorithm: Mixed (default), BestFit,\n"
		"LeastFreeCapacity or FragmentationAware.\n");
}

static int parse_opt(int opt, struct bench_opts *o)
{
	uint64_t v = 0;

	switch (opt) {
	case 'n':
		if (cli_parse_u64(optarg, 1, 1u << 24, &v) < 0)
			return cli_bad_value("bench place", "--nodes", optarg,
					     "expected 1 to 16777216");
		o->nodes = (uint32_t)v;
		return 0;
	case 'g':
		if (cli_parse_u64(optarg, 1, 1u << 20, &v) < 0)
			return cli_bad_value("bench place", "--gang", optarg,
					     "expected 1 to 1048576");
		o->gang = (int32_t)v;
		return 0;
	case 'l':
		if (strcmp(optarg, "rack") && strcmp(optarg, "block"))
			return cli_bad_value("bench place", "--level", optarg,
					     "expected rack or block");
		o->level = optarg;
		return 0;
	case 'p':
		if (cli_parse_u64(optarg, 1, 10000000, &v) < 0)
			return cli_bad_value("bench place", "--placements",
					     optarg, "expected 1 to 10000000");
		o->placements = (uint32_t)v;
		return 0;
	case 's':
		if (cli_parse_u64(optarg, 0, UINT64_MAX, &v) < 0)
			return cli_bad_value("bench place", "--seed", optarg,
					     "expected a whole number");
		o->seed = v;
		return 0;
	case 'P':
		if (place_policy_parse(optarg, &o->policy) < 0)
			return cli_bad_value("bench place", "--policy", optarg,
					     "expected tas, kube-default or "
					     "first-fit");
		return 0;
	case 'o':
		if (strcmp(optarg, "json") && strcmp(optarg, "text"))
			return cli_bad_value("bench place", "--output", optarg,
					     "expected text or json");
		o->json = strcmp(optarg, "json") == 0;
		return 0;
	case 'c':
		o->cold = true;
		return 0;
	case 'A':
		if (cli_parse_placement_algorithm("bench place", optarg,
						  &o->algorithm))
			return 3;
		return 0;
	case 'h':
		usage(stdout);
		return 1;
	default:
		return 2;
	}
}

/* echelon bench place ...: argv[0] is "place". */
int cli_bench_place(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "gang", required_argument, NULL, 'g' },
		{ "level", required_argument, NULL, 'l' },
		{ "placements", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "cold", no_argument, NULL, 'c' },
		{ "placement-algorithm", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { 16384,
				64,
				"rack",
				1000,
				1,
				false,
				PLACE_POLICY_TAS,
				false,
				PLACEMENT_MIXED };
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		rc = parse_opt(opt, &o);
		if (rc == 1)
			return 0;
		if (rc == 2)
			usage(stderr);
		if (rc)
			return 2;
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	return bench_place(&o);
}

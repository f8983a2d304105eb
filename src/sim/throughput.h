/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The training-throughput model: what a gang's placement costs per step.
 *
 * A data-parallel step is compute followed by an all-reduce of the
 * gradients; the all-reduce is an alpha-beta cost over the slowest links
 * the placement crosses (reference: traces-and-models.md 2.3-2.6):
 *
 *   ring          T = 2(p-1) a + 2((p-1)/p) n / B
 *                 B = min(B_nvl, k * B_l / f_l for every level l crossed)
 *   hierarchical  T = 2(g-1) a_nvl + 2((g-1)/g) n / B_nvl          (in host)
 *                   + 2(N-1) a    + 2((N-1)/N) (n/k) / min(B_l / f_l)
 *
 * p ranks (GPUs), n gradient bytes, N hosts, k and g the fewest and most
 * GPUs of the gang on one of its hosts (k rails: one NIC per GPU), a the
 * per-step latency of the highest level crossed, f_l the oversubscription
 * above a level. Default figures (all configurable):
 *   - B_nvl 367.61 GB/s: 8xH200 NVLink ring all-reduce busbw without NVLS
 *     (ml-engineering all-reduce-8xH200.md, 82 % of 450 GB/s);
 *   - B_l 45 GB/s per GPU rail: one 400 Gb/s NDR NIC per GPU at ~90 %
 *     (the 0.9 x 400 = 360 GB/s per node of section 2.5);
 *   - f: 1 inside a rack (non-blocking leaf, HGX reference architecture),
 *     2 above the rack (Cornelis 2:1 two-tier example), 4 across blocks
 *     (traditional 4:1 leaf-spine); section 2.2 says to sweep these;
 *   - a per ring step: 1.3 us in a host (a 32 KiB all-reduce takes ~18 us
 *     over 14 steps), 1.6 us in a rack (~100 us over 62 steps on 4 nodes),
 *     then +0.5 us per extra link (SimAI NIC link latency): 2.6 us in a
 *     block, 3.6 us across blocks;
 *   - n = 1 GiB (bf16 gradients of ~537M parameters, section 2.5).
 * With a = 0 the model gives section 2.5's figures: 5.1 ms in one host,
 * 5.6 ms on two hosts of a rack, 11.2 ms on 4 hosts x 4 GPUs or on 2 hosts
 * across a 2:1 spine, 22 ms across 4:1.
 *
 * A placement is compared with the ideal one, the same gang packed into
 * the fewest hosts, racks and blocks; the throughput ratio ideal/actual
 * step time is in (0, 1], and a job's duration stretches by 1/ratio. Pure:
 * no I/O, no clock; doubles only, so results are deterministic.
 */
#ifndef ECHELON_SIM_THROUGHPUT_H
#define ECHELON_SIM_THROUGHPUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "model/node.h"

enum throughput_level {
	THROUGHPUT_HOST,    /* NVLink inside one host */
	THROUGHPUT_RACK,    /* hosts under one leaf switch */
	THROUGHPUT_BLOCK,   /* racks under one block's spine */
	THROUGHPUT_CLUSTER, /* across blocks */
	THROUGHPUT_LEVEL_COUNT
};

enum throughput_algo {
	THROUGHPUT_RING,	 /* one flat ring over all ranks */
	THROUGHPUT_HIERARCHICAL, /* in-host, then across hosts per rail */
	THROUGHPUT_ALGO_COUNT
};

struct throughput_link {
	double bw_gbps;	 /* GB/s one way: busbw in a host, per rail above */
	double alpha_us; /* latency of one ring step crossing this level */
	double oversub;	 /* oversubscription of the links into it (>= 1) */
};

struct throughput_config {
	struct throughput_link link[THROUGHPUT_LEVEL_COUNT];
	enum throughput_algo algo;
	double grad_bytes;    /* bytes all-reduced per step */
	double compute_us;    /* compute per step; <= 0: use comm_fraction */
	double comm_fraction; /* all-reduce share of the ideal step, [0, 1] */
	double overlap;	      /* share of compute that hides comm., [0, 1] */
};

/* Where a gang runs, in the terms the model needs. */
struct throughput_shape {
	int32_t gpus; /* ranks: GPUs of the gang */
	int32_t hosts, racks, blocks;
	int32_t host_gpus_min, host_gpus_max; /* of the hosts it uses */
};

/*
 * One pod's domains. A domain is known by its path: block; (block, rack);
 * (block, rack, host). Ids may thus be global or relative to the parent.
 */
struct throughput_pod {
	int64_t host, rack, block;
};

struct throughput_geometry {
	int32_t gpus_per_host;
	int32_t hosts_per_rack;
	int32_t racks_per_block;
};

/* The defaults above: ring, 1 GiB, comm_fraction 0.3, no overlap. */
void throughput_config_init(struct throughput_config *c);
/*
 * Check a configuration: bandwidths > 0, latencies >= 0, oversubscription
 * >= 1, bytes >= 0, comm_fraction in (0, 1] when compute_us <= 0, overlap
 * in [0, 1]. -EINVAL with a message naming the field. The functions below
 * assume a configuration that passes (BUG otherwise).
 */
int throughput_config_check(const struct throughput_config *c,
			    struct errbuf *eb) MUST_CHECK;

/*
 * The shape of npods (>= 1) pods with gpus_per_pod (>= 1) GPUs each.
 * -EINVAL with a message in eb when a count is out of range (the total
 * must fit int32). Callers holding counts per domain instead (a topology
 * assignment) may fill a struct throughput_shape themselves.
 */
int throughput_shape_of(const struct throughput_pod *pods, size_t npods,
			int32_t gpus_per_pod, struct throughput_shape *ret,
			struct errbuf *eb) MUST_CHECK;

/*
 * The shape of a gang from the node of each of its npods pods (as a
 * placement returns them) and the label keys of the block and rack levels
 * (either may be NULL when the topology has no such level: every node is
 * then in one block, or its own rack). A node is its own host. Label
 * values are compared as strings; nodes without the label share one
 * unnamed domain. Same errors as throughput_shape_of(),
 * and -EINVAL when a node is NULL.
 */
int throughput_shape_of_nodes(const struct node *const *nodes, size_t npods,
			      int32_t gpus_per_pod, const char *block_key,
			      const char *rack_key,
			      struct throughput_shape *ret,
			      struct errbuf *eb) MUST_CHECK;

/*
 * The ideal shape of a gang of pods x gpus_per_pod on geometry g: the
 * fewest hosts (as many pods per host as fit), racks and blocks, with the
 * pods spread evenly over those hosts. -EINVAL with a message when a pod
 * does not fit a host or a count is not positive.
 */
int throughput_ideal_shape(const struct throughput_geometry *g, int32_t pods,
			   int32_t gpus_per_pod, struct throughput_shape *ret,
			   struct errbuf *eb) MUST_CHECK;

/* The highest level a shape crosses (HOST for one host). */
enum throughput_level throughput_level_of(const struct throughput_shape *s);

/* The all-reduce time of one step in microseconds (0 for one GPU). */
double throughput_allreduce_us(const struct throughput_config *c,
			       const struct throughput_shape *s);

/*
 * The step time of a gang placed as actual, whose ideal placement is
 * ideal (which sets the compute time when compute_us <= 0).
 */
double throughput_step_us(const struct throughput_config *c,
			  const struct throughput_shape *actual,
			  const struct throughput_shape *ideal);

/* Ideal step time over actual step time, clamped to (0, 1]. */
double throughput_ratio(const struct throughput_config *c,
			const struct throughput_shape *actual,
			const struct throughput_shape *ideal);

/* A duration at the ideal placement stretched by 1/ratio (ratio in
 * (0, 1]), rounded to the microsecond and saturated at INT64_MAX. */
int64_t throughput_stretch_us(int64_t ideal_us, double ratio);

/* The keys throughput_set_key() knows, for messages. */
#define THROUGHPUT_KEYS                                                        \
	"bw-LEVEL (GB/s), lat-LEVEL (us), oversub-LEVEL, LEVEL one of host, "  \
	"rack, block, cluster; algo, grad (bytes), compute (us), "             \
	"comm-fraction, overlap"

/*
 * Set one figure from text: bw-host, bw-rack, bw-block, bw-cluster (GB/s),
 * lat-<level> (us per ring step), oversub-<level> (>= 1), algo (ring or
 * hierarchical), grad (bytes per step), compute (us per step, 0: from
 * comm-fraction), comm-fraction, overlap. Returns 0, -ENOENT for another
 * key (nothing set), or -EINVAL with a message in eb for a bad value.
 * The whole configuration is checked by throughput_config_check().
 */
int throughput_set_key(struct throughput_config *c, const char *key,
		       size_t klen, const char *val, size_t vlen,
		       struct errbuf *eb) MUST_CHECK;
/*
 * Apply "key=value,..." (the keys above) to c, all or nothing; origin
 * names the text in messages ("origin:1:col: key: what is wrong").
 */
int throughput_parse(const char *text, const char *origin,
		     struct throughput_config *c, struct errbuf *eb) MUST_CHECK;

const char *throughput_level_name(enum throughput_level l);
const char *throughput_algo_name(enum throughput_algo a);

#endif

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
 * above a level. Every figure, its default, its plausible range and its
 * source are in one table (throughput_param_at()), documented with the
 * sources in docs/internals/simulator.md; with a = 0 and the figures of
 * traces-and-models.md 2.5 the model gives that section's worked figures
 * (tests/unit/test_throughput.c).
 *
 * The compute time of a step comes from the job's communication share:
 * its class (data-, tensor- or pipeline-parallel) gives the exposed
 * all-reduce share s of a step at a reference placement (2 hosts x 8 GPUs
 * under one leaf, where the published figures were measured); compute is
 * then T_ref (1 - s) / s, the same for every size of the class, and the
 * share of a job of any size follows from the all-reduce time of its own
 * ideal placement: larger gangs, whose ideal placement spans more hosts,
 * racks or blocks, spend more of their step communicating. A job without
 * a class takes one by its size (tensor-from). comm-fraction, when set,
 * overrides the classes with one share at every job's ideal placement,
 * and compute with one compute time.
 *
 * A placement is compared with the ideal one, the same gang packed into
 * the fewest hosts, racks and blocks; the throughput ratio ideal/actual
 * step time is in (0, 1], and a job's duration stretches by 1/ratio. Pure:
 * no I/O, no clock; doubles only, so results are deterministic.
 */
#ifndef ECHELON_SIM_THROUGHPUT_H
#define ECHELON_SIM_THROUGHPUT_H

#include <stdbool.h>
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

/*
 * What a job's parallelism sends across hosts each step, which sets its
 * communication share. THROUGHPUT_CLASS_BY_SIZE: none given, chosen by
 * size (throughput_class_of()).
 */
enum throughput_class {
	THROUGHPUT_DATA,     /* data-parallel: all gradients, every GPU */
	THROUGHPUT_TENSOR,   /* tensor-parallel in a host, data-parallel
				across hosts (Megatron-style LLM training) */
	THROUGHPUT_PIPELINE, /* pipeline stages across hosts */
	THROUGHPUT_CLASS_COUNT,
	THROUGHPUT_CLASS_BY_SIZE = THROUGHPUT_CLASS_COUNT
};

struct throughput_config {
	struct throughput_link link[THROUGHPUT_LEVEL_COUNT];
	enum throughput_algo algo;
	double grad_bytes;    /* bytes all-reduced per step */
	double compute_us;    /* compute per step; <= 0: from the shares */
	double comm_fraction; /* one all-reduce share of every job's ideal
				 step, (0, 1]; 0: per class (share[]) */
	double overlap;	      /* share of compute that hides comm., [0, 1] */
	/* exposed all-reduce share of a step at the reference placement
	 * per class, (0, 1) */
	double share[THROUGHPUT_CLASS_COUNT];
	double tensor_from; /* GPUs from which a job without a class is
			       tensor-parallel; 0: never */
};

/*
 * One figure of the model as the table of defaults records it: its key
 * (throughput_set_key()), default, the plausible range its sources give
 * (lo = hi when they give one value), unit ("" when none) and source in
 * a few words (docs/internals/simulator.md has the full references).
 */
struct throughput_param {
	const char *key;
	double def, lo, hi;
	const char *unit;
	const char *source;
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

/* The defaults of the table (throughput_param_at()) and ring. */
void throughput_config_init(struct throughput_config *c);

/* The number of rows of the table of figures, and row i (< that; NULL
 * beyond). Static. */
size_t throughput_param_count(void);
const struct throughput_param *throughput_param_at(size_t i);
/* The value of numeric key (a row's key) in c; -ENOENT for another key. */
int throughput_get(const struct throughput_config *c, const char *key,
		   double *ret) MUST_CHECK;

/* The class of a job of gpus GPUs whose class is given as k
 * (THROUGHPUT_CLASS_BY_SIZE: none): k, else tensor from tensor_from GPUs
 * on, else data. */
enum throughput_class throughput_class_of(const struct throughput_config *c,
					  enum throughput_class k,
					  int64_t gpus);
/* "data", "tensor", "pipeline"; "" for THROUGHPUT_CLASS_BY_SIZE. */
const char *throughput_class_name(enum throughput_class k);
/* The class called name[0..len); -EINVAL for another. */
int throughput_class_parse(const char *name, size_t len,
			   enum throughput_class *ret) MUST_CHECK;
/* The placement the class shares refer to: 2 hosts x 8 GPUs, one rack. */
void throughput_reference_shape(struct throughput_shape *ret);
/*
 * Check a configuration: bandwidths > 0, latencies >= 0, oversubscription
 * >= 1, bytes >= 0, comm_fraction 0 or in (0, 1], shares in (0, 1),
 * tensor_from >= 0, overlap in [0, 1]. -EINVAL with a message naming the field.
 * The functions below assume a configuration that passes (BUG otherwise).
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
 * The bytes of one step's all-reduce, placed as s, that leave the domains
 * of level l (HOST, RACK or BLOCK; their boundaries' links): the ring (one
 * per rail with the hierarchical algorithm) leaves each domain the shape
 * spans once, and each hop carries 2((m-1)/m) of the reduced bytes. 0
 * when s is inside one such domain. Divided by throughput_step_us(), the
 * traffic the placement puts on those links, in bytes per microsecond.
 */
double throughput_crossing_bytes(const struct throughput_config *c,
				 const struct throughput_shape *s,
				 enum throughput_level l);

/*
 * The compute time of one step of a job of class k (not BY_SIZE) whose
 * ideal placement is ideal: compute_us when set, else from comm_fraction
 * at ideal when set, else from the class's share at the reference
 * placement.
 */
double throughput_compute_us(const struct throughput_config *c,
			     enum throughput_class k,
			     const struct throughput_shape *ideal);
/* Whether throughput_compute_us() depends on its ideal placement (only
 * with comm_fraction set and compute_us not): a caller that needs only
 * the step time of an actual placement may skip working the ideal out. */
bool throughput_compute_uses_ideal(const struct throughput_config *c);

/* The all-reduce share of the step of a job of class k placed as s
 * (its ideal placement, say), in [0, 1]; 0 when nothing is reduced. */
double throughput_share(const struct throughput_config *c,
			enum throughput_class k,
			const struct throughput_shape *s);

/*
 * The step time of a gang of class k placed as actual, whose ideal
 * placement is ideal (which sets the compute time, above).
 */
double throughput_step_us(const struct throughput_config *c,
			  enum throughput_class k,
			  const struct throughput_shape *actual,
			  const struct throughput_shape *ideal);

/* Ideal step time over actual step time, clamped to (0, 1]. */
double throughput_ratio(const struct throughput_config *c,
			enum throughput_class k,
			const struct throughput_shape *actual,
			const struct throughput_shape *ideal);

/* A duration at the ideal placement stretched by 1/ratio (ratio in
 * (0, 1]), rounded to the microsecond and saturated at INT64_MAX. */
int64_t throughput_stretch_us(int64_t ideal_us, double ratio);

/* The keys throughput_set_key() knows, for messages. */
#define THROUGHPUT_KEYS                                                        \
	"bw-LEVEL (GB/s), lat-LEVEL (us), oversub-LEVEL, LEVEL one of host, "  \
	"rack, block, cluster; algo, grad (bytes), compute (us), "             \
	"comm-fraction, overlap, share-data, share-tensor, share-pipeline, "   \
	"tensor-from (GPUs)"

/*
 * Set one figure from text: bw-host, bw-rack, bw-block, bw-cluster (GB/s),
 * lat-<level> (us per ring step), oversub-<level> (>= 1), algo (ring or
 * hierarchical), grad (bytes per step), compute (us per step, 0: from
 * the shares), comm-fraction (0: per class), overlap, share-<class>,
 * tensor-from (GPUs). Returns 0, -ENOENT for another
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

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The synthetic cluster shared by the scheduler benchmarks: bench admit and
 * bench churn build the same nodes, queues and workload shapes, so that
 * their figures compare.
 */
#ifndef ECHELON_CLI_BENCH_CLUSTER_H
#define ECHELON_CLI_BENCH_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rng.h"
#include "model/cluster.h"

struct bench_cluster_spec {
	uint32_t nodes, cqs, cohorts;
	bool preemption;  /* withinClusterQueue: LowerPriority */
	bool no_topology; /* a plain flavor: quota only */
};

/* Nodes (8 GPUs each; gpu is the GPU resource id), their topology and
 * flavor "gpu", ClusterQueues cq-N in cohorts, LocalQueue team-N/training
 * for each. */
void bench_cluster_build(struct cluster *c, const struct bench_cluster_spec *o,
			 int gpu);
/*
 * A pod set of a mixed size: 1, 4 or 8 GPUs on one pod (topology level
 * small_level, or none), 4 or 16 pods of 8 GPUs in a rack, 64 pods
 * preferring a block.
 */
void bench_shape(struct cluster *c, const char *small_level, struct rng *g,
		 struct podset *ps, int gpu);
/*
 * Append workload i to c: job-i in namespace team-Q (Q drawn below cqs),
 * LocalQueue training, priority 0 to 3, created at i, one pod set of
 * bench_shape(). Returns its pod set (valid until c's workloads grow).
 */
struct podset *bench_add_workload(struct cluster *c, uint32_t i, uint32_t cqs,
				  const char *small_level, struct rng *g,
				  int gpu);
/* fmt (with up to three %u) interned in c. */
const char *bench_str(struct cluster *c, const char *fmt, uint32_t a,
		      uint32_t b, uint32_t d);

#endif

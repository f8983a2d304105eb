/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What an admitted workload's placement costs, as the throughput model
 * (src/sim/throughput.h) says with its default figures: per pod set, the
 * hosts, racks and blocks its pods are on against the fewest that could
 * hold them on the empty cluster, and the modelled throughput against
 * that ideal placement. One computation for the daemon's explanations and
 * its /metrics. Pure: reads the scheduler, changes nothing.
 */
#ifndef ECHELON_OBS_OBS_PLACEMENT_H
#define ECHELON_OBS_OBS_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "model/cluster.h"
#include "sched/sched.h"
#include "sim/throughput.h"

struct obs_placement {
	int32_t pods, gpus;
	int32_t hosts, racks, blocks;		  /* spanned */
	int32_t min_hosts, min_racks, min_blocks; /* the fewest */
	double ratio;				  /* modelled, in (0, 1] */
	enum throughput_level slowest;		  /* highest level crossed */
	/* the modelled all-reduce traffic leaving its racks and its blocks
	 * (throughput_crossing_bytes() over the step time), bytes/s */
	double rack_bps, block_bps;
};

/*
 * The placement of pod set p of workload wl (w: its workload in the
 * scheduler's cluster; gpu: the resource id of GPUs, or -1) when it is
 * admitted onto a topology-aware flavor; false otherwise. tc: the model
 * (throughput_config_init() for its defaults).
 */
bool obs_placement_of(const struct sched *s, uint32_t wl,
		      const struct workload *w, size_t p, int gpu,
		      const struct throughput_config *tc,
		      struct obs_placement *ret);

/*
 * The modelled all-reduce traffic of admitted workload wl of c (scheduler
 * s, model tc, gpu as above) leaving its racks and its blocks, bytes/s,
 * summed over its pod sets; false (nothing written) when none has a
 * topology placement.
 */
bool obs_placement_traffic(const struct sched *s, const struct cluster *c,
			   uint32_t wl, int gpu,
			   const struct throughput_config *tc, double *ret_rack,
			   double *ret_block);

/*
 * The same traffic of count pods of req on topo nodes n[0..count) of t
 * (the topology index of one topology-aware flavor, sched_topo()) as if
 * they were one admitted pod set: for pods the scheduler admitted as
 * workloads of their own that train as one job (the simulator's no-gang
 * policy). False (nothing written) when t or n is NULL or count is 0.
 */
bool obs_placement_traffic_nodes(const struct topo *t, const uint32_t *n,
				 size_t count, const struct resvec *req,
				 int gpu, const struct throughput_config *tc,
				 double *ret_rack, double *ret_block);

/*
 * Append Prometheus text of the placements of c's admitted workloads
 * (scheduler s over c, model tc): per workload with a topology placement
 * echelon_workload_placement_throughput_ratio (its worst pod set),
 * echelon_workload_extra_racks and echelon_workload_extra_blocks (most
 * domains spanned beyond the fewest), echelon_workload_cross_rack_bytes_
 * per_second and echelon_workload_cross_block_bytes_per_second
 * (obs_placement_traffic()), and echelon_placement_on_min_racks_ratio
 * over the multi-host ones (NaN when there is none).
 */
void obs_placement_metrics(const struct sched *s, const struct cluster *c,
			   const struct throughput_config *tc,
			   struct strbuf *out);

#endif

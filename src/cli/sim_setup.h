/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The input of `echelon sim`: a cluster from manifests and/or the
 * generator, jobs from manifests (sim.echelon.dev annotations), traces
 * (echelon's JSONL or the ITP CSV) and the synthetic generator, queues
 * given or made (one ClusterQueue with the whole cluster as quota when the
 * manifests define none), and a rule that maps trace jobs to queues.
 * Errors are printed to stderr as "file:line:col: field: message".
 */
#ifndef ECHELON_CLI_SIM_SETUP_H
#define ECHELON_CLI_SIM_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cluster.h"
#include "sim/sim.h"

#define SIM_SETUP_QUEUE "sim" /* the ClusterQueue and LocalQueue made */

struct sim_setup_opts {
	const char **paths; /* -f */
	size_t npaths;
	const char **traces; /* --trace: files or folders */
	size_t ntraces;
	const char *cluster_spec; /* --cluster */
	size_t synth_jobs;	  /* --synth */
	double synth_rate;	  /* --synth-rate, per hour; 0: default */
	const char *queue_rule;	  /* --queue */
	const char *topology;	  /* --topology for multi-pod trace jobs */
	uint64_t seed;
	bool quiet;
	/* Where --cluster's network keys go (bw-rack=..., see
	 * gen_parse_network()); NULL: they are errors. */
	struct throughput_config *net;
};

/*
 * Load the cluster into c (initialised by the caller) and the jobs into
 * in (initialised here over c), with the no-gang split when split is set.
 * Returns 0, 1 on bad input (printed), 2 on a usage error (printed).
 */
int sim_setup_load(struct cluster *c, struct sim_input *in,
		   const struct sim_setup_opts *o, bool split);

#endif

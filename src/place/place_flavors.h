/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TAS flavors of a cluster: one topology index per ResourceFlavor with
 * a Topology, and the driver that places whole workloads over them.
 *
 * Flavors may select overlapping nodes (Kueue's TASHandleOverlappingFlavors)
 * and each has its own index, but a node has one capacity: every change of
 * a node's usage goes through place_flavors_charge() (or the functions
 * below, which use it) to every index that holds the node, so that no
 * placement counts a node's capacity twice, whatever flavors select it.
 *
 * place_flavors_place() is what `echelon place` does for each workload in
 * turn: an admitted workload keeps its assignment (nodes that are gone are
 * replaced inside its domain), any other goes to the first TAS flavor of
 * its ClusterQueue (else of the cluster) where it fits whole, with its
 * usage kept for the workloads after it. The scheduler (src/sched) owns
 * one set of indexes too and charges them through the same function.
 *
 * The cluster is borrowed: it must outlive the set and not change while
 * it lives. Fields are read-only outside place_flavors.c.
 */
#ifndef ECHELON_PLACE_FLAVORS_H
#define ECHELON_PLACE_FLAVORS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/cluster.h"
#include "place/place_workload.h"
#include "topo/topo.h"

/* Node n of the index of flavor f. */
struct place_flavor_node {
	int32_t f;
	uint32_t n;
};

struct place_flavors {
	const struct cluster *c;
	struct topo **t; /* [c->flavors.len]; NULL when the flavor is not TAS */
	/* Every index that holds a node, by node of the cluster: the entries
	 * [share_off[n], share_off[n + 1]) of share. */
	uint32_t *share_off; /* [c->nodes.len + 1] */
	struct place_flavor_node *share;
	bool *overlap; /* [f * nflavors + g]: f and g share a node */
};

/* What place_flavors_place() decided for one workload. */
struct place_decision {
	int32_t flavor; /* index in c->flavors; -1 when no TAS flavor applies */
	/* It kept its status.admission assignment; per pod set, the node
	 * that was gone and replaced (or failed to be), else NULL. */
	bool admitted;
	const char *replaced[WORKLOAD_MAX_PODSETS];
	/* Per pod set, on the index of flavor: the placement (or failure)
	 * of a new workload, the kept or replaced assignment of an admitted
	 * one (res.fit false on a pod set without one). */
	struct place_workload_result r;
};

/* Build the index of every TAS flavor of c (nodes as they are now). */
void place_flavors_init(struct place_flavors *pf, const struct cluster *c);
void place_flavors_release(struct place_flavors *pf);

/*
 * usage of node n of f's index += k * req, in every index that holds the
 * node; with others, in all of them but f's (whose usage the placement
 * engine changed itself).
 */
void place_flavors_charge(struct place_flavors *pf, int32_t f, uint32_t n,
			  const struct resvec *req, int64_t k, bool others);

/* Whether the indexes of flavors f and g have a node in common (f == g:
 * whether f is a TAS flavor with nodes). */
bool place_flavors_overlap(const struct place_flavors *pf, int32_t f,
			   int32_t g);

void place_decision_init(struct place_decision *d);
void place_decision_release(struct place_decision *d);

/*
 * Place w as described at the top, with policy, keeping its usage in
 * every index for the workloads placed after it; d (initialised) is
 * overwritten. "Does not fit" is an outcome in d, not an error.
 */
void place_flavors_place(struct place_flavors *pf, const struct workload *w,
			 enum place_policy policy, struct place_decision *d);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Node replacement for an admitted pod set (Kueue's TAS "hot swap"): when
 * a node of its topologyAssignment failed, find nodes for the pods that
 * were on it inside the same required domain (or the slice domain that the
 * missing pods would complete), leaving every other pod where it is.
 * Needs the hostname as the lowest level, like Kueue.
 *
 * The result is the merged assignment (res->workers, by unit) on success,
 * or Kueue's reason: "cannot find replacement assignment for unhealthy
 * node: N", "Cannot replace the node, because the existing
 * topologyAssignment is invalid, as it contains the stale domain V", or
 * the placement's own "does not fit" text.
 */
#ifndef ECHELON_PLACE_REPLACE_H
#define ECHELON_PLACE_REPLACE_H

#include <stdbool.h>

#include "model/workload.h"
#include "place/place.h"

struct place_replace_request {
	const struct podset *podset;
	/* The admitted assignment, in Kueue's form (hostname-only values
	 * when the hostname is the lowest level, else full values). */
	const struct topology_assignment *current;
	const char *failed_node;
	const struct toleration *flavor_tolerations;
	size_t nflavor_tolerations;
	const struct placement_config *config;
};

/*
 * Compute the replacement on t; the workload's own usage is expected to
 * be in the index already (it is admitted). Returns res->fit; on success
 * res->workers is the whole new assignment and res->worker_nodes its
 * nodes in rank order.
 */
bool place_replace(const struct topo *t, const struct place_replace_request *rr,
		   struct place_result *res);

#endif

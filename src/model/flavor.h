/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A ResourceFlavor: the node labels that select its nodes, taints its nodes
 * carry, tolerations added to workloads admitted to it, and an optional
 * Topology name that makes it a topology-aware (TAS) flavor. Strings are
 * interned elsewhere; the flavor owns its arrays.
 */
#ifndef ECHELON_MODEL_FLAVOR_H
#define ECHELON_MODEL_FLAVOR_H

#include <stddef.h>

#include "base/diag.h"
#include "model/label.h"
#include "model/taint.h"

struct flavor {
	const char *name;
	struct labels node_labels;
	struct taint *node_taints;
	size_t nnode_taints;
	struct toleration *tolerations;
	size_t ntolerations;
	const char *topology_name; /* NULL: not a TAS flavor */
	struct srcpos pos;
};

void flavor_init(struct flavor *f);
void flavor_release(struct flavor *f);

#endif

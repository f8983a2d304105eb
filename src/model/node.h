/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A node as the scheduler sees it (v1 Node): labels, taints, allocatable
 * capacity, the usage of pods bound to it, and whether it accepts pods.
 *
 * Strings are interned in the owning cluster and not owned here; the node
 * owns its label and taint arrays. usage is derived (pods bound to the node
 * that are not terminal) and kept by the cluster.
 */
#ifndef ECHELON_MODEL_NODE_H
#define ECHELON_MODEL_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "model/label.h"
#include "model/resvec.h"
#include "model/taint.h"

struct node {
	const char *name;
	struct labels labels;
	struct taint *taints;
	size_t ntaints;
	struct resvec allocatable;
	struct resvec usage;
	bool unschedulable;
	bool ready; /* condition Ready=True; a node with no conditions is Ready
		     */
	struct srcpos pos;
};

void node_init(struct node *n);
void node_release(struct node *n);
/* Append a taint (strings not copied). */
void node_add_taint(struct node *n, const struct taint *t);
/* Ready and schedulable: may receive new pods. */
bool node_schedulable(const struct node *n);

#endif

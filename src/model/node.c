// SPDX-License-Identifier: Apache-2.0
/*
 * Nodes: construction and release.
 */
#include "model/node.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

void node_init(struct node *n)
{
	memset(n, 0, sizeof(*n));
	labels_init(&n->labels);
	n->ready = true;
}

void node_release(struct node *n)
{
	if (!n)
		return;
	labels_release(&n->labels);
	free(n->taints);
	n->taints = NULL;
	n->ntaints = 0;
}

void node_add_taint(struct node *n, const struct taint *t)
{
	n->taints = xreallocarray(n->taints, n->ntaints + 1, sizeof(*t));
	n->taints[n->ntaints++] = *t;
}

bool node_schedulable(const struct node *n)
{
	return n->ready && !n->unschedulable;
}

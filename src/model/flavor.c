// SPDX-License-Identifier: Apache-2.0
/*
 * ResourceFlavors: construction and release.
 */
#include "model/flavor.h"

#include <stdlib.h>
#include <string.h>

#include "base/banned.h"

void flavor_init(struct flavor *f)
{
	memset(f, 0, sizeof(*f));
	labels_init(&f->node_labels);
}

void flavor_release(struct flavor *f)
{
	if (!f)
		return;
	labels_release(&f->node_labels);
	free(f->node_taints);
	free(f->tolerations);
	memset(f, 0, sizeof(*f));
}

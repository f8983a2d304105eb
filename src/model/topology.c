// SPDX-License-Identifier: Apache-2.0
/*
 * Topology levels.
 */
#include "model/topology.h"

#include <string.h>

#include "base/banned.h"

int topology_level_index(const struct topology *t, const char *key)
{
	for (size_t i = 0; i < t->nlevels; i++) {
		if (strcmp(t->levels[i], key) == 0)
			return (int)i;
	}
	return -1;
}

int topology_rack_level(const struct topology *t)
{
	return (int)t->nlevels - (topology_lowest_is_hostname(t) ? 2 : 1);
}

bool topology_lowest_is_hostname(const struct topology *t)
{
	return t->nlevels > 0 &&
	       strcmp(t->levels[t->nlevels - 1], TOPOLOGY_HOSTNAME_LABEL) == 0;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Placements as topologyAssignments: units (or the nodes of pods, grouped
 * by unit) turned into Kueue's levels and domain values.
 */
#include "place/place_assignment.h"

#include <stdlib.h>

#include "base/alloc.h"

#include "base/banned.h"

struct topology_assignment *
place_assignment(const struct topo *t, const struct place_assign *as, size_t n)
{
	struct topology_assignment *ta = xcalloc(1, sizeof(*ta));
	unsigned first = place_first_level(t);

	ta->nlevels = t->nlevels - first;
	ta->levels = xcalloc(ta->nlevels + 1, sizeof(*ta->levels));
	for (size_t l = first; l < t->nlevels; l++)
		ta->levels[l - first] = t->topology->levels[l];
	ta->ndomains = n;
	ta->domains = xcalloc(n + 1, sizeof(*ta->domains));
	for (size_t i = 0; i < n; i++) {
		const char *vals[TOPOLOGY_MAX_LEVELS];
		size_t nv = topo_dom_values(t, as[i].unit, vals);
		struct topology_domain *d = &ta->domains[i];

		BUG_ON(nv != t->nlevels);
		d->values = xcalloc(ta->nlevels + 1, sizeof(*d->values));
		for (size_t l = first; l < nv; l++)
			d->values[l - first] = vals[l];
		d->count = as[i].count;
	}
	return ta;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

struct topology_assignment *place_assignment_of_nodes(const struct topo *t,
						      const uint32_t *nodes,
						      size_t count)
{
	uint32_t *units = xcalloc(count + 1, sizeof(*units));
	struct place_assign *as = xcalloc(count + 1, sizeof(*as));
	struct topology_assignment *ta;
	size_t n = 0;

	for (size_t i = 0; i < count; i++)
		units[i] = t->node_unit[nodes[i]];
	qsort(units, count, sizeof(*units), cmp_u32);
	for (size_t i = 0; i < count; i++) {
		if (n > 0 && as[n - 1].unit == units[i])
			as[n - 1].count++;
		else
			as[n++] = (struct place_assign){ units[i], 1 };
	}
	ta = place_assignment(t, as, n);
	free(as);
	free(units);
	return ta;
}

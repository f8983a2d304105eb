/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Topology (kueue.x-k8s.io Topology): the node-label keys that define the
 * levels of the domain tree, highest (coarsest) first, e.g. block, rack,
 * kubernetes.io/hostname. At most TOPOLOGY_MAX_LEVELS, unique, and the
 * hostname label only as the last level. Strings are interned elsewhere.
 */
#ifndef ECHELON_MODEL_TOPOLOGY_H
#define ECHELON_MODEL_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

#define TOPOLOGY_MAX_LEVELS	16
#define TOPOLOGY_HOSTNAME_LABEL "kubernetes.io/hostname"

struct topology {
	const char *name;
	const char *levels[TOPOLOGY_MAX_LEVELS];
	size_t nlevels;
	struct srcpos pos;
};

/* Index of the level whose node label is key, or -1. */
int topology_level_index(const struct topology *t, const char *key);
/*
 * The level just above the hosts, where a gang's ring leaves its leaf
 * switch: the lowest level, or the one above it when that is the hostname
 * label. -1 when there is none.
 */
int topology_rack_level(const struct topology *t);
/* Whether the lowest level is the hostname label. */
bool topology_lowest_is_hostname(const struct topology *t);

#endif

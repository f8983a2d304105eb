/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A placement in Kueue's form, a topologyAssignment (struct
 * topology_assignment of src/model): the levels from place_first_level()
 * (only the hostname when it is the lowest level, else all), then one
 * domain per unit with its values at those levels and its pod count.
 * Everything that shows or stores a placement (`echelon plan`, `echelon
 * place`, a Workload's status.admission) goes through this form and the
 * one encoder of it, enc_topology_assignment() in src/manifest/enc.h.
 *
 * The strings are borrowed from the index (the topology's level names,
 * the domains' values): the index must outlive the assignment. The
 * arrays are owned: free with topology_assignment_free().
 */
#ifndef ECHELON_PLACE_ASSIGNMENT_H
#define ECHELON_PLACE_ASSIGNMENT_H

#include <stddef.h>
#include <stdint.h>

#include "model/workload.h"
#include "place/place.h"
#include "topo/topo.h"

/* The assignment of as[0..n) (units of t with their pod counts), in
 * that order. Never NULL. */
struct topology_assignment *
place_assignment(const struct topo *t, const struct place_assign *as, size_t n);

/* The assignment of pods on nodes[0..count) (nodes of t): pods per unit,
 * units in id order (the order of their values). Never NULL. */
struct topology_assignment *place_assignment_of_nodes(const struct topo *t,
						      const uint32_t *nodes,
						      size_t count);

#endif

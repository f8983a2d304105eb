/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Placement of a whole workload on one TAS flavor: its pod sets grouped as
 * Kueue groups them (by podSetGroupName, a leader and its workers placed
 * together; every other pod set alone), in order, each group seeing the
 * usage of the groups placed before it. A gang is all or nothing: the
 * first group that does not fit stops the walk, and the usage of the
 * groups placed before it is taken back.
 *
 * The result owns one place_result per pod set; pod sets after the
 * failing group are marked not attempted.
 */
#ifndef ECHELON_PLACE_WORKLOAD_H
#define ECHELON_PLACE_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "model/config.h"
#include "model/flavor.h"
#include "model/workload.h"
#include "place/place.h"
#include "place/place_baseline.h"
#include "topo/topo.h"

struct place_workload_ps {
	bool attempted;
	bool is_leader; /* placed as the leader of its group */
	struct place_result res;
};

struct place_workload_result {
	bool fit;
	size_t failed; /* index of the pod set that failed, when !fit */
	size_t n;
	struct place_workload_ps ps[WORKLOAD_MAX_PODSETS];
};

void place_workload_result_init(struct place_workload_result *r);
void place_workload_result_release(struct place_workload_result *r);

/*
 * Place every pod set of w on t (the index of flavor fl) with policy and
 * cfg (NULL: defaults). When it fits and apply is set, its usage stays
 * applied to t; otherwise t is left as it was. Returns out->fit.
 */
bool place_workload(struct topo *t, const struct flavor *fl,
		    const struct workload *w,
		    const struct placement_config *cfg,
		    enum place_policy policy, bool apply,
		    struct place_workload_result *out);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The status of workloads as the scheduler sees them, encoded as jansson
 * values in Kueue's vocabulary: conditions (QuotaReserved, Admitted,
 * Evicted, ...), the admission's pod set assignments (flavors per
 * resource, count, topologyAssignment), preemptions and pending reasons
 * with the queue positions. `echelon plan` prints these objects; the
 * daemon's API serves the same ones, so both show one encoding.
 *
 * Functions only read the scheduler and the cluster it was built from
 * (c must be that cluster) and return a new reference the caller owns.
 * Workloads are indices in c->workloads.
 */
#ifndef ECHELON_STATUS_STATUS_H
#define ECHELON_STATUS_STATUS_H

#include <jansson.h>
#include <stdint.h>

#include "model/cluster.h"
#include "sched/sched.h"

/*
 * The present conditions of wl, in enum sched_cond order: [{"type",
 * "status": "True"|"False", "reason", "message" (left out when empty)}].
 */
json_t *status_conditions(const struct sched *s, uint32_t wl);

/*
 * The pod set assignments of admitted wl: [{"name", "count", "flavors":
 * {resource: flavor}, "topologyAssignment" (on a TAS flavor with pods)}];
 * [] when wl is not admitted.
 */
json_t *status_podset_assignments(const struct cluster *c,
				  const struct sched *s, uint32_t wl);

/*
 * Kueue's status.admission of admitted wl, as kueue.x-k8s.io/v1beta2
 * stores it: {"clusterQueue", "podSetAssignments": [{"name", "count",
 * "flavors", "resourceUsage" (per-pod requests times count, for the
 * resources with a flavor), "topologyAssignment" ({"levels", "slices"})}]};
 * NULL when wl is not admitted.
 */
json_t *status_admission(const struct cluster *c, const struct sched *s,
			 uint32_t wl);

/* An admitted workload: {"name": "ns/name", "clusterQueue", "podSets":
 * status_podset_assignments(), "conditions"}. */
json_t *status_admitted(const struct cluster *c, const struct sched *s,
			uint32_t wl);

/* A preemption decision: {"name", "clusterQueue", "by" (the preemptor),
 * "reason" (InClusterQueue, InCohortReclamation, ...), "conditions"}. */
json_t *status_preempted(const struct cluster *c, const struct sched *s,
			 const struct sched_decision *d);

/*
 * A pending workload: {"name", "clusterQueue" (null when none),
 * "position", "positionInLocalQueue" (0-based, null when not queued:
 * pass the values sched_positions() gives), "reason", "message",
 * "conditions"}.
 */
json_t *status_pending(const struct cluster *c, const struct sched *s,
		       uint32_t wl, int64_t cq_pos, int64_t lq_pos);

#endif

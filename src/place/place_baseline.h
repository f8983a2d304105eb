/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Baseline placement policies, for comparison with topology-aware
 * placement through the same request and result: kube-default places the
 * pods one by one on the node with the best least-allocated score, as
 * kube-scheduler's default profile would, and first-fit takes the nodes in
 * index order. Both ignore the topology request; both honour per-node
 * capacity, readiness, taints, node selector and required affinity.
 */
#ifndef ECHELON_PLACE_BASELINE_H
#define ECHELON_PLACE_BASELINE_H

#include <stdbool.h>

#include "base/compiler.h"
#include "place/place.h"

enum place_policy {
	PLACE_POLICY_TAS, /* Kueue's topology-aware placement */
	PLACE_POLICY_KUBE_DEFAULT,
	PLACE_POLICY_FIRST_FIT,
	PLACE_POLICY_COUNT
};

/* "tas", "kube-default", "first-fit"; -EINVAL for anything else. */
int place_policy_parse(const char *s, enum place_policy *ret) MUST_CHECK;
const char *place_policy_name(enum place_policy p);

/*
 * Place req with a baseline policy (not PLACE_POLICY_TAS). Fills res like
 * place_podset(): units in id order, the node of every pod in rank order,
 * and "<policy>: only K out of N pod(s) fit" when it does not fit.
 */
bool place_baseline_podset(const struct topo *t, enum place_policy policy,
			   const struct place_request *req,
			   struct place_result *res);

#endif

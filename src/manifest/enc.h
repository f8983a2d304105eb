/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Encoding the model back into Kubernetes-style objects (jansson values,
 * printed as JSON or YAML by the caller): what echelon understood of its
 * input, in canonical form. Quantities are printed canonically ("2Gi",
 * "1500m"), Jobs appear as the Workloads made from them, Kueue kinds in
 * kueue.x-k8s.io/v1beta2. Loading the encoded objects again gives the same
 * model (tests/unit/test_enc.c checks the round trip).
 */
#ifndef ECHELON_MANIFEST_ENC_H
#define ECHELON_MANIFEST_ENC_H

#include <jansson.h>

#include "model/cluster.h"

/* One object: object i of kind k. The caller owns the new reference. */
json_t *enc_object(const struct cluster *c, enum kind k, size_t i);
/* Every object as a v1 List, kinds in the order of enum kind. */
json_t *enc_cluster(const struct cluster *c);
/* A topologyAssignment ({"levels": [...], "domains": [{"values": [...],
 * "count": n}]}): the one encoder of a placement, for status.admission,
 * `echelon plan` and `echelon place`. The caller owns the new reference. */
json_t *enc_topology_assignment(const struct topology_assignment *ta);

/*
 * The same placement as Kueue's v1beta2 API stores it: {"levels": [...],
 * "slices": [{"domainCount", "valuesPerLevel": [{"universal"} |
 * {"individual": {"prefix", "suffix", "roots"}}], "podCounts":
 * {"universal"} | {"individual": [...]}}]}, each slice as compact as
 * Kueue's single-slice encoding makes it (one value when all domains
 * share it, else the roots between the longest common prefix and
 * suffix), a slice per ENC_SLICE_MAX_DOMAINS domains. The caller owns
 * the new reference.
 */
#define ENC_SLICE_MAX_DOMAINS 100000
json_t *enc_topology_assignment_slices(const struct topology_assignment *ta);
/* A quantity of resource id of c, printed canonically ("2Gi", "1500m"). */
json_t *enc_quantity(const struct cluster *c, int id, int64_t v);
/* An RFC 3339 timestamp in UTC, whole seconds ("2026-12-01T13:00:00Z"),
 * of us microseconds since the Unix epoch (shown as its wall-clock time
 * when a time map is installed: base/timemap.h). */
json_t *enc_timestamp(int64_t us);

#endif

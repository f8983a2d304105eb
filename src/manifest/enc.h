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

#endif

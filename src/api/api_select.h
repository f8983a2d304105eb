/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Label and field selectors of list and watch requests, parsed once and
 * matched against stored objects. Label selectors take Kubernetes' whole
 * syntax (=, ==, !=, in, notin, exists, !key); field selectors take
 * =, == and != over the fields Kubernetes indexes for each kind
 * (metadata.name and metadata.namespace for every kind; for pods
 * spec.nodeName, spec.schedulerName, status.phase, spec.restartPolicy,
 * spec.serviceAccountName, spec.hostNetwork, status.podIP,
 * status.nominatedNodeName; for events involvedObject.*, reason, type,
 * source, reportingComponent, and in the events.k8s.io view regarding.*
 * too; for nodes spec.unschedulable; for namespaces status.phase; for
 * Jobs status.successful; for Workloads spec.queueName,
 * status.admission.clusterQueue). A field the object lacks selects as "".
 * Parsing holds no authority and is fuzzed (fuzz/fuzz_select.c).
 */
#ifndef ECHELON_API_SELECT_H
#define ECHELON_API_SELECT_H

#include <jansson.h>
#include <stdbool.h>

#include "api/api_kind.h"
#include "base/compiler.h"
#include "base/errbuf.h"

struct api_select;

/*
 * Parse the labelSelector and fieldSelector query values (either may be
 * NULL or empty) for kind k. Returns 0 and *ret (NULL when both are
 * empty: everything matches), or -EINVAL with a message in err naming
 * the selector and position at fault (a 400 BadRequest).
 */
int api_select_parse(const struct api_kind *k, const char *labels,
		     const char *fields, struct api_select **ret,
		     struct errbuf *err) MUST_CHECK;
void api_select_free(struct api_select *sel);
/* Whether obj matches; a NULL sel matches everything. */
bool api_select_match(const struct api_select *sel, const json_t *obj);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pod (v1 Pod) as usage: which node it is bound to, what it requests, and
 * whether it still holds its resources.
 *
 * requests is the effective request of the pod as kube-scheduler computes
 * it: max(sum of containers, largest init container) plus overhead, plus
 * one "pods" unit. Strings are interned in the owning cluster.
 */
#ifndef ECHELON_MODEL_POD_H
#define ECHELON_MODEL_POD_H

#include <stdbool.h>

#include "base/diag.h"
#include "model/label.h"
#include "model/resvec.h"

enum pod_phase {
	POD_PENDING,
	POD_RUNNING,
	POD_SUCCEEDED,
	POD_FAILED,
	POD_UNKNOWN,
	POD_PHASE_COUNT
};

struct pod {
	const char *ns;
	const char *name;
	const char *node_name; /* NULL when not bound */
	struct labels labels;
	struct resvec requests;
	enum pod_phase phase;
	struct srcpos pos;
};

void pod_init(struct pod *p);
void pod_release(struct pod *p);
/* "Pending", "Running", ...; -EINVAL for anything else. */
int pod_parse_phase(const char *s, enum pod_phase *ret_phase) MUST_CHECK;
const char *pod_phase_name(enum pod_phase phase);
/* Bound and not terminal (Succeeded or Failed): its requests are usage. */
bool pod_holds_resources(const struct pod *p);

#endif

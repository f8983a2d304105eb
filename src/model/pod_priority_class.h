/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A scheduling.k8s.io PriorityClass: the priority of pods that name it in
 * spec.priorityClassName, or of every pod that names none when it is the
 * global default. A Workload's priority falls back to it when no
 * WorkloadPriorityClass is named (see sched_wl_priority()). Plain data,
 * and the classes every cluster has without declaring them.
 */
#ifndef ECHELON_MODEL_POD_PRIORITY_CLASS_H
#define ECHELON_MODEL_POD_PRIORITY_CLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"

struct pod_priority_class {
	const char *name;
	int32_t value;
	bool global_default;
	const char *description; /* may be NULL */
	struct srcpos pos;
};

/*
 * The value of a class Kubernetes defines itself (system-cluster-critical,
 * system-node-critical) into *ret_value. Returns false for other names.
 */
bool pod_priority_class_builtin(const char *name, int32_t *ret_value);

#endif

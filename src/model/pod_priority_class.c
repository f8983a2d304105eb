// SPDX-License-Identifier: Apache-2.0
/*
 * The PriorityClasses that every Kubernetes cluster has without a
 * manifest: the API server creates them at start-up, and pods name them
 * without anyone declaring them.
 */
#include "model/pod_priority_class.h"

#include <string.h>

#include "base/compiler.h"

#include "base/banned.h"

static const struct {
	const char *name;
	int32_t value;
} builtin[] = {
	{ "system-cluster-critical", 2000000000 },
	{ "system-node-critical", 2000001000 },
};

bool pod_priority_class_builtin(const char *name, int32_t *ret_value)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(builtin); i++) {
		if (strcmp(builtin[i].name, name) == 0) {
			*ret_value = builtin[i].value;
			return true;
		}
	}
	return false;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A WorkloadPriorityClass: a named priority value for workloads, which takes
 * precedence over the pods' PriorityClass. Plain data.
 */
#ifndef ECHELON_MODEL_PRIORITY_CLASS_H
#define ECHELON_MODEL_PRIORITY_CLASS_H

#include <stdint.h>

#include "base/diag.h"

struct priority_class {
	const char *name;
	int32_t value;
	const char *description; /* may be NULL */
	struct srcpos pos;
};

#endif

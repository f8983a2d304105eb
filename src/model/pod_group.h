/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A PodGroup (scheduling.x-k8s.io/v1alpha1, the Coscheduling plugin): the
 * pods labelled with its name are a gang of at least min_member pods that
 * need min_resources in total, bound together or not at all, and released
 * after schedule_timeout_s seconds of waiting. Plain data.
 */
#ifndef ECHELON_MODEL_POD_GROUP_H
#define ECHELON_MODEL_POD_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "model/resvec.h"

struct pod_group {
	const char *ns;
	const char *name;
	int32_t min_member;
	struct resvec min_resources;
	bool has_min_resources;
	int32_t schedule_timeout_s; /* 0: not set (the plugin's default) */
	struct srcpos pos;
};

#endif

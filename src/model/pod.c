// SPDX-License-Identifier: Apache-2.0
/*
 * Pods as usage on nodes.
 */
#include "model/pod.h"

#include <errno.h>
#include <string.h>

#include "base/banned.h"

static const char *const phase_names[POD_PHASE_COUNT] = {
	[POD_PENDING] = "Pending",     [POD_RUNNING] = "Running",
	[POD_SUCCEEDED] = "Succeeded", [POD_FAILED] = "Failed",
	[POD_UNKNOWN] = "Unknown",
};

void pod_init(struct pod *p)
{
	memset(p, 0, sizeof(*p));
	labels_init(&p->labels);
}

void pod_release(struct pod *p)
{
	if (p)
		labels_release(&p->labels);
}

int pod_parse_phase(const char *s, enum pod_phase *ret_phase)
{
	for (int i = 0; i < POD_PHASE_COUNT; i++) {
		if (strcmp(s, phase_names[i]) == 0) {
			*ret_phase = (enum pod_phase)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *pod_phase_name(enum pod_phase phase)
{
	return phase < POD_PHASE_COUNT ? phase_names[phase] : "?";
}

bool pod_holds_resources(const struct pod *p)
{
	return p->node_name && p->phase != POD_SUCCEEDED &&
	       p->phase != POD_FAILED;
}

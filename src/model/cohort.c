// SPDX-License-Identifier: Apache-2.0
/*
 * Cohorts: construction and release.
 */
#include "model/cohort.h"

#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

void cohort_init(struct cohort *c)
{
	memset(c, 0, sizeof(*c));
	c->fair_weight_milli = 1000;
}

void cohort_release(struct cohort *c)
{
	if (!c)
		return;
	resource_groups_release(c->groups, c->ngroups);
	memset(c, 0, sizeof(*c));
}

struct resource_group *cohort_add_group(struct cohort *c)
{
	c->groups =
		xreallocarray(c->groups, c->ngroups + 1, sizeof(*c->groups));
	memset(&c->groups[c->ngroups], 0, sizeof(*c->groups));
	return &c->groups[c->ngroups++];
}

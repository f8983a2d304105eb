// SPDX-License-Identifier: Apache-2.0
/*
 * Decoders for Kueue's queueing kinds (kueue.x-k8s.io v1beta1 and v1beta2):
 * Topology, ResourceFlavor, ClusterQueue, Cohort, LocalQueue and
 * WorkloadPriorityClass, with the validation rules of Kueue's API.
 */
#include "manifest/dec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

#define MAX_RESOURCE_GROUPS   16
#define MAX_FLAVORS_PER_GROUP 16

static const char *const object_known[] = { "apiVersion", "kind",   "metadata",
					    "spec",	  "status", NULL };

/* The spec mapping (required), with its path pushed; NULL on error. */
static struct ynode *spec_of(struct dec *x, struct ynode *root, size_t *ret_len)
{
	struct ynode *spec = dec_get(root, "spec");

	*ret_len = dec_push(x, "spec");
	if (!spec) {
		dec_error(x, root, "is required");
		return NULL;
	}
	if (dec_expect_map(x, spec) < 0)
		return NULL;
	return spec;
}

static int topology_level(struct dec *x, struct ynode *item, struct topology *t)
{
	static const char *const known[] = { "nodeLabel", NULL };
	const char *label;
	struct errbuf eb;
	size_t len;

	if (dec_expect_map(x, item) < 0)
		return -EINVAL;
	dec_check_fields(x, item, known, NULL);
	if (dec_str_field(x, item, "nodeLabel", true, &label) < 0)
		return -EINVAL;
	len = dec_push(x, "nodeLabel");
	if (label_check_key(label, &eb) < 0) {
		dec_error(x, dec_get(item, "nodeLabel"), "%s", eb.msg);
		dec_pop(x, len);
		return -EINVAL;
	}
	if (topology_level_index(t, label) >= 0) {
		dec_error(x, dec_get(item, "nodeLabel"),
			  "duplicate level \"%s\"", label);
		dec_pop(x, len);
		return -EINVAL;
	}
	dec_pop(x, len);
	t->levels[t->nlevels++] = label;
	return 0;
}

static int topology_levels(struct dec *x, struct ynode *spec,
			   struct topology *t)
{
	struct ynode *levels = dec_get(spec, "levels"), *item;
	size_t len, i = 0;
	int rc = 0;

	len = dec_push(x, "levels");
	if (!levels) {
		dec_error(x, spec, "is required");
		rc = -EINVAL;
		goto out;
	}
	if (dec_expect_seq(x, levels) < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (levels->n < 1 || levels->n > TOPOLOGY_MAX_LEVELS) {
		dec_error(x, levels, "must have between 1 and %d levels",
			  TOPOLOGY_MAX_LEVELS);
		rc = -EINVAL;
		goto out;
	}
	ynode_foreach(levels, item)
	{
		size_t l2 = dec_push_index(x, i++);

		if (topology_level(x, item, t) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	for (size_t l = 0; rc == 0 && l + 1 < t->nlevels; l++) {
		if (strcmp(t->levels[l], TOPOLOGY_HOSTNAME_LABEL) == 0) {
			dec_error(x, levels,
				  "\"%s\" may only be the last level",
				  TOPOLOGY_HOSTNAME_LABEL);
			rc = -EINVAL;
		}
	}
out:
	dec_pop(x, len);
	return rc;
}

int dec_topology(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "levels", NULL };
	struct topology *t = vec_push_zero(&x->batch->topologies);
	struct ynode *spec;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	t->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, false, &m) < 0)
		rc = -EINVAL;
	t->name = m.name;
	dec_meta_release(&m);
	spec = spec_of(x, root, &len);
	if (!spec) {
		rc = -EINVAL;
	} else {
		dec_check_fields(x, spec, known, NULL);
		if (topology_levels(x, spec, t) < 0)
			rc = -EINVAL;
	}
	dec_pop(x, len);
	return dec_commit(x, KIND_TOPOLOGY, root, rc == 0 && t->name);
}

static int flavor_spec(struct dec *x, struct ynode *spec, struct flavor *f)
{
	static const char *const known[] = { "nodeLabels", "nodeTaints",
					     "tolerations", "topologyName",
					     NULL };
	struct ynode *n;
	size_t len;
	int rc = 0;

	dec_check_fields(x, spec, known, NULL);
	if ((n = dec_get(spec, "nodeLabels"))) {
		len = dec_push(x, "nodeLabels");
		if (dec_labels(x, n, &f->node_labels) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((n = dec_get(spec, "nodeTaints"))) {
		len = dec_push(x, "nodeTaints");
		if (dec_taints(x, n, &f->node_taints, &f->nnode_taints) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((n = dec_get(spec, "tolerations"))) {
		len = dec_push(x, "tolerations");
		if (dec_tolerations(x, n, &f->tolerations, &f->ntolerations) <
		    0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if (dec_str_field(x, spec, "topologyName", false, &f->topology_name) <
	    0)
		rc = -EINVAL;
	if (rc == 0 && f->topology_name && f->node_labels.len == 0) {
		len = dec_push(x, "nodeLabels");
		dec_error(x, spec,
			  "at least one node label is required when "
			  "topologyName is set");
		dec_pop(x, len);
		rc = -EINVAL;
	}
	return rc;
}

int dec_flavor(struct dec *x, struct ynode *root)
{
	struct flavor *f = vec_push_zero(&x->batch->flavors);
	struct ynode *spec;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	flavor_init(f);
	f->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, false, &m) < 0)
		rc = -EINVAL;
	f->name = m.name;
	dec_meta_release(&m);
	/* A flavor may have no spec at all: it then matches every node. */
	if ((spec = dec_get(root, "spec"))) {
		len = dec_push(x, "spec");
		if (dec_expect_map(x, spec) < 0 || flavor_spec(x, spec, f) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return dec_commit(x, KIND_FLAVOR, root, rc == 0 && f->name);
}

static int quota_field(struct dec *x, struct ynode *res, const char *key,
		       int id, int64_t *ret)
{
	struct ynode *n = dec_get(res, key);
	size_t len;
	int rc;

	if (!n)
		return 0;
	len = dec_push(x, key);
	rc = dec_quantity(x, n, id, ret);
	dec_pop(x, len);
	return rc;
}

static int flavor_resource(struct dec *x, struct ynode *res,
			   struct flavor_quotas *fq,
			   const struct resource_group *g, size_t index)
{
	int bad = 0;
	static const char *const known[] = { "name", "nominalQuota",
					     "borrowingLimit", "lendingLimit",
					     NULL };
	struct resource_quota *q = flavor_quotas_add(fq);
	const char *name;
	struct errbuf eb;
	size_t len;
	int id;

	if (dec_expect_map(x, res) < 0)
		return -EINVAL;
	dec_check_fields(x, res, known, NULL);
	if (dec_str_field(x, res, "name", true, &name) < 0)
		return -EINVAL;
	len = dec_push(x, "name");
	id = resource_id(x->batch->resources, name, &eb);
	if (id < 0) {
		dec_error(x, dec_get(res, "name"), "%s", eb.msg);
	} else if (index >= g->ncovered || g->covered[index] != id) {
		dec_error(x, dec_get(res, "name"),
			  "must match coveredResources[%zu] (flavors list "
			  "the covered resources in the same order)",
			  index);
		id = -1;
	}
	dec_pop(x, len);
	if (id < 0)
		return -EINVAL;
	q->resource = id;
	if (!dec_get(res, "nominalQuota")) {
		len = dec_push(x, "nominalQuota");
		dec_error(x, res, "is required");
		dec_pop(x, len);
		return -EINVAL;
	}
	bad |= quota_field(x, res, "nominalQuota", id, &q->nominal) < 0;
	bad |= quota_field(x, res, "borrowingLimit", id, &q->borrowing_limit) <
	       0;
	bad |= quota_field(x, res, "lendingLimit", id, &q->lending_limit) < 0;
	if (bad)
		return -EINVAL;
	if (q->lending_limit != QUOTA_UNLIMITED &&
	    q->lending_limit > q->nominal) {
		len = dec_push(x, "lendingLimit");
		dec_error(x, dec_get(res, "lendingLimit"),
			  "must be less than or equal to nominalQuota");
		dec_pop(x, len);
		return -EINVAL;
	}
	return 0;
}

static int group_flavor(struct dec *x, struct ynode *fl,
			struct resource_group *g)
{
	static const char *const known[] = { "name", "resources", NULL };
	struct flavor_quotas *fq = resource_group_add_flavor(g);
	struct ynode *list, *res;
	size_t len, i = 0;
	int rc = 0;

	if (dec_expect_map(x, fl) < 0)
		return -EINVAL;
	dec_check_fields(x, fl, known, NULL);
	if (dec_str_field(x, fl, "name", true, &fq->flavor) < 0)
		rc = -EINVAL;
	len = dec_push(x, "resources");
	list = dec_get(fl, "resources");
	if (!list) {
		dec_error(x, fl, "is required");
		rc = -EINVAL;
	} else if (dec_expect_seq(x, list) < 0) {
		rc = -EINVAL;
	} else {
		ynode_foreach(list, res)
		{
			size_t l2 = dec_push_index(x, i);

			if (flavor_resource(x, res, fq, g, i) < 0)
				rc = -EINVAL;
			dec_pop(x, l2);
			i++;
		}
		if (rc == 0 && i != g->ncovered) {
			dec_error(x, list,
				  "must list exactly the %zu covered "
				  "resource(s), not %zu",
				  g->ncovered, i);
			rc = -EINVAL;
		}
	}
	dec_pop(x, len);
	return rc;
}

static int covered_resources(struct dec *x, struct ynode *grp,
			     struct resource_group *g)
{
	struct ynode *list = dec_get(grp, "coveredResources"), *item;
	size_t len = dec_push(x, "coveredResources");
	int rc = 0;

	if (!list) {
		dec_error(x, grp, "is required");
		rc = -EINVAL;
	} else if (dec_expect_seq(x, list) == 0) {
		ynode_foreach(list, item)
		{
			size_t l2 = dec_push_index(x, g->ncovered);
			const char *name;
			struct errbuf eb;
			int id = -1;

			if (dec_string(x, item, &name) == 0) {
				id = resource_id(x->batch->resources, name,
						 &eb);
				if (id < 0)
					dec_error(x, item, "%s", eb.msg);
			}
			for (size_t j = 0; id >= 0 && j < g->ncovered; j++) {
				if (g->covered[j] != id)
					continue;
				dec_error(x, item, "duplicate resource \"%s\"",
					  name);
				id = -1;
			}
			dec_pop(x, l2);
			if (id < 0 || g->ncovered >= RESOURCE_MAX) {
				rc = -EINVAL;
				break;
			}
			g->covered[g->ncovered++] = id;
		}
	} else {
		rc = -EINVAL;
	}
	dec_pop(x, len);
	return rc;
}

static int resource_group(struct dec *x, struct ynode *grp,
			  struct resource_group *g)
{
	static const char *const known[] = { "coveredResources", "flavors",
					     NULL };
	struct ynode *list, *fl;
	size_t len, i = 0;
	int rc = 0;

	if (dec_expect_map(x, grp) < 0)
		return -EINVAL;
	dec_check_fields(x, grp, known, NULL);
	if (covered_resources(x, grp, g) < 0)
		return -EINVAL;
	len = dec_push(x, "flavors");
	list = dec_get(grp, "flavors");
	if (!list) {
		dec_error(x, grp, "is required");
		rc = -EINVAL;
	} else if (dec_expect_seq(x, list) < 0) {
		rc = -EINVAL;
	} else if (list->n > MAX_FLAVORS_PER_GROUP) {
		dec_error(x, list, "must have at most %d flavors",
			  MAX_FLAVORS_PER_GROUP);
		rc = -EINVAL;
	} else {
		ynode_foreach(list, fl)
		{
			size_t l2 = dec_push_index(x, i++);

			if (group_flavor(x, fl, g) < 0)
				rc = -EINVAL;
			dec_pop(x, l2);
		}
	}
	dec_pop(x, len);
	return rc;
}

typedef struct resource_group *(*add_group_fn)(void *owner);

static struct resource_group *add_cq_group(void *owner)
{
	return cluster_queue_add_group(owner);
}

static struct resource_group *add_cohort_group(void *owner)
{
	return cohort_add_group(owner);
}

/* Resource groups, with each flavor and resource in one group only. */
static int resource_groups(struct dec *x, struct ynode *spec, void *owner,
			   add_group_fn add, struct resource_group **groups,
			   size_t *ngroups)
{
	struct ynode *list = dec_get(spec, "resourceGroups"), *grp;
	size_t len, i = 0;
	int rc = 0;

	if (!list)
		return 0;
	len = dec_push(x, "resourceGroups");
	if (dec_expect_seq(x, list) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	if (list->n > MAX_RESOURCE_GROUPS) {
		dec_error(x, list, "must have at most %d groups",
			  MAX_RESOURCE_GROUPS);
		dec_pop(x, len);
		return -EINVAL;
	}
	ynode_foreach(list, grp)
	{
		size_t l2 = dec_push_index(x, i++);

		if (resource_group(x, grp, add(owner)) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	for (size_t a = 0; rc == 0 && a < *ngroups; a++) {
		for (size_t b = a + 1; b < *ngroups; b++) {
			for (size_t r = 0; r < (*groups)[b].ncovered; r++) {
				for (size_t s = 0; s < (*groups)[a].ncovered;
				     s++) {
					if ((*groups)[a].covered[s] !=
					    (*groups)[b].covered[r])
						continue;
					dec_error(x, list,
						  "resource \"%s\" is covered "
						  "by more than one group",
						  resource_name(
							  x->batch->resources,
							  (*groups)[b]
								  .covered[r]));
					rc = -EINVAL;
				}
			}
		}
	}
	dec_pop(x, len);
	return rc;
}

static int fair_weight(struct dec *x, struct ynode *spec, int64_t *ret)
{
	static const char *const known[] = { "weight", NULL };
	struct ynode *fs = dec_get(spec, "fairSharing"), *w;
	size_t len;
	int rc = 0;

	if (!fs)
		return 0;
	len = dec_push(x, "fairSharing");
	if (dec_expect_map(x, fs) < 0) {
		rc = -EINVAL;
	} else if ((w = dec_get(fs, "weight"))) {
		size_t l2 = dec_push(x, "weight");

		dec_check_fields(x, fs, known, NULL);
		/* A decimal quantity kept in thousandths, like cpu. */
		rc = dec_quantity(x, w, RESOURCE_CPU, ret);
		dec_pop(x, l2);
	}
	dec_pop(x, len);
	return rc;
}

static int preemption(struct dec *x, struct ynode *p, struct cluster_queue *cq)
{
	static const char *const known[] = { "reclaimWithinCohort",
					     "borrowWithinCohort",
					     "withinClusterQueue", NULL };
	static const char *const reclaim[] = { "Never", "LowerPriority", "Any",
					       NULL };
	static const char *const within[] = { "Never", "LowerPriority",
					      "LowerOrNewerEqualPriority",
					      NULL };
	static const char *const bw_known[] = { "policy",
						"maxPriorityThreshold", NULL };
	static const char *const borrow[] = { "Never", "LowerPriority", NULL };
	static const enum preempt_within_cq reclaim_map[] = {
		PREEMPT_NEVER, PREEMPT_LOWER_PRIORITY, PREEMPT_ANY
	};
	int r = 0, w = 0, b = 0, rc = 0;
	struct ynode *bw;
	int64_t threshold;

	if (dec_expect_map(x, p) < 0)
		return -EINVAL;
	dec_check_fields(x, p, known, NULL);
	if (dec_enum_field(x, p, "reclaimWithinCohort", reclaim, &r) < 0)
		rc = -EINVAL;
	if (dec_enum_field(x, p, "withinClusterQueue", within, &w) < 0)
		rc = -EINVAL;
	cq->reclaim_within_cohort = reclaim_map[r];
	cq->within_cluster_queue = (enum preempt_within_cq)w;
	if ((bw = dec_get(p, "borrowWithinCohort"))) {
		size_t len = dec_push(x, "borrowWithinCohort");

		if (dec_expect_map(x, bw) < 0) {
			rc = -EINVAL;
		} else {
			dec_check_fields(x, bw, bw_known, NULL);
			if (dec_enum_field(x, bw, "policy", borrow, &b) < 0)
				rc = -EINVAL;
			switch (dec_int_field(x, bw, "maxPriorityThreshold",
					      false, INT32_MIN, INT32_MAX,
					      &threshold)) {
			case 1:
				cq->has_threshold = true;
				cq->borrow_max_priority_threshold =
					(int32_t)threshold;
				break;
			case 0:
				break;
			default:
				rc = -EINVAL;
			}
		}
		cq->borrow_within_cohort = (enum borrow_within_cohort_policy)b;
		dec_pop(x, len);
	}
	return rc;
}

static int fungibility(struct dec *x, struct ynode *f, struct cluster_queue *cq)
{
	int bad = 0;
	static const char *const known[] = { "whenCanBorrow", "whenCanPreempt",
					     "preference", NULL };
	static const char *const prefs[] = { "BorrowingOverPreemption",
					     "PreemptionOverBorrowing", NULL };
	static const char *const borrow[] = { "Borrow", "MayStopSearch",
					      "TryNextFlavor", NULL };
	static const char *const preempt[] = { "Preempt", "MayStopSearch",
					       "TryNextFlavor", NULL };
	int b = -1, p = -1, pref = -1;

	if (dec_expect_map(x, f) < 0)
		return -EINVAL;
	dec_check_fields(x, f, known, NULL);
	bad |= dec_enum_field(x, f, "whenCanBorrow", borrow, &b) < 0;
	bad |= dec_enum_field(x, f, "whenCanPreempt", preempt, &p) < 0;
	bad |= dec_enum_field(x, f, "preference", prefs, &pref) < 0;
	if (bad)
		return -EINVAL;
	if (pref >= 0) {
		cq->preference = (enum fungibility_preference)pref;
		cq->has_preference = true;
	}
	if (b >= 0)
		cq->when_can_borrow =
			b == 2 ? FUNGIBILITY_TRY_NEXT : FUNGIBILITY_BORROW;
	if (p >= 0)
		cq->when_can_preempt =
			p == 2 ? FUNGIBILITY_TRY_NEXT : FUNGIBILITY_PREEMPT;
	return 0;
}

static int cq_spec(struct dec *x, struct ynode *spec, struct cluster_queue *cq)
{
	static const char *const known[] = { "cohort",
					     "cohortName",
					     "resourceGroups",
					     "queueingStrategy",
					     "namespaceSelector",
					     "preemption",
					     "flavorFungibility",
					     "stopPolicy",
					     "fairSharing",
					     NULL };
	static const char *const ignored[] = { "admissionChecks",
					       "admissionChecksStrategy",
					       "admissionScope", NULL };
	static const char *const strategies[] = { "BestEffortFIFO",
						  "StrictFIFO", NULL };
	static const char *const stops[] = { "None", "Hold", "HoldAndDrain",
					     NULL };
	int q = 0, s = 0, rc = 0;
	struct ynode *f;
	size_t len;

	dec_check_fields(x, spec, known, ignored);
	/* v1beta2 renamed the field; the other name would be dropped. */
	if ((f = dec_get(spec, x->kueue_v1beta2 ? "cohort" : "cohortName"))) {
		len = dec_push(x, x->kueue_v1beta2 ? "cohort" : "cohortName");
		dec_warn(x, f, "ignored: this apiVersion calls the field %s",
			 x->kueue_v1beta2 ? "cohortName" : "cohort");
		dec_pop(x, len);
	}
	if (dec_str_field(x, spec, x->kueue_v1beta2 ? "cohortName" : "cohort",
			  false, &cq->cohort) < 0)
		rc = -EINVAL;
	if (dec_enum_field(x, spec, "queueingStrategy", strategies, &q) < 0)
		rc = -EINVAL;
	if (dec_enum_field(x, spec, "stopPolicy", stops, &s) < 0)
		rc = -EINVAL;
	if (fair_weight(x, spec, &cq->fair_weight_milli) < 0)
		rc = -EINVAL;
	cq->queueing = (enum queueing_strategy)q;
	cq->stop = (enum stop_policy)s;
	if (resource_groups(x, spec, cq, add_cq_group, &cq->groups,
			    &cq->ngroups) < 0)
		rc = -EINVAL;
	if ((f = dec_get(spec, "namespaceSelector"))) {
		len = dec_push(x, "namespaceSelector");
		if (dec_label_selector(x, f, &cq->namespace_selector) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((f = dec_get(spec, "preemption"))) {
		len = dec_push(x, "preemption");
		if (preemption(x, f, cq) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((f = dec_get(spec, "flavorFungibility"))) {
		len = dec_push(x, "flavorFungibility");
		if (fungibility(x, f, cq) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

int dec_cluster_queue(struct dec *x, struct ynode *root)
{
	struct cluster_queue *cq = vec_push_zero(&x->batch->cluster_queues);
	struct ynode *spec;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	cluster_queue_init(cq);
	cq->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, false, &m) < 0)
		rc = -EINVAL;
	cq->name = m.name;
	dec_meta_release(&m);
	/* being deleted: Kueue's finalizer keeps it until its admitted
	 * workloads are gone, and it admits nothing new */
	cq->deleting =
		dec_get(dec_get(root, "metadata"), "deletionTimestamp") != NULL;
	spec = spec_of(x, root, &len);
	if (!spec || cq_spec(x, spec, cq) < 0)
		rc = -EINVAL;
	dec_pop(x, len);
	return dec_commit(x, KIND_CLUSTER_QUEUE, root, rc == 0 && cq->name);
}

/* The parent under the other apiVersions' name would be dropped: say so. */
static void cohort_other_parent(struct dec *x, struct ynode *spec)
{
	const char *other = x->kueue_v1alpha1 ? "parentName" : "parent";
	struct ynode *f = dec_get(spec, other);
	size_t len;

	if (!f)
		return;
	len = dec_push(x, other);
	dec_warn(x, f, "ignored: this apiVersion calls the field %s",
		 x->kueue_v1alpha1 ? "parent" : "parentName");
	dec_pop(x, len);
}

int dec_cohort(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "parent", "parentName",
					     "resourceGroups", "fairSharing",
					     NULL };
	struct cohort *c = vec_push_zero(&x->batch->cohorts);
	struct ynode *spec;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	cohort_init(c);
	c->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, false, &m) < 0)
		rc = -EINVAL;
	c->name = m.name;
	dec_meta_release(&m);
	if ((spec = dec_get(root, "spec"))) {
		len = dec_push(x, "spec");
		if (dec_expect_map(x, spec) < 0) {
			rc = -EINVAL;
		} else {
			dec_check_fields(x, spec, known, NULL);
			/* v1alpha1's "parent" became "parentName" in
			 * v1beta1 (Kueue's cohort_types.go). */
			cohort_other_parent(x, spec);
			if (dec_str_field(x, spec,
					  x->kueue_v1alpha1 ? "parent"
							    : "parentName",
					  false, &c->parent) < 0)
				rc = -EINVAL;
			if (fair_weight(x, spec, &c->fair_weight_milli) < 0)
				rc = -EINVAL;
			if (resource_groups(x, spec, c, add_cohort_group,
					    &c->groups, &c->ngroups) < 0)
				rc = -EINVAL;
		}
		dec_pop(x, len);
	}
	return dec_commit(x, KIND_COHORT, root, rc == 0 && c->name);
}

int dec_local_queue(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "clusterQueue", "stopPolicy",
					     NULL };
	static const char *const ignored[] = { "fairSharing", NULL };
	static const char *const stops[] = { "None", "Hold", "HoldAndDrain",
					     NULL };
	int stop = 0;
	struct local_queue *lq = vec_push_zero(&x->batch->local_queues);
	struct ynode *spec;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	lq->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, true, &m) < 0)
		rc = -EINVAL;
	lq->name = m.name;
	lq->ns = m.ns;
	dec_meta_release(&m);
	spec = spec_of(x, root, &len);
	if (!spec) {
		rc = -EINVAL;
	} else {
		dec_check_fields(x, spec, known, ignored);
		if (dec_str_field(x, spec, "clusterQueue", true,
				  &lq->cluster_queue) < 0)
			rc = -EINVAL;
		if (dec_enum_field(x, spec, "stopPolicy", stops, &stop) < 0)
			rc = -EINVAL;
		lq->stop = (enum stop_policy)stop;
	}
	dec_pop(x, len);
	return dec_commit(x, KIND_LOCAL_QUEUE, root, rc == 0 && lq->name);
}

int dec_priority_class(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "apiVersion",  "kind",
					     "metadata",    "value",
					     "description", NULL };
	struct priority_class *pc = vec_push_zero(&x->batch->priority_classes);
	struct dec_meta m;
	int64_t value = 0;
	int rc = 0;

	pc->pos = x->obj_pos;
	dec_check_fields(x, root, known, NULL);
	if (dec_metadata(x, root, false, &m) < 0)
		rc = -EINVAL;
	pc->name = m.name;
	dec_meta_release(&m);
	if (dec_int_field(x, root, "value", true, INT32_MIN, INT32_MAX,
			  &value) < 0)
		rc = -EINVAL;
	if (dec_str_field(x, root, "description", false, &pc->description) < 0)
		rc = -EINVAL;
	pc->value = (int32_t)value;
	return dec_commit(x, KIND_PRIORITY_CLASS, root, rc == 0 && pc->name);
}

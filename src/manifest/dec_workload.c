// SPDX-License-Identifier: Apache-2.0
/*
 * Decoders for the kinds that describe jobs: kueue.x-k8s.io Workload,
 * batch/v1 Job (turned into a Workload the way Kueue's job integration
 * does, topology annotations included) and scheduling.x-k8s.io PodGroup.
 * Workloads and Jobs may also carry the inputs of a simulation in
 * sim.echelon.dev annotations.
 */
#include "manifest/dec.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/ann.h"
#include "base/duration.h"

#include "base/banned.h"

#define ANN_PREFIX    "kueue.x-k8s.io/"
#define MAX_POD_COUNT 1000000

static const char *const object_known[] = { "apiVersion", "kind",   "metadata",
					    "spec",	  "status", NULL };

/* Move a decoded pod spec into a pod set. */
static void podset_take_spec(struct podset *ps, struct dec_pod_spec *spec)
{
	ps->requests = spec->requests;
	labels_release(&ps->node_selector);
	ps->node_selector = spec->node_selector;
	node_affinity_release(&ps->affinity);
	ps->affinity = spec->affinity;
	free(ps->tolerations);
	ps->tolerations = spec->tolerations;
	ps->ntolerations = spec->ntolerations;
	BUG_ON(ps->preferred);
	ps->preferred = spec->preferred;
	ps->npreferred = spec->npreferred;
	labels_init(&spec->node_selector);
	node_affinity_init(&spec->affinity);
	spec->tolerations = NULL;
	spec->ntolerations = 0;
	spec->preferred = NULL;
	spec->npreferred = 0;
}

/* The first pod set's priority class and priority that are set count. */
static void take_priority(struct workload *w, const struct dec_pod_spec *spec)
{
	if (!w->pod_priority_class_name)
		w->pod_priority_class_name = spec->priority_class;
	if (!w->has_pod_priority && spec->has_priority) {
		w->has_pod_priority = true;
		w->pod_priority = spec->priority;
	}
}

/* template: {metadata: {labels, annotations}, spec: PodSpec}. */
static int pod_template(struct dec *x, struct ynode *tmpl, struct workload *w,
			struct podset *ps, struct labels *ret_annotations)
{
	static const char *const known[] = { "metadata", "spec", NULL };
	static const char *const meta_known[] = { "labels", "annotations",
						  "name", "namespace", NULL };
	struct dec_pod_spec spec;
	struct ynode *meta, *f;
	struct labels labels;
	size_t len;
	int rc = 0;

	if (dec_expect_map(x, tmpl) < 0)
		return -EINVAL;
	dec_check_fields(x, tmpl, known, NULL);
	if ((meta = dec_get(tmpl, "metadata"))) {
		len = dec_push(x, "metadata");
		labels_init(&labels);
		if (dec_expect_map(x, meta) < 0) {
			rc = -EINVAL;
		} else {
			dec_check_fields(x, meta, meta_known, NULL);
			if ((f = dec_get(meta, "labels"))) {
				size_t l2 = dec_push(x, "labels");

				if (dec_labels(x, f, &labels) < 0)
					rc = -EINVAL;
				dec_pop(x, l2);
			}
			if ((f = dec_get(meta, "annotations"))) {
				size_t l2 = dec_push(x, "annotations");

				if (dec_labels_any(x, f, ret_annotations) < 0)
					rc = -EINVAL;
				dec_pop(x, l2);
			}
		}
		labels_release(&labels);
		dec_pop(x, len);
	}
	dec_pod_spec_init(&spec);
	len = dec_push(x, "spec");
	if (!(f = dec_get(tmpl, "spec"))) {
		dec_error(x, tmpl, "is required");
		rc = -EINVAL;
	} else if (dec_pod_spec(x, f, &spec) < 0) {
		rc = -EINVAL;
	}
	dec_pop(x, len);
	take_priority(w, &spec);
	podset_take_spec(ps, &spec);
	dec_pod_spec_release(&spec);
	return rc;
}

static int check_topology(struct dec *x, struct ynode *at,
			  const struct podset *ps)
{
	struct errbuf eb;

	if (podset_check_topology(ps, &eb) == 0)
		return 0;
	dec_error(x, at, "%s", eb.msg);
	return -EINVAL;
}

static int slice_constraints(struct dec *x, struct ynode *list,
			     struct topology_request *t)
{
	static const char *const known[] = { "topology", "size", NULL };
	struct ynode *item;
	int rc = 0;

	if (dec_expect_seq(x, list) < 0)
		return -EINVAL;
	if (list->n > SLICE_MAX_LAYERS) {
		dec_error(x, list, "must have at most %d layers",
			  SLICE_MAX_LAYERS);
		return -EINVAL;
	}
	ynode_foreach(list, item)
	{
		size_t len = dec_push_index(x, t->nslices);
		struct slice_layer *l = &t->slices[t->nslices++];
		int64_t size = 0;

		if (dec_expect_map(x, item) < 0) {
			rc = -EINVAL;
		} else {
			dec_check_fields(x, item, known, NULL);
			if (dec_str_field(x, item, "topology", true,
					  &l->level) < 0)
				rc = -EINVAL;
			if (dec_int_field(x, item, "size", true, 1,
					  MAX_POD_COUNT, &size) < 0)
				rc = -EINVAL;
		}
		l->size = (int32_t)size;
		dec_pop(x, len);
	}
	return rc;
}

static int topology_request(struct dec *x, struct ynode *tr,
			    struct topology_request *t)
{
	int bad = 0;
	static const char *const known[] = {
		"required",
		"preferred",
		"unconstrained",
		"podIndexLabel",
		"podSetGroupName",
		"podSetSliceRequiredTopology",
		"podSetSliceSize",
		"podsetSliceRequiredTopologyConstraints",
		NULL
	};
	static const char *const ignored[] = { "subGroupIndexLabel",
					       "subGroupCount", NULL };
	const char *req = NULL, *pref = NULL, *slice = NULL;
	bool unconstrained = false;
	int64_t size = 0;
	struct ynode *f;
	int rc = 0, modes;

	if (dec_expect_map(x, tr) < 0)
		return -EINVAL;
	dec_check_fields(x, tr, known, ignored);
	bad |= dec_str_field(x, tr, "required", false, &req) < 0;
	bad |= dec_str_field(x, tr, "preferred", false, &pref) < 0;
	bad |= dec_bool_field(x, tr, "unconstrained", &unconstrained) < 0;
	bad |= dec_str_field(x, tr, "podIndexLabel", false,
			     &t->pod_index_label) < 0;
	bad |= dec_str_field(x, tr, "podSetGroupName", false, &t->group_name) <
	       0;
	bad |= dec_str_field(x, tr, "podSetSliceRequiredTopology", false,
			     &slice) < 0;
	bad |= dec_int_field(x, tr, "podSetSliceSize", false, 1, MAX_POD_COUNT,
			     &size) < 0;
	if (bad)
		return -EINVAL;
	modes = !!req + !!pref + unconstrained;
	if (modes > 1) {
		dec_error(x, tr,
			  "only one of required, preferred and unconstrained "
			  "may be set");
		return -EINVAL;
	}
	t->mode = req		  ? TOPOLOGY_REQUIRED
		  : pref	  ? TOPOLOGY_PREFERRED
		  : unconstrained ? TOPOLOGY_UNCONSTRAINED
				  : TOPOLOGY_NONE;
	t->level = req ? req : pref;
	if ((f = dec_get(tr, "podsetSliceRequiredTopologyConstraints"))) {
		size_t len =
			dec_push(x, "podsetSliceRequiredTopologyConstraints");

		if (slice || size) {
			dec_error(x, f,
				  "cannot be combined with "
				  "podSetSliceRequiredTopology or "
				  "podSetSliceSize");
			rc = -EINVAL;
		} else if (slice_constraints(x, f, t) < 0) {
			rc = -EINVAL;
		}
		dec_pop(x, len);
	} else if (slice || size) {
		t->slices[0].level = slice;
		t->slices[0].size = (int32_t)size;
		t->nslices = 1;
	}
	return rc;
}

static int podset(struct dec *x, struct ynode *n, struct workload *w,
		  struct podset *ps)
{
	static const char *const known[] = {
		"name", "count", "minCount", "template", "topologyRequest", NULL
	};
	struct labels annotations;
	int64_t count = 1, min = -1;
	struct ynode *f;
	size_t len;
	int rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	ps->pos = dec_pos(x, n);
	dec_check_fields(x, n, known, NULL);
	if (dec_str_field(x, n, "name", false, &ps->name) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, n, "count", false, 0, MAX_POD_COUNT, &count) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, n, "minCount", false, 0, MAX_POD_COUNT, &min) < 0)
		rc = -EINVAL;
	if (!ps->name)
		ps->name = cluster_str(x->batch, "main");
	ps->count = (int32_t)count;
	ps->min_count = min < 0 ? ps->count : (int32_t)min;
	if (rc == 0 && min > count) {
		len = dec_push(x, "minCount");
		dec_error(x, dec_get(n, "minCount"),
			  "must be less than or equal to count (%lld)",
			  (long long)count);
		dec_pop(x, len);
		rc = -EINVAL;
	}
	labels_init(&annotations);
	len = dec_push(x, "template");
	if (!(f = dec_get(n, "template"))) {
		dec_error(x, n, "is required");
		rc = -EINVAL;
	} else if (pod_template(x, f, w, ps, &annotations) < 0) {
		rc = -EINVAL;
	}
	dec_pop(x, len);
	labels_release(&annotations);
	if ((f = dec_get(n, "topologyRequest"))) {
		len = dec_push(x, "topologyRequest");
		if (topology_request(x, f, &ps->topology) < 0 ||
		    check_topology(x, f, ps) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

static int podsets(struct dec *x, struct ynode *spec, struct workload *w)
{
	struct ynode *list = dec_get(spec, "podSets"), *item;
	size_t len = dec_push(x, "podSets"), i = 0;
	int rc = 0;

	if (!list) {
		dec_error(x, spec, "is required");
		rc = -EINVAL;
	} else if (dec_expect_seq(x, list) < 0) {
		rc = -EINVAL;
	} else if (list->n < 1 || list->n > WORKLOAD_MAX_PODSETS) {
		dec_error(x, list, "must have between 1 and %d pod sets",
			  WORKLOAD_MAX_PODSETS);
		rc = -EINVAL;
	} else {
		ynode_foreach(list, item)
		{
			size_t l2 = dec_push_index(x, i++);

			if (podset(x, item, w, workload_add_podset(w)) < 0)
				rc = -EINVAL;
			for (size_t j = 0; rc == 0 && j + 1 < w->npodsets;
			     j++) {
				if (strcmp(w->podsets[j].name,
					   w->podsets[w->npodsets - 1].name) ==
				    0) {
					dec_error(x, item,
						  "duplicate pod set name "
						  "\"%s\"",
						  w->podsets[j].name);
					rc = -EINVAL;
				}
			}
			dec_pop(x, l2);
		}
	}
	dec_pop(x, len);
	return rc;
}

static int assignment_domains(struct dec *x, struct ynode *list,
			      struct topology_assignment *ta)
{
	static const char *const known[] = { "values", "count", NULL };
	struct ynode *item, *vals, *v;
	int rc = 0;

	if (dec_expect_seq(x, list) < 0)
		return -EINVAL;
	ta->domains = xcalloc((size_t)list->n + 1, sizeof(*ta->domains));
	ynode_foreach(list, item)
	{
		size_t len = dec_push_index(x, ta->ndomains);
		struct topology_domain *dom = &ta->domains[ta->ndomains++];
		int64_t count = 0;
		size_t nv = 0;

		dom->values = xcalloc(ta->nlevels + 1, sizeof(*dom->values));
		if (dec_expect_map(x, item) < 0 ||
		    dec_int_field(x, item, "count", true, 1, MAX_POD_COUNT,
				  &count) < 0) {
			rc = -EINVAL;
			dec_pop(x, len);
			continue;
		}
		dec_check_fields(x, item, known, NULL);
		dom->count = (int32_t)count;
		vals = dec_get(item, "values");
		if (vals && vals->type != YNODE_SEQ)
			vals = NULL;
		if (vals)
			ynode_foreach(vals, v)
			{
				if (nv < ta->nlevels &&
				    dec_string(x, v, &dom->values[nv]) < 0)
					rc = -EINVAL;
				nv++;
			}
		if (nv != ta->nlevels) {
			dec_error(x, item,
				  "values: must have one value per "
				  "level (%zu)",
				  ta->nlevels);
			rc = -EINVAL;
		}
		dec_pop(x, len);
	}
	return rc;
}

/* Kueue v1beta2's compact form of a level's values in one slice:
 * {"universal": V} or {"individual": {"prefix", "suffix", "roots"}}. */
static int slice_values(struct dec *x, struct ynode *v, size_t level,
			struct topology_domain *doms, size_t ndoms)
{
	struct ynode *ind = dec_get(v, "individual"), *roots, *r;
	const char *uni = NULL, *pre = "", *suf = "", *root;
	size_t i = 0;

	if (dec_expect_map(x, v) < 0)
		return -EINVAL;
	if (dec_str_field(x, v, "universal", false, &uni) < 0)
		return -EINVAL;
	if (uni) {
		for (i = 0; i < ndoms; i++)
			doms[i].values[level] = uni;
		return 0;
	}
	if (!ind || dec_expect_map(x, ind) < 0 ||
	    dec_str_field(x, ind, "prefix", false, &pre) < 0 ||
	    dec_str_field(x, ind, "suffix", false, &suf) < 0) {
		if (!ind)
			dec_error(x, v, "needs universal or individual");
		return -EINVAL;
	}
	roots = dec_get(ind, "roots");
	if (!roots || roots->type != YNODE_SEQ || roots->n != ndoms) {
		size_t len = dec_push(x, "individual");

		dec_error(x, roots ? roots : ind,
			  "roots: must have one value per domain (%zu)", ndoms);
		dec_pop(x, len);
		return -EINVAL;
	}
	ynode_foreach(roots, r)
	{
		char *full;

		if (dec_string(x, r, &root) < 0)
			return -EINVAL;
		full = xasprintf("%s%s%s", pre ? pre : "", root,
				 suf ? suf : "");
		doms[i++].values[level] = cluster_str(x->batch, full);
		free(full);
	}
	return 0;
}

/* A slice's pod counts: {"universal": N} or {"individual": [N...]}. */
static int slice_counts(struct dec *x, struct ynode *c,
			struct topology_domain *doms, size_t ndoms)
{
	struct ynode *ind, *v;
	int64_t n = 0;
	size_t i = 0;
	int r;

	if (!c) {
		dec_error(x, NULL, "podCounts: is required");
		return -EINVAL;
	}
	if (dec_expect_map(x, c) < 0)
		return -EINVAL;
	r = dec_int_field(x, c, "universal", false, 1, MAX_POD_COUNT, &n);
	if (r < 0)
		return -EINVAL;
	if (r > 0) {
		for (i = 0; i < ndoms; i++)
			doms[i].count = (int32_t)n;
		return 0;
	}
	ind = dec_get(c, "individual");
	if (!ind || dec_expect_seq(x, ind) < 0 || ind->n != ndoms) {
		dec_error(x, c,
			  "individual: must have one count per domain "
			  "(%zu)",
			  ndoms);
		return -EINVAL;
	}
	ynode_foreach(ind, v)
	{
		if (dec_int(x, v, 1, MAX_POD_COUNT, &n) < 0)
			return -EINVAL;
		doms[i++].count = (int32_t)n;
	}
	return 0;
}

/* The compact slices, appended to ta's domains. */
static int assignment_slices(struct dec *x, struct ynode *list,
			     struct topology_assignment *ta)
{
	static const char *const known[] = { "domainCount", "valuesPerLevel",
					     "podCounts", NULL };
	struct ynode *item, *vals, *v;
	size_t idx = 0, total = ta->ndomains;
	int rc = 0;

	if (dec_expect_seq(x, list) < 0)
		return -EINVAL;
	ynode_foreach(list, item)
	{
		size_t len = dec_push_index(x, idx++), l = 0;
		struct topology_domain *doms;
		int64_t n = 0;

		if (dec_expect_map(x, item) < 0 ||
		    dec_int_field(x, item, "domainCount", true, 1,
				  MAX_POD_COUNT, &n) < 0) {
			dec_pop(x, len);
			return -EINVAL;
		}
		dec_check_fields(x, item, known, NULL);
		total = ta->ndomains + (size_t)n;
		ta->domains = xreallocarray(ta->domains, total + 1,
					    sizeof(*ta->domains));
		doms = &ta->domains[ta->ndomains];
		for (size_t d = 0; d < (size_t)n; d++) {
			doms[d].values = xcalloc(ta->nlevels + 1,
						 sizeof(*doms[d].values));
			doms[d].count = 0;
		}
		ta->ndomains = total;
		vals = dec_get(item, "valuesPerLevel");
		if (!vals || dec_expect_seq(x, vals) < 0 ||
		    vals->n != ta->nlevels) {
			dec_error(x, item,
				  "valuesPerLevel: must have one entry per "
				  "level (%zu)",
				  ta->nlevels);
			rc = -EINVAL;
		} else {
			size_t lv = dec_push(x, "valuesPerLevel");

			ynode_foreach(vals, v)
			{
				size_t l2 = dec_push_index(x, l);

				if (slice_values(x, v, l, doms, (size_t)n) < 0)
					rc = -EINVAL;
				l++;
				dec_pop(x, l2);
			}
			dec_pop(x, lv);
		}
		if (slice_counts(x, dec_get(item, "podCounts"), doms,
				 (size_t)n) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
		if (rc < 0)
			return rc;
	}
	return rc;
}

static int assignment(struct dec *x, struct ynode *n,
		      struct topology_assignment **ret)
{
	static const char *const known[] = { "levels", "domains", "slices",
					     NULL };
	struct topology_assignment *ta = xcalloc(1, sizeof(*ta));
	struct ynode *levels = dec_get(n, "levels"), *l;
	size_t len;
	int rc = 0;

	*ret = ta;
	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, NULL);
	len = dec_push(x, "levels");
	if (!levels || dec_expect_seq(x, levels) < 0) {
		if (!levels)
			dec_error(x, n, "is required");
		dec_pop(x, len);
		return -EINVAL;
	}
	ta->levels = xcalloc((size_t)levels->n + 1, sizeof(*ta->levels));
	ynode_foreach(levels, l)
	{
		if (dec_string(x, l, &ta->levels[ta->nlevels++]) < 0)
			rc = -EINVAL;
	}
	dec_pop(x, len);
	len = dec_push(x, "domains");
	if (rc == 0 && dec_get(n, "domains") &&
	    assignment_domains(x, dec_get(n, "domains"), ta) < 0)
		rc = -EINVAL;
	dec_pop(x, len);
	len = dec_push(x, "slices");
	if (rc == 0 && dec_get(n, "slices") &&
	    assignment_slices(x, dec_get(n, "slices"), ta) < 0)
		rc = -EINVAL;
	dec_pop(x, len);
	return rc;
}

static int podset_assignment(struct dec *x, struct ynode *n,
			     struct podset_admission *pa)
{
	static const char *const known[] = { "name", "flavors", "count",
					     "topologyAssignment", NULL };
	static const char *const ignored[] = { "resourceUsage",
					       "delayedTopologyRequest", NULL };
	struct ynode *fl, *ta;
	struct ynode *pk, *pv;
	int64_t count = 0;
	int rc = 0;

	if (dec_expect_map(x, n) < 0)
		return -EINVAL;
	dec_check_fields(x, n, known, ignored);
	if (dec_str_field(x, n, "name", true, &pa->name) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, n, "count", false, 0, MAX_POD_COUNT, &count) < 0)
		rc = -EINVAL;
	pa->count = (int32_t)count;
	if ((fl = dec_get(n, "flavors"))) {
		size_t len = dec_push(x, "flavors");

		if (dec_expect_map(x, fl) < 0)
			fl = NULL, rc = -EINVAL;
		if (fl)
			ynode_foreach_pair(fl, pk, pv)
			{
				const char *res, *flavor;
				struct errbuf eb;
				int id;

				int bad = dec_string(x, pk, &res) < 0;

				bad |= dec_string(x, pv, &flavor) < 0;
				if (bad) {
					rc = -EINVAL;
					break;
				}
				id = resource_id(x->batch->resources, res, &eb);
				if (id < 0) {
					dec_error(x, pk, "%s", eb.msg);
					rc = -EINVAL;
					break;
				}
				pa->flavors[id] = flavor;
			}
		dec_pop(x, len);
	}
	if ((ta = dec_get(n, "topologyAssignment"))) {
		size_t len = dec_push(x, "topologyAssignment");

		if (assignment(x, ta, &pa->topology) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

static int admission(struct dec *x, struct ynode *status, struct workload *w)
{
	static const char *const known[] = { "clusterQueue",
					     "podSetAssignments", NULL };
	struct ynode *adm = dec_get(status, "admission"), *list, *item;
	size_t len, l2, i = 0;
	int rc = 0;

	if (!adm)
		return 0;
	len = dec_push(x, "admission");
	w->admission = xcalloc(1, sizeof(*w->admission));
	if (dec_expect_map(x, adm) < 0 ||
	    dec_str_field(x, adm, "clusterQueue", true,
			  &w->admission->cluster_queue) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	dec_check_fields(x, adm, known, NULL);
	l2 = dec_push(x, "podSetAssignments");
	list = dec_get(adm, "podSetAssignments");
	if (list && dec_expect_seq(x, list) < 0)
		list = NULL, rc = -EINVAL;
	if (list)
		ynode_foreach(list, item)
		{
			size_t l3 = dec_push_index(x, i++);

			if (w->admission->npodsets >= WORKLOAD_MAX_PODSETS) {
				dec_error(x, item,
					  "too many pod set assignments");
				rc = -EINVAL;
			} else if (podset_assignment(
					   x, item,
					   &w->admission->podsets
						    [w->admission
							     ->npodsets++]) <
				   0) {
				rc = -EINVAL;
			}
			dec_pop(x, l3);
		}
	dec_pop(x, l2);
	dec_pop(x, len);
	return rc;
}

/* One entry of status.conditions; types echelon does not know are kept
 * out of the model without a warning (Kueue adds new ones). */
static int condition(struct dec *x, struct ynode *item, struct workload *w)
{
	static const char *const known[] = { "type", "status", "reason",
					     "lastTransitionTime", NULL };
	static const char *const ignored[] = { "message", "observedGeneration",
					       NULL };
	static const char *const statuses[] = { "True", "False", "Unknown",
						NULL };
	struct workload_condition c = { .present = true };
	const char *type = NULL;
	int st = 0, rc = 0;

	if (dec_expect_map(x, item) < 0)
		return -EINVAL;
	dec_check_fields(x, item, known, ignored);
	if (dec_str_field(x, item, "type", true, &type) < 0 ||
	    dec_enum_field(x, item, "status", statuses, &st) < 0 ||
	    dec_str_field(x, item, "reason", false, &c.reason) < 0 ||
	    dec_time_field(x, item, "lastTransitionTime", &c.transition_us) < 0)
		rc = -EINVAL;
	c.status = st == 0 && dec_get(item, "status");
	for (int k = 0; type && rc == 0 && k < WORKLOAD_COND_COUNT; k++) {
		if (strcmp(type, workload_cond_name(k)) == 0)
			*workload_cond_set(w, (enum workload_cond)k) = c;
	}
	return rc;
}

static int conditions(struct dec *x, struct ynode *status, struct workload *w)
{
	struct ynode *list = dec_get(status, "conditions"), *item;
	size_t len, i = 0;
	int rc = 0;

	if (!list)
		return 0;
	len = dec_push(x, "conditions");
	if (dec_expect_seq(x, list) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	ynode_foreach(list, item)
	{
		size_t l2 = dec_push_index(x, i++);

		if (condition(x, item, w) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	dec_pop(x, len);
	return rc;
}

/* status.requeueState: {count, requeueAt}. */
static int requeue_state(struct dec *x, struct ynode *status,
			 struct workload *w)
{
	static const char *const known[] = { "count", "requeueAt", NULL };
	struct ynode *rs = dec_get(status, "requeueState");
	int64_t count = 0;
	size_t len;
	int rc = 0;

	if (!rs)
		return 0;
	len = dec_push(x, "requeueState");
	if (dec_expect_map(x, rs) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	dec_check_fields(x, rs, known, NULL);
	if (dec_int_field(x, rs, "count", false, 0, INT32_MAX, &count) < 0 ||
	    dec_time_field(x, rs, "requeueAt", &w->requeue.requeue_at_us) < 0)
		rc = -EINVAL;
	w->requeue.count = (int32_t)count;
	w->requeue.present = rc == 0;
	dec_pop(x, len);
	return rc;
}

static int workload_status(struct dec *x, struct ynode *status,
			   struct workload *w)
{
	static const char *const known[] = { "admission", "conditions",
					     "requeueState", NULL };
	static const char *const ignored[] = {
		"reclaimablePods",
		"admissionChecks",
		"resourceRequests",
		"accumulatedPastExexcutionTimeSeconds", /* v1beta1 (sic) */
		"accumulatedPastExecutionTimeSeconds",	/* v1beta2 */
		"preemptionGates",
		"schedulingStats",
		"nominatedClusterNames",
		"clusterName",
		"unhealthyNodes",
		NULL
	};

	if (dec_expect_map(x, status) < 0)
		return -EINVAL;
	dec_check_fields(x, status, known, ignored);
	if (conditions(x, status, w) < 0 || requeue_state(x, status, w) < 0)
		return -EINVAL;
	return admission(x, status, w);
}

/* v1beta2 spec.priorityClassRef: {group, kind, name}. */
static int priority_class_ref(struct dec *x, struct ynode *ref,
			      struct workload *w, bool *ret_pod_class)
{
	static const char *const known[] = { "group", "kind", "name", NULL };
	static const char *const groups[] = { "kueue.x-k8s.io",
					      "scheduling.k8s.io", NULL };
	static const char *const kinds[] = { "WorkloadPriorityClass",
					     "PriorityClass", NULL };
	int group = 0, kind = 0, rc = 0;

	if (dec_expect_map(x, ref) < 0)
		return -EINVAL;
	dec_check_fields(x, ref, known, NULL);
	if (dec_enum_field(x, ref, "group", groups, &group) < 0)
		rc = -EINVAL;
	if (dec_enum_field(x, ref, "kind", kinds, &kind) < 0)
		rc = -EINVAL;
	if (dec_str_field(x, ref, "name", true, &w->priority_class_name) < 0)
		rc = -EINVAL;
	*ret_pod_class = kind == 1;
	return rc;
}

/*
 * The class the Workload names: spec.priorityClassName, or v1beta2's
 * priorityClassRef. It is a WorkloadPriorityClass unless the v1beta1
 * priorityClassSource or the ref says it is a (pod) PriorityClass, which
 * then counts as the pods' class.
 */
static int workload_class(struct dec *x, struct ynode *spec, struct workload *w)
{
	const char *source = NULL;
	bool pod_class = false;
	struct ynode *ref;
	int rc = 0;

	if (dec_str_field(x, spec, "priorityClassName", false,
			  &w->priority_class_name) < 0)
		rc = -EINVAL;
	if (dec_str_field(x, spec, "priorityClassSource", false, &source) < 0)
		rc = -EINVAL;
	pod_class = source &&
		    strcmp(source, "scheduling.k8s.io/priorityclass") == 0;
	if ((ref = dec_get(spec, "priorityClassRef"))) {
		size_t len = dec_push(x, "priorityClassRef");

		if (priority_class_ref(x, ref, w, &pod_class) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if (pod_class) {
		w->pod_priority_class_name = w->priority_class_name;
		w->priority_class_name = NULL;
	}
	return rc;
}

static int workload_spec(struct dec *x, struct ynode *spec, struct workload *w)
{
	static const char *const known[] = { "podSets",
					     "queueName",
					     "priorityClassName",
					     "priorityClassSource",
					     "priorityClassRef",
					     "priority",
					     "active",
					     "maximumExecutionTimeSeconds",
					     NULL };
	int64_t prio = 0, max_exec = 0;
	int r, rc = 0;

	dec_check_fields(x, spec, known, NULL);
	if (dec_str_field(x, spec, "queueName", false, &w->queue_name) < 0)
		rc = -EINVAL;
	if (workload_class(x, spec, w) < 0)
		rc = -EINVAL;
	r = dec_int_field(x, spec, "priority", false, INT32_MIN, INT32_MAX,
			  &prio);
	if (r < 0)
		rc = -EINVAL;
	w->has_priority = r > 0;
	if (dec_bool_field(x, spec, "active", &w->active) < 0)
		rc = -EINVAL;
	w->priority = (int32_t)prio;
	if (dec_int_field(x, spec, "maximumExecutionTimeSeconds", false, 1,
			  INT32_MAX, &max_exec) < 0)
		rc = -EINVAL;
	w->max_exec_us = max_exec * 1000000;
	if (podsets(x, spec, w) < 0)
		rc = -EINVAL;
	return rc;
}

/* One ownerReferences entry: the first controller, else the first entry,
 * is the owner. */
static int owner_ref(struct dec *x, struct ynode *ref, struct workload *w,
		     bool *have_controller)
{
	static const char *const known[] = { "kind", "name", "controller",
					     NULL };
	static const char *const ignored[] = { "apiVersion", "uid",
					       "blockOwnerDeletion", NULL };
	const char *kind = NULL, *name = NULL;
	bool controller = false;
	int rc = 0;

	if (dec_expect_map(x, ref) < 0)
		return -EINVAL;
	dec_check_fields(x, ref, known, ignored);
	if (dec_str_field(x, ref, "kind", true, &kind) < 0)
		rc = -EINVAL;
	if (dec_str_field(x, ref, "name", true, &name) < 0)
		rc = -EINVAL;
	if (dec_bool_field(x, ref, "controller", &controller) < 0)
		rc = -EINVAL;
	if (rc < 0 || *have_controller || (w->owner_kind && !controller))
		return rc;
	w->owner_kind = kind;
	w->owner_name = name;
	*have_controller = controller;
	return 0;
}

/* metadata.ownerReferences of a Workload: the Job it stands for. */
static int owner_refs(struct dec *x, struct ynode *root, struct workload *w)
{
	struct ynode *list, *item;
	bool have_controller = false;
	size_t len, i = 0;
	int rc = 0;

	list = dec_get(dec_get(root, "metadata"), "ownerReferences");
	if (!list)
		return 0;
	len = dec_push(x, "metadata.ownerReferences");
	if (dec_expect_seq(x, list) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	ynode_foreach(list, item)
	{
		size_t l2 = dec_push_index(x, i++);

		if (owner_ref(x, item, w, &have_controller) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	dec_pop(x, len);
	return rc;
}

static void ann_error(struct dec *x, struct ynode *anns, const char *key,
		      const char *fmt, ...) PRINTF_LIKE(4, 5);

/* Report at annotation key of anns (the mapping, NULL ok) as the field
 * key of the current path, at the enclosing object when there is none. */
static void ann_error(struct dec *x, struct ynode *anns, const char *key,
		      const char *fmt, ...)
{
	size_t len = dec_push_key(x, key);
	struct ynode *at = anns ? dec_get(anns, key) : NULL;
	struct strbuf sb;
	va_list ap;

	strbuf_init(&sb);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	dec_error(x, at ? at : anns, "%s", sb.buf);
	strbuf_release(&sb);
	dec_pop(x, len);
}

/*
 * The simulation inputs of a Workload or Job (metadata.annotations
 * sim.echelon.dev/submit, /duration and /class, model/ann.h) are checked
 * here, each bad one reported at its key, and every annotation is kept on
 * the workload. Other keys in that namespace are warned about, as unknown
 * fields are.
 */
static int sim_annotations(struct dec *x, struct ynode *root,
			   const struct labels *ann, struct workload *w)
{
	static const char *const keys[] = { ANN_SIM_SUBMIT, ANN_SIM_DURATION,
					    ANN_SIM_CLASS,
					    ANN_SIM_PARALLELISM };
	struct ynode *anns = dec_get(dec_get(root, "metadata"), "annotations");
	size_t len = dec_push(x, "metadata.annotations");
	struct errbuf eb;
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (ann_sim_check(ann, keys[i], &eb) < 0) {
			ann_error(x, anns, keys[i], "%s", eb.msg);
			rc = -EINVAL;
		}
	}
	for (size_t i = 0; anns && anns->type == YNODE_MAP && i < anns->n;
	     i++) {
		struct ynode *k = anns->kids[2 * i];

		if (k->type == YNODE_SCALAR &&
		    strncmp(k->text, ANN_SIM_PREFIX, strlen(ANN_SIM_PREFIX)) ==
			    0 &&
		    !ann_sim_known(k->text))
			dec_warn(x, k, "unknown annotation \"%s\" is ignored",
				 k->text);
	}
	labels_copy(&w->annotations, ann);
	dec_pop(x, len);
	return rc;
}

int dec_workload(struct dec *x, struct ynode *root)
{
	struct workload *w = vec_push_zero(&x->batch->workloads);
	struct ynode *spec, *status;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	workload_init(w);
	w->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, true, &m) < 0)
		rc = -EINVAL;
	w->name = m.name;
	w->ns = m.ns;
	w->creation_us = m.creation_us;
	if (sim_annotations(x, root, &m.annotations, w) < 0)
		rc = -EINVAL;
	dec_meta_release(&m);
	if (owner_refs(x, root, w) < 0)
		rc = -EINVAL;
	len = dec_push(x, "spec");
	if (!(spec = dec_get(root, "spec"))) {
		dec_error(x, root, "is required");
		rc = -EINVAL;
	} else if (dec_expect_map(x, spec) < 0 ||
		   workload_spec(x, spec, w) < 0) {
		rc = -EINVAL;
	}
	dec_pop(x, len);
	if ((status = dec_get(root, "status"))) {
		len = dec_push(x, "status");
		if (workload_status(x, status, w) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return dec_commit(x, KIND_WORKLOAD, root, rc == 0 && w->name);
}

/*
 * An annotation (or label) holding an integer from 1 to max. anns is the
 * mapping (NULL ok), the path is already that of the mapping.
 */
static int ann_int(struct dec *x, struct ynode *anns, const struct labels *ann,
		   const char *key, int64_t max, int64_t *ret)
{
	const char *v = labels_get(ann, key);
	char *end;
	long long n;

	if (!v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (!(*v >= '0' && *v <= '9') || *end || errno == ERANGE || n < 1 ||
	    n > max) {
		ann_error(x, anns, key,
			  "must be a positive integer, not \"%s\"", v);
		return -EINVAL;
	}
	*ret = n;
	return 1;
}

/* [{"topology": "rack", "size": 4}, ...] from the multi-layer annotation. */
static int ann_constraints(struct dec *x, struct ynode *at, const char *v,
			   struct topology_request *t)
{
	json_error_t jerr;
	json_t *arr = json_loads(v, 0, &jerr), *item;
	size_t i;
	int rc = 0;

	if (!json_is_array(arr) || json_array_size(arr) < 1 ||
	    json_array_size(arr) > SLICE_MAX_LAYERS) {
		dec_error(x, at,
			  "must be a JSON list of 1 to %d "
			  "{\"topology\": LEVEL, \"size\": N} objects",
			  SLICE_MAX_LAYERS);
		json_decref(arr);
		return -EINVAL;
	}
	json_array_foreach(arr, i, item)
	{
		json_t *topo = json_object_get(item, "topology");
		json_t *size = json_object_get(item, "size");

		if (!json_is_string(topo) || !json_is_integer(size) ||
		    json_integer_value(size) < 1 ||
		    json_integer_value(size) > MAX_POD_COUNT) {
			dec_error(x, at,
				  "entry %zu must be {\"topology\": LEVEL, "
				  "\"size\": N} with N >= 1",
				  i);
			rc = -EINVAL;
			break;
		}
		t->slices[i].level =
			cluster_str(x->batch, json_string_value(topo));
		t->slices[i].size = (int32_t)json_integer_value(size);
		t->nslices = i + 1;
	}
	json_decref(arr);
	return rc;
}

/* Kueue's pod-template annotations to a topology request. */
static int job_topology(struct dec *x, struct ynode *at,
			const struct labels *ann, struct topology_request *t)
{
	const char *req =
		labels_get(ann, ANN_PREFIX "podset-required-topology");
	const char *pref =
		labels_get(ann, ANN_PREFIX "podset-preferred-topology");
	const char *unc =
		labels_get(ann, ANN_PREFIX "podset-unconstrained-topology");
	const char *slice =
		labels_get(ann, ANN_PREFIX "podset-slice-required-topology");
	const char *multi = labels_get(
		ann, ANN_PREFIX "podset-slice-required-topology-constraints");
	int64_t size = 0;
	int rc = 0;

	if (!!req + !!pref + !!(unc && strcmp(unc, "true") == 0) > 1) {
		dec_error(x, at,
			  "only one of the required, preferred and "
			  "unconstrained topology annotations may be set");
		return -EINVAL;
	}
	t->mode = req				      ? TOPOLOGY_REQUIRED
		  : pref			      ? TOPOLOGY_PREFERRED
		  : (unc && strcmp(unc, "true") == 0) ? TOPOLOGY_UNCONSTRAINED
						      : TOPOLOGY_NONE;
	t->level = cluster_str(x->batch, req ? req : pref);
	t->group_name = cluster_str(
		x->batch, labels_get(ann, ANN_PREFIX "podset-group-name"));
	if (ann_int(x, at, ann, ANN_PREFIX "podset-slice-size", MAX_POD_COUNT,
		    &size) < 0)
		rc = -EINVAL;
	if (multi && (slice || size)) {
		dec_error(x, at,
			  "the slice constraints annotation cannot be "
			  "combined with the slice topology or size "
			  "annotations");
		return -EINVAL;
	}
	if (multi) {
		/* at is the annotations mapping, the path is its own. */
		size_t len = dec_push_key(
			x, ANN_PREFIX
			"podset-slice-required-topology-constraints");
		struct ynode *n =
			dec_get(at, ANN_PREFIX
				"podset-slice-required-topology-constraints");

		if (ann_constraints(x, n ? n : at, multi, t) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
		return rc;
	}
	if (slice || size) {
		t->slices[0].level = cluster_str(x->batch, slice);
		t->slices[0].size = (int32_t)size;
		t->nslices = 1;
	}
	return rc;
}

static int job_spec(struct dec *x, struct ynode *spec, struct workload *w)
{
	static const char *const known[] = {
		"parallelism", "completions",		"template",
		"suspend",     "activeDeadlineSeconds", NULL
	};
	static const char *const ignored[] = {
		"podFailurePolicy", "successPolicy",
		"backoffLimit",	    "backoffLimitPerIndex",
		"maxFailedIndexes", "selector",
		"manualSelector",   "ttlSecondsAfterFinished",
		"completionMode",   "podReplacementPolicy",
		"managedBy",	    NULL
	};
	struct podset *ps = workload_add_podset(w);
	int64_t parallelism = 1, completions = -1, deadline = 0;
	struct labels ann;
	struct ynode *tmpl;
	size_t len;
	int rc = 0;

	dec_check_fields(x, spec, known, ignored);
	if (dec_int_field(x, spec, "parallelism", false, 0, MAX_POD_COUNT,
			  &parallelism) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, spec, "completions", false, 0, MAX_POD_COUNT,
			  &completions) < 0)
		rc = -EINVAL;
	if (dec_bool_field(x, spec, "suspend", &w->job.suspend) < 0)
		rc = -EINVAL;
	if (dec_int_field(x, spec, "activeDeadlineSeconds", false, 1, INT32_MAX,
			  &deadline) < 0)
		rc = -EINVAL;
	if (deadline &&
	    (!w->max_exec_us || deadline * 1000000 < w->max_exec_us))
		w->max_exec_us = deadline * 1000000;
	ps->name = cluster_str(x->batch, "main");
	/* Kueue's pod count: parallelism, capped by completions. */
	ps->count = (int32_t)(completions >= 0 && completions < parallelism
				      ? completions
				      : parallelism);
	ps->min_count = ps->count;
	labels_init(&ann);
	len = dec_push(x, "template");
	if (!(tmpl = dec_get(spec, "template"))) {
		dec_error(x, spec, "is required");
		rc = -EINVAL;
	} else {
		if (pod_template(x, tmpl, w, ps, &ann) < 0)
			rc = -EINVAL;
		struct ynode *at =
			dec_get(dec_get(tmpl, "metadata"), "annotations");
		size_t l2 = dec_push(x, "metadata.annotations");

		if (job_topology(x, at ? at : tmpl, &ann, &ps->topology) < 0 ||
		    check_topology(x, at ? at : tmpl, ps) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	dec_pop(x, len);
	labels_release(&ann);
	return rc;
}

/* status.active and status.ready: how many of its pods exist now. */
static int job_status(struct dec *x, struct ynode *status, struct workload *w)
{
	static const char *const known[] = { "active", "ready", NULL };
	static const char *const ignored[] = { "succeeded",
					       "failed",
					       "terminating",
					       "conditions",
					       "startTime",
					       "completionTime",
					       "completedIndexes",
					       "failedIndexes",
					       "uncountedTerminatedPods",
					       NULL };
	int64_t active = 0, ready = -1;
	int rc = 0;

	if (dec_expect_map(x, status) < 0)
		return -EINVAL;
	dec_check_fields(x, status, known, ignored);
	if (dec_int_field(x, status, "active", false, 0, INT32_MAX, &active) <
	    0)
		rc = -EINVAL;
	if (dec_int_field(x, status, "ready", false, 0, INT32_MAX, &ready) < 0)
		rc = -EINVAL;
	w->job.active = (int32_t)active;
	w->job.ready = (int32_t)ready;
	return rc;
}

int dec_job(struct dec *x, struct ynode *root)
{
	struct workload *w = vec_push_zero(&x->batch->workloads);
	struct ynode *spec;
	struct dec_meta m;
	int64_t min = 0, max_exec = 0;
	char *name;
	size_t len;
	int r, rc = 0;

	workload_init(w);
	w->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, true, &m) < 0)
		rc = -EINVAL;
	w->ns = m.ns;
	w->creation_us = m.creation_us;
	w->owner_kind = cluster_str(x->batch, "Job");
	w->owner_name = m.name;
	w->from_job = true;
	w->queue_name = labels_get(&m.labels, ANN_PREFIX "queue-name");
	if (!w->queue_name)
		w->queue_name =
			labels_get(&m.annotations, ANN_PREFIX "queue-name");
	w->priority_class_name =
		labels_get(&m.labels, ANN_PREFIX "priority-class");
	len = dec_push(x, "metadata.labels");
	if (ann_int(x, dec_get(dec_get(root, "metadata"), "labels"), &m.labels,
		    ANN_PREFIX "max-exec-time-seconds", INT32_MAX,
		    &max_exec) < 0)
		rc = -EINVAL;
	dec_pop(x, len);
	w->max_exec_us = max_exec * 1000000;
	if (sim_annotations(x, root, &m.annotations, w) < 0)
		rc = -EINVAL;
	len = dec_push(x, "spec");
	if (!(spec = dec_get(root, "spec"))) {
		dec_error(x, root, "is required");
		rc = -EINVAL;
	} else if (dec_expect_map(x, spec) < 0 || job_spec(x, spec, w) < 0) {
		rc = -EINVAL;
	}
	dec_pop(x, len);
	if ((spec = dec_get(root, "status"))) {
		len = dec_push(x, "status");
		if (job_status(x, spec, w) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	/* Partial admission: at least this many of the pods. */
	len = dec_push(x, "metadata.annotations");
	r = ann_int(x, dec_get(dec_get(root, "metadata"), "annotations"),
		    &m.annotations, ANN_PREFIX "job-min-parallelism",
		    MAX_POD_COUNT, &min);
	dec_pop(x, len);
	switch (r) {
	case 1:
		if (w->npodsets && min < w->podsets[0].count)
			w->podsets[0].min_count = (int32_t)min;
		break;
	case 0:
		break;
	default:
		rc = -EINVAL;
	}
	dec_meta_release(&m);
	if (w->owner_name) {
		name = xasprintf("job-%s", w->owner_name);
		w->name = cluster_str(x->batch, name);
		free(name);
	}
	rc = dec_commit(x, KIND_WORKLOAD, root, rc == 0 && w->name);
	if (rc == 0)
		x->batch->jobs++;
	return rc;
}

int dec_pod_group(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "minMember", "minResources",
					     "scheduleTimeoutSeconds", NULL };
	struct pod_group *pg = vec_push_zero(&x->batch->pod_groups);
	int64_t min = 0, timeout = 0;
	struct ynode *spec, *f;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	pg->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, true, &m) < 0)
		rc = -EINVAL;
	pg->name = m.name;
	pg->ns = m.ns;
	dec_meta_release(&m);
	len = dec_push(x, "spec");
	if (!(spec = dec_get(root, "spec"))) {
		dec_error(x, root, "is required");
		rc = -EINVAL;
	} else if (dec_expect_map(x, spec) < 0) {
		rc = -EINVAL;
	} else {
		dec_check_fields(x, spec, known, NULL);
		if (dec_int_field(x, spec, "minMember", true, 1, MAX_POD_COUNT,
				  &min) < 0)
			rc = -EINVAL;
		if (dec_int_field(x, spec, "scheduleTimeoutSeconds", false, 0,
				  INT32_MAX, &timeout) < 0)
			rc = -EINVAL;
		if ((f = dec_get(spec, "minResources"))) {
			size_t l2 = dec_push(x, "minResources");

			pg->has_min_resources = true;
			if (dec_resource_list(x, f, &pg->min_resources) < 0)
				rc = -EINVAL;
			dec_pop(x, l2);
		}
	}
	dec_pop(x, len);
	pg->min_member = (int32_t)min;
	pg->schedule_timeout_s = (int32_t)timeout;
	return dec_commit(x, KIND_POD_GROUP, root, rc == 0 && pg->name);
}

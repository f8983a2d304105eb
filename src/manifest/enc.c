// SPDX-License-Identifier: Apache-2.0
/*
 * Encoders of every model kind, the inverse of the decoders: each writes
 * the fields the decoder reads, leaves out defaults, and prints quantities
 * and durations canonically so that a second round gives the same text.
 */
#include "manifest/enc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/strbuf.h"
#include "base/timemap.h"
#include "model/quantity.h"

#include "model/ann.h"

#include "base/banned.h"

#define KUEUE "kueue.x-k8s.io/v1beta2"

static json_t *str(const char *s)
{
	return json_string(s ? s : "");
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static void set_str(json_t *obj, const char *key, const char *s)
{
	if (s)
		json_object_set_new(obj, key, json_string(s));
}

static json_t *head(const char *api, const char *kind, const char *ns,
		    const char *name)
{
	json_t *o = json_object(), *meta = json_object();

	json_object_set_new(o, "apiVersion", json_string(api));
	json_object_set_new(o, "kind", json_string(kind));
	set_str(meta, "name", name);
	set_str(meta, "namespace", ns);
	json_object_set_new(o, "metadata", meta);
	return o;
}

json_t *enc_quantity(const struct cluster *c, int id, int64_t v)
{
	struct strbuf sb;
	json_t *j;

	strbuf_init(&sb);
	quantity_format(v, c->resources->kinds[id], &sb);
	j = json_string(sb.buf);
	strbuf_release(&sb);
	return j;
}

/* A ResourceList; pods only when with_pods (a pod's one unit is implied). */
static json_t *resources(const struct cluster *c, const struct resvec *r,
			 bool with_pods)
{
	json_t *o = json_object();

	for (int i = 0; i < c->resources->count; i++) {
		if (r->v[i] == 0 || (i == RESOURCE_PODS && !with_pods))
			continue;
		json_object_set_new(o, resource_name(c->resources, i),
				    enc_quantity(c, i, r->v[i]));
	}
	return o;
}

static json_t *labels(const struct labels *l)
{
	json_t *o = json_object();

	for (size_t i = 0; i < l->len; i++)
		json_object_set_new(o, l->items[i].key,
				    json_string(l->items[i].value));
	return o;
}

static void set_nonempty(json_t *obj, const char *key, json_t *v)
{
	if ((json_is_object(v) && json_object_size(v) == 0) ||
	    (json_is_array(v) && json_array_size(v) == 0))
		json_decref(v);
	else
		json_object_set_new(obj, key, v);
}

static json_t *taints(const struct taint *t, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		set_str(o, "key", t[i].key);
		if (t[i].value && *t[i].value)
			set_str(o, "value", t[i].value);
		set_str(o, "effect", taint_effect_name(t[i].effect));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *tolerations(const struct toleration *t, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		if (t[i].key && *t[i].key)
			set_str(o, "key", t[i].key);
		set_str(o, "operator",
			t[i].op == TOLERATION_EXISTS ? "Exists" : "Equal");
		if (t[i].value && *t[i].value)
			set_str(o, "value", t[i].value);
		if (t[i].effect >= 0)
			set_str(o, "effect", taint_effect_name(t[i].effect));
		if (t[i].has_seconds)
			json_object_set_new(o, "tolerationSeconds",
					    json_integer(t[i].seconds));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *requirements(const struct selector *s)
{
	json_t *a = json_array();

	for (size_t i = 0; i < s->len; i++) {
		const struct selector_req *r = &s->reqs[i];
		json_t *o = json_object(), *vals = json_array();

		set_str(o, "key", r->key);
		set_str(o, "operator", selector_op_name(r->op));
		for (size_t v = 0; v < r->nvalues; v++)
			json_array_append_new(vals, str(r->values[v]));
		set_nonempty(o, "values", vals);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *affinity(const struct node_affinity *na,
			const struct preferred_term *pref, size_t npref)
{
	json_t *o = json_object(), *nodeaff = json_object();

	if (na->present) {
		json_t *req = json_object(), *terms = json_array();

		for (size_t t = 0; t < na->len; t++) {
			json_t *term = json_object();

			set_nonempty(term, "matchExpressions",
				     requirements(&na->terms[t]));
			json_array_append_new(terms, term);
		}
		json_object_set_new(req, "nodeSelectorTerms", terms);
		json_object_set_new(
			nodeaff,
			"requiredDuringSchedulingIgnoredDuringExecution", req);
	}
	if (npref) {
		json_t *list = json_array();

		for (size_t i = 0; i < npref; i++) {
			json_t *t = json_object(), *p = json_object();

			json_object_set_new(t, "weight",
					    json_integer(pref[i].weight));
			set_nonempty(p, "matchExpressions",
				     requirements(&pref[i].match));
			json_object_set_new(t, "preference", p);
			json_array_append_new(list, t);
		}
		json_object_set_new(
			nodeaff,
			"preferredDuringSchedulingIgnoredDuringExecution",
			list);
	}
	set_nonempty(o, "nodeAffinity", nodeaff);
	return o;
}

static json_t *enc_nspace(const struct nspace *ns)
{
	json_t *o = head("v1", "Namespace", NULL, ns->name);

	set_nonempty(json_object_get(o, "metadata"), "labels",
		     labels(&ns->labels));
	return o;
}

static json_t *enc_node(const struct cluster *c, const struct node *n)
{
	json_t *o = head("v1", "Node", NULL, n->name), *spec = json_object();
	json_t *status = json_object(), *cond = json_object();

	set_nonempty(json_object_get(o, "metadata"), "labels",
		     labels(&n->labels));
	set_nonempty(spec, "taints", taints(n->taints, n->ntaints));
	if (n->unschedulable)
		json_object_set_new(spec, "unschedulable", json_true());
	set_nonempty(o, "spec", spec);
	json_object_set_new(status, "allocatable",
			    resources(c, &n->allocatable, true));
	json_object_set_new(cond, "type", json_string("Ready"));
	json_object_set_new(cond, "status",
			    json_string(n->ready ? "True" : "False"));
	json_object_set_new(status, "conditions", json_pack("[o]", cond));
	json_object_set_new(o, "status", status);
	return o;
}

/* A container asking for requests (less the pod's implied pods unit). */
static json_t *containers(const struct cluster *c, const struct resvec *req)
{
	json_t *ctr = json_object(), *res = json_object();

	json_object_set_new(ctr, "name", json_string("main"));
	set_nonempty(res, "requests", resources(c, req, false));
	set_nonempty(ctr, "resources", res);
	return json_pack("[o]", ctr);
}

static json_t *enc_pod(const struct cluster *c, const struct pod *p)
{
	json_t *o = head("v1", "Pod", p->ns, p->name), *spec = json_object();
	json_t *status = json_object();

	set_nonempty(json_object_get(o, "metadata"), "labels",
		     labels(&p->labels));
	set_str(spec, "nodeName", p->node_name);
	json_object_set_new(spec, "containers", containers(c, &p->requests));
	json_object_set_new(o, "spec", spec);
	json_object_set_new(status, "phase",
			    json_string(pod_phase_name(p->phase)));
	json_object_set_new(o, "status", status);
	return o;
}

static json_t *enc_topology(const struct topology *t)
{
	json_t *o = head(KUEUE, "Topology", NULL, t->name);
	json_t *levels = json_array();

	for (size_t i = 0; i < t->nlevels; i++)
		json_array_append_new(
			levels, json_pack("{s:s}", "nodeLabel", t->levels[i]));
	json_object_set_new(o, "spec", json_pack("{s:o}", "levels", levels));
	return o;
}

static json_t *enc_flavor(const struct flavor *f)
{
	json_t *o = head(KUEUE, "ResourceFlavor", NULL, f->name);
	json_t *spec = json_object();

	set_nonempty(spec, "nodeLabels", labels(&f->node_labels));
	set_nonempty(spec, "nodeTaints",
		     taints(f->node_taints, f->nnode_taints));
	set_nonempty(spec, "tolerations",
		     tolerations(f->tolerations, f->ntolerations));
	set_str(spec, "topologyName", f->topology_name);
	set_nonempty(o, "spec", spec);
	return o;
}

static json_t *quota(const struct cluster *c, const struct resource_quota *q)
{
	json_t *o = json_object();

	json_object_set_new(
		o, "name",
		json_string(resource_name(c->resources, q->resource)));
	json_object_set_new(o, "nominalQuota",
			    enc_quantity(c, q->resource, q->nominal));
	if (q->borrowing_limit != QUOTA_UNLIMITED)
		json_object_set_new(
			o, "borrowingLimit",
			enc_quantity(c, q->resource, q->borrowing_limit));
	if (q->lending_limit != QUOTA_UNLIMITED)
		json_object_set_new(
			o, "lendingLimit",
			enc_quantity(c, q->resource, q->lending_limit));
	return o;
}

static json_t *groups(const struct cluster *c, const struct resource_group *g,
		      size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *cov = json_array(), *fls = json_array();

		for (size_t r = 0; r < g[i].ncovered; r++)
			json_array_append_new(
				cov, json_string(resource_name(
					     c->resources, g[i].covered[r])));
		for (size_t f = 0; f < g[i].nflavors; f++) {
			const struct flavor_quotas *fq = &g[i].flavors[f];
			json_t *res = json_array();

			for (size_t r = 0; r < fq->nresources; r++)
				json_array_append_new(
					res, quota(c, &fq->resources[r]));
			json_array_append_new(fls, json_pack("{s:s,s:o}",
							     "name", fq->flavor,
							     "resources", res));
		}
		json_array_append_new(a,
				      json_pack("{s:o,s:o}", "coveredResources",
						cov, "flavors", fls));
	}
	return a;
}

static void fair_weight(const struct cluster *c, json_t *spec, int64_t milli)
{
	if (milli != 1000)
		json_object_set_new(
			spec, "fairSharing",
			json_pack("{s:o}", "weight",
				  enc_quantity(c, RESOURCE_CPU, milli)));
}

static json_t *preemption(const struct cluster_queue *cq)
{
	static const char *const within[PREEMPT_POLICY_COUNT] = {
		[PREEMPT_NEVER] = "Never",
		[PREEMPT_LOWER_PRIORITY] = "LowerPriority",
		[PREEMPT_LOWER_OR_NEWER_EQUAL_PRIORITY] =
			"LowerOrNewerEqualPriority",
		[PREEMPT_ANY] = "Any",
	};
	json_t *o = json_object();

	if (cq->reclaim_within_cohort != PREEMPT_NEVER)
		set_str(o, "reclaimWithinCohort",
			within[cq->reclaim_within_cohort]);
	if (cq->within_cluster_queue != PREEMPT_NEVER)
		set_str(o, "withinClusterQueue",
			within[cq->within_cluster_queue]);
	if (cq->borrow_within_cohort != BORROW_PREEMPT_NEVER ||
	    cq->has_threshold) {
		json_t *b = json_object();

		set_str(b, "policy",
			cq->borrow_within_cohort == BORROW_PREEMPT_NEVER
				? "Never"
				: "LowerPriority");
		if (cq->has_threshold)
			json_object_set_new(
				b, "maxPriorityThreshold",
				json_integer(
					cq->borrow_max_priority_threshold));
		json_object_set_new(o, "borrowWithinCohort", b);
	}
	return o;
}

static json_t *fungibility(const struct cluster_queue *cq)
{
	json_t *o = json_object();

	if (cq->when_can_borrow == FUNGIBILITY_TRY_NEXT)
		set_str(o, "whenCanBorrow", "TryNextFlavor");
	if (cq->when_can_preempt == FUNGIBILITY_PREEMPT)
		set_str(o, "whenCanPreempt", "MayStopSearch");
	if (cq->has_preference)
		set_str(o, "preference",
			cq->preference == PREFER_PREEMPTION_OVER_BORROWING
				? "PreemptionOverBorrowing"
				: "BorrowingOverPreemption");
	return o;
}

static const char *const stop_names[STOP_POLICY_COUNT] = {
	[STOP_NONE] = "None",
	[STOP_HOLD] = "Hold",
	[STOP_HOLD_AND_DRAIN] = "HoldAndDrain",
};

static json_t *enc_cluster_queue(const struct cluster *c,
				 const struct cluster_queue *cq)
{
	json_t *o = head(KUEUE, "ClusterQueue", NULL, cq->name);
	json_t *spec = json_object();

	set_str(spec, "cohortName", cq->cohort);
	if (cq->queueing == QUEUEING_STRICT_FIFO)
		set_str(spec, "queueingStrategy", "StrictFIFO");
	/* Kueue reads an absent selector as "no namespace": say {} for
	 * every namespace, as echelon reads an absent one. */
	json_object_set_new(
		spec, "namespaceSelector",
		cq->namespace_selector.len
			? json_pack("{s:o}", "matchExpressions",
				    requirements(&cq->namespace_selector))
			: json_object());
	set_nonempty(spec, "resourceGroups",
		     groups(c, cq->groups, cq->ngroups));
	set_nonempty(spec, "preemption", preemption(cq));
	set_nonempty(spec, "flavorFungibility", fungibility(cq));
	if (cq->stop != STOP_NONE)
		set_str(spec, "stopPolicy", stop_names[cq->stop]);
	fair_weight(c, spec, cq->fair_weight_milli);
	json_object_set_new(o, "spec", spec);
	return o;
}

static json_t *enc_cohort(const struct cluster *c, const struct cohort *co)
{
	json_t *o = head(KUEUE, "Cohort", NULL, co->name),
	       *spec = json_object();

	set_str(spec, "parentName", co->parent);
	set_nonempty(spec, "resourceGroups",
		     groups(c, co->groups, co->ngroups));
	fair_weight(c, spec, co->fair_weight_milli);
	set_nonempty(o, "spec", spec);
	return o;
}

static json_t *enc_local_queue(const struct local_queue *lq)
{
	json_t *o = head(KUEUE, "LocalQueue", lq->ns, lq->name),
	       *spec = json_pack("{s:s}", "clusterQueue", lq->cluster_queue);

	if (lq->stop != STOP_NONE)
		set_str(spec, "stopPolicy", stop_names[lq->stop]);
	json_object_set_new(o, "spec", spec);
	return o;
}

static json_t *enc_priority_class(const struct priority_class *pc)
{
	json_t *o = head(KUEUE, "WorkloadPriorityClass", NULL, pc->name);

	json_object_set_new(o, "value", json_integer(pc->value));
	set_str(o, "description", pc->description);
	return o;
}

static json_t *enc_pod_priority_class(const struct pod_priority_class *pc)
{
	json_t *o =
		head("scheduling.k8s.io/v1", "PriorityClass", NULL, pc->name);

	json_object_set_new(o, "value", json_integer(pc->value));
	if (pc->global_default)
		json_object_set_new(o, "globalDefault", json_true());
	set_str(o, "description", pc->description);
	return o;
}

/* Go's Duration.String() for whole seconds ("1h30m0s", "5m0s", "45s");
 * milliseconds or microseconds otherwise. */
static json_t *duration(int64_t us)
{
	struct strbuf sb;
	json_t *j;
	int64_t s = us / 1000000;

	strbuf_init(&sb);
	if (us % 1000 != 0)
		strbuf_addf(&sb, "%lldus", (long long)us);
	else if (us % 1000000 != 0)
		strbuf_addf(&sb, "%lldms", (long long)(us / 1000));
	else if (s >= 3600)
		strbuf_addf(&sb, "%lldh%lldm%llds", (long long)(s / 3600),
			    (long long)(s % 3600 / 60), (long long)(s % 60));
	else if (s >= 60)
		strbuf_addf(&sb, "%lldm%llds", (long long)(s / 60),
			    (long long)(s % 60));
	else
		strbuf_addf(&sb, "%llds", (long long)s);
	j = json_string(sb.buf);
	strbuf_release(&sb);
	return j;
}

json_t *enc_timestamp(int64_t us)
{
	time_t t = (time_t)(timemap_wall(us) / 1000000);
	char buf[40];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

static json_t *topology_request(const struct topology_request *t)
{
	json_t *o = json_object();

	if (t->mode == TOPOLOGY_REQUIRED)
		set_str(o, "required", t->level);
	else if (t->mode == TOPOLOGY_PREFERRED)
		set_str(o, "preferred", t->level);
	else if (t->mode == TOPOLOGY_UNCONSTRAINED)
		json_object_set_new(o, "unconstrained", json_true());
	set_str(o, "podIndexLabel", t->pod_index_label);
	set_str(o, "podSetGroupName", t->group_name);
	if (t->nslices == 1) {
		set_str(o, "podSetSliceRequiredTopology", t->slices[0].level);
		json_object_set_new(o, "podSetSliceSize",
				    json_integer(t->slices[0].size));
	} else if (t->nslices > 1) {
		json_t *a = json_array();

		for (size_t i = 0; i < t->nslices; i++)
			json_array_append_new(
				a, json_pack("{s:s,s:i}", "topology",
					     t->slices[i].level, "size",
					     (int)t->slices[i].size));
		json_object_set_new(o, "podsetSliceRequiredTopologyConstraints",
				    a);
	}
	return o;
}

static json_t *podset(const struct cluster *c, const struct podset *ps)
{
	json_t *o = json_object(), *spec = json_object();

	set_str(o, "name", ps->name);
	json_object_set_new(o, "count", json_integer(ps->count));
	if (ps->min_count != ps->count)
		json_object_set_new(o, "minCount", json_integer(ps->min_count));
	json_object_set_new(spec, "containers", containers(c, &ps->requests));
	set_nonempty(spec, "nodeSelector", labels(&ps->node_selector));
	set_nonempty(spec, "affinity",
		     affinity(&ps->affinity, ps->preferred, ps->npreferred));
	set_nonempty(spec, "tolerations",
		     tolerations(ps->tolerations, ps->ntolerations));
	json_object_set_new(o, "template", json_pack("{s:o}", "spec", spec));
	set_nonempty(o, "topologyRequest", topology_request(&ps->topology));
	return o;
}

json_t *enc_topology_assignment(const struct topology_assignment *ta)
{
	json_t *levels = json_array(), *domains = json_array();

	for (size_t l = 0; l < ta->nlevels; l++)
		json_array_append_new(levels, str(ta->levels[l]));
	for (size_t d = 0; d < ta->ndomains; d++) {
		json_t *vals = json_array();

		for (size_t l = 0; l < ta->nlevels; l++)
			json_array_append_new(vals,
					      str(ta->domains[d].values[l]));
		json_array_append_new(
			domains, json_pack("{s:o,s:i}", "values", vals, "count",
					   (int)ta->domains[d].count));
	}
	return json_pack("{s:o,s:o}", "levels", levels, "domains", domains);
}

/* Longest common prefix (or suffix) length of the values of level l over
 * domains [0, n). */
static size_t common_affix(const struct topology_assignment *ta, size_t l,
			   size_t from, size_t n, bool suffix)
{
	const char *first = str_or_empty(ta->domains[from].values[l]);
	size_t len = strlen(first);

	for (size_t d = from + 1; d < from + n && len; d++) {
		const char *v = str_or_empty(ta->domains[d].values[l]);
		size_t vl = strlen(v), k = 0;

		while (k < len && k < vl &&
		       (suffix ? first[strlen(first) - 1 - k] == v[vl - 1 - k]
			       : first[k] == v[k]))
			k++;
		len = k;
	}
	return len;
}

/* The values of level l of domains [from, from + n) in one slice: a
 * universal value when all are the same, else the roots between the
 * longest common prefix and suffix (which never overlap). */
static json_t *slice_level(const struct topology_assignment *ta, size_t l,
			   size_t from, size_t n)
{
	size_t pre = common_affix(ta, l, from, n, false);
	size_t suf = common_affix(ta, l, from, n, true);
	size_t minlen = SIZE_MAX, maxlen = 0;
	const char *first = str_or_empty(ta->domains[from].values[l]);
	json_t *ind, *roots;

	for (size_t d = from; d < from + n; d++) {
		size_t vl = strlen(str_or_empty(ta->domains[d].values[l]));

		minlen = vl < minlen ? vl : minlen;
		maxlen = vl > maxlen ? vl : maxlen;
	}
	if (pre == maxlen)
		return json_pack("{s:s}", "universal", first);
	if (pre + suf > minlen)
		pre = minlen - suf;
	ind = json_object();
	if (pre)
		json_object_set_new(ind, "prefix", json_stringn(first, pre));
	if (suf)
		json_object_set_new(ind, "suffix",
				    json_string(first + strlen(first) - suf));
	roots = json_array();
	for (size_t d = from; d < from + n; d++) {
		const char *v = str_or_empty(ta->domains[d].values[l]);

		json_array_append_new(
			roots, json_stringn(v + pre, strlen(v) - pre - suf));
	}
	json_object_set_new(ind, "roots", roots);
	return json_pack("{s:o}", "individual", ind);
}

/* Domains [from, from + n) as one compact v1beta2 slice. */
static json_t *slice(const struct topology_assignment *ta, size_t from,
		     size_t n)
{
	json_t *vals = json_array(), *counts;
	bool same = true;

	for (size_t l = 0; l < ta->nlevels; l++)
		json_array_append_new(vals, slice_level(ta, l, from, n));
	for (size_t d = from + 1; d < from + n; d++)
		same = same && ta->domains[d].count == ta->domains[from].count;
	if (same) {
		counts = json_pack("{s:i}", "universal",
				   (int)ta->domains[from].count);
	} else {
		json_t *ind = json_array();

		for (size_t d = from; d < from + n; d++)
			json_array_append_new(
				ind, json_integer(ta->domains[d].count));
		counts = json_pack("{s:o}", "individual", ind);
	}
	return json_pack("{s:I,s:o,s:o}", "domainCount", (json_int_t)n,
			 "valuesPerLevel", vals, "podCounts", counts);
}

json_t *enc_topology_assignment_slices(const struct topology_assignment *ta)
{
	json_t *levels = json_array(), *slices = json_array();

	for (size_t l = 0; l < ta->nlevels; l++)
		json_array_append_new(levels, str(ta->levels[l]));
	for (size_t d = 0; d < ta->ndomains; d += ENC_SLICE_MAX_DOMAINS) {
		size_t n = ta->ndomains - d;

		json_array_append_new(slices,
				      slice(ta, d,
					    n < ENC_SLICE_MAX_DOMAINS
						    ? n
						    : ENC_SLICE_MAX_DOMAINS));
	}
	return json_pack("{s:o,s:o}", "levels", levels, "slices", slices);
}

static json_t *admission(const struct cluster *c, const struct admission *a)
{
	json_t *list = json_array();

	for (size_t i = 0; i < a->npodsets; i++) {
		const struct podset_admission *pa = &a->podsets[i];
		json_t *o = json_object(), *fl = json_object();

		set_str(o, "name", pa->name);
		for (int r = 0; r < c->resources->count; r++)
			set_str(fl, resource_name(c->resources, r),
				pa->flavors[r]);
		set_nonempty(o, "flavors", fl);
		json_object_set_new(o, "count", json_integer(pa->count));
		if (pa->topology)
			json_object_set_new(
				o, "topologyAssignment",
				enc_topology_assignment(pa->topology));
		json_array_append_new(list, o);
	}
	return json_pack("{s:s,s:o}", "clusterQueue", a->cluster_queue,
			 "podSetAssignments", list);
}

/* The pods' priority on the first pod set's template, where the decoder
 * finds it again (it takes the first pod set's that has one). */
static void pod_priority(json_t *ps, const struct workload *w)
{
	json_t *spec = json_object_get(json_object_get(ps, "template"), "spec");

	if (!spec)
		return;
	set_str(spec, "priorityClassName", w->pod_priority_class_name);
	if (w->has_pod_priority)
		json_object_set_new(spec, "priority",
				    json_integer(w->pod_priority));
}

/* The simulation inputs among the annotations, in canonical form. */
static json_t *sim_annotations(const struct workload *w)
{
	json_t *o = json_object();
	struct ann_sim sim;
	const char *key;
	struct errbuf eb;

	if (ann_sim_read(&w->annotations, &sim, &key, &eb) < 0)
		return o; /* the decoder refused it: never loaded */
	if (sim.submit_us >= 0)
		json_object_set_new(o, ANN_SIM_SUBMIT, duration(sim.submit_us));
	if (sim.duration_us >= 0)
		json_object_set_new(o, ANN_SIM_DURATION,
				    duration(sim.duration_us));
	set_str(o, ANN_SIM_CLASS, sim.klass);
	set_str(o, ANN_SIM_PARALLELISM, sim.parallelism);
	return o;
}

static json_t *enc_workload(const struct cluster *c, const struct workload *w)
{
	json_t *o = head(KUEUE, "Workload", w->ns, w->name);
	json_t *spec = json_object(), *ps = json_array();

	if (w->creation_us)
		json_object_set_new(json_object_get(o, "metadata"),
				    "creationTimestamp",
				    enc_timestamp(w->creation_us));
	set_nonempty(json_object_get(o, "metadata"), "annotations",
		     sim_annotations(w));
	set_str(spec, "queueName", w->queue_name);
	set_str(spec, "priorityClassName", w->priority_class_name);
	if (w->has_priority)
		json_object_set_new(spec, "priority",
				    json_integer(w->priority));
	if (!w->active)
		json_object_set_new(spec, "active", json_false());
	if (w->max_exec_us)
		json_object_set_new(spec, "maximumExecutionTimeSeconds",
				    json_integer(w->max_exec_us / 1000000));
	for (size_t i = 0; i < w->npodsets; i++)
		json_array_append_new(ps, podset(c, &w->podsets[i]));
	pod_priority(json_array_get(ps, 0), w);
	json_object_set_new(spec, "podSets", ps);
	json_object_set_new(o, "spec", spec);
	if (w->admission)
		json_object_set_new(o, "status",
				    json_pack("{s:o}", "admission",
					      admission(c, w->admission)));
	return o;
}

static json_t *enc_pod_group(const struct cluster *c,
			     const struct pod_group *pg)
{
	json_t *o = head("scheduling.x-k8s.io/v1alpha1", "PodGroup", pg->ns,
			 pg->name);
	json_t *spec = json_object();

	json_object_set_new(spec, "minMember", json_integer(pg->min_member));
	if (pg->has_min_resources)
		json_object_set_new(spec, "minResources",
				    resources(c, &pg->min_resources, true));
	if (pg->schedule_timeout_s)
		json_object_set_new(spec, "scheduleTimeoutSeconds",
				    json_integer(pg->schedule_timeout_s));
	json_object_set_new(o, "spec", spec);
	return o;
}

static json_t *enc_config(const struct config *cfg)
{
	const struct wait_for_pods_ready *w = &cfg->wait_for_pods_ready;
	json_t *o = json_object(), *rq;

	json_object_set_new(o, "apiVersion",
			    json_string("echelon.dev/v1alpha1"));
	json_object_set_new(o, "kind", json_string("Configuration"));
	json_object_set_new(
		o, "placement",
		json_pack("{s:s,s:b,s:b}", "algorithm",
			  placement_algorithm_name(cfg->placement.algorithm),
			  "balancedPlacement", cfg->placement.balanced,
			  "preferredNodeAffinity",
			  cfg->placement.preferred_node_affinity));
	if (!w->enable)
		return o;
	rq = json_pack(
		"{s:s,s:I,s:I}", "timestamp",
		w->requeuing.timestamp == REQUEUE_CREATION ? "Creation"
							   : "Eviction",
		"backoffBaseSeconds", (json_int_t)w->requeuing.backoff_base_s,
		"backoffMaxSeconds", (json_int_t)w->requeuing.backoff_max_s);
	if (w->requeuing.backoff_limit_count >= 0)
		json_object_set_new(
			rq, "backoffLimitCount",
			json_integer(w->requeuing.backoff_limit_count));
	json_object_set_new(
		o, "waitForPodsReady",
		json_pack("{s:o,s:o,s:b,s:o}", "timeout",
			  duration(w->timeout_us), "recoveryTimeout",
			  duration(w->recovery_timeout_us), "blockAdmission",
			  w->block_admission, "requeuingStrategy", rq));
	return o;
}

json_t *enc_object(const struct cluster *c, enum kind k, size_t i)
{
	switch (k) {
	case KIND_NAMESPACE:
		return enc_nspace(&c->namespaces.items[i]);
	case KIND_NODE:
		return enc_node(c, &c->nodes.items[i]);
	case KIND_POD:
		return enc_pod(c, &c->pods.items[i]);
	case KIND_TOPOLOGY:
		return enc_topology(&c->topologies.items[i]);
	case KIND_FLAVOR:
		return enc_flavor(&c->flavors.items[i]);
	case KIND_CLUSTER_QUEUE:
		return enc_cluster_queue(c, &c->cluster_queues.items[i]);
	case KIND_COHORT:
		return enc_cohort(c, &c->cohorts.items[i]);
	case KIND_LOCAL_QUEUE:
		return enc_local_queue(&c->local_queues.items[i]);
	case KIND_PRIORITY_CLASS:
		return enc_priority_class(&c->priority_classes.items[i]);
	case KIND_POD_PRIORITY_CLASS:
		return enc_pod_priority_class(
			&c->pod_priority_classes.items[i]);
	case KIND_WORKLOAD:
		return enc_workload(c, &c->workloads.items[i]);
	case KIND_POD_GROUP:
		return enc_pod_group(c, &c->pod_groups.items[i]);
	case KIND_CONFIG:
		return enc_config(&c->configs.items[i]);
	default:
		BUG_ON(1);
	}
	return NULL;
}

json_t *enc_cluster(const struct cluster *c)
{
	json_t *items = json_array();

	for (int k = 0; k < KIND_COUNT; k++) {
		for (size_t i = 0; i < cluster_count(c, (enum kind)k); i++)
			json_array_append_new(items,
					      enc_object(c, (enum kind)k, i));
	}
	return json_pack("{s:s,s:s,s:o}", "apiVersion", "v1", "kind", "List",
			 "items", items);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Decoders for object metadata, pod specs (with kube-scheduler's effective
 * request), and the core kinds v1 Node, v1 Pod and scheduling.k8s.io/v1
 * PriorityClass.
 */
#include "manifest/dec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/timemap.h"

#include "base/banned.h"

static const char *const meta_ignored[] = { "uid",
					    "resourceVersion",
					    "generation",
					    "generateName",
					    "finalizers",
					    "ownerReferences",
					    "managedFields",
					    "deletionTimestamp",
					    "deletionGracePeriodSeconds",
					    "selfLink",
					    NULL };

int dec_parse_time(const char *s, int64_t *ret_us)
{
	struct tm tm;
	int n = 0, oh = 0, om = 0;
	double frac = 0;
	char sign = 0;
	const char *p;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6)
		return -EINVAL;
	p = s + n;
	if (*p == '.') {
		char *end;

		frac = strtod(p, &end);
		p = end;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p;
		if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n) != 2)
			return -EINVAL;
		p += 1 + n;
	} else {
		return -EINVAL;
	}
	if (*p || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
	    tm.tm_sec > 60)
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (sign)
		t += (sign == '+' ? -1 : 1) * (oh * 3600 + om * 60);
	*ret_us = timemap_clock((int64_t)t * 1000000 + (int64_t)(frac * 1e6));
	return 0;
}

static int meta_fields(struct dec *x, struct ynode *meta, bool namespaced,
		       struct dec_meta *m)
{
	static const char *const known[] = {
		"name",	       "namespace",	    "labels",
		"annotations", "creationTimestamp", NULL
	};
	struct ynode *f;
	const char *ts;
	size_t len;
	int rc = 0;

	dec_check_fields(x, meta, known, meta_ignored);
	if (dec_str_field(x, meta, "name", true, &m->name) < 0) {
		rc = -EINVAL;
	} else {
		len = dec_push(x, "name");
		if (dec_check_name(x, dec_get(meta, "name"), m->name, true) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if (namespaced) {
		int r = dec_str_field(x, meta, "namespace", false, &m->ns);

		if (r < 0)
			rc = -EINVAL;
		len = dec_push(x, "namespace");
		if (r > 0 && dec_check_name(x, dec_get(meta, "namespace"),
					    m->ns, false) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	} else if (dec_get(meta, "namespace")) {
		len = dec_push(x, "namespace");
		dec_warn(x, dec_get(meta, "namespace"),
			 "ignored: the kind is cluster-scoped");
		dec_pop(x, len);
	}
	if ((f = dec_get(meta, "labels"))) {
		len = dec_push(x, "labels");
		if (dec_labels(x, f, &m->labels) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((f = dec_get(meta, "annotations"))) {
		len = dec_push(x, "annotations");
		if (dec_labels_any(x, f, &m->annotations) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	switch (dec_str_field(x, meta, "creationTimestamp", false, &ts)) {
	case 1:
		if (dec_parse_time(ts, &m->creation_us) < 0) {
			len = dec_push(x, "creationTimestamp");
			dec_error(x, dec_get(meta, "creationTimestamp"),
				  "must be an RFC 3339 time such as "
				  "\"2024-05-01T10:00:00Z\", not \"%s\"",
				  ts);
			dec_pop(x, len);
			rc = -EINVAL;
		}
		break;
	case 0:
		break;
	default:
		rc = -EINVAL;
	}
	return rc;
}

int dec_metadata(struct dec *x, struct ynode *root, bool namespaced,
		 struct dec_meta *m)
{
	struct ynode *meta = dec_get(root, "metadata");
	size_t len;
	int rc;

	memset(m, 0, sizeof(*m));
	labels_init(&m->labels);
	labels_init(&m->annotations);
	len = dec_push(x, "metadata");
	if (!meta) {
		dec_error(x, root, "is required");
		rc = -EINVAL;
	} else if (dec_expect_map(x, meta) < 0) {
		rc = -EINVAL;
	} else {
		rc = meta_fields(x, meta, namespaced, m);
	}
	dec_pop(x, len);
	if (namespaced && !m->ns)
		m->ns = cluster_str(x->batch, "default");
	return rc;
}

void dec_meta_release(struct dec_meta *m)
{
	labels_release(&m->labels);
	labels_release(&m->annotations);
}

int dec_commit(struct dec *x, enum kind k, struct ynode *root, bool ok)
{
	struct ynode *meta = dec_get(root, "metadata");
	struct strbuf key;
	size_t len;

	if (!ok) {
		cluster_pop_last(x->batch, k);
		return -EINVAL;
	}
	if (cluster_index_last(x->batch, k) == 0)
		return 0;
	strbuf_init(&key);
	cluster_object_key(x->batch, k, cluster_count(x->batch, k) - 1, &key);
	cluster_pop_last(x->batch, k);
	len = dec_push(x, "metadata.name");
	dec_error(x, meta ? dec_get(meta, "name") : root,
		  "%s \"%s\" is defined twice in this file", kind_name(k),
		  key.buf);
	dec_pop(x, len);
	strbuf_release(&key);
	return -EINVAL;
}

static const char *const container_known[] = { "name", "resources",
					       "restartPolicy", NULL };
static const char *const container_ignored[] = { "image",
						 "command",
						 "args",
						 "workingDir",
						 "ports",
						 "envFrom",
						 "env",
						 "resizePolicy",
						 "volumeMounts",
						 "volumeDevices",
						 "livenessProbe",
						 "readinessProbe",
						 "startupProbe",
						 "lifecycle",
						 "terminationMessagePath",
						 "terminationMessagePolicy",
						 "imagePullPolicy",
						 "securityContext",
						 "stdin",
						 "stdinOnce",
						 "tty",
						 NULL };

/* A container's requests; limits stand in for requests that are absent,
 * as the API server defaults them. *ret_sidecar: restartPolicy Always. */
static int dec_container(struct dec *x, struct ynode *c, struct resvec *out,
			 bool *ret_sidecar)
{
	static const char *const res_known[] = { "requests", "limits", NULL };
	static const char *const res_ignored[] = { "claims", NULL };
	struct resvec req, lim;
	struct ynode *res, *f;
	const char *restart = NULL;
	size_t len;
	int rc = 0;

	resvec_zero(out);
	*ret_sidecar = false;
	if (dec_expect_map(x, c) < 0)
		return -EINVAL;
	dec_check_fields(x, c, container_known, container_ignored);
	if (dec_str_field(x, c, "restartPolicy", false, &restart) < 0)
		rc = -EINVAL;
	*ret_sidecar = restart && strcmp(restart, "Always") == 0;
	if (!(res = dec_get(c, "resources")))
		return rc;
	len = dec_push(x, "resources");
	resvec_zero(&req);
	resvec_zero(&lim);
	if (dec_expect_map(x, res) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	dec_check_fields(x, res, res_known, res_ignored);
	if ((f = dec_get(res, "requests"))) {
		size_t l2 = dec_push(x, "requests");

		if (dec_resource_list(x, f, &req) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	if ((f = dec_get(res, "limits"))) {
		size_t l2 = dec_push(x, "limits");

		if (dec_resource_list(x, f, &lim) < 0)
			rc = -EINVAL;
		dec_pop(x, l2);
	}
	for (int i = 0; i < RESOURCE_MAX; i++)
		out->v[i] = req.v[i] ? req.v[i] : lim.v[i];
	dec_pop(x, len);
	return rc;
}

static int dec_containers(struct dec *x, struct ynode *spec, const char *field,
			  bool init, struct resvec *total)
{
	struct ynode *list = dec_get(spec, field), *c;
	struct resvec sidecars, init_max;
	size_t len, i = 0;
	int rc = 0;

	if (!list)
		return 0;
	len = dec_push(x, field);
	if (dec_expect_seq(x, list) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	resvec_zero(&sidecars);
	resvec_zero(&init_max);
	ynode_foreach(list, c)
	{
		size_t l2 = dec_push_index(x, i++);
		struct resvec r;
		bool sidecar;

		if (dec_container(x, c, &r, &sidecar) < 0)
			rc = -EINVAL;
		if (!init) {
			resvec_add(total, &r);
		} else if (sidecar) {
			/* Sidecars keep running: they add to everything after.
			 */
			resvec_add(&sidecars, &r);
			resvec_max(&init_max, &sidecars);
		} else {
			resvec_add(&r, &sidecars);
			resvec_max(&init_max, &r);
		}
		dec_pop(x, l2);
	}
	if (init) {
		resvec_add(total, &sidecars);
		resvec_max(total, &init_max);
	}
	dec_pop(x, len);
	return rc;
}

void dec_pod_spec_init(struct dec_pod_spec *ps)
{
	memset(ps, 0, sizeof(*ps));
	labels_init(&ps->node_selector);
	node_affinity_init(&ps->affinity);
}

void dec_pod_spec_release(struct dec_pod_spec *ps)
{
	labels_release(&ps->node_selector);
	node_affinity_release(&ps->affinity);
	preferred_terms_free(ps->preferred, ps->npreferred);
	free(ps->tolerations);
	memset(ps, 0, sizeof(*ps));
}

static const char *const spec_known[] = { "containers",	  "initContainers",
					  "overhead",	  "nodeName",
					  "nodeSelector", "affinity",
					  "tolerations",  "priorityClassName",
					  "priority",	  NULL };
static const char *const spec_ignored[] = { "volumes",
					    "restartPolicy",
					    "terminationGracePeriodSeconds",
					    "activeDeadlineSeconds",
					    "dnsPolicy",
					    "serviceAccountName",
					    "serviceAccount",
					    "automountServiceAccountToken",
					    "hostNetwork",
					    "hostPID",
					    "hostIPC",
					    "shareProcessNamespace",
					    "securityContext",
					    "imagePullSecrets",
					    "hostname",
					    "subdomain",
					    "schedulerName",
					    "hostAliases",
					    "dnsConfig",
					    "readinessGates",
					    "runtimeClassName",
					    "enableServiceLinks",
					    "preemptionPolicy",
					    "topologySpreadConstraints",
					    "setHostnameAsFQDN",
					    "os",
					    "hostUsers",
					    "schedulingGates",
					    "schedulingGroup",
					    "workloadRef",
					    "resourceClaims",
					    "ephemeralContainers",
					    "resources",
					    NULL };

static int spec_scheduling(struct dec *x, struct ynode *spec,
			   struct dec_pod_spec *out)
{
	int64_t prio = 0;
	struct ynode *f;
	size_t len;
	int r, rc = 0;

	if (dec_str_field(x, spec, "nodeName", false, &out->node_name) < 0)
		rc = -EINVAL;
	if (dec_str_field(x, spec, "priorityClassName", false,
			  &out->priority_class) < 0)
		rc = -EINVAL;
	r = dec_int_field(x, spec, "priority", false, INT32_MIN, INT32_MAX,
			  &prio);
	if (r < 0)
		rc = -EINVAL;
	out->has_priority = r > 0;
	out->priority = (int32_t)prio;
	if ((f = dec_get(spec, "nodeSelector"))) {
		len = dec_push(x, "nodeSelector");
		if (dec_labels(x, f, &out->node_selector) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((f = dec_get(spec, "affinity"))) {
		len = dec_push(x, "affinity");
		if (dec_node_affinity(x, f, &out->affinity, &out->preferred,
				      &out->npreferred) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	if ((f = dec_get(spec, "tolerations"))) {
		len = dec_push(x, "tolerations");
		if (dec_tolerations(x, f, &out->tolerations,
				    &out->ntolerations) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

int dec_pod_spec(struct dec *x, struct ynode *spec, struct dec_pod_spec *out)
{
	struct resvec overhead;
	struct ynode *f;
	size_t len;
	int rc = 0;

	if (dec_expect_map(x, spec) < 0)
		return -EINVAL;
	dec_check_fields(x, spec, spec_known, spec_ignored);
	if (!dec_get(spec, "containers")) {
		len = dec_push(x, "containers");
		dec_error(x, spec, "is required");
		dec_pop(x, len);
		rc = -EINVAL;
	}
	resvec_zero(&out->requests);
	if (dec_containers(x, spec, "containers", false, &out->requests) < 0)
		rc = -EINVAL;
	if (dec_containers(x, spec, "initContainers", true, &out->requests) < 0)
		rc = -EINVAL;
	if ((f = dec_get(spec, "overhead"))) {
		resvec_zero(&overhead);
		len = dec_push(x, "overhead");
		if (dec_resource_list(x, f, &overhead) < 0)
			rc = -EINVAL;
		resvec_add(&out->requests, &overhead);
		dec_pop(x, len);
	}
	out->requests.v[RESOURCE_PODS] = 1;
	if (spec_scheduling(x, spec, out) < 0)
		rc = -EINVAL;
	return rc;
}

static int node_status(struct dec *x, struct ynode *status, struct node *n)
{
	static const char *const known[] = { "allocatable", "capacity",
					     "conditions", NULL };
	/* What kubelets report besides: a Node read back from a cluster
	 * (or written by `echelon serve`'s kubelets) holds them. */
	static const char *const ignored[] = {
		"phase",	   "addresses",	       "daemonEndpoints",
		"nodeInfo",	   "images",	       "volumesInUse",
		"volumesAttached", "config",	       "runtimeHandlers",
		"features",	   "declaredFeatures", NULL
	};
	struct ynode *f, *cond;
	size_t len, i = 0;
	int rc = 0;

	if (dec_expect_map(x, status) < 0)
		return -EINVAL;
	dec_check_fields(x, status, known, ignored);
	/* allocatable defaults to capacity, as the kubelet reports it. */
	f = dec_get(status, "allocatable");
	len = dec_push(x, f ? "allocatable" : "capacity");
	if (!f)
		f = dec_get(status, "capacity");
	if (f && dec_resource_list(x, f, &n->allocatable) < 0)
		rc = -EINVAL;
	dec_pop(x, len);
	if (!(f = dec_get(status, "conditions")))
		return rc;
	len = dec_push(x, "conditions");
	if (dec_expect_seq(x, f) < 0) {
		dec_pop(x, len);
		return -EINVAL;
	}
	ynode_foreach(f, cond)
	{
		size_t l2 = dec_push_index(x, i++);
		const char *type = NULL, *st = NULL;

		if (dec_expect_map(x, cond) < 0 ||
		    dec_str_field(x, cond, "type", true, &type) < 0 ||
		    dec_str_field(x, cond, "status", true, &st) < 0)
			rc = -EINVAL;
		else if (strcmp(type, "Ready") == 0)
			n->ready = strcmp(st, "True") == 0;
		dec_pop(x, l2);
	}
	dec_pop(x, len);
	return rc;
}

static int node_spec(struct dec *x, struct ynode *spec, struct node *n)
{
	static const char *const known[] = { "taints", "unschedulable", NULL };
	static const char *const ignored[] = { "podCIDR",    "podCIDRs",
					       "providerID", "configSource",
					       "externalID", NULL };
	struct ynode *f;
	int rc = 0;

	if (dec_expect_map(x, spec) < 0)
		return -EINVAL;
	dec_check_fields(x, spec, known, ignored);
	if (dec_bool_field(x, spec, "unschedulable", &n->unschedulable) < 0)
		rc = -EINVAL;
	if ((f = dec_get(spec, "taints"))) {
		size_t len = dec_push(x, "taints");

		if (dec_taints(x, f, &n->taints, &n->ntaints) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	return rc;
}

/* Decode an optional sub-object with fn, under its field name. */
#define SUB(x, root, field, fn, obj)                                           \
	({                                                                     \
		struct ynode *f_ = dec_get((root), (field));                   \
		int r_ = 0;                                                    \
		if (f_) {                                                      \
			size_t l_ = dec_push((x), (field));                    \
			r_ = fn((x), f_, (obj));                               \
			dec_pop((x), l_);                                      \
		}                                                              \
		r_;                                                            \
	})

static const char *const object_known[] = { "apiVersion", "kind",   "metadata",
					    "spec",	  "status", NULL };

int dec_node(struct dec *x, struct ynode *root)
{
	struct node *n = vec_push_zero(&x->batch->nodes);
	struct dec_meta m;
	int rc = 0;

	node_init(n);
	n->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, false, &m) < 0)
		rc = -EINVAL;
	n->name = m.name;
	labels_release(&n->labels);
	n->labels = m.labels; /* moved: the metadata gives them up */
	labels_init(&m.labels);
	dec_meta_release(&m);
	if (SUB(x, root, "spec", node_spec, n) < 0)
		rc = -EINVAL;
	if (SUB(x, root, "status", node_status, n) < 0)
		rc = -EINVAL;
	return dec_commit(x, KIND_NODE, root, rc == 0 && n->name);
}

/* A Namespace: its labels; spec (finalizers) and status (phase) do not
 * matter to admission. Its name is a DNS-1123 label. */
int dec_namespace(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "apiVersion", "kind", "metadata",
					     NULL };
	static const char *const ignored[] = { "spec", "status", NULL };
	struct nspace *ns = vec_push_zero(&x->batch->namespaces);
	struct dec_meta m;
	size_t len;
	int rc = 0;

	nspace_init(ns);
	ns->pos = x->obj_pos;
	dec_check_fields(x, root, known, ignored);
	/* A name already reported as no subdomain is not checked again. */
	if (dec_metadata(x, root, false, &m) < 0) {
		rc = -EINVAL;
	} else if (m.name) {
		len = dec_push(x, "metadata.name");
		if (dec_check_name(x,
				   dec_get(dec_get(root, "metadata"), "name"),
				   m.name, false) < 0)
			rc = -EINVAL;
		dec_pop(x, len);
	}
	ns->name = m.name;
	labels_release(&ns->labels);
	ns->labels = m.labels; /* moved: the metadata gives them up */
	labels_init(&m.labels);
	dec_meta_release(&m);
	return dec_commit(x, KIND_NAMESPACE, root, rc == 0 && ns->name);
}

static int pod_status(struct dec *x, struct ynode *status, struct pod *p)
{
	const char *phase = NULL;
	size_t len;

	if (dec_expect_map(x, status) < 0 ||
	    dec_str_field(x, status, "phase", false, &phase) < 0)
		return -EINVAL;
	if (phase && pod_parse_phase(phase, &p->phase) < 0) {
		len = dec_push(x, "phase");
		dec_error(x, dec_get(status, "phase"),
			  "unsupported value \"%s\": must be one of "
			  "\"Pending\", \"Running\", \"Succeeded\", "
			  "\"Failed\", \"Unknown\"",
			  phase);
		dec_pop(x, len);
		return -EINVAL;
	}
	return 0;
}

int dec_pod(struct dec *x, struct ynode *root)
{
	struct pod *p = vec_push_zero(&x->batch->pods);
	struct dec_pod_spec ps;
	struct dec_meta m;
	size_t len;
	int rc = 0;

	pod_init(p);
	p->pos = x->obj_pos;
	dec_check_fields(x, root, object_known, NULL);
	if (dec_metadata(x, root, true, &m) < 0)
		rc = -EINVAL;
	p->name = m.name;
	p->ns = m.ns;
	labels_release(&p->labels);
	p->labels = m.labels; /* moved: the metadata gives them up */
	labels_init(&m.labels);
	dec_meta_release(&m);
	dec_pod_spec_init(&ps);
	len = dec_push(x, "spec");
	if (!dec_get(root, "spec")) {
		dec_error(x, root, "is required");
		rc = -EINVAL;
	} else if (dec_pod_spec(x, dec_get(root, "spec"), &ps) < 0) {
		rc = -EINVAL;
	}
	dec_pop(x, len);
	p->requests = ps.requests;
	p->node_name = ps.node_name;
	p->phase = p->node_name ? POD_RUNNING : POD_PENDING;
	dec_pod_spec_release(&ps);
	if (SUB(x, root, "status", pod_status, p) < 0)
		rc = -EINVAL;
	return dec_commit(x, KIND_POD, root, rc == 0 && p->name);
}

int dec_pod_priority_class(struct dec *x, struct ynode *root)
{
	static const char *const known[] = { "apiVersion",  "kind",
					     "metadata",    "value",
					     "description", "globalDefault",
					     NULL };
	static const char *const ignored[] = { "preemptionPolicy", NULL };
	struct pod_priority_class *pc =
		vec_push_zero(&x->batch->pod_priority_classes);
	struct dec_meta m;
	int64_t value = 0;
	int rc = 0;

	pc->pos = x->obj_pos;
	dec_check_fields(x, root, known, ignored);
	if (dec_metadata(x, root, false, &m) < 0)
		rc = -EINVAL;
	pc->name = m.name;
	dec_meta_release(&m);
	if (dec_int_field(x, root, "value", true, INT32_MIN, INT32_MAX,
			  &value) < 0)
		rc = -EINVAL;
	if (dec_bool_field(x, root, "globalDefault", &pc->global_default) < 0)
		rc = -EINVAL;
	if (dec_str_field(x, root, "description", false, &pc->description) < 0)
		rc = -EINVAL;
	pc->value = (int32_t)value;
	return dec_commit(x, KIND_POD_PRIORITY_CLASS, root,
			  rc == 0 && pc->name);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Gangs of pods that exist before their admission: Kubernetes' own
 * PodGroup (scheduling.k8s.io, KEP-4671: pods whose
 * spec.schedulingGroup.podGroupName names it), Coscheduling's PodGroup
 * (scheduling.x-k8s.io/v1alpha1, pods labelled
 * scheduling.x-k8s.io/pod-group) and a plain pod with Kueue's queue
 * label. A PodGroup's becomes a workload of the controller only (no
 * Workload object: its status goes on the PodGroup, its admission into
 * an annotation of it), named after it, once its quorum of pods exist
 * (minMember; the native one's spec.schedulingPolicy.gang.minCount, 1
 * for its basic policy): one pod set of those pods, their spec the
 * template, the native one's spec.schedulingConstraints.topology[0].key
 * a required topology level. The
 * controller's lifecycle then applies the PodGroup's quorum and schedule
 * timeout. A plain pod gets its Workload object as Kueue's pod
 * integration makes it (serve_sched_pod_workload), which reaches the
 * controller as a Job's does. A released gang's bound pods are deleted
 * (pods cannot be unbound); its unbound ones hold nothing and stay.
 */
#include "serve/serve_sched_int.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "serve/serve_status.h"

#include "base/banned.h"

#define PG_LABEL    "scheduling.x-k8s.io/pod-group"
#define QUEUE_LABEL "kueue.x-k8s.io/queue-name"

static const char *label(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(
		json_object_get(json_object_get(o, "metadata"), "labels"),
		key));
}

const char *serve_sched_pod_group_of(const json_t *pod, bool *ret_native)
{
	const char *pg = json_string_value(
		json_object_get(json_object_get(json_object_get(pod, "spec"),
						"schedulingGroup"),
				"podGroupName"));

	*ret_native = pg != NULL;
	return pg ? pg : label(pod, PG_LABEL);
}

static enum sk pg_kind(bool native)
{
	return native ? SK_NATIVE_POD_GROUP : SK_POD_GROUP;
}

static bool waiting(const json_t *pod)
{
	const char *ph = serve_str_at(pod, "status", "phase");

	return !serve_str_at(pod, "spec", "nodeName") &&
	       !json_object_get(json_object_get(pod, "metadata"),
				"deletionTimestamp") &&
	       !(ph &&
		 (strcmp(ph, "Succeeded") == 0 || strcmp(ph, "Failed") == 0));
}

/* Neither finished nor being deleted. */
static bool live(const json_t *pod)
{
	const char *ph = serve_str_at(pod, "status", "phase");

	return !json_object_get(json_object_get(pod, "metadata"),
				"deletionTimestamp") &&
	       !(ph &&
		 (strcmp(ph, "Succeeded") == 0 || strcmp(ph, "Failed") == 0));
}

json_t *serve_sched_admission_json(const json_t *obj)
{
	const char *text = json_string_value(json_object_get(
		json_object_get(json_object_get(obj, "metadata"),
				"annotations"),
		SERVE_ADMISSION_ANNOTATION));
	json_t *adm = text ? json_loads(text, 0, NULL) : NULL;

	if (!json_is_object(adm)) {
		json_decref(adm);
		return NULL;
	}
	return adm;
}

/* The admission PodGroup ns/pg kept (SERVE_ADMISSION_ANNOTATION) as
 * JSON (new reference), or NULL. */
static json_t *admission_json(struct serve_sched *x, bool native,
			      const char *ns, const char *pg)
{
	const struct api_obj *o =
		api_store_get(x->s, x->kinds[pg_kind(native)], ns, pg);

	return o ? serve_sched_admission_json(o->body) : NULL;
}

static char *gang_key(bool native, const char *ns, const char *pg);

/* Whether PodGroup ns/pg keeps an admission, as read once in a restore
 * (restored_adm: its pods would parse the annotation each, a fifth of a
 * new leader's first pass at 50,000 pods). */
static bool admission_of(struct serve_sched *x, bool native, const char *ns,
			 const char *pg)
{
	char *key = gang_key(native, ns, pg);
	json_t *adm;
	int64_t has;

	if (!hmap_get_str(&x->restored_adm, key, &has)) {
		adm = admission_json(x, native, ns, pg);
		has = adm != NULL;
		json_decref(adm);
		hmap_put_str(&x->restored_adm, key, has);
	}
	free(key);
	return has;
}

/* The live slot of the gang of PodGroup ns/name (native: Kubernetes'
 * own), or -ENOENT. */
static int64_t gang_slot(struct serve_sched *x, bool native, const char *ns,
			 const char *name)
{
	int64_t slot = serve_sched_find(x, ns, name);
	const struct swl *w;

	if (slot < 0)
		return slot;
	w = serve_sched_slot(x, (uint32_t)slot);
	if (w->job || w->pod || w->native != native)
		return -ENOENT; /* a Job's or Pod's Workload of that name, or
				   the other PodGroup kind's gang */
	return slot;
}

/* A gang's key: "n" (native) or "x", then "ns/name" (new_gangs' and
 * pg_pods' keys). */
static char *gang_key(bool native, const char *ns, const char *pg)
{
	return xasprintf("%c%s/%s", native ? 'n' : 'x', ns, pg);
}

static void want_gang(struct serve_sched *x, bool native, const char *ns,
		      const char *pg)
{
	char *key = gang_key(native, ns, pg);

	if (hmap_put_str(&x->new_gang_keys, key, 1))
		vec_push(&x->new_gangs, key);
	else
		free(key);
}

/* The names of our pods that name a PodGroup, kept in name order (the
 * order api_store_each() walked them in, which make_gang() depends on):
 * a gang's members are these, filtered (member()). A name stays until
 * its pod is deleted; a pod whose label changed is filtered out. */
struct serve_sched_pg_pods {
	VEC(char *) names;
};

static struct serve_sched_pg_pods *pg_pods(const struct serve_sched *x,
					   const char *key)
{
	int64_t v;

	return hmap_get_str(&x->pg_pods, key, &v)
		       ? (struct serve_sched_pg_pods *)(intptr_t)v
		       : NULL;
}

/* The first position in l whose name is not below name. */
static size_t name_at(const struct serve_sched_pg_pods *l, const char *name)
{
	size_t lo = 0, hi = l->names.len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(l->names.items[mid], name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void index_pod(struct serve_sched *x, const struct sev *e,
		      const char *ns, const char *pg, bool native)
{
	const char *name = serve_str_at(e->body, "metadata", "name");
	char *key = gang_key(native, ns, pg);
	struct serve_sched_pg_pods *l = pg_pods(x, key);
	size_t i;

	if (!name)
		goto out;
	if (!l) {
		if (e->type == API_DELETED)
			goto out;
		l = xcalloc(1, sizeof(*l));
		hmap_put_str(&x->pg_pods, key, (int64_t)(intptr_t)l);
	}
	i = name_at(l, name);
	if (e->type == API_DELETED) {
		if (i < l->names.len && strcmp(l->names.items[i], name) == 0) {
			free(l->names.items[i]);
			memmove(&l->names.items[i], &l->names.items[i + 1],
				(l->names.len - i - 1) *
					sizeof(*l->names.items));
			l->names.len--;
		}
		if (!l->names.len) {
			vec_release(&l->names);
			free(l);
			hmap_del(&x->pg_pods, key, strlen(key));
		}
	} else if (i == l->names.len || strcmp(l->names.items[i], name)) {
		vec_reserve(&l->names, l->names.len + 1);
		memmove(&l->names.items[i + 1], &l->names.items[i],
			(l->names.len - i) * sizeof(*l->names.items));
		l->names.items[i] = xstrdup(name);
		l->names.len++;
	}
out:
	free(key);
}

const json_t *serve_sched_pg_first(void *ctx, const char *ns, const char *pg)
{
	struct serve_sched *x = ctx;
	char *key = gang_key(false, ns, pg);
	const struct serve_sched_pg_pods *l = pg_pods(x, key);
	const json_t *found = NULL;

	free(key);
	for (size_t i = 0; l && i < l->names.len && !found; i++) {
		const struct api_obj *o = api_store_get(x->s, x->kinds[SK_POD],
							ns, l->names.items[i]);
		bool native;
		const char *g =
			o ? serve_sched_pod_group_of(o->body, &native) : NULL;

		if (g && !native && strcmp(g, pg) == 0)
			found = o->body;
	}
	return found;
}

void serve_sched_gang_release(struct serve_sched *x)
{
	const struct hmap_slot *sl;

	for (size_t it = 0; hmap_next(&x->pg_pods, &it, &sl);) {
		struct serve_sched_pg_pods *l =
			(struct serve_sched_pg_pods *)(intptr_t)sl->value;

		vec_foreach (&l->names, n)
			free(*n);
		vec_release(&l->names);
		free(l);
	}
	hmap_release(&x->pg_pods);
	vec_foreach (&x->new_gangs, p)
		free(*p);
	vec_release(&x->new_gangs);
	hmap_release(&x->new_gang_keys);
}

void serve_sched_gang_pod(struct serve_sched *x, const struct sev *e,
			  const char *uid)
{
	const json_t *meta = json_object_get(e->body, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	bool native;
	const char *pg = serve_sched_pod_group_of(e->body, &native);
	int64_t slot = ns && pg ? gang_slot(x, native, ns, pg) : -ENOENT;

	if (ns && pg)
		index_pod(x, e, ns, pg, native);
	if (slot >= 0) {
		serve_sched_member_pod(x, (uint32_t)slot, e, uid);
	} else if (x->restoring && pg && ns && e->type != API_DELETED &&
		   live(e->body) && admission_of(x, native, ns, pg)) {
		/* bound before a restart, in a gang admitted then: the gang
		 * is adopted with its admission (pod_group_gang) */
		want_gang(x, native, ns, pg);
	} else if (e->type == API_DELETED || !waiting(e->body)) {
		/* bound outside a gang the controller knows (before a
		 * restart, or by another binder): its usage on its node */
		serve_sched_plain_pod(x, e, uid);
	} else if (ns && pg) {
		want_gang(x, native, ns, pg);
	} else if (ns) {
		/* Kueue's pod integration: its Workload, whose admission a
		 * restart adopts as a Job's */
		serve_sched_pod_workload(x, e->body);
	}
}

void serve_sched_pod_group(struct serve_sched *x, const struct sev *e)
{
	const json_t *meta = json_object_get(e->body, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const char *name = json_string_value(json_object_get(meta, "name"));
	bool native = e->kind == SK_NATIVE_POD_GROUP;
	int64_t slot;

	if (!native && serve_sched_spec_changed(x, e))
		x->config_dirty = true; /* the controller's PodGroups */
	if (!ns || !name)
		return;
	slot = gang_slot(x, native, ns, name);
	if (e->type != API_DELETED) {
		if (slot < 0)
			want_gang(x, native, ns, name);
		return;
	}
	if (slot >= 0) {
		(void)ctl_workload_delete(
			x->ctl, serve_sched_slot(x, (uint32_t)slot)->h,
			x->now_us);
		serve_sched_drop(x, (uint32_t)slot);
	}
}

struct members {
	struct serve_sched *x;
	const char *pg;
	bool native;
	bool bound_too; /* adopting: the pods bound before a restart */
	VEC(json_t *) pods;
};

static int member(void *ctx, const struct api_obj *o)
{
	struct members *m = ctx;
	bool native;
	const char *pg = serve_sched_pod_group_of(o->body, &native);

	if (pg && native == m->native && strcmp(pg, m->pg) == 0 &&
	    serve_sched_ours(m->x, json_object_get(o->body, "spec")) &&
	    !serve_sched_unsupported(json_object_get(o->body, "spec"), NULL) &&
	    (m->bound_too ? live(o->body) : waiting(o->body)))
		vec_push(&m->pods, json_incref(o->body));
	return 0;
}

/* The controller workload of PodGroup ns/pg for pods (at least one), as
 * the Workload decoder reads it; their queue from the PodGroup's label
 * or the first pod's. */
static void make_gang(struct serve_sched *x, const struct members *m,
		      const char *queue, const char *topology,
		      json_t *admission)
{
	const char *ns = json_string_value(json_object_get(
		json_object_get(m->pods.items[0], "metadata"), "namespace"));
	const char *pg = m->pg;
	json_t **pods = m->pods.items;
	size_t n = m->pods.len;
	json_t *spec = json_deep_copy(json_object_get(pods[0], "spec"));
	const json_t *created = json_object_get(
		json_object_get(pods[0], "metadata"), "creationTimestamp");
	struct workload w;
	struct strbuf msg;
	json_t *obj;
	uint64_t h;
	struct swl *sw;

	json_object_del(spec, "nodeName");
	obj = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:[{s:s,s:I,s:{s:o}}]}}",
			"apiVersion", "kueue.x-k8s.io/v1beta2", "kind",
			"Workload", "metadata", "name", pg, "namespace", ns,
			"spec", "podSets", "name", "main", "count",
			(json_int_t)n, "template", "spec", spec);
	if (queue)
		json_object_set_new(json_object_get(obj, "spec"), "queueName",
				    json_string(queue));
	if (topology) /* Kueue's way of saying it */
		json_object_set_new(
			json_object_get(
				json_array_get(
					json_object_get(
						json_object_get(obj, "spec"),
						"podSets"),
					0),
				"template"),
			"metadata",
			json_pack("{s:{s:s}}", "annotations",
				  "kueue.x-k8s.io/podset-required-topology",
				  topology));
	if (json_is_string(created))
		json_object_set(json_object_get(obj, "metadata"),
				"creationTimestamp", (json_t *)created);
	if (admission)
		json_object_set_new(obj, "status",
				    json_pack("{s:O}", "admission", admission));
	strbuf_init(&msg);
	if (serve_sched_decode_workload(x, obj, &w, &msg) < 0) {
		serve_sched_warn(x, pods[0], "InvalidPod",
				 "its gang is not scheduled: %s", msg.buf);
		goto out;
	}
	if (ctl_workload_add(x->ctl, &w, &h) < 0) {
		workload_release(&w);
		goto out;
	}
	serve_sched_slot_fill(x, CTL_SLOT(h), h, obj);
	sw = serve_sched_slot(x, CTL_SLOT(h));
	sw->pod_group = xstrdup(pg);
	sw->native = m->native;
	sw->ungated = true; /* no Job to start */
	strbuf_reset(&msg);
	if (admission && ctl_adopt(x->ctl, h, x->now_us, &msg) == 0) {
		serve_sched_adopted(x, CTL_SLOT(h));
	} else {
		if (admission)
			serve_sched_warn(x, pods[0], "AdmissionLost",
					 "queued again: %s", msg.buf);
		(void)ctl_submit(x->ctl, h, true, x->now_us);
	}
	for (size_t i = 0; i < n; i++) {
		struct sev ev = { API_ADDED, SK_POD, pods[i] };

		serve_sched_member_pod(
			x, CTL_SLOT(h), &ev,
			serve_str_at(pods[i], "metadata", "uid"));
	}
out:
	strbuf_release(&msg);
	json_decref(obj);
}

/* The required topology level of a native PodGroup:
 * spec.schedulingConstraints.topology[0].key (1.36's first v1alpha2 named
 * it topologyConstraints[0].topologyKey), or NULL. */
static const char *native_topology(const json_t *spec)
{
	const json_t *sc = json_object_get(spec, "schedulingConstraints");
	const char *key = json_string_value(json_object_get(
		json_array_get(json_object_get(sc, "topology"), 0), "key"));

	if (!key)
		key = json_string_value(json_object_get(
			json_array_get(
				json_object_get(sc, "topologyConstraints"), 0),
			"topologyKey"));
	return key && *key ? key : NULL;
}

/* The quorum of a PodGroup: minMember; a native one's gang.minCount (1
 * for its basic policy: no gang). */
static json_int_t quorum(const json_t *spec, bool native)
{
	json_int_t min;

	if (native)
		min = json_integer_value(json_object_get(
			json_object_get(
				json_object_get(spec, "schedulingPolicy"),
				"gang"),
			"minCount"));
	else
		min = json_integer_value(json_object_get(spec, "minMember"));
	return min > 0 ? min : 1;
}

static void pod_group_gang(struct serve_sched *x, bool native, const char *ns,
			   const char *pg)
{
	const struct api_obj *o =
		api_store_get(x->s, x->kinds[pg_kind(native)], ns, pg);
	struct members m = { x, pg, native, false, VEC_INIT };
	char *key = gang_key(native, ns, pg);
	const struct serve_sched_pg_pods *l = pg_pods(x, key);
	const json_t *spec;
	json_t *adm = NULL;
	const char *queue;

	free(key);
	if (!o || !l || gang_slot(x, native, ns, pg) >= 0)
		return; /* Coscheduling waits for its PodGroup */
	if (x->restoring)
		adm = admission_json(x, native, ns, pg);
	m.bound_too = adm != NULL;
	spec = json_object_get(o->body, "spec");
	vec_foreach (&l->names, n) {
		const struct api_obj *p =
			api_store_get(x->s, x->kinds[SK_POD], ns, *n);

		if (p)
			(void)member(&m, p);
	}
	queue = label(o->body, QUEUE_LABEL);
	if (!queue && m.pods.len)
		queue = label(m.pods.items[0], QUEUE_LABEL);
	if (m.pods.len && (json_int_t)m.pods.len >= quorum(spec, native))
		make_gang(x, &m, queue, native ? native_topology(spec) : NULL,
			  adm);
	vec_foreach (&m.pods, p)
		json_decref(*p);
	vec_release(&m.pods);
	json_decref(adm);
}

void serve_sched_gangs(struct serve_sched *x)
{
	for (size_t i = 0; i < x->new_gangs.len; i++) {
		char *key = x->new_gangs.items[i];
		char *pg = strchr(key, '/');

		*pg++ = '\0';
		pod_group_gang(x, key[0] == 'n', key + 1, pg);
		free(key);
		if (i % 256 == 255)
			serve_sched_progress(x);
	}
	x->new_gangs.len = 0;
	hmap_release(&x->new_gang_keys);
	hmap_init(&x->new_gang_keys);
}

void serve_sched_pod_group_error(struct serve_sched *x, const char *ns,
				 const char *name, const char *msg)
{
	const struct api_obj *o =
		api_store_get(x->s, x->kinds[SK_NATIVE_POD_GROUP], ns, name);

	if (o && serve_status_pod_group_error(x->s, o, msg, x->now_us) > 0)
		x->writes++;
}

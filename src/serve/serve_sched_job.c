// SPDX-License-Identifier: Apache-2.0
/*
 * Kueue's Job and pod integrations on the embedded cluster: the mutating
 * webhook suspends a queued Job at create; the reconciler makes the
 * Workload object of a queued Job or plain pod (owned by it, named as
 * Kueue names it), decoded by the manifest decoders and encoded by
 * src/manifest/enc.c, and finishes the workload when the Job ends. An
 * owner's Workload is found by its ownerReferences, never by its name.
 * Workload objects (these or a user's) are the only way workloads reach
 * the controller, except for the gangs of Coscheduling's PodGroups
 * (serve_sched_gang.c).
 */
#include "serve/serve_sched_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "base/alloc.h"
#include "manifest/enc.h"
#include "manifest/manifest.h"

#include "base/banned.h"

#define QUEUE_LABEL   "kueue.x-k8s.io/queue-name"
#define JOB_UID_LABEL "kueue.x-k8s.io/job-uid"
/* How long a new leader waits for the admission of a gang whose pods it
 * reads bound (written before the binds, but read through another watch
 * than the pods'): a lagging watch, not a relist backoff. */
#define RECORD_WAIT_US (10 * 1000000LL)
/* Kueue keeps the prefix of a Workload's name within 253 - 6 bytes (its
 * ShortWorkloadNames gate, off by default, would make that 63 - 6). */
#define MAX_PREFIX 247

static const json_t *meta_of(const json_t *o)
{
	return json_object_get(o, "metadata");
}

static const char *meta_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(meta_of(o), key));
}

static const char *queue_of(const json_t *o)
{
	const char *q = json_string_value(json_object_get(
		json_object_get(meta_of(o), "labels"), QUEUE_LABEL));

	if (!q)
		q = json_string_value(json_object_get(
			json_object_get(meta_of(o), "annotations"),
			QUEUE_LABEL));
	return q;
}

int serve_sched_mutate(void *ctx, const struct api_kind *k, json_t *obj,
		       const json_t *old, struct errbuf *err)
{
	const struct serve_sched *x = ctx;
	json_t *spec;

	(void)err;
	/* Kueue's webhook: a queued Job starts suspended, until admitted */
	if ((x && x->opt.kube) || old || !k || strcmp(k->group, "batch") != 0 ||
	    strcmp(k->kind, "Job") != 0 || !queue_of(obj))
		return 0;
	spec = json_object_get(obj, "spec");
	if (json_is_object(spec))
		json_object_set_new(spec, "suspend", json_true());
	return 0;
}

char *serve_sched_workload_name(const char *group, const char *kind,
				const char *name, const char *uid)
{
	char *key = xasprintf("%s\n%s\n%s\n%s", kind, group, name, uid);
	unsigned char sum[20];
	char *prefix = xasprintf("%s-%s", kind, name);
	char *ret;

	BUG_ON(gnutls_hash_fast(GNUTLS_DIG_SHA1, key, strlen(key), sum) < 0);
	for (size_t i = 0; kind[i]; i++) { /* the kind in lower case */
		if (prefix[i] >= 'A' && prefix[i] <= 'Z')
			prefix[i] = (char)(prefix[i] - 'A' + 'a');
	}
	/* 5 hex digits: the first two bytes and the high half of the third */
	ret = xasprintf("%.*s-%02x%02x%x", MAX_PREFIX, prefix, sum[0], sum[1],
			sum[2] >> 4);
	free(prefix);
	free(key);
	return ret;
}

int serve_sched_decode_workload(struct serve_sched *x, const json_t *obj,
				struct workload *ret_w, struct strbuf *msg)
{
	const char *ns = meta_str(obj, "namespace");
	const char *name = meta_str(obj, "name");
	char *file = xasprintf("%s/%s/%s",
			       json_string_value(json_object_get(obj, "kind")),
			       ns ? ns : "", name ? name : "");
	struct cluster batch;
	struct diag d;
	int rc;

	diag_init(&d);
	cluster_init_batch(&batch, &x->c);
	rc = manifest_load_json(&batch, file, obj, &d);
	if (rc == 0 && batch.workloads.len != 1) {
		strbuf_addstr(msg, "not one workload");
		rc = -EINVAL;
	} else if (rc == 0) {
		*ret_w = batch.workloads.items[0]; /* moved out */
		batch.workloads.len = 0;
	} else if (msg) {
		diag_format(&d, msg);
	}
	cluster_release(&batch);
	diag_release(&d);
	free(file);
	return rc;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The controlling owner of o, when it is of kind want: its name and
 * UID. */
static void owner_of(const json_t *o, const char *want, const char **ret_name,
		     const char **ret_uid)
{
	const json_t *refs = json_object_get(meta_of(o), "ownerReferences");
	const json_t *ref;
	size_t i;

	*ret_name = *ret_uid = NULL;
	json_array_foreach(refs, i, ref)
	{
		const char *kind =
			json_string_value(json_object_get(ref, "kind"));

		if (!json_is_true(json_object_get(ref, "controller")) ||
		    !kind || strcmp(kind, want) != 0)
			continue;
		*ret_name = json_string_value(json_object_get(ref, "name"));
		*ret_uid = json_string_value(json_object_get(ref, "uid"));
		return;
	}
}

/* o's status condition of type (NULL: none). */
static const json_t *cond_of(const json_t *o, const char *type)
{
	const json_t *conds =
		json_object_get(json_object_get(o, "status"), "conditions");
	const json_t *c;
	size_t i;

	json_array_foreach(conds, i, c)
	{
		const char *t = json_string_value(json_object_get(c, "type"));

		if (t && strcmp(t, type) == 0)
			return c;
	}
	return NULL;
}

static bool cond_true(const json_t *o, const char *type)
{
	const char *s =
		json_string_value(json_object_get(cond_of(o, type), "status"));

	return s && strcmp(s, "True") == 0;
}

/* The message of o's condition type ("" when none). */
static const char *cond_message(const json_t *o, const char *type)
{
	const char *m =
		json_string_value(json_object_get(cond_of(o, type), "message"));

	return m ? m : "";
}

/* Whether the Job that owns Workload obj has ended, or the Pod (Kueue's
 * pod integration) has terminated. */
static bool owner_ended(struct serve_sched *x, const json_t *obj)
{
	const char *name, *uid, *phase;
	const struct api_obj *o;

	owner_of(obj, "Job", &name, &uid);
	o = name ? api_store_get(x->s, x->kinds[SK_JOB],
				 meta_str(obj, "namespace"), name)
		 : NULL;
	if (o)
		return cond_true(o->body, "Complete") ||
		       cond_true(o->body, "Failed");
	owner_of(obj, "Pod", &name, &uid);
	o = name ? api_store_get(x->s, x->kinds[SK_POD],
				 meta_str(obj, "namespace"), name)
		 : NULL;
	phase = o ? json_string_value(json_object_get(
			    json_object_get(o->body, "status"), "phase"))
		  : NULL;
	return phase && (strcmp(phase, "Succeeded") == 0 ||
			 strcmp(phase, "Failed") == 0);
}

void serve_sched_slot_fill(struct serve_sched *x, uint32_t slot, uint64_t h,
			   const json_t *obj)
{
	const struct workload *cw = &x->c.workloads.items[slot];
	struct swl *w = serve_sched_slot(x, slot);
	const char *job, *pod, *uid;
	char *key;

	memset(w, 0, sizeof(*w));
	w->live = true;
	w->h = h;
	w->ns = xstrdup(cw->ns);
	w->name = xstrdup(cw->name);
	w->spec = json_deep_copy(json_object_get(obj, "spec"));
	owner_of(obj, "Job", &job, &uid);
	pod = NULL;
	if (!job || !uid)
		owner_of(obj, "Pod", &pod, &uid);
	if ((job || pod) && uid) {
		w->job = job ? xstrdup(job) : NULL;
		w->pod = pod ? xstrdup(pod) : NULL;
		w->owner_uid = xstrdup(uid);
		hmap_put_str(&x->by_owner, uid, slot);
	}
	w->ungated = !w->job; /* no Job to start */
	w->npods = (uint32_t)workload_pod_count(cw);
	w->target = xcalloc(w->npods ? w->npods : 1, sizeof(*w->target));
	w->want = xcalloc(w->npods ? w->npods : 1, sizeof(*w->want));
	w->uid_at = xcalloc(w->npods ? w->npods : 1, sizeof(*w->uid_at));
	w->name_at = xcalloc(w->npods ? w->npods : 1, sizeof(*w->name_at));
	for (uint32_t p = 0; p < w->npods; p++)
		w->target[p] = CTL_NO_NODE;
	key = xasprintf("%s/%s", w->ns, w->name);
	hmap_put_str(&x->by_name, key, slot);
	free(key);
}

void serve_sched_adopted(struct serve_sched *x, uint32_t slot)
{
	const struct gang *g = ctl_gang(x->ctl);
	struct swl *w = serve_sched_slot(x, slot);

	for (uint32_t p = 0; p < w->npods; p++) {
		const char *name = gang_pod_node(g, slot, p);
		const struct node *n =
			name ? cluster_find(&x->c, KIND_NODE, NULL, name)
			     : NULL;

		w->target[p] =
			n ? (uint32_t)(n - x->c.nodes.items) : CTL_NO_NODE;
	}
	w->ungated = !w->job;
	serve_sched_queue_act(x, slot);
}

/* The Pod that owns slot's Workload exists before it (a Job's pods come
 * after their admission): it is the gang's member from the start. */
static void owner_pod(struct serve_sched *x, uint32_t slot)
{
	const struct swl *w = serve_sched_slot(x, slot);
	const struct api_obj *o =
		w->pod ? api_store_get(x->s, x->kinds[SK_POD], w->ns, w->pod)
		       : NULL;
	struct sev ev = { API_ADDED, SK_POD, NULL };

	if (!o || strcmp(o->uid, w->owner_uid) != 0)
		return; /* gone: the garbage collector takes the Workload */
	ev.body = json_incref(o->body);
	serve_sched_member_pod(x, slot, &ev, w->owner_uid);
	json_decref(ev.body);
}

/*
 * The pods slot's Job made before its Workload came (a queued Job is not
 * suspended on a real cluster; serve_sched_pod() keeps them in x->early):
 * the gang's members from the start, in name order.
 */
static void job_pods(struct serve_sched *x, uint32_t slot)
{
	const struct swl *w = serve_sched_slot(x, slot);
	const struct hmap_slot *e;
	VEC(char *) keys = VEC_INIT;
	size_t it = 0;

	if (!w->job || !w->owner_uid || !x->early.len)
		return;
	while (hmap_next(&x->early, &it, &e)) {
		const char *slash = memchr(e->key, '/', e->keylen);
		const struct api_obj *o;
		const char *name, *uid;
		char *ns;

		if (!slash)
			continue;
		ns = xasprintf("%.*s", (int)(slash - e->key), e->key);
		o = api_store_get(x->s, x->kinds[SK_POD], ns, slash + 1);
		free(ns);
		owner_of(o ? o->body : NULL, "Job", &name, &uid);
		if (!o || (uid && strcmp(uid, w->owner_uid) == 0))
			vec_push(&keys, xstrdup(e->key));
	}
	if (keys.len) /* qsort's items may not be NULL, even for none */
		qsort(keys.items, keys.len, sizeof(*keys.items), by_str);
	vec_foreach (&keys, k) {
		char *slash = strchr(*k, '/');
		const struct api_obj *o;

		hmap_del(&x->early, *k, strlen(*k));
		*slash = '\0';
		o = api_store_get(x->s, x->kinds[SK_POD], *k, slash + 1);
		if (o) {
			struct sev ev = { API_ADDED, SK_POD,
					  json_incref(o->body) };

			serve_sched_member_pod(x, slot, &ev, o->uid);
			json_decref(ev.body);
		}
		free(*k);
	}
	vec_release(&keys);
}

/* Whether a live pod of w is bound to a node. */
static bool pods_bound(struct serve_sched *x, const struct swl *w)
{
	for (uint32_t p = 0; p < w->npods; p++) {
		const struct api_obj *o =
			w->name_at[p] ? api_store_get(x->s, x->kinds[SK_POD],
						      w->ns, w->name_at[p])
				      : NULL;
		const json_t *b =
			o && strcmp(o->uid, w->uid_at[p]) == 0 ? o->body : NULL;
		const char *ph = serve_str_at(b, "status", "phase");

		if (b &&
		    json_object_get(json_object_get(b, "spec"), "nodeName") &&
		    !json_object_get(json_object_get(b, "metadata"),
				     "deletionTimestamp") &&
		    (!ph || (strcmp(ph, "Succeeded") != 0 &&
			     strcmp(ph, "Failed") != 0)))
			return true;
	}
	return false;
}

/* Stop waiting for slot's record: queue its workload. */
static void queue_awaited(struct serve_sched *x, uint32_t slot)
{
	struct swl *w = serve_sched_slot(x, slot);

	w->record_until_us = 0;
	serve_sched_await_release(x, slot);
	(void)ctl_submit(x->ctl, w->h, false, x->now_us);
}

/* The admission of awaited slot was read (obj: its Workload with
 * status.admission): adopted as at a start, and its pods, read before,
 * are its bound members. */
static void adopt_late(struct serve_sched *x, uint32_t slot, const json_t *obj)
{
	struct swl *w = serve_sched_slot(x, slot);
	struct workload nw;
	struct strbuf msg;

	strbuf_init(&msg);
	w->record_until_us = 0;
	serve_sched_await_release(x, slot);
	if (serve_sched_decode_workload(x, obj, &nw, &msg) < 0) {
		serve_sched_warn(x, obj, "AdmissionLost", "queued again: %s",
				 msg.buf);
		queue_awaited(x, slot);
		goto out;
	}
	if (ctl_workload_update(x->ctl, w->h, &nw, x->now_us) < 0) {
		workload_release(&nw);
		queue_awaited(x, slot);
		goto out;
	}
	if (ctl_adopt(x->ctl, w->h, x->now_us, &msg) < 0) {
		serve_sched_warn(x, obj, "AdmissionLost", "queued again: %s",
				 msg.buf);
		queue_awaited(x, slot);
		goto out;
	}
	serve_sched_adopted(x, slot);
	for (uint32_t p = 0; p < w->npods; p++) {
		const struct api_obj *o =
			w->name_at[p] ? api_store_get(x->s, x->kinds[SK_POD],
						      w->ns, w->name_at[p])
				      : NULL;
		struct sev ev = { API_MODIFIED, SK_POD, NULL };
		char *uid;

		if (!o)
			continue;
		ev.body = json_incref(o->body);
		uid = xstrdup(o->uid);
		serve_sched_member_pod(x, slot, &ev, uid);
		json_decref(ev.body);
		free(uid);
		w = serve_sched_slot(x, slot);
	}
out:
	strbuf_release(&msg);
}

/* Awaited slot's Job changed: the admission it keeps (a cluster without
 * Kueue's Workloads), once read, goes onto the local Workload and is
 * adopted. True when it was. */
static bool job_record(struct serve_sched *x, uint32_t slot, const json_t *job)
{
	const struct swl *w = serve_sched_slot(x, slot);
	json_t *adm = serve_sched_admission_json(job), *body;
	const struct api_obj *o =
		adm ? api_store_get(x->s, x->kinds[SK_WORKLOAD], w->ns, w->name)
		    : NULL;

	if (!o) {
		json_decref(adm);
		return false;
	}
	body = json_deep_copy(o->body);
	if (!json_is_object(json_object_get(body, "status")))
		json_object_set_new(body, "status", json_object());
	json_object_set_new(json_object_get(body, "status"), "admission", adm);
	if (api_store_update(x->s, x->kinds[SK_WORKLOAD], body, 0, x->now_us,
			     &o) != 0)
		return false;
	x->writes++;
	adopt_late(x, slot, o->body);
	return true;
}

void serve_sched_awaited(struct serve_sched *x)
{
	uint32_t left = 0;

	if (!x->awaiting)
		return;
	for (uint32_t slot = 0; slot < x->wl.len; slot++) {
		struct swl *w = &x->wl.items[slot];
		const struct api_obj *o;

		if (!w->live || !w->record_until_us)
			continue;
		if (!pods_bound(x, w)) {
			queue_awaited(x, slot);
		} else if (!x->opt.workloads_remote && w->job &&
			   (o = api_store_get(x->s, x->kinds[SK_JOB], w->ns,
					      w->job)) &&
			   job_record(x, slot, o->body)) {
			/* read with the Job before its Workload was */
		} else if (x->now_us >= w->record_until_us) {
			o = api_store_get(x->s, x->kinds[SK_WORKLOAD], w->ns,
					  w->name);
			if (o)
				serve_sched_warn(
					x, o->body, "AdmissionNotFound",
					"its pods are bound and no admission "
					"of it was read in %d s: queued",
					(int)(RECORD_WAIT_US / 1000000));
			queue_awaited(x, slot);
		} else {
			left++;
		}
	}
	x->awaiting = left;
}

int64_t serve_sched_awaited_us(const struct serve_sched *x)
{
	int64_t t = INT64_MAX;

	for (uint32_t slot = 0; x->awaiting && slot < x->wl.len; slot++) {
		const struct swl *w = &x->wl.items[slot];

		if (w->live && w->record_until_us && w->record_until_us < t)
			t = w->record_until_us;
	}
	return t;
}

/* A Workload object not known yet: to the controller, queued (or, read
 * back at start with status.admission, adopted as admitted). */
static void workload_added(struct serve_sched *x, const json_t *obj)
{
	bool admitted = json_object_get(json_object_get(obj, "status"),
					"admission") != NULL;
	bool finished = cond_true(obj, "Finished");
	struct workload w;
	struct strbuf msg;
	uint64_t h;
	uint32_t slot;
	int rc;

	strbuf_init(&msg);
	if (!admitted && owner_ended(x, obj)) {
		/* its Job or Pod ended while it was pending (before a
		 * restart) */
		char *key = xasprintf("%s/%s", meta_str(obj, "namespace"),
				      meta_str(obj, "name"));

		hmap_put_str(&x->done, key, 1);
		free(key);
		goto out;
	}
	if (serve_sched_decode_workload(x, obj, &w, &msg) < 0) {
		serve_sched_warn(x, obj, "InvalidWorkload", "not scheduled: %s",
				 msg.buf);
		goto out;
	}
	rc = ctl_workload_add(x->ctl, &w, &h);
	if (rc < 0) {
		workload_release(&w);
		serve_sched_warn(x, obj, "InvalidWorkload",
				 "not scheduled: its name is taken");
		goto out;
	}
	slot = CTL_SLOT(h);
	serve_sched_slot_fill(x, slot, h, obj);
	if (x->restoring && admitted) {
		strbuf_reset(&msg);
		if (ctl_adopt(x->ctl, h, x->now_us, &msg) == 0) {
			serve_sched_adopted(x, slot);
			if (finished) {
				(void)ctl_finish(x->ctl, h, x->now_us);
				serve_sched_slot(x, slot)->finished = true;
			}
			goto pod;
		}
		serve_sched_warn(x, obj, "AdmissionLost", "queued again: %s",
				 msg.buf);
	}
	if (finished) {
		serve_sched_slot(x, slot)->finished = true;
		goto pod;
	}
	if (x->opt.kube && !admitted) {
		/* queued once this sync's pods are read, unless some are
		 * bound: serve_sched_awaited() */
		serve_sched_slot(x, slot)->record_until_us =
			x->now_us + RECORD_WAIT_US;
		x->awaiting++;
		goto pod;
	}
	(void)ctl_submit(x->ctl, h, false, x->now_us);
pod:
	owner_pod(x, slot);
	job_pods(x, slot);
out:
	strbuf_release(&msg);
}

/* Keep x->owned: the Job or Pod that Workload e names its controller
 * has one (Kueue finds a Job's Workload by its owner, not its name). */
static void owned(struct serve_sched *x, const struct sev *e)
{
	const char *name, *uid;

	owner_of(e->body, "Job", &name, &uid);
	if (!name || !uid)
		owner_of(e->body, "Pod", &name, &uid);
	if (!name || !uid)
		return;
	if (e->type == API_DELETED)
		hmap_del(&x->owned, uid, strlen(uid));
	else
		hmap_put_str(&x->owned, uid, 1);
}

/* Workload wl (its last body) is gone: the Job that controlled it, when
 * it is still there, is read again, which makes it a new one while it
 * is queued, as Kueue's Job reconciler does (on a replica, a Workload
 * whose create the cluster refused is gone once read again). */
static void job_again(struct serve_sched *x, const json_t *wl)
{
	const char *job, *uid;
	const struct api_obj *o;
	struct sev ev = { API_MODIFIED, SK_JOB, NULL };

	owner_of(wl, "Job", &job, &uid);
	if (!job || !uid || !x->kinds[SK_JOB])
		return;
	o = api_store_get(x->s, x->kinds[SK_JOB], meta_str(wl, "namespace"),
			  job);
	if (!o || strcmp(o->uid, uid) != 0)
		return;
	ev.body = json_incref(o->body);
	serve_sched_job(x, &ev);
	json_decref(ev.body);
}

void serve_sched_workload(struct serve_sched *x, const struct sev *e)
{
	const char *ns = meta_str(e->body, "namespace");
	const char *name = meta_str(e->body, "name");
	int64_t slot = ns && name ? serve_sched_find(x, ns, name) : -ENOENT;
	struct swl *w;
	struct workload nw;
	struct strbuf msg;

	if (!ns || !name)
		return;
	owned(x, e);
	if (e->type == API_DELETED) {
		if (slot >= 0) {
			(void)ctl_workload_delete(x->ctl,
						  serve_sched_slot(x, slot)->h,
						  x->now_us);
			serve_sched_drop(x, (uint32_t)slot);
		}
		job_again(x, e->body);
		return;
	}
	if (slot < 0) {
		char *key = xasprintf("%s/%s", ns, name);
		bool done = hmap_get_str(&x->done, key, NULL);

		free(key);
		if (!done)
			workload_added(x, e->body);
		return;
	}
	w = serve_sched_slot(x, (uint32_t)slot);
	if (w->record_until_us &&
	    json_object_get(json_object_get(e->body, "status"), "admission")) {
		adopt_late(x, (uint32_t)slot, e->body);
		return;
	}
	if (json_equal(w->spec, json_object_get(e->body, "spec")))
		return; /* a status write, ours or the status writer's */
	strbuf_init(&msg);
	if (serve_sched_decode_workload(x, e->body, &nw, &msg) < 0) {
		serve_sched_warn(x, e->body, "InvalidWorkload",
				 "change ignored: %s", msg.buf);
	} else if (ctl_workload_update(x->ctl, w->h, &nw, x->now_us) < 0) {
		workload_release(&nw);
		serve_sched_warn(x, e->body, "InvalidWorkload",
				 "change ignored: the pod sets of an admitted "
				 "workload cannot change");
	}
	json_decref(w->spec);
	w->spec = json_deep_copy(json_object_get(e->body, "spec"));
	strbuf_release(&msg);
}

/* spec.priorityClassName of an encoded Workload as v1beta2's
 * priorityClassRef, with the class's value as spec.priority (Kueue). */
static void priority_ref(struct serve_sched *x, json_t *spec)
{
	const char *pc =
		json_string_value(json_object_get(spec, "priorityClassName"));
	const struct priority_class *p;

	if (!pc)
		return;
	p = cluster_find(&x->c, KIND_PRIORITY_CLASS, NULL, pc);
	json_object_set_new(spec, "priorityClassRef",
			    json_pack("{s:s,s:s,s:s}", "group",
				      "kueue.x-k8s.io", "kind",
				      "WorkloadPriorityClass", "name", pc));
	if (p)
		json_object_set_new(spec, "priority", json_integer(p->value));
	json_object_del(spec, "priorityClassName");
}

/*
 * Kueue's reconciler: the Workload w (decoded from owner, moved in)
 * encoded under Kueue's name for owner, labelled with its UID and
 * controlled by it.
 */
static void create_owned(struct serve_sched *x, const json_t *owner,
			 const char *api_version, struct workload *w,
			 json_t *admission)
{
	const struct api_obj *made = NULL;
	const char *kind = json_string_value(json_object_get(owner, "kind"));
	const char *name = meta_str(owner, "name");
	const char *uid = meta_str(owner, "uid");
	const char *slash = strchr(api_version, '/');
	char *group = xasprintf("%.*s", slash ? (int)(slash - api_version) : 0,
				api_version);
	char *wname = serve_sched_workload_name(group, kind, name, uid);
	struct cluster batch;
	json_t *obj, *meta;

	/* encoded from a batch of its own, under Kueue's name */
	cluster_init_batch(&batch, &x->c);
	w->name = cluster_str(&x->c, wname);
	w->creation_us = 0;
	vec_push(&batch.workloads, *w);
	obj = enc_object(&batch, KIND_WORKLOAD, 0);
	cluster_release(&batch);
	meta = json_object_get(obj, "metadata");
	json_object_set_new(meta, "labels",
			    json_pack("{s:s}", JOB_UID_LABEL, uid));
	json_object_set_new(meta, "ownerReferences",
			    json_pack("[{s:s,s:s,s:s,s:s,s:b,s:b}]",
				      "apiVersion", api_version, "kind", kind,
				      "name", name, "uid", uid, "controller", 1,
				      "blockOwnerDeletion", 1));
	priority_ref(x, json_object_get(obj, "spec"));
	if (admission)
		json_object_set_new(obj, "status",
				    json_pack("{s:O}", "admission", admission));
	if (api_store_create(x->s, x->kinds[SK_WORKLOAD], obj, x->now_us,
			     &made) == 0) {
		x->writes++;
		hmap_put_str(&x->owned, uid, 1);
		/* an admission read back from the owner: adopted now, in
		 * the pass that reads the owner's pods */
		if (admission)
			workload_added(x, made->body);
	}
	free(wname);
	free(group);
}

/* Whether the Job or Pod o is the controller of a Workload already
 * (made before a restart, or earlier in this sync). */
static bool has_workload(struct serve_sched *x, const json_t *o)
{
	const char *uid = meta_str(o, "uid");

	return !uid || hmap_get_str(&x->owned, uid, NULL);
}

/* Kueue's Job reconciler: the Workload of a queued Job, from its
 * template. */
static void make_workload(struct serve_sched *x, const json_t *job)
{
	struct workload w;
	struct strbuf msg;
	json_t *adm;

	if (has_workload(x, job))
		return;
	strbuf_init(&msg);
	/* restarted over a cluster that stores no Workload objects: the
	 * admission the Job kept (serve_status_set_job_admission()) */
	adm = x->restoring ? serve_sched_admission_json(job) : NULL;
	if (serve_sched_decode_workload(x, job, &w, &msg) < 0)
		serve_sched_warn(x, job, "InvalidJob",
				 "no Workload made for it: %s", msg.buf);
	else
		create_owned(x, job, "batch/v1", &w, adm);
	json_decref(adm);
	strbuf_release(&msg);
}

void serve_sched_pod_workload(struct serve_sched *x, const json_t *pod)
{
	const json_t *meta = meta_of(pod);
	const json_t *labels = json_object_get(meta, "labels");
	const char *prio = json_string_value(
		json_object_get(labels, "kueue.x-k8s.io/priority-class"));
	json_t *spec, *tmpl, *obj;
	struct workload w;
	struct strbuf msg;

	if (has_workload(x, pod) || !meta_str(pod, "namespace"))
		return;
	/* Kueue's pod set: one pod, the pod's labels, annotations and spec
	 * as its template */
	spec = json_deep_copy(json_object_get(pod, "spec"));
	json_object_del(spec, "nodeName");
	tmpl = json_pack("{s:{},s:o}", "metadata", "spec", spec);
	if (labels)
		json_object_set(json_object_get(tmpl, "metadata"), "labels",
				(json_t *)labels);
	if (json_object_get(meta, "annotations"))
		json_object_set(json_object_get(tmpl, "metadata"),
				"annotations",
				json_object_get(meta, "annotations"));
	obj = json_pack("{s:s,s:s,s:{s:O,s:O},s:{s:[{s:s,s:i,s:o}]}}",
			"apiVersion", "kueue.x-k8s.io/v1beta2", "kind",
			"Workload", "metadata", "name",
			json_object_get(meta, "name"), "namespace",
			json_object_get(meta, "namespace"), "spec", "podSets",
			"name", "main", "count", 1, "template", tmpl);
	if (queue_of(pod))
		json_object_set_new(json_object_get(obj, "spec"), "queueName",
				    json_string(queue_of(pod)));
	if (prio)
		json_object_set_new(json_object_get(obj, "spec"),
				    "priorityClassName", json_string(prio));
	strbuf_init(&msg);
	if (!obj || serve_sched_decode_workload(x, obj, &w, &msg) < 0)
		serve_sched_warn(x, pod, "InvalidPod",
				 "no Workload made for it: %s", msg.buf);
	else
		create_owned(x, pod, "v1", &w, NULL);
	strbuf_release(&msg);
	json_decref(obj);
}

bool serve_sched_job_queued(const struct serve_sched *x, const json_t *job)
{
	const json_t *tmpl =
		json_object_get(json_object_get(job, "spec"), "template");
	/* the pods it makes, as far as their gang goes */
	json_t *pod = json_pack("{s:O*,s:O*}", "metadata",
				json_object_get(tmpl, "metadata"), "spec",
				json_object_get(tmpl, "spec"));
	bool native, queued;

	/* a template naming a PodGroup: that PodGroup is the gang */
	queued = queue_of(job) &&
		 serve_sched_ours(x, json_object_get(tmpl, "spec")) &&
		 !serve_sched_pod_group_of(pod, &native) &&
		 !cond_true(job, "Complete") && !cond_true(job, "Failed");
	json_decref(pod);
	return queued;
}

void serve_sched_job(struct serve_sched *x, const struct sev *e)
{
	const char *uid = meta_str(e->body, "uid");
	const char *name = meta_str(e->body, "name");
	struct swl *w;
	int64_t slot;

	if (e->type == API_DELETED) {
		/* Kueue finishes the Workload of a Job deleted, which frees
		 * its quota (and ends a release waiting to suspend it) even
		 * when the Workload outlives it, orphaned */
		if (uid && hmap_get_str(&x->by_owner, uid, &slot) &&
		    !serve_sched_slot(x, (uint32_t)slot)->finished)
			serve_sched_end(
				x, (uint32_t)slot, "OwnerNotFound",
				"The workload's owner no longer exists");
		return;
	}
	if (uid && meta_str(e->body, "namespace") && x->early_jobs.len &&
	    !serve_sched_job_queued(x, e->body))
		serve_sched_early_job(x, meta_str(e->body, "namespace"), uid);
	if (!uid || !name || !queue_of(e->body) ||
	    !meta_str(e->body, "namespace"))
		return;
	if (!hmap_get_str(&x->by_owner, uid, &slot)) {
		if (serve_sched_job_queued(x, e->body) &&
		    !serve_sched_refuse_owner(
			    x, e->body,
			    json_object_get(
				    json_object_get(
					    json_object_get(e->body, "spec"),
					    "template"),
				    "spec")))
			make_workload(x, e->body);
		return;
	}
	w = serve_sched_slot(x, (uint32_t)slot);
	if (w->record_until_us) {
		job_record(x, (uint32_t)slot, e->body);
		w = serve_sched_slot(x, (uint32_t)slot);
	}
	if (w->finished ||
	    (!cond_true(e->body, "Complete") && !cond_true(e->body, "Failed")))
		return;
	/* Kueue: Succeeded or Failed, with the Job condition's message */
	if (cond_true(e->body, "Failed"))
		serve_sched_end(x, (uint32_t)slot, "Failed",
				cond_message(e->body, "Failed"));
	else
		serve_sched_end(x, (uint32_t)slot, "Succeeded",
				cond_message(e->body, "Complete"));
}

void serve_sched_end(struct serve_sched *x, uint32_t slot, const char *reason,
		     const char *message)
{
	struct swl *w = serve_sched_slot(x, slot);

	if (sched_wl_state(ctl_sched(x->ctl), slot) != SCHED_WL_ADMITTED) {
		/* it ended while not admitted (failed while evicted): it
		 * leaves its queue, and the controller, for good */
		char *key = xasprintf("%s/%s", w->ns, w->name);

		hmap_put_str(&x->done, key, 1);
		free(key);
		(void)ctl_workload_delete(x->ctl, w->h, x->now_us);
		serve_sched_drop(x, slot);
		return;
	}
	w->finished = true;
	w->binding = w->release = false;
	memset(w->want, 0, w->npods);
	(void)ctl_finish_as(x->ctl, w->h, reason, message, x->now_us);
}

int serve_sched_suspend(struct serve_sched *x, const char *ns, const char *job,
			bool suspend, int64_t parallelism)
{
	const struct api_obj *o =
		api_store_get(x->s, x->kinds[SK_JOB], ns, job);
	json_t *body, *spec;

	if (!o)
		return -ENOENT;
	spec = json_object_get(o->body, "spec");
	if (json_is_true(json_object_get(spec, "suspend")) == suspend &&
	    (parallelism < 0 || json_integer_value(json_object_get(
					spec, "parallelism")) == parallelism))
		return 0;
	body = json_deep_copy(o->body);
	spec = json_object_get(body, "spec");
	json_object_set_new(spec, "suspend", json_boolean(suspend));
	if (parallelism >= 0)
		json_object_set_new(spec, "parallelism",
				    json_integer(parallelism));
	if (api_store_update(x->s, x->kinds[SK_JOB], body, 0, x->now_us, NULL) <
	    0)
		return -EIO;
	x->writes++;
	return 1;
}

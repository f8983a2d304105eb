// SPDX-License-Identifier: Apache-2.0
/*
 * Pods of the embedded cluster as the scheduler sees them: a Job's pods
 * get the pod indices of its workload (completion index, else the first
 * free one), are bound all at once when every pod the controller placed
 * exists (whole gangs only, through api_bind), and report Ready and
 * Failed to the controller. A pending gang's reason goes onto its pods'
 * PodScheduled condition and into one FailedScheduling Event. Pods of no
 * queue and no gang are bound one by one, first fit, as kube-scheduler
 * would (the embedded cluster has no other scheduler).
 */
#include "serve/serve_sched_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "manifest/manifest.h"
#include "serve/serve_event.h"
#include "serve/serve_status.h"

#include "base/banned.h"

#define INDEX_ANN "batch.kubernetes.io/job-completion-index"

static bool pod_terminal(const json_t *pod)
{
	const char *phase = serve_str_at(pod, "status", "phase");

	return phase && (strcmp(phase, "Succeeded") == 0 ||
			 strcmp(phase, "Failed") == 0);
}

static bool pod_ready(const json_t *pod)
{
	const json_t *conds =
		json_object_get(json_object_get(pod, "status"), "conditions");
	const char *phase = serve_str_at(pod, "status", "phase");
	const json_t *c;
	size_t i;

	if (!phase || strcmp(phase, "Running") != 0)
		return false;
	json_array_foreach(conds, i, c)
	{
		const char *t = json_string_value(json_object_get(c, "type"));
		const char *s = json_string_value(json_object_get(c, "status"));

		if (t && s && strcmp(t, "Ready") == 0)
			return strcmp(s, "True") == 0;
	}
	return false;
}

/* The ownerReference of the Job that controls pod, or NULL. */
static const json_t *job_ref(const json_t *pod)
{
	const json_t *refs = json_object_get(json_object_get(pod, "metadata"),
					     "ownerReferences");
	const json_t *ref;
	size_t i;

	json_array_foreach(refs, i, ref)
	{
		const char *kind =
			json_string_value(json_object_get(ref, "kind"));

		if (json_is_true(json_object_get(ref, "controller")) && kind &&
		    strcmp(kind, "Job") == 0)
			return ref;
	}
	return NULL;
}

/* The UID and the name of the Job that controls pod, or NULL. */
static const char *job_uid_of(const json_t *pod)
{
	return json_string_value(json_object_get(job_ref(pod), "uid"));
}

static const char *job_name_of(const json_t *pod)
{
	return json_string_value(json_object_get(job_ref(pod), "name"));
}

static int32_t node_of(const struct serve_sched *x, const char *name)
{
	const struct node *n =
		name ? cluster_find(&x->c, KIND_NODE, NULL, name) : NULL;

	return n ? (int32_t)(n - x->c.nodes.items) : -1;
}

static int64_t flags_of(const struct serve_sched *x, const char *uid)
{
	int64_t f = 0;

	(void)hmap_get_str(&x->pods, uid, &f);
	return f;
}

/* Whether index p has a node, or is being given one. */
static bool placed(const struct swl *w, uint32_t p)
{
	return w->target[p] != CTL_NO_NODE || w->want[p];
}

/*
 * The index a new pod of w takes, -1 when every index has a pod: its
 * completion index when free and placed; else the first free placed one
 * (a Job's later completions, or a partial admission, run on the nodes
 * of the admitted pods); else its completion index, else the first free.
 */
static int64_t take_index(struct swl *w, const json_t *pod)
{
	const json_t *meta = json_object_get(pod, "metadata");
	const char *ci = json_string_value(json_object_get(
		json_object_get(meta, "annotations"), INDEX_ANN));
	int64_t want = -1;
	char *end;
	long v;

	if (!ci)
		ci = json_string_value(json_object_get(
			json_object_get(meta, "labels"), INDEX_ANN));
	if (ci && *ci) {
		v = strtol(ci, &end, 10);
		if (!*end && v >= 0 && (uint32_t)v < w->npods && !w->uid_at[v])
			want = v;
	}
	if (want >= 0 && placed(w, (uint32_t)want))
		return want;
	for (uint32_t p = 0; p < w->npods; p++) {
		if (!w->uid_at[p] && placed(w, p))
			return p;
	}
	if (want >= 0)
		return want;
	for (uint32_t p = 0; p < w->npods; p++) {
		if (!w->uid_at[p])
			return p;
	}
	return -1;
}

static int64_t index_of(const struct swl *w, const char *uid)
{
	for (uint32_t p = 0; p < w->npods; p++) {
		if (w->uid_at[p] && strcmp(w->uid_at[p], uid) == 0)
			return p;
	}
	return -1;
}

static void scheduled_event(struct serve_sched *x, const char *ns,
			    const char *pod, const char *node);
static void pending_pod(struct serve_sched *x, uint32_t slot, uint32_t p);

/* Bind a pod to the node the controller already counts it on. */
static void rebind(struct serve_sched *x, struct swl *w, uint32_t i,
		   const char *uid, const char *name)
{
	const char *node = x->c.nodes.items[w->target[i]].name;
	struct errbuf eb;

	errbuf_clear(&eb);
	if (api_bind(x->s, w->ns, name, uid, node, x->now_us, &eb) != 0)
		return; /* a node gone is the controller's (node down) */
	x->writes++;
	scheduled_event(x, w->ns, name, node);
	(void)ctl_pod_map(x->ctl, uid, w->h, i);
}

/* Whether some index of w has a live pod. */
static bool live_pods(const struct swl *w)
{
	for (uint32_t p = 0; p < w->npods; p++) {
		if (w->uid_at[p])
			return true;
	}
	return false;
}

/*
 * Whether pod index i of admitted slot (uid, on node n of the cluster, -1
 * when none or unknown) is no longer where the controller bound it:
 * bound by someone else to another node (or to one echelon does not
 * know), or unbound again after its bind was done (the cluster refused
 * it after all: a replica's bind is answered later). Not while a bind or
 * a release is under way, nor for a pod of another UID (a replacement).
 */
static bool undone(struct serve_sched *x, uint32_t slot, uint32_t i,
		   const json_t *pod, const char *uid, int32_t n)
{
	const struct swl *w = serve_sched_slot(x, slot);
	const char *node = serve_str_at(pod, "spec", "nodeName");
	uint64_t h;
	uint32_t p;

	if (x->restoring || w->want[i] || w->release ||
	    w->target[i] == CTL_NO_NODE || pod_terminal(pod) ||
	    json_object_get(json_object_get(pod, "metadata"),
			    "deletionTimestamp") ||
	    sched_wl_state(ctl_sched(x->ctl), slot) != SCHED_WL_ADMITTED)
		return false;
	if (node)
		return n < 0 || (uint32_t)n != w->target[i];
	if (x->opt.pod_pending &&
	    x->opt.pod_pending(x->opt.pod_pending_ctx, w->ns,
			       serve_str_at(pod, "metadata", "name")))
		return false; /* its bind is being sent again: the answer
				 decides (or the bind timeout) */
	return ctl_pod_find(x->ctl, uid, &h, &p) == 0 && h == w->h && p == i;
}

/* The store's pod at index j of w, or NULL. */
static const struct api_obj *stored_pod(const struct serve_sched *x,
					const struct swl *w, uint32_t j)
{
	return w->name_at[j] ? api_store_get(x->s, x->kinds[SK_POD], w->ns,
					     w->name_at[j])
			     : NULL;
}

/* Whether o (a pod, or NULL) is bound to node n. */
static bool on_node(const struct serve_sched *x, const struct api_obj *o,
		    uint32_t n)
{
	const char *node = o ? serve_str_at(o->body, "spec", "nodeName") : NULL;

	return node && strcmp(node, x->c.nodes.items[n].name) == 0;
}

/* Adopting: pod index i is bound to node n, which the record gave to
 * another index (its nodes are a multiset, in no pod's order): that one
 * takes i's node, so each recorded node is used once and an unbound pod
 * does not follow i onto n. */
static void claim_target(struct serve_sched *x, struct swl *w, uint32_t i,
			 uint32_t n)
{
	for (uint32_t j = 0; j < w->npods; j++) {
		if (j != i && w->target[j] == n &&
		    !on_node(x, stored_pod(x, w, j), n)) {
			w->target[j] = w->target[i];
			return;
		}
	}
}

/* Whether the store shows pod index i of w (uid) on its target now. An
 * older version read in the same batch is then not judged (undone, bound
 * again): on a replica, the pod shown unbound after a refused bind, then
 * bound again once the bind sent again was answered. */
static bool on_target_now(const struct serve_sched *x, const struct swl *w,
			  uint32_t i, const char *uid)
{
	const struct api_obj *o = stored_pod(x, w, i);

	return o && strcmp(o->uid, uid) == 0 && w->target[i] != CTL_NO_NODE &&
	       on_node(x, o, w->target[i]);
}

/* A gang of pods ended, pod its last event: Kueue's Finished reason and
 * message, a queued plain pod's from its phase and status message, a
 * PodGroup's from how many of its pods succeeded. */
static void end_gang(struct serve_sched *x, uint32_t slot, const json_t *pod)
{
	struct swl *w = serve_sched_slot(x, slot);
	const char *ph = serve_str_at(pod, "status", "phase");
	const char *m = serve_str_at(pod, "status", "message");
	char *msg;

	if (w->pod) {
		serve_sched_end(x, slot,
				ph && strcmp(ph, "Succeeded") == 0 ? "Succeeded"
								   : "Failed",
				m ? m : "");
		return;
	}
	msg = xasprintf("Pods succeeded: %" PRIu32 "/%" PRIu32 ".",
			w->succeeded, w->npods);
	serve_sched_end(x, slot, w->failed ? "Failed" : "Succeeded", msg);
	free(msg);
}

void serve_sched_member_pod(struct serve_sched *x, uint32_t slot,
			    const struct sev *e, const char *uid)
{
	struct swl *w = serve_sched_slot(x, slot);
	const json_t *meta = json_object_get(e->body, "metadata");
	const char *name = json_string_value(json_object_get(meta, "name"));
	const char *node = serve_str_at(e->body, "spec", "nodeName");
	bool gone = e->type == API_DELETED || pod_terminal(e->body) ||
		    json_object_get(meta, "deletionTimestamp");
	/* a queued plain pod's Workload ends with its pod, Failed too:
	 * nothing makes the pod again (Kueue's pod integration) */
	bool ends = w->pod && pod_terminal(e->body);
	int64_t flags = flags_of(x, uid);
	int64_t i = index_of(w, uid);
	int32_t n = node_of(x, node);
	bool judge;

	if (i < 0 && !gone && !w->finished) {
		i = take_index(w, e->body);
		if (i < 0)
			return; /* more pods than the workload has */
		w->uid_at[i] = xstrdup(uid);
		w->name_at[i] = xstrdup(name);
		hmap_put_str(&x->pods, uid, flags);
	}
	if (i < 0) {
		/* ended before it was seen (a restart) */
		if (ends && !w->finished)
			end_gang(x, slot, e->body);
		return;
	}
	/* waiting for its admission record: a bound pod holds its node, as
	 * the controller counts no admission of it yet (a bound pod keeps
	 * its node: the body that left it names it too) */
	if ((w->record_until_us && !gone && node) !=
	    !!(flags & SP_AWAIT_HELD)) {
		flags ^= SP_AWAIT_HELD;
		serve_sched_plain_usage(x, e->body,
					flags & SP_AWAIT_HELD ? 1 : -1);
	}
	/* adopted at start: the controller has it bound where it is */
	if (n >= 0 && !w->want[i] && !w->release &&
	    (x->restoring || (w->target[i] == CTL_NO_NODE && w->ungated))) {
		if (x->restoring && w->target[i] != CTL_NO_NODE &&
		    w->target[i] != (uint32_t)n)
			claim_target(x, w, (uint32_t)i, (uint32_t)n);
		w->target[i] = (uint32_t)n;
	}
	judge = !on_target_now(x, w, (uint32_t)i, uid);
	if (judge && undone(x, slot, (uint32_t)i, e->body, uid, n)) {
		/* the release op clears the targets: name it first */
		const char *chose = x->c.nodes.items[w->target[i]].name;

		if (ctl_evict(x->ctl, w->h,
			      node ? "PodBoundElsewhere" : "BindFailed",
			      x->now_us) == 0)
			serve_sched_warn(x, e->body, "BindingUndone",
					 "%s%s, echelon bound it to %s: its "
					 "gang is evicted and queued again",
					 node ? "bound to " : "unbound",
					 node ? node : "", chose);
	}
	/* an unbound pod where the controller has one bound: the
	 * replacement of a failed pod, or a bind a restart cut short */
	if (judge && !node && !gone && w->target[i] != CTL_NO_NODE &&
	    !w->want[i] && !w->release &&
	    sched_wl_state(ctl_sched(x->ctl), slot) == SCHED_WL_ADMITTED)
		rebind(x, w, (uint32_t)i, uid, name);
	if (n >= 0 && (uint32_t)n == w->target[i] && !w->want[i]) {
		(void)ctl_pod_map(x->ctl, uid, w->h, (uint32_t)i);
		if (pod_ready(e->body) && !(flags & SP_READY_SENT)) {
			flags |= SP_READY_SENT;
			(void)ctl_pod_event(x->ctl, w->h, (uint32_t)i,
					    CTL_POD_READY, x->now_us);
		} else if (gone && !w->finished && !ends &&
			   !(flags & SP_FAILED_SENT)) {
			/* failed, or deleted under a running gang */
			flags |= SP_FAILED_SENT;
			(void)ctl_pod_event(x->ctl, w->h, (uint32_t)i,
					    CTL_POD_FAILED, x->now_us);
		}
	}
	if (gone) {
		const char *ph = serve_str_at(e->body, "status", "phase");

		free(w->uid_at[i]);
		free(w->name_at[i]);
		w->uid_at[i] = w->name_at[i] = NULL;
		w->succeeded += ph && strcmp(ph, "Succeeded") == 0;
		w->failed += ph && strcmp(ph, "Failed") == 0;
	} else {
		pending_pod(x, slot, (uint32_t)i); /* came after its reason */
	}
	if (e->type == API_DELETED)
		hmap_del(&x->pods, uid, strlen(uid));
	else
		hmap_put_str(&x->pods, uid, flags);
	if (w->binding || w->release)
		serve_sched_queue_act(x, slot);
	/* a gang of pods ends when they all have ended, failed ones too
	 * (Coscheduling's Finished and Failed phases; deleted ones may be
	 * made again); a Job's ends with the Job */
	if (w->job || w->finished)
		return;
	if (ends || (w->succeeded + w->failed >= w->npods && !live_pods(w)))
		end_gang(x, slot, e->body); /* may drop the slot */
}

void serve_sched_await_release(struct serve_sched *x, uint32_t slot)
{
	const struct swl *w = serve_sched_slot(x, slot);

	for (uint32_t p = 0; p < w->npods; p++) {
		int64_t flags = w->uid_at[p] ? flags_of(x, w->uid_at[p]) : 0;
		const struct api_obj *o =
			flags & SP_AWAIT_HELD
				? api_store_get(x->s, x->kinds[SK_POD], w->ns,
						w->name_at[p])
				: NULL;

		if (!o || strcmp(o->uid, w->uid_at[p]) != 0)
			continue;
		serve_sched_plain_usage(x, o->body, -1);
		hmap_put_str(&x->pods, w->uid_at[p], flags & ~SP_AWAIT_HELD);
	}
}

void serve_sched_plain_pod(struct serve_sched *x, const struct sev *e,
			   const char *uid)
{
	const json_t *meta = json_object_get(e->body, "metadata");
	const char *node = serve_str_at(e->body, "spec", "nodeName");
	bool gone = e->type == API_DELETED || pod_terminal(e->body);
	int64_t flags = flags_of(x, uid);
	bool held, mine = serve_sched_ours(x, json_object_get(e->body, "spec"));

	/* of a workload that went while it waited for its record, gone
	 * from the store before its pods: the usage they held is the plain
	 * pod's now */
	if (flags & SP_AWAIT_HELD)
		flags = (flags & ~SP_AWAIT_HELD) | SP_PLAIN_HELD;
	held = flags & SP_PLAIN_HELD;

	if (!mine && !node && !held)
		return; /* another scheduler's, not on a node (yet) */
	flags |= SP_PLAIN;
	if (node && !gone && !held) {
		flags |= SP_PLAIN_HELD;
		serve_sched_plain_usage(x, e->body, 1); /* on its node */
	} else if (gone && held) {
		flags &= ~SP_PLAIN_HELD;
		serve_sched_plain_usage(x, e->body, -1);
	}
	if (e->type == API_DELETED) {
		hmap_del(&x->pods, uid, strlen(uid));
		return;
	}
	hmap_put_str(&x->pods, uid, flags);
	if (mine && !node && !gone &&
	    !json_object_get(meta, "deletionTimestamp")) {
		char *key = xasprintf(
			"%s/%s",
			json_string_value(json_object_get(meta, "namespace")),
			json_string_value(json_object_get(meta, "name")));

		if (hmap_put_str(&x->plain_keys, key, 1))
			vec_push(&x->plain, key);
		else
			free(key);
	}
}

/* Whether a pod waits for a node: unbound, not ended, not going. */
static bool pod_waiting(const json_t *pod)
{
	return !serve_str_at(pod, "spec", "nodeName") && !pod_terminal(pod) &&
	       !json_object_get(json_object_get(pod, "metadata"),
				"deletionTimestamp");
}

/* Append path to field (NULL: nothing); true. */
static bool field_is(struct strbuf *field, const char *path)
{
	if (field)
		strbuf_addstr(field, path);
	return true;
}

/* A container list's first hostPort, as its path. */
static bool host_port(const json_t *spec, const char *list,
		      struct strbuf *field)
{
	const json_t *c, *port;
	size_t i, j;

	json_array_foreach(json_object_get(spec, list), i, c)
	{
		json_array_foreach(json_object_get(c, "ports"), j, port)
		{
			if (json_integer_value(
				    json_object_get(port, "hostPort")) > 0) {
				if (field)
					strbuf_addf(field,
						    "spec.%s[%zu].ports[%zu]."
						    "hostPort",
						    list, i, j);
				return true;
			}
		}
	}
	return false;
}

/* Whether v asks for something: a value other than null, an empty list
 * or an object of those ({"requiredDuring...": []} asks nothing). */
static bool asks(const json_t *v)
{
	const char *key;
	const json_t *m;

	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (!json_is_object(v))
		return v && !json_is_null(v);
	json_object_foreach((json_t *)v, key, m)
	{
		if (asks(m))
			return true;
	}
	return false;
}

bool serve_sched_unsupported(const json_t *spec, struct strbuf *field)
{
	const json_t *aff = json_object_get(spec, "affinity"), *v;
	size_t i;

	if (asks(json_object_get(aff, "podAffinity")))
		return field_is(field, "spec.affinity.podAffinity");
	if (asks(json_object_get(aff, "podAntiAffinity")))
		return field_is(field, "spec.affinity.podAntiAffinity");
	if (asks(json_object_get(spec, "topologySpreadConstraints")))
		return field_is(field, "spec.topologySpreadConstraints");
	json_array_foreach(json_object_get(spec, "volumes"), i, v)
	{
		/* a claim's volume may be bound in one zone only */
		const char *what = json_object_get(v, "persistentVolumeClaim")
					   ? "persistentVolumeClaim"
				   : json_object_get(v, "ephemeral")
					   ? "ephemeral"
					   : NULL;

		if (what) {
			if (field)
				strbuf_addf(field, "spec.volumes[%zu].%s", i,
					    what);
			return true;
		}
	}
	if (host_port(spec, "initContainers", field) ||
	    host_port(spec, "containers", field))
		return true;
	if (asks(json_object_get(spec, "resourceClaims")))
		return field_is(field, "spec.resourceClaims");
	return false;
}

/* Send the Warning Event about obj for an unsupported field, once per
 * object (a gang's: its PodGroup, Job or pod). */
static void refused_event(struct serve_sched *x, const json_t *obj,
			  const char *msg)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const json_t *meta = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const char *name = json_string_value(json_object_get(meta, "name"));
	char *key = xasprintf("%s/%s/%s", kind ? kind : "", ns ? ns : "",
			      name ? name : "");

	if (!hmap_get_str(&x->refused, key, NULL)) {
		hmap_put_str(&x->refused, key, 1);
		serve_sched_warn(x, obj, "FailedScheduling",
				 "SchedulerError: %s", msg);
	}
	free(key);
}

bool serve_sched_refuse_owner(struct serve_sched *x, const json_t *obj,
			      const json_t *spec)
{
	struct strbuf field;
	char *msg;

	strbuf_init(&field);
	if (!serve_sched_unsupported(spec, &field)) {
		strbuf_release(&field);
		return false;
	}
	msg = xasprintf("%s is not supported by echelon", field.buf);
	refused_event(x, obj, msg);
	free(msg);
	strbuf_release(&field);
	return true;
}

static void pod_scheduled(struct serve_sched *x, const json_t *pod,
			  const char *status, const char *reason,
			  const char *msg);

/*
 * A waiting pod of echelon's that asks for what it cannot honour: never
 * placed, PodScheduled=False with reason SchedulerError and a message
 * naming the field, one Warning Event about its gang's object (its
 * PodGroup, else its Job, else itself), a native PodGroup's
 * PodGroupInitiallyScheduled=False. True when refused.
 */
static bool refuse(struct serve_sched *x, const json_t *pod)
{
	const json_t *meta = json_object_get(pod, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const struct api_obj *o = NULL;
	struct strbuf field;
	const char *pg, *job;
	bool native;
	char *msg;

	if (!pod_waiting(pod))
		return false;
	strbuf_init(&field);
	if (!serve_sched_unsupported(json_object_get(pod, "spec"), &field)) {
		strbuf_release(&field);
		return false;
	}
	msg = xasprintf("%s is not supported by echelon", field.buf);
	pod_scheduled(x, pod, "False", "SchedulerError", msg);
	pg = serve_sched_pod_group_of(pod, &native);
	job = pg ? NULL : job_name_of(pod);
	if (pg)
		o = api_store_get(
			x->s,
			x->kinds[native ? SK_NATIVE_POD_GROUP : SK_POD_GROUP],
			ns, pg);
	else if (job)
		o = api_store_get(x->s, x->kinds[SK_JOB], ns, job);
	refused_event(x, o ? o->body : pod, msg);
	if (pg && native)
		serve_sched_pod_group_error(x, ns, pg, msg);
	free(msg);
	strbuf_release(&field);
	return true;
}

/* Whether pod waits for its Job: the Job is queued (its Workload is to
 * come; in kube mode a queued Job runs its pods before its admission),
 * or not read yet (a replica reads Jobs and Pods through separate
 * watches: a pod may come first, and bound as a plain pod it would run
 * before its gang's admission is recorded). A Job read as not queued
 * lets its waiting pods go (serve_sched_early_job()). */
static bool job_waits(struct serve_sched *x, const json_t *pod)
{
	const char *name = job_name_of(pod);
	const struct api_obj *jb =
		name ? api_store_get(x->s, x->kinds[SK_JOB],
				     serve_str_at(pod, "metadata", "namespace"),
				     name)
		     : NULL;

	if (!jb || strcmp(jb->uid, job_uid_of(pod)) != 0) {
		hmap_put_str(&x->early_jobs, job_uid_of(pod), 1);
		return true;
	}
	return serve_sched_job_queued(x, jb->body);
}

void serve_sched_early_job(struct serve_sched *x, const char *ns,
			   const char *job_uid)
{
	VEC(char *) keys = VEC_INIT;
	const struct hmap_slot *e;
	size_t it = 0, nsl = strlen(ns);

	if (!hmap_get_str(&x->early_jobs, job_uid, NULL))
		return; /* none of its pods came before it */
	hmap_del(&x->early_jobs, job_uid, strlen(job_uid));
	while (x->early.len && hmap_next(&x->early, &it, &e)) {
		const struct api_obj *o;

		if (e->keylen <= nsl || memcmp(e->key, ns, nsl) != 0 ||
		    e->key[nsl] != '/')
			continue;
		o = api_store_get(x->s, x->kinds[SK_POD], ns, e->key + nsl + 1);
		if (o && job_uid_of(o->body) &&
		    strcmp(job_uid_of(o->body), job_uid) == 0)
			vec_push(&keys, xstrndup(e->key, e->keylen));
	}
	vec_foreach (&keys, k) {
		const struct api_obj *o;
		struct sev ev = { API_MODIFIED, SK_POD, NULL };

		hmap_del(&x->early, *k, strlen(*k));
		o = api_store_get(x->s, x->kinds[SK_POD], ns, *k + nsl + 1);
		if (o) {
			ev.body = json_incref(o->body);
			serve_sched_pod(x, &ev);
			json_decref(ev.body);
		}
		free(*k);
	}
	vec_release(&keys);
}

void serve_sched_pod(struct serve_sched *x, const struct sev *e)
{
	const json_t *meta = json_object_get(e->body, "metadata");
	const json_t *labels = json_object_get(meta, "labels");
	const char *uid = json_string_value(json_object_get(meta, "uid"));
	const char *juid = job_uid_of(e->body);
	bool native;
	int64_t slot;

	if (!uid || !json_string_value(json_object_get(meta, "name")))
		return;
	if (e->type == API_DELETED && x->early.len) {
		char *key = xasprintf(
			"%s/%s", serve_str_at(e->body, "metadata", "namespace"),
			serve_str_at(e->body, "metadata", "name"));

		hmap_del(&x->early, key, strlen(key));
		free(key);
	}
	/* another scheduler's: its usage on its node, once bound */
	if (!serve_sched_ours(x, json_object_get(e->body, "spec"))) {
		serve_sched_plain_pod(x, e, uid);
		return;
	}
	if (e->type != API_DELETED && !hmap_get_str(&x->pods, uid, NULL) &&
	    refuse(x, e->body))
		return;
	/* its gang: a PodGroup (native, then Coscheduling's), its Job, or
	 * itself (a pod of its own Workload) */
	if (serve_sched_pod_group_of(e->body, &native)) {
		serve_sched_gang_pod(x, e, uid);
		return;
	}
	if ((juid && hmap_get_str(&x->by_owner, juid, &slot)) ||
	    hmap_get_str(&x->by_owner, uid, &slot)) {
		serve_sched_member_pod(x, (uint32_t)slot, e, uid);
		return;
	}
	if (juid && e->type != API_DELETED && !pod_terminal(e->body) &&
	    !json_object_get(meta, "deletionTimestamp") &&
	    job_waits(x, e->body)) {
		/* its Job's Workload, when read, takes it (bound too: a
		 * previous leader's, its admission still to be read) */
		char *key = xasprintf(
			"%s/%s", serve_str_at(e->body, "metadata", "namespace"),
			serve_str_at(e->body, "metadata", "name"));

		hmap_put_str(&x->early, key, 1);
		free(key);
		return;
	}
	if (!juid && json_object_get(labels, "kueue.x-k8s.io/queue-name")) {
		serve_sched_gang_pod(x, e, uid);
		return;
	}
	serve_sched_plain_pod(x, e, uid);
}

static void scheduled_event(struct serve_sched *x, const char *ns,
			    const char *pod, const char *node)
{
	const struct api_obj *o =
		api_store_get(x->s, x->kinds[SK_POD], ns, pod);

	if (o && serve_event(x->s, o->body, "Normal", "Scheduled", "Binding",
			     "echelon", x->now_us,
			     "Successfully assigned %s/%s to %s", ns, pod,
			     node) == 0)
		x->writes++;
}

/* Whether pod index p of w can be bound to its target now: it exists
 * and is unbound (or on its target already). */
static bool bindable(struct serve_sched *x, const struct swl *w, uint32_t p)
{
	const struct api_obj *o;
	const char *node;

	if (!w->uid_at[p] || w->target[p] == CTL_NO_NODE)
		return false;
	o = api_store_get(x->s, x->kinds[SK_POD], w->ns, w->name_at[p]);
	if (!o)
		return false;
	node = serve_str_at(o->body, "spec", "nodeName");
	return !node || strcmp(node, x->c.nodes.items[w->target[p]].name) == 0;
}

static int bind_one(struct serve_sched *x, struct swl *w, uint32_t p)
{
	const char *node = x->c.nodes.items[w->target[p]].name;
	char *uid = xstrdup(w->uid_at[p]), *name = xstrdup(w->name_at[p]);
	uint64_t h = w->h;
	struct errbuf eb;
	int rc;

	errbuf_clear(&eb);
	rc = api_bind(x->s, w->ns, name, uid, node, x->now_us, &eb);
	if (rc == 0) {
		x->writes++;
		scheduled_event(x, w->ns, name, node);
		(void)ctl_pod_map(x->ctl, uid, h, p);
	}
	w->want[p] = 0;
	/* may evict the gang: w's arrays are cleared by the release op */
	(void)ctl_bind_result(x->ctl, h, p, rc, x->now_us);
	free(uid);
	free(name);
	return rc;
}

/* One of serve_sched_records()'s objects, when the store holds it. */
static int record(const struct serve_sched *x, const struct api_kind *k,
		  const char *ns, const char *name,
		  const struct api_kind **kinds, const char **names, int n,
		  int max)
{
	const struct api_obj *o;

	if (!k || !name || n >= max || !(o = api_store_get(x->s, k, ns, name)))
		return n;
	kinds[n] = o->kind;
	names[n] = o->name;
	return n + 1;
}

int serve_sched_records(const struct serve_sched *x, const json_t *pod,
			const struct api_kind **kinds, const char **names,
			int max)
{
	const char *uid = serve_str_at(pod, "metadata", "uid");
	const struct swl *w;
	uint64_t h;
	uint32_t p;
	int n = 0;

	if (!uid)
		return -1;
	/* a gang's member first: a flag of a plain past may linger */
	if (ctl_pod_find(x->ctl, uid, &h, &p) < 0 || (uint32_t)h >= x->wl.len ||
	    ctl_handle(x->ctl, (uint32_t)h) != h)
		return flags_of(x, uid) & SP_PLAIN ? 0 : -1;
	w = &x->wl.items[(uint32_t)h];
	n = record(x, x->kinds[SK_WORKLOAD], w->ns, w->name, kinds, names, n,
		   max);
	n = record(x, x->kinds[SK_POD_GROUP], w->ns, w->name, kinds, names, n,
		   max);
	n = record(x, x->kinds[SK_NATIVE_POD_GROUP], w->ns, w->name, kinds,
		   names, n, max);
	n = record(x, x->kinds[SK_JOB], w->ns, w->job, kinds, names, n, max);
	/* a gang whose record the store does not hold: not known */
	return n ? n : -1;
}

/* The pod set of pod index p of slot's workload. */
static const struct podset *podset_of(const struct serve_sched *x,
				      uint32_t slot, uint32_t p)
{
	const struct workload *cw = &x->c.workloads.items[slot];

	for (size_t i = 0; i < cw->npodsets; i++) {
		if (p < (uint32_t)cw->podsets[i].count)
			return &cw->podsets[i];
		p -= (uint32_t)cw->podsets[i].count;
	}
	return NULL;
}

/* Every node's usage: plain pods (node usage in the cluster) and every
 * pod the controller placed (targets). [c.nodes.len], caller frees. */
static struct resvec *node_usage(const struct serve_sched *x)
{
	struct resvec *u = xcalloc(x->c.nodes.len + 1, sizeof(*u));

	for (size_t n = 0; n < x->c.nodes.len; n++)
		u[n] = x->c.nodes.items[n].usage;
	for (uint32_t slot = 0; slot < x->wl.len; slot++) {
		const struct swl *w = &x->wl.items[slot];

		for (uint32_t p = 0; w->live && p < w->npods; p++) {
			const struct podset *ps = podset_of(x, slot, p);

			if (w->target[p] != CTL_NO_NODE && ps &&
			    w->target[p] < x->c.nodes.len)
				resvec_add(&u[w->target[p]], &ps->requests);
		}
	}
	return u;
}

/* kube-scheduler's filters that echelon models: schedulable, node
 * selector, required node affinity, taints; then room for req. */
static bool fits(const struct node *n, const struct resvec *used,
		 const struct podset *ps, const struct flavor *f)
{
	struct resvec free = n->allocatable;

	if (!node_schedulable(n) ||
	    !labels_contains_all(&n->labels, &ps->node_selector) ||
	    !node_affinity_matches(&ps->affinity, &n->labels))
		return false;
	if (f && !labels_contains_all(&n->labels, &f->node_labels))
		return false;
	if (taint_find_untolerated(n->taints, n->ntaints, ps->tolerations,
				   ps->ntolerations) &&
	    (!f || taint_find_untolerated(n->taints, n->ntaints, f->tolerations,
					  f->ntolerations)))
		return false;
	resvec_sub(&free, used);
	return resvec_fits(&ps->requests, &free);
}

/* The flavor an admission gave the pod set of pod p (any resource). */
static const struct flavor *flavor_of(const struct serve_sched *x,
				      uint32_t slot, uint32_t p)
{
	const struct sched_admission *a =
		sched_wl_admission(ctl_sched(x->ctl), slot);
	const struct workload *cw = &x->c.workloads.items[slot];

	for (size_t i = 0; a && i < a->npodsets && i < cw->npodsets; i++) {
		if (p >= (uint32_t)cw->podsets[i].count) {
			p -= (uint32_t)cw->podsets[i].count;
			continue;
		}
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if (a->ps[i].flavor[r] >= 0)
				return &x->c.flavors.items[a->ps[i].flavor[r]];
		}
		break;
	}
	return NULL;
}

/* Nodes for the pods whose admission fixed none (flavors without a
 * topology), first fit in node order; all or none. */
static bool place_open(struct serve_sched *x, uint32_t slot, struct swl *w)
{
	struct resvec *used = NULL;
	uint8_t *mine = xcalloc(w->npods ? w->npods : 1, 1);
	bool ok = true;

	for (uint32_t p = 0; p < w->npods && ok; p++) {
		const struct podset *ps = podset_of(x, slot, p);
		const struct flavor *f = flavor_of(x, slot, p);

		if (!w->want[p] || w->target[p] != CTL_NO_NODE)
			continue;
		if (!used)
			used = node_usage(x);
		ok = false;
		for (size_t n = 0; ps && n < x->c.nodes.len && !ok; n++) {
			if (!fits(&x->c.nodes.items[n], &used[n], ps, f))
				continue;
			w->target[p] = (uint32_t)n;
			mine[p] = 1;
			resvec_add(&used[n], &ps->requests);
			ok = true;
		}
	}
	if (!ok) { /* none of them, then: whole gangs only */
		for (uint32_t p = 0; p < w->npods; p++) {
			if (mine[p])
				w->target[p] = CTL_NO_NODE;
		}
	}
	free(mine);
	free(used);
	return ok;
}

/*
 * Kueue's startJob: unsuspend the Job; under a partial admission its
 * parallelism becomes the admitted count (Kueue's RunWithPodSetsInfo),
 * and the Job's own comes back when it is suspended again.
 */
static int start_job(struct serve_sched *x, uint32_t slot, struct swl *w)
{
	const struct sched_admission *a =
		sched_wl_admission(ctl_sched(x->ctl), slot);
	const struct workload *cw = &x->c.workloads.items[slot];
	const struct api_obj *jb =
		api_store_get(x->s, x->kinds[SK_JOB], w->ns, w->job);
	int64_t par = -1;

	if (a && jb && cw->npodsets == 1 &&
	    a->ps[0].count < cw->podsets[0].count) {
		if (!w->parallelism)
			w->parallelism = json_integer_value(json_object_get(
				json_object_get(jb->body, "spec"),
				"parallelism"));
		par = a->ps[0].count;
	}
	return serve_sched_suspend(x, w->ns, w->job, false, par);
}

/*
 * How many pods of a released gang still hold a node: bound ones, ones
 * deleted whose deletion the sync has not read yet (their index is
 * theirs until then), and ones deleted here whose delete the cluster has
 * not answered yet (opt.pod_pending; forgotten once answered). An unbound pod
 * holds nothing, as a gated pod holds nothing for Kueue's pod integration (its
 * Stop leaves those): the release does not wait for it, and the gang's next
 * admission binds it.
 */
static uint32_t pods_holding(struct serve_sched *x, struct swl *w)
{
	uint32_t n = 0, j = 0;

	/* deleted here, the cluster's answer still to come */
	for (uint32_t i = 0; i < w->ndeleting; i++) {
		if (x->opt.pod_pending &&
		    x->opt.pod_pending(x->opt.pod_pending_ctx, w->ns,
				       w->deleting[i])) {
			w->deleting[j++] = w->deleting[i];
			n++;
		} else {
			free(w->deleting[i]);
		}
	}
	w->ndeleting = j;
	for (uint32_t p = 0; p < w->npods; p++) {
		const struct api_obj *o;

		if (!w->name_at[p])
			continue;
		o = api_store_get(x->s, x->kinds[SK_POD], w->ns, w->name_at[p]);
		n += !o || strcmp(o->uid, w->uid_at[p]) != 0 ||
		     serve_str_at(o->body, "spec", "nodeName");
	}
	return n;
}

/* Delete the bound pods of a released gang of pods. */
static void delete_bound(struct serve_sched *x, struct swl *w)
{
	for (uint32_t p = 0; p < w->npods; p++) {
		const struct api_obj *o;

		if (!w->name_at[p])
			continue;
		o = api_store_get(x->s, x->kinds[SK_POD], w->ns, w->name_at[p]);
		if (o && serve_str_at(o->body, "spec", "nodeName") &&
		    api_store_delete(x->s, x->kinds[SK_POD], w->ns,
				     w->name_at[p], 0, x->now_us) == 0) {
			x->writes++;
			if (!x->opt.pod_pending)
				continue;
			w->deleting =
				xreallocarray(w->deleting, w->ndeleting + 1,
					      sizeof(*w->deleting));
			w->deleting[w->ndeleting++] = xstrdup(w->name_at[p]);
		}
	}
}

int serve_sched_act(struct serve_sched *x, uint32_t slot)
{
	struct swl *w = serve_sched_slot(x, slot);
	int fed = 0;

	if (!w->live)
		return 0;
	if (w->release) {
		/* Kueue's stopJob suspends a Job (its controller deletes the
		 * pods); pods of no Job cannot be unbound: they are deleted */
		if (w->job && serve_sched_suspend(
				      x, w->ns, w->job, true,
				      w->parallelism ? w->parallelism : -1) < 0)
			return 0;
		w->parallelism = 0;
		if (!w->job)
			delete_bound(x, w);
		if (pods_holding(x, w))
			return 0; /* until they are off their nodes */
		w->release = false;
		(void)ctl_released(x->ctl, w->h, x->now_us);
		fed = 1;
	}
	if (w->binding && !place_open(x, slot, w))
		return fed; /* no node has room now: the bind timeout */
	/* Kueue's startJob, also for an admission read back at start */
	if (w->job && !w->ungated &&
	    sched_wl_state(ctl_sched(x->ctl), slot) == SCHED_WL_ADMITTED) {
		if (start_job(x, slot, w) < 0)
			return fed;
		w->ungated = true;
	}
	if (!w->binding)
		return fed;
	for (uint32_t p = 0; p < w->npods; p++) {
		if (w->want[p] && !bindable(x, w, p))
			return fed; /* whole gangs only: wait for its pods */
	}
	for (uint32_t p = 0; p < w->npods && w->binding; p++) {
		if (w->want[p])
			(void)bind_one(x, w, p);
	}
	w->binding = false;
	for (uint32_t p = 0; p < w->npods; p++)
		w->binding |= w->want[p];
	return 1;
}

/* Set pod's PodScheduled condition, as kube-scheduler does: written only
 * when it changes (status, reason or message), on the stored version of
 * the pod (pod may be an older one, from the changes read), with its
 * resourceVersion as precondition. */
static void pod_scheduled(struct serve_sched *x, const json_t *pod,
			  const char *status, const char *reason,
			  const char *msg)
{
	const char *ns = serve_str_at(pod, "metadata", "namespace");
	const char *name = serve_str_at(pod, "metadata", "name");
	const char *uid = serve_str_at(pod, "metadata", "uid");
	const struct api_obj *o =
		name ? api_store_get(x->s, x->kinds[SK_POD], ns ? ns : "", name)
		     : NULL;
	const json_t *conds;
	json_t *body, *list, *c, *cond;
	char now[32];
	size_t i;

	if (!o || !uid || strcmp(o->uid, uid) != 0)
		return; /* gone, or another pod of that name */
	conds = json_object_get(json_object_get(o->body, "status"),
				"conditions");
	json_array_foreach(conds, i, c)
	{
		const char *t = json_string_value(json_object_get(c, "type"));
		const char *st =
			json_string_value(json_object_get(c, "status"));
		const char *r = json_string_value(json_object_get(c, "reason"));
		const char *m =
			json_string_value(json_object_get(c, "message"));

		if (t && st && r && m && strcmp(t, "PodScheduled") == 0 &&
		    strcmp(st, status) == 0 && strcmp(r, reason) == 0 &&
		    strcmp(m, msg) == 0)
			return;
	}
	api_store_timestamp(x->now_us, now, sizeof(now));
	cond = json_pack("{s:s,s:s,s:s,s:s,s:n,s:s}", "type", "PodScheduled",
			 "status", status, "reason", reason, "message", msg,
			 "lastProbeTime", "lastTransitionTime", now);
	body = json_copy(o->body);
	list = api_store_own(api_store_own(body, "status", false), "conditions",
			     true);
	json_array_foreach(list, i, c)
	{
		const char *t = json_string_value(json_object_get(c, "type"));

		if (t && strcmp(t, "PodScheduled") == 0) {
			json_array_remove(list, i);
			break;
		}
	}
	json_array_append_new(list, cond);
	if (api_store_update(x->s, x->kinds[SK_POD], body, o->rv, x->now_us,
			     NULL) == 0)
		x->writes++;
}

/*
 * The PodScheduled reason of a pending gang: Unschedulable only when no
 * set of nodes can ever hold it (cluster-autoscaler scales up for that
 * reason alone; never_fits() too); queue reasons otherwise. NULL: not
 * tried yet.
 */
static const char *pend_reason(enum sched_pend p)
{
	switch (p) {
	case SCHED_PEND_NO_MATCHING_FLAVOR:
		return "Unschedulable";
	case SCHED_PEND_EXCEEDS_MAX_QUOTA:
		return "ExceedsMaxQuota";
	case SCHED_PEND_WAITING_FOR_QUOTA:
	case SCHED_PEND_BEHIND:
		return "WaitingForQuota";
	case SCHED_PEND_TOPOLOGY:
		return "WaitingForTopology";
	case SCHED_PEND_ON_HOLD:
		return "OnHold";
	case SCHED_PEND_DEACTIVATED:
		return "Deactivated";
	case SCHED_PEND_MISCONFIGURED:
		return "Misconfigured";
	default:
		return NULL;
	}
}

/* Whether node n could ever hold a pod of ps, empty: its labels, node
 * affinity and taints allow it and its allocatable is enough (Ready and
 * cordon come and go). */
static bool could_hold(const struct node *n, const struct podset *ps)
{
	return labels_contains_all(&n->labels, &ps->node_selector) &&
	       node_affinity_matches(&ps->affinity, &n->labels) &&
	       !taint_find_untolerated(n->taints, n->ntaints, ps->tolerations,
				       ps->ntolerations) &&
	       resvec_fits(&ps->requests, &n->allocatable);
}

/*
 * Whether some pod of slot's workload fits no node of the cluster even
 * empty: then nothing but a new node can ever hold the gang, whatever the
 * queue says (a topology that "does not fit" a pod of 16 GPUs on nodes
 * of 8), and cluster-autoscaler must hear Unschedulable.
 */
static bool never_fits(const struct serve_sched *x, uint32_t slot)
{
	const struct workload *cw = &x->c.workloads.items[slot];

	for (size_t i = 0; i < cw->npodsets; i++) {
		size_t n;

		for (n = 0; n < x->c.nodes.len; n++) {
			if (could_hold(&x->c.nodes.items[n], &cw->podsets[i]))
				break;
		}
		if (n == x->c.nodes.len)
			return true;
	}
	return false;
}

/* The object a gang's Events are about: its Job, Pod (kube-scheduler's
 * FailedScheduling is the pod's), PodGroup or Workload, else its first
 * pod. */
static const struct api_obj *gang_object(struct serve_sched *x,
					 const struct swl *w)
{
	const struct api_obj *o = NULL;

	if (w->job)
		o = api_store_get(x->s, x->kinds[SK_JOB], w->ns, w->job);
	else if (w->pod)
		o = api_store_get(x->s, x->kinds[SK_POD], w->ns, w->pod);
	else if (w->pod_group)
		o = api_store_get(x->s, x->kinds[SK_POD_GROUP], w->ns,
				  w->pod_group);
	if (!o)
		o = api_store_get(x->s, x->kinds[SK_WORKLOAD], w->ns, w->name);
	for (uint32_t p = 0; !o && p < w->npods; p++) {
		if (w->name_at[p])
			o = api_store_get(x->s, x->kinds[SK_POD], w->ns,
					  w->name_at[p]);
	}
	return o;
}

/* PodScheduled=False with the reason and message last written for
 * pending slot on its pod index p, when the pod is there and unbound:
 * also for pods that come after the reason was found (a Job's pods are
 * made one by one, a failed one again), as kube-scheduler writes it on
 * every pod it fails to place. */
static void pending_pod(struct serve_sched *x, uint32_t slot, uint32_t p)
{
	const struct swl *w = serve_sched_slot(x, slot);
	const struct api_obj *o;

	if (!w->pending_msg || !w->pending_reason || !w->name_at[p] ||
	    sched_wl_state(ctl_sched(x->ctl), slot) != SCHED_WL_PENDING)
		return;
	o = api_store_get(x->s, x->kinds[SK_POD], w->ns, w->name_at[p]);
	if (o && strcmp(o->uid, w->uid_at[p]) == 0 &&
	    !serve_str_at(o->body, "spec", "nodeName") &&
	    !pod_terminal(o->body) &&
	    !json_object_get(json_object_get(o->body, "metadata"),
			     "deletionTimestamp"))
		pod_scheduled(x, o->body, "False", w->pending_reason,
			      w->pending_msg);
}

struct pending {
	struct serve_sched *x;
	struct strbuf msg;
};

/* A FailedScheduling Event and PodScheduled=False on the unbound pods of
 * pending slot when its reason or message changed since it was written. */
static int pending_slot(void *ctx, uint32_t slot)
{
	struct pending *p = ctx;
	struct serve_sched *x = p->x;
	const struct sched *s = ctl_sched(x->ctl);
	struct swl *w;
	const struct api_obj *o;
	const char *reason;
	uint64_t key;

	if (slot >= x->wl.len)
		return 0;
	w = &x->wl.items[slot];
	if (!w->live || w->finished ||
	    sched_wl_state(s, slot) != SCHED_WL_PENDING)
		return 0;
	/* nothing it depends on changed: the same message */
	key = sched_wl_pending_key(s, slot);
	if (key == w->pending_key)
		return 0;
	w->pending_key = key;
	strbuf_reset(&p->msg);
	reason = pend_reason(sched_wl_pending(s, slot, &p->msg));
	if (!reason)
		return 0;
	if (strcmp(reason, "Unschedulable") != 0 && never_fits(x, slot))
		reason = "Unschedulable";
	strbuf_addstr(&p->msg, ""); /* never NULL */
	if (w->pending_msg && strcmp(w->pending_msg, p->msg.buf) == 0 &&
	    w->pending_reason && strcmp(w->pending_reason, reason) == 0)
		return 0;
	free(w->pending_msg);
	w->pending_msg = xstrdup(p->msg.buf);
	w->pending_reason = reason;
	if ((o = gang_object(x, w)) &&
	    serve_event(x->s, o->body, "Warning", "FailedScheduling",
			"Scheduling", "echelon", x->now_us, "%s: %s", reason,
			p->msg.buf) == 0)
		x->writes++;
	for (uint32_t pod = 0; pod < w->npods; pod++)
		pending_pod(x, slot, pod);
	return 0;
}

void serve_sched_pending(struct serve_sched *x)
{
	uint64_t cycles = ctl_stats(x->ctl).cycles;
	struct pending p = { .x = x };

	/* a reason changes only in a scheduler cycle */
	if (cycles == x->pending_cycles)
		return;
	x->pending_cycles = cycles;
	strbuf_init(&p.msg);
	/* the slots whose reason may have changed (the controller's
	 * journal), every slot after a rebuild of the scheduler */
	if (ctl_changes(x->ctl, x->pending_seq, pending_slot, &p) < 0) {
		for (uint32_t slot = 0; slot < x->wl.len; slot++)
			(void)pending_slot(&p, slot);
	}
	x->pending_seq = ctl_changes_seq(x->ctl);
	strbuf_release(&p.msg);
}

/* A plain pod's needs, through the Workload decoder: one pod set of one
 * pod with the pod's spec as its template. */
static int plain_podset(struct serve_sched *x, const json_t *pod,
			struct workload *ret_w)
{
	const json_t *meta = json_object_get(pod, "metadata");
	json_t *spec = json_deep_copy(json_object_get(pod, "spec"));
	json_t *obj;
	int rc;

	json_object_del(spec, "nodeName");
	obj = json_pack("{s:s,s:s,s:{s:O,s:O},s:{s:[{s:s,s:i,s:{s:o}}]}}",
			"apiVersion", "kueue.x-k8s.io/v1beta2", "kind",
			"Workload", "metadata", "name",
			json_object_get(meta, "name"), "namespace",
			json_object_get(meta, "namespace"), "spec", "podSets",
			"name", "main", "count", 1, "template", "spec", spec);
	if (!obj)
		return -EINVAL;
	rc = serve_sched_decode_workload(x, obj, ret_w, NULL);
	json_decref(obj);
	return rc;
}

static void bind_plain(struct serve_sched *x, const struct api_obj *o,
		       struct resvec *used)
{
	const char *uid = o->uid;
	char *ns = xstrdup(o->ns), *name = xstrdup(o->name);
	struct workload w;
	struct errbuf eb;
	struct strbuf msg;
	int64_t flags;
	size_t n;

	if (plain_podset(x, o->body, &w) < 0 || w.npodsets != 1) {
		pod_scheduled(x, o->body, "False", "SchedulerError",
			      "echelon cannot read the pod's spec");
		goto out_name;
	}
	for (n = 0; n < x->c.nodes.len; n++) {
		if (fits(&x->c.nodes.items[n], &used[n], &w.podsets[0], NULL))
			break;
	}
	if (n == x->c.nodes.len) {
		strbuf_init(&msg);
		strbuf_addf(&msg,
			    "0/%zu nodes are available: none is schedulable, "
			    "matches the pod's node selector, affinity and "
			    "tolerations, and has room for its requests",
			    x->c.nodes.len);
		pod_scheduled(x, o->body, "False", "Unschedulable", msg.buf);
		strbuf_release(&msg);
		goto out;
	}
	errbuf_clear(&eb);
	flags = flags_of(x, uid) | SP_PLAIN | SP_PLAIN_HELD;
	hmap_put_str(&x->pods, uid, flags);
	if (api_bind(x->s, ns, name, uid, x->c.nodes.items[n].name, x->now_us,
		     &eb) == 0) {
		x->writes++;
		resvec_add(&used[n], &w.podsets[0].requests);
		ctl_node_usage(x->ctl, (uint32_t)n, &w.podsets[0].requests, 1,
			       x->now_us);
		scheduled_event(x, ns, name, x->c.nodes.items[n].name);
	}
out:
	workload_release(&w);
out_name:
	free(ns);
	free(name);
}

void serve_sched_plain(struct serve_sched *x)
{
	struct resvec *used;

	if (!x->plain.len)
		return;
	used = node_usage(x);
	/* in the order they came; an unbound one is tried again next sync,
	 * as kube-scheduler retries */
	size_t j = 0;

	for (size_t i = 0; i < x->plain.len; i++) {
		char *key = x->plain.items[i], *slash = strchr(key, '/');
		const struct api_obj *o;

		if (serve_sched_spent(x)) {
			x->plain.items[j++] = key; /* the next sync's */
			continue;
		}
		*slash = '\0';
		o = api_store_get(x->s, x->kinds[SK_POD], key, slash + 1);
		if (o && !serve_str_at(o->body, "spec", "nodeName") &&
		    !pod_terminal(o->body))
			bind_plain(x, o, used);
		o = api_store_get(x->s, x->kinds[SK_POD], key, slash + 1);
		*slash = '/';
		if (o && !serve_str_at(o->body, "spec", "nodeName") &&
		    !pod_terminal(o->body)) {
			x->plain.items[j++] = key;
		} else {
			hmap_del(&x->plain_keys, key, strlen(key));
			free(key);
		}
	}
	x->plain.len = j;
	free(used);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The Job controller (batch/v1), as Kubernetes' job-controller acts:
 *
 *  1. count: a pod that carries the batch.kubernetes.io/job-tracking
 *     finalizer and has finished (or is being deleted) is counted once
 *     into status.succeeded/failed (completedIndexes in Indexed mode),
 *     and the finalizer comes off (which lets a deleted pod go: one
 *     deleted while running counts as failed);
 *  2. decide: failed > backoffLimit, or activeDeadlineSeconds past,
 *     fails the Job (FailureTarget then Failed, active pods deleted and
 *     counted as failed); enough successes and no active pod complete it
 *     (SuccessCriteriaMet then Complete, completionTime);
 *  3. manage: suspended, its active pods are deleted without counting;
 *     otherwise it keeps min(parallelism, completions - succeeded)
 *     active pods, creating (lowest free indexes first in Indexed mode)
 *     or deleting (duplicates, then the least advanced pods) the
 *     difference, at most 500 a sync as Kubernetes;
 *  4. status: startTime, active, ready, terminating, the Suspended
 *     condition (JobSuspended / JobResumed), written only when changed.
 *
 * Pods are made from spec.template with the labels, annotations,
 * hostname, environment and ownerReference Kubernetes' controller sets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "model/ann.h"
#include "serve/serve_cluster_int.h"
#include "serve/serve_event.h"

#include "base/banned.h"

#define MAX_CREATE_DELETE_PER_SYNC 500
/* Pod failure back-off: 10 s, doubled per failure since the last
 * success, at most 10 min (Kubernetes' DefaultJobPodFailureBackOff and
 * MaxJobPodFailureBackOff). */
#define BACKOFF_US		(10 * 1000000LL)
#define BACKOFF_MAX_US		(600 * 1000000LL)
#define MAX_INDEXED_COMPLETIONS 100000
/* Kubernetes' generateName: a base of at most 58 bytes and 5 random
 * characters from its alphabet without vowels. */
#define GENERATED_BASE_MAX 58
static const char name_alphabet[] = "bcdfghjklmnpqrstvwxz2456789";

struct jpod {
	struct cl_ref ref;
	int64_t index; /* completion index, -1 none */
	bool active, ready, scheduled, running, deleting, tracked;
	const char *phase; /* static copy of a known phase */
	int64_t finish_us; /* when it finished, as Kubernetes estimates */
};

struct jctx {
	struct serve_cluster *c;
	int64_t now_us;
	json_t *job; /* a copy to edit */
	const char *ns, *name, *uid;
	bool indexed, suspend, has_completions;
	int64_t parallelism, completions, backoff_limit, deadline_s;
	VEC(struct jpod) pods;
	unsigned char *done; /* Indexed: completed indexes */
	int64_t succeeded, failed, active, ready, terminating;
};

/* ---- pod failure back-off ---- */

static struct cl_backoff *backoff_of(struct serve_cluster *c, const char *uid,
				     bool create)
{
	int64_t i;

	if (hmap_get_str(&c->backoff_index, uid, &i))
		return &c->backoff.items[i];
	if (!create)
		return NULL;
	hmap_put_str(&c->backoff_index, uid, (int64_t)c->backoff.len);
	vec_push_zero(&c->backoff)->uid = xstrdup(uid);
	return vec_last(&c->backoff);
}

void cl_jobs_forget(struct serve_cluster *c, const char *uid)
{
	struct cl_backoff *b = backoff_of(c, uid, false);
	size_t i;

	if (!b)
		return;
	i = (size_t)(b - c->backoff.items);
	hmap_del(&c->backoff_index, b->uid, strlen(b->uid));
	free(b->uid);
	if (i + 1 < c->backoff.len) {
		c->backoff.items[i] = c->backoff.items[c->backoff.len - 1];
		hmap_put_str(&c->backoff_index, c->backoff.items[i].uid,
			     (int64_t)i);
	}
	c->backoff.len--;
}

void cl_jobs_release(struct serve_cluster *c)
{
	vec_foreach (&c->backoff, b)
		free(b->uid);
	vec_release(&c->backoff);
	hmap_release(&c->backoff_index);
}

/* When the next pod may be created (failures back off). */
static int64_t backoff_until(const struct serve_cluster *c, const char *uid)
{
	const struct cl_backoff *b =
		backoff_of((struct serve_cluster *)c, uid, false);
	int64_t d = BACKOFF_US;

	if (!b || b->failures <= 0)
		return INT64_MIN;
	for (int64_t i = 1; i < b->failures && d < BACKOFF_MAX_US; i++)
		d *= 2;
	return b->last_us + (d < BACKOFF_MAX_US ? d : BACKOFF_MAX_US);
}

static int64_t pod_index(const json_t *pod)
{
	const char *s = json_string_value(json_object_get(
		cl_get(pod, "metadata.annotations"), CL_JOB_INDEX));
	char *end;
	long long v;

	if (!s || !*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0 || v > MAX_INDEXED_COMPLETIONS)
		return -1;
	return v;
}

/* ---- reading the Job ---- */

static int64_t spec_int(const json_t *job, const char *path, int64_t dflt)
{
	const json_t *v = cl_get(job, path);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

static bool read_spec(struct jctx *x)
{
	const char *mode = cl_str(x->job, "spec.completionMode");
	const json_t *comp = cl_get(x->job, "spec.completions");
	const json_t *par = cl_get(x->job, "spec.parallelism");

	x->indexed = mode && strcmp(mode, "Indexed") == 0;
	if (mode && !x->indexed && strcmp(mode, "NonIndexed") != 0)
		return false;
	x->suspend = json_is_true(cl_get(x->job, "spec.suspend"));
	x->parallelism = spec_int(x->job, "spec.parallelism", 1);
	x->has_completions = json_is_integer(comp) || !json_is_integer(par);
	x->completions = spec_int(x->job, "spec.completions", 1);
	x->backoff_limit = spec_int(x->job, "spec.backoffLimit", 6);
	x->deadline_s = spec_int(x->job, "spec.activeDeadlineSeconds", -1);
	if (x->parallelism < 0 || x->completions < 0 || x->backoff_limit < 0)
		return false;
	if (x->indexed &&
	    (!x->has_completions || x->completions > MAX_INDEXED_COMPLETIONS))
		return false;
	return true;
}

/* completedIndexes ("1,3-5,7") into x->done. */
static void read_done(struct jctx *x)
{
	const char *s = cl_str(x->job, "status.completedIndexes");

	x->done = xcalloc((size_t)x->completions + 1, 1);
	while (s && *s) {
		char *end;
		long long a = strtoll(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-') {
			s = end + 1;
			b = strtoll(s, &end, 10);
			if (end == s)
				break;
		}
		for (long long i = a < 0 ? 0 : a; i <= b && i < x->completions;
		     i++)
			x->done[i] = 1;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
}

static void write_done(struct jctx *x, json_t *status)
{
	struct strbuf sb;
	int64_t n = 0;

	strbuf_init(&sb);
	for (int64_t i = 0; i < x->completions; i++) {
		int64_t j = i;

		if (!x->done[i])
			continue;
		while (j + 1 < x->completions && x->done[j + 1])
			j++;
		strbuf_addf(&sb, "%s%lld", sb.len ? "," : "", (long long)i);
		if (j > i)
			strbuf_addf(&sb, "-%lld", (long long)j);
		n += j - i + 1;
		i = j;
	}
	x->succeeded = n;
	if (sb.len)
		json_object_set_new(status, "completedIndexes",
				    json_string(sb.buf));
	else
		json_object_del(status, "completedIndexes");
	strbuf_release(&sb);
}

static const char *known_phase(const char *p)
{
	static const char *const phases[] = { "Pending", "Running", "Succeeded",
					      "Failed", "Unknown" };

	for (size_t i = 0; p && i < ARRAY_SIZE(phases); i++)
		if (strcmp(p, phases[i]) == 0)
			return phases[i];
	return "Pending";
}

/* When a pod finished, as Kubernetes' getFinishedTime: the last
 * container's finishedAt, else its Ready=False transition, else its
 * deletion, else now. */
static int64_t finish_time(const json_t *pod, int64_t now_us)
{
	const json_t *ready =
		cl_cond(cl_get(pod, "status.conditions"), "Ready");
	int64_t t = -1;
	size_t i;
	json_t *cs;

	json_array_foreach(cl_get(pod, "status.containerStatuses"), i, cs)
	{
		int64_t f = cl_parse_time(
			cl_str(cs, "state.terminated.finishedAt"));

		if (f < 0) {
			t = -1;
			break;
		}
		t = f > t ? f : t;
	}
	if (t < 0 && ready && cl_str(ready, "status") &&
	    strcmp(cl_str(ready, "status"), "False") == 0)
		t = cl_parse_time(cl_str(ready, "lastTransitionTime"));
	if (t < 0)
		t = cl_parse_time(cl_str(pod, "metadata.deletionTimestamp"));
	return t < 0 || t > now_us ? now_us : t;
}

static void gather(struct jctx *x)
{
	struct cl_refs deps = { 0 };

	cl_gc_dependents(x->c, x->uid, &deps);
	vec_foreach (&deps, d) {
		const struct api_obj *o;
		const json_t *ref;
		struct jpod *p;

		if (d->kind != x->c->pod_k)
			continue;
		o = api_store_get(x->c->s, d->kind, d->ns, d->name);
		ref = o ? cl_controller_ref(o->body) : NULL;
		if (!ref || !cl_str(ref, "uid") ||
		    strcmp(cl_str(ref, "uid"), x->uid) != 0)
			continue;
		p = vec_push_zero(&x->pods);
		p->ref = *d;
		d->ns = d->name = d->uid = NULL;
		p->index = pod_index(o->body);
		p->phase = known_phase(cl_str(o->body, "status.phase"));
		p->deleting = cl_deleting(o->body);
		p->active = !cl_terminal(o->body) && !p->deleting;
		p->ready = p->active && cl_cond_true(o->body, "Ready");
		p->scheduled = cl_str(o->body, "spec.nodeName") != NULL;
		p->running = strcmp(p->phase, "Running") == 0;
		p->tracked = cl_has_finalizer(o->body, CL_JOB_TRACKING);
		p->finish_us = finish_time(o->body, x->now_us);
	}
	cl_refs_release(&deps);
}

static void job_event(struct jctx *x, const char *type, const char *reason,
		      const char *msg, const char *arg)
{
	const struct api_obj *o =
		api_store_get(x->c->s, x->c->job_k, x->ns, x->name);

	if (o && serve_event(x->c->s, o->body, type, reason, "Sync",
			     CL_JOB_COMPONENT, x->now_us, msg, arg) == 0)
		x->c->writes++;
}

/* ---- counting ---- */

static void count_index(struct jctx *x, int64_t ix)
{
	if (ix >= 0 && ix < x->completions)
		x->done[ix] = 1;
}

static void count(struct jctx *x)
{
	int64_t new_succ = 0, failed = x->failed, last = INT64_MIN;
	struct cl_backoff *b;

	vec_foreach (&x->pods, p) {
		const struct api_obj *o;

		if (!p->tracked || (p->active && !p->deleting))
			continue;
		if (strcmp(p->phase, "Succeeded") == 0) {
			new_succ++;
			if (x->indexed)
				count_index(x, p->index);
		} else {
			x->failed++;
			last = p->finish_us > last ? p->finish_us : last;
		}
		o = api_store_get(x->c->s, x->c->pod_k, p->ref.ns, p->ref.name);
		if (o && strcmp(o->uid, p->ref.uid) == 0)
			(void)cl_release_finalizer(x->c, o, CL_JOB_TRACKING,
						   x->now_us);
		o = api_store_get(x->c->s, x->c->pod_k, p->ref.ns, p->ref.name);
		if (!o || strcmp(o->uid, p->ref.uid) != 0)
			p->deleting = false; /* gone */
		p->tracked = false;
	}
	if (!x->indexed)
		x->succeeded += new_succ;
	if (!new_succ && x->failed == failed)
		return;
	b = backoff_of(x->c, x->uid, true);
	if (new_succ) {
		b->failures = 0;
	} else {
		b->failures += x->failed - failed;
		b->last_us = last;
	}
}

/* ---- deleting pods ---- */

static int removal_cmp(const void *a, const void *b)
{
	const struct jpod *x = *(const struct jpod *const *)a;
	const struct jpod *y = *(const struct jpod *const *)b;
	int sx = x->scheduled * 4 + x->running * 2 + x->ready;
	int sy = y->scheduled * 4 + y->running * 2 + y->ready;

	if (sx != sy)
		return sx - sy;
	return -strcmp(x->ref.name, y->ref.name);
}

static void delete_pod(struct jctx *x, struct jpod *p, bool event)
{
	const struct api_obj *o =
		api_store_get(x->c->s, x->c->pod_k, p->ref.ns, p->ref.name);

	/* Not counted: the tracking finalizer goes with it. */
	if (!o || strcmp(o->uid, p->ref.uid) != 0 ||
	    cl_delete_dropping(x->c, o, CL_JOB_TRACKING, x->now_us) != 0)
		return;
	if (p->active)
		x->active--;
	if (p->ready)
		x->ready--;
	p->active = p->ready = false;
	if (event)
		job_event(x, "Normal", "SuccessfulDelete", "Deleted pod: %s",
			  p->ref.name);
}

static void delete_active(struct jctx *x, size_t max)
{
	vec_foreach (&x->pods, p) {
		if (max == 0)
			break;
		if (p->active) {
			delete_pod(x, p, true);
			max--;
		}
	}
}

/* Delete n active pods: Indexed duplicates and strays first, then the
 * least advanced. */
static void delete_excess(struct jctx *x, int64_t n)
{
	VEC(struct jpod *) cand = VEC_INIT;
	unsigned char *held = NULL;
	int64_t removed = 0;

	if (x->indexed) {
		held = xcalloc((size_t)x->completions + 1, 1);
		vec_foreach (&x->pods, p) {
			if (!p->active || removed >= MAX_CREATE_DELETE_PER_SYNC)
				continue;
			if (p->index < 0 || p->index >= x->completions ||
			    held[p->index] || x->done[p->index]) {
				delete_pod(x, p, true);
				removed++;
			} else {
				held[p->index] = 1;
			}
		}
		free(held);
		n -= removed;
	}
	vec_foreach (&x->pods, p)
		if (p->active)
			vec_push(&cand, p);
	if (cand.len)
		qsort(cand.items, cand.len, sizeof(*cand.items), removal_cmp);
	for (size_t i = 0;
	     i < cand.len && n > 0 && removed < MAX_CREATE_DELETE_PER_SYNC;
	     i++, n--, removed++)
		delete_pod(x, cand.items[i], true);
	vec_release(&cand);
}

/* ---- creating pods ---- */

static void add_label(json_t *labels, const char *k, const char *v)
{
	json_object_set_new(labels, k, json_string(v));
}

static void add_index_env(json_t *spec, const char *list)
{
	size_t i;
	json_t *ctr;

	json_array_foreach(json_object_get(spec, list), i, ctr)
	{
		json_t *env = cl_arr(ctr, "env"), *e = json_object();
		json_t *from = json_object(), *ref = json_object();

		json_object_set_new(
			ref, "fieldPath",
			json_string("metadata.annotations['" CL_JOB_INDEX
				    "']"));
		json_object_set_new(from, "fieldRef", ref);
		json_object_set_new(e, "name",
				    json_string("JOB_COMPLETION_INDEX"));
		json_object_set_new(e, "valueFrom", from);
		json_array_append_new(env, e);
	}
}

/* Kubernetes' QoS class from the containers' requests and limits. */
static const char *qos_class(const json_t *spec)
{
	bool any = false, guaranteed = true;
	size_t i;
	json_t *ctr;

	json_array_foreach(json_object_get(spec, "containers"), i, ctr)
	{
		const json_t *req = cl_get(ctr, "resources.requests");
		const json_t *lim = cl_get(ctr, "resources.limits");
		const char *need[2] = { "cpu", "memory" };

		if (json_object_size(req) || json_object_size(lim))
			any = true;
		for (size_t j = 0; j < 2; j++) {
			const char *l = json_string_value(
				json_object_get(lim, need[j]));
			const char *r = json_string_value(
				json_object_get(req, need[j]));

			if (!l || (r && strcmp(r, l) != 0))
				guaranteed = false;
		}
	}
	if (!any)
		return "BestEffort";
	return guaranteed ? "Guaranteed" : "Burstable";
}

static json_t *owner_ref(const struct jctx *x)
{
	json_t *r = json_object();

	json_object_set_new(r, "apiVersion", json_string("batch/v1"));
	json_object_set_new(r, "kind", json_string("Job"));
	json_object_set_new(r, "name", json_string(x->name));
	json_object_set_new(r, "uid", json_string(x->uid));
	json_object_set_new(r, "controller", json_true());
	json_object_set_new(r, "blockOwnerDeletion", json_true());
	return r;
}

static json_t *pod_from_template(struct jctx *x, int64_t ix)
{
	const json_t *tmpl = cl_get(x->job, "spec.template");
	json_t *pod = json_object(), *meta = json_object(), *spec, *labels,
	       *ann, *fins, *refs = json_array(), *dur;
	char num[24], host[320];
	bool tracked = false;
	size_t i;
	json_t *f;

	json_object_set_new(pod, "apiVersion", json_string("v1"));
	json_object_set_new(pod, "kind", json_string("Pod"));
	labels = json_deep_copy(cl_get(tmpl, "metadata.labels"));
	labels = json_is_object(labels) ? labels : json_object();
	ann = json_deep_copy(cl_get(tmpl, "metadata.annotations"));
	ann = json_is_object(ann) ? ann : json_object();
	/* The Job's runtime (echelon sim reads it on the Job) reaches its
	 * pods' kubelets unless the template sets its own. */
	dur = json_object_get(cl_get(x->job, "metadata.annotations"),
			      ANN_SIM_DURATION);
	if (json_is_string(dur) && !json_object_get(ann, ANN_SIM_DURATION))
		json_object_set_new(ann, ANN_SIM_DURATION, json_copy(dur));
	fins = json_deep_copy(cl_get(tmpl, "metadata.finalizers"));
	fins = json_is_array(fins) ? fins : json_array();
	spec = json_deep_copy(cl_get(tmpl, "spec"));
	spec = json_is_object(spec) ? spec : json_object();

	add_label(labels, "batch.kubernetes.io/controller-uid", x->uid);
	add_label(labels, "batch.kubernetes.io/job-name", x->name);
	add_label(labels, "controller-uid", x->uid);
	add_label(labels, "job-name", x->name);
	if (ix >= 0) {
		snprintf(num, sizeof(num), "%lld", (long long)ix);
		add_label(labels, CL_JOB_INDEX, num);
		json_object_set_new(ann, CL_JOB_INDEX, json_string(num));
		add_index_env(spec, "initContainers");
		add_index_env(spec, "containers");
		snprintf(host, sizeof(host), "%s-%s", x->name, num);
		json_object_set_new(spec, "hostname", json_string(host));
	}
	json_array_foreach(fins, i, f) tracked |=
		json_string_value(f) &&
		strcmp(json_string_value(f), CL_JOB_TRACKING) == 0;
	if (!tracked)
		json_array_append_new(fins, json_string(CL_JOB_TRACKING));
	json_array_append_new(refs, owner_ref(x));

	json_object_set_new(meta, "namespace", json_string(x->ns));
	json_object_set_new(meta, "labels", labels);
	if (json_object_size(ann))
		json_object_set_new(meta, "annotations", ann);
	else
		json_decref(ann);
	json_object_set_new(meta, "ownerReferences", refs);
	json_object_set_new(meta, "finalizers", fins);
	json_object_set_new(pod, "metadata", meta);
	json_object_set_new(pod, "spec", spec);
	json_object_set_new(pod, "status", json_object());
	json_object_set_new(cl_obj(pod, "status"), "phase",
			    json_string("Pending"));
	json_object_set_new(cl_obj(pod, "status"), "qosClass",
			    json_string(qos_class(spec)));
	return pod;
}

/* Kubernetes' names: "<job>-" cut to 58 bytes (the API server's name
 * generator); Indexed "<job>-<index>-", the job name cut so that the
 * whole fits in 58 (the Job controller's podGenerateNameWithIndex). */
static void set_name(struct jctx *x, json_t *pod, int64_t ix)
{
	char base[GENERATED_BASE_MAX + 32], tail[32], name[128], rnd[6];
	int keep;

	if (ix >= 0) {
		snprintf(tail, sizeof(tail), "-%lld-", (long long)ix);
		keep = GENERATED_BASE_MAX - (int)strlen(tail);
		snprintf(base, sizeof(base), "%.*s%s", keep, x->name, tail);
	} else {
		snprintf(base, sizeof(base), "%.*s-", GENERATED_BASE_MAX,
			 x->name);
		base[GENERATED_BASE_MAX] = '\0';
	}
	for (int i = 0; i < 5; i++)
		rnd[i] = name_alphabet[rng_below(&x->c->rng,
						 sizeof(name_alphabet) - 1)];
	rnd[5] = '\0';
	snprintf(name, sizeof(name), "%s%s", base, rnd);
	json_object_set_new(cl_obj(pod, "metadata"), "name", json_string(name));
	json_object_set_new(cl_obj(pod, "metadata"), "generateName",
			    json_string(base));
}

static bool create_pod(struct jctx *x, int64_t ix)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		json_t *pod = pod_from_template(x, ix);
		const struct api_obj *o;
		int r;

		set_name(x, pod, ix);
		r = cl_create(x->c, x->c->pod_k, pod, x->now_us, &o);
		if (r == -EEXIST)
			continue;
		if (r != 0)
			return false;
		x->active++;
		job_event(x, "Normal", "SuccessfulCreate", "Created pod: %s",
			  o->name);
		return true;
	}
	return false;
}

static void create_pods(struct jctx *x, int64_t n)
{
	unsigned char *held;

	if (n > MAX_CREATE_DELETE_PER_SYNC)
		n = MAX_CREATE_DELETE_PER_SYNC;
	if (!x->indexed) {
		while (n-- > 0 && create_pod(x, -1))
			;
		return;
	}
	held = xcalloc((size_t)x->completions + 1, 1);
	vec_foreach (&x->pods, p)
		if (p->active && p->index >= 0 && p->index < x->completions)
			held[p->index] = 1;
	for (int64_t i = 0; i < x->completions && n > 0; i++) {
		if (held[i] || x->done[i])
			continue;
		if (!create_pod(x, i))
			break;
		n--;
	}
	free(held);
}

/* ---- deciding ---- */

static void finish(struct jctx *x, json_t *status, bool ok, const char *reason,
		   const char *message)
{
	cl_set_cond(status, ok ? "SuccessCriteriaMet" : "FailureTarget", "True",
		    reason, message, x->now_us, CL_COND_JOB);
	cl_set_cond(status, ok ? "Complete" : "Failed", "True", reason, message,
		    x->now_us, CL_COND_JOB);
	if (ok) {
		json_object_set_new(status, "completionTime",
				    cl_jtime(x->now_us));
		job_event(x, "Normal", "Completed", "%s", "Job completed");
	} else {
		job_event(x, "Warning", reason, "%s", message);
	}
}

/* The failure the Job has reached, or NULL; arms the deadline timer. */
static const char *failure(struct jctx *x, const char **ret_msg)
{
	int64_t start = cl_parse_time(cl_str(x->job, "status.startTime"));

	if (x->failed > x->backoff_limit) {
		*ret_msg = "Job has reached the specified backoff limit";
		return "BackoffLimitExceeded";
	}
	if (x->deadline_s < 0 || x->suspend || start < 0)
		return NULL;
	if (x->now_us - start >= x->deadline_s * 1000000) {
		*ret_msg = "Job was active longer than specified deadline";
		return "DeadlineExceeded";
	}
	cl_arm(x->c, CL_T_JOB, start + x->deadline_s * 1000000, x->ns, x->name,
	       x->uid);
	return NULL;
}

static void manage(struct jctx *x)
{
	int64_t want;

	if (x->suspend) {
		delete_active(x, MAX_CREATE_DELETE_PER_SYNC);
		return;
	}
	if (!x->has_completions)
		want = x->succeeded > 0 ? x->active : x->parallelism;
	else
		want = x->completions - x->succeeded;
	want = want > x->parallelism ? x->parallelism : want;
	want = want < 0 ? 0 : want;
	if (x->active > want)
		delete_excess(x, x->active - want);
	else if (x->indexed)
		delete_excess(x, 0);
	if (x->active < want) {
		int64_t at = backoff_until(x->c, x->uid);

		if (at > x->now_us)
			cl_arm(x->c, CL_T_BACKOFF, at, x->ns, x->name, x->uid);
		else
			create_pods(x, want - x->active);
	}
}

static void suspend_condition(struct jctx *x, json_t *status)
{
	if (x->suspend) {
		if (cl_set_cond(status, "Suspended", "True", "JobSuspended",
				"Job suspended", x->now_us, CL_COND_JOB)) {
			json_object_del(status, "startTime");
			job_event(x, "Normal", "Suspended", "%s",
				  "Job suspended");
		}
	} else if (cl_cond(json_object_get(status, "conditions"),
			   "Suspended")) {
		if (cl_set_cond(status, "Suspended", "False", "JobResumed",
				"Job resumed", x->now_us, CL_COND_JOB)) {
			json_object_set_new(status, "startTime",
					    cl_jtime(x->now_us));
			job_event(x, "Normal", "Resumed", "%s", "Job resumed");
		}
	}
}

static void set_count(json_t *status, const char *key, int64_t v, bool keep)
{
	if (v > 0 || keep)
		json_object_set_new(status, key, json_integer(v));
	else
		json_object_del(status, key);
}

static void run(struct jctx *x)
{
	json_t *status = cl_obj(x->job, "status");
	const char *reason, *msg = NULL;

	x->succeeded = spec_int(x->job, "status.succeeded", 0);
	x->failed = spec_int(x->job, "status.failed", 0);
	if (x->indexed)
		read_done(x);
	gather(x);
	count(x);
	vec_foreach (&x->pods, p) {
		x->active += p->active;
		x->ready += p->ready;
		x->terminating += p->deleting && !p->active &&
				  strcmp(p->phase, "Succeeded") != 0 &&
				  strcmp(p->phase, "Failed") != 0;
	}
	if (x->indexed)
		write_done(x, status);
	if (!json_object_get(status, "startTime") && !x->suspend)
		json_object_set_new(status, "startTime", cl_jtime(x->now_us));

	reason = failure(x, &msg);
	if (reason) {
		vec_foreach (&x->pods, p)
			if (p->active) {
				delete_pod(x, p, false);
				x->failed++;
			}
		finish(x, status, false, reason, msg);
	} else {
		manage(x);
		if (x->has_completions
			    ? x->succeeded >= x->completions && x->active == 0
			    : x->succeeded > 0 && x->active == 0)
			finish(x, status, true, "CompletionsReached",
			       "Reached expected number of succeeded pods");
		else
			suspend_condition(x, status);
	}
	set_count(status, "active", x->active, false);
	set_count(status, "succeeded", x->succeeded, false);
	set_count(status, "failed", x->failed, false);
	set_count(status, "ready", x->ready, true);
	set_count(status, "terminating", x->terminating, true);
	if (!json_is_object(json_object_get(status, "uncountedTerminatedPods")))
		json_object_set_new(status, "uncountedTerminatedPods",
				    json_object());
}

/* A Job being deleted lets its finished and deleted pods go. */
static void release_all(struct jctx *x)
{
	gather(x);
	vec_foreach (&x->pods, p) {
		const struct api_obj *o;

		if (!p->tracked || p->active)
			continue;
		o = api_store_get(x->c->s, x->c->pod_k, p->ref.ns, p->ref.name);
		if (o && strcmp(o->uid, p->ref.uid) == 0)
			(void)cl_release_finalizer(x->c, o, CL_JOB_TRACKING,
						   x->now_us);
	}
}

static bool finished(const json_t *job)
{
	return cl_cond_true(job, "Complete") || cl_cond_true(job, "Failed");
}

void cl_jobs_reconcile(struct serve_cluster *c, const char *ns,
		       const char *name, int64_t now_us)
{
	const struct api_obj *o = api_store_get(c->s, c->job_k, ns, name);
	struct jctx x = { 0 };

	if (!o || finished(o->body))
		return;
	x.c = c;
	x.now_us = now_us;
	x.job = json_deep_copy(o->body);
	x.ns = o->ns;
	x.name = o->name;
	x.uid = o->uid;
	/* o's strings move with the next write: keep copies. */
	x.ns = xstrdup(x.ns);
	x.name = xstrdup(x.name);
	x.uid = xstrdup(x.uid);
	if (cl_deleting(o->body))
		release_all(&x);
	else if (read_spec(&x))
		run(&x);
	o = api_store_get(c->s, c->job_k, x.ns, x.name);
	if (o && strcmp(o->uid, x.uid) == 0) {
		json_t *job = json_deep_copy(o->body);

		json_object_set(job, "status",
				json_object_get(x.job, "status"));
		(void)cl_update(c, o, job, now_us);
	}
	vec_foreach (&x.pods, p) {
		free(p->ref.ns);
		free(p->ref.name);
		free(p->ref.uid);
	}
	vec_release(&x.pods);
	free(x.done);
	json_decref(x.job);
	free((char *)x.ns);
	free((char *)x.name);
	free((char *)x.uid);
}

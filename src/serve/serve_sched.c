// SPDX-License-Identifier: Apache-2.0
/*
 * The scheduler of the embedded cluster: one sync reads the store's
 * changes since its cursor, feeds them to the controller (src/ctl), runs
 * it, and then does what the controller's backend ops asked for (bind
 * whole gangs, suspend the Jobs of released ones), and finally writes
 * the status (serve_status). The backend ops only record: no store write
 * happens inside a controller call. See docs/internals/serve.md,
 * "Scheduling the embedded cluster".
 */
#include "serve/serve_sched.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "ctl/ctl_forecast.h"
#include "obs/obs_build.h"
#include "obs/obs_forecast.h"
#include "obs/obs_placement.h"
#include "serve/serve_event.h"
#include "serve/serve_sched_int.h"
#include "serve/serve_status.h"

#include "base/banned.h"

/* Loop turns of run-and-act in one sync: a bind failure evicts, an
 * eviction may admit another; each turn settles more. */
#define MAX_TURNS 16

static const struct {
	const char *api_version;
	const char *kind;
} kind_names[SK_COUNT] = {
	[SK_NAMESPACE] = { "v1", "Namespace" },
	[SK_NODE] = { "v1", "Node" },
	[SK_TOPOLOGY] = { "kueue.x-k8s.io/v1beta2", "Topology" },
	[SK_FLAVOR] = { "kueue.x-k8s.io/v1beta2", "ResourceFlavor" },
	[SK_CLUSTER_QUEUE] = { "kueue.x-k8s.io/v1beta2", "ClusterQueue" },
	[SK_COHORT] = { "kueue.x-k8s.io/v1beta2", "Cohort" },
	[SK_LOCAL_QUEUE] = { "kueue.x-k8s.io/v1beta2", "LocalQueue" },
	[SK_WPC] = { "kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass" },
	[SK_PRIORITY_CLASS] = { "scheduling.k8s.io/v1", "PriorityClass" },
	[SK_CONFIG] = { "echelon.dev/v1alpha1", "Configuration" },
	[SK_WORKLOAD] = { "kueue.x-k8s.io/v1beta2", "Workload" },
	[SK_JOB] = { "batch/v1", "Job" },
	[SK_POD_GROUP] = { "scheduling.x-k8s.io/v1alpha1", "PodGroup" },
	[SK_NATIVE_POD_GROUP] = { "scheduling.k8s.io/v1beta1", "PodGroup" },
	[SK_POD] = { "v1", "Pod" },
};

int serve_sched_kind(const struct serve_sched *x, const struct api_kind *k)
{
	if (!k)
		return -1;
	k = api_kind_storage(k);
	for (int i = 0; i < SK_COUNT; i++) {
		if (x->kinds[i] && x->kinds[i] == k)
			return i;
	}
	return -1;
}

struct swl *serve_sched_slot(struct serve_sched *x, uint32_t slot)
{
	while (x->wl.len <= slot)
		vec_push_zero(&x->wl);
	return &x->wl.items[slot];
}

void serve_sched_queue_act(struct serve_sched *x, uint32_t slot)
{
	vec_foreach (&x->acts, t) {
		if (*t == slot)
			return;
	}
	vec_push(&x->acts, slot);
}

int64_t serve_sched_find(const struct serve_sched *x, const char *ns,
			 const char *name)
{
	char *key = xasprintf("%s/%s", ns, name);
	int64_t v;
	bool ok = hmap_get_str(&x->by_name, key, &v);

	free(key);
	return ok ? v : -ENOENT;
}

void serve_sched_warn(struct serve_sched *x, const json_t *obj,
		      const char *reason, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (serve_event(x->s, obj, "Warning", reason, "Scheduling", "echelon",
			x->now_us, "%s", msg) == 0)
		x->writes++;
}

/* The controller's bind op: remember it; the sync binds whole gangs once
 * all their pods exist. */
static int be_bind(void *ctx, uint32_t wl, uint32_t pod, uint32_t node)
{
	struct serve_sched *x = ctx;
	struct swl *w = serve_sched_slot(x, wl);

	BUG_ON(!w->live || pod >= w->npods);
	w->target[pod] = node;
	w->want[pod] = 1;
	w->binding = true;
	serve_sched_queue_act(x, wl);
	return CTL_BIND_STARTED;
}

/* The controller's release op: the gang's pods must go (Kueue's stopJob
 * suspends its Job); the binds it asked for are void. */
static void be_release(void *ctx, uint32_t wl)
{
	struct serve_sched *x = ctx;
	struct swl *w = serve_sched_slot(x, wl);

	if (!w->live)
		return;
	for (uint32_t p = 0; p < w->npods; p++) {
		w->target[p] = CTL_NO_NODE;
		w->want[p] = 0;
	}
	w->binding = false;
	w->release = true;
	w->ungated = false;
	serve_sched_queue_act(x, wl);
}

static void be_event(void *ctx, const struct ctl_event *e)
{
	struct serve_sched *x = ctx;

	obs_metrics_event(x->obs, x->ctl, e);
}

static const struct ctl_backend_ops backend = { be_bind, be_release, be_event };

static void slot_release(struct swl *w)
{
	free(w->ns);
	free(w->name);
	json_decref(w->spec);
	free(w->job);
	free(w->pod);
	free(w->owner_uid);
	free(w->pod_group);
	free(w->target);
	free(w->want);
	for (uint32_t p = 0; w->uid_at && p < w->npods; p++) {
		free(w->uid_at[p]);
		free(w->name_at[p]);
	}
	free(w->uid_at);
	free(w->name_at);
	for (uint32_t i = 0; i < w->ndeleting; i++)
		free(w->deleting[i]);
	free(w->deleting);
	free(w->pending_msg);
	memset(w, 0, sizeof(*w));
}

void serve_sched_drop(struct serve_sched *x, uint32_t slot)
{
	struct swl *w = serve_sched_slot(x, slot);
	char *key;

	if (!w->live)
		return;
	if (w->record_until_us)
		serve_sched_await_release(x, slot);
	key = xasprintf("%s/%s", w->ns, w->name);
	hmap_del(&x->by_name, key, strlen(key));
	free(key);
	if (w->owner_uid)
		hmap_del(&x->by_owner, w->owner_uid, strlen(w->owner_uid));
	slot_release(w);
}

static void evs_clear(struct serve_sched *x)
{
	vec_foreach (&x->evs, e)
		json_decref(e->body);
	x->evs.len = 0;
}

static int collect(void *ctx, const struct api_event *ev)
{
	struct serve_sched *x = ctx;
	int k = serve_sched_kind(x, ev->kind);

	if (k < 0)
		return 0;
	vec_push(&x->evs, ((struct sev){ ev->type, (enum sk)k,
					 json_incref(api_event_body(ev)) }));
	return 0;
}

static int collect_obj(void *ctx, const struct api_obj *o)
{
	struct serve_sched *x = ctx;
	int k = serve_sched_kind(x, o->kind);

	if (k >= 0)
		vec_push(&x->evs, ((struct sev){ API_ADDED, (enum sk)k,
						 json_incref(o->body) }));
	return 0;
}

/* Everything in the store as ADDED, in an order where what a change
 * needs comes first: the config, Workloads (adopted), Jobs, pods. */
static void collect_all(struct serve_sched *x)
{
	static const enum sk order[] = { SK_WORKLOAD, SK_JOB, SK_POD_GROUP,
					 SK_NATIVE_POD_GROUP, SK_POD };

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (x->kinds[order[i]])
			(void)api_store_each(x->s, x->kinds[order[i]], NULL,
					     NULL, NULL, collect_obj, x);
	}
}

/* The clock the scheduler times its placements with (the daemon's
 * echelon_placement_duration_seconds). */
static int64_t mono_ns(void *ctx)
{
	struct timespec t;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void state_init(struct serve_sched *x)
{
	struct ctl_options o = { .wait_victims = true,
				 .track_changes = true,
				 .sched.clock_ns = mono_ns };

	cluster_init(&x->c);
	hmap_init(&x->by_name);
	hmap_init(&x->by_owner);
	hmap_init(&x->owned);
	hmap_init(&x->pods);
	hmap_init(&x->held_req);
	hmap_init(&x->restored_adm);
	hmap_init(&x->bad);
	hmap_init(&x->done);
	hmap_init(&x->specs);
	hmap_init(&x->refused);
	hmap_init(&x->early);
	hmap_init(&x->early_jobs);
	hmap_init(&x->new_gang_keys);
	hmap_init(&x->plain_keys);
	hmap_init(&x->pg_pods);
	x->cursor = api_store_rv(x->s);
	x->pending_cycles = 0;
	x->awaiting = 0;
	x->pending_seq = 0; /* a new controller: every slot */
	(void)serve_sched_load_config(x, &x->c);
	x->ctl = ctl_new(&x->c, &o, &backend, x);
	x->status = serve_status_new();
	serve_status_set_members(x->status, serve_sched_pg_first, x);
	serve_status_set_job_admission(x->status, !x->opt.workloads_remote);
	x->restoring = true;
	collect_all(x);
}

static void state_release(struct serve_sched *x)
{
	const struct hmap_slot *sl;

	ctl_forecast_free(x->forecast->f);
	x->forecast->f = NULL; /* of this controller */
	ctl_free(x->ctl);
	x->ctl = NULL;
	serve_status_free(x->status);
	x->status = NULL;
	vec_foreach (&x->wl, w)
		slot_release(w);
	vec_release(&x->wl);
	evs_clear(x);
	vec_release(&x->evs);
	hmap_release(&x->by_name);
	hmap_release(&x->by_owner);
	hmap_release(&x->owned);
	hmap_release(&x->pods);
	for (size_t it = 0; hmap_next(&x->held_req, &it, &sl);)
		free((void *)(intptr_t)sl->value);
	hmap_release(&x->held_req);
	hmap_release(&x->restored_adm);
	hmap_release(&x->bad);
	hmap_release(&x->done);
	hmap_release(&x->specs);
	hmap_release(&x->refused);
	hmap_release(&x->early);
	hmap_release(&x->early_jobs);
	vec_release(&x->acts);
	vec_foreach (&x->plain, p)
		free(*p);
	vec_release(&x->plain);
	hmap_release(&x->plain_keys);
	serve_sched_gang_release(x);
	cluster_release(&x->c);
}

void serve_sched_options_init(struct serve_sched_options *o)
{
	memset(o, 0, sizeof(*o));
	o->scheduler_name = "echelon";
	o->workloads_remote = true;
}

static void options_copy(struct serve_sched *x,
			 const struct serve_sched_options *o)
{
	free((char *)x->opt.scheduler_name);
	if (o)
		x->opt = *o;
	else
		serve_sched_options_init(&x->opt);
	x->opt.scheduler_name = xstrdup(
		x->opt.scheduler_name ? x->opt.scheduler_name : "echelon");
}

void serve_sched_set_options(struct serve_sched *x,
			     const struct serve_sched_options *o)
{
	options_copy(x, o);
	/* what is echelon's may have changed: start over from the store */
	state_release(x);
	state_init(x);
}

bool serve_sched_ours(const struct serve_sched *x, const json_t *spec)
{
	const char *name =
		json_string_value(json_object_get(spec, "schedulerName"));

	if (name && strcmp(name, x->opt.scheduler_name) == 0)
		return true;
	return !x->opt.kube &&
	       (!name || strcmp(name, "default-scheduler") == 0);
}

struct serve_sched *serve_sched_new(struct api_store *s,
				    const struct serve_sched_options *o)
{
	struct serve_sched *x = xcalloc(1, sizeof(*x));

	x->s = s;
	x->forecast = xcalloc(1, sizeof(*x->forecast));
	options_copy(x, o);
	x->metrics = metrics_new();
	x->obs = obs_metrics_new(x->metrics, NULL, NULL);
	obs_build_info(x->metrics);
	for (int i = 0; i < SK_COUNT; i++) {
		const struct api_kind *k = api_kind_of(
			kind_names[i].api_version, kind_names[i].kind);

		x->kinds[i] = k ? api_kind_storage(k) : NULL;
	}
	hmap_init(&x->prepared_bound);
	state_init(x);
	return x;
}

void serve_sched_free(struct serve_sched *x)
{
	if (!x)
		return;
	state_release(x);
	hmap_release(&x->prepared_bound);
	free((char *)x->opt.scheduler_name);
	obs_metrics_free(x->obs);
	metrics_free(x->metrics);
	free(x->forecast);
	free(x);
}

/* Whether changes of kind k are read before the others: the cluster's
 * config (PodGroups too: the controller's gangs find theirs there). */
static bool first_pass(enum sk k)
{
	return k < SK_CONFIG_COUNT || k == SK_POD_GROUP ||
	       k == SK_NATIVE_POD_GROUP;
}

/* Whether a ClusterQueue, LocalQueue or (scheduler-plugins) PodGroup
 * event changed what the config reads: not its status nor the admission
 * annotation, which echelon writes itself. Queue counts move with every
 * admission and a PodGroup's status with every bind; rebuilding the
 * controller for them costs a snapshot and restore of every workload and
 * a walk of every pod, at each turn (5 pods/s at 50,000 pods). */
bool serve_sched_spec_changed(struct serve_sched *x, const struct sev *e)
{
	const json_t *md = json_object_get(e->body, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	char *key = xasprintf("%d/%s/%s", (int)e->kind, ns ? ns : "",
			      name ? name : "");
	json_t *spec = json_copy(e->body), *meta = json_copy((json_t *)md);
	json_t *anns = json_deep_copy(json_object_get(md, "annotations"));
	char *text;
	int64_t old, h;
	bool changed;

	json_object_del(spec, "status");
	json_object_del(meta, "resourceVersion");
	json_object_del(meta, "managedFields");
	json_object_del(meta, "annotations");
	if (anns) { /* none and {} alike, as the annotation was added */
		json_object_del(anns, SERVE_ADMISSION_ANNOTATION);
		if (json_object_size(anns))
			json_object_set(meta, "annotations", anns);
		json_decref(anns);
	}
	json_object_set_new(spec, "metadata", meta);
	text = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
	h = (int64_t)hmap_hash(text ? text : "", text ? strlen(text) : 0);
	changed = e->type == API_DELETED ||
		  !hmap_get_str(&x->specs, key, &old) || old != h;
	if (e->type == API_DELETED)
		hmap_del(&x->specs, key, strlen(key));
	else
		hmap_put_str(&x->specs, key, h);
	free(text);
	json_decref(spec);
	free(key);
	return changed;
}

static void handle(struct serve_sched *x, const struct sev *e)
{
	if (e->kind < SK_CONFIG_COUNT) {
		bool changed = true;

		if (e->kind == SK_NODE)
			changed = serve_sched_node_changed(
				x, e->body, e->type == API_DELETED);
		else if (e->kind == SK_CLUSTER_QUEUE ||
			 e->kind == SK_LOCAL_QUEUE)
			changed = serve_sched_spec_changed(x, e);
		if (changed)
			x->config_dirty = true;
		return;
	}
	switch (e->kind) {
	case SK_WORKLOAD:
		serve_sched_workload(x, e);
		break;
	case SK_JOB:
		serve_sched_job(x, e);
		break;
	case SK_POD:
		serve_sched_pod(x, e);
		break;
	case SK_POD_GROUP:
	case SK_NATIVE_POD_GROUP:
		serve_sched_pod_group(x, e);
		break;
	default:
		break;
	}
}

void serve_sched_progress(struct serve_sched *x)
{
	if (x->opt.progress)
		x->opt.progress(x->opt.progress_ctx);
}

bool serve_sched_spent(const struct serve_sched *x)
{
	return x->opt.max_writes > 0 && x->writes >= x->opt.max_writes;
}

/* Do what the backend ops asked; true when the controller was told
 * something (it must run again). The ops may add slots meanwhile. Past
 * the write budget the slots not reached wait for the next sync. */
static bool act(struct serve_sched *x)
{
	bool fed = false;
	size_t j = 0;

	for (size_t i = 0; i < x->acts.len && !serve_sched_spent(x); i++)
		fed |= serve_sched_act(x, x->acts.items[i]) > 0;
	for (size_t i = 0; i < x->acts.len; i++) {
		struct swl *w = serve_sched_slot(x, x->acts.items[i]);

		/* what still waits: pods to appear or to go */
		if (w->live && (w->binding || w->release))
			x->acts.items[j++] = x->acts.items[i];
	}
	x->acts.len = j;
	return fed;
}

/* Read the store's changes since the cursor into the scheduler's state
 * (a new scheduler's first read: everything, adopting what the cluster
 * records): what a sync does before the controller runs. */
static void read_changes(struct serve_sched *x)
{
	int rc = api_store_events(x->s, x->cursor, collect, x);

	if (rc == -ERANGE) {
		/* The history no longer holds the cursor: start over from
		 * the store, as a restart does. */
		state_release(x);
		state_init(x);
	}
	x->cursor = api_store_rv(x->s);
	serve_sched_reconfigure(x); /* config from the first pass too */
	for (size_t i = 0; i < x->evs.len; i++) {
		if (first_pass(x->evs.items[i].kind))
			handle(x, &x->evs.items[i]);
	}
	serve_sched_reconfigure(x);
	for (size_t i = 0; i < x->evs.len; i++) {
		if (!first_pass(x->evs.items[i].kind))
			handle(x, &x->evs.items[i]);
		if (i % SERVE_SCHED_PROGRESS_EVENTS ==
		    SERVE_SCHED_PROGRESS_EVENTS - 1)
			serve_sched_progress(x);
	}
	evs_clear(x);
	serve_sched_gangs(x);
	serve_sched_awaited(x);
	serve_sched_reconfigure(x); /* plain pods' usage changed */
	serve_sched_progress(x);
	if (x->restoring) { /* read again at the next restore */
		hmap_release(&x->restored_adm);
		hmap_init(&x->restored_adm);
	}
	x->restoring = false;
}

static int note_bound(void *ctx, const struct api_obj *o)
{
	struct serve_sched *x = ctx;

	if (serve_str_at(o->body, "spec", "nodeName"))
		hmap_put_str(&x->prepared_bound, o->uid, 1);
	return 0;
}

int serve_sched_prepare(struct serve_sched *x, int64_t now_us)
{
	if (now_us > x->now_us)
		x->now_us = now_us;
	x->writes = 0;
	hmap_release(&x->prepared_bound);
	hmap_init(&x->prepared_bound);
	/* the pods as read: nothing runs between the read's start and this */
	if (x->kinds[SK_POD])
		(void)api_store_each(x->s, x->kinds[SK_POD], NULL, NULL, NULL,
				     note_bound, x);
	read_changes(x);
	return x->writes;
}

/*
 * A change that may be another scheduler's decision (a leader's late
 * write): a Workload or PodGroup of either kind changed, a Job changed
 * (one created is not), a pod of ours bound that was not when it read.
 * A pod created unbound, a bound one's status (its kubelet's), a pod
 * deleted, another scheduler's pod are what a running scheduler reads.
 */
static int decision(void *ctx, const struct api_event *ev)
{
	const struct serve_sched *x = ctx;
	int k = serve_sched_kind(x, ev->kind);
	const json_t *body;
	const char *uid;

	if (k < SK_CONFIG_COUNT)
		return 0;
	if (k == SK_JOB)
		return ev->type != API_ADDED;
	if (k != SK_POD)
		return 1;
	if (ev->type == API_DELETED)
		return 0;
	body = api_event_body(ev);
	uid = serve_str_at(body, "metadata", "uid");
	return serve_sched_ours(x, json_object_get(body, "spec")) &&
	       serve_str_at(body, "spec", "nodeName") &&
	       !(uid && hmap_get_str(&x->prepared_bound, uid, NULL));
}

bool serve_sched_state_unread(const struct serve_sched *x)
{
	return api_store_events(x->s, x->cursor, decision, (void *)x) != 0;
}

int serve_sched_sync(struct serve_sched *x, int64_t now_us)
{
	if (now_us > x->now_us)
		x->now_us = now_us;
	x->writes = 0;
	if (x->prepared_bound.len) { /* leading now */
		hmap_release(&x->prepared_bound);
		hmap_init(&x->prepared_bound);
	}
	read_changes(x);
	for (int turn = 0; turn < MAX_TURNS; turn++) {
		struct timespec t0, t1;

		/* the daemon's own measure, for the attempt durations */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ctl_run(x->ctl, x->now_us);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		obs_metrics_cycles(x->obs, x->ctl,
				   (double)(t1.tv_sec - t0.tv_sec) +
					   (double)(t1.tv_nsec - t0.tv_nsec) /
						   1e9);
		if (!act(x) || serve_sched_spent(x))
			break;
		serve_sched_progress(x);
	}
	serve_sched_plain(x);
	serve_sched_pending(x);
	serve_sched_progress(x);
	x->writes += serve_status_update(x->status, x->s, x->ctl, x->now_us);
	return x->writes;
}

int64_t serve_sched_next_us(const struct serve_sched *x)
{
	int64_t a = ctl_next_wakeup_us(x->ctl, x->now_us);
	int64_t b = serve_sched_awaited_us(x);

	return a < b ? a : b;
}

const struct ctl *serve_sched_ctl(const struct serve_sched *x)
{
	return x->ctl;
}

int serve_sched_extra(void *ctx, const struct api_req *r, int64_t now_us,
		      struct api_resp *resp)
{
	struct serve_sched *x = ctx;
	int rc = serve_sched_explain(x, r, now_us, resp);

	if (rc != -ENOENT)
		return rc;
	if (!serve_status_is_visibility(r->path))
		return -ENOENT;
	return serve_status_pending_estimated(
		x->ctl, NULL, serve_sched_forecast(x), r, now_us, resp);
}

void serve_sched_metrics(const struct serve_sched *x, struct strbuf *out)
{
	struct ctl_stats st = ctl_stats(x->ctl);
	struct throughput_config tc;

	strbuf_addstr(out, "# HELP echelon_scheduler_binds_total Pods the "
			   "scheduler asked to bind.\n"
			   "# TYPE echelon_scheduler_binds_total counter\n");
	strbuf_addf(out, "echelon_scheduler_binds_total %llu\n",
		    (unsigned long long)st.binds);
	strbuf_addstr(out, "# HELP echelon_scheduler_bind_failures_total "
			   "Binds that failed.\n"
			   "# TYPE echelon_scheduler_bind_failures_total "
			   "counter\n");
	strbuf_addf(out, "echelon_scheduler_bind_failures_total %llu\n",
		    (unsigned long long)st.bind_failures);
	strbuf_addstr(out, "# HELP echelon_scheduler_cycles_total Scheduler "
			   "cycles run.\n"
			   "# TYPE echelon_scheduler_cycles_total counter\n");
	strbuf_addf(out, "echelon_scheduler_cycles_total %llu\n",
		    (unsigned long long)st.cycles);
	obs_metrics_refresh(x->obs, x->ctl);
	metrics_write(x->metrics, out);
	throughput_config_init(&tc);
	obs_placement_metrics(ctl_sched(x->ctl), ctl_cluster(x->ctl), &tc, out);
	obs_forecast_metrics(x->ctl, serve_sched_forecast(x), x->now_us, out);
}

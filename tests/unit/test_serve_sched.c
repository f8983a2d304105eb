// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the embedded cluster's scheduler over a store, without HTTP:
 * quickstart-like config objects (a topology of 2 racks of 4 GPU nodes,
 * one ClusterQueue of 32 GPUs), queued Jobs through Kueue's webhook, and
 * a small Job controller and kubelet of the test's own (pods from the
 * template with the completion index; a suspended Job's pods deleted;
 * bound pods Running and Ready; pods on a NotReady node Failed). Checks
 * what Kubernetes clients would see: suspend, the Workload object, whole
 * gangs bound, preemption, node failure, restart from a copy of the
 * store, and a seeded random run's invariants.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/alloc.h"
#include "base/rng.h"
#include "ctl/ctl.h"
#include "sched/sched.h"
#include "serve/serve_cluster.h"
#include "serve/serve_sched.h"
#include "serve/serve_sched_int.h" /* the usage check: its cluster */
#include "testutil.h"

#define T0 1796130000000000LL /* 2026-12-01T13:00:00Z */
#define S  1000000LL

static const struct api_kind *kind(const char *av, const char *k)
{
	const struct api_kind *x = api_kind_of(av, k);

	assert_non_null(x);
	return api_kind_storage(x);
}

#define K_JOB	kind("batch/v1", "Job")
#define K_POD	kind("v1", "Pod")
#define K_NODE	kind("v1", "Node")
#define K_WL	kind("kueue.x-k8s.io/v1beta2", "Workload")
#define K_EVENT kind("v1", "Event")

/* Create obj (JSON text, printf-style) as the API would: the mutating
 * hook first, with ctx x (NULL: the embedded cluster's). */
static void vput(struct api_store *s, struct serve_sched *x, int64_t now,
		 const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static void vput(struct api_store *s, struct serve_sched *x, int64_t now,
		 const char *fmt, va_list ap)
{
	const struct api_kind *k;
	char buf[4096];
	struct errbuf eb;
	json_t *o;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	o = testutil_json(buf);
	k = api_kind_storage(
		api_kind_of(json_string_value(json_object_get(o, "apiVersion")),
			    json_string_value(json_object_get(o, "kind"))));
	assert_non_null(k);
	errbuf_clear(&eb);
	assert_int_equal(serve_sched_mutate(x, k, o, NULL, &eb), 0);
	assert_int_equal(api_store_create(s, k, o, now, NULL), 0);
}

static void put(struct api_store *s, int64_t now, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(struct api_store *s, int64_t now, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(s, NULL, now, fmt, ap);
	va_end(ap);
}

/* put() through scheduler x's own hook (its options apply). */
static void put_to(struct serve_sched *x, struct api_store *s, int64_t now,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put_to(struct serve_sched *x, struct api_store *s, int64_t now,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vput(s, x, now, fmt, ap);
	va_end(ap);
}

static void node(struct api_store *s, const char *name, const char *rack)
{
	put(s, T0,
	    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	    "\"%s\",\"labels\":{\"node-group\":\"tas-gpu\",\"topology-block\":"
	    "\"b0\",\"topology-rack\":\"%s\",\"kubernetes.io/hostname\":\"%s\""
	    "}},\"status\":{\"allocatable\":{\"cpu\":\"96\",\"memory\":"
	    "\"1536Gi\",\"pods\":\"110\",\"nvidia.com/gpu\":\"8\"},"
	    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
	    name, rack, name);
}

/* The quickstart's shape, smaller: 2 racks x 4 nodes x 8 GPUs; one
 * ClusterQueue of 32 GPUs that preempts lower priorities. */
static struct api_store *quickstart_with(const struct api_store_options *o)
{
	struct api_store *s = api_store_new(o);
	char name[32];

	for (int r = 0; r < 2; r++) {
		for (int h = 0; h < 4; h++) {
			char rack[8];

			snprintf(name, sizeof(name), "gpu-r%d-h%d", r, h);
			snprintf(rack, sizeof(rack), "r%d", r);
			node(s, name, rack);
		}
	}
	put(s, T0,
	    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":"
	    "{\"name\":\"team-a\"}}");
	put(s, T0,
	    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Topology\","
	    "\"metadata\":{\"name\":\"gpu-topology\"},\"spec\":{\"levels\":["
	    "{\"nodeLabel\":\"topology-block\"},{\"nodeLabel\":"
	    "\"topology-rack\"},{\"nodeLabel\":\"kubernetes.io/hostname\"}]}}");
	put(s, T0,
	    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
	    "\"ResourceFlavor\",\"metadata\":{\"name\":\"tas-gpu\"},\"spec\":"
	    "{\"nodeLabels\":{\"node-group\":\"tas-gpu\"},\"topologyName\":"
	    "\"gpu-topology\"}}");
	put(s, T0,
	    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
	    "\"ClusterQueue\",\"metadata\":{\"name\":\"team-a\"},\"spec\":{"
	    "\"namespaceSelector\":{},\"preemption\":{\"withinClusterQueue\":"
	    "\"LowerPriority\"},\"resourceGroups\":[{\"coveredResources\":["
	    "\"cpu\",\"memory\",\"nvidia.com/gpu\"],\"flavors\":[{\"name\":"
	    "\"tas-gpu\",\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":"
	    "\"384\"},{\"name\":\"memory\",\"nominalQuota\":\"6Ti\"},{\"name\":"
	    "\"nvidia.com/gpu\",\"nominalQuota\":\"32\"}]}]}]}}");
	put(s, T0,
	    "{\"apiVersion\":\"kueue.x-k8s.io/"
	    "v1beta2\",\"kind\":\"LocalQueue\","
	    "\"metadata\":{\"name\":\"training\",\"namespace\":\"team-a\"},"
	    "\"spec\":{\"clusterQueue\":\"team-a\"}}");
	put(s, T0,
	    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
	    "\"WorkloadPriorityClass\",\"metadata\":{\"name\":\"production\"},"
	    "\"value\":1000}");
	put(s, T0,
	    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
	    "\"WorkloadPriorityClass\",\"metadata\":{\"name\":\"research\"},"
	    "\"value\":100}");
	return s;
}

static struct api_store *quickstart(void)
{
	return quickstart_with(NULL);
}

/* A queued Indexed Job of n pods of 8 GPUs, in one rack. */
static void job(struct api_store *s, int64_t now, const char *name, int n,
		const char *prio)
{
	put(s, now,
	    "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"
	    "\"name\":\"%s\",\"namespace\":\"team-a\",\"labels\":{"
	    "\"kueue.x-k8s.io/queue-name\":\"training\","
	    "\"kueue.x-k8s.io/priority-class\":\"%s\"}},\"spec\":{"
	    "\"parallelism\":%d,\"completions\":%d,\"completionMode\":"
	    "\"Indexed\",\"template\":{\"metadata\":{\"annotations\":{"
	    "\"kueue.x-k8s.io/podset-required-topology\":\"topology-rack\"}},"
	    "\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":"
	    "\"t\",\"image\":\"trainer\",\"resources\":{\"requests\":{"
	    "\"cpu\":\"8\",\"nvidia.com/gpu\":\"8\"}}}]}}}}",
	    name, prio, n, n);
}

/* Objects of kind k, as new references, for writing after the walk. */
struct objs {
	json_t *items[512];
	size_t n;
};

static int grab(void *ctx, const struct api_obj *o)
{
	struct objs *l = ctx;

	assert_true(l->n < ARRAY_SIZE(l->items));
	l->items[l->n++] = json_incref(o->body);
	return 0;
}

static void objs_of(struct api_store *s, const struct api_kind *k,
		    struct objs *l)
{
	l->n = 0;
	assert_int_equal(api_store_each(s, k, NULL, NULL, NULL, grab, l), 0);
}

static void objs_release(struct objs *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_decref(l->items[i]);
	l->n = 0;
}

static const char *sget(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

static bool has_cond(const json_t *o, const char *type)
{
	const json_t *c;
	size_t i;

	json_array_foreach(
		json_object_get(json_object_get(o, "status"), "conditions"), i,
		c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "type")),
			    type) &&
		    !strcmp(json_string_value(json_object_get(c, "status")),
			    "True"))
			return true;
	}
	return false;
}

static const char *owner_uid(const json_t *pod)
{
	return json_string_value(json_object_get(
		json_array_get(json_object_get(json_object_get(pod, "metadata"),
					       "ownerReferences"),
			       0),
		"uid"));
}

/* Succeeded, Failed, or being deleted: no longer one of its Job's. */
static bool terminal(const json_t *pod)
{
	const char *ph = sget(pod, "status", "phase");

	return (ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"))) ||
	       json_object_get(json_object_get(pod, "metadata"),
			       "deletionTimestamp");
}

static void update(struct api_store *s, const struct api_kind *k, json_t *o,
		   int64_t now)
{
	assert_int_equal(api_store_update(s, k, o, 0, now, NULL), 0);
}

static bool node_ready(struct api_store *s, const char *name)
{
	const struct api_obj *n = api_store_get(s, K_NODE, NULL, name);
	const json_t *c;
	size_t i;

	if (!n)
		return false;
	json_array_foreach(json_object_get(json_object_get(n->body, "status"),
					   "conditions"),
			   i, c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "type")),
			    "Ready"))
			return !strcmp(
				json_string_value(json_object_get(c, "status")),
				"True");
	}
	return true;
}

/* The store, the embedded cluster's controllers and the scheduler, on
 * one clock. */
struct env {
	struct api_store *s;
	struct serve_cluster *c;
	struct serve_sched *x;
	int64_t now;
};

/* The scheduler (options so, NULL: defaults) and the cluster over s. */
static void env_start_opts(struct env *e, struct api_store *s, int64_t now,
			   const struct serve_sched_options *so)
{
	struct serve_cluster_options o = { .startup_us = S, .seed = 1 };

	e->s = s;
	e->c = serve_cluster_new(s, &o);
	e->x = serve_sched_new(s, so);
	e->now = now;
}

static void env_start(struct env *e, struct api_store *s, int64_t now)
{
	env_start_opts(e, s, now, NULL);
}

static void env_stop(struct env *e)
{
	serve_sched_free(e->x);
	serve_cluster_free(e->c);
	api_store_free(e->s);
}

/* Both sides at e->now until nothing writes. */
static void settle(struct env *e)
{
	for (int i = 0; i < 200; i++) {
		int w = serve_cluster_sync(e->c, e->now);

		w += serve_sched_sync(e->x, e->now);
		if (!w)
			return;
	}
	fail_msg("the scheduler and the cluster do not settle");
}

/* Run everything due until now + dt, settling at each deadline. */
static void advance(struct env *e, int64_t dt)
{
	int64_t end = e->now + dt;

	settle(e);
	for (int i = 0; i < 1000; i++) {
		int64_t a = serve_cluster_next_us(e->c);
		int64_t b = serve_sched_next_us(e->x);
		int64_t next = a < b ? a : b;

		if (next > end)
			break;
		if (next > e->now)
			e->now = next;
		settle(e);
	}
	e->now = end;
	settle(e);
}

/* The Workload the scheduler made for Job name (NULL: none), and how
 * many there are. */
static const json_t *workload_of(struct api_store *s, const char *jobname,
				 int *count)
{
	const struct api_obj *jb = api_store_get(s, K_JOB, "team-a", jobname);
	struct objs wls;
	const json_t *found = NULL;

	*count = 0;
	objs_of(s, K_WL, &wls);
	for (size_t i = 0; jb && i < wls.n; i++) {
		if (owner_uid(wls.items[i]) &&
		    !strcmp(owner_uid(wls.items[i]), jb->uid)) {
			found = api_store_get(
					s, K_WL, "team-a",
					sget(wls.items[i], "metadata", "name"))
					->body;
			(*count)++;
		}
	}
	objs_release(&wls);
	return found;
}

/* The reason of the Finished condition of Workload team-a/name (NULL:
 * none, or not finished). */
static const char *finished_reason(struct api_store *s, const char *name)
{
	const struct api_obj *o = api_store_get(s, K_WL, "team-a", name);
	const json_t *c;
	size_t k;

	json_array_foreach(
		json_object_get(json_object_get(o ? o->body : NULL, "status"),
				"conditions"),
		k, c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "type")),
			    "Finished"))
			return json_string_value(json_object_get(c, "reason"));
	}
	return NULL;
}

/* The name of the Workload of Job jobname (it must have one). */
static const char *workload_name(struct api_store *s, const char *jobname)
{
	int n;
	const json_t *wl = workload_of(s, jobname, &n);

	assert_int_equal(n, 1);
	return sget(wl, "metadata", "name");
}

/* The Job's live pods: how many, how many bound, and on how many racks. */
struct gang_view {
	int pods, bound, racks;
	bool on_not_ready;
};

static struct gang_view gang_of(struct api_store *s, const char *jobname)
{
	const struct api_obj *jb = api_store_get(s, K_JOB, "team-a", jobname);
	struct gang_view g = { 0 };
	bool rack[2] = { false, false };
	struct objs pods;

	objs_of(s, K_POD, &pods);
	for (size_t i = 0; jb && i < pods.n; i++) {
		const json_t *p = pods.items[i];
		const char *nn = sget(p, "spec", "nodeName");

		if (strcmp(owner_uid(p) ? owner_uid(p) : "", jb->uid) ||
		    terminal(p))
			continue;
		g.pods++;
		if (!nn)
			continue;
		g.bound++;
		rack[nn[5] - '0'] = true;
		g.on_not_ready |= !node_ready(s, nn);
	}
	g.racks = rack[0] + rack[1];
	objs_release(&pods);
	return g;
}

/* The node of the first live pod of Job name, or NULL. */
static const char *node_of_pod_of(struct api_store *s, const char *jobname)
{
	const struct api_obj *jb = api_store_get(s, K_JOB, "team-a", jobname);
	const char *found = NULL;
	struct objs pods;

	objs_of(s, K_POD, &pods);
	for (size_t i = 0; jb && i < pods.n && !found; i++) {
		const json_t *p = pods.items[i];

		if (!strcmp(owner_uid(p) ? owner_uid(p) : "", jb->uid) &&
		    !terminal(p) && sget(p, "spec", "nodeName"))
			found = sget(api_store_get(s, K_POD, "team-a",
						   sget(p, "metadata", "name"))
					     ->body,
				     "spec", "nodeName");
	}
	objs_release(&pods);
	return found;
}

static bool suspended(struct api_store *s, const char *jobname)
{
	const struct api_obj *jb = api_store_get(s, K_JOB, "team-a", jobname);

	return json_is_true(
		json_object_get(json_object_get(jb->body, "spec"), "suspend"));
}

/* Pods of the controller's admitted workloads, and its quota usage of
 * cpu in the one ClusterQueue (8 cpus a pod), in pods. */
static int admitted_pods(struct serve_sched *x)
{
	const struct ctl *c = serve_sched_ctl(x);
	const struct sched *sc = ctl_sched(c);
	int n = 0;

	for (uint32_t i = 0; i < 4096; i++) {
		const struct sched_admission *a;

		if (!ctl_handle(c, i) ||
		    sched_wl_state(sc, i) != SCHED_WL_ADMITTED)
			continue;
		a = sched_wl_admission(sc, i);
		for (size_t p = 0; p < a->npodsets; p++)
			n += a->ps[p].count;
	}
	return n;
}

static int usage_pods(struct serve_sched *x)
{
	return (int)(sched_cq_usage(ctl_sched(serve_sched_ctl(x)), 0, 0,
				    RESOURCE_CPU) /
		     8000);
}

/* Finish a Job: its pods Succeeded (the Job controller completes it). */
static void complete(struct env *e, const char *jobname)
{
	const struct api_obj *jb =
		api_store_get(e->s, K_JOB, "team-a", jobname);
	char *uid = xstrdup(jb->uid);
	struct objs pods;
	json_t *o;

	objs_of(e->s, K_POD, &pods);
	for (size_t i = 0; i < pods.n; i++) {
		if (strcmp(owner_uid(pods.items[i]) ? owner_uid(pods.items[i])
						    : "",
			   uid) ||
		    terminal(pods.items[i]))
			continue;
		o = json_deep_copy(pods.items[i]);
		json_object_set_new(json_object_get(o, "status"), "phase",
				    json_string("Succeeded"));
		update(e->s, K_POD, o, e->now);
	}
	objs_release(&pods);
	free(uid);
}

static bool job_done(struct api_store *s, const char *jobname)
{
	const struct api_obj *jb = api_store_get(s, K_JOB, "team-a", jobname);

	return jb &&
	       (has_cond(jb->body, "Complete") || has_cond(jb->body, "Failed"));
}

static void test_job_lifecycle(void **state)
{
	struct env e;
	const struct api_obj *jb;
	const json_t *wl, *ref;
	struct gang_view g;
	const char *prefix = "job-llama-";
	int n;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, T0, "llama", 4, "production");
	/* Kueue's webhook suspended it at create */
	assert_true(suspended(e.s, "llama"));
	advance(&e, S / 2);
	jb = api_store_get(e.s, K_JOB, "team-a", "llama");
	wl = workload_of(e.s, "llama", &n);
	assert_int_equal(n, 1);
	/* named as Kueue names it, owned by the Job */
	assert_memory_equal(sget(wl, "metadata", "name"), prefix,
			    strlen(prefix));
	assert_int_equal(strlen(sget(wl, "metadata", "name")),
			 strlen(prefix) + 5);
	ref = json_array_get(json_object_get(json_object_get(wl, "metadata"),
					     "ownerReferences"),
			     0);
	assert_true(json_is_true(json_object_get(ref, "controller")));
	assert_string_equal(json_string_value(json_object_get(ref, "uid")),
			    jb->uid);
	assert_string_equal(sget(json_object_get(wl, "metadata"), "labels",
				 "kueue.x-k8s.io/job-uid"),
			    jb->uid);
	assert_string_equal(sget(wl, "spec", "queueName"), "training");
	assert_string_equal(
		sget(json_object_get(wl, "spec"), "priorityClassRef", "name"),
		"production");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(wl, "spec"), "priority")),
			 1000);
	assert_int_equal(
		json_integer_value(json_object_get(
			json_array_get(
				json_object_get(json_object_get(wl, "spec"),
						"podSets"),
				0),
			"count")),
		4);
	/* admitted, unsuspended, its pods bound at once in one rack */
	assert_false(suspended(e.s, "llama"));
	g = gang_of(e.s, "llama");
	assert_int_equal(g.pods, 4);
	assert_int_equal(g.bound, 4);
	assert_int_equal(g.racks, 1);
	assert_int_equal(admitted_pods(e.x), 4);
	assert_int_equal(usage_pods(e.x), 4);
	/* Ready after the start-up delay; then done: the workload finishes
	 * and its quota is free */
	advance(&e, 2 * S);
	complete(&e, "llama");
	advance(&e, S);
	assert_true(job_done(e.s, "llama"));
	assert_string_equal(finished_reason(e.s, workload_name(e.s, "llama")),
			    "Succeeded");
	assert_int_equal(admitted_pods(e.x), 0);
	assert_int_equal(usage_pods(e.x), 0);
	env_stop(&e);
}

/* How many Events about object name have a message starting with
 * prefix. */
static int events_about(struct api_store *s, const char *name,
			const char *prefix)
{
	struct objs evs;
	int found = 0;

	objs_of(s, K_EVENT, &evs);
	for (size_t i = 0; i < evs.n; i++) {
		const char *about =
			sget(evs.items[i], "involvedObject", "name");
		const char *msg = json_string_value(
			json_object_get(evs.items[i], "message"));

		if (!msg)
			msg = json_string_value(
				json_object_get(evs.items[i], "note"));
		if (!about)
			about = sget(evs.items[i], "regarding", "name");
		if (about && msg && !strcmp(about, name) &&
		    !strncmp(msg, prefix, strlen(prefix)))
			found++;
	}
	objs_release(&evs);
	return found;
}

static bool event_about(struct api_store *s, const char *name,
			const char *prefix)
{
	return events_about(s, name, prefix) > 0;
}

static void test_quota_competition(void **state)
{
	struct env e;
	struct gang_view a, b;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "first", 4, "research");
	advance(&e, S);
	job(e.s, e.now, "second", 4, "research");
	advance(&e, S);
	a = gang_of(e.s, "first");
	b = gang_of(e.s, "second");
	assert_int_equal(a.bound, 4);
	assert_int_equal(b.pods, 0); /* still suspended: no pods */
	assert_true(suspended(e.s, "second"));
	assert_int_equal(usage_pods(e.x), 4);
	/* it waits for quota, which is not "Unschedulable" */
	assert_true(event_about(e.s, "second", "WaitingForQuota"));
	assert_false(event_about(e.s, "second", "Unschedulable"));
	/* the first finishes: the second runs */
	complete(&e, "first");
	advance(&e, S);
	b = gang_of(e.s, "second");
	assert_int_equal(b.bound, 4);
	assert_int_equal(usage_pods(e.x), 4);
	env_stop(&e);
}

static uint64_t reconfigures(const struct env *e)
{
	return ctl_stats(serve_sched_ctl(e->x)).reconfigures;
}

/* The queues' status moves with every admission; the controller is built
 * again only when a queue's spec or metadata changes. */
static void test_queue_status_no_rebuild(void **state)
{
	const struct api_kind *cqk =
		kind("kueue.x-k8s.io/v1beta2", "ClusterQueue");
	const struct api_obj *cq;
	struct env e;
	uint64_t rv, n;
	json_t *body;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "first", 2, "research");
	advance(&e, S);
	n = reconfigures(&e);
	rv = api_store_get(e.s, cqk, "", "team-a")->rv;
	job(e.s, e.now, "second", 2, "research");
	advance(&e, S);
	assert_int_equal(gang_of(e.s, "second").bound, 2);
	/* its status was written (counts, usage), the controller kept */
	cq = api_store_get(e.s, cqk, "", "team-a");
	assert_true(cq->rv > rv);
	assert_int_equal(reconfigures(&e), n);
	/* a label is a change of the queue: built again, once */
	body = json_deep_copy(cq->body);
	json_object_set_new(json_object_get(body, "metadata"), "labels",
			    json_pack("{s:s}", "team", "a"));
	assert_int_equal(api_store_update(e.s, cqk, body, 0, e.now, NULL), 0);
	advance(&e, S);
	assert_int_equal(reconfigures(&e), n + 1);
	env_stop(&e);
}

static void test_preemption(void **state)
{
	struct env e;
	struct gang_view low, high;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "low", 4, "research");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "low").bound, 4);
	job(e.s, e.now, "high", 4, "production");
	advance(&e, S);
	/* the victim's Job is suspended (Kueue's stopJob), its pods gone;
	 * then the preemptor is admitted and bound whole */
	assert_true(suspended(e.s, "low"));
	low = gang_of(e.s, "low");
	high = gang_of(e.s, "high");
	assert_int_equal(low.pods, 0);
	assert_false(suspended(e.s, "high"));
	assert_int_equal(high.bound, 4);
	assert_int_equal(admitted_pods(e.x), 4);
	assert_int_equal(usage_pods(e.x), 4);
	env_stop(&e);
}

static void set_node_ready(struct env *e, const char *name, bool ready)
{
	json_t *o =
		json_deep_copy(api_store_get(e->s, K_NODE, NULL, name)->body);
	json_t *conds =
		json_object_get(json_object_get(o, "status"), "conditions");
	json_t *c;
	size_t i;

	json_array_foreach(conds, i, c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "type")),
			    "Ready"))
			json_object_set_new(
				c, "status",
				json_string(ready ? "True" : "False"));
	}
	update(e->s, K_NODE, o, e->now);
}

static void test_node_not_ready(void **state)
{
	struct env e;
	struct objs pods;
	struct gang_view g;
	char victim[32] = "";

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "llama", 2, "production");
	advance(&e, 2 * S);
	objs_of(e.s, K_POD, &pods);
	for (size_t i = 0; i < pods.n; i++) {
		if (sget(pods.items[i], "spec", "nodeName"))
			snprintf(victim, sizeof(victim), "%s",
				 sget(pods.items[i], "spec", "nodeName"));
	}
	objs_release(&pods);
	assert_true(victim[0]);
	set_node_ready(&e, victim, false);
	/* the Job controller replaces the failed pod after its 10 s
	 * back-off; the controller keeps its new node meanwhile */
	advance(&e, 15 * S);
	/* re-placed in its rack, or evicted whole: never partly bound, and
	 * nothing runs on the NotReady node */
	g = gang_of(e.s, "llama");
	assert_false(g.on_not_ready);
	assert_true(g.bound == 0 || g.bound == 2);
	assert_int_equal(g.bound, 2);
	assert_int_equal(g.racks, 1);
	assert_int_equal(usage_pods(e.x), admitted_pods(e.x));
	env_stop(&e);
}

/* A pod of team-a copied unbound and not started, as when its binding
 * never reached the cluster (NULL: none); one copied bound to another
 * node (NULL: none). */
static const char *unbound_on_copy;
static const char *moved_on_copy, *moved_to;

static int copy_obj(void *ctx, const struct api_obj *o)
{
	struct api_store *to = ctx;
	json_t *body = json_deep_copy(o->body);

	if (unbound_on_copy && o->kind == K_POD &&
	    strcmp(o->name, unbound_on_copy) == 0) {
		json_object_del(json_object_get(body, "spec"), "nodeName");
		json_object_set_new(body, "status",
				    json_pack("{ss}", "phase", "Pending"));
	}
	if (moved_on_copy && o->kind == K_POD &&
	    strcmp(o->name, moved_on_copy) == 0)
		json_object_set_new(json_object_get(body, "spec"), "nodeName",
				    json_string(moved_to));
	assert_int_equal(api_store_load(to, o->kind, body), 0);
	return 0;
}

/* The store as a database would give it back after a restart, its
 * Workloads copied by copy_wl. */
static struct api_store *copy_store_as(struct api_store *s, api_obj_fn copy_wl)
{
	struct api_store *c = api_store_new(NULL);

	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);

		if (api_kind_storage(k) == k)
			assert_int_equal(
				api_store_each(s, k, NULL, NULL, NULL,
					       k == K_WL ? copy_wl : copy_obj,
					       c),
				0);
	}
	api_store_restored(c, api_store_rv(s));
	return c;
}

static struct api_store *copy_store(struct api_store *s)
{
	return copy_store_as(s, copy_obj);
}

/* A Workload as an earlier echelon, which hashed names otherwise, stored
 * it: its name's last 5 characters "0f0f0". */
static int copy_renamed(void *ctx, const struct api_obj *o)
{
	struct api_store *to = ctx;
	json_t *body = json_deep_copy(o->body);
	json_t *meta = json_object_get(body, "metadata");
	const char *name = json_string_value(json_object_get(meta, "name"));
	char *old = xasprintf("%.*s-0f0f0", (int)strlen(name) - 6, name);

	json_object_set_new(meta, "name", json_string(old));
	free(old);
	assert_int_equal(api_store_load(to, o->kind, body), 0);
	return 0;
}

/*
 * A new cluster and scheduler over the stored objects continue: over
 * them as they are, and over Workloads stored under other names (each
 * Job still has its one Workload, found by its owner, not its name). The
 * admitted one is adopted, the pending one still waits.
 */
static void test_restart(void **state)
{
	static const api_obj_fn copies[] = { copy_obj, copy_renamed };
	struct env e, r;
	struct gang_view g;
	const char *wl;
	int n;

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(copies); c++) {
		env_start(&e, quickstart(), T0);
		job(e.s, e.now, "llama", 4, "production");
		job(e.s, e.now, "waits", 4, "research");
		advance(&e, 2 * S);
		assert_int_equal(gang_of(e.s, "llama").bound, 4);
		env_start(&r, copy_store_as(e.s, copies[c]), e.now);
		env_stop(&e);
		advance(&r, S);
		wl = sget(workload_of(r.s, "llama", &n), "metadata", "name");
		assert_int_equal(n, 1); /* no duplicate Workload */
		if (copies[c] == copy_renamed)
			assert_string_equal(wl + strlen(wl) - 6, "-0f0f0");
		(void)workload_of(r.s, "waits", &n);
		assert_int_equal(n, 1);
		g = gang_of(r.s, "llama");
		assert_int_equal(g.bound, 4);
		assert_int_equal(g.pods, 4);
		assert_false(suspended(r.s, "llama"));
		assert_true(suspended(r.s, "waits"));
		assert_int_equal(admitted_pods(r.x), 4); /* adopted */
		assert_int_equal(usage_pods(r.x), 4);
		/* and it goes on: the admitted one ends, the waiting one
		 * runs */
		complete(&r, "llama");
		advance(&r, 2 * S);
		assert_true(job_done(r.s, "llama"));
		assert_int_equal(gang_of(r.s, "waits").bound, 4);
		assert_int_equal(admitted_pods(r.x), 4);
		(void)workload_of(r.s, "waits", &n);
		assert_int_equal(n, 1);
		env_stop(&r);
	}
}

/* A bare pod of 8 GPUs with labels (a JSON object's text). */
static void pod(struct env *e, const char *name, const char *labels)
{
	put(e->s, e->now,
	    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
	    "\"%s\",\"namespace\":\"team-a\",\"labels\":%s},\"spec\":{"
	    "\"containers\":[{\"name\":\"t\",\"resources\":{\"requests\":{"
	    "\"cpu\":\"8\",\"nvidia.com/gpu\":\"8\"}}}]}}",
	    name, labels);
}

static const char *node_of_pod(struct api_store *s, const char *name)
{
	const struct api_obj *o = api_store_get(s, K_POD, "team-a", name);

	return o ? sget(o->body, "spec", "nodeName") : NULL;
}

/* No node holds more than its 8 GPUs (8 a pod). */
static void check_capacity(struct api_store *s)
{
	struct objs pods;
	char seen[64][32];
	int count[64] = { 0 };
	size_t n = 0;

	objs_of(s, K_POD, &pods);
	for (size_t i = 0; i < pods.n; i++) {
		const char *nn = sget(pods.items[i], "spec", "nodeName");
		size_t j;

		if (!nn || terminal(pods.items[i]) ||
		    !strncmp(sget(pods.items[i], "metadata", "name"), "plain",
			     5)) /* test_random's: cpu only */
			continue;
		for (j = 0; j < n && strcmp(seen[j], nn); j++)
			;
		if (j == n)
			snprintf(seen[n++], sizeof(seen[0]), "%s", nn);
		if (++count[j] > 1)
			fail_msg("node %s holds %d pods of 8 GPUs", nn,
				 count[j]);
	}
	objs_release(&pods);
}

static void test_pod_gangs(void **state)
{
	struct env e;
	const char *a, *b;

	(void)state;
	env_start(&e, quickstart(), T0);
	put(e.s, e.now,
	    "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"pg\",\"namespace\":"
	    "\"team-a\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
	    "\"training\"}},\"spec\":{\"minMember\":2}}");
	pod(&e, "pg-0", "{\"scheduling.x-k8s.io/pod-group\":\"pg\"}");
	advance(&e, S);
	/* Coscheduling: not one pod before the quorum exists */
	assert_null(node_of_pod(e.s, "pg-0"));
	pod(&e, "pg-1", "{\"scheduling.x-k8s.io/pod-group\":\"pg\"}");
	advance(&e, S);
	a = node_of_pod(e.s, "pg-0");
	b = node_of_pod(e.s, "pg-1");
	assert_non_null(a);
	assert_non_null(b);
	assert_string_not_equal(a, b);
	/* a plain pod with a queue is a gang of one; one without is bound
	 * first fit, on a node the gangs leave free */
	pod(&e, "solo", "{\"kueue.x-k8s.io/queue-name\":\"training\"}");
	pod(&e, "free", "{}");
	advance(&e, S);
	assert_non_null(node_of_pod(e.s, "solo"));
	assert_non_null(node_of_pod(e.s, "free"));
	assert_int_equal(admitted_pods(e.x), 3);
	check_capacity(e.s);
	/* the next gang's pod never lands on the plain pod's node */
	job(e.s, e.now, "after", 1, "research");
	advance(&e, S);
	assert_int_equal(gang_of(e.s, "after").bound, 1);
	check_capacity(e.s);
	env_stop(&e);
}

/* Coscheduling's occupiedBy: the owners of the PodGroup's first member
 * in name order, set as the group leaves Pending (found through the
 * scheduler's index of pods by PodGroup, not a walk of the namespace);
 * a group whose first member has no owner gets none. */
static void test_pod_group_occupied_by(void **state)
{
	const struct api_kind *pk =
		api_kind_of("scheduling.x-k8s.io/v1alpha1", "PodGroup");
	const struct api_kind *ck =
		api_kind_of("coordination.k8s.io/v1", "Lease");
	char uid[2][64];
	struct env e;

	(void)state;
	env_start(&e, quickstart(), T0);
	/* the owners (the garbage collector takes pods of owners gone) */
	for (int i = 0; i < 2; i++) {
		put(e.s, e.now,
		    "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":"
		    "\"Lease\",\"metadata\":{\"name\":\"trainer-%c\","
		    "\"namespace\":\"team-a\"}}",
		    'a' + i);
		snprintf(uid[i], sizeof(uid[i]), "%s",
			 api_store_get(e.s, ck, "team-a",
				       i ? "trainer-b" : "trainer-a")
				 ->uid);
	}
	for (int g = 0; g < 2; g++) {
		put(e.s, e.now,
		    "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\","
		    "\"kind\":\"PodGroup\",\"metadata\":{\"name\":\"g%d\","
		    "\"namespace\":\"team-a\",\"labels\":{\"kueue.x-k8s.io/"
		    "queue-name\":\"training\"}},\"spec\":{\"minMember\":2}}",
		    g);
		/* made in reverse name order: the first member is gN-0; g1's
		 * pods have no owner */
		for (int i = 1; i >= 0; i--) {
			char refs[256] = "";

			if (g == 0)
				snprintf(
					refs, sizeof(refs),
					",\"ownerReferences\":[{\"apiVersion\":"
					"\"coordination.k8s.io/v1\",\"kind\":"
					"\"Lease\",\"name\":"
					"\"trainer-%c\",\"uid\":\"%s\"}]",
					i ? 'b' : 'a', uid[i]);
			put(e.s, e.now,
			    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
			    "\"metadata\":{\"name\":\"g%d-%d\",\"namespace\":"
			    "\"team-a\",\"labels\":{\"scheduling.x-k8s.io/"
			    "pod-group\":\"g%d\"}%s},\"spec\":{"
			    "\"containers\":[{\"name\":\"t\",\"resources\":{"
			    "\"requests\":{\"cpu\":\"8\",\"nvidia.com/gpu\":"
			    "\"8\"}}}]}}",
			    g, i, g, refs);
		}
	}
	advance(&e, 5 * S);
	for (int g = 0; g < 2; g++) {
		char name[8];
		const json_t *st;
		const char *ph;

		snprintf(name, sizeof(name), "g%d", g);
		st = json_object_get(
			api_store_get(e.s, pk, "team-a", name)->body, "status");
		ph = json_string_value(json_object_get(st, "phase"));
		assert_non_null(ph);
		assert_string_not_equal(ph, "Pending");
		if (g == 0)
			assert_string_equal(json_string_value(json_object_get(
						    st, "occupiedBy")),
					    "team-a/trainer-a");
		else
			assert_null(json_object_get(st, "occupiedBy"));
	}
	env_stop(&e);
}

/* A PodGroup's gang admitted before a restart is adopted after it: its
 * pods stay where they are and its quota stays counted. With unbound, a
 * pod whose binding the stop cut off (its gang recorded and partly
 * bound): the restarted scheduler binds it where the record says, not
 * leaving the gang partly bound. With swap, pg-0 was bound to pg-1's
 * node (the record's nodes are a set, in no pod's order): pg-1 goes to
 * the node left, not onto pg-0's. */
static void restart_pod_group(const char *unbound, bool swap)
{
	struct env e, r;
	char *a, *b;

	env_start(&e, quickstart(), T0);
	put(e.s, e.now,
	    "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"pg\",\"namespace\":"
	    "\"team-a\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
	    "\"training\"}},\"spec\":{\"minMember\":2}}");
	pod(&e, "pg-0", "{\"scheduling.x-k8s.io/pod-group\":\"pg\"}");
	pod(&e, "pg-1", "{\"scheduling.x-k8s.io/pod-group\":\"pg\"}");
	advance(&e, S);
	assert_int_equal(admitted_pods(e.x), 2);
	a = xstrdup(node_of_pod(e.s, "pg-0"));
	b = xstrdup(node_of_pod(e.s, "pg-1"));
	assert_string_not_equal(a, b);
	unbound_on_copy = unbound;
	moved_on_copy = swap ? "pg-0" : NULL;
	moved_to = b;
	env_start(&r, copy_store(e.s), e.now);
	unbound_on_copy = moved_on_copy = NULL;
	env_stop(&e);
	if (swap) {
		char *t = a;

		a = b;
		b = t;
	}
	if (unbound)
		assert_null(node_of_pod(r.s, unbound));
	advance(&r, S);
	assert_int_equal(admitted_pods(r.x), 2);
	assert_int_equal(usage_pods(r.x), 2);
	assert_non_null(node_of_pod(r.s, "pg-0"));
	assert_non_null(node_of_pod(r.s, "pg-1"));
	assert_string_equal(node_of_pod(r.s, "pg-0"), a);
	assert_string_equal(node_of_pod(r.s, "pg-1"), b);
	check_capacity(r.s);
	free(a);
	free(b);
	env_stop(&r);
}

/* What the store shows of the scheduling: each pod's node, each
 * Workload's admission, one a line, in name order. */
static char *scheduled(struct api_store *s)
{
	struct strbuf sb;
	struct objs l;
	char *text;

	strbuf_init(&sb);
	objs_of(s, K_POD, &l);
	for (size_t i = 0; i < l.n; i++)
		strbuf_addf(&sb, "pod %s %s\n",
			    sget(l.items[i], "metadata", "name"),
			    sget(l.items[i], "spec", "nodeName") ?: "-");
	objs_release(&l);
	objs_of(s, K_WL, &l);
	for (size_t i = 0; i < l.n; i++) {
		char *adm = json_dumps(
			json_object_get(json_object_get(l.items[i], "status"),
					"admission"),
			JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

		strbuf_addf(&sb, "workload %s %s\n",
			    sget(l.items[i], "metadata", "name"),
			    adm ? adm : "-");
		free(adm);
	}
	objs_release(&l);
	text = strbuf_take(&sb);
	strbuf_release(&sb);
	return text;
}

/* A scheduler prepared over a copy of e's store (read-only, as a
 * following replica does), the writes it wanted refused. */
static void env_start_prepared(struct env *r, struct env *e, uint64_t *refused)
{
	struct serve_cluster_options o = { .startup_us = S, .seed = 1 };

	r->s = copy_store(e->s);
	r->now = e->now;
	api_store_read_only(r->s, true);
	r->x = serve_sched_new(r->s, NULL);
	(void)serve_sched_prepare(r->x, r->now);
	api_store_read_only(r->s, false);
	*refused = api_store_refused(r->s);
	r->c = serve_cluster_new(r->s, &o);
}

/* The first pod of Job name in e's store (a new reference). */
static json_t *job_pod(struct env *e, const char *name)
{
	struct objs l;
	json_t *found = NULL;

	objs_of(e->s, K_POD, &l);
	for (size_t i = 0; i < l.n && !found; i++) {
		if (!strncmp(sget(l.items[i], "metadata", "name"), name,
			     strlen(name)))
			found = json_incref(l.items[i]);
	}
	objs_release(&l);
	assert_non_null(found);
	return found;
}

/* What a running scheduler reads besides its own decisions, done to e:
 * a node down (config), a pod created, a bound pod's status written, a
 * bound pod of a gang deleted. */
static void world_moves(struct env *e)
{
	json_t *p = job_pod(e, "plain-0"), *q = json_deep_copy(p);

	json_decref(p);
	set_node_ready(e, node_of_pod(e->s, "plain-0"), false);
	pod(e, "plain-1", "{}");
	json_object_set_new(json_object_get(q, "status"), "reason",
			    json_string("Checked"));
	update(e->s, K_POD, q, e->now);
	p = job_pod(e, "llama");
	assert_int_equal(api_store_delete(e->s, K_POD, "team-a",
					  sget(p, "metadata", "name"), 0,
					  e->now),
			 0);
	json_decref(p);
}

/*
 * A scheduler prepared over the store, then synced after the world
 * moved as it does without a scheduler (world_moves()), decides as one
 * made at that sync: the same pods bound on the same nodes, the same
 * admissions. A bind or a Workload written since it read are unread
 * state (another leader's decisions); a prepare that must write (a new
 * Job's Workload) is refused whole and leaves the store as it was.
 */
static void test_prepare(void **state)
{
	struct env e, fresh, prep, late;
	const struct api_obj *o;
	struct errbuf eb;
	char *a, *b;
	uint64_t refused, rv;
	json_t *q;
	int n;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "llama", 4, "production");
	job(e.s, e.now, "waits", 4, "research");
	pod(&e, "plain-0", "{}");
	advance(&e, 2 * S);
	env_start_prepared(&prep, &e, &refused);
	assert_int_equal(refused, 0);
	assert_false(serve_sched_state_unread(prep.x));
	assert_int_equal(admitted_pods(prep.x), 4); /* adopted already */
	assert_int_equal(usage_pods(prep.x), 4);
	env_start(&fresh, copy_store(e.s), e.now);
	world_moves(&fresh);
	world_moves(&prep);
	assert_false(serve_sched_state_unread(prep.x));
	advance(&fresh, 2 * S);
	advance(&prep, 2 * S);
	a = scheduled(fresh.s);
	b = scheduled(prep.s);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "pod plain-1 "));
	assert_int_equal(admitted_pods(prep.x), admitted_pods(fresh.x));
	assert_int_equal(usage_pods(prep.x), usage_pods(fresh.x));
	free(a);
	free(b);
	env_stop(&fresh);
	env_stop(&prep);

	/* a pod of ours bound since it read: another leader's bind */
	env_start_prepared(&prep, &e, &refused);
	pod(&prep, "plain-1", "{}");
	assert_false(serve_sched_state_unread(prep.x));
	o = api_store_get(prep.s, K_POD, "team-a", "plain-1");
	assert_int_equal(api_bind(prep.s, "team-a", "plain-1", o->uid,
				  node_of_pod(prep.s, "plain-0"), prep.now,
				  &eb),
			 0);
	assert_true(serve_sched_state_unread(prep.x));
	env_stop(&prep);

	/* a Workload written since it read */
	env_start_prepared(&prep, &e, &refused);
	q = json_deep_copy(workload_of(prep.s, "waits", &n));
	json_object_set_new(json_object_get(q, "metadata"), "labels",
			    json_pack("{s:s}", "changed", "yes"));
	update(prep.s, K_WL, q, prep.now);
	assert_true(serve_sched_state_unread(prep.x));
	env_stop(&prep);

	/* a Job no scheduler has seen: its Workload would be written */
	job(e.s, e.now, "late", 4, "research");
	rv = api_store_rv(e.s);
	env_start_prepared(&late, &e, &refused);
	assert_true(refused > 0);
	assert_int_equal(api_store_rv(late.s), rv);
	env_stop(&late);
	env_stop(&e);
}

static void test_restart_pod_group(void **state)
{
	(void)state;
	restart_pod_group(NULL, false);
}

static void test_restart_pod_group_partly_bound(void **state)
{
	(void)state;
	restart_pod_group("pg-1", false);
	restart_pod_group("pg-0", false);
	restart_pod_group("pg-1", true);
}

/* The Workloads owned by the object of uid (NULL: none), and how many. */
static const char *workload_owned_by(struct api_store *s, const char *uid,
				     int *count)
{
	struct objs wls;
	const char *found = NULL;

	*count = 0;
	objs_of(s, K_WL, &wls);
	for (size_t i = 0; i < wls.n; i++) {
		const char *name = sget(wls.items[i], "metadata", "name");

		if (!owner_uid(wls.items[i]) ||
		    strcmp(owner_uid(wls.items[i]), uid) != 0)
			continue;
		found = sget(api_store_get(s, K_WL, "team-a", name)->body,
			     "metadata", "name");
		(*count)++;
	}
	objs_release(&wls);
	return found;
}

/* A queued plain pod (a gang of one, no PodGroup) admitted before a
 * restart is adopted after it: its Workload (Kueue's pod integration:
 * owned by the pod) keeps its admission, its pod stays where it is, and
 * its quota stays counted. */
static void test_restart_plain_pod(void **state)
{
	struct env e, r;
	const struct api_obj *p;
	char *node, *uid;
	int n;

	(void)state;
	env_start(&e, quickstart(), T0);
	pod(&e, "solo", "{\"kueue.x-k8s.io/queue-name\":\"training\"}");
	advance(&e, S);
	assert_non_null(node_of_pod(e.s, "solo"));
	p = api_store_get(e.s, K_POD, "team-a", "solo");
	uid = xstrdup(p->uid);
	assert_non_null(workload_owned_by(e.s, uid, &n));
	assert_int_equal(n, 1);
	assert_int_equal(admitted_pods(e.x), 1);
	assert_int_equal(usage_pods(e.x), 1);
	node = xstrdup(node_of_pod(e.s, "solo"));
	env_start(&r, copy_store(e.s), e.now);
	env_stop(&e);
	advance(&r, S);
	assert_int_equal(admitted_pods(r.x), 1);
	assert_int_equal(usage_pods(r.x), 1);
	assert_string_equal(node_of_pod(r.s, "solo"), node);
	(void)workload_owned_by(r.s, uid, &n);
	assert_int_equal(n, 1);
	check_capacity(r.s);
	/* it goes on: the pod ends, its quota comes free */
	p = api_store_get(r.s, K_POD, "team-a", "solo");
	{
		json_t *o = json_deep_copy(p->body);

		json_object_set_new(json_object_get(o, "status"), "phase",
				    json_string("Succeeded"));
		update(r.s, K_POD, o, r.now);
	}
	advance(&r, S);
	assert_int_equal(admitted_pods(r.x), 0);
	assert_int_equal(usage_pods(r.x), 0);
	free(node);
	free(uid);
	env_stop(&r);
}

/* Workload names are Kueue's, worked out by hand from its scheme:
 * "<kind in lower case>-<name>" cut to 247 bytes, "-", and the first 5
 * hex digits of SHA-1("<kind>\n<group>\n<name>\n<uid>"), e.g.
 * printf 'Job\nbatch\nname\nuid' | sha1sum -> ef3a1... */
static void test_workload_names(void **state)
{
	static const struct {
		const char *group, *kind, *name, *uid, *want;
	} cases[] = {
		{ "batch", "Job", "name", "uid", "job-name-ef3a1" },
		{ "", "Pod", "solo", "3c9a1f20-0000-4000-8000-000000000001",
		  "pod-solo-f9309" },
		{ "kubeflow.org", "PyTorchJob", "train", "u1",
		  "pytorchjob-train-00219" },
	};
	char name[256], want[320];
	char *got;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		got = serve_sched_workload_name(cases[i].group, cases[i].kind,
						cases[i].name, cases[i].uid);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
	/* "job-" and 243 bytes of name: 247, the longest prefix kept */
	memset(name, 'a', 243);
	name[243] = '\0';
	snprintf(want, sizeof(want), "job-%s-7247c", name);
	got = serve_sched_workload_name("batch", "Job", name, "u2");
	assert_string_equal(got, want);
	assert_int_equal(strlen(got), 253);
	free(got);
	/* two bytes more are cut from the prefix, not from the hash, which
	 * is of the whole name */
	snprintf(name + 243, sizeof(name) - 243, "bc");
	snprintf(want, sizeof(want), "job-%.243s-75dd5", name);
	got = serve_sched_workload_name("batch", "Job", name, "u2");
	assert_string_equal(got, want);
	free(got);
}

/* A config object the decoders refuse (written past validation) is
 * skipped with a Warning Event; the rest of the config still works. */
static void test_bad_config(void **state)
{
	struct env e;
	json_t *o;

	(void)state;
	env_start(&e, quickstart(), T0);
	o = json_loads(
		"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
		"\"ResourceFlavor\",\"metadata\":{\"name\":\"bad\"},"
		"\"spec\":{\"nodeLabels\":{\"a\":\"b\"},\"topologyName\":"
		"7}}",
		0, NULL);
	assert_int_equal(api_store_create(e.s,
					  kind("kueue.x-k8s.io/v1beta2",
					       "ResourceFlavor"),
					  o, e.now, NULL),
			 0);
	job(e.s, e.now, "llama", 2, "production");
	advance(&e, S);
	assert_true(event_about(e.s, "bad", "skipped by the scheduler"));
	assert_int_equal(gang_of(e.s, "llama").bound, 2);
	env_stop(&e);
}

/* A store whose history no longer holds the scheduler's cursor: it reads
 * everything again, as at a restart, and goes on. */
static void test_relist(void **state)
{
	struct api_store_options o = { .history = 16 };
	struct env e;
	int n;

	(void)state;
	env_start(&e, quickstart_with(&o), T0);
	job(e.s, e.now, "llama", 4, "production");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "llama").bound, 4);
	/* more changes than the history holds, behind the scheduler's back */
	for (int i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "ns%d", i);
		put(e.s, e.now,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
		    "\"metadata\":{\"name\":\"%s\"}}",
		    name);
	}
	job(e.s, e.now, "waits", 4, "research");
	advance(&e, S);
	(void)workload_of(e.s, "llama", &n);
	assert_int_equal(n, 1);
	(void)workload_of(e.s, "waits", &n);
	assert_int_equal(n, 1);
	assert_int_equal(gang_of(e.s, "llama").bound, 4);
	assert_true(suspended(e.s, "waits"));
	assert_int_equal(admitted_pods(e.x), 4);
	complete(&e, "llama");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "waits").bound, 4);
	env_stop(&e);
}

/* A restart after the admission was written and before the pods were
 * bound: the binds are finished from the admission read back. */
static void test_restart_midway(void **state)
{
	struct env e, r;
	struct gang_view g;
	int n;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "llama", 4, "production");
	/* the scheduler alone: the Workload, then its admission and the
	 * Job's start; no pod exists yet */
	(void)serve_sched_sync(e.x, e.now);
	(void)serve_sched_sync(e.x, e.now);
	assert_false(suspended(e.s, "llama"));
	assert_int_equal(gang_of(e.s, "llama").pods, 0);
	env_start(&r, copy_store(e.s), e.now);
	env_stop(&e);
	advance(&r, 2 * S);
	(void)workload_of(r.s, "llama", &n);
	assert_int_equal(n, 1);
	g = gang_of(r.s, "llama");
	assert_int_equal(g.pods, 4);
	assert_int_equal(g.bound, 4);
	assert_int_equal(g.racks, 1);
	assert_int_equal(admitted_pods(r.x), 4);
	assert_int_equal(usage_pods(r.x), 4);
	check_capacity(r.s);
	env_stop(&r);
}

/* Kueue's partial admission: a Job with job-min-parallelism gets what
 * fits, its parallelism lowered to it while it runs. */
static void test_partial_admission(void **state)
{
	struct env e;
	const struct api_obj *jb;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "first", 2, "production");
	advance(&e, S);
	put(e.s, e.now,
	    "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"
	    "\"name\":\"part\",\"namespace\":\"team-a\",\"labels\":{"
	    "\"kueue.x-k8s.io/queue-name\":\"training\"},\"annotations\":{"
	    "\"kueue.x-k8s.io/job-min-parallelism\":\"1\"}},\"spec\":{"
	    "\"parallelism\":4,\"completions\":4,\"completionMode\":"
	    "\"Indexed\",\"template\":{\"spec\":{\"restartPolicy\":\"Never\","
	    "\"containers\":[{\"name\":\"t\",\"resources\":{\"requests\":{"
	    "\"cpu\":\"8\",\"nvidia.com/gpu\":\"8\"}}}]}}}}");
	advance(&e, S);
	jb = api_store_get(e.s, K_JOB, "team-a", "part");
	assert_false(suspended(e.s, "part"));
	assert_int_equal(
		json_integer_value(json_object_get(
			json_object_get(jb->body, "spec"), "parallelism")),
		2);
	assert_int_equal(gang_of(e.s, "part").bound, 2);
	assert_int_equal(gang_of(e.s, "part").pods, 2);
	assert_int_equal(usage_pods(e.x), 4);
	/* its later completions run on the admitted pods' nodes */
	complete(&e, "part");
	advance(&e, S);
	assert_int_equal(gang_of(e.s, "part").bound, gang_of(e.s, "part").pods);
	complete(&e, "part");
	advance(&e, S);
	assert_true(job_done(e.s, "part"));
	assert_int_equal(usage_pods(e.x), 2);
	check_capacity(e.s);
	env_stop(&e);
}

static void cordon(struct env *e, const char *name, bool on)
{
	json_t *o =
		json_deep_copy(api_store_get(e->s, K_NODE, NULL, name)->body);

	if (!json_is_object(json_object_get(o, "spec")))
		json_object_set_new(o, "spec", json_object());
	json_object_set_new(json_object_get(o, "spec"), "unschedulable",
			    json_boolean(on));
	update(e->s, K_NODE, o, e->now);
}

/* kubectl cordon: a cordoned node takes no new pod; its pods stay. */
static void test_cordon(void **state)
{
	struct env e;
	char name[16];

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "before", 1, "research");
	advance(&e, S);
	for (int r = 0; r < 2; r++) {
		for (int h = 0; h < 4; h++) {
			snprintf(name, sizeof(name), "gpu-r%d-h%d", r, h);
			if (strcmp(name, "gpu-r1-h3") != 0)
				cordon(&e, name, true);
		}
	}
	job(e.s, e.now, "after", 1, "research");
	advance(&e, S);
	assert_string_equal(node_of_pod_of(e.s, "after"), "gpu-r1-h3");
	assert_int_equal(gang_of(e.s, "before").bound, 1); /* stays */
	/* no room left: the next waits, and not as Unschedulable */
	job(e.s, e.now, "waits", 1, "research");
	advance(&e, S);
	assert_int_equal(gang_of(e.s, "waits").pods, 0);
	assert_false(event_about(e.s, "waits", "Unschedulable"));
	/* a free node back: the waiting one goes there */
	snprintf(name, sizeof(name), "%s",
		 strcmp(node_of_pod_of(e.s, "before"), "gpu-r0-h1") == 0
			 ? "gpu-r0-h2"
			 : "gpu-r0-h1");
	cordon(&e, name, false);
	advance(&e, S);
	assert_non_null(node_of_pod_of(e.s, "waits"));
	assert_string_equal(node_of_pod_of(e.s, "waits"), name);
	env_stop(&e);
}

/* A PodGroup of min pods, queued to "training". */
static void pod_group(struct env *e, const char *name, int min)
{
	put(e->s, e->now,
	    "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"%s\",\"namespace\":"
	    "\"team-a\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
	    "\"training\"}},\"spec\":{\"minMember\":%d}}",
	    name, min);
}

/* A pod of PodGroup pg. */
static void pg_pod(struct env *e, const char *name, const char *pg)
{
	char labels[128];

	snprintf(labels, sizeof(labels),
		 "{\"scheduling.x-k8s.io/pod-group\":\"%s\"}", pg);
	pod(e, name, labels);
}

static void del_pod(struct env *e, const char *name)
{
	assert_int_equal(
		api_store_delete(e->s, K_POD, "team-a", name, 0, e->now), 0);
}

static bool pod_exists(struct api_store *s, const char *name)
{
	return api_store_get(s, K_POD, "team-a", name) != NULL;
}

/* A PodGroup's status moves with each bind and start, and echelon keeps
 * its admission in an annotation of it; neither changes what the config
 * reads, so the controller is not built again (it was, at every turn:
 * a walk of every pod, 5 pods/s at 50,000). Its spec is a change. */
static void test_pod_group_status_no_rebuild(void **state)
{
	const struct api_kind *pgk =
		api_kind_of("scheduling.x-k8s.io/v1alpha1", "PodGroup");
	const struct api_obj *pg;
	struct env e;
	uint64_t rv, n;
	json_t *body;

	(void)state;
	env_start(&e, quickstart(), T0);
	advance(&e, S);
	n = reconfigures(&e);
	pod_group(&e, "pg", 2);
	pg_pod(&e, "pg-0", "pg");
	pg_pod(&e, "pg-1", "pg");
	advance(&e, S);
	rv = api_store_get(e.s, pgk, "team-a", "pg")->rv;
	advance(&e, 60 * S); /* started: Running */
	assert_non_null(node_of_pod(e.s, "pg-0"));
	assert_non_null(node_of_pod(e.s, "pg-1"));
	pg = api_store_get(e.s, pgk, "team-a", "pg");
	assert_true(pg->rv > rv); /* written since */
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(pg->body, "status"), "phase")),
		"Running");
	assert_int_equal(reconfigures(&e), n + 1); /* its creation only */
	body = json_deep_copy(pg->body);
	json_object_set_new(json_object_get(body, "spec"),
			    "scheduleTimeoutSeconds", json_integer(60));
	assert_int_equal(api_store_update(e.s, pgk, body, 0, e.now, NULL), 0);
	advance(&e, S);
	assert_int_equal(reconfigures(&e), n + 2);
	env_stop(&e);
}

/*
 * A gang of pods (no Job) released while one of its pods is unbound: a
 * PodGroup admitted while one of its pods was missing (deleted while it
 * waited) waits for it to bind whole, and is preempted meanwhile. The
 * unbound pod holds nothing, so the release is done once the bound ones
 * (none here) are gone: the preemptor runs, the unbound pod stays
 * pending, and the gang binds whole when it is admitted again and its
 * pods are there. (The release once waited for every live pod to go,
 * and an unbound one is never deleted: the preemptor waited for ever.)
 */
static void test_release_unbound(void **state)
{
	struct env e;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "big", 4, "research");
	advance(&e, S);
	assert_int_equal(gang_of(e.s, "big").bound, 4);
	pod_group(&e, "pg", 2);
	pg_pod(&e, "pg-0", "pg");
	pg_pod(&e, "pg-1", "pg");
	advance(&e, S);
	del_pod(&e, "pg-1"); /* while it waits for quota */
	advance(&e, S);
	complete(&e, "big");
	advance(&e, S);
	/* admitted: its binds wait for the pod that is missing */
	assert_int_equal(admitted_pods(e.x), 2);
	assert_null(node_of_pod(e.s, "pg-0"));
	job(e.s, e.now, "high", 4, "production");
	advance(&e, S);
	assert_int_equal(gang_of(e.s, "high").bound, 4);
	assert_true(pod_exists(e.s, "pg-0"));
	assert_null(node_of_pod(e.s, "pg-0"));
	assert_int_equal(admitted_pods(e.x), 4);
	assert_int_equal(usage_pods(e.x), 4);
	/* room again and its pods back: bound whole */
	complete(&e, "high");
	pg_pod(&e, "pg-1", "pg");
	advance(&e, 2 * S);
	assert_non_null(node_of_pod(e.s, "pg-0"));
	assert_non_null(node_of_pod(e.s, "pg-1"));
	assert_int_equal(admitted_pods(e.x), 2);
	assert_int_equal(usage_pods(e.x), 2);
	check_capacity(e.s);
	env_stop(&e);
}

/*
 * A running PodGroup gang is preempted; its bound pods are deleted, and
 * before the scheduler has seen them go, its owner makes a replacement
 * pod. The replacement is unbound: the release does not wait for it.
 */
static void test_release_replacement(void **state)
{
	struct env e;
	int i;

	(void)state;
	env_start(&e, quickstart(), T0);
	pod_group(&e, "pg", 2);
	pg_pod(&e, "pg-0", "pg");
	pg_pod(&e, "pg-1", "pg");
	advance(&e, S);
	assert_non_null(node_of_pod(e.s, "pg-0"));
	assert_non_null(node_of_pod(e.s, "pg-1"));
	job(e.s, e.now, "high", 4, "production");
	for (i = 0; i < 10 && pod_exists(e.s, "pg-0"); i++) {
		(void)serve_cluster_sync(e.c, e.now);
		(void)serve_sched_sync(e.x, e.now);
	}
	assert_false(pod_exists(e.s, "pg-0")); /* deleted by the release */
	pg_pod(&e, "pg-2", "pg");
	advance(&e, S);
	assert_int_equal(gang_of(e.s, "high").bound, 4);
	assert_true(pod_exists(e.s, "pg-2"));
	assert_null(node_of_pod(e.s, "pg-2"));
	assert_int_equal(admitted_pods(e.x), 4);
	assert_int_equal(usage_pods(e.x), 4);
	check_capacity(e.s);
	env_stop(&e);
}

/*
 * A queued plain pod whose bind fails (a scheduling gate: the binding
 * subresource refuses it) is evicted whole and queued again after a
 * backoff; its release needs nothing deleted, and once the gate is gone
 * the pod is bound at its next admission.
 */
static void test_release_bind_failed(void **state)
{
	struct env e;
	json_t *o;

	(void)state;
	env_start(&e, quickstart(), T0);
	put(e.s, e.now,
	    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
	    "\"solo\",\"namespace\":\"team-a\",\"labels\":{"
	    "\"kueue.x-k8s.io/queue-name\":\"training\"}},\"spec\":{"
	    "\"schedulingGates\":[{\"name\":\"example.com/gate\"}],"
	    "\"containers\":[{\"name\":\"t\",\"resources\":{\"requests\":{"
	    "\"cpu\":\"8\",\"nvidia.com/gpu\":\"8\"}}}]}}");
	advance(&e, S / 2);
	assert_true(ctl_stats(serve_sched_ctl(e.x)).bind_failures > 0);
	assert_true(pod_exists(e.s, "solo"));
	assert_null(node_of_pod(e.s, "solo"));
	assert_int_equal(usage_pods(e.x), admitted_pods(e.x));
	o = json_deep_copy(api_store_get(e.s, K_POD, "team-a", "solo")->body);
	json_object_del(json_object_get(o, "spec"), "schedulingGates");
	update(e.s, K_POD, o, e.now);
	advance(&e, 15 * S);
	assert_non_null(node_of_pod(e.s, "solo"));
	assert_int_equal(admitted_pods(e.x), 1);
	assert_int_equal(usage_pods(e.x), 1);
	env_stop(&e);
}

/* Set pod name's phase (the kubelet's part). */
static void pod_phase(struct env *e, const char *name, const char *phase)
{
	json_t *o = json_deep_copy(
		api_store_get(e->s, K_POD, "team-a", name)->body);

	json_object_set_new(json_object_get(o, "status"), "phase",
			    json_string(phase));
	update(e->s, K_POD, o, e->now);
}

/* Nothing is admitted and no quota is used. */
static void check_all_free(struct env *e)
{
	assert_int_equal(admitted_pods(e->x), 0);
	assert_int_equal(usage_pods(e->x), 0);
}

/*
 * A queued plain pod that fails ends its Workload, as Kueue's pod
 * integration finishes a single pod's when it terminates, Failed or
 * Succeeded: nothing makes the pod again, so its gang must not wait for
 * a replacement (it was admitted again and again, each time holding
 * quota until the bind timeout).
 */
static void test_plain_pod_failed(void **state)
{
	struct env e;
	char *wl;

	(void)state;
	env_start(&e, quickstart(), T0);
	pod(&e, "solo", "{\"kueue.x-k8s.io/queue-name\":\"training\"}");
	advance(&e, 2 * S);
	assert_non_null(node_of_pod(e.s, "solo"));
	assert_int_equal(admitted_pods(e.x), 1);
	pod_phase(&e, "solo", "Failed");
	for (int i = 0; i < 8; i++) {
		advance(&e, 5 * S);
		check_all_free(&e);
	}
	wl = serve_sched_workload_name(
		"", "Pod", "solo",
		api_store_get(e.s, K_POD, "team-a", "solo")->uid);
	assert_string_equal(finished_reason(e.s, wl), "Failed");
	free(wl);
	env_stop(&e);
}

/* A restart reads an admitted plain pod's Workload whose pod failed
 * before the scheduler saw it: the Workload ends at once. */
static void test_restart_plain_pod_failed(void **state)
{
	struct env e, r;

	(void)state;
	env_start(&e, quickstart(), T0);
	pod(&e, "solo", "{\"kueue.x-k8s.io/queue-name\":\"training\"}");
	advance(&e, 2 * S);
	assert_int_equal(admitted_pods(e.x), 1);
	pod_phase(&e, "solo", "Failed");
	env_start(&r, copy_store(e.s), e.now);
	env_stop(&e);
	advance(&r, S);
	assert_int_equal(admitted_pods(r.x), 0);
	assert_int_equal(usage_pods(r.x), 0);
	env_stop(&r);
}

/* A queued plain pod that ends while it waits for quota leaves its queue
 * for good, also across a restart. */
static void test_plain_pod_failed_pending(void **state)
{
	struct env e, r;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "big", 4, "research");
	advance(&e, S);
	pod(&e, "solo", "{\"kueue.x-k8s.io/queue-name\":\"training\"}");
	advance(&e, S);
	assert_null(node_of_pod(e.s, "solo"));
	pod_phase(&e, "solo", "Failed");
	advance(&e, S);
	env_start(&r, copy_store(e.s), e.now);
	complete(&e, "big");
	advance(&e, 2 * S);
	assert_int_equal(admitted_pods(e.x), 0);
	assert_int_equal(usage_pods(e.x), 0);
	env_stop(&e);
	advance(&r, S);
	complete(&r, "big");
	advance(&r, 2 * S);
	assert_int_equal(admitted_pods(r.x), 0);
	assert_int_equal(usage_pods(r.x), 0);
	env_stop(&r);
}

/*
 * A PodGroup gang ends when all its pods have ended, failed ones too (as
 * Coscheduling's final phases): while one runs after another failed it
 * keeps its quota (the failed one may be made again), but once none runs
 * nothing can come back into the gang, which held its quota for good.
 */
static void test_pod_group_failed(void **state)
{
	struct env e;

	(void)state;
	env_start(&e, quickstart(), T0);
	pod_group(&e, "pg", 2);
	pg_pod(&e, "pg-0", "pg");
	pg_pod(&e, "pg-1", "pg");
	advance(&e, 2 * S);
	assert_int_equal(admitted_pods(e.x), 2);
	pod_phase(&e, "pg-1", "Failed");
	advance(&e, 40 * S);
	assert_int_equal(admitted_pods(e.x), 2);
	assert_non_null(node_of_pod(e.s, "pg-0"));
	pod_phase(&e, "pg-0", "Succeeded");
	advance(&e, S);
	check_all_free(&e);
	env_stop(&e);
}

/*
 * A Job deleted with propagationPolicy Orphan leaves its Workload and its
 * pods behind. Kueue finishes such a Workload (its owner is gone): its
 * quota is free, and nothing waits to suspend a Job that is gone (a
 * preemptor once waited for good for that release). The orphaned pods
 * still hold their nodes, as any pod bound outside a gang does.
 */
static void test_job_orphaned(void **state)
{
	struct env e;
	json_t *o;
	char *wl;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "low", 2, "research");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "low").bound, 2);
	o = json_deep_copy(api_store_get(e.s, K_JOB, "team-a", "low")->body);
	json_object_set_new(json_object_get(o, "metadata"), "finalizers",
			    json_pack("[s]", "orphan"));
	update(e.s, K_JOB, o, e.now);
	wl = xstrdup(workload_name(e.s, "low"));
	assert_int_equal(
		api_store_delete(e.s, K_JOB, "team-a", "low", 0, e.now), 0);
	advance(&e, S);
	assert_null(api_store_get(e.s, K_JOB, "team-a", "low"));
	/* Kueue's reason for a Workload whose owner is gone */
	assert_non_null(finished_reason(e.s, wl));
	assert_string_equal(finished_reason(e.s, wl), "OwnerNotFound");
	assert_int_equal(admitted_pods(e.x), 0);
	assert_int_equal(usage_pods(e.x), 0);
	job(e.s, e.now, "high", 4, "production");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "high").bound, 4);
	assert_int_equal(admitted_pods(e.x), 4);
	assert_int_equal(usage_pods(e.x), 4);
	check_capacity(e.s);
	free(wl);
	env_stop(&e);
}

/* The PodGroups of the random test: pgN of min[N] pods, whose owner (the
 * test) makes pods again while fewer are live. */
struct groups {
	int n;
	int min[16];
	int made[16]; /* pods made so far: the next one's name */
	bool done[16];
	bool gated[16]; /* its first pods have a scheduling gate */
};

/* Give pod name a scheduling gate, or take its gates away. */
static void set_gate(struct env *e, const char *name, bool on)
{
	json_t *o = json_deep_copy(
		api_store_get(e->s, K_POD, "team-a", name)->body);

	if (on)
		json_object_set_new(
			json_object_get(o, "spec"), "schedulingGates",
			json_pack("[{s:s}]", "name", "example.com/g"));
	else
		json_object_del(json_object_get(o, "spec"), "schedulingGates");
	update(e->s, K_POD, o, e->now);
}

/* The live pods of PodGroup pg: how many, how many bound. */
static struct gang_view group_of(struct api_store *s, const char *pg)
{
	struct gang_view g = { 0 };
	struct objs pods;

	objs_of(s, K_POD, &pods);
	for (size_t i = 0; i < pods.n; i++) {
		const json_t *p = pods.items[i];
		const char *l = sget(json_object_get(p, "metadata"), "labels",
				     "scheduling.x-k8s.io/pod-group");

		if (!l || strcmp(l, pg) || terminal(p))
			continue;
		g.pods++;
		if (sget(p, "spec", "nodeName")) {
			g.bound++;
			g.on_not_ready |=
				!node_ready(s, sget(p, "spec", "nodeName"));
		}
	}
	objs_release(&pods);
	return g;
}

/* Pods of the controller's admitted workloads named name, or whose name
 * starts with it (prefix). */
static int admitted_pods_of(struct serve_sched *x, const char *name,
			    bool prefix)
{
	const struct ctl *c = serve_sched_ctl(x);
	const struct cluster *cl = ctl_cluster(c);
	const struct sched *sc = ctl_sched(c);
	int n = 0;

	for (uint32_t i = 0; i < cl->workloads.len; i++) {
		const struct sched_admission *a;

		if (!ctl_handle(c, i) ||
		    sched_wl_state(sc, i) != SCHED_WL_ADMITTED ||
		    (prefix ? strncmp(cl->workloads.items[i].name, name,
				      strlen(name))
			    : strcmp(cl->workloads.items[i].name, name)) != 0)
			continue;
		a = sched_wl_admission(sc, i);
		for (size_t p = 0; p < a->npodsets; p++)
			n += a->ps[p].count;
	}
	return n;
}

/* Every release is done once the controllers settle: no preempted
 * workload still holds its quota (its preemptor would wait). */
static void check_released(struct env *e, unsigned long long seed)
{
	const struct ctl *c = serve_sched_ctl(e->x);
	const struct cluster *cl = ctl_cluster(c);

	for (uint32_t i = 0; i < cl->workloads.len; i++) {
		if (ctl_handle(c, i) && sched_wl_held(ctl_sched(c), i))
			fail_msg("seed %llu: %s still holds its quota after "
				 "its release",
				 seed, cl->workloads.items[i].name);
	}
}

/* The usage the scheduler keeps for what it does not admit (plain pods,
 * followed pod by pod) equals a rebuild's from the store. */
static void check_plain_usage(struct env *e, unsigned long long seed)
{
	struct cluster c;

	cluster_init(&c);
	assert_int_equal(serve_sched_load_config(e->x, &c), 0);
	assert_int_equal(c.nodes.len, e->x->c.nodes.len);
	for (size_t i = 0; i < c.nodes.len; i++) {
		const struct node *a = &c.nodes.items[i];
		const struct node *b =
			cluster_find(&e->x->c, KIND_NODE, NULL, a->name);

		assert_non_null(b);
		if (memcmp(&a->usage, &b->usage, sizeof(a->usage)))
			fail_msg("seed %llu: node %s: usage differs from a "
				 "rebuild's",
				 seed, a->name);
	}
	cluster_release(&c);
}

/* No gang partly bound, nothing on a NotReady node, every release done,
 * and the quota used is the admitted workloads', which are the Jobs
 * running and the PodGroups' pods. */
static void check_invariants(struct env *e, int njobs, const struct groups *gr,
			     unsigned long long seed)
{
	int unsuspended = 0;

	check_plain_usage(e, seed);
	for (int j = 0; j < njobs; j++) {
		char name[16];
		const struct api_obj *jb;
		struct gang_view g;

		snprintf(name, sizeof(name), "j%d", j);
		jb = api_store_get(e->s, K_JOB, "team-a", name);
		if (!jb || job_done(e->s, name))
			continue;
		g = gang_of(e->s, name);
		if (g.bound && g.bound != g.pods)
			fail_msg("seed %llu: %s partly bound (%d of %d)", seed,
				 name, g.bound, g.pods);
		if (g.on_not_ready)
			fail_msg("seed %llu: %s runs on a NotReady node", seed,
				 name);
		if (!suspended(e->s, name))
			unsuspended += (int)json_integer_value(json_object_get(
				json_object_get(jb->body, "spec"),
				"parallelism"));
	}
	for (int i = 0; i < gr->n; i++) {
		char name[16];
		struct gang_view g;

		snprintf(name, sizeof(name), "pg%d", i);
		g = group_of(e->s, name);
		if (!gr->done[i] && g.bound && g.bound != g.pods)
			fail_msg("seed %llu: %s partly bound (%d of %d)", seed,
				 name, g.bound, g.pods);
		if (g.on_not_ready)
			fail_msg("seed %llu: %s runs on a NotReady node", seed,
				 name);
		/* an admitted gang whose pods are there is bound */
		if (!gr->done[i] && g.pods == gr->min[i] && !g.bound &&
		    admitted_pods_of(e->x, name, false))
			fail_msg("seed %llu: %s admitted, its pods unbound",
				 seed, name);
	}
	check_capacity(e->s);
	check_released(e, seed);
	if (usage_pods(e->x) != admitted_pods(e->x))
		fail_msg("seed %llu: usage %d pods, admitted %d", seed,
			 usage_pods(e->x), admitted_pods(e->x));
	if (unsuspended != admitted_pods_of(e->x, "job-", true))
		fail_msg("seed %llu: %d pods unsuspended, %d admitted", seed,
			 unsuspended, admitted_pods_of(e->x, "job-", true));
}

/* The name of a live pod of pg, bound or not (bound < 0: either), or
 * NULL; valid until the next write. */
static const char *group_pod(struct api_store *s, const char *pg, int bound,
			     struct rng *r)
{
	const char *found[32];
	size_t n = 0;
	struct objs pods;

	objs_of(s, K_POD, &pods);
	for (size_t i = 0; i < pods.n && n < ARRAY_SIZE(found); i++) {
		const json_t *p = pods.items[i];
		const char *l = sget(json_object_get(p, "metadata"), "labels",
				     "scheduling.x-k8s.io/pod-group");

		if (l && !strcmp(l, pg) && !terminal(p) &&
		    (bound < 0 || !sget(p, "spec", "nodeName") == !bound))
			found[n++] =
				sget(api_store_get(s, K_POD, "team-a",
						   sget(p, "metadata", "name"))
					     ->body,
				     "metadata", "name");
	}
	objs_release(&pods);
	return n ? found[rng_below(r, n)] : NULL;
}

/* A random PodGroup of gr (not done) whose live pods, bound ones among
 * them, pass want(); -1 when none does. */
static int pick_group(struct env *e, const struct groups *gr,
		      bool (*want)(const struct groups *gr, int i,
				   struct gang_view g),
		      struct rng *r)
{
	int found[ARRAY_SIZE(gr->min)], n = 0;
	char pg[16];

	for (int i = 0; i < gr->n; i++) {
		snprintf(pg, sizeof(pg), "pg%d", i);
		if (!gr->done[i] && want(gr, i, group_of(e->s, pg)))
			found[n++] = i;
	}
	return n ? found[rng_below(r, (uint64_t)n)] : -1;
}

static bool some_unbound(const struct groups *gr, int i, struct gang_view g)
{
	(void)gr;
	(void)i;
	return g.bound < g.pods;
}

static bool missing_pods(const struct groups *gr, int i, struct gang_view g)
{
	return g.pods < gr->min[i];
}

static bool running(const struct groups *gr, int i, struct gang_view g)
{
	return g.pods == gr->min[i] && g.bound == g.pods;
}

static bool some_bound(const struct groups *gr, int i, struct gang_view g)
{
	(void)gr;
	(void)i;
	return g.bound > 0;
}

/*
 * One random step of the PodGroups (what 0-5): a new PodGroup of 1 to 3
 * pods, at times with a scheduling gate (its binds fail until step 5
 * takes the gates away); an unbound pod deleted (its gang, admitted or
 * not, then misses it); a pod made again for a gang with fewer than
 * minMember live (its owner replacing it); a gang bound whole succeeds;
 * a bound pod fails.
 */
static void group_step(struct env *e, struct groups *gr, uint64_t what,
		       struct rng *r)
{
	char pg[16], name[32];
	const char *p;
	int i;

	if (what == 0 && gr->n < (int)ARRAY_SIZE(gr->min)) {
		i = gr->n++;
		gr->min[i] = 1 + (int)rng_below(r, 3);
		snprintf(pg, sizeof(pg), "pg%d", i);
		pod_group(e, pg, gr->min[i]);
		gr->gated[i] = rng_below(r, 3) == 0;
		for (; gr->made[i] < gr->min[i]; gr->made[i]++) {
			snprintf(name, sizeof(name), "%s-%d", pg, gr->made[i]);
			pg_pod(e, name, pg);
			if (gr->gated[i])
				set_gate(e, name, true);
		}
		return;
	}
	if (what == 5) {
		for (i = 0; i < gr->n && !gr->gated[i]; i++)
			;
		if (i == gr->n)
			return;
		gr->gated[i] = false;
		for (int k = 0; k < gr->made[i]; k++) {
			snprintf(name, sizeof(name), "pg%d-%d", i, k);
			if (pod_exists(e->s, name))
				set_gate(e, name, false);
		}
		return;
	}
	i = pick_group(e, gr,
		       what == 1   ? some_unbound
		       : what == 2 ? missing_pods
		       : what == 3 ? running
				   : some_bound,
		       r);
	if (i < 0)
		return;
	snprintf(pg, sizeof(pg), "pg%d", i);
	if (what == 1) {
		snprintf(name, sizeof(name), "%s", group_pod(e->s, pg, 0, r));
		del_pod(e, name);
	} else if (what == 2) {
		snprintf(name, sizeof(name), "%s-%d", pg, gr->made[i]++);
		pg_pod(e, name, pg);
	} else if (what == 4) {
		snprintf(name, sizeof(name), "%s", group_pod(e->s, pg, 1, r));
		pod_phase(e, name, "Failed");
	} else {
		gr->done[i] = true;
		while ((p = group_pod(e->s, pg, 1, r))) {
			snprintf(name, sizeof(name), "%s", p);
			pod_phase(e, name, "Succeeded");
		}
	}
}

/*
 * Jobs of two priorities (preemption), completions and nodes going
 * NotReady and back, and PodGroups (of a lower priority) whose pods come
 * and go, at random; after every step the invariants hold and everything
 * settles (a preemptor waiting for its victims once let a lower-priority
 * workload take its capacity, and two such workloads then preempted each
 * other in turn without end; a gang of pods released while one of its
 * pods was unbound once never finished its release).
 */
/* A pod of no queue and no gang, of 16 cpus: bound alone. */
static void plain_pod(struct env *e, const char *name)
{
	put_to(e->x, e->s, e->now,
	       "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
	       "\"name\":\"%s\",\"namespace\":\"team-a\"},\"spec\":{"
	       "\"containers\":[{\"name\":\"c\",\"image\":\"i\","
	       "\"resources\":{\"requests\":{\"cpu\":\"16\"}}}]}}",
	       name);
}

static void test_random(void **state)
{
	(void)state;
	for (unsigned long long seed = 1; seed <= 20; seed++) {
		struct groups gr = { 0 };
		struct env e;
		int njobs = 0;
		struct rng r;

		env_start(&e, quickstart(), T0);
		rng_seed(&r, seed);
		for (int step = 0; step < 40; step++) {
			uint64_t what = rng_below(&r, 18);
			char name[16];

			if (what >= 16) {
				/* a plain pod (no queue, no gang) made or
				 * deleted: its usage on its node */
				snprintf(name, sizeof(name), "plain%d",
					 (int)rng_below(&r, 6));
				if (api_store_get(e.s, K_POD, "team-a", name))
					del_pod(&e, name);
				else
					plain_pod(&e, name);
			} else if (what < 5 && njobs < 40) {
				snprintf(name, sizeof(name), "j%d", njobs++);
				job(e.s, e.now, name, 1 + (int)rng_below(&r, 4),
				    rng_below(&r, 2) ? "production"
						     : "research");
			} else if (what < 8 && njobs) {
				snprintf(name, sizeof(name), "j%d",
					 (int)rng_below(&r, (uint64_t)njobs));
				if (!suspended(e.s, name) &&
				    !job_done(e.s, name))
					complete(&e, name);
			} else if (what < 10) {
				char nn[16];

				snprintf(nn, sizeof(nn), "gpu-r%d-h%d",
					 (int)rng_below(&r, 2),
					 (int)rng_below(&r, 4));
				set_node_ready(&e, nn, !node_ready(e.s, nn));
			} else {
				group_step(&e, &gr, what - 10, &r);
			}
			/* now and then past the bind timeout */
			advance(&e, rng_below(&r, 8)
					    ? (int64_t)rng_below(&r, 3) * S
					    : 31 * S);
			check_invariants(&e, njobs, &gr, seed);
		}
		env_stop(&e);
	}
}

/* ---- The Kubernetes backend's needs (kube mode, dialects, faults) ---- */

static int plain_bound(struct api_store *s)
{
	int n = 0;

	for (int i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "plain%d", i);
		n += node_of_pod(s, name) != NULL;
	}
	return n;
}

/*
 * A write budget (max_writes) ends a sync's binding part way: the plain
 * pods left are bound by the next syncs, in the order they came, and
 * none is lost or bound twice.
 */
static void test_write_budget(void **state)
{
	struct serve_sched_options o;
	struct env e;
	int syncs = 0, last = 0;

	(void)state;
	serve_sched_options_init(&o);
	o.max_writes = 3;
	env_start(&e, quickstart(), T0);
	serve_sched_set_options(e.x, &o);
	(void)serve_sched_sync(e.x, e.now);
	for (int i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "plain%d", i);
		plain_pod(&e, name);
	}
	while (plain_bound(e.s) < 8 && syncs < 20) {
		int w = serve_sched_sync(e.x, e.now);
		int now = plain_bound(e.s);

		syncs++;
		/* a bind and its Event: one pod a sync past 3 writes */
		assert_true(w <= 4);
		assert_true(now > last);
		last = now;
		/* first come, first bound: the bound ones are a prefix */
		for (int i = 0; i < 8; i++) {
			char name[16];

			snprintf(name, sizeof(name), "plain%d", i);
			assert_true(!node_of_pod(e.s, name) == (i >= now));
		}
	}
	assert_int_equal(plain_bound(e.s), 8);
	assert_true(syncs >= 4);
	env_stop(&e);
}

static struct serve_sched_options kube_options(void)
{
	struct serve_sched_options o;

	serve_sched_options_init(&o);
	o.kube = true;
	return o;
}

/* A queued Indexed Job of n pods of 8 GPUs in one rack whose pods name
 * scheduler sched, created through the scheduler's own hook. */
static void job_for(struct env *e, const char *name, int n, const char *prio,
		    const char *sched)
{
	put_to(e->x, e->s, e->now,
	       "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"
	       "\"name\":\"%s\",\"namespace\":\"team-a\",\"labels\":{"
	       "\"kueue.x-k8s.io/queue-name\":\"training\","
	       "\"kueue.x-k8s.io/priority-class\":\"%s\"}},\"spec\":{"
	       "\"parallelism\":%d,\"completions\":%d,\"completionMode\":"
	       "\"Indexed\",\"template\":{\"metadata\":{\"annotations\":{"
	       "\"kueue.x-k8s.io/podset-required-topology\":"
	       "\"topology-rack\"}},\"spec\":{\"schedulerName\":\"%s\","
	       "\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"t\","
	       "\"image\":\"trainer\",\"resources\":{\"requests\":{"
	       "\"cpu\":\"8\",\"nvidia.com/gpu\":\"8\"}}}]}}}}",
	       name, prio, n, n, sched);
}

/* A pod of 8 GPUs with labels (a JSON object's text), more members of
 * its spec (text ending in a comma, or "") and of its container. */
static void pod_with(struct env *e, const char *name, const char *labels,
		     const char *spec, const char *ctr)
{
	put_to(e->x, e->s, e->now,
	       "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
	       "\"%s\",\"namespace\":\"team-a\",\"labels\":%s},\"spec\":{%s"
	       "\"containers\":[{\"name\":\"t\"%s,\"resources\":{\"requests\":"
	       "{\"cpu\":\"8\",\"nvidia.com/gpu\":\"8\"}}}]}}",
	       name, labels, spec, ctr);
}

/* Member what ("status", "reason", "message") of condition type of o,
 * or NULL. */
static const char *cond_of(const json_t *o, const char *type, const char *what)
{
	const json_t *c;
	size_t i;

	json_array_foreach(
		json_object_get(json_object_get(o, "status"), "conditions"), i,
		c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "type")),
			    type))
			return json_string_value(json_object_get(c, what));
	}
	return NULL;
}

static const char *pod_scheduled(struct api_store *s, const char *name,
				 const char *what)
{
	const struct api_obj *o = api_store_get(s, K_POD, "team-a", name);

	assert_non_null(o);
	return cond_of(o->body, "PodScheduled", what);
}

/* The name of a live pod of Job jobname (static; NULL: none). */
static const char *pod_of_job(struct api_store *s, const char *jobname)
{
	static char name[64];
	const struct api_obj *jb = api_store_get(s, K_JOB, "team-a", jobname);
	struct objs pods;

	name[0] = '\0';
	objs_of(s, K_POD, &pods);
	for (size_t i = 0; jb && i < pods.n && !name[0]; i++) {
		if (owner_uid(pods.items[i]) &&
		    !strcmp(owner_uid(pods.items[i]), jb->uid) &&
		    !terminal(pods.items[i]))
			snprintf(name, sizeof(name), "%s",
				 sget(pods.items[i], "metadata", "name"));
	}
	objs_release(&pods);
	return name[0] ? name : NULL;
}

/*
 * Kube mode: a queued Job is not suspended (no webhook); its pods wait
 * Pending, with PodScheduled's queue reason and the plan's numbers,
 * until admitted and bound; a Job whose pods name another scheduler is
 * not echelon's; an evicted Job is suspended, and unsuspended when
 * admitted again.
 */
static void test_kube_jobs(void **state)
{
	struct serve_sched_options o = kube_options();
	struct env e;
	struct gang_view g;
	const char *p, *msg;
	int n;

	(void)state;
	env_start_opts(&e, quickstart(), T0, &o);
	job_for(&e, "first", 4, "research", "echelon");
	assert_false(suspended(e.s, "first"));
	advance(&e, 2 * S);
	g = gang_of(e.s, "first");
	assert_int_equal(g.bound, 4);
	assert_int_equal(g.racks, 1);
	assert_false(suspended(e.s, "first"));
	/* the default scheduler's: neither a Workload nor a bind */
	job_for(&e, "theirs", 1, "research", "default-scheduler");
	advance(&e, S);
	(void)workload_of(e.s, "theirs", &n);
	assert_int_equal(n, 0);
	assert_int_equal(gang_of(e.s, "theirs").pods, 1);
	assert_int_equal(gang_of(e.s, "theirs").bound, 0);
	/* a higher priority preempts: the victim's Job is suspended */
	job_for(&e, "urgent", 4, "production", "echelon");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "urgent").bound, 4);
	assert_true(suspended(e.s, "first"));
	assert_int_equal(gang_of(e.s, "first").pods, 0);
	/* a Job that waits for quota runs its pods Pending, told why */
	job_for(&e, "second", 2, "research", "echelon");
	advance(&e, S);
	g = gang_of(e.s, "second");
	assert_int_equal(g.pods, 2);
	assert_int_equal(g.bound, 0);
	assert_false(suspended(e.s, "second"));
	p = pod_of_job(e.s, "second");
	assert_non_null(p);
	assert_string_equal(pod_scheduled(e.s, p, "status"), "False");
	assert_string_equal(pod_scheduled(e.s, p, "reason"), "WaitingForQuota");
	msg = pod_scheduled(e.s, p, "message");
	/* with the numbers of `echelon plan` */
	assert_non_null(strstr(msg, "insufficient unused quota for "
				    "nvidia.com/gpu in flavor tas-gpu, 16 more "
				    "needed"));
	assert_int_equal(
		api_store_delete(e.s, K_JOB, "team-a", "second", 0, e.now), 0);
	/* the preemptor ends: the victim is admitted again, unsuspended */
	complete(&e, "urgent");
	advance(&e, 3 * S);
	assert_false(suspended(e.s, "first"));
	assert_int_equal(gang_of(e.s, "first").bound, 4);
	assert_int_equal(admitted_pods(e.x), 4);
	check_capacity(e.s);
	env_stop(&e);
}

struct sched_name_case {
	bool kube;
	const char *name;  /* option; NULL: the default */
	const char *sched; /* pod's schedulerName; NULL: none */
	bool bound;
};

/* Which pods are echelon's: its name; the embedded cluster also takes
 * the default scheduler's (it has no other). */
static void test_scheduler_name(void **state)
{
	static const struct sched_name_case cases[] = {
		{ false, NULL, NULL, true },
		{ false, NULL, "default-scheduler", true },
		{ false, NULL, "echelon", true },
		{ false, NULL, "other", false },
		{ false, "mine", "mine", true },
		{ false, "mine", "echelon", false },
		{ true, NULL, NULL, false },
		{ true, NULL, "default-scheduler", false },
		{ true, NULL, "echelon", true },
		{ true, "mine", "echelon", false },
		{ true, "mine", "mine", true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct sched_name_case *c = &cases[i];
		struct serve_sched_options o;
		char spec[64] = "";
		struct env e;

		serve_sched_options_init(&o);
		o.kube = c->kube;
		if (c->name)
			o.scheduler_name = c->name;
		env_start_opts(&e, quickstart(), T0, &o);
		if (c->sched)
			snprintf(spec, sizeof(spec),
				 "\"schedulerName\":\"%s\",", c->sched);
		pod_with(&e, "p", "{}", spec, "");
		pod_with(&e, "q",
			 "{\"kueue.x-k8s.io/queue-name\":\"training\"}", spec,
			 "");
		advance(&e, S);
		if (c->bound != (node_of_pod(e.s, "p") != NULL) ||
		    c->bound != (node_of_pod(e.s, "q") != NULL))
			fail_msg("case %zu: pods %s, want %s", i,
				 node_of_pod(e.s, "p") ? "bound" : "unbound",
				 c->bound ? "bound" : "unbound");
		env_stop(&e);
	}
}

struct unsupported_case {
	const char *spec, *ctr; /* members added to the pod */
	const char *field;
};

/* Each version of pod p0 in the changes read has label team=x. */
static int p0_labelled(void *ctx, const struct api_event *ev)
{
	const json_t *labels;

	if (ev->kind != K_POD || strcmp(ev->name, "p0"))
		return 0;
	labels = json_object_get(
		json_object_get(api_event_body(ev), "metadata"), "labels");
	assert_string_equal(
		json_string_value(json_object_get(labels, "team")) ?: "", "x");
	(*(int *)ctx)++;
	return 0;
}

/*
 * Pods that ask for what echelon cannot honour are never placed: their
 * PodScheduled condition says SchedulerError and names the field, and
 * their gang gets one Warning Event (a plain pod's is the pod).
 */
static void test_unsupported(void **state)
{
	static const struct unsupported_case cases[] = {
		{ "\"affinity\":{\"podAffinity\":{\"requiredDuringScheduling"
		  "IgnoredDuringExecution\":[{\"topologyKey\":\"zone\"}]}},",
		  "", "spec.affinity.podAffinity" },
		{ "\"affinity\":{\"nodeAffinity\":null,\"podAntiAffinity\":{"
		  "\"preferredDuringSchedulingIgnoredDuringExecution\":[]}},",
		  "", NULL }, /* an empty one asks nothing */
		{ "\"affinity\":{\"podAntiAffinity\":{\"requiredDuring"
		  "SchedulingIgnoredDuringExecution\":[{\"topologyKey\":"
		  "\"kubernetes.io/hostname\"}]}},",
		  "", "spec.affinity.podAntiAffinity" },
		{ "\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey"
		  "\":\"zone\",\"whenUnsatisfiable\":\"DoNotSchedule\"}],",
		  "", "spec.topologySpreadConstraints" },
		{ "\"volumes\":[{\"name\":\"tmp\",\"emptyDir\":{}},{\"name\":"
		  "\"data\",\"persistentVolumeClaim\":{\"claimName\":\"d\"}}],",
		  "", "spec.volumes[1].persistentVolumeClaim" },
		{ "",
		  ",\"ports\":[{\"containerPort\":80},{\"containerPort\":"
		  "8080,\"hostPort\":8080}]",
		  "spec.containers[0].ports[1].hostPort" },
		{ "\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimName\":"
		  "\"c\"}],",
		  "", "spec.resourceClaims" },
	};
	char name[16], msg[128];
	uint64_t since;
	int versions = 0;
	struct env e;

	(void)state;
	env_start(&e, quickstart(), T0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(name, sizeof(name), "p%zu", i);
		pod_with(&e, name, "{}", cases[i].spec, cases[i].ctr);
	}
	{
		/* changed before the scheduler reads it: the condition is
		 * written on the pod as stored, the change kept */
		const struct api_obj *o =
			api_store_get(e.s, K_POD, "team-a", "p0");
		json_t *body = json_deep_copy(o->body);

		json_object_set_new(
			json_object_get(json_object_get(body, "metadata"),
					"labels"),
			"team", json_string("x"));
		assert_int_equal(
			api_store_update(e.s, K_POD, body, 0, e.now, NULL), 0);
	}
	since = api_store_rv(e.s);
	advance(&e, S);
	advance(&e, S);
	/* no version after it lost the change, not even for a while */
	assert_int_equal(api_store_events(e.s, since, p0_labelled, &versions),
			 0);
	assert_true(versions > 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(name, sizeof(name), "p%zu", i);
		if (!cases[i].field) {
			assert_non_null(node_of_pod(e.s, name));
			continue;
		}
		snprintf(msg, sizeof(msg), "%s is not supported by echelon",
			 cases[i].field);
		assert_null(node_of_pod(e.s, name));
		assert_string_equal(pod_scheduled(e.s, name, "status"),
				    "False");
		assert_string_equal(pod_scheduled(e.s, name, "reason"),
				    "SchedulerError");
		assert_string_equal(pod_scheduled(e.s, name, "message"), msg);
		assert_int_equal(events_about(e.s, name, "SchedulerError: "),
				 1);
	}
	/* a gang of two such pods: one Event, on its PodGroup */
	put(e.s, e.now,
	    "{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"pg\",\"namespace\":"
	    "\"team-a\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
	    "\"training\"}},\"spec\":{\"minMember\":2}}");
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "pg-%d", i);
		pod_with(&e, name, "{\"scheduling.x-k8s.io/pod-group\":\"pg\"}",
			 cases[3].spec, "");
	}
	advance(&e, S);
	advance(&e, S);
	assert_null(node_of_pod(e.s, "pg-0"));
	assert_null(node_of_pod(e.s, "pg-1"));
	assert_string_equal(pod_scheduled(e.s, "pg-1", "reason"),
			    "SchedulerError");
	assert_int_equal(events_about(e.s, "pg",
				      "SchedulerError: spec."
				      "topologySpreadConstraints"),
			 1);
	assert_int_equal(events_about(e.s, "pg-0", "SchedulerError"), 0);
	assert_int_equal(admitted_pods(e.x), 0);
	/* a Job whose template does: no Workload, one Event on the Job */
	put(e.s, e.now,
	    "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"
	    "\"name\":\"spread\",\"namespace\":\"team-a\",\"labels\":{"
	    "\"kueue.x-k8s.io/queue-name\":\"training\"}},\"spec\":{"
	    "\"parallelism\":2,\"completions\":2,\"template\":{\"spec\":{%s"
	    "\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"t\","
	    "\"image\":\"t\",\"resources\":{\"requests\":{\"cpu\":\"8\"}}}]}}}"
	    "}",
	    cases[3].spec);
	advance(&e, S);
	{
		int n;

		(void)workload_of(e.s, "spread", &n);
		assert_int_equal(n, 0);
	}
	assert_int_equal(events_about(e.s, "spread", "SchedulerError: "), 1);
	env_stop(&e);
}

/* Move pod team-a/name to node (NULL: unbound), as another binder, or a
 * replica reading back a bind the cluster refused, would show it. */
static void rebind_pod(struct env *e, const char *name, const char *node)
{
	json_t *o = json_deep_copy(
		api_store_get(e->s, K_POD, "team-a", name)->body);

	if (node)
		json_object_set_new(json_object_get(o, "spec"), "nodeName",
				    json_string(node));
	else
		json_object_del(json_object_get(o, "spec"), "nodeName");
	update(e->s, K_POD, o, e->now);
}

/* A node of rack r that no live pod uses (static). */
static const char *free_node(struct api_store *s, int r)
{
	static char name[16];

	for (int h = 0; h < 4; h++) {
		struct objs pods;
		bool used = false;

		snprintf(name, sizeof(name), "gpu-r%d-h%d", r, h);
		objs_of(s, K_POD, &pods);
		for (size_t i = 0; i < pods.n; i++) {
			const char *nn =
				sget(pods.items[i], "spec", "nodeName");

			used |= nn && !strcmp(nn, name) &&
				!terminal(pods.items[i]);
		}
		objs_release(&pods);
		if (!used)
			return name;
	}
	return NULL;
}

/*
 * A pod of an admitted gang found on another node than echelon bound it
 * to (someone else bound it), or unbound again (the cluster refused the
 * bind after all): the whole gang is evicted (its Job suspended) and
 * queued again, and runs again whole.
 */
static void test_binding_undone(void **state)
{
	static const bool elsewhere[] = { true, false };

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(elsewhere); c++) {
		struct env e;
		char *p;

		env_start(&e, quickstart(), T0);
		job(e.s, e.now, "llama", 2, "production");
		advance(&e, 2 * S);
		assert_int_equal(gang_of(e.s, "llama").bound, 2);
		p = xstrdup(pod_of_job(e.s, "llama"));
		rebind_pod(
			&e, p,
			elsewhere[c]
				? free_node(e.s, node_of_pod(e.s, p)[5] - '0')
				: NULL);
		settle(&e);
		assert_true(event_about(
			e.s, p, elsewhere[c] ? "bound to " : "unbound"));
		assert_true(suspended(e.s, "llama"));
		assert_int_equal(admitted_pods(e.x), 0);
		/* after the bind backoff, whole again */
		advance(&e, 3 * S);
		assert_false(suspended(e.s, "llama"));
		assert_int_equal(gang_of(e.s, "llama").bound, 2);
		assert_int_equal(gang_of(e.s, "llama").pods, 2);
		assert_int_equal(admitted_pods(e.x), 2);
		check_capacity(e.s);
		free(p);
		env_stop(&e);
	}
}

/*
 * A queued Job whose Workload is deleted (by hand; on a replica, one whose
 * create the cluster refused is gone once read again) gets a new one, as
 * Kueue's Job reconciler makes it: a Job too big to be admitted keeps
 * waiting in its queue, not without a Workload for ever.
 */
static void test_workload_deleted(void **state)
{
	const struct api_obj *o;
	char *uid;
	int n;

	struct env e;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "huge", 40, "production");
	advance(&e, S);
	o = api_store_get(e.s, K_WL, "team-a", workload_name(e.s, "huge"));
	assert_non_null(o);
	uid = xstrdup(o->uid);
	assert_int_equal(
		api_store_delete(e.s, K_WL, "team-a", o->name, 0, e.now), 0);
	advance(&e, S);
	(void)workload_of(e.s, "huge", &n);
	assert_int_equal(n, 1);
	o = api_store_get(e.s, K_WL, "team-a", workload_name(e.s, "huge"));
	assert_non_null(o);
	assert_string_not_equal(o->uid, uid);
	free(uid);
	env_stop(&e);
}

/*
 * A gang whose pods do not all come within the bind timeout (30 s after
 * its admission) is evicted and queued again, its quota free meanwhile.
 */
static void test_bind_timeout(void **state)
{
	struct env e;

	(void)state;
	env_start(&e, quickstart(), T0);
	put(e.s, e.now,
	    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\","
	    "\"metadata\":{\"name\":\"ghost\",\"namespace\":\"team-a\"},"
	    "\"spec\":{\"queueName\":\"training\",\"podSets\":[{\"name\":"
	    "\"main\",\"count\":2,\"template\":{\"spec\":{\"containers\":[{"
	    "\"name\":\"t\",\"resources\":{\"requests\":{\"cpu\":\"8\","
	    "\"nvidia.com/gpu\":\"8\"}}}]}}}]}}");
	advance(&e, S);
	assert_int_equal(admitted_pods(e.x), 2);
	advance(&e, 28 * S);
	assert_int_equal(admitted_pods(e.x), 2);
	assert_false(event_about(e.s, "ghost", "The workload was evicted"));
	advance(&e, 2 * S);
	assert_true(event_about(e.s, "ghost",
				"The workload was evicted: BindTimeout"));
	/* queued again after the bind backoff (1 s), admitted again */
	assert_true(event_about(e.s, "ghost",
				"The workload backoff was "
				"finished"));
	env_stop(&e);
}

/*
 * A pod shown unbound, then bound again to the same node, both read in
 * one sync (a replica: the cluster refused a bind, the refresh showed
 * the pod unbound, the bind sent again was answered): judged on the
 * pod as it is now, the gang is not evicted.
 */
static void test_binding_undone_then_redone(void **state)
{
	struct env e;
	char *p, *n;

	(void)state;
	env_start(&e, quickstart(), T0);
	job(e.s, e.now, "llama", 2, "production");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "llama").bound, 2);
	p = xstrdup(pod_of_job(e.s, "llama"));
	n = xstrdup(node_of_pod(e.s, p));
	rebind_pod(&e, p, NULL);
	rebind_pod(&e, p, n);
	settle(&e);
	assert_false(event_about(e.s, p, "unbound"));
	assert_false(suspended(e.s, "llama"));
	assert_int_equal(admitted_pods(e.x), 2);
	assert_string_equal(node_of_pod(e.s, p), n);
	check_capacity(e.s);
	free(p);
	free(n);
	env_stop(&e);
}

#define K_NPG kind("scheduling.k8s.io/v1beta1", "PodGroup")

/* A pod of 8 GPUs of native PodGroup pg. */
static void npg_pod(struct env *e, const char *name, const char *pg)
{
	char spec[96];

	snprintf(spec, sizeof(spec),
		 "\"schedulingGroup\":{\"podGroupName\":\"%s\"},", pg);
	pod_with(e, name, "{}", spec, "");
}

/*
 * Kubernetes' own PodGroup (scheduling.k8s.io, v1beta1 and v1alpha2):
 * the gang of the pods whose spec.schedulingGroup names it, once
 * gang.minCount of them exist, inside one domain of its topology key;
 * PodGroupInitiallyScheduled True once bound, False (Unschedulable, the
 * queue's reason) while it waits; adopted after a restart.
 */
static void test_native_pod_group(void **state)
{
	struct env e, r;
	const struct api_obj *o;
	char *nodes[4];
	char name[16];

	(void)state;
	env_start(&e, quickstart(), T0);
	put(e.s, e.now,
	    "{\"apiVersion\":\"scheduling.k8s.io/v1beta1\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"llama\",\"namespace\":"
	    "\"team-a\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
	    "\"training\"}},\"spec\":{\"schedulingPolicy\":{\"gang\":{"
	    "\"minCount\":3}},\"schedulingConstraints\":{\"topology\":[{"
	    "\"key\":\"topology-rack\"}]}}}");
	npg_pod(&e, "llama-0", "llama");
	npg_pod(&e, "llama-1", "llama");
	advance(&e, S);
	assert_null(node_of_pod(e.s, "llama-0"));
	npg_pod(&e, "llama-2", "llama");
	advance(&e, S);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "llama-%d", i);
		assert_non_null(node_of_pod(e.s, name));
		nodes[i] = xstrdup(node_of_pod(e.s, name));
		assert_int_equal(nodes[i][5], nodes[0][5]); /* one rack */
	}
	o = api_store_get(e.s, K_NPG, "team-a", "llama");
	assert_string_equal(
		cond_of(o->body, "PodGroupInitiallyScheduled", "status"),
		"True");
	/* v1alpha2, the basic policy: a gang of one */
	put(e.s, e.now,
	    "{\"apiVersion\":\"scheduling.k8s.io/v1alpha2\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"solo\",\"namespace\":"
	    "\"team-a\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
	    "\"training\"}},\"spec\":{\"schedulingPolicy\":{\"basic\":{}}}}");
	npg_pod(&e, "solo-0", "solo");
	advance(&e, S);
	assert_non_null(node_of_pod(e.s, "solo-0"));
	nodes[3] = xstrdup(node_of_pod(e.s, "solo-0"));
	assert_int_equal(admitted_pods(e.x), 4);
	/* no quota left: the next waits, and says so */
	put(e.s, e.now,
	    "{\"apiVersion\":\"scheduling.k8s.io/v1beta1\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"big\",\"namespace\":"
	    "\"team-a\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
	    "\"training\"}},\"spec\":{\"schedulingPolicy\":{\"gang\":{"
	    "\"minCount\":2}}}}");
	npg_pod(&e, "big-0", "big");
	npg_pod(&e, "big-1", "big");
	advance(&e, S);
	assert_null(node_of_pod(e.s, "big-0"));
	o = api_store_get(e.s, K_NPG, "team-a", "big");
	assert_string_equal(
		cond_of(o->body, "PodGroupInitiallyScheduled", "status"),
		"False");
	assert_string_equal(
		cond_of(o->body, "PodGroupInitiallyScheduled", "reason"),
		"Unschedulable");
	assert_string_equal(pod_scheduled(e.s, "big-0", "reason"),
			    "WaitingForQuota");
	/* a restart adopts the bound gangs where they are */
	env_start(&r, copy_store(e.s), e.now);
	env_stop(&e);
	advance(&r, S);
	assert_int_equal(admitted_pods(r.x), 4);
	assert_int_equal(usage_pods(r.x), 4);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), i < 3 ? "llama-%d" : "solo-0", i);
		assert_string_equal(node_of_pod(r.s, name), nodes[i]);
		free(nodes[i]);
	}
	assert_null(node_of_pod(r.s, "big-0"));
	check_capacity(r.s);
	env_stop(&r);
}

/* A refused pod of a native PodGroup: the group's condition is False
 * with reason SchedulerError. */
static void test_native_pod_group_refused(void **state)
{
	struct env e;
	const struct api_obj *o;

	(void)state;
	env_start(&e, quickstart(), T0);
	put(e.s, e.now,
	    "{\"apiVersion\":\"scheduling.k8s.io/v1beta1\",\"kind\":"
	    "\"PodGroup\",\"metadata\":{\"name\":\"pg\",\"namespace\":"
	    "\"team-a\"},\"spec\":{\"schedulingPolicy\":{\"gang\":{"
	    "\"minCount\":1}}}}");
	pod_with(&e, "pg-0", "{}",
		 "\"schedulingGroup\":{\"podGroupName\":\"pg\"},"
		 "\"resourceClaims\":[{\"name\":\"gpu\"}],",
		 "");
	advance(&e, S);
	assert_null(node_of_pod(e.s, "pg-0"));
	o = api_store_get(e.s, K_NPG, "team-a", "pg");
	assert_string_equal(
		cond_of(o->body, "PodGroupInitiallyScheduled", "reason"),
		"SchedulerError");
	assert_string_equal(
		cond_of(o->body, "PodGroupInitiallyScheduled", "message"),
		"spec.resourceClaims is not supported by echelon");
	assert_int_equal(events_about(e.s, "pg", "SchedulerError: "), 1);
	env_stop(&e);
}

/* A queued Job of n pods of gpus GPUs each, in one rack, through the
 * scheduler's hook (kube mode: not suspended, its pods wait). */
static void job_gpus(struct env *e, const char *name, int n, int gpus)
{
	put_to(e->x, e->s, e->now,
	       "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"
	       "\"name\":\"%s\",\"namespace\":\"team-a\",\"labels\":{"
	       "\"kueue.x-k8s.io/queue-name\":\"training\"}},\"spec\":{"
	       "\"parallelism\":%d,\"completions\":%d,\"completionMode\":"
	       "\"Indexed\",\"template\":{\"metadata\":{\"annotations\":{"
	       "\"kueue.x-k8s.io/podset-required-topology\":"
	       "\"topology-rack\"}},\"spec\":{\"schedulerName\":\"echelon\","
	       "\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"t\","
	       "\"image\":\"t\",\"resources\":{\"requests\":{\"cpu\":\"8\","
	       "\"nvidia.com/gpu\":\"%d\"}}}]}}}}",
	       name, n, n, gpus);
}

/* Pods of another scheduler, other-RH, bound to the first hosts nodes
 * of the first racks racks. */
static void other_pods(struct env *e, int racks, int hosts)
{
	char name[32], node[32];

	for (int r = 0; r < racks; r++) {
		for (int h = 0; h < hosts; h++) {
			snprintf(name, sizeof(name), "other-%d%d", r, h);
			snprintf(node, sizeof(node), "gpu-r%d-h%d", r, h);
			pod_with(e, name, "{}",
				 "\"schedulerName\":\"default-scheduler\",",
				 "");
			rebind_pod(e, name, node);
		}
	}
}

struct reason_case {
	const char *job;
	int pods, gpus;
	const char *reason, *message; /* PodScheduled's; message: a part */
};

/*
 * Why a Job's pods wait, on the pods themselves (kube mode: they exist
 * before admission): Unschedulable only when no node could ever hold
 * them (cluster-autoscaler scales up for that reason alone), queue
 * reasons with the plan's numbers otherwise. Two racks of 4 nodes, 3 of
 * each taken by pods of another scheduler; 32 GPUs of quota.
 */
static void test_pending_reasons(void **state)
{
	static const struct reason_case cases[] = {
		{ "huge", 1, 16, "Unschedulable", "" },
		{ "wide", 2, 8, "WaitingForTopology", "topology-rack" },
		{ "many", 5, 8, "ExceedsMaxQuota", "" },
	};
	struct serve_sched_options o = kube_options();
	struct env e;

	(void)state;
	env_start_opts(&e, quickstart(), T0, &o);
	other_pods(&e, 2, 3);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		job_gpus(&e, cases[i].job, cases[i].pods, cases[i].gpus);
	advance(&e, 2 * S);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *p = pod_of_job(e.s, cases[i].job);
		const char *reason, *msg;

		assert_non_null(p);
		reason = pod_scheduled(e.s, p, "reason");
		msg = pod_scheduled(e.s, p, "message");
		if (!reason || strcmp(reason, cases[i].reason) ||
		    !strstr(msg, cases[i].message))
			fail_msg("%s: %s: %s, want %s (%s)", cases[i].job,
				 reason ? reason : "(none)", msg ? msg : "",
				 cases[i].reason, cases[i].message);
	}
	env_stop(&e);
}

/* How many live pods of Job jobname do not say PodScheduled False with
 * reason (unbound ones only; *pods: how many live ones). */
static int pods_not_saying(struct api_store *s, const char *jobname,
			   const char *reason, int *pods)
{
	const struct api_obj *jb = api_store_get(s, K_JOB, "team-a", jobname);
	struct objs l;
	int n = 0;

	*pods = 0;
	objs_of(s, K_POD, &l);
	for (size_t i = 0; jb && i < l.n; i++) {
		const json_t *p = l.items[i];
		const char *r = cond_of(p, "PodScheduled", "reason");
		const char *st = cond_of(p, "PodScheduled", "status");

		if (strcmp(owner_uid(p) ? owner_uid(p) : "", jb->uid) ||
		    terminal(p) || sget(p, "spec", "nodeName"))
			continue;
		(*pods)++;
		n += !r || !st || strcmp(r, reason) || strcmp(st, "False");
	}
	objs_release(&l);
	return n;
}

/*
 * Pods that come after their gang's wait reason was written (the Job
 * controller makes a deleted one again; nothing the scheduler decides
 * changes) say it too: PodScheduled is written per pod, not only when
 * the reason changes.
 */
static void test_pending_reason_new_pods(void **state)
{
	struct serve_sched_options o = kube_options();
	struct env e;
	char name[16];
	int pods;

	(void)state;
	env_start_opts(&e, quickstart(), T0, &o);
	other_pods(&e, 2, 3);
	job_gpus(&e, "wide", 2, 8);
	advance(&e, 2 * S);
	assert_int_equal(
		pods_not_saying(e.s, "wide", "WaitingForTopology", &pods), 0);
	assert_int_equal(pods, 2);
	for (int round = 0; round < 2; round++) {
		snprintf(name, sizeof(name), "%s", pod_of_job(e.s, "wide"));
		assert_int_equal(
			api_store_delete(e.s, K_POD, "team-a", name, 0, e.now),
			0);
		/* made again after the Job controller's backoff */
		advance(&e, 25 * S);
		assert_int_equal(pods_not_saying(e.s, "wide",
						 "WaitingForTopology", &pods),
				 0);
		assert_int_equal(pods, 2);
	}
	env_stop(&e);
}

static int skip_obj(void *ctx, const struct api_obj *o)
{
	(void)ctx;
	(void)o;
	return 0;
}

struct progress_case {
	struct api_store *s;
	int calls;
};

/* The progress hook: counts, and adds a pod of echelon's the first time
 * (as a replica's reflector may, between events). */
static void count_progress(void *ctx)
{
	struct progress_case *p = ctx;

	if (p->calls++ == 0)
		put(p->s, T0,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
		    "\"name\":\"late\",\"namespace\":\"team-a\"},\"spec\":{"
		    "\"schedulerName\":\"echelon\",\"containers\":[{\"name\":"
		    "\"t\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}");
}

/*
 * A pass that reads many events calls the progress hook between them
 * (every SERVE_SCHED_PROGRESS_EVENTS), so that a daemon renews its Lease
 * during a long first pass; what the hook adds to the store is read by
 * the next pass.
 */
static void test_progress(void **state)
{
	struct serve_sched_options o = kube_options();
	struct progress_case p = { quickstart(), 0 };
	struct env e;
	int n = 2 * SERVE_SCHED_PROGRESS_EVENTS + 10;

	(void)state;
	for (int i = 0; i < n; i++)
		put(p.s, T0,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
		    "\"name\":\"other-%d\",\"namespace\":\"team-a\"},"
		    "\"spec\":{\"schedulerName\":\"default-scheduler\","
		    "\"containers\":[{\"name\":\"t\"}]}}",
		    i);
	o.progress = count_progress;
	o.progress_ctx = &p;
	env_start_opts(&e, p.s, T0, &o);
	(void)serve_sched_sync(e.x, e.now);
	assert_true(p.calls >= 2);
	assert_null(node_of_pod(e.s, "late"));
	(void)serve_sched_sync(e.x, e.now);
	assert_non_null(node_of_pod(e.s, "late"));
	env_stop(&e);
}

/* How many live pods owned by uid are bound. */
static int bound_of_uid(struct api_store *s, const char *uid)
{
	struct objs pods;
	int n = 0;

	objs_of(s, K_POD, &pods);
	for (size_t i = 0; i < pods.n; i++) {
		const json_t *p = pods.items[i];

		if (owner_uid(p) && !strcmp(owner_uid(p), uid) &&
		    !terminal(p) && sget(p, "spec", "nodeName"))
			n++;
	}
	objs_release(&pods);
	return n;
}

/*
 * Kube mode: a replica reads Jobs and Pods through separate watches, so
 * it can show a Job's pods before the Job. They wait for it, unbound:
 * bound one by one as plain pods, they would run before their gang's
 * admission is recorded (a new leader then finds them bound with no
 * record, and their nodes counted by no one). Once the Job is read, a
 * queued Job's pods are bound as its gang, and those of a Job that is
 * not queued as plain pods.
 */
static void test_pods_before_job(void **state)
{
	(void)state;
	for (int queued = 1; queued >= 0; queued--) {
		struct serve_sched_options o = kube_options();
		struct api_store *rs;
		struct objs pods;
		struct env e, r;
		json_t *jb;
		char *uid;

		env_start_opts(&e, quickstart(), T0, &o);
		job_for(&e, "llama", 2, "production", "echelon");
		advance(&e, 2 * S);
		assert_int_equal(gang_of(e.s, "llama").bound, 2);
		jb = json_deep_copy(
			api_store_get(e.s, K_JOB, "team-a", "llama")->body);
		uid = xstrdup(
			api_store_get(e.s, K_JOB, "team-a", "llama")->uid);
		json_object_del(json_object_get(jb, "metadata"), "annotations");
		json_object_del(jb, "status");
		if (!queued)
			json_object_del(json_object_get(jb, "metadata"),
					"labels");
		/* the replica: the Job's pods, unbound, and no Job */
		rs = copy_store_as(e.s, skip_obj);
		assert_int_equal(api_store_delete(rs, K_JOB, "team-a", "llama",
						  0, e.now),
				 0);
		objs_of(rs, K_POD, &pods);
		for (size_t i = 0; i < pods.n; i++) {
			json_t *p = json_deep_copy(pods.items[i]);

			json_object_del(json_object_get(p, "spec"), "nodeName");
			json_object_del(p, "status");
			update(rs, K_POD, p, e.now);
		}
		objs_release(&pods);
		env_start_opts(&r, rs, e.now, &o);
		env_stop(&e);
		/* the scheduler alone (the cluster would collect the pods of
		 * a Job it does not have) */
		for (int i = 0; i < 3; i++) {
			r.now += S;
			(void)serve_sched_sync(r.x, r.now);
		}
		assert_int_equal(bound_of_uid(r.s, uid), 0);
		/* the Job is read */
		assert_int_equal(api_store_mirror(r.s, K_JOB, jb, r.now, NULL),
				 0);
		advance(&r, 2 * S);
		assert_int_equal(bound_of_uid(r.s, uid), 2);
		assert_int_equal(admitted_pods(r.x), queued ? 2 : 0);
		free(uid);
		env_stop(&r);
	}
}

/*
 * A cluster without Kueue's Workload CRD: a Job's admission is kept on
 * the Job too, and a scheduler restarted over the cluster (no Workload
 * objects then) adopts it: its pods stay where they are, its quota is
 * counted, nothing is bound twice.
 */
static void test_job_admission_annotation(void **state)
{
	struct serve_sched_options o = kube_options();
	const struct api_obj *jb;
	struct env e, r;
	json_t *adm;
	char *nodes[2], *pods[2];
	int n;

	(void)state;
	o.workloads_remote = false;
	env_start_opts(&e, quickstart(), T0, &o);
	job_for(&e, "llama", 2, "production", "echelon");
	advance(&e, 2 * S);
	assert_int_equal(gang_of(e.s, "llama").bound, 2);
	jb = api_store_get(e.s, K_JOB, "team-a", "llama");
	adm = json_loads(
		json_string_value(json_object_get(
			json_object_get(json_object_get(jb->body, "metadata"),
					"annotations"),
			"echelon.dev/admission")),
		0, NULL);
	assert_non_null(adm);
	assert_string_equal(
		json_string_value(json_object_get(adm, "clusterQueue")),
		"team-a");
	json_decref(adm);
	for (int i = 0; i < 2; i++) {
		pods[i] = xstrdup(pod_of_job(e.s, "llama"));
		nodes[i] = xstrdup(node_of_pod(e.s, pods[i]));
		/* the next pod_of_job() finds the other one */
		rebind_pod(&e, pods[i], nodes[i]);
	}
	env_start_opts(&r, copy_store_as(e.s, skip_obj), e.now, &o);
	env_stop(&e);
	advance(&r, S);
	(void)workload_of(r.s, "llama", &n);
	assert_int_equal(n, 1);
	assert_int_equal(admitted_pods(r.x), 2);
	assert_int_equal(usage_pods(r.x), 2);
	assert_false(suspended(r.s, "llama"));
	for (int i = 0; i < 2; i++) {
		assert_string_equal(node_of_pod(r.s, pods[i]), nodes[i]);
		free(pods[i]);
		free(nodes[i]);
	}
	/* and the queue goes on: more than the quota left waits */
	job_for(&r, "next", 3, "research", "echelon");
	advance(&r, S);
	assert_int_equal(gang_of(r.s, "next").bound, 0);
	env_stop(&r);
}

/* A Workload as a replica that has not seen its admission yet has it. */
static int copy_wl_unadmitted(void *ctx, const struct api_obj *o)
{
	struct api_store *to = ctx;
	json_t *b = json_deep_copy(o->body);

	json_object_del(b, "status");
	assert_int_equal(api_store_load(to, o->kind, b), 0);
	return 0;
}

/*
 * A new leader whose replica shows a gang's pods bound before the
 * admission the old leader recorded for it (the record is written before
 * the binds, but Jobs, Workloads and Pods are watched apart). It does not
 * admit the gang again, elsewhere (its pods cannot move: the gang sat
 * partly bound in its eyes until the bind timeout evicted it, running):
 * it waits for the record and adopts it. Without Kueue's Workload CRD
 * (the record on the Job) and with it (the Workload's status); when none
 * comes, the gang is queued after 10 s, with a Warning Event.
 */
static void test_record_after_pods(void **state)
{
	static const bool remote[] = { false, true, false, true, false };
	static const bool comes[] = { true, true, false, true, true };
	/* the pods on each other's nodes: the record's nodes are a set in
	 * no pod's order (a bound pod keeps its node, none is evicted) */
	static const bool swapped[] = { false, false, false, true, true };

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(remote); c++) {
		struct serve_sched_options o = kube_options();
		const char *wl;
		json_t *rec;
		struct api_store *rs;
		struct env e, r;
		char name[16], *pods[2], *nodes[2];

		o.workloads_remote = remote[c];
		env_start_opts(&e, quickstart(), T0, &o);
		/* the old leader: rack r0 taken by another scheduler's pods,
		 * the gang goes to r1 */
		other_pods(&e, 1, 4);
		job_for(&e, "llama", 2, "production", "echelon");
		advance(&e, 2 * S);
		assert_int_equal(gang_of(e.s, "llama").bound, 2);
		for (int i = 0; i < 2; i++) {
			pods[i] = xstrdup(pod_of_job(e.s, "llama"));
			nodes[i] = xstrdup(node_of_pod(e.s, pods[i]));
			assert_int_equal(nodes[i][5], '1');
			rebind_pod(&e, pods[i], nodes[i]);
		}
		/* the record, as the cluster has it */
		wl = remote[c] ? workload_name(e.s, "llama") : NULL;
		rec = json_deep_copy(
			wl ? api_store_get(e.s, K_WL, "team-a", wl)->body
			   : api_store_get(e.s, K_JOB, "team-a", "llama")
					->body);
		json_object_del(json_object_get(rec, "metadata"),
				"resourceVersion");
		/* the new leader's replica: the pods bound, the record not
		 * there yet, rack r0 free again */
		rs = copy_store_as(e.s,
				   remote[c] ? copy_wl_unadmitted : skip_obj);
		if (!remote[c]) {
			json_t *jb = json_deep_copy(
				api_store_get(rs, K_JOB, "team-a", "llama")
					->body);

			json_object_del(
				json_object_get(json_object_get(jb, "metadata"),
						"annotations"),
				"echelon.dev/admission");
			update(rs, K_JOB, jb, e.now);
		}
		for (int h = 0; h < 4; h++) {
			snprintf(name, sizeof(name), "other-0%d", h);
			assert_int_equal(api_store_delete(rs, K_POD, "team-a",
							  name, 0, e.now),
					 0);
		}
		if (swapped[c]) {
			char *t = nodes[0];

			nodes[0] = nodes[1];
			nodes[1] = t;
			for (int i = 0; i < 2; i++) {
				json_t *pb = json_deep_copy(
					api_store_get(rs, K_POD, "team-a",
						      pods[i])
						->body);

				json_object_set_new(json_object_get(pb, "spec"),
						    "nodeName",
						    json_string(nodes[i]));
				update(rs, K_POD, pb, e.now);
			}
		}
		env_start_opts(&r, rs, e.now, &o);
		env_stop(&e);
		advance(&r, S);
		assert_int_equal(admitted_pods(r.x), 0);
		if (!comes[c]) {
			/* none comes: queued after 10 s, and told */
			json_decref(rec);
			advance(&r, 9 * S);
			assert_int_equal(
				events_about(r.s, workload_name(r.s, "llama"),
					     "its pods are bound"),
				1);
			assert_int_equal(admitted_pods(r.x), 2);
			for (int i = 0; i < 2; i++) {
				free(pods[i]);
				free(nodes[i]);
			}
			env_stop(&r);
			continue;
		}
		/* the record comes */
		update(r.s, remote[c] ? K_WL : K_JOB, rec, r.now);
		advance(&r, 40 * S);
		assert_int_equal(events_about(r.s, workload_name(r.s, "llama"),
					      "The workload was evicted"),
				 0);
		assert_false(suspended(r.s, "llama"));
		for (int i = 0; i < 2; i++) {
			assert_string_equal(node_of_pod(r.s, pods[i]),
					    nodes[i]);
			free(pods[i]);
			free(nodes[i]);
		}
		assert_int_equal(admitted_pods(r.x), 2);
		assert_int_equal(usage_pods(r.x), 2);
		check_capacity(r.s);
		env_stop(&r);
	}
}

/*
 * While a new leader waits for a gang's admission record, the gang's
 * bound pods hold their nodes: a gang admitted meanwhile is not placed on
 * them (it would share their GPUs). Rack r0 is another scheduler's, the
 * waiting gang has 2 hosts of r1, a gang of a whole rack must wait; it
 * still waits once the record is adopted (or, none read, the gang is
 * queued after 10 s), and the nodes' usage is a rebuild's throughout.
 */
static void test_record_wait_holds_nodes(void **state)
{
	(void)state;
	for (int comes = 1; comes >= 0; comes--) {
		struct serve_sched_options o = kube_options();
		struct api_store *rs;
		struct env e, r;
		json_t *rec;

		o.workloads_remote = true;
		env_start_opts(&e, quickstart(), T0, &o);
		other_pods(&e, 1, 4);
		job_for(&e, "llama", 2, "production", "echelon");
		advance(&e, 2 * S);
		assert_int_equal(gang_of(e.s, "llama").bound, 2);
		rec = json_deep_copy(api_store_get(e.s, K_WL, "team-a",
						   workload_name(e.s, "llama"))
					     ->body);
		json_object_del(json_object_get(rec, "metadata"),
				"resourceVersion");
		rs = copy_store_as(e.s, copy_wl_unadmitted);
		env_start_opts(&r, rs, e.now, &o);
		env_stop(&e);
		advance(&r, S);
		assert_int_equal(admitted_pods(r.x), 0);
		check_plain_usage(&r, 0);
		job_for(&r, "big", 4, "production", "echelon");
		advance(&r, 2 * S);
		assert_int_equal(gang_of(r.s, "big").bound, 0);
		check_plain_usage(&r, 0);
		if (comes) {
			update(r.s, K_WL, rec, r.now);
			advance(&r, 2 * S);
			assert_int_equal(
				admitted_pods_of(r.x, "job-llama", true), 2);
		} else {
			json_decref(rec);
			advance(&r, 9 * S);
		}
		assert_int_equal(gang_of(r.s, "big").bound, 0);
		check_plain_usage(&r, 0);
		env_stop(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_lifecycle),
		cmocka_unit_test(test_quota_competition),
		cmocka_unit_test(test_queue_status_no_rebuild),
		cmocka_unit_test(test_preemption),
		cmocka_unit_test(test_node_not_ready),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_pod_gangs),
		cmocka_unit_test(test_pod_group_occupied_by),
		cmocka_unit_test(test_restart_pod_group),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_restart_pod_group_partly_bound),
		cmocka_unit_test(test_restart_plain_pod),
		cmocka_unit_test(test_workload_names),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_relist),
		cmocka_unit_test(test_restart_midway),
		cmocka_unit_test(test_partial_admission),
		cmocka_unit_test(test_cordon),
		cmocka_unit_test(test_pod_group_status_no_rebuild),
		cmocka_unit_test(test_release_unbound),
		cmocka_unit_test(test_release_replacement),
		cmocka_unit_test(test_release_bind_failed),
		cmocka_unit_test(test_plain_pod_failed),
		cmocka_unit_test(test_write_budget),
		cmocka_unit_test(test_plain_pod_failed_pending),
		cmocka_unit_test(test_restart_plain_pod_failed),
		cmocka_unit_test(test_pod_group_failed),
		cmocka_unit_test(test_job_orphaned),
		cmocka_unit_test(test_kube_jobs),
		cmocka_unit_test(test_scheduler_name),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_binding_undone),
		cmocka_unit_test(test_binding_undone_then_redone),
		cmocka_unit_test(test_bind_timeout),
		cmocka_unit_test(test_workload_deleted),
		cmocka_unit_test(test_native_pod_group),
		cmocka_unit_test(test_native_pod_group_refused),
		cmocka_unit_test(test_job_admission_annotation),
		cmocka_unit_test(test_pending_reasons),
		cmocka_unit_test(test_pending_reason_new_pods),
		cmocka_unit_test(test_record_after_pods),
		cmocka_unit_test(test_pods_before_job),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_record_wait_holds_nodes),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the embedded cluster's controllers, driving a store directly
 * (no HTTP): an Indexed Job's pods (names, labels, annotations,
 * ownerReferences) through binding, start-up and completion to Complete;
 * suspend and resume; backoffLimit; the failure rate; a node going
 * NotReady or away; garbage collection in the three propagation modes;
 * Events and their repeats; and a seeded randomized run of many Jobs with
 * random binds, deletes, suspends and node failures, checking Kubernetes'
 * invariants and that the controllers settle.
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
#include <time.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/rng.h"
#include "serve/serve_cluster.h"
#include "serve/serve_event.h"
#include "testutil.h"

#define T0  1796130000000000LL /* 2026-12-01T13:00:00Z */
#define SEC 1000000LL
#define NS  "default"

struct fx {
	struct api_store *s;
	struct serve_cluster *c;
	int64_t now;
	const struct api_kind *pod, *job, *node, *event;
};

static void fx_init(struct fx *f, double failure_rate)
{
	struct serve_cluster_options o = {
		.startup_us = 10 * SEC,
		.seed = 7,
		.pod_failure_rate = failure_rate,
	};

	memset(f, 0, sizeof(*f));
	f->s = api_store_new(NULL);
	f->c = serve_cluster_new(f->s, &o);
	f->now = T0;
	f->pod = api_kind_of("v1", "Pod");
	f->job = api_kind_of("batch/v1", "Job");
	f->node = api_kind_of("v1", "Node");
	f->event = api_kind_of("v1", "Event");
}

static void fx_release(struct fx *f)
{
	serve_cluster_free(f->c);
	api_store_free(f->s);
}

/* Sync until the controllers write nothing; they must settle. */
static void settle(struct fx *f)
{
	int rounds = 0;

	while (serve_cluster_sync(f->c, f->now) > 0)
		assert_true(++rounds < 50);
	assert_int_equal(serve_cluster_sync(f->c, f->now), 0);
}

/* Advance the clock to `to`, firing each timer at its time. */
static void advance(struct fx *f, int64_t to)
{
	int64_t next;

	settle(f);
	while ((next = serve_cluster_next_us(f->c)) <= to) {
		/* due at now still: a turn's timer budget is spent */
		f->now = next > f->now ? next : f->now + 1;
		settle(f);
	}
	f->now = to;
	settle(f);
}

/* A Node with the status given as JSON. */
static void add_node_status(struct fx *f, const char *name, const char *status)
{
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":"
		 "{\"name\":\"%s\"},\"status\":%s}",
		 name, status);
	assert_int_equal(api_store_create(f->s, f->node, testutil_json(buf),
					  f->now, NULL),
			 0);
}

static void add_node(struct fx *f, const char *name)
{
	add_node_status(
		f, name,
		"{\"capacity\":{\"cpu\":\"8\",\"nvidia.com/gpu\":\"8\"}}");
}

/* A Job; extra is JSON merged into spec (may be NULL). */
static void add_job(struct fx *f, const char *name, const char *spec)
{
	char buf[1024];
	json_t *job;

	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":"
		 "{\"name\":\"%s\",\"namespace\":\"" NS "\"},\"spec\":{"
		 "\"template\":{\"metadata\":{\"labels\":{\"app\":\"x\"},"
		 "\"annotations\":{\"sim.echelon.dev/duration\":\"60s\"}},"
		 "\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{"
		 "\"name\":\"main\",\"image\":\"busybox\"}]}}}}",
		 name);
	job = testutil_json(buf);
	if (spec) {
		json_t *extra = testutil_json(spec);

		json_object_update(json_object_get(job, "spec"), extra);
		json_decref(extra);
	}
	assert_int_equal(api_store_create(f->s, f->job, job, f->now, NULL), 0);
}

static const char *jstr(const json_t *o, const char *path)
{
	char key[64];

	while (o) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		o = json_object_get(o, key);
		if (!dot)
			return json_string_value(o);
		path = dot + 1;
	}
	return NULL;
}

static json_int_t jint(const json_t *o, const char *a, const char *b)
{
	return json_integer_value(json_object_get(json_object_get(o, a), b));
}

static const json_t *cond(const json_t *obj, const char *type)
{
	size_t i;
	json_t *c;

	json_array_foreach(
		json_object_get(json_object_get(obj, "status"), "conditions"),
		i, c)
	{
		if (strcmp(json_string_value(json_object_get(c, "type")),
			   type) == 0)
			return c;
	}
	return NULL;
}

static const char *cond_status(const json_t *obj, const char *type)
{
	const json_t *c = cond(obj, type);

	return c ? json_string_value(json_object_get(c, "status")) : NULL;
}

struct names {
	char items[256][128];
	size_t n;
	const char *label; /* job-name to match, or NULL */
	const char *node;  /* spec.nodeName to match, or NULL */
};

static int collect(void *ctx, const struct api_obj *o)
{
	struct names *x = ctx;
	const char *j = jstr(o->body, "metadata.labels.job-name");
	const char *n = jstr(o->body, "spec.nodeName");

	if (x->label && (!j || strcmp(j, x->label) != 0))
		return 0;
	if (x->node && (!n || strcmp(n, x->node) != 0))
		return 0;
	if (x->n < 256)
		snprintf(x->items[x->n++], 128, "%s", o->name);
	return 0;
}

static void pods_of(struct fx *f, const char *job, struct names *out)
{
	memset(out, 0, sizeof(*out));
	out->label = job;
	assert_int_equal(
		api_store_each(f->s, f->pod, NS, NULL, NULL, collect, out), 0);
}

static const json_t *get(struct fx *f, const struct api_kind *k,
			 const char *name)
{
	const struct api_obj *o =
		api_store_get(f->s, k, k->namespaced ? NS : "", name);

	return o ? o->body : NULL;
}

/* Bind as a scheduler does, through the binding subresource's
 * implementation. */
static void bind(struct fx *f, const char *pod, const char *node)
{
	struct errbuf err;

	assert_int_equal(api_bind(f->s, NS, pod, NULL, node, f->now, &err), 0);
}

static void bind_all(struct fx *f, const char *job, const char *node)
{
	struct names p;

	pods_of(f, job, &p);
	for (size_t i = 0; i < p.n; i++)
		if (!jstr(get(f, f->pod, p.items[i]), "spec.nodeName"))
			bind(f, p.items[i], node);
}

/* Events about name with reason; the count of the last one in *count. */
struct evq {
	const char *name, *reason;
	size_t n;
	json_int_t count;
};

static int ev_match(void *ctx, const struct api_obj *o)
{
	struct evq *q = ctx;

	if (strcmp(jstr(o->body, "involvedObject.name"), q->name) == 0 &&
	    strcmp(jstr(o->body, "reason"), q->reason) == 0) {
		q->n++;
		q->count =
			json_integer_value(json_object_get(o->body, "count"));
	}
	return 0;
}

static size_t events(struct fx *f, const char *name, const char *reason,
		     json_int_t *count)
{
	struct evq q = { .name = name, .reason = reason };

	assert_int_equal(
		api_store_each(f->s, f->event, NULL, NULL, NULL, ev_match, &q),
		0);
	if (count)
		*count = q.count;
	return q.n;
}

static void update(struct fx *f, const struct api_kind *k, const char *name,
		   const char *path, json_t *v)
{
	const struct api_obj *o =
		api_store_get(f->s, k, k->namespaced ? NS : "", name);
	json_t *b = json_deep_copy(o->body);
	json_t *at = b;
	char key[64];

	for (;;) {
		const char *dot = strchr(path, '.');

		snprintf(key, sizeof(key), "%.*s",
			 (int)(dot ? (size_t)(dot - path) : strlen(path)),
			 path);
		if (!dot) {
			json_object_set_new(at, key, v);
			break;
		}
		if (!json_object_get(at, key))
			json_object_set_new(at, key, json_object());
		at = json_object_get(at, key);
		path = dot + 1;
	}
	assert_int_equal(api_store_update(f->s, k, b, 0, f->now, NULL), 0);
}

/* Patch the node's Ready condition, as `kubectl patch` or a node
 * controller would. */
static void set_ready(struct fx *f, const char *node, bool ready)
{
	json_t *conds = json_deep_copy(json_object_get(
		json_object_get(get(f, f->node, node), "status"),
		"conditions"));

	for (size_t i = 0; i < json_array_size(conds); i++) {
		json_t *c = json_array_get(conds, i);

		if (strcmp(jstr(c, "type"), "Ready") == 0)
			json_object_set_new(
				c, "status",
				json_string(ready ? "True" : "False"));
	}
	update(f, f->node, node, "status.conditions", conds);
}

/* A Job whose pods run on node: created, bound, past start-up. */
static void start_job(struct fx *f, const char *name, const char *spec,
		      const char *node)
{
	add_job(f, name, spec);
	settle(f);
	bind_all(f, name, node);
	advance(f, f->now + 20 * SEC);
}

/* ---- an Indexed Job, start to finish ---- */

static void check_indexed_pod(const json_t *pod, const char *job_uid, int ix)
{
	char want[32], host[32], name_prefix[32];
	const json_t *refs = json_object_get(json_object_get(pod, "metadata"),
					     "ownerReferences");
	const json_t *ref = json_array_get(refs, 0);
	const char *name = jstr(pod, "metadata.name");
	const json_t *env = json_object_get(
		json_array_get(
			jstr(pod, "spec.hostname")
				? json_object_get(json_object_get(pod, "spec"),
						  "containers")
				: NULL,
			0),
		"env");

	snprintf(want, sizeof(want), "%d", ix);
	snprintf(host, sizeof(host), "train-%d", ix);
	snprintf(name_prefix, sizeof(name_prefix), "train-%d-", ix);
	assert_int_equal(strlen(name), strlen(name_prefix) + 5);
	assert_memory_equal(name, name_prefix, strlen(name_prefix));
	assert_string_equal(jstr(pod, "metadata.generateName"), name_prefix);
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(pod, "metadata"),
					"labels"),
			"batch.kubernetes.io/job-name")),
		"train");
	assert_string_equal(jstr(pod, "metadata.labels.job-name"), "train");
	assert_string_equal(jstr(pod, "metadata.labels.app"), "x");
	assert_string_equal(
		jstr(json_object_get(json_object_get(pod, "metadata"),
				     "labels"),
		     "controller-uid"),
		job_uid);
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(pod, "metadata"),
					"labels"),
			"batch.kubernetes.io/controller-uid")),
		job_uid);
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(pod, "metadata"),
					"labels"),
			"batch.kubernetes.io/job-completion-index")),
		want);
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(pod, "metadata"),
					"annotations"),
			"batch.kubernetes.io/job-completion-index")),
		want);
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(pod, "metadata"),
					"annotations"),
			"sim.echelon.dev/duration")),
		"60s");
	assert_int_equal(json_array_size(refs), 1);
	assert_string_equal(jstr(ref, "apiVersion"), "batch/v1");
	assert_string_equal(jstr(ref, "kind"), "Job");
	assert_string_equal(jstr(ref, "name"), "train");
	assert_string_equal(jstr(ref, "uid"), job_uid);
	assert_true(json_is_true(json_object_get(ref, "controller")));
	assert_true(json_is_true(json_object_get(ref, "blockOwnerDeletion")));
	assert_string_equal(jstr(pod, "spec.schedulerName"),
			    "default-scheduler");
	assert_string_equal(jstr(pod, "spec.hostname"), host);
	assert_string_equal(jstr(json_array_get(env, 0), "name"),
			    "JOB_COMPLETION_INDEX");
	assert_string_equal(
		json_string_value(json_array_get(
			json_object_get(json_object_get(pod, "metadata"),
					"finalizers"),
			0)),
		"batch.kubernetes.io/job-tracking");
	assert_string_equal(jstr(pod, "status.phase"), "Pending");
}

static int pod_index_of(const json_t *pod)
{
	return (int)strtol(
		json_string_value(json_object_get(
			json_object_get(json_object_get(pod, "metadata"),
					"annotations"),
			"batch.kubernetes.io/job-completion-index")),
		NULL, 10);
}

static void test_indexed_job(void **state)
{
	struct fx f;
	struct names p;
	const json_t *job, *node, *pod;
	char uid[64];
	int seen[4] = { 0 };

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	add_job(&f, "train",
		"{\"completions\":4,\"parallelism\":4,"
		"\"completionMode\":\"Indexed\"}");
	settle(&f);

	node = get(&f, f.node, "n1");
	assert_string_equal(cond_status(node, "Ready"), "True");
	assert_string_equal(jstr(cond(node, "Ready"), "reason"),
			    "KubeletReady");
	assert_string_equal(jstr(node, "status.nodeInfo.kubeletVersion"),
			    "v1.35.0");
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(node, "status"),
					"allocatable"),
			"nvidia.com/gpu")),
		"8");

	job = get(&f, f.job, "train");
	snprintf(uid, sizeof(uid), "%s", jstr(job, "metadata.uid"));
	pods_of(&f, "train", &p);
	assert_int_equal(p.n, 4);
	for (size_t i = 0; i < p.n; i++) {
		pod = get(&f, f.pod, p.items[i]);
		seen[pod_index_of(pod)]++;
		check_indexed_pod(pod, uid, pod_index_of(pod));
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(seen[i], 1);
	job = get(&f, f.job, "train");
	assert_int_equal(jint(job, "status", "active"), 4);
	assert_int_equal(jint(job, "status", "ready"), 0);
	assert_non_null(jstr(job, "status.startTime"));
	assert_int_equal(
		json_object_size(json_object_get(json_object_get(job, "status"),
						 "uncountedTerminatedPods")),
		0);
	assert_int_equal(events(&f, "train", "SuccessfulCreate", NULL), 4);

	/* Bound: accepted at once, Running and Ready after the start-up. */
	bind_all(&f, "train", "n1");
	settle(&f);
	pod = get(&f, f.pod, p.items[0]);
	assert_string_equal(jstr(pod, "status.phase"), "Pending");
	assert_non_null(jstr(pod, "status.startTime"));
	assert_non_null(jstr(pod, "status.hostIP"));
	assert_string_equal(
		jstr(json_array_get(
			     json_object_get(json_object_get(pod, "status"),
					     "containerStatuses"),
			     0),
		     "state.waiting.reason"),
		"ContainerCreating");
	advance(&f, T0 + 9 * SEC);
	assert_string_equal(jstr(get(&f, f.pod, p.items[0]), "status.phase"),
			    "Pending");
	advance(&f, T0 + 12 * SEC);
	for (size_t i = 0; i < p.n; i++) {
		pod = get(&f, f.pod, p.items[i]);
		assert_string_equal(jstr(pod, "status.phase"), "Running");
		assert_string_equal(cond_status(pod, "Ready"), "True");
		assert_string_equal(cond_status(pod, "ContainersReady"),
				    "True");
		assert_string_equal(cond_status(pod, "Initialized"), "True");
		assert_string_equal(
			cond_status(pod, "PodReadyToStartContainers"), "True");
		assert_string_equal(cond_status(pod, "PodScheduled"), "True");
		assert_memory_equal(jstr(pod, "status.podIP"), "10.", 3);
		assert_true(json_is_true(json_object_get(
			json_array_get(
				json_object_get(json_object_get(pod, "status"),
						"containerStatuses"),
				0),
			"ready")));
	}
	job = get(&f, f.job, "train");
	assert_int_equal(jint(job, "status", "ready"), 4);

	/* Succeeded after the duration: the Job completes. */
	advance(&f, T0 + 80 * SEC);
	for (size_t i = 0; i < p.n; i++) {
		pod = get(&f, f.pod, p.items[i]);
		assert_string_equal(jstr(pod, "status.phase"), "Succeeded");
		assert_null(json_object_get(json_object_get(pod, "metadata"),
					    "finalizers"));
		assert_string_equal(
			jstr(json_array_get(
				     json_object_get(
					     json_object_get(pod, "status"),
					     "containerStatuses"),
				     0),
			     "state.terminated.reason"),
			"Completed");
	}
	job = get(&f, f.job, "train");
	assert_string_equal(jstr(job, "status.completedIndexes"), "0-3");
	assert_int_equal(jint(job, "status", "succeeded"), 4);
	assert_null(json_object_get(json_object_get(job, "status"), "active"));
	assert_string_equal(cond_status(job, "SuccessCriteriaMet"), "True");
	assert_string_equal(cond_status(job, "Complete"), "True");
	assert_string_equal(jstr(cond(job, "Complete"), "reason"),
			    "CompletionsReached");
	assert_non_null(jstr(job, "status.completionTime"));
	assert_int_equal(events(&f, "train", "Completed", NULL), 1);

	/* Quiet: nothing due but the node's Lease, renewed every 10 s,
	 * and the Events' expiry an hour on. */
	assert_true(serve_cluster_next_us(f.c) <= f.now + 10 * SEC);
	assert_int_equal(serve_cluster_sync(f.c, f.now), 0);
	advance(&f, f.now + 7200 * SEC);
	assert_int_equal(api_store_count(f.s, f.event), 0);
	assert_true(serve_cluster_next_us(f.c) <= f.now + 10 * SEC);
	fx_release(&f);
}

/* Names as Kubernetes generates them for long Job names (63 bytes):
 * Indexed "<job cut>-<index>-" and NonIndexed "<job>-" cut to 58 bytes,
 * then 5 random characters. */
static void test_long_names(void **state)
{
	static const char job[] = "a123456789b123456789c123456789d123456789"
				  "e123456789f123456789abc";
	struct fx f;
	struct names p;
	char spec[128];

	(void)state;
	assert_int_equal(strlen(job), 63);
	for (int indexed = 0; indexed < 2; indexed++) {
		const char *name, *gen;

		fx_init(&f, 0);
		snprintf(spec, sizeof(spec), "{\"completionMode\":\"%s\"}",
			 indexed ? "Indexed" : "NonIndexed");
		add_job(&f, job, spec);
		settle(&f);
		pods_of(&f, job, &p);
		assert_int_equal(p.n, 1);
		name = p.items[0];
		gen = jstr(get(&f, f.pod, name), "metadata.generateName");
		assert_int_equal(strlen(gen), 58);
		assert_int_equal(strlen(name), 63);
		assert_memory_equal(name, gen, 58);
		if (indexed) {
			assert_memory_equal(gen, job, 55);
			assert_string_equal(gen + 55, "-0-");
		} else {
			assert_memory_equal(gen, job, 58);
		}
		fx_release(&f);
	}
}

/* ---- suspend and resume ---- */

/* The runtime written on the Job, as echelon sim reads it, reaches its
 * pods (and so their kubelets); a template's own one wins. */
static void test_duration_on_job(void **state)
{
	static const struct {
		const char *tmpl_ann; /* template annotations, JSON */
		const char *want;
	} table[] = {
		{ "{}", "90s" },
		{ "{\"sim.echelon.dev/duration\":\"5m\"}", "5m" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		struct fx f;
		struct names p;
		char buf[1024];
		const json_t *ann;

		fx_init(&f, 0);
		add_node(&f, "n1");
		snprintf(buf, sizeof(buf),
			 "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
			 "\"metadata\":{\"name\":\"j\",\"namespace\":\"" NS
			 "\",\"annotations\":{\"sim.echelon.dev/duration\":"
			 "\"90s\"}},\"spec\":{\"template\":{\"metadata\":{"
			 "\"annotations\":%s},\"spec\":{\"restartPolicy\":"
			 "\"Never\",\"containers\":[{\"name\":\"main\","
			 "\"image\":\"busybox\"}]}}}}",
			 table[i].tmpl_ann);
		assert_int_equal(api_store_create(f.s, f.job,
						  testutil_json(buf), f.now,
						  NULL),
				 0);
		settle(&f);
		pods_of(&f, "j", &p);
		assert_int_equal(p.n, 1);
		ann = json_object_get(
			json_object_get(get(&f, f.pod, p.items[0]), "metadata"),
			"annotations");
		assert_string_equal(json_string_value(json_object_get(
					    ann, "sim.echelon.dev/duration")),
				    table[i].want);
		fx_release(&f);
	}
}

static void test_suspend(void **state)
{
	struct fx f;
	struct names p;
	const json_t *job;

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	start_job(&f, "s", "{\"completions\":3,\"parallelism\":3}", "n1");
	pods_of(&f, "s", &p);
	assert_int_equal(p.n, 3);

	update(&f, f.job, "s", "spec.suspend", json_true());
	settle(&f);
	pods_of(&f, "s", &p);
	assert_int_equal(p.n, 0);
	job = get(&f, f.job, "s");
	assert_string_equal(cond_status(job, "Suspended"), "True");
	assert_string_equal(jstr(cond(job, "Suspended"), "reason"),
			    "JobSuspended");
	assert_null(json_object_get(json_object_get(job, "status"), "failed"));
	assert_null(json_object_get(json_object_get(job, "status"), "active"));
	assert_null(jstr(job, "status.startTime"));
	assert_int_equal(events(&f, "s", "SuccessfulDelete", NULL), 3);
	assert_int_equal(events(&f, "s", "Suspended", NULL), 1);

	update(&f, f.job, "s", "spec.suspend", json_false());
	settle(&f);
	job = get(&f, f.job, "s");
	assert_string_equal(cond_status(job, "Suspended"), "False");
	assert_string_equal(jstr(cond(job, "Suspended"), "reason"),
			    "JobResumed");
	assert_non_null(jstr(job, "status.startTime"));
	assert_int_equal(jint(job, "status", "active"), 3);
	assert_int_equal(events(&f, "s", "Resumed", NULL), 1);
	pods_of(&f, "s", &p);
	assert_int_equal(p.n, 3);
	fx_release(&f);
}

/* ---- backoffLimit ---- */

/* Fail the Job's pods that have not finished, as a kubelet would. */
static void fail_pods(struct fx *f, const char *job)
{
	struct names p;

	pods_of(f, job, &p);
	for (size_t i = 0; i < p.n; i++) {
		const json_t *pod = get(f, f->pod, p.items[i]);

		if (strcmp(jstr(pod, "status.phase"), "Failed") != 0)
			update(f, f->pod, p.items[i], "status.phase",
			       json_string("Failed"));
	}
}

static size_t npods(struct fx *f, const char *job)
{
	struct names p;

	pods_of(f, job, &p);
	return p.n;
}

/* Not finished and not being deleted: what the Job controller counts
 * as active. */
static bool is_active(const json_t *pod)
{
	const char *ph = jstr(pod, "status.phase");

	return !json_object_get(json_object_get(pod, "metadata"),
				"deletionTimestamp") &&
	       (!ph || (strcmp(ph, "Succeeded") && strcmp(ph, "Failed")));
}

static void test_backoff_limit(void **state)
{
	struct fx f;
	struct names p;
	const json_t *job;

	(void)state;
	fx_init(&f, 0);
	add_job(&f, "b", "{\"backoffLimit\":2}");
	settle(&f);
	assert_int_equal(npods(&f, "b"), 1);

	/* A failed pod is counted (after the 1 s batch period), loses its
	 * finalizer and is replaced after the back-off: 10 s, then 20 s. */
	fail_pods(&f, "b");
	advance(&f, T0 + SEC);
	job = get(&f, f.job, "b");
	assert_int_equal(jint(job, "status", "failed"), 1);
	assert_null(json_object_get(json_object_get(job, "status"), "active"));
	pods_of(&f, "b", &p);
	assert_int_equal(p.n, 1);
	assert_null(json_object_get(
		json_object_get(get(&f, f.pod, p.items[0]), "metadata"),
		"finalizers"));
	/* The pod shows no finish time: it failed when it was counted. */
	advance(&f, T0 + 11 * SEC - 1);
	assert_int_equal(npods(&f, "b"), 1);
	advance(&f, T0 + 11 * SEC);
	assert_int_equal(npods(&f, "b"), 2);
	assert_int_equal(jint(get(&f, f.job, "b"), "status", "active"), 1);

	fail_pods(&f, "b");
	advance(&f, T0 + 32 * SEC - 1);
	assert_int_equal(npods(&f, "b"), 2);
	advance(&f, T0 + 32 * SEC);
	assert_int_equal(npods(&f, "b"), 3);
	assert_null(cond(get(&f, f.job, "b"), "Failed"));

	/* failed > backoffLimit: the Job fails, nothing is replaced. */
	fail_pods(&f, "b");
	advance(&f, T0 + 600 * SEC);
	job = get(&f, f.job, "b");
	assert_int_equal(jint(job, "status", "failed"), 3);
	assert_string_equal(cond_status(job, "FailureTarget"), "True");
	assert_string_equal(cond_status(job, "Failed"), "True");
	assert_string_equal(jstr(cond(job, "Failed"), "reason"),
			    "BackoffLimitExceeded");
	assert_null(json_object_get(json_object_get(job, "status"), "active"));
	assert_int_equal(events(&f, "b", "BackoffLimitExceeded", NULL), 1);
	assert_int_equal(npods(&f, "b"), 3);

	/* activeDeadlineSeconds: Failed with DeadlineExceeded, pods gone. */
	add_job(&f, "d", "{\"activeDeadlineSeconds\":30}");
	settle(&f);
	advance(&f, f.now + 31 * SEC);
	job = get(&f, f.job, "d");
	assert_string_equal(cond_status(job, "Failed"), "True");
	assert_string_equal(jstr(cond(job, "Failed"), "reason"),
			    "DeadlineExceeded");
	pods_of(&f, "d", &p);
	assert_int_equal(p.n, 0);
	fx_release(&f);
}

/* ---- the failure rate ---- */

static void test_failure_rate(void **state)
{
	struct fx f;
	struct names p;
	const json_t *job, *pod = NULL;

	(void)state;
	/* 3600 failures per pod-hour: a pod lives about a second. */
	fx_init(&f, 3600.0);
	add_node(&f, "n1");
	add_job(&f, "r", "{\"backoffLimit\":0}");
	settle(&f);
	bind_all(&f, "r", "n1");
	advance(&f, T0 + 60 * SEC);
	job = get(&f, f.job, "r");
	assert_string_equal(cond_status(job, "Failed"), "True");
	pods_of(&f, "r", &p);
	assert_int_equal(p.n, 1);
	pod = get(&f, f.pod, p.items[0]);
	assert_string_equal(jstr(pod, "status.phase"), "Failed");
	assert_string_equal(
		jstr(json_array_get(
			     json_object_get(json_object_get(pod, "status"),
					     "containerStatuses"),
			     0),
		     "state.terminated.reason"),
		"Error");
	fx_release(&f);
}

/* ---- nodes ---- */

/* A node whose status no kubelet posted is registered as a kubelet does,
 * whatever Ready it came with (the bare Ready of manifests and --cluster,
 * or a Ready a restart's -f files put back): times, nodeInfo, addresses,
 * capacity; a node declared not Ready stays not Ready. */
static void test_node_registration(void **state)
{
	static const struct {
		const char *status; /* the node's status, as created */
		const char *ready, *reason;
	} table[] = {
		{ "{\"capacity\":{\"cpu\":\"8\"}}", "True", "KubeletReady" },
		{ "{\"allocatable\":{\"cpu\":\"8\"},\"conditions\":[{"
		  "\"type\":\"Ready\",\"status\":\"True\"}]}",
		  "True", "KubeletReady" },
		{ "{\"allocatable\":{\"cpu\":\"8\"},\"conditions\":[{"
		  "\"type\":\"Ready\",\"status\":\"True\",\"reason\":"
		  "\"KubeletReady\",\"message\":\"kubelet is posting ready "
		  "status\"}]}",
		  "True", "KubeletReady" },
		{ "{\"capacity\":{\"cpu\":\"8\"},\"conditions\":[{\"type\":"
		  "\"Ready\",\"status\":\"False\",\"reason\":\"Down\"}]}",
		  "False", "Down" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		struct fx f;
		const json_t *node, *ready;

		fx_init(&f, 0);
		add_node_status(&f, "n1", table[i].status);
		settle(&f);
		node = get(&f, f.node, "n1");
		ready = cond(node, "Ready");
		assert_non_null(jstr(ready, "lastHeartbeatTime"));
		assert_non_null(jstr(ready, "lastTransitionTime"));
		assert_non_null(jstr(ready, "reason"));
		assert_non_null(jstr(node, "status.nodeInfo.kubeletVersion"));
		assert_non_null(jstr(node, "status.capacity.cpu"));
		assert_string_equal(jstr(ready, "status"), table[i].ready);
		assert_string_equal(jstr(ready, "reason"), table[i].reason);
		assert_string_equal(
			jstr(node, "status.nodeInfo.kubeletVersion"),
			"v1.35.0");
		assert_string_equal(jstr(node, "status.capacity.cpu"), "8");
		assert_string_equal(jstr(node, "status.allocatable.cpu"), "8");
		assert_int_equal(
			json_array_size(json_object_get(
				json_object_get(node, "status"), "addresses")),
			2);
		fx_release(&f);
	}
}

static void test_node_lost(void **state)
{
	struct fx f;
	struct names p;
	const json_t *job, *pod;
	size_t lost = 0;

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	add_node(&f, "n2");
	add_job(&f, "a", "{\"completions\":2,\"parallelism\":2}");
	add_job(&f, "b", "{\"completions\":2,\"parallelism\":2}");
	settle(&f);
	bind_all(&f, "a", "n1");
	bind_all(&f, "b", "n2");
	advance(&f, T0 + 20 * SEC);

	/* n1 Ready=False: its pods fail at once, NodeLost. */
	set_ready(&f, "n1", false);
	settle(&f);
	pods_of(&f, "a", &p);
	for (size_t i = 0; i < p.n; i++) {
		pod = get(&f, f.pod, p.items[i]);
		if (jstr(pod, "spec.nodeName") &&
		    strcmp(jstr(pod, "spec.nodeName"), "n1") == 0) {
			assert_string_equal(jstr(pod, "status.phase"),
					    "Failed");
			assert_string_equal(jstr(pod, "status.reason"),
					    "NodeLost");
			lost++;
		}
	}
	assert_int_equal(lost, 2);
	advance(&f, f.now + SEC);
	job = get(&f, f.job, "a");
	assert_int_equal(jint(job, "status", "failed"), 2);
	/* Replaced after the back-off of two failures (20 s). */
	advance(&f, f.now + 20 * SEC);
	job = get(&f, f.job, "a");
	assert_int_equal(jint(job, "status", "active"), 2);

	/* n2 deleted: its pods are deleted (PodGC), counted as failed. */
	assert_int_equal(api_store_delete(f.s, f.node, "", "n2", 0, f.now), 0);
	settle(&f);
	pods_of(&f, "b", &p);
	assert_int_equal(p.n, 2);
	for (size_t i = 0; i < p.n; i++) /* terminating until counted */
		assert_false(is_active(get(&f, f.pod, p.items[i])));
	advance(&f, f.now + SEC);
	assert_int_equal(npods(&f, "b"), 0);
	job = get(&f, f.job, "b");
	assert_int_equal(jint(job, "status", "failed"), 2);
	advance(&f, f.now + 20 * SEC);
	assert_int_equal(jint(get(&f, f.job, "b"), "status", "active"), 2);
	fx_release(&f);
}

/* ---- the kubelet's Events ---- */

struct evfind {
	const char *name, *reason; /* name NULL: any object */
	size_t n;
	const json_t *last;
};

static int ev_find_one(void *ctx, const struct api_obj *o)
{
	struct evfind *q = ctx;

	if ((!q->name ||
	     strcmp(jstr(o->body, "involvedObject.name"), q->name) == 0) &&
	    strcmp(jstr(o->body, "reason"), q->reason) == 0) {
		q->n++;
		q->last = o->body;
	}
	return 0;
}

/* The Events with reason about name (NULL: any): how many, the last. */
static size_t ev_find(struct fx *f, const char *name, const char *reason,
		      const json_t **ret)
{
	struct evfind q = { .name = name, .reason = reason };

	assert_int_equal(api_store_each(f->s, f->event, NULL, NULL, NULL,
					ev_find_one, &q),
			 0);
	if (ret)
		*ret = q.last;
	return q.n;
}

#define TMPL_IMAGE(image)                                                      \
	"\"template\":{\"metadata\":{\"annotations\":{"                        \
	"\"sim.echelon.dev/duration\":\"60s\"}},\"spec\":{"                    \
	"\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"main\","      \
	"\"image\":\"" image "\"}]}}"

/* A started pod gets the kubelet's Pulling, Pulled, Created and Started
 * (an IfNotPresent image is pulled once per node), a pod deleted while
 * it runs Killing, once. */
static void test_kubelet_events(void **state)
{
	struct fx f;
	struct names p;
	const json_t *ev;
	size_t pulled = 0, present = 0;

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	add_job(&f, "k",
		"{\"completions\":2,\"parallelism\":2," TMPL_IMAGE(
			"busybox:1.36") "}");
	settle(&f);
	bind_all(&f, "k", "n1");
	settle(&f);
	assert_int_equal(ev_find(&f, NULL, "Pulling", &ev), 1);
	assert_string_equal(jstr(ev, "message"),
			    "Pulling image \"busybox:1.36\"");
	assert_int_equal(ev_find(&f, NULL, "Started", NULL), 0);
	advance(&f, T0 + 20 * SEC);

	pods_of(&f, "k", &p);
	assert_int_equal(p.n, 2);
	for (size_t i = 0; i < p.n; i++) {
		assert_int_equal(ev_find(&f, p.items[i], "Pulled", &ev), 1);
		/* pulled in the start-up delay: 10 s and up to 10 % more */
		if (strncmp(jstr(ev, "message"),
			    "Successfully pulled image \"busybox:1.36\" in 10",
			    46) == 0 &&
		    strstr(jstr(ev, "message"), "s including waiting). Image "
						"size: "))
			pulled++;
		else if (strcmp(jstr(ev, "message"),
				"Container image \"busybox:1.36\" already "
				"present on machine") == 0)
			present++;
		assert_int_equal(ev_find(&f, p.items[i], "Created", &ev), 1);
		assert_string_equal(jstr(ev, "message"),
				    "Created container: main");
		assert_int_equal(ev_find(&f, p.items[i], "Started", &ev), 1);
		assert_string_equal(jstr(ev, "message"),
				    "Started container main");
		assert_string_equal(jstr(ev, "type"), "Normal");
		assert_string_equal(jstr(ev, "source.component"), "kubelet");
		assert_string_equal(jstr(ev, "source.host"), "n1");
		assert_string_equal(jstr(ev, "reportingComponent"), "kubelet");
		assert_string_equal(jstr(ev, "reportingInstance"), "n1");
		assert_string_equal(jstr(ev, "involvedObject.fieldPath"),
				    "spec.containers{main}");
		assert_string_equal(jstr(ev, "involvedObject.kind"), "Pod");
		assert_null(json_object_get(ev, "action"));
	}
	assert_int_equal(pulled, 1);
	assert_int_equal(present, 1);

	/* Deleted while it runs: its container is stopped, once. */
	assert_int_equal(api_store_delete(f.s, f.pod, NS, p.items[0], 0, f.now),
			 0);
	advance(&f, f.now + 5 * SEC);
	assert_null(get(&f, f.pod, p.items[0]));
	assert_int_equal(ev_find(&f, p.items[0], "Killing", &ev), 1);
	assert_string_equal(jstr(ev, "message"), "Stopping container main");
	assert_int_equal(json_integer_value(json_object_get(ev, "count")), 1);
	assert_int_equal(ev_find(&f, p.items[1], "Killing", NULL), 0);
	/* A deleted node's pods go without a kubelet to stop them. */
	assert_int_equal(api_store_delete(f.s, f.node, "", "n1", 0, f.now), 0);
	advance(&f, f.now + 5 * SEC);
	assert_null(get(&f, f.pod, p.items[1]));
	assert_int_equal(ev_find(&f, p.items[1], "Killing", NULL), 0);
	fx_release(&f);
}

/* A kubelet records at most 100 Events at once (its eventBurst), then
 * 50 a second (eventRecordQPS). */
static void test_kubelet_event_budget(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	add_job(&f, "many",
		"{\"completions\":120,\"parallelism\":120," TMPL_IMAGE(
			"busybox:latest") "}");
	settle(&f);
	bind_all(&f, "many", "n1");
	settle(&f);
	/* Always pulled: 120 Pulling at once, 100 recorded. */
	assert_int_equal(ev_find(&f, NULL, "Pulling", NULL), 100);
	fx_release(&f);
}

static int count_running(void *ctx, const struct api_obj *o)
{
	const char *ph = jstr(o->body, "status.phase");

	*(size_t *)ctx += ph && strcmp(ph, "Running") == 0;
	return 0;
}

static size_t running(struct fx *f)
{
	size_t n = 0;

	assert_int_equal(
		api_store_each(f->s, f->pod, NS, NULL, NULL, count_running, &n),
		0);
	return n;
}

/* One now fires at most CL_TIMERS_PER_TURN (512) timers, so that a daemon
 * answers requests between turns: 600 pods bound at once start over
 * several turns, next_us() saying the rest is due, and all of them start
 * once the clock moves on. */
static void test_timer_budget(void **state)
{
	static const char *const jobs[] = { "a", "b", "c" };
	int64_t later;
	struct fx f;
	int turns = 1;

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	for (size_t j = 0; j < 3; j++) {
		add_job(&f, jobs[j],
			"{\"completions\":200,\"parallelism\":200}");
		settle(&f);
		bind_all(&f, jobs[j], "n1");
	}
	settle(&f);
	assert_int_equal(running(&f), 0);
	later = f.now + 3600 * SEC; /* every start-up timer is due */
	f.now = later;
	settle(&f);
	assert_true(running(&f) < 600);
	assert_true(serve_cluster_next_us(f.c) <= f.now);
	while (running(&f) < 600) {
		assert_true(serve_cluster_next_us(f.c) <= f.now);
		f.now++;
		settle(&f);
		assert_true(++turns < 100);
	}
	assert_true(turns >= 2);
	fx_release(&f);
}

/* ---- node leases ---- */

static const json_t *lease(struct fx *f, const char *node)
{
	const struct api_obj *o = api_store_get(
		f->s, api_kind_of("coordination.k8s.io/v1", "Lease"),
		"kube-node-lease", node);

	return o ? o->body : NULL;
}

static const char *renewed(struct fx *f, const char *node)
{
	return jstr(lease(f, node), "spec.renewTime");
}

/* Each node's kubelet holds a Lease in kube-node-lease: made when the
 * node registers, renewed every 10 s while it is Ready, deleted with
 * it. */
static void test_node_lease(void **state)
{
	struct fx f;
	const json_t *l, *ref;

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	settle(&f);
	l = lease(&f, "n1");
	assert_non_null(l);
	assert_string_equal(jstr(l, "spec.holderIdentity"), "n1");
	assert_int_equal(jint(l, "spec", "leaseDurationSeconds"), 40);
	assert_string_equal(renewed(&f, "n1"), "2026-12-01T13:00:00.000000Z");
	assert_null(jstr(l, "spec.acquireTime")); /* the kubelet sets none */
	ref = json_array_get(json_object_get(json_object_get(l, "metadata"),
					     "ownerReferences"),
			     0);
	assert_string_equal(jstr(ref, "kind"), "Node");
	assert_string_equal(jstr(ref, "apiVersion"), "v1");
	assert_string_equal(jstr(ref, "name"), "n1");
	assert_string_equal(jstr(ref, "uid"),
			    jstr(get(&f, f.node, "n1"), "metadata.uid"));

	advance(&f, T0 + 25 * SEC);
	assert_string_equal(renewed(&f, "n1"), "2026-12-01T13:00:20.000000Z");
	/* Not Ready: the kubelet stops renewing; Ready again: at once. */
	set_ready(&f, "n1", false);
	advance(&f, T0 + 90 * SEC);
	assert_string_equal(renewed(&f, "n1"), "2026-12-01T13:00:20.000000Z");
	set_ready(&f, "n1", true);
	settle(&f);
	assert_string_equal(renewed(&f, "n1"), "2026-12-01T13:01:30.000000Z");
	advance(&f, T0 + 100 * SEC);
	assert_string_equal(renewed(&f, "n1"), "2026-12-01T13:01:40.000000Z");
	/* A Lease deleted by hand is made again at the next renewal. */
	assert_int_equal(
		api_store_delete(f.s,
				 api_kind_of("coordination.k8s.io/v1", "Lease"),
				 "kube-node-lease", "n1", 0, f.now),
		0);
	advance(&f, T0 + 110 * SEC);
	assert_string_equal(renewed(&f, "n1"), "2026-12-01T13:01:50.000000Z");

	/* Deleted with its node (garbage collection by ownerReference). */
	assert_int_equal(api_store_delete(f.s, f.node, "", "n1", 0, f.now), 0);
	settle(&f);
	assert_null(lease(&f, "n1"));
	fx_release(&f);
}

/* --no-pod-start: bound pods stay as the binding made them (Pending on
 * their node, no status, no kubelet Event) while the node stays Ready
 * and its Lease renewed; without it the same pods run. */
static void test_no_pod_start(void **state)
{
	struct serve_cluster_options o = { .startup_us = 10 * SEC,
					   .seed = 7,
					   .no_pod_start = true };
	struct fx f;
	struct names p;

	(void)state;
	for (int started = 0; started < 2; started++) {
		fx_init(&f, 0);
		if (!started) {
			serve_cluster_free(f.c);
			f.c = serve_cluster_new(f.s, &o);
		}
		add_node(&f, "n1");
		add_job(&f, "k", "{\"completions\":2,\"parallelism\":2}");
		settle(&f);
		bind_all(&f, "k", "n1");
		advance(&f, T0 + 60 * SEC);
		pods_of(&f, "k", &p);
		assert_int_equal(p.n, 2);
		for (size_t i = 0; i < p.n; i++) {
			const json_t *pod = get(&f, f.pod, p.items[i]);

			assert_string_equal(jstr(pod, "spec.nodeName"), "n1");
			assert_int_equal(
				ev_find(&f, p.items[i], "Started", NULL),
				started);
			if (started) {
				assert_string_equal(jstr(pod, "status.phase"),
						    "Running");
				continue;
			}
			assert_string_equal(jstr(pod, "status.phase"),
					    "Pending");
			assert_null(jstr(pod, "status.startTime"));
			assert_int_equal(
				ev_find(&f, p.items[i], "Pulling", NULL), 0);
		}
		assert_string_equal(renewed(&f, "n1"),
				    "2026-12-01T13:01:00.000000Z");
		fx_release(&f);
	}
}

/* Renewals keep a wall-clock pace: every 10 s of the wall clock (600 s
 * of a clock 60 times faster), and on clusters over 1,000 nodes at most
 * 100 renewals per wall second in all. */
static void test_lease_interval(void **state)
{
	static const struct {
		int nodes;
		double speed;
		const char *first, *second; /* renewTimes after 0 and 1 */
	} table[] = {
		{ 1, 60, "2026-12-01T13:00:00.000000Z",
		  "2026-12-01T13:10:00.000000Z" },
		{ 1200, 1, "2026-12-01T13:00:00.000000Z",
		  "2026-12-01T13:00:12.000000Z" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		struct serve_cluster_options o = { .startup_us = 10 * SEC,
						   .speed = table[i].speed };
		struct fx f;
		char name[16];

		fx_init(&f, 0);
		serve_cluster_free(f.c);
		f.c = serve_cluster_new(f.s, &o);
		for (int n = 0; n < table[i].nodes; n++) {
			snprintf(name, sizeof(name), "n%d", n);
			add_node(&f, name);
		}
		settle(&f);
		assert_int_equal(
			api_store_count(
				f.s,
				api_kind_of("coordination.k8s.io/v1", "Lease")),
			table[i].nodes);
		assert_string_equal(renewed(&f, "n0"), table[i].first);
		advance(&f, f.now + 12 * SEC * (int64_t)table[i].speed - SEC);
		assert_string_equal(renewed(&f, "n0"),
				    table[i].speed > 1 ? table[i].second
						       : table[i].first);
		advance(&f, T0 + 12 * SEC * (int64_t)table[i].speed);
		assert_string_equal(renewed(&f, "n0"), table[i].second);
		fx_release(&f);
	}
}

/* ---- restart and relist ---- */

/* A new controller over the same store (a restarted daemon) continues
 * the pods' stages from their stored status; one that falls behind the
 * store's history reads everything again. */
static void test_restart(void **state)
{
	struct serve_cluster_options o = { .startup_us = 10 * SEC, .seed = 3 };
	struct api_store_options so = { .history = 8 };
	struct fx f;
	struct names p;

	(void)state;
	fx_init(&f, 0);
	serve_cluster_free(f.c);
	api_store_free(f.s);
	f.s = api_store_new(&so);
	f.c = serve_cluster_new(f.s, &o);
	add_node(&f, "n1");
	start_job(&f, "r", "{\"completions\":2,\"parallelism\":2}", "n1");
	pods_of(&f, "r", &p);
	assert_string_equal(jstr(get(&f, f.pod, p.items[0]), "status.phase"),
			    "Running");

	serve_cluster_free(f.c);
	f.c = serve_cluster_new(f.s, &o);
	advance(&f, T0 + 60 * SEC); /* started at about T0 + 10 s */
	assert_string_equal(jstr(get(&f, f.pod, p.items[0]), "status.phase"),
			    "Running");
	advance(&f, T0 + 80 * SEC);
	assert_string_equal(cond_status(get(&f, f.job, "r"), "Complete"),
			    "True");

	/* Behind the history (8 changes): a relist finds the new Job. */
	for (int i = 0; i < 10; i++) {
		char v[8];

		snprintf(v, sizeof(v), "%d", i);
		update(&f, f.node, "n1", "metadata.labels",
		       json_pack("{s:s}", "round", v));
	}
	add_job(&f, "late", NULL);
	settle(&f);
	assert_int_equal(npods(&f, "late"), 1);
	fx_release(&f);
}

/* ---- garbage collection ---- */

/* DELETE through the API, as kubectl sends it. */
static void api_delete(struct fx *f, const char *path, const char *query)
{
	struct api *a = api_new(f->s, NULL);
	struct api_req r = { .method = "DELETE", .path = path, .query = query };
	struct api_resp resp;

	api_handle(a, &r, f->now, &resp);
	/* 202 while finalizers hold the object. */
	assert_true(resp.code == 200 || resp.code == 202);
	api_resp_release(&resp);
	api_free(a);
}

static void test_gc(void **state)
{
	static const char *const modes[] = { NULL,
					     "propagationPolicy=Foreground",
					     "propagationPolicy=Orphan" };
	struct fx f;
	struct names p;

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		fx_init(&f, 0);
		add_node(&f, "n1");
		start_job(&f, "g", "{\"completions\":3,\"parallelism\":3}",
			  "n1");
		api_delete(&f, "/apis/batch/v1/namespaces/" NS "/jobs/g",
			   modes[m]);
		settle(&f);
		assert_null(get(&f, f.job, "g"));
		pods_of(&f, "g", &p);
		if (m < 2) {
			assert_int_equal(p.n, 0);
		} else {
			assert_int_equal(p.n, 3);
			for (size_t i = 0; i < p.n; i++)
				assert_null(json_object_get(
					json_object_get(
						get(&f, f.pod, p.items[i]),
						"metadata"),
					"ownerReferences"));
		}
		fx_release(&f);
	}
}

/* A pod being deleted when its Job goes (within the batch period, before
 * the Job controller counted it) must not be left behind. */
static void test_gc_terminating_pod(void **state)
{
	struct fx f;
	struct names p;

	(void)state;
	fx_init(&f, 0);
	add_node(&f, "n1");
	start_job(&f, "g", "{\"completions\":2,\"parallelism\":2}", "n1");
	pods_of(&f, "g", &p);
	assert_int_equal(api_store_delete(f.s, f.pod, NS, p.items[0], 0, f.now),
			 0);
	settle(&f);
	assert_int_equal(npods(&f, "g"), 2); /* terminating: not counted yet */
	assert_int_equal(api_store_delete(f.s, f.job, NS, "g", 0, f.now), 0);
	settle(&f);
	assert_int_equal(npods(&f, "g"), 0);
	assert_true(serve_cluster_next_us(f.c) >= f.now);
	fx_release(&f);
}

/* ---- Events ---- */

static void test_events(void **state)
{
	struct fx f;
	json_int_t count = 0;
	json_t *pod =
		testutil_json("{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
			      "\"metadata\":{\"name\":\"p\",\"namespace\":"
			      "\"default\",\"uid\":\"u1\",\"resourceVersion\":"
			      "\"5\"}}");
	char big[2000];

	(void)state;
	fx_init(&f, 0);
	assert_int_equal(serve_event(f.s, pod, "Normal", "Pulled", "Pull",
				     "kubelet", f.now, "pulled %s", "img"),
			 0);
	f.now += SEC;
	assert_int_equal(serve_event(f.s, pod, "Normal", "Pulled", "Pull",
				     "kubelet", f.now, "pulled %s", "img"),
			 0);
	assert_int_equal(events(&f, "p", "Pulled", &count), 1);
	assert_int_equal(count, 2);
	assert_int_equal(serve_event(f.s, pod, "Normal", "Pulled", "Pull",
				     "kubelet", f.now, "pulled %s", "other"),
			 0);
	assert_int_equal(events(&f, "p", "Pulled", NULL), 2);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(serve_event(f.s, pod, "Warning", "Big", "Check",
				     "kubelet", f.now, "%s", big),
			 0);
	assert_int_equal(events(&f, "p", "Big", NULL), 1);

	{
		struct names n = { 0 };

		assert_int_equal(api_store_each(f.s, f.event, NS, NULL, NULL,
						collect, &n),
				 0);
		for (size_t i = 0; i < n.n; i++) {
			const json_t *e = get(&f, f.event, n.items[i]);

			/* <object>.<16 hex> */
			assert_int_equal(strlen(n.items[i]), 2 + 16);
			assert_memory_equal(n.items[i], "p.", 2);
			assert_string_equal(jstr(e, "involvedObject.uid"),
					    "u1");
			assert_string_equal(jstr(e, "involvedObject.kind"),
					    "Pod");
			assert_string_equal(
				jstr(e, "involvedObject.resourceVersion"), "5");
			assert_string_equal(jstr(e, "source.component"),
					    "kubelet");
			assert_string_equal(jstr(e, "reportingComponent"),
					    "kubelet");
			assert_non_null(jstr(e, "reportingInstance"));
			assert_int_equal(strlen(jstr(e, "eventTime")), 27);
			if (strcmp(jstr(e, "reason"), "Big") == 0)
				assert_int_equal(strlen(jstr(e, "message")),
						 1024);
			if (json_integer_value(json_object_get(e, "count")) ==
			    2) {
				assert_string_equal(jstr(e, "firstTimestamp"),
						    "2026-12-01T13:00:00Z");
				assert_string_equal(jstr(e, "lastTimestamp"),
						    "2026-12-01T13:00:01Z");
				assert_int_equal(jint(e, "series", "count"), 2);
			}
		}
	}
	settle(&f);

	/* Events go an hour after they last happened. */
	advance(&f, T0 + 1800 * SEC);
	assert_int_equal(serve_event(f.s, pod, "Normal", "Pulled", "Pull",
				     "kubelet", f.now, "pulled %s", "img"),
			 0);
	advance(&f, T0 + 3601 * SEC);
	assert_int_equal(events(&f, "p", "Big", NULL), 0);
	assert_int_equal(events(&f, "p", "Pulled", &count), 1);
	assert_int_equal(count, 3);
	advance(&f, T0 + 5401 * SEC);
	assert_int_equal(api_store_count(f.s, f.event), 0);
	json_decref(pod);
	fx_release(&f);
}

/* ---- randomized ---- */

struct jobinfo {
	char name[16];
	bool indexed, gone;
	int64_t parallelism, completions;
	int64_t succeeded, failed; /* as last seen: never decrease */
};

struct orphan_check {
	struct api_store *s;
	const struct api_kind *node;
	size_t orphans, stranded;
};

static int find_strays(void *ctx, const struct api_obj *o)
{
	struct orphan_check *x = ctx;
	const json_t *refs = json_object_get(
		json_object_get(o->body, "metadata"), "ownerReferences");
	const char *nn = jstr(o->body, "spec.nodeName");
	const struct api_obj *node =
		nn ? api_store_get(x->s, x->node, "", nn) : NULL;
	size_t i;
	json_t *r;

	json_array_foreach(refs, i, r)
	{
		if (!api_store_find_uid(x->s, jstr(r, "uid")))
			x->orphans++;
	}
	/* A pod may not stay active on a node that is gone or not Ready. */
	if (nn && is_active(o->body) &&
	    (!node || !cond_status(node->body, "Ready") ||
	     strcmp(cond_status(node->body, "Ready"), "True") != 0))
		x->stranded++;
	return 0;
}

static void check_invariants(struct fx *f, struct jobinfo *jobs, size_t nj)
{
	struct orphan_check oc = { .s = f->s, .node = f->node };

	for (size_t j = 0; j < nj; j++) {
		const json_t *job = get(f, f->job, jobs[j].name);
		struct names p;
		int64_t active = 0;
		char seen[64] = { 0 };

		if (!job)
			continue;
		pods_of(f, jobs[j].name, &p);
		for (size_t i = 0; i < p.n; i++) {
			const json_t *pod = get(f, f->pod, p.items[i]);
			bool act = is_active(pod);

			active += act;
			if (act && jobs[j].indexed) {
				int ix = pod_index_of(pod);

				assert_true(ix >= 0 &&
					    ix < jobs[j].completions);
				assert_int_equal(seen[ix]++, 0);
			}
		}
		/* The Job's status lags its pods by the batch period. */
		assert_true(active <= jobs[j].parallelism);
		assert_true(jint(job, "status", "succeeded") <=
			    jobs[j].completions);
		assert_true(jint(job, "status", "succeeded") >=
			    jobs[j].succeeded);
		assert_true(jint(job, "status", "failed") >= jobs[j].failed);
		jobs[j].succeeded = jint(job, "status", "succeeded");
		jobs[j].failed = jint(job, "status", "failed");
		if (cond_status(job, "Complete"))
			assert_int_equal(jobs[j].succeeded,
					 jobs[j].completions);
		if (json_is_true(json_object_get(json_object_get(job, "spec"),
						 "suspend")))
			assert_int_equal(active, 0);
	}
	assert_int_equal(api_store_each(f->s, f->pod, NULL, NULL, NULL,
					find_strays, &oc),
			 0);
	assert_int_equal(oc.orphans, 0);
	assert_int_equal(oc.stranded, 0);
	/* Quiet after settling. */
	assert_int_equal(serve_cluster_sync(f->c, f->now), 0);
}

static void test_random(void **state)
{
	struct fx f;
	struct rng r;
	struct jobinfo jobs[12];
	const char *nodes[] = { "n0", "n1", "n2", "n3" };
	bool node_up[4] = { true, true, true, true };

	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		fx_init(&f, seed % 2 ? 0 : 30.0);
		rng_seed(&r, seed);
		for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
			add_node(&f, nodes[i]);
			node_up[i] = true;
		}
		for (size_t j = 0; j < ARRAY_SIZE(jobs); j++) {
			char spec[256];
			struct jobinfo *ji = &jobs[j];

			snprintf(ji->name, sizeof(ji->name), "j%zu", j);
			ji->indexed = rng_below(&r, 2);
			ji->gone = false;
			ji->succeeded = ji->failed = 0;
			ji->parallelism = 1 + (int64_t)rng_below(&r, 4);
			ji->completions = 1 + (int64_t)rng_below(&r, 6);
			snprintf(
				spec, sizeof(spec),
				"{\"parallelism\":%lld,\"completions\":%lld,"
				"\"completionMode\":\"%s\",\"backoffLimit\":%d,"
				"\"suspend\":%s}",
				(long long)ji->parallelism,
				(long long)ji->completions,
				ji->indexed ? "Indexed" : "NonIndexed",
				(int)rng_below(&r, 8),
				rng_below(&r, 4) ? "false" : "true");
			add_job(&f, ji->name, spec);
		}
		settle(&f);
		for (int step = 0; step < 200; step++) {
			struct jobinfo *ji = &jobs[rng_below(&r, 12)];
			struct names p;
			size_t nn = rng_below(&r, 4);

			switch (rng_below(&r, 8)) {
			case 0: /* bind the job's pods */
				if (node_up[nn])
					bind_all(&f, ji->name, nodes[nn]);
				break;
			case 1: /* delete a pod */
				pods_of(&f, ji->name, &p);
				if (p.n)
					assert_int_equal(
						api_store_delete(
							f.s, f.pod, NS,
							p.items[rng_below(&r,
									  p.n)],
							0, f.now),
						0);
				break;
			case 2: /* suspend or resume */
				if (get(&f, f.job, ji->name))
					update(&f, f.job, ji->name,
					       "spec.suspend",
					       json_boolean(rng_below(&r, 2)));
				break;
			case 3: /* delete the Job */
				if (rng_below(&r, 10) == 0 &&
				    get(&f, f.job, ji->name)) {
					assert_int_equal(
						api_store_delete(f.s, f.job, NS,
								 ji->name, 0,
								 f.now),
						0);
					ji->gone = true;
				}
				break;
			case 4: /* a node goes down or comes back */
				if (!get(&f, f.node, nodes[nn]))
					break;
				node_up[nn] = !node_up[nn];
				set_ready(&f, nodes[nn], node_up[nn]);
				break;
			case 5: /* a node is deleted, or registers again */
				if (get(&f, f.node, nodes[nn])) {
					assert_int_equal(
						api_store_delete(f.s, f.node,
								 "", nodes[nn],
								 0, f.now),
						0);
					node_up[nn] = false;
				} else {
					add_node(&f, nodes[nn]);
					node_up[nn] = true;
				}
				break;
			default: /* time passes */
				advance(&f, f.now + (int64_t)rng_below(&r, 60) *
							    SEC);
				break;
			}
			settle(&f);
			check_invariants(&f, jobs, ARRAY_SIZE(jobs));
		}
		fx_release(&f);
	}
}

/* ---- a node's simulated GPU fault ---- */

/* When pod's container started (whole seconds), as the embedded clock. */
static int64_t started_us(const json_t *pod)
{
	const json_t *cs =
		json_array_get(json_object_get(json_object_get(pod, "status"),
					       "containerStatuses"),
			       0);
	const char *s = jstr(cs, "state.running.startedAt");
	struct tm tm;

	assert_non_null(s);
	memset(&tm, 0, sizeof(tm));
	assert_non_null(strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm));
	return (int64_t)timegm(&tm) * SEC;
}

static void set_fault(struct fx *f, const char *value)
{
	json_t *ann = json_object();

	if (value)
		json_object_set_new(ann, "sim.echelon.dev/gpu-fault",
				    json_string(value));
	update(f, f->node, "n1", "metadata.annotations", ann);
}

/*
 * A pod of 60 s on node n1 whose sim.echelon.dev/gpu-fault changes at
 * given times of its run: what is left of its run takes 1/slowdown as
 * long from each change on; a fault without a slowdown, or one that does
 * not parse (a Warning Event, once), leaves it alone; the node carries
 * gpu-fault-since while it has a fault. (The start is known to the
 * second and the start-up jitter is below one: ends checked to +-5 s.)
 */
static void test_gpu_fault_slowdown(void **state)
{
	static const struct {
		const char *fault[2]; /* at 20 s and 40 s of the run; NULL:
					 none, "" keep */
		int64_t end_s;	      /* of the run */
		int warnings;
	} table[] = {
		{ { "", "" }, 60, 0 },
		{ { "slowdown=0.5", "" }, 100, 0 },  /* 20 + 40 / 0.5 */
		{ { "slowdown=0.5", NULL }, 70, 0 }, /* 20 + 10 + 40 */
		{ { "slowdown=0.25", "" }, 180, 0 }, /* 20 + 40 / 0.25 */
		{ { "xid=79,temp=95", "" }, 60, 0 }, /* no slowdown */
		{ { "slowdown=2", "" }, 60, 1 },     /* refused */
		{ { "slowdown=0.5", "slowdown=0.5" }, 100, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		struct fx f;
		struct names p;
		int64_t start;
		const json_t *ann;
		const char *cur = NULL;
		bool since;

		fx_init(&f, 0);
		add_node(&f, "n1");
		start_job(&f, "j", "{\"completions\":1}", "n1");
		pods_of(&f, "j", &p);
		assert_int_equal(p.n, 1);
		start = started_us(get(&f, f.pod, p.items[0]));
		for (int k = 0; k < 2; k++) {
			advance(&f, start + (20 + 20 * k) * SEC);
			if (!table[i].fault[k] || *table[i].fault[k]) {
				set_fault(&f, table[i].fault[k]);
				cur = table[i].fault[k];
			}
			settle(&f);
			ann = json_object_get(
				json_object_get(get(&f, f.node, "n1"),
						"metadata"),
				"annotations");
			since = json_object_get(
					ann,
					"sim.echelon.dev/gpu-fault-since") !=
				NULL;
			assert_int_equal(since, cur && !table[i].warnings);
		}
		advance(&f, start + (table[i].end_s - 5) * SEC);
		assert_string_equal(
			jstr(get(&f, f.pod, p.items[0]), "status.phase"),
			"Running");
		advance(&f, start + (table[i].end_s + 5) * SEC);
		assert_string_equal(
			jstr(get(&f, f.pod, p.items[0]), "status.phase"),
			"Succeeded");
		assert_int_equal(events(&f, "n1", "InvalidGPUFault", NULL),
				 (size_t)table[i].warnings);
		fx_release(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_indexed_job),
		cmocka_unit_test(test_duration_on_job),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_suspend),
		cmocka_unit_test(test_backoff_limit),
		cmocka_unit_test(test_failure_rate),
		cmocka_unit_test(test_node_registration),
		cmocka_unit_test(test_node_lost),
		cmocka_unit_test(test_kubelet_events),
		cmocka_unit_test(test_kubelet_event_budget),
		cmocka_unit_test(test_timer_budget),
		cmocka_unit_test(test_node_lease),
		cmocka_unit_test(test_no_pod_start),
		cmocka_unit_test(test_lease_interval),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_gc),
		cmocka_unit_test(test_gc_terminating_pod),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_gpu_fault_slowdown),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

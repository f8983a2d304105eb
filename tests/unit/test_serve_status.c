// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the status writer of `echelon serve`: a controller over
 * tests/data/serve/status.yaml, a store holding its Workload, ClusterQueue
 * and LocalQueue objects (encoded by enc_object), cycles, and
 * serve_status_sync(): the JSON written (golden fragments in Kueue's
 * v1beta2 fields), settling (a second sync writes nothing, transition
 * times stay), one Event per edge, the visibility API's positions, limit
 * and offset, and the metrics text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_store.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "ctl/ctl.h"
#include "ctl/ctl_forecast.h"
#include "manifest/enc.h"
#include "manifest/manifest.h"
#include "obs/obs_forecast.h"
#include "obs/obs_metrics.h"
#include "serve/serve_status.h"
#include "testutil.h"

#include "base/banned.h"

#define S  1000000LL
#define T0 1796130010000000LL /* 2026-12-01T13:00:10Z */

struct fx {
	struct cluster c;
	struct ctl *x;
	struct api_store *s;
};

static const struct ctl_backend_ops no_ops = { NULL, NULL, NULL };

static void store_kind(struct fx *f, struct api_store *s, enum kind k)
{
	for (size_t i = 0; i < cluster_count(&f->c, k); i++) {
		json_t *o = enc_object(&f->c, k, i);
		const struct api_kind *ak = api_kind_of(
			json_string_value(json_object_get(o, "apiVersion")),
			json_string_value(json_object_get(o, "kind")));

		assert_non_null(ak);
		assert_int_equal(api_store_create(s, ak, o, T0, NULL), 0);
	}
}

/* The cluster's queue and workload objects, as stored objects of s. */
static void store_all(struct fx *f, struct api_store *s)
{
	store_kind(f, s, KIND_CLUSTER_QUEUE);
	store_kind(f, s, KIND_LOCAL_QUEUE);
	store_kind(f, s, KIND_WORKLOAD);
	store_kind(f, s, KIND_POD_GROUP);
}

/* The cluster of tests/data/serve/NAME and its objects in a store, with
 * a controller of options o (NULL: defaults). */
static void load_with(struct fx *f, const char *name,
		      const struct ctl_options *o)
{
	char *rel = xasprintf("tests/data/serve/%s", name);
	char *path = testutil_path(rel);
	const char *const paths[] = { path };
	struct ctl_options oo;
	struct diag d;

	cluster_init(&f->c);
	diag_init(&d);
	assert_int_equal(manifest_load_paths(&f->c, paths, 1, &d), 0);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	free(path);
	free(rel);
	cluster_compute_usage(&f->c, NULL);
	oo = o ? *o : (struct ctl_options){ 0 };
	oo.track_changes = true; /* as the daemon's */
	f->x = ctl_new(&f->c, &oo, &no_ops, NULL);
	f->s = api_store_new(NULL);
	store_all(f, f->s);
}

static void load(struct fx *f, const char *name)
{
	load_with(f, name, NULL);
}

/* status.yaml with every workload submitted and the cycles run at T0. */
static void start(struct fx *f)
{
	load(f, "status.yaml");
	for (uint32_t i = 0; i < f->c.workloads.len; i++)
		assert_int_equal(
			ctl_submit(f->x, ctl_handle(f->x, i), true, T0), 0);
	ctl_run(f->x, T0);
}

static void stop(struct fx *f)
{
	api_store_free(f->s);
	ctl_free(f->x);
	cluster_release(&f->c);
}

static uint32_t slot(const struct fx *f, const char *name)
{
	for (uint32_t i = 0; i < f->c.workloads.len; i++)
		if (strcmp(f->c.workloads.items[i].name, name) == 0)
			return i;
	fail_msg("no workload %s", name);
	return 0;
}

/* The compact text of a stored object's status. */
static char *status_text(const struct fx *f, const char *kind, const char *ns,
			 const char *name)
{
	const struct api_kind *k = api_kind_of("kueue.x-k8s.io/v1beta2", kind);
	const struct api_obj *o = api_store_get(f->s, k, ns, name);

	assert_non_null(o);
	return json_dumps(json_object_get(o->body, "status"),
			  JSON_COMPACT | JSON_PRESERVE_ORDER);
}

static void expect_in(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("want\n%s\nin\n%s", want, text);
}

static void expect_status(const struct fx *f, const char *kind, const char *ns,
			  const char *name, const char *const *want)
{
	char *text = status_text(f, kind, ns, name);

	for (size_t i = 0; want[i]; i++)
		expect_in(text, want[i]);
	free(text);
}

struct ev_count {
	const char *reason, *name;
	int n;
};

static int count_event(void *ctx, const struct api_obj *o)
{
	struct ev_count *e = ctx;
	const json_t *inv = json_object_get(o->body, "involvedObject");
	const char *reason =
		json_string_value(json_object_get(o->body, "reason"));
	const char *name = json_string_value(json_object_get(inv, "name"));

	const json_t *count = json_object_get(o->body, "count");

	if (reason && strcmp(reason, e->reason) == 0 && name &&
	    strcmp(name, e->name) == 0)
		e->n += json_is_integer(count) ? (int)json_integer_value(count)
					       : 1;
	return 0;
}

/* Events with reason about Workload name (repeats counted). */
static int events(const struct fx *f, const char *reason, const char *name)
{
	struct ev_count e = { reason, name, 0 };

	(void)api_store_each(f->s, api_kind_of("v1", "Event"), NULL, NULL, NULL,
			     count_event, &e);
	return e.n;
}

static const char *const want_a[] = {
	"{\"type\":\"QuotaReserved\",\"status\":\"True\","
	"\"observedGeneration\":"
	"1,\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
	"\"QuotaReserved\",\"message\":\"Quota reserved in ClusterQueue cq\"}",
	"{\"type\":\"Admitted\",\"status\":\"True\",\"observedGeneration\":1,"
	"\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
	"\"Admitted\",\"message\":\"The workload is admitted\"}",
	"\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":[{"
	"\"name\":\"main\",\"count\":2,\"flavors\":{\"cpu\":\"f\","
	"\"nvidia.com/gpu\":\"f\"},\"resourceUsage\":{\"cpu\":\"2\","
	"\"nvidia.com/gpu\":\"2\"},\"topologyAssignment\":{\"levels\":["
	"\"kubernetes.io/hostname\"],\"slices\":[{\"domainCount\":1,"
	"\"valuesPerLevel\":[{\"universal\":\"n1\"}],\"podCounts\":{"
	"\"universal\":2}}]}}]}",
	NULL
};

static const char *const want_c[] = {
	"{\"type\":\"QuotaReserved\",\"status\":\"False\","
	"\"observedGeneration\""
	":1,\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
	"\"WaitingForQuota\",\"message\":\"couldn't assign flavors to the "
	"workload: insufficient unused quota for nvidia.com/gpu in flavor f, 2 "
	"more needed\"}",
	NULL
};

static const char *const want_cq[] = {
	"\"pendingWorkloads\":2,\"reservingWorkloads\":2,"
	"\"admittedWorkloads\":2",
	"\"flavorsReservation\":[{\"name\":\"f\",\"resources\":[{\"name\":"
	"\"cpu\",\"total\":\"4\",\"borrowed\":\"0\"},{\"name\":"
	"\"nvidia.com/gpu\",\"total\":\"4\",\"borrowed\":\"0\"}]}]",
	"\"flavorsUsage\":[{\"name\":\"f\",\"resources\":[{\"name\":"
	"\"cpu\",\"total\":\"4\",\"borrowed\":\"0\"},{\"name\":"
	"\"nvidia.com/gpu\",\"total\":\"4\",\"borrowed\":\"0\"}]}]",
	"{\"type\":\"Active\",\"status\":\"True\",\"observedGeneration\":1,"
	"\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":\"Ready\","
	"\"message\":\"Can admit new workloads\"}",
	NULL
};

static const char *const want_broken[] = {
	"\"pendingWorkloads\":0,\"reservingWorkloads\":0,"
	"\"admittedWorkloads\":0",
	"\"reason\":\"FlavorNotFound\",\"message\":\"Can't admit new "
	"workloads: references missing ResourceFlavor(s): missing.\"",
	NULL
};

static const char *const want_lq[] = {
	"\"pendingWorkloads\":2,\"reservingWorkloads\":2,"
	"\"admittedWorkloads\":2",
	"\"flavorsUsage\":[{\"name\":\"f\",\"resources\":[{\"name\":"
	"\"cpu\",\"total\":\"4\"},{\"name\":\"nvidia.com/gpu\",\"total\":"
	"\"4\"}]}]",
	"\"reason\":\"Ready\",\"message\":\"Can submit new workloads to "
	"localQueue\"",
	NULL
};

static const char *const want_other[] = {
	"{\"type\":\"Active\",\"status\":\"False\",\"observedGeneration\":1,"
	"\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
	"\"ClusterQueueIsInactive\",\"message\":\"Can't submit new workloads "
	"to clusterQueue\"}",
	NULL
};

/* The first sync writes every object as Kueue would; a second writes
 * nothing. */
static void test_first_sync(void **state)
{
	struct fx f;
	uint64_t rv;

	(void)state;
	start(&f);
	/* 4 Workloads, 2 ClusterQueues, 2 LocalQueues; Events for a and b:
	 * QuotaReserved and Admitted each; for c and d the Warning of a
	 * failed attempt */
	assert_int_equal(serve_status_sync(f.s, f.x, T0), 8 + 4 + 2);
	expect_status(&f, "Workload", "ns", "a", want_a);
	expect_status(&f, "Workload", "ns", "c", want_c);
	expect_status(&f, "ClusterQueue", "", "cq", want_cq);
	expect_status(&f, "ClusterQueue", "", "broken", want_broken);
	expect_status(&f, "LocalQueue", "ns", "lq", want_lq);
	expect_status(&f, "LocalQueue", "ns", "other", want_other);
	assert_int_equal(events(&f, "QuotaReserved", "a"), 1);
	assert_int_equal(events(&f, "Admitted", "b"), 1);
	assert_int_equal(events(&f, "QuotaReserved", "c"), 0);
	assert_int_equal(events(&f, "WaitingForQuota", "c"), 1);
	assert_int_equal(events(&f, "WaitingForQuota", "d"), 1);
	rv = api_store_rv(f.s);
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + 5 * S), 0);
	assert_int_equal(api_store_rv(f.s), rv);
	stop(&f);
}

/* a finishes: its Finished edge and c's admission are one Event each;
 * what did not change keeps its lastTransitionTime. */
static void test_edges(void **state)
{
	static const char *const want_b[] = {
		"\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
		"\"QuotaReserved\"",
		NULL
	};
	static const char *const want_c_admitted[] = {
		"{\"type\":\"QuotaReserved\",\"status\":\"True\","
		"\"observedGeneration\":1,\"lastTransitionTime\":"
		"\"2026-12-01T13:01:10Z\",\"reason\":\"QuotaReserved\"",
		NULL
	};
	static const char *const want_a_finished[] = {
		"{\"type\":\"Finished\",\"status\":\"True\"",
		"\"admission\":{\"clusterQueue\":\"cq\"", NULL
	};
	struct fx f;

	(void)state;
	start(&f);
	assert_true(serve_status_sync(f.s, f.x, T0) > 0);
	assert_int_equal(
		ctl_finish(f.x, ctl_handle(f.x, slot(&f, "a")), T0 + 60 * S),
		0);
	ctl_run(f.x, T0 + 60 * S);
	/* a, c, cq, lq (d waits as it did); Finished a, QuotaReserved and
	 * Admitted c */
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + 61 * S), 4 + 3);
	expect_status(&f, "Workload", "ns", "a", want_a_finished);
	expect_status(&f, "Workload", "ns", "b", want_b);
	expect_status(&f, "Workload", "ns", "c", want_c_admitted);
	assert_int_equal(events(&f, "Finished", "a"), 1);
	assert_int_equal(events(&f, "QuotaReserved", "c"), 1);
	assert_int_equal(events(&f, "Admitted", "c"), 1);
	assert_int_equal(events(&f, "QuotaReserved", "a"), 1);
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + 62 * S), 0);
	assert_int_equal(events(&f, "Admitted", "c"), 1);
	/* d waits as it did: no new Warning */
	assert_int_equal(events(&f, "WaitingForQuota", "d"), 1);
	stop(&f);
}

static const char *const want_low_ready[] = {
	"{\"type\":\"PodsReady\",\"status\":\"True\",\"observedGeneration\":1,"
	"\"lastTransitionTime\":\"2026-12-01T13:00:11Z\",\"reason\":"
	"\"Started\","
	"\"message\":\"All pods reached readiness and the workload is "
	"running\"}",
	NULL
};

static const char *const want_low_preempted[] = {
	"{\"type\":\"Evicted\",\"status\":\"True\",\"observedGeneration\":1,"
	"\"lastTransitionTime\":\"2026-12-01T13:00:12Z\",\"reason\":"
	"\"Preempted\",\"message\":\"Preempted to accommodate a workload "
	"(ns/high) due to InClusterQueue\"}",
	"{\"type\":\"Preempted\",\"status\":\"True\",\"observedGeneration\":"
	"1,\"lastTransitionTime\":\"2026-12-01T13:00:12Z\",\"reason\":"
	"\"InClusterQueue\"",
	"{\"type\":\"PodsReady\",\"status\":\"False\",\"observedGeneration\":"
	"1,\"lastTransitionTime\":\"2026-12-01T13:00:12Z\",\"reason\":"
	"\"WaitForStart\"",
	NULL
};

static const char *const want_high_timeout[] = {
	"{\"type\":\"Evicted\",\"status\":\"True\",\"observedGeneration\":1,"
	"\"lastTransitionTime\":\"2026-12-01T13:00:42Z\",\"reason\":"
	"\"PodsReadyTimeout\",\"message\":\"Exceeded the PodsReady timeout "
	"ns/high\"}",
	"{\"type\":\"Requeued\",\"status\":\"False\",\"observedGeneration\":"
	"1,\"lastTransitionTime\":\"2026-12-01T13:00:42Z\",\"reason\":"
	"\"PodsReadyTimeout\",\"message\":\"Exceeded the PodsReady timeout "
	"ns/high\"}",
	"\"requeueState\":{\"count\":1,\"requeueAt\":"
	"\"2026-12-01T13:00:52Z\"}",
	NULL
};

static const char *const want_low_again[] = {
	"{\"type\":\"Evicted\",\"status\":\"False\",\"observedGeneration\":"
	"1,\"lastTransitionTime\":\"2026-12-01T13:00:42Z\",\"reason\":"
	"\"QuotaReserved\",\"message\":\"Previously: Preempted to "
	"accommodate a workload (ns/high) due to InClusterQueue\"}",
	NULL
};

/*
 * Preemption and waitForPodsReady: low's pods get Ready (PodsReady
 * Started), high preempts it (Evicted, Preempted, Requeued: one Event
 * each), high's pods never get Ready and the timeout evicts it with a
 * requeueState; low, admitted again, has its Evicted condition turned
 * False as Kueue's SetQuotaReservation does.
 */
static void test_preemption(void **state)
{
	struct fx f;
	uint64_t low, high;

	(void)state;
	load(&f, "preempt.yaml");
	low = ctl_handle(f.x, slot(&f, "low"));
	high = ctl_handle(f.x, slot(&f, "high"));
	assert_int_equal(ctl_submit(f.x, low, true, T0), 0);
	ctl_run(f.x, T0);
	assert_true(serve_status_sync(f.s, f.x, T0) > 0);
	for (uint32_t p = 0; p < 2; p++)
		assert_int_equal(
			ctl_pod_event(f.x, low, p, CTL_POD_READY, T0 + S), 0);
	ctl_run(f.x, T0 + S);
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + S), 1);
	expect_status(&f, "Workload", "ns", "low", want_low_ready);

	assert_int_equal(ctl_submit(f.x, high, true, T0 + 2 * S), 0);
	ctl_run(f.x, T0 + 2 * S);
	/* low, high, cq, lq; Evicted, Preempted, Requeued and the failed
	 * attempt's Warning of low, QuotaReserved and Admitted of high */
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + 2 * S), 4 + 6);
	expect_status(&f, "Workload", "ns", "low", want_low_preempted);
	assert_int_equal(events(&f, "EvictedDueToPreempted", "low"), 1);
	assert_int_equal(events(&f, "Preempted", "low"), 1);
	assert_int_equal(events(&f, "Requeued", "low"), 1);
	assert_int_equal(events(&f, "Admitted", "high"), 1);

	assert_int_equal(ctl_next_wakeup_us(f.x, T0 + 2 * S), T0 + 32 * S);
	ctl_run(f.x, T0 + 32 * S);
	assert_true(serve_status_sync(f.s, f.x, T0 + 32 * S) > 0);
	expect_status(&f, "Workload", "ns", "high", want_high_timeout);
	expect_status(&f, "Workload", "ns", "low", want_low_again);
	assert_int_equal(events(&f, "EvictedDueToPodsReadyTimeout", "high"), 1);
	assert_int_equal(events(&f, "QuotaReserved", "low"), 2);
	assert_int_equal(events(&f, "EvictedDueToPreempted", "low"), 1);
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + 33 * S), 0);
	stop(&f);
}

/* The compact text of PodGroup ns/g's status. */
static char *pod_group_text(const struct fx *f)
{
	const struct api_kind *pk =
		api_kind_of("scheduling.x-k8s.io/v1alpha1", "PodGroup");

	return json_dumps(
		json_object_get(api_store_get(f->s, pk, "ns", "g")->body,
				"status"),
		JSON_COMPACT | JSON_PRESERVE_ORDER);
}

/* A PodGroup's gang: Coscheduling's phase and counts on the PodGroup. */
static void test_pod_group(void **state)
{
	const struct api_kind *wk =
		api_kind_of("kueue.x-k8s.io/v1beta2", "Workload");
	struct fx f;
	uint64_t h;
	char *t;

	(void)state;
	load(&f, "podgroup.yaml");
	/* the gang's object is the PodGroup: no Workload object */
	assert_int_equal(api_store_delete(f.s, wk, "ns", "g", 0, T0), 0);
	/* a member pod, owned by a Job: the group's occupiedBy */
	assert_int_equal(
		api_store_create(
			f.s, api_kind_of("v1", "Pod"),
			json_loads(
				"{\"metadata\":{\"name\":\"g-0\",\"namespace\":"
				"\"ns\",\"labels\":{\"scheduling.x-k8s.io/"
				"pod-group\":\"g\"},\"ownerReferences\":[{"
				"\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
				"\"name\":\"train\",\"uid\":\"u1\"}]}}",
				0, NULL),
			T0, NULL),
		0);
	h = ctl_handle(f.x, slot(&f, "g"));
	assert_int_equal(ctl_submit(f.x, h, true, T0), 0);
	ctl_run(f.x, T0);
	assert_true(serve_status_sync(f.s, f.x, T0) > 0);
	t = pod_group_text(&f);
	assert_string_equal(
		t, "{\"phase\":\"Scheduling\",\"occupiedBy\":\"ns/train\"}");
	free(t);
	for (uint32_t p = 0; p < 2; p++)
		assert_int_equal(
			ctl_pod_event(f.x, h, p, CTL_POD_READY, T0 + S), 0);
	ctl_run(f.x, T0 + S);
	/* the PodGroup and the queues' counts stay: one write */
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + S), 1);
	t = pod_group_text(&f);
	assert_string_equal(t, "{\"phase\":\"Running\",\"occupiedBy\":"
			       "\"ns/train\",\"running\":2}");
	free(t);
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + 2 * S), 0);
	stop(&f);
}

/* The Active condition of each queue: Kueue's reasons and messages. */
static const struct {
	const char *kind, *ns, *name, *want;
} active_cases[] = {
	{ "ClusterQueue", "", "ready",
	  "\"status\":\"True\",\"observedGeneration\":1,"
	  "\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
	  "\"Ready\",\"message\":\"Can admit new workloads\"" },
	{ "ClusterQueue", "", "held",
	  "\"reason\":\"Stopped\",\"message\":\"Can't admit new workloads: "
	  "is stopped.\"" },
	{ "ClusterQueue", "", "held-missing",
	  "\"reason\":\"Stopped\",\"message\":\"Can't admit new workloads: "
	  "is stopped, references missing ResourceFlavor(s): x,y.\"" },
	{ "ClusterQueue", "", "no-topology",
	  "\"reason\":\"TopologyNotFound\",\"message\":\"Can't admit new "
	  "workloads: there is no Topology \\\"gone\\\" for TAS flavor "
	  "\\\"tas\\\".\"" },
	{ "LocalQueue", "ns", "ok",
	  "\"status\":\"True\",\"observedGeneration\":1,"
	  "\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
	  "\"Ready\",\"message\":\"Can submit new workloads to "
	  "localQueue\"" },
	{ "LocalQueue", "ns", "stopped",
	  "\"status\":\"False\",\"observedGeneration\":1,"
	  "\"lastTransitionTime\":\"2026-12-01T13:00:10Z\",\"reason\":"
	  "\"Stopped\",\"message\":\"LocalQueue is stopped\"" },
	{ "LocalQueue", "ns", "on-held",
	  "\"reason\":\"ClusterQueueIsInactive\",\"message\":\"Can't submit "
	  "new workloads to clusterQueue\"" },
	{ "LocalQueue", "ns", "orphan",
	  "\"reason\":\"ClusterQueueDoesNotExist\",\"message\":\"Can't "
	  "submit new workloads to clusterQueue\"" },
};

static void test_active(void **state)
{
	struct fx f;

	(void)state;
	load(&f, "queues.yaml");
	assert_int_equal(serve_status_sync(f.s, f.x, T0), 8);
	for (size_t i = 0; i < ARRAY_SIZE(active_cases); i++) {
		char *t = status_text(&f, active_cases[i].kind,
				      active_cases[i].ns, active_cases[i].name);

		if (!strstr(t, active_cases[i].want))
			fail_msg("case %zu: want\n%s\nin\n%s", i,
				 active_cases[i].want, t);
		free(t);
	}
	assert_int_equal(serve_status_sync(f.s, f.x, T0 + S), 0);
	stop(&f);
}

/* Kueue's visibility API over the same queues. */
static const struct {
	const char *path, *query;
	int code;
	const char *want;
} vis_cases[] = {
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/"
	  "pendingworkloads",
	  NULL, 200,
	  "{\"kind\":\"PendingWorkloadsSummary\",\"apiVersion\":"
	  "\"visibility.kueue.x-k8s.io/v1beta2\",\"metadata\":{},\"items\":[{"
	  "\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\","
	  "\"creationTimestamp\":\"2026-12-01T13:00:02Z\"},\"priority\":5,"
	  "\"localQueueName\":\"lq\",\"positionInClusterQueue\":0,"
	  "\"positionInLocalQueue\":0},{\"metadata\":{\"name\":\"d\","
	  "\"namespace\":\"ns\",\"creationTimestamp\":"
	  "\"2026-12-01T13:00:03Z\"},\"priority\":1,\"localQueueName\":"
	  "\"lq\",\"positionInClusterQueue\":1,\"positionInLocalQueue\":1}]}" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/ns/localqueues/"
	  "lq/pendingworkloads",
	  "offset=1&limit=5", 200,
	  "\"items\":[{\"metadata\":{\"name\":\"d\",\"namespace\":\"ns\","
	  "\"creationTimestamp\":\"2026-12-01T13:00:03Z\"},\"priority\":1,"
	  "\"localQueueName\":\"lq\",\"positionInClusterQueue\":1,"
	  "\"positionInLocalQueue\":1}]}" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/cq/"
	  "pendingworkloads",
	  "limit=1", 200,
	  "\"apiVersion\":\"visibility.kueue.x-k8s.io/v1beta1\","
	  "\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"c\"" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/"
	  "pendingworkloads",
	  "limit=-3", 200, "\"items\":[]" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/"
	  "pendingworkloads",
	  "offset=9", 200, "\"items\":[]" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/nope/"
	  "pendingworkloads",
	  NULL, 404,
	  "clusterqueue.visibility.kueue.x-k8s.io \\\"nope\\\" not found" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/x/localqueues/"
	  "lq/pendingworkloads",
	  NULL, 404,
	  "localqueue.visibility.kueue.x-k8s.io \\\"lq\\\" not found" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/"
	  "pendingworkloads",
	  "limit=ten", 400, "limit" },
	{ "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq", NULL, 0,
	  NULL },
	{ "/apis/visibility.kueue.x-k8s.io/v1/clusterqueues/cq/"
	  "pendingworkloads",
	  NULL, 0, NULL },
	{ "/api/v1/pods", NULL, 0, NULL },
};

static void test_visibility(void **state)
{
	struct fx f;

	(void)state;
	start(&f);
	for (size_t i = 0; i < ARRAY_SIZE(vis_cases); i++) {
		struct api_req r = { .method = "GET",
				     .path = vis_cases[i].path,
				     .query = vis_cases[i].query };
		struct api_resp resp = { 0 };
		int rc;

		strbuf_init(&resp.body);
		rc = serve_status_visibility(f.x, &r, T0, &resp);
		if (!vis_cases[i].code) {
			assert_int_equal(rc, -ENOENT);
		} else {
			assert_int_equal(rc, 0);
			if (resp.code != vis_cases[i].code)
				fail_msg("case %zu: code %d: %s", i, resp.code,
					 resp.body.buf);
			expect_in(resp.body.buf, vis_cases[i].want);
		}
		api_resp_release(&resp);
	}
	/* with the store: each item's ownerReferences, as Kueue copies them */
	{
		const struct api_kind *wk =
			api_kind_of("kueue.x-k8s.io/v1beta2", "Workload");
		json_t *body =
			json_deep_copy(api_store_get(f.s, wk, "ns", "c")->body);
		struct api_req r = {
			.method = "GET",
			.path = "/apis/visibility.kueue.x-k8s.io/v1beta2/"
				"clusterqueues/cq/pendingworkloads",
			.query = "limit=1"
		};
		struct api_resp resp = { 0 };

		json_object_set_new(
			json_object_get(body, "metadata"), "ownerReferences",
			json_loads("[{\"apiVersion\":\"batch/v1\",\"kind\":"
				   "\"Job\",\"name\":\"train\",\"uid\":\"u1\","
				   "\"controller\":true}]",
				   0, NULL));
		assert_int_equal(api_store_update(f.s, wk, body, 0, T0, NULL),
				 0);
		strbuf_init(&resp.body);
		assert_int_equal(
			serve_status_pending_workloads(f.x, f.s, &r, T0, &resp),
			0);
		expect_in(resp.body.buf,
			  "\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\","
			  "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\","
			  "\"kind\":\"Job\",\"name\":\"train\",\"uid\":"
			  "\"u1\"}],\"creationTimestamp\"");
		api_resp_release(&resp);
	}
	stop(&f);
}

/* The start-time forecast's estimates beside the positions, in the
 * visibility API and as a gauge; an unknown one is absent from both. */
static void test_visibility_estimates(void **state)
{
	struct api_req r = { .method = "GET",
			     .path = "/apis/visibility.kueue.x-k8s.io/v1beta2/"
				     "clusterqueues/cq/pendingworkloads" };
	struct api_resp resp = { 0 };
	struct ctl_forecast fc = { 0 };
	struct strbuf out;
	struct fx f;
	uint32_t c, d;

	(void)state;
	start(&f);
	c = (uint32_t)(cluster_find(&f.c, KIND_WORKLOAD, "ns", "c") -
		       (const void *)f.c.workloads.items) /
	    sizeof(struct workload);
	d = (uint32_t)(cluster_find(&f.c, KIND_WORKLOAD, "ns", "d") -
		       (const void *)f.c.workloads.items) /
	    sizeof(struct workload);
	fc.n = f.c.workloads.len;
	fc.wl = xcalloc(fc.n, sizeof(*fc.wl));
	for (size_t i = 0; i < fc.n; i++)
		fc.wl[i].at_us = CTL_FORECAST_UNKNOWN;
	fc.wl[c] = (struct ctl_forecast_wl){ true, T0 + 80 * 1000000LL, d };
	fc.wl[d].pending = true;
	strbuf_init(&resp.body);
	assert_int_equal(
		serve_status_pending_estimated(f.x, NULL, &fc, &r, T0, &resp),
		0);
	expect_in(resp.body.buf,
		  "\"positionInLocalQueue\":0,\"estimatedAdmissionTime\":"
		  "\"2026-12-01T13:01:30Z\"}");
	assert_null(strstr(strstr(resp.body.buf, "\"name\":\"d\""),
			   "estimatedAdmissionTime"));
	api_resp_release(&resp);

	strbuf_init(&out);
	obs_forecast_metrics(f.x, &fc, T0 + 20 * 1000000LL, &out);
	expect_in(out.buf, "# TYPE echelon_pending_workload_estimated_wait_"
			   "seconds gauge\n"
			   "echelon_pending_workload_estimated_wait_seconds{"
			   "namespace=\"ns\",workload=\"c\",cluster_queue="
			   "\"cq\"} 60.000000\n");
	assert_null(strstr(out.buf, "workload=\"d\""));
	strbuf_release(&out);
	free(fc.wl);
	stop(&f);
}

static const char *const want_metrics[] = {
	"# TYPE kueue_pending_workloads gauge\n",
	"kueue_pending_workloads{cluster_queue=\"cq\",status=\"active\"} 0\n"
	"kueue_pending_workloads{cluster_queue=\"cq\",status=\"inadmissible\"} "
	"2\n",
	"kueue_admitted_active_workloads{cluster_queue=\"cq\"} 2\n",
	"kueue_reserving_active_workloads{cluster_queue=\"cq\"} 2\n",
	"kueue_cluster_queue_status{cluster_queue=\"broken\",status="
	"\"pending\"} 1\n",
	"kueue_cluster_queue_status{cluster_queue=\"cq\",status=\"active\"} "
	"1\n",
	"kueue_cluster_queue_nominal_quota{cluster_queue=\"cq\",cohort=\"\","
	"flavor=\"f\",resource=\"nvidia.com/gpu\"} 4\n",
	"kueue_cluster_queue_resource_usage{cluster_queue=\"cq\",cohort=\"\","
	"flavor=\"f\",resource=\"cpu\"} 4\n",
	/* the LocalQueues' Active conditions and flavorsUsage, as above */
	"kueue_local_queue_status{active=\"True\",name=\"lq\",namespace="
	"\"ns\"} 1\n",
	"kueue_local_queue_status{active=\"False\",name=\"other\","
	"namespace=\"ns\"} 1\n",
	"kueue_local_queue_resource_usage{flavor=\"f\",name=\"lq\","
	"namespace=\"ns\",resource=\"cpu\"} 4\n",
	"kueue_local_queue_resource_reservation{flavor=\"f\",name=\"lq\","
	"namespace=\"ns\",resource=\"nvidia.com/gpu\"} 4\n",
	NULL
};

/* Every line of the text is a comment or "name{labels} value". */
static void check_exposition(const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *sp;

		assert_non_null(nl);
		if (*p != '#') {
			sp = memchr(p, ' ', (size_t)(nl - p));
			assert_non_null(sp);
			assert_true(sp[1] != '\n');
		}
		p = nl + 1;
	}
}

static void test_metrics(void **state)
{
	struct obs_metrics *om;
	struct metrics *m;
	struct strbuf out;
	struct fx f;

	(void)state;
	start(&f);
	strbuf_init(&out);
	m = metrics_new();
	om = obs_metrics_new(m, NULL, NULL);
	obs_metrics_refresh(om, f.x);
	metrics_write(m, &out);
	obs_metrics_free(om);
	metrics_free(m);
	for (size_t i = 0; want_metrics[i]; i++)
		expect_in(out.buf, want_metrics[i]);
	check_exposition(out.buf);
	strbuf_release(&out);
	stop(&f);
}

struct objs {
	VEC(const struct api_obj *) v;
};

static int collect(void *ctx, const struct api_obj *o)
{
	struct objs *objs = ctx;

	vec_push(&objs->v, o);
	return 0;
}

static int by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The status of every object of kind k in a equals the one in b. */
static void expect_same_kind(struct api_store *a, struct api_store *b,
			     const struct api_kind *k, int step)
{
	struct objs objs = { VEC_INIT };

	(void)api_store_each(a, k, NULL, NULL, NULL, collect, &objs);
	for (size_t i = 0; i < objs.v.len; i++) {
		const struct api_obj *x = objs.v.items[i];
		const struct api_obj *y = api_store_get(b, k, x->ns, x->name);
		const json_t *sx = json_object_get(x->body, "status");
		const json_t *sy;

		assert_non_null(y);
		sy = json_object_get(y->body, "status");
		if (!(sx == sy || (sx && sy && json_equal(sx, sy)))) {
			char *tx =
				json_dumps(sx, JSON_COMPACT | JSON_SORT_KEYS);
			char *ty =
				json_dumps(sy, JSON_COMPACT | JSON_SORT_KEYS);

			fail_msg("step %d: %s %s/%s\nincremental %s\nfull %s",
				 step, k->kind, x->ns, x->name, tx, ty);
		}
	}
	vec_release(&objs.v);
}

/* "reason name count" of every Event of s, sorted, one a line. */
static char *event_lines(struct api_store *s)
{
	struct objs objs = { VEC_INIT };
	VEC(char *) lines = VEC_INIT;
	struct strbuf sb;
	char *text;

	(void)api_store_each(s, api_kind_of("v1", "Event"), NULL, NULL, NULL,
			     collect, &objs);
	for (size_t i = 0; i < objs.v.len; i++) {
		const json_t *b = objs.v.items[i]->body;

		vec_push(&lines,
			 xasprintf("%s %s %lld",
				   json_string_value(
					   json_object_get(b, "reason")),
				   json_string_value(json_object_get(
					   json_object_get(b, "involvedObject"),
					   "name")),
				   (long long)json_integer_value(
					   json_object_get(b, "count"))));
	}
	if (lines.len)
		qsort(lines.items, lines.len, sizeof(*lines.items), by_line);
	strbuf_init(&sb);
	for (size_t i = 0; i < lines.len; i++) {
		strbuf_addf(&sb, "%s\n", lines.items[i]);
		free(lines.items[i]);
	}
	vec_release(&lines);
	vec_release(&objs.v);
	text = strbuf_take(&sb);
	strbuf_release(&sb);
	return text;
}

static uint64_t next_rand(uint64_t *r)
{
	*r = *r * 6364136223846793005ull + 1442695040888963407ull;
	return *r >> 33;
}

/* Replace the status of Workload slot wl in s by {} (a user's write). */
static void clobber(struct fx *f, struct api_store *s, uint32_t wl)
{
	const struct api_kind *k =
		api_kind_of("kueue.x-k8s.io/v1beta2", "Workload");
	const struct workload *w = &f->c.workloads.items[wl];
	const struct api_obj *o = api_store_get(s, k, w->ns, w->name);
	json_t *body;

	if (!o)
		return;
	body = json_deep_copy(o->body);
	json_object_set_new(body, "status", json_object());
	assert_int_equal(api_store_update(s, k, body, 0, T0, NULL), 0);
}

/* Workload slot wl's spec again, with another priority, and inactive one
 * time in four (ctl_workload_update(), as a user's edit of the object). */
static void respec(struct fx *f, uint32_t wl, uint64_t rnd, int64_t now)
{
	const struct workload *src = &f->c.workloads.items[wl];
	uint64_t h = ctl_handle(f->x, wl);
	struct workload w;

	if (!h)
		return;
	workload_init(&w);
	w.ns = src->ns;
	w.name = src->name;
	w.queue_name = src->queue_name;
	w.priority = src->priority + (int32_t)(rnd % 3) - 1;
	w.has_priority = true;
	w.active = rnd % 4 != 0;
	w.creation_us = src->creation_us;
	workload_share_podsets(&w, src);
	/* -EBUSY (an admitted one's pod sets): nothing changes */
	if (ctl_workload_update(f->x, h, &w, now) < 0)
		assert_int_equal(sched_wl_state(ctl_sched(f->x), wl),
				 SCHED_WL_ADMITTED);
	workload_release(&w); /* nothing when moved in */
}

/* A reconfigure: the first quota of the first ClusterQueue halved, or
 * back (ctl_reconfigure() rebuilds the scheduler and the lifecycle). */
static int requota(void *ctx, struct cluster *c)
{
	struct resource_quota *q;
	int64_t *orig = ctx;

	if (!c->cluster_queues.len || !c->cluster_queues.items[0].ngroups)
		return 0;
	q = &c->cluster_queues.items[0].groups[0].flavors[0].resources[0];
	if (!*orig)
		*orig = q->nominal;
	q->nominal = q->nominal == *orig ? *orig / 2 : *orig;
	return 0;
}

/* One random event of the model, or a user's write of a status. */
static void random_event(struct fx *f, struct api_store *full, uint64_t *r,
			 int64_t *now, int64_t *orig)
{
	uint32_t n = (uint32_t)f->c.workloads.len;
	uint32_t wl = (uint32_t)(next_rand(r) % n);
	uint64_t h = ctl_handle(f->x, wl);
	uint32_t pod = (uint32_t)(next_rand(r) % 4);

	switch (next_rand(r) % 14) {
	case 0:
	case 1:
		(void)ctl_submit(f->x, h, true, *now);
		break;
	case 2:
		for (uint32_t p = 0; p < 4; p++)
			(void)ctl_pod_event(f->x, h, p, CTL_POD_READY, *now);
		break;
	case 3:
		(void)ctl_pod_event(f->x, h, pod, CTL_POD_FAILED, *now);
		break;
	case 4:
		(void)ctl_finish(f->x, h, *now);
		break;
	case 5:
		if (next_rand(r) % 4 == 0)
			(void)ctl_workload_delete(f->x, h, *now);
		break;
	case 6:
		clobber(f, f->s, wl);
		clobber(f, full, wl);
		break;
	case 7: /* with wait_victims: a preempted gang's pods are gone */
		(void)ctl_released(f->x, h, *now);
		break;
	case 8:
		respec(f, wl, next_rand(r), *now);
		break;
	case 9:
		if (f->c.nodes.len)
			ctl_node_down(f->x,
				      (uint32_t)(next_rand(r) % f->c.nodes.len),
				      next_rand(r) % 2, *now);
		break;
	case 10:
		if (next_rand(r) % 3 == 0)
			assert_true(ctl_reconfigure(f->x, requota, orig,
						    *now) >= 0);
		break;
	default:
		*now += (int64_t)(next_rand(r) % 40) * S;
		break;
	}
}

/* Every workload is listed (sched_wl_listed()) exactly when it has a
 * position in its ClusterQueue. */
static void expect_listed(const struct fx *f)
{
	size_t n = f->c.workloads.len;
	int64_t *cq = calloc(n + 1, sizeof(*cq));
	int64_t *lq = calloc(n + 1, sizeof(*lq));

	assert_non_null(cq);
	assert_non_null(lq);
	sched_positions(ctl_sched(f->x), cq, lq);
	for (uint32_t i = 0; i < n; i++) {
		if (!ctl_handle(f->x, i))
			continue;
		assert_int_equal(sched_wl_listed(ctl_sched(f->x), i),
				 cq[i] >= 0);
	}
	free(cq);
	free(lq);
}

struct journal {
	bool marked[64];
};

static int take_mark(void *ctx, uint32_t slot)
{
	struct journal *j = ctx;

	assert_true(slot < ARRAY_SIZE(j->marked));
	j->marked[slot] = true;
	return 0;
}

/* The controller's journal since *cursor holds every slot whose pending
 * reason key (what a FailedScheduling message is made of) moved since
 * keys[] was taken; then both move on. */
static void expect_marked(const struct fx *f, uint64_t *cursor, uint64_t *keys)
{
	struct journal j = { { false } };
	const struct sched *s = ctl_sched(f->x);

	assert_true(f->c.workloads.len <= ARRAY_SIZE(j.marked));
	if (ctl_changes(f->x, *cursor, take_mark, &j) < 0)
		memset(j.marked, 1, sizeof(j.marked));
	for (uint32_t i = 0; i < f->c.workloads.len; i++) {
		uint64_t key = ctl_handle(f->x, i) && sched_wl_state(s, i) ==
							      SCHED_WL_PENDING
				       ? sched_wl_pending_key(s, i)
				       : 0;

		if (key != keys[i] && !j.marked[i])
			fail_msg("%s: pending key moved, not marked",
				 f->c.workloads.items[i].name);
		keys[i] = key;
	}
	*cursor = ctl_changes_seq(f->x);
}

/*
 * Random controller events on the clusters of every test file (admission,
 * preemption with and without victims that hold their quota, evictions
 * and their requeue backoff, failed pods, finished and deleted
 * workloads, spec changes and deactivation, nodes down and up,
 * reconfigures, users' writes of status); after each, the incremental
 * update of one store, which computes only the workloads the controller
 * or the store says changed, and a full sync of a second store holding
 * the same objects write the same: the same count, the same status on
 * every object, the same Events; and the journal marked every workload
 * whose pending reason moved (what serve_sched's FailedScheduling pass
 * takes from it).
 */
static void test_incremental(void **state)
{
	static const char *const files[] = { "status.yaml",   "preempt.yaml",
					     "podgroup.yaml", "churn.yaml",
					     "churn.yaml",    "churn.yaml" };
	static const char *const kinds[][2] = {
		{ "kueue.x-k8s.io/v1beta2", "Workload" },
		{ "kueue.x-k8s.io/v1beta2", "ClusterQueue" },
		{ "kueue.x-k8s.io/v1beta2", "LocalQueue" },
		{ "scheduling.x-k8s.io/v1alpha1", "PodGroup" },
	};
	uint64_t updates = 0, computed = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		struct ctl_options o = { .wait_victims = seed % 2 == 0 };
		struct fx f;
		struct api_store *full;
		struct serve_status *st = serve_status_new();
		uint64_t r = seed, cursor = 0, keys[64] = { 0 };
		int64_t now = T0, orig = 0;

		load_with(&f, files[seed % ARRAY_SIZE(files)], &o);
		full = api_store_new(NULL);
		store_all(&f, full);
		for (int step = 0; step < 48; step++) {
			char *ea, *eb;

			random_event(&f, full, &r, &now, &orig);
			ctl_run(f.x, now);
			expect_listed(&f);
			expect_marked(&f, &cursor, keys);
			assert_int_equal(serve_status_update(st, f.s, f.x, now),
					 serve_status_sync(full, f.x, now));
			updates += f.c.workloads.len;
			for (size_t k = 0; k < ARRAY_SIZE(kinds); k++)
				expect_same_kind(
					f.s, full,
					api_kind_of(kinds[k][0], kinds[k][1]),
					step);
			ea = event_lines(f.s);
			eb = event_lines(full);
			assert_string_equal(ea, eb);
			free(ea);
			free(eb);
		}
		/* settled: nothing more to write */
		assert_int_equal(serve_status_update(st, f.s, f.x, now), 0);
		computed += serve_status_computed(st);
		serve_status_free(st);
		api_store_free(full);
		stop(&f);
	}
	/* the dirty path: far fewer statuses computed than a full sync's */
	assert_true(computed * 2 < updates);
}

/*
 * The journal alone, over many more random events on churn.yaml than
 * test_incremental can afford (it also runs full syncs): after each,
 * every workload whose pending reason key moved (parked classes tried
 * again with other reasons, StrictFIFO heads leaving) was marked, and
 * sched_wl_listed() agrees with the positions.
 */
static void test_journal(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 150; seed++) {
		struct ctl_options o = { .wait_victims = seed % 2 == 0 };
		struct fx f;
		struct api_store *full = api_store_new(NULL);
		uint64_t r = seed * 7919, cursor = 0, keys[64] = { 0 };
		int64_t now = T0, orig = 0;

		load_with(&f, "churn.yaml", &o);
		for (int step = 0; step < 80; step++) {
			random_event(&f, full, &r, &now, &orig);
			ctl_run(f.x, now);
			expect_listed(&f);
			expect_marked(&f, &cursor, keys);
		}
		api_store_free(full);
		stop(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_sync),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_preemption),
		cmocka_unit_test(test_pod_group),
		cmocka_unit_test(test_active),
		cmocka_unit_test(test_visibility),
		cmocka_unit_test(test_visibility_estimates),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_incremental),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

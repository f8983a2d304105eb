// SPDX-License-Identifier: Apache-2.0
/*
 * Table rows as kubectl prints them on a real cluster: golden cells per
 * kind (wide columns included), and ages in HumanDuration's format.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_kind.h"
#include "api/api_table.h"
#include "base/compiler.h"
#include "manifest/dec.h"

#include "base/banned.h"

#define S   INT64_C(1000000)
#define M   (60 * S)
#define H   (60 * M)
#define D   (24 * H)
#define NOW "2026-12-01T13:00:00Z"

struct age_case {
	int64_t us;
	const char *want;
};

static const struct age_case ages[] = {
	{ -3 * S, "<invalid>" },
	{ -2 * S, "<invalid>" },
	{ -1 * S, "0s" },
	{ -S / 2, "0s" },
	{ 0, "0s" },
	{ 45 * S, "45s" },
	{ 119 * S, "119s" },
	{ 120 * S, "2m" },
	{ 200 * S, "3m20s" },
	{ 9 * M + 59 * S, "9m59s" },
	{ 10 * M + 30 * S, "10m" },
	{ 179 * M, "179m" },
	{ 3 * H, "3h" },
	{ 4 * H + 10 * M, "4h10m" },
	{ 5 * H, "5h" },
	{ 8 * H + 30 * M, "8h" },
	{ 47 * H, "47h" },
	{ 2 * D, "2d" },
	{ 2 * D + 3 * H, "2d3h" },
	{ 7 * D + 23 * H, "7d23h" },
	{ 8 * D + 5 * H, "8d" },
	{ 729 * D, "729d" },
	{ 730 * D, "2y" },
	{ 3 * 365 * D + 20 * D, "3y20d" },
	{ 8 * 365 * D + 20 * D, "8y" },
};

static void test_ages(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ages); i++)
		assert_string_equal(api_table_age(ages[i].us, buf, sizeof(buf)),
				    ages[i].want);
	assert_string_equal(api_table_since(NULL, 0, buf, sizeof(buf)),
			    "<unknown>");
	assert_string_equal(api_table_since("yesterday", 0, buf, sizeof(buf)),
			    "<unknown>");
}

struct row_case {
	enum api_kind_id kind;
	const char *obj;
	const char *cells; /* JSON array */
};

static const struct row_case rows[] = {
	/* Nodes: STATUS from Ready, cordoned, roles from labels. */
	{ API_KIND_NODE,
	  "{\"metadata\":{\"name\":\"n1\",\"creationTimestamp\":"
	  "\"2026-12-01T12:00:00Z\",\"labels\":{"
	  "\"node-role.kubernetes.io/worker\":\"\","
	  "\"node-role.kubernetes.io/control-plane\":\"\"}},"
	  "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	  "\"True\"}],\"nodeInfo\":{\"kubeletVersion\":\"v1.35.0\","
	  "\"osImage\":\"Debian GNU/Linux 12\",\"kernelVersion\":\"6.1.0\","
	  "\"containerRuntimeVersion\":\"containerd://1.7\"},"
	  "\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"},"
	  "{\"type\":\"Hostname\",\"address\":\"n1\"}]}}",
	  "[\"n1\",\"Ready\",\"control-plane,worker\",\"60m\",\"v1.35.0\","
	  "\"10.0.0.1\",\"<none>\",\"Debian GNU/Linux 12\",\"6.1.0\","
	  "\"containerd://1.7\"]" },
	{ API_KIND_NODE,
	  "{\"metadata\":{\"name\":\"n2\",\"creationTimestamp\":"
	  "\"2026-11-29T10:00:00Z\"},\"spec\":{\"unschedulable\":true},"
	  "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	  "\"False\"}]}}",
	  "[\"n2\",\"NotReady,SchedulingDisabled\",\"<none>\",\"2d3h\",\"\","
	  "\"<none>\",\"<none>\",\"<unknown>\",\"<unknown>\",\"<unknown>\"]" },
	{ API_KIND_NODE,
	  "{\"metadata\":{\"name\":\"n3\",\"labels\":{\"kubernetes.io/role\":"
	  "\"gpu\"}},\"spec\":{\"unschedulable\":true}}",
	  "[\"n3\",\"Unknown,SchedulingDisabled\",\"gpu\",\"<unknown>\",\"\","
	  "\"<none>\",\"<none>\",\"<unknown>\",\"<unknown>\",\"<unknown>\"]" },
	/* Pods: pending, running and ready, restarted, failed, deleted. */
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\",\"creationTimestamp\":"
	  "\"2026-12-01T12:59:15Z\"},\"spec\":{\"containers\":[{\"name\":"
	  "\"c\"}]},\"status\":{\"phase\":\"Pending\"}}",
	  "[\"p\",\"0/1\",\"Pending\",\"0\",\"45s\",\"<none>\",\"<none>\","
	  "\"<none>\",\"<none>\"]" },
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\",\"creationTimestamp\":"
	  "\"2026-12-01T12:56:40Z\"},\"spec\":{\"nodeName\":\"n1\","
	  "\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
	  "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.1.0.5\","
	  "\"podIPs\":[{\"ip\":\"10.1.0.5\"}],\"containerStatuses\":["
	  "{\"name\":\"a\",\"ready\":true,\"restartCount\":2,\"state\":"
	  "{\"running\":{}},\"lastState\":{\"terminated\":{\"exitCode\":1,"
	  "\"finishedAt\":\"2026-12-01T12:55:00Z\"}}},"
	  "{\"name\":\"b\",\"ready\":true,\"restartCount\":1,\"state\":"
	  "{\"running\":{}},\"lastState\":{\"terminated\":{\"exitCode\":1,"
	  "\"finishedAt\":\"2026-12-01T12:58:00Z\"}}}]}}",
	  "[\"p\",\"2/2\",\"Running\",\"3 (2m ago)\",\"3m20s\",\"10.1.0.5\","
	  "\"n1\",\"<none>\",\"<none>\"]" },
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":"
	  "\"c\"}]},\"status\":{\"phase\":\"Pending\",\"containerStatuses\":["
	  "{\"name\":\"c\",\"ready\":false,\"restartCount\":4,\"state\":"
	  "{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}]}}",
	  "[\"p\",\"0/1\",\"CrashLoopBackOff\",\"4\",\"<unknown>\",\"<none>\","
	  "\"<none>\",\"<none>\",\"<none>\"]" },
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":"
	  "\"c\"}]},\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":"
	  "[{\"name\":\"c\",\"state\":{\"terminated\":{\"exitCode\":0,"
	  "\"reason\":\"Completed\"}}}]}}",
	  "[\"p\",\"0/1\",\"Completed\",\"0\",\"<unknown>\",\"<none>\","
	  "\"<none>\",\"<none>\",\"<none>\"]" },
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":"
	  "\"c\"}]},\"status\":{\"phase\":\"Failed\",\"containerStatuses\":"
	  "[{\"name\":\"c\",\"state\":{\"terminated\":{\"exitCode\":137}}}]}}",
	  "[\"p\",\"0/1\",\"ExitCode:137\",\"0\",\"<unknown>\",\"<none>\","
	  "\"<none>\",\"<none>\",\"<none>\"]" },
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\",\"deletionTimestamp\":"
	  "\"2026-12-01T12:59:00Z\"},\"spec\":{\"containers\":[{\"name\":"
	  "\"c\"}],\"readinessGates\":[{\"conditionType\":\"x/ok\"},"
	  "{\"conditionType\":\"x/up\"}]},\"status\":{\"phase\":\"Running\","
	  "\"nominatedNodeName\":\"n9\",\"conditions\":[{\"type\":\"x/ok\","
	  "\"status\":\"True\"}]}}",
	  "[\"p\",\"0/1\",\"Terminating\",\"0\",\"<unknown>\",\"<none>\","
	  "\"<none>\",\"n9\",\"1/2\"]" },
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"schedulingGates\":[{"
	  "\"name\":\"g\"}],\"containers\":[{\"name\":\"c\"}]},"
	  "\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
	  "\"PodScheduled\",\"status\":\"False\",\"reason\":"
	  "\"SchedulingGated\"}]}}",
	  "[\"p\",\"0/1\",\"SchedulingGated\",\"0\",\"<unknown>\",\"<none>\","
	  "\"<none>\",\"<none>\",\"<none>\"]" },
	/* Init containers: waiting, then the count of those done. */
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":["
	  "{\"name\":\"i1\"},{\"name\":\"i2\"}],\"containers\":[{\"name\":"
	  "\"c\"}]},\"status\":{\"phase\":\"Pending\","
	  "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{"
	  "\"terminated\":{\"exitCode\":0}}},{\"name\":\"i2\",\"state\":{"
	  "\"running\":{}}}]}}",
	  "[\"p\",\"0/1\",\"Init:1/2\",\"0\",\"<unknown>\",\"<none>\","
	  "\"<none>\",\"<none>\",\"<none>\"]" },
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":["
	  "{\"name\":\"i1\"}],\"containers\":[{\"name\":\"c\"}]},"
	  "\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":["
	  "{\"name\":\"i1\",\"state\":{\"waiting\":{\"reason\":"
	  "\"ImagePullBackOff\"}}}]}}",
	  "[\"p\",\"0/1\",\"Init:ImagePullBackOff\",\"0\",\"<unknown>\","
	  "\"<none>\",\"<none>\",\"<none>\",\"<none>\"]" },
	/* A sidecar (restartable init container) counts as a container. */
	{ API_KIND_POD,
	  "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":["
	  "{\"name\":\"s\",\"restartPolicy\":\"Always\"}],\"containers\":["
	  "{\"name\":\"c\"}]},\"status\":{\"phase\":\"Running\","
	  "\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\"}],"
	  "\"initContainerStatuses\":[{\"name\":\"s\",\"started\":true,"
	  "\"ready\":true,\"state\":{\"running\":{}}}],"
	  "\"containerStatuses\":[{\"name\":\"c\",\"ready\":true,\"state\":{"
	  "\"running\":{}}}]}}",
	  "[\"p\",\"2/2\",\"Running\",\"0\",\"<unknown>\",\"<none>\","
	  "\"<none>\",\"<none>\",\"<none>\"]" },
	{ API_KIND_NAMESPACE,
	  "{\"metadata\":{\"name\":\"team-a\",\"creationTimestamp\":"
	  "\"2026-11-21T13:00:00Z\"},\"status\":{\"phase\":\"Active\"}}",
	  "[\"team-a\",\"Active\",\"10d\"]" },
	/* Events: core, repeated (series), and the events.k8s.io view. */
	{ API_KIND_EVENT,
	  "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
	  "\"p.1\"},\"type\":\"Warning\",\"reason\":\"FailedScheduling\","
	  "\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"p\"},"
	  "\"message\":\" 0/3 nodes are available \\n\",\"source\":{"
	  "\"component\":\"echelon\"},\"firstTimestamp\":"
	  "\"2026-12-01T12:50:00Z\",\"lastTimestamp\":\"2026-12-01T12:59:00Z\","
	  "\"count\":3}",
	  "[\"60s\",\"Warning\",\"FailedScheduling\",\"pod/p\",\"\","
	  "\"echelon\",\"0/3 nodes are available\",\"10m\",3,\"p.1\"]" },
	{ API_KIND_EVENT,
	  "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
	  "\"w.2\"},\"type\":\"Normal\",\"reason\":\"Admitted\","
	  "\"involvedObject\":{\"kind\":\"Workload\",\"name\":\"w\","
	  "\"fieldPath\":\"spec\"},\"message\":\"ok\","
	  "\"reportingComponent\":\"kueue\",\"reportingInstance\":\"k-1\","
	  "\"eventTime\":\"2026-12-01T12:00:00.000000Z\",\"series\":{"
	  "\"count\":5,\"lastObservedTime\":\"2026-12-01T12:58:00.000000Z\"}}",
	  "[\"2m\",\"Normal\",\"Admitted\",\"workload/w\",\"spec\","
	  "\"kueue, k-1\",\"ok\",\"60m\",5,\"w.2\"]" },
	{ API_KIND_EVENT_V1,
	  "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\","
	  "\"metadata\":{\"name\":\"n.3\"},\"type\":\"Normal\",\"reason\":"
	  "\"Scheduled\",\"regarding\":{\"kind\":\"Node\"},\"note\":\"bound\","
	  "\"reportingController\":\"echelon.dev/scheduler\","
	  "\"eventTime\":\"2026-12-01T12:59:30.000000Z\"}",
	  "[\"30s\",\"Normal\",\"Scheduled\",\"node\",\"\","
	  "\"echelon.dev/scheduler\",\"bound\",\"30s\",1,\"n.3\"]" },
	/* Jobs: running, complete with its duration, suspended. */
	{ API_KIND_JOB,
	  "{\"metadata\":{\"name\":\"j\",\"creationTimestamp\":"
	  "\"2026-12-01T12:55:00Z\"},\"spec\":{\"parallelism\":4,\"template\":"
	  "{\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\"}"
	  ","
	  "{\"name\":\"side\",\"image\":\"envoy:1\"}]}},\"selector\":{"
	  "\"matchLabels\":{\"batch.kubernetes.io/controller-uid\":\"u1\"},"
	  "\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\","
	  "\"values\":[\"b\",\"a\"]},{\"key\":\"tier\",\"operator\":"
	  "\"DoesNotExist\"},{\"key\":\"zone\",\"operator\":\"NotIn\","
	  "\"values\":[\"y\",\"x\"]}]}},\"status\":{\"startTime\":"
	  "\"2026-12-01T12:56:00Z\",\"succeeded\":1}}",
	  "[\"j\",\"Running\",\"1/1 of 4\",\"4m\",\"5m\",\"main,side\","
	  "\"busybox,envoy:1\",\"app in (a,b),"
	  "batch.kubernetes.io/controller-uid=u1,!tier,zone notin (x,y)\"]" },
	{ API_KIND_JOB,
	  "{\"metadata\":{\"name\":\"j\",\"creationTimestamp\":"
	  "\"2026-12-01T10:00:00Z\"},\"spec\":{\"completions\":8,"
	  "\"parallelism\":8},\"status\":{\"startTime\":"
	  "\"2026-12-01T10:00:05Z\",\"completionTime\":"
	  "\"2026-12-01T10:42:05Z\",\"succeeded\":8,\"conditions\":[{\"type\":"
	  "\"SuccessCriteriaMet\",\"status\":\"True\"},{\"type\":\"Complete\","
	  "\"status\":\"True\"}]}}",
	  "[\"j\",\"Complete\",\"8/8\",\"42m\",\"3h\",\"\",\"\",\"<none>\"]" },
	{ API_KIND_JOB,
	  "{\"metadata\":{\"name\":\"j\"},\"spec\":{\"suspend\":true},"
	  "\"status\":{\"conditions\":[{\"type\":\"Suspended\",\"status\":"
	  "\"True\"}]}}",
	  "[\"j\",\"Suspended\",\"0/1\",\"\",\"<unknown>\",\"\",\"\","
	  "\"<none>\"]" },
	{ API_KIND_LEASE,
	  "{\"metadata\":{\"name\":\"echelon\",\"creationTimestamp\":"
	  "\"2026-12-01T08:00:00Z\"},\"spec\":{\"holderIdentity\":\"e-1\"}}",
	  "[\"echelon\",\"e-1\",\"5h\"]" },
	{ API_KIND_PRIORITY_CLASS,
	  "{\"metadata\":{\"name\":\"high\",\"creationTimestamp\":"
	  "\"2026-12-01T12:59:59Z\"},\"value\":1000}",
	  "[\"high\",1000,false,\"1s\",\"PreemptLowerPriority\"]" },
	{ API_KIND_PRIORITY_CLASS,
	  "{\"metadata\":{\"name\":\"low\"},\"value\":-5,\"globalDefault\":"
	  "true,\"preemptionPolicy\":\"Never\"}",
	  "[\"low\",-5,true,\"<unknown>\",\"Never\"]" },
	/* Kueue: printer columns, null when a field is absent. */
	{ API_KIND_CLUSTER_QUEUE,
	  "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"metadata\":{\"name\":"
	  "\"cq\"},\"spec\":{\"cohortName\":\"all\",\"queueingStrategy\":"
	  "\"BestEffortFIFO\"},\"status\":{\"pendingWorkloads\":3,"
	  "\"admittedWorkloads\":2}}",
	  "[\"cq\",\"all\",\"BestEffortFIFO\",3,2]" },
	{ API_KIND_CLUSTER_QUEUE,
	  "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"metadata\":{\"name\":"
	  "\"cq\"},\"spec\":{\"cohort\":\"old\"}}",
	  "[\"cq\",\"old\",null,null,null]" },
	{ API_KIND_LOCAL_QUEUE,
	  "{\"metadata\":{\"name\":\"lq\"},\"spec\":{\"clusterQueue\":\"cq\"},"
	  "\"status\":{\"pendingWorkloads\":0,\"admittedWorkloads\":1}}",
	  "[\"lq\",\"cq\",0,1]" },
	{ API_KIND_WORKLOAD_PRIORITY_CLASS,
	  "{\"metadata\":{\"name\":\"w\"},\"value\":100}", "[\"w\",100]" },
	{ API_KIND_WORKLOAD,
	  "{\"metadata\":{\"name\":\"job-a\",\"creationTimestamp\":"
	  "\"2026-12-01T12:58:00Z\"},\"spec\":{\"queueName\":\"lq\"},"
	  "\"status\":{\"admission\":{\"clusterQueue\":\"cq\"},"
	  "\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":\"True\"},"
	  "{\"type\":\"Admitted\",\"status\":\"True\"}]}}",
	  "[\"job-a\",\"lq\",\"cq\",\"True\",null,\"2m\"]" },
	{ API_KIND_WORKLOAD,
	  "{\"metadata\":{\"name\":\"job-b\"},\"spec\":{\"queueName\":\"lq\"}}",
	  "[\"job-b\",\"lq\",null,null,null,null]" },
	{ API_KIND_POD_GROUP,
	  "{\"metadata\":{\"name\":\"pg\",\"creationTimestamp\":"
	  "\"2026-12-01T12:00:00Z\"},\"spec\":{\"minMember\":4},\"status\":{"
	  "\"phase\":\"Running\",\"running\":4,\"succeeded\":0}}",
	  "[\"pg\",\"Running\",4,4,0,null,\"60m\"]" },
	/* the native PodGroup: gang size, topology level, condition */
	{ API_KIND_NATIVE_POD_GROUP,
	  "{\"metadata\":{\"name\":\"llama\",\"creationTimestamp\":"
	  "\"2026-12-01T12:00:00Z\"},\"spec\":{\"schedulingPolicy\":{"
	  "\"gang\":{\"minCount\":8}},\"schedulingConstraints\":{"
	  "\"topology\":[{\"key\":\"topology-rack\"}]}},\"status\":{"
	  "\"conditions\":[{\"type\":\"PodGroupInitiallyScheduled\","
	  "\"status\":\"False\",\"reason\":\"Unschedulable\"}]}}",
	  "[\"llama\",8,\"topology-rack\",\"False\",\"Unschedulable\","
	  "\"60m\"]" },
	{ API_KIND_NATIVE_POD_GROUP,
	  "{\"metadata\":{\"name\":\"pg\"},\"spec\":{\"schedulingPolicy\":"
	  "{\"basic\":{}}}}",
	  "[\"pg\",null,null,null,null,null]" },
	{ API_KIND_RESOURCE_FLAVOR,
	  "{\"metadata\":{\"name\":\"gpu\",\"creationTimestamp\":"
	  "\"2026-12-01T12:59:00Z\"}}",
	  "[\"gpu\",\"60s\"]" },
	{ API_KIND_CONFIGURATION, "{\"metadata\":{\"name\":\"c\"}}",
	  "[\"c\",\"<unknown>\"]" },
};

static void test_rows(void **state)
{
	int64_t now_us;

	(void)state;
	assert_int_equal(dec_parse_time(NOW, &now_us), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct api_kind *k = api_kind_at(rows[i].kind);
		json_t *obj = json_loads(rows[i].obj, 0, NULL);
		json_t *want = json_loads(rows[i].cells, 0, NULL);
		json_t *got;

		assert_non_null(obj);
		assert_non_null(want);
		got = api_table_row_cells(k, obj, now_us);
		if (!json_equal(got, want)) {
			char *s = json_dumps(got, JSON_COMPACT);

			fail_msg("row %zu (%s): got %s, want %s", i, k->kind, s,
				 rows[i].cells);
		}
		assert_int_equal(json_array_size(want), k->ncolumns);
		json_decref(got);
		json_decref(want);
		json_decref(obj);
	}
}

/* Whatever the object holds, a row has one cell per column. */
static void test_hostile_rows(void **state)
{
	static const char *const objs[] = {
		"{}",
		"{\"metadata\":7,\"spec\":[],\"status\":\"x\"}",
		"{\"metadata\":{\"name\":5,\"labels\":[1]},\"status\":{"
		"\"conditions\":{\"a\":1},\"containerStatuses\":[1,null,"
		"{\"state\":7}],\"initContainerStatuses\":[{\"state\":{"
		"\"terminated\":{\"exitCode\":\"x\"}}}],\"podIPs\":[7],"
		"\"addresses\":[1]},\"spec\":{\"readinessGates\":[1],"
		"\"selector\":{\"matchLabels\":{\"a\":1},\"matchExpressions\":"
		"[1,{\"operator\":\"In\",\"values\":[1]}]},\"template\":{"
		"\"spec\":{\"containers\":[1]}}},\"series\":{}}",
	};
	int64_t now_us = 0;

	(void)state;
	for (size_t k = 0; k < api_kind_count(); k++) {
		for (size_t i = 0; i < ARRAY_SIZE(objs); i++) {
			json_t *obj = json_loads(objs[i], 0, NULL);
			json_t *got = api_table_row_cells(api_kind_at(k), obj,
							  now_us);

			assert_int_equal(json_array_size(got),
					 api_kind_at(k)->ncolumns);
			json_decref(got);
			json_decref(obj);
		}
	}
}

static void test_columns(void **state)
{
	const struct api_kind *wl = api_kind_at(API_KIND_WORKLOAD);
	json_t *cols = api_table_columns(wl);
	json_t *c0 = json_array_get(cols, 0);

	(void)state;
	assert_int_equal(json_array_size(cols), 6);
	assert_string_equal(json_string_value(json_object_get(c0, "name")),
			    "Name");
	assert_string_equal(json_string_value(json_object_get(c0, "format")),
			    "name");
	/* ClusterQueue's strategy and admitted count are -o wide only. */
	json_decref(cols);
	cols = api_table_columns(api_kind_at(API_KIND_CLUSTER_QUEUE));
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(cols, 2), "priority")),
			 1);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(cols, 3), "priority")),
			 0);
	json_decref(cols);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ages),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_hostile_rows),
		cmocka_unit_test(test_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

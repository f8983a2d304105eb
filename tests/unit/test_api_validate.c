// SPDX-License-Identifier: Apache-2.0
/*
 * Validation of API writes: the manifest decoders' messages become
 * causes (the same words `echelon validate` prints), unknown fields follow
 * the fieldValidation mode, kinds without a decoder get Kubernetes' rules,
 * and updates may not change what Kubernetes keeps immutable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api_validate.h"
#include "base/compiler.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "manifest/manifest.h"
#include "model/cluster.h"

#include "base/banned.h"

#define POD(meta, spec)                                                        \
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{" meta "},"     \
	"\"spec\":{" spec "}}"
#define C1 "\"containers\":[{\"name\":\"c\",\"image\":\"x:1\"}]"
#define JOB(spec)                                                              \
	"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"         \
	"\"name\":\"j\",\"namespace\":\"default\"},\"spec\":{" spec "}}"
#define TEMPLATE(img)                                                          \
	"\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"   \
	"\"" img "\"}]}}"
#define WL(status, count)                                                      \
	"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\","    \
	"\"metadata\":{\"name\":\"w\",\"namespace\":\"default\"},\"spec\":{"   \
	"\"queueName\":\"lq\",\"podSets\":[{\"name\":\"main\","                \
	"\"count\":" count ",\"template\":{\"spec\":{\"containers\":[{"        \
	"\"name\":\"c\"}]}}}]}" status "}"
#define ADMITTED ",\"status\":{\"admission\":{\"clusterQueue\":\"cq\"}}"
#define EV1(fields)                                                            \
	"{\"apiVersion\":\"events.k8s.io/"                                     \
	"v1\",\"kind\":\"Event\",\"metadata\":{"                               \
	"\"name\":\"e\",\"namespace\":\"default\"}" fields "}"
#define EV1_OK                                                                 \
	",\"eventTime\":\"2026-12-01T13:00:00.000000Z\",\"type\":\"Normal\","  \
	"\"reportingController\":\"echelon.dev/scheduler\","                   \
	"\"reportingInstance\":\"e-1\",\"action\":\"Binding\",\"reason\":"     \
	"\"Scheduled\",\"regarding\":{\"kind\":\"Pod\",\"namespace\":"         \
	"\"default\",\"name\":\"p\"}"
#define LEASE(spec)                                                            \
	"{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","       \
	"\"metadata\":{\"name\":\"l\",\"namespace\":\"kube-system\"},"         \
	"\"spec\":{" spec "}}"
#define PC(v)                                                                  \
	"{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\"," \
	"\"metadata\":{\"name\":\"high\"},\"value\":" v "}"

#define NS "\"name\":\"p\",\"namespace\":\"default\""

struct validate_case {
	enum api_kind_id kind;
	const char *obj, *old;
	enum api_field_validation fv;
	int rc;
	size_t unknown;
	/* Expected causes "E field: message" or "W field: message" (the
	 * message may be cut short), in order; NULL ends. */
	const char *causes[8];
};

static const struct validate_case cases[] = {
	{ API_KIND_POD, POD(NS, C1), NULL, API_FV_STRICT, 0, 0, { NULL } },
	{ API_KIND_POD,
	  POD("\"name\":\"Bad_Name\",\"namespace\":\"default\"", C1),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E metadata.name: \"Bad_Name\" is not a DNS-1123 subdomain" } },
	{ API_KIND_POD,
	  POD(NS ",\"labels\":{\"a b\":\"c\"}",
	      "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{"
	      "\"cpu\":\"x\"}}}]"),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E metadata.labels[\"a b\"]: name part must consist of",
	    "E spec.containers[0].resources.requests[\"cpu\"]: \"x\": "
	    "missing number before the suffix" } },
	/* Unknown fields: errors under Strict, warnings under Warn, nothing
	 * under Ignore. */
	{ API_KIND_POD,
	  POD(NS, C1 ",\"foo\":1"),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  1,
	  { "E spec.foo: unknown field \"foo\" is ignored" } },
	{ API_KIND_POD,
	  POD(NS, C1 ",\"foo\":1"),
	  NULL,
	  API_FV_WARN,
	  0,
	  0,
	  { "W spec.foo: unknown field \"foo\" is ignored" } },
	{ API_KIND_POD,
	  POD(NS, C1 ",\"foo\":1"),
	  NULL,
	  API_FV_IGNORE,
	  0,
	  0,
	  { NULL } },
	{ API_KIND_POD,
	  POD("\"name\":\"p\"", C1),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E metadata.namespace: is required" } },
	{ API_KIND_POD,
	  JOB(TEMPLATE("x")),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E kind: batch/v1 Job is not what this path serves (v1 Pod)" } },
	{ API_KIND_POD,
	  "{\"kind\":\"Pod\"}",
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E apiVersion: is required" } },
	{ API_KIND_POD,
	  "[1]",
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E : must be a JSON object" } },
	{ API_KIND_JOB,
	  JOB("\"parallelism\":-1," TEMPLATE("x")),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E spec.parallelism: must be between 0 and 1000000, not -1" } },
	{ API_KIND_CLUSTER_QUEUE,
	  "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":"
	  "\"ClusterQueue\",\"metadata\":{\"name\":\"cq\"},\"spec\":{"
	  "\"cohort\":\"c\",\"cohortName\":\"d\"}}",
	  NULL,
	  API_FV_STRICT,
	  0,
	  0,
	  { "W spec.cohortName: ignored: this apiVersion calls the field "
	    "cohort" } },
	/* Events: events.k8s.io's required fields; the namespace of the
	 * object an Event is about. */
	{ API_KIND_EVENT_V1, EV1(EV1_OK), NULL, API_FV_STRICT, 0, 0, { NULL } },
	{ API_KIND_EVENT_V1,
	  EV1(",\"note\":\"x\",\"type\":\"Bad\""),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E eventTime: is required",
	    "E type: must be \"Normal\" or \"Warning\", not \"Bad\"",
	    "E reportingController: is required",
	    "E reportingInstance: is required", "E action: is required",
	    "E reason: is required" } },
	{ API_KIND_EVENT,
	  "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
	  "\"e\",\"namespace\":\"default\"},\"involvedObject\":{"
	  "\"namespace\":\"other\"},\"message\":\"x\"}",
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E involvedObject.namespace: \"other\" does not match the "
	    "Event's namespace" } },
	{ API_KIND_EVENT,
	  "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
	  "\"p.1\",\"namespace\":\"default\"},\"involvedObject\":{\"kind\":"
	  "\"Pod\",\"name\":\"p\",\"namespace\":\"default\"},\"reason\":"
	  "\"Started\",\"message\":\"ok\",\"count\":1}",
	  NULL,
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	/* A core Event with an eventTime is checked as a new one. */
	{ API_KIND_EVENT,
	  "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":"
	  "\"p.1\",\"namespace\":\"default\"},\"eventTime\":"
	  "\"2026-12-01T13:00:00.000000Z\",\"type\":\"Normal\",\"action\":"
	  "\"a\","
	  "\"reason\":\"r\",\"reportingInstance\":\"i\"}",
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E reportingComponent: is required" } },
	{ API_KIND_LEASE,
	  "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\","
	  "\"metadata\":{\"name\":\"l\",\"namespace\":\"kube-system\","
	  "\"labels\":{\"-x\":\"y\"}},\"spec\":{\"leaseDurationSeconds\":0}}",
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E metadata.labels[\"-x\"]: name part must consist of",
	    "E spec.leaseDurationSeconds: must be a positive integer" } },
	{ API_KIND_LEASE,
	  LEASE("\"holderIdentity\":\"e-1\",\"leaseDurationSeconds\":15"),
	  NULL,
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	/* Kinds without a decoder know their fields too. */
	{ API_KIND_EVENT_V1,
	  EV1(EV1_OK ",\"foo\":1,\"message\":\"m\""),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  2,
	  { "E foo: unknown field \"foo\" is ignored",
	    "E message: unknown field \"message\" is ignored" } },
	{ API_KIND_EVENT_V1,
	  EV1(EV1_OK ",\"foo\":1"),
	  NULL,
	  API_FV_WARN,
	  0,
	  0,
	  { "W foo: unknown field \"foo\" is ignored" } },
	{ API_KIND_LEASE,
	  LEASE("\"holderIdentity\":\"e-1\",\"bar\":2"),
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  1,
	  { "E spec.bar: unknown field \"bar\" is ignored" } },
	/* Kubernetes' own PodGroup: its fields, a gang of at least one. */
	{ API_KIND_NATIVE_POD_GROUP,
	  "{\"apiVersion\":\"scheduling.k8s.io/v1beta1\",\"kind\":"
	  "\"PodGroup\",\"metadata\":{\"name\":\"pg\",\"namespace\":"
	  "\"a\"},\"spec\":{\"schedulingPolicy\":{\"gang\":{\"minCount\":"
	  "4}},\"schedulingConstraints\":{\"topology\":[{\"key\":\"rack\"}]},"
	  "\"disruptionMode\":\"All\"}}",
	  NULL,
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	{ API_KIND_NATIVE_POD_GROUP,
	  "{\"apiVersion\":\"scheduling.k8s.io/v1alpha2\",\"kind\":"
	  "\"PodGroup\",\"metadata\":{\"name\":\"pg\",\"namespace\":"
	  "\"a\"},\"spec\":{\"schedulingPolicy\":{\"gang\":{\"minCount\":"
	  "0}},\"minMember\":2}}",
	  NULL,
	  API_FV_STRICT,
	  -EINVAL,
	  1,
	  { "E spec.minMember: unknown field \"minMember\" is ignored",
	    "E spec.schedulingPolicy.gang.minCount: must be an integer of at "
	    "least 1" } },
	/* Objects as a cluster holds them: a kubelet's Node status, a
	 * v1beta2 Workload's status with compact topology slices. */
	{ API_KIND_NODE,
	  "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	  "\"n1\"},\"spec\":{\"podCIDR\":\"10.1.0.0/24\"},\"status\":{"
	  "\"capacity\":{\"cpu\":\"8\"},\"phase\":\"Running\",\"nodeInfo\":{"
	  "\"kubeletVersion\":\"v1.35.0\"},\"addresses\":[{\"type\":"
	  "\"InternalIP\",\"address\":\"10.0.0.1\"}],\"daemonEndpoints\":{},"
	  "\"images\":[],\"volumesInUse\":[],\"volumesAttached\":[],"
	  "\"config\":{},\"runtimeHandlers\":[],\"features\":{}}}",
	  NULL,
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	{ API_KIND_WORKLOAD,
	  WL(",\"status\":{\"accumulatedPastExecutionTimeSeconds\":10,"
	     "\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":"
	     "[{\"name\":\"main\",\"count\":2,\"topologyAssignment\":{"
	     "\"levels\":[\"rack\"],\"slices\":[{\"domainCount\":1,"
	     "\"valuesPerLevel\":[{\"universal\":\"r1\"}],\"podCounts\":{"
	     "\"universal\":2}}]}}]}}",
	     "2"),
	  NULL,
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	/* Updates. */
	{ API_KIND_POD,
	  POD(NS, "\"containers\":[{\"name\":\"c\",\"image\":"
		  "\"x:2\"}],\"activeDeadlineSeconds\":5"),
	  POD(NS, C1),
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	{ API_KIND_POD,
	  POD(NS, C1 ",\"nodeName\":\"n1\""),
	  POD(NS, C1),
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E spec: pod updates may not change fields other than" } },
	{ API_KIND_JOB,
	  JOB("\"selector\":{\"matchLabels\":{\"a\":\"2\"}}," TEMPLATE("x")),
	  JOB("\"selector\":{\"matchLabels\":{\"a\":\"1\"}}," TEMPLATE("x")),
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E spec.selector: field is immutable" } },
	{ API_KIND_JOB,
	  JOB("\"suspend\":true," TEMPLATE("y")),
	  JOB("\"suspend\":true," TEMPLATE("x")),
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	{ API_KIND_JOB,
	  JOB(TEMPLATE("y")),
	  JOB(TEMPLATE("x")),
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E spec.template: field is immutable" } },
	{ API_KIND_WORKLOAD,
	  WL("", "3"),
	  WL("", "2"),
	  API_FV_STRICT,
	  0,
	  0,
	  { NULL } },
	{ API_KIND_WORKLOAD,
	  WL(ADMITTED, "3"),
	  WL(ADMITTED, "2"),
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E spec.podSets: field is immutable" } },
	{ API_KIND_PRIORITY_CLASS,
	  PC("10"),
	  PC("5"),
	  API_FV_STRICT,
	  -EINVAL,
	  0,
	  { "E value: may not be changed in an update" } },
};

static void check_case(size_t i, const struct validate_case *c)
{
	json_t *obj = json_loads(c->obj, JSON_DECODE_ANY, NULL);
	json_t *old = c->old ? json_loads(c->old, 0, NULL) : NULL;
	struct api_causes out = { 0 };
	struct strbuf got;
	size_t n = 0;
	int rc;

	if (!obj || (c->old && !old))
		fail_msg("case %zu: bad JSON", i);
	rc = api_validate(api_kind_at(c->kind), obj, old, c->fv, &out);
	strbuf_init(&got);
	for (size_t j = 0; j < out.n; j++)
		strbuf_addf(&got, "\n  %c %s: %s", out.v[j].warning ? 'W' : 'E',
			    out.v[j].field, out.v[j].message);
	while (n < ARRAY_SIZE(c->causes) && c->causes[n])
		n++;
	if (rc != c->rc || out.unknown != c->unknown || out.n != n)
		fail_msg("case %zu: rc %d, %zu unknown, causes:%s", i, rc,
			 out.unknown, got.buf);
	for (size_t j = 0; j < n; j++) {
		char line[1024];

		snprintf(line, sizeof(line), "%c %s: %s",
			 out.v[j].warning ? 'W' : 'E', out.v[j].field,
			 out.v[j].message);
		if (strncmp(line, c->causes[j], strlen(c->causes[j])) != 0)
			fail_msg("case %zu: cause %zu is \"%s\", want \"%s\"",
				 i, j, line, c->causes[j]);
	}
	strbuf_release(&got);
	api_causes_release(&out);
	json_decref(obj);
	json_decref(old);
}

static void test_validate(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(i, &cases[i]);
}

/* Each cause is a message of `echelon validate` on the same object, less
 * its file:line:col. */
static void test_same_messages(void **state)
{
	static const char text[] =
		JOB("\"parallelism\":-1,\"completions\":\"x\",\"bogus\":1,"
		    "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
		    "\"resources\":{\"requests\":{\"memory\":\"1Q\"}}}]}}");
	struct api_causes out = { 0 };
	struct cluster c;
	struct diag d;
	json_t *obj = json_loads(text, 0, NULL);

	(void)state;
	cluster_init(&c);
	diag_init(&d);
	assert_int_equal(
		manifest_load_buffer(&c, "job.json", text, strlen(text), &d),
		-EINVAL);
	assert_int_equal(api_validate(api_kind_at(API_KIND_JOB), obj, NULL,
				      API_FV_WARN, &out),
			 -EINVAL);
	assert_int_equal(out.n, d.msgs.len);
	assert_true(out.n >= 3);
	for (size_t i = 0; i < out.n; i++) {
		const char *want = d.msgs.items[i].text;
		char line[1024];

		if (out.v[i].field[0] && !strstr(out.v[i].message, "unknown"))
			snprintf(line, sizeof(line), "%s: %s", out.v[i].field,
				 out.v[i].message);
		else
			snprintf(line, sizeof(line), "%s", out.v[i].message);
		if (!strstr(want, line))
			fail_msg("cause \"%s\" is not \"%s\"", line, want);
		assert_int_equal(out.v[i].warning,
				 d.msgs.items[i].severity == DIAG_WARNING);
	}
	api_causes_release(&out);
	api_causes_release(&out); /* released twice: still empty */
	diag_release(&d);
	cluster_release(&c);
	json_decref(obj);
}

/* Causes accumulate over calls; errors count only errors. */
static void test_accumulate(void **state)
{
	struct api_causes out = { 0 };
	json_t *bad = json_loads(PC("\"x\""), 0, NULL);
	json_t *good = json_loads(PC("1"), 0, NULL);

	(void)state;
	assert_int_equal(api_validate(api_kind_at(API_KIND_PRIORITY_CLASS), bad,
				      NULL, API_FV_STRICT, &out),
			 -EINVAL);
	assert_int_equal(api_validate(api_kind_at(API_KIND_PRIORITY_CLASS),
				      good, NULL, API_FV_STRICT, &out),
			 0);
	assert_int_equal(out.errors, 1);
	assert_int_equal(out.n, 1);
	api_causes_release(&out);
	api_causes_release(NULL);
	json_decref(bad);
	json_decref(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_same_messages),
		cmocka_unit_test(test_accumulate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

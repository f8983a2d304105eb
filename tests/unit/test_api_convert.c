// SPDX-License-Identifier: Apache-2.0
/*
 * Conversions between served views: core v1 and events.k8s.io/v1 Events,
 * Kueue's v1beta1 and v1beta2, each way and round trip; the input is
 * never changed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/api_kind.h"
#include "base/compiler.h"

#include "base/banned.h"

struct conv_case {
	enum api_kind_id to;
	const char *version; /* NULL: preferred */
	const char *in, *want;
	bool round_trip; /* converting want back gives in */
};

#define CQ1                                                                    \
	"\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"ClusterQueue\""
#define CQ2                                                                    \
	"\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\""
#define LQ1 "\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"LocalQueue\""
#define LQ2 "\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\""
#define WL1 "\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"Workload\""
#define WL2 "\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\""
#define EVC "\"apiVersion\":\"v1\",\"kind\":\"Event\""
#define EV1 "\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\""
#define TA(x)                                                                  \
	"\"status\":{\"admission\":{\"clusterQueue\":\"cq\","                  \
	"\"podSetAssignments\":[{\"name\":\"main\",\"topologyAssignment\":{"   \
	"\"levels\":[\"rack\",\"host\"]," x "}}]}}"

static const struct conv_case cases[] = {
	/* Events: the same fields under other names. */
	{ API_KIND_EVENT_V1, NULL,
	  "{" EVC ",\"metadata\":{\"name\":\"e\"},\"involvedObject\":{\"kind\":"
	  "\"Pod\",\"name\":\"p\"},\"message\":\"m\",\"reportingComponent\":"
	  "\"echelon\",\"reportingInstance\":\"i\",\"source\":{\"component\":"
	  "\"echelon\"},\"firstTimestamp\":\"2026-12-01T13:00:00Z\","
	  "\"lastTimestamp\":\"2026-12-01T13:01:00Z\",\"count\":2,\"reason\":"
	  "\"Scheduled\",\"type\":\"Normal\",\"action\":\"Binding\","
	  "\"eventTime\":\"2026-12-01T13:00:00.000000Z\",\"related\":{\"kind\":"
	  "\"Node\"}}",
	  "{" EV1 ",\"metadata\":{\"name\":\"e\"},\"regarding\":{\"kind\":"
	  "\"Pod\",\"name\":\"p\"},\"note\":\"m\",\"reportingController\":"
	  "\"echelon\",\"reportingInstance\":\"i\",\"deprecatedSource\":{"
	  "\"component\":\"echelon\"},\"deprecatedFirstTimestamp\":"
	  "\"2026-12-01T13:00:00Z\",\"deprecatedLastTimestamp\":"
	  "\"2026-12-01T13:01:00Z\",\"deprecatedCount\":2,\"reason\":"
	  "\"Scheduled\",\"type\":\"Normal\",\"action\":\"Binding\","
	  "\"eventTime\":\"2026-12-01T13:00:00.000000Z\",\"related\":{\"kind\":"
	  "\"Node\"}}",
	  true },
	{ API_KIND_EVENT_V1, NULL,
	  "{" EVC ",\"series\":{\"count\":3,\"lastObservedTime\":\"t\","
	  "\"state\":\"Ongoing\"}}",
	  "{" EV1 ",\"series\":{\"count\":3,\"lastObservedTime\":\"t\"}}",
	  false },
	/* ClusterQueue: cohort, admission checks, fungibility. */
	{ API_KIND_CLUSTER_QUEUE, NULL,
	  "{" CQ1 ",\"spec\":{\"cohort\":\"all\",\"admissionChecks\":[\"a\","
	  "\"b\"],\"flavorFungibility\":{\"whenCanPreempt\":\"Preempt\","
	  "\"whenCanBorrow\":\"Borrow\"}}}",
	  "{" CQ2 ",\"spec\":{\"cohortName\":\"all\","
	  "\"admissionChecksStrategy\":{\"admissionChecks\":[{\"name\":\"a\"},"
	  "{\"name\":\"b\"}]},\"flavorFungibility\":{\"whenCanPreempt\":"
	  "\"MayStopSearch\",\"whenCanBorrow\":\"MayStopSearch\"}}}",
	  false },
	{ API_KIND_CLUSTER_QUEUE, "v1beta1",
	  "{" CQ2 ",\"spec\":{\"cohortName\":\"all\",\"queueingStrategy\":"
	  "\"BestEffortFIFO\"}}",
	  "{" CQ1 ",\"spec\":{\"cohort\":\"all\",\"queueingStrategy\":"
	  "\"BestEffortFIFO\"}}",
	  true },
	/* LocalQueue: flavorUsage was renamed. */
	{ API_KIND_LOCAL_QUEUE, "v1beta1",
	  "{" LQ2 ",\"status\":{\"flavorsUsage\":[{\"name\":\"f\"}],"
	  "\"flavorsReservation\":[]}}",
	  "{" LQ1 ",\"status\":{\"flavorUsage\":[{\"name\":\"f\"}],"
	  "\"flavorsReservation\":[]}}",
	  true },
	/* Workload: priority class reference, execution time. */
	{ API_KIND_WORKLOAD, NULL,
	  "{" WL1 ",\"spec\":{\"priorityClassName\":\"high\","
	  "\"priorityClassSource\":\"kueue.x-k8s.io/workloadpriorityclass\","
	  "\"priority\":10},\"status\":{"
	  "\"accumulatedPastExexcutionTimeSeconds\":30}}",
	  "{" WL2 ",\"spec\":{\"priorityClassRef\":{\"group\":"
	  "\"kueue.x-k8s.io\",\"kind\":\"WorkloadPriorityClass\",\"name\":"
	  "\"high\"},\"priority\":10},\"status\":{"
	  "\"accumulatedPastExecutionTimeSeconds\":30}}",
	  true },
	{ API_KIND_WORKLOAD, "v1beta1",
	  "{" WL2 ",\"spec\":{\"priorityClassRef\":{\"group\":"
	  "\"scheduling.k8s.io\",\"kind\":\"PriorityClass\",\"name\":\"pc\"}}}",
	  "{" WL1 ",\"spec\":{\"priorityClassName\":\"pc\","
	  "\"priorityClassSource\":\"scheduling.k8s.io/priorityclass\"}}",
	  true },
	/* A name without a source names a WorkloadPriorityClass. */
	{ API_KIND_WORKLOAD, NULL,
	  "{" WL1 ",\"spec\":{\"priorityClassName\":\"high\"}}",
	  "{" WL2 ",\"spec\":{\"priorityClassRef\":{\"group\":"
	  "\"kueue.x-k8s.io\",\"kind\":\"WorkloadPriorityClass\",\"name\":"
	  "\"high\"}}}",
	  false },
	/* Topology assignments: domains and slices, both ways. */
	{ API_KIND_WORKLOAD, NULL,
	  "{" WL1
	  "," TA("\"domains\":[{\"values\":[\"r1\",\"h1\"],\"count\":2},"
		 "{\"values\":[\"r1\",\"h2\"],\"count\":2}]") "}",
	  "{" WL2
	  "," TA("\"slices\":[{\"domainCount\":2,\"valuesPerLevel\":["
		 "{\"universal\":\"r1\"},{\"individual\":{\"roots\":[\"h1\","
		 "\"h2\"]}}],\"podCounts\":{\"universal\":2}}]") "}",
	  true },
	{ API_KIND_WORKLOAD, NULL,
	  "{" WL1
	  "," TA("\"domains\":[{\"values\":[\"r1\",\"h1\"],\"count\":1},"
		 "{\"values\":[\"r2\",\"h2\"],\"count\":3}]") "}",
	  "{" WL2
	  "," TA("\"slices\":[{\"domainCount\":2,\"valuesPerLevel\":["
		 "{\"individual\":{\"roots\":[\"r1\",\"r2\"]}},{\"individual\":"
		 "{\"roots\":[\"h1\",\"h2\"]}}],\"podCounts\":{\"individual\":"
		 "[1,3]}}]") "}",
	  true },
	{ API_KIND_WORKLOAD, "v1beta1",
	  "{" WL2
	  "," TA("\"slices\":[{\"domainCount\":2,\"valuesPerLevel\":["
		 "{\"universal\":\"r1\"},{\"individual\":{\"prefix\":\"gpu-\","
		 "\"suffix\":\"-x\",\"roots\":[\"1\",\"2\"]}}],\"podCounts\":{"
		 "\"universal\":4}},{\"domainCount\":1,\"valuesPerLevel\":["
		 "{\"universal\":\"r2\"},{\"universal\":\"h9\"}],\"podCounts\":"
		 "{\"individual\":[1]}}]") "}",
	  "{" WL1
	  "," TA("\"domains\":[{\"values\":[\"r1\",\"gpu-1-x\"],"
		 "\"count\":4},{\"values\":[\"r1\",\"gpu-2-x\"],\"count\":4},"
		 "{\"values\":[\"r2\",\"h9\"],\"count\":1}]") "}",
	  false },
	/* Malformed slices are left as they are. */
	{ API_KIND_WORKLOAD, "v1beta1",
	  "{" WL2
	  "," TA("\"slices\":[{\"domainCount\":2,\"valuesPerLevel\":["
		 "{\"universal\":\"r1\"},{\"individual\":{\"roots\":[\"1\"]}}],"
		 "\"podCounts\":{\"universal\":1}}]") "}",
	  "{" WL1
	  "," TA("\"slices\":[{\"domainCount\":2,\"valuesPerLevel\":["
		 "{\"universal\":\"r1\"},{\"individual\":{\"roots\":[\"1\"]}}],"
		 "\"podCounts\":{\"universal\":1}}]") "}",
	  false },
	/* The same version, or kinds without differences: relabelled. */
	{ API_KIND_TOPOLOGY, "v1beta1",
	  "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Topology\","
	  "\"spec\":{\"levels\":[{\"nodeLabel\":\"rack\"}]}}",
	  "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":\"Topology\","
	  "\"spec\":{\"levels\":[{\"nodeLabel\":\"rack\"}]}}",
	  true },
	{ API_KIND_POD, "v9", "{\"metadata\":{\"name\":\"p\"}}",
	  "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
	  "\"p\"}}",
	  false },
};

static void test_convert(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct conv_case *c = &cases[i];
		json_t *in = json_loads(c->in, 0, NULL);
		json_t *want = json_loads(c->want, 0, NULL);
		json_t *copy = json_deep_copy(in), *got, *back;

		if (!in || !want)
			fail_msg("case %zu: bad JSON", i);
		got = api_kind_convert(in, api_kind_at(c->to), c->version);
		if (!json_equal(got, want)) {
			char *s = json_dumps(got, JSON_COMPACT);

			fail_msg("case %zu: got %s", i, s);
		}
		assert_true(json_equal(in, copy));
		if (c->round_trip) {
			const char *av = json_string_value(
				json_object_get(in, "apiVersion"));
			const struct api_kind *from = api_kind_of(
				av,
				json_string_value(json_object_get(in, "kind")));

			back = api_kind_convert(
				got, from,
				strrchr(av, '/') ? strrchr(av, '/') + 1 : av);
			if (!json_equal(back, in)) {
				char *s = json_dumps(back, JSON_COMPACT);

				fail_msg("case %zu: back %s", i, s);
			}
			json_decref(back);
		}
		json_decref(got);
		json_decref(copy);
		json_decref(want);
		json_decref(in);
	}
	assert_null(api_kind_convert(NULL, api_kind_at(0), NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convert),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

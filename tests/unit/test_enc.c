// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the encoder: every fixture of the repository loads, encodes,
 * loads again from its own encoding (as JSON and as YAML) and encodes to
 * the same text; and a table of single objects pins the canonical form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "manifest/enc.h"
#include "manifest/manifest.h"
#include "testutil.h"

static char *encode(const struct cluster *c)
{
	json_t *all = enc_cluster(c);
	char *s = json_dumps(all, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(all);
	return s;
}

/* Load text under name into a fresh cluster and encode it again. */
static char *reencode(const char *name, const char *text)
{
	struct cluster c;
	struct strbuf sb;
	struct diag d;
	char *out;

	cluster_init(&c);
	diag_init(&d);
	if (manifest_load_buffer(&c, name, text, strlen(text), &d) < 0) {
		strbuf_init(&sb);
		diag_format(&d, &sb);
		fail_msg("%s does not load:\n%s", name, sb.buf);
	}
	cluster_compute_usage(&c, NULL);
	out = encode(&c);
	diag_release(&d);
	cluster_release(&c);
	return out;
}

static const char *const fixtures[] = {
	"examples/quickstart",
	"tests/data/place/cluster.yaml",
	"tests/data/place/admitted.yaml",
	"tests/data/place/group.yaml",
	"tests/data/place/jobs.yaml",
	"tests/data/place/overlap.yaml",
	"tests/data/place/preferred.yaml",
	"tests/data/place/racks.yaml",
	"tests/data/place/reference-balanced.yaml",
	"tests/data/place/reference-workloads.yaml",
	"tests/data/manifest/usage",
};

static void round_trip(const char *path)
{
	const char *paths[] = { path };
	struct cluster c;
	struct diag d;
	char *first, *second;

	cluster_init(&c);
	diag_init(&d);
	if (manifest_load_paths(&c, paths, 1, &d) < 0)
		fail_msg("%s does not load", path);
	first = encode(&c);
	assert_true(strlen(first) > 100);
	second = reencode("again.json", first);
	if (strcmp(first, second) != 0)
		fail_msg("%s: the encoding changes on a second round:"
			 "\n--- first\n%s\n--- second\n%s",
			 path, first, second);
	free(second);
	free(first);
	diag_release(&d);
	cluster_release(&c);
}

static void test_round_trip(void **state)
{
	char *pattern = testutil_path("tests/scenarios/plan/*/input.yaml");
	glob_t g;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		char *path = testutil_path(fixtures[i]);

		round_trip(path);
		free(path);
	}
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 10);
	for (size_t i = 0; i < g.gl_pathc; i++)
		round_trip(g.gl_pathv[i]);
	globfree(&g);
	free(pattern);
}

static const struct {
	const char *in;
	const char *want; /* a substring of the JSON encoding */
} cases[] = {
	/* quantities come out canonical */
	{ "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
	  "status: {allocatable: {cpu: 1500m, memory: 2048Mi, pods: 110}}\n",
	  "\"allocatable\":{\"cpu\":\"1500m\",\"memory\":\"2Gi\","
	  "\"pods\":\"110\"}" },
	/* a Job is the Workload made from it */
	{ "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n"
	  "  labels: {kueue.x-k8s.io/queue-name: q}\n"
	  "spec:\n  parallelism: 3\n  template:\n    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: rack\n"
	  "    spec: {containers: [{resources: {requests: {cpu: 2}}}]}\n",
	  "\"kind\":\"Workload\",\"metadata\":{\"name\":\"job-j\","
	  "\"namespace\":\"default\"},\"spec\":{\"queueName\":\"q\","
	  "\"podSets\":[{\"name\":\"main\",\"count\":3," },
	{ "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n"
	  "spec:\n  parallelism: 3\n  template:\n    metadata:\n"
	  "      annotations:\n"
	  "        kueue.x-k8s.io/podset-required-topology: rack\n"
	  "    spec: {containers: [{resources: {requests: {cpu: 2}}}]}\n",
	  "\"topologyRequest\":{\"required\":\"rack\"}" },
	/* a PriorityClass, and the pods' priority on the first template */
	{ "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
	  "metadata: {name: high}\nvalue: 1000\nglobalDefault: true\n",
	  "\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"high\"},"
	  "\"value\":1000,\"globalDefault\":true}" },
	{ "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n"
	  "spec: {template: {spec: {priorityClassName: high, priority: 5, "
	  "containers: [{}]}}}\n",
	  "\"template\":{\"spec\":{\"containers\":[{\"name\":\"main\"}],"
	  "\"priorityClassName\":\"high\",\"priority\":5}}" },
	/* a Namespace keeps its labels; spec and status are not read */
	{ "apiVersion: v1\nkind: Namespace\n"
	  "metadata: {name: team, labels: {tier: gold}}\n"
	  "status: {phase: Active}\n",
	  "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":"
	  "{\"name\":\"team\",\"labels\":{\"tier\":\"gold\"}}}" },
	/* a LocalQueue's stop policy */
	{ "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
	  "metadata: {name: q, namespace: a}\n"
	  "spec: {clusterQueue: cq, stopPolicy: HoldAndDrain}\n",
	  "\"spec\":{\"clusterQueue\":\"cq\",\"stopPolicy\":"
	  "\"HoldAndDrain\"}" },
	/* no namespaceSelector means every namespace: {} for Kueue */
	{ "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
	  "metadata: {name: cq}\nspec: {}\n",
	  "\"spec\":{\"namespaceSelector\":{}}" },
	{ "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\n"
	  "metadata: {name: cq}\n"
	  "spec: {namespaceSelector: {matchLabels: {tier: gold}}}\n",
	  "\"namespaceSelector\":{\"matchExpressions\":[{\"key\":\"tier\","
	  "\"operator\":\"In\",\"values\":[\"gold\"]}]}" },
	/* durations in Go's form */
	{ "apiVersion: echelon.dev/v1alpha1\nkind: Configuration\n"
	  "waitForPodsReady: {timeout: 90m, recoveryTimeout: 90s}\n",
	  "\"timeout\":\"1h30m0s\",\"recoveryTimeout\":\"1m30s\"" },
	/* defaults are left out: no spec for a bare ResourceFlavor */
	{ "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\n"
	  "metadata: {name: f}\n",
	  "\"kind\":\"ResourceFlavor\",\"metadata\":{\"name\":\"f\"}}" },
};

static void test_canonical(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *out = reencode("t.yaml", cases[i].in);

		if (!strstr(out, cases[i].want))
			fail_msg("case %zu: want\n%s\nin\n%s", i, cases[i].want,
				 out);
		free(out);
	}
}

/* v1beta2 slices: one compact slice as Kueue's encoding makes it. */
static const struct {
	const char *levels[2];
	size_t nlevels;
	const char *values[4][2];
	int32_t counts[4];
	size_t n;
	const char *want;
} slice_cases[] = {
	/* one host: universal value and count */
	{ { "kubernetes.io/hostname" },
	  1,
	  { { "n1" } },
	  { 2 },
	  1,
	  "{\"levels\":[\"kubernetes.io/hostname\"],\"slices\":[{"
	  "\"domainCount\":1,\"valuesPerLevel\":[{\"universal\":\"n1\"}],"
	  "\"podCounts\":{\"universal\":2}}]}" },
	/* common prefix and suffix, different counts */
	{ { "rack", "kubernetes.io/hostname" },
	  2,
	  { { "r1", "node-1.x" }, { "r1", "node-22.x" }, { "r1", "node-3.x" } },
	  { 1, 2, 1 },
	  3,
	  "{\"levels\":[\"rack\",\"kubernetes.io/hostname\"],\"slices\":[{"
	  "\"domainCount\":3,\"valuesPerLevel\":[{\"universal\":\"r1\"},"
	  "{\"individual\":{\"prefix\":\"node-\",\"suffix\":\".x\","
	  "\"roots\":[\"1\",\"22\",\"3\"]}}],\"podCounts\":{\"individual\":"
	  "[1,2,1]}}]}" },
	/* prefix and suffix that would overlap ("aba", "ababa"): the prefix
	 * gives way, as in Kueue */
	{ { "h" },
	  1,
	  { { "aba" }, { "ababa" } },
	  { 1, 1 },
	  2,
	  "{\"levels\":[\"h\"],\"slices\":[{\"domainCount\":2,"
	  "\"valuesPerLevel\":[{\"individual\":{\"suffix\":\"aba\","
	  "\"roots\":[\"\",\"ab\"]}}],\"podCounts\":{\"universal\":1}}]}" },
	/* no common part */
	{ { "h" },
	  1,
	  { { "a" }, { "b" } },
	  { 3, 3 },
	  2,
	  "{\"levels\":[\"h\"],\"slices\":[{\"domainCount\":2,"
	  "\"valuesPerLevel\":[{\"individual\":{\"roots\":[\"a\",\"b\"]}}],"
	  "\"podCounts\":{\"universal\":3}}]}" },
};

/* The decoder reads the compact form back into the same domains (a
 * Workload's status written by `echelon serve`, read at its restart). */
static void decode_slices(size_t i, const struct topology_assignment *ta)
{
	const struct topology_assignment *got;
	struct cluster c;
	struct diag d;
	char *text;

	text = xasprintf(
		"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
		"\"Workload\",\"metadata\":{\"name\":\"w\"},\"spec\":{"
		"\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":"
		"{\"spec\":{\"containers\":[]}}}]},\"status\":{\"admission\":"
		"{\"clusterQueue\":\"q\",\"podSetAssignments\":[{\"name\":"
		"\"main\",\"count\":1,\"topologyAssignment\":%s}]}}}",
		slice_cases[i].want);
	cluster_init(&c);
	diag_init(&d);
	if (manifest_load_buffer(&c, "w.json", text, strlen(text), &d) < 0) {
		struct strbuf sb;

		strbuf_init(&sb);
		diag_format(&d, &sb);
		fail_msg("case %zu: %s", i, sb.buf);
	}
	got = c.workloads.items[0].admission->podsets[0].topology;
	assert_int_equal(got->nlevels, ta->nlevels);
	assert_int_equal(got->ndomains, ta->ndomains);
	for (size_t n = 0; n < ta->ndomains; n++) {
		assert_int_equal(got->domains[n].count, ta->domains[n].count);
		for (size_t l = 0; l < ta->nlevels; l++)
			assert_string_equal(got->domains[n].values[l],
					    ta->domains[n].values[l]);
	}
	diag_release(&d);
	cluster_release(&c);
	free(text);
}

static void test_slices(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(slice_cases); i++) {
		struct topology_domain doms[4];
		struct topology_assignment ta = {
			.levels = (const char **)slice_cases[i].levels,
			.nlevels = slice_cases[i].nlevels,
			.domains = doms,
			.ndomains = slice_cases[i].n,
		};
		json_t *j;
		char *out;

		memset(doms, 0, sizeof(doms));
		for (size_t d = 0; d < slice_cases[i].n; d++) {
			doms[d].values =
				(const char **)slice_cases[i].values[d];
			doms[d].count = slice_cases[i].counts[d];
		}
		j = enc_topology_assignment_slices(&ta);
		out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (strcmp(out, slice_cases[i].want) != 0)
			fail_msg("case %zu: want\n%s\ngot\n%s", i,
				 slice_cases[i].want, out);
		free(out);
		json_decref(j);
		decode_slices(i, &ta);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_slices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

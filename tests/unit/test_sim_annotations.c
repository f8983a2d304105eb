// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the simulation annotations of Workloads and Jobs
 * (sim.echelon.dev/submit, /duration, /class): the values they give, the
 * exact messages for bad values and unknown keys, that other kinds ignore
 * them, and that `validate -o yaml|json` writes them back so that they
 * survive a second load.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "manifest/enc.h"
#include "manifest/manifest.h"
#include "model/ann.h"
#include "testutil.h"

#include "base/banned.h"

#define WORKLOAD                                                               \
	"apiVersion: kueue.x-k8s.io/v1beta2\n"                                 \
	"kind: Workload\n"                                                     \
	"metadata:\n"                                                          \
	"  name: w\n"
#define WORKLOAD_SPEC                                                          \
	"spec: {podSets: [{template: {spec: {containers: [{}]}}}]}\n"
#define JOB                                                                    \
	"apiVersion: batch/v1\n"                                               \
	"kind: Job\n"                                                          \
	"metadata:\n"                                                          \
	"  name: j\n"
#define JOB_SPEC "spec: {template: {spec: {containers: [{}]}}}\n"

/* Load text as t.yaml; the diagnostics, formatted (caller frees). */
/* The simulation inputs among w's annotations (model/ann.h). */
static struct ann_sim sim_of(const struct workload *w)
{
	struct ann_sim sim;
	const char *key;
	struct errbuf eb;

	assert_int_equal(ann_sim_read(&w->annotations, &sim, &key, &eb), 0);
	return sim;
}

static char *load(struct cluster *c, const char *text, int *ret_rc)
{
	struct strbuf sb;
	struct diag d;
	char *ret;

	cluster_init(c);
	diag_init(&d);
	*ret_rc = manifest_load_buffer(c, "t.yaml", text, strlen(text), &d);
	strbuf_init(&sb);
	diag_format(&d, &sb);
	diag_release(&d);
	ret = strbuf_take(&sb);
	strbuf_release(&sb);
	return ret;
}

static const struct {
	const char *text;
	const char *name; /* the workload */
	int64_t submit_us, duration_us;
	const char *klass;
	const char *warnings;
} good_cases[] = {
	/* none: -1, -1, NULL */
	{ WORKLOAD WORKLOAD_SPEC, "w", -1, -1, NULL, "" },
	{ JOB JOB_SPEC, "job-j", -1, -1, NULL, "" },
	/* seconds, with a fraction */
	{ WORKLOAD "  annotations:\n"
		   "    sim.echelon.dev/submit: \"3600\"\n"
		   "    sim.echelon.dev/duration: \"1.5\"\n"
		   "    sim.echelon.dev/class: large\n" WORKLOAD_SPEC,
	  "w", 3600000000LL, 1500000, "large", "" },
	/* Go durations, on a Job */
	{ JOB "  annotations:\n"
	      "    sim.echelon.dev/submit: 90s\n"
	      "    sim.echelon.dev/duration: 1h30m\n"
	      "    sim.echelon.dev/class: Small_1.x-y\n" JOB_SPEC,
	  "job-j", 90000000, 5400000000LL, "Small_1.x-y", "" },
	{ JOB "  annotations: {sim.echelon.dev/duration: 1.5h}\n" JOB_SPEC,
	  "job-j", -1, 5400000000LL, NULL, "" },
	{ WORKLOAD "  annotations: {sim.echelon.dev/duration: 500ms, "
		   "sim.echelon.dev/submit: 0s}\n" WORKLOAD_SPEC,
	  "w", 0, 500000, NULL, "" },
	/* submit may be 0; a Job's pod template annotations do not count */
	{ JOB "  annotations: {sim.echelon.dev/submit: \"0\"}\n"
	      "spec:\n"
	      "  template:\n"
	      "    metadata: {annotations: {sim.echelon.dev/duration: 1h}}\n"
	      "    spec: {containers: [{}]}\n",
	  "job-j", 0, -1, NULL, "" },
	/* other keys under the prefix are warnings */
	{ WORKLOAD "  annotations:\n"
		   "    sim.echelon.dev/duraton: 1h\n"
		   "    sim.echelon.dev/duration: 2h\n"
		   "    other.dev/submit: x\n" WORKLOAD_SPEC,
	  "w", -1, 7200000000LL, NULL,
	  "t.yaml:6:5: warning: metadata.annotations: unknown annotation "
	  "\"sim.echelon.dev/duraton\" is ignored\n" },
};

static void test_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good_cases); i++) {
		const struct workload *w;
		struct cluster c;
		char *got;
		int rc;

		got = load(&c, good_cases[i].text, &rc);
		if (rc != 0 || strcmp(got, good_cases[i].warnings) != 0)
			fail_msg("case %zu: rc %d:\n%s", i, rc, got);
		w = cluster_find(&c, KIND_WORKLOAD, "default",
				 good_cases[i].name);
		assert_non_null(w);
		assert_int_equal(sim_of(w).submit_us, good_cases[i].submit_us);
		assert_int_equal(sim_of(w).duration_us,
				 good_cases[i].duration_us);
		if (good_cases[i].klass)
			assert_string_equal(sim_of(w).klass,
					    good_cases[i].klass);
		else
			assert_null(sim_of(w).klass);
		free(got);
		cluster_release(&c);
	}
}

/*
 * One grammar: a Go duration means the same in an annotation and in a
 * Configuration field (a Configuration once refused "1500ns").
 */
static void test_one_grammar(void **state)
{
	static const struct {
		const char *in;
		int64_t us;
	} cases[] = {
		{ "1500ns", 2 },	   { "1.5us", 2 },
		{ "1\xc2\xb5s", 1 },	   { ".5s", 500000 },
		{ "1h30m", 5400000000LL }, { "2h0m0.000001s", 7200000001LL },
	};
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct workload *w;
		struct cluster c;
		char *got;
		int rc;

		strbuf_reset(&sb);
		strbuf_addf(&sb,
			    WORKLOAD
			    "  annotations: {sim.echelon.dev/duration: "
			    "\"%s\"}\n" WORKLOAD_SPEC
			    "---\napiVersion: echelon.dev/v1alpha1\n"
			    "kind: Configuration\n"
			    "waitForPodsReady: {timeout: \"%s\"}\n",
			    cases[i].in, cases[i].in);
		got = load(&c, sb.buf, &rc);
		if (rc != 0 || got[0])
			fail_msg("\"%s\": rc %d:\n%s", cases[i].in, rc, got);
		w = cluster_find(&c, KIND_WORKLOAD, "default", "w");
		assert_non_null(w);
		assert_int_equal(sim_of(w).duration_us, cases[i].us);
		assert_int_equal(
			cluster_config(&c)->wait_for_pods_ready.timeout_us,
			cases[i].us);
		free(got);
		cluster_release(&c);
	}
	strbuf_release(&sb);
}

static const struct {
	const char *text;
	const char *want; /* diag_format() */
} bad_cases[] = {
	{ WORKLOAD
	  "  annotations: {sim.echelon.dev/duration: 5x}\n" WORKLOAD_SPEC,
	  "t.yaml:5:43: metadata.annotations[\"sim.echelon.dev/duration\"]: "
	  "must be a number of seconds or a duration such as \"90s\", \"45m\" "
	  "or \"1h30m\", not \"5x\": unknown unit \"x\" at character 2 "
	  "(expected ns, us, ms, s, m or h)\n" },
	{ WORKLOAD
	  "  annotations: {sim.echelon.dev/duration: \"0\"}\n" WORKLOAD_SPEC,
	  "t.yaml:5:44: metadata.annotations[\"sim.echelon.dev/duration\"]: "
	  "must be positive, not \"0\"\n" },
	{ JOB
	  "  annotations: {sim.echelon.dev/duration: 0.0000004s}\n" JOB_SPEC,
	  "t.yaml:5:43: metadata.annotations[\"sim.echelon.dev/duration\"]: "
	  "must be positive, not \"0.0000004s\"\n" },
	{ JOB "  annotations:\n"
	      "    sim.echelon.dev/submit: -5m\n"
	      "    sim.echelon.dev/duration: 2777778h\n"
	      "    sim.echelon.dev/class: a b\n" JOB_SPEC,
	  "t.yaml:6:29: metadata.annotations[\"sim.echelon.dev/submit\"]: "
	  "must not be negative\n"
	  "t.yaml:7:31: metadata.annotations[\"sim.echelon.dev/duration\"]: "
	  "must be at most 10000000000 seconds\n"
	  "t.yaml:8:28: metadata.annotations[\"sim.echelon.dev/class\"]: must "
	  "be a string of 1 to 63 letters, digits, '.', '_' and '-', not "
	  "\"a b\"\n" },
	{ WORKLOAD "  annotations: {sim.echelon.dev/parallelism: "
		   "expert}\n" WORKLOAD_SPEC,
	  "t.yaml:5:46: metadata.annotations[\"sim.echelon.dev/parallelism\"]: "
	  "must be data, tensor or pipeline, not \"expert\"\n" },
	{ WORKLOAD
	  "  annotations: {sim.echelon.dev/class: \"\"}\n" WORKLOAD_SPEC,
	  "t.yaml:5:41: metadata.annotations[\"sim.echelon.dev/class\"]: must "
	  "be a string of 1 to 63 letters, digits, '.', '_' and '-', not "
	  "\"\"\n" },
	/* annotation values are strings: an unquoted number is refused */
	{ WORKLOAD
	  "  annotations: {sim.echelon.dev/submit: 3600}\n" WORKLOAD_SPEC,
	  "t.yaml:5:41: metadata.annotations[\"sim.echelon.dev/submit\"]: "
	  "must be a string, not 3600 (quote it)\n" },
	/* every problem of the object is reported */
	{ WORKLOAD "  annotations: {sim.echelon.dev/duration: -1h}\n"
		   "spec: {podSets: [{count: -1, template: {spec: {containers: "
		   "[{}]}}}]}\n",
	  "t.yaml:5:43: metadata.annotations[\"sim.echelon.dev/duration\"]: "
	  "must not be negative\n"
	  "t.yaml:6:26: spec.podSets[0].count: must be between 0 and 1000000, "
	  "not -1\n" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		struct cluster c;
		char *got;
		int rc;

		got = load(&c, bad_cases[i].text, &rc);
		if (strcmp(got, bad_cases[i].want) != 0)
			fail_msg("case %zu:\ngot:  %swant: %s", i, got,
				 bad_cases[i].want);
		assert_int_equal(rc, -EINVAL);
		assert_int_equal(cluster_count(&c, KIND_WORKLOAD), 0);
		free(got);
		cluster_release(&c);
	}
}

/* Kinds other than Workload and Job do not read them. */
static void test_other_kinds(void **state)
{
	static const char text[] =
		"apiVersion: scheduling.x-k8s.io/v1alpha1\n"
		"kind: PodGroup\n"
		"metadata:\n"
		"  name: pg\n"
		"  annotations: {sim.echelon.dev/duration: bad, "
		"sim.echelon.dev/x: y}\n"
		"spec: {minMember: 2}\n";
	struct cluster c;
	char *got;
	int rc;

	(void)state;
	got = load(&c, text, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(got, "");
	assert_int_equal(cluster_count(&c, KIND_POD_GROUP), 1);
	free(got);
	cluster_release(&c);
}

static char *encode(const struct cluster *c)
{
	json_t *all = enc_cluster(c);
	char *s = json_dumps(all, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(all);
	return s;
}

/* The encoder writes them back as annotations; a second load gives the
 * same values and the same encoding. */
static void test_round_trip(void **state)
{
	static const char text[] =
		JOB "  annotations:\n"
		    "    sim.echelon.dev/submit: \"12.5\"\n"
		    "    sim.echelon.dev/duration: 1.0000015s\n"
		    "    sim.echelon.dev/class: medium\n"
		    "    sim.echelon.dev/parallelism: tensor\n" JOB_SPEC "---\n"
		    "apiVersion: kueue.x-k8s.io/v1beta2\n"
		    "kind: Workload\n"
		    "metadata:\n"
		    "  name: w2\n"
		    "  annotations: {sim.echelon.dev/duration: "
		    "1.5h}\n" WORKLOAD_SPEC "---\n"
		    "apiVersion: kueue.x-k8s.io/v1beta2\n"
		    "kind: Workload\n"
		    "metadata: {name: w3}\n" WORKLOAD_SPEC;
	static const char *const names[] = { "job-j", "w2", "w3" };
	struct cluster c, c2;
	char *first, *second, *got;
	int rc;

	(void)state;
	got = load(&c, text, &rc);
	assert_int_equal(rc, 0);
	free(got);
	first = encode(&c);
	assert_non_null(strstr(first, "\"annotations\":{"
				      "\"sim.echelon.dev/submit\":\"12500ms\","
				      "\"sim.echelon.dev/duration\":"
				      "\"1000002us\","
				      "\"sim.echelon.dev/class\":\"medium\","
				      "\"sim.echelon.dev/parallelism\":"
				      "\"tensor\"}"));
	assert_non_null(strstr(first, "\"name\":\"w2\",\"namespace\":"
				      "\"default\",\"annotations\":{"
				      "\"sim.echelon.dev/duration\":"
				      "\"1h30m0s\"}}"));
	assert_non_null(strstr(first, "\"name\":\"w3\",\"namespace\":"
				      "\"default\"},"));
	got = load(&c2, first, &rc);
	assert_int_equal(rc, 0);
	free(got);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct workload *a, *b;

		a = cluster_find(&c, KIND_WORKLOAD, "default", names[i]);
		b = cluster_find(&c2, KIND_WORKLOAD, "default", names[i]);
		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(sim_of(a).submit_us, sim_of(b).submit_us);
		assert_int_equal(sim_of(a).duration_us, sim_of(b).duration_us);
		if (sim_of(a).klass)
			assert_string_equal(sim_of(a).klass, sim_of(b).klass);
		else
			assert_null(sim_of(b).klass);
	}
	second = encode(&c2);
	assert_string_equal(first, second);
	free(first);
	free(second);
	cluster_release(&c);
	cluster_release(&c2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_one_grammar),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_other_kinds),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

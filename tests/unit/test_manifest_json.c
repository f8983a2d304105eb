// SPDX-License-Identifier: Apache-2.0
/*
 * manifest_load_json() against manifest_load_buffer(): an object already
 * parsed decodes as its printed text does. Every object of the plan
 * scenarios and the examples, encoded (enc_object), is loaded both ways
 * into fresh clusters whose encodings must be equal; invalid objects give
 * the same messages but for the position (the tree of a parsed object
 * has none). manifest_pod_requests() reads a pod spec's requests as the
 * whole pod's decoding does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "manifest/enc.h"
#include "manifest/manifest.h"
#include "testutil.h"

#include "base/banned.h"

/* The messages of d without their positions, one a line. */
static char *texts(const struct diag *d)
{
	struct strbuf sb;
	char *s;

	strbuf_init(&sb);
	vec_foreach (&d->msgs, m)
		strbuf_addf(&sb, "%d %s\n", (int)m->severity, m->text);
	s = strbuf_take(&sb);
	strbuf_release(&sb); /* take leaves it with a buffer */
	return s;
}

static char *encoded(const struct cluster *c)
{
	json_t *j = enc_cluster(c);
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

	json_decref(j);
	return s;
}

/* Load obj both ways; both must agree on the result and the messages.
 * Returns the rc. */
static int both_ways(const json_t *obj)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	struct cluster a, b;
	struct diag da, db;
	char *ta, *tb, *ea, *eb;
	int ra, rb;

	cluster_init(&a);
	cluster_init(&b);
	diag_init(&da);
	diag_init(&db);
	ra = manifest_load_buffer(&a, "object.json", text, strlen(text), &da);
	rb = manifest_load_json(&b, "object", obj, &db);
	ta = texts(&da);
	tb = texts(&db);
	ea = encoded(&a);
	eb = encoded(&b);
	if (ra != rb || strcmp(ta, tb) || strcmp(ea, eb))
		print_error(
			"object %s\n--- text: %d\n%s%s\n--- json: %d\n%s%s\n",
			text, ra, ta, ea, rb, tb, eb);
	assert_int_equal(ra, rb);
	assert_string_equal(ta, tb);
	assert_string_equal(ea, eb);
	vec_foreach (&db.msgs, m)
		assert_int_equal(m->line, 0);
	free(ea);
	free(eb);
	free(ta);
	free(tb);
	diag_release(&da);
	diag_release(&db);
	cluster_release(&a);
	cluster_release(&b);
	free(text);
	return ra;
}

static size_t each_object(const char *path)
{
	const char *paths[] = { path };
	struct cluster c;
	struct diag d;
	size_t n = 0;

	cluster_init(&c);
	diag_init(&d);
	assert_int_equal(manifest_load_paths(&c, paths, 1, &d), 0);
	for (int k = 0; k < KIND_COUNT; k++) {
		for (size_t i = 0; i < cluster_count(&c, (enum kind)k); i++) {
			json_t *o = enc_object(&c, (enum kind)k, i);

			if (!o)
				continue;
			assert_int_equal(both_ways(o), 0);
			json_decref(o);
			n++;
		}
	}
	diag_release(&d);
	cluster_release(&c);
	return n;
}

static void test_same_objects(void **state)
{
	static const char *const dirs[] = { "examples/quickstart",
					    "examples/serve" };
	char *pattern = testutil_path("tests/scenarios/plan/*/input.yaml");
	size_t n = 0;
	glob_t g;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *path = testutil_path(dirs[i]);

		n += each_object(path);
		free(path);
	}
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++)
		n += each_object(g.gl_pathv[i]);
	globfree(&g);
	free(pattern);
	print_message("%zu objects\n", n);
	assert_true(n > 300);
}

/* Objects the decoders refuse or warn about, as JSON. */
static const char *const bad[] = {
	"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	"\"n\"},\"status\":{\"allocatable\":{\"cpu\":\"lots\"}}}",
	"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":7}}",
	"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	"\"n\",\"labels\":{\"a\":true}},\"spec\":{\"unschedulable\":\"yes\"}}",
	"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
	"\"n\"},\"status\":{\"allocatable\":{\"cpu\":1.5,\"pods\":null}}}",
	"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":"
	"\"j\"},\"spec\":{\"parallelism\":-1,\"template\":{\"spec\":"
	"{\"containers\":[]}}}}",
	"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":"
	"\"j\"},\"spec\":{\"parallelism\":1e30}}",
	"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\","
	"\"metadata\":{\"name\":\"q\"},\"spec\":{\"resourceGroups\":[{"
	"\"coveredResources\":[\"cpu\"],\"flavors\":[{\"name\":\"f\","
	"\"resources\":[{\"name\":\"gpu\",\"nominalQuota\":\"x\"}]}]}],"
	"\"surprise\":[1,2.5,false,null,{}]}}",
	"{\"kind\":\"Mystery\"}",
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
	"\"p\\u0000q\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
};

static void test_same_messages(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		json_error_t err;
		json_t *o = json_loads(bad[i], JSON_ALLOW_NUL, &err);

		if (!o)
			print_error("case %zu: %s\n", i, err.text);
		assert_non_null(o);
		(void)both_ways(o);
		json_decref(o);
	}
}

/* Pod specs whose requests manifest_pod_requests() reads as the whole
 * pod's decoding counts them: limits for absent requests, init
 * containers (the largest when it exceeds the sum), sidecars, overhead,
 * extended resources, and fields it does not read. */
static const char *const specs[] = {
	"{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
	"{\"cpu\":\"500m\",\"memory\":\"1Gi\"}}},{\"name\":\"b\",\"resources\":"
	"{\"limits\":{\"cpu\":\"1500m\",\"memory\":\"512Mi\"}}}]}",
	"{\"nodeName\":\"n1\",\"tolerations\":[{\"operator\":\"Exists\"}],"
	"\"initContainers\":[{\"name\":\"i1\",\"resources\":{\"requests\":"
	"{\"cpu\":\"3\"}}},{\"name\":\"i2\",\"resources\":{\"requests\":"
	"{\"memory\":\"2Gi\"}}}],\"containers\":[{\"name\":\"a\",\"image\":"
	"\"x\",\"env\":[{\"name\":\"E\",\"value\":\"v\"}],\"resources\":"
	"{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}",
	"{\"overhead\":{\"cpu\":\"100m\",\"memory\":\"10Mi\"},"
	"\"initContainers\":[{\"name\":\"early\",\"resources\":{\"requests\":"
	"{\"cpu\":\"1\"}}},{\"name\":\"proxy\",\"restartPolicy\":\"Always\","
	"\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"64Mi\"}}},"
	"{\"name\":\"late\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}}],"
	"\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
	"{\"cpu\":\"1\"}}}]}",
	("{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
	 "{\"nvidia.com/gpu\":\"8\",\"example.com/nic\":\"2\"}}}]}"),
	"{\"containers\":[{\"name\":\"a\"}]}",
};

static void test_pod_requests(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		json_t *spec = json_loads(specs[i], 0, NULL);
		json_t *pod =
			json_pack("{s:s,s:s,s:{s:s,s:s},s:O}", "apiVersion",
				  "v1", "kind", "Pod", "metadata", "name", "p",
				  "namespace", "default", "spec", spec);
		struct cluster whole, part;
		struct resvec r;
		struct diag d;

		assert_non_null(spec);
		cluster_init(&whole);
		cluster_init(&part);
		diag_init(&d);
		assert_int_equal(manifest_load_json(&whole, "p", pod, &d), 0);
		assert_int_equal(manifest_pod_requests(&part, spec, &r), 0);
		/* the same names in the same order: the same vectors */
		assert_int_equal(part.resources->count, whole.resources->count);
		assert_memory_equal(&r, &whole.pods.items[0].requests,
				    sizeof(r));
		diag_release(&d);
		cluster_release(&whole);
		cluster_release(&part);
		json_decref(pod);
		json_decref(spec);
	}
}

/* A spec it cannot read: refused, and the names it met forgotten. */
static void test_pod_requests_bad(void **state)
{
	static const char *const bad_specs[] = {
		("{\"containers\":[{\"name\":\"a\",\"resources\":{"
		 "\"requests\":{\"example.com/"
		 "new\":\"1\",\"cpu\":\"lots\"}}}]}"),
		"{\"initContainers\":[{\"name\":\"a\"}]}",
		"{\"containers\":{\"name\":\"a\"}}",
	};
	struct cluster c;

	(void)state;
	cluster_init(&c);
	for (size_t i = 0; i < ARRAY_SIZE(bad_specs); i++) {
		json_t *spec = json_loads(bad_specs[i], 0, NULL);
		int before = c.resources->count;
		struct resvec r;

		assert_non_null(spec);
		resvec_zero(&r);
		assert_int_equal(manifest_pod_requests(&c, spec, &r), -EINVAL);
		assert_true(resvec_is_zero(&r));
		assert_int_equal(c.resources->count, before);
		json_decref(spec);
	}
	cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_objects),
		cmocka_unit_test(test_same_messages),
		cmocka_unit_test(test_pod_requests),
		cmocka_unit_test(test_pod_requests_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Patches: the examples of RFC 7386 and RFC 6902 (appendices A), the
 * strategic merge rules of the lists kubectl and schedulers touch, apply
 * patches, Content-Type parsing, and that the target never changes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api_patch.h"

#include "base/banned.h"

struct patch_case {
	enum api_patch_type type;
	const char *target, *patch;
	const char *want; /* JSON, or NULL for an error */
	const char *msg;  /* part of the error message */
};

#define MERGE(t, p, w)                                                         \
	{                                                                      \
		API_PATCH_MERGE, t, p, w, NULL                                 \
	}
#define JSONP(t, p, w)                                                         \
	{                                                                      \
		API_PATCH_JSON, t, p, w, NULL                                  \
	}
#define JSONP_ERR(t, p, m)                                                     \
	{                                                                      \
		API_PATCH_JSON, t, p, NULL, m                                  \
	}
#define SMP(t, p, w)                                                           \
	{                                                                      \
		API_PATCH_STRATEGIC, t, p, w, NULL                             \
	}
#define SMP_ERR(t, p, m)                                                       \
	{                                                                      \
		API_PATCH_STRATEGIC, t, p, NULL, m                             \
	}

static const struct patch_case cases[] = {
	/* RFC 7386, Appendix A. */
	MERGE("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"),
	MERGE("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"),
	MERGE("{\"a\":\"b\"}", "{\"a\":null}", "{}"),
	MERGE("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"),
	MERGE("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"),
	MERGE("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"),
	MERGE("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}",
	      "{\"a\":{\"b\":\"d\"}}"),
	MERGE("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"),
	MERGE("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"),
	MERGE("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"),
	MERGE("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"),
	/* The RFC's non-object results are not objects the API can store. */
	{ API_PATCH_MERGE, "[\"a\",\"b\"]", "[\"c\",\"d\"]", NULL,
	  "not a JSON object" },
	{ API_PATCH_MERGE, "{\"a\":\"b\"}", "[\"c\"]", NULL,
	  "not a JSON object" },
	{ API_PATCH_MERGE, "{\"a\":\"foo\"}", "null", NULL,
	  "not a JSON object" },
	{ API_PATCH_MERGE, "{\"a\":\"foo\"}", "\"bar\"", NULL,
	  "not a JSON object" },

	/* RFC 6902, Appendix A. */
	JSONP("{\"foo\":\"bar\"}",
	      "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
	      "{\"baz\":\"qux\",\"foo\":\"bar\"}"),
	JSONP("{\"foo\":[\"bar\",\"baz\"]}",
	      "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
	      "{\"foo\":[\"bar\",\"qux\",\"baz\"]}"),
	JSONP("{\"baz\":\"qux\",\"foo\":\"bar\"}",
	      "[{\"op\":\"remove\",\"path\":\"/baz\"}]", "{\"foo\":\"bar\"}"),
	JSONP("{\"foo\":[\"bar\",\"qux\",\"baz\"]}",
	      "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]",
	      "{\"foo\":[\"bar\",\"baz\"]}"),
	JSONP("{\"baz\":\"qux\",\"foo\":\"bar\"}",
	      "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
	      "{\"baz\":\"boo\",\"foo\":\"bar\"}"),
	JSONP("{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{"
	      "\"corge\":\"grault\"}}",
	      "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":"
	      "\"/qux/thud\"}]",
	      "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\","
	      "\"thud\":\"fred\"}}"),
	JSONP("{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
	      "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
	      "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}"),
	JSONP("{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
	      "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
	      "{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
	      "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}"),
	JSONP_ERR("{\"baz\":\"qux\"}",
		  "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]",
		  "operation 0 (test /baz): test failed: the value differs"),
	JSONP("{\"foo\":\"bar\"}",
	      "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{"
	      "\"grandchild\":{}}}]",
	      "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}"),
	JSONP("{\"foo\":\"bar\"}",
	      "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\","
	      "\"xyz\":123}]",
	      "{\"foo\":\"bar\",\"baz\":\"qux\"}"),
	JSONP_ERR("{\"foo\":\"bar\"}",
		  "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]",
		  "the parent does not exist"),
	JSONP("{\"/\":9,\"~1\":10}",
	      "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]",
	      "{\"/\":9,\"~1\":10}"),
	JSONP_ERR("{\"/\":9,\"~1\":10}",
		  "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]",
		  "test failed"),
	JSONP("{\"foo\":[\"bar\"]}",
	      "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\","
	      "\"def\"]}]",
	      "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}"),
	/* Our own: escapes, copies, numbers, and what is refused. */
	JSONP("{\"a/b\":1,\"m~n\":2}",
	      "[{\"op\":\"copy\",\"from\":\"/a~1b\",\"path\":\"/m~0n\"}]",
	      "{\"a/b\":1,\"m~n\":1}"),
	JSONP("{\"n\":1}", "[{\"op\":\"test\",\"path\":\"/n\",\"value\":1.0}]",
	      "{\"n\":1}"),
	JSONP("{\"o\":{\"a\":1,\"b\":2}}",
	      "[{\"op\":\"test\",\"path\":\"/o\",\"value\":{\"b\":2,\"a\":1}}]",
	      "{\"o\":{\"a\":1,\"b\":2}}"),
	JSONP("{\"a\":1}",
	      "[{\"op\":\"replace\",\"path\":\"\",\"value\":{"
	      "\"b\":2}}]",
	      "{\"b\":2}"),
	JSONP("{\"a\":{\"b\":1}}",
	      "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a\"}]",
	      "{\"a\":{\"b\":1}}"),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"/b\"}]",
		  "operation 0 (remove /b): the path does not exist"),
	JSONP_ERR("{\"a\":1}",
		  "[{\"op\":\"replace\",\"path\":\"/b\",\"value\":1}]",
		  "the path does not exist"),
	JSONP_ERR("{\"a\":[1]}",
		  "[{\"op\":\"add\",\"path\":\"/a/2\",\"value\":1}]",
		  "index \"2\" is out of bounds (the array has 1 elements)"),
	JSONP_ERR("{\"a\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/a/01\"}]",
		  "the path does not exist"),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"a\"}]",
		  "must be empty or start with \"/\""),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"/~2\"}]",
		  "\"~\" must be followed by \"0\" or \"1\""),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"\"}]",
		  "cannot remove the whole document"),
	JSONP_ERR("{\"a\":{\"b\":1}}",
		  "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b/c\"}]",
		  "cannot move a value into itself"),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"/b\"}]",
		  "operation 0 (add): \"value\" is required"),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"copy\",\"path\":\"/b\"}]",
		  "\"from\" is required"),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"frob\",\"path\":\"/a\"}]",
		  "\"op\" must be one of add, remove"),
	JSONP_ERR("{\"a\":1}", "[{\"op\":\"remove\"}]", "\"path\" is required"),
	JSONP_ERR("{\"a\":1}", "[7]", "operation 0: must be an object"),
	JSONP_ERR("{\"a\":1}", "{\"op\":\"remove\",\"path\":\"/a\"}",
		  "must be an array of operations"),
	/* A later failure undoes the earlier operations. */
	JSONP_ERR("{\"a\":1}",
		  "[{\"op\":\"remove\",\"path\":\"/a\"},"
		  "{\"op\":\"test\",\"path\":\"/a\",\"value\":1}]",
		  "operation 1 (test /a)"),
	JSONP_ERR("{\"a\":1}",
		  "[{\"op\":\"replace\",\"path\":\"\",\"value\":7}]",
		  "not a JSON object"),

	/* Strategic merge: conditions by type, order kept. */
	SMP("{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	    "\"False\",\"reason\":\"Down\"},{\"type\":\"PodScheduled\","
	    "\"status\":\"True\"}]}}",
	    "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	    "\"True\",\"reason\":null},{\"type\":\"DisruptionTarget\","
	    "\"status\":\"True\"}]}}",
	    "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	    "\"True\"},{\"type\":\"PodScheduled\",\"status\":\"True\"},"
	    "{\"type\":\"DisruptionTarget\",\"status\":\"True\"}]}}"),
	/* Containers by name, env by name inside, ports, mounts. */
	SMP("{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x:1\","
	    "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\","
	    "\"value\":\"2\"}],\"ports\":[{\"containerPort\":80,\"name\":"
	    "\"http\"}],\"volumeMounts\":[{\"mountPath\":\"/d\",\"name\":"
	    "\"v\"}]}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x:2\","
	    "\"env\":[{\"name\":\"B\",\"value\":\"3\"}],\"ports\":[{"
	    "\"containerPort\":443}],\"volumeMounts\":[{\"mountPath\":\"/d\","
	    "\"readOnly\":true}]},{\"name\":\"b\",\"image\":\"y\"}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x:2\","
	    "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\","
	    "\"value\":\"3\"}],\"ports\":[{\"containerPort\":80,\"name\":"
	    "\"http\"},{\"containerPort\":443}],\"volumeMounts\":[{"
	    "\"mountPath\":\"/d\",\"name\":\"v\",\"readOnly\":true}]},"
	    "{\"name\":\"b\",\"image\":\"y\"}]}}"),
	/* Tolerations (and lists without a rule) are replaced whole. */
	SMP("{\"spec\":{\"tolerations\":[{\"key\":\"a\"}],\"args\":[\"x\"]}}",
	    "{\"spec\":{\"tolerations\":[{\"key\":\"b\"}],\"args\":[\"y\"]}}",
	    "{\"spec\":{\"tolerations\":[{\"key\":\"b\"}],\"args\":[\"y\"]}}"),
	/* Finalizers are a set; $deleteFromPrimitiveList removes. */
	SMP("{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
	    "{\"metadata\":{\"finalizers\":[\"b\",\"c\"]}}",
	    "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}"),
	SMP("{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
	    "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\","
	    "\"z\"]}}",
	    "{\"metadata\":{\"finalizers\":[\"a\",\"c\"]}}"),
	/* Owner references by uid. */
	SMP("{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":"
	    "\"j\"}]}}",
	    "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\","
	    "\"controller\":true},{\"uid\":\"2\",\"name\":\"k\"}]}}",
	    "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":"
	    "\"j\",\"controller\":true},{\"uid\":\"2\",\"name\":\"k\"}]}}"),
	/* $patch: delete and replace, in lists and in maps. */
	SMP("{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"a\",\"$patch\":"
	    "\"delete\"},{\"name\":\"zz\",\"$patch\":\"delete\"}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"b\"}]}}"),
	SMP("{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"c\"},{\"$patch\":"
	    "\"replace\"}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}"),
	SMP("{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}",
	    "{\"metadata\":{\"labels\":{\"c\":\"3\",\"$patch\":\"replace\"}}}",
	    "{\"metadata\":{\"labels\":{\"c\":\"3\"}}}"),
	SMP("{\"metadata\":{\"labels\":{\"a\":\"1\"},\"name\":\"x\"}}",
	    "{\"metadata\":{\"labels\":{\"$patch\":\"delete\"}}}",
	    "{\"metadata\":{\"name\":\"x\"}}"),
	/* $retainKeys keeps only the listed fields; $setElementOrder is
	 * ignored. */
	SMP("{\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\","
	    "\"rollingUpdate\":{\"maxSurge\":1}}}}",
	    "{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":"
	    "\"Recreate\"}}}",
	    "{\"spec\":{\"strategy\":{\"type\":\"Recreate\"}}}"),
	SMP("{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
	    "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"b\"},"
	    "{\"name\":\"a\"}],\"containers\":[{\"name\":\"b\",\"image\":"
	    "\"i\"}]}}",
	    "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\","
	    "\"image\":\"i\"}]}}"),
	SMP("{\"spec\":{\"nodeName\":\"n\",\"x\":1}}",
	    "{\"spec\":{\"nodeName\":null}}", "{\"spec\":{\"x\":1}}"),
	SMP_ERR("{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
		"{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}",
		"containers[0]: does not contain the merge key \"name\""),
	SMP_ERR("{}", "{\"spec\":{\"$frob\":1}}",
		"unknown patch directive $frob"),
	SMP_ERR("{}", "{\"spec\":{\"$patch\":\"frob\"}}",
		"$patch must be \"merge\", \"delete\" or \"replace\""),
	SMP_ERR("{}", "[1]", "the patch must be a JSON object"),
	SMP_ERR("{}", "{\"spec\":{\"strategy\":{\"$retainKeys\":\"type\"}}}",
		"$retainKeys must be a list of field names"),
	/* Apply: merged the same way, managedFields dropped. */
	{ API_PATCH_APPLY,
	  "{\"metadata\":{\"name\":\"w\",\"managedFields\":[{}]},\"status\":{"
	  "\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":\"True\"}]}"
	  "}",
	  "{\"status\":{\"conditions\":[{\"type\":\"Admitted\",\"status\":"
	  "\"True\"}]}}",
	  "{\"metadata\":{\"name\":\"w\"},\"status\":{\"conditions\":[{"
	  "\"type\":\"QuotaReserved\",\"status\":\"True\"},{\"type\":"
	  "\"Admitted\",\"status\":\"True\"}]}}",
	  NULL },
};

static void test_patches(void **state)
{
	const struct api_kind *k = api_kind_at(API_KIND_POD);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct patch_case *c = &cases[i];
		json_t *target = json_loads(c->target, JSON_DECODE_ANY, NULL);
		json_t *patch = json_loads(c->patch, JSON_DECODE_ANY, NULL);
		json_t *before = json_deep_copy(target), *got = NULL;
		struct errbuf err = { "" };
		int rc;

		if (!target || !patch)
			fail_msg("case %zu: bad JSON", i);
		rc = api_patch_apply(k, c->type, target, patch, &got, &err);
		if (c->want) {
			json_t *want = json_loads(c->want, 0, NULL);

			if (rc != 0 || !json_equal(got, want)) {
				char *s = got ? json_dumps(got, 0) : NULL;

				fail_msg("case %zu: rc %d (%s), got %s", i, rc,
					 err.msg, s ? s : "-");
			}
			json_decref(want);
		} else {
			if (rc != -EINVAL || !strstr(err.msg, c->msg))
				fail_msg("case %zu: rc %d, message \"%s\"", i,
					 rc, err.msg);
			assert_null(got);
		}
		/* The target itself is never touched. */
		assert_true(json_equal(target, before));
		json_decref(got);
		json_decref(before);
		json_decref(patch);
		json_decref(target);
	}
}

struct ct_case {
	const char *ct;
	int want;
};

static const struct ct_case cts[] = {
	{ "application/merge-patch+json", API_PATCH_MERGE },
	{ "application/json-patch+json", API_PATCH_JSON },
	{ "application/strategic-merge-patch+json", API_PATCH_STRATEGIC },
	{ "application/apply-patch+yaml", API_PATCH_APPLY },
	{ "Application/Merge-Patch+JSON; charset=utf-8", API_PATCH_MERGE },
	{ " application/apply-patch+yaml ;x=y", API_PATCH_APPLY },
	{ "application/json", -1 },
	{ "application/merge-patch+jsonx", -1 },
	{ "", -1 },
	{ NULL, -1 },
};

static void test_content_types(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cts); i++)
		assert_int_equal(api_patch_type_of(cts[i].ct), cts[i].want);
}

struct yaml_case {
	const char *in;
	const char *want; /* JSON, or NULL for an error */
	const char *msg;
	int max_depth; /* 0: 64 */
	size_t len;    /* 0: strlen(in) */
};

static const struct yaml_case yamls[] = {
	{ "a: 1\nb: [x, 'y', 2.5, true, null, ~, 0x1F, 0o17, -3, +4]\n",
	  "{\"a\":1,\"b\":[\"x\",\"y\",2.5,true,null,null,31,15,-3,4]}", NULL,
	  0, 0 },
	{ "{\"a\": {\"b\": [1, \"2\"]}, \"c\": false}",
	  "{\"a\":{\"b\":[1,\"2\"]},\"c\":false}", NULL, 0, 0 },
	{ "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"
	  "  labels: {app: web}\nspec:\n  containers:\n  - name: c\n"
	  "    args: [\"--x\"]\n",
	  "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
	  "\"p\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{"
	  "\"name\":\"c\",\"args\":[\"--x\"]}]}}",
	  NULL, 0, 0 },
	{ "s: 1.2.3\nv: 1e3\nq: '1'\ny: yes\nu: 1_000\nn: NULL\nt: True\n"
	  "e:\nbig: 99999999999999999999\nm: -0.5\nl: |\n  two\n  lines\n",
	  "{\"s\":\"1.2.3\",\"v\":1000.0,\"q\":\"1\",\"y\":\"yes\","
	  "\"u\":\"1_000\",\"n\":null,\"t\":true,\"e\":null,"
	  "\"big\":1e20,\"m\":-0.5,\"l\":\"two\\nlines\\n\"}",
	  NULL, 0, 0 },
	{ "a: &x 1\nb: *x\n", NULL,
	  "line 2, column 5: YAML aliases are not supported", 0, 0 },
	{ "a: .inf\n", NULL, "line 1, column 4: .inf cannot be represented", 0,
	  0 },
	{ "a: -.Inf\n", NULL, "cannot be represented in JSON", 0, 0 },
	/* beyond a double: an error, never a NULL without a message */
	{ "a: 77E7777777700195933172\n", NULL,
	  "line 1, column 4: 77E7777777700195933172 is out of range", 0, 0 },
	{ "a: -1e400\n", NULL, "is out of range for a number", 0, 0 },
	{ "? [a]\n: 1\n", NULL, "line 1, column 3: mapping keys must be", 0,
	  0 },
	{ "a: 1\n---\nb: 2\n", NULL, "more than one YAML document", 0, 0 },
	{ "", NULL, "the body is empty", 0, 0 },
	{ "a: 1\0b: 2", NULL, "line 1, column 5: NUL byte (0x00)", 0, 10 },
	{ "a: [\n", NULL, "line ", 0, 0 },
	{ "[[[[1]]]]", NULL, "line 1, column 4: nested more than 3 deep", 3,
	  0 },
	{ "[[[1]]]", "[[[1]]]", NULL, 3, 0 },
	/* Checked before libfyaml, which loops on this one (found by
	 * fuzz_patch). */
	{ "a: v1\n%k: P\xa9\xa9\n", NULL,
	  "line 2, column 6: not UTF-8 (byte 0xa9)", 0, 0 },
};

static void test_yaml(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(yamls); i++) {
		const struct yaml_case *c = &yamls[i];
		struct errbuf err = { "" };
		json_t *got = NULL;
		int rc = api_patch_decode_yaml(
			c->in, c->len ? c->len : strlen(c->in),
			c->max_depth ? c->max_depth : 64, &got, &err);

		if (c->want) {
			json_t *want = json_loads(c->want, 0, NULL);

			assert_non_null(want);
			if (rc != 0 || !json_equal(got, want)) {
				char *s = got ? json_dumps(got, 0) : NULL;

				fail_msg("yaml %zu: rc %d (%s), got %s", i, rc,
					 err.msg, s ? s : "-");
			}
			json_decref(want);
			json_decref(got);
		} else if (rc != -EINVAL || !strstr(err.msg, c->msg)) {
			fail_msg("yaml %zu: rc %d, message \"%s\"", i, rc,
				 err.msg);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patches),
		cmocka_unit_test(test_content_types),
		cmocka_unit_test(test_yaml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

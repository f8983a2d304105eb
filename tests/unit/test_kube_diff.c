// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the outbox's two-way patches: a table of (old, new, dialect,
 * part) and the exact patch expected, and the property that matters:
 * the patch applied to old by the api's own patch code gives new (for
 * the part patched).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_kind.h"
#include "api/api_patch.h"
#include "base/errbuf.h"
#include "kube/kube_diff.h"

struct diff_case {
	const char *old, *new;
	bool strategic;
	enum kube_diff_part part;
	const char *want; /* NULL: no patch */
};

static const struct diff_case cases[] = {
	/* Nothing changed, or only what a client does not patch. */
	{ "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"},"
	  "\"spec\":{\"x\":1}}",
	  "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"2\"},"
	  "\"spec\":{\"x\":1}}",
	  true, KUBE_DIFF_OBJECT, NULL },
	/* A label added, another removed (null), status left out. */
	{ "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}},"
	  "\"status\":{\"phase\":\"Pending\"}}",
	  "{\"metadata\":{\"labels\":{\"a\":\"1\",\"c\":\"3\"}},"
	  "\"status\":{\"phase\":\"Running\"}}",
	  false, KUBE_DIFF_OBJECT,
	  "{\"metadata\":{\"labels\":{\"b\":null,\"c\":\"3\"}}}" },
	/* Labels gone altogether. */
	{ "{\"metadata\":{\"labels\":{\"a\":\"1\"}}}", "{\"metadata\":{}}",
	  false, KUBE_DIFF_OBJECT, "{\"metadata\":{\"labels\":null}}" },
	/* The status part only. */
	{ "{\"spec\":{\"suspend\":false},\"status\":{\"phase\":\"A\"}}",
	  "{\"spec\":{\"suspend\":true},\"status\":{\"phase\":\"B\"}}", false,
	  KUBE_DIFF_STATUS, "{\"status\":{\"phase\":\"B\"}}" },
	/* A kind without a status subresource: all of it. */
	{ "{\"count\":1,\"status\":{\"a\":1}}",
	  "{\"count\":2,\"status\":{\"a\":2}}", true, KUBE_DIFF_ALL,
	  "{\"count\":2,\"status\":{\"a\":2}}" },
	/* Strategic: the changed condition only, with its key. */
	{ "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	  "\"True\"},{\"type\":\"PodScheduled\",\"status\":\"False\","
	  "\"reason\":\"A\",\"message\":\"m\"}]}}",
	  "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":"
	  "\"True\"},{\"type\":\"PodScheduled\",\"status\":\"False\","
	  "\"reason\":\"B\"}]}}",
	  true, KUBE_DIFF_STATUS,
	  "{\"status\":{\"conditions\":[{\"message\":null,\"reason\":\"B\","
	  "\"type\":\"PodScheduled\"}]}}" },
	/* Strategic: a condition added and one removed. */
	{ "{\"status\":{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"}"
	  "]}}",
	  "{\"status\":{\"conditions\":[{\"type\":\"B\",\"status\":\"True\"}"
	  "]}}",
	  true, KUBE_DIFF_STATUS,
	  "{\"status\":{\"conditions\":[{\"status\":\"True\",\"type\":\"B\"},"
	  "{\"$patch\":\"delete\",\"type\":\"A\"}]}}" },
	/* Merge patch: the list whole. */
	{ "{\"status\":{\"conditions\":[{\"type\":\"A\",\"status\":\"True\"}"
	  "]}}",
	  "{\"status\":{\"conditions\":[{\"type\":\"A\",\"status\":"
	  "\"False\"}]}}",
	  false, KUBE_DIFF_STATUS,
	  "{\"status\":{\"conditions\":[{\"status\":\"False\",\"type\":"
	  "\"A\"}]}}" },
	/* Strategic: finalizers are a set; what left is listed apart. */
	{ "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
	  "{\"metadata\":{\"finalizers\":[\"b\",\"c\"]}}", true,
	  KUBE_DIFF_OBJECT,
	  "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"a\"],"
	  "\"finalizers\":[\"b\",\"c\"]}}" },
	/* A create's status: everything of it. */
	{ NULL, "{\"metadata\":{\"name\":\"w\"},\"status\":{\"a\":1}}", false,
	  KUBE_DIFF_STATUS, "{\"status\":{\"a\":1}}" },
};

static json_t *load(const char *text)
{
	json_t *v;

	if (!text)
		return NULL;
	v = json_loads(text, 0, NULL);
	assert_non_null(v);
	return v;
}

/* The part of obj a patch of part can change (to compare results). */
static json_t *view(const json_t *obj, enum kube_diff_part part)
{
	json_t *out = json_deep_copy(obj ? obj : json_object());

	json_object_del(out, "apiVersion");
	json_object_del(out, "kind");
	if (part == KUBE_DIFF_OBJECT)
		json_object_del(out, "status");
	if (part == KUBE_DIFF_STATUS) {
		json_t *st = json_object_get(out, "status");

		json_incref(st);
		json_decref(out);
		out = json_object();
		if (st)
			json_object_set_new(out, "status", st);
		return out;
	}
	json_object_del(json_object_get(out, "metadata"), "resourceVersion");
	json_object_del(json_object_get(out, "metadata"), "name");
	if (!json_object_size(json_object_get(out, "metadata")))
		json_object_del(out, "metadata");
	return out;
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct diff_case *c = &cases[i];
		json_t *old = load(c->old), *new = load(c->new);
		json_t *d = kube_diff(old, new, c->strategic, c->part);
		char *text =
			d ? json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

		if (!c->want && text)
			fail_msg("case %zu: want no patch, got %s", i, text);
		if (c->want && (!text || strcmp(text, c->want)))
			fail_msg("case %zu: want %s, got %s", i, c->want,
				 text ? text : "(none)");
		/* Applied by the server's own code, it gives new. */
		if (d) {
			const struct api_kind *k = api_kind_at(API_KIND_POD);
			json_t *base = old ? json_incref(old) : json_object();
			json_t *got = NULL, *a, *b;
			struct errbuf eb;

			assert_int_equal(
				api_patch_apply(k,
						c->strategic
							? API_PATCH_STRATEGIC
							: API_PATCH_MERGE,
						base, d, &got, &eb),
				0);
			a = view(got, c->part);
			b = view(new, c->part);
			if (!json_equal(a, b))
				fail_msg("case %zu: patch does not apply to "
					 "new",
					 i);
			json_decref(a);
			json_decref(b);
			json_decref(got);
			json_decref(base);
		}
		free(text);
		json_decref(d);
		json_decref(old);
		json_decref(new);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

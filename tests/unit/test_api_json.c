// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the compact JSON encoder: for a table of documents (escapes,
 * control characters, embedded NULs, UTF-8, integer extremes, reals,
 * nesting, key order) its text is byte for byte what jansson's
 * json_dumps(JSON_COMPACT) writes, and reads back equal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/api_json.h"
#include "base/compiler.h"
#include "testutil.h"

static void check(const json_t *v)
{
	char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	struct strbuf sb;
	json_t *back;

	strbuf_init(&sb);
	api_json_add(&sb, v);
	assert_non_null(want);
	assert_int_equal(sb.len, strlen(want));
	assert_memory_equal(sb.buf, want, sb.len);
	back = json_loadb(sb.buf, sb.len, JSON_DECODE_ANY | JSON_ALLOW_NUL,
			  NULL);
	assert_non_null(back);
	assert_true(json_equal(back, (json_t *)v));
	json_decref(back);
	free(want);
	strbuf_release(&sb);
}

static void test_documents(void **state)
{
	static const char *const docs[] = {
		"{}",
		"[]",
		"null",
		"true",
		"false",
		"0",
		"-1",
		"9223372036854775807",
		"-9223372036854775808",
		"1.5",
		"-0.25",
		"1e+300",
		"3.0",
		"0.1",
		"\"\"",
		"\"a\\\"b\\\\c/d\"",
		"\"\\n\\r\\t\\b\\f\\u0001\\u001f\"",
		"\"caf\\u00e9 \\u2028 \\ud83d\\ude00\"",
		"{\"z\":1,\"a\":[1,{\"b\":null}],\"m\":{\"k\\n\":\"v\"}}",
		"[[[[[]]]],{\"a\":{\"b\":{\"c\":[true,false]}}}]",
		"{\"metadata\":{\"name\":\"p\",\"labels\":{\"a/b\":\"c\"}},"
		"\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		json_error_t err;
		json_t *v = json_loads(docs[i], JSON_DECODE_ANY, &err);

		if (!v)
			fail_msg("%s: %s", docs[i], err.text);
		check(v);
		json_decref(v);
	}
}

static void test_nul_and_null(void **state)
{
	json_t *v = json_object();
	struct strbuf sb;

	(void)state;
	json_object_set_new(v, "s", json_stringn("a\0b", 3));
	json_object_set_new(v, "k", json_real(-1.5e-7));
	check(v);
	json_decref(v);
	strbuf_init(&sb);
	api_json_add(&sb, NULL);
	assert_string_equal(sb.buf, "null");
	api_json_add_string(&sb, "x\"", 2);
	assert_string_equal(sb.buf, "null\"x\\\"\"");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_nul_and_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

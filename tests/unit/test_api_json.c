// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the compact JSON encoder: for a table of documents (escapes,
 * control characters, embedded NULs, UTF-8, integer extremes, reals,
 * nesting, key order) its text is byte for byte what jansson's
 * json_dumps(JSON_COMPACT) writes, and reads back equal; the member
 * scanner finds what the encoder wrote for each key.
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
		("{\"metadata\":{\"name\":\"p\",\"labels\":{\"a/b\":\"c\"}},"
		 "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}"
		 "}"),
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

/* api_json_member() finds each top-level member of a document as the
 * encoder writes it, and nothing else. */
static void test_member(void **state)
{
	static const char *const docs[] = {
		"{\"metadata\":{\"name\":\"a\",\"labels\":{\"k\":\"}\"}},"
		"\"spec\":[1,{\"x\":\"\\\"]\"}],\"n\":-1.5,\"t\":true,"
		"\"z\":null,\"s\":\"a,b\"}",
		"{\"a\":{},\"b\":[],\"c\":\"\",\"d\":{\"metadata\":1}}",
		"{}",
	};
	static const struct {
		const char *text, *key;
	} misses[] = {
		{ "[1,2]", "a" },
		{ "{\"a\":1}", "b" },
		{ "{\"a\":{\"b\":1}}", "b" },
		{ "\"metadata\"", "metadata" },
		{ "{\"a\":[1,2}", "b" },
		{ "", "a" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		json_t *v = json_loads(docs[i], 0, NULL);
		const char *key;
		json_t *x;
		struct strbuf text, want;

		assert_non_null(v);
		strbuf_init(&text);
		strbuf_init(&want);
		api_json_add(&text, v);
		json_object_foreach(v, key, x)
		{
			const char *val;
			size_t len;

			strbuf_reset(&want);
			api_json_add(&want, x);
			assert_true(api_json_member(text.buf, text.len, key,
						    &val, &len));
			assert_int_equal(len, want.len);
			assert_memory_equal(val, want.buf, len);
		}
		strbuf_release(&text);
		strbuf_release(&want);
		json_decref(v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(misses); i++) {
		const char *val;
		size_t len;

		assert_false(api_json_member(misses[i].text,
					     strlen(misses[i].text),
					     misses[i].key, &val, &len));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_nul_and_null),
		cmocka_unit_test(test_member),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

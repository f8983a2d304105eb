// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the Kubernetes-compatible request handler, table-driven over
 * api_handle(): discovery and /openapi/v3 as kubectl reads them, each
 * verb and its Status errors, Tables, pagination, the status
 * subresource, binding, delete propagation, and watches from a
 * resourceVersion, from "0", with sendInitialEvents and beyond the
 * history. Each step names the request, the code it must get and text
 * the reply must (or must not) hold; refused writes are checked to leave
 * the store unchanged.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "base/alloc.h"
#include "testutil.h"

#define T0 1796130000000000LL /* 2026-12-01T13:00:00Z */

#define TABLE_ACCEPT                                                           \
	"application/json;as=Table;v=v1;g=meta.k8s.io,application/"            \
	"json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
#define AGG_ACCEPT                                                             \
	"application/json;g=apidiscovery.k8s.io;v=v2;as="                      \
	"APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;"        \
	"v=v2beta1;as=APIGroupDiscoveryList,application/json"

struct fixture {
	struct api_store *s;
	struct api *a;
};

static const struct api_kind *kind(unsigned id)
{
	return api_kind_at(id);
}

static void put(struct fixture *f, unsigned id, const char *json)
{
	json_t *o = json_loads(json, 0, NULL);

	assert_non_null(o);
	assert_int_equal(api_store_create(f->s, kind(id), o, T0, NULL), 0);
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	struct api_store_options opt = { .history = 64 };
	struct api_hooks hooks = { .git_version = "v1.35.0" };

	f->s = api_store_new(&opt);
	f->a = api_new(f->s, &hooks);
	put(f, API_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"default\"}}");
	put(f, API_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"team-a\"}}");
	put(f, API_KIND_NODE, "{\"metadata\":{\"name\":\"n1\"}}");
	put(f, API_KIND_NODE, "{\"metadata\":{\"name\":\"n2\"}}");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	api_free(f->a);
	api_store_free(f->s);
	free(f);
	return 0;
}

struct step {
	const char *method, *path, *query;
	const char *ctype, *accept, *body;
	int code;
	/* Substrings of the reply; "!x": x must not be in it. */
	const char *want[5];
};

static void run_step(struct fixture *f, const struct step *st, size_t i,
		     struct api_resp *resp)
{
	struct api_req r = {
		.method = st->method,
		.path = st->path,
		.query = st->query,
		.accept = st->accept,
		.content_type = st->ctype  ? st->ctype
				: st->body ? "application/json"
					   : NULL,
		.body = st->body,
		.body_len = st->body ? strlen(st->body) : 0,
	};
	uint64_t rv = api_store_rv(f->s);

	api_handle(f->a, &r, T0 + 1000000, resp);
	if (resp->code != st->code)
		fail_msg("step %zu %s %s: code %d, want %d: %s", i, st->method,
			 st->path, resp->code, st->code, resp->body.buf);
	for (size_t j = 0; j < ARRAY_SIZE(st->want) && st->want[j]; j++) {
		const char *w = st->want[j];
		bool neg = w[0] == '!';

		if (!strstr(resp->body.buf, w + neg) != neg)
			fail_msg("step %zu %s %s: %s\"%s\" in %s", i,
				 st->method, st->path, neg ? "" : "no ",
				 w + neg, resp->body.buf);
	}
	/* Failures write nothing; only writes say they wrote. */
	if (resp->code >= 300)
		assert_int_equal(api_store_rv(f->s), rv);
	assert_int_equal(resp->wrote, api_store_rv(f->s) != rv);
	/* Every reply but a watch is one JSON document. */
	if (!resp->watch) {
		json_t *v = json_loads(resp->body.buf, 0, NULL);

		if (!v)
			fail_msg("step %zu: not JSON: %s", i, resp->body.buf);
		json_decref(v);
	}
}

static void run_steps(struct fixture *f, const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct api_resp resp;

		run_step(f, &steps[i], i, &resp);
		api_resp_release(&resp);
	}
}

#define POD(name, extra)                                                       \
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"      \
	"\"" name "\"" extra                                                   \
	"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"               \
	"\"i\"}]}}"

static void test_discovery(void **state)
{
	static const struct step steps[] = {
		{ "GET",
		  "/version",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"major\":\"1\"", "\"minor\":\"35\"",
		    "\"gitVersion\":\"v1.35.0\"" } },
		{ "GET",
		  "/api",
		  NULL,
		  NULL,
		  "application/json",
		  NULL,
		  200,
		  { "\"kind\":\"APIVersions\"", "\"versions\":[\"v1\"]" } },
		{ "GET",
		  "/api",
		  NULL,
		  NULL,
		  AGG_ACCEPT,
		  NULL,
		  200,
		  { "\"kind\":\"APIGroupDiscoveryList\"",
		    "\"apiVersion\":\"apidiscovery.k8s.io/v2\"",
		    "\"resource\":\"pods\"", "{\"subresource\":\"binding\"",
		    "!"
		    "batch" } },
		{ "GET",
		  "/apis",
		  NULL,
		  NULL,
		  AGG_ACCEPT,
		  NULL,
		  200,
		  { "\"metadata\":{\"name\":\"batch\"}",
		    "\"metadata\":{\"name\":\"kueue.x-k8s.io\"}",
		    "\"version\":\"v1beta1\"", "\"freshness\":\"Current\"",
		    "!"
		    "\"resource\":\"pods\"" } },
		{ "GET",
		  "/apis",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"kind\":\"APIGroupList\"",
		    "\"groupVersion\":\"kueue.x-k8s.io/v1beta2\"",
		    "\"preferredVersion\":{\"groupVersion\":\"kueue.x-k8s.io/"
		    "v1beta2\"" } },
		{ "GET",
		  "/apis/batch",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"kind\":\"APIGroup\"", "\"name\":\"batch\"" } },
		{ "GET",
		  "/api/v1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"kind\":\"APIResourceList\"", "\"name\":\"pods/status\"",
		    "\"name\":\"pods/binding\"", "\"shortNames\":[\"po\"]" } },
		{ "GET",
		  "/apis/kueue.x-k8s.io/v1beta1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"groupVersion\":\"kueue.x-k8s.io/v1beta1\"",
		    "\"name\":\"workloads/status\"" } },
		{ "GET",
		  "/apis/kueue.x-k8s.io/v9",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "\"reason\":\"NotFound\"",
		    "the server could not find the requested resource" } },
		{ "GET",
		  "/openapi/v3",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"api/v1\":{\"serverRelativeURL\":\"/openapi/v3/api/"
		    "v1?hash=",
		    "\"apis/batch/v1\"" } },
		{ "GET",
		  "/openapi/v3/apis/kueue.x-k8s.io/v1beta1",
		  "hash=1",
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"/apis/kueue.x-k8s.io/v1beta1/namespaces/{namespace}/"
		    "workloads/{name}\"",
		    "\"x-kubernetes-group-version-kind\":{\"group\":\"kueue."
		    "x-k8s.io\",\"version\":\"v1beta1\",\"kind\":"
		    "\"Workload\"}",
		    "\"name\":\"fieldValidation\"" } },
		{ "GET",
		  "/openapi/v3/api/v1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"/api/v1/nodes/{name}\"" } },
		{ "GET",
		  "/nope",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "\"kind\":\"Status\"", "\"status\":\"Failure\"",
		    "\"code\":404" } },
	};
	struct fixture *f = *state;
	struct api_req r = { .method = "GET",
			     .path = "/apis",
			     .accept = AGG_ACCEPT };
	struct api_resp resp;

	run_steps(f, steps, ARRAY_SIZE(steps));
	/* The exact Content-Type kubectl looks for. */
	api_handle(f->a, &r, T0, &resp);
	assert_string_equal(resp.content_type,
			    "application/json;g=apidiscovery.k8s.io;v=v2;"
			    "as=APIGroupDiscoveryList");
	api_resp_release(&resp);
	r.accept = "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
		   "as=APIGroupDiscoveryList";
	api_handle(f->a, &r, T0, &resp);
	assert_string_equal(resp.content_type,
			    "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
			    "as=APIGroupDiscoveryList");
	assert_non_null(strstr(resp.body.buf, "apidiscovery.k8s.io/v2beta1"));
	api_resp_release(&resp);
	/* OpenAPI v2 for kubectl 1.27 and 1.28: protobuf with each kind's
	 * PATCH, its group-version-kind and fieldValidation. */
	r.path = "/openapi/v2";
	r.accept = "application/com.github.proto-openapi.spec.v2@v1.0+"
		   "protobuf";
	api_handle(f->a, &r, T0, &resp);
	assert_int_equal(resp.code, 200);
	assert_string_equal(resp.content_type,
			    "application/com.github.proto-openapi.spec.v2."
			    "v1.0+protobuf");
	assert_memory_equal(resp.body.buf,
			    "\x0a\x03"
			    "2.0",
			    5);
	assert_non_null(memmem(resp.body.buf, resp.body.len,
			       "/api/v1/namespaces/{namespace}/pods/{name}",
			       42));
	assert_non_null(memmem(resp.body.buf, resp.body.len,
			       "group: \"\"\nkind: Pod\nversion: v1\n", 32));
	assert_non_null(memmem(resp.body.buf, resp.body.len,
			       "\x22\x0f"
			       "fieldValidation",
			       17));
	api_resp_release(&resp);
}

static void test_crud(void **state)
{
	static const struct step steps[] = {
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("p1", ""),
		  201,
		  { "\"name\":\"p1\"", "\"namespace\":\"default\"",
		    "\"resourceVersion\":\"5\"",
		    "\"status\":{\"phase\":\"Pending\"}" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("p1", ""),
		  409,
		  { "\"reason\":\"AlreadyExists\"",
		    "\"message\":\"pods \\\"p1\\\" already exists\"",
		    "\"details\":{\"name\":\"p1\",\"kind\":\"pods\"}",
		    "\"code\":409" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"uid\":\"", "\"kind\":\"Pod\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/zz",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "\"message\":\"pods \\\"zz\\\" not found\"",
		    "\"reason\":\"NotFound\"" } },
		{ "GET",
		  "/apis/batch/v1/namespaces/default/jobs/zz",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "jobs.batch \\\"zz\\\" not found",
		    "\"group\":\"batch\"" } },
		{ "GET",
		  "/api/v1/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "the server could not find the requested resource" } },
		{ "PUT",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  POD("p1", ",\"resourceVersion\":\"2\""),
		  409,
		  { "\"reason\":\"Conflict\"",
		    "Operation cannot be fulfilled on pods \\\"p1\\\": the "
		    "object has been modified; please apply your changes to "
		    "the latest version and try again" } },
		{ "PUT",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  POD("p1", ",\"resourceVersion\":\"5\",\"labels\":{\"a\":"
			    "\"b\"}"),
		  200,
		  { "\"resourceVersion\":\"6\"", "\"a\":\"b\"" } },
		{ "PUT",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  POD("p2", ""),
		  400,
		  { "the name of the object (p2) does not match the name on "
		    "the URL (p1)" } },
		{ "PUT",
		  "/api/v1/namespaces/default/pods/zz",
		  NULL,
		  NULL,
		  NULL,
		  POD("zz", ""),
		  404,
		  { "pods \\\"zz\\\" not found" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  "application/merge-patch+json",
		  NULL,
		  "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}",
		  200,
		  { "\"x\":\"y\"", "\"a\":\"b\"",
		    "\"resourceVersion\":\"7\"" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  "application/merge-patch+json",
		  NULL,
		  "{\"metadata\":{\"resourceVersion\":\"3\",\"labels\":{\"x\":"
		  "\"z\"}}}",
		  409,
		  { "\"reason\":\"Conflict\"" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  "text/plain",
		  NULL,
		  "{}",
		  415,
		  { "\"reason\":\"UnsupportedMediaType\"" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/zz",
		  NULL,
		  "application/merge-patch+json",
		  NULL,
		  "{}",
		  404,
		  { "pods \\\"zz\\\" not found" } },
		{ "POST",
		  "/api/v1/namespaces/nope/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("p1", ""),
		  404,
		  { "namespaces \\\"nope\\\" not found" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":",
		  400,
		  { "\"reason\":\"BadRequest\"", "not valid JSON: line 1" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  "text/csv",
		  NULL,
		  "a,b",
		  415,
		  { "\"code\":415" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		  "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
		  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
		  400,
		  { "deeper than 64 levels" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "[1]",
		  400,
		  { "must be a JSON object" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":7}}",
		  400,
		  { "metadata.name must be a string" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"apiVersion\":\"batch/v1\",\"metadata\":{\"name\":\"q\"}}",
		  400,
		  { "the API version in the data (batch/v1) does not match "
		    "the expected API version (v1)" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("q", ",\"namespace\":\"team-a\""),
		  400,
		  { "does not match the namespace sent on the request" } },
		{ "POST",
		  "/api/v1/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("q", ""),
		  405,
		  { "\"reason\":\"MethodNotAllowed\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  POD("p1", ""),
		  405,
		  { "\"code\":405" } },
		{ "HEAD",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  405,
		  { "\"code\":405" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods",
		  "limit=x",
		  NULL,
		  NULL,
		  NULL,
		  400,
		  { "limit: invalid value" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods",
		  "watch=maybe",
		  NULL,
		  NULL,
		  NULL,
		  400,
		  { "invalid boolean" } },
		{ "POST",
		  "/api/v1/nodes",
		  NULL,
		  NULL,
		  NULL,
		  "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n3\","
		  "\"namespace\":\"x\"}}",
		  201,
		  { "\"name\":\"n3\"", "!"
				       "\"namespace\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  "dryRun=All",
		  NULL,
		  NULL,
		  POD("dry", ""),
		  201,
		  { "\"name\":\"dry\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/dry",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "not found" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"generateName\":\"gen-\"},\"spec\":{"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
		  201,
		  { "\"name\":\"gen-", "\"generateName\":\"gen-\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  "application/yaml",
		  NULL,
		  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: y1\n"
		  "  labels: {a: \"1\"}\nspec:\n  priority: 5\n"
		  "  containers: [{name: c, image: i}]\n",
		  201,
		  { "\"name\":\"y1\"", "\"priority\":5", "\"a\":\"1\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  "application/yaml",
		  NULL,
		  "metadata: {name: [\n",
		  400,
		  { "not valid YAML" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"name\":\"p1\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "not found" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/p1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "pods \\\"p1\\\" not found" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/y1/status",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"name\":\"y1\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/y1/binding",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  405,
		  { "\"code\":405" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/y1/exec",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "\"code\":404" } },
		/* Brackets in a YAML plain scalar are not nesting. */
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  "application/yaml",
		  NULL,
		  "metadata:\n  name: y2\n  annotations:\n    a: x"
		  "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		  "["
		  "[[[[[[[[[[\nspec:\n  containers: [{name: c, image: i}]\n",
		  201,
		  { "\"name\":\"y2\"", "\"a\":\"x[[[[" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  "application/yaml",
		  NULL,
		  "a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		  "[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
		  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
		  400,
		  { "not valid YAML" } },
	};
	run_steps(*state, steps, ARRAY_SIZE(steps));
}

static void test_body_limit(void **state)
{
	struct fixture *f = *state;
	size_t n = API_MAX_BODY + 1;
	char *big = xmalloc(n);
	struct api_req r = {
		.method = "POST",
		.path = "/api/v1/namespaces/default/pods",
		.content_type = "application/json",
		.body = big,
		.body_len = n,
	};
	struct api_resp resp;

	memset(big, ' ', n);
	api_handle(f->a, &r, T0, &resp);
	assert_int_equal(resp.code, 413);
	assert_non_null(strstr(resp.body.buf, "RequestEntityTooLarge"));
	api_resp_release(&resp);
	free(big);
}

static void test_validation(void **state)
{
	static const struct step steps[] = {
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("bad_name", ""),
		  422,
		  { "\"reason\":\"Invalid\"",
		    "Pod \\\"bad_name\\\" is invalid: metadata.name: ",
		    "\"causes\":[{\"reason\":\"FieldValueInvalid\"",
		    "\"field\":\"metadata.name\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{},\"spec\":{}}",
		  422,
		  { "\"reason\":\"FieldValueRequired\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"items\":[]" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  "fieldValidation=Strict",
		  NULL,
		  NULL,
		  POD("u", ",\"bogus\":1"),
		  400,
		  { "\"reason\":\"BadRequest\"",
		    "strict decoding error: unknown field "
		    "\\\"metadata.bogus\\\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  "fieldValidation=Ignore",
		  NULL,
		  NULL,
		  POD("u", ",\"bogus\":1"),
		  201,
		  { "\"name\":\"u\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"t\"},\"spec\":[1]}",
		  400,
		  { "\"reason\":\"BadRequest\"",
		    "Pod in version \\\"v1\\\" cannot be handled as a Pod: "
		    "spec: must be an object, not " } },
	};
	struct fixture *f = *state;
	struct api_req r = {
		.method = "POST",
		.path = "/api/v1/namespaces/default/pods",
		.content_type = "application/json",
		.body = POD("w", ",\"bogus\":1"),
	};
	struct api_resp resp;

	run_steps(f, steps, ARRAY_SIZE(steps));
	/* Warn (the default): stored, with a Warning header. */
	r.body_len = strlen(r.body);
	api_handle(f->a, &r, T0, &resp);
	assert_int_equal(resp.code, 201);
	assert_non_null(resp.warning);
	/* Kubernetes' words, with the whole path as under Strict. */
	assert_string_equal(resp.warning,
			    "299 - \"unknown field \\\"metadata.bogus\\\"\"");
	api_resp_release(&resp);
}

static void test_list_and_pages(void **state)
{
	struct fixture *f = *state;
	char q[512], *tok;
	struct api_req r = { .method = "GET",
			     .path = "/api/v1/namespaces/default/pods" };
	struct api_resp resp;
	const char *names[] = { "e", "a", "d", "b", "c" };
	json_t *v;
	size_t seen = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char body[256];

		snprintf(body, sizeof(body),
			 "{\"metadata\":{\"name\":\"%s\",\"namespace\":"
			 "\"default\",\"labels\":{\"i\":\"%zu\"}}}",
			 names[i], i % 2);
		put(f, API_KIND_POD, body);
	}
	put(f, API_KIND_POD,
	    "{\"metadata\":{\"name\":\"o\",\"namespace\":\"team-a\"}}");
	snprintf(q, sizeof(q), "limit=2");
	for (;;) {
		json_t *items, *rem;
		const char *cont;

		r.query = q;
		api_handle(f->a, &r, T0, &resp);
		assert_int_equal(resp.code, 200);
		v = json_loads(resp.body.buf, 0, NULL);
		assert_string_equal(
			json_string_value(json_object_get(v, "kind")),
			"PodList");
		assert_string_equal(json_string_value(json_object_get(
					    json_object_get(v, "metadata"),
					    "resourceVersion")),
				    "10");
		items = json_object_get(v, "items");
		for (size_t i = 0; i < json_array_size(items); i++) {
			const char *want[] = { "a", "b", "c", "d", "e" };

			assert_string_equal(
				json_string_value(json_object_get(
					json_object_get(
						json_array_get(items, i),
						"metadata"),
					"name")),
				want[seen++]);
		}
		cont = json_string_value(json_object_get(
			json_object_get(v, "metadata"), "continue"));
		/* as Kubernetes: how many more, on a page that has more */
		rem = json_object_get(json_object_get(v, "metadata"),
				      "remainingItemCount");
		if (cont)
			assert_int_equal(json_integer_value(rem), 5 - seen);
		else
			assert_null(rem);
		api_resp_release(&resp);
		if (!cont) {
			json_decref(v);
			break;
		}
		tok = xstrdup(cont);
		snprintf(q, sizeof(q), "limit=2&continue=%s", tok);
		free(tok);
		json_decref(v);
	}
	assert_int_equal(seen, 5);
	/* filtered by a selector: a continue token, no count */
	r.query = "limit=1&labelSelector=i%3D0";
	api_handle(f->a, &r, T0, &resp);
	assert_int_equal(resp.code, 200);
	assert_non_null(strstr(resp.body.buf, "\"continue\""));
	assert_null(strstr(resp.body.buf, "remainingItemCount"));
	api_resp_release(&resp);

	/* All namespaces, label selectors, field selectors. */
	{
		static const struct step steps[] = {
			{ "GET",
			  "/api/v1/pods",
			  NULL,
			  NULL,
			  NULL,
			  NULL,
			  200,
			  { "\"name\":\"o\"", "\"name\":\"a\"" } },
			{ "GET",
			  "/api/v1/pods",
			  "labelSelector=i%3D1",
			  NULL,
			  NULL,
			  NULL,
			  200,
			  { "\"name\":\"a\"", "!"
					      "\"name\":\"e\"" } },
			{ "GET",
			  "/api/v1/namespaces/default/pods",
			  "fieldSelector=metadata.name%3Dd",
			  NULL,
			  NULL,
			  NULL,
			  200,
			  { "\"name\":\"d\"", "!"
					      "\"name\":\"a\"" } },
			{ "GET",
			  "/api/v1/pods",
			  "continue=zzz",
			  NULL,
			  NULL,
			  NULL,
			  400,
			  { "continue key is not valid" } },
			{ "GET",
			  "/api/v1/pods",
			  "continue=1.2f61",
			  NULL,
			  NULL,
			  NULL,
			  410,
			  { "\"reason\":\"Expired\"", "\"code\":410" } },
			{ "GET",
			  "/api/v1/pods",
			  "resourceVersionMatch=Exact",
			  NULL,
			  NULL,
			  NULL,
			  400,
			  { "resourceVersionMatch is forbidden" } },
			{ "GET",
			  "/api/v1/pods",
			  "resourceVersion=999",
			  NULL,
			  NULL,
			  NULL,
			  504,
			  { "Too large resource version" } },
			{ "GET",
			  "/api/v1/pods",
			  "resourceVersion=0",
			  NULL,
			  NULL,
			  NULL,
			  200,
			  { "\"name\":\"o\"" } },
		};
		struct api_store_options opt = { .history = 2 };
		struct api_store *s2;

		(void)opt;
		(void)s2;
		/* Age the history so that token rv 1 is expired. */
		for (int i = 0; i < 70; i++) {
			char body[128];

			snprintf(body, sizeof(body),
				 "{\"metadata\":{\"name\":\"x%d\"}}", i);
			put(f, API_KIND_LEASE, body);
		}
		run_steps(f, steps, ARRAY_SIZE(steps));
	}
}

static void test_table(void **state)
{
	struct fixture *f = *state;
	struct api_req r = { .method = "GET",
			     .path = "/api/v1/nodes",
			     .accept = TABLE_ACCEPT };
	struct api_resp resp;
	json_t *v, *rows, *row;

	api_handle(f->a, &r, T0 + 3600000000LL, &resp);
	assert_int_equal(resp.code, 200);
	v = json_loads(resp.body.buf, 0, NULL);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "kind")),
			    "Table");
	assert_string_equal(json_string_value(json_object_get(v, "apiVersion")),
			    "meta.k8s.io/v1");
	assert_int_equal(
		json_array_size(json_object_get(v, "columnDefinitions")),
		kind(API_KIND_NODE)->ncolumns);
	rows = json_object_get(v, "rows");
	assert_int_equal(json_array_size(rows), 2);
	row = json_array_get(rows, 0);
	assert_int_equal(json_array_size(json_object_get(row, "cells")),
			 kind(API_KIND_NODE)->ncolumns);
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(row, "cells"), 0)),
			    "n1");
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(row, "object"), "kind")),
			    "PartialObjectMetadata");
	assert_non_null(json_object_get(
		json_object_get(json_object_get(row, "object"), "metadata"),
		"uid"));
	json_decref(v);
	api_resp_release(&resp);

	/* One object as a Table, v1beta1, without objects. */
	r.path = "/api/v1/nodes/n2";
	r.query = "includeObject=None";
	r.accept = "application/json;as=Table;v=v1beta1;g=meta.k8s.io";
	api_handle(f->a, &r, T0, &resp);
	assert_int_equal(resp.code, 200);
	assert_non_null(strstr(resp.body.buf, "\"apiVersion\":\"meta.k8s.io/"
					      "v1beta1\""));
	assert_non_null(strstr(resp.body.buf, "\"cells\":[\"n2\""));
	assert_null(strstr(resp.body.buf, "\"object\""));
	api_resp_release(&resp);
}

/* The metadata of node n1's row in a Table list of nodes (new ref). */
static json_t *table_row_meta(struct fixture *f)
{
	struct api_req r = { .method = "GET",
			     .path = "/api/v1/nodes",
			     .accept = TABLE_ACCEPT };
	struct api_resp resp;
	json_t *v, *meta;

	api_handle(f->a, &r, T0, &resp);
	assert_int_equal(resp.code, 200);
	v = json_loads(resp.body.buf, 0, NULL);
	assert_non_null(v);
	meta = json_object_get(
		json_object_get(json_array_get(json_object_get(v, "rows"), 0),
				"object"),
		"metadata");
	assert_non_null(meta);
	json_incref(meta);
	json_decref(v);
	api_resp_release(&resp);
	return meta;
}

/* A list's rows copy each object's metadata text, made once per version:
 * the same as the object's, and new after a write. */
static void test_table_meta_text(void **state)
{
	struct fixture *f = *state;
	const struct api_kind *nk = api_kind_storage(kind(API_KIND_NODE));
	const struct api_obj *o = api_store_get(f->s, nk, "", "n1");
	json_t *meta, *body;

	assert_non_null(o);
	for (int i = 0; i < 2; i++) { /* made, then kept */
		meta = table_row_meta(f);
		assert_true(
			json_equal(meta, json_object_get(o->body, "metadata")));
		json_decref(meta);
	}
	body = json_deep_copy(o->body);
	json_object_set_new(json_object_get(body, "metadata"), "labels",
			    json_pack("{s:s}", "zone", "z1"));
	assert_int_equal(api_store_update(f->s, nk, body, 0, T0, NULL), 0);
	o = api_store_get(f->s, nk, "", "n1");
	meta = table_row_meta(f);
	assert_true(json_equal(meta, json_object_get(o->body, "metadata")));
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(meta, "labels"), "zone")),
			    "z1");
	json_decref(meta);
}

/* The body of GET path as a Table at now_us, with query q (owned). */
static char *table_at(struct fixture *f, const char *path, const char *q,
		      int64_t now_us)
{
	struct api_req r = { .method = "GET",
			     .path = path,
			     .query = q,
			     .accept = TABLE_ACCEPT };
	struct api_resp resp;
	char *body;

	api_handle(f->a, &r, now_us, &resp);
	assert_int_equal(resp.code, 200);
	body = xstrdup(resp.body.buf);
	api_resp_release(&resp);
	return body;
}

/* Rows kept with an object's version serve the same view, include mode
 * and second only: a later second gets the new age, another include mode
 * its own row, and the first request's rows come back unchanged. */
static void test_table_rows_kept(void **state)
{
	struct fixture *f = *state;
	char *a = table_at(f, "/api/v1/nodes", NULL, T0 + 5000000);
	char *b = table_at(f, "/api/v1/nodes", NULL, T0 + 5900000);
	char *c = table_at(f, "/api/v1/nodes", NULL, T0 + 95000000);
	char *d = table_at(f, "/api/v1/nodes", "includeObject=None",
			   T0 + 95000000);
	char *e = table_at(f, "/api/v1/nodes", NULL, T0 + 95000000);

	assert_string_equal(a, b);
	assert_non_null(strstr(a, "\"5s\""));
	assert_non_null(strstr(c, "\"95s\""));
	assert_null(strstr(c, "\"5s\""));
	assert_null(strstr(d, "\"object\""));
	assert_string_equal(c, e);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
}

static void test_status_subresource(void **state)
{
	static const struct step steps[] = {
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"s\"},\"spec\":{"
		  "\"activeDeadlineSeconds\":1,"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},"
		  "\"status\":{\"phase\":\"Running\"}}",
		  201,
		  { "\"phase\":\"Pending\"", "\"generation\":1" } },
		/* The object's PUT keeps the stored status. */
		{ "PUT",
		  "/api/v1/namespaces/default/pods/s",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"s\"},\"spec\":{"
		  "\"activeDeadlineSeconds\":2,"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},"
		  "\"status\":{\"phase\":\"Failed\"}}",
		  200,
		  { "\"phase\":\"Pending\"", "\"generation\":2" } },
		/* /status changes the status only. */
		{ "PUT",
		  "/api/v1/namespaces/default/pods/s/status",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"s\"},\"spec\":{"
		  "\"activeDeadlineSeconds\":3,"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]},"
		  "\"status\":{\"phase\":\"Running\"}}",
		  200,
		  { "\"phase\":\"Running\"", "\"activeDeadlineSeconds\":2",
		    "\"generation\":2" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/s/status",
		  NULL,
		  "application/merge-patch+json",
		  NULL,
		  "{\"spec\":{\"activeDeadlineSeconds\":9},\"status\":{"
		  "\"podIP\":\"10.0.0.1\"}}",
		  200,
		  { "\"podIP\":\"10.0.0.1\"", "\"activeDeadlineSeconds\":2" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/s",
		  NULL,
		  "application/merge-patch+json",
		  NULL,
		  "{\"status\":{\"phase\":\"Succeeded\"}}",
		  200,
		  { "\"phase\":\"Running\"" } },
	};
	run_steps(*state, steps, ARRAY_SIZE(steps));
}

static void test_binding(void **state)
{
	static const struct step steps[] = {
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("b1", ""),
		  201,
		  { "\"name\":\"b1\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"g\"},\"spec\":{"
		  "\"schedulingGates\":[{\"name\":\"x\"}],"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
		  201,
		  { "\"name\":\"g\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods/b1/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"b1\",\"uid\":\"nope\"},"
		  "\"target\":{\"name\":\"n1\"}}",
		  409,
		  { "Precondition failed: UID in precondition: nope" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods/b1/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n9\"}}",
		  404,
		  { "nodes \\\"n9\\\" not found" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods/zz/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n1\"}}",
		  404,
		  { "pods \\\"zz\\\" not found" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods/g/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n1\"}}",
		  409,
		  { "pod g has non-empty .spec.schedulingGates" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods/b1/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{"
		  "\"name\":\"b1\"},\"target\":{\"name\":\"n1\"}}",
		  201,
		  { "\"status\":\"Success\"", "\"code\":201" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/b1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"nodeName\":\"n1\"",
		    "{\"type\":\"PodScheduled\",\"status\":\"True\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods/b1/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n2\"}}",
		  409,
		  { "pod b1 is already assigned to node \\\"n1\\\"" } },
		/* The same node again is success, and no write. */
		{ "POST",
		  "/api/v1/namespaces/default/pods/b1/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n1\"}}",
		  201,
		  { "\"Success\"" } },
		/* The legacy path names the pod in the body. */
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("b2", ""),
		  201,
		  { "\"name\":\"b2\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/bindings",
		  NULL,
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"b2\"},\"target\":{\"name\":"
		  "\"n2\"}}",
		  201,
		  { "\"Success\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/b2",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"nodeName\":\"n2\"" } },
		{ "POST",
		  "/api/v1/namespaces/default/bindings",
		  NULL,
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n2\"}}",
		  422,
		  { "metadata.name: Required value" } },
	};
	run_steps(*state, steps, ARRAY_SIZE(steps));
}

static void test_api_bind(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *pod, *uid, *node;
		int rc;
	} cases[] = {
		{ "zz", NULL, "n1", -ENOENT }, { "p", "bad", "n1", -ECANCELED },
		{ "p", NULL, "n9", -ENOENT },  { "p", NULL, "n1", 0 },
		{ "p", NULL, "n1", 0 },	       { "p", NULL, "n2", -EEXIST },
	};
	struct errbuf err;
	json_t *before;

	put(f, API_KIND_POD,
	    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\"},"
	    "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
	before = json_incref(
		api_store_get(f->s, api_kind_at(API_KIND_POD), "default", "p")
			->body);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t rv = api_store_rv(f->s);
		int rc = api_bind(f->s, "default", cases[i].pod, cases[i].uid,
				  cases[i].node, T0, &err);

		if (rc != cases[i].rc)
			fail_msg("case %zu: %d, want %d (%s)", i, rc,
				 cases[i].rc, err.msg);
		/* Only the first successful bind writes. */
		assert_int_equal(api_store_rv(f->s), rv + (i == 3));
	}
	{
		/* The bound version shares its containers with the one
		 * before, which has no node still. */
		const json_t *now =
			api_store_get(f->s, api_kind_at(API_KIND_POD),
				      "default", "p")
				->body;

		assert_ptr_equal(
			json_object_get(json_object_get(now, "spec"),
					"containers"),
			json_object_get(json_object_get(before, "spec"),
					"containers"));
		assert_null(json_object_get(json_object_get(before, "spec"),
					    "nodeName"));
		assert_null(json_object_get(before, "status"));
	}
	json_decref(before);
}

static void test_delete_propagation(void **state)
{
	static const struct step steps[] = {
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("f", ""),
		  201,
		  { "\"name\":\"f\"" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/f",
		  NULL,
		  NULL,
		  NULL,
		  "{\"preconditions\":{\"uid\":\"other\"}}",
		  409,
		  { "Precondition failed: UID in precondition: other" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/f",
		  NULL,
		  NULL,
		  NULL,
		  "{\"preconditions\":{\"resourceVersion\":\"1\"}}",
		  409,
		  { "ResourceVersion in precondition: 1" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/f",
		  NULL,
		  NULL,
		  NULL,
		  "{\"propagationPolicy\":\"Sideways\"}",
		  422,
		  { "supported values: \\\"Foreground\\\"" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/f",
		  NULL,
		  NULL,
		  NULL,
		  "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
		  "\"propagationPolicy\":\"Foreground\"}",
		  202,
		  { "\"finalizers\":[\"foregroundDeletion\"]",
		    "\"deletionTimestamp\":\"2026-12-01T13:00:01Z\"" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/f",
		  "propagationPolicy=Orphan",
		  NULL,
		  NULL,
		  NULL,
		  202,
		  { "\"finalizers\":[\"foregroundDeletion\",\"orphan\"]" } },
		/* Again: nothing changes, nothing is written. */
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/f",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  202,
		  { "\"deletionTimestamp\":\"2026-12-01T13:00:01Z\"" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods/f",
		  "propagationPolicy=Orphan",
		  NULL,
		  NULL,
		  NULL,
		  202,
		  { "\"finalizers\":[\"foregroundDeletion\",\"orphan\"]" } },
		/* Emptying the finalizers removes the object. */
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/f",
		  NULL,
		  "application/merge-patch+json",
		  NULL,
		  "{\"metadata\":{\"finalizers\":null}}",
		  200,
		  { "\"name\":\"f\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods/f",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  404,
		  { "not found" } },
		/* deletecollection with a selector */
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("c1", ",\"labels\":{\"k\":\"v\"}"),
		  201,
		  { "c1" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("c2", ",\"labels\":{\"k\":\"v\"}"),
		  201,
		  { "c2" } },
		{ "POST",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  POD("c3", ""),
		  201,
		  { "c3" } },
		{ "DELETE",
		  "/api/v1/namespaces/default/pods",
		  "labelSelector=k%3Dv",
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"kind\":\"PodList\"", "\"name\":\"c1\"",
		    "\"name\":\"c2\"",
		    "!"
		    "\"name\":\"c3\"" } },
		{ "GET",
		  "/api/v1/namespaces/default/pods",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"name\":\"c3\"", "!"
				       "\"name\":\"c1\"" } },
		{ "DELETE",
		  "/api/v1/pods",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  405,
		  { "\"reason\":\"MethodNotAllowed\"" } },
	};
	run_steps(*state, steps, ARRAY_SIZE(steps));
}

static void test_apply_creates(void **state)
{
	static const struct step steps[] = {
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/ap",
		  NULL,
		  "application/apply-patch+yaml",
		  NULL,
		  "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
		  "\"name\":\"ap\"}}",
		  422,
		  { "fieldManager: Required value" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/ap",
		  "fieldManager=kubectl&force=true",
		  "application/apply-patch+yaml",
		  NULL,
		  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ap\n"
		  "  labels:\n    a: b\nspec:\n  containers:\n  - name: c\n"
		  "    image: i\n",
		  201,
		  { "\"name\":\"ap\"", "\"a\":\"b\"" } },
		{ "PATCH",
		  "/api/v1/namespaces/default/pods/ap",
		  "fieldManager=kubectl",
		  "application/apply-patch+yaml",
		  NULL,
		  "{\"metadata\":{\"labels\":{\"c\":\"d\"}}}",
		  200,
		  { "\"a\":\"b\"", "\"c\":\"d\"" } },
	};
	run_steps(*state, steps, ARRAY_SIZE(steps));
}

/* Watches */

static struct api_watch *watch(struct fixture *f, const char *path,
			       const char *query, const char *accept)
{
	struct api_req r = {
		.method = "GET", .path = path, .query = query, .accept = accept
	};
	struct api_resp resp;
	struct api_watch *w;

	api_handle(f->a, &r, T0, &resp);
	if (resp.code != 200 || !resp.watch)
		fail_msg("watch %s?%s: %d %s", path, query, resp.code,
			 resp.body.buf);
	w = resp.watch;
	resp.watch = NULL;
	api_resp_release(&resp);
	return w;
}

/* The events of one api_watch_next call as "TYPE name" words. */
static int pump(struct api_watch *w, int64_t now_us, char *out, size_t size)
{
	struct strbuf sb;
	int rc;
	const char *p;

	strbuf_init(&sb);
	rc = api_watch_next(w, now_us, &sb);
	out[0] = '\0';
	for (p = sb.buf; *p;) {
		const char *nl = strchr(p, '\n');
		json_t *ev;
		const char *type, *name;
		json_t *obj;
		size_t len = strlen(out);

		assert_non_null(nl);
		ev = json_loadb(p, (size_t)(nl - p), 0, NULL);
		assert_non_null(ev);
		type = json_string_value(json_object_get(ev, "type"));
		obj = json_object_get(ev, "object");
		name = json_string_value(json_object_get(
			json_object_get(obj, "metadata"), "name"));
		if (!strcmp(type, "BOOKMARK"))
			name = json_object_get(
				       json_object_get(
					       json_object_get(obj, "metadata"),
					       "annotations"),
				       "k8s.io/initial-events-end")
				       ? "end"
				       : "-";
		if (!strcmp(type, "ERROR"))
			name = json_string_value(
				json_object_get(obj, "message"));
		if (json_object_get(obj, "rows"))
			name = json_string_value(json_array_get(
				json_object_get(
					json_array_get(
						json_object_get(obj, "rows"),
						0),
					"cells"),
				0));
		snprintf(out + len, size - len, "%s%s %s", len ? ", " : "",
			 type, name ? name : "?");
		json_decref(ev);
		p = nl + 1;
	}
	strbuf_release(&sb);
	return rc;
}

static void pod_label(struct fixture *f, const char *name, const char *v)
{
	const struct api_obj *o =
		api_store_get(f->s, kind(API_KIND_POD), "default", name);
	json_t *b = json_deep_copy(o->body);

	json_object_set_new(json_object_get(b, "metadata"), "labels",
			    json_pack("{s:s}", "app", v));
	assert_int_equal(
		api_store_update(f->s, kind(API_KIND_POD), b, 0, T0, NULL), 0);
}

static void test_watch(void **state)
{
	struct fixture *f = *state;
	char got[1024], q[128];
	struct api_watch *w1, *w0, *wi, *wsel, *wt;
	uint64_t rv;

	put(f, API_KIND_POD,
	    "{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"}}");
	rv = api_store_rv(f->s);
	snprintf(q, sizeof(q), "watch=1&resourceVersion=%" PRIu64, rv);
	w1 = watch(f, "/api/v1/namespaces/default/pods", q, NULL);
	w0 = watch(f, "/api/v1/pods", "watch=true&resourceVersion=0", NULL);
	wi = watch(f, "/api/v1/namespaces/default/pods",
		   "watch=true&sendInitialEvents=true&allowWatchBookmarks=true&"
		   "resourceVersionMatch=NotOlderThan&timeoutSeconds=30",
		   NULL);
	wsel = watch(f, "/api/v1/pods", "watch=True&labelSelector=app%3Dweb",
		     NULL);
	wt = watch(f, "/api/v1/namespaces/default/pods", "watch=true",
		   TABLE_ACCEPT);
	assert_int_equal(api_watch_deadline_us(w1), 0);

	assert_int_equal(pump(w1, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "");
	assert_int_equal(pump(w0, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED a");
	assert_int_equal(pump(wi, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED a, BOOKMARK end");
	assert_int_equal(api_watch_deadline_us(wi), T0 + 30000000);
	assert_int_equal(pump(wsel, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "");
	assert_int_equal(pump(wt, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED a");

	put(f, API_KIND_POD,
	    "{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\"}}");
	put(f, API_KIND_POD,
	    "{\"metadata\":{\"name\":\"o\",\"namespace\":\"team-a\"}}");
	put(f, API_KIND_NODE, "{\"metadata\":{\"name\":\"n7\"}}");
	pod_label(f, "a", "web");
	pod_label(f, "a", "db");
	assert_int_equal(api_store_delete(f->s, kind(API_KIND_POD), "default",
					  "b", 0, T0),
			 0);

	assert_int_equal(pump(w1, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED b, MODIFIED a, MODIFIED a, DELETED b");
	assert_int_equal(pump(w0, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED b, ADDED o, MODIFIED a, MODIFIED a, "
				 "DELETED b");
	/* A selector: matching starts as ADDED, stops as DELETED. */
	assert_int_equal(pump(wsel, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED a, DELETED a");
	/* kubectl get -w: one-row Tables. */
	assert_int_equal(pump(wt, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED b, MODIFIED a, MODIFIED a, DELETED b");

	/* timeoutSeconds ends the watch. */
	assert_int_equal(pump(wi, T0 + 29000000, got, sizeof(got)), 1);
	assert_int_equal(pump(wi, T0 + 30000000, got, sizeof(got)), 0);
	assert_int_equal(api_watch_deadline_us(wi), INT64_MAX);
	api_watch_free(wi);

	/* Beyond the history: one ERROR with a 410 Expired Status. */
	for (int i = 0; i < 80; i++) {
		char body[128];

		snprintf(body, sizeof(body),
			 "{\"metadata\":{\"name\":\"l%d\"}}", i);
		put(f, API_KIND_LEASE, body);
	}
	assert_int_equal(pump(w1, T0, got, sizeof(got)), 0);
	assert_non_null(strstr(got, "ERROR too old resource version: "));
	assert_int_equal(pump(w1, T0, got, sizeof(got)), 0);
	assert_string_equal(got, "");
	snprintf(q, sizeof(q), "watch=1&resourceVersion=%" PRIu64, rv);
	api_watch_free(w1);
	w1 = watch(f, "/api/v1/namespaces/default/pods", q, NULL);
	assert_int_equal(pump(w1, T0, got, sizeof(got)), 0);
	assert_non_null(strstr(got, "ERROR too old resource version"));
	api_watch_free(w1);
	api_watch_free(w0);
	api_watch_free(wsel);
	api_watch_free(wt);
}

static void test_watch_bookmarks_and_batches(void **state)
{
	struct fixture *f = *state;
	struct api_watch *w, *wb;
	struct strbuf sb;
	char got[256];
	size_t lines = 0, calls = 0;
	int rc;

	/* Bookmarks about every minute, when allowed. */
	wb = watch(f, "/api/v1/nodes",
		   "watch=1&allowWatchBookmarks=true&resourceVersion=3", NULL);
	assert_int_equal(pump(wb, T0, got, sizeof(got)), 1);
	assert_string_equal(got, "ADDED n2");
	assert_int_equal(api_watch_deadline_us(wb), T0 + 60000000);
	assert_int_equal(pump(wb, T0 + 59000000, got, sizeof(got)), 1);
	assert_string_equal(got, "");
	assert_int_equal(pump(wb, T0 + 60000000, got, sizeof(got)), 1);
	assert_string_equal(got, "BOOKMARK -");
	assert_int_equal(api_watch_deadline_us(wb), T0 + 120000000);
	api_watch_free(wb);

	for (int i = 0; i < 1500; i++) {
		char body[128];

		snprintf(body, sizeof(body),
			 "{\"metadata\":{\"name\":\"p%04d\",\"namespace\":"
			 "\"default\"}}",
			 i);
		put(f, API_KIND_POD, body);
	}
	/* 1,500 initial events come in bounded batches. */
	w = watch(f, "/api/v1/pods", "watch=1", NULL);
	strbuf_init(&sb);
	do {
		size_t before = sb.len;
		size_t n = 0;

		rc = api_watch_next(w, T0, &sb);
		for (const char *p = sb.buf + before; (p = strchr(p, '\n'));
		     p++)
			n++;
		assert_true(n <= 1000);
		lines += n;
		calls++;
	} while (api_watch_deadline_us(w) == 0 && calls < 10);
	assert_int_equal(rc, 1);
	assert_int_equal(lines, 1500);
	assert_int_equal(calls, 2);
	assert_int_equal(api_watch_deadline_us(w), INT64_MAX);
	strbuf_release(&sb);
	api_watch_free(w);
}

/* Ages in -w Tables run on the embedded clock, whatever the clock the
 * daemon pumps watches with. */
static void test_watch_table_ages(void **state)
{
	struct fixture *f = *state;
	struct api_req r = { .method = "GET",
			     .path = "/api/v1/nodes",
			     .query = "watch=1",
			     .accept = TABLE_ACCEPT };
	struct api_resp resp;
	struct strbuf sb;

	api_handle(f->a, &r, T0 + 3600000000LL, &resp);
	assert_non_null(resp.watch);
	strbuf_init(&sb);
	/* A monotonic clock of 5 s since boot, then 2 minutes later. */
	assert_int_equal(api_watch_next(resp.watch, 5000000, &sb), 1);
	assert_non_null(strstr(sb.buf, "\"60m\""));
	put(f, API_KIND_NODE, "{\"metadata\":{\"name\":\"n5\"}}");
	strbuf_reset(&sb);
	assert_int_equal(api_watch_next(resp.watch, 125000000, &sb), 1);
	assert_non_null(strstr(sb.buf, "\"cells\":[\"n5\""));
	assert_non_null(strstr(sb.buf, "\"62m\""));
	strbuf_release(&sb);
	api_resp_release(&resp);
}

static void test_watch_errors(void **state)
{
	static const struct step steps[] = {
		{ "GET",
		  "/api/v1/pods",
		  "watch=1&resourceVersion=abc",
		  NULL,
		  NULL,
		  NULL,
		  400,
		  { "invalid resource version" } },
		/* strtoull() read it as 2^64 - 1 (fuzz_api) */
		{ "GET",
		  "/api/v1/pods",
		  "watch=1&resourceVersion=-1",
		  NULL,
		  NULL,
		  NULL,
		  400,
		  { "invalid resource version" } },
		{ "GET",
		  "/api/v1/pods",
		  "resourceVersion=-1",
		  NULL,
		  NULL,
		  NULL,
		  400,
		  { "invalid resource version" } },
		{ "GET",
		  "/api/v1/pods",
		  "watch=1&sendInitialEvents=true",
		  NULL,
		  NULL,
		  NULL,
		  422,
		  { "allowWatchBookmarks" } },
	};
	run_steps(*state, steps, ARRAY_SIZE(steps));
}

static void test_views(void **state)
{
	/* Kueue v1beta1 is a view of the stored v1beta2. */
	static const struct step steps[] = {
		{ "POST",
		  "/apis/kueue.x-k8s.io/v1beta1/clusterqueues",
		  NULL,
		  NULL,
		  NULL,
		  "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":"
		  "\"ClusterQueue\",\"metadata\":{\"name\":\"cq\"},\"spec\":{"
		  "\"cohort\":\"all\"}}",
		  201,
		  { "\"apiVersion\":\"kueue.x-k8s.io/v1beta1\"",
		    "\"cohort\":\"all\"" } },
		{ "GET",
		  "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"apiVersion\":\"kueue.x-k8s.io/v1beta2\"",
		    "\"cohortName\":\"all\"" } },
		{ "GET",
		  "/apis/kueue.x-k8s.io/v1beta1/clusterqueues",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"kind\":\"ClusterQueueList\"",
		    "\"apiVersion\":\"kueue.x-k8s.io/v1beta1\"",
		    "\"cohort\":\"all\"", "!cohortName" } },
		/* The view is converted once per object version: a change
		 * shows at once. */
		{ "PATCH",
		  "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq",
		  NULL,
		  "application/merge-patch+json",
		  NULL,
		  "{\"spec\":{\"cohortName\":\"other\"}}",
		  200,
		  { "\"cohortName\":\"other\"" } },
		{ "GET",
		  "/apis/kueue.x-k8s.io/v1beta1/clusterqueues",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"cohort\":\"other\"", "!\"cohort\":\"all\"" } },
		{ "GET",
		  "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "\"cohort\":\"other\"" } },
	};
	run_steps(*state, steps, ARRAY_SIZE(steps));
}

/* ---- server-side defaults ---- */

#define JOB(name, spec, labels)                                                \
	"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"         \
	"\"name\":\"" name "\"},\"spec\":{" spec "\"template\":{"              \
	"\"metadata\":{\"labels\":{" labels "}},\"spec\":{"                    \
	"\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\","         \
	"\"image\":\"i:1\"}]}}}}"
#define JOBS "/apis/batch/v1/namespaces/default/jobs"
#define PODS "/api/v1/namespaces/default/pods"
#define UIDL "batch.kubernetes.io/controller-uid"
#define TL   "spec|template|metadata|labels|"

/* One field of the object read back: its path ('|' between keys and
 * array indexes) and its value as JSON; "$uid" is the object's uid,
 * NULL that the field is absent. */
struct field {
	const char *path, *want;
};

struct defaults_case {
	const char *coll, *name, *body;
	struct field fields[28];
};

static const json_t *at_path(const json_t *v, const char *path)
{
	char key[128];

	while (v && *path) {
		size_t n = strcspn(path, "|");

		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		v = json_is_array(v) ? json_array_get(v, strtoul(key, NULL, 10))
				     : json_object_get(v, key);
		path += n + (path[n] == '|');
	}
	return v;
}

static void check_defaults(struct fixture *f, const struct defaults_case *c)
{
	struct step get = { "GET", NULL, NULL, NULL, NULL, NULL, 200, { 0 } };
	struct step post = { "POST", c->coll, NULL, NULL,
			     NULL,   c->body, 201,  { 0 } };
	const struct step *st[] = { &post, &get };
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", c->coll, c->name);
	get.path = path;
	/* The reply to the create and the object read back agree. */
	for (size_t s = 0; s < ARRAY_SIZE(st); s++) {
		struct api_resp resp;
		json_t *o;
		const char *uid;

		run_step(f, st[s], s, &resp);
		o = json_loads(resp.body.buf, 0, NULL);
		assert_non_null(o);
		uid = json_string_value(at_path(o, "metadata|uid"));
		assert_non_null(uid);
		for (size_t i = 0;
		     i < ARRAY_SIZE(c->fields) && c->fields[i].path; i++) {
			const struct field *fd = &c->fields[i];
			const json_t *got = at_path(o, fd->path);
			json_t *want = NULL;
			char *text;

			if (fd->want && strcmp(fd->want, "$uid") == 0)
				want = json_string(uid);
			else if (fd->want)
				want = json_loads(fd->want, JSON_DECODE_ANY,
						  NULL);
			if (!json_equal(got, want) && (got || want)) {
				text = got ? json_dumps(got, JSON_ENCODE_ANY)
					   : NULL;
				fail_msg("%s %s: %s is %s, want %s", c->name,
					 st[s]->method, fd->path,
					 text ? text : "absent",
					 fd->want ? fd->want : "absent");
			}
			json_decref(want);
		}
		json_decref(o);
		api_resp_release(&resp);
	}
}

/* dryRun=All answers as the write would, refusals included, and stores
 * nothing (every dry step leaves the store's rv as it was). */
static void test_dry_run(void **state)
{
	struct fixture *f = *state;
	static const struct step steps[] = {
		{ "POST", PODS, NULL, NULL, NULL, POD("d1", ""), 201, { 0 } },
		/* A create of a name that exists is refused as without. */
		{ "POST",
		  PODS,
		  "dryRun=All",
		  NULL,
		  NULL,
		  POD("d1", ""),
		  409,
		  { "\"reason\":\"AlreadyExists\"",
		    "pods \\\"d1\\\" already exists" } },
		{ "POST",
		  PODS,
		  "dryRun=All",
		  NULL,
		  NULL,
		  POD("d2", ""),
		  201,
		  { "\"name\":\"d2\"", "\"schedulerName\"" } },
		{ "GET", PODS "/d2", NULL, NULL, NULL, NULL, 404, { 0 } },
		{ "POST",
		  "/api/v1/namespaces/nope/pods",
		  "dryRun=All",
		  NULL,
		  NULL,
		  POD("d2", ""),
		  404,
		  { "namespaces \\\"nope\\\" not found" } },
		/* An update from a stale resourceVersion is a conflict. */
		{ "PUT",
		  PODS "/d1",
		  "dryRun=All",
		  NULL,
		  NULL,
		  POD("d1", ",\"resourceVersion\":\"1\""),
		  409,
		  { "\"reason\":\"Conflict\"", "has been modified" } },
		{ "PUT",
		  PODS "/d1",
		  "dryRun=All",
		  NULL,
		  NULL,
		  POD("d1", ",\"labels\":{\"a\":\"1\"}"),
		  200,
		  { "\"a\":\"1\"" } },
		{ "PATCH",
		  PODS "/d1",
		  "dryRun=All",
		  "application/merge-patch+json",
		  NULL,
		  "{\"metadata\":{\"labels\":{\"b\":\"2\"}}}",
		  200,
		  { "\"b\":\"2\"" } },
		{ "PATCH",
		  PODS "/d4",
		  "dryRun=All&fieldManager=t",
		  "application/apply-patch+yaml",
		  NULL,
		  POD("d4", ""),
		  201,
		  { "\"name\":\"d4\"" } },
		{ "GET", PODS "/d4", NULL, NULL, NULL, NULL, 404, { 0 } },
		{ "GET",
		  PODS "/d1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "!\"labels\"" } },
		{ "DELETE",
		  PODS "/d1",
		  "dryRun=All",
		  NULL,
		  NULL,
		  "{\"preconditions\":{\"uid\":\"nope\"}}",
		  409,
		  { "Precondition failed" } },
		{ "DELETE",
		  PODS "/d1",
		  "dryRun=All",
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { 0 } },
		{ "GET", PODS "/d1", NULL, NULL, NULL, NULL, 200, { 0 } },
		/* A binding is checked as a real one. */
		{ "POST",
		  PODS "/zz/binding",
		  "dryRun=All",
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n1\"}}",
		  404,
		  { "pods \\\"zz\\\" not found" } },
		{ "POST",
		  PODS "/d1/binding",
		  "dryRun=All",
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n9\"}}",
		  404,
		  { "nodes \\\"n9\\\" not found" } },
		{ "POST",
		  PODS "/d1/binding",
		  "dryRun=All",
		  NULL,
		  NULL,
		  "{\"metadata\":{\"name\":\"d1\",\"uid\":\"nope\"},"
		  "\"target\":{\"name\":\"n1\"}}",
		  409,
		  { "Precondition failed: UID in precondition: nope" } },
		{ "POST",
		  PODS "/d1/binding",
		  "dryRun=All",
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n1\"}}",
		  201,
		  { "\"Success\"" } },
		{ "GET",
		  PODS "/d1",
		  NULL,
		  NULL,
		  NULL,
		  NULL,
		  200,
		  { "!\"nodeName\"" } },
		{ "POST",
		  PODS "/d1/binding",
		  NULL,
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n1\"}}",
		  201,
		  { "\"Success\"" } },
		{ "POST",
		  PODS "/d1/binding",
		  "dryRun=All",
		  NULL,
		  NULL,
		  "{\"target\":{\"name\":\"n2\"}}",
		  409,
		  { "pod d1 is already assigned to node \\\"n1\\\"" } },
		{ "POST",
		  PODS,
		  "dryRun=Some",
		  NULL,
		  NULL,
		  POD("d5", ""),
		  400,
		  { "dryRun: unsupported value" } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		uint64_t rv = api_store_rv(f->s);
		struct api_resp resp;

		run_step(f, &steps[i], i, &resp);
		api_resp_release(&resp);
		if (steps[i].query && strstr(steps[i].query, "dryRun"))
			assert_int_equal(api_store_rv(f->s), rv);
	}
}

static void test_defaults(void **state)
{
	static const struct defaults_case cases[] = {
		{ JOBS,
		  "j-bare",
		  JOB("j-bare", "", "\"app\":\"a\""),
		  { { "spec|selector|matchLabels|" UIDL, "$uid" },
		    { "spec|selector|matchLabels|app", NULL },
		    { TL UIDL, "$uid" },
		    { TL "controller-uid", "$uid" },
		    { TL "batch.kubernetes.io/job-name", "\"j-bare\"" },
		    { TL "job-name", "\"j-bare\"" },
		    { TL "app", "\"a\"" },
		    { "spec|parallelism", "1" },
		    { "spec|completions", "1" },
		    { "spec|backoffLimit", "6" },
		    { "spec|completionMode", "\"NonIndexed\"" },
		    { "spec|suspend", "false" },
		    { "spec|podReplacementPolicy", "\"TerminatingOrFailed\"" },
		    { "spec|manualSelector", NULL },
		    /* the template is defaulted as a Pod's spec */
		    { "spec|template|spec|restartPolicy", "\"Never\"" },
		    { "spec|template|spec|dnsPolicy", "\"ClusterFirst\"" },
		    { "spec|template|spec|schedulerName",
		      "\"default-scheduler\"" },
		    { "spec|template|spec|terminationGracePeriodSeconds",
		      "30" },
		    { "spec|template|spec|securityContext", "{}" },
		    { "spec|template|spec|containers|0|imagePullPolicy",
		      "\"IfNotPresent\"" },
		    { "spec|template|spec|containers|0|terminationMessagePath",
		      "\"/dev/termination-log\"" },
		    { "spec|template|spec|containers|0|"
		      "terminationMessagePolicy",
		      "\"File\"" },
		    /* but gets none of a Pod's own */
		    { "spec|template|spec|priority", NULL },
		    { "spec|template|spec|enableServiceLinks", NULL } } },
		{ JOBS,
		  "j-set",
		  JOB("j-set",
		      "\"parallelism\":4,\"backoffLimit\":0,"
		      "\"completionMode\":\"Indexed\",\"suspend\":true,"
		      "\"podFailurePolicy\":{\"rules\":[]},",
		      "\"job-name\":\"mine\""),
		  { { "spec|parallelism", "4" },
		    { "spec|completions", NULL },
		    { "spec|backoffLimit", "0" },
		    { "spec|completionMode", "\"Indexed\"" },
		    { "spec|suspend", "true" },
		    { "spec|podReplacementPolicy", "\"Failed\"" },
		    { TL "job-name", "\"mine\"" },
		    { TL "batch.kubernetes.io/job-name", "\"j-set\"" },
		    { "spec|selector|matchLabels|" UIDL, "$uid" } } },
		{ JOBS,
		  "j-comp",
		  JOB("j-comp",
		      "\"completions\":3,\"backoffLimitPerIndex\":1,"
		      "\"completionMode\":\"Indexed\","
		      "\"podReplacementPolicy\":\"Failed\",",
		      ""),
		  { { "spec|parallelism", "1" },
		    { "spec|completions", "3" },
		    { "spec|backoffLimit", "2147483647" },
		    { "spec|podReplacementPolicy", "\"Failed\"" } } },
		{ JOBS,
		  "j-manual",
		  JOB("j-manual",
		      "\"manualSelector\":true,\"selector\":{\"matchLabels\":"
		      "{\"app\":\"m\"}},",
		      "\"app\":\"m\""),
		  { { "spec|selector", "{\"matchLabels\":{\"app\":\"m\"}}" },
		    { "spec|template|metadata|labels", "{\"app\":\"m\"}" },
		    { "spec|parallelism", "1" } } },
		{ PODS,
		  "p-bare",
		  "{\"metadata\":{\"name\":\"p-bare\"},\"spec\":{"
		  "\"initContainers\":[{\"name\":\"i\",\"image\":\"busybox\"}],"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"r:5000/x/y\"},"
		  "{\"name\":\"d\",\"image\":\"y:latest\"},"
		  "{\"name\":\"e\",\"image\":\"r:5000/y:1.2\"},"
		  "{\"name\":\"f\",\"image\":\"y@sha256:ab\"},"
		  "{\"name\":\"g\",\"image\":\"y:latest@sha256:ab\"}]}}",
		  { { "spec|restartPolicy", "\"Always\"" },
		    { "spec|schedulerName", "\"default-scheduler\"" },
		    { "spec|terminationGracePeriodSeconds", "30" },
		    { "spec|securityContext", "{}" },
		    { "spec|dnsPolicy", "\"ClusterFirst\"" },
		    { "spec|priority", "0" },
		    { "spec|enableServiceLinks", "true" },
		    { "spec|initContainers|0|imagePullPolicy", "\"Always\"" },
		    { "spec|initContainers|0|terminationMessagePath",
		      "\"/dev/termination-log\"" },
		    { "spec|containers|0|terminationMessagePath",
		      "\"/dev/termination-log\"" },
		    { "spec|containers|0|terminationMessagePolicy",
		      "\"File\"" },
		    { "spec|containers|0|imagePullPolicy", "\"Always\"" },
		    { "spec|containers|1|imagePullPolicy", "\"Always\"" },
		    { "spec|containers|2|imagePullPolicy", "\"IfNotPresent\"" },
		    { "spec|containers|3|imagePullPolicy", "\"IfNotPresent\"" },
		    { "spec|containers|4|imagePullPolicy", "\"Always\"" } } },
		{ PODS,
		  "p-set",
		  "{\"metadata\":{\"name\":\"p-set\"},\"spec\":{"
		  "\"restartPolicy\":\"Never\",\"schedulerName\":\"echelon\","
		  "\"terminationGracePeriodSeconds\":0,\"dnsPolicy\":\"None\","
		  "\"priorityClassName\":\"high\",\"enableServiceLinks\":false,"
		  "\"containers\":[{\"name\":\"c\",\"image\":\"x\","
		  "\"imagePullPolicy\":\"Never\",\"terminationMessagePath\":"
		  "\"/tmp/t\",\"terminationMessagePolicy\":"
		  "\"FallbackToLogsOnError\"}]}}",
		  { { "spec|restartPolicy", "\"Never\"" },
		    { "spec|schedulerName", "\"echelon\"" },
		    { "spec|terminationGracePeriodSeconds", "0" },
		    { "spec|dnsPolicy", "\"None\"" },
		    { "spec|priority", NULL },
		    { "spec|enableServiceLinks", "false" },
		    { "spec|containers|0|imagePullPolicy", "\"Never\"" },
		    { "spec|containers|0|terminationMessagePath",
		      "\"/tmp/t\"" },
		    { "spec|containers|0|terminationMessagePolicy",
		      "\"FallbackToLogsOnError\"" } } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_defaults(*state, &cases[i]);
}

/* Updates fill the defaults too, and compare with the stored object's
 * own: an object stored before it had them may still be written. */
static void test_defaults_update(void **state)
{
	struct fixture *f = *state;
	static const struct step steps[] = {
		{ "PUT",
		  "/api/v1/namespaces/default/pods/old",
		  NULL,
		  NULL,
		  NULL,
		  POD("old",
		      ",\"namespace\":\"default\",\"labels\":{\"a\":\"b\"}"),
		  200,
		  { "\"a\":\"b\"", "\"dnsPolicy\":\"ClusterFirst\"",
		    "\"imagePullPolicy\":\"Always\"" } },
		{ "PUT",
		  "/apis/batch/v1/namespaces/default/jobs/oldj",
		  NULL,
		  NULL,
		  NULL,
		  JOB("oldj", "\"parallelism\":2,", ""),
		  200,
		  { "\"backoffLimit\":6", "\"completionMode\":\"NonIndexed\"",
		    "!controller-uid" } },
	};

	put(f, API_KIND_POD,
	    "{\"metadata\":{\"name\":\"old\",\"namespace\":\"default\"},"
	    "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}");
	put(f, API_KIND_JOB,
	    "{\"metadata\":{\"name\":\"oldj\",\"namespace\":\"default\"},"
	    "\"spec\":{\"parallelism\":1,\"template\":{\"metadata\":{"
	    "\"labels\":{}},"
	    "\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{"
	    "\"name\":\"c\",\"image\":\"i:1\"}]}}}}");
	run_steps(f, steps, ARRAY_SIZE(steps));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_discovery, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_crud, setup, teardown),
		cmocka_unit_test_setup_teardown(test_body_limit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_validation, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_list_and_pages, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_rows_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_table_meta_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_status_subresource, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_binding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_api_bind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete_propagation, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_apply_creates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_watch, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_watch_bookmarks_and_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_table_ages, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_watch_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dry_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_defaults_update, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

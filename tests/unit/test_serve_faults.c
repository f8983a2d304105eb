// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the fault plan of `echelon serve --faults`: the SPEC grammar
 * and its error messages, the request classes, seeded draws (repeatable,
 * at the asked rates, within the asked codes and event counts), the
 * Status bodies of injected replies, the binding log line and the
 * metrics.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/strbuf.h"
#include "serve/serve_faults.h"

static struct serve_faults *parse_ok(const char *spec)
{
	struct serve_faults *f = NULL;
	struct errbuf err;

	if (serve_faults_parse(spec, &f, &err) < 0)
		fail_msg("%s: %s", spec, err.msg);
	return f;
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{ "", "empty; expected items" },
		{ "bind=0.1:409,", "an empty item" },
		{ "seed=1,,drop=0.1", "an empty item" },
		{ "bind", "item \"bind\": expected KEY=VALUE" },
		{ "=0.1", "item \"=0.1\": expected KEY=VALUE" },
		{ "bind=1.5:409", "item \"bind=1.5:409\": the probability must "
				  "be a number from 0 to 1" },
		{ "bind=-0.1:409", "the probability must be" },
		{ "bind=nan:409", "the probability must be" },
		{ "bind=1e-3:409", "the probability must be" },
		{ "bind=0.1", "item \"bind=0.1\": expected CLASS=P:CODE" },
		{ "bind=0.1:418",
		  "item \"bind=0.1:418\": a code must be one of "
		  "404, 409, 429, 500, 503, 504" },
		{ "status=0.1:409|", "a code must be one of" },
		{ "write=0.1:409||500", "a code must be one of" },
		{ "read=0.1:1|2|3|4|5|6|7|8|9", "a code must be one of" },
		{ "read=0.1:404|404|404|404|404|404|404|404|404",
		  "at most 8 codes" },
		{ "bind=0.1:409,bind=0.2:500",
		  "item \"bind=0.2:500\": given twice" },
		{ "seed=x",
		  "item \"seed=x\": the seed must be a whole number" },
		{ "seed=18446744073709551616", "the seed must be" },
		{ "seed=1,seed=2", "item \"seed=2\": given twice" },
		{ "drop=0.1:x", "item \"drop=0.1:x\": the number of events" },
		{ "watch410=2", "the probability must be" },
		{ "slow=0.1", "item \"slow=0.1\": expected slow=P:MS" },
		{ "slow=0.1:600001", "expected slow=P:MS" },
		{ "slow=0.1:200,slow=0.2:100", "given twice" },
		{ "bindings=0.1:409", "item \"bindings=0.1:409\": unknown; "
				      "expected seed, bind" },
		{ "slow=0.1:100:bogus", "item \"slow=0.1:100:bogus\": a class "
					"must be one of bind, status" },
		{ "drop=0.1:2:bind|", "a class must be one of" },
		{ "drop=0.1:", "the number of events must be" },
		{ "watch410=0.1:3:watch", "expected watch410=P[:N]" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct serve_faults *f = NULL;
		struct errbuf err;
		int rc = serve_faults_parse(cases[i].spec, &f, &err);

		if (rc != -EINVAL || !strstr(err.msg, cases[i].msg))
			fail_msg("\"%s\": rc %d, \"%s\", want \"%s\"",
				 cases[i].spec, rc, rc ? err.msg : "",
				 cases[i].msg);
		assert_null(f);
	}
}

static void test_parse_ok(void **state)
{
	static const char *const specs[] = {
		"seed=7",
		("seed=7,bind=0.1:409|404|429|500,status=0.05:500|409,"
		 "watch410=0.02,drop=0.01,slow=0.05:200"),
		"bind=1:503|504,write=0:409,read=0.5:404,watch=0.25:500",
		"watch410=1:0,drop=0.5:3,slow=1:0",
		"drop=0.5::bind|status,slow=0.5:10:read|watch|write",
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
		serve_faults_free(parse_ok(specs[i]));
	serve_faults_free(NULL);
}

static void test_classify(void **state)
{
	static const struct {
		const char *method, *path, *query;
		enum serve_fault_class want;
	} cases[] = {
		{ "POST", "/api/v1/namespaces/ns/pods/p/binding", NULL,
		  SERVE_FAULT_BIND },
		{ "POST", "/api/v1/namespaces/ns/bindings", NULL,
		  SERVE_FAULT_BIND },
		{ "POST", "/api/v1/namespaces/ns/pods", NULL,
		  SERVE_FAULT_WRITE },
		{ "GET", "/api/v1/namespaces/ns/pods/p/binding", NULL,
		  SERVE_FAULT_READ },
		{ "PUT", "/api/v1/namespaces/ns/pods/p/status", NULL,
		  SERVE_FAULT_STATUS },
		{ "PATCH",
		  "/apis/kueue.x-k8s.io/v1beta1/namespaces/ns/workloads/w/"
		  "status",
		  NULL, SERVE_FAULT_STATUS },
		{ "PUT", "/api/v1/namespaces/ns/status", NULL,
		  SERVE_FAULT_STATUS },
		{ "PATCH", "/apis/batch/v1/namespaces/ns/jobs/j", NULL,
		  SERVE_FAULT_WRITE },
		{ "DELETE", "/api/v1/namespaces/ns/pods/p", NULL,
		  SERVE_FAULT_WRITE },
		{ "POST", "/api/v1/namespaces/ns/pods/p/status", NULL,
		  SERVE_FAULT_WRITE },
		{ "PUT",
		  "/apis/coordination.k8s.io/v1/namespaces/kube-system/"
		  "leases/echelon",
		  NULL, SERVE_FAULT_WRITE },
		{ "GET", "/api/v1/pods", "watch=true&resourceVersion=5",
		  SERVE_FAULT_WATCH },
		{ "GET", "/api/v1/pods", "resourceVersion=5&watch=1",
		  SERVE_FAULT_WATCH },
		{ "GET", "/api/v1/pods", "watch=false", SERVE_FAULT_READ },
		{ "GET", "/api/v1/pods", "watchy=true", SERVE_FAULT_READ },
		{ "GET", "/api/v1/pods", NULL, SERVE_FAULT_READ },
		{ "GET", "/version", NULL, SERVE_FAULT_READ },
		{ "POST", "/version", NULL, SERVE_FAULT_WRITE },
		{ "POST", "/api/v1/namespaces/ns/pods/p/binding/x", NULL,
		  SERVE_FAULT_WRITE },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum serve_fault_class c = serve_faults_classify(
			cases[i].method, cases[i].path, cases[i].query);

		if (c != cases[i].want)
			fail_msg("%s %s?%s: %s, want %s", cases[i].method,
				 cases[i].path,
				 cases[i].query ? cases[i].query : "",
				 serve_faults_class_name(c),
				 serve_faults_class_name(cases[i].want));
	}
}

/* Draw n faults of class c; the counts by kind into count[], and check
 * what each fault carries. */
static void draw_n(struct serve_faults *f, enum serve_fault_class c, int n,
		   unsigned count[5], unsigned max_events, int64_t delay_us,
		   const int *codes, size_t ncodes)
{
	for (int i = 0; i < n; i++) {
		struct serve_fault d;
		bool known = false;

		serve_faults_draw(f, c, &d);
		count[d.kind]++;
		switch (d.kind) {
		case SERVE_FAULT_REPLY:
			for (size_t k = 0; k < ncodes; k++)
				known |= d.code == codes[k];
			assert_true(known);
			break;
		case SERVE_FAULT_DROP:
		case SERVE_FAULT_EXPIRE:
			assert_true(d.events <= max_events);
			if (c != SERVE_FAULT_WATCH)
				assert_int_equal(d.events, 0);
			break;
		case SERVE_FAULT_SLOW:
			assert_int_equal(d.delay_us, delay_us);
			break;
		case SERVE_FAULT_NONE:
			break;
		}
	}
}

/* Rates as asked, within a few standard deviations of 10,000 draws. */
static void test_draw_rates(void **state)
{
	static const int bind_codes[] = { 409, 500 };
	struct serve_faults *f =
		parse_ok("seed=3,bind=0.3:409|500,drop=0.1,slow=0.5:250");
	unsigned count[5] = { 0 };

	(void)state;
	draw_n(f, SERVE_FAULT_BIND, 10000, count, 0, 250000, bind_codes, 2);
	/* drop 0.1; reply 0.9 * 0.3 = 0.27; slow 0.9 * 0.7 * 0.5 = 0.315 */
	assert_in_range(count[SERVE_FAULT_DROP], 900, 1100);
	assert_in_range(count[SERVE_FAULT_REPLY], 2550, 2850);
	assert_in_range(count[SERVE_FAULT_SLOW], 3000, 3300);
	assert_int_equal(count[SERVE_FAULT_EXPIRE], 0);
	/* A class without codes gets only drops and delays. */
	memset(count, 0, sizeof(count));
	draw_n(f, SERVE_FAULT_READ, 1000, count, 0, 250000, NULL, 0);
	assert_int_equal(count[SERVE_FAULT_REPLY], 0);
	assert_true(count[SERVE_FAULT_DROP] > 0);
	serve_faults_free(f);
}

static void test_draw_watch(void **state)
{
	struct serve_faults *f = parse_ok("watch410=1:4");
	struct serve_faults *g = parse_ok("drop=1:2,watch410=1");
	unsigned count[5] = { 0 }, seen[5] = { 0 };

	(void)state;
	for (int i = 0; i < 500; i++) {
		struct serve_fault d;

		serve_faults_draw(f, SERVE_FAULT_WATCH, &d);
		assert_int_equal(d.kind, SERVE_FAULT_EXPIRE);
		assert_true(d.events <= 4);
		seen[d.events]++;
	}
	for (int e = 0; e <= 4; e++) /* every count from 0 to N occurs */
		assert_true(seen[e] > 50);
	/* watch410 is for watches only */
	draw_n(f, SERVE_FAULT_READ, 100, count, 0, 0, NULL, 0);
	assert_int_equal(count[SERVE_FAULT_NONE], 100);
	/* drop comes first */
	memset(count, 0, sizeof(count));
	draw_n(g, SERVE_FAULT_WATCH, 100, count, 2, 0, NULL, 0);
	assert_int_equal(count[SERVE_FAULT_DROP], 100);
	serve_faults_free(f);
	serve_faults_free(g);
}

/* drop and slow limited to classes hit only those. */
static void test_draw_classes(void **state)
{
	struct serve_faults *f = parse_ok("drop=1:4:bind|watch,slow=1:7:read");
	struct strbuf sb;

	(void)state;
	for (int c = 0; c < SERVE_FAULT_CLASS_COUNT; c++) {
		struct serve_fault d;
		enum serve_fault_kind want =
			c == SERVE_FAULT_BIND || c == SERVE_FAULT_WATCH
				? SERVE_FAULT_DROP
			: c == SERVE_FAULT_READ ? SERVE_FAULT_SLOW
						: SERVE_FAULT_NONE;

		serve_faults_draw(f, (enum serve_fault_class)c, &d);
		if (d.kind != want)
			fail_msg("%s: kind %d, want %d",
				 serve_faults_class_name(
					 (enum serve_fault_class)c),
				 d.kind, want);
	}
	strbuf_init(&sb);
	serve_faults_metrics(f, &sb);
	assert_non_null(strstr(sb.buf, "{class=\"bind\",code=\"drop\"} 1\n"));
	assert_non_null(strstr(sb.buf, "{class=\"read\",code=\"slow\"} 1\n"));
	assert_null(strstr(sb.buf, "{class=\"status\",code=\"drop\"}"));
	assert_null(strstr(sb.buf, "{class=\"bind\",code=\"slow\"}"));
	strbuf_release(&sb);
	serve_faults_free(f);
}

/* One seed gives one sequence; another seed another. */
static void test_draw_seeded(void **state)
{
	const char *spec = "seed=%d,bind=0.5:404|409|429|500,watch410=0.5,"
			   "drop=0.2:7,slow=0.5:10";
	char s1[128], s2[128];
	struct serve_faults *a, *b, *c;
	int differ = 0;

	(void)state;
	snprintf(s1, sizeof(s1), spec, 7);
	snprintf(s2, sizeof(s2), spec, 8);
	a = parse_ok(s1);
	b = parse_ok(s1);
	c = parse_ok(s2);
	for (int i = 0; i < 200; i++) {
		enum serve_fault_class k =
			(enum serve_fault_class)(i % SERVE_FAULT_CLASS_COUNT);
		struct serve_fault x, y, z;

		serve_faults_draw(a, k, &x);
		serve_faults_draw(b, k, &y);
		serve_faults_draw(c, k, &z);
		assert_memory_equal(&x, &y, sizeof(x));
		differ += x.kind != z.kind || x.code != z.code;
	}
	assert_true(differ > 20);
	serve_faults_free(a);
	serve_faults_free(b);
	serve_faults_free(c);
}

static void test_status(void **state)
{
	static const struct {
		int code;
		const char *path, *reason, *message, *name, *kind;
	} cases[] = {
		{ 409, "/api/v1/namespaces/ns/pods/p1/binding", "Conflict",
		  "Operation cannot be fulfilled on pods/binding \"p1\": the "
		  "object has been modified; please apply your changes to the "
		  "latest version and try again (injected by --faults)",
		  "p1", "pods" },
		{ 404, "/apis/batch/v1/namespaces/ns/jobs/j/status", "NotFound",
		  "jobs/status \"j\" not found (injected by --faults)", "j",
		  "jobs" },
		{ 404, "/api/v1/namespaces/ns/bindings", "NotFound",
		  "the server could not find the requested resource "
		  "(injected by --faults)",
		  NULL, "bindings" },
		{ 429, "/api/v1/pods", "TooManyRequests",
		  "Too many requests, please try again later. (injected by "
		  "--faults)",
		  NULL, "pods" },
		{ 500, "/version", "InternalError",
		  "Internal error occurred (injected by --faults)", NULL,
		  NULL },
		{ 503, "/api/v1/nodes/n", "ServiceUnavailable",
		  "the server is currently unable to handle the request "
		  "(injected by --faults)",
		  "n", "nodes" },
		{ 504, "/api/v1/nodes", "Timeout",
		  "Timeout: request did not complete within the allotted "
		  "timeout (injected by --faults)",
		  NULL, "nodes" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb;
		json_t *st, *details;
		json_error_t je;
		const char *reason;

		strbuf_init(&sb);
		reason = serve_faults_status(cases[i].code, cases[i].path, &sb);
		assert_string_equal(reason, cases[i].reason);
		st = json_loads(sb.buf, 0, &je);
		if (!st)
			fail_msg("%s: %s", sb.buf, je.text);
		assert_string_equal(
			json_string_value(json_object_get(st, "kind")),
			"Status");
		assert_string_equal(
			json_string_value(json_object_get(st, "status")),
			"Failure");
		assert_string_equal(
			json_string_value(json_object_get(st, "reason")),
			cases[i].reason);
		assert_string_equal(
			json_string_value(json_object_get(st, "message")),
			cases[i].message);
		assert_int_equal(
			json_integer_value(json_object_get(st, "code")),
			cases[i].code);
		details = json_object_get(st, "details");
		assert_non_null(details);
		if (cases[i].name)
			assert_string_equal(json_string_value(json_object_get(
						    details, "name")),
					    cases[i].name);
		else
			assert_null(json_object_get(details, "name"));
		if (cases[i].kind)
			assert_string_equal(json_string_value(json_object_get(
						    details, "kind")),
					    cases[i].kind);
		if (cases[i].code == 429)
			assert_int_equal(json_integer_value(json_object_get(
						 details, "retryAfterSeconds")),
					 1);
		json_decref(st);
		strbuf_release(&sb);
	}
}

static void test_expired(void **state)
{
	struct strbuf sb;
	json_t *ev, *obj;

	(void)state;
	strbuf_init(&sb);
	serve_faults_expired(&sb);
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	assert_null(memchr(sb.buf, '\n', sb.len - 1)); /* one line */
	ev = json_loads(sb.buf, 0, NULL);
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "type")),
			    "ERROR");
	obj = json_object_get(ev, "object");
	assert_string_equal(json_string_value(json_object_get(obj, "reason")),
			    "Expired");
	assert_int_equal(json_integer_value(json_object_get(obj, "code")), 410);
	json_decref(ev);
	strbuf_release(&sb);
}

static void test_binding_line(void **state)
{
	static const struct {
		const char *path, *body, *want;
	} cases[] = {
		{ "/api/v1/namespaces/ns/pods/p1/binding",
		  "{\"metadata\":{\"name\":\"p1\",\"uid\":\"u-1\"},"
		  "\"target\":{\"kind\":\"Node\",\"name\":\"n3\"}}",
		  "pod=ns/p1 node=n3 uid=u-1" },
		{ "/api/v1/namespaces/ns/bindings",
		  "{\"metadata\":{\"name\":\"p2\"},\"target\":{\"name\":"
		  "\"n4\"}}",
		  "pod=ns/p2 node=n4 uid=-" },
		{ "/api/v1/namespaces/ns/pods/p3/binding", "not json",
		  "pod=ns/p3 node=- uid=-" },
		{ "/api/v1/namespaces/ns/pods/p4/binding", NULL,
		  "pod=ns/p4 node=- uid=-" },
		{ "/api/v1/namespaces/ns/pods/p5/binding",
		  "{\"target\":{\"name\":\"a b\\n=c\"}}",
		  "pod=ns/p5 node=a?b??c uid=-" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb;

		strbuf_init(&sb);
		serve_faults_binding(cases[i].path, cases[i].body,
				     cases[i].body ? strlen(cases[i].body) : 0,
				     &sb);
		assert_string_equal(sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

static void test_metrics(void **state)
{
	struct serve_faults *f =
		parse_ok("bind=1:409,watch410=1:0,drop=0,slow=0:5");
	struct strbuf sb;
	struct serve_fault d;

	(void)state;
	serve_faults_draw(f, SERVE_FAULT_BIND, &d);
	serve_faults_draw(f, SERVE_FAULT_BIND, &d);
	serve_faults_draw(f, SERVE_FAULT_WATCH, &d);
	serve_faults_count_binding(f);
	strbuf_init(&sb);
	serve_faults_metrics(f, &sb);
	assert_non_null(strstr(sb.buf, "# TYPE echelon_faults_injected_total "
				       "counter\n"));
	assert_non_null(strstr(sb.buf, "echelon_faults_injected_total{class="
				       "\"bind\",code=\"409\"} 2\n"));
	assert_non_null(strstr(sb.buf, "echelon_faults_injected_total{class="
				       "\"watch\",code=\"410\"} 1\n"));
	assert_non_null(strstr(sb.buf, "echelon_faults_injected_total{class="
				       "\"read\",code=\"drop\"} 0\n"));
	assert_non_null(strstr(sb.buf, "echelon_faults_injected_total{class="
				       "\"status\",code=\"slow\"} 0\n"));
	/* 410 only for watches, codes only where configured */
	assert_null(strstr(sb.buf, "class=\"bind\",code=\"410\""));
	assert_null(strstr(sb.buf, "class=\"status\",code=\"409\""));
	assert_non_null(strstr(sb.buf, "echelon_faults_bindings_total 1\n"));
	strbuf_release(&sb);
	serve_faults_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_draw_rates),
		cmocka_unit_test(test_draw_watch),
		cmocka_unit_test(test_draw_classes),
		cmocka_unit_test(test_draw_seeded),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_expired),
		cmocka_unit_test(test_binding_line),
		cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

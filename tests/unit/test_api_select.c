// SPDX-License-Identifier: Apache-2.0
/*
 * Label and field selectors: every operator of the label grammar, the
 * fields each kind indexes, escapes, and precise errors for bad input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/api_select.h"
#include "base/strbuf.h"

#include "base/banned.h"

/* Pods named a to e. */
static const char *const pods[] = {
	"{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"labels\":{"
	"\"app\":\"web\",\"tier\":\"front\",\"n\":\"5\"}},\"spec\":{"
	"\"nodeName\":\"n1\",\"schedulerName\":\"echelon\"},\"status\":{"
	"\"phase\":\"Running\"}}",
	"{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\",\"labels\":{"
	"\"app\":\"db\",\"tier\":\"back\",\"n\":\"12\"}},\"status\":{"
	"\"phase\":\"Pending\"}}",
	"{\"metadata\":{\"name\":\"c\",\"namespace\":\"default\",\"labels\":{"
	"\"app\":\"web\"}},\"spec\":{\"nodeName\":\"n2\",\"hostNetwork\":true},"
	"\"status\":{\"phase\":\"Succeeded\"}}",
	"{\"metadata\":{\"name\":\"d\",\"namespace\":\"kube-system\"},"
	"\"status\":{\"phase\":\"Failed\"}}",
	"{\"metadata\":{\"name\":\"e\",\"namespace\":\"default\",\"labels\":{"
	"\"example.com/gpu\":\"\",\"app\":\"batch\"}},\"spec\":{\"nodeName\":"
	"\"\"},\"status\":{\"phase\":\"Pending\"}}",
};

struct select_case {
	const char *labels, *fields;
	const char *want; /* names of the pods that match, or an error */
};

static const struct select_case cases[] = {
	{ NULL, NULL, "abcde" },
	{ "", "", "abcde" },
	{ "app=web", NULL, "ac" },
	{ "app==web", NULL, "ac" },
	{ "app!=web", NULL, "bde" },
	{ "app in (web, db)", NULL,
	  "ab"
	  "c" },
	{ "app notin (web)", NULL, "bde" },
	{ "tier", NULL, "ab" },
	{ "!tier", NULL, "cde" },
	{ "app=web,tier=front", NULL, "a" },
	{ "n>6", NULL, "b" },
	{ "n<6", NULL, "a" },
	{ " app = web , ! tier ", NULL, "c" },
	{ "example.com/gpu", NULL, "e" },
	{ "example.com/gpu=", NULL, "e" },
	{ "app=", NULL, "" },
	{ "app in (web,)", NULL, "ac" },
	{ NULL, "spec.nodeName=", "bde" },
	{ NULL, "status.phase!=Succeeded,status.phase!=Failed", "abe" },
	{ NULL, "metadata.name=a", "a" },
	{ NULL, "metadata.name==a,", "a" },
	{ NULL, "metadata.namespace=kube-system", "d" },
	{ NULL, "spec.hostNetwork=true", "c" },
	{ NULL, "spec.schedulerName==echelon", "a" },
	{ NULL, "metadata.name=a\\,b", "" },
	{ NULL, ",,metadata.name!=b", "acde" },
	{ "app=web", "status.phase=Running", "a" },
	/* Errors name the selector and the character at fault. */
	{ "app in ()", NULL,
	  "error labelSelector: at character 9: the set of values is empty" },
	{ "app in (a", NULL,
	  "error labelSelector: at character 10: expected ',' or ')' in the "
	  "set of values" },
	{ "app=web,", NULL,
	  "error labelSelector: at character 9: expected a label key" },
	{ ",app", NULL,
	  "error labelSelector: at character 1: expected a label key" },
	{ "a b", NULL,
	  "error labelSelector: at character 3: expected =, ==, !=, in, "
	  "notin, <, > or ','" },
	{ "app=we b", NULL,
	  "error labelSelector: at character 8: expected ',' or the end" },
	{ "-bad=1", NULL,
	  "error labelSelector: at character 1: invalid key: name part must "
	  "consist of" },
	{ "app=-x", NULL,
	  "error labelSelector: at character 5: invalid value: " },
	{ "app in a", NULL,
	  "error labelSelector: at character 8: expected '(' after in or "
	  "notin" },
	{ "!", NULL, "error labelSelector: at character 2: expected a label" },
	{ "!a=b", NULL,
	  "error labelSelector: at character 3: expected ',' or the end after "
	  "!key" },
	{ "app=web)", NULL,
	  "error labelSelector: at character 8: expected ',' or the end" },
	{ "n>x", NULL,
	  "error labelSelector: at character 3: \"x\" is not an integer" },
	{ NULL, "spec.foo=x",
	  "error fieldSelector: field label not supported for pods: "
	  "\"spec.foo\"" },
	{ NULL, "status.phase",
	  "error fieldSelector: \"status.phase\" is not field=value" },
	{ NULL, "metadata.name=a\\x",
	  "error fieldSelector: invalid escape in the value of metadata.name, "
	  "\"a\\x\": only \\\\, \\, and \\= are allowed" },
	{ NULL, "metadata.name=a\\", "error fieldSelector: invalid escape" },
};

static void run_case(size_t i, const struct select_case *c)
{
	const struct api_kind *k = api_kind_at(API_KIND_POD);
	struct errbuf err = { "" };
	struct api_select *sel = NULL;
	struct strbuf got;
	int rc = api_select_parse(k, c->labels, c->fields, &sel, &err);

	strbuf_init(&got);
	if (rc < 0) {
		assert_int_equal(rc, -EINVAL);
		strbuf_addf(&got, "error %s", err.msg);
		if (strncmp(got.buf, c->want, strlen(c->want)) != 0)
			fail_msg("case %zu: got \"%s\", want \"%s\"", i,
				 got.buf, c->want);
		strbuf_release(&got);
		return;
	}
	for (size_t p = 0; p < ARRAY_SIZE(pods); p++) {
		json_t *obj = json_loads(pods[p], 0, NULL);

		assert_non_null(obj);
		if (api_select_match(sel, obj))
			strbuf_addch(&got, (char)('a' + p));
		json_decref(obj);
	}
	if (strcmp(got.buf, c->want) != 0)
		fail_msg("case %zu: matched \"%s\", want \"%s\"", i, got.buf,
			 c->want);
	strbuf_release(&got);
	api_select_free(sel);
}

static void test_pods(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(i, &cases[i]);
}

struct kind_case {
	enum api_kind_id kind;
	const char *fields, *obj;
	int want; /* 1 match, 0 no match, -1 parse error */
};

static const struct kind_case kind_cases[] = {
	{ API_KIND_EVENT,
	  "involvedObject.name=p,involvedObject.kind=Pod,"
	  "involvedObject.namespace=default,involvedObject.uid=u1",
	  "{\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"p\",\"namespace\":"
	  "\"default\",\"uid\":\"u1\"}}",
	  1 },
	{ API_KIND_EVENT, "involvedObject.name=q",
	  "{\"involvedObject\":{\"name\":\"p\"}}", 0 },
	{ API_KIND_EVENT, "source=kueue,type=Normal,reason=Admitted",
	  "{\"source\":{\"component\":\"kueue\"},\"type\":\"Normal\","
	  "\"reason\":\"Admitted\"}",
	  1 },
	/* The events.k8s.io view selects stored core Events by its names. */
	{ API_KIND_EVENT_V1, "regarding.name=p,reportingController=echelon",
	  "{\"involvedObject\":{\"name\":\"p\"},\"reportingComponent\":"
	  "\"echelon\"}",
	  1 },
	{ API_KIND_EVENT_V1, "regarding.name=p",
	  "{\"regarding\":{\"name\":\"p\"}}", 1 },
	{ API_KIND_NODE, "spec.unschedulable=true",
	  "{\"spec\":{\"unschedulable\":true}}", 1 },
	{ API_KIND_NODE, "spec.unschedulable!=true", "{}", 1 },
	{ API_KIND_NODE, "spec.nodeName=x", "{}", -1 },
	{ API_KIND_JOB, "status.successful=2", "{\"status\":{\"succeeded\":2}}",
	  1 },
	{ API_KIND_WORKLOAD,
	  "spec.queueName=lq,status.admission.clusterQueue=cq",
	  "{\"spec\":{\"queueName\":\"lq\"},\"status\":{\"admission\":{"
	  "\"clusterQueue\":\"cq\"}}}",
	  1 },
	{ API_KIND_WORKLOAD, "status.admission.clusterQueue=",
	  "{\"spec\":{\"queueName\":\"lq\"}}", 1 },
	{ API_KIND_NAMESPACE, "status.phase=Active",
	  "{\"status\":{\"phase\":\"Active\"}}", 1 },
	{ API_KIND_CLUSTER_QUEUE, "metadata.name=cq",
	  "{\"metadata\":{\"name\":\"cq\"}}", 1 },
	{ API_KIND_CLUSTER_QUEUE, "spec.cohortName=x", "{}", -1 },
};

static void test_kinds(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(kind_cases); i++) {
		const struct kind_case *c = &kind_cases[i];
		struct api_select *sel = NULL;
		struct errbuf err = { "" };
		json_t *obj = json_loads(c->obj, 0, NULL);
		int rc = api_select_parse(api_kind_at(c->kind), NULL, c->fields,
					  &sel, &err);

		assert_non_null(obj);
		if (c->want < 0) {
			assert_int_equal(rc, -EINVAL);
			assert_non_null(strstr(err.msg, "not supported"));
		} else {
			assert_int_equal(rc, 0);
			if (api_select_match(sel, obj) != (c->want == 1))
				fail_msg("kind case %zu", i);
		}
		api_select_free(sel);
		json_decref(obj);
	}
	api_select_free(NULL);
	assert_true(api_select_match(NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pods),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

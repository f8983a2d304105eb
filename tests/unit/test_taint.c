// SPDX-License-Identifier: Apache-2.0
/*
 * Taints and tolerations: the cases of the Kubernetes "Taints and
 * Tolerations" documentation and of core/v1 ToleratesTaint's tests, the
 * scheduler's filter over a node's taints, and toleration validation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "model/taint.h"
#include "testutil.h"

#include "base/banned.h"

#define ALL (-1)
#define NS  TAINT_NO_SCHEDULE
#define PNS TAINT_PREFER_NO_SCHEDULE
#define NE  TAINT_NO_EXECUTE
#define EQ  TOLERATION_EQUAL
#define EX  TOLERATION_EXISTS

/* Designated, so that the seconds fields may be left out. */
#define TOL(k, o, v, e)                                                        \
	{                                                                      \
		.key = (k), .op = (o), .value = (v), .effect = (e)             \
	}
#define TOL_SECS(k, o, v, e, s)                                                \
	{                                                                      \
		.key = (k), .op = (o), .value = (v), .effect = (e),            \
		.has_seconds = true, .seconds = (s)                            \
	}

struct tolerates_case {
	struct toleration tol;
	struct taint taint;
	bool result;
};

static const struct tolerates_case tolerates_cases[] = {
	/* key1=value1:NoSchedule with a matching Equal toleration. */
	{ TOL("key1", EQ, "value1", NS), { "key1", "value1", NS }, true },
	/* ... or Exists on the key, which needs no value. */
	{ TOL("key1", EX, NULL, NS), { "key1", "value1", NS }, true },
	{ TOL("key1", EX, "", NS), { "key1", NULL, NS }, true },
	/* Equal with a different value, key or effect does not tolerate. */
	{ TOL("key1", EQ, "value2", NS), { "key1", "value1", NS }, false },
	{ TOL("key2", EQ, "value1", NS), { "key1", "value1", NS }, false },
	{ TOL("key1", EQ, "value1", NE), { "key1", "value1", NS }, false },
	{ TOL("key1", EX, NULL, NE), { "key1", "value1", NS }, false },
	{ TOL("key1", EQ, "value1", PNS), { "key1", "value1", NE }, false },
	/* Equal compares values, with NULL read as "". */
	{ TOL("key1", EQ, NULL, NS), { "key1", NULL, NS }, true },
	{ TOL("key1", EQ, "", NS), { "key1", NULL, NS }, true },
	{ TOL("key1", EQ, NULL, NS), { "key1", "", NS }, true },
	{ TOL("key1", EQ, NULL, NS), { "key1", "v", NS }, false },
	{ TOL("key1", EQ, "v", NS), { "key1", NULL, NS }, false },
	/* Values are case-sensitive strings. */
	{ TOL("key1", EQ, "Value1", NS), { "key1", "value1", NS }, false },
	/* An empty effect matches all effects with key key1. */
	{ TOL("key1", EQ, "value1", ALL), { "key1", "value1", NS }, true },
	{ TOL("key1", EQ, "value1", ALL), { "key1", "value1", PNS }, true },
	{ TOL("key1", EQ, "value1", ALL), { "key1", "value1", NE }, true },
	{ TOL("key1", EX, NULL, ALL), { "key1", "x", NE }, true },
	{ TOL("key1", EX, NULL, ALL), { "key2", "x", NE }, false },
	/* An empty key with Exists tolerates everything. */
	{ TOL(NULL, EX, NULL, ALL), { "key1", "value1", NS }, true },
	{ TOL("", EX, NULL, ALL), { "a.io/b", NULL, NE }, true },
	{ TOL("", EX, NULL, ALL), { "z", "y", PNS }, true },
	/* ... and with an effect, every taint of that effect. */
	{ TOL(NULL, EX, NULL, NE), { "k", "v", NE }, true },
	{ TOL(NULL, EX, NULL, NE), { "k", "v", NS }, false },
	/* An invalid operator tolerates nothing. */
	{ TOL("key1", TOLERATION_OP_COUNT, "value1", ALL),
	  { "key1", "value1", NS },
	  false },
};

static void test_tolerates(void **state)
{
	(void)state;
	for (size_t i = 0;
	     i < sizeof(tolerates_cases) / sizeof(tolerates_cases[0]); i++) {
		const struct tolerates_case *c = &tolerates_cases[i];

		if (toleration_tolerates(&c->tol, &c->taint) != c->result)
			fail_msg("tolerates case %zu", i);
	}
}

#define MAXT 4

struct filter_case {
	struct taint taints[MAXT];
	size_t ntaints;
	struct toleration tols[MAXT];
	size_t ntols;
	int blocker; /* index of the expected untolerated taint, or -1 */
};

static const struct filter_case filter_cases[] = {
	/* No taints: nothing blocks, with or without tolerations. */
	{ .blocker = -1 },
	{ .tols = { TOL("k", EQ, "v", NS) }, .ntols = 1, .blocker = -1 },
	/* NoSchedule and NoExecute block without a toleration. */
	{ .taints = { { "key1", "value1", NS } }, .ntaints = 1, .blocker = 0 },
	{ .taints = { { "key1", "value1", NE } }, .ntaints = 1, .blocker = 0 },
	/* PreferNoSchedule never blocks. */
	{ .taints = { { "key1", "value1", PNS } },
	  .ntaints = 1,
	  .blocker = -1 },
	{ .taints = { { "a", "1", PNS }, { "b", "2", PNS } },
	  .ntaints = 2,
	  .blocker = -1 },
	{ .taints = { { "a", "1", PNS }, { "b", "2", NS } },
	  .ntaints = 2,
	  .blocker = 1 },
	/*
	 * The documentation's node1: key1=value1:NoSchedule,
	 * key1=value1:NoExecute, key2=value2:NoSchedule, and a pod that
	 * tolerates only the first two cannot go there.
	 */
	{ .taints = { { "key1", "value1", NS },
		      { "key1", "value1", NE },
		      { "key2", "value2", NS } },
	  .ntaints = 3,
	  .tols = { TOL("key1", EQ, "value1", NS),
		    TOL("key1", EQ, "value1", NE) },
	  .ntols = 2,
	  .blocker = 2 },
	/* Tolerating key2 too lets it in. */
	{ .taints = { { "key1", "value1", NS },
		      { "key1", "value1", NE },
		      { "key2", "value2", NS } },
	  .ntaints = 3,
	  .tols = { TOL("key1", EQ, "value1", NS),
		    TOL("key1", EQ, "value1", NE), TOL("key2", EX, NULL, ALL) },
	  .ntols = 3,
	  .blocker = -1 },
	/* The first untolerated taint in node order is reported. */
	{ .taints = { { "a", "1", NE }, { "b", "2", NS } },
	  .ntaints = 2,
	  .blocker = 0 },
	{ .taints = { { "a", "1", NE }, { "b", "2", NS } },
	  .ntaints = 2,
	  .tols = { TOL("a", EX, NULL, ALL) },
	  .ntols = 1,
	  .blocker = 1 },
	/* One toleration may cover several taints. */
	{ .taints = { { "gpu", "h100", NS }, { "gpu", "h100", NE } },
	  .ntaints = 2,
	  .tols = { TOL("gpu", EQ, "h100", ALL) },
	  .ntols = 1,
	  .blocker = -1 },
	/* Tolerate everything. */
	{ .taints = { { "a", "1", NE }, { "b", NULL, NS }, { "c", "3", PNS } },
	  .ntaints = 3,
	  .tols = { TOL(NULL, EX, NULL, ALL) },
	  .ntols = 1,
	  .blocker = -1 },
	/* A toleration for the wrong effect does not help. */
	{ .taints = { { "a", "1", NE } },
	  .ntaints = 1,
	  .tols = { TOL("a", EQ, "1", NS) },
	  .ntols = 1,
	  .blocker = 0 },
};

static void test_find_untolerated(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(filter_cases) / sizeof(filter_cases[0]);
	     i++) {
		const struct filter_case *c = &filter_cases[i];
		const struct taint *got;
		const struct taint *want =
			c->blocker < 0 ? NULL : &c->taints[c->blocker];

		got = taint_find_untolerated(c->taints, c->ntaints, c->tols,
					     c->ntols);
		if (got != want)
			fail_msg("filter case %zu: got taint %td", i,
				 got ? got - c->taints : -1);
	}
	assert_null(taint_find_untolerated(NULL, 0, NULL, 0));
}

struct check_case {
	struct toleration tol;
	const char *msg; /* NULL when valid */
};

static const struct check_case check_cases[] = {
	{ TOL("key1", EQ, "value1", NS), NULL },
	{ TOL("key1", EQ, NULL, ALL), NULL },
	{ TOL("key1", EX, NULL, ALL), NULL },
	{ TOL("example.com/key", EX, "", PNS), NULL },
	{ TOL(NULL, EX, NULL, ALL), NULL },
	{ TOL("", EX, NULL, NE), NULL },
	{ TOL_SECS("key1", EQ, "v", NE, 300), NULL },
	{ TOL_SECS("key1", EX, NULL, NE, 0), NULL },
	{ TOL(NULL, EQ, NULL, ALL),
	  "operator: operator must be Exists when `key` is empty, which means "
	  "\"match all values and all keys\"" },
	{ TOL("", EQ, "v", NS),
	  "operator: operator must be Exists when `key` is empty, which means "
	  "\"match all values and all keys\"" },
	{ TOL("key1", EX, "value1", NS),
	  "value: value must be empty when `operator` is 'Exists'" },
	{ TOL_SECS("key1", EQ, "v", NS, 60),
	  "effect: effect must be 'NoExecute' when `tolerationSeconds` is "
	  "set" },
	{ TOL_SECS("key1", EQ, "v", ALL, 60),
	  "effect: effect must be 'NoExecute' when `tolerationSeconds` is "
	  "set" },
	{ TOL("-key", EX, NULL, ALL),
	  "key: name part must consist of alphanumeric characters, '-', '_' "
	  "or '.', and must start and end with an alphanumeric character" },
	{ TOL("key1", EQ, "bad value", NS),
	  "value: a valid label must be an empty string or consist of "
	  "alphanumeric characters, '-', '_' or '.', and must start and end "
	  "with an alphanumeric character" },
	{ TOL("key1", TOLERATION_OP_COUNT, NULL, NS),
	  "operator: supported values: \"Equal\", \"Exists\"" },
	{ TOL("key1", EQ, NULL, TAINT_EFFECT_COUNT),
	  "effect: supported values: \"NoSchedule\", \"PreferNoSchedule\", "
	  "\"NoExecute\"" },
	{ TOL("key1", EQ, NULL, -2),
	  "effect: supported values: \"NoSchedule\", \"PreferNoSchedule\", "
	  "\"NoExecute\"" },
};

static void test_check(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]);
	     i++) {
		const struct check_case *c = &check_cases[i];
		struct errbuf eb = { "" };
		int err = toleration_check(&c->tol, &eb);

		if (!c->msg) {
			if (err)
				fail_msg("check case %zu: %s", i, eb.msg);
			continue;
		}
		assert_int_equal(err, -EINVAL);
		if (strcmp(eb.msg, c->msg))
			fail_msg("check case %zu: got \"%s\"", i, eb.msg);
	}
}

static void test_names(void **state)
{
	static const char *const effects[] = { "NoSchedule", "PreferNoSchedule",
					       "NoExecute" };
	enum taint_effect e = TAINT_EFFECT_COUNT;
	enum toleration_op op = TOLERATION_OP_COUNT;

	(void)state;
	for (int i = 0; i < TAINT_EFFECT_COUNT; i++) {
		assert_int_equal(taint_parse_effect(effects[i], &e), 0);
		assert_int_equal(e, i);
		assert_string_equal(taint_effect_name(e), effects[i]);
	}
	e = TAINT_NO_EXECUTE;
	assert_int_equal(taint_parse_effect("", &e), -EINVAL);
	assert_int_equal(taint_parse_effect("noschedule", &e), -EINVAL);
	assert_int_equal(taint_parse_effect(NULL, &e), -EINVAL);
	assert_int_equal(e, TAINT_NO_EXECUTE);
	assert_string_equal(taint_effect_name(TAINT_EFFECT_COUNT), "?");

	/* The operator defaults to Equal. */
	assert_int_equal(toleration_parse_op("", &op), 0);
	assert_int_equal(op, TOLERATION_EQUAL);
	assert_int_equal(toleration_parse_op("Exists", &op), 0);
	assert_int_equal(op, TOLERATION_EXISTS);
	assert_int_equal(toleration_parse_op("Equal", &op), 0);
	assert_int_equal(op, TOLERATION_EQUAL);
	assert_int_equal(toleration_parse_op("exists", &op), -EINVAL);
	assert_int_equal(toleration_parse_op("In", &op), -EINVAL);
	assert_int_equal(toleration_parse_op(NULL, &op), -EINVAL);
	assert_int_equal(op, TOLERATION_EQUAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tolerates),
		cmocka_unit_test(test_find_untolerated),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

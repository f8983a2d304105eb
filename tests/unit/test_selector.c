// SPDX-License-Identifier: Apache-2.0
/*
 * Label selectors and required node affinity against the Kubernetes
 * matching rules: every operator with the key present or absent and the
 * value matching or not, Gt/Lt parsing, construction errors, and the
 * OR-of-ANDs semantics of node selector terms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "model/label.h"
#include "model/selector.h"
#include "testutil.h"

#include "base/banned.h"

#define MAXV 4

/* The node labels every match case runs against. */
static const char *const node_kv[] = {
	"zone", "us-east-1a", "gpu",   "h100", "gpus", "8",
	"rack", "r12",	      "neg",   "-3",   "big",  "9223372036854775807",
	"word", "abc",	      "empty", "",     "plus", "+5",
	NULL,
};

static void fill(struct labels *l, const char *const *kv)
{
	labels_init(l);
	for (; kv[0]; kv += 2)
		labels_set(l, kv[0], kv[1]);
}

struct match_case {
	const char *key;
	enum selector_op op;
	const char *values[MAXV];
	bool result;
};

static const struct match_case match_cases[] = {
	/* In: key present and value in the set. */
	{ "zone", SELECTOR_IN, { "us-east-1a" }, true },
	{ "zone", SELECTOR_IN, { "us-west-2", "us-east-1a" }, true },
	{ "zone", SELECTOR_IN, { "us-west-2" }, false },
	{ "nokey", SELECTOR_IN, { "us-east-1a" }, false },
	{ "empty", SELECTOR_IN, { "" }, true },
	{ "empty", SELECTOR_IN, { "x" }, false },
	{ "nokey", SELECTOR_IN, { "" }, false },
	/* NotIn: key absent, or value not in the set. */
	{ "zone", SELECTOR_NOT_IN, { "us-east-1a" }, false },
	{ "zone", SELECTOR_NOT_IN, { "a", "us-east-1a" }, false },
	{ "zone", SELECTOR_NOT_IN, { "us-west-2" }, true },
	{ "nokey", SELECTOR_NOT_IN, { "us-east-1a" }, true },
	{ "empty", SELECTOR_NOT_IN, { "" }, false },
	/* Exists and DoesNotExist look at the key only. */
	{ "gpu", SELECTOR_EXISTS, { NULL }, true },
	{ "empty", SELECTOR_EXISTS, { NULL }, true },
	{ "nokey", SELECTOR_EXISTS, { NULL }, false },
	{ "gpu", SELECTOR_DOES_NOT_EXIST, { NULL }, false },
	{ "empty", SELECTOR_DOES_NOT_EXIST, { NULL }, false },
	{ "nokey", SELECTOR_DOES_NOT_EXIST, { NULL }, true },
	/* Gt/Lt: integer comparison, strict. */
	{ "gpus", SELECTOR_GT, { "4" }, true },
	{ "gpus", SELECTOR_GT, { "8" }, false },
	{ "gpus", SELECTOR_GT, { "16" }, false },
	{ "gpus", SELECTOR_LT, { "16" }, true },
	{ "gpus", SELECTOR_LT, { "8" }, false },
	{ "gpus", SELECTOR_LT, { "4" }, false },
	{ "neg", SELECTOR_LT, { "0" }, true },
	{ "neg", SELECTOR_GT, { "0" }, false },
	{ "gpus", SELECTOR_GT, { "0007" }, true },
	{ "plus", SELECTOR_GT, { "4" }, true },
	{ "big", SELECTOR_GT, { "9223372036854775806" }, true },
	/* Gt/Lt: a missing key or a non-integer label never matches. */
	{ "nokey", SELECTOR_GT, { "0" }, false },
	{ "nokey", SELECTOR_LT, { "0" }, false },
	{ "word", SELECTOR_GT, { "0" }, false },
	{ "word", SELECTOR_LT, { "0" }, false },
	{ "empty", SELECTOR_LT, { "1" }, false },
	{ "zone", SELECTOR_GT, { "0" }, false },
	{ "rack", SELECTOR_LT, { "100" }, false },
};

static size_t count_values(const char *const *v)
{
	size_t n = 0;

	while (n < MAXV && v[n])
		n++;
	return n;
}

/* The value arrays above use "" as a real value: count until NULL. */
static void test_operators(void **state)
{
	struct labels node;

	(void)state;
	fill(&node, node_kv);
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]);
	     i++) {
		const struct match_case *c = &match_cases[i];
		struct selector s;
		struct errbuf eb = { "" };

		selector_init(&s);
		if (selector_add(&s, c->key, c->op, c->values,
				 count_values(c->values), &eb))
			fail_msg("case %zu: %s", i, eb.msg);
		if (selector_matches(&s, &node) != c->result)
			fail_msg("case %zu: %s %s should %smatch", i, c->key,
				 selector_op_name(c->op),
				 c->result ? "" : "not ");
		selector_release(&s);
	}
	labels_release(&node);
}

/* A hand-built Gt with an unparsable bound matches nothing either. */
static void test_unparsable_bound(void **state)
{
	const char *bad[] = { "x" };
	struct selector_req r = { "gpus", SELECTOR_GT, bad, 1 };
	struct selector s = { &r, 1, 1 };
	struct labels node;

	(void)state;
	fill(&node, node_kv);
	assert_false(selector_matches(&s, &node));
	labels_release(&node);
}

static void test_empty_selector(void **state)
{
	static const char *const none[] = { NULL };
	struct labels empty, node;
	struct selector s;

	(void)state;
	fill(&empty, none);
	fill(&node, node_kv);
	selector_init(&s);
	assert_true(selector_matches(&s, &empty));
	assert_true(selector_matches(&s, &node));
	selector_release(&s);
	selector_release(&s);
	selector_release(NULL);
	labels_release(&empty);
	labels_release(&node);
}

/* matchLabels entries and expressions are ANDed. */
static void test_match_labels(void **state)
{
	const char *zones[] = { "us-east-1a", "us-east-1b" };
	struct labels node;
	struct selector s;
	struct errbuf eb;

	(void)state;
	fill(&node, node_kv);
	selector_init(&s);
	selector_add_match_label(&s, "gpu", "h100");
	assert_int_equal(s.len, 1);
	assert_int_equal(s.reqs[0].op, SELECTOR_IN);
	assert_int_equal(s.reqs[0].nvalues, 1);
	assert_true(selector_matches(&s, &node));
	assert_int_equal(selector_add(&s, "zone", SELECTOR_IN, zones, 2, &eb),
			 0);
	assert_true(selector_matches(&s, &node));
	selector_add_match_label(&s, "rack", "r13");
	assert_false(selector_matches(&s, &node));
	selector_release(&s);

	selector_init(&s);
	selector_add_match_label(&s, "gpu", "a100");
	assert_false(selector_matches(&s, &node));
	selector_release(&s);

	selector_init(&s);
	selector_add_match_label(&s, "nokey", "");
	assert_false(selector_matches(&s, &node));
	selector_release(&s);
	labels_release(&node);
}

/* selector_add copies the array of pointers, not the strings. */
static void test_values_copied(void **state)
{
	const char *vals[] = { "h100", "a100" };
	struct labels node;
	struct selector s;
	struct errbuf eb;

	(void)state;
	fill(&node, node_kv);
	selector_init(&s);
	assert_int_equal(selector_add(&s, "gpu", SELECTOR_IN, vals, 2, &eb), 0);
	assert_ptr_not_equal(s.reqs[0].values, vals);
	assert_ptr_equal(s.reqs[0].values[1], vals[1]);
	vals[0] = "x";
	assert_true(selector_matches(&s, &node));
	selector_release(&s);
	labels_release(&node);
}

struct bad_case {
	const char *key;
	enum selector_op op;
	const char *values[MAXV];
	size_t nvalues;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "zone",
	  SELECTOR_IN,
	  { NULL },
	  0,
	  "values: must be specified when `operator` is 'In' or 'NotIn'" },
	{ "zone",
	  SELECTOR_NOT_IN,
	  { NULL },
	  0,
	  "values: must be specified when `operator` is 'In' or 'NotIn'" },
	{ "zone",
	  SELECTOR_EXISTS,
	  { "a" },
	  1,
	  "values: may not be specified when `operator` is 'Exists' or "
	  "'DoesNotExist'" },
	{ "zone",
	  SELECTOR_DOES_NOT_EXIST,
	  { "a" },
	  1,
	  "values: may not be specified when `operator` is 'Exists' or "
	  "'DoesNotExist'" },
	{ "gpus",
	  SELECTOR_GT,
	  { NULL },
	  0,
	  "values: must be specified single value when `operator` is 'Lt' "
	  "or 'Gt'" },
	{ "gpus",
	  SELECTOR_LT,
	  { "1", "2" },
	  2,
	  "values: must be specified single value when `operator` is 'Lt' "
	  "or 'Gt'" },
	{ "gpus",
	  SELECTOR_GT,
	  { "four" },
	  1,
	  "values[0]: for 'Gt', 'Lt' operators, the value must be an integer" },
	{ "gpus",
	  SELECTOR_LT,
	  { "4x" },
	  1,
	  "values[0]: for 'Gt', 'Lt' operators, the value must be an integer" },
	{ "gpus",
	  SELECTOR_LT,
	  { " 4" },
	  1,
	  "values[0]: for 'Gt', 'Lt' operators, the value must be an integer" },
	{ "gpus",
	  SELECTOR_LT,
	  { "" },
	  1,
	  "values[0]: for 'Gt', 'Lt' operators, the value must be an integer" },
	{ "gpus",
	  SELECTOR_GT,
	  { "9223372036854775808" },
	  1,
	  "values[0]: for 'Gt', 'Lt' operators, the value must be an integer" },
	{ "gpus",
	  SELECTOR_GT,
	  { "1.5" },
	  1,
	  "values[0]: for 'Gt', 'Lt' operators, the value must be an integer" },
	/* Kubernetes also checks the bound as a label value: no sign. */
	{ "gpus",
	  SELECTOR_GT,
	  { "-1" },
	  1,
	  "values[0]: a valid label must be an empty string or consist of "
	  "alphanumeric characters, '-', '_' or '.', and must start and end "
	  "with an alphanumeric character" },
	{ "gpus",
	  SELECTOR_LT,
	  { "+7" },
	  1,
	  "values[0]: a valid label must be an empty string or consist of "
	  "alphanumeric characters, '-', '_' or '.', and must start and end "
	  "with an alphanumeric character" },
	{ "zone",
	  SELECTOR_IN,
	  { "ok", "-bad" },
	  2,
	  "values[1]: a valid label must be an empty string or consist of "
	  "alphanumeric characters, '-', '_' or '.', and must start and end "
	  "with an alphanumeric character" },
	{ "",
	  SELECTOR_EXISTS,
	  { NULL },
	  0,
	  "key: name part must be non-empty" },
	{ "Bad.io/x",
	  SELECTOR_EXISTS,
	  { NULL },
	  0,
	  "key: prefix part a lowercase RFC 1123 subdomain must consist of "
	  "lower case alphanumeric characters, '-' or '.', and must start and "
	  "end with an alphanumeric character" },
	{ "zone",
	  SELECTOR_OP_COUNT,
	  { NULL },
	  0,
	  "operator: not a valid selector operator" },
};

static void test_bad_requirements(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct selector s;
		struct errbuf eb = { "" };

		selector_init(&s);
		assert_int_equal(selector_add(&s, c->key, c->op, c->values,
					      c->nvalues, &eb),
				 -EINVAL);
		if (strcmp(eb.msg, c->msg))
			fail_msg("case %zu: got \"%s\"", i, eb.msg);
		assert_int_equal(s.len, 0);
		selector_release(&s);
	}
}

static void test_op_names(void **state)
{
	static const char *const names[] = { "In",	     "NotIn", "Exists",
					     "DoesNotExist", "Gt",    "Lt" };
	enum selector_op op = SELECTOR_OP_COUNT;

	(void)state;
	for (int i = 0; i < SELECTOR_OP_COUNT; i++) {
		assert_int_equal(selector_parse_op(names[i], &op), 0);
		assert_int_equal(op, i);
		assert_string_equal(selector_op_name(op), names[i]);
	}
	op = SELECTOR_IN;
	assert_int_equal(selector_parse_op("in", &op), -EINVAL);
	assert_int_equal(selector_parse_op("", &op), -EINVAL);
	assert_int_equal(selector_parse_op("Equals", &op), -EINVAL);
	assert_int_equal(selector_parse_op(NULL, &op), -EINVAL);
	assert_int_equal(op, SELECTOR_IN);
	assert_string_equal(selector_op_name(SELECTOR_OP_COUNT), "?");
}

/* One requirement per term, built from a compact row. */
struct term_req {
	const char *key;
	enum selector_op op;
	const char *value; /* NULL for Exists/DoesNotExist */
};

static void add_term(struct node_affinity *a, const struct term_req *reqs)
{
	struct selector *t = node_affinity_add_term(a);

	assert_int_equal(t->len, 0);
	for (; reqs->key; reqs++) {
		struct errbuf eb;

		assert_int_equal(selector_add(t, reqs->key, reqs->op,
					      &reqs->value, reqs->value ? 1 : 0,
					      &eb),
				 0);
	}
}

/* Ends a term_req list. */
#define END                                                                    \
	{                                                                      \
		.key = NULL                                                    \
	}

static const struct term_req t_zone_a[] = {
	{ "zone", SELECTOR_IN, "us-east-1a" }, END
};
static const struct term_req t_zone_b[] = {
	{ "zone", SELECTOR_IN, "us-east-1b" }, END
};
static const struct term_req t_zone_a_gpu_a100[] = {
	{ "zone", SELECTOR_IN, "us-east-1a" },
	{ "gpu", SELECTOR_IN, "a100" },
	END
};
static const struct term_req t_zone_a_gpus_gt4[] = {
	{ "zone", SELECTOR_IN, "us-east-1a" },
	{ "gpus", SELECTOR_GT, "4" },
	{ "tainted", SELECTOR_DOES_NOT_EXIST, NULL },
	END
};
static const struct term_req t_empty[] = { END };

struct affinity_case {
	const struct term_req *terms[4];
	bool result;
};

static const struct affinity_case affinity_cases[] = {
	{ { t_zone_a }, true },
	{ { t_zone_b }, false },
	/* Terms are ORed. */
	{ { t_zone_b, t_zone_a }, true },
	{ { t_zone_a, t_zone_b }, true },
	/* Requirements inside a term are ANDed. */
	{ { t_zone_a_gpu_a100 }, false },
	{ { t_zone_a_gpus_gt4 }, true },
	{ { t_zone_a_gpu_a100, t_zone_b }, false },
	{ { t_zone_a_gpu_a100, t_zone_a_gpus_gt4 }, true },
	/* An empty term matches nothing, even next to others. */
	{ { t_empty }, false },
	{ { t_empty, t_zone_b }, false },
	{ { t_empty, t_zone_a }, true },
	/* Present with no terms matches nothing. */
	{ { NULL }, false },
};

static void test_node_affinity(void **state)
{
	struct labels node;

	(void)state;
	fill(&node, node_kv);
	for (size_t i = 0;
	     i < sizeof(affinity_cases) / sizeof(affinity_cases[0]); i++) {
		const struct affinity_case *c = &affinity_cases[i];
		struct node_affinity a;

		node_affinity_init(&a);
		a.present = true;
		for (size_t j = 0; j < 4 && c->terms[j]; j++)
			add_term(&a, c->terms[j]);
		if (node_affinity_matches(&a, &node) != c->result)
			fail_msg("affinity case %zu", i);
		node_affinity_release(&a);
		assert_false(a.present);
	}
	labels_release(&node);
}

static void test_node_affinity_absent(void **state)
{
	static const char *const none[] = { NULL };
	struct labels node, empty;
	struct node_affinity a;

	(void)state;
	fill(&node, node_kv);
	fill(&empty, none);
	node_affinity_init(&a);
	assert_false(a.present);
	assert_true(node_affinity_matches(&a, &node));
	assert_true(node_affinity_matches(&a, &empty));
	/* Adding a term makes the affinity present. */
	add_term(&a, t_zone_a);
	assert_true(a.present);
	assert_true(node_affinity_matches(&a, &node));
	assert_false(node_affinity_matches(&a, &empty));
	/* Many terms: the array grows and earlier terms survive. */
	for (int i = 0; i < 20; i++)
		add_term(&a, t_zone_b);
	assert_int_equal(a.len, 21);
	assert_true(node_affinity_matches(&a, &node));
	node_affinity_release(&a);
	node_affinity_release(&a);
	node_affinity_release(NULL);
	labels_release(&node);
	labels_release(&empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_unparsable_bound),
		cmocka_unit_test(test_empty_selector),
		cmocka_unit_test(test_match_labels),
		cmocka_unit_test(test_values_copied),
		cmocka_unit_test(test_bad_requirements),
		cmocka_unit_test(test_op_names),
		cmocka_unit_test(test_node_affinity),
		cmocka_unit_test(test_node_affinity_absent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the quota tree: available and potential quota with cohorts,
 * borrowing and lending limits, hierarchical cohorts with quota of their
 * own, usage propagation and its release, the cycle guard and dominant
 * resource shares, each checked against hand-computed numbers and the
 * from-scratch recomputation of quota_check().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>

#include "sched/quota.h"
#include "test_sched_fixture.h"
#include "testutil.h"

/* A ClusterQueue with one flavor "f" and cpu quota (cores). */
static void cq(struct strbuf *sb, const char *name, const char *cohort,
	       const char *cpu_quota)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: %s}\n"
		    "spec:\n%s%s%s  resourceGroups:\n"
		    "  - coveredResources: [cpu]\n"
		    "    flavors: [{name: f, resources: [{name: cpu, %s}]}]\n",
		    name, cohort ? "  cohortName: " : "", cohort ? cohort : "",
		    cohort ? "\n" : "", cpu_quota);
}

static void cohort(struct strbuf *sb, const char *name, const char *parent,
		   const char *cpu_quota)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: Cohort\nmetadata: {name: %s}\nspec:\n",
		    name);
	if (parent)
		strbuf_addf(sb, "  parentName: %s\n", parent);
	if (cpu_quota)
		strbuf_addf(sb,
			    "  resourceGroups:\n  - coveredResources: [cpu]\n"
			    "    flavors: [{name: f, resources: [{name: cpu, "
			    "%s}]}]\n",
			    cpu_quota);
	if (!parent && !cpu_quota)
		strbuf_addstr(sb, "  {}\n");
}

struct fx {
	struct cluster c;
	struct quota q;
	size_t fr;
};

static void setup(struct fx *x, struct strbuf *sb)
{
	fx_flavor(sb, "f");
	fx_load(&x->c, sb->buf);
	quota_init(&x->q, &x->c);
	x->fr = QUOTA_FR(0, RESOURCE_CPU);
	strbuf_release(sb);
}

static void teardown(struct fx *x)
{
	assert_true(quota_check(&x->q, NULL));
	quota_release(&x->q);
	cluster_release(&x->c);
}

static int32_t node(const struct fx *x, const char *name)
{
	for (size_t i = 0; i < x->q.nnodes; i++) {
		if (strcmp(x->q.nodes[i].name, name) == 0)
			return (int32_t)i;
	}
	fail_msg("no node %s", name);
	return -1;
}

#define AVAIL(x, n)  quota_available(&(x)->q, node(x, n), (x)->fr)
#define POT(x, n)    quota_potential(&(x)->q, node(x, n), (x)->fr)
#define USE(x, n, v) quota_add(&(x)->q, node(x, n), (x)->fr, (v)*1000)

static void test_no_cohort(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "a", NULL, "nominalQuota: 10");
	setup(&x, &sb);
	assert_int_equal(AVAIL(&x, "a"), 10000);
	assert_int_equal(POT(&x, "a"), 10000);
	USE(&x, "a", 4);
	assert_int_equal(AVAIL(&x, "a"), 6000);
	assert_false(quota_borrowing(&x.q, 0, x.fr));
	USE(&x, "a", -4);
	assert_int_equal(AVAIL(&x, "a"), 10000);
	teardown(&x);
}

/* Kueue's borrowing example: two queues lend each other everything. */
static void test_cohort_borrowing(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "a", "co", "nominalQuota: 10");
	cq(&sb, "b", "co", "nominalQuota: 10, borrowingLimit: 2");
	setup(&x, &sb);
	assert_int_equal(AVAIL(&x, "a"), 20000);
	assert_int_equal(POT(&x, "a"), 20000);
	assert_int_equal(POT(&x, "b"), 12000);
	assert_int_equal(AVAIL(&x, "b"), 12000);
	USE(&x, "a", 15);
	assert_true(quota_borrowing(&x.q, node(&x, "a"), x.fr));
	assert_int_equal(AVAIL(&x, "a"), 5000);
	assert_int_equal(AVAIL(&x, "b"), 5000);
	assert_int_equal(x.q.nodes[node(&x, "co")].usage[x.fr], 15000);
	USE(&x, "b", 5);
	assert_int_equal(AVAIL(&x, "a"), 0);
	USE(&x, "a", -15);
	/* b is limited by its borrowing limit, not by the cohort */
	assert_int_equal(AVAIL(&x, "b"), 7000);
	teardown(&x);
}

static void test_lending_limit(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "a", "co", "nominalQuota: 10, lendingLimit: 4");
	cq(&sb, "b", "co", "nominalQuota: 10");
	setup(&x, &sb);
	assert_int_equal(quota_guaranteed(&x.q, node(&x, "a"), x.fr), 6000);
	assert_int_equal(POT(&x, "b"), 14000);
	assert_int_equal(POT(&x, "a"), 20000);
	USE(&x, "b", 14);
	assert_int_equal(AVAIL(&x, "b"), 0);
	assert_int_equal(AVAIL(&x, "a"), 6000);
	/* a using its guarantee does not touch the cohort's pool */
	USE(&x, "a", 6);
	assert_int_equal(x.q.nodes[node(&x, "co")].usage[x.fr], 14000);
	assert_int_equal(AVAIL(&x, "a"), 0);
	teardown(&x);
}

/* Hierarchy: root quota and a sub-cohort limited in what it borrows. */
static void test_hierarchy(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	cohort(&sb, "root", NULL, "nominalQuota: 5");
	cohort(&sb, "sub", "root", "nominalQuota: 0, borrowingLimit: 3");
	cq(&sb, "a", "sub", "nominalQuota: 10");
	cq(&sb, "d", "root", "nominalQuota: 0");
	setup(&x, &sb);
	assert_int_equal(POT(&x, "d"), 15000);
	assert_int_equal(POT(&x, "a"), 13000);
	assert_int_equal(AVAIL(&x, "a"), 13000);
	USE(&x, "d", 4);
	assert_int_equal(AVAIL(&x, "a"), 11000);
	USE(&x, "a", 11);
	assert_int_equal(AVAIL(&x, "d"), 0);
	assert_int_equal(x.q.nodes[node(&x, "root")].usage[x.fr], 15000);
	USE(&x, "a", -11);
	USE(&x, "d", -4);
	assert_int_equal(x.q.nodes[node(&x, "root")].usage[x.fr], 0);
	teardown(&x);
}

static void test_cycle_guard(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	cohort(&sb, "x", "y", NULL);
	cohort(&sb, "y", "x", NULL);
	cq(&sb, "a", "x", "nominalQuota: 1");
	cq(&sb, "b", NULL, "nominalQuota: 1");
	setup(&x, &sb);
	assert_true(x.q.nodes[node(&x, "a")].in_cycle);
	assert_false(x.q.nodes[node(&x, "b")].in_cycle);
	teardown(&x);
}

static void test_share(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "a", "co", "nominalQuota: 10");
	cq(&sb, "b", "co", "nominalQuota: 10");
	setup(&x, &sb);
	assert_int_equal(quota_share(&x.q, node(&x, "a"), NULL), 0);
	USE(&x, "a", 15);
	/* 5 borrowed of the cohort's 20: 250 per mille */
	assert_int_equal(quota_share(&x.q, node(&x, "a"), NULL), 250);
	x.q.nodes[node(&x, "a")].weight_milli = 2000;
	assert_int_equal(quota_share(&x.q, node(&x, "a"), NULL), 125);
	x.q.nodes[node(&x, "a")].weight_milli = 0;
	assert_int_equal(quota_share(&x.q, node(&x, "a"), NULL), INT64_MAX);
	assert_int_equal(quota_share(&x.q, node(&x, "co"), NULL), 0);
	teardown(&x);
}

/*
 * In a nested cohort the lendable quota is what the parent could ever
 * use, as Kueue's calculateLendable has it: "sub" has no quota of its
 * own, yet a's 4 GPUs borrowed through it are half of the 8 it could get
 * from root, not a share of nothing.
 */
static void test_share_nested(void **state)
{
	static const struct {
		const char *sub; /* sub's quota line */
		int64_t a, sub_share;
	} cases[] = {
		{ "nominalQuota: 0", 500, 500 },
		/* sub may borrow 5 of root's 8: a's 4 are 800 per mille */
		{ "nominalQuota: 0, borrowingLimit: 5", 800, 500 },
		/* sub's own 2: a's 4 of the 10 sub could use, sub's 2
		 * above its own of root's 10 */
		{ "nominalQuota: 2", 400, 200 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct strbuf sb;
		struct fx x;

		strbuf_init(&sb);
		cohort(&sb, "root", NULL, "nominalQuota: 0");
		cohort(&sb, "sub", "root", cases[i].sub);
		cq(&sb, "a", "sub", "nominalQuota: 0");
		cq(&sb, "b", "root", "nominalQuota: 8");
		setup(&x, &sb);
		USE(&x, "a", 4);
		assert_int_equal(quota_share(&x.q, node(&x, "a"), NULL),
				 cases[i].a);
		assert_int_equal(quota_share(&x.q, node(&x, "sub"), NULL),
				 cases[i].sub_share);
		assert_int_equal(quota_share(&x.q, node(&x, "root"), NULL), 0);
		teardown(&x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_cohort),
		cmocka_unit_test(test_cohort_borrowing),
		cmocka_unit_test(test_lending_limit),
		cmocka_unit_test(test_hierarchy),
		cmocka_unit_test(test_cycle_guard),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_share_nested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

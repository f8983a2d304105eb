// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the resource registry: the fixed ids, registering new names,
 * Kubernetes' name rules, the size limit and the kind of each name.
 */
#include "model/resource.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#include "base/banned.h"

static void test_fixed_ids(void **state)
{
	struct resource_registry r;

	(void)state;
	resource_registry_init(&r);
	assert_int_equal(r.count, RESOURCE_FIXED_COUNT);
	assert_string_equal(resource_name(&r, RESOURCE_CPU), "cpu");
	assert_string_equal(resource_name(&r, RESOURCE_MEMORY), "memory");
	assert_string_equal(resource_name(&r, RESOURCE_PODS), "pods");
	assert_int_equal(r.kinds[RESOURCE_CPU], QUANTITY_MILLI);
	assert_int_equal(r.kinds[RESOURCE_MEMORY], QUANTITY_BYTES);
	assert_int_equal(r.kinds[RESOURCE_PODS], QUANTITY_UNITS);
	assert_int_equal(resource_lookup(&r, "cpu"), RESOURCE_CPU);
	assert_int_equal(resource_lookup(&r, "memory"), RESOURCE_MEMORY);
	assert_int_equal(resource_lookup(&r, "pods"), RESOURCE_PODS);
	assert_int_equal(resource_id(&r, "memory", NULL), RESOURCE_MEMORY);
	assert_int_equal(r.count, RESOURCE_FIXED_COUNT);
	resource_registry_release(&r);
	assert_int_equal(r.count, 0);
	resource_registry_release(NULL);
}

static void test_new_names(void **state)
{
	struct resource_registry r;
	struct errbuf eb = { "" };

	(void)state;
	resource_registry_init(&r);
	assert_int_equal(resource_lookup(&r, "nvidia.com/gpu"), -1);
	assert_int_equal(resource_id(&r, "nvidia.com/gpu", &eb), 3);
	assert_int_equal(resource_id(&r, "ephemeral-storage", &eb), 4);
	assert_int_equal(resource_id(&r, "nvidia.com/gpu", &eb), 3);
	assert_int_equal(resource_id(&r, "hugepages-2Mi", &eb), 5);
	assert_int_equal(r.count, 6);
	assert_int_equal(resource_lookup(&r, "nvidia.com/gpu"), 3);
	assert_int_equal(resource_lookup(&r, "NVIDIA.com/gpu"), -1);
	assert_string_equal(resource_name(&r, 4), "ephemeral-storage");
	assert_int_equal(r.kinds[3], QUANTITY_UNITS);
	assert_int_equal(r.kinds[4], QUANTITY_BYTES);
	assert_int_equal(r.kinds[5], QUANTITY_BYTES);
	assert_string_equal(eb.msg, "");
	resource_registry_release(&r);
}

struct name_case {
	const char *name;
	const char *msg; /* NULL when valid, else a substring of the error */
};

static const struct name_case name_cases[] = {
	{ "cpu", NULL },
	{ "memory", NULL },
	{ "pods", NULL },
	{ "storage", NULL },
	{ "ephemeral-storage", NULL },
	{ "hugepages-2Mi", NULL },
	{ "hugepages-1Gi", NULL },
	{ "nvidia.com/gpu", NULL },
	{ "example.com/foo", NULL },
	{ "amd.com/gpu", NULL },
	{ "rdma/hca", NULL },
	{ "a-b.c-d/X_y.z-9", NULL },
	{ "example.com/a", NULL },
	{ "example.com/"
	  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk",
	  NULL },
	{ "", "must not be empty" },
	{ "gpu", "\"gpu\": not a standard resource name" },
	{ "CPU", "not a standard resource name" },
	{ "hugepages-", "hugepages-<size>" },
	{ "hugepages-x", "hugepages-<size>" },
	{ "hugepages-0", "hugepages-<size>" },
	{ "/gpu", "DNS subdomain" },
	{ "Nvidia.com/gpu", "DNS subdomain" },
	{ "-nvidia.com/gpu", "DNS subdomain" },
	{ "nvidia-.com/gpu", "DNS subdomain" },
	{ "nvidia..com/gpu", "DNS subdomain" },
	{ ".nvidia.com/gpu", "DNS subdomain" },
	{ "nvidia.com./gpu", "DNS subdomain" },
	{ "nvidia_x.com/gpu", "DNS subdomain" },
	{ "nvidia.com/", "the part after '/'" },
	{ "nvidia.com/-gpu", "the part after '/'" },
	{ "nvidia.com/gpu.", "the part after '/'" },
	{ "nvidia.com/g pu", "the part after '/'" },
	{ "nvidia.com/a/b", "the part after '/'" },
	{ "example.com/"
	  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl",
	  "1-63" },
	{ "kubernetes.io/gpu", "kubernetes.io domain is reserved" },
	{ "node.kubernetes.io/gpu", "kubernetes.io domain is reserved" },
	{ "\x01/x", "invalid resource name \"\\x01/x\"" },
};

static void test_name_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(name_cases); i++) {
		const struct name_case *c = &name_cases[i];
		struct resource_registry r;
		struct errbuf eb = { "" };
		int id;

		resource_registry_init(&r);
		id = resource_id(&r, c->name, &eb);
		if ((id >= 0) != !c->msg || (c->msg && !strstr(eb.msg, c->msg)))
			print_error("case %zu \"%s\": %d '%s'\n", i, c->name,
				    id, eb.msg);
		if (!c->msg) {
			assert_true(id >= 0);
			assert_string_equal(resource_name(&r, id), c->name);
		} else {
			assert_int_equal(id, -EINVAL);
			assert_non_null(strstr(eb.msg, c->msg));
			assert_int_equal(r.count, RESOURCE_FIXED_COUNT);
		}
		resource_registry_release(&r);
	}
}

/* A prefix at the 253-character limit of a DNS subdomain, and one past. */
static void test_prefix_length(void **state)
{
	struct resource_registry r;
	char name[300];

	(void)state;
	resource_registry_init(&r);
	memset(name, 'a', 253);
	snprintf(name + 253, sizeof(name) - 253, "/x");
	assert_int_equal(resource_id(&r, name, NULL), RESOURCE_FIXED_COUNT);
	memset(name, 'a', 254);
	snprintf(name + 254, sizeof(name) - 254, "/x");
	assert_int_equal(resource_id(&r, name, NULL), -EINVAL);
	resource_registry_release(&r);
}

static void test_full_registry(void **state)
{
	struct resource_registry r;
	struct errbuf eb;
	char name[64];

	(void)state;
	resource_registry_init(&r);
	for (int i = RESOURCE_FIXED_COUNT; i < RESOURCE_MAX; i++) {
		snprintf(name, sizeof(name), "example.com/r%d", i);
		assert_int_equal(resource_id(&r, name, NULL), i);
	}
	assert_int_equal(r.count, RESOURCE_MAX);
	assert_int_equal(resource_id(&r, "example.com/one-more", &eb), -ENOSPC);
	assert_non_null(strstr(eb.msg, "too many resource names (at most 16)"));
	assert_non_null(strstr(eb.msg, "example.com/one-more"));
	/* Known names still resolve; an invalid one is still -EINVAL. */
	assert_int_equal(resource_id(&r, "example.com/r5", NULL), 5);
	assert_int_equal(resource_id(&r, "cpu", NULL), RESOURCE_CPU);
	assert_int_equal(resource_id(&r, "gpu", NULL), -EINVAL);
	assert_int_equal(r.count, RESOURCE_MAX);
	resource_registry_release(&r);
}

struct kind_case {
	const char *name;
	enum quantity_kind kind;
};

static const struct kind_case kind_cases[] = {
	{ "cpu", QUANTITY_MILLI },
	{ "memory", QUANTITY_BYTES },
	{ "ephemeral-storage", QUANTITY_BYTES },
	{ "storage", QUANTITY_BYTES },
	{ "hugepages-2Mi", QUANTITY_BYTES },
	{ "hugepages-1Gi", QUANTITY_BYTES },
	{ "pods", QUANTITY_UNITS },
	{ "nvidia.com/gpu", QUANTITY_UNITS },
	{ "example.com/memory", QUANTITY_UNITS },
	{ "cpus", QUANTITY_UNITS },
	{ "", QUANTITY_UNITS },
};

static void test_kinds(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(kind_cases); i++)
		assert_int_equal(resource_kind_for(kind_cases[i].name),
				 kind_cases[i].kind);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_ids),
		cmocka_unit_test(test_new_names),
		cmocka_unit_test(test_name_rules),
		cmocka_unit_test(test_prefix_length),
		cmocka_unit_test(test_full_registry),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

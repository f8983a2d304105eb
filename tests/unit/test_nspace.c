// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of namespace selection: a Namespace object's labels, the
 * kubernetes.io/metadata.name label that every namespace has (also without
 * an object, and over a different declared value), and the empty selector
 * that selects every namespace.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/compiler.h"
#include "model/nspace.h"

#include "base/banned.h"

static const struct {
	const char *key; /* NULL: the empty selector */
	enum selector_op op;
	const char *value; /* NULL for Exists / DoesNotExist */
	bool with_object;  /* a Namespace "team" with tier=gold */
	const char *name;
	bool want;
} cases[] = {
	{ NULL, SELECTOR_IN, NULL, false, "any", true },
	{ NULL, SELECTOR_IN, NULL, true, "team", true },
	{ "tier", SELECTOR_IN, "gold", true, "team", true },
	{ "tier", SELECTOR_IN, "gold", false, "team", false },
	{ "tier", SELECTOR_NOT_IN, "gold", false, "team", true },
	{ "tier", SELECTOR_DOES_NOT_EXIST, NULL, true, "team", false },
	{ NSPACE_NAME_LABEL, SELECTOR_IN, "team", false, "team", true },
	{ NSPACE_NAME_LABEL, SELECTOR_IN, "team", true, "team", true },
	{ NSPACE_NAME_LABEL, SELECTOR_IN, "team", false, "other", false },
	{ NSPACE_NAME_LABEL, SELECTOR_EXISTS, NULL, false, "x", true },
	/* the API server's value wins over a declared one */
	{ NSPACE_NAME_LABEL, SELECTOR_IN, "fake", true, "team", false },
};

static void test_selected(void **state)
{
	struct nspace ns;

	(void)state;
	nspace_init(&ns);
	ns.name = "team";
	labels_set(&ns.labels, "tier", "gold");
	labels_set(&ns.labels, NSPACE_NAME_LABEL, "fake");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *v = cases[i].value;
		struct selector s;

		selector_init(&s);
		if (cases[i].key)
			assert_int_equal(selector_add(&s, cases[i].key,
						      cases[i].op, &v,
						      v ? 1 : 0, NULL),
					 0);
		if (nspace_selected(cases[i].with_object ? &ns : NULL,
				    cases[i].name, &s) != cases[i].want)
			fail_msg("case %zu: want %d", i, cases[i].want);
		selector_release(&s);
	}
	/* the object is not changed by a match */
	assert_string_equal(labels_get(&ns.labels, NSPACE_NAME_LABEL), "fake");
	nspace_release(&ns);
	nspace_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

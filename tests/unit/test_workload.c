// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of workloads' pod sets: added one by one, and shared between
 * workloads of one shape (workload_share_podsets()), whichever of them is
 * released first. The pod sets own arrays (tolerations), so a double free
 * or a leak shows under the sanitizers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "model/workload.h"

#include "base/banned.h"

#define NWL 4

static void make(struct workload *w, size_t npodsets)
{
	workload_init(w);
	w->name = "w";
	for (size_t i = 0; i < npodsets; i++) {
		struct podset *ps = workload_add_podset(w);

		ps->count = (int32_t)(i + 2);
		ps->tolerations = xcalloc(1, sizeof(*ps->tolerations));
		ps->ntolerations = 1;
	}
}

static const struct {
	const char *what;
	size_t npodsets;   /* of the first workload */
	size_t holders;	   /* workloads that share its pod sets, 1..NWL */
	size_t order[NWL]; /* release order */
} cases[] = {
	{ "alone", 2, 1, { 0 } },
	{ "two, the maker first", 1, 2, { 0, 1 } },
	{ "two, the maker last", 1, 2, { 1, 0 } },
	{ "four, mixed order", 3, 4, { 2, 0, 3, 1 } },
	{ "none to share", 0, 3, { 1, 2, 0 } },
};

static void test_share(void **state)
{
	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct workload w[NWL];
		struct podset *ps;
		size_t left = cases[c].holders;

		make(&w[0], cases[c].npodsets);
		ps = w[0].podsets;
		for (size_t i = 1; i < cases[c].holders; i++) {
			workload_init(&w[i]);
			workload_share_podsets(&w[i], &w[0]);
		}
		for (size_t i = 0; i < cases[c].holders; i++) {
			assert_ptr_equal(w[i].podsets, ps);
			assert_int_equal(w[i].npodsets, cases[c].npodsets);
			assert_int_equal(workload_pod_count(&w[i]),
					 (int64_t)(cases[c].npodsets *
						   (cases[c].npodsets + 3) /
						   2));
		}
		for (size_t i = 0; i < cases[c].holders; i++) {
			size_t k = cases[c].order[i];

			assert_int_equal(workload_podsets_shared(&w[k]),
					 cases[c].npodsets && left > 1);
			workload_release(&w[k]);
			assert_null(w[k].podsets);
			assert_false(workload_podsets_shared(&w[k]));
			left--;
			/* the others still read them */
			for (size_t o = i + 1; o < cases[c].holders; o++) {
				size_t m = cases[c].order[o];

				for (size_t p = 0; p < cases[c].npodsets; p++)
					assert_int_equal(w[m].podsets[p].count,
							 (int32_t)(p + 2));
			}
		}
	}
}

/* A workload's own pod sets are not shared: it may add more. */
static void test_own(void **state)
{
	struct workload a, b;

	(void)state;
	make(&a, 1);
	assert_false(workload_podsets_shared(&a));
	assert_non_null(workload_add_podset(&a));
	workload_init(&b);
	workload_share_podsets(&b, &a);
	assert_true(workload_podsets_shared(&a));
	workload_release(&b);
	assert_false(workload_podsets_shared(&a));
	assert_non_null(workload_add_podset(&a));
	assert_int_equal(a.npodsets, 3);
	while (a.npodsets < WORKLOAD_MAX_PODSETS)
		assert_non_null(workload_add_podset(&a));
	assert_null(workload_add_podset(&a));
	workload_release(&a);
	workload_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

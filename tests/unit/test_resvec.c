// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of resource vectors: arithmetic, the fit checks (zero requests,
 * negative availability), the elementwise maximum and the text form.
 */
#include "model/resvec.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/rng.h"
#include "testutil.h"

#include "base/banned.h"

/* The first four ids are enough for every table; the rest stay zero. */
#define W 4

static struct resvec vec(const int64_t v[W])
{
	struct resvec r;

	resvec_zero(&r);
	memcpy(r.v, v, W * sizeof(v[0]));
	return r;
}

static void assert_vec(const struct resvec *r, const int64_t v[W])
{
	for (int i = 0; i < RESOURCE_MAX; i++)
		assert_true(r->v[i] == (i < W ? v[i] : 0));
}

static void test_zero(void **state)
{
	struct resvec r;

	(void)state;
	memset(&r, 0x5a, sizeof(r));
	resvec_zero(&r);
	assert_true(resvec_is_zero(&r));
	r.v[RESOURCE_MAX - 1] = -1;
	assert_false(resvec_is_zero(&r));
}

struct arith_case {
	int64_t a[W], b[W], sum[W], diff[W], max[W];
};

static const struct arith_case arith_cases[] = {
	{ { 0, 0, 0, 0 },
	  { 0, 0, 0, 0 },
	  { 0, 0, 0, 0 },
	  { 0, 0, 0, 0 },
	  { 0, 0, 0, 0 } },
	{ { 4000, 1 << 30, 10, 8 },
	  { 500, 1 << 20, 1, 0 },
	  { 4500, (1 << 30) + (1 << 20), 11, 8 },
	  { 3500, (1 << 30) - (1 << 20), 9, 8 },
	  { 4000, 1 << 30, 10, 8 } },
	{ { 1, 2, 3, 4 },
	  { 5, 1, 3, -4 },
	  { 6, 3, 6, 0 },
	  { -4, 1, 0, 8 },
	  { 5, 2, 3, 4 } },
	{ { -5, 0, 0, 0 },
	  { -7, 0, 0, 0 },
	  { -12, 0, 0, 0 },
	  { 2, 0, 0, 0 },
	  { -5, 0, 0, 0 } },
	{ { INT64_MAX - 1, INT64_MIN + 1, 0, 0 },
	  { 1, -1, INT64_MAX, INT64_MIN + 1 },
	  { INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN + 1 },
	  { INT64_MAX - 2, INT64_MIN + 2, -INT64_MAX, INT64_MAX },
	  { INT64_MAX - 1, -1, INT64_MAX, 0 } },
};

static void test_arith_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(arith_cases); i++) {
		const struct arith_case *c = &arith_cases[i];
		struct resvec a = vec(c->a), b = vec(c->b), r;

		r = a;
		resvec_add(&r, &b);
		assert_vec(&r, c->sum);
		r = a;
		resvec_sub(&r, &b);
		assert_vec(&r, c->diff);
		r = a;
		resvec_max(&r, &b);
		assert_vec(&r, c->max);
		assert_vec(&b, c->b);
	}
}

struct scale_case {
	int64_t a[W], b[W];
	int64_t k;
	int64_t out[W];
};

static const struct scale_case scale_cases[] = {
	{ { 1, 2, 3, 4 }, { 10, 20, 0, -1 }, 0, { 1, 2, 3, 4 } },
	{ { 1, 2, 3, 4 }, { 10, 20, 0, -1 }, 3, { 31, 62, 3, 1 } },
	{ { 1, 2, 3, 4 }, { 10, 20, 0, -1 }, -2, { -19, -38, 3, 6 } },
	{ { 0, 0, 0, 0 },
	  { 1000, 1 << 30, 1, 8 },
	  64,
	  { 64000, 1LL << 36, 64, 512 } },
	{ { 7, 0, 0, 0 },
	  { 1, 0, 0, 0 },
	  INT64_MAX - 7,
	  { INT64_MAX, 0, 0, 0 } },
};

static void test_scale_add_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scale_cases); i++) {
		const struct scale_case *c = &scale_cases[i];
		struct resvec a = vec(c->a), b = vec(c->b);

		resvec_scale_add(&a, &b, c->k);
		assert_vec(&a, c->out);
	}
}

struct fit_case {
	int64_t req[W], avail[W];
	int64_t count; /* resvec_count_fits() */
};

static const struct fit_case fit_cases[] = {
	/* a request for nothing fits anywhere, any number of times */
	{ { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, INT64_MAX },
	{ { 0, 0, 0, 0 }, { -1, -5, 0, 0 }, INT64_MAX },
	/* exact fits and one short */
	{ { 1000, 1024, 1, 0 }, { 1000, 1024, 1, 0 }, 1 },
	{ { 1000, 1024, 1, 0 }, { 999, 1024, 1, 0 }, 0 },
	{ { 1000, 1024, 1, 0 }, { 1000, 1023, 1, 0 }, 0 },
	{ { 1000, 1024, 1, 0 }, { 1000, 1024, 0, 0 }, 0 },
	/* the scarcest resource decides */
	{ { 500, 1 << 30, 1, 1 }, { 8000, 64LL << 30, 110, 8 }, 8 },
	{ { 500, 1 << 30, 1, 1 }, { 3999, 64LL << 30, 110, 8 }, 7 },
	{ { 500, 1 << 30, 1, 0 }, { 64000, 16LL << 30, 110, 0 }, 16 },
	/* a resource not asked for never blocks, even over-committed */
	{ { 1000, 0, 1, 0 }, { 4000, -(1 << 20), 10, -3 }, 4 },
	/* negative availability of a requested resource counts as none */
	{ { 1000, 0, 0, 0 }, { -1000, 0, 0, 0 }, 0 },
	{ { 1, 1, 0, 0 }, { 5, -1, 0, 0 }, 0 },
	/* negative requests are ignored like zero ones */
	{ { -1, 2, 0, 0 }, { -100, 5, 0, 0 }, 2 },
	/* huge values */
	{ { 1, 0, 0, 0 }, { INT64_MAX, 0, 0, 0 }, INT64_MAX },
	{ { INT64_MAX, 0, 0, 0 }, { INT64_MAX, 0, 0, 0 }, 1 },
	{ { 2, 0, 0, 0 }, { INT64_MAX, 0, 0, 0 }, INT64_MAX / 2 },
};

static void test_fit_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fit_cases); i++) {
		const struct fit_case *c = &fit_cases[i];
		struct resvec req = vec(c->req), avail = vec(c->avail);

		if (resvec_count_fits(&req, &avail) != c->count)
			print_error("case %zu: count %lld\n", i,
				    (long long)resvec_count_fits(&req, &avail));
		assert_true(resvec_count_fits(&req, &avail) == c->count);
		assert_int_equal(resvec_fits(&req, &avail), c->count >= 1);
	}
}

/*
 * On random vectors: count_fits copies really fit and one more does not,
 * and resvec_fits agrees with count_fits >= 1.
 */
static void test_fit_random(void **state)
{
	struct rng rng;

	(void)state;
	rng_seed(&rng, 7);
	for (int iter = 0; iter < 20000; iter++) {
		struct resvec req, avail, used;
		int64_t n;

		resvec_zero(&req);
		resvec_zero(&avail);
		for (int i = 0; i < RESOURCE_MAX; i++) {
			req.v[i] = (int64_t)rng_below(&rng, 5) *
				   (int64_t)rng_below(&rng, 3);
			avail.v[i] = (int64_t)rng_below(&rng, 60) - 5;
		}
		n = resvec_count_fits(&req, &avail);
		assert_int_equal(resvec_fits(&req, &avail), n >= 1);
		if (n == INT64_MAX) {
			assert_true(resvec_is_zero(&req));
			continue;
		}
		resvec_zero(&used);
		resvec_scale_add(&used, &req, n);
		assert_true(resvec_fits(&used, &avail) || n == 0);
		resvec_add(&used, &req);
		assert_false(resvec_fits(&used, &avail));
	}
}

static void test_format(void **state)
{
	struct resource_registry reg;
	struct resvec r;
	struct strbuf sb;
	int gpu;

	(void)state;
	resource_registry_init(&reg);
	gpu = resource_id(&reg, "nvidia.com/gpu", NULL);
	assert_int_equal(gpu, RESOURCE_FIXED_COUNT);
	strbuf_init(&sb);
	resvec_zero(&r);
	resvec_format(&r, &reg, &sb);
	assert_string_equal(sb.buf, "");
	r.v[RESOURCE_CPU] = 4000;
	r.v[RESOURCE_MEMORY] = 16LL << 30;
	r.v[gpu] = 8;
	resvec_format(&r, &reg, &sb);
	assert_string_equal(sb.buf, "cpu=4,memory=16Gi,nvidia.com/gpu=8");
	strbuf_reset(&sb);
	r.v[RESOURCE_CPU] = 0;
	r.v[RESOURCE_MEMORY] = -(1 << 20);
	r.v[RESOURCE_PODS] = 110;
	resvec_format(&r, &reg, &sb);
	assert_string_equal(sb.buf, "memory=-1Mi,pods=110,nvidia.com/gpu=8");
	strbuf_release(&sb);
	resource_registry_release(&reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_arith_table),
		cmocka_unit_test(test_scale_add_table),
		cmocka_unit_test(test_fit_table),
		cmocka_unit_test(test_fit_random),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

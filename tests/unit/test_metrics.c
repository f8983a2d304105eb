// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the metrics registry: the exact exposition text of counters,
 * gauges and histograms with and without labels, the escaping of help and
 * label values, the spelling of numbers, the same bytes whatever the order
 * of registration, series creation and labels, re-registration, Kueue's
 * bucket sets, and the misuses that must abort.
 */
#include "base/metrics.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "testutil.h"

#include "base/banned.h"

/* The registry's text, compared in full. */
static void check_text(const struct metrics *m, const char *want)
{
	struct strbuf sb;

	strbuf_init(&sb);
	metrics_write(m, &sb);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

static void test_counter_gauge(void **state)
{
	struct metrics *m = metrics_new();
	int c, g;

	(void)state;
	check_text(m, "");
	c = metrics_family(m, "jobs_total", "Jobs seen.", METRICS_COUNTER, NULL,
			   0);
	g = metrics_family(m, "temperature", "Degrees.", METRICS_GAUGE, NULL,
			   0);
	metrics_add(m, c, NULL, 1);
	metrics_add(m, c, NULL, 2.5);
	metrics_add(m, c, NULL, 0);
	metrics_set(m, g, NULL, 20);
	metrics_add(m, g, NULL, -25);
	check_text(m, "# HELP jobs_total Jobs seen.\n"
		      "# TYPE jobs_total counter\n"
		      "jobs_total 3.5\n"
		      "# HELP temperature Degrees.\n"
		      "# TYPE temperature gauge\n"
		      "temperature -5\n");
	metrics_set(m, g, NULL, 0.25);
	check_text(m, "# HELP jobs_total Jobs seen.\n"
		      "# TYPE jobs_total counter\n"
		      "jobs_total 3.5\n"
		      "# HELP temperature Degrees.\n"
		      "# TYPE temperature gauge\n"
		      "temperature 0.25\n");
	metrics_free(m);
	metrics_free(NULL);
}

static void test_labels(void **state)
{
	struct metrics *m = metrics_new();
	const char *const get200[] = { "code", "200", "method", "get", NULL };
	const char *const get200r[] = { "method", "get", "code", "200", NULL };
	const char *const post200[] = { "method", "post", "code", "200", NULL };
	const char *const get500[] = { "code", "500", "method", "get", NULL };
	const char *const one[] = { "code", "200", NULL };
	const char *const empty[] = { NULL };
	int c;

	(void)state;
	c = metrics_family(m, "requests_total", "Requests.", METRICS_COUNTER,
			   NULL, 0);
	metrics_add(m, c, get500, 1);
	metrics_add(m, c, get200, 1);
	metrics_add(m, c, get200r, 2); /* the same series */
	metrics_add(m, c, post200, 1);
	metrics_add(m, c, NULL, 7);
	metrics_add(m, c, empty, 1); /* also no labels */
	metrics_add(m, c, one, 4);
	check_text(m, "# HELP requests_total Requests.\n"
		      "# TYPE requests_total counter\n"
		      "requests_total 8\n"
		      "requests_total{code=\"200\"} 4\n"
		      "requests_total{code=\"200\",method=\"get\"} 3\n"
		      "requests_total{code=\"200\",method=\"post\"} 1\n"
		      "requests_total{code=\"500\",method=\"get\"} 1\n");
	metrics_free(m);
}

static void test_histogram(void **state)
{
	static const double b[] = { 1, 2.5, 5 };
	const char *const qa[] = { "queue", "a", NULL };
	const char *const qn[] = { "queue", "n", NULL };
	struct metrics *m = metrics_new();
	int h;

	(void)state;
	h = metrics_family(m, "wait_seconds", "Wait.", METRICS_HISTOGRAM, b,
			   ARRAY_SIZE(b));
	metrics_observe(m, h, NULL, 0.5);
	metrics_observe(m, h, NULL, 1); /* on a bound: that bucket */
	metrics_observe(m, h, NULL, 3);
	metrics_observe(m, h, NULL, 100); /* above the last: +Inf only */
	metrics_observe(m, h, qa, 2.5);
	metrics_observe(m, h, qn, NAN);
	check_text(m, "# HELP wait_seconds Wait.\n"
		      "# TYPE wait_seconds histogram\n"
		      "wait_seconds_bucket{le=\"1\"} 2\n"
		      "wait_seconds_bucket{le=\"2.5\"} 2\n"
		      "wait_seconds_bucket{le=\"5\"} 3\n"
		      "wait_seconds_bucket{le=\"+Inf\"} 4\n"
		      "wait_seconds_sum 104.5\n"
		      "wait_seconds_count 4\n"
		      "wait_seconds_bucket{queue=\"a\",le=\"1\"} 0\n"
		      "wait_seconds_bucket{queue=\"a\",le=\"2.5\"} 1\n"
		      "wait_seconds_bucket{queue=\"a\",le=\"5\"} 1\n"
		      "wait_seconds_bucket{queue=\"a\",le=\"+Inf\"} 1\n"
		      "wait_seconds_sum{queue=\"a\"} 2.5\n"
		      "wait_seconds_count{queue=\"a\"} 1\n"
		      "wait_seconds_bucket{queue=\"n\",le=\"1\"} 0\n"
		      "wait_seconds_bucket{queue=\"n\",le=\"2.5\"} 0\n"
		      "wait_seconds_bucket{queue=\"n\",le=\"5\"} 0\n"
		      "wait_seconds_bucket{queue=\"n\",le=\"+Inf\"} 1\n"
		      "wait_seconds_sum{queue=\"n\"} NaN\n"
		      "wait_seconds_count{queue=\"n\"} 1\n");
	metrics_free(m);
}

/* A histogram with no bounds has only the +Inf bucket. */
static void test_histogram_no_bounds(void **state)
{
	struct metrics *m = metrics_new();
	int h;

	(void)state;
	h = metrics_family(m, "h", NULL, METRICS_HISTOGRAM, NULL, 0);
	metrics_observe(m, h, NULL, -3);
	check_text(m, "# TYPE h histogram\n"
		      "h_bucket{le=\"+Inf\"} 1\n"
		      "h_sum -3\n"
		      "h_count 1\n");
	metrics_free(m);
}

static void test_escaping(void **state)
{
	const char *const l[] = { "v", "a\\b\"c\"\nd", "w", "", NULL };
	struct metrics *m = metrics_new();
	int g;

	(void)state;
	g = metrics_family(m, "escape", "Back\\slash, \"quotes\" and\nnewline.",
			   METRICS_GAUGE, NULL, 0);
	metrics_set(m, g, l, 1);
	check_text(m, "# HELP escape Back\\\\slash, \"quotes\" and\\nnewline.\n"
		      "# TYPE escape gauge\n"
		      "escape{v=\"a\\\\b\\\"c\\\"\\nd\",w=\"\"} 1\n");
	metrics_free(m);
}

struct number_case {
	double v;
	const char *text;
};

static void test_numbers(void **state)
{
	const struct number_case cases[] = {
		{ 0, "0" },
		{ -0.0, "0" },
		{ 1, "1" },
		{ -1, "-1" },
		{ 42, "42" },
		{ 0.5, "0.5" },
		{ 0.1, "0.1" },
		{ 1.0 / 3, "0.3333333333333333" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 1e-7, "1e-07" },
		{ 123.456, "123.456" },
		{ 999999999999999, "999999999999999" },
		{ -999999999999999, "-999999999999999" },
		{ 1e15, "1e+15" },
		{ 9007199254740992.0, "9007199254740992" }, /* %.16g */
		{ 123456789012345678.0, "1.2345678901234568e+17" },
		{ 1e20, "1e+20" },
		{ DBL_MAX, "1.7976931348623157e+308" },
		{ -DBL_MAX, "-1.7976931348623157e+308" },
		{ DBL_MIN, "2.2250738585072014e-308" },
		{ 4.9e-324, "4.94065645841247e-324" },
		{ INFINITY, "+Inf" },
		{ -INFINITY, "-Inf" },
		{ NAN, "NaN" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct metrics *m = metrics_new();
		struct strbuf want;
		int g = metrics_family(m, "v", NULL, METRICS_GAUGE, NULL, 0);

		metrics_set(m, g, NULL, cases[i].v);
		strbuf_init(&want);
		strbuf_addf(&want, "# TYPE v gauge\nv %s\n", cases[i].text);
		check_text(m, want.buf);
		strbuf_release(&want);
		metrics_free(m);
	}
}

/* Counters that go past the integer spelling, and large counts. */
static void test_large_values(void **state)
{
	static const double b[] = { 0.001, 1e15, 1e300 };
	struct metrics *m = metrics_new();
	int c, h;

	(void)state;
	c = metrics_family(m, "bytes_total", "Bytes.", METRICS_COUNTER, NULL,
			   0);
	h = metrics_family(m, "size", "Sizes.", METRICS_HISTOGRAM, b,
			   ARRAY_SIZE(b));
	metrics_add(m, c, NULL, 999999999999998);
	metrics_add(m, c, NULL, 1);
	check_text(m, "# HELP bytes_total Bytes.\n"
		      "# TYPE bytes_total counter\n"
		      "bytes_total 999999999999999\n"
		      "# HELP size Sizes.\n"
		      "# TYPE size histogram\n");
	metrics_add(m, c, NULL, 1);
	metrics_add(m, c, NULL, INFINITY);
	for (int i = 0; i < 100000; i++)
		metrics_observe(m, h, NULL, 1e15);
	check_text(m, "# HELP bytes_total Bytes.\n"
		      "# TYPE bytes_total counter\n"
		      "bytes_total +Inf\n"
		      "# HELP size Sizes.\n"
		      "# TYPE size histogram\n"
		      "size_bucket{le=\"0.001\"} 0\n"
		      "size_bucket{le=\"1e+15\"} 100000\n"
		      "size_bucket{le=\"1e+300\"} 100000\n"
		      "size_bucket{le=\"+Inf\"} 100000\n"
		      "size_sum 1e+20\n"
		      "size_count 100000\n");
	metrics_free(m);
}

/*
 * The same recordings in any order give the same text: families
 * registered in every order, series created forwards and backwards, and
 * labels given in two orders.
 */
struct fam_spec {
	const char *name, *help;
	enum metrics_type type;
};

struct op {
	int fam; /* index into fams */
	const char *k1, *v1, *k2, *v2;
	double v;
};

static const double order_bounds[] = { 10, 100 };

static const struct fam_spec fams[] = {
	{ "zeta_total", "Last by name.", METRICS_COUNTER },
	{ "alpha", "First by name.", METRICS_GAUGE },
	{ "mid_seconds", "A histogram.", METRICS_HISTOGRAM },
};

static const struct op ops[] = {
	{ 0, "q", "b", "p", "x", 1 },	{ 0, "q", "a", "p", "x", 2 },
	{ 0, "q", "b", "p", "x", 3 },	{ 0, "q", "a", "p", "y", 4 },
	{ 1, "q", "a", "p", "x", 1.5 }, { 1, "q", "a", "p", "x", -3 },
	{ 1, "q", "", "p", "x", 7 },	{ 2, "q", "b", "p", "x", 5 },
	{ 2, "q", "a", "p", "x", 50 },	{ 2, "q", "b", "p", "x", 500 },
	{ 2, "q", "b", "p", "x", 10 },
};

static const char order_want[] =
	"# HELP alpha First by name.\n"
	"# TYPE alpha gauge\n"
	"alpha{p=\"x\",q=\"\"} 7\n"
	"alpha{p=\"x\",q=\"a\"} -1.5\n"
	"# HELP mid_seconds A histogram.\n"
	"# TYPE mid_seconds histogram\n"
	"mid_seconds_bucket{p=\"x\",q=\"a\",le=\"10\"} 0\n"
	"mid_seconds_bucket{p=\"x\",q=\"a\",le=\"100\"} 1\n"
	"mid_seconds_bucket{p=\"x\",q=\"a\",le=\"+Inf\"} 1\n"
	"mid_seconds_sum{p=\"x\",q=\"a\"} 50\n"
	"mid_seconds_count{p=\"x\",q=\"a\"} 1\n"
	"mid_seconds_bucket{p=\"x\",q=\"b\",le=\"10\"} 2\n"
	"mid_seconds_bucket{p=\"x\",q=\"b\",le=\"100\"} 2\n"
	"mid_seconds_bucket{p=\"x\",q=\"b\",le=\"+Inf\"} 3\n"
	"mid_seconds_sum{p=\"x\",q=\"b\"} 515\n"
	"mid_seconds_count{p=\"x\",q=\"b\"} 3\n"
	"# HELP zeta_total Last by name.\n"
	"# TYPE zeta_total counter\n"
	"zeta_total{p=\"x\",q=\"a\"} 2\n"
	"zeta_total{p=\"x\",q=\"b\"} 4\n"
	"zeta_total{p=\"y\",q=\"a\"} 4\n";

static void run_ops(const int *perm, bool backwards, bool swap)
{
	struct metrics *m = metrics_new();
	int ids[ARRAY_SIZE(fams)];
	size_t n = ARRAY_SIZE(ops);

	for (size_t i = 0; i < ARRAY_SIZE(fams); i++) {
		const struct fam_spec *f = &fams[perm[i]];
		int hist = f->type == METRICS_HISTOGRAM;

		ids[perm[i]] =
			metrics_family(m, f->name, f->help, f->type,
				       hist ? order_bounds : NULL,
				       hist ? ARRAY_SIZE(order_bounds) : 0);
	}
	for (size_t i = 0; i < n; i++) {
		const struct op *o = &ops[backwards ? n - 1 - i : i];
		const char *l[] = { o->k1, o->v1, o->k2, o->v2, NULL };
		const char *r[] = { o->k2, o->v2, o->k1, o->v1, NULL };
		const char *const *lab = swap ? r : l;

		if (fams[o->fam].type == METRICS_HISTOGRAM)
			metrics_observe(m, ids[o->fam], lab, o->v);
		else
			metrics_add(m, ids[o->fam], lab, o->v);
	}
	check_text(m, order_want);
	metrics_free(m);
}

static void test_order_independence(void **state)
{
	static const int perms[][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
					{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };

	(void)state;
	for (size_t p = 0; p < ARRAY_SIZE(perms); p++)
		for (int k = 0; k < 4; k++)
			run_ops(perms[p], k & 1, k & 2);
}

static void test_reregister(void **state)
{
	static const double b[] = { 1, 2 };
	const char *const l[] = { "a", "1", NULL };
	struct metrics *m = metrics_new();
	int c, c2, g, h, h2;

	(void)state;
	c = metrics_family(m, "c_total", "C.", METRICS_COUNTER, NULL, 0);
	g = metrics_family(m, "g", NULL, METRICS_GAUGE, NULL, 0);
	h = metrics_family(m, "h", "H.", METRICS_HISTOGRAM, b, ARRAY_SIZE(b));
	assert_int_equal(c, 0);
	assert_int_equal(g, 1);
	assert_int_equal(h, 2);
	metrics_add(m, c, l, 1);
	c2 = metrics_family(m, "c_total", "C.", METRICS_COUNTER, NULL, 0);
	assert_int_equal(c2, c);
	assert_int_equal(metrics_family(m, "g", NULL, METRICS_GAUGE, NULL, 0),
			 g);
	h2 = metrics_family(m, "h", "H.", METRICS_HISTOGRAM, b, ARRAY_SIZE(b));
	assert_int_equal(h2, h);
	metrics_add(m, c2, l, 2);
	/* names that only look like a histogram's series */
	assert_int_equal(
		metrics_family(m, "g_count", NULL, METRICS_GAUGE, NULL, 0), 3);
	assert_int_equal(
		metrics_family(m, "c_total_sum", NULL, METRICS_GAUGE, NULL, 0),
		4);
	check_text(m, "# HELP c_total C.\n"
		      "# TYPE c_total counter\n"
		      "c_total{a=\"1\"} 3\n"
		      "# TYPE c_total_sum gauge\n"
		      "# TYPE g gauge\n"
		      "# TYPE g_count gauge\n"
		      "# HELP h H.\n"
		      "# TYPE h histogram\n");
	metrics_free(m);
}

static void test_touch(void **state)
{
	static const double b[] = { 1 };
	const char *const l[] = { "k", "v", NULL };
	struct metrics *m = metrics_new();
	int c, g, h;

	(void)state;
	c = metrics_family(m, "c_total", "C.", METRICS_COUNTER, NULL, 0);
	g = metrics_family(m, "g", "G.", METRICS_GAUGE, NULL, 0);
	h = metrics_family(m, "h", "H.", METRICS_HISTOGRAM, b, ARRAY_SIZE(b));
	metrics_touch(m, c, l);
	metrics_touch(m, g, NULL);
	metrics_touch(m, h, l);
	metrics_set(m, g, l, 3);
	metrics_touch(m, g, l); /* leaves the value */
	check_text(m, "# HELP c_total C.\n"
		      "# TYPE c_total counter\n"
		      "c_total{k=\"v\"} 0\n"
		      "# HELP g G.\n"
		      "# TYPE g gauge\n"
		      "g 0\n"
		      "g{k=\"v\"} 3\n"
		      "# HELP h H.\n"
		      "# TYPE h histogram\n"
		      "h_bucket{k=\"v\",le=\"1\"} 0\n"
		      "h_bucket{k=\"v\",le=\"+Inf\"} 0\n"
		      "h_sum{k=\"v\"} 0\n"
		      "h_count{k=\"v\"} 0\n");
	metrics_free(m);
}

static void test_kueue_buckets(void **state)
{
	static const double want[METRICS_B16_LEN] = {
		1,   2.5, 5,	10,   20,   40,	   80,	  160,
		320, 640, 1280, 2560, 5120, 10240, 20480, 40960,
	};
	struct metrics *m = metrics_new();
	struct strbuf sb;
	int h16, h14;

	(void)state;
	assert_memory_equal(metrics_buckets_b16, want, sizeof(want));
	h16 = metrics_family(m, "b16", NULL, METRICS_HISTOGRAM,
			     metrics_buckets_b16, METRICS_B16_LEN);
	h14 = metrics_family(m, "b14", NULL, METRICS_HISTOGRAM,
			     metrics_buckets_b16, METRICS_B14_LEN);
	metrics_observe(m, h16, NULL, 3);
	metrics_observe(m, h16, NULL, 40960);
	metrics_observe(m, h14, NULL, 10240);
	metrics_observe(m, h14, NULL, 10241);
	strbuf_init(&sb);
	metrics_write(m, &sb);
	assert_string_equal(sb.buf, "# TYPE b14 histogram\n"
				    "b14_bucket{le=\"1\"} 0\n"
				    "b14_bucket{le=\"2.5\"} 0\n"
				    "b14_bucket{le=\"5\"} 0\n"
				    "b14_bucket{le=\"10\"} 0\n"
				    "b14_bucket{le=\"20\"} 0\n"
				    "b14_bucket{le=\"40\"} 0\n"
				    "b14_bucket{le=\"80\"} 0\n"
				    "b14_bucket{le=\"160\"} 0\n"
				    "b14_bucket{le=\"320\"} 0\n"
				    "b14_bucket{le=\"640\"} 0\n"
				    "b14_bucket{le=\"1280\"} 0\n"
				    "b14_bucket{le=\"2560\"} 0\n"
				    "b14_bucket{le=\"5120\"} 0\n"
				    "b14_bucket{le=\"10240\"} 1\n"
				    "b14_bucket{le=\"+Inf\"} 2\n"
				    "b14_sum 20481\n"
				    "b14_count 2\n"
				    "# TYPE b16 histogram\n"
				    "b16_bucket{le=\"1\"} 0\n"
				    "b16_bucket{le=\"2.5\"} 0\n"
				    "b16_bucket{le=\"5\"} 1\n"
				    "b16_bucket{le=\"10\"} 1\n"
				    "b16_bucket{le=\"20\"} 1\n"
				    "b16_bucket{le=\"40\"} 1\n"
				    "b16_bucket{le=\"80\"} 1\n"
				    "b16_bucket{le=\"160\"} 1\n"
				    "b16_bucket{le=\"320\"} 1\n"
				    "b16_bucket{le=\"640\"} 1\n"
				    "b16_bucket{le=\"1280\"} 1\n"
				    "b16_bucket{le=\"2560\"} 1\n"
				    "b16_bucket{le=\"5120\"} 1\n"
				    "b16_bucket{le=\"10240\"} 1\n"
				    "b16_bucket{le=\"20480\"} 1\n"
				    "b16_bucket{le=\"40960\"} 2\n"
				    "b16_bucket{le=\"+Inf\"} 2\n"
				    "b16_sum 40963\n"
				    "b16_count 2\n");
	strbuf_release(&sb);
	metrics_free(m);
}

/*
 * The history in OpenMetrics: a counter's family without _total, series
 * that appear later have samples from then on, histograms per timestamp,
 * timestamps from the epoch to the millisecond, two registries as one;
 * thinning keeps the first, third... sample.
 */
static const char want_om[] = "# TYPE jobs counter\n"
			      "# HELP jobs Jobs \\\"done\\\".\n"
			      "jobs_total{q=\"a\",run=\"1\"} 1 100\n"
			      "jobs_total{q=\"a\",run=\"1\"} 3 100.500\n"
			      "jobs_total{q=\"a\",run=\"2\"} 7 100.001\n"
			      "jobs_total{q=\"b\",run=\"1\"} 2 100.500\n"
			      "# TYPE wait histogram\n"
			      "wait_bucket{run=\"1\",le=\"1\"} 0 100\n"
			      "wait_bucket{run=\"1\",le=\"+Inf\"} 1 100\n"
			      "wait_count{run=\"1\"} 1 100\n"
			      "wait_sum{run=\"1\"} 4 100\n"
			      "wait_bucket{run=\"1\",le=\"1\"} 1 100.500\n"
			      "wait_bucket{run=\"1\",le=\"+Inf\"} 2 100.500\n"
			      "wait_count{run=\"1\"} 2 100.500\n"
			      "wait_sum{run=\"1\"} 4.5 100.500\n"
			      "# EOF\n";

static void test_openmetrics(void **state)
{
	static const double b[] = { 1 };
	struct metrics *m1 = metrics_new(), *m2 = metrics_new();
	const struct metrics *ms[2] = { m1, m2 };
	const char *const a1[] = { "q", "a", "run", "1", NULL };
	const char *const b1[] = { "q", "b", "run", "1", NULL };
	const char *const a2[] = { "q", "a", "run", "2", NULL };
	const char *const r1[] = { "run", "1", NULL };
	int c1 = metrics_family(m1, "jobs_total", "Jobs \"done\".",
				METRICS_COUNTER, NULL, 0);
	int c2 = metrics_family(m2, "jobs_total", "Jobs \"done\".",
				METRICS_COUNTER, NULL, 0);
	int h = metrics_family(m1, "wait", NULL, METRICS_HISTOGRAM, b, 1);
	const char *first;
	struct strbuf out;

	(void)state;
	strbuf_init(&out);
	metrics_add(m1, c1, a1, 1);
	metrics_observe(m1, h, r1, 4);
	metrics_sample(m1, 0);
	metrics_add(m1, c1, a1, 2);
	metrics_add(m1, c1, b1, 2);
	metrics_observe(m1, h, r1, 0.5);
	metrics_sample(m1, 500);
	metrics_add(m2, c2, a2, 7);
	metrics_sample(m2, 1);
	assert_int_equal(metrics_samples(m1), 2);
	metrics_write_openmetrics(ms, 2, 100, &out);
	assert_string_equal(out.buf, want_om);

	/* the same two as one exposition: one family, both series */
	strbuf_reset(&out);
	metrics_write_all(ms, 2, &out);
	assert_non_null(strstr(out.buf, "jobs_total{q=\"a\",run=\"2\"} 7\n"
					"jobs_total{q=\"b\",run=\"1\"} 2\n"));
	first = strstr(out.buf, "# TYPE jobs_total counter\n");
	assert_non_null(first);
	assert_null(strstr(first + 1, "# TYPE jobs_total"));

	/* thinning: samples 0 and 2 of three stay */
	metrics_add(m1, c1, a1, 1);
	metrics_sample(m1, 900);
	metrics_thin(m1);
	assert_int_equal(metrics_samples(m1), 2);
	strbuf_reset(&out);
	metrics_write_openmetrics(ms, 1, 0, &out);
	assert_non_null(strstr(out.buf,
			       "jobs_total{q=\"a\",run=\"1\"} 1 0\n"
			       "jobs_total{q=\"a\",run=\"1\"} 4 0.900\n"));
	/* b's first sample was the second: dropped; its third kept */
	assert_non_null(
		strstr(out.buf, "jobs_total{q=\"b\",run=\"1\"} 2 0.900\n"));
	assert_null(strstr(out.buf, " 0.500\n"));
	strbuf_release(&out);
	metrics_free(m1);
	metrics_free(m2);
}

/* Misuse: each case must abort through BUG_ON. */
static const double bad_bounds[] = { 1, 1 };
static const double inf_bounds[] = { 1, INFINITY };

static void bad_name(struct metrics *m)
{
	metrics_family(m, "1abc", NULL, METRICS_GAUGE, NULL, 0);
}

static void bad_name_dash(struct metrics *m)
{
	metrics_family(m, "a-b", NULL, METRICS_GAUGE, NULL, 0);
}

static void counter_decrease(struct metrics *m)
{
	int c = metrics_family(m, "c_total", NULL, METRICS_COUNTER, NULL, 0);

	metrics_add(m, c, NULL, -1);
}

static void set_counter(struct metrics *m)
{
	int c = metrics_family(m, "c_total", NULL, METRICS_COUNTER, NULL, 0);

	metrics_set(m, c, NULL, 1);
}

static void observe_gauge(struct metrics *m)
{
	int g = metrics_family(m, "g", NULL, METRICS_GAUGE, NULL, 0);

	metrics_observe(m, g, NULL, 1);
}

static void type_changed(struct metrics *m)
{
	metrics_family(m, "x", NULL, METRICS_GAUGE, NULL, 0);
	metrics_family(m, "x", NULL, METRICS_COUNTER, NULL, 0);
}

static void help_changed(struct metrics *m)
{
	metrics_family(m, "x", "one", METRICS_GAUGE, NULL, 0);
	metrics_family(m, "x", "two", METRICS_GAUGE, NULL, 0);
}

static void buckets_changed(struct metrics *m)
{
	metrics_family(m, "x", NULL, METRICS_HISTOGRAM, metrics_buckets_b16,
		       METRICS_B16_LEN);
	metrics_family(m, "x", NULL, METRICS_HISTOGRAM, metrics_buckets_b16,
		       METRICS_B14_LEN);
}

static void buckets_not_increasing(struct metrics *m)
{
	metrics_family(m, "x", NULL, METRICS_HISTOGRAM, bad_bounds, 2);
}

static void buckets_inf(struct metrics *m)
{
	metrics_family(m, "x", NULL, METRICS_HISTOGRAM, inf_bounds, 2);
}

static void buckets_on_gauge(struct metrics *m)
{
	metrics_family(m, "x", NULL, METRICS_GAUGE, metrics_buckets_b16, 1);
}

static void histogram_suffix(struct metrics *m)
{
	metrics_family(m, "x", NULL, METRICS_HISTOGRAM, NULL, 0);
	metrics_family(m, "x_count", NULL, METRICS_GAUGE, NULL, 0);
}

static void histogram_over_suffix(struct metrics *m)
{
	metrics_family(m, "x_bucket", NULL, METRICS_GAUGE, NULL, 0);
	metrics_family(m, "x", NULL, METRICS_HISTOGRAM, NULL, 0);
}

static void label_le(struct metrics *m)
{
	const char *const l[] = { "le", "1", NULL };
	int h = metrics_family(m, "x", NULL, METRICS_HISTOGRAM, NULL, 0);

	metrics_observe(m, h, l, 1);
}

static void label_twice(struct metrics *m)
{
	const char *const l[] = { "a", "1", "b", "2", "a", "3", NULL };
	int g = metrics_family(m, "x", NULL, METRICS_GAUGE, NULL, 0);

	metrics_set(m, g, l, 1);
}

static void label_reserved(struct metrics *m)
{
	const char *const l[] = { "__name__", "1", NULL };
	int g = metrics_family(m, "x", NULL, METRICS_GAUGE, NULL, 0);

	metrics_set(m, g, l, 1);
}

static void label_colon(struct metrics *m)
{
	const char *const l[] = { "a:b", "1", NULL };
	int g = metrics_family(m, "x", NULL, METRICS_GAUGE, NULL, 0);

	metrics_set(m, g, l, 1);
}

static void label_no_value(struct metrics *m)
{
	const char *const l[] = { "a", NULL };
	int g = metrics_family(m, "x", NULL, METRICS_GAUGE, NULL, 0);

	metrics_set(m, g, l, 1);
}

static void unknown_family(struct metrics *m)
{
	metrics_family(m, "x", NULL, METRICS_GAUGE, NULL, 0);
	metrics_set(m, 1, NULL, 1);
}

static void (*const misuses[])(struct metrics *m) = {
	bad_name,
	bad_name_dash,
	counter_decrease,
	set_counter,
	observe_gauge,
	type_changed,
	help_changed,
	buckets_changed,
	buckets_not_increasing,
	buckets_inf,
	buckets_on_gauge,
	histogram_suffix,
	histogram_over_suffix,
	label_le,
	label_twice,
	label_reserved,
	label_colon,
	label_no_value,
	unknown_family,
};

static void test_misuse_aborts(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(misuses); i++) {
		int status;
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0)
				dup2(fd, STDERR_FILENO);
			misuses[i](metrics_new());
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
			fail_msg("misuse %zu did not abort", i);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_gauge),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_histogram_no_bounds),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_large_values),
		cmocka_unit_test(test_order_independence),
		cmocka_unit_test(test_reregister),
		cmocka_unit_test(test_touch),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_kueue_buckets),
		cmocka_unit_test(test_misuse_aborts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

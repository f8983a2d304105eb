// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the JSONL trace reader and writer: a table of one-line inputs
 * with the exact diagnostics they must produce (every field, every kind of
 * error, warnings for unknown fields), all-or-nothing files, limits on line
 * length and job count, the seconds and duration parsers, job classes,
 * the fixture files under tests/data/trace, and write-then-parse round
 * trips.
 */
#include "sim/trace.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/cluster.h"
#include "testutil.h"

#include "base/banned.h"

struct env {
	struct intern strings;
	struct resource_registry res;
	struct trace t;
	struct diag d;
};

static int setup(void **state)
{
	struct env *e = xcalloc(1, sizeof(*e));

	intern_init(&e->strings);
	resource_registry_init(&e->res);
	trace_init(&e->t, &e->strings, &e->res);
	diag_init(&e->d);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	trace_release(&e->t);
	diag_release(&e->d);
	resource_registry_release(&e->res);
	intern_release(&e->strings);
	free(e);
	return 0;
}

/* Parse text; return the diagnostics, formatted (caller frees). */
static char *parse(struct env *e, const char *text, int want_rc)
{
	struct strbuf sb;
	char *ret;
	int rc;

	diag_release(&e->d);
	diag_init(&e->d);
	rc = trace_parse_jsonl(&e->t, "t.jsonl", text, strlen(text), &e->d);
	strbuf_init(&sb);
	diag_format(&e->d, &sb);
	if (rc != want_rc)
		fail_msg("rc %d, want %d for %s: %s", rc, want_rc, text,
			 sb.buf);
	ret = strbuf_take(&sb);
	strbuf_release(&sb);
	return ret;
}

struct bad_case {
	const char *line;
	const char *diag; /* diag_format output */
};

#define OK "\"name\":\"a\",\"submit_s\":0,\"duration_s\":1"
/* Filler of the given lengths (valid in a class name). */
#define C8  "a1b2c3d4"
#define C64 C8 C8 C8 C8 C8 C8 C8 C8

static const struct bad_case bad_cases[] = {
	{ "{", "t.jsonl:1:1: invalid JSON: string or '}' expected near end "
	       "of file\n" },
	{ "{\"a\":1} x", "t.jsonl:1:9: invalid JSON: end of file expected "
			 "near 'x'\n" },
	{ "[1]", "t.jsonl:1:1: a job must be a JSON object\n" },
	{ "  {}", "t.jsonl:1:3: name: is required\n"
		  "t.jsonl:1:3: submit_s: is required\n"
		  "t.jsonl:1:3: duration_s: is required\n" },
	{ "{" OK ",\"name\":\"b\"}",
	  "t.jsonl:1:46: invalid JSON: duplicate object key near "
	  "'\"name\"'\n" },
	{ "{\"name\":\"A_b\",\"submit_s\":0,\"duration_s\":1}",
	  "t.jsonl:1:9: name: must be a DNS-1123 subdomain (lowercase "
	  "letters, digits, '-' and '.', at most 253)\n" },
	{ "{\"name\":7,\"submit_s\":0,\"duration_s\":1}",
	  "t.jsonl:1:9: name: must be a DNS-1123 subdomain (lowercase "
	  "letters, digits, '-' and '.', at most 253)\n" },
	{ "{\"name\":\"a\",\"submit_s\":-1,\"duration_s\":1}",
	  "t.jsonl:1:24: submit_s: must not be negative\n" },
	{ "{\"name\":\"a\",\"submit_s\":\"0\",\"duration_s\":1}",
	  "t.jsonl:1:24: submit_s: must be a number of seconds\n" },
	{ "{\"name\":\"a\",\"submit_s\":1e11,\"duration_s\":1}",
	  "t.jsonl:1:24: submit_s: must be at most 10000000000 seconds\n" },
	{ "{\"name\":\"a\",\"submit_s\":0,\"duration_s\":0}",
	  "t.jsonl:1:39: duration_s: must be positive\n" },
	{ "{\"name\":\"a\",\"submit_s\":0,\"duration_s\":0.0000004}",
	  "t.jsonl:1:39: duration_s: must be positive\n" },
	{ "{" OK ",\"pods\":0}",
	  "t.jsonl:1:48: pods: must be between 1 and 100000, not 0\n" },
	{ "{" OK ",\"pods\":1.5}", "t.jsonl:1:48: pods: must be an integer\n" },
	{ "{" OK ",\"pods\":4,\"minCount\":5}",
	  "t.jsonl:1:61: minCount: must be between 1 and 4, not 5\n" },
	{ "{" OK ",\"priority\":4294967296}",
	  "t.jsonl:1:52: priority: must be between -2147483648 and "
	  "2147483647, not 4294967296\n" },
	{ "{" OK ",\"queue\":\"\"}",
	  "t.jsonl:1:49: queue: must be a non-empty string of at most 317 "
	  "bytes\n" },
	{ "{" OK ",\"class\":\"\"}",
	  "t.jsonl:1:49: class: must be a string of 1 to 63 letters, digits, "
	  "'.', '_' and '-'\n" },
	{ "{" OK ",\"parallelism\":\"model\"}",
	  "t.jsonl:1:55: parallelism: must be data, tensor or pipeline\n" },
	{ "{" OK ",\"parallelism\":1}",
	  "t.jsonl:1:55: parallelism: must be data, tensor or pipeline\n" },
	{ "{" OK ",\"class\":7}",
	  "t.jsonl:1:49: class: must be a string of 1 to 63 letters, digits, "
	  "'.', '_' and '-'\n" },
	{ "{" OK ",\"class\":null}",
	  "t.jsonl:1:49: class: must be a string of 1 to 63 letters, digits, "
	  "'.', '_' and '-'\n" },
	{ "{" OK ",\"class\":\"a b\"}",
	  "t.jsonl:1:49: class: must be a string of 1 to 63 letters, digits, "
	  "'.', '_' and '-'\n" },
	{ "{" OK ",\"class\":\"a/b\"}",
	  "t.jsonl:1:49: class: must be a string of 1 to 63 letters, digits, "
	  "'.', '_' and '-'\n" },
	{ "{" OK ",\"class\":\"L\\u00e9\"}",
	  "t.jsonl:1:49: class: must be a string of 1 to 63 letters, digits, "
	  "'.', '_' and '-'\n" },
	{ "{" OK ",\"class\":\"" C64 "\"}",
	  "t.jsonl:1:49: class: must be a string of 1 to 63 letters, digits, "
	  "'.', '_' and '-'\n" },
	{ "{" OK ",\"class\":\"a\",\"pods\":0,\"class\":\"b\"}",
	  "t.jsonl:1:68: invalid JSON: duplicate object key near "
	  "'\"class\"'\n" },
	{ "{" OK ",\"requests\":[]}",
	  "t.jsonl:1:52: requests: must be an object of resource "
	  "quantities\n" },
	{ "{" OK ",\"requests\":{\"cpu\":\"1x\"}}",
	  "t.jsonl:1:59: requests[\"cpu\"]: \"1x\": unknown suffix \"x\"\n" },
	{ "{" OK ",\"requests\":{\"nvidia.com/gpu\":0.5}}",
	  "t.jsonl:1:70: requests[\"nvidia.com/gpu\"]: \"0.5\": must be a "
	  "whole number\n" },
	{ "{" OK ",\"requests\":{\"cpu\":null}}",
	  "t.jsonl:1:59: requests[\"cpu\"]: must be a quantity (string or "
	  "number)\n" },
	{ "{" OK ",\"requests\":{\"pods\":2}}",
	  "t.jsonl:1:60: requests[\"pods\"]: is implied (one per pod)\n" },
	{ "{" OK ",\"requests\":{\"bad name!\":1}}",
	  "t.jsonl:1:65: requests[\"bad name!\"]: " },
	{ "{" OK ",\"topology\":{}}",
	  "t.jsonl:1:52: topology: must be {\"required\": LEVEL}, "
	  "{\"preferred\": LEVEL} or {\"unconstrained\": true}\n" },
	{ "{" OK
	  ",\"topology\":{\"required\":\"rack\",\"preferred\":\"rack\"}}",
	  "t.jsonl:1:52: topology: must be {\"required\": LEVEL}, "
	  "{\"preferred\": LEVEL} or {\"unconstrained\": true}\n" },
	{ "{" OK ",\"topology\":{\"strict\":\"rack\"}}",
	  "t.jsonl:1:53: topology.strict: unknown mode (expected required, "
	  "preferred or unconstrained)\n" },
	{ "{" OK ",\"topology\":{\"unconstrained\":false}}",
	  "t.jsonl:1:69: topology.unconstrained: must be true\n" },
	{ "{" OK ",\"topology\":{\"required\":3}}",
	  "t.jsonl:1:64: topology.required: must be a string\n" },
	{ "{" OK ",\"topology\":{\"preferred\":\"a b\"}}",
	  "t.jsonl:1:65: topology.preferred: must be block, rack, host or a "
	  "node label key: " },
};

static void test_bad_lines(void **state)
{
	struct env *e = *state;

	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		char *got = parse(e, bad_cases[i].line, -EINVAL);

		if (strncmp(got, bad_cases[i].diag,
			    strlen(bad_cases[i].diag)) != 0)
			fail_msg("case %zu: %s\ngot:  %swant: %s", i,
				 bad_cases[i].line, got, bad_cases[i].diag);
		assert_int_equal(e->t.jobs.len, 0);
		free(got);
	}
}

static void test_good_line(void **state)
{
	struct env *e = *state;
	const struct trace_job *j;
	char *got;
	int gpu;

	got = parse(e,
		    "\t{\"name\":\"g-1.x\",\"submit_s\":12.5,\"duration_s\":"
		    "3600,\"pods\":4,\"minCount\":2,\"priority\":-7,"
		    "\"queue\":\"team-a\",\"class\":\"Large_1.v-2\","
		    "\"parallelism\":\"pipeline\","
		    "\"requests\":{\"nvidia.com/gpu\":8,"
		    "\"cpu\":\"500m\",\"memory\":\"1Gi\"},"
		    "\"topology\":{\"required\":\"rack\"},\"x\":{\"y\":[1]}}"
		    "\r\n",
		    0);
	assert_string_equal(got, "t.jsonl:1:243: warning: x: unknown field "
				 "(ignored)\n");
	free(got);
	assert_int_equal(e->t.jobs.len, 1);
	j = &e->t.jobs.items[0];
	gpu = resource_lookup(&e->res, "nvidia.com/gpu");
	assert_true(gpu >= RESOURCE_FIXED_COUNT);
	assert_string_equal(j->name, "g-1.x");
	assert_int_equal(j->submit_us, 12500000);
	assert_int_equal(j->duration_us, 3600000000LL);
	assert_int_equal(j->pods, 4);
	assert_int_equal(j->min_count, 2);
	assert_int_equal(j->priority, -7);
	/* 1 + THROUGHPUT_PIPELINE */
	assert_int_equal(j->parallelism, 3);
	assert_string_equal(j->queue, "team-a");
	assert_string_equal(j->klass, "Large_1.v-2");
	assert_int_equal(j->requests.v[gpu], 8);
	assert_int_equal(j->requests.v[RESOURCE_CPU], 500);
	assert_int_equal(j->requests.v[RESOURCE_MEMORY], 1073741824);
	assert_int_equal(j->requests.v[RESOURCE_PODS], 1);
	assert_int_equal(j->topology_mode, TOPOLOGY_REQUIRED);
	assert_string_equal(j->topology_level, "rack");
	assert_string_equal(j->pos.file, "t.jsonl");
	assert_int_equal(j->pos.line, 1);
	assert_int_equal(j->pos.col, 2);
	/* names are unique across loads too */
	got = parse(e, "{\"name\":\"g-1.x\",\"submit_s\":0,\"duration_s\":1}",
		    -EINVAL);
	assert_string_equal(got, "t.jsonl:1:9: name: \"g-1.x\" is already used "
				 "by a job loaded before\n");
	free(got);
	/* defaults */
	got = parse(e,
		    "# c\n\n  \n{\"name\":\"d\",\"submit_s\":1,"
		    "\"duration_s\":2}",
		    0);
	free(got);
	j = &e->t.jobs.items[1];
	assert_int_equal(j->pods, 1);
	assert_int_equal(j->min_count, 1);
	assert_null(j->queue);
	assert_null(j->klass);
	assert_int_equal(j->topology_mode, TOPOLOGY_NONE);
	assert_null(j->topology_level);
	assert_int_equal(j->pos.line, 4);
}

/* One bad line rejects the file; every error is reported. */
static void test_all_or_nothing(void **state)
{
	struct env *e = *state;
	char *got = parse(e,
			  "{\"name\":\"a\",\"submit_s\":0,\"duration_s\":1}\n"
			  "{\"name\":\"a\",\"submit_s\":0,\"duration_s\":1}\n"
			  "{\"name\":\"b\",\"submit_s\":0,\"duration_s\":1}\n"
			  "{\"name\":\"c\",\"submit_s\":0,\"duration_s\":1,"
			  "\"pods\":\"2\"}\n",
			  -EINVAL);

	assert_string_equal(got, "t.jsonl:2:9: name: \"a\" is already used on "
				 "line 1\n"
				 "t.jsonl:4:48: pods: must be an integer\n");
	assert_int_equal(e->t.jobs.len, 0);
	free(got);
}

static void test_limits(void **state)
{
	struct env *e = *state;
	struct strbuf sb;
	char *got;

	strbuf_init(&sb);
	strbuf_addstr(&sb, "{\"name\":\"a\",\"submit_s\":0,\"duration_s\":1,"
			   "\"pad\":\"");
	while (sb.len <= TRACE_MAX_LINE)
		strbuf_addstr(&sb, "padding-padding-");
	strbuf_addstr(&sb, "\"}\n");
	got = parse(e, sb.buf, -EINVAL);
	assert_string_equal(got, "t.jsonl:1:1: line is longer than 65536 "
				 "bytes\n");
	free(got);
	strbuf_release(&sb);

	e->t.max_jobs = 2;
	got = parse(e,
		    "{\"name\":\"a\",\"submit_s\":0,\"duration_s\":1}\n"
		    "{\"name\":\"b\",\"submit_s\":0,\"duration_s\":1}\n"
		    "# comments do not count\n"
		    "{\"name\":\"c\",\"submit_s\":0,\"duration_s\":1}\n"
		    "{\"name\":\"d\",\"submit_s\":0,\"duration_s\":1}\n",
		    -EINVAL);
	assert_string_equal(got, "t.jsonl:4:1: too many jobs: a trace holds "
				 "at most 2\n");
	free(got);
	got = parse(e,
		    "{\"name\":\"a\",\"submit_s\":0,\"duration_s\":1}\n"
		    "{\"name\":\"b\",\"submit_s\":0,\"duration_s\":1}",
		    0);
	free(got);
	assert_int_equal(e->t.jobs.len, 2);
}

static void test_class(void **state)
{
	static const struct {
		const char *s;
		bool ok;
	} cases[] = {
		{ "small", true },
		{ "Large_1.v-2", true },
		{ "-", true },
		{ "_x_", true },
		{ C8 C8 C8 C8 C8 C8 C8 "a1b2c3d", true }, /* 63 */
		{ C64, false },
		{ "", false },
		{ "a b", false },
		{ "a/b", false },
		{ "a:b", false },
		{ "\xc3\xa9", false },
	};
	struct env *e = *state;
	struct strbuf out;
	char *got;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (workload_class_valid(cases[i].s) != cases[i].ok)
			fail_msg("\"%s\": want %d", cases[i].s, cases[i].ok);
	/* written after queue, before priority; left out when absent */
	got = parse(e,
		    "{\"priority\":3,\"class\":\"medium\",\"queue\":\"q\","
		    "\"duration_s\":2,\"submit_s\":1,\"name\":\"a\"}\n"
		    "{\"class\":\"" C8 C8 C8 C8 C8 C8 C8 "a1b2c3d\","
		    "\"name\":\"b\",\"submit_s\":1,\"duration_s\":2}\n"
		    "{\"name\":\"c\",\"submit_s\":1,\"duration_s\":2}\n",
		    0);
	assert_string_equal(got, "");
	free(got);
	strbuf_init(&out);
	trace_write_jsonl(&e->t, &out);
	assert_string_equal(
		out.buf, "{\"name\":\"a\",\"submit_s\":1,\"duration_s\":2,"
			 "\"requests\":{},\"queue\":\"q\",\"class\":\"medium\","
			 "\"priority\":3}\n"
			 "{\"name\":\"b\",\"submit_s\":1,\"duration_s\":2,"
			 "\"requests\":{},\"class\":\"" C8 C8 C8 C8 C8 C8 C8
			 "a1b2c3d\"}\n"
			 "{\"name\":\"c\",\"submit_s\":1,\"duration_s\":2,"
			 "\"requests\":{}}\n");
	strbuf_release(&out);
	/* interned in the trace's table */
	assert_ptr_equal(e->t.jobs.items[0].klass,
			 intern_str(&e->strings, "medium"));
}

static void test_files(void **state)
{
	struct env *e = *state;
	char *path = testutil_path("tests/data/trace/jobs.jsonl");
	struct strbuf sb, out;
	struct errbuf eb;

	strbuf_init(&sb);
	assert_int_equal(trace_read_file(path, 1 << 20, &sb, &eb), 0);
	assert_true(trace_is_jsonl(sb.buf, sb.len));
	assert_int_equal(
		trace_parse_jsonl(&e->t, "jobs.jsonl", sb.buf, sb.len, &e->d),
		0);
	assert_int_equal(e->t.jobs.len, 4);
	assert_int_equal(e->d.errors, 0);
	assert_int_equal(e->d.warnings, 1);
	assert_int_equal(e->t.jobs.items[2].duration_us, 1);
	assert_int_equal(e->t.jobs.items[2].requests.v[RESOURCE_CPU], 500);
	assert_int_equal(e->t.jobs.items[3].submit_us, 100000000);
	strbuf_init(&out);
	trace_write_jsonl(&e->t, &out);
	assert_string_equal(
		out.buf,
		"{\"name\":\"single\",\"submit_s\":0,\"duration_s\":3600,"
		"\"requests\":{\"cpu\":\"12\",\"memory\":\"192Gi\","
		"\"nvidia.com/gpu\":\"1\"}}\n"
		"{\"name\":\"gang-rack\",\"submit_s\":12.5,\"duration_s\":"
		"7200,\"pods\":4,\"requests\":{\"nvidia.com/gpu\":\"8\"},"
		"\"queue\":\"team-a\",\"priority\":100,\"topology\":"
		"{\"required\":\"rack\"}}\n"
		"{\"name\":\"elastic\",\"submit_s\":30,\"duration_s\":"
		"0.000001,\"pods\":8,\"requests\":{\"cpu\":\"500m\"},"
		"\"minCount\":2,\"topology\":{\"preferred\":"
		"\"cloud.provider.com/topology-block\"}}\n"
		"{\"name\":\"anywhere\",\"submit_s\":100,\"duration_s\":60,"
		"\"requests\":{},\"topology\":{\"unconstrained\":true}}\n");
	strbuf_release(&out);
	free(path);

	strbuf_reset(&sb);
	path = testutil_path("tests/data/trace/bad.jsonl");
	assert_int_equal(trace_read_file(path, 1 << 20, &sb, &eb), 0);
	diag_release(&e->d);
	diag_init(&e->d);
	assert_int_equal(
		trace_parse_jsonl(&e->t, "bad.jsonl", sb.buf, sb.len, &e->d),
		-EINVAL);
	assert_int_equal(e->t.jobs.len, 4); /* unchanged */
	strbuf_init(&out);
	diag_format(&e->d, &out);
	assert_string_equal(
		out.buf,
		"bad.jsonl:2:10: name: must be a DNS-1123 subdomain "
		"(lowercase letters, digits, '-' and '.', at most 253)\n"
		"bad.jsonl:2:34: submit_s: must not be negative\n"
		"bad.jsonl:2:52: duration_s: must be positive\n"
		"bad.jsonl:2:63: pods: must be between 1 and 100000, not 0\n"
		"bad.jsonl:3:10: name: \"ok\" is already used on line 1\n"
		"bad.jsonl:3:79: requests[\"nvidia.com/gpu\"]: \"1.5\": must "
		"be "
		"a whole number\n"
		"bad.jsonl:3:93: requests[\"cpu\"]: must be a quantity (string "
		"or number)\n"
		"bad.jsonl:4:72: topology.required: must be block, rack, host "
		"or a node label key: name part must consist of alphanumeric "
		"characters, '-', '_' or '.', and must start and end with an "
		"alphanumeric character\n"
		"bad.jsonl:5:40: invalid JSON: '}' expected near "
		"'\"duration_s\"'\n"
		"bad.jsonl:6:1: a job must be a JSON object\n");
	strbuf_release(&out);
	free(path);

	strbuf_reset(&sb);
	assert_int_equal(trace_read_file("/nonexistent/x", 10, &sb, &eb),
			 -ENOENT);
	assert_string_equal(eb.msg,
			    "/nonexistent/x: No such file or directory");
	path = testutil_path("tests/data/trace/jobs.jsonl");
	assert_int_equal(trace_read_file(path, 10, &sb, &eb), -EFBIG);
	free(path);
	strbuf_release(&sb);
}

static void test_round_trip_and_sort(void **state)
{
	struct env *e = *state;
	struct strbuf a, b;
	struct trace t2;
	struct diag d2;

	assert_int_equal(
		trace_parse_jsonl(
			&e->t, "x",
			"{\"name\":\"late\",\"submit_s\":9,"
			"\"duration_s\":1.25,\"queue\":\"q \\\"1\\\"\","
			"\"class\":\"large\"}\n"
			"{\"name\":\"early\",\"submit_s\":1,"
			"\"duration_s\":1,\"parallelism\":\"tensor\"}\n"
			"{\"name\":\"tie\",\"submit_s\":9,"
			"\"duration_s\":1e-6}\n",
			strlen("{\"name\":\"late\",\"submit_s\":9,"
			       "\"duration_s\":1.25,\"queue\":"
			       "\"q \\\"1\\\"\",\"class\":\"large\"}\n"
			       "{\"name\":\"early\",\"submit_s\":1,"
			       "\"duration_s\":1,\"parallelism\":"
			       "\"tensor\"}\n"
			       "{\"name\":\"tie\",\"submit_s\":9,"
			       "\"duration_s\":1e-6}\n"),
			&e->d),
		0);
	trace_sort(&e->t);
	assert_string_equal(e->t.jobs.items[0].name, "early");
	assert_string_equal(e->t.jobs.items[1].name, "late");
	assert_string_equal(e->t.jobs.items[2].name, "tie");
	strbuf_init(&a);
	strbuf_init(&b);
	trace_write_jsonl(&e->t, &a);
	trace_init(&t2, &e->strings, &e->res);
	diag_init(&d2);
	assert_int_equal(trace_parse_jsonl(&t2, "y", a.buf, a.len, &d2), 0);
	trace_write_jsonl(&t2, &b);
	assert_string_equal(a.buf, b.buf);
	assert_string_equal(t2.jobs.items[1].queue, "q \"1\"");
	assert_string_equal(t2.jobs.items[1].klass, "large");
	assert_null(t2.jobs.items[0].klass);
	assert_int_equal(t2.jobs.items[0].parallelism, 2); /* 1 + tensor */
	assert_int_equal(t2.jobs.items[1].parallelism, 0);
	assert_non_null(strstr(a.buf, ",\"parallelism\":\"tensor\""));
	assert_false(trace_is_jsonl("# x\n\njob_id,a\n", 14));
	assert_true(trace_is_jsonl("# x\n\n {", 8));
	assert_false(trace_is_jsonl("", 0));
	trace_release(&t2);
	diag_release(&d2);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_add_workload(void **state)
{
	struct cluster c;
	struct trace t;
	struct diag d;
	const struct workload *w;
	static const char text[] =
		"{\"name\":\"a\",\"submit_s\":5,\"duration_s\":1,\"pods\":4,"
		"\"minCount\":2,\"queue\":\"lq\",\"class\":\"large\","
		"\"priority\":9,"
		"\"requests\":{\"nvidia.com/gpu\":8},\"topology\":"
		"{\"required\":\"rack\"}}\n"
		"{\"name\":\"b\",\"submit_s\":6,\"duration_s\":1}\n";

	(void)state;
	cluster_init(&c);
	trace_init(&t, c.strings, c.resources);
	diag_init(&d);
	assert_int_equal(
		trace_parse_jsonl(&t, "w.jsonl", text, strlen(text), &d), 0);
	assert_int_equal(trace_job_add_workload(&t.jobs.items[0], &c, NULL), 0);
	assert_int_equal(trace_job_add_workload(&t.jobs.items[1], &c, "ns1"),
			 1);
	w = cluster_find(&c, KIND_WORKLOAD, "default", "a");
	assert_non_null(w);
	assert_string_equal(w->queue_name, "lq");
	assert_int_equal(w->priority, 9);
	assert_int_equal(w->creation_us, 5000000);
	assert_int_equal(w->npodsets, 1);
	assert_string_equal(w->podsets[0].name, "main");
	assert_int_equal(w->podsets[0].count, 4);
	assert_int_equal(w->podsets[0].min_count, 2);
	assert_int_equal(w->podsets[0].requests.v[RESOURCE_PODS], 1);
	assert_int_equal(w->podsets[0].requests.v[resource_lookup(
				 c.resources, "nvidia.com/gpu")],
			 8);
	assert_int_equal(w->podsets[0].topology.mode, TOPOLOGY_REQUIRED);
	assert_string_equal(w->podsets[0].topology.level,
			    "cloud.provider.com/topology-rack");
	assert_string_equal(w->pos.file, "w.jsonl");
	w = cluster_find(&c, KIND_WORKLOAD, "ns1", "b");
	assert_non_null(w);
	assert_null(w->queue_name);
	assert_int_equal(w->creation_us, 6000000);
	assert_int_equal(w->podsets[0].topology.mode, TOPOLOGY_NONE);
	assert_null(w->podsets[0].topology.level);
	/* the same name again is refused and adds nothing */
	assert_int_equal(trace_job_add_workload(&t.jobs.items[0], &c, NULL),
			 -EEXIST);
	assert_int_equal(cluster_count(&c, KIND_WORKLOAD), 2);
	trace_release(&t);
	diag_release(&d);
	cluster_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_lines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_good_line, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_all_or_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_class, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_trip_and_sort, setup,
						teardown),
		cmocka_unit_test(test_add_workload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

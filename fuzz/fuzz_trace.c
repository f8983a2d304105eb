// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for the trace readers: every input is read as JSONL and as
 * an ITP CSV. A failure must report an error and add no job; a success must
 * report none and add only well-formed jobs (names valid, times in range,
 * 1 <= minCount <= pods, one "pods" unit per pod), and JSONL jobs must
 * survive a write-and-parse round trip unchanged.
 */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "sim/itp.h"
#include "sim/trace.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_jobs(const struct trace *t)
{
	for (size_t i = 0; i < t->jobs.len; i++) {
		const struct trace_job *j = &t->jobs.items[i];

		BUG_ON(!j->name || !trace_name_valid(j->name));
		BUG_ON(j->submit_us < 0 ||
		       j->submit_us > TRACE_MAX_SECONDS * 1000000);
		BUG_ON(j->duration_us < 1 ||
		       j->duration_us > TRACE_MAX_SECONDS * 1000000);
		BUG_ON(j->pods < 1 || j->min_count < 1 ||
		       j->min_count > j->pods);
		BUG_ON(j->requests.v[RESOURCE_PODS] != 1);
		for (int r = 0; r < RESOURCE_MAX; r++)
			BUG_ON(j->requests.v[r] < 0);
	}
}

static void check(struct trace *t, struct diag *d, int rc)
{
	BUG_ON(rc != 0 && rc != -EINVAL);
	BUG_ON((rc < 0) != (d->errors > 0));
	BUG_ON(rc < 0 && t->jobs.len != 0);
	check_jobs(t);
}

static void round_trip(struct trace *t)
{
	struct strbuf a, b;
	struct trace t2;
	struct diag d;

	strbuf_init(&a);
	strbuf_init(&b);
	trace_write_jsonl(t, &a);
	trace_init(&t2, t->strings, t->resources);
	diag_init(&d);
	BUG_ON(trace_parse_jsonl(&t2, "rt", a.buf, a.len, &d) != 0);
	BUG_ON(t2.jobs.len != t->jobs.len);
	trace_write_jsonl(&t2, &b);
	BUG_ON(a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0);
	trace_release(&t2);
	diag_release(&d);
	strbuf_release(&a);
	strbuf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct intern strings;
	struct resource_registry res;
	struct itp_options o;
	struct trace t;
	struct diag d;
	int rc;

	if (size > (1 << 20))
		return 0;
	intern_init(&strings);
	resource_registry_init(&res);
	itp_options_init(&o);

	trace_init(&t, &strings, &res);
	t.max_jobs = 1000;
	diag_init(&d);
	rc = trace_parse_jsonl(&t, "f.jsonl", text, size, &d);
	check(&t, &d, rc);
	if (rc == 0)
		round_trip(&t);
	trace_release(&t);
	diag_release(&d);

	trace_init(&t, &strings, &res);
	t.max_jobs = 1000;
	diag_init(&d);
	rc = itp_parse(&t, &o, "f.csv", text, size, NULL, &d);
	check(&t, &d, rc);
	trace_release(&t);
	diag_release(&d);

	resource_registry_release(&res);
	intern_release(&strings);
	return 0;
}

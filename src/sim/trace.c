// SPDX-License-Identifier: Apache-2.0
/*
 * Job traces in echelon's JSONL format: reading (one jansson object per
 * line, checked field by field), canonical writing, sorting and file
 * input. jansson keeps no positions inside a line, so the column of a bad
 * field is found by rescanning the line's text, which jansson has already
 * proved to be valid JSON.
 */
#include "sim/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/duration.h"
#include "base/hmap.h"
#include "base/text.h"
#include "model/cluster.h"
#include "model/label.h"
#include "model/quantity.h"
#include "sim/gen.h"
#include "sim/throughput.h"

#include "base/banned.h"

#define NAME_MAX_LEN 253

void trace_init(struct trace *t, struct intern *strings,
		struct resource_registry *resources)
{
	BUG_ON(!strings || !resources);
	memset(t, 0, sizeof(*t));
	t->strings = strings;
	t->resources = resources;
	t->max_jobs = TRACE_MAX_JOBS;
}

void trace_release(struct trace *t)
{
	if (!t)
		return;
	vec_release(&t->jobs);
}

void trace_job_init(struct trace_job *j)
{
	memset(j, 0, sizeof(*j));
	j->pods = 1;
	j->min_count = 1;
	j->requests.v[RESOURCE_PODS] = 1;
	j->topology_mode = TOPOLOGY_NONE;
}

bool trace_job_set_gpus(struct trace_job *j, int64_t gpus, int32_t gpus_per_pod,
			int gpu_id, int64_t cpu_milli_per_gpu,
			int64_t memory_per_gpu)
{
	int64_t per_pod = gpus <= gpus_per_pod ? gpus : gpus_per_pod;
	int64_t pods;

	BUG_ON(gpus < 1 || gpus_per_pod < 1 || gpu_id < RESOURCE_FIXED_COUNT ||
	       gpu_id >= RESOURCE_MAX);
	pods = (gpus + per_pod - 1) / per_pod;
	BUG_ON(pods > INT32_MAX);
	j->pods = (int32_t)pods;
	j->min_count = j->pods;
	j->requests.v[gpu_id] = per_pod;
	BUG_ON(__builtin_mul_overflow(per_pod, cpu_milli_per_gpu,
				      &j->requests.v[RESOURCE_CPU]) ||
	       __builtin_mul_overflow(per_pod, memory_per_gpu,
				      &j->requests.v[RESOURCE_MEMORY]));
	return gpus % per_pod != 0;
}

void trace_job_workload_head(const struct trace_job *j, struct cluster *c,
			     const char *ns, struct workload *w)
{
	workload_init(w);
	w->ns = cluster_str(c, ns ? ns : "default");
	w->name = j->name;
	w->queue_name = cluster_str(c, j->queue);
	w->priority = j->priority;
	w->creation_us = j->submit_us;
	w->pos = j->pos;
	w->pos.file = cluster_str(c, j->pos.file);
}

void trace_job_workload(const struct trace_job *j, struct cluster *c,
			const char *ns, struct workload *w)
{
	struct podset *ps;

	trace_job_workload_head(j, c, ns, w);
	ps = workload_add_podset(w);
	ps->name = cluster_str(c, "main");
	ps->count = j->pods;
	ps->min_count = j->min_count;
	ps->requests = j->requests;
	ps->pos = w->pos;
	ps->topology.mode = j->topology_mode;
	if (j->topology_level)
		ps->topology.level =
			cluster_str(c, gen_level_label(j->topology_level));
}

int trace_job_add_workload(const struct trace_job *j, struct cluster *c,
			   const char *ns)
{
	struct workload *w = vec_push_zero(&c->workloads);

	trace_job_workload(j, c, ns, w);
	w->name = cluster_str(c, j->name);
	if (cluster_index_last(c, KIND_WORKLOAD) < 0) {
		cluster_pop_last(c, KIND_WORKLOAD);
		return -EEXIST;
	}
	return (int)(c->workloads.len - 1);
}

/* One line being decoded. */
struct line_ctx {
	struct trace *t;
	struct diag *d;
	const char *file;
	int line;
	const char *text;
	size_t len;
	struct hmap *names; /* name -> line of every job so far */
	bool failed;
};

static void report(struct line_ctx *x, enum diag_severity sev, size_t off,
		   const char *fmt, ...) PRINTF_LIKE(4, 5);

static void report(struct line_ctx *x, enum diag_severity sev, size_t off,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(x->d, sev, x->file, x->line, (int)off + 1, fmt, ap);
	va_end(ap);
	if (sev == DIAG_ERROR)
		x->failed = true;
}

/* --- Locating members in the raw text (valid JSON) ----------------- */

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len &&
	       (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* s[i] is '"': the index after the closing quote. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
	for (i++; i < len && s[i] != '"'; i++)
		if (s[i] == '\\')
			i++;
	return i < len ? i + 1 : len;
}

static size_t skip_value(const char *s, size_t len, size_t i)
{
	int depth = 0;

	do {
		if (i >= len)
			return len;
		if (s[i] == '"') {
			i = skip_string(s, len, i);
			continue;
		}
		if (s[i] == '{' || s[i] == '[')
			depth++;
		else if (s[i] == '}' || s[i] == ']')
			depth--;
		else if (depth == 0 && (s[i] == ',' || s[i] == ' '))
			return i;
		i++;
	} while (depth > 0 || (i < len && !strchr(",}] \t\r\n", s[i])));
	return i;
}

/*
 * The offset of key's name (or value, when want_value) in the object that
 * starts at s[obj] == '{'; obj itself when not found (a key written with
 * escapes, for instance).
 */
static size_t find_member(const char *s, size_t len, size_t obj,
			  const char *key, bool want_value)
{
	size_t klen = strlen(key), i = skip_ws(s, len, obj + 1);

	while (i < len && s[i] == '"') {
		size_t kend = skip_string(s, len, i), v;
		bool match = kend - i - 2 == klen &&
			     memcmp(s + i + 1, key, klen) == 0;

		v = skip_ws(s, len, kend);
		v = skip_ws(s, len, v + 1); /* past ':' */
		if (match)
			return want_value ? v : i;
		i = skip_ws(s, len, skip_value(s, len, v));
		if (i < len && s[i] == ',')
			i = skip_ws(s, len, i + 1);
	}
	return obj;
}

/* --- Fields -------------------------------------------------------- */

bool trace_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > NAME_MAX_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && ((c != '-' && c != '.') || i == 0 || i == n - 1))
			return false;
	}
	return true;
}

/* A JSON number's text at off (valid JSON: it ends at a delimiter). */
static size_t number_len(const struct line_ctx *x, size_t off)
{
	size_t n = 0;

	while (off + n < x->len && x->text[off + n] &&
	       strchr("+-.0123456789eE", x->text[off + n]))
		n++;
	return n;
}

static void f_seconds(struct line_ctx *x, json_t *v, size_t off,
		      const char *field, bool positive, int64_t *ret_us)
{
	struct errbuf eb;
	size_t n = number_len(x, off);
	int rc;

	if (!json_is_number(v)) {
		report(x, DIAG_ERROR, off, "%s: must be a number of seconds",
		       field);
		return;
	}
	/* The raw text is exact; a key written with escapes has none. */
	if (n == 0 || x->text[off] == '{') {
		char buf[64];

		snprintf(buf, sizeof(buf), "%.17g", json_number_value(v));
		rc = duration_parse_seconds(buf, strlen(buf), ret_us, &eb);
	} else {
		rc = duration_parse_seconds(x->text + off, n, ret_us, &eb);
	}
	if (rc < 0)
		report(x, DIAG_ERROR, off, "%s: %s", field, eb.msg);
	else if (positive && *ret_us == 0)
		report(x, DIAG_ERROR, off, "%s: must be positive", field);
}

static bool f_int(struct line_ctx *x, json_t *v, size_t off, const char *field,
		  json_int_t lo, json_int_t hi, int32_t *ret)
{
	json_int_t i;

	if (!json_is_integer(v)) {
		report(x, DIAG_ERROR, off, "%s: must be an integer", field);
		return false;
	}
	i = json_integer_value(v);
	if (i < lo || i > hi) {
		report(x, DIAG_ERROR, off,
		       "%s: must be between %lld and %lld, not %lld", field,
		       (long long)lo, (long long)hi, (long long)i);
		return false;
	}
	*ret = (int32_t)i;
	return true;
}

static const char *f_string(struct line_ctx *x, json_t *v, size_t off,
			    const char *field)
{
	const char *s = json_string_value(v);

	if (!s || !*s || strlen(s) > NAME_MAX_LEN + 64) {
		report(x, DIAG_ERROR, off,
		       "%s: must be a non-empty string of at most %d bytes",
		       field, NAME_MAX_LEN + 64);
		return NULL;
	}
	return intern_str(x->t->strings, s);
}

static const char *f_class(struct line_ctx *x, json_t *v, size_t off)
{
	const char *s = json_string_value(v);

	if (!s || !workload_class_valid(s)) {
		report(x, DIAG_ERROR, off,
		       "class: must be a string of 1 to %d letters, digits, "
		       "'.', '_' and '-'",
		       WORKLOAD_CLASS_MAX_LEN);
		return NULL;
	}
	return intern_str(x->t->strings, s);
}

static uint8_t f_parallelism(struct line_ctx *x, json_t *v, size_t off)
{
	const char *s = json_string_value(v);
	enum throughput_class k;

	if (!s || throughput_class_parse(s, strlen(s), &k) < 0) {
		report(x, DIAG_ERROR, off,
		       "parallelism: must be data, tensor or pipeline");
		return 0;
	}
	return (uint8_t)(k + 1);
}

static void f_request(struct line_ctx *x, const char *res, json_t *v,
		      size_t off, struct trace_job *j)
{
	struct errbuf eb;
	char buf[64];
	const char *text = buf;
	size_t n;
	int64_t q;
	int id;

	if (strcmp(res, "pods") == 0) {
		report(x, DIAG_ERROR, off,
		       "requests[\"pods\"]: is implied (one per pod)");
		return;
	}
	id = resource_id(x->t->resources, res, &eb);
	if (id < 0) {
		report(x, DIAG_ERROR, off, "requests[\"%.64s\"]: %s", res,
		       eb.msg);
		return;
	}
	n = number_len(x, off);
	if (json_is_string(v))
		text = json_string_value(v);
	else if (json_is_number(v) && n > 0 && n < sizeof(buf))
		/* the raw text keeps every digit a double would round */
		snprintf(buf, sizeof(buf), "%.*s", (int)n, x->text + off);
	else if (json_is_integer(v))
		snprintf(buf, sizeof(buf), "%lld",
			 (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, sizeof(buf), "%.15g", json_real_value(v));
	else
		text = NULL;
	if (!text) {
		report(x, DIAG_ERROR, off,
		       "requests[\"%s\"]: must be a quantity (string or "
		       "number)",
		       res);
	} else if (quantity_parse(text, x->t->resources->kinds[id], &q, &eb) <
		   0) {
		report(x, DIAG_ERROR, off, "requests[\"%s\"]: %s", res, eb.msg);
	} else {
		j->requests.v[id] = q;
	}
}

static void f_requests(struct line_ctx *x, json_t *v, size_t off,
		       struct trace_job *j)
{
	const char *key;
	json_t *q;

	if (!json_is_object(v)) {
		report(x, DIAG_ERROR, off,
		       "requests: must be an object of resource quantities");
		return;
	}
	json_object_foreach(v, key, q)
	{
		f_request(x, key, q,
			  find_member(x->text, x->len, off, key, true), j);
	}
}

static const char *const aliases[] = { "block", "rack", "host" };

static void f_level(struct line_ctx *x, json_t *v, size_t off, const char *mode,
		    struct trace_job *j)
{
	const char *s = json_string_value(v);
	struct errbuf eb;

	if (!s) {
		report(x, DIAG_ERROR, off, "topology.%s: must be a string",
		       mode);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++) {
		if (strcmp(s, aliases[i]) == 0) {
			j->topology_level = intern_str(x->t->strings, s);
			return;
		}
	}
	if (label_check_key(s, &eb) < 0) {
		report(x, DIAG_ERROR, off,
		       "topology.%s: must be block, rack, host or a node "
		       "label key: %s",
		       mode, eb.msg);
		return;
	}
	j->topology_level = intern_str(x->t->strings, s);
}

static void f_topology(struct line_ctx *x, json_t *v, size_t off,
		       struct trace_job *j)
{
	const char *key;
	json_t *m;

	if (!json_is_object(v) || json_object_size(v) != 1) {
		report(x, DIAG_ERROR, off,
		       "topology: must be {\"required\": LEVEL}, "
		       "{\"preferred\": LEVEL} or {\"unconstrained\": true}");
		return;
	}
	json_object_foreach(v, key, m)
	{
		size_t moff = find_member(x->text, x->len, off, key, true);

		if (strcmp(key, "required") == 0) {
			j->topology_mode = TOPOLOGY_REQUIRED;
			f_level(x, m, moff, key, j);
		} else if (strcmp(key, "preferred") == 0) {
			j->topology_mode = TOPOLOGY_PREFERRED;
			f_level(x, m, moff, key, j);
		} else if (strcmp(key, "unconstrained") == 0) {
			j->topology_mode = TOPOLOGY_UNCONSTRAINED;
			if (!json_is_true(m))
				report(x, DIAG_ERROR, moff,
				       "topology.unconstrained: must be true");
		} else {
			report(x, DIAG_ERROR,
			       find_member(x->text, x->len, off, key, false),
			       "topology.%.64s: unknown mode (expected "
			       "required, preferred or unconstrained)",
			       key);
		}
	}
}

static void f_name(struct line_ctx *x, json_t *v, size_t off,
		   struct trace_job *j)
{
	const char *s = json_string_value(v);
	int64_t prev;

	if (!s || !trace_name_valid(s)) {
		report(x, DIAG_ERROR, off,
		       "name: must be a DNS-1123 subdomain (lowercase "
		       "letters, digits, '-' and '.', at most %d)",
		       NAME_MAX_LEN);
		return;
	}
	if (hmap_get_str(x->names, s, &prev)) {
		if (prev > 0)
			report(x, DIAG_ERROR, off,
			       "name: \"%s\" is already used on line %lld", s,
			       (long long)prev);
		else
			report(x, DIAG_ERROR, off,
			       "name: \"%s\" is already used by a job loaded "
			       "before",
			       s);
		return;
	}
	j->name = intern_str(x->t->strings, s);
}

/* --- Jobs and lines ------------------------------------------------ */

static const char *const job_fields[] = {
	"name",	 "submit_s",	"duration_s", "pods",	  "requests", "queue",
	"class", "parallelism", "priority",   "minCount", "topology", NULL,
};

static bool known_field(const char *key)
{
	for (size_t i = 0; job_fields[i]; i++)
		if (strcmp(key, job_fields[i]) == 0)
			return true;
	return false;
}

static json_t *member(struct line_ctx *x, json_t *obj, size_t off,
		      const char *key, size_t *ret_off)
{
	json_t *v = json_object_get(obj, key);

	if (v)
		*ret_off = find_member(x->text, x->len, off, key, true);
	return v;
}

static void decode_job(struct line_ctx *x, json_t *obj, size_t off,
		       struct trace_job *j)
{
	const char *key;
	json_t *v;
	size_t voff = off;
	bool min_given = false;

	json_object_foreach(obj, key, v)
	{
		if (!known_field(key))
			report(x, DIAG_WARNING,
			       find_member(x->text, x->len, off, key, false),
			       "%.64s: unknown field (ignored)", key);
	}
	if ((v = member(x, obj, off, "name", &voff)))
		f_name(x, v, voff, j);
	else
		report(x, DIAG_ERROR, off, "name: is required");
	if ((v = member(x, obj, off, "submit_s", &voff)))
		f_seconds(x, v, voff, "submit_s", false, &j->submit_us);
	else
		report(x, DIAG_ERROR, off, "submit_s: is required");
	if ((v = member(x, obj, off, "duration_s", &voff)))
		f_seconds(x, v, voff, "duration_s", true, &j->duration_us);
	else
		report(x, DIAG_ERROR, off, "duration_s: is required");
	if ((v = member(x, obj, off, "pods", &voff)))
		f_int(x, v, voff, "pods", 1, TRACE_MAX_PODS, &j->pods);
	if ((v = member(x, obj, off, "requests", &voff)))
		f_requests(x, v, voff, j);
	if ((v = member(x, obj, off, "queue", &voff)))
		j->queue = f_string(x, v, voff, "queue");
	if ((v = member(x, obj, off, "class", &voff)))
		j->klass = f_class(x, v, voff);
	if ((v = member(x, obj, off, "parallelism", &voff)))
		j->parallelism = f_parallelism(x, v, voff);
	if ((v = member(x, obj, off, "priority", &voff)))
		f_int(x, v, voff, "priority", INT32_MIN, INT32_MAX,
		      &j->priority);
	if ((v = member(x, obj, off, "minCount", &voff)))
		min_given = f_int(x, v, voff, "minCount", 1, j->pods,
				  &j->min_count);
	if (!min_given)
		j->min_count = j->pods;
	if ((v = member(x, obj, off, "topology", &voff)))
		f_topology(x, v, voff, j);
}

static void decode_line(struct line_ctx *x, struct trace_job *ret)
{
	json_error_t err;
	json_t *obj;
	size_t off = skip_ws(x->text, x->len, 0);

	obj = json_loadb(x->text, x->len, JSON_REJECT_DUPLICATES, &err);
	if (!obj) {
		report(x, DIAG_ERROR, err.position > 0 ? err.position - 1 : 0,
		       "invalid JSON: %s", err.text);
		return;
	}
	if (!json_is_object(obj)) {
		report(x, DIAG_ERROR, off, "a job must be a JSON object");
	} else {
		trace_job_init(ret);
		decode_job(x, obj, off, ret);
		ret->pos.line = x->line;
		ret->pos.col = (int)off + 1;
		ret->pos.file = x->file;
	}
	json_decref(obj);
}

/* Whether a line has nothing to decode: blank, or a comment. */
static bool skippable(const char *s, size_t len)
{
	size_t i = skip_ws(s, len, 0);

	return i == len || s[i] == '#';
}

bool trace_is_jsonl(const char *data, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(data + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - data) : len;

		if (!skippable(data + i, end - i))
			return data[skip_ws(data, end, i)] == '{';
		i = end + 1;
	}
	return false;
}

bool trace_is_empty(const char *data, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(data + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - data) : len;

		if (!skippable(data + i, end - i))
			return false;
		i = end + 1;
	}
	return true;
}

static void names_of(const struct trace *t, struct hmap *names)
{
	hmap_init(names);
	for (size_t i = 0; i < t->jobs.len; i++)
		hmap_put_str(names, t->jobs.items[i].name, 0);
}

int trace_parse_jsonl(struct trace *t, const char *file, const char *data,
		      size_t len, struct diag *d)
{
	struct hmap names;
	struct line_ctx x = { .t = t, .d = d, .names = &names };
	size_t i = 0, before = t->jobs.len, lines = 1;
	int line, col;

	x.file = intern_str(t->strings, file);
	/* jansson would stop a line at a NUL: the rest must not vanish. */
	if (text_find_nul(data, len, &line, &col) < len) {
		diag_add(d, DIAG_ERROR, x.file, line, col,
			 "NUL byte (0x00) in the text");
		return -EINVAL;
	}
	names_of(t, &names);
	/* Jobs go straight into t, which is cut back on an error: room for
	 * one per line, so the array is never copied as it grows. */
	for (const char *p = data;
	     (p = memchr(p, '\n', len - (size_t)(p - data))); p++)
		lines++;
	vec_reserve(&t->jobs,
		    before + (lines < t->max_jobs ? lines : t->max_jobs));
	while (i < len) {
		const char *nl = memchr(data + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - data) : len;
		struct trace_job j;

		x.line++;
		x.text = data + i;
		x.len = end - i;
		i = end + 1;
		if (x.len > 0 && x.text[x.len - 1] == '\r')
			x.len--;
		if (x.len > TRACE_MAX_LINE) {
			report(&x, DIAG_ERROR, 0,
			       "line is longer than %d bytes", TRACE_MAX_LINE);
			continue;
		}
		if (skippable(x.text, x.len))
			continue;
		if (t->jobs.len >= t->max_jobs) {
			report(&x, DIAG_ERROR, 0,
			       "too many jobs: a trace holds at most %zu",
			       t->max_jobs);
			break;
		}
		j.name = NULL;
		decode_line(&x, &j);
		if (j.name)
			hmap_put_str(&names, j.name, x.line);
		if (!x.failed)
			vec_push(&t->jobs, j);
	}
	hmap_release(&names);
	if (x.failed) {
		t->jobs.len = before;
		return -EINVAL;
	}
	return 0;
}

/* --- Writing, sorting, files --------------------------------------- */

static void add_seconds(struct strbuf *out, int64_t us)
{
	int64_t frac = us % 1000000;
	int digits = 6;

	strbuf_addf(out, "%lld", (long long)(us / 1000000));
	if (!frac)
		return;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	strbuf_addf(out, ".%0*lld", digits, (long long)frac);
}

static void write_requests(const struct trace *t, const struct trace_job *j,
			   struct strbuf *out)
{
	bool first = true;

	strbuf_addstr(out, ",\"requests\":{");
	for (int id = 0; id < t->resources->count; id++) {
		if (id == RESOURCE_PODS || j->requests.v[id] == 0)
			continue;
		if (!first)
			strbuf_addch(out, ',');
		first = false;
		strbuf_add_json_string(out, resource_name(t->resources, id));
		strbuf_addstr(out, ":\"");
		quantity_format(j->requests.v[id], t->resources->kinds[id],
				out);
		strbuf_addch(out, '"');
	}
	strbuf_addch(out, '}');
}

static void write_job(const struct trace *t, const struct trace_job *j,
		      struct strbuf *out)
{
	static const char *const modes[TOPOLOGY_MODE_COUNT] = {
		[TOPOLOGY_REQUIRED] = "required",
		[TOPOLOGY_PREFERRED] = "preferred",
	};

	strbuf_addstr(out, "{\"name\":");
	strbuf_add_json_string(out, j->name);
	strbuf_addstr(out, ",\"submit_s\":");
	add_seconds(out, j->submit_us);
	strbuf_addstr(out, ",\"duration_s\":");
	add_seconds(out, j->duration_us);
	if (j->pods != 1)
		strbuf_addf(out, ",\"pods\":%d", j->pods);
	write_requests(t, j, out);
	if (j->queue) {
		strbuf_addstr(out, ",\"queue\":");
		strbuf_add_json_string(out, j->queue);
	}
	if (j->klass) {
		strbuf_addstr(out, ",\"class\":");
		strbuf_add_json_string(out, j->klass);
	}
	if (j->parallelism)
		strbuf_addf(out, ",\"parallelism\":\"%s\"",
			    throughput_class_name((enum throughput_class)(
				    j->parallelism - 1)));
	if (j->priority)
		strbuf_addf(out, ",\"priority\":%d", j->priority);
	if (j->min_count != j->pods)
		strbuf_addf(out, ",\"minCount\":%d", j->min_count);
	if (j->topology_mode == TOPOLOGY_UNCONSTRAINED) {
		strbuf_addstr(out, ",\"topology\":{\"unconstrained\":true}");
	} else if (modes[j->topology_mode] && j->topology_level) {
		strbuf_addf(out,
			    ",\"topology\":{\"%s\":", modes[j->topology_mode]);
		strbuf_add_json_string(out, j->topology_level);
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, "}\n");
}

void trace_write_jsonl(const struct trace *t, struct strbuf *out)
{
	for (size_t i = 0; i < t->jobs.len; i++)
		write_job(t, &t->jobs.items[i], out);
}

static int submit_cmp(const void *pa, const void *pb)
{
	const struct trace_job *const *a = pa, *const *b = pb;

	if ((*a)->submit_us != (*b)->submit_us)
		return (*a)->submit_us < (*b)->submit_us ? -1 : 1;
	return *a < *b ? -1 : *a > *b; /* file order */
}

void trace_sort(struct trace *t)
{
	size_t n = t->jobs.len;
	struct trace_job **order =
		xreallocarray(NULL, n ? n : 1, sizeof(*order));
	struct trace_job *sorted =
		xreallocarray(NULL, n ? n : 1, sizeof(*sorted));

	for (size_t i = 0; i < n; i++)
		order[i] = &t->jobs.items[i];
	qsort(order, n, sizeof(*order), submit_cmp);
	for (size_t i = 0; i < n; i++)
		sorted[i] = *order[i];
	if (n)
		memcpy(t->jobs.items, sorted, n * sizeof(*sorted));
	free(order);
	free(sorted);
}

/* What trace_read_file() has seen so far of the lines. */
struct scan {
	int line;	  /* 1-based, of the current line */
	size_t len;	  /* bytes of the current line so far */
	bool blank, hash; /* only blanks so far; starts with '#' */
	size_t jobs;	  /* lines that can hold a job */
};

/*
 * Check the bytes out[from, len) as they arrive: a NUL byte, a line longer
 * than TRACE_MAX_LINE or more lines than TRACE_MAX_JOBS (plus a header)
 * stop the read at once, whatever follows.
 */
static int scan_chunk(struct scan *sc, const char *path,
		      const struct strbuf *out, size_t from, struct errbuf *eb)
{
	for (size_t i = from; i < out->len; i++) {
		char ch = out->buf[i];
		int line, col;

		if (!ch) {
			text_position(out->buf, i, &line, &col);
			return errbuf_set(eb, -EINVAL,
					  "%s:%d:%d: NUL byte (0x00) in the "
					  "text",
					  path, line, col);
		}
		if (ch == '\n') {
			sc->jobs += !sc->blank && !sc->hash;
			if (sc->jobs > TRACE_MAX_JOBS + 1)
				return errbuf_set(eb, -EFBIG,
						  "%s:%d:1: too many lines: a "
						  "trace holds at most %d jobs",
						  path, sc->line,
						  TRACE_MAX_JOBS);
			sc->line++;
			sc->len = 0;
			sc->blank = true;
			sc->hash = false;
			continue;
		}
		if (sc->blank && ch == '#')
			sc->hash = true;
		if (ch != ' ' && ch != '\t' && ch != '\r')
			sc->blank = false;
		/* one more for the '\r' of a CRLF line */
		if (++sc->len > TRACE_MAX_LINE + 1)
			return errbuf_set(eb, -EINVAL,
					  "%s:%d:1: line is longer than %d "
					  "bytes",
					  path, sc->line, TRACE_MAX_LINE);
	}
	return 0;
}

int trace_read_file(const char *path, size_t max, struct strbuf *out,
		    struct errbuf *eb)
{
	char buf[65536];
	ssize_t n;
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct scan sc = { .line = 1, .blank = true };
	int rc = 0;

	if (is_stdin)
		path = "<stdin>";

	if (fd < 0)
		return errbuf_set(eb, -errno, "%s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		size_t from = out->len;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = errbuf_set(eb, -errno, "%s: %s", path,
					strerror(errno));
			break;
		}
		if (out->len + (size_t)n > max) {
			rc = errbuf_set(eb, -EFBIG,
					"%s: larger than the limit of %zu "
					"bytes",
					path, max);
			break;
		}
		strbuf_add(out, buf, (size_t)n);
		rc = scan_chunk(&sc, path, out, from, eb);
		if (rc < 0)
			break;
	}
	if (!is_stdin)
		close(fd);
	return rc;
}

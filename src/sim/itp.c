// SPDX-License-Identifier: Apache-2.0
/*
 * Reader of the ITP 2021 CSV trace: a header that names the columns, then
 * one job per row. Rows are split on commas (the trace has no quoting; a
 * field wrapped in double quotes loses them), numbers are read exactly with
 * duration_parse_seconds(), and jobs are shaped into gangs of whole pods as
 * itp.h describes.
 */
#include "sim/itp.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "base/alloc.h"
#include "base/duration.h"
#include "base/hmap.h"
#include "base/text.h"

#include "base/banned.h"

enum col { COL_ID, COL_SUBMIT, COL_DURATION, COL_GPUS, COL_COUNT };

static const char *const col_names[COL_COUNT] = { "job_id", "submission_time",
						  "duration", "num_gpu" };

#define MAX_FIELDS 64

void itp_options_init(struct itp_options *o)
{
	memset(o, 0, sizeof(*o));
	o->gpus_per_pod = 8;
	o->cpu_milli_per_gpu = 12000;
	o->memory_per_gpu = 192LL << 30;
	o->gpu_resource = "nvidia.com/gpu";
	o->topology_mode = TOPOLOGY_NONE;
}

struct field {
	const char *s;
	size_t n;
	size_t off; /* in the line */
};

/* Split a line on commas, trimming spaces and one pair of quotes. Returns
 * the number of fields (at most MAX_FIELDS + 1: "too many"). */
static size_t split(const char *s, size_t n, struct field *f)
{
	size_t nf = 0, i = 0;

	for (;;) {
		size_t start = i, end;

		while (i < n && s[i] != ',')
			i++;
		end = i;
		while (start < end && (s[start] == ' ' || s[start] == '\t'))
			start++;
		while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t'))
			end--;
		if (end - start >= 2 && s[start] == '"' && s[end - 1] == '"') {
			start++;
			end--;
		}
		if (nf == MAX_FIELDS + 1)
			return nf;
		f[nf++] = (struct field){ s + start, end - start, start };
		if (i >= n)
			return nf;
		i++;
	}
}

static bool field_is(const struct field *f, const char *name)
{
	return f->n == strlen(name) && memcmp(f->s, name, f->n) == 0;
}

/* The first line without BOM and \r; its length in *ret_n. */
static const char *first_line(const char *data, size_t len, size_t *ret_n)
{
	const char *nl = memchr(data, '\n', len);
	size_t n = nl ? (size_t)(nl - data) : len;

	if (n >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
		data += 3;
		n -= 3;
	}
	if (n && data[n - 1] == '\r')
		n--;
	*ret_n = n;
	return data;
}

/* Column index of each known column in the header, -1 when absent. */
static size_t header_cols(const char *data, size_t len, int cols[COL_COUNT])
{
	struct field f[MAX_FIELDS + 1];
	size_t n, nf;
	const char *line = first_line(data, len, &n);

	for (int c = 0; c < COL_COUNT; c++)
		cols[c] = -1;
	if (n > TRACE_MAX_LINE)
		return 0;
	nf = split(line, n, f);
	for (size_t i = 0; i < nf && i < MAX_FIELDS; i++)
		for (int c = 0; c < COL_COUNT; c++)
			if (cols[c] < 0 && field_is(&f[i], col_names[c]))
				cols[c] = (int)i;
	return nf;
}

bool itp_recognise(const char *data, size_t len)
{
	int cols[COL_COUNT];

	header_cols(data, len, cols);
	return cols[COL_SUBMIT] >= 0 && cols[COL_DURATION] >= 0 &&
	       cols[COL_GPUS] >= 0;
}

struct itp_ctx {
	struct trace *t;
	const struct itp_options *o;
	struct diag *d;
	const char *file;
	int line;
	int cols[COL_COUNT];
	size_t nfields;
	int gpu_id;
	struct hmap names; /* name -> line */
	struct itp_summary sum;
	bool failed;
	VEC(struct trace_job) jobs;
};

static void error_at(struct itp_ctx *x, size_t off, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

static void error_at(struct itp_ctx *x, size_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vadd(x->d, DIAG_ERROR, x->file, x->line, (int)off + 1, fmt, ap);
	va_end(ap);
	x->failed = true;
}

/* A time column: 0 and *ret_us, 1 when empty, -1 after an error. */
static int read_time(struct itp_ctx *x, const struct field *f, enum col c,
		     int64_t *ret_us)
{
	struct errbuf eb;

	if (f->n == 0)
		return 1;
	if (duration_parse_seconds(f->s, f->n, ret_us, &eb) < 0) {
		error_at(x, f->off, "%s: %s", col_names[c], eb.msg);
		return -1;
	}
	return 0;
}

static int read_gpus(struct itp_ctx *x, const struct field *f, int64_t *ret)
{
	int64_t g = 0;

	if (f->n == 0)
		return 1;
	for (size_t i = 0; i < f->n; i++) {
		if (f->s[i] < '0' || f->s[i] > '9' || g > ITP_MAX_GPUS) {
			error_at(x, f->off,
				 "num_gpu: \"%.*s\" is not an integer from 0 "
				 "to %d",
				 (int)(f->n > 40 ? 40 : f->n), f->s,
				 ITP_MAX_GPUS);
			return -1;
		}
		g = g * 10 + (f->s[i] - '0');
	}
	if (g > ITP_MAX_GPUS) {
		error_at(x, f->off, "num_gpu: %lld is more than %d",
			 (long long)g, ITP_MAX_GPUS);
		return -1;
	}
	*ret = g;
	return 0;
}

/* The job's name from its job_id, or "job-<line>" without one. */
static const char *job_name(struct itp_ctx *x, const struct field *f)
{
	struct strbuf sb;
	const char *name = NULL;
	int64_t prev;

	strbuf_init(&sb);
	strbuf_addstr(&sb, x->o->name_prefix ? x->o->name_prefix : "");
	if (f && f->n)
		strbuf_add(&sb, f->s, f->n);
	else
		strbuf_addf(&sb, "job-%d", x->line);
	if (!trace_name_valid(sb.buf))
		error_at(x, f ? f->off : 0,
			 "job_id: \"%.64s\" is not a valid job name (a "
			 "DNS-1123 subdomain)",
			 sb.buf);
	else if (hmap_get_str(&x->names, sb.buf, &prev))
		error_at(x, f ? f->off : 0,
			 "job_id: \"%.64s\" is already used on line %lld",
			 sb.buf, (long long)prev);
	else
		name = intern_str(x->t->strings, sb.buf);
	strbuf_release(&sb);
	return name;
}

static void add_job(struct itp_ctx *x, const char *name, int64_t submit_us,
		    int64_t duration_us, int64_t gpus)
{
	const struct itp_options *o = x->o;
	struct trace_job *j = vec_push_zero(&x->jobs);

	trace_job_init(j);
	j->name = name;
	j->submit_us = submit_us;
	j->duration_us = duration_us;
	x->sum.rounded_up +=
		trace_job_set_gpus(j, gpus, o->gpus_per_pod, x->gpu_id,
				   o->cpu_milli_per_gpu, o->memory_per_gpu);
	j->queue = o->queue ? intern_str(x->t->strings, o->queue) : NULL;
	j->priority = o->priority;
	j->topology_mode = o->topology_mode;
	j->topology_level =
		o->topology_level ? intern_str(x->t->strings, o->topology_level)
				  : NULL;
	j->pos = (struct srcpos){ x->file, x->line, 1 };
	if (gpus > x->sum.gpus_max)
		x->sum.gpus_max = gpus;
	hmap_put_str(&x->names, name, x->line);
}

static void parse_row(struct itp_ctx *x, const char *s, size_t n)
{
	struct field f[MAX_FIELDS + 1];
	size_t nf = split(s, n, f);
	int64_t submit = 0, duration = 0, gpus = 0;
	int rs, rd, rg;
	const char *name;

	x->sum.rows++;
	if (nf != x->nfields) {
		error_at(x, 0, "the row has %s%zu fields, the header %zu",
			 nf > MAX_FIELDS ? "more than " : "",
			 nf > MAX_FIELDS ? (size_t)MAX_FIELDS : nf, x->nfields);
		return;
	}
	rs = read_time(x, &f[x->cols[COL_SUBMIT]], COL_SUBMIT, &submit);
	rd = read_time(x, &f[x->cols[COL_DURATION]], COL_DURATION, &duration);
	rg = read_gpus(x, &f[x->cols[COL_GPUS]], &gpus);
	if (rs < 0 || rd < 0 || rg < 0)
		return;
	if (rs > 0 || rd > 0 || rg > 0) {
		x->sum.skipped_missing++;
		return;
	}
	if (gpus == 0 || duration == 0) {
		x->sum.skipped_zero_gpu += gpus == 0;
		x->sum.skipped_zero_duration += gpus != 0;
		return;
	}
	name = job_name(x, x->cols[COL_ID] >= 0 ? &f[x->cols[COL_ID]] : NULL);
	if (name)
		add_job(x, name, submit, duration, gpus);
}

static int check_options(struct itp_ctx *x)
{
	const struct itp_options *o = x->o;
	struct errbuf eb;

	if (o->gpus_per_pod < 1 || o->gpus_per_pod > 1024 ||
	    o->cpu_milli_per_gpu < 0 || o->memory_per_gpu < 0 ||
	    o->cpu_milli_per_gpu > INT64_MAX / 1024 ||
	    o->memory_per_gpu > INT64_MAX / 1024) {
		diag_add(x->d, DIAG_ERROR, x->file, 0, 0,
			 "ITP options: GPUs per pod must be 1 to 1024, cpu "
			 "and memory per GPU non-negative and bounded");
		return -EINVAL;
	}
	x->gpu_id = resource_id(x->t->resources, o->gpu_resource, &eb);
	if (x->gpu_id >= 0 && x->gpu_id < RESOURCE_FIXED_COUNT)
		x->gpu_id = errbuf_set(&eb, -EINVAL,
				       "must be an extended resource, not %s",
				       o->gpu_resource);
	if (x->gpu_id < 0) {
		diag_add(x->d, DIAG_ERROR, x->file, 0, 0,
			 "ITP options: GPU resource: %s", eb.msg);
		return -EINVAL;
	}
	return 0;
}

static void check_header(struct itp_ctx *x, const char *data, size_t len)
{
	x->line = 1;
	x->nfields = header_cols(data, len, x->cols);
	if (x->nfields > MAX_FIELDS) {
		error_at(x, 0, "header: more than %d columns", MAX_FIELDS);
		return;
	}
	for (int c = COL_SUBMIT; c < COL_COUNT; c++)
		if (x->cols[c] < 0)
			error_at(x, 0,
				 "header: no \"%s\" column (an ITP trace "
				 "has job_id,submission_time,duration,"
				 "num_gpu)",
				 col_names[c]);
}

static void parse_rows(struct itp_ctx *x, const char *data, size_t len)
{
	const char *nl = memchr(data, '\n', len);
	size_t i = nl ? (size_t)(nl - data) + 1 : len;

	while (i < len) {
		size_t end, n;

		nl = memchr(data + i, '\n', len - i);
		end = nl ? (size_t)(nl - data) : len;
		n = end - i;
		x->line++;
		if (n && data[i + n - 1] == '\r')
			n--;
		if (n > TRACE_MAX_LINE)
			error_at(x, 0, "line is longer than %d bytes",
				 TRACE_MAX_LINE);
		else if (n > 0 &&
			 x->t->jobs.len + x->jobs.len >= x->t->max_jobs) {
			error_at(x, 0,
				 "too many jobs: a trace holds at most %zu",
				 x->t->max_jobs);
			break;
		} else if (n > 0)
			parse_row(x, data + i, n);
		i = end + 1;
	}
}

/* Times relative to the earliest job; the summary's totals. */
static void finish(struct itp_ctx *x)
{
	int64_t origin = INT64_MAX;

	for (size_t i = 0; i < x->jobs.len; i++)
		if (x->jobs.items[i].submit_us < origin)
			origin = x->jobs.items[i].submit_us;
	x->sum.origin_us = x->jobs.len ? origin : 0;
	for (size_t i = 0; i < x->jobs.len; i++) {
		struct trace_job *j = &x->jobs.items[i];
		int64_t gpus = (int64_t)j->pods * j->requests.v[x->gpu_id];
		int64_t gpu_us;

		j->submit_us -= x->sum.origin_us;
		if (j->submit_us > x->sum.span_us)
			x->sum.span_us = j->submit_us;
		if (__builtin_mul_overflow(gpus, j->duration_us, &gpu_us) ||
		    __builtin_add_overflow(x->sum.gpu_us, gpu_us,
					   &x->sum.gpu_us))
			x->sum.gpu_us = INT64_MAX;
	}
	x->sum.jobs = x->jobs.len;
}

int itp_parse(struct trace *t, const struct itp_options *o, const char *file,
	      const char *data, size_t len, struct itp_summary *ret_summary,
	      struct diag *d)
{
	struct itp_ctx x = { .t = t, .o = o, .d = d };
	int line, col;

	x.file = intern_str(t->strings, file);
	if (check_options(&x) < 0)
		return -EINVAL;
	/* A NUL would cut the field it is in (a job id) short. */
	if (text_find_nul(data, len, &line, &col) < len) {
		diag_add(d, DIAG_ERROR, x.file, line, col,
			 "NUL byte (0x00) in the text");
		return -EINVAL;
	}
	hmap_init(&x.names);
	for (size_t i = 0; i < t->jobs.len; i++)
		hmap_put_str(&x.names, t->jobs.items[i].name, 0);
	check_header(&x, data, len);
	if (!x.failed)
		parse_rows(&x, data, len);
	hmap_release(&x.names);
	if (x.failed) {
		vec_release(&x.jobs);
		return -EINVAL;
	}
	finish(&x);
	vec_reserve(&t->jobs, t->jobs.len + x.jobs.len);
	for (size_t i = 0; i < x.jobs.len; i++)
		t->jobs.items[t->jobs.len++] = x.jobs.items[i];
	vec_release(&x.jobs);
	if (ret_summary)
		*ret_summary = x.sum;
	return 0;
}

void itp_summary_format(const struct itp_summary *s, struct strbuf *out)
{
	size_t skipped = s->skipped_zero_gpu + s->skipped_missing +
			 s->skipped_zero_duration;

	strbuf_addf(out,
		    "%zu rows, %zu jobs, %zu skipped (%zu with 0 GPUs, %zu "
		    "with a missing field, %zu with a zero duration), %zu "
		    "rounded up to whole pods; largest job %lld GPUs, "
		    "submissions over %.1f h, %.1f GPU-hours",
		    s->rows, s->jobs, skipped, s->skipped_zero_gpu,
		    s->skipped_missing, s->skipped_zero_duration, s->rounded_up,
		    (long long)s->gpus_max, (double)s->span_us / 3.6e9,
		    (double)s->gpu_us / 3.6e9);
}

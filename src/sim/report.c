// SPDX-License-Identifier: Apache-2.0
/*
 * The HTML report of a simulation: a page of inline SVG charts drawn here
 * from the runs' samples, job records and per-node busy time, so that it
 * opens anywhere without a network or a script. Charts share one frame
 * (plot area, axes with tick labels, a legend in the right margin); all
 * coordinates are written with one decimal through sim_out_fixed(), which
 * keeps the page independent of the locale and byte-for-byte repeatable.
 * Long series are averaged down and distributions sampled at quantiles,
 * so the page size depends on the number of runs and nodes only.
 */
#include "sim/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sched/sched.h"
#include "sim/sim_out.h"
#include "sim/sim_sweep.h"

#include "base/banned.h"

#define CHART_W	 720
#define CHART_H	 300
#define M_LEFT	 64
#define M_RIGHT	 150
#define M_TOP	 28
#define M_BOTTOM 44
#define PLOT_W	 (CHART_W - M_LEFT - M_RIGHT)
#define PLOT_H	 (CHART_H - M_TOP - M_BOTTOM)

#define HIST_BUCKETS 10

/* Heat map geometry: cell pitch, cells per line, label font width. */
#define HM_CELL	     10
#define HM_PITCH     12
#define HM_WRAP	     64
#define HM_LINE	     14
#define HM_CHAR_W    7
#define HM_LABEL_MAX 32

/* Okabe and Ito's colours, told apart with any colour vision: blue,
 * orange, bluish green, vermillion, reddish purple, sky blue, yellow,
 * black (the policies' order: tas, kube-default, first-fit, no-gang). */
static const char *const palette[] = {
	"#0072b2", "#e69f00", "#009e73", "#d55e00",
	"#cc79a7", "#56b4e9", "#f0e442", "#000000",
};

static const char page_head[] =
	"<meta charset=\"utf-8\">\n"
	"<style>\n"
	"body{font-family:sans-serif;margin:2em;color:#222;max-width:"
	"1100px}\n"
	"table{border-collapse:collapse}\n"
	"th,td{padding:3px 10px;border-bottom:1px solid #ddd;"
	"text-align:right}\n"
	"th:first-child,td:first-child{text-align:left}\n"
	"svg{display:block;margin:0.5em 0 1.5em}\n"
	"svg.c{width:100%;height:auto}\n"
	"td.m{text-align:left;color:#555;font-size:90%}\n"
	"tr.hint td{color:#555;font-size:85%;text-align:right}\n"
	".jobs td:nth-child(-n+3),.jobs td:nth-child(6),"
	".jobs td:nth-child(7){text-align:left}\n"
	"code{background:#f4f4f4;padding:1px 4px;word-break:break-all}\n"
	"svg text{font-size:11px;fill:#333}\n"
	".frame{fill:none;stroke:#888}\n"
	".grid{stroke:#e8e8e8}\n"
	".l{fill:none;stroke-width:1.5}\n"
	"</style>\n";

/* One axis: a data range, where ticks go and how they read. */
struct axis {
	double lo, hi;
	bool log;	     /* log10 scale; ticks from log_ticks[] */
	double step;	     /* linear: tick spacing in data units */
	double unit;	     /* a tick label reads value / unit */
	int decimals;	     /* of tick labels */
	const char *suffix;  /* after each tick label */
	const char *caption; /* text, kept while the chart is drawn */
};

struct chart {
	struct axis x, y;
};

/* A line of a chart: points in data units, its colour and legend. */
struct series {
	const char *color, *name; /* static */
	bool dashed;
	double *x, *y;
	size_t n;
};

static const struct {
	double s;
	const char *label;
} log_ticks[] = {
	{ 1, "1 s" },	     { 10, "10 s" },	 { 60, "1 min" },
	{ 600, "10 min" },   { 3600, "1 h" },	 { 36000, "10 h" },
	{ 86400, "1 d" },    { 864000, "10 d" }, { 8640000, "100 d" },
	{ 31536000, "1 y" },
};

static void html_esc(const char *s, struct strbuf *out)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&':
			strbuf_addstr(out, "&amp;");
			break;
		case '<':
			strbuf_addstr(out, "&lt;");
			break;
		case '>':
			strbuf_addstr(out, "&gt;");
			break;
		case '"':
			strbuf_addstr(out, "&quot;");
			break;
		case '\'':
			strbuf_addstr(out, "&#39;");
			break;
		default:
			/* Control characters are not allowed in HTML text. */
			if (*p < 0x20 && *p != '\t' && *p != '\n')
				strbuf_addch(out, '?');
			else
				strbuf_addch(out, (char)*p);
		}
	}
}

static const char *color_of(enum sim_policy p)
{
	return palette[(size_t)p % ARRAY_SIZE(palette)];
}

/* ` name="v"` with one decimal. */
static void attr(const char *name, double v, struct strbuf *out)
{
	strbuf_addf(out, " %s=\"", name);
	sim_out_fixed(v, 1, true, out);
	strbuf_addch(out, '"');
}

static void text_at(double x, double y, const char *anchor, const char *text,
		    struct strbuf *out)
{
	strbuf_addstr(out, "<text");
	attr("x", x, out);
	attr("y", y, out);
	if (anchor)
		strbuf_addf(out, " text-anchor=\"%s\"", anchor);
	strbuf_addch(out, '>');
	html_esc(text, out);
	strbuf_addstr(out, "</text>\n");
}

static void line_at(double x1, double y1, double x2, double y2, const char *cls,
		    struct strbuf *out)
{
	strbuf_addf(out, "<line class=\"%s\"", cls);
	attr("x1", x1, out);
	attr("y1", y1, out);
	attr("x2", x2, out);
	attr("y2", y2, out);
	strbuf_addstr(out, "/>\n");
}

static void rect_at(double x, double y, double w, double h, const char *fill,
		    struct strbuf *out)
{
	strbuf_addstr(out, "<rect");
	attr("x", x, out);
	attr("y", y, out);
	attr("width", w, out);
	attr("height", h, out);
	strbuf_addf(out, " fill=\"%s\"", fill);
}

static double clamp01(double f)
{
	return !(f > 0) ? 0 : f > 1 ? 1 : f;
}

static double axis_frac(const struct axis *a, double v)
{
	if (a->log)
		return clamp01((log10(v) - log10(a->lo)) /
			       (log10(a->hi) - log10(a->lo)));
	return clamp01((v - a->lo) / (a->hi - a->lo));
}

static double chart_px(const struct chart *c, double x)
{
	return M_LEFT + PLOT_W * axis_frac(&c->x, x);
}

static double chart_py(const struct chart *c, double y)
{
	return M_TOP + PLOT_H * (1 - axis_frac(&c->y, y));
}

/* The step of 1, 2 or 5 times a power of ten nearest to range / want. */
static double nice_step(double range, int want)
{
	double raw = range / want, mag = 1, norm;

	BUG_ON(!(range > 0));
	while (mag * 10 <= raw)
		mag *= 10;
	while (mag > raw)
		mag /= 10;
	norm = raw / mag;
	return (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
}

/* Decimals that write multiples of step exactly (at most 6). */
static int step_decimals(double step)
{
	int d = 0;

	while (d < 6 && fabs(step - round(step)) > 1e-9 * fmax(1, step)) {
		step *= 10;
		d++;
	}
	return d;
}

/* A linear axis from 0 to max (at least min_hi) in units of unit. */
static void axis_linear(struct axis *a, double max, double min_hi, double unit,
			const char *suffix, const char *caption)
{
	double hi_u = fmax(max, min_hi) / unit, step_u;

	step_u = nice_step(hi_u > 0 ? hi_u : 1, 5);
	*a = (struct axis){
		.lo = 0,
		.hi = ceil(hi_u / step_u - 1e-9) * step_u * unit,
		.step = step_u * unit,
		.unit = unit,
		.decimals = step_decimals(step_u),
		.suffix = suffix,
		.caption = caption,
	};
	if (!(a->hi > 0))
		a->hi = a->step;
}

static void tick_label(const struct axis *a, double v, struct strbuf *out)
{
	sim_out_fixed(v / a->unit, a->decimals, false, out);
	strbuf_addstr(out, a->suffix);
}

static void x_tick(const struct chart *c, double v, const char *label,
		   struct strbuf *out)
{
	double x = chart_px(c, v);

	line_at(x, M_TOP, x, M_TOP + PLOT_H, "grid", out);
	text_at(x, M_TOP + PLOT_H + 16, "middle", label, out);
}

static void x_ticks(const struct chart *c, struct strbuf *out)
{
	struct strbuf label;

	if (c->x.log) {
		for (size_t i = 0; i < ARRAY_SIZE(log_ticks); i++)
			if (log_ticks[i].s >= c->x.lo &&
			    log_ticks[i].s <= c->x.hi)
				x_tick(c, log_ticks[i].s, log_ticks[i].label,
				       out);
		return;
	}
	strbuf_init(&label);
	for (int k = 0; k * c->x.step <= c->x.hi + c->x.step * 1e-9; k++) {
		strbuf_reset(&label);
		tick_label(&c->x, k * c->x.step, &label);
		x_tick(c, k * c->x.step, label.buf, out);
	}
	strbuf_release(&label);
}

static void y_ticks(const struct chart *c, struct strbuf *out)
{
	struct strbuf label;

	strbuf_init(&label);
	for (int k = 0; k * c->y.step <= c->y.hi + c->y.step * 1e-9; k++) {
		double y = chart_py(c, k * c->y.step);

		strbuf_reset(&label);
		tick_label(&c->y, k * c->y.step, &label);
		line_at(M_LEFT, y, M_LEFT + PLOT_W, y, "grid", out);
		text_at(M_LEFT - 6, y + 4, "end", label.buf, out);
	}
	strbuf_release(&label);
}

/* Open an <svg> of w x h whose accessible name is label; a chart (wide)
 * is scaled to the page's width. */
static void svg_open(int w, int h, bool wide, const char *label,
		     struct strbuf *out)
{
	strbuf_addf(out,
		    "<svg%s width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		    "role=\"img\" aria-label=\"",
		    wide ? " class=\"c\"" : "", w, h, w, h);
	html_esc(label, out);
	strbuf_addstr(out, "\">\n");
}

static void chart_open(const struct chart *c, const char *label,
		       struct strbuf *out)
{
	svg_open(CHART_W, CHART_H, true, label, out);
	x_ticks(c, out);
	y_ticks(c, out);
	strbuf_addstr(out, "<rect class=\"frame\"");
	attr("x", M_LEFT, out);
	attr("y", M_TOP, out);
	attr("width", PLOT_W, out);
	attr("height", PLOT_H, out);
	strbuf_addstr(out, "/>\n");
	text_at(M_LEFT + PLOT_W / 2.0, CHART_H - 8, "middle", c->x.caption,
		out);
	text_at(M_LEFT, M_TOP - 10, "start", c->y.caption, out);
}

static void legend_entry(size_t i, const char *color, const char *name,
			 bool dashed, struct strbuf *out)
{
	double y = M_TOP + 18.0 * (double)i;

	rect_at(M_LEFT + PLOT_W + 14, y + (dashed ? 5 : 0), 12, dashed ? 2 : 12,
		color, out);
	strbuf_addstr(out, "/>\n");
	text_at(M_LEFT + PLOT_W + 32, y + 10, NULL, name, out);
}

static void legend(const struct sim_result *runs, size_t n, struct strbuf *out)
{
	for (size_t r = 0; r < n; r++)
		legend_entry(r, color_of(runs[r].policy),
			     sim_policy_name(runs[r].policy), false, out);
}

static void polyline(const struct chart *c, const struct series *s,
		     struct strbuf *out)
{
	if (!s->n)
		return;
	strbuf_addf(out, "<polyline class=\"l\" stroke=\"%s\"%s points=\"",
		    s->color, s->dashed ? " stroke-dasharray=\"6 4\"" : "");
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strbuf_addch(out, ' ');
		sim_out_fixed(chart_px(c, s->x[i]), 1, true, out);
		strbuf_addch(out, ',');
		sim_out_fixed(chart_py(c, s->y[i]), 1, true, out);
	}
	strbuf_addstr(out, "\"/>\n");
}

/* A chart of lines with its axes and a legend entry per line. */
static void chart_lines(const struct chart *c, const struct series *lines,
			size_t n, const char *label, struct strbuf *out)
{
	chart_open(c, label, out);
	for (size_t r = 0; r < n; r++)
		polyline(c, &lines[r], out);
	for (size_t r = 0; r < n; r++)
		legend_entry(r, lines[r].color, lines[r].name, lines[r].dashed,
			     out);
	strbuf_addstr(out, "</svg>\n");
}

static void series_alloc(struct series *s, enum sim_policy p, size_t n)
{
	s->color = color_of(p);
	s->name = sim_policy_name(p);
	s->dashed = false;
	s->x = xcalloc(n ? n : 1, sizeof(*s->x));
	s->y = xcalloc(n ? n : 1, sizeof(*s->y));
	s->n = n;
}

static void series_free(struct series *lines, size_t n)
{
	for (size_t r = 0; r < n; r++) {
		free(lines[r].x);
		free(lines[r].y);
	}
	free(lines);
}

/* Average consecutive points down to at most max, in place. */
static void downsample(struct series *s, size_t max)
{
	size_t per = (s->n + max - 1) / max, k = 0;

	if (s->n <= max)
		return;
	for (size_t i = 0; i < s->n; i += per, k++) {
		size_t end = i + per < s->n ? i + per : s->n;
		double sum = 0;

		for (size_t j = i; j < end; j++)
			sum += s->y[j];
		s->x[k] = s->x[i];
		s->y[k] = sum / (double)(end - i);
	}
	s->n = k;
}

enum metric {
	METRIC_UTILIZATION, /* GPUs busy, % */
	METRIC_PENDING,	    /* jobs pending */
	METRIC_CQ_PENDING,  /* jobs of one ClusterQueue pending */
	METRIC_CQ_USAGE,    /* its usage, % of its nominal quota */
	METRIC_FREE_HOSTS,  /* hosts free: all, most in a block, in a rack */
	METRIC_FREE_BLOCK,
	METRIC_FREE_RACK,
};

/* Sample i of run r's metric m (of ClusterQueue cq for the queue ones). */
static double sample_value(const struct sim_input *in,
			   const struct sim_result *r, size_t i, enum metric m,
			   size_t cq)
{
	const struct sim_sample *s = &r->samples.items[i];
	const struct sim_cq_sample *cs = NULL;

	if (m == METRIC_CQ_PENDING || m == METRIC_CQ_USAGE) {
		BUG_ON(cq >= r->ncq ||
		       r->cq_samples.len != r->samples.len * r->ncq);
		cs = &r->cq_samples.items[i * r->ncq + cq];
	}
	switch (m) {
	case METRIC_PENDING:
		return s->pending;
	case METRIC_CQ_PENDING:
		return cs->pending;
	case METRIC_CQ_USAGE:
		return r->cq_nominal && r->cq_nominal[cq] > 0
			       ? 100.0 * (double)cs->usage /
					 (double)r->cq_nominal[cq]
			       : 0;
	case METRIC_FREE_HOSTS:
		return s->free_hosts;
	case METRIC_FREE_BLOCK:
		return s->free_block_hosts;
	case METRIC_FREE_RACK:
		return s->free_rack_hosts;
	default:
		return in->total_gpus > 0 ? 100.0 * (double)s->gpus_busy /
						    (double)in->total_gpus
					  : 0;
	}
}

/* A time axis from 0 to span_s in the largest unit giving two ticks. */
static void axis_time(struct axis *a, double span_s)
{
	static const struct {
		double s;
		const char *caption;
	} units[] = {
		{ 86400, "time (d)" },
		{ 3600, "time (h)" },
		{ 60, "time (min)" },
		{ 1, "time (s)" },
	};
	size_t u = 0;

	while (u + 1 < ARRAY_SIZE(units) && span_s < 2 * units[u].s)
		u++;
	axis_linear(a, span_s, units[u].s, units[u].s, "", units[u].caption);
	a->hi = fmax(span_s, units[u].s); /* no empty stretch after the end */
}

/* Line r of a time chart: run res's metric m, averaged down to max
 * points; *span_s and *ymax grow to cover it. */
static void time_series(const struct sim_input *in,
			const struct sim_result *res, enum metric m, size_t cq,
			size_t max, struct series *line, double *span_s,
			double *ymax)
{
	series_alloc(line, res->policy, res->samples.len);
	*span_s = fmax(*span_s, (double)res->span_us / 1e6);
	for (size_t i = 0; i < res->samples.len; i++) {
		line->x[i] = (double)res->samples.items[i].t_us / 1e6;
		line->y[i] = sample_value(in, res, i, m, cq);
		*span_s = fmax(*span_s, line->x[i]);
		*ymax = fmax(*ymax, line->y[i]);
	}
	downsample(line, max);
}

static void chart_time(const struct sim_input *in,
		       const struct sim_result *runs, size_t n, enum metric m,
		       struct strbuf *out)
{
	struct series *lines = xcalloc(n ? n : 1, sizeof(*lines));
	double span_s = 0, ymax = 0;
	struct chart c;

	for (size_t r = 0; r < n; r++)
		time_series(in, &runs[r], m, 0, REPORT_MAX_SERIES_POINTS,
			    &lines[r], &span_s, &ymax);
	axis_time(&c.x, span_s);
	if (m == METRIC_UTILIZATION)
		axis_linear(&c.y, fmin(ymax, 100), 10, 1, " %", "GPUs busy");
	else
		axis_linear(&c.y, ymax, 1, 1, "", "jobs pending");
	chart_lines(&c, lines, n,
		    m == METRIC_UTILIZATION ? "GPU utilization over time"
					    : "queue depth over time",
		    out);
	series_free(lines, n);
}

/* A straight line at y over the chart's time span, dashed, in legend
 * entry k. */
static void series_level(struct series *s, double y, double span_s,
			 const char *name)
{
	s->color = "#555555";
	s->name = name;
	s->dashed = true;
	s->x = xcalloc(2, sizeof(*s->x));
	s->y = xcalloc(2, sizeof(*s->y));
	s->x[1] = span_s;
	s->y[0] = s->y[1] = y;
	s->n = 2;
}

/* ClusterQueue cq over time: its pending jobs, then its usage against
 * its nominal quota (100 %: more is borrowed), one line per run. */
static void chart_cq(const struct sim_input *in, const struct sim_result *runs,
		     size_t n, size_t cq, bool usage, struct strbuf *out)
{
	struct series *lines = xcalloc(n + 1, sizeof(*lines));
	double span_s = 0, ymax = 0;
	struct strbuf label, caption;
	struct chart c;

	for (size_t r = 0; r < n; r++)
		time_series(in, &runs[r],
			    usage ? METRIC_CQ_USAGE : METRIC_CQ_PENDING, cq,
			    REPORT_MAX_CQ_POINTS, &lines[r], &span_s, &ymax);
	axis_time(&c.x, span_s);
	strbuf_init(&label);
	strbuf_init(&caption);
	if (usage) {
		strbuf_addf(&caption, "%s in use, %% of nominal",
			    runs[0].cq_resource ? runs[0].cq_resource : "-");
		axis_linear(&c.y, ymax, 100, 1, " %", caption.buf);
		series_level(&lines[n], 100, span_s, "nominal quota");
	} else {
		axis_linear(&c.y, ymax, 1, 1, "", "jobs pending");
	}
	strbuf_addstr(&label, in->c->cluster_queues.items[cq].name);
	strbuf_addstr(&label, usage ? ": usage against nominal quota"
				    : ": pending over time");
	chart_lines(&c, lines, n + usage, label.buf, out);
	strbuf_release(&label);
	strbuf_release(&caption);
	series_free(lines, n + usage);
}

/* Per run: the free hosts over time, and the most of them in one block
 * and in one rack (a gang of whole-node pods that must stay in one rack
 * fits only in the last). */
static void chart_free(const struct sim_input *in, const struct sim_result *r,
		       struct strbuf *out)
{
	static const struct {
		enum metric m;
		const char *name;
		size_t color;
	} what[] = {
		{ METRIC_FREE_HOSTS, "in the cluster", 7 },
		{ METRIC_FREE_BLOCK, "in one block", 4 },
		{ METRIC_FREE_RACK, "in one rack", 5 },
	};
	struct series lines[ARRAY_SIZE(what)] = { 0 };
	double span_s = 0, ymax = 0;
	struct strbuf label;
	struct chart c;

	for (size_t k = 0; k < ARRAY_SIZE(what); k++) {
		time_series(in, r, what[k].m, 0, REPORT_MAX_SERIES_POINTS,
			    &lines[k], &span_s, &ymax);
		lines[k].color = palette[what[k].color];
		lines[k].name = what[k].name;
	}
	axis_time(&c.x, span_s);
	axis_linear(&c.y, ymax, 1, 1, "", "free hosts (no GPU in use)");
	strbuf_init(&label);
	strbuf_addf(&label, "%s: free hosts over time",
		    sim_policy_name(r->policy));
	chart_lines(&c, lines, ARRAY_SIZE(lines), label.buf, out);
	strbuf_release(&label);
	for (size_t k = 0; k < ARRAY_SIZE(what); k++) {
		free(lines[k].x);
		free(lines[k].y);
	}
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* Waits (or JCTs) of the jobs they apply to, sorted; *submitted counts
 * the jobs submitted before the run stopped. */
static size_t job_times(const struct sim_input *in, const struct sim_result *r,
			bool jct, int64_t *v, size_t *submitted)
{
	size_t m = 0;

	*submitted = 0;
	for (size_t j = 0; j < in->jobs.len; j++) {
		const struct sim_job_rec *rec = &r->jobs[j];
		int64_t t = jct ? rec->end_us : rec->start_us;

		if (rec->state != SIM_JOB_UNSUBMITTED)
			(*submitted)++;
		if (t >= 0)
			v[m++] = t - in->jobs.items[j].submit_us;
	}
	qsort(v, m, sizeof(*v), cmp_i64);
	return m;
}

/* The CDF of m sorted times over total jobs, at most max points; times
 * below 1 s are drawn at 1 s (log axis). */
static void cdf_points(const int64_t *v, size_t m, size_t total, size_t max,
		       struct series *s)
{
	size_t k = 0, picks = m < max ? m : max;

	if (!m || !total) {
		s->n = 0;
		return;
	}
	s->x[k] = fmax(1, (double)v[0] / 1e6);
	s->y[k++] = 0;
	for (size_t p = 1; p <= picks; p++) {
		size_t i = (p * m + picks - 1) / picks - 1; /* last: m - 1 */

		s->x[k] = fmax(1, (double)v[i] / 1e6);
		s->y[k++] = 100.0 * (double)(i + 1) / (double)total;
	}
	s->n = k;
}

/* The smallest log tick at or above s, above lo and at least a minute. */
static double log_axis_hi(double s, double lo)
{
	for (size_t i = 0; i < ARRAY_SIZE(log_ticks); i++)
		if (log_ticks[i].s >= s && log_ticks[i].s > lo &&
		    log_ticks[i].s >= 60)
			return log_ticks[i].s;
	return fmax(s, lo * 10);
}

/* The largest log tick at or below s (at least 1 s). */
static double log_axis_lo(double s)
{
	double lo = log_ticks[0].s;

	for (size_t i = 0; i < ARRAY_SIZE(log_ticks); i++)
		if (log_ticks[i].s <= s)
			lo = log_ticks[i].s;
	return lo;
}

static void chart_cdf(const struct sim_input *in, const struct sim_result *runs,
		      size_t n, bool jct, struct strbuf *out)
{
	struct series *lines = xcalloc(n ? n : 1, sizeof(*lines));
	int64_t *v = xcalloc(in->jobs.len ? in->jobs.len : 1, sizeof(*v));
	double xmin = INFINITY, xmax = 1;
	struct chart c;

	for (size_t r = 0; r < n; r++) {
		size_t submitted,
			m = job_times(in, &runs[r], jct, v, &submitted);

		series_alloc(&lines[r], runs[r].policy,
			     REPORT_MAX_CDF_POINTS + 1);
		cdf_points(v, m, submitted, REPORT_MAX_CDF_POINTS, &lines[r]);
		if (!lines[r].n)
			continue;
		xmin = fmin(xmin, lines[r].x[0]);
		xmax = fmax(xmax, lines[r].x[lines[r].n - 1]);
	}
	c.x = (struct axis){ .lo = log_axis_lo(isfinite(xmin) ? xmin : 1),
			     .log = true };
	c.x.hi = log_axis_hi(xmax, c.x.lo);
	c.x.caption = jct ? "job completion time (submit to end, log scale)"
			  : "wait (submit to start, log scale)";
	axis_linear(&c.y, 100, 100, 1, " %", "jobs (of all submitted)");
	chart_lines(&c, lines, n,
		    jct ? "distribution of job completion time"
			: "distribution of wait",
		    out);
	series_free(lines, n);
	free(v);
}

/* Percent of the multi-node jobs (placed on more than one host: the ones
 * the placement can slow) with a throughput ratio in each tenth. */
static void tput_hist(const struct sim_input *in, const struct sim_result *r,
		      double pct[HIST_BUCKETS])
{
	size_t counts[HIST_BUCKETS] = { 0 }, total = 0;

	for (size_t j = 0; j < in->jobs.len; j++) {
		double t = r->jobs[j].throughput_ratio;
		int b;

		if (!isfinite(t) || t < 0 || r->jobs[j].hosts <= 1)
			continue;
		b = (int)(t * HIST_BUCKETS);
		counts[b < 0 ? 0 : b >= HIST_BUCKETS ? HIST_BUCKETS - 1 : b]++;
		total++;
	}
	for (int b = 0; b < HIST_BUCKETS; b++)
		pct[b] = total ? 100.0 * (double)counts[b] / (double)total : 0;
}

static void hist_bar(const struct chart *c, const struct sim_result *r,
		     size_t idx, size_t n, int b, double pct,
		     struct strbuf *out)
{
	double x0 = chart_px(c, (double)b / HIST_BUCKETS);
	double bw = chart_px(c, 1.0 / HIST_BUCKETS) - chart_px(c, 0);
	double w = bw * 0.8 / (double)n, y = chart_py(c, pct);

	rect_at(x0 + bw * 0.1 + w * (double)idx, y, w, M_TOP + PLOT_H - y,
		color_of(r->policy), out);
	strbuf_addstr(out, "><title>");
	html_esc(sim_policy_name(r->policy), out);
	strbuf_addf(out, ", %d-%d %%: ", b * 10, b * 10 + 10);
	sim_out_fixed(pct, 1, false, out);
	strbuf_addstr(out, " % of jobs</title></rect>\n");
}

static void chart_hist(const struct sim_input *in,
		       const struct sim_result *runs, size_t n,
		       struct strbuf *out)
{
	double(*pct)[HIST_BUCKETS] = xcalloc(n ? n : 1, sizeof(*pct));
	double ymax = 0;
	struct chart c;

	for (size_t r = 0; r < n; r++) {
		tput_hist(in, &runs[r], pct[r]);
		for (int b = 0; b < HIST_BUCKETS; b++)
			ymax = fmax(ymax, pct[r][b]);
	}
	axis_linear(&c.x, 1, 1, 0.01, " %", "throughput vs ideal placement");
	axis_linear(&c.y, ymax, 1, 1, " %",
		    "multi-node jobs (of those placed)");
	chart_open(&c, "throughput vs ideal", out);
	for (size_t r = 0; r < n; r++)
		for (int b = 0; b < HIST_BUCKETS; b++)
			hist_bar(&c, &runs[r], r, n, b, pct[r][b], out);
	legend(runs, n, out);
	strbuf_addstr(out, "</svg>\n");
	free(pct);
}

/* The heat map's rows: racks grouped by block, then "no topology". */
struct hm_row {
	int32_t block, rack; /* rack -1: the nodes with no topology */
	size_t first, count; /* in hm.order */
};

struct hm {
	uint32_t *order; /* node indices, row by row */
	VEC(struct hm_row) rows;
	size_t label_w; /* pixels */
	int width, height;
};

static int32_t node_rack(const struct sim_input *in, size_t i)
{
	int32_t rack = in->node_place ? in->node_place[i].rack : -1;

	BUG_ON(rack >= (int64_t)in->rack_names.len);
	return rack < 0 ? -1 : rack;
}

static int32_t node_block(const struct sim_input *in, size_t i)
{
	int32_t block = in->node_place ? in->node_place[i].block : -1;

	BUG_ON(block >= (int64_t)in->block_names.len);
	return block < 0 ? -1 : block;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct hm_row *a = pa, *b = pb;
	/* Racks without a block after those with one; no topology last. */
	int64_t ka =
		a->rack < 0 ? INT64_MAX : (a->block < 0 ? INT32_MAX : a->block);
	int64_t kb =
		b->rack < 0 ? INT64_MAX : (b->block < 0 ? INT32_MAX : b->block);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return (a->rack > b->rack) - (a->rack < b->rack);
}

/* Bucket the nodes by rack (index R for none), keeping node order. */
static void hm_rows(const struct sim_input *in, struct hm *hm)
{
	size_t nn = in->c->nodes.len, nr = in->rack_names.len;
	size_t *start = xcalloc(nr + 2, sizeof(*start));

	for (size_t i = 0; i < nn; i++) {
		int32_t rack = node_rack(in, i);

		start[(rack < 0 ? nr : (size_t)rack) + 1]++;
	}
	for (size_t k = 0; k <= nr; k++) {
		if (start[k + 1]) {
			struct hm_row *row = vec_push_zero(&hm->rows);

			row->rack = k < nr ? (int32_t)k : -1;
			row->block = -1;
			row->first = start[k];
		}
		start[k + 1] += start[k];
	}
	for (size_t i = 0; i < nn; i++) {
		int32_t rack = node_rack(in, i);

		hm->order[start[rack < 0 ? nr : (size_t)rack]++] = (uint32_t)i;
	}
	vec_foreach (&hm->rows, row) {
		row->count = start[row->rack < 0 ? nr : (size_t)row->rack] -
			     row->first;
		if (row->rack >= 0)
			row->block = node_block(in, hm->order[row->first]);
	}
	qsort(hm->rows.items, hm->rows.len, sizeof(*hm->rows.items), cmp_row);
	free(start);
}

static const char *row_label(const struct sim_input *in,
			     const struct hm_row *row)
{
	return row->rack < 0 ? "no topology" : in->rack_names.items[row->rack];
}

static const char *block_label(const struct sim_input *in, int32_t block)
{
	return block < 0 ? "(no block)" : in->block_names.items[block];
}

/* Whether row i starts a block group (a heading line above it). */
static bool hm_heading(const struct hm *hm, size_t i)
{
	const struct hm_row *row = &hm->rows.items[i];

	if (row->rack < 0)
		return false;
	return i == 0 || row->block != hm->rows.items[i - 1].block;
}

static size_t label_chars(const char *s)
{
	size_t len = strlen(s);

	return len < HM_LABEL_MAX ? len : HM_LABEL_MAX;
}

static void hm_layout(const struct sim_input *in, struct hm *hm)
{
	size_t chars = 0, cols = 1, lines = 0;

	hm->order = xcalloc(in->c->nodes.len + 1, sizeof(*hm->order));
	hm_rows(in, hm);
	for (size_t i = 0; i < hm->rows.len; i++) {
		const struct hm_row *row = &hm->rows.items[i];

		if (hm_heading(hm, i))
			lines++;
		lines += (row->count + HM_WRAP - 1) / HM_WRAP;
		if (row->count > cols)
			cols = row->count < HM_WRAP ? row->count : HM_WRAP;
		if (label_chars(row_label(in, row)) > chars)
			chars = label_chars(row_label(in, row));
	}
	hm->label_w = chars * HM_CHAR_W + 12;
	hm->width = (int)(hm->label_w + cols * HM_PITCH + 16);
	if (hm->width < 340)
		hm->width = 340;
	hm->height = (int)(lines * HM_PITCH + 2 * HM_LINE + 56);
}

/* A sequential colour scale for a busy fraction in [0, 1]. */
static void heat_color(double f, char buf[8])
{
	static const int stops[3][3] = {
		{ 247, 251, 255 },
		{ 107, 174, 214 },
		{ 8, 48, 107 },
	};
	int lo, rgb[3];
	double t;

	f = clamp01(f) * 2;
	lo = f >= 1 ? 1 : 0;
	t = f - lo;
	for (int k = 0; k < 3; k++)
		rgb[k] = (int)lround(stops[lo][k] +
				     t * (stops[lo + 1][k] - stops[lo][k]));
	snprintf(buf, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void hm_cell(const struct sim_input *in, const struct sim_result *r,
		    uint32_t node, double x, double y, struct strbuf *out)
{
	const struct node *nd = &in->c->nodes.items[node];
	int64_t gpus = in->gpu_id >= 0 ? nd->allocatable.v[in->gpu_id] : 0;
	int64_t busy = r->node_busy_gpu_us ? r->node_busy_gpu_us[node] : 0;
	char color[8] = "#cccccc";
	double f = 0;

	if (gpus > 0 && r->span_us > 0) {
		f = (double)busy / ((double)gpus * (double)r->span_us);
		heat_color(f, color);
	}
	rect_at(x, y, HM_CELL, HM_CELL, color, out);
	strbuf_addstr(out, "><title>");
	html_esc(nd->name, out);
	if (gpus > 0 && r->span_us > 0) {
		strbuf_addstr(out, ": ");
		sim_out_fixed(f * 100, 1, false, out);
		strbuf_addstr(out, " % busy");
	} else {
		strbuf_addstr(out, ": no GPUs");
	}
	strbuf_addstr(out, "</title></rect>\n");
}

static double hm_row_draw(const struct sim_input *in,
			  const struct sim_result *r, const struct hm *hm,
			  const struct hm_row *row, double y,
			  struct strbuf *out)
{
	text_at(8, y + HM_CELL - 1, NULL, row_label(in, row), out);
	for (size_t k = 0; k < row->count; k++) {
		if (k && k % HM_WRAP == 0)
			y += HM_PITCH;
		hm_cell(in, r, hm->order[row->first + k],
			(double)hm->label_w + (double)(k % HM_WRAP) * HM_PITCH,
			y, out);
	}
	return y + HM_PITCH;
}

static void hm_legend(const struct hm *hm, struct strbuf *out)
{
	double y = hm->height - 30;
	char color[8];

	text_at(8, y + 9, NULL, "GPU-time busy:", out);
	for (int k = 0; k < 10; k++) {
		heat_color((k + 0.5) / 10, color);
		rect_at(110 + 16 * k, y, 16, HM_CELL, color, out);
		strbuf_addstr(out, "/>\n");
	}
	text_at(110, y + 24, "middle", "0 %", out);
	text_at(190, y + 24, "middle", "50 %", out);
	text_at(270, y + 24, "middle", "100 %", out);
}

static void heat_map(const struct sim_input *in, const struct sim_result *r,
		     const struct hm *hm, struct strbuf *out)
{
	double y = HM_LINE;

	svg_open(hm->width, hm->height, false, sim_policy_name(r->policy), out);
	for (size_t i = 0; i < hm->rows.len; i++) {
		const struct hm_row *row = &hm->rows.items[i];

		if (hm_heading(hm, i)) {
			strbuf_addstr(out, "<g font-weight=\"bold\">");
			text_at(8, y + HM_CELL - 1, NULL,
				block_label(in, row->block), out);
			strbuf_addstr(out, "</g>\n");
			y += HM_PITCH;
		}
		y = hm_row_draw(in, r, hm, row, y, out);
	}
	hm_legend(hm, out);
	strbuf_addstr(out, "</svg>\n");
}

static void heat_maps(const struct sim_input *in, const struct sim_result *runs,
		      size_t n, struct strbuf *out)
{
	struct hm hm = { .rows = VEC_INIT };

	hm_layout(in, &hm);
	strbuf_addstr(out, "<h2>Topology heat map</h2>\n<p>One row per rack, "
			   "grouped by block; one cell per node, coloured by "
			   "the share of its GPU-time that running jobs "
			   "used.</p>\n");
	for (size_t r = 0; r < n; r++) {
		strbuf_addstr(out, "<h3>");
		html_esc(sim_policy_name(runs[r].policy), out);
		strbuf_addstr(out, "</h3>\n");
		heat_map(in, &runs[r], &hm, out);
	}
	vec_release(&hm.rows);
	free(hm.order);
}

static void heading(const char *h2, struct strbuf *out)
{
	strbuf_addstr(out, "<h2>");
	html_esc(h2, out);
	strbuf_addstr(out, "</h2>\n");
}

/* What each row of the summary table means and which way is better,
 * by the row's label (sim_out_row_label()). */
static const struct row_help {
	const char *label, *meaning, *better;
} row_help[] = {
	{ "jobs finished", "jobs that ran to the end, of all jobs", "higher" },
	{ "mean wait",
	  "submission to start (all pods running), mean over "
	  "started jobs",
	  "lower" },
	{ "p50 wait", "the median of the same", "lower" },
	{ "p95 wait", "the 95th percentile: how long the unlucky wait",
	  "lower" },
	{ "mean JCT",
	  "job completion time, submission to end, mean over "
	  "finished jobs",
	  "lower" },
	{ "GPU utilization", "GPU-time of running jobs over all GPU-time",
	  "higher" },
	{ "goodput",
	  "ideal-speed work per allocated GPU-hour: held GPU-time "
	  "that trained at full speed",
	  "higher" },
	{ "idle allocated GPU-h",
	  "GPU-hours held by pods of jobs not running "
	  "(a gang waiting for its last pods)",
	  "lower" },
	{ "racks spanned / min",
	  "multi-node jobs: racks their placement "
	  "spans / the fewest that could hold them",
	  "lower, down to min" },
	{ "blocks spanned / min", "the same for blocks", "lower, down to min" },
	{ "on min racks", "multi-node jobs placed on their fewest racks",
	  "higher" },
	{ "throughput vs ideal",
	  "ideal step time / step time of the "
	  "placement, mean over placed jobs",
	  "higher" },
	{ "  multi-node jobs",
	  "the same over the jobs that need more than "
	  "one host (single-node jobs run at ideal "
	  "speed anywhere)",
	  "higher" },
	{ "evictions", "evictions of jobs, preemptions included", "lower" },
	{ "lost GPU-h",
	  "work lost to evictions and failures since the last "
	  "checkpoint",
	  "lower" },
	{ "makespan", "the last end (or the stop time)", "lower" },
	{ "mean time to admission",
	  "submission to first admission (quota "
	  "reserved)",
	  "lower" },
	{ "least ClusterQueue usage",
	  "the least time-averaged use of a "
	  "ClusterQueue's nominal quota",
	  "higher" },
};

/* The help of the summary row called label, NULL when none. */
static const struct row_help *row_help_of(const char *label)
{
	for (size_t i = 0; i < ARRAY_SIZE(row_help); i++)
		if (!strcmp(row_help[i].label, label))
			return &row_help[i];
	return NULL;
}

static void td(const char *text, struct strbuf *out)
{
	strbuf_addstr(out, "<td>");
	html_esc(text, out);
	strbuf_addstr(out, "</td>");
}

static void td_meaning(const char *meaning, const char *better,
		       struct strbuf *out)
{
	strbuf_addstr(out, "<td class=\"m\">");
	html_esc(meaning, out);
	if (better && *better) {
		strbuf_addstr(out, "; better: ");
		html_esc(better, out);
	}
	strbuf_addstr(out, "</td>");
}

static void summary_table(const struct sim_result *runs, size_t n,
			  struct strbuf *out)
{
	struct strbuf cell;

	strbuf_init(&cell);
	strbuf_addstr(out, "<table>\n<tr><th></th>");
	for (size_t r = 0; r < n; r++) {
		strbuf_addstr(out, "<th>");
		html_esc(sim_policy_name(runs[r].policy), out);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addstr(out, "<th>what it means</th></tr>\n");
	for (size_t row = 0; row < SIM_OUT_TABLE_ROWS; row++) {
		const char *label = sim_out_row_label(row);
		const struct row_help *h = row_help_of(label);

		BUG_ON(!h); /* every row is explained */
		strbuf_addstr(out, "<tr><td>");
		html_esc(label, out);
		strbuf_addstr(out, "</td>");
		for (size_t r = 0; r < n; r++) {
			strbuf_reset(&cell);
			sim_out_cell(&runs[r], row, &cell);
			td(cell.buf, out);
		}
		td_meaning(h->meaning, h->better, out);
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</table>\n");
	strbuf_release(&cell);
}

/* A duration cell, the exact seconds in its tooltip; "-" when negative
 * (does not apply). */
static void td_duration_us(int64_t us, struct strbuf *out)
{
	if (us < 0) {
		td("-", out);
		return;
	}
	strbuf_addstr(out, "<td title=\"");
	sim_out_seconds(us, out);
	strbuf_addstr(out, " s\">");
	sim_out_duration((double)us / 1e6, out);
	strbuf_addstr(out, "</td>");
}

/* Column headings, then a line under them saying what each column is
 * and which way is better. cols[i][0] heading, [1] hint. */
static void table_head(const char *cls, const char *const (*cols)[2],
		       size_t ncols, struct strbuf *out)
{
	if (cls)
		strbuf_addf(out, "<table class=\"%s\">\n<tr>", cls);
	else
		strbuf_addstr(out, "<table>\n<tr>");
	for (size_t i = 0; i < ncols; i++) {
		strbuf_addstr(out, "<th>");
		html_esc(cols[i][0], out);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addstr(out, "</tr>\n<tr class=\"hint\">");
	for (size_t i = 0; i < ncols; i++)
		td(cols[i][1], out);
	strbuf_addstr(out, "</tr>\n");
}

/* The ClusterQueue of job j of run r: where it was admitted, else the
 * one its LocalQueue points to; -1 when none. */
static int64_t job_cq(const struct sim_input *in, const struct sim_result *r,
		      size_t j)
{
	int64_t cq = r->jobs[j].cq >= 0 ? r->jobs[j].cq
					: sim_job_cq(in, (uint32_t)j);

	return cq < (int64_t)in->c->cluster_queues.len ? cq : -1;
}

/* The wait (submit -> start) of v[0..m) sorted at quantile q, -1 when
 * none (nearest rank). */
static int64_t quantile_us(const int64_t *v, size_t m, double q)
{
	size_t i;

	if (!m)
		return -1;
	i = (size_t)ceil(q * (double)m);
	return v[i ? i - 1 : 0];
}

/* One ClusterQueue's figures in one run. */
struct cq_fig {
	size_t jobs, admitted, started, never;
	int64_t preempted, other_evictions;
	int64_t *waits; /* of started jobs, sorted; [started] */
};

static void cq_figs(const struct sim_input *in, const struct sim_result *r,
		    struct cq_fig *f, size_t ncq)
{
	for (size_t k = 0; k <= ncq; k++)
		f[k].waits = xcalloc(in->jobs.len + 1, sizeof(*f[k].waits));
	for (size_t j = 0; j < in->jobs.len; j++) {
		const struct sim_job_rec *rec = &r->jobs[j];
		int64_t cq = job_cq(in, r, j);
		struct cq_fig *x = &f[cq < 0 ? ncq : (size_t)cq];

		if (rec->state == SIM_JOB_UNSUBMITTED)
			continue;
		x->jobs++;
		if (rec->admit_us >= 0)
			x->admitted++;
		else
			x->never++;
		if (rec->start_us >= 0)
			x->waits[x->started++] =
				rec->start_us - in->jobs.items[j].submit_us;
		x->preempted += rec->preemptions;
		x->other_evictions += rec->evictions - rec->preemptions;
	}
	for (size_t k = 0; k <= ncq; k++)
		qsort(f[k].waits, f[k].started, sizeof(*f[k].waits), cmp_i64);
}

/* The preemptions of ClusterQueue k's jobs: the total, and by Kueue's
 * reason where the run counted them. */
static void preempt_cell(const struct sim_result *r, size_t k, size_t ncq,
			 int64_t total, struct strbuf *out)
{
	bool first = true;

	strbuf_addf(out, "%" PRId64, total);
	if (k >= ncq || !r->cq_preempted || r->ncq != ncq || !total)
		return;
	for (size_t why = 0; why < SIM_PREEMPT_REASONS; why++) {
		int64_t v = r->cq_preempted[k * SIM_PREEMPT_REASONS + why];

		if (!v)
			continue;
		strbuf_addf(out, "%s%s %" PRId64, first ? ": " : ", ",
			    sched_preempt_reason_name(
				    (enum sched_preempt_reason)why),
			    v);
		first = false;
	}
}

static const char *const cq_cols[][2] = {
	{ "ClusterQueue", "run" },
	{ "jobs", "submitted" },
	{ "never admitted", "lower" },
	{ "p50 wait", "submit to start; lower" },
	{ "p95 wait", "lower" },
	{ "max wait", "lower" },
	{ "usage of nominal", "time-averaged; higher" },
	{ "preempted", "by Kueue's reason; lower" },
	{ "other evictions", "failures, timeouts; lower" },
};

static void cq_row(const struct sim_input *in, const struct sim_result *r,
		   size_t k, size_t ncq, const struct cq_fig *x,
		   struct strbuf *out)
{
	struct strbuf c;

	strbuf_init(&c);
	strbuf_addstr(out, "<tr><td>");
	html_esc(k < ncq ? in->c->cluster_queues.items[k].name
			 : "(no ClusterQueue)",
		 out);
	strbuf_addstr(out, " <small>");
	html_esc(sim_policy_name(r->policy), out);
	strbuf_addstr(out, "</small></td>");
	strbuf_addf(out, "<td>%zu</td><td>%zu</td>", x->jobs, x->never);
	td_duration_us(quantile_us(x->waits, x->started, 0.5), out);
	td_duration_us(quantile_us(x->waits, x->started, 0.95), out);
	td_duration_us(quantile_us(x->waits, x->started, 1), out);
	if (k < ncq && r->cq_usage && r->cq_usage[k] >= 0) {
		sim_out_fixed(r->cq_usage[k] * 100, 1, false, &c);
		strbuf_addstr(&c, " %");
	} else {
		strbuf_addch(&c, '-');
	}
	td(c.buf, out);
	strbuf_reset(&c);
	preempt_cell(r, k, ncq, x->preempted, &c);
	td(c.buf, out);
	strbuf_addf(out, "<td>%" PRId64 "</td></tr>\n", x->other_evictions);
	strbuf_release(&c);
}

/* Per ClusterQueue and run: jobs, waits, usage, preemptions. */
static void cq_section(const struct sim_input *in,
		       const struct sim_result *runs, size_t n,
		       struct strbuf *out)
{
	size_t ncq = in->c->cluster_queues.len;
	struct cq_fig *f = xcalloc(ncq + 1, sizeof(*f));

	heading("ClusterQueues", out);
	strbuf_addstr(out, "<p>Per ClusterQueue and run: how long its jobs "
			   "waited, how much of its nominal quota it used "
			   "(above 100 % it borrowed from its cohort), and "
			   "how often its jobs were evicted. A job never "
			   "admitted counts under the ClusterQueue of its "
			   "LocalQueue.</p>\n");
	table_head(NULL, cq_cols, ARRAY_SIZE(cq_cols), out);
	for (size_t r = 0; r < n; r++) {
		memset(f, 0, (ncq + 1) * sizeof(*f));
		cq_figs(in, &runs[r], f, ncq);
		for (size_t k = 0; k <= ncq; k++) {
			if (k < ncq || f[k].jobs)
				cq_row(in, &runs[r], k, ncq, &f[k], out);
			free(f[k].waits);
		}
	}
	strbuf_addstr(out, "</table>\n");
	free(f);
	for (size_t r = 0; r < n; r++)
		if (runs[r].ncq != ncq ||
		    runs[r].cq_samples.len != runs[r].samples.len * ncq)
			return; /* no series (a result made by hand) */
	for (size_t k = 0; n && k < ncq; k++) {
		strbuf_addstr(out, "<h3>");
		html_esc(in->c->cluster_queues.items[k].name, out);
		strbuf_addstr(out, "</h3>\n");
		chart_cq(in, runs, n, k, false, out);
		if (runs[0].cq_nominal && runs[0].cq_nominal[k] > 0)
			chart_cq(in, runs, n, k, true, out);
	}
}

/* Fragmentation: per run, free hosts in all and in the best block and
 * rack over time. */
static void frag_section(const struct sim_input *in,
			 const struct sim_result *runs, size_t n,
			 struct strbuf *out)
{
	heading("Fragmentation", out);
	strbuf_addstr(out, "<p>Hosts with no GPU in use, over time: in the "
			   "whole cluster, and the most of them in one block "
			   "and in one rack, the largest gang of whole-host "
			   "pods that still fits there (higher is better). "
			   "Free hosts far above the most in one rack mean "
			   "the free room is scattered: a gang that must stay "
			   "in one rack waits although the cluster has "
			   "room.</p>\n");
	for (size_t r = 0; r < n; r++) {
		strbuf_addstr(out, "<h3>");
		html_esc(sim_policy_name(runs[r].policy), out);
		strbuf_addstr(out, "</h3>\n");
		chart_free(in, &runs[r], out);
	}
}

/* A job and its wait (so far, for one not started), for sorting. */
struct job_wait {
	int64_t us;
	uint32_t j;
};

/* Longest wait first, then input order. */
static int cmp_job_wait(const void *pa, const void *pb)
{
	const struct job_wait *a = pa, *b = pb;

	if (a->us != b->us)
		return a->us > b->us ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

/* Job j's wait: submit to start, or to end for one not started. */
static int64_t job_wait(const struct sim_input *in, const struct sim_result *r,
			size_t j, int64_t end)
{
	const struct sim_job_rec *rec = &r->jobs[j];

	return (rec->start_us >= 0 ? rec->start_us : end) -
	       in->jobs.items[j].submit_us;
}

static void job_reasons(const struct sim_job_rec *rec, struct strbuf *out)
{
	struct strbuf c;

	strbuf_init(&c);
	for (size_t i = 0; i < rec->nwaits; i++) {
		if (i)
			strbuf_addstr(&c, ", ");
		strbuf_addstr(&c, sim_wait_name(rec->waits[i].reason));
		strbuf_addch(&c, ' ');
		sim_out_duration((double)rec->waits[i].us / 1e6, &c);
	}
	if (rec->wait_end) {
		strbuf_addstr(&c, c.len ? "; still " : "still ");
		strbuf_addstr(&c, sim_wait_name(rec->wait_end));
	}
	td(c.len ? c.buf : "-", out);
	strbuf_release(&c);
}

static void job_placement(const struct sim_job_rec *rec, struct strbuf *out)
{
	struct strbuf c;

	strbuf_init(&c);
	if (rec->hosts < 0) {
		strbuf_addch(&c, '-');
	} else {
		strbuf_addf(&c, "%" PRId32 " host%s, %" PRId32 " rack%s",
			    rec->hosts, rec->hosts == 1 ? "" : "s", rec->racks,
			    rec->racks == 1 ? "" : "s");
		if (rec->min_racks >= 0)
			strbuf_addf(&c, " (min %" PRId32 ")", rec->min_racks);
		strbuf_addf(&c, ", %" PRId32 " block%s", rec->blocks,
			    rec->blocks == 1 ? "" : "s");
		if (rec->min_blocks >= 0)
			strbuf_addf(&c, " (min %" PRId32 ")", rec->min_blocks);
	}
	td(c.buf, out);
	strbuf_reset(&c);
	if (rec->throughput_ratio < 0) {
		strbuf_addch(&c, '-');
	} else {
		sim_out_fixed(rec->throughput_ratio * 100, 1, false, &c);
		strbuf_addstr(&c, " %");
	}
	td(c.buf, out);
	strbuf_reset(&c);
	sim_out_rate(rec->rack_bps, &c);
	td(c.buf, out);
	strbuf_reset(&c);
	sim_out_rate(rec->block_bps, &c);
	td(c.buf, out);
	strbuf_release(&c);
}

static void job_row(const struct sim_input *in, const struct sim_result *r,
		    size_t j, int64_t wait_us, struct strbuf *out)
{
	const struct sim_job *job = &in->jobs.items[j];
	const struct sim_job_rec *rec = &r->jobs[j];
	int64_t cq = job_cq(in, r, j);

	strbuf_addstr(out, "<tr><td>");
	if (job->ns) {
		html_esc(job->ns, out);
		strbuf_addch(out, '/');
	}
	html_esc(job->name, out);
	strbuf_addstr(out, "</td>");
	td(cq >= 0 ? in->c->cluster_queues.items[cq].name : "-", out);
	td(sim_job_state_name(rec->state), out);
	strbuf_addf(out, "<td>%" PRId64 "</td>", job->gpus);
	td_duration_us(rec->start_us >= 0 ? wait_us : -1, out);
	job_reasons(rec, out);
	job_placement(rec, out);
	strbuf_addf(out, "<td>%" PRId32 "</td></tr>\n", rec->evictions);
}

static const char *const job_cols[][2] = {
	{ "job", "namespace/name" },
	{ "ClusterQueue", "" },
	{ "state", "at the end" },
	{ "GPUs", "" },
	{ "wait", "submit to start; lower" },
	{ "waiting on", "each reason and the time in it" },
	{ "placement", "spanned (fewest possible); lower" },
	{ "throughput", "vs ideal placement; higher" },
	{ "cross-rack", "modelled traffic out of its racks; lower" },
	{ "cross-block", "modelled traffic out of its blocks; lower" },
	{ "evictions", "lower" },
};

/* Per run, the REPORT_MAX_JOB_ROWS jobs that waited longest, with why and
 * where they landed. */
static void job_section(const struct sim_input *in,
			const struct sim_result *runs, size_t n,
			struct strbuf *out)
{
	size_t nj = in->jobs.len;
	struct job_wait *order = xcalloc(nj + 1, sizeof(*order));

	heading("Workloads", out);
	strbuf_addstr(out, "<p>Per run, the jobs that waited longest (a job "
			   "still waiting when the run stopped counts its "
			   "wait so far): why they waited and for how long, "
			   "where they landed and what that placement costs. "
			   "workloads.jsonl holds every job.</p>\n");
	for (size_t r = 0; r < n; r++) {
		size_t shown = 0, m = 0;

		for (size_t j = 0; j < nj; j++) {
			if (runs[r].jobs[j].state == SIM_JOB_UNSUBMITTED)
				continue;
			order[m].us =
				job_wait(in, &runs[r], j, runs[r].span_us);
			order[m++].j = (uint32_t)j;
		}
		qsort(order, m, sizeof(*order), cmp_job_wait);
		strbuf_addstr(out, "<h3>");
		html_esc(sim_policy_name(runs[r].policy), out);
		strbuf_addstr(out, "</h3>\n");
		table_head("jobs", job_cols, ARRAY_SIZE(job_cols), out);
		for (; shown < m && shown < REPORT_MAX_JOB_ROWS; shown++)
			job_row(in, &runs[r], order[shown].j, order[shown].us,
				out);
		strbuf_addstr(out, "</table>\n");
		if (shown < m)
			strbuf_addf(out,
				    "<p>%zu of the %zu jobs submitted shown."
				    "</p>\n",
				    shown, m);
	}
	free(order);
}

static void page_open(const struct sim_input *in, const struct report_info *ri,
		      struct strbuf *out)
{
	const char *title = ri->title ? ri->title : "echelon simulation";

	strbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n");
	strbuf_addstr(out, page_head);
	strbuf_addstr(out, "<title>");
	html_esc(title, out);
	strbuf_addstr(out, "</title>\n</head>\n<body>\n<h1>");
	html_esc(title, out);
	strbuf_addf(out,
		    "</h1>\n<p>%zu jobs on %zu nodes with %" PRId64
		    " GPUs.</p>\n",
		    in->jobs.len, in->c->nodes.len, in->total_gpus);
	strbuf_addstr(out, "<p>");
	if (ri->command) {
		strbuf_addstr(out, "Command: <code>");
		html_esc(ri->command, out);
		strbuf_addstr(out, "</code><br>\n");
	}
	if (ri->has_seed)
		strbuf_addf(out, "Seed: %" PRIu64 "<br>\n", ri->seed);
	if (ri->version) {
		strbuf_addstr(out, "echelon ");
		html_esc(ri->version, out);
	}
	strbuf_addstr(out, "</p>\n");
}

/* The figures of the model the runs used (the first run's: one output
 * shares one model), with the range and source of each, and the sweep. */
static void model_section(const struct sim_result *runs, size_t n,
			  const struct sim_sweep *sw, struct strbuf *out)
{
	struct strbuf t;

	if (!n)
		return;
	heading("Throughput model", out);
	strbuf_addstr(out, "<p>A job runs at ideal step time / step time of "
			   "its placement; the figures every run used, with "
			   "the range their sources give (docs/internals/"
			   "simulator.md). All-reduce: ");
	html_esc(throughput_algo_name(runs[0].tp.algo), out);
	strbuf_addstr(out, ".</p>\n<table>\n<tr><th>figure</th><th>value</th>"
			   "<th>range</th><th>source</th></tr>\n");
	for (size_t i = 0; i < throughput_param_count(); i++) {
		const struct throughput_param *p = throughput_param_at(i);
		double v;

		BUG_ON(throughput_get(&runs[0].tp, p->key, &v) < 0);
		strbuf_addstr(out, "<tr><td>");
		html_esc(p->key, out);
		strbuf_addstr(out, "</td><td>");
		sim_out_fixed(v, 6, true, out);
		if (*p->unit) {
			strbuf_addch(out, ' ');
			html_esc(p->unit, out);
		}
		strbuf_addstr(out, "</td><td>");
		sim_out_fixed(p->lo, 6, true, out);
		if (p->hi > p->lo) {
			strbuf_addstr(out, " - ");
			sim_out_fixed(p->hi, 6, true, out);
		}
		strbuf_addstr(out, "</td><td>");
		html_esc(p->source, out);
		strbuf_addstr(out, "</td></tr>\n");
	}
	strbuf_addstr(out, "</table>\n");
	if (!sw)
		return;
	strbuf_init(&t);
	sim_sweep_table(sw, &t);
	strbuf_addstr(out, "<h3>Sweep of ");
	html_esc(sw->key, out);
	strbuf_addstr(out, "</h3>\n<p>Each figure at each value; the charts "
			   "below are of the first.</p>\n<pre>");
	html_esc(t.buf, out);
	strbuf_addstr(out, "</pre>\n");
	strbuf_release(&t);
}

/* The multi-node throughput histogram, with each run's goodput. */
static void tput_section(const struct sim_input *in,
			 const struct sim_result *runs, size_t n,
			 struct strbuf *out)
{
	heading("Throughput vs ideal placement", out);
	strbuf_addstr(out, "<p>Jobs on more than one host, by their "
			   "throughput against the ideal placement (a job on "
			   "one host runs at ideal speed anywhere, so it "
			   "would hide what placement costs). Goodput, "
			   "ideal-speed work per allocated GPU-hour "
			   "(higher is better):");
	for (size_t r = 0; r < n; r++) {
		strbuf_addstr(out, r ? ", " : " ");
		html_esc(sim_policy_name(runs[r].policy), out);
		strbuf_addch(out, ' ');
		if (runs[r].sum.goodput < 0) {
			strbuf_addch(out, '-');
		} else {
			sim_out_fixed(runs[r].sum.goodput * 100, 1, false, out);
			strbuf_addstr(out, " %");
		}
	}
	strbuf_addstr(out, ".</p>\n");
	chart_hist(in, runs, n, out);
}

void report_html(const struct sim_input *in, const struct sim_result *runs,
		 size_t n, const char *title, struct strbuf *out)
{
	report_html_sweep(in, runs, n, title, NULL, out);
}

void report_html_sweep(const struct sim_input *in,
		       const struct sim_result *runs, size_t n,
		       const char *title, const struct sim_sweep *sw,
		       struct strbuf *out)
{
	struct report_info ri = { .title = title, .sweep = sw };

	report_html_info(in, runs, n, &ri, out);
}

void report_html_info(const struct sim_input *in, const struct sim_result *runs,
		      size_t n, const struct report_info *ri,
		      struct strbuf *out)
{
	BUG_ON(!in || !in->c || !ri);
	BUG_ON(n && !runs);
	for (size_t r = 0; r < n; r++)
		BUG_ON(in->jobs.len && !runs[r].jobs);
	page_open(in, ri, out);
	model_section(runs, n, ri->sweep, out);
	heading("Summary", out);
	summary_table(runs, n, out);
	cq_section(in, runs, n, out);
	job_section(in, runs, n, out);
	heading("GPU utilization", out);
	chart_time(in, runs, n, METRIC_UTILIZATION, out);
	heading("Queue depth", out);
	chart_time(in, runs, n, METRIC_PENDING, out);
	heading("Wait", out);
	chart_cdf(in, runs, n, false, out);
	heading("Job completion time", out);
	chart_cdf(in, runs, n, true, out);
	tput_section(in, runs, n, out);
	frag_section(in, runs, n, out);
	heat_maps(in, runs, n, out);
	strbuf_addstr(out, "</body>\n</html>\n");
}

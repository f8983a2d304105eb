// SPDX-License-Identifier: Apache-2.0
/*
 * The simulator's outputs: per-job JSON Lines, the time-series CSV, the
 * summary JSON and the terminal table. Numbers never go through printf's
 * floating-point conversions, which follow the locale's decimal point:
 * times are integers of microseconds written as exact decimals, and doubles
 * are rounded to an integer count of 10^-d units first. The field lists are
 * documented in docs/internals/sim-outputs.md; keep the two in step.
 */
#include "sim/sim_out.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/sim_sweep.h"

#include "base/banned.h"

#define US_PER_S     1000000
#define US_PER_HOUR  3600000000LL
#define MAX_DECIMALS 9
#define INDENT_MAX   8

static const uint64_t pow10_tab[MAX_DECIMALS + 1] = {
	1,	10,	 100,	   1000,      10000,
	100000, 1000000, 10000000, 100000000, 1000000000,
};

/* Append v / 10^decimals as a decimal number. */
static void add_scaled(int64_t v, int decimals, bool trim, struct strbuf *out)
{
	uint64_t p, mag, frac;

	BUG_ON(decimals < 0 || decimals > MAX_DECIMALS);
	p = pow10_tab[decimals];
	mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	if (v < 0)
		strbuf_addch(out, '-');
	strbuf_addf(out, "%" PRIu64, mag / p);
	frac = mag % p;
	if (trim) {
		if (!frac)
			return;
		while (frac % 10 == 0) {
			frac /= 10;
			decimals--;
		}
	}
	if (decimals)
		strbuf_addf(out, ".%0*" PRIu64, decimals, frac);
}

void sim_out_seconds(int64_t us, struct strbuf *out)
{
	add_scaled(us, 6, true, out);
}

void sim_out_fixed(double x, int decimals, bool trim, struct strbuf *out)
{
	double scaled;

	BUG_ON(!isfinite(x));
	BUG_ON(decimals < 0 || decimals > MAX_DECIMALS);
	scaled = x * (double)pow10_tab[decimals];
	if (fabs(scaled) >= 9e18) {
		/* Beyond int64: no decimals to write anyway. */
		strbuf_addf(out, "%.0f", x);
		return;
	}
	add_scaled(llround(scaled), decimals, trim, out);
}

void sim_out_rate(double bps, struct strbuf *out)
{
	static const char *const units[] = { "kB/s", "MB/s", "GB/s",
					     "TB/s", "PB/s", "EB/s" };
	double v = bps;

	if (!isfinite(bps) || bps < 0) {
		strbuf_addch(out, '-');
		return;
	}
	if (bps < 999.5) {
		sim_out_fixed(bps, 0, true, out);
		strbuf_addstr(out, " B/s");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		v /= 1000;
		/* 999.97 MB/s reads "1000.0 MB/s": switch where rounding
		 * would */
		if (v < 999.95 || i + 1 == ARRAY_SIZE(units)) {
			sim_out_fixed(v, 1, false, out);
			strbuf_addf(out, " %s", units[i]);
			return;
		}
	}
	BUG_ON(1);
}

void sim_out_duration(double s, struct strbuf *out)
{
	static const struct {
		double unit, below; /* seconds per unit; next unit from */
		const char *name;
	} units[] = {
		{ 60, 60 * 60, "min" },
		{ 3600, 24 * 3600, "h" },
		{ 86400, INFINITY, "d" },
	};

	if (!isfinite(s) || s < 0) {
		strbuf_addch(out, '-');
		return;
	}
	if (s < 59.5) {
		sim_out_fixed(s, s < 9.95 ? 1 : 0, true, out);
		strbuf_addstr(out, " s");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		/* 59.97 min reads "60.0 min": switch where rounding would. */
		if (s < units[i].below - units[i].unit * 0.05) {
			sim_out_fixed(s / units[i].unit, 1, false, out);
			strbuf_addf(out, " %s", units[i].name);
			return;
		}
	}
	BUG_ON(1);
}

/* A JSON string, or null for NULL. */
static void add_json_string(const char *s, struct strbuf *out)
{
	if (s)
		strbuf_add_json_string(out, s);
	else
		strbuf_addstr(out, "null");
}

/* Seconds of a time in microseconds; null when negative (n/a). */
static void add_json_us(int64_t us, struct strbuf *out)
{
	if (us < 0)
		strbuf_addstr(out, "null");
	else
		sim_out_seconds(us, out);
}

/* A figure with `decimals` places after the point, -1 (or any negative) when
 * it does not apply: null then. */
static void add_json_fixed(double x, int decimals, struct strbuf *out)
{
	if (!isfinite(x) || x < 0)
		strbuf_addstr(out, "null");
	else
		sim_out_fixed(x, decimals, true, out);
}

static void add_json_double(double x, struct strbuf *out)
{
	add_json_fixed(x, 6, out);
}

static void add_json_count(int32_t v, struct strbuf *out)
{
	if (v < 0)
		strbuf_addstr(out, "null");
	else
		strbuf_addf(out, "%" PRId32, v);
}

/* GPU-microseconds as GPU-hours, rounded half up to 10^-6 h exactly. */
static void add_json_gpu_hours(int64_t gpu_us, struct strbuf *out)
{
	const int64_t unit = US_PER_HOUR / US_PER_S; /* 10^-6 GPU-hours */

	if (gpu_us < 0) {
		strbuf_addstr(out, "null");
		return;
	}
	add_scaled(gpu_us / unit + (gpu_us % unit >= unit / 2), 6, true, out);
}

static void check_runs(const struct sim_input *in,
		       const struct sim_result *runs, size_t n)
{
	BUG_ON(n && !runs);
	for (size_t r = 0; in && r < n; r++)
		BUG_ON(in->jobs.len && !runs[r].jobs);
}

/* The times of one job: submit, admit, start, end, wait and JCT. */
static void write_job_times(const struct sim_job *job,
			    const struct sim_job_rec *rec, struct strbuf *out)
{
	strbuf_addstr(out, ",\"submit_s\":");
	add_json_us(job->submit_us, out);
	strbuf_addstr(out, ",\"admit_s\":");
	add_json_us(rec->admit_us, out);
	strbuf_addstr(out, ",\"start_s\":");
	add_json_us(rec->start_us, out);
	strbuf_addstr(out, ",\"end_s\":");
	add_json_us(rec->end_us, out);
	strbuf_addstr(out, ",\"wait_s\":");
	add_json_us(rec->start_us < 0 ? -1 : rec->start_us - job->submit_us,
		    out);
	strbuf_addstr(out, ",\"jct_s\":");
	add_json_us(rec->end_us < 0 ? -1 : rec->end_us - job->submit_us, out);
}

/* Why the job waited: the reason when the run stopped and the
 * scheduler's message for it, and the seconds per reason in the order
 * they first applied. */
static void write_job_waits(const struct sim_job_rec *rec, struct strbuf *out)
{
	strbuf_addstr(out, ",\"reason\":");
	if (rec->wait_end)
		add_json_string(sim_wait_name(rec->wait_end), out);
	else
		strbuf_addstr(out, "null");
	strbuf_addstr(out, ",\"message\":");
	if (rec->wait_msg)
		add_json_string(rec->wait_msg, out);
	else
		strbuf_addstr(out, "null");
	strbuf_addstr(out, ",\"waits\":{");
	for (uint8_t i = 0; i < rec->nwaits; i++) {
		strbuf_addstr(out, i ? "," : "");
		add_json_string(sim_wait_name(rec->waits[i].reason), out);
		strbuf_addch(out, ':');
		add_json_us(rec->waits[i].us, out);
	}
	strbuf_addch(out, '}');
}

static void write_job_place(const struct sim_job_rec *rec, struct strbuf *out)
{
	strbuf_addstr(out, ",\"hosts\":");
	add_json_count(rec->hosts, out);
	strbuf_addstr(out, ",\"racks\":");
	add_json_count(rec->racks, out);
	strbuf_addstr(out, ",\"min_racks\":");
	add_json_count(rec->min_racks, out);
	strbuf_addstr(out, ",\"blocks\":");
	add_json_count(rec->blocks, out);
	strbuf_addstr(out, ",\"min_blocks\":");
	add_json_count(rec->min_blocks, out);
	strbuf_addstr(out, ",\"throughput_ratio\":");
	add_json_double(rec->throughput_ratio, out);
	strbuf_addstr(out, ",\"cross_rack_bytes_per_second\":");
	add_json_fixed(rec->rack_bps, 0, out);
	strbuf_addstr(out, ",\"cross_block_bytes_per_second\":");
	add_json_fixed(rec->block_bps, 0, out);
}

static void write_job(const struct sim_input *in, const struct sim_result *run,
		      size_t j, struct strbuf *out)
{
	const struct sim_job *job = &in->jobs.items[j];
	const struct sim_job_rec *rec = &run->jobs[j];

	strbuf_addstr(out, "{\"policy\":");
	add_json_string(sim_policy_name(run->policy), out);
	strbuf_addstr(out, ",\"name\":");
	add_json_string(job->name, out);
	strbuf_addstr(out, ",\"namespace\":");
	add_json_string(job->ns, out);
	strbuf_addstr(out, ",\"queue\":");
	add_json_string(job->queue, out);
	strbuf_addstr(out, ",\"class\":");
	add_json_string(job->klass, out);
	strbuf_addf(out, ",\"pods\":%" PRId32 ",\"gpus\":%" PRId64, job->pods,
		    job->gpus);
	strbuf_addstr(out, ",\"state\":");
	add_json_string(sim_job_state_name(rec->state), out);
	write_job_times(job, rec, out);
	write_job_place(rec, out);
	strbuf_addf(out, ",\"evictions\":%" PRId32 ",\"preemptions\":%" PRId32,
		    rec->evictions, rec->preemptions);
	strbuf_addstr(out, ",\"lost_gpu_hours\":");
	add_json_gpu_hours(rec->lost_gpu_us, out);
	write_job_waits(rec, out);
	strbuf_addstr(out, "}\n");
}

void sim_out_workloads_jsonl(const struct sim_input *in,
			     const struct sim_result *runs, size_t n,
			     struct strbuf *out)
{
	BUG_ON(!in || !in->c);
	check_runs(in, runs, n);
	for (size_t r = 0; r < n; r++)
		for (size_t j = 0; j < in->jobs.len; j++)
			write_job(in, &runs[r], j, out);
}

/* A CSV field, quoted when it holds a comma, quote or line break. */
static void add_csv_field(const char *s, struct strbuf *out)
{
	if (!strpbrk(s, ",\"\r\n")) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

/* busy / total with four decimals, rounded half up; 0 when total is 0. */
static void add_utilization(int64_t busy, int64_t total, struct strbuf *out)
{
	__int128 q;

	BUG_ON(busy < 0 || total < 0);
	if (!total) {
		strbuf_addstr(out, "0.0000");
		return;
	}
	q = ((__int128)busy * 20000 + total) / ((__int128)total * 2);
	BUG_ON(q > INT64_MAX);
	add_scaled((int64_t)q, 4, false, out);
}

void sim_out_timeseries_csv(const struct sim_input *in,
			    const struct sim_result *runs, size_t n,
			    struct strbuf *out)
{
	BUG_ON(!in);
	check_runs(NULL, runs, n);
	strbuf_addstr(out, "policy,t_s,gpus_allocated,gpus_busy,utilization,"
			   "pending,admitted,running,finished\n");
	for (size_t r = 0; r < n; r++) {
		const char *policy = sim_policy_name(runs[r].policy);

		vec_foreach (&runs[r].samples, s) {
			add_csv_field(policy, out);
			strbuf_addch(out, ',');
			sim_out_seconds(s->t_us, out);
			strbuf_addf(out, ",%" PRId64 ",%" PRId64 ",",
				    s->gpus_allocated, s->gpus_busy);
			add_utilization(s->gpus_busy, in->total_gpus, out);
			strbuf_addf(out,
				    ",%" PRId32 ",%" PRId32 ",%" PRId32
				    ",%" PRId32 "\n",
				    s->pending, s->admitted, s->running,
				    s->finished);
		}
	}
}

/* A pretty-printing JSON writer: objects only, two-space indentation. */
struct jw {
	struct strbuf *out;
	int depth;
	bool first[INDENT_MAX];
};

static void jw_key(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		strbuf_addch(w->out, ',');
	w->first[w->depth] = false;
	strbuf_addch(w->out, '\n');
	for (int i = 0; i < w->depth; i++)
		strbuf_addstr(w->out, "  ");
	add_json_string(key, w->out);
	strbuf_addstr(w->out, ": ");
}

static void jw_open(struct jw *w)
{
	BUG_ON(w->depth + 1 >= INDENT_MAX);
	strbuf_addch(w->out, '{');
	w->first[++w->depth] = true;
}

static void jw_close(struct jw *w)
{
	BUG_ON(w->depth <= 0);
	if (!w->first[w->depth--]) {
		strbuf_addch(w->out, '\n');
		for (int i = 0; i < w->depth; i++)
			strbuf_addstr(w->out, "  ");
	}
	strbuf_addch(w->out, '}');
}

static void jw_int(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	strbuf_addf(w->out, "%" PRId64, v);
}

static void jw_double(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	add_json_double(v, w->out);
}

static void write_classes(struct jw *w, const struct sim_result *r)
{
	jw_key(w, "classes");
	jw_open(w);
	vec_foreach (&r->classes, cl) {
		jw_key(w, cl->klass);
		jw_open(w);
		jw_int(w, "jobs", cl->jobs);
		jw_int(w, "admitted", cl->admitted);
		jw_double(w, "mean_admit_wait_s", cl->mean_admit_wait_s);
		jw_close(w);
	}
	jw_close(w);
}

/* The figures of sim_summary beyond the first table. */
static void write_summary_more(struct jw *w, const struct sim_summary *s)
{
	jw_int(w, "jobs_started", s->jobs_started);
	jw_double(w, "mean_admit_wait_s", s->mean_admit_wait_s);
	jw_double(w, "on_min_racks", s->on_min_racks);
	jw_int(w, "multi_node_jobs", s->multi_node_jobs);
	jw_double(w, "mean_multi_node_throughput_ratio",
		  s->mean_multi_node_throughput_ratio);
	jw_key(w, "makespan_s");
	add_json_us(s->makespan_us, w->out);
	jw_int(w, "evictions", s->evictions);
	jw_int(w, "preemptions", s->preemptions);
	jw_int(w, "node_failures", s->node_failures);
	jw_int(w, "pod_failures", s->pod_failures);
	jw_double(w, "lost_gpu_hours", s->lost_gpu_hours);
	jw_double(w, "min_cq_usage", s->min_cq_usage);
	if (!s->backfill)
		return;
	jw_int(w, "reservations", s->reservations);
	jw_int(w, "reservations_delayed", s->reservations_delayed);
	jw_double(w, "reservation_delay_s", s->reservation_delay_s);
}

static void write_summary(struct jw *w, const struct sim_result *r)
{
	const struct sim_summary *s = &r->sum;

	jw_key(w, sim_policy_name(r->policy));
	jw_open(w);
	jw_int(w, "jobs", s->jobs);
	jw_int(w, "jobs_finished", s->jobs_finished);
	jw_double(w, "mean_wait_s", s->mean_wait_s);
	jw_double(w, "p50_wait_s", s->p50_wait_s);
	jw_double(w, "p95_wait_s", s->p95_wait_s);
	jw_double(w, "mean_jct_s", s->mean_jct_s);
	jw_double(w, "gpu_utilization", s->gpu_utilization);
	jw_double(w, "goodput", s->goodput);
	jw_double(w, "idle_allocated_gpu_hours", s->idle_allocated_gpu_hours);
	jw_double(w, "mean_racks_spanned", s->mean_racks_spanned);
	jw_double(w, "mean_min_racks", s->mean_min_racks);
	jw_double(w, "mean_blocks_spanned", s->mean_blocks_spanned);
	jw_double(w, "mean_min_blocks", s->mean_min_blocks);
	jw_double(w, "mean_throughput_ratio", s->mean_throughput_ratio);
	write_summary_more(w, s);
	if (r->classes.len)
		write_classes(w, r);
	if (r->stalled) {
		jw_key(w, "stalled");
		add_json_string(r->stop_reason.buf, w->out);
	}
	jw_close(w);
}

/* The model's figures, in the order of its table (throughput.h). */
static void write_model(struct jw *w, const struct throughput_config *tp)
{
	jw_key(w, "model");
	jw_open(w);
	jw_key(w, "algo");
	add_json_string(throughput_algo_name(tp->algo), w->out);
	for (size_t i = 0; i < throughput_param_count(); i++) {
		const struct throughput_param *p = throughput_param_at(i);
		double v;

		BUG_ON(throughput_get(tp, p->key, &v) < 0);
		jw_double(w, p->key, v);
	}
	jw_close(w);
}

/* [a, b, ...] on one line. */
static void add_json_array(const double *x, size_t n, struct strbuf *out)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		add_json_double(x[i], out);
	}
	strbuf_addch(out, ']');
}

static void write_sweep(struct jw *w, const struct sim_sweep *sw)
{
	double x[SIM_SWEEP_MAX_VALUES];

	jw_key(w, "sweep");
	jw_open(w);
	jw_key(w, "key");
	add_json_string(sw->key, w->out);
	jw_key(w, "values");
	strbuf_addch(w->out, '[');
	for (size_t v = 0; v < sw->nvalues; v++) {
		if (v)
			strbuf_addstr(w->out, ", ");
		add_json_string(sw->values[v], w->out);
	}
	strbuf_addch(w->out, ']');
	jw_key(w, "policies");
	jw_open(w);
	for (size_t r = 0; r < sw->npolicies; r++) {
		jw_key(w, sim_policy_name(sw->policies[r]));
		jw_open(w);
		for (int f = 0; f < SIM_SWEEP_FIGURE_COUNT; f++) {
			enum sim_sweep_figure fig = (enum sim_sweep_figure)f;
			const char *key = sim_sweep_figure_key(fig);

			for (size_t v = 0; v < sw->nvalues; v++) {
				BUG_ON(!sw->recorded[v]);
				x[v] = sim_sweep_figure_value(&sw->sums[v][r],
							      fig);
			}
			jw_key(w, key);
			add_json_array(x, sw->nvalues, w->out);
		}
		jw_close(w);
	}
	jw_close(w);
	jw_close(w);
}

void sim_out_summary_json_sweep(const struct sim_result *runs, size_t n,
				const struct sim_sweep *sw, struct strbuf *out)
{
	struct jw w = { .out = out, .depth = 0, .first = { true } };

	check_runs(NULL, runs, n);
	for (size_t r = 0; r < n; r++)
		for (size_t q = 0; q < r; q++)
			BUG_ON(runs[q].policy == runs[r].policy);
	jw_open(&w);
	if (n)
		write_model(&w, &runs[0].tp);
	jw_key(&w, "policies");
	jw_open(&w);
	for (size_t r = 0; r < n; r++)
		write_summary(&w, &runs[r]);
	jw_close(&w);
	if (sw)
		write_sweep(&w, sw);
	jw_close(&w);
	strbuf_addch(out, '\n');
}

void sim_out_summary_json(const struct sim_result *runs, size_t n,
			  struct strbuf *out)
{
	sim_out_summary_json_sweep(runs, n, NULL, out);
}

enum row {
	ROW_FINISHED,
	ROW_MEAN_WAIT,
	ROW_P50_WAIT,
	ROW_P95_WAIT,
	ROW_MEAN_JCT,
	ROW_UTILIZATION,
	ROW_GOODPUT,
	ROW_IDLE,
	ROW_RACKS,
	ROW_BLOCKS,
	ROW_ON_MIN_RACKS,
	ROW_THROUGHPUT,
	ROW_THROUGHPUT_MULTI,
	ROW_EVICTIONS,
	ROW_LOST,
	ROW_MAKESPAN,
	ROW_ADMIT_WAIT,
	ROW_MIN_CQ,
	ROW_COUNT
};

_Static_assert((int)ROW_COUNT == (int)SIM_OUT_TABLE_ROWS, "table rows");

static const char *const row_labels[ROW_COUNT] = {
	[ROW_FINISHED] = "jobs finished",
	[ROW_MEAN_WAIT] = "mean wait",
	[ROW_P50_WAIT] = "p50 wait",
	[ROW_P95_WAIT] = "p95 wait",
	[ROW_MEAN_JCT] = "mean JCT",
	[ROW_UTILIZATION] = "GPU utilization",
	[ROW_GOODPUT] = "goodput",
	[ROW_IDLE] = "idle allocated GPU-h",
	[ROW_RACKS] = "racks spanned / min",
	[ROW_BLOCKS] = "blocks spanned / min",
	[ROW_ON_MIN_RACKS] = "on min racks",
	[ROW_THROUGHPUT] = "throughput vs ideal",
	[ROW_THROUGHPUT_MULTI] = "  multi-node jobs",
	[ROW_EVICTIONS] = "evictions",
	[ROW_LOST] = "lost GPU-h",
	[ROW_MAKESPAN] = "makespan",
	[ROW_ADMIT_WAIT] = "mean time to admission",
	[ROW_MIN_CQ] = "least ClusterQueue usage",
};

const char *sim_out_row_label(size_t row)
{
	BUG_ON(row >= ROW_COUNT);
	return row_labels[row];
}

/* x with decimals, "-" when it does not apply (negative). */
static void cell_number(double x, int decimals, struct strbuf *out)
{
	if (!isfinite(x) || x < 0)
		strbuf_addch(out, '-');
	else
		sim_out_fixed(x, decimals, false, out);
}

static void cell_percent(double fraction, struct strbuf *out)
{
	if (!isfinite(fraction) || fraction < 0) {
		strbuf_addch(out, '-');
		return;
	}
	sim_out_fixed(fraction * 100, 1, false, out);
	strbuf_addstr(out, " %");
}

/* "2.31 / 1.80": spanned vs the fewest possible. */
static void cell_pair(double spanned, double min, struct strbuf *out)
{
	cell_number(spanned, 2, out);
	strbuf_addstr(out, " / ");
	cell_number(min, 2, out);
}

void sim_out_cell(const struct sim_result *r, size_t row, struct strbuf *out)
{
	const struct sim_summary *s = &r->sum;

	switch ((enum row)row) {
	case ROW_FINISHED:
		strbuf_addf(out, "%" PRId64 " / %" PRId64, s->jobs_finished,
			    s->jobs);
		break;
	case ROW_MEAN_WAIT:
		sim_out_duration(s->mean_wait_s, out);
		break;
	case ROW_P50_WAIT:
		sim_out_duration(s->p50_wait_s, out);
		break;
	case ROW_P95_WAIT:
		sim_out_duration(s->p95_wait_s, out);
		break;
	case ROW_MEAN_JCT:
		sim_out_duration(s->mean_jct_s, out);
		break;
	case ROW_UTILIZATION:
		cell_percent(s->gpu_utilization, out);
		break;
	case ROW_GOODPUT:
		cell_percent(s->goodput, out);
		break;
	case ROW_IDLE:
		cell_number(s->idle_allocated_gpu_hours, 1, out);
		break;
	case ROW_RACKS:
		cell_pair(s->mean_racks_spanned, s->mean_min_racks, out);
		break;
	case ROW_BLOCKS:
		cell_pair(s->mean_blocks_spanned, s->mean_min_blocks, out);
		break;
	case ROW_ON_MIN_RACKS:
		cell_percent(s->on_min_racks, out);
		break;
	case ROW_THROUGHPUT:
		cell_percent(s->mean_throughput_ratio, out);
		break;
	case ROW_THROUGHPUT_MULTI:
		cell_percent(s->mean_multi_node_throughput_ratio, out);
		break;
	case ROW_EVICTIONS:
		strbuf_addf(out, "%" PRId64, s->evictions);
		break;
	case ROW_LOST:
		cell_number(s->lost_gpu_hours, 1, out);
		break;
	case ROW_MAKESPAN:
		sim_out_duration((double)s->makespan_us / 1e6, out);
		break;
	case ROW_ADMIT_WAIT:
		sim_out_duration(s->mean_admit_wait_s, out);
		break;
	case ROW_MIN_CQ:
		cell_percent(s->min_cq_usage, out);
		break;
	default:
		BUG_ON(1);
	}
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

static void add_padded(const char *s, size_t width, bool right,
		       struct strbuf *out)
{
	size_t len = strlen(s);

	for (size_t i = len; right && i < width; i++)
		strbuf_addch(out, ' ');
	strbuf_addstr(out, s);
	for (size_t i = len; !right && i < width; i++)
		strbuf_addch(out, ' ');
}

/* One line: the label left-aligned, then the cells right-aligned. */
static void table_line(const char *label, size_t label_w,
		       const struct strbuf *cells, const size_t *widths,
		       size_t n, struct strbuf *out)
{
	size_t start = out->len;

	add_padded(label, label_w, false, out);
	for (size_t r = 0; r < n; r++) {
		strbuf_addstr(out, "  ");
		add_padded(cells[r].buf, widths[r], true, out);
	}
	while (out->len > start && out->buf[out->len - 1] == ' ')
		strbuf_truncate(out, out->len - 1);
	strbuf_addch(out, '\n');
}

/* The classes of every run, sorted, without repeats. */
static size_t class_names(const struct sim_result *runs, size_t n,
			  const char ***ret)
{
	size_t k = 0, cap = 0;

	for (size_t r = 0; r < n; r++)
		cap += runs[r].classes.len;
	*ret = xcalloc(cap + 1, sizeof(**ret));
	for (size_t r = 0; r < n; r++) {
		vec_foreach (&runs[r].classes, c) {
			size_t i = 0;

			while (i < k && strcmp((*ret)[i], c->klass) < 0)
				i++;
			if (i < k && strcmp((*ret)[i], c->klass) == 0)
				continue;
			memmove(&(*ret)[i + 1], &(*ret)[i],
				(k - i) * sizeof(**ret));
			(*ret)[i] = c->klass;
			k++;
		}
	}
	return k;
}

/* Mean time to admission of class k in run r, "-" when it has none. */
static void class_cell(const struct sim_result *r, const char *k,
		       struct strbuf *out)
{
	vec_foreach (&r->classes, c) {
		if (strcmp(c->klass, k) == 0) {
			sim_out_duration(c->mean_admit_wait_s, out);
			return;
		}
	}
	strbuf_addch(out, '-');
}

void sim_out_table(const struct sim_result *runs, size_t n, struct strbuf *out)
{
	struct strbuf *cells;
	const char **classes;
	char **labels;
	size_t *widths, label_w = 0, nc, rows;

	check_runs(NULL, runs, n);
	if (!n)
		return;
	nc = class_names(runs, n, &classes);
	rows = ROW_COUNT + nc;
	/* Row 0 holds the policy names, row 1 + i the figures of row i,
	 * then one row per job class. */
	labels = xcalloc(rows + 1, sizeof(*labels));
	for (size_t i = 0; i < rows; i++)
		labels[i] = i < ROW_COUNT ? xstrdup(row_labels[i])
					  : xasprintf("  admission, %s",
						      classes[i - ROW_COUNT]);
	cells = xcalloc((rows + 1) * n, sizeof(*cells));
	widths = xcalloc(n, sizeof(*widths));
	for (size_t i = 0; i <= rows; i++) {
		if (i)
			label_w = max_size(label_w, strlen(labels[i - 1]));
		for (size_t r = 0; r < n; r++) {
			struct strbuf *c = &cells[i * n + r];

			strbuf_init(c);
			if (!i)
				strbuf_addstr(c,
					      sim_policy_name(runs[r].policy));
			else if (i <= ROW_COUNT)
				sim_out_cell(&runs[r], i - 1, c);
			else
				class_cell(&runs[r], classes[i - 1 - ROW_COUNT],
					   c);
			widths[r] = max_size(widths[r], c->len);
		}
	}
	for (size_t i = 0; i <= rows; i++)
		table_line(i ? labels[i - 1] : "", label_w, &cells[i * n],
			   widths, n, out);
	for (size_t i = 0; i < (rows + 1) * n; i++)
		strbuf_release(&cells[i]);
	for (size_t i = 0; i < rows; i++)
		free(labels[i]);
	free(labels);
	free(classes);
	free(cells);
	free(widths);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Sweeps of one figure of the throughput model: parsing "KEY=V1,V2,...",
 * applying a value to a model, recording the summaries of the runs at each
 * value, and the table of how each figure moves, per policy and against
 * the first policy. The runs themselves are the caller's.
 */
#include "sim/sim_sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim_out.h"

#include "base/banned.h"

enum figure_kind { DURATION, PERCENT };

static const struct {
	const char *label, *key;
	enum figure_kind kind;
} figures[SIM_SWEEP_FIGURE_COUNT] = {
	[SIM_SWEEP_MEAN_WAIT] = { "mean wait", "mean_wait_s", DURATION },
	[SIM_SWEEP_P95_WAIT] = { "p95 wait", "p95_wait_s", DURATION },
	[SIM_SWEEP_MEAN_JCT] = { "mean JCT", "mean_jct_s", DURATION },
	[SIM_SWEEP_UTILIZATION] = { "GPU utilization", "gpu_utilization",
				    PERCENT },
	[SIM_SWEEP_GOODPUT] = { "goodput", "goodput", PERCENT },
	[SIM_SWEEP_THROUGHPUT] = { "throughput vs ideal",
				   "mean_throughput_ratio", PERCENT },
	[SIM_SWEEP_THROUGHPUT_MULTI] = { "  multi-node jobs",
					 "mean_multi_node_throughput_ratio",
					 PERCENT },
	[SIM_SWEEP_MAKESPAN] = { "makespan", "makespan_s", DURATION },
};

const char *sim_sweep_figure_label(enum sim_sweep_figure f)
{
	BUG_ON(f >= SIM_SWEEP_FIGURE_COUNT);
	return figures[f].label;
}

const char *sim_sweep_figure_key(enum sim_sweep_figure f)
{
	BUG_ON(f >= SIM_SWEEP_FIGURE_COUNT);
	return figures[f].key;
}

double sim_sweep_figure_value(const struct sim_summary *s,
			      enum sim_sweep_figure f)
{
	switch (f) {
	case SIM_SWEEP_MEAN_WAIT:
		return s->mean_wait_s;
	case SIM_SWEEP_P95_WAIT:
		return s->p95_wait_s;
	case SIM_SWEEP_MEAN_JCT:
		return s->mean_jct_s;
	case SIM_SWEEP_UTILIZATION:
		return s->gpu_utilization;
	case SIM_SWEEP_GOODPUT:
		return s->goodput;
	case SIM_SWEEP_THROUGHPUT:
		return s->mean_throughput_ratio;
	case SIM_SWEEP_THROUGHPUT_MULTI:
		return s->mean_multi_node_throughput_ratio;
	case SIM_SWEEP_MAKESPAN:
		return (double)s->makespan_us / 1e6;
	default:
		BUG_ON(1);
		return -1;
	}
}

/* One value of text[off..end) for key: set on a copy of the defaults and
 * checked. */
static int check_value(const char *key, const char *v, size_t n,
		       struct errbuf *eb)
{
	struct throughput_config c;
	struct errbuf kb = { 0 };
	int rc;

	throughput_config_init(&c);
	rc = throughput_set_key(&c, key, strlen(key), v, n, &kb);
	if (rc == 0)
		rc = throughput_config_check(&c, &kb);
	if (rc < 0)
		errbuf_set(eb, rc, "%s", kb.msg);
	return rc;
}

int sim_sweep_parse(struct sim_sweep *ret, const char *text, const char *origin,
		    struct errbuf *eb)
{
	const char *eq = strchr(text, '=');
	size_t len = strlen(text), kl, off;
	struct errbuf vb = { 0 };

	memset(ret, 0, sizeof(*ret));
	if (!eq || eq == text)
		return errbuf_set(eb, -EINVAL,
				  "%s:1:1: expected KEY=VALUE,VALUE,...",
				  origin);
	kl = (size_t)(eq - text);
	if (kl > SIM_SWEEP_MAX_TEXT)
		return errbuf_set(eb, -EINVAL, "%s:1:1: key too long", origin);
	memcpy(ret->key, text, kl);
	off = kl + 1;
	while (off <= len) {
		const char *comma = memchr(text + off, ',', len - off);
		size_t end = comma ? (size_t)(comma - text) : len,
		       n = end - off;
		int rc;

		if (ret->nvalues == SIM_SWEEP_MAX_VALUES)
			return errbuf_set(eb, -EINVAL,
					  "%s:1:%zu: at most %d values", origin,
					  off + 1, SIM_SWEEP_MAX_VALUES);
		if (n == 0 || n > SIM_SWEEP_MAX_TEXT)
			return errbuf_set(eb, -EINVAL,
					  "%s:1:%zu: %s: expected a value of 1 "
					  "to %d bytes",
					  origin, off + 1, ret->key,
					  SIM_SWEEP_MAX_TEXT);
		rc = check_value(ret->key, text + off, n, &vb);
		if (rc == -ENOENT)
			return errbuf_set(eb, -EINVAL,
					  "%s:1:1: %s: unknown key (expected "
					  "algo or " THROUGHPUT_KEYS ")",
					  origin, ret->key);
		if (rc < 0)
			return errbuf_set(eb, -EINVAL, "%s:1:%zu: %s: %s",
					  origin, off + 1, ret->key, vb.msg);
		memcpy(ret->values[ret->nvalues], text + off, n);
		for (size_t i = 0; i < ret->nvalues; i++)
			if (strcmp(ret->values[i], ret->values[ret->nvalues]) ==
			    0)
				return errbuf_set(eb, -EINVAL,
						  "%s:1:%zu: %s: \"%s\" is "
						  "listed twice",
						  origin, off + 1, ret->key,
						  ret->values[i]);
		ret->nvalues++;
		off = end + 1;
	}
	return 0;
}

int sim_sweep_apply(const struct sim_sweep *sw, size_t v,
		    struct throughput_config *tp, struct errbuf *eb)
{
	struct throughput_config c = *tp;
	struct errbuf kb = { 0 };
	const char *val;
	int rc;

	BUG_ON(v >= sw->nvalues);
	val = sw->values[v];
	rc = throughput_set_key(&c, sw->key, strlen(sw->key), val, strlen(val),
				&kb);
	if (rc == 0)
		rc = throughput_config_check(&c, &kb);
	if (rc < 0)
		return errbuf_set(eb, -EINVAL, "%s=%s: %s", sw->key, val,
				  kb.msg);
	*tp = c;
	return 0;
}

void sim_sweep_record(struct sim_sweep *sw, size_t v,
		      const struct sim_result *runs, size_t n)
{
	bool first = true;

	BUG_ON(v >= sw->nvalues || n > SIM_POLICY_COUNT);
	for (size_t i = 0; i < sw->nvalues; i++)
		first &= !sw->recorded[i];
	if (first) {
		sw->npolicies = n;
		for (size_t r = 0; r < n; r++)
			sw->policies[r] = runs[r].policy;
	}
	BUG_ON(n != sw->npolicies);
	for (size_t r = 0; r < n; r++) {
		BUG_ON(runs[r].policy != sw->policies[r]);
		sw->sums[v][r] = runs[r].sum;
	}
	sw->recorded[v] = true;
}

static void add_figure(enum sim_sweep_figure f, double x, struct strbuf *out)
{
	if (!isfinite(x) || x < 0) {
		strbuf_addch(out, '-');
	} else if (figures[f].kind == DURATION) {
		sim_out_duration(x, out);
	} else {
		sim_out_fixed(x * 100, 1, false, out);
		strbuf_addstr(out, " %");
	}
}

static void add_ratio(double x, double base, struct strbuf *out)
{
	double r = x / base;

	if (!isfinite(x) || !isfinite(base) || x < 0 || !(base > 0) ||
	    !isfinite(r)) {
		strbuf_addch(out, '-');
		return;
	}
	sim_out_fixed(r, 2, false, out);
	strbuf_addstr(out, " x");
}

/* A block of the table: a header (title, then the values) and one line
 * per figure; cells[f * nvalues + v]. */
static void block(const struct sim_sweep *sw, const char *title,
		  struct strbuf *cells, struct strbuf *out)
{
	size_t lw = strlen(title), w[SIM_SWEEP_MAX_VALUES];

	for (size_t f = 0; f < SIM_SWEEP_FIGURE_COUNT; f++)
		if (strlen(figures[f].label) > lw)
			lw = strlen(figures[f].label);
	for (size_t v = 0; v < sw->nvalues; v++) {
		w[v] = strlen(sw->values[v]);
		for (size_t f = 0; f < SIM_SWEEP_FIGURE_COUNT; f++)
			if (cells[f * sw->nvalues + v].len > w[v])
				w[v] = cells[f * sw->nvalues + v].len;
	}
	for (size_t f = 0; f <= SIM_SWEEP_FIGURE_COUNT; f++) {
		const char *label = f ? figures[f - 1].label : title;

		strbuf_addstr(out, label);
		for (size_t i = strlen(label); i < lw; i++)
			strbuf_addch(out, ' ');
		for (size_t v = 0; v < sw->nvalues; v++) {
			const char *c = f ? cells[(f - 1) * sw->nvalues + v].buf
					  : sw->values[v];

			strbuf_addstr(out, "  ");
			for (size_t i = strlen(c); i < w[v]; i++)
				strbuf_addch(out, ' ');
			strbuf_addstr(out, c);
		}
		strbuf_addch(out, '\n');
	}
}

/* The cells of policy r: its figures, or with ratio their ratios to the
 * first policy's. */
static void fill(const struct sim_sweep *sw, size_t r, bool ratio,
		 struct strbuf *cells)
{
	for (size_t f = 0; f < SIM_SWEEP_FIGURE_COUNT; f++) {
		for (size_t v = 0; v < sw->nvalues; v++) {
			enum sim_sweep_figure fig = (enum sim_sweep_figure)f;
			struct strbuf *c = &cells[f * sw->nvalues + v];
			double x = sim_sweep_figure_value(&sw->sums[v][r], fig);

			strbuf_reset(c);
			if (ratio)
				add_ratio(x,
					  sim_sweep_figure_value(
						  &sw->sums[v][0], fig),
					  c);
			else
				add_figure(fig, x, c);
		}
	}
}

void sim_sweep_table(const struct sim_sweep *sw, struct strbuf *out)
{
	size_t nc = SIM_SWEEP_FIGURE_COUNT * sw->nvalues;
	struct strbuf cells[SIM_SWEEP_FIGURE_COUNT * SIM_SWEEP_MAX_VALUES];
	char title[64];

	for (size_t v = 0; v < sw->nvalues; v++)
		BUG_ON(!sw->recorded[v]);
	for (size_t i = 0; i < nc; i++)
		strbuf_init(&cells[i]);
	for (size_t r = 0; r < sw->npolicies; r++) {
		fill(sw, r, false, cells);
		if (r)
			strbuf_addch(out, '\n');
		snprintf(title, sizeof(title),
			 "%s, %s =", sim_policy_name(sw->policies[r]), sw->key);
		block(sw, title, cells, out);
	}
	for (size_t r = 1; r < sw->npolicies; r++) {
		fill(sw, r, true, cells);
		snprintf(title, sizeof(title),
			 "%s / %s, %s =", sim_policy_name(sw->policies[r]),
			 sim_policy_name(sw->policies[0]), sw->key);
		strbuf_addch(out, '\n');
		block(sw, title, cells, out);
	}
	for (size_t i = 0; i < nc; i++)
		strbuf_release(&cells[i]);
}

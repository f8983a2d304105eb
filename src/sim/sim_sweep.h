/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A sweep of one figure of the throughput model: the same comparison run
 * at several values of one key (throughput_set_key(): comm-fraction,
 * share-data, oversub-block, ...), and how each figure of each policy
 * moves with it. The caller runs the policies once per value
 * (sim_sweep_apply() gives the model of each) and records their summaries
 * (sim_sweep_record()); the writers turn the record into a table for
 * people and the "sweep" member of summary.json (sim_out.h).
 *
 * Pure and deterministic, as sim_out.h: numbers are written by integer
 * arithmetic, values as the user wrote them.
 */
#ifndef ECHELON_SIM_SIM_SWEEP_H
#define ECHELON_SIM_SIM_SWEEP_H

#include <stddef.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "sim/sim.h"
#include "sim/throughput.h"

#define SIM_SWEEP_MAX_VALUES 16
#define SIM_SWEEP_MAX_TEXT   32 /* bytes of a key or a value */

/* The figures a sweep follows, in table order. */
enum sim_sweep_figure {
	SIM_SWEEP_MEAN_WAIT,
	SIM_SWEEP_P95_WAIT,
	SIM_SWEEP_MEAN_JCT,
	SIM_SWEEP_UTILIZATION,
	SIM_SWEEP_GOODPUT,
	SIM_SWEEP_THROUGHPUT,
	SIM_SWEEP_THROUGHPUT_MULTI,
	SIM_SWEEP_MAKESPAN,
	SIM_SWEEP_FIGURE_COUNT
};

struct sim_sweep {
	char key[SIM_SWEEP_MAX_TEXT + 1];
	char values[SIM_SWEEP_MAX_VALUES][SIM_SWEEP_MAX_TEXT + 1];
	size_t nvalues;
	enum sim_policy policies[SIM_POLICY_COUNT];
	size_t npolicies; /* set by the first sim_sweep_record() */
	struct sim_summary sums[SIM_SWEEP_MAX_VALUES][SIM_POLICY_COUNT];
	bool recorded[SIM_SWEEP_MAX_VALUES];
};

/*
 * Parse "KEY=V1,V2,..." (1 to SIM_SWEEP_MAX_VALUES distinct values, each
 * valid for KEY on the default model) into *ret. -EINVAL with
 * "origin:1:col: what is wrong" in eb otherwise (ret then unspecified).
 */
int sim_sweep_parse(struct sim_sweep *ret, const char *text, const char *origin,
		    struct errbuf *eb) MUST_CHECK;

/* Set value v (< nvalues) of the swept key in *tp, all or nothing:
 * -EINVAL with a message in eb when the model it gives is not valid
 * (throughput_config_check()). */
int sim_sweep_apply(const struct sim_sweep *sw, size_t v,
		    struct throughput_config *tp, struct errbuf *eb) MUST_CHECK;

/* Record the summaries of runs[0..n) made at value v. Every value must
 * be recorded with the same policies in the same order (BUG otherwise). */
void sim_sweep_record(struct sim_sweep *sw, size_t v,
		      const struct sim_result *runs, size_t n);

/* The label ("mean JCT"), JSON key ("mean_jct_s") and value of figure f
 * of s (negative: does not apply; seconds for times). */
const char *sim_sweep_figure_label(enum sim_sweep_figure f);
const char *sim_sweep_figure_key(enum sim_sweep_figure f);
double sim_sweep_figure_value(const struct sim_summary *s,
			      enum sim_sweep_figure f);

/*
 * The table for people: per policy, one line per figure with its value at
 * each value of the key; then, per other policy, the ratio of each figure
 * to the first policy's at each value ("1.42 x"; "-" where it does not
 * apply). Plain ASCII, no trailing spaces; every value recorded.
 */
void sim_sweep_table(const struct sim_sweep *sw, struct strbuf *out);

#endif

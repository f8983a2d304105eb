/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Start-time estimates for pending workloads: the controller run forward
 * on a copy of its state (ctl_snapshot() restored into a scratch
 * controller over the same cluster; the live one is only read), with no
 * new arrivals, every running workload ending at its expected end and
 * every pod bound and Ready at once. At each end the workload finishes
 * and admission runs as the controller runs it (its phases, its requeues
 * and deadlines, preemption included); the time each pending workload is
 * admitted is its estimate. A workload admitted on the way ends at its
 * admission plus its runtime estimate.
 *
 * The seam is one op: the runtime of a workload from admission to end
 * (ctl_forecast_options.runtime_us). Without it the controller's own
 * runtime estimate counts (sched_wl_estimate(): the driver's, else the
 * owner's limit, Kueue's maximumExecutionTimeSeconds, the Job's
 * max-exec-time label or activeDeadlineSeconds). A running workload is
 * expected to end at its admission plus its runtime, or now when that has
 * passed (it overran). One without a runtime never ends in the forecast:
 * what waits behind it only is not admitted and its estimate is unknown,
 * never a made-up number. Estimates made while such a workload runs are
 * what the known ends alone give: it may end sooner.
 *
 * The work is bounded: a horizon of simulated time past now (a forecast
 * further out than a week is noise, estimates being estimates) and a cap
 * on the steps (each a batch of ends at one time and the cycles after
 * them, each step costing a scheduler cycle per queue head). Past either,
 * the workloads still pending are unknown. Pure: no clock, no I/O.
 */
#ifndef ECHELON_CTL_CTL_FORECAST_H
#define ECHELON_CTL_CTL_FORECAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl/ctl.h"

/* An estimate that cannot be made. */
#define CTL_FORECAST_UNKNOWN INT64_MAX
/* No workload: admitted at once, or when a requeue or deadline came. */
#define CTL_FORECAST_NONE UINT32_MAX

#define CTL_FORECAST_HORIZON_US (7LL * 24 * 3600 * 1000000)
#define CTL_FORECAST_MAX_STEPS	1024u

struct ctl_forecast_options {
	int64_t horizon_us; /* past the controller's now; 0: the default */
	uint32_t max_steps; /* 0: the default */
	/*
	 * The runtime of workload slot wl of x (the live controller) from its
	 * admission to its end: > 0, or 0 when unknown. Called for the
	 * admitted workloads and those admitted in the forecast; must not
	 * call any ctl_* function that changes x. NULL: sched_wl_estimate().
	 */
	int64_t (*runtime_us)(void *ctx, const struct ctl *x, uint32_t wl);
	void *ctx;
};

/* One workload slot's estimate. */
struct ctl_forecast_wl {
	bool pending; /* pending (queued, parked or backing off) now */
	/* pending: its estimated admission, CTL_FORECAST_UNKNOWN when none.
	 * Admitted: its expected end, CTL_FORECAST_UNKNOWN when none. */
	int64_t at_us;
	/* pending and estimated: the workload whose end lets it in (one of
	 * those ending then, of its ClusterQueue when one is),
	 * CTL_FORECAST_NONE when none does */
	uint32_t after;
};

struct ctl_forecast {
	uint64_t generation; /* ctl_generation() it was made from */
	int64_t now_us;	     /* the controller's time it started from */
	/* The first end or wake-up it counted on: once the controller's time
	 * passes it with nothing else changed, reality went another way. */
	int64_t valid_until_us;
	uint32_t steps;
	bool truncated;		    /* stopped at the horizon or the step cap */
	size_t n;		    /* slots: the cluster's workloads then */
	struct ctl_forecast_wl *wl; /* [n], owned */
};

/* The forecast of x now (see above); o may be NULL. The caller frees it
 * with ctl_forecast_free(). x is not changed. */
struct ctl_forecast *ctl_forecast(const struct ctl *x,
				  const struct ctl_forecast_options *o);
void ctl_forecast_free(struct ctl_forecast *f);

/*
 * The forecast of x, made again only when x's generation moved or its
 * time passed the cached one's valid_until_us, so that pollers (/metrics,
 * a dashboard) do not run it per request. *cache holds the last one
 * (NULL at first; freed with ctl_forecast_free()). The result is
 * *cache's, valid until the next call. The options must not change
 * between calls on one cache.
 */
const struct ctl_forecast *
ctl_forecast_cached(struct ctl_forecast **cache, const struct ctl *x,
		    const struct ctl_forecast_options *o);

#endif

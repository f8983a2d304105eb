// SPDX-License-Identifier: Apache-2.0
/*
 * The start-time forecast as a gauge per pending workload: see
 * obs_forecast.h and docs/observability.md.
 */
#include "obs/obs_forecast.h"

#include "base/banned.h"

#define NAME "echelon_pending_workload_estimated_wait_seconds"

void obs_forecast_metrics(const struct ctl *x, const struct ctl_forecast *f,
			  int64_t now_us, struct strbuf *out)
{
	const struct cluster *c = ctl_cluster(x);
	const struct sched *s = ctl_sched(x);

	strbuf_addstr(out, "# HELP " NAME " Estimated time until a pending "
			   "workload is admitted, from a forecast of the "
			   "running workloads' ends; no sample when "
			   "unknown.\n# TYPE " NAME " gauge\n");
	for (size_t i = 0; f && i < f->n && i < c->workloads.len; i++) {
		const struct workload *w = &c->workloads.items[i];
		int32_t cq;
		int64_t wait;

		if (!f->wl[i].pending ||
		    f->wl[i].at_us == CTL_FORECAST_UNKNOWN ||
		    !ctl_handle(x, (uint32_t)i) ||
		    sched_wl_state(s, (uint32_t)i) != SCHED_WL_PENDING)
			continue;
		cq = sched_wl_cq(s, (uint32_t)i);
		if (cq < 0)
			continue; /* no ClusterQueue: never admitted */
		wait = f->wl[i].at_us - now_us;
		strbuf_addf(out,
			    NAME "{namespace=\"%s\",workload=\"%s\","
				 "cluster_queue=\"%s\"} %.6f\n",
			    w->ns ? w->ns : "", w->name, sched_cq_name(s, cq),
			    wait > 0 ? (double)wait / 1e6 : 0.0);
	}
}

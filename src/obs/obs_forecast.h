/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The start-time forecast (ctl/ctl_forecast.h) as a Prometheus series:
 * per pending workload whose admission can be estimated, the time left
 * until then. A workload whose estimate is unknown has no sample, so that
 * an alert on the series never fires on a made-up number. Pure: reads the
 * controller and the forecast, changes nothing.
 */
#ifndef ECHELON_OBS_OBS_FORECAST_H
#define ECHELON_OBS_OBS_FORECAST_H

#include <stdint.h>

#include "base/strbuf.h"
#include "ctl/ctl.h"
#include "ctl/ctl_forecast.h"

/*
 * Append the gauge echelon_pending_workload_estimated_wait_seconds
 * {namespace, workload, cluster_queue} of forecast f of x at now_us (the
 * controller's clock): seconds until its estimated admission, 0 when that
 * is due. HELP and TYPE are written even without a sample. f may be NULL
 * (none).
 */
void obs_forecast_metrics(const struct ctl *x, const struct ctl_forecast *f,
			  int64_t now_us, struct strbuf *out);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scheduler's Prometheus metrics under Kueue's names, labels and
 * semantics (pkg/metrics/metrics.go), plus echelon's own under echelon_:
 * one definition for the simulator's outputs and the daemon's /metrics.
 *
 * A pure observer of a controller (src/ctl): it reads the controller's
 * state and its events and records them in a registry (base/metrics.h);
 * it never changes the controller, does no I/O and reads no clock. Its
 * callers are the drivers of a controller, the layer above it (src/sim,
 * src/serve): they pass every event their backend's event op receives to
 * obs_metrics_event(), call obs_metrics_cycles() after each ctl_run() and
 * obs_metrics_refresh() before they read the registry. Counters count
 * events (each admission, each eviction) as Kueue's do; gauges are the
 * state at the last refresh. Every ClusterQueue and LocalQueue has all its
 * gauges, at zero when idle (a LocalQueue's quota gauges while its
 * ClusterQueue exists), except the unadmitted workloads per cause: a
 * cause's series appears with its first workload and then stays, at zero
 * when none. The list of metrics and what each means is in
 * docs/internals/metrics.md.
 */
#ifndef ECHELON_OBS_OBS_METRICS_H
#define ECHELON_OBS_OBS_METRICS_H

#include <stdint.h>

#include "base/metrics.h"
#include "ctl/ctl.h"
#include "sim/throughput.h"

struct obs_metrics;

/*
 * An observer that records into m (borrowed: it must outlive the
 * observer), registering its families there. label and value (both or
 * neither; copied) are added to every series, e.g. the simulator's
 * "policy". Never NULL.
 */
struct obs_metrics *obs_metrics_new(struct metrics *m, const char *label,
				    const char *value);
/* NULL is fine. The registry stays the caller's. */
void obs_metrics_free(struct obs_metrics *om);

/* The throughput model of the traffic gauges (copied); by default
 * throughput_config_init()'s. */
void obs_metrics_set_model(struct obs_metrics *om,
			   const struct throughput_config *tc);

/* Record event e of controller x (counters and histograms). x must be
 * the controller that reported it, e its event op's argument. */
void obs_metrics_event(struct obs_metrics *om, const struct ctl *x,
		       const struct ctl_event *e);

/*
 * Count the scheduler cycles x ran since the last call as admission
 * attempts (result "success" for a cycle that admitted a workload,
 * "inadmissible" otherwise), each taking seconds / cycles of the
 * admission attempt duration: the driver's measure of its last ctl_run()
 * (the simulator's cycles take no simulated time: 0). Also observes the
 * placement time of each attempt that ran the placement engine since
 * (sched_place_attempts(): 0 unless the driver lent the scheduler a
 * clock).
 */
void obs_metrics_cycles(struct obs_metrics *om, const struct ctl *x,
			double seconds);

/* Set every gauge from x's state now. */
void obs_metrics_refresh(struct obs_metrics *om, const struct ctl *x);

#endif

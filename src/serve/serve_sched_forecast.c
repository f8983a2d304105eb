// SPDX-License-Identifier: Apache-2.0
/*
 * Start-time estimates of the daemon's pending workloads: the controller's
 * forecast (ctl_forecast.h), cached per controller generation, with the
 * runtimes the daemon knows. In the embedded cluster a Job's pods run for
 * its sim.echelon.dev/duration (on the Job or its pod template, as the
 * Job controller passes it on; on a gang's pods) after the kubelets'
 * start-up delay (plus its jitter, a twentieth on average), and the Job
 * controller completes the Job up to its batch period after its last pod
 * ended: that sum is a workload's runtime. Elsewhere, and without one, the
 * controller's own estimate counts: the owner's limit
 * (maximumExecutionTimeSeconds, the Job's max-exec-time label or its
 * activeDeadlineSeconds). A new forecast waits for four times the last
 * one's cost (serve_sched_int.h).
 */
#include <string.h>
#include <time.h>

#include "base/duration.h"
#include "ctl/ctl_forecast.h"
#include "model/ann.h"
#include "serve/serve_sched_int.h"

#include "base/banned.h"

/* The embedded Job controller's syncJobBatchPeriod (CL_JOB_BATCH_US). */
#define JOB_BATCH_US 1000000

static int64_t duration_in(const json_t *obj, const char *path)
{
	const json_t *md = json_object_get(obj, "metadata");
	const char *s;
	int64_t us;

	if (path)
		md = json_object_get(
			json_object_get(json_object_get(obj, "spec"), path),
			"metadata");
	s = json_string_value(json_object_get(
		json_object_get(md, "annotations"), ANN_SIM_DURATION));
	if (!s || duration_parse_time(s, strlen(s), &us, NULL) != 0 || us <= 0)
		return 0;
	return us;
}

/* The time slot's pods run once started, as the kubelets will run them;
 * 0 when they run until deleted. */
static int64_t pod_duration(const struct serve_sched *x, uint32_t slot)
{
	const struct swl *w = &x->wl.items[slot];
	const struct api_obj *o;
	int64_t d;

	if (w->job && x->kinds[SK_JOB]) {
		o = api_store_get(x->s, x->kinds[SK_JOB], w->ns, w->job);
		if (o && (d = duration_in(o->body, NULL)) > 0)
			return d;
		if (o && (d = duration_in(o->body, "template")) > 0)
			return d;
	}
	for (uint32_t p = 0; w->name_at && p < w->npods; p++) {
		if (!w->name_at[p] || !x->kinds[SK_POD])
			continue;
		o = api_store_get(x->s, x->kinds[SK_POD], w->ns, w->name_at[p]);
		if (o && (d = duration_in(o->body, NULL)) > 0)
			return d;
	}
	if (w->pod && x->kinds[SK_POD]) {
		o = api_store_get(x->s, x->kinds[SK_POD], w->ns, w->pod);
		if (o && (d = duration_in(o->body, NULL)) > 0)
			return d;
	}
	return 0;
}

static int64_t runtime(void *ctx, const struct ctl *c, uint32_t slot)
{
	const struct serve_sched *x = ctx;
	int64_t d = 0, start;

	if (!x->opt.kube && slot < x->wl.len && x->wl.items[slot].live)
		d = pod_duration(x, slot);
	if (d <= 0)
		return sched_wl_estimate(ctl_sched(c), slot);
	start = x->opt.pod_startup_us;
	d += start + start / 20;
	return x->wl.items[slot].job ? d + JOB_BATCH_US : d;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const struct ctl_forecast *serve_sched_forecast(const struct serve_sched *x)
{
	struct ctl_forecast_options o = { .runtime_us = runtime,
					  .ctx = (void *)x };
	struct serve_forecast *b = x->forecast;
	const struct ctl_forecast *prev = b->f;
	uint64_t gen = prev ? prev->generation : 0;
	int64_t at = prev ? prev->now_us : 0;
	double t0 = mono_s();
	const struct ctl_forecast *f;

	/* A forecast over thousands of workloads takes a scheduler cycle
	 * per step: a busy daemon spends at most a fifth of its time on
	 * them, answering from one a little older meanwhile. */
	if (prev && t0 < b->made_s + 4 * b->cost_s)
		return prev;
	f = ctl_forecast_cached(&b->f, x->ctl, &o);
	if (f != prev || f->generation != gen || f->now_us != at) {
		b->made_s = t0;
		b->cost_s = mono_s() - t0;
	}
	return f;
}

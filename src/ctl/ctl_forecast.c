// SPDX-License-Identifier: Apache-2.0
/*
 * Start-time estimates: the controller's state restored into a scratch
 * controller over the same cluster, then driven from end to end as a
 * driver would drive it (finish, run, bind and Ready at once), recording
 * when each workload pending at the start is admitted. The scratch
 * controller's backend only records what it is told; nothing reaches the
 * live controller or its backend. See ctl_forecast.h and
 * docs/internals/controller.md §10.
 */
#include "ctl/ctl_forecast.h"

#include <string.h>

#include "base/alloc.h"
#include "base/heap.h"
#include "base/vec.h"
#include "ctl/ctl_int.h"

#include "base/banned.h"

/* An expected end; stale when the slot's end is no longer at. */
struct fc_end {
	int64_t at;
	uint32_t wl;
};

struct fc {
	const struct ctl *x; /* the live controller, read only */
	const struct ctl_forecast_options *o;
	struct ctl *y; /* the scratch controller */
	struct ctl_forecast *f;
	int64_t *end;		 /* per slot: expected end while admitted */
	VEC(struct fc_end) ends; /* every end set; the heap holds index + 1 */
	struct heap by_end;
	VEC(uint32_t) admitted; /* since the last settle */
	VEC(uint32_t) released; /* preempted, their pods to let go */
	VEC(uint32_t) finished; /* at the current step */
	size_t left;		/* pending at the start, not admitted yet */
};

static void on_event(void *ctx, const struct ctl_event *e)
{
	struct fc *c = ctx;

	switch (e->kind) {
	case CTL_EV_ADMITTED:
		vec_push(&c->admitted, e->wl);
		break;
	case CTL_EV_PREEMPTED:
		if (c->y->opt.wait_victims)
			vec_push(&c->released, e->wl);
		c->end[e->wl] = CTL_FORECAST_UNKNOWN;
		break;
	case CTL_EV_EVICTED:
	case CTL_EV_DEACTIVATED:
	case CTL_EV_FINISHED:
		c->end[e->wl] = CTL_FORECAST_UNKNOWN;
		break;
	default:
		break;
	}
}

static const struct ctl_backend_ops scratch_ops = { .event = on_event };

static int end_cmp(const void *a, const void *b, void *ctx)
{
	const struct fc *c = ctx;
	const struct fc_end *x = &c->ends.items[(uintptr_t)a - 1];
	const struct fc_end *y = &c->ends.items[(uintptr_t)b - 1];

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->wl > y->wl) - (x->wl < y->wl);
}

/* Slot wl is expected to end at at (CTL_FORECAST_UNKNOWN: never). */
static void set_end(struct fc *c, uint32_t wl, int64_t at)
{
	c->end[wl] = at;
	if (at == CTL_FORECAST_UNKNOWN)
		return;
	vec_push(&c->ends, ((struct fc_end){ at, wl }));
	heap_push(&c->by_end, (void *)(uintptr_t)c->ends.len);
}

static int64_t runtime_of(const struct fc *c, uint32_t wl)
{
	int64_t r = c->o->runtime_us ? c->o->runtime_us(c->o->ctx, c->x, wl)
				     : sched_wl_estimate(c->x->s, wl);

	return r > 0 ? r : 0;
}

/* Admitted slot wl runs as a driver sees it run: its pods created (a
 * gang waiting for its quorum), every bind done, every pod Ready. */
static void run_pods(struct fc *c, uint32_t wl, int64_t now_us)
{
	uint64_t h = ctl_handle(c->y, wl);
	uint32_t n = ctl_pods_of(c->y, wl)->npods;

	for (uint32_t p = 0; p < n; p++) {
		if (gang_state(c->y->g, wl) != GANG_WAITING)
			break;
		BUG_ON(ctl_pod_event(c->y, h, p, CTL_POD_RESTARTED, now_us) <
		       0);
	}
	for (uint32_t p = 0; p < n; p++) {
		const struct ctl_wl *w = &c->y->wl[wl];

		if (w->bind && w->bind[p] == CTL_POD_BINDING)
			BUG_ON(ctl_bind_result(c->y, h, p, 0, now_us) < 0);
	}
	for (uint32_t p = 0; p < c->y->wl[wl].npods; p++) {
		if (sched_wl_state(c->y->s, wl) != SCHED_WL_ADMITTED)
			return;
		BUG_ON(ctl_pod_event(c->y, h, p, CTL_POD_READY, now_us) < 0);
	}
}

/* The workload whose end at this step lets slot wl in: one of its
 * ClusterQueue when one is. */
static uint32_t culprit(const struct fc *c, uint32_t wl)
{
	int32_t cq = sched_wl_cq(c->y->s, wl);

	vec_foreach (&c->finished, it) {
		if (sched_wl_cq(c->y->s, *it) == cq)
			return *it;
	}
	return c->finished.len ? c->finished.items[0] : CTL_FORECAST_NONE;
}

static void admitted(struct fc *c, uint32_t wl, int64_t now_us)
{
	struct ctl_forecast_wl *r = &c->f->wl[wl];
	int64_t rt;

	if (sched_wl_state(c->y->s, wl) != SCHED_WL_ADMITTED)
		return; /* preempted again in the same run */
	if (r->pending && r->at_us == CTL_FORECAST_UNKNOWN) {
		r->at_us = now_us;
		r->after = culprit(c, wl);
		c->left--;
	}
	rt = runtime_of(c, wl);
	set_end(c, wl, rt ? now_us + rt : CTL_FORECAST_UNKNOWN);
	run_pods(c, wl, now_us);
}

/* Run the cycles at now_us until what they decided has settled: victims
 * gone, admitted gangs bound and Ready. */
static void settle(struct fc *c, int64_t now_us)
{
	for (unsigned guard = 0;; guard++) {
		BUG_ON(guard > 100000);
		ctl_run(c->y, now_us);
		if (!c->admitted.len && !c->released.len)
			return;
		for (size_t i = 0; i < c->released.len; i++)
			BUG_ON(ctl_released(
				       c->y,
				       ctl_handle(c->y, c->released.items[i]),
				       now_us) < 0);
		c->released.len = 0;
		for (size_t i = 0; i < c->admitted.len; i++)
			admitted(c, c->admitted.items[i], now_us);
		c->admitted.len = 0;
	}
}

/* Start from the live state: what is admitted runs until its expected
 * end, what is pending waits for an estimate. */
static void start(struct fc *c)
{
	const struct ctl *x = c->x;
	int64_t now = x->now_us;

	for (uint32_t i = 0; i < c->f->n; i++) {
		struct ctl_forecast_wl *r = &c->f->wl[i];
		enum sched_wl_state st;
		struct sched_saved sv;
		int64_t rt;

		r->at_us = CTL_FORECAST_UNKNOWN;
		r->after = CTL_FORECAST_NONE;
		c->end[i] = CTL_FORECAST_UNKNOWN;
		if (!ctl_handle(x, i))
			continue;
		st = sched_wl_state(x->s, i);
		if (st == SCHED_WL_PENDING) {
			r->pending = true;
			c->left++;
		}
		sched_wl_export(x->s, i, &sv);
		/* a victim whose pods the backend still lets go: gone now */
		if (sv.held && c->y->opt.wait_victims)
			vec_push(&c->released, i);
		if (st != SCHED_WL_ADMITTED ||
		    sched_wl_state(c->y->s, i) != SCHED_WL_ADMITTED)
			continue;
		rt = runtime_of(c, i);
		if (!rt)
			continue;
		set_end(c, i, sv.admit_us + rt < now ? now : sv.admit_us + rt);
		r->at_us = c->end[i];
		run_pods(c, i, now);
	}
}

/* The earliest expected end, CTL_FORECAST_UNKNOWN when none; the stale
 * ends before it are dropped. */
static int64_t next_end(struct fc *c)
{
	void *top;

	while ((top = heap_peek(&c->by_end))) {
		const struct fc_end *e = &c->ends.items[(uintptr_t)top - 1];

		if (c->end[e->wl] == e->at)
			return e->at;
		heap_pop(&c->by_end);
	}
	return CTL_FORECAST_UNKNOWN;
}

/* Every admitted workload expected to end at t ends, in slot order. */
static void finish_at(struct fc *c, int64_t t)
{
	c->finished.len = 0;
	while (next_end(c) == t) {
		uint32_t wl =
			c->ends.items[(uintptr_t)heap_pop(&c->by_end) - 1].wl;

		c->end[wl] = CTL_FORECAST_UNKNOWN; /* a twin entry is stale */
		vec_push(&c->finished, wl);
	}
	vec_foreach (&c->finished, it)
		BUG_ON(ctl_finish(c->y, ctl_handle(c->y, *it), t) < 0);
}

static void forward(struct fc *c, int64_t horizon_us, uint32_t max_steps)
{
	int64_t now = c->y->now_us;
	int64_t limit = now + horizon_us;

	c->f->valid_until_us = CTL_FORECAST_UNKNOWN;
	settle(c, now);
	while (c->left) {
		int64_t t = next_end(c);
		int64_t wake = ctl_next_wakeup_us(c->y, now);

		if (wake < t)
			t = wake;
		if (t == CTL_FORECAST_UNKNOWN)
			break; /* nothing ends that is known to */
		if (t > limit || c->f->steps >= max_steps) {
			c->f->truncated = true;
			break;
		}
		if (!c->f->steps)
			c->f->valid_until_us = t;
		c->f->steps++;
		now = t > now ? t : now;
		finish_at(c, t);
		settle(c, now);
	}
}

struct ctl_forecast *ctl_forecast(const struct ctl *x,
				  const struct ctl_forecast_options *o)
{
	static const struct ctl_forecast_options none;
	struct ctl_options opt = x->opt;
	struct ctl_snapshot *sn;
	struct fc c;
	int lost;

	memset(&c, 0, sizeof(c));
	c.x = x;
	c.o = o ? o : &none;
	c.f = xcalloc(1, sizeof(*c.f));
	c.f->generation = x->generation;
	c.f->now_us = x->now_us;
	c.f->n = x->c->workloads.len;
	c.f->wl = xcalloc(c.f->n + 1, sizeof(*c.f->wl));
	c.end = xcalloc(c.f->n + 1, sizeof(*c.end));
	heap_init(&c.by_end, end_cmp, &c);
	/* the scratch controller keeps no journal: nobody reads it */
	opt.track_changes = false;
	c.y = ctl_new(x->c, &opt, &scratch_ops, &c);
	sn = ctl_snapshot(x);
	lost = ctl_restore(c.y, sn); /* the same cluster: none is lost */
	BUG_ON(lost < 0);
	ctl_snapshot_free(sn);
	start(&c);
	forward(&c,
		c.o->horizon_us > 0 ? c.o->horizon_us : CTL_FORECAST_HORIZON_US,
		c.o->max_steps ? c.o->max_steps : CTL_FORECAST_MAX_STEPS);
	ctl_free(c.y);
	free(c.end);
	heap_release(&c.by_end);
	vec_release(&c.ends);
	vec_release(&c.admitted);
	vec_release(&c.released);
	vec_release(&c.finished);
	return c.f;
}

void ctl_forecast_free(struct ctl_forecast *f)
{
	if (!f)
		return;
	free(f->wl);
	free(f);
}

const struct ctl_forecast *
ctl_forecast_cached(struct ctl_forecast **cache, const struct ctl *x,
		    const struct ctl_forecast_options *o)
{
	struct ctl_forecast *f = *cache;

	if (f && f->generation == x->generation &&
	    f->n == x->c->workloads.len && x->now_us <= f->valid_until_us)
		return f;
	ctl_forecast_free(f);
	*cache = ctl_forecast(x, o);
	return *cache;
}

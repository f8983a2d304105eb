// SPDX-License-Identifier: Apache-2.0
/*
 * The controller: the scheduler core and the gang lifecycle driven as one,
 * in the phases that ctl.h documents. The lifecycle reaches nodes through
 * ops that the controller implements itself: a bind moves the scheduler's
 * node usage at once (the next gang re-placed in the same step must see
 * it) and goes into an outbox; the outbox is handed to the backend when
 * the lifecycle's call has returned, in the order the binds were asked
 * for. See docs/internals/controller.md.
 */
#include "ctl/ctl_int.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"

#include "base/banned.h"

const char *ctl_event_kind_name(enum ctl_event_kind k)
{
	static const char *const names[] = { "Admitted", "Preempted",
					     "Evicted",	 "Deactivated",
					     "Replaced", "Bound",
					     "Ready",	 "Finished" };

	BUG_ON((size_t)k >= ARRAY_SIZE(names));
	return names[k];
}

void ctl_emit(struct ctl *x, const struct ctl_event *e)
{
	struct ctl_event at = *e;

	at.at_us = x->now_us;
	x->generation++;
	if (x->ops && x->ops->event)
		x->ops->event(x->ctx, &at);
}

/* CTL_EV_BOUND when every pod of admitted slot wl is bound, once. */
static void check_bound(struct ctl *x, uint32_t wl)
{
	struct ctl_wl *w = &x->wl[wl];
	struct ctl_event e = { .kind = CTL_EV_BOUND, .wl = wl };

	if (w->bound_said || w->binding || !w->npods ||
	    sched_wl_state(x->s, wl) != SCHED_WL_ADMITTED)
		return;
	for (uint32_t p = 0; p < w->npods; p++)
		if (w->bind[p] != CTL_POD_BOUND)
			return;
	w->bound_said = true;
	ctl_emit(x, &e);
}

/* The pod arrays of slot wl, made on first use. */
struct ctl_wl *ctl_pods_of(struct ctl *x, uint32_t wl)
{
	struct ctl_wl *w = &x->wl[wl];
	const struct workload *cw = &x->c->workloads.items[wl];
	uint32_t n = 0;

	if (w->bind)
		return w;
	for (size_t i = 0; i < cw->npodsets; i++)
		n += (uint32_t)cw->podsets[i].count;
	w->npods = n;
	w->bind = xcalloc(n ? n : 1, sizeof(*w->bind));
	w->node = xcalloc(n ? n : 1, sizeof(*w->node));
	for (uint32_t p = 0; p < n; p++)
		w->node[p] = CTL_NO_NODE;
	return w;
}

void ctl_drop_pods(struct ctl_wl *w)
{
	free(w->bind);
	free(w->node);
	w->bind = NULL;
	w->node = NULL;
	w->npods = 0;
	w->binding = 0;
}

static uint32_t node_index(const struct ctl *x, const char *name)
{
	const struct node *n;

	if (!name)
		return CTL_NO_NODE;
	n = cluster_find(x->c, KIND_NODE, NULL, name);
	BUG_ON(!n); /* the scheduler knows only the cluster's nodes */
	return (uint32_t)(n - x->c->nodes.items);
}

/*
 * The lifecycle binds a pod. A pod bound already is being re-placed: its
 * usage moves in the scheduler's index now, so that the next gang
 * re-placed in this same step sees the node taken.
 */
static void gang_bind(void *ctx, uint32_t wl, uint32_t pod, const char *node)
{
	struct ctl *x = ctx;
	struct ctl_wl *w = ctl_pods_of(x, wl);

	BUG_ON(pod >= w->npods);
	if (w->bind[pod] != CTL_POD_UNBOUND)
		BUG_ON(!node ||
		       sched_move_pod(x->s, wl, pod, node, x->now_us) < 0);
	w->node[pod] = node_index(x, node);
	vec_push(&x->out, ((struct ctl_out){ false, wl, pod, w->node[pod] }));
}

/* The lifecycle takes every pod of wl off its node. */
static void gang_release(void *ctx, uint32_t wl)
{
	struct ctl *x = ctx;
	struct ctl_wl *w = &x->wl[wl];

	if (w->bind) {
		memset(w->bind, CTL_POD_UNBOUND, w->npods);
		for (uint32_t p = 0; p < w->npods; p++)
			w->node[p] = CTL_NO_NODE;
	}
	w->binding = 0;
	w->bind_epoch++;
	vec_push(&x->out, ((struct ctl_out){ true, wl, 0, CTL_NO_NODE }));
}

static const struct gang_ops gang_ops = { gang_bind, gang_release };

void ctl_push_bind_deadline(struct ctl *x, uint32_t wl)
{
	struct ctl_bind_dl d = { x->wl[wl].bind_deadline_us, wl,
				 x->wl[wl].bind_epoch };
	size_t i = x->dl.len;

	vec_push(&x->dl, d);
	for (; i > x->dl_head && (x->dl.items[i - 1].at_us > d.at_us ||
				  (x->dl.items[i - 1].at_us == d.at_us &&
				   x->dl.items[i - 1].wl > wl));
	     i--)
		x->dl.items[i] = x->dl.items[i - 1];
	x->dl.items[i] = d;
}

/* Set the bind state of a pod, keeping the count of BINDING ones. */
static void set_bind(struct ctl_wl *w, uint32_t pod, enum ctl_pod_bind b)
{
	w->binding -= w->bind[pod] == CTL_POD_BINDING;
	w->binding += b == CTL_POD_BINDING;
	w->bind[pod] = (uint8_t)b;
}

static void bind_started(struct ctl *x, uint32_t wl, uint32_t pod)
{
	struct ctl_wl *w = &x->wl[wl];

	if (!w->binding) {
		w->bind_deadline_us = x->now_us + x->opt.bind_timeout_us;
		ctl_push_bind_deadline(x, wl);
	}
	set_bind(w, pod, CTL_POD_BINDING);
}

/* Hand the outbox to the backend, in order. */
void ctl_flush(struct ctl *x)
{
	for (size_t i = 0; i < x->out.len; i++) {
		struct ctl_out o = x->out.items[i];
		int rc = CTL_BIND_DONE;

		if (o.release) {
			if (x->ops && x->ops->release)
				x->ops->release(x->ctx, o.wl);
			continue;
		}
		x->stats.binds++;
		if (x->ops && x->ops->bind)
			rc = x->ops->bind(x->ctx, o.wl, o.pod, o.node);
		if (rc == CTL_BIND_DONE) {
			set_bind(&x->wl[o.wl], o.pod, CTL_POD_BOUND);
		} else if (rc == CTL_BIND_STARTED) {
			bind_started(x, o.wl, o.pod);
		} else {
			set_bind(&x->wl[o.wl], o.pod, CTL_POD_UNBOUND);
			x->stats.bind_failures++;
			vec_push(&x->failed, o.wl);
		}
	}
	/* once per gang: a gang's binds are in a row */
	for (size_t i = 0; i < x->out.len; i++) {
		const struct ctl_out *o = &x->out.items[i];

		if (!o->release && (i + 1 == x->out.len || o[1].wl != o->wl))
			check_bound(x, o->wl);
	}
	x->out.len = 0;
}

static void gang_apply(struct ctl *x, const struct gang_decisions *gd)
{
	vec_foreach (&gd->items, d) {
		struct ctl_event e = { .wl = d->wl, .reason = d->reason };

		switch (d->kind) {
		case GANG_EVICT:
		case GANG_RELEASE:
			sched_evict_until(x->s, d->wl, d->reason,
					  d->requeue_at_us, x->now_us);
			e.kind = CTL_EV_EVICTED;
			e.requeue_at_us = d->requeue_at_us;
			x->dirty = true; /* its quota is free */
			break;
		case GANG_DEACTIVATE:
			sched_deactivate(x->s, d->wl, d->reason, x->now_us);
			e.kind = CTL_EV_DEACTIVATED;
			x->dirty = true;
			break;
		case GANG_REPLACED:
			e.kind = CTL_EV_REPLACED;
			e.pods = d->pods;
			break;
		default:
			BUG_ON(1);
		}
		ctl_emit(x, &e);
	}
}

/* The wait before a gang whose binds failed n times in a row is tried
 * again: 1 s, doubling, at most 10 s. */
static int64_t bind_backoff_us(uint32_t n)
{
	int64_t d = BIND_BACKOFF_US;

	while (--n && d < BIND_BACKOFF_MAX_US)
		d *= 2;
	return d < BIND_BACKOFF_MAX_US ? d : BIND_BACKOFF_MAX_US;
}

/* Evict the gangs whose binds failed: whole, queued again after the
 * backoff. */
static void evict_failed(struct ctl *x, const char *reason)
{
	/* in the order they failed; evicting may add none, but stay safe */
	for (size_t i = 0; i < x->failed.len; i++) {
		uint32_t wl = x->failed.items[i];
		struct ctl_event e = { .kind = CTL_EV_EVICTED,
				       .wl = wl,
				       .reason = reason };

		if (sched_wl_state(x->s, wl) != SCHED_WL_ADMITTED)
			continue; /* evicted already in this step */
		e.requeue_at_us =
			x->now_us + bind_backoff_us(++x->wl[wl].bind_fails);
		gang_evicted(x->g, wl, x->now_us);
		ctl_flush(x);
		/* live: its quota and nodes stay held until the backend says
		 * its pods are gone (ctl_released), as a preempted one's */
		sched_evict_held(x->s, wl, reason, e.requeue_at_us, x->now_us);
		x->dirty = true;
		ctl_emit(x, &e);
	}
	x->failed.len = 0;
}

void ctl_grow(struct ctl *x)
{
	size_t nwl = x->c->workloads.len, nn = x->c->nodes.len;

	if (nwl > x->nwl) {
		x->wl = xreallocarray(x->wl, nwl, sizeof(*x->wl));
		memset(x->wl + x->nwl, 0, (nwl - x->nwl) * sizeof(*x->wl));
		for (size_t i = x->nwl; i < nwl; i++) {
			x->wl[i].gen = 1;
			x->wl[i].live =
				workload_live(&x->c->workloads.items[i]);
		}
		x->nwl = nwl;
	}
	if (nn > x->nnodes) {
		x->node_down =
			xreallocarray(x->node_down, nn, sizeof(*x->node_down));
		memset(x->node_down + x->nnodes, 0, nn - x->nnodes);
		x->nnodes = nn;
	}
}

/* The core marks the journal of ctl_changes() when it is on. */
static void ctl_track(struct ctl *x)
{
	if (!x->opt.track_changes)
		return;
	sched_track(x->s, &x->changes);
	gang_track(x->g, &x->changes);
}

struct ctl *ctl_new(struct cluster *c, const struct ctl_options *o,
		    const struct ctl_backend_ops *ops, void *ctx)
{
	struct ctl *x = xcalloc(1, sizeof(*x));
	const struct wait_for_pods_ready *wf =
		&cluster_config(c)->wait_for_pods_ready;

	x->c = c;
	if (o)
		x->opt = *o;
	if (x->opt.bind_timeout_us <= 0)
		x->opt.bind_timeout_us = DEFAULT_BIND_TIMEOUT_US;
	if (wf->enable && wf->block_admission)
		x->opt.sched.admit_limit = 1; /* then wait for its pods */
	x->opt.sched.hold_victims = x->opt.wait_victims;
	x->one_per_cycle = x->opt.sched.admit_limit == 1;
	x->ops = ops;
	x->ctx = ctx;
	dirty_init(&x->changes);
	x->s = sched_new(c, &x->opt.sched);
	x->g = gang_new(c, x->s, &x->opt.gang, &gang_ops, x);
	ctl_track(x);
	hmap_init(&x->pod_uid);
	ctl_grow(x);
	return x;
}

/* Forget the binds of every slot (a rebuild restores them). */
static void reset_binds(struct ctl *x)
{
	for (size_t i = 0; i < x->nwl; i++) {
		struct ctl_wl *w = &x->wl[i];

		free(w->bind);
		free(w->node);
		w->bind = NULL;
		w->node = NULL;
		w->npods = w->binding = 0;
	}
	x->dl.len = x->dl_head = 0;
}

void ctl_free(struct ctl *x)
{
	if (!x)
		return;
	gang_free(x->g);
	sched_free(x->s);
	for (size_t i = 0; i < x->nwl; i++) {
		ctl_drop_pods(&x->wl[i]);
		ctl_unmap_pods(x, &x->wl[i]);
	}
	hmap_release(&x->pod_uid);
	free(x->wl);
	free(x->node_down);
	vec_release(&x->out);
	vec_release(&x->dl);
	vec_release(&x->failed);
	dirty_release(&x->changes);
	free(x);
}

uint64_t ctl_changes_seq(const struct ctl *x)
{
	return dirty_seq(&x->changes);
}

int ctl_changes(const struct ctl *x, uint64_t since,
		int (*fn)(void *ctx, uint32_t wl), void *ctx)
{
	return dirty_since(&x->changes, since, fn, ctx);
}

uint64_t ctl_handle(const struct ctl *x, uint32_t wl)
{
	if (wl >= x->nwl || !x->wl[wl].live)
		return 0;
	return CTL_HANDLE(wl, x->wl[wl].gen);
}

const struct sched *ctl_sched(const struct ctl *x)
{
	return x->s;
}

const struct cluster *ctl_cluster(const struct ctl *x)
{
	return x->c;
}

enum ctl_wait ctl_wl_wait(const struct ctl *x, uint32_t wl,
			  enum sched_pend *ret_pend)
{
	enum sched_pend p;

	switch (sched_wl_state(x->s, wl)) {
	case SCHED_WL_PENDING:
		break;
	case SCHED_WL_ADMITTED:
		switch (gang_state(x->g, wl)) {
		case GANG_WAITING:
		case GANG_BOUND:
			return CTL_WAIT_ASSEMBLY;
		case GANG_RECOVERING:
			return CTL_WAIT_RECOVERY;
		default:
			return CTL_WAIT_NONE;
		}
	default:
		return CTL_WAIT_NONE;
	}
	if (sched_wl_backoff(x->s, wl))
		return CTL_WAIT_BACKOFF;
	if (sched_wl_compact(x->s, wl))
		return CTL_WAIT_COMPACT;
	p = sched_wl_pending(x->s, wl, NULL);
	if (p == SCHED_PEND_EVALUATION && gang_blocks_admission(x->g))
		return CTL_WAIT_BLOCKED;
	if (ret_pend)
		*ret_pend = p;
	return CTL_WAIT_PENDING;
}

const char *ctl_wait_name(enum ctl_wait w, enum sched_pend pend)
{
	static const char *const names[CTL_WAIT_COUNT] = {
		[CTL_WAIT_COMPACT] = "CompactPlacement",
		[CTL_WAIT_BACKOFF] = "Backoff",
		[CTL_WAIT_BLOCKED] = "BlockedByPodsReady",
		[CTL_WAIT_ASSEMBLY] = "WaitForStart",
		[CTL_WAIT_RECOVERY] = "WaitForRecovery",
	};

	BUG_ON((unsigned)w >= CTL_WAIT_COUNT);
	return w == CTL_WAIT_PENDING ? sched_pend_name(pend) : names[w];
}

const struct gang *ctl_gang(const struct ctl *x)
{
	return x->g;
}

struct ctl_stats ctl_stats(const struct ctl *x)
{
	return x->stats;
}

uint64_t ctl_generation(const struct ctl *x)
{
	return x->generation;
}

int64_t ctl_slot_of(struct ctl *x, uint64_t h)
{
	uint32_t wl = CTL_SLOT(h);

	ctl_grow(x);
	x->generation++; /* every call on a workload may change it */
	if (wl >= x->nwl || !x->wl[wl].live || x->wl[wl].gen != CTL_GEN(h))
		return -ESTALE;
	return wl;
}

void ctl_set_now(struct ctl *x, int64_t now_us)
{
	BUG_ON(now_us < x->now_us);
	x->now_us = now_us;
}

int64_t ctl_enter(struct ctl *x, uint64_t h, int64_t now_us)
{
	int64_t wl = ctl_slot_of(x, h);

	if (wl >= 0)
		ctl_set_now(x, now_us);
	return wl;
}

int ctl_submit(struct ctl *x, uint64_t h, bool pods_exist, int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);
	const struct workload *w;

	if (wl < 0)
		return (int)wl;
	if (sched_wl_state(x->s, (uint32_t)wl) == SCHED_WL_PENDING ||
	    sched_wl_state(x->s, (uint32_t)wl) == SCHED_WL_ADMITTED)
		return -EBUSY; /* queued or admitted already */
	w = &x->c->workloads.items[wl];
	x->wl[wl].pods_exist = pods_exist;
	/* A Workload read back with its requeueState continues its backoff */
	if (w->requeue.present)
		gang_set_requeues(x->g, (uint32_t)wl, w->requeue.count);
	sched_submit_after(x->s, (uint32_t)wl, w->requeue.requeue_at_us,
			   now_us);
	x->dirty = true;
	return 0;
}

int ctl_adopt(struct ctl *x, uint64_t h, int64_t now_us, struct strbuf *why)
{
	int64_t wl = ctl_enter(x, h, now_us);
	struct ctl_wl *w;
	int rc;

	if (wl < 0)
		return (int)wl;
	rc = sched_assume_admitted(x->s, (uint32_t)wl, now_us, why);
	if (rc < 0)
		return rc;
	w = ctl_pods_of(x, (uint32_t)wl);
	w->pods_exist = true;
	w->bound_said = w->ready_said = true; /* running before us */
	gang_admitted(x->g, (uint32_t)wl, now_us);
	/* Its pods are on their nodes already: nothing to ask. */
	vec_foreach (&x->out, o) {
		BUG_ON(o->release || o->wl != (uint32_t)wl);
		w->bind[o->pod] = CTL_POD_BOUND;
	}
	x->out.len = 0;
	if (gang_state(x->g, (uint32_t)wl) == GANG_WAITING) {
		for (uint32_t p = 0; p < w->npods; p++)
			gang_pod_created(x->g, (uint32_t)wl, p, now_us);
		vec_foreach (&x->out, o)
			w->bind[o->pod] = CTL_POD_BOUND;
		x->out.len = 0;
	}
	return 0;
}

int ctl_assume_job(struct ctl *x, uint64_t h)
{
	int64_t wl = ctl_slot_of(x, h);

	if (wl < 0)
		return (int)wl;
	return (int)sched_assume_job(x->s, (uint32_t)wl);
}

int ctl_assume_pod(struct ctl *x, const struct pod *p)
{
	x->generation++;
	return sched_assume_pod(x->s, p);
}

int ctl_set_estimate(struct ctl *x, uint64_t h, int64_t est_us)
{
	int64_t wl = ctl_slot_of(x, h);

	if (wl < 0)
		return (int)wl;
	sched_wl_set_estimate(x->s, (uint32_t)wl, est_us);
	return 0;
}

int ctl_finish(struct ctl *x, uint64_t h, int64_t now_us)
{
	return ctl_finish_as(x, h, "Succeeded", "Job finished successfully",
			     now_us);
}

int ctl_finish_as(struct ctl *x, uint64_t h, const char *reason,
		  const char *message, int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);

	if (wl < 0)
		return (int)wl;
	ctl_emit(x,
		 &(struct ctl_event){ .kind = CTL_EV_FINISHED,
				      .wl = (uint32_t)wl,
				      .cq = sched_wl_cq(x->s, (uint32_t)wl) });
	gang_finished(x->g, (uint32_t)wl, now_us);
	if (sched_wl_state(x->s, (uint32_t)wl) == SCHED_WL_ADMITTED)
		sched_finish_as(x->s, (uint32_t)wl, reason, message, now_us);
	ctl_drop_pods(&x->wl[wl]);
	x->wl[wl].bind_epoch++;
	x->wl[wl].bind_fails = 0;
	x->dirty = true;
	return 0;
}

int ctl_pod_event(struct ctl *x, uint64_t h, uint32_t pod, enum ctl_pod_ev ev,
		  int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);

	if (wl < 0)
		return (int)wl;
	if (pod >= ctl_pods_of(x, (uint32_t)wl)->npods)
		return -EINVAL;
	switch (ev) {
	case CTL_POD_READY:
		gang_pod_ready(x->g, (uint32_t)wl, pod, now_us);
		ctl_flush(x);
		if (!x->wl[wl].ready_said &&
		    gang_state(x->g, (uint32_t)wl) == GANG_READY) {
			struct ctl_event e = { .kind = CTL_EV_READY,
					       .wl = (uint32_t)wl };

			x->wl[wl].ready_said = true;
			ctl_emit(x, &e);
		}
		break;
	case CTL_POD_FAILED:
		gang_pod_failed(x->g, (uint32_t)wl, pod, now_us);
		break;
	case CTL_POD_RESTARTED:
		gang_pod_created(x->g, (uint32_t)wl, pod, now_us);
		break;
	}
	ctl_flush(x);
	return 0;
}

int ctl_bind_result(struct ctl *x, uint64_t h, uint32_t pod, int err,
		    int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);
	struct ctl_wl *w;

	if (wl < 0)
		return (int)wl;
	w = &x->wl[wl];
	if (!w->bind || pod >= w->npods || w->bind[pod] != CTL_POD_BINDING)
		return 0; /* released or moved since: not ours any more */
	if (!err) {
		set_bind(w, pod, CTL_POD_BOUND);
		if (!w->binding)
			w->bind_fails = 0;
		check_bound(x, (uint32_t)wl);
		return 0;
	}
	set_bind(w, pod, CTL_POD_UNBOUND);
	x->stats.bind_failures++;
	vec_push(&x->failed, (uint32_t)wl);
	evict_failed(x, "BindFailed");
	return 0;
}

int ctl_evict(struct ctl *x, uint64_t h, const char *reason, int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);

	if (wl < 0)
		return (int)wl;
	if (sched_wl_state(x->s, (uint32_t)wl) != SCHED_WL_ADMITTED)
		return -EINVAL;
	x->stats.bind_failures++;
	vec_push(&x->failed, (uint32_t)wl);
	evict_failed(x, reason);
	return 0;
}

bool ctl_wl_bound(const struct ctl *x, uint32_t wl)
{
	const struct ctl_wl *w;

	if (wl >= x->nwl || !x->wl[wl].live ||
	    sched_wl_state(x->s, wl) != SCHED_WL_ADMITTED)
		return false;
	w = &x->wl[wl];
	if (!w->bind || !w->npods || w->binding)
		return false;
	for (uint32_t p = 0; p < w->npods; p++) {
		if (w->bind[p] != CTL_POD_BOUND)
			return false;
	}
	return true;
}

int ctl_released(struct ctl *x, uint64_t h, int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);

	if (wl < 0)
		return (int)wl;
	sched_victim_released(x->s, (uint32_t)wl, now_us);
	x->dirty = true;
	return 0;
}

void ctl_node_down(struct ctl *x, uint32_t node, bool down, int64_t now_us)
{
	struct gang_decisions gd;

	ctl_grow(x);
	BUG_ON(node >= x->c->nodes.len);
	ctl_set_now(x, now_us);
	if (x->node_down[node] == down)
		return;
	x->generation++;
	x->node_down[node] = down;
	sched_node_set_down(x->s, node, down, now_us);
	if (!down) {
		x->dirty = true;
		return;
	}
	gang_decisions_init(&gd);
	gang_node_failed(x->g, x->c->nodes.items[node].name, now_us, &gd);
	ctl_flush(x);
	gang_apply(x, &gd);
	gang_decisions_release(&gd);
	evict_failed(x, "BindFailed");
}

/* Whether a bind deadline no longer applies. */
static bool stale(const struct ctl *x, const struct ctl_bind_dl *d)
{
	const struct ctl_wl *w = &x->wl[d->wl];

	/* released since, all bound since, or bound and binding again
	 * (a replacement) under a later deadline */
	return w->bind_epoch != d->epoch || !w->binding ||
	       w->bind_deadline_us != d->at_us;
}

/* Drop the deadlines behind the head once they are half the queue: a
 * busy daemon always has binds in flight, and must not keep them all. */
static void compact_deadlines(struct ctl *x)
{
	size_t live = x->dl.len - x->dl_head;

	if (!x->dl_head || (x->dl_head < live && x->dl_head < 64))
		return;
	if (live)
		memmove(x->dl.items, x->dl.items + x->dl_head,
			live * sizeof(*x->dl.items));
	x->dl.len = live;
	x->dl_head = 0;
}

/* Gangs still partly bound when their bind timeout came: evicted. */
static void bind_timeouts(struct ctl *x)
{
	while (x->dl_head < x->dl.len &&
	       x->dl.items[x->dl_head].at_us <= x->now_us) {
		struct ctl_bind_dl d = x->dl.items[x->dl_head++];
		if (!stale(x, &d))
			vec_push(&x->failed, d.wl);
	}
	compact_deadlines(x);
	evict_failed(x, "BindTimeout");
}

void ctl_tick(struct ctl *x, int64_t now_us)
{
	struct gang_decisions gd;

	ctl_grow(x);
	ctl_set_now(x, now_us);
	gang_decisions_init(&gd);
	gang_tick(x->g, now_us, &gd);
	ctl_flush(x);
	gang_apply(x, &gd);
	gang_decisions_release(&gd);
	bind_timeouts(x);
	if (sched_next_requeue_us(x->s) <= now_us)
		x->dirty = true;
}

/* Admission: bind the gang, or wait for a PodGroup's quorum. */
static void admitted(struct ctl *x, uint32_t wl)
{
	const struct sched_admission *adm = sched_wl_admission(x->s, wl);
	struct ctl_event e = { .kind = CTL_EV_ADMITTED, .wl = wl };
	int32_t n = 0;

	BUG_ON(!adm);
	x->stats.admissions++;
	x->wl[wl].bound_said = x->wl[wl].ready_said = false;
	ctl_emit(x, &e);
	ctl_pods_of(x, wl);
	gang_admitted(x->g, wl, x->now_us);
	ctl_flush(x);
	if (gang_state(x->g, wl) != GANG_WAITING || !x->wl[wl].pods_exist)
		return;
	for (size_t i = 0; i < adm->npodsets; i++)
		n += adm->ps[i].count;
	for (int32_t p = 0; p < n; p++) /* a PodGroup: count its pods */
		gang_pod_created(x->g, wl, (uint32_t)p, x->now_us);
	ctl_flush(x);
}

static void preempted(struct ctl *x, const struct sched_decision *d)
{
	struct ctl_event e = { .kind = CTL_EV_PREEMPTED,
			       .wl = d->wl,
			       .by = d->by,
			       .why = d->reason,
			       .cq = d->cq };

	gang_evicted(x->g, d->wl, x->now_us);
	ctl_flush(x);
	ctl_emit(x, &e);
}

static void cycles(struct ctl *x)
{
	struct sched_decisions d;
	unsigned guard = 0;

	sched_decisions_init(&d);
	while (x->dirty && !gang_blocks_admission(x->g)) {
		bool again = false;

		x->dirty = false;
		d.items.len = 0;
		sched_cycle(x->s, x->now_us, &d);
		x->stats.cycles++;
		x->generation++;
		vec_foreach (&d.items, it) {
			if (it->kind != SCHED_DECIDE_PREEMPT) {
				x->stats.cycles_admitted++;
				break;
			}
		}
		vec_foreach (&d.items, it) {
			if (it->kind == SCHED_DECIDE_PREEMPT) {
				preempted(x, it);
				again = true; /* victims queue next cycle */
			} else {
				admitted(x, it->wl);
				/* more may fit once it is ready */
				again |= x->one_per_cycle;
			}
		}
		x->dirty |= again;
		evict_failed(x, "BindFailed");
		BUG_ON(++guard > 1000000);
	}
	sched_decisions_release(&d);
}

void ctl_run(struct ctl *x, int64_t now_us)
{
	ctl_tick(x, now_us);
	cycles(x);
}

int64_t ctl_next_wakeup_us(struct ctl *x, int64_t now_us)
{
	int64_t next = gang_next_deadline_us(x->g);
	int64_t rq = sched_next_requeue_us(x->s);

	/* Requeues due while blockAdmission holds the cycles wait for the
	 * pod events that release it. */
	if (rq <= now_us && gang_blocks_admission(x->g))
		rq = INT64_MAX;
	if (rq < next)
		next = rq;
	while (x->dl_head < x->dl.len && stale(x, &x->dl.items[x->dl_head]))
		x->dl_head++; /* its gang was released or bound since */
	compact_deadlines(x);
	if (x->dl_head < x->dl.len && x->dl.items[x->dl_head].at_us < next)
		next = x->dl.items[x->dl_head].at_us;
	if (x->dirty && !gang_blocks_admission(x->g) && now_us < next)
		next = now_us;
	if (next < now_us)
		next = now_us;
	return next;
}

int ctl_reconfigure(struct ctl *x, int (*change)(void *ctx, struct cluster *c),
		    void *ctx, int64_t now_us)
{
	struct ctl_snapshot *sn;
	int rc, lost;

	ctl_set_now(x, now_us);
	x->stats.reconfigures++;
	x->generation++;
	sn = ctl_snapshot(x);
	gang_free(x->g);
	sched_free(x->s);
	reset_binds(x);
	rc = change(ctx, x->c);
	x->s = sched_new(x->c, &x->opt.sched);
	x->g = gang_new(x->c, x->s, &x->opt.gang, &gang_ops, x);
	ctl_track(x);
	if (x->nnodes) /* node_down is NULL before the first node */
		memset(x->node_down, 0, x->nnodes);
	ctl_grow(x);
	lost = ctl_restore(x, sn);
	BUG_ON(lost < 0);
	/* What did not fit may fit now: Kueue requeues the inadmissible
	 * workloads when a queue, flavor or node changes. */
	for (size_t cq = 0; cq < x->c->cluster_queues.len; cq++)
		sched_cq_set_dirty(x->s, (int32_t)cq);
	ctl_snapshot_free(sn);
	return rc < 0 ? rc : lost;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The gang lifecycle: one small state machine per workload (IDLE ->
 * WAITING -> BOUND -> READY <-> RECOVERING, back to IDLE on eviction,
 * release or finish), with two deadlines each: the PodGroup's schedule
 * timeout (while WAITING) and the waitForPodsReady timeout (from admission
 * while not yet Ready, from the failure while RECOVERING). Node failures
 * re-plan the lost pods with place_replace() on the scheduler's index.
 * Timeouts are found by a walk in workload order, which keeps every
 * decision in a fixed order.
 */
#include "gang/gang.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/rng.h"
#include "gang/backoff.h"
#include "place/place_replace.h"

#include "base/banned.h"

#define NONE_US		  INT64_MAX
#define DEFAULT_PERMIT_US (60LL * 1000000)
#define NO_NODE		  UINT32_MAX

/* What a workload needs once it is admitted: most of a queue's never are,
 * so this is allocated at the first admission or pod event. */
struct gang_run {
	uint32_t off[WORKLOAD_MAX_PODSETS];	  /* first pod of a pod set */
	int32_t adm_count[WORKLOAD_MAX_PODSETS];  /* admitted pods */
	int32_t tas_flavor[WORKLOAD_MAX_PODSETS]; /* -1: no placement */
	int64_t ckpt_base_us; /* last became READY: checkpoints count from it */
	int64_t lost_pod_us, lost_gpu_us;
	struct gang_pod pods[]; /* [npods], spec counts */
};

struct gang_wl {
	enum gang_state state;
	const struct pod_group *pg;
	struct gang_run *run; /* NULL until used */
	uint32_t npods;
	/* Pods with each flag, and admitted pods Ready or Succeeded: kept
	 * as flags change (set_flags()), so that a pod event costs O(1). */
	uint32_t ncreated, nready, nsucceeded, nfailed, nadm_up;
	uint32_t admitted; /* pods in the admission */
	bool bound;
	int64_t permit_deadline_us;
	int64_t ready_deadline_us;
	int64_t requeues;
	struct podgroup_status pgs;
};

struct gang_dl {
	int64_t at;
	uint32_t wl;
};

struct gang {
	const struct cluster *c;
	const struct sched *s;
	struct gang_options opt;
	const struct wait_for_pods_ready *wfpr;
	const struct gang_ops *ops;
	void *ctx;
	int gpu; /* resource id, -1 when no such resource */
	struct rng rng;
	struct gang_wl *wl; /* [nwl] */
	size_t nwl;
	size_t nstarting; /* WAITING or BOUND: they block admission */
	struct place_result res;
	/* Deadlines as they were set, earliest first; an entry whose
	 * workload has another deadline now is stale and skipped. */
	VEC(struct gang_dl) dl;
	struct dirty *dirty; /* gang_track(); NULL: not tracked */
};

void gang_decisions_init(struct gang_decisions *d)
{
	memset(d, 0, sizeof(*d));
}

void gang_decisions_release(struct gang_decisions *d)
{
	vec_release(&d->items);
}

const char *gang_state_name(enum gang_state st)
{
	static const char *const names[] = { "Idle", "Waiting", "Bound",
					     "Ready", "Recovering" };

	BUG_ON((size_t)st >= ARRAY_SIZE(names));
	return names[st];
}

const char *gang_decision_kind_name(enum gang_decision_kind k)
{
	static const char *const names[] = { "Evict", "Deactivate", "Release",
					     "Replaced" };

	BUG_ON((size_t)k >= ARRAY_SIZE(names));
	return names[k];
}

static void init_wl(struct gang *g, uint32_t i)
{
	const struct workload *w = &g->c->workloads.items[i];
	struct gang_wl *x = &g->wl[i];

	memset(x, 0, sizeof(*x));
	x->pg = cluster_find(g->c, KIND_POD_GROUP, w->ns, w->name);
	x->permit_deadline_us = NONE_US;
	x->ready_deadline_us = NONE_US;
	x->pgs.creation_us = w->creation_us;
}

struct gang *gang_new(const struct cluster *c, const struct sched *s,
		      const struct gang_options *opt,
		      const struct gang_ops *ops, void *ctx)
{
	struct gang *g = xcalloc(1, sizeof(*g));

	g->c = c;
	g->s = s;
	if (opt)
		g->opt = *opt;
	if (g->opt.permit_wait_us <= 0)
		g->opt.permit_wait_us = DEFAULT_PERMIT_US;
	if (!g->opt.gpu_resource)
		g->opt.gpu_resource = "nvidia.com/gpu";
	g->wfpr = &cluster_config(c)->wait_for_pods_ready;
	g->ops = ops;
	g->ctx = ctx;
	g->gpu = resource_lookup(c->resources, g->opt.gpu_resource);
	rng_seed(&g->rng, g->opt.seed);
	g->nwl = c->workloads.len;
	g->wl = xcalloc(g->nwl ? g->nwl : 1, sizeof(*g->wl));
	for (size_t i = 0; i < g->nwl; i++) {
		if (workload_live(&c->workloads.items[i]))
			init_wl(g, (uint32_t)i);
	}
	place_result_init(&g->res);
	return g;
}

void gang_track(struct gang *g, struct dirty *d)
{
	g->dirty = d;
}

/* wl's state changed (gang_track()). */
static void touch(struct gang *g, uint32_t wl)
{
	if (g->dirty)
		dirty_mark(g->dirty, wl);
}

void gang_wl_add(struct gang *g, uint32_t wl)
{
	size_t n = g->c->workloads.len;

	BUG_ON(wl >= n || !workload_live(&g->c->workloads.items[wl]));
	if (n > g->nwl) {
		g->wl = xreallocarray(g->wl, n, sizeof(*g->wl));
		memset(g->wl + g->nwl, 0, (n - g->nwl) * sizeof(*g->wl));
		g->nwl = n;
	}
	BUG_ON(g->wl[wl].run); /* the slot is free */
	init_wl(g, wl);
	touch(g, wl);
}

void gang_wl_remove(struct gang *g, uint32_t wl)
{
	struct gang_wl *x;

	BUG_ON(wl >= g->nwl);
	x = &g->wl[wl];
	touch(g, wl);
	if (x->state == GANG_WAITING || x->state == GANG_BOUND)
		g->nstarting--;
	free(x->run);
	memset(x, 0, sizeof(*x));
	x->permit_deadline_us = NONE_US;
	x->ready_deadline_us = NONE_US;
}

void gang_free(struct gang *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nwl; i++)
		free(g->wl[i].run);
	free(g->wl);
	vec_release(&g->dl);
	place_result_release(&g->res);
	free(g);
}

void gang_set_pod_group(struct gang *g, uint32_t wl, const struct pod_group *pg)
{
	BUG_ON(wl >= g->nwl);
	g->wl[wl].pg = pg;
	touch(g, wl);
}

/* The state of wl, its pod array allocated on first use; only to change
 * it (marks wl). */
static struct gang_wl *get(struct gang *g, uint32_t wl)
{
	const struct workload *w;
	struct gang_wl *x;
	uint32_t n = 0;

	BUG_ON(wl >= g->nwl);
	touch(g, wl);
	x = &g->wl[wl];
	if (x->run)
		return x;
	w = &g->c->workloads.items[wl];
	for (size_t i = 0; i < w->npodsets; i++)
		n += (uint32_t)w->podsets[i].count;
	x->npods = n;
	/* at most WORKLOAD_MAX_PODSETS counts of int32_t: no overflow */
	x->run = xcalloc(1, sizeof(*x->run) + n * sizeof(*x->run->pods));
	n = 0;
	for (size_t i = 0; i < w->npodsets; i++) {
		x->run->off[i] = n;
		n += (uint32_t)w->podsets[i].count;
	}
	for (uint32_t p = 0; p < n; p++)
		x->run->pods[p].node = NO_NODE;
	return x;
}

static bool dl_less(const struct gang_dl *a, const struct gang_dl *b)
{
	return a->at < b->at || (a->at == b->at && a->wl < b->wl);
}

/* Remember that wl has a deadline at at (a binary min-heap). */
static void dl_push(struct gang *g, uint32_t wl, int64_t at)
{
	size_t i = g->dl.len;

	vec_push(&g->dl, ((struct gang_dl){ at, wl }));
	while (i > 0 && dl_less(&g->dl.items[i], &g->dl.items[(i - 1) / 2])) {
		struct gang_dl t = g->dl.items[i];

		g->dl.items[i] = g->dl.items[(i - 1) / 2];
		g->dl.items[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void dl_pop(struct gang *g)
{
	size_t i = 0, n = --g->dl.len;

	g->dl.items[0] = g->dl.items[n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct gang_dl t;

		if (l < n && dl_less(&g->dl.items[l], &g->dl.items[m]))
			m = l;
		if (l + 1 < n && dl_less(&g->dl.items[l + 1], &g->dl.items[m]))
			m = l + 1;
		if (m == i)
			break;
		t = g->dl.items[i];
		g->dl.items[i] = g->dl.items[m];
		g->dl.items[m] = t;
		i = m;
	}
}

/* Whether the entry is wl's deadline now. */
static bool dl_live(const struct gang *g, const struct gang_dl *d)
{
	const struct gang_wl *x = &g->wl[d->wl];

	return x->state != GANG_IDLE && (x->ready_deadline_us == d->at ||
					 x->permit_deadline_us == d->at);
}

/* Drop stale entries from the top. */
static void dl_clean(struct gang *g)
{
	while (g->dl.len && !dl_live(g, &g->dl.items[0]))
		dl_pop(g);
}

/* The state of wl, pod checked to be one of its pods. */
static struct gang_wl *pod_of(struct gang *g, uint32_t wl, uint32_t pod)
{
	struct gang_wl *x = get(g, wl);

	BUG_ON(pod >= x->npods);
	return x;
}

/* Whether pod is inside the admitted count of its pod set. */
static bool admitted_pod(const struct gang_wl *x, uint32_t pod)
{
	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS; ps++) {
		if (pod >= x->run->off[ps] &&
		    pod < x->run->off[ps] + (uint32_t)x->run->adm_count[ps])
			return true;
	}
	return false;
}

static bool starting(enum gang_state st)
{
	return st == GANG_WAITING || st == GANG_BOUND;
}

static void set_state(struct gang *g, struct gang_wl *x, enum gang_state st)
{
	if (starting(x->state))
		g->nstarting--;
	if (starting(st))
		g->nstarting++;
	x->state = st;
}

/* Add (sign 1) or take away (sign -1) pod p's flags f from the counts. */
static void count_pod(struct gang_wl *x, uint32_t p, uint8_t f, int sign)
{
	uint32_t d = (uint32_t)sign;

	x->ncreated += (f & GANG_POD_CREATED) ? d : 0;
	x->nready += (f & GANG_POD_READY) ? d : 0;
	x->nsucceeded += (f & GANG_POD_SUCCEEDED) ? d : 0;
	x->nfailed += (f & GANG_POD_FAILED) ? d : 0;
	if ((f & (GANG_POD_READY | GANG_POD_SUCCEEDED)) && admitted_pod(x, p))
		x->nadm_up += d;
}

/* Every flag change goes through here (or recount()). */
static void set_flags(struct gang_wl *x, uint32_t p, uint8_t f)
{
	count_pod(x, p, x->run->pods[p].flags, -1);
	x->run->pods[p].flags = f;
	count_pod(x, p, f, 1);
}

/* The counts from scratch, after the flags or the admitted counts
 * changed wholesale (an admission, a reset, an import): O(pods), once
 * per such change. */
static void recount(struct gang_wl *x)
{
	x->ncreated = x->nready = x->nsucceeded = x->nfailed = 0;
	x->nadm_up = 0;
	for (uint32_t p = 0; p < x->npods; p++)
		count_pod(x, p, x->run->pods[p].flags, 1);
}

static bool all_ready(const struct gang_wl *x)
{
	return x->bound && x->nadm_up >= x->admitted;
}

/* Recompute the PodGroup status; one reconcile per call, up to a fixed
 * point, as the controller would after a burst of pod events. */
static void reconcile(struct gang_wl *x)
{
	struct podgroup_pods pods = { .pods = (int32_t)x->ncreated,
				      .running = (int32_t)x->nready,
				      .succeeded = (int32_t)x->nsucceeded,
				      .failed = (int32_t)x->nfailed };
	int32_t min = x->pg ? x->pg->min_member : (int32_t)x->npods;

	if (x->admitted && !x->pg)
		min = (int32_t)x->admitted;
	for (int i = 0; i < PODGROUP_PHASE_COUNT; i++) {
		if (!podgroup_reconcile(&x->pgs, min, &pods))
			break;
	}
}

/* The pod's node name, or NULL without a placement. */
static const char *node_name(const struct gang *g, const struct gang_wl *x,
			     size_t ps, uint32_t pod)
{
	const struct topo *t;

	if (x->run->tas_flavor[ps] < 0 || x->run->pods[pod].node == NO_NODE)
		return NULL;
	t = sched_topo(g->s, x->run->tas_flavor[ps]);
	BUG_ON(!t || x->run->pods[pod].node >= t->nnodes);
	return t->node_src[x->run->pods[pod].node]->name;
}

/* Bind every admitted pod, all in one go: never some of them. */
static void bind_all(struct gang *g, uint32_t wl, struct gang_wl *x)
{
	uint32_t n = 0;

	BUG_ON(x->bound);
	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS; ps++) {
		for (int32_t k = 0; k < x->run->adm_count[ps]; k++) {
			uint32_t p = x->run->off[ps] + (uint32_t)k;

			g->ops->bind(g->ctx, wl, p, node_name(g, x, ps, p));
			n++;
		}
	}
	BUG_ON(n != x->admitted);
	x->bound = true;
	x->permit_deadline_us = NONE_US;
	set_state(g, x, GANG_BOUND);
}

static int64_t permit_timeout_us(const struct gang *g,
				 const struct pod_group *pg)
{
	if (pg && pg->schedule_timeout_s > 0)
		return pg->schedule_timeout_s * 1000000LL;
	return g->opt.permit_wait_us;
}

static bool quorum(const struct gang_wl *x)
{
	return !x->pg || (int64_t)x->ncreated >= x->pg->min_member;
}

/* Copy the admission's counts and nodes. */
static void take_admission(struct gang *g, uint32_t wl, struct gang_wl *x)
{
	const struct sched_admission *adm = sched_wl_admission(g->s, wl);

	BUG_ON(!adm);
	x->admitted = 0;
	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS; ps++) {
		const struct sched_podset_admission *pa = &adm->ps[ps];

		x->run->adm_count[ps] = 0;
		x->run->tas_flavor[ps] = -1;
		if (ps >= adm->npodsets)
			continue;
		BUG_ON(pa->count < 0 ||
		       x->run->off[ps] + (uint32_t)pa->count > x->npods);
		x->run->adm_count[ps] = pa->count;
		x->run->tas_flavor[ps] = pa->nodes ? pa->tas_flavor : -1;
		x->admitted += (uint32_t)pa->count;
		for (int32_t k = 0; k < pa->count; k++)
			x->run->pods[x->run->off[ps] + (uint32_t)k].node =
				pa->nodes ? pa->nodes[k] : NO_NODE;
	}
	recount(x); /* the admitted pods changed */
}

void gang_admitted(struct gang *g, uint32_t wl, int64_t now_us)
{
	struct gang_wl *x = get(g, wl);

	BUG_ON(x->state != GANG_IDLE);
	take_admission(g, wl, x);
	if (podgroup_phase_terminal(x->pgs.phase))
		x->pgs = (struct podgroup_status){
			.creation_us = g->c->workloads.items[wl].creation_us
		};
	x->bound = false;
	x->ready_deadline_us = NONE_US;
	if (g->wfpr->enable)
		x->ready_deadline_us = now_us + g->wfpr->timeout_us;
	if (x->ready_deadline_us != NONE_US)
		dl_push(g, wl, x->ready_deadline_us);
	if (quorum(x)) {
		bind_all(g, wl, x);
	} else {
		x->permit_deadline_us = now_us + permit_timeout_us(g, x->pg);
		dl_push(g, wl, x->permit_deadline_us);
		set_state(g, x, GANG_WAITING);
	}
	reconcile(x);
}

/* A pod that is not all Ready any more under a gang that was. */
static void start_recovery(struct gang *g, struct gang_wl *x, int64_t now_us)
{
	if (x->state != GANG_READY)
		return;
	set_state(g, x, GANG_RECOVERING);
	x->ready_deadline_us = NONE_US;
	if (g->wfpr->enable && g->wfpr->recovery_timeout_us > 0)
		x->ready_deadline_us = now_us + g->wfpr->recovery_timeout_us;
	if (x->ready_deadline_us != NONE_US)
		dl_push(g, (uint32_t)(x - g->wl), x->ready_deadline_us);
}

static void check_ready(struct gang *g, struct gang_wl *x, int64_t now_us)
{
	if (x->state != GANG_BOUND && x->state != GANG_RECOVERING)
		return;
	if (!all_ready(x))
		return;
	x->run->ckpt_base_us = now_us;
	x->ready_deadline_us = NONE_US;
	set_state(g, x, GANG_READY);
}

void gang_pod_created(struct gang *g, uint32_t wl, uint32_t pod, int64_t now_us)
{
	struct gang_wl *x = pod_of(g, wl, pod);
	bool was_up =
		x->run->pods[pod].flags & (GANG_POD_READY | GANG_POD_SUCCEEDED);

	set_flags(x, pod, GANG_POD_CREATED);
	if (was_up && admitted_pod(x, pod))
		start_recovery(g, x, now_us);
	if (x->state == GANG_WAITING && quorum(x))
		bind_all(g, wl, x);
	reconcile(x);
}

void gang_pod_ready(struct gang *g, uint32_t wl, uint32_t pod, int64_t now_us)
{
	struct gang_wl *x = pod_of(g, wl, pod);

	set_flags(x, pod, GANG_POD_CREATED | GANG_POD_READY);
	check_ready(g, x, now_us);
	reconcile(x);
}

void gang_pod_failed(struct gang *g, uint32_t wl, uint32_t pod, int64_t now_us)
{
	struct gang_wl *x = pod_of(g, wl, pod);

	set_flags(x, pod, GANG_POD_CREATED | GANG_POD_FAILED);
	if (admitted_pod(x, pod))
		start_recovery(g, x, now_us);
	reconcile(x);
}

void gang_pod_succeeded(struct gang *g, uint32_t wl, uint32_t pod,
			int64_t now_us)
{
	struct gang_wl *x = pod_of(g, wl, pod);

	set_flags(x, pod, GANG_POD_CREATED | GANG_POD_SUCCEEDED);
	check_ready(g, x, now_us);
	reconcile(x);
}

/* Back to IDLE; keep_pods leaves the pods as they are (they still exist,
 * only unbound), else they are gone. Requeues are kept. */
static void reset(struct gang *g, struct gang_wl *x, bool keep_pods)
{
	set_state(g, x, GANG_IDLE);
	x->bound = false;
	x->admitted = 0;
	x->permit_deadline_us = NONE_US;
	x->ready_deadline_us = NONE_US;
	for (uint32_t p = 0; p < x->npods; p++) {
		x->run->pods[p].node = NO_NODE;
		if (keep_pods)
			x->run->pods[p].flags &= GANG_POD_CREATED;
		else
			x->run->pods[p].flags = 0;
	}
	for (size_t ps = 0; x->run && ps < WORKLOAD_MAX_PODSETS; ps++)
		x->run->adm_count[ps] = 0;
	recount(x);
	reconcile(x);
}

static void push(struct gang_decisions *out, struct gang_decision d)
{
	if (out)
		vec_push(&out->items, d);
}

/* The PodsReady timeout: requeue with backoff, or deactivate. */
static void pods_ready_timeout(struct gang *g, uint32_t wl, int64_t now_us,
			       struct gang_decisions *out)
{
	struct gang_wl *x = &g->wl[wl];
	struct gang_decision d = { .wl = wl, .requeue_at_us = NONE_US };
	int64_t delay_us = 0;
	enum backoff_action a;

	touch(g, wl);
	d.cause = x->state == GANG_RECOVERING ? "WaitForRecovery"
					      : "WaitForStart";
	a = backoff_next(&g->wfpr->requeuing, x->requeues,
			 g->opt.jitter ? &g->rng : NULL, &delay_us);
	if (a == BACKOFF_REQUEUE) {
		x->requeues++;
		d.kind = GANG_EVICT;
		d.reason = "PodsReadyTimeout";
		d.requeue_at_us = now_us + delay_us;
	} else {
		d.kind = GANG_DEACTIVATE;
		d.reason = "Deactivated";
		d.cause = "RequeuingLimitExceeded";
	}
	d.requeues = x->requeues;
	g->ops->release(g->ctx, wl);
	reset(g, x, false);
	push(out, d);
}

/* The schedule timeout of a PodGroup that never reached its quorum. */
static void permit_timeout(struct gang *g, uint32_t wl, int64_t now_us,
			   struct gang_decisions *out)
{
	struct gang_wl *x = &g->wl[wl];
	struct gang_decision d = { .kind = GANG_RELEASE,
				   .wl = wl,
				   .reason = "PodGroupTimeout",
				   .requeue_at_us = now_us };

	touch(g, wl);
	g->ops->release(g->ctx, wl);
	reset(g, x, true);
	d.requeues = x->requeues;
	push(out, d);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

size_t gang_tick(struct gang *g, int64_t now_us, struct gang_decisions *out)
{
	size_t before = out ? out->items.len : 0, n = 0;
	uint32_t *due;

	/* The workloads with a deadline due, in workload order. */
	dl_clean(g);
	due = xcalloc(g->dl.len + 1, sizeof(*due));
	while (g->dl.len && g->dl.items[0].at <= now_us) {
		if (dl_live(g, &g->dl.items[0]))
			due[n++] = g->dl.items[0].wl;
		dl_pop(g);
	}
	qsort(due, n, sizeof(*due), u32_cmp);
	for (size_t i = 0; i < n; i++) {
		uint32_t wl = due[i];
		struct gang_wl *x = &g->wl[wl];

		if ((i && due[i - 1] == wl) || x->state == GANG_IDLE)
			continue;
		if (x->ready_deadline_us <= now_us &&
		    x->ready_deadline_us <= x->permit_deadline_us)
			pods_ready_timeout(g, wl, now_us, out);
		else if (x->permit_deadline_us <= now_us)
			permit_timeout(g, wl, now_us, out);
	}
	free(due);
	return out ? out->items.len - before : 0;
}

int64_t gang_next_deadline_us(struct gang *g)
{
	dl_clean(g);
	return g->dl.len ? g->dl.items[0].at : NONE_US;
}

void gang_evicted(struct gang *g, uint32_t wl, int64_t now_us)
{
	struct gang_wl *x = get(g, wl);

	(void)now_us;
	if (x->state == GANG_IDLE)
		return;
	g->ops->release(g->ctx, wl);
	reset(g, x, false);
}

void gang_finished(struct gang *g, uint32_t wl, int64_t now_us)
{
	struct gang_wl *x = get(g, wl);

	(void)now_us;
	reset(g, x, false);
	x->requeues = 0;
}

enum gang_state gang_state(const struct gang *g, uint32_t wl)
{
	BUG_ON(wl >= g->nwl);
	return g->wl[wl].state;
}

enum podgroup_phase gang_phase(const struct gang *g, uint32_t wl)
{
	BUG_ON(wl >= g->nwl);
	return g->wl[wl].pgs.phase;
}

bool gang_blocks_admission(const struct gang *g)
{
	return g->wfpr->enable && g->wfpr->block_admission && g->nstarting;
}

const char *gang_pod_node(const struct gang *g, uint32_t wl, uint32_t pod)
{
	const struct gang_wl *x;

	BUG_ON(wl >= g->nwl);
	x = &g->wl[wl];
	if (!x->run || !x->admitted)
		return NULL;
	BUG_ON(pod >= x->npods);
	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS; ps++) {
		if (pod >= x->run->off[ps] &&
		    pod < x->run->off[ps] + (uint32_t)x->run->adm_count[ps])
			return node_name(g, x, ps, pod);
	}
	return NULL; /* outside the admitted counts */
}

int64_t gang_requeues(const struct gang *g, uint32_t wl)
{
	BUG_ON(wl >= g->nwl);
	return g->wl[wl].requeues;
}

void gang_lost_work(const struct gang *g, uint32_t wl, int64_t *ret_pod_us,
		    int64_t *ret_gpu_us)
{
	const struct gang_run *run;

	BUG_ON(wl >= g->nwl);
	run = g->wl[wl].run;
	*ret_pod_us = run ? run->lost_pod_us : 0;
	*ret_gpu_us = run ? run->lost_gpu_us : 0;
}

/*
 * Node failures. A synchronous data-parallel gang rolls back to its last
 * checkpoint as a whole when one pod is lost, so the loss is the time
 * since that checkpoint times every pod (and every GPU) of the gang.
 */
static void count_lost(struct gang *g, uint32_t wl, struct gang_wl *x,
		       int64_t now_us)
{
	const struct workload *w = &g->c->workloads.items[wl];
	int64_t iv = g->opt.checkpoint_interval_us;
	int64_t since, gpus = 0;

	if (x->state != GANG_READY || now_us <= x->run->ckpt_base_us)
		return;
	since = now_us - x->run->ckpt_base_us;
	if (iv > 0)
		since %= iv;
	for (size_t ps = 0; ps < w->npodsets; ps++) {
		if (g->gpu >= 0)
			gpus += w->podsets[ps].requests.v[g->gpu] *
				x->run->adm_count[ps];
	}
	x->run->lost_pod_us += since * (int64_t)x->admitted;
	x->run->lost_gpu_us += since * gpus;
}

/* Pods of pod set ps on node n. */
static int32_t pods_on(const struct gang_wl *x, size_t ps, uint32_t n)
{
	int32_t k = 0;

	for (int32_t i = 0; i < x->run->adm_count[ps]; i++)
		k += x->run->pods[x->run->off[ps] + (uint32_t)i].node == n;
	return k;
}

static int node_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The current assignment of pod set ps in Kueue's hostname-only form, one
 * domain per node in index order. nodes is scratch of adm_count entries;
 * dom and vals of as many; level holds the one level name.
 */
static void build_assignment(const struct topo *t, const struct gang_wl *x,
			     size_t ps, uint32_t *nodes,
			     struct topology_domain *dom, const char **vals,
			     const char **level, struct topology_assignment *ta)
{
	int32_t n = x->run->adm_count[ps];

	for (int32_t i = 0; i < n; i++)
		nodes[i] = x->run->pods[x->run->off[ps] + (uint32_t)i].node;
	qsort(nodes, (size_t)n, sizeof(*nodes), node_cmp);
	*level = t->topology->levels[t->nlevels - 1];
	ta->levels = level;
	ta->nlevels = 1;
	ta->domains = dom;
	ta->ndomains = 0;
	for (int32_t i = 0; i < n; i++) {
		if (i && nodes[i] == nodes[i - 1]) {
			dom[ta->ndomains - 1].count++;
			continue;
		}
		vals[ta->ndomains] = t->node_src[nodes[i]]->name;
		dom[ta->ndomains].values = &vals[ta->ndomains];
		dom[ta->ndomains].count = 1;
		ta->ndomains++;
	}
}

/*
 * The replacement of pod set ps of wl for failed node n: new[] gets the
 * new node of each lost pod, in pod order. False when there is none.
 */
static bool replace_podset(struct gang *g, uint32_t wl, struct gang_wl *x,
			   size_t ps, uint32_t n, uint32_t *repl)
{
	const struct workload *w = &g->c->workloads.items[wl];
	const struct topo *t = sched_topo(g->s, x->run->tas_flavor[ps]);
	const struct flavor *fl = &g->c->flavors.items[x->run->tas_flavor[ps]];
	size_t cnt = (size_t)x->run->adm_count[ps];
	uint32_t *nodes = xcalloc(cnt, sizeof(*nodes));
	struct topology_domain *dom = xcalloc(cnt, sizeof(*dom));
	const char **vals = xcalloc(cnt, sizeof(*vals));
	struct topology_assignment ta;
	const char *level;
	struct place_replace_request rr = { 0 };
	size_t got = 0, k = 0;
	bool ok = false;

	if (!t->hostname_lowest)
		goto out;
	build_assignment(t, x, ps, nodes, dom, vals, &level, &ta);
	rr.podset = &w->podsets[ps];
	rr.current = &ta;
	rr.failed_node = t->node_src[n]->name;
	rr.flavor_tolerations = fl->tolerations;
	rr.nflavor_tolerations = fl->ntolerations;
	rr.config = &cluster_config(g->c)->placement;
	if (!place_replace(t, &rr, &g->res))
		goto out;
	/* nodes[] is the old assignment sorted; the merged one minus it is
	 * where the lost pods go, in node order. */
	for (size_t i = 0; i < g->res.workers.len; i++) {
		const struct place_assign *a = &g->res.workers.items[i];
		uint32_t node = t->dom_node[a->unit];
		int32_t extra = a->count;

		while (k < cnt && nodes[k] < node)
			k++;
		while (k < cnt && nodes[k] == node) {
			extra--;
			k++;
		}
		for (; extra > 0; extra--)
			repl[got++] = node;
	}
	ok = got == (size_t)pods_on(x, ps, n);
out:
	free(nodes);
	free(dom);
	free(vals);
	return ok;
}

static void evict_node_failure(struct gang *g, uint32_t wl, struct gang_wl *x,
			       int64_t now_us, struct gang_decisions *out)
{
	struct gang_decision d = { .kind = GANG_EVICT,
				   .wl = wl,
				   .reason = "NodeFailures",
				   .requeue_at_us = now_us };

	count_lost(g, wl, x, now_us);
	g->ops->release(g->ctx, wl);
	reset(g, x, false);
	d.requeues = x->requeues;
	push(out, d);
}

/* Move the lost pods of pod set ps to repl[] and bind them there. */
static uint32_t rebind(struct gang *g, uint32_t wl, struct gang_wl *x,
		       size_t ps, uint32_t n, const uint32_t *repl)
{
	uint32_t moved = 0;

	for (int32_t i = 0; i < x->run->adm_count[ps]; i++) {
		uint32_t p = x->run->off[ps] + (uint32_t)i;

		if (x->run->pods[p].node != n)
			continue;
		x->run->pods[p].node = repl[moved++];
		set_flags(x, p, 0);
		g->ops->bind(g->ctx, wl, p, node_name(g, x, ps, p));
	}
	return moved;
}

/* The node index of name in each pod set's flavor (NO_NODE: none). */
static bool affected(const struct gang *g, const struct gang_wl *x,
		     const char *name, uint32_t *n)
{
	bool any = false;

	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS; ps++) {
		const struct topo *t;
		int64_t i;

		n[ps] = NO_NODE;
		if (x->run->tas_flavor[ps] < 0 || !x->run->adm_count[ps])
			continue;
		t = sched_topo(g->s, x->run->tas_flavor[ps]);
		i = topo_find_node(t, name);
		if (i < 0 || !pods_on(x, ps, (uint32_t)i))
			continue;
		n[ps] = (uint32_t)i;
		any = true;
	}
	return any;
}

/* Replace every pod set of wl on the failed node, or none of them. */
static void node_failed_wl(struct gang *g, uint32_t wl, const char *name,
			   int64_t now_us, struct gang_decisions *out)
{
	struct gang_wl *x = &g->wl[wl];
	uint32_t n[WORKLOAD_MAX_PODSETS];
	uint32_t *repl[WORKLOAD_MAX_PODSETS] = { 0 };
	struct gang_decision d = { .kind = GANG_REPLACED,
				   .wl = wl,
				   .reason = "NodeReplaced",
				   .requeue_at_us = NONE_US };
	bool ok = true;

	if (!x->bound || !affected(g, x, name, n))
		return;
	touch(g, wl);
	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS && ok; ps++) {
		if (n[ps] == NO_NODE)
			continue;
		repl[ps] = xcalloc((size_t)x->run->adm_count[ps],
				   sizeof(uint32_t));
		ok = replace_podset(g, wl, x, ps, n[ps], repl[ps]);
	}
	if (!ok) {
		evict_node_failure(g, wl, x, now_us, out);
		goto out;
	}
	count_lost(g, wl, x, now_us);
	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS; ps++) {
		if (n[ps] != NO_NODE)
			d.pods += rebind(g, wl, x, ps, n[ps], repl[ps]);
	}
	start_recovery(g, x, now_us);
	reconcile(x);
	d.requeues = x->requeues;
	push(out, d);
out:
	for (size_t ps = 0; ps < WORKLOAD_MAX_PODSETS; ps++)
		free(repl[ps]);
}

static int admit_cmp(const void *a, const void *b, void *ctx)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = sched_wl_admit_seq(ctx, i);
	uint64_t y = sched_wl_admit_seq(ctx, j);

	/* admissions loaded with the input all have 0: then by slot */
	if (x != y)
		return (x > y) - (x < y);
	return (i > j) - (i < j);
}

size_t gang_node_failed(struct gang *g, const char *node, int64_t now_us,
			struct gang_decisions *out)
{
	size_t before = out ? out->items.len : 0;
	VEC(uint32_t) hit = VEC_INIT;

	for (uint32_t wl = 0; wl < g->nwl; wl++) {
		if (g->wl[wl].state != GANG_IDLE)
			vec_push(&hit, wl);
	}
	/* The longest admitted first: an order of the workloads' history,
	 * not of the slots they happen to hold. */
	if (hit.len > 1)
		qsort_r(hit.items, hit.len, sizeof(*hit.items), admit_cmp,
			(void *)g->s);
	vec_foreach (&hit, wl)
		node_failed_wl(g, *wl, node, now_us, out);
	vec_release(&hit);
	return out ? out->items.len - before : 0;
}

void gang_wl_export(const struct gang *g, uint32_t wl, struct gang_saved *out)
{
	const struct gang_wl *x;

	BUG_ON(wl >= g->nwl);
	x = &g->wl[wl];
	memset(out, 0, sizeof(*out));
	out->state = x->state;
	out->npods = x->run ? x->npods : 0;
	out->pods = x->run ? x->run->pods : NULL;
	if (x->run) { /* else none admitted: zeros */
		memcpy(out->adm_count, x->run->adm_count,
		       sizeof(out->adm_count));
		memcpy(out->tas_flavor, x->run->tas_flavor,
		       sizeof(out->tas_flavor));
	}
	out->admitted = x->admitted;
	out->bound = x->bound;
	out->permit_deadline_us = x->permit_deadline_us;
	out->ready_deadline_us = x->ready_deadline_us;
	if (x->run) {
		out->ckpt_base_us = x->run->ckpt_base_us;
		out->lost_pod_us = x->run->lost_pod_us;
		out->lost_gpu_us = x->run->lost_gpu_us;
	}
	out->requeues = x->requeues;
	out->pgs = x->pgs;
}

int gang_wl_import(struct gang *g, uint32_t wl, const struct gang_saved *in)
{
	struct gang_wl *x;

	BUG_ON(wl >= g->nwl);
	x = get(g, wl);
	if (x->state != GANG_IDLE || (in->npods && in->npods != x->npods))
		return -EINVAL;
	if (in->npods)
		memcpy(x->run->pods, in->pods,
		       in->npods * sizeof(*x->run->pods));
	memcpy(x->run->adm_count, in->adm_count, sizeof(x->run->adm_count));
	memcpy(x->run->tas_flavor, in->tas_flavor, sizeof(x->run->tas_flavor));
	x->admitted = in->admitted;
	x->bound = in->bound;
	x->permit_deadline_us = in->permit_deadline_us;
	x->ready_deadline_us = in->ready_deadline_us;
	x->run->ckpt_base_us = in->ckpt_base_us;
	x->requeues = in->requeues;
	x->run->lost_pod_us = in->lost_pod_us;
	x->run->lost_gpu_us = in->lost_gpu_us;
	x->pgs = in->pgs;
	recount(x);
	set_state(g, x, in->state);
	if (x->permit_deadline_us != NONE_US)
		dl_push(g, wl, x->permit_deadline_us);
	if (x->ready_deadline_us != NONE_US)
		dl_push(g, wl, x->ready_deadline_us);
	return 0;
}

void gang_export_rng(const struct gang *g, struct rng *out)
{
	*out = g->rng;
}

void gang_import_rng(struct gang *g, const struct rng *in)
{
	g->rng = *in;
}

void gang_set_requeues(struct gang *g, uint32_t wl, int64_t n)
{
	BUG_ON(wl >= g->nwl || n < 0);
	g->wl[wl].requeues = n;
	touch(g, wl);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Scheduler state and workload lifecycle: building the queues, quota tree
 * and topology indexes from a cluster, the effective priority of each
 * workload, submitting, parking (BestEffortFIFO classes of equal shape),
 * admitting, releasing, preempting, evicting (at once or after a requeue
 * backoff), deactivating and finishing workloads, and the status read
 * back by drivers (conditions, pending reasons, positions). The cycle
 * itself is in sched_cycle.c, the usage of running pods and Jobs in
 * running.c, node failures and pod moves in nodes.c.
 */
#include "sched/sched.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "sched/sched_int.h"

#include "base/banned.h"

static const char *const pend_names[SCHED_PEND_COUNT] = {
	[SCHED_PEND_EVALUATION] = "PendingEvaluation",
	[SCHED_PEND_MISCONFIGURED] = "Misconfigured",
	[SCHED_PEND_DEACTIVATED] = "Deactivated",
	[SCHED_PEND_ON_HOLD] = "OnHold",
	[SCHED_PEND_NO_MATCHING_FLAVOR] = "NoMatchingFlavor",
	[SCHED_PEND_EXCEEDS_MAX_QUOTA] = "ExceedsMaxQuota",
	[SCHED_PEND_WAITING_FOR_QUOTA] = "WaitingForQuota",
	[SCHED_PEND_TOPOLOGY] = "TopologyPlacementFailed",
	[SCHED_PEND_BEHIND] = "WaitingBehindHead",
};

static const char *const preempt_names[SCHED_PREEMPT_REASON_COUNT] = {
	[SCHED_PREEMPT_IN_CLUSTER_QUEUE] = "InClusterQueue",
	[SCHED_PREEMPT_RECLAMATION] = "InCohortReclamation",
	[SCHED_PREEMPT_RECLAIM_WHILE_BORROWING] =
		"InCohortReclaimWhileBorrowing",
	[SCHED_PREEMPT_FAIR_SHARING] = "InCohortFairSharing",
};

/* The scheduler's condition types are the model's first ones. */
_Static_assert(
	(int)SCHED_COND_QUOTA_RESERVED == (int)WORKLOAD_COND_QUOTA_RESERVED &&
		(int)SCHED_COND_ADMITTED == (int)WORKLOAD_COND_ADMITTED &&
		(int)SCHED_COND_EVICTED == (int)WORKLOAD_COND_EVICTED &&
		(int)SCHED_COND_PREEMPTED == (int)WORKLOAD_COND_PREEMPTED &&
		(int)SCHED_COND_REQUEUED == (int)WORKLOAD_COND_REQUEUED &&
		(int)SCHED_COND_FINISHED == (int)WORKLOAD_COND_FINISHED,
	"sched_cond and workload_cond differ");

const char *sched_pend_name(enum sched_pend p)
{
	BUG_ON(p >= SCHED_PEND_COUNT);
	return pend_names[p];
}

const char *sched_preempt_reason_name(enum sched_preempt_reason r)
{
	BUG_ON(r >= SCHED_PREEMPT_REASON_COUNT);
	return preempt_names[r];
}

const char *sched_cond_name(enum sched_cond c)
{
	BUG_ON(c >= SCHED_COND_COUNT);
	return workload_cond_name((enum workload_cond)c);
}

/* The pods of all of w's pod sets. */
static int64_t total_pods(const struct workload *w)
{
	int64_t n = 0;

	for (size_t i = 0; i < w->npodsets; i++)
		n += w->podsets[i].count;
	return n;
}

/*
 * Queue order: priority (higher first), queue timestamp, submission. With
 * backfill, workloads of one priority and timestamp (a batch submitted at
 * once) go longest expected runtime first, then most pods first: Graham's
 * LPT rule, which FIFO leaves open there (docs/internals/backfill.md).
 */
int sched_wl_cmp(const struct sched *s, uint32_t a, uint32_t b)
{
	const struct sched_wl *x = &s->wl[a], *y = &s->wl[b];

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->queue_ts_us != y->queue_ts_us)
		return x->queue_ts_us < y->queue_ts_us ? -1 : 1;
	if (s->opt.backfill) {
		int64_t px, py;

		if (x->order_est_us != y->order_est_us)
			return x->order_est_us > y->order_est_us ? -1 : 1;
		px = total_pods(x->w);
		py = total_pods(y->w);
		if (px != py)
			return px > py ? -1 : 1;
	}
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return a < b ? -1 : (a > b);
}

int sched_name_cmp(const struct sched *s, uint32_t a, uint32_t b)
{
	const struct workload *x = s->wl[a].w, *y = s->wl[b].w;
	int c = strcmp(x->ns ? x->ns : "", y->ns ? y->ns : "");

	if (!c)
		c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	if (c)
		return c < 0 ? -1 : 1;
	return a < b ? -1 : (a > b);
}

static int heap_cmp(uint32_t a, uint32_t b, void *ctx)
{
	return sched_wl_cmp(ctx, a, b);
}

/* Order of the workloads waiting for their requeue: time, then index. */
static int waiting_cmp(uint32_t a, uint32_t b, void *ctx)
{
	const struct sched *s = ctx;
	int64_t x = s->wl[a].requeue_at_us, y = s->wl[b].requeue_at_us;

	if (x != y)
		return x < y ? -1 : 1;
	return a < b ? -1 : (a > b);
}

static char *dup_msg(const char *m)
{
	return m ? xstrdup(m) : NULL;
}

/* Stamps of reasons and schedulers, unique in the process: a key made of
 * them (sched_wl_pending_key()) never repeats for another reason, even
 * after a scheduler is rebuilt or a class is freed and made again. */
static uint64_t stamps;

void sched_why_set(struct sched_why *w, enum sched_pend code, char *msg)
{
	free(w->msg);
	w->code = code;
	w->msg = msg;
	w->stamp = ++stamps;
}

void sched_set_cond(struct sched_wl *wl, enum sched_cond c, bool status,
		    const char *reason, char *msg, int64_t now_us)
{
	struct sched_condition *k;

	if (!wl->conds)
		wl->conds = xcalloc(1, sizeof(*wl->conds));
	k = &wl->conds->cond[c];
	if (!k->present || k->status != status || k->reason != reason ||
	    strcmp(k->message, msg ? msg : "") != 0)
		wl->cond_changes++;
	if (!k->present || k->status != status)
		k->transition_us = now_us;
	k->present = true;
	k->status = status;
	k->reason = reason;
	free(wl->conds->msg[c]);
	wl->conds->msg[c] = msg;
	k->message = msg ? msg : "";
}

const struct sched_condition *sched_cond_of(const struct sched_wl *wl,
					    enum sched_cond c)
{
	static const struct sched_condition none;

	return wl->conds ? &wl->conds->cond[c] : &none;
}

void sched_conds_free(struct sched_wl *wl)
{
	if (!wl->conds)
		return;
	for (int k = 0; k < SCHED_COND_COUNT; k++)
		free(wl->conds->msg[k]);
	free(wl->conds);
	wl->conds = NULL;
}

void sched_track(struct sched *s, struct dirty *d)
{
	s->dirty = d;
}

void sched_touch(struct sched *s, uint32_t id)
{
	if (s->dirty)
		dirty_mark(s->dirty, id);
}

void sched_class_moved(struct sched *s, struct sched_cq *q,
		       struct sched_class *k)
{
	if (!s->dirty || k->moved)
		return;
	k->moved = true;
	vec_push(&s->moved, ((struct sched_class_ref){
				    (int32_t)(q - s->cqs),
				    (uint32_t)(k - q->classes.items) }));
}

void sched_settle_classes(struct sched *s)
{
	vec_foreach (&s->moved, r) {
		struct sched_class *k = &s->cqs[r->cq].classes.items[r->k];
		uint64_t shown = k->parked ? k->why.stamp : 0;

		k->moved = false;
		if (shown == k->shown)
			continue;
		k->shown = shown;
		for (size_t j = 0; j < k->q.len; j++)
			sched_touch(s, k->q.items[j]);
	}
	s->moved.len = 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return mix(h, s ? hmap_hash(s, strlen(s)) : 0x5a5a);
}

static uint64_t podset_hash(uint64_t h, const struct podset *ps, uint32_t id)
{
	h = mix(h, (uint64_t)ps->count);
	h = mix(h, (uint64_t)ps->min_count);
	for (int r = 0; r < RESOURCE_MAX; r++)
		h = mix(h, (uint64_t)ps->requests.v[r]);
	for (size_t i = 0; i < ps->node_selector.len; i++) {
		h = mix_str(h, ps->node_selector.items[i].key);
		h = mix_str(h, ps->node_selector.items[i].value);
	}
	for (size_t i = 0; i < ps->ntolerations; i++) {
		h = mix_str(h, ps->tolerations[i].key);
		h = mix_str(h, ps->tolerations[i].value);
		h = mix(h, (uint64_t)ps->tolerations[i].op * 8 +
				   (uint64_t)(ps->tolerations[i].effect + 1));
	}
	if (ps->affinity.present) /* not compared by content: no class */
		h = mix(h, (uint64_t)id + 0x100000000ULL);
	h = mix(h, (uint64_t)ps->topology.mode);
	h = mix_str(h, ps->topology.level);
	h = mix_str(h, ps->topology.group_name);
	for (size_t i = 0; i < ps->topology.nslices; i++) {
		h = mix_str(h, ps->topology.slices[i].level);
		h = mix(h, (uint64_t)ps->topology.slices[i].size);
	}
	return h;
}

static uint64_t placement_hash(const struct sched_wl *wl, uint32_t id)
{
	uint64_t h = mix(0x243f6a8885a308d3ULL, wl->w->npodsets);

	for (size_t i = 0; i < wl->w->npodsets; i++)
		h = podset_hash(h, &wl->w->podsets[i], id);
	return h;
}

int32_t sched_find_index(const struct cluster *c, enum kind k, const char *ns,
			 const char *name)
{
	const void *p = cluster_find(c, k, ns, name);

	if (!p)
		return -1;
	if (k == KIND_LOCAL_QUEUE)
		return (int32_t)((const struct local_queue *)p -
				 c->local_queues.items);
	return (int32_t)((const struct cluster_queue *)p -
			 c->cluster_queues.items);
}

/* The value of PriorityClass name (declared or built in) into *ret. */
static bool pod_class_value(const struct cluster *c, const char *name,
			    int32_t *ret)
{
	const struct pod_priority_class *pc;

	if (!name)
		return false;
	pc = cluster_find(c, KIND_POD_PRIORITY_CLASS, NULL, name);
	if (pc) {
		*ret = pc->value;
		return true;
	}
	return pod_priority_class_builtin(name, ret);
}

/*
 * The priority of w, first that applies: its WorkloadPriorityClass, its
 * spec.priority, its pods' PriorityClass, the pod template's spec.priority,
 * the global default PriorityClass (dflt, 0 when none). A class that is
 * not defined is skipped (cluster_check_refs() warns about it).
 */
static int32_t wl_priority(const struct cluster *c, const struct workload *w,
			   int32_t dflt)
{
	const struct priority_class *wpc = NULL;
	int32_t v;

	if (w->priority_class_name)
		wpc = cluster_find(c, KIND_PRIORITY_CLASS, NULL,
				   w->priority_class_name);
	if (wpc)
		return wpc->value;
	if (w->has_priority)
		return w->priority;
	if (pod_class_value(c, w->pod_priority_class_name, &v))
		return v;
	if (w->has_pod_priority)
		return w->pod_priority;
	return dflt;
}

/* The global default PriorityClass's value (the lowest of them, as the
 * API server's admission picks it), 0 when none is. */
static int32_t default_priority(const struct cluster *c)
{
	bool found = false;
	int32_t v = 0;

	vec_foreach (&c->pod_priority_classes, pc) {
		if (pc->global_default && (!found || pc->value < v)) {
			v = pc->value;
			found = true;
		}
	}
	return v;
}

static void init_wl(struct sched *s, uint32_t id, int32_t dflt)
{
	struct sched_wl *wl = &s->wl[id];
	const struct workload *w = &s->c->workloads.items[id];

	wl->w = w;
	wl->cq = wl->lq = -1;
	wl->klass = -1;
	wl->priority = wl_priority(s->c, w, dflt);
	if (w->queue_name)
		wl->lq = sched_find_index(s->c, KIND_LOCAL_QUEUE, w->ns,
					  w->queue_name);
	if (wl->lq >= 0)
		wl->cq = sched_find_index(
			s->c, KIND_CLUSTER_QUEUE, NULL,
			s->c->local_queues.items[wl->lq].cluster_queue);
	wl->resmask = 0; /* read again after an update */
	for (size_t i = 0; i < w->npodsets; i++) {
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if (w->podsets[i].requests.v[r] > 0 &&
			    w->podsets[i].count > 0)
				wl->resmask |= 1u << r;
		}
	}
	wl->phash = placement_hash(wl, id);
	wl->hash = mix(wl->phash, (uint64_t)(int64_t)wl->priority);
}

/* Whether cq is active; why not into *why. */
static bool cq_active(struct sched *s, size_t i, const char **why)
{
	const struct cluster_queue *cq = &s->c->cluster_queues.items[i];

	if (cq->stop != STOP_NONE) {
		*why = "is stopped (stopPolicy)";
		return false;
	}
	if (cq->deleting) {
		*why = "is being deleted";
		return false;
	}
	if (s->q.nodes[i].in_cycle) {
		*why = "is in a cohort tree with a cycle";
		return false;
	}
	for (size_t g = 0; g < cq->ngroups; g++) {
		for (size_t f = 0; f < cq->groups[g].nflavors; f++) {
			const char *fn = cq->groups[g].flavors[f].flavor;
			const struct flavor *fl =
				cluster_find(s->c, KIND_FLAVOR, NULL, fn);

			if (!fl) {
				*why = "names a flavor that does not exist";
				return false;
			}
			if (fl->topology_name &&
			    !s->tas[fl - s->c->flavors.items].t) {
				*why = "names a flavor whose topology does "
				       "not exist";
				return false;
			}
		}
	}
	return true;
}

/*
 * Mark the queues whose admitted workloads StopPolicy HoldAndDrain may
 * take: their own, or, when any LocalQueue drains, every queue (a loaded
 * admission may be in a ClusterQueue other than its LocalQueue's).
 */
static void init_drains(struct sched *s)
{
	bool lq_drains = false;

	vec_foreach (&s->c->local_queues, lq)
		lq_drains |= lq->stop == STOP_HOLD_AND_DRAIN;
	for (size_t i = 0; i < s->ncq; i++)
		s->cqs[i].drains =
			lq_drains || s->cqs[i].cq->stop == STOP_HOLD_AND_DRAIN;
}

static void init_cqs(struct sched *s)
{
	size_t nf = s->c->flavors.len;

	s->ncq = s->c->cluster_queues.len;
	s->cqs = xcalloc(s->ncq + 1, sizeof(*s->cqs));
	s->flavor_cqs = xcalloc(nf + 1, sizeof(*s->flavor_cqs));
	for (size_t i = 0; i < s->ncq; i++) {
		struct sched_cq *q = &s->cqs[i];

		q->cq = &s->c->cluster_queues.items[i];
		q->gflavor = xcalloc(q->cq->ngroups + 1, sizeof(*q->gflavor));
		for (size_t g = 0; g < q->cq->ngroups; g++) {
			const struct resource_group *rg = &q->cq->groups[g];

			q->gflavor[g] =
				xcalloc(rg->nflavors + 1, sizeof(int32_t));
			for (size_t k = 0; k < rg->nflavors; k++) {
				const struct flavor *fl =
					cluster_find(s->c, KIND_FLAVOR, NULL,
						     rg->flavors[k].flavor);

				q->gflavor[g][k] =
					fl ? (int32_t)(fl - s->c->flavors.items)
					   : -1;
			}
		}
		q->active = cq_active(s, i, &q->inactive);
		q->root = s->q.nodes[i].root;
		queue_init(&q->heap, heap_cmp, s, &s->pos);
		hmap_init(&q->class_of);
		for (size_t f = 0; f < nf; f++) {
			bool listed = false;

			for (int r = 0; r < RESOURCE_MAX; r++)
				listed |= s->q.nodes[i].listed[QUOTA_FR(f, r)];
			if (listed)
				vec_push(&s->flavor_cqs[f], (int32_t)i);
		}
	}
	init_drains(s);
}

struct sched *sched_new(const struct cluster *c,
			const struct sched_options *opt)
{
	struct sched *s = xcalloc(1, sizeof(*s));
	const struct config *cfg = cluster_config(c);
	int32_t dflt;

	s->c = c;
	s->stamp = ++stamps;
	if (opt)
		s->opt = *opt;
	if (!s->opt.max_tas_domains)
		s->opt.max_tas_domains = 256;
	s->requeue_by_creation = cfg->wait_for_pods_ready.requeuing.timestamp ==
				 REQUEUE_CREATION;
	quota_init(&s->q, c);
	s->fs_extra = xcalloc(s->q.nfr + 1, sizeof(*s->fs_extra));
	tas_build(s);
	s->nwl = c->workloads.len;
	s->wl = xcalloc(s->nwl + 1, sizeof(*s->wl));
	s->pos = xcalloc(s->nwl + 1, sizeof(*s->pos));
	queue_init(&s->waiting, waiting_cmp, s, &s->pos);
	s->node_down = xcalloc(c->nodes.len + 1, sizeof(*s->node_down));
	init_cqs(s);
	tas_wake_shared(s);
	if (s->opt.fair_sharing) {
		for (size_t i = 0; i < s->ncq; i++) {
			size_t d = 1;

			for (int32_t n = s->q.nodes[i].parent; n >= 0;
			     n = s->q.nodes[n].parent)
				d++;
			s->fs_depth = d > s->fs_depth ? d : s->fs_depth;
		}
		s->fs_path =
			xcalloc(s->ncq * s->fs_depth + 1, sizeof(*s->fs_path));
	}
	dflt = default_priority(c);
	for (uint32_t i = 0; i < s->nwl; i++) {
		if (workload_live(&c->workloads.items[i]))
			init_wl(s, i, dflt);
	}
	s->wl_base = c->workloads.items;
	running_init(s);
	return s;
}

static void leave_queues(struct sched *s, uint32_t id);
static void free_adm(struct sched_admission *adm);
static void unhold(struct sched *s, uint32_t id);

/* The cluster's workload array moved (a push): point at the new one. */
static void rebase(struct sched *s)
{
	const struct workload *base = s->c->workloads.items;

	if (base == s->wl_base)
		return;
	for (size_t i = 0; i < s->nwl; i++) {
		if (s->wl[i].w)
			s->wl[i].w = &base[i];
	}
	s->wl_base = base;
}

void sched_wl_add(struct sched *s, uint32_t id)
{
	size_t n = s->c->workloads.len;

	BUG_ON(id >= n || !workload_live(&s->c->workloads.items[id]));
	if (n > s->nwl) {
		s->wl = xreallocarray(s->wl, n, sizeof(*s->wl));
		memset(s->wl + s->nwl, 0, (n - s->nwl) * sizeof(*s->wl));
		s->pos = xreallocarray(s->pos, n, sizeof(*s->pos));
		memset(s->pos + s->nwl, 0, (n - s->nwl) * sizeof(*s->pos));
		s->nwl = n;
	}
	rebase(s);
	BUG_ON(s->wl[id].w); /* the slot is free */
	init_wl(s, id, default_priority(s->c));
	sched_touch(s, id);
}

void sched_wl_remove(struct sched *s, uint32_t id)
{
	struct sched_wl *wl;

	BUG_ON(id >= s->nwl || !s->wl[id].w);
	wl = &s->wl[id];
	sched_touch(s, id);
	if (wl->state == SCHED_WL_ADMITTED)
		sched_release(s, id);
	else if (wl->state == SCHED_WL_PENDING)
		leave_queues(s, id);
	unhold(s, id); /* its quota back, without queueing it again */
	for (size_t v = 0; wl->victims_held && v < s->nwl; v++) {
		if (s->wl[v].held_for == id + 1) {
			s->wl[v].held_for = 0; /* its preemptor is gone */
			sched_touch(s, (uint32_t)v);
		}
	}
	backfill_drop(s, id, false);
	free_adm(wl->adm);
	free(wl->why.msg);
	sched_conds_free(wl);
	memset(wl, 0, sizeof(*wl));
	s->last_check.valid = false; /* it may name this slot */
}

static void free_adm(struct sched_admission *adm)
{
	if (!adm)
		return;
	for (size_t i = 0; i < adm->npodsets; i++)
		free(adm->ps[i].nodes);
	free(adm);
}

void sched_free(struct sched *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nwl; i++) {
		free_adm(s->wl[i].adm);
		free_adm(s->wl[i].held);
		free(s->wl[i].why.msg);
		sched_conds_free(&s->wl[i]);
	}
	for (size_t i = 0; i < s->ncq; i++) {
		struct sched_cq *q = &s->cqs[i];

		queue_release(&q->heap);
		vec_foreach (&q->classes, k) {
			queue_release(&k->q);
			free(k->why.msg);
		}
		vec_release(&q->classes);
		hmap_release(&q->class_of);
		vec_release(&q->admitted);
		for (size_t g = 0; g < q->cq->ngroups; g++)
			free(q->gflavor[g]);
		free(q->gflavor);
	}
	for (size_t f = 0; f < s->c->flavors.len; f++)
		vec_release(&s->flavor_cqs[f]);
	free(s->flavor_cqs);
	free(s->cqs);
	vec_release(&s->deferred);
	vec_release(&s->moved);
	queue_release(&s->waiting);
	free(s->node_down);
	for (size_t i = 0; i < SCHED_SCRATCH_SLOTS; i++) {
		place_workload_result_release(s->scratch[i]);
		free(s->scratch[i]);
	}
	backfill_free(s);
	tas_free(s);
	free(s->fs_extra);
	free(s->fs_path);
	free(s->cand_buf);
	quota_release(&s->q);
	free(s->pos);
	free(s->wl);
	free(s);
}

void sched_decisions_init(struct sched_decisions *d)
{
	memset(d, 0, sizeof(*d));
}

void sched_decisions_release(struct sched_decisions *d)
{
	if (d)
		vec_release(&d->items);
}

/* The class of hash in q, created when missing. */
static struct sched_class *class_get(struct sched *s, struct sched_cq *q,
				     uint64_t hash)
{
	struct sched_class *k;
	int64_t i;

	if (hmap_get(&q->class_of, &hash, sizeof(hash), &i))
		return &q->classes.items[i];
	k = vec_push_zero(&q->classes);
	k->hash = hash;
	k->out = QUEUE_NONE;
	queue_init(&k->q, heap_cmp, s, &s->pos);
	hmap_put(&q->class_of, &hash, sizeof(hash),
		 (int64_t)(q->classes.len - 1));
	return k;
}

static struct sched_class *class_of(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_cq *q = &s->cqs[wl->cq];

	if (q->cq->queueing != QUEUEING_BEST_EFFORT_FIFO)
		return NULL;
	return class_get(s, q, wl->hash);
}

/*
 * StrictFIFO: the pending reason of every member but the head names the
 * head ("waits behind"), so when the head is no longer old each member's
 * changes: O(members), and only when their messages really change.
 */
static void head_moved(struct sched *s, struct sched_cq *q, uint32_t old)
{
	if (!s->dirty || q->cq->queueing != QUEUEING_STRICT_FIFO ||
	    queue_peek(&q->heap) == old)
		return;
	for (size_t k = 0; k < q->heap.len; k++)
		sched_touch(s, q->heap.items[k]);
}

/* Put the best member of k into the heap of q. */
static void release_next(struct sched_cq *q, struct sched_class *k)
{
	k->out = queue_pop(&k->q);
	if (k->out != QUEUE_NONE)
		queue_push(&q->heap, k->out);
}

/* Whether the namespaceSelector of ClusterQueue cq selects namespace ns
 * (a Namespace object's labels, when one is loaded, and its name). */
static bool ns_selected(const struct cluster *c, const char *ns,
			const struct cluster_queue *cq)
{
	if (!cq->namespace_selector.len)
		return true; /* no lookup for the common case */
	if (!ns)
		ns = "default";
	return nspace_selected(cluster_find(c, KIND_NAMESPACE, NULL, ns), ns,
			       &cq->namespace_selector);
}

/* No LocalQueue, or its ClusterQueue does not exist: the reason. */
static void misconfigured(struct sched *s, struct sched_wl *wl)
{
	if (wl->lq < 0)
		sched_why_set(
			&wl->why, SCHED_PEND_MISCONFIGURED,
			wl->w->queue_name
				? xasprintf("LocalQueue %s/%s doesn't exist",
					    wl->w->ns ? wl->w->ns : "",
					    wl->w->queue_name)
				: xstrdup("the workload names no LocalQueue"));
	else
		sched_why_set(&wl->why, SCHED_PEND_MISCONFIGURED,
			      xasprintf("ClusterQueue %s doesn't exist",
					s->c->local_queues.items[wl->lq]
						.cluster_queue));
}

/*
 * Whether id stays out of its queue: it has no LocalQueue or ClusterQueue
 * (also a workload loaded as admitted without spec.queueName, once it is
 * evicted: Kueue cannot requeue it), its LocalQueue is stopped, or its
 * ClusterQueue does not select its namespace. Kueue does not queue such
 * workloads either, so they never block others; the reason goes to why.
 */
static bool held_out(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];
	const struct local_queue *lq =
		wl->lq >= 0 ? &s->c->local_queues.items[wl->lq] : NULL;

	if (!lq || wl->cq < 0) {
		misconfigured(s, wl);
		return true;
	}
	if (lq->stop != STOP_NONE) {
		sched_why_set(&wl->why, SCHED_PEND_ON_HOLD,
			      xasprintf("LocalQueue %s/%s is stopped "
					"(stopPolicy)",
					lq->ns, lq->name));
		return true;
	}
	if (!ns_selected(s->c, wl->w->ns, s->cqs[wl->cq].cq)) {
		sched_why_set(&wl->why, SCHED_PEND_MISCONFIGURED,
			      xstrdup("Workload namespace doesn't match "
				      "ClusterQueue selector"));
		return true;
	}
	return false;
}

void sched_enqueue(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_cq *q;
	struct sched_class *k;

	sched_touch(s, id);
	if (held_out(s, id))
		return;
	if (s->opt.backfill) {
		/* the order's key, fixed while it is queued: an estimate
		 * that changes later does not move it in the heaps */
		int64_t est = sched_wl_estimate(s, id);

		wl->order_est_us = est > 0 ? est : INT64_MAX;
	}
	q = &s->cqs[wl->cq];
	k = class_of(s, id);
	if (!k) {
		uint32_t head = queue_peek(&q->heap);

		queue_push(&q->heap, id);
		head_moved(s, q, head);
		return;
	}
	queue_push(&k->q, id);
	if (k->parked)
		return;
	if (k->out != QUEUE_NONE && sched_wl_cmp(s, id, k->out) < 0) {
		queue_remove(&q->heap, k->out);
		queue_push(&k->q, k->out);
		k->out = QUEUE_NONE;
	}
	if (k->out == QUEUE_NONE)
		release_next(q, k);
}

void sched_park(struct sched *s, uint32_t id, struct sched_why *why)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_class *k = class_of(s, id);

	BUG_ON(!k || k->out != id);
	sched_touch(s, id);
	sched_class_moved(s, &s->cqs[wl->cq], k);
	queue_push(&k->q, id);
	k->out = QUEUE_NONE;
	k->parked = true;
	if (k->why.code != why->code || !k->why.msg || !why->msg ||
	    strcmp(k->why.msg, why->msg) != 0)
		sched_why_set(&k->why, why->code, dup_msg(why->msg));
	sched_why_set(&wl->why, SCHED_PEND_EVALUATION, NULL);
}

void sched_leave_heap(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_cq *q = &s->cqs[wl->cq];
	struct sched_class *k = class_of(s, id);

	sched_touch(s, id);
	if (queue_contains(&q->heap, id)) {
		uint32_t head = queue_peek(&q->heap);

		queue_remove(&q->heap, id);
		head_moved(s, q, head);
	}
	if (k && k->out == id)
		release_next(q, k);
}

void sched_unpark_dirty(struct sched *s)
{
	for (size_t i = 0; i < s->ncq; i++) {
		struct sched_cq *q = &s->cqs[i];

		if (!q->dirty)
			continue;
		q->dirty = false;
		vec_foreach (&q->classes, k) {
			if (!k->parked)
				continue;
			sched_class_moved(s, q, k);
			k->parked = false;
			release_next(q, k);
		}
	}
}

/* The reason of a member of a parked class, or NULL. */
const struct sched_why *sched_parked_why(const struct sched *s, uint32_t id)
{
	const struct sched_wl *wl = &s->wl[id];
	const struct sched_cq *q;
	int64_t i;

	if (wl->cq < 0)
		return NULL; /* no ClusterQueue: never queued, never parked */
	q = &s->cqs[wl->cq];
	if (q->cq->queueing != QUEUEING_BEST_EFFORT_FIFO ||
	    !hmap_get(&q->class_of, &wl->hash, sizeof(wl->hash), &i))
		return NULL;
	if (!q->classes.items[i].parked ||
	    !queue_contains(&q->classes.items[i].q, id))
		return NULL;
	return &q->classes.items[i].why;
}

static void set_deactivated_why(struct sched_wl *wl)
{
	sched_why_set(&wl->why, SCHED_PEND_DEACTIVATED,
		      xstrdup("the workload is deactivated "
			      "(spec.active: false)"));
}

void sched_submit(struct sched *s, uint32_t id, int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];

	BUG_ON(id >= s->nwl);
	BUG_ON(wl->state == SCHED_WL_PENDING || wl->state == SCHED_WL_ADMITTED);
	BUG_ON(wl->assumed); /* its usage is counted already */
	sched_touch(s, id);
	wl->queue_ts_us = wl->state == SCHED_WL_NEW && wl->w->creation_us
				  ? wl->w->creation_us
				  : now_us;
	wl->state = SCHED_WL_PENDING;
	wl->seq = ++s->seq;
	sched_why_set(&wl->why, SCHED_PEND_EVALUATION, NULL);
	if (!wl->w->active || wl->deactivated) {
		set_deactivated_why(wl);
	} else {
		sched_enqueue(s, id);
	}
}

/* Pending id, in no queue, waits for its requeue backoff until
 * requeue_at_us (Requeued=False with reason). */
static void wait_backoff(struct sched *s, uint32_t id, const char *reason,
			 int64_t requeue_at_us, int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];
	const struct sched_condition *ev =
		sched_cond_of(wl, SCHED_COND_EVICTED);

	sched_touch(s, id);
	/* Kueue's job reconciler: Requeued=False with the eviction's reason
	 * and message while the backoff lasts (a backoff read back without
	 * its eviction says until when) */
	sched_set_cond(wl, SCHED_COND_REQUEUED, false, reason,
		       ev->present && ev->message && *ev->message
			       ? xstrdup(ev->message)
			       : xasprintf("The workload is in backoff until "
					   "%" PRId64 " us",
					   requeue_at_us),
		       now_us);
	sched_why_set(&wl->why, SCHED_PEND_EVALUATION,
		      xasprintf("waiting for the requeue backoff until %" PRId64
				" us",
				requeue_at_us));
	wl->requeue_at_us = requeue_at_us;
	queue_push(&s->waiting, id);
}

void sched_wl_update(struct sched *s, uint32_t id, int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];
	bool queued = wl->state == SCHED_WL_PENDING && !wl->held &&
		      !wl->deactivated && !queue_contains(&s->waiting, id);
	enum sched_wl_state state = wl->state;
	int32_t cq = wl->cq;

	BUG_ON(id >= s->nwl || !wl->w);
	sched_touch(s, id);
	if (queued)
		leave_queues(s, id);
	rebase(s);
	init_wl(s, id, default_priority(s->c));
	if (state == SCHED_WL_ADMITTED)
		wl->cq = cq; /* the queue of its admission */
	if (state != SCHED_WL_PENDING)
		return; /* NEW, FINISHED: taken as it is when queued */
	if (!wl->w->active) {
		sched_deactivate(s, id, "Deactivated", now_us);
		return;
	}
	if (wl->deactivated) {
		/* spec.active is true again: Kueue queues it anew (a victim
		 * still holding its quota once its pods are gone) */
		wl->deactivated = false;
		queued = !wl->held && !queue_contains(&s->waiting, id);
	}
	if (queued) {
		sched_why_set(&wl->why, SCHED_PEND_EVALUATION, NULL);
		sched_enqueue(s, id);
	}
}

void sched_submit_after(struct sched *s, uint32_t id, int64_t requeue_at_us,
			int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];

	sched_submit(s, id, now_us);
	if (requeue_at_us <= now_us || wl->state != SCHED_WL_PENDING ||
	    wl->deactivated || wl->cq < 0)
		return;
	leave_queues(s, id);
	wait_backoff(s, id, "BackoffStarted", requeue_at_us, now_us);
}

/* Quota of an admission: count x request per resource with a flavor. */
static void charge_adm(struct sched *s, const struct workload *w,
		       const struct sched_admission *adm, int sign)
{
	for (size_t i = 0; i < adm->npodsets; i++) {
		const struct sched_podset_admission *pa = &adm->ps[i];

		for (int r = 0; r < RESOURCE_MAX; r++) {
			int64_t v = w->podsets[i].requests.v[r] * pa->count;

			if (pa->flavor[r] >= 0 && v)
				quota_add(&s->q, adm->cq,
					  QUOTA_FR(pa->flavor[r], r), sign * v);
		}
	}
}

static void add_admitted(struct sched *s, uint32_t id, int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_cq *q = &s->cqs[wl->adm->cq];

	sched_touch(s, id);
	wl->state = SCHED_WL_ADMITTED;
	wl->admit_us = now_us;
	wl->admit_seq = ++s->admit_seq;
	wl->admit_cycle = s->cycle;
	wl->adm_pos = (uint32_t)q->admitted.len;
	vec_push(&q->admitted, id);
	sched_why_set(&wl->why, SCHED_PEND_EVALUATION, NULL);
	sched_set_cond(
		wl, SCHED_COND_QUOTA_RESERVED, true, "QuotaReserved",
		xasprintf("Quota reserved in ClusterQueue %s", q->cq->name),
		now_us);
	sched_set_cond(wl, SCHED_COND_ADMITTED, true, "Admitted",
		       xstrdup("The workload is admitted"), now_us);
	/* Kueue's SetQuotaReservation: an Evicted or Preempted condition
	 * that holds turns False, so that the next eviction is a new edge. */
	for (int c = SCHED_COND_EVICTED; c <= SCHED_COND_PREEMPTED; c++) {
		const struct sched_condition *k = sched_cond_of(wl, c);

		if (k->present && k->status)
			sched_set_cond(wl, (enum sched_cond)c, false,
				       "QuotaReserved",
				       xasprintf("Previously: %s", k->message),
				       now_us);
	}
}

void sched_admit(struct sched *s, uint32_t id, const struct assign *a,
		 int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];
	const struct workload *w = wl->w;
	struct sched_admission *adm = xcalloc(1, sizeof(*adm));

	s->cycle_admits++;

	BUG_ON(wl->state != SCHED_WL_PENDING || a->mode != ASSIGN_FIT);
	sched_leave_heap(s, id);
	adm->cq = wl->cq;
	adm->npodsets = w->npodsets;
	for (size_t i = 0; i < w->npodsets; i++) {
		adm->ps[i].count = a->counts[i];
		adm->ps[i].tas_flavor = -1;
		for (int r = 0; r < RESOURCE_MAX; r++)
			adm->ps[i].flavor[r] =
				w->podsets[i].requests.v[r] ? a->flavor[r] : -1;
	}
	if (a->tas_flavor >= 0) {
		bool placed = tas_place(s, a->tas_flavor, w, a->counts, true,
					adm, NULL);

		BUG_ON(!placed); /* the assignment said it fits */
	}
	wl->adm = adm;
	charge_adm(s, w, adm, 1);
	add_admitted(s, id, now_us);
	backfill_drop(s, id, true);
}

static void mark_dirty(struct sched *s, const struct sched_admission *adm)
{
	int32_t root = s->cqs[adm->cq].root;

	for (size_t i = 0; i < s->ncq; i++) {
		if (s->cqs[i].root == root)
			s->cqs[i].dirty = true;
	}
	for (size_t i = 0; i < adm->npodsets; i++) {
		int32_t f = adm->ps[i].tas_flavor;

		if (f < 0)
			continue;
		vec_foreach (&s->flavor_cqs[f], cq)
			s->cqs[*cq].dirty = true;
	}
}

/* Take admitted id out of its queue's admitted list. */
static void leave_admitted(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_cq *q = &s->cqs[wl->adm->cq];
	uint32_t last;

	BUG_ON(q->admitted.items[wl->adm_pos] != id);
	last = vec_pop(&q->admitted);
	if (last != id) {
		q->admitted.items[wl->adm_pos] = last;
		s->wl[last].adm_pos = wl->adm_pos;
	}
}

/* Give back the quota and nodes that adm of w holds. */
static void uncharge(struct sched *s, const struct workload *w,
		     struct sched_admission *adm)
{
	charge_adm(s, w, adm, -1);
	tas_charge(s, w, adm, -1);
	mark_dirty(s, adm);
	free_adm(adm);
	s->epoch++;
}

void sched_release(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];

	BUG_ON(wl->state != SCHED_WL_ADMITTED || !wl->adm);
	sched_touch(s, id);
	leave_admitted(s, id);
	uncharge(s, wl->w, wl->adm);
	wl->adm = NULL;
}

/* hold() with no preemptor; requeue_as()'s by that holds for none. */
#define HOLD_ALONE   UINT32_MAX
#define REQUEUE_HOLD (-2)

/*
 * Preempted id stops being admitted but keeps its quota and nodes until
 * sched_victim_released(): its pods are still running (opt.hold_victims).
 */
static void hold(struct sched *s, uint32_t id, uint32_t by)
{
	struct sched_wl *wl = &s->wl[id];

	BUG_ON(wl->state != SCHED_WL_ADMITTED || !wl->adm || wl->held);
	sched_touch(s, id);
	leave_admitted(s, id);
	wl->held = wl->adm;
	wl->adm = NULL;
	s->nheld++;
	if (by == HOLD_ALONE)
		return; /* no preemptor waits for it */
	wl->held_for = by + 1;
	s->wl[by].victims_held++;
}

/* Give back what victim id holds and free its preemptor's wait. */
static void unhold(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];

	if (!wl->held)
		return;
	sched_touch(s, id);
	uncharge(s, wl->w, wl->held);
	wl->held = NULL;
	s->nheld--;
	if (wl->held_for && s->wl[wl->held_for - 1].victims_held)
		s->wl[wl->held_for - 1].victims_held--;
	wl->held_for = 0;
}

void sched_victim_released(struct sched *s, uint32_t id, int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];

	(void)now_us;
	BUG_ON(id >= s->nwl);
	if (!wl->held)
		return;
	unhold(s, id);
	if (wl->state == SCHED_WL_PENDING && !wl->deactivated &&
	    !queue_contains(&s->waiting, id))
		sched_enqueue(s, id);
}

bool sched_wl_held(const struct sched *s, uint32_t id)
{
	return s->wl[id].held != NULL;
}

uint32_t sched_wl_victims_held(const struct sched *s, uint32_t id)
{
	return s->wl[id].victims_held;
}

void sched_recount_victims(struct sched *s)
{
	for (size_t i = 0; i < s->nwl; i++)
		s->wl[i].victims_held = 0;
	for (size_t i = 0; i < s->nwl; i++) {
		const struct sched_wl *v = &s->wl[i];

		if (v->held && v->held_for && v->held_for <= s->nwl &&
		    s->wl[v->held_for - 1].w)
			s->wl[v->held_for - 1].victims_held++;
	}
}

/* Release an admitted workload (or hold it for preemptor by, by >= 0)
 * and make it pending again. */
static void requeue_as(struct sched *s, uint32_t id, const char *reason,
		       char *msg, int64_t now_us, int64_t by)
{
	struct sched_wl *wl = &s->wl[id];

	sched_touch(s, id);
	if (by >= 0)
		hold(s, id, (uint32_t)by);
	else if (by == REQUEUE_HOLD)
		hold(s, id, HOLD_ALONE);
	else
		sched_release(s, id);
	wl->state = SCHED_WL_PENDING;
	/* Back to its LocalQueue's ClusterQueue, none without one (a loaded
	 * admission may name another). */
	wl->cq = wl->lq < 0 ? -1
			    : sched_find_index(s->c, KIND_CLUSTER_QUEUE, NULL,
					       s->c->local_queues.items[wl->lq]
						       .cluster_queue);
	/* Kueue's GetQueueOrderTimestamp: the eviction time only after a
	 * waitForPodsReady timeout under requeuingStrategy.timestamp
	 * Eviction; the creation time otherwise (a preempted workload keeps
	 * its place). Without a creation time, the time it was queued. */
	if (strcmp(reason, "PodsReadyTimeout") == 0 && !s->requeue_by_creation)
		wl->queue_ts_us = now_us;
	else if (wl->w->creation_us)
		wl->queue_ts_us = wl->w->creation_us;
	sched_set_cond(wl, SCHED_COND_EVICTED, true, reason, msg, now_us);
	sched_set_cond(wl, SCHED_COND_QUOTA_RESERVED, false, "Pending",
		       xstrdup(msg), now_us);
	sched_set_cond(wl, SCHED_COND_ADMITTED, false, "NoReservation",
		       xstrdup("The workload has no reservation"), now_us);
	sched_set_cond(wl, SCHED_COND_REQUEUED, true, reason,
		       xstrdup("The workload was requeued"), now_us);
	sched_why_set(&wl->why, SCHED_PEND_EVALUATION, NULL);
}

static void requeue(struct sched *s, uint32_t id, const char *reason, char *msg,
		    int64_t now_us)
{
	requeue_as(s, id, reason, msg, now_us, -1);
}

void sched_preempt(struct sched *s, uint32_t victim, uint32_t by,
		   enum sched_preempt_reason reason, int64_t now_us)
{
	const struct workload *p = s->wl[by].w;
	char *msg = xasprintf("Preempted to accommodate a workload (%s/%s) "
			      "due to %s",
			      p->ns ? p->ns : "", p->name,
			      sched_preempt_reason_name(reason));

	requeue_as(s, victim, "Preempted", msg, now_us,
		   s->opt.hold_victims ? (int64_t)by : -1);
	sched_set_cond(&s->wl[victim], SCHED_COND_PREEMPTED, true,
		       sched_preempt_reason_name(reason), xstrdup(msg), now_us);
	if (s->opt.hold_victims)
		return; /* queued again once its pods are gone */
	s->wl[victim].deferred = true;
	vec_push(&s->deferred, victim);
}

/* The message Kueue's controllers give an eviction for reason. */
static char *evict_msg(const struct sched_wl *wl, const char *reason)
{
	if (strcmp(reason, "PodsReadyTimeout") == 0)
		return xasprintf("Exceeded the PodsReady timeout %s/%s",
				 wl->w->ns ? wl->w->ns : "", wl->w->name);
	if (strcmp(reason, "LocalQueueStopped") == 0)
		return xstrdup("The LocalQueue is stopped");
	if (strcmp(reason, "ClusterQueueStopped") == 0)
		return xstrdup("The ClusterQueue is stopped");
	return xasprintf("The workload was evicted: %s", reason);
}

void sched_evict(struct sched *s, uint32_t id, const char *reason,
		 int64_t now_us)
{
	requeue(s, id, reason, evict_msg(&s->wl[id], reason), now_us);
	sched_enqueue(s, id);
}

void sched_evict_until(struct sched *s, uint32_t id, const char *reason,
		       int64_t requeue_at_us, int64_t now_us)
{
	BUG_ON(id >= s->nwl);
	if (requeue_at_us <= now_us) {
		sched_evict(s, id, reason, now_us);
		return;
	}
	requeue(s, id, reason, evict_msg(&s->wl[id], reason), now_us);
	wait_backoff(s, id, reason, requeue_at_us, now_us);
}

void sched_evict_held(struct sched *s, uint32_t id, const char *reason,
		      int64_t requeue_at_us, int64_t now_us)
{
	BUG_ON(id >= s->nwl);
	if (!s->opt.hold_victims) {
		sched_evict_until(s, id, reason, requeue_at_us, now_us);
		return;
	}
	requeue_as(s, id, reason, evict_msg(&s->wl[id], reason), now_us,
		   REQUEUE_HOLD);
	if (requeue_at_us > now_us)
		wait_backoff(s, id, reason, requeue_at_us, now_us);
	/* else queued once its pods are gone (sched_victim_released) */
}

int64_t sched_next_requeue_us(const struct sched *s)
{
	uint32_t id = queue_peek(&s->waiting);

	return id == QUEUE_NONE ? INT64_MAX : s->wl[id].requeue_at_us;
}

void sched_requeue_due(struct sched *s, int64_t now_us)
{
	uint32_t id;

	while ((id = queue_peek(&s->waiting)) != QUEUE_NONE &&
	       s->wl[id].requeue_at_us <= now_us) {
		struct sched_wl *wl = &s->wl[id];

		queue_pop(&s->waiting);
		BUG_ON(wl->state != SCHED_WL_PENDING || wl->deactivated);
		sched_touch(s, id);
		if (wl->held)
			continue; /* queued once its pods are gone */
		sched_set_cond(wl, SCHED_COND_REQUEUED, true, "BackoffFinished",
			       xstrdup("The workload backoff was finished"),
			       now_us);
		sched_why_set(&wl->why, SCHED_PEND_EVALUATION, NULL);
		sched_enqueue(s, id);
	}
}

/* Take pending id out of whatever queue holds it. */
static void leave_queues(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_class *k;

	sched_touch(s, id);
	if (queue_contains(&s->waiting, id))
		queue_remove(&s->waiting, id);
	for (size_t i = 0; wl->deferred && i < s->deferred.len; i++) {
		if (s->deferred.items[i] != id)
			continue;
		s->deferred.items[i] = s->deferred.items[--s->deferred.len];
		wl->deferred = false;
	}
	if (wl->cq < 0)
		return;
	if (queue_contains(&s->cqs[wl->cq].heap, id)) {
		sched_leave_heap(s, id);
		return;
	}
	k = class_of(s, id);
	if (k && queue_contains(&k->q, id))
		queue_remove(&k->q, id);
}

void sched_deactivate(struct sched *s, uint32_t id, const char *reason,
		      int64_t now_us)
{
	struct sched_wl *wl;

	BUG_ON(id >= s->nwl);
	wl = &s->wl[id];
	if (wl->deactivated)
		return;
	sched_touch(s, id);
	wl->deactivated = true;
	if (wl->state == SCHED_WL_ADMITTED) {
		requeue(s, id, reason, xstrdup("The workload is deactivated"),
			now_us);
	} else if (wl->state == SCHED_WL_PENDING) {
		leave_queues(s, id);
	} else {
		return; /* NEW or FINISHED: sched_submit() keeps it out */
	}
	if (sched_cond_of(wl, SCHED_COND_REQUEUED)->present)
		sched_set_cond(wl, SCHED_COND_REQUEUED, false, reason,
			       xstrdup("The workload is deactivated"), now_us);
	set_deactivated_why(wl);
}

void sched_finish(struct sched *s, uint32_t id, int64_t now_us)
{
	sched_finish_as(s, id, "Succeeded", "Job finished successfully",
			now_us);
}

void sched_finish_as(struct sched *s, uint32_t id, const char *reason,
		     const char *message, int64_t now_us)
{
	struct sched_wl *wl = &s->wl[id];

	sched_touch(s, id);
	sched_release(s, id);
	wl->state = SCHED_WL_FINISHED;
	sched_set_cond(wl, SCHED_COND_FINISHED, true, reason, xstrdup(message),
		       now_us);
}

static int load_podset(struct sched *s, const struct workload *w, size_t i,
		       const struct podset_admission *pa,
		       struct sched_podset_admission *out, struct strbuf *why)
{
	const struct podset *ps = &w->podsets[i];

	out->count = pa && pa->count ? pa->count : (pa ? ps->count : 0);
	out->tas_flavor = -1;
	for (int r = 0; r < RESOURCE_MAX; r++) {
		const char *fn = pa ? pa->flavors[r] : NULL;
		const struct flavor *fl;

		out->flavor[r] = -1;
		if (!fn)
			continue;
		fl = cluster_find(s->c, KIND_FLAVOR, NULL, fn);
		if (!fl) {
			if (why)
				strbuf_addf(why, "unknown flavor %s", fn);
			return -ENOENT;
		}
		out->flavor[r] = (int16_t)(fl - s->c->flavors.items);
		if (pa->topology && out->tas_flavor < 0 &&
		    s->tas[out->flavor[r]].t &&
		    tas_resolve(s, out->flavor[r], ps, pa->topology, out->count,
				out) < 0) {
			if (why)
				strbuf_addf(why,
					    "pod set %s: a domain of its "
					    "topologyAssignment is unknown",
					    ps->name);
			return -ENOENT;
		}
	}
	return 0;
}

static const struct podset_admission *find_pa(const struct admission *a,
					      const char *name)
{
	for (size_t i = 0; i < a->npodsets; i++) {
		if (a->podsets[i].name && strcmp(a->podsets[i].name, name) == 0)
			return &a->podsets[i];
	}
	return NULL;
}

int sched_assume_admitted(struct sched *s, uint32_t id, int64_t now_us,
			  struct strbuf *why)
{
	struct sched_wl *wl = &s->wl[id];
	const struct workload *w = wl->w;
	const struct workload_condition *qr;
	struct sched_admission *adm;
	int32_t cq;

	BUG_ON(!w->admission || wl->state != SCHED_WL_NEW);
	cq = sched_find_index(s->c, KIND_CLUSTER_QUEUE, NULL,
			      w->admission->cluster_queue);
	if (cq < 0) {
		if (why)
			strbuf_addf(why, "unknown ClusterQueue %s",
				    w->admission->cluster_queue);
		return -ENOENT;
	}
	adm = xcalloc(1, sizeof(*adm));
	adm->cq = cq;
	adm->npodsets = w->npodsets;
	for (size_t i = 0; i < w->npodsets; i++) {
		if (load_podset(s, w, i,
				find_pa(w->admission, w->podsets[i].name),
				&adm->ps[i], why) < 0) {
			free_adm(adm);
			return -ENOENT;
		}
	}
	wl->adm = adm;
	wl->cq = cq;
	wl->seq = ++s->seq;
	wl->queue_ts_us = w->creation_us;
	charge_adm(s, w, adm, 1);
	tas_charge(s, w, adm, 1);
	add_admitted(s, id, now_us);
	/* Kueue ranks victims by QuotaReserved's lastTransitionTime (now
	 * when it has none), not by the order of the input. */
	qr = workload_cond(w, WORKLOAD_COND_QUOTA_RESERVED);
	if (qr->present && qr->status && qr->transition_us)
		wl->admit_us = qr->transition_us;
	wl->admit_seq = 0;
	return 0;
}

void sched_hold_restored(struct sched *s, uint32_t id,
			 struct sched_admission *held)
{
	struct sched_wl *wl = &s->wl[id];

	sched_touch(s, id);
	wl->held = held;
	s->nheld++;
	charge_adm(s, wl->w, held, 1);
	tas_charge(s, wl->w, held, 1);
}

void sched_free_adm(struct sched_admission *adm)
{
	free_adm(adm);
}

void sched_admit_restored(struct sched *s, uint32_t id,
			  struct sched_admission *adm, int64_t admit_us)
{
	struct sched_wl *wl = &s->wl[id];

	wl->adm = adm;
	wl->cq = adm->cq;
	charge_adm(s, wl->w, adm, 1);
	tas_charge(s, wl->w, adm, 1);
	add_admitted(s, id, admit_us);
}

uint64_t sched_wl_cond_changes(const struct sched *s, uint32_t wl)
{
	return s->wl[wl].cond_changes;
}

uint64_t sched_wl_admit_seq(const struct sched *s, uint32_t wl)
{
	return s->wl[wl].admit_seq;
}

enum sched_wl_state sched_wl_state(const struct sched *s, uint32_t wl)
{
	return s->wl[wl].state;
}

int32_t sched_wl_cq(const struct sched *s, uint32_t wl)
{
	return s->wl[wl].cq;
}

const char *sched_cq_name(const struct sched *s, int32_t cq)
{
	return cq >= 0 ? s->cqs[cq].cq->name : NULL;
}

int32_t sched_wl_priority(const struct sched *s, uint32_t wl)
{
	return s->wl[wl].priority;
}

const struct sched_admission *sched_wl_admission(const struct sched *s,
						 uint32_t wl)
{
	return s->wl[wl].adm;
}

const struct sched_admission *sched_wl_reserved(const struct sched *s,
						uint32_t wl)
{
	return s->wl[wl].adm ? s->wl[wl].adm : s->wl[wl].held;
}

const struct topo *sched_topo(const struct sched *s, int32_t f)
{
	return f >= 0 && (size_t)f < s->c->flavors.len ? s->tas[f].t : NULL;
}

const struct quota *sched_quota(const struct sched *s)
{
	return &s->q;
}

int64_t sched_cq_usage(const struct sched *s, int32_t cq, int32_t flavor,
		       int resource)
{
	BUG_ON(cq < 0 || (size_t)cq >= s->ncq);
	BUG_ON(flavor < 0 || (size_t)flavor >= s->q.nflavors);
	BUG_ON(resource < 0 || resource >= RESOURCE_MAX);
	return s->q.nodes[cq].usage[QUOTA_FR(flavor, resource)];
}

int64_t sched_cq_nominal(const struct sched *s, int32_t cq, int resource)
{
	const struct quota_node *n;
	int64_t sum = -1;

	BUG_ON(cq < 0 || (size_t)cq >= s->ncq);
	BUG_ON(resource < 0 || resource >= RESOURCE_MAX);
	n = &s->q.nodes[cq];
	for (size_t f = 0; f < s->q.nflavors; f++) {
		size_t fr = QUOTA_FR(f, resource);

		if (n->listed[fr])
			sum = (sum < 0 ? 0 : sum) + n->nominal[fr];
	}
	return sum;
}

bool sched_cq_active(const struct sched *s, int32_t cq, const char **ret_why)
{
	BUG_ON(cq < 0 || (size_t)cq >= s->ncq);
	if (!s->cqs[cq].active && ret_why)
		*ret_why = s->cqs[cq].inactive;
	return s->cqs[cq].active;
}

struct sched_condition sched_wl_condition(const struct sched *s, uint32_t wl,
					  enum sched_cond type)
{
	const struct sched_wl *w = &s->wl[wl];
	struct sched_condition c = *sched_cond_of(w, type);

	if (type == SCHED_COND_QUOTA_RESERVED && w->state == SCHED_WL_PENDING) {
		const struct sched_why *why = sched_parked_why(s, wl);

		if (!why || w->why.code != SCHED_PEND_EVALUATION)
			why = &w->why;
		c.present = true;
		c.status = false;
		c.reason = sched_pend_name(why->code);
		c.message = why->msg ? why->msg : "";
	}
	return c;
}

static char *default_msg(const struct sched *s, const struct sched_wl *wl)
{
	const struct sched_cq *q = wl->cq >= 0 ? &s->cqs[wl->cq] : NULL;

	if (q && !q->active)
		return xasprintf("ClusterQueue %s %s", q->cq->name,
				 q->inactive);
	if (wl->deferred)
		return xstrdup("requeued after preemption; tried again in "
			       "the next cycle");
	return xstrdup("waiting for the next admission cycle");
}

enum sched_pend sched_wl_pending(const struct sched *s, uint32_t id,
				 struct strbuf *msg)
{
	const struct sched_wl *wl = &s->wl[id];
	const struct sched_cq *q = wl->cq >= 0 ? &s->cqs[wl->cq] : NULL;
	const struct sched_why *why = &wl->why;
	enum sched_pend code;
	char *m = NULL;

	if (wl->state != SCHED_WL_PENDING)
		return SCHED_PEND_EVALUATION;
	if (q && why->code == SCHED_PEND_EVALUATION && sched_parked_why(s, id))
		why = sched_parked_why(s, id);
	code = why->code;
	if (q && code != SCHED_PEND_DEACTIVATED && !q->active) {
		code = SCHED_PEND_ON_HOLD;
	} else if (q && q->cq->queueing == QUEUEING_STRICT_FIFO &&
		   queue_contains(&q->heap, id) && queue_peek(&q->heap) != id) {
		const struct workload *h = s->wl[queue_peek(&q->heap)].w;

		code = SCHED_PEND_BEHIND;
		if (msg)
			m = xasprintf(
				"waits behind %s/%s, the head of StrictFIFO "
				"ClusterQueue %s",
				h->ns ? h->ns : "", h->name, q->cq->name);
	} else if (why->msg && msg) {
		m = xstrdup(why->msg);
	}
	if (msg) {
		if (!m)
			m = default_msg(s, wl);
		strbuf_addstr(msg, m);
	}
	free(m);
	return code;
}

bool sched_wl_compact(const struct sched *s, uint32_t id)
{
	const struct sched_wl *wl = &s->wl[id];
	const struct sched_why *why = &wl->why;

	if (wl->state != SCHED_WL_PENDING)
		return false;
	if (wl->cq >= 0 && why->code == SCHED_PEND_EVALUATION &&
	    sched_parked_why(s, id))
		why = sched_parked_why(s, id);
	return why->code == SCHED_PEND_TOPOLOGY && why->msg &&
	       strstr(why->msg, SCHED_COMPACT_WHY);
}

bool sched_wl_backoff(const struct sched *s, uint32_t id)
{
	return s->wl[id].state == SCHED_WL_PENDING &&
	       queue_contains(&s->waiting, id);
}

/* Everything sched_wl_pending() reads, by stamps and indices. */
uint64_t sched_wl_pending_key(const struct sched *s, uint32_t id)
{
	const struct sched_wl *wl = &s->wl[id];
	const struct sched_cq *q = wl->cq >= 0 ? &s->cqs[wl->cq] : NULL;
	const struct sched_why *pw = NULL;
	uint64_t h = mix(s->stamp, wl->state);

	h = mix(mix(h, wl->why.code), wl->why.stamp);
	h = mix(mix(h, (uint64_t)wl->cq + 1), wl->deferred);
	if (q && wl->why.code == SCHED_PEND_EVALUATION)
		pw = sched_parked_why(s, id);
	if (pw)
		h = mix(mix(h, pw->code), pw->stamp);
	if (q) {
		h = mix(h, q->active);
		if (q->cq->queueing == QUEUEING_STRICT_FIFO &&
		    queue_contains(&q->heap, id)) {
			uint32_t head = queue_peek(&q->heap);

			h = mix(mix(h, (uint64_t)head + 1), s->wl[head].seq);
		}
	}
	return h | 1;
}

bool sched_wl_listed(const struct sched *s, uint32_t id)
{
	const struct sched_wl *wl = &s->wl[id];
	const struct sched_cq *q;
	int64_t i;

	if (!wl->w || wl->cq < 0 || wl->state != SCHED_WL_PENDING)
		return false;
	if (wl->deferred)
		return true;
	q = &s->cqs[wl->cq];
	if (queue_contains(&q->heap, id))
		return true;
	return q->cq->queueing == QUEUEING_BEST_EFFORT_FIFO &&
	       hmap_get(&q->class_of, &wl->hash, sizeof(wl->hash), &i) &&
	       queue_contains(&q->classes.items[i].q, id);
}

/* Every pending workload of queue i, in the order of a next cycle. */
static size_t queued(const struct sched *s, size_t i, uint32_t *out)
{
	const struct sched_cq *q = &s->cqs[i];
	size_t n = 0;

	for (size_t k = 0; k < q->heap.len; k++)
		out[n++] = q->heap.items[k];
	vec_foreach (&q->classes, k) {
		for (size_t j = 0; j < k->q.len; j++)
			out[n++] = k->q.items[j];
	}
	vec_foreach (&s->deferred, id) {
		if (s->wl[*id].cq == (int32_t)i &&
		    s->wl[*id].state == SCHED_WL_PENDING)
			out[n++] = *id;
	}
	return n;
}

static int pos_cmp(const void *x, const void *y, void *ctx)
{
	return sched_wl_cmp(ctx, *(const uint32_t *)x, *(const uint32_t *)y);
}

void sched_positions(const struct sched *s, int64_t *cq_pos, int64_t *lq_pos)
{
	uint32_t *ids = xcalloc(s->nwl + 1, sizeof(*ids));
	int64_t *lq_next = xcalloc(s->c->local_queues.len + 1, sizeof(int64_t));

	for (size_t i = 0; i < s->nwl; i++)
		cq_pos[i] = lq_pos[i] = -1;
	for (size_t i = 0; i < s->ncq; i++) {
		size_t n = queued(s, i, ids);

		qsort_r(ids, n, sizeof(*ids), pos_cmp, (void *)s);
		for (size_t k = 0; k < n; k++) {
			int32_t lq = s->wl[ids[k]].lq;

			cq_pos[ids[k]] = (int64_t)k;
			if (lq >= 0)
				lq_pos[ids[k]] = lq_next[lq]++;
		}
	}
	free(lq_next);
	free(ids);
}

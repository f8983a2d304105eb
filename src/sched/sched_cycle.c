// SPDX-License-Identifier: Apache-2.0
/*
 * The admission cycle. Unlike Kueue, which pops one head per ClusterQueue
 * per cycle, a cycle keeps taking the best head over all active queues
 * (priority, then queue timestamp, then submission order; with fair
 * sharing, the queue with the lowest dominant share first) and decides it
 * against usage that every earlier decision of the cycle already changed,
 * until every queue is empty or blocked. So a cycle admits everything
 * that fits, two admissions never count the same capacity, and each
 * pending workload is looked at most once per cycle:
 *
 *  - fits: admitted (quota charged, placement applied);
 *  - fits after preemption: victims evicted (requeued for the next
 *    cycle), then admitted;
 *  - fits at fewer pods (minCount): admitted partially;
 *  - otherwise BestEffortFIFO parks it in its shape class, and later
 *    heads of the same class are parked without a new try until usage
 *    is released; StrictFIFO blocks its queue for the rest of the cycle.
 *
 * Parked classes come back at the start of a cycle after a release in
 * their cohort tree or on their TAS flavor, or a node of that flavor
 * coming back (batched: once per cycle, and one member per class, the
 * rest following as members are admitted). Before them, workloads whose
 * requeue backoff has passed go back into their queues, earliest first.
 */
#include "sched/sched.h"

#include "base/alloc.h"
#include "sched/sched_int.h"

#include "base/banned.h"

/*
 * Whether queue a's head goes before queue b's: with fair sharing the
 * lower dominant share first; else queues that borrow nothing first
 * (Kueue's lower borrowing level first: work within nominal quota is not
 * held up by borrowers); then the head order.
 */
static bool before(struct sched *s, int32_t a, int64_t sa, int32_t b,
		   int64_t sb)
{
	if (s->opt.fair_sharing) {
		if (sa != sb)
			return sa < sb;
	} else if (quota_borrows_any(&s->q, a) != quota_borrows_any(&s->q, b)) {
		return !quota_borrows_any(&s->q, a);
	}
	return sched_wl_cmp(s, queue_peek(&s->cqs[a].heap),
			    queue_peek(&s->cqs[b].heap)) < 0;
}

/* The queue whose head goes next, or -1. */
static int32_t pick(struct sched *s)
{
	int32_t best = -1;
	int64_t best_share = 0;

	for (size_t i = 0; i < s->ncq; i++) {
		struct sched_cq *q = &s->cqs[i];
		int64_t share = 0;

		if (!q->active || q->blocked || !q->heap.len)
			continue;
		if (s->opt.fair_sharing)
			share = quota_share(&s->q, (int32_t)i, NULL);
		if (best < 0 ||
		    before(s, (int32_t)i, share, best, best_share)) {
			best = (int32_t)i;
			best_share = share;
		}
	}
	return best;
}

static void decide(struct sched_decisions *out, enum sched_decision_kind k,
		   uint32_t wl, uint32_t by, enum sched_preempt_reason r)
{
	if (out)
		vec_push(&out->items,
			 ((struct sched_decision){ k, wl, by, r }));
}

/* Try fewer pods (minCount): the largest count that fits, or false. */
static bool try_partial(struct sched *s, uint32_t id, struct assign *a)
{
	const struct workload *w = s->wl[id].w;
	int32_t counts[WORKLOAD_MAX_PODSETS];
	int32_t lo, hi, best = -1;
	size_t j = w->npodsets;

	for (size_t i = 0; i < w->npodsets; i++) {
		counts[i] = w->podsets[i].count;
		if (w->podsets[i].min_count < w->podsets[i].count &&
		    j == w->npodsets)
			j = i;
	}
	if (s->opt.no_partial || j == w->npodsets)
		return false;
	lo = w->podsets[j].min_count > 0 ? w->podsets[j].min_count : 1;
	hi = w->podsets[j].count - 1;
	while (lo <= hi) {
		int32_t mid = lo + (hi - lo) / 2;

		counts[j] = mid;
		assign_workload(s, id, counts, a);
		if (a->mode == ASSIGN_FIT) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best < 0)
		return false;
	counts[j] = best;
	assign_workload(s, id, counts, a);
	return a->mode == ASSIGN_FIT;
}

/* Evict victims for id, if any set makes room, and assign it again. */
static void try_preempt(struct sched *s, uint32_t id, struct assign *a,
			int64_t now_us, struct sched_decisions *out,
			size_t *ret_n)
{
	uint32_t *t;
	enum sched_preempt_reason *r;
	size_t n = preempt_find(s, id, a, &t, &r);

	*ret_n = n;
	for (size_t i = 0; i < n; i++) {
		BUG_ON(s->wl[t[i]].state != SCHED_WL_ADMITTED);
		sched_preempt(s, t[i], id, r[i], now_us);
		decide(out, SCHED_DECIDE_PREEMPT, t[i], id, r[i]);
	}
	free(t);
	free(r);
	if (n)
		assign_workload(s, id, NULL, a);
}

/* The head did not fit: park it, or block a StrictFIFO queue. */
static void no_fit(struct sched *s, uint32_t id, struct assign *a)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_cq *q = &s->cqs[wl->cq];

	if (q->cq->queueing == QUEUEING_STRICT_FIFO) {
		q->blocked = true;
		sched_why_set(&wl->why, a->why.code, a->why.msg);
		a->why.msg = NULL;
		return;
	}
	queue_remove(&q->heap, id);
	sched_park(s, id, &a->why);
}

/* Decide the head id of its queue. Returns the decisions it made. */
static size_t process(struct sched *s, uint32_t id, struct assign *a,
		      int64_t now_us, struct sched_decisions *out)
{
	size_t n = 0;

	assign_workload(s, id, NULL, a);
	if (a->mode == ASSIGN_PREEMPT)
		try_preempt(s, id, a, now_us, out, &n);
	if (a->mode != ASSIGN_FIT) {
		struct sched_why keep = a->why;

		a->why.msg = NULL;
		if (!try_partial(s, id, a)) {
			sched_why_set(&a->why, keep.code, keep.msg);
			no_fit(s, id, a);
			return n;
		}
		free(keep.msg);
	}
	sched_admit(s, id, a, now_us);
	decide(out, SCHED_DECIDE_ADMIT, id, 0, 0);
	return n + 1;
}

/*
 * The Evicted reason when StopPolicy HoldAndDrain takes admitted id away
 * from queue q: q's own policy, else that of id's LocalQueue; or NULL.
 */
static const char *drain_reason(const struct sched *s, const struct sched_cq *q,
				uint32_t id)
{
	int32_t lq = s->wl[id].lq;

	if (q->cq->stop == STOP_HOLD_AND_DRAIN)
		return "ClusterQueueStopped";
	if (lq >= 0 && s->c->local_queues.items[lq].stop == STOP_HOLD_AND_DRAIN)
		return "LocalQueueStopped";
	return NULL;
}

/* StopPolicy HoldAndDrain: evict what a stopped ClusterQueue or
 * LocalQueue has admitted. */
static size_t drain(struct sched *s, int64_t now_us)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ncq; i++) {
		struct sched_cq *q = &s->cqs[i];
		size_t j = 0;

		while (q->drains && j < q->admitted.len) {
			uint32_t id = q->admitted.items[j];
			const char *why = drain_reason(s, q, id);

			if (!why) {
				j++;
				continue;
			}
			/* The last admitted one takes slot j. */
			sched_evict(s, id, why, now_us);
			n++;
		}
	}
	return n;
}

size_t sched_cycle(struct sched *s, int64_t now_us, struct sched_decisions *out)
{
	struct assign a;
	size_t n;
	int32_t cq;

	s->cycle++;
	sched_requeue_due(s, now_us);
	vec_foreach (&s->deferred, id) {
		s->wl[*id].deferred = false;
		if (s->wl[*id].state == SCHED_WL_PENDING)
			sched_enqueue(s, *id);
	}
	s->deferred.len = 0;
	n = drain(s, now_us);
	sched_unpark_dirty(s);
	for (size_t i = 0; i < s->ncq; i++)
		s->cqs[i].blocked = false;
	assign_init(&a);
	s->cycle_admits = 0;
	while ((!s->opt.admit_limit || s->cycle_admits < s->opt.admit_limit) &&
	       (cq = pick(s)) >= 0)
		n += process(s, queue_peek(&s->cqs[cq].heap), &a, now_us, out);
	assign_release(&a);
	return n;
}

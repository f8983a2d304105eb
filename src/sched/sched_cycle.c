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

#include <string.h>

#include "base/alloc.h"
#include "sched/sched_int.h"

#include "base/banned.h"

/* Queue i's head as the cycle sees it, worked out once per head and
 * cycle: Kueue orders the heads of a cycle by their assignment against
 * the usage of its snapshot. */
static const struct sched_cq *estimate(struct sched *s, int32_t i)
{
	struct sched_cq *q = &s->cqs[i];
	uint32_t h = queue_peek(&q->heap);

	if (q->est_id == h && q->est_cycle == s->cycle)
		return q;
	q->est_id = h;
	q->est_cycle = s->cycle;
	q->est_level = assign_estimate(s, h, q->est_flavor, q->est_need);
	return q;
}

/* How a head ranks in the cycle: fair sharing's keys, or the borrowing
 * level of its assignment. */
struct rank {
	bool borrows; /* fair sharing: its queue borrows with it */
	int64_t key;  /* share after admitting it, or borrowing level */
};

/*
 * Kueue's computeDRS (fair_sharing_iterator.go) for queue i: with its
 * head's usage added (SimulateUsageAddition), the dominant share of every
 * node on its path to the root and whether that node then borrows a
 * requested flavor-resource (FairSharingPrioritizeNonBorrowing), into
 * s->fs_path; the usage is taken back. Returns the queue's own level.
 */
static struct rank fs_rank(struct sched *s, int32_t i)
{
	const struct sched_cq *q = estimate(s, i);
	struct sched_fs_level *path = &s->fs_path[(size_t)i * s->fs_depth];
	struct rank k;
	size_t l = 0;

	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (q->est_flavor[r] >= 0 && q->est_need[r] > 0)
			quota_add(&s->q, i, QUOTA_FR(q->est_flavor[r], r),
				  q->est_need[r]);
	}
	for (int32_t n = i; n >= 0; n = s->q.nodes[n].parent, l++) {
		path[l].share = quota_share(&s->q, n, NULL);
		path[l].borrows = false;
		for (int r = 0; r < RESOURCE_MAX; r++) {
			if (q->est_flavor[r] >= 0 && q->est_need[r] > 0 &&
			    quota_borrowing(&s->q, n,
					    QUOTA_FR(q->est_flavor[r], r)))
				path[l].borrows = true;
		}
	}
	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (q->est_flavor[r] >= 0 && q->est_need[r] > 0)
			quota_add(&s->q, i, QUOTA_FR(q->est_flavor[r], r),
				  -q->est_need[r]);
	}
	k.borrows = path[0].borrows;
	k.key = path[0].share;
	return k;
}

static struct rank rank_of(struct sched *s, int32_t i)
{
	struct rank k = { false, estimate(s, i)->est_level };

	return k;
}

/*
 * Whether queue a's head goes before queue b's. Kueue's classical
 * iterator (scheduler.go, makeClassicalIterator): the lower borrowing
 * level of the head's assignment first (Assignment.Borrows(), the height
 * of the lowest subtree that holds it); with fair sharing, heads whose
 * queue stays within its quota first, then the lower share after
 * admitting the head; then priority and queue-order time (the head order).
 */
static bool before(struct sched *s, int32_t a, struct rank ka, int32_t b,
		   struct rank kb)
{
	if (ka.borrows != kb.borrows)
		return !ka.borrows;
	if (ka.key != kb.key)
		return ka.key < kb.key;
	return sched_wl_cmp(s, queue_peek(&s->cqs[a].heap),
			    queue_peek(&s->cqs[b].heap)) < 0;
}

static bool can_go(const struct sched_cq *q)
{
	return q->active && !q->blocked && q->heap.len;
}

/* The level of queue i's path whose node is a child of cohort c. */
static const struct sched_fs_level *fs_level(const struct sched *s, int32_t i,
					     int32_t c)
{
	size_t l = 0;

	for (int32_t n = i; s->q.nodes[n].parent != c; n = s->q.nodes[n].parent)
		l++;
	return &s->fs_path[(size_t)i * s->fs_depth + l];
}

/*
 * Kueue's runTournament: the winner among cohort c's child queues' heads
 * and its child cohorts' winners, compared by the share of c's child on
 * each one's path (non-borrowing first, then the lower share, then the
 * head order). -1 when no queue below c has a head.
 */
static int32_t tournament(struct sched *s, int32_t c)
{
	const struct quota_node *qn = &s->q.nodes[c];
	int32_t best = -1;

	for (size_t k = 0; k < qn->nchildren; k++) {
		int32_t ch = qn->children[k], w;
		const struct sched_fs_level *a, *b;

		if (s->q.nodes[ch].is_cq)
			w = can_go(&s->cqs[ch]) ? ch : -1;
		else
			w = tournament(s, ch);
		if (w < 0)
			continue;
		if (best < 0) {
			best = w;
			continue;
		}
		a = fs_level(s, w, c);
		b = fs_level(s, best, c);
		if (a->borrows != b->borrows ? !a->borrows
		    : a->share != b->share
			    ? a->share < b->share
			    : sched_wl_cmp(s, queue_peek(&s->cqs[w].heap),
					   queue_peek(&s->cqs[best].heap)) < 0)
			best = w;
	}
	return best;
}

/* With fair sharing: each tree's tournament winner, then across trees
 * (Kueue: in no particular order) by the queues' own ranks. */
static int32_t fs_pick(struct sched *s)
{
	int32_t best = -1;
	struct rank best_rank = { false, 0 };

	for (size_t i = 0; i < s->ncq; i++) {
		if (can_go(&s->cqs[i]))
			fs_rank(s, (int32_t)i);
	}
	for (size_t n = 0; n < s->q.nnodes; n++) {
		int32_t w;
		struct rank k;

		if (s->q.nodes[n].parent >= 0)
			continue;
		if (s->q.nodes[n].is_cq)
			w = can_go(&s->cqs[n]) ? (int32_t)n : -1;
		else
			w = tournament(s, (int32_t)n);
		if (w < 0)
			continue;
		k.borrows = s->fs_path[(size_t)w * s->fs_depth].borrows;
		k.key = s->fs_path[(size_t)w * s->fs_depth].share;
		if (best < 0 || before(s, w, k, best, best_rank)) {
			best = w;
			best_rank = k;
		}
	}
	return best;
}

/* The queue whose head goes next, or -1. */
static int32_t pick(struct sched *s)
{
	int32_t best = -1;
	struct rank best_rank = { false, 0 };

	if (s->opt.fair_sharing)
		return fs_pick(s);
	for (size_t i = 0; i < s->ncq; i++) {
		struct sched_cq *q = &s->cqs[i];
		struct rank k;

		if (!can_go(q))
			continue;
		k = rank_of(s, (int32_t)i);
		if (best < 0 || before(s, (int32_t)i, k, best, best_rank)) {
			best = (int32_t)i;
			best_rank = k;
		}
	}
	return best;
}

static void decide(struct sched_decisions *out, enum sched_decision_kind k,
		   uint32_t wl, uint32_t by, enum sched_preempt_reason r,
		   int32_t cq)
{
	if (out)
		vec_push(&out->items,
			 ((struct sched_decision){ k, wl, by, r, cq }));
}

/* Evict victims for id, if any set makes room, and assign it again at
 * the same counts. */
static void try_preempt(struct sched *s, uint32_t id, struct assign *a,
			int64_t now_us, struct sched_decisions *out,
			size_t *ret_n)
{
	int32_t counts[WORKLOAD_MAX_PODSETS];
	uint32_t *t;
	enum sched_preempt_reason *r;
	size_t n = preempt_find(s, id, a, &t, &r);

	*ret_n += n;
	for (size_t i = 0; i < n; i++) {
		int32_t cq;

		BUG_ON(s->wl[t[i]].state != SCHED_WL_ADMITTED);
		cq = s->wl[t[i]].adm->cq;
		sched_preempt(s, t[i], id, r[i], now_us);
		decide(out, SCHED_DECIDE_PREEMPT, t[i], id, r[i], cq);
	}
	free(t);
	free(r);
	if (n && !s->opt.hold_victims) {
		memcpy(counts, a->counts, sizeof(counts));
		assign_workload(s, id, counts, a);
	}
}

/* Whether id could be admitted at counts: fits, or fits once victims that
 * exist are evicted (Kueue's partial admission preempts too). */
static bool fits_at(struct sched *s, uint32_t id, const int32_t *counts,
		    struct assign *a)
{
	uint32_t *t;
	enum sched_preempt_reason *r;
	size_t n;

	assign_workload(s, id, counts, a);
	if (a->mode == ASSIGN_FIT)
		return true;
	if (a->mode != ASSIGN_PREEMPT || a->pmode == ASSIGN_PM_NO_CANDIDATES)
		return false;
	n = preempt_find(s, id, a, &t, &r);
	free(t);
	free(r);
	return n > 0;
}

/* Kueue's podset_reducer.go: the counts at step k of total. */
static void reduce(const struct workload *w, int64_t k, int64_t total,
		   int32_t *counts)
{
	for (size_t i = 0; i < w->npodsets; i++) {
		int64_t d = w->podsets[i].count - w->podsets[i].min_count;

		counts[i] = w->podsets[i].count - (int32_t)(d * k / total);
	}
}

/*
 * Partial admission as Kueue's PodSetReducer: every pod set with a
 * minCount shrinks by the same fraction k/total of its (count -
 * minCount), total being the sum of those spans; a binary search finds
 * the smallest k that fits. Leaves in a the assignment at those counts
 * (FIT, or PREEMPT with victims to find) and returns true, or false.
 */
static bool try_partial(struct sched *s, uint32_t id, struct assign *a)
{
	const struct workload *w = s->wl[id].w;
	int32_t counts[WORKLOAD_MAX_PODSETS];
	int64_t total = 0, lo = 1, hi, best = -1;

	for (size_t i = 0; i < w->npodsets; i++)
		total += w->podsets[i].count - w->podsets[i].min_count;
	if (s->opt.no_partial || total <= 0)
		return false;
	hi = total;
	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2;

		reduce(w, mid, total, counts);
		if (fits_at(s, id, counts, a)) {
			best = mid;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	if (best < 0)
		return false;
	reduce(w, best, total, counts);
	assign_workload(s, id, counts, a);
	return a->mode == ASSIGN_FIT || a->mode == ASSIGN_PREEMPT;
}

/* The head did not fit: park it, or block a StrictFIFO queue. */
static void no_fit(struct sched *s, uint32_t id, struct assign *a)
{
	struct sched_wl *wl = &s->wl[id];
	struct sched_cq *q = &s->cqs[wl->cq];

	if (q->cq->queueing == QUEUEING_STRICT_FIFO) {
		q->blocked = true;
		sched_touch(s, id);
		sched_why_set(&wl->why, a->why.code, a->why.msg);
		a->why.msg = NULL;
		return;
	}
	backfill_reserve(s, id, a);
	queue_remove(&q->heap, id);
	sched_park(s, id, &a->why);
}

/* id waits for its victims: the first such of its queue holds back the
 * workloads behind it. */
static void note_waiting(struct sched *s, uint32_t id)
{
	struct sched_cq *q = &s->cqs[s->wl[id].cq];

	if (q->waiting == QUEUE_NONE || sched_wl_cmp(s, id, q->waiting) < 0)
		q->waiting = id;
}

/* Kueue (live): a preemptor whose victims still hold their quota waits at
 * the head of its queue, and preempts no more meanwhile. */
static size_t wait_for_victims(struct sched *s, uint32_t id, struct assign *a,
			       size_t n)
{
	sched_why_set(&a->why, SCHED_PEND_WAITING_FOR_QUOTA,
		      xasprintf("Preempting: waiting for %u preempted "
				"workload(s) to release their quota",
				s->wl[id].victims_held));
	no_fit(s, id, a);
	note_waiting(s, id);
	return n;
}

/*
 * Kueue keeps a preemptor at the head of its queue until its victims are
 * gone, so nothing behind it is admitted meanwhile. Without that, one
 * behind it takes the capacity it preempted for (a node its topology
 * needs), it preempts that one too, the first victim comes back, and so on
 * without end. Whether id must wait so.
 */
static bool behind_waiting(struct sched *s, uint32_t id, struct assign *a)
{
	uint32_t p = s->cqs[s->wl[id].cq].waiting;

	if (p == QUEUE_NONE || p == id || sched_wl_cmp(s, p, id) > 0)
		return false;
	sched_why_set(&a->why, SCHED_PEND_WAITING_FOR_QUOTA,
		      xasprintf("Pending: behind %s/%s, which is preempting",
				s->wl[p].w->ns, s->wl[p].w->name));
	no_fit(s, id, a);
	return true;
}

/* At the start of a cycle: the preemptors that wait, per queue. */
static void find_waiting(struct sched *s)
{
	for (size_t i = 0; i < s->ncq; i++)
		s->cqs[i].waiting = QUEUE_NONE;
	/* without a victim holding quota no preemptor waits: no scan of
	 * every workload per cycle */
	if (!s->opt.hold_victims || !s->nheld)
		return;
	for (uint32_t id = 0; id < s->nwl; id++) {
		if (s->wl[id].w && s->wl[id].victims_held &&
		    s->wl[id].state == SCHED_WL_PENDING && s->wl[id].cq >= 0)
			note_waiting(s, id);
	}
}

/* Decide the head id of its queue. Returns the decisions it made. */
static size_t process(struct sched *s, uint32_t id, struct assign *a,
		      int64_t now_us, struct sched_decisions *out)
{
	size_t n = 0;

	if (s->wl[id].victims_held)
		return wait_for_victims(s, id, a, 0);
	if (behind_waiting(s, id, a))
		return 0;
	assign_workload(s, id, NULL, a);
	/* Kueue asks for targets whenever the mode is Preempt; the oracle
	 * said already that a flavor has none. */
	if (a->mode == ASSIGN_PREEMPT && a->pmode != ASSIGN_PM_NO_CANDIDATES)
		try_preempt(s, id, a, now_us, out, &n);
	if (s->wl[id].victims_held)
		return wait_for_victims(s, id, a, n);
	if (a->mode != ASSIGN_FIT) {
		struct sched_why keep = a->why;

		a->why.msg = NULL;
		if (try_partial(s, id, a) && a->mode == ASSIGN_PREEMPT &&
		    a->pmode != ASSIGN_PM_NO_CANDIDATES)
			try_preempt(s, id, a, now_us, out, &n);
		if (a->mode != ASSIGN_FIT) {
			sched_why_set(&a->why, keep.code, keep.msg);
			no_fit(s, id, a);
			return n;
		}
		free(keep.msg);
	}
	sched_admit(s, id, a, now_us);
	decide(out, SCHED_DECIDE_ADMIT, id, 0, 0, s->wl[id].cq);
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

/* Log the attempt on id that just ended when it ran the placement. */
static void log_attempt(struct sched *s, uint32_t id)
{
	struct sched_place_time *t;

	if (!s->placed)
		return;
	t = &s->place_log[s->nplace++ % SCHED_PLACE_LOG];
	t->ns = s->place_ns;
	t->admitted = s->wl[id].state == SCHED_WL_ADMITTED;
}

uint64_t sched_place_attempts(const struct sched *s, uint64_t *ret_stamp)
{
	if (ret_stamp)
		*ret_stamp = s->stamp;
	return s->nplace;
}

const struct sched_place_time *sched_place_time_at(const struct sched *s,
						   uint64_t i)
{
	if (i >= s->nplace || s->nplace - i > SCHED_PLACE_LOG)
		return NULL;
	return &s->place_log[i % SCHED_PLACE_LOG];
}

size_t sched_cycle(struct sched *s, int64_t now_us, struct sched_decisions *out)
{
	struct assign a;
	uint32_t head;
	size_t n;
	int32_t cq;

	s->cycle++;
	s->now_us = now_us;
	sched_requeue_due(s, now_us);
	backfill_cycle(s);
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
	find_waiting(s);
	assign_init(&a);
	s->cycle_admits = 0;
	while ((!s->opt.admit_limit || s->cycle_admits < s->opt.admit_limit) &&
	       (cq = pick(s)) >= 0) {
		head = queue_peek(&s->cqs[cq].heap);
		s->place_ns = 0;
		s->placed = false;
		n += process(s, head, &a, now_us, out);
		log_attempt(s, head);
	}
	assign_release(&a);
	sched_settle_classes(s);
	return n;
}

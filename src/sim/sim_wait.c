// SPDX-License-Identifier: Apache-2.0
/*
 * Why each job waits, and for how long (sim_options.waits): after the
 * events of each time and the cycles that follow, every job that is
 * pending or admitted but not running is asked the controller's question
 * (ctl_wl_wait(), the answer `plan` and the daemon give), and the time
 * since its reason last changed goes to that reason. A job is looked at
 * only while it may wait (sim_state.watch), so a run pays per waiting job
 * and step, not per job.
 */
#include "sim/sim_int.h"

#include <inttypes.h>
#include <stdlib.h>

#include "base/alloc.h"

#include "base/banned.h"

_Static_assert(SIM_WAIT_CTL == 1 + SCHED_PEND_COUNT, "SIM_WAIT_CTL");
_Static_assert(SIM_WAIT_COUNT == SIM_WAIT_CTL + CTL_WAIT_COUNT,
	       "SIM_WAIT_COUNT");

const char *sim_wait_name(unsigned reason)
{
	BUG_ON(reason >= SIM_WAIT_COUNT);
	if (!reason)
		return NULL;
	if (reason < SIM_WAIT_CTL)
		return sched_pend_name((enum sched_pend)(reason - 1));
	return ctl_wait_name((enum ctl_wait)(reason - SIM_WAIT_CTL),
			     SCHED_PEND_EVALUATION);
}

static bool may_wait(const struct sim_state *st, uint32_t j)
{
	enum sim_job_state s = st->res->jobs[j].state;

	return s == SIM_JOB_PENDING || s == SIM_JOB_ADMITTED;
}

void sim_wait_track(struct sim_state *st, uint32_t j)
{
	struct sim_jst *x = &st->js[j];

	if (!st->o->waits || x->watch_pos || !may_wait(st, j))
		return;
	vec_push(&st->watch, j);
	x->watch_pos = (uint32_t)st->watch.len;
}

static void unwatch(struct sim_state *st, uint32_t j)
{
	struct sim_jst *x = &st->js[j];
	uint32_t last = vec_pop(&st->watch);

	if (last != j) {
		st->watch.items[x->watch_pos - 1] = last;
		st->js[last].watch_pos = x->watch_pos;
	}
	x->watch_pos = 0;
}

static uint8_t code(const struct sim_state *st, uint32_t wl)
{
	enum sched_pend p = SCHED_PEND_EVALUATION;
	enum ctl_wait w = ctl_wl_wait(st->ctl, wl, &p);

	if (w == CTL_WAIT_NONE)
		return 0;
	if (w == CTL_WAIT_PENDING)
		return (uint8_t)(1 + p);
	return (uint8_t)(SIM_WAIT_CTL + w);
}

/*
 * Job j's reason now, and the workload it comes from into *ret_wl
 * (UINT32_MAX: none). Under no-gang, the reason of its first pod still
 * queued, else of its first pod whose start it waits for. An admitted job
 * whose workloads wait for nothing waits for its other pods.
 */
static uint8_t reason(const struct sim_state *st, uint32_t j, uint32_t *ret_wl)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	uint32_t from = UINT32_MAX, from_assembly = UINT32_MAX;
	uint8_t r = 0, assembly = 0;

	*ret_wl = UINT32_MAX;
	if (!may_wait(st, j))
		return 0;
	if (!st->split) {
		from = st->js[j].wl;
		r = from == UINT32_MAX ? 0 : code(st, from);
	} else {
		for (uint32_t k = 0; k < (uint32_t)job->pods; k++) {
			uint32_t wl = sim_run_split_slot(st, j, k);
			uint8_t c = wl == UINT32_MAX ? 0 : code(st, wl);

			if (c && c < SIM_WAIT_CTL + CTL_WAIT_ASSEMBLY) {
				r = c;
				from = wl;
				break;
			}
			if (c && !assembly) {
				assembly = c;
				from_assembly = wl;
			}
		}
		if (!r) {
			r = assembly;
			from = from_assembly;
		}
	}
	if (r) {
		*ret_wl = from;
		return r;
	}
	return st->res->jobs[j].state == SIM_JOB_ADMITTED
		       ? SIM_WAIT_CTL + CTL_WAIT_ASSEMBLY
		       : 1 + SCHED_PEND_EVALUATION;
}

/* Add us to reason r of job j's record. */
static void spend(struct sim_state *st, uint32_t j, uint8_t r, int64_t us)
{
	struct sim_job_rec *rec = &st->res->jobs[j];

	for (uint8_t i = 0; i < rec->nwaits; i++) {
		if (rec->waits[i].reason == r) {
			rec->waits[i].us += us;
			return;
		}
	}
	BUG_ON(rec->nwaits >= SIM_WAIT_COUNT);
	rec->waits = xreallocarray(rec->waits, rec->nwaits + 1u,
				   sizeof(*rec->waits));
	rec->waits[rec->nwaits].reason = r;
	rec->waits[rec->nwaits++].us = us;
}

void sim_wait_update(struct sim_state *st)
{
	for (size_t i = st->watch.len; i-- > 0;) {
		uint32_t j = st->watch.items[i];
		struct sim_jst *x = &st->js[j];
		uint32_t wl;
		uint8_t r = reason(st, j, &wl);

		if (r != x->wait) {
			if (x->wait)
				spend(st, j, x->wait, st->now - x->wait_since);
			x->wait = r;
			x->wait_since = st->now;
			if (r)
				sim_run_log(st, "wait %s reason=%s",
					    st->in->jobs.items[j].name,
					    sim_wait_name(r));
		}
		if (!r && !may_wait(st, j))
			unwatch(st, j);
	}
}

void sim_wait_finish(struct sim_state *st)
{
	struct strbuf msg;

	strbuf_init(&msg);
	for (size_t i = 0; i < st->watch.len; i++) {
		uint32_t j = st->watch.items[i];
		struct sim_jst *x = &st->js[j];
		uint32_t wl;

		if (!x->wait)
			continue;
		spend(st, j, x->wait, st->now - x->wait_since);
		st->res->jobs[j].wait_end = x->wait;
		/* the numbers behind a queued job's reason, as in plan */
		if (x->wait >= SIM_WAIT_CTL + CTL_WAIT_ASSEMBLY ||
		    reason(st, j, &wl) != x->wait || wl == UINT32_MAX ||
		    sched_wl_state(st->s, wl) != SCHED_WL_PENDING)
			continue;
		strbuf_reset(&msg);
		(void)sched_wl_pending(st->s, wl, &msg);
		st->res->jobs[j].wait_msg = xstrdup(msg.buf);
	}
	strbuf_release(&msg);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The decisions of the scheduler core and of the gang lifecycle, applied
 * to a simulation run: admission cycles (admissions bind gangs, preemptions
 * take victims off their nodes), lifecycle timeouts (evictions with
 * requeue backoff, deactivations, PodGroup releases), node failures
 * (replacement inside the domain, or eviction) and repairs.
 */
#include "sim/sim_int.h"

#include <math.h>

#include "base/alloc.h"

#include "base/banned.h"

static const char *wl_name(const struct sim_state *st, uint32_t wl)
{
	return st->in->c->workloads.items[wl].name;
}

static void preempted(struct sim_state *st, const struct sched_decision *d)
{
	int32_t j = st->wl_job[d->wl];

	BUG_ON(j < 0);
	sim_run_log(st, "preempt %s by %s reason=%s", wl_name(st, d->wl),
		    wl_name(st, d->by), sched_preempt_reason_name(d->reason));
	st->res->jobs[j].preemptions++;
	st->res->sum.preemptions++;
	gang_evicted(st->g, d->wl, st->now);
	sim_run_unadmitted(st, d->wl, false);
}

void sim_apply_cycles(struct sim_state *st)
{
	struct sched_decisions d;
	unsigned guard = 0;

	sched_decisions_init(&d);
	while (st->dirty && !gang_blocks_admission(st->g)) {
		bool again = false;

		st->dirty = false;
		d.items.len = 0;
		sched_cycle(st->s, st->now, &d);
		st->res->cycles++;
		vec_foreach (&d.items, x) {
			if (st->wl_job[x->wl] < 0)
				continue; /* not a workload of this run */
			if (x->kind == SCHED_DECIDE_PREEMPT) {
				preempted(st, x);
				again = true; /* victims queue next cycle */
			} else {
				sim_run_admitted(st, x->wl);
				/* more may fit once it is ready */
				again |= st->one_per_cycle;
			}
		}
		st->dirty = again;
		BUG_ON(++guard > 1000000);
	}
	sched_decisions_release(&d);
}

static void apply_gang(struct sim_state *st, const struct gang_decisions *gd)
{
	vec_foreach (&gd->items, d) {
		if (st->wl_job[d->wl] < 0)
			continue;
		switch (d->kind) {
		case GANG_EVICT:
		case GANG_RELEASE:
			sim_run_log(st, "evict %s reason=%s requeue_at=%.3f",
				    wl_name(st, d->wl), d->reason,
				    (double)d->requeue_at_us / 1e6);
			sched_evict_until(st->s, d->wl, d->reason,
					  d->requeue_at_us, st->now);
			sim_run_unadmitted(st, d->wl, false);
			break;
		case GANG_DEACTIVATE:
			sim_run_log(st, "deactivate %s reason=%s",
				    wl_name(st, d->wl), d->reason);
			sched_deactivate(st->s, d->wl, d->reason, st->now);
			sim_run_unadmitted(st, d->wl, true);
			break;
		case GANG_REPLACED:
			/* its pods moved already (on_bind) */
			sim_run_log(st, "replace %s pods=%u",
				    wl_name(st, d->wl), d->pods);
			break;
		default:
			BUG_ON(1);
		}
	}
}

void sim_apply_tick(struct sim_state *st)
{
	struct gang_decisions gd;

	gang_decisions_init(&gd);
	gang_tick(st->g, st->now, &gd);
	apply_gang(st, &gd);
	gang_decisions_release(&gd);
	if (sched_next_requeue_us(st->s) <= st->now)
		st->dirty = true;
}

/* Hours from the failure rate: exponential, mean node_mtbf_h. */
static void push_random_failure(struct sim_state *st, uint32_t node)
{
	double u = rng_double(&st->rng);
	double h = -log1p(-u) * st->o->node_mtbf_h;
	double at = (double)st->now + h * 3.6e9;

	if (at < 9e18)
		sim_run_push(st, (int64_t)at, EV_NODE_DOWN, node, -1);
}

void sim_apply_node_down(struct sim_state *st, uint32_t node, int64_t which)
{
	const char *name = st->in->c->nodes.items[node].name;
	int64_t repair = which < 0 ? st->o->node_repair_us
				   : st->o->failures[which].repair_us;
	struct gang_decisions gd;

	if (st->node_down[node]) {
		/* Down already, its repair pending: a drawn failure is drawn
		 * again from now, a scheduled one is dropped. */
		if (which < 0)
			push_random_failure(st, node);
		return;
	}
	st->node_down[node] = true;
	st->res->sum.node_failures++;
	sim_run_log(st, "node-down %s", name);
	sched_node_set_down(st->s, node, true, st->now);
	gang_decisions_init(&gd);
	gang_node_failed(st->g, name, st->now, &gd);
	apply_gang(st, &gd);
	gang_decisions_release(&gd);
	if (repair > 0)
		sim_run_push(st, st->now + repair, EV_NODE_UP, node, which < 0);
}

void sim_apply_node_up(struct sim_state *st, uint32_t node, int64_t random)
{
	st->node_down[node] = false;
	sim_run_log(st, "node-up %s", st->in->c->nodes.items[node].name);
	sched_node_set_down(st->s, node, false, st->now);
	st->dirty = true;
	if (random && st->o->node_mtbf_h > 0)
		push_random_failure(st, node);
}

void sim_apply_failures(struct sim_state *st)
{
	const struct cluster *c = st->in->c;

	for (size_t i = 0; i < st->o->nfailures; i++) {
		const struct sim_failure *f = &st->o->failures[i];
		sim_run_push(st, f->at_us, EV_NODE_DOWN,
			     sim_run_node(st, f->node), (int64_t)i);
	}
	if (st->o->node_mtbf_h <= 0)
		return;
	for (size_t n = 0; n < c->nodes.len; n++)
		push_random_failure(st, (uint32_t)n);
}

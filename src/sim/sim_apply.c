// SPDX-License-Identifier: Apache-2.0
/*
 * Node failures and repairs of a simulation run, drawn from the failure
 * rate or scheduled: the run's own view of the node, then the event handed
 * to the controller (replacement inside the domain, or eviction).
 */
#include "sim/sim_int.h"

#include <math.h>

#include "base/alloc.h"

#include "base/banned.h"

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

	if (st->node_down[node]) {
		/* Down already, its repair pending: a drawn failure is drawn
		 * again from now, a scheduled one is dropped. */
		if (which < 0)
			push_random_failure(st, node);
		return;
	}
	st->node_down[node] = true;
	st->res->sum.node_failures++;
	sim_run_failure(st);
	sim_run_log(st, "node-down %s", name);
	ctl_node_down(st->ctl, node, true, st->now);
	if (repair > 0)
		sim_run_push(st, st->now + repair, EV_NODE_UP, node, which < 0);
}

void sim_apply_node_up(struct sim_state *st, uint32_t node, int64_t random)
{
	st->node_down[node] = false;
	sim_run_log(st, "node-up %s", st->in->c->nodes.items[node].name);
	ctl_node_down(st->ctl, node, false, st->now);
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

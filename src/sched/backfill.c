// SPDX-License-Identifier: Apache-2.0
/*
 * Runtime estimates, reservations and backfill (sched_options.backfill):
 * Slurm's backfill applied per topology domain. A compact gang that waits
 * for room (quota fits, a compact placement does not) reserves the
 * domains of the level above the hosts where it is expected to fit first:
 * the admitted workloads of its flavor are taken out of the index in the
 * order of their expected ends (admission + estimate) until it fits, and
 * the domains of that placement are reserved from the last of those ends.
 * Another workload may then be placed on a reserved node only when it is
 * expected to end before the reservation starts, or outranks the gang
 * (a reservation never overrides priorities, quota or preemption); the
 * others do not see those nodes. A workload without an estimate ends
 * never: it is not backfilled, and a domain where one runs is reserved
 * only when the gang fits beside it.
 *
 * Estimates: what the driver says (sched_wl_set_estimate()), else the
 * runtime limit of the workload's owner (workload.max_exec_us).
 *
 * Reservations are derived from the state: they are made again whenever
 * the gang is tried and fails, and after an import at the next cycle. A
 * gang admitted after its reservation's start (a workload overran its
 * estimate) counts as delayed. See docs/internals/backfill.md.
 */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sched/sched_int.h"

#include "base/banned.h"

void sched_wl_set_estimate(struct sched *s, uint32_t wl, int64_t est_us)
{
	BUG_ON(wl >= s->nwl || !s->wl[wl].w || est_us < 0);
	/* an admitted one's end moves: reservations follow at the next
	 * cycle */
	if (s->wl[wl].est_us != est_us && s->wl[wl].state == SCHED_WL_ADMITTED)
		s->resv_stale = s->resv.len > 0;
	s->wl[wl].est_us = est_us;
}

int64_t sched_wl_estimate(const struct sched *s, uint32_t wl)
{
	BUG_ON(wl >= s->nwl || !s->wl[wl].w);
	return s->wl[wl].est_us ? s->wl[wl].est_us : s->wl[wl].w->max_exec_us;
}

struct sched_backfill_stats sched_backfill_stats(const struct sched *s)
{
	return s->bf;
}

static struct sched_resv *resv_of(const struct sched *s, uint32_t id)
{
	vec_foreach (&s->resv, r) {
		if (r->wl == id)
			return r;
	}
	return NULL;
}

int32_t sched_wl_reservation(const struct sched *s, uint32_t wl,
			     int64_t *ret_start_us, const uint32_t **ret_nodes,
			     size_t *ret_n)
{
	const struct sched_resv *r = resv_of(s, wl);

	if (!r)
		return -1;
	if (ret_start_us)
		*ret_start_us = r->start_us;
	if (ret_nodes)
		*ret_nodes = r->nodes.items;
	if (ret_n)
		*ret_n = r->nodes.len;
	return r->f;
}

/* Expected end of admitted id; INT64_MAX without an estimate. An overrun
 * one is expected to end now. */
static int64_t expected_end(const struct sched *s, uint32_t id)
{
	int64_t est = sched_wl_estimate(s, id), end;

	if (est <= 0)
		return INT64_MAX;
	end = s->wl[id].admit_us + est;
	return end < s->now_us ? s->now_us : end;
}

void backfill_drop(struct sched *s, uint32_t id, bool admitted)
{
	for (size_t i = 0; i < s->resv.len; i++) {
		struct sched_resv *r = &s->resv.items[i];

		if (r->wl != id)
			continue;
		if (admitted && s->now_us > r->start_us) {
			s->bf.delayed++;
			s->bf.delay_us += s->now_us - r->start_us;
		} else if (admitted) {
			s->bf.honoured++;
		}
		vec_release(&r->nodes);
		s->resv.items[i] = s->resv.items[--s->resv.len];
		return;
	}
}

struct cand {
	int64_t end;
	uint32_t id;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Admitted workloads with pods on f, by expected end, into *ret. */
static size_t candidates(const struct sched *s, int32_t f, struct cand **ret)
{
	VEC(struct cand) v = VEC_INIT;

	for (size_t q = 0; q < s->ncq; q++) {
		vec_foreach (&s->cqs[q].admitted, id) {
			const struct sched_admission *adm = s->wl[*id].adm;
			bool on = false;

			for (size_t i = 0; adm && i < adm->npodsets; i++)
				on |= adm->ps[i].tas_flavor == f;
			if (on)
				vec_push(&v,
					 ((struct cand){ expected_end(s, *id),
							 *id }));
		}
	}
	if (v.len)
		qsort(v.items, v.len, sizeof(*v.items), cand_cmp);
	*ret = v.items;
	return v.len;
}

/* The nodes of the domains (level above the hosts) of adm's pods on f. */
static void reserve_nodes(const struct sched *s, int32_t f,
			  const struct sched_admission *adm,
			  struct sched_resv *r)
{
	const struct topo *t = s->tas[f].t;
	unsigned l = t->nlevels >= 2 ? (unsigned)t->nlevels - 2 : 0;
	VEC(uint32_t) doms = VEC_INIT;

	for (size_t i = 0; i < adm->npodsets; i++) {
		for (int32_t k = 0; adm->ps[i].nodes && k < adm->ps[i].count;
		     k++) {
			uint32_t d =
				tas_domain_of(s, f, adm->ps[i].nodes[k], l);
			bool have = false;

			vec_foreach (&doms, x)
				have |= *x == d;
			if (!have)
				vec_push(&doms, d);
		}
	}
	vec_foreach (&doms, d) {
		for (uint32_t i = 0; i < t->dom_nnodes[*d]; i++)
			vec_push(&r->nodes, t->dom_node[*d] + i);
	}
	vec_release(&doms);
}

/*
 * Take the candidates out of the index in order of their ends until w
 * fits f; the placement into *adm (nodes allocated) and the time into
 * *ret_start. Everything taken out is put back. False when it never fits.
 */
static bool earliest(struct sched *s, int32_t f, uint32_t id,
		     struct sched_admission *adm, int64_t *ret_start)
{
	const struct workload *w = s->wl[id].w;
	struct cand *c = NULL;
	size_t n = candidates(s, f, &c), out = 0;
	bool ok = false;

	while (!ok && out < n && c[out].end != INT64_MAX) {
		int64_t end = c[out].end;

		while (out < n && c[out].end == end) {
			tas_charge(s, s->wl[c[out].id].w, s->wl[c[out].id].adm,
				   -1);
			out++;
		}
		memset(adm, 0, sizeof(*adm));
		adm->npodsets = w->npodsets;
		for (size_t i = 0; i < w->npodsets; i++)
			adm->ps[i].count = w->podsets[i].count;
		ok = tas_place(s, f, w, NULL, true, adm, NULL);
		if (ok) {
			tas_charge(s, w, adm, -1);
			*ret_start = end;
		}
	}
	while (out > 0) {
		out--;
		tas_charge(s, s->wl[c[out].id].w, s->wl[c[out].id].adm, 1);
	}
	free(c);
	return ok;
}

static void reserve_on(struct sched *s, uint32_t id, int32_t f)
{
	struct sched_admission adm;
	struct sched_resv *r;
	int64_t start;

	backfill_drop(s, id, false);
	if (s->resv.len >= SCHED_MAX_RESERVATIONS ||
	    !earliest(s, f, id, &adm, &start))
		return;
	r = vec_push_zero(&s->resv);
	r->wl = id;
	r->f = f;
	r->start_us = start;
	reserve_nodes(s, f, &adm, r);
	for (size_t i = 0; i < adm.npodsets; i++)
		free(adm.ps[i].nodes);
}

void backfill_reserve(struct sched *s, uint32_t id, const struct assign *a)
{
	const struct workload *w = s->wl[id].w;
	bool had = resv_of(s, id) != NULL;

	if (!s->opt.backfill || !a->tas_short || a->tas_flavor < 0 ||
	    w->npodsets != 1 || w->podsets[0].count <= 1)
		return;
	reserve_on(s, id, a->tas_flavor);
	if (!had && resv_of(s, id))
		s->bf.reservations++;
}

/* Whether id may use the nodes of reservation r. */
static bool may_use(const struct sched *s, const struct sched_resv *r,
		    uint32_t id)
{
	int64_t est = sched_wl_estimate(s, id);

	if (r->wl == id || s->wl[id].priority > s->wl[r->wl].priority)
		return true;
	return est > 0 && s->now_us + est <= r->start_us;
}

void backfill_mask(struct sched *s, int32_t f, uint32_t id)
{
	struct topo *t = s->tas[f].t;

	BUG_ON(s->masked.len);
	vec_foreach (&s->resv, r) {
		if (r->f != f || may_use(s, r, id))
			continue;
		vec_foreach (&r->nodes, n) {
			if (!topo_node_live(t, *n))
				continue;
			topo_node_set_removed(t, *n, true);
			vec_push(&s->masked, *n);
		}
	}
}

void backfill_unmask(struct sched *s, int32_t f)
{
	struct topo *t = s->tas[f].t;

	vec_foreach (&s->masked, n)
		topo_node_set_removed(t, *n, false);
	s->masked.len = 0;
}

void backfill_cycle(struct sched *s)
{
	for (size_t i = 0; i < s->resv.len;) {
		uint32_t id = s->resv.items[i].wl;

		if (s->wl[id].w && s->wl[id].state == SCHED_WL_PENDING) {
			i++;
			continue;
		}
		backfill_drop(s, id, false);
	}
	if (s->resv_stale) {
		/* made again from the new estimates (reserve_on() reorders
		 * s->resv: from a copy) */
		VEC(struct sched_resv) old = VEC_INIT;

		vec_foreach (&s->resv, r)
			vec_push(&old, ((struct sched_resv){ .wl = r->wl,
							     .f = r->f }));
		vec_foreach (&old, r)
			reserve_on(s, r->wl, r->f);
		vec_release(&old);
		s->resv_stale = false;
	}
}

void backfill_import(struct sched *s, uint32_t id, const struct sched_saved *in)
{
	int32_t f = in->resv_flavor - 1;
	struct sched_resv *r;

	if (!s->opt.backfill || f < 0 || (size_t)f >= s->c->flavors.len ||
	    !s->tas[f].t || s->resv.len >= SCHED_MAX_RESERVATIONS ||
	    (in->resv_nnodes && !in->resv_nodes))
		return;
	for (size_t i = 0; i < in->resv_nnodes; i++) {
		if (in->resv_nodes[i] >= s->tas[f].t->nnodes)
			return;
	}
	backfill_drop(s, id, false);
	r = vec_push_zero(&s->resv);
	r->wl = id;
	r->f = f;
	r->start_us = in->resv_start_us;
	for (size_t i = 0; i < in->resv_nnodes; i++)
		vec_push(&r->nodes, in->resv_nodes[i]);
}

void backfill_free(struct sched *s)
{
	vec_foreach (&s->resv, r)
		vec_release(&r->nodes);
	vec_release(&s->resv);
	vec_release(&s->masked);
}

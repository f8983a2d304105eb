// SPDX-License-Identifier: Apache-2.0
/*
 * Placements for the scheduler: one topology index per TAS flavor, built
 * once from the nodes and kept up to date by every admission and release,
 * and the bridge to the placement engine (place_workload) at reduced pod
 * counts. An admission records the node of every pod, so that releasing
 * it takes back exactly the usage it added. Flavors may select the same
 * nodes: every change of a node's usage goes to each index that holds the
 * node (place_flavors_charge), so a placement on one flavor sees what
 * the others took. This file only adds to src/topo and src/place; it changes
 * neither.
 */
#include "sched/sched_int.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

void tas_build(struct sched *s)
{
	const struct cluster *c = s->c;

	s->tas = xcalloc(c->flavors.len + 1, sizeof(*s->tas));
	hmap_init(&s->tas_memo);
	hmap_init(&s->compact_memo);
	place_flavors_init(&s->pf, c);
	for (size_t f = 0; f < c->flavors.len; f++) {
		s->tas[f].fl = &c->flavors.items[f];
		s->tas[f].t = s->pf.t[f];
	}
}

void tas_wake_shared(struct sched *s)
{
	size_t nf = s->c->flavors.len;

	for (size_t f = 0; f < nf; f++) {
		for (size_t g = 0; g < nf; g++) {
			if (g == f || !place_flavors_overlap(&s->pf, (int32_t)f,
							     (int32_t)g))
				continue;
			for (size_t i = 0; i < s->flavor_cqs[g].len; i++) {
				int32_t cq = s->flavor_cqs[g].items[i];
				bool have = false;

				vec_foreach (&s->flavor_cqs[f], x)
					have |= *x == cq;
				if (!have)
					vec_push(&s->flavor_cqs[f], cq);
			}
		}
	}
}

void tas_free(struct sched *s)
{
	vec_foreach (&s->tas_fails, f)
		free(f->msg);
	vec_release(&s->tas_fails);
	hmap_release(&s->tas_memo);
	hmap_release(&s->compact_memo);
	vec_release(&s->compact_min);
	if (s->tas)
		place_flavors_release(&s->pf);
	free(s->tas);
	s->tas = NULL;
}

/* Record the node of every pod of a fitting result. */
static void record_nodes(const struct topo *t, const struct place_result *res,
			 int32_t count, struct sched_podset_admission *pa)
{
	size_t k = 0;

	pa->nodes = xcalloc((size_t)count + 1, sizeof(*pa->nodes));
	for (size_t i = 0; i < res->workers.len; i++) {
		for (int32_t j = 0; j < res->workers.items[i].count; j++, k++) {
			uint32_t n = k < res->worker_nodes.len
					     ? res->worker_nodes.items[k]
					     : UINT32_MAX;

			BUG_ON(k >= (size_t)count);
			if (n == UINT32_MAX)
				n = t->dom_node[res->workers.items[i].unit];
			pa->nodes[k] = n;
		}
	}
	BUG_ON(k != (size_t)count);
}

/* tas_charge(), leaving the index of each pod set's flavor alone when
 * others (the placement engine charged it). */
static void charge(struct sched *s, const struct workload *w,
		   const struct sched_admission *adm, int sign, bool others)
{
	for (size_t i = 0; i < adm->npodsets; i++) {
		const struct sched_podset_admission *pa = &adm->ps[i];

		if (pa->tas_flavor < 0 || !pa->nodes)
			continue;
		for (int32_t k = 0; k < pa->count; k++)
			place_flavors_charge(
				&s->pf, pa->tas_flavor, pa->nodes[k],
				&w->podsets[i].requests, sign, others);
	}
	s->tas_gen++;
}

/* The result (and engine cache) for w's placement shape on f. */
static struct place_workload_result *scratch_for(struct sched *s, int32_t f,
						 const struct workload *w)
{
	uint64_t h = s->wl[w - s->c->workloads.items].phash;
	size_t slot = (size_t)((h ^ ((uint64_t)f * 0x9e3779b97f4a7c15ULL)) %
			       SCHED_SCRATCH_SLOTS);

	if (!s->scratch[slot]) {
		s->scratch[slot] = xmalloc(sizeof(*s->scratch[slot]));
		place_workload_result_init(s->scratch[slot]);
	}
	return s->scratch[slot];
}

/* Whether the last check placed w on f against today's usage. */
static bool reuse(const struct sched *s, int32_t f, const struct workload *w,
		  const int32_t *counts)
{
	for (size_t i = 0; counts && i < w->npodsets; i++) {
		if (counts[i] != w->podsets[i].count)
			return false;
	}
	return s->last_check.valid && s->last_check.f == f &&
	       s->last_check.gen == s->tas_gen &&
	       s->wl[s->last_check.id].w == w;
}

bool tas_place(struct sched *s, int32_t f, const struct workload *w,
	       const int32_t *counts, bool apply, struct sched_admission *adm,
	       struct strbuf *why)
{
	struct place_workload_result *r = scratch_for(s, f, w);
	struct topo *t = s->tas[f].t;
	struct workload tmp = *w;
	struct podset ps[WORKLOAD_MAX_PODSETS];
	bool ok = false, compact = true; /* compact: no compact failure */
	int64_t t0;

	BUG_ON(!t);
	if (apply && reuse(s, f, w, counts)) {
		r = s->last_check.r;
		goto record;
	}
	s->last_check.valid = false;
	s->last_check.r = r;
	/* tmp's counts change: its own copy of the pod sets */
	memcpy(ps, w->podsets, w->npodsets * sizeof(*ps));
	tmp.podsets = ps;
	for (size_t i = 0; i < w->npodsets; i++) {
		if (counts)
			tmp.podsets[i].count = counts[i];
		r->ps[i].attempted = r->ps[i].is_leader = false;
	}
	r->failed = 0;
	t0 = s->opt.clock_ns ? s->opt.clock_ns(s->opt.clock_ctx) : 0;
	if (s->resv.len)
		backfill_mask(s, f, (uint32_t)(w - s->c->workloads.items));
	ok = place_workload(t, s->tas[f].fl, &tmp,
			    &cluster_config(s->c)->placement, s->opt.policy,
			    apply, r);
	if (ok && s->opt.compact &&
	    !compact_place(s, f, (uint32_t)(w - s->c->workloads.items), &tmp, r,
			   counts, apply, why))
		ok = compact = false;
	if (s->masked.len)
		backfill_unmask(s, f);
	if (s->opt.clock_ns)
		s->place_ns += s->opt.clock_ns(s->opt.clock_ctx) - t0;
	s->placed = true;
	if (!ok) {
		if (why && compact)
			strbuf_addstr(why, r->ps[r->failed].res.reason.buf);
		return false;
	}
	if (!apply)
		return true;
record:
	for (size_t i = 0; i < w->npodsets; i++) {
		struct sched_podset_admission *pa = &adm->ps[i];

		pa->tas_flavor = f;
		record_nodes(t, &r->ps[i].res, tmp.podsets[i].count, pa);
	}
	/* A reused check did not apply its usage; a fresh placement applied
	 * it to f's index only. */
	charge(s, w, adm, 1, ok);
	return true;
}

bool tas_check(struct sched *s, int32_t f, uint32_t id, struct strbuf *why)
{
	uint64_t key[2] = { s->wl[id].phash, (uint64_t)f };
	struct sched_tas_fail *tf;
	struct strbuf m;
	int64_t i;

	if (!s->resv.len && hmap_get(&s->tas_memo, key, sizeof(key), &i) &&
	    s->tas_fails.items[i].epoch == s->epoch) {
		strbuf_addstr(why, s->tas_fails.items[i].msg);
		return false;
	}
	strbuf_init(&m);
	if (tas_place(s, f, s->wl[id].w, NULL, false, NULL, &m)) {
		strbuf_release(&m);
		s->last_check.valid = true;
		s->last_check.id = id;
		s->last_check.f = f;
		s->last_check.gen = s->tas_gen;
		return true;
	}
	if (s->resv.len) {
		/* reserved nodes depend on the workload, not its shape */
		strbuf_addstr(why, m.buf);
		strbuf_release(&m);
		return false;
	}
	if (!hmap_get(&s->tas_memo, key, sizeof(key), &i)) {
		i = (int64_t)s->tas_fails.len;
		vec_push(&s->tas_fails, ((struct sched_tas_fail){ 0, NULL }));
		hmap_put(&s->tas_memo, key, sizeof(key), i);
	}
	tf = &s->tas_fails.items[i];
	tf->epoch = s->epoch;
	free(tf->msg);
	tf->msg = xstrdup(m.buf);
	strbuf_addstr(why, m.buf);
	strbuf_release(&m);
	return false;
}

void tas_charge(struct sched *s, const struct workload *w,
		const struct sched_admission *adm, int sign)
{
	charge(s, w, adm, sign, false);
}

/* The unit whose path ends with vals[0..n), or UINT32_MAX. */
static uint32_t find_unit(const struct topo *t, const char *const *vals,
			  size_t n)
{
	unsigned ul = (unsigned)t->nlevels - 1;

	if (t->hostname_lowest && n >= 1) {
		int64_t node = topo_find_node(t, vals[n - 1]);

		return node < 0 ? UINT32_MAX : t->node_unit[node];
	}
	for (uint32_t d = t->level_off[ul]; d < t->level_off[ul + 1]; d++) {
		const char *dv[TOPOLOGY_MAX_LEVELS];
		size_t dn = topo_dom_values(t, d, dv);
		bool eq = dn >= n;

		for (size_t k = 0; eq && k < n; k++)
			eq = strcmp(dv[dn - n + k], vals[k]) == 0;
		if (eq)
			return d;
	}
	return UINT32_MAX;
}

int tas_resolve(struct sched *s, int32_t f, const struct podset *ps,
		const struct topology_assignment *ta, int32_t count,
		struct sched_podset_admission *pa)
{
	const struct topo *t = s->tas[f].t;
	int32_t k = 0;

	(void)ps;
	pa->nodes = xcalloc((size_t)count + 1, sizeof(*pa->nodes));
	pa->tas_flavor = f;
	for (size_t i = 0; i < ta->ndomains && k < count; i++) {
		uint32_t u = find_unit(t, ta->domains[i].values, ta->nlevels);

		if (u == UINT32_MAX || t->dom_nnodes[u] == 0) {
			free(pa->nodes);
			pa->nodes = NULL;
			pa->tas_flavor = -1;
			return -ENOENT;
		}
		for (int32_t j = 0; j < ta->domains[i].count && k < count; j++)
			pa->nodes[k++] =
				t->dom_node[u] + (uint32_t)j % t->dom_nnodes[u];
	}
	/* Pods the assignment does not name stay on its last domain. */
	while (k > 0 && k < count) {
		pa->nodes[k] = pa->nodes[k - 1];
		k++;
	}
	if (k < count) {
		free(pa->nodes);
		pa->nodes = NULL;
		pa->tas_flavor = -1;
		return -ENOENT;
	}
	return 0;
}

uint32_t tas_domain_of(const struct sched *s, int32_t f, uint32_t node,
		       unsigned level)
{
	const struct topo *t = s->tas[f].t;
	uint32_t d = t->node_unit[node];

	while (topo_dom_level(t, d) > level)
		d = t->dom_parent[d];
	return d;
}

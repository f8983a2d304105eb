// SPDX-License-Identifier: Apache-2.0
/*
 * Compact gangs (sched_options.compact, an echelon extension): a placement
 * is accepted only when, at every topology level above the lowest, each
 * pod set spans no more domains than the fewest that could hold it on an
 * empty cluster. A gang that the free capacity would scatter waits for
 * room instead, so that its all-reduce never crosses more switches than it
 * must (Slurm's topology/tree plugin places such gangs on whatever is
 * free and scatters large jobs once the cluster is fragmented).
 *
 * The fewest domains per level depend on the pod set's shape and the
 * flavor only; they are computed once per (placement shape, flavor) from
 * the nodes' allocatable resources and remembered.
 */
#include "sched/sched_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/* The remembered fewest domains per level for pod set ps of wl on f. */
static const int32_t *fewest_all(struct sched *s, int32_t f, uint32_t id,
				 size_t ps, int32_t count)
{
	const struct topo *t = s->tas[f].t;
	const struct podset *p = &s->wl[id].w->podsets[ps];
	uint64_t key[4] = { s->wl[id].phash, (uint64_t)f, ps, (uint64_t)count };
	int64_t i;

	if (!hmap_get(&s->compact_memo, key, sizeof(key), &i)) {
		i = (int64_t)s->compact_min.len;
		for (unsigned l = 0; l < TOPOLOGY_MAX_LEVELS; l++)
			vec_push(&s->compact_min,
				 l + 1 < t->nlevels
					 ? topo_fewest_domains(
						   t, l, &p->requests, count)
					 : 1);
		hmap_put(&s->compact_memo, key, sizeof(key), i);
	}
	return &s->compact_min.items[i];
}

static bool podset_compact(struct sched *s, int32_t f, uint32_t id, size_t ps,
			   const struct place_result *res, int32_t count,
			   struct strbuf *why)
{
	const struct topo *t = s->tas[f].t;
	uint32_t *n = xcalloc((size_t)count + 1, sizeof(*n));
	uint32_t *tmp = xcalloc((size_t)count + 1, sizeof(*tmp));
	const int32_t *min = fewest_all(s, f, id, ps, count);
	bool ok = true;

	place_result_nodes(t, res, n);
	for (unsigned l = 0; ok && l + 1 < t->nlevels; l++) {
		int32_t used =
			topo_domains_spanned(t, n, (size_t)count, l, tmp);

		if (used <= min[l])
			continue;
		ok = false;
		if (why)
			strbuf_addf(why,
				    SCHED_COMPACT_WHY
				    "%d domains of %s "
				    "would be used, the fewest possible is %d",
				    used, t->topology->levels[l], min[l]);
	}
	free(n);
	free(tmp);
	return ok;
}

bool compact_check(struct sched *s, int32_t f, uint32_t id,
		   const struct place_workload_result *r, const int32_t *counts,
		   struct strbuf *why)
{
	const struct workload *w = s->wl[id].w;

	for (size_t i = 0; i < w->npodsets; i++) {
		int32_t count = counts ? counts[i] : w->podsets[i].count;

		if (count > 1 && r->ps[i].attempted &&
		    !podset_compact(s, f, id, i, &r->ps[i].res, count, why))
			return false;
	}
	return true;
}

void compact_unapply(struct sched *s, int32_t f, const struct workload *w,
		     const struct place_workload_result *r,
		     const int32_t *counts)
{
	struct topo *t = s->tas[f].t;

	for (size_t i = 0; i < w->npodsets; i++) {
		int32_t count = counts ? counts[i] : w->podsets[i].count;
		uint32_t *n;

		if (!r->ps[i].attempted || count <= 0)
			continue;
		n = xcalloc((size_t)count + 1, sizeof(*n));
		place_result_nodes(t, &r->ps[i].res, n);
		for (int32_t k = 0; k < count; k++)
			topo_node_add_usage(t, n[k], &w->podsets[i].requests,
					    -1);
		free(n);
	}
}

/* Pod sets of more than one pod without a request of their own (none, or
 * unconstrained) prefer the level above the hosts instead; false when
 * there is no such pod set or level. */
static bool widen(const struct topo *t, struct workload *w,
		  const int32_t *counts)
{
	int l = topology_rack_level(t->topology);
	bool changed = false;

	if (l < 0)
		return false;
	for (size_t i = 0; i < w->npodsets; i++) {
		struct topology_request *q = &w->podsets[i].topology;
		int32_t count = counts ? counts[i] : w->podsets[i].count;

		if (count <= 1 || q->nslices || q->group_name ||
		    (q->mode != TOPOLOGY_NONE &&
		     q->mode != TOPOLOGY_UNCONSTRAINED))
			continue;
		q->mode = TOPOLOGY_PREFERRED;
		q->level = t->topology->levels[l];
		changed = true;
	}
	return changed;
}

bool compact_place(struct sched *s, int32_t f, uint32_t id,
		   struct workload *tmp, struct place_workload_result *r,
		   const int32_t *counts, bool apply, struct strbuf *why)
{
	struct topo *t = s->tas[f].t;
	struct strbuf first;
	bool ok = false;

	if (compact_check(s, f, id, r, counts, NULL))
		return true;
	strbuf_init(&first);
	(void)compact_check(s, f, id, r, counts, &first);
	if (apply)
		compact_unapply(s, f, tmp, r, counts);
	if (widen(t, tmp, counts)) {
		for (size_t i = 0; i < tmp->npodsets; i++)
			r->ps[i].attempted = r->ps[i].is_leader = false;
		r->failed = 0;
		ok = place_workload(t, s->tas[f].fl, tmp,
				    &cluster_config(s->c)->placement,
				    s->opt.policy, apply, r) &&
		     compact_check(s, f, id, r, counts, NULL);
		if (!ok && apply && r->fit)
			compact_unapply(s, f, tmp, r, counts);
	}
	if (!ok && why)
		strbuf_addstr(why, first.buf);
	strbuf_release(&first);
	return ok;
}

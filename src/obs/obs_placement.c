// SPDX-License-Identifier: Apache-2.0
/*
 * Placement figures of an admitted pod set: spans from the topology index
 * (topo_domains_spanned, topo_fewest_domains), throughput from the model.
 * See obs_placement.h.
 */
#include "obs/obs_placement.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "topo/topo.h"

#include "base/banned.h"

/* Spans of n[0..count) at the host, rack and block levels of t, and with
 * mins the fewest that could hold count pods of req (without: the spans,
 * sparing the search). */
static void spans(const struct topo *t, const uint32_t *n, size_t count,
		  const struct resvec *req, bool mins,
		  struct topo_fewest_memo *memo, struct obs_placement *r)
{
	int rack = topology_rack_level(t->topology);
	unsigned host = (unsigned)t->nlevels - 1;
	uint32_t *tmp = xcalloc(count + 1, sizeof(*tmp));
	int32_t c = (int32_t)count;

	r->hosts = t->hostname_lowest
			   ? topo_domains_spanned(t, n, count, host, tmp)
			   : c;
	r->racks = rack >= 0 ? topo_domains_spanned(t, n, count, (unsigned)rack,
						    tmp)
			     : 1;
	r->blocks = rack > 0 ? topo_domains_spanned(t, n, count,
						    (unsigned)rack - 1, tmp)
			     : 1;
	free(tmp);
	if (!mins) {
		r->min_hosts = r->hosts;
		r->min_racks = r->racks;
		r->min_blocks = r->blocks;
		return;
	}
	r->min_hosts = t->hostname_lowest
			       ? topo_fewest_domains_memo(memo, t, host, req, c)
			       : c;
	r->min_racks = rack >= 0 ? topo_fewest_domains_memo(
					   memo, t, (unsigned)rack, req, c)
				 : 1;
	r->min_blocks = rack > 0 ? topo_fewest_domains_memo(
					   memo, t, (unsigned)rack - 1, req, c)
				 : 1;
}

/* A shape with its GPUs spread evenly over its hosts. */
static void shape(struct throughput_shape *s, int32_t gpus, int32_t hosts,
		  int32_t racks, int32_t blocks)
{
	memset(s, 0, sizeof(*s));
	s->gpus = gpus;
	s->hosts = hosts;
	s->racks = racks;
	s->blocks = blocks;
	s->host_gpus_min = s->host_gpus_max = hosts > 0 ? gpus / hosts : 0;
}

/* The model's figures of a gang of more than one GPU placed as act. */
static void model(const struct throughput_config *tc,
		  const struct throughput_shape *act,
		  const struct throughput_shape *ideal, struct obs_placement *r)
{
	enum throughput_class k =
		throughput_class_of(tc, THROUGHPUT_CLASS_BY_SIZE, act->gpus);
	double step_s = throughput_step_us(tc, k, act, ideal) / 1e6;

	r->ratio = throughput_ratio(tc, k, act, ideal);
	if (!(step_s > 0))
		return;
	r->rack_bps =
		throughput_crossing_bytes(tc, act, THROUGHPUT_RACK) / step_s;
	r->block_bps =
		throughput_crossing_bytes(tc, act, THROUGHPUT_BLOCK) / step_s;
}

/* The figures of count pods of req on nodes n of t; without mins, the
 * fewest domains are the spans (ratio 1), for a caller that needs only the
 * traffic of a model whose step time does not depend on the ideal
 * placement. */
static void of_nodes(const struct topo *t, const uint32_t *n, size_t count,
		     const struct resvec *req, int gpu,
		     const struct throughput_config *tc, bool mins,
		     struct topo_fewest_memo *memo, struct obs_placement *ret)
{
	struct throughput_shape act, ideal;
	int64_t gpp = gpu >= 0 ? req->v[gpu] : 0;

	memset(ret, 0, sizeof(*ret));
	ret->ratio = 1;
	ret->pods = (int32_t)count;
	ret->gpus = (int32_t)((int64_t)count * (gpp > 0 ? gpp : 1));
	spans(t, n, count, req, mins, memo, ret);
	shape(&act, ret->gpus, ret->hosts, ret->racks, ret->blocks);
	if (ret->min_hosts > 0 && ret->min_racks > 0 && ret->min_blocks > 0)
		shape(&ideal, ret->gpus, ret->min_hosts, ret->min_racks,
		      ret->min_blocks);
	else
		ideal = act;
	ret->slowest = throughput_level_of(&act);
	if (gpp > 0 && ret->gpus > 1)
		model(tc, &act, &ideal, ret);
}

/* obs_placement_of(), with mins as of_nodes(). */
static bool placement(const struct sched *s, uint32_t wl,
		      const struct workload *w, size_t p, int gpu,
		      const struct throughput_config *tc, bool mins,
		      struct topo_fewest_memo *memo, struct obs_placement *ret)
{
	const struct sched_admission *adm = sched_wl_admission(s, wl);
	const struct sched_podset_admission *pa;

	memset(ret, 0, sizeof(*ret));
	ret->ratio = 1;
	if (!adm || p >= adm->npodsets || p >= w->npodsets)
		return false;
	pa = &adm->ps[p];
	if (pa->tas_flavor < 0 || !pa->nodes || pa->count <= 0)
		return false;
	of_nodes(sched_topo(s, pa->tas_flavor), pa->nodes, (size_t)pa->count,
		 &w->podsets[p].requests, gpu, tc, mins, memo, ret);
	return true;
}

bool obs_placement_of(const struct sched *s, uint32_t wl,
		      const struct workload *w, size_t p, int gpu,
		      const struct throughput_config *tc,
		      struct obs_placement *ret)
{
	return placement(s, wl, w, p, gpu, tc, true, NULL, ret);
}

bool obs_placement_traffic_nodes(const struct topo *t, const uint32_t *n,
				 size_t count, const struct resvec *req,
				 int gpu, const struct throughput_config *tc,
				 double *ret_rack, double *ret_block)
{
	struct obs_placement pl;

	if (!t || !n || !req || count == 0)
		return false;
	of_nodes(t, n, count, req, gpu, tc, throughput_compute_uses_ideal(tc),
		 NULL, &pl);
	*ret_rack = pl.rack_bps;
	*ret_block = pl.block_bps;
	return true;
}

/* The worst of wl's pod sets (lowest ratio, most extra racks and blocks,
 * most hosts) and the traffic of all of them. */
struct summary {
	double ratio, rack_bps, block_bps;
	int32_t xr, xb, hosts;
};

static bool worst_of(const struct sched *s, const struct cluster *c,
		     uint32_t wl, int gpu, const struct throughput_config *tc,
		     struct topo_fewest_memo *memo, struct summary *r)
{
	const struct workload *w = &c->workloads.items[wl];
	struct obs_placement pl;
	bool any = false;

	memset(r, 0, sizeof(*r));
	r->ratio = 1;
	for (size_t p = 0; p < w->npodsets; p++) {
		if (!placement(s, wl, w, p, gpu, tc, true, memo, &pl))
			continue;
		any = true;
		r->ratio = pl.ratio < r->ratio ? pl.ratio : r->ratio;
		if (pl.racks - pl.min_racks > r->xr)
			r->xr = pl.racks - pl.min_racks;
		if (pl.blocks - pl.min_blocks > r->xb)
			r->xb = pl.blocks - pl.min_blocks;
		r->hosts = pl.hosts > r->hosts ? pl.hosts : r->hosts;
		r->rack_bps += pl.rack_bps;
		r->block_bps += pl.block_bps;
	}
	return any;
}

bool obs_placement_traffic(const struct sched *s, const struct cluster *c,
			   uint32_t wl, int gpu,
			   const struct throughput_config *tc, double *ret_rack,
			   double *ret_block)
{
	const struct workload *w = &c->workloads.items[wl];
	bool mins = throughput_compute_uses_ideal(tc), any = false;
	struct obs_placement pl;

	*ret_rack = *ret_block = 0;
	for (size_t p = 0; p < w->npodsets; p++) {
		if (!placement(s, wl, w, p, gpu, tc, mins, NULL, &pl))
			continue;
		any = true;
		*ret_rack += pl.rack_bps;
		*ret_block += pl.block_bps;
	}
	return any;
}

/* The admitted workloads with a placement, and their summaries: each
 * found once for every family of the page; the fewest domains of each
 * (topology, level, request) sorted once for all of them. */
struct admitted {
	uint32_t wl;
	struct summary sum;
};

static size_t admitted(const struct sched *s, const struct cluster *c, int gpu,
		       const struct throughput_config *tc, struct admitted *a)
{
	struct topo_fewest_memo memo;
	size_t n = 0;

	topo_fewest_memo_init(&memo);
	for (uint32_t wl = 0; wl < c->workloads.len; wl++) {
		if (!c->workloads.items[wl].name ||
		    sched_wl_state(s, wl) != SCHED_WL_ADMITTED ||
		    !worst_of(s, c, wl, gpu, tc, &memo, &a[n].sum))
			continue;
		a[n++].wl = wl;
	}
	topo_fewest_memo_release(&memo);
	return n;
}

static void family(struct strbuf *out, const char *name, const char *help)
{
	strbuf_addf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

void obs_placement_metrics(const struct sched *s, const struct cluster *c,
			   const struct throughput_config *tc,
			   struct strbuf *out)
{
	static const char *const names[] = {
		"echelon_workload_placement_throughput_ratio",
		"echelon_workload_extra_racks",
		"echelon_workload_extra_blocks",
		"echelon_workload_cross_rack_bytes_per_second",
		"echelon_workload_cross_block_bytes_per_second",
	};
	static const char *const helps[] = {
		"Modelled training throughput of an admitted workload's "
		"placement against the ideal one (its worst pod set).",
		"Racks an admitted workload's pods span beyond the fewest that "
		"could hold them.",
		"Blocks an admitted workload's pods span beyond the fewest "
		"that could hold them.",
		"Modelled all-reduce bytes per second an admitted workload's "
		"placement sends out of its racks.",
		"Modelled all-reduce bytes per second an admitted workload's "
		"placement sends out of its blocks.",
	};
	int gpu = resource_lookup(c->resources, "nvidia.com/gpu");
	struct admitted *a = xcalloc((size_t)c->workloads.len + 1, sizeof(*a));
	size_t n = admitted(s, c, gpu, tc, a), multi = 0, on_min = 0;

	for (size_t f = 0; f < ARRAY_SIZE(names); f++) {
		family(out, names[f], helps[f]);
		for (size_t i = 0; i < n; i++) {
			const struct workload *w = &c->workloads.items[a[i].wl];
			const struct summary *r = &a[i].sum;

			strbuf_addf(out, "%s{namespace=\"%s\",name=\"%s\"} ",
				    names[f], w->ns ? w->ns : "", w->name);
			if (f == 0)
				strbuf_addf(out, "%.6g\n", r->ratio);
			else if (f < 3)
				strbuf_addf(out, "%d\n",
					    f == 1 ? r->xr : r->xb);
			else
				strbuf_addf(out, "%.6g\n",
					    f == 3 ? r->rack_bps
						   : r->block_bps);
			if (f == 0 && r->hosts > 1) {
				multi++;
				on_min += r->xr == 0;
			}
		}
	}
	free(a);
	family(out, "echelon_placement_on_min_racks_ratio",
	       "Admitted multi-host workloads on the fewest racks that could "
	       "hold them, as a fraction.");
	if (multi)
		strbuf_addf(out, "echelon_placement_on_min_racks_ratio %.6g\n",
			    (double)on_min / (double)multi);
	else
		strbuf_addstr(out,
			      "echelon_placement_on_min_racks_ratio NaN\n");
}

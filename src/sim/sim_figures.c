// SPDX-License-Identifier: Apache-2.0
/*
 * The figures of a simulation run: the shape of every placement (hosts,
 * racks and blocks spanned against the fewest possible, and the throughput
 * the model gives it), the invariant checks, and at the end the records
 * and the summary table.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "obs/obs_placement.h"

#include "base/banned.h"

struct node_gpus {
	int32_t node;
	int64_t gpus;
};

static int ng_cmp(const void *a, const void *b)
{
	const struct node_gpus *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

static int i32_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Number of distinct values of v[0..n); sorts v. */
static int32_t distinct(int32_t *v, size_t n)
{
	int32_t k = 0;

	qsort(v, n, sizeof(*v), i32_cmp);
	for (size_t i = 0; i < n; i++)
		k += i == 0 || v[i] != v[i - 1];
	return k;
}

/*
 * The shape of the bound pods of job j: GPUs per host from (node, GPUs)
 * pairs sorted by node, racks and blocks from the hosts. Returns false
 * when a pod has no node (a flavor without topology).
 */
static bool actual_shape(struct sim_state *st, uint32_t j,
			 struct throughput_shape *sh, bool *topo)
{
	const struct sim_jst *x = &st->js[j];
	size_t n = (size_t)st->in->jobs.items[j].pods, k = 0, h = 0;
	struct node_gpus *ng = xcalloc(n + 1, sizeof(*ng));
	int32_t *racks = xcalloc(n + 1, sizeof(*racks));
	int32_t *blocks = xcalloc(n + 1, sizeof(*blocks));
	bool ok = true;

	*topo = true;
	memset(sh, 0, sizeof(*sh));
	for (size_t p = 0; p < n && ok; p++) {
		if (!x->run->pods[p].bound)
			continue;
		ok = x->run->pods[p].node >= 0;
		ng[k].node = x->run->pods[p].node;
		ng[k++].gpus = x->run->pods[p].gpus;
		sh->gpus += (int32_t)x->run->pods[p].gpus;
	}
	qsort(ng, k, sizeof(*ng), ng_cmp);
	sh->host_gpus_min = INT32_MAX;
	for (size_t i = 0; ok && i < k;) {
		const struct sim_node_place *np =
			&st->in->node_place[ng[i].node];
		int64_t g = 0;
		size_t e = i;

		for (; e < k && ng[e].node == ng[i].node; e++)
			g += ng[e].gpus;
		sh->host_gpus_min =
			g < sh->host_gpus_min ? (int32_t)g : sh->host_gpus_min;
		sh->host_gpus_max =
			g > sh->host_gpus_max ? (int32_t)g : sh->host_gpus_max;
		*topo = *topo && np->rack >= 0;
		racks[h] = np->rack;
		blocks[h++] = np->block;
		i = e;
	}
	sh->hosts = (int32_t)h;
	sh->racks = *topo ? distinct(racks, h) : 1;
	sh->blocks = *topo ? distinct(blocks, h) : 1;
	free(ng);
	free(racks);
	free(blocks);
	return ok && k > 0;
}

/*
 * No gang: job j's pods are workloads of their own, admitted one by one,
 * that train as one job; its traffic is that of their nodes taken as one
 * pod set (obs_placement_traffic_nodes()). False when a pod is not
 * admitted on a topology-aware flavor, or they differ in flavor or in
 * requests (no one placement to model).
 */
static bool split_traffic(const struct sim_state *st, uint32_t j,
			  struct sim_job_rec *r)
{
	size_t n = (size_t)st->in->jobs.items[j].pods;
	uint32_t *nodes = xcalloc(n + 1, sizeof(*nodes));
	const struct sched_podset_admission *first = NULL;
	const struct resvec *req = NULL;
	bool ok = true;

	for (size_t k = 0; k < n; k++) {
		uint32_t wl = sim_run_split_slot(st, j, (uint32_t)k);
		const struct sched_admission *adm =
			wl == UINT32_MAX ? NULL : sched_wl_admission(st->s, wl);
		const struct sched_podset_admission *pa =
			adm && adm->npodsets == 1 ? &adm->ps[0] : NULL;
		const struct workload *w =
			pa ? &st->in->c->workloads.items[wl] : NULL;

		ok = pa && pa->count == 1 && pa->tas_flavor >= 0 && pa->nodes &&
		     w->npodsets == 1 &&
		     (!first || (pa->tas_flavor == first->tas_flavor &&
				 memcmp(&w->podsets[0].requests, req,
					sizeof(*req)) == 0));
		if (!ok)
			break;
		if (!first) {
			first = pa;
			req = &w->podsets[0].requests;
		}
		nodes[k] = pa->nodes[0];
	}
	ok = ok && first &&
	     obs_placement_traffic_nodes(
		     sched_topo(st->s, first->tas_flavor), nodes, n, req,
		     st->in->gpu_id, &st->o->tp, &r->rack_bps, &r->block_bps);
	free(nodes);
	return ok;
}

/*
 * The traffic of job j's placement out of its racks and blocks, as the
 * daemon's per-workload series gives it and the per-ClusterQueue series
 * of metrics.om count it: obs_placement_traffic() of its admitted
 * workload (no gang: of its pods together); -1 when it has no topology
 * placement.
 */
static void traffic(const struct sim_state *st, uint32_t j,
		    struct sim_job_rec *r)
{
	uint32_t wl = st->js[j].wl;
	bool ok;

	if (st->split)
		ok = split_traffic(st, j, r);
	else
		ok = wl != UINT32_MAX &&
		     sched_wl_state(st->s, wl) == SCHED_WL_ADMITTED &&
		     obs_placement_traffic(st->s, st->in->c, wl, st->in->gpu_id,
					   &st->o->tp, &r->rack_bps,
					   &r->block_bps);
	if (!ok)
		r->rack_bps = r->block_bps = -1;
}

void sim_figures_shape(struct sim_state *st, uint32_t j)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	struct sim_jst *x = &st->js[j];
	struct sim_job_rec *r = &st->res->jobs[j];
	struct throughput_geometry geo = st->in->geometry;
	struct throughput_shape act, ideal;
	int32_t gpp = job->gpus_per_pod;
	struct errbuf eb = { 0 };
	bool topo;

	x->run->ratio = 1;
	x->min_hosts = -1;
	r->hosts = r->racks = r->blocks = r->min_racks = r->min_blocks = -1;
	traffic(st, j, r);
	if (gpp <= 0) { /* pods without GPUs: one per host at best */
		gpp = 1;
		geo.gpus_per_host = 1;
	}
	if (throughput_ideal_shape(&geo, x->want, gpp, &ideal, &eb) == 0)
		x->min_hosts = ideal.hosts;
	if (!actual_shape(st, j, &act, &topo)) {
		r->throughput_ratio = x->run->ratio;
		return;
	}
	r->hosts = act.hosts;
	if (topo) {
		r->racks = act.racks;
		r->blocks = act.blocks;
		r->min_racks = x->min_hosts > 0 ? ideal.racks : -1;
		r->min_blocks = x->min_hosts > 0 ? ideal.blocks : -1;
	}
	if (job->gpus_per_pod > 0 && x->min_hosts > 0 && act.gpus > 0)
		x->run->ratio = throughput_ratio(
			&st->o->tp, sim_job_class(st->in, &st->o->tp, j), &act,
			&ideal);
	r->throughput_ratio = x->run->ratio;
}

/* The pods: bound GPUs per node and in all, all or none under a gang. */
static void check_pods(struct sim_state *st)
{
	const struct cluster *c = st->in->c;
	int64_t *per = xcalloc(c->nodes.len + 1, sizeof(*per));
	int64_t alloc = 0, busy = 0, total = 0;

	vec_foreach (&st->active, j) {
		const struct sim_jst *x = &st->js[*j];

		BUG_ON(x->active_pos == 0 ||
		       st->active.items[x->active_pos - 1] != *j);
		if (st->res->jobs[*j].state == SIM_JOB_RUNNING)
			busy += x->run->run_gpus;
		if (!st->split) /* a gang is bound whole or not at all */
			BUG_ON(x->bound != 0 && x->bound != x->want);
		for (int32_t p = 0; x->run && p < st->in->jobs.items[*j].pods;
		     p++) {
			if (!x->run->pods[p].bound)
				continue;
			alloc += x->run->pods[p].gpus;
			if (x->run->pods[p].node >= 0)
				per[x->run->pods[p].node] +=
					x->run->pods[p].gpus;
		}
	}
	for (size_t i = 0; i < c->nodes.len; i++) {
		BUG_ON(per[i] != st->node_gpus[i]);
		if (st->in->gpu_id >= 0)
			BUG_ON(per[i] >
			       c->nodes.items[i].allocatable.v[st->in->gpu_id]);
	}
	BUG_ON(alloc != st->alloc_gpus || busy != st->busy_gpus);
	for (int s = 0; s < SIM_JOB_STATE_COUNT; s++)
		total += st->count[s];
	BUG_ON(total != (int64_t)st->in->jobs.len);
	BUG_ON(st->count[SIM_JOB_RUNNING] + st->count[SIM_JOB_ADMITTED] >
	       (int64_t)st->active.len);
	free(per);
}

/* The quota tree: consistent, and no ClusterQueue above what it may use. */
static void check_quota(const struct sim_state *st)
{
	const struct quota *q = sched_quota(st->s);

	BUG_ON(!quota_check(q, NULL));
	for (size_t cq = 0; cq < q->ncq; cq++) {
		for (size_t fr = 0; fr < q->nfr; fr++) {
			if (q->nodes[cq].usage[fr] > 0)
				BUG_ON(quota_available(q, (int32_t)cq, fr) < 0);
		}
	}
}

void sim_figures_check(struct sim_state *st)
{
	check_pods(st);
	check_quota(st);
}

/* Nearest-rank percentile of sorted v[0..n). */
static double pct(const double *v, size_t n, double p)
{
	size_t i = (size_t)ceil(p * (double)n);

	if (!n)
		return -1;
	return v[i ? i - 1 : 0];
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Running sums for a mean; -1 when nothing was added. */
struct mean {
	double sum;
	int64_t n;
};

static void mean_add(struct mean *m, double v)
{
	m->sum += v;
	m->n++;
}

static double mean_of(const struct mean *m)
{
	return m->n ? m->sum / (double)m->n : -1;
}

static void wait_figures(struct sim_state *st, struct sim_summary *s)
{
	size_t nj = st->in->jobs.len, k = 0;
	double *w = xcalloc(nj + 1, sizeof(*w));
	struct mean wait = { 0 }, adm = { 0 }, jct = { 0 };

	for (size_t j = 0; j < nj; j++) {
		const struct sim_job_rec *r = &st->res->jobs[j];
		double sub = (double)st->in->jobs.items[j].submit_us;

		if (r->admit_us >= 0)
			mean_add(&adm, ((double)r->admit_us - sub) / 1e6);
		if (r->end_us >= 0)
			mean_add(&jct, ((double)r->end_us - sub) / 1e6);
		if (r->start_us < 0)
			continue;
		w[k] = ((double)r->start_us - sub) / 1e6;
		mean_add(&wait, w[k++]);
	}
	qsort(w, k, sizeof(*w), dbl_cmp);
	s->jobs_started = (int64_t)k;
	s->mean_wait_s = mean_of(&wait);
	s->p50_wait_s = pct(w, k, 0.5);
	s->p95_wait_s = pct(w, k, 0.95);
	s->mean_admit_wait_s = mean_of(&adm);
	s->mean_jct_s = mean_of(&jct);
	free(w);
}

static void topology_figures(struct sim_state *st, struct sim_summary *s)
{
	struct mean racks = { 0 }, minr = { 0 }, blocks = { 0 }, minb = { 0 },
		    ratio = { 0 }, mratio = { 0 };
	int64_t on_min = 0;

	for (size_t j = 0; j < st->in->jobs.len; j++) {
		const struct sim_job_rec *r = &st->res->jobs[j];

		if (r->start_us < 0)
			continue;
		if (r->throughput_ratio >= 0)
			mean_add(&ratio, r->throughput_ratio);
		if (r->throughput_ratio >= 0 && st->js[j].min_hosts > 1)
			mean_add(&mratio, r->throughput_ratio);
		if (st->js[j].min_hosts <= 1 || r->racks < 0 ||
		    r->min_racks < 0)
			continue;
		mean_add(&racks, r->racks);
		mean_add(&minr, r->min_racks);
		mean_add(&blocks, r->blocks);
		mean_add(&minb, r->min_blocks);
		on_min += r->racks <= r->min_racks;
	}
	s->multi_node_jobs = racks.n;
	s->mean_racks_spanned = mean_of(&racks);
	s->mean_min_racks = mean_of(&minr);
	s->mean_blocks_spanned = mean_of(&blocks);
	s->mean_min_blocks = mean_of(&minb);
	s->on_min_racks = racks.n ? (double)on_min / (double)racks.n : -1;
	s->mean_throughput_ratio = mean_of(&ratio);
	s->mean_multi_node_throughput_ratio = mean_of(&mratio);
}

/* Time-averaged usage of each ClusterQueue's nominal quota. */
static void cq_figures(struct sim_state *st, struct sim_summary *s)
{
	struct sim_result *res = st->res;

	s->min_cq_usage = -1;
	res->cq_usage = xcalloc(st->ncq + 1, sizeof(*res->cq_usage));
	res->cq_nominal = xcalloc(st->ncq + 1, sizeof(*res->cq_nominal));
	for (size_t cq = 0; cq < st->ncq; cq++) {
		int64_t nominal = st->cq_res < 0
					  ? -1
					  : sched_cq_nominal(st->s, (int32_t)cq,
							     st->cq_res);

		res->cq_nominal[cq] = nominal;
		res->cq_usage[cq] = -1;
		if (nominal <= 0 || res->span_us <= 0)
			continue;
		res->cq_usage[cq] = st->cq_int[cq] /
				    ((double)nominal * (double)res->span_us);
		if (s->min_cq_usage < 0 || res->cq_usage[cq] < s->min_cq_usage)
			s->min_cq_usage = res->cq_usage[cq];
	}
}

static int class_cmp(const void *a, const void *b)
{
	const struct sim_class_summary *x = a, *y = b;

	return strcmp(x->klass, y->klass);
}

static void class_figures(struct sim_state *st)
{
	struct sim_result *res = st->res;

	for (size_t j = 0; j < st->in->jobs.len; j++) {
		const char *k = st->in->jobs.items[j].klass;
		const struct sim_job_rec *r = &res->jobs[j];
		struct sim_class_summary *c = NULL;

		if (!k)
			continue;
		vec_foreach (&res->classes, x) {
			if (strcmp(x->klass, k) == 0)
				c = x;
		}
		if (!c) {
			c = vec_push_zero(&res->classes);
			c->klass = k;
		}
		c->jobs++;
		if (r->admit_us < 0)
			continue;
		/* A running mean: sum kept in the field until the end. */
		c->mean_admit_wait_s +=
			(double)(r->admit_us -
				 st->in->jobs.items[j].submit_us) /
			1e6;
		c->admitted++;
	}
	vec_foreach (&res->classes, c)
		c->mean_admit_wait_s =
			c->admitted ? c->mean_admit_wait_s / (double)c->admitted
				    : -1;
	if (res->classes.len)
		qsort(res->classes.items, res->classes.len,
		      sizeof(*res->classes.items), class_cmp);
}

/* Busy time of the jobs still running at the end, for the heat map. */
static void close_running(struct sim_state *st)
{
	for (size_t j = 0; j < st->in->jobs.len; j++) {
		const struct sim_jst *x = &st->js[j];
		int64_t seg;

		if (st->res->jobs[j].state != SIM_JOB_RUNNING)
			continue;
		/* work done so far counts: it is not lost at a stop */
		seg = st->now - x->run->seg_start_us;
		sim_run_account(st, (uint32_t)j, seg);
		st->good_sum +=
			(double)seg * x->run->ratio * (double)x->run->run_gpus;
	}
}

/* GPU-hours add up: integrated over time, over the jobs' running
 * segments, and over the nodes (plus pods without a node). */
static void check_busy(const struct sim_state *st)
{
	int64_t nodes = st->busy_unplaced;

	for (size_t n = 0; n < st->in->c->nodes.len; n++)
		nodes += st->res->node_busy_gpu_us[n];
	BUG_ON(st->busy_sum != st->busy_jobs);
	BUG_ON(nodes != st->busy_jobs);
}

void sim_figures_finish(struct sim_state *st)
{
	struct sim_result *res = st->res;
	struct sim_summary *s = &res->sum;
	int64_t end =
		st->o->until_us && !res->stalled ? st->o->until_us : st->now;
	int64_t last = 0;
	struct sched_backfill_stats bf;

	sim_run_advance(st, end);
	st->now = end;
	sim_run_sample_until(st, end, true);
	if (!res->samples.len || vec_last(&res->samples)->t_us < end)
		sim_run_sample(st, end);
	sim_run_sample_metrics(st, end, true);
	close_running(st);
	if (st->o->waits)
		sim_wait_finish(st);
	if (st->o->check)
		check_busy(st);
	res->span_us = end;
	s->jobs = (int64_t)st->in->jobs.len;
	s->jobs_finished = st->count[SIM_JOB_FINISHED];
	wait_figures(st, s);
	topology_figures(st, s);
	cq_figures(st, s);
	class_figures(st);
	s->gpu_utilization = -1;
	if (st->in->total_gpus > 0 && end > 0)
		s->gpu_utilization = (double)st->busy_sum /
				     ((double)st->in->total_gpus * (double)end);
	s->idle_allocated_gpu_hours = (double)st->idle_sum / 3.6e9;
	s->goodput =
		st->busy_sum + st->idle_sum > 0
			? st->good_sum / (double)(st->busy_sum + st->idle_sum)
			: -1;
	for (size_t j = 0; j < st->in->jobs.len; j++) {
		s->lost_gpu_hours += (double)res->jobs[j].lost_gpu_us / 3.6e9;
		if (res->jobs[j].end_us > last)
			last = res->jobs[j].end_us;
	}
	s->makespan_us = s->jobs_finished == s->jobs ? last : end;
	s->backfill = st->o->backfill && st->o->policy == SIM_POLICY_TAS &&
		      !st->o->loose;
	bf = sched_backfill_stats(st->s);
	s->reservations = (int64_t)bf.reservations;
	s->reservations_delayed = (int64_t)bf.delayed;
	s->reservation_delay_s = (double)bf.delay_us / 1e6;
}

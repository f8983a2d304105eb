// SPDX-License-Identifier: Apache-2.0
/*
 * The simulator's event loop: submissions, admission cycles, binding and
 * pod start-up through the gang lifecycle, running jobs stretched by the
 * throughput model, finishes, node and pod failures, and the figures that
 * come out of it. See docs/internals/simulator.md ("The event loop").
 *
 * Everything a run owns lives in one struct sim_state; the scheduler core
 * and the gang lifecycle are driven only through their APIs, and their
 * decisions are applied here. Events at one time are handled in the order
 * of their kinds (repairs, failures, finishes, pod start-ups, timeouts,
 * submissions), then a cycle runs, so the same input gives the same run.
 */
#include "sim/sim_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

static const int32_t kind_rank[EV_KIND_COUNT] = {
	[EV_NODE_UP] = 0,  [EV_NODE_DOWN] = 1, [EV_FINISH] = 2,
	[EV_POD_FAIL] = 3, [EV_POD_UP] = 4,    [EV_TICK] = 5,
	[EV_ARRIVE] = 6,   [EV_SUBMIT] = 7,
};

void sim_run_log(struct sim_state *st, const char *fmt, ...)
{
	va_list ap;

	if (!st->o->log)
		return;
	strbuf_addf(st->o->log, "%" PRId64 ".%06" PRId64 " ", st->now / 1000000,
		    st->now % 1000000);
	va_start(ap, fmt);
	strbuf_vaddf(st->o->log, fmt, ap);
	va_end(ap);
	strbuf_addch(st->o->log, '\n');
}

/* Whether an event can change the outcome: all but a pod failure and a
 * node failure drawn from the rate (a run stops when only those are
 * left). */
static bool live(int32_t kind, int64_t b)
{
	return kind != EV_POD_FAIL && !(kind == EV_NODE_DOWN && b < 0);
}

uint64_t sim_run_push(struct sim_state *st, int64_t t, enum sim_ev kind,
		      int64_t a, int64_t b)
{
	struct evq_event e = { .time_us = t, .kind = kind, .a = a, .b = b };

	st->live += live(kind, b);
	return evq_push(&st->q, &e);
}

void sim_run_cancel(struct sim_state *st, uint64_t *id, enum sim_ev kind)
{
	BUG_ON(kind == EV_NODE_DOWN); /* its liveness depends on b */
	if (*id && evq_cancel(&st->q, *id) && live(kind, 0))
		st->live--;
	*id = 0;
}

uint32_t sim_run_split_slot(const struct sim_state *st, uint32_t j, uint32_t k)
{
	const struct sim_job *job = &st->in->jobs.items[j];

	if (job->tmpl >= 0)
		return st->js[j].split_wl ? st->js[j].split_wl[k] : UINT32_MAX;
	return job->split + k;
}

/* The workload a pod of job j belongs to, and the pod's index in it. */
static uint32_t pod_wl(const struct sim_state *st, uint32_t j, uint32_t p,
		       uint32_t *ret_pod)
{
	if (st->split) {
		*ret_pod = 0;
		return sim_run_split_slot(st, j, p);
	}
	*ret_pod = p;
	return st->js[j].wl;
}

/* Room for every slot of the cluster in the per-slot arrays. */
static void grow_slots(struct sim_state *st)
{
	size_t n = st->in->c->workloads.len;

	if (n <= st->nslots)
		return;
	st->wl_job = xreallocarray(st->wl_job, n, sizeof(*st->wl_job));
	st->wl_pod0 = xreallocarray(st->wl_pod0, n, sizeof(*st->wl_pod0));
	st->wl_count = xreallocarray(st->wl_count, n, sizeof(*st->wl_count));
	for (size_t i = st->nslots; i < n; i++) {
		st->wl_job[i] = -1;
		st->wl_pod0[i] = 0;
		st->wl_count[i] = 0;
	}
	st->nslots = n;
}

static void track(struct sim_state *st, uint32_t j);

void sim_run_set_state(struct sim_state *st, uint32_t j, enum sim_job_state s)
{
	struct sim_job_rec *r = &st->res->jobs[j];

	st->count[r->state]--;
	st->count[s]++;
	if (st->job_cq[j] >= 0)
		st->cq_pending[st->job_cq[j]] +=
			(s == SIM_JOB_PENDING) - (r->state == SIM_JOB_PENDING);
	r->state = s;
	track(st, j);
	sim_wait_track(st, j);
}

/* Keep job j in the active list while it holds quota, pods or runs. */
static void track(struct sim_state *st, uint32_t j)
{
	struct sim_jst *x = &st->js[j];
	bool holds =
		x->adm || x->bound || st->res->jobs[j].state == SIM_JOB_RUNNING;
	uint32_t last;

	if (holds && !x->active_pos) {
		vec_push(&st->active, j);
		x->active_pos = (uint32_t)st->active.len;
	} else if (!holds && x->active_pos) {
		last = vec_pop(&st->active);
		if (last != j) {
			st->active.items[x->active_pos - 1] = last;
			st->js[last].active_pos = x->active_pos;
		}
		x->active_pos = 0;
	}
}

/* PENDING or ADMITTED from what the job holds now (not terminal). */
static void refresh_state(struct sim_state *st, uint32_t j)
{
	const struct sim_jst *x = &st->js[j];
	enum sim_job_state s = st->res->jobs[j].state;

	track(st, j);

	if (s == SIM_JOB_FINISHED || s == SIM_JOB_DEACTIVATED ||
	    s == SIM_JOB_RUNNING)
		return;
	sim_run_set_state(
		st, j, x->adm || x->bound ? SIM_JOB_ADMITTED : SIM_JOB_PENDING);
}

/* The pods of job j, made on first use: GPUs per pod from its pod sets. */
static struct sim_pod *pods_of(struct sim_state *st, uint32_t j)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	const struct workload *w;
	struct sim_jst *x = &st->js[j];
	uint32_t k = 0;

	if (x->run)
		return x->run->pods;
	/* job->pods is an int32_t: no overflow */
	x->run = xcalloc(1, sizeof(*x->run) +
				    (size_t)job->pods * sizeof(*x->run->pods));
	if (job->tmpl >= 0) { /* one pod set */
		const struct sim_tmpl *tm = &st->in->templates.items[job->tmpl];
		const struct resvec *req =
			&st->in->requests.items[tm->requests];

		for (int32_t p = 0; p < job->pods; p++) {
			x->run->pods[p].node = -1;
			x->run->pods[p].gpus = st->in->gpu_id >= 0
						       ? req->v[st->in->gpu_id]
						       : 0;
		}
		return x->run->pods;
	}
	w = &st->in->c->workloads.items[job->wl];
	for (size_t i = 0; i < w->npodsets; i++) {
		const struct podset *ps = &w->podsets[i];
		int64_t g = st->in->gpu_id >= 0 ? ps->requests.v[st->in->gpu_id]
						: 0;

		for (int32_t p = 0; p < ps->count; p++, k++) {
			x->run->pods[k].node = -1;
			x->run->pods[k].gpus = g;
		}
	}
	BUG_ON(k != (uint32_t)job->pods);
	return x->run->pods;
}

void sim_run_account(struct sim_state *st, uint32_t j, int64_t seg)
{
	const struct sim_jst *x = &st->js[j];

	for (int32_t p = 0; p < st->in->jobs.items[j].pods; p++) {
		const struct sim_pod *sp = &x->run->pods[p];

		if (!sp->up)
			continue;
		if (sp->node >= 0)
			st->res->node_busy_gpu_us[sp->node] += seg * sp->gpus;
		else
			st->busy_unplaced += seg * sp->gpus;
	}
	st->busy_jobs += seg * x->run->run_gpus;
}

/* A job kept work (finished: a job ended or arrived): the run makes
 * progress. */
static void progressed(struct sim_state *st, bool finished)
{
	st->futile = 0;
	if (!finished)
		return;
	st->since_finish = 0;
	st->last_finish_us = st->now;
}

void sim_run_failure(struct sim_state *st)
{
	st->since_finish++;
}

/* Job j lost its work (a failure, an eviction): one more interruption
 * without progress. */
static void interrupted(struct sim_state *st, uint32_t j)
{
	struct sim_jst *x = &st->js[j];

	st->futile++;
	sim_run_failure(st);
	if (!x->ints++)
		x->run->first_int_us = st->now;
	x->run->last_int_us = st->now;
}

/* Stop a running job: its work since the last checkpoint is lost unless
 * it finished. */
void sim_run_stop(struct sim_state *st, uint32_t j, bool finished)
{
	struct sim_jst *x = &st->js[j];
	const struct sim_job *job = &st->in->jobs.items[j];
	struct sim_job_rec *r = &st->res->jobs[j];
	int64_t seg, kept;

	if (r->state != SIM_JOB_RUNNING)
		return;
	seg = kept = st->now - x->run->seg_start_us;
	sim_run_account(st, j, seg);
	st->busy_gpus -= x->run->run_gpus;
	sim_run_cancel(st, &x->run->end_ev, EV_FINISH);
	sim_run_cancel(st, &x->run->fail_ev, EV_POD_FAIL);
	if (!finished) {
		if (st->o->checkpoint_us > 0)
			kept = seg / st->o->checkpoint_us *
			       st->o->checkpoint_us;
		else
			kept = 0;
		/* Work of the whole job: a partial admission runs at
		 * want / pods of its speed (start_job()). */
		x->run->progress_us +=
			(int64_t)((double)kept * x->run->ratio *
				  (double)x->want / (double)job->pods);
		if (x->run->progress_us >= job->duration_us)
			x->run->progress_us = job->duration_us - 1;
		r->lost_gpu_us += (seg - kept) * x->run->run_gpus;
		if (kept > 0)
			progressed(st, false);
		else
			interrupted(st, j);
	}
	st->good_sum += (double)kept * x->run->ratio * (double)x->run->run_gpus;
	sim_run_set_state(st, j, SIM_JOB_ADMITTED);
	refresh_state(st, j);
}

/* Take pod p of job j off its node. */
static void unbind_pod(struct sim_state *st, uint32_t j, uint32_t p)
{
	struct sim_jst *x = &st->js[j];
	struct sim_pod *sp = &x->run->pods[p];

	if (!sp->bound)
		return;
	sim_run_stop(st, j, false);
	sim_run_cancel(st, &sp->up_ev, EV_POD_UP);
	if (sp->node >= 0)
		st->node_gpus[sp->node] -= sp->gpus;
	st->alloc_gpus -= sp->gpus;
	x->up -= sp->up;
	x->bound--;
	sp->bound = sp->up = false;
	sp->node = -1;
}

int32_t sim_run_node(const struct sim_state *st, const char *name)
{
	const struct node *n = cluster_find(st->in->c, KIND_NODE, NULL, name);

	BUG_ON(!n); /* the scheduler and sim_run() know only these nodes */
	return (int32_t)(n - st->in->c->nodes.items);
}

static int on_bind(void *ctx, uint32_t wl, uint32_t pod, uint32_t node)
{
	struct sim_state *st = ctx;
	uint32_t j = (uint32_t)st->wl_job[wl];
	uint32_t p = st->wl_pod0[wl] + pod;
	struct sim_pod *sp = &pods_of(st, j)[p];
	int32_t n = node == CTL_NO_NODE ? -1 : (int32_t)node;

	if (sp->bound) /* a replacement moves it */
		unbind_pod(st, j, p);
	sp->node = n;
	sp->bound = true;
	sp->up = false;
	if (n >= 0)
		st->node_gpus[n] += sp->gpus;
	st->alloc_gpus += sp->gpus;
	st->js[j].bound++;
	sp->up_ev = sim_run_push(st, st->now + st->o->pod_start_us, EV_POD_UP,
				 j, p);
	refresh_state(st, j);
	if (!st->split && st->js[j].bound == st->js[j].want) {
		int64_t est = sim_estimate_placed(st, j);

		if (est > 0)
			BUG_ON(ctl_set_estimate(st->ctl,
						ctl_handle(st->ctl, wl),
						est) < 0);
	}
	return CTL_BIND_DONE;
}

static void on_release(void *ctx, uint32_t wl)
{
	struct sim_state *st = ctx;
	uint32_t j = (uint32_t)st->wl_job[wl];
	const struct sim_job *job = &st->in->jobs.items[j];
	uint32_t first = st->wl_pod0[wl];
	uint32_t n = st->split ? 1 : (uint32_t)job->pods;

	pods_of(st, j);
	for (uint32_t p = first; p < first + n; p++)
		unbind_pod(st, j, p);
	refresh_state(st, j);
}

static const char *wl_name(const struct sim_state *st, uint32_t wl)
{
	return st->in->c->workloads.items[wl].name;
}

/* The controller's decisions: the records and the log. */
static void on_event(void *ctx, const struct ctl_event *e)
{
	struct sim_state *st = ctx;
	int32_t j = st->wl_job[e->wl];

	if (j < 0)
		return; /* not a workload of this run */
	if (st->obs)
		obs_metrics_event(st->obs, st->ctl, e);
	switch (e->kind) {
	case CTL_EV_ADMITTED:
		sim_run_admitted(st, e->wl);
		break;
	case CTL_EV_PREEMPTED:
		sim_run_log(st, "preempt %s by %s reason=%s",
			    wl_name(st, e->wl), wl_name(st, e->by),
			    sched_preempt_reason_name(e->why));
		st->res->jobs[j].preemptions++;
		st->res->sum.preemptions++;
		if (e->cq >= 0 && (size_t)e->cq < st->ncq)
			st->res->cq_preempted[(size_t)e->cq *
						      SIM_PREEMPT_REASONS +
					      e->why]++;
		sim_run_unadmitted(st, e->wl, false);
		break;
	case CTL_EV_EVICTED:
		sim_run_log(st, "evict %s reason=%s requeue_at=%.3f",
			    wl_name(st, e->wl), e->reason,
			    (double)e->requeue_at_us / 1e6);
		sim_run_unadmitted(st, e->wl, false);
		break;
	case CTL_EV_DEACTIVATED:
		sim_run_log(st, "deactivate %s reason=%s", wl_name(st, e->wl),
			    e->reason);
		sim_run_unadmitted(st, e->wl, true);
		break;
	case CTL_EV_REPLACED:
		sim_run_log(st, "replace %s pods=%u", wl_name(st, e->wl),
			    e->pods);
		break;
	case CTL_EV_BOUND:
	case CTL_EV_READY:
	case CTL_EV_FINISHED:
		break; /* the records follow the pods themselves */
	default:
		BUG_ON(1);
	}
}

_Static_assert(SIM_PREEMPT_REASONS == SCHED_PREEMPT_REASON_COUNT,
	       "preemption reasons");

static const struct ctl_backend_ops ops = { on_bind, on_release, on_event };

/* Usage of the figures' resource by ClusterQueue cq now. */
static int64_t cq_use(const struct sim_state *st, size_t cq)
{
	size_t nflavors = sched_quota(st->s)->nflavors;
	int64_t u = 0;

	for (size_t f = 0; st->cq_res >= 0 && f < nflavors; f++)
		u += sched_cq_usage(st->s, (int32_t)cq, (int32_t)f, st->cq_res);
	return u;
}

/* The free hosts now (struct sim_sample): in total, and the most in one
 * rack and in one block. */
static void sample_free(const struct sim_state *st, struct sim_sample *smp)
{
	const struct sim_input *in = st->in;
	size_t nr = in->rack_names.len, nb = in->block_names.len;
	int32_t *rack = st->free_in, *block = st->free_in + nr;

	memset(st->free_in, 0, (nr + nb) * sizeof(*st->free_in));
	for (size_t i = 0; i < in->c->nodes.len; i++) {
		const struct node *nd = &in->c->nodes.items[i];

		if (in->gpu_id < 0 || nd->allocatable.v[in->gpu_id] <= 0 ||
		    st->node_gpus[i] || st->node_down[i])
			continue;
		smp->free_hosts++;
		if (!in->node_place)
			continue;
		if (in->node_place[i].rack >= 0 &&
		    ++rack[in->node_place[i].rack] > smp->free_rack_hosts)
			smp->free_rack_hosts = rack[in->node_place[i].rack];
		if (in->node_place[i].block >= 0 &&
		    ++block[in->node_place[i].block] > smp->free_block_hosts)
			smp->free_block_hosts = block[in->node_place[i].block];
	}
}

void sim_run_sample(struct sim_state *st, int64_t t)
{
	struct sim_sample smp = {
		.t_us = t,
		.gpus_allocated = st->alloc_gpus,
		.gpus_busy = st->busy_gpus,
		.pending = (int32_t)st->count[SIM_JOB_PENDING],
		.admitted = (int32_t)st->count[SIM_JOB_ADMITTED],
		.running = (int32_t)st->count[SIM_JOB_RUNNING],
		.finished = (int32_t)st->count[SIM_JOB_FINISHED],
	};

	for (size_t cq = 0; cq < st->ncq; cq++) {
		struct sim_cq_sample cs = { st->cq_pending[cq],
					    cq_use(st, cq) };

		vec_push(&st->res->cq_samples, cs);
	}
	sample_free(st, &smp);
	vec_push(&st->res->samples, smp);
	sim_run_sample_metrics(st, t, false);
}

void sim_run_sample_metrics(struct sim_state *st, int64_t t, bool last)
{
	struct metrics *m = st->res->metrics;

	if (!m || (!last && t % st->obs_period_us))
		return;
	/* the history keeps milliseconds: a finer period skips some */
	if (metrics_samples(m) && t / 1000 <= st->last_obs_ms)
		return;
	/* a bounded file: half the resolution when it would grow past,
	 * before the sample so that the last one stays */
	if ((metrics_samples(m) + 1) * metrics_sample_lines(m) >
	    SIM_METRICS_MAX_LINES) {
		metrics_thin(m);
		st->obs_period_us *= 2;
		if (!last && t % st->obs_period_us)
			return;
	}
	/* the state moves only with events: the gauges stand meanwhile */
	if (st->obs_events != st->res->events + 1) {
		obs_metrics_refresh(st->obs, st->ctl);
		st->obs_events = st->res->events + 1;
	}
	metrics_sample(m, t / 1000);
	st->last_obs_ms = t / 1000;
}

/*
 * A full series keeps every other sample and doubles the period: sample i
 * is always at i periods, so the kept ones are those at even indices and
 * the next is due at the same time as before.
 */
static void thin_samples(struct sim_state *st)
{
	struct sim_sample *s = st->res->samples.items;
	struct sim_cq_sample *cs = st->res->cq_samples.items;
	size_t n = st->res->samples.len, k = 0, ncq = st->ncq;

	for (size_t i = 0; i < n; i += 2, k++) {
		s[k] = s[i];
		if (ncq)
			memmove(cs + k * ncq, cs + i * ncq, ncq * sizeof(*cs));
	}
	st->res->samples.len = k;
	st->res->cq_samples.len = k * ncq;
	st->sample_us *= 2;
	if (st->obs_period_us < st->sample_us) { /* not coarser already */
		if (st->res->metrics)
			metrics_thin(st->res->metrics);
		st->obs_period_us = st->sample_us;
	}
	st->next_sample = (int64_t)k * st->sample_us;
}

void sim_run_sample_until(struct sim_state *st, int64_t t, bool at_t)
{
	while (st->next_sample < t || (at_t && st->next_sample == t)) {
		sim_run_sample(st, st->next_sample);
		st->next_sample += st->sample_us;
		if (st->res->samples.len >= SIM_MAX_SAMPLES)
			thin_samples(st);
	}
}

void sim_run_advance(struct sim_state *st, int64_t t)
{
	int64_t dt = t - st->last_t;

	/* The state now is the state at every sample time before t. */
	sim_run_sample_until(st, t, false);
	if (dt <= 0)
		return;
	st->busy_sum += st->busy_gpus * dt;
	st->idle_sum += (st->alloc_gpus - st->busy_gpus) * dt;
	for (size_t cq = 0; cq < st->ncq; cq++)
		st->cq_int[cq] += (double)cq_use(st, cq) * (double)dt;
	st->last_t = t;
}

/* A pod of running job j drawn at random among those that run. */
static int64_t running_pod(struct sim_state *st, uint32_t j)
{
	const struct sim_jst *x = &st->js[j];
	uint64_t k = rng_below(&st->rng, (uint64_t)x->up);

	for (int32_t p = 0; p < st->in->jobs.items[j].pods; p++) {
		if (x->run->pods[p].up && k-- == 0)
			return p;
	}
	BUG_ON(1);
	return -1;
}

/* All pods of job j are up: it runs at the speed its placement allows. */
static void start_job(struct sim_state *st, uint32_t j)
{
	struct sim_jst *x = &st->js[j];
	const struct sim_job *job = &st->in->jobs.items[j];
	struct sim_job_rec *r = &st->res->jobs[j];
	char traffic[96] = "";
	int64_t rem, end;

	sim_figures_shape(st, j);
	x->run->run_gpus = 0;
	for (int32_t p = 0; p < job->pods; p++)
		x->run->run_gpus +=
			x->run->pods[p].bound ? x->run->pods[p].gpus : 0;
	if (r->start_us < 0)
		r->start_us = st->now;
	rem = job->duration_us - x->run->progress_us;
	if (x->want < job->pods) /* partial admission: fewer pods, longer */
		rem = rem * job->pods / (x->want > 0 ? x->want : 1);
	x->run->seg_start_us = st->now;
	end = st->now + throughput_stretch_us(rem, x->run->ratio);
	x->run->end_ev = sim_run_push(st, end, EV_FINISH, j, 0);
	if (end > st->busy_until_us)
		st->busy_until_us = end; /* no stall before it could end */
	st->busy_gpus += x->run->run_gpus;
	sim_run_set_state(st, j, SIM_JOB_RUNNING);
	/* the traffic only where some leaves its racks: the line of a job
	 * in one rack stays as it was */
	if (st->o->log && r->rack_bps > 0)
		snprintf(traffic, sizeof(traffic),
			 " cross_rack_bps=%.0f cross_block_bps=%.0f",
			 r->rack_bps, r->block_bps);
	sim_run_log(st,
		    "start %s pods=%d hosts=%d racks=%d blocks=%d ratio=%.4f%s",
		    job->name, x->want, r->hosts, r->racks, r->blocks,
		    x->run->ratio, traffic);
	if (st->o->pod_fail_per_h > 0) {
		double rate = st->o->pod_fail_per_h * x->want / 3.6e9;
		double u = rng_double(&st->rng);
		int64_t at = st->now + (int64_t)(-log1p(-u) / rate);

		if (at < end)
			x->run->fail_ev = sim_run_push(st, at, EV_POD_FAIL, j,
						       running_pod(st, j));
	}
}

/* Pods job j runs with: all of them without gangs, else those its
 * admission holds (fewer after a partial admission). */
static int32_t need(const struct sim_state *st, uint32_t j)
{
	return st->split ? st->in->jobs.items[j].pods : st->js[j].want;
}

static void pod_up(struct sim_state *st, uint32_t j, uint32_t p)
{
	struct sim_jst *x = &st->js[j];
	struct sim_pod *sp = &x->run->pods[p];
	uint32_t pod, wl = pod_wl(st, j, p, &pod);

	sp->up_ev = 0;
	if (!sp->bound || sp->up)
		return;
	sp->up = true;
	x->up++;
	BUG_ON(ctl_pod_event(st->ctl, ctl_handle(st->ctl, wl), pod,
			     CTL_POD_READY, st->now) < 0);
	if (x->up == need(st, j) && x->bound == x->up &&
	    st->res->jobs[j].state != SIM_JOB_RUNNING)
		start_job(st, j);
}

/* What the pod set of a trace job's workload depends on: one pod set is
 * shared by the workloads of the jobs of one shape. */
struct shape_key {
	uint32_t requests; /* index in sim_input.requests */
	int32_t pods, min_count;
	int32_t mode;	   /* enum topology_mode */
	const char *level; /* interned; NULL when none */
};

/* The shape of trace job j's workload, or of one pod's under no-gang. */
static void shape_key(const struct sim_state *st, uint32_t j, bool pod,
		      struct shape_key *k)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	const struct sim_tmpl *tm = &st->in->templates.items[job->tmpl];

	memset(k, 0, sizeof(*k)); /* the padding is part of the key */
	k->requests = tm->requests;
	k->pods = pod ? 1 : job->pods;
	k->min_count = pod ? 1 : tm->min_count;
	/* a pod alone: no topology request (sim_input_add_split) */
	k->mode = pod ? TOPOLOGY_NONE : (int32_t)tm->topology_mode;
	k->level = pod ? NULL : tm->topology_level;
}

/* The workload holding the pod set of shape k, made from t when new. */
static const struct workload *shape_get(struct sim_state *st,
					const struct shape_key *k,
					const struct trace_job *t)
{
	int64_t i;

	if (!hmap_get(&st->shape_ids, k, sizeof(*k), &i)) {
		if (st->free_shapes.len) {
			i = vec_pop(&st->free_shapes);
		} else {
			i = (int64_t)st->shapes.len;
			vec_push_zero(&st->shapes);
		}
		trace_job_workload(t, st->in->c, NULL, &st->shapes.items[i]);
		hmap_put(&st->shape_ids, k, sizeof(*k), i);
	}
	return &st->shapes.items[i];
}

/* Let go of shape k's pod set when no workload holds it any more. */
static void shape_put(struct sim_state *st, const struct shape_key *k)
{
	int64_t i;

	BUG_ON(!hmap_get(&st->shape_ids, k, sizeof(*k), &i));
	if (workload_podsets_shared(&st->shapes.items[i]))
		return;
	workload_release(&st->shapes.items[i]);
	hmap_del(&st->shape_ids, k, sizeof(*k));
	vec_push(&st->free_shapes, (uint32_t)i);
}

static void finish_job(struct sim_state *st, uint32_t j)
{
	struct sim_jst *x = &st->js[j];
	const struct sim_job *job = &st->in->jobs.items[j];
	struct sim_job_rec *r = &st->res->jobs[j];

	x->run->end_ev = 0;
	sim_run_stop(st, j, true);
	if (r->start_us >= 0)
		sim_estimate_record(st, j, st->now - r->start_us);
	for (int32_t p = 0; p < job->pods; p++)
		unbind_pod(st, j, (uint32_t)p);
	for (uint32_t k = 0; k < (st->split ? (uint32_t)job->pods : 1); k++) {
		uint32_t wl = st->split ? sim_run_split_slot(st, j, k) : x->wl;
		uint64_t h = ctl_handle(st->ctl, wl);

		BUG_ON(ctl_finish(st->ctl, h, st->now) < 0);
		st->wl_count[wl] = 0;
		if (job->tmpl < 0)
			continue;
		/* a trace job's workload ends with it */
		BUG_ON(ctl_workload_delete(st->ctl, h, st->now) < 0);
		st->wl_job[wl] = -1;
	}
	if (job->tmpl >= 0) {
		struct shape_key k;

		shape_key(st, j, st->split, &k);
		shape_put(st, &k);
		x->wl = UINT32_MAX;
		free(x->split_wl);
		x->split_wl = NULL;
		/* its pods are gone with its workloads */
		free(x->run);
		x->run = NULL;
	} else {
		x->run->progress_us = job->duration_us;
	}
	x->adm = 0;
	progressed(st, true);
	r->end_us = st->now;
	sim_run_set_state(st, j, SIM_JOB_FINISHED);
	st->terminal++;
	sim_run_log(st, "finish %s", job->name);
}

static void submit_wl(struct sim_state *st, uint32_t wl)
{
	int64_t est = st->wl_job[wl] >= 0
			      ? sim_estimate(st, (uint32_t)st->wl_job[wl])
			      : 0;

	if (est > 0)
		BUG_ON(ctl_set_estimate(st->ctl, ctl_handle(st->ctl, wl), est) <
		       0);
	BUG_ON(ctl_submit(st->ctl, ctl_handle(st->ctl, wl), true, st->now) < 0);
}

/*
 * The workload of trace job j (its pod k alone under no-gang, named
 * "<name>-pod-<k>"), made now as it arrives. Returns its slot.
 */
static uint32_t make_workload(struct sim_state *st, uint32_t j, int64_t k)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	struct shape_key key;
	struct trace_job t;
	struct workload w;
	char *name = NULL;
	uint64_t h;

	sim_input_trace_job(st->in, j, &t);
	if (k >= 0) {
		name = xasprintf("%s-pod-%" PRId64, job->name, k);
		t.name = name;
		t.pods = t.min_count = 1;
		/* a pod alone: no topology request (sim_input_add_split) */
		t.topology_mode = TOPOLOGY_NONE;
		t.topology_level = NULL;
	}
	shape_key(st, j, k >= 0, &key);
	trace_job_workload_head(&t, st->in->c, job->ns, &w);
	workload_share_podsets(&w, shape_get(st, &key, &t));
	w.queue_name = job->queue;
	BUG_ON(ctl_workload_add(st->ctl, &w, &h) < 0); /* names are new */
	workload_release(&w);
	free(name);
	grow_slots(st);
	st->wl_job[CTL_SLOT(h)] = (int32_t)j;
	st->wl_pod0[CTL_SLOT(h)] = k >= 0 ? (uint32_t)k : 0;
	st->wl_count[CTL_SLOT(h)] = 0;
	return CTL_SLOT(h);
}

/*
 * Submit job j; without gangs its pod k (the next pod is queued as a
 * later event at the same time, so that the pods of jobs submitted
 * together interleave as their controllers would create them).
 */
static void submit_job(struct sim_state *st, uint32_t j, int64_t k)
{
	const struct sim_job *job = &st->in->jobs.items[j];
	struct sim_jst *x = &st->js[j];

	if (k == 0) {
		sim_run_set_state(st, j, SIM_JOB_PENDING);
		progressed(st, true); /* new work: the span starts again */
		st->submitted++;
		sim_run_log(st, "submit %s", job->name);
	}
	if (!st->split) {
		if (job->tmpl >= 0)
			x->wl = make_workload(st, j, -1);
		submit_wl(st, x->wl);
		return;
	}
	if (job->tmpl >= 0) {
		if (!x->split_wl)
			x->split_wl = xcalloc((size_t)job->pods,
					      sizeof(*x->split_wl));
		x->split_wl[k] = make_workload(st, j, k);
	}
	submit_wl(st, sim_run_split_slot(st, j, (uint32_t)k));
	if (k + 1 < job->pods)
		sim_run_push(st, st->now, EV_SUBMIT, j, k + 1);
}

/* A running pod fails and restarts in place after the start latency. */
static void pod_fail(struct sim_state *st, uint32_t j, uint32_t p)
{
	struct sim_jst *x = &st->js[j];
	struct sim_pod *sp = &x->run->pods[p];
	uint32_t pod, wl = pod_wl(st, j, p, &pod);

	x->run->fail_ev = 0;
	if (!sp->up)
		return;
	st->res->sum.pod_failures++;
	sim_run_log(st, "pod-fail %s pod=%u", st->in->jobs.items[j].name, p);
	sim_run_stop(st, j, false);
	sp->up = false;
	x->up--;
	BUG_ON(ctl_pod_event(st->ctl, ctl_handle(st->ctl, wl), pod,
			     CTL_POD_FAILED, st->now) < 0);
	BUG_ON(ctl_pod_event(st->ctl, ctl_handle(st->ctl, wl), pod,
			     CTL_POD_RESTARTED, st->now) < 0);
	sp->up_ev = sim_run_push(st, st->now + st->o->pod_start_us, EV_POD_UP,
				 j, p);
}

void sim_run_admitted(struct sim_state *st, uint32_t wl)
{
	const struct sched_admission *adm = sched_wl_admission(st->s, wl);
	uint32_t j = (uint32_t)st->wl_job[wl];
	struct sim_jst *x = &st->js[j];
	struct sim_job_rec *r = &st->res->jobs[j];
	int32_t n = 0;

	BUG_ON(!adm || st->wl_count[wl]);
	for (size_t i = 0; i < adm->npodsets; i++)
		n += adm->ps[i].count;
	st->wl_count[wl] = n;
	x->want += n;
	x->adm++;
	if (r->admit_us < 0)
		r->admit_us = st->now;
	r->cq = adm->cq;
	pods_of(st, j);
	refresh_state(st, j);
	sim_run_log(st, "admit %s cq=%s pods=%d",
		    st->in->c->workloads.items[wl].name,
		    sched_cq_name(st->s, adm->cq), n);
}

void sim_run_unadmitted(struct sim_state *st, uint32_t wl, bool deactivated)
{
	uint32_t j = (uint32_t)st->wl_job[wl];
	struct sim_jst *x = &st->js[j];

	if (!st->wl_count[wl])
		return;
	x->want -= st->wl_count[wl];
	x->adm--;
	st->wl_count[wl] = 0;
	st->res->jobs[j].evictions++;
	st->res->sum.evictions++;
	if (st->res->jobs[j].state != SIM_JOB_RUNNING)
		interrupted(st, j); /* evicted before it could run */
	if (deactivated) {
		sim_run_stop(st, j, false);
		sim_run_set_state(st, j, SIM_JOB_DEACTIVATED);
		st->terminal++;
		return;
	}
	refresh_state(st, j);
}

/* The job that arrives i-th. */
static uint32_t arrival(const struct sim_state *st, size_t i)
{
	return st->arrivals ? st->arrivals[i] : (uint32_t)i;
}

/* Queue the i-th arrival, if any: one at a time, so that the queue holds
 * one event for all the jobs still to come. */
static void push_arrival(struct sim_state *st, size_t i)
{
	uint32_t j;

	if (i >= st->in->jobs.len)
		return;
	j = arrival(st, i);
	sim_run_push(st, st->in->jobs.items[j].submit_us, EV_ARRIVE, j,
		     (int64_t)i);
}

static void handle(struct sim_state *st, const struct evq_event *e)
{
	st->live -= live(e->kind, e->b);
	st->res->events++;
	switch ((enum sim_ev)e->kind) {
	case EV_ARRIVE:
		push_arrival(st, (size_t)e->b + 1);
		submit_job(st, (uint32_t)e->a, 0);
		break;
	case EV_SUBMIT:
		submit_job(st, (uint32_t)e->a, e->b);
		break;
	case EV_POD_UP:
		pod_up(st, (uint32_t)e->a, (uint32_t)e->b);
		break;
	case EV_FINISH:
		finish_job(st, (uint32_t)e->a);
		break;
	case EV_POD_FAIL:
		pod_fail(st, (uint32_t)e->a, (uint32_t)e->b);
		break;
	case EV_NODE_DOWN:
		sim_apply_node_down(st, (uint32_t)e->a, e->b);
		break;
	case EV_NODE_UP:
		sim_apply_node_up(st, (uint32_t)e->a, e->b);
		break;
	case EV_TICK:
		st->tick_ev = 0;
		st->tick_at = INT64_MAX;
		ctl_tick(st->ctl, st->now);
		break;
	default:
		BUG_ON(1);
	}
}

/* The next gang timeout or requeue time gets one tick event. */
static void schedule_tick(struct sim_state *st)
{
	int64_t next = ctl_next_wakeup_us(st->ctl, st->now);

	if (next == st->tick_at)
		return;
	sim_run_cancel(st, &st->tick_ev, EV_TICK);
	st->tick_at = next;
	if (next != INT64_MAX)
		st->tick_ev = sim_run_push(st, next, EV_TICK, 0, 0);
}

static void report_progress(struct sim_state *st)
{
	size_t n = st->in->jobs.len;
	unsigned pm;

	if (!st->o->progress || !n)
		return;
	pm = (unsigned)((st->submitted + st->terminal) * 1000 / (2 * n));
	if (pm == st->progress_pm)
		return;
	st->progress_pm = pm;
	st->o->progress(st->o->progress_ctx,
			&(struct sim_progress){ .done = pm / 1000.0,
						.now_us = st->now,
						.finished = st->terminal,
						.jobs = n });
}

/* Whether anything can still happen: a live event, or a running job. */
static bool alive(const struct sim_state *st)
{
	return st->live > 0 || st->count[SIM_JOB_RUNNING] > 0;
}

static int ints_cmp(const void *a, const void *b, void *ctx)
{
	const struct sim_state *st = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int32_t fx = st->js[x].ints, fy = st->js[y].ints;

	if (fx != fy)
		return fx > fy ? -1 : 1;
	return (x > y) - (x < y);
}

/* Whether the run stopped making progress; why into the stop reason. */
static bool stalled(struct sim_state *st)
{
	struct strbuf *m = &st->res->stop_reason;

	if (st->futile >= SIM_STALL_INTERRUPTIONS) {
		strbuf_addf(m,
			    "stopped at %.1f h: no job finished or kept any "
			    "work through %d interruptions (failures and "
			    "evictions)",
			    (double)st->now / 3.6e9, SIM_STALL_INTERRUPTIONS);
		return true;
	}
	if (st->since_finish && st->now - st->last_finish_us > st->stall_us &&
	    st->now > st->busy_until_us) {
		strbuf_addf(m,
			    "stopped at %.1f h: no job finished or arrived "
			    "in %.1f h (%d times the longest job's work) "
			    "through %" PRId64 " failures and interruptions",
			    (double)st->now / 3.6e9,
			    (double)(st->now - st->last_finish_us) / 3.6e9,
			    SIM_STALL_SPAN_FACTOR, st->since_finish);
		return true;
	}
	return false;
}

/*
 * Name the unfinished jobs (the most often interrupted first) and what
 * would let them complete.
 */
static void stall(struct sim_state *st)
{
	VEC(uint32_t) hit = VEC_INIT;
	struct strbuf *m = &st->res->stop_reason;
	int64_t gap = INT64_MAX;

	st->res->stalled = true;
	for (size_t j = 0; j < st->in->jobs.len; j++) {
		enum sim_job_state s = st->res->jobs[j].state;

		if (s != SIM_JOB_UNSUBMITTED && s != SIM_JOB_FINISHED &&
		    s != SIM_JOB_DEACTIVATED)
			vec_push(&hit, (uint32_t)j);
	}
	qsort_r(hit.items, hit.len, sizeof(*hit.items), ints_cmp, st);
	strbuf_addstr(m, "; cannot complete at this failure rate:");
	for (size_t i = 0; i < hit.len; i++) {
		const struct sim_jst *x = &st->js[hit.items[i]];
		const struct sim_job *job = &st->in->jobs.items[hit.items[i]];
		int64_t g = x->ints ? (st->now - x->run->first_int_us) / x->ints
				    : INT64_MAX;

		if (g < gap)
			gap = g;
		if (i == 5) {
			strbuf_addf(m, " and %zu more", hit.len - i);
			break;
		}
		strbuf_addf(
			m, "%s %s (%s, %.1f h of work", i ? "," : "", job->name,
			sim_job_state_name(st->res->jobs[hit.items[i]].state),
			(double)job->duration_us / 3.6e9);
		if (x->ints)
			strbuf_addf(m, ", interrupted %d times", x->ints);
		strbuf_addch(m, ')');
	}
	strbuf_addstr(m, "; what would let them complete: ");
	if (gap != INT64_MAX)
		strbuf_addf(
			m,
			"a running job keeps its work only at "
			"checkpoints: --checkpoint with a period well "
			"under %.0f s (their mean time between "
			"interruptions)%s; or ",
			floor((double)(gap < 1000000 ? 1000000 : gap) / 1e6),
			st->o->checkpoint_us > 0 ? " instead of the one given"
						 : "");
	strbuf_addstr(m, "fewer failures or faster repairs (--pod-failures, "
			 "--node-mtbf, --node-repair)");
	sim_run_log(st, "stall %s", m->buf);
	vec_release(&hit);
}

static void loop(struct sim_state *st)
{
	struct evq_event e;

	while (alive(st) && evq_peek(&st->q, &e)) {
		if (st->o->until_us && e.time_us > st->o->until_us)
			break;
		sim_run_advance(st, e.time_us);
		st->now = e.time_us;
		while (evq_peek(&st->q, &e) && e.time_us == st->now) {
			evq_pop(&st->q, &e);
			handle(st, &e);
		}
		ctl_run(st->ctl, st->now);
		/* cycles take no simulated time */
		if (st->obs)
			obs_metrics_cycles(st->obs, st->ctl, 0);
		schedule_tick(st);
		if (st->o->waits)
			sim_wait_update(st);
		if (st->o->check)
			sim_figures_check(st);
		report_progress(st);
		if (stalled(st)) {
			stall(st);
			break;
		}
	}
}

static int arrival_cmp(const void *a, const void *b, void *ctx)
{
	const struct sim_job *jobs = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (jobs[x].submit_us != jobs[y].submit_us)
		return jobs[x].submit_us < jobs[y].submit_us ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * Arrivals in order of time, then of job index: the order in which they
 * would pop had every one been queued at the start. An input sorted by
 * sim_input_sort() needs no table.
 */
static void push_submissions(struct sim_state *st)
{
	const struct sim_job *jobs = st->in->jobs.items;
	size_t n = st->in->jobs.len;

	for (size_t j = 1; j < n && !st->arrivals; j++) {
		if (jobs[j].submit_us >= jobs[j - 1].submit_us)
			continue;
		st->arrivals = xcalloc(n, sizeof(*st->arrivals));
		for (size_t k = 0; k < n; k++)
			st->arrivals[k] = (uint32_t)k;
		qsort_r(st->arrivals, n, sizeof(*st->arrivals), arrival_cmp,
			(void *)jobs);
	}
	push_arrival(st, 0);
}

/* The timeseries period: a thousandth of the expected span, >= 1 s. */
static int64_t sample_period(const struct sim_input *in,
			     const struct sim_options *o)
{
	int64_t end = 0, p;

	if (o->sample_us > 0)
		return o->sample_us;
	vec_foreach (&in->jobs, j) {
		if (j->submit_us + j->duration_us > end)
			end = j->submit_us + j->duration_us;
	}
	if (o->until_us && o->until_us < end)
		end = o->until_us;
	p = end / 1000;
	p = (p + 999999) / 1000000 * 1000000;
	return p < 1000000 ? 1000000 : p;
}

static int check_options(const struct sim_input *in,
			 const struct sim_options *o, struct errbuf *eb)
{
	if ((unsigned)o->policy >= SIM_POLICY_COUNT)
		return errbuf_set(eb, -EINVAL, "policy: unknown");
	if (o->policy == SIM_POLICY_NO_GANG) {
		vec_foreach (&in->jobs, j) {
			if (j->split == UINT32_MAX && j->tmpl < 0)
				return errbuf_set(eb, -EINVAL,
						  "no-gang: the input has no "
						  "per-pod workloads");
		}
	}
	if ((unsigned)o->estimates >= SIM_EST_COUNT)
		return errbuf_set(eb, -EINVAL, "estimates: unknown source");
	if (!(o->estimate_error >= 0) || o->estimate_error > 10)
		return errbuf_set(eb, -EINVAL,
				  "estimate error: must be from 0 to 10");
	if (o->until_us < 0 || o->pod_start_us < 0 || o->sample_us < 0 ||
	    o->node_repair_us < 0 || o->checkpoint_us < 0)
		return errbuf_set(eb, -EINVAL, "times must not be negative");
	if (!(o->node_mtbf_h >= 0) || !(o->pod_fail_per_h >= 0))
		return errbuf_set(eb, -EINVAL,
				  "failure rates must not be negative");
	if (o->pod_fail_per_h > SIM_MAX_POD_FAIL_PER_H)
		return errbuf_set(eb, -EINVAL,
				  "pod failures: %g per pod-hour is more than "
				  "one failure a second for every pod; at most "
				  "%.0f",
				  o->pod_fail_per_h, SIM_MAX_POD_FAIL_PER_H);
	if (o->node_mtbf_h > 0 && o->node_mtbf_h < SIM_MIN_NODE_MTBF_H)
		return errbuf_set(eb, -EINVAL,
				  "node MTBF: %g h means a node fails more "
				  "than once a second; at least %g h (1 s)",
				  o->node_mtbf_h, SIM_MIN_NODE_MTBF_H);
	if (isinf(o->node_mtbf_h))
		return errbuf_set(eb, -EINVAL, "node MTBF: must be finite");
	for (size_t i = 0; i < o->nfailures; i++) {
		const struct sim_failure *f = &o->failures[i];

		if (f->at_us < 0 || f->repair_us < 0)
			return errbuf_set(eb, -EINVAL,
					  "failure %zu: negative time", i + 1);
		if (!f->node || !cluster_find(in->c, KIND_NODE, NULL, f->node))
			return errbuf_set(eb, -EINVAL,
					  "failure %zu: no node named \"%s\"",
					  i + 1, f->node ? f->node : "");
	}
	return throughput_config_check(&o->tp, eb);
}

/* Which job and pod every workload of the manifests stands for (trace
 * jobs' workloads are mapped as they arrive). */
static void map_workloads(struct sim_state *st)
{
	grow_slots(st);
	for (size_t j = 0; j < st->in->jobs.len; j++) {
		const struct sim_job *job = &st->in->jobs.items[j];

		st->js[j].wl = job->wl;
		if (job->tmpl >= 0)
			continue;
		if (!st->split) {
			st->wl_job[job->wl] = (int32_t)j;
			continue;
		}
		for (int32_t k = 0; k < job->pods; k++) {
			st->wl_job[job->split + (uint32_t)k] = (int32_t)j;
			st->wl_pod0[job->split + (uint32_t)k] = (uint32_t)k;
		}
	}
}

/* The resource whose ClusterQueue usage is reported: GPUs when some queue
 * has GPU quota, else cpu. */
static int usage_resource(const struct sim_state *st)
{
	size_t ncq = sched_quota(st->s)->ncq;

	for (size_t cq = 0; st->in->gpu_id >= 0 && cq < ncq; cq++) {
		if (sched_cq_nominal(st->s, (int32_t)cq, st->in->gpu_id) > 0)
			return st->in->gpu_id;
	}
	return resource_lookup(st->in->c->resources, "cpu");
}

static void state_init(struct sim_state *st, const struct sim_input *in,
		       const struct sim_options *o, struct sim_result *res)
{
	struct cluster *c = in->c;
	struct ctl_options co = { 0 };
	size_t nj = in->jobs.len;

	memset(st, 0, sizeof(*st));
	st->in = in;
	st->o = o;
	st->res = res;
	st->split = o->policy == SIM_POLICY_NO_GANG;
	co.sched.policy = o->policy == SIM_POLICY_TAS ? PLACE_POLICY_TAS
			  : o->policy == SIM_POLICY_FIRST_FIT
				  ? PLACE_POLICY_FIRST_FIT
				  : PLACE_POLICY_KUBE_DEFAULT;
	co.sched.compact = o->policy == SIM_POLICY_TAS && !o->loose;
	co.sched.backfill = co.sched.compact && o->backfill;
	co.gang.jitter = true;
	co.gang.seed = o->seed;
	if (o->metrics) {
		res->metrics = metrics_new();
		st->obs = obs_metrics_new(res->metrics, "policy",
					  sim_policy_name(o->policy));
		obs_metrics_set_model(st->obs, &o->tp);
	}
	st->ctl = ctl_new(c, &co, &ops, st);
	st->s = ctl_sched(st->ctl);
	st->g = ctl_gang(st->ctl);
	evq_init(&st->q, kind_rank, EV_KIND_COUNT);
	rng_seed(&st->rng, o->seed);
	st->js = xcalloc(nj + 1, sizeof(*st->js));
	hmap_init(&st->shape_ids);
	st->node_gpus = xcalloc(c->nodes.len + 1, sizeof(*st->node_gpus));
	st->node_down = xcalloc(c->nodes.len + 1, sizeof(*st->node_down));
	st->tick_at = INT64_MAX;
	st->ncq = sched_quota(st->s)->ncq;
	st->cq_int = xcalloc(st->ncq + 1, sizeof(*st->cq_int));
	st->cq_res = usage_resource(st);
	st->cq_pending = xcalloc(st->ncq + 1, sizeof(*st->cq_pending));
	st->job_cq = xcalloc(nj + 1, sizeof(*st->job_cq));
	for (size_t j = 0; j < nj; j++) {
		int64_t cq = sim_job_cq(in, (uint32_t)j);

		st->job_cq[j] = cq < (int64_t)st->ncq ? (int32_t)cq : -1;
	}
	st->free_in = xcalloc(in->rack_names.len + in->block_names.len + 1,
			      sizeof(*st->free_in));
	res->ncq = st->ncq;
	res->cq_preempted = xcalloc(st->ncq * SIM_PREEMPT_REASONS + 1,
				    sizeof(*res->cq_preempted));
	res->cq_resource = st->cq_res >= 0
				   ? resource_name(c->resources, st->cq_res)
				   : NULL;
	res->policy = o->policy;
	res->tp = o->tp;
	res->jobs = xcalloc(nj + 1, sizeof(*res->jobs));
	res->njobs = nj;
	res->node_busy_gpu_us =
		xcalloc(c->nodes.len + 1, sizeof(*res->node_busy_gpu_us));
	for (size_t j = 0; j < nj; j++) {
		struct sim_job_rec *r = &res->jobs[j];

		r->state = SIM_JOB_UNSUBMITTED;
		r->admit_us = r->start_us = r->end_us = -1;
		r->hosts = r->racks = r->blocks = -1;
		r->min_racks = r->min_blocks = -1;
		r->throughput_ratio = -1;
		r->rack_bps = r->block_bps = -1;
		r->cq = -1;
	}
	st->count[SIM_JOB_UNSUBMITTED] = (int64_t)nj;
	hmap_init(&st->est_bucket);
	map_workloads(st);
}

static void state_free(struct sim_state *st)
{
	ctl_free(st->ctl);
	obs_metrics_free(st->obs);
	/* The trace jobs' workloads still here leave with the run. */
	for (size_t i = 0; i < st->nslots; i++) {
		int32_t j = st->wl_job[i];

		if (j >= 0 && st->in->jobs.items[j].tmpl >= 0)
			cluster_workload_remove(st->in->c, (uint32_t)i);
	}
	vec_foreach (&st->shapes, w)
		workload_release(w);
	vec_release(&st->shapes);
	vec_release(&st->free_shapes);
	hmap_release(&st->shape_ids);
	evq_release(&st->q);
	for (size_t j = 0; j < st->in->jobs.len; j++) {
		free(st->js[j].run);
		free(st->js[j].split_wl);
	}
	free(st->js);
	free(st->wl_job);
	free(st->wl_pod0);
	free(st->wl_count);
	free(st->arrivals);
	hmap_release(&st->est_bucket);
	vec_release(&st->est_hist);
	vec_release(&st->active);
	vec_release(&st->watch);
	free(st->node_gpus);
	free(st->node_down);
	free(st->cq_int);
	free(st->cq_pending);
	free(st->job_cq);
	free(st->free_in);
}

int sim_run(const struct sim_input *in, const struct sim_options *o,
	    struct sim_result *res, struct errbuf *eb)
{
	struct sim_state st;
	int rc;

	memset(res, 0, sizeof(*res));
	strbuf_init(&res->stop_reason);
	rc = check_options(in, o, eb);
	if (rc < 0)
		return rc;
	state_init(&st, in, o, res);
	st.sample_us = sample_period(in, o);
	st.obs_period_us = st.sample_us;
	vec_foreach (&in->jobs, j) {
		if (j->duration_us > st.stall_us)
			st.stall_us = j->duration_us;
	}
	st.stall_us *= SIM_STALL_SPAN_FACTOR;
	push_submissions(&st);
	sim_apply_failures(&st);
	loop(&st);
	res->cycles = ctl_stats(st.ctl).cycles;
	sim_figures_finish(&st);
	state_free(&st);
	return 0;
}

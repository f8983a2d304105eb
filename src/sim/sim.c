// SPDX-License-Identifier: Apache-2.0
/*
 * The simulator's input (jobs over a cluster, the topology of its nodes for
 * the figures, the no-gang split), its options and its names. The event
 * loop is in sim_run.c and sim_apply.c, the figures in sim_figures.c.
 */
#include "sim/sim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "model/ann.h"

#include "base/banned.h"

static const char *const policy_names[SIM_POLICY_COUNT] = {
	[SIM_POLICY_TAS] = "tas",
	[SIM_POLICY_KUBE_DEFAULT] = "kube-default",
	[SIM_POLICY_FIRST_FIT] = "first-fit",
	[SIM_POLICY_NO_GANG] = "no-gang",
};

static const char *const state_names[SIM_JOB_STATE_COUNT] = {
	[SIM_JOB_UNSUBMITTED] = "unsubmitted",
	[SIM_JOB_PENDING] = "pending",
	[SIM_JOB_ADMITTED] = "admitted",
	[SIM_JOB_RUNNING] = "running",
	[SIM_JOB_FINISHED] = "finished",
	[SIM_JOB_DEACTIVATED] = "deactivated",
};

enum throughput_class sim_job_class(const struct sim_input *in,
				    const struct throughput_config *tp,
				    uint32_t j)
{
	const struct sim_job *job = &in->jobs.items[j];
	enum throughput_class k = THROUGHPUT_CLASS_BY_SIZE;
	uint8_t par = 0;
	const char *v;

	/* kept out of struct sim_job, which every job holds all run long */
	if (job->tmpl >= 0) {
		par = in->templates.items[job->tmpl].parallelism;
	} else {
		v = labels_get(&in->c->workloads.items[job->wl].annotations,
			       ANN_SIM_PARALLELISM);
		/* checked by sim_input_add_job() */
		if (v && throughput_class_parse(v, strlen(v), &k) == 0)
			par = (uint8_t)(k + 1);
	}
	if (par)
		k = (enum throughput_class)(par - 1);
	return throughput_class_of(tp, k, job->gpus);
}

const char *sim_policy_name(enum sim_policy p)
{
	BUG_ON((unsigned)p >= SIM_POLICY_COUNT);
	return policy_names[p];
}

int64_t sim_job_cq(const struct sim_input *in, uint32_t j)
{
	const struct sim_job *job = &in->jobs.items[j];
	const char *ns = job->ns ? job->ns : "default";
	const struct cluster *c = in->c;

	if (!job->queue)
		return -1;
	vec_foreach (&c->local_queues, lq) {
		if (!lq->cluster_queue || strcmp(lq->name, job->queue) ||
		    strcmp(lq->ns ? lq->ns : "default", ns))
			continue;
		for (size_t k = 0; k < c->cluster_queues.len; k++)
			if (!strcmp(c->cluster_queues.items[k].name,
				    lq->cluster_queue))
				return (int64_t)k;
	}
	return -1;
}

int sim_policy_parse(const char *s, enum sim_policy *ret)
{
	for (unsigned p = 0; p < SIM_POLICY_COUNT; p++) {
		if (strcmp(s, policy_names[p]) == 0) {
			*ret = (enum sim_policy)p;
			return 0;
		}
	}
	return -EINVAL;
}

const char *sim_job_state_name(enum sim_job_state s)
{
	BUG_ON((unsigned)s >= SIM_JOB_STATE_COUNT);
	return state_names[s];
}

void sim_options_init(struct sim_options *o)
{
	memset(o, 0, sizeof(*o));
	o->policy = SIM_POLICY_TAS;
	o->seed = 1;
	o->pod_start_us = 10 * 1000000LL;
	o->node_repair_us = 3600 * 1000000LL;
	o->metrics = true;
	throughput_config_init(&o->tp);
#ifndef NDEBUG
	o->check = true; /* debug builds check every event */
#endif
}

const struct topology *sim_topology(const struct cluster *c)
{
	vec_foreach (&c->flavors, fl) {
		const struct topology *tp;

		if (!fl->topology_name)
			continue;
		tp = cluster_find(c, KIND_TOPOLOGY, NULL, fl->topology_name);
		if (tp)
			return tp;
	}
	return NULL;
}

/* Index of name in names (keyed by key in m), added when new. */
static int32_t domain_index(struct hmap *m, const char *key, const char *name,
			    void *names_vec)
{
	VEC(const char *) *names = names_vec;
	int64_t i;

	if (hmap_get_str(m, key, &i))
		return (int32_t)i;
	i = (int64_t)names->len;
	vec_push(names, name);
	hmap_put_str(m, key, i);
	return (int32_t)i;
}

/* Block and rack of every node from the topology's level labels. */
static void place_nodes(struct sim_input *in, const struct topology *tp)
{
	const struct cluster *c = in->c;
	int rack_l = -1, block_l = -1;
	struct hmap blocks, racks;

	if (tp) {
		rack_l = topology_rack_level(tp);
		block_l = rack_l - 1;
	}
	hmap_init(&blocks);
	hmap_init(&racks);
	for (size_t n = 0; n < c->nodes.len; n++) {
		const struct node *nd = &c->nodes.items[n];
		const char *b = block_l >= 0 ? labels_get(&nd->labels,
							  tp->levels[block_l])
					     : NULL;
		const char *r = rack_l >= 0 ? labels_get(&nd->labels,
							 tp->levels[rack_l])
					    : NULL;
		char *key;

		in->node_place[n].block = in->node_place[n].rack = -1;
		if (!r)
			continue;
		if (block_l < 0)
			b = "";
		if (!b)
			continue;
		in->node_place[n].block =
			domain_index(&blocks, b, b, &in->block_names);
		key = xasprintf("%s/%s", b, r);
		in->node_place[n].rack =
			domain_index(&racks, key, r, &in->rack_names);
		free(key);
	}
	hmap_release(&blocks);
	hmap_release(&racks);
}

/* The largest host, rack and block, for the ideal placement. */
static void set_geometry(struct sim_input *in)
{
	const struct cluster *c = in->c;
	size_t nr = in->rack_names.len, nb = in->block_names.len;
	int32_t *hosts = xcalloc(nr + 1, sizeof(*hosts));
	int32_t *rack_block = xcalloc(nr + 1, sizeof(*rack_block));
	int32_t *racks = xcalloc(nb + 1, sizeof(*racks));
	struct throughput_geometry *g = &in->geometry;

	g->gpus_per_host = 1;
	g->hosts_per_rack = 1;
	g->racks_per_block = 1;
	for (size_t r = 0; r < nr; r++)
		rack_block[r] = -1;
	for (size_t n = 0; n < c->nodes.len; n++) {
		int64_t gpus =
			in->gpu_id >= 0
				? c->nodes.items[n].allocatable.v[in->gpu_id]
				: 0;
		int32_t r = in->node_place[n].rack;

		in->total_gpus += gpus;
		if (gpus > g->gpus_per_host && gpus <= INT32_MAX)
			g->gpus_per_host = (int32_t)gpus;
		if (r < 0)
			continue;
		if (++hosts[r] > g->hosts_per_rack)
			g->hosts_per_rack = hosts[r];
		if (rack_block[r] < 0) {
			rack_block[r] = in->node_place[n].block;
			if (++racks[rack_block[r]] > g->racks_per_block)
				g->racks_per_block = racks[rack_block[r]];
		}
	}
	free(hosts);
	free(rack_block);
	free(racks);
}

void sim_input_init(struct sim_input *in, struct cluster *c,
		    const char *gpu_resource)
{
	memset(in, 0, sizeof(*in));
	in->c = c;
	in->gpu_resource = gpu_resource ? gpu_resource : "nvidia.com/gpu";
	in->gpu_id = resource_lookup(c->resources, in->gpu_resource);
	in->node_place = xcalloc(c->nodes.len + 1, sizeof(*in->node_place));
	hmap_init(&in->request_ids);
	place_nodes(in, sim_topology(c));
	set_geometry(in);
}

void sim_input_release(struct sim_input *in)
{
	if (!in)
		return;
	vec_release(&in->jobs);
	vec_release(&in->templates);
	vec_release(&in->requests);
	hmap_release(&in->request_ids);
	vec_release(&in->block_names);
	vec_release(&in->rack_names);
	free(in->node_place);
	in->node_place = NULL;
}

int sim_input_add_job(struct sim_input *in, uint32_t wl, int64_t submit_us,
		      int64_t duration_us, const char *klass, struct errbuf *eb)
{
	const struct workload *w;
	struct sim_job j = { .wl = wl,
			     .tmpl = -1,
			     .order = (uint32_t)in->jobs.len,
			     .submit_us = submit_us,
			     .duration_us = duration_us,
			     .klass = klass,
			     .split = UINT32_MAX };
	const char *par;
	enum throughput_class k;

	BUG_ON(wl >= in->c->workloads.len);
	w = &in->c->workloads.items[wl];
	par = labels_get(&w->annotations, ANN_SIM_PARALLELISM);
	if (par && throughput_class_parse(par, strlen(par), &k) < 0)
		return errbuf_set(eb, -EINVAL,
				  "%s: " ANN_SIM_PARALLELISM
				  ": must be data, tensor or pipeline",
				  w->name);
	j.name = w->name;
	j.ns = w->ns;
	j.queue = w->queue_name;
	if (submit_us < 0)
		return errbuf_set(eb, -EINVAL, "%s: submit time is negative",
				  w->name);
	if (duration_us <= 0)
		return errbuf_set(eb, -EINVAL, "%s: duration must be positive",
				  w->name);
	for (size_t i = 0; i < w->npodsets; i++) {
		const struct podset *ps = &w->podsets[i];
		int64_t g = in->gpu_id >= 0 ? ps->requests.v[in->gpu_id] : 0;

		j.pods += ps->count;
		j.gpus += g * ps->count;
		if (g > j.gpus_per_pod && g <= INT32_MAX)
			j.gpus_per_pod = (int32_t)g;
	}
	if (j.pods <= 0)
		return errbuf_set(eb, -EINVAL, "%s: has no pods", w->name);
	vec_push(&in->jobs, j);
	return 0;
}

/* The index of r in in->requests, added when new. */
static uint32_t request_id(struct sim_input *in, const struct resvec *r)
{
	int64_t id;

	if (hmap_get(&in->request_ids, r, sizeof(*r), &id))
		return (uint32_t)id;
	id = (int64_t)in->requests.len;
	vec_push(&in->requests, *r);
	hmap_put(&in->request_ids, r, sizeof(*r), id);
	return (uint32_t)id;
}

int sim_input_add_trace_job(struct sim_input *in, const struct trace_job *tj,
			    const char *ns, struct errbuf *eb)
{
	struct sim_tmpl tm = { .topology_level = tj->topology_level,
			       .pos = tj->pos,
			       .min_count = tj->min_count,
			       .priority = tj->priority,
			       .parallelism = tj->parallelism,
			       .topology_mode = tj->topology_mode };
	int64_t g = in->gpu_id >= 0 ? tj->requests.v[in->gpu_id] : 0;
	struct sim_job j = { .wl = UINT32_MAX,
			     .tmpl = (int32_t)in->templates.len,
			     .order = (uint32_t)in->jobs.len,
			     .name = tj->name,
			     .ns = cluster_str(in->c, ns ? ns : "default"),
			     .queue = tj->queue,
			     .submit_us = tj->submit_us,
			     .duration_us = tj->duration_us,
			     .klass = tj->klass,
			     .pods = tj->pods,
			     .split = UINT32_MAX };

	if (tj->submit_us < 0)
		return errbuf_set(eb, -EINVAL, "%s: submit time is negative",
				  tj->name);
	if (tj->duration_us <= 0)
		return errbuf_set(eb, -EINVAL, "%s: duration must be positive",
				  tj->name);
	if (tj->pods <= 0)
		return errbuf_set(eb, -EINVAL, "%s: has no pods", tj->name);
	j.gpus = g * tj->pods;
	j.gpus_per_pod = g <= INT32_MAX ? (int32_t)g : 0;
	tm.requests = request_id(in, &tj->requests);
	vec_push(&in->templates, tm);
	vec_push(&in->jobs, j);
	return 0;
}

void sim_input_trace_job(const struct sim_input *in, uint32_t j,
			 struct trace_job *out)
{
	const struct sim_job *job = &in->jobs.items[j];
	const struct sim_tmpl *tm;

	BUG_ON(job->tmpl < 0);
	tm = &in->templates.items[job->tmpl];
	*out = (struct trace_job){ .name = job->name,
				   .submit_us = job->submit_us,
				   .duration_us = job->duration_us,
				   .pods = job->pods,
				   .min_count = tm->min_count,
				   .requests = in->requests.items[tm->requests],
				   .queue = job->queue,
				   .klass = job->klass,
				   .parallelism = tm->parallelism,
				   .priority = tm->priority,
				   .topology_mode = tm->topology_mode,
				   .topology_level = tm->topology_level,
				   .pos = tm->pos };
}

void sim_input_reserve(struct sim_input *in, size_t n)
{
	vec_reserve(&in->jobs, in->jobs.len + n);
	vec_reserve(&in->templates, in->templates.len + n);
}

static int job_cmp(const void *a, const void *b)
{
	const struct sim_job *x = a, *y = b;

	if (x->submit_us != y->submit_us)
		return x->submit_us < y->submit_us ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

void sim_input_sort(struct sim_input *in)
{
	if (in->jobs.len)
		qsort(in->jobs.items, in->jobs.len, sizeof(*in->jobs.items),
		      job_cmp);
}

/* One single-pod workload for pod k of pod set ps of w. */
static int add_pod_workload(struct cluster *c, const struct workload *w,
			    const struct podset *ps, int32_t k)
{
	struct workload *x = vec_push_zero(&c->workloads);
	struct podset *xp;
	char *name = xasprintf("%s-pod-%d", w->name, k);

	workload_init(x);
	x->ns = w->ns;
	x->name = cluster_str(c, name);
	free(name);
	x->queue_name = w->queue_name;
	x->priority_class_name = w->priority_class_name;
	x->priority = w->priority;
	x->has_priority = w->has_priority;
	x->pod_priority_class_name = w->pod_priority_class_name;
	x->pod_priority = w->pod_priority;
	x->has_pod_priority = w->has_pod_priority;
	x->creation_us = w->creation_us;
	x->pos = w->pos;
	xp = workload_add_podset(x);
	xp->name = ps->name;
	xp->count = xp->min_count = 1;
	xp->requests = ps->requests;
	xp->pos = ps->pos;
	if (cluster_index_last(c, KIND_WORKLOAD) < 0) {
		cluster_pop_last(c, KIND_WORKLOAD);
		return -EEXIST;
	}
	return 0;
}

int sim_input_add_split(struct sim_input *in, struct cluster *c,
			struct errbuf *eb)
{
	size_t before = c->workloads.len;

	BUG_ON(c != in->c);
	vec_foreach (&in->jobs, j) {
		/* c->workloads may move: copy the workload's fields first. */
		struct workload w;
		int32_t k = 0;

		if (j->tmpl >= 0)
			continue; /* its pods' workloads come at arrival */
		w = c->workloads.items[j->wl];
		j->split = (uint32_t)c->workloads.len;
		for (size_t i = 0; i < w.npodsets; i++) {
			for (int32_t p = 0; p < w.podsets[i].count; p++) {
				if (add_pod_workload(c, &w, &w.podsets[i],
						     k++) == 0)
					continue;
				while (c->workloads.len > before)
					cluster_pop_last(c, KIND_WORKLOAD);
				vec_foreach (&in->jobs, r)
					r->split = UINT32_MAX;
				return errbuf_set(eb, -EEXIST,
						  "%s-pod-%d: a workload of "
						  "that name exists already",
						  w.name, k - 1);
			}
		}
	}
	return 0;
}

void sim_result_release(struct sim_result *res)
{
	if (!res)
		return;
	for (size_t j = 0; res->jobs && j < res->njobs; j++) {
		free(res->jobs[j].waits);
		free(res->jobs[j].wait_msg);
	}
	free(res->jobs);
	vec_release(&res->samples);
	vec_release(&res->cq_samples);
	free(res->cq_nominal);
	free(res->cq_preempted);
	strbuf_release(&res->stop_reason);
	free(res->node_busy_gpu_us);
	vec_release(&res->classes);
	free(res->cq_usage);
	metrics_free(res->metrics);
	memset(res, 0, sizeof(*res));
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The synthetic cluster of the scheduler benchmarks (bench admit, bench
 * churn): GPU nodes of 8 GPUs in racks of 40 and blocks of 25 racks, one
 * topology-aware flavor, ClusterQueues sharing the GPUs in cohorts with a
 * LocalQueue each, and workloads of mixed sizes.
 */
#include "cli/bench_cluster.h"

#include <stdio.h>
#include <string.h>

#include "base/banned.h"

#define HOSTS_PER_RACK	40
#define RACKS_PER_BLOCK 25
#define GPUS		8

const char *bench_str(struct cluster *c, const char *fmt, uint32_t a,
		      uint32_t b, uint32_t d)
{
	char buf[96];

	snprintf(buf, sizeof(buf), fmt, a, b, d);
	return cluster_str(c, buf);
}

static void add_nodes(struct cluster *c, const struct bench_cluster_spec *o,
		      int gpu)
{
	uint32_t n = o->nodes;
	struct topology *tp = vec_push_zero(&c->topologies);
	struct flavor *fl;

	tp->name = cluster_str(c, "gpu-topology");
	tp->levels[0] = cluster_str(c, "block");
	tp->levels[1] = cluster_str(c, "rack");
	tp->levels[2] = cluster_str(c, TOPOLOGY_HOSTNAME_LABEL);
	tp->nlevels = 3;
	BUG_ON(cluster_index_last(c, KIND_TOPOLOGY) < 0);
	fl = vec_push_zero(&c->flavors);
	flavor_init(fl);
	fl->name = cluster_str(c, "gpu");
	fl->topology_name = o->no_topology ? NULL : tp->name;
	labels_set(&fl->node_labels, cluster_str(c, "pool"),
		   cluster_str(c, "gpu"));
	BUG_ON(cluster_index_last(c, KIND_FLAVOR) < 0);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h = i % HOSTS_PER_RACK, r = i / HOSTS_PER_RACK;
		uint32_t b = r / RACKS_PER_BLOCK;
		struct node *nd = vec_push_zero(&c->nodes);

		node_init(nd);
		nd->name = bench_str(c, "gpu-b%u-r%u-h%u", b, r, h);
		labels_set(&nd->labels, cluster_str(c, "pool"),
			   cluster_str(c, "gpu"));
		labels_set(&nd->labels, tp->levels[0],
			   bench_str(c, "b%u", b, 0, 0));
		labels_set(&nd->labels, tp->levels[1],
			   bench_str(c, "r%u", r, 0, 0));
		labels_set(&nd->labels, tp->levels[2], nd->name);
		nd->allocatable.v[RESOURCE_CPU] = 96000;
		nd->allocatable.v[RESOURCE_MEMORY] = INT64_C(1536) << 30;
		nd->allocatable.v[RESOURCE_PODS] = 110;
		nd->allocatable.v[gpu] = GPUS;
		nd->ready = true;
		BUG_ON(cluster_index_last(c, KIND_NODE) < 0);
	}
}

static void add_queues(struct cluster *c, const struct bench_cluster_spec *o,
		       int gpu)
{
	int64_t share = (int64_t)o->nodes * GPUS / o->cqs;

	for (uint32_t i = 0; i < o->cqs; i++) {
		struct cluster_queue *cq = vec_push_zero(&c->cluster_queues);
		struct local_queue *lq;
		struct resource_group *g;
		struct flavor_quotas *fq;
		struct resource_quota *rq;

		cluster_queue_init(cq);
		cq->name = bench_str(c, "cq-%u", i, 0, 0);
		cq->cohort = bench_str(c, "cohort-%u", i % o->cohorts, 0, 0);
		if (o->preemption)
			cq->within_cluster_queue = PREEMPT_LOWER_PRIORITY;
		g = cluster_queue_add_group(cq);
		g->covered[g->ncovered++] = RESOURCE_CPU;
		g->covered[g->ncovered++] = gpu;
		fq = resource_group_add_flavor(g);
		fq->flavor = cluster_str(c, "gpu");
		rq = flavor_quotas_add(fq);
		*rq = (struct resource_quota){ RESOURCE_CPU, share * 12000,
					       QUOTA_UNLIMITED,
					       QUOTA_UNLIMITED };
		rq = flavor_quotas_add(fq);
		*rq = (struct resource_quota){ gpu, share, QUOTA_UNLIMITED,
					       QUOTA_UNLIMITED };
		BUG_ON(cluster_index_last(c, KIND_CLUSTER_QUEUE) < 0);
		lq = vec_push_zero(&c->local_queues);
		lq->ns = bench_str(c, "team-%u", i, 0, 0);
		lq->name = cluster_str(c, "training");
		lq->cluster_queue = cq->name;
		BUG_ON(cluster_index_last(c, KIND_LOCAL_QUEUE) < 0);
	}
}

/* Mixed sizes: pods x GPUs per pod and the topology request. */
void bench_shape(struct cluster *c, const char *small_level, struct rng *g,
		 struct podset *ps, int gpu)
{
	uint64_t k = rng_below(g, 100);
	int32_t pods = 1, per = 1;

	if (strcmp(small_level, "none") != 0) {
		ps->topology.mode = TOPOLOGY_REQUIRED;
		ps->topology.level = cluster_str(c, small_level);
	}
	if (k < 40) {
		per = 1;
	} else if (k < 65) {
		per = 4;
	} else if (k < 80) {
		per = 8;
	} else if (k < 92) {
		pods = 4, per = 8;
		ps->topology.mode = TOPOLOGY_REQUIRED;
		ps->topology.level = cluster_str(c, "rack");
	} else if (k < 98) {
		pods = 16, per = 8;
		ps->topology.mode = TOPOLOGY_REQUIRED;
		ps->topology.level = cluster_str(c, "rack");
	} else {
		pods = 64, per = 8;
		ps->topology.mode = TOPOLOGY_PREFERRED;
		ps->topology.level = cluster_str(c, "block");
	}
	ps->count = ps->min_count = pods;
	ps->requests.v[gpu] = per;
	ps->requests.v[RESOURCE_CPU] = per * 12000;
	ps->requests.v[RESOURCE_PODS] = 1;
}

struct podset *bench_add_workload(struct cluster *c, uint32_t i, uint32_t cqs,
				  const char *small_level, struct rng *g,
				  int gpu)
{
	struct workload *w = vec_push_zero(&c->workloads);
	uint32_t q = (uint32_t)rng_below(g, cqs);
	struct podset *ps;

	workload_init(w);
	w->ns = bench_str(c, "team-%u", q, 0, 0);
	w->name = bench_str(c, "job-%u", i, 0, 0);
	w->queue_name = cluster_str(c, "training");
	w->priority = (int32_t)rng_below(g, 4);
	w->creation_us = i;
	ps = workload_add_podset(w);
	ps->name = cluster_str(c, "main");
	bench_shape(c, small_level, g, ps, gpu);
	BUG_ON(cluster_index_last(c, KIND_WORKLOAD) < 0);
	return ps;
}

void bench_cluster_build(struct cluster *c, const struct bench_cluster_spec *o,
			 int gpu)
{
	add_nodes(c, o, gpu);
	add_queues(c, o, gpu);
}

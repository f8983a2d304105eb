// SPDX-License-Identifier: Apache-2.0
/*
 * ClusterQueue and LocalQueue status from the model, in Kueue's v1beta2
 * fields: pending, reserving and admitted workload counts, usage per
 * flavor and resource of the queue's resourceGroups (every pair listed,
 * at "0" when unused), and the Active condition with Kueue's reasons and
 * messages. echelon has no admission checks, so a reservation is an
 * admission: flavorsReservation equals flavorsUsage and reservingWorkloads
 * counts also the preempted workloads that still hold their quota.
 */
#include "serve/serve_status_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "manifest/enc.h"

#include "base/banned.h"

static void set_counts(json_t *st, const struct ss_counts *n)
{
	json_object_set_new(st, "pendingWorkloads", json_integer(n->pending));
	json_object_set_new(st, "reservingWorkloads",
			    json_integer(n->reserving));
	json_object_set_new(st, "admittedWorkloads", json_integer(n->admitted));
}

static int32_t flavor_id(const struct cluster *c, const char *name)
{
	const struct flavor *f = cluster_find(c, KIND_FLAVOR, NULL, name);

	return f ? (int32_t)(f - c->flavors.items) : -1;
}

/*
 * [{name: flavor, resources: [{name, total[, borrowed]}]}] over the
 * flavors and resources of cq's resourceGroups, in spec order: from the
 * scheduler's usage of cq (with borrowed beyond the nominal quota), or
 * from use (a LocalQueue's, no borrowed) when not NULL.
 */
static json_t *flavors_usage(const struct ss *ss, int32_t cq,
			     const int64_t *use)
{
	const struct cluster_queue *q = &ss->c->cluster_queues.items[cq];
	json_t *arr = json_array();

	for (size_t g = 0; g < q->ngroups; g++) {
		for (size_t f = 0; f < q->groups[g].nflavors; f++) {
			const struct flavor_quotas *fq =
				&q->groups[g].flavors[f];
			int32_t fid = flavor_id(ss->c, fq->flavor);
			json_t *res = json_array();

			for (size_t r = 0; r < fq->nresources; r++) {
				const struct resource_quota *rq =
					&fq->resources[r];
				int64_t total = 0;
				json_t *j = json_object();

				if (fid >= 0)
					total = use ? use[(size_t)fid *
								  RESOURCE_MAX +
							  rq->resource]
						    : sched_cq_usage(
							      ss->sc, cq, fid,
							      rq->resource);
				json_object_set_new(j, "name",
						    json_string(resource_name(
							    ss->c->resources,
							    rq->resource)));
				json_object_set_new(j, "total",
						    enc_quantity(ss->c,
								 rq->resource,
								 total));
				if (!use)
					json_object_set_new(
						j, "borrowed",
						enc_quantity(
							ss->c, rq->resource,
							total > rq->nominal
								? total - rq->nominal
								: 0));
				json_array_append_new(res, j);
			}
			json_array_append_new(arr, json_pack("{s:s,s:o}",
							     "name", fq->flavor,
							     "resources", res));
		}
	}
	return arr;
}

/* Kueue's Active condition of a ClusterQueue (clusterQueue.inactiveReason). */
static void cq_active(const struct ss *ss, int32_t cq, json_t *conds,
		      int64_t gen)
{
	const struct cluster_queue *q = &ss->c->cluster_queues.items[cq];
	const char *reason = NULL;
	struct strbuf msg, missing;

	if (sched_cq_active(ss->sc, cq, NULL)) {
		ss_cond_set(conds, "Active", true, "Ready",
			    "Can admit new workloads", 0, gen, ss->now_us);
		return;
	}
	if (q->deleting) {
		ss_cond_set(conds, "Active", false, "Terminating",
			    "Can't admit new workloads; clusterQueue is "
			    "terminating",
			    0, gen, ss->now_us);
		return;
	}
	strbuf_init(&msg);
	strbuf_init(&missing);
	if (q->stop != STOP_NONE) {
		reason = "Stopped";
		strbuf_addstr(&msg, "is stopped");
	}
	for (size_t g = 0; g < q->ngroups; g++) {
		for (size_t f = 0; f < q->groups[g].nflavors; f++) {
			const char *fn = q->groups[g].flavors[f].flavor;

			if (flavor_id(ss->c, fn) < 0)
				strbuf_addf(&missing, "%s%s",
					    missing.len ? "," : "", fn);
		}
	}
	if (missing.len) {
		reason = reason ? reason : "FlavorNotFound";
		strbuf_addf(&msg, "%sreferences missing ResourceFlavor(s): %s",
			    msg.len ? ", " : "", missing.buf);
	}
	for (size_t g = 0; g < q->ngroups; g++) {
		for (size_t f = 0; f < q->groups[g].nflavors; f++) {
			int32_t fid = flavor_id(ss->c,
						q->groups[g].flavors[f].flavor);
			const struct flavor *fl =
				fid >= 0 ? &ss->c->flavors.items[fid] : NULL;

			if (!fl || !fl->topology_name ||
			    cluster_find(ss->c, KIND_TOPOLOGY, NULL,
					 fl->topology_name))
				continue;
			reason = reason ? reason : "TopologyNotFound";
			strbuf_addf(&msg,
				    "%sthere is no Topology \"%s\" for TAS "
				    "flavor \"%s\"",
				    msg.len ? ", " : "", fl->topology_name,
				    fl->name);
		}
	}
	if (reason) {
		char *m = xasprintf("Can't admit new workloads: %s.", msg.buf);

		ss_cond_set(conds, "Active", false, reason, m, 0, gen,
			    ss->now_us);
		free(m);
	} else { /* a cohort cycle: Kueue has no reason of its own */
		ss_cond_set(conds, "Active", false, "Unknown",
			    "Can't admit new workloads.", 0, gen, ss->now_us);
	}
	strbuf_release(&msg);
	strbuf_release(&missing);
}

static void set_usage(json_t *st, json_t *usage)
{
	if (json_array_size(usage)) {
		json_object_set(st, "flavorsReservation", usage);
		json_object_set_new(st, "flavorsUsage", usage);
	} else {
		json_object_del(st, "flavorsReservation");
		json_object_del(st, "flavorsUsage");
		json_decref(usage);
	}
}

static void each_cq(struct ss *ss, const struct api_obj *o)
{
	const struct cluster_queue *q =
		cluster_find(ss->c, KIND_CLUSTER_QUEUE, NULL, o->name);
	json_t *st, *conds;
	int32_t cq;

	if (!q) /* not in the model (yet): the scheduler knows nothing */
		return;
	cq = (int32_t)(q - ss->c->cluster_queues.items);
	st = ss_status_copy(o, &conds);
	set_counts(st, &ss->st->cq_n[cq]);
	set_usage(st, flavors_usage(ss, cq, NULL));
	cq_active(ss, cq, conds, ss_generation(o->body));
	ss_put_status(ss, o, st);
}

static void each_lq(struct ss *ss, const struct api_obj *o)
{
	const struct local_queue *l =
		cluster_find(ss->c, KIND_LOCAL_QUEUE, o->ns, o->name);
	const struct cluster_queue *q;
	int64_t gen = ss_generation(o->body);
	json_t *st, *conds;
	int32_t lq;

	if (!l)
		return;
	lq = (int32_t)(l - ss->c->local_queues.items);
	q = cluster_find(ss->c, KIND_CLUSTER_QUEUE, NULL, l->cluster_queue);
	st = ss_status_copy(o, &conds);
	set_counts(st, &ss->st->lq_n[lq]);
	if (q) {
		int32_t cq = (int32_t)(q - ss->c->cluster_queues.items);

		/* the usage of its admitted workloads, per pair */
		set_usage(st, flavors_usage(ss, cq,
					    ss->st->lq_use +
						    (size_t)lq * ss->st->nfr));
	} else {
		set_usage(st, json_array());
	}
	/* Kueue's LocalQueue reconciler, in its order */
	if (l->stop != STOP_NONE)
		ss_cond_set(conds, "Active", false, "Stopped",
			    "LocalQueue is stopped", 0, gen, ss->now_us);
	else if (!q)
		ss_cond_set(conds, "Active", false, "ClusterQueueDoesNotExist",
			    "Can't submit new workloads to clusterQueue", 0,
			    gen, ss->now_us);
	else if (!sched_cq_active(ss->sc,
				  (int32_t)(q - ss->c->cluster_queues.items),
				  NULL))
		ss_cond_set(conds, "Active", false, "ClusterQueueIsInactive",
			    "Can't submit new workloads to clusterQueue", 0,
			    gen, ss->now_us);
	else
		ss_cond_set(conds, "Active", true, "Ready",
			    "Can submit new workloads to localQueue", 0, gen,
			    ss->now_us);
	ss_put_status(ss, o, st);
}

/* Queue i's object, with stale[i] cleared unless its write fails. */
static void queue_sync(struct ss *ss, const struct api_kind *k, const char *ns,
		       const char *name, bool *stale,
		       void (*fn)(struct ss *ss, const struct api_obj *o))
{
	const struct api_obj *o = api_store_get(ss->s, k, ns, name);
	int err = ss->err;

	if (o)
		fn(ss, o);
	*stale = ss->err != err;
}

int ss_cluster_queues(struct ss *ss)
{
	const struct api_kind *k =
		ss_kind("kueue.x-k8s.io/v1beta2", "ClusterQueue");
	struct serve_status *st = ss->st;

	for (size_t i = 0; k && i < st->ncq; i++) {
		if (st->cq_stale[i])
			queue_sync(ss, k, NULL,
				   ss->c->cluster_queues.items[i].name,
				   &st->cq_stale[i], each_cq);
	}
	return ss->err ? ss->err : ss->writes;
}

int ss_local_queues(struct ss *ss)
{
	const struct api_kind *k =
		ss_kind("kueue.x-k8s.io/v1beta2", "LocalQueue");
	struct serve_status *st = ss->st;

	for (size_t i = 0; k && i < st->nlq; i++) {
		const struct local_queue *l = &ss->c->local_queues.items[i];

		if (st->lq_stale[i])
			queue_sync(ss, k, l->ns ? l->ns : "", l->name,
				   &st->lq_stale[i], each_lq);
	}
	return ss->err ? ss->err : ss->writes;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The scheduler's state as Prometheus gauges under Kueue's names
 * (pkg/metrics/metrics.go), rendered through the registry of
 * src/base/metrics.c: per ClusterQueue its pending workloads (active in
 * the queue or inadmissible, parked until capacity frees), reserving and
 * admitted ones, its status, and per flavor and resource its nominal
 * quota, reservation and usage. Every ClusterQueue has all its series,
 * at zero when idle, so that dashboards see each queue.
 */
#include "serve/serve_status.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/metrics.h"

#include "base/banned.h"

enum fam {
	F_PENDING,
	F_RESERVING,
	F_ADMITTED,
	F_STATUS,
	F_NOMINAL,
	F_RESERVATION,
	F_USAGE,
	F_COUNT
};

static const struct {
	const char *name, *help;
} defs[F_COUNT] = {
	[F_PENDING] = { "kueue_pending_workloads",
			"The number of pending workloads, per 'cluster_queue' "
			"and 'status' ('active': in the queue; "
			"'inadmissible': parked until capacity is freed)." },
	[F_RESERVING] = { "kueue_reserving_active_workloads",
			  "The number of workloads reserving quota, per "
			  "'cluster_queue'." },
	[F_ADMITTED] = { "kueue_admitted_active_workloads",
			 "The number of admitted workloads that are active "
			 "(unsuspended and not finished), per "
			 "'cluster_queue'." },
	[F_STATUS] = { "kueue_cluster_queue_status",
		       "Reports 'cluster_queue' with its 'status' (with "
		       "possible values 'pending', 'active' or "
		       "'terminating'): 1 on the current one." },
	[F_NOMINAL] = { "kueue_cluster_queue_nominal_quota",
			"Reports the cluster_queue's resource nominal quota "
			"within all the flavors." },
	[F_RESERVATION] = { "kueue_cluster_queue_resource_reservation",
			    "Reports the cluster_queue's total resource "
			    "reservation within all the flavors." },
	[F_USAGE] = { "kueue_cluster_queue_resource_usage",
		      "Reports the cluster_queue's total resource usage "
		      "within all the flavors." },
};

struct tally {
	int64_t active, inadmissible, reserving, admitted;
};

static void count(const struct ctl *x, struct tally *t)
{
	const struct cluster *c = ctl_cluster(x);
	const struct sched *s = ctl_sched(x);
	int64_t *cq_pos = xcalloc(c->workloads.len + 1, sizeof(*cq_pos));
	int64_t *lq_pos = xcalloc(c->workloads.len + 1, sizeof(*lq_pos));

	sched_positions(s, cq_pos, lq_pos);
	for (uint32_t i = 0; i < c->workloads.len; i++) {
		int32_t cq = sched_wl_cq(s, i);
		struct sched_saved sv;

		if (!ctl_handle(x, i) || cq < 0)
			continue;
		if (sched_wl_state(s, i) == SCHED_WL_ADMITTED) {
			t[cq].reserving++;
			t[cq].admitted++;
		} else if (sched_wl_held(s, i)) {
			t[cq].reserving++;
		} else if (cq_pos[i] >= 0) {
			sched_wl_export(s, i, &sv);
			if (sv.parked)
				t[cq].inadmissible++;
			else
				t[cq].active++;
		}
	}
	free(cq_pos);
	free(lq_pos);
}

static const char *cq_status(const struct ctl *x, int32_t cq)
{
	if (ctl_cluster(x)->cluster_queues.items[cq].deleting)
		return "terminating";
	return sched_cq_active(ctl_sched(x), cq, NULL) ? "active" : "pending";
}

/* A quantity in the unit Kueue's gauges use: cores for cpu, bytes, units. */
static double value(const struct cluster *c, int resource, int64_t v)
{
	return c->resources->kinds[resource] == QUANTITY_MILLI ? (double)v / 1e3
							       : (double)v;
}

/* The quota series of one ClusterQueue, per flavor and resource of its
 * resourceGroups. */
static void quotas(const struct ctl *x, struct metrics *m, const int *ids,
		   int32_t cq)
{
	const struct cluster *c = ctl_cluster(x);
	const struct cluster_queue *q = &c->cluster_queues.items[cq];

	for (size_t g = 0; g < q->ngroups; g++) {
		for (size_t f = 0; f < q->groups[g].nflavors; f++) {
			const struct flavor_quotas *fq =
				&q->groups[g].flavors[f];
			const struct flavor *fl =
				cluster_find(c, KIND_FLAVOR, NULL, fq->flavor);

			for (size_t r = 0; r < fq->nresources; r++) {
				const struct resource_quota *rq =
					&fq->resources[r];
				const char *labels[] = {
					"cohort",
					q->cohort ? q->cohort : "",
					"cluster_queue",
					q->name,
					"flavor",
					fq->flavor,
					"resource",
					resource_name(c->resources,
						      rq->resource),
					NULL
				};
				int64_t v =
					fl ? sched_cq_usage(
						     ctl_sched(x), cq,
						     (int32_t)(fl -
							       c->flavors
								       .items),
						     rq->resource)
					   : 0;
				double used = value(c, rq->resource, v);

				metrics_set(
					m, ids[F_NOMINAL], labels,
					value(c, rq->resource, rq->nominal));
				metrics_set(m, ids[F_RESERVATION], labels,
					    used);
				metrics_set(m, ids[F_USAGE], labels, used);
			}
		}
	}
}

void serve_status_metrics(const struct ctl *x, struct strbuf *out)
{
	static const char *const statuses[] = { "pending", "active",
						"terminating" };
	const struct cluster *c = ctl_cluster(x);
	size_t ncq = c->cluster_queues.len;
	struct tally *t = xcalloc(ncq + 1, sizeof(*t));
	struct metrics *m = metrics_new();
	int ids[F_COUNT];

	for (int f = 0; f < F_COUNT; f++)
		ids[f] = metrics_family(m, defs[f].name, defs[f].help,
					METRICS_GAUGE, NULL, 0);
	count(x, t);
	for (int32_t cq = 0; cq < (int32_t)ncq; cq++) {
		const char *name = c->cluster_queues.items[cq].name;
		const char *cql[] = { "cluster_queue", name, NULL };
		const char *act[] = { "cluster_queue", name, "status", "active",
				      NULL };
		const char *inad[] = { "cluster_queue", name, "status",
				       "inadmissible", NULL };

		metrics_set(m, ids[F_PENDING], act, (double)t[cq].active);
		metrics_set(m, ids[F_PENDING], inad,
			    (double)t[cq].inadmissible);
		metrics_set(m, ids[F_RESERVING], cql, (double)t[cq].reserving);
		metrics_set(m, ids[F_ADMITTED], cql, (double)t[cq].admitted);
		for (size_t k = 0; k < 3; k++) {
			const char *sl[] = { "cluster_queue", name, "status",
					     statuses[k], NULL };

			metrics_set(m, ids[F_STATUS], sl,
				    strcmp(cq_status(x, cq), statuses[k]) == 0);
		}
		quotas(x, m, ids, cq);
	}
	metrics_write(m, out);
	metrics_free(m);
	free(t);
}

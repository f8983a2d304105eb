// SPDX-License-Identifier: Apache-2.0
/*
 * Usage of what runs without an admission of the core: running pods of a
 * LocalQueue, and Jobs that run (not suspended, with active pods) but
 * whose Workload is not in the input. Both are charged to the quota of the
 * queue's ClusterQueue by one rule: the first flavor of the queue that can
 * hold the pods gets the requests of every resource it lists quota for.
 * Such usage is never released: no workload of the core holds it. A Job is
 * counted once: by its own Workload when the input has one, else by its
 * pods when the input lists them, else by its status.active.
 */
#include "sched/sched_int.h"

#include <errno.h>
#include <string.h>

#include "base/strbuf.h"

#include "base/banned.h"

#define LABEL_QUEUE	 "kueue.x-k8s.io/queue-name"
#define LABEL_JOB	 "batch.kubernetes.io/job-name"
#define LABEL_JOB_LEGACY "job-name"

/* The workload made from Job name in ns, or -1. */
static int64_t job_index(const struct cluster *c, const char *ns,
			 const char *name, struct strbuf *sb)
{
	const struct workload *w;

	strbuf_reset(sb);
	strbuf_addf(sb, "job-%s", name);
	w = cluster_find(c, KIND_WORKLOAD, ns, sb->buf);
	return w && w->from_job ? w - c->workloads.items : -1;
}

/* The workload of the Job a pod belongs to (label job-name), or -1. */
static int64_t pod_job(const struct cluster *c, const struct pod *p,
		       struct strbuf *sb)
{
	const char *job = labels_get(&p->labels, LABEL_JOB);

	if (!job)
		job = labels_get(&p->labels, LABEL_JOB_LEGACY);
	return job ? job_index(c, p->ns, job, sb) : -1;
}

void running_init(struct sched *s)
{
	const struct cluster *c = s->c;
	struct strbuf sb;
	int64_t j;

	strbuf_init(&sb);
	vec_foreach (&c->pods, p) {
		if (pod_holds_resources(p) && (j = pod_job(c, p, &sb)) >= 0)
			s->wl[j].job_pods = true;
	}
	vec_foreach (&c->workloads, w) {
		if (w->from_job || !w->owner_kind ||
		    strcmp(w->owner_kind, "Job") != 0)
			continue;
		j = job_index(c, w->ns, w->owner_name, &sb);
		if (j >= 0)
			s->wl[j].job_own_wl = true;
	}
	strbuf_release(&sb);
}

/* Whether a Job's pods (w, per-pod req) may be on flavor f of cq: the pod
 * template may use it and it has quota for every resource requested. */
static bool job_flavor_ok(const struct sched *s, int32_t cq,
			  const struct workload *w, const struct flavor *fl,
			  const struct resvec *req)
{
	int32_t f = (int32_t)(fl - s->c->flavors.items);
	struct strbuf why;
	bool ok;

	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (r != RESOURCE_PODS && req->v[r] &&
		    !s->q.nodes[cq].listed[QUOTA_FR(f, r)])
			return false;
	}
	strbuf_init(&why);
	ok = assign_eligible(s, w, fl, &why);
	strbuf_release(&why);
	return ok;
}

/*
 * The first flavor of cq that can hold the pods, or -1: one whose node
 * labels node carries (a pod on a node), or else one that suits the Job
 * w with per-pod requests req.
 */
static int32_t first_flavor(const struct sched *s, int32_t cq,
			    const struct node *node, const struct workload *w,
			    const struct resvec *req)
{
	const struct cluster_queue *q = s->cqs[cq].cq;

	for (size_t g = 0; g < q->ngroups; g++) {
		for (size_t f = 0; f < q->groups[g].nflavors; f++) {
			const struct flavor *fl =
				cluster_find(s->c, KIND_FLAVOR, NULL,
					     q->groups[g].flavors[f].flavor);

			if (!fl)
				continue;
			if (node ? labels_contains_all(&node->labels,
						       &fl->node_labels)
				 : job_flavor_ok(s, cq, w, fl, req))
				return (int32_t)(fl - s->c->flavors.items);
		}
	}
	return -1;
}

/* Charge n pods of requests req to flavor f of cq, for the resources the
 * queue has quota for there. */
static void charge_pods(struct sched *s, int32_t cq, int32_t f,
			const struct resvec *req, int64_t n)
{
	for (int r = 0; r < RESOURCE_MAX; r++) {
		size_t fr = QUOTA_FR(f, r);

		if (req->v[r] && s->q.nodes[cq].listed[fr])
			quota_add(&s->q, cq, fr, req->v[r] * n);
	}
}

/* The ClusterQueue of a running pod: by its queue label, else its Job's. */
static int32_t pod_cq(const struct sched *s, const struct pod *p)
{
	const char *lqn = labels_get(&p->labels, LABEL_QUEUE);
	struct strbuf sb;
	int32_t lq;

	if (!lqn) {
		int64_t j;

		strbuf_init(&sb);
		j = pod_job(s->c, p, &sb);
		strbuf_release(&sb);
		/* Its own Workload's admission counts for it already. */
		return j >= 0 && !s->wl[j].job_own_wl ? s->wl[j].cq : -1;
	}
	lq = sched_find_index(s->c, KIND_LOCAL_QUEUE, p->ns, lqn);
	if (lq < 0)
		return -1;
	return sched_find_index(s->c, KIND_CLUSTER_QUEUE, NULL,
				s->c->local_queues.items[lq].cluster_queue);
}

int sched_assume_pod(struct sched *s, const struct pod *p)
{
	const struct node *node;
	int32_t cq, f;

	if (!pod_holds_resources(p))
		return -ENOENT;
	cq = pod_cq(s, p);
	node = cluster_find(s->c, KIND_NODE, NULL, p->node_name);
	if (cq < 0 || !node)
		return -ENOENT;
	f = first_flavor(s, cq, node, NULL, NULL);
	if (f < 0)
		return -ESRCH;
	charge_pods(s, cq, f, &p->requests, 1);
	return 0;
}

enum sched_job_usage sched_assume_job(struct sched *s, uint32_t id)
{
	struct sched_wl *wl = &s->wl[id];
	const struct workload *w = wl->w;
	const struct resvec *req;
	int32_t f;

	BUG_ON(id >= s->nwl || wl->state != SCHED_WL_NEW || wl->assumed);
	sched_touch(s, id);
	if (!w->from_job)
		return SCHED_JOB_NOT_RUNNING;
	wl->assumed = true;
	if (wl->job_own_wl)
		return SCHED_JOB_OWN_WORKLOAD;
	if (w->job.suspend || w->job.active <= 0 || w->npodsets == 0) {
		wl->assumed = false;
		return SCHED_JOB_NOT_RUNNING;
	}
	if (wl->job_pods)
		return SCHED_JOB_PODS;
	if (wl->cq < 0)
		return SCHED_JOB_NO_QUEUE;
	req = &w->podsets[0].requests;
	f = first_flavor(s, wl->cq, NULL, w, req);
	if (f < 0)
		return SCHED_JOB_NO_FLAVOR;
	charge_pods(s, wl->cq, f, req, w->job.active);
	return SCHED_JOB_COUNTED;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The controller's dynamic world: workloads added and deleted with handles
 * that carry a generation, pods found by Kubernetes UID, nodes whose Ready
 * condition or cordon changes. See docs/internals/controller.md §5.
 */
#include "ctl/ctl_int.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

int ctl_workload_add(struct ctl *x, struct workload *w, uint64_t *ret_h)
{
	uint32_t slot;
	int rc;

	rc = cluster_workload_put(x->c, w, &slot);
	if (rc < 0)
		return rc;
	ctl_grow(x);
	x->generation++;
	x->wl[slot].live = true;
	sched_wl_add(x->s, slot);
	gang_wl_add(x->g, slot);
	*ret_h = CTL_HANDLE(slot, x->wl[slot].gen);
	return 0;
}

int ctl_workload_delete(struct ctl *x, uint64_t h, int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);
	struct ctl_wl *w;

	if (wl < 0)
		return (int)wl;
	w = &x->wl[wl];
	if (sched_wl_state(x->s, (uint32_t)wl) == SCHED_WL_ADMITTED) {
		gang_evicted(x->g, (uint32_t)wl, now_us);
		ctl_flush(x);
	}
	x->dirty = true; /* its quota (admitted, or held as a victim) and its
			    place in a queue are free */
	ctl_unmap_pods(x, w);
	gang_wl_remove(x->g, (uint32_t)wl);
	sched_wl_remove(x->s, (uint32_t)wl);
	cluster_workload_remove(x->c, (uint32_t)wl);
	ctl_drop_pods(w);
	w->pods_exist = false;
	w->bind_fails = 0;
	w->bind_epoch++;
	w->live = false;
	if (++w->gen == 0) /* a handle is never 0 */
		w->gen = 1;
	return 0;
}

/* Whether a and b have the same pod sets: counts and requests (Kueue
 * refuses to change them while a workload holds quota). */
static bool same_podsets(const struct workload *a, const struct workload *b)
{
	if (a->npodsets != b->npodsets)
		return false;
	for (size_t i = 0; i < a->npodsets; i++) {
		const struct podset *x = &a->podsets[i], *y = &b->podsets[i];

		if (x->count != y->count || x->min_count != y->min_count ||
		    memcmp(&x->requests, &y->requests, sizeof(x->requests)))
			return false;
	}
	return true;
}

int ctl_workload_update(struct ctl *x, uint64_t h, struct workload *w,
			int64_t now_us)
{
	int64_t wl = ctl_enter(x, h, now_us);
	bool admitted, idle;
	int64_t requeues;
	int rc;

	if (wl < 0)
		return (int)wl;
	admitted = sched_wl_state(x->s, (uint32_t)wl) == SCHED_WL_ADMITTED;
	idle = gang_state(x->g, (uint32_t)wl) == GANG_IDLE;
	/* held: a victim whose quota is counted on its old pod sets */
	if ((admitted || !idle || sched_wl_held(x->s, (uint32_t)wl)) &&
	    !same_podsets(&x->c->workloads.items[wl], w))
		return -EBUSY;
	rc = cluster_workload_replace(x->c, (uint32_t)wl, w);
	if (rc < 0)
		return rc;
	if (idle) { /* its pods are made anew from the new spec */
		requeues = gang_requeues(x->g, (uint32_t)wl);
		gang_wl_remove(x->g, (uint32_t)wl);
		gang_wl_add(x->g, (uint32_t)wl);
		gang_set_requeues(x->g, (uint32_t)wl, requeues);
		ctl_drop_pods(&x->wl[wl]);
	}
	sched_wl_update(x->s, (uint32_t)wl, now_us);
	if (admitted && !x->c->workloads.items[wl].active) {
		struct ctl_event e = { .kind = CTL_EV_DEACTIVATED,
				       .wl = (uint32_t)wl,
				       .reason = "Deactivated" };

		gang_evicted(x->g, (uint32_t)wl, now_us);
		ctl_flush(x);
		sched_deactivate(x->s, (uint32_t)wl, "Deactivated", now_us);
		ctl_emit(x, &e);
	}
	x->dirty = true;
	return 0;
}

int ctl_pod_map(struct ctl *x, const char *uid, uint64_t h, uint32_t pod)
{
	int64_t wl = ctl_slot_of(x, h);
	struct ctl_wl *w;

	if (wl < 0)
		return (int)wl;
	w = ctl_pods_of(x, (uint32_t)wl);
	if (pod >= w->npods)
		return -EINVAL;
	if (hmap_get_str(&x->pod_uid, uid, NULL))
		return -EEXIST;
	hmap_put_str(&x->pod_uid, uid, wl << 32 | pod);
	vec_push(&w->uids, xstrdup(uid));
	return 0;
}

int ctl_pod_find(const struct ctl *x, const char *uid, uint64_t *ret_h,
		 uint32_t *ret_pod)
{
	int64_t v;

	if (!hmap_get_str(&x->pod_uid, uid, &v))
		return -ENOENT;
	*ret_h = CTL_HANDLE((uint32_t)(v >> 32), x->wl[v >> 32].gen);
	*ret_pod = (uint32_t)(v & 0xffffffff);
	return 0;
}

/* Drop the UIDs of slot wl's pods. */
void ctl_unmap_pods(struct ctl *x, struct ctl_wl *w)
{
	vec_foreach (&w->uids, u) {
		hmap_del(&x->pod_uid, *u, strlen(*u));
		free((char *)*u);
	}
	vec_release(&w->uids);
}

void ctl_node_status(struct ctl *x, uint32_t node, bool ready,
		     bool unschedulable, int64_t now_us)
{
	struct node *n;

	ctl_grow(x);
	BUG_ON(node >= x->c->nodes.len);
	ctl_set_now(x, now_us);
	x->generation++;
	n = &x->c->nodes.items[node];
	if (n->ready == ready && n->unschedulable == unschedulable)
		return;
	n->ready = ready;
	n->unschedulable = unschedulable;
	sched_node_set_status(x->s, node, ready, unschedulable);
	x->dirty = true;
}

void ctl_node_usage(struct ctl *x, uint32_t node, const struct resvec *req,
		    int sign, int64_t now_us)
{
	struct node *n;

	ctl_grow(x);
	BUG_ON(node >= x->c->nodes.len || (sign != 1 && sign != -1));
	ctl_set_now(x, now_us);
	x->generation++;
	n = &x->c->nodes.items[node];
	if (sign > 0)
		resvec_add(&n->usage, req);
	else
		resvec_sub(&n->usage, req);
	sched_node_usage(x->s, node, req, sign);
	x->dirty = true;
}

static bool fail(struct strbuf *why, const char *what, uint32_t wl)
{
	if (why)
		strbuf_addf(why, "slot %u: %s", wl, what);
	return false;
}

bool ctl_check(const struct ctl *x, struct strbuf *why)
{
	if (x->out.len)
		return fail(why, "outbox not empty between calls", 0);
	for (uint32_t wl = 0; wl < x->nwl; wl++) {
		const struct ctl_wl *w = &x->wl[wl];
		uint32_t binding = 0;

		if (w->live != (wl < x->c->workloads.len &&
				workload_live(&x->c->workloads.items[wl])))
			return fail(why, "live slot is not the cluster's", wl);
		for (uint32_t p = 0; w->bind && p < w->npods; p++)
			binding += w->bind[p] == CTL_POD_BINDING;
		if (binding != w->binding)
			return fail(why, "count of pending binds is wrong", wl);
		if (binding && sched_wl_state(x->s, wl) != SCHED_WL_ADMITTED)
			return fail(why, "binds a workload not admitted", wl);
	}
	return true;
}

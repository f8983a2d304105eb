// SPDX-License-Identifier: Apache-2.0
/*
 * The controller's state by names: every workload's scheduling state
 * (sched_saved), lifecycle state (gang_saved) and binds, with the
 * ClusterQueue, flavors and nodes named rather than indexed, so that it
 * can be restored into a scheduler built over a changed cluster (queues,
 * flavors, topologies or nodes added, removed or relabelled) or after a
 * restart. A workload whose admission names something that is gone comes
 * back evicted (queued again), as Kueue evicts a workload whose nodes or
 * flavors went away.
 */
#include "ctl/ctl_int.h"
#include "sched/quota.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/* The name of topo node n of flavor f in s, or NULL. */
static const char *node_name(const struct sched *s, int32_t f, uint32_t n)
{
	const struct topo *t = f >= 0 ? sched_topo(s, f) : NULL;

	if (!t || n >= t->nnodes)
		return NULL;
	return t->node_src[n]->name;
}

static const char *flavor_name(const struct cluster *c, int32_t f)
{
	return f >= 0 ? c->flavors.items[f].name : NULL;
}

static int32_t flavor_id(const struct cluster *c, const char *name)
{
	const struct flavor *fl;

	if (!name)
		return -1;
	fl = cluster_find(c, KIND_FLAVOR, NULL, name);
	return fl ? (int32_t)(fl - c->flavors.items) : -2;
}

/* Node name -> topo node of flavor f in s, or -1. */
static int64_t node_id(const struct sched *s, int32_t f, const char *name)
{
	const struct topo *t = f >= 0 ? sched_topo(s, f) : NULL;

	return t && name ? topo_find_node(t, name) : -1;
}

/* A reservation by names. */
static void save_resv(struct ctl_wl_snap *w, const struct ctl *x)
{
	int32_t f = w->sched.resv_flavor - 1;

	if (f >= 0) {
		w->resv_flavor = flavor_name(x->c, f);
		w->resv_nodes = xcalloc(w->sched.resv_nnodes + 1,
					sizeof(*w->resv_nodes));
		for (size_t i = 0; i < w->sched.resv_nnodes; i++)
			w->resv_nodes[i] =
				node_name(x->s, f, w->sched.resv_nodes[i]);
	}
	w->sched.resv_nodes = NULL;
}

/* The reservation of w in this controller's indexes into s (nodes into
 * *ret_nodes, freed by the caller); none when a name is gone. */
static void load_resv(const struct ctl *x, const struct ctl_wl_snap *w,
		      struct sched_saved *s, uint32_t **ret_nodes)
{
	int32_t f = flavor_id(x->c, w->resv_flavor);
	uint32_t *n;

	s->resv_flavor = 0;
	s->resv_nodes = NULL;
	*ret_nodes = NULL;
	if (f < 0 || !w->resv_nodes)
		return;
	n = xcalloc(w->sched.resv_nnodes + 1, sizeof(*n));
	for (size_t i = 0; i < w->sched.resv_nnodes; i++) {
		int64_t k = node_id(x->s, f, w->resv_nodes[i]);

		if (k < 0) {
			free(n);
			return;
		}
		n[i] = (uint32_t)k;
	}
	s->resv_flavor = f + 1;
	s->resv_nodes = n;
	*ret_nodes = n;
}

static void save_adm(struct ctl_wl_snap *w, const struct ctl *x,
		     const struct sched_admission *a)
{
	w->cq = sched_cq_name(x->s, a->cq);
	w->npodsets = a->npodsets;
	for (size_t i = 0; i < a->npodsets; i++) {
		const struct sched_podset_admission *p = &a->ps[i];
		struct ctl_ps_snap *q = &w->ps[i];

		q->count = p->count;
		for (int r = 0; r < RESOURCE_MAX; r++)
			q->flavor[r] = flavor_name(x->c, p->flavor[r]);
		q->tas_flavor = flavor_name(x->c, p->tas_flavor);
		if (p->tas_flavor < 0 || !p->nodes)
			continue;
		q->nodes = xcalloc((size_t)p->count + 1, sizeof(*q->nodes));
		for (int32_t k = 0; k < p->count; k++)
			q->nodes[k] =
				node_name(x->s, p->tas_flavor, p->nodes[k]);
	}
}

/* The lifecycle's pods with their nodes by name. */
static void save_gang(struct ctl_wl_snap *w, const struct ctl *x, uint32_t wl)
{
	const struct workload *cw = &x->c->workloads.items[wl];
	struct gang_saved *g = &w->gang;
	uint32_t k = 0;

	gang_wl_export(x->g, wl, g);
	if (!g->npods) {
		g->pods = NULL;
		return;
	}
	w->gang_pods = xcalloc(g->npods, sizeof(*w->gang_pods));
	memcpy(w->gang_pods, g->pods, g->npods * sizeof(*g->pods));
	w->pod_node = xcalloc(g->npods + 1, sizeof(*w->pod_node));
	for (size_t i = 0; i < cw->npodsets; i++) {
		for (int32_t p = 0; p < cw->podsets[i].count; p++, k++)
			w->pod_node[k] = node_name(x->s, g->tas_flavor[i],
						   g->pods[k].node);
	}
	g->pods = w->gang_pods;
}

static void save_binds(struct ctl_wl_snap *w, const struct ctl *x,
		       const struct ctl_wl *cw)
{
	w->pods_exist = cw->pods_exist;
	w->bind_fails = cw->bind_fails;
	w->bind_deadline_us = cw->binding ? cw->bind_deadline_us : 0;
	w->npods = cw->bind ? cw->npods : 0;
	if (!w->npods)
		return;
	w->bind = xcalloc(w->npods, sizeof(*w->bind));
	memcpy(w->bind, cw->bind, w->npods);
	w->bind_node = xcalloc(w->npods, sizeof(*w->bind_node));
	for (uint32_t p = 0; p < w->npods; p++)
		w->bind_node[p] = cw->node[p] == CTL_NO_NODE
					  ? NULL
					  : x->c->nodes.items[cw->node[p]].name;
}

struct ctl_snapshot *ctl_snapshot(const struct ctl *x)
{
	struct ctl_snapshot *sn = xcalloc(1, sizeof(*sn));

	sched_export_global(x->s, &sn->sched);
	gang_export_rng(x->g, &sn->rng);
	sn->now_us = x->now_us;
	for (size_t n = 0; n < x->nnodes && n < x->c->nodes.len; n++) {
		if (x->node_down[n])
			vec_push(&sn->down_nodes, x->c->nodes.items[n].name);
	}
	for (size_t cq = 0; cq < sched_quota(x->s)->ncq; cq++) {
		if (sched_cq_dirty(x->s, (int32_t)cq))
			vec_push(&sn->dirty_cqs,
				 sched_cq_name(x->s, (int32_t)cq));
	}
	for (uint32_t wl = 0; wl < x->nwl; wl++) {
		struct ctl_wl_snap *w;

		if (!x->wl[wl].live)
			continue;
		w = vec_push_zero(&sn->wls);
		w->slot = wl;
		w->gen = x->wl[wl].gen;
		w->ns = xstrdup(x->c->workloads.items[wl].ns
					? x->c->workloads.items[wl].ns
					: "default");
		w->name = xstrdup(x->c->workloads.items[wl].name);
		sched_wl_export(x->s, wl, &w->sched);
		for (int c = 0; c < SCHED_COND_COUNT; c++) {
			const char *m = w->sched.cond[c].message;

			w->msg[c] = m ? xstrdup(m) : NULL;
			w->sched.cond[c].message = w->msg[c];
		}
		w->why_msg =
			w->sched.why_msg ? xstrdup(w->sched.why_msg) : NULL;
		w->sched.why_msg = w->why_msg;
		save_resv(w, x);
		if (w->sched.adm) {
			save_adm(w, x, w->sched.adm);
		} else if (w->sched.held) {
			save_adm(w, x, w->sched.held);
			w->held = true;
		}
		w->sched.adm = NULL;
		w->sched.held = NULL;
		save_gang(w, x, wl);
		save_binds(w, x, &x->wl[wl]);
	}
	return sn;
}

void ctl_snapshot_free(struct ctl_snapshot *sn)
{
	if (!sn)
		return;
	vec_foreach (&sn->wls, w) {
		for (int c = 0; c < SCHED_COND_COUNT; c++)
			free(w->msg[c]);
		free(w->why_msg);
		free(w->resv_nodes);
		for (size_t i = 0; i < WORKLOAD_MAX_PODSETS; i++)
			free(w->ps[i].nodes);
		free(w->gang_pods);
		free(w->pod_node);
		free(w->ns);
		free(w->name);
		free(w->bind);
		free(w->bind_node);
	}
	vec_release(&sn->wls);
	vec_release(&sn->dirty_cqs);
	vec_release(&sn->down_nodes);
	free(sn);
}

/* The admission of w in x's scheduler now; -ENOENT when something it
 * names is gone. */
static int load_adm(const struct ctl *x, const struct ctl_wl_snap *w,
		    struct sched_admission *a)
{
	const struct cluster_queue *cq =
		cluster_find(x->c, KIND_CLUSTER_QUEUE, NULL, w->cq);

	memset(a, 0, sizeof(*a));
	if (!cq)
		return -ENOENT;
	a->cq = (int32_t)(cq - x->c->cluster_queues.items);
	a->npodsets = w->npodsets;
	for (size_t i = 0; i < w->npodsets; i++) {
		const struct ctl_ps_snap *q = &w->ps[i];
		struct sched_podset_admission *p = &a->ps[i];

		p->count = q->count;
		for (int r = 0; r < RESOURCE_MAX; r++) {
			int32_t f = flavor_id(x->c, q->flavor[r]);

			if (f == -2)
				return -ENOENT;
			p->flavor[r] = (int16_t)f;
		}
		p->tas_flavor = flavor_id(x->c, q->tas_flavor);
		if (p->tas_flavor == -2)
			return -ENOENT;
		if (p->tas_flavor < 0 || !q->nodes)
			continue;
		if (!sched_topo(x->s, p->tas_flavor))
			return -ENOENT;
		p->nodes = xcalloc((size_t)p->count + 1, sizeof(*p->nodes));
		for (int32_t k = 0; k < p->count; k++) {
			int64_t n = node_id(x->s, p->tas_flavor, q->nodes[k]);

			if (n < 0)
				return -ENOENT;
			p->nodes[k] = (uint32_t)n;
		}
	}
	return 0;
}

static void free_nodes(struct sched_admission *a)
{
	for (size_t i = 0; i < a->npodsets; i++)
		free(a->ps[i].nodes);
}

/* The lifecycle's pods of w with their nodes in x's indexes now. */
static int load_gang(const struct ctl *x, const struct ctl_wl_snap *w,
		     struct gang_saved *g, struct gang_pod **ret_pods)
{
	const struct workload *cw = &x->c->workloads.items[w->slot];
	struct gang_pod *pods;
	uint32_t k = 0;

	*g = w->gang;
	*ret_pods = NULL;
	if (!g->npods)
		return 0;
	pods = xcalloc(g->npods, sizeof(*pods));
	memcpy(pods, w->gang_pods, g->npods * sizeof(*pods));
	for (size_t i = 0; i < cw->npodsets && k < g->npods; i++) {
		int32_t f = w->ps[i].tas_flavor
				    ? flavor_id(x->c, w->ps[i].tas_flavor)
				    : -1;

		g->tas_flavor[i] = f;
		for (int32_t p = 0; p < cw->podsets[i].count; p++, k++) {
			int64_t n = node_id(x->s, f, w->pod_node[k]);

			if (w->pod_node[k] && n < 0) {
				free(pods);
				return -ENOENT;
			}
			pods[k].node = n < 0 ? UINT32_MAX : (uint32_t)n;
		}
	}
	g->pods = pods;
	*ret_pods = pods;
	return 0;
}

static void load_binds(struct ctl *x, const struct ctl_wl_snap *w)
{
	struct ctl_wl *cw = &x->wl[w->slot];

	cw->pods_exist = w->pods_exist;
	cw->bind_fails = w->bind_fails;
	/* what was said before the snapshot, as the gang's state shows it */
	cw->ready_said = gang_state(x->g, w->slot) == GANG_READY ||
			 gang_state(x->g, w->slot) == GANG_RECOVERING;
	cw->bound_said = cw->ready_said;
	if (!w->npods)
		return;
	ctl_pods_of(x, w->slot);
	BUG_ON(cw->npods != w->npods);
	memcpy(cw->bind, w->bind, w->npods);
	for (uint32_t p = 0; p < w->npods; p++) {
		const struct node *n =
			w->bind_node[p] ? cluster_find(x->c, KIND_NODE, NULL,
						       w->bind_node[p])
					: NULL;

		cw->node[p] =
			n ? (uint32_t)(n - x->c->nodes.items) : CTL_NO_NODE;
		cw->binding += cw->bind[p] == CTL_POD_BINDING;
	}
	if (cw->binding) {
		cw->bind_deadline_us = w->bind_deadline_us;
		ctl_push_bind_deadline(x, w->slot);
	}
	if (!cw->binding && !memchr(cw->bind, CTL_POD_UNBOUND, cw->npods))
		cw->bound_said = true;
}

/* Restore one workload; -ENOENT when its admission names what is gone. */
static int load_wl(struct ctl *x, const struct ctl_wl_snap *w)
{
	struct sched_saved s = w->sched;
	struct sched_admission a;
	struct gang_saved g;
	struct gang_pod *pods = NULL;
	uint32_t *resv = NULL;
	int rc = 0;

	if (w->gang.npods &&
	    w->gang.npods != (uint32_t)workload_pod_count(
				     &x->c->workloads.items[w->slot]))
		return -ENOENT; /* its pods changed meanwhile */
	if (w->npodsets) {
		rc = load_adm(x, w, &a);
		if (rc < 0)
			goto out;
		if (w->held)
			s.held = &a;
		else
			s.adm = &a;
		rc = load_gang(x, w, &g, &pods);
		if (rc < 0)
			goto out;
	} else {
		rc = load_gang(x, w, &g, &pods);
		if (rc < 0)
			goto out;
	}
	load_resv(x, w, &s, &resv);
	rc = sched_wl_import(x->s, w->slot, &s, x->now_us);
	if (rc < 0)
		goto out;
	BUG_ON(gang_wl_import(x->g, w->slot, &g) < 0);
	load_binds(x, w);
out:
	if (w->npodsets)
		free_nodes(&a);
	free(pods);
	free(resv);
	return rc;
}

/* A workload whose admission names what is gone: evicted, queued again
 * (a victim still holding its quota was released already: it is only
 * queued again). */
static void load_evicted(struct ctl *x, const struct ctl_wl_snap *w)
{
	struct sched_saved s = w->sched;
	struct gang_saved g = w->gang;
	struct ctl_event e = { .kind = CTL_EV_EVICTED,
			       .wl = w->slot,
			       .reason = "NodeFailures",
			       .requeue_at_us = x->now_us };
	bool held = w->held;

	s.state = SCHED_WL_PENDING;
	s.queued = !s.deactivated;
	s.requeue_at_us = 0;
	s.adm = NULL;
	s.held = NULL;
	s.held_for = 0;
	s.resv_flavor = 0; /* it held nodes: no reservation */
	s.resv_nodes = NULL;
	BUG_ON(sched_wl_import(x->s, w->slot, &s, x->now_us) < 0);
	memset(&g, 0, sizeof(g));
	g.state = GANG_IDLE;
	g.permit_deadline_us = g.ready_deadline_us = INT64_MAX;
	g.requeues = w->gang.requeues;
	g.pgs = w->gang.pgs;
	BUG_ON(gang_wl_import(x->g, w->slot, &g) < 0);
	x->wl[w->slot].pods_exist = w->pods_exist;
	x->dirty = true;
	if (held)
		return;
	vec_push(&x->out, ((struct ctl_out){ true, w->slot, 0, CTL_NO_NODE }));
	ctl_flush(x);
	ctl_emit(x, &e);
}

/* The slot of the workload of w in the cluster now (by name), or -1. */
static int64_t slot_now(const struct ctl *x, const struct ctl_wl_snap *w)
{
	const struct workload *cw =
		cluster_find(x->c, KIND_WORKLOAD, w->ns, w->name);

	return cw ? cw - x->c->workloads.items : -1;
}

/* w with its slot, and its preemptor's, as they are in x now. */
static bool place_entry(const struct ctl *x, const struct hmap *old_to_new,
			const struct ctl_wl_snap *w, struct ctl_wl_snap *out)
{
	int64_t slot = slot_now(x, w), by;
	if (slot < 0)
		return false; /* deleted meanwhile */
	*out = *w;
	out->slot = (uint32_t)slot;
	if (w->sched.held_for) {
		uint32_t old = w->sched.held_for - 1;

		out->sched.held_for =
			hmap_get(old_to_new, &old, sizeof(old), &by)
				? (uint32_t)by + 1
				: 0;
	}
	return true;
}

int ctl_restore(struct ctl *x, const struct ctl_snapshot *sn)
{
	struct hmap old_to_new;
	int lost = 0;

	if (sn->now_us > x->now_us)
		x->now_us = sn->now_us;
	ctl_grow(x);
	x->generation++;
	hmap_init(&old_to_new);
	vec_foreach (&sn->wls, w) {
		int64_t slot = slot_now(x, w);

		if (slot < 0)
			continue;
		hmap_put(&old_to_new, &w->slot, sizeof(w->slot), slot);
		if ((uint32_t)slot == w->slot) /* the same: handles stay */
			x->wl[slot].gen = w->gen;
	}
	vec_foreach (&sn->down_nodes, name) {
		const struct node *nd =
			cluster_find(x->c, KIND_NODE, NULL, *name);
		uint32_t n;

		if (!nd)
			continue; /* removed meanwhile */
		n = (uint32_t)(nd - x->c->nodes.items);
		x->node_down[n] = true;
		sched_node_set_down(x->s, n, true, x->now_us);
	}
	vec_foreach (&sn->wls, w0) {
		struct ctl_wl_snap w;

		if (!place_entry(x, &old_to_new, w0, &w))
			continue;
		if (load_wl(x, &w) < 0) {
			load_evicted(x, &w);
			lost++;
		}
	}
	hmap_release(&old_to_new);
	sched_recount_victims(x->s);
	vec_foreach (&sn->dirty_cqs, name) {
		const struct cluster_queue *cq =
			cluster_find(x->c, KIND_CLUSTER_QUEUE, NULL, *name);

		if (cq)
			sched_cq_set_dirty(
				x->s,
				(int32_t)(cq - x->c->cluster_queues.items));
	}
	sched_import_global(x->s, &sn->sched);
	gang_import_rng(x->g, &sn->rng);
	x->dirty = true;
	/* a status writer's cursors from before are too old: every slot */
	dirty_all(&x->changes);
	return lost;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The indexes of a cluster's TAS flavors with one usage per node, and the
 * workload driver of `echelon place` over them: the flavor walk (the
 * ClusterQueue's TAS flavors in order, else all of them; the first where
 * the whole workload fits wins, else the first failure is the answer),
 * admitted assignments kept with Kueue's node replacement, and usage
 * shared by every index that holds a node.
 */
#include "place/place_flavors.h"

#include <string.h>

#include "base/alloc.h"
#include "place/place_replace.h"

#include "base/banned.h"

static void build_share(struct place_flavors *pf)
{
	const struct cluster *c = pf->c;
	size_t nf = c->flavors.len;
	uint32_t *next;

	pf->share_off = xcalloc(c->nodes.len + 1, sizeof(*pf->share_off));
	for (size_t f = 0; f < nf; f++) {
		const struct topo *t = pf->t[f];

		for (uint32_t k = 0; t && k < t->nnodes; k++)
			pf->share_off[t->node_src[k] - c->nodes.items + 1]++;
	}
	for (size_t n = 0; n < c->nodes.len; n++)
		pf->share_off[n + 1] += pf->share_off[n];
	pf->share = xcalloc((size_t)pf->share_off[c->nodes.len] + 1,
			    sizeof(*pf->share));
	next = xcalloc(c->nodes.len + 1, sizeof(*next));
	memcpy(next, pf->share_off, c->nodes.len * sizeof(*next));
	for (size_t f = 0; f < nf; f++) {
		const struct topo *t = pf->t[f];

		for (uint32_t k = 0; t && k < t->nnodes; k++) {
			size_t n = (size_t)(t->node_src[k] - c->nodes.items);

			pf->share[next[n]++] =
				(struct place_flavor_node){ (int32_t)f, k };
		}
	}
	free(next);
	pf->overlap = xcalloc(nf * nf + 1, sizeof(*pf->overlap));
	for (size_t n = 0; n < c->nodes.len; n++) {
		for (uint32_t i = pf->share_off[n]; i < pf->share_off[n + 1];
		     i++)
			for (uint32_t j = pf->share_off[n];
			     j < pf->share_off[n + 1]; j++)
				pf->overlap[(size_t)pf->share[i].f * nf +
					    (size_t)pf->share[j].f] = true;
	}
}

void place_flavors_init(struct place_flavors *pf, const struct cluster *c)
{
	memset(pf, 0, sizeof(*pf));
	pf->c = c;
	pf->t = xcalloc(c->flavors.len + 1, sizeof(*pf->t));
	for (size_t f = 0; f < c->flavors.len; f++) {
		const struct flavor *fl = &c->flavors.items[f];
		const struct topology *tp;

		if (!fl->topology_name)
			continue;
		tp = cluster_find(c, KIND_TOPOLOGY, NULL, fl->topology_name);
		if (tp)
			pf->t[f] = topo_new(tp, fl, c->nodes.items,
					    c->nodes.len, c->resources);
	}
	build_share(pf);
}

void place_flavors_release(struct place_flavors *pf)
{
	for (size_t f = 0; pf->t && f < pf->c->flavors.len; f++)
		topo_free(pf->t[f]);
	free(pf->t);
	free(pf->share_off);
	free(pf->share);
	free(pf->overlap);
	memset(pf, 0, sizeof(*pf));
}

void place_flavors_charge(struct place_flavors *pf, int32_t f, uint32_t n,
			  const struct resvec *req, int64_t k, bool others)
{
	const struct topo *t = pf->t[f];
	size_t cn = (size_t)(t->node_src[n] - pf->c->nodes.items);

	BUG_ON(cn >= pf->c->nodes.len);
	for (uint32_t i = pf->share_off[cn]; i < pf->share_off[cn + 1]; i++) {
		const struct place_flavor_node *x = &pf->share[i];

		if (!others || x->f != f)
			topo_node_add_usage(pf->t[x->f], x->n, req, k);
	}
}

bool place_flavors_overlap(const struct place_flavors *pf, int32_t f, int32_t g)
{
	return pf->overlap[(size_t)f * pf->c->flavors.len + (size_t)g];
}

void place_decision_init(struct place_decision *d)
{
	memset(d, 0, sizeof(*d));
	d->flavor = -1;
	place_workload_result_init(&d->r);
}

void place_decision_release(struct place_decision *d)
{
	if (d)
		place_workload_result_release(&d->r);
}

/* Flavor f, when it is TAS, into out[*n] unless it is there already. */
static void add_candidate(const struct place_flavors *pf, int32_t f,
			  int32_t *out, size_t *n)
{
	if (f < 0 || !pf->t[f])
		return;
	for (size_t k = 0; k < *n; k++) {
		if (out[k] == f)
			return;
	}
	out[(*n)++] = f;
}

/* The TAS flavors w may use, in order, into out; returns how many. */
static size_t candidates(const struct place_flavors *pf,
			 const struct workload *w, int32_t *out)
{
	const struct cluster *c = pf->c;
	const struct local_queue *lq = NULL;
	const struct cluster_queue *cq = NULL;
	size_t n = 0;

	if (w->queue_name)
		lq = cluster_find(c, KIND_LOCAL_QUEUE, w->ns, w->queue_name);
	if (lq)
		cq = cluster_find(c, KIND_CLUSTER_QUEUE, NULL,
				  lq->cluster_queue);
	for (size_t g = 0; cq && g < cq->ngroups; g++) {
		for (size_t f = 0; f < cq->groups[g].nflavors; f++) {
			const struct flavor *fl =
				cluster_find(c, KIND_FLAVOR, NULL,
					     cq->groups[g].flavors[f].flavor);

			if (fl)
				add_candidate(pf,
					      (int32_t)(fl - c->flavors.items),
					      out, &n);
		}
	}
	if (n)
		return n;
	for (size_t f = 0; f < c->flavors.len; f++)
		add_candidate(pf, (int32_t)f, out, &n);
	return n;
}

/* Charge (sign) the usage of pod set i's result, placed on f, to the
 * other indexes: its nodes per pod, or each unit's first node. */
static void share_podset(struct place_flavors *pf, int32_t f,
			 const struct podset *ps,
			 const struct place_result *res)
{
	const struct topo *t = pf->t[f];
	int64_t total = 0;

	for (size_t k = 0; k < res->workers.len; k++)
		total += res->workers.items[k].count;
	if ((int64_t)res->worker_nodes.len == total) {
		for (size_t k = 0; k < res->worker_nodes.len; k++)
			if (res->worker_nodes.items[k] != UINT32_MAX)
				place_flavors_charge(pf, f,
						     res->worker_nodes.items[k],
						     &ps->requests, 1, true);
		return;
	}
	for (size_t k = 0; k < res->workers.len; k++)
		place_flavors_charge(
			pf, f, t->dom_node[res->workers.items[k].unit],
			&ps->requests, res->workers.items[k].count, true);
}

/* A new workload: the first candidate where it fits whole, else the
 * first candidate's failure. */
static void decide(struct place_flavors *pf, const struct workload *w,
		   enum place_policy policy, struct place_decision *d)
{
	const struct placement_config *cfg = &cluster_config(pf->c)->placement;
	int32_t *cand = xcalloc(pf->c->flavors.len + 1, sizeof(*cand));
	size_t n = candidates(pf, w, cand);

	for (size_t i = 0; i < n; i++) {
		int32_t f = cand[i];
		struct place_workload_result r;

		place_workload_result_init(&r);
		if (place_workload(pf->t[f], &pf->c->flavors.items[f], w, cfg,
				   policy, true, &r) ||
		    d->flavor < 0) {
			place_workload_result_release(&d->r);
			d->flavor = f;
			d->r = r;
			if (r.fit)
				break;
			continue;
		}
		place_workload_result_release(&r);
	}
	free(cand);
	for (size_t i = 0; d->r.fit && i < w->npodsets; i++) {
		if (d->r.ps[i].res.fit)
			share_podset(pf, d->flavor, &w->podsets[i],
				     &d->r.ps[i].res);
	}
}

static const struct podset_admission *ps_admission(const struct workload *w,
						   const struct podset *ps)
{
	for (size_t i = 0; w->admission && i < w->admission->npodsets; i++) {
		const struct podset_admission *pa = &w->admission->podsets[i];

		if (pa->name && strcmp(pa->name, ps->name) == 0 && pa->topology)
			return pa;
	}
	return NULL;
}

/* The TAS flavor of an admitted pod set: the first one its resources
 * use, else the cluster's first TAS flavor; -1 when none. */
static int32_t admitted_flavor(const struct place_flavors *pf,
			       const struct podset_admission *pa)
{
	const struct flavor *fl = NULL;

	for (int r = 0; r < RESOURCE_MAX && !fl; r++) {
		if (!pa->flavors[r])
			continue;
		fl = cluster_find(pf->c, KIND_FLAVOR, NULL, pa->flavors[r]);
		if (!fl || !pf->t[fl - pf->c->flavors.items])
			return -1;
	}
	if (fl)
		return (int32_t)(fl - pf->c->flavors.items);
	for (size_t f = 0; f < pf->c->flavors.len; f++) {
		if (pf->t[f])
			return (int32_t)f;
	}
	return -1;
}

/* Turn an admitted assignment into units on f (nodes that are gone or
 * unknown left out) and charge (sign) their usage; returns the first
 * assigned node that is not live. */
static const char *admitted_units(struct place_flavors *pf, int32_t f,
				  const struct podset *ps,
				  const struct topology_assignment *ta,
				  struct place_result *res, int sign)
{
	struct topo *t = pf->t[f];
	const char *failed = NULL;

	if (res)
		res->workers.len = 0;
	for (size_t i = 0; i < ta->ndomains; i++) {
		const char *host = ta->domains[i].values[ta->nlevels - 1];
		int64_t n = topo_find_node(t, host);

		if (n < 0 || !topo_node_live(t, (uint32_t)n)) {
			failed = failed ? failed : host;
			continue;
		}
		if (res)
			vec_push(&res->workers,
				 ((struct place_assign){
					 t->node_unit[n],
					 ta->domains[i].count }));
		if (sign)
			place_flavors_charge(pf, f, (uint32_t)n, &ps->requests,
					     sign * ta->domains[i].count,
					     false);
	}
	if (res) {
		res->fit = true;
		res->level = (unsigned)t->nlevels - 1;
	}
	return failed;
}

/*
 * An admitted workload keeps its assignment, whose usage is assumed for
 * the workloads after it; a pod set with a node that is gone (NotReady,
 * cordoned, unknown) gets a replacement inside its domain, as Kueue's
 * hot swap would find it.
 */
static void keep_admitted(struct place_flavors *pf, const struct workload *w,
			  struct place_decision *d)
{
	const struct config *cfg = cluster_config(pf->c);

	d->admitted = true;
	d->r.fit = true;
	d->r.n = w->npodsets;
	for (size_t i = 0; i < w->npodsets; i++) {
		const struct podset *ps = &w->podsets[i];
		const struct podset_admission *pa = ps_admission(w, ps);
		struct place_result *res = &d->r.ps[i].res;
		struct place_replace_request rr;
		const struct flavor *fl;
		const char *failed;
		int32_t f;

		if (!pa || (f = admitted_flavor(pf, pa)) < 0)
			continue;
		d->flavor = f;
		fl = &pf->c->flavors.items[f];
		failed = admitted_units(pf, f, ps, pa->topology, res, 1);
		if (!failed || !pf->t[f]->hostname_lowest)
			continue;
		memset(&rr, 0, sizeof(rr));
		rr.podset = ps;
		rr.current = pa->topology;
		rr.failed_node = failed;
		rr.flavor_tolerations = fl->tolerations;
		rr.nflavor_tolerations = fl->ntolerations;
		rr.config = &cfg->placement;
		d->replaced[i] = failed;
		/* the replacement sees the workload's own usage, as in Kueue */
		if (!place_replace(pf->t[f], &rr, res)) {
			d->r.fit = false;
			d->r.failed = i;
			continue;
		}
		admitted_units(pf, f, ps, pa->topology, NULL, -1);
		for (size_t k = 0; k < res->workers.len; k++)
			place_flavors_charge(
				pf, f,
				pf->t[f]->dom_node[res->workers.items[k].unit],
				&ps->requests, res->workers.items[k].count,
				false);
	}
}

void place_flavors_place(struct place_flavors *pf, const struct workload *w,
			 enum place_policy policy, struct place_decision *d)
{
	place_decision_release(d);
	place_decision_init(d);
	if (w->admission)
		keep_admitted(pf, w, d);
	else
		decide(pf, w, policy, d);
}

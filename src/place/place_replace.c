// SPDX-License-Identifier: Apache-2.0
/*
 * Node replacement, after Kueue's findReplacementAssignment: drop the
 * failed node's domain from the assignment (its count is the number of
 * pods to move), refuse an assignment that names another node that is
 * gone, work out the domain the replacement must stay in (the required
 * level's ancestor of the first remaining node, or the slice domain whose
 * pods plus the missing ones make whole slices), place the missing pods
 * there with slices narrowed to a layer they divide, and merge.
 */
#include "place/place_replace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/* The unit of an assignment domain (its last value is the hostname). */
static int64_t domain_unit(const struct topo *t,
			   const struct topology_domain *d, size_t nvalues)
{
	const char *host = d->values[nvalues - 1];
	uint32_t u0 = t->level_off[t->nlevels - 1];
	uint32_t u1 = t->level_off[t->nlevels];
	int64_t n = topo_find_node(t, host);

	if (n >= 0)
		return t->node_unit[n];
	for (uint32_t u = u0; u < u1; u++) {
		if (strcmp(t->dom_value[u], host) == 0)
			return u;
	}
	return -1;
}

static uint32_t ancestor_at(const struct topo *t, uint32_t d, unsigned level)
{
	while (topo_dom_level(t, d) > level)
		d = t->dom_parent[d];
	return d;
}

/* findIncompleteSliceDomain: the slice-level domain of the assignment
 * whose pods plus the missing ones are whole slices (lowest id first). */
static int64_t incomplete_slice_domain(const struct topo *t,
				       const struct place_assign *as, size_t n,
				       int32_t missing, int32_t size,
				       const char *level_key)
{
	int l = topology_level_index(t->topology, level_key);
	int64_t best = -1;

	if (l < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t d = ancestor_at(t, as[i].unit, (unsigned)l);
		int64_t pods = 0;

		for (size_t k = 0; k < n; k++) {
			if (ancestor_at(t, as[k].unit, (unsigned)l) == d)
				pods += as[k].count;
		}
		if ((pods + missing) % size == 0 && (best < 0 || d < best))
			best = d;
	}
	return best;
}

/* requiredReplacementDomain; -1 for none. */
static int64_t required_domain(const struct topo *t, const struct podset *ps,
			       const struct place_assign *as, size_t n,
			       int32_t missing)
{
	const struct topology_request *tr = &ps->topology;
	int32_t size = tr->nslices ? tr->slices[0].size : 1;
	int l;

	if (!n)
		return -1;
	if (tr->nslices && tr->slices[0].level && size > 0 &&
	    missing % size != 0) {
		for (size_t i = tr->nslices; tr->nslices > 1 && i-- > 0;) {
			if (missing % tr->slices[i].size != 0)
				return incomplete_slice_domain(
					t, as, n, missing, tr->slices[i].size,
					tr->slices[i].level);
		}
		return incomplete_slice_domain(t, as, n, missing, size,
					       tr->slices[0].level);
	}
	if (tr->mode != TOPOLOGY_REQUIRED)
		return -1;
	l = topology_level_index(t->topology, tr->level);
	if (l < 0)
		return -1;
	return ancestor_at(t, as[0].unit, (unsigned)l);
}

/* Narrow the slices to the innermost layer the missing pods divide. */
static void narrow_slices(const struct podset *ps, int32_t missing,
			  struct place_request *req)
{
	const struct topology_request *tr = &ps->topology;

	req->slice_override = 1;
	req->slice_override_level = NULL;
	for (size_t i = tr->nslices; tr->nslices > 1 && i-- > 0;) {
		if (missing % tr->slices[i].size == 0) {
			req->slice_override = tr->slices[i].size;
			req->slice_override_level = tr->slices[i].level;
			return;
		}
	}
}

static int assign_cmp(const void *a, const void *b)
{
	const struct place_assign *x = a, *y = b;

	return (x->unit > y->unit) - (x->unit < y->unit);
}

/* res->workers = kept + res->workers, by unit, counts of a unit added. */
static void merge(const struct topo *t, const struct place_assign *kept,
		  size_t nkept, struct place_result *res)
{
	size_t w = 0;

	for (size_t i = 0; i < nkept; i++)
		vec_push(&res->workers, kept[i]);
	if (res->workers.len > 1)
		qsort(res->workers.items, res->workers.len,
		      sizeof(*res->workers.items), assign_cmp);
	for (size_t i = 0; i < res->workers.len; i++) {
		if (w && res->workers.items[w - 1].unit ==
				 res->workers.items[i].unit)
			res->workers.items[w - 1].count +=
				res->workers.items[i].count;
		else
			res->workers.items[w++] = res->workers.items[i];
	}
	res->workers.len = w;
	res->worker_nodes.len = 0;
	for (size_t i = 0; i < w; i++) {
		for (int32_t c = 0; c < res->workers.items[i].count; c++)
			vec_push(&res->worker_nodes,
				 t->dom_node[res->workers.items[i].unit]);
	}
}

static bool fail(struct place_result *res)
{
	res->fit = false;
	res->workers.len = res->leader.len = 0;
	res->worker_nodes.len = res->leader_nodes.len = 0;
	return false;
}

/* Split the current assignment into kept units and the missing count;
 * false (with the reason) when it names a node that is gone. */
static bool split(const struct topo *t, const struct place_replace_request *rr,
		  struct place_assign *kept, size_t *nkept, int32_t *missing,
		  struct place_result *res)
{
	const struct topology_assignment *ta = rr->current;

	*nkept = 0;
	*missing = 0;
	for (size_t i = 0; i < ta->ndomains; i++) {
		const struct topology_domain *d = &ta->domains[i];
		int64_t u;

		if (strcmp(d->values[ta->nlevels - 1], rr->failed_node) == 0) {
			*missing = d->count;
			continue;
		}
		u = domain_unit(t, d, ta->nlevels);
		if (u < 0 || !t->dom_live[u]) {
			strbuf_addf(&res->reason,
				    "Cannot replace the node, because the "
				    "existing topologyAssignment is invalid, "
				    "as it contains the stale domain %s",
				    d->values[0]);
			return false;
		}
		kept[(*nkept)++] =
			(struct place_assign){ (uint32_t)u, d->count };
	}
	return true;
}

bool place_replace(const struct topo *t, const struct place_replace_request *rr,
		   struct place_result *res)
{
	struct place_assign *kept =
		xcalloc(rr->current->ndomains + 1, sizeof(*kept));
	struct place_request req;
	size_t nkept;
	int32_t missing;
	bool ok = false;

	strbuf_reset(&res->reason);
	if (!split(t, rr, kept, &nkept, &missing, res)) {
		fail(res);
		goto out;
	}
	place_request_init(&req, rr->podset);
	req.count = missing;
	req.config = rr->config;
	req.flavor_tolerations = rr->flavor_tolerations;
	req.nflavor_tolerations = rr->nflavor_tolerations;
	req.within = required_domain(t, rr->podset, kept, nkept, missing);
	if (rr->podset->topology.nslices && req.within >= 0 &&
	    missing % rr->podset->topology.slices[0].size != 0)
		narrow_slices(rr->podset, missing, &req);
	if (!place_podset(t, &req, res))
		goto out;
	if (!res->workers.len) {
		strbuf_addf(&res->reason,
			    "cannot find replacement assignment for unhealthy "
			    "node: %s",
			    rr->failed_node);
		fail(res);
		goto out;
	}
	merge(t, kept, nkept, res);
	ok = true;
out:
	free(kept);
	return ok;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Workload-level placement: groups pod sets as Kueue's
 * FindTopologyAssignmentsForFlavor does (group key = podSetGroupName, or
 * the pod set's position; groups in order of first appearance; in a group
 * of two, the larger count is the workers, the other the leader), places
 * them in turn with each group's usage assumed, and undoes everything when
 * one group does not fit.
 */
#include "place/place_workload.h"

#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

void place_workload_result_init(struct place_workload_result *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < WORKLOAD_MAX_PODSETS; i++)
		place_result_init(&r->ps[i].res);
}

void place_workload_result_release(struct place_workload_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < WORKLOAD_MAX_PODSETS; i++)
		place_result_release(&r->ps[i].res);
}

static bool same_group(const struct workload *w, size_t a, size_t b)
{
	const char *ga = w->podsets[a].topology.group_name;
	const char *gb = w->podsets[b].topology.group_name;

	return ga && gb && strcmp(ga, gb) == 0;
}

/* The other member of i's group (a pair), or -1. */
static int partner(const struct workload *w, size_t i)
{
	for (size_t j = 0; j < w->npodsets; j++) {
		if (j != i && same_group(w, i, j))
			return (int)j;
	}
	return -1;
}

static bool place_one(struct topo *t, const struct flavor *fl,
		      const struct workload *w, size_t wi, int li,
		      const struct placement_config *cfg,
		      enum place_policy policy,
		      struct place_workload_result *out,
		      struct place_request *req)
{
	struct place_result *res = &out->ps[wi].res;

	place_request_init(req, &w->podsets[wi]);
	req->leader = li >= 0 ? &w->podsets[li] : NULL;
	req->config = cfg;
	req->flavor_tolerations = fl ? fl->tolerations : NULL;
	req->nflavor_tolerations = fl ? fl->ntolerations : 0;
	out->ps[wi].attempted = true;
	if (li >= 0)
		out->ps[li].attempted = out->ps[li].is_leader = true;
	if (policy != PLACE_POLICY_TAS) {
		struct place_request lreq;

		req->leader = NULL;
		if (!place_baseline_podset(t, policy, req, res))
			return false;
		if (li < 0)
			return true;
		place_apply(t, req, res, 1);
		place_request_init(&lreq, &w->podsets[li]);
		lreq.flavor_tolerations = req->flavor_tolerations;
		lreq.nflavor_tolerations = req->nflavor_tolerations;
		place_baseline_podset(t, policy, &lreq, &out->ps[li].res);
		place_apply(t, req, res, -1);
		return out->ps[li].res.fit;
	}
	if (!place_podset(t, req, res))
		return false;
	if (li >= 0) {
		/* the leader's part of the group result, as its own */
		struct place_result *lr = &out->ps[li].res;

		lr->fit = true;
		lr->level = res->level;
		lr->workers.len = lr->worker_nodes.len = 0;
		for (size_t k = 0; k < res->leader.len; k++)
			vec_push(&lr->workers, res->leader.items[k]);
		for (size_t k = 0; k < res->leader_nodes.len; k++)
			vec_push(&lr->worker_nodes, res->leader_nodes.items[k]);
	}
	return true;
}

/* Take back the usage of the groups placed so far. */
static void undo(struct topo *t, const struct workload *w,
		 struct place_workload_result *out,
		 const struct place_request *reqs, const bool *applied)
{
	for (size_t i = w->npodsets; i-- > 0;) {
		if (!applied[i])
			continue;
		place_apply(t, &reqs[i], &out->ps[i].res, -1);
		if (reqs[i].leader && out->ps[i].res.leader.len == 0) {
			struct place_request lreq;

			place_request_init(&lreq, reqs[i].leader);
			place_apply(t, &lreq,
				    &out->ps[reqs[i].leader - w->podsets].res,
				    -1);
		}
	}
}

bool place_workload(struct topo *t, const struct flavor *fl,
		    const struct workload *w,
		    const struct placement_config *cfg,
		    enum place_policy policy, bool apply,
		    struct place_workload_result *out)
{
	struct place_request reqs[WORKLOAD_MAX_PODSETS];
	bool applied[WORKLOAD_MAX_PODSETS] = { false };
	bool done[WORKLOAD_MAX_PODSETS] = { false };

	out->n = w->npodsets;
	out->fit = true;
	for (size_t i = 0; i < w->npodsets; i++) {
		int p = partner(w, i);
		size_t wi = i;
		int li = p;

		if (done[i])
			continue;
		if (p >= 0 && w->podsets[p].count > w->podsets[i].count) {
			wi = (size_t)p;
			li = (int)i;
		}
		done[wi] = true;
		if (li >= 0)
			done[li] = true;
		if (!place_one(t, fl, w, wi, li, cfg, policy, out, &reqs[wi])) {
			out->fit = false;
			out->failed = wi;
			break;
		}
		place_apply(t, &reqs[wi], &out->ps[wi].res, 1);
		if (li >= 0 && policy != PLACE_POLICY_TAS) {
			struct place_request lreq;

			place_request_init(&lreq, &w->podsets[li]);
			place_apply(t, &lreq, &out->ps[li].res, 1);
			reqs[wi].leader = &w->podsets[li];
		}
		applied[wi] = true;
	}
	if (!out->fit || !apply)
		undo(t, w, out, reqs, applied);
	return out->fit;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Baseline policies: pods placed one at a time with no notion of topology.
 * kube-default scores each feasible node as kube-scheduler's
 * NodeResourcesFit LeastAllocated strategy does (cpu and memory, weight 1,
 * score = mean of (allocatable - requested) * 100 / allocatable) and takes
 * the best, ties to the lowest node index where kube-scheduler would pick
 * at random; first-fit takes the first feasible node in index order.
 */
#include "place/place_baseline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

static const char *const policy_names[PLACE_POLICY_COUNT] = {
	"tas",
	"kube-default",
	"first-fit",
};

int place_policy_parse(const char *s, enum place_policy *ret)
{
	for (int i = 0; i < PLACE_POLICY_COUNT; i++) {
		if (strcmp(s, policy_names[i]) == 0) {
			*ret = (enum place_policy)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *place_policy_name(enum place_policy p)
{
	return p < PLACE_POLICY_COUNT ? policy_names[p] : "?";
}

/* Filters of a node for the pod set (as in TAS's node filter). */
static bool node_feasible(const struct topo *t, uint32_t n,
			  const struct place_request *req)
{
	const struct node *src = t->node_src[n];
	const struct podset *ps = req->podset;
	struct toleration tols[64];
	size_t nt = 0;

	if (!topo_node_live(t, n))
		return false;
	for (size_t i = 0; i < ps->ntolerations && nt < ARRAY_SIZE(tols); i++)
		tols[nt++] = ps->tolerations[i];
	for (size_t i = 0;
	     i < req->nflavor_tolerations && nt < ARRAY_SIZE(tols); i++)
		tols[nt++] = req->flavor_tolerations[i];
	if (taint_find_untolerated(src->taints, src->ntaints, tols, nt))
		return false;
	if (!labels_contains_all(&src->labels, &ps->node_selector))
		return false;
	return node_affinity_matches(&ps->affinity, &src->labels);
}

static bool fits(const struct topo *t, const int64_t *fr,
		 const struct resvec *req)
{
	for (int r = 0; r < RESOURCE_MAX; r++) {
		if (req->v[r] <= 0)
			continue;
		if (r >= t->nres || req->v[r] > fr[r])
			return false;
	}
	return true;
}

/* LeastAllocated over cpu and memory, 0..100; -1 when nothing counts. */
static int64_t score(const struct topo *t, uint32_t n, const int64_t *fr,
		     const struct resvec *req)
{
	static const int res[] = { RESOURCE_CPU, RESOURCE_MEMORY };
	int64_t sum = 0, w = 0;

	for (size_t i = 0; i < ARRAY_SIZE(res); i++) {
		int64_t alloc = t->node_alloc[(size_t)n * t->nres + res[i]];
		int64_t left = fr[res[i]] - req->v[res[i]];

		if (alloc <= 0)
			continue;
		sum += (left < 0 ? 0 : left) * 100 / alloc;
		w++;
	}
	return w ? sum / w : 0;
}

static int64_t pick(const struct topo *t, enum place_policy policy,
		    const struct place_request *req, const int64_t *fr,
		    const uint8_t *ok)
{
	int64_t best = -1, best_score = -1;

	for (uint32_t n = 0; n < t->nnodes; n++) {
		const int64_t *f = &fr[(size_t)n * t->nres];
		int64_t s;

		if (!ok[n] || !fits(t, f, &req->podset->requests))
			continue;
		if (policy == PLACE_POLICY_FIRST_FIT)
			return n;
		s = score(t, n, f, &req->podset->requests);
		if (s > best_score) {
			best = n;
			best_score = s;
		}
	}
	return best;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Rank order follows the domain order, as Kueue's ungater would hand out
 * ranks: the nodes sorted by index (depth-first), then counted per unit.
 */
static void collect(const struct topo *t, struct place_result *res)
{
	if (res->worker_nodes.len > 1)
		qsort(res->worker_nodes.items, res->worker_nodes.len,
		      sizeof(uint32_t), u32_cmp);
	for (size_t i = 0; i < res->worker_nodes.len; i++) {
		uint32_t u = t->node_unit[res->worker_nodes.items[i]];
		size_t k = res->workers.len;

		if (k && res->workers.items[k - 1].unit == u)
			res->workers.items[k - 1].count++;
		else
			vec_push(&res->workers,
				 ((struct place_assign){ u, 1 }));
	}
}

bool place_baseline_podset(const struct topo *t, enum place_policy policy,
			   const struct place_request *req,
			   struct place_result *res)
{
	size_t nr = (size_t)t->nres;
	int64_t *fr = xmalloc((t->nnodes + 1) * nr * sizeof(int64_t));
	uint8_t *ok = xcalloc(t->nnodes + 1, 1);
	int32_t placed = 0;

	BUG_ON(policy == PLACE_POLICY_TAS || policy >= PLACE_POLICY_COUNT);
	res->fit = false;
	res->level = (unsigned)t->nlevels - 1;
	strbuf_reset(&res->reason);
	res->workers.len = res->leader.len = 0;
	res->worker_nodes.len = res->leader_nodes.len = 0;
	memcpy(fr, t->node_free, t->nnodes * nr * sizeof(int64_t));
	for (uint32_t n = 0; n < t->nnodes; n++)
		ok[n] = node_feasible(t, n, req);
	for (; placed < req->count; placed++) {
		int64_t n = pick(t, policy, req, fr, ok);

		if (n < 0)
			break;
		for (size_t r = 0; r < nr; r++)
			fr[(size_t)n * nr + r] -= req->podset->requests.v[r];
		vec_push(&res->worker_nodes, (uint32_t)n);
	}
	free(fr);
	free(ok);
	if (placed < req->count) {
		strbuf_addf(&res->reason,
			    "%s: only %" PRId32 " out of %" PRId32
			    " pod(s) fit",
			    place_policy_name(policy), placed, req->count);
		res->worker_nodes.len = 0;
		return false;
	}
	collect(t, res);
	res->fit = true;
	return true;
}

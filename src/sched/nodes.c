// SPDX-License-Identifier: Apache-2.0
/*
 * Node failures and pod moves, for drivers whose nodes fail: a node that
 * goes down leaves every topology index that holds it, and the pods of a
 * gang that the lifecycle (src/gang) replaced move in the index to their
 * new nodes. A down node is marked removed in the index rather than not
 * Ready: its usage stays recorded (only live nodes count in the
 * aggregates), so the release of the workloads still admitted on it takes
 * back exactly what their admission added, and its own Ready condition
 * and cordon from the input stay as they were.
 */
#include "sched/sched.h"

#include <errno.h>

#include "sched/sched_int.h"

#include "base/banned.h"

/*
 * Capacity grew on TAS flavor f: the queues that list it try their parked
 * workloads again at the next cycle, and failed placements are forgotten,
 * as after a release.
 */
static void flavor_grew(struct sched *s, int32_t f)
{
	vec_foreach (&s->flavor_cqs[f], cq)
		s->cqs[*cq].dirty = true;
	s->epoch++;
}

void sched_node_set_down(struct sched *s, uint32_t node, bool down,
			 int64_t now_us)
{
	const char *name;

	(void)now_us;
	BUG_ON(node >= s->c->nodes.len);
	if (s->node_down[node] == down)
		return;
	s->node_down[node] = down;
	name = s->c->nodes.items[node].name;
	for (size_t f = 0; f < s->c->flavors.len; f++) {
		struct topo *t = s->tas[f].t;
		int64_t n = t ? topo_find_node(t, name) : -1;

		if (n < 0)
			continue;
		topo_node_set_removed(t, (uint32_t)n, down);
		if (!down && topo_node_live(t, (uint32_t)n))
			flavor_grew(s, (int32_t)f);
	}
	s->tas_gen++;
}

void sched_node_set_status(struct sched *s, uint32_t node, bool ready,
			   bool unschedulable)
{
	const char *name;

	BUG_ON(node >= s->c->nodes.len);
	name = s->c->nodes.items[node].name;
	for (size_t f = 0; f < s->c->flavors.len; f++) {
		struct topo *t = s->tas[f].t;
		int64_t n = t ? topo_find_node(t, name) : -1;
		bool was;

		if (n < 0)
			continue;
		was = topo_node_live(t, (uint32_t)n);
		topo_node_set_ready(t, (uint32_t)n, ready);
		topo_node_set_unschedulable(t, (uint32_t)n, unschedulable);
		if (!was && topo_node_live(t, (uint32_t)n))
			flavor_grew(s, (int32_t)f);
	}
	s->tas_gen++;
}

void sched_node_usage(struct sched *s, uint32_t node, const struct resvec *req,
		      int sign)
{
	const char *name;
	bool charged = false;

	BUG_ON(node >= s->c->nodes.len || (sign != 1 && sign != -1));
	name = s->c->nodes.items[node].name;
	for (size_t f = 0; f < s->c->flavors.len; f++) {
		struct topo *t = s->tas[f].t;
		int64_t n = t ? topo_find_node(t, name) : -1;

		if (n < 0)
			continue;
		/* the first index holding it charges every one sharing it */
		if (!charged)
			place_flavors_charge(&s->pf, (int32_t)f, (uint32_t)n,
					     req, sign, false);
		charged = true;
		if (sign < 0 && topo_node_live(t, (uint32_t)n))
			flavor_grew(s, (int32_t)f);
	}
	s->tas_gen++;
}

/* The pod set of pod (numbered over the spec counts) and its index in
 * it, or false when pod is outside the admitted counts. */
static bool find_pod(const struct sched_wl *wl, uint32_t pod, size_t *ret_ps,
		     int32_t *ret_k)
{
	uint32_t off = 0;

	for (size_t i = 0; i < wl->adm->npodsets; i++) {
		uint32_t n = (uint32_t)wl->w->podsets[i].count;

		if (pod >= off + n) {
			off += n;
			continue;
		}
		if ((int32_t)(pod - off) >= wl->adm->ps[i].count)
			return false;
		*ret_ps = i;
		*ret_k = (int32_t)(pod - off);
		return true;
	}
	return false;
}

int sched_move_pod(struct sched *s, uint32_t id, uint32_t pod, const char *node,
		   int64_t now_us)
{
	struct sched_podset_admission *pa;
	const struct resvec *req;
	struct topo *t;
	uint32_t from;
	int64_t to;
	int32_t k;
	size_t i;

	(void)now_us;
	BUG_ON(!node);
	sched_touch(s, id);
	if (id >= s->nwl || s->wl[id].state != SCHED_WL_ADMITTED)
		return -EINVAL;
	if (!find_pod(&s->wl[id], pod, &i, &k))
		return -EINVAL;
	pa = &s->wl[id].adm->ps[i];
	if (pa->tas_flavor < 0 || !pa->nodes)
		return -EINVAL;
	t = s->tas[pa->tas_flavor].t;
	to = topo_find_node(t, node);
	if (to < 0)
		return -ENOENT;
	from = pa->nodes[k];
	if (from == (uint32_t)to)
		return 0;
	req = &s->wl[id].w->podsets[i].requests;
	place_flavors_charge(&s->pf, pa->tas_flavor, from, req, -1, false);
	place_flavors_charge(&s->pf, pa->tas_flavor, (uint32_t)to, req, 1,
			     false);
	pa->nodes[k] = (uint32_t)to;
	s->tas_gen++;
	if (topo_node_live(t, from))
		flavor_grew(s, pa->tas_flavor); /* and those sharing the node */
	return 0;
}

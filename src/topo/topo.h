/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology index: the domain tree of one (Topology, ResourceFlavor)
 * pair, with the flavor's nodes in depth-first order and per-domain
 * aggregates of free capacity kept up to date on every change.
 *
 * Nodes are sorted by their level values (highest level first), then by
 * name, so every domain at every level is a contiguous range of nodes and
 * the domains of one level are numbered in the lexicographic order of their
 * values: comparing two domains of a level by values is comparing their ids.
 * Domain ids are dense over all levels: level l holds the ids
 * [level_off[l], level_off[l + 1]), and the children of a domain are a
 * contiguous id range at the next level. The domains of the lowest level are
 * the "units" (Kueue's leaves): one node each when the lowest level is the
 * hostname, else every node with the same full path.
 *
 * A node is live when it is Ready, schedulable and not removed; only live
 * nodes count. Aggregates (invariants, checked by topo_check()):
 *  - a unit's free[r] is the sum over its live nodes of allocatable - usage
 *    (may be negative), its live count the number of those nodes;
 *  - any other domain's free[r] is the sum over its live units of
 *    max(0, unit free[r]); its live count is its number of live units;
 *  - tainted counts live nodes with a NoSchedule or NoExecute taint;
 *  - idle counts live nodes with nothing allocated (free = allocatable
 *    for every resource): the whole nodes a gang may still take.
 * A change to one node costs O(levels x resources); it also bumps the
 * version of the node's unit and of every ancestor, so that a caller may
 * cache what it derived from a subtree until the subtree changes.
 *
 * Resources are the ids [0, nres) of the registry at build time. The index
 * borrows the node structs (names, labels, taints), the topology and the
 * registry: they must outlive it and must not move. Fields are read-only
 * outside topo.c.
 */
#ifndef ECHELON_TOPO_TOPO_H
#define ECHELON_TOPO_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/hmap.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "model/flavor.h"
#include "model/node.h"
#include "model/resource.h"
#include "model/resvec.h"
#include "model/topology.h"

enum topo_node_flag {
	TOPO_NODE_READY = 1 << 0,
	TOPO_NODE_SCHEDULABLE = 1 << 1,
	TOPO_NODE_REMOVED = 1 << 2,
	TOPO_NODE_TAINTED = 1 << 3, /* has a NoSchedule/NoExecute taint */
};

#define TOPO_NODE_LIVE_MASK                                                    \
	(TOPO_NODE_READY | TOPO_NODE_SCHEDULABLE | TOPO_NODE_REMOVED)
#define TOPO_NODE_LIVE (TOPO_NODE_READY | TOPO_NODE_SCHEDULABLE)

struct topo {
	const struct topology *topology;
	const struct resource_registry *reg;
	size_t nlevels;
	bool hostname_lowest;
	int nres;

	/* Nodes in depth-first order. */
	uint32_t nnodes;
	const struct node **node_src;
	uint32_t *node_unit;
	uint8_t *node_flags;
	int64_t *node_alloc; /* [n * nres + r] */
	int64_t *node_free;  /* allocatable - usage, [n * nres + r] */
	struct hmap by_name; /* node name -> node index */

	/* Domains of every level, dense ids. */
	uint32_t ndomains;
	uint32_t level_off[TOPOLOGY_MAX_LEVELS + 1];
	const char **dom_value;	 /* the domain's value at its own level */
	uint32_t *dom_parent;	 /* UINT32_MAX at the top level */
	uint32_t *dom_child;	 /* first child id (next level) */
	uint32_t *dom_nchildren; /* 0 for units */
	uint32_t *dom_node;	 /* first node */
	uint32_t *dom_nnodes;	 /* node count, live or not */
	uint32_t *dom_live;	 /* see above */
	uint32_t *dom_tainted;	 /* live tainted nodes */
	uint32_t *dom_idle;	 /* live nodes with nothing allocated */
	int64_t *dom_free;	 /* [d * nres + r], see above */
	/* Bumped on every change under the domain, for callers' caches. */
	uint32_t *dom_version;
	uint64_t generation; /* bumped when the tree is rebuilt */
};

/*
 * Build the index of the nodes of flavor fl (those carrying all its node
 * labels and a label for every level of tp; fl may be NULL for all nodes
 * with the level labels). Never NULL; free with topo_free().
 */
struct topo *topo_new(const struct topology *tp, const struct flavor *fl,
		      const struct node *nodes, size_t nnodes,
		      const struct resource_registry *reg);
/* Free the index; NULL ok. */
void topo_free(struct topo *t);

/* Index of the node called name, or -1 when it is not in the index. */
int64_t topo_find_node(const struct topo *t, const char *name);
/* Bytes the index holds (arrays and name map), for the benchmarks. */
size_t topo_bytes(const struct topo *t);

/* Level of domain d (0 = highest). */
unsigned topo_dom_level(const struct topo *t, uint32_t d);
/* Whether node n is live (Ready, schedulable, not removed). */
static inline bool topo_node_live(const struct topo *t, uint32_t n)
{
	return (t->node_flags[n] & TOPO_NODE_LIVE_MASK) == TOPO_NODE_LIVE;
}

/* Whether node n is live and has nothing allocated on it. */
static inline bool topo_node_idle(const struct topo *t, uint32_t n)
{
	size_t nr = (size_t)t->nres;

	if (!topo_node_live(t, n))
		return false;
	for (size_t r = 0; r < nr; r++) {
		if (t->node_free[n * nr + r] != t->node_alloc[n * nr + r])
			return false;
	}
	return true;
}

/* usage of node n += k * req (k may be negative to release). */
void topo_node_add_usage(struct topo *t, uint32_t n, const struct resvec *req,
			 int64_t k);
/* Set the node's allocatable (its usage is kept). */
void topo_node_set_allocatable(struct topo *t, uint32_t n,
			       const struct resvec *alloc);
/* Set the Ready condition and the cordon (spec.unschedulable). */
void topo_node_set_ready(struct topo *t, uint32_t n, bool ready);
void topo_node_set_unschedulable(struct topo *t, uint32_t n, bool cordoned);
/* Remove a node (it stops counting) or add it back; O(levels). */
void topo_node_set_removed(struct topo *t, uint32_t n, bool removed);
/*
 * Add a node that is not in the index yet. The tree gets a new shape, so
 * the index is rebuilt around the new node (O(N log N)); node indices and
 * domain ids change. Returns 0, -EEXIST when the name is already indexed,
 * or -EINVAL when the node lacks a level label or a flavor label.
 */
int topo_add_node(struct topo *t, const struct flavor *fl,
		  const struct node *n) MUST_CHECK;

/*
 * Recompute every aggregate from the nodes and compare with the kept ones.
 * Returns true when equal; otherwise false with the first difference in
 * why (may be NULL).
 */
bool topo_check(const struct topo *t, struct strbuf *why);

/* Append the values of domain d, highest level first, joined by sep. */
void topo_dom_path(const struct topo *t, uint32_t d, const char *sep,
		   struct strbuf *out);
/* Values of domain d into vals[0..level]; returns level + 1. */
size_t topo_dom_values(const struct topo *t, uint32_t d, const char **vals);

/*
 * The fewest domains of level l whose nodes, all empty, hold count pods of
 * request req (their allocatable; live or not): the smallest span any
 * placement of such a gang can have. At least 1.
 */
int32_t topo_fewest_domains(const struct topo *t, unsigned l,
			    const struct resvec *req, int32_t count);

/*
 * The same answers for many questions about topologies that do not change
 * meanwhile (a metrics page over every admitted workload): each (topology,
 * level, request) sorts its domains once, then each count is a binary
 * search. Owned by its one caller; a NULL memo computes afresh.
 */
struct topo_fewest_caps {
	int64_t *sums; /* what the k + 1 largest domains hold, k < n */
	uint32_t n;
};

struct topo_fewest_memo {
	struct hmap index; /* topology, level, request -> index in caps */
	VEC(struct topo_fewest_caps) caps;
};

void topo_fewest_memo_init(struct topo_fewest_memo *m);
void topo_fewest_memo_release(struct topo_fewest_memo *m);
int32_t topo_fewest_domains_memo(struct topo_fewest_memo *m,
				 const struct topo *t, unsigned l,
				 const struct resvec *req, int32_t count);
/* How many domains of level l the nodes n[0..k) are in; tmp holds k
 * entries of scratch. */
int32_t topo_domains_spanned(const struct topo *t, const uint32_t *n, size_t k,
			     unsigned l, uint32_t *tmp);

#endif

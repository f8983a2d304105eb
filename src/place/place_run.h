/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state of one placement run, shared by the files of the placement
 * algorithm (place.c, place_balanced.c, place_select.c) and by nothing
 * else: per-domain counts, the request turned into Kueue's parameters, the
 * scratch memory kept in a place_result between calls, and the few helpers
 * the balanced policy and the selection reuse. Not an API: callers use
 * place.h.
 */
#ifndef ECHELON_PLACE_RUN_H
#define ECHELON_PLACE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/taint.h"
#include "model/topology.h"
#include "place/place.h"
#include "topo/topo.h"

/* Per-domain state of one run (Kueue's domain.state and friends). */
struct pdom {
	int32_t state;	  /* pods that fit; later pods assigned */
	int32_t slice;	  /* slices that fit (0 below the slice level) */
	int32_t state_wl; /* pods that fit next to the leader */
	int32_t slice_wl;
	int32_t leader; /* leaders that fit (0 or 1) */
	int64_t aff;	/* preferred-affinity score */
};

struct taint_stat {
	char *text;
	uint32_t n;
};

struct idvec {
	uint32_t *items;
	size_t len, cap;
};

#define SWAP(a, b)                                                             \
	do {                                                                   \
		__typeof__(a) swap_ = (a);                                     \
		(a) = (b);                                                     \
		(b) = swap_;                                                   \
	} while (0)

/* What the cached counts of a scratch were computed for. */
struct cache_key {
	const struct topo *t;
	uint64_t generation;
	uint32_t ndomains;
	bool has_leader, filters;
	int64_t wreq[RESOURCE_MAX];
	int64_t lreq[RESOURCE_MAX];
	int32_t slice_size;
	unsigned slice_level;
	int32_t size_at[TOPOLOGY_MAX_LEVELS];
	int64_t within;
	uint64_t filter_hash;
};

#define SEEN_NONE UINT64_MAX

/* Exclusion stats of a subtree (Kueue's ExclusionStats, less taints). */
struct excl {
	uint32_t total, selector, affinity, domain;
	uint32_t res[RESOURCE_MAX];
};

struct place_scratch {
	struct pdom *pd;
	struct pdom *pd2;  /* balanced placement's copy; NULL until used */
	uint64_t *seen;	   /* topo version the domain's subtree was filled at */
	struct excl *ex;   /* cached exclusion stats of a subtree */
	uint64_t *ex_seen; /* topo version ex[] was counted at */
	struct cache_key key;
	uint32_t cap;
	uint32_t ex_cap;
	struct idvec a, b, c;
	VEC(int32_t) by_unit; /* pods per unit, to sort an assignment */
	VEC(struct toleration) tols;
	VEC(struct taint_stat) taints;
};

/*
 * FragmentationAware's figures of the index for one run, read when a
 * comparison first needs them: per level above the hosts, the domain with
 * the most idle nodes, that count, and the most of any other domain; and
 * the last count of pods per empty node, for nodes alike.
 */
struct frag_levels {
	bool ready;
	unsigned n;
	uint32_t ppn_node; /* the node ppn was counted on; UINT32_MAX: none */
	int64_t ppn;	   /* pods of the request an empty such node holds */
	uint32_t top[TOPOLOGY_MAX_LEVELS];
	uint32_t max1[TOPOLOGY_MAX_LEVELS];
	uint32_t max2[TOPOLOGY_MAX_LEVELS];
};

/* A candidate's FragmentationAware key (place_frag_key()). */
struct frag_key {
	int64_t used; /* idle nodes the rest of the request takes */
	unsigned n;   /* levels in v (0 when used is 0) */
	int64_t v[TOPOLOGY_MAX_LEVELS]; /* most idle nodes left per level */
};

/* One run: the request turned into Kueue's parameters, and the stats. */
struct run {
	const struct topo *t;
	const struct place_request *req;
	struct place_scratch *s;
	struct pdom *pd;
	int32_t count, leader_count, slice_size;
	unsigned req_level, slice_level, nlevels, unit_level;
	bool required, unconstrained, lfc, aff;
	bool frag;		/* FragmentationAware (place_frag.c) */
	struct frag_levels *fl; /* its figures of the index, when frag */
	int32_t size_at[TOPOLOGY_MAX_LEVELS]; /* inner slice sizes; 0: none */
	const struct slice_layer *layers;     /* multi-layer message */
	size_t nlayers;
	int nreq;
	int req_ids[RESOURCE_MAX]; /* requested resources, by name */
	int64_t wreq[RESOURCE_MAX];
	int64_t lreq[RESOURCE_MAX];
	bool has_leader;
	bool filters;	  /* node filters apply (hostname units) */
	bool need_filter; /* selector or affinity to check on every unit */
	bool missing;	  /* a requested resource no node has */
	bool simple;	  /* units need no filter, leader or score */
	int nfast;
	int fast_ids[RESOURCE_MAX]; /* likely limiting resource first */
	/* exclusion stats */
	bool stats;
	bool use_cache;
	bool failed; /* a "does not fit" recorded by fail_at() */
	unsigned fail_level;
	int32_t fail_fit, fail_total;
	uint32_t total, n_selector, n_affinity, n_domain;
	uint32_t n_res[RESOURCE_MAX];
};

#define DOM_NONE UINT32_MAX

struct sort_arg {
	const struct run *r;
	bool with_leader;
};

/*
 * Kueue's sortedDomainsWithLeader (with_leader) or sortedDomains order, as
 * a qsort_r comparator of domain ids; arg is a struct sort_arg.
 */
int place_run_cmp(const void *pa, const void *pb, void *arg);
/* Sort ids in that order. */
void place_run_sort(const struct run *r, uint32_t *ids, size_t n,
		    bool with_leader);
/* fillInCountsHelper for one parent whose children are filled. */
void place_run_fill_parent(struct run *r, uint32_t d, unsigned level);
/* Append the live children of the domains from[0..n) to `to`. */
void place_run_children(const struct run *r, const uint32_t *from, size_t n,
			struct idvec *to);

/* Whether domain d holds the whole request (count / slice size) and the
 * leader. */
static inline bool place_run_holds(const struct run *r, uint32_t d,
				   int64_t slices)
{
	return r->pd[d].slice_wl >= slices &&
	       r->pd[d].leader >= r->leader_count;
}

/*
 * place_select.c: findLevelWithFitDomains without sorting the level (no
 * affinity tiers), on filled counts.
 *
 * place_select_one(): the single domain chosen at `level` among ids[0..n)
 * (ascending), or with ids NULL among the live domains of the level;
 * DOM_NONE when no single domain is chosen.
 *
 * place_select_top(): for the live domains ids (not empty), the first in
 * sort order into *ret_first; returns it, or BestFit's best fit in its
 * place when it holds the request.
 *
 * place_select_greedy(): the greedy walk from `first` (as above). WALK_DONE
 * with the domains appended to out; WALK_SHORT with the count Kueue reports
 * in *ret_fit; WALK_SORT when only greedy() on the sorted level walks it
 * (out untouched). Uses r->s->c.
 */
enum select_walk { WALK_DONE, WALK_SHORT, WALK_SORT };

uint32_t place_select_one(const struct run *r, unsigned level,
			  const uint32_t *ids, size_t n);
uint32_t place_select_top(const struct run *r, const struct idvec *ids,
			  uint32_t *ret_first);
enum select_walk place_select_greedy(struct run *r, const struct idvec *ids,
				     uint32_t first, struct idvec *out,
				     int32_t *ret_fit);

/*
 * place_frag.c: the FragmentationAware choice among the domains of one
 * level that hold the rest of a pod set (r->frag, r->fl set).
 * place_frag_key(): the key of domain d for `pods` more pods.
 * place_frag_key_cmp(): < 0 when the first key leaves the better cluster,
 * > 0 when the second does, 0 when they are equal under it (the caller
 * then keeps BestFit's order).
 */
void place_frag_key(const struct run *r, uint32_t d, int64_t pods,
		    struct frag_key *k);
int place_frag_key_cmp(const struct frag_key *a, const struct frag_key *b);

/*
 * place_setup.c: the requested resources (ordered for counting) and the
 * tolerations; then the topology parameters, false with Kueue's reason in
 * res when the request cannot be used; then the cache key check, which
 * forgets the scratch's counts unless they were made for this request.
 */
void place_setup_requests(struct run *r);
bool place_setup(struct run *r, struct place_result *res);
void place_setup_cache(struct run *r);

/*
 * Kueue's balanced placement (preferred requests, configuration
 * "balanced"): on success the chosen domains (with their counts set) are
 * in out, *ret_level is the level to walk down from, and r->pd points at
 * the balanced copy of the counts. false: use the standard algorithm
 * (r->pd is left as it was).
 */
bool place_balanced(struct run *r, struct idvec *out, unsigned *ret_level);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Topology-aware placement of one pod set, or of a pod-set group (a leader
 * and its workers), on a topology index, with the semantics of Kueue's TAS
 * (required, preferred and unconstrained modes, implied TAS, slices and
 * multi-layer slices, leaders, BestFit / LeastFreeCapacity / Mixed, every
 * tie-break and failure text). See docs/internals/placement.md.
 *
 * Placement is a pure function of (index, request): it reads the index
 * (including usage applied to it earlier in the cycle) and writes only the
 * result, which also carries the scratch memory reused by the next call on
 * the same result. That scratch caches the per-domain counts of the last
 * request shape (requests, filters, slices) with the index version of each
 * domain, so a call with the same shape recomputes only the subtrees that
 * changed since; the answer is the same as from scratch. A pod set edited
 * in place between two calls is a new shape only if its requests, slices,
 * tolerations, selector or affinity changed, which the cache key covers. To
 * assume a placement for later ones, apply it to the index with place_apply();
 * place_apply(..., -1) takes it back.
 *
 * "Does not fit" is data: the result says so with Kueue's reason text.
 */
#ifndef ECHELON_PLACE_PLACE_H
#define ECHELON_PLACE_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/vec.h"
#include "model/config.h"
#include "model/taint.h"
#include "model/workload.h"
#include "topo/topo.h"

struct place_request {
	const struct podset *podset; /* workers, or the only pod set */
	const struct podset *leader; /* group leader; NULL when none */
	int32_t count;		     /* pods of podset to place */
	/* Tolerations of the flavor, added to the pod set's own. */
	const struct toleration *flavor_tolerations;
	size_t nflavor_tolerations;
	const struct placement_config *config; /* NULL: Kueue's defaults */
	/*
	 * Node replacement: only units inside this domain count (the others
	 * are "topologyDomain" exclusions); -1 for none. slice_override, when
	 * not zero, replaces the pod set's slices by one layer of that size at
	 * slice_override_level (NULL for no slices at all).
	 */
	int64_t within;
	int32_t slice_override;
	const char *slice_override_level;
	bool exhaustive; /* skip the fast pass and the cache (for tests) */
	bool cold;	 /* do not reuse counts cached in the result */
	/*
	 * Sort each level as Kueue does instead of scanning it and selecting
	 * from it (tests: with exhaustive, the reference for both).
	 */
	bool sorted;
};

/* Pods of one pod set on one unit (lowest-level domain). */
struct place_assign {
	uint32_t unit;
	int32_t count;
};

/* Node indices of the pods of a pod set, in rank order (a VEC). */
struct place_nodes {
	uint32_t *items;
	size_t len, cap;
};

struct place_scratch;

struct place_result {
	bool fit;
	struct strbuf reason; /* Kueue's text when !fit */
	unsigned level;	      /* the level the pods were fitted at */
	/* Sorted by unit id, which is the order of the domains' values. */
	VEC(struct place_assign) workers;
	VEC(struct place_assign) leader;
	/* Node of every pod index in rank order; UINT32_MAX when the unit
	 * (not the hostname level) has no single node that holds the pod. */
	struct place_nodes worker_nodes;
	struct place_nodes leader_nodes;
	struct place_scratch *scratch; /* owned, reused across calls */
};

void place_request_init(struct place_request *req, const struct podset *ps);
void place_result_init(struct place_result *res);
/* Free everything res owns; NULL ok. */
void place_result_release(struct place_result *res);
/* The node (of t) of every pod of fitting res, in rank order, into n (as
 * many entries as the workers' counts): the pod's own node, or the first
 * node of its unit when the unit has no single node for it. */
void place_result_nodes(const struct topo *t, const struct place_result *res,
			uint32_t *n);

/*
 * Place req on t. Returns res->fit. A pod set with count 0 fits with an
 * empty assignment. res is overwritten.
 */
bool place_podset(const struct topo *t, const struct place_request *req,
		  struct place_result *res);

/*
 * Add (sign 1) or remove (sign -1) the usage of a fitting result to the
 * nodes it names, workers and leader, as assumed usage of this cycle.
 */
void place_apply(struct topo *t, const struct place_request *req,
		 const struct place_result *res, int sign);

/* Bytes of scratch memory res holds (for the benchmarks). */
size_t place_result_bytes(const struct place_result *res);

/* The levels of an assignment in Kueue's form: only the hostname when it
 * is the lowest level, else all levels. Returns the index of the first. */
unsigned place_first_level(const struct topo *t);

#endif

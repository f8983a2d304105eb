/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An index of 32-bit ids by a key that each id's object already holds: the
 * table keeps ids and hashes only (8 bytes a slot), never a copy of the
 * key, so an index over millions of named objects (interned strings, a
 * cluster's workloads) costs a few bytes each. The caller hashes a key and
 * says, through a callback, whether an id's object has the key it seeks.
 *
 * Linear probing over a power-of-two table kept at most 3/4 full;
 * deletion shifts later members back, so there are no tombstones. There
 * is no iteration: the table's order is not the caller's business.
 */
#ifndef ECHELON_BASE_IDTAB_H
#define ECHELON_BASE_IDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IDTAB_NONE UINT32_MAX

struct idtab_slot {
	uint32_t id; /* IDTAB_NONE: empty */
	uint32_t hash;
};

struct idtab {
	struct idtab_slot *slots;
	size_t cap; /* power of two, or 0 */
	size_t len;
};

/* Whether id's object has the key that ctx describes. */
typedef bool (*idtab_eq_fn)(const void *ctx, uint32_t id);

void idtab_init(struct idtab *t);
void idtab_release(struct idtab *t);

/* The id of hash whose object has ctx's key (eq), or IDTAB_NONE. */
uint32_t idtab_find(const struct idtab *t, uint64_t hash, idtab_eq_fn eq,
		    const void *ctx);
/* Add id (not IDTAB_NONE) under hash; the caller knows its key is new. */
void idtab_add(struct idtab *t, uint64_t hash, uint32_t id);
/* Remove id, added under hash; returns whether it was there. */
bool idtab_del(struct idtab *t, uint64_t hash, uint32_t id);

#endif

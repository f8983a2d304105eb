/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An open-addressing hash map from byte-string keys to int64 values.
 *
 * The map copies each key into storage it owns, so callers may pass
 * temporary buffers. Linear probing over a power-of-two table kept at most
 * 3/4 full; deletion uses backward-shift, so there are no tombstones and
 * lookups stay short. Iteration order is the table order: deterministic for
 * the same sequence of operations, but not insertion order.
 */
#ifndef ECHELON_BASE_HMAP_H
#define ECHELON_BASE_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct hmap_slot {
	char *key; /* NULL: empty */
	size_t keylen;
	uint64_t hash;
	int64_t value;
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap; /* power of two, or 0 */
	size_t len;
};

void hmap_init(struct hmap *m);
void hmap_release(struct hmap *m);

/* 64-bit FNV-1a, also used by callers that need a stable hash. */
uint64_t hmap_hash(const void *key, size_t len);
/* The same hash continued: hmap_hash() of a key that is the one hashed
 * into h followed by these len bytes. */
uint64_t hmap_hash_more(uint64_t h, const void *key, size_t len);

/* Insert or replace. Returns true when the key was new. */
bool hmap_put(struct hmap *m, const void *key, size_t len, int64_t value);
/* Look up; writes *ret_value only when found. */
bool hmap_get(const struct hmap *m, const void *key, size_t len,
	      int64_t *ret_value);
/* Remove; returns whether the key was present. */
bool hmap_del(struct hmap *m, const void *key, size_t len);

/* NUL-terminated key conveniences. */
bool hmap_put_str(struct hmap *m, const char *key, int64_t value);
bool hmap_get_str(const struct hmap *m, const char *key, int64_t *ret_value);

/* Iterate: for (size_t i = 0; hmap_next(m, &i, &slot);) ... */
bool hmap_next(const struct hmap *m, size_t *iter,
	       const struct hmap_slot **ret_slot);

#endif

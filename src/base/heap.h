/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A binary min-heap of pointers under a caller-supplied total order.
 *
 * The comparison must be a total order (break every tie, e.g. with a
 * sequence number), so that pops are deterministic. The heap stores the
 * pointers, not what they point to. heap_cmp_fn returns <0, 0 or >0 like
 * strcmp(); the smallest element is popped first.
 */
#ifndef ECHELON_BASE_HEAP_H
#define ECHELON_BASE_HEAP_H

#include <stddef.h>

typedef int (*heap_cmp_fn)(const void *a, const void *b, void *ctx);

struct heap {
	void **items;
	size_t len;
	size_t cap;
	heap_cmp_fn cmp;
	void *ctx;
};

void heap_init(struct heap *h, heap_cmp_fn cmp, void *ctx);
void heap_release(struct heap *h);
void heap_push(struct heap *h, void *item);
/* The smallest element, or NULL when empty. */
void *heap_peek(const struct heap *h);
/* Remove and return the smallest element, or NULL when empty. */
void *heap_pop(struct heap *h);
/* Remove the element at index i (as found in h->items). */
void *heap_remove_at(struct heap *h, size_t i);

#endif

// SPDX-License-Identifier: Apache-2.0
/*
 * Binary heap with sift-up and sift-down over an array of pointers.
 */
#include "base/heap.h"

#include <stdlib.h>

#include "base/alloc.h"

void heap_init(struct heap *h, heap_cmp_fn cmp, void *ctx)
{
	h->items = NULL;
	h->len = h->cap = 0;
	h->cmp = cmp;
	h->ctx = ctx;
}

void heap_release(struct heap *h)
{
	free(h->items);
	h->items = NULL;
	h->len = h->cap = 0;
}

static int less(const struct heap *h, size_t a, size_t b)
{
	return h->cmp(h->items[a], h->items[b], h->ctx) < 0;
}

static void swap(struct heap *h, size_t a, size_t b)
{
	void *t = h->items[a];

	h->items[a] = h->items[b];
	h->items[b] = t;
}

static void sift_up(struct heap *h, size_t i)
{
	while (i > 0 && less(h, i, (i - 1) / 2)) {
		swap(h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->len && less(h, l, m))
			m = l;
		if (r < h->len && less(h, r, m))
			m = r;
		if (m == i)
			return;
		swap(h, i, m);
		i = m;
	}
}

void heap_push(struct heap *h, void *item)
{
	if (h->len == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->items = xreallocarray(h->items, h->cap, sizeof(*h->items));
	}
	h->items[h->len++] = item;
	sift_up(h, h->len - 1);
}

void *heap_peek(const struct heap *h)
{
	return h->len ? h->items[0] : NULL;
}

void *heap_remove_at(struct heap *h, size_t i)
{
	void *item;

	BUG_ON(i >= h->len);
	item = h->items[i];
	h->items[i] = h->items[--h->len];
	if (i < h->len) {
		sift_up(h, i);
		sift_down(h, i);
	}
	return item;
}

void *heap_pop(struct heap *h)
{
	return h->len ? heap_remove_at(h, 0) : NULL;
}

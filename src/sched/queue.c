// SPDX-License-Identifier: Apache-2.0
/*
 * The indexed binary heap: sift up and down that keep pos[] in step with
 * every move, so that removal of any id and membership tests are cheap.
 */
#include "sched/queue.h"

#include <stdlib.h>

#include "base/alloc.h"

#include "base/banned.h"

void queue_init(struct queue *q, queue_cmp_fn cmp, void *ctx,
		uint32_t *const *pos)
{
	q->items = NULL;
	q->len = q->cap = 0;
	q->cmp = cmp;
	q->ctx = ctx;
	q->pos = pos;
}

void queue_release(struct queue *q)
{
	if (!q)
		return;
	free(q->items);
	q->items = NULL;
	q->len = q->cap = 0;
}

static void put(struct queue *q, size_t i, uint32_t id)
{
	q->items[i] = id;
	(*q->pos)[id] = (uint32_t)i;
}

static void sift_up(struct queue *q, size_t i)
{
	uint32_t id = q->items[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (q->cmp(id, q->items[p], q->ctx) >= 0)
			break;
		put(q, i, q->items[p]);
		i = p;
	}
	put(q, i, id);
}

static void sift_down(struct queue *q, size_t i)
{
	uint32_t id = q->items[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->len)
			break;
		if (c + 1 < q->len &&
		    q->cmp(q->items[c + 1], q->items[c], q->ctx) < 0)
			c++;
		if (q->cmp(q->items[c], id, q->ctx) >= 0)
			break;
		put(q, i, q->items[c]);
		i = c;
	}
	put(q, i, id);
}

void queue_push(struct queue *q, uint32_t id)
{
	if (q->len == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 16;
		q->items = xreallocarray(q->items, q->cap, sizeof(*q->items));
	}
	q->items[q->len++] = id;
	sift_up(q, q->len - 1);
}

uint32_t queue_peek(const struct queue *q)
{
	return q->len ? q->items[0] : QUEUE_NONE;
}

bool queue_contains(const struct queue *q, uint32_t id)
{
	uint32_t i = (*q->pos)[id];

	return i < q->len && q->items[i] == id;
}

void queue_remove(struct queue *q, uint32_t id)
{
	size_t i = (*q->pos)[id];
	uint32_t last;

	BUG_ON(!queue_contains(q, id));
	last = q->items[--q->len];
	if (i == q->len)
		return;
	put(q, i, last);
	sift_up(q, i);
	sift_down(q, (*q->pos)[last]);
}

uint32_t queue_pop(struct queue *q)
{
	uint32_t id = queue_peek(q);

	if (id != QUEUE_NONE)
		queue_remove(q, id);
	return id;
}

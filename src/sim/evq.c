// SPDX-License-Identifier: Apache-2.0
/*
 * The simulator's event queue: a binary heap of event records under the
 * order (time, kind rank, id), with a map from id to record so that an
 * event can be cancelled in O(1) and skipped when it surfaces.
 */
#include "sim/evq.h"

#include <stdlib.h>

#include "base/alloc.h"

#include "base/banned.h"

struct evq_node {
	struct evq_event ev;
	int32_t rank;
	bool cancelled;
};

static int node_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct evq_node *a = pa, *b = pb;

	(void)ctx;
	if (a->ev.time_us != b->ev.time_us)
		return a->ev.time_us < b->ev.time_us ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->ev.id != b->ev.id)
		return a->ev.id < b->ev.id ? -1 : 1;
	return 0;
}

void evq_init(struct evq *q, const int32_t *kind_rank, size_t nkinds)
{
	heap_init(&q->heap, node_cmp, NULL);
	hmap_init(&q->pending);
	q->kind_rank = kind_rank;
	q->nkinds = kind_rank ? nkinds : 0;
	q->next_id = 1;
	q->now_us = 0;
}

void evq_release(struct evq *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->heap.len; i++)
		free(q->heap.items[i]);
	heap_release(&q->heap);
	hmap_release(&q->pending);
}

static int32_t rank_of(const struct evq *q, int32_t kind)
{
	if (!q->kind_rank)
		return kind;
	BUG_ON(kind < 0 || (size_t)kind >= q->nkinds);
	return q->kind_rank[kind];
}

uint64_t evq_push(struct evq *q, const struct evq_event *ev)
{
	struct evq_node *n = xmalloc(sizeof(*n));

	BUG_ON(ev->time_us < q->now_us);
	n->ev = *ev;
	n->ev.id = q->next_id++;
	n->rank = rank_of(q, ev->kind);
	n->cancelled = false;
	heap_push(&q->heap, n);
	hmap_put(&q->pending, &n->ev.id, sizeof(n->ev.id),
		 (int64_t)(intptr_t)n);
	return n->ev.id;
}

/* The first record that is not cancelled, freeing cancelled ones above. */
static struct evq_node *top(struct evq *q)
{
	struct evq_node *n;

	while ((n = heap_peek(&q->heap)) && n->cancelled)
		free(heap_pop(&q->heap));
	return n;
}

bool evq_pop(struct evq *q, struct evq_event *ret)
{
	struct evq_node *n = top(q);

	if (!n)
		return false;
	heap_pop(&q->heap);
	BUG_ON(!hmap_del(&q->pending, &n->ev.id, sizeof(n->ev.id)));
	q->now_us = n->ev.time_us;
	if (ret)
		*ret = n->ev;
	free(n);
	return true;
}

bool evq_peek(struct evq *q, struct evq_event *ret)
{
	struct evq_node *n = top(q);

	if (!n)
		return false;
	if (ret)
		*ret = n->ev;
	return true;
}

bool evq_cancel(struct evq *q, uint64_t id)
{
	int64_t v;
	struct evq_node *n;

	if (!hmap_get(&q->pending, &id, sizeof(id), &v))
		return false;
	n = (struct evq_node *)(intptr_t)v;
	n->cancelled = true;
	hmap_del(&q->pending, &id, sizeof(id));
	return true;
}

size_t evq_len(const struct evq *q)
{
	return q->pending.len;
}

int64_t evq_now_us(const struct evq *q)
{
	return q->now_us;
}

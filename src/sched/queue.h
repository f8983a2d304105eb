/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An indexed binary heap of workload ids under a caller total order: the
 * per-ClusterQueue pending queue, and the per-class parking heaps of
 * BestEffortFIFO.
 *
 * The heap keeps the position of every id it holds in a caller array pos
 * (pos[id], shared by all the heaps of one scheduler since an id is in at
 * most one heap at a time), so an id can be removed in O(log n). The
 * order must break every tie (a sequence number) so that pops are
 * deterministic. The queue owns its item array only.
 */
#ifndef ECHELON_SCHED_QUEUE_H
#define ECHELON_SCHED_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QUEUE_NONE UINT32_MAX

/* <0 when a comes first; never 0 for two different ids. */
typedef int (*queue_cmp_fn)(uint32_t a, uint32_t b, void *ctx);

struct queue {
	uint32_t *items;
	size_t len, cap;
	queue_cmp_fn cmp;
	void *ctx;
	/* borrowed: (*pos)[id] = index in items; the owner may move the
	 * array as ids are added. */
	uint32_t *const *pos;
};

void queue_init(struct queue *q, queue_cmp_fn cmp, void *ctx,
		uint32_t *const *pos);
/* Free the item array; NULL ok. */
void queue_release(struct queue *q);
void queue_push(struct queue *q, uint32_t id);
/* The first id, or QUEUE_NONE when empty. */
uint32_t queue_peek(const struct queue *q);
/* Remove and return the first id, or QUEUE_NONE when empty. */
uint32_t queue_pop(struct queue *q);
/* Remove id, which must be in q (BUG otherwise). */
void queue_remove(struct queue *q, uint32_t id);
/* Whether id is in q. */
bool queue_contains(const struct queue *q, uint32_t id);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A deterministic discrete-event queue for the simulator.
 *
 * Events pop in a total order: time, then the rank of their kind, then the
 * order in which they were pushed (a sequence number that is also the
 * event's id). Two runs that push the same events therefore pop them in the
 * same order, whatever the heap does with ties. Cancellation is lazy: a
 * cancelled event stays in the heap, marked, and is dropped when it reaches
 * the top. The queue owns its event records, not what their payload
 * pointers point to. Time never goes backwards: pushing an event before
 * the time of the last popped one is a bug.
 */
#ifndef ECHELON_SIM_EVQ_H
#define ECHELON_SIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/heap.h"
#include "base/hmap.h"

struct evq_event {
	int64_t time_us;
	int32_t kind; /* caller's kind; ordered by evq's kind rank */
	uint64_t id;  /* set by evq_push(): 1, 2, 3, ... */
	void *ptr;    /* payload, not owned */
	int64_t a, b; /* payload ids */
};

struct evq {
	struct heap heap;	  /* struct evq_node *, cancelled included */
	struct hmap pending;	  /* id -> struct evq_node *, not cancelled */
	const int32_t *kind_rank; /* NULL: the kind is its own rank */
	size_t nkinds;
	uint64_t next_id;
	int64_t now_us; /* time of the last popped event, 0 at start */
};

/*
 * An empty queue at time 0. kind_rank (may be NULL, borrowed, must outlive
 * q) gives the rank of each kind 0..nkinds-1: at equal times a lower rank
 * pops first. Without a table, kinds are ranked by their value.
 */
void evq_init(struct evq *q, const int32_t *kind_rank, size_t nkinds);
/* Free every event record; q may be NULL. */
void evq_release(struct evq *q);

/*
 * Add a copy of *ev (its id is ignored) and return the new event's id.
 * BUG when ev->time_us is before evq_now_us() or the kind is outside the
 * rank table.
 */
uint64_t evq_push(struct evq *q, const struct evq_event *ev);
/* Copy the next pending event to *ret (when not NULL) and remove it,
 * advancing the queue's time to it. false when none is pending. */
bool evq_pop(struct evq *q, struct evq_event *ret);
/* The next pending event without removing it; false when none. Drops
 * cancelled records on the way, hence not const. */
bool evq_peek(struct evq *q, struct evq_event *ret);
/* Cancel a pending event by id; false when it already popped, was
 * cancelled before, or never existed. */
bool evq_cancel(struct evq *q, uint64_t id);
/* Number of pending (not cancelled) events. */
size_t evq_len(const struct evq *q);
/* Time of the last popped event (0 before the first pop). */
int64_t evq_now_us(const struct evq *q);

#endif

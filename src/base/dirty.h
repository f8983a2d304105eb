/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A journal of changed slots, read through cursors: the core marks a slot
 * (a workload's index) whenever state that someone outside reads of it
 * changes, and each reader keeps the sequence number it read up to and
 * asks for the slots marked since. So a reader that must redo its work for
 * changed slots only (the daemon's status writer) costs O(changes) per
 * turn instead of a scan of every slot.
 *
 * Each slot is kept once, at its latest mark: entries a later mark of the
 * same slot made stale are dropped when they make up half the journal, so
 * it holds at most about twice as many entries as slots and a mark costs
 * O(1) amortized. A cursor older than dirty_all() (the state was rebuilt)
 * or than the first mark is too old: the reader must take every slot as
 * changed. Pure: no I/O, no clock.
 */
#ifndef ECHELON_BASE_DIRTY_H
#define ECHELON_BASE_DIRTY_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct dirty_entry {
	uint64_t seq;
	uint32_t slot;
};

struct dirty {
	uint64_t seq;	/* of the latest mark (or dirty_all()) */
	uint64_t floor; /* cursors below it are too old */
	uint64_t *last; /* per slot: seq of its latest mark, 0: none */
	size_t nslots;
	struct dirty_entry *log; /* by increasing seq */
	size_t len, cap;
};

/* An empty journal: every cursor below dirty_seq() is too old, 0 too. */
void dirty_init(struct dirty *d);
void dirty_release(struct dirty *d);
/* Slot changed. */
void dirty_mark(struct dirty *d, uint32_t slot);
/* Everything changed (the state was rebuilt): the entries go, and every
 * cursor taken before is too old. */
void dirty_all(struct dirty *d);
/* The cursor that covers every mark made so far. */
uint64_t dirty_seq(const struct dirty *d);
/*
 * Call fn(ctx, slot) once for each slot marked after cursor since, in the
 * order of their latest marks; a negative return of fn stops and is
 * returned. Returns 0, or -ERANGE when since is too old (nothing called).
 */
int dirty_since(const struct dirty *d, uint64_t since,
		int (*fn)(void *ctx, uint32_t slot), void *ctx) MUST_CHECK;

#endif

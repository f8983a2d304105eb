// SPDX-License-Identifier: Apache-2.0
/*
 * The journal of changed slots: an array of (seq, slot) by increasing seq,
 * and per slot the seq of its latest mark, which says which entry of a
 * slot is current (the others are dropped by the next compaction).
 */
#include "base/dirty.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

void dirty_init(struct dirty *d)
{
	memset(d, 0, sizeof(*d));
	d->seq = d->floor = 1;
}

void dirty_release(struct dirty *d)
{
	free(d->last);
	free(d->log);
	memset(d, 0, sizeof(*d));
}

/* Keep only each slot's latest entry, in order. */
static void compact(struct dirty *d)
{
	size_t j = 0;

	for (size_t i = 0; i < d->len; i++) {
		if (d->last[d->log[i].slot] == d->log[i].seq)
			d->log[j++] = d->log[i];
	}
	d->len = j;
}

void dirty_mark(struct dirty *d, uint32_t slot)
{
	if (slot >= d->nslots) {
		size_t n = d->nslots ? d->nslots : 64;

		while (n <= slot)
			n *= 2;
		d->last = xreallocarray(d->last, n, sizeof(*d->last));
		memset(d->last + d->nslots, 0,
		       (n - d->nslots) * sizeof(*d->last));
		d->nslots = n;
	}
	/* after this, len <= nslots: at least nslots + 64 marks until the
	 * next one, so a mark costs O(1) amortized */
	if (d->len >= 2 * d->nslots + 64)
		compact(d);
	if (d->len == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->log = xreallocarray(d->log, d->cap, sizeof(*d->log));
	}
	d->last[slot] = ++d->seq;
	d->log[d->len++] = (struct dirty_entry){ d->seq, slot };
}

void dirty_all(struct dirty *d)
{
	d->floor = ++d->seq;
	d->len = 0;
}

uint64_t dirty_seq(const struct dirty *d)
{
	return d->seq;
}

int dirty_since(const struct dirty *d, uint64_t since,
		int (*fn)(void *ctx, uint32_t slot), void *ctx)
{
	size_t lo = 0, hi = d->len;

	if (since < d->floor)
		return -ERANGE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->log[mid].seq <= since)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < d->len; i++) {
		const struct dirty_entry *e = &d->log[i];
		int rc;

		if (d->last[e->slot] != e->seq)
			continue;
		rc = fn(ctx, e->slot);
		if (rc < 0)
			return rc;
	}
	return 0;
}

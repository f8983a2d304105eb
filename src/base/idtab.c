// SPDX-License-Identifier: Apache-2.0
/*
 * Open addressing with linear probing and backward-shift deletion, over
 * ids whose keys live with their objects.
 */
#include "base/idtab.h"

#include <stdlib.h>

#include "base/alloc.h"

#include "base/banned.h"

void idtab_init(struct idtab *t)
{
	t->slots = NULL;
	t->cap = t->len = 0;
}

void idtab_release(struct idtab *t)
{
	free(t->slots);
	idtab_init(t);
}

uint32_t idtab_find(const struct idtab *t, uint64_t hash, idtab_eq_fn eq,
		    const void *ctx)
{
	size_t mask = t->cap - 1;

	if (!t->cap)
		return IDTAB_NONE;
	for (size_t i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
		const struct idtab_slot *s = &t->slots[i];

		if (s->id == IDTAB_NONE)
			return IDTAB_NONE;
		if (s->hash == (uint32_t)hash && eq(ctx, s->id))
			return s->id;
	}
}

/* Put a slot into the first free place from its home. */
static void place(struct idtab *t, struct idtab_slot s)
{
	size_t mask = t->cap - 1, i = s.hash & mask;

	while (t->slots[i].id != IDTAB_NONE)
		i = (i + 1) & mask;
	t->slots[i] = s;
}

static void grow(struct idtab *t)
{
	struct idtab_slot *old = t->slots;
	size_t oldcap = t->cap;

	/* The home is the hash's low 32 bits masked: no larger table. */
	BUG_ON(oldcap > ((size_t)1 << 31));
	t->cap = oldcap ? oldcap * 2 : 16;
	t->slots = xreallocarray(NULL, t->cap, sizeof(*t->slots));
	for (size_t i = 0; i < t->cap; i++)
		t->slots[i].id = IDTAB_NONE;
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].id != IDTAB_NONE)
			place(t, old[i]);
	}
	free(old);
}

void idtab_add(struct idtab *t, uint64_t hash, uint32_t id)
{
	BUG_ON(id == IDTAB_NONE);
	if ((t->len + 1) * 4 > t->cap * 3)
		grow(t);
	place(t, (struct idtab_slot){ .id = id, .hash = (uint32_t)hash });
	t->len++;
}

bool idtab_del(struct idtab *t, uint64_t hash, uint32_t id)
{
	size_t mask = t->cap - 1, i, j;

	if (!t->cap)
		return false;
	for (i = (uint32_t)hash & mask; t->slots[i].id != id;
	     i = (i + 1) & mask) {
		if (t->slots[i].id == IDTAB_NONE)
			return false;
	}
	t->slots[i].id = IDTAB_NONE;
	t->len--;
	/* Shift back later members of the run whose home allows it. */
	for (j = (i + 1) & mask; t->slots[j].id != IDTAB_NONE;
	     j = (j + 1) & mask) {
		size_t home = t->slots[j].hash & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->slots[i] = t->slots[j];
			t->slots[j].id = IDTAB_NONE;
			i = j;
		}
	}
	return true;
}

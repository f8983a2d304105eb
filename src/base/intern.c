// SPDX-License-Identifier: Apache-2.0
/*
 * String interning over the hash map.
 */
#include "base/intern.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"

#define INTERN_BLOCK (64 * 1024)

/* Remember a heap string kept for good, to free it with the table. */
static char *keep(struct intern *t, char *s)
{
	vec_push(&t->kept, s);
	return s;
}

void intern_init(struct intern *t)
{
	idtab_init(&t->map);
	t->strs = (__typeof__(t->strs))VEC_INIT;
	t->refs = (__typeof__(t->refs))VEC_INIT;
	t->free_ids = (__typeof__(t->free_ids))VEC_INIT;
	t->blocks = (__typeof__(t->blocks))VEC_INIT;
	t->kept = (__typeof__(t->kept))VEC_INIT;
	t->next = NULL;
	t->room = 0;
}

void intern_release(struct intern *t)
{
	/* counted strings are on the heap, the others in blocks or kept */
	for (size_t i = 0; i < t->strs.len; i++) {
		if (t->refs.items[i])
			free(t->strs.items[i]);
	}
	vec_foreach (&t->kept, s)
		free(*s);
	vec_foreach (&t->blocks, b)
		free(*b);
	vec_release(&t->kept);
	vec_release(&t->blocks);
	vec_release(&t->strs);
	vec_release(&t->refs);
	vec_release(&t->free_ids);
	idtab_release(&t->map);
}

/* A string sought: the first len bytes of s. */
struct probe {
	const struct intern *t;
	const char *s;
	size_t len;
};

static bool same(const void *ctx, uint32_t id)
{
	const struct probe *p = ctx;
	const char *str = p->t->strs.items[id];

	/* strnlen first: str may be shorter than len */
	return strnlen(str, p->len + 1) == p->len &&
	       memcmp(str, p->s, p->len) == 0;
}

/* The id of the first len bytes of s, or IDTAB_NONE; its hash to *hash. */
static uint32_t find(const struct intern *t, const char *s, size_t len,
		     uint64_t *hash)
{
	struct probe p = { t, s, len };

	*hash = hmap_hash(s, len);
	return idtab_find(&t->map, *hash, same, &p);
}

/* A copy of the first len bytes of s (up to a NUL): on the heap when
 * counted (refs 1), else in a block. */
static char *copy(struct intern *t, const char *s, size_t len, uint32_t refs)
{
	char *p;

	len = strnlen(s, len);
	if (refs || len >= INTERN_BLOCK / 8)
		return refs ? xstrndup(s, len) : keep(t, xstrndup(s, len));
	if (t->room < len + 1) {
		t->next = xmalloc(INTERN_BLOCK);
		t->room = INTERN_BLOCK;
		vec_push(&t->blocks, t->next);
	}
	p = t->next;
	memcpy(p, s, len);
	p[len] = '\0';
	t->next += len + 1;
	t->room -= len + 1;
	return p;
}

/* The id of s, added with refs references when new; an existing string
 * gains one reference when refs is 1, or is kept for good when 0. */
static uint32_t add(struct intern *t, const char *s, size_t len, uint32_t refs)
{
	uint64_t hash;
	int64_t id = find(t, s, len, &hash);

	if (id != IDTAB_NONE) {
		uint32_t *r = &t->refs.items[id];

		if (!refs && *r) /* counted until now: on the heap */
			keep(t, t->strs.items[id]);
		if (!refs)
			*r = 0;
		else if (*r)
			(*r)++;
		return (uint32_t)id;
	}
	if (t->free_ids.len) {
		id = vec_pop(&t->free_ids);
		t->strs.items[id] = copy(t, s, len, refs);
		t->refs.items[id] = refs;
	} else {
		BUG_ON(t->strs.len >= UINT32_MAX);
		id = (int64_t)t->strs.len;
		vec_push(&t->strs, copy(t, s, len, refs));
		vec_push(&t->refs, refs);
	}
	idtab_add(&t->map, hash, (uint32_t)id);
	return (uint32_t)id;
}

uint32_t intern_idn(struct intern *t, const char *s, size_t len)
{
	return add(t, s, len, 0);
}

const char *intern_str_counted(struct intern *t, const char *s)
{
	uint32_t id = add(t, s, strlen(s), 1);

	return t->strs.items[id];
}

void intern_unref(struct intern *t, const char *s)
{
	uint64_t hash;
	uint32_t id = find(t, s, strlen(s), &hash);

	BUG_ON(id == IDTAB_NONE);
	if (!t->refs.items[id] || --t->refs.items[id])
		return;
	idtab_del(&t->map, hash, id);
	free(t->strs.items[id]);
	t->strs.items[id] = NULL;
	vec_push(&t->free_ids, id);
}

size_t intern_count(const struct intern *t)
{
	return t->strs.len - t->free_ids.len;
}

uint32_t intern_id(struct intern *t, const char *s)
{
	return intern_idn(t, s, strlen(s));
}

const char *intern_strn(struct intern *t, const char *s, size_t len)
{
	uint32_t id = intern_idn(t, s, len);

	return t->strs.items[id];
}

const char *intern_str(struct intern *t, const char *s)
{
	/* Index only after intern_id(): its push may move the array. */
	uint32_t id = intern_id(t, s);

	return t->strs.items[id];
}

const char *intern_name(const struct intern *t, uint32_t id)
{
	BUG_ON(id >= t->strs.len || !t->strs.items[id]);
	return t->strs.items[id];
}

int64_t intern_find(const struct intern *t, const char *s)
{
	uint64_t hash;
	uint32_t id = find(t, s, strlen(s), &hash);

	return id == IDTAB_NONE ? -1 : (int64_t)id;
}

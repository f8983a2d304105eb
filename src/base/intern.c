// SPDX-License-Identifier: Apache-2.0
/*
 * String interning over the hash map.
 */
#include "base/intern.h"

#include <stdlib.h>
#include <string.h>

void intern_init(struct intern *t)
{
	hmap_init(&t->map);
	t->strs = (__typeof__(t->strs))VEC_INIT;
}

void intern_release(struct intern *t)
{
	vec_foreach (&t->strs, s)
		free(*s);
	vec_release(&t->strs);
	hmap_release(&t->map);
}

uint32_t intern_idn(struct intern *t, const char *s, size_t len)
{
	int64_t id;

	if (hmap_get(&t->map, s, len, &id))
		return (uint32_t)id;
	BUG_ON(t->strs.len >= UINT32_MAX);
	id = (int64_t)t->strs.len;
	vec_push(&t->strs, xstrndup(s, len));
	hmap_put(&t->map, s, len, id);
	return (uint32_t)id;
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
	BUG_ON(id >= t->strs.len);
	return t->strs.items[id];
}

int64_t intern_find(const struct intern *t, const char *s)
{
	int64_t id;

	return hmap_get_str(&t->map, s, &id) ? id : -1;
}

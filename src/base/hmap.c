// SPDX-License-Identifier: Apache-2.0
/*
 * Open addressing with linear probing and backward-shift deletion.
 */
#include "base/hmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

void hmap_init(struct hmap *m)
{
	m->slots = NULL;
	m->cap = m->len = 0;
}

void hmap_release(struct hmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	hmap_init(m);
}

uint64_t hmap_hash(const void *key, size_t len)
{
	return hmap_hash_more(0xcbf29ce484222325ULL, key, len);
}

uint64_t hmap_hash_more(uint64_t h, const void *key, size_t len)
{
	const unsigned char *p = key;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static size_t find(const struct hmap *m, const void *key, size_t len,
		   uint64_t hash)
{
	size_t mask = m->cap - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		const struct hmap_slot *s = &m->slots[i];

		if (!s->key)
			return i;
		if (s->hash == hash && s->keylen == len &&
		    memcmp(s->key, key, len) == 0)
			return i;
	}
}

static void grow(struct hmap *m)
{
	struct hmap_slot *old = m->slots;
	size_t oldcap = m->cap;

	m->cap = oldcap ? oldcap * 2 : 16;
	m->slots = xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < oldcap; i++) {
		if (old[i].key)
			m->slots[find(m, old[i].key, old[i].keylen,
				      old[i].hash)] = old[i];
	}
	free(old);
}

bool hmap_put(struct hmap *m, const void *key, size_t len, int64_t value)
{
	uint64_t hash = hmap_hash(key, len);
	struct hmap_slot *s;

	if ((m->len + 1) * 4 > m->cap * 3)
		grow(m);
	s = &m->slots[find(m, key, len, hash)];
	if (s->key) {
		s->value = value;
		return false;
	}
	s->key = xmalloc(len + 1);
	memcpy(s->key, key, len);
	s->key[len] = '\0';
	s->keylen = len;
	s->hash = hash;
	s->value = value;
	m->len++;
	return true;
}

bool hmap_get(const struct hmap *m, const void *key, size_t len,
	      int64_t *ret_value)
{
	const struct hmap_slot *s;

	if (!m->cap)
		return false;
	s = &m->slots[find(m, key, len, hmap_hash(key, len))];
	if (!s->key)
		return false;
	if (ret_value)
		*ret_value = s->value;
	return true;
}

bool hmap_del(struct hmap *m, const void *key, size_t len)
{
	size_t mask = m->cap - 1, i, j;

	if (!m->cap)
		return false;
	i = find(m, key, len, hmap_hash(key, len));
	if (!m->slots[i].key)
		return false;
	free(m->slots[i].key);
	m->slots[i].key = NULL;
	m->len--;
	/* Shift back later members of the run whose home allows it. */
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t home = m->slots[j].hash & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			m->slots[j].key = NULL;
			i = j;
		}
	}
	return true;
}

bool hmap_put_str(struct hmap *m, const char *key, int64_t value)
{
	return hmap_put(m, key, strlen(key), value);
}

bool hmap_get_str(const struct hmap *m, const char *key, int64_t *ret_value)
{
	return hmap_get(m, key, strlen(key), ret_value);
}

bool hmap_next(const struct hmap *m, size_t *iter,
	       const struct hmap_slot **ret_slot)
{
	while (*iter < m->cap) {
		const struct hmap_slot *s = &m->slots[(*iter)++];

		if (s->key) {
			*ret_slot = s;
			return true;
		}
	}
	return false;
}

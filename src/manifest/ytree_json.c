// SPDX-License-Identifier: Apache-2.0
/*
 * The ynode tree of a jansson value, for objects already held as JSON (the
 * daemon's object store): the decoders read them as they read a file, but
 * without printing the object and parsing it again. One allocation holds
 * every node, kids array and scalar text, sized by a first walk.
 */
#include "manifest/ytree.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

#define NUM_TEXT 40 /* room for an integer or a real as jansson prints it */

struct yjson {
	char *p, *end; /* the free part of the block */
	char block[];
};

/* Bytes the tree of v needs, every piece aligned as take() aligns it. */
static size_t need(const json_t *v)
{
	size_t n = sizeof(struct ynode) + 2 * sizeof(void *);
	const char *key;
	json_t *val;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		n += 2 * json_object_size(v) * sizeof(struct ynode *);
		json_object_foreach((json_t *)v, key, val) n +=
			need(val) + sizeof(struct ynode) + strlen(key) + 1 +
			2 * sizeof(void *);
		return n;
	case JSON_ARRAY:
		n += json_array_size(v) * sizeof(struct ynode *);
		json_array_foreach(v, i, val) n += need(val);
		return n;
	case JSON_STRING:
		return n + json_string_length(v) + 1;
	default:
		return n + NUM_TEXT;
	}
}

static void *take(struct yjson *t, size_t size)
{
	size_t align = sizeof(void *);
	char *p = t->p;

	size = (size + align - 1) & ~(align - 1);
	BUG_ON(size > (size_t)(t->end - p));
	t->p += size;
	return p;
}

static struct ynode *scalar(struct yjson *t, const char *text, size_t len,
			    bool plain)
{
	struct ynode *n = take(t, sizeof(*n));
	char *copy = take(t, len + 1);

	memcpy(copy, text, len);
	copy[len] = '\0';
	*n = (struct ynode){
		.type = YNODE_SCALAR, .plain = plain, .text = copy, .len = len
	};
	return n;
}

static struct ynode *build(struct yjson *t, const json_t *v)
{
	char num[NUM_TEXT];
	struct ynode *n;
	const char *key;
	json_t *val;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		n = take(t, sizeof(*n));
		*n = (struct ynode){ .type = YNODE_MAP,
				     .n = json_object_size(v) };
		n->kids = take(t, 2 * n->n * sizeof(*n->kids) + 1);
		i = 0;
		json_object_foreach((json_t *)v, key, val)
		{
			n->kids[2 * i] = scalar(t, key, strlen(key), false);
			n->kids[2 * i + 1] = build(t, val);
			i++;
		}
		return n;
	case JSON_ARRAY:
		n = take(t, sizeof(*n));
		*n = (struct ynode){ .type = YNODE_SEQ,
				     .n = json_array_size(v) };
		n->kids = take(t, n->n * sizeof(*n->kids) + 1);
		json_array_foreach(v, i, val) n->kids[i] = build(t, val);
		return n;
	case JSON_STRING:
		return scalar(t, json_string_value(v), json_string_length(v),
			      false);
	case JSON_INTEGER:
		(void)snprintf(num, sizeof(num), "%" PRId64,
			       (int64_t)json_integer_value(v));
		return scalar(t, num, strlen(num), true);
	case JSON_REAL: {
		/* as the object's printed text has it */
		char *text = json_dumps(v, JSON_ENCODE_ANY);

		n = scalar(t, text ? text : "0", text ? strlen(text) : 1, true);
		free(text);
		return n;
	}
	case JSON_TRUE:
		return scalar(t, "true", 4, true);
	case JSON_FALSE:
		return scalar(t, "false", 5, true);
	default:
		return scalar(t, "null", 4, true);
	}
}

struct yjson *yjson_new(const json_t *v, struct ynode **ret_root)
{
	size_t size = need(v);
	struct yjson *t = xmalloc(sizeof(*t) + size);

	t->p = t->block;
	t->end = t->block + size;
	*ret_root = build(t, v);
	return t;
}

void yjson_free(struct yjson *t)
{
	free(t);
}

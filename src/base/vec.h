/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Growable arrays of any element type.
 *
 *	VEC(struct node) nodes = VEC_INIT;
 *	vec_push(&nodes, n);
 *	vec_foreach(&nodes, p) use(p);
 *	vec_release(&nodes);
 *
 * A vector owns its element array (not what elements point to). Growth
 * doubles the capacity; allocation failure aborts. Pointers into the array
 * are invalidated by any push.
 */
#ifndef ECHELON_BASE_VEC_H
#define ECHELON_BASE_VEC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#define VEC(T)                                                                 \
	struct {                                                               \
		T *items;                                                      \
		size_t len;                                                    \
		size_t cap;                                                    \
	}

#define VEC_INIT                                                               \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/* Make room for at least n elements in total. */
#define vec_reserve(v, n)                                                      \
	do {                                                                   \
		if ((n) > (v)->cap) {                                          \
			size_t c_ = (v)->cap ? (v)->cap : 8;                   \
			while (c_ < (n))                                       \
				c_ *= 2;                                       \
			(v)->items = xreallocarray((v)->items, c_,             \
						   sizeof(*(v)->items));       \
			(v)->cap = c_;                                         \
		}                                                              \
	} while (0)

#define vec_push(v, x)                                                         \
	do {                                                                   \
		vec_reserve((v), (v)->len + 1);                                \
		(v)->items[(v)->len++] = (x);                                  \
	} while (0)

/* Append one zeroed element and return a pointer to it. */
#define vec_push_zero(v)                                                       \
	__extension__({                                                        \
		vec_reserve((v), (v)->len + 1);                                \
		memset(&(v)->items[(v)->len], 0, sizeof(*(v)->items));         \
		&(v)->items[(v)->len++];                                       \
	})

#define vec_pop(v)  ((v)->items[--(v)->len])
#define vec_last(v) (&(v)->items[(v)->len - 1])

#define vec_foreach(v, p)                                                      \
	for (__typeof__(&*(v)->items) p = (v)->items;                          \
	     p && p < (v)->items + (v)->len; p++)

/* Free the array; the vector is empty and reusable afterwards. */
#define vec_release(v)                                                         \
	do {                                                                   \
		free((v)->items);                                              \
		(v)->items = NULL;                                             \
		(v)->len = (v)->cap = 0;                                       \
	} while (0)

#endif

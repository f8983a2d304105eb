/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String interning: one stable copy per distinct string, with a dense id.
 *
 * Label keys and values, names and levels are interned so that the model
 * stores small ids and compares strings by id. Interned strings live until
 * the table is released; ids are assigned 0, 1, 2, ... in first-seen order,
 * which keeps every ordering derived from them deterministic.
 *
 * Strings of objects that come and go (the names of workloads a daemon
 * sees) are interned counted instead (intern_str_counted()) and dropped
 * with intern_unref(), so that the table holds the live ones only; their
 * ids are reused, last freed first. A string interned once without a
 * count stays for good.
 */
#ifndef ECHELON_BASE_INTERN_H
#define ECHELON_BASE_INTERN_H

#include <stdint.h>

#include "base/hmap.h" /* callers of intern.h have used it */
#include "base/idtab.h"
#include "base/vec.h"

struct intern {
	struct idtab map;	/* string -> id (the strings are in strs) */
	VEC(char *) strs;	/* id -> string (owned); NULL: freed */
	VEC(uint32_t) refs;	/* id -> references; 0: for good */
	VEC(uint32_t) free_ids; /* ids of freed strings */
	/* Strings interned for good are packed into blocks (a heap copy of
	 * a short string costs two to four times its length); counted ones
	 * have a heap copy each, freed with the last reference, and stay
	 * on the heap when they are later kept for good (kept). */
	VEC(char *) blocks;
	char *next; /* free space in the last block */
	size_t room;
	VEC(char *) kept;
};

void intern_init(struct intern *t);
void intern_release(struct intern *t);
/* The id of s, adding it when new. */
uint32_t intern_id(struct intern *t, const char *s);
/* The stable copy of s, adding it when new. */
const char *intern_str(struct intern *t, const char *s);
/* The same for the first len bytes of s (which need no terminator). */
uint32_t intern_idn(struct intern *t, const char *s, size_t len);
const char *intern_strn(struct intern *t, const char *s, size_t len);
/* s interned with one more reference (unless it is there for good). */
const char *intern_str_counted(struct intern *t, const char *s);
/* Drop a reference taken by intern_str_counted(); the string is freed
 * with the last one. Nothing for strings interned for good; BUG when s is
 * not interned. */
void intern_unref(struct intern *t, const char *s);
/* Strings held now (for tests and benchmarks). */
size_t intern_count(const struct intern *t);
/* The string of an id returned earlier; BUG if unknown. */
const char *intern_name(const struct intern *t, uint32_t id);
/* Look up without adding; -1 when absent. */
int64_t intern_find(const struct intern *t, const char *s);

#endif

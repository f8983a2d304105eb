/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A compact, read-only tree of one YAML or JSON document, built from
 * libfyaml's parse events into an arena.
 *
 * libfyaml's own document trees cost more to build and free than echelon
 * spends decoding them; this tree is a few pointers per node, allocated from
 * one arena that is reset for every document, and gives every node (not
 * only scalars) its line and column. Nodes live until the next
 * yparser_next() or yparser_free(); the parser owns them.
 */
#ifndef ECHELON_MANIFEST_YTREE_H
#define ECHELON_MANIFEST_YTREE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/diag.h"

enum ynode_type {
	YNODE_SCALAR,
	YNODE_MAP,
	YNODE_SEQ,
	YNODE_ALIAS,
	YNODE_TYPE_COUNT
};

struct ynode {
	enum ynode_type type;
	bool plain;	  /* a scalar written without quotes or block style */
	int line, col;	  /* 1-based start */
	const char *text; /* scalar or alias: NUL-terminated text */
	size_t len;	  /* its length (it may hold NULs) */
	size_t n;	  /* seq: items; map: pairs */
	struct ynode **kids; /* seq: items; map: key, value, key, value... */
};

struct yparser;

/* Parse buf (not copied: it must outlive the parser). Parse errors are
 * reported in d as "file:line:col: invalid YAML: ..." with file as given. */
struct yparser *yparser_new(const char *buf, size_t len, bool json,
			    const char *file, struct diag *d);
void yparser_free(struct yparser *p);
/*
 * The next document: 1 with *ret_root set (NULL for an empty document),
 * 0 at the end of the stream, -EINVAL after a parse error (reported).
 */
int yparser_next(struct yparser *p, struct ynode **ret_root) MUST_CHECK;

/*
 * The tree of a JSON value already parsed (jansson's): objects are maps,
 * arrays sequences, strings quoted scalars, numbers, booleans and null
 * plain scalars. Nodes carry no position (line 0: messages give the
 * object's). The tree lives until yjson_free().
 */
struct yjson;
struct yjson *yjson_new(const json_t *v, struct ynode **ret_root);
void yjson_free(struct yjson *t);

/* Iterate a sequence's items, or a mapping's keys and values. */
#define ynode_foreach(seq, item)                                               \
	for (size_t i_##item = 0;                                              \
	     ((item) = i_##item < (seq)->n ? (seq)->kids[i_##item] : NULL);    \
	     i_##item++)
#define ynode_foreach_pair(map, key, value)                                    \
	for (size_t i_##key = 0;                                               \
	     i_##key < (map)->n && ((key) = (map)->kids[2 * i_##key],          \
				   (value) = (map)->kids[2 * i_##key + 1], 1); \
	     i_##key++)

/* The value of a mapping's key, or NULL (also for a non-mapping). */
struct ynode *ynode_get(const struct ynode *map, const char *key);
/* A plain null, ~ or empty scalar, or NULL itself. */
bool ynode_is_null(const struct ynode *n);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Labels: a small key=value set attached to nodes and workloads, with the
 * Kubernetes syntax rules for label keys and values.
 *
 * A struct labels keeps its items sorted by key (strcmp) with unique keys,
 * so lookups are binary searches and two sets compare by a linear merge.
 * It owns only its item array: key and value strings are borrowed, and the
 * caller (typically an intern table) keeps them alive while they are in a
 * set. Keys and values are never NULL.
 */
#ifndef ECHELON_MODEL_LABEL_H
#define ECHELON_MODEL_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/errbuf.h"

struct label {
	const char *key;
	const char *value;
};

struct labels {
	struct label *items; /* sorted by key, keys unique */
	size_t len, cap;
};

/* An empty set. */
void labels_init(struct labels *l);
/* Free the item array (not the strings); l is empty and reusable. NULL ok. */
void labels_release(struct labels *l);
/* Insert key=value, or replace the value of an existing key. O(len) for a
 * key inside the set, O(1) for one after its last key. */
void labels_set(struct labels *l, const char *key, const char *value);
/*
 * labels_set() of items[0..n) in order (a later item wins over an earlier
 * one with the same key, and over l), in O((len + n) log n) whatever the
 * order: the way to build a set from a mapping of unknown size.
 */
void labels_set_all(struct labels *l, const struct label *items, size_t n);
/* The value of key, or NULL when absent. */
const char *labels_get(const struct labels *l, const char *key);
/* True when every key=value of want is also in l (true for an empty want). */
bool labels_contains_all(const struct labels *l, const struct labels *want);
/*
 * Make dst an item-by-item copy of src. dst must be initialised; its
 * previous contents are dropped. The strings stay shared, not duplicated.
 */
void labels_copy(struct labels *dst, const struct labels *src);

/*
 * Check a label key: a Kubernetes qualified name, an optional DNS-1123
 * subdomain prefix (at most 253 characters) and '/', then a name of 1 to
 * 63 characters from [-_.A-Za-z0-9] that starts and ends alphanumeric.
 * Returns 0, or -EINVAL with a message in eb (NULL ok). NULL is invalid.
 */
int label_check_key(const char *key, struct errbuf *eb) MUST_CHECK;
/*
 * Check a label value: empty, or at most 63 characters with the name rules
 * above. Returns 0, or -EINVAL with a message in eb. NULL counts as empty.
 */
int label_check_value(const char *value, struct errbuf *eb) MUST_CHECK;

/* Kubernetes' limit on the annotations of one object: the sum of the
 * lengths of their keys and values, in bytes. */
#define ANNOTATIONS_MAX_BYTES (256 * 1024)
/*
 * Check an annotation key: a qualified name as for labels, compared in
 * lower case (Kubernetes' ValidateAnnotations). Returns 0, or -EINVAL with
 * a message in eb.
 */
int annotation_check_key(const char *key, struct errbuf *eb) MUST_CHECK;

#endif

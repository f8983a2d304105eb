/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compact JSON text of jansson values, appended to a strbuf: what the
 * store caches for each object and what replies and watch events are
 * built from. The same text json_dumps(JSON_COMPACT) writes (keys in
 * insertion order, UTF-8 kept as is, reals with 17 digits), a few times
 * faster, and without a temporary copy per value.
 */
#ifndef ECHELON_API_JSON_H
#define ECHELON_API_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* Append v (any JSON value; NULL as null) to out. */
void api_json_add(struct strbuf *out, const json_t *v);
/* Append the string s[0..len) quoted and escaped as JSON. */
void api_json_add_string(struct strbuf *out, const char *s, size_t len);
/*
 * The value of member key of the JSON object text[0..len) (valid JSON, as
 * this encoder or jansson writes it), found by scanning instead of
 * parsing: true with *ret_val and *ret_len set to its text, false when
 * text is no object or has no such top-level member.
 */
bool api_json_member(const char *text, size_t len, const char *key,
		     const char **ret_val, size_t *ret_len);

#endif

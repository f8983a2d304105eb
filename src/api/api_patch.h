/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The patch kinds of PATCH requests, applied to a copy of the stored
 * object: JSON merge patch (RFC 7386), JSON patch (RFC 6902), strategic
 * merge patch (the lists kubectl and schedulers touch merge by their keys:
 * conditions by type, containers and env by name, tolerations whole, ...;
 * `$patch: delete|replace`, `$retainKeys` and `$deleteFromPrimitiveList`
 * honoured, `$setElementOrder` ignored) and apply patches (server-side
 * apply as a documented subset: the body is merged like a strategic merge
 * patch, so keyed lists such as conditions keep the entries others wrote;
 * no managedFields are kept, conflicts are not detected, and fields the
 * applier no longer sets are not removed).
 * Pure: the target is never touched on failure.
 */
#ifndef ECHELON_API_PATCH_H
#define ECHELON_API_PATCH_H

#include <jansson.h>
#include <stddef.h>

#include "api/api_kind.h"
#include "base/compiler.h"
#include "base/errbuf.h"

enum api_patch_type {
	API_PATCH_MERGE,     /* application/merge-patch+json */
	API_PATCH_JSON,	     /* application/json-patch+json */
	API_PATCH_STRATEGIC, /* application/strategic-merge-patch+json */
	API_PATCH_APPLY,     /* application/apply-patch+yaml (JSON or YAML) */
	API_PATCH_TYPE_COUNT
};

/* The patch type of a Content-Type (parameters ignored); -1 for one that
 * is not a patch type (415 UnsupportedMediaType). */
int api_patch_type_of(const char *content_type);

/*
 * Apply patch to a deep copy of target (an object of kind k) and return
 * the result in *ret (new reference). -EINVAL with a message in err for a
 * patch that does not apply (a JSON patch test that fails, a path that
 * does not exist, a wrong type): 422 for JSON patch, 400 otherwise.
 */
int api_patch_apply(const struct api_kind *k, enum api_patch_type type,
		    const json_t *target, const json_t *patch, json_t **ret,
		    struct errbuf *err) MUST_CHECK;

/* How a strategic merge patch treats the list at a field of that name:
 * replaced whole, merged element by element by a key field (*ret_key,
 * e.g. conditions by "type"), or merged as a set of scalars
 * (finalizers; removals through $deleteFromPrimitiveList/<field>). */
enum api_patch_list {
	API_PATCH_LIST_REPLACE,
	API_PATCH_LIST_KEYED,
	API_PATCH_LIST_SET,
};
enum api_patch_list api_patch_list_of(const char *field, const char **ret_key);

/*
 * Decode a YAML body (apply patches are YAML or JSON; JSON is YAML) of len
 * bytes into *ret (new reference): one document, plain scalars typed by
 * YAML 1.2's core schema (null, true/false, integers, floats; everything
 * else a string), mapping keys as strings, at most max_depth nested
 * collections. Aliases, non-scalar keys, .inf and .nan, more than one
 * document, NUL bytes and text that is not UTF-8 are refused. -EINVAL with
 * "line L, column C: what is wrong" in err.
 */
int api_patch_decode_yaml(const char *body, size_t len, int max_depth,
			  json_t **ret, struct errbuf *err) MUST_CHECK;

#endif

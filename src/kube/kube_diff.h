/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Two-way patches: the smallest patch body that turns one version of an
 * object into the next, as the outbox (kube_outbox.h) sends it. JSON
 * merge patch (RFC 7386: changed members, removed ones as null) for
 * custom resources; strategic merge patch for built-in kinds, whose
 * keyed lists (conditions by type, ...; api_patch_list_of) carry only the
 * changed elements, each with its key, removed ones as
 * {"<key>": k, "$patch": "delete"}, and whose sets (finalizers) carry the
 * new list plus $deleteFromPrimitiveList/<field> for what left.
 *
 * A write is split as the API server splits it: the object (the
 * metadata a client may patch, labels, annotations and finalizers, and
 * every top-level member but status) and the status subresource.
 * Pure: no I/O; the inputs are never modified (the result may share
 * their members by reference).
 */
#ifndef ECHELON_KUBE_DIFF_H
#define ECHELON_KUBE_DIFF_H

#include <jansson.h>
#include <stdbool.h>

enum kube_diff_part {
	KUBE_DIFF_OBJECT, /* labels, annotations, finalizers, spec... */
	KUBE_DIFF_STATUS, /* status only */
	KUBE_DIFF_ALL,	  /* both (a kind without a status subresource) */
	KUBE_DIFF_PART_COUNT
};

/* The patch from old to new (either may be NULL: no object) restricted
 * to part, or NULL when that part did not change. New reference. */
json_t *kube_diff(const json_t *old, const json_t *new, bool strategic,
		  enum kube_diff_part part);

/* The plain two-way diff of two JSON values (objects: member by member;
 * anything else: new whole), or NULL when equal. New reference. */
json_t *kube_diff_values(const json_t *old, const json_t *new, bool strategic);

#endif

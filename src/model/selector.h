/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Label selectors and required node affinity, matched with the rules of
 * Kubernetes (labels.Requirement.Matches and the node affinity helpers).
 *
 * A selector is the AND of its requirements; an empty selector matches
 * every label set. A node affinity is the OR of selector terms, and an
 * empty term matches nothing. Keys and value strings are borrowed from the
 * caller (typically an intern table) and compared with strcmp; a selector
 * owns its requirement array and each requirement's array of pointers.
 */
#ifndef ECHELON_MODEL_SELECTOR_H
#define ECHELON_MODEL_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "model/label.h"

enum selector_op {
	SELECTOR_IN,
	SELECTOR_NOT_IN,
	SELECTOR_EXISTS,
	SELECTOR_DOES_NOT_EXIST,
	SELECTOR_GT,
	SELECTOR_LT,
	SELECTOR_OP_COUNT
};

struct selector_req {
	const char *key;
	enum selector_op op;
	const char **values; /* array owned by the selector, strings borrowed */
	size_t nvalues;
};

struct selector {
	struct selector_req *reqs; /* ANDed */
	size_t len, cap;
};

/* An empty selector, which matches everything. */
void selector_init(struct selector *s);
/* Free the requirement arrays (not the strings); s is empty again. NULL ok. */
void selector_release(struct selector *s);
/*
 * Parse a Kubernetes operator name: "In", "NotIn", "Exists",
 * "DoesNotExist", "Gt" or "Lt" (case-sensitive). Returns 0 and sets
 * *ret_op, or -EINVAL.
 */
int selector_parse_op(const char *s, enum selector_op *ret_op);
/* The Kubernetes name of op, or "?" when out of range. */
const char *selector_op_name(enum selector_op op);
/*
 * Append the requirement "key op values" after checking it as Kubernetes
 * does: key is a valid label key; In and NotIn take one or more valid
 * label values; Exists and DoesNotExist take none; Gt and Lt take exactly
 * one decimal 64-bit integer that is also a label value (so no sign, as
 * Kubernetes' labels.NewRequirement demands). The values array is copied,
 * the strings are not; values may be NULL when nvalues is 0. Returns 0, or
 * -EINVAL with a message in eb (NULL ok), leaving s unchanged.
 */
int selector_add(struct selector *s, const char *key, enum selector_op op,
		 const char *const *values, size_t nvalues,
		 struct errbuf *eb) MUST_CHECK;
/* Append a matchLabels entry, key In (value). Not validated. */
void selector_add_match_label(struct selector *s, const char *key,
			      const char *value);
/* True when l satisfies every requirement of s. */
bool selector_matches(const struct selector *s, const struct labels *l);

/*
 * requiredDuringSchedulingIgnoredDuringExecution: nodeSelectorTerms, ORed.
 * present false means the workload has no required node affinity.
 */
struct node_affinity {
	bool present;
	struct selector *terms;
	size_t len, cap;
};

/* An absent affinity with no terms. */
void node_affinity_init(struct node_affinity *a);
/* Release every term and the array; a is absent again. NULL ok. */
void node_affinity_release(struct node_affinity *a);
/*
 * Mark a present and append an empty term, owned by a. The pointer is
 * valid until the next call on a that adds a term.
 */
struct selector *node_affinity_add_term(struct node_affinity *a);
/*
 * True when a is absent, or when some non-empty term matches l. A present
 * affinity with no terms matches nothing, and so does an empty term.
 */
bool node_affinity_matches(const struct node_affinity *a,
			   const struct labels *l);

#endif

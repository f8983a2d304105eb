/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Node taints and workload tolerations, with the Kubernetes rules for
 * validating a toleration, deciding whether it tolerates a taint, and
 * deciding whether a node's taints keep a workload off it.
 *
 * Keys and values are borrowed strings compared with strcmp; a NULL value
 * (and a NULL toleration key) reads as "". Nothing here allocates.
 */
#ifndef ECHELON_MODEL_TAINT_H
#define ECHELON_MODEL_TAINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"

enum taint_effect {
	TAINT_NO_SCHEDULE,
	TAINT_PREFER_NO_SCHEDULE,
	TAINT_NO_EXECUTE,
	TAINT_EFFECT_COUNT
};

struct taint {
	const char *key;
	const char *value; /* NULL = "" */
	enum taint_effect effect;
};

enum toleration_op { TOLERATION_EQUAL, TOLERATION_EXISTS, TOLERATION_OP_COUNT };

struct toleration {
	const char *key; /* NULL or "" = any key (only valid with Exists) */
	enum toleration_op op;
	const char *value; /* NULL = "" */
	int effect;	   /* -1 = all effects, else enum taint_effect */
	bool has_seconds;  /* tolerationSeconds is set (NoExecute only) */
	int64_t seconds;
};

/*
 * Parse "NoSchedule", "PreferNoSchedule" or "NoExecute". Returns 0 and
 * sets *ret, or -EINVAL (also for ""; a toleration's empty effect is -1).
 */
int taint_parse_effect(const char *s, enum taint_effect *ret);
/* The Kubernetes name of e, or "?" when out of range. */
const char *taint_effect_name(enum taint_effect e);
/* Parse "Equal" or "Exists"; "" means Equal. Returns 0 or -EINVAL. */
int toleration_parse_op(const char *s, enum toleration_op *ret);
/*
 * Validate t as the Kubernetes API server does: a non-empty key must be a
 * valid label key; an empty key requires Exists; Exists requires an empty
 * value, Equal a valid label value; tolerationSeconds requires the
 * NoExecute effect. Returns 0, or -EINVAL with the first problem in eb.
 */
int toleration_check(const struct toleration *t, struct errbuf *eb) MUST_CHECK;
/*
 * Kubernetes ToleratesTaint: the effect matches when t's is -1 or equal,
 * the key when t's is empty or equal; then Exists matches any value and
 * Equal compares the values.
 */
bool toleration_tolerates(const struct toleration *t,
			  const struct taint *taint);
/*
 * The first taint (in array order) with effect NoSchedule or NoExecute that
 * no toleration tolerates, or NULL when the workload may be placed: the
 * filter of kube-scheduler's TaintToleration plugin. PreferNoSchedule
 * never blocks. The arrays may be NULL when their counts are 0.
 */
const struct taint *taint_find_untolerated(const struct taint *taints,
					   size_t ntaints,
					   const struct toleration *tols,
					   size_t ntols);

#endif

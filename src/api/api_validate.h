/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Validation of objects written through the API, with the same decoders
 * and messages as `echelon validate` (src/manifest): an object the API
 * accepts is one the decoders accept, and each error becomes a Status
 * cause {field, message}. Kinds without a decoder get Kubernetes' generic
 * checks (name, namespace, labels). Pure: nothing is stored.
 */
#ifndef ECHELON_API_VALIDATE_H
#define ECHELON_API_VALIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/api_kind.h"
#include "base/compiler.h"

enum api_field_validation {
	API_FV_STRICT, /* unknown or duplicate fields are errors (400) */
	API_FV_WARN,   /* ... warnings (Warning headers) */
	API_FV_IGNORE,
	API_FV_COUNT
};

/* One finding: field is a path such as "spec.parallelism" or
 * "metadata.labels[\"app\"]" ("" for the whole object), message what is
 * wrong, in the words `echelon validate` uses. */
struct api_cause {
	char *field;
	char *message;
	bool warning;
};

struct api_causes {
	struct api_cause *v;
	size_t n, cap;
	size_t errors;
	/* Errors that are unknown fields under API_FV_STRICT: Kubernetes
	 * answers those 400 BadRequest (strict decoding), the rest 422. */
	size_t unknown;
};

void api_causes_release(struct api_causes *c);

/*
 * Check obj, about to be stored as kind k (old: the stored object for an
 * update, NULL for a create: immutable fields are checked against it).
 * Appends findings to out; returns 0 when there is no error (warnings
 * allowed), -EINVAL otherwise (422 Invalid, or 400 BadRequest when
 * out->unknown grew: unknown fields under API_FV_STRICT, as Kubernetes
 * answers). Checks: obj's apiVersion and kind are k's (or a view of
 * k's storage); metadata.namespace is set for namespaced kinds; the
 * manifest decoder of the kind (Events and Leases: their metadata and
 * Kubernetes' rules); for updates, the fields Kubernetes keeps immutable
 * (a pod's spec but images, tolerations and a few more; a Job's selector
 * and completion mode, its template unless suspended; an admitted
 * Workload's podSets and queueName; a PriorityClass's value).
 */
int api_validate(const struct api_kind *k, const json_t *obj, const json_t *old,
		 enum api_field_validation fv,
		 struct api_causes *out) MUST_CHECK;

#endif

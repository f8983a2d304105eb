/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Server-side defaults: the fields the Kubernetes API server fills in
 * objects it stores (a Job's selector and pod-template labels, a Pod's
 * restartPolicy, dnsPolicy, imagePullPolicy, ...), so that clients read
 * back what they would from Kubernetes. The one place echelon defaults
 * an object; every create and update (the API's and the embedded
 * controllers') passes through it. A value the object sets is never
 * overwritten. Pure: no I/O, no clock.
 */
#ifndef ECHELON_API_DEFAULT_H
#define ECHELON_API_DEFAULT_H

#include <jansson.h>
#include <stdbool.h>

#include "api/api_kind.h"

/*
 * Fill the defaults of obj, an object of kind k (stored version), in
 * place; kinds without defaults are left alone. uid is the object's
 * metadata.uid (on create, the one the store is about to give it:
 * api_store_new_uid()); NULL or "" skips what needs it. create: whether
 * obj is being created (a Job's selector and template labels are
 * generated on create only, as Kubernetes does; the rest on every
 * write). Wrongly typed fields are left for validation to report.
 */
void api_default(const struct api_kind *k, json_t *obj, const char *uid,
		 bool create);

#endif

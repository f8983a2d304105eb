/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The objects `echelon serve` is started with: the documents of the -f
 * files and folders, and the nodes, Topology and ResourceFlavor that
 * --cluster SPEC generates (as `echelon sim` generates them). They are
 * first checked as `echelon validate` checks them (every problem as
 * "file:line:col: field: message"), then applied through the API as
 * `kubectl apply` would: created when missing, updated (merge patch, and
 * the status subresource for a document that has a status) when present,
 * so a restart over existing state neither duplicates nor refuses them.
 * An existing Job's spec.suspend is left to Kueue's reconciler, so that a
 * restart with the same files does not suspend an admitted Job.
 * Namespaces the objects name are created when missing; an unnamed
 * echelon Configuration (files may leave it unnamed) is named "default".
 */
#ifndef ECHELON_SERVE_APPLY_H
#define ECHELON_SERVE_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/api.h"
#include "base/compiler.h"
#include "base/diag.h"

struct serve_apply_stats {
	size_t created, updated, unchanged;
};

/*
 * Check, then apply paths (npaths files or folders) and the generated
 * cluster of spec (NULL: none) through a over its store s at now_us.
 * Returns 0, or -EINVAL with every problem in d (warnings there too);
 * on a failure objects applied before it stay (the start stops anyway).
 */
int serve_apply(struct api *a, struct api_store *s, const char *const *paths,
		size_t npaths, const char *spec, int64_t now_us,
		struct serve_apply_stats *st, struct diag *d) MUST_CHECK;

/* Only check paths as serve_apply() does; nothing is applied. */
int serve_apply_check(const char *const *paths, size_t npaths,
		      struct diag *d) MUST_CHECK;

/* Whether a remote cluster serves the objects of kind k. */
typedef bool (*serve_apply_served_fn)(void *ctx, const struct api_kind *k);

/*
 * The local objects of a remote cluster's replica s (src/kube): check
 * paths as serve_apply() does, then refuse every document of a kind
 * served() says the cluster serves (those are the cluster's to hold:
 * apply them there) and every namespaced one whose namespace s lacks,
 * before anything is applied; then apply them as serve_apply() does,
 * creating no namespace. -EINVAL with every problem in d.
 */
int serve_apply_local(struct api *a, struct api_store *s,
		      const char *const *paths, size_t npaths,
		      serve_apply_served_fn served, void *ctx, int64_t now_us,
		      struct serve_apply_stats *st, struct diag *d) MUST_CHECK;

/* Create the Namespace ns unless it exists; 0 or a negative errno. */
int serve_apply_namespace(struct api *a, struct api_store *s, const char *ns,
			  int64_t now_us) MUST_CHECK;

#endif

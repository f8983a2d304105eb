/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Kubernetes Namespace: its name and labels, which a ClusterQueue's
 * namespaceSelector is matched against. Every namespace also carries the
 * label kubernetes.io/metadata.name with its own name (the API server sets
 * it), also one that no Namespace object declares: nspace_selected()
 * adds it. Plain data; strings are interned elsewhere, the namespace owns
 * its label array.
 */
#ifndef ECHELON_MODEL_NSPACE_H
#define ECHELON_MODEL_NSPACE_H

#include <stdbool.h>

#include "base/diag.h"
#include "model/label.h"
#include "model/selector.h"

#define NSPACE_NAME_LABEL "kubernetes.io/metadata.name"

struct nspace {
	const char *name;
	struct labels labels; /* as declared */
	struct srcpos pos;
};

/* An unnamed namespace without labels. */
void nspace_init(struct nspace *ns);
/* Free the label array (not the strings). NULL ok. */
void nspace_release(struct nspace *ns);

/*
 * Whether sel selects the namespace called name, whose object is ns (NULL
 * when none is declared): ns's labels plus kubernetes.io/metadata.name set
 * to name. An empty sel selects every namespace.
 */
bool nspace_selected(const struct nspace *ns, const char *name,
		     const struct selector *sel);

#endif

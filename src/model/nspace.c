// SPDX-License-Identifier: Apache-2.0
/*
 * Namespaces as a namespaceSelector sees them: the declared labels, and
 * the kubernetes.io/metadata.name label that the API server puts on every
 * namespace and that overrides any other value given for it.
 */
#include "model/nspace.h"

#include <stddef.h>

#include "base/banned.h"

void nspace_init(struct nspace *ns)
{
	ns->name = NULL;
	labels_init(&ns->labels);
}

void nspace_release(struct nspace *ns)
{
	if (ns)
		labels_release(&ns->labels);
}

bool nspace_selected(const struct nspace *ns, const char *name,
		     const struct selector *sel)
{
	struct labels l;
	bool ok;

	if (sel->len == 0)
		return true;
	labels_init(&l);
	if (ns)
		labels_copy(&l, &ns->labels);
	labels_set(&l, NSPACE_NAME_LABEL, name ? name : "default");
	ok = selector_matches(sel, &l);
	labels_release(&l);
	return ok;
}

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The resource registry: a small id for every resource name in use.
 *
 * cpu, memory and pods always hold ids 0, 1 and 2; other names (extended
 * resources such as "nvidia.com/gpu", "ephemeral-storage") get the next
 * free id the first time they are seen, up to RESOURCE_MAX names, so that
 * a struct resvec can be a fixed array indexed by id. Names are checked
 * against Kubernetes' rules before they are registered. The registry is
 * embedded by its owner and owns copies of its names; ids stay valid until
 * resource_registry_release().
 */
#ifndef ECHELON_MODEL_RESOURCE_H
#define ECHELON_MODEL_RESOURCE_H

#include "base/compiler.h"
#include "base/errbuf.h"
#include "model/quantity.h"

#define RESOURCE_MAX 16

/* Ids registered by resource_registry_init(), in this order. */
enum { RESOURCE_CPU, RESOURCE_MEMORY, RESOURCE_PODS, RESOURCE_FIXED_COUNT };

struct resource_registry {
	char *names[RESOURCE_MAX]; /* owned; [0, count) in use */
	enum quantity_kind kinds[RESOURCE_MAX];
	int count;
};

/* Start with cpu, memory and pods registered. */
void resource_registry_init(struct resource_registry *r);
/* Free the names; r may be NULL. r must be initialised again before use. */
void resource_registry_release(struct resource_registry *r);

/*
 * The id of name (not NULL), registering it when it is new. Returns the id
 * (>= 0), -EINVAL with a message in eb (may be NULL) when name is not a
 * valid Kubernetes resource name, or -ENOSPC when RESOURCE_MAX names are
 * already registered. The registry keeps its own copy of name.
 */
int resource_id(struct resource_registry *r, const char *name,
		struct errbuf *eb) MUST_CHECK;

/* The id of name, or -1 when it is not registered. */
int resource_lookup(const struct resource_registry *r, const char *name);

/* The name of a registered id (0 <= id < count; BUG otherwise), owned by r. */
const char *resource_name(const struct resource_registry *r, int id);

/*
 * The quantity kind of a resource name: QUANTITY_MILLI for cpu;
 * QUANTITY_BYTES for memory, ephemeral-storage, storage and hugepages-*;
 * QUANTITY_UNITS for everything else. name is not validated.
 */
enum quantity_kind resource_kind_for(const char *name);

#endif

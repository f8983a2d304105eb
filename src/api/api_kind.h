/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kinds `echelon serve` stores and serves, as a static registry: for
 * each one its API group, served versions (preferred first), resource
 * names, scope, subresources and the Table columns `kubectl get` prints.
 * Discovery, the OpenAPI documents, routing and Table replies are all
 * generated from this one table, so a kind added here is served
 * everywhere at once. Pure data and lookups; no allocation.
 */
#ifndef ECHELON_API_KIND_H
#define ECHELON_API_KIND_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum api_sub {
	API_SUB_STATUS = 1 << 0,  /* .../NAME/status */
	API_SUB_BINDING = 1 << 1, /* pods/NAME/binding */
};

/* One Table column (meta.k8s.io/v1 TableColumnDefinition). priority 1
 * columns are printed by `kubectl get -o wide` only. */
struct api_column {
	const char *name;
	const char *type;   /* "string", "integer", "date", ... */
	const char *format; /* "name", "" */
	const char *description;
	int priority;
};

struct api_kind {
	unsigned id;		    /* index in the registry */
	const char *group;	    /* "" for the core group */
	const char *versions[3];    /* served; preferred first; NULL ends */
	const char *resource;	    /* plural: "pods" */
	const char *singular;	    /* "pod" */
	const char *kind;	    /* "Pod" */
	const char *short_names[4]; /* NULL ends */
	const char *categories[2];  /* NULL ends */
	bool namespaced;
	unsigned subresources; /* enum api_sub */
	const struct api_column *columns;
	size_t ncolumns;
	/* Append the ncolumns cells of obj's row to the array cells; now_us
	 * is the server's clock (ages). */
	void (*cells)(const json_t *obj, int64_t now_us, json_t *cells);
};

/* The served kinds, in registry order: api_kind_at(API_KIND_POD) is the
 * Pod kind. The ids are stable within a build, not across versions (never
 * persist them; persist group and resource). */
enum api_kind_id {
	API_KIND_NAMESPACE,
	API_KIND_NODE,
	API_KIND_POD,
	API_KIND_EVENT,	   /* core v1 (the storage of both Event kinds) */
	API_KIND_EVENT_V1, /* events.k8s.io/v1, a view of core Events */
	API_KIND_JOB,
	API_KIND_LEASE,
	API_KIND_PRIORITY_CLASS,
	API_KIND_TOPOLOGY,
	API_KIND_RESOURCE_FLAVOR,
	API_KIND_CLUSTER_QUEUE,
	API_KIND_COHORT,
	API_KIND_LOCAL_QUEUE,
	API_KIND_WORKLOAD_PRIORITY_CLASS,
	API_KIND_WORKLOAD,
	API_KIND_POD_GROUP,
	API_KIND_CONFIGURATION,
	API_KIND_NATIVE_POD_GROUP, /* scheduling.k8s.io (KEP-4671) */
	API_KIND_COUNT
};

size_t api_kind_count(void);
/* The kind with id i (enum api_kind_id), or NULL past the end. */
const struct api_kind *api_kind_at(size_t i);
/* Whether k serves version (NULL: false). */
bool api_kind_serves(const struct api_kind *k, const char *version);
/* The kind served at group/version/resource (resource plural), or NULL. */
const struct api_kind *api_kind_find(const char *group, const char *version,
				     const char *resource);
/* The kind of an object's apiVersion ("v1", "batch/v1") and kind, or
 * NULL when echelon does not serve it. */
const struct api_kind *api_kind_of(const char *api_version, const char *kind);
/*
 * One storage per concept: events.k8s.io/v1 Event is a view of core v1
 * Event (regarding/involvedObject, note/message...), and Kueue's v1beta1
 * a view of v1beta2 (cohort/cohortName...). The kind whose objects hold
 * k's (k itself for most kinds); objects are stored in its preferred
 * version.
 */
const struct api_kind *api_kind_storage(const struct api_kind *k);
/*
 * obj (of any kind and served version sharing to's storage) converted to
 * kind `to` at version `version` (NULL: to's preferred): a new reference,
 * apiVersion and kind set. NULL only when obj is not a JSON object.
 */
json_t *api_kind_convert(const json_t *obj, const struct api_kind *to,
			 const char *version);
/* obj's member at a dotted path ("status.nodeInfo.osImage"), or NULL
 * (also when something on the way is not an object): how Table cells and
 * field selectors name what they read. */
const json_t *api_kind_field(const json_t *obj, const char *path);
/* "group/version" or "version" for the core group, in buf (≥ 96 bytes). */
const char *api_kind_gv(const struct api_kind *k, const char *version,
			char *buf, size_t size);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cluster description: every object loaded from manifests (namespaces,
 * nodes, pods, topologies, flavors, queues, workload and pod priority
 * classes, workloads, pod groups and the configuration), with the string
 * table and resource registry they share.
 *
 * Ownership: the cluster owns its objects and their arrays; every string
 * in them is interned in c->strings and lives as long as the cluster.
 *
 * Loading is all-or-nothing per file: a loader decodes a file into a
 * *batch* (cluster_init_batch), which shares the parent's strings and
 * resource registry, and cluster_absorb() then moves the batch into the
 * parent only if none of its names clash. Names are unique per kind:
 * "name" for cluster-scoped kinds, "namespace/name" for namespaced ones.
 */
#ifndef ECHELON_MODEL_CLUSTER_H
#define ECHELON_MODEL_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/hmap.h"
#include "base/idtab.h"
#include "base/intern.h"
#include "base/strbuf.h"
#include "base/vec.h"
#include "model/cluster_queue.h"
#include "model/cohort.h"
#include "model/config.h"
#include "model/flavor.h"
#include "model/local_queue.h"
#include "model/node.h"
#include "model/nspace.h"
#include "model/pod.h"
#include "model/pod_group.h"
#include "model/pod_priority_class.h"
#include "model/priority_class.h"
#include "model/resource.h"
#include "model/topology.h"
#include "model/workload.h"

enum kind {
	KIND_NAMESPACE,
	KIND_NODE,
	KIND_POD,
	KIND_TOPOLOGY,
	KIND_FLAVOR,
	KIND_CLUSTER_QUEUE,
	KIND_COHORT,
	KIND_LOCAL_QUEUE,
	KIND_PRIORITY_CLASS,
	KIND_POD_PRIORITY_CLASS,
	KIND_WORKLOAD,
	KIND_POD_GROUP,
	KIND_CONFIG,
	KIND_COUNT
};

struct cluster {
	struct intern *strings;
	struct resource_registry *resources;

	VEC(struct nspace) namespaces;
	VEC(struct node) nodes;
	VEC(struct pod) pods;
	VEC(struct topology) topologies;
	VEC(struct flavor) flavors;
	VEC(struct cluster_queue) cluster_queues;
	VEC(struct cohort) cohorts;
	VEC(struct local_queue) local_queues;
	VEC(struct priority_class) priority_classes; /* WorkloadPriorityClass */
	VEC(struct pod_priority_class) pod_priority_classes; /* PriorityClass */
	VEC(struct workload) workloads;
	VEC(struct pod_group) pod_groups;
	VEC(struct config) configs; /* at most one */

	/* Slots of removed workloads (cluster_workload_remove()), taken
	 * again by cluster_workload_put(), last freed first. */
	VEC(uint32_t) free_workloads;

	size_t jobs; /* workloads that came from batch/v1 Jobs */
	struct config default_config; /* Kueue's defaults */
	/* Key ("ns/name", "name") -> position in its vector; the keys are
	 * the objects' own (base/idtab.h). */
	struct idtab index[KIND_COUNT];

	/* Storage when this cluster owns the shared tables. */
	bool owns_tables;
	struct intern own_strings;
	struct resource_registry own_resources;
};

/* A cluster with its own string table and resource registry. */
void cluster_init(struct cluster *c);
/* An empty batch sharing parent's tables (parent must outlive it). */
void cluster_init_batch(struct cluster *batch, struct cluster *parent);
void cluster_release(struct cluster *c);

/* The Kubernetes kind of each object kind ("Node", "ResourceFlavor"...). */
const char *kind_name(enum kind k);
/* Number of objects of a kind. */
size_t cluster_count(const struct cluster *c, enum kind k);

/* Intern a string in the cluster's table. */
const char *cluster_str(struct cluster *c, const char *s);

/*
 * Record the key of the object just pushed at the end of its vector.
 * Returns -EEXIST (and records nothing) when the key is already used; the
 * caller reports it and pops the object.
 */
int cluster_index_last(struct cluster *c, enum kind k) MUST_CHECK;

/* The name key of object i of a kind: "name" or "namespace/name". */
void cluster_object_key(const struct cluster *c, enum kind k, size_t i,
			struct strbuf *out);

/* Release and remove the last object of a kind, and its key when the index
 * names it (an object that failed to index leaves the other one there). */
void cluster_pop_last(struct cluster *c, enum kind k);

/*
 * Move every object of batch into c. When a name of batch is already used
 * in c, report each clash in d and move nothing (-EEXIST). batch is empty
 * afterwards either way (objects not moved are released).
 */
int cluster_absorb(struct cluster *c, struct cluster *batch,
		   struct diag *d) MUST_CHECK;

/*
 * Workloads that come and go while the cluster lives (a daemon's): put
 * moves *w (its strings interned in c, but for its name, which may be any
 * string: it is interned here with a reference of its own) into a free
 * slot or at the end, and writes the slot to *ret_slot; *w is zeroed.
 * Returns -EEXIST (w untouched) when the name is taken. A slot keeps its
 * index while its workload lives; after remove it is free (name NULL,
 * workload_live() false) until the next put. Loops over c->workloads
 * skip free slots.
 */
int cluster_workload_put(struct cluster *c, struct workload *w,
			 uint32_t *ret_slot) MUST_CHECK;
void cluster_workload_remove(struct cluster *c, uint32_t slot);
/* The object of slot's workload changed: *w (same namespace and name)
 * takes its place, moved in and zeroed. -EINVAL (w untouched) when the
 * name differs. */
int cluster_workload_replace(struct cluster *c, uint32_t slot,
			     struct workload *w) MUST_CHECK;

/* Objects by name; NULL when absent. ns may be NULL for cluster scope. */
const void *cluster_find(const struct cluster *c, enum kind k, const char *ns,
			 const char *name);

/* The configuration in force: the one loaded, or Kueue's defaults. */
const struct config *cluster_config(const struct cluster *c);

/* Recompute every node's usage from the pods bound to it. Pods bound to
 * unknown nodes are reported as warnings in d (may be NULL). */
void cluster_compute_usage(struct cluster *c, struct diag *d);

/* Warn about references to objects that are not defined: flavors' topology,
 * ClusterQueues' flavors and cohorts, LocalQueues' ClusterQueue,
 * workloads' LocalQueue, WorkloadPriorityClass and pod PriorityClass; and
 * about more than one PriorityClass with globalDefault. */
void cluster_check_refs(const struct cluster *c, struct diag *d);

#endif

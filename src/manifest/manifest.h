/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Manifests: multi-document YAML or JSON files of Kubernetes-style objects
 * (v1 Node and Pod; kueue.x-k8s.io v1beta1/v1beta2 Topology,
 * ResourceFlavor, ClusterQueue, Cohort, LocalQueue, WorkloadPriorityClass,
 * Workload; batch/v1 Job; scheduling.x-k8s.io/v1alpha1 PodGroup;
 * echelon.dev/v1alpha1 Configuration) decoded into a cluster.
 *
 * Every problem is reported in d as "file:line:col: path.to.field: what is
 * wrong"; a file with any error applies nothing to the cluster (it is
 * decoded into a batch first, see cluster.h). Unknown fields are warnings
 * where Kubernetes would accept them. The decoder holds no authority: it
 * only fills the cluster given to it, so it can be fuzzed alone.
 */
#ifndef ECHELON_MANIFEST_H
#define ECHELON_MANIFEST_H

#include <jansson.h>
#include <stddef.h>

#include "base/compiler.h"
#include "base/diag.h"
#include "model/cluster.h"

/* Hard limits on what one input may hold. */
#define MANIFEST_MAX_FILE_BYTES (256u << 20)
#define MANIFEST_MAX_FILES	100000

/*
 * Decode buf (name is used in messages) and absorb it into c.
 * Returns 0, or -EINVAL when any error was reported (c unchanged).
 */
int manifest_load_buffer(struct cluster *c, const char *name, const char *buf,
			 size_t len, struct diag *d) MUST_CHECK;

/*
 * The same for one object already parsed (an object store's JSON): decoded
 * as manifest_load_buffer() decodes its text, without printing and
 * parsing it again. Messages name no line and column (name, then the
 * field's path).
 */
int manifest_load_json(struct cluster *c, const char *name, const json_t *obj,
		       struct diag *d) MUST_CHECK;

/*
 * The requests of a pod whose spec is spec (a stored pod's JSON), as its
 * decoding counts them (containers; init containers and sidecars;
 * overhead; the pods unit): only those fields are decoded, at a fraction
 * of the cost of manifest_load_json() of the whole pod. Resource names
 * new to c are added to its registry. Returns 0, or -EINVAL when they
 * cannot be read (c unchanged).
 */
int manifest_pod_requests(struct cluster *c, const json_t *spec,
			  struct resvec *ret) MUST_CHECK;

/*
 * Load files, and folders recursively (files ending in .yaml, .yml or .json,
 * in name order; "-" is standard input). Each file is all-or-nothing; files
 * without errors are applied even when others fail. A folder entry that
 * cannot be looked at (dangling symlink, loop, no permission) is an error.
 * A file or folder that adds no object is a warning, and input that adds
 * none at all an error (-ENODATA): no verb has anything to work on then.
 * Afterwards node usage is recomputed from the pods
 * (cluster_compute_usage). Returns 0, or -EINVAL when any error was
 * reported, -ENOENT etc. folded into the same messages.
 */
int manifest_load_paths(struct cluster *c, const char *const *paths,
			size_t npaths, struct diag *d) MUST_CHECK;

#endif

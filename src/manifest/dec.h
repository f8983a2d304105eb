/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decoding helpers shared by the manifest decoders: typed access to the
 * fields of a parsed YAML/JSON node with located, path-qualified messages.
 *
 * A decoder keeps the path of the field being decoded ("spec.podSets[0]")
 * and reports every problem as "path: what is wrong" at the line and column
 * of the offending node (or of the enclosing object when a field is
 * missing). Field accessors return 1 when the field was present and
 * decoded, 0 when absent (out-parameters untouched) and -EINVAL when it was
 * wrong (already reported). Strings are interned in the batch's table.
 */
#ifndef ECHELON_MANIFEST_DEC_H
#define ECHELON_MANIFEST_DEC_H

#include "manifest/ytree.h"
#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"
#include "model/cluster.h"

struct dec {
	struct cluster *batch;
	struct diag *d;
	const char *file; /* interned */
	struct strbuf path;
	struct srcpos obj_pos; /* start of the object being decoded */
	bool kueue_v1beta2;    /* apiVersion of the current object */
	bool kueue_v1alpha1;   /* ditto (Cohort and Topology only) */
};

void dec_init(struct dec *x, struct cluster *batch, struct diag *d,
	      const char *file);
void dec_release(struct dec *x);

/* Path handling: push returns the length to restore with dec_pop(). */
size_t dec_push(struct dec *x, const char *field);
size_t dec_push_index(struct dec *x, size_t i);
size_t dec_push_key(struct dec *x, const char *key);
void dec_pop(struct dec *x, size_t len);

/* Where a node starts (the enclosing object when n is NULL). */
struct srcpos dec_pos(const struct dec *x, struct ynode *n);
/* Report "path: msg" at n (the enclosing object when NULL). */
void dec_error(struct dec *x, struct ynode *n, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
void dec_warn(struct dec *x, struct ynode *n, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

/* A field of a mapping, or NULL when absent or null. */
struct ynode *dec_get(struct ynode *map, const char *key);
bool dec_is_null(struct ynode *n);
/* Check the node's type, reporting "must be an object/a list" when not. */
int dec_expect_map(struct dec *x, struct ynode *n) MUST_CHECK;
int dec_expect_seq(struct dec *x, struct ynode *n) MUST_CHECK;

/*
 * Warn about fields of map that are neither in known nor in ignored (both
 * NULL-terminated, either may be NULL). Fields in ignored are accepted
 * silently: they exist in Kubernetes but echelon does not use them.
 */
void dec_check_fields(struct dec *x, struct ynode *map,
		      const char *const *known, const char *const *ignored);

/* Scalars at the current path (n must not be NULL). */
int dec_string(struct dec *x, struct ynode *n, const char **ret) MUST_CHECK;
int dec_int(struct dec *x, struct ynode *n, int64_t min, int64_t max,
	    int64_t *ret) MUST_CHECK;
int dec_bool(struct dec *x, struct ynode *n, bool *ret) MUST_CHECK;
int dec_quantity(struct dec *x, struct ynode *n, int resource,
		 int64_t *ret) MUST_CHECK;
/* A Go duration ("90s", "5m", "1h30m", "1500ns"; duration_parse()) in
 * microseconds, >= 0. */
int dec_duration(struct dec *x, struct ynode *n, int64_t *ret_us) MUST_CHECK;

/* RFC 3339 "2024-05-01T10:00:00Z" (optionally with fraction and offset)
 * into microseconds since the epoch (the embedded clock's instant when a
 * time map is installed: base/timemap.h); -EINVAL when it is not one. */
int dec_parse_time(const char *s, int64_t *ret_us) MUST_CHECK;
/* A field holding such a time; 1 when present, 0 when absent. */
int dec_time_field(struct dec *x, struct ynode *map, const char *key,
		   int64_t *ret_us) MUST_CHECK;

/* Fields of map, with "is required" reported when required and absent. */
int dec_str_field(struct dec *x, struct ynode *map, const char *key,
		  bool required, const char **ret) MUST_CHECK;
int dec_int_field(struct dec *x, struct ynode *map, const char *key,
		  bool required, int64_t min, int64_t max,
		  int64_t *ret) MUST_CHECK;
int dec_bool_field(struct dec *x, struct ynode *map, const char *key,
		   bool *ret) MUST_CHECK;
int dec_duration_field(struct dec *x, struct ynode *map, const char *key,
		       int64_t *ret_us) MUST_CHECK;
/* One of the NULL-terminated names; *ret is its index. */
int dec_enum_field(struct dec *x, struct ynode *map, const char *key,
		   const char *const *names, int *ret) MUST_CHECK;

/* Kubernetes structures used by several kinds. */
int dec_labels(struct dec *x, struct ynode *n, struct labels *out) MUST_CHECK;
/* Annotations: keys are qualified names (in lower case), values any
 * string, at most ANNOTATIONS_MAX_BYTES in all. */
int dec_labels_any(struct dec *x, struct ynode *n,
		   struct labels *out) MUST_CHECK;
int dec_resource_list(struct dec *x, struct ynode *n,
		      struct resvec *out) MUST_CHECK;
int dec_taints(struct dec *x, struct ynode *n, struct taint **ret,
	       size_t *ret_n) MUST_CHECK;
int dec_tolerations(struct dec *x, struct ynode *n, struct toleration **ret,
		    size_t *ret_n) MUST_CHECK;
int dec_label_selector(struct dec *x, struct ynode *n,
		       struct selector *out) MUST_CHECK;
/* nodeAffinity: required terms into out, preferred ones into a new array
 * (*ret_pref, owned by the caller; untouched when there are none). */
int dec_node_affinity(struct dec *x, struct ynode *affinity,
		      struct node_affinity *out,
		      struct preferred_term **ret_pref,
		      size_t *ret_npref) MUST_CHECK;

/* DNS-1123 subdomain (object names) and label (namespaces) checks. */
int dec_check_name(struct dec *x, struct ynode *n, const char *name,
		   bool subdomain) MUST_CHECK;

/* metadata of an object. labels and annotations own their arrays only. */
struct dec_meta {
	const char *name;
	const char *ns;
	struct labels labels;
	struct labels annotations;
	int64_t creation_us;
};

/* Decode root.metadata; name is required, namespace defaults to
 * "default" for namespaced kinds. */
int dec_metadata(struct dec *x, struct ynode *root, bool namespaced,
		 struct dec_meta *m) MUST_CHECK;
void dec_meta_release(struct dec_meta *m);

/* What a pod spec means to the scheduler. Arrays are owned by the caller
 * after a successful decode (podset/pod take them over). */
struct dec_pod_spec {
	struct resvec requests; /* effective, with pods = 1 */
	const char *node_name;
	const char *priority_class; /* spec.priorityClassName; NULL: none */
	int32_t priority;	    /* spec.priority, when has_priority */
	bool has_priority;
	struct labels node_selector;
	struct node_affinity affinity;
	struct preferred_term *preferred;
	size_t npreferred;
	struct toleration *tolerations;
	size_t ntolerations;
};

void dec_pod_spec_init(struct dec_pod_spec *ps);
void dec_pod_spec_release(struct dec_pod_spec *ps);
int dec_pod_spec(struct dec *x, struct ynode *spec,
		 struct dec_pod_spec *out) MUST_CHECK;

/* The decoders of each kind: root is the document's mapping. */
int dec_namespace(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_node(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_pod(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_topology(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_flavor(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_cluster_queue(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_cohort(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_local_queue(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_priority_class(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_pod_priority_class(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_workload(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_job(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_pod_group(struct dec *x, struct ynode *root) MUST_CHECK;
int dec_config(struct dec *x, struct ynode *root) MUST_CHECK;

/*
 * Finish the object just pushed onto its vector: when ok, index it by name
 * (a duplicate within the batch is reported, and the object dropped);
 * otherwise drop it. Returns 0, or -EINVAL when it was dropped.
 */
int dec_commit(struct dec *x, enum kind k, struct ynode *root,
	       bool ok) MUST_CHECK;

#endif

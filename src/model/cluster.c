// SPDX-License-Identifier: Apache-2.0
/*
 * The cluster description: object storage, name indexes, all-or-nothing
 * absorption of a loaded batch, usage from pods, and reference checks.
 *
 * Every kind is stored in a VEC of its own struct. The generic operations
 * (count, key, absorb, release) go through one table that knows, per kind,
 * where its vector sits in struct cluster, the element size, and where the
 * namespace, name and source position sit in the element.
 */
#include "model/cluster.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"

#include "base/banned.h"

/* The common layout of every VEC(T). */
struct raw_vec {
	char *items;
	size_t len;
	size_t cap;
};

typedef void (*release_fn)(void *obj);

struct kind_info {
	const char *name;
	size_t vec_off;
	size_t size;
	ssize_t ns_off;	  /* -1: cluster-scoped */
	ssize_t name_off; /* -1: singleton */
	size_t pos_off;
	release_fn release;
};

static void release_nspace(void *o)
{
	nspace_release(o);
}

static void release_node(void *o)
{
	node_release(o);
}

static void release_pod(void *o)
{
	pod_release(o);
}

static void release_flavor(void *o)
{
	flavor_release(o);
}

static void release_cq(void *o)
{
	cluster_queue_release(o);
}

static void release_cohort(void *o)
{
	cohort_release(o);
}

static void release_workload(void *o)
{
	workload_release(o);
}

#define KIND(kname, field, T, ns, nm, rel)                                     \
	{                                                                      \
		.name = kname, .vec_off = offsetof(struct cluster, field),     \
		.size = sizeof(T), .ns_off = ns, .name_off = nm,               \
		.pos_off = offsetof(T, pos), .release = rel,                   \
	}
#define NS(T)	((ssize_t)offsetof(T, ns))
#define NAME(T) ((ssize_t)offsetof(T, name))

static const struct kind_info kinds[KIND_COUNT] = {
	[KIND_NAMESPACE] = KIND("Namespace", namespaces, struct nspace, -1,
				NAME(struct nspace), release_nspace),
	[KIND_NODE] = KIND("Node", nodes, struct node, -1, NAME(struct node),
			   release_node),
	[KIND_POD] = KIND("Pod", pods, struct pod, NS(struct pod),
			  NAME(struct pod), release_pod),
	[KIND_TOPOLOGY] = KIND("Topology", topologies, struct topology, -1,
			       NAME(struct topology), NULL),
	[KIND_FLAVOR] = KIND("ResourceFlavor", flavors, struct flavor, -1,
			     NAME(struct flavor), release_flavor),
	[KIND_CLUSTER_QUEUE] =
		KIND("ClusterQueue", cluster_queues, struct cluster_queue, -1,
		     NAME(struct cluster_queue), release_cq),
	[KIND_COHORT] = KIND("Cohort", cohorts, struct cohort, -1,
			     NAME(struct cohort), release_cohort),
	[KIND_LOCAL_QUEUE] =
		KIND("LocalQueue", local_queues, struct local_queue,
		     NS(struct local_queue), NAME(struct local_queue), NULL),
	[KIND_PRIORITY_CLASS] = KIND("WorkloadPriorityClass", priority_classes,
				     struct priority_class, -1,
				     NAME(struct priority_class), NULL),
	[KIND_POD_PRIORITY_CLASS] = KIND("PriorityClass", pod_priority_classes,
					 struct pod_priority_class, -1,
					 NAME(struct pod_priority_class), NULL),
	[KIND_WORKLOAD] = KIND("Workload", workloads, struct workload,
			       NS(struct workload), NAME(struct workload),
			       release_workload),
	[KIND_POD_GROUP] =
		KIND("PodGroup", pod_groups, struct pod_group,
		     NS(struct pod_group), NAME(struct pod_group), NULL),
	[KIND_CONFIG] =
		KIND("Configuration", configs, struct config, -1, -1, NULL),
};

static struct raw_vec *vec_of(struct cluster *c, enum kind k)
{
	return (struct raw_vec *)((char *)c + kinds[k].vec_off);
}

static const struct raw_vec *cvec_of(const struct cluster *c, enum kind k)
{
	return (const struct raw_vec *)((const char *)c + kinds[k].vec_off);
}

static void *elem(const struct raw_vec *v, enum kind k, size_t i)
{
	return v->items + i * kinds[k].size;
}

static const char *field_str(const void *obj, ssize_t off)
{
	return off < 0 ? NULL : *(const char *const *)((const char *)obj + off);
}

static const struct srcpos *pos_of(const void *obj, enum kind k)
{
	return (const struct srcpos *)((const char *)obj + kinds[k].pos_off);
}

/* "ns/name", "name", or "" for the singleton kind. */
static void key_of(struct strbuf *sb, enum kind k, const char *ns,
		   const char *name)
{
	strbuf_reset(sb);
	if (kinds[k].ns_off >= 0) {
		strbuf_addstr(sb, ns ? ns : "default");
		strbuf_addch(sb, '/');
	}
	if (name)
		strbuf_addstr(sb, name);
}

static void obj_key(struct strbuf *sb, enum kind k, const void *obj)
{
	key_of(sb, k, field_str(obj, kinds[k].ns_off),
	       field_str(obj, kinds[k].name_off));
}

/*
 * A key sought in the index of kind k over vector v: the parts of
 * key_of(), compared with each object's own fields, and its hash (that of
 * key_of()'s string), so that the index needs no copy of the keys.
 */
struct probe {
	const struct raw_vec *v;
	enum kind k;
	const char *ns;	  /* NULL: "default" (namespaced kinds) */
	const char *name; /* NULL: "" */
	uint64_t hash;
};

static void probe_init(struct probe *p, const struct raw_vec *v, enum kind k,
		       const char *ns, const char *name)
{
	uint64_t h = hmap_hash(NULL, 0);

	p->v = v;
	p->k = k;
	p->ns = ns ? ns : "default";
	p->name = name ? name : "";
	if (kinds[k].ns_off >= 0) {
		h = hmap_hash_more(h, p->ns, strlen(p->ns));
		h = hmap_hash_more(h, "/", 1);
	}
	p->hash = hmap_hash_more(h, p->name, strlen(p->name));
}

/* The probe of obj's own key. */
static void probe_obj(struct probe *p, const struct raw_vec *v, enum kind k,
		      const void *obj)
{
	probe_init(p, v, k, field_str(obj, kinds[k].ns_off),
		   field_str(obj, kinds[k].name_off));
}

static bool same_key(const void *ctx, uint32_t id)
{
	const struct probe *p = ctx;
	const void *obj = elem(p->v, p->k, id);
	const char *ns = field_str(obj, kinds[p->k].ns_off);
	const char *name = field_str(obj, kinds[p->k].name_off);

	if (kinds[p->k].ns_off >= 0 && strcmp(p->ns, ns ? ns : "default"))
		return false;
	return strcmp(p->name, name ? name : "") == 0;
}

/* The position of p's key in c's index of its kind, or IDTAB_NONE. */
static uint32_t index_find(const struct cluster *c, const struct probe *p)
{
	return idtab_find(&c->index[p->k], p->hash, same_key, p);
}

static void init_common(struct cluster *c)
{
	for (int k = 0; k < KIND_COUNT; k++) {
		struct raw_vec *v = vec_of(c, (enum kind)k);

		v->items = NULL;
		v->len = v->cap = 0;
		idtab_init(&c->index[k]);
	}
	c->jobs = 0;
	config_init(&c->default_config);
}

void cluster_init(struct cluster *c)
{
	memset(c, 0, sizeof(*c));
	c->owns_tables = true;
	intern_init(&c->own_strings);
	resource_registry_init(&c->own_resources);
	c->strings = &c->own_strings;
	c->resources = &c->own_resources;
	init_common(c);
}

void cluster_init_batch(struct cluster *batch, struct cluster *parent)
{
	memset(batch, 0, sizeof(*batch));
	batch->strings = parent->strings;
	batch->resources = parent->resources;
	init_common(batch);
}

static void release_objects(struct cluster *c)
{
	for (int k = 0; k < KIND_COUNT; k++) {
		struct raw_vec *v = vec_of(c, (enum kind)k);

		for (size_t i = 0; kinds[k].release && i < v->len; i++)
			kinds[k].release(elem(v, (enum kind)k, i));
		free(v->items);
		v->items = NULL;
		v->len = v->cap = 0;
		idtab_release(&c->index[k]);
	}
}

void cluster_release(struct cluster *c)
{
	if (!c)
		return;
	release_objects(c);
	vec_release(&c->free_workloads);
	if (c->owns_tables) {
		intern_release(&c->own_strings);
		resource_registry_release(&c->own_resources);
	}
	memset(c, 0, sizeof(*c));
}

const char *kind_name(enum kind k)
{
	return k < KIND_COUNT ? kinds[k].name : "?";
}

size_t cluster_count(const struct cluster *c, enum kind k)
{
	return cvec_of(c, k)->len;
}

const char *cluster_str(struct cluster *c, const char *s)
{
	return s ? intern_str(c->strings, s) : NULL;
}

int cluster_index_last(struct cluster *c, enum kind k)
{
	struct raw_vec *v = vec_of(c, k);
	struct probe p;

	BUG_ON(v->len == 0 || v->len - 1 >= IDTAB_NONE);
	probe_obj(&p, v, k, elem(v, k, v->len - 1));
	if (index_find(c, &p) != IDTAB_NONE)
		return -EEXIST;
	idtab_add(&c->index[k], p.hash, (uint32_t)(v->len - 1));
	return 0;
}

void cluster_object_key(const struct cluster *c, enum kind k, size_t i,
			struct strbuf *out)
{
	const struct raw_vec *v = cvec_of(c, k);

	BUG_ON(i >= v->len);
	obj_key(out, k, elem(v, k, i));
}

void cluster_pop_last(struct cluster *c, enum kind k)
{
	struct raw_vec *v = vec_of(c, k);
	struct probe p;

	BUG_ON(v->len == 0);
	probe_obj(&p, v, k, elem(v, k, v->len - 1));
	if (index_find(c, &p) == v->len - 1)
		idtab_del(&c->index[k], p.hash, (uint32_t)(v->len - 1));
	v->len--;
	if (kinds[k].release)
		kinds[k].release(elem(v, k, v->len));
}

int cluster_workload_put(struct cluster *c, struct workload *w,
			 uint32_t *ret_slot)
{
	struct probe p;
	uint32_t slot;

	probe_init(&p, vec_of(c, KIND_WORKLOAD), KIND_WORKLOAD, w->ns, w->name);
	if (index_find(c, &p) != IDTAB_NONE)
		return -EEXIST;
	w->name = intern_str_counted(c->strings, w->name);
	if (c->free_workloads.len) {
		slot = vec_pop(&c->free_workloads);
		c->workloads.items[slot] = *w;
	} else {
		BUG_ON(c->workloads.len >= IDTAB_NONE);
		slot = (uint32_t)c->workloads.len;
		vec_push(&c->workloads, *w);
	}
	idtab_add(&c->index[KIND_WORKLOAD], p.hash, slot);
	memset(w, 0, sizeof(*w));
	*ret_slot = slot;
	return 0;
}

int cluster_workload_replace(struct cluster *c, uint32_t slot,
			     struct workload *w)
{
	struct workload *old;

	BUG_ON(slot >= c->workloads.len);
	old = &c->workloads.items[slot];
	BUG_ON(!workload_live(old));
	if (!w->name || strcmp(w->name, old->name) != 0 ||
	    strcmp(w->ns ? w->ns : "default", old->ns ? old->ns : "default"))
		return -EINVAL;
	w->name = old->name; /* the slot's counted reference */
	w->ns = old->ns;
	old->name = NULL; /* not released twice */
	workload_release(old);
	*old = *w;
	memset(w, 0, sizeof(*w));
	return 0;
}

void cluster_workload_remove(struct cluster *c, uint32_t slot)
{
	struct workload *w;
	struct probe p;

	BUG_ON(slot >= c->workloads.len);
	w = &c->workloads.items[slot];
	BUG_ON(!workload_live(w));
	probe_obj(&p, vec_of(c, KIND_WORKLOAD), KIND_WORKLOAD, w);
	BUG_ON(!idtab_del(&c->index[KIND_WORKLOAD], p.hash, slot));
	intern_unref(c->strings, w->name);
	workload_release(w); /* zeroes it: name NULL */
	vec_push(&c->free_workloads, slot);
}

const void *cluster_find(const struct cluster *c, enum kind k, const char *ns,
			 const char *name)
{
	const struct raw_vec *v = cvec_of(c, k);
	struct probe p;
	uint32_t i;

	probe_init(&p, v, k, ns, name);
	i = index_find(c, &p);
	return i == IDTAB_NONE ? NULL : elem(v, k, i);
}

static size_t report_clashes(struct cluster *c, struct cluster *batch,
			     struct diag *d)
{
	struct strbuf sb;
	size_t clashes = 0;
	struct probe p;
	uint32_t i;

	strbuf_init(&sb);
	for (int k = 0; k < KIND_COUNT; k++) {
		struct raw_vec *bv = vec_of(batch, (enum kind)k);

		if (c->index[k].len == 0)
			continue; /* nothing here to clash with */
		for (size_t j = 0; j < bv->len; j++) {
			const void *obj = elem(bv, (enum kind)k, j);
			const struct srcpos *prev;

			probe_obj(&p, vec_of(c, (enum kind)k), (enum kind)k,
				  obj);
			i = index_find(c, &p);
			if (i == IDTAB_NONE)
				continue;
			obj_key(&sb, (enum kind)k, obj);
			prev = pos_of(
				elem(vec_of(c, (enum kind)k), (enum kind)k, i),
				(enum kind)k);
			diag_at(d, DIAG_ERROR, pos_of(obj, (enum kind)k),
				"metadata.name: %s \"%s\" is already defined "
				"at %s:%d:%d",
				kinds[k].name, k == KIND_CONFIG ? "" : sb.buf,
				prev->file ? prev->file : "?", prev->line,
				prev->col);
			clashes++;
		}
	}
	strbuf_release(&sb);
	return clashes;
}

int cluster_absorb(struct cluster *c, struct cluster *batch, struct diag *d)
{
	int rc = 0;

	BUG_ON(batch->strings != c->strings);
	if (report_clashes(c, batch, d)) {
		rc = -EEXIST;
		goto out;
	}
	for (int k = 0; k < KIND_COUNT; k++) {
		struct raw_vec *v = vec_of(c, (enum kind)k);
		struct raw_vec *bv = vec_of(batch, (enum kind)k);

		if (v->len == 0) {
			/* Nothing here yet: take the batch's storage whole. */
			struct raw_vec tv = *v;
			struct idtab tm = c->index[k];

			*v = *bv;
			*bv = tv;
			c->index[k] = batch->index[k];
			batch->index[k] = tm;
			continue;
		}
		for (size_t j = 0; j < bv->len; j++) {
			size_t need = v->len + 1;

			if (need > v->cap) {
				v->cap = v->cap ? v->cap * 2 : 8;
				v->items = xreallocarray(v->items, v->cap,
							 kinds[k].size);
			}
			memcpy(elem(v, (enum kind)k, v->len),
			       elem(bv, (enum kind)k, j), kinds[k].size);
			v->len++;
			BUG_ON(cluster_index_last(c, (enum kind)k) < 0);
		}
		bv->len = 0; /* moved: nothing left to release */
	}
	c->jobs += batch->jobs;
out:
	release_objects(batch);
	init_common(batch);
	return rc;
}

const struct config *cluster_config(const struct cluster *c)
{
	return c->configs.len ? &c->configs.items[0] : &c->default_config;
}

void cluster_compute_usage(struct cluster *c, struct diag *d)
{
	vec_foreach (&c->nodes, n)
		resvec_zero(&n->usage);
	vec_foreach (&c->pods, p) {
		struct node *n;

		if (!pod_holds_resources(p))
			continue;
		n = (struct node *)cluster_find(c, KIND_NODE, NULL,
						p->node_name);
		if (n)
			resvec_add(&n->usage, &p->requests);
		else if (d)
			diag_at(d, DIAG_WARNING, &p->pos,
				"spec.nodeName: node \"%s\" is not defined; "
				"the pod's usage is not counted",
				p->node_name);
	}
}

static void check_ref(const struct cluster *c, struct diag *d,
		      const struct srcpos *pos, const char *field, enum kind k,
		      const char *ns, const char *name)
{
	if (name && !cluster_find(c, k, ns, name))
		diag_at(d, DIAG_WARNING, pos, "%s: %s \"%s\" is not defined",
			field, kinds[k].name, name);
}

/* Kubernetes admits one global default PriorityClass; should a race let
 * in more, pods get the lowest value (the priority admission plugin). */
static void check_global_default(const struct cluster *c, struct diag *d)
{
	const struct pod_priority_class *first = NULL;

	vec_foreach (&c->pod_priority_classes, pc) {
		if (!pc->global_default)
			continue;
		if (first)
			diag_at(d, DIAG_WARNING, &pc->pos,
				"globalDefault: PriorityClass \"%s\" is "
				"also the global default; the lowest value "
				"counts",
				first->name);
		else
			first = pc;
	}
}

void cluster_check_refs(const struct cluster *c, struct diag *d)
{
	vec_foreach (&c->flavors, f)
		check_ref(c, d, &f->pos, "spec.topologyName", KIND_TOPOLOGY,
			  NULL, f->topology_name);
	vec_foreach (&c->cluster_queues, cq) {
		for (size_t g = 0; g < cq->ngroups; g++) {
			const struct resource_group *rg = &cq->groups[g];

			for (size_t f = 0; f < rg->nflavors; f++)
				check_ref(c, d, &cq->pos,
					  "spec.resourceGroups.flavors.name",
					  KIND_FLAVOR, NULL,
					  rg->flavors[f].flavor);
		}
	}
	vec_foreach (&c->local_queues, lq)
		check_ref(c, d, &lq->pos, "spec.clusterQueue",
			  KIND_CLUSTER_QUEUE, NULL, lq->cluster_queue);
	vec_foreach (&c->workloads, w) {
		int32_t v;

		check_ref(c, d, &w->pos, "spec.queueName", KIND_LOCAL_QUEUE,
			  w->ns, w->queue_name);
		check_ref(c, d, &w->pos, "spec.priorityClassName",
			  KIND_PRIORITY_CLASS, NULL, w->priority_class_name);
		if (!pod_priority_class_builtin(w->pod_priority_class_name, &v))
			check_ref(c, d, &w->pos,
				  w->from_job ? "spec.template.spec."
						"priorityClassName"
					      : "spec.podSets.template.spec."
						"priorityClassName",
				  KIND_POD_PRIORITY_CLASS, NULL,
				  w->pod_priority_class_name);
	}
	check_global_default(c, d);
}

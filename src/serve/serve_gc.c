// SPDX-License-Identifier: Apache-2.0
/*
 * Garbage collection by ownerReferences, as Kubernetes' garbage collector
 * does it:
 *
 *  - an index from each owner uid to the dependents that name it, fed by
 *    every change the cluster reads (checked again on use, so stale
 *    entries cost nothing but a lookup);
 *  - background: when an owner is gone (deleted, or absent when its
 *    dependent is seen), a dependent with no other live owner is deleted;
 *    one with other live owners loses the dangling references;
 *  - foregroundDeletion (the API's DELETE with propagationPolicy
 *    Foreground): the dependents are deleted first (those with dependents
 *    of their own go through foreground deletion too), then the finalizer
 *    comes off and the owner goes;
 *  - orphan: the dependents lose their references to the owner, then the
 *    finalizer comes off.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "serve/serve_cluster_int.h"

#include "base/banned.h"

void cl_gc_index(struct serve_cluster *c, const struct api_kind *k,
		 const json_t *obj)
{
	size_t i;
	json_t *ref;

	json_array_foreach(cl_get(obj, "metadata.ownerReferences"), i, ref)
	{
		const char *owner = cl_str(ref, "uid");

		if (!owner || !*owner)
			continue;
		cl_index_add(&c->owned, owner, k, obj);
		if (!api_store_find_uid(c->s, owner))
			cl_keyset_add(&c->gone, owner);
	}
}

static bool names_owner(const json_t *obj, const char *owner)
{
	size_t i;
	json_t *ref;

	json_array_foreach(cl_get(obj, "metadata.ownerReferences"), i, ref)
	{
		const char *u = cl_str(ref, "uid");

		if (u && strcmp(u, owner) == 0)
			return true;
	}
	return false;
}

void cl_gc_dependents(struct serve_cluster *c, const char *owner_uid,
		      struct cl_refs *out)
{
	cl_index_get(&c->owned, c->s, owner_uid, names_owner, out);
}

/* obj without its references to owners that are gone (all when
 * owner is non-NULL: only those to owner). */
static json_t *without_refs(struct serve_cluster *c, const json_t *obj,
			    const char *owner, size_t *ret_left)
{
	json_t *body = json_deep_copy(obj);
	json_t *meta = json_object_get(body, "metadata");
	json_t *refs = json_object_get(meta, "ownerReferences");

	for (size_t i = 0; i < json_array_size(refs);) {
		const char *u = cl_str(json_array_get(refs, i), "uid");
		bool drop = owner ? u && strcmp(u, owner) == 0
				  : !u || !api_store_find_uid(c->s, u);

		if (drop)
			json_array_remove(refs, i);
		else
			i++;
	}
	*ret_left = json_array_size(refs);
	if (refs && !*ret_left)
		json_object_del(meta, "ownerReferences");
	return body;
}

void cl_gc_collect(struct serve_cluster *c, const char *uid, int64_t now_us)
{
	struct cl_refs deps = { 0 };

	if (api_store_find_uid(c->s, uid))
		return;
	cl_jobs_forget(c, uid);
	cl_gc_dependents(c, uid, &deps);
	vec_foreach (&deps, r) {
		const struct api_obj *o =
			api_store_get(c->s, r->kind, r->ns, r->name);
		size_t left;
		json_t *body;

		if (!o || strcmp(o->uid, r->uid) != 0)
			continue;
		body = without_refs(c, o->body, NULL, &left);
		if (left) {
			(void)cl_update(c, o, body, now_us);
			continue;
		}
		json_decref(body);
		(void)cl_delete(c, o, now_us);
		if (r->kind == c->pod_k) {
			/* Marked before (no change to read): the pod's
			 * tracking finalizer is the Job controller's to
			 * drop now that its Job is gone. */
			char key[512];

			snprintf(key, sizeof(key), "%s/%s", r->ns, r->name);
			cl_keyset_add(&c->pods, key);
		}
	}
	cl_refs_release(&deps);
	cl_index_forget(&c->owned, uid);
}

/* Foreground: delete the dependents; true when none is left. */
static bool foreground(struct serve_cluster *c, const char *uid, int64_t now_us)
{
	struct cl_refs deps = { 0 };
	size_t waiting = 0;

	cl_gc_dependents(c, uid, &deps);
	vec_foreach (&deps, r) {
		const struct api_obj *o =
			api_store_get(c->s, r->kind, r->ns, r->name);
		struct cl_refs sub = { 0 };

		if (!o || strcmp(o->uid, r->uid) != 0)
			continue;
		cl_gc_dependents(c, o->uid, &sub);
		if (!sub.len) {
			(void)cl_delete(c, o, now_us);
		} else if (!cl_has_finalizer(o->body, CL_FG_FINALIZER)) {
			json_t *body = json_deep_copy(o->body);
			json_t *meta = cl_obj(body, "metadata");

			if (!cl_deleting(body))
				json_object_set_new(meta, "deletionTimestamp",
						    cl_jtime(now_us));
			json_array_append_new(cl_arr(meta, "finalizers"),
					      json_string(CL_FG_FINALIZER));
			(void)cl_update(c, o, body, now_us);
			waiting++;
		} else {
			waiting++;
		}
		cl_refs_release(&sub);
	}
	cl_refs_release(&deps);
	return waiting == 0;
}

void cl_gc_owner(struct serve_cluster *c, const char *uid, int64_t now_us)
{
	const struct api_obj *o = api_store_find_uid(c->s, uid);
	struct cl_refs deps = { 0 };
	char *u;

	if (!o || !cl_deleting(o->body))
		return;
	u = xstrdup(uid);
	if (cl_has_finalizer(o->body, CL_ORPHAN_FINALIZ)) {
		cl_gc_dependents(c, u, &deps);
		vec_foreach (&deps, r) {
			const struct api_obj *d =
				api_store_get(c->s, r->kind, r->ns, r->name);
			size_t left;

			if (d && strcmp(d->uid, r->uid) == 0)
				(void)cl_update(
					c, d,
					without_refs(c, d->body, u, &left),
					now_us);
		}
		cl_refs_release(&deps);
		o = api_store_find_uid(c->s, u);
		if (o)
			(void)cl_release_finalizer(c, o, CL_ORPHAN_FINALIZ,
						   now_us);
	} else if (cl_has_finalizer(o->body, CL_FG_FINALIZER) &&
		   foreground(c, u, now_us)) {
		o = api_store_find_uid(c->s, u);
		if (o)
			(void)cl_release_finalizer(c, o, CL_FG_FINALIZER,
						   now_us);
	}
	free(u);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Two-way patches of the outbox: the member-by-member difference of two
 * versions of an object, in the dialect of the patch type the API server
 * applies it with (see kube_diff.h).
 */
#include "kube/kube_diff.h"

#include <string.h>

#include "api/api_patch.h"
#include "base/strbuf.h"

#include "base/banned.h"

static json_t *diff_object(const json_t *old, const json_t *new,
			   bool strategic);

/* The element of list a whose key field equals v's, or NULL. */
static const json_t *keyed_find(const json_t *a, const char *key,
				const json_t *v)
{
	const json_t *e;
	size_t i;

	json_array_foreach(a, i, e)
	{
		const json_t *kv = json_object_get(e, key);

		if (kv && json_equal(kv, v))
			return e;
	}
	return NULL;
}

/* Whether every element of a is an object carrying key. */
static bool keyed_ok(const json_t *a, const char *key)
{
	const json_t *e;
	size_t i;

	json_array_foreach(a, i, e) if (!json_object_get(e, key)) return false;
	return true;
}

/* A keyed list: the changed elements (each with its key), the new ones
 * whole, the removed ones as $patch: delete. NULL when none changed. */
static json_t *diff_keyed(const json_t *old, const json_t *new, const char *key)
{
	json_t *out = json_array();
	const json_t *e;
	size_t i;

	json_array_foreach(new, i, e)
	{
		const json_t *kv = json_object_get(e, key);
		const json_t *was = keyed_find(old, key, kv);
		json_t *d;

		if (!was) {
			json_array_append(out, (json_t *)e);
			continue;
		}
		d = diff_object(was, e, true);
		if (!d)
			continue;
		json_object_set(d, key, (json_t *)kv);
		json_array_append_new(out, d);
	}
	json_array_foreach(old, i, e)
	{
		const json_t *kv = json_object_get(e, key);

		if (!keyed_find(new, key, kv))
			json_array_append_new(out,
					      json_pack("{sOss}", key, kv,
							"$patch", "delete"));
	}
	if (!json_array_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static bool in_list(const json_t *a, const json_t *v)
{
	const json_t *e;
	size_t i;

	json_array_foreach(a, i, e) if (json_equal(e, v)) return true;
	return false;
}

/* One member k of a strategic patch: old (may be NULL) to new. */
static void diff_member(json_t *out, const char *k, const json_t *old,
			const json_t *new, bool strategic)
{
	const char *key = NULL;
	enum api_patch_list how = API_PATCH_LIST_REPLACE;
	json_t *d;

	if (old && json_equal(old, new))
		return;
	if (strategic && json_is_array(old) && json_is_array(new))
		how = api_patch_list_of(k, &key);
	if (how == API_PATCH_LIST_KEYED && keyed_ok(old, key) &&
	    keyed_ok(new, key)) {
		d = diff_keyed(old, new, key);
		if (d)
			json_object_set_new(out, k, d);
		return;
	}
	if (how == API_PATCH_LIST_SET) {
		json_t *gone = json_array();
		const json_t *e;
		size_t i;

		json_array_foreach(old, i, e) if (!in_list(new, e))
			json_array_append(gone, (json_t *)e);
		json_object_set(out, k, (json_t *)new);
		if (json_array_size(gone)) {
			struct strbuf name;

			strbuf_init(&name);
			strbuf_addf(&name, "$deleteFromPrimitiveList/%s", k);
			json_object_set(out, name.buf, gone);
			strbuf_release(&name);
		}
		json_decref(gone);
		return;
	}
	if (json_is_object(old) && json_is_object(new)) {
		d = diff_object(old, new, strategic);
		if (d)
			json_object_set_new(out, k, d);
		return;
	}
	json_object_set(out, k, (json_t *)new);
}

static json_t *diff_object(const json_t *old, const json_t *new, bool strategic)
{
	json_t *out = json_object();
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)old, k, v) if (!json_object_get(new, k))
		json_object_set_new(out, k, json_null());
	json_object_foreach((json_t *)new, k, v)
		diff_member(out, k, json_object_get(old, k), v, strategic);
	if (!json_object_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *kube_diff_values(const json_t *old, const json_t *new, bool strategic)
{
	if (json_is_object(old) && json_is_object(new))
		return diff_object(old, new, strategic);
	if (!new)
		return old ? json_null() : NULL;
	if (old && json_equal(old, new))
		return NULL;
	return json_incref((json_t *)new);
}

/* The members of obj a write of part may change, sharing obj's values. */
static json_t *part_of(const json_t *obj, enum kube_diff_part part)
{
	static const char *const meta_keys[] = { "labels", "annotations",
						 "finalizers" };
	json_t *out = json_object(), *meta;
	const json_t *m = json_object_get(obj, "metadata");
	const char *k;
	json_t *v;

	if (!json_is_object(obj))
		return out;
	if (part == KUBE_DIFF_STATUS) {
		v = json_object_get(obj, "status");
		if (v)
			json_object_set(out, "status", v);
		return out;
	}
	json_object_foreach((json_t *)obj, k, v)
	{
		if (!strcmp(k, "apiVersion") || !strcmp(k, "kind") ||
		    !strcmp(k, "metadata"))
			continue;
		if (part == KUBE_DIFF_OBJECT && !strcmp(k, "status"))
			continue;
		json_object_set(out, k, v);
	}
	meta = json_object();
	for (size_t i = 0; i < sizeof(meta_keys) / sizeof(*meta_keys); i++) {
		v = json_object_get(m, meta_keys[i]);
		if (v)
			json_object_set(meta, meta_keys[i], v);
	}
	/* Always there, so labels removed are nulls inside it. */
	json_object_set_new(out, "metadata", meta);
	return out;
}

json_t *kube_diff(const json_t *old, const json_t *new, bool strategic,
		  enum kube_diff_part part)
{
	json_t *a = part_of(old, part), *b = part_of(new, part);
	json_t *d = diff_object(a, b, strategic);

	json_decref(a);
	json_decref(b);
	return d;
}

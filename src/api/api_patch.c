// SPDX-License-Identifier: Apache-2.0
/*
 * The four patch kinds, each applied to a deep copy of the stored object
 * so that a patch that fails leaves nothing half-applied.
 *
 * Strategic merge knows lists by their field name, as the Kubernetes
 * types declare them (conditions merge by type, containers by name,
 * finalizers as a set, tolerations are replaced whole...): the served
 * built-in kinds and the pod templates Kueue's kinds embed use these
 * names with one meaning each. Apply patches are merged the same way,
 * which keeps what other writers set in keyed lists (conditions above
 * all) as server-side apply would, without field ownership.
 */
#include "api/api_patch.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "base/text.h"
#include "manifest/ytree.h"

#include "base/banned.h"

/* Nesting beyond this is refused (the request decoder bounds it too). */
#define MAX_DEPTH 128

int api_patch_type_of(const char *content_type)
{
	static const char *const types[API_PATCH_TYPE_COUNT] = {
		[API_PATCH_MERGE] = "application/merge-patch+json",
		[API_PATCH_JSON] = "application/json-patch+json",
		[API_PATCH_STRATEGIC] =
			"application/strategic-merge-patch+json",
		[API_PATCH_APPLY] = "application/apply-patch+yaml",
	};
	size_t n;

	if (!content_type)
		return -1;
	while (*content_type == ' ' || *content_type == '\t')
		content_type++;
	n = strcspn(content_type, ";");
	while (n && (content_type[n - 1] == ' ' || content_type[n - 1] == '\t'))
		n--;
	for (int t = 0; t < API_PATCH_TYPE_COUNT; t++)
		if (strlen(types[t]) == n &&
		    strncasecmp(types[t], content_type, n) == 0)
			return t;
	return -1;
}

/* ---- JSON merge patch (RFC 7386) ---- */

static json_t *merge(json_t *target, const json_t *patch)
{
	const char *key;
	json_t *v;

	if (!json_is_object(patch)) {
		json_decref(target);
		return json_deep_copy(patch);
	}
	if (!json_is_object(target)) {
		json_decref(target);
		target = json_object();
	}
	json_object_foreach((json_t *)patch, key, v)
	{
		if (json_is_null(v)) {
			json_object_del(target, key);
			continue;
		}
		json_t *old = json_incref(json_object_get(target, key));

		json_object_set_new(target, key, merge(old, v));
	}
	return target;
}

/* ---- JSON patch (RFC 6902) ---- */

/* JSON values equal as RFC 6902's test defines it: numbers by value,
 * objects whatever their member order. */
static bool same(const json_t *a, const json_t *b)
{
	if (json_is_number(a) && json_is_number(b)) {
		if (json_is_integer(a) && json_is_integer(b))
			return json_integer_value(a) == json_integer_value(b);
		return json_number_value(a) == json_number_value(b);
	}
	if (json_typeof(a) != json_typeof(b))
		return false;
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!same(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	if (json_is_object(a)) {
		const char *key;
		json_t *v;

		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_foreach((json_t *)a, key, v)
		{
			if (!same(v, json_object_get(b, key)))
				return false;
		}
		return true;
	}
	return json_equal((json_t *)a, (json_t *)b);
}

/* A parsed JSON pointer (RFC 6901): its unescaped reference tokens. */
struct pointer {
	char **tok;
	size_t n;
};

static void pointer_release(struct pointer *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->tok[i]);
	free(p->tok);
	p->tok = NULL;
	p->n = 0;
}

static int pointer_parse(const char *s, struct pointer *p, struct errbuf *err)
{
	struct strbuf tok;
	size_t cap = 0;

	p->tok = NULL;
	p->n = 0;
	if (*s && *s != '/')
		return errbuf_set(err, -EINVAL,
				  "\"%s\" is not a JSON pointer: it must be "
				  "empty or start with \"/\"",
				  s);
	strbuf_init(&tok);
	while (*s == '/') {
		s++;
		for (; *s && *s != '/'; s++) {
			if (*s != '~') {
				strbuf_addch(&tok, *s);
			} else if (s[1] == '0' || s[1] == '1') {
				strbuf_addch(&tok, s[1] == '0' ? '~' : '/');
				s++;
			} else {
				strbuf_release(&tok);
				pointer_release(p);
				return errbuf_set(err, -EINVAL,
						  "\"~\" must be followed by "
						  "\"0\" or \"1\" in a JSON "
						  "pointer");
			}
		}
		if (p->n == cap) {
			cap = cap ? 2 * cap : 8;
			p->tok = xreallocarray(p->tok, cap, sizeof(*p->tok));
		}
		p->tok[p->n++] = strbuf_take(&tok);
	}
	strbuf_release(&tok);
	return 0;
}

/* An array index token: digits without a leading zero; -1 otherwise.
 * "-" (past the end) is handled by the callers that allow it. */
static long array_index(const char *t)
{
	long v = 0;

	if (!*t || (t[0] == '0' && t[1]) || strlen(t) > 9)
		return -1;
	for (; *t; t++) {
		if (!isdigit((unsigned char)*t))
			return -1;
		v = v * 10 + (*t - '0');
	}
	return v;
}

/* The value the first n tokens of p designate in doc, or NULL. */
static json_t *pointer_get(json_t *doc, const struct pointer *p, size_t n)
{
	for (size_t i = 0; doc && i < n; i++) {
		if (json_is_object(doc)) {
			doc = json_object_get(doc, p->tok[i]);
		} else if (json_is_array(doc)) {
			long idx = array_index(p->tok[i]);

			doc = idx < 0 ? NULL : json_array_get(doc, (size_t)idx);
		} else {
			doc = NULL;
		}
	}
	return doc;
}

/* Add value (stolen) at p in *doc. */
static int op_add(json_t **doc, const struct pointer *p, json_t *value,
		  struct errbuf *err)
{
	json_t *parent;
	const char *last;
	long idx;

	if (p->n == 0) {
		json_decref(*doc);
		*doc = value;
		return 0;
	}
	parent = pointer_get(*doc, p, p->n - 1);
	last = p->tok[p->n - 1];
	if (json_is_object(parent)) {
		json_object_set_new(parent, last, value);
		return 0;
	}
	if (json_is_array(parent)) {
		if (strcmp(last, "-") == 0) {
			json_array_append_new(parent, value);
			return 0;
		}
		idx = array_index(last);
		if (idx >= 0 && (size_t)idx <= json_array_size(parent)) {
			json_array_insert_new(parent, (size_t)idx, value);
			return 0;
		}
		json_decref(value);
		return errbuf_set(err, -EINVAL,
				  "index \"%s\" is out of bounds (the array "
				  "has %zu elements)",
				  last, json_array_size(parent));
	}
	json_decref(value);
	return errbuf_set(err, -EINVAL,
			  parent ? "the parent is neither an object nor an "
				   "array"
				 : "the parent does not exist");
}

/* Remove the value at p from doc; *ret (may be NULL) takes it. */
static int op_remove(json_t *doc, const struct pointer *p, json_t **ret,
		     struct errbuf *err)
{
	json_t *parent, *v;
	const char *last;

	if (p->n == 0)
		return errbuf_set(err, -EINVAL,
				  "cannot remove the whole "
				  "document");
	parent = pointer_get(doc, p, p->n - 1);
	last = p->tok[p->n - 1];
	v = pointer_get(doc, p, p->n);
	if (!v)
		return errbuf_set(err, -EINVAL, "the path does not exist");
	if (ret)
		*ret = json_incref(v);
	if (json_is_object(parent))
		json_object_del(parent, last);
	else
		json_array_remove(parent, (size_t)array_index(last));
	return 0;
}

/* Whether pointer a is a proper prefix of b (move into its own child). */
static bool proper_prefix(const struct pointer *a, const struct pointer *b)
{
	if (a->n >= b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->tok[i], b->tok[i]) != 0)
			return false;
	return true;
}

enum op_kind { OP_ADD, OP_REMOVE, OP_REPLACE, OP_MOVE, OP_COPY, OP_TEST };

static int json_patch_op(json_t **doc, const json_t *op, enum op_kind kind,
			 const struct pointer *path, const struct pointer *from,
			 struct errbuf *err)
{
	const json_t *value = json_object_get(op, "value");
	json_t *v;
	int rc;

	switch (kind) {
	case OP_ADD:
		return op_add(doc, path, json_deep_copy(value), err);
	case OP_REMOVE:
		return op_remove(*doc, path, NULL, err);
	case OP_REPLACE:
		if (!pointer_get(*doc, path, path->n))
			return errbuf_set(err, -EINVAL,
					  "the path does not exist");
		if (path->n && (rc = op_remove(*doc, path, NULL, err)) < 0)
			return rc;
		return op_add(doc, path, json_deep_copy(value), err);
	case OP_MOVE:
		if (proper_prefix(from, path))
			return errbuf_set(err, -EINVAL,
					  "cannot move a value into itself");
		if (!pointer_get(*doc, from, from->n))
			return errbuf_set(err, -EINVAL,
					  "\"from\" does not exist");
		if (from->n == 0)
			return op_add(doc, path, json_incref(*doc), err);
		if ((rc = op_remove(*doc, from, &v, err)) < 0)
			return rc;
		return op_add(doc, path, v, err);
	case OP_COPY:
		v = pointer_get(*doc, from, from->n);
		if (!v)
			return errbuf_set(err, -EINVAL,
					  "\"from\" does not exist");
		return op_add(doc, path, json_deep_copy(v), err);
	case OP_TEST:
		v = pointer_get(*doc, path, path->n);
		if (!v)
			return errbuf_set(err, -EINVAL,
					  "test failed: the path does not "
					  "exist");
		if (!same(v, value))
			return errbuf_set(err, -EINVAL,
					  "test failed: the value differs");
		return 0;
	}
	return errbuf_set(err, -EINVAL, "unknown operation");
}

static int json_patch_one(json_t **doc, const json_t *op, size_t i,
			  struct errbuf *err)
{
	static const char *const names[] = { "add",  "remove", "replace",
					     "move", "copy",   "test" };
	const char *name = json_string_value(json_object_get(op, "op"));
	const char *path = json_string_value(json_object_get(op, "path"));
	const char *from = json_string_value(json_object_get(op, "from"));
	struct pointer p = { 0 }, f = { 0 };
	struct errbuf e;
	int kind = -1, rc;

	if (!json_is_object(op))
		return errbuf_set(err, -EINVAL,
				  "operation %zu: must be an object", i);
	for (size_t k = 0; name && k < ARRAY_SIZE(names); k++)
		if (strcmp(names[k], name) == 0)
			kind = (int)k;
	if (kind < 0)
		return errbuf_set(err, -EINVAL,
				  "operation %zu: \"op\" must be one of add, "
				  "remove, replace, move, copy, test",
				  i);
	if (!path)
		return errbuf_set(err, -EINVAL,
				  "operation %zu (%s): \"path\" is required", i,
				  name);
	if ((kind == OP_ADD || kind == OP_REPLACE || kind == OP_TEST) &&
	    !json_object_get(op, "value"))
		return errbuf_set(err, -EINVAL,
				  "operation %zu (%s): \"value\" is required",
				  i, name);
	if ((kind == OP_MOVE || kind == OP_COPY) && !from)
		return errbuf_set(err, -EINVAL,
				  "operation %zu (%s): \"from\" is required", i,
				  name);
	rc = pointer_parse(path, &p, &e);
	if (rc == 0 && from)
		rc = pointer_parse(from, &f, &e);
	if (rc == 0)
		rc = json_patch_op(doc, op, (enum op_kind)kind, &p, &f, &e);
	if (rc < 0)
		errbuf_set(err, rc, "operation %zu (%s %s): %s", i, name, path,
			   e.msg);
	pointer_release(&p);
	pointer_release(&f);
	return rc;
}

static int json_patch(json_t **doc, const json_t *patch, struct errbuf *err)
{
	const json_t *op;
	size_t i;
	int rc;

	if (!json_is_array(patch))
		return errbuf_set(err, -EINVAL,
				  "a JSON patch must be an array of "
				  "operations");
	json_array_foreach(patch, i, op)
	{
		if ((rc = json_patch_one(doc, op, i, err)) < 0)
			return rc;
	}
	return 0;
}

/* ---- strategic merge patch ---- */

enum list_strategy {
	LIST_REPLACE, /* the patch's list replaces the target's */
	LIST_KEYED,   /* objects merged by a key field */
	LIST_SET,     /* scalars merged as a set */
};

struct list_rule {
	const char *field;
	const char *key; /* LIST_KEYED */
	enum list_strategy strategy;
};

/* The lists of the served built-in kinds (and the pod templates that
 * Kueue's kinds embed) that do not simply replace. */
static const struct list_rule list_rules[] = {
	{ "conditions", "type", LIST_KEYED },
	{ "containers", "name", LIST_KEYED },
	{ "initContainers", "name", LIST_KEYED },
	{ "ephemeralContainers", "name", LIST_KEYED },
	{ "env", "name", LIST_KEYED },
	{ "ports", "containerPort", LIST_KEYED },
	{ "volumes", "name", LIST_KEYED },
	{ "volumeMounts", "mountPath", LIST_KEYED },
	{ "volumeDevices", "devicePath", LIST_KEYED },
	{ "imagePullSecrets", "name", LIST_KEYED },
	{ "hostAliases", "ip", LIST_KEYED },
	{ "schedulingGates", "name", LIST_KEYED },
	{ "resourceClaims", "name", LIST_KEYED },
	{ "topologySpreadConstraints", "topologyKey", LIST_KEYED },
	{ "podIPs", "ip", LIST_KEYED },
	{ "addresses", "type", LIST_KEYED },
	{ "ownerReferences", "uid", LIST_KEYED },
	{ "finalizers", NULL, LIST_SET },
};

static const struct list_rule *list_rule(const char *field)
{
	for (size_t i = 0; i < ARRAY_SIZE(list_rules); i++)
		if (strcmp(list_rules[i].field, field) == 0)
			return &list_rules[i];
	return NULL;
}

enum api_patch_list api_patch_list_of(const char *field, const char **ret_key)
{
	const struct list_rule *r = list_rule(field);

	if (!r || r->strategy == LIST_REPLACE)
		return API_PATCH_LIST_REPLACE;
	if (r->strategy == LIST_SET)
		return API_PATCH_LIST_SET;
	if (ret_key)
		*ret_key = r->key;
	return API_PATCH_LIST_KEYED;
}

static json_t *strategic(json_t *target, const json_t *patch, int depth,
			 struct errbuf *err);

/* The "$patch" directive of an object in a patch: 0 none or merge, 'd'
 * delete, 'r' replace, -1 unknown (err set). */
static int directive(const json_t *obj, struct errbuf *err)
{
	const json_t *d = json_object_get(obj, "$patch");
	const char *s = json_string_value(d);

	if (!d)
		return 0;
	if (s && strcmp(s, "merge") == 0)
		return 0;
	if (s && strcmp(s, "delete") == 0)
		return 'd';
	if (s && strcmp(s, "replace") == 0)
		return 'r';
	errbuf_set(err, -EINVAL,
		   "$patch must be \"merge\", \"delete\" or \"replace\"");
	return -1;
}

/* A copy of obj without its "$patch" key. */
static json_t *without_directive(const json_t *obj)
{
	json_t *copy = json_deep_copy(obj);

	json_object_del(copy, "$patch");
	return copy;
}

static long find_keyed(const json_t *list, const char *key, const json_t *kv)
{
	const json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
	{
		const json_t *v = json_object_get(e, key);

		if (v && same(v, kv))
			return (long)i;
	}
	return -1;
}

static json_t *merge_keyed(json_t *target, const json_t *patch,
			   const char *field, const char *key, int depth,
			   struct errbuf *err)
{
	const json_t *e;
	size_t i;

	/* A {"$patch": "replace"} element replaces the whole list. */
	json_array_foreach(patch, i, e)
	{
		if (json_is_object(e) && directive(e, NULL) == 'r') {
			json_t *out = json_array();
			const json_t *x;
			size_t j;

			json_array_foreach(patch, j, x)
			{
				if (!json_is_object(x) ||
				    !json_object_get(x, "$patch"))
					json_array_append_new(
						out, json_deep_copy(x));
			}
			json_decref(target);
			return out;
		}
	}
	if (!json_is_array(target)) {
		json_decref(target);
		target = json_array();
	}
	json_array_foreach(patch, i, e)
	{
		const json_t *kv = json_object_get(e, key);
		long at;
		int d;

		if (!json_is_object(e) || !kv) {
			errbuf_set(err, -EINVAL,
				   "%s[%zu]: does not contain the merge key "
				   "\"%s\"",
				   field, i, key);
			json_decref(target);
			return NULL;
		}
		if ((d = directive(e, err)) < 0) {
			json_decref(target);
			return NULL;
		}
		at = find_keyed(target, key, kv);
		if (d == 'd') {
			if (at >= 0)
				json_array_remove(target, (size_t)at);
			continue;
		}
		if (at < 0) {
			json_array_append_new(target, without_directive(e));
			continue;
		}
		json_t *merged = strategic(
			json_incref(json_array_get(target, (size_t)at)), e,
			depth + 1, err);

		if (!merged) {
			json_decref(target);
			return NULL;
		}
		json_array_set_new(target, (size_t)at, merged);
	}
	return target;
}

static bool in_list(const json_t *list, const json_t *v)
{
	const json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
	{
		if (same(e, v))
			return true;
	}
	return false;
}

static json_t *merge_set(json_t *target, const json_t *patch)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(target)) {
		json_decref(target);
		target = json_array();
	}
	json_array_foreach(patch, i, e)
	{
		if (!in_list(target, e))
			json_array_append_new(target, json_deep_copy(e));
	}
	return target;
}

/* $deleteFromPrimitiveList/<field>: drop the listed values. */
static void delete_from_set(json_t *target, const char *field,
			    const json_t *values)
{
	json_t *list = json_object_get(target, field);

	for (size_t i = json_array_size(list); i-- > 0;)
		if (in_list(values, json_array_get(list, i)))
			json_array_remove(list, i);
}

/* Keep only the keys $retainKeys lists. */
static int retain_keys(json_t *target, const json_t *keep, struct errbuf *err)
{
	const char *key;
	json_t *v;
	void *tmp;

	if (!json_is_array(keep))
		return errbuf_set(err, -EINVAL,
				  "$retainKeys must be a list of field names");
	json_object_foreach_safe(target, tmp, key, v)
	{
		json_t *name = json_string(key);

		if (!in_list(keep, name))
			json_object_del(target, key);
		json_decref(name);
	}
	return 0;
}

/* Merge one field of a strategic patch into target (an object). */
static int strategic_field(json_t *target, const char *key, const json_t *v,
			   int depth, struct errbuf *err)
{
	const struct list_rule *rule = list_rule(key);
	json_t *old = json_incref(json_object_get(target, key)), *merged;

	if (json_is_null(v)) {
		json_decref(old);
		json_object_del(target, key);
		return 0;
	}
	if (json_is_object(v)) {
		int d = directive(v, err);

		if (d < 0) {
			json_decref(old);
			return -EINVAL;
		}
		if (d == 'd') {
			json_decref(old);
			json_object_del(target, key);
			return 0;
		}
		if (d == 'r') {
			json_decref(old);
			json_object_set_new(target, key, without_directive(v));
			return 0;
		}
		merged = strategic(old, v, depth + 1, err);
	} else if (json_is_array(v) && rule && rule->strategy == LIST_KEYED) {
		merged = merge_keyed(old, v, key, rule->key, depth, err);
	} else if (json_is_array(v) && rule && rule->strategy == LIST_SET) {
		merged = merge_set(old, v);
	} else {
		json_decref(old);
		merged = json_deep_copy(v);
	}
	if (!merged)
		return -EINVAL;
	json_object_set_new(target, key, merged);
	return 0;
}

static json_t *strategic(json_t *target, const json_t *patch, int depth,
			 struct errbuf *err)
{
	static const char del_prefix[] = "$deleteFromPrimitiveList/";
	const json_t *retain = json_object_get(patch, "$retainKeys");
	const char *key;
	json_t *v;

	if (depth > MAX_DEPTH) {
		json_decref(target);
		errbuf_set(err, -EINVAL, "the patch nests too deep");
		return NULL;
	}
	if (!json_is_object(target)) {
		json_decref(target);
		target = json_object();
	}
	json_object_foreach((json_t *)patch, key, v)
	{
		if (strcmp(key, "$patch") == 0 ||
		    strcmp(key, "$retainKeys") == 0 ||
		    strncmp(key, "$setElementOrder/", 17) == 0)
			continue;
		if (strncmp(key, del_prefix, sizeof(del_prefix) - 1) == 0) {
			delete_from_set(target, key + sizeof(del_prefix) - 1,
					v);
			continue;
		}
		if (key[0] == '$') {
			errbuf_set(err, -EINVAL, "unknown patch directive %s",
				   key);
			json_decref(target);
			return NULL;
		}
		if (strategic_field(target, key, v, depth, err) < 0) {
			json_decref(target);
			return NULL;
		}
	}
	if (retain && retain_keys(target, retain, err) < 0) {
		json_decref(target);
		return NULL;
	}
	return target;
}

int api_patch_apply(const struct api_kind *k, enum api_patch_type type,
		    const json_t *target, const json_t *patch, json_t **ret,
		    struct errbuf *err)
{
	json_t *doc = json_deep_copy(target);
	int rc = 0;

	(void)k;
	if (!doc || !patch)
		return errbuf_set(err, -EINVAL, "nothing to patch");
	switch (type) {
	case API_PATCH_MERGE:
		doc = merge(doc, patch);
		break;
	case API_PATCH_JSON:
		rc = json_patch(&doc, patch, err);
		break;
	case API_PATCH_STRATEGIC:
	case API_PATCH_APPLY:
		if (!json_is_object(patch)) {
			rc = errbuf_set(err, -EINVAL,
					"the patch must be a JSON object");
			break;
		}
		doc = strategic(doc, patch, 0, err);
		if (!doc)
			rc = -EINVAL;
		break;
	default:
		rc = errbuf_set(err, -EINVAL, "unknown patch type");
	}
	if (rc == 0 && !json_is_object(doc))
		rc = errbuf_set(err, -EINVAL,
				"the patched object is not a JSON object");
	if (rc < 0) {
		json_decref(doc);
		return rc;
	}
	if (type == API_PATCH_APPLY &&
	    json_is_object(json_object_get(doc, "metadata")))
		json_object_del(json_object_get(doc, "metadata"),
				"managedFields");
	*ret = doc;
	return 0;
}

/* ---- YAML bodies ---- */

static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

/* A plain scalar typed by YAML 1.2's core schema; NULL with err set for
 * one JSON cannot hold. */
static json_t *plain_scalar(const struct ynode *n, struct errbuf *err)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	static const char *const trues[] = { "true", "True", "TRUE" };
	static const char *const falses[] = { "false", "False", "FALSE" };
	const char *s = n->text, *digits = s + (*s == '-' || *s == '+');
	char *end;

	for (size_t i = 0; i < ARRAY_SIZE(nulls); i++)
		if (strcmp(s, nulls[i]) == 0)
			return json_null();
	for (size_t i = 0; i < ARRAY_SIZE(trues); i++) {
		if (strcmp(s, trues[i]) == 0)
			return json_true();
		if (strcmp(s, falses[i]) == 0)
			return json_false();
	}
	if (all_of(digits, "0123456789") ||
	    (strncmp(s, "0x", 2) == 0 &&
	     all_of(s + 2, "0123456789abcdefABCDEF")) ||
	    (strncmp(s, "0o", 2) == 0 && all_of(s + 2, "01234567"))) {
		int base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 10;
		long long v;

		errno = 0;
		v = strtoll(base == 10 ? s : s + 2, &end, base);
		if (errno == 0 && !*end)
			return json_integer(v);
		/* Too large for an integer: a float, as Go's decoder does. */
	}
	if (strcasecmp(digits, ".inf") == 0 || strcasecmp(s, ".nan") == 0) {
		errbuf_set(err, -EINVAL,
			   "line %d, column %d: %s cannot be represented in "
			   "JSON",
			   n->line, n->col, s);
		return NULL;
	}
	if (*digits && strspn(digits, "0123456789.eE+-") == strlen(digits) &&
	    strpbrk(digits, "0123456789")) {
		double d = strtod(s, &end);

		if (!*end && isfinite(d))
			return json_real(d);
		if (!*end) {
			/* beyond a double (1e400): JSON has no infinity */
			errbuf_set(err, -EINVAL,
				   "line %d, column %d: %s is out of range "
				   "for a number",
				   n->line, n->col, s);
			return NULL;
		}
	}
	return json_stringn(n->text, n->len);
}

static json_t *yaml_to_json(const struct ynode *n, int depth, int max_depth,
			    struct errbuf *err)
{
	const struct ynode *key, *value, *item;
	json_t *out, *v;

	if (!n)
		return json_null();
	switch (n->type) {
	case YNODE_SCALAR:
		if (!n->plain)
			return json_stringn(n->text, n->len);
		return plain_scalar(n, err);
	case YNODE_ALIAS:
		errbuf_set(err, -EINVAL,
			   "line %d, column %d: YAML aliases are not "
			   "supported",
			   n->line, n->col);
		return NULL;
	default:
		break;
	}
	if (depth >= max_depth) {
		errbuf_set(err, -EINVAL,
			   "line %d, column %d: nested more than %d deep",
			   n->line, n->col, max_depth);
		return NULL;
	}
	if (n->type == YNODE_SEQ) {
		out = json_array();
		ynode_foreach(n, item)
		{
			if (!(v = yaml_to_json(item, depth + 1, max_depth,
					       err))) {
				json_decref(out);
				return NULL;
			}
			json_array_append_new(out, v);
		}
		return out;
	}
	out = json_object();
	ynode_foreach_pair(n, key, value)
	{
		if (key->type != YNODE_SCALAR ||
		    strlen(key->text) != key->len) {
			errbuf_set(err, -EINVAL,
				   "line %d, column %d: mapping keys must be "
				   "strings",
				   key->line, key->col);
			json_decref(out);
			return NULL;
		}
		if (!(v = yaml_to_json(value, depth + 1, max_depth, err))) {
			json_decref(out);
			return NULL;
		}
		json_object_set_new(out, key->text, v);
	}
	return out;
}

/* The first message of d without its "body:" file prefix. */
static int yaml_error(const struct diag *d, struct errbuf *err)
{
	const struct diag_msg *m = d->msgs.len ? &d->msgs.items[0] : NULL;

	if (!m)
		return errbuf_set(err, -EINVAL, "invalid YAML");
	return errbuf_set(err, -EINVAL, "line %d, column %d: %s", m->line,
			  m->col, m->text);
}

/*
 * Bodies must be UTF-8 without NUL bytes before libfyaml sees them: its
 * scanner loops forever on some invalid sequences in a directive line
 * (as manifest.c found), and takes a NUL for the end of the input.
 */
static int check_text(const char *body, size_t len, struct errbuf *err)
{
	const unsigned char *u = (const unsigned char *)body;
	int line, col;
	size_t n;

	if (text_find_nul(body, len, &line, &col) < len)
		return errbuf_set(err, -EINVAL,
				  "line %d, column %d: NUL byte (0x00) in "
				  "the body",
				  line, col);
	for (size_t i = 0; i < len; i += n) {
		n = u[i] < 0x80 ? 1 : text_utf8_len(u + i, len - i);
		if (n == 0) {
			text_position(body, i, &line, &col);
			return errbuf_set(err, -EINVAL,
					  "line %d, column %d: not UTF-8 "
					  "(byte 0x%02x)",
					  line, col, u[i]);
		}
	}
	return 0;
}

int api_patch_decode_yaml(const char *body, size_t len, int max_depth,
			  json_t **ret, struct errbuf *err)
{
	struct yparser *p;
	struct ynode *root = NULL, *extra = NULL;
	struct diag d;
	json_t *out = NULL;
	int rc;

	if (!body)
		len = 0;
	if ((rc = check_text(body, len, err)) < 0)
		return rc;
	diag_init(&d);
	p = yparser_new(body ? body : "", body ? len : 0, false, "body", &d);
	rc = yparser_next(p, &root);
	if (rc < 0) {
		rc = yaml_error(&d, err);
		goto out;
	}
	if (rc == 0 || !root) {
		rc = errbuf_set(err, -EINVAL, "the body is empty");
		goto out;
	}
	out = yaml_to_json(root, 0, max_depth, err);
	if (!out) {
		rc = -EINVAL;
		goto out;
	}
	rc = yparser_next(p, &extra);
	if (rc < 0) {
		rc = yaml_error(&d, err);
	} else if (rc > 0) {
		rc = errbuf_set(err, -EINVAL,
				"the body holds more than one YAML document");
	}
out:
	if (rc < 0) {
		json_decref(out);
	} else {
		*ret = out;
		rc = 0;
	}
	yparser_free(p);
	diag_release(&d);
	return rc;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Writes: create (POST), update (PUT), patch (the four patch kinds;
 * apply creates what is missing), delete with propagation and
 * preconditions, deletecollection, and binding.
 *
 * Every write goes the same way: the body decoded and its identity
 * checked against the path, converted to the storage kind, the status
 * subresource's rules applied, the mutating hook, validation, and only
 * then one store call. Nothing is stored unless all of it passed, so a
 * refused request leaves the store as it was.
 */
#include "api/api.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_default.h"
#include "api/api_internal.h"
#include "api/api_json.h"
#include "api/api_kind.h"
#include "api/api_patch.h"
#include "api/api_select.h"
#include "api/api_validate.h"
#include "base/alloc.h"
#include "base/hmap.h"
#include "base/vec.h"

#include "base/banned.h"

/* One write in progress. */
struct wctx {
	struct api *a;
	const struct api_target *t;
	const struct api_query *q;
	const struct api_req *r;
	const struct api_kind *sk; /* storage kind */
	int64_t now_us;
	struct api_resp *resp;
	enum api_table table;
};

static json_t *md_of(json_t *obj)
{
	json_t *md = json_object_get(obj, "metadata");

	if (!md) {
		md = json_object();
		json_object_set_new(obj, "metadata", md);
	}
	return md;
}

static const char *md_str(const json_t *obj, const char *key)
{
	return json_string_value(
		json_object_get(json_object_get(obj, "metadata"), key));
}

static void conflict(struct wctx *w, const char *name, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
static void conflict(struct wctx *w, const char *name, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	api_resp_status_json(w->resp, 409, "Conflict", msg,
			     api_details(w->t->kind, name));
}

static void modified_conflict(struct wctx *w, const char *name)
{
	const struct api_kind *k = w->t->kind;

	conflict(w, name,
		 "Operation cannot be fulfilled on %s%s%s \"%s\": the object "
		 "has been modified; please apply your changes to the latest "
		 "version and try again",
		 k->resource, *k->group ? "." : "", k->group, name);
}

/*
 * Check obj (a decoded body for target t) and fill what the path says:
 * apiVersion and kind, metadata.namespace, metadata.name (from the URL,
 * or generated from generateName on create). 0, or a 400 in resp.
 */
static int identity(struct wctx *w, json_t *obj, bool create)
{
	const struct api_target *t = w->t;
	const struct api_kind *k = t->kind;
	const char *av, *kind, *ns, *name;
	char gv[96];
	json_t *md;

	if (!json_is_object(obj)) {
		api_resp_status(w->resp, 400, "BadRequest",
				"the request body must be a JSON object");
		return -EINVAL;
	}
	api_kind_gv(k, t->version, gv, sizeof(gv));
	av = json_string_value(json_object_get(obj, "apiVersion"));
	kind = json_string_value(json_object_get(obj, "kind"));
	if ((json_object_get(obj, "apiVersion") && !av) ||
	    (json_object_get(obj, "kind") && !kind) ||
	    (json_object_get(obj, "metadata") &&
	     !json_is_object(json_object_get(obj, "metadata")))) {
		api_resp_status(w->resp, 400, "BadRequest",
				"apiVersion and kind must be strings and "
				"metadata an object");
		return -EINVAL;
	}
	if (av && *av && strcmp(av, gv)) {
		api_resp_status(w->resp, 400, "BadRequest",
				"the API version in the data (%.96s) does not "
				"match the expected API version (%s)",
				av, gv);
		return -EINVAL;
	}
	if (kind && *kind && strcmp(kind, k->kind)) {
		api_resp_status(w->resp, 400, "BadRequest",
				"the kind in the data (%.96s) does not match "
				"the expected kind (%s)",
				kind, k->kind);
		return -EINVAL;
	}
	json_object_set_new(obj, "apiVersion", json_string(gv));
	json_object_set_new(obj, "kind", json_string(k->kind));
	md = md_of(obj);
	for (const char *const *f =
		     (const char *const[]){ "name", "namespace", "generateName",
					    "resourceVersion", "uid", NULL };
	     *f; f++) {
		json_t *v = json_object_get(md, *f);

		if (v && !json_is_string(v) && !json_is_null(v)) {
			api_resp_status(w->resp, 400, "BadRequest",
					"metadata.%s must be a string", *f);
			return -EINVAL;
		}
	}
	ns = md_str(obj, "namespace");
	if (k->namespaced && ns && *ns && t->ns && strcmp(ns, t->ns)) {
		api_resp_status(w->resp, 400, "BadRequest",
				"the namespace of the provided object does "
				"not match the namespace sent on the request");
		return -EINVAL;
	}
	if (k->namespaced && t->ns)
		json_object_set_new(md, "namespace", json_string(t->ns));
	else if (!k->namespaced)
		json_object_del(md, "namespace");
	name = md_str(obj, "name");
	if (t->name && name && *name && strcmp(name, t->name)) {
		api_resp_status(w->resp, 400, "BadRequest",
				"the name of the object (%.253s) does not "
				"match the name on the URL (%.253s)",
				name, t->name);
		return -EINVAL;
	}
	if (t->name && (!name || !*name))
		json_object_set_new(md, "name", json_string(t->name));
	if (create && (!name || !*name) && !t->name) {
		const char *gen = md_str(obj, "generateName");
		static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789";
		char buf[300];
		uint64_t h;

		if (!gen || !*gen)
			return 0; /* validation says it is required */
		h = hmap_hash(gen, strlen(gen)) ^
		    (api_store_rv(w->a->s) * 0x9e3779b97f4a7c15ull);
		for (int tries = 0; tries < 8; tries++) {
			size_t n = (size_t)snprintf(buf, sizeof(buf), "%.247s",
						    gen);

			for (int i = 0; i < 5; i++) {
				buf[n++] = alnum[h % (sizeof(alnum) - 1)];
				h /= sizeof(alnum) - 1;
			}
			buf[n] = '\0';
			if (!api_store_get(w->a->s, w->sk, t->ns, buf))
				break;
			h = hmap_hash(buf, n) + (uint64_t)tries;
		}
		json_object_set_new(md, "name", json_string(buf));
	}
	return 0;
}

static const char *cause_reason(const char *msg)
{
	static const struct {
		const char *prefix, *reason;
	} map[] = {
		{ "Required value", "FieldValueRequired" },
		{ "is required", "FieldValueRequired" },
		{ "Unsupported value", "FieldValueNotSupported" },
		{ "Duplicate value", "FieldValueDuplicate" },
		{ "Forbidden", "FieldValueForbidden" },
		{ "Too long", "FieldValueTooLong" },
		{ "Too many", "FieldValueTooMany" },
		{ "Not found", "FieldValueNotFound" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strncmp(msg, map[i].prefix, strlen(map[i].prefix)))
			return map[i].reason;
	return "FieldValueInvalid";
}

/* Warnings of causes as one Warning header value. An unknown field reads
 * as Kubernetes' Warn validation words it, with the field's whole path
 * (`unknown field "spec.foo"`), as under Strict. */
static void add_warnings(struct api_resp *resp, const struct api_causes *c)
{
	struct strbuf sb, text;

	strbuf_init(&sb);
	strbuf_init(&text);
	for (size_t i = 0; i < c->n; i++) {
		const struct api_cause *x = &c->v[i];

		if (!x->warning)
			continue;
		if (sb.len)
			strbuf_addstr(&sb, ", ");
		strbuf_addstr(&sb, "299 - ");
		if (!strncmp(x->message, "unknown field", 13) && x->field &&
		    *x->field) {
			strbuf_reset(&text);
			strbuf_addstr(&text, "unknown field ");
			strbuf_add_json_string(&text, x->field);
			strbuf_add_json_string(&sb, text.buf);
		} else {
			strbuf_add_json_string(&sb, x->message);
		}
	}
	strbuf_release(&text);
	if (sb.len) {
		free(resp->warning);
		resp->warning = strbuf_take(&sb);
	}
	strbuf_release(&sb);
}

/* The 422 Invalid (or 400 for unknown fields) of failed validation. */
static bool is_unknown(const struct api_cause *x)
{
	return !x->warning && !strncmp(x->message, "unknown field", 13);
}

/* Strict decoding's 400: the unknown fields only, as Kubernetes finds
 * them before it validates anything. */
static void strict_error(struct wctx *w, const struct api_causes *c)
{
	struct strbuf msg;
	size_t n = 0;

	strbuf_init(&msg);
	strbuf_addstr(&msg, "strict decoding error: ");
	for (size_t i = 0; i < c->n; i++) {
		if (!is_unknown(&c->v[i]))
			continue;
		if (n++)
			strbuf_addstr(&msg, ", ");
		strbuf_addstr(&msg, "unknown field ");
		strbuf_add_json_string(&msg, c->v[i].field && *c->v[i].field
						     ? c->v[i].field
						     : c->v[i].message);
	}
	api_resp_status_json(w->resp, 400, "BadRequest", msg.buf, NULL);
	strbuf_release(&msg);
}

/* Whether x says a field has the wrong JSON type: Kubernetes finds those
 * while decoding (400), before it validates anything. */
static bool is_type_error(const struct api_cause *x)
{
	static const char *const prefixes[] = {
		"must be an object, not ",
		"must be a list, not ",
		"must be a string, not ",
		"must be an integer, not ",
		"must be a boolean (true or false), not ",
	};
	if (x->warning)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(x->message, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The 400 of a body that does not decode as the kind. */
static bool type_error(struct wctx *w, const struct api_causes *c)
{
	const struct api_kind *k = w->t->kind;
	struct strbuf msg;
	size_t n = 0;

	strbuf_init(&msg);
	strbuf_addf(&msg,
		    "%s in version \"%s\" cannot be handled as a %s: ", k->kind,
		    w->t->version, k->kind);
	for (size_t i = 0; i < c->n; i++) {
		const struct api_cause *x = &c->v[i];

		if (!is_type_error(x))
			continue;
		if (n++)
			strbuf_addstr(&msg, ", ");
		if (x->field && *x->field)
			strbuf_addf(&msg, "%s: ", x->field);
		strbuf_addstr(&msg, x->message);
	}
	if (n)
		api_resp_status_json(w->resp, 400, "BadRequest", msg.buf, NULL);
	strbuf_release(&msg);
	return n > 0;
}

/* The 422 Invalid of failed validation, one cause per error. */
static void invalid(struct wctx *w, const json_t *obj,
		    const struct api_causes *c)
{
	const char *name = md_str(obj, "name");
	json_t *details, *causes;
	struct strbuf msg;
	size_t n = 0;
	char *text;

	if (c->unknown) {
		strict_error(w, c);
		return;
	}
	if (type_error(w, c))
		return;
	details = api_details(w->t->kind, name ? name : "");
	causes = json_array();
	strbuf_init(&msg);
	json_object_set_new(details, "kind", json_string(w->t->kind->kind));
	for (size_t i = 0; i < c->n; i++) {
		const struct api_cause *x = &c->v[i];

		if (x->warning)
			continue;
		json_array_append_new(causes,
				      json_pack("{s:s,s:s,s:s}", "reason",
						cause_reason(x->message),
						"message", x->message, "field",
						x->field ? x->field : ""));
		if (n++)
			strbuf_addstr(&msg, ", ");
		if (x->field && *x->field)
			strbuf_addf(&msg, "%s: ", x->field);
		strbuf_addstr(&msg, x->message);
	}
	text = xasprintf("%s \"%s\" is invalid: %s%s%s", w->t->kind->kind,
			 name ? name : "", n > 1 ? "[" : "", msg.buf,
			 n > 1 ? "]" : "");
	json_object_set_new(details, "causes", causes);
	api_resp_status_json(w->resp, 422, "Invalid", text, details);
	free(text);
	strbuf_release(&msg);
}

/* The status subresource's rules: writes to the object keep the stored
 * status, writes to /status change only the status. obj in storage
 * form; returns the object to store (a new reference; obj is stolen). */
static json_t *status_rules(struct wctx *w, json_t *obj, const json_t *old)
{
	json_t *st;

	if (!(w->t->kind->subresources & API_SUB_STATUS))
		return obj;
	if (w->t->sub && !strcmp(w->t->sub, "status")) {
		json_t *merged = json_deep_copy(old);

		st = json_object_get(obj, "status");
		if (st)
			json_object_set(merged, "status", st);
		else
			json_object_del(merged, "status");
		/* The caller's rv precondition stays with the write. */
		if (md_str(obj, "resourceVersion"))
			json_object_set(
				md_of(merged), "resourceVersion",
				json_object_get(md_of(obj), "resourceVersion"));
		json_decref(obj);
		return merged;
	}
	if (!old) {
		/* A new object starts with no status; a Pod is Pending. */
		json_object_del(obj, "status");
		if (!*w->t->kind->group && !strcmp(w->t->kind->kind, "Pod"))
			json_object_set_new(
				obj, "status",
				json_pack("{s:s}", "phase", "Pending"));
		return obj;
	}
	st = json_object_get(old, "status");
	if (st)
		json_object_set(obj, "status", st);
	else
		json_object_del(obj, "status");
	return obj;
}

/* The resourceVersion precondition in obj: 0 for none. -EINVAL for one
 * that is not a number (a 400 in resp). */
static int rv_precondition(struct wctx *w, const json_t *obj, uint64_t *rv)
{
	const char *s = md_str(obj, "resourceVersion");

	*rv = 0;
	if (!s || !*s)
		return 0;
	if (!api_rv_parse(s, strlen(s), rv) || !*rv) {
		api_resp_status(w->resp, 400, "BadRequest",
				"metadata.resourceVersion: invalid value "
				"\"%.64s\"",
				s);
		return -EINVAL;
	}
	return 0;
}

static void already_exists(struct wctx *w, const char *name)
{
	const struct api_kind *k = w->t->kind;
	char msg[600];

	snprintf(msg, sizeof(msg), "%s%s%s \"%s\" already exists", k->resource,
		 *k->group ? "." : "", k->group, name);
	api_resp_status_json(w->resp, 409, "AlreadyExists", msg,
			     api_details(k, name));
}

/* A dry run stores nothing, so what the store would refuse is asked
 * first and answered as the write would be: a create of a name that
 * exists, an update from a stale resourceVersion. */
static bool dry_run_refused(struct wctx *w, const json_t *obj,
			    const struct api_obj *old, uint64_t if_rv)
{
	const char *name = md_str(obj, "name");

	if (old && if_rv && if_rv != old->rv) {
		modified_conflict(w, old->name);
		return true;
	}
	if (!old && name && *name &&
	    api_store_get(w->a->s, w->sk, w->t->ns, name)) {
		already_exists(w, name);
		return true;
	}
	return false;
}

/* The namespace of a create must exist and not be terminating. */
static int namespace_ok(struct wctx *w)
{
	const struct api_kind *nk = api_kind_find("", "v1", "namespaces");
	const struct api_obj *o;

	if (!w->t->kind->namespaced || !nk || !w->t->ns)
		return 0;
	o = api_store_get(w->a->s, nk, NULL, w->t->ns);
	if (!o) {
		api_resp_not_found(w->resp, nk, w->t->ns);
		return -ENOENT;
	}
	if (md_str(o->body, "deletionTimestamp")) {
		api_resp_status_json(
			w->resp, 403, "Forbidden",
			"unable to create new content in namespace because it "
			"is being terminated",
			api_details(nk, w->t->ns));
		return -EPERM;
	}
	return 0;
}

/* Convert, apply the rules, mutate and validate obj (the decoded body,
 * stolen), then store it: the end of every create, update and patch. */
static void commit(struct wctx *w, json_t *obj, const struct api_obj *old)
{
	json_t *oldb = NULL;
	struct api_causes causes = { 0 };
	const struct api_obj *stored = NULL;
	struct errbuf err;
	uint64_t if_rv = 0, before;
	json_t *sobj, *v;
	char name[256], oid[64];
	int rc;

	if (!old && namespace_ok(w))
		goto out_obj;
	if (old && rv_precondition(w, obj, &if_rv))
		goto out_obj;
	if (old) {
		const char *uid = md_str(obj, "uid");

		if (uid && *uid && strcmp(uid, old->uid)) {
			conflict(w, old->name,
				 "Precondition failed: UID in precondition: "
				 "%.64s, UID in object meta: %s",
				 uid, old->uid);
			goto out_obj;
		}
	}
	sobj = api_kind_convert(obj, w->sk, NULL);
	json_decref(obj);
	if (old) {
		/* Compared with its defaults, as Kubernetes reads an object
		 * stored before they existed: a write that only spells them
		 * out changes nothing immutable. */
		snprintf(oid, sizeof(oid), "%s", old->uid);
		oldb = json_deep_copy(old->body);
		api_default(w->sk, oldb, oid, false);
	} else {
		api_store_new_uid(w->a->s, oid, sizeof(oid));
	}
	obj = status_rules(w, sobj, oldb);
	api_default(w->sk, obj, oid, !old);
	errbuf_clear(&err);
	if (w->a->hooks.mutate &&
	    w->a->hooks.mutate(w->a->hooks.ctx, w->sk, obj, oldb, &err)) {
		api_resp_status(w->resp, 400, "BadRequest", "%s",
				err.msg[0] ? err.msg : "refused by admission");
		goto out_obj;
	}
	if (api_validate(w->sk, obj, oldb, w->q->fv, &causes)) {
		invalid(w, obj, &causes);
		goto out_obj;
	}
	add_warnings(w->resp, &causes);
	if (w->q->dry_run) {
		if (dry_run_refused(w, obj, old, if_rv))
			goto out_obj;
		v = api_kind_convert(obj, w->t->kind, w->t->version);
		api_resp_obj(w->resp, old ? 200 : 201, v, w->t->kind, w->table,
			     w->q->include_object, w->now_us);
		json_decref(v);
		goto out_obj;
	}
	snprintf(name, sizeof(name), "%s",
		 md_str(obj, "name") ? md_str(obj, "name") : "");
	before = api_store_rv(w->a->s);
	if (old)
		rc = api_store_update(w->a->s, w->sk, obj, if_rv, w->now_us,
				      &stored);
	else
		rc = api_store_create_as(w->a->s, w->sk, obj, oid, w->now_us,
					 &stored);
	obj = NULL;
	if (rc == -EEXIST) {
		already_exists(w, name);
		goto out;
	} else if (rc == -ECANCELED) {
		modified_conflict(w, name);
		goto out;
	} else if (rc == -ENOENT) {
		api_resp_not_found(w->resp, w->t->kind, name);
		goto out;
	} else if (rc) {
		api_resp_status_json(
			w->resp, 422, "Invalid",
			"metadata.name: Required value: name or generateName "
			"is required",
			api_details(w->t->kind, ""));
		goto out;
	}
	w->resp->wrote = api_store_rv(w->a->s) != before;
	v = api_obj_view(stored, w->t->kind, w->t->version);
	api_resp_obj(w->resp, old ? 200 : 201, v, w->t->kind, w->table,
		     w->q->include_object, w->now_us);
	json_decref(v);
	goto out;
out_obj:
	json_decref(obj);
out:
	json_decref(oldb);
	api_causes_release(&causes);
}

static void do_create(struct wctx *w)
{
	json_t *obj;

	if (api_decode_body(w->r, false, &obj, w->resp))
		return;
	if (identity(w, obj, true)) {
		json_decref(obj);
		return;
	}
	commit(w, obj, NULL);
}

/* The stored object a write by name acts on, or a 404 in resp. */
static const struct api_obj *stored(struct wctx *w)
{
	const struct api_obj *o =
		api_store_get(w->a->s, w->sk, w->t->ns, w->t->name);

	if (!o)
		api_resp_not_found(w->resp, w->t->kind, w->t->name);
	return o;
}

static void do_update(struct wctx *w)
{
	const struct api_obj *old;
	json_t *obj;

	if (api_decode_body(w->r, false, &obj, w->resp))
		return;
	if (identity(w, obj, false)) {
		json_decref(obj);
		return;
	}
	old = stored(w);
	if (!old) {
		json_decref(obj);
		return;
	}
	commit(w, obj, old);
}

static void do_patch(struct wctx *w)
{
	int type = api_patch_type_of(w->r->content_type);
	const struct api_obj *old;
	json_t *patch, *target, *result = NULL;
	const char *old_rv;
	struct errbuf err;
	char gv[96];

	if (api_decode_body(w->r, true, &patch, w->resp))
		return;
	if (type == API_PATCH_APPLY &&
	    (!w->q->field_manager || !*w->q->field_manager)) {
		api_resp_status(w->resp, 422, "Invalid",
				"PatchOptions.meta.k8s.io \"\" is invalid: "
				"fieldManager: Required value: is required "
				"for apply patch");
		json_decref(patch);
		return;
	}
	old = api_store_get(w->a->s, w->sk, w->t->ns, w->t->name);
	if (!old && type != API_PATCH_APPLY) {
		api_resp_not_found(w->resp, w->t->kind, w->t->name);
		json_decref(patch);
		return;
	}
	if (old) {
		target = api_obj_view(old, w->t->kind, w->t->version);
	} else {
		/* Server-side apply of a missing object creates it. */
		target = json_pack(
			"{s:s,s:s,s:{s:s}}", "apiVersion",
			api_kind_gv(w->t->kind, w->t->version, gv, sizeof(gv)),
			"kind", w->t->kind->kind, "metadata", "name",
			w->t->name);
		if (w->t->ns)
			json_object_set_new(md_of(target), "namespace",
					    json_string(w->t->ns));
	}
	errbuf_clear(&err);
	if (api_patch_apply(w->t->kind, (enum api_patch_type)type, target,
			    patch, &result, &err)) {
		if (type == API_PATCH_JSON)
			api_resp_status(w->resp, 422, "Invalid", "%s", err.msg);
		else
			api_resp_status(w->resp, 400, "BadRequest", "%s",
					err.msg);
		goto out;
	}
	if (identity(w, result, !old))
		goto out;
	/* A resourceVersion the patch changed is a precondition; the one
	 * the target carried is not. */
	old_rv = md_str(target, "resourceVersion");
	if (old_rv && md_str(result, "resourceVersion") &&
	    !strcmp(old_rv, md_str(result, "resourceVersion")))
		json_object_del(md_of(result), "resourceVersion");
	commit(w, result, old);
	result = NULL;
out:
	json_decref(result);
	json_decref(target);
	json_decref(patch);
}

/* DeleteOptions from the body and the query. */
struct delopts {
	const char *policy; /* "Background", "Foreground", "Orphan" */
	char uid[128];
	uint64_t rv;
	bool dry_run;
};

static int delete_options(struct wctx *w, struct delopts *d, json_t **ret_body)
{
	json_t *body = NULL, *pre, *v;
	const char *policy = w->q->propagation;
	const char *s;

	memset(d, 0, sizeof(*d));
	d->dry_run = w->q->dry_run;
	*ret_body = NULL;
	if (w->r->body && w->r->body_len) {
		if (api_decode_body(w->r, false, &body, w->resp))
			return -EINVAL;
		if (!json_is_object(body)) {
			api_resp_status(w->resp, 400, "BadRequest",
					"DeleteOptions must be a JSON object");
			json_decref(body);
			return -EINVAL;
		}
		if ((s = json_string_value(
			     json_object_get(body, "propagationPolicy"))))
			policy = s;
		pre = json_object_get(body, "preconditions");
		if ((s = json_string_value(json_object_get(pre, "uid"))))
			snprintf(d->uid, sizeof(d->uid), "%s", s);
		s = json_string_value(json_object_get(pre, "resourceVersion"));
		if (s && *s) {
			if (!api_rv_parse(s, strlen(s), &d->rv) || !d->rv) {
				api_resp_status(
					w->resp, 400, "BadRequest",
					"preconditions.resourceVersion: "
					"invalid value \"%.64s\"",
					s);
				json_decref(body);
				return -EINVAL;
			}
		}
		v = json_object_get(body, "dryRun");
		if (json_array_size(v))
			d->dry_run = true;
	}
	if (!policy || !*policy)
		policy = "Background";
	if (strcmp(policy, "Background") && strcmp(policy, "Foreground") &&
	    strcmp(policy, "Orphan")) {
		api_resp_status(w->resp, 422, "Invalid",
				"DeleteOptions.meta.k8s.io \"\" is invalid: "
				"propagationPolicy: Unsupported value: "
				"\"%.64s\": supported values: \"Foreground\", "
				"\"Background\", \"Orphan\"",
				policy);
		json_decref(body);
		return -EINVAL;
	}
	/* policy may point into body: the caller keeps body to the end. */
	d->policy = policy;
	*ret_body = body;
	return 0;
}

/* The object with finalizer fin and the deletion mark, as a new body. */
static json_t *mark_deleted(const json_t *body, const char *fin, int64_t now_us)
{
	json_t *obj = json_deep_copy(body), *md = md_of(obj), *fins;
	char ts[32];
	size_t i;
	json_t *v;

	fins = json_object_get(md, "finalizers");
	if (!json_is_array(fins)) {
		fins = json_array();
		json_object_set_new(md, "finalizers", fins);
	}
	json_array_foreach(fins, i,
			   v) if (json_is_string(v) &&
				  !strcmp(json_string_value(v), fin)) break;
	if (i == json_array_size(fins))
		json_array_append_new(fins, json_string(fin));
	if (!json_object_get(md, "deletionTimestamp")) {
		json_object_set_new(md, "deletionTimestamp",
				    json_string(api_store_timestamp(
					    now_us, ts, sizeof(ts))));
		json_object_set_new(md, "deletionGracePeriodSeconds",
				    json_integer(0));
	}
	return obj;
}

/* Delete one object; 0 or a negative code with a Status in resp. On
 * success *ret_obj is the object (new reference, request's view) and
 * *ret_gone whether it left the store. */
static int delete_one(struct wctx *w, const struct api_obj *o,
		      const struct delopts *d, json_t **ret_obj, bool *ret_gone)
{
	const char *name = o->name;
	uint64_t before_rv;
	json_t *before;
	int rc;

	if (d->uid[0] && strcmp(d->uid, o->uid)) {
		conflict(w, name,
			 "Precondition failed: UID in precondition: %s, UID in "
			 "object meta: %s",
			 d->uid, o->uid);
		return -ECANCELED;
	}
	if (d->rv && d->rv != o->rv) {
		conflict(
			w, name,
			"Precondition failed: ResourceVersion in precondition: "
			"%" PRIu64 ", ResourceVersion in object meta: %" PRIu64,
			d->rv, o->rv);
		return -ECANCELED;
	}
	before_rv = api_store_rv(w->a->s);
	before = api_obj_view(o, w->t->kind, w->t->version);
	if (d->dry_run) {
		*ret_obj = before;
		*ret_gone = true;
		return 0;
	}
	if (!strcmp(d->policy, "Background")) {
		char ns[256], nm[256];

		snprintf(ns, sizeof(ns), "%s", o->ns);
		snprintf(nm, sizeof(nm), "%s", o->name);
		rc = api_store_delete(w->a->s, w->sk, ns, nm, 0, w->now_us);
		o = api_store_get(w->a->s, w->sk, ns, nm);
	} else {
		json_t *marked = mark_deleted(o->body,
					      !strcmp(d->policy, "Orphan")
						      ? "orphan"
						      : "foregroundDeletion",
					      w->now_us);

		rc = api_store_update(w->a->s, w->sk, marked, 0, w->now_us, &o);
		if (!rc)
			o = api_store_get(w->a->s, w->sk, o->ns, o->name);
	}
	BUG_ON(rc);
	/* Deleting what is already being deleted may change nothing. */
	if (api_store_rv(w->a->s) != before_rv)
		w->resp->wrote = true;
	*ret_gone = !o;
	if (o) {
		json_decref(before);
		before = api_obj_view(o, w->t->kind, w->t->version);
	}
	*ret_obj = before;
	return 0;
}

static void do_delete(struct wctx *w)
{
	const struct api_obj *o;
	struct delopts d;
	json_t *body, *obj;
	bool gone;

	if (delete_options(w, &d, &body))
		return;
	o = stored(w);
	if (o && !delete_one(w, o, &d, &obj, &gone)) {
		api_resp_obj(w->resp, gone ? 200 : 202, obj, w->t->kind,
			     w->table, w->q->include_object, w->now_us);
		json_decref(obj);
	}
	json_decref(body);
}

struct collect {
	const struct api_select *sel;
	const struct api_kind *k;
	const char *version;
	VEC(char *) keys; /* "ns\0name" pairs as two strings */
};

static int collect_one(void *ctx, const struct api_obj *o)
{
	struct collect *c = ctx;

	if (c->sel) {
		json_t *v = api_obj_view(o, c->k, c->version);
		bool match = api_select_match(c->sel, v);

		json_decref(v);
		if (!match)
			return 0;
	}
	vec_push(&c->keys, xstrdup(o->ns));
	vec_push(&c->keys, xstrdup(o->name));
	return 0;
}

static void do_delete_collection(struct wctx *w)
{
	struct collect c = { .k = w->t->kind, .version = w->t->version };
	struct api_select *sel = NULL;
	struct strbuf items;
	struct errbuf err;
	struct delopts d;
	json_t *body;
	char gv[96];
	size_t n = 0;

	if (delete_options(w, &d, &body))
		return;
	if (api_select_parse(w->t->kind, w->q->label_selector,
			     w->q->field_selector, &sel, &err)) {
		api_resp_status(w->resp, 400, "BadRequest", "%s", err.msg);
		json_decref(body);
		return;
	}
	c.sel = sel;
	(void)api_store_each(w->a->s, w->sk, w->t->ns, NULL, NULL, collect_one,
			     &c);
	strbuf_init(&items);
	for (size_t i = 0; i + 1 < c.keys.len; i += 2) {
		const struct api_obj *o = api_store_get(
			w->a->s, w->sk, c.keys.items[i], c.keys.items[i + 1]);
		json_t *obj;
		bool gone;

		if (!o || delete_one(w, o, &d, &obj, &gone))
			continue;
		if (n++)
			strbuf_addch(&items, ',');
		api_json_add(&items, obj);
		json_decref(obj);
	}
	strbuf_reset(&w->resp->body);
	w->resp->code = 200;
	strbuf_addf(&w->resp->body,
		    "{\"kind\":\"%sList\",\"apiVersion\":", w->t->kind->kind);
	strbuf_add_json_string(
		&w->resp->body,
		api_kind_gv(w->t->kind, w->t->version, gv, sizeof(gv)));
	strbuf_addf(&w->resp->body,
		    ",\"metadata\":{\"resourceVersion\":\"%" PRIu64
		    "\"},\"items\":[",
		    api_store_rv(w->a->s));
	strbuf_add(&w->resp->body, items.buf, items.len);
	strbuf_addstr(&w->resp->body, "]}");
	strbuf_release(&items);
	for (size_t i = 0; i < c.keys.len; i++)
		free(c.keys.items[i]);
	vec_release(&c.keys);
	api_select_free(sel);
	json_decref(body);
}

/* Binding */

static json_t *pod_scheduled(const char *ts)
{
	return json_pack("{s:s,s:s,s:n,s:s}", "type", "PodScheduled", "status",
			 "True", "lastProbeTime", "lastTransitionTime", ts);
}

/* Whether pod may be bound to node (api_bind's refusals, same codes and
 * messages); on success *ret the stored pod and *bound whether it is
 * already on that node. Writes nothing: a dry run stops here. */
static int bind_check(struct api_store *s, const char *ns, const char *pod,
		      const char *uid, const char *node,
		      const struct api_obj **ret, bool *bound,
		      struct errbuf *err)
{
	const struct api_kind *pk = api_kind_find("", "v1", "pods");
	const struct api_kind *nk = api_kind_find("", "v1", "nodes");
	const struct api_obj *o;
	const char *cur;
	json_t *spec;

	if (!pk || !nk)
		return errbuf_set(err, -ENOENT, "pods are not served");
	o = api_store_get(s, pk, ns, pod);
	if (!o)
		return errbuf_set(err, -ENOENT, "pods \"%s\" not found", pod);
	if (uid && *uid && strcmp(uid, o->uid))
		return errbuf_set(err, -ECANCELED,
				  "Precondition failed: UID in precondition: "
				  "%.64s, UID in object meta: %s",
				  uid, o->uid);
	if (!node || !*node)
		return errbuf_set(err, -ENOENT,
				  "Binding \"%s\" is invalid: target.name: "
				  "Required value",
				  pod);
	spec = json_object_get(o->body, "spec");
	cur = json_string_value(json_object_get(spec, "nodeName"));
	if (cur && *cur && strcmp(cur, node))
		return errbuf_set(err, -EEXIST,
				  "pod %s is already assigned to node \"%s\"",
				  pod, cur);
	if (json_object_get(json_object_get(o->body, "metadata"),
			    "deletionTimestamp"))
		return errbuf_set(err, -EBUSY,
				  "pod %s is being deleted, cannot be assigned "
				  "to a host",
				  pod);
	if (json_array_size(json_object_get(spec, "schedulingGates")))
		return errbuf_set(err, -EBUSY,
				  "pod %s has non-empty .spec.schedulingGates",
				  pod);
	if (!api_store_get(s, nk, NULL, node))
		return errbuf_set(err, -ENOENT, "nodes \"%s\" not found", node);
	*ret = o;
	*bound = cur && *cur;
	return 0;
}

int api_bind(struct api_store *s, const char *ns, const char *pod,
	     const char *uid, const char *node, int64_t now_us,
	     struct errbuf *err)
{
	const struct api_kind *pk = api_kind_find("", "v1", "pods");
	const struct api_obj *o = NULL;
	json_t *obj, *spec, *st, *conds, *c;
	bool bound = false;
	char ts[32];
	size_t i;
	int rc;

	rc = bind_check(s, ns, pod, uid, node, &o, &bound, err);
	if (rc || bound)
		return rc;
	/* the bound version shares what it does not change with o */
	obj = json_copy(o->body);
	spec = api_store_own(obj, "spec", false);
	json_object_set_new(spec, "nodeName", json_string(node));
	st = api_store_own(obj, "status", false);
	conds = api_store_own(st, "conditions", true);
	api_store_timestamp(now_us, ts, sizeof(ts));
	json_array_foreach(
		conds, i,
		c) if (!strcmp(json_string_value(json_object_get(c, "type"))
				       ?: "",
			       "PodScheduled")) break;
	if (i < json_array_size(conds))
		json_array_set_new(conds, i, pod_scheduled(ts));
	else
		json_array_append_new(conds, pod_scheduled(ts));
	if (api_store_update(s, pk, obj, 0, now_us, NULL))
		return errbuf_set(err, -ENOENT, "pods \"%s\" not found", pod);
	return 0;
}

static void do_bind(struct wctx *w)
{
	const char *pod, *node, *uid, *name;
	struct errbuf err;
	json_t *body;
	int rc;

	if (api_decode_body(w->r, false, &body, w->resp))
		return;
	if (!json_is_object(body)) {
		api_resp_status(w->resp, 400, "BadRequest",
				"the request body must be a Binding object");
		json_decref(body);
		return;
	}
	name = md_str(body, "name");
	uid = md_str(body, "uid");
	node = json_string_value(
		json_object_get(json_object_get(body, "target"), "name"));
	pod = w->t->bindings ? name : w->t->name;
	if (!w->t->bindings && name && *name && strcmp(name, w->t->name)) {
		api_resp_status(w->resp, 400, "BadRequest",
				"the name of the object (%.253s) does not "
				"match the name on the URL (%.253s)",
				name, w->t->name);
		goto out;
	}
	if (!pod || !*pod || !node || !*node) {
		api_resp_status_json(
			w->resp, 422, "Invalid",
			!node || !*node ? "Binding is invalid: target.name: "
					  "Required value"
					: "Binding is invalid: metadata.name: "
					  "Required value",
			NULL);
		goto out;
	}
	if (w->q->dry_run) {
		const struct api_obj *o;
		bool bound;

		rc = bind_check(w->a->s, w->t->ns, pod, uid, node, &o, &bound,
				&err);
	} else {
		uint64_t before = api_store_rv(w->a->s);

		rc = api_bind(w->a->s, w->t->ns, pod, uid, node, w->now_us,
			      &err);
		w->resp->wrote = api_store_rv(w->a->s) != before;
	}
	if (rc == -ENOENT)
		api_resp_status_json(w->resp, 404, "NotFound", err.msg,
				     api_details(w->t->kind, pod));
	else if (rc)
		conflict(w, pod,
			 "Operation cannot be fulfilled on "
			 "pods/binding \"%s\": %s",
			 pod, err.msg);
	else
		api_resp_status_json(w->resp, 201, NULL, NULL, NULL);
out:
	json_decref(body);
}

void api_write(struct api *a, const struct api_target *t,
	       const struct api_query *q, const struct api_req *r,
	       int64_t now_us, struct api_resp *resp)
{
	struct wctx w = {
		.a = a,
		.t = t,
		.q = q,
		.r = r,
		.sk = api_kind_storage(t->kind),
		.now_us = now_us,
		.resp = resp,
		.table = api_accept_table(r->accept),
	};
	const char *m = r->method;
	bool status = t->sub && !strcmp(t->sub, "status");
	bool binding = t->bindings || (t->sub && !strcmp(t->sub, "binding"));

	if (!strcmp(m, "POST") && binding)
		do_bind(&w);
	else if (!strcmp(m, "POST") && !t->name &&
		 (t->ns || !t->kind->namespaced))
		do_create(&w);
	else if (!strcmp(m, "PUT") && t->name && !binding)
		do_update(&w);
	else if (!strcmp(m, "PATCH") && t->name && !binding)
		do_patch(&w);
	else if (!strcmp(m, "DELETE") && t->name && !binding && !status)
		do_delete(&w);
	else if (!strcmp(m, "DELETE") && !t->name && !binding &&
		 (t->ns || !t->kind->namespaced))
		do_delete_collection(&w);
	else
		api_resp_status(resp, 405, "MethodNotAllowed",
				"the server does not allow this method on the "
				"requested resource");
}

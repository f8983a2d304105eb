// SPDX-License-Identifier: Apache-2.0
/*
 * The entry of the API handler: the request's path and query decoded into
 * a target resource and parameters, dispatched to discovery, get, list,
 * watch or a write; Status replies as Kubernetes writes them; request
 * bodies decoded with their limits (size, nesting depth, media type).
 * Everything here reads untrusted bytes and holds no authority.
 */
#include "api/api.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/api_json.h"
#include "api/api_kind.h"
#include "api/api_patch.h"
#include "base/alloc.h"

#include "base/banned.h"

struct api *api_new(struct api_store *s, const struct api_hooks *hooks)
{
	struct api *a = xcalloc(1, sizeof(*a));

	a->s = s;
	if (hooks)
		a->hooks = *hooks;
	return a;
}

void api_free(struct api *a)
{
	free(a);
}

void api_resp_release(struct api_resp *resp)
{
	strbuf_release(&resp->body);
	free(resp->warning);
	resp->warning = NULL;
	api_watch_free(resp->watch);
	resp->watch = NULL;
}

json_t *api_status_body(int code, const char *reason, const char *message,
			json_t *details)
{
	json_t *st = json_pack("{s:s,s:s,s:{},s:s}", "kind", "Status",
			       "apiVersion", "v1", "metadata", "status",
			       code < 300 ? "Success" : "Failure");

	if (message && *message)
		json_object_set_new(st, "message", json_string(message));
	if (reason && *reason)
		json_object_set_new(st, "reason", json_string(reason));
	if (details)
		json_object_set_new(st, "details", details);
	json_object_set_new(st, "code", json_integer(code));
	return st;
}

void api_resp_status_json(struct api_resp *resp, int code, const char *reason,
			  const char *message, json_t *details)
{
	json_t *st = api_status_body(code, reason, message, details);

	resp->code = code;
	resp->content_type = "application/json";
	strbuf_reset(&resp->body);
	api_json_add(&resp->body, st);
	json_decref(st);
}

void api_resp_status(struct api_resp *resp, int code, const char *reason,
		     const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	api_resp_status_json(resp, code, reason, msg, NULL);
}

json_t *api_details(const struct api_kind *k, const char *name)
{
	json_t *d = json_object();

	if (name)
		json_object_set_new(d, "name", json_string(name));
	if (k) {
		if (*k->group)
			json_object_set_new(d, "group", json_string(k->group));
		json_object_set_new(d, "kind", json_string(k->resource));
	}
	return d;
}

void api_resp_not_found(struct api_resp *resp, const struct api_kind *k,
			const char *name)
{
	char msg[512];

	if (*k->group)
		snprintf(msg, sizeof(msg), "%s.%s \"%s\" not found",
			 k->resource, k->group, name);
	else
		snprintf(msg, sizeof(msg), "%s \"%s\" not found", k->resource,
			 name);
	api_resp_status_json(resp, 404, "NotFound", msg, api_details(k, name));
}

static void not_found_path(struct api_resp *resp)
{
	api_resp_status_json(resp, 404, "NotFound",
			     "the server could not find the requested resource",
			     json_object());
}

/* Query strings */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..len) percent-decoded ('+' is a space), as a new string. */
static char *url_decode(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *p = out;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len &&
		    hexval((unsigned char)s[i + 1]) >= 0 &&
		    hexval((unsigned char)s[i + 2]) >= 0) {
			*p++ = (char)(hexval((unsigned char)s[i + 1]) * 16 +
				      hexval((unsigned char)s[i + 2]));
			i += 2;
		} else if (s[i] == '+') {
			*p++ = ' ';
		} else {
			*p++ = s[i];
		}
	}
	*p = '\0';
	return out;
}

static int parse_bool(const char *key, const char *v, bool *out,
		      struct api_resp *resp)
{
	if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "1") ||
	    !*v) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	api_resp_status(resp, 400, "BadRequest",
			"%s: invalid boolean value \"%.64s\"", key, v);
	return -EINVAL;
}

static int parse_int(const char *key, const char *v, long long *out,
		     struct api_resp *resp)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || *end || n < 0) {
		api_resp_status(resp, 400, "BadRequest",
				"%s: invalid value \"%.64s\": must be a "
				"non-negative integer",
				key, v);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

static void set_str(char **slot, char *v)
{
	free(*slot);
	*slot = v;
}

static int query_param(struct api_query *q, const char *key, char *v,
		       struct api_resp *resp)
{
	int rc = 0;

	if (!strcmp(key, "labelSelector")) {
		set_str(&q->label_selector, v);
		return 0;
	}
	if (!strcmp(key, "fieldSelector")) {
		set_str(&q->field_selector, v);
		return 0;
	}
	if (!strcmp(key, "continue")) {
		set_str(&q->cont, v);
		return 0;
	}
	if (!strcmp(key, "resourceVersion")) {
		set_str(&q->rv, v);
		return 0;
	}
	if (!strcmp(key, "resourceVersionMatch")) {
		set_str(&q->rv_match, v);
		return 0;
	}
	if (!strcmp(key, "fieldManager")) {
		set_str(&q->field_manager, v);
		return 0;
	}
	if (!strcmp(key, "propagationPolicy")) {
		set_str(&q->propagation, v);
		return 0;
	}
	if (!strcmp(key, "includeObject")) {
		set_str(&q->include_object, v);
		return 0;
	}
	if (!strcmp(key, "limit"))
		rc = parse_int(key, v, &q->limit, resp);
	else if (!strcmp(key, "timeoutSeconds"))
		rc = parse_int(key, v, &q->timeout_s, resp);
	else if (!strcmp(key, "gracePeriodSeconds"))
		rc = parse_int(key, v, &q->grace_period_s, resp);
	else if (!strcmp(key, "watch"))
		rc = parse_bool(key, v, &q->watch, resp);
	else if (!strcmp(key, "allowWatchBookmarks"))
		rc = parse_bool(key, v, &q->bookmarks, resp);
	else if (!strcmp(key, "sendInitialEvents")) {
		rc = parse_bool(key, v, &q->send_initial, resp);
		q->send_initial_set = true;
	} else if (!strcmp(key, "force"))
		rc = parse_bool(key, v, &q->force, resp);
	else if (!strcmp(key, "dryRun")) {
		/* dryRun=All is the only value Kubernetes knows. */
		if (strcmp(v, "All") && *v) {
			api_resp_status(resp, 400, "BadRequest",
					"dryRun: unsupported value \"%.64s\", "
					"supported values: \"All\"",
					v);
			rc = -EINVAL;
		}
		q->dry_run = true;
	} else if (!strcmp(key, "fieldValidation")) {
		if (!strcmp(v, "Strict"))
			q->fv = API_FV_STRICT;
		else if (!strcmp(v, "Warn") || !*v)
			q->fv = API_FV_WARN;
		else if (!strcmp(v, "Ignore"))
			q->fv = API_FV_IGNORE;
		else {
			api_resp_status(resp, 400, "BadRequest",
					"fieldValidation: invalid value "
					"\"%.64s\": must be one of Ignore, "
					"Warn or Strict",
					v);
			rc = -EINVAL;
		}
	}
	free(v);
	return rc;
}

int api_query_parse(struct api_query *q, const char *query,
		    struct api_resp *resp)
{
	const char *p = query;

	memset(q, 0, sizeof(*q));
	q->timeout_s = -1;
	q->grace_period_s = -1;
	q->fv = API_FV_WARN;
	while (p && *p) {
		const char *amp = strchr(p, '&');
		size_t len = amp ? (size_t)(amp - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		size_t klen = eq ? (size_t)(eq - p) : len;
		char *key = url_decode(p, klen);
		char *v = eq ? url_decode(eq + 1, len - klen - 1) : xstrdup("");
		int rc = query_param(q, key, v, resp);

		free(key);
		if (rc) {
			api_query_release(q);
			return rc;
		}
		p = amp ? amp + 1 : NULL;
	}
	return 0;
}

void api_query_release(struct api_query *q)
{
	free(q->label_selector);
	free(q->field_selector);
	free(q->cont);
	free(q->rv);
	free(q->rv_match);
	free(q->field_manager);
	free(q->propagation);
	free(q->include_object);
	memset(q, 0, sizeof(*q));
}

/* Media types */

/* Whether the media range at p (up to ',' or end) has parameter
 * name=value, compared without case. */
static bool has_param(const char *p, size_t len, const char *param)
{
	size_t plen = strlen(param);

	for (size_t i = 0; i + plen <= len; i++)
		if ((i == 0 || p[i - 1] == ';' || p[i - 1] == ' ') &&
		    !strncasecmp(p + i, param, plen) &&
		    (i + plen == len || p[i + plen] == ';' ||
		     p[i + plen] == ' '))
			return true;
	return false;
}

enum api_table api_accept_table(const char *accept)
{
	const char *p = accept;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (has_param(p, len, "as=Table") &&
		    has_param(p, len, "g=meta.k8s.io")) {
			if (has_param(p, len, "v=v1"))
				return API_TABLE_V1;
			if (has_param(p, len, "v=v1beta1"))
				return API_TABLE_V1BETA1;
		}
		p = comma ? comma + 1 : NULL;
	}
	return API_TABLE_NONE;
}

/* Paths */

/* Split path into at most max segments (copies in buf); -1 when there
 * are more or a segment is empty. */
static int split_path(const char *path, char *buf, size_t size, char **seg,
		      int max)
{
	size_t len = strlen(path);
	int n = 0;
	char *p;

	if (len + 1 > size || path[0] != '/')
		return -1;
	memcpy(buf, path, len + 1);
	/* One trailing slash is tolerated, as Go's mux does not; kubectl
	 * never sends one. */
	if (len > 1 && buf[len - 1] == '/')
		buf[len - 1] = '\0';
	p = buf + 1;
	if (!*p)
		return 0;
	while (p) {
		char *slash = strchr(p, '/');

		if (slash)
			*slash = '\0';
		if (!*p || n == max)
			return -1;
		seg[n++] = p;
		p = slash ? slash + 1 : NULL;
	}
	return n;
}

/* The target of resource path segments seg[0..n) after the group and
 * version; 0, or -ENOENT for a path that names no resource. */
static int resolve(const char *group, const char *version, char **seg, int n,
		   struct api_target *t)
{
	const struct api_kind *k;
	int i = 0;

	memset(t, 0, sizeof(*t));
	if (n >= 2 && !strcmp(seg[0], "namespaces") && (n >= 3 || !*group)) {
		/* namespaces/NS/RES..., or (core) namespaces/NS[/status] */
		if (n == 2 || (n == 3 && !*group &&
			       (!strcmp(seg[2], "status") ||
				!strcmp(seg[2], "finalize")))) {
			k = api_kind_find(group, version, "namespaces");
			if (!k)
				return -ENOENT;
			t->kind = k;
			t->name = xstrdup(seg[1]);
			if (n == 3)
				t->sub = xstrdup(seg[2]);
			goto found;
		}
		t->ns = xstrdup(seg[1]);
		i = 2;
		if (n == 3 && !*group && !strcmp(seg[2], "bindings")) {
			k = api_kind_find(group, version, "pods");
			if (!k)
				return -ENOENT;
			t->kind = k;
			t->bindings = true;
			goto found;
		}
	}
	if (i >= n || n - i > 3)
		return -ENOENT;
	k = api_kind_find(group, version, seg[i]);
	if (!k)
		return -ENOENT;
	if (t->ns && !k->namespaced)
		return -ENOENT;
	t->kind = k;
	if (n - i >= 2)
		t->name = xstrdup(seg[i + 1]);
	if (n - i == 3) {
		if (!strcmp(seg[i + 2], "status") &&
		    (k->subresources & API_SUB_STATUS))
			t->sub = xstrdup("status");
		else if (!strcmp(seg[i + 2], "binding") &&
			 (k->subresources & API_SUB_BINDING))
			t->sub = xstrdup("binding");
		else
			return -ENOENT;
	}
found:
	for (size_t v = 0;
	     v < ARRAY_SIZE(t->kind->versions) && t->kind->versions[v]; v++)
		if (!strcmp(t->kind->versions[v], version))
			t->version = t->kind->versions[v];
	return t->version ? 0 : -ENOENT;
}

static void target_release(struct api_target *t)
{
	free(t->ns);
	free(t->name);
	free(t->sub);
}

/* The resource path's target, from /api/v1/... or /apis/G/V/... */
static int route(const char *path, struct api_target *t)
{
	char buf[1024], *seg[10];
	int n = split_path(path, buf, sizeof(buf), seg, (int)ARRAY_SIZE(seg));
	int rc;

	memset(t, 0, sizeof(*t));
	if (n >= 3 && !strcmp(seg[0], "api"))
		rc = resolve("", seg[1], seg + 2, n - 2, t);
	else if (n >= 4 && !strcmp(seg[0], "apis"))
		rc = resolve(seg[1], seg[2], seg + 3, n - 3, t);
	else
		return -ENOENT;
	if (rc)
		target_release(t);
	return rc;
}

static bool method_is(const struct api_req *r, const char *m)
{
	return r->method && !strcmp(r->method, m);
}

static void method_not_allowed(struct api_resp *resp, const char *method)
{
	api_resp_status(resp, 405, "MethodNotAllowed",
			"the server does not allow this method on the "
			"requested resource (%.16s)",
			method ? method : "");
}

static void dispatch(struct api *a, const struct api_target *t,
		     const struct api_query *q, const struct api_req *r,
		     int64_t now_us, struct api_resp *resp)
{
	if (method_is(r, "GET")) {
		if (t->sub && strcmp(t->sub, "status"))
			method_not_allowed(resp, r->method);
		else if (t->bindings)
			method_not_allowed(resp, r->method);
		else if (t->name)
			api_get(a, t, q, r, now_us, resp);
		else if (q->watch)
			api_watch_start(a, t, q, r, now_us, resp);
		else
			api_list(a, t, q, r, now_us, resp);
		return;
	}
	if (method_is(r, "POST") || method_is(r, "PUT") ||
	    method_is(r, "PATCH") || method_is(r, "DELETE")) {
		api_write(a, t, q, r, now_us, resp);
		return;
	}
	method_not_allowed(resp, r->method);
}

void api_handle(struct api *a, const struct api_req *r, int64_t now_us,
		struct api_resp *resp)
{
	struct api_target t;
	struct api_query q;

	memset(resp, 0, sizeof(*resp));
	strbuf_init(&resp->body);
	resp->code = 200;
	resp->content_type = "application/json";
	if (!r->path || !r->method) {
		api_resp_status(resp, 400, "BadRequest", "no method or path");
		return;
	}
	if (api_query_parse(&q, r->query, resp))
		return;
	if (api_discovery(a, r, resp))
		goto out;
	if (route(r->path, &t) == 0) {
		/* A namespaced object is named with its namespace only. */
		if (t.kind->namespaced && t.name && !t.ns) {
			target_release(&t);
			not_found_path(resp);
			goto out;
		}
		dispatch(a, &t, &q, r, now_us, resp);
		target_release(&t);
		goto out;
	}
	if (a->hooks.extra &&
	    a->hooks.extra(a->hooks.ctx, r, now_us, resp) == 0)
		goto out;
	strbuf_reset(&resp->body);
	not_found_path(resp);
out:
	api_query_release(&q);
}

/* Objects out */

json_t *api_obj_view(const struct api_obj *o, const struct api_kind *k,
		     const char *version)
{
	if (o->kind == k && (!version || !strcmp(version, k->versions[0])))
		return json_incref(o->body);
	return api_kind_convert(o->body, k, version);
}

void api_add_obj(struct strbuf *out, const struct api_obj *o,
		 const struct api_kind *k, const char *version)
{
	size_t len;
	const char *text = api_store_view(o, k, version, &len);

	strbuf_add(out, text, len);
}

void api_table_open(struct strbuf *out, const struct api_kind *k,
		    enum api_table table, const char *rv, const char *cont,
		    long long remaining)
{
	strbuf_addf(out,
		    "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
		    "\"metadata\":{",
		    table == API_TABLE_V1BETA1 ? "v1beta1" : "v1");
	if (rv) {
		strbuf_addstr(out, "\"resourceVersion\":");
		strbuf_add_json_string(out, rv);
	}
	if (cont && *cont) {
		strbuf_addstr(out, ",\"continue\":");
		strbuf_add_json_string(out, cont);
	}
	if (remaining >= 0)
		strbuf_addf(out, ",\"remainingItemCount\":%lld", remaining);
	strbuf_addstr(out, "},\"columnDefinitions\":[");
	for (size_t i = 0; i < k->ncolumns; i++) {
		const struct api_column *c = &k->columns[i];

		strbuf_addstr(out, i ? ",{\"name\":" : "{\"name\":");
		strbuf_add_json_string(out, c->name);
		strbuf_addstr(out, ",\"type\":");
		strbuf_add_json_string(out, c->type ? c->type : "string");
		strbuf_addstr(out, ",\"format\":");
		strbuf_add_json_string(out, c->format ? c->format : "");
		strbuf_addstr(out, ",\"description\":");
		strbuf_add_json_string(out,
				       c->description ? c->description : "");
		strbuf_addf(out, ",\"priority\":%d}", c->priority);
	}
	strbuf_addstr(out, "],\"rows\":[");
}

void api_table_row_text(struct strbuf *out, const json_t *obj, const char *text,
			size_t len, const struct api_kind *k,
			const char *include, bool first, int64_t now_us)
{
	json_t *cells = json_array();
	const char *md;
	size_t mdlen;

	if (k->cells)
		k->cells(obj, now_us, cells);
	strbuf_addstr(out, first ? "{\"cells\":" : ",{\"cells\":");
	api_json_add(out, cells);
	json_decref(cells);
	if (include && !strcmp(include, "None")) {
		strbuf_addch(out, '}');
		return;
	}
	strbuf_addstr(out, ",\"object\":");
	if (include && !strcmp(include, "Object")) {
		if (text)
			strbuf_add(out, text, len);
		else
			api_json_add(out, obj);
	} else {
		strbuf_addstr(out, "{\"kind\":\"PartialObjectMetadata\","
				   "\"apiVersion\":\"meta.k8s.io/v1\","
				   "\"metadata\":");
		if (text && api_json_member(text, len, "metadata", &md, &mdlen))
			strbuf_add(out, md, mdlen);
		else
			api_json_add(out, json_object_get(obj, "metadata"));
		strbuf_addch(out, '}');
	}
	strbuf_addch(out, '}');
}

void api_table_row(struct strbuf *out, const json_t *obj,
		   const struct api_kind *k, const char *include, bool first,
		   int64_t now_us)
{
	api_table_row_text(out, obj, NULL, 0, k, include, first, now_us);
}

void api_resp_obj(struct api_resp *resp, int code, const json_t *obj,
		  const struct api_kind *k, enum api_table table,
		  const char *include, int64_t now_us)
{
	resp->code = code;
	resp->content_type = "application/json";
	strbuf_reset(&resp->body);
	if (table == API_TABLE_NONE) {
		api_json_add(&resp->body, obj);
		return;
	}
	api_table_open(
		&resp->body, k, table,
		json_string_value(json_object_get(
			json_object_get(obj, "metadata"), "resourceVersion")),
		NULL, -1);
	api_table_row(&resp->body, obj, k, include, true, now_us);
	strbuf_addstr(&resp->body, "]}");
}

/* Bodies in */

/* The deepest nesting of arrays and objects in JSON text, scanning
 * strings correctly; stops counting past limit. */
static int json_depth(const char *p, size_t len, int limit)
{
	int depth = 0, max = 0;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = p[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				max = depth;
			if (max > limit)
				return max;
		} else if (c == ']' || c == '}') {
			depth--;
		}
	}
	return max;
}

/* The media type of a Content-Type, without parameters. */
static void media_type(const char *ct, char *buf, size_t size)
{
	size_t n = 0;

	while (ct && ct[n] && ct[n] != ';' && ct[n] != ' ' && n + 1 < size) {
		buf[n] = (char)tolower((unsigned char)ct[n]);
		n++;
	}
	buf[n] = '\0';
}

int api_decode_body(const struct api_req *r, bool patch, json_t **ret,
		    struct api_resp *resp)
{
	struct errbuf err;
	char mt[96];
	bool yaml = false, deep;
	json_error_t jerr;
	json_t *v = NULL;

	if (r->body_len > API_MAX_BODY) {
		api_resp_status(resp, 413, "RequestEntityTooLarge",
				"the request body is %zu bytes, more than the "
				"limit of %u",
				r->body_len, API_MAX_BODY);
		return -EFBIG;
	}
	media_type(r->content_type, mt, sizeof(mt));
	if (patch) {
		if (api_patch_type_of(r->content_type) < 0)
			goto unsupported;
		yaml = api_patch_type_of(r->content_type) == API_PATCH_APPLY;
	} else if (!strcmp(mt, "application/yaml")) {
		yaml = true;
	} else if (*mt && strcmp(mt, "application/json") && strcmp(mt, "*/*")) {
		goto unsupported;
	}
	if (!r->body || !r->body_len) {
		api_resp_status(resp, 400, "BadRequest",
				"the request body is empty");
		return -EINVAL;
	}
	/* Brackets counted outside JSON strings: a YAML body may hold them
	 * in plain scalars, so it goes to the YAML decoder, which counts
	 * its collections itself. */
	deep = json_depth(r->body, r->body_len, API_MAX_DEPTH) > API_MAX_DEPTH;
	if (deep && !yaml) {
		api_resp_status(resp, 400, "BadRequest",
				"the request body nests deeper than %d levels",
				API_MAX_DEPTH);
		return -EINVAL;
	}
	if (!deep)
		v = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES,
			       &jerr);
	if (!v && yaml) {
		if (api_patch_decode_yaml(r->body, r->body_len, API_MAX_DEPTH,
					  &v, &err)) {
			api_resp_status(resp, 400, "BadRequest",
					"the request body is not valid YAML: "
					"%s",
					err.msg);
			return -EINVAL;
		}
	} else if (!v) {
		api_resp_status(resp, 400, "BadRequest",
				"the request body is not valid JSON: line %d, "
				"column %d: %s",
				jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	*ret = v;
	return 0;
unsupported:
	api_resp_status(resp, 415, "UnsupportedMediaType",
			"the body of the request was in an unknown format - "
			"accepted media types include: %s",
			patch ? "application/json-patch+json, "
				"application/merge-patch+json, "
				"application/apply-patch+yaml, "
				"application/strategic-merge-patch+json"
			      : "application/json, application/yaml");
	return -EINVAL;
}

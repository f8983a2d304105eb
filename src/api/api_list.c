// SPDX-License-Identifier: Apache-2.0
/*
 * Reads: get and list, as objects or as Tables, with selectors and
 * pagination. A list walks the kind's objects in (namespace, name) order
 * from the continue key and appends each object's stored compact text to
 * the reply, so a list costs a copy per object and nothing per object of
 * other kinds; only views of another version (events.k8s.io Events,
 * Kueue v1beta1) are converted one by one.
 *
 * The continue token is "<rv>.<hex of namespace/name>": the list's
 * resourceVersion and the last key returned. Later pages show objects as
 * they are now (not as they were at rv, as etcd would); a token older than
 * the history gets 410 Expired, as Kubernetes answers an expired one.
 */
#include "api/api.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "api/api_json.h"
#include "api/api_kind.h"
#include "api/api_select.h"
#include "base/alloc.h"

#include "base/banned.h"

void api_get(struct api *a, const struct api_target *t,
	     const struct api_query *q, const struct api_req *r, int64_t now_us,
	     struct api_resp *resp)
{
	const struct api_kind *sk = api_kind_storage(t->kind);
	const struct api_obj *o = api_store_get(a->s, sk, t->ns, t->name);
	enum api_table table = api_accept_table(r->accept);
	json_t *v;

	if (!o) {
		api_resp_not_found(resp, t->kind, t->name);
		return;
	}
	if (table == API_TABLE_NONE) {
		resp->code = 200;
		api_add_obj(&resp->body, o, t->kind, t->version);
		return;
	}
	v = api_obj_view(o, t->kind, t->version);
	api_resp_obj(resp, 200, v, t->kind, table, q->include_object, now_us);
	json_decref(v);
}

/* Continue tokens */

static char *token_make(uint64_t rv, const char *ns, const char *name)
{
	struct strbuf sb;
	char *tok;

	strbuf_init(&sb);
	strbuf_addf(&sb, "%" PRIu64 ".", rv);
	for (const char *p = ns; *p; p++)
		strbuf_addf(&sb, "%02x", (unsigned char)*p);
	strbuf_addstr(&sb, "2f");
	for (const char *p = name; *p; p++)
		strbuf_addf(&sb, "%02x", (unsigned char)*p);
	tok = strbuf_take(&sb);
	strbuf_release(&sb);
	return tok;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parse a token into rv and the key (ns and name, new strings). */
static int token_parse(const char *tok, uint64_t *rv, char **ns, char **name)
{
	const char *dot = strchr(tok, '.'), *p;
	char *key, *slash;
	size_t n = 0;

	if (!dot || dot == tok || strlen(dot + 1) % 2 || strlen(tok) > 2048)
		return -EINVAL;
	if (!api_rv_parse(tok, (size_t)(dot - tok), rv))
		return -EINVAL;
	key = xmalloc(strlen(dot + 1) / 2 + 1);
	for (p = dot + 1; *p; p += 2) {
		int hi = hex(p[0]), lo = hex(p[1]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			free(key);
			return -EINVAL;
		}
		key[n++] = (char)(hi * 16 + lo);
	}
	key[n] = '\0';
	slash = strchr(key, '/');
	if (!slash || !slash[1] || strchr(slash + 1, '/')) {
		free(key);
		return -EINVAL;
	}
	*slash = '\0';
	*ns = xstrdup(key);
	*name = xstrdup(slash + 1);
	free(key);
	return 0;
}

struct list_walk {
	const struct api_target *t;
	const struct api_select *sel;
	enum api_table table;
	const char *include;
	int64_t now_us;
	long long limit;
	size_t count;
	struct strbuf *items;
	const struct api_obj *last;
	bool more;
};

/* The registry's own string for version (NULL: the preferred one), or
 * NULL when k does not serve it. */
static const char *served_version(const struct api_kind *k, const char *v)
{
	if (!v)
		return k->versions[0];
	for (size_t i = 0; i < ARRAY_SIZE(k->versions) && k->versions[i]; i++)
		if (!strcmp(k->versions[i], v))
			return k->versions[i];
	return NULL;
}

/* o's Table row, from the row kept with o when it was made for the same
 * view, include mode and second (api_store_row), else made and kept. */
static void list_row(struct list_walk *w, const struct api_obj *o, json_t **v)
{
	const struct api_kind *k = w->t->kind;
	const char *version = served_version(k, w->t->version);
	const char *inc = w->include ? w->include : "";
	int tag = !strcmp(inc, "None") ? 1 : !strcmp(inc, "Object") ? 2 : 0;
	int64_t sec = w->now_us / 1000000;
	const char *row = NULL, *text;
	size_t len, start = w->items->len;

	if (version)
		row = api_store_row(o, k, version, tag, sec, &len);
	if (row) {
		strbuf_add(w->items, row, len);
		return;
	}
	if (!*v)
		*v = api_obj_view(o, k, w->t->version);
	text = api_store_view(o, k, w->t->version, &len);
	api_table_row_text(w->items, *v, text, len, k, w->include, true,
			   w->now_us);
	if (version)
		api_store_row_keep(o, k, version, tag, sec,
				   w->items->buf + start,
				   w->items->len - start);
}

static int list_one(void *ctx, const struct api_obj *o)
{
	struct list_walk *w = ctx;
	const struct api_kind *k = w->t->kind;
	json_t *v = NULL;

	if (w->sel) {
		v = api_obj_view(o, k, w->t->version);
		if (!api_select_match(w->sel, v)) {
			json_decref(v);
			return 0;
		}
	}
	if (w->limit && (long long)w->count == w->limit) {
		w->more = true;
		json_decref(v);
		return 1;
	}
	if (w->table != API_TABLE_NONE) {
		if (w->count)
			strbuf_addch(w->items, ',');
		list_row(w, o, &v);
	} else {
		if (w->count)
			strbuf_addch(w->items, ',');
		api_add_obj(w->items, o, k, w->t->version);
	}
	json_decref(v);
	w->count++;
	w->last = o;
	return 0;
}

/* resourceVersion and resourceVersionMatch of a list: 0, or a Status. */
static int check_list_rv(const struct api *a, const struct api_query *q,
			 struct api_resp *resp)
{
	uint64_t now = api_store_rv(a->s), rv;

	if (q->rv_match && *q->rv_match && (!q->rv || !*q->rv)) {
		api_resp_status(resp, 400, "BadRequest",
				"resourceVersionMatch is forbidden unless "
				"resourceVersion is provided");
		return -EINVAL;
	}
	if (q->rv_match && *q->rv_match && strcmp(q->rv_match, "Exact") &&
	    strcmp(q->rv_match, "NotOlderThan")) {
		api_resp_status(resp, 400, "BadRequest",
				"resourceVersionMatch: unsupported value "
				"\"%.64s\": supported values: \"Exact\", "
				"\"NotOlderThan\"",
				q->rv_match);
		return -EINVAL;
	}
	if (!q->rv || !*q->rv)
		return 0;
	if (!api_rv_parse(q->rv, strlen(q->rv), &rv)) {
		api_resp_status(resp, 400, "BadRequest",
				"invalid resource version \"%.64s\"", q->rv);
		return -EINVAL;
	}
	if (rv > now) {
		api_resp_status(resp, 504, "Timeout",
				"Too large resource version: %" PRIu64
				", current: %" PRIu64,
				rv, now);
		return -EINVAL;
	}
	if (q->rv_match && !strcmp(q->rv_match, "Exact") && rv != now) {
		api_resp_status(resp, 410, "Expired",
				"too old resource version: %" PRIu64
				" (%" PRIu64 ")",
				rv, now);
		return -EINVAL;
	}
	return 0;
}

static void list_open(struct strbuf *out, const struct api_target *t,
		      const char *rv, const char *cont, long long remaining)
{
	char gv[96];

	strbuf_addf(out, "{\"kind\":\"%sList\",\"apiVersion\":", t->kind->kind);
	strbuf_add_json_string(
		out, api_kind_gv(t->kind, t->version, gv, sizeof(gv)));
	strbuf_addstr(out, ",\"metadata\":{\"resourceVersion\":");
	strbuf_add_json_string(out, rv);
	if (cont) {
		strbuf_addstr(out, ",\"continue\":");
		strbuf_add_json_string(out, cont);
	}
	if (remaining >= 0)
		strbuf_addf(out, ",\"remainingItemCount\":%lld", remaining);
	strbuf_addstr(out, "},\"items\":[");
}

void api_list(struct api *a, const struct api_target *t,
	      const struct api_query *q, const struct api_req *r,
	      int64_t now_us, struct api_resp *resp)
{
	struct list_walk w = {
		.t = t,
		.table = api_accept_table(r->accept),
		.include = q->include_object,
		.now_us = now_us,
		.limit = q->limit,
	};
	struct api_select *sel = NULL;
	char *after_ns = NULL, *after_name = NULL, *cont = NULL;
	uint64_t rv = api_store_rv(a->s);
	struct errbuf err;
	struct strbuf items;
	long long remaining;
	char rvs[24];

	strbuf_init(&items);
	if (check_list_rv(a, q, resp))
		goto out;
	if (q->cont && *q->cont) {
		if (token_parse(q->cont, &rv, &after_ns, &after_name) ||
		    rv > api_store_rv(a->s)) {
			api_resp_status(resp, 400, "BadRequest",
					"continue key is not valid: "
					"\"%.128s\"",
					q->cont);
			goto out;
		}
		if (rv < api_store_oldest_rv(a->s)) {
			api_resp_status(
				resp, 410, "Expired",
				"The provided continue parameter is too old "
				"to display a consistent list result. You "
				"can start a new list without the continue "
				"parameter.");
			goto out;
		}
	}
	if (api_select_parse(t->kind, q->label_selector, q->field_selector,
			     &sel, &err)) {
		api_resp_status(resp, 400, "BadRequest", "%s", err.msg);
		goto out;
	}
	w.sel = sel;
	w.items = &items;
	(void)api_store_each(a->s, api_kind_storage(t->kind), t->ns, after_ns,
			     after_name, list_one, &w);
	if (w.more && w.last)
		cont = token_make(rv, w.last->ns, w.last->name);
	/* as Kubernetes: how many more, when no selector filters them */
	remaining = cont && !sel ? (long long)api_store_count_after(
					   a->s, api_kind_storage(t->kind),
					   t->ns, w.last->ns, w.last->name)
				 : -1;
	snprintf(rvs, sizeof(rvs), "%" PRIu64, rv);
	resp->code = 200;
	if (w.table != API_TABLE_NONE)
		api_table_open(&resp->body, t->kind, w.table, rvs, cont,
			       remaining);
	else
		list_open(&resp->body, t, rvs, cont, remaining);
	strbuf_add(&resp->body, items.buf, items.len);
	strbuf_addstr(&resp->body, "]}");
out:
	api_select_free(sel);
	free(after_ns);
	free(after_name);
	free(cont);
	strbuf_release(&items);
}

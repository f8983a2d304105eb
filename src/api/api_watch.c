// SPDX-License-Identifier: Apache-2.0
/*
 * Watches: a cursor into the store's history per watcher, pumped by the
 * daemon with api_watch_next() when the store changed or a deadline came.
 *
 * A watch from resourceVersion X sends the changes after X; one from "0",
 * unset, or with sendInitialEvents=true first sends the current objects
 * as ADDED (walked in key order from a saved position, so that a large
 * kind is sent over several calls), then the changes since the walk
 * began; with sendInitialEvents the end of the walk is a BOOKMARK
 * annotated k8s.io/initial-events-end. A cursor the history no longer
 * holds ends the watch with one ERROR event (410 Expired).
 *
 * With a selector, each watcher keeps the keys of the objects it has
 * shown, so that an object that starts to match arrives as ADDED and one
 * that stops matching as DELETED, as Kubernetes' watch cache does.
 * Each call writes at most WATCH_BATCH events, so one watcher cannot
 * stall the daemon's loop.
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
#include "base/hmap.h"

#include "base/banned.h"

#define WATCH_BATCH	   1000
#define BOOKMARK_PERIOD_US (60 * 1000000LL)

struct api_watch {
	struct api_store *s;
	const struct api_kind *k, *sk;
	const char *version;
	char *ns; /* NULL: all */
	struct api_select *sel;
	enum api_table table;
	char *include;
	uint64_t cursor;
	long long timeout_s;
	bool bookmarks, started, ended, backlog;
	int64_t deadline_us, bookmark_us;
	/* Table ages: the embedded clock when the watch was opened, and
	 * the daemon's clock at its first call. */
	int64_t opened_us, first_us;
	/* Initial events: walking, from after (walk_ns, walk_name). */
	bool initial, walking, end_bookmark;
	char *walk_ns, *walk_name;
	struct hmap shown; /* "ns/name" of objects shown (with sel) */
	size_t budget;
};

/* Whether an object of kind ok is sent as its text (else as converted or
 * a Table row, from its body). */
static bool as_text(const struct api_watch *w, const struct api_kind *ok,
		    const char *text)
{
	return w->table == API_TABLE_NONE && text && ok == w->k &&
	       !strcmp(w->version, w->k->versions[0]);
}

/* body: NULL when as_text(). */
static void watch_event(struct api_watch *w, struct strbuf *out,
			const char *type, const json_t *body,
			const struct api_kind *ok, const char *text, size_t len,
			int64_t now_us)
{
	bool same = ok == w->k && !strcmp(w->version, w->k->versions[0]);

	strbuf_addf(out, "{\"type\":\"%s\",\"object\":", type);
	if (!as_text(w, ok, text)) {
		json_t *v = same ? json_incref((json_t *)body)
				 : api_kind_convert(body, w->k, w->version);

		if (w->table != API_TABLE_NONE) {
			api_table_open(out, w->k, w->table,
				       json_string_value(json_object_get(
					       json_object_get(v, "metadata"),
					       "resourceVersion")),
				       NULL, -1);
			api_table_row_text(out, v, same ? text : NULL, len,
					   w->k, w->include, true, now_us);
			strbuf_addstr(out, "]}");
		} else {
			api_json_add(out, v);
		}
		json_decref(v);
	} else {
		strbuf_add(out, text, len);
	}
	strbuf_addstr(out, "}\n");
	if (w->budget)
		w->budget--;
}

static void bookmark(struct api_watch *w, struct strbuf *out, bool end)
{
	char gv[96];

	strbuf_addstr(out, "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":");
	strbuf_add_json_string(out, w->k->kind);
	strbuf_addstr(out, ",\"apiVersion\":");
	strbuf_add_json_string(out,
			       api_kind_gv(w->k, w->version, gv, sizeof(gv)));
	strbuf_addf(out, ",\"metadata\":{\"resourceVersion\":\"%" PRIu64 "\"",
		    w->cursor);
	if (end)
		strbuf_addstr(out, ",\"annotations\":{\"k8s.io/"
				   "initial-events-end\":\"true\"}");
	strbuf_addstr(out, "}}}\n");
}

static void expired(struct api_watch *w, struct strbuf *out)
{
	char msg[128];
	json_t *st;

	snprintf(msg, sizeof(msg),
		 "too old resource version: %" PRIu64 " (%" PRIu64 ")",
		 w->cursor, api_store_oldest_rv(w->s) + 1);
	st = api_status_body(410, "Expired", msg, NULL);
	strbuf_addstr(out, "{\"type\":\"ERROR\",\"object\":");
	api_json_add(out, st);
	strbuf_addstr(out, "}\n");
	json_decref(st);
	w->ended = true;
}

static void key_of(char *buf, size_t size, const char *ns, const char *name)
{
	snprintf(buf, size, "%s/%s", ns, name);
}

static bool matches(const struct api_watch *w, const struct api_kind *ok,
		    const json_t *body)
{
	json_t *v;
	bool m;

	if (!w->sel)
		return true;
	if (ok == w->k && !strcmp(w->version, w->k->versions[0]))
		return api_select_match(w->sel, body);
	v = api_kind_convert(body, w->k, w->version);
	m = api_select_match(w->sel, v);
	json_decref(v);
	return m;
}

struct walk {
	struct api_watch *w;
	struct strbuf *out;
	int64_t now_us;
};

static int walk_one(void *ctx, const struct api_obj *o)
{
	struct walk *x = ctx;
	struct api_watch *w = x->w;
	char key[600];

	if (!w->budget)
		return 1;
	free(w->walk_ns);
	free(w->walk_name);
	w->walk_ns = xstrdup(o->ns);
	w->walk_name = xstrdup(o->name);
	if (!matches(w, o->kind, o->body))
		return 0;
	if (w->sel) {
		key_of(key, sizeof(key), o->ns, o->name);
		hmap_put_str(&w->shown, key, 1);
	}
	watch_event(w, x->out, "ADDED", o->body, o->kind, o->text, o->len,
		    x->now_us);
	return 0;
}

/* Note the objects a selector shows now (a watch from a resourceVersion,
 * with no initial events). */
static int note_shown(void *ctx, const struct api_obj *o)
{
	struct api_watch *w = ctx;
	char key[600];

	if (matches(w, o->kind, o->body)) {
		key_of(key, sizeof(key), o->ns, o->name);
		hmap_put_str(&w->shown, key, 1);
	}
	return 0;
}

static int event_one(void *ctx, const struct api_event *ev)
{
	struct walk *x = ctx;
	struct api_watch *w = x->w;
	static const char *const names[] = { "ADDED", "MODIFIED", "DELETED" };
	const char *type = names[ev->type];
	char key[600];

	if (!w->budget)
		return 1;
	w->cursor = ev->rv;
	if (ev->kind != w->sk || (w->ns && strcmp(ev->ns, w->ns)))
		return 0;
	if (w->sel) {
		bool now = ev->type != API_DELETED &&
			   matches(w, ev->kind, api_event_body(ev));
		bool was;

		key_of(key, sizeof(key), ev->ns, ev->name);
		was = hmap_get_str(&w->shown, key, NULL);
		if (ev->type == API_DELETED && !was)
			return 0;
		if (now && !was) {
			type = "ADDED";
			hmap_put_str(&w->shown, key, 1);
		} else if (!now && was) {
			type = "DELETED";
			hmap_del(&w->shown, key, strlen(key));
		} else if (!now) {
			return 0;
		}
	}
	watch_event(w, x->out, type,
		    as_text(w, ev->kind, ev->text) ? NULL : api_event_body(ev),
		    ev->kind, ev->text, ev->len, x->now_us);
	return 0;
}

static void start(struct api_watch *w, int64_t now_us)
{
	w->started = true;
	w->first_us = now_us;
	w->deadline_us = w->timeout_s > 0 ? now_us + w->timeout_s * 1000000LL
					  : INT64_MAX;
	w->bookmark_us = w->bookmarks ? now_us + BOOKMARK_PERIOD_US : INT64_MAX;
	if (w->initial) {
		w->cursor = api_store_rv(w->s);
		w->walking = true;
	} else if (w->sel && w->cursor >= api_store_oldest_rv(w->s)) {
		(void)api_store_each(w->s, w->sk, w->ns, NULL, NULL, note_shown,
				     w);
	}
}

int api_watch_next(struct api_watch *w, int64_t now_us, struct strbuf *out)
{
	struct walk x = { w, out, now_us };
	int rc;

	if (w->ended)
		return 0;
	if (!w->started)
		start(w, now_us);
	/* Cells are computed on the embedded clock, as the list's were. */
	x.now_us = w->opened_us + (now_us - w->first_us);
	w->budget = WATCH_BATCH;
	if (w->walking) {
		rc = api_store_each(w->s, w->sk, w->ns, w->walk_ns,
				    w->walk_name, walk_one, &x);
		if (rc) {
			w->backlog = true;
			return 1;
		}
		w->walking = false;
		if (w->end_bookmark)
			bookmark(w, out, true);
	}
	rc = api_store_events(w->s, w->cursor, event_one, &x);
	if (rc == -ERANGE) {
		expired(w, out);
		return 0;
	}
	w->backlog = rc != 0;
	if (now_us >= w->deadline_us) {
		w->ended = true;
		return 0;
	}
	if (!w->backlog && now_us >= w->bookmark_us) {
		bookmark(w, out, false);
		w->bookmark_us = now_us + BOOKMARK_PERIOD_US;
	}
	return 1;
}

int64_t api_watch_deadline_us(const struct api_watch *w)
{
	if (w->ended)
		return INT64_MAX;
	if (!w->started || w->backlog)
		return 0;
	return w->deadline_us < w->bookmark_us ? w->deadline_us
					       : w->bookmark_us;
}

void api_watch_free(struct api_watch *w)
{
	if (!w)
		return;
	free(w->ns);
	free(w->include);
	free(w->walk_ns);
	free(w->walk_name);
	api_select_free(w->sel);
	hmap_release(&w->shown);
	free(w);
}

void api_watch_start(struct api *a, const struct api_target *t,
		     const struct api_query *q, const struct api_req *r,
		     int64_t now_us, struct api_resp *resp)
{
	struct api_watch *w = xcalloc(1, sizeof(*w));
	struct errbuf err;
	bool from_now = !q->rv || !*q->rv || !strcmp(q->rv, "0");

	w->s = a->s;
	w->opened_us = now_us;
	w->k = t->kind;
	w->sk = api_kind_storage(t->kind);
	w->version = t->version;
	w->ns = t->ns ? xstrdup(t->ns) : NULL;
	w->table = api_accept_table(r->accept);
	w->include = q->include_object ? xstrdup(q->include_object) : NULL;
	w->timeout_s = q->timeout_s;
	w->bookmarks = q->bookmarks;
	hmap_init(&w->shown);
	if (!from_now) {
		if (!api_rv_parse(q->rv, strlen(q->rv), &w->cursor)) {
			api_resp_status(resp, 400, "BadRequest",
					"invalid resource version \"%.64s\"",
					q->rv);
			goto fail;
		}
	}
	/* sendInitialEvents=true: the state, then the end bookmark; "0" or
	 * unset: the state too (unless sendInitialEvents=false). */
	w->initial = q->send_initial_set ? q->send_initial : from_now;
	w->end_bookmark = q->send_initial_set && q->send_initial;
	if (w->end_bookmark && !q->bookmarks) {
		api_resp_status(resp, 422, "Invalid",
				"ListOptions.meta.k8s.io \"\" is invalid: "
				"allowWatchBookmarks: Required value: "
				"allowWatchBookmarks must be set to true when "
				"sendInitialEvents is true");
		goto fail;
	}
	if (!w->initial && from_now)
		w->cursor = api_store_rv(a->s);
	if (api_select_parse(t->kind, q->label_selector, q->field_selector,
			     &w->sel, &err)) {
		api_resp_status(resp, 400, "BadRequest", "%s", err.msg);
		goto fail;
	}
	resp->code = 200;
	resp->content_type = "application/json";
	resp->watch = w;
	return;
fail:
	api_watch_free(w);
}

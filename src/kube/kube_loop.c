// SPDX-License-Identifier: Apache-2.0
/*
 * The in-process transport: calls answered by a struct api, in order, at
 * the clock kube_loop_run() is given, with seeded faults. See kube_loop.h.
 *
 * Calls live in a vector of pointers; cancel() only marks a call dead
 * (it may be the one whose callback is running), and run() frees the dead
 * ones after its pass, so callbacks may send and cancel freely.
 */
#include "kube/kube_loop.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/diag.h"
#include "base/rng.h"
#include "base/strbuf.h"
#include "base/vec.h"

#include "base/banned.h"

#define BACKOFF_MIN_US	 100000LL
#define BACKOFF_MAX_US	 5000000LL
#define RETRY_AFTER_US	 1000000LL /* of an injected 429 */
#define DEFAULT_RETRY_US 30000000LL
#define MAX_CALLBACKS	 100000 /* per run: a bound on callback loops */

struct lcall {
	uint64_t id;
	char *method, *path, *query, *ctype, *body;
	size_t len;
	unsigned flags;
	int64_t retry_us;
	kube_done_fn done;
	kube_line_fn line;
	void *ctx;
	int64_t due_us;	  /* not answered before */
	int64_t first_us; /* first try's clock (the retry budget) */
	unsigned tries;
	struct api_watch *w; /* an open stream */
	struct strbuf rest;  /* a stream's text not yet a whole line */
	bool dead;
};

struct kube_loop {
	struct api *api;
	VEC(struct lcall *) calls;
	uint64_t next_id;
	int64_t now_us;
	bool faulty;
	struct kube_loop_faults f;
	struct rng rng;
};

struct kube_loop *kube_loop_new(struct api *api)
{
	struct kube_loop *l = xcalloc(1, sizeof(*l));

	l->api = api;
	l->next_id = 1;
	rng_seed(&l->rng, 1);
	return l;
}

static void call_free(struct lcall *c)
{
	free(c->method);
	free(c->path);
	free(c->query);
	free(c->ctype);
	free(c->body);
	if (c->w)
		api_watch_free(c->w);
	strbuf_release(&c->rest);
	free(c);
}

void kube_loop_free(struct kube_loop *l)
{
	if (!l)
		return;
	vec_foreach (&l->calls, c)
		call_free(*c);
	vec_release(&l->calls);
	free(l);
}

void kube_loop_set_faults(struct kube_loop *l, const struct kube_loop_faults *f)
{
	l->faulty = f != NULL;
	memset(&l->f, 0, sizeof(l->f));
	if (f) {
		l->f = *f;
		rng_seed(&l->rng, f->seed);
	}
}

static uint64_t loop_send(void *impl, const struct kube_call *kc,
			  kube_done_fn done, kube_line_fn line, void *ctx)
{
	struct kube_loop *l = impl;
	struct lcall *c = xcalloc(1, sizeof(*c));
	const char *q = strchr(kc->path, '?');

	BUG_ON(!done || ((kc->flags & KUBE_STREAM) && !line));
	c->id = l->next_id++;
	c->method = xstrdup(kc->method);
	c->path = q ? xstrndup(kc->path, (size_t)(q - kc->path))
		    : xstrdup(kc->path);
	c->query = q ? xstrdup(q + 1) : NULL;
	c->ctype = kc->content_type ? xstrdup(kc->content_type) : NULL;
	if (kc->body) {
		c->body = xmalloc(kc->len + 1);
		memcpy(c->body, kc->body, kc->len);
		c->body[kc->len] = '\0';
		c->len = kc->len;
	}
	c->flags = kc->flags;
	c->retry_us = kc->retry_us > 0 ? kc->retry_us : DEFAULT_RETRY_US;
	c->done = done;
	c->line = line;
	c->ctx = ctx;
	c->due_us = l->now_us;
	strbuf_init(&c->rest);
	vec_push(&l->calls, c);
	return c->id;
}

static void loop_cancel(void *impl, uint64_t id)
{
	struct kube_loop *l = impl;

	vec_foreach (&l->calls, c) {
		if ((*c)->id == id)
			(*c)->dead = true;
	}
}

struct kube_transport kube_loop_transport(struct kube_loop *l)
{
	return (struct kube_transport){ .send = loop_send,
					.cancel = loop_cancel,
					.impl = l };
}

static bool transient(int code)
{
	return code == 0 || code == 429 || code == 500 || code == 502 ||
	       code == 503 || code == 504;
}

/* The status of an injected failure of c, or 0 for none. */
static int fault_code(struct kube_loop *l, const struct lcall *c)
{
	static const int mix[] = { 409, 404, 429, 500 };

	if (!l->faulty || l->f.fail <= 0)
		return 0;
	if (l->f.only && !strstr(c->path, l->f.only))
		return 0;
	if (rng_double(&l->rng) >= l->f.fail)
		return 0;
	return l->f.fail_code ? l->f.fail_code : mix[rng_below(&l->rng, 4)];
}

static const char *reason_of(int code)
{
	switch (code) {
	case 404:
		return "NotFound";
	case 409:
		return "Conflict";
	case 410:
		return "Expired";
	case 429:
		return "TooManyRequests";
	default:
		return "InternalError";
	}
}

/* End c with reply r: a retry when the call asked for one and the
 * failure is transient within its budget, else done(). */
static void finish(struct kube_loop *l, struct lcall *c,
		   const struct kube_reply *r)
{
	int64_t wait;

	if ((c->flags & KUBE_RETRY) && transient(r->code) &&
	    l->now_us - c->first_us < c->retry_us) {
		wait = BACKOFF_MIN_US << (c->tries < 6 ? c->tries - 1 : 6);
		if (wait > BACKOFF_MAX_US)
			wait = BACKOFF_MAX_US;
		wait = wait / 2 +
		       (int64_t)rng_below(&l->rng, (uint64_t)wait / 2 + 1);
		if (r->retry_after_us > wait)
			wait = r->retry_after_us;
		c->due_us = l->now_us + wait;
		return;
	}
	c->dead = true;
	c->done(c->ctx, r);
}

/* Answer a failure of code without asking the api. */
static void inject(struct kube_loop *l, struct lcall *c, int code)
{
	struct kube_reply r = { .code = code, .tries = c->tries };
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addf(&sb,
		    "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
		    "\"metadata\":{},\"status\":\"Failure\",\"message\":"
		    "\"injected %d\",\"reason\":\"%s\",\"code\":%d}",
		    code, reason_of(code), code);
	r.body = sb.buf;
	r.len = sb.len;
	if (code == 429)
		r.retry_after_us = RETRY_AFTER_US;
	finish(l, c, &r);
	strbuf_release(&sb);
}

/* First answer of c: the api's reply, or the stream it opens. */
static void start(struct kube_loop *l, struct lcall *c)
{
	struct api_req req = { .method = c->method,
			       .path = c->path,
			       .query = c->query,
			       .accept = "application/json",
			       .content_type = c->ctype,
			       .body = c->body,
			       .body_len = c->len,
			       .user_agent = "echelon-kube-loop" };
	struct api_resp resp;
	struct kube_reply r = { 0 };
	int code;

	if (!c->tries++)
		c->first_us = l->now_us;
	code = fault_code(l, c);
	if (code) {
		inject(l, c, code);
		return;
	}
	api_handle(l->api, &req, l->now_us, &resp);
	if (resp.watch && (c->flags & KUBE_STREAM) && resp.code == 200) {
		c->w = resp.watch;
		resp.watch = NULL;
		api_resp_release(&resp);
		return;
	}
	r.code = resp.code;
	r.body = resp.body.buf ? resp.body.buf : "";
	r.len = resp.body.len;
	r.tries = c->tries;
	finish(l, c, &r);
	api_resp_release(&resp);
}

static void stream_end(struct lcall *c, int code, const char *error)
{
	struct kube_reply r = { .code = code, .body = "", .error = error };

	c->dead = true;
	c->done(c->ctx, &r);
}

/* Deliver whole lines of c->rest; faults may end the stream. Returns the
 * callbacks run. */
static int stream_lines(struct kube_loop *l, struct lcall *c)
{
	static const char expired[] =
		"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
		"\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
		"\"message\":\"too old resource version (injected)\","
		"\"reason\":\"Expired\",\"code\":410}}";
	size_t at = 0, n = 0;
	char *nl;

	while (!c->dead && (nl = memchr(c->rest.buf + at, '\n',
					c->rest.len - at)) != NULL) {
		if (l->faulty && l->f.expire > 0 &&
		    rng_double(&l->rng) < l->f.expire) {
			n++;
			if (!c->line(c->ctx, expired, sizeof(expired) - 1))
				stream_end(c, 200, NULL);
			else
				stream_end(c, 0, "closed");
			break;
		}
		n++;
		if (c->line(c->ctx, c->rest.buf + at,
			    (size_t)(nl - (c->rest.buf + at)))) {
			stream_end(c, 0, "closed");
			break;
		}
		at = (size_t)(nl - c->rest.buf) + 1;
		if (!c->dead && l->faulty && l->f.drop > 0 &&
		    rng_double(&l->rng) < l->f.drop) {
			stream_end(c, 0, "connection dropped (injected)");
			n++;
		}
	}
	if (!c->dead) {
		memmove(c->rest.buf, c->rest.buf + at, c->rest.len - at);
		strbuf_truncate(&c->rest, c->rest.len - at);
	}
	return (int)n;
}

static int pump(struct kube_loop *l, struct lcall *c)
{
	int more = api_watch_next(c->w, l->now_us, &c->rest);
	int n = stream_lines(l, c);

	if (!c->dead && !more) {
		stream_end(c, 200, NULL);
		n++;
	}
	return n;
}

static void reap(struct kube_loop *l)
{
	size_t j = 0;

	for (size_t i = 0; i < l->calls.len; i++) {
		if (l->calls.items[i]->dead)
			call_free(l->calls.items[i]);
		else
			l->calls.items[j++] = l->calls.items[i];
	}
	l->calls.len = j;
}

int kube_loop_run(struct kube_loop *l, int64_t now_us)
{
	int n = 0;

	if (now_us > l->now_us)
		l->now_us = now_us;
	/* Calls sent by callbacks are appended and answered in this pass. */
	for (size_t i = 0; i < l->calls.len && n < MAX_CALLBACKS; i++) {
		struct lcall *c = l->calls.items[i];

		if (c->dead)
			continue;
		if (c->w) {
			n += pump(l, c);
			continue;
		}
		if (c->due_us > l->now_us)
			continue;
		start(l, c);
		if (c->dead)
			n++;
		else if (c->w)
			n += pump(l, c);
	}
	reap(l);
	return n;
}

unsigned kube_loop_active(const struct kube_loop *l)
{
	unsigned n = 0;

	for (size_t i = 0; i < l->calls.len; i++)
		n += !l->calls.items[i]->dead;
	return n;
}

int64_t kube_loop_next_us(const struct kube_loop *l)
{
	int64_t next = INT64_MAX, t;

	for (size_t i = 0; i < l->calls.len; i++) {
		const struct lcall *c = l->calls.items[i];

		if (c->dead)
			continue;
		t = c->w ? api_watch_deadline_us(c->w) : c->due_us;
		if (t < next)
			next = t;
	}
	return next;
}

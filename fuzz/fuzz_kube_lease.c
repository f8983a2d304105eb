// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz target for the Lease election's reading of what a server answers:
 * the input is one Lease body (after a first byte that picks the GET's
 * status and how the write is answered), served to a kube_lease through
 * a scripted transport. Whatever the body, the lease must not crash,
 * must lead only after a write of its own was accepted, and every write
 * it sends must be a Lease naming it (or, released, nobody) with the
 * resourceVersion it read. A follower's watch gets the body too, as a
 * line and as a MODIFIED event.
 */
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/errbuf.h"
#include "kube/kube_lease.h"

#include "base/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One call waiting for its answer, and the watch. */
struct script {
	kube_done_fn done;
	void *ctx;
	uint64_t id;
	char method[8];
	char *body;
	kube_line_fn line;
	void *watch_ctx;
	uint64_t watch;
};

static uint64_t script_send(void *impl, const struct kube_call *c,
			    kube_done_fn done, kube_line_fn line, void *ctx)
{
	struct script *s = impl;

	if (c->flags & KUBE_STREAM) {
		BUG_ON(s->watch || strcmp(c->method, "GET") ||
		       c->flags != (KUBE_STREAM | KUBE_NO_LIMIT) || !line);
		s->line = line;
		s->watch_ctx = ctx;
		s->watch = 2;
		return s->watch;
	}
	BUG_ON(s->id || (c->flags & KUBE_RETRY) || !(c->flags & KUBE_NO_LIMIT));
	s->done = done;
	s->ctx = ctx;
	s->id = 1;
	snprintf(s->method, sizeof(s->method), "%s", c->method);
	free(s->body);
	s->body = c->body ? xstrndup(c->body, c->len) : NULL;
	return s->id;
}

static void script_cancel(void *impl, uint64_t id)
{
	struct script *s = impl;

	if (id == s->id)
		s->id = 0;
	if (id == s->watch)
		s->watch = 0;
}

/* Give an open watch the body as a line, then as the object of a
 * MODIFIED event, while it takes them; a call it starts meanwhile fails
 * (500). Whatever it read, it leads only with its own write accepted. */
static void watch_lines(struct kube_lease *l, struct script *s,
			const char *body, size_t len)
{
	static const char head[] = "{\"type\":\"MODIFIED\",\"object\":";
	bool led = kube_lease_leader(l);
	char *ev = xmalloc(sizeof(head) + len + 1);

	memcpy(ev, head, sizeof(head) - 1);
	memcpy(ev + sizeof(head) - 1, body, len);
	memcpy(ev + sizeof(head) - 1 + len, "}", 1);
	if (s->watch && s->line(s->watch_ctx, body, len))
		s->watch = 0;
	if (s->watch && s->line(s->watch_ctx, ev, sizeof(head) + len))
		s->watch = 0;
	kube_lease_run(l, 3, 3);
	if (s->id) {
		struct kube_reply r = { .code = 500 };

		s->id = 0;
		s->done(s->ctx, &r);
	}
	kube_lease_run(l, 4, 4);
	BUG_ON(kube_lease_leader(l) && !led);
	free(ev);
}

static void answer(struct script *s, int code, const char *body, size_t len)
{
	struct kube_reply r = { .code = code, .body = body, .len = len };

	BUG_ON(!s->id);
	s->id = 0;
	s->done(s->ctx, &r);
}

static const char *str(const json_t *o, const char *a, const char *b)
{
	return json_string_value(json_object_get(json_object_get(o, a), b));
}

/* A write: a Lease naming holder, with the resourceVersion read (rv;
 * NULL for a create); returns it for the answer (caller decrefs). */
static json_t *check_write(const struct script *s, const char *holder,
			   const char *rv)
{
	json_t *o = json_loads(s->body ? s->body : "", 0, NULL);

	BUG_ON(!json_is_object(o));
	BUG_ON(strcmp(str(o, "spec", "holderIdentity"), holder) != 0);
	BUG_ON(!str(o, "spec", "renewTime"));
	if (rv)
		BUG_ON(!str(o, "metadata", "resourceVersion") ||
		       strcmp(str(o, "metadata", "resourceVersion"), rv));
	json_object_set_new(json_object_get(o, "metadata"), "resourceVersion",
			    json_string("99"));
	return o;
}

static void release(struct kube_lease *l, struct script *s)
{
	json_t *o;
	char *text;

	kube_lease_release(l, 1000000);
	if (!kube_lease_idle(l)) {
		BUG_ON(!s->id || strcmp(s->method, "PUT"));
		o = check_write(s, "", "99");
		text = json_dumps(o, 0);
		answer(s, 200, text, strlen(text));
		free(text);
		json_decref(o);
	}
	BUG_ON(!kube_lease_idle(l) || kube_lease_leader(l));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct script s = { 0 };
	struct kube_transport tr = { .send = script_send,
				     .cancel = script_cancel,
				     .impl = &s };
	struct kube_lease_options o = { .tr = &tr, .identity = "me" };
	struct kube_lease *l;
	struct errbuf err;
	const char *body = (const char *)data + 1;
	json_t *read = NULL, *w = NULL;
	char *text = NULL;
	size_t len;

	if (size < 1 || size > 65536)
		return 0;
	len = size - 1;
	BUG_ON(kube_lease_new(&o, &l, &err) != 0);
	kube_lease_run(l, 0, 0);
	BUG_ON(!s.id || strcmp(s.method, "GET"));
	answer(&s, data[0] & 1 ? 200 : 404, body, len);
	kube_lease_run(l, 1, 1);
	BUG_ON(kube_lease_leader(l));
	if (s.id && !strcmp(s.method, "GET")) {
		/* Read again at once: a record whose lease expires as it is
		 * read (no or a zero duration) is tried at its expiry, from
		 * a new read. Refused, it leads nobody. */
		struct kube_reply r = { .code = 500 };

		s.id = 0;
		s.done(s.ctx, &r);
		kube_lease_run(l, 2, 2);
		BUG_ON(kube_lease_leader(l));
	} else if (s.id) {
		/* A PUT after a readable record, a POST after a 404. */
		read = json_loadb(body, len, 0, NULL);
		w = check_write(
			&s, "me",
			!strcmp(s.method, "PUT")
				? str(read, "metadata", "resourceVersion")
				: NULL);
		if (data[0] & 2) {
			text = json_dumps(w, 0);
			answer(&s, 200, text, strlen(text));
		} else {
			answer(&s, 200, body, len);
		}
		kube_lease_run(l, 2, 2);
		BUG_ON(kube_lease_leader(l) &&
		       strcmp(kube_lease_holder(l), "me"));
		BUG_ON((data[0] & 2) && !kube_lease_leader(l));
	}
	watch_lines(l, &s, body, len);
	if (kube_lease_leader(l) && (data[0] & 2))
		release(l, &s);
	kube_lease_free(l);
	free(s.body);
	free(text);
	json_decref(read);
	json_decref(w);
	return 0;
}

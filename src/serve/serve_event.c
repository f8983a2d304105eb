// SPDX-License-Identifier: Apache-2.0
/*
 * Events as Kubernetes' recorders write them: a core/v1 Event per
 * (object, type, reason, message, component), named <object>.<16 hex>.
 * The hex is a hash of that key, so a repeat finds its Event by name in
 * one lookup and bumps count, lastTimestamp and series instead of adding
 * an object (Kubernetes' correlator does the same with a cache); a hash
 * collision with another key moves to the next name.
 */
#include "serve/serve_event.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/hmap.h"
#include "base/strbuf.h"

#include "base/banned.h"

#define EVENT_MESSAGE_MAX 1024
#define EVENT_PROBES	  8

static const char *get_str(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

/* RFC 3339 UTC, with microseconds (MicroTime) when micro. */
static void stamp(int64_t us, bool micro, char *buf, size_t size)
{
	if (micro)
		api_store_microtime(us, buf, size);
	else
		api_store_timestamp(us, buf, size);
}

/* Cut s to at most max bytes on a UTF-8 character boundary. */
static void cut_message(struct strbuf *sb, size_t max)
{
	size_t n = sb->len;

	if (n <= max)
		return;
	n = max;
	while (n > 0 && ((unsigned char)sb->buf[n] & 0xc0) == 0x80)
		n--;
	strbuf_truncate(sb, n);
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : !a && !b;
}

static bool same_event(const json_t *ev, const char *uid, const char *type,
		       const char *reason, const char *message,
		       const struct serve_event_source *src)
{
	const char *s[5] = {
		get_str(ev, "involvedObject", "uid"),
		get_str(ev, "type", NULL),
		get_str(ev, "reason", NULL),
		get_str(ev, "message", NULL),
		get_str(ev, "reportingComponent", NULL),
	};
	const char *want[5] = { uid, type, reason, message, src->component };

	for (size_t i = 0; i < 5; i++)
		if (!s[i] || strcmp(s[i], want[i]) != 0)
			return false;
	return same_str(get_str(ev, "involvedObject", "fieldPath"),
			src->field_path) &&
	       same_str(get_str(ev, "source", "host"), src->host);
}

static json_t *new_event(const json_t *regarding, const char *ns,
			 const char *name, const char *type, const char *reason,
			 const char *action,
			 const struct serve_event_source *from, int64_t now_us,
			 const char *message)
{
	json_t *ev = json_object(), *meta = json_object(), *io = json_object();
	json_t *src = json_object();
	const char *keys[5] = { "apiVersion", "kind", "name", "uid", NULL };
	const char *rv = get_str(regarding, "metadata", "resourceVersion");
	const char *rns = get_str(regarding, "metadata", "namespace");
	char t[48];

	json_object_set_new(ev, "apiVersion", json_string("v1"));
	json_object_set_new(ev, "kind", json_string("Event"));
	json_object_set_new(meta, "name", json_string(name));
	json_object_set_new(meta, "namespace", json_string(ns));
	json_object_set_new(ev, "metadata", meta);
	for (size_t i = 0; keys[i]; i++) {
		const char *v = i < 2 ? get_str(regarding, keys[i], NULL)
				      : get_str(regarding, "metadata", keys[i]);

		if (v)
			json_object_set_new(io, keys[i], json_string(v));
	}
	if (rns && *rns)
		json_object_set_new(io, "namespace", json_string(rns));
	if (rv)
		json_object_set_new(io, "resourceVersion", json_string(rv));
	if (from->field_path)
		json_object_set_new(io, "fieldPath",
				    json_string(from->field_path));
	json_object_set_new(ev, "involvedObject", io);
	json_object_set_new(ev, "reason", json_string(reason));
	json_object_set_new(ev, "message", json_string(message));
	json_object_set_new(src, "component", json_string(from->component));
	if (from->host)
		json_object_set_new(src, "host", json_string(from->host));
	json_object_set_new(ev, "source", src);
	stamp(now_us, false, t, sizeof(t));
	json_object_set_new(ev, "firstTimestamp", json_string(t));
	json_object_set_new(ev, "lastTimestamp", json_string(t));
	stamp(now_us, true, t, sizeof(t));
	json_object_set_new(ev, "eventTime", json_string(t));
	json_object_set_new(ev, "count", json_integer(1));
	json_object_set_new(ev, "type", json_string(type));
	if (action && *action)
		json_object_set_new(ev, "action", json_string(action));
	json_object_set_new(ev, "reportingComponent",
			    json_string(from->component));
	json_object_set_new(
		ev, "reportingInstance",
		json_string(from->instance ? from->instance : "echelon"));
	return ev;
}

/* A repeat: one more occurrence on the stored Event. */
static int bump(struct api_store *s, const struct api_obj *o, int64_t now_us)
{
	json_t *ev = json_deep_copy(o->body), *series = json_object();
	json_int_t count = json_integer_value(json_object_get(ev, "count"));
	char t[48];

	count = count > 0 ? count + 1 : 2;
	json_object_set_new(ev, "count", json_integer(count));
	stamp(now_us, false, t, sizeof(t));
	json_object_set_new(ev, "lastTimestamp", json_string(t));
	stamp(now_us, true, t, sizeof(t));
	json_object_set_new(series, "count", json_integer(count));
	json_object_set_new(series, "lastObservedTime", json_string(t));
	json_object_set_new(ev, "series", series);
	return api_store_update(s, o->kind, ev, o->rv, now_us, NULL);
}

static int record(struct api_store *s, const json_t *regarding,
		  const struct serve_event_source *src, const char *type,
		  const char *reason, const char *action, int64_t now_us,
		  const char *fmt, va_list ap)
{
	const struct api_kind *k = api_kind_of("v1", "Event");
	const char *oname = get_str(regarding, "metadata", "name");
	const char *ons = get_str(regarding, "metadata", "namespace");
	const char *uid = get_str(regarding, "metadata", "uid");
	struct strbuf msg, key;
	uint64_t h;
	int r = -EIO;

	if (!k || !oname || !uid || !type || !reason || !src || !src->component)
		return -EINVAL;
	strbuf_init(&msg);
	strbuf_vaddf(&msg, fmt, ap);
	cut_message(&msg, EVENT_MESSAGE_MAX);
	ons = ons && *ons ? ons : "default";

	strbuf_init(&key);
	strbuf_addf(&key, "%s%c%s%c%s%c%s%c%s", uid, 0, type, 0, reason, 0,
		    msg.buf, 0, src->component);
	/* The whole object's Events keep the key they always had. */
	if (src->host || src->field_path)
		strbuf_addf(&key, "%c%s%c%s", 0, src->host ? src->host : "", 0,
			    src->field_path ? src->field_path : "");
	h = hmap_hash(key.buf, key.len);
	strbuf_release(&key);

	for (int probe = 0; probe < EVENT_PROBES; probe++, h++) {
		char name[320];
		const struct api_obj *o;

		snprintf(name, sizeof(name), "%s.%016llx", oname,
			 (unsigned long long)h);
		o = api_store_get(s, k, ons, name);
		if (o && same_event(o->body, uid, type, reason, msg.buf, src)) {
			r = bump(s, o, now_us);
			break;
		}
		if (o)
			continue;
		r = api_store_create(s, k,
				     new_event(regarding, ons, name, type,
					       reason, action, src, now_us,
					       msg.buf),
				     now_us, NULL);
		break;
	}
	strbuf_release(&msg);
	return r;
}

int serve_event(struct api_store *s, const json_t *regarding, const char *type,
		const char *reason, const char *action, const char *controller,
		int64_t now_us, const char *fmt, ...)
{
	struct serve_event_source src = { .component = controller };
	va_list ap;
	int r;

	if (!action)
		return -EINVAL;
	va_start(ap, fmt);
	r = record(s, regarding, &src, type, reason, action, now_us, fmt, ap);
	va_end(ap);
	return r;
}

int serve_event_from(struct api_store *s, const json_t *regarding,
		     const struct serve_event_source *src, const char *type,
		     const char *reason, const char *action, int64_t now_us,
		     const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = record(s, regarding, src, type, reason, action, now_us, fmt, ap);
	va_end(ap);
	return r;
}

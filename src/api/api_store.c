// SPDX-License-Identifier: Apache-2.0
/*
 * The object store: one sorted array of objects per kind (binary search by
 * (namespace, name), so a list walks in order from any key and a write
 * moves pointers only), a uid index, and a ring of the last changes.
 *
 * Object versions are immutable and reference counted: the index holds
 * the current version of each object, the history ring holds the version
 * each change produced, so an update or delete never copies a body and a
 * watcher reading the ring sees the objects exactly as they were written.
 *
 * A version no longer current (replaced, deleted, or a deletion's own)
 * waits on the stale list; the api_store_compact() after next then keeps
 * only its text (a decoded tree takes 7.5 to 8.8 times its text's bytes,
 * and the ring holds up to its whole history of them), and
 * api_event_body() decodes the text again for a reader that comes later.
 */
#include "api/api_store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api_json.h"
#include "base/alloc.h"
#include "base/hmap.h"
#include "base/timemap.h"
#include "base/vec.h"

/* One version of an object; pub.* point into it. */
struct sobj {
	struct api_obj pub;
	unsigned ref;
	char *ns, *name, *uid;
	char *text;
	/* The last view asked for (api_store_view). */
	const struct api_kind *view_kind;
	const char *view_version;
	char *view_text;
	size_t view_len;
	/* The last Table row made of it (api_store_row). */
	const struct api_kind *row_kind;
	const char *row_version;
	int row_tag;
	int64_t row_sec;
	char *row_text;
	size_t row_len;
};

struct kindset {
	const struct api_kind *kind;
	VEC(struct sobj *) objs; /* sorted by (ns, name) */
};

struct hent {
	uint64_t rv;
	enum api_ev_type type;
	bool mirror;
	struct sobj *o;
};

struct api_store {
	VEC(struct kindset) kinds; /* by api_kind.id */
	struct hmap uids;	   /* uid -> struct sobj * (current) */
	struct hent *ring;
	size_t ring_cap, ring_head, ring_len; /* head: oldest entry */
	uint64_t rv, oldest_rv;
	char uid_prefix[24];
	uint64_t uid_counter;
	struct sobj *graveyard;	  /* last deleted version, kept to next write */
	VEC(struct sobj *) stale; /* versions no longer current, a ref each */
	size_t stale_mark; /* those before it: stale at the last compaction */
	bool read_only;	   /* api_store_read_only() */
	uint64_t refused;  /* writes refused while read-only */
};

static void sobj_unref(struct sobj *o)
{
	if (!o || --o->ref)
		return;
	json_decref(o->pub.body);
	free(o->ns);
	free(o->name);
	free(o->uid);
	free(o->text);
	free(o->view_text);
	free(o->row_text);
	free(o);
}

/* A version over body (stolen), its identity read from metadata. */
static struct sobj *sobj_new(const struct api_kind *k, json_t *body,
			     uint64_t rv)
{
	struct sobj *o = xcalloc(1, sizeof(*o));
	json_t *md = json_object_get(body, "metadata");
	const char *ns = json_string_value(json_object_get(md, "namespace"));
	const char *name = json_string_value(json_object_get(md, "name"));
	const char *uid = json_string_value(json_object_get(md, "uid"));
	struct strbuf sb;

	o->ref = 1;
	o->ns = xstrdup(k->namespaced && ns ? ns : "");
	o->name = xstrdup(name ? name : "");
	o->uid = xstrdup(uid ? uid : "");
	strbuf_init(&sb);
	api_json_add(&sb, body);
	o->pub.len = sb.len;
	o->text = strbuf_take(&sb);
	strbuf_release(&sb);
	o->pub.kind = k;
	o->pub.ns = o->ns;
	o->pub.name = o->name;
	o->pub.uid = o->uid;
	o->pub.rv = rv;
	o->pub.body = body;
	o->pub.text = o->text;
	return o;
}

/* wall_us (already the wall clock's) as RFC 3339 seconds. */
static const char *format_wall(int64_t wall_us, char *buf, size_t size)
{
	time_t t = (time_t)(wall_us / 1000000);
	struct tm tm;

	if (wall_us < 0)
		t = 0;
	gmtime_r(&t, &tm);
	if (!strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) && size)
		buf[0] = '\0';
	return buf;
}

/* The one place the embedded clock becomes the text of a timestamp:
 * shown as the wall-clock time it happened at (base/timemap.h). */
const char *api_store_timestamp(int64_t us, char *buf, size_t size)
{
	return format_wall(timemap_wall(us), buf, size);
}

const char *api_store_microtime(int64_t us, char *buf, size_t size)
{
	int64_t wall = timemap_wall(us);
	char day[32];

	format_wall(wall, day, sizeof(day));
	if (strlen(day) == 20) /* "...:SSZ" -> "...:SS.uuuuuuZ" */
		snprintf(buf, size, "%.19s.%06dZ", day,
			 (int)(wall < 0 ? 0 : wall % 1000000));
	else
		snprintf(buf, size, "%s", day);
	return buf;
}

const char *api_store_view(const struct api_obj *o, const struct api_kind *k,
			   const char *version, size_t *ret_len)
{
	/* pub is the first member: the version this object is. */
	struct sobj *so = (struct sobj *)o;
	struct strbuf sb;
	json_t *v;

	if (!version)
		version = k->versions[0];
	if (o->kind == k && !strcmp(version, k->versions[0])) {
		*ret_len = o->len;
		return o->text;
	}
	if (so->view_kind != k || strcmp(so->view_version, version)) {
		v = api_kind_convert(o->body, k, version);
		strbuf_init(&sb);
		api_json_add(&sb, v);
		json_decref(v);
		free(so->view_text);
		so->view_len = sb.len;
		so->view_text = strbuf_take(&sb);
		strbuf_release(&sb);
		so->view_kind = k;
		so->view_version = version;
	}
	*ret_len = so->view_len;
	return so->view_text;
}

const char *api_store_row(const struct api_obj *o, const struct api_kind *k,
			  const char *version, int tag, int64_t sec,
			  size_t *ret_len)
{
	const struct sobj *so = (const struct sobj *)o;

	if (!so->row_text || so->row_kind != k || so->row_tag != tag ||
	    so->row_sec != sec || strcmp(so->row_version, version))
		return NULL;
	*ret_len = so->row_len;
	return so->row_text;
}

void api_store_row_keep(const struct api_obj *o, const struct api_kind *k,
			const char *version, int tag, int64_t sec,
			const char *text, size_t len)
{
	/* A cache beside the immutable version: pub is the first member. */
	struct sobj *so = (struct sobj *)o;

	free(so->row_text);
	so->row_text = xmalloc(len + 1);
	memcpy(so->row_text, text, len);
	so->row_text[len] = '\0';
	so->row_len = len;
	so->row_kind = k;
	so->row_version = version;
	so->row_tag = tag;
	so->row_sec = sec;
}

struct api_store *api_store_new(const struct api_store_options *o)
{
	struct api_store *s = xcalloc(1, sizeof(*s));
	const char *prefix = o && o->uid_prefix ? o->uid_prefix : "0";
	size_t len = strlen(prefix);

	s->ring_cap = o && o->history ? o->history : 100000;
	s->ring = xcalloc(s->ring_cap, sizeof(*s->ring));
	s->rv = s->oldest_rv = o ? o->first_rv : 0;
	hmap_init(&s->uids);
	/* The first group of a UUID: eight characters, zero-padded. */
	if (len > 8)
		len = 8;
	memset(s->uid_prefix, '0', 8 - len);
	memcpy(s->uid_prefix + 8 - len, prefix, len);
	s->uid_prefix[8] = '\0';
	return s;
}

static void ring_clear(struct api_store *s)
{
	for (size_t i = 0; i < s->ring_len; i++)
		sobj_unref(s->ring[(s->ring_head + i) % s->ring_cap].o);
	s->ring_head = s->ring_len = 0;
}

void api_store_free(struct api_store *s)
{
	if (!s)
		return;
	ring_clear(s);
	free(s->ring);
	vec_foreach (&s->stale, p)
		sobj_unref(*p);
	vec_release(&s->stale);
	vec_foreach (&s->kinds, ks) {
		vec_foreach (&ks->objs, p)
			sobj_unref(*p);
		vec_release(&ks->objs);
	}
	vec_release(&s->kinds);
	hmap_release(&s->uids);
	sobj_unref(s->graveyard);
	free(s);
}

uint64_t api_store_rv(const struct api_store *s)
{
	return s->rv;
}

uint64_t api_store_oldest_rv(const struct api_store *s)
{
	return s->oldest_rv;
}

static struct kindset *kindset(const struct api_store *s,
			       const struct api_kind *k)
{
	if (k->id >= s->kinds.len)
		return NULL;
	return &s->kinds.items[k->id];
}

static struct kindset *kindset_add(struct api_store *s,
				   const struct api_kind *k)
{
	while (s->kinds.len <= k->id)
		vec_push_zero(&s->kinds);
	s->kinds.items[k->id].kind = k;
	return &s->kinds.items[k->id];
}

size_t api_store_count(const struct api_store *s, const struct api_kind *k)
{
	const struct kindset *ks = kindset(s, k);

	return ks ? ks->objs.len : 0;
}

static int keycmp(const char *ns1, const char *n1, const char *ns2,
		  const char *n2)
{
	int c = strcmp(ns1, ns2);

	return c ? c : strcmp(n1, n2);
}

/* Index of the first object not before (ns, name); *found when equal. */
static size_t lower_bound(const struct kindset *ks, const char *ns,
			  const char *name, bool *found)
{
	size_t lo = 0, hi = ks->objs.len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sobj *o = ks->objs.items[mid];

		if (keycmp(o->ns, o->name, ns, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < ks->objs.len &&
		 !keycmp(ks->objs.items[lo]->ns, ks->objs.items[lo]->name, ns,
			 name);
	return lo;
}

static struct sobj *lookup(const struct api_store *s, const struct api_kind *k,
			   const char *ns, const char *name, size_t *ret_at)
{
	const struct kindset *ks = kindset(s, k);
	bool found;
	size_t at;

	if (!ks || !name)
		return NULL;
	at = lower_bound(ks, k->namespaced && ns ? ns : "", name, &found);
	if (ret_at)
		*ret_at = at;
	return found ? ks->objs.items[at] : NULL;
}

const struct api_obj *api_store_get(const struct api_store *s,
				    const struct api_kind *k, const char *ns,
				    const char *name)
{
	struct sobj *o = lookup(s, k, ns, name, NULL);

	return o ? &o->pub : NULL;
}

const struct api_obj *api_store_find_uid(const struct api_store *s,
					 const char *uid)
{
	int64_t v;

	if (!uid || !hmap_get_str(&s->uids, uid, &v))
		return NULL;
	return &((struct sobj *)(intptr_t)v)->pub;
}

/* The first object of a namespace after ns in ks's order. */
static size_t ns_end(const struct kindset *ks, const char *ns)
{
	size_t lo = 0, hi = ks->objs.len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->objs.items[mid]->ns, ns) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The objects [*from, *to) of ks api_store_each() visits. */
static void each_range(const struct kindset *ks, const struct api_kind *k,
		       const char *ns, const char *after_ns,
		       const char *after_name, size_t *from, size_t *to)
{
	bool all = !ns || !*ns || !k->namespaced;
	bool found;

	*from = 0;
	*to = all ? ks->objs.len : ns_end(ks, ns);
	if (after_name) {
		*from = lower_bound(ks, after_ns ? after_ns : "", after_name,
				    &found);
		if (found)
			(*from)++;
	}
	if (!all) {
		size_t start = lower_bound(ks, ns, "", &found);

		if (start > *from)
			*from = start;
	}
	if (*from > *to)
		*from = *to;
}

int api_store_each(const struct api_store *s, const struct api_kind *k,
		   const char *ns, const char *after_ns, const char *after_name,
		   api_obj_fn fn, void *ctx)
{
	const struct kindset *ks = kindset(s, k);
	size_t at, to;

	if (!ks)
		return 0;
	each_range(ks, k, ns, after_ns, after_name, &at, &to);
	for (; at < to; at++) {
		int rc = fn(ctx, &ks->objs.items[at]->pub);

		if (rc)
			return rc;
	}
	return 0;
}

size_t api_store_count_after(const struct api_store *s,
			     const struct api_kind *k, const char *ns,
			     const char *after_ns, const char *after_name)
{
	const struct kindset *ks = kindset(s, k);
	size_t from, to;

	if (!ks)
		return 0;
	each_range(ks, k, ns, after_ns, after_name, &from, &to);
	return to - from;
}

bool api_rv_parse(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*ret = v;
	return true;
}

json_t *api_event_body(const struct api_event *ev)
{
	if (ev->body_)
		return ev->body_;
	if (!*ev->decoded_) /* a compacted version: its tree again */
		*ev->decoded_ = json_loadb(ev->text, ev->len, 0, NULL);
	BUG_ON(!*ev->decoded_);
	return *ev->decoded_;
}

int api_store_events(const struct api_store *s, uint64_t since, api_event_fn fn,
		     void *ctx)
{
	uint64_t first;

	if (since < s->oldest_rv)
		return -ERANGE;
	if (since >= s->rv)
		return 0; /* nothing after it yet */
	/* Ring entries hold the rvs oldest_rv + 1 .. rv, one each. */
	first = s->oldest_rv + 1;
	for (uint64_t rv = since + 1; rv <= s->rv; rv++) {
		const struct hent *h =
			&s->ring[(s->ring_head + (rv - first)) % s->ring_cap];
		json_t *decoded = NULL;
		struct api_event ev = {
			.rv = h->rv,
			.type = h->type,
			.kind = h->o->pub.kind,
			.ns = h->o->ns,
			.name = h->o->name,
			.body_ = h->o->pub.body,
			.decoded_ = &decoded,
			.text = h->o->text,
			.len = h->o->pub.len,
			.mirror = h->mirror,
		};
		int rc;

		BUG_ON(h->rv != rv);
		rc = fn(ctx, &ev);
		json_decref(decoded);
		if (rc)
			return rc;
	}
	return 0;
}

/* Record the change o (a reference is taken) with the next rv; mirror:
 * a replica's copy of a remote change (api_store_mirror*). */
static void record(struct api_store *s, enum api_ev_type type, struct sobj *o,
		   bool mirror)
{
	struct hent *h;

	if (s->ring_len == s->ring_cap) {
		h = &s->ring[s->ring_head];
		sobj_unref(h->o);
		s->ring_head = (s->ring_head + 1) % s->ring_cap;
		s->ring_len--;
		s->oldest_rv++;
	}
	h = &s->ring[(s->ring_head + s->ring_len) % s->ring_cap];
	h->rv = o->pub.rv;
	h->type = type;
	h->mirror = mirror;
	h->o = o;
	o->ref++;
	s->ring_len++;
}

static void bury(struct api_store *s, struct sobj *o)
{
	sobj_unref(s->graveyard);
	s->graveyard = o;
}

/* metadata of body, an object of its own (not shared with a stored
 * version, which must not change), created when missing. */
static json_t *own_metadata(json_t *body)
{
	return api_store_own(body, "metadata", false);
}

json_t *api_store_own(json_t *body, const char *key, bool array)
{
	json_t *v = json_object_get(body, key);

	BUG_ON(!json_is_object(body));
	if (array ? !json_is_array(v) : !json_is_object(v)) {
		v = array ? json_array() : json_object();
		json_object_set_new(body, key, v);
	} else if (v->refcount > 1) {
		v = json_copy(v);
		json_object_set_new(body, key, v);
	}
	return v;
}

static void set_rv(json_t *md, uint64_t rv)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, rv);
	json_object_set_new(md, "resourceVersion", json_string(buf));
}

static void next_uid(struct api_store *s, char *buf, size_t size)
{
	do {
		uint64_t c = ++s->uid_counter;

		snprintf(buf, size, "%s-%04x-4000-8000-%012" PRIx64,
			 s->uid_prefix, (unsigned)(c >> 48) & 0xffff,
			 c & UINT64_C(0xffffffffffff));
	} while (hmap_get_str(&s->uids, buf, NULL));
}

/* Keep generated uids above one this store generated before (restore). */
static void note_uid(struct api_store *s, const char *uid)
{
	uint64_t lo, c;
	unsigned hi;
	char tail[2];

	if (strncmp(uid, s->uid_prefix, 8) || uid[8] != '-' ||
	    strlen(uid) != 36 || strncmp(uid + 13, "-4000-8000-", 11) ||
	    sscanf(uid + 9, "%4x", &hi) != 1 ||
	    sscanf(uid + 24, "%12" SCNx64 "%1s", &lo, tail) != 1)
		return;
	c = ((uint64_t)hi << 48) | lo;
	if (c > s->uid_counter)
		s->uid_counter = c;
}

/* o keeps its text only: its tree and the views made of it go. */
static void sobj_text_only(struct sobj *o)
{
	json_decref(o->pub.body);
	o->pub.body = NULL;
	free(o->view_text);
	o->view_text = NULL;
	o->view_kind = NULL;
	free(o->row_text);
	o->row_text = NULL;
	o->row_kind = NULL;
}

/* o is no longer current: its tree goes at the next compaction, at the
 * latest once as many wait as the history holds (a store whose owner
 * never compacts keeps no more than that). */
static void stale(struct api_store *s, struct sobj *o)
{
	if (s->stale.len >= s->ring_cap) {
		s->stale_mark = s->stale.len;
		api_store_compact(s);
	}
	o->ref++;
	vec_push(&s->stale, o);
}

void api_store_compact(struct api_store *s)
{
	size_t n = s->stale_mark;

	for (size_t i = 0; i < n; i++) {
		struct sobj *o = s->stale.items[i];

		/* in the ring still; the last deleted version is valid to
		 * the next write (its tree then goes with the ring entry) */
		if (o->ref > 1 && o != s->graveyard)
			sobj_text_only(o);
		sobj_unref(o);
	}
	if (n) {
		memmove(s->stale.items, s->stale.items + n,
			(s->stale.len - n) * sizeof(*s->stale.items));
		s->stale.len -= n;
	}
	s->stale_mark = s->stale.len;
}

static void index_put(struct api_store *s, struct sobj *o, size_t at,
		      bool replace)
{
	struct kindset *ks = kindset_add(s, o->pub.kind);

	if (replace) {
		struct sobj *old = ks->objs.items[at];

		hmap_del(&s->uids, old->uid, strlen(old->uid));
		stale(s, old);
		sobj_unref(old);
		ks->objs.items[at] = o;
	} else {
		vec_reserve(&ks->objs, ks->objs.len + 1);
		memmove(&ks->objs.items[at + 1], &ks->objs.items[at],
			(ks->objs.len - at) * sizeof(*ks->objs.items));
		ks->objs.items[at] = o;
		ks->objs.len++;
	}
	hmap_put_str(&s->uids, o->uid, (int64_t)(intptr_t)o);
}

static void index_del(struct api_store *s, const struct api_kind *k, size_t at)
{
	struct kindset *ks = kindset(s, k);
	struct sobj *old = ks->objs.items[at];

	hmap_del(&s->uids, old->uid, strlen(old->uid));
	memmove(&ks->objs.items[at], &ks->objs.items[at + 1],
		(ks->objs.len - at - 1) * sizeof(*ks->objs.items));
	ks->objs.len--;
	stale(s, old);
	sobj_unref(old);
}

/* Namespace and name of body checked and normalized for kind k. */
static int identity(const struct api_kind *k, json_t *md, const char **ns,
		    const char **name)
{
	*name = json_string_value(json_object_get(md, "name"));
	if (!*name || !**name)
		return -EINVAL;
	if (!k->namespaced) {
		json_object_del(md, "namespace");
		*ns = "";
		return 0;
	}
	*ns = json_string_value(json_object_get(md, "namespace"));
	if (!*ns || !**ns) {
		json_object_set_new(md, "namespace", json_string("default"));
		*ns = "default";
	}
	return 0;
}

/* Where the new object body goes: its metadata (own), its index slot;
 * -EINVAL for a body without a name, -EEXIST for a present one. */
static int new_slot(const struct api_store *s, const struct api_kind *k,
		    json_t *body, json_t **ret_md, size_t *ret_at)
{
	const char *ns, *name;
	json_t *md;
	int rc;

	if (!json_is_object(body))
		return -EINVAL;
	md = own_metadata(body);
	rc = identity(k, md, &ns, &name);
	if (rc)
		return rc;
	*ret_at = 0;
	if (lookup(s, k, ns, name, ret_at))
		return -EEXIST;
	*ret_md = md;
	return 0;
}

/* Store body (stolen; md its own metadata) as the next version of the
 * object at index slot at (replace: an object is there) and record the
 * change. */
static struct sobj *put_version(struct api_store *s, const struct api_kind *k,
				json_t *body, json_t *md, size_t at,
				bool replace, enum api_ev_type type,
				bool mirror)
{
	struct sobj *o;

	set_rv(md, s->rv + 1);
	bury(s, NULL);
	o = sobj_new(k, body, ++s->rv);
	index_put(s, o, at, replace);
	record(s, type, o, mirror);
	return o;
}

void api_store_new_uid(struct api_store *s, char *buf, size_t size)
{
	next_uid(s, buf, size);
}

void api_store_read_only(struct api_store *s, bool on)
{
	s->read_only = on;
}

uint64_t api_store_refused(const struct api_store *s)
{
	return s->refused;
}

/* Whether a write must be refused (and count it). */
static bool refuse(struct api_store *s)
{
	if (s->read_only)
		s->refused++;
	return s->read_only;
}

int api_store_create(struct api_store *s, const struct api_kind *k,
		     json_t *body, int64_t now_us, const struct api_obj **ret)
{
	return api_store_create_as(s, k, body, NULL, now_us, ret);
}

int api_store_create_as(struct api_store *s, const struct api_kind *k,
			json_t *body, const char *uid, int64_t now_us,
			const struct api_obj **ret)
{
	char fresh[64], ts[32];
	struct sobj *o;
	json_t *md;
	size_t at = 0;
	int rc;

	rc = refuse(s) ? -EROFS : new_slot(s, k, body, &md, &at);
	if (rc)
		goto fail;
	if (uid && *uid && hmap_get_str(&s->uids, uid, NULL)) {
		rc = -EEXIST;
		goto fail;
	}
	if (!uid || !*uid) {
		next_uid(s, fresh, sizeof(fresh));
		uid = fresh;
	}
	json_object_set_new(md, "uid", json_string(uid));
	json_object_set_new(
		md, "creationTimestamp",
		json_string(api_store_timestamp(now_us, ts, sizeof(ts))));
	json_object_set_new(md, "generation", json_integer(1));
	o = put_version(s, k, body, md, at, false, API_ADDED, false);
	if (ret)
		*ret = &o->pub;
	return 0;
fail:
	json_decref(body);
	return rc;
}

/* Whether a and b differ outside metadata and status (the spec, as
 * metadata.generation counts it). */
static bool spec_differs(const json_t *a, const json_t *b)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)a, key, v)
	{
		if (!strcmp(key, "metadata") || !strcmp(key, "status"))
			continue;
		if (!json_equal(v, json_object_get(b, key)))
			return true;
	}
	json_object_foreach((json_t *)b, key, v)
	{
		if (strcmp(key, "metadata") && strcmp(key, "status") &&
		    !json_object_get(a, key))
			return true;
	}
	return false;
}

/* Whether an object marked for deletion has no finalizers left. */
static bool finalized(const json_t *md)
{
	return json_object_get(md, "deletionTimestamp") &&
	       !json_array_size(json_object_get(md, "finalizers"));
}

/* Remove the object at `at` with a DELETED event carrying body (stolen). */
static struct sobj *remove_at(struct api_store *s, const struct api_kind *k,
			      size_t at, json_t *body, bool mirror)
{
	struct sobj *o;

	set_rv(own_metadata(body), s->rv + 1);
	o = sobj_new(k, body, ++s->rv);
	index_del(s, k, at);
	record(s, API_DELETED, o, mirror);
	bury(s, o);
	stale(s, o);
	return o;
}

int api_store_update(struct api_store *s, const struct api_kind *k,
		     json_t *body, uint64_t if_rv, int64_t now_us,
		     const struct api_obj **ret)
{
	const char *ns, *name;
	struct sobj *old, *o;
	json_t *md, *omd, *v;
	json_int_t gen;
	size_t at;
	int rc;

	(void)now_us;
	if (!json_is_object(body)) {
		rc = -EINVAL;
		goto fail;
	}
	md = own_metadata(body);
	rc = identity(k, md, &ns, &name);
	if (rc)
		goto fail;
	old = lookup(s, k, ns, name, &at);
	if (!old) {
		rc = -ENOENT;
		goto fail;
	}
	if (if_rv && if_rv != old->pub.rv) {
		rc = -ECANCELED;
		goto fail;
	}
	/* What the server owns is kept from the stored version. */
	omd = json_object_get(old->pub.body, "metadata");
	json_object_set(md, "uid", json_object_get(omd, "uid"));
	json_object_set(md, "creationTimestamp",
			json_object_get(omd, "creationTimestamp"));
	set_rv(md, old->pub.rv);
	gen = json_integer_value(json_object_get(omd, "generation"));
	if (spec_differs(body, old->pub.body) ||
	    (json_object_get(md, "deletionTimestamp") &&
	     !json_object_get(omd, "deletionTimestamp")))
		gen++;
	json_object_set_new(md, "generation", json_integer(gen ? gen : 1));
	if ((v = json_object_get(omd, "deletionTimestamp")))
		json_object_set(md, "deletionTimestamp", v);
	if (!finalized(md) && json_equal(body, old->pub.body)) {
		/* A no-op write: no new version, no event. */
		json_decref(body);
		o = old;
		goto out;
	}
	if (refuse(s)) {
		rc = -EROFS;
		goto fail;
	}
	if (finalized(md)) {
		o = remove_at(s, k, at, body, false);
		goto out;
	}
	o = put_version(s, k, body, md, at, true, API_MODIFIED, false);
out:
	if (ret)
		*ret = &o->pub;
	return 0;
fail:
	json_decref(body);
	return rc;
}

int api_store_delete(struct api_store *s, const struct api_kind *k,
		     const char *ns, const char *name, uint64_t if_rv,
		     int64_t now_us)
{
	struct sobj *old;
	json_t *body, *md;
	char ts[32];
	size_t at;

	if (refuse(s))
		return -EROFS;
	old = lookup(s, k, ns, name, &at);
	if (!old)
		return -ENOENT;
	if (if_rv && if_rv != old->pub.rv)
		return -ECANCELED;
	body = json_copy(old->pub.body);
	md = own_metadata(body);
	if (json_array_size(json_object_get(md, "finalizers"))) {
		/* Finalizers hold the object: it is marked, and removed
		 * by the update that empties them. */
		if (json_object_get(md, "deletionTimestamp")) {
			json_decref(body);
			return 0;
		}
		json_object_set_new(md, "deletionTimestamp",
				    json_string(api_store_timestamp(
					    now_us, ts, sizeof(ts))));
		json_object_set_new(md, "deletionGracePeriodSeconds",
				    json_integer(0));
		return api_store_update(s, k, body, 0, now_us, NULL);
	}
	remove_at(s, k, at, body, false);
	return 0;
}

/*
 * A replica's write: the identity and history the remote server gave the
 * object are kept (uid, creationTimestamp, generation, deletionTimestamp),
 * only the resourceVersion is the store's, so local watchers and the
 * database see one ordered history. Finalizers are the remote server's
 * business: a deletionTimestamp with none left is stored as it is, and
 * the remote's DELETED removes it (api_store_mirror_delete).
 */
int api_store_mirror(struct api_store *s, const struct api_kind *k,
		     json_t *body, int64_t now_us, const struct api_obj **ret)
{
	const char *ns, *name, *uid;
	const struct api_obj *other;
	struct sobj *old, *o;
	json_t *md;
	char ts[32];
	size_t at = 0;
	int rc = -EINVAL;

	if (!json_is_object(body))
		goto fail;
	md = own_metadata(body);
	uid = json_string_value(json_object_get(md, "uid"));
	if (!uid || !*uid || identity(k, md, &ns, &name))
		goto fail;
	if (!json_object_get(md, "creationTimestamp"))
		json_object_set_new(md, "creationTimestamp",
				    json_string(api_store_timestamp(
					    now_us, ts, sizeof(ts))));
	old = lookup(s, k, ns, name, &at);
	other = api_store_find_uid(s, uid);
	if (other && (!old || other != &old->pub)) {
		/* uids are unique in the store: another object has it. */
		rc = -EEXIST;
		goto fail;
	}
	if (old) {
		set_rv(md, old->pub.rv);
		if (json_equal(body, old->pub.body)) {
			json_decref(body);
			o = old;
			goto out;
		}
	}
	o = put_version(s, k, body, md, at, old != NULL,
			old ? API_MODIFIED : API_ADDED, true);
out:
	if (ret)
		*ret = &o->pub;
	return 0;
fail:
	json_decref(body);
	return rc;
}

int api_store_mirror_delete(struct api_store *s, const struct api_kind *k,
			    const char *ns, const char *name, int64_t now_us)
{
	struct sobj *old;
	size_t at;

	(void)now_us;
	old = lookup(s, k, ns, name, &at);
	if (!old)
		return -ENOENT;
	remove_at(s, k, at, json_copy(old->pub.body), true);
	return 0;
}

int api_store_load(struct api_store *s, const struct api_kind *k, json_t *body)
{
	const char *rvs, *uid;
	char buf[64];
	uint64_t rv = 0;
	json_t *md;
	size_t at = 0;
	int rc;

	rc = new_slot(s, k, body, &md, &at);
	if (rc)
		goto fail;
	rvs = json_string_value(json_object_get(md, "resourceVersion"));
	if (rvs && !api_rv_parse(rvs, strlen(rvs), &rv))
		rv = 0;
	uid = json_string_value(json_object_get(md, "uid"));
	if (!uid || !*uid || hmap_get_str(&s->uids, uid, NULL)) {
		next_uid(s, buf, sizeof(buf));
		json_object_set_new(md, "uid", json_string(buf));
	} else {
		note_uid(s, uid);
	}
	index_put(s, sobj_new(k, body, rv), at, false);
	return 0;
fail:
	json_decref(body);
	return rc;
}

void api_store_restored(struct api_store *s, uint64_t rv)
{
	ring_clear(s);
	s->rv = s->oldest_rv = rv;
}

int api_store_restore_event(struct api_store *s, uint64_t rv,
			    enum api_ev_type type, const struct api_kind *k,
			    json_t *body)
{
	const char *ns, *name;
	struct hent *h;
	int rc = -EINVAL;

	if (!rv || rv != s->oldest_rv || (unsigned)type >= API_EV_COUNT ||
	    !json_is_object(body) ||
	    identity(k, own_metadata(body), &ns, &name))
		goto fail;
	if (s->ring_len == s->ring_cap) {
		rc = -ENOSPC;
		goto fail;
	}
	/* Prepended: the ring keeps holding oldest_rv + 1 .. rv. */
	s->ring_head = (s->ring_head + s->ring_cap - 1) % s->ring_cap;
	h = &s->ring[s->ring_head];
	h->rv = rv;
	h->type = type;
	h->o = sobj_new(k, body, rv);
	stale(s, h->o); /* a past version: never current */
	s->ring_len++;
	s->oldest_rv--;
	return 0;
fail:
	json_decref(body);
	return rc;
}

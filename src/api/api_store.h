/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The object store of `echelon serve`: every API object as JSON (jansson),
 * keyed by kind, namespace and name, with one resourceVersion counter for
 * the whole store and a bounded history of changes.
 *
 * Pure: no I/O, no clock (now_us comes in), no thread. Consumers pull
 * changes instead of being called back: the database, the watches and the
 * embedded cluster's controllers each keep the resourceVersion they have
 * seen and read api_store_events() since it, once per loop turn. So a
 * controller writes after it has read (never inside an api_store_events()
 * callback: a write may end the versions the event shows), and nothing
 * re-enters the store.
 *
 * Invariants: resourceVersions strictly increase, one per write (create,
 * update, delete each take the next); every stored object has
 * metadata.{name, uid, resourceVersion, creationTimestamp} (and namespace
 * when namespaced); uids are unique; the history holds every change with
 * rv in (api_store_oldest_rv(), api_store_rv()].
 */
#ifndef ECHELON_API_STORE_H
#define ECHELON_API_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/api_kind.h"
#include "base/compiler.h"

enum api_ev_type { API_ADDED, API_MODIFIED, API_DELETED, API_EV_COUNT };

/* A stored object. Read-only for callers; valid until the next write. */
struct api_obj {
	const struct api_kind *kind;
	const char *ns; /* "" when cluster-scoped */
	const char *name;
	const char *uid;
	uint64_t rv;
	json_t *body;	  /* the whole object, metadata filled in */
	const char *text; /* body serialized compactly (persistence, watch) */
	size_t len;
};

/* One change. The object after it (for DELETED, as it was, with the
 * deletion's rv) is text, and api_event_body() as JSON; both borrowed,
 * valid during the api_store_events() call that passed it. */
struct api_event {
	uint64_t rv;
	enum api_ev_type type;
	const struct api_kind *kind;
	const char *ns, *name;
	json_t *body_;	   /* NULL once compacted: read api_event_body() */
	json_t **decoded_; /* api_event_body()'s decode of text */
	const char *text;
	size_t len;
	bool mirror; /* written by api_store_mirror*(): a replica's copy of
			another server's change, not a local write */
};

/* ev's object as JSON. A version api_store_compact() left as text only
 * is decoded again, once per event and call (a reader that needs only
 * the text, a watch without selectors, never pays for it); take a
 * reference to keep it past the call. */
json_t *api_event_body(const struct api_event *ev);

struct api_store_options {
	size_t history;		/* changes retained for watches; 0: 100,000 */
	uint64_t first_rv;	/* rv of the first write is first_rv + 1 */
	const char *uid_prefix; /* unique per store (persisted); NULL: "0" */
};

struct api_store;
struct api_store *api_store_new(const struct api_store_options *o);
void api_store_free(struct api_store *s);

/* The latest resourceVersion (0 before the first write). */
uint64_t api_store_rv(const struct api_store *s);
/* The resourceVersion written as s[0..len): decimal digits only, at most
 * 2^64 - 1 (strtoull() alone reads "-1" and " 1" too); false when it is
 * not one. */
bool api_rv_parse(const char *s, size_t len, uint64_t *ret);
/* Watches from rv ≥ this can be served from the history; older get 410. */
uint64_t api_store_oldest_rv(const struct api_store *s);
size_t api_store_count(const struct api_store *s, const struct api_kind *k);

const struct api_obj *api_store_get(const struct api_store *s,
				    const struct api_kind *k, const char *ns,
				    const char *name);
const struct api_obj *api_store_find_uid(const struct api_store *s,
					 const char *uid);

/* Call fn for each object of kind k (in namespace ns; NULL or "" for
 * all) in (namespace, name) order, starting after the object named
 * after_ns/after_name (NULL: from the first). Stops when fn returns
 * non-zero and returns that. */
typedef int (*api_obj_fn)(void *ctx, const struct api_obj *o);
int api_store_each(const struct api_store *s, const struct api_kind *k,
		   const char *ns, const char *after_ns, const char *after_name,
		   api_obj_fn fn, void *ctx);
/* How many objects api_store_each() would visit with these arguments
 * (two binary searches). */
size_t api_store_count_after(const struct api_store *s,
			     const struct api_kind *k, const char *ns,
			     const char *after_ns, const char *after_name);

/* Call fn for each change with rv > since, in order. -ERANGE when since is
 * older than the history (the caller relists: 410 Expired). fn must not
 * write to s. */
typedef int (*api_event_fn)(void *ctx, const struct api_event *ev);
int api_store_events(const struct api_store *s, uint64_t since, api_event_fn fn,
		     void *ctx) MUST_CHECK;

/*
 * Drop the decoded trees of the versions that were no longer current
 * (replaced or deleted) at the previous call, keeping their text for the
 * history: the history then costs its text, not its trees. The daemon
 * calls this at the end of each turn, so the readers that read a turn's
 * changes in the next (its controllers) still find their trees; a later
 * reader's api_event_body() decodes them again. A store compacts by itself
 * once as many versions wait as its history holds.
 */
void api_store_compact(struct api_store *s);

/*
 * Member key of body as body's own, to be changed: a shallow copy when it
 * is shared (a new version built with json_copy() from a stored one,
 * whose members are that version's and must not change), created empty
 * (an object; an array with array) when missing or of another type. A
 * write that changes a few members of a large object so copies those and
 * shares the rest with the version before it. body must be that copy,
 * never a reference to a stored body (whose members would look unshared
 * and be changed in place).
 */
json_t *api_store_own(json_t *body, const char *key, bool array);

/*
 * Writes. body is stolen (freed on failure too). The store fills
 * metadata (uid, resourceVersion, creationTimestamp from now_us,
 * generation, namespace); it checks only what it owns: -EEXIST on create
 * of a present name, -ENOENT for a missing object, -ECANCELED when
 * if_rv is non-zero and differs from the stored rv (409 Conflict),
 * -EINVAL for a body without metadata.name. Validation of the object is
 * the caller's (api_validate). On success *ret (may be NULL) is the
 * stored object.
 */
int api_store_create(struct api_store *s, const struct api_kind *k,
		     json_t *body, int64_t now_us,
		     const struct api_obj **ret) MUST_CHECK;
/* api_store_create() giving the object uid, one api_store_new_uid()
 * returned (so defaults that name the uid can be filled before the
 * write); -EEXIST when an object has that uid. NULL uid: a new one. */
int api_store_create_as(struct api_store *s, const struct api_kind *k,
			json_t *body, const char *uid, int64_t now_us,
			const struct api_obj **ret) MUST_CHECK;
/* A uid no object of s has nor will be given by a later create: the
 * one to pass to api_store_create_as(). buf holds at least 37 bytes. */
void api_store_new_uid(struct api_store *s, char *buf, size_t size);
int api_store_update(struct api_store *s, const struct api_kind *k,
		     json_t *body, uint64_t if_rv, int64_t now_us,
		     const struct api_obj **ret) MUST_CHECK;
int api_store_delete(struct api_store *s, const struct api_kind *k,
		     const char *ns, const char *name, uint64_t if_rv,
		     int64_t now_us) MUST_CHECK;
/*
 * While on, create, update and delete (the store's own writes, not a
 * replica's mirrored ones) change nothing and fail with -EROFS (body
 * freed), and each is counted (an update that would change nothing is
 * no write: it succeeds, uncounted): a Kubernetes replica prepares a
 * scheduler over its cache before it may lead, and a scheduler that
 * wanted to write meanwhile is not used (src/serve/serve_kube.c).
 */
void api_store_read_only(struct api_store *s, bool on);
/* The writes refused while read-only, since the store was made. */
uint64_t api_store_refused(const struct api_store *s);
/*
 * Writes of a replica (the Kubernetes backend's cache of a remote API
 * server, src/kube): create or replace the object named by body's
 * metadata with body as the remote server has it. Unlike create and
 * update, metadata.uid, creationTimestamp, generation and
 * deletionTimestamp are kept as given (an object re-created under the
 * same name with another uid is replaced in place: one MODIFIED event),
 * only metadata.resourceVersion becomes the store's; finalizers are not
 * acted on. An unchanged object is no write. The events carry mirror =
 * true. body is stolen. -EINVAL for a body without metadata.name or uid.
 */
int api_store_mirror(struct api_store *s, const struct api_kind *k,
		     json_t *body, int64_t now_us,
		     const struct api_obj **ret) MUST_CHECK;
/* Remove a mirrored object (the remote deleted it): -ENOENT when absent. */
int api_store_mirror_delete(struct api_store *s, const struct api_kind *k,
			    const char *ns, const char *name,
			    int64_t now_us) MUST_CHECK;

/*
 * Finalizers, as Kubernetes: api_store_delete() of an object with
 * metadata.finalizers only sets metadata.deletionTimestamp (a MODIFIED
 * event; nothing when already set), and the update that leaves such an
 * object without finalizers removes it (a DELETED event; *ret is then the
 * object as deleted, no longer in the store). An update that changes
 * nothing is no write: no new resourceVersion, no event, *ret the stored
 * object. metadata.generation counts changes outside metadata and status.
 * The object as last deleted stays valid until the next write.
 */

/*
 * o's compact text as kind k at version (NULL: k's preferred): o->text
 * when that is o's own form, else the view (another served version of
 * its kind, or a kind sharing its storage) converted once per object
 * version and kept with it. *ret_len gets its length. Valid until the
 * next write; o must be current (a version api_store_compact() left as
 * text only has no view).
 */
const char *api_store_view(const struct api_obj *o, const struct api_kind *k,
			   const char *version, size_t *ret_len);

/*
 * A Table row of o's version kept with it: the text api_store_row_keep()
 * stored for the same view (k, version: a static string), include mode
 * tag and second of the clock sec (ages change by the second), or NULL.
 * Valid until the next api_store_row_keep() on o or o's end. Lists of
 * the same objects within a second (kubectl -w, dashboards, many clients)
 * then cost a copy per row.
 */
const char *api_store_row(const struct api_obj *o, const struct api_kind *k,
			  const char *version, int tag, int64_t sec,
			  size_t *ret_len);
void api_store_row_keep(const struct api_obj *o, const struct api_kind *k,
			const char *version, int tag, int64_t sec,
			const char *text, size_t len);

/* now_us as RFC 3339 UTC with seconds ("2026-12-01T13:00:00Z") in buf
 * (≥ 21 bytes); returns buf. now_us is of the embedded clock, shown as
 * the wall-clock time it happened at (base/timemap.h; the same time when
 * no map is installed). */
const char *api_store_timestamp(int64_t us, char *buf, size_t size);
/* now_us as a MicroTime: RFC 3339 UTC with six fractional digits
 * ("2026-12-01T13:00:00.000000Z") in buf (>= 28 bytes); returns buf. */
const char *api_store_microtime(int64_t us, char *buf, size_t size);

/*
 * Restore from persistence: put body as stored (metadata as it is, rv
 * its metadata.resourceVersion) without an event; then
 * api_store_restored(s, rv) sets the counter and empties the history
 * (watches older than rv get 410). Only before any other write.
 */
int api_store_load(struct api_store *s, const struct api_kind *k,
		   json_t *body) MUST_CHECK;
void api_store_restored(struct api_store *s, uint64_t rv);
/*
 * After api_store_restored(): put back one persisted change so watches
 * from before the restart resume. Newest first: rv must be
 * api_store_oldest_rv(), which then goes one back. body (stolen, also on
 * failure) is the object after the change (as it was, for API_DELETED).
 * -EINVAL for another rv or a body without metadata.name, -ENOSPC when
 * the history is full.
 */
int api_store_restore_event(struct api_store *s, uint64_t rv,
			    enum api_ev_type type, const struct api_kind *k,
			    json_t *body) MUST_CHECK;

#endif

// SPDX-License-Identifier: Apache-2.0
/*
 * Leader election through a coordination.k8s.io/v1 Lease, the algorithm
 * of client-go's leaderelection (tryAcquireOrRenew) driven by the
 * daemon's loop: one call in flight at a time, its reply handled by the
 * next kube_lease_run() so that every time compared is the local
 * monotonic clock at or after the moment the server answered.
 *
 * One try, started at try_us:
 *   1. leading: PUT the record last written (the fast path); done if
 *      it succeeds, else on to 2;
 *   2. GET; on 404 POST a new record (leaseTransitions 0) and done;
 *   3. a record that differs from the one observed is remembered with
 *      the local time it was seen (observed_us);
 *   4. another holder whose observed_us + leaseDurationSeconds is after
 *      try_us is respected: the try fails;
 *   5. PUT ourselves in with the record's resourceVersion (a 409 means
 *      another replica won the race): acquireTime and leaseTransitions
 *      kept when the record was already ours, else acquireTime now and
 *      leaseTransitions + 1.
 * Followers try every retry period jittered by up to 1.2 times more; a
 * leader renews every retry period and stops leading when the try of
 * its last successful renewal began renew_deadline ago (client-go counts
 * the deadline from the start of the failing round, a retry period
 * later: from the last success the margin to the others' takeover,
 * duration - renew_deadline, holds however long a round takes). A leader
 * that reads another holder in the record stops at once.
 *
 * Why that is safe: a follower measures a record's age from when it saw
 * it, at or after the write; the writer's deadline counts from before
 * the write; and duration > renew_deadline.
 */
#include "kube/kube_lease.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/rng.h"

#include "base/banned.h"

#define DEFAULT_NS	    "kube-system"
#define DEFAULT_NAME	    "echelon"
#define DEFAULT_DURATION_US (15 * 1000000LL)
#define DEFAULT_DEADLINE_US (10 * 1000000LL)
#define DEFAULT_RETRY_US    (2 * 1000000LL)
#define JITTER		    1.2
#define MAX_IDENTITY	    253
#define WATCH_MIN_S	    300 /* a watch lasts 300 to 600 s, as client-go's */
#define LEASES_PATH	    "/apis/coordination.k8s.io/v1/namespaces/"
/* Largest Lease body read (a Lease is a few hundred bytes). */
#define MAX_BODY (1u << 20)

enum phase {
	PH_NONE,
	PH_FAST,    /* PUT from the record observed (the leader's renewal) */
	PH_GET,	    /* GET the record */
	PH_CREATE,  /* POST a new record (the GET said 404) */
	PH_PUT,	    /* PUT after the GET */
	PH_RELEASE, /* PUT leaseDurationSeconds 1 */
};

/* A Lease as read: the object (kept whole, so that a PUT changes only
 * the record) and the record's fields. */
struct record {
	json_t *obj;
	char *raw; /* the record's fields, to see whether it changed */
	char *holder;
	int64_t duration_s;
	int64_t transitions;
};

struct kube_lease {
	const struct kube_transport *tr;
	char *ns, *name, *identity;
	char *coll, *item; /* the collection's path and the Lease's */
	int64_t duration_us, deadline_us, retry_us, timeout_us;
	struct rng rng;

	struct record seen; /* obj NULL: none observed */
	int64_t observed_us;

	bool leading;
	int64_t lead_until_us; /* leading: stop then unless renewed */
	int64_t try_us;	       /* start of the try in progress */
	int64_t next_us;       /* next try */
	int64_t now_us, wall_us;

	uint64_t call; /* in flight, 0: none */
	enum phase phase;
	bool replied; /* a reply waits for kube_lease_run() */
	int code;
	char *body;
	size_t len;

	/* A follower's watch of the Lease, so that a change is dated when
	 * it comes and not at the next try: the latest record an event
	 * brought waits for kube_lease_run(), as replies do. */
	uint64_t watch;	    /* the stream in flight, 0: none */
	int64_t watch_us;   /* open it (again) then */
	int64_t opened_us;  /* when it was opened */
	struct record news; /* obj NULL: none waiting */
	/* The holder of the record this replica last took over, and when
	 * it first saw that record (the takeover's wait, for the log). */
	char *prev_holder;
	int64_t prev_us;

	bool releasing, idle;
	uint64_t acquired, lost, failed;
};

static void record_release(struct record *r)
{
	json_decref(r->obj);
	free(r->raw);
	free(r->holder);
	memset(r, 0, sizeof(*r));
}

/* The API's int32 fields: a larger number is no Lease's (and would
 * overflow the arithmetic on microseconds). */
static bool int32(const json_t *v)
{
	json_int_t n = json_integer_value(v);

	return n >= INT32_MIN && n <= INT32_MAX;
}

/*
 * Decode a Lease (obj, stolen; NULL fails) into r:
 * metadata.resourceVersion a string, spec (when present) an object whose
 * record fields have their types (the two integers int32, as the API's);
 * a field left out reads as client-go reads it (empty, 0). No side effect
 * on failure (-EINVAL).
 */
static int record_decode_obj(json_t *obj, struct record *r)
{
	json_t *spec, *raw, *v;
	const char *holder = "";
	json_int_t dur = 0, trans = 0;
	static const char *const times[] = { "acquireTime", "renewTime" };
	size_t i;

	if (!json_is_object(obj) ||
	    !json_is_string(json_object_get(json_object_get(obj, "metadata"),
					    "resourceVersion")))
		goto bad;
	spec = json_object_get(obj, "spec");
	if (spec && !json_is_object(spec) && !json_is_null(spec))
		goto bad;
	raw = json_object();
	if ((v = json_object_get(spec, "holderIdentity")) && !json_is_null(v)) {
		if (!json_is_string(v))
			goto bad_raw;
		holder = json_string_value(v);
	}
	if ((v = json_object_get(spec, "leaseDurationSeconds")) &&
	    !json_is_null(v)) {
		if (!json_is_integer(v) || !int32(v))
			goto bad_raw;
		dur = json_integer_value(v);
	}
	if ((v = json_object_get(spec, "leaseTransitions")) &&
	    !json_is_null(v)) {
		if (!json_is_integer(v) || !int32(v))
			goto bad_raw;
		trans = json_integer_value(v);
	}
	for (i = 0; i < ARRAY_SIZE(times); i++) {
		v = json_object_get(spec, times[i]);
		if (v && !json_is_null(v) && !json_is_string(v))
			goto bad_raw;
		json_object_set(raw, times[i], v ? v : json_null());
	}
	json_object_set_new(raw, "holderIdentity", json_string(holder));
	json_object_set_new(raw, "leaseDurationSeconds", json_integer(dur));
	json_object_set_new(raw, "leaseTransitions", json_integer(trans));
	r->raw = json_dumps(raw, JSON_COMPACT | JSON_SORT_KEYS);
	BUG_ON(!r->raw);
	json_decref(raw);
	r->obj = obj;
	r->holder = xstrdup(holder);
	r->duration_s = dur;
	r->transitions = trans;
	return 0;
bad_raw:
	json_decref(raw);
bad:
	json_decref(obj);
	return -EINVAL;
}

/* The same from a reply's body. */
static int record_decode(const char *body, size_t len, struct record *r)
{
	return record_decode_obj(
		json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL), r);
}

/* Remember r (stolen) as the record observed; a changed record is dated
 * now (the local clock), an unchanged one keeps its date. */
static void observe(struct kube_lease *l, struct record *r)
{
	if (!l->seen.raw || strcmp(l->seen.raw, r->raw) != 0)
		l->observed_us = l->now_us;
	record_release(&l->seen);
	l->seen = *r;
	memset(r, 0, sizeof(*r));
}

static bool ours(const struct kube_lease *l)
{
	return l->seen.holder && !strcmp(l->seen.holder, l->identity);
}

/* When a follower may take the record observed: its date on our clock
 * plus leaseDurationSeconds when another holds it, at once when it is
 * free; INT64_MAX when there is none or it is ours. */
static int64_t expiry_us(const struct kube_lease *l)
{
	if (!l->seen.obj || ours(l))
		return INT64_MAX;
	if (!*l->seen.holder)
		return l->observed_us;
	return l->observed_us + l->seen.duration_s * 1000000;
}

/* A follower tries again when the record observed expires, not at the
 * next retry tick after that. */
static void try_at_expiry(struct kube_lease *l)
{
	int64_t t = expiry_us(l);

	if (!l->leading && t < l->next_us)
		l->next_us = t;
}

/* wall_us as a MicroTime: RFC 3339 UTC with six fractional digits. */
static json_t *microtime(int64_t wall_us)
{
	time_t t = (time_t)(wall_us / 1000000);
	char day[32], buf[48];
	struct tm tm;

	if (wall_us < 0)
		wall_us = t = 0;
	gmtime_r(&t, &tm);
	if (!strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm))
		day[0] = '\0';
	snprintf(buf, sizeof(buf), "%s.%06dZ", day, (int)(wall_us % 1000000));
	return json_string(buf);
}

/*
 * The Lease to write: the object observed (its metadata, the
 * resourceVersion precondition included; a new one when none) with the
 * record set as client-go sets it. holder NULL: release (holder "",
 * duration 1, both times now, transitions kept).
 */
static json_t *record_body(const struct kube_lease *l, const char *holder)
{
	json_t *obj, *md, *spec, *now = microtime(l->wall_us);
	int64_t trans = l->seen.transitions;
	bool keep = holder && ours(l);

	if (l->seen.obj) {
		obj = json_deep_copy(l->seen.obj);
		json_object_del(json_object_get(obj, "metadata"),
				"managedFields");
	} else {
		obj = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion",
				"coordination.k8s.io/v1", "kind", "Lease",
				"metadata", "name", l->name, "namespace",
				l->ns);
		trans = -1; /* a new record starts at 0 */
	}
	md = json_object_get(obj, "metadata");
	BUG_ON(!json_is_object(md));
	spec = json_object_get(obj, "spec");
	if (!json_is_object(spec)) {
		spec = json_object();
		json_object_set_new(obj, "spec", spec);
	}
	json_object_set_new(spec, "holderIdentity",
			    json_string(holder ? holder : ""));
	json_object_set_new(
		spec, "leaseDurationSeconds",
		json_integer(holder ? l->duration_us / 1000000 : 1));
	if (!keep)
		json_object_set(spec, "acquireTime", now);
	json_object_set(spec, "renewTime", now);
	if (holder && !keep)
		trans++;
	json_object_set_new(spec, "leaseTransitions",
			    json_integer(trans < 0 ? 0 : trans));
	json_decref(now);
	return obj;
}

static void done(void *ctx, const struct kube_reply *r);

static void send_call(struct kube_lease *l, enum phase ph, const char *method,
		      json_t *body)
{
	struct kube_call c = {
		.method = method,
		.path = ph == PH_CREATE ? l->coll : l->item,
		.flags = KUBE_NO_LIMIT,
		.timeout_us = l->timeout_us,
	};
	char *text = NULL;

	if (body) {
		text = json_dumps(body, JSON_COMPACT);
		BUG_ON(!text);
		c.body = text;
		c.len = strlen(text);
		json_decref(body);
	}
	l->phase = ph;
	l->call = kube_send(l->tr, &c, done, NULL, l);
	free(text);
}

static void release_reply(struct kube_lease *l, int code, const char *body,
			  size_t len)
{
	struct record r = { 0 };

	if (code / 100 == 2 && !record_decode(body, len, &r))
		observe(l, &r);
	l->idle = true;
}

/* Keep the reply for kube_lease_run(); a release ends here. */
static void done(void *ctx, const struct kube_reply *r)
{
	struct kube_lease *l = ctx;
	size_t len = r->body ? r->len : 0;

	l->call = 0;
	if (l->phase == PH_RELEASE) {
		l->phase = PH_NONE;
		release_reply(l, r->code, r->body, len);
		return;
	}
	if (len > MAX_BODY)
		len = 0;
	/* The body may hold NUL bytes: copied whole, for the decoder to
	 * refuse. */
	free(l->body);
	l->body = xmalloc(len + 1);
	if (len)
		memcpy(l->body, r->body, len);
	l->body[len] = '\0';
	l->len = len;
	l->code = r->code;
	l->replied = true;
}

static void stop_leading(struct kube_lease *l)
{
	if (!l->leading)
		return;
	l->leading = false;
	l->lost++;
}

static int64_t jittered(struct kube_lease *l, int64_t period_us)
{
	return period_us +
	       (int64_t)(rng_double(&l->rng) * JITTER * (double)period_us);
}

static void try_failed(struct kube_lease *l)
{
	l->phase = PH_NONE;
	l->failed++;
	l->next_us = l->now_us +
		     (l->leading ? l->retry_us : jittered(l, l->retry_us));
}

static void try_succeeded(struct kube_lease *l, const char *body, size_t len)
{
	struct record r = { 0 };

	l->phase = PH_NONE;
	if (record_decode(body, len, &r) || strcmp(r.holder, l->identity)) {
		/* Written but unreadable: start again from a GET. */
		record_release(&r);
		record_release(&l->seen);
		try_failed(l);
		return;
	}
	observe(l, &r);
	if (!l->leading)
		l->acquired++;
	l->leading = true;
	l->lead_until_us = l->try_us + l->deadline_us;
	l->next_us = l->now_us + l->retry_us;
}

/* Steps 3 to 5 on the record a GET returned. */
static void got(struct kube_lease *l, const char *body, size_t len)
{
	struct record r = { 0 };

	if (record_decode(body, len, &r)) {
		try_failed(l);
		return;
	}
	observe(l, &r);
	if (*l->seen.holder && !ours(l)) {
		stop_leading(l);
		if (l->observed_us + l->seen.duration_s * 1000000 > l->try_us) {
			try_failed(l);
			try_at_expiry(l);
			return;
		}
	}
	free(l->prev_holder);
	l->prev_holder = xstrdup(l->seen.holder);
	l->prev_us = l->observed_us;
	send_call(l, PH_PUT, "PUT", record_body(l, l->identity));
}

/* No Lease: a new record (the one observed is gone, and with it its
 * resourceVersion and leaseTransitions, as client-go starts over). */
static void create(struct kube_lease *l)
{
	free(l->prev_holder);
	l->prev_holder = NULL;
	l->prev_us = INT64_MIN;
	record_release(&l->seen);
	send_call(l, PH_CREATE, "POST", record_body(l, l->identity));
}

static void handle_reply(struct kube_lease *l)
{
	enum phase ph = l->phase;
	int code = l->code;

	l->replied = false;
	if (l->releasing) {
		/* Only learn the record (for its resourceVersion). */
		struct record r = { 0 };

		l->phase = PH_NONE;
		if (code / 100 == 2 && !record_decode(l->body, l->len, &r))
			observe(l, &r);
		return;
	}
	switch (ph) {
	case PH_FAST:
		if (code == 200)
			try_succeeded(l, l->body, l->len);
		else
			send_call(l, PH_GET, "GET", NULL);
		break;
	case PH_GET:
		if (code == 200)
			got(l, l->body, l->len);
		else if (code == 404)
			create(l);
		else
			try_failed(l);
		break;
	case PH_CREATE:
	case PH_PUT:
		if (code / 100 == 2)
			try_succeeded(l, l->body, l->len);
		else
			try_failed(l);
		break;
	case PH_NONE:
	case PH_RELEASE:
		BUG_ON(1);
	}
}

/* --- the follower's watch ---------------------------------------------- */

/* One event: the latest record (of our Lease: a server that ignores the
 * field selector sends the namespace's others) waits for
 * kube_lease_run(). An ERROR (a 410 among them) or a line not understood
 * ends the stream. */
static int on_watch_line(void *ctx, const char *line, size_t len)
{
	struct kube_lease *l = ctx;
	json_t *ev = json_loadb(line, len, 0, NULL);
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *obj = json_object_get(ev, "object");
	const char *name = json_string_value(
		json_object_get(json_object_get(obj, "metadata"), "name"));
	struct record r = { 0 };
	int stop = 0;

	if (!type || !json_is_object(obj))
		stop = 1;
	else if (!strcmp(type, "BOOKMARK") || !strcmp(type, "DELETED") ||
		 !name || strcmp(name, l->name))
		;
	else if ((strcmp(type, "ADDED") && strcmp(type, "MODIFIED")) ||
		 record_decode_obj(json_incref(obj), &r))
		stop = 1;
	else {
		record_release(&l->news);
		l->news = r;
	}
	json_decref(ev);
	return stop;
}

/* The server's timeout ends a watch normally: open it again at once,
 * but not sooner than a retry period after it was opened (a server that
 * ends every watch at once is not asked in a loop); after a failure, a
 * retry period later. The tries go on meanwhile. */
static void on_watch_end(void *ctx, const struct kube_reply *r)
{
	struct kube_lease *l = ctx;

	l->watch = 0;
	l->watch_us = l->now_us + l->retry_us;
	if (r->code == 200 && l->opened_us + l->retry_us < l->watch_us)
		l->watch_us = l->opened_us + l->retry_us;
}

/* A follower that has read a record watches it; a leader renews from
 * its own writes and a releasing replica is done with it. */
static bool watch_wanted(const struct kube_lease *l)
{
	return !l->leading && !l->releasing && l->seen.obj;
}

static void watch_open(struct kube_lease *l)
{
	char *path = xasprintf(
		"%s?fieldSelector=metadata.name%%3D%s"
		"&watch=true&timeoutSeconds=%d",
		l->coll, l->name,
		WATCH_MIN_S + (int)rng_below(&l->rng, WATCH_MIN_S + 1));
	struct kube_call c = {
		.method = "GET",
		.path = path,
		.flags = KUBE_STREAM | KUBE_NO_LIMIT,
	};

	l->opened_us = l->now_us;
	l->watch = kube_send(l->tr, &c, on_watch_end, on_watch_line, l);
	free(path);
}

static void watch_close(struct kube_lease *l)
{
	if (l->watch)
		kube_cancel(l->tr, l->watch);
	l->watch = 0;
	record_release(&l->news);
}

/* What the watch brought, dated now (at or after its arrival): a
 * changed record and its expiry. A deletion is left to the tries (a
 * follower that created the Lease at once would lead beside the old
 * holder until its next renewal, as with client-go but sooner). */
static void take_news(struct kube_lease *l)
{
	if (!l->news.obj)
		return;
	observe(l, &l->news);
	try_at_expiry(l);
}

static void start_try(struct kube_lease *l)
{
	l->try_us = l->now_us;
	if (l->leading && l->seen.obj)
		send_call(l, PH_FAST, "PUT", record_body(l, l->identity));
	else
		send_call(l, PH_GET, "GET", NULL);
}

/* Send the release when the record we know is ours; else done. */
static void send_release(struct kube_lease *l)
{
	if (l->seen.obj && ours(l))
		send_call(l, PH_RELEASE, "PUT", record_body(l, NULL));
	else
		l->idle = true;
}

void kube_lease_run(struct kube_lease *l, int64_t mono_us, int64_t wall_us)
{
	l->now_us = mono_us;
	l->wall_us = wall_us;
	if (l->replied)
		handle_reply(l);
	if (!watch_wanted(l))
		watch_close(l);
	else
		take_news(l);
	if (l->releasing) {
		if (!l->call && !l->idle)
			send_release(l);
		return;
	}
	if (l->leading && mono_us >= l->lead_until_us) {
		/* Renewals failed for the whole deadline. */
		stop_leading(l);
		if (l->call) {
			kube_cancel(l->tr, l->call);
			l->call = 0;
			l->phase = PH_NONE;
		}
		l->next_us = mono_us + jittered(l, l->retry_us);
	}
	if (!l->call && mono_us >= l->next_us)
		start_try(l);
	if (watch_wanted(l) && !l->watch && mono_us >= l->watch_us)
		watch_open(l);
}

int64_t kube_lease_next_us(const struct kube_lease *l)
{
	int64_t t = INT64_MAX;

	if (l->idle)
		return INT64_MAX;
	if (l->replied)
		return l->now_us;
	if (l->releasing)
		return l->call ? INT64_MAX : l->now_us;
	if (!l->call)
		t = l->next_us;
	if (l->leading && l->lead_until_us < t)
		t = l->lead_until_us;
	if (watch_wanted(l)) {
		if (l->news.obj)
			return l->now_us;
		if (!l->watch && l->watch_us < t)
			t = l->watch_us;
	}
	return t;
}

bool kube_lease_leader(const struct kube_lease *l)
{
	return l->leading;
}

int64_t kube_lease_until_us(const struct kube_lease *l)
{
	return l->leading ? l->lead_until_us : INT64_MIN;
}

const char *kube_lease_holder(const struct kube_lease *l)
{
	return l->seen.holder ? l->seen.holder : "";
}

int64_t kube_lease_transitions(const struct kube_lease *l)
{
	return l->seen.transitions;
}

void kube_lease_release(struct kube_lease *l, int64_t wall_us)
{
	if (l->releasing)
		return;
	l->releasing = true;
	l->leading = false;
	l->wall_us = wall_us;
	if (!l->call)
		send_release(l);
	/* else: after the reply of the call in flight (kube_lease_run). */
}

int64_t kube_lease_expiry_us(const struct kube_lease *l, int64_t *quiet_us)
{
	int64_t t = l->leading ? INT64_MAX : expiry_us(l);

	*quiet_us = t;
	if (t != INT64_MAX && *l->seen.holder)
		*quiet_us = l->observed_us + l->deadline_us;
	return t;
}

const char *kube_lease_previous(const struct kube_lease *l, int64_t *seen_us)
{
	*seen_us = l->prev_us;
	return l->prev_holder ? l->prev_holder : "";
}

bool kube_lease_idle(const struct kube_lease *l)
{
	return l->idle;
}

static void metric(struct strbuf *out, const struct kube_lease *l,
		   const char *name, const char *type, const char *help,
		   int64_t v)
{
	strbuf_addf(out,
		    "# HELP %s %s\n# TYPE %s %s\n%s{lease=\"%s/%s\"} %" PRId64
		    "\n",
		    name, help, name, type, name, l->ns, l->name, v);
}

void kube_lease_metrics(const struct kube_lease *l, struct strbuf *out)
{
	metric(out, l, "echelon_leader", "gauge",
	       "Whether this replica leads (holds the Lease and writes): 1 "
	       "or 0.",
	       l->leading);
	metric(out, l, "echelon_leader_transitions_seen", "gauge",
	       "The Lease's leaseTransitions as last read: how many times "
	       "leadership changed hands.",
	       l->seen.transitions);
	metric(out, l, "echelon_leader_acquired_total", "counter",
	       "Times this replica became leader.", (int64_t)l->acquired);
	metric(out, l, "echelon_leader_lost_total", "counter",
	       "Times this replica stopped leading without releasing (renew "
	       "deadline passed, or another holder read).",
	       (int64_t)l->lost);
	metric(out, l, "echelon_leader_tries_failed_total", "counter",
	       "Tries to acquire or renew the Lease that failed (held by "
	       "another, a lost race, an error).",
	       (int64_t)l->failed);
}

/* A DNS-1123 name (label when !dots): it goes into request paths. */
static bool name_ok(const char *s, bool dots)
{
	size_t n = strlen(s), i;

	if (!n || n > (dots ? 253u : 63u))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && c != '-' && !(dots && c == '.'))
			return false;
		if (!alnum && (i == 0 || i == n - 1))
			return false;
	}
	return true;
}

static int check_options(const struct kube_lease_options *o, const char *ns,
			 const char *name, int64_t dur, int64_t deadline,
			 int64_t retry, struct errbuf *err)
{
	if (!o->tr)
		return errbuf_set(err, -EINVAL, "lease: no transport");
	if (!name_ok(ns, false))
		return errbuf_set(err, -EINVAL,
				  "lease namespace \"%.64s\": must be a "
				  "DNS-1123 label",
				  ns);
	if (!name_ok(name, true))
		return errbuf_set(err, -EINVAL,
				  "lease name \"%.64s\": must be a DNS-1123 "
				  "subdomain",
				  name);
	if (!o->identity || !*o->identity || strlen(o->identity) > MAX_IDENTITY)
		return errbuf_set(err, -EINVAL,
				  "lease identity: must be 1 to %d characters",
				  MAX_IDENTITY);
	if (dur < 0 || deadline < 0 || retry < 0)
		return errbuf_set(err, -EINVAL,
				  "lease duration, renew deadline and retry "
				  "period must be positive");
	if (dur % 1000000)
		return errbuf_set(err, -EINVAL,
				  "lease duration %.6f s: must be whole "
				  "seconds (leaseDurationSeconds)",
				  (double)dur / 1e6);
	if (dur <= deadline)
		return errbuf_set(err, -EINVAL,
				  "lease duration %.3f s must be longer than "
				  "the renew deadline %.3f s",
				  (double)dur / 1e6, (double)deadline / 1e6);
	if ((double)deadline <= JITTER * (double)retry)
		return errbuf_set(err, -EINVAL,
				  "renew deadline %.3f s must be longer than "
				  "%.1f times the retry period %.3f s",
				  (double)deadline / 1e6, JITTER,
				  (double)retry / 1e6);
	return 0;
}

int kube_lease_new(const struct kube_lease_options *o, struct kube_lease **ret,
		   struct errbuf *err)
{
	const char *ns = o->ns ? o->ns : DEFAULT_NS;
	const char *name = o->name ? o->name : DEFAULT_NAME;
	int64_t dur = o->duration_us ? o->duration_us : DEFAULT_DURATION_US;
	int64_t deadline = o->renew_deadline_us ? o->renew_deadline_us
						: DEFAULT_DEADLINE_US;
	int64_t retry = o->retry_us ? o->retry_us : DEFAULT_RETRY_US;
	struct kube_lease *l;
	int rc;

	rc = check_options(o, ns, name, dur, deadline, retry, err);
	if (rc)
		return rc;
	l = xcalloc(1, sizeof(*l));
	l->tr = o->tr;
	l->ns = xstrdup(ns);
	l->name = xstrdup(name);
	l->identity = xstrdup(o->identity);
	l->coll = xasprintf(LEASES_PATH "%s/leases", ns);
	l->item = xasprintf(LEASES_PATH "%s/leases/%s", ns, name);
	l->duration_us = dur;
	l->deadline_us = deadline;
	l->retry_us = retry;
	/* Two calls fit in the deadline (client-go bounds a whole round
	 * by it). */
	l->timeout_us = deadline / 2;
	rng_seed(&l->rng, o->seed);
	l->next_us = INT64_MIN;
	l->watch_us = INT64_MIN;
	l->prev_us = INT64_MIN;
	*ret = l;
	return 0;
}

void kube_lease_free(struct kube_lease *l)
{
	if (!l)
		return;
	if (l->call)
		kube_cancel(l->tr, l->call);
	watch_close(l);
	record_release(&l->seen);
	free(l->prev_holder);
	free(l->body);
	free(l->ns);
	free(l->name);
	free(l->identity);
	free(l->coll);
	free(l->item);
	free(l);
}

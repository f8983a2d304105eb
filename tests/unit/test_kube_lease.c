// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of leader election (kube_lease) over kube_loop and the real api:
 * up to three replicas, each with its own transport (so faults hit one
 * replica's connection) and its own clocks (monotonic and wall offsets
 * apart: only local time may matter), stepped every 100 ms. After every
 * step at most one running replica leads, and the one that leads is the
 * holder the cluster's Lease names (unless a rogue client writes it).
 * Scenarios are tables of timed events and expectations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "kube/kube_lease.h"
#include "kube/kube_loop.h"
#include "testutil.h"

#define T0	     1796130000000000LL /* 2026-12-01T13:00:00Z */
#define WALL0	     (T0 + 123456)	/* replica 0's wall clock at t 0 */
#define STEP_MS	     100
#define MAX_REPLICAS 3
#define MAX_GETS     64
#define DEADLINE_US  (10 * 1000000LL)

/* A replica's transport, wrapped: checks the flags of every call (and
 * that a create carries no resourceVersion) and notes what was sent,
 * and when. */
struct spy {
	struct kube_transport inner;
	struct strbuf log; /* "GET POST PUT ..." (watches apart) */
	unsigned calls, bad, watches;
	int64_t now_us; /* the replica's monotonic clock */
	int64_t gets[MAX_GETS];
	size_t ngets;
};

struct replica {
	struct kube_loop *loop;
	struct spy spy;
	struct kube_transport tr;
	struct kube_lease *lease;
	bool started, frozen;
	int64_t mono_off, wall_off;
	char id[32];
};

struct fx {
	struct api_store *s;
	struct api *api;
	struct replica r[MAX_REPLICAS];
	int64_t ms;	       /* the test's clock */
	int64_t foreign_until; /* a client-go replica renews until */
	bool rogue;	       /* someone writes without the protocol */
	unsigned steps, led;   /* steps run, steps with a leader */
};

static uint64_t spy_send(void *impl, const struct kube_call *c,
			 kube_done_fn done, kube_line_fn line, void *ctx)
{
	struct spy *s = impl;

	s->calls++;
	if (c->flags & KUBE_STREAM) {
		/* The follower's watch: of the Lease alone, never queued
		 * behind binds, not in the log of tries. */
		if (c->flags != (KUBE_STREAM | KUBE_NO_LIMIT) ||
		    strcmp(c->method, "GET") ||
		    !strstr(c->path, "?fieldSelector=metadata.name%3D") ||
		    !strstr(c->path, "&watch=true"))
			s->bad++;
		s->watches++;
		return kube_send(&s->inner, c, done, line, ctx);
	}
	if ((c->flags & KUBE_RETRY) || !(c->flags & KUBE_NO_LIMIT) ||
	    c->timeout_us <= 0 || c->timeout_us >= DEADLINE_US ||
	    strstr(c->path, "?"))
		s->bad++;
	/* A create names no resourceVersion (a real server refuses it). */
	if (!strcmp(c->method, "POST") && c->body &&
	    strstr(c->body, "\"resourceVersion\""))
		s->bad++;
	strbuf_addf(&s->log, "%s%s", s->log.len ? " " : "", c->method);
	if (!strcmp(c->method, "GET") && s->ngets < MAX_GETS)
		s->gets[s->ngets++] = s->now_us;
	return kube_send(&s->inner, c, done, line, ctx);
}

static void spy_cancel(void *impl, uint64_t id)
{
	struct spy *s = impl;

	kube_cancel(&s->inner, id);
}

static const struct api_kind *lease_kind(void)
{
	return api_kind_at(API_KIND_LEASE);
}

static struct fx *fx_new(void)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	struct api_store_options so = { .history = 1024 };
	json_t *ns;

	f->s = api_store_new(&so);
	f->api = api_new(f->s, NULL);
	ns = json_pack("{s:{s:s}}", "metadata", "name", "kube-system");
	assert_int_equal(api_store_create(f->s, api_kind_at(API_KIND_NAMESPACE),
					  ns, T0, NULL),
			 0);
	ns = json_pack("{s:{s:s}}", "metadata", "name", "team-a");
	assert_int_equal(api_store_create(f->s, api_kind_at(API_KIND_NAMESPACE),
					  ns, T0, NULL),
			 0);
	for (int i = 0; i < MAX_REPLICAS; i++) {
		struct replica *r = &f->r[i];

		r->loop = kube_loop_new(f->api);
		r->spy.inner = kube_loop_transport(r->loop);
		strbuf_init(&r->spy.log);
		r->tr = (struct kube_transport){ .send = spy_send,
						 .cancel = spy_cancel,
						 .impl = &r->spy };
		/* Clocks apart: monotonic by hours, wall by an hour. */
		r->mono_off = (int64_t)i * 7200 * 1000000LL + 17;
		r->wall_off = (int64_t)i * 3600 * 1000000LL;
		snprintf(r->id, sizeof(r->id), "echelon-%d", i);
	}
	return f;
}

static void fx_free(struct fx *f)
{
	for (int i = 0; i < MAX_REPLICAS; i++) {
		kube_lease_free(f->r[i].lease);
		kube_loop_free(f->r[i].loop);
		strbuf_release(&f->r[i].spy.log);
	}
	api_free(f->api);
	api_store_free(f->s);
	free(f);
}

static int64_t mono(const struct fx *f, int i)
{
	return f->ms * 1000 + f->r[i].mono_off;
}

static int64_t wall(const struct fx *f, int i)
{
	return WALL0 + f->ms * 1000 - f->r[i].wall_off;
}

static void start_with(struct fx *f, int i, const struct kube_lease_options *o)
{
	struct kube_lease_options opt = *o;
	struct errbuf err;

	opt.tr = &f->r[i].tr;
	opt.identity = f->r[i].id;
	if (!opt.seed)
		opt.seed = (unsigned long long)i + 1;
	assert_int_equal(kube_lease_new(&opt, &f->r[i].lease, &err), 0);
	f->r[i].started = true;
}

static void start(struct fx *f, int i)
{
	struct kube_lease_options o = { 0 };

	start_with(f, i, &o);
}

static bool running(const struct fx *f, int i)
{
	return f->r[i].started && !f->r[i].frozen;
}

static const json_t *stored_spec(const struct fx *f, const char *ns,
				 const char *name)
{
	const struct api_obj *o = api_store_get(f->s, lease_kind(), ns, name);

	return o ? json_object_get(o->body, "spec") : NULL;
}

static const char *spec_str(const json_t *spec, const char *key)
{
	return json_string_value(json_object_get(spec, key));
}

static json_int_t spec_int(const json_t *spec, const char *key)
{
	return json_integer_value(json_object_get(spec, key));
}

static void microtime(int64_t wall_us, char *buf, size_t size)
{
	char day[32];

	assert_non_null(api_store_timestamp(wall_us, day, sizeof(day)));
	snprintf(buf, size, "%.19s.%06dZ", day, (int)(wall_us % 1000000));
}

/* A client-go replica ("foreign") writes the Lease as its holder: the
 * shape client-go's LeaseLock writes, labels and an annotation of its
 * own. bump: a rogue takeover (leaseTransitions + 1) named holder. */
static void foreign_write(struct fx *f, const char *holder, bool bump)
{
	const struct api_obj *o =
		api_store_get(f->s, lease_kind(), "kube-system", "echelon");
	char now[40];
	json_t *body, *spec;

	microtime(WALL0 + f->ms * 1000 - 5 * 1000000, now, sizeof(now));
	if (!o) {
		body = json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s},s:{s:s}},"
				 "s:{s:s,s:i,s:s,s:s,s:i}}",
				 "apiVersion", "coordination.k8s.io/v1", "kind",
				 "Lease", "metadata", "name", "echelon",
				 "namespace", "kube-system", "labels", "app",
				 "other", "annotations", "example.com/owner",
				 "team-b", "spec", "holderIdentity", holder,
				 "leaseDurationSeconds", 15, "acquireTime",
				 "2026-12-01T12:00:00.000000Z", "renewTime",
				 now, "leaseTransitions", 4);
		assert_int_equal(
			api_store_create(f->s, lease_kind(), body, T0, NULL),
			0);
		return;
	}
	body = json_deep_copy(o->body);
	spec = json_object_get(body, "spec");
	json_object_set_new(spec, "holderIdentity", json_string(holder));
	json_object_set_new(spec, "leaseDurationSeconds", json_integer(15));
	json_object_set_new(spec, "renewTime", json_string(now));
	if (bump)
		json_object_set_new(
			spec, "leaseTransitions",
			json_integer(spec_int(spec, "leaseTransitions") + 1));
	assert_int_equal(api_store_update(f->s, lease_kind(), body, 0,
					  T0 + f->ms * 1000, NULL),
			 0);
}

/* At most one running replica leads, and (without rogue writers) the
 * Lease names it: nobody else has taken it over behind its back. */
static void check(struct fx *f, const char *name)
{
	int leaders = 0, who = -1;

	for (int i = 0; i < MAX_REPLICAS; i++) {
		if (!running(f, i))
			continue;
		if (f->r[i].spy.bad)
			fail_msg("%s: %" PRId64 " ms: replica %d sent a wrong "
				 "call (flags, timeout, or a create with a "
				 "resourceVersion)",
				 name, f->ms, i);
		if (kube_lease_leader(f->r[i].lease)) {
			leaders++;
			who = i;
		}
	}
	if (leaders > 1)
		fail_msg("%s: %" PRId64 " ms: %d replicas lead", name, f->ms,
			 leaders);
	f->steps++;
	f->led += leaders;
	if (who >= 0 && !f->rogue) {
		const char *h =
			spec_str(stored_spec(f, "kube-system", "echelon"),
				 "holderIdentity");

		if (!h || strcmp(h, f->r[who].id))
			fail_msg("%s: %" PRId64 " ms: replica %d leads but "
				 "the Lease names %s",
				 name, f->ms, who, h ? h : "nobody");
	}
}

/* One step of the clock: transports and leases run until no reply is
 * left to handle (a frozen replica runs neither). */
static void step(struct fx *f)
{
	for (int round = 0; round < 32; round++) {
		int n = 0;

		for (int i = 0; i < MAX_REPLICAS; i++)
			if (running(f, i))
				n += kube_loop_run(f->r[i].loop,
						   T0 + f->ms * 1000);
		for (int i = 0; i < MAX_REPLICAS; i++) {
			if (!running(f, i))
				continue;
			f->r[i].spy.now_us = mono(f, i);
			kube_lease_run(f->r[i].lease, mono(f, i), wall(f, i));
		}
		if (round && !n)
			return;
	}
	fail_msg("%" PRId64 " ms: calls never settle", f->ms);
}

enum what {
	START = 1,   /* replica who starts (0 ends a list) */
	FREEZE,	     /* who stops running (SIGSTOP): transport and lease */
	THAW,	     /* who runs again */
	FAULT,	     /* who's calls fail: share p, status arg (0: a mix) */
	HEAL,	     /* who's calls no longer fail */
	STREAMS,     /* who's watch drops after share p of its events, and
		      * a 410 replaces share p / 2 of them */
	RELEASE,     /* who hands over */
	FOREIGN,     /* a client-go replica holds it, renewing until arg */
	SEIZE,	     /* a rogue client writes itself in */
	DELETE,	     /* someone deletes the Lease */
	LEADS,	     /* expect who (-1: any one) to lead */
	NOBODY,	     /* expect nobody to lead */
	TRANSITIONS, /* expect leaseTransitions arg */
	HOLDER,	     /* expect holderIdentity s, leaseDurationSeconds arg */
	KEPT,	     /* expect the foreign labels and annotation kept */
	IDLE,	     /* expect who's release done */
};

struct ev {
	int64_t ms;
	enum what what;
	int who, arg;
	double p;
	const char *s;
};

struct scenario {
	const char *name;
	int64_t end_ms;
	bool rogue;
	struct ev ev[16];
};

static void act(struct fx *f, const struct ev *e, unsigned long long seed)
{
	struct kube_loop_faults fl = { .seed = seed + (unsigned)e->who,
				       .fail = e->p,
				       .fail_code = e->arg };

	switch (e->what) {
	case START:
		start(f, e->who);
		break;
	case FREEZE:
		f->r[e->who].frozen = true;
		break;
	case THAW:
		f->r[e->who].frozen = false;
		break;
	case FAULT:
		kube_loop_set_faults(f->r[e->who].loop, &fl);
		break;
	case STREAMS:
		fl.fail = 0;
		fl.drop = e->p;
		fl.expire = e->p / 2;
		kube_loop_set_faults(f->r[e->who].loop, &fl);
		break;
	case HEAL:
		kube_loop_set_faults(f->r[e->who].loop, NULL);
		break;
	case RELEASE:
		kube_lease_release(f->r[e->who].lease, wall(f, e->who));
		break;
	case FOREIGN:
		f->foreign_until = e->arg;
		break;
	case SEIZE:
		foreign_write(f, "rogue", true);
		break;
	case DELETE:
		assert_int_equal(api_store_delete(f->s, lease_kind(),
						  "kube-system", "echelon", 0,
						  T0 + f->ms * 1000),
				 0);
		break;
	default:
		break;
	}
}

static void expect(struct fx *f, const struct scenario *sc, const struct ev *e)
{
	const json_t *spec = stored_spec(f, "kube-system", "echelon");
	const struct api_obj *o;
	int who = -1;

	for (int i = 0; i < MAX_REPLICAS; i++)
		if (running(f, i) && kube_lease_leader(f->r[i].lease))
			who = i;
	switch (e->what) {
	case LEADS:
		if (who < 0 || (e->who >= 0 && who != e->who))
			fail_msg("%s: %" PRId64 " ms: leader %d, want %d",
				 sc->name, f->ms, who, e->who);
		break;
	case NOBODY:
		if (who >= 0)
			fail_msg("%s: %" PRId64 " ms: replica %d leads",
				 sc->name, f->ms, who);
		break;
	case TRANSITIONS:
		if (spec_int(spec, "leaseTransitions") != e->arg)
			fail_msg("%s: %" PRId64 " ms: leaseTransitions %d, "
				 "want %d",
				 sc->name, f->ms,
				 (int)spec_int(spec, "leaseTransitions"),
				 e->arg);
		for (int i = 0; i < MAX_REPLICAS; i++)
			if (who == i)
				assert_int_equal(
					kube_lease_transitions(f->r[i].lease),
					e->arg);
		break;
	case HOLDER:
		assert_string_equal(spec_str(spec, "holderIdentity"), e->s);
		assert_int_equal(spec_int(spec, "leaseDurationSeconds"),
				 e->arg);
		break;
	case KEPT:
		o = api_store_get(f->s, lease_kind(), "kube-system", "echelon");
		assert_string_equal(
			json_string_value(json_object_get(
				json_object_get(
					json_object_get(o->body, "metadata"),
					"labels"),
				"app")),
			"other");
		assert_non_null(json_object_get(
			json_object_get(json_object_get(o->body, "metadata"),
					"annotations"),
			"example.com/owner"));
		break;
	case IDLE:
		if (!kube_lease_idle(f->r[e->who].lease))
			fail_msg("%s: %" PRId64 " ms: release not done",
				 sc->name, f->ms);
		break;
	default:
		break;
	}
}

static void run_scenario(struct fx *f, const struct scenario *sc,
			 unsigned long long seed)
{
	f->rogue = sc->rogue;
	for (f->ms = 0; f->ms <= sc->end_ms; f->ms += STEP_MS) {
		const struct ev *e;

		for (e = sc->ev; e->what; e++)
			if (e->ms == f->ms && e->what < LEADS)
				act(f, e, seed);
		if (f->foreign_until && f->ms <= f->foreign_until &&
		    f->ms % 2000 == 0)
			foreign_write(f, "foreign_1a2b3c", false);
		step(f);
		check(f, sc->name);
		for (e = sc->ev; e->what; e++)
			if (e->ms == f->ms && e->what >= LEADS)
				expect(f, sc, e);
	}
}

/*
 * Replicas run in index order within a step, each over its own
 * connection: with three starting together, replica 0's create lands
 * first and the others' get 409 AlreadyExists. Bounds: a follower
 * watches the Lease, so a record that stopped changing at t is dated t
 * (the step its event comes in), expires at t + 15 s and is tried then.
 * Without the watch it tries every 2 to 4.4 s (2 s jittered by up to
 * 1.2 × 2 s): such a record is dated before t + 4.5 s and, with the
 * try at its expiry, taken before t + 19.5 s.
 */
static const struct scenario scenarios[] = {
	{ "three start, the first create wins and keeps it",
	  60000,
	  false,
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 0, .what = START, .who = 1 },
	    { .ms = 0, .what = START, .who = 2 },
	    { .ms = 1000, .what = LEADS, .who = 0 },
	    { .ms = 1000, .what = TRANSITIONS, .arg = 0 },
	    { .ms = 1000, .what = HOLDER, .s = "echelon-0", .arg = 15 },
	    { .ms = 60000, .what = LEADS, .who = 0 },
	    { .ms = 60000, .what = TRANSITIONS, .arg = 0 } } },
	{ "a frozen leader is taken over when its lease expires",
	  45000,
	  false,
	  /* Last renewal at 4 s, seen at once through the watch: no
	   * takeover before 19 s, and the try is made then (client-go:
	   * dated at the next try, taken at the try after the expiry, up
	   * to 28 s). Thawed, the old leader knows at once that it lost
	   * (check()). */
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 500, .what = START, .who = 1 },
	    { .ms = 1000, .what = LEADS, .who = 0 },
	    { .ms = 5000, .what = FREEZE, .who = 0 },
	    { .ms = 18900, .what = NOBODY },
	    { .ms = 19000, .what = LEADS, .who = 1 },
	    { .ms = 19000, .what = TRANSITIONS, .arg = 1 },
	    { .ms = 19000, .what = HOLDER, .s = "echelon-1", .arg = 15 },
	    { .ms = 30000, .what = THAW, .who = 0 },
	    { .ms = 45000, .what = LEADS, .who = 1 },
	    { .ms = 45000, .what = TRANSITIONS, .arg = 1 } } },
	{ "a release is taken when its event comes",
	  30000,
	  false,
	  /* At once (client-go: at the follower's next try, up to 4.4 s
	   * later). */
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 500, .what = START, .who = 1 },
	    { .ms = 1000, .what = LEADS, .who = 0 },
	    { .ms = 10000, .what = RELEASE, .who = 0 },
	    { .ms = 10000, .what = IDLE, .who = 0 },
	    { .ms = 10000, .what = LEADS, .who = 1 },
	    { .ms = 10000, .what = TRANSITIONS, .arg = 1 },
	    { .ms = 30000, .what = LEADS, .who = 1 } } },
	{ "renewals failing past the deadline stop the leader",
	  60000,
	  false,
	  /* Last successful renewal started at 10 s: leading until 20 s
	   * exactly; the follower dated that record at 10 s (its watch)
	   * and takes it at 25 s, client-go's 5 s margin. */
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 500, .what = START, .who = 1 },
	    { .ms = 10100, .what = FAULT, .who = 0, .arg = 500, .p = 1.0 },
	    { .ms = 19900, .what = LEADS, .who = 0 },
	    { .ms = 20000, .what = NOBODY },
	    { .ms = 24900, .what = NOBODY },
	    { .ms = 25000, .what = LEADS, .who = 1 },
	    { .ms = 25000, .what = TRANSITIONS, .arg = 1 },
	    { .ms = 35000, .what = HEAL, .who = 0 },
	    { .ms = 60000, .what = LEADS, .who = 1 } } },
	{ "every connection failing leaves nobody leading, then one",
	  50000,
	  false,
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 0, .what = START, .who = 1 },
	    { .ms = 10100, .what = FAULT, .who = 0, .arg = 500, .p = 1.0 },
	    { .ms = 10100, .what = FAULT, .who = 1, .arg = 500, .p = 1.0 },
	    { .ms = 19900, .what = LEADS, .who = 0 },
	    { .ms = 20000, .what = NOBODY },
	    { .ms = 39900, .what = NOBODY },
	    { .ms = 40000, .what = HEAL, .who = 0 },
	    { .ms = 40000, .what = HEAL, .who = 1 },
	    { .ms = 45000, .what = LEADS, .who = -1 } } },
	{ "a holder written by client-go is respected while it renews",
	  50000,
	  false,
	  /* Its last renewal at 20 s; leaseTransitions 4 before. */
	  { { .ms = 0, .what = FOREIGN, .arg = 20000 },
	    { .ms = 100, .what = START, .who = 0 },
	    { .ms = 100, .what = START, .who = 1 },
	    { .ms = 20000, .what = HOLDER, .s = "foreign_1a2b3c", .arg = 15 },
	    { .ms = 34900, .what = NOBODY },
	    { .ms = 44000, .what = LEADS, .who = -1 },
	    { .ms = 44000, .what = TRANSITIONS, .arg = 5 },
	    { .ms = 44000, .what = KEPT },
	    { .ms = 50000, .what = TRANSITIONS, .arg = 5 } } },
	{ "a leader that reads another holder stops at once",
	  40000,
	  true,
	  /* A rogue write at 10.1 s; the renewal at 12 s gets 409, reads
	   * the record and stops. The rogue never renews: taken back 15 s
	   * after 12 s, at the next try. */
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 1000, .what = LEADS, .who = 0 },
	    { .ms = 10100, .what = SEIZE },
	    { .ms = 11900, .what = LEADS, .who = 0 },
	    { .ms = 12000, .what = NOBODY },
	    { .ms = 12000, .what = HOLDER, .s = "rogue", .arg = 15 },
	    { .ms = 26900, .what = NOBODY },
	    { .ms = 31500, .what = LEADS, .who = 0 },
	    { .ms = 31500, .what = TRANSITIONS, .arg = 2 } } },
	{ "a Lease deleted under its leader is created again",
	  20000,
	  true,
	  /* The renewal at 12 s gets 404, reads 404 and creates a new
	   * record, without the old one's resourceVersion. */
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 5000, .what = LEADS, .who = 0 },
	    { .ms = 5000, .what = TRANSITIONS, .arg = 0 },
	    { .ms = 10100, .what = DELETE },
	    { .ms = 12000, .what = LEADS, .who = 0 },
	    { .ms = 12000, .what = HOLDER, .s = "echelon-0", .arg = 15 },
	    { .ms = 12000, .what = TRANSITIONS, .arg = 0 },
	    { .ms = 20000, .what = LEADS, .who = 0 } } },
	{ "a watch that drops and expires: the tries still take over",
	  40000,
	  false,
	  /* Last renewal at 4 s, dated by the next try at the latest
	   * (8.5 s): taken between 19 and 23.5 s. */
	  { { .ms = 0, .what = START, .who = 0 },
	    { .ms = 0, .what = STREAMS, .who = 1, .p = 0.5 },
	    { .ms = 500, .what = START, .who = 1 },
	    { .ms = 5000, .what = FREEZE, .who = 0 },
	    { .ms = 18900, .what = NOBODY },
	    { .ms = 23600, .what = LEADS, .who = 1 },
	    { .ms = 40000, .what = LEADS, .who = 1 } } },
};

static void test_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++) {
		struct fx *f = fx_new();

		run_scenario(f, &scenarios[i], 1);
		fx_free(f);
	}
}

/* Seeded random faults on every connection (409 lost races, 404, 429,
 * 500): never two leaders, the leader always the holder; with a few
 * faults a leader nearly all the time, with many leadership changing
 * hands; once healed, one leads. */
static void test_random_faults(void **state)
{
	static const struct {
		double p;
		unsigned min_led_pct; /* of the steps */
		bool changes;	      /* some leader lost it */
	} rows[] = { { 0.3, 95, false }, { 0.7, 30, true } };
	struct scenario sc = {
		"random faults",
		150000,
		false,
		{ { .ms = 0, .what = START, .who = 0 },
		  { .ms = 0, .what = START, .who = 1 },
		  { .ms = 0, .what = START, .who = 2 },
		  { .ms = 0, .what = FAULT, .who = 0 },
		  { .ms = 0, .what = FAULT, .who = 1 },
		  { .ms = 0, .what = FAULT, .who = 2 },
		  { .ms = 120000, .what = HEAL, .who = 0 },
		  { .ms = 120000, .what = HEAL, .who = 1 },
		  { .ms = 120000, .what = HEAL, .who = 2 },
		  { .ms = 145000, .what = LEADS, .who = -1 } },
	};

	(void)state;
	for (size_t r = 0; r < ARRAY_SIZE(rows); r++) {
		unsigned long long lost = 0;

		for (int i = 3; i < 6; i++)
			sc.ev[i].p = rows[r].p;
		for (unsigned long long seed = 1; seed <= 4; seed++) {
			struct fx *f = fx_new();
			struct strbuf m;

			run_scenario(f, &sc, seed * 1000);
			if (f->led * 100 < f->steps * rows[r].min_led_pct)
				fail_msg("p %.1f seed %llu: a leader in %u of "
					 "%u steps",
					 rows[r].p, seed, f->led, f->steps);
			strbuf_init(&m);
			for (int i = 0; i < MAX_REPLICAS; i++) {
				strbuf_reset(&m);
				kube_lease_metrics(f->r[i].lease, &m);
				lost += !strstr(m.buf,
						"lost_total{lease=\"kube-"
						"system/echelon\"} 0\n");
			}
			strbuf_release(&m);
			fx_free(f);
		}
		assert_int_equal(lost > 0, rows[r].changes);
	}
}

/* What a replica writes: the record as client-go writes it, renewTime
 * and acquireTime MicroTimes of its own wall clock, in the namespace and
 * name it was given; then only renewals. */
static void test_record_written(void **state)
{
	struct kube_lease_options o = { .ns = "team-a", .name = "sched.x" };
	struct fx *f = fx_new();
	const json_t *spec;

	(void)state;
	start_with(f, 0, &o);
	step(f);
	spec = stored_spec(f, "team-a", "sched.x");
	assert_non_null(spec);
	assert_true(kube_lease_leader(f->r[0].lease));
	assert_string_equal(kube_lease_holder(f->r[0].lease), "echelon-0");
	assert_string_equal(spec_str(spec, "holderIdentity"), "echelon-0");
	assert_int_equal(spec_int(spec, "leaseDurationSeconds"), 15);
	assert_int_equal(spec_int(spec, "leaseTransitions"), 0);
	assert_string_equal(spec_str(spec, "acquireTime"),
			    "2026-12-01T13:00:00.123456Z");
	assert_string_equal(spec_str(spec, "renewTime"),
			    "2026-12-01T13:00:00.123456Z");
	for (f->ms = STEP_MS; f->ms <= 10000; f->ms += STEP_MS)
		step(f);
	spec = stored_spec(f, "team-a", "sched.x");
	assert_string_equal(spec_str(spec, "acquireTime"),
			    "2026-12-01T13:00:00.123456Z");
	assert_string_equal(spec_str(spec, "renewTime"),
			    "2026-12-01T13:00:10.123456Z");
	assert_int_equal(spec_int(spec, "leaseTransitions"), 0);
	/* Created after a 404, then renewed on the fast path every 2 s. */
	assert_string_equal(f->r[0].spy.log.buf,
			    "GET POST PUT PUT PUT PUT PUT");
	assert_int_equal(f->r[0].spy.bad, 0);
	fx_free(f);
}

/* A follower reads the Lease every retry period jittered by up to 1.2
 * times more; the same seed gives the same times. */
static void follower_gets(unsigned long long seed, int64_t *gaps, size_t *n)
{
	struct kube_lease_options o = { .seed = seed };
	struct fx *f = fx_new();
	struct spy *s = &f->r[1].spy;

	start(f, 0);
	for (f->ms = 0; f->ms <= 60000; f->ms += STEP_MS) {
		if (f->ms == 500)
			start_with(f, 1, &o);
		step(f);
	}
	assert_false(kube_lease_leader(f->r[1].lease));
	assert_string_equal(kube_lease_holder(f->r[1].lease), "echelon-0");
	assert_null(strstr(s->log.buf, "PUT"));
	assert_null(strstr(s->log.buf, "POST"));
	*n = s->ngets - 1;
	for (size_t i = 0; i + 1 < s->ngets; i++)
		gaps[i] = s->gets[i + 1] - s->gets[i];
	fx_free(f);
}

static void test_jitter(void **state)
{
	int64_t a[MAX_GETS], b[MAX_GETS], c[MAX_GETS];
	size_t na, nb, nc;
	bool differ = false, vary = false;

	(void)state;
	follower_gets(7, a, &na);
	follower_gets(7, b, &nb);
	follower_gets(8, c, &nc);
	assert_true(na >= 12);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * sizeof(a[0]));
	for (size_t i = 0; i < na; i++) {
		/* 2 s to 4.4 s, rounded up to the 100 ms step */
		assert_in_range(a[i], 2000000, 4500000);
		vary |= i && a[i] != a[0];
	}
	for (size_t i = 0; i < na && i < nc; i++)
		differ |= a[i] != c[i];
	assert_true(vary);
	assert_true(differ || na != nc);
}

/* A release asked while a renewal is in flight waits for its answer (a
 * resourceVersion of its own), then writes the record free; a replica
 * that does not hold the Lease has nothing to release. */
static void test_release_in_flight(void **state)
{
	struct fx *f = fx_new();
	const json_t *spec;
	struct strbuf m;

	(void)state;
	strbuf_init(&m);
	start(f, 0);
	start(f, 1);
	for (f->ms = 0; f->ms <= 2000; f->ms += STEP_MS)
		step(f);
	f->ms = 4000;
	/* The renewal is sent, not yet answered. */
	kube_lease_run(f->r[0].lease, mono(f, 0), wall(f, 0));
	assert_int_equal(kube_loop_active(f->r[0].loop), 1);
	kube_lease_release(f->r[0].lease, wall(f, 0));
	assert_false(kube_lease_leader(f->r[0].lease));
	assert_false(kube_lease_idle(f->r[0].lease));
	kube_lease_release(f->r[1].lease, wall(f, 1));
	assert_true(kube_lease_idle(f->r[1].lease));
	f->r[1].frozen = true;
	for (int i = 0; i < 4; i++) {
		kube_loop_run(f->r[0].loop, T0 + f->ms * 1000);
		kube_lease_run(f->r[0].lease, mono(f, 0), wall(f, 0));
	}
	assert_true(kube_lease_idle(f->r[0].lease));
	assert_int_equal(kube_lease_next_us(f->r[0].lease), INT64_MAX);
	spec = stored_spec(f, "kube-system", "echelon");
	assert_string_equal(spec_str(spec, "holderIdentity"), "");
	assert_int_equal(spec_int(spec, "leaseDurationSeconds"), 1);
	assert_string_equal(spec_str(spec, "renewTime"),
			    "2026-12-01T13:00:04.123456Z");
	assert_string_equal(f->r[0].spy.log.buf, "GET POST PUT PUT PUT");
	kube_lease_metrics(f->r[0].lease, &m);
	testutil_assert_line(m.buf,
			     "echelon_leader{lease=\"kube-system/echelon\"} 0");
	testutil_assert_line(m.buf, "echelon_leader_acquired_total{lease="
				    "\"kube-system/echelon\"} 1");
	testutil_assert_line(m.buf, "echelon_leader_lost_total{lease="
				    "\"kube-system/echelon\"} 0");
	strbuf_release(&m);
	fx_free(f);
}

/* next_us: due at once before the first try; the leader's next renewal
 * otherwise; a reply waiting is due at once. until_us: the renew
 * deadline from the start of the last successful try. */
static void test_next_and_metrics(void **state)
{
	struct fx *f = fx_new();
	struct kube_lease *l;
	struct strbuf m;

	(void)state;
	strbuf_init(&m);
	start(f, 0);
	l = f->r[0].lease;
	assert_true(kube_lease_next_us(l) <= mono(f, 0));
	assert_string_equal(kube_lease_holder(l), "");
	assert_int_equal(kube_lease_until_us(l), INT64_MIN);
	step(f);
	assert_true(kube_lease_leader(l));
	assert_int_equal(kube_lease_next_us(l), mono(f, 0) + 2000000);
	assert_int_equal(kube_lease_until_us(l), mono(f, 0) + DEADLINE_US);
	kube_lease_metrics(l, &m);
	testutil_assert_line(m.buf,
			     "echelon_leader{lease=\"kube-system/echelon\"} 1");
	testutil_assert_line(m.buf, "echelon_leader_transitions_seen{lease="
				    "\"kube-system/echelon\"} 0");
	testutil_assert_line(m.buf, "# TYPE echelon_leader gauge");
	f->ms = 2000;
	kube_lease_run(l, mono(f, 0), wall(f, 0));
	kube_loop_run(f->r[0].loop, T0 + f->ms * 1000);
	assert_int_equal(kube_lease_next_us(l), mono(f, 0));
	/* The renewal counts once handled, from when its try began. */
	assert_int_equal(kube_lease_until_us(l),
			 mono(f, 0) - 2000000 + DEADLINE_US);
	kube_lease_run(l, mono(f, 0) + 50000, wall(f, 0));
	assert_int_equal(kube_lease_until_us(l), mono(f, 0) + DEADLINE_US);
	kube_lease_release(l, wall(f, 0));
	assert_int_equal(kube_lease_until_us(l), INT64_MIN);
	strbuf_release(&m);
	fx_free(f);
}

struct opt_case {
	const char *name;
	struct kube_lease_options o;
	bool no_tr;
	const char *want; /* NULL: accepted */
};

static void test_options(void **state)
{
	static const struct opt_case cases[] = {
		{ "defaults", { .identity = "a" }, false, NULL },
		{ "client-go's minimum",
		  { .identity = "a",
		    .duration_us = 3000000,
		    .renew_deadline_us = 2500000,
		    .retry_us = 2000000 },
		  false,
		  NULL },
		{ "no transport", { .identity = "a" }, true, "no transport" },
		{ "no identity", { 0 }, false, "identity" },
		{ "empty identity", { .identity = "" }, false, "identity" },
		{ "namespace with a dot",
		  { .identity = "a", .ns = "kube.system" },
		  false,
		  "DNS-1123 label" },
		{ "namespace upper case",
		  { .identity = "a", .ns = "Kube" },
		  false,
		  "DNS-1123 label" },
		{ "empty name",
		  { .identity = "a", .name = "" },
		  false,
		  "DNS-1123 subdomain" },
		{ "name with a slash",
		  { .identity = "a", .name = "x/../pods" },
		  false,
		  "DNS-1123 subdomain" },
		{ "name ending in a dash",
		  { .identity = "a", .name = "x-" },
		  false,
		  "DNS-1123 subdomain" },
		{ "duration not above the deadline",
		  { .identity = "a", .duration_us = 10000000 },
		  false,
		  "lease duration 10.000 s must be longer than the renew "
		  "deadline 10.000 s" },
		{ "duration below the default deadline",
		  { .identity = "a", .duration_us = 5000000 },
		  false,
		  "must be longer than the renew deadline" },
		{ "duration not whole seconds",
		  { .identity = "a", .duration_us = 15500000 },
		  false,
		  "whole seconds" },
		{ "deadline at 1.2 times the retry period",
		  { .identity = "a",
		    .renew_deadline_us = 2400000,
		    .retry_us = 2000000 },
		  false,
		  "renew deadline 2.400 s must be longer than 1.2 times the "
		  "retry period 2.000 s" },
		{ "negative retry",
		  { .identity = "a", .retry_us = -1 },
		  false,
		  "must be positive" },
	};
	struct fx *f = fx_new();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kube_lease_options o = cases[i].o;
		struct kube_lease *l = (struct kube_lease *)&o;
		struct errbuf err;
		int rc;

		o.tr = cases[i].no_tr ? NULL : &f->r[0].tr;
		errbuf_clear(&err);
		rc = kube_lease_new(&o, &l, &err);
		if (!cases[i].want) {
			if (rc)
				fail_msg("%s: refused: %s", cases[i].name,
					 err.msg);
			kube_lease_free(l);
			continue;
		}
		if (rc != -EINVAL || !strstr(err.msg, cases[i].want))
			fail_msg("%s: rc %d, message \"%s\", want \"%s\"",
				 cases[i].name, rc, err.msg, cases[i].want);
		/* ret_* is written only on success */
		assert_ptr_equal(l, (struct kube_lease *)&o);
	}
	{
		struct kube_lease_options o = { .tr = &f->r[0].tr };
		struct kube_lease *l = NULL;
		struct errbuf err;
		char id[300];

		memset(id, 'a', sizeof(id) - 1);
		id[sizeof(id) - 1] = '\0';
		o.identity = id;
		assert_int_equal(kube_lease_new(&o, &l, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "1 to 253 characters"));
		assert_null(l);
	}
	fx_free(f);
}

/* Records the lease cannot read are not taken over: a try fails and
 * the record stays as it was. */
static void test_unreadable_record(void **state)
{
	static const char *const specs[] = {
		"{\"holderIdentity\":7,\"leaseDurationSeconds\":15}",
		"{\"holderIdentity\":\"x\",\"leaseDurationSeconds\":\"15\"}",
		"{\"holderIdentity\":\"x\",\"renewTime\":12}",
		/* beyond int32: microseconds of it would overflow */
		"{\"holderIdentity\":\"x\",\"leaseDurationSeconds\":"
		"9300000000000000}",
		"{\"holderIdentity\":\"x\",\"leaseDurationSeconds\":-"
		"9300000000000000}",
		"{\"holderIdentity\":\"x\",\"leaseTransitions\":"
		"9223372036854775807}",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++) {
		struct fx *f = fx_new();
		json_t *spec = json_loads(specs[i], 0, NULL);
		json_t *body =
			json_pack("{s:s,s:s,s:{s:s,s:s},s:o}", "apiVersion",
				  "coordination.k8s.io/v1", "kind", "Lease",
				  "metadata", "name", "echelon", "namespace",
				  "kube-system", "spec", spec);
		const struct api_obj *o;
		uint64_t rv;

		assert_int_equal(
			api_store_create(f->s, lease_kind(), body, T0, &o), 0);
		rv = o->rv;
		start(f, 0);
		for (f->ms = 0; f->ms <= 30000; f->ms += STEP_MS)
			step(f);
		assert_false(kube_lease_leader(f->r[0].lease));
		o = api_store_get(f->s, lease_kind(), "kube-system", "echelon");
		assert_int_equal(o->rv, rv);
		fx_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_record_written),
		cmocka_unit_test(test_next_and_metrics),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_release_in_flight),
		cmocka_unit_test(test_unreadable_record),
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_random_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

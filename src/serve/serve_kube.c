// SPDX-License-Identifier: Apache-2.0
/*
 * `echelon serve --kubeconfig`: the daemon's loop over a remote cluster.
 * Each turn runs the transport's I/O (whose callbacks mirror remote
 * changes into the replica and answer the outbox's writes), the
 * reflectors' and the Lease's timers, then, on the leader only and once
 * the replica is synced, serve_sched until quiet and the outbox's flush
 * of what it wrote (while the Lease is held by the clock then, not only
 * the turn's start). Leadership comes and goes with the Lease: a new
 * leader builds serve_sched over the warm replica (its first pass adopts
 * what the cluster records), a lost one drops it and its queued writes.
 */
#include "serve/serve_kube.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api_kind.h"
#include "base/alloc.h"
#include "base/diag.h"
#include "base/hmap.h"
#include "base/version.h"
#include "kube/kube_config.h"
#include "kube/kube_http.h"
#include "kube/kube_lease.h"
#include "kube/kube_outbox.h"
#include "kube/kube_reflect.h"
#include "serve/serve_apply.h"
#include "serve/serve_sched.h"

#include "base/banned.h"

#define SYNC_ROUNDS 4 /* scheduler rounds per turn at most */
#define SYNC_WRITES                                                            \
	4000 /* writes per round at most: the replica's                        \
		history keeps 100,000 changes */
#define DRAIN_US	     (5 * 1000000LL)  /* the outbox's writes at stop */
#define RELEASE_US	     (2 * 1000000LL)  /* the Lease's release at stop */
#define VERSION_US	     (30 * 1000000LL) /* retries of the first /version */
#define UNSYNCED_US	     (30 * 1000000LL) /* between "not synced yet" lines */
#define UNSENT_SLACK	     1024 /* unsent keys noted before a pruning */
#define REREAD_MAX	     1024 /* GETs at a lost leadership, else relist */
#define PROGRESS_US	     (10 * 1000LL)   /* I/O inside a scheduler pass */
#define PREPARE_US	     (1000 * 1000LL) /* past the holder's deadline */
#define KUBE_VERSION_DEFAULT "v1.35.0"	     /* /version here until known */

struct serve_kube {
	const struct serve_options *o;
	serve_log_fn log;
	struct kube_target target;
	struct kube_http *http;
	struct kube_transport tr;
	struct api_store *store;
	struct api *api;
	struct api_hooks hooks;
	struct kube_reflect *reflect;
	struct kube_outbox *outbox;
	struct kube_lease *lease;
	struct serve_sched *sched; /* while leading, once synced */
	/* Following, the scheduler prepared for the expiry of the record
	 * observed (prepared_for), or NULL; the expiry last tried. */
	struct serve_sched *prepared;
	int64_t prepared_for, prepare_tried;
	/* Objects the scheduler wrote whose writes may still be on their
	 * way (keys "KIND_ID\0NS\0NAME"), and the store's rv read up to. */
	struct hmap unsent;
	uint64_t unsent_rv;
	size_t unsent_kept; /* unsent's length after its last pruning */
	char *identity;
	char git_version[64]; /* the remote's, for /version here */
	uint64_t version_call;
	int64_t start_us;    /* mono, at new() */
	int64_t stop_us;     /* mono, at serve_kube_stop() */
	int64_t unsynced_us; /* mono, of the last "not synced yet" */
	int64_t elected_us;  /* mono, of the last election */
	/* The turn's clocks and the CPU's clock then (turn_now()). */
	int64_t turn_mono_us, turn_wall_us, turn_real_us;
	bool asked, synced, failed, stopping, released;
	bool first_pass;     /* elected, the scheduler's first pass not run */
	bool busy;	     /* the scheduler stopped a turn with more to do */
	int64_t progress_us; /* the last I/O inside a scheduler pass */
};

/* s as a logfmt value: a JSON string (the caller frees it). */
static char *quoted(const char *s)
{
	struct strbuf sb;

	char *q;

	strbuf_init(&sb);
	strbuf_add_json_string(&sb, s ? s : "");
	q = strbuf_take(&sb);
	strbuf_release(&sb); /* take leaves sb initialised, with a buffer */
	return q;
}

static void on_version(void *ctx, const struct kube_reply *r)
{
	struct serve_kube *k = ctx;
	json_t *v =
		r->code == 200 ? json_loadb(r->body, r->len, 0, NULL) : NULL;
	const char *gv = json_string_value(json_object_get(v, "gitVersion"));
	char *server = quoted(k->target.server);

	k->version_call = 0;
	if (gv && *gv && strlen(gv) < sizeof(k->git_version)) {
		char *q = quoted(gv);

		memcpy(k->git_version, gv, strlen(gv) + 1);
		k->log("info", "connected", "server=%s version=%s context=%s",
		       server, q, k->target.context ? k->target.context : "");
		free(q);
	} else {
		char *e = quoted(r->code ? "no gitVersion in /version"
					 : r->error);

		k->log("error", "cannot read the server's /version",
		       "server=%s code=%d error=%s", server, r->code, e);
		free(e);
	}
	json_decref(v);
	free(server);
}

static bool served(void *ctx, const struct api_kind *kind)
{
	struct serve_kube *k = ctx;

	return kube_reflect_version(k->reflect, api_kind_storage(kind)) != NULL;
}

static bool pending(void *ctx, const struct api_kind *kind, const char *ns,
		    const char *name)
{
	struct serve_kube *k = ctx;

	return k->outbox && kube_outbox_pending(k->outbox, kind, ns, name);
}

/* serve_sched_options.pod_pending: a write of the pod still unanswered,
 * or a refused bind of it to be sent again. */
static bool pod_pending(void *ctx, const char *ns, const char *name)
{
	struct serve_kube *k = ctx;
	const struct api_kind *pod = api_kind_at(API_KIND_POD);

	return k->outbox && (kube_outbox_unread(k->outbox, pod, ns, name) ||
			     kube_outbox_pending(k->outbox, pod, ns, name) ||
			     kube_outbox_rebinding(k->outbox, ns, name));
}

/* A remote version older than what an answered write made of the object
 * (the outbox's view): the reflector drops it rather than show the
 * scheduler its own write undone until the echo comes. */
static bool stale(void *ctx, const struct api_kind *kind, const char *ns,
		  const char *name, const json_t *body)
{
	struct serve_kube *k = ctx;

	return k->outbox && kube_outbox_stale(k->outbox, kind, ns, name, body);
}

/* Kueue's visibility API and echelon's extras: the leader's scheduler
 * knows the pending workloads; a follower has none to show. */
static int extra(void *ctx, const struct api_req *r, int64_t now_us,
		 struct api_resp *resp)
{
	struct serve_kube *k = ctx;

	if (!k->sched)
		return -ENOENT;
	return serve_sched_extra(k->sched, r, now_us, resp);
}

static char *default_identity(void)
{
	char host[256];

	if (gethostname(host, sizeof(host)) < 0 || !host[0])
		memcpy(host, "echelon", sizeof("echelon"));
	host[sizeof(host) - 1] = '\0';
	return xasprintf("%s_%ld", host, (long)getpid());
}

static int load_target(const struct serve_options *o, struct kube_target *t)
{
	struct errbuf err;
	int rc;

	if (o->in_cluster)
		rc = kube_config_in_cluster(NULL, t, &err);
	else
		rc = kube_config_load(o->remote, o->context, t, &err);
	if (rc < 0)
		fprintf(stderr, "echelon serve: %s\n", err.msg);
	return rc;
}

/* Every problem of d on stderr, as file:line:col: field: message; d is
 * released. */
static void print_diag(struct diag *d)
{
	struct strbuf sb;

	strbuf_init(&sb);
	diag_format(d, &sb);
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
	diag_release(d);
}

/* The -f files are checked now, before anything is sent: bad input stops
 * the start as it does for the embedded cluster. */
static int check_files(const struct serve_options *o)
{
	struct diag d;
	int rc;

	if (!o->npaths)
		return 0;
	diag_init(&d);
	rc = serve_apply_check(o->paths, o->npaths, &d);
	print_diag(&d);
	if (rc < 0)
		fprintf(stderr, "echelon serve: not started: the objects to "
				"load have errors\n");
	return rc;
}

static int start_http(struct serve_kube *k)
{
	struct kube_http_options ho = {
		.target = &k->target,
		.qps = k->o->qps,
		.burst = k->o->burst,
		.seed = k->o->seed,
	};
	struct errbuf err;
	int rc = kube_http_new(&ho, &k->http, &err);

	if (rc < 0) {
		fprintf(stderr, "echelon serve: %s\n", err.msg);
		return rc;
	}
	k->tr = kube_http_transport(k->http);
	return 0;
}

/* A write the server refused: the outbox refreshes the object and the
 * scheduler reacts; the log says what happened. */
static void outbox_log(void *ctx, const char *msg, const char *kv)
{
	struct serve_kube *k = ctx;

	k->log("warn", msg, "%s", kv);
}

/* kube_outbox_records_fn: the scheduler's, while leading. */
static int records(void *ctx, const json_t *pod, const struct api_kind **kinds,
		   const char **names, int max)
{
	struct serve_kube *k = ctx;

	return k->sched ? serve_sched_records(k->sched, pod, kinds, names, max)
			: -1;
}

/* The reflectors, the outbox and the Lease, over k->tr. */
static int start_parts(struct serve_kube *k)
{
	const struct serve_options *o = k->o;
	struct kube_reflect_options ro = {
		.store = k->store,
		.tr = &k->tr,
		.seed = o->seed,
		.pending = pending,
		.stale = stale,
		.pending_ctx = k,
	};
	struct kube_outbox_options bo = {
		.store = k->store,
		.tr = &k->tr,
		.log = outbox_log,
		.log_ctx = k,
		.records = records,
		.records_ctx = k,
	};
	struct kube_lease_options lo = {
		.tr = &k->tr,
		.seed = o->seed,
	};
	char *ns = NULL;
	struct errbuf err;
	int rc;

	k->reflect = kube_reflect_new(&ro);
	bo.reflect = k->reflect;
	k->outbox = kube_outbox_new(&bo);
	k->identity = o->identity ? xstrdup(o->identity) : default_identity();
	lo.identity = k->identity;
	if (o->lease) {
		const char *slash = strchr(o->lease, '/');

		ns = xasprintf("%.*s", (int)(slash - o->lease), o->lease);
		lo.ns = ns;
		lo.name = slash + 1;
	}
	rc = kube_lease_new(&lo, &k->lease, &err);
	free(ns);
	if (rc < 0)
		fprintf(stderr, "echelon serve: --lease: %s\n", err.msg);
	return rc;
}

/* The replica and the API over it; NULL when the -f files are bad. */
static struct serve_kube *make(const struct serve_options *o, serve_log_fn log,
			       int64_t mono_us)
{
	struct serve_kube *k;

	if (check_files(o) < 0)
		return NULL;
	k = xcalloc(1, sizeof(*k));
	k->o = o;
	k->log = log;
	k->start_us = mono_us;
	memcpy(k->git_version, KUBE_VERSION_DEFAULT,
	       sizeof(KUBE_VERSION_DEFAULT));
	hmap_init(&k->unsent);
	k->store = api_store_new(NULL);
	k->hooks.extra = extra;
	k->hooks.ctx = k;
	k->hooks.git_version = k->git_version;
	k->api = api_new(k->store, &k->hooks);
	return k;
}

int serve_kube_new(const struct serve_options *o, serve_log_fn log,
		   int64_t mono_us, struct serve_kube **ret)
{
	struct serve_kube *k = make(o, log, mono_us);
	int rc;

	if (!k)
		return -EINVAL;
	rc = load_target(o, &k->target);
	if (!rc)
		rc = start_http(k);
	if (!rc)
		rc = start_parts(k);
	if (rc) {
		serve_kube_free(k);
		return rc;
	}
	*ret = k;
	return 0;
}

int serve_kube_new_transport(const struct serve_options *o,
			     const struct kube_transport *tr,
			     const char *server, serve_log_fn log,
			     int64_t mono_us, struct serve_kube **ret)
{
	struct serve_kube *k = make(o, log, mono_us);
	int rc;

	if (!k)
		return -EINVAL;
	k->target.server = xstrdup(server);
	k->tr = *tr;
	rc = start_parts(k);
	if (rc) {
		serve_kube_free(k);
		return rc;
	}
	*ret = k;
	return 0;
}

void serve_kube_free(struct serve_kube *k)
{
	if (!k)
		return;
	serve_sched_free(k->sched);
	serve_sched_free(k->prepared);
	/* The parts cancel their calls: no callback runs after this. */
	kube_lease_free(k->lease);
	kube_outbox_free(k->outbox);
	k->outbox = NULL;
	kube_reflect_free(k->reflect);
	if (k->tr.send && k->version_call)
		kube_cancel(&k->tr, k->version_call);
	kube_http_free(k->http);
	api_free(k->api);
	api_store_free(k->store);
	kube_target_free(&k->target);
	hmap_release(&k->unsent);
	free(k->identity);
	free(k);
}

struct api_store *serve_kube_store(const struct serve_kube *k)
{
	return k->store;
}

struct api *serve_kube_api(const struct serve_kube *k)
{
	return k->api;
}

int serve_kube_fd(const struct serve_kube *k)
{
	return k->http ? kube_http_fd(k->http) : -1;
}

int serve_kube_timeout_ms(const struct serve_kube *k, int timeout_ms,
			  int64_t mono_us)
{
	int t = k->http ? kube_http_timeout_ms(k->http, mono_us) : -1;

	if (t >= 0 && (timeout_ms < 0 || t < timeout_ms))
		return t;
	return timeout_ms;
}

int64_t serve_kube_next_us(const struct serve_kube *k, int64_t now_us,
			   int64_t mono_us)
{
	int64_t next = kube_reflect_next_us(k->reflect);
	int64_t t = kube_lease_next_us(k->lease);

	if (t < next)
		next = t;
	if (!k->sched && !k->prepared) {
		int64_t quiet, expiry = kube_lease_expiry_us(k->lease, &quiet);

		/* prepare() is due then; once past, it runs with the turns
		 * that come anyway (a replica not settled would spin) */
		if (expiry != INT64_MAX && expiry != k->prepare_tried &&
		    quiet < expiry && quiet + PREPARE_US > mono_us &&
		    quiet + PREPARE_US < next)
			next = quiet + PREPARE_US;
	}
	if (next != INT64_MAX)
		next = now_us + (next > mono_us ? next - mono_us : 0);
	if (k->sched && (t = serve_sched_next_us(k->sched)) < next)
		next = t;
	if (k->sched && k->busy)
		next = now_us; /* more to bind: no wait */
	return next;
}

/* Once synced: the -f objects of kinds the cluster does not serve. A
 * refused one stops the daemon (status 1): half of a configuration is
 * worse than none. */
static void apply_files(struct serve_kube *k, int64_t now_us)
{
	struct serve_apply_stats st = { 0 };
	struct diag d;
	int rc;

	if (!k->o->npaths)
		return;
	diag_init(&d);
	rc = serve_apply_local(k->api, k->store, k->o->paths, k->o->npaths,
			       served, k, now_us, &st, &d);
	print_diag(&d);
	if (rc < 0) {
		k->log("error", "the -f objects are refused: stopping", NULL);
		k->failed = true;
		return;
	}
	k->log("info", "local objects applied",
	       "created=%zu updated=%zu unchanged=%zu", st.created, st.updated,
	       st.unchanged);
}

static void on_synced(struct serve_kube *k, int64_t now_us, int64_t mono_us)
{
	size_t objects = 0;

	for (size_t i = 0; i < api_kind_count(); i++)
		objects += api_store_count(k->store, api_kind_at(i));
	k->synced = true;
	k->log("info", "synced", "objects=%zu seconds=%.3f rv=%llu", objects,
	       (double)(mono_us - k->start_us) / 1e6,
	       (unsigned long long)api_store_rv(k->store));
	apply_files(k, now_us);
}

static int note_write(void *ctx, const struct api_event *ev)
{
	struct serve_kube *k = ctx;
	struct strbuf key;

	if (ev->mirror)
		return 0;
	strbuf_init(&key);
	strbuf_addf(&key, "%u", ev->kind->id);
	strbuf_add(&key, "", 1);
	strbuf_addstr(&key, ev->ns);
	strbuf_add(&key, "", 1);
	strbuf_addstr(&key, ev->name);
	hmap_put(&k->unsent, key.buf, key.len, 0);
	strbuf_release(&key);
	return 0;
}

/* An unsent key's kind, namespace and name (pointers into the key). */
static const struct api_kind *unsent_key(const struct hmap_slot *slot,
					 const char **ret_ns,
					 const char **ret_name)
{
	unsigned long id = strtoul(slot->key, NULL, 10);

	*ret_ns = slot->key + strlen(slot->key) + 1;
	*ret_name = *ret_ns + strlen(*ret_ns) + 1;
	return id < api_kind_count() ? api_kind_at(id) : NULL;
}

/* Note the objects the scheduler wrote since the last call. */
static void note_writes(struct serve_kube *k)
{
	if (api_store_events(k->store, k->unsent_rv, note_write, k) < 0) {
		/* Older than the history: too many writes to tell apart,
		 * a lost leadership then refreshes what is still noted. */
		k->log("warn", "writes not tracked: history too short", NULL);
	}
	k->unsent_rv = api_store_rv(k->store);
}

/*
 * After the outbox's flush: note the objects the scheduler wrote, and
 * forget those with nothing pending any more (their writes are answered:
 * the replica has the server's view of them again). What is left is what
 * a lost leadership leaves behind as the replica's own invention.
 */
static void track_unsent(struct serve_kube *k)
{
	const struct hmap_slot *slot;
	struct hmap keep;
	size_t iter = 0;

	note_writes(k);
	/* pruned when it doubled: O(1) a write, however many are noted
	 * (one kept too long is only read again at a lost leadership) */
	if (k->unsent.len < 2 * k->unsent_kept + UNSENT_SLACK)
		return;
	hmap_init(&keep);
	while (hmap_next(&k->unsent, &iter, &slot)) {
		const char *ns, *name;
		const struct api_kind *kind = unsent_key(slot, &ns, &name);

		if (kind && kube_outbox_pending(k->outbox, kind, ns, name))
			hmap_put(&keep, slot->key, slot->keylen, 0);
	}
	hmap_release(&k->unsent);
	k->unsent = keep;
	k->unsent_kept = keep.len;
}

/* A lost leadership: the writes not sent are dropped, and the objects
 * they were for are read again from the server, so the replica shows the
 * cluster again and not what this replica had decided: one GET each, or,
 * past REREAD_MAX of them, a relist of every kind (102,000 GETs were
 * still answered 20 s on at 50,000 pods; a relist takes 2 s). The replica
 * leads again only once they are answered (follow_lease()): a leader that
 * adopted its own inventions as bound pods then evicted their gangs as
 * undone. */
static void drop_unsent(struct serve_kube *k)
{
	const struct hmap_slot *slot;
	size_t iter = 0, n = k->unsent.len;

	kube_outbox_reset(k->outbox);
	if (n > REREAD_MAX) {
		kube_reflect_resync(k->reflect, NULL);
	} else {
		while (hmap_next(&k->unsent, &iter, &slot)) {
			const char *ns, *name;
			const struct api_kind *kind =
				unsent_key(slot, &ns, &name);

			if (kind)
				kube_reflect_refresh(k->reflect, kind, ns,
						     name);
		}
	}
	hmap_release(&k->unsent);
	hmap_init(&k->unsent);
	k->unsent_kept = 0;
	if (n)
		k->log("info", "objects read again", "count=%zu how=%s", n,
		       n > REREAD_MAX ? "relist" : "get");
}

static void sched_progress(void *ctx);

/* The scheduler over the replica, for the pods of --scheduler-name;
 * without Kueue's Workload CRD in the cluster, admissions are kept in
 * the Job's annotation. */
static struct serve_sched *new_sched(struct serve_kube *k)
{
	struct serve_sched_options so;

	serve_sched_options_init(&so);
	so.scheduler_name = k->o->scheduler_name;
	so.kube = true;
	so.workloads_remote =
		served(k, api_kind_of("kueue.x-k8s.io/v1beta2", "Workload"));
	so.pod_pending = pod_pending;
	so.pod_pending_ctx = k;
	so.max_writes = SYNC_WRITES;
	so.progress = sched_progress;
	so.progress_ctx = k;
	return serve_sched_new(k->store, &so);
}

/* The scheduler to lead with: the one prepared while following when
 * the cluster changed only in its config since (else a new one, whose
 * first pass reads the whole replica). */
static struct serve_sched *lead_sched(struct serve_kube *k, bool *prepared)
{
	struct serve_sched *x = k->prepared;

	k->prepared = NULL;
	*prepared = x && !serve_sched_state_unread(x);
	if (*prepared)
		return x;
	if (x)
		k->log("info", "prepared scheduler dropped",
		       "reason=\"the cluster changed since\"");
	serve_sched_free(x);
	return new_sched(k);
}

/* Leadership follows the Lease: the scheduler exists only while this
 * replica holds it (and the replica is synced). */
static void follow_lease(struct serve_kube *k, int64_t mono_us)
{
	bool leader = kube_lease_leader(k->lease) && !k->stopping;
	char *id;

	if (leader == (k->sched != NULL) ||
	    (leader && (!k->synced || !kube_reflect_settled(k->reflect))))
		return;
	id = quoted(k->identity);
	if (leader) {
		/* Writes start from here: nothing the replica saw before is
		 * this leader's to forward. */
		int64_t seen_us;
		char *prev = quoted(kube_lease_previous(k->lease, &seen_us));
		bool prepared;

		kube_outbox_follow(k->outbox);
		k->unsent_rv = api_store_rv(k->store);
		k->sched = lead_sched(k, &prepared);
		k->elected_us = mono_us;
		k->first_pass = true;
		/* waited: from the previous holder's last record seen to
		 * now (the lease duration when it stopped renewing). */
		k->log("info", "leader elected",
		       "id=%s seconds=%.3f mono=%.3f previous=%s waited=%.3f "
		       "prepared=%s",
		       id, (double)(mono_us - k->start_us) / 1e6,
		       (double)mono_us / 1e6, prev,
		       seen_us == INT64_MIN ? 0.0
					    : (double)(mono_us - seen_us) / 1e6,
		       prepared ? "true" : "false");
		free(prev);
	} else {
		char *holder = quoted(kube_lease_holder(k->lease));

		serve_sched_free(k->sched);
		k->sched = NULL;
		drop_unsent(k);
		k->log("warn", "leader lost", "id=%s holder=%s", id, holder);
		free(holder);
	}
	free(id);
}

/* The CPU's monotonic clock (the loop's clocks are the turn's). */
static int64_t real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The monotonic clock now: the turn's, plus what the turn took so far
 * (a pass over a large replica takes seconds). */
static int64_t turn_now(const struct serve_kube *k)
{
	return k->turn_mono_us + (real_us() - k->turn_real_us);
}

/* The transport's answers so far read and the Lease run, at mono now
 * within a turn. */
static void io_now(struct serve_kube *k, int64_t now)
{
	if (k->http)
		kube_http_run(k->http, now);
	kube_lease_run(k->lease, now,
		       k->turn_wall_us + (now - k->turn_mono_us));
}

/* Send what the scheduler wrote, while this replica holds the Lease by
 * the clock now, not the turn's start: a write sent past the renew
 * deadline may race a new leader. Not sent, the writes are still noted,
 * for a lost leadership to read their objects again. A renewal that
 * fell due during the turn goes out with them. */
static void send_writes(struct serve_kube *k)
{
	int64_t now = turn_now(k);

	/* The transport's I/O between rounds too: the answers so far (a
	 * renewal's among them) are read, and what is sent below goes out
	 * now, not at the end of a turn that may take seconds (a renewal
	 * sent only then missed the renew deadline at 50,000 pods). */
	io_now(k, now);
	if (now >= kube_lease_until_us(k->lease)) {
		note_writes(k);
	} else {
		kube_outbox_flush(k->outbox, now);
		track_unsent(k);
	}
	if (k->http)
		kube_http_run(k->http, now);
}

/* Inside a scheduler pass that takes long (a new leader's first pass
 * over 50,000 pods takes seconds): the transport's I/O and the Lease,
 * at most every PROGRESS_US, so that renewals go out and are answered
 * while it runs. Leadership lost meanwhile is acted on after the pass
 * (follow_lease()); its writes are sent only while the Lease is held. */
static void sched_progress(void *ctx)
{
	struct serve_kube *k = ctx;
	int64_t now = turn_now(k);

	if (now - k->progress_us < PROGRESS_US)
		return;
	k->progress_us = now;
	io_now(k, now);
	if (k->http)
		kube_http_run(k->http, now);
}

/* A few scheduler rounds, each's writes read by the outbox before the
 * next: a turn stays short (the Lease is renewed between turns) and no
 * write outruns the replica's history. What is left (busy) is the next
 * turn's, at once. A new leader's first turn ends with its first round
 * that wrote, so that its first binds go out without waiting for the
 * rounds that follow (over a large replica each costs seconds); the log
 * says what that first round cost. */
static void schedule(struct serve_kube *k, int64_t now_us)
{
	bool first = k->first_pass;

	k->busy = false;
	for (int i = 0; i < SYNC_ROUNDS; i++) {
		int w = serve_sched_sync(k->sched, now_us);

		if (k->first_pass) {
			int64_t t = turn_now(k);

			k->log("info", "first pass done",
			       "mono=%.3f seconds=%.3f writes=%d",
			       (double)t / 1e6,
			       (double)(t - k->elected_us) / 1e6, w);
			k->first_pass = false;
		}
		if (!w)
			return;
		send_writes(k);
		if (first)
			break;
	}
	k->busy = true;
}

/*
 * A follower whose leader has gone quiet prepares the scheduler it would
 * lead with, so that its first pass over the replica (seconds at 50,000
 * pods) is done before the Lease expires, not after: once the holder
 * observed can no longer write unless it renewed (its renew deadline
 * from our sight of its last renewal, and PREPARE_US more for what it
 * sent before), the scheduler is made and reads the replica
 * (serve_sched_prepare()) with the store read-only. It is used at the
 * election only if it wanted no write (it would have needed to make
 * one: a Workload, an Event) and the cluster changed only in its config
 * since (lead_sched()); a renewal seen meanwhile drops it.
 */
static void prepare(struct serve_kube *k, int64_t now_us, int64_t mono_us)
{
	int64_t quiet, expiry = kube_lease_expiry_us(k->lease, &quiet);
	uint64_t refused = api_store_refused(k->store);
	struct serve_sched *x;
	int64_t t0;

	/* Leading, or our own record read before the try's answer (the
	 * watch can be first): follow_lease() leads with it. */
	if (kube_lease_leader(k->lease) || expiry == INT64_MAX)
		return;
	if (k->prepared && k->prepared_for != expiry) {
		/* renewed, or another holder: not now */
		k->log("info", "prepared scheduler dropped",
		       "reason=\"the Lease changed\" expiry_moved=%.3f",
		       (double)(expiry - k->prepared_for) / 1e6);
		serve_sched_free(k->prepared);
		k->prepared = NULL;
	}
	if (k->prepared || k->stopping || !k->synced ||
	    !kube_reflect_settled(k->reflect) || expiry == k->prepare_tried ||
	    quiet >= expiry || mono_us < quiet + PREPARE_US ||
	    mono_us >= expiry)
		return;
	k->prepare_tried = expiry;
	t0 = real_us();
	api_store_read_only(k->store, true);
	x = new_sched(k);
	(void)serve_sched_prepare(x, now_us);
	api_store_read_only(k->store, false);
	if (api_store_refused(k->store) != refused) {
		k->log("info", "scheduler not prepared",
		       "reason=\"it would write\" refused=%llu",
		       (unsigned long long)(api_store_refused(k->store) -
					    refused));
		serve_sched_free(x);
		return;
	}
	k->prepared = x;
	k->prepared_for = expiry;
	k->log("info", "scheduler prepared", "seconds=%.3f expires_in=%.3f",
	       (double)(real_us() - t0) / 1e6,
	       (double)(expiry - turn_now(k)) / 1e6);
}

void serve_kube_run(struct serve_kube *k, int64_t now_us, int64_t mono_us)
{
	struct kube_call version = {
		.method = "GET",
		.path = "/version",
		.flags = KUBE_RETRY,
		.retry_us = VERSION_US,
	};

	k->turn_mono_us = mono_us;
	k->turn_wall_us = now_us;
	k->turn_real_us = real_us();
	if (!k->asked) {
		k->asked = true;
		k->version_call =
			kube_send(&k->tr, &version, on_version, NULL, k);
	}
	if (k->http)
		kube_http_run(k->http, mono_us);
	kube_reflect_run(k->reflect, mono_us);
	kube_lease_run(k->lease, mono_us, now_us);
	if (!k->synced && kube_reflect_synced(k->reflect))
		on_synced(k, now_us, mono_us);
	else if (!k->synced && mono_us - k->unsynced_us >= UNSYNCED_US) {
		/* Lists that keep failing (RBAC, a server gone) would
		 * otherwise only show as a /readyz that never comes. */
		if (k->unsynced_us) {
			char *server = quoted(k->target.server);

			k->log("warn", "not synced yet",
			       "seconds=%.0f server=%s",
			       (double)(mono_us - k->start_us) / 1e6, server);
			free(server);
		}
		k->unsynced_us = mono_us;
	}
	if (!k->failed)
		follow_lease(k, mono_us);
	if (!k->sched && !k->stopping)
		kube_outbox_follow(k->outbox);
	if (!k->sched && !k->failed)
		prepare(k, now_us, mono_us);
	if (k->sched)
		schedule(k, now_us);
	if (k->sched || k->stopping)
		send_writes(k);
	if (k->stopping && !k->released &&
	    (kube_outbox_idle(k->outbox) || mono_us - k->stop_us >= DRAIN_US)) {
		kube_lease_release(k->lease, now_us);
		k->released = true;
	}
	/* What this turn queued goes out now, not after the next wait. */
	if (k->http)
		kube_http_run(k->http, mono_us);
}

bool serve_kube_failed(const struct serve_kube *k)
{
	return k->failed;
}

void serve_kube_handle(struct serve_kube *k, const struct api_req *r,
		       int64_t now_us, struct api_resp *resp)
{
	if (strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0) {
		api_handle(k->api, r, now_us, resp);
		return;
	}
	memset(resp, 0, sizeof(*resp));
	strbuf_init(&resp->body);
	api_resp_status(resp, 405, "MethodNotAllowed",
			"%s is not allowed: this is a read-only view of the "
			"cluster at %s: write to that cluster",
			r->method, k->target.server);
}

bool serve_kube_ready(const struct serve_kube *k)
{
	return k->synced && !k->failed;
}

void serve_kube_metrics(const struct serve_kube *k, struct strbuf *out)
{
	strbuf_addf(out,
		    "# HELP echelon_serve_resource_version The replica's "
		    "latest resourceVersion.\n"
		    "# TYPE echelon_serve_resource_version gauge\n"
		    "echelon_serve_resource_version %llu\n",
		    (unsigned long long)api_store_rv(k->store));
	if (k->http)
		kube_http_metrics(k->http, out);
	kube_reflect_metrics(k->reflect, out);
	kube_outbox_metrics(k->outbox, out);
	kube_lease_metrics(k->lease, out);
	if (k->sched)
		serve_sched_metrics(k->sched, out);
}

void serve_kube_stop(struct serve_kube *k, int64_t mono_us)
{
	if (k->stopping)
		return;
	k->stopping = true;
	k->stop_us = mono_us;
	serve_sched_free(k->prepared);
	k->prepared = NULL;
	if (k->sched) {
		/* Stop deciding; what was decided still goes out. */
		serve_sched_free(k->sched);
		k->sched = NULL;
		k->log("info", "scheduling stopped", NULL);
	}
}

bool serve_kube_stopped(const struct serve_kube *k, int64_t mono_us)
{
	return k->released && (kube_lease_idle(k->lease) ||
			       mono_us - k->stop_us >= DRAIN_US + RELEASE_US);
}

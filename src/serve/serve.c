// SPDX-License-Identifier: Apache-2.0
/*
 * `echelon serve`: start-up (database, store, start-up objects, secrets,
 * listening) and the one event loop. Each turn runs the phases of
 * serve.h in order (HTTP, controllers until quiet, group commit, watches)
 * and then sleeps in epoll until I/O, a signal, or the timerfd set to the
 * earliest deadline of the controllers and watches, converted from the
 * embedded clock to the wall clock by --speed.
 */
#include "serve/serve.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "base/alloc.h"
#include "base/diag.h"
#include "base/strbuf.h"
#include "base/timemap.h"
#include "base/version.h"
#include "serve/serve_addr.h"
#include "serve/serve_apply.h"
#include "serve/serve_cluster.h"
#include "serve/serve_dcgm.h"
#include "serve/serve_db.h"
#include "serve/serve_http.h"
#include "serve/serve_kube.h"
#include "serve/serve_kubeconfig.h"
#include "serve/serve_sched.h"
#include "serve/serve_tls.h"

#include "base/banned.h"

#define SYNC_ROUNDS   16	       /* controller rounds per turn at most */
#define SLOW_TURN_US  (1000000LL)      /* a turn this long is logged */
#define CLOCK_SAVE_US (5 * 1000000LL)  /* wall time between saves */
#define DRAIN_US      (5 * 1000000LL)  /* to finish writes at stop */
#define STARTUP_US    (10 * 1000000LL) /* pod start-up, as sim's */
#define KUBE_VERSION  "v1.35.0"

struct daemon {
	const struct serve_options *o;
	char *dir;
	struct serve_db *db;
	struct serve_meta meta;
	struct api_store *store;
	struct api *api;
	struct api_hooks hooks;
	struct serve_cluster *cluster;
	struct serve_sched *sched;
	struct serve_kube *kube; /* --kubeconfig: no db, cluster, sched */
	struct serve_http *http;
	struct serve_http_ops ops;
	struct serve_secrets secrets;
	int ep, tfd, sfd;
	int64_t base_us, mono0_us; /* embedded clock at mono0_us */
	int64_t saved_mono_us;
	uint64_t flushed_rv;
	bool stopping, failed;
};

static int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The embedded cluster's clock: --speed times the wall clock. */
static int64_t now_us(const struct daemon *dm, int64_t mono)
{
	return dm->base_us +
	       (int64_t)((double)(mono - dm->mono0_us) * dm->o->speed);
}

/* Timestamps show the wall-clock time an embedded instant happened at
 * (base/timemap.h): the kept map gets this run's segment, from the
 * embedded clock's start at the wall clock's now. */
static int start_clock_map(struct daemon *dm)
{
	struct timemap_seg segs[TIMEMAP_MAX];
	int n = 0;

	if (dm->meta.clock_map[0])
		n = timemap_parse(dm->meta.clock_map, segs);
	if (n < 0 || timemap_set(segs, (size_t)n) < 0) {
		fprintf(stderr,
			"echelon serve: %s/echelon.db: the database is corrupt "
			"(meta clock_map \"%s\"); move it away to start with "
			"an empty state\n",
			dm->dir, dm->meta.clock_map);
		return -EIO;
	}
	timemap_start(dm->base_us, wall_us(), dm->o->speed);
	timemap_format(dm->meta.clock_map, sizeof(dm->meta.clock_map));
	return 0;
}

/* One logfmt line on stderr: ts, level, msg, then kv (already
 * formatted "key=value ..."). */
static void slog(const char *level, const char *msg, const char *kv, ...)
	PRINTF_LIKE(3, 4);
static void slog(const char *level, const char *msg, const char *kv, ...)
{
	struct timespec ts;
	struct tm tm;
	struct strbuf sb;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strbuf_init(&sb);
	strbuf_addf(&sb,
		    "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ level=%s msg=",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, level);
	strbuf_add_json_string(&sb, msg);
	if (kv && *kv) {
		strbuf_addch(&sb, ' ');
		va_start(ap, kv);
		strbuf_vaddf(&sb, kv, ap);
		va_end(ap);
	}
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	fflush(stderr);
	strbuf_release(&sb);
}

static char *default_data_dir(void)
{
	const char *x = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");

	if (x && *x == '/')
		return xasprintf("%s/echelon", x);
	return xasprintf("%s/.local/state/echelon", home && *home ? home : ".");
}

/* mkdir -p, mode 0700 for what it makes. */
static int make_dirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s && !rc; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			rc = -errno;
		*s = '/';
	}
	if (!rc && mkdir(p, 0700) < 0 && errno != EEXIST)
		rc = -errno;
	free(p);
	return rc;
}

static void op_handle(void *ctx, const struct api_req *r, int64_t now,
		      struct api_resp *resp)
{
	struct daemon *dm = ctx;

	if (dm->kube)
		serve_kube_handle(dm->kube, r, now, resp);
	else
		api_handle(dm->api, r, now, resp);
}

static bool op_ready(void *ctx)
{
	struct daemon *dm = ctx;

	return !dm->kube || serve_kube_ready(dm->kube);
}

static void op_metrics(void *ctx, struct strbuf *out)
{
	struct daemon *dm = ctx;

	if (dm->kube) {
		serve_kube_metrics(dm->kube, out);
		return;
	}
	strbuf_addf(out,
		    "# HELP echelon_serve_resource_version The store's "
		    "latest resourceVersion.\n"
		    "# TYPE echelon_serve_resource_version gauge\n"
		    "echelon_serve_resource_version %llu\n",
		    (unsigned long long)api_store_rv(dm->store));
	serve_db_metrics(dm->db, out);
	if (dm->sched)
		serve_sched_metrics(dm->sched, out);
}

/* The embedded cluster's simulated dcgm-exporter (serve_dcgm.h). */
static void op_dcgm_metrics(void *ctx, struct strbuf *out)
{
	struct daemon *dm = ctx;

	serve_dcgm_metrics(dm->store, out);
}

/* Phase 2: the controllers, until none writes (bounded). */
static void sync_controllers(struct daemon *dm, int64_t now)
{
	for (int i = 0; i < SYNC_ROUNDS; i++) {
		int w = serve_cluster_sync(dm->cluster, now);

		if (dm->sched)
			w += serve_sched_sync(dm->sched, now);
		if (!w)
			return;
	}
	slog("warn", "controllers did not settle", "rounds=%d", SYNC_ROUNDS);
}

/* Phase 3: the group commit, then the held replies. */
static void commit(struct daemon *dm, int64_t now, int64_t mono, bool force)
{
	struct errbuf err;
	bool changed = api_store_rv(dm->store) != dm->flushed_rv;
	int rc;

	if (dm->kube) { /* read-only: no write is ever held */
		serve_http_commit(dm->http, true);
		return;
	}
	if (!changed && !force && !serve_http_holding(dm->http) &&
	    mono - dm->saved_mono_us < CLOCK_SAVE_US)
		return;
	dm->meta.clock_us = now;
	rc = serve_db_flush(dm->db, dm->store, &dm->meta, &err);
	if (rc < 0) {
		slog("error", err.msg, "dir=\"%s\"", dm->dir);
		dm->failed = dm->stopping = true;
	} else {
		dm->flushed_rv = api_store_rv(dm->store);
		dm->saved_mono_us = mono;
	}
	serve_http_commit(dm->http, rc == 0);
}

/* Phase 5: when the loop must wake without I/O, as a monotonic time. */
static void arm_timer(struct daemon *dm, int64_t now, int64_t mono)
{
	int64_t next = serve_http_next_us(dm->http);
	int64_t t = dm->kube ? serve_kube_next_us(dm->kube, now, mono)
			     : serve_cluster_next_us(dm->cluster);
	struct itimerspec its = { 0 };
	int64_t at;

	if (t < next)
		next = t;
	if (dm->sched && (t = serve_sched_next_us(dm->sched)) < next)
		next = t;
	at = mono + CLOCK_SAVE_US;
	if (next != INT64_MAX) {
		double wall = (double)(next - now) / dm->o->speed;
		int64_t w = wall < 0	   ? 0
			    : wall > 3.6e9 ? 3600000000LL
					   : (int64_t)wall;

		if (mono + w < at)
			at = mono + w;
	}
	if (at <= mono)
		at = mono + 1;
	its.it_value.tv_sec = at / 1000000;
	its.it_value.tv_nsec = (at % 1000000) * 1000;
	timerfd_settime(dm->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void on_signal(struct daemon *dm)
{
	struct signalfd_siginfo si;

	while (read(dm->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			slog("info", "SIGHUP ignored", NULL);
			continue;
		}
		if (!dm->stopping)
			slog("info", "stopping", "signal=%s",
			     si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
		dm->stopping = true;
	}
}

static void turn(struct daemon *dm, int timeout_ms)
{
	struct epoll_event evs[8];
	int64_t mono, now, t_api, t_sched, t_commit, t_end;
	uint64_t ticks;
	int n;

	n = epoll_wait(dm->ep, evs, ARRAY_SIZE(evs), timeout_ms);
	for (int i = 0; i < n; i++) {
		if (evs[i].data.fd == dm->sfd)
			on_signal(dm);
		else if (evs[i].data.fd == dm->tfd &&
			 read(dm->tfd, &ticks, sizeof(ticks)) < 0)
			ticks = 0;
	}
	mono = mono_us();
	now = now_us(dm, mono);
	serve_http_run(dm->http, now, mono);
	t_api = mono_us();
	if (!dm->kube) {
		sync_controllers(dm, now);
	} else {
		serve_kube_run(dm->kube, now, mono);
		if (serve_kube_failed(dm->kube))
			dm->failed = dm->stopping = true;
	}
	t_sched = mono_us();
	commit(dm, now, mono, false);
	t_commit = mono_us();
	serve_http_pump(dm->http, now);
	/* every reader of this turn's changes has read them */
	api_store_compact(dm->store);
	arm_timer(dm, now, mono);
	t_end = mono_us();
	if (t_end - mono >= SLOW_TURN_US) /* what keeps the loop from I/O */
		slog("warn", "slow turn",
		     "seconds=%.3f api=%.3f scheduler=%.3f commit=%.3f "
		     "pump=%.3f",
		     (double)(t_end - mono) / 1e6, (double)(t_api - mono) / 1e6,
		     (double)(t_sched - t_api) / 1e6,
		     (double)(t_commit - t_sched) / 1e6,
		     (double)(t_end - t_commit) / 1e6);
}

/* How long epoll may wait: libmicrohttpd's and the transport's limits. */
static int wait_ms(const struct daemon *dm, int limit_ms)
{
	int t = serve_http_timeout_ms(dm->http);

	if (limit_ms >= 0 && (t < 0 || t > limit_ms))
		t = limit_ms;
	return dm->kube ? serve_kube_timeout_ms(dm->kube, t, mono_us()) : t;
}

static void loop(struct daemon *dm)
{
	int64_t until;

	/* The first turn does not wait for I/O: the controllers act on the
	 * start-up objects (Workloads for queued Jobs, node Leases) and arm
	 * the timer, before any client asks. */
	turn(dm, 0);
	while (!dm->stopping)
		turn(dm, wait_ms(dm, -1));
	/* Stop accepting; let held replies and queued bytes go out. */
	serve_http_quiesce(dm->http);
	if (dm->kube) /* scheduling stops, the outbox drains, the Lease */
		serve_kube_stop(dm->kube, mono_us());
	while (dm->kube && !serve_kube_stopped(dm->kube, mono_us()))
		turn(dm, wait_ms(dm, 50));
	until = mono_us() + DRAIN_US;
	while (!dm->failed && serve_http_holding(dm->http) && mono_us() < until)
		turn(dm, 50);
	for (int i = 0; i < 4; i++)
		turn(dm, 10);
	commit(dm, now_us(dm, mono_us()), mono_us(), true);
}

static int watch_fd(struct daemon *dm, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(dm->ep, EPOLL_CTL_ADD, fd, &ev);
}

static int setup_loop(struct daemon *dm)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	dm->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	dm->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	dm->ep = epoll_create1(EPOLL_CLOEXEC);
	if (dm->sfd < 0 || dm->tfd < 0 || dm->ep < 0)
		return -errno;
	if (watch_fd(dm, dm->sfd) < 0 || watch_fd(dm, dm->tfd) < 0 ||
	    watch_fd(dm, serve_http_fd(dm->http)) < 0 ||
	    (dm->kube && watch_fd(dm, serve_kube_fd(dm->kube)) < 0))
		return -errno;
	return 0;
}

/* The database, the store and the objects it starts with. */
static int open_state(struct daemon *dm)
{
	const struct serve_options *o = dm->o;
	struct api_store_options so = { 0 };
	struct serve_apply_stats st = { 0 };
	struct errbuf err;
	struct strbuf sb;
	struct diag d;
	int64_t now;
	int rc;

	rc = make_dirs(dm->dir);
	if (rc < 0) {
		fprintf(stderr, "echelon serve: %s: cannot create: %s\n",
			dm->dir, strerror(-rc));
		return rc;
	}
	rc = serve_db_open(dm->dir, !o->sync_normal, &dm->db, &dm->meta, &err);
	if (rc < 0) {
		fprintf(stderr, "echelon serve: %s\n", err.msg);
		return rc;
	}
	so.uid_prefix = dm->meta.uid_prefix;
	dm->store = api_store_new(&so);
	rc = serve_db_load(dm->db, dm->store, &err);
	if (rc < 0) {
		fprintf(stderr, "echelon serve: %s\n", err.msg);
		return rc;
	}
	dm->base_us = dm->meta.fresh || !dm->meta.clock_us ? wall_us()
							   : dm->meta.clock_us;
	rc = start_clock_map(dm);
	if (rc < 0)
		return rc;
	dm->mono0_us = mono_us();
	now = dm->base_us;
	if (!o->no_schedule) {
		struct serve_sched_options sched_o;

		serve_sched_options_init(&sched_o);
		sched_o.pod_startup_us = STARTUP_US; /* the kubelets' */
		dm->sched = serve_sched_new(dm->store, &sched_o);
		dm->hooks.extra = serve_sched_extra;
		dm->hooks.mutate = serve_sched_mutate;
		dm->hooks.ctx = dm->sched;
	}
	dm->hooks.git_version = KUBE_VERSION;
	dm->api = api_new(dm->store, &dm->hooks);
	if (serve_apply_namespace(dm->api, dm->store, "default", now) < 0 ||
	    serve_apply_namespace(dm->api, dm->store, "kube-system", now) < 0 ||
	    serve_apply_namespace(dm->api, dm->store, "kube-node-lease", now) <
		    0) {
		fprintf(stderr, "echelon serve: cannot create namespaces\n");
		return -EINVAL;
	}
	diag_init(&d);
	rc = serve_apply(dm->api, dm->store, o->paths, o->npaths, o->cluster,
			 now, &st, &d);
	strbuf_init(&sb);
	diag_format(&d, &sb);
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
	diag_release(&d);
	if (rc < 0) {
		fprintf(stderr, "echelon serve: not started: the objects to "
				"load have errors\n");
		return rc;
	}
	slog("info", "state loaded",
	     "dir=\"%s\" fresh=%s rv=%llu created=%zu updated=%zu "
	     "unchanged=%zu",
	     dm->dir, dm->meta.fresh ? "true" : "false",
	     (unsigned long long)api_store_rv(dm->store), st.created,
	     st.updated, st.unchanged);
	return 0;
}

/* --kubeconfig: the replica of the remote cluster, on the wall clock. */
static int open_replica(struct daemon *dm)
{
	int rc = serve_kube_new(dm->o, slog, mono_us(), &dm->kube);

	if (rc < 0)
		return rc;
	dm->store = serve_kube_store(dm->kube);
	dm->api = serve_kube_api(dm->kube);
	dm->base_us = wall_us();
	dm->mono0_us = mono_us();
	return 0;
}

static int start_http(struct daemon *dm, const char *addr, uint16_t port)
{
	struct serve_http_options ho = { .addr = addr,
					 .port = port,
					 .faults = dm->o->faults };
	struct errbuf err;
	bool tls = !serve_addr_loopback(addr);
	int rc;

	if (tls) {
		rc = serve_tls_load(dm->dir, addr, wall_us(), &dm->secrets,
				    &err);
		if (rc < 0) {
			fprintf(stderr, "echelon serve: %s\n", err.msg);
			return rc;
		}
		ho.cert_pem = dm->secrets.cert_pem;
		ho.key_pem = dm->secrets.key_pem;
		ho.token = dm->secrets.token;
	}
	dm->ops = (struct serve_http_ops){
		.handle = op_handle,
		.watch_next = api_watch_next,
		.watch_deadline_us = api_watch_deadline_us,
		.watch_free = api_watch_free,
		.metrics = op_metrics,
		.dcgm_metrics = dm->kube ? NULL : op_dcgm_metrics,
		.ready = op_ready,
		.ctx = dm,
	};
	rc = serve_http_new(&ho, &dm->ops, &dm->http, &err);
	if (rc < 0) {
		fprintf(stderr, "echelon serve: %s\n", err.msg);
		return rc;
	}
	if (dm->o->write_kubeconfig) {
		char *url =
			serve_addr_url(tls, addr, serve_http_port(dm->http));

		rc = serve_kubeconfig_write(dm->o->write_kubeconfig, url,
					    tls ? dm->secrets.cert_pem : NULL,
					    tls ? dm->secrets.token : NULL,
					    &err);
		free(url);
		if (rc < 0) {
			fprintf(stderr, "echelon serve: %s\n", err.msg);
			return rc;
		}
	}
	slog("info", "listening",
	     "addr=%s%s%s:%u tls=%s token=%s data=\"%s\" speed=%g "
	     "schedule=%s version=%s",
	     strchr(addr, ':') ? "[" : "", addr, strchr(addr, ':') ? "]" : "",
	     (unsigned)serve_http_port(dm->http), tls ? "true" : "false",
	     tls ? "required" : "none", dm->dir, dm->o->speed,
	     dm->o->no_schedule ? "false" : "true", ECHELON_VERSION);
	return 0;
}

static void teardown(struct daemon *dm)
{
	serve_http_free(dm->http);
	if (dm->kube) { /* it owns the replica and the API over it */
		serve_kube_free(dm->kube);
		dm->api = NULL;
		dm->store = NULL;
	}
	serve_sched_free(dm->sched);
	serve_cluster_free(dm->cluster);
	api_free(dm->api);
	api_store_free(dm->store);
	serve_db_close(dm->db);
	serve_secrets_release(&dm->secrets);
	if (dm->ep >= 0)
		close(dm->ep);
	if (dm->tfd >= 0)
		close(dm->tfd);
	if (dm->sfd >= 0)
		close(dm->sfd);
	free(dm->dir);
}

int serve_main(const struct serve_options *o)
{
	struct daemon dm = { .o = o, .ep = -1, .tfd = -1, .sfd = -1 };
	struct serve_cluster_options co = {
		.startup_us = STARTUP_US,
		.seed = o->seed,
		.speed = o->speed,
		.no_pod_start = o->no_pod_start,
	};
	char addr[64];
	uint16_t port;
	int rc;

	if (serve_addr_parse(o->listen, addr, sizeof(addr), &port) < 0) {
		fprintf(stderr,
			"echelon serve: --listen: expected ADDR:PORT, "
			"not \"%s\"\n",
			o->listen);
		return 1;
	}
	dm.dir = o->data ? xstrdup(o->data) : default_data_dir();
	if (o->remote || o->in_cluster) {
		rc = open_replica(&dm);
	} else {
		rc = open_state(&dm);
		if (!rc)
			dm.cluster = serve_cluster_new(dm.store, &co);
	}
	if (!rc) {
		dm.flushed_rv = (uint64_t)-1;
		rc = start_http(&dm, addr, port);
	}
	if (!rc)
		rc = setup_loop(&dm);
	if (!rc && !dm.kube) {
		struct errbuf err;

		/* The start-up objects are durable before the first reply. */
		dm.meta.clock_us = now_us(&dm, mono_us());
		rc = serve_db_flush(dm.db, dm.store, &dm.meta, &err);
		if (rc < 0)
			fprintf(stderr, "echelon serve: %s\n", err.msg);
		dm.flushed_rv = api_store_rv(dm.store);
		dm.saved_mono_us = mono_us();
	}
	if (rc) {
		teardown(&dm);
		return 1;
	}
	slog("info", "ready", "rv=%llu",
	     (unsigned long long)api_store_rv(dm.store));
	loop(&dm);
	slog("info", "stopped", "rv=%llu failed=%s",
	     (unsigned long long)api_store_rv(dm.store),
	     dm.failed ? "true" : "false");
	teardown(&dm);
	return dm.failed ? 1 : 0;
}

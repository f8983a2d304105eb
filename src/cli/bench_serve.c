// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench serve: start `echelon serve` as a child on a free
 * loopback port with a temporary --data, then measure over HTTP, with C
 * client connections (threads): (1) durable creates of Workloads/s (each
 * answered after its group commit), (2) Table lists of limit=500 over the
 * 10,000 stored Workloads/s, as `kubectl get` asks, (3) W watchers each
 * receiving every change in order while the clients write, and (4) the
 * time from creating a Job that fits to all its pods bound.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/strbuf.h"
#include "cli/bench_daemon.h"
#include "cli/bench_http.h"
#include "serve/serve_db.h"

#include "base/banned.h"

#define WL_PATH "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/workloads"
#define TABLE_ACCEPT                                                           \
	"application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
#define JOB_GPUS 8

struct serve_bench_opts {
	uint64_t workloads, clients, watchers, events, jobs, seconds;
	uint64_t db_batch; /* --db-batch: the database alone */
	bool sync_normal, json;
};

struct daemon {
	struct bench_daemon child;
	char *dir;
};

/* ---- The daemon. */

/* Kueue's objects for the Job phase: all GPUs of the cluster in one
 * queue, so every Job fits. */
static const char queues_yaml[] =
	"apiVersion: kueue.x-k8s.io/v1beta2\n"
	"kind: ClusterQueue\n"
	"metadata: {name: bench}\n"
	"spec:\n"
	"  namespaceSelector: {}\n"
	"  resourceGroups:\n"
	"  - coveredResources: [cpu, memory, nvidia.com/gpu]\n"
	"    flavors:\n"
	"    - name: tas-gpu\n"
	"      resources:\n"
	"      - {name: cpu, nominalQuota: \"100000\"}\n"
	"      - {name: memory, nominalQuota: 1000Ti}\n"
	"      - {name: nvidia.com/gpu, nominalQuota: \"100000\"}\n"
	"---\n"
	"apiVersion: v1\n"
	"kind: Namespace\n"
	"metadata: {name: bench}\n"
	"---\n"
	"apiVersion: kueue.x-k8s.io/v1beta2\n"
	"kind: LocalQueue\n"
	"metadata: {namespace: bench, name: bench}\n"
	"spec: {clusterQueue: bench}\n";

static int start_daemon(const struct serve_bench_opts *o, struct daemon *d)
{
	char listen[64], cluster[128];
	char *data, *queues, *log;
	int port = bench_free_port(), rc = -1;
	FILE *f;

	d->dir = bench_tmpdir("/tmp/echelon-bench-serve");
	if (!d->dir)
		return -1;
	data = xasprintf("%s/data", d->dir);
	queues = xasprintf("%s/queues.yaml", d->dir);
	log = xasprintf("%s/serve.log", d->dir);
	f = fopen(queues, "w");
	if (f) {
		fputs(queues_yaml, f);
		fclose(f);
	}
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	/* Two hosts per Job and room for all of them. */
	snprintf(cluster, sizeof(cluster), "racks=%" PRIu64 ",hosts=8",
		 (2 * o->jobs + 7) / 8 + 1);
	if (f) {
		const char *args[] = { "serve",
				       "--listen",
				       listen,
				       "--data",
				       data,
				       "--cluster",
				       cluster,
				       "-f",
				       queues,
				       "--sync",
				       o->sync_normal ? "normal" : "full",
				       NULL };

		rc = bench_daemon_start(&d->child, port, log, args);
	}
	free(data);
	free(queues);
	free(log);
	return rc;
}

static void stop_daemon(struct daemon *d, bool keep_log)
{
	bench_daemon_stop(&d->child, false);
	if (!d->dir)
		return;
	if (keep_log)
		fprintf(stderr,
			"echelon bench serve: the daemon's log is in "
			"%s/serve.log\n",
			d->dir);
	else
		bench_rmdir(d->dir);
	free(d->dir);
	d->dir = NULL;
}

/* ---- Client threads. */

struct phase;
typedef int (*client_fn)(struct phase *p, struct bench_http *h, uint64_t i,
			 struct strbuf *reply);

struct phase {
	const char *what;
	const char *prefix; /* of the names created */
	int port;
	client_fn fn;
	uint64_t count;	 /* requests in all; 0: until stop */
	uint64_t stored; /* objects a list should find */
	/* The wall time (cli_now_s()) when mark requests were done (set by
	 * the client thread that did the mark-th, read after the join),
	 * and when the last was: the rate in between is the rate with mark
	 * objects stored. */
	uint64_t mark;
	double mark_s, end_s;
	atomic_uint_fast64_t next, done;
	atomic_bool stop, failed;
	char error[256];
	pthread_mutex_t lock;
};

static void phase_fail(struct phase *p, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void phase_fail(struct phase *p, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&p->lock);
	if (!p->failed) {
		va_start(ap, fmt);
		vsnprintf(p->error, sizeof(p->error), fmt, ap);
		va_end(ap);
		p->failed = true;
	}
	pthread_mutex_unlock(&p->lock);
	p->stop = true;
}

static void *client(void *arg)
{
	struct phase *p = arg;
	struct bench_http *h = bench_http_connect(p->port);
	struct strbuf reply;

	strbuf_init(&reply);
	if (!h)
		phase_fail(p, "%s: connect: %s", p->what, strerror(errno));
	while (h && !p->stop) {
		uint64_t i = p->next++;

		if (p->count && i >= p->count)
			break;
		if (p->fn(p, h, i, &reply) < 0)
			break;
		if (++p->done == p->mark)
			p->mark_s = cli_now_s();
	}
	strbuf_release(&reply);
	bench_http_close(h);
	return NULL;
}

/* Run p with n client threads; for seconds when p->count is 0. Returns
 * the wall time, or -1 when a request failed (message in p->error). */
static double run_phase(struct phase *p, uint64_t n, uint64_t seconds)
{
	pthread_t *t = xcalloc(n, sizeof(*t));
	double t0 = cli_now_s(), wall;

	for (uint64_t i = 0; i < n; i++)
		BUG_ON(pthread_create(&t[i], NULL, client, p));
	if (!p->count) {
		while (!p->stop && cli_now_s() - t0 < (double)seconds)
			usleep(10000);
		p->stop = true;
	}
	for (uint64_t i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	p->end_s = cli_now_s();
	wall = p->end_s - t0;
	free(t);
	return p->failed ? -1 : wall;
}

static int expect(struct phase *p, int code, int want, const char *path,
		  const struct strbuf *reply)
{
	if (code == want)
		return 0;
	phase_fail(p, "%s: %s: status %d, not %d: %.200s", p->what, path, code,
		   want, code < 0 ? "connection lost" : reply->buf);
	return -1;
}

static char *workload(const char *name)
{
	return xasprintf(
		"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
		"\"Workload\",\"metadata\":{\"name\":\"%s\",\"namespace\":"
		"\"bench\",\"labels\":{\"app\":\"bench\"}},\"spec\":{"
		"\"podSets\":[{\"name\":\"main\",\"count\":4,\"template\":{"
		"\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{"
		"\"name\":\"c\",\"image\":\"registry.example.com/t:1\","
		"\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":"
		"\"1Gi\"}}}]}}}]}}",
		name);
}

static int create_one(struct phase *p, struct bench_http *h, uint64_t i,
		      struct strbuf *reply)
{
	char name[32];
	char *body;
	int code;

	snprintf(name, sizeof(name), "%s-%06" PRIu64, p->prefix, i);
	body = workload(name);
	code = bench_http_request(h, "POST", WL_PATH, NULL, body, reply);
	free(body);
	return expect(p, code, 201, WL_PATH, reply);
}

static int list_one(struct phase *p, struct bench_http *h, uint64_t i,
		    struct strbuf *reply)
{
	const char *path = WL_PATH "?limit=500";
	int code =
		bench_http_request(h, "GET", path, TABLE_ACCEPT, NULL, reply);

	if (expect(p, code, 200, path, reply) < 0)
		return -1;
	/* The first reply is checked whole: a page of 500 rows, and a
	 * continue token when more are stored. */
	if (i == 0) {
		json_t *t = json_loadb(reply->buf, reply->len, 0, NULL);
		json_t *md = json_object_get(t, "metadata");
		size_t rows = p->stored < 500 ? p->stored : 500;

		if (json_array_size(json_object_get(t, "rows")) != rows ||
		    !json_string_length(json_object_get(md, "continue")) !=
			    (p->stored <= 500)) {
			json_decref(t);
			phase_fail(
				p, "%s: %s: not a Table of %zu rows%s: %.200s",
				p->what, path, rows,
				p->stored > 500 ? " with a continue token" : "",
				reply->buf);
			return -1;
		}
		json_decref(t);
	}
	return 0;
}

/* resourceVersion of a list of path, or 0. */
static uint64_t list_rv(int port, const char *path)
{
	struct bench_http *h = bench_http_connect(port);
	struct strbuf reply;
	uint64_t rv = 0;

	strbuf_init(&reply);
	if (h &&
	    bench_http_request(h, "GET", path, NULL, NULL, &reply) == 200) {
		json_t *l = json_loadb(reply.buf, reply.len, 0, NULL);
		const char *s = json_string_value(json_object_get(
			json_object_get(l, "metadata"), "resourceVersion"));

		rv = s ? strtoull(s, NULL, 10) : 0;
		json_decref(l);
	}
	strbuf_release(&reply);
	bench_http_close(h);
	return rv;
}

/* ---- Watchers. */

struct watcher {
	pthread_t t;
	int port;
	uint64_t from, want; /* rv to watch from, events to see */
	uint64_t *rvs;	     /* the rvs seen, in order */
	uint64_t seen;
	double last_s; /* when the last one arrived */
	char error[200];
	atomic_bool *ready;
	atomic_uint *nready;
};

static void *watch_thread(void *arg)
{
	struct watcher *w = arg;
	struct bench_http *h = bench_http_connect(w->port);
	struct strbuf line;
	char path[256];
	int code;

	strbuf_init(&line);
	snprintf(path, sizeof(path),
		 WL_PATH "?watch=true&resourceVersion=%" PRIu64, w->from);
	code = h ? bench_http_stream(h, path) : -1;
	(*w->nready)++;
	if (code != 200) {
		snprintf(w->error, sizeof(w->error), "watch: status %d", code);
		goto out;
	}
	while (w->seen < w->want && bench_http_line(h, &line) == 1) {
		json_t *ev = json_loadb(line.buf, line.len, 0, NULL);
		const char *type =
			json_string_value(json_object_get(ev, "type"));
		const char *rv = json_string_value(json_object_get(
			json_object_get(json_object_get(ev, "object"),
					"metadata"),
			"resourceVersion"));

		if (type && strcmp(type, "BOOKMARK") && rv)
			w->rvs[w->seen++] = strtoull(rv, NULL, 10);
		else if (!type || !strcmp(type, "ERROR"))
			snprintf(w->error, sizeof(w->error), "watch: %.150s",
				 line.buf);
		json_decref(ev);
		if (w->error[0])
			break;
	}
	w->last_s = cli_now_s();
	if (w->seen < w->want && !w->error[0])
		snprintf(w->error, sizeof(w->error),
			 "watch: ended after %" PRIu64 " of %" PRIu64 " events",
			 w->seen, w->want);
out:
	strbuf_release(&line);
	bench_http_close(h);
	return NULL;
}

struct watch_result {
	double seconds;	    /* first write to last event seen */
	uint64_t delivered; /* events, all watchers */
	bool ok;
};

/* W watchers from the current rv while the clients write o->events
 * Workloads; each must see them all, in increasing rv, and all the same. */
static int watch_phase(const struct serve_bench_opts *o, int port,
		       struct watch_result *res, char *err, size_t errsize)
{
	struct watcher *w = xcalloc(o->watchers, sizeof(*w));
	struct phase p = { .what = "watch writes",
			   .prefix = "watched",
			   .port = port,
			   .fn = create_one,
			   .count = 0 };
	atomic_uint nready = 0;
	uint64_t from = list_rv(port, WL_PATH "?limit=1");
	double t0, last = 0;
	int r = 0;

	pthread_mutex_init(&p.lock, NULL);
	for (uint64_t i = 0; i < o->watchers; i++) {
		w[i].port = port;
		w[i].from = from;
		w[i].want = o->events;
		w[i].rvs = xcalloc(o->events, sizeof(uint64_t));
		w[i].nready = &nready;
		BUG_ON(pthread_create(&w[i].t, NULL, watch_thread, &w[i]));
	}
	while (nready < o->watchers)
		usleep(1000);
	usleep(100000); /* the watches are registered */
	t0 = cli_now_s();
	p.count = o->events;
	if (run_phase(&p, o->clients, 0) < 0) {
		snprintf(err, errsize, "%s", p.error);
		r = -1;
	}
	for (uint64_t i = 0; i < o->watchers; i++) {
		pthread_join(w[i].t, NULL);
		if (!r && w[i].error[0]) {
			snprintf(err, errsize, "watcher %" PRIu64 ": %s", i,
				 w[i].error);
			r = -1;
		}
		/* Increasing, and the same sequence as the first watcher. */
		for (uint64_t j = 0; !r && j < w[i].seen; j++) {
			if ((j && w[i].rvs[j] <= w[i].rvs[j - 1]) ||
			    w[i].rvs[j] != w[0].rvs[j]) {
				snprintf(err, errsize,
					 "watcher %" PRIu64 ": event %" PRIu64
					 " has rv %" PRIu64 ", not %" PRIu64,
					 i, j, w[i].rvs[j], w[0].rvs[j]);
				r = -1;
			}
		}
		if (w[i].last_s > last)
			last = w[i].last_s;
		res->delivered += w[i].seen;
	}
	for (uint64_t i = 0; i < o->watchers; i++)
		free(w[i].rvs);
	res->seconds = last - t0;
	res->ok = r == 0;
	pthread_mutex_destroy(&p.lock);
	free(w);
	return r;
}

/* ---- Jobs: create to all pods bound. */

static char *job(const char *name)
{
	return xasprintf(
		"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{"
		"\"name\":\"%s\",\"namespace\":\"bench\",\"labels\":{"
		"\"kueue.x-k8s.io/queue-name\":\"bench\"}},\"spec\":{"
		"\"parallelism\":2,\"completions\":2,\"completionMode\":"
		"\"Indexed\",\"template\":{\"spec\":{\"restartPolicy\":"
		"\"Never\",\"containers\":[{\"name\":\"c\",\"image\":"
		"\"registry.example.com/t:1\",\"resources\":{\"requests\":{"
		"\"cpu\":\"8\",\"memory\":\"64Gi\",\"nvidia.com/gpu\":\"%d\"},"
		"\"limits\":{\"nvidia.com/gpu\":\"%d\"}}}]}}}}",
		name, JOB_GPUS, JOB_GPUS);
}

/* Whether a pod event says the pod of job is bound. */
static bool bound_pod_of(json_t *ev, const char *job_name)
{
	json_t *pod = json_object_get(ev, "object");
	json_t *labels =
		json_object_get(json_object_get(pod, "metadata"), "labels");
	const char *j = json_string_value(
		json_object_get(labels, "batch.kubernetes.io/job-name"));

	if (!j)
		j = json_string_value(json_object_get(labels, "job-name"));
	return j && !strcmp(j, job_name) &&
	       json_string_length(json_object_get(json_object_get(pod, "spec"),
						  "nodeName"));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Each Job alone: POST it, then read the pods watch until both pods are
 * bound. Latencies in ms, sorted, into lat. */
static int job_phase(const struct serve_bench_opts *o, int port, double *lat,
		     char *err, size_t errsize)
{
	const char *pods = "/api/v1/namespaces/bench/pods";
	struct bench_http *h = bench_http_connect(port);
	struct bench_http *w = bench_http_connect(port);
	struct strbuf reply, line;
	char path[256];
	int r = 0;

	strbuf_init(&reply);
	strbuf_init(&line);
	snprintf(path, sizeof(path), "%s?watch=true&resourceVersion=%" PRIu64,
		 pods, list_rv(port, pods));
	if (!h || !w || bench_http_stream(w, path) != 200) {
		snprintf(err, errsize, "jobs: cannot watch %s", pods);
		r = -1;
	}
	for (uint64_t i = 0; !r && i < o->jobs; i++) {
		char name[32], seen[2][128] = { "", "" };
		char *body;
		double t0;
		int code, bound = 0;

		snprintf(name, sizeof(name), "job-%03" PRIu64, i);
		body = job(name);
		t0 = cli_now_s();
		code = bench_http_request(
			h, "POST", "/apis/batch/v1/namespaces/bench/jobs", NULL,
			body, &reply);
		free(body);
		if (code != 201) {
			snprintf(err, errsize,
				 "jobs: POST %s: status %d: %.150s", name, code,
				 reply.buf);
			r = -1;
			break;
		}
		while (bound < 2 && bench_http_line(w, &line) == 1) {
			json_t *ev = json_loadb(line.buf, line.len, 0, NULL);
			const char *pod = json_string_value(json_object_get(
				json_object_get(json_object_get(ev, "object"),
						"metadata"),
				"name"));

			if (bound_pod_of(ev, name) && pod &&
			    strcmp(pod, seen[0])) {
				snprintf(seen[bound], sizeof(seen[0]), "%s",
					 pod);
				bound++;
			}
			json_decref(ev);
		}
		if (bound < 2) {
			snprintf(err, errsize,
				 "jobs: %s: the pods watch ended before both "
				 "pods were bound",
				 name);
			r = -1;
			break;
		}
		lat[i] = (cli_now_s() - t0) * 1000;
	}
	strbuf_release(&reply);
	strbuf_release(&line);
	bench_http_close(h);
	bench_http_close(w);
	if (!r)
		qsort(lat, o->jobs, sizeof(*lat), cmp_double);
	return r;
}

/* ---- The benchmark. */

struct serve_results {
	double create_s, list_s;
	double last_s; /* the creates' last tenth, from mark to the end */
	uint64_t lists;
	struct watch_result watch;
	double *lat; /* ms, sorted */
};

static double pct(const double *v, uint64_t n, double q)
{
	uint64_t i = (uint64_t)(q * (double)(n - 1) + 0.5);

	return n ? v[i] : 0;
}

static void report(const struct serve_bench_opts *o,
		   const struct serve_results *r)
{
	double creates = (double)o->workloads / r->create_s;
	uint64_t last = o->workloads - o->workloads * 9 / 10;
	double creates_last = r->last_s > 0 ? (double)last / r->last_s : 0;
	double lists = (double)r->lists / r->list_s;
	double deliv = r->watch.seconds > 0
			       ? (double)r->watch.delivered / r->watch.seconds
			       : 0;

	if (o->json) {
		json_t *j = json_pack(
			"{s:I, s:I, s:s, s:f, s:f, s:f, s:I, s:I, s:f, s:f, "
			"s:f, s:f, s:f}",
			"workloads", (json_int_t)o->workloads, "clients",
			(json_int_t)o->clients, "sync",
			o->sync_normal ? "normal" : "full", "creates_per_s",
			creates, "creates_last_tenth_per_s", creates_last,
			"lists_per_s", lists, "watchers",
			(json_int_t)o->watchers, "watch_events",
			(json_int_t)o->events, "watch_seconds",
			r->watch.seconds, "watch_deliveries_per_s", deliv,
			"job_bound_ms_p50", pct(r->lat, o->jobs, 0.5),
			"job_bound_ms_p99", pct(r->lat, o->jobs, 0.99),
			"job_bound_ms_max", pct(r->lat, o->jobs, 1));
		char *txt = json_dumps(j, JSON_PRESERVE_ORDER);

		printf("%s\n", txt);
		free(txt);
		json_decref(j);
		return;
	}
	printf("creates: %" PRIu64 " Workloads by %" PRIu64
	       " clients in %.2f s: %.0f/s (sync %s); the last %" PRIu64
	       ", with %" PRIu64 " or more stored: %.0f/s\n",
	       o->workloads, o->clients, r->create_s, creates,
	       o->sync_normal ? "normal" : "full", last, o->workloads - last,
	       creates_last);
	printf("lists: Table, limit 500 of %" PRIu64 ", %" PRIu64
	       " clients: %.0f/s\n",
	       o->workloads, o->clients, lists);
	printf("watch: %" PRIu64 " watchers, %" PRIu64
	       " events each, in order: all delivered %.2f s after the "
	       "first write (%.0f events/s)\n",
	       o->watchers, o->events, r->watch.seconds, deliv);
	printf("jobs: create to all pods bound, %" PRIu64
	       " Jobs of 2 pods: median %.1f ms, p99 %.1f ms, max %.1f ms\n",
	       o->jobs, pct(r->lat, o->jobs, 0.5), pct(r->lat, o->jobs, 0.99),
	       pct(r->lat, o->jobs, 1));
}

/*
 * The database alone, in this process: o->workloads Workloads created in
 * a store and flushed every o->db_batch, as the daemon's group commit
 * would with that many writes a turn. Separates the cost of durability
 * from the rest of the daemon.
 */
static int run_db(const struct serve_bench_opts *o)
{
	char tmpl[] = "/tmp/echelon-bench-db-XXXXXX";
	const struct api_kind *k = api_kind_storage(
		api_kind_find("kueue.x-k8s.io", "v1beta2", "workloads"));
	struct serve_meta meta, fm = { .clock_us = 0 };
	struct api_store_options so = { 0 };
	struct api_store *s = NULL;
	struct serve_db *db = NULL;
	struct errbuf err = { "" };
	double flush_s = 0, t0;
	uint64_t flushes = 0;
	int rc = 1;

	if (!k || !mkdtemp(tmpl) ||
	    serve_db_open(tmpl, !o->sync_normal, &db, &meta, &err) < 0) {
		fprintf(stderr, "echelon bench serve: %s: %s\n", tmpl,
			err.msg[0] ? err.msg : strerror(errno));
		goto out;
	}
	so.uid_prefix = meta.uid_prefix;
	s = api_store_new(&so);
	for (uint64_t i = 0; i < o->workloads; i++) {
		char name[32], *text;
		json_t *body;

		snprintf(name, sizeof(name), "stored-%06" PRIu64, i);
		text = workload(name);
		body = json_loads(text, 0, NULL);
		free(text);
		BUG_ON(api_store_create(s, k, body, 0, NULL) < 0);
		if ((i + 1) % o->db_batch && i + 1 < o->workloads)
			continue;
		t0 = cli_now_s();
		if (serve_db_flush(db, s, &fm, &err) < 0) {
			fprintf(stderr, "echelon bench serve: %s\n", err.msg);
			goto out;
		}
		flush_s += cli_now_s() - t0;
		flushes++;
	}
	printf("database: %" PRIu64 " Workloads in %" PRIu64
	       " transactions of %" PRIu64 " (sync %s): %.2f ms a "
	       "transaction, %.0f Workloads/s\n",
	       o->workloads, flushes, o->db_batch,
	       o->sync_normal ? "normal" : "full", flush_s * 1000 / flushes,
	       (double)o->workloads / flush_s);
	rc = 0;
out:
	serve_db_close(db);
	api_store_free(s);
	if (db || s) {
		char *cmd = xasprintf("rm -rf '%s'", tmpl);

		if (system(cmd) != 0)
			fprintf(stderr,
				"echelon bench serve: cannot remove %s\n",
				tmpl);
		free(cmd);
	}
	return rc;
}

static int run(const struct serve_bench_opts *o)
{
	struct daemon d = { 0 };
	struct serve_results res = { 0 };
	struct phase create = { .what = "create",
				.prefix = "stored",
				.fn = create_one },
		     list = { .what = "list", .fn = list_one };
	char err[256] = "";
	int rc = 1;

	pthread_mutex_init(&create.lock, NULL);
	pthread_mutex_init(&list.lock, NULL);
	res.lat = xcalloc(o->jobs ? o->jobs : 1, sizeof(double));
	if (start_daemon(o, &d) < 0 || bench_daemon_ready(&d.child, 30) < 0) {
		snprintf(err, sizeof(err), "the daemon did not become ready");
		goto out;
	}
	create.port = list.port = d.child.port;
	create.count = list.stored = o->workloads;
	create.mark = o->workloads * 9 / 10;
	res.create_s = run_phase(&create, o->clients, 0);
	/* with mark 0 (fewer than 10 creates): all of them */
	res.last_s = create.mark ? create.end_s - create.mark_s : res.create_s;
	if (res.create_s < 0) {
		snprintf(err, sizeof(err), "%s", create.error);
		goto out;
	}
	res.list_s = run_phase(&list, o->clients, o->seconds);
	res.lists = list.done;
	if (res.list_s < 0) {
		snprintf(err, sizeof(err), "%s", list.error);
		goto out;
	}
	if (watch_phase(o, d.child.port, &res.watch, err, sizeof(err)) < 0 ||
	    job_phase(o, d.child.port, res.lat, err, sizeof(err)) < 0)
		goto out;
	report(o, &res);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "echelon bench serve: %s\n", err);
	stop_daemon(&d, rc != 0);
	pthread_mutex_destroy(&create.lock);
	pthread_mutex_destroy(&list.lock);
	free(res.lat);
	return rc;
}

static const char *opt_name(const struct option *opts, int val)
{
	static char buf[32];

	while (opts->name && opts->val != val)
		opts++;
	snprintf(buf, sizeof(buf), "--%s", opts->name ? opts->name : "?");
	return buf;
}

static int parse_args(int argc, char **argv, struct serve_bench_opts *o)
{
	static const struct option opts[] = {
		{ "workloads", required_argument, NULL, 'w' },
		{ "clients", required_argument, NULL, 'c' },
		{ "watchers", required_argument, NULL, 'W' },
		{ "events", required_argument, NULL, 'e' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "seconds", required_argument, NULL, 's' },
		{ "sync", required_argument, NULL, 'S' },
		{ "db-batch", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "w:c:W:e:j:s:S:o:b:", opts,
				  NULL)) != -1) {
		uint64_t v = 0, *dst;

		switch (opt) {
		case 'o':
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return cli_bad_value("bench serve", "-o",
						     optarg, "json or text");
			o->json = !strcmp(optarg, "json");
			continue;
		case 'S':
			if (strcmp(optarg, "full") && strcmp(optarg, "normal"))
				return cli_bad_value("bench serve", "--sync",
						     optarg, "full or normal");
			o->sync_normal = !strcmp(optarg, "normal");
			continue;
		case 'w':
			dst = &o->workloads;
			break;
		case 'c':
			dst = &o->clients;
			break;
		case 'W':
			dst = &o->watchers;
			break;
		case 'e':
			dst = &o->events;
			break;
		case 'j':
			dst = &o->jobs;
			break;
		case 's':
			dst = &o->seconds;
			break;
		case 'b':
			dst = &o->db_batch;
			break;
		default:
			return -1;
		}
		/* 500 Workloads at least: the list reads a page of 500. */
		if (cli_parse_u64(optarg, opt == 'w' ? 500 : 1,
				  opt == 'w' ? 1000000 : 1000, &v) < 0)
			return cli_bad_value("bench serve", opt_name(opts, opt),
					     optarg, "a number in range");
		*dst = v;
	}
	if (optind != argc) {
		fprintf(stderr, "echelon bench serve: unexpected '%s'\n",
			cli_quote(argv[optind]));
		return -1;
	}
	return 0;
}

int cli_bench_serve(int argc, char **argv)
{
	struct serve_bench_opts o = { .workloads = 10000,
				      .clients = 8,
				      .watchers = 100,
				      .events = 1000,
				      .jobs = 20,
				      .seconds = 5 };

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: echelon bench serve [--workloads N] "
		       "[--clients C] [--watchers W] [--events E]\n"
		       "                           [--jobs J] [--seconds S] "
		       "[--sync full|normal] [-o json]\n"
		       "       echelon bench serve --db-batch B [--workloads "
		       "N] "
		       "[--sync full|normal]\n\n"
		       "Starts `echelon serve` on a free loopback port with a "
		       "temporary --data and\nmeasures over HTTP with C client "
		       "connections (default 8): creates of N\nWorkloads "
		       "(default 10,000), each answered once durable (also the "
		       "rate\nof the last tenth, with nine tenths stored); "
		       "Table lists of 500 of them\nfor S seconds (default "
		       "5); W watchers (default 100) each seeing all of\nE "
		       "more "
		       "creates (default 1,000) in order; and J Jobs (default "
		       "20)\nof two 8-GPU pods, from create to both pods "
		       "bound.\n\n"
		       "With --db-batch B, only the database, in this process: "
		       "N Workloads written\nin transactions of B, as the "
		       "group commit of B writes a turn.\n");
		return 0;
	}
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	return o.db_batch ? run_db(&o) : run(&o);
}

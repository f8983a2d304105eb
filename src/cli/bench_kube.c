// SPDX-License-Identifier: Apache-2.0
/*
 * echelon bench kube: the Kubernetes backend end to end on one machine.
 * A cluster (`echelon serve --no-schedule` with N generated nodes) gets P
 * pods of scheduler echelon through its API, half of them in gangs
 * (scheduler-plugins PodGroups), the rest single; then a scheduler
 * replica (`echelon serve --kubeconfig`) starts, and a watch of the
 * cluster's pods measures: the time from its start to its synced cache
 * (/readyz), its peak memory (VmHWM), and the pods bound per second end
 * to end. A second replica, started as a follower on the same Lease,
 * takes over when the first is killed with SIGKILL: the time from the
 * kill to its first bind of pods created after it is the failover time.
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

#include "api/api_json.h"
#include "api/api_store.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "cli/bench_daemon.h"
#include "cli/bench_http.h"

#include "base/banned.h"

#define NS	     "bench"
#define PODS_PATH    "/api/v1/namespaces/" NS "/pods"
#define PG_PATH	     "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/" NS "/podgroups"
#define LEASE	     NS "/echelon"
#define QUEUE_LABEL  "kueue.x-k8s.io/queue-name"
#define HOSTS_MAX    40 /* hosts per rack */
#define READY_S	     300
#define FAILOVER_MAX 1000 /* pods created after the kill */

struct kube_bench_opts {
	uint64_t nodes, pods, gang, clients, seconds;
	const char *qps, *burst; /* --kube-qps, --kube-burst, or NULL */
	bool failover, json;
	bool no_pod_start; /* the cluster's --no-pod-start */
};

/* What the watch of the cluster's pods saw. Pods are named p-N (before)
 * and f-N (after the kill); bound[] has one flag per pod. */
struct seen {
	int port;
	uint64_t npods, nextra;
	atomic_bool *bound;
	atomic_uint_fast64_t nbound, nextra_bound;
	_Atomic double first_s, last_s, extra_first_s, extra_last_s;
	atomic_bool stop, failed;
	uint64_t from_rv;
	char error[256];
	pthread_t t;
};

struct results {
	uint64_t nodes;
	double create_s, sync_s, all_bound_s, bind_s, failover_s;
	/* From the kill, per b's log: elected, its first pass done (-1:
	 * not in the log). */
	double elected_s, pass_s;
	uint64_t hwm_kib;
};

static double fmax2(double a, double b)
{
	return a > b ? a : b;
}

/* ---- Requests. */

/* The gangs' queue: room for every pod (gangs are not scheduled
 * without one; single pods are bound one by one without). */
#define KUEUE "/apis/kueue.x-k8s.io/v1beta2"
static const char cluster_queue[] =
	"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
	"\"ClusterQueue\",\"metadata\":{\"name\":\"" NS "\"},\"spec\":{"
	"\"namespaceSelector\":{},\"resourceGroups\":[{"
	"\"coveredResources\":[\"cpu\",\"memory\"],\"flavors\":[{"
	"\"name\":\"tas-gpu\",\"resources\":["
	"{\"name\":\"cpu\",\"nominalQuota\":\"100000000\"},"
	"{\"name\":\"memory\",\"nominalQuota\":\"100000Ti\"}]}]}]}}";
static const char local_queue[] =
	"{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":"
	"\"LocalQueue\",\"metadata\":{\"name\":\"" NS "\",\"namespace\":"
	"\"" NS "\"},\"spec\":{\"clusterQueue\":\"" NS "\"}}";

static int post(int port, const char *path, const char *body, char *err,
		size_t errsize)
{
	struct bench_http *h = bench_http_connect(port);
	struct strbuf reply;
	int code = -1;

	strbuf_init(&reply);
	if (h)
		code = bench_http_request(h, "POST", path, NULL, body, &reply);
	if (code != 201)
		snprintf(err, errsize, "POST %s: status %d: %.150s", path, code,
			 code < 0 ? "connection failed" : reply.buf);
	strbuf_release(&reply);
	bench_http_close(h);
	return code == 201 ? 0 : -1;
}

static char *pod_body(char kind, uint64_t i, uint64_t gang)
{
	char group[160] = "";

	if (gang)
		snprintf(group, sizeof(group),
			 ",\"labels\":{\"scheduling.x-k8s.io/pod-group\":"
			 "\"g-%06" PRIu64 "\",\"" QUEUE_LABEL "\":\"" NS "\"}",
			 i / gang);
	return xasprintf(
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
		"\"name\":\"%c-%06" PRIu64 "\"%s},\"spec\":{"
		"\"schedulerName\":\"echelon\",\"restartPolicy\":\"Never\","
		"\"containers\":[{\"name\":\"c\",\"image\":"
		"\"registry.example.com/t:1\",\"resources\":{\"requests\":{"
		"\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}",
		kind, i, group);
}

struct creator {
	int port;
	char kind;		     /* 'p' or 'f' */
	uint64_t n, gang_pods, gang; /* the first gang_pods are in gangs */
	atomic_uint_fast64_t next;
	atomic_bool failed;
	char error[256];
	pthread_mutex_t lock;
};

static void *create_thread(void *arg)
{
	struct creator *c = arg;
	struct bench_http *h = bench_http_connect(c->port);
	struct strbuf reply;

	strbuf_init(&reply);
	while (h && !c->failed) {
		uint64_t i = c->next++;
		char *body;
		int code;

		if (i >= c->n)
			break;
		body = pod_body(c->kind, i, i < c->gang_pods ? c->gang : 0);
		code = bench_http_request(h, "POST", PODS_PATH, NULL, body,
					  &reply);
		free(body);
		if (code != 201) {
			pthread_mutex_lock(&c->lock);
			if (!c->failed)
				snprintf(c->error, sizeof(c->error),
					 "POST %s: status %d: %.150s",
					 PODS_PATH, code,
					 code < 0 ? "connection lost"
						  : reply.buf);
			c->failed = true;
			pthread_mutex_unlock(&c->lock);
		}
	}
	if (!h) {
		snprintf(c->error, sizeof(c->error), "connect: %s",
			 strerror(errno));
		c->failed = true;
	}
	strbuf_release(&reply);
	bench_http_close(h);
	return NULL;
}

/* Create n pods named KIND-N with `clients` connections; the first
 * gang_pods in PodGroups of gang (created first). */
static int create_pods(const struct kube_bench_opts *o, int port, char kind,
		       uint64_t n, uint64_t gang_pods, char *err,
		       size_t errsize)
{
	struct creator c = { .port = port,
			     .kind = kind,
			     .n = n,
			     .gang_pods = gang_pods,
			     .gang = o->gang };
	pthread_t *t = xcalloc(o->clients, sizeof(*t));

	for (uint64_t g = 0; o->gang && g < gang_pods / o->gang; g++) {
		char *body = xasprintf(
			"{\"apiVersion\":\"scheduling.x-k8s.io/v1alpha1\","
			"\"kind\":\"PodGroup\",\"metadata\":{\"name\":"
			"\"g-%06" PRIu64 "\",\"labels\":{\"" QUEUE_LABEL
			"\":\"" NS "\"}},\"spec\":{\"minMember\":%" PRIu64 "}}",
			g, o->gang);
		int rc = post(port, PG_PATH, body, err, errsize);

		free(body);
		if (rc < 0) {
			free(t);
			return -1;
		}
	}
	pthread_mutex_init(&c.lock, NULL);
	for (uint64_t i = 0; i < o->clients; i++)
		BUG_ON(pthread_create(&t[i], NULL, create_thread, &c));
	for (uint64_t i = 0; i < o->clients; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&c.lock);
	free(t);
	if (c.failed)
		snprintf(err, errsize, "%s", c.error);
	return c.failed ? -1 : 0;
}

/* The pods list at path (PODS_PATH and a query), or NULL; *rv its
 * resourceVersion (0 when none). */
static json_t *list_pods(int port, const char *path, uint64_t *rv)
{
	struct bench_http *h = bench_http_connect(port);
	struct strbuf reply;
	json_t *l = NULL;
	const char *v;

	strbuf_init(&reply);
	if (h && bench_http_request(h, "GET", path, NULL, NULL, &reply) == 200)
		l = json_loadb(reply.buf, reply.len, 0, NULL);
	strbuf_release(&reply);
	bench_http_close(h);
	v = json_string_value(json_object_get(json_object_get(l, "metadata"),
					      "resourceVersion"));
	if (!v || !api_rv_parse(v, strlen(v), rv))
		*rv = 0;
	return l;
}

/* The resourceVersion of the pods list, or 0. */
static uint64_t pods_rv(int port)
{
	uint64_t rv;

	json_decref(list_pods(port, PODS_PATH "?limit=1", &rv));
	return rv;
}

/* ---- The watch of bindings. */

/* A pod as the watch or a list shows it (its name, resourceVersion and
 * whether it has a node): counted the first time it has a node. */
static void on_pod(struct seen *s, const char *name, const char *v, size_t vlen,
		   bool node, uint64_t *rv)
{
	double now = cli_now_s();
	uint64_t i, slot;
	char *end;

	if (v)
		(void)api_rv_parse(v, vlen, rv); /* else the last one */
	if (!name || (name[0] != 'p' && name[0] != 'f') || name[1] != '-' ||
	    !node)
		return;
	i = strtoull(name + 2, &end, 10);
	if (*end || i >= (name[0] == 'p' ? s->npods : s->nextra))
		return;
	slot = name[0] == 'p' ? i : s->npods + i;
	if (atomic_exchange(&s->bound[slot], true))
		return;
	if (name[0] == 'p') {
		if (s->nbound++ == 0)
			s->first_s = now;
		s->last_s = now;
	} else {
		if (s->nextra_bound++ == 0)
			s->extra_first_s = now;
		s->extra_last_s = now;
	}
}

static void on_pod_json(struct seen *s, json_t *pod, uint64_t *rv)
{
	json_t *md = json_object_get(pod, "metadata");
	const char *v =
		json_string_value(json_object_get(md, "resourceVersion"));

	on_pod(s, json_string_value(json_object_get(md, "name")), v,
	       v ? strlen(v) : 0,
	       json_string_length(json_object_get(json_object_get(pod, "spec"),
						  "nodeName")) > 0,
	       rv);
}

/* The string member key of the JSON object text[0..len), unquoted (the
 * names and numbers read here have no escapes), or false. */
static bool member_str(const char *text, size_t len, const char *key,
		       const char **ret, size_t *ret_len)
{
	const char *v;
	size_t n;

	if (!api_json_member(text, len, key, &v, &n) || n < 2 || *v != '"')
		return false;
	*ret = v + 1;
	*ret_len = n - 2;
	return true;
}

/*
 * A watch event's pod read by scanning its text, not decoding it: the
 * watch sees every pod three or four times, and decoding each whole was
 * a tenth of a core taken from the processes measured. False for an
 * event that is not a pod's ADDED, MODIFIED or DELETED.
 */
static bool on_pod_text(struct seen *s, const char *text, size_t len,
			uint64_t *rv)
{
	const char *t, *obj, *md, *spec, *name, *v, *node;
	size_t tn, on, mdn, sn, namen, vn = 0, noden;
	char buf[64];

	if (!member_str(text, len, "type", &t, &tn) ||
	    (tn == 5 && !memcmp(t, "ERROR", 5)) ||
	    !api_json_member(text, len, "object", &obj, &on) ||
	    !api_json_member(obj, on, "metadata", &md, &mdn))
		return false;
	if (!member_str(md, mdn, "name", &name, &namen) || namen >= sizeof(buf))
		name = NULL;
	else
		snprintf(buf, sizeof(buf), "%.*s", (int)namen, name);
	if (!member_str(md, mdn, "resourceVersion", &v, &vn))
		v = NULL;
	on_pod(s, name ? buf : NULL, v, vn,
	       api_json_member(obj, on, "spec", &spec, &sn) &&
		       member_str(spec, sn, "nodeName", &node, &noden) &&
		       noden > 0,
	       rv);
	return true;
}

#define RELIST_TRIES 5

/* The pods in pages of 500, each bound one counted; the first page's
 * resourceVersion, or 0 when a page failed. */
static uint64_t list_all(struct seen *s)
{
	uint64_t at = 0, page_rv, rv;
	struct strbuf path;
	char *cont = NULL;

	strbuf_init(&path);
	do {
		json_t *l, *pod, *md;
		const char *next;
		size_t i;

		strbuf_reset(&path);
		strbuf_addstr(&path, PODS_PATH "?limit=500");
		if (cont)
			strbuf_addf(&path, "&continue=%s", cont);
		l = list_pods(s->port, path.buf, &page_rv);
		free(cont);
		cont = NULL;
		if (!l || !page_rv) {
			json_decref(l);
			at = 0;
			break;
		}
		at = at ? at : page_rv;
		json_array_foreach(json_object_get(l, "items"), i, pod)
			on_pod_json(s, pod, &rv);
		md = json_object_get(l, "metadata");
		next = json_string_value(json_object_get(md, "continue"));
		/* echelon's tokens are "<rv>.<hex>": nothing to escape */
		if (next && *next &&
		    strspn(next, "0123456789abcdef.") == strlen(next))
			cont = xstrdup(next);
		json_decref(l);
	} while (cont);
	strbuf_release(&path);
	return at;
}

/* After a 410 (the watch fell behind the server's history: 100,000
 * changes go by in about 25 s at 50,000 pods): list the pods, count the
 * bound ones, and go on from the list's resourceVersion, as a reflector
 * does; a list that fails is tried again, up to RELIST_TRIES times a
 * second apart. False when none succeeds. */
static bool relist(struct seen *s, uint64_t *rv)
{
	for (int i = 0; i < RELIST_TRIES && !s->stop; i++) {
		uint64_t at = list_all(s);

		if (at) {
			*rv = at;
			return true;
		}
		sleep(1);
	}
	return false;
}

/* Whether a watch event of type ERROR is a 410 Expired. */
static bool expired(const json_t *ev)
{
	return json_integer_value(json_object_get(json_object_get(ev, "object"),
						  "code")) == 410;
}

/* Watch the pods from s->from_rv until stopped; a stream that falls
 * silent (the client's read timeout) is opened again from the last
 * resourceVersion seen, one that expired after a relist. */
static void *watch_thread(void *arg)
{
	struct seen *s = arg;
	uint64_t rv = s->from_rv;
	struct strbuf line;

	strbuf_init(&line);
	while (!s->stop) {
		struct bench_http *h = bench_http_connect(s->port);
		char path[160];
		int code;

		snprintf(path, sizeof(path),
			 PODS_PATH "?watch=true&resourceVersion=%" PRIu64, rv);
		code = h ? bench_http_stream(h, path) : -1;
		if (code != 200) {
			snprintf(s->error, sizeof(s->error),
				 "watch %s: status %d", path, code);
			s->failed = s->stop = true;
		}
		while (!s->stop && bench_http_line(h, &line) == 1) {
			json_t *ev;
			const char *type;
			bool again = false;

			if (on_pod_text(s, line.buf, line.len, &rv))
				continue;
			ev = json_loadb(line.buf, line.len, 0, NULL);
			type = json_string_value(json_object_get(ev, "type"));
			if (type && !strcmp(type, "ERROR")) {
				again = expired(ev) && relist(s, &rv);
				if (!again) {
					snprintf(s->error, sizeof(s->error),
						 "watch: %.200s%s", line.buf,
						 expired(ev) ? "; and the pods "
							       "could not be "
							       "listed again"
							     : "");
					s->failed = s->stop = true;
				}
			}
			json_decref(ev);
			if (again)
				break; /* watch again from the list */
		}
		bench_http_close(h);
	}
	strbuf_release(&line);
	return NULL;
}

/* Wait until done() or seconds pass or the watch fails; 0 when done. */
static int wait_for(struct seen *s, bool (*done)(const struct seen *),
		    double seconds)
{
	double until = cli_now_s() + seconds;

	while (!done(s) && !s->failed && cli_now_s() < until)
		usleep(5000);
	return done(s) ? 0 : -1;
}

static bool all_bound(const struct seen *s)
{
	return s->nbound >= s->npods;
}

static bool some_bound(const struct seen *s)
{
	return s->nbound > 0;
}

static bool extra_bound(const struct seen *s)
{
	return s->nextra_bound > 0;
}

static bool all_extra_bound(const struct seen *s)
{
	return s->nextra_bound >= s->nextra;
}

/* ---- Daemons. */

static int start_cluster(const struct kube_bench_opts *o, const char *dir,
			 struct bench_daemon *d, uint64_t *nodes)
{
	uint64_t hosts = o->nodes < HOSTS_MAX ? o->nodes : HOSTS_MAX;
	uint64_t racks = (o->nodes + hosts - 1) / hosts;
	char listen[64], cluster[96];
	char *data = xasprintf("%s/cluster", dir);
	char *kc = xasprintf("%s/kubeconfig", dir);
	char *log = xasprintf("%s/cluster.log", dir);
	int port = bench_free_port(), rc;
	const char *args[] = { "serve",
			       "--listen",
			       listen,
			       "--data",
			       data,
			       "--cluster",
			       cluster,
			       "--no-schedule",
			       "--sync",
			       "normal",
			       "--write-kubeconfig",
			       kc,
			       o->no_pod_start ? "--no-pod-start" : NULL,
			       NULL };

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	snprintf(cluster, sizeof(cluster),
		 "racks=%" PRIu64 ",hosts=%" PRIu64 ",gpus=8", racks, hosts);
	*nodes = racks * hosts;
	rc = bench_daemon_start(d, port, log, args);
	free(data);
	free(kc);
	free(log);
	return rc;
}

static int start_replica(const struct kube_bench_opts *o, const char *dir,
			 const char *id, struct bench_daemon *d)
{
	char listen[64];
	char *data = xasprintf("%s/%s", dir, id);
	char *kc = xasprintf("%s/kubeconfig", dir);
	char *log = xasprintf("%s/%s.log", dir, id);
	int port = bench_free_port(), rc;
	const char *args[16] = { "serve", "--listen",	  listen, "--data",
				 data,	  "--kubeconfig", kc,	  "--lease",
				 LEASE,	  "--id",	  id };
	size_t n = 11;

	if (o->qps) {
		args[n++] = "--kube-qps";
		args[n++] = o->qps;
	}
	if (o->burst) {
		args[n++] = "--kube-burst";
		args[n++] = o->burst;
	}
	args[n] = NULL;

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	rc = bench_daemon_start(d, port, log, args);
	free(data);
	free(kc);
	free(log);
	return rc;
}

/* The replica's own measure of its first sync: `seconds=` of its log's
 * "synced" line, waited for up to seconds. /readyz would say it too,
 * but a replica busy with its first scheduling pass answers late. */
static int wait_synced(struct bench_daemon *d, const char *log, double seconds,
		       double *ret_s)
{
	double until = cli_now_s() + seconds;

	while (bench_daemon_alive(d) && cli_now_s() < until) {
		char line[1024];
		FILE *f = fopen(log, "r");

		while (f && fgets(line, sizeof(line), f)) {
			const char *at = strstr(line, "msg=\"synced\"");

			at = at ? strstr(at, " seconds=") : NULL;
			if (at) {
				*ret_s = strtod(at + 9, NULL);
				fclose(f);
				return 0;
			}
		}
		if (f)
			fclose(f);
		usleep(50000);
	}
	return -1;
}

/* The `mono=` (CLOCK_MONOTONIC seconds, as cli_now_s()) of the last
 * line of log whose msg is msg, minus since; -1 when none. */
static double log_mono(const char *log, const char *msg, double since)
{
	char line[1024], *key = xasprintf("msg=\"%s\"", msg);
	FILE *f = fopen(log, "r");
	double t = -1;

	while (f && fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, key);

		at = at ? strstr(at, " mono=") : NULL;
		if (at)
			t = strtod(at + 6, NULL) - since;
	}
	if (f)
		fclose(f);
	free(key);
	return t;
}

/* ---- The benchmark. */

static void report(const struct kube_bench_opts *o, const struct results *r)
{
	double e2e = r->all_bound_s > 0 ? (double)o->pods / r->all_bound_s : 0;
	double rate = r->bind_s > 0 ? (double)o->pods / r->bind_s : 0;

	if (o->json) {
		json_t *j = json_pack(
			"{s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
			"nodes", (json_int_t)r->nodes, "pods",
			(json_int_t)o->pods, "gang", (json_int_t)o->gang,
			"create_per_s",
			r->create_s > 0 ? (double)o->pods / r->create_s : 0,
			"sync_s", r->sync_s, "hwm_mib",
			(double)r->hwm_kib / 1024, "all_bound_s",
			r->all_bound_s, "bound_per_s_end_to_end", e2e,
			"bound_per_s", rate, "failover_s", r->failover_s);

		json_object_set_new(j, "pods_started",
				    json_boolean(!o->no_pod_start));

		if (o->failover) {
			json_object_set_new(j, "failover_elected_s",
					    json_real(r->elected_s));
			json_object_set_new(j, "failover_first_pass_s",
					    json_real(r->pass_s));
		}
		char *txt = json_dumps(j, JSON_PRESERVE_ORDER);

		printf("%s\n", txt);
		free(txt);
		json_decref(j);
		return;
	}
	printf("cluster: %" PRIu64 " nodes, %" PRIu64 " pods (%" PRIu64
	       " in gangs of %" PRIu64 ") created in %.2f s (%.0f/s)\n",
	       r->nodes, o->pods, o->gang ? o->pods / 2 / o->gang * o->gang : 0,
	       o->gang, r->create_s, (double)o->pods / r->create_s);
	printf("replica: synced cache %.2f s after start (its log); peak "
	       "memory (VmHWM) %.1f MiB\n",
	       r->sync_s, (double)r->hwm_kib / 1024);
	printf("binding: all %" PRIu64 " pods bound %.2f s after start "
	       "(%.0f/s end to end); %.0f/s from the first bind to the "
	       "last; %s\n",
	       o->pods, r->all_bound_s, e2e, rate,
	       o->no_pod_start ? "pods not started (--no-pod-start)"
			       : "each pod started by its node's kubelet");
	if (o->failover)
		printf("failover: the follower's first bind %.2f s after the "
		       "leader was killed (SIGKILL); elected after %.2f s, "
		       "its first pass done after %.2f s\n",
		       r->failover_s, r->elected_s, r->pass_s);
}

static int run(const struct kube_bench_opts *o)
{
	struct bench_daemon cl = { 0 }, a = { 0 }, b = { 0 };
	struct seen s = { .npods = o->pods };
	struct results r = { 0 };
	uint64_t extra =
		o->pods / 10 < FAILOVER_MAX ? o->pods / 10 : FAILOVER_MAX;
	char err[512] = "";
	char *dir = bench_tmpdir("/tmp/echelon-bench-kube"), *alog = NULL;
	double t0;
	int rc = 1;

	if (!extra)
		extra = 1;
	s.nextra = o->failover ? extra : 0;
	s.bound = xcalloc(s.npods + s.nextra, sizeof(*s.bound));
	if (!dir || start_cluster(o, dir, &cl, &r.nodes) < 0 ||
	    bench_daemon_ready(&cl, READY_S) < 0) {
		snprintf(err, sizeof(err), "the cluster did not become ready");
		goto out;
	}
	if (post(cl.port, "/api/v1/namespaces",
		 "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
		 "\"metadata\":{\"name\":\"" NS "\"}}",
		 err, sizeof(err)) < 0 ||
	    post(cl.port, KUEUE "/clusterqueues", cluster_queue, err,
		 sizeof(err)) < 0 ||
	    post(cl.port, KUEUE "/namespaces/" NS "/localqueues", local_queue,
		 err, sizeof(err)) < 0)
		goto out;
	t0 = cli_now_s();
	if (create_pods(o, cl.port, 'p', o->pods,
			o->gang ? o->pods / 2 / o->gang * o->gang : 0, err,
			sizeof(err)) < 0)
		goto out;
	r.create_s = cli_now_s() - t0;
	s.port = cl.port;
	s.from_rv = pods_rv(cl.port);
	BUG_ON(pthread_create(&s.t, NULL, watch_thread, &s));

	t0 = cli_now_s();
	alog = xasprintf("%s/a.log", dir);
	if (start_replica(o, dir, "a", &a) < 0 ||
	    wait_synced(&a, alog, READY_S, &r.sync_s) < 0) {
		snprintf(err, sizeof(err), "replica a did not sync");
		goto out;
	}
	if (wait_for(&s, some_bound, (double)o->seconds) < 0) {
		snprintf(err, sizeof(err),
			 "replica a bound nothing in %" PRIu64 " s",
			 o->seconds);
		goto out;
	}
	/* The follower starts once a leads. */
	if (o->failover && start_replica(o, dir, "b", &b) < 0) {
		snprintf(err, sizeof(err), "cannot start replica b");
		goto out;
	}
	if (wait_for(&s, all_bound, (double)o->seconds) < 0) {
		if (s.failed) /* the count stopped, not the binding */
			snprintf(err, sizeof(err),
				 "%" PRIu64 " of %" PRIu64
				 " pods seen bound when the %s",
				 (uint64_t)s.nbound, o->pods, s.error);
		else
			snprintf(err, sizeof(err),
				 "%" PRIu64 " of %" PRIu64
				 " pods bound in %" PRIu64 " s",
				 (uint64_t)s.nbound, o->pods, o->seconds);
		goto out;
	}
	r.all_bound_s = s.last_s - t0;
	r.bind_s = s.last_s - s.first_s;
	r.hwm_kib = bench_daemon_hwm_kib(&a);
	if (o->failover) {
		double kill_s;

		if (bench_daemon_ready(&b, READY_S) < 0) {
			snprintf(err, sizeof(err), "replica b did not sync");
			goto out;
		}
		kill_s = cli_now_s();
		bench_daemon_stop(&a, true);
		if (create_pods(o, cl.port, 'f', extra, 0, err, sizeof(err)) <
		    0)
			goto out;
		if (wait_for(&s, extra_bound, (double)o->seconds) < 0 ||
		    wait_for(&s, all_extra_bound, (double)o->seconds) < 0) {
			snprintf(err, sizeof(err),
				 "after the kill, %" PRIu64 " of %" PRIu64
				 " new pods bound in %" PRIu64 " s",
				 (uint64_t)s.nextra_bound, extra, o->seconds);
			goto out;
		}
		r.failover_s = fmax2(0, s.extra_first_s - kill_s);
		free(alog);
		alog = xasprintf("%s/b.log", dir);
		r.elected_s = log_mono(alog, "leader elected", kill_s);
		r.pass_s = log_mono(alog, "first pass done", kill_s);
	}
	report(o, &r);
	rc = 0;
out:
	if (s.t) {
		s.stop = true;
		/* The watch wakes at its next event or read timeout. */
		bench_daemon_stop(&cl, false);
		pthread_join(s.t, NULL);
	}
	if (rc && s.failed && !err[0])
		snprintf(err, sizeof(err), "%s", s.error);
	bench_daemon_stop(&a, false);
	bench_daemon_stop(&b, false);
	bench_daemon_stop(&cl, false);
	if (rc)
		fprintf(stderr, "echelon bench kube: %s%s%s%s\n", err,
			dir ? " (logs in " : "", dir ? dir : "",
			dir ? ")" : "");
	else
		bench_rmdir(dir);
	free(dir);
	free(alog);
	free(s.bound);
	return rc;
}

static int parse_args(int argc, char **argv, struct kube_bench_opts *o)
{
	static const struct {
		const char *name;
		uint64_t min, max;
	} lim[] = { { "--nodes", 1, 100000 },
		    { "--pods", 1, 1000000 },
		    { "--gang", 0, 1000 },
		    { "--clients", 1, 256 },
		    { "--seconds", 1, 3600 } };
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 0 },
		{ "pods", required_argument, NULL, 1 },
		{ "gang", required_argument, NULL, 2 },
		{ "clients", required_argument, NULL, 3 },
		{ "seconds", required_argument, NULL, 4 },
		{ "no-failover", no_argument, NULL, 5 },
		{ "kube-qps", required_argument, NULL, 6 },
		{ "kube-burst", required_argument, NULL, 7 },
		{ "no-pod-start", no_argument, NULL, 8 },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t *dst[] = { &o->nodes, &o->pods, &o->gang, &o->clients,
			    &o->seconds };
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (opt == 'o') {
			if (strcmp(optarg, "json") && strcmp(optarg, "text"))
				return cli_bad_value("bench kube", "-o", optarg,
						     "json or text");
			o->json = !strcmp(optarg, "json");
		} else if (opt == 5) {
			o->failover = false;
		} else if (opt == 8) {
			o->no_pod_start = true;
		} else if (opt == 6 || opt == 7) {
			char *end;
			double v = strtod(optarg, &end);

			if (end == optarg || *end || !(v >= 1) || v > 1e6)
				return cli_bad_value(
					"bench kube",
					opt == 6 ? "--kube-qps"
						 : "--kube-burst",
					optarg, "a number from 1 to 1000000");
			*(opt == 6 ? &o->qps : &o->burst) = optarg;
		} else if (opt >= 0 && opt < (int)ARRAY_SIZE(lim)) {
			if (cli_parse_u64(optarg, lim[opt].min, lim[opt].max,
					  dst[opt]) < 0)
				return cli_bad_value("bench kube",
						     lim[opt].name, optarg,
						     "a number in range");
		} else {
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "echelon bench kube: unexpected '%s'\n",
			cli_quote(argv[optind]));
		return -1;
	}
	return 0;
}

int cli_bench_kube(int argc, char **argv)
{
	struct kube_bench_opts o = { .nodes = 5000,
				     .pods = 50000,
				     .gang = 8,
				     .clients = 8,
				     .seconds = 120,
				     .failover = true };

	if (argc > 1 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: echelon bench kube [--nodes N] [--pods P] "
		       "[--gang G] [--clients C]\n"
		       "                          [--seconds S] "
		       "[--no-failover] [--kube-qps X] [--kube-burst N]\n"
		       "                          [--no-pod-start] [-o "
		       "json]\n\n"
		       "Starts a cluster (`echelon serve --no-schedule`, N "
		       "generated nodes,\ndefault 5,000), creates P pods of "
		       "scheduler echelon through its API\n(default 50,000; "
		       "half in PodGroups of G, default 8, 0 for none) with "
		       "C\nconnections (default 8), then starts a scheduler "
		       "replica (`echelon serve\n--kubeconfig`) and measures "
		       "the time to its synced cache, its peak memory,\nand "
		       "the pods bound per second end to end. Unless "
		       "--no-failover, a second\nreplica follows on the same "
		       "Lease; the first is killed with SIGKILL and the\n"
		       "time to the second's first bind of new pods is "
		       "measured. Each wait gives\nup after S seconds "
		       "(default 120). --kube-qps and --kube-burst go to the "
		       "replicas (their\nclient's rate limit; the daemon's "
		       "defaults otherwise). --no-pod-start: the\ncluster's "
		       "kubelets do not start the pods bound (they stay "
		       "Pending), as in\nkube-scheduler's scheduler_perf; by "
		       "default each is started, its status\nwritten twice "
		       "and its Events recorded, on the same machine.\n");
		return 0;
	}
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	return run(&o);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The embedded cluster's controllers over the store alone (no HTTP, no
 * database): JOBS Indexed Jobs of PODS pods on NODES nodes, from creation
 * to Complete and the Events' expiry, every pod bound as soon as it exists
 * (the nodes' Leases are renewed meanwhile, every 10 s, as ever after).
 * Prints one JSON object: CPU seconds to create the pods and to run them
 * (bind, start, finish, count), writes and sync passes.
 *
 *   build/bench_serve_cluster [JOBS [PODS [NODES]]]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/vec.h"
#include "serve/serve_cluster.h"

#define T0 1796130000000000LL /* 2026-12-01T13:00:00Z */

struct run {
	struct api_store *s;
	struct serve_cluster *c;
	int64_t now;
	long writes, syncs;
};

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void settle(struct run *r)
{
	int w;

	while ((w = serve_cluster_sync(r->c, r->now)) > 0) {
		r->writes += w;
		r->syncs++;
	}
}

static void create(struct run *r, const char *kind, const char *fmt, int i,
		   int n)
{
	const struct api_kind *k = !strcmp(kind, "Job")
					   ? api_kind_of("batch/v1", "Job")
					   : api_kind_of("v1", "Node");
	char buf[1024];
	json_t *o;

	snprintf(buf, sizeof(buf), fmt, i, n, n);
	o = json_loads(buf, 0, NULL);
	if (!o || api_store_create(r->s, k, o, r->now, NULL) != 0) {
		fprintf(stderr, "bench_serve_cluster: cannot create %s\n",
			kind);
		exit(1);
	}
}

struct unbound {
	VEC(char *) names;
};

static int collect(void *ctx, const struct api_obj *o)
{
	struct unbound *u = ctx;

	if (!json_object_get(json_object_get(o->body, "spec"), "nodeName"))
		vec_push(&u->names, strdup(o->name));
	return 0;
}

static void bind_all(struct run *r, int nodes)
{
	struct unbound u = { VEC_INIT };
	struct errbuf err;
	char node[32];

	(void)api_store_each(r->s, api_kind_of("v1", "Pod"), NULL, NULL, NULL,
			     collect, &u);
	for (size_t i = 0; i < u.names.len; i++) {
		snprintf(node, sizeof(node), "n%zu", i % (size_t)nodes);
		if (api_bind(r->s, "default", u.names.items[i], NULL, node,
			     r->now, &err) != 0) {
			fprintf(stderr, "bench_serve_cluster: %s\n", err.msg);
			exit(1);
		}
		free(u.names.items[i]);
	}
	vec_release(&u.names);
}

static int arg(int argc, char **argv, int i, int dflt)
{
	long v;

	if (argc <= i)
		return dflt;
	errno = 0;
	v = strtol(argv[i], NULL, 10);
	if (errno || v <= 0 || v > 1000000) {
		fprintf(stderr, "bench_serve_cluster: bad number: %s\n",
			argv[i]);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	int jobs = arg(argc, argv, 1, 100), pods = arg(argc, argv, 2, 64);
	int nodes = arg(argc, argv, 3, 200);
	struct serve_cluster_options o = { .startup_us = 10000000, .seed = 1 };
	struct run r = { .now = T0 };
	double t0, t1, t2;
	int64_t next;

	r.s = api_store_new(NULL);
	r.c = serve_cluster_new(r.s, &o);
	for (int i = 0; i < nodes; i++)
		create(&r, "Node",
		       "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":"
		       "{\"name\":\"n%d\"},\"status\":{\"capacity\":"
		       "{\"cpu\":\"64\"}}}",
		       i, 0);
	for (int i = 0; i < jobs; i++)
		create(&r, "Job",
		       "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
		       "\"metadata\":{\"name\":\"j%d\",\"namespace\":"
		       "\"default\"},\"spec\":{\"completions\":%d,"
		       "\"parallelism\":%d,\"completionMode\":\"Indexed\","
		       "\"template\":{\"metadata\":{\"annotations\":"
		       "{\"sim.echelon.dev/duration\":\"60s\"}},\"spec\":"
		       "{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":"
		       "\"main\",\"image\":\"busybox\"}]}}}}",
		       i, pods);
	t0 = cpu_s();
	settle(&r);
	t1 = cpu_s();
	bind_all(&r, nodes);
	settle(&r);
	/* Until the last Event has expired: the Leases' renewals never end. */
	while ((next = serve_cluster_next_us(r.c)) != INT64_MAX &&
	       api_store_count(r.s, api_kind_of("v1", "Event")) > 0) {
		if (next > r.now)
			r.now = next;
		settle(&r);
	}
	t2 = cpu_s();
	printf("{\"jobs\":%d,\"pods_per_job\":%d,\"nodes\":%d,"
	       "\"create_cpu_s\":%.3f,\"run_cpu_s\":%.3f,\"writes\":%ld,"
	       "\"syncs\":%ld,\"simulated_s\":%lld}\n",
	       jobs, pods, nodes, t1 - t0, t2 - t1, r.writes, r.syncs,
	       (long long)((r.now - T0) / 1000000));
	serve_cluster_free(r.c);
	api_store_free(r.s);
	return 0;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The reflectors' first sync over the in-process transport: a source
 * store of NODES nodes and PODS pods (bodies shaped like a real cluster's,
 * managedFields included) behind the real api, listed in pages of PAGE
 * into a replica. The api's own cost of answering the pages is measured
 * apart (the same pages fetched and dropped), so the reflector's decoding
 * and mirroring stand alone. Prints one JSON object: CPU seconds, objects
 * a second, and the replica's heap bytes per object.
 *
 *   build/bench_kube_reflect [PODS [NODES [PAGE]]]
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "api/api_kind.h"
#include "api/api_store.h"
#include "base/strbuf.h"
#include "kube/kube_loop.h"
#include "kube/kube_reflect.h"

#define T0 1796130000000000LL /* 2026-12-01T13:00:00Z */

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static size_t heap_bytes(void)
{
	return mallinfo2().uordblks;
}

static json_t *node(int i)
{
	char name[32], rack[16];

	snprintf(name, sizeof(name), "gpu-%05d", i);
	snprintf(rack, sizeof(rack), "r%03d", i / 16);
	return json_pack("{s:s, s:s, s:{s:s, s:{s:s, s:s, s:s}}, s:{s:s},"
			 " s:{s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s},"
			 " s:[{s:s, s:s, s:s}]}}",
			 "apiVersion", "v1", "kind", "Node", "metadata", "name",
			 name, "labels", "kubernetes.io/hostname", name,
			 "cloud.provider.com/topology-rack", rack,
			 "cloud.provider.com/topology-block", "b0", "spec",
			 "providerID", name, "status", "capacity", "cpu", "96",
			 "memory", "1Ti", "nvidia.com/gpu", "8", "pods", "110",
			 "allocatable", "cpu", "95", "memory", "1000Gi",
			 "nvidia.com/gpu", "8", "pods", "110", "conditions",
			 "type", "Ready", "status", "True", "reason",
			 "KubeletReady");
}

static json_t *pod(int i, int nodes)
{
	char name[32], job[32], host[32];

	snprintf(name, sizeof(name), "train-%05d-worker-%d", i / 8, i % 8);
	snprintf(job, sizeof(job), "train-%05d", i / 8);
	snprintf(host, sizeof(host), "gpu-%05d", i % (nodes ? nodes : 1));
	return json_pack(
		"{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s, s:s},"
		" s:[{s:s, s:s, s:s, s:o}]},"
		" s:{s:s, s:s, s:s, s:[{s:s, s:s, s:[s, s],"
		" s:{s:{s:s, s:s}, s:{s:s, s:s}}}], s:s},"
		" s:{s:s, s:[{s:s, s:s}], s:s}}",
		"apiVersion", "v1", "kind", "Pod", "metadata", "name", name,
		"namespace", "team-a", "labels", "batch.kubernetes.io/job-name",
		job, "kueue.x-k8s.io/queue-name", "team-a",
		"scheduling.x-k8s.io/pod-group", job, "managedFields",
		"manager", "kube-controller-manager", "operation", "Update",
		"apiVersion", "v1", "fieldsV1",
		json_pack("{s:{s:{}, s:{}, s:{}}}", "f:metadata", "f:labels",
			  "f:ownerReferences", "f:annotations"),
		"spec", "schedulerName", "echelon", "nodeName", host,
		"restartPolicy", "Never", "containers", "name", "trainer",
		"image", "registry.example.com/train:1.4", "command",
		"torchrun", "train.py", "resources", "requests", "cpu", "12",
		"nvidia.com/gpu", "1", "limits", "cpu", "12", "nvidia.com/gpu",
		"1", "priorityClassName", "high", "status", "phase", "Running",
		"conditions", "type", "PodScheduled", "status", "True", "podIP",
		"10.0.0.1");
}

/* The api's cost alone: every page fetched and dropped. */
struct pager {
	const struct kube_transport *tr;
	const char *base;
	unsigned page;
	char cont[256];
	bool done;
};

static void pager_next(struct pager *p);

static void on_page(void *ctx, const struct kube_reply *r)
{
	struct pager *p = ctx;
	const char *c = strstr(r->body, "\"continue\":\"");

	if (!c) {
		p->done = true;
		return;
	}
	c += strlen("\"continue\":\"");
	snprintf(p->cont, sizeof(p->cont), "%.*s", (int)strcspn(c, "\""), c);
	pager_next(p);
}

static void pager_next(struct pager *p)
{
	char path[512];
	struct kube_call kc = { .method = "GET", .path = path };

	if (p->cont[0])
		snprintf(path, sizeof(path), "%s?limit=%u&continue=%s", p->base,
			 p->page, p->cont);
	else
		snprintf(path, sizeof(path), "%s?limit=%u", p->base, p->page);
	kube_send(p->tr, &kc, on_page, NULL, p);
}

static double serve_only(struct kube_loop *l, const struct kube_transport *tr,
			 unsigned page)
{
	static const char *const bases[] = { "/api/v1/nodes", "/api/v1/pods" };
	double t = cpu_s();

	for (size_t i = 0; i < 2; i++) {
		struct pager p = { .tr = tr, .base = bases[i], .page = page };

		pager_next(&p);
		while (!p.done)
			kube_loop_run(l, T0);
	}
	return cpu_s() - t;
}

int main(int argc, char **argv)
{
	int pods = argc > 1 ? atoi(argv[1]) : 50000;
	int nodes = argc > 2 ? atoi(argv[2]) : 5000;
	unsigned page = argc > 3 ? (unsigned)atoi(argv[3]) : 500;
	struct api_store *src = api_store_new(NULL), *rep;
	struct api_hooks h = { .git_version = "v1.35.0" };
	struct api *a = api_new(src, &h);
	struct kube_loop *l = kube_loop_new(a);
	struct kube_transport tr = kube_loop_transport(l);
	struct kube_reflect_options o = { .tr = &tr, .page = page, .seed = 1 };
	struct kube_reflect *r;
	double t_serve, t_sync;
	size_t heap0, heap1;
	int64_t now = T0;
	size_t heap_src = heap_bytes();
	int rc = 0;

	for (int i = 0; i < nodes && !rc; i++)
		rc = api_store_create(src, api_kind_at(API_KIND_NODE), node(i),
				      T0, NULL);
	for (int i = 0; i < pods && !rc; i++)
		rc = api_store_create(src, api_kind_at(API_KIND_POD),
				      pod(i, nodes), T0, NULL);
	if (rc) {
		fprintf(stderr, "bench_kube_reflect: create: %d\n", rc);
		return 1;
	}
	heap_src = heap_bytes() - heap_src;
	t_serve = serve_only(l, &tr, page);
	heap0 = heap_bytes();
	rep = api_store_new(NULL);
	o.store = rep;
	r = kube_reflect_new(&o);
	t_sync = cpu_s();
	while (!kube_reflect_synced(r)) {
		kube_reflect_run(r, now);
		kube_loop_run(l, now);
		now += 1000;
	}
	t_sync = cpu_s() - t_sync;
	heap1 = heap_bytes();
	printf("{\"pods\":%d,\"nodes\":%d,\"page\":%u,"
	       "\"sync_cpu_s\":%.3f,\"api_cpu_s\":%.3f,"
	       "\"reflect_cpu_s\":%.3f,\"objects_per_s\":%.0f,"
	       "\"reflect_objects_per_s\":%.0f,\"replica_bytes_per_object\":"
	       "%.0f,\"source_bytes_per_object\":%.0f,\"replica_pods\":%zu}\n",
	       pods, nodes, page, t_sync, t_serve, t_sync - t_serve,
	       (pods + nodes) / t_sync, (pods + nodes) / (t_sync - t_serve),
	       (double)(heap1 - heap0) / (pods + nodes),
	       (double)heap_src / (pods + nodes),
	       api_store_count(rep, api_kind_at(API_KIND_POD)));
	kube_reflect_free(r);
	kube_loop_free(l);
	api_free(a);
	api_store_free(rep);
	api_store_free(src);
	return 0;
}

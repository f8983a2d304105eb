// SPDX-License-Identifier: Apache-2.0
/*
 * The embedded cluster's simulated dcgm-exporter: GPU signals per node and
 * GPU derived from the stored Nodes and Pods (which pod holds which GPU,
 * whether it runs) and a node's sim.echelon.dev/gpu-fault, written under
 * dcgm-exporter's names for /metrics/dcgm and read in-process by explain's
 * hardware layer. Same store, same bytes: no randomness, no clock.
 */
#include "serve/serve_dcgm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/metrics.h"
#include "base/vec.h"
#include "serve/serve_cluster_int.h"

#include "base/banned.h"

#define GPU_RES	   "nvidia.com/gpu"
#define PRODUCT	   "nvidia.com/gpu.product"
#define IDLE_CLOCK 345 /* MHz */
#define MAX_XID	   1000
#define MAX_TEMP_C 150

/* A whole count from a quantity that is a JSON integer or a plain
 * decimal string ("8"); 0 otherwise. */
static int64_t count_of(const json_t *v)
{
	const char *s = json_string_value(v);
	char *end;
	long long n;

	if (json_is_integer(v))
		return json_integer_value(v) > 0 ? json_integer_value(v) : 0;
	if (!s || !*s)
		return 0;
	n = strtoll(s, &end, 10);
	return *end == '\0' && n > 0 ? n : 0;
}

static int parse_int(const char *key, const char *v, int32_t lo, int32_t hi,
		     int32_t *ret, struct errbuf *err)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || *end != '\0' || n < lo || n > hi)
		return errbuf_set(err, -EINVAL,
				  "%s: must be a whole number from %d to %d, "
				  "not \"%s\"",
				  key, lo, hi, v);
	*ret = (int32_t)n;
	return 0;
}

static int parse_pair(char *kv, struct serve_dcgm_fault *f, struct errbuf *err)
{
	char *eq = strchr(kv, '='), *end;
	const char *v;

	if (!eq)
		return errbuf_set(err, -EINVAL,
				  "\"%s\": expected KEY=VALUE (xid, temp, "
				  "slowdown, gpu)",
				  kv);
	*eq = '\0';
	v = eq + 1;
	if (strcmp(kv, "xid") == 0)
		return parse_int("xid", v, 1, MAX_XID, &f->xid, err);
	if (strcmp(kv, "temp") == 0)
		return parse_int("temp", v, 1, MAX_TEMP_C, &f->temp_c, err);
	if (strcmp(kv, "gpu") == 0)
		return parse_int("gpu", v, 0, SERVE_DCGM_MAX_GPUS - 1, &f->gpu,
				 err);
	if (strcmp(kv, "slowdown") == 0) {
		f->slowdown = strtod(v, &end);
		if (end == v || *end != '\0' || !(f->slowdown > 0) ||
		    f->slowdown > 1)
			return errbuf_set(err, -EINVAL,
					  "slowdown: must be a number above 0 "
					  "and at most 1, not \"%s\"",
					  v);
		return 0;
	}
	return errbuf_set(err, -EINVAL,
			  "unknown key \"%s\" (expected xid, temp, slowdown, "
			  "gpu)",
			  kv);
}

int serve_dcgm_fault_parse(const char *s, struct serve_dcgm_fault *ret,
			   struct errbuf *err)
{
	struct serve_dcgm_fault f = { .set = true,
				      .slowdown = 1,
				      .since_us = -1 };
	char *copy = xstrdup(s), *save = NULL;
	int rc = 0, n = 0;

	for (char *kv = strtok_r(copy, ",", &save); kv && !rc;
	     kv = strtok_r(NULL, ",", &save)) {
		while (*kv == ' ')
			kv++;
		rc = parse_pair(kv, &f, err);
		n++;
	}
	if (!rc && !n)
		rc = errbuf_set(err, -EINVAL,
				"empty: give xid=CODE, temp=CELSIUS or "
				"slowdown=FACTOR");
	free(copy);
	if (!rc)
		*ret = f;
	return rc;
}

int serve_dcgm_node_fault(const json_t *node, struct serve_dcgm_fault *ret,
			  struct errbuf *err)
{
	const json_t *ann = cl_get(node, "metadata.annotations");
	const char *v =
		json_string_value(json_object_get(ann, SERVE_DCGM_FAULT_ANN));
	const char *since =
		json_string_value(json_object_get(ann, SERVE_DCGM_SINCE_ANN));
	int rc;

	memset(ret, 0, sizeof(*ret));
	ret->slowdown = 1;
	ret->since_us = -1;
	if (!v)
		return 0;
	rc = serve_dcgm_fault_parse(v, ret, err);
	if (rc)
		return rc;
	if (since && (ret->since_us = cl_parse_time(since)) < 0)
		ret->since_us = -1;
	return 0;
}

double serve_dcgm_slowdown(const json_t *node)
{
	struct serve_dcgm_fault f;

	if (serve_dcgm_node_fault(node, &f, NULL) != 0)
		return 1;
	return f.slowdown;
}

/* ---- one node's GPUs ---- */

static uint64_t gpu_hash(const char *node, uint32_t i)
{
	return hmap_hash_more(hmap_hash(node, strlen(node)), &i, sizeof(i));
}

/* The GPUs container ctr of a pod asks for (limits, else requests). */
static int64_t container_gpus(const json_t *ctr)
{
	int64_t n = count_of(
		json_object_get(cl_get(ctr, "resources.limits"), GPU_RES));

	return n ? n
		 : count_of(json_object_get(cl_get(ctr, "resources.requests"),
					    GPU_RES));
}

static bool pod_terminal(const json_t *pod)
{
	const char *p = cl_str(pod, "status.phase");

	return p && (strcmp(p, "Succeeded") == 0 || strcmp(p, "Failed") == 0);
}

/* Give pod's containers the node's next free GPUs. */
static void allocate(struct serve_dcgm_node *n, const struct api_obj *pod,
		     uint32_t *next)
{
	const char *phase = cl_str(pod->body, "status.phase");
	bool busy = phase && strcmp(phase, "Running") == 0;
	size_t i;
	json_t *ctr;

	json_array_foreach(cl_get(pod->body, "spec.containers"), i, ctr)
	{
		int64_t want = container_gpus(ctr);

		for (int64_t k = 0; k < want && *next < n->ngpus; k++) {
			struct serve_dcgm_gpu *g = &n->gpus[(*next)++];

			g->ns = pod->ns;
			g->pod = pod->name;
			g->container = cl_str(ctr, "name");
			g->busy = busy;
		}
	}
}

/* The signals of each GPU from its allocation and the node's fault. */
static void signals(struct serve_dcgm_node *n)
{
	const struct serve_dcgm_fault *f = &n->fault;

	for (uint32_t i = 0; i < n->ngpus; i++) {
		struct serve_dcgm_gpu *g = &n->gpus[i];
		uint64_t h = gpu_hash(n->name, i);
		bool faulty = f->set && (int32_t)i == f->gpu;

		g->index = i;
		snprintf(g->uuid, sizeof(g->uuid),
			 "GPU-%08llx-%04llx-%04llx-%04llx-%012llx",
			 (unsigned long long)(h & 0xffffffff),
			 (unsigned long long)(h >> 32 & 0xffff),
			 (unsigned long long)(h >> 48),
			 (unsigned long long)(h >> 8 & 0xffff),
			 (unsigned long long)((h * 0x9e3779b97f4a7c15ULL) &
					      0xffffffffffffULL));
		if (g->busy) {
			g->util = 95 + (int32_t)(h % 5);
			g->temp_c = 66 + (int32_t)(h >> 4 & 7) % 7;
			g->sm_clock = (int32_t)lround(SERVE_DCGM_SM_CLOCK_MHZ *
						      f->slowdown);
			g->power_w = (590 + (double)(h >> 12 & 63)) *
				     (f->set ? f->slowdown : 1);
		} else {
			g->util = 0;
			g->temp_c = 30 + (int32_t)(h >> 4 & 7) % 6;
			g->sm_clock = IDLE_CLOCK;
			g->power_w = 65 + (double)(h >> 12 & 15);
		}
		g->power_w = round(g->power_w * 10) / 10;
		if (faulty && f->temp_c)
			g->temp_c = f->temp_c;
		g->xid = faulty ? f->xid : 0;
	}
}

static void node_init(struct serve_dcgm_node *n, const struct api_obj *node)
{
	int64_t gpus = count_of(json_object_get(
		cl_get(node->body, "status.capacity"), GPU_RES));
	const char *model = json_string_value(json_object_get(
		cl_get(node->body, "metadata.labels"), PRODUCT));

	memset(n, 0, sizeof(*n));
	n->name = node->name;
	n->model = model ? model : SERVE_DCGM_MODEL;
	n->ngpus = (uint32_t)(gpus < SERVE_DCGM_MAX_GPUS ? gpus
							 : SERVE_DCGM_MAX_GPUS);
	if (serve_dcgm_node_fault(node->body, &n->fault, NULL) != 0) {
		n->fault.set = false; /* the kubelet warned about it */
		n->fault.slowdown = 1;
	}
}

static bool on_node(const struct api_obj *pod, const char *node)
{
	const char *n = cl_str(pod->body, "spec.nodeName");

	return n && strcmp(n, node) == 0 && !pod_terminal(pod->body);
}

struct one {
	struct serve_dcgm_node *n;
	uint32_t next;
};

static int one_pod(void *ctx, const struct api_obj *pod)
{
	struct one *o = ctx;

	if (on_node(pod, o->n->name))
		allocate(o->n, pod, &o->next);
	return 0;
}

int serve_dcgm_node(const struct api_store *s, const char *name,
		    struct serve_dcgm_node *ret)
{
	const struct api_kind *nk = api_kind_of("v1", "Node");
	const struct api_kind *pk = api_kind_of("v1", "Pod");
	const struct api_obj *node = api_store_get(s, nk, "", name);
	struct one o = { .n = ret };

	if (!node)
		return -ENOENT;
	node_init(ret, node);
	(void)api_store_each(s, pk, NULL, NULL, NULL, one_pod, &o);
	signals(ret);
	return 0;
}

/* ---- the exporter's text ---- */

enum { F_CLOCK, F_TEMP, F_POWER, F_UTIL, F_XID, F_COUNT };

static const struct metrics_def defs[F_COUNT] = {
	[F_CLOCK] = { "DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).",
		      METRICS_GAUGE, NULL, 0 },
	[F_TEMP] = { "DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).",
		     METRICS_GAUGE, NULL, 0 },
	[F_POWER] = { "DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).",
		      METRICS_GAUGE, NULL, 0 },
	[F_UTIL] = { "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).",
		     METRICS_GAUGE, NULL, 0 },
	[F_XID] = { "DCGM_FI_DEV_XID_ERRORS",
		    "Value of the last XID error encountered.", METRICS_GAUGE,
		    NULL, 0 },
};

struct all {
	struct hmap index; /* node name -> position in nodes */
	VEC(struct one) nodes;
};

static int add_node(void *ctx, const struct api_obj *node)
{
	struct all *a = ctx;
	struct one *o;

	hmap_put_str(&a->index, node->name, (int64_t)a->nodes.len);
	o = vec_push_zero(&a->nodes);
	o->n = xmalloc(sizeof(*o->n));
	node_init(o->n, node);
	return 0;
}

static int add_pod(void *ctx, const struct api_obj *pod)
{
	struct all *a = ctx;
	const char *node = cl_str(pod->body, "spec.nodeName");
	int64_t i;

	if (node && !pod_terminal(pod->body) &&
	    hmap_get_str(&a->index, node, &i))
		allocate(a->nodes.items[i].n, pod, &a->nodes.items[i].next);
	return 0;
}

static void write_gpu(struct metrics *m, const int *ids,
		      const struct serve_dcgm_node *n,
		      const struct serve_dcgm_gpu *g)
{
	char gpu[16], dev[24];
	const char *labels[] = { "gpu",
				 gpu,
				 "UUID",
				 g->uuid,
				 "device",
				 dev,
				 "modelName",
				 n->model,
				 "Hostname",
				 n->name,
				 g->pod ? "container" : NULL,
				 g->container ? g->container : "",
				 "namespace",
				 g->ns,
				 "pod",
				 g->pod,
				 NULL };

	snprintf(gpu, sizeof(gpu), "%u", g->index);
	snprintf(dev, sizeof(dev), "nvidia%u", g->index);
	metrics_set(m, ids[F_CLOCK], labels, g->sm_clock);
	metrics_set(m, ids[F_TEMP], labels, g->temp_c);
	metrics_set(m, ids[F_POWER], labels, g->power_w);
	metrics_set(m, ids[F_UTIL], labels, g->util);
	metrics_set(m, ids[F_XID], labels, g->xid);
}

void serve_dcgm_metrics(const struct api_store *s, struct strbuf *out)
{
	struct metrics *m = metrics_new();
	struct all a = { .nodes = VEC_INIT };
	int ids[F_COUNT];

	hmap_init(&a.index);
	metrics_register(m, defs, F_COUNT, ids);
	(void)api_store_each(s, api_kind_of("v1", "Node"), NULL, NULL, NULL,
			     add_node, &a);
	(void)api_store_each(s, api_kind_of("v1", "Pod"), NULL, NULL, NULL,
			     add_pod, &a);
	for (size_t i = 0; i < a.nodes.len; i++) {
		struct serve_dcgm_node *n = a.nodes.items[i].n;

		signals(n);
		for (uint32_t g = 0; g < n->ngpus; g++)
			write_gpu(m, ids, n, &n->gpus[g]);
		free(n);
	}
	metrics_write(m, out);
	metrics_free(m);
	vec_release(&a.nodes);
	hmap_release(&a.index);
}

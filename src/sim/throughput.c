// SPDX-License-Identifier: Apache-2.0
/*
 * The alpha-beta all-reduce model behind the simulator's placement costs:
 * shapes of placements (hosts, racks, blocks, GPUs per host), the ideal
 * packing of a gang, ring and hierarchical all-reduce times, and the
 * throughput ratio of a placement. Latencies and bandwidths are combined
 * monotonically (the worst latency and the narrowest link over every level
 * crossed), so spreading a gang wider can never make it faster, whatever
 * the configured figures.
 */
#include "sim/throughput.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "model/label.h"

#include "base/banned.h"

/*
 * The figures, their defaults and the ranges their sources give; the
 * references in full are in docs/internals/simulator.md. Where a source
 * gives a range the default is its middle, unless the row says why not.
 */
static const struct throughput_param params[] = {
	{ "bw-host", 367.61, 367.61, 482.3, "GB/s",
	  "8xH200 all-reduce busbw, ring (default) to NVLS; ml-engineering "
	  "2025" },
	{ "bw-rack", 43.5, 40, 47.1, "GB/s",
	  "400G NDR rail at ~80 % (ml-engineering) to 376.7 GB/s per 8 rails "
	  "measured" },
	{ "bw-block", 43.5, 40, 47.1, "GB/s", "as bw-rack" },
	{ "bw-cluster", 43.5, 40, 47.1, "GB/s", "as bw-rack" },
	{ "lat-host", 1.3, 1.3, 2.9, "us",
	  "32 KiB all-reduce in 14 steps, back-to-back (default) to single "
	  "calls; ml-engineering" },
	{ "lat-rack", 1.6, 1.6, 1.6, "us",
	  "32 KiB all-reduce in 62 steps on 4 nodes; ml-engineering" },
	{ "lat-block", 2.6, 2.6, 2.6, "us",
	  "lat-rack + 2 links of 0.5 us; SimAI topology defaults" },
	{ "lat-cluster", 3.6, 3.6, 3.6, "us",
	  "lat-block + 2 links of 0.5 us; SimAI topology defaults" },
	{ "oversub-host", 1, 1, 1, "", "NVSwitch: all GPUs equidistant" },
	{ "oversub-rack", 1, 1, 1, "",
	  "non-blocking leaf: NVIDIA HGX reference architecture" },
	{ "oversub-block", 1.5, 1, 2, "",
	  "non-blocking (NVIDIA RA, Meta AI Zone) to 2:1 (Cornelis CN5000)" },
	{ "oversub-cluster", 4, 3, 5, "",
	  "1:3 to 1:5 convergence above the pod (leaf-spine practice)" },
	{ "grad", 1073741824.0, 1073741824.0, 1073741824.0, "bytes",
	  "bf16 gradients of ~537M parameters (worked example)" },
	{ "compute", 0, 0, 0, "us", "0: from the shares" },
	{ "comm-fraction", 0, 0, 0.5, "",
	  "0: per class; else one share for every job (0.05 to 0.5 tried)" },
	{ "overlap", 0, 0, 0, "",
	  "the shares are exposed (unhidden) communication already" },
	{ "share-data", 0.21, 0.1, 0.32, "",
	  "Horovod 2018: 90 % to 68 % scaling efficiency on 512 GPUs" },
	{ "share-tensor", 0.4, 0.3, 0.5, "",
	  "LLM DP+TP 0.3-0.5 (traces-and-models 2.6); MegaScale 2024" },
	{ "share-pipeline", 0.125, 0.05, 0.2, "",
	  "echelon's assumption: activations only cross hosts; sweep it" },
	{ "tensor-from", 64, 64, 64, "GPUs",
	  "echelon's convention: 8 full hosts and up train like LLMs" },
};

static const char *const level_names[THROUGHPUT_LEVEL_COUNT] = { "host", "rack",
								 "block",
								 "cluster" };

static const char *const class_names[THROUGHPUT_CLASS_COUNT] = {
	"data",
	"tensor",
	"pipeline",
};

size_t throughput_param_count(void)
{
	return ARRAY_SIZE(params);
}

const struct throughput_param *throughput_param_at(size_t i)
{
	return i < ARRAY_SIZE(params) ? &params[i] : NULL;
}

/* The field of c a numeric key names, and its least value; NULL when
 * none. */
static double *field_of(struct throughput_config *c, const char *k, size_t n,
			double *min);

void throughput_config_init(struct throughput_config *c)
{
	*c = (struct throughput_config){ .algo = THROUGHPUT_RING };
	for (size_t i = 0; i < ARRAY_SIZE(params); i++) {
		double min, *f = field_of(c, params[i].key,
					  strlen(params[i].key), &min);

		BUG_ON(!f);
		*f = params[i].def;
	}
}

int throughput_get(const struct throughput_config *c, const char *key,
		   double *ret)
{
	double min, *f;

	/* field_of() only computes an address in c */
	f = field_of((struct throughput_config *)c, key, strlen(key), &min);
	if (!f)
		return -ENOENT;
	*ret = *f;
	return 0;
}

enum throughput_class throughput_class_of(const struct throughput_config *c,
					  enum throughput_class k, int64_t gpus)
{
	if (k < THROUGHPUT_CLASS_COUNT)
		return k;
	if (c->tensor_from > 0 && (double)gpus >= c->tensor_from)
		return THROUGHPUT_TENSOR;
	return THROUGHPUT_DATA;
}

const char *throughput_class_name(enum throughput_class k)
{
	return k < THROUGHPUT_CLASS_COUNT ? class_names[k] : "";
}

int throughput_class_parse(const char *name, size_t len,
			   enum throughput_class *ret)
{
	for (int k = 0; k < THROUGHPUT_CLASS_COUNT; k++) {
		if (strlen(class_names[k]) == len &&
		    memcmp(class_names[k], name, len) == 0) {
			*ret = (enum throughput_class)k;
			return 0;
		}
	}
	return -EINVAL;
}

void throughput_reference_shape(struct throughput_shape *ret)
{
	*ret = (struct throughput_shape){ .gpus = 16,
					  .hosts = 2,
					  .racks = 1,
					  .blocks = 1,
					  .host_gpus_min = 8,
					  .host_gpus_max = 8 };
}

/* The value of a key, a finite number >= min; -EINVAL otherwise. */
static int number(const char *v, size_t n, double min, double *ret)
{
	char buf[64], *end;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, v, n);
	buf[n] = '\0';
	*ret = strtod(buf, &end);
	if (*end || !isfinite(*ret) || *ret < min)
		return -EINVAL;
	return 0;
}

/* bw-<level>, lat-<level>, oversub-<level>: the field and the level. */
static double *link_field(struct throughput_config *c, const char *k, size_t n,
			  double *min)
{
	static const char *const prefix[] = { "bw-", "lat-", "oversub-" };

	for (int f = 0; f < 3; f++) {
		size_t pl = strlen(prefix[f]);

		if (n <= pl || memcmp(k, prefix[f], pl) != 0)
			continue;
		for (int l = 0; l < THROUGHPUT_LEVEL_COUNT; l++) {
			struct throughput_link *x = &c->link[l];

			if (strlen(level_names[l]) != n - pl ||
			    memcmp(level_names[l], k + pl, n - pl) != 0)
				continue;
			*min = f == 2 ? 1 : 0;
			return f == 0	? &x->bw_gbps
			       : f == 1 ? &x->alpha_us
					: &x->oversub;
		}
	}
	return NULL;
}

static bool key_is(const char *k, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(k, name, n) == 0;
}

static double *field_of(struct throughput_config *c, const char *k, size_t n,
			double *min)
{
	double *f = link_field(c, k, n, min);
	enum throughput_class cls;

	if (f)
		return f;
	*min = 0;
	if (key_is(k, n, "grad"))
		return &c->grad_bytes;
	if (key_is(k, n, "comm-fraction"))
		return &c->comm_fraction;
	if (key_is(k, n, "overlap"))
		return &c->overlap;
	if (key_is(k, n, "compute"))
		return &c->compute_us;
	if (key_is(k, n, "tensor-from"))
		return &c->tensor_from;
	if (n > 6 && memcmp(k, "share-", 6) == 0 &&
	    throughput_class_parse(k + 6, n - 6, &cls) == 0)
		return &c->share[cls];
	return NULL;
}

int throughput_set_key(struct throughput_config *c, const char *key,
		       size_t klen, const char *val, size_t vlen,
		       struct errbuf *eb)
{
	double min = 0, v, *field = field_of(c, key, klen, &min);

	if (klen == 4 && memcmp(key, "algo", 4) == 0) {
		for (int a = 0; a < THROUGHPUT_ALGO_COUNT; a++) {
			const char *name =
				throughput_algo_name((enum throughput_algo)a);

			if (strlen(name) == vlen &&
			    memcmp(name, val, vlen) == 0) {
				c->algo = (enum throughput_algo)a;
				return 0;
			}
		}
		return errbuf_set(eb, -EINVAL,
				  "must be ring or hierarchical, not \"%.*s\"",
				  (int)(vlen > 32 ? 32 : vlen), val);
	}
	if (!field)
		return -ENOENT;
	if (number(val, vlen, min, &v) < 0)
		return errbuf_set(eb, -EINVAL,
				  "must be a number of at least %g, not "
				  "\"%.*s\"",
				  min, (int)(vlen > 32 ? 32 : vlen), val);
	*field = v;
	return 0;
}

int throughput_parse(const char *text, const char *origin,
		     struct throughput_config *c, struct errbuf *eb)
{
	struct throughput_config x = *c;
	size_t len = strlen(text), off = 0;

	while (off <= len) {
		const char *comma = memchr(text + off, ',', len - off);
		size_t end = comma ? (size_t)(comma - text) : len;
		const char *eq = memchr(text + off, '=', end - off);
		struct errbuf kb = { 0 };
		size_t kl;
		int rc;

		if (!eq)
			return errbuf_set(eb, -EINVAL,
					  "%s:1:%zu: expected key=value",
					  origin, off + 1);
		kl = (size_t)(eq - text) - off;
		rc = throughput_set_key(&x, text + off, kl, eq + 1,
					end - off - kl - 1, &kb);
		if (rc == -ENOENT)
			return errbuf_set(eb, -EINVAL,
					  "%s:1:%zu: %.*s: unknown key "
					  "(expected " THROUGHPUT_KEYS ")",
					  origin, off + 1, (int)kl, text + off);
		if (rc < 0)
			return errbuf_set(eb, -EINVAL, "%s:1:%zu: %.*s: %s",
					  origin, off + kl + 2, (int)kl,
					  text + off, kb.msg);
		off = end + 1;
	}
	if (throughput_config_check(&x, eb) < 0) {
		char m[ERRBUF_SIZE];

		snprintf(m, sizeof(m), "%s", eb->msg);
		return errbuf_set(eb, -EINVAL, "%s:1:1: %s", origin, m);
	}
	*c = x;
	return 0;
}

int throughput_config_check(const struct throughput_config *c,
			    struct errbuf *eb)
{
	for (int l = 0; l < THROUGHPUT_LEVEL_COUNT; l++) {
		const struct throughput_link *k = &c->link[l];

		if (!(k->bw_gbps > 0) || isinf(k->bw_gbps))
			return errbuf_set(eb, -EINVAL,
					  "link.%s.bandwidth: must be positive",
					  level_names[l]);
		if (!(k->alpha_us >= 0) || isinf(k->alpha_us))
			return errbuf_set(eb, -EINVAL,
					  "link.%s.latency: must be >= 0",
					  level_names[l]);
		if (!(k->oversub >= 1) || isinf(k->oversub))
			return errbuf_set(eb, -EINVAL,
					  "link.%s.oversubscription: must be "
					  ">= 1",
					  level_names[l]);
	}
	if (c->algo >= THROUGHPUT_ALGO_COUNT)
		return errbuf_set(eb, -EINVAL, "algorithm: unknown");
	if (!(c->grad_bytes >= 0) || isinf(c->grad_bytes))
		return errbuf_set(eb, -EINVAL, "gradientBytes: must be >= 0");
	if (isnan(c->compute_us) || isinf(c->compute_us))
		return errbuf_set(eb, -EINVAL, "computeTime: must be finite");
	if (!(c->comm_fraction >= 0 && c->comm_fraction <= 1))
		return errbuf_set(eb, -EINVAL,
				  "commFraction: must be 0 (per class) or in "
				  "(0, 1]");
	for (int k = 0; k < THROUGHPUT_CLASS_COUNT; k++) {
		if (!(c->share[k] > 0 && c->share[k] < 1))
			return errbuf_set(eb, -EINVAL,
					  "share.%s: must be in (0, 1)",
					  class_names[k]);
	}
	if (!(c->tensor_from >= 0) || isinf(c->tensor_from))
		return errbuf_set(eb, -EINVAL, "tensorFrom: must be >= 0");
	if (!(c->overlap >= 0 && c->overlap <= 1))
		return errbuf_set(eb, -EINVAL, "overlap: must be in [0, 1]");
	return 0;
}

static int path_cmp(const void *pa, const void *pb)
{
	const struct throughput_pod *a = pa, *b = pb;

	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->rack != b->rack)
		return a->rack < b->rack ? -1 : 1;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return 0;
}

/* Count the distinct paths of sorted pods and GPUs per host. */
static void count_sorted(const struct throughput_pod *p, size_t n, int32_t g,
			 struct throughput_shape *s)
{
	int32_t on_host = 0;

	*s = (struct throughput_shape){ .gpus = (int32_t)n * g,
					.host_gpus_min = INT32_MAX };
	for (size_t i = 0; i < n; i++) {
		bool new_block = i == 0 || p[i].block != p[i - 1].block;
		bool new_rack = new_block || p[i].rack != p[i - 1].rack;
		bool new_host = new_rack || p[i].host != p[i - 1].host;

		s->blocks += new_block;
		s->racks += new_rack;
		s->hosts += new_host;
		on_host = new_host ? g : on_host + g;
		if (i + 1 == n || path_cmp(&p[i], &p[i + 1]) != 0) {
			if (on_host < s->host_gpus_min)
				s->host_gpus_min = on_host;
			if (on_host > s->host_gpus_max)
				s->host_gpus_max = on_host;
		}
	}
}

int throughput_shape_of(const struct throughput_pod *pods, size_t npods,
			int32_t gpus_per_pod, struct throughput_shape *ret,
			struct errbuf *eb)
{
	struct throughput_pod *sorted;

	if (npods == 0)
		return errbuf_set(eb, -EINVAL, "a gang needs at least one pod");
	if (gpus_per_pod < 1)
		return errbuf_set(eb, -EINVAL,
				  "GPUs per pod: must be positive, not %d",
				  gpus_per_pod);
	if (npods > (size_t)(INT32_MAX / gpus_per_pod))
		return errbuf_set(eb, -EINVAL,
				  "%zu pods of %d GPUs: too many GPUs", npods,
				  gpus_per_pod);
	sorted = xreallocarray(NULL, npods, sizeof(*sorted));
	for (size_t i = 0; i < npods; i++)
		sorted[i] = pods[i];
	qsort(sorted, npods, sizeof(*sorted), path_cmp);
	count_sorted(sorted, npods, gpus_per_pod, ret);
	free(sorted);
	return 0;
}

/* A small id per distinct string, in first-seen order. */
static int64_t value_id(struct hmap *ids, const char *v)
{
	int64_t id;

	if (!v)
		return -1;
	if (!hmap_get_str(ids, v, &id)) {
		id = (int64_t)ids->len;
		hmap_put_str(ids, v, id);
	}
	return id;
}

int throughput_shape_of_nodes(const struct node *const *nodes, size_t npods,
			      int32_t gpus_per_pod, const char *block_key,
			      const char *rack_key,
			      struct throughput_shape *ret, struct errbuf *eb)
{
	struct throughput_pod *pods;
	struct hmap blocks, racks, hosts;
	int rc = 0;

	pods = xreallocarray(NULL, npods ? npods : 1, sizeof(*pods));
	hmap_init(&blocks);
	hmap_init(&racks);
	hmap_init(&hosts);
	for (size_t i = 0; i < npods && rc == 0; i++) {
		const struct node *n = nodes[i];

		if (!n) {
			rc = errbuf_set(eb, -EINVAL, "pod %zu has no node", i);
			break;
		}
		pods[i].host = value_id(&hosts, n->name);
		pods[i].block =
			block_key ? value_id(&blocks,
					     labels_get(&n->labels, block_key))
				  : 0;
		/* without a rack level, each host is its own rack */
		pods[i].rack =
			rack_key ? value_id(&racks,
					    labels_get(&n->labels, rack_key))
				 : pods[i].host;
	}
	if (rc == 0)
		rc = throughput_shape_of(pods, npods, gpus_per_pod, ret, eb);
	hmap_release(&blocks);
	hmap_release(&racks);
	hmap_release(&hosts);
	free(pods);
	return rc;
}

static int32_t ceil_div(int32_t a, int32_t b)
{
	return a / b + (a % b != 0);
}

int throughput_ideal_shape(const struct throughput_geometry *g, int32_t pods,
			   int32_t gpus_per_pod, struct throughput_shape *ret,
			   struct errbuf *eb)
{
	int32_t per_host, hosts;

	if (g->gpus_per_host < 1 || g->hosts_per_rack < 1 ||
	    g->racks_per_block < 1)
		return errbuf_set(eb, -EINVAL,
				  "geometry: GPUs per host, hosts per rack and "
				  "racks per block must be positive");
	if (pods < 1 || gpus_per_pod < 1)
		return errbuf_set(eb, -EINVAL,
				  "%d pods of %d GPUs: counts must be positive",
				  pods, gpus_per_pod);
	if (gpus_per_pod > g->gpus_per_host)
		return errbuf_set(eb, -EINVAL,
				  "a pod of %d GPUs does not fit a host of %d",
				  gpus_per_pod, g->gpus_per_host);
	if (pods > INT32_MAX / gpus_per_pod)
		return errbuf_set(eb, -EINVAL,
				  "%d pods of %d GPUs: too many GPUs", pods,
				  gpus_per_pod);
	per_host = g->gpus_per_host / gpus_per_pod;
	hosts = ceil_div(pods, per_host);
	ret->gpus = pods * gpus_per_pod;
	ret->hosts = hosts;
	ret->racks = ceil_div(hosts, g->hosts_per_rack);
	ret->blocks = ceil_div(ret->racks, g->racks_per_block);
	/* Spread evenly: the most rails on the least loaded host. */
	ret->host_gpus_min = pods / hosts * gpus_per_pod;
	ret->host_gpus_max = ceil_div(pods, hosts) * gpus_per_pod;
	return 0;
}

enum throughput_level throughput_level_of(const struct throughput_shape *s)
{
	if (s->hosts <= 1)
		return THROUGHPUT_HOST;
	if (s->racks <= 1)
		return THROUGHPUT_RACK;
	if (s->blocks <= 1)
		return THROUGHPUT_BLOCK;
	return THROUGHPUT_CLUSTER;
}

/* Bandwidth of one link at level l in bytes per microsecond. */
static double eff_bw(const struct throughput_config *c, int l)
{
	const struct throughput_link *k = &c->link[l];

	BUG_ON(!(k->bw_gbps > 0) || !(k->oversub >= 1));
	return k->bw_gbps * 1e3 / k->oversub;
}

/* The worst per-step latency and narrowest per-rail link from the rack up
 * to top (top > HOST). */
static void network(const struct throughput_config *c,
		    enum throughput_level top, double *alpha, double *bw)
{
	*alpha = 0;
	*bw = INFINITY;
	for (int l = THROUGHPUT_RACK; l <= (int)top; l++) {
		*alpha = fmax(*alpha, c->link[l].alpha_us);
		*bw = fmin(*bw, eff_bw(c, l));
	}
}

/* 2(m-1) a + 2((m-1)/m) bytes / bw: one ring all-reduce over m members. */
static double ring(int32_t m, double alpha, double bytes, double bw)
{
	if (m <= 1)
		return 0;
	return 2.0 * (m - 1) * alpha + 2.0 * (m - 1) / m * bytes / bw;
}

double throughput_allreduce_us(const struct throughput_config *c,
			       const struct throughput_shape *s)
{
	enum throughput_level top = throughput_level_of(s);
	double a_host = c->link[THROUGHPUT_HOST].alpha_us;
	double b_host = eff_bw(c, THROUGHPUT_HOST);
	double n = c->grad_bytes, alpha, bw;

	BUG_ON(s->gpus < 1 || s->hosts < 1);
	if (top == THROUGHPUT_HOST)
		return ring(s->gpus, a_host, n, b_host);
	BUG_ON(s->host_gpus_min < 1 || s->host_gpus_max < s->host_gpus_min);
	network(c, top, &alpha, &bw);
	if (c->algo == THROUGHPUT_HIERARCHICAL)
		return ring(s->host_gpus_max, a_host, n, b_host) +
		       ring(s->hosts, alpha, n / s->host_gpus_min, bw);
	/* A flat ring spans the NVLink hop too, and k rails in parallel. */
	return ring(s->gpus, fmax(alpha, a_host), n,
		    fmin(b_host, s->host_gpus_min * bw));
}

double throughput_crossing_bytes(const struct throughput_config *c,
				 const struct throughput_shape *s,
				 enum throughput_level l)
{
	int32_t doms = l == THROUGHPUT_HOST    ? s->hosts
		       : l == THROUGHPUT_RACK  ? s->racks
		       : l == THROUGHPUT_BLOCK ? s->blocks
					       : 1;
	int32_t m;

	BUG_ON(l >= THROUGHPUT_CLUSTER);
	if (doms <= 1 || s->gpus <= 1)
		return 0;
	/* The ring leaves each of its doms domains once; a hop carries
	 * 2((m-1)/m) of what the ring reduces. The hierarchical algorithm's
	 * rings over the hosts, one per rail, reduce n/k each: k of them
	 * together carry what one ring of n bytes would. */
	m = c->algo == THROUGHPUT_HIERARCHICAL ? s->hosts : s->gpus;
	return doms * 2.0 * (m - 1) / m * c->grad_bytes;
}

bool throughput_compute_uses_ideal(const struct throughput_config *c)
{
	return !(c->compute_us > 0) && c->comm_fraction > 0;
}

double throughput_compute_us(const struct throughput_config *c,
			     enum throughput_class k,
			     const struct throughput_shape *ideal)
{
	struct throughput_shape ref;
	double f = c->comm_fraction;

	if (c->compute_us > 0)
		return c->compute_us;
	if (f > 0) {
		BUG_ON(f > 1);
		return throughput_allreduce_us(c, ideal) * (1 - f) / f;
	}
	BUG_ON(k >= THROUGHPUT_CLASS_COUNT);
	f = c->share[k];
	BUG_ON(!(f > 0 && f < 1));
	throughput_reference_shape(&ref);
	return throughput_allreduce_us(c, &ref) * (1 - f) / f;
}

static double step(const struct throughput_config *c, double compute,
		   double t_comm)
{
	return compute + fmax(0, t_comm - c->overlap * compute);
}

double throughput_share(const struct throughput_config *c,
			enum throughput_class k,
			const struct throughput_shape *s)
{
	double t = throughput_allreduce_us(c, s);
	double compute = throughput_compute_us(c, k, s);
	double total = step(c, compute, t);

	return total > 0 ? (total - compute) / total : 0;
}

double throughput_step_us(const struct throughput_config *c,
			  enum throughput_class k,
			  const struct throughput_shape *actual,
			  const struct throughput_shape *ideal)
{
	double compute = throughput_compute_us(c, k, ideal);

	return step(c, compute, throughput_allreduce_us(c, actual));
}

double throughput_ratio(const struct throughput_config *c,
			enum throughput_class k,
			const struct throughput_shape *actual,
			const struct throughput_shape *ideal)
{
	double compute = throughput_compute_us(c, k, ideal);
	double s_ideal = step(c, compute, throughput_allreduce_us(c, ideal));
	double s_actual = step(c, compute, throughput_allreduce_us(c, actual));

	/* Nothing to compare (no bytes, no latency), or actual is faster
	 * than the packing, possible only with unusual figures. */
	if (!(s_ideal > 0) || s_actual <= s_ideal)
		return 1.0;
	return s_ideal / s_actual;
}

int64_t throughput_stretch_us(int64_t ideal_us, double ratio)
{
	double d;

	BUG_ON(!(ratio > 0) || ideal_us < 0);
	d = (double)ideal_us / fmin(ratio, 1.0);
	if (d >= 9.2e18)
		return INT64_MAX;
	return llround(d);
}

const char *throughput_level_name(enum throughput_level l)
{
	return l < THROUGHPUT_LEVEL_COUNT ? level_names[l] : "?";
}

const char *throughput_algo_name(enum throughput_algo a)
{
	switch (a) {
	case THROUGHPUT_RING:
		return "ring";
	case THROUGHPUT_HIERARCHICAL:
		return "hierarchical";
	default:
		return "?";
	}
}

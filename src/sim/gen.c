// SPDX-License-Identifier: Apache-2.0
/*
 * The cluster generator: a small key=value spec parser with located
 * errors, and the construction of hosts, their Topology and their
 * ResourceFlavor in a batch that the cluster absorbs whole (so a name clash
 * adds nothing). Hosts are pushed in depth-first order of their topology
 * path, block by block and rack by rack.
 */
#include "sim/gen.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "model/quantity.h"

#include "base/banned.h"

enum key_type { K_COUNT, K_QTY, K_NAME };

struct key {
	const char *name;
	enum key_type type;
	size_t off;		  /* in struct gen_spec */
	int64_t max;		  /* K_COUNT */
	enum quantity_kind qkind; /* K_QTY */
};

#define OFF(f) offsetof(struct gen_spec, f)

/* The "file" of generated objects in messages. */
#define GEN_ORIGIN "generated cluster"

static const struct key keys[] = {
	{ "blocks", K_COUNT, OFF(blocks), GEN_MAX_HOSTS, 0 },
	{ "racks", K_COUNT, OFF(racks_per_block), GEN_MAX_HOSTS, 0 },
	{ "hosts", K_COUNT, OFF(hosts_per_rack), GEN_MAX_HOSTS, 0 },
	{ "gpus", K_COUNT, OFF(gpus_per_host), GEN_MAX_GPUS, 0 },
	{ "cpu", K_QTY, OFF(cpu_milli_per_gpu), 0, QUANTITY_MILLI },
	{ "memory", K_QTY, OFF(memory_per_gpu), 0, QUANTITY_BYTES },
	{ "pods", K_QTY, OFF(pods_per_gpu), 0, QUANTITY_UNITS },
	{ "prefix", K_NAME, OFF(prefix), 0, 0 },
	{ "topology", K_NAME, OFF(topology_name), 0, 0 },
	{ "flavor", K_NAME, OFF(flavor_name), 0, 0 },
};

void gen_spec_init(struct gen_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->blocks = 1;
	s->racks_per_block = 1;
	s->hosts_per_rack = 1;
	s->gpus_per_host = 8;
	s->cpu_milli_per_gpu = 12000;
	s->memory_per_gpu = 192LL << 30;
	s->pods_per_gpu = 14;
	snprintf(s->prefix, sizeof(s->prefix), "gpu");
	snprintf(s->topology_name, sizeof(s->topology_name), "gpu-topology");
	snprintf(s->flavor_name, sizeof(s->flavor_name), "tas-gpu");
}

/* A DNS-1123 label: what names and label values here must be. */
static bool dns_label(const char *s, size_t n)
{
	if (n == 0 || n >= GEN_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && (c != '-' || i == 0 || i == n - 1))
			return false;
	}
	return true;
}

struct spec_ctx {
	const char *origin;
	struct errbuf *eb;
};

static int fail(struct spec_ctx *x, size_t off, const char *key,
		const char *fmt, ...) PRINTF_LIKE(4, 5);

static int fail(struct spec_ctx *x, size_t off, const char *key,
		const char *fmt, ...)
{
	char what[ERRBUF_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errbuf_set(x->eb, -EINVAL, "%s:1:%zu: %s%s%s", x->origin,
			  off + 1, key ? key : "", key ? ": " : "", what);
}

static int set_count(struct spec_ctx *x, const struct key *k, const char *v,
		     size_t n, size_t off, struct gen_spec *s)
{
	int64_t val = 0;

	for (size_t i = 0; i < n && val <= k->max; i++) {
		if (v[i] < '0' || v[i] > '9') {
			val = -1;
			break;
		}
		val = val * 10 + (v[i] - '0');
	}
	if (n == 0 || val < 1 || val > k->max)
		return fail(x, off, k->name,
			    "must be an integer from 1 to %lld, not \"%.*s\"",
			    (long long)k->max, (int)(n > 32 ? 32 : n), v);
	*(int32_t *)((char *)s + k->off) = (int32_t)val;
	return 0;
}

static int set_value(struct spec_ctx *x, const struct key *k, const char *v,
		     size_t n, size_t off, struct gen_spec *s)
{
	char buf[QUANTITY_MAX_LEN + 1];
	struct errbuf qeb;
	int64_t q;

	if (k->type == K_COUNT)
		return set_count(x, k, v, n, off, s);
	if (k->type == K_NAME) {
		/* topology= and flavor= may be empty: create none */
		if (n ? !dns_label(v, n) : k->off == OFF(prefix))
			return fail(x, off, k->name,
				    "must be a DNS-1123 label of at most %d "
				    "characters",
				    GEN_NAME_MAX - 1);
		snprintf((char *)s + k->off, GEN_NAME_MAX, "%.*s", (int)n, v);
		return 0;
	}
	if (n > QUANTITY_MAX_LEN)
		return fail(x, off, k->name, "quantity is too long");
	snprintf(buf, sizeof(buf), "%.*s", (int)n, v);
	if (quantity_parse(buf, k->qkind, &q, &qeb) < 0)
		return fail(x, off, k->name, "%s", qeb.msg);
	*(int64_t *)((char *)s + k->off) = q;
	return 0;
}

static const struct key *find_key(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i].name) == n &&
		    memcmp(keys[i].name, s, n) == 0)
			return &keys[i];
	return NULL;
}

/* A network key of the throughput model (sim/throughput.h) into net. */
static int network_key(struct spec_ctx *x, const char *text, size_t off,
		       size_t klen, size_t end, struct throughput_config *net)
{
	struct errbuf kb = { 0 };
	char key[40];
	int rc;

	if (!net)
		return -ENOENT;
	rc = throughput_set_key(net, text + off, klen, text + off + klen + 1,
				end - off - klen - 1, &kb);
	if (rc != -EINVAL)
		return rc;
	snprintf(key, sizeof(key), "%.*s", (int)(klen > 32 ? 32 : klen),
		 text + off);
	return fail(x, off + klen + 1, key, "%s", kb.msg);
}

/* One "key=value" item at text[off..end). */
static int parse_item(struct spec_ctx *x, const char *text, size_t off,
		      size_t end, unsigned *seen, struct gen_spec *s,
		      struct throughput_config *net)
{
	const char *eq = memchr(text + off, '=', end - off);
	const struct key *k;
	size_t klen, voff;

	if (!eq)
		return fail(x, off, NULL, "expected key=value, not \"%.*s\"",
			    (int)(end - off > 32 ? 32 : end - off), text + off);
	klen = (size_t)(eq - text) - off;
	voff = off + klen + 1;
	k = find_key(text + off, klen);
	if (!k) {
		int rc = network_key(x, text, off, klen, end, net);

		if (rc != -ENOENT)
			return rc;
		return fail(x, off, NULL,
			    "%.*s: unknown key (expected blocks, racks, "
			    "hosts, gpus, cpu, memory, pods, prefix, "
			    "topology or flavor%s)",
			    (int)(klen > 32 ? 32 : klen), text + off,
			    net ? ", or a network key: " THROUGHPUT_KEYS : "");
	}
	if (*seen & (1u << (k - keys)))
		return fail(x, off, k->name, "given twice");
	*seen |= 1u << (k - keys);
	return set_value(x, k, text + voff, end - voff, voff, s);
}

/* Limits that involve several keys. */
static int check_totals(struct spec_ctx *x, const struct gen_spec *s)
{
	int64_t hosts =
		(int64_t)s->blocks * s->racks_per_block * s->hosts_per_rack;
	int64_t g = s->gpus_per_host;

	if (hosts > GEN_MAX_HOSTS)
		return fail(x, 0, NULL,
			    "%d blocks x %d racks x %d hosts = %lld hosts, "
			    "more than the limit of %d",
			    s->blocks, s->racks_per_block, s->hosts_per_rack,
			    (long long)hosts, GEN_MAX_HOSTS);
	if (s->cpu_milli_per_gpu > INT64_MAX / g ||
	    s->memory_per_gpu > INT64_MAX / g ||
	    s->pods_per_gpu > INT64_MAX / g)
		return fail(x, 0, NULL,
			    "cpu, memory or pods per GPU times %d GPUs is "
			    "too large",
			    s->gpus_per_host);
	if (s->pods_per_gpu < 1)
		return fail(x, 0, "pods", "must be at least 1 per GPU");
	return 0;
}

int gen_parse(const char *text, const char *origin, struct gen_spec *ret,
	      struct errbuf *eb)
{
	return gen_parse_network(text, origin, ret, NULL, eb);
}

int gen_parse_network(const char *text, const char *origin,
		      struct gen_spec *ret, struct throughput_config *net,
		      struct errbuf *eb)
{
	struct spec_ctx x = { origin ? origin : "spec", eb };
	struct throughput_config tmp;
	struct gen_spec s;
	size_t len = strlen(text), off = 0;
	unsigned seen = 0;
	int rc;

	gen_spec_init(&s);
	if (net)
		tmp = *net;
	if (len == 0)
		return fail(&x, 0, NULL,
			    "the spec is empty (expected e.g. "
			    "blocks=4,racks=8,hosts=32,gpus=8)");
	while (off <= len) {
		const char *comma = memchr(text + off, ',', len - off);
		size_t end = comma ? (size_t)(comma - text) : len;

		rc = parse_item(&x, text, off, end, &seen, &s,
				net ? &tmp : NULL);
		if (rc < 0)
			return rc;
		off = end + 1;
	}
	if ((rc = check_totals(&x, &s)) < 0)
		return rc;
	if (net && throughput_config_check(&tmp, eb) < 0) {
		char m[ERRBUF_SIZE];

		snprintf(m, sizeof(m), "%s", eb->msg);
		return fail(&x, 0, NULL, "%s", m);
	}
	*ret = s;
	if (net)
		*net = tmp;
	return 0;
}

void gen_format(const struct gen_spec *s, struct strbuf *out)
{
	strbuf_addf(out, "blocks=%d,racks=%d,hosts=%d,gpus=%d,cpu=", s->blocks,
		    s->racks_per_block, s->hosts_per_rack, s->gpus_per_host);
	quantity_format(s->cpu_milli_per_gpu, QUANTITY_MILLI, out);
	strbuf_addstr(out, ",memory=");
	quantity_format(s->memory_per_gpu, QUANTITY_BYTES, out);
	strbuf_addf(out, ",pods=%lld,prefix=%s,topology=%s,flavor=%s",
		    (long long)s->pods_per_gpu, s->prefix, s->topology_name,
		    s->flavor_name);
}

static void push_node(struct cluster *b, const struct gen_spec *s, int gpu,
		      int32_t i, int32_t j, int32_t k)
{
	struct node *n = vec_push_zero(&b->nodes);
	char buf[3 * GEN_NAME_MAX];
	int64_t g = s->gpus_per_host;

	node_init(n);
	n->pos.file = cluster_str(b, GEN_ORIGIN);
	snprintf(buf, sizeof(buf), "%s-b%d-r%d-h%d", s->prefix, i, j, k);
	n->name = cluster_str(b, buf);
	labels_set(&n->labels, cluster_str(b, TOPOLOGY_HOSTNAME_LABEL),
		   n->name);
	snprintf(buf, sizeof(buf), "block-%d", i);
	labels_set(&n->labels, cluster_str(b, GEN_LABEL_BLOCK),
		   cluster_str(b, buf));
	snprintf(buf, sizeof(buf), "rack-%d-%d", i, j);
	labels_set(&n->labels, cluster_str(b, GEN_LABEL_RACK),
		   cluster_str(b, buf));
	if (s->flavor_name[0])
		labels_set(&n->labels, cluster_str(b, GEN_LABEL_GROUP),
			   cluster_str(b, s->flavor_name));
	n->allocatable.v[RESOURCE_CPU] = g * s->cpu_milli_per_gpu;
	n->allocatable.v[RESOURCE_MEMORY] = g * s->memory_per_gpu;
	n->allocatable.v[RESOURCE_PODS] = g * s->pods_per_gpu;
	n->allocatable.v[gpu] = g;
	/* names are unique by construction within the batch */
	BUG_ON(cluster_index_last(b, KIND_NODE) < 0);
}

static void push_topology_and_flavor(struct cluster *b,
				     const struct gen_spec *s)
{
	if (s->topology_name[0]) {
		struct topology *t = vec_push_zero(&b->topologies);

		t->name = cluster_str(b, s->topology_name);
		t->pos.file = cluster_str(b, GEN_ORIGIN);
		t->levels[0] = cluster_str(b, GEN_LABEL_BLOCK);
		t->levels[1] = cluster_str(b, GEN_LABEL_RACK);
		t->levels[2] = cluster_str(b, TOPOLOGY_HOSTNAME_LABEL);
		t->nlevels = 3;
		BUG_ON(cluster_index_last(b, KIND_TOPOLOGY) < 0);
	}
	if (s->flavor_name[0]) {
		struct flavor *f = vec_push_zero(&b->flavors);

		flavor_init(f);
		f->name = cluster_str(b, s->flavor_name);
		f->pos.file = cluster_str(b, GEN_ORIGIN);
		labels_set(&f->node_labels, cluster_str(b, GEN_LABEL_GROUP),
			   f->name);
		f->topology_name = s->topology_name[0]
					   ? cluster_str(b, s->topology_name)
					   : NULL;
		BUG_ON(cluster_index_last(b, KIND_FLAVOR) < 0);
	}
}

int gen_build(struct cluster *c, const struct gen_spec *s, struct diag *d)
{
	struct cluster batch;
	struct errbuf eb;
	int gpu = resource_id(c->resources, GEN_GPU_RESOURCE, &eb);
	int rc;

	BUG_ON(gpu < RESOURCE_FIXED_COUNT); /* a valid, constant name */
	BUG_ON(s->blocks < 1 || s->racks_per_block < 1 ||
	       s->hosts_per_rack < 1 || s->gpus_per_host < 1 ||
	       (int64_t)s->blocks * s->racks_per_block * s->hosts_per_rack >
		       GEN_MAX_HOSTS);
	cluster_init_batch(&batch, c);
	for (int32_t i = 0; i < s->blocks; i++)
		for (int32_t j = 0; j < s->racks_per_block; j++)
			for (int32_t k = 0; k < s->hosts_per_rack; k++)
				push_node(&batch, s, gpu, i, j, k);
	push_topology_and_flavor(&batch, s);
	rc = cluster_absorb(c, &batch, d);
	cluster_release(&batch);
	return rc;
}

const char *gen_level_label(const char *level)
{
	if (strcmp(level, "block") == 0)
		return GEN_LABEL_BLOCK;
	if (strcmp(level, "rack") == 0)
		return GEN_LABEL_RACK;
	if (strcmp(level, "host") == 0 || strcmp(level, "hostname") == 0)
		return TOPOLOGY_HOSTNAME_LABEL;
	return level;
}

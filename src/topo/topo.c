// SPDX-License-Identifier: Apache-2.0
/*
 * The topology index: sorts a flavor's nodes into depth-first order, cuts
 * the sorted list into the domains of every level, and keeps the per-domain
 * free-capacity aggregates exact under node changes by pushing each
 * change's difference up the O(levels) ancestors of the node.
 */
#include "topo/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/* One node while the index is (re)built. */
struct entry {
	const struct node *src;
	const char *vals[TOPOLOGY_MAX_LEVELS];
	int64_t alloc[RESOURCE_MAX];
	int64_t free[RESOURCE_MAX];
	uint8_t flags;
};

static bool has_hard_taint(const struct node *n)
{
	for (size_t i = 0; i < n->ntaints; i++) {
		if (n->taints[i].effect != TAINT_PREFER_NO_SCHEDULE)
			return true;
	}
	return false;
}

/* Fill e's level values; false when the node lacks one of them. */
static bool entry_values(const struct topology *tp, const struct node *n,
			 struct entry *e)
{
	for (size_t l = 0; l < tp->nlevels; l++) {
		e->vals[l] = labels_get(&n->labels, tp->levels[l]);
		if (!e->vals[l])
			return false;
	}
	return true;
}

static void entry_from_node(struct entry *e, const struct node *n)
{
	e->src = n;
	for (int r = 0; r < RESOURCE_MAX; r++) {
		e->alloc[r] = n->allocatable.v[r];
		e->free[r] = n->allocatable.v[r] - n->usage.v[r];
	}
	e->flags = 0;
	if (n->ready)
		e->flags |= TOPO_NODE_READY;
	if (!n->unschedulable)
		e->flags |= TOPO_NODE_SCHEDULABLE;
	if (has_hard_taint(n))
		e->flags |= TOPO_NODE_TAINTED;
}

struct sort_ctx {
	const struct entry *es;
	size_t nlevels;
};

static int entry_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct entry *a = &sc->es[*(const uint32_t *)pa];
	const struct entry *b = &sc->es[*(const uint32_t *)pb];

	for (size_t l = 0; l < sc->nlevels; l++) {
		int c = strcmp(a->vals[l], b->vals[l]);

		if (c)
			return c;
	}
	return strcmp(a->src->name, b->src->name);
}

/* Number of leading levels on which a and b agree. */
static size_t common_levels(const struct entry *a, const struct entry *b,
			    size_t nlevels)
{
	size_t l = 0;

	while (l < nlevels && strcmp(a->vals[l], b->vals[l]) == 0)
		l++;
	return l;
}

static void alloc_arrays(struct topo *t, uint32_t nnodes, uint32_t ndomains)
{
	size_t nr = (size_t)t->nres;

	t->nnodes = nnodes;
	t->node_src = xcalloc(nnodes + 1, sizeof(*t->node_src));
	t->node_unit = xcalloc(nnodes + 1, sizeof(*t->node_unit));
	t->node_flags = xcalloc(nnodes + 1, sizeof(*t->node_flags));
	t->node_alloc = xcalloc((nnodes + 1) * nr, sizeof(int64_t));
	t->node_free = xcalloc((nnodes + 1) * nr, sizeof(int64_t));
	t->ndomains = ndomains;
	t->dom_value = xcalloc(ndomains + 1, sizeof(*t->dom_value));
	t->dom_parent = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_child = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_nchildren = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_node = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_nnodes = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_live = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_tainted = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_idle = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->dom_free = xcalloc((ndomains + 1) * nr, sizeof(int64_t));
	t->dom_version = xcalloc(ndomains + 1, sizeof(uint32_t));
	t->generation++;
}

static void free_arrays(struct topo *t)
{
	free(t->node_src);
	free(t->node_unit);
	free(t->node_flags);
	free(t->node_alloc);
	free(t->node_free);
	free(t->dom_value);
	free(t->dom_parent);
	free(t->dom_child);
	free(t->dom_nchildren);
	free(t->dom_node);
	free(t->dom_nnodes);
	free(t->dom_live);
	free(t->dom_tainted);
	free(t->dom_idle);
	free(t->dom_free);
	free(t->dom_version);
	hmap_release(&t->by_name);
}

/* Count the domains of every level in the sorted entries. */
static uint32_t count_domains(struct topo *t, const struct entry *es,
			      const uint32_t *ord, uint32_t n)
{
	uint32_t per_level[TOPOLOGY_MAX_LEVELS] = { 0 };
	uint32_t total = 0;

	for (uint32_t i = 0; i < n; i++) {
		size_t c = i ? common_levels(&es[ord[i - 1]], &es[ord[i]],
					     t->nlevels)
			     : 0;

		for (size_t l = c; l < t->nlevels; l++)
			per_level[l]++;
	}
	for (size_t l = 0; l < t->nlevels; l++) {
		t->level_off[l] = total;
		total += per_level[l];
	}
	t->level_off[t->nlevels] = total;
	return total;
}

/* Cut the sorted entries into domains and fill the node arrays. */
static void cut_domains(struct topo *t, const struct entry *es,
			const uint32_t *ord, uint32_t n)
{
	uint32_t next[TOPOLOGY_MAX_LEVELS];
	uint32_t cur[TOPOLOGY_MAX_LEVELS] = { 0 };
	size_t nl = t->nlevels, nr = (size_t)t->nres;

	for (size_t l = 0; l < nl; l++)
		next[l] = t->level_off[l];
	for (uint32_t i = 0; i < n; i++) {
		const struct entry *e = &es[ord[i]];
		size_t c = i ? common_levels(&es[ord[i - 1]], e, nl) : 0;

		for (size_t l = c; l < nl; l++) {
			uint32_t d = next[l]++;

			cur[l] = d;
			t->dom_value[d] = e->vals[l];
			t->dom_node[d] = i;
			t->dom_parent[d] = l ? cur[l - 1] : UINT32_MAX;
			if (l && t->dom_nchildren[cur[l - 1]]++ == 0)
				t->dom_child[cur[l - 1]] = d;
		}
		for (size_t l = 0; l < nl; l++)
			t->dom_nnodes[cur[l]]++;
		t->node_src[i] = e->src;
		t->node_unit[i] = cur[nl - 1];
		t->node_flags[i] = e->flags;
		memcpy(&t->node_alloc[i * nr], e->alloc, nr * sizeof(int64_t));
		memcpy(&t->node_free[i * nr], e->free, nr * sizeof(int64_t));
		hmap_put_str(&t->by_name, e->src->name, i);
	}
}

/*
 * Recompute the aggregates of every domain from the nodes into the given
 * arrays (the kept ones at build time, scratch ones in topo_check()).
 */
static void compute_aggregates(const struct topo *t, uint32_t *live,
			       uint32_t *tainted, uint32_t *idle, int64_t *fr)
{
	size_t nr = (size_t)t->nres;
	uint32_t unit0 = t->level_off[t->nlevels - 1];

	memset(live, 0, t->ndomains * sizeof(*live));
	memset(tainted, 0, t->ndomains * sizeof(*tainted));
	memset(idle, 0, t->ndomains * sizeof(*idle));
	memset(fr, 0, t->ndomains * nr * sizeof(*fr));
	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint32_t u = t->node_unit[i];

		if (!topo_node_live(t, i))
			continue;
		live[u]++;
		if (t->node_flags[i] & TOPO_NODE_TAINTED)
			tainted[u]++;
		if (topo_node_idle(t, i))
			idle[u]++;
		for (size_t r = 0; r < nr; r++)
			fr[u * nr + r] += t->node_free[i * nr + r];
	}
	for (uint32_t d = t->ndomains; d-- > 0;) {
		uint32_t p = t->dom_parent[d];

		if (p == UINT32_MAX || live[d] == 0)
			continue;
		live[p] += d >= unit0 ? 1 : live[d];
		tainted[p] += tainted[d];
		idle[p] += idle[d];
		for (size_t r = 0; r < nr; r++) {
			int64_t v = fr[d * nr + r];

			fr[p * nr + r] += d >= unit0 && v < 0 ? 0 : v;
		}
	}
}

static void build(struct topo *t, const struct entry *es, uint32_t n)
{
	struct sort_ctx sc = { es, t->nlevels };
	uint32_t *ord = xcalloc(n + 1, sizeof(*ord));
	uint32_t ndom;

	for (uint32_t i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof(*ord), entry_cmp, &sc);
	ndom = count_domains(t, es, ord, n);
	hmap_init(&t->by_name);
	alloc_arrays(t, n, ndom);
	cut_domains(t, es, ord, n);
	compute_aggregates(t, t->dom_live, t->dom_tainted, t->dom_idle,
			   t->dom_free);
	free(ord);
}

struct topo *topo_new(const struct topology *tp, const struct flavor *fl,
		      const struct node *nodes, size_t nnodes,
		      const struct resource_registry *reg)
{
	struct topo *t = xcalloc(1, sizeof(*t));
	struct entry *es = xcalloc(nnodes + 1, sizeof(*es));
	uint32_t n = 0;

	BUG_ON(tp->nlevels == 0 || tp->nlevels > TOPOLOGY_MAX_LEVELS);
	BUG_ON(nnodes >= UINT32_MAX);
	t->topology = tp;
	t->reg = reg;
	t->nlevels = tp->nlevels;
	t->hostname_lowest = topology_lowest_is_hostname(tp);
	t->nres = reg->count;
	for (size_t i = 0; i < nnodes; i++) {
		if (fl &&
		    !labels_contains_all(&nodes[i].labels, &fl->node_labels))
			continue;
		if (!entry_values(tp, &nodes[i], &es[n]))
			continue;
		entry_from_node(&es[n++], &nodes[i]);
	}
	build(t, es, n);
	free(es);
	return t;
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	free_arrays(t);
	free(t);
}

int64_t topo_find_node(const struct topo *t, const char *name)
{
	int64_t v;

	return hmap_get_str(&t->by_name, name, &v) ? v : -1;
}

size_t topo_bytes(const struct topo *t)
{
	size_t nr = (size_t)t->nres, b = sizeof(*t);

	b += (t->nnodes + 1) * (sizeof(void *) + 4 + 1 + 16 * nr);
	b += (t->ndomains + 1) * (sizeof(void *) + 9 * 4 + 8 * nr);
	b += t->by_name.cap * sizeof(struct hmap_slot);
	for (uint32_t i = 0; i < t->nnodes; i++)
		b += strlen(t->node_src[i]->name) + 1;
	return b;
}

unsigned topo_dom_level(const struct topo *t, uint32_t d)
{
	unsigned l = 0;

	BUG_ON(d >= t->ndomains);
	while (d >= t->level_off[l + 1])
		l++;
	return l;
}

/*
 * A unit's contribution to its parent: whether it is live, and its clamped
 * free capacity.
 */
static bool unit_contrib(const struct topo *t, uint32_t u, int64_t *out)
{
	size_t nr = (size_t)t->nres;

	for (size_t r = 0; r < nr; r++) {
		int64_t v = t->dom_free[u * nr + r];

		out[r] = v < 0 ? 0 : v;
	}
	return t->dom_live[u] > 0;
}

/*
 * Apply a change of node n: its old state (was live, old free, was
 * tainted) is given, its new one is in the arrays. Updates the unit, then
 * pushes the unit's change of contribution to every ancestor.
 */
static void node_changed(struct topo *t, uint32_t n, bool was_live,
			 const int64_t *old_free, bool was_tainted,
			 bool was_idle)
{
	size_t nr = (size_t)t->nres;
	uint32_t u = t->node_unit[n];
	bool now_live = topo_node_live(t, n);
	bool now_tainted = now_live && (t->node_flags[n] & TOPO_NODE_TAINTED);
	int64_t before[RESOURCE_MAX], after[RESOURCE_MAX];
	bool ulive0 = unit_contrib(t, u, before), ulive1;
	int dlive, dtaint, didle = (int)topo_node_idle(t, n) - (int)was_idle;

	was_tainted = was_live && was_tainted;
	for (size_t r = 0; r < nr; r++) {
		int64_t *f = &t->dom_free[u * nr + r];

		if (was_live)
			*f -= old_free[r];
		if (now_live)
			*f += t->node_free[n * nr + r];
	}
	t->dom_live[u] += (int)now_live - (int)was_live;
	dtaint = (int)now_tainted - (int)was_tainted;
	t->dom_tainted[u] += dtaint;
	t->dom_idle[u] += didle;
	t->dom_version[u]++;
	ulive1 = unit_contrib(t, u, after);
	dlive = (int)ulive1 - (int)ulive0;
	for (uint32_t p = t->dom_parent[u]; p != UINT32_MAX;
	     p = t->dom_parent[p]) {
		for (size_t r = 0; r < nr; r++) {
			t->dom_free[p * nr + r] += (ulive1 ? after[r] : 0) -
						   (ulive0 ? before[r] : 0);
		}
		t->dom_live[p] += dlive;
		t->dom_tainted[p] += dtaint;
		t->dom_idle[p] += didle;
		t->dom_version[p]++;
	}
}

/* Snapshot node n's state, run change() on it, then propagate. */
#define NODE_UPDATE(t, n, change)                                              \
	do {                                                                   \
		int64_t old_[RESOURCE_MAX];                                    \
		bool live_ = topo_node_live((t), (n));                         \
		bool taint_ = (t)->node_flags[(n)] & TOPO_NODE_TAINTED;        \
		bool idle_ = topo_node_idle((t), (n));                         \
		memcpy(old_, &(t)->node_free[(size_t)(n) * (t)->nres],         \
		       (size_t)(t)->nres * sizeof(int64_t));                   \
		change;                                                        \
		node_changed((t), (n), live_, old_, taint_, idle_);            \
	} while (0)

void topo_node_add_usage(struct topo *t, uint32_t n, const struct resvec *req,
			 int64_t k)
{
	size_t nr = (size_t)t->nres;

	BUG_ON(n >= t->nnodes);
	NODE_UPDATE(t, n, {
		for (size_t r = 0; r < nr; r++) {
			int64_t p;

			BUG_ON(__builtin_mul_overflow(req->v[r], k, &p));
			t->node_free[n * nr + r] -= p;
		}
	});
}

void topo_node_set_allocatable(struct topo *t, uint32_t n,
			       const struct resvec *alloc)
{
	size_t nr = (size_t)t->nres;

	BUG_ON(n >= t->nnodes);
	NODE_UPDATE(t, n, {
		for (size_t r = 0; r < nr; r++) {
			t->node_free[n * nr + r] +=
				alloc->v[r] - t->node_alloc[n * nr + r];
			t->node_alloc[n * nr + r] = alloc->v[r];
		}
	});
}

static void set_flag(struct topo *t, uint32_t n, uint8_t flag, bool on)
{
	BUG_ON(n >= t->nnodes);
	NODE_UPDATE(t, n, {
		if (on)
			t->node_flags[n] |= flag;
		else
			t->node_flags[n] &= (uint8_t)~flag;
	});
}

void topo_node_set_ready(struct topo *t, uint32_t n, bool ready)
{
	set_flag(t, n, TOPO_NODE_READY, ready);
}

void topo_node_set_unschedulable(struct topo *t, uint32_t n, bool cordoned)
{
	set_flag(t, n, TOPO_NODE_SCHEDULABLE, !cordoned);
}

void topo_node_set_removed(struct topo *t, uint32_t n, bool removed)
{
	set_flag(t, n, TOPO_NODE_REMOVED, removed);
}

int topo_add_node(struct topo *t, const struct flavor *fl,
		  const struct node *node)
{
	size_t nr = (size_t)t->nres;
	struct entry *es;
	uint32_t n = t->nnodes;

	if (topo_find_node(t, node->name) >= 0)
		return -EEXIST;
	if (fl && !labels_contains_all(&node->labels, &fl->node_labels))
		return -EINVAL;
	es = xcalloc(n + 1, sizeof(*es));
	if (!entry_values(t->topology, node, &es[n])) {
		free(es);
		return -EINVAL;
	}
	entry_from_node(&es[n], node);
	for (uint32_t i = 0; i < n; i++) {
		es[i].src = t->node_src[i];
		BUG_ON(!entry_values(t->topology, es[i].src, &es[i]));
		memcpy(es[i].alloc, &t->node_alloc[i * nr], nr * 8);
		memcpy(es[i].free, &t->node_free[i * nr], nr * 8);
		es[i].flags = t->node_flags[i];
	}
	free_arrays(t);
	build(t, es, n + 1);
	free(es);
	return 0;
}

static bool check_arrays(const struct topo *t, const uint32_t *live,
			 const uint32_t *tainted, const uint32_t *idle,
			 const int64_t *fr, struct strbuf *why)
{
	size_t nr = (size_t)t->nres;

	for (uint32_t d = 0; d < t->ndomains; d++) {
		bool ok = live[d] == t->dom_live[d] &&
			  tainted[d] == t->dom_tainted[d] &&
			  idle[d] == t->dom_idle[d];

		for (size_t r = 0; ok && r < nr; r++)
			ok = fr[d * nr + r] == t->dom_free[d * nr + r];
		if (!ok) {
			if (why) {
				strbuf_addf(why, "domain %" PRIu32 " (", d);
				topo_dom_path(t, d, "/", why);
				strbuf_addstr(why, "): aggregates differ");
			}
			return false;
		}
	}
	return true;
}

bool topo_check(const struct topo *t, struct strbuf *why)
{
	uint32_t *live = xcalloc(t->ndomains + 1, sizeof(*live));
	uint32_t *tainted = xcalloc(t->ndomains + 1, sizeof(*tainted));
	uint32_t *idle = xcalloc(t->ndomains + 1, sizeof(*idle));
	int64_t *fr = xcalloc((t->ndomains + 1) * (size_t)t->nres, 8);
	bool ok;

	compute_aggregates(t, live, tainted, idle, fr);
	ok = check_arrays(t, live, tainted, idle, fr, why);
	free(live);
	free(tainted);
	free(idle);
	free(fr);
	return ok;
}

size_t topo_dom_values(const struct topo *t, uint32_t d, const char **vals)
{
	size_t l = topo_dom_level(t, d), n = l + 1;

	for (;;) {
		vals[l] = t->dom_value[d];
		if (l == 0)
			break;
		d = t->dom_parent[d];
		l--;
	}
	return n;
}

void topo_dom_path(const struct topo *t, uint32_t d, const char *sep,
		   struct strbuf *out)
{
	const char *vals[TOPOLOGY_MAX_LEVELS];
	size_t n = topo_dom_values(t, d, vals);

	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, sep);
		strbuf_addstr(out, vals[i]);
	}
}

/* Pods of request req that node n holds when empty. */
static int64_t node_pods(const struct topo *t, uint32_t n,
			 const struct resvec *req)
{
	int64_t best = INT32_MAX;

	for (int r = 0; r < t->nres; r++) {
		int64_t q = req->v[r];
		int64_t k;

		if (q <= 0)
			continue;
		k = t->node_alloc[(size_t)n * (size_t)t->nres + (size_t)r] / q;
		if (k < best)
			best = k;
	}
	return best;
}

static int i64_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/* The capacities of the level-l domains of t for pods of req, largest
 * first, summed: caps[k] is what the k + 1 largest hold; *ret_n of them. */
static int64_t *domain_caps(const struct topo *t, unsigned l,
			    const struct resvec *req, uint32_t *ret_n)
{
	uint32_t lo = t->level_off[l], hi = t->level_off[l + 1];
	int64_t *cap = xcalloc((size_t)(hi - lo) + 1, sizeof(*cap));

	for (uint32_t d = lo; d < hi; d++) {
		for (uint32_t i = 0; i < t->dom_nnodes[d]; i++)
			cap[d - lo] += node_pods(t, t->dom_node[d] + i, req);
	}
	qsort(cap, hi - lo, sizeof(*cap), i64_desc);
	for (uint32_t k = 1; k < hi - lo; k++)
		cap[k] += cap[k - 1];
	*ret_n = hi - lo;
	return cap;
}

/* The fewest of the n domains of summed capacities caps that hold count. */
static int32_t fewest_of(const int64_t *caps, uint32_t n, int32_t count)
{
	uint32_t lo = 0, hi = n;

	if (count <= 0 || n == 0)
		return 1;
	if (caps[n - 1] < count)
		return (int32_t)n; /* all of them, as many as there are */
	while (lo < hi) {	   /* the first k with caps[k] >= count */
		uint32_t mid = lo + (hi - lo) / 2;

		if (caps[mid] >= count)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (int32_t)lo + 1;
}

int32_t topo_fewest_domains(const struct topo *t, unsigned l,
			    const struct resvec *req, int32_t count)
{
	uint32_t n;
	int64_t *caps = domain_caps(t, l, req, &n);
	int32_t k = fewest_of(caps, n, count);

	free(caps);
	return k;
}

/* A memo's key: the topology, the level and the request's values. */
struct fewest_key {
	const struct topo *t;
	int64_t l;
	int64_t v[RESOURCE_MAX];
};

void topo_fewest_memo_init(struct topo_fewest_memo *m)
{
	memset(m, 0, sizeof(*m));
	hmap_init(&m->index);
}

void topo_fewest_memo_release(struct topo_fewest_memo *m)
{
	for (size_t i = 0; i < m->caps.len; i++)
		free(m->caps.items[i].sums);
	vec_release(&m->caps);
	hmap_release(&m->index);
}

int32_t topo_fewest_domains_memo(struct topo_fewest_memo *m,
				 const struct topo *t, unsigned l,
				 const struct resvec *req, int32_t count)
{
	struct fewest_key key;
	int64_t at;

	if (!m)
		return topo_fewest_domains(t, l, req, count);
	memset(&key, 0, sizeof(key));
	key.t = t;
	key.l = l;
	for (int r = 0; r < t->nres && r < RESOURCE_MAX; r++)
		key.v[r] = req->v[r];
	if (!hmap_get(&m->index, &key, sizeof(key), &at)) {
		struct topo_fewest_caps *c = vec_push_zero(&m->caps);

		c->sums = domain_caps(t, l, req, &c->n);
		at = (int64_t)m->caps.len - 1;
		hmap_put(&m->index, &key, sizeof(key), at);
	}
	return fewest_of(m->caps.items[at].sums, m->caps.items[at].n, count);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Domains of level l that the nodes n[0..k) are in. */
int32_t topo_domains_spanned(const struct topo *t, const uint32_t *n, size_t k,
			     unsigned l, uint32_t *tmp)
{
	int32_t c = 0;

	for (size_t i = 0; i < k; i++) {
		uint32_t d = t->node_unit[n[i]];

		while (topo_dom_level(t, d) > l)
			d = t->dom_parent[d];
		tmp[i] = d;
	}
	qsort(tmp, k, sizeof(*tmp), u32_cmp);
	for (size_t i = 0; i < k; i++)
		c += i == 0 || tmp[i] != tmp[i - 1];
	return c;
}

// SPDX-License-Identifier: Apache-2.0
/*
 * The request of one placement turned into Kueue's parameters (search and
 * slice levels, required / unconstrained, LeastFreeCapacity or BestFit,
 * inner slice layers, the requested resources in the order that makes
 * counting cheapest, the tolerations), with Kueue's texts for requests it
 * cannot use, and the key under which the scratch keeps its counts.
 */
#include "place/place_run.h"

#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "model/selector.h"

#include "base/banned.h"

static int name_cmp(const void *a, const void *b, void *arg)
{
	const struct resource_registry *reg = arg;

	return strcmp(resource_name(reg, *(const int *)a),
		      resource_name(reg, *(const int *)b));
}

/*
 * Order the requested resources for fast_count(): the one with the fewest
 * pods over the whole index first, as it is the likeliest to limit.
 */
static void setup_fast_order(struct run *r)
{
	const struct topo *t = r->t;
	int64_t est[RESOURCE_MAX];

	r->nfast = 0;
	for (int i = 0; i < r->nreq; i++) {
		int id = r->req_ids[i];
		int64_t sum = 0;

		if (!r->wreq[id] || id >= t->nres)
			continue;
		for (uint32_t d = t->level_off[0]; d < t->level_off[1]; d++) {
			int64_t f = t->dom_free[(size_t)d * t->nres + id];

			sum += t->dom_live[d] && f > 0 ? f / r->wreq[id] : 0;
		}
		est[r->nfast] = sum;
		r->fast_ids[r->nfast++] = id;
	}
	for (int i = 1; i < r->nfast; i++) {
		for (int j = i; j > 0 && est[j] < est[j - 1]; j--) {
			SWAP(est[j], est[j - 1]);
			SWAP(r->fast_ids[j], r->fast_ids[j - 1]);
		}
	}
}

static void setup_tolerations(struct run *r)
{
	const struct podset *ps = r->req->podset;
	struct place_scratch *s = r->s;

	s->tols.len = 0;
	for (size_t i = 0; i < ps->ntolerations; i++)
		vec_push(&s->tols, ps->tolerations[i]);
	for (size_t i = 0; i < r->req->nflavor_tolerations; i++)
		vec_push(&s->tols, r->req->flavor_tolerations[i]);
}

void place_setup_requests(struct run *r)
{
	const struct podset *ps = r->req->podset;
	const struct resource_registry *reg = r->t->reg;

	r->nreq = 0;
	for (int i = 0; i < RESOURCE_MAX; i++) {
		r->wreq[i] = ps->requests.v[i];
		r->lreq[i] = r->has_leader ? r->req->leader->requests.v[i] : 0;
		if ((r->wreq[i] || r->lreq[i]) && i < reg->count)
			r->req_ids[r->nreq++] = i;
	}
	qsort_r(r->req_ids, (size_t)r->nreq, sizeof(int), name_cmp,
		(void *)reg);
	for (int i = r->t->nres; i < RESOURCE_MAX; i++)
		r->missing |= ps->requests.v[i] > 0;
	r->need_filter = ps->node_selector.len > 0 || ps->affinity.present;
	setup_fast_order(r);
	setup_tolerations(r);
}

static bool use_lfc(const struct placement_config *c, bool unconstrained)
{
	enum placement_algorithm a = c ? c->algorithm : PLACEMENT_MIXED;

	if (a == PLACEMENT_LEAST_FREE_CAPACITY)
		return true;
	return a == PLACEMENT_MIXED && unconstrained;
}

static int level_of(const struct run *r, const char *key)
{
	return key ? topology_level_index(r->t->topology, key) : -1;
}

/* buildSliceSizeAtLevel for the inner layers. */
static bool setup_inner_layers(struct run *r, struct place_result *res)
{
	int32_t prev_size = r->slice_size;
	int prev = (int)r->slice_level;

	for (size_t i = 1; i < r->nlayers; i++) {
		const struct slice_layer *ly = &r->layers[i];
		int l = level_of(r, ly->level);

		if (l < 0) {
			strbuf_addf(&res->reason,
				    "no requested topology level for "
				    "additional slice layer: %s",
				    ly->level);
			return false;
		}
		if (l <= prev) {
			strbuf_addf(&res->reason,
				    "additional slice layer topology %s must "
				    "be at a lower level than %s",
				    ly->level, r->t->topology->levels[prev]);
			return false;
		}
		if (ly->size <= 0 || prev_size % ly->size) {
			strbuf_addf(&res->reason,
				    "additional slice layer size %" PRId32
				    " must evenly divide parent layer size "
				    "%" PRId32,
				    ly->size, prev_size);
			return false;
		}
		for (int k = prev + 1; k <= l; k++)
			r->size_at[k] = ly->size;
		prev_size = ly->size;
		prev = l;
	}
	return true;
}

/* The main level key (levelKeyWithImpliedFallback), or NULL. */
static const char *main_level(const struct run *r, bool slice_only)
{
	const struct topology_request *tr = &r->req->podset->topology;
	const struct topology *tp = r->t->topology;

	switch (tr->mode) {
	case TOPOLOGY_REQUIRED:
	case TOPOLOGY_PREFERRED:
		return tr->level;
	default:
		break;
	}
	if (slice_only)
		return tp->levels[0];
	return tp->levels[tp->nlevels - 1];
}

/* Turn the request into the run's parameters; false with a reason. */
bool place_setup(struct run *r, struct place_result *res)
{
	const struct place_request *req = r->req;
	const struct topology_request *tr = &req->podset->topology;
	const char *key, *skey;
	bool slice_only;
	int l, sl;

	r->layers = tr->slices;
	r->nlayers = tr->nslices;
	if (r->nlayers && !tr->slices[0].level)
		r->nlayers = 0; /* a size alone means single pods */
	if (req->slice_override || req->slice_override_level) {
		r->nlayers = 0;
		r->slice_size = req->slice_override ? req->slice_override : 1;
		skey = req->slice_override_level;
	} else {
		r->slice_size = r->nlayers ? tr->slices[0].size : 1;
		skey = r->nlayers ? tr->slices[0].level : NULL;
	}
	if (skey && r->slice_size <= 0) {
		strbuf_addstr(&res->reason, "slice topology requested, but "
					    "slice size not provided");
		return false;
	}
	slice_only = skey && tr->mode != TOPOLOGY_REQUIRED &&
		     tr->mode != TOPOLOGY_PREFERRED;
	r->required = tr->mode == TOPOLOGY_REQUIRED;
	r->unconstrained = tr->mode == TOPOLOGY_UNCONSTRAINED ||
			   tr->mode == TOPOLOGY_NONE || slice_only;
	r->lfc = use_lfc(req->config, r->unconstrained);
	r->frag = req->config &&
		  req->config->algorithm == PLACEMENT_FRAGMENTATION_AWARE;
	r->aff = req->config && req->config->preferred_node_affinity &&
		 req->podset->npreferred > 0 && r->t->hostname_lowest;
	key = main_level(r, slice_only);
	if (!key) {
		strbuf_addstr(&res->reason, "topology level not specified");
		return false;
	}
	l = level_of(r, key);
	if (l < 0) {
		strbuf_addf(&res->reason, "no requested topology level: %s",
			    key);
		return false;
	}
	if (!skey)
		skey = r->t->topology->levels[r->nlevels - 1];
	sl = level_of(r, skey);
	if (sl < 0) {
		strbuf_addf(&res->reason,
			    "no requested topology level for slices: %s", skey);
		return false;
	}
	if (l > sl) {
		strbuf_addf(&res->reason,
			    "podset slice topology %s is above the podset "
			    "topology %s",
			    skey, key);
		return false;
	}
	r->req_level = (unsigned)l;
	r->slice_level = (unsigned)sl;
	return setup_inner_layers(r, res);
}

static uint64_t hash_str(uint64_t h, const char *str)
{
	if (!str)
		str = "";
	h ^= hmap_hash(str, strlen(str) + 1);
	return h * 0x100000001b3ull;
}

static uint64_t hash_int(uint64_t h, int64_t v)
{
	h ^= hmap_hash(&v, sizeof(v));
	return h * 0x100000001b3ull;
}

/* A hash of what the node filter looks at. */
static uint64_t filter_hash(const struct run *r)
{
	const struct podset *ps = r->req->podset;
	const struct node_affinity *a = &ps->affinity;
	uint64_t h = 0xcbf29ce484222325ull;

	vec_foreach (&r->s->tols, tl) {
		h = hash_str(h, tl->key);
		h = hash_str(h, tl->value);
		h = hash_int(h, tl->op * 16 + tl->effect);
	}
	for (size_t i = 0; i < ps->node_selector.len; i++) {
		h = hash_str(h, ps->node_selector.items[i].key);
		h = hash_str(h, ps->node_selector.items[i].value);
	}
	for (size_t i = 0; r->aff && i < ps->npreferred; i++) {
		const struct selector *m = &ps->preferred[i].match;

		h = hash_int(h, ps->preferred[i].weight);
		for (size_t k = 0; k < m->len; k++) {
			h = hash_str(h, m->reqs[k].key);
			h = hash_int(h, m->reqs[k].op);
			for (size_t v = 0; v < m->reqs[k].nvalues; v++)
				h = hash_str(h, m->reqs[k].values[v]);
		}
	}
	h = hash_int(h, r->aff);
	h = hash_int(h, a->present ? (int64_t)a->len + 1 : 0);
	for (size_t i = 0; a->present && i < a->len; i++) {
		for (size_t k = 0; k < a->terms[i].len; k++) {
			const struct selector_req *q = &a->terms[i].reqs[k];

			h = hash_str(h, q->key);
			h = hash_int(h, q->op);
			for (size_t v = 0; v < q->nvalues; v++)
				h = hash_str(h, q->values[v]);
		}
		h = hash_int(h, -1);
	}
	return h;
}

/* Drop the cached counts unless they were computed for this request. */
void place_setup_cache(struct run *r)
{
	struct place_scratch *s = r->s;
	struct cache_key k;

	memset(&k, 0, sizeof(k));
	k.t = r->t;
	k.generation = r->t->generation;
	k.ndomains = r->t->ndomains;
	k.has_leader = r->has_leader;
	k.filters = r->filters;
	memcpy(k.wreq, r->wreq, sizeof(k.wreq));
	memcpy(k.lreq, r->lreq, sizeof(k.lreq));
	k.slice_size = r->slice_size;
	k.slice_level = r->slice_level;
	memcpy(k.size_at, r->size_at, sizeof(k.size_at));
	k.within = r->req->within;
	k.filter_hash = r->filters ? filter_hash(r) : 0;
	r->use_cache = !r->req->exhaustive && !r->req->cold;
	if (r->use_cache && memcmp(&k, &s->key, sizeof(k)) == 0)
		return;
	memset(s->seen, 0xff, s->cap * sizeof(*s->seen));
	memset(s->ex_seen, 0xff, s->ex_cap * sizeof(*s->ex_seen));
	s->key = k;
}

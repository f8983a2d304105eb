// SPDX-License-Identifier: Apache-2.0
/*
 * Workloads and pod sets: construction and release.
 */
#include "model/workload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "base/banned.h"

/*
 * A workload's pod sets live in a block that counts the workloads holding
 * it (workload_share_podsets()): queued workloads of one shape need one
 * copy, not one each. The array follows the count; w->podsets points at it.
 */
struct podset_block {
	size_t refs;
	struct podset items[];
};

static struct podset_block *block_of(const struct podset *ps)
{
	return (struct podset_block *)((char *)(uintptr_t)ps -
				       offsetof(struct podset_block, items));
}

void podset_init(struct podset *ps)
{
	memset(ps, 0, sizeof(*ps));
	labels_init(&ps->node_selector);
	node_affinity_init(&ps->affinity);
	ps->count = 1;
	ps->min_count = 1;
}

void podset_release(struct podset *ps)
{
	if (!ps)
		return;
	labels_release(&ps->node_selector);
	node_affinity_release(&ps->affinity);
	preferred_terms_free(ps->preferred, ps->npreferred);
	free(ps->tolerations);
	memset(ps, 0, sizeof(*ps));
}

void preferred_terms_free(struct preferred_term *terms, size_t n)
{
	for (size_t i = 0; terms && i < n; i++)
		selector_release(&terms[i].match);
	free(terms);
}

void workload_init(struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->active = true;
	w->job.ready = -1;
}

void topology_assignment_free(struct topology_assignment *ta)
{
	if (!ta)
		return;
	for (size_t i = 0; i < ta->ndomains; i++)
		free(ta->domains[i].values);
	free(ta->domains);
	free(ta->levels);
	free(ta);
}

void workload_release(struct workload *w)
{
	if (!w)
		return;
	if (w->podsets && --block_of(w->podsets)->refs == 0) {
		for (size_t i = 0; i < w->npodsets; i++)
			podset_release(&w->podsets[i]);
		free(block_of(w->podsets));
	}
	labels_release(&w->annotations);
	free(w->cond);
	if (w->admission) {
		for (size_t i = 0; i < w->admission->npodsets; i++)
			topology_assignment_free(
				w->admission->podsets[i].topology);
		free(w->admission);
	}
	memset(w, 0, sizeof(*w));
}

struct podset *workload_add_podset(struct workload *w)
{
	struct podset_block *b = w->podsets ? block_of(w->podsets) : NULL;
	struct podset *ps;

	if (w->npodsets >= WORKLOAD_MAX_PODSETS)
		return NULL;
	BUG_ON(b && b->refs != 1); /* shared pod sets are read-only */
	/* The count and at most WORKLOAD_MAX_PODSETS pod sets: no overflow. */
	b = xreallocarray(b, 1,
			  sizeof(*b) + (w->npodsets + 1) * sizeof(*b->items));
	b->refs = 1;
	w->podsets = b->items;
	ps = &w->podsets[w->npodsets++];
	podset_init(ps);
	return ps;
}

void workload_share_podsets(struct workload *w, const struct workload *src)
{
	BUG_ON(w->podsets || w->npodsets);
	if (!src->podsets)
		return;
	block_of(src->podsets)->refs++;
	w->podsets = src->podsets;
	w->npodsets = src->npodsets;
}

bool workload_podsets_shared(const struct workload *w)
{
	return w->podsets && block_of(w->podsets)->refs > 1;
}

int64_t workload_pod_count(const struct workload *w)
{
	int64_t n = 0;

	for (size_t i = 0; i < w->npodsets; i++)
		n += w->podsets[i].count;
	return n;
}

bool workload_class_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > WORKLOAD_CLASS_MAX_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	return true;
}

const char *topology_mode_name(enum topology_mode mode)
{
	static const char *const names[TOPOLOGY_MODE_COUNT] = {
		[TOPOLOGY_NONE] = "none",
		[TOPOLOGY_REQUIRED] = "required",
		[TOPOLOGY_PREFERRED] = "preferred",
		[TOPOLOGY_UNCONSTRAINED] = "unconstrained",
	};

	return mode < TOPOLOGY_MODE_COUNT ? names[mode] : "?";
}

const char *workload_cond_name(enum workload_cond c)
{
	static const char *const names[WORKLOAD_COND_COUNT] = {
		[WORKLOAD_COND_QUOTA_RESERVED] = "QuotaReserved",
		[WORKLOAD_COND_ADMITTED] = "Admitted",
		[WORKLOAD_COND_EVICTED] = "Evicted",
		[WORKLOAD_COND_PREEMPTED] = "Preempted",
		[WORKLOAD_COND_REQUEUED] = "Requeued",
		[WORKLOAD_COND_FINISHED] = "Finished",
		[WORKLOAD_COND_PODS_READY] = "PodsReady",
	};

	return c < WORKLOAD_COND_COUNT ? names[c] : "?";
}

static int check_slices(const struct podset *ps, struct errbuf *eb)
{
	const struct topology_request *t = &ps->topology;

	for (size_t i = 0; i < t->nslices; i++) {
		int32_t size = t->slices[i].size;
		int32_t outer = i ? t->slices[i - 1].size : ps->count;

		if (!t->slices[i].level)
			return errbuf_set(eb, -EINVAL,
					  "slice %zu: topology is required", i);
		if (size < 1)
			return errbuf_set(eb, -EINVAL,
					  "slice topology requested, but slice "
					  "size not provided");
		if (size > outer || outer % size != 0)
			return errbuf_set(eb, -EINVAL,
					  "slice size %d must evenly divide %s "
					  "%d",
					  size,
					  i ? "the outer slice size" : "count",
					  outer);
		for (size_t j = 0; j < i; j++) {
			if (strcmp(t->slices[j].level, t->slices[i].level) == 0)
				return errbuf_set(eb, -EINVAL,
						  "slice topology \"%s\" is "
						  "used twice",
						  t->slices[i].level);
		}
	}
	return 0;
}

int podset_check_topology(const struct podset *ps, struct errbuf *eb)
{
	const struct topology_request *t = &ps->topology;

	if (t->nslices > SLICE_MAX_LAYERS)
		return errbuf_set(eb, -EINVAL,
				  "at most %d slice layers are allowed",
				  SLICE_MAX_LAYERS);
	if (t->group_name && t->mode != TOPOLOGY_REQUIRED &&
	    t->mode != TOPOLOGY_PREFERRED)
		return errbuf_set(eb, -EINVAL,
				  "podSetGroupName needs a required or "
				  "preferred topology");
	if (ps->count > 0)
		return check_slices(ps, eb);
	return 0;
}

const struct workload_condition *workload_cond(const struct workload *w,
					       enum workload_cond k)
{
	static const struct workload_condition none;

	BUG_ON((unsigned)k >= WORKLOAD_COND_COUNT);
	return w->cond ? &w->cond[k] : &none;
}

struct workload_condition *workload_cond_set(struct workload *w,
					     enum workload_cond k)
{
	BUG_ON((unsigned)k >= WORKLOAD_COND_COUNT);
	if (!w->cond)
		w->cond = xcalloc(WORKLOAD_COND_COUNT, sizeof(*w->cond));
	return &w->cond[k];
}

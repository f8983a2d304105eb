/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small clusters built in code for the topology and placement tests: a
 * topology, nodes named by their path ("b1/r1/h1": one value per level,
 * the last one also the node name) with cpu, gpu and pods, and pod sets.
 * Strings are interned in the fixture, which owns everything it makes.
 */
#ifndef ECHELON_TEST_PLACE_FIXTURE_H
#define ECHELON_TEST_PLACE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/intern.h"
#include "base/strbuf.h"
#include "model/node.h"
#include "model/resource.h"
#include "model/topology.h"
#include "model/workload.h"
#include "place/place.h"
#include "topo/topo.h"

#define FX_MAX_NODES 4096

struct fx {
	struct intern strs;
	struct resource_registry reg;
	struct topology topology;
	struct node *nodes;
	size_t nnodes;
	int gpu;
};

static inline const char *fx_str(struct fx *f, const char *s)
{
	return intern_str(&f->strs, s);
}

/* levels: comma-separated label keys, highest first. */
static inline void fx_init(struct fx *f, const char *levels)
{
	char buf[512];
	char *save = NULL;

	memset(f, 0, sizeof(*f));
	intern_init(&f->strs);
	resource_registry_init(&f->reg);
	f->gpu = resource_id(&f->reg, "nvidia.com/gpu", NULL);
	f->topology.name = fx_str(f, "default");
	snprintf(buf, sizeof(buf), "%s", levels);
	for (char *p = strtok_r(buf, ",", &save); p;
	     p = strtok_r(NULL, ",", &save))
		f->topology.levels[f->topology.nlevels++] = fx_str(f, p);
	f->nodes = xcalloc(FX_MAX_NODES, sizeof(*f->nodes));
}

static inline void fx_release(struct fx *f)
{
	for (size_t i = 0; i < f->nnodes; i++)
		node_release(&f->nodes[i]);
	free(f->nodes);
	resource_registry_release(&f->reg);
	intern_release(&f->strs);
}

/* A node at path with free cpu (cores), gpu and pods. */
static inline struct node *fx_node(struct fx *f, const char *path, int cpu,
				   int gpu, int pods)
{
	struct node *n;
	char buf[256];
	char *save = NULL, *last = NULL;
	size_t l = 0;

	if (f->nnodes >= FX_MAX_NODES)
		abort();
	n = &f->nodes[f->nnodes++];
	node_init(n);
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = strtok_r(buf, "/", &save); p;
	     p = strtok_r(NULL, "/", &save)) {
		if (l < f->topology.nlevels)
			labels_set(&n->labels, f->topology.levels[l++],
				   fx_str(f, p));
		last = p;
	}
	n->name = fx_str(f, last);
	if (!topology_lowest_is_hostname(&f->topology))
		n->name = fx_str(f, path);
	n->allocatable.v[RESOURCE_CPU] = (int64_t)cpu * 1000;
	n->allocatable.v[RESOURCE_PODS] = pods;
	n->allocatable.v[f->gpu] = gpu;
	return n;
}

static inline void fx_podset(struct fx *f, struct podset *ps, int count,
			     int cpu, int gpu, enum topology_mode mode,
			     const char *level)
{
	podset_init(ps);
	ps->name = fx_str(f, "main");
	ps->count = count;
	ps->requests.v[RESOURCE_CPU] = (int64_t)cpu * 1000;
	ps->requests.v[RESOURCE_PODS] = 1;
	ps->requests.v[f->gpu] = gpu;
	ps->topology.mode = mode;
	ps->topology.level = level ? fx_str(f, level) : NULL;
}

/* "h1:2 h3:1" (the last value of each unit), or the reason. */
static inline void fx_format(const struct topo *t,
			     const struct place_result *res, struct strbuf *out)
{
	if (!res->fit) {
		strbuf_addstr(out, res->reason.buf);
		return;
	}
	for (size_t i = 0; i < res->leader.len; i++)
		strbuf_addf(out, "%sL%s:%d", i ? " " : "",
			    t->dom_value[res->leader.items[i].unit],
			    res->leader.items[i].count);
	if (res->leader.len)
		strbuf_addstr(out, " |");
	for (size_t i = 0; i < res->workers.len; i++)
		strbuf_addf(out, "%s%s:%d", i || res->leader.len ? " " : "",
			    t->dom_value[res->workers.items[i].unit],
			    res->workers.items[i].count);
}

#endif

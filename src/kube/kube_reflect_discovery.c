// SPDX-License-Identifier: Apache-2.0
/*
 * Discovery: which of echelon's kinds the API server serves, and at which
 * version. Legacy discovery in two steps: /api and /apis name the group
 * versions, then the resource list of each group version that could hold
 * one of echelon's kinds says whether the resource is there (a group may
 * be served without a given resource: scheduling.k8s.io/v1 has
 * PriorityClasses on every cluster, PodGroups only where the feature is
 * on). Per kind the local storage version is taken when served, else the
 * first other version echelon serves for it (objects are then converted
 * on the way in); native PodGroups prefer v1beta1, then v1alpha2.
 * A failure retries the whole of it after a jittered backoff.
 */
#include "kube/kube_reflect_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"

#include "base/banned.h"

/* Versions tried first for a resource, before the registry's order. */
static const struct {
	const char *group, *resource;
	const char *versions[3];
} preferred[] = {
	{ "scheduling.k8s.io", "podgroups", { "v1beta1", "v1alpha2", NULL } },
};

/* Whether the replica reflects kind k: a storage kind other than Events
 * and Leases (the daemon writes those, never reads them back) and
 * echelon's own configuration. */
static bool reflected(const struct api_kind *k)
{
	return api_kind_storage(k) == k && k->id != API_KIND_EVENT &&
	       k->id != API_KIND_LEASE && strcmp(k->group, "echelon.dev");
}

struct cand {
	const struct api_kind *served;
	const char *version;
};

static void add_versions(const struct api_kind *v, struct cand *out, size_t *n,
			 size_t max)
{
	for (size_t i = 0; i < 3 && v->versions[i]; i++) {
		bool dup = false;

		for (size_t c = 0; c < *n; c++)
			dup |= out[c].served == v &&
			       !strcmp(out[c].version, v->versions[i]);
		if (!dup && *n < max)
			out[(*n)++] = (struct cand){ v, v->versions[i] };
	}
}

/* The (kind, version) pairs kind k may be read as, best first. */
static size_t candidates(const struct api_kind *k, struct cand *out, size_t max)
{
	size_t n = 0;

	for (size_t p = 0; p < ARRAY_SIZE(preferred); p++) {
		if (strcmp(preferred[p].group, k->group) ||
		    strcmp(preferred[p].resource, k->resource))
			continue;
		for (size_t i = 0; i < 3 && preferred[p].versions[i]; i++)
			if (api_kind_serves(k, preferred[p].versions[i]) &&
			    n < max)
				out[n++] = (struct cand){
					k, preferred[p].versions[i]
				};
	}
	/* The storage kind's versions (its own first), then its views'. */
	add_versions(k, out, &n, max);
	for (size_t j = 0; j < api_kind_count(); j++) {
		const struct api_kind *v = api_kind_at(j);

		if (v != k && api_kind_storage(v) == k)
			add_versions(v, out, &n, max);
	}
	return n;
}

static json_t *parse(const struct kube_reply *rep)
{
	if (rep->code != 200 || !rep->body)
		return NULL;
	return json_loadb(rep->body, rep->len, 0, NULL);
}

static void disc_fail(struct kube_reflect *r, const char *what,
		      const struct kube_reply *rep)
{
	log_debug("kube: discovery %s: %d %s", what, rep->code,
		  rep->error ? rep->error : "");
	r->disc_failed = true;
}

static void disc_step(struct kube_reflect *r);

static void on_api(void *ctx, const struct kube_reply *rep)
{
	struct rcall *c = ctx;
	struct kube_reflect *r = c->r;
	json_t *doc = parse(rep), *v;
	size_t i;

	if (!doc) {
		disc_fail(r, "/api", rep);
	} else {
		json_array_foreach(json_object_get(doc, "versions"), i,
				   v) if (json_is_string(v))
			hmap_put_str(&r->gvs, json_string_value(v), 1);
	}
	json_decref(doc);
	kube_reflect_call_end(r, c);
	disc_step(r);
}

static void on_apis(void *ctx, const struct kube_reply *rep)
{
	struct rcall *c = ctx;
	struct kube_reflect *r = c->r;
	json_t *doc = parse(rep), *g, *v;
	size_t i, j;

	if (!doc) {
		disc_fail(r, "/apis", rep);
	} else {
		json_array_foreach(json_object_get(doc, "groups"), i, g)
			json_array_foreach(json_object_get(g, "versions"), j, v)
		{
			const char *gv = json_string_value(
				json_object_get(v, "groupVersion"));

			if (gv)
				hmap_put_str(&r->gvs, gv, 1);
		}
	}
	json_decref(doc);
	kube_reflect_call_end(r, c);
	disc_step(r);
}

static void on_resources(void *ctx, const struct kube_reply *rep)
{
	struct rcall *c = ctx;
	struct kube_reflect *r = c->r;
	json_t *doc = parse(rep), *res;
	char key[256];
	size_t i;

	if (!doc && rep->code != 404) {
		disc_fail(r, c->arg, rep);
	} else {
		json_array_foreach(json_object_get(doc, "resources"), i, res)
		{
			const char *name =
				json_string_value(json_object_get(res, "name"));

			if (!name || strchr(name, '/'))
				continue;
			snprintf(key, sizeof(key), "%s %s", c->arg, name);
			hmap_put_str(&r->served, key, 1);
		}
	}
	json_decref(doc);
	kube_reflect_call_end(r, c);
	disc_step(r);
}

static void get(struct kube_reflect *r, const char *path, const char *arg,
		kube_done_fn done)
{
	struct rcall *c = kube_reflect_call_new(r, arg);
	struct kube_call kc = { .method = "GET",
				.path = path,
				.flags = KUBE_RETRY };

	r->disc_waiting++;
	c->id = kube_send(r->o.tr, &kc, done, NULL, c);
}

/* Ask for the resource list of every group version a kind may be read
 * at. */
static void ask_resources(struct kube_reflect *r)
{
	struct hmap asked;
	struct cand cand[8];
	char gv[96], path[128];

	hmap_init(&asked);
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);
		size_t n;

		if (!reflected(k))
			continue;
		n = candidates(k, cand, ARRAY_SIZE(cand));
		for (size_t c = 0; c < n; c++) {
			api_kind_gv(cand[c].served, cand[c].version, gv,
				    sizeof(gv));
			if (!hmap_get_str(&r->gvs, gv, NULL) ||
			    !hmap_put_str(&asked, gv, 1))
				continue;
			snprintf(path, sizeof(path), "%s/%s",
				 cand[c].served->group[0] ? "/apis" : "/api",
				 gv);
			get(r, path, gv, on_resources);
		}
	}
	hmap_release(&asked);
}

/* Each reflected kind's version from what was found. */
static void choose(struct kube_reflect *r)
{
	struct cand cand[8];
	char gv[96], key[256];

	r->nkinds = 0;
	for (size_t i = 0; i < api_kind_count(); i++) {
		const struct api_kind *k = api_kind_at(i);
		struct rkind *rk;
		size_t n;

		if (!reflected(k))
			continue;
		rk = &r->kinds[r->nkinds++];
		rk->r = r;
		rk->kind = k;
		if (k->group[0])
			snprintf(rk->label, sizeof(rk->label), "%s.%s",
				 k->resource, k->group);
		else
			snprintf(rk->label, sizeof(rk->label), "%s",
				 k->resource);
		n = candidates(k, cand, ARRAY_SIZE(cand));
		for (size_t c = 0; c < n && !rk->version; c++) {
			api_kind_gv(cand[c].served, cand[c].version, gv,
				    sizeof(gv));
			snprintf(key, sizeof(key), "%s %s", gv,
				 cand[c].served->resource);
			if (!hmap_get_str(&r->served, key, NULL))
				continue;
			rk->served = cand[c].served;
			rk->version = cand[c].version;
			rk->convert = cand[c].served != k ||
				      strcmp(cand[c].version, k->versions[0]);
			snprintf(key, sizeof(key), "%s/%s/%s",
				 k->group[0] ? "/apis" : "/api", gv,
				 cand[c].served->resource);
			free(rk->base);
			rk->base = xstrdup(key);
		}
		rk->st = rk->version ? RK_DUE : RK_OFF;
		rk->relist = true;
		rk->any = true;
		rk->due_us = r->now_us;
		hmap_init(&rk->objs);
	}
}

/* Called after each discovery reply: the next phase once all are in. */
static void disc_step(struct kube_reflect *r)
{
	if (--r->disc_waiting)
		return;
	if (r->disc_failed) {
		r->disc_phase = 0;
		r->disc_failed = false;
		r->disc_due_us = r->now_us +
				 kube_reflect_backoff(r, &r->disc_backoff_us);
		return;
	}
	if (r->disc_phase == 1) {
		r->disc_phase = 2;
		r->disc_waiting = 1; /* held while asking */
		ask_resources(r);
		disc_step(r);
		return;
	}
	r->disc_phase = 0;
	r->disc_done = true;
	choose(r);
}

void kube_reflect_discover(struct kube_reflect *r)
{
	if (r->disc_done || r->disc_phase || r->now_us < r->disc_due_us)
		return;
	hmap_release(&r->gvs);
	hmap_release(&r->served);
	hmap_init(&r->gvs);
	hmap_init(&r->served);
	r->disc_phase = 1;
	r->disc_waiting = 1; /* held while sending */
	get(r, "/api", "", on_api);
	get(r, "/apis", "", on_apis);
	disc_step(r);
}

// SPDX-License-Identifier: Apache-2.0
/*
 * Status as a function of the controller's model. Each sync computes the
 * status of every Workload, PodGroup, ClusterQueue and LocalQueue object
 * from the scheduler and the gang lifecycle and writes those that differ
 * from the stored ones, so that a second sync with nothing changed writes
 * nothing. Conditions keep their lastTransitionTime while their status
 * holds, as apimeta.SetStatusCondition keeps it.
 */
#include "serve/serve_status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/vec.h"
#include "manifest/enc.h"
#include "serve/serve_status_int.h"

#include "base/banned.h"

const struct api_kind *ss_kind(const char *api_version, const char *kind)
{
	return api_kind_of(api_version, kind);
}

int ss_put_status(struct ss *ss, const struct api_obj *o, json_t *status)
{
	const json_t *old = json_object_get(o->body, "status");
	json_t *body;
	int rc;

	if (old ? json_equal(old, status) : json_object_size(status) == 0) {
		json_decref(status);
		return 0;
	}
	body = json_deep_copy(o->body);
	json_object_set_new(body, "status", status);
	rc = api_store_update(ss->s, o->kind, body, o->rv, ss->now_us, NULL);
	if (rc < 0) {
		if (!ss->err)
			ss->err = rc;
		return rc;
	}
	ss->writes++;
	return 1;
}

json_t *ss_cond_find(const json_t *conds, const char *type)
{
	size_t i;
	json_t *c;

	json_array_foreach(conds, i, c)
	{
		const char *t = json_string_value(json_object_get(c, "type"));

		if (t && strcmp(t, type) == 0)
			return c;
	}
	return NULL;
}

static bool str_is(const json_t *j, const char *s)
{
	const char *v = json_string_value(j);

	return v && strcmp(v, s) == 0;
}

enum ss_prev ss_cond_set(json_t *conds, const char *type, bool status,
			 const char *reason, const char *message,
			 int64_t transition_us, int64_t gen, int64_t now_us)
{
	json_t *old = ss_cond_find(conds, type), *c = json_object();
	const char *st = status ? "True" : "False";
	enum ss_prev prev = SS_ABSENT;
	bool same_status = false, same = false;

	if (old) {
		same_status = str_is(json_object_get(old, "status"), st);
		prev = str_is(json_object_get(old, "status"), "True")
			       ? SS_TRUE
			       : SS_FALSE;
		same = same_status &&
		       str_is(json_object_get(old, "reason"), reason) &&
		       str_is(json_object_get(old, "message"), message);
	}
	json_object_set_new(c, "type", json_string(type));
	json_object_set_new(c, "status", json_string(st));
	if (same && json_object_get(old, "observedGeneration"))
		json_object_set(c, "observedGeneration",
				json_object_get(old, "observedGeneration"));
	else if (gen >= 0)
		json_object_set_new(c, "observedGeneration", json_integer(gen));
	if (same_status && json_object_get(old, "lastTransitionTime"))
		json_object_set(c, "lastTransitionTime",
				json_object_get(old, "lastTransitionTime"));
	else
		json_object_set_new(c, "lastTransitionTime",
				    enc_timestamp(transition_us > 0
							  ? transition_us
							  : now_us));
	json_object_set_new(c, "reason", json_string(reason));
	/* metav1.Condition's message is required: "" rather than absent */
	json_object_set_new(c, "message", json_string(message ? message : ""));
	if (old) {
		size_t i;
		json_t *k;

		json_array_foreach(conds, i, k)
		{
			if (k == old) {
				json_array_set_new(conds, i, c);
				break;
			}
		}
	} else {
		json_array_append_new(conds, c);
	}
	return prev;
}

struct keys {
	VEC(char *) ns;
	VEC(char *) name;
};

static int take_key(void *ctx, const struct api_obj *o)
{
	struct keys *k = ctx;

	vec_push(&k->ns, xstrdup(o->ns));
	vec_push(&k->name, xstrdup(o->name));
	return 0;
}

void ss_each(struct ss *ss, const struct api_kind *k,
	     void (*fn)(struct ss *ss, const struct api_obj *o))
{
	struct keys keys = { VEC_INIT, VEC_INIT };

	(void)api_store_each(ss->s, k, NULL, NULL, NULL, take_key, &keys);
	for (size_t i = 0; i < keys.ns.len; i++) {
		const struct api_obj *o = api_store_get(
			ss->s, k, keys.ns.items[i], keys.name.items[i]);

		if (o)
			fn(ss, o);
		free(keys.ns.items[i]);
		free(keys.name.items[i]);
	}
	vec_release(&keys.ns);
	vec_release(&keys.name);
}

int64_t ss_generation(const json_t *obj)
{
	const json_t *g =
		json_object_get(json_object_get(obj, "metadata"), "generation");

	return json_is_integer(g) ? (int64_t)json_integer_value(g) : -1;
}

/* Each workload slot's LocalQueue (by its namespace and queue name). */
static void find_local_queues(struct ss *ss)
{
	const struct cluster *c = ss->c;

	for (size_t i = 0; i < c->workloads.len; i++) {
		const struct workload *w = &c->workloads.items[i];
		const struct local_queue *lq =
			ctl_handle(ss->x, (uint32_t)i) && w->queue_name
				? cluster_find(c, KIND_LOCAL_QUEUE, w->ns,
					       w->queue_name)
				: NULL;

		ss->wl_lq[i] = lq ? (int32_t)(lq - c->local_queues.items) : -1;
	}
}

int serve_status_sync(struct api_store *s, const struct ctl *x, int64_t now_us)
{
	struct ss ss = { .s = s, .x = x, .now_us = now_us };
	size_t n;

	ss.c = ctl_cluster(x);
	ss.sc = ctl_sched(x);
	ss.g = ctl_gang(x);
	n = ss.c->workloads.len + 1;
	ss.cq_pos = xcalloc(n, sizeof(*ss.cq_pos));
	ss.lq_pos = xcalloc(n, sizeof(*ss.lq_pos));
	ss.wl_lq = xcalloc(n, sizeof(*ss.wl_lq));
	sched_positions(ss.sc, ss.cq_pos, ss.lq_pos);
	find_local_queues(&ss);
	ss_workloads(&ss);
	ss_cluster_queues(&ss);
	ss_local_queues(&ss);
	free(ss.cq_pos);
	free(ss.lq_pos);
	free(ss.wl_lq);
	return ss.err ? ss.err : ss.writes;
}

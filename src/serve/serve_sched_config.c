// SPDX-License-Identifier: Apache-2.0
/*
 * The controller's cluster from the stored configuration objects: Nodes,
 * Namespaces, Topologies, ResourceFlavors, ClusterQueues, Cohorts,
 * LocalQueues, priority classes and echelon's Configuration, each decoded
 * by src/manifest from its JSON text as a file would be. A change of any
 * of them rebuilds the config part of the cluster through
 * ctl_reconfigure(); a node's Ready condition and cordon go to the
 * controller without a rebuild. An object the decoders refuse is skipped
 * with a Warning Event.
 */
#include "serve/serve_sched_int.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "manifest/manifest.h"
#include "serve/serve_status.h"

#include "base/banned.h"

/* The cluster kinds that come from config objects, swapped whole. */
#define SWAP(a, b)                                                             \
	do {                                                                   \
		__typeof__(a) tmp_ = (a);                                      \
		(a) = (b);                                                     \
		(b) = tmp_;                                                    \
	} while (0)

static void swap_config(struct cluster *c, struct cluster *b)
{
	static const enum kind ks[] = {
		KIND_NAMESPACE,	  KIND_NODE,	       KIND_TOPOLOGY,
		KIND_FLAVOR,	  KIND_CLUSTER_QUEUE,  KIND_COHORT,
		KIND_LOCAL_QUEUE, KIND_PRIORITY_CLASS, KIND_POD_PRIORITY_CLASS,
		KIND_CONFIG,
	};

	SWAP(c->namespaces, b->namespaces);
	SWAP(c->nodes, b->nodes);
	SWAP(c->topologies, b->topologies);
	SWAP(c->flavors, b->flavors);
	SWAP(c->cluster_queues, b->cluster_queues);
	SWAP(c->cohorts, b->cohorts);
	SWAP(c->local_queues, b->local_queues);
	SWAP(c->priority_classes, b->priority_classes);
	SWAP(c->pod_priority_classes, b->pod_priority_classes);
	SWAP(c->configs, b->configs);
	SWAP(c->pod_groups, b->pod_groups);
	for (size_t i = 0; i < ARRAY_SIZE(ks); i++)
		SWAP(c->index[ks[i]], b->index[ks[i]]);
}

/* Decode one stored object into batch (all or nothing); -EINVAL with the
 * decoder's messages in msg. */
static int decode_into(struct cluster *batch, const json_t *obj,
		       struct strbuf *msg)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const json_t *meta = json_object_get(obj, "metadata");
	const char *ns = json_string_value(json_object_get(meta, "namespace"));
	const char *name = json_string_value(json_object_get(meta, "name"));
	char *file = xasprintf("%s/%s%s%s", kind ? kind : "object",
			       ns ? ns : "", ns ? "/" : "", name ? name : "");
	struct diag d;
	int rc;

	diag_init(&d);
	rc = manifest_load_json(batch, file, obj, &d);
	if (rc < 0 && msg)
		diag_format(&d, msg);
	diag_release(&d);
	free(file);
	return rc;
}

struct load_ctx {
	struct serve_sched *x;
	struct cluster *batch;
};

static int load_one(void *ctx, const struct api_obj *o)
{
	struct load_ctx *l = ctx;
	struct serve_sched *x = l->x;
	struct strbuf msg;
	int64_t rv;
	int k = serve_sched_kind(x, o->kind);

	/* what its events are compared against: its first is no change
	 * (else a new leader's first pass built the config a second time,
	 * and rebuilt the controller at its first queue status write) */
	if (k == SK_CLUSTER_QUEUE || k == SK_LOCAL_QUEUE || k == SK_POD_GROUP) {
		struct sev e = { API_ADDED, (enum sk)k, o->body };

		(void)serve_sched_spec_changed(x, &e);
	}
	strbuf_init(&msg);
	if (decode_into(l->batch, o->body, &msg) < 0) {
		/* Validated when written, so rare: say it once per version. */
		if (!hmap_get_str(&x->bad, o->uid, &rv) ||
		    (uint64_t)rv != o->rv) {
			hmap_put_str(&x->bad, o->uid, (int64_t)o->rv);
			serve_sched_warn(x, o->body, "InvalidConfiguration",
					 "skipped by the scheduler: %s",
					 msg.buf);
		}
	}
	strbuf_release(&msg);
	return 0;
}

/* The requests of a pod as the manifests count them (init containers,
 * overhead); false when they cannot be read. */
static bool pod_requests(struct cluster *c, const json_t *pod,
			 struct resvec *ret)
{
	return manifest_pod_requests(c, json_object_get(pod, "spec"), ret) == 0;
}

static const char *pod_uid(const json_t *pod)
{
	return serve_str_at(pod, "metadata", "uid");
}

/* The requests held pod counts with on its node: those it was counted
 * with (held_req), else read now (its spec's containers only: decoding
 * the whole pod was a third of a new leader's first pass over 25,000
 * plain pods, and a rebuild counts every held pod again); false when
 * they cannot be read. */
static bool held_requests(struct serve_sched *x, struct cluster *c,
			  const json_t *pod, struct resvec *ret)
{
	const char *uid = pod_uid(pod);
	int64_t v;

	if (uid && hmap_get_str(&x->held_req, uid, &v)) {
		*ret = *(const struct resvec *)(intptr_t)v;
		return true;
	}
	return pod_requests(c, pod, ret);
}

/* Node usage that is not the controller's: the plain pods bound on it
 * (SP_PLAIN_HELD, see serve_sched_pods.c), and those of a workload
 * waiting for its admission record (SP_AWAIT_HELD). */
static int count_pod(void *ctx, const struct api_obj *o)
{
	struct load_ctx *l = ctx;
	const char *node = serve_str_at(o->body, "spec", "nodeName");
	struct resvec req;
	struct node *n;
	int64_t flags;

	if (!node || !hmap_get_str(&l->x->pods, o->uid, &flags) ||
	    !(flags & (SP_PLAIN_HELD | SP_AWAIT_HELD)))
		return 0;
	n = (struct node *)cluster_find(l->batch, KIND_NODE, NULL, node);
	if (n && held_requests(l->x, l->batch, o->body, &req))
		resvec_add(&n->usage, &req);
	return 0;
}

/* Keep the requests pod is counted with (req), or forget them (NULL). */
static void keep_requests(struct serve_sched *x, const json_t *pod,
			  const struct resvec *req)
{
	const char *uid = pod_uid(pod);
	struct resvec *keep;
	int64_t v;

	if (!uid)
		return;
	if (hmap_get_str(&x->held_req, uid, &v)) {
		keep = (struct resvec *)(intptr_t)v;
		if (req) {
			*keep = *req;
			return;
		}
		free(keep);
		hmap_del(&x->held_req, uid, strlen(uid));
	} else if (req) {
		keep = xmalloc(sizeof(*keep));
		*keep = *req;
		hmap_put_str(&x->held_req, uid, (int64_t)(intptr_t)keep);
	}
}

void serve_sched_plain_usage(struct serve_sched *x, const json_t *pod, int sign)
{
	const char *node = serve_str_at(pod, "spec", "nodeName");
	const struct node *n =
		node ? cluster_find(&x->c, KIND_NODE, NULL, node) : NULL;
	struct resvec req;
	bool held = n && held_requests(x, &x->c, pod, &req);

	/* counted exactly when load_config's count_pod() counts it: held,
	 * on a node of the cluster */
	if (held)
		ctl_node_usage(x->ctl, (uint32_t)(n - x->c.nodes.items), &req,
			       sign, x->now_us);
	keep_requests(x, pod, held && sign > 0 ? &req : NULL);
}

int serve_sched_load_config(void *ctx, struct cluster *c)
{
	struct serve_sched *x = ctx;
	struct cluster batch;
	struct load_ctx l = { x, &batch };

	cluster_init_batch(&batch, c);
	for (int k = 0; k < SK_CONFIG_COUNT; k++) {
		if (x->kinds[k])
			(void)api_store_each(x->s, x->kinds[k], NULL, NULL,
					     NULL, load_one, &l);
	}
	if (x->kinds[SK_POD_GROUP])
		(void)api_store_each(x->s, x->kinds[SK_POD_GROUP], NULL, NULL,
				     NULL, load_one, &l);
	l.batch = c;
	swap_config(c, &batch);
	cluster_release(&batch); /* the old objects */
	if (x->kinds[SK_POD] && x->pods.len)
		(void)api_store_each(x->s, x->kinds[SK_POD], NULL, NULL, NULL,
				     count_pod, &l);
	return 0;
}

/* A node that is not Ready is down for the controller: the embedded
 * cluster's kubelet fails its pods. */
static void nodes_down(struct serve_sched *x)
{
	for (size_t i = 0; i < x->c.nodes.len; i++)
		ctl_node_down(x->ctl, (uint32_t)i, !x->c.nodes.items[i].ready,
			      x->now_us);
}

void serve_sched_reconfigure(struct serve_sched *x)
{
	if (!x->config_dirty) {
		if (x->restoring)
			nodes_down(x);
		return;
	}
	x->config_dirty = false;
	(void)ctl_reconfigure(x->ctl, serve_sched_load_config, x, x->now_us);
	serve_status_reset(x->status);
	nodes_down(x);
}

static bool same_taints(const struct node *a, const struct node *b)
{
	if (a->ntaints != b->ntaints)
		return false;
	for (size_t i = 0; i < a->ntaints; i++) {
		if (a->taints[i].key != b->taints[i].key ||
		    a->taints[i].value != b->taints[i].value ||
		    a->taints[i].effect != b->taints[i].effect)
			return false;
	}
	return true;
}

bool serve_sched_node_changed(struct serve_sched *x, const json_t *body,
			      bool deleted)
{
	const char *name = serve_str_at(body, "metadata", "name");
	const struct node *old;
	struct cluster batch;
	const struct node *n;
	bool rebuild = true;
	uint32_t i;

	old = name ? cluster_find(&x->c, KIND_NODE, NULL, name) : NULL;
	if (!old)
		return true; /* a new node (or one never decoded) */
	i = (uint32_t)(old - x->c.nodes.items);
	if (deleted) {
		/* its gangs are re-placed or evicted before it goes */
		ctl_node_down(x->ctl, i, true, x->now_us);
		return true;
	}
	cluster_init_batch(&batch, &x->c);
	if (decode_into(&batch, body, NULL) == 0 && batch.nodes.len == 1) {
		n = &batch.nodes.items[0];
		rebuild = !labels_contains_all(&n->labels, &old->labels) ||
			  !labels_contains_all(&old->labels, &n->labels) ||
			  !same_taints(n, old) ||
			  memcmp(&n->allocatable, &old->allocatable,
				 sizeof(n->allocatable)) != 0;
		if (!rebuild) {
			bool ready = n->ready, cordon = n->unschedulable;

			ctl_node_status(x->ctl, i, ready, cordon, x->now_us);
			ctl_node_down(x->ctl, i, !ready, x->now_us);
		}
	}
	cluster_release(&batch);
	return rebuild;
}

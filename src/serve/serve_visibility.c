// SPDX-License-Identifier: Apache-2.0
/*
 * Kueue's visibility API (visibility.kueue.x-k8s.io v1beta2, and v1beta1
 * which has the same shape): the pending workloads of a ClusterQueue or a
 * LocalQueue as a PendingWorkloadsSummary, in the order the scheduler's
 * next cycle would try them (sched_positions(): the queue and its parked
 * workloads, as Kueue's snapshot of heap and inadmissible set), with
 * 0-based positions in the ClusterQueue and in the LocalQueue, cut by
 * offset and limit (default 1000). Computed on demand, never stored.
 * Beside Kueue's fields, echelon adds estimatedAdmissionTime to an item
 * whose admission the start-time forecast estimates (ctl_forecast.h);
 * clients that decode Kueue's type ignore it.
 */
#include "serve/serve_status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/compiler.h"
#include "ctl/ctl_forecast.h"
#include "manifest/enc.h"

#include "base/banned.h"

#define VIS_GROUP	  "visibility.kueue.x-k8s.io"
#define VIS_DEFAULT_LIMIT 1000
#define VIS_MAX_LIMIT	  100000 /* Kueue's MaxPendingWorkloadsLimit */

/* What a request asks for. */
struct vis_req {
	char version[16]; /* "v1beta2" */
	char ns[254], name[254];
	bool local; /* a LocalQueue (ns/name), else a ClusterQueue */
	int64_t limit, offset;
};

/* Copy the path segment at *p (up to '/' or the end) into buf; advance. */
static bool segment(const char **p, char *buf, size_t size)
{
	const char *e = strchr(*p, '/');
	size_t n = e ? (size_t)(e - *p) : strlen(*p);

	if (n == 0 || n >= size)
		return false;
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += n + (e ? 1 : 0);
	return true;
}

static bool literal(const char **p, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(*p, word, n) != 0 || ((*p)[n] != '/' && (*p)[n] != '\0'))
		return false;
	*p += n + ((*p)[n] == '/');
	return true;
}

/* Parse .../VERSION/clusterqueues/NAME/pendingworkloads or
 * .../VERSION/namespaces/NS/localqueues/NAME/pendingworkloads. */
static bool parse_path(const char *path, struct vis_req *q)
{
	const char *p = path;

	if (!literal(&p, "/apis") || !literal(&p, VIS_GROUP) ||
	    !segment(&p, q->version, sizeof(q->version)))
		return false;
	if (strcmp(q->version, "v1beta2") != 0 &&
	    strcmp(q->version, "v1beta1") != 0)
		return false;
	q->local = literal(&p, "namespaces");
	if (q->local &&
	    (!segment(&p, q->ns, sizeof(q->ns)) || !literal(&p, "localqueues")))
		return false;
	if (!q->local && !literal(&p, "clusterqueues"))
		return false;
	return segment(&p, q->name, sizeof(q->name)) &&
	       literal(&p, "pendingworkloads") && *p == '\0';
}

/* A decimal of at most 18 digits, clamped to [0, max] as Kueue's
 * boundedLimitOffset does. */
static bool number(const char *s, size_t n, int64_t max, int64_t *ret)
{
	bool neg = n > 0 && (s[0] == '-' || s[0] == '+');
	int64_t v = 0;

	if (neg) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*ret = neg ? 0 : v < max ? v : max;
	return true;
}

/* limit and offset from the query; other parameters are ignored. Returns
 * the name of a bad parameter, or NULL. */
static const char *parse_query(const char *query, struct vis_req *q)
{
	const char *p = query;

	q->limit = VIS_DEFAULT_LIMIT;
	q->offset = 0;
	while (p && *p) {
		const char *amp = strchr(p, '&');
		size_t n = amp ? (size_t)(amp - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		size_t klen = eq ? (size_t)(eq - p) : n;
		const char *v = eq ? eq + 1 : p + n;
		size_t vlen = (size_t)(p + n - v);

		if (klen == 5 && strncmp(p, "limit", 5) == 0) {
			if (!number(v, vlen, VIS_MAX_LIMIT, &q->limit))
				return "limit";
		} else if (klen == 6 && strncmp(p, "offset", 6) == 0) {
			if (!number(v, vlen, INT64_MAX, &q->offset))
				return "offset";
		}
		p = amp ? amp + 1 : NULL;
	}
	return NULL;
}

/* The Workload object's ownerReferences as Kueue's visibility copies
 * them ({apiVersion, kind, name, uid}), or NULL. */
static json_t *owners(const struct api_store *s, const struct workload *w)
{
	const struct api_kind *k =
		s ? api_kind_of("kueue.x-k8s.io/v1beta2", "Workload") : NULL;
	const struct api_obj *o =
		k ? api_store_get(s, k, w->ns ? w->ns : "", w->name) : NULL;
	const json_t *refs =
		o ? json_object_get(json_object_get(o->body, "metadata"),
				    "ownerReferences")
		  : NULL;
	static const char *const keys[] = { "apiVersion", "kind", "name",
					    "uid" };
	json_t *arr, *ref;
	size_t i;

	if (!json_array_size(refs))
		return NULL;
	arr = json_array();
	json_array_foreach(refs, i, ref)
	{
		json_t *r = json_object();

		for (size_t k2 = 0; k2 < ARRAY_SIZE(keys); k2++) {
			json_t *v = json_object_get(ref, keys[k2]);

			if (v)
				json_object_set(r, keys[k2], v);
		}
		json_array_append_new(arr, r);
	}
	return arr;
}

static json_t *item(const struct ctl *x, const struct api_store *s,
		    const struct ctl_forecast *f, uint32_t wl, int64_t cq_pos,
		    int64_t lq_pos)
{
	const struct cluster *c = ctl_cluster(x);
	const struct workload *w = &c->workloads.items[wl];
	json_t *md = json_object(), *refs = owners(s, w), *it;

	json_object_set_new(md, "name", json_string(w->name));
	json_object_set_new(md, "namespace", json_string(w->ns ? w->ns : ""));
	if (refs)
		json_object_set_new(md, "ownerReferences", refs);
	if (w->creation_us)
		json_object_set_new(md, "creationTimestamp",
				    enc_timestamp(w->creation_us));
	it = json_pack("{s:o,s:i,s:s,s:I,s:I}", "metadata", md, "priority",
		       (int)sched_wl_priority(ctl_sched(x), wl),
		       "localQueueName", w->queue_name ? w->queue_name : "",
		       "positionInClusterQueue", (json_int_t)cq_pos,
		       "positionInLocalQueue", (json_int_t)lq_pos);
	if (f && wl < f->n && f->wl[wl].pending &&
	    f->wl[wl].at_us != CTL_FORECAST_UNKNOWN)
		json_object_set_new(it, "estimatedAdmissionTime",
				    enc_timestamp(f->wl[wl].at_us));
	return it;
}

/* The selected workloads in queue order, cut by offset and limit. */
static json_t *items(const struct ctl *x, const struct api_store *s,
		     const struct ctl_forecast *f, const struct vis_req *q,
		     int32_t cq, const struct local_queue *lq)
{
	const struct cluster *c = ctl_cluster(x);
	size_t n = c->workloads.len;
	int64_t *cq_pos = xcalloc(n + 1, sizeof(*cq_pos));
	int64_t *lq_pos = xcalloc(n + 1, sizeof(*lq_pos));
	uint32_t *order = xcalloc(n + 1, sizeof(*order));
	size_t m = 0;
	json_t *arr = json_array();

	sched_positions(ctl_sched(x), cq_pos, lq_pos);
	/* slot of each position in the ClusterQueue */
	for (uint32_t i = 0; i < n; i++)
		order[i] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++) {
		if (ctl_handle(x, i) && cq_pos[i] >= 0 &&
		    sched_wl_cq(ctl_sched(x), i) == cq)
			order[cq_pos[i]] = i;
	}
	for (size_t k = 0; k < n && order[k] != UINT32_MAX; k++) {
		const struct workload *w = &c->workloads.items[order[k]];

		if (lq && (!w->queue_name || strcmp(w->queue_name, lq->name) ||
			   strcmp(w->ns ? w->ns : "", lq->ns)))
			continue;
		if ((int64_t)m++ < q->offset)
			continue;
		if ((int64_t)json_array_size(arr) >= q->limit)
			break;
		json_array_append_new(arr,
				      item(x, s, f, order[k], cq_pos[order[k]],
					   lq_pos[order[k]]));
	}
	free(cq_pos);
	free(lq_pos);
	free(order);
	return arr;
}

int serve_status_visibility(const struct ctl *x, const struct api_req *r,
			    int64_t now_us, struct api_resp *resp)
{
	return serve_status_pending_workloads(x, NULL, r, now_us, resp);
}

int serve_status_pending_workloads(const struct ctl *x,
				   const struct api_store *s,
				   const struct api_req *r, int64_t now_us,
				   struct api_resp *resp)
{
	return serve_status_pending_estimated(x, s, NULL, r, now_us, resp);
}

bool serve_status_is_visibility(const char *path)
{
	return path && strncmp(path, "/apis/" VIS_GROUP "/",
			       strlen("/apis/" VIS_GROUP "/")) == 0;
}

int serve_status_pending_estimated(const struct ctl *x,
				   const struct api_store *s,
				   const struct ctl_forecast *f,
				   const struct api_req *r, int64_t now_us,
				   struct api_resp *resp)
{
	const struct cluster *c = ctl_cluster(x);
	const struct local_queue *lq = NULL;
	const struct cluster_queue *cq;
	struct vis_req q = { 0 };
	const char *bad;
	json_t *reply;
	char *text;

	(void)now_us;
	if (!r->path || !parse_path(r->path, &q))
		return -ENOENT;
	if (strcmp(r->method, "GET") != 0) {
		api_resp_status(resp, 405, "MethodNotAllowed",
				"the server does not allow this method on "
				"the requested resource");
		return 0;
	}
	bad = parse_query(r->query, &q);
	if (bad) {
		api_resp_status(resp, 400, "BadRequest",
				"%s: must be an integer", bad);
		return 0;
	}
	if (q.local) {
		lq = cluster_find(c, KIND_LOCAL_QUEUE, q.ns, q.name);
		/* Kueue's queue manager knows a LocalQueue only with its
		 * ClusterQueue */
		if (!lq || !cluster_find(c, KIND_CLUSTER_QUEUE, NULL,
					 lq->cluster_queue)) {
			api_resp_status(resp, 404, "NotFound",
					"localqueue." VIS_GROUP
					" \"%s\" not found",
					q.name);
			return 0;
		}
	}
	cq = cluster_find(c, KIND_CLUSTER_QUEUE, NULL,
			  lq ? lq->cluster_queue : q.name);
	if (!cq) {
		api_resp_status(resp, 404, "NotFound",
				"clusterqueue." VIS_GROUP " \"%s\" not found",
				lq ? lq->cluster_queue : q.name);
		return 0;
	}
	reply = json_pack("{s:s,s:s+,s:{},s:o}", "kind",
			  "PendingWorkloadsSummary", "apiVersion",
			  VIS_GROUP "/", q.version, "metadata", "items",
			  items(x, s, f, &q,
				(int32_t)(cq - c->cluster_queues.items), lq));
	text = json_dumps(reply, JSON_COMPACT | JSON_PRESERVE_ORDER);
	resp->code = 200;
	resp->content_type = "application/json";
	strbuf_addstr(&resp->body, text);
	free(text);
	json_decref(reply);
	return 0;
}

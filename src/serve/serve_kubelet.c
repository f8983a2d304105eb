// SPDX-License-Identifier: Apache-2.0
/*
 * A simulated kubelet per node, and the node lifecycle around it.
 *
 * A pod bound to a Ready node goes through the stages the kubelet writes:
 * accepted (Pending, containers waiting in ContainerCreating, startTime
 * and hostIP), Running and Ready after the start-up delay (the option,
 * as sim's pod_start_us, plus up to 10% seeded jitter), then Succeeded
 * (containers terminated, Completed, exit 0) after its
 * sim.echelon.dev/duration, or Failed (Error, exit 1) at a time drawn
 * from the failure rate (per running pod-hour, as sim --pod-failures).
 * Without a duration a pod runs until it is deleted. A node annotated
 * sim.echelon.dev/gpu-fault with a slowdown (serve_dcgm.h) runs its pods
 * at that speed: what is left of a run is re-timed when the factor
 * changes; the kubelet stamps when it first saw the fault
 * (sim.echelon.dev/gpu-fault-since) and warns once, as a Node Event, about
 * a value that does not parse. Each kubelet records
 * the Events a kubelet does (Pulling, Pulled, Created, Started, Killing),
 * within its own rate limit, and keeps its node's Lease. With the
 * option no_pod_start, bound pods stay Pending, untouched.
 *
 * Nodes: one whose status no kubelet posted (no Ready condition, or one
 * without times, or no nodeInfo: a manifest's bare Ready) is registered as
 * the kubelet does (Ready=True KubeletReady unless declared not Ready, the
 * pressure conditions, nodeInfo, addresses, allocatable = capacity); one whose
 * Ready turns False or Unknown fails its pods at once (NodeLost), where
 * Kubernetes waits for the NoExecute taint's tolerationSeconds (300 s by
 * default) before evicting them; a deleted node's pods are deleted (PodGC),
 * also at once.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/duration.h"
#include "base/hmap.h"
#include "base/strbuf.h"
#include "model/ann.h"
#include "serve/serve_cluster_int.h"
#include "serve/serve_dcgm.h"
#include "serve/serve_event.h"

#include "base/banned.h"

enum stage { ST_ACCEPTED, ST_RUNNING, ST_SUCCEEDED, ST_FAILED };

/* ---- fake identities ---- */

static uint64_t hash2(const char *a, const char *b)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s/%s", a, b);

	return hmap_hash(buf,
			 (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void node_ip(const char *node, char buf[24])
{
	uint64_t h = hash2("node", node);

	snprintf(buf, 24, "10.0.%u.%u", (unsigned)(h >> 8) & 255,
		 1 + (unsigned)(h % 254));
}

static void pod_ip(const char *uid, char buf[24])
{
	uint64_t h = hash2("pod", uid);

	snprintf(buf, 24, "10.%u.%u.%u", 64 + (unsigned)(h % 64),
		 (unsigned)(h >> 8) & 255, 1 + (unsigned)((h >> 16) % 254));
}

static void hex_id(const char *a, const char *b, char buf[72])
{
	uint64_t h = hash2(a, b);

	snprintf(buf, 72, "%016llx%016llx%016llx%016llx", (unsigned long long)h,
		 (unsigned long long)hmap_hash(&h, sizeof(h)),
		 (unsigned long long)(h * 0x9e3779b97f4a7c15ULL),
		 (unsigned long long)~h);
}

static const char *host_ip(const json_t *node, const char *name, char buf[24])
{
	size_t i;
	json_t *a;

	json_array_foreach(cl_get(node, "status.addresses"), i, a)
	{
		const char *t = cl_str(a, "type"), *v = cl_str(a, "address");

		if (t && v && strcmp(t, "InternalIP") == 0 && strlen(v) < 24) {
			snprintf(buf, 24, "%s", v);
			return buf;
		}
	}
	node_ip(name, buf);
	return buf;
}

static void set_ips(json_t *status, const char *key, const char *ip)
{
	json_t *list = json_array(), *one = json_object();

	json_object_set_new(status, key, json_string(ip));
	json_object_set_new(one, "ip", json_string(ip));
	json_array_append_new(list, one);
	json_object_set_new(
		status, strcmp(key, "podIP") == 0 ? "podIPs" : "hostIPs", list);
}

/* ---- pod status ---- */

/* Conditions in the kubelet's order; others after them. */
static void order_conditions(json_t *status)
{
	static const char *const order[] = { "PodReadyToStartContainers",
					     "Initialized", "Ready",
					     "ContainersReady",
					     "PodScheduled" };
	json_t *conds = json_object_get(status, "conditions");
	json_t *sorted = json_array();
	size_t i;
	json_t *c;

	if (!conds)
		return json_decref(sorted);
	for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
		c = cl_cond(conds, order[k]);
		if (c)
			json_array_append(sorted, c);
	}
	json_array_foreach(conds, i, c)
	{
		const char *t = cl_str(c, "type");
		bool known = false;

		for (size_t k = 0; t && k < ARRAY_SIZE(order); k++)
			known |= strcmp(t, order[k]) == 0;
		if (!known)
			json_array_append(sorted, c);
	}
	json_object_set_new(status, "conditions", sorted);
}

static void names_of(const json_t *spec, const char *list, struct strbuf *sb)
{
	size_t i;
	json_t *c;

	strbuf_addch(sb, '[');
	json_array_foreach(json_object_get(spec, list), i, c)
		strbuf_addf(sb, "%s%s", i ? " " : "",
			    cl_str(c, "name") ? cl_str(c, "name") : "");
	strbuf_addch(sb, ']');
}

static const char *started_at(const json_t *old, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(old, "containerStatuses"), i, c)
	{
		const char *n = cl_str(c, "name");

		if (n && name && strcmp(n, name) == 0)
			return cl_str(c, "state.running.startedAt");
	}
	return NULL;
}

/* The statuses of the containers of list ("containers" or
 * "initContainers") at stage st. */
static json_t *container_statuses(const json_t *pod, const char *list,
				  enum stage st, int64_t now_us, bool init,
				  const char *uid)
{
	const json_t *spec = json_object_get(pod, "spec");
	const json_t *old = json_object_get(pod, "status");
	json_t *out = json_array();
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(spec, list), i, c)
	{
		const char *name = cl_str(c, "name") ? cl_str(c, "name") : "";
		const char *image =
			cl_str(c, "image") ? cl_str(c, "image") : "";
		json_t *cs = json_object(), *state = json_object();
		json_t *inner = json_object();
		char id[72], buf[96];
		bool up = st == ST_RUNNING && !init;
		const char *since = started_at(old, name);

		json_object_set_new(cs, "name", json_string(name));
		json_object_set_new(cs, "image", json_string(image));
		hex_id(image, "image", id);
		snprintf(buf, sizeof(buf), "sha256:%.64s", id);
		json_object_set_new(cs, "imageID",
				    json_string(st == ST_ACCEPTED ? "" : buf));
		if (st != ST_ACCEPTED) {
			hex_id(uid, name, id);
			snprintf(buf, sizeof(buf), "containerd://%.64s", id);
			json_object_set_new(cs, "containerID",
					    json_string(buf));
		}
		json_object_set_new(cs, "ready", json_boolean(up));
		json_object_set_new(cs, "restartCount", json_integer(0));
		json_object_set_new(cs, "started", json_boolean(up));
		if (st == ST_ACCEPTED) {
			json_object_set_new(inner, "reason",
					    json_string("ContainerCreating"));
			json_object_set_new(state, "waiting", inner);
		} else if (up) {
			json_object_set_new(inner, "startedAt",
					    cl_jtime(now_us));
			json_object_set_new(state, "running", inner);
		} else {
			bool ok = init || st == ST_SUCCEEDED;

			json_object_set_new(inner, "containerID",
					    json_string(buf));
			json_object_set_new(inner, "exitCode",
					    json_integer(ok ? 0 : 1));
			json_object_set_new(inner, "finishedAt",
					    cl_jtime(now_us));
			json_object_set_new(
				inner, "reason",
				json_string(ok ? "Completed" : "Error"));
			json_object_set_new(inner, "startedAt",
					    since ? json_string(since)
						  : cl_jtime(now_us));
			json_object_set_new(state, "terminated", inner);
		}
		json_object_set_new(cs, "state", state);
		json_object_set_new(cs, "lastState", json_object());
		json_array_append_new(out, cs);
	}
	return out;
}

static void pod_conditions(json_t *status, const json_t *spec, enum stage st,
			   int64_t now_us)
{
	struct strbuf msg;
	bool inits = json_array_size(json_object_get(spec, "initContainers"));
	const char *why = st == ST_SUCCEEDED ? "PodCompleted" : "PodFailed";

	strbuf_init(&msg);
	cl_set_cond(status, "PodReadyToStartContainers",
		    st == ST_RUNNING ? "True" : "False", NULL, NULL, now_us,
		    CL_COND_POD);
	if (st == ST_ACCEPTED && inits) {
		strbuf_addstr(&msg, "containers with incomplete status: ");
		names_of(spec, "initContainers", &msg);
		cl_set_cond(status, "Initialized", "False",
			    "ContainersNotInitialized", msg.buf, now_us,
			    CL_COND_POD);
	} else {
		cl_set_cond(status, "Initialized", "True",
			    st == ST_SUCCEEDED ? "PodCompleted" : NULL, NULL,
			    now_us, CL_COND_POD);
	}
	strbuf_reset(&msg);
	if (st == ST_RUNNING) {
		cl_set_cond(status, "Ready", "True", NULL, NULL, now_us,
			    CL_COND_POD);
		cl_set_cond(status, "ContainersReady", "True", NULL, NULL,
			    now_us, CL_COND_POD);
	} else if (st == ST_ACCEPTED) {
		strbuf_addstr(&msg, "containers with unready status: ");
		names_of(spec, "containers", &msg);
		cl_set_cond(status, "Ready", "False", "ContainersNotReady",
			    msg.buf, now_us, CL_COND_POD);
		cl_set_cond(status, "ContainersReady", "False",
			    "ContainersNotReady", msg.buf, now_us, CL_COND_POD);
	} else {
		cl_set_cond(status, "Ready", "False", why, NULL, now_us,
			    CL_COND_POD);
		cl_set_cond(status, "ContainersReady", "False", why, NULL,
			    now_us, CL_COND_POD);
	}
	order_conditions(status);
	strbuf_release(&msg);
}

static int write_stage(struct serve_cluster *c, const struct api_obj *o,
		       const json_t *node, enum stage st, int64_t now_us)
{
	static const char *const phase[] = { "Pending", "Running", "Succeeded",
					     "Failed" };
	/* the new version shares all but its status with o's */
	json_t *pod = json_copy(o->body);
	json_t *status = json_deep_copy(json_object_get(o->body, "status"));
	const json_t *spec = json_object_get(pod, "spec");
	const char *nname = cl_str(pod, "spec.nodeName");
	char ip[24];

	if (!json_is_object(status)) {
		json_decref(status);
		status = json_object();
	}
	json_object_set_new(pod, "status", status);

	json_object_set_new(status, "phase", json_string(phase[st]));
	pod_conditions(status, spec, st, now_us);
	set_ips(status, "hostIP", host_ip(node, nname, ip));
	if (st == ST_ACCEPTED)
		json_object_set_new(status, "startTime", cl_jtime(now_us));
	if (st == ST_RUNNING) {
		pod_ip(o->uid, ip);
		set_ips(status, "podIP", ip);
	}
	if (json_array_size(json_object_get(spec, "initContainers")) &&
	    st != ST_ACCEPTED)
		json_object_set_new(status, "initContainerStatuses",
				    container_statuses(o->body,
						       "initContainers", st,
						       now_us, true, o->uid));
	json_object_set_new(status, "containerStatuses",
			    container_statuses(o->body, "containers", st,
					       now_us, false, o->uid));
	return cl_update(c, o, pod, now_us);
}

/* A pod whose node stopped being Ready: Failed, NodeLost. */
static void node_lost(struct serve_cluster *c, const struct api_obj *o,
		      int64_t now_us)
{
	json_t *pod = json_deep_copy(o->body);
	json_t *status = cl_obj(pod, "status");
	char msg[600];

	snprintf(msg, sizeof(msg),
		 "Node %s which was running pod %s is unresponsive",
		 cl_str(pod, "spec.nodeName"), o->name);
	json_object_set_new(status, "phase", json_string("Failed"));
	json_object_set_new(status, "reason", json_string("NodeLost"));
	json_object_set_new(status, "message", json_string(msg));
	if (json_object_get(status, "conditions")) {
		cl_set_cond(status, "Ready", "False", NULL, NULL, now_us,
			    CL_COND_POD);
		cl_set_cond(status, "ContainersReady", "False", NULL, NULL,
			    now_us, CL_COND_POD);
		order_conditions(status);
	}
	cl_disarm_mark(c, o->uid, CL_T_START);
	cl_disarm_mark(c, o->uid, CL_T_END);
	cl_disarm_mark(c, o->uid, CL_T_FAIL);
	(void)cl_update(c, o, pod, now_us);
}

/* ---- the kubelet's Events ---- */

/*
 * What a kubelet records for a pod it starts, per container (init
 * containers first): Pulling and Pulled (or Pulled "already present"),
 * Created, Started; and Killing for each running container when the pod
 * is deleted. Component "kubelet", host and reportingInstance the node,
 * involvedObject.fieldPath the container, no action (the kubelet's
 * recorder sets none). Each kubelet records at most EVENT_BURST at once,
 * refilled at EVENT_QPS per second of the wall clock (its eventBurst and
 * eventRecordQPS defaults; the API server's load is in wall time at any
 * --speed); beyond that they are dropped, as a kubelet's full event
 * queue drops them.
 */
#define KUBELET	    "kubelet"
#define EVENT_QPS   50
#define EVENT_BURST 100

static bool may_record(struct serve_cluster *c, const char *node,
		       int64_t now_us)
{
	struct cl_bucket *b;
	int64_t i;

	if (!hmap_get_str(&c->bucket_index, node, &i)) {
		i = (int64_t)c->buckets.len;
		hmap_put_str(&c->bucket_index, node, i);
		b = vec_push_zero(&c->buckets);
		b->tokens = EVENT_BURST;
		b->at_us = now_us;
	}
	b = &c->buckets.items[i];
	if (now_us > b->at_us) {
		b->tokens += (double)(now_us - b->at_us) * EVENT_QPS /
			     (1e6 * c->o.speed);
		if (b->tokens > EVENT_BURST)
			b->tokens = EVENT_BURST;
		b->at_us = now_us;
	}
	if (b->tokens < 1)
		return false;
	b->tokens -= 1;
	return true;
}

/* One Event about container name of list ("containers",
 * "initContainers") of pod, on node, stamped at_us. */
static void kubelet_event(struct serve_cluster *c, const json_t *pod,
			  const char *node, const char *list, const char *name,
			  const char *reason, int64_t at_us, const char *msg)
{
	char path[320];
	struct serve_event_source src = {
		.component = KUBELET,
		.instance = node,
		.host = node,
		.field_path = path,
	};

	snprintf(path, sizeof(path), "spec.%s{%s}", list, name);
	if (may_record(c, node, c->now_us) &&
	    serve_event_from(c->s, pod, &src, "Normal", reason, NULL, at_us,
			     "%s", msg) == 0)
		c->writes++;
}

/* Go's time.Duration.String() of us truncated to milliseconds, as the
 * kubelet prints pull times: "0s", "850ms", "10.5s", "1m2.25s". */
static void go_duration(int64_t us, char *buf, size_t size)
{
	int64_t ms = us < 0 ? 0 : us / 1000;
	int64_t h = ms / 3600000, m = ms / 60000 % 60, sec = ms / 1000 % 60;
	int64_t frac = ms % 1000;
	char s[32];
	int n;

	if (ms < 1000) {
		snprintf(buf, size, ms ? "%lldms" : "0s", (long long)ms);
		return;
	}
	n = snprintf(s, sizeof(s), "%lld.%03lld", (long long)sec,
		     (long long)frac);
	while (n > 0 && s[n - 1] == '0')
		s[--n] = '\0';
	if (n > 0 && s[n - 1] == '.')
		s[--n] = '\0';
	if (h)
		snprintf(buf, size, "%lldh%lldm%ss", (long long)h, (long long)m,
			 s);
	else if (m)
		snprintf(buf, size, "%lldm%ss", (long long)m, s);
	else
		snprintf(buf, size, "%ss", s);
}

/* Whether the kubelet pulls image for pod uid: Always every time,
 * IfNotPresent when the node has not got it (the pod that pulled it is
 * kept, so that its own Pulled says so), Never not. */
static bool pulls(struct serve_cluster *c, const char *node, const json_t *ctr,
		  const char *uid)
{
	const char *policy = cl_str(ctr, "imagePullPolicy");
	const char *image = cl_str(ctr, "image");
	int64_t me = (int64_t)(hmap_hash(uid, strlen(uid)) >> 1), who;
	struct strbuf key;
	bool r;

	if (!image || (policy && strcmp(policy, "Never") == 0))
		return false;
	if (policy && strcmp(policy, "Always") == 0)
		return true;
	strbuf_init(&key);
	strbuf_addf(&key, "%s/%s", node, image);
	if (!hmap_get_str(&c->images, key.buf, &who)) {
		hmap_put_str(&c->images, key.buf, me);
		who = me;
	}
	r = who == me;
	strbuf_release(&key);
	return r;
}

/* Accepted: the images to pull are being pulled. */
static void accepted_events(struct serve_cluster *c, const json_t *pod,
			    const char *node, int64_t now_us)
{
	static const char *const lists[] = { "initContainers", "containers" };
	const char *uid = cl_str(pod, "metadata.uid");
	char msg[600];
	size_t i;
	json_t *ctr;

	/* startTime has whole seconds of the wall clock: the pull time is
	 * measured from here, on the embedded clock. */
	if (uid)
		hmap_put_str(&c->pulling, uid, now_us);
	for (size_t l = 0; uid && l < ARRAY_SIZE(lists); l++)
		json_array_foreach(
			json_object_get(cl_get(pod, "spec"), lists[l]), i, ctr)
		{
			const char *name = cl_str(ctr, "name");

			if (!name || !pulls(c, node, ctr, uid))
				continue;
			snprintf(msg, sizeof(msg), "Pulling image \"%s\"",
				 cl_str(ctr, "image"));
			kubelet_event(c, pod, node, lists[l], name, "Pulling",
				      now_us, msg);
		}
}

/* Running: each container pulled (or found), created and started. */
static void started_events(struct serve_cluster *c, const json_t *pod,
			   const char *node, int64_t now_us)
{
	static const char *const lists[] = { "initContainers", "containers" };
	const char *uid = cl_str(pod, "metadata.uid");
	int64_t since = -1;
	char msg[700], took[80];
	size_t i;
	json_t *ctr;

	if (uid && hmap_get_str(&c->pulling, uid, &since))
		hmap_del(&c->pulling, uid, strlen(uid));
	else /* accepted before a restart */
		since = cl_parse_time(cl_str(pod, "status.startTime"));
	go_duration(since < 0 ? 0 : now_us - since, took, sizeof(took));
	for (size_t l = 0; uid && l < ARRAY_SIZE(lists); l++)
		json_array_foreach(
			json_object_get(cl_get(pod, "spec"), lists[l]), i, ctr)
		{
			const char *name = cl_str(ctr, "name");
			const char *image = cl_str(ctr, "image");

			if (!name || !image)
				continue;
			if (pulls(c, node, ctr, uid))
				snprintf(msg, sizeof(msg),
					 "Successfully pulled image \"%s\" in "
					 "%s (%s including waiting). Image "
					 "size: %llu bytes.",
					 image, took, took,
					 10000000ULL +
						 hmap_hash(image,
							   strlen(image)) %
							 990000000ULL);
			else
				snprintf(msg, sizeof(msg),
					 "Container image \"%s\" already "
					 "present on machine",
					 image);
			kubelet_event(c, pod, node, lists[l], name, "Pulled",
				      now_us, msg);
			snprintf(msg, sizeof(msg), "Created container: %s",
				 name);
			kubelet_event(c, pod, node, lists[l], name, "Created",
				      now_us, msg);
			snprintf(msg, sizeof(msg), "Started container %s",
				 name);
			kubelet_event(c, pod, node, lists[l], name, "Started",
				      now_us, msg);
		}
}

/* The pod is deleted while it runs: its running containers are
 * stopped, once, by a kubelet that is there (its node exists and is
 * Ready: PodGC's deletes of a deleted node's pods have none). */
static void killing_events(struct serve_cluster *c, const json_t *pod,
			   int64_t now_us)
{
	const char *uid = cl_str(pod, "metadata.uid");
	const char *node = cl_str(pod, "spec.nodeName");
	const char *phase = cl_str(pod, "status.phase");
	const struct api_obj *n =
		node ? api_store_get(c->s, c->node_k, "", node) : NULL;
	char msg[600];
	size_t i;
	json_t *cs;

	if (!uid || !n || !cl_cond_true(n->body, "Ready") || !phase ||
	    strcmp(phase, "Running") != 0 || !hmap_put_str(&c->killed, uid, 1))
		return;
	json_array_foreach(cl_get(pod, "status.containerStatuses"), i, cs)
	{
		const char *name = cl_str(cs, "name");

		if (!name || !cl_get(cs, "state.running"))
			continue;
		snprintf(msg, sizeof(msg), "Stopping container %s", name);
		kubelet_event(c, pod, node, "containers", name, "Killing",
			      now_us, msg);
	}
}

void cl_kubelet_gone(struct serve_cluster *c, const json_t *body)
{
	const char *uid = cl_str(body, "metadata.uid");

	if (uid) {
		hmap_del(&c->pulling, uid, strlen(uid));
		hmap_del(&c->speed, uid, strlen(uid));
	}
	if (uid && hmap_get_str(&c->killed, uid, NULL)) {
		hmap_del(&c->killed, uid, strlen(uid)); /* stopped already */
		return;
	}
	if (cl_str(body, "spec.nodeName") && !cl_terminal(body))
		vec_push(&c->stopped, json_incref((json_t *)body));
}

void cl_kubelet_stopped(struct serve_cluster *c, int64_t now_us)
{
	for (size_t i = 0; i < c->stopped.len; i++) {
		const char *uid = cl_str(c->stopped.items[i], "metadata.uid");

		killing_events(c, c->stopped.items[i], now_us);
		if (uid)
			hmap_del(&c->killed, uid, strlen(uid));
		json_decref(c->stopped.items[i]);
	}
	c->stopped.len = 0;
}

void cl_kubelet_release(struct serve_cluster *c)
{
	for (size_t i = 0; i < c->stopped.len; i++)
		json_decref(c->stopped.items[i]);
	vec_release(&c->stopped);
	vec_release(&c->buckets);
	hmap_release(&c->bucket_index);
	hmap_release(&c->images);
	hmap_release(&c->pulling);
	hmap_release(&c->killed);
	hmap_release(&c->speed);
	hmap_release(&c->fault_warned);
}

/* ---- stages ---- */

static int64_t duration_of(const json_t *pod)
{
	const char *s = json_string_value(json_object_get(
		cl_get(pod, "metadata.annotations"), ANN_SIM_DURATION));
	int64_t us;

	if (!s || duration_parse_time(s, strlen(s), &us, NULL) != 0 || us <= 0)
		return -1;
	return us;
}

#define PPM 1000000.0

/* Arm the end of a pod running since start_us on node: its duration,
 * stretched by the node's GPU slowdown (sim.echelon.dev/gpu-fault), or
 * the failure drawn from the rate when that comes first. */
static void arm_run(struct serve_cluster *c, const struct api_obj *o,
		    const json_t *node, int64_t start_us)
{
	double speed = serve_dcgm_slowdown(node);
	int64_t d = duration_of(o->body), fail = -1;

	if (d > 0 && speed < 1)
		d = (int64_t)((double)d / speed);
	hmap_put_str(&c->speed, o->uid, llround(speed * PPM));

	if (c->o.pod_failure_rate > 0) {
		double u = rng_double(&c->rng);
		double h = -log1p(-u) / c->o.pod_failure_rate;

		fail = h * 3.6e9 < 1e15 ? (int64_t)(h * 3.6e9) : -1;
	}
	if (fail >= 0 && (d < 0 || fail < d))
		cl_arm(c, CL_T_FAIL, start_us + fail, o->ns, o->name, o->uid);
	else if (d >= 0)
		cl_arm(c, CL_T_END, start_us + d, o->ns, o->name, o->uid);
}

static int64_t startup(struct serve_cluster *c)
{
	int64_t s = c->o.startup_us;

	return s + (int64_t)rng_below(&c->rng, (uint64_t)(s / 10) + 1);
}

static bool node_ready(const json_t *node)
{
	return cl_cond_true(node, "Ready");
}

/* The node of running pod o changed speed: what is left of its run
 * takes old/new as long (the work done so far stays done). */
static void respeed(struct serve_cluster *c, const struct api_obj *o,
		    const json_t *node, int64_t now_us)
{
	int64_t was, now = llround(serve_dcgm_slowdown(node) * PPM);
	int64_t end = cl_armed_at(c, o->uid, CL_T_END);

	if (end < 0 || !hmap_get_str(&c->speed, o->uid, &was) || was == now)
		return;
	hmap_put_str(&c->speed, o->uid, now);
	if (end > now_us)
		cl_arm(c, CL_T_END,
		       now_us + (int64_t)((double)(end - now_us) * (double)was /
					  (double)now),
		       o->ns, o->name, o->uid);
}

void cl_kubelet_pod(struct serve_cluster *c, const char *ns, const char *name,
		    int64_t now_us)
{
	const struct api_obj *o = api_store_get(c->s, c->pod_k, ns, name);
	const struct api_obj *node;
	const char *nname, *phase;
	int64_t start;

	if (!o)
		return;
	if (cl_deleting(o->body) || cl_terminal(o->body)) {
		const json_t *ref = cl_controller_ref(o->body);
		const char *job = ref ? cl_str(ref, "uid") : NULL;

		if (cl_deleting(o->body))
			killing_events(c, o->body, now_us);
		/* The Job controller lets the pods of a gone Job go. */
		if (!job || !api_store_find_uid(c->s, job))
			(void)cl_release_finalizer(c, o, CL_JOB_TRACKING,
						   now_us);
		return;
	}
	nname = cl_str(o->body, "spec.nodeName");
	if (!nname)
		return;
	node = api_store_get(c->s, c->node_k, "", nname);
	if (!node) {
		(void)cl_delete(c, o, now_us); /* PodGC: no such node */
		return;
	}
	if (!node_ready(node->body)) {
		if (cl_cond(cl_get(node->body, "status.conditions"), "Ready"))
			node_lost(c, o, now_us);
		return; /* not registered yet: its check comes first */
	}
	phase = cl_str(o->body, "status.phase");
	if (!phase || strcmp(phase, "Pending") == 0) {
		if (c->o.no_pod_start || cl_armed(c, o->uid, CL_T_START))
			return;
		start = cl_parse_time(cl_str(o->body, "status.startTime"));
		if (start < 0) {
			char *nsc = xstrdup(o->ns), *nm = xstrdup(o->name);
			char *uid = xstrdup(o->uid);

			if (write_stage(c, o, node->body, ST_ACCEPTED,
					now_us) == 0) {
				cl_arm(c, CL_T_START, now_us + startup(c), nsc,
				       nm, uid);
				o = api_store_get(c->s, c->pod_k, nsc, nm);
				if (o)
					accepted_events(c, o->body, node->name,
							now_us);
			}
			free(nsc);
			free(nm);
			free(uid);
			return;
		}
		start += startup(c);
		cl_arm(c, CL_T_START, start > now_us ? start : now_us, o->ns,
		       o->name, o->uid);
	} else if (strcmp(phase, "Running") == 0 &&
		   !cl_armed(c, o->uid, CL_T_END) &&
		   !cl_armed(c, o->uid, CL_T_FAIL)) {
		const json_t *cs = json_array_get(
			cl_get(o->body, "status.containerStatuses"), 0);

		start = cl_parse_time(cl_str(cs, "state.running.startedAt"));
		arm_run(c, o, node->body, start < 0 ? now_us : start);
	} else if (strcmp(phase, "Running") == 0) {
		respeed(c, o, node->body, now_us);
	}
}

void cl_kubelet_timer(struct serve_cluster *c, const struct cl_timer *t,
		      int64_t now_us)
{
	const struct api_obj *o = api_store_get(c->s, c->pod_k, t->ns, t->name);
	const struct api_obj *node;
	const char *phase, *nname;
	enum stage st;

	if (!o || strcmp(o->uid, t->uid) != 0 || cl_deleting(o->body) ||
	    cl_terminal(o->body))
		return;
	nname = cl_str(o->body, "spec.nodeName");
	node = nname ? api_store_get(c->s, c->node_k, "", nname) : NULL;
	if (!node || !node_ready(node->body))
		return;
	phase = cl_str(o->body, "status.phase");
	phase = phase ? phase : "Pending";
	if (t->kind == CL_T_START && strcmp(phase, "Pending") == 0)
		st = ST_RUNNING;
	else if (t->kind == CL_T_END && strcmp(phase, "Running") == 0)
		st = ST_SUCCEEDED;
	else if (t->kind == CL_T_FAIL && strcmp(phase, "Running") == 0)
		st = ST_FAILED;
	else
		return;
	if (st != ST_RUNNING)
		hmap_del(&c->speed, t->uid, strlen(t->uid));
	if (write_stage(c, o, node->body, st, now_us) != 0 || st != ST_RUNNING)
		return;
	o = api_store_get(c->s, c->pod_k, t->ns, t->name);
	if (o) {
		arm_run(c, o, node->body, now_us);
		started_events(c, o->body, node->name, now_us);
	}
}

/* ---- nodes ---- */

static void set_default(json_t *o, const char *key, json_t *v)
{
	if (!json_object_get(o, key))
		json_object_set_new(o, key, v);
	else
		json_decref(v);
}

static void node_info(json_t *status, const char *uid)
{
	json_t *info = cl_obj(status, "nodeInfo");
	char id[72], buf[40];

	hex_id(uid, "machine", id);
	snprintf(buf, sizeof(buf), "%.32s", id);
	set_default(info, "architecture", json_string("amd64"));
	set_default(info, "bootID", json_string(buf));
	set_default(info, "containerRuntimeVersion",
		    json_string("containerd://2.0.0"));
	set_default(info, "kernelVersion", json_string("6.1.0-echelon"));
	set_default(info, "kubeProxyVersion", json_string(""));
	set_default(info, "kubeletVersion", json_string(CL_KUBELET_VER));
	set_default(info, "machineID", json_string(buf));
	set_default(info, "operatingSystem", json_string("linux"));
	set_default(info, "osImage", json_string("echelon simulated node"));
	set_default(info, "systemUUID", json_string(buf));
}

static void register_node(json_t *node, const char *name, const char *uid,
			  int64_t now_us)
{
	json_t *status = cl_obj(node, "status");
	json_t *labels = cl_obj(cl_obj(node, "metadata"), "labels");
	json_t *cap = json_object_get(status, "capacity");
	json_t *alloc = json_object_get(status, "allocatable"), *ready;
	const char *st;
	char ip[24];

	cl_set_cond(status, "MemoryPressure", "False",
		    "KubeletHasSufficientMemory",
		    "kubelet has sufficient memory available", now_us,
		    CL_COND_NODE);
	cl_set_cond(status, "DiskPressure", "False", "KubeletHasNoDiskPressure",
		    "kubelet has no disk pressure", now_us, CL_COND_NODE);
	cl_set_cond(status, "PIDPressure", "False", "KubeletHasSufficientPID",
		    "kubelet has sufficient PID available", now_us,
		    CL_COND_NODE);
	ready = cl_cond(cl_arr(status, "conditions"), "Ready");
	st = ready ? json_string_value(json_object_get(ready, "status")) : NULL;
	if (!st || strcmp(st, "True") == 0) {
		cl_set_cond(status, "Ready", "True", "KubeletReady",
			    "kubelet is posting ready status", now_us,
			    CL_COND_NODE);
		ready = cl_cond(cl_arr(status, "conditions"), "Ready");
	}
	/* A node declared not Ready stays so; every Ready gets the times a
	 * kubelet's status has. */
	set_default(ready, "lastHeartbeatTime", cl_jtime(now_us));
	set_default(ready, "lastTransitionTime", cl_jtime(now_us));
	node_info(status, uid);
	if (!json_array_size(json_object_get(status, "addresses"))) {
		json_t *a = json_array(), *x = json_object(),
		       *y = json_object();

		node_ip(name, ip);
		json_object_set_new(x, "type", json_string("InternalIP"));
		json_object_set_new(x, "address", json_string(ip));
		json_object_set_new(y, "type", json_string("Hostname"));
		json_object_set_new(y, "address", json_string(name));
		json_array_append_new(a, x);
		json_array_append_new(a, y);
		json_object_set_new(status, "addresses", a);
	}
	if (json_is_object(cap) && !json_is_object(alloc))
		json_object_set(status, "allocatable", cap);
	else if (json_is_object(alloc) && !json_is_object(cap))
		json_object_set(status, "capacity", alloc);
	set_default(cl_obj(status, "daemonEndpoints"), "kubeletEndpoint",
		    json_pack("{s:i}", "Port", 10250));
	set_default(labels, "kubernetes.io/arch", json_string("amd64"));
	set_default(labels, "kubernetes.io/hostname", json_string(name));
	set_default(labels, "kubernetes.io/os", json_string("linux"));
}

/* Whether a kubelet posted the node's status: a node from a manifest
 * (or --cluster) may come with a bare Ready condition, or get one back
 * from the -f files at a restart. */
static bool registered(const json_t *node)
{
	const json_t *ready =
		cl_cond(cl_get(node, "status.conditions"), "Ready");

	return ready && json_object_get(ready, "lastHeartbeatTime") &&
	       json_is_object(cl_get(node, "status.nodeInfo"));
}

static bool bound_to(const json_t *pod, const char *node)
{
	const char *n = cl_str(pod, "spec.nodeName");

	return n && strcmp(n, node) == 0;
}

static void pods_on(struct serve_cluster *c, const char *node,
		    struct cl_refs *out)
{
	cl_index_get(&c->on_node, c->s, node, bound_to, out);
}

/* ---- node leases ---- */

/*
 * The kubelet's node Lease (kube-node-lease/<node>): holderIdentity the
 * node, leaseDurationSeconds 40, renewTime a MicroTime, an ownerReference
 * to the Node (so the garbage collector deletes it with the node). The
 * kubelet renews every 10 s (a quarter of the duration); here the 10 s
 * are of the wall clock, as a client compares renewTime with its own
 * clock, and grow with the cluster beyond 1,000 nodes so that all the
 * renewals together stay at LEASE_WRITES_PER_S writes per wall second.
 */
#define LEASE_DURATION_S   40
#define LEASE_RENEW_US	   (10 * 1000000LL)
#define LEASE_WRITES_PER_S 100

static int64_t lease_interval(const struct serve_cluster *c)
{
	int64_t n = (int64_t)api_store_count(c->s, c->node_k);
	int64_t wall = n * 1000000 / LEASE_WRITES_PER_S;

	if (wall < LEASE_RENEW_US)
		wall = LEASE_RENEW_US;
	return (int64_t)((double)wall * c->o.speed);
}

static json_t *jmicro(int64_t us)
{
	char buf[40];

	return json_string(api_store_microtime(us, buf, sizeof(buf)));
}

/* The Lease's body as the kubelet writes it, from old (NULL: new). */
static json_t *lease_body(const json_t *old, const struct api_obj *node,
			  bool renew, int64_t now_us)
{
	json_t *l = old ? json_deep_copy(old) : json_object();
	json_t *meta = cl_obj(l, "metadata"), *spec = cl_obj(l, "spec");
	const json_t *ref =
		json_array_get(json_object_get(meta, "ownerReferences"), 0);
	const char *ouid = ref ? cl_str(ref, "uid") : NULL;

	json_object_set_new(l, "apiVersion",
			    json_string("coordination.k8s.io/v1"));
	json_object_set_new(l, "kind", json_string("Lease"));
	json_object_set_new(meta, "name", json_string(node->name));
	json_object_set_new(meta, "namespace", json_string(CL_LEASE_NS));
	/* A node made again under the same name takes its Lease over. */
	if (!ouid || strcmp(ouid, node->uid) != 0)
		json_object_set_new(meta, "ownerReferences",
				    json_pack("[{s:s,s:s,s:s,s:s}]",
					      "apiVersion", "v1", "kind",
					      "Node", "name", node->name, "uid",
					      node->uid));
	json_object_set_new(spec, "holderIdentity", json_string(node->name));
	json_object_set_new(spec, "leaseDurationSeconds",
			    json_integer(LEASE_DURATION_S));
	if (renew || !json_object_get(spec, "renewTime"))
		json_object_set_new(spec, "renewTime", jmicro(now_us));
	return l;
}

/* Create, take over or renew node's Lease; arm the next renewal while
 * the node is Ready (a node not Ready stops renewing). */
static void lease_sync(struct serve_cluster *c, const struct api_obj *node,
		       bool renew, int64_t now_us)
{
	const struct api_obj *o =
		api_store_get(c->s, c->lease_k, CL_LEASE_NS, node->name);
	bool ready = node_ready(node->body);
	int64_t every = lease_interval(c), last;
	char *name = xstrdup(node->name), *uid = xstrdup(node->uid);

	if (!o) {
		(void)cl_create(c, c->lease_k,
				lease_body(NULL, node, true, now_us), now_us,
				&o);
	} else {
		last = cl_parse_time(cl_str(o->body, "spec.renewTime"));
		renew = ready && (renew || last < 0 || last + every <= now_us);
		(void)cl_update(c, o, lease_body(o->body, node, renew, now_us),
				now_us);
		o = api_store_get(c->s, c->lease_k, CL_LEASE_NS, name);
	}
	last = o ? cl_parse_time(cl_str(o->body, "spec.renewTime")) : -1;
	if (ready && last >= 0)
		cl_arm(c, CL_T_LEASE,
		       last + every > now_us ? last + every : now_us + every,
		       "", name, uid);
	free(name);
	free(uid);
}

void cl_lease_timer(struct serve_cluster *c, const struct cl_timer *t,
		    int64_t now_us)
{
	const struct api_obj *node =
		api_store_get(c->s, c->node_k, "", t->name);

	if (!node || strcmp(node->uid, t->uid) != 0 || cl_deleting(node->body))
		return;
	lease_sync(c, node, true, now_us);
}

/* Bad fault values remembered as warned about, at most. */
#define MAX_FAULT_WARNED 4096

/* A node's simulated GPU fault (serve_dcgm.h): stamp the time it was
 * first seen, drop the stamp once it is gone, and warn once, as a Node
 * Event, about a value that does not parse (the node then shows none).
 * Returns whether it wrote the node (its echo brings the next check). */
static bool fault_sync(struct serve_cluster *c, const struct api_obj *o,
		       int64_t now_us)
{
	const json_t *ann = cl_get(o->body, "metadata.annotations");
	const char *v =
		json_string_value(json_object_get(ann, SERVE_DCGM_FAULT_ANN));
	bool since = json_object_get(ann, SERVE_DCGM_SINCE_ANN) != NULL;
	struct serve_event_source src = { .component = KUBELET,
					  .instance = o->name,
					  .host = o->name };
	struct serve_dcgm_fault f;
	struct errbuf err;
	char key[600];
	json_t *node;

	if (v && serve_dcgm_fault_parse(v, &f, &err) != 0) {
		if (c->fault_warned.len >= MAX_FAULT_WARNED) {
			hmap_release(&c->fault_warned); /* may warn again */
			hmap_init(&c->fault_warned);
		}
		snprintf(key, sizeof(key), "%s=%s", o->name, v);
		if (hmap_put_str(&c->fault_warned, key, 1) &&
		    serve_event_from(c->s, o->body, &src, "Warning",
				     "InvalidGPUFault", NULL, now_us, "%s: %s",
				     SERVE_DCGM_FAULT_ANN, err.msg) == 0)
			c->writes++;
		v = NULL; /* shows no fault */
	}
	if (!v == !since)
		return false;
	node = json_deep_copy(o->body);
	if (v)
		json_object_set_new(
			cl_obj(cl_obj(node, "metadata"), "annotations"),
			SERVE_DCGM_SINCE_ANN, cl_jtime(now_us));
	else
		json_object_del(cl_obj(cl_obj(node, "metadata"), "annotations"),
				SERVE_DCGM_SINCE_ANN);
	return cl_update(c, o, node, now_us) == 0;
}

void cl_node_check(struct serve_cluster *c, const char *name, int64_t now_us)
{
	const struct api_obj *o = api_store_get(c->s, c->node_k, "", name);
	struct cl_refs pods = { 0 };

	if (!o || cl_deleting(o->body))
		return;
	if (!registered(o->body)) {
		json_t *node = json_deep_copy(o->body);

		/* Its echo brings the check of the pods bound to it. */
		register_node(node, o->name, o->uid, now_us);
		(void)cl_update(c, o, node, now_us);
		return;
	}
	if (fault_sync(c, o, now_us))
		return;
	if (!cl_armed(c, o->uid, CL_T_LEASE))
		lease_sync(c, o, false, now_us);
	pods_on(c, name, &pods);
	vec_foreach (&pods, p) {
		char key[512];

		snprintf(key, sizeof(key), "%s/%s", p->ns, p->name);
		cl_keyset_add(&c->pods, key);
	}
	cl_refs_release(&pods);
}

void cl_node_deleted(struct serve_cluster *c, const char *name, int64_t now_us)
{
	struct cl_refs pods = { 0 };

	if (api_store_get(c->s, c->node_k, "", name))
		return; /* created again */
	pods_on(c, name, &pods);
	vec_foreach (&pods, p) {
		const struct api_obj *o =
			api_store_get(c->s, c->pod_k, p->ns, p->name);

		if (o && strcmp(o->uid, p->uid) == 0)
			(void)cl_delete(c, o, now_us);
	}
	cl_refs_release(&pods);
}

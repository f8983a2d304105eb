// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the controller: exact cases (two gangs losing pods on one
 * failed node, binds that fail or never complete, stale handles) and a
 * randomized run against a fault-injecting backend (binds that complete
 * late, fail with conflict, pod gone or node gone, in seeded random order)
 * with the invariants checked after every event: no node over capacity,
 * no quota over its limit, no gang partly bound longer than the bind
 * timeout, every admitted gang bound whole or evicted whole in the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>

#include "base/rng.h"
#include "ctl/ctl.h"
#include "ctl/ctl_int.h"
#include "obs/obs_metrics.h"
#include "sched/quota.h"
#include "sim/trace.h"
#include "test_sched_fixture.h"
#include "testutil.h"

#include "base/banned.h"

#define S    ((int64_t)1000000)
#define MAXP 64

/* A backend that records calls and keeps the pods per node. */
struct be {
	struct cluster *c;
	struct ctl *x;
	struct strbuf log;
	int gpu;
	int64_t *node_gpus;	    /* GPUs bound per node (done binds) */
	int32_t pod_node[64][MAXP]; /* -1: not bound */
	bool binding[64][MAXP];	    /* started, not completed */
	int64_t bind_start[64];	    /* first pending bind of a gang */
	int mode;		    /* 0: done; 1: started; 2: fail at once */
	struct rng rng;		    /* randomized mode */
	bool random;
	int evicted[64], released[64];
	bool going[64]; /* released, its pods not yet reported gone */
	bool obs;	/* log CTL_EV_BOUND, _READY and _FINISHED too */
};

static int64_t pod_gpus(const struct be *b, uint32_t wl)
{
	const struct workload *w = &b->c->workloads.items[wl];

	return b->gpu >= 0 ? w->podsets[0].requests.v[b->gpu] : 0;
}

static void bound(struct be *b, uint32_t wl, uint32_t pod, uint32_t node)
{
	b->pod_node[wl][pod] = (int32_t)node;
	if (node != CTL_NO_NODE)
		b->node_gpus[node] += pod_gpus(b, wl);
}

static int be_bind(void *ctx, uint32_t wl, uint32_t pod, uint32_t node)
{
	struct be *b = ctx;
	int mode = b->mode;

	strbuf_addf(&b->log, "bind %s/%u %s; ", b->c->workloads.items[wl].name,
		    pod,
		    node == CTL_NO_NODE ? "-" : b->c->nodes.items[node].name);
	if (b->pod_node[wl][pod] >= 0) { /* moved */
		b->node_gpus[b->pod_node[wl][pod]] -= pod_gpus(b, wl);
		b->pod_node[wl][pod] = -1;
	}
	if (b->random)
		mode = (int)rng_below(&b->rng, 10) < 6	 ? 0
		       : (int)rng_below(&b->rng, 10) < 8 ? 1
							 : 2;
	if (mode == 2)
		return -EEXIST;
	if (mode == 1) {
		b->binding[wl][pod] = true;
		b->pod_node[wl][pod] = (int32_t)node; /* where, once done */
		return CTL_BIND_STARTED;
	}
	bound(b, wl, pod, node);
	return CTL_BIND_DONE;
}

static void be_release(void *ctx, uint32_t wl)
{
	struct be *b = ctx;

	strbuf_addf(&b->log, "release %s; ", b->c->workloads.items[wl].name);
	for (uint32_t p = 0; p < MAXP; p++) {
		if (b->pod_node[wl][p] >= 0 && !b->binding[wl][p])
			b->node_gpus[b->pod_node[wl][p]] -= pod_gpus(b, wl);
		b->pod_node[wl][p] = -1;
		b->binding[wl][p] = false;
	}
	b->released[wl]++;
	b->going[wl] = true;
	b->bind_start[wl] = -1;
}

static void be_event(void *ctx, const struct ctl_event *e)
{
	struct be *b = ctx;

	if (!b->obs && (e->kind == CTL_EV_BOUND || e->kind == CTL_EV_READY ||
			e->kind == CTL_EV_FINISHED))
		return;
	strbuf_addf(&b->log, "%s %s", ctl_event_kind_name(e->kind),
		    b->c->workloads.items[e->wl].name);
	if (e->reason)
		strbuf_addf(&b->log, " %s", e->reason);
	strbuf_addstr(&b->log, "; ");
	if (e->kind != CTL_EV_ADMITTED && e->kind != CTL_EV_REPLACED)
		b->evicted[e->wl]++;
}

static const struct ctl_backend_ops be_ops = { be_bind, be_release, be_event };

static void be_init(struct be *b, struct cluster *c)
{
	memset(b, 0, sizeof(*b));
	b->c = c;
	strbuf_init(&b->log);
	b->gpu = resource_lookup(c->resources, "nvidia.com/gpu");
	b->node_gpus = xcalloc(c->nodes.len + 1, sizeof(*b->node_gpus));
	for (size_t w = 0; w < 64; w++)
		for (size_t p = 0; p < MAXP; p++)
			b->pod_node[w][p] = -1;
}

static void be_release_all(struct be *b)
{
	strbuf_release(&b->log);
	free(b->node_gpus);
}

/* Free a test's controller, backend and cluster. */
static void stop(struct ctl *x, struct be *b, struct cluster *c)
{
	ctl_free(x);
	be_release_all(b);
	cluster_release(c);
}

static void node(struct strbuf *sb, const char *name, int gpus)
{
	strbuf_addf(sb,
		    "---\napiVersion: v1\nkind: Node\n"
		    "metadata: {name: %s, labels: {pool: g, rack: r0, "
		    "kubernetes.io/hostname: %s}}\n"
		    "status: {allocatable: {cpu: \"8\", pods: \"10\", "
		    "nvidia.com/gpu: \"%d\"}}\n",
		    name, name, gpus);
}

static void queues_with(struct strbuf *sb, const char *preemption, int64_t gpus)
{
	strbuf_addstr(sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			  "spec: {levels: [{nodeLabel: rack}, "
			  "{nodeLabel: kubernetes.io/hostname}]}\n"
			  "---\n" K2 "kind: ResourceFlavor\nmetadata: "
			  "{name: f}\nspec: {nodeLabels: {pool: g}, "
			  "topologyName: t}\n");
	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
		    "spec:\n  preemption: {withinClusterQueue: %s}\n"
		    "  resourceGroups:\n  - coveredResources: "
		    "[cpu, nvidia.com/gpu]\n    flavors: [{name: f, "
		    "resources: [{name: cpu, nominalQuota: 1000}, "
		    "{name: nvidia.com/gpu, nominalQuota: %" PRId64 "}]}]\n",
		    preemption, gpus);
	fx_lq(sb, "lq", "q");
}

static void queues(struct strbuf *sb)
{
	strbuf_addstr(sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			  "spec: {levels: [{nodeLabel: rack}, "
			  "{nodeLabel: kubernetes.io/hostname}]}\n"
			  "---\n" K2 "kind: ResourceFlavor\nmetadata: "
			  "{name: f}\nspec: {nodeLabels: {pool: g}, "
			  "topologyName: t}\n"
			  "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
			  "spec:\n  resourceGroups:\n  - coveredResources: "
			  "[cpu, nvidia.com/gpu]\n    flavors: [{name: f, "
			  "resources: [{name: cpu, nominalQuota: 1000}, "
			  "{name: nvidia.com/gpu, nominalQuota: 1000}]}]\n");
	fx_lq(sb, "lq", "q");
}

/* A running 2-pod gang of 1 GPU each on hosts h1 and h2. */
static void admitted_gang(struct strbuf *sb, const char *name, const char *h1,
			  const char *h2)
{
	fx_wl(sb, name, "lq", 0, 2, "1", 1,
	      "    topologyRequest: {required: rack}\n");
	strbuf_addf(sb,
		    "status:\n  admission:\n    clusterQueue: q\n"
		    "    podSetAssignments:\n    - name: main\n      count: 2\n"
		    "      flavors: {cpu: f, nvidia.com/gpu: f}\n"
		    "      topologyAssignment: {levels: "
		    "[kubernetes.io/hostname], domains: [{values: [%s], "
		    "count: 1}, {values: [%s], count: 1}]}\n",
		    h1, h2);
}

/*
 * n1 (2 GPUs) holds a pod of gang a and one of gang b; n2, n3 hold their
 * other pods, n4 has the only free GPU. When n1 fails, one gang moves to
 * n4 and the other, with no room left in the rack, is evicted: never both
 * onto n4 (the double booking of a driver that moved usage after the
 * lifecycle's call instead of during it).
 */
static void test_one_node_two_gangs(void **state)
{
	struct cluster c;
	struct strbuf sb;
	struct ctl *x;
	struct be b;
	uint32_t n1, n4;

	(void)state;
	strbuf_init(&sb);
	node(&sb, "n1", 2);
	node(&sb, "n2", 1);
	node(&sb, "n3", 1);
	node(&sb, "n4", 1);
	queues(&sb);
	admitted_gang(&sb, "a", "n1", "n2");
	admitted_gang(&sb, "b", "n1", "n3");
	fx_load(&c, sb.buf);
	be_init(&b, &c);
	x = ctl_new(&c, NULL, &be_ops, &b);
	for (uint32_t w = 0; w < 2; w++) {
		assert_int_equal(ctl_adopt(x, ctl_handle(x, w), 0, NULL), 0);
		for (uint32_t p = 0; p < 2; p++)
			assert_int_equal(ctl_pod_event(x, ctl_handle(x, w), p,
						       CTL_POD_READY, 0),
					 0);
	}
	assert_string_equal(b.log.buf, "");
	n1 = (uint32_t)(cluster_find(&c, KIND_NODE, NULL, "n1") -
			(const void *)c.nodes.items) /
	     sizeof(struct node);
	n4 = (uint32_t)(cluster_find(&c, KIND_NODE, NULL, "n4") -
			(const void *)c.nodes.items) /
	     sizeof(struct node);
	ctl_node_down(x, n1, true, 10 * S);
	ctl_run(x, 10 * S);
	assert_string_equal(b.log.buf,
			    "bind a/0 n4; release b; Replaced a NodeReplaced; "
			    "Evicted b NodeFailures; ");
	/* The scheduler's index holds one pod on n4, as the backend does. */
	{
		const struct topo *t = sched_topo(ctl_sched(x), 0);
		int64_t i = topo_find_node(t, "n4");

		assert_true(i >= 0);
		assert_true(topo_check(t, NULL));
		assert_int_equal(b.node_gpus[n4], 1);
	}
	stop(x, &b, &c);
	strbuf_release(&sb);
}

/* One queue with four 1-GPU hosts and the given gangs (2 pods each). */
static void small(struct cluster *c, int gangs)
{
	struct strbuf sb;
	char name[24];

	strbuf_init(&sb);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		node(&sb, name, 1);
	}
	queues(&sb);
	for (int i = 0; i < gangs; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		fx_wl(&sb, name, "lq", 0, 2, "1", 1,
		      "    topologyRequest: {required: rack}\n");
	}
	fx_load(c, sb.buf);
	strbuf_release(&sb);
}

/* A controller over small(gangs) with the recording backend in mode
 * (0 done, 1 started, 2 refused) and options o (NULL ok). */
static struct ctl *start(struct cluster *c, struct be *b, int gangs, int mode,
			 const struct ctl_options *o)
{
	struct ctl *x;

	small(c, gangs);
	be_init(b, c);
	b->mode = mode;
	x = ctl_new(c, o, &be_ops, b);
	b->x = x;
	return x;
}

/* A bind that fails later evicts the whole gang, which comes back. */
static void test_bind_failure(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h;

	(void)state;
	x = start(&c, &b, 1, 1, NULL);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n1; ");
	strbuf_reset(&b.log);
	assert_int_equal(ctl_bind_result(x, h, 0, 0, S), 0);
	assert_int_equal(ctl_bind_result(x, h, 1, -ENOENT, S), 0);
	assert_string_equal(b.log.buf, "release w0; Evicted w0 BindFailed; ");
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_PENDING);
	strbuf_reset(&b.log);
	b.mode = 0;
	ctl_run(x, S);
	assert_int_equal(ctl_next_wakeup_us(x, S), 2 * S); /* backoff 1 s */
	ctl_run(x, 2 * S);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n1; ");
	/* A late result of the evicted attempt changes nothing. */
	assert_int_equal(ctl_bind_result(x, h, 1, -EEXIST, 3 * S), 0);
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_ADMITTED);
	assert_int_equal(ctl_stats(x).bind_failures, 1);
	stop(x, &b, &c);
}

/* Live (wait_victims), a gang evicted because a bind failed keeps its
 * quota and nodes until the backend says its pods are gone: its bound pod
 * may still be on n0, so nothing, not even the gang itself after its
 * backoff, is placed there before. */
static void test_bind_failure_held(void **state)
{
	static const struct ctl_options o = { .wait_victims = true };
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h;

	(void)state;
	x = start(&c, &b, 1, 1, &o);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	strbuf_reset(&b.log);
	assert_int_equal(ctl_bind_result(x, h, 0, 0, S), 0);
	assert_int_equal(ctl_bind_result(x, h, 1, -EEXIST, S), 0);
	assert_string_equal(b.log.buf, "release w0; Evicted w0 BindFailed; ");
	assert_true(sched_wl_held(ctl_sched(x), 0));
	strbuf_reset(&b.log);
	b.mode = 0;
	ctl_run(x, 2 * S); /* its backoff is over, its pods are not gone */
	ctl_run(x, 5 * S);
	assert_string_equal(b.log.buf, "");
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_PENDING);
	assert_int_equal(ctl_released(x, h, 6 * S), 0);
	assert_false(sched_wl_held(ctl_sched(x), 0));
	ctl_run(x, 6 * S);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n1; ");
	assert_true(ctl_check(x, NULL));
	stop(x, &b, &c);
}

/*
 * The events an observer counts on: Bound once all binds completed (late
 * ones too), Ready once every pod is Ready and not again after a pod
 * restarts, Finished at ctl_finish(); each carries the controller's time.
 */
static void test_observed_events(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h;

	(void)state;
	x = start(&c, &b, 1, 1, NULL);
	b.obs = true;
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_int_equal(ctl_bind_result(x, h, 0, 0, S), 0);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n1; ");
	assert_int_equal(ctl_bind_result(x, h, 1, 0, 2 * S), 0);
	assert_string_equal(b.log.buf, "Admitted w0; bind w0/0 n0; "
				       "bind w0/1 n1; Bound w0; ");
	strbuf_reset(&b.log);
	assert_int_equal(ctl_pod_event(x, h, 0, CTL_POD_READY, 3 * S), 0);
	assert_string_equal(b.log.buf, "");
	assert_int_equal(ctl_pod_event(x, h, 1, CTL_POD_READY, 4 * S), 0);
	assert_string_equal(b.log.buf, "Ready w0; ");
	assert_int_equal(ctl_pod_event(x, h, 1, CTL_POD_RESTARTED, 5 * S), 0);
	assert_int_equal(ctl_pod_event(x, h, 1, CTL_POD_READY, 6 * S), 0);
	assert_string_equal(b.log.buf, "Ready w0; ");
	assert_int_equal(ctl_finish(x, h, 7 * S), 0);
	assert_string_equal(b.log.buf, "Ready w0; Finished w0; ");
	assert_int_equal(ctl_stats(x).cycles_admitted, 1);
	stop(x, &b, &c);
}

/* Binds that never complete: the gang is evicted at the bind timeout. */
static void test_bind_timeout(void **state)
{
	struct ctl_options o = { .bind_timeout_us = 5 * S };
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h;

	(void)state;
	x = start(&c, &b, 1, 1, &o);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_int_equal(ctl_bind_result(x, h, 0, 0, S), 0);
	assert_int_equal(ctl_next_wakeup_us(x, S), 5 * S);
	strbuf_reset(&b.log);
	ctl_run(x, 4 * S);
	assert_string_equal(b.log.buf, "");
	ctl_run(x, 5 * S);
	assert_string_equal(b.log.buf, "release w0; Evicted w0 BindTimeout; ");
	strbuf_reset(&b.log);
	ctl_run(x, 6 * S);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n1; ");
	stop(x, &b, &c);
}

/*
 * A bind reported done and then undone (the pod bound elsewhere, a bind
 * the cluster refused after all): ctl_evict() evicts the gang whole with
 * the backend's reason and queues it again after the bind backoff; only
 * an admitted gang; ctl_wl_bound() says bound while it was.
 */
static void test_evict(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h;

	(void)state;
	x = start(&c, &b, 2, 0, NULL);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_evict(x, h, "PodBoundElsewhere", 0), -EINVAL);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_true(ctl_wl_bound(x, 0));
	assert_false(ctl_wl_bound(x, 1));
	strbuf_reset(&b.log);
	assert_int_equal(ctl_evict(x, h, "PodBoundElsewhere", S), 0);
	assert_string_equal(b.log.buf,
			    "release w0; Evicted w0 PodBoundElsewhere; ");
	assert_false(ctl_wl_bound(x, 0));
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_PENDING);
	assert_int_equal(ctl_evict(x, h, "BindFailed", S), -EINVAL);
	assert_int_equal(
		ctl_evict(x, CTL_HANDLE(0, CTL_GEN(h) + 1), "BindFailed", S),
		-ESTALE);
	ctl_run(x, S);
	assert_int_equal(ctl_next_wakeup_us(x, S), 2 * S); /* backoff 1 s */
	strbuf_reset(&b.log);
	ctl_run(x, 2 * S);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n1; ");
	assert_true(ctl_wl_bound(x, 0));
	stop(x, &b, &c);
}

/* A bind refused at once is a failure too; a stale handle is refused. */
static void test_bind_refused_and_stale(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h;

	(void)state;
	x = start(&c, &b, 2, 2, NULL);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_true(b.evicted[0] >= 1);
	assert_int_equal(ctl_submit(x, CTL_HANDLE(0, CTL_GEN(h) + 1), true, 0),
			 -ESTALE);
	assert_int_equal(ctl_submit(x, CTL_HANDLE(7, 1), true, 0), -ESTALE);
	assert_int_equal(ctl_pod_event(x, h, 9, CTL_POD_READY, 0), -EINVAL);
	stop(x, &b, &c);
}

/* Pending binds of the randomized backend, completed in random order. */
struct pend {
	uint32_t wl, pod;
};

static void check(struct be *b, int64_t now, int64_t timeout)
{
	const struct sched *s = ctl_sched(b->x);
	const struct quota *q = sched_quota(s);
	struct strbuf why;

	strbuf_init(&why);
	if (!ctl_check(b->x, &why))
		fail_msg("%s", why.buf);
	strbuf_release(&why);

	for (size_t n = 0; n < b->c->nodes.len; n++)
		assert_true(b->node_gpus[n] <=
			    b->c->nodes.items[n].allocatable.v[b->gpu]);
	assert_true(quota_check(q, NULL));
	for (size_t cq = 0; cq < q->ncq; cq++)
		for (size_t fr = 0; fr < q->nfr; fr++)
			if (q->nodes[cq].usage[fr] > 0)
				assert_true(quota_available(q, (int32_t)cq,
							    fr) >= 0);
	for (uint32_t w = 0; w < b->c->workloads.len; w++) {
		bool any = false;

		for (uint32_t p = 0; p < 2; p++)
			any |= b->binding[w][p];
		if (!any) {
			b->bind_start[w] = -1;
			continue;
		}
		if (b->bind_start[w] < 0)
			b->bind_start[w] = now;
		/* partly bound no longer than the timeout */
		assert_true(now - b->bind_start[w] <= timeout);
	}
}

static void random_run(uint64_t seed)
{
	struct ctl_options o = { .bind_timeout_us = 3 * S };
	struct cluster c;
	struct ctl *x;
	struct be b;
	struct rng r;
	VEC(struct pend) pend = VEC_INIT;
	int64_t now = 0;
	int ngangs = 6;

	small(&c, ngangs);
	be_init(&b, &c);
	b.random = true;
	rng_seed(&b.rng, seed);
	rng_seed(&r, seed ^ 0x9e3779b97f4a7c15ull);
	x = ctl_new(&c, &o, &be_ops, &b);
	b.x = x;
	for (uint32_t w = 0; w < (uint32_t)ngangs; w++) {
		b.bind_start[w] = -1;
		assert_int_equal(ctl_submit(x, ctl_handle(x, w), true, 0), 0);
	}
	for (int step = 0; step < 400; step++) {
		uint64_t act = rng_below(&r, 10);

		ctl_run(x, now);
		/* binds the backend started, in any order */
		pend.len = 0;
		for (uint32_t w = 0; w < (uint32_t)ngangs; w++)
			for (uint32_t p = 0; p < 2; p++)
				if (b.binding[w][p])
					vec_push(&pend,
						 ((struct pend){ w, p }));
		if (pend.len && act < 6) {
			struct pend e = pend.items[rng_below(&r, pend.len)];
			static const int errs[] = { 0,	     0,	      0,
						    -EEXIST, -ENOENT, -ENODEV };
			int err = errs[rng_below(&r, ARRAY_SIZE(errs))];

			b.binding[e.wl][e.pod] = false;
			if (!err)
				bound(&b, e.wl, e.pod,
				      (uint32_t)b.pod_node[e.wl][e.pod]);
			else
				b.pod_node[e.wl][e.pod] = -1;
			assert_int_equal(ctl_bind_result(x, ctl_handle(x, e.wl),
							 e.pod, err, now),
					 0);
		} else if (act < 8) {
			/* a gang whose pods are all bound finishes */
			uint32_t w = (uint32_t)rng_below(&r, (uint64_t)ngangs);

			if (sched_wl_state(ctl_sched(x), w) ==
				    SCHED_WL_ADMITTED &&
			    b.pod_node[w][0] >= 0 && b.pod_node[w][1] >= 0 &&
			    !b.binding[w][0] && !b.binding[w][1]) {
				be_release(&b, w);
				assert_int_equal(
					ctl_finish(x, ctl_handle(x, w), now),
					0);
				assert_int_equal(ctl_submit(x, ctl_handle(x, w),
							    true, now),
						 0);
			}
		} else {
			now += (int64_t)rng_below(&r, 2 * S);
			ctl_run(x, now);
		}
		check(&b, now, o.bind_timeout_us);
	}
	/* Let every pending bind time out or complete: all whole. */
	for (int k = 0; k < 10; k++) {
		now += 4 * S;
		ctl_run(x, now);
	}
	for (uint32_t w = 0; w < (uint32_t)ngangs; w++) {
		bool adm = sched_wl_state(ctl_sched(x), w) == SCHED_WL_ADMITTED;
		int nb = (b.pod_node[w][0] >= 0 && !b.binding[w][0]) +
			 (b.pod_node[w][1] >= 0 && !b.binding[w][1]);

		if (b.binding[w][0] || b.binding[w][1])
			continue; /* started in the last run: bounded above */
		assert_int_equal(nb, adm ? 2 : 0);
	}
	vec_release(&pend);
	stop(x, &b, &c);
}

/* A gang of gpus pods of 1 GPU each in queue lq, into *w. */
static void fill(struct cluster *c, const char *name, int64_t gpus,
		 struct workload *w)
{
	struct trace_job j;

	trace_job_init(&j);
	j.name = name;
	j.queue = "lq";
	j.duration_us = S;
	trace_job_set_gpus(&j, gpus, 1,
			   resource_lookup(c->resources, "nvidia.com/gpu"),
			   1000, 0);
	trace_job_workload(&j, c, "ns", w);
}

/* A 2-pod gang of 1 GPU each, made while the controller runs. */
static int add(struct ctl *x, struct cluster *c, const char *name,
	       uint64_t *ret_h)
{
	struct workload w;
	int rc;

	fill(c, name, 2, &w);
	rc = ctl_workload_add(x, &w, ret_h);
	workload_release(&w); /* nothing when moved in */
	return rc;
}

/* Workloads come and go: stable handles, stale ones refused, memory of the
 * live ones only. */
static void test_dynamic_workloads(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h[3], again;
	size_t strings;
	char name[32];

	(void)state;
	x = start(&c, &b, 0, 0, NULL);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		assert_int_equal(add(x, &c, name, &h[i]), 0);
		assert_int_equal(ctl_submit(x, h[i], true, 0), 0);
	}
	assert_int_equal(add(x, &c, "d1", &again), -EEXIST);
	ctl_run(x, 0);
	assert_string_equal(b.log.buf,
			    "Admitted d0; bind d0/0 n0; bind d0/1 n1; "
			    "Admitted d1; bind d1/0 n2; bind d1/1 n3; ");
	strbuf_reset(&b.log);
	/* Deleting an admitted gang frees its nodes for the third. */
	assert_int_equal(ctl_workload_delete(x, h[0], S), 0);
	assert_int_equal(ctl_workload_delete(x, h[0], S), -ESTALE);
	assert_int_equal(ctl_submit(x, h[0], true, S), -ESTALE);
	ctl_run(x, S);
	assert_string_equal(b.log.buf, "release d0; Admitted d2; "
				       "bind d2/0 n0; bind d2/1 n1; ");
	/* Its slot is taken again, under a new generation. */
	assert_int_equal(add(x, &c, "d3", &again), 0);
	assert_int_equal(CTL_SLOT(again), CTL_SLOT(h[0]));
	assert_true(again != h[0]);
	assert_int_equal(ctl_finish(x, h[0], S), -ESTALE);
	assert_int_equal(ctl_workload_delete(x, again, S), 0);
	/* Many more come and go: nothing grows with the history. */
	strings = intern_count(c.strings);
	for (int i = 0; i < 1000; i++) {
		uint64_t t;

		snprintf(name, sizeof(name), "churn-%d", i);
		assert_int_equal(add(x, &c, name, &t), 0);
		assert_int_equal(ctl_submit(x, t, true, 2 * S), 0);
		ctl_run(x, 2 * S);
		assert_int_equal(ctl_workload_delete(x, t, 2 * S), 0);
	}
	assert_int_equal(intern_count(c.strings), strings);
	assert_int_equal(c.workloads.len, 3);
	stop(x, &b, &c);
}

/* Workload objects change while they live: priority, pod sets while
 * pending, spec.active. */
static void test_workload_update(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	struct workload w;
	uint64_t h[3];
	char name[24];

	(void)state;
	x = start(&c, &b, 0, 0, NULL);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "u%d", i);
		assert_int_equal(add(x, &c, name, &h[i]), 0);
		assert_int_equal(ctl_submit(x, h[i], true, 0), 0);
	}
	ctl_run(x, 0); /* u0 and u1 run, u2 waits */
	strbuf_reset(&b.log);
	/* u2 asks for 3 pods: allowed while pending */
	fill(&c, "u2", 3, &w);
	assert_int_equal(ctl_workload_update(x, h[2], &w, S), 0);
	workload_release(&w);
	/* u0 may not change its pods while admitted */
	fill(&c, "u0", 1, &w);
	assert_int_equal(ctl_workload_update(x, h[0], &w, S), -EBUSY);
	workload_release(&w);
	/* ... but may be deactivated: evicted whole, for good */
	fill(&c, "u0", 2, &w);
	w.active = false;
	assert_int_equal(ctl_workload_update(x, h[0], &w, 2 * S), 0);
	workload_release(&w);
	ctl_run(x, 2 * S);
	assert_string_equal(b.log.buf,
			    "release u0; Deactivated u0 Deactivated; ");
	/* u2 needs 3 GPUs, 2 are free: it waits */
	assert_int_equal(sched_wl_state(ctl_sched(x), 2), SCHED_WL_PENDING);
	assert_int_equal(sched_wl_pending(ctl_sched(x), 0, NULL),
			 SCHED_PEND_DEACTIVATED);
	strbuf_reset(&b.log);
	assert_int_equal(ctl_workload_delete(x, h[1], 3 * S), 0);
	ctl_run(x, 3 * S);
	assert_string_equal(b.log.buf, "release u1; Admitted u2; bind u2/0 n0; "
				       "bind u2/1 n1; bind u2/2 n2; ");
	stop(x, &b, &c);
}

static void test_random_faults(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++)
		random_run(seed);
}

/* Pods found by UID; a cordoned or NotReady node takes no new pods. */
static void test_pods_and_node_status(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h, fh;
	uint32_t pod;

	(void)state;
	x = start(&c, &b, 1, 0, NULL);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_pod_map(x, "uid-0", h, 0), 0);
	assert_int_equal(ctl_pod_map(x, "uid-1", h, 1), 0);
	assert_int_equal(ctl_pod_map(x, "uid-1", h, 1), -EEXIST);
	assert_int_equal(ctl_pod_map(x, "uid-9", h, 9), -EINVAL);
	assert_int_equal(ctl_pod_find(x, "uid-1", &fh, &pod), 0);
	assert_true(fh == h && pod == 1);
	assert_int_equal(ctl_pod_find(x, "uid-7", &fh, &pod), -ENOENT);
	ctl_node_status(x, 0, true, true, 0);	/* cordoned */
	ctl_node_status(x, 1, false, false, 0); /* NotReady */
	ctl_node_status(x, 2, true, true, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_string_equal(b.log.buf, "");
	ctl_node_status(x, 1, true, false, S); /* Ready again */
	ctl_run(x, S);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n1; bind w0/1 n3; ");
	/* a cordon does not evict what runs there */
	ctl_node_status(x, 1, true, true, 2 * S);
	ctl_run(x, 2 * S);
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_ADMITTED);
	assert_int_equal(ctl_workload_delete(x, h, 3 * S), 0);
	assert_int_equal(ctl_pod_find(x, "uid-0", &fh, &pod), -ENOENT);
	stop(x, &b, &c);
}

/* Assert that x's only unadmitted workloads are in series
 * kueue_unadmitted_workloads with cause and value tail. */
static void unadmitted(const struct ctl *x, const char *cause, const char *tail)
{
	struct metrics *m = metrics_new();
	struct obs_metrics *om = obs_metrics_new(m, NULL, NULL);
	struct strbuf out;
	const char *p;

	strbuf_init(&out);
	obs_metrics_refresh(om, x);
	metrics_write(m, &out);
	p = strstr(out.buf, "\nkueue_unadmitted_workloads{");
	assert_non_null(p);
	p = strstr(p, "underlying_cause=\"");
	assert_non_null(p);
	p += strlen("underlying_cause=\"");
	assert_true(strncmp(p, cause, strlen(cause)) == 0);
	assert_true(strncmp(p + strlen(cause), tail, strlen(tail)) == 0);
	/* no other series */
	assert_null(strstr(p, "\nkueue_unadmitted_workloads{"));
	strbuf_release(&out);
	obs_metrics_free(om);
	metrics_free(m);
}

/* Live preemption (wait_victims): the preemptor waits for its victim's
 * pods to be gone, without preempting more meanwhile. */
static void test_wait_victims(void **state)
{
	struct ctl_options o = { .wait_victims = true };
	struct cluster c;
	struct strbuf sb, msg;
	struct ctl *x;
	struct be b;
	uint32_t low, mid, high;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&msg);
	for (int i = 0; i < 4; i++) {
		char name[24];

		snprintf(name, sizeof(name), "n%d", i);
		node(&sb, name, 1);
	}
	queues_with(&sb, "LowerPriority", 4);
	fx_wl(&sb, "low", "lq", 0, 2, "1", 1, NULL);
	fx_wl(&sb, "mid", "lq", 1, 2, "1", 1, NULL);
	fx_wl(&sb, "high", "lq", 10, 2, "1", 1, NULL);
	fx_load(&c, sb.buf);
	be_init(&b, &c);
	x = ctl_new(&c, &o, &be_ops, &b);
	low = fx_id(&c, "low");
	mid = fx_id(&c, "mid");
	high = fx_id(&c, "high");
	assert_int_equal(ctl_submit(x, ctl_handle(x, low), true, 0), 0);
	assert_int_equal(ctl_submit(x, ctl_handle(x, mid), true, 0), 0);
	ctl_run(x, 0);
	strbuf_reset(&b.log);
	assert_int_equal(ctl_submit(x, ctl_handle(x, high), true, S), 0);
	ctl_run(x, S);
	/* low is evicted, high waits for its pods */
	assert_string_equal(b.log.buf, "release low; Preempted low; ");
	assert_int_equal(sched_wl_state(ctl_sched(x), high), SCHED_WL_PENDING);
	sched_wl_pending(ctl_sched(x), high, &msg);
	assert_non_null(strstr(msg.buf, "Preempting: waiting for 1"));
	/* Kueue's cause for it; low is admitted until its pods are gone */
	unadmitted(x, "WaitingForPreemptedWorkloads", "\"} 1\n");
	strbuf_reset(&b.log);
	ctl_node_status(x, 0, true, false, 2 * S); /* anything: a cycle */
	ctl_run(x, 2 * S);
	assert_string_equal(b.log.buf, ""); /* mid is not preempted too */
	assert_int_equal(ctl_released(x, ctl_handle(x, low), 3 * S), 0);
	ctl_run(x, 3 * S);
	assert_string_equal(b.log.buf,
			    "Admitted high; bind high/0 n2; bind high/1 n3; ");
	assert_int_equal(sched_wl_state(ctl_sched(x), mid), SCHED_WL_ADMITTED);
	assert_int_equal(sched_wl_state(ctl_sched(x), low), SCHED_WL_PENDING);
	stop(x, &b, &c);
	strbuf_release(&msg);
	strbuf_release(&sb);
}

/* While a preemptor waits for its victims, nothing behind it in its
 * ClusterQueue is admitted (Kueue keeps it at the head): otherwise one
 * takes the node it preempted for, and victims take each other's place
 * without end. */
static void test_behind_preemptor(void **state)
{
	struct ctl_options o = { .wait_victims = true };
	struct cluster c;
	struct strbuf sb, msg;
	struct ctl *x;
	struct be b;
	uint32_t low, mid, high, small;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&msg);
	for (int i = 0; i < 4; i++) {
		char name[24];

		snprintf(name, sizeof(name), "n%d", i);
		node(&sb, name, 1);
	}
	queues_with(&sb, "LowerPriority", 4);
	fx_wl(&sb, "low", "lq", 0, 2, "1", 1, NULL);
	fx_wl(&sb, "mid", "lq", 5, 1, "1", 1, NULL);
	fx_wl(&sb, "high", "lq", 10, 3, "1", 1, NULL);
	fx_wl(&sb, "small", "lq", 1, 1, "1", 1, NULL);
	fx_load(&c, sb.buf);
	be_init(&b, &c);
	x = ctl_new(&c, &o, &be_ops, &b);
	low = fx_id(&c, "low");
	mid = fx_id(&c, "mid");
	high = fx_id(&c, "high");
	small = fx_id(&c, "small");
	assert_int_equal(ctl_submit(x, ctl_handle(x, low), true, 0), 0);
	assert_int_equal(ctl_submit(x, ctl_handle(x, mid), true, 0), 0);
	ctl_run(x, 0);
	assert_int_equal(ctl_submit(x, ctl_handle(x, high), true, S), 0);
	ctl_run(x, S);
	assert_int_equal(sched_wl_state(ctl_sched(x), low), SCHED_WL_PENDING);
	/* small fits the quota and the free node, but waits behind high */
	assert_int_equal(ctl_submit(x, ctl_handle(x, small), true, 2 * S), 0);
	ctl_run(x, 2 * S);
	assert_int_equal(sched_wl_state(ctl_sched(x), small), SCHED_WL_PENDING);
	sched_wl_pending(ctl_sched(x), small, &msg);
	assert_non_null(strstr(msg.buf, "behind ns/high"));
	/* low's pods are gone: high takes the three free nodes */
	assert_int_equal(ctl_released(x, ctl_handle(x, low), 3 * S), 0);
	ctl_run(x, 3 * S);
	assert_int_equal(sched_wl_state(ctl_sched(x), high), SCHED_WL_ADMITTED);
	assert_int_equal(sched_wl_state(ctl_sched(x), mid), SCHED_WL_ADMITTED);
	assert_int_equal(sched_wl_state(ctl_sched(x), small), SCHED_WL_PENDING);
	stop(x, &b, &c);
	strbuf_release(&msg);
	strbuf_release(&sb);
}

/* A Workload read back with status.requeueState waits out its backoff,
 * and its next backoff counts from requeueState.count. */
static void test_requeue_state(void **state)
{
	struct cluster c;
	struct strbuf sb;
	struct ctl *x;
	struct be b;
	uint64_t h;

	(void)state;
	strbuf_init(&sb);
	for (int i = 0; i < 2; i++) {
		char name[24];

		snprintf(name, sizeof(name), "n%d", i);
		node(&sb, name, 1);
	}
	queues(&sb);
	fx_wl(&sb, "w", "lq", 0, 2, "1", 1, NULL);
	strbuf_addstr(&sb, "status:\n  requeueState: {count: 2, requeueAt: "
			   "\"1970-01-01T00:01:00Z\"}\n");
	fx_load(&c, sb.buf);
	c.default_config.wait_for_pods_ready.enable = true;
	c.default_config.wait_for_pods_ready.timeout_us = 10 * S;
	c.default_config.wait_for_pods_ready.requeuing.backoff_base_s = 10;
	c.default_config.wait_for_pods_ready.requeuing.backoff_max_s = 3600;
	be_init(&b, &c);
	x = ctl_new(&c, NULL, &be_ops, &b);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_string_equal(b.log.buf, "");
	assert_int_equal(ctl_next_wakeup_us(x, 0), 60 * S);
	ctl_run(x, 60 * S);
	assert_string_equal(b.log.buf,
			    "Admitted w; bind w/0 n0; bind w/1 n1; ");
	strbuf_reset(&b.log);
	/* not Ready in time: the third requeue waits 10 s x 2^2 */
	ctl_run(x, 70 * S);
	assert_string_equal(b.log.buf,
			    "release w; Evicted w PodsReadyTimeout; ");
	assert_int_equal(ctl_next_wakeup_us(x, 70 * S), 110 * S);
	assert_int_equal(gang_requeues(ctl_gang(x), 0), 3);
	stop(x, &b, &c);
	strbuf_release(&sb);
}

/* The name of why slot wl waits now ("-": it does not). */
static const char *wait_of(const struct ctl *x, uint32_t wl)
{
	enum sched_pend p = SCHED_PEND_COUNT;
	enum ctl_wait w = ctl_wl_wait(x, wl, &p);
	const char *n = ctl_wait_name(w, p);

	if (w == CTL_WAIT_PENDING)
		assert_int_not_equal(p, SCHED_PEND_COUNT);
	return n ? n : "-";
}

/*
 * Why a workload waits, through its life: its requeue backoff, its gang
 * assembling, running, a pod lost; and beside it one that asks for more
 * than its queue could ever have (a reason of the scheduler's own).
 */
static void test_wait_reasons(void **state)
{
	static const struct {
		int64_t at_s;
		int pod_event; /* -1: none; 0: both pods Ready; 2: pod 0 failed
				*/
		const char *want[2];
	} steps[] = {
		{ 0, -1, { "Backoff", "ExceedsMaxQuota" } },
		{ 60, -1, { "WaitForStart", "ExceedsMaxQuota" } },
		{ 61, 0, { "-", "ExceedsMaxQuota" } },
		{ 62, 2, { "WaitForRecovery", "ExceedsMaxQuota" } },
	};
	struct cluster c;
	struct strbuf sb;
	struct ctl *x;
	struct be b;

	(void)state;
	strbuf_init(&sb);
	node(&sb, "n0", 1);
	node(&sb, "n1", 1);
	queues_with(&sb, "Never", 2);
	fx_wl(&sb, "w", "lq", 0, 2, "1", 1, NULL);
	strbuf_addstr(&sb, "status:\n  requeueState: {count: 1, requeueAt: "
			   "\"1970-01-01T00:01:00Z\"}\n");
	fx_wl(&sb, "quota", "lq", 0, 1, "1", 3, NULL);
	fx_load(&c, sb.buf);
	c.default_config.wait_for_pods_ready.enable = true;
	c.default_config.wait_for_pods_ready.timeout_us = 3600 * S;
	be_init(&b, &c);
	x = ctl_new(&c, NULL, &be_ops, &b);
	for (uint32_t w = 0; w < 2; w++)
		assert_int_equal(ctl_submit(x, ctl_handle(x, w), true, 0), 0);
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		int64_t now = steps[i].at_s * S;

		for (uint32_t p = 0; steps[i].pod_event >= 0 && p < 2; p++) {
			if (steps[i].pod_event == 2 && p)
				break;
			assert_int_equal(ctl_pod_event(x, ctl_handle(x, 0), p,
						       steps[i].pod_event == 2
							       ? CTL_POD_FAILED
							       : CTL_POD_READY,
						       now),
					 0);
		}
		ctl_run(x, now);
		for (uint32_t w = 0; w < 2; w++)
			assert_string_equal(wait_of(x, w), steps[i].want[w]);
	}
	stop(x, &b, &c);
	strbuf_release(&sb);
}

/* A ClusterQueue with a deletionTimestamp is read as being deleted. */
static void test_cq_deletion_timestamp(void **state)
{
	struct cluster c;

	(void)state;
	fx_load(&c, "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q, "
		    "deletionTimestamp: \"2026-12-01T00:00:00Z\"}\n"
		    "spec: {resourceGroups: []}\n"
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: r}\n"
		    "spec: {resourceGroups: []}\n");
	assert_true(c.cluster_queues.items[0].deleting);
	assert_false(c.cluster_queues.items[1].deleting);
	cluster_release(&c);
}

/* Nodes n2 and n3 leave the flavor. */
static int relabel_n2_n3(void *ctx, struct cluster *c)
{
	(void)ctx;
	for (int i = 2; i < 4; i++) {
		char name[24];
		struct node *n;

		snprintf(name, sizeof(name), "n%d", i);
		n = (struct node *)cluster_find(c, KIND_NODE, NULL, name);
		labels_set(&n->labels, cluster_str(c, "pool"),
			   cluster_str(c, "other"));
	}
	return 0;
}

/* low and mid run on four 1-GPU hosts; high (priority 10) preempts low,
 * whose pods are not gone yet (wait_victims). */
static struct ctl *held_setup(struct cluster *c, struct be *b)
{
	static const struct ctl_options o = { .wait_victims = true };
	struct strbuf sb;
	struct ctl *x;

	strbuf_init(&sb);
	for (int i = 0; i < 4; i++) {
		char name[24];

		snprintf(name, sizeof(name), "n%d", i);
		node(&sb, name, 1);
	}
	queues_with(&sb, "LowerPriority", 4);
	fx_wl(&sb, "low", "lq", 0, 2, "1", 1, NULL);
	fx_wl(&sb, "mid", "lq", 1, 2, "1", 1, NULL);
	fx_wl(&sb, "high", "lq", 10, 2, "1", 1, NULL);
	fx_load(c, sb.buf);
	strbuf_release(&sb);
	be_init(b, c);
	x = ctl_new(c, &o, &be_ops, b);
	b->x = x;
	assert_int_equal(ctl_submit(x, ctl_handle(x, 0), true, 0), 0);
	assert_int_equal(ctl_submit(x, ctl_handle(x, 1), true, 0), 0);
	ctl_run(x, 0);
	assert_int_equal(ctl_submit(x, ctl_handle(x, 2), true, S), 0);
	ctl_run(x, S);
	assert_true(sched_wl_held(ctl_sched(x), 0));
	strbuf_reset(&b->log);
	return x;
}

static void held_teardown(struct ctl *x, struct be *b, struct cluster *c)
{
	struct strbuf why;

	strbuf_init(&why);
	if (!ctl_check(x, &why) ||
	    !quota_check(sched_quota(ctl_sched(x)), &why) ||
	    !topo_check(sched_topo(ctl_sched(x), 0), &why))
		fail_msg("%s", why.buf);
	strbuf_release(&why);
	ctl_free(x);
	be_release_all(b);
	cluster_release(c);
}

/* A victim whose pods are not gone yet is deleted, changed, deactivated
 * and reactivated, or loses its nodes: its preemptor never waits for
 * ever, nothing is queued twice, nothing is uncharged wrong. */
static void test_held_victims(void **state)
{
	struct cluster c;
	struct workload w;
	struct ctl *x;
	struct be b;
	uint64_t t;

	(void)state;
	/* deleted: its quota is free, high is admitted, its slot reused */
	x = held_setup(&c, &b);
	assert_int_equal(ctl_workload_delete(x, ctl_handle(x, 0), 2 * S), 0);
	ctl_run(x, 2 * S);
	assert_int_equal(sched_wl_state(ctl_sched(x), 2), SCHED_WL_ADMITTED);
	assert_int_equal(add(x, &c, "extra", &t), 0);
	assert_int_equal(CTL_SLOT(t), 0);
	assert_int_equal(ctl_submit(x, t, true, 3 * S), 0);
	ctl_run(x, 3 * S);
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_PENDING);
	held_teardown(x, &b, &c);
	/* its pod sets may not change while its quota is held on them */
	x = held_setup(&c, &b);
	fill(&c, "low", 3, &w);
	assert_int_equal(ctl_workload_update(x, ctl_handle(x, 0), &w, 2 * S),
			 -EBUSY);
	workload_release(&w);
	held_teardown(x, &b, &c);
	/* deactivated, then active again: queued once its pods are gone */
	x = held_setup(&c, &b);
	fill(&c, "low", 2, &w);
	w.active = false;
	assert_int_equal(ctl_workload_update(x, ctl_handle(x, 0), &w, 2 * S),
			 0);
	workload_release(&w);
	fill(&c, "low", 2, &w);
	assert_int_equal(ctl_workload_update(x, ctl_handle(x, 0), &w, 2 * S),
			 0);
	workload_release(&w);
	assert_int_equal(ctl_released(x, ctl_handle(x, 0), 3 * S), 0);
	ctl_run(x, 3 * S);
	assert_int_equal(ctl_finish(x, ctl_handle(x, 2), 4 * S), 0);
	strbuf_reset(&b.log);
	ctl_run(x, 4 * S);
	assert_string_equal(b.log.buf, "Admitted low; bind low/0 n2; "
				       "bind low/1 n3; ");
	held_teardown(x, &b, &c);
	/* its nodes leave the flavor: high does not wait for it for ever */
	x = held_setup(&c, &b);
	assert_int_equal(ctl_reconfigure(x, relabel_n2_n3, NULL, 2 * S), 1);
	ctl_run(x, 2 * S);
	assert_false(sched_wl_held(ctl_sched(x), 0));
	assert_int_equal(sched_wl_state(ctl_sched(x), 2), SCHED_WL_PENDING);
	assert_int_equal(sched_wl_pending(ctl_sched(x), 2, NULL),
			 SCHED_PEND_WAITING_FOR_QUOTA);
	ctl_node_status(x, 0, true, false, 3 * S);
	ctl_run(x, 3 * S);
	held_teardown(x, &b, &c);
}

/* A replacement bind after the gang's first binds completed gets a
 * deadline of its own; deadlines behind the head do not pile up. */
static void test_bind_deadlines(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	uint64_t h, prev = 0;
	char name[32];

	(void)state;
	x = start(&c, &b, 1, 1, NULL);
	h = ctl_handle(x, 0);
	assert_int_equal(ctl_submit(x, h, true, 0), 0);
	ctl_run(x, 0);
	assert_int_equal(ctl_bind_result(x, h, 0, 0, S), 0);
	assert_int_equal(ctl_bind_result(x, h, 1, 0, S), 0);
	ctl_node_down(x, (uint32_t)b.pod_node[0][0], true, 20 * S);
	ctl_run(x, 20 * S);
	strbuf_reset(&b.log);
	ctl_run(x, 30 * S); /* the first deadline: nothing is due */
	assert_string_equal(b.log.buf, "");
	assert_int_equal(ctl_next_wakeup_us(x, 30 * S), 50 * S);
	stop(x, &b, &c);
	/* 2,000 gangs, each binding while the one before completes */
	x = start(&c, &b, 0, 1, NULL);
	for (int i = 0; i < 2000; i++) {
		int64_t now = (int64_t)i * S / 10;

		snprintf(name, sizeof(name), "g%d", i);
		assert_int_equal(add(x, &c, name, &h), 0);
		assert_int_equal(ctl_submit(x, h, true, now), 0);
		if (prev) {
			assert_int_equal(ctl_bind_result(x, prev, 0, 0, now),
					 0);
			assert_int_equal(ctl_bind_result(x, prev, 1, 0, now),
					 0);
			assert_int_equal(ctl_finish(x, prev, now), 0);
			assert_int_equal(ctl_workload_delete(x, prev, now), 0);
		}
		ctl_run(x, now);
		(void)ctl_next_wakeup_us(x, now);
		prev = h;
	}
	assert_true(x->dl.len < 200);
	stop(x, &b, &c);
}

/* Quota of queue q's GPUs set to *ctx. */
static int set_gpu_quota(void *ctx, struct cluster *c)
{
	struct flavor_quotas *fq =
		&c->cluster_queues.items[0].groups[0].flavors[0];
	int gpu = resource_lookup(c->resources, "nvidia.com/gpu");

	for (size_t r = 0; r < fq->nresources; r++) {
		if (fq->resources[r].resource == gpu)
			fq->resources[r].nominal = *(int64_t *)ctx;
	}
	return 0;
}

/* Node n1 leaves the flavor (its pool label changes). */
static int relabel_n1(void *ctx, struct cluster *c)
{
	struct node *n = (struct node *)cluster_find(c, KIND_NODE, NULL, "n1");

	(void)ctx;
	labels_set(&n->labels, cluster_str(c, "pool"), cluster_str(c, "other"));
	return 0;
}

/* Nodes n4 and n5 join the rack (kubectl apply of two Nodes). */
static int add_nodes(void *ctx, struct cluster *c)
{
	int gpu = resource_lookup(c->resources, "nvidia.com/gpu");

	(void)ctx;
	for (int i = 4; i < 6; i++) {
		struct node *n = vec_push_zero(&c->nodes);
		char name[24];

		node_init(n);
		snprintf(name, sizeof(name), "n%d", i);
		n->name = cluster_str(c, name);
		labels_set(&n->labels, cluster_str(c, "pool"),
			   cluster_str(c, "g"));
		labels_set(&n->labels, cluster_str(c, "rack"),
			   cluster_str(c, "r0"));
		labels_set(&n->labels, cluster_str(c, TOPOLOGY_HOSTNAME_LABEL),
			   n->name);
		n->allocatable.v[RESOURCE_CPU] = 8000;
		n->allocatable.v[RESOURCE_PODS] = 10;
		n->allocatable.v[gpu] = 1;
		n->ready = true;
		BUG_ON(cluster_index_last(c, KIND_NODE) < 0);
	}
	return 0;
}

/* ClusterQueue q is being deleted (kubectl delete: a deletionTimestamp
 * while Kueue's finalizer holds it). */
static int delete_q(void *ctx, struct cluster *c)
{
	(void)ctx;
	c->cluster_queues.items[0].deleting = true;
	return 0;
}

/* The daemon's controller starts before any node exists; nodes then join
 * through a reconfigure (no node state to clear yet). */
static void test_reconfigure_from_no_nodes(void **state)
{
	struct cluster c;
	struct strbuf sb;
	struct ctl *x;
	struct be b;

	(void)state;
	strbuf_init(&sb);
	queues(&sb);
	fx_load(&c, sb.buf);
	be_init(&b, &c);
	x = ctl_new(&c, NULL, &be_ops, &b);
	assert_int_equal(ctl_reconfigure(x, add_nodes, NULL, 0), 0);
	assert_int_equal(c.nodes.len, 2);
	assert_true(ctl_check(x, NULL));
	stop(x, &b, &c);
	strbuf_release(&sb);
}

/* Queues, quotas and nodes change while running: a quota change applies at
 * the next cycle, a gang on a node that left is evicted whole. */
static void test_reconfigure(void **state)
{
	struct cluster c;
	struct ctl *x;
	struct be b;
	int64_t q = 2;

	(void)state;
	x = start(&c, &b, 2, 0, NULL);
	assert_int_equal(ctl_reconfigure(x, set_gpu_quota, &q, 0), 0);
	for (uint32_t w = 0; w < 2; w++)
		assert_int_equal(ctl_submit(x, ctl_handle(x, w), true, 0), 0);
	ctl_run(x, 0);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n1; ");
	assert_int_equal(sched_wl_state(ctl_sched(x), 1), SCHED_WL_PENDING);
	strbuf_reset(&b.log);
	q = 4;
	assert_int_equal(ctl_reconfigure(x, set_gpu_quota, &q, S), 0);
	assert_string_equal(b.log.buf, "");
	ctl_run(x, S);
	assert_string_equal(b.log.buf,
			    "Admitted w1; bind w1/0 n2; bind w1/1 n3; ");
	strbuf_reset(&b.log);
	/* w0's pod on n1 has nowhere to be: w0 is evicted and released */
	assert_int_equal(ctl_reconfigure(x, relabel_n1, NULL, 2 * S), 1);
	assert_string_equal(b.log.buf, "release w0; Evicted w0 NodeFailures; ");
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_PENDING);
	assert_int_equal(sched_wl_state(ctl_sched(x), 1), SCHED_WL_ADMITTED);
	assert_true(topo_check(sched_topo(ctl_sched(x), 0), NULL));
	/* two nodes join: w0 fits on them, w1 stays where it is */
	strbuf_reset(&b.log);
	assert_int_equal(ctl_reconfigure(x, add_nodes, NULL, 2 * S), 0);
	ctl_run(x, 2 * S);
	assert_string_equal(b.log.buf,
			    "Admitted w0; bind w0/0 n0; bind w0/1 n4; ");
	assert_true(ctl_check(x, NULL));
	assert_int_equal(ctl_finish(x, ctl_handle(x, 0), 2 * S), 0);
	assert_int_equal(ctl_submit(x, ctl_handle(x, 0), true, 2 * S), 0);
	/* a ClusterQueue being deleted admits nothing new, and what it
	 * admitted keeps running */
	strbuf_reset(&b.log);
	assert_int_equal(ctl_reconfigure(x, delete_q, NULL, 3 * S), 0);
	ctl_run(x, 3 * S);
	assert_string_equal(b.log.buf, "");
	assert_int_equal(sched_wl_state(ctl_sched(x), 1), SCHED_WL_ADMITTED);
	/* w1 ends: w0 would fit, but is not admitted */
	assert_int_equal(ctl_finish(x, ctl_handle(x, 1), 4 * S), 0);
	ctl_run(x, 4 * S);
	assert_string_equal(b.log.buf, "");
	assert_int_equal(sched_wl_state(ctl_sched(x), 0), SCHED_WL_PENDING);
	stop(x, &b, &c);
}

/*
 * A cluster for restarts: two racks of four 1-GPU hosts, one queue that
 * preempts lower priorities, waitForPodsReady with a short timeout and
 * backoff, and eight gangs of 1 to 4 pods at three priorities.
 */
static void restart_cluster(struct cluster *c)
{
	struct wait_for_pods_ready *w = &c->default_config.wait_for_pods_ready;
	struct strbuf sb;
	char name[16];

	strbuf_init(&sb);
	for (int i = 0; i < 8; i++)
		strbuf_addf(&sb,
			    "---\napiVersion: v1\nkind: Node\n"
			    "metadata: {name: n%d, labels: {pool: g, "
			    "rack: r%d, kubernetes.io/hostname: n%d}}\n"
			    "status: {allocatable: {cpu: \"8\", pods: \"10\", "
			    "nvidia.com/gpu: \"1\"}}\n",
			    i, i / 4, i);
	strbuf_addstr(&sb,
		      "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
		      "spec: {levels: [{nodeLabel: rack}, "
		      "{nodeLabel: kubernetes.io/hostname}]}\n"
		      "---\n" K2 "kind: ResourceFlavor\nmetadata: "
		      "{name: f}\nspec: {nodeLabels: {pool: g}, "
		      "topologyName: t}\n"
		      "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
		      "spec:\n  preemption: {withinClusterQueue: "
		      "LowerPriority}\n  resourceGroups:\n"
		      "  - coveredResources: [cpu, nvidia.com/gpu]\n"
		      "    flavors: [{name: f, resources: [{name: cpu, "
		      "nominalQuota: 1000}, {name: nvidia.com/gpu, "
		      "nominalQuota: 6}]}]\n");
	fx_lq(&sb, "lq", "q");
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		fx_wl(&sb, name, "lq", (i * 7) % 3, 1 + (i * 5) % 4, "1", 1,
		      "    topologyRequest: {required: rack}\n");
	}
	fx_load(c, sb.buf);
	strbuf_release(&sb);
	w->enable = true;
	w->timeout_us = 6 * S;
	w->recovery_timeout_us = 3 * S;
	w->requeuing.backoff_base_s = 2;
	w->requeuing.backoff_max_s = 20;
	w->requeuing.backoff_limit_count = -1;
}

/*
 * A run of random events (pods ready or failed, gangs finished and
 * resubmitted, nodes down and up, binds completing in any order, time
 * passing); with restart_at >= 0 the controller is snapshotted, freed and
 * restored into a new one before that step. Returns the backend's log.
 */
static char *restart_run(uint64_t seed, int restart_at, bool wait,
			 bool backfill)
{
	struct ctl_options o = { .bind_timeout_us = 4 * S,
				 .gang = { .jitter = true, .seed = 3 },
				 .wait_victims = wait,
				 .sched = { .compact = backfill,
					    .backfill = backfill } };
	struct cluster c;
	struct ctl *x;
	struct be b;
	struct rng r;
	int64_t now = 0;
	char *out;

	restart_cluster(&c);
	be_init(&b, &c);
	b.random = true;
	rng_seed(&b.rng, seed);
	rng_seed(&r, seed * 31 + 7);
	x = ctl_new(&c, &o, &be_ops, &b);
	b.x = x;
	for (uint32_t w = 0; w < c.workloads.len; w++) {
		/* backfill: some without an estimate */
		if (backfill && w % 5)
			assert_int_equal(
				ctl_set_estimate(x, ctl_handle(x, w),
						 (int64_t)(w % 4 + 1) * 5 * S),
				0);
		assert_int_equal(ctl_submit(x, ctl_handle(x, w), true, 0), 0);
	}
	for (int step = 0; step < 300; step++) {
		uint32_t w = (uint32_t)rng_below(&r, c.workloads.len);
		uint32_t p = (uint32_t)rng_below(&r, MAXP);
		uint64_t act = rng_below(&r, 12);
		uint64_t h;

		if (step == restart_at) {
			struct ctl_snapshot *sn = ctl_snapshot(x);

			ctl_free(x);
			x = ctl_new(&c, &o, &be_ops, &b);
			b.x = x;
			assert_int_equal(ctl_restore(x, sn), 0);
			ctl_snapshot_free(sn);
		}
		h = ctl_handle(x, w);
		p %= (uint32_t)c.workloads.items[w].podsets[0].count;
		strbuf_addf(&b.log, "\n%d:", step);
		if (act < 3 && b.binding[w][p]) {
			int err = rng_below(&r, 5) ? 0 : -EEXIST;

			b.binding[w][p] = false;
			if (!err)
				bound(&b, w, p, (uint32_t)b.pod_node[w][p]);
			else
				b.pod_node[w][p] = -1;
			assert_int_equal(ctl_bind_result(x, h, p, err, now), 0);
		} else if (act < 6 && b.pod_node[w][p] >= 0 &&
			   !b.binding[w][p]) {
			assert_int_equal(ctl_pod_event(x, h, p,
						       act == 5 ? CTL_POD_FAILED
								: CTL_POD_READY,
						       now),
					 0);
		} else if (act == 6 &&
			   gang_state(ctl_gang(x), w) == GANG_READY) {
			be_release(&b, w);
			assert_int_equal(ctl_finish(x, h, now), 0);
			assert_int_equal(ctl_submit(x, h, true, now), 0);
		} else if (act == 7) {
			ctl_node_down(x, (uint32_t)rng_below(&r, c.nodes.len),
				      rng_below(&r, 2) == 0, now);
		} else if (act == 8 && b.going[w]) {
			b.going[w] = false; /* its pods are gone */
			assert_int_equal(ctl_released(x, h, now), 0);
		} else {
			now += (int64_t)rng_below(&r, 3 * S);
		}
		ctl_run(x, now);
		assert_true(ctl_check(x, NULL));
		strbuf_addf(&b.log, " next=%" PRId64,
			    ctl_next_wakeup_us(x, now));
		for (uint32_t v = 0; backfill && v < c.workloads.len; v++) {
			int64_t start;
			size_t n;
			int32_t f = sched_wl_reservation(ctl_sched(x), v,
							 &start, NULL, &n);

			if (f >= 0)
				strbuf_addf(&b.log,
					    " resv=%u/%d/%" PRId64 "/%zu", v, f,
					    start, n);
		}
	}
	for (uint32_t w = 0; w < c.workloads.len; w++) {
		struct strbuf msg;

		strbuf_init(&msg);
		strbuf_addf(&b.log, "\n%s %d %s", c.workloads.items[w].name,
			    (int)sched_wl_state(ctl_sched(x), w),
			    gang_state_name(gang_state(ctl_gang(x), w)));
		sched_wl_pending(ctl_sched(x), w, &msg);
		strbuf_addf(&b.log, " [%s]", msg.buf);
		strbuf_release(&msg);
	}
	if (backfill) {
		struct sched_backfill_stats st =
			sched_backfill_stats(ctl_sched(x));

		strbuf_addf(&b.log,
			    "\nreservations %" PRIu64 " honoured %" PRIu64
			    " delayed %" PRIu64,
			    st.reservations, st.honoured, st.delayed);
	}
	out = xstrdup(b.log.buf);
	stop(x, &b, &c);
	return out;
}

/* The line of a where it first differs from b. */
static const char *first_diff(const char *a, const char *b)
{
	const char *line = a;

	for (; *a && *a == *b; a++, b++) {
		if (*a == '\n')
			line = a + 1;
	}
	return line;
}

/* A controller restored from a snapshot continues exactly as the one it
 * was taken from. */
static void test_restart_exact(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		bool wait = seed > 20 && seed <= 40; /* victims hold their
							quota till gone */
		bool backfill = seed > 40; /* reservations are restored */
		char *want = restart_run(seed, -1, wait, backfill);

		if (backfill && seed == 41)
			assert_non_null(strstr(want, " resv="));
		for (int at = 1; at < 300; at += 37) {
			char *got = restart_run(seed, at, wait, backfill);

			if (strcmp(want, got) != 0)
				print_error("seed %" PRIu64 " restart at %d:\n"
					    "want %.300s\ngot  %.300s\n",
					    seed, at, first_diff(want, got),
					    first_diff(got, want));
			assert_true(strcmp(want, got) == 0);
			free(got);
		}
		free(want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_node_two_gangs),
		cmocka_unit_test(test_observed_events),
		cmocka_unit_test(test_bind_failure),
		cmocka_unit_test(test_bind_timeout),
		cmocka_unit_test(test_bind_refused_and_stale),
		cmocka_unit_test(test_evict),
		cmocka_unit_test(test_dynamic_workloads),
		cmocka_unit_test(test_workload_update),
		cmocka_unit_test(test_random_faults),
		cmocka_unit_test(test_restart_exact),
		cmocka_unit_test(test_reconfigure),
		cmocka_unit_test(test_reconfigure_from_no_nodes),
		cmocka_unit_test(test_cq_deletion_timestamp),
		cmocka_unit_test(test_pods_and_node_status),
		cmocka_unit_test(test_wait_victims),
		cmocka_unit_test(test_bind_failure_held),
		cmocka_unit_test(test_behind_preemptor),
		cmocka_unit_test(test_held_victims),
		cmocka_unit_test(test_bind_deadlines),
		cmocka_unit_test(test_requeue_state),
		cmocka_unit_test(test_wait_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

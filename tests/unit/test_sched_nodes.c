// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the scheduler's driver APIs for failures and backoff: nodes
 * going down and up (a workload that needs a down node waits, and fits
 * again once it is back), moving a pod of an admitted gang to another
 * node without leaking or double-booking capacity, requeue at a later
 * time (sched_evict_until), deactivation, the ClusterQueue usage
 * readers, and the errors of invalid arguments.
 *
 * The topology-aware cluster: flavor f (nodes labelled pool: g) on
 * topology t (rack, hostname), with 8-CPU nodes chosen per test, and one
 * ClusterQueue with room for everything: only the nodes limit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "test_sched_fixture.h"
#include "testutil.h"

#include "base/banned.h"

#define RACK "    topologyRequest: {required: rack}\n"

struct fx {
	struct cluster c;
	struct sched *s;
	struct sched_decisions d;
};

/* Topology t, TAS flavor f, ClusterQueue q with LocalQueue lq. */
static void tas_head(struct strbuf *sb)
{
	strbuf_addstr(sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			  "spec: {levels: [{nodeLabel: rack}, "
			  "{nodeLabel: kubernetes.io/hostname}]}\n");
	strbuf_addstr(sb, "---\n" K2 "kind: ResourceFlavor\n"
			  "metadata: {name: f}\nspec: {nodeLabels: {pool: g},"
			  " topologyName: t}\n");
	strbuf_addstr(sb, "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
			  "spec:\n  resourceGroups:\n"
			  "  - coveredResources: [cpu]\n"
			  "    flavors: [{name: f, resources: [{name: cpu, "
			  "nominalQuota: 1000}]}]\n");
	fx_lq(sb, "lq", "q");
}

/* An 8-CPU node in rack; pool: g unless out of the flavor. */
static void node(struct strbuf *sb, const char *name, const char *rack,
		 bool in_pool, bool ready)
{
	strbuf_addf(sb,
		    "---\napiVersion: v1\nkind: Node\n"
		    "metadata: {name: %s, labels: {%srack: %s, "
		    "kubernetes.io/hostname: %s}}\n"
		    "status: {allocatable: {cpu: \"8\", pods: \"10\"}%s}\n",
		    name, in_pool ? "pool: g, " : "", rack, name,
		    ready ? ""
			  : ", conditions: [{type: Ready, status: "
			    "\"False\"}]");
}

static void start(struct fx *x, struct strbuf *sb)
{
	fx_load(&x->c, sb->buf);
	strbuf_release(sb);
	x->s = sched_new(&x->c, NULL);
	sched_decisions_init(&x->d);
}

static void stop(struct fx *x)
{
	sched_decisions_release(&x->d);
	sched_free(x->s);
	cluster_release(&x->c);
}

static const struct topo *topo_f(const struct fx *x)
{
	const struct flavor *fl = cluster_find(&x->c, KIND_FLAVOR, NULL, "f");

	assert_non_null(fl);
	return sched_topo(x->s, (int32_t)(fl - x->c.flavors.items));
}

/* Index of the cluster node called name. */
static uint32_t node_id(const struct fx *x, const char *name)
{
	for (uint32_t i = 0; i < x->c.nodes.len; i++) {
		if (strcmp(x->c.nodes.items[i].name, name) == 0)
			return i;
	}
	fail_msg("no node %s", name);
	return 0;
}

/* Its index in the topology of f. */
static uint32_t tnode(const struct fx *x, const char *name)
{
	int64_t n = topo_find_node(topo_f(x), name);

	assert_true(n >= 0);
	return (uint32_t)n;
}

static const char *tname(const struct fx *x, uint32_t n)
{
	return topo_f(x)->node_src[n]->name;
}

/* CPU in use on the node called name, per the index. */
static int64_t cpu_used(const struct fx *x, const char *name)
{
	const struct topo *t = topo_f(x);
	size_t i = (size_t)tnode(x, name) * (size_t)t->nres + RESOURCE_CPU;

	return t->node_alloc[i] - t->node_free[i];
}

/* Whether no node of the index holds any usage. */
static bool all_free(const struct fx *x)
{
	const struct topo *t = topo_f(x);

	for (size_t i = 0; i < (size_t)t->nnodes * (size_t)t->nres; i++) {
		if (t->node_free[i] != t->node_alloc[i])
			return false;
	}
	return true;
}

static void check_topo(const struct fx *x)
{
	struct strbuf why;

	strbuf_init(&why);
	if (!topo_check(topo_f(x), &why))
		fail_msg("topology index: %s", why.buf);
	strbuf_release(&why);
}

static enum sched_pend pend(struct fx *x, const char *name, struct strbuf *m)
{
	strbuf_reset(m);
	return sched_wl_pending(x->s, fx_id(&x->c, name), m);
}

static uint32_t id(const struct fx *x, const char *name)
{
	return fx_id(&x->c, name);
}

static bool admitted(const struct fx *x, const char *name)
{
	return fx_admitted(x->s, &x->c, name);
}

/* The CPU one pod of workload name requests. */
static int64_t pod_cpu(const struct fx *x, const char *name)
{
	return x->c.workloads.items[id(x, name)]
		.podsets[0]
		.requests.v[RESOURCE_CPU];
}

/* A gang that needs both nodes of rack r0 waits while one is down. */
static void test_down_up(void **state)
{
	struct strbuf sb, m;
	struct fx x;
	uint32_t n1;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	tas_head(&sb);
	node(&sb, "n0", "r0", true, true);
	node(&sb, "n1", "r0", true, true);
	fx_wl(&sb, "w", "lq", 0, 2, "8", 0, RACK);
	start(&x, &sb);
	n1 = node_id(&x, "n1");
	sched_node_set_down(x.s, n1, true, 0);
	sched_node_set_down(x.s, n1, true, 0); /* idempotent */
	assert_false(topo_node_live(topo_f(&x), tnode(&x, "n1")));
	assert_true(topo_node_live(topo_f(&x), tnode(&x, "n0")));
	check_topo(&x);
	sched_submit(x.s, id(&x, "w"), 0);
	assert_int_equal(sched_cycle(x.s, 0, &x.d), 0);
	assert_int_equal(pend(&x, "w", &m), SCHED_PEND_TOPOLOGY);
	assert_non_null(strstr(m.buf, "topology \"t\""));
	/* nothing changed: the failure is remembered, still pending */
	assert_int_equal(sched_cycle(x.s, 1, &x.d), 0);
	sched_node_set_down(x.s, n1, false, 2);
	sched_node_set_down(x.s, n1, false, 2);
	assert_true(topo_node_live(topo_f(&x), tnode(&x, "n1")));
	check_topo(&x);
	assert_int_equal(sched_cycle(x.s, 3, &x.d), 1);
	assert_true(admitted(&x, "w"));
	assert_int_equal(cpu_used(&x, "n0"), pod_cpu(&x, "w"));
	assert_int_equal(cpu_used(&x, "n1"), pod_cpu(&x, "w"));
	strbuf_release(&m);
	stop(&x);
}

/*
 * Down keeps what runs on the node: no eviction, and the usage stays so
 * that the release is exact; up brings back only the down mark, never a
 * node that its own status keeps out (NotReady).
 */
static void test_down_keeps_usage(void **state)
{
	struct strbuf sb;
	struct fx x;
	const struct sched_admission *adm;
	uint32_t n0;

	(void)state;
	strbuf_init(&sb);
	tas_head(&sb);
	node(&sb, "n0", "r0", true, true);
	node(&sb, "sick", "r0", true, false);
	fx_wl(&sb, "w", "lq", 0, 1, "8", 0, RACK);
	start(&x, &sb);
	sched_submit(x.s, id(&x, "w"), 0);
	assert_int_equal(sched_cycle(x.s, 0, &x.d), 1);
	adm = sched_wl_admission(x.s, id(&x, "w"));
	assert_non_null(adm);
	assert_string_equal(tname(&x, adm->ps[0].nodes[0]), "n0");
	n0 = node_id(&x, "n0");
	sched_node_set_down(x.s, n0, true, 1);
	assert_true(admitted(&x, "w"));
	assert_int_equal(cpu_used(&x, "n0"), pod_cpu(&x, "w"));
	assert_int_equal(topo_f(&x)->dom_live[0], 0); /* rack r0 */
	sched_finish(x.s, id(&x, "w"), 2);
	assert_true(all_free(&x));
	check_topo(&x);
	sched_node_set_down(x.s, n0, false, 3);
	sched_node_set_down(x.s, node_id(&x, "sick"), true, 3);
	sched_node_set_down(x.s, node_id(&x, "sick"), false, 3);
	assert_true(topo_node_live(topo_f(&x), tnode(&x, "n0")));
	assert_false(topo_node_live(topo_f(&x), tnode(&x, "sick")));
	check_topo(&x);
	stop(&x);
}

/*
 * The driver's side of a node replacement: a's pod on the failed node
 * moves to the spare; a later single pod then gets the one node left,
 * never the spare; after both finish every node is empty.
 */
static void test_move_after_failure(void **state)
{
	static const char *const names[] = { "n0", "n1", "n2", "n3" };
	struct strbuf sb, m;
	struct fx x;
	const struct sched_admission *adm;
	const char *failed, *spare = NULL, *left = NULL;
	uint32_t a;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	tas_head(&sb);
	for (int i = 0; i < 4; i++)
		node(&sb, names[i], "r0", true, true);
	fx_wl(&sb, "a", "lq", 0, 2, "8", 0, RACK);
	fx_wl(&sb, "b", "lq", 0, 1, "8", 0, RACK);
	fx_wl(&sb, "c", "lq", 0, 1, "8", 0, RACK);
	start(&x, &sb);
	a = id(&x, "a");
	sched_submit(x.s, a, 0);
	assert_int_equal(sched_cycle(x.s, 0, &x.d), 1);
	adm = sched_wl_admission(x.s, a);
	failed = tname(&x, adm->ps[0].nodes[1]);
	for (int i = 0; i < 4; i++) {
		if (cpu_used(&x, names[i]))
			continue;
		if (!spare)
			spare = names[i];
		else
			left = names[i];
	}
	assert_non_null(left);
	sched_node_set_down(x.s, node_id(&x, failed), true, 1);
	assert_int_equal(sched_move_pod(x.s, a, 1, spare, 1), 0);
	assert_int_equal(sched_move_pod(x.s, a, 1, spare, 1), 0); /* there */
	assert_int_equal(adm->ps[0].nodes[1], tnode(&x, spare));
	assert_int_equal(cpu_used(&x, failed), 0);
	assert_int_equal(cpu_used(&x, spare), pod_cpu(&x, "a"));
	check_topo(&x);
	sched_submit(x.s, id(&x, "b"), 2);
	sched_submit(x.s, id(&x, "c"), 2);
	assert_int_equal(sched_cycle(x.s, 2, &x.d), 1);
	assert_true(admitted(&x, "b"));
	adm = sched_wl_admission(x.s, id(&x, "b"));
	assert_string_equal(tname(&x, adm->ps[0].nodes[0]), left);
	assert_int_equal(cpu_used(&x, spare), pod_cpu(&x, "a"));
	assert_int_equal(pend(&x, "c", &m), SCHED_PEND_TOPOLOGY);
	sched_finish(x.s, a, 3);
	sched_finish(x.s, id(&x, "b"), 3);
	assert_true(all_free(&x));
	sched_node_set_down(x.s, node_id(&x, failed), false, 4);
	assert_true(all_free(&x));
	check_topo(&x);
	strbuf_release(&m);
	stop(&x);
}

/*
 * Moving a pod off a live node frees capacity there: a gang parked for
 * want of it is tried again at the next cycle.
 */
static void test_move_wakes_parked(void **state)
{
	struct strbuf sb, m;
	struct fx x;
	uint32_t n3;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	tas_head(&sb);
	node(&sb, "n0", "r0", true, true);
	node(&sb, "n1", "r0", true, true);
	node(&sb, "n2", "r0", true, true);
	node(&sb, "n3", "r1", true, true);
	fx_wl(&sb, "a", "lq", 0, 1, "8", 0, RACK);
	fx_wl(&sb, "big", "lq", 0, 3, "8", 0, RACK);
	start(&x, &sb);
	n3 = node_id(&x, "n3");
	sched_node_set_down(x.s, n3, true, 0); /* a goes to rack r0 */
	sched_submit(x.s, id(&x, "a"), 0);
	assert_int_equal(sched_cycle(x.s, 0, &x.d), 1);
	sched_submit(x.s, id(&x, "big"), 1);
	sched_node_set_down(x.s, n3, false, 1);
	assert_int_equal(sched_cycle(x.s, 1, &x.d), 0);
	assert_int_equal(pend(&x, "big", &m), SCHED_PEND_TOPOLOGY);
	assert_int_equal(sched_cycle(x.s, 2, &x.d), 0);
	assert_int_equal(sched_move_pod(x.s, id(&x, "a"), 0, "n3", 3), 0);
	assert_int_equal(cpu_used(&x, "n3"), pod_cpu(&x, "a"));
	assert_int_equal(sched_cycle(x.s, 3, &x.d), 1);
	assert_true(admitted(&x, "big"));
	assert_int_equal(cpu_used(&x, "n0"), pod_cpu(&x, "big"));
	assert_int_equal(cpu_used(&x, "n1"), pod_cpu(&x, "big"));
	assert_int_equal(cpu_used(&x, "n2"), pod_cpu(&x, "big"));
	sched_finish(x.s, id(&x, "a"), 4);
	sched_finish(x.s, id(&x, "big"), 4);
	assert_true(all_free(&x));
	check_topo(&x);
	strbuf_release(&m);
	stop(&x);
}

/* Errors of sched_move_pod(), table-driven. */
static void test_move_errors(void **state)
{
	struct strbuf sb;
	struct fx x;
	struct {
		const char *wl;
		uint32_t pod;
		const char *node;
		int want;
	} cases[] = {
		{ "two", 0, "n1", 0 },
		{ "two", 1, "n0", 0 },
		{ "two", 2, "n0", -EINVAL },	      /* past the pods */
		{ "two", 0, "nowhere", -ENOENT },     /* no such node */
		{ "two", 0, "outside", -ENOENT },     /* not in flavor f */
		{ "pending", 0, "n0", -EINVAL },      /* not admitted */
		{ "partial", 1, "n0", 0 },	      /* 2 of 3 admitted */
		{ "partial", 2, "n0", -EINVAL },      /* not admitted */
		{ "plain", 0, "n0", -EINVAL },	      /* no placement */
		{ "two", UINT32_MAX, "n0", -EINVAL }, /* far out */
	};
	const struct sched_admission *adm;

	(void)state;
	strbuf_init(&sb);
	tas_head(&sb);
	strbuf_addstr(&sb, "---\n" K2 "kind: ResourceFlavor\n"
			   "metadata: {name: p}\n");
	strbuf_addstr(&sb, "---\n" K2 "kind: ClusterQueue\nmetadata: "
			   "{name: pq}\nspec:\n  resourceGroups:\n"
			   "  - coveredResources: [cpu]\n"
			   "    flavors: [{name: p, resources: [{name: cpu, "
			   "nominalQuota: 4}]}]\n");
	fx_lq(&sb, "plq", "pq");
	node(&sb, "n0", "r0", true, true);
	node(&sb, "n1", "r0", true, true);
	node(&sb, "outside", "r0", false, true);
	fx_wl(&sb, "two", "lq", 0, 2, "1", 0, RACK);
	fx_wl(&sb, "pending", "lq", 0, 2, "100", 0, RACK);
	fx_wl(&sb, "partial", "lq", 0, 3, "6", 0, "    minCount: 1\n" RACK);
	fx_wl(&sb, "plain", "plq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	for (uint32_t i = 0; i < x.c.workloads.len; i++)
		sched_submit(x.s, i, 0);
	sched_cycle(x.s, 0, &x.d);
	assert_true(admitted(&x, "two"));
	assert_true(admitted(&x, "partial"));
	assert_true(admitted(&x, "plain"));
	assert_false(admitted(&x, "pending"));
	adm = sched_wl_admission(x.s, id(&x, "partial"));
	assert_int_equal(adm->ps[0].count, 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = sched_move_pod(x.s, id(&x, cases[i].wl), cases[i].pod,
					cases[i].node, 1);

		if (rc != cases[i].want)
			fail_msg("case %zu: %d, want %d", i, rc, cases[i].want);
	}
	assert_int_equal(
		sched_move_pod(x.s, (uint32_t)x.c.workloads.len, 0, "n0", 1),
		-EINVAL);
	adm = sched_wl_admission(x.s, id(&x, "two"));
	assert_int_equal(adm->ps[0].nodes[0], tnode(&x, "n1"));
	assert_int_equal(adm->ps[0].nodes[1], tnode(&x, "n0"));
	check_topo(&x);
	stop(&x);
}

/* A plain ClusterQueue q (cpu quota on flavor f) with LocalQueue lq. */
static void plain_head(struct strbuf *sb, const char *cpu, const char *extra)
{
	fx_flavor(sb, "f");
	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
		    "spec:\n%s  resourceGroups:\n"
		    "  - coveredResources: [cpu]\n"
		    "    flavors: [{name: f, resources: [{name: cpu, "
		    "nominalQuota: %s}]}]\n",
		    extra ? extra : "", cpu);
	fx_lq(sb, "lq", "q");
}

static void admit_all(struct fx *x)
{
	for (uint32_t i = 0; i < x->c.workloads.len; i++)
		sched_submit(x->s, i, 0);
	sched_cycle(x->s, 0, &x->d);
	for (uint32_t i = 0; i < x->c.workloads.len; i++)
		assert_int_equal(sched_wl_state(x->s, i), SCHED_WL_ADMITTED);
}

/* Workloads evicted with requeue times come back in time order only. */
static void test_evict_until(void **state)
{
	/* name, requeue time; evicted at 10 */
	static const struct {
		const char *name;
		int64_t at;
	} ev[] = { { "w1", 100 }, { "w2", 50 }, { "w3", 50 }, { "w4", 10 } };
	/* at each cycle time: the next requeue time after it and which are
	 * admitted */
	static const struct {
		int64_t now, next;
		const char *admitted;
	} steps[] = {
		{ 10, 50, "w4" },	 { 20, 50, "w4" },
		{ 49, 50, "w4" },	 { 50, 100, "w2 w3 w4" },
		{ 99, 100, "w2 w3 w4" }, { 150, INT64_MAX, "w1 w2 w3 w4" },
	};
	struct strbuf sb, m;
	struct fx x;
	struct sched_condition c;
	int64_t cqp[4], lqp[4];

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	plain_head(&sb, "10", NULL);
	for (size_t i = 0; i < 4; i++)
		fx_wl(&sb, ev[i].name, "lq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	admit_all(&x);
	assert_int_equal(sched_next_requeue_us(x.s), INT64_MAX);
	for (size_t i = 0; i < 4; i++)
		sched_evict_until(x.s, id(&x, ev[i].name), "PodsReadyTimeout",
				  ev[i].at, 10);
	assert_int_equal(sched_next_requeue_us(x.s), 50);
	/* waiting: pending, in no queue, the time in the message */
	assert_int_equal(sched_wl_state(x.s, id(&x, "w1")), SCHED_WL_PENDING);
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[id(&x, "w1")], -1);
	assert_int_equal(cqp[id(&x, "w4")], 0); /* at now: queued at once */
	pend(&x, "w1", &m);
	assert_string_equal(m.buf,
			    "waiting for the requeue backoff until 100 us");
	c = sched_wl_condition(x.s, id(&x, "w1"), SCHED_COND_REQUEUED);
	assert_true(c.present);
	assert_false(c.status);
	assert_string_equal(c.reason, "PodsReadyTimeout");
	c = sched_wl_condition(x.s, id(&x, "w1"), SCHED_COND_EVICTED);
	assert_true(c.status);
	assert_string_equal(c.reason, "PodsReadyTimeout");
	c = sched_wl_condition(x.s, id(&x, "w4"), SCHED_COND_REQUEUED);
	assert_true(c.status);
	assert_string_equal(c.reason, "PodsReadyTimeout");
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		sched_cycle(x.s, steps[k].now, &x.d);
		assert_int_equal(sched_next_requeue_us(x.s), steps[k].next);
		for (size_t i = 0; i < 4; i++) {
			bool want = strstr(steps[k].admitted, ev[i].name);

			if (admitted(&x, ev[i].name) != want)
				fail_msg("at %lld: %s admitted %d",
					 (long long)steps[k].now, ev[i].name,
					 !want);
		}
	}
	c = sched_wl_condition(x.s, id(&x, "w1"), SCHED_COND_REQUEUED);
	assert_true(c.status);
	assert_string_equal(c.reason, "BackoffFinished");
	assert_int_equal(c.transition_us, 150);
	strbuf_release(&m);
	stop(&x);
}

/*
 * Workloads due at the same cycle are all queued and then go in queue
 * order (priority, then eviction time), whatever their requeue times:
 * with room for one, the one evicted first wins.
 */
static void test_evict_until_same_cycle(void **state)
{
	struct strbuf sb, m;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	plain_head(&sb, "2", NULL);
	fx_wl(&sb, "a", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "b", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "c", "lq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	sched_submit(x.s, id(&x, "a"), 0);
	sched_submit(x.s, id(&x, "b"), 0);
	sched_cycle(x.s, 0, &x.d);
	sched_evict_until(x.s, id(&x, "a"), "PodsReadyTimeout", 30, 1);
	sched_evict_until(x.s, id(&x, "b"), "PodsReadyTimeout", 20, 2);
	assert_int_equal(sched_next_requeue_us(x.s), 20);
	/* a newcomer takes one of the two slots meanwhile */
	sched_submit(x.s, id(&x, "c"), 3);
	assert_int_equal(sched_cycle(x.s, 3, &x.d), 1);
	assert_true(admitted(&x, "c"));
	assert_int_equal(sched_cycle(x.s, 30, &x.d), 1);
	assert_true(admitted(&x, "a"));
	assert_false(admitted(&x, "b"));
	assert_int_equal(pend(&x, "b", &m), SCHED_PEND_WAITING_FOR_QUOTA);
	assert_int_equal(sched_next_requeue_us(x.s), INT64_MAX);
	strbuf_release(&m);
	stop(&x);
}

/* Deactivation: admitted, queued, waiting for backoff, preempted, new. */
static void test_deactivate(void **state)
{
	struct strbuf sb, m;
	struct fx x;
	struct sched_condition c;
	int64_t cqp[8], lqp[8];

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	plain_head(&sb, "2",
		   "  preemption: {withinClusterQueue: LowerPriority}\n");
	fx_wl(&sb, "run", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "lo", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "queued", "lq", 0, 1, "2", 0, NULL);
	fx_wl(&sb, "next", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "hi", "lq", 9, 1, "1", 0, NULL);
	fx_wl(&sb, "new", "lq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	sched_submit(x.s, id(&x, "run"), 0);
	sched_submit(x.s, id(&x, "lo"), 0);
	sched_cycle(x.s, 0, &x.d);
	assert_true(admitted(&x, "run") && admitted(&x, "lo"));
	/* admitted: evicted, never again */
	sched_deactivate(x.s, id(&x, "run"), "Deactivated", 5);
	assert_int_equal(sched_wl_state(x.s, id(&x, "run")), SCHED_WL_PENDING);
	assert_int_equal(pend(&x, "run", &m), SCHED_PEND_DEACTIVATED);
	c = sched_wl_condition(x.s, id(&x, "run"), SCHED_COND_EVICTED);
	assert_true(c.present && c.status);
	assert_string_equal(c.reason, "Deactivated");
	assert_string_equal(c.message, "The workload is deactivated");
	c = sched_wl_condition(x.s, id(&x, "run"), SCHED_COND_REQUEUED);
	assert_true(c.present && !c.status);
	c = sched_wl_condition(x.s, id(&x, "run"), SCHED_COND_ADMITTED);
	assert_false(c.status);
	c = sched_wl_condition(x.s, id(&x, "run"), SCHED_COND_QUOTA_RESERVED);
	assert_false(c.status);
	assert_string_equal(c.reason, "Deactivated");
	sched_deactivate(x.s, id(&x, "run"), "Deactivated", 6); /* again */
	/* queued: waits for 2 CPUs behind lo, then leaves its queue */
	sched_submit(x.s, id(&x, "queued"), 6);
	sched_submit(x.s, id(&x, "next"), 7);
	sched_cycle(x.s, 7, &x.d);
	assert_true(admitted(&x, "next"));
	assert_int_equal(pend(&x, "queued", &m), SCHED_PEND_WAITING_FOR_QUOTA);
	sched_deactivate(x.s, id(&x, "queued"), "Deactivated", 8);
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[id(&x, "queued")], -1);
	assert_int_equal(pend(&x, "queued", &m), SCHED_PEND_DEACTIVATED);
	/* NEW: stays out when submitted */
	sched_deactivate(x.s, id(&x, "new"), "Deactivated", 9);
	assert_int_equal(sched_wl_state(x.s, id(&x, "new")), SCHED_WL_NEW);
	sched_submit(x.s, id(&x, "new"), 9);
	assert_int_equal(pend(&x, "new", &m), SCHED_PEND_DEACTIVATED);
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[id(&x, "new")], -1);
	sched_finish(x.s, id(&x, "next"), 9);
	sched_submit(x.s, id(&x, "hi"), 9);
	sched_finish(x.s, id(&x, "lo"), 9);
	sched_submit(x.s, id(&x, "lo"), 9);
	sched_cycle(x.s, 9, &x.d);
	assert_true(admitted(&x, "hi") && admitted(&x, "lo"));
	/* waiting for its backoff: deactivated, never requeued */
	sched_evict_until(x.s, id(&x, "lo"), "PodsReadyTimeout", 20, 10);
	assert_int_equal(sched_next_requeue_us(x.s), 20);
	sched_deactivate(x.s, id(&x, "lo"), "Deactivated", 11);
	assert_int_equal(sched_next_requeue_us(x.s), INT64_MAX);
	/* room again and again: none of them comes back */
	for (int64_t now = 20; now < 40; now += 10) {
		sched_finish(x.s, id(&x, "hi"), now);
		sched_cycle(x.s, now, &x.d);
		assert_false(admitted(&x, "run"));
		assert_false(admitted(&x, "queued"));
		assert_false(admitted(&x, "lo"));
		assert_false(admitted(&x, "new"));
		sched_submit(x.s, id(&x, "hi"), now);
		sched_cycle(x.s, now, &x.d);
		assert_true(admitted(&x, "hi"));
	}
	assert_int_equal(pend(&x, "lo", &m), SCHED_PEND_DEACTIVATED);
	assert_int_equal(pend(&x, "new", &m), SCHED_PEND_DEACTIVATED);
	assert_string_equal(m.buf,
			    "the workload is deactivated (spec.active: false)");
	strbuf_release(&m);
	stop(&x);
}

/* A victim waiting for the next cycle after its preemption. */
static void test_deactivate_preempted(void **state)
{
	struct strbuf sb, m;
	struct fx x;
	int64_t cqp[2], lqp[2];

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	plain_head(&sb, "1",
		   "  preemption: {withinClusterQueue: LowerPriority}\n");
	fx_wl(&sb, "lo", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "hi", "lq", 9, 1, "1", 0, NULL);
	start(&x, &sb);
	sched_submit(x.s, id(&x, "lo"), 0);
	sched_cycle(x.s, 0, &x.d);
	sched_submit(x.s, id(&x, "hi"), 1);
	sched_cycle(x.s, 1, &x.d);
	assert_true(admitted(&x, "hi"));
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[id(&x, "lo")], 0);
	sched_deactivate(x.s, id(&x, "lo"), "Deactivated", 2);
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[id(&x, "lo")], -1);
	sched_finish(x.s, id(&x, "hi"), 3);
	assert_int_equal(sched_cycle(x.s, 3, &x.d), 0);
	assert_int_equal(pend(&x, "lo", &m), SCHED_PEND_DEACTIVATED);
	strbuf_release(&m);
	stop(&x);
}

/* Parked members of a BestEffortFIFO class leave it when deactivated. */
static void test_deactivate_parked(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	plain_head(&sb, "1", NULL);
	fx_wl(&sb, "run", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "p1", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "p2", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "p3", "lq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	for (uint32_t i = 0; i < x.c.workloads.len; i++)
		sched_submit(x.s, i, 0);
	sched_cycle(x.s, 0, &x.d);
	assert_true(admitted(&x, "run"));
	sched_deactivate(x.s, id(&x, "p1"), "Deactivated", 1);
	sched_deactivate(x.s, id(&x, "p2"), "Deactivated", 1);
	sched_finish(x.s, id(&x, "run"), 2);
	assert_int_equal(sched_cycle(x.s, 2, &x.d), 1);
	assert_true(admitted(&x, "p3"));
	sched_finish(x.s, id(&x, "p3"), 3);
	assert_int_equal(sched_cycle(x.s, 3, &x.d), 0);
	stop(&x);
}

/* Usage and nominal quota of a ClusterQueue, per flavor and resource. */
static void test_cq_usage(void **state)
{
	struct strbuf sb;
	struct fx x;
	int32_t cq, f, g;
	int64_t one;

	(void)state;
	strbuf_init(&sb);
	fx_flavor(&sb, "f");
	fx_flavor(&sb, "g");
	strbuf_addstr(&sb,
		      "---\n" K2 "kind: ClusterQueue\nmetadata: {name: q}\n"
		      "spec:\n  resourceGroups:\n"
		      "  - coveredResources: [cpu]\n    flavors:\n"
		      "    - {name: f, resources: [{name: cpu, "
		      "nominalQuota: 4}]}\n"
		      "    - {name: g, resources: [{name: cpu, "
		      "nominalQuota: 6}]}\n");
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "a", "lq", 0, 3, "1", 0, NULL);
	fx_wl(&sb, "b", "lq", 0, 2, "1", 0, NULL);
	start(&x, &sb);
	cq = sched_wl_cq(x.s, id(&x, "a"));
	assert_string_equal(sched_cq_name(x.s, cq), "q");
	f = (int32_t)((const struct flavor *)cluster_find(&x.c, KIND_FLAVOR,
							  NULL, "f") -
		      x.c.flavors.items);
	g = (int32_t)((const struct flavor *)cluster_find(&x.c, KIND_FLAVOR,
							  NULL, "g") -
		      x.c.flavors.items);
	one = pod_cpu(&x, "a");
	assert_int_equal(sched_cq_nominal(x.s, cq, RESOURCE_CPU), 10 * one);
	assert_int_equal(sched_cq_nominal(x.s, cq, RESOURCE_MEMORY), -1);
	assert_int_equal(sched_cq_usage(x.s, cq, f, RESOURCE_CPU), 0);
	admit_all(&x);
	/* a fills 3 of f's 4, b goes on to g */
	assert_int_equal(sched_cq_usage(x.s, cq, f, RESOURCE_CPU), 3 * one);
	assert_int_equal(sched_cq_usage(x.s, cq, g, RESOURCE_CPU), 2 * one);
	assert_int_equal(sched_cq_usage(x.s, cq, f, RESOURCE_MEMORY), 0);
	sched_finish(x.s, id(&x, "a"), 1);
	assert_int_equal(sched_cq_usage(x.s, cq, f, RESOURCE_CPU), 0);
	stop(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_down_up),
		cmocka_unit_test(test_down_keeps_usage),
		cmocka_unit_test(test_move_after_failure),
		cmocka_unit_test(test_move_wakes_parked),
		cmocka_unit_test(test_move_errors),
		cmocka_unit_test(test_evict_until),
		cmocka_unit_test(test_evict_until_same_cycle),
		cmocka_unit_test(test_deactivate),
		cmocka_unit_test(test_deactivate_preempted),
		cmocka_unit_test(test_deactivate_parked),
		cmocka_unit_test(test_cq_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

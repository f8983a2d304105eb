// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the admission cycle: many admissions per queue per cycle,
 * the effective priority (WorkloadPriorityClass, spec.priority, the pods'
 * PriorityClass and priority, the global default), queue order
 * (priority, timestamp, submission), BestEffortFIFO parking
 * until a release and StrictFIFO blocking, eviction and requeue order,
 * partial admission, stop policies of ClusterQueues and LocalQueues,
 * namespace selectors, the conditions and pending reasons
 * with their numbers, and topology-aware admission that never gives the
 * same capacity twice.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "test_sched_fixture.h"
#include "testutil.h"

struct fx {
	struct cluster c;
	struct sched *s;
	struct sched_decisions d;
};

static void cq(struct strbuf *sb, const char *name, const char *cpu,
	       const char *extra)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: %s}\n"
		    "spec:\n%s  resourceGroups:\n"
		    "  - coveredResources: [cpu]\n"
		    "    flavors: [{name: f, resources: [{name: cpu, "
		    "nominalQuota: %s}]}]\n",
		    name, extra ? extra : "", cpu);
}

static void start(struct fx *x, struct strbuf *sb)
{
	fx_flavor(sb, "f");
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

static enum sched_pend pend(struct fx *x, const char *name, struct strbuf *m)
{
	strbuf_reset(m);
	return sched_wl_pending(x->s, fx_id(&x->c, name), m);
}

static void test_many_per_cycle(void **state)
{
	struct strbuf sb;
	struct fx x;
	char name[16];

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "q", "10", NULL);
	fx_lq(&sb, "lq", "q");
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		fx_wl(&sb, name, "lq", 0, 1, "1", 0, NULL);
	}
	start(&x, &sb);
	for (uint32_t i = 0; i < x.c.workloads.len; i++)
		sched_submit(x.s, i, 0);
	/* one cycle admits all that fit, not one head per queue */
	assert_int_equal(sched_cycle(x.s, 0, &x.d), 10);
	assert_true(fx_admitted(x.s, &x.c, "w9"));
	assert_false(fx_admitted(x.s, &x.c, "w10"));
	assert_int_equal(sched_cycle(x.s, 0, &x.d), 0);
	stop(&x);
}

static void test_order(void **state)
{
	struct strbuf sb, m;
	struct fx x;
	int64_t cqp[8], lqp[8];

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	cq(&sb, "q", "1", NULL);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "low", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "new", "lq", 5, 1, "1", 0, NULL);
	fx_wl(&sb, "old", "lq", 5, 1, "1", 0, NULL);
	fx_wl(&sb, "same", "lq", 5, 1, "1", 0, NULL);
	start(&x, &sb);
	/* creation times: new is newer than old and same */
	x.c.workloads.items[fx_id(&x.c, "new")].creation_us = 300;
	x.c.workloads.items[fx_id(&x.c, "old")].creation_us = 200;
	x.c.workloads.items[fx_id(&x.c, "same")].creation_us = 200;
	x.c.workloads.items[fx_id(&x.c, "low")].creation_us = 100;
	for (uint32_t i = 0; i < x.c.workloads.len; i++)
		sched_submit(x.s, i, 1000);
	sched_cycle(x.s, 1000, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "old"));
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[fx_id(&x.c, "same")], 0);
	assert_int_equal(cqp[fx_id(&x.c, "new")], 1);
	assert_int_equal(cqp[fx_id(&x.c, "low")], 2);
	assert_int_equal(lqp[fx_id(&x.c, "low")], 2);
	assert_int_equal(cqp[fx_id(&x.c, "old")], -1);
	strbuf_release(&m);
	stop(&x);
}

#define WPC(name, v)                                                           \
	"---\n" K2 "kind: WorkloadPriorityClass\nmetadata: {name: " name       \
	"}\nvalue: " v "\n"
#define PC(name, v, extra)                                                     \
	"---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"         \
	"metadata: {name: " name "}\nvalue: " v "\n" extra
/* Workload w: spec fields, then its pod template's spec fields. */
#define W(spec, pod)                                                           \
	"---\n" K2 "kind: Workload\nmetadata: {name: w, namespace: ns}\n"      \
	"spec:\n" spec "  podSets:\n  - template:\n      spec:\n" pod          \
	"        containers: [{}]\n"
/* Job j: metadata labels, then its pod template's spec fields. */
#define J(labels, pod)                                                         \
	"---\napiVersion: batch/v1\nkind: Job\n"                               \
	"metadata: {name: j, namespace: ns, labels: {" labels "}}\n"           \
	"spec:\n  template:\n    spec:\n" pod "      containers: [{}]\n"

#define CLASSES WPC("wpc", "7") PC("pc", "300", "") PC("other", "-5", "")
#define DEFAULT PC("dflt", "40", "globalDefault: true\n")

static const struct {
	const char *text;
	const char *wl;
	int32_t want;
} priority_cases[] = {
	/* the WorkloadPriorityClass first */
	{ CLASSES DEFAULT W("  priorityClassName: wpc\n  priority: 5\n",
			    "        priorityClassName: pc\n"
			    "        priority: 9\n"),
	  "w", 7 },
	/* then Workload spec.priority (0 counts when set) */
	{ CLASSES W("  priority: 5\n", "        priorityClassName: pc\n"), "w",
	  5 },
	{ CLASSES DEFAULT W("  priority: 0\n", ""), "w", 0 },
	/* then the pods' PriorityClass */
	{ CLASSES DEFAULT W("", "        priorityClassName: pc\n"
				"        priority: 9\n"),
	  "w", 300 },
	/* then the pod template's spec.priority */
	{ CLASSES DEFAULT W("", "        priority: 9\n"), "w", 9 },
	/* then the global default PriorityClass, else 0 */
	{ CLASSES DEFAULT W("", ""), "w", 40 },
	{ CLASSES W("", ""), "w", 0 },
	/* two global defaults (a race Kubernetes may let in): the lowest */
	{ CLASSES DEFAULT PC("dflt2", "30", "globalDefault: true\n") W("", ""),
	  "w", 30 },
	/* classes that are not defined are skipped */
	{ CLASSES W("  priorityClassName: nope\n",
		    "        priorityClassName: pc\n"),
	  "w", 300 },
	{ CLASSES DEFAULT W("", "        priorityClassName: nope\n"
				"        priority: 9\n"),
	  "w", 9 },
	/* classes every cluster has */
	{ W("", "        priorityClassName: system-node-critical\n"), "w",
	  2000001000 },
	{ W("", "        priorityClassName: system-cluster-critical\n"), "w",
	  2000000000 },
	/* a Job: its label names the WorkloadPriorityClass */
	{ CLASSES J("kueue.x-k8s.io/priority-class: wpc",
		    "      priorityClassName: pc\n"),
	  "job-j", 7 },
	{ CLASSES J("", "      priorityClassName: other\n"), "job-j", -5 },
	{ CLASSES DEFAULT J("", ""), "job-j", 40 },
};

static void test_priority(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(priority_cases); i++) {
		struct cluster c;
		struct sched *s;

		fx_load(&c, priority_cases[i].text);
		s = sched_new(&c, NULL);
		if (sched_wl_priority(s, fx_id(&c, priority_cases[i].wl)) !=
		    priority_cases[i].want)
			print_error("case %zu\n", i);
		assert_int_equal(
			sched_wl_priority(s, fx_id(&c, priority_cases[i].wl)),
			priority_cases[i].want);
		sched_free(s);
		cluster_release(&c);
	}
}

static void test_best_effort_parks(void **state)
{
	struct strbuf sb, m;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	cq(&sb, "q", "2", NULL);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "a", "lq", 0, 1, "2", 0, NULL);
	fx_wl(&sb, "b", "lq", 0, 1, "2", 0, NULL);
	fx_wl(&sb, "c", "lq", 0, 1, "2", 0, NULL);
	start(&x, &sb);
	fx_run(x.s, &x.c, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "a"));
	assert_int_equal(pend(&x, "b", &m), SCHED_PEND_WAITING_FOR_QUOTA);
	assert_string_equal(m.buf, "couldn't assign flavors to the workload: "
				   "insufficient unused quota for cpu in "
				   "flavor f, 2 more needed");
	/* parked: nothing changes until capacity does */
	assert_int_equal(sched_cycle(x.s, 0, &x.d), 0);
	sched_finish(x.s, fx_id(&x.c, "a"), 10);
	assert_int_equal(sched_cycle(x.s, 10, &x.d), 1);
	assert_true(fx_admitted(x.s, &x.c, "b"));
	assert_false(fx_admitted(x.s, &x.c, "c"));
	assert_int_equal(sched_wl_state(x.s, fx_id(&x.c, "a")),
			 SCHED_WL_FINISHED);
	assert_true(
		sched_wl_condition(x.s, fx_id(&x.c, "a"), SCHED_COND_FINISHED)
			.status);
	strbuf_release(&m);
	stop(&x);
}

static void test_strict_blocks(void **state)
{
	struct strbuf sb, m;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	cq(&sb, "q", "2", "  queueingStrategy: StrictFIFO\n");
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "first", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "big", "lq", 0, 1, "2", 0, NULL);
	fx_wl(&sb, "small", "lq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	fx_run(x.s, &x.c, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "first"));
	assert_false(fx_admitted(x.s, &x.c, "small"));
	assert_int_equal(pend(&x, "big", &m), SCHED_PEND_WAITING_FOR_QUOTA);
	assert_int_equal(pend(&x, "small", &m), SCHED_PEND_BEHIND);
	assert_string_equal(m.buf, "waits behind ns/big, the head of "
				   "StrictFIFO ClusterQueue q");
	strbuf_release(&m);
	stop(&x);
}

static void test_evict_requeue(void **state)
{
	struct strbuf sb;
	struct fx x;
	struct sched_condition c;
	uint32_t a;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "q", "1", NULL);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "a", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "b", "lq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	a = fx_id(&x.c, "a");
	x.c.workloads.items[a].creation_us = 10;
	x.c.workloads.items[fx_id(&x.c, "b")].creation_us = 50;
	fx_run(x.s, &x.c, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "a"));
	sched_evict(x.s, a, "PodsReadyTimeout", 100);
	c = sched_wl_condition(x.s, a, SCHED_COND_EVICTED);
	assert_true(c.present && c.status);
	assert_string_equal(c.reason, "PodsReadyTimeout");
	assert_int_equal(c.transition_us, 100);
	assert_true(sched_wl_condition(x.s, a, SCHED_COND_REQUEUED).status);
	assert_false(
		sched_wl_condition(x.s, a, SCHED_COND_QUOTA_RESERVED).status);
	/* requeued by eviction time: b (created at 50) goes first */
	sched_cycle(x.s, 100, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "b"));
	assert_int_equal(sched_wl_state(x.s, a), SCHED_WL_PENDING);
	stop(&x);
}

static void test_partial(void **state)
{
	struct strbuf sb;
	struct fx x;
	const struct sched_admission *adm;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "q", "10", NULL);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "elastic", "lq", 0, 8, "2", 0, "    minCount: 2\n");
	fx_wl(&sb, "rigid", "lq", 0, 8, "1", 0, "    minCount: 6\n");
	start(&x, &sb);
	fx_run(x.s, &x.c, &x.d);
	adm = sched_wl_admission(x.s, fx_id(&x.c, "elastic"));
	assert_non_null(adm);
	assert_int_equal(adm->ps[0].count, 5);
	assert_false(fx_admitted(x.s, &x.c, "rigid"));
	stop(&x);

	strbuf_init(&sb);
	cq(&sb, "q", "10", NULL);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "elastic", "lq", 0, 8, "2", 0, "    minCount: 2\n");
	fx_flavor(&sb, "f");
	fx_load(&x.c, sb.buf);
	strbuf_release(&sb);
	x.s = sched_new(&x.c, &(struct sched_options){ .no_partial = true });
	sched_decisions_init(&x.d);
	fx_run(x.s, &x.c, &x.d);
	assert_false(fx_admitted(x.s, &x.c, "elastic"));
	stop(&x);
}

static void test_stop_policies(void **state)
{
	struct strbuf sb, m;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	cq(&sb, "hold", "4", "  stopPolicy: Hold\n");
	cq(&sb, "drain", "4", "  stopPolicy: HoldAndDrain\n");
	fx_lq(&sb, "h", "hold");
	fx_lq(&sb, "d", "drain");
	fx_wl(&sb, "held", "h", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "running", "d", 0, 1, "1", 0, NULL); /* admitted below */
	start(&x, &sb);
	sched_submit(x.s, fx_id(&x.c, "held"), 0);
	assert_int_equal(pend(&x, "held", &m), SCHED_PEND_ON_HOLD);
	assert_string_equal(m.buf, "ClusterQueue hold is stopped (stopPolicy)");
	/* running was admitted before its queue was stopped */
	x.c.workloads.items[fx_id(&x.c, "running")].admission =
		&(struct admission){ .cluster_queue = "drain" };
	assert_int_equal(
		sched_assume_admitted(x.s, fx_id(&x.c, "running"), 0, NULL), 0);
	x.c.workloads.items[fx_id(&x.c, "running")].admission = NULL;
	assert_true(fx_admitted(x.s, &x.c, "running"));
	assert_int_equal(sched_cycle(x.s, 1, &x.d), 1);
	assert_false(fx_admitted(x.s, &x.c, "held"));
	assert_false(fx_admitted(x.s, &x.c, "running"));
	assert_string_equal(sched_wl_condition(x.s, fx_id(&x.c, "running"),
					       SCHED_COND_EVICTED)
				    .reason,
			    "ClusterQueueStopped");
	assert_int_equal(pend(&x, "running", &m), SCHED_PEND_ON_HOLD);
	strbuf_release(&m);
	stop(&x);
}

/* A LocalQueue with a stop policy in namespace ns. */
static void lq_stopped(struct strbuf *sb, const char *name, const char *cq,
		       const char *policy)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: LocalQueue\n"
		    "metadata: {name: %s, namespace: ns}\n"
		    "spec: {clusterQueue: %s, stopPolicy: %s}\n",
		    name, cq, policy);
}

/* Pretend wl was admitted to cq before the run. */
static void assume(struct fx *x, const char *wl, const char *cq)
{
	uint32_t id = fx_id(&x->c, wl);

	x->c.workloads.items[id].admission =
		&(struct admission){ .cluster_queue = cq };
	assert_int_equal(sched_assume_admitted(x->s, id, 0, NULL), 0);
	x->c.workloads.items[id].admission = NULL;
}

static void test_local_queue_stop(void **state)
{
	struct strbuf sb, m;
	struct fx x;
	int64_t cqp[8], lqp[8];

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	cq(&sb, "q", "4", "  queueingStrategy: StrictFIFO\n");
	lq_stopped(&sb, "h", "q", "Hold");
	lq_stopped(&sb, "d", "q", "HoldAndDrain");
	fx_lq(&sb, "open", "q");
	fx_wl(&sb, "held", "h", 10, 1, "10", 0, NULL); /* would block q */
	fx_wl(&sb, "kept", "h", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "drained", "d", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "free", "open", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	assume(&x, "kept", "q");
	assume(&x, "drained", "q");
	sched_submit(x.s, fx_id(&x.c, "held"), 0);
	sched_submit(x.s, fx_id(&x.c, "free"), 0);
	assert_int_equal(pend(&x, "held", &m), SCHED_PEND_ON_HOLD);
	assert_string_equal(m.buf, "LocalQueue ns/h is stopped (stopPolicy)");
	/* drained is evicted, free admitted: held blocks nothing */
	assert_int_equal(sched_cycle(x.s, 1, &x.d), 2);
	assert_true(fx_admitted(x.s, &x.c, "free"));
	assert_true(fx_admitted(x.s, &x.c, "kept")); /* Hold keeps it */
	assert_false(fx_admitted(x.s, &x.c, "drained"));
	assert_string_equal(sched_wl_condition(x.s, fx_id(&x.c, "drained"),
					       SCHED_COND_EVICTED)
				    .reason,
			    "LocalQueueStopped");
	assert_int_equal(pend(&x, "drained", &m), SCHED_PEND_ON_HOLD);
	assert_string_equal(m.buf, "LocalQueue ns/d is stopped (stopPolicy)");
	assert_string_equal(sched_wl_condition(x.s, fx_id(&x.c, "held"),
					       SCHED_COND_QUOTA_RESERVED)
				    .reason,
			    "OnHold");
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[fx_id(&x.c, "held")], -1);
	assert_int_equal(sched_cycle(x.s, 2, &x.d), 0);
	strbuf_release(&m);
	stop(&x);
}

/* A Workload of one pod of cpu in namespace ns, queue lq. */
static void wl_in(struct strbuf *sb, const char *name, const char *ns,
		  const char *lq, int prio, const char *cpu)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: Workload\n"
		    "metadata: {name: %s, namespace: %s}\n"
		    "spec:\n  queueName: %s\n  priority: %d\n"
		    "  podSets:\n  - name: main\n    count: 1\n"
		    "    template: {spec: {containers: [{name: c, resources: "
		    "{requests: {cpu: \"%s\"}}}]}}\n",
		    name, ns, lq, prio, cpu);
}

static void test_namespace_selector(void **state)
{
	struct strbuf sb, m;
	struct fx x;
	int64_t cqp[8], lqp[8];

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	cq(&sb, "gold", "4",
	   "  queueingStrategy: StrictFIFO\n"
	   "  namespaceSelector: {matchLabels: {tier: gold}}\n");
	cq(&sb, "named", "4",
	   "  namespaceSelector: {matchExpressions: [{key: "
	   "kubernetes.io/metadata.name, operator: In, values: [ns]}]}\n");
	cq(&sb, "all", "4", "  namespaceSelector: {}\n");
	strbuf_addstr(&sb, "---\napiVersion: v1\nkind: Namespace\n"
			   "metadata: {name: team, labels: {tier: gold}}\n");
	fx_lq(&sb, "lq", "gold");
	fx_lq(&sb, "byname", "named");
	fx_lq(&sb, "any", "all");
	strbuf_addstr(&sb, "---\n" K2 "kind: LocalQueue\n"
			   "metadata: {name: lq, namespace: team}\n"
			   "spec: {clusterQueue: gold}\n---\n" K2
			   "kind: LocalQueue\n"
			   "metadata: {name: byname, namespace: team}\n"
			   "spec: {clusterQueue: named}\n");
	/* out would block StrictFIFO gold if it were queued */
	wl_in(&sb, "out", "ns", "lq", 10, "10");
	wl_in(&sb, "in", "team", "lq", 0, "1");
	wl_in(&sb, "by-name", "ns", "byname", 0, "1");
	wl_in(&sb, "not-by-name", "team", "byname", 0, "1");
	wl_in(&sb, "anyone", "ns", "any", 0, "1");
	start(&x, &sb);
	fx_run(x.s, &x.c, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "in"));
	assert_true(fx_admitted(x.s, &x.c, "by-name"));
	assert_true(fx_admitted(x.s, &x.c, "anyone"));
	assert_false(fx_admitted(x.s, &x.c, "out"));
	assert_false(fx_admitted(x.s, &x.c, "not-by-name"));
	assert_int_equal(pend(&x, "out", &m), SCHED_PEND_MISCONFIGURED);
	assert_string_equal(m.buf, "Workload namespace doesn't match "
				   "ClusterQueue selector");
	assert_int_equal(pend(&x, "not-by-name", &m), SCHED_PEND_MISCONFIGURED);
	assert_string_equal(sched_wl_condition(x.s, fx_id(&x.c, "out"),
					       SCHED_COND_QUOTA_RESERVED)
				    .reason,
			    "Misconfigured");
	sched_positions(x.s, cqp, lqp);
	assert_int_equal(cqp[fx_id(&x.c, "out")], -1);
	strbuf_release(&m);
	stop(&x);
}

static void test_misconfigured(void **state)
{
	struct strbuf sb, m;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	cq(&sb, "q", "4", NULL);
	fx_lq(&sb, "lq", "q");
	fx_lq(&sb, "dangling", "nope");
	fx_wl(&sb, "lost", "missing", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "dang", "dangling", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "gpu", "lq", 0, 1, "1", 1, NULL);
	fx_wl(&sb, "huge", "lq", 0, 1, "5", 0, NULL);
	fx_wl(&sb, "off", "lq", 0, 1, "1", 0, NULL);
	fx_wl(&sb, "late", "lq", 0, 1, "1", 0, NULL);
	start(&x, &sb);
	x.c.workloads.items[fx_id(&x.c, "off")].active = false;
	for (uint32_t i = 0; i + 1 < x.c.workloads.len; i++)
		sched_submit(x.s, i, 0);
	sched_cycle(x.s, 0, &x.d);
	sched_submit(x.s, fx_id(&x.c, "late"), 1);
	assert_int_equal(pend(&x, "late", &m), SCHED_PEND_EVALUATION);
	assert_string_equal(m.buf, "waiting for the next admission cycle");
	assert_int_equal(pend(&x, "off", &m), SCHED_PEND_DEACTIVATED);
	assert_int_equal(pend(&x, "lost", &m), SCHED_PEND_MISCONFIGURED);
	assert_string_equal(m.buf, "LocalQueue ns/missing doesn't exist");
	assert_int_equal(pend(&x, "dang", &m), SCHED_PEND_MISCONFIGURED);
	assert_string_equal(m.buf, "ClusterQueue nope doesn't exist");
	assert_int_equal(pend(&x, "gpu", &m), SCHED_PEND_NO_MATCHING_FLAVOR);
	assert_int_equal(pend(&x, "huge", &m), SCHED_PEND_EXCEEDS_MAX_QUOTA);
	assert_string_equal(m.buf, "couldn't assign flavors to the workload: "
				   "insufficient quota for cpu in flavor f, "
				   "request > maximum capacity (5 > 4)");
	strbuf_release(&m);
	stop(&x);
}

/* Two queues in different trees share one rack: never both get it. */
static void test_tas_no_double_booking(void **state)
{
	struct strbuf sb, m;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&m);
	strbuf_addstr(&sb, "---\n" K2 "kind: Topology\nmetadata: {name: t}\n"
			   "spec: {levels: [{nodeLabel: rack}, "
			   "{nodeLabel: kubernetes.io/hostname}]}\n");
	for (int i = 0; i < 2; i++)
		strbuf_addf(
			&sb,
			"---\napiVersion: v1\nkind: Node\n"
			"metadata: {name: n%d, labels: {rack: r0, "
			"kubernetes.io/hostname: n%d}}\n"
			"status: {allocatable: {cpu: \"8\", pods: \"10\"}}\n",
			i, i);
	strbuf_addstr(&sb, "---\n" K2 "kind: ResourceFlavor\n"
			   "metadata: {name: f}\nspec: {nodeLabels: {rack: r0},"
			   " topologyName: t}\n");
	cq(&sb, "a", "100", NULL);
	cq(&sb, "b", "100", NULL);
	fx_lq(&sb, "a", "a");
	fx_lq(&sb, "b", "b");
	fx_wl(&sb, "wa", "a", 0, 2, "8", 0,
	      "    topologyRequest: {required: rack}\n");
	fx_wl(&sb, "wb", "b", 0, 2, "8", 0,
	      "    topologyRequest: {required: rack}\n");
	fx_load(&x.c, sb.buf);
	strbuf_release(&sb);
	x.s = sched_new(&x.c, NULL);
	sched_decisions_init(&x.d);
	fx_run(x.s, &x.c, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "wa"));
	assert_false(fx_admitted(x.s, &x.c, "wb"));
	assert_int_equal(pend(&x, "wb", &m), SCHED_PEND_TOPOLOGY);
	assert_non_null(strstr(m.buf, "topology \"t\" doesn't allow to fit "
				      "any of 2 pod(s)"));
	assert_non_null(strstr(m.buf, "(required level rack)"));
	sched_finish(x.s, fx_id(&x.c, "wa"), 5);
	sched_cycle(x.s, 5, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "wb"));
	strbuf_release(&m);
	stop(&x);
}

/* Flavor fungibility: borrow on the first flavor, or try the next. */
static void test_fungibility(void **state)
{
	static const char *const spec[] = {
		"", "  flavorFungibility: "
		    "{whenCanBorrow: TryNextFlavor}\n"
	};
	static const char *const want[] = { "f", "g" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct strbuf sb;
		struct fx x;
		const struct sched_admission *adm;

		strbuf_init(&sb);
		strbuf_addf(&sb,
			    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: "
			    "q}\nspec:\n  cohortName: co\n%s"
			    "  resourceGroups:\n  - coveredResources: [cpu]\n"
			    "    flavors:\n"
			    "    - {name: f, resources: [{name: cpu, "
			    "nominalQuota: 1}]}\n"
			    "    - {name: g, resources: [{name: cpu, "
			    "nominalQuota: 4}]}\n",
			    spec[i]);
		cq(&sb, "lender", "4", "  cohortName: co\n");
		fx_flavor(&sb, "g");
		fx_lq(&sb, "lq", "q");
		fx_wl(&sb, "w", "lq", 0, 1, "2", 0, NULL);
		start(&x, &sb);
		fx_run(x.s, &x.c, &x.d);
		adm = sched_wl_admission(x.s, fx_id(&x.c, "w"));
		assert_non_null(adm);
		assert_string_equal(
			x.c.flavors.items[adm->ps[0].flavor[RESOURCE_CPU]].name,
			want[i]);
		stop(&x);
	}
}

/* Fair sharing serves the queue with the lowest share first. */
static void test_fair_order(void **state)
{
	struct strbuf sb;
	struct fx x;
	struct sched_options o = { .fair_sharing = true };
	int a = 0, b = 0;
	char name[16];

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "a", "0", "  cohortName: co\n");
	cq(&sb, "b", "0", "  cohortName: co\n");
	cq(&sb, "pool", "4", "  cohortName: co\n");
	fx_lq(&sb, "a", "a");
	fx_lq(&sb, "b", "b");
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "a%d", i);
		fx_wl(&sb, name, "a", 9, 1, "1", 0, NULL);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		fx_wl(&sb, name, "b", 0, 1, "1", 0, NULL);
	}
	fx_flavor(&sb, "f");
	fx_load(&x.c, sb.buf);
	strbuf_release(&sb);
	x.s = sched_new(&x.c, &o);
	sched_decisions_init(&x.d);
	fx_run(x.s, &x.c, &x.d);
	/* priority alone would give a all four; shares split 2/2 */
	for (uint32_t i = 0; i < x.c.workloads.len; i++) {
		if (sched_wl_state(x.s, i) != SCHED_WL_ADMITTED)
			continue;
		if (x.c.workloads.items[i].name[0] == 'a')
			a++;
		else
			b++;
	}
	assert_int_equal(a, 2);
	assert_int_equal(b, 2);
	stop(&x);
}

/* Load sb with flavor f and options o; run every workload in order. */
static void run_opts(struct fx *x, struct strbuf *sb,
		     const struct sched_options *o)
{
	fx_flavor(sb, "f");
	fx_load(&x->c, sb->buf);
	strbuf_release(sb);
	x->s = sched_new(&x->c, o);
	sched_decisions_init(&x->d);
	fx_run(x->s, &x->c, &x->d);
}

/*
 * Kueue scheduler.go, makeClassicalIterator: heads are ordered by the
 * borrowing level of their assignment (Assignment.Borrows(), the height of
 * the lowest subtree that holds the request), not by whether their queue
 * borrows now. Flat: queue a borrows cpu now, but its head asks for gpus
 * within a's nominal quota, while b's older head must borrow them; only
 * one of the two fits, and a's goes first. Hierarchical: neither queue
 * borrows; a's head borrows within cohort x (height 1), b's older head
 * from the root (height 2): a's goes first.
 */
static void test_head_borrowing_level(void **state)
{
	struct strbuf sb;
	struct fx x;

	(void)state;
	strbuf_init(&sb);
	strbuf_addstr(&sb,
		      "---\n" K2 "kind: ClusterQueue\nmetadata: {name: a}\n"
		      "spec:\n  cohortName: co\n  resourceGroups:\n"
		      "  - coveredResources: [cpu, nvidia.com/gpu]\n"
		      "    flavors: [{name: f, resources: [{name: cpu, "
		      "nominalQuota: 1}, {name: nvidia.com/gpu, "
		      "nominalQuota: 4}]}]\n"
		      "---\n" K2 "kind: ClusterQueue\nmetadata: {name: b}\n"
		      "spec:\n  cohortName: co\n  resourceGroups:\n"
		      "  - coveredResources: [cpu, nvidia.com/gpu]\n"
		      "    flavors: [{name: f, resources: [{name: cpu, "
		      "nominalQuota: 2}, {name: nvidia.com/gpu, "
		      "nominalQuota: 0}]}]\n");
	fx_lq(&sb, "a", "a");
	fx_lq(&sb, "b", "b");
	fx_wl(&sb, "a-run", "a", 0, 1, "2", 0, NULL);
	strbuf_addstr(&sb, "status: {admission: {clusterQueue: a, "
			   "podSetAssignments: [{name: main, count: 1, "
			   "flavors: {cpu: f}}]}}\n");
	fx_wl(&sb, "b-head", "b", 0, 1, "0", 4, NULL);
	fx_wl(&sb, "a-head", "a", 0, 1, "0", 4, NULL);
	run_opts(&x, &sb, NULL);
	assert_true(fx_admitted(x.s, &x.c, "a-head"));
	assert_false(fx_admitted(x.s, &x.c, "b-head"));
	stop(&x);

	strbuf_init(&sb);
	strbuf_addstr(&sb, "---\n" K2 "kind: Cohort\nmetadata: {name: x}\n"
			   "spec: {parentName: root}\n"
			   "---\n" K2 "kind: Cohort\nmetadata: {name: y}\n"
			   "spec: {parentName: root}\n");
	cq(&sb, "a", "0", "  cohortName: x\n");
	cq(&sb, "lender", "2", "  cohortName: x\n");
	cq(&sb, "b", "0", "  cohortName: y\n");
	fx_lq(&sb, "a", "a");
	fx_lq(&sb, "b", "b");
	fx_wl(&sb, "b-head", "b", 0, 1, "2", 0, NULL);
	fx_wl(&sb, "a-head", "a", 0, 1, "2", 0, NULL);
	run_opts(&x, &sb, NULL);
	assert_true(fx_admitted(x.s, &x.c, "a-head"));
	assert_false(fx_admitted(x.s, &x.c, "b-head"));
	stop(&x);
}

/*
 * Kueue fair_sharing_iterator.go, computeDRS: each queue's dominant
 * resource share is compared with its head's usage added
 * (SimulateUsageAddition). Both queues borrow nothing now; a's older head
 * would borrow 3 of 5, b's 1: b's goes first, and a's no longer fits.
 */
static void test_fair_share_after_admission(void **state)
{
	struct strbuf sb;
	struct fx x;
	struct sched_options o = { .fair_sharing = true };

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "a", "1", "  cohortName: co\n");
	cq(&sb, "b", "1", "  cohortName: co\n");
	cq(&sb, "pool", "3", "  cohortName: co\n");
	fx_lq(&sb, "a", "a");
	fx_lq(&sb, "b", "b");
	fx_wl(&sb, "big", "a", 0, 1, "4", 0, NULL);
	fx_wl(&sb, "small", "b", 0, 1, "2", 0, NULL);
	run_opts(&x, &sb, &o);
	assert_true(fx_admitted(x.s, &x.c, "small"));
	assert_false(fx_admitted(x.s, &x.c, "big"));
	stop(&x);
}

/*
 * Kueue podset_reducer.go: every pod set with a minCount shrinks by the
 * same fraction of its (count - minCount). Two pod sets of 4 (minCount 2)
 * under a quota of 6 are admitted as 3 and 3, not 2 and 4.
 */
/*
 * Kueue fair_sharing_iterator.go, runTournament: in a cohort tree the
 * heads meet at each cohort, compared by the share of that cohort's child
 * on their path. qa (share 2000 in cohort x) beats qb (share 1200 in y)
 * at the root, where x borrows 1 and y 2 of what the root lends.
 */
static void test_fair_tournament(void **state)
{
	struct strbuf sb;
	struct fx x;
	struct sched_options o = { .fair_sharing = true };

	(void)state;
	strbuf_init(&sb);
	strbuf_addstr(&sb, "---\n" K2 "kind: Cohort\nmetadata: {name: x}\n"
			   "spec: {parentName: root}\n"
			   "---\n" K2 "kind: Cohort\nmetadata: {name: y}\n"
			   "spec: {parentName: root}\n");
	cq(&sb, "qa", "0", "  cohortName: x\n");
	cq(&sb, "lx", "1", "  cohortName: x\n");
	cq(&sb, "qb", "0", "  cohortName: y\n");
	cq(&sb, "ly", "10", "  cohortName: y\n");
	cq(&sb, "lz", "2", "  cohortName: root\n");
	fx_lq(&sb, "qa", "qa");
	fx_lq(&sb, "qb", "qb");
	fx_wl(&sb, "b-head", "qb", 0, 1, "12", 0, NULL);
	fx_wl(&sb, "a-head", "qa", 0, 1, "2", 0, NULL);
	run_opts(&x, &sb, &o);
	assert_true(fx_admitted(x.s, &x.c, "a-head"));
	assert_false(fx_admitted(x.s, &x.c, "b-head"));
	stop(&x);
}

static void test_partial_podsets(void **state)
{
	struct strbuf sb;
	struct fx x;
	const struct sched_admission *adm;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "q", "6", NULL);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "two", "lq", 0, 4, "1", 0,
	      "    minCount: 2\n"
	      "    template: {spec: {containers: [{name: c, resources: "
	      "{requests: {cpu: \"1\"}}}]}}\n"
	      "  - name: second\n    count: 4\n    minCount: 2\n");
	run_opts(&x, &sb, NULL);
	adm = sched_wl_admission(x.s, fx_id(&x.c, "two"));
	assert_non_null(adm);
	assert_int_equal(adm->ps[0].count, 3);
	assert_int_equal(adm->ps[1].count, 3);
	stop(&x);
}

static void test_preempted_conditions(void **state)
{
	struct strbuf sb;
	struct fx x;
	struct sched_condition c;
	uint32_t lo;

	(void)state;
	strbuf_init(&sb);
	cq(&sb, "q", "1",
	   "  preemption: {withinClusterQueue: LowerPriority}\n");
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "lo", "lq", 1, 1, "1", 0, NULL);
	fx_wl(&sb, "hi", "lq", 5, 1, "1", 0, NULL);
	start(&x, &sb);
	lo = fx_id(&x.c, "lo");
	sched_submit(x.s, lo, 0);
	sched_cycle(x.s, 0, &x.d);
	sched_submit(x.s, fx_id(&x.c, "hi"), 7);
	x.d.items.len = 0;
	sched_cycle(x.s, 7, &x.d);
	assert_int_equal(x.d.items.len, 2);
	assert_int_equal(x.d.items.items[0].kind, SCHED_DECIDE_PREEMPT);
	assert_int_equal(x.d.items.items[1].kind, SCHED_DECIDE_ADMIT);
	c = sched_wl_condition(x.s, lo, SCHED_COND_PREEMPTED);
	assert_true(c.status);
	assert_string_equal(c.reason, "InClusterQueue");
	assert_int_equal(c.transition_us, 7);
	c = sched_wl_condition(x.s, lo, SCHED_COND_EVICTED);
	assert_string_equal(c.reason, "Preempted");
	assert_string_equal(c.message, "Preempted to accommodate a workload "
				       "(ns/hi) due to InClusterQueue");
	c = sched_wl_condition(x.s, fx_id(&x.c, "hi"), SCHED_COND_ADMITTED);
	assert_true(c.status);
	stop(&x);
}

/*
 * Kueue pkg/workload/workload.go, GetQueueOrderTimestamp: a preempted
 * workload keeps its creation time as its queue order (the eviction time
 * counts only after a waitForPodsReady timeout under the Eviction
 * strategy), so it goes before a later-created workload of its priority.
 * And a workload without spec.queueName, admitted when loaded, cannot be
 * queued again once evicted (Kueue has no queue to put it in).
 */
static void test_requeue_after_preemption(void **state)
{
	struct strbuf sb, msg;
	struct fx x;
	uint32_t lo, mid, hi, orphan;

	(void)state;
	strbuf_init(&sb);
	strbuf_init(&msg);
	cq(&sb, "q", "1",
	   "  preemption: {withinClusterQueue: LowerPriority}\n");
	cq(&sb, "q2", "1", NULL);
	fx_lq(&sb, "lq", "q");
	fx_wl(&sb, "lo", "lq", 1, 1, "1", 0, NULL);
	fx_wl(&sb, "mid", "lq", 1, 1, "1", 0, NULL);
	fx_wl(&sb, "hi", "lq", 5, 1, "1", 0, NULL);
	strbuf_addstr(&sb,
		      "---\n" K2 "kind: Workload\n"
		      "metadata: {name: orphan, namespace: ns}\n"
		      "spec:\n  podSets:\n  - name: main\n"
		      "    count: 1\n    template: {spec: {containers: "
		      "[{name: c, resources: {requests: {cpu: \"1\"}}}]}}\n"
		      "status: {admission: {clusterQueue: q2, "
		      "podSetAssignments: [{name: main, count: 1, "
		      "flavors: {cpu: f}}]}}\n");
	start(&x, &sb);
	lo = fx_id(&x.c, "lo");
	mid = fx_id(&x.c, "mid");
	hi = fx_id(&x.c, "hi");
	orphan = fx_id(&x.c, "orphan");
	x.c.workloads.items[lo].creation_us = 10;
	x.c.workloads.items[mid].creation_us = 20;
	x.c.workloads.items[hi].creation_us = 30;
	assert_int_equal(sched_assume_admitted(x.s, orphan, 0, NULL), 0);
	sched_submit(x.s, lo, 40);
	sched_cycle(x.s, 40, &x.d);
	sched_submit(x.s, mid, 50);
	sched_submit(x.s, hi, 50);
	sched_cycle(x.s, 50, &x.d);
	assert_true(fx_admitted(x.s, &x.c, "hi"));
	assert_int_equal(sched_wl_state(x.s, lo), SCHED_WL_PENDING);
	sched_finish(x.s, hi, 60);
	sched_cycle(x.s, 60, &x.d);
	sched_cycle(x.s, 60, &x.d);
	/* lo (created at 10, preempted at 50) before mid (created at 20) */
	assert_true(fx_admitted(x.s, &x.c, "lo"));
	assert_int_equal(sched_wl_state(x.s, mid), SCHED_WL_PENDING);
	/* the orphan is not queued again, though q2 has room */
	sched_evict(x.s, orphan, "NodeFailures", 70);
	sched_cycle(x.s, 70, &x.d);
	assert_int_equal(sched_wl_state(x.s, orphan), SCHED_WL_PENDING);
	assert_int_equal(sched_wl_pending(x.s, orphan, &msg),
			 SCHED_PEND_MISCONFIGURED);
	assert_string_equal(msg.buf, "the workload names no LocalQueue");
	strbuf_release(&msg);
	stop(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_per_cycle),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_best_effort_parks),
		cmocka_unit_test(test_strict_blocks),
		cmocka_unit_test(test_evict_requeue),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_stop_policies),
		cmocka_unit_test(test_local_queue_stop),
		cmocka_unit_test(test_namespace_selector),
		cmocka_unit_test(test_misconfigured),
		cmocka_unit_test(test_tas_no_double_booking),
		cmocka_unit_test(test_fair_order),
		cmocka_unit_test(test_fungibility),
		cmocka_unit_test(test_preempted_conditions),
		cmocka_unit_test(test_requeue_after_preemption),
		cmocka_unit_test(test_head_borrowing_level),
		cmocka_unit_test(test_fair_share_after_admission),
		cmocka_unit_test(test_partial_podsets),
		cmocka_unit_test(test_fair_tournament),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

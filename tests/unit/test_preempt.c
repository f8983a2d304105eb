// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of preemption, one table row per policy: withinClusterQueue
 * (LowerPriority, LowerOrNewerEqualPriority, Never), reclaimWithinCohort
 * (Any, LowerPriority; only from queues that borrow), borrowWithinCohort
 * with its priority threshold, fair sharing, and the minimal victim set
 * (targets not needed are given back). Each row loads admitted victims
 * and one pending preemptor and checks exactly who is preempted, why,
 * and that the preemptor is admitted.
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

struct vic {
	const char *name, *cq;
	int prio;
	const char *cpu;
	const char *qr; /* QuotaReserved lastTransitionTime; NULL: none */
};

struct row {
	const char *what;
	const char *a_spec, *b_spec; /* extra spec of queues a and b */
	const char *a_quota, *b_quota;
	struct vic victims[4];
	int prio;	 /* of the preemptor (queue a) */
	const char *cpu; /* its request */
	bool fair;
	const char *want; /* "victim:Reason ..." in order, "" for none */
	bool admitted;
};

#define COHORT "  cohortName: co\n"

static const struct row rows[] = {
	{ "within LowerPriority takes lower only",
	  COHORT "  preemption: {withinClusterQueue: LowerPriority}\n",
	  COHORT,
	  "4",
	  "0",
	  { { "eq", "a", 5, "2", NULL }, { "lo", "a", 1, "2", NULL } },
	  5,
	  "2",
	  false,
	  "lo:InClusterQueue",
	  true },
	{ "within LowerPriority does not take equal",
	  COHORT "  preemption: {withinClusterQueue: LowerPriority}\n",
	  COHORT,
	  "4",
	  "0",
	  { { "eq1", "a", 5, "2", NULL }, { "eq2", "a", 5, "2", NULL } },
	  5,
	  "2",
	  false,
	  "",
	  false },
	{ "within LowerOrNewerEqualPriority takes the newer equal",
	  COHORT "  preemption: {withinClusterQueue: "
		 "LowerOrNewerEqualPriority}\n",
	  COHORT,
	  "2",
	  "0",
	  { { "newer", "a", 5, "2", NULL } },
	  5,
	  "2",
	  false,
	  "newer:InClusterQueue",
	  true },
	{ "within Never takes nothing",
	  COHORT,
	  COHORT,
	  "2",
	  "0",
	  { { "lo", "a", 0, "2", NULL } },
	  9,
	  "2",
	  false,
	  "",
	  false },
	{ "minimal set: the small victim is given back",
	  COHORT "  preemption: {withinClusterQueue: LowerPriority}\n",
	  COHORT,
	  "5",
	  "0",
	  { { "small", "a", 1, "1", NULL }, { "big", "a", 2, "4", NULL } },
	  5,
	  "4",
	  false,
	  "big:InClusterQueue",
	  true },
	{ "reclaim Any takes a borrower of higher priority",
	  COHORT "  preemption: {reclaimWithinCohort: Any}\n",
	  COHORT,
	  "4",
	  "2",
	  { { "b1", "b", 100, "2", "2024-01-01T10:00:00Z" },
	    { "b2", "b", 100, "2", "2024-01-01T11:00:00Z" } },
	  0,
	  "4",
	  false,
	  "b2:InCohortReclamation",
	  true },
	/* Kueue pkg/scheduler/preemption/common/ordering.go,
	 * CandidatesOrdering: "admitted more recently first", by the
	 * QuotaReserved condition's lastTransitionTime, not by the order of
	 * the input (b1 comes first in the file but was admitted later). */
	{ "victims admitted more recently first, by QuotaReserved",
	  COHORT "  preemption: {reclaimWithinCohort: Any}\n",
	  COHORT,
	  "4",
	  "2",
	  { { "b1", "b", 100, "2", "2024-01-01T12:00:00Z" },
	    { "b2", "b", 100, "2", "2024-01-01T11:00:00Z" } },
	  0,
	  "4",
	  false,
	  "b1:InCohortReclamation",
	  true },
	{ "reclaim LowerPriority skips higher priority",
	  COHORT "  preemption: {reclaimWithinCohort: LowerPriority}\n",
	  COHORT,
	  "4",
	  "2",
	  { { "b1", "b", 100, "2", NULL }, { "b2", "b", 100, "2", NULL } },
	  5,
	  "4",
	  false,
	  "",
	  false },
	{ "reclaim LowerPriority takes a lower-priority borrower",
	  COHORT "  preemption: {reclaimWithinCohort: LowerPriority}\n",
	  COHORT,
	  "4",
	  "2",
	  { { "b1", "b", 2, "2", NULL }, { "b2", "b", 100, "2", NULL } },
	  5,
	  "4",
	  false,
	  "b1:InCohortReclamation",
	  true },
	{ "reclaim never takes from a queue within its quota",
	  COHORT "  preemption: {reclaimWithinCohort: Any}\n",
	  COHORT,
	  "2",
	  "2",
	  { { "a1", "a", 0, "2", NULL }, { "b1", "b", 0, "2", NULL } },
	  0,
	  "2",
	  false,
	  "",
	  false },
	{ "borrowWithinCohort below the threshold",
	  COHORT "  preemption:\n    reclaimWithinCohort: LowerPriority\n"
		 "    borrowWithinCohort: {policy: LowerPriority, "
		 "maxPriorityThreshold: 5}\n",
	  COHORT,
	  "2",
	  "2",
	  { { "b6", "b", 6, "1", NULL }, { "b1", "b", 1, "3", NULL } },
	  10,
	  "3",
	  false,
	  "b1:InCohortReclaimWhileBorrowing",
	  true },
	{ "borrowWithinCohort never above the threshold",
	  COHORT "  preemption:\n    reclaimWithinCohort: LowerPriority\n"
		 "    borrowWithinCohort: {policy: LowerPriority, "
		 "maxPriorityThreshold: 5}\n",
	  COHORT,
	  "2",
	  "2",
	  { { "b6", "b", 6, "4", NULL } },
	  10,
	  "4",
	  false,
	  "",
	  false },
	{ "fair sharing stops at the final share",
	  COHORT "  preemption: {reclaimWithinCohort: Any}\n",
	  COHORT,
	  "1",
	  "1",
	  { { "b1", "b", 0, "1", "2024-01-01T10:00:00Z" },
	    { "b2", "b", 0, "1", "2024-01-01T11:00:00Z" } },
	  0,
	  "1",
	  true,
	  "b2:InCohortFairSharing",
	  true },
};

static void cq(struct strbuf *sb, const char *name, const char *spec,
	       const char *quota)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: %s}\n"
		    "spec:\n%s  resourceGroups:\n"
		    "  - coveredResources: [cpu]\n"
		    "    flavors: [{name: f, resources: [{name: cpu, "
		    "nominalQuota: %s}]}]\n",
		    name, spec, quota);
}

static void build(const struct row *r, struct strbuf *sb)
{
	fx_flavor(sb, "f");
	cq(sb, "a", r->a_spec, r->a_quota);
	cq(sb, "b", r->b_spec, r->b_quota);
	fx_lq(sb, "a", "a");
	fx_lq(sb, "b", "b");
	for (size_t i = 0; i < 4 && r->victims[i].name; i++) {
		const struct vic *v = &r->victims[i];

		fx_wl(sb, v->name, v->cq, v->prio, 1, v->cpu, 0, NULL);
		strbuf_addstr(sb, "status: {");
		if (v->qr)
			strbuf_addf(sb,
				    "conditions: [{type: QuotaReserved, "
				    "status: \"True\", reason: QuotaReserved, "
				    "lastTransitionTime: \"%s\"}], ",
				    v->qr);
		strbuf_addf(sb,
			    "admission: {clusterQueue: %s, "
			    "podSetAssignments: [{name: main, count: 1, "
			    "flavors: {cpu: f}}]}}\n",
			    v->cq);
	}
	fx_wl(sb, "preemptor", "a", r->prio, 1, r->cpu, 0, NULL);
}

static void run_row(const struct row *r)
{
	struct strbuf sb, got;
	struct cluster c;
	struct sched *s;
	struct sched_decisions d;
	struct sched_options o = { .fair_sharing = r->fair };

	strbuf_init(&sb);
	strbuf_init(&got);
	build(r, &sb);
	fx_load(&c, sb.buf);
	/* the newer victims are created later */
	for (size_t i = 0; i < c.workloads.len; i++)
		c.workloads.items[i].creation_us = 10 * (int64_t)(i + 1);
	c.workloads.items[fx_id(&c, "preemptor")].creation_us = 5;
	s = sched_new(&c, &o);
	sched_decisions_init(&d);
	for (uint32_t i = 0; i < c.workloads.len; i++) {
		if (c.workloads.items[i].admission)
			assert_int_equal(sched_assume_admitted(s, i, 0, NULL),
					 0);
		else
			sched_submit(s, i, 100);
	}
	sched_cycle(s, 100, &d);
	vec_foreach (&d.items, x) {
		if (x->kind != SCHED_DECIDE_PREEMPT)
			continue;
		strbuf_addf(&got, "%s%s:%s", got.len ? " " : "",
			    c.workloads.items[x->wl].name,
			    sched_preempt_reason_name(x->reason));
	}
	if (strcmp(got.buf, r->want) != 0)
		fail_msg("%s: preempted \"%s\", want \"%s\"", r->what, got.buf,
			 r->want);
	if (fx_admitted(s, &c, "preemptor") != r->admitted)
		fail_msg("%s: preemptor admitted %d", r->what, !r->admitted);
	sched_decisions_release(&d);
	sched_free(s);
	cluster_release(&c);
	strbuf_release(&sb);
	strbuf_release(&got);
}

static void test_policies(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(&rows[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

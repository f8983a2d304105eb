// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of preemption, one table row per policy: withinClusterQueue
 * (LowerPriority, LowerOrNewerEqualPriority, Never), reclaimWithinCohort
 * (Any, LowerPriority; only from queues that borrow), borrowWithinCohort
 * with its priority threshold, fair sharing, and the minimal victim set
 * (targets not needed are given back). Each row loads admitted victims
 * and one pending preemptor and checks exactly who is preempted, why,
 * and that the preemptor is admitted. A second table (kcases) holds the
 * cases of Kueue's flavor assigner and preemption each builder's comment
 * cites: the oracle's modes, borrowing preemptors, fair-sharing target
 * order, flavorFungibility.preference.
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
	/* Kueue preemption.go, runFirstFsStrategy under
	 * FairSharingPreemptWithinNominal (beta, on by default): a preemptor
	 * whose queue stays within its nominal quota takes candidates of
	 * other queues without the share test, as InCohortReclamation. */
	{ "fair sharing: within nominal quota, reclamation",
	  COHORT "  preemption: {reclaimWithinCohort: Any}\n",
	  COHORT,
	  "1",
	  "1",
	  { { "b1", "b", 0, "1", "2024-01-01T10:00:00Z" },
	    { "b2", "b", 0, "1", "2024-01-01T11:00:00Z" } },
	  0,
	  "1",
	  true,
	  "b2:InCohortReclamation",
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

/* Load text, count its admitted workloads, submit "preemptor" and run
 * one cycle; check who is preempted, why, and whether it is admitted. */
static void run_text(const char *what, const char *text, bool fair,
		     const char *want, bool admitted)
{
	struct strbuf got;
	struct cluster c;
	struct sched *s;
	struct sched_decisions d;
	struct sched_options o = { .fair_sharing = fair };

	strbuf_init(&got);
	fx_load(&c, text);
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
	if (strcmp(got.buf, want) != 0)
		fail_msg("%s: preempted \"%s\", want \"%s\"", what, got.buf,
			 want);
	if (fx_admitted(s, &c, "preemptor") != admitted)
		fail_msg("%s: preemptor admitted %d", what, !admitted);
	sched_decisions_release(&d);
	sched_free(s);
	cluster_release(&c);
	strbuf_release(&got);
}

static void run_row(const struct row *r)
{
	struct strbuf sb;

	strbuf_init(&sb);
	build(r, &sb);
	run_text(r->what, sb.buf, r->fair, r->want, r->admitted);
	strbuf_release(&sb);
}

/* A ClusterQueue with spec lines extra and one group over res. */
static void cq_groups(struct strbuf *sb, const char *name, const char *extra,
		      const char *res, const char *flavors)
{
	strbuf_addf(sb,
		    "---\n" K2 "kind: ClusterQueue\nmetadata: {name: %s}\n"
		    "spec:\n%s  resourceGroups:\n"
		    "  - coveredResources: [%s]\n    flavors:\n%s",
		    name, extra, res, flavors);
}

/* An admitted workload of queue cq on flavor fl (cpu, and gpu > 0). */
static void victim(struct strbuf *sb, const char *name, const char *cq,
		   int prio, const char *cpu, int gpu, const char *fl,
		   const char *qr)
{
	fx_lq(sb, name, cq);
	fx_wl(sb, name, name, prio, 1, cpu, gpu, NULL);
	strbuf_addstr(sb, "status: {");
	if (qr)
		strbuf_addf(sb,
			    "conditions: [{type: QuotaReserved, status: "
			    "\"True\", lastTransitionTime: \"%s\"}], ",
			    qr);
	strbuf_addf(sb,
		    "admission: {clusterQueue: %s, podSetAssignments: "
		    "[{name: main, count: 1, flavors: {cpu: %s%s%s}}]}}\n",
		    cq, fl, gpu > 0 ? ", nvidia.com/gpu: " : "",
		    gpu > 0 ? fl : "");
}

#define FL(f, q)                                                               \
	"    - {name: " f ", resources: [{name: cpu, nominalQuota: " q "}]}\n"
#define T1 "2024-01-01T10:00:00Z"
#define T2 "2024-01-01T11:00:00Z"

/*
 * Kueue flavorassigner.go, fitsResourceQuota and shouldTryNextFlavor: a
 * flavor whose preemption oracle (preemption_oracle.go) finds no
 * candidate has mode noPreemptionCandidates and the walk always goes on,
 * also under whenCanPreempt MayStopSearch.
 */
static void build_no_candidates_next_flavor(struct strbuf *sb)
{
	fx_flavor(sb, "f1");
	fx_flavor(sb, "f2");
	cq_groups(sb, "a",
		  "  preemption: {withinClusterQueue: LowerPriority}\n"
		  "  flavorFungibility: {whenCanPreempt: MayStopSearch}\n",
		  "cpu", FL("f1", "2") FL("f2", "2"));
	fx_lq(sb, "a", "a");
	victim(sb, "high", "a", 10, "2", 0, "f1", T1);
	fx_wl(sb, "preemptor", "a", 5, 1, "2", 0, NULL);
}

/*
 * Kueue flavorassigner.go, isPreferred and the preemption modes: the
 * oracle says Reclaim when every candidate is in another queue and
 * Preempt when one is in the preemptor's own; reclaim ranks higher, so
 * the flavor where quota can be reclaimed wins over an earlier one where
 * the preemptor would evict its own queue's workload.
 */
static void build_reclaim_over_preempt(struct strbuf *sb)
{
	fx_flavor(sb, "f1");
	fx_flavor(sb, "f2");
	cq_groups(sb, "a",
		  COHORT "  preemption: {withinClusterQueue: LowerPriority, "
			 "reclaimWithinCohort: Any}\n",
		  "cpu", FL("f1", "2") FL("f2", "2"));
	cq_groups(sb, "b", COHORT, "cpu", FL("f1", "0") FL("f2", "0"));
	fx_lq(sb, "a", "a");
	victim(sb, "own", "a", 1, "2", 0, "f1", T1);
	victim(sb, "borrower", "b", 1, "2", 0, "f2", T1);
	fx_wl(sb, "preemptor", "a", 5, 1, "2", 0, NULL);
}

/*
 * Kueue preemption.go, classicalPreemptions: with no candidate in other
 * queues the search allows the preemptor to borrow, so it evicts only
 * what it needs beyond what the cohort lends.
 */
static void build_preemptor_may_borrow(struct strbuf *sb)
{
	fx_flavor(sb, "f");
	cq_groups(sb, "a",
		  COHORT "  preemption: {withinClusterQueue: LowerPriority}\n",
		  "cpu", FL("f", "4"));
	cq_groups(sb, "b", COHORT, "cpu", FL("f", "2"));
	fx_lq(sb, "a", "a");
	victim(sb, "lo1", "a", 1, "2", 0, "f", T1);
	victim(sb, "lo2", "a", 1, "2", 0, "f", T2);
	fx_wl(sb, "preemptor", "a", 5, 1, "4", 0, NULL);
}

/*
 * The same rule when the request must borrow a second resource: the
 * victim frees the contested cpu, and the gpus are borrowed (Kueue
 * preemption.go, classicalPreemptions; candidate_generator.go).
 */
static void build_preemptor_borrows_other_resource(struct strbuf *sb)
{
	fx_flavor(sb, "f");
	cq_groups(sb, "a",
		  COHORT "  preemption: {withinClusterQueue: LowerPriority}\n",
		  "cpu, nvidia.com/gpu",
		  "    - {name: f, resources: [{name: cpu, nominalQuota: 4}, "
		  "{name: nvidia.com/gpu, nominalQuota: 4}]}\n");
	cq_groups(sb, "b", COHORT, "cpu, nvidia.com/gpu",
		  "    - {name: f, resources: [{name: cpu, nominalQuota: 0}, "
		  "{name: nvidia.com/gpu, nominalQuota: 4}]}\n");
	fx_lq(sb, "a", "a");
	victim(sb, "lo", "a", 1, "4", 0, "f", T1);
	fx_wl(sb, "preemptor", "a", 5, 1, "4", 6, NULL);
}

/*
 * Kueue fairsharing/ordering.go: the queue with the highest share is
 * chosen again after every removal (ties: the queue whose next candidate
 * comes first), so two borrowers of equal share each give one workload;
 * the preemptor stays within its nominal quota, so the reason is
 * InCohortReclamation (FairSharingPreemptWithinNominal).
 */
static void build_fair_sharing_rerank(struct strbuf *sb)
{
	fx_flavor(sb, "f");
	cq_groups(sb, "a", COHORT "  preemption: {reclaimWithinCohort: Any}\n",
		  "cpu", FL("f", "4"));
	cq_groups(sb, "b", COHORT, "cpu", FL("f", "0"));
	cq_groups(sb, "c", COHORT, "cpu", FL("f", "0"));
	fx_lq(sb, "a", "a");
	victim(sb, "b1", "b", 1, "1", 0, "f", T1);
	victim(sb, "b2", "b", 1, "1", 0, "f", T2);
	victim(sb, "c1", "c", 0, "1", 0, "f", T1);
	victim(sb, "c2", "c", 0, "1", 0, "f", T2);
	fx_wl(sb, "preemptor", "a", 5, 1, "2", 0, NULL);
}

/* A preemptor that must borrow takes, under fair sharing, only while the
 * target's share stays at least its own (InCohortFairSharing). */
static void build_fair_sharing_borrowing_preemptor(struct strbuf *sb)
{
	fx_flavor(sb, "f");
	cq_groups(sb, "a", COHORT "  preemption: {reclaimWithinCohort: Any}\n",
		  "cpu", FL("f", "2"));
	cq_groups(sb, "b", COHORT, "cpu", FL("f", "2"));
	cq_groups(sb, "c", COHORT, "cpu", FL("f", "4"));
	fx_lq(sb, "a", "a");
	victim(sb, "a1", "a", 0, "2", 0, "f", T1);
	victim(sb, "b1", "b", 0, "1", 0, "f", T1);
	victim(sb, "b2", "b", 0, "1", 0, "f", T1);
	victim(sb, "b3", "b", 0, "1", 0, "f", T1);
	victim(sb, "b4", "b", 0, "1", 0, "f", T1);
	victim(sb, "b5", "b", 0, "1", 0, "f", T2);
	fx_wl(sb, "preemptor", "a", 0, 1, "2", 0, NULL);
}

/* A case: what it shows, how to build its input, fair sharing, the
 * preemptions expected ("victim:Reason ..."), whether the preemptor is
 * admitted. */
struct kcase {
	const char *what;
	void (*build)(struct strbuf *sb);
	bool fair;
	const char *want;
	bool admitted;
};

static const struct kcase kcases[] = {
	{ "no candidates on f1: f2", build_no_candidates_next_flavor, false, "",
	  true },
	{ "reclaim over preempt", build_reclaim_over_preempt, false,
	  "borrower:InCohortReclamation", true },
	{ "preemptor borrows", build_preemptor_may_borrow, false,
	  "lo2:InClusterQueue", true },
	{ "borrow a second resource", build_preemptor_borrows_other_resource,
	  false, "lo:InClusterQueue", true },
	{ "fair sharing re-ranks", build_fair_sharing_rerank, true,
	  "c2:InCohortReclamation b2:InCohortReclamation", true },
	{ "fair sharing, borrowing preemptor",
	  build_fair_sharing_borrowing_preemptor, true,
	  "b5:InCohortFairSharing", true },
};

static void test_kueue_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(kcases) / sizeof(kcases[0]); i++) {
		struct strbuf sb;

		strbuf_init(&sb);
		kcases[i].build(&sb);
		run_text(kcases[i].what, sb.buf, kcases[i].fair, kcases[i].want,
			 kcases[i].admitted);
		strbuf_release(&sb);
	}
}

/*
 * Kueue flavorassigner.go, isPreferred: flavorFungibility.preference
 * PreemptionOverBorrowing prefers a flavor that needs no borrowing, even
 * with preemption, to one that fits by borrowing; the default
 * (BorrowingOverPreemption) the other way round.
 */
static void test_fungibility_preference(void **state)
{
	static const struct {
		const char *pref, *want;
	} cases[] = {
		{ "", "" },
		{ ", preference: BorrowingOverPreemption", "" },
		{ ", preference: PreemptionOverBorrowing",
		  "own:InClusterQueue" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb, spec;

		strbuf_init(&sb);
		strbuf_init(&spec);
		strbuf_addf(&spec,
			    COHORT "  preemption: {withinClusterQueue: "
				   "LowerPriority}\n"
				   "  flavorFungibility: {whenCanBorrow: "
				   "TryNextFlavor%s}\n",
			    cases[i].pref);
		fx_flavor(&sb, "f1");
		fx_flavor(&sb, "f2");
		cq_groups(&sb, "a", spec.buf, "cpu",
			  FL("f1", "0") FL("f2", "2"));
		cq_groups(&sb, "b", COHORT, "cpu", FL("f1", "2") FL("f2", "0"));
		fx_lq(&sb, "a", "a");
		victim(&sb, "own", "a", 1, "2", 0, "f2", T1);
		fx_wl(&sb, "preemptor", "a", 5, 1, "2", 0, NULL);
		run_text(cases[i].pref, sb.buf, false, cases[i].want, true);
		strbuf_release(&sb);
		strbuf_release(&spec);
	}
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
		cmocka_unit_test(test_kueue_cases),
		cmocka_unit_test(test_fungibility_preference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

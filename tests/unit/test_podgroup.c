// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the PodGroup phase rules: one table row per transition of the
 * Coscheduling controller (every phase, each threshold on both sides of
 * minMember), the controller's own Test_Run cases, multi-reconcile walks,
 * and the 48-hour guard.
 */
#include "gang/podgroup.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/compiler.h"
#include "testutil.h"

#include "base/banned.h"

#define NONE  PODGROUP_NONE
#define PEND  PODGROUP_PENDING
#define SCHED PODGROUP_SCHEDULING
#define RUN   PODGROUP_RUNNING
#define UNK   PODGROUP_UNKNOWN
#define FIN   PODGROUP_FINISHED
#define FAIL  PODGROUP_FAILED

struct phase_case {
	enum podgroup_phase prev;
	int32_t min;
	struct podgroup_pods pods; /* pods, running, succeeded, failed */
	enum podgroup_phase want;
};

static const struct phase_case cases[] = {
	/* "" -> Pending whatever the pods */
	{ NONE, 3, { 0, 0, 0, 0 }, PEND },
	{ NONE, 1, { 5, 5, 0, 0 }, PEND },
	{ NONE, 2, { 2, 0, 2, 0 }, PEND },
	/* Pending -> Scheduling at pods >= minMember, phases ignored */
	{ PEND, 3, { 2, 2, 0, 0 }, PEND },
	{ PEND, 3, { 3, 0, 0, 0 }, SCHED },
	{ PEND, 3, { 4, 4, 0, 0 }, SCHED },
	{ PEND, 2, { 2, 0, 2, 0 }, SCHED },
	{ PEND, 2, { 2, 0, 0, 2 }, SCHED },
	/* Scheduling: too few pods -> Pending */
	{ SCHED, 3, { 2, 2, 0, 0 }, PEND },
	{ SCHED, 3, { 0, 0, 0, 0 }, PEND },
	/* ... started below the quorum stays Scheduling */
	{ SCHED, 3, { 3, 2, 0, 0 }, SCHED },
	{ SCHED, 3, { 3, 1, 1, 0 }, SCHED },
	/* ... quorum running or done -> Running */
	{ SCHED, 3, { 3, 3, 0, 0 }, RUN },
	{ SCHED, 3, { 3, 2, 1, 0 }, RUN },
	{ SCHED, 3, { 5, 3, 0, 0 }, RUN },
	/* ... a failure with the quorum accounted for -> Failed */
	{ SCHED, 3, { 3, 2, 0, 1 }, FAIL },
	{ SCHED, 3, { 3, 0, 0, 3 }, FAIL },
	{ SCHED, 3, { 4, 1, 0, 1 }, SCHED }, /* 2 < 3: not yet */
	{ SCHED, 3, { 4, 3, 0, 1 }, FAIL },  /* Failed overrides Running */
	/* ... quorum succeeded -> Finished, even over Failed */
	{ SCHED, 3, { 3, 0, 3, 0 }, FIN },
	{ SCHED, 3, { 5, 0, 3, 2 }, FIN },
	{ SCHED, 3, { 4, 0, 2, 1 }, FAIL },
	/* Running follows the same rules */
	{ RUN, 4, { 2, 2, 0, 0 }, PEND },
	{ RUN, 2, { 2, 1, 0, 0 }, SCHED },
	{ RUN, 2, { 2, 2, 0, 0 }, RUN },
	{ RUN, 2, { 2, 1, 0, 1 }, FAIL },
	{ RUN, 2, { 2, 0, 2, 0 }, FIN },
	{ RUN, 2, { 3, 1, 2, 0 }, FIN },
	/* Unknown (never set upstream) is recomputed like the others */
	{ UNK, 2, { 1, 1, 0, 0 }, PEND },
	{ UNK, 2, { 2, 0, 0, 0 }, SCHED },
	{ UNK, 2, { 2, 2, 0, 0 }, RUN },
	{ UNK, 2, { 2, 0, 0, 2 }, FAIL },
	{ UNK, 2, { 2, 0, 2, 0 }, FIN },
	/* terminal phases never change */
	{ FIN, 2, { 0, 0, 0, 0 }, FIN },
	{ FIN, 2, { 2, 2, 0, 0 }, FIN },
	{ FAIL, 2, { 2, 2, 0, 0 }, FAIL },
	{ FAIL, 2, { 2, 0, 2, 0 }, FAIL },
	/* scheduler-plugins controller Test_Run */
	{ SCHED, 2, { 2, 2, 0, 0 }, RUN },
	{ SCHED, 2, { 4, 4, 0, 0 }, RUN },
	{ SCHED, 2, { 2, 0, 0, 2 }, FAIL },
	{ SCHED, 2, { 2, 0, 2, 0 }, FIN },
	{ PEND, 2, { 2, 0, 0, 0 }, SCHED },
	{ PEND, 3, { 2, 2, 0, 0 }, PEND },
	{ RUN, 4, { 2, 0, 0, 0 }, PEND },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct phase_case *c = &cases[i];
		struct podgroup_status st = { .phase = c->prev };
		enum podgroup_phase next;

		next = podgroup_next_phase(c->prev, c->min, &c->pods);
		if (next != c->want)
			fail_msg("case %zu: %s -> %s, want %s", i,
				 podgroup_phase_name(c->prev),
				 podgroup_phase_name(next),
				 podgroup_phase_name(c->want));
		podgroup_reconcile(&st, c->min, &c->pods);
		assert_int_equal(st.phase, c->want);
	}
}

/* Counts are recorded outside "" and Pending, as the controller does. */
static void test_reconcile_counts(void **state)
{
	struct podgroup_pods p = { 3, 1, 1, 1 };
	struct podgroup_status st = { .phase = PEND };

	(void)state;
	assert_true(podgroup_reconcile(&st, 3, &p));
	assert_int_equal(st.phase, SCHED);
	assert_int_equal(st.running, 0); /* not recorded from Pending */
	assert_true(podgroup_reconcile(&st, 3, &p));
	assert_int_equal(st.phase, FAIL);
	assert_int_equal(st.running, 1);
	assert_int_equal(st.succeeded, 1);
	assert_int_equal(st.failed, 1);
	assert_false(podgroup_reconcile(&st, 3, &p)); /* terminal */

	st = (struct podgroup_status){ .phase = RUN, .running = 2 };
	p = (struct podgroup_pods){ 2, 2, 0, 0 };
	assert_false(podgroup_reconcile(&st, 2, &p)); /* nothing new */
	p.running = 1;
	assert_true(podgroup_reconcile(&st, 2, &p)); /* counts changed */
	assert_int_equal(st.phase, SCHED);
}

/* From creation to completion, one reconcile per pod event. */
static void test_walk(void **state)
{
	static const struct {
		struct podgroup_pods pods;
		enum podgroup_phase want;
	} steps[] = {
		{ { 0, 0, 0, 0 }, PEND },  { { 1, 0, 0, 0 }, PEND },
		{ { 2, 0, 0, 0 }, SCHED }, { { 2, 1, 0, 0 }, SCHED },
		{ { 2, 2, 0, 0 }, RUN },   { { 2, 1, 1, 0 }, RUN },
		{ { 2, 0, 2, 0 }, FIN },   { { 0, 0, 0, 0 }, FIN },
	};
	struct podgroup_status st = { .phase = NONE };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		podgroup_reconcile(&st, 2, &steps[i].pods);
		assert_int_equal(st.phase, steps[i].want);
	}
	/* Pending -> Succeeded pods take two reconciles to Finished */
	st = (struct podgroup_status){ .phase = PEND };
	podgroup_reconcile(&st, 2, &steps[6].pods);
	assert_int_equal(st.phase, SCHED);
	podgroup_reconcile(&st, 2, &steps[6].pods);
	assert_int_equal(st.phase, FIN);
}

static void test_stale_guard(void **state)
{
	struct podgroup_pods p = { 2, 2, 0, 0 };
	int64_t h = 3600LL * 1000000;
	struct podgroup_status st = { .phase = PEND,
				      .creation_us = 0,
				      .schedule_start_us = 72 * h };

	(void)state;
	/* Test_Run: created 72 h before the schedule start: left alone */
	assert_false(podgroup_reconcile(&st, 2, &p));
	assert_int_equal(st.phase, PEND);
	st.phase = SCHED;
	assert_false(podgroup_reconcile(&st, 2, &p));
	/* exactly 48 h is not more than 48 h */
	st.schedule_start_us = 48 * h;
	assert_true(podgroup_reconcile(&st, 2, &p));
	assert_int_equal(st.phase, RUN);
	/* a recorded running pod disables the guard */
	st = (struct podgroup_status){ .phase = SCHED,
				       .running = 1,
				       .schedule_start_us = 72 * h };
	assert_true(podgroup_reconcile(&st, 2, &p));
	assert_int_equal(st.phase, RUN);
	/* never set (0): no guard */
	st = (struct podgroup_status){ .phase = PEND, .creation_us = 5 * h };
	assert_true(podgroup_reconcile(&st, 2, &p));
	assert_int_equal(st.phase, SCHED);
}

static void test_names(void **state)
{
	static const char *const want[] = { "",	       "Pending", "Scheduling",
					    "Running", "Unknown", "Finished",
					    "Failed" };

	(void)state;
	for (int i = 0; i < PODGROUP_PHASE_COUNT; i++)
		assert_string_equal(podgroup_phase_name(i), want[i]);
	assert_string_equal(podgroup_phase_name(PODGROUP_PHASE_COUNT), "?");
	assert_true(podgroup_phase_terminal(FIN));
	assert_true(podgroup_phase_terminal(FAIL));
	assert_false(podgroup_phase_terminal(RUN));
	assert_false(podgroup_phase_terminal(UNK));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_reconcile_counts),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_stale_guard),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

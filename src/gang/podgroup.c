// SPDX-License-Identifier: Apache-2.0
/*
 * PodGroup phase transitions, a transcription of the Coscheduling
 * controller's reconcile step (see the table in podgroup.h). The checks run
 * in the controller's order and later ones overwrite earlier ones, which is
 * what makes Finished win over Failed.
 */
#include "gang/podgroup.h"

#include "base/alloc.h"

#include "base/banned.h"

static const char *const phase_names[PODGROUP_PHASE_COUNT] = {
	[PODGROUP_NONE] = "",
	[PODGROUP_PENDING] = "Pending",
	[PODGROUP_SCHEDULING] = "Scheduling",
	[PODGROUP_RUNNING] = "Running",
	[PODGROUP_UNKNOWN] = "Unknown",
	[PODGROUP_FINISHED] = "Finished",
	[PODGROUP_FAILED] = "Failed",
};

const char *podgroup_phase_name(enum podgroup_phase p)
{
	return p < PODGROUP_PHASE_COUNT ? phase_names[p] : "?";
}

bool podgroup_phase_terminal(enum podgroup_phase p)
{
	return p == PODGROUP_FINISHED || p == PODGROUP_FAILED;
}

/* The "default:" branch: phases other than "", Pending and terminal. */
static enum podgroup_phase from_counts(enum podgroup_phase phase, int32_t min,
				       const struct podgroup_pods *p)
{
	int64_t started = (int64_t)p->succeeded + p->running;

	if (p->pods < min)
		return PODGROUP_PENDING;
	if (started < min)
		phase = PODGROUP_SCHEDULING;
	if (started >= min)
		phase = PODGROUP_RUNNING;
	if (p->failed != 0 && started + p->failed >= min)
		phase = PODGROUP_FAILED;
	if (p->succeeded >= min)
		phase = PODGROUP_FINISHED;
	return phase;
}

enum podgroup_phase podgroup_next_phase(enum podgroup_phase prev,
					int32_t min_member,
					const struct podgroup_pods *pods)
{
	BUG_ON(prev >= PODGROUP_PHASE_COUNT);
	switch (prev) {
	case PODGROUP_NONE:
		return PODGROUP_PENDING;
	case PODGROUP_PENDING:
		return pods->pods >= min_member ? PODGROUP_SCHEDULING
						: PODGROUP_PENDING;
	case PODGROUP_FINISHED:
	case PODGROUP_FAILED:
		return prev;
	default:
		return from_counts(prev, min_member, pods);
	}
}

static bool stale(const struct podgroup_status *st)
{
	if (st->phase != PODGROUP_PENDING && st->phase != PODGROUP_SCHEDULING)
		return false;
	/* An unset scheduleStartTime is Go's zero time, far in the past. */
	return st->running == 0 && st->schedule_start_us != 0 &&
	       st->schedule_start_us - st->creation_us > PODGROUP_STALE_US;
}

bool podgroup_reconcile(struct podgroup_status *st, int32_t min_member,
			const struct podgroup_pods *pods)
{
	struct podgroup_status old = *st;

	if (podgroup_phase_terminal(st->phase) || stale(st))
		return false;
	if (st->phase != PODGROUP_NONE && st->phase != PODGROUP_PENDING) {
		st->running = pods->running;
		st->succeeded = pods->succeeded;
		st->failed = pods->failed;
	}
	st->phase = podgroup_next_phase(st->phase, min_member, pods);
	return st->phase != old.phase || st->running != old.running ||
	       st->succeeded != old.succeeded || st->failed != old.failed;
}

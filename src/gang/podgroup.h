/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The phase of a PodGroup, computed from the counts of its pods exactly as
 * the Coscheduling plugin's PodGroup controller does (scheduler-plugins
 * pkg/controllers/podgroup_controller.go, since PR #574 removed the
 * PreScheduling and Scheduled phases):
 *
 *	Finished, Failed      terminal: nothing changes
 *	(48 h guard)          Pending or Scheduling with no recorded running
 *	                      pod and scheduleStartTime - creation > 48 h:
 *	                      nothing changes
 *	""                 -> Pending
 *	Pending            -> Scheduling once pods >= minMember
 *	any other phase       recompute running/succeeded/failed, then
 *	                      pods < minMember            -> Pending (stop)
 *	                      succeeded+running < min     -> Scheduling
 *	                      succeeded+running >= min    -> Running
 *	                      failed > 0 and failed+running+succeeded >= min
 *	                                                  -> Failed
 *	                      succeeded >= min            -> Finished (last,
 *	                                                     so it wins)
 *
 * One call is one reconcile; the controller needs several to walk a group
 * from "" to Running. Unknown is a defined phase that nothing sets; a group
 * found in it is treated like Scheduling or Running. Pure data in, data out.
 */
#ifndef ECHELON_GANG_PODGROUP_H
#define ECHELON_GANG_PODGROUP_H

#include <stdbool.h>
#include <stdint.h>

/* The controller's guard: 48 hours between creation and schedule start. */
#define PODGROUP_STALE_US (48LL * 3600 * 1000000)

enum podgroup_phase {
	PODGROUP_NONE, /* "": never reconciled */
	PODGROUP_PENDING,
	PODGROUP_SCHEDULING,
	PODGROUP_RUNNING,
	PODGROUP_UNKNOWN,
	PODGROUP_FINISHED,
	PODGROUP_FAILED,
	PODGROUP_PHASE_COUNT
};

/* The pods labelled with the group's name, by pod phase (pods counts all
 * of them, pending and unknown included). */
struct podgroup_pods {
	int32_t pods;
	int32_t running;
	int32_t succeeded;
	int32_t failed;
};

/* What the controller keeps in PodGroup.status (plus creation time). */
struct podgroup_status {
	enum podgroup_phase phase;
	int32_t running, succeeded, failed;
	int64_t creation_us;
	int64_t schedule_start_us; /* 0: never set (it is not, upstream) */
};

/*
 * One reconcile of st for a group with min_member (the API requires >= 1;
 * other values compare as the controller's would) and the given pods. Updates
 * st in place (phase and, outside "" and Pending, the counts) and returns
 * whether anything changed.
 */
bool podgroup_reconcile(struct podgroup_status *st, int32_t min_member,
			const struct podgroup_pods *pods);

/* The phase one reconcile moves a fresh status in prev to (no 48 h guard). */
enum podgroup_phase podgroup_next_phase(enum podgroup_phase prev,
					int32_t min_member,
					const struct podgroup_pods *pods);

/* "Pending", "Scheduling", ... ("" for PODGROUP_NONE). */
const char *podgroup_phase_name(enum podgroup_phase p);
bool podgroup_phase_terminal(enum podgroup_phase p);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The embedded cluster's own controllers, acting on API objects as
 * Kubernetes' do: the Job controller (pods from the template, Indexed
 * completion, suspend, backoffLimit, Job status), a simulated kubelet per
 * node (a bound pod becomes Running and Ready after its start-up delay,
 * Succeeded after its sim.echelon.dev/duration; pod and node failures as
 * in `sim`) with its node Lease in kube-node-lease, node lifecycle
 * (Ready=False or deleted: its pods fail) and garbage collection of
 * dependents by ownerReferences. It reads store changes since its cursor
 * and writes objects; it schedules nothing.
 * Pure: no I/O, no clock (now_us comes in); randomness (pod names,
 * start-up jitter, failures) from the seed. See docs/internals/serve.md.
 */
#ifndef ECHELON_SERVE_CLUSTER_H
#define ECHELON_SERVE_CLUSTER_H

#include <stdint.h>

#include "api/api_store.h"

struct serve_cluster_options {
	int64_t startup_us;	 /* pod start-up delay (as sim's default) */
	unsigned long long seed; /* jitter and failures */
	double pod_failure_rate; /* per pod-hour, as sim --pod-failures */
	/* Embedded time per wall-clock time (--speed; <= 0: 1): node
	 * leases are renewed at a wall-clock rate, as clients see them. */
	double speed;
	/* The kubelets leave bound pods as the binding made them: Pending
	 * on their node, never started (as kube-scheduler's scheduler_perf
	 * has no kubelets); nodes and their Leases are kept as ever. For
	 * benchmarks of an external scheduler. */
	bool no_pod_start;
};

struct serve_cluster;
/* A cluster over store s (borrowed; must outlive it). o may be NULL;
 * startup_us <= 0 means 10 s. The first sync reads every object (a
 * restart continues pods from their stored status). Never NULL. */
struct serve_cluster *serve_cluster_new(struct api_store *s,
					const struct serve_cluster_options *o);
void serve_cluster_free(struct serve_cluster *c);
/* React to the store's changes since the last call and to timers due at
 * now_us: at most 512 timers for one now_us (CL_TIMERS_PER_TURN), the
 * others wait for a later now_us (next_us() is then <= now_us). Returns
 * how many writes it made (0: quiet). Writes only objects that change,
 * so calling it until it returns 0 settles. */
int serve_cluster_sync(struct serve_cluster *c, int64_t now_us);
/* The earliest time something is due (INT64_MAX: nothing; 0: work is
 * queued, sync again now). */
int64_t serve_cluster_next_us(const struct serve_cluster *c);

#endif

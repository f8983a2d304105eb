/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Leader election through a coordination.k8s.io/v1 Lease, as client-go's
 * leaderelection: every retry period (jittered ×1.2) try to acquire or
 * renew (optimistic update from the last record seen; else GET, create on
 * 404; a holder other than us is respected while the record, as observed
 * on OUR clock, is younger than leaseDurationSeconds; taking over counts
 * leaseTransitions + 1). A leader that cannot renew within the renew
 * deadline (counted from the start of its last successful renewal)
 * stops leading; one that reads another holder in the record stops at
 * once. Only local time is compared, so clock skew between replicas
 * does not matter; renewTime and acquireTime are written as MicroTime
 * from the wall clock for people to read.
 * Beyond client-go, for a fast failover: a follower also watches the
 * Lease (field selector metadata.name), so that a renewal is dated by
 * the local clock when its event comes rather than at the next try
 * (still at or after the write: the same safety), and tries again at
 * the moment the record observed expires (observed + duration) rather
 * than at the next retry tick; a record written free (a release) is
 * tried at once. The periodic tries go on beside the watch.
 * Defaults: 15 s lease, 10 s renew deadline, 2 s retry (kube-scheduler's);
 * new() refuses duration <= renew_deadline or renew_deadline <= 1.2 ×
 * retry, a duration that is not whole seconds, a namespace or name that
 * is not a DNS-1123 label or subdomain, and no identity.
 *
 * Calls go with KUBE_NO_LIMIT (never queued behind binds), without
 * KUBE_RETRY (the algorithm retries itself), each bounded by half the
 * renew deadline. One call is in flight at a time; its reply is acted on
 * by the next kube_lease_run() (kube_lease_next_us() is then due), so
 * that a record is dated by the local clock at or after its answer. The
 * watch (KUBE_STREAM) is opened again at once when the server ends it
 * (but a retry period after it was opened at the soonest) and a retry
 * period after a failure; its events wait for
 * kube_lease_run() in the same way.
 */
#ifndef ECHELON_KUBE_LEASE_H
#define ECHELON_KUBE_LEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/errbuf.h"
#include "base/strbuf.h"
#include "kube/kube_transport.h"

struct kube_lease_options {
	const struct kube_transport *tr; /* borrowed */
	const char *ns;			 /* NULL: "kube-system" */
	const char *name;		 /* NULL: "echelon" */
	const char *identity;		 /* this replica: host_pid_random */
	int64_t duration_us;		 /* 0: 15 s */
	int64_t renew_deadline_us;	 /* 0: 10 s */
	int64_t retry_us;		 /* 0: 2 s */
	unsigned long long seed;	 /* jitter */
};

struct kube_lease;
int kube_lease_new(const struct kube_lease_options *o, struct kube_lease **ret,
		   struct errbuf *err) MUST_CHECK;
void kube_lease_free(struct kube_lease *l);
/* Do what is due: mono_us drives every decision, wall_us is only
 * written (renewTime). Call it at kube_lease_next_us() and after the
 * transport's run function has answered calls. */
void kube_lease_run(struct kube_lease *l, int64_t mono_us, int64_t wall_us);
int64_t kube_lease_next_us(const struct kube_lease *l);
/* We hold the lease now (and may write). */
bool kube_lease_leader(const struct kube_lease *l);
/* While leading: the monotonic time this replica stops leading unless a
 * renewal succeeds first (a write sent later may race a new leader);
 * INT64_MIN when not leading. */
int64_t kube_lease_until_us(const struct kube_lease *l);
/* The holder last seen ("" none), and how many times leadership changed
 * hands (leaseTransitions). */
const char *kube_lease_holder(const struct kube_lease *l);
int64_t kube_lease_transitions(const struct kube_lease *l);
/* While following: when the record observed expires, so that a try
 * may take it (INT64_MAX: none observed, or we lead; the moment it was
 * observed when it is free), and in *quiet_us when its holder has
 * stopped writing unless it renewed since: observed + the renew deadline
 * (replicas alike: a holder stops leading when it could not renew within
 * it, counted from the start of its last renewal, before our sight of
 * it). */
int64_t kube_lease_expiry_us(const struct kube_lease *l, int64_t *quiet_us);
/* The holder of the record this replica last wrote itself over ("":
 * none, or a new Lease) and, in *seen_us, the monotonic time it first
 * saw that record (INT64_MIN: none): a takeover waited from then. */
const char *kube_lease_previous(const struct kube_lease *l, int64_t *seen_us);
/* Stop leading and hand over fast: write leaseDurationSeconds 1 and an
 * empty holderIdentity when the record is ours (ReleaseOnCancel), after
 * the call in flight if any. Keep calling kube_lease_run() until
 * kube_lease_idle() says that is done; no try starts after this. */
void kube_lease_release(struct kube_lease *l, int64_t wall_us);
bool kube_lease_idle(const struct kube_lease *l);
/* Prometheus text, labelled lease="NS/NAME": echelon_leader (0/1),
 * echelon_leader_transitions_seen, echelon_leader_acquired_total,
 * echelon_leader_lost_total, echelon_leader_tries_failed_total. */
void kube_lease_metrics(const struct kube_lease *l, struct strbuf *out);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `echelon serve`: the live scheduler on an embedded cluster behind a
 * Kubernetes-compatible API. One thread owns everything and runs one
 * event loop (epoll over libmicrohttpd's sockets, a timerfd and a
 * signalfd); each turn runs fixed phases:
 *
 *   1. HTTP: requests are answered by the API (src/api) over the store;
 *      writes are held until phase 3;
 *   2. controllers, until none writes (bounded): the embedded cluster
 *      (serve_cluster: Job controller, kubelets, garbage collection),
 *      then the scheduler (serve_sched: Kueue's Job reconciler, the
 *      controller src/ctl, binding, statuses, Events);
 *   3. group commit: every change of the turn in one SQLite transaction
 *      (serve_db); then the held replies go out;
 *   4. watches get the committed changes;
 *   5. sleep until I/O or the earliest deadline of the controllers and
 *      watches.
 *
 * The embedded cluster's clock (now_us everywhere) runs --speed times
 * the wall clock and is persisted, so a restart continues it.
 */
#ifndef ECHELON_SERVE_H
#define ECHELON_SERVE_H

#include <stdbool.h>
#include <stddef.h>

struct serve_options {
	const char *const *paths; /* -f manifests */
	size_t npaths;
	const char *cluster; /* --cluster SPEC or NULL */
	const char *listen;  /* "127.0.0.1:8080" */
	const char *data;    /* --data DIR; NULL: $XDG_STATE_HOME/echelon */
	double speed;	     /* --speed, > 0 */
	const char *write_kubeconfig; /* --write-kubeconfig FILE or NULL */
	bool no_schedule;	      /* --no-schedule */
	bool no_pod_start;	      /* --no-pod-start */
	bool sync_normal;	      /* --sync normal (default full) */
	unsigned long long seed; /* --seed, embedded cluster's randomness */
	const char *faults;	 /* --faults SPEC: injected API failures
				    (tests of clients; serve_faults.h) */
	/* The Kubernetes backend (src/kube): with remote or in_cluster set,
	 * schedule the pods of that cluster instead of an embedded one. */
	const char *remote;	    /* --kubeconfig FILE */
	const char *context;	    /* --context NAME; NULL: current */
	bool in_cluster;	    /* --in-cluster */
	double qps, burst;	    /* --kube-qps, --kube-burst; 0: 200, 400 */
	const char *scheduler_name; /* --scheduler-name; NULL: "echelon" */
	const char *lease;    /* --lease NS/NAME; NULL: kube-system/echelon */
	const char *identity; /* --id; NULL: HOSTNAME_PID */
};

/* Run until SIGTERM/SIGINT; returns the process exit status (0 after a
 * clean stop, 1 when it could not start: message on stderr). */
int serve_main(const struct serve_options *o);

#endif

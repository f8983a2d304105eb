/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `echelon serve` as a child of a benchmark: this executable started
 * again with the benchmark's arguments on a loopback port, its standard
 * output and error in a log file, waited for on /readyz, stopped with
 * SIGTERM (or killed with SIGKILL, as a crash) and reaped. One
 * implementation for `bench serve` and `bench kube`.
 */
#ifndef ECHELON_CLI_BENCH_DAEMON_H
#define ECHELON_CLI_BENCH_DAEMON_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/compiler.h"

struct bench_daemon {
	pid_t pid; /* 0: not running */
	int port;
};

/* A free TCP port of 127.0.0.1, or -1. */
int bench_free_port(void);

/* A new temporary folder named after prefix ("/tmp/echelon-bench-kube"),
 * or NULL (errno set). The caller frees it (bench_rmdir() first). */
char *bench_tmpdir(const char *prefix);
/* rm -rf dir, saying so on stderr when it fails; NULL ok. */
void bench_rmdir(const char *dir);

/* Start this executable with args (NULL-terminated, without argv[0],
 * e.g. "serve", "--listen", ...) and its output appended to log. port:
 * the one it listens on, for bench_daemon_ready(). Returns 0, or -1
 * (errno set). */
int bench_daemon_start(struct bench_daemon *d, int port, const char *log,
		       const char *const *args) MUST_CHECK;
/* Wait up to seconds for /readyz to answer 200. 0, or -1 when the
 * daemon exited (then reaped: pid 0) or the time ran out. */
int bench_daemon_ready(struct bench_daemon *d, double seconds);
/* Whether it still runs (one that exited is reaped: pid 0). */
bool bench_daemon_alive(struct bench_daemon *d);
/* Stop it (SIGTERM, or SIGKILL with crash) and reap it; not running
 * ok. */
void bench_daemon_stop(struct bench_daemon *d, bool crash);
/* The peak resident memory of the running daemon (VmHWM of
 * /proc/PID/status), in KiB; 0 when unknown. */
uint64_t bench_daemon_hwm_kib(const struct bench_daemon *d);

#endif

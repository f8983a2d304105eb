// SPDX-License-Identifier: Apache-2.0
/*
 * Child daemons of the benchmarks: fork and exec of this executable
 * (/proc/self/exe), a free loopback port, the wait for /readyz over
 * bench_http, SIGTERM or SIGKILL, and the peak memory from /proc.
 */
#include "cli/bench_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "cli/bench_http.h"
#include "cli/cli.h"

#include "base/banned.h"

#define MAX_ARGS 64

int bench_free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &len))
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

char *bench_tmpdir(const char *prefix)
{
	char *tmpl = xasprintf("%s-XXXXXX", prefix);

	if (!mkdtemp(tmpl)) {
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

void bench_rmdir(const char *dir)
{
	char *cmd;

	if (!dir)
		return;
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "echelon bench: cannot remove %s\n", dir);
	free(cmd);
}

int bench_daemon_start(struct bench_daemon *d, int port, const char *log,
		       const char *const *args)
{
	const char *argv[MAX_ARGS + 2];
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t argc = 0;
	pid_t parent;
	int fd;

	if (n < 0)
		return -1;
	exe[n] = '\0';
	argv[argc++] = exe;
	while (*args && argc <= MAX_ARGS)
		argv[argc++] = *args++;
	if (*args) {
		errno = E2BIG;
		return -1;
	}
	argv[argc] = NULL;
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	fflush(NULL);
	d->port = port;
	parent = getpid();
	d->pid = fork();
	if (d->pid == 0) {
		/* dies with the benchmark, however it ends (a timeout's
		 * SIGTERM left daemons of 2 GiB running) */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
		    getppid() != parent)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	close(fd);
	if (d->pid < 0) {
		d->pid = 0;
		return -1;
	}
	return 0;
}

int bench_daemon_ready(struct bench_daemon *d, double seconds)
{
	double until = cli_now_s() + seconds;
	struct strbuf body;
	int code = -1;

	strbuf_init(&body);
	while (code != 200 && d->pid > 0) {
		struct bench_http *h = bench_http_connect(d->port);

		if (h) {
			code = bench_http_request(h, "GET", "/readyz", NULL,
						  NULL, &body);
			bench_http_close(h);
		}
		if (code == 200 || cli_now_s() >= until)
			break;
		if (!bench_daemon_alive(d))
			break;
		usleep(20000);
	}
	strbuf_release(&body);
	return code == 200 ? 0 : -1;
}

bool bench_daemon_alive(struct bench_daemon *d)
{
	if (d->pid > 0 && waitpid(d->pid, NULL, WNOHANG) == d->pid)
		d->pid = 0;
	return d->pid > 0;
}

void bench_daemon_stop(struct bench_daemon *d, bool crash)
{
	if (d->pid <= 0)
		return;
	kill(d->pid, crash ? SIGKILL : SIGTERM);
	waitpid(d->pid, NULL, 0);
	d->pid = 0;
}

uint64_t bench_daemon_hwm_kib(const struct bench_daemon *d)
{
	char path[64], line[256];
	uint64_t kib = 0;
	FILE *f;

	if (d->pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)d->pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "VmHWM:", 6) == 0) {
			kib = strtoull(line + 6, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kib;
}

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Writes trace.jsonl: 300 training jobs for the quickstart cluster (512
# GPUs), arriving about 5 an hour for 60 hours, in the two teams' queues.
# Sizes: 1 to 16 hosts of 8 GPUs (most of them multi-host), and some jobs
# of 1 to 4 GPUs; runtimes from 15 minutes to 12 hours (log-uniform). The
# load is about 90% of the cluster, so that placement decides who waits.
# Deterministic: the same awk gives the same file.
# usage: examples/quickstart/gen-trace.sh > examples/quickstart/trace.jsonl
set -eu
awk 'BEGIN {
	srand(20261130)
	t = 0
	print "# 300 jobs for the quickstart cluster; made by gen-trace.sh"
	for (i = 1; i <= 300; i++) {
		u = rand()
		if (u < 0.10) { pods = 1; gpus = 2 ^ int(rand() * 3) }
		else if (u < 0.35) { pods = 1; gpus = 8 }
		else if (u < 0.55) { pods = 2; gpus = 8 }
		else if (u < 0.75) { pods = 4; gpus = 8 }
		else if (u < 0.92) { pods = 8; gpus = 8 }
		else { pods = 16; gpus = 8 }
		dur = int(900 * exp(rand() * log(48)))
		team = rand() < 0.5 ? "team-a" : "team-b"
		printf("{\"name\":\"job-%03d\",\"submit_s\":%d,\"duration_s\":%d," \
		       "\"pods\":%d,\"requests\":{\"nvidia.com/gpu\":%d," \
		       "\"cpu\":\"%d\",\"memory\":\"%dGi\"}," \
		       "\"queue\":\"%s/training\"}\n",
		       i, t, dur, pods, gpus, 12 * gpus, 160 * gpus, team)
		t += int(-log(1 - rand()) * 720)
	}
}'

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Writes trace.jsonl: 500 jobs of 1 to 128 whole 8-GPU hosts (sizes 1, 2,
# 4, ..., 128 equally likely), all submitted at once, running 10 minutes to
# 2 hours 10 minutes: the kind of load under which Slurm's topology/tree
# plugin scatters large jobs (see README.md). Deterministic.
# usage: examples/under-load/gen-trace.sh > examples/under-load/trace.jsonl
#        examples/under-load/gen-trace.sh MIN_S MAX_S  (other durations:
#        examples/short-stream/trace.jsonl is 30 120)
set -eu
awk -v lo="${1:-600}" -v hi="${2:-7800}" 'BEGIN {
	srand(7)
	split("1 2 4 8 16 32 64 128", size, " ")
	if (lo == 600 && hi == 7800)
		print "# 500 jobs of 1 to 128 whole hosts, all at once; made by gen-trace.sh"
	else
		printf("# 500 jobs of 1 to 128 whole hosts, all at once, %d to %d s; " \
		       "made by examples/under-load/gen-trace.sh %d %d\n", lo, hi, lo, hi)
	for (i = 1; i <= 500; i++) {
		n = size[int(rand() * 8) + 1]
		d = int(lo + rand() * (hi - lo))
		printf("{\"name\":\"j%03d\",\"submit_s\":0,\"duration_s\":%d," \
		       "\"pods\":%d,\"requests\":{\"nvidia.com/gpu\":8," \
		       "\"cpu\":\"96\",\"memory\":\"1536Gi\"}}\n", i, d, n)
	}
}'

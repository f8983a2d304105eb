#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Writes trace.jsonl: 500 jobs of 1 to 128 whole 8-GPU hosts (sizes 1, 2,
# 4, ..., 128 equally likely), all submitted at once, running 10 minutes to
# 2 hours 10 minutes: the kind of load under which Slurm's topology/tree
# plugin scatters large jobs (see README.md). Deterministic.
# usage: examples/under-load/gen-trace.sh > examples/under-load/trace.jsonl
#        examples/under-load/gen-trace.sh MIN_S MAX_S  (other durations:
#        examples/short-stream/trace.jsonl is 30 120)
#        examples/under-load/gen-trace.sh MIN_S MAX_S R  (size 2^k drawn
#        with weight R^k instead of equally likely: R < 1 gives smaller
#        jobs; examples/slurm-stream/trace.jsonl is 30 120 0.757)
set -eu
awk -v lo="${1:-600}" -v hi="${2:-7800}" -v r="${3:-1}" 'BEGIN {
	srand(7)
	split("1 2 4 8 16 32 64 128", size, " ")
	# cumulative weights: 1, 2, ..., 8 when r is 1 (sizes equally likely)
	for (k = 1; k <= 8; k++) {
		tot += (k == 1 ? wk = 1 : wk *= r)
		cum[k] = tot
	}
	if (lo == 600 && hi == 7800 && r == 1)
		print "# 500 jobs of 1 to 128 whole hosts, all at once; made by gen-trace.sh"
	else if (r == 1)
		printf("# 500 jobs of 1 to 128 whole hosts, all at once, %d to %d s; " \
		       "made by examples/under-load/gen-trace.sh %d %d\n", lo, hi, lo, hi)
	else
		printf("# 500 jobs of 1 to 128 whole hosts (size 2^k with weight " \
		       "%s^k), all at once, %d to %d s; made by " \
		       "examples/under-load/gen-trace.sh %d %d %s\n", r, lo, hi,
		       lo, hi, r)
	for (i = 1; i <= 500; i++) {
		u = rand() * tot
		for (k = 1; k < 8 && u >= cum[k]; k++)
			;
		n = size[k]
		d = int(lo + rand() * (hi - lo))
		printf("{\"name\":\"j%03d\",\"submit_s\":0,\"duration_s\":%d," \
		       "\"pods\":%d,\"requests\":{\"nvidia.com/gpu\":8," \
		       "\"cpu\":\"96\",\"memory\":\"1536Gi\"}}\n", i, d, n)
	}
}'

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The placement algorithms of docs/benchmarks.md ("Choosing among domains
# that fit"): Kueue's Mixed (its default), BestFit and LeastFreeCapacity
# against echelon's FragmentationAware, under the tas policy, on the
# quickstart, ITP cluster04 and the short stream. Prints one Markdown table
# row per run, read from each run's summary.json.
#
#   sh bench/placement-profiles.sh [path/to/echelon]
set -eu

echelon=${1:-build/echelon}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # name args...
	name=$1
	shift
	for a in Mixed BestFit LeastFreeCapacity FragmentationAware; do
		"$echelon" sim -q --placement-algorithm "$a" --out "$tmp/o" \
			"$@" >/dev/null
		python3 - "$tmp/o/summary.json" "$name" "$a" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["policies"]["tas"]
def t(v):
    return "%.2f h" % (v / 3600) if v >= 3600 else "%.1f s" % v
print("| %s | %s | %s | %s | %.1f %% | %.1f %% | %s s |" % (
    sys.argv[2], sys.argv[3], t(s["mean_jct_s"]), t(s["mean_wait_s"]),
    100 * s["gpu_utilization"], 100 * s["on_min_racks"],
    format(s["makespan_s"], ",.1f" if s["makespan_s"] < 1e4 else ",.0f")))
PY
		rm -rf "$tmp/o"
	done
}

echo "| input | algorithm | mean JCT | mean wait | GPU utilization |" \
	"multi-node on min racks | makespan |"
echo "|---|---|---|---|---|---|---|"
run quickstart -f examples/quickstart \
	--trace examples/quickstart/trace.jsonl
run "ITP cluster04" --cluster blocks=2,racks=4,hosts=10,gpus=8 \
	--trace examples/itp-2021/cluster04.csv
run "short stream" --cluster blocks=4,racks=8,hosts=32,gpus=8 \
	--trace examples/short-stream/trace.jsonl --pod-start 0.5s

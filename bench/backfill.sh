#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The backfill table of docs/benchmarks.md: `tas` with and without
# --backfill on the quickstart, ITP cluster04 and the Slurm-like stream,
# with exact estimates and with --estimate-error 1.0. Prints one row per run
# (markdown); each run takes a few seconds.
#
#   sh bench/backfill.sh [path/to/echelon] [extra sim options...]
#
# Goodput is ideal-speed work per allocated GPU-hour: summary.json's
# `goodput` where the simulator writes it, else worked out from the
# summary: the allocated GPU-time is the busy GPU-time (gpu_utilization x
# GPUs x makespan) plus the idle allocated GPU-hours; the work is the busy
# GPU-time less the lost GPU-hours (work lost to evictions). That is exact
# when every job ran at its ideal speed (mean_throughput_ratio 1, as under
# compact `tas`); otherwise the row says "(upper bound)".
set -eu

echelon=${1:-build/echelon}
[ $# -gt 0 ] && shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

row() { # label gpus ideal_s sim-options...
	label=$1 gpus=$2 ideal=$3
	shift 3
	"$echelon" sim -q "$@" --out "$out/run" >/dev/null
	python3 - "$out/run" "$label" "$gpus" "$ideal" <<'EOF'
import json, sys
d, label, gpus, ideal = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
s = json.load(open(d + "/summary.json"))["policies"]["tas"]
busy = s["gpu_utilization"] * gpus * s["makespan_s"]
work = busy - s["lost_gpu_hours"] * 3600
alloc = busy + s["idle_allocated_gpu_hours"] * 3600
span = s["makespan_s"]
ms = "%.1f s (%.3f)" % (span, span / ideal) if ideal > 0 else "%.0f s" % span
bf = "%s | %s | %.0f s" % (s["reservations"], s["reservations_delayed"],
                           s["reservation_delay_s"]) if "reservations" in s else " | | "
gp = "%.3f" % (work / alloc)
if isinstance(s.get("goodput"), (int, float)):
    gp = "%.3f" % s["goodput"]
elif s["mean_throughput_ratio"] < 1:
    gp += " (upper bound)"
print("| %s | %.0f s | %.0f s | %.1f %% | %s | %.1f %% | %s | %s |" % (
    label, s["mean_jct_s"], s["mean_wait_s"], 100 * s["gpu_utilization"],
    gp, 100 * s["on_min_racks"], ms, bf))
EOF
}

qs="-f examples/quickstart --trace examples/quickstart/trace.jsonl"
itp="--cluster blocks=2,racks=4,hosts=10,gpus=8 --trace examples/itp-2021/cluster04.csv"
ss="--cluster blocks=4,racks=8,hosts=32,gpus=8 --trace examples/slurm-stream/trace.jsonl --pod-start 0.5s"
bf="--backfill --estimates exact"

echo "| run | mean JCT | mean wait | GPU util | goodput | on min racks | makespan (/ideal) | resv | delayed | delay |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for input in qs itp ss; do
	eval "opts=\$$input"
	case $input in
	qs) gpus=512 ideal=0 ;;
	itp) gpus=640 ideal=0 ;;
	ss) gpus=8192 ideal=464.63 ;;
	esac
	# shellcheck disable=SC2086
	row "$input tas" $gpus $ideal $opts "$@"
	# shellcheck disable=SC2086
	row "$input backfill exact" $gpus $ideal $opts $bf "$@"
	# shellcheck disable=SC2086
	row "$input backfill exact, error 1.0" $gpus $ideal $opts $bf \
		--estimate-error 1.0 "$@"
done

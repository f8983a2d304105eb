#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `echelon sim --out`'s metrics in Prometheus' own tools (Debian's
# prometheus): promtool checks metrics.prom; metrics.om is imported with
# `promtool tsdb create-blocks-from openmetrics` and read back with
# `promtool tsdb dump`; a Prometheus started on the blocks answers
# Kueue's dashboard queries (rate, histogram_quantile) at a simulated
# time. Lives with the serve tests for their skip and port helpers; no
# daemon is started.
. "$(dirname "$0")/lib/common.sh"

need_prometheus
"$ECHELON" sim -q --cluster blocks=1,racks=2,hosts=2,gpus=8 --synth 8 \
	--until 2h --out "$TMP/out" >/dev/null 2>"$TMP/sim.err" ||
	fail "sim: $(cat "$TMP/sim.err")"
promtool check metrics <"$TMP/out/metrics.prom" >"$TMP/lint" 2>&1 ||
	fail "promtool check metrics: $(cat "$TMP/lint")"
grep -q '^kueue_pending_workloads{cluster_queue="",' "$TMP/out/metrics.prom" &&
	fail "a series with cluster_queue=\"\""
want=$(sed -n 's/^kueue_admitted_workloads_total{cluster_queue="sim",policy="tas"} //p' \
	"$TMP/out/metrics.prom")
[ -n "$want" ] && [ "$want" -gt 0 ] || fail "no admissions in metrics.prom"
# every admission ran the placement engine, in no simulated time
n=$(sed -n 's/^echelon_placement_duration_seconds_count{policy="tas",result="success"} //p' \
	"$TMP/out/metrics.prom")
[ "$n" = "$want" ] || fail "placement attempts: '$n', want $want"
grep -q '^echelon_placement_duration_seconds_sum{policy="tas",result="success"} 0$' \
	"$TMP/out/metrics.prom" || fail "simulated placement time is not 0"
grep -q '^kueue_cluster_queue_info{cluster_queue="sim",' "$TMP/out/metrics.prom" ||
	fail "no kueue_cluster_queue_info"
grep -q '^kueue_cluster_queue_weighted_share{cluster_queue="sim",cohort="[^"]*",policy="tas"} ' \
	"$TMP/out/metrics.prom" || fail "no kueue_cluster_queue_weighted_share"
grep -q '^# TYPE kueue_unadmitted_workloads gauge$' "$TMP/out/metrics.prom" ||
	fail "no kueue_unadmitted_workloads"
# a run describes no build
grep -q '^kueue_build_info' "$TMP/out/metrics.prom" && fail "kueue_build_info in sim"

promtool tsdb create-blocks-from openmetrics "$TMP/out/metrics.om" \
	"$TMP/tsdb" >"$TMP/import" 2>&1 ||
	fail "create-blocks-from openmetrics: $(tail -n 5 "$TMP/import")"
mkdir -p "$TMP/tsdb/wal" # promtool 2.42 reads one
# The last sample is the state when the run stopped, at 2025-01-01 + 2 h.
last=$(promtool tsdb dump \
	--match='kueue_admitted_workloads_total{cluster_queue="sim",policy="tas"}' \
	"$TMP/tsdb" | tail -n 1)
[ "$last" = "{__name__=\"kueue_admitted_workloads_total\", cluster_queue=\"sim\", policy=\"tas\"} $want 1735696800000" ] ||
	fail "tsdb dump: last sample $last, want $want at 1735696800000"

: >"$TMP/prometheus.yml"
start_prometheus "$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--storage.tsdb.retention.time=100y
at=1735696800 # simulated hour 2
v=$(prom_query 'sum(increase(kueue_admitted_workloads_total{policy="tas"}[2h]))' $at)
$PY -c "import sys; sys.exit(0 if float('$v') > 0 else 1)" ||
	fail "increase of admissions: '$v'"
v=$(prom_query 'histogram_quantile(0.9, sum by (le) (rate(kueue_admission_wait_time_seconds_bucket{policy="tas"}[2h])))' $at)
$PY -c "import math, sys; sys.exit(0 if math.isfinite(float('$v')) else 1)" ||
	fail "p90 admission wait: '$v'"
p90=$v
# the modelled traffic over the run: a number, at no time below 0
v=$(prom_query 'min_over_time(sum(echelon_cluster_queue_cross_rack_bytes_per_second{policy="tas"})[2h:1m])' $at)
$PY -c "import math, sys; v = float('$v'); sys.exit(0 if math.isfinite(v) and v >= 0 else 1)" ||
	fail "cross-rack traffic: '$v'"
echo "sim prometheus ok (p90 admission wait $p90 s)"

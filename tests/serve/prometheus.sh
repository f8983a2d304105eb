#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A real Prometheus (Debian's prometheus) scrapes `echelon serve` and is
# asked through its HTTP API for one of Kueue's series and one of
# echelon's; promtool checks the /metrics text first. Free ports, the
# config in the test's temporary folder, bounded loops.
. "$(dirname "$0")/lib/common.sh"

need_prometheus
start_serve --cluster blocks=1,racks=2,hosts=2,gpus=8 \
	-f "$SRC/tests/serve/data/queues.yaml" \
	-f "$SRC/tests/serve/data/job.yaml" --speed 60

# The Job is admitted: its counter moves.
until_ok 15 sh -c "curl -fs $URL/metrics |
	grep -q '^kueue_admitted_workloads_total{cluster_queue=\"main\"} 1\$'" ||
	fail "no admission in /metrics: $(curl -fs "$URL/metrics" |
		grep kueue_admitted_workloads_total)"
curl -fs "$URL/metrics" >"$TMP/metrics.txt" || fail "GET /metrics"
promtool check metrics <"$TMP/metrics.txt" >"$TMP/lint" 2>&1 ||
	fail "promtool check metrics: $(cat "$TMP/lint")"
# echelon's placement time, on the daemon's clock: the admission's attempt
# ran the placement engine, in more than no time and less than a second
series() { sed -n "s/^$1 //p" "$TMP/metrics.txt"; }
n=$(series 'echelon_placement_duration_seconds_count{result="success"}')
sum=$(series 'echelon_placement_duration_seconds_sum{result="success"}')
$PY -c "import sys; sys.exit(0 if int('$n') >= 1 and 0 < float('$sum') < $n else 1)" ||
	fail "placement duration: count '$n', sum '$sum'"
# the queue's modelled traffic, the cohort series
for s in 'echelon_cluster_queue_cross_rack_bytes_per_second{cluster_queue="main"}' \
	'echelon_cluster_queue_cross_block_bytes_per_second{cluster_queue="main"}'; do
	v=$(series "$s")
	$PY -c "import math, sys; v = float('$v'); sys.exit(0 if math.isfinite(v) and v >= 0 else 1)" ||
		fail "$s: '$v'"
done
grep -q '^kueue_cluster_queue_info{cluster_queue="main",' "$TMP/metrics.txt" ||
	fail "no kueue_cluster_queue_info for main"
# the build the daemon is, and main's fair share (it borrows nothing)
grep -q "^kueue_build_info{build_date=\"[^\"]*\",compiler=\"[a-z]* [0-9.]*\",git_commit=\"[^\"]*\",git_version=\"v$("$ECHELON" version | sed 's/^echelon //')\",go_version=\"\",platform=\"[a-z]*/[a-z0-9]*\"} 1$" \
	"$TMP/metrics.txt" || fail "kueue_build_info: $(grep '^kueue_build_info' "$TMP/metrics.txt")"
grep -q '^kueue_cluster_queue_weighted_share{cluster_queue="main",cohort="[^"]*"} 0$' \
	"$TMP/metrics.txt" || fail "kueue_cluster_queue_weighted_share: $(grep \
	'^kueue_cluster_queue_weighted_share' "$TMP/metrics.txt")"
# the LocalQueue's status, and its quota series per pair of its
# ClusterQueue
grep -q '^kueue_local_queue_status{active="True",name="main",namespace="default"} 1$' \
	"$TMP/metrics.txt" || fail "kueue_local_queue_status: $(grep \
	'^kueue_local_queue_status' "$TMP/metrics.txt")"
for f in kueue_local_queue_resource_reservation kueue_local_queue_resource_usage; do
	for r in cpu memory nvidia.com/gpu; do
		grep -q "^$f{flavor=\"tas-gpu\",name=\"main\",namespace=\"default\",resource=\"$r\"} " \
			"$TMP/metrics.txt" || fail "no $f for $r"
	done
done
# the Job runs a minute of the embedded clock (a second here): its
# finished Workload stays, counted
until_ok 15 sh -c "curl -fs $URL/metrics |
	grep -q '^kueue_finished_workloads{cluster_queue=\"main\"} 1\$'" ||
	fail "finished: $(curl -fs "$URL/metrics" | grep '^kueue_finished_workloads')"

cat >"$TMP/prometheus.yml" <<EOF2
global:
  scrape_interval: 1s
scrape_configs:
- job_name: echelon
  static_configs:
  - targets: ['127.0.0.1:$PORT']
EOF2
start_prometheus "$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom"
has() { [ "$(prom_query "$1")" = "$2" ]; }
until_ok 20 has 'kueue_admitted_workloads_total{cluster_queue="main"}' 1 ||
	fail "prometheus: kueue_admitted_workloads_total=$(prom_query \
		'kueue_admitted_workloads_total') $(tail -n 5 "$TMP/prom.log")"
until_ok 10 has 'sum(echelon_podgroups{cluster_queue="main"})' 1 ||
	fail "prometheus: echelon_podgroups=$(prom_query echelon_podgroups)"
has 'kueue_cluster_queue_nominal_quota{cluster_queue="main",resource="nvidia.com/gpu"}' 64 ||
	fail "prometheus: nominal quota $(prom_query \
		kueue_cluster_queue_nominal_quota)"
echo "prometheus ok"

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

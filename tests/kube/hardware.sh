#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# explain's hardware layer on a real cluster invents no GPU signals: the
# cluster (`echelon serve --no-schedule`) has a degraded node under its
# running gang, whose simulated dcgm-exporter shows the XID, but the
# scheduler (`echelon serve --kubeconfig`) has no simulation: its explain
# says no GPU signals are available, names no straggler and does not make
# the cause hardware, and it serves no /metrics/dcgm.
. "$(dirname "$0")/lib/kube.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"
start_serve --no-schedule --cluster blocks=1,racks=2,hosts=2,gpus=8 \
	--speed 10
out=$(K apply -f "$SRC/tests/kube/data/queues.yaml" 2>&1) ||
	fail "apply queues: $out"
out=$(sed 's/name: quick/name: long/; s/"2s"/"1h"/' \
	"$SRC/tests/kube/data/quick.yaml" | K apply -f - 2>&1) ||
	fail "apply Job: $out"
start_scheduler a
sel=batch.kubernetes.io/job-name%3Dlong
until_ok 30 bound $sel 2 || fail "long not bound: $(pods_of $sel)"
node=$(pods_of $sel | head -n 1 | cut -d' ' -f2)
out=$(K annotate node "$node" sim.echelon.dev/gpu-fault=xid=79,slowdown=0.5 2>&1) ||
	fail "annotate: $out"
xid() {
	curl -fs "$URL/metrics/dcgm" |
		grep -q "^DCGM_FI_DEV_XID_ERRORS{Hostname=\"$node\".*gpu=\"0\".*} 79\$"
}
until_ok 10 xid || fail "the cluster's /metrics/dcgm shows no XID on $node"
code=$(curl -s -o /dev/null -w '%{http_code}' "$SURL/metrics/dcgm")
[ "$code" = 404 ] || fail "the scheduler's /metrics/dcgm: $code, not 404"

wl=$(get /apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads \
	'[w["metadata"]["name"] for w in j["items"]][0]') || fail "no Workload"
ready() {
	curl -fs "$SURL/apis/echelon.dev/v1alpha1/namespaces/default/workloads/$wl/explain" \
		>"$TMP/explain.json" && grep -q '"state":"Running"' "$TMP/explain.json"
}
until_ok 30 ready || fail "explain never says Running: $(cat "$TMP/explain.json")"
$PY - "$TMP/explain.json" <<'PYEOF' || fail "explain: $(cat "$TMP/explain.json")"
import json, sys
e = json.load(open(sys.argv[1]))
hw = {l["layer"]: l for l in e["layers"]}["hardware"]
assert hw["gpuSignals"] == "unavailable", hw
assert hw["stragglers"] == [], hw
assert e["cause"] != "hardware", e["cause"]
assert "no GPU signals: a real cluster's DCGM exporter is not read" in e["text"], e["text"]
PYEOF
echo "kube hardware: no GPU signals invented, no /metrics/dcgm ok"

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A degraded node: the embedded cluster's simulated dcgm-exporter
# (/metrics/dcgm) and explain's hardware layer. A gang of 2 pods of 8 GPUs
# runs; one of its nodes is annotated sim.echelon.dev/gpu-fault (XID 79 and
# 91 °C on GPU 2, the node at half speed). Its series show it under
# dcgm-exporter's names and labels (promtool checks the text: the only
# remark allowed is the one on dcgm-exporter's own camelCase label
# modelName), explain names the node and its numbers with the cause
# hardware, and the pod on that node runs the rest of its time at half
# speed from then on (its run, by its own container times, stretched
# exactly so) while the other pod ends on time. A bad fault value is
# refused with a Warning Event on the node; a real Prometheus scrapes
# /metrics/dcgm and is asked for the XID. The clock runs at 10x (the
# objects' times are of the wall clock: a run of 100 s shows as 10 s).
# usage: sh hardware.sh ECHELON SOURCE_DIR [CLIENTS_DIR]
. "$(dirname "$0")/lib/common.sh"

need_prometheus
start_serve --cluster blocks=1,racks=2,hosts=4,gpus=8 \
	-f "$SRC/tests/serve/data/queues.yaml" --speed 10

$PY - "$URL" <<'PYEOF' || fail "cannot create the Job"
import json, sys, urllib.request
body = {"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "train", "namespace": "default",
                     "labels": {"kueue.x-k8s.io/queue-name": "main"}},
        "spec": {"parallelism": 2, "completions": 2, "template": {
            "metadata": {"annotations": {"sim.echelon.dev/duration": "100s"}},
            "spec": {"restartPolicy": "Never", "containers": [{
                "name": "t", "image": "trainer",
                "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}
req = urllib.request.Request(sys.argv[1] + "/apis/batch/v1/namespaces/default/jobs",
                             data=json.dumps(body).encode(), method="POST",
                             headers={"Content-Type": "application/json"})
urllib.request.urlopen(req, timeout=10).read()
PYEOF

# pods: "name node phase startedAt finishedAt" per pod of the Job
pods() {
	$PY - "$URL" <<'PYEOF'
import json, sys, urllib.request
l = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/namespaces/default/pods", timeout=10))
for p in sorted(l["items"], key=lambda p: p["metadata"]["name"]):
    st = ((p.get("status", {}).get("containerStatuses") or [{}])[0]).get("state", {})
    t = st.get("terminated", {})
    print(p["metadata"]["name"], p["spec"].get("nodeName", "-"),
          p.get("status", {}).get("phase", "-"),
          st.get("running", t).get("startedAt", "-"), t.get("finishedAt", "-"))
PYEOF
}
both_running() { [ "$(pods | grep -c ' Running ')" = 2 ]; }
until_ok 30 both_running || fail "the gang never ran: $(pods)"
NODE=$(pods | head -n 1 | cut -d' ' -f2)
OTHER=$(pods | tail -n 1 | cut -d' ' -f2)
[ "$NODE" != "$OTHER" ] || fail "both pods on $NODE"

# Healthy: the gang's GPUs busy, labelled with their pods.
curl -fs "$URL/metrics/dcgm" >"$TMP/dcgm0" || fail "no /metrics/dcgm"
grep -q "^DCGM_FI_DEV_SM_CLOCK{.*Hostname=\"$NODE\".*gpu=\"2\".*} 1980\$" \
	"$TMP/dcgm0" || fail "healthy clock: $(grep "$NODE" "$TMP/dcgm0")"

# The fault comes about halfway through the run.
sleep 4
curl -fs -X PATCH -H 'Content-Type: application/merge-patch+json' \
	-d '{"metadata":{"annotations":{"sim.echelon.dev/gpu-fault":"xid=79,gpu=2,temp=91,slowdown=0.5"}}}' \
	"$URL/api/v1/nodes/$NODE" >/dev/null || fail "cannot degrade $NODE"

stamped() {
	curl -fs "$URL/api/v1/nodes/$NODE" |
		grep -q '"sim.echelon.dev/gpu-fault-since":"'
}
until_ok 10 stamped || fail "no gpu-fault-since on $NODE"
curl -fs "$URL/metrics/dcgm" >"$TMP/dcgm" || fail "no /metrics/dcgm"
$PY - "$TMP/dcgm" "$NODE" "$OTHER" <<'PYEOF' || fail "/metrics/dcgm: $(grep -e "$NODE" "$TMP/dcgm" | head -n 20)"
import re, sys
text, node, other = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
s = {}
for line in text.splitlines():
    m = re.match(r'^(DCGM_FI_\w+)\{(.*)\} (\S+)$', line)
    if m:
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        s[(m.group(1), labels["Hostname"], labels["gpu"])] = (labels, float(m.group(3)))
assert "# TYPE DCGM_FI_DEV_XID_ERRORS gauge" in text
lab, v = s[("DCGM_FI_DEV_XID_ERRORS", node, "2")]
assert v == 79, v
assert lab["device"] == "nvidia2" and lab["UUID"].startswith("GPU-"), lab
assert lab["modelName"] == "NVIDIA H100 80GB HBM3", lab
assert lab["namespace"] == "default" and lab["pod"].startswith("train-"), lab
assert lab["container"] == "t", lab
assert s[("DCGM_FI_DEV_XID_ERRORS", node, "3")][1] == 0
assert s[("DCGM_FI_DEV_GPU_TEMP", node, "2")][1] == 91
assert s[("DCGM_FI_DEV_GPU_TEMP", node, "3")][1] < 85
assert all(s[("DCGM_FI_DEV_SM_CLOCK", node, str(g))][1] == 990 for g in range(8))
assert all(s[("DCGM_FI_DEV_SM_CLOCK", other, str(g))][1] == 1980 for g in range(8))
assert all(s[("DCGM_FI_DEV_GPU_UTIL", other, str(g))][1] >= 95 for g in range(8))
# a node the gang is not on: idle, no pod labels
idle = [k for k in s if k[0] == "DCGM_FI_DEV_GPU_UTIL" and k[1] not in (node, other)]
assert len(idle) == 6 * 8, len(idle)
assert all(s[k][1] == 0 and "pod" not in s[k][0] for k in idle)
PYEOF
promtool check metrics <"$TMP/dcgm" >"$TMP/lint" 2>&1
rc=$?
grep -v "^DCGM_FI_DEV_[A-Z_]* label names should be written in 'snake_case' not 'camelCase'\$" \
	"$TMP/lint" >"$TMP/lint.other"
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "promtool check metrics: rc $rc $(cat "$TMP/lint")"
[ ! -s "$TMP/lint.other" ] || fail "promtool check metrics: $(cat "$TMP/lint.other")"
# /metrics itself stays clean.
curl -fs "$URL/metrics" | promtool check metrics >"$TMP/lint" 2>&1 ||
	fail "promtool check metrics /metrics: $(cat "$TMP/lint")"

# explain: the hardware layer names the node and its numbers.
$PY - "$URL" "$NODE" "$TMP/explain" <<'PYEOF' || fail "explain: $(cat "$TMP/explain")"
import json, sys, urllib.request
url, node, out = sys.argv[1:4]
wls = json.load(urllib.request.urlopen(
    url + "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads", timeout=10))
name = [w["metadata"]["name"] for w in wls["items"]][0]
e = json.load(urllib.request.urlopen(
    url + "/apis/echelon.dev/v1alpha1/namespaces/default/workloads/" + name + "/explain",
    timeout=10))
open(out, "w").write(e["text"])
L = {l["layer"]: l for l in e["layers"]}
hw = L["hardware"]
assert e["cause"] == "hardware", e["cause"]
assert hw["status"] == "suspect" and hw["gpuSignals"] == "simulated", hw
[s] = hw["stragglers"]
assert s["node"] == node and s["xid"] == 79 and s["xidGPU"] == 2, s
assert s["temperature"] == 91 and s["hotGPU"] == 2, s
assert s["speed"] == 0.5 and s["gangGPUs"] == 8, s
assert s["xidAt"].endswith("Z"), s
line = ("node %s: XID 79 on GPU 2 at %s, GPU 2 at 91 °C; its 8 GPUs run "
        "the gang at 0.5x" % (node, s["xidAt"]))
assert "   " + line + "\n" in e["text"], line
assert "Cause: hardware (suspect, " + line + ")" in e["text"]
PYEOF

# The pod on the degraded node runs the rest at half speed: the other
# ends after its 100 s (10 s of wall time), this one after twice what was
# left when the fault came (times in whole wall seconds: +-2 s; the whole
# run stretched would take 20 s, none 10 s).
other_done() { pods | tail -n 1 | grep -q ' Succeeded '; }
until_ok 30 other_done || fail "the healthy pod did not end: $(pods)"
pods | head -n 1 | grep -q ' Running ' ||
	fail "the pod on $NODE ended with the healthy one: $(pods)"
both_done() { [ "$(pods | grep -c ' Succeeded ')" = 2 ]; }
until_ok 30 both_done || fail "the slowed pod did not end: $(pods)"
since=$(curl -fs "$URL/api/v1/nodes/$NODE" | $PY -c \
	'import json,sys; print(json.load(sys.stdin)["metadata"]["annotations"]["sim.echelon.dev/gpu-fault-since"])')
pods >"$TMP/pods"
$PY - "$TMP/pods" "$since" <<'PYEOF' || fail "run times: $(cat "$TMP/pods") since $since"
import sys
from datetime import datetime
t = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").timestamp()
rows = [l.split() for l in open(sys.argv[1])]
since = t(sys.argv[2])
slow, fast = rows[0], rows[1]
assert abs(t(fast[4]) - t(fast[3]) - 10) <= 1, fast
done = since - t(slow[3])           # run at full speed before the fault
assert 2 <= done <= 8, done
want = done + 2 * (10 - done)       # the rest at half speed
got = t(slow[4]) - t(slow[3])
assert abs(got - want) <= 2, (got, want)
PYEOF

# A value that does not parse: refused, said once as a Warning Event.
curl -fs -X PATCH -H 'Content-Type: application/merge-patch+json' \
	-d '{"metadata":{"annotations":{"sim.echelon.dev/gpu-fault":"slowdown=2"}}}' \
	"$URL/api/v1/nodes/$OTHER" >/dev/null || fail "cannot annotate $OTHER"
warned() {
	curl -fs "$URL/api/v1/namespaces/default/events" |
		grep -q 'InvalidGPUFault'
}
until_ok 10 warned || fail "no InvalidGPUFault Event"
curl -fs "$URL/api/v1/namespaces/default/events" >"$TMP/events" ||
	fail "no Events"
$PY - "$TMP/events" "$OTHER" <<'PYEOF' || fail "InvalidGPUFault: $(grep -o '"message":"sim[^}]*' "$TMP/events")"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["items"] if e["reason"] == "InvalidGPUFault"]
assert len(ev) == 1, ev
e = ev[0]
assert e["type"] == "Warning" and e["involvedObject"]["kind"] == "Node", e
assert e["involvedObject"]["name"] == sys.argv[2], e
assert e["message"] == ('sim.echelon.dev/gpu-fault: slowdown: must be a number '
                        'above 0 and at most 1, not "2"'), e["message"]
PYEOF
curl -fs "$URL/metrics/dcgm" | grep -q "^DCGM_FI_DEV_SM_CLOCK{.*Hostname=\"$OTHER\".*} 345\$" ||
	fail "a bad fault changed $OTHER's signals"
# A real Prometheus scrapes the exporter's path.
cat >"$TMP/prometheus.yml" <<EOF2
global:
  scrape_interval: 1s
scrape_configs:
- job_name: dcgm
  metrics_path: /metrics/dcgm
  static_configs:
  - targets: ['127.0.0.1:$PORT']
EOF2
start_prometheus "$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom"
has() { [ "$(prom_query "$1")" = "$2" ]; }
until_ok 20 has "DCGM_FI_DEV_XID_ERRORS{Hostname=\"$NODE\",gpu=\"2\",device=\"nvidia2\"}" 79 ||
	fail "prometheus: $(prom_query DCGM_FI_DEV_XID_ERRORS) $(tail -n 5 "$TMP/prom.log")"
has 'count(DCGM_FI_DEV_GPU_UTIL{modelName="NVIDIA H100 80GB HBM3"})' 64 ||
	fail "prometheus: $(prom_query 'count(DCGM_FI_DEV_GPU_UTIL)') GPUs"
echo "hardware: dcgm series, promtool, prometheus, explain, slowdown, bad value ok"
stop_serve

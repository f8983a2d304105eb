#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Layered diagnosis against the daemon: the explain subresource
# (/apis/echelon.dev/v1alpha1/namespaces/NS/workloads/NAME/explain) on
# scenarios where each layer is the right answer, each with its numbers:
# quota short (how much, who holds it, who is ahead), no domain can ever
# fit, a gang spread over more racks than it needs, a gang bound but not yet
# Ready (assembly, with its deadline), a running gang slower than its
# placement explains with a cordoned node (hardware), and a gang that runs
# as its placement allows. The cluster: 2 racks of 4 hosts of 8 GPUs, one
# ClusterQueue of 64 GPUs, the clock at the wall clock's pace so that pods
# take their 10 s to start.
# usage: sh explain.sh ECHELON SOURCE_DIR [CLIENTS_DIR]
. "$(dirname "$0")/lib/common.sh"

start_serve --cluster blocks=1,racks=2,hosts=4,gpus=8 \
	-f "$SRC/tests/serve/data/queues.yaml"

job() { # name pods [key=value of the template's extras as JSON members]
	$PY - "$URL" "$@" <<'PYEOF' || fail "cannot create Job $2"
import json, sys, urllib.request
url, name, pods = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
meta = {"name": name, "namespace": "default",
        "labels": {"kueue.x-k8s.io/queue-name": "main"},
        "annotations": extra.pop("annotations", {})}
tmeta = {"annotations": extra.pop("podAnnotations", {})}
spec = {"restartPolicy": "Never", "containers": [{"name": "t", "image": "trainer",
        "resources": {"requests": {"nvidia.com/gpu": "8"}}}]}
spec.update(extra)
body = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
        "spec": {"parallelism": pods, "completions": pods,
                 "template": {"metadata": tmeta, "spec": spec}}}
req = urllib.request.Request(url + "/apis/batch/v1/namespaces/default/jobs",
                             data=json.dumps(body).encode(), method="POST",
                             headers={"Content-Type": "application/json"})
urllib.request.urlopen(req, timeout=10).read()
PYEOF
}

# explain NAME: the Job's Workload's explanation into $TMP/NAME.json
explain() {
	$PY - "$URL" "$1" "$TMP/$1.json" <<'PYEOF'
import json, sys, time, urllib.request
url, job, out = sys.argv[1:4]
end = time.time() + 10
while time.time() < end:
    wls = json.load(urllib.request.urlopen(
        url + "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads", timeout=10))
    names = [w["metadata"]["name"] for w in wls["items"]
             if w["metadata"]["name"].startswith("job-" + job + "-")]
    if names:
        r = urllib.request.urlopen(url + "/apis/echelon.dev/v1alpha1/namespaces/"
                                   "default/workloads/" + names[0] + "/explain", timeout=10)
        open(out, "w").write(r.read().decode())
        sys.exit(0)
    time.sleep(0.1)
sys.exit("no Workload for Job " + job)
PYEOF
}

# running NAME: wait until the Job's Workload runs (all pods Ready)
running() {
	i=0
	while :; do
		explain "$1"
		grep -q '"state":"Running"' "$TMP/$1.json" && return 0
		i=$((i + 1))
		[ $i -lt 150 ] || fail "$1 never ran: $(cat "$TMP/$1.json")"
		sleep 0.2
	done
}

# check NAME PYTHON-CONDITION...: e is the explanation, L the layers by name
check() {
	name=$1
	shift
	$PY - "$TMP/$name.json" "$@" <<'PYEOF' || fail "explain $name: $(cat "$TMP/$name.json")"
import json, sys
e = json.load(open(sys.argv[1]))
L = {l["layer"]: l for l in e["layers"]}
for cond in sys.argv[2:]:
    if not eval(cond):
        sys.exit("not true: " + cond + "\n" + e["text"])
PYEOF
}

# Two single-host gangs pinned one to each rack: 3 hosts free in each.
job pin0 1 '{"nodeSelector": {"kubernetes.io/hostname": "gpu-b0-r0-h0"}}'
job pin1 1 '{"nodeSelector": {"kubernetes.io/hostname": "gpu-b0-r1-h0"}}'
# Assembly: admitted and bound at once, Ready only after the pods' start.
explain pin0
check pin0 'e["state"] == "Admitted"' 'e["cause"] == "assembly"' \
	'L["admission"]["status"] == "ok"' \
	'L["assembly"]["pods"] == 1 and L["assembly"]["bound"] == 1' \
	'L["assembly"]["ready"] == 0' 'len(L["assembly"]["waitingPods"]) == 1' \
	'"waitForPodsReady" in e["text"] or "deadline" not in L["assembly"]'

# No domain can ever fit: 5 hosts required in one rack of 4.
job never 5 '{"podAnnotations": {"kueue.x-k8s.io/podset-required-topology": "cloud.provider.com/topology-rack"}}'
explain never
check never 'e["state"] == "Pending"' 'e["cause"] == "admission"' \
	'"rack" in L["admission"]["message"]' \
	'L["admission"]["positionInClusterQueue"] == 0' \
	'L["admission"]["heldGPUs"] == 16' \
	'sorted(h["gpus"] for h in L["admission"]["holders"]) == [8, 8]'

# A gang with no topology request of its own runs spread: 2 racks where
# 1 would do, and the model says what that costs.
job spread 4 '{}'
running spread
check spread 'e["cause"] == "throughput"' \
	'L["throughput"]["status"] == "spread"' \
	'L["throughput"]["podSets"][0]["racks"] == 2' \
	'L["throughput"]["podSets"][0]["minRacks"] == 1' \
	'0 < L["throughput"]["modelledThroughput"] < 1' \
	'"4 hosts, 2 racks (min 1)" in e["text"]'
# /metrics says the same of it.
curl -fs "$URL/metrics" >"$TMP/metrics" || fail "no /metrics"
spread=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["name"])' "$TMP/spread.json")
grep -q "^echelon_workload_extra_racks{namespace=\"default\",name=\"$spread\"} 1$" "$TMP/metrics" ||
	fail "no extra rack for $spread in /metrics"
ratio=$(sed -n "s/^echelon_workload_placement_throughput_ratio{namespace=\"default\",name=\"$spread\"} //p" "$TMP/metrics")
check spread "abs(L['throughput']['modelledThroughput'] - $ratio) < 0.001"

# Quota short: 64 GPUs nominal, 48 held, 24 asked; the gang that never
# fits is ahead of it.
job big 3 '{}'
explain big
check big 'e["state"] == "Pending"' 'L["admission"]["reason"] == "WaitingForQuota"' \
	'"8 more needed" in L["admission"]["message"]' \
	'L["admission"]["heldGPUs"] == 48' 'L["admission"]["gpus"] == 24' \
	'L["admission"]["positionInClusterQueue"] == 1' \
	'[a["name"][:18] for a in L["admission"]["ahead"]] == ["default/job-never-"]'

# Running as its placement allows, then slower than it explains on a
# cordoned node.
running pin1
check pin1 'e["state"] == "Running"' 'e["cause"] == "none"' \
	'L["throughput"]["podSets"][0]["placement"].startswith("1 host, 1 rack (min 1)")' \
	'L["throughput"]["modelledThroughput"] == 1.0' \
	'"running as well as its placement allows" in e["text"]'
curl -fs -X PATCH -H 'Content-Type: application/merge-patch+json' \
	-d '{"spec":{"unschedulable":true}}' "$URL/api/v1/nodes/gpu-b0-r1-h0" >/dev/null ||
	fail "cannot cordon"
curl -fs -X PATCH -H 'Content-Type: application/merge-patch+json' \
	-d '{"metadata":{"annotations":{"echelon.dev/measured-rate":"40","echelon.dev/ideal-rate":"100"}}}' \
	"$URL/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads/$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["name"])' "$TMP/pin1.json")" >/dev/null ||
	fail "cannot annotate"
sleep 1
explain pin1
check pin1 'e["cause"] == "hardware"' \
	'L["hardware"]["degradedNodes"] == ["gpu-b0-r1-h0"]' \
	'L["hardware"]["measuredThroughput"] == 0.4' \
	'L["hardware"]["expectedThroughput"] == 1.0'
# The CLI asks the same through the kubeconfig the daemon wrote.
big=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["name"])' "$TMP/big.json")
"$ECHELON" explain workload "default/$big" --kubeconfig "$KUBECONFIG" >"$TMP/big.txt" ||
	fail "echelon explain failed"
grep -q "^1. Admission: waiting (WaitingForQuota): .*8 more needed" "$TMP/big.txt" ||
	fail "echelon explain: $(cat "$TMP/big.txt")"
"$ECHELON" explain workload default/nope --kubeconfig "$KUBECONFIG" 2>"$TMP/err" &&
	fail "explain of a missing workload succeeded"
grep -q '404: workloads.kueue.x-k8s.io "nope" not found' "$TMP/err" ||
	fail "explain of a missing workload: $(cat "$TMP/err")"
echo "explain: assembly, never fits, spread, quota, running, hardware, CLI ok"
stop_serve

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A restart (SIGTERM, then the same --data and -f files) keeps a running
# gang running: the same pods (uids), still bound and Running, the Job
# neither suspended nor changed (generation), no object duplicated, and
# resourceVersions keep increasing. A queued plain pod (a gang of one, no
# PodGroup) keeps its node, its Workload (Kueue's pod integration) and
# its admission: the ClusterQueue's usage is the same before and after.
. "$(dirname "$0")/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"

# The Job as Kueue users write it: suspended until admitted, long enough
# (1 h of the embedded clock) to run across the restart.
sed -e 's/"60s"/"1h"/' -e 's/^  completionMode: Indexed/&\n  suspend: true/' \
	"$SRC/tests/serve/data/job.yaml" >"$TMP/job.yaml"
grep -q 'suspend: true' "$TMP/job.yaml" || fail "no suspended Job"
# A node file with a status, as the quickstart's: once the node exists,
# its status is the kubelet's and a restart must not apply the file's.
cat >"$TMP/node.yaml" <<'EOF2'
apiVersion: v1
kind: Node
metadata:
  name: spare
  labels: {kubernetes.io/hostname: spare}
status:
  capacity: {cpu: "8", memory: 64Gi}
  allocatable: {cpu: "8", memory: 64Gi}
  conditions:
  - {type: Ready, status: "True"}
EOF2
set -- --cluster blocks=1,racks=1,hosts=2,gpus=8 --speed 10 \
	-f "$SRC/tests/serve/data/queues.yaml" -f "$TMP/job.yaml" \
	-f "$TMP/node.yaml"

# pods: "name uid node phase" of the Job's pods, sorted.
pods() {
	curl -fs "$URL/api/v1/namespaces/default/pods?labelSelector=batch.kubernetes.io/job-name%3Dtrain" |
		$PY -c 'import json,sys
for p in sorted(json.load(sys.stdin)["items"], key=lambda p: p["metadata"]["name"]):
    print(p["metadata"]["name"], p["metadata"]["uid"],
          p["spec"].get("nodeName", "-"), p["status"].get("phase"))'
}
running() {
	[ "$(pods | grep -c ' Running$')" -eq 2 ]
}
# job: "generation suspend" of the Job.
job() {
	curl -fs "$URL/apis/batch/v1/namespaces/default/jobs/train" |
		$PY -c 'import json,sys; j=json.load(sys.stdin)
print(j["metadata"]["generation"], j["spec"].get("suspend"))'
}
list_rv() {
	curl -fs "$URL/api/v1/pods" |
		$PY -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])'
}
count() { # collection path: the number of items
	curl -fs "$URL$1" |
		$PY -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))'
}
# The queued plain pod, with its queue's label and no PodGroup.
solo='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"solo","namespace":"default","labels":{"kueue.x-k8s.io/queue-name":"main"}},"spec":{"containers":[{"name":"c","image":"registry.example.com/t:1","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}}'
# quota: "cpu-in-use admitted-workloads admitted-cpu solo-workload" of
# ClusterQueue main: its status's flavorsUsage and admittedWorkloads, the
# cpu of the Workloads with an admission, and the admitted Workload owned
# by the pod solo ("-": none).
quota() {
	curl -fs -o "$TMP/cq.json" "$URL/apis/kueue.x-k8s.io/v1beta2/clusterqueues/main" &&
		curl -fs -o "$TMP/wl.json" "$URL/apis/kueue.x-k8s.io/v1beta2/workloads" &&
		$PY - "$TMP/cq.json" "$TMP/wl.json" <<'EOF2'
import json, sys
def cpu(q):
    return float(q[:-1]) / 1000 if q.endswith("m") else float(q)
cq = json.load(open(sys.argv[1]))
wls = json.load(open(sys.argv[2]))["items"]
used = sum(cpu(r["total"]) for f in cq["status"].get("flavorsUsage", [])
           for r in f["resources"] if r["name"] == "cpu")
adm = [w for w in wls if w.get("status", {}).get("admission")]
wcpu = sum(cpu(a["resourceUsage"].get("cpu", "0")) for w in adm
           for a in w["status"]["admission"]["podSetAssignments"])
solo = [w["metadata"]["name"] for w in adm
        if any(r["kind"] == "Pod" and r["name"] == "solo"
               for r in w["metadata"].get("ownerReferences", []))]
print("%g %s %g %s" % (used, cq["status"].get("admittedWorkloads"), wcpu,
                      solo[0] if solo else "-"))
EOF2
}
solo_node() {
	curl -fs "$URL/api/v1/namespaces/default/pods/solo" |
		$PY -c 'import json,sys; p=json.load(sys.stdin)
print(p["spec"].get("nodeName", "-"), p["metadata"]["uid"])'
}
solo_bound() {
	[ "$(solo_node | cut -d' ' -f1)" != "-" ]
}
quota_settled() { # the Job's 16 cpus and solo's 1, in two Workloads
	[ "$(quota | cut -d' ' -f1-3)" = "17 2 17" ]
}

start_serve "$@"
until_ok 30 running || fail "the gang does not run: $(pods)"
printf '%s' "$solo" | curl -fs -o /dev/null -H 'Content-Type: application/json' \
	--data-binary @- "$URL/api/v1/namespaces/default/pods" ||
	fail "cannot create the queued pod"
until_ok 30 solo_bound || fail "the queued pod is not bound"
until_ok 10 quota_settled || true # checked just below, with the figures
pods >"$TMP/before"
solo1=$(solo_node)
quota1=$(quota)
case $quota1 in
"17 2 17 pod-solo-"?????) ;;
*) fail "before the restart: ClusterQueue cpu, admitted, Workloads' cpu, solo's Workload: $quota1" ;;
esac
job1=$(job)
rv1=$(list_rv)
stop_serve

start_serve "$@"
grep -q 'msg="state loaded".*fresh=false.*created=0 updated=0 ' "$TMP/serve.log" ||
	fail "restart: $(grep 'state loaded' "$TMP/serve.log")"
# Give the controllers a few turns to act (wrongly) on the restart.
sleep 1
pods >"$TMP/after"
diff "$TMP/before" "$TMP/after" >&2 ||
	fail "the running pods changed across the restart"
[ "$(solo_node)" = "$solo1" ] ||
	fail "the queued pod moved: $solo1 -> $(solo_node)"
[ "$(quota)" = "$quota1" ] ||
	fail "the queue's usage changed across the restart: $quota1 -> $(quota)"
[ "$(job)" = "$job1" ] || fail "the Job changed: $job1 -> $(job)"
rv2=$(list_rv)
[ "$rv2" -ge "$rv1" ] || fail "resourceVersion went back: $rv1 -> $rv2"
[ "$(count /apis/batch/v1/jobs)" -eq 1 ] || fail "Jobs duplicated"
[ "$(count /apis/kueue.x-k8s.io/v1beta2/workloads)" -eq 2 ] ||
	fail "Workloads duplicated"
[ "$(count /api/v1/nodes)" -eq 3 ] || fail "nodes duplicated"
# A new write gets a larger resourceVersion than any before the stop.
curl -fs -X PATCH -H 'Content-Type: application/merge-patch+json' \
	-d '{"metadata":{"labels":{"after":"restart"}}}' \
	"$URL/api/v1/namespaces/default/pods/$(head -n 1 "$TMP/after" | cut -d' ' -f1)" \
	>"$TMP/patched" || fail "patch after the restart"
rv3=$($PY -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["resourceVersion"])' \
	<"$TMP/patched")
[ "$rv3" -gt "$rv2" ] || fail "resourceVersion $rv3 after $rv2"
stop_serve
echo "ok"

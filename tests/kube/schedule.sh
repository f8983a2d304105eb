#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# echelon schedules the pods of a Kubernetes cluster: `echelon serve
# --no-schedule` is the cluster (API server, Job controller, kubelets),
# a separate `echelon serve --kubeconfig` its scheduler. Jobs and a
# scheduler-plugins PodGroup are submitted with kubectl, Kueue's queues
# applied to the cluster; the assertions are on what the CLUSTER shows:
# whole gangs bound (a topology-constrained one inside one rack),
# PodScheduled True, or False with WaitingForQuota for a gang beyond the
# queue's quota, Events, the Workload's admission and topologyAssignment,
# the PodGroup's status, a Job completed by the cluster's kubelets. A pod
# of another scheduler is never touched, the scheduler's own API is
# read-only, and a restarted scheduler adopts what the cluster records:
# nothing rebound, the quota used the same; -f objects of kinds the
# cluster serves are refused. Prints the time from start to synced and to
# the first bind.
. "$(dirname "$0")/lib/kube.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"
D=$SRC/tests/kube/data

start_serve --no-schedule --cluster blocks=1,racks=2,hosts=2,gpus=8 \
	--speed 10
CLUSTER=$URL
out=$(K apply -f "$D/queues.yaml" 2>&1) || fail "apply queues: $out"
# A short Job, pending before any scheduler runs.
out=$(K apply -f "$D/quick.yaml" 2>&1) || fail "apply quick: $out"

t0=$(now_ms)
start_scheduler a
t_synced=$(now_ms)
A=$SPID
# The pending Job's pods bound, first thing.
until_ok 30 bound batch.kubernetes.io/job-name%3Dquick 2 ||
	fail "quick not bound: $(pods_of batch.kubernetes.io/job-name%3Dquick)"
t_bind=$(now_ms)
grep -q "msg=\"connected\" server=\"$CLUSTER\" version=" \
	"$TMP/sched-a.log" || fail "no connected line"
grep -q 'msg="synced" objects=' "$TMP/sched-a.log" || fail "no synced line"
until_ok 20 grep -q 'msg="leader elected"' "$TMP/sched-a.log" ||
	fail "scheduler a was not elected"

# The scheduler's API is a read-only view of the cluster.
n=$(curl -fs "$SURL/api/v1/nodes" | $PY -c \
	'import json,sys; print(len(json.load(sys.stdin)["items"]))') ||
	fail "list nodes from the scheduler"
[ "$n" -eq 4 ] || fail "the scheduler's replica has $n nodes, not 4"
code=$(curl -s -o "$TMP/405.json" -w '%{http_code}' -X POST \
	-H 'Content-Type: application/json' -d '{"metadata":{"name":"x"}}' \
	"$SURL/api/v1/namespaces/default/configmaps")
[ "$code" = 405 ] || fail "a write to the scheduler got $code, not 405"
grep -q "read-only view of the cluster at $CLUSTER" "$TMP/405.json" ||
	fail "405 without its reason: $(cat "$TMP/405.json")"
curl -fs "$SURL/metrics" >"$TMP/metrics" || fail "no /metrics"
for m in echelon_leader echelon_kube_reflector echelon_kube_client \
	echelon_kube_writes; do
	grep -q "^$m" "$TMP/metrics" || fail "/metrics has no $m"
done

# The short Job run and completed by the cluster.
out=$(K wait --for=condition=Complete job/quick --timeout=60s 2>&1) ||
	fail "quick did not complete: $out"

# -f objects of kinds the cluster serves are the cluster's: refused, and
# the daemon stops (status 1) once it knows what the cluster serves.
rc=0
timeout 30 "$ECHELON" serve --kubeconfig "$KUBECONFIG" --id refused \
	--listen 127.0.0.1:0 -f "$D/queues.yaml" 2>"$TMP/refused.log" || rc=$?
[ "$rc" -eq 1 ] || fail "-f of served kinds: status $rc, not 1"
grep -q "queues.yaml:3:1: ClusterQueue main: the cluster serves clusterqueues: apply it to the cluster" \
	"$TMP/refused.log" || fail "-f refused without its reason: $(cat "$TMP/refused.log")"

t_apply=$(now_ms)
out=$(K apply -f "$D/jobs.yaml" -f "$D/podgroup.yaml" 2>&1) ||
	fail "apply jobs: $out"
until_ok 30 bound batch.kubernetes.io/job-name%3Dtrain 2 ||
	fail "train not bound: $(pods_of batch.kubernetes.io/job-name%3Dtrain)"
t_train=$(now_ms)
until_ok 30 bound scheduling.x-k8s.io/pod-group%3Dpg 2 ||
	fail "pg not bound: $(pods_of scheduling.x-k8s.io/pod-group%3Dpg)"
for sel in batch.kubernetes.io/job-name%3Dtrain \
	scheduling.x-k8s.io/pod-group%3Dpg; do
	pods_of $sel | grep -v ' True ' && fail "$sel: PodScheduled not True"
done
# train asked for one rack: both its nodes carry the same rack label.
racks=$(pods_of batch.kubernetes.io/job-name%3Dtrain | while read -r _ node _; do
	get "/api/v1/nodes/$node" \
		'j["metadata"]["labels"]["cloud.provider.com/topology-rack"]'
done | sort -u | grep -c .)
[ "$racks" -eq 1 ] || fail "train spans $racks racks"

# big is beyond the queue's quota: waiting, and saying why.
waiting() {
	out=$(pods_of batch.kubernetes.io/job-name%3Dbig)
	[ "$(printf '%s\n' "$out" | grep -c ' - False WaitingForQuota ')" -eq 2 ]
}
until_ok 30 waiting ||
	fail "big: $(pods_of batch.kubernetes.io/job-name%3Dbig)"
# A pod made after its gang's reason was written says it too: one of
# big's pods deleted, the cluster's Job controller makes it again.
big_uids() {
	get "/api/v1/namespaces/default/pods?labelSelector=batch.kubernetes.io/job-name%3Dbig" \
		'" ".join(sorted(p["metadata"]["uid"] for p in j["items"]
    if not p["metadata"].get("deletionTimestamp")))'
}
uids=$(big_uids)
victim=$(pods_of batch.kubernetes.io/job-name%3Dbig | head -n 1 | cut -d' ' -f1)
out=$(K delete pod "$victim" 2>&1) || fail "delete $victim: $out"
remade() {
	now=$(big_uids)
	[ "$now" != "$uids" ] && [ "$(echo "$now" | wc -w)" -eq 2 ] && waiting
}
until_ok 30 remade ||
	fail "big's new pod: $(pods_of batch.kubernetes.io/job-name%3Dbig)"

# Events the cluster has: Scheduled for bound pods, FailedScheduling for
# the waiting gang.
events() {
	get /api/v1/namespaces/default/events '"\n".join(sorted(
    e["reason"] + " " + e["involvedObject"]["kind"] + "/" +
    e["involvedObject"]["name"] for e in j["items"]))'
}
has_event() { events | grep -q "^$1 $2\$"; }
until_ok 10 has_event Scheduled Pod/pg-0 || fail "no Scheduled event: $(events)"
until_ok 10 has_event FailedScheduling Job/big ||
	fail "no FailedScheduling event for big: $(events)"

# train's Workload in the cluster: admitted, with a topology assignment.
wl() {
	get "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads" \
		'"\n".join(" ".join([w["metadata"]["ownerReferences"][0]["name"]] +
    sorted(c["type"] for c in w.get("status", {}).get("conditions", [])
           if c["status"] == "True") +
    ["tas" if any("topologyAssignment" in a
                  for a in w.get("status", {}).get("admission", {})
                                         .get("podSetAssignments", []))
     else "notas"])
    for w in j["items"] if w["metadata"].get("ownerReferences"))'
}
admitted() { wl | grep -q "^train .*Admitted.*QuotaReserved.* tas$"; }
until_ok 10 admitted || fail "train's Workload: $(wl)"
pg_phase() {
	get /apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups/pg \
		'j.get("status", {}).get("phase", "-")'
}
pg_running() { pg_phase | grep -q 'Running\|Scheduled'; }
until_ok 10 pg_running || fail "PodGroup pg's phase: $(pg_phase)"

# Another scheduler's pod: no node, no condition, no Event from echelon.
out=$(get /api/v1/namespaces/default/pods/other \
	'[j["spec"].get("nodeName"), j["status"].get("conditions")]')
[ "$out" = "[None, None]" ] || fail "the other scheduler's pod was touched: $out"
events | grep -q '/other$' && fail "an Event about the other pod"

# No gang was evicted for a bind timeout: all of them were bound whole
# at once (a gang running while the scheduler thinks it partly bound
# would be).
timeouts() {
	get /api/v1/namespaces/default/events '"\n".join(
    e["involvedObject"]["name"] + ": " + e.get("message", "")
    for e in j["items"] if "BindTimeout" in e.get("message", ""))'
}
[ -z "$(timeouts)" ] || fail "evicted for a bind timeout: $(timeouts)"

# A restart adopts: nothing rebound, the queue's usage the same.
snapshot() {
	get "/api/v1/namespaces/default/pods" '"\n".join(sorted(
    p["metadata"]["name"] + " " + p["metadata"]["uid"] + " " +
    (p["spec"].get("nodeName") or "-") for p in j["items"]))'
	get /apis/kueue.x-k8s.io/v1beta2/clusterqueues/main \
		'json.dumps(j.get("status", {}).get("flavorsReservation"), sort_keys=True)'
	events | grep -c '^Scheduled '
}
snapshot >"$TMP/before"
stop_scheduler "$A"
grep -q 'msg="stopped"' "$TMP/sched-a.log" || fail "a did not say stopped"
start_scheduler b
until_ok 20 grep -q 'msg="leader elected"' "$TMP/sched-b.log" ||
	fail "scheduler b was not elected"
sleep 2
snapshot >"$TMP/after"
diff "$TMP/before" "$TMP/after" >"$TMP/diff" ||
	fail "the restart changed the cluster: $(cat "$TMP/diff")"
waiting || fail "big after the restart: $(pods_of batch.kubernetes.io/job-name%3Dbig)"
[ -z "$(timeouts)" ] || fail "evicted for a bind timeout: $(timeouts)"
stop_scheduler "$SPID"

echo "figures (loaded machine, 0.2 s polls): scheduler start to synced" \
	"$((t_synced - t0)) ms, to a pending Job's pods bound" \
	"$((t_bind - t0)) ms; Jobs applied to train's gang bound" \
	"$((t_train - t_apply)) ms"

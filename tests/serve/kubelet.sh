#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The embedded cluster as kubectl sees a real one, at --speed 60: a Job's
# pod template carries the API server's pod defaults; kubectl describe
# shows the kubelet's Events (Pulling, Pulled, Created, Started, and
# Killing for a pod deleted while it runs) and the node's Lease; and no
# timestamp is ahead of the wall clock, so no age prints "<invalid>",
# before and after a restart. --no-pod-start needs --no-schedule.
. "$(dirname "$0")/lib/common.sh"

KC=$(kubectls | head -n 1)
[ -n "$KC" ] || skip "no kubectl (scripts/setup-clients.sh installs one)"
K() { "$KC" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache" \
	--request-timeout=20s "$@"; }
expect() { # what output
	printf '%s\n' "$2" | grep -q -- "$1" || fail "no \"$1\" in: $2"
}
valid() { # what output: no age kubectl could not print
	printf '%s\n' "$2" | grep -q '<invalid>' &&
		fail "$1 prints <invalid>: $2"
	return 0
}
# Every timestamp of every object of these collections is at or before
# the wall clock (1 s of slack for rounding).
not_ahead() {
	for path in "$@"; do
		curl -fs "$URL$path" >"$TMP/list.json" || fail "GET $path"
		$PY - "$TMP/list.json" <<'EOF2' || fail "$path: a time ahead of the wall clock"
import datetime, json, sys, time
now = time.time() + 1
def walk(v, at):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, at + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (at, i))
    elif isinstance(v, str) and len(v) >= 20 and v[4] == "-" and v[10] == "T" and v.endswith("Z"):
        t = datetime.datetime.strptime(v[:19], "%Y-%m-%dT%H:%M:%S")
        t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
        if t > now:
            sys.exit("%s = %s is %.0f s ahead" % (at, v, t - now))
for item in json.load(open(sys.argv[1]))["items"]:
    walk(item, item["metadata"]["name"])
EOF2
	done
}

set -- --cluster blocks=1,racks=1,hosts=2,gpus=8 --speed 60 \
	-f "$SRC/tests/serve/data/queues.yaml"
start_serve "$@"

out=$(K apply -f "$SRC/tests/serve/data/job.yaml" 2>&1) || fail "apply: $out"
out=$(K wait --for=condition=Complete job/train --timeout=30s 2>&1) ||
	fail "wait: $out"

# The template is defaulted as a Pod's spec.
out=$(K get job train -o jsonpath='{.spec.template.spec.dnsPolicy} {.spec.template.spec.schedulerName} {.spec.template.spec.terminationGracePeriodSeconds} {.spec.template.spec.restartPolicy} {.spec.template.spec.containers[0].terminationMessagePath} {.spec.template.spec.containers[0].terminationMessagePolicy} {.spec.template.spec.containers[0].imagePullPolicy}') ||
	fail "get job: $out"
[ "$out" = "ClusterFirst default-scheduler 30 Never /dev/termination-log File Always" ] ||
	fail "template defaults: $out"
K get job train -o yaml | grep -q '^      securityContext: {}$' ||
	fail "no securityContext {} in the template"

pod=$(K get pods -l job-name=train -o name | head -n 1)
[ -n "$pod" ] || fail "no pod of the Job"
out=$(K describe "$pod" 2>&1) || fail "describe pod: $out"
valid "describe pod" "$out"
expect 'Pulling .* kubelet .*Pulling image "registry.example.com/trainer:latest"' "$out"
expect 'Pulled .* kubelet .*Successfully pulled image' "$out"
expect 'Created .* kubelet .*Created container: trainer' "$out"
expect 'Started .* kubelet .*Started container trainer' "$out"
node=$(K get "$pod" -o jsonpath='{.spec.nodeName}')
out=$(K describe node "$node" 2>&1) || fail "describe node: $out"
valid "describe node" "$out"
printf '%s\n' "$out" | grep -q 'Failed to get lease' &&
	fail "describe node: $out"
expect "HolderIdentity: *$node" "$out"
expect 'AcquireTime:' "$out"
expect 'RenewTime: .*[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' "$out"
out=$(K get lease -n kube-node-lease "$node" -o jsonpath='{.spec.leaseDurationSeconds} {.metadata.ownerReferences[0].kind}') ||
	fail "get lease: $out"
[ "$out" = "40 Node" ] || fail "lease: $out"
for what in "describe job train" "describe workloads" "get events" \
	"get pods" "get jobs"; do
	# shellcheck disable=SC2086
	out=$(K $what 2>&1) || fail "$what: $out"
	valid "$what" "$out"
done
# The events.k8s.io view of the kubelet's Events.
curl -fs "$URL/apis/events.k8s.io/v1/namespaces/default/events" |
	$PY -c 'import json,sys
ev = [e for e in json.load(sys.stdin)["items"] if e.get("reportingController") == "kubelet"]
assert ev, "no kubelet Event"
for e in ev:
    assert e["reportingInstance"] == e["deprecatedSource"]["host"], e
    assert e["regarding"]["fieldPath"].startswith("spec.containers{"), e
' || fail "events.k8s.io/v1: the kubelet's Events"

# A pod deleted while it runs: the kubelet stops its container.
cat >"$TMP/pod.yaml" <<'EOF2'
apiVersion: v1
kind: Pod
metadata:
  name: long
  annotations: {sim.echelon.dev/duration: 24h}
spec:
  containers:
  - {name: main, image: busybox:1.36}
EOF2
out=$(K apply -f "$TMP/pod.yaml" 2>&1) || fail "apply pod: $out"
out=$(K wait --for=condition=Ready pod/long --timeout=30s 2>&1) ||
	fail "wait pod: $out"
out=$(K delete pod long --wait=true 2>&1) || fail "delete pod: $out"
out=$(K get events --field-selector involvedObject.name=long 2>&1) ||
	fail "get events: $out"
expect 'Killing .*Stopping container main' "$out"
not_ahead /api/v1/pods /api/v1/events /apis/batch/v1/jobs \
	/apis/kueue.x-k8s.io/v1beta2/workloads \
	/apis/coordination.k8s.io/v1/leases /api/v1/nodes

# After a restart the stamps go on from the wall clock.
stop_serve
sleep 1
start_serve "$@"
out=$(K describe "$pod" 2>&1) || fail "describe pod after restart: $out"
valid "describe pod after restart" "$out"
expect 'Started .* kubelet' "$out"
out=$(K describe node "$node" 2>&1) ||
	fail "describe node after restart: $out"
valid "describe node after restart" "$out"
sed 's/name: long/name: again/' "$TMP/pod.yaml" >"$TMP/pod2.yaml"
out=$(K apply -f "$TMP/pod2.yaml" 2>&1) || fail "apply pod: $out"
out=$(K wait --for=condition=Ready pod/again --timeout=30s 2>&1) ||
	fail "wait pod after restart: $out"
out=$(K get events 2>&1) || fail "get events after restart: $out"
valid "get events after restart" "$out"
not_ahead /api/v1/pods /api/v1/events /apis/coordination.k8s.io/v1/leases
stop_serve

# --no-pod-start is for an external scheduler's benchmarks: refused with
# the embedded scheduler, which waits for its pods to start.
out=$("$ECHELON" serve --no-pod-start 2>&1) && fail "--no-pod-start alone ran"
expect "no-pod-start needs --no-schedule" "$out"
echo "ok"

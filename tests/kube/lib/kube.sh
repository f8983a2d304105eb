# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/kube/*.sh: sh SCRIPT ECHELON SOURCE_DIR CLIENTS_DIR.
# The cluster is `echelon serve --no-schedule` (tests/serve/lib/common.sh's
# start_serve: SERVE_PID, URL, its kubeconfig in $KUBECONFIG, its log in
# $TMP/serve.log); schedulers are `echelon serve --kubeconfig` on other
# free ports of 127.0.0.1 (start_scheduler), each killed at the end.
. "$(dirname "$0")/../serve/lib/common.sh"

SCHED_PIDS=""
kube_cleanup() {
	for p in $SCHED_PIDS; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	cleanup
}
trap kube_cleanup EXIT INT TERM

# Show the schedulers' logs too when a test fails.
fail() {
	echo "FAIL: $*" >&2
	: >"$TMP/.failed"
	for f in "$TMP"/serve.log "$TMP"/sched-*.log; do
		[ -f "$f" ] || continue
		echo "--- $(basename "$f") (last 30 lines)" >&2
		tail -n 30 "$f" >&2
	done
	exit 1
}

# The newest kubectl this machine has (KC), and K to run it on the cluster.
KC=$(kubectls | head -n 1)
[ -n "$KC" ] || skip "no kubectl (scripts/setup-clients.sh installs one)"
K() { "$KC" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache" \
	--request-timeout=20s "$@"; }

# now_ms: the wall clock in milliseconds.
now_ms() { $PY -c 'import time; print(int(time.time() * 1000))'; }

# start_scheduler NAME [options...]: `echelon serve --kubeconfig` on the
# cluster, log in $TMP/sched-NAME.log; waits (bounded) until /readyz says
# its replica is synced. Sets SPID (added to SCHED_PIDS) and SURL.
start_scheduler() {
	name=$1
	shift
	: >"$TMP/sched-$name.log"
	"$ECHELON" serve --kubeconfig "$KUBECONFIG" --listen 127.0.0.1:0 \
		--id "$name" "$@" 2>>"$TMP/sched-$name.log" &
	SPID=$!
	SCHED_PIDS="$SCHED_PIDS $SPID"
	listening_port "$SPID" "$TMP/sched-$name.log"
	SURL=http://127.0.0.1:$PORT
	wait_ready "$SPID" "$SURL" "scheduler $name"
}

# stop_scheduler PID: SIGTERM; it must exit 0 within 10 s.
stop_scheduler() {
	kill -TERM "$1"
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "scheduler $1 still running 10 s after SIGTERM"
		sleep 0.1
	done
	rc=0
	wait "$1" || rc=$?
	SCHED_PIDS=$(echo "$SCHED_PIDS" | sed "s/ $1\$//; s/ $1 / /")
	[ "$rc" -eq 0 ] || fail "scheduler exited with $rc after SIGTERM"
}

# get PATH [PYTHON]: GET PATH from the cluster as JSON and print what the
# Python expression (of j, the reply) gives; the whole reply without one.
get() {
	curl -fs "$URL$1" | $PY -c "import json, sys
j = json.load(sys.stdin)
print(${2:-json.dumps(j)})"
}

# pods_of SELECTOR: "name node PodScheduled-status reason phase" of the
# pods of namespace default with the label selector, by name.
pods_of() {
	get "/api/v1/namespaces/default/pods?labelSelector=$1" '"\n".join(
    " ".join([p["metadata"]["name"], p["spec"].get("nodeName") or "-"] +
             next(([c["status"], c.get("reason") or "-"]
                   for c in p["status"].get("conditions", [])
                   if c["type"] == "PodScheduled"), ["-", "-"]) +
             [p["status"].get("phase") or "-"])
    for p in sorted(j["items"], key=lambda p: p["metadata"]["name"]))'
}

# bound SELECTOR N: exactly N pods, every one on a node.
bound() {
	out=$(pods_of "$1") || return 1
	[ "$(printf '%s\n' "$out" | grep -c .)" -eq "$2" ] &&
		! printf '%s\n' "$out" | grep -q '^[^ ]* - '
}

# queues GPUS: tests/kube/data/queues.yaml (ClusterQueue main, LocalQueue
# default/main) with a GPU quota of GPUS, into $TMP/queues.yaml.
queues() {
	sed "s/nvidia.com\/gpu, nominalQuota: \"[0-9]*\"/nvidia.com\/gpu, nominalQuota: \"$1\"/" \
		"$SRC/tests/kube/data/queues.yaml" >"$TMP/queues.yaml"
	grep -q "nominalQuota: \"$1\"" "$TMP/queues.yaml" ||
		fail "queues: no GPU quota in tests/kube/data/queues.yaml"
}

# pod_spec INDENT: a pod spec of scheduler echelon, one container of 2
# GPUs, its lines indented by INDENT.
pod_spec() {
	sed "s/^/$1/" <<YAML
schedulerName: echelon
restartPolicy: Never
containers:
- name: c
  image: registry.example.com/step:latest
  resources:
    requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "2"}
    limits: {nvidia.com/gpu: "2"}
YAML
}

# pod_group NAME PODS DURATION: a scheduler-plugins PodGroup NAME of
# LocalQueue default/main with PODS pods NAME-0.. of 2 GPUs each, each
# running DURATION of the cluster's clock, as YAML on stdout.
pod_group() {
	cat <<YAML
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: $1
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: main}
spec: {minMember: $2}
YAML
	i=0
	while [ "$i" -lt "$2" ]; do
		cat <<YAML
---
apiVersion: v1
kind: Pod
metadata:
  name: $1-$i
  namespace: default
  labels: {scheduling.x-k8s.io/pod-group: $1, kueue.x-k8s.io/queue-name: main}
  annotations: {sim.echelon.dev/duration: $3}
spec:
$(pod_spec "  ")
YAML
		i=$((i + 1))
	done
}

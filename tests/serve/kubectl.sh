#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `echelon serve` driven by every kubectl this machine has: get (Table,
# -o wide|yaml|json), apply client-side and server-side, wait, describe,
# label, cordon, -w, delete, get --raw of Kueue's visibility API. The
# newest kubectl runs everything; the others run what they all share.
. "$(dirname "$0")/lib/common.sh"

list=$(kubectls)
[ -n "$list" ] || skip "no kubectl (scripts/setup-clients.sh installs one)"
start_serve --cluster blocks=1,racks=2,hosts=2,gpus=8 \
	-f "$SRC/tests/serve/data/queues.yaml" --speed 60

K() { "$KC" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache-$V" \
	--request-timeout=20s "$@"; }
expect() { # what output
	printf '%s\n' "$2" | grep -q -- "$1" || fail "$V: no \"$1\" in: $2"
}

basic() {
	out=$(K get nodes 2>&1) || fail "$V get nodes: $out"
	expect "NAME" "$out"
	expect "Ready" "$out"
	[ "$(printf '%s\n' "$out" | grep -c Ready)" -eq 4 ] ||
		fail "$V: 4 nodes expected: $out"
	out=$(K get nodes -o json) || fail "$V get nodes -o json"
	n=$(printf '%s' "$out" | $PY -c \
		'import json,sys; print(len(json.load(sys.stdin)["items"]))')
	[ "$n" -eq 4 ] || fail "$V: -o json has $n nodes"
	out=$(K get clusterqueues 2>&1) || fail "$V get clusterqueues: $out"
	expect "main" "$out"
	out=$(K get localqueues -A 2>&1) || fail "$V get localqueues: $out"
	expect "default" "$out"
	out=$(K get namespaces 2>&1) || fail "$V get namespaces: $out"
	expect "kube-system" "$out"
	out=$(K get pods 2>&1) || fail "$V get pods: $out"
	out=$(K get pod nope 2>&1) && fail "$V: a missing pod was found"
	expect "NotFound\|not found" "$out"
}

full() {
	node=$(K get nodes -o jsonpath='{.items[0].metadata.name}') ||
		fail "$V: jsonpath"
	out=$(K get nodes -o wide 2>&1) || fail "$V get -o wide: $out"
	out=$(K get node "$node" -o yaml 2>&1) || fail "$V -o yaml: $out"
	expect "kind: Node" "$out"
	# -w sees a change made while it watches (bounded by timeout).
	timeout 10 "$KC" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache-$V" \
		get jobs -w >"$TMP/watch.out" 2>&1 &
	wpid=$!
	sleep 1
	out=$(K apply -f "$SRC/tests/serve/data/job.yaml" 2>&1) ||
		fail "$V apply: $out"
	expect "job.batch/train created" "$out"
	out=$(K apply -f "$SRC/tests/serve/data/job.yaml" 2>&1) ||
		fail "$V apply again: $out"
	expect "unchanged\|configured" "$out"
	out=$(K wait --for=condition=Complete job/train --timeout=60s 2>&1) ||
		fail "$V wait: $out"
	expect "condition met" "$out"
	wait "$wpid" 2>/dev/null
	grep -q train "$TMP/watch.out" ||
		fail "$V get -w saw nothing: $(cat "$TMP/watch.out")"
	out=$(K get workloads -o wide 2>&1) || fail "$V get workloads: $out"
	expect "main" "$out"
	out=$(K get pods -o wide 2>&1) || fail "$V get pods -o wide: $out"
	expect "Completed\|Succeeded" "$out"
	out=$(K describe job train 2>&1) || fail "$V describe: $out"
	expect "Name: *train" "$out"
	# The server's defaults: a generated selector and the pods' labels.
	expect "Selector: *batch.kubernetes.io/controller-uid=" "$out"
	out=$(K get job train -o wide 2>&1) || fail "$V get job -o wide: $out"
	expect "batch.kubernetes.io/controller-uid=" "$out"
	out=$(K get pods -l job-name=train -o name 2>&1) ||
		fail "$V get pods -l job-name: $out"
	[ "$(printf '%s\n' "$out" | grep -c pod/)" -eq 2 ] ||
		fail "$V: 2 pods labelled job-name=train expected: $out"
	out=$(K describe node "$node" 2>&1) || fail "$V describe node: $out"
	out=$(K label node "$node" echelon.dev/test=yes 2>&1) ||
		fail "$V label: $out"
	out=$(K get nodes -l echelon.dev/test=yes -o name 2>&1) ||
		fail "$V get -l: $out"
	[ "$out" = "node/$node" ] || fail "$V get -l: $out"
	out=$(K cordon "$node" 2>&1) || fail "$V cordon: $out"
	[ "$(K get node "$node" -o jsonpath='{.spec.unschedulable}')" = true ] ||
		fail "$V: cordon did not stick"
	K uncordon "$node" >/dev/null 2>&1 || fail "$V uncordon"
	cat >"$TMP/pc.yaml" <<EOT
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: ssa-$VN
value: 1000
EOT
	out=$(K apply --server-side -f "$TMP/pc.yaml" 2>&1) ||
		fail "$V apply --server-side: $out"
	expect "serverside-applied" "$out"
	out=$(K get --raw \
		/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/main/pendingworkloads \
		2>&1) || fail "$V get --raw: $out"
	expect "PendingWorkloadsSummary" "$out"
	out=$(K delete job train 2>&1) || fail "$V delete: $out"
	expect "deleted" "$out"
	K get job train >/dev/null 2>&1 && fail "$V: the job is still there"
	return 0
}

first=1
for KC in $list; do
	V=$("$KC" version --client 2>/dev/null | sed -n \
		's/.*Client Version: \(v[0-9][0-9.]*\).*/\1/p;s/.*GitVersion:"\(v[0-9][0-9.]*\)".*/\1/p' |
		head -n 1)
	VN=$(echo "$V" | tr -cd '0-9')
	echo "== kubectl $V ($KC)"
	basic
	if [ $first -eq 1 ]; then
		full
		first=0
	fi
done
stop_serve
echo "ok"

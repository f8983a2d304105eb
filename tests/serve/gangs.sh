#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The gang dialects through the real kubectl: Kubernetes' own PodGroup
# (scheduling.k8s.io/v1beta1, pods naming it in spec.schedulingGroup) is
# bound whole once its quorum exists, its Table and condition show it;
# a pod that asks for what echelon cannot honour is never bound and says
# why (PodScheduled SchedulerError naming the field).
. "$(dirname "$0")/lib/common.sh"

KC=$(kubectls | head -n 1)
[ -n "$KC" ] || skip "no kubectl (scripts/setup-clients.sh installs one)"
start_serve --cluster blocks=1,racks=2,hosts=2,gpus=8 \
	-f "$SRC/tests/serve/data/queues.yaml"

K() { "$KC" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache" \
	--request-timeout=20s "$@"; }

pod() { # name podgroup [more spec, YAML at 2 spaces]
	cat <<EOF2
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: main}
spec:
  schedulingGroup: {podGroupName: $2}
${3:-}
  containers:
  - name: t
    image: trainer
    resources: {requests: {cpu: "8", nvidia.com/gpu: "8"}}
---
EOF2
}

bound() { # pod
	[ -n "$(K get pod "$1" -o jsonpath='{.spec.nodeName}')" ]
}

cat >"$TMP/pg.yaml" <<'EOF2'
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: llama
  labels: {kueue.x-k8s.io/queue-name: main}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
  schedulingConstraints:
    topology: [{key: topology-rack}]
EOF2
out=$(K apply -f "$TMP/pg.yaml" 2>&1) || fail "apply PodGroup: $out"
pod llama-0 llama >"$TMP/p0.yaml"
out=$(K apply -f "$TMP/p0.yaml" 2>&1) || fail "apply pod: $out"
sleep 1
bound llama-0 && fail "a pod bound before its gang's quorum"
pod llama-1 llama >"$TMP/p1.yaml"
out=$(K apply -f "$TMP/p1.yaml" 2>&1) || fail "apply pod: $out"
until_ok 20 bound llama-0 || fail "llama-0 not bound"
until_ok 5 bound llama-1 || fail "llama-1 not bound"
n0=$(K get pod llama-0 -o jsonpath='{.spec.nodeName}')
n1=$(K get pod llama-1 -o jsonpath='{.spec.nodeName}')
[ "$n0" != "$n1" ] || fail "two pods of 8 GPUs on $n0"
r0=$(K get node "$n0" -o jsonpath='{.metadata.labels.topology-rack}')
r1=$(K get node "$n1" -o jsonpath='{.metadata.labels.topology-rack}')
[ "$r0" = "$r1" ] || fail "the gang spans racks $r0 and $r1"
scheduled() {
	[ "$(K get podgroups.scheduling.k8s.io llama -o \
		jsonpath='{.status.conditions[?(@.type=="PodGroupInitiallyScheduled")].status}')" = True ]
}
until_ok 10 scheduled || fail "no PodGroupInitiallyScheduled=True: \
$(K get podgroups.scheduling.k8s.io llama -o yaml 2>&1)"
out=$(K get podgroups.scheduling.k8s.io 2>&1) || fail "get: $out"
printf '%s\n' "$out" | grep -q 'llama *2 *topology-rack *True' ||
	fail "Table: $out"

# topology spread: never bound, and told why
pod spread spreadgroup '  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology-rack, whenUnsatisfiable: DoNotSchedule, labelSelector: {}}' \
	>"$TMP/spread.yaml"
out=$(K apply -f "$TMP/spread.yaml" 2>&1) || fail "apply spread: $out"
reason() {
	[ "$(K get pod spread -o \
		jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')" = SchedulerError ]
}
until_ok 10 reason || fail "no SchedulerError: $(K get pod spread -o yaml)"
out=$(K describe pod spread 2>&1) || fail "describe: $out"
printf '%s\n' "$out" |
	grep -q 'spec.topologySpreadConstraints is not supported by echelon' ||
	fail "describe does not say why: $out"
bound spread && fail "the spread pod was bound"
echo "gangs ok"

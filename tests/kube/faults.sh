#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# echelon under seeded API faults: the cluster (`echelon serve
# --no-schedule --faults ...`) fails bindings and status writes with
# 409/404/429/500, ends watches with 410, drops connections and answers
# late; the scheduler (`echelon serve --kubeconfig`) schedules Jobs and
# PodGroups whose demand is more than twice the ClusterQueue's quota.
# tests/kube/lib/gangs.py watches the cluster: no gang partly bound
# longer than 30 s, no pod bound twice (the cluster logs each binding),
# the quota never exceeded by bound pods, and every gang finished in the
# end. FAULT_SEED=N replays another seed.
. "$(dirname "$0")/lib/kube.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"
SEED=${FAULT_SEED:-7}
FAULTS="seed=$SEED,bind=0.2:409|404|429|500,status=0.05:500|409"
FAULTS="$FAULTS,write=0.02:409|500,watch410=0.02,drop=0.01,slow=0.05:200"

# 32 GPUs; the queue has 16; 6 Jobs and 3 PodGroups of 2 pods of 2 GPUs
# ask for 36, each running 3 s of the cluster's clock.
start_serve --no-schedule --cluster blocks=1,racks=2,hosts=2,gpus=8 \
	--speed 10 --faults "$FAULTS"
queues 16
container='      containers:
      - name: c
        image: registry.example.com/step:latest
        resources:
          requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "2"}
          limits: {nvidia.com/gpu: "2"}'
for i in 0 1 2 3 4 5; do
	cat <<EOF
---
apiVersion: batch/v1
kind: Job
metadata:
  name: j$i
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: main}
  annotations: {sim.echelon.dev/duration: 3s}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      schedulerName: echelon
      restartPolicy: Never
$container
EOF
done >"$TMP/jobs.yaml"
for g in 0 1 2; do
	pod_group "g$g" 2 3s
done >"$TMP/podgroups.yaml"
# kubectl meets the faults too: apply (idempotent) until it gets through.
for f in queues jobs podgroups; do
	until_ok 60 K apply -f "$TMP/$f.yaml" ||
		fail "apply $f: $(K apply -f "$TMP/$f.yaml" 2>&1)"
done

# The PodGroups' pods as applied: the checker plays their operator and
# makes again those the scheduler deletes, even before its first look.
until_ok 30 curl -fs "$URL/api/v1/namespaces/default/pods" -o "$TMP/pods.json" ||
	fail "no pod list"
start_scheduler a
out=$($PY "$SRC/tests/kube/lib/gangs.py" "$URL" --gangs 9 --bound 30 \
	--timeout 180 --log "$TMP/serve.log" --pods "$TMP/pods.json" 2>&1) ||
	fail "$out"
echo "$out"

# The faults did happen, and the scheduler met them.
curl -fs "$URL/metrics" >"$TMP/metrics" || fail "no /metrics"
injected() {
	grep "^echelon_faults_injected_total{class=\"$1\"" "$TMP/metrics" |
		awk '{ n += $2 } END { print n + 0 }'
}
for c in bind status watch; do
	echo "injected $c: $(injected "$c")"
done
[ "$(injected bind)" -gt 0 ] || fail "no binding fault was injected"
echo "ok (seed $SEED)"

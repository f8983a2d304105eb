#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A restart (SIGTERM, then the same --data and -f files) keeps a running
# gang running: the same pods (uids), still bound and Running, the Job
# neither suspended nor changed (generation), no object duplicated, and
# resourceVersions keep increasing.
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

start_serve "$@"
until_ok 30 running || fail "the gang does not run: $(pods)"
pods >"$TMP/before"
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
[ "$(job)" = "$job1" ] || fail "the Job changed: $job1 -> $(job)"
rv2=$(list_rv)
[ "$rv2" -ge "$rv1" ] || fail "resourceVersion went back: $rv1 -> $rv2"
[ "$(count /apis/batch/v1/jobs)" -eq 1 ] || fail "Jobs duplicated"
[ "$(count /apis/kueue.x-k8s.io/v1beta2/workloads)" -eq 1 ] ||
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

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Bad input over HTTP, with curl: malformed JSON and YAML, deep nesting,
# huge strings, a 4 MiB body, wrong types, unknown fields under Strict
# validation, invalid names, a wrong Content-Type and a stale
# resourceVersion. Each gets Kubernetes' Status (code, reason, and for
# 422 a cause naming the field), and none of them writes anything: the
# store's resourceVersion and the target object stay as they were.
. "$(dirname "$0")/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"
start_serve --cluster blocks=1,racks=1,hosts=1,gpus=8 --no-schedule

pods=$URL/api/v1/namespaces/default/pods
jobs=$URL/apis/batch/v1/namespaces/default/jobs
cqs=$URL/apis/kueue.x-k8s.io/v1beta2/clusterqueues
pod() { # name [metadata extra] [spec extra]
	printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"%s},' \
		"$1" "${2:-}"
	printf '"spec":{%s"containers":[{"name":"c","image":"i"}]}}' "${3:-}"
}
json_get() { # python expression over the JSON document d on stdin
	$PY -c "import json,sys; d=json.load(sys.stdin); print($1)"
}
store_rv() {
	curl -fs "$URL/api/v1/namespaces/default/pods" |
		json_get 'd["metadata"]["resourceVersion"]'
}
target() { # the target pod as "resourceVersion labels"
	curl -fs "$pods/target" |
		json_get 'd["metadata"]["resourceVersion"], d["metadata"].get("labels")'
}

# The object that updates aim at.
pod target ',"labels":{"keep":"yes"}' >"$TMP/target.json"
curl -fs -X POST -H 'Content-Type: application/json' \
	--data-binary @"$TMP/target.json" "$pods" >/dev/null ||
	fail "the target pod was not created"
rv0=$(store_rv)
target0=$(target)

# expect CODE REASON FIELD METHOD URL CONTENT-TYPE BODY-FILE: the reply is
# a Status with CODE and REASON; FIELD (unless empty) is a cause's field
# for 422, or in the message for 400.
n=0
expect() {
	n=$((n + 1))
	code=$(curl -s -o "$TMP/reply" -w '%{http_code}' -X "$4" \
		-H "Content-Type: $6" -H 'Expect:' --data-binary @"$7" "$5")
	[ "$code" = "$1" ] ||
		fail "case $n ($4 $5): $code, not $1: $(head -c 400 "$TMP/reply")"
	got=$(json_get 'd["kind"], d["code"], d["reason"]' <"$TMP/reply") ||
		fail "case $n: not JSON: $(head -c 400 "$TMP/reply")"
	[ "$got" = "Status $1 $2" ] ||
		fail "case $n: $got, not Status $1 $2: $(head -c 400 "$TMP/reply")"
	[ -n "$3" ] || return 0
	if [ "$1" = 422 ]; then
		json_get '[c["field"] for c in d["details"]["causes"]]' \
			<"$TMP/reply" | grep -qF "'$3'" ||
			fail "case $n: no cause for $3: $(head -c 400 "$TMP/reply")"
	else
		json_get 'd["message"]' <"$TMP/reply" | grep -qF -- "$3" ||
			fail "case $n: no $3 in: $(head -c 400 "$TMP/reply")"
	fi
}
body() { # file: the rest of the arguments, as the body
	f=$TMP/body.$1
	shift
	printf '%s' "$*" >"$f"
	echo "$f"
}
J=application/json
Y=application/yaml
M=application/merge-patch+json

# Malformed JSON and YAML.
expect 400 BadRequest "not valid JSON" POST "$pods" $J \
	"$(body 1 '{"apiVersion":"v1",')"
expect 400 BadRequest "not valid YAML" POST "$pods" $Y \
	"$(body 2 'apiVersion: v1
kind: Pod
metadata: [
')"
expect 400 BadRequest "empty" POST "$pods" $J "$(body 3 '')"
expect 400 BadRequest "" POST "$pods" $J "$(body 4 '[]')"
expect 400 BadRequest "not valid JSON" PATCH "$pods/target" $M \
	"$(body 5 '{"metadata":{"labels":{"keep":"no"}}')"
# Deep nesting: 100,000 levels of lists, and 80 inside an object.
$PY -c 'print("[" * 100000 + "]" * 100000)' >"$TMP/deep1"
expect 400 BadRequest "nests deeper" POST "$pods" $J "$TMP/deep1"
$PY -c 'print("{\"metadata\":{\"name\":\"deep\",\"annotations\":" +
	"{\"a\":" * 80 + "1" + "}" * 80 + "}}")' >"$TMP/deep2"
expect 400 BadRequest "nests deeper" POST "$pods" $J "$TMP/deep2"
$PY -c 'print("metadata:\n  labels: " + "[" * 1000 + "]" * 1000)' \
	>"$TMP/deep3"
expect 400 BadRequest "" PATCH "$pods/target" \
	application/strategic-merge-patch+json "$TMP/deep3"
# A huge name (2 MB, under the body limit) and a 4 MiB body.
$PY -c 'print("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":" +
	"{\"name\":\"" + "x" * 2000000 + "\"},\"spec\":{\"containers\":" +
	"[{\"name\":\"c\",\"image\":\"i\"}]}}")' >"$TMP/huge"
expect 422 Invalid metadata.name POST "$pods" $J "$TMP/huge"
$PY -c 'print("{\"metadata\":{\"annotations\":{\"a\":\"" +
	"x" * (4 << 20) + "\"}}}")' >"$TMP/big"
expect 413 RequestEntityTooLarge "" POST "$pods" $J "$TMP/big"
expect 413 RequestEntityTooLarge "" PATCH "$pods/target" $M "$TMP/big"
# A client that sends a body over the limit without waiting for "100
# Continue" (Go's, so kubectl's) can send it whole and reads the 413: the
# connection is not closed under it (which resets it, losing the 413).
PORT=$PORT $PY - <<'EOT' || fail "a body sent whole: no 413"
import os, socket, sys, time
body = b'{"metadata":{"annotations":{"a":"' + b"x" * (4 << 20) + b'"}}}'
s = socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), 10)
s.sendall(b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
          b"Connection: close\r\nContent-Type: application/json\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body))
time.sleep(0.2)  # the headers are seen before the body comes
try:
    for i in range(0, len(body), 65536):
        s.sendall(body[i:i + 65536])
    reply = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        reply += b
except OSError as e:
    sys.exit("the body could not be sent whole: %s" % e)
if not reply.startswith(b"HTTP/1.1 413 "):
    sys.exit("no 413: %r" % reply[:200])
EOT
# Wrong types: found while decoding (400), as Kubernetes does.
expect 400 BadRequest "spec.containers: must be a list" POST "$pods" $J \
	"$(body 6 '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"t"},' \
		'"spec":{"containers":"no"}}')"
expect 400 BadRequest 'metadata.labels["a"]: must be a string' POST \
	"$pods" $J "$(body 7 "$(pod t ',"labels":{"a":5}')")"
expect 400 BadRequest "spec.containers: must be a list" PATCH \
	"$pods/target" $M "$(body 8 '{"spec":{"containers":"no"}}')"
# Unknown fields under Strict: 400 naming every one by its path.
expect 400 BadRequest 'unknown field "spec.bogus"' POST \
	"$pods?fieldValidation=Strict" $J "$(body 9 "$(pod t '' '"bogus":1,')")"
expect 400 BadRequest 'unknown field "metadata.labelz"' PATCH \
	"$pods/target?fieldValidation=Strict" $M \
	"$(body 10 '{"metadata":{"labelz":{"keep":"no"}}}')"
# Invalid values: 422 with one cause per field.
expect 422 Invalid metadata.name POST "$pods" $J "$(body 11 "$(pod Bad_Name)")"
expect 422 Invalid 'metadata.labels["bad key!"]' PATCH "$pods/target" $M \
	"$(body 12 '{"metadata":{"labels":{"bad key!":"v","keep":"no"}}}')"
expect 422 Invalid spec.parallelism POST "$jobs" $J "$(body 13 \
	'{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},' \
	'"spec":{"parallelism":-1,"template":{"spec":{"restartPolicy":' \
	'"Never","containers":[{"name":"c","image":"i"}]}}}}')"
expect 422 Invalid 'spec.resourceGroups[0].flavors[0].resources[0].nominalQuota' \
	POST "$cqs" $J "$(body 14 \
	'{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue",' \
	'"metadata":{"name":"cq"},"spec":{"resourceGroups":[{' \
	'"coveredResources":["cpu"],"flavors":[{"name":"f","resources":' \
	'[{"name":"cpu","nominalQuota":"-5"}]}]}]}}')"
# A wrong Content-Type: 415, for a create and for a patch.
expect 415 UnsupportedMediaType "" POST "$pods" text/plain \
	"$(body 15 "$(pod t)")"
expect 415 UnsupportedMediaType "" PATCH "$pods/target" $J \
	"$(body 16 '{"metadata":{"labels":{"keep":"no"}}}')"
# Stale and malformed resourceVersions: 409 Conflict, 400.
expect 409 Conflict "" PUT "$pods/target" $J \
	"$(body 17 "$(pod target ',"resourceVersion":"1","labels":{"keep":"no"}')")"
expect 409 Conflict "" PATCH "$pods/target" $M \
	"$(body 18 '{"metadata":{"resourceVersion":"1","labels":{"keep":"no"}}}')"
expect 400 BadRequest "resourceVersion" PUT "$pods/target" $J \
	"$(body 19 "$(pod target ',"resourceVersion":"x","labels":{"keep":"no"}')")"
# A name or namespace other than the URL's, and a missing namespace.
expect 400 BadRequest "does not match" PUT "$pods/target" $J \
	"$(body 20 "$(pod other)")"
expect 400 BadRequest "namespace" POST "$pods" $J "$(body 21 \
	"$(pod t ',"namespace":"kube-system"')")"
expect 404 NotFound "" POST "$URL/api/v1/namespaces/nowhere/pods" $J \
	"$(body 22 "$(pod t)")"
# Warn validation accepts an unknown field with Kubernetes' warning, which
# names the field's path (a dry run: nothing stored).
code=$(curl -s -D "$TMP/headers" -o "$TMP/reply" -w '%{http_code}' -X POST \
	-H "Content-Type: $J" --data-binary @"$(body 23 "$(pod t '' '"bogus":1,')")" \
	"$pods?fieldValidation=Warn&dryRun=All")
[ "$code" = 201 ] || fail "Warn: $code: $(head -c 400 "$TMP/reply")"
grep -qF 'Warning: 299 - "unknown field \"spec.bogus\""' "$TMP/headers" ||
	fail "Warn: $(grep -i '^warning' "$TMP/headers")"

# Nothing was written: not the target, not anything else but the node's
# kubelet renewing its Lease (every 10 s): each resourceVersion since
# rv0 (one per write) is a Lease's.
[ "$(target)" = "$target0" ] || fail "the target changed: $(target)"
rv1=$(store_rv)
renewals=$(curl -fs "$URL/apis/coordination.k8s.io/v1/leases?watch=1&resourceVersion=$rv0&timeoutSeconds=1" |
	$PY -c 'import json,sys
print(sum(1 for l in sys.stdin if l.strip() and
          int(json.loads(l)["object"]["metadata"]["resourceVersion"]) <= '"$rv1"'))')
[ $((rv1 - rv0)) -eq "$renewals" ] ||
	fail "resourceVersion $rv0 -> $rv1, $renewals of it Lease renewals"
# and the daemon still serves.
curl -fs "$URL/readyz" >/dev/null || fail "not ready after $n cases"
stop_serve
echo "ok: $n cases"

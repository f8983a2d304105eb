#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `echelon serve --faults` as clients see it (curl): injected replies are
# Kubernetes Status bodies and apply nothing, a 429 carries Retry-After,
# a watch ends with ERROR 410 Expired or is cut mid-stream, connections
# close without a reply, slow replies do not hold up other requests,
# each successful binding is logged, and /metrics counts what was
# injected. A bad SPEC is refused with the bad item named.
. "$(dirname "$0")/lib/common.sh"

CLUSTER=blocks=1,racks=1,hosts=4,gpus=8
api=/api/v1/namespaces/default
pod='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"NAME"},
"spec":{"schedulerName":"echelon","containers":[{"name":"c",
"image":"busybox","resources":{"requests":{"cpu":"1"}}}]}}'
binding='{"apiVersion":"v1","kind":"Binding","metadata":{"name":"NAME"},
"target":{"apiVersion":"v1","kind":"Node","name":"NODE"}}'

# req METHOD PATH [BODY [CONTENT-TYPE]]: the reply in $TMP/out, the code
# printed.
req() {
	curl -s -o "$TMP/out" -w '%{http_code}' -X "$1" \
		-H "Content-Type: ${4:-application/json}" \
		${3:+--data-binary "$3"} "$URL$2"
}
json() { # EXPR: evaluate EXPR over the reply as o
	$PY -c "import json,sys; o=json.load(open('$TMP/out')); print($1)"
}
create_pod() {
	code=$(req POST "$api/pods" "$(echo "$pod" | sed "s/NAME/$1/")")
	[ "$code" = 201 ] || fail "create pod $1: $code $(cat "$TMP/out")"
}
first_node() {
	code=$(req GET /api/v1/nodes)
	[ "$code" = 200 ] || fail "list nodes: $code"
	json "o['items'][0]['metadata']['name']"
}
bind_body() { echo "$binding" | sed "s/NAME/$1/; s/NODE/$2/"; }
# bind_bg POD NODE FORMAT: POST the binding in the background (bind_pid),
# its reply in $TMP/bind.out and curl's -w FORMAT in $TMP/bind.code.
bind_bg() {
	curl -s -o "$TMP/bind.out" -w "$3" -X POST \
		-H 'Content-Type: application/json' \
		--data-binary "$(bind_body "$1" "$2")" \
		"$URL$api/pods/$1/binding" >"$TMP/bind.code" &
	bind_pid=$!
}

# A bad SPEC: exit 2, the item named.
rc=0
"$ECHELON" serve --faults 'seed=1,bind=2:409' --data "$TMP/bad" \
	2>"$TMP/err" || rc=$?
[ "$rc" = 2 ] || fail "bad --faults: exit $rc"
grep -q 'item "bind=2:409": the probability must be a number from 0 to 1' \
	"$TMP/err" || fail "bad --faults: $(cat "$TMP/err")"

# 1. Bindings and status writes always fail; watches expire at once.
start_serve --cluster $CLUSTER --no-schedule \
	--faults 'seed=5,bind=1:409|404,status=1:429,write=0:500,watch410=1:0'
node=$(first_node)
create_pod p1
code=$(req POST "$api/pods/p1/binding" "$(bind_body p1 "$node")")
case $code in
409) [ "$(json "o['reason']")" = Conflict ] || fail "409: $(cat "$TMP/out")" ;;
404) [ "$(json "o['reason']")" = NotFound ] || fail "404: $(cat "$TMP/out")" ;;
*) fail "injected binding: $code $(cat "$TMP/out")" ;;
esac
code=$(req GET "$api/pods/p1")
[ "$code" = 200 ] || fail "get p1: $code"
[ "$(json "o['spec'].get('nodeName', '')")" = "" ] ||
	fail "a refused binding was applied"
hdr=$(curl -s -D - -o "$TMP/out" -X PATCH \
	-H 'Content-Type: application/merge-patch+json' \
	--data-binary '{"status":{"message":"x"}}' "$URL$api/pods/p1/status")
echo "$hdr" | grep -q '^HTTP/1.1 429' || fail "status write: $hdr"
echo "$hdr" | grep -qi '^Retry-After: 1' || fail "429 without Retry-After"
[ "$(json "o['reason']")" = TooManyRequests ] || fail "429: $(cat "$TMP/out")"
code=$(req GET "$api/pods/p1")
[ "$(json "o['status'].get('message', '')")" = "" ] ||
	fail "a refused status write was applied"
curl -s --max-time 10 "$URL$api/pods?watch=true&resourceVersion=0" \
	>"$TMP/watch" || fail "expired watch: curl $?"
[ "$(wc -l <"$TMP/watch")" = 1 ] || fail "expired watch: $(cat "$TMP/watch")"
grep -q '"type":"ERROR".*"reason":"Expired".*"code":410' "$TMP/watch" ||
	fail "expired watch: $(cat "$TMP/watch")"
curl -s "$URL/metrics" >"$TMP/metrics"
grep -q '^echelon_faults_injected_total{class="status",code="429"} 1$' \
	"$TMP/metrics" || fail "metrics: $(grep faults "$TMP/metrics")"
grep -q '^echelon_faults_injected_total{class="watch",code="410"} 1$' \
	"$TMP/metrics" || fail "metrics: $(grep faults "$TMP/metrics")"
grep -q '^echelon_faults_injected_total{class="write",code="500"} 0$' \
	"$TMP/metrics" || fail "metrics: $(grep faults "$TMP/metrics")"
grep -q '^echelon_faults_bindings_total 0$' "$TMP/metrics" ||
	fail "metrics: $(grep faults "$TMP/metrics")"
stop_serve

# 2. Every connection is dropped; a watch after 0 to 2 of its 4 initial
# events. /readyz and /metrics are never faulted.
start_serve --cluster $CLUSTER --no-schedule --faults 'seed=9,drop=1:2'
rc=0
curl -s --max-time 10 "$URL/api/v1/nodes" >/dev/null || rc=$?
[ "$rc" = 52 ] || fail "dropped request: curl exit $rc, want 52 (empty reply)"
for i in 1 2 3; do
	rc=0
	curl -s -N --max-time 10 \
		"$URL/api/v1/nodes?watch=true&resourceVersion=0" \
		>"$TMP/watch" || rc=$?
	[ "$rc" = 18 ] || [ "$rc" = 56 ] ||
		fail "cut watch: curl exit $rc, want 18 or 56"
	n=$(grep -c '"type":"ADDED"' "$TMP/watch")
	[ "$n" -le 2 ] || fail "cut watch sent $n events"
done
curl -sf "$URL/metrics" | grep -q \
	'^echelon_faults_injected_total{class="watch",code="drop"} 3$' ||
	fail "drop metrics"
stop_serve

# 3. Slow replies: a binding answered after 400 ms (and applied), other
# requests meanwhile at once; the binding is logged.
start_serve --cluster $CLUSTER --no-schedule --faults 'seed=2,slow=1:400'
node=$(first_node)
create_pod p2
bind_bg p2 "$node" '%{http_code} %{time_total}'
sleep 0.1
t=$(curl -s -o /dev/null -w '%{time_total}' "$URL/readyz")
$PY -c "import sys; sys.exit(0 if float('$t') < 0.3 else 1)" ||
	fail "a slow reply held up another request ($t s)"
wait $bind_pid
set -- $(cat "$TMP/bind.code")
[ "$1" = 201 ] || fail "slow binding: $1 $(cat "$TMP/bind.out")"
$PY -c "import sys; sys.exit(0 if float('$2') >= 0.4 else 1)" ||
	fail "slow binding answered after $2 s"
code=$(req GET "$api/pods/p2")
[ "$(json "o['spec'].get('nodeName', '')")" = "$node" ] ||
	fail "slow binding not applied"
grep -q "faults: bound pod=default/p2 node=$node uid=-" "$TMP/serve.log" ||
	fail "binding not logged"
curl -sf "$URL/metrics" | grep -q '^echelon_faults_bindings_total 1$' ||
	fail "bindings metric"
stop_serve

# 4. SIGTERM while a binding is held back longer than the stop drains
# (5 s): the daemon exits 0 (it aborted in libmicrohttpd when the binding
# came due after its last commit and was held for a commit that never
# came), and the client gets a 503 for what was never applied.
start_serve --cluster $CLUSTER --no-schedule --faults 'seed=2,slow=1:7000:bind'
node=$(first_node)
create_pod p3
bind_bg p3 "$node" '%{http_code}'
sleep 0.5
stop_serve
wait $bind_pid
[ "$(cat "$TMP/bind.code")" = 503 ] ||
	fail "a binding held at stop: $(cat "$TMP/bind.code") $(cat "$TMP/bind.out")"
grep -q "shutting down" "$TMP/bind.out" || fail "503: $(cat "$TMP/bind.out")"
echo "ok"

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The command itself, with curl only: option errors, an invalid -f file
# refused at start with file:line:col, SIGTERM exits 0, a restart over
# the same --data applies the -f files again without duplicating or
# refusing them, health, metrics, 404/413 Status replies, logfmt logs.
. "$(dirname "$0")/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"

# Usage errors: exit 2, one line naming the option.
for args in "--listen nowhere" "--speed 0" "--speed x" "--sync sometimes" \
	"--seed -1" "-f -" "extra"; do
	# shellcheck disable=SC2086
	rc=0
	out=$("$ECHELON" serve $args 2>&1) || rc=$?
	[ "$rc" -eq 2 ] || fail "serve $args: exit $rc: $out"
	echo "$out" | grep -q "^echelon serve: " || fail "serve $args: $out"
done
"$ECHELON" serve --help | grep -q -- "--write-kubeconfig" ||
	fail "serve --help"
"$ECHELON" help serve | grep -q -- "--no-schedule" || fail "help serve"

# An invalid manifest stops the start, with its position.
cat >"$TMP/bad.yaml" <<'EOT'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: bad
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: "-5"}
EOT
rc=0
"$ECHELON" serve --listen 127.0.0.1:0 --data "$TMP/bad" -f "$TMP/bad.yaml" \
	>"$TMP/bad.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "an invalid file: exit $rc: $(cat "$TMP/bad.out")"
grep -q "bad.yaml:[0-9]*:[0-9]*: " "$TMP/bad.out" ||
	fail "no file:line:col: $(cat "$TMP/bad.out")"

q=$SRC/tests/serve/data/queues.yaml
start_serve --cluster blocks=1,racks=1,hosts=2,gpus=8 -f "$q"
grep -q '^ts=[0-9T:.-]*Z level=info msg="ready"' "$TMP/serve.log" ||
	fail "no logfmt ready line"
for p in healthz readyz livez; do
	[ "$(curl -fs "$URL/$p")" = ok ] || fail "/$p"
done
curl -fs "$URL/api/v1/namespaces/default/pods/none" >/dev/null &&
	fail "a missing pod was found"
code=$(curl -s -o "$TMP/r" -w '%{http_code}' "$URL/api/v1/nodes/none")
[ "$code" = 404 ] || fail "404 expected, got $code"
grep -q '"kind":"Status"' "$TMP/r" || fail "no Status: $(cat "$TMP/r")"
head -c 4000000 /dev/zero | tr '\0' x >"$TMP/big"
code=$(curl -s -o "$TMP/r" -w '%{http_code}' -H 'Content-Type: application/json' \
	--data-binary @"$TMP/big" "$URL/api/v1/namespaces/default/pods")
[ "$code" = 413 ] || fail "413 expected, got $code"
curl -fs "$URL/metrics" >"$TMP/metrics" || fail "/metrics"
grep -q '^echelon_serve_requests_total{verb="GET",code="404"} [1-9]' \
	"$TMP/metrics" || fail "request counters: $(head -20 "$TMP/metrics")"
grep -q '^echelon_serve_refused_total{reason="body"} 1' "$TMP/metrics" ||
	fail "refusal counters"
rv1=$(curl -fs "$URL/apis/kueue.x-k8s.io/v1beta2/clusterqueues/main" |
	$PY -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])')
stop_serve
grep -q 'msg="stopped"' "$TMP/serve.log" || fail "no stopped line"

# A restart with the same files: nothing duplicated, nothing refused.
start_serve --cluster blocks=1,racks=1,hosts=2,gpus=8 -f "$q"
grep -q 'msg="state loaded".*fresh=false.*created=0 ' "$TMP/serve.log" ||
	fail "restart: $(grep 'state loaded' "$TMP/serve.log")"
rv2=$(curl -fs "$URL/apis/kueue.x-k8s.io/v1beta2/clusterqueues/main" |
	$PY -c 'import json,sys; print(json.load(sys.stdin)["metadata"]["uid"])')
[ "$rv1" = "$rv2" ] || fail "the ClusterQueue was made again: $rv1 $rv2"
n=$(curl -fs "$URL/api/v1/nodes" |
	$PY -c 'import json,sys; print(len(json.load(sys.stdin)["items"]))')
[ "$n" -eq 2 ] || fail "$n nodes after a restart"
stop_serve
echo "ok"

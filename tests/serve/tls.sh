#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Beyond loopback: TLS with a self-signed certificate and a bearer token,
# made on first start mode 0600 and put in the written kubeconfig, which
# kubectl then uses as is. The test listens on 0.0.0.0 (not loopback)
# and connects through 127.0.0.1, which the certificate names.
. "$(dirname "$0")/lib/common.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"
: >"$TMP/serve.log"
"$ECHELON" serve --listen 0.0.0.0:0 --data "$TMP/data" \
	--write-kubeconfig "$KUBECONFIG" \
	--cluster blocks=1,racks=1,hosts=1,gpus=8 2>>"$TMP/serve.log" &
SERVE_PID=$!
i=0
PORT=""
while [ -z "$PORT" ] && [ $i -lt 300 ]; do
	kill -0 "$SERVE_PID" 2>/dev/null || fail "serve exited at start"
	PORT=$(sed -n 's/.*msg="listening" addr=[^ ]*:\([0-9]*\) .*/\1/p' \
		"$TMP/serve.log")
	[ -n "$PORT" ] || sleep 0.1
	i=$((i + 1))
done
[ -n "$PORT" ] || fail "no port"
grep -q 'tls=true token=required' "$TMP/serve.log" || fail "not TLS"
for f in token tls.crt tls.key; do
	[ "$(stat -c %a "$TMP/data/$f")" = 600 ] || fail "$f is not 0600"
done
[ "$(stat -c %a "$KUBECONFIG")" = 600 ] || fail "kubeconfig is not 0600"
TOKEN=$(cat "$TMP/data/token")
URL=https://127.0.0.1:$PORT
C="curl -s --cacert $TMP/data/tls.crt"
i=0
until $C -f -H "Authorization: Bearer $TOKEN" "$URL/readyz" >/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "no /readyz over TLS"
	sleep 0.1
done
# Plain HTTP is not served; no token or a wrong one is 401.
curl -s "http://127.0.0.1:$PORT/readyz" | grep -q ok && fail "plain HTTP"
code=$($C -o "$TMP/r" -w '%{http_code}' "$URL/api/v1/nodes")
[ "$code" = 401 ] || fail "no token: $code"
grep -q '"reason":"Unauthorized"' "$TMP/r" || fail "401 body: $(cat "$TMP/r")"
code=$($C -o /dev/null -w '%{http_code}' -H "Authorization: Bearer x$TOKEN" \
	"$URL/api/v1/nodes")
[ "$code" = 401 ] || fail "wrong token: $code"
code=$($C -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
	"$URL/api/v1/nodes")
[ "$code" = 200 ] || fail "right token: $code"
grep -q "token: $TOKEN" "$KUBECONFIG" || fail "no token in the kubeconfig"
grep -q "certificate-authority-data: " "$KUBECONFIG" || fail "no CA data"
KC=$(kubectls | head -n 1)
if [ -n "$KC" ]; then
	out=$("$KC" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache" \
		get nodes 2>&1) || fail "kubectl over TLS: $out"
	echo "$out" | grep -q Ready || fail "kubectl over TLS: $out"
else
	echo "no kubectl: the kubeconfig is checked with curl only"
fi
kill -TERM "$SERVE_PID"
wait "$SERVE_PID" || fail "exit status after SIGTERM"
SERVE_PID=""
echo "ok"

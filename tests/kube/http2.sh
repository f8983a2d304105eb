#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The scheduler over HTTP/2, as it talks to a real API server: `echelon
# serve --no-schedule` (HTTP/1.1) behind nghttpx, TLS with ALPN h2 on its
# front (a CA and certificate made here), and a scheduler replica whose
# kubeconfig names the proxy. nghttpx's access log (ALPN, client port,
# user agent of each request) shows that every request of the replica was
# HTTP/2 over one connection; a Job pending before the start is bound (list
# and binds; the first two answered 429, tried again after Retry-After),
# Jobs applied after the sync are bound within seconds (their pods came
# through watches that stream through h2, not buffered until the watch's
# end minutes later), and after the proxy reloads (GOAWAY on the
# old connection, its streams closed a second later) the replica opens a
# new connection, watches again and binds new pods. The same steps
# through the same proxy offering only http/1.1 give the comparison.
#
# HTTP2_BENCH=N (not in ctest): N single pods created before a replica
# starts, bound over h2 and then over HTTP/1.1 through the same proxy;
# prints binds per second for each. HTTP2_BENCH_QPS=X sets the replica's
# --kube-qps and --kube-burst (default: its own, 200 and 400).
. "$(dirname "$0")/lib/kube.sh"

command -v curl >/dev/null 2>&1 || skip "no curl"
command -v openssl >/dev/null 2>&1 || skip "no openssl"
command -v nghttpx >/dev/null 2>&1 ||
	skip "no nghttpx (scripts/setup-clients.sh installs nghttp2-proxy)"
D=$SRC/tests/kube/data
BENCH=${HTTP2_BENCH:-0}
QPS=${HTTP2_BENCH_QPS:+--kube-qps $HTTP2_BENCH_QPS --kube-burst $HTTP2_BENCH_QPS}

PROXY_PID=""
proxy_cleanup() {
	rc=$?
	# A failure shows the proxy's logs too.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
		for f in access.log nghttpx.log; do
			[ -f "$TMP/$f" ] || continue
			echo "--- $f (last 30 lines)" >&2
			tail -n 30 "$TMP/$f" >&2
		done
	fi
	if [ -n "$PROXY_PID" ]; then
		kill -9 "$PROXY_PID" 2>/dev/null
		wait "$PROXY_PID" 2>/dev/null
	fi
	kube_cleanup
}
trap proxy_cleanup EXIT INT TERM

# A throwaway CA and a certificate for 127.0.0.1 signed by it.
certs() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$TMP/ca.key" -out "$TMP/ca.crt" -days 1 \
		-subj /CN=echelon-test-ca &&
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-keyout "$TMP/tls.key" -out "$TMP/tls.csr" \
			-subj /CN=127.0.0.1 &&
		printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' \
			>"$TMP/san.ext" &&
		openssl x509 -req -in "$TMP/tls.csr" -CA "$TMP/ca.crt" \
			-CAkey "$TMP/ca.key" -CAcreateserial -days 1 \
			-extfile "$TMP/san.ext" -out "$TMP/tls.crt"
}
certs >"$TMP/openssl.log" 2>&1 || fail "openssl: $(cat "$TMP/openssl.log")"

free_port() {
	$PY -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_proxy ALPN: nghttpx on a free port of 127.0.0.1 in front of the
# cluster ($BACKEND), offering the ALPN list (h2,http/1.1 or http/1.1);
# its access log in $TMP/access.log: "ALPN client-port status request
# user-agent time". Watches last minutes: no backend read timeout under them.
start_proxy() {
	PPORT=$(free_port)
	: >"$TMP/access.log"
	# shellcheck disable=SC2016 # nghttpx's variables, not the shell's
	nghttpx --frontend="127.0.0.1,$PPORT" --backend="127.0.0.1,$BACKEND" \
		--npn-list="$1" --no-ocsp --workers=1 \
		--backend-read-timeout=1h --frontend-read-timeout=1h \
		--worker-process-grace-shutdown-period=1 \
		--accesslog-file="$TMP/access.log" \
		--accesslog-format='$alpn $remote_port $status "$request" "$http_user_agent" $time_iso8601' \
		--errorlog-file="$TMP/nghttpx.log" --conf=/dev/null \
		"$TMP/tls.key" "$TMP/tls.crt" &
	PROXY_PID=$!
	PURL=https://127.0.0.1:$PPORT
	until_ok 10 curl -fs --cacert "$TMP/ca.crt" "$PURL/readyz" ||
		fail "nghttpx not answering: $(tail -n 5 "$TMP/nghttpx.log")"
	# The replica's kubeconfig: the proxy, verified against the CA.
	cat >"$TMP/kubeconfig-proxy" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster:
    server: $PURL
    certificate-authority: $TMP/ca.crt
users:
- name: echelon
  user: {}
contexts:
- name: proxy
  context: {cluster: proxy, user: echelon, namespace: default}
current-context: proxy
EOF
}

stop_proxy() {
	kill -TERM "$PROXY_PID"
	wait "$PROXY_PID" 2>/dev/null
	PROXY_PID=""
}

# replica NAME: start_scheduler with the proxy's kubeconfig.
replica() {
	direct=$KUBECONFIG
	KUBECONFIG=$TMP/kubeconfig-proxy
	start_scheduler "$@"
	KUBECONFIG=$direct
}

# mine: the access log's lines of the replicas' requests.
mine() { grep ' "echelon/[^"]*" [^ ]*$' "$TMP/access.log"; }

# Four nodes for the checks; for the benchmark room for its pods (110
# pods a node at most, as kubelets).
hosts=$((BENCH / 200 + 2))
# A fifth of the binds answered 429 with Retry-After: 1 (seeded; the
# draws are the binds' alone: with seed 2 the first two binds, quick's).
faults=seed=2,bind=0.2:429
[ "$BENCH" -eq 0 ] || faults=seed=1
start_serve --no-schedule --cluster "blocks=1,racks=2,hosts=$hosts,gpus=8" \
	--speed 10 --faults "$faults"
BACKEND=$PORT

# bench_pods N NAME: N single pods of 100m cpu, NAME-00000 on, labelled
# bench=NAME, in one kubectl apply.
bench_pods() {
	$PY -c 'import sys
for i in range(int(sys.argv[1])):
    print("---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%05d,"
          " labels: {bench: %s}}\nspec:\n  schedulerName: echelon\n"
          "  restartPolicy: Never\n  containers:\n  - name: c\n"
          "    image: registry.example.com/t:1\n"
          "    resources: {requests: {cpu: 100m, memory: 64Mi}}"
          % (sys.argv[2], i, sys.argv[2]))' "$1" "$2" >"$TMP/bench.yaml"
	out=$(K apply -f "$TMP/bench.yaml" 2>&1) || fail "apply bench pods: $out"
}

# bench ALPN: N pods bound by a replica through the proxy offering ALPN;
# prints the pods bound per second from the replica's start to the last
# bind, and from the first bind seen to the last (the cluster's pods
# polled every 20 ms).
bench() {
	start_proxy "$1"
	bench_pods "$BENCH" b
	rm -f "$TMP/polling"
	$PY - "$URL" "$BENCH" "$TMP/polling" >"$TMP/bench.out" <<'EOF' &
import json, sys, time, urllib.request
url = sys.argv[1] + "/api/v1/namespaces/default/pods?labelSelector=bench%3Db"
n, end, first = int(sys.argv[2]), time.time() + 120, None
while time.time() < end:
    pods = json.load(urllib.request.urlopen(url))["items"]
    open(sys.argv[3], "w").close()
    bound = sum(1 for p in pods if p["spec"].get("nodeName"))
    now = int(time.time() * 1000)
    first = first or (now if bound else None)
    if bound >= n:
        print(first, now)
        break
    time.sleep(0.02)
EOF
	poller=$!
	until_ok 10 test -f "$TMP/polling" || fail "the poller did not start"
	t0=$(now_ms)
	# shellcheck disable=SC2086 # options, split
	replica "bench-$(echo "$1" | tr -d ./)" $QPS
	wait "$poller"
	# shellcheck disable=SC2046 # the poller's two times
	set -- "$1" $(cat "$TMP/bench.out")
	[ $# -eq 3 ] || fail "bench over $1: not all bound in 120 s"
	set -- "$1" $(($3 - t0)) $(($3 - $2))
	stop_scheduler "$SPID"
	echo "bench over $1 (loaded machine): $BENCH pods bound $2 ms" \
		"after the replica's start ($((BENCH * 1000 / ($2 + 1)))/s)," \
		"first to last bind $3 ms ($((BENCH * 1000 / ($3 + 1)))/s)," \
		"$(mine | grep -c ' 201 "POST [^ ]*/binding ') binds over" \
		"$(mine | cut -d' ' -f2 | sort -u | grep -c .) connection(s)"
	stop_proxy
	out=$(K delete pods -l bench=b --wait=false 2>&1) ||
		fail "delete bench pods: $out"
	until_ok 60 bound bench%3Db 0 || fail "bench pods not deleted"
}

if [ "$BENCH" -gt 0 ]; then
	bench h2
	bench http/1.1
	exit 0
fi

# proxy_check ALPN: the steps over a proxy offering ALPN.
proxy_check() {
	start_proxy "$1"
	out=$(K apply -f "$D/queues.yaml" -f "$D/quick.yaml" 2>&1) ||
		fail "apply quick: $out"
	replica "a-$(echo "$1" | tr -d ./)"
	until_ok 30 bound batch.kubernetes.io/job-name%3Dquick 2 ||
		fail "$1: quick not bound: $(pods_of batch.kubernetes.io/job-name%3Dquick)"
	# Applied after the sync: only watches bring these pods.
	out=$(K apply -f "$D/jobs.yaml" 2>&1) || fail "apply jobs: $out"
	until_ok 30 bound batch.kubernetes.io/job-name%3Dtrain 2 ||
		fail "$1: train not bound: $(pods_of batch.kubernetes.io/job-name%3Dtrain)"
	mine | grep -q ' 200 "GET /api/v1/pods?limit=' ||
		fail "$1: no list of pods in the access log"
	mine | grep -q ' 201 "POST /api/v1/namespaces/default/pods/quick-[^/]*/binding ' ||
		fail "$1: no bind of quick in the access log"
	mine | grep -q ' 201 "POST /api/v1/namespaces/default/pods/train-[^/]*/binding ' ||
		fail "$1: no bind of train in the access log"
	others=$(mine | grep -v "^$1 ")
	[ -z "$others" ] || fail "requests not over $1: $others"
	# A bind answered 429 is tried again after the Retry-After header's
	# second (an h2 header, in lower case), not the first backoff's 100
	# to 150 ms: the median wait over half a second (single waits can
	# look shorter: nghttpx's clock is coarse, and the replica times a
	# reply read after a long scheduling pass from the pass's start).
	out=$(mine | $PY -c 'import re, sys, datetime
last, waits = {}, []
for l in sys.stdin:
    m = re.match(r"\S+ \d+ (\d+) \"POST (\S+/binding) .* (\S+)$", l)
    if not m:
        continue
    t = datetime.datetime.fromisoformat(m[3].replace("Z", "+00:00"))
    if m[2] in last:
        waits.append((t - last.pop(m[2])).total_seconds())
    if m[1] == "429":
        last[m[2]] = t
waits.sort()
print(len(waits), waits[len(waits) // 2] if waits else 0)') ||
		fail "$1: reading binds: $out"
	set -- "$1" $out
	[ "$2" -gt 0 ] || fail "$1: no bind answered 429 (the faults)"
	$PY -c "import sys; sys.exit($3 < 0.5)" ||
		fail "$1: binds tried again after a median $3 s after a 429 with Retry-After: 1"
	echo "$1: $2 binds tried again after a 429, after a median $3 s"
	conns=$(mine | cut -d' ' -f2 | sort -u | grep -c .)
	echo "$1: $(mine | wc -l) requests ended on $conns connection(s)"

	# A reload: the old worker sends GOAWAY and closes its connections a
	# second later (the watches with them); the new worker has a new one.
	before=$(mine | cut -d' ' -f2 | sort -u)
	kill -HUP "$PROXY_PID"
	sleep 2
	bench_pods 2 r
	until_ok 30 bound bench%3Dr 2 ||
		fail "$1: pods not bound after the reload: $(pods_of bench%3Dr)"
	mine | grep ' "POST /api/v1/namespaces/default/pods/r-[^/]*/binding ' |
		cut -d' ' -f2 | sort -u >"$TMP/r-conns"
	[ -s "$TMP/r-conns" ] || fail "$1: no bind after the reload in the log"
	printf '%s\n' "$before" | grep -qxf "$TMP/r-conns" &&
		fail "$1: a pod bound over a connection from before the reload"
	after=$(mine | cut -d' ' -f2 | sort -u | grep -cvxF "$before")
	echo "$1: after the reload, $after new connection(s)"
	stop_scheduler "$SPID"
	# Watches are logged when they end: the new connection's, now.
	mine | grep -q " 200 \"GET /api/v1/pods?watch=1&" ||
		fail "$1: no watch of pods in the access log"
	others=$(mine | grep -v "^$1 ")
	[ -z "$others" ] || fail "requests not over $1: $others"
	stop_proxy
	out=$(K delete -f "$D/quick.yaml" -f "$D/jobs.yaml" --wait=false \
		2>&1) || fail "delete: $out"
}

proxy_check h2
# One connection carries every request over h2, and one replaces it.
[ "$conns" -eq 1 ] || fail "h2: $conns connections, not 1"
[ "$after" -eq 1 ] || fail "h2: $after new connections after the reload, not 1"
grep -q "msg=\"connected\" server=\"$PURL\"" "$TMP/sched-a-h2.log" ||
	fail "no connected line"

# The same proxy offering only HTTP/1.1: binds work, none over h2.
start_proxy http/1.1
bench_pods 10 b
replica a-http11
until_ok 30 bound bench%3Db 10 || fail "http/1.1: bench pods not bound"
stop_scheduler "$SPID"
others=$(mine | grep -v '^http/1.1 ')
[ -z "$others" ] || fail "requests not over http/1.1: $others"
[ "$(mine | grep -c ' 201 "POST [^ ]*/pods/b-[0-9]*/binding ')" -eq 10 ] ||
	fail "http/1.1: not 10 binds in the access log"

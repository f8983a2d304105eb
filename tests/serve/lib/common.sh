# SPDX-License-Identifier: Apache-2.0
# Sourced by tests/serve/*.sh: sh SCRIPT ECHELON SOURCE_DIR CLIENTS_DIR.
# Starts `echelon serve` on 127.0.0.1 with a free port (the daemon picks
# it, --listen :0, and logs it) and a temporary --data, waits for /readyz
# with a bounded loop, and stops it at the end (trap). A client that is
# missing skips the test (exit 77) with a reason, or fails it with CI=true.
set -u
ECHELON=$1
SRC=$2
CLIENTS=${3:-$SRC/build/clients}
TMP=$(mktemp -d /tmp/echelon-serve-test.XXXXXX)
SERVE_PID=""
KUBECONFIG=$TMP/kubeconfig
export KUBECONFIG
PY=/usr/bin/python3

cleanup() {
	if [ -n "$SERVE_PID" ]; then
		kill -9 "$SERVE_PID" 2>/dev/null
		wait "$SERVE_PID" 2>/dev/null
	fi
	# ECHELON_TEST_KEEP=DIR: a failing test's files are moved there.
	if [ -n "${ECHELON_TEST_KEEP:-}" ] && [ -f "$TMP/.failed" ]; then
		mkdir -p "$ECHELON_TEST_KEEP" &&
			mv "$TMP" "$ECHELON_TEST_KEEP/" &&
			echo "kept in $ECHELON_TEST_KEEP/$(basename "$TMP")" >&2
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	: >"$TMP/.failed"
	if [ -f "$TMP/serve.log" ]; then
		echo "--- serve.log (last 30 lines)" >&2
		tail -n 30 "$TMP/serve.log" >&2
	fi
	exit 1
}

skip() {
	if [ "${CI:-}" = true ]; then
		fail "in CI nothing may be skipped: $*"
	fi
	echo "SKIP: $*"
	exit 77
}

# start_serve [serve options...]: data in $TMP/data, log in $TMP/serve.log;
# sets SERVE_PID, PORT, URL.
start_serve() {
	: >"$TMP/serve.log"
	"$ECHELON" serve --listen 127.0.0.1:0 --data "$TMP/data" \
		--write-kubeconfig "$KUBECONFIG" "$@" 2>>"$TMP/serve.log" &
	SERVE_PID=$!
	listening_port "$SERVE_PID" "$TMP/serve.log"
	URL=${URL_SCHEME:-http}://127.0.0.1:$PORT
	wait_ready "$SERVE_PID" "$URL" serve
}

# wait_ready PID URL WHAT: wait (bounded, 30 s) until URL/readyz says ok.
wait_ready() {
	i=0
	until curl -fsk ${TOKEN:+-H "Authorization: Bearer $TOKEN"} \
		"$2/readyz" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "$3: no /readyz after 30 s"
		kill -0 "$1" 2>/dev/null || fail "$3 exited"
		sleep 0.1
	done
}

# listening_port PID LOG: wait (bounded) for the port a daemon logs in
# its "listening" line; sets PORT.
listening_port() {
	PORT=""
	i=0
	while [ -z "$PORT" ] && [ $i -lt 300 ]; do
		kill -0 "$1" 2>/dev/null || fail "serve exited at start"
		PORT=$(sed -n 's/.*msg="listening" addr=[^ ]*:\([0-9]*\) .*/\1/p' \
			"$2" | tail -n 1)
		[ -n "$PORT" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$PORT" ] || fail "serve did not say where it listens"
}

# stop_serve: SIGTERM, and the exit status must be 0.
stop_serve() {
	kill -TERM "$SERVE_PID"
	rc=0
	wait "$SERVE_PID" || rc=$?
	SERVE_PID=""
	[ "$rc" -eq 0 ] || fail "serve exited with $rc after SIGTERM"
}

# until_ok SECONDS CMD...: run CMD every 0.2 s until it succeeds.
until_ok() {
	n=$(($1 * 5))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.2
	done
}

# The kubectls this machine has: path and a label, one per line.
kubectls() {
	for k in "$CLIENTS/kubectl-1.35/kubectl" "$CLIENTS/kubectl-1.20/kubectl" \
		/usr/lib/google-cloud-sdk/bin/kubectl.1.*; do
		[ -x "$k" ] && echo "$k"
	done
}

# Prometheus (Debian's prometheus) for the metrics tests: need_prometheus
# skips without it; start_prometheus CONFIG [options...] starts one on a
# free port of 127.0.0.1 (PURL) with its log in $TMP/prom.log, stopped at
# the end; prom_query EXPR [TIME] prints the first value of an instant
# query, empty when none.
PROM_PID=""
need_prometheus() {
	command -v prometheus >/dev/null 2>&1 ||
		skip "no prometheus (scripts/setup-clients.sh installs it)"
	command -v promtool >/dev/null 2>&1 || skip "no promtool"
	trap 'stop_prometheus; cleanup' EXIT INT TERM
}
stop_prometheus() {
	if [ -n "$PROM_PID" ]; then
		kill "$PROM_PID" 2>/dev/null
		wait "$PROM_PID" 2>/dev/null
		PROM_PID=""
	fi
}
start_prometheus() {
	cfg=$1
	shift
	pport=$($PY -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	prometheus --config.file="$cfg" --web.listen-address="127.0.0.1:$pport" \
		"$@" >"$TMP/prom.log" 2>&1 &
	PROM_PID=$!
	PURL=http://127.0.0.1:$pport
	until_ok 15 curl -fs "$PURL/-/ready" ||
		fail "prometheus not ready: $(tail -n 5 "$TMP/prom.log")"
}
prom_query() {
	curl -fsG "$PURL/api/v1/query" --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"} |
		$PY -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")'
}

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `echelon bench kube` end to end at its smallest: a cluster of 20 nodes,
# 200 pods (96 in PodGroups of 8), a scheduler replica and a follower; the
# watch that counts the bindings (which reads each event's text without
# decoding it) must see every pod bound, then the follower bind the new
# pods after the leader's SIGKILL. Speed is not checked here.
# usage: bench_kube.sh ECHELON SOURCE_DIR
set -u
echelon=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$echelon" bench kube --nodes 20 --pods 200 --seconds 60 -o json \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: bench kube exited $rc:"
	cat "$tmp/err"
	exit 1
fi
# every pod bound (else the bench fails above); a failover measured
if ! python3 - "$tmp/out" <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
assert r["pods"] == 200 and r["all_bound_s"] > 0, r
assert r["bound_per_s_end_to_end"] > 0, r
assert 5 < r["failover_s"] < 40, r
PY
	echo "FAIL: bench kube reported:"
	cat "$tmp/out"
	exit 1
fi
echo "ok: $(cat "$tmp/out")"

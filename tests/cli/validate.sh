#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# End-to-end checks of `echelon validate`: exit status, the per-kind summary
# of the quickstart, and the exact messages for a folder of broken files.
# usage: validate.sh ECHELON SOURCE_DIR
set -u
echelon=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # description, condition result
	if [ "$2" -ne 0 ]; then
		echo "FAIL: $1"
		fail=1
	else
		echo "ok: $1"
	fi
}

"$echelon" validate -f "$src/examples/quickstart" >"$tmp/out" 2>"$tmp/err"
check "quickstart validates" $?
grep -q '^Node  *64  64 ready, 0 cordoned; allocatable cpu=6144 memory=96Ti nvidia.com/gpu=512$' "$tmp/out"
check "quickstart node summary" $?
grep -q '^Workload  *12  12 from Jobs, 0 admitted; 44 pods$' "$tmp/out"
check "quickstart workload summary" $?
[ ! -s "$tmp/err" ]
check "quickstart has no warnings" $?

(cd "$src/tests/data/validate" && "$echelon" validate -f broken) >"$tmp/out" 2>"$tmp/err"
check "broken folder fails with status 1" $(($? != 1))
diff -u "$src/tests/data/validate/broken.expected" "$tmp/err"
check "broken folder messages are exact" $?
[ ! -s "$tmp/out" ]
check "no summary when there are errors" $?

"$echelon" validate >/dev/null 2>&1
check "no -f is a usage error (2)" $(($? != 2))
"$echelon" validate -f "$tmp/missing.yaml" 2>"$tmp/err"
check "a missing file fails" $(($? != 1))
grep -q 'missing.yaml: cannot open: No such file or directory' "$tmp/err"
check "a missing file is named" $?

printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n' |
	"$echelon" validate -f - >"$tmp/out" 2>&1
check "stdin is read with -f -" $?
printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  bogus: 1\n' |
	"$echelon" validate --strict -f - >"$tmp/out" 2>&1
check "--strict fails on a warning" $(($? != 1))
grep -q '<stdin>:5:3: warning: metadata: unknown field "bogus" is ignored' "$tmp/out"
check "warning text" $?

"$echelon" validate -f "$src/examples/quickstart" -o yaml >"$tmp/q1.yaml"
check "validate -o yaml" $?
"$echelon" validate -f "$tmp/q1.yaml" -o yaml >"$tmp/q2.yaml"
check "its YAML loads again" $?
cmp -s "$tmp/q1.yaml" "$tmp/q2.yaml"
check "and encodes to the same text" $?
grep -q '^    kind: Workload$' "$tmp/q1.yaml"
check "Jobs are shown as Workloads" $?
"$echelon" validate -f "$src/examples/quickstart" -o json >"$tmp/q.json" &&
	"$echelon" validate -f "$tmp/q.json" >/dev/null
check "validate -o json loads again" $?
"$echelon" validate -f "$src/examples/quickstart" -o xml >/dev/null 2>&1
check "an unknown format is a usage error (2)" $(($? != 2))

"$echelon" version | grep -q '^echelon [0-9]'
check "version" $?
exit $fail

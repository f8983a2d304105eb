#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Golden tests of `echelon plan`: every folder of tests/scenarios/plan holds
# an input.yaml (cluster, queues, workloads), optional extra arguments in
# args, and the expected `plan -o json` output in expected.json. With
# --update as third argument, or UPDATE=1, the expected files are
# rewritten instead of compared (review the diff before committing).
# usage: plan.sh ECHELON SOURCE_DIR [--update]
set -u
echelon=$1
src=$2
update=${UPDATE:-0}
[ "${3:-}" = "--update" ] && update=1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for dir in "$src"/tests/scenarios/plan/*/; do
	name=$(basename "$dir")
	args=""
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	# shellcheck disable=SC2086
	"$echelon" plan -f "$dir/input.yaml" -o json $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
		echo "FAIL: $name: exit $rc"
		cat "$tmp/err"
		fail=1
		continue
	fi
	if [ "$update" = 1 ]; then
		cp "$tmp/out" "$dir/expected.json"
		echo "updated: $name"
	elif diff -u "$dir/expected.json" "$tmp/out"; then
		echo "ok: $name"
	else
		echo "FAIL: $name: output differs from expected.json"
		fail=1
	fi
done

# The other output forms carry the same decisions.
dir="$src/tests/scenarios/plan/preempt-within-cq"
"$echelon" plan -f "$dir/input.yaml" -o yaml >"$tmp/yaml" 2>&1 &&
	grep -q '^  - name: ns/low-b$' "$tmp/yaml" &&
	grep -q 'reason: InClusterQueue' "$tmp/yaml"
if [ $? -ne 0 ]; then echo "FAIL: yaml output"; fail=1; else echo "ok: yaml"; fi
"$echelon" plan -f "$dir/input.yaml" >"$tmp/table" 2>&1 &&
	grep -q '^preempted  *ns/low-b  .*InClusterQueue by ns/high$' "$tmp/table"
if [ $? -ne 0 ]; then echo "FAIL: table output"; fail=1; else echo "ok: table"; fi
dir="$src/tests/scenarios/plan/running-jobs"
"$echelon" plan -f "$dir/input.yaml" >"$tmp/table" 2>&1 &&
	grep -q '^running  *ns/job-train  .* from Job$' "$tmp/table" &&
	grep -q '^running  *ns/job-etl  .* from Pods$' "$tmp/table"
if [ $? -ne 0 ]; then echo "FAIL: running in the table"; fail=1; else echo "ok: running table"; fi
"$echelon" plan >/dev/null 2>&1
if [ $? -ne 2 ]; then echo "FAIL: no -f is a usage error"; fail=1; else echo "ok: usage"; fi

# The table: columns aligned, pending rows in the order of their queue
# (the JSON lists them by name), placements in short; -o wide adds every
# domain.
dir="$src/tests/scenarios/plan/positions"
"$echelon" plan -f "$dir/input.yaml" >"$tmp/table" 2>&1
grep '^pending' "$tmp/table" | sed 's/.*  #\([0-9]*\) .*/\1/' >"$tmp/pos"
printf '%s\n' 0 1 2 3 4 | cmp -s - "$tmp/pos"
if [ $? -ne 0 ]; then echo "FAIL: pending rows in queue order"; cat "$tmp/table"; fail=1; else echo "ok: pending order"; fi
awk 'NR == 1 { col = index($0, "DETAIL") } /^pending/ && index($0, "#") != col { bad = 1 } END { exit bad }' "$tmp/table"
if [ $? -ne 0 ]; then echo "FAIL: aligned columns"; fail=1; else echo "ok: aligned"; fi
dir="$src/tests/scenarios/plan/tas-required-rack"
"$echelon" plan -f "$dir/input.yaml" >"$tmp/table" 2>&1 &&
	grep -q '^admitted  *ns/a-gang  *a  *main x2 cpu=gpu nvidia.com/gpu=gpu: 2 hosts, 1 rack (min 1), 1 block (min 1)$' "$tmp/table"
if [ $? -ne 0 ]; then echo "FAIL: placement in short"; cat "$tmp/table"; fail=1; else echo "ok: short placement"; fi
"$echelon" plan -f "$dir/input.yaml" -o wide >"$tmp/table" 2>&1 &&
	grep -q '^admitted  *ns/a-gang  *a  *main x2 .*(min 1) @n-b0-r0-h0=1 n-b0-r0-h1=1$' "$tmp/table"
if [ $? -ne 0 ]; then echo "FAIL: -o wide"; cat "$tmp/table"; fail=1; else echo "ok: wide"; fi
exit $fail

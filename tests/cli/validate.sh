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

# Input that is silently misread or skipped must fail, with a position.
node='apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n'
printf "${node}  labels: {a: x\\000y}\n" >"$tmp/nul.yaml"
"$echelon" validate -f "$tmp/nul.yaml" >/dev/null 2>"$tmp/err"
check "a NUL byte fails" $(($? != 1))
grep -q 'nul.yaml:5:16: invalid YAML: NUL byte (0x00) in the text' "$tmp/err"
check "a NUL byte is located" $?
printf 'apiVersion: v1\nkind: Node\nkind: Namespace\nmetadata: {name: a}\n' |
	"$echelon" validate -f - >/dev/null 2>"$tmp/err"
check "a duplicate key fails" $(($? != 1))
grep -q '<stdin>:3:1: invalid YAML: duplicate key "kind" (first at line 2, column 1)' "$tmp/err"
check "a duplicate key names both positions" $?

mkdir "$tmp/links"
printf "$node" >"$tmp/links/good.yaml"
ln -s "$tmp/links/nowhere.yaml" "$tmp/links/dangling.yaml"
"$echelon" validate -f "$tmp/links" >/dev/null 2>"$tmp/err"
check "a dangling symlink in a folder fails" $(($? != 1))
grep -q 'links/dangling.yaml: cannot open: No such file or directory' "$tmp/err"
check "the dangling symlink is named" $?
rm "$tmp/links/dangling.yaml"
ln -s loop "$tmp/links/loop"
"$echelon" validate -f "$tmp/links" >/dev/null 2>"$tmp/err"
check "a symlink loop in a folder fails" $(($? != 1))
grep -q 'links/loop: cannot open: Too many levels of symbolic links' "$tmp/err"
check "the symlink loop is named" $?
rm "$tmp/links/loop"
if [ "$(id -u)" -ne 0 ]; then
	mkdir "$tmp/links/locked"
	printf "$node" >"$tmp/links/locked/n.yaml"
	chmod 0 "$tmp/links/locked"
	"$echelon" validate -f "$tmp/links" >/dev/null 2>"$tmp/err"
	check "an unreadable folder entry fails" $(($? != 1))
	chmod 755 "$tmp/links/locked"
fi

# Empty input: nothing to work on is said, and fails.
: >"$tmp/empty.yaml"
"$echelon" validate -f "$tmp/empty.yaml" >"$tmp/out" 2>"$tmp/err"
check "an empty file fails" $(($? != 1))
grep -q 'empty.yaml: warning: no object found' "$tmp/err" &&
	grep -q '^no object found in the input (1 file read)$' "$tmp/err"
check "an empty file says no object was found" $?
printf '# only a comment\n---\n' | "$echelon" validate -f - >/dev/null 2>"$tmp/err"
check "empty stdin fails" $(($? != 1))
grep -q '<stdin>: warning: no object found' "$tmp/err"
check "empty stdin says so" $?
mkdir "$tmp/nothing"
"$echelon" validate -f "$tmp/nothing" >/dev/null 2>"$tmp/err"
check "an empty folder fails" $(($? != 1))
grep -q 'nothing: warning: no .yaml, .yml or .json file in this folder' "$tmp/err"
check "an empty folder says so" $?
"$echelon" validate -f "$tmp/empty.yaml" -f "$tmp/links" >/dev/null 2>"$tmp/err"
check "an empty file beside others is only a warning" $?

# Output that cannot be written fails the command, with the reason.
if [ -w /dev/full ]; then
	q="$src/examples/quickstart"
	for args in "validate -f $q -o json" "validate -f $q -o yaml" \
		"validate -f $q" "place -f $q" "plan -f $q -o json" \
		"sim -q --cluster blocks=1,racks=1,hosts=1 --synth 2" \
		"version" "help"; do
		# shellcheck disable=SC2086
		"$echelon" $args >/dev/full 2>"$tmp/err"
		check "$args to a full disk fails" $(($? != 1))
		grep -q '^echelon: cannot write standard output: No space left on device$' "$tmp/err"
		check "$args to a full disk says why" $?
	done
fi

# A bad value for an enumerated option is named in one line, for every verb,
# followed by where the usage is, as for every usage error.
bad_value() { # expected-line args...
	want=$1
	shift
	"$echelon" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(head -n 1 "$tmp/err")" = "$want" ] &&
		[ "$(wc -l <"$tmp/err")" -eq 2 ] &&
		tail -n 1 "$tmp/err" | grep -q "^Run 'echelon [a-z ]* --help' for usage.$"
	check "bad value: $want" $?
}
q="$src/examples/quickstart"
bad_value 'echelon validate: --output: expected summary, json or yaml, not "xml"' \
	validate -f "$q" -o xml
bad_value 'echelon place: --output: expected table, json, yaml or wide, not "xml"' \
	place -f "$q" -o xml
bad_value 'echelon place: --policy: expected tas, kube-default or first-fit, not "nope"' \
	place -f "$q" --policy nope
bad_value 'echelon plan: --output: expected table, json, yaml or wide, not "xml"' \
	plan -f "$q" -o xml
bad_value 'echelon sim: --compare: expected tas, kube-default, first-fit or no-gang, not "nope"' \
	sim --policy nope
bad_value 'echelon bench place: --nodes: expected 1 to 16777216, not "0"' \
	bench place --nodes 0
bad_value 'echelon bench place: --level: expected rack or block, not "host"' \
	bench place --level host
bad_value 'echelon bench sim: --policy: expected tas, kube-default, first-fit or no-gang, not "nope"' \
	bench sim --policy nope
bad_value 'echelon bench sim: --scenario: expected pods-4m, gang-100k, failures or queued, not "nope"' \
	bench sim --scenario nope
bad_value 'echelon bench sim: --jobs: expected 1 to 4194304, not "0"' \
	bench sim --scenario queued --jobs 0
bad_value 'echelon bench admit: --workloads: expected 1 to 10000000, not "-5"' \
	bench admit --workloads -5
bad_value 'echelon bench admit: --small-level: expected hostname, rack or none, not "zone"' \
	bench admit --small-level zone
bad_value 'echelon bench load: --nodes: expected 1 to 10000000, not "x"' \
	bench load --nodes x
bad_value 'echelon validate: --output: expected summary, json or yaml, not "\x1b[2J\nx"' \
	validate -f "$q" -o "$(printf '\033[2J\nx')"

# A snapshot of a live cluster (kubectl get nodes,clusterqueues,... -o
# yaml) loads without a warning: managedFields, status.images, nodeInfo,
# daemonEndpoints, addresses, volumes, heartbeat times, Kueue's status.
k="$src/tests/data/kubectl"
"$echelon" validate --strict -f "$k" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ]
check "kubectl snapshot: validate --strict, no warning" $?
"$echelon" plan -f "$k" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
	grep -q '^admitted  *default/job-train-7e1f  *training  *main x1 nvidia.com/gpu=tas-gpu: 1 host, 1 rack (min 1), 1 block (min 1)$' "$tmp/out"
check "kubectl snapshot: plan, no warning" $?
# (the Workload has no sim.echelon.dev/duration: sim would say it skips it)
"$echelon" sim -f "$k/nodes.yaml" -f "$k/queues.yaml" --synth 5 \
	--topology none >"$tmp/out" 2>"$tmp/err" &&
	[ ! -s "$tmp/err" ] && grep -q '^jobs finished  *5 / 5$' "$tmp/out"
check "kubectl snapshot: sim, no warning" $?

# Kubernetes' annotation limit, on a Node too large to build one insert at a time.
"$echelon" bench load --annotations 30000 >"$tmp/out" 2>"$tmp/err"
check "bench load --annotations runs" $?
grep -q '^metadata.annotations: too long: must have at most 262144 bytes' "$tmp/err" &&
	grep -q '"errors":1' "$tmp/out"
check "30,000 annotations are over the limit" $?
"$echelon" bench load --labels 30000 >"$tmp/out" 2>"$tmp/err"
grep -q '"loaded":1,.*"errors":0' "$tmp/out"
check "30,000 labels load" $?

# Jobs all queued at once: every one runs, and the memory a job is reported
# (the figure itself is measured at scale: docs/benchmarks.md).
"$echelon" bench sim --scenario queued --jobs 3000 >"$tmp/out" 2>"$tmp/err"
grep -q '"jobs":3000,"nodes":16,"finished":3000,"events":9000,' "$tmp/out" &&
	grep -q '"bytes_per_job":[0-9]' "$tmp/out"
check "bench sim --scenario queued" $?

"$echelon" "$(printf 'x\033]0;t\007')" >/dev/null 2>"$tmp/err"
grep -qF "echelon: unknown command 'x\x1b]0;t\x07'" "$tmp/err"
check "an unknown command is quoted" $?

"$echelon" version | grep -q '^echelon [0-9]'
check "version" $?
exit $fail

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Golden tests of `echelon sim`: every folder of tests/scenarios/sim holds
# the arguments of one run in args (paths relative to the folder; its
# *.yaml files are passed with -f when there are any, trace.jsonl with
# --trace), and the expected event log and summary in expected.log and
# expected.json, and where there is an expected.jsonl, the expected job
# records (workloads.jsonl: why each job waited, and how long; where it
# landed and the traffic that sends over racks and blocks). With --update
# as third argument, or UPDATE=1, the expected files are rewritten instead
# of compared (review the diff before committing). Every run is made
# twice and must give byte-identical files: the simulation is
# deterministic for a seed.
# usage: sim.sh ECHELON SOURCE_DIR [--update]
set -u
echelon=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
update=${UPDATE:-0}
[ "${3:-}" = "--update" ] && update=1
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

run() { # dir out
	set --  "$1" "$2"
	files=""
	for f in "$1"/*.yaml; do
		[ -f "$f" ] && files="$files -f $f"
	done
	[ -f "$1/trace.jsonl" ] && files="$files --trace $1/trace.jsonl"
	args=$(cat "$1/args")
	mkdir -p "$2"
	# shellcheck disable=SC2086
	(cd "$1" && "$echelon" sim -q --check $files $args --log "$2/log" \
		--out "$2/out" >"$2/table" 2>"$2/err")
}

for dir in "$src"/tests/scenarios/sim/*/; do
	dir=${dir%/}
	name=$(basename "$dir")
	run "$dir" "$tmp/$name.1"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/$name.1/err" ]; then
		echo "FAIL: $name: exit $rc"
		cat "$tmp/$name.1/err"
		fail=1
		continue
	fi
	run "$dir" "$tmp/$name.2"
	# the report's header names the command, whose paths differ
	if ! diff -r -I '^<p>Command: ' "$tmp/$name.1" "$tmp/$name.2" >/dev/null; then
		echo "FAIL: $name: two runs differ"
		diff -r -I '^<p>Command: ' "$tmp/$name.1" "$tmp/$name.2" | head -20
		fail=1
		continue
	fi
	if [ "$update" = 1 ]; then
		cp "$tmp/$name.1/log" "$dir/expected.log"
		cp "$tmp/$name.1/out/summary.json" "$dir/expected.json"
		[ -f "$dir/expected.jsonl" ] &&
			cp "$tmp/$name.1/out/workloads.jsonl" "$dir/expected.jsonl"
		echo "updated: $name"
	elif diff -u "$dir/expected.log" "$tmp/$name.1/log" &&
		diff -u "$dir/expected.json" "$tmp/$name.1/out/summary.json" &&
		{ [ ! -f "$dir/expected.jsonl" ] ||
			diff -u "$dir/expected.jsonl" "$tmp/$name.1/out/workloads.jsonl"; }; then
		echo "ok: $name"
	else
		echo "FAIL: $name: output differs from expected.log/.json"
		fail=1
	fi
done

# Usage errors and bad input: a precise message and a non-zero exit.
check_err() { # expected-status expected-text args...
	want=$1
	text=$2
	shift 2
	"$echelon" sim -q "$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -ne "$want" ] || ! grep -qF -- "$text" "$tmp/e"; then
		echo "FAIL: sim $*: exit $rc, want $want and \"$text\":"
		cat "$tmp/e"
		fail=1
	else
		echo "ok: error: $text"
	fi
}
check_err 2 "--compare: expected tas, kube-default, first-fit or no-gang" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --compare tas,bogus
check_err 2 "--cluster:1:" --cluster blocks=x --synth 1
check_err 2 "--estimates: expected history, exact or none" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --estimates perfect
check_err 2 "--estimate-error: expected a number from 0 to 10" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --estimate-error 11
check_err 2 "--until" --cluster blocks=1,racks=1,hosts=1 --synth 1 --until -5
check_err 1 "no job to simulate" --cluster blocks=1,racks=1,hosts=1
check_err 1 "no node named \"nope\"" --cluster blocks=1,racks=1,hosts=1 \
	--synth 1 --fail nope@10
check_err 2 "--queue:1:5: rule: expected <, <=, >, >=, = or ==" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --queue 'gpus!8:x'
check_err 2 "--cluster:1:39: oversub-rack: must be a number of at least 1" \
	--cluster blocks=1,racks=1,hosts=1,oversub-rack=0.5 --synth 1
check_err 2 "--network:1:1: link.block.bandwidth: must be positive" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --network bw-block=0
check_err 2 "--network:1:16: algo: must be ring or hierarchical" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --network bw-rack=9,algo=x
printf '{"name": "a", "submit_s": 0}\n' >"$tmp/bad.jsonl"
check_err 1 "bad.jsonl:1:" --cluster blocks=1,racks=1,hosts=1 \
	--trace "$tmp/bad.jsonl"
# A NUL byte in a trace is an error at its position, not the end of a name.
printf '{"name": "a\000b", "submit_s": 0, "duration_s": 1}\n' >"$tmp/nul.jsonl"
check_err 1 "nul.jsonl:1:12: NUL byte (0x00) in the text" \
	--cluster blocks=1,racks=1,hosts=1 --trace "$tmp/nul.jsonl"
printf 'job_id,submission_time,duration,num_gpu\nj\0001,0,10,1\n' >"$tmp/nul.csv"
check_err 1 "nul.csv:2:2: NUL byte (0x00) in the text" \
	--cluster blocks=1,racks=1,hosts=1 --trace "$tmp/nul.csv"
# Failure rates the jobs cannot survive: the run stops and says why, in
# bounded time and memory (once it ran until it was out of memory).
for rate in "--pod-failures 1" "--node-mtbf 1"; do
	# shellcheck disable=SC2086
	"$echelon" sim -q --cluster blocks=1,racks=2,hosts=4,gpus=8 --synth 20 \
		$rate --out "$tmp/stall" >"$tmp/o" 2>"$tmp/e"
	[ $? -eq 0 ] && grep -qF "echelon sim: tas: stopped at" "$tmp/e" &&
		grep -qF "cannot complete at this failure rate: synth-" "$tmp/e" &&
		grep -qF -- "--checkpoint with a period well under" "$tmp/e" &&
		grep -qF '"stalled": "stopped at' "$tmp/stall/summary.json" &&
		[ "$(wc -l <"$tmp/stall/timeseries.csv")" -le 4097 ]
	check "$rate: a run that cannot complete stops and says why" $?
done
check_err 1 "pod failures: 1e+06 per pod-hour is more than one failure a second" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --pod-failures 1e6

# An endless input stops at the first thing that cannot be a trace, not at
# the byte limit: a NUL byte, a line over 64 KiB, more lines than jobs.
check_err 1 "/dev/zero:1:1: NUL byte (0x00) in the text" \
	--cluster blocks=1,racks=1,hosts=1 --trace /dev/zero
tr '\000' a </dev/zero 2>/dev/null |
	"$echelon" sim -q --cluster blocks=1,racks=1,hosts=1 --trace - \
		>"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] && grep -qF "<stdin>:1:1: line is longer than 65536 bytes" "$tmp/e"
check "an endless line stops at the line limit" $?
yes '{"name": "x"}' 2>/dev/null |
	"$echelon" sim -q --cluster blocks=1,racks=1,hosts=1 --trace - \
		>"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] &&
	grep -qF "<stdin>:4194306:1: too many lines: a trace holds at most 4194304 jobs" "$tmp/e"
check "endless lines stop at the job limit" $?

# --out and --log: checked before simulating, written beside the target and
# renamed into place, so a failed run leaves the previous results whole.
c1="--cluster blocks=1,racks=1,hosts=2"
: >"$tmp/afile"
# shellcheck disable=SC2086
"$echelon" sim -q $c1 --synth 3 --out "$tmp/afile/x" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] && [ ! -s "$tmp/o" ] &&
	grep -qF "echelon sim: --out: $tmp/afile/x: Not a directory" "$tmp/e"
check "--out under a file fails before simulating" $?
# shellcheck disable=SC2086
"$echelon" sim -q $c1 --synth 3 --out "$tmp/res" --log "$tmp/nope/x.log" \
	>"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] && [ ! -s "$tmp/o" ] && [ ! -e "$tmp/res" ] &&
	grep -qF "echelon sim: --log: $tmp/nope/x.log: No such file or directory" "$tmp/e"
check "a bad --log fails before simulating, and writes no --out" $?
# shellcheck disable=SC2086
"$echelon" sim -q $c1 --synth 20 --out "$tmp/res" --log "$tmp/res.log" >/dev/null
check "a first run writes --out and --log" $?
cp -R "$tmp/res" "$tmp/res.good"
cp "$tmp/res.log" "$tmp/res.log.good"
# A run that cannot write its files (the file size limit stands for a full
# disk) fails, and the previous results survive untouched.
(
	ulimit -f 8
	trap '' XFSZ
	# shellcheck disable=SC2086
	exec "$echelon" sim -q $c1 --synth 60 --seed 9 --out "$tmp/res" \
		>/dev/null 2>"$tmp/e"
)
[ $? -eq 1 ] && grep -qF "echelon sim: --out: $tmp/res/" "$tmp/e" &&
	grep -qF "File too large" "$tmp/e"
check "a run that cannot write --out fails" $?
diff -r "$tmp/res.good" "$tmp/res" >/dev/null &&
	[ -z "$(find "$tmp" -maxdepth 1 -name '.res.tmp-*')" ]
check "the previous --out survives it whole, nothing left beside" $?
# Files are never written through a symlink, in or out of the folder.
echo keep >"$tmp/victim"
rm "$tmp/res/summary.json"
ln -s "$tmp/victim" "$tmp/res/summary.json"
ln -sf "$tmp/victim" "$tmp/res.log"
# shellcheck disable=SC2086
"$echelon" sim -q $c1 --synth 20 --out "$tmp/res" --log "$tmp/res.log" >/dev/null
[ $? -eq 0 ] && [ "$(cat "$tmp/victim")" = keep ] &&
	[ -f "$tmp/res/summary.json" ] && [ ! -L "$tmp/res/summary.json" ] &&
	[ ! -L "$tmp/res.log" ] && diff -r "$tmp/res.good" "$tmp/res" >/dev/null &&
	cmp -s "$tmp/res.log" "$tmp/res.log.good"
check "symlinks in --out and at --log are replaced, not followed" $?
# A folder holding someone else's files is not replaced.
echo mine >"$tmp/res/notes.txt"
# shellcheck disable=SC2086
"$echelon" sim -q $c1 --synth 3 --out "$tmp/res" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 1 ] && [ ! -s "$tmp/o" ] && [ -f "$tmp/res/notes.txt" ] &&
	grep -qF "holds \"notes.txt\", which echelon did not write" "$tmp/e"
check "--out holding other files is refused before simulating" $?
# --trace - reads standard input, as -f - does; an empty trace is an error.
"$echelon" sim -q -f "$src/examples/quickstart" \
	--trace "$src/examples/quickstart/trace.jsonl" >"$tmp/file.out" 2>&1
"$echelon" sim -q -f "$src/examples/quickstart" --trace - \
	<"$src/examples/quickstart/trace.jsonl" >"$tmp/stdin.out" 2>&1
[ $? -eq 0 ] && cmp -s "$tmp/file.out" "$tmp/stdin.out"
check "--trace - reads standard input" $?
# --placement-algorithm overrides the Configuration: naming Kueue's default
# changes nothing, FragmentationAware changes the quickstart's run.
"$echelon" sim -q -f "$src/examples/quickstart" \
	--trace "$src/examples/quickstart/trace.jsonl" \
	--placement-algorithm Mixed >"$tmp/mixed.out" 2>&1
[ $? -eq 0 ] && cmp -s "$tmp/file.out" "$tmp/mixed.out"
check "--placement-algorithm Mixed is the default" $?
"$echelon" sim -q -f "$src/examples/quickstart" \
	--trace "$src/examples/quickstart/trace.jsonl" \
	--placement-algorithm FragmentationAware >"$tmp/frag.out" 2>&1
[ $? -eq 0 ] && ! cmp -s "$tmp/file.out" "$tmp/frag.out"
check "--placement-algorithm FragmentationAware places otherwise" $?
check_err 2 "--placement-algorithm: expected Mixed, BestFit, LeastFreeCapacity or FragmentationAware, not \"bestfit\"" \
	--synth 1 --placement-algorithm bestfit
printf '# nothing\n\n' >"$tmp/empty.jsonl"
check_err 1 "empty.jsonl: trace: no job found" \
	--cluster blocks=1,racks=1,hosts=1 --trace "$tmp/empty.jsonl"
# --sweep: the comparison again at each value of one figure of the model,
# deterministic, recorded in the summary and the report; the runs at the
# first value are the ones the table and the files show.
pol="$src/tests/scenarios/sim/policies"
sweep() { # out-dir [more args]
	d=$1
	shift
	"$echelon" sim -q --cluster blocks=1,racks=2,hosts=4,gpus=8 \
		--trace "$pol/trace.jsonl" --compare tas,kube-default \
		--out "$d" "$@" >"$d.txt" 2>&1
}
sweep "$tmp/sw1" --sweep comm-fraction=0.05,0.3 &&
	sweep "$tmp/sw2" --sweep comm-fraction=0.05,0.3 &&
	cmp -s "$tmp/sw1.txt" "$tmp/sw2.txt" &&
	diff -r -I '^<p>Command: ' "$tmp/sw1" "$tmp/sw2" >/dev/null
check "--sweep: two runs give the same bytes" $?
grep -q '^kube-default / tas, comm-fraction = *0.05 *0.3$' "$tmp/sw1.txt" &&
	grep -q '^mean JCT  *[0-9.]* x  *[0-9.]* x$' "$tmp/sw1.txt" &&
	grep -qF '"key": "comm-fraction"' "$tmp/sw1/summary.json" &&
	grep -qF '"values": ["0.05", "0.3"]' "$tmp/sw1/summary.json" &&
	grep -qF '"comm-fraction": 0.05,' "$tmp/sw1/summary.json" &&
	grep -qF 'Sweep of comm-fraction' "$tmp/sw1/report.html"
check "--sweep prints how each figure moves and records it" $?
sweep "$tmp/sw3" --comm-fraction 0.05 &&
	sed '/^sweep of/,$d' "$tmp/sw1.txt" | sed '$d' >"$tmp/sw1.main" &&
	cmp -s "$tmp/sw1.main" "$tmp/sw3.txt" &&
	cmp -s "$tmp/sw1/workloads.jsonl" "$tmp/sw3/workloads.jsonl"
check "--sweep: the table and files are the runs at its first value" $?
check_err 2 "--sweep:1:1: bogus: unknown key" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 --sweep bogus=1
check_err 2 "--sweep:1:19: comm-fraction: commFraction: must be 0" \
	--cluster blocks=1,racks=1,hosts=1 --synth 1 \
	--sweep comm-fraction=0.1,1.5
# The report's header: the command line as a shell reads it back (an
# argument with a space and a quote quoted, then escaped for HTML), the
# seed and the version.
cp "$pol/trace.jsonl" "$tmp/t.jsonl"
(cd "$tmp" && "$echelon" sim -q --cluster blocks=1,racks=1,hosts=2,gpus=8 \
	--trace t.jsonl --seed 5 --out "it's here" >/dev/null 2>&1) &&
	grep -qF "Command: <code>echelon sim -q --cluster blocks=1,racks=1,hosts=2,gpus=8 --trace t.jsonl --seed 5 --out &#39;it&#39;\\&#39;&#39;s here&#39;</code>" \
		"$tmp/it's here/report.html" &&
	grep -qF "Seed: 5<br>" "$tmp/it's here/report.html" &&
	grep -qF "echelon $("$echelon" version | cut -d' ' -f2)</p>" \
		"$tmp/it's here/report.html"
check "report.html names the command, seed and version" $?
exit $fail

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The example traces are what their generator commands make: gen-trace.sh
# gives the committed under-load, short-stream and slurm-stream files byte
# for byte, and the Slurm-like stream's ideal (host-time over the 1,024
# hosts of 4 x 8 x 32) is Slurm's 464.8 s to within 0.2 s. The files are
# mawk's (Debian's awk): another awk's rand() draws other numbers, and the
# byte checks are skipped.
# usage: examples.sh ECHELON SOURCE_DIR
set -u
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

gen=$src/examples/under-load/gen-trace.sh
if awk -W version 2>&1 | grep -q mawk; then
	sh "$gen" >"$tmp/a" &&
		cmp -s "$tmp/a" "$src/examples/under-load/trace.jsonl"
	check "under-load is gen-trace.sh" $?
	sh "$gen" 30 120 >"$tmp/b" &&
		cmp -s "$tmp/b" "$src/examples/short-stream/trace.jsonl"
	check "short-stream is gen-trace.sh 30 120" $?
	sh "$gen" 30 120 0.757 >"$tmp/c" &&
		cmp -s "$tmp/c" "$src/examples/slurm-stream/trace.jsonl"
	check "slurm-stream is gen-trace.sh 30 120 0.757" $?
else
	echo "skip: awk is not mawk; the generator's draws differ"
fi

ideal=$(sed -n 's/.*"duration_s":\([0-9]*\),"pods":\([0-9]*\),.*/\1 \2/p' \
	"$src/examples/slurm-stream/trace.jsonl" |
	awk '{ s += $1 * $2; n++ } END { printf "%d %.1f", n, s / 1024 }')
[ "${ideal%% *}" = 500 ]
check "slurm-stream has 500 jobs ($ideal)" $?
awk -v i="${ideal#* }" 'BEGIN { exit !(i >= 464.6 && i <= 465.0) }'
check "slurm-stream's ideal is 464.8 s within 0.2 s ($ideal)" $?

exit $fail

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every `echelon plan` decision must be independent of the order of the
# input: the objects of each scenario of tests/scenarios/plan are shuffled
# (document order) and spread over three files in random order, with
# several seeds, and the output must equal the scenario's expected.json.
# A difference means some tie is broken by position instead of by name.
# usage: plan_shuffle.sh ECHELON SOURCE_DIR
set -u
echelon=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for dir in "$src"/tests/scenarios/plan/*/; do
	name=$(basename "$dir")
	args=""
	[ -f "$dir/args" ] && args=$(cat "$dir/args")
	for seed in 1 2 3 4 5; do
		rm -rf "$tmp/in"
		mkdir "$tmp/in"
		awk -v seed="$seed" -v out="$tmp/in" '
			/^---[ \t]*$/ { n++; next }
			/^#/ && n == 0 { next }
			{ doc[n] = doc[n] $0 "\n" }
			END {
				srand(seed)
				m = 0
				for (i = 0; i <= n; i++)
					if (doc[i] ~ /[^ \t\n]/)
						ids[m++] = i
				for (i = m - 1; i > 0; i--) {
					j = int(rand() * (i + 1))
					t = ids[i]; ids[i] = ids[j]; ids[j] = t
				}
				for (k = 0; k < m; k++) {
					f = out "/" substr("cab", k % 3 + 1, 1) ".yaml"
					printf "---\n%s", doc[ids[k]] >> f
				}
			}' "$dir/input.yaml"
		# shellcheck disable=SC2086
		"$echelon" plan -f "$tmp/in" -o json $args >"$tmp/out" 2>"$tmp/err"
		if [ $? -ne 0 ]; then
			echo "FAIL: $name (seed $seed): exit status"
			cat "$tmp/err"
			fail=1
		elif ! diff -u "$dir/expected.json" "$tmp/out" >"$tmp/diff"; then
			echo "FAIL: $name (seed $seed): output depends on input order"
			head -40 "$tmp/diff"
			fail=1
			break
		fi
	done
	[ $fail -eq 0 ] && echo "ok: $name"
done
exit $fail

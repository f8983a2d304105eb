#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Usage errors of the offline verbs: each says in one line what was wrong,
# then where the usage is (as kubectl does), on standard error, with exit
# status 2 and nothing on standard output. One row per error: the expected
# first line of standard error, then the command line.
# usage: usage.sh ECHELON SOURCE_DIR
set -u
echelon=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 1
f=tests/data/place/cluster.yaml

# want (first line of stderr) | arguments
while IFS='|' read -r want args; do
	case $want in '' | '#'*) continue ;; esac
	verb=${args%% *}
	# shellcheck disable=SC2086
	"$echelon" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	printf '%s\n' "$want" "Run 'echelon $verb --help' for usage." >"$tmp/want"
	if [ $rc -ne 2 ] || [ -s "$tmp/out" ] || ! cmp -s "$tmp/want" "$tmp/err"; then
		echo "FAIL: echelon $args: exit $rc, stderr:"
		cat "$tmp/err"
		echo "want:"
		cat "$tmp/want"
		fail=1
	else
		echo "ok: $args"
	fi
done <<TABLE
echelon plan: unknown option --foo|plan --foo -f $f
echelon plan: missing -f FILE (a manifest file or folder)|plan
echelon plan: option -f needs a value|plan -f
echelon plan: option --output needs a value|plan -f $f --output
echelon plan: unexpected argument "extra"|plan -f $f extra
echelon plan: --output: expected table, json, yaml or wide, not "xml"|plan -f $f -o xml
echelon plan: option --fair-sharing takes no value|plan -f $f --fair-sharing=yes
echelon place: unknown option --foo|place --foo -f $f
echelon place: unknown option -x|place -x -f $f
echelon place: missing -f FILE (a manifest file or folder)|place
echelon place: option --policy needs a value|place -f $f --policy
echelon place: unexpected argument "extra"|place -f $f extra
echelon place: --policy: expected tas, kube-default or first-fit, not "random"|place -f $f --policy random
echelon validate: unknown option --foo|validate --foo -f $f
echelon validate: missing -f FILE (a manifest file or folder)|validate
echelon validate: option --strict takes no value|validate --strict=1 -f $f
echelon validate: unexpected argument "extra"|validate -f $f extra
echelon validate: --output: expected summary, json or yaml, not "table"|validate -f $f -o table
echelon sim: unknown option --bogus|sim --bogus
echelon sim: unknown option -x|sim --quiet -xq --synth 1
echelon sim: unknown option -x|sim --quiet -qx --synth 1
echelon sim: option --until needs a value|sim --synth 1 --until
echelon sim: unexpected argument "extra"|sim --synth 1 extra
echelon sim: --compare: expected tas, kube-default, first-fit or no-gang, not "bogus"|sim --synth 1 --compare bogus
TABLE

# An unknown command names the list of commands instead.
for args in nope "help nope"; do
	# shellcheck disable=SC2086
	"$echelon" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	prefix=echelon
	[ "$args" = nope ] || prefix="echelon help"
	printf '%s\n' "$prefix: unknown command 'nope'" \
		"Run 'echelon help' for the list of commands." >"$tmp/want"
	if [ $rc -ne 2 ] || ! cmp -s "$tmp/want" "$tmp/err"; then
		echo "FAIL: unknown command ($args): exit $rc"
		cat "$tmp/err"
		fail=1
	else
		echo "ok: unknown command ($args)"
	fi
done
exit $fail

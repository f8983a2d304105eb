#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# End-to-end checks of `echelon place`: each case runs the command on the
# fixtures in tests/data/place and compares its output and exit status
# with the golden file tests/data/place/<case>.expected. Regenerate the
# golden files with: sh tests/cli/place.sh <echelon> <source-dir> --update
set -u

echelon=$1
src=$2
update=${3:-}
data=tests/data/place
failed=0

cd "$src" || exit 1

check() {
	name=$1
	shift
	got=$("$echelon" "$@" 2>&1; echo "exit status: $?")
	want_file=$data/$name.expected
	if [ "$update" = "--update" ]; then
		printf '%s\n' "$got" >"$want_file"
		return
	fi
	if ! printf '%s\n' "$got" | diff -u "$want_file" - >/dev/null 2>&1; then
		echo "FAIL: $name: echelon $*"
		printf '%s\n' "$got" | diff -u "$want_file" -
		failed=1
	fi
}

check basic-table place -f $data/cluster.yaml -f $data/workloads.yaml
check basic-wide place -f $data/cluster.yaml -f $data/workloads.yaml -o wide
check basic-json place -f $data/cluster.yaml -f $data/workloads.yaml -o json
check jobs place -f $data/cluster.yaml -f $data/jobs.yaml -o json
check group place -f $data/cluster.yaml -f $data/group.yaml -o yaml
check racks place -f $data/racks.yaml
check racks-yaml place -f $data/racks.yaml -o yaml
check racks-wide place -f $data/racks.yaml -o wide
check first-fit place -f $data/cluster.yaml -f $data/workloads.yaml \
	--policy first-fit
check kube-default place -f $data/cluster.yaml -f $data/workloads.yaml \
	--policy kube-default -o json
check admitted place -f $data/cluster-failed.yaml -f $data/admitted.yaml
check admitted-json place -f $data/cluster-failed.yaml \
	-f $data/admitted.yaml -o json
check reference place -f $data/reference-cluster.yaml \
	-f $data/reference-workloads.yaml -o json
check reference-bestfit place -f $data/reference-cluster.yaml \
	-f $data/reference-bestfit.yaml
# Kueue's profile named on the command line: the same golden output
check reference place -f $data/reference-cluster.yaml \
	-f $data/reference-workloads.yaml -o json --placement-algorithm Mixed
check racks-frag place -f $data/racks.yaml \
	--placement-algorithm FragmentationAware
check reference-balanced place -f $data/reference-balanced.yaml
check overlap place -f $data/overlap.yaml
check preferred place -f $data/preferred.yaml
check pods-table place -f $data/cluster.yaml -f $data/group.yaml --pods
check pods-json place -f $data/cluster.yaml -f $data/workloads.yaml --pods \
	-o json
check missing-file place -f $data/no-such-file.yaml
check bad-output place -f $data/cluster.yaml -o xml
check bad-policy place -f $data/cluster.yaml --policy random
check bad-algorithm place -f $data/cluster.yaml --placement-algorithm Random

if [ $failed -ne 0 ]; then
	exit 1
fi
echo "place: all cases pass"

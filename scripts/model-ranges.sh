#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The range of each figure of `echelon sim` over the plausible values of
# the throughput model's parameters, one parameter at a time (the ranges of
# docs/internals/simulator.md), as the README quotes them: every figure of
# every policy, and of every policy against the first, at its least and
# most. Deterministic; a few seconds per input.
# usage: scripts/model-ranges.sh ECHELON SIM-ARGS...
#   scripts/model-ranges.sh build/echelon --cluster blocks=2,racks=4,hosts=10,gpus=8 \
#       --trace examples/itp-2021/cluster04.csv --compare tas,kube-default
set -eu
echelon=$1
shift
for sweep in share-data=0.1,0.21,0.32 share-tensor=0.3,0.4,0.5 \
	oversub-block=1,1.5,2 oversub-cluster=3,4,5 lat-host=1.3,2.9; do
	"$echelon" sim -q "$@" --sweep "$sweep" | sed -n '/^sweep of/,$p'
done | awk -F '  +' '
function seconds(v,   n, u) {
	n = v + 0
	u = v
	sub(/^[0-9.]+ /, "", u)
	if (u == "min") return n * 60
	if (u == "h") return n * 3600
	if (u == "d") return n * 86400
	return n
}
function show(s) {
	if (s >= 86400) return sprintf("%.1f d", s / 86400)
	if (s >= 3600) return sprintf("%.1f h", s / 3600)
	if (s >= 60) return sprintf("%.1f min", s / 60)
	return sprintf("%.0f s", s)
}
{ sub(/^ +/, "") } # "  multi-node jobs": the label is the first field
/^sweep of/ { next }
/ = / { block = $1; sub(/, [a-z-]+ =.*/, "", block); next }
NF < 2 || block == "" { next }
{
	fig = $1
	for (i = 2; i <= NF; i++) {
		if ($i == "-") continue
		unit = $i
		sub(/^[0-9.]+ ?/, "", unit)
		v = (unit == "x" || unit == "%") ? $i + 0 : seconds($i)
		k = block SUBSEP fig
		if (!(k in lo)) { order[++n] = k; lo[k] = v; hi[k] = v; u[k] = unit }
		if (v < lo[k]) lo[k] = v
		if (v > hi[k]) hi[k] = v
	}
}
END {
	for (j = 1; j <= n; j++) {
		k = order[j]
		split(k, p, SUBSEP)
		if (u[k] == "x" || u[k] == "%")
			r = sprintf("%g-%g %s", lo[k], hi[k], u[k])
		else
			r = show(lo[k]) "-" show(hi[k])
		printf "%-20s %-22s %s\n", p[1], p[2], r
	}
}'

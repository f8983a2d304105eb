#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The placement benchmark matrix of docs/benchmarks.md: clusters of 1k, 16k
# and 64k nodes, gangs of 8 to 1,024 one-GPU pods with a required rack or
# block, warm (counts cached across placements, as in an admission cycle)
# and cold. Prints one JSON object per run.
#
#   sh bench/place.sh [path/to/echelon] [placements]
set -eu

echelon=${1:-build/echelon}
placements=${2:-1000}

for nodes in 1024 16384 65536; do
	for level in rack block; do
		for gang in 8 64 256 1024; do
			for mode in "" --cold; do
				"$echelon" bench place --nodes "$nodes" \
					--gang "$gang" --level "$level" \
					--placements "$placements" $mode -o json
			done
		done
	done
done

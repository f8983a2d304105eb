#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# echelon's one entry point for people and CI:
#   ./build.sh run     install what is missing, build, and run the live scheduler
#                      (echelon serve) on the embedded quickstart cluster
#   ./build.sh sim     build, and simulate the quickstart cluster and jobs under
#                      four policies side by side
#   ./build.sh test    install what is missing (and the real Kubernetes clients
#                      of tests/serve, scripts/setup-clients.sh), build, run
#                      the whole test suite
#   ./build.sh asan    the test suite under AddressSanitizer + UBSan
#   ./build.sh format  reformat the tree (clang-format); format-check only checks
#   ./build.sh fuzz    build the libFuzzer targets with clang (build-fuzz/);
#                      fuzz-run SECONDS also runs each on a scratch corpus
# Set ECHELON_WERROR=ON to turn warnings into errors (CI does).
set -eu
cd "$(dirname "$0")"

jobs=$(nproc 2>/dev/null || echo 2)
werror=${ECHELON_WERROR:-OFF}

configure() { # dir [cmake options...]
	dir=$1
	shift
	cmake -S . -B "$dir" -DECHELON_WERROR="$werror" "$@" >/dev/null
}

build() { # dir [cmake options...]
	scripts/setup-debian.sh
	configure "$@"
	cmake --build "$1" -j "$jobs"
}

build_fuzz() {
	scripts/setup-debian.sh clang
	CC=clang configure build-fuzz -DECHELON_LIBFUZZER=ON \
		-DECHELON_SANITIZE=ON
	cmake --build build-fuzz -j "$jobs"
}

# Run every fuzz target for $1 seconds on a scratch copy of its corpus
# (libFuzzer adds what it finds to the first corpus folder: never the
# committed one). A crash leaves its input in build-fuzz/ and fails.
fuzz_run() {
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' EXIT
	for corpus in fuzz/corpus/*/; do
		name=$(basename "$corpus")
		mkdir "$scratch/$name"
		cp "$corpus"* "$scratch/$name/"
		echo "== fuzz_$name for $1 s"
		# libfyaml's own leaks are not ours: leak checks stay off.
		status=0
		(cd build-fuzz && ASAN_OPTIONS=detect_leaks=0 \
			"./fuzz_$name" -max_total_time="$1" -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			"$scratch/$name") >"$scratch/$name.log" 2>&1 || status=$?
		grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*DONE)' \
			"$scratch/$name.log" || true
		if [ "$status" -ne 0 ]; then
			tail -n 40 "$scratch/$name.log"
			echo "fuzz_$name failed (status $status);" \
				"the input is in build-fuzz/" >&2
			exit 1
		fi
	done
}

sources() {
	git ls-files '*.c' '*.h' '*.in' 2>/dev/null | grep -E '\.(c|h)$' ||
		find src tests fuzz bench -name '*.[ch]'
}

case "${1:-}" in
run)
	build build
	cat <<EOT
echelon serve: the quickstart cluster (64 nodes, 512 GPUs, twelve training
Jobs) scheduled live, its clock 60 times the wall clock; state in out/serve.
The dashboard: http://127.0.0.1:8080/ (topology heat map, queues, workloads).
In another terminal (any kubectl 1.20+; scripts/setup-clients.sh DIR fetches one):
  export KUBECONFIG=$PWD/out/serve.kubeconfig
  kubectl get nodes; kubectl get jobs,workloads,pods -A -o wide
  kubectl apply -f examples/serve/finetune.yaml
Ctrl-C stops it; run again to continue where it stopped.
EOT
	mkdir -p out
	exec build/echelon serve -f examples/quickstart --data out/serve \
		--speed 60 --write-kubeconfig out/serve.kubeconfig
	;;
sim)
	build build
	build/echelon sim -f examples/quickstart \
		--trace examples/quickstart/trace.jsonl \
		--compare tas,kube-default,first-fit,no-gang --out out/quickstart
	echo
	echo "records, time series, metrics and report.html: out/quickstart/"
	;;
test)
	build build
	scripts/setup-clients.sh build/clients
	(cd build && ctest --output-on-failure -j "$jobs")
	;;
asan)
	build build-asan -DECHELON_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	scripts/setup-clients.sh build/clients
	(cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j "$jobs")
	;;
format)
	scripts/setup-debian.sh clang-format
	sources | xargs clang-format -i
	;;
format-check)
	scripts/setup-debian.sh clang-format
	sources | xargs clang-format --dry-run -Werror
	;;
fuzz)
	build_fuzz
	echo "fuzzers: build-fuzz/fuzz_*; run one on a scratch copy of its" \
		"corpus, e.g.:"
	echo "  mkdir -p /tmp/corpus-manifest &&" \
		"cp fuzz/corpus/manifest/* /tmp/corpus-manifest/"
	echo "  build-fuzz/fuzz_manifest -max_total_time=600 /tmp/corpus-manifest"
	echo "or all of them: ./build.sh fuzz-run SECONDS"
	;;
fuzz-run)
	build_fuzz
	fuzz_run "${2:-20}"
	;;
*)
	sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac

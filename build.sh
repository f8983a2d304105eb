#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# echelon's one entry point for people and CI:
#   ./build.sh run     install what is missing, build, and simulate the quickstart
#                      cluster and jobs under four policies side by side
#   ./build.sh test    install what is missing, build, run the whole test suite
#   ./build.sh asan    the test suite under AddressSanitizer + UBSan
#   ./build.sh format  reformat the tree (clang-format); format-check only checks
#   ./build.sh fuzz    build the libFuzzer targets with clang (build-fuzz/)
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

sources() {
	git ls-files '*.c' '*.h' '*.in' 2>/dev/null | grep -E '\.(c|h)$' ||
		find src tests fuzz bench -name '*.[ch]'
}

case "${1:-}" in
run)
	build build
	build/echelon sim -f examples/quickstart \
		--trace examples/quickstart/trace.jsonl \
		--compare tas,kube-default,first-fit,no-gang --out out/quickstart
	echo
	echo "records, time series, metrics and report.html: out/quickstart/"
	;;
test)
	build build
	(cd build && ctest --output-on-failure -j "$jobs")
	;;
asan)
	build build-asan -DECHELON_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	(cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j "$jobs")
	;;
format)
	sources | xargs clang-format -i
	;;
format-check)
	sources | xargs clang-format --dry-run -Werror
	;;
fuzz)
	scripts/setup-debian.sh
	CC=clang configure build-fuzz -DECHELON_LIBFUZZER=ON \
		-DECHELON_SANITIZE=ON
	cmake --build build-fuzz -j "$jobs"
	echo "fuzzers: build-fuzz/fuzz_*  (e.g. build-fuzz/fuzz_manifest" \
		"-max_total_time=600 fuzz/corpus/manifest)"
	;;
*)
	sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac

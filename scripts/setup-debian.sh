#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install what echelon needs to build and test on Debian 12, when missing.
# usage: scripts/setup-debian.sh [clang] [clang-format]
# Without arguments: the compiler, cmake and the libraries, enough for
# ./build.sh run, sim, test and asan (GCC's sanitizers). "clang" adds clang and
# libFuzzer (./build.sh fuzz), "clang-format" the formatter (./build.sh
# format and format-check), so run and test download only what they use.
# Runs apt-get as root (directly, or through sudo when available); does
# nothing when everything is already there.
set -eu

packages="build-essential cmake pkg-config libfyaml-dev libjansson-dev
libcmocka-dev libmicrohttpd-dev libsqlite3-dev libgnutls28-dev
libcurl4-openssl-dev"
missing=""

have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v cc >/dev/null 2>&1 || missing=1
command -v make >/dev/null 2>&1 || missing=1
command -v cmake >/dev/null 2>&1 || missing=1
command -v pkg-config >/dev/null 2>&1 || missing=1
for extra in "$@"; do
	case $extra in
	clang)
		# libFuzzer's runtime is a Recommends of clang: ask for it.
		packages="$packages clang libclang-rt-dev"
		command -v clang >/dev/null 2>&1 || missing=1
		# clang alone links no fuzzer: its runtime must be there too
		dpkg-query -W -f '${Status}' libclang-rt-dev 2>/dev/null |
			grep -q 'ok installed' || missing=1
		;;
	clang-format)
		packages="$packages clang-format"
		command -v clang-format >/dev/null 2>&1 || missing=1
		;;
	*)
		echo "usage: $0 [clang] [clang-format]" >&2
		exit 2
		;;
	esac
done
if [ -z "$missing" ]; then
	for pc in libfyaml jansson cmocka libmicrohttpd sqlite3 gnutls libcurl; do
		have_pc "$pc" || missing=1
	done
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "echelon: missing build dependencies; as root, run:" >&2
	echo "  apt-get update && apt-get install -y" $packages >&2
	exit 1
fi
echo "echelon: installing build dependencies:" $packages >&2
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages >/dev/null

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The Debian packages that hold the shared libraries a binary links
# directly (its ELF NEEDED entries), one a line, sorted: what the
# Containerfile's run stage installs, so that it follows the build's
# dependencies (scripts/setup-debian.sh) without a second list to keep.
# usage: deploy/runtime-packages.sh BINARY   (on the machine that built it)
# A library no package owns is an error: the image would not start.
set -eu
bin=${1:?usage: $0 BINARY}
[ -x "$bin" ] || {
	echo "runtime-packages: $bin: not an executable" >&2
	exit 1
}
paths=$(ldd "$bin")

# owner PATH: the package that owns PATH. Debian 12 merges /lib into
# /usr/lib, and dpkg knows each file under the one name its package
# shipped it as, so try the name ldd gave, the resolved file, and both
# with and without /usr.
owner() {
	real=$(readlink -f "$1")
	for p in "$1" "$real" "/usr$1" "/usr$real" "${1#/usr}" "${real#/usr}"; do
		pkg=$(dpkg-query -S "$p" 2>/dev/null | sed -n '1s/:.*//p')
		if [ -n "$pkg" ]; then
			echo "$pkg"
			return 0
		fi
	done
	return 1
}

needed=$(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }')
[ -n "$needed" ] || {
	echo "runtime-packages: $bin links no shared library" >&2
	exit 1
}
for lib in $needed; do
	path=$(printf '%s\n' "$paths" | awk -v l="$lib" '$1 == l { print $3 }')
	if [ -z "$path" ] || [ ! -e "$path" ]; then
		echo "runtime-packages: $lib: not found by ldd" >&2
		exit 1
	fi
	owner "$path" || {
		echo "runtime-packages: $lib ($path): no package owns it" >&2
		exit 1
	}
done | sort -u

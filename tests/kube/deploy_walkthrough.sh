#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deploy/ run as a cluster would run it, with `echelon serve --no-schedule`
# as the cluster: two replicas started with the Deployment's own arguments
# (--in-cluster replaced by the cluster's kubeconfig, the pod's name and
# paths by local ones), its environment, its init container's command and
# the ConfigMap's files. Checked: the probes answer as the kubelet asks
# them (scheme, path, no token), /metrics as the ServiceMonitor scrapes it
# (and not without the token), the Lease names the leader, the Job of
# docs/kubernetes.md's walk-through is bound whole inside one rack of the
# tainted GPU nodes, its step 6's gang too big for a rack waits whole with
# a FailedScheduling Event, and a replica that stops hands the Lease over.
. "$(dirname "$0")/../serve/lib/common.sh"

K135=$CLIENTS/kubectl-1.35/kubectl
[ -x "$K135" ] || skip "no kubectl 1.35 (scripts/setup-clients.sh installs it)"
$PY -c 'import yaml' 2>/dev/null ||
	skip "no python3-yaml (scripts/setup-clients.sh installs it)"
REPLICAS=""
trap 'for p in $REPLICAS; do kill -9 "$p" 2>/dev/null; done; cleanup' \
	EXIT INT TERM
K() { "$K135" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache" \
	--request-timeout=20s "$@"; }

# The rendered manifests, as JSON files named by kind.
"$K135" kustomize "$SRC/deploy" >"$TMP/deploy.yaml" ||
	fail "kustomize deploy/"
"$K135" kustomize "$SRC/deploy/monitoring" >"$TMP/monitoring.yaml" ||
	fail "kustomize deploy/monitoring"
mkdir "$TMP/obj" "$TMP/etc"
$PY - "$TMP" <<'EOT' || fail "cannot read the rendered manifests"
import json, sys, yaml
tmp = sys.argv[1]
for f in ("deploy", "monitoring"):
    for o in yaml.safe_load_all(open("%s/%s.yaml" % (tmp, f))):
        json.dump(o, open("%s/obj/%s.json" % (tmp, o["kind"]), "w"))
cm = json.load(open(tmp + "/obj/ConfigMap.json"))
for k, v in cm["data"].items():
    open("%s/etc/%s" % (tmp, k), "w").write(v)
EOT
# q FILE EXPR: a value of the object in obj/FILE.json (Python over o).
q() {
	$PY -c 'import json, sys
o = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print("\n".join(v) if isinstance(v, list) else v)' "$TMP/obj/$1.json" "$2"
}
POD="o['spec']['template']['spec']"
C="${POD}['containers'][0]"

start_serve --no-schedule --cluster blocks=1,racks=2,hosts=2,gpus=8
out=$(K apply -f "$TMP/obj/Namespace.json" 2>&1) || fail "namespace: $out"
# This cluster serves Kueue's kinds, as one with Kueue's CRDs: the queues
# go to the cluster and leave echelon's -f (docs/kubernetes.md).
out=$(K apply -f "$TMP/etc/queues.yaml" 2>&1) || fail "queues: $out"
# The GPU nodes as the walk-through makes them.
for n in $(K get nodes -o jsonpath='{.items[*].metadata.name}'); do
	K label nodes "$n" echelon.dev/pool=gpu >/dev/null || fail "label $n"
	K taint nodes "$n" echelon.dev/pool=gpu:NoSchedule >/dev/null ||
		fail "taint $n"
done

# The init container's command, on local paths, with a Secret's token.
mkdir -p "$TMP/run/echelon/metrics-token" "$TMP/var/lib/echelon"
TOKEN=0123456789abcdef0123456789abcdef
printf '%s' "$TOKEN" >"$TMP/run/echelon/metrics-token/token"
local_paths() {
	sed -e "s|/run/echelon/|$TMP/run/echelon/|g" \
		-e "s|/var/lib/echelon|$TMP/var/lib/echelon|g" \
		-e "s|/etc/echelon/|$TMP/etc/|g"
}
init=$(q Deployment "${POD}['initContainers'][0]['command'][2]" | local_paths)
sh -c "$init" || fail "the init container's command: $init"
[ "$(cat "$TMP/var/lib/echelon/token")" = "$TOKEN" ] ||
	fail "the init container did not copy the token"
state=$(q Deployment "[e['value'] for e in ${C}['env'] if e['name'] == 'XDG_STATE_HOME'][0]")

# replica ID: start echelon with the Deployment's arguments as pod ID;
# sets PID and RPORT (its port).
replica() {
	q Deployment "${C}['args']" | local_paths |
		sed -e "s|^--in-cluster\$|--kubeconfig\\n$KUBECONFIG|" \
			-e "s|^\$(POD_NAME)\$|$1|" \
			-e 's|^0\.0\.0\.0:8080$|0.0.0.0:0|' |
		awk -v q="$TMP/etc/queues.yaml" \
			'p == "-f" && $0 == q { p = ""; next }
			{ if (p != "") print p; p = $0 } END { print p }' \
			>"$TMP/args-$1"
	grep -q -- '^--kubeconfig$' "$TMP/args-$1" ||
		fail "no --in-cluster in the Deployment's arguments"
	: >"$TMP/$1.log"
	# shellcheck disable=SC2046
	XDG_STATE_HOME=$TMP$state "$ECHELON" $(cat "$TMP/args-$1") \
		2>"$TMP/$1.log" &
	PID=$!
	REPLICAS="$REPLICAS $PID"
	RPORT=""
	i=0
	while [ -z "$RPORT" ] && [ $i -lt 300 ]; do
		kill -0 "$PID" 2>/dev/null ||
			fail "$1 exited: $(cat "$TMP/$1.log")"
		RPORT=$(sed -n 's/.*msg="listening" addr=[^ ]*:\([0-9]*\) .*/\1/p' \
			"$TMP/$1.log" | head -n 1)
		[ -n "$RPORT" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$RPORT" ] || fail "$1 did not say where it listens"
}
holder() {
	K -n echelon-system get lease echelon \
		-o jsonpath='{.spec.holderIdentity}' 2>/dev/null
}
holder_is() { [ "$(holder)" = "$1" ]; }
# probes PORT: every probe of the Deployment as a kubelet sends it (no
# token, the certificate not checked) answers 200.
probes() {
	for p in startupProbe livenessProbe readinessProbe; do
		scheme=$(q Deployment "${C}['$p']['httpGet'].get('scheme', 'HTTP').lower()")
		path=$(q Deployment "${C}['$p']['httpGet']['path']")
		until_ok 30 curl -fsk "$scheme://127.0.0.1:$1$path" ||
			fail "$p $scheme $path: $(curl -sk "$scheme://127.0.0.1:$1$path")"
	done
}

replica pod-a
A_PID=$PID
A_PORT=$RPORT
probes "$A_PORT"
until_ok 20 holder_is pod-a ||
	fail "the Lease's holder is \"$(holder)\", not pod-a"
replica pod-b
B_PID=$PID
probes "$RPORT"

# /metrics as the ServiceMonitor scrapes it, and refused without the token.
ep="o['spec']['endpoints'][0]"
scheme=$(q ServiceMonitor "${ep}['scheme']")
path=$(q ServiceMonitor "${ep}['path']")
out=$(curl -fsk -H "Authorization: Bearer $TOKEN" \
	"$scheme://127.0.0.1:$A_PORT$path") || fail "the ServiceMonitor's scrape"
printf '%s\n' "$out" | grep -q '^echelon_leader{lease="echelon-system/echelon"} 1$' ||
	fail "no echelon_leader 1 for the Lease on the leader"
code=$(curl -sk -o /dev/null -w '%{http_code}' "$scheme://127.0.0.1:$A_PORT$path")
[ "$code" = 401 ] || fail "/metrics without the token: $code"

# The walk-through's Job, bound whole in one rack.
sed -n '/^   cat >train.yaml <<.EOF.$/,/^   EOF$/p' "$SRC/docs/kubernetes.md" |
	sed -e '1d' -e '$d' -e 's/^   //' >"$TMP/train.yaml"
grep -q 'schedulerName: echelon' "$TMP/train.yaml" ||
	fail "no walk-through Job in docs/kubernetes.md"
out=$(K apply -f "$TMP/train.yaml" 2>&1) || fail "apply train.yaml: $out"
bound() {
	[ "$(K get pods -l job-name=train -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' |
		grep -c .)" -eq 2 ]
}
until_ok 30 bound || fail "the walk-through's Job is not bound: $(K get pods -o wide 2>&1)"
racks=$(for n in $(K get pods -l job-name=train -o jsonpath='{.items[*].spec.nodeName}'); do
	K get node "$n" -o jsonpath='{.metadata.labels.cloud\.provider\.com/topology-rack}{"\n"}'
done | sort -u | grep -c .)
[ "$racks" -eq 1 ] || fail "the gang spans $racks racks"
train_nodes=$(K get pods -l job-name=train -o jsonpath='{.items[*].spec.nodeName}')
echo "walk-through Job bound: $(K get pods -l job-name=train -o wide --no-headers 2>&1 | awk '{print $1, $7}' | tr '\n' ' ')"

# Its step 6: a gang too big for any rack waits whole, and says why.
sed -n "/^   sed -e 's\/^  name: train\\\$\/  name: big\//,/train.yaml |\$/p" \
	"$SRC/docs/kubernetes.md" | sed -e 's/^   //' -e 's/ train.yaml |$/ "$TMP\/train.yaml"/' \
	>"$TMP/big.sh"
grep -q 'name: big' "$TMP/big.sh" || fail "no step 6 in docs/kubernetes.md"
. "$TMP/big.sh" >"$TMP/big.yaml" || fail "step 6's sed: $(cat "$TMP/big.sh")"
if ! grep -q '^  name: big$' "$TMP/big.yaml" ||
	! grep -q 'queue-name: training$' "$TMP/big.yaml"; then
	fail "step 6 makes: $(cat "$TMP/big.yaml")"
fi
out=$(K apply -f "$TMP/big.yaml" 2>&1) || fail "apply big: $out"
# 4 pods, none bound, and the Job says why in a FailedScheduling Event.
why() {
	K get events --field-selector involvedObject.kind=Job,involvedObject.name=big,reason=FailedScheduling \
		-o jsonpath='{.items[0].message}' 2>/dev/null
}
waiting() {
	[ "$(K get pods -l job-name=big -o name | grep -c .)" -eq 4 ] &&
		[ -n "$(why)" ]
}
until_ok 30 waiting ||
	fail "the big gang: $(K get pods -l job-name=big 2>&1) $(why)"
[ -z "$(K get pods -l job-name=big -o jsonpath='{.items[*].spec.nodeName}')" ] ||
	fail "a pod of the big gang is bound"
# Every pod of it says why on its PodScheduled condition (step 6's
# jsonpath), the ones made after the gang's reason was found too.
reasons() {
	K get pods -l job-name=big -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}'
}
said() { [ "$(reasons | grep -c '^False [A-Za-z]')" -eq 4 ]; }
until_ok 30 said || fail "the big gang's pods say: $(reasons)"
echo "big gang waits: $(why)"

# A leader that stops releases the Lease: the other takes it.
kill -TERM "$A_PID"
rc=0
wait "$A_PID" || rc=$?
[ "$rc" -eq 0 ] || fail "pod-a exited with $rc after SIGTERM: $(tail -n 5 "$TMP/pod-a.log")"
until_ok 10 holder_is pod-b ||
	fail "pod-b did not take the Lease: \"$(holder)\""
# The new leader adopts the running gang: no bind timeout (a gang whose
# pods are all bound taken for partly bound), nothing moved.
sleep 1
timeouts() {
	K get events -A -o jsonpath='{range .items[*]}{.involvedObject.name}: {.message}{"\n"}{end}' |
		grep BindTimeout
}
[ -z "$(timeouts)" ] || fail "evicted for a bind timeout: $(timeouts)"
[ "$(K get pods -l job-name=train -o jsonpath='{.items[*].spec.nodeName}')" = "$train_nodes" ] ||
	fail "the walk-through's Job moved: $(K get pods -l job-name=train -o wide 2>&1)"
kill -TERM "$B_PID"
rc=0
wait "$B_PID" || rc=$?
[ "$rc" -eq 0 ] || fail "pod-b exited with $rc after SIGTERM"
REPLICAS=""
stop_serve
echo "ok"

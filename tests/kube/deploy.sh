#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# deploy/ checked as CI can without a cluster:
#   1. kustomize (kubectl 1.35's) renders every kustomization, and every
#      manifest file is a resource of its folder's kustomization;
#   2. every object passes the official schemas offline (npm
#      kubernetes-models, tests/kube/deploy-schemas.mjs), unknown fields
#      included, and a broken copy of the Deployment is refused at the
#      right lines (the checker checks);
#   3. the Deployment agrees with the rest: its image tag is echelon's
#      version, its -f files are keys of the ConfigMap mounted at
#      /etc/echelon and pass `echelon validate --strict`, `echelon serve`
#      knows its arguments, its probes speak HTTP or HTTPS to the port
#      echelon listens on, the Role and bindings grant its Lease to its
#      service account, its pod meets the "restricted" Pod Security
#      Standard as the image's user, and the image's runtime packages
#      (deploy/runtime-packages.sh) are found for this build;
#   4. kubectl 1.35 and 1.20 apply the rendered objects with
#      --dry-run=server to a running `echelon serve`: the kinds it serves
#      are answered as created and nothing is stored; the kinds it does not
#      serve are listed as skipped. The Kueue objects of the ConfigMap
#      are dry-run applied too.
. "$(dirname "$0")/../serve/lib/common.sh"

K135=$CLIENTS/kubectl-1.35/kubectl
NODE_DIR=$CLIENTS/node
DEPLOY=$SRC/deploy
[ -x "$K135" ] || skip "no kubectl 1.35 (scripts/setup-clients.sh installs it)"
command -v node >/dev/null 2>&1 || skip "no node"
[ -d "$NODE_DIR/node_modules/kubernetes-models" ] ||
	skip "no kubernetes-models (scripts/setup-clients.sh installs it)"
# The newest kubectl and the oldest (Debian's 1.20) bracket the others,
# which tests/serve/kubectl.sh sweeps.
list=$K135
[ -x "$CLIENTS/kubectl-1.20/kubectl" ] && list="$list $CLIENTS/kubectl-1.20/kubectl"

# split FILE DIR PREFIX: each YAML document of FILE as DIR/PREFIX-NNN.json,
# and one line "PREFIX-NNN apiVersion kind namespace name" per document on
# stdout.
split() {
	node --input-type=module -e '
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
const [dir, file, out, prefix] = process.argv.slice(1);
const YAML = createRequire(resolve(dir, "node_modules/x.js"))("yaml");
let i = 0;
for (const doc of YAML.parseAllDocuments(readFileSync(file, "utf8"))) {
  const o = doc.toJS();
  if (!o) continue;
  const n = prefix + "-" + String(++i).padStart(3, "0");
  writeFileSync(`${out}/${n}.json`, JSON.stringify(o));
  const md = o.metadata || {};
  console.log(n, o.apiVersion, o.kind, md.namespace || "-", md.name);
}' "$NODE_DIR" "$1" "$2" "$3"
}

echo "== 1. kustomize"
manifests=""
for dir in "$DEPLOY" "$DEPLOY"/*/; do
	dir=${dir%/}
	[ -f "$dir/kustomization.yaml" ] || continue
	name=${dir#"$SRC"/}
	out=$("$K135" kustomize "$dir" 2>&1) || fail "kustomize $name: $out"
	printf '%s\n' "$out" >"$TMP/rendered-$(basename "$dir").yaml"
	for f in "$dir"/*.yaml; do
		base=$(basename "$f")
		[ "$base" = kustomization.yaml ] && continue
		grep -q "^- $base\$" "$dir/kustomization.yaml" ||
			fail "$name/$base is not a resource of $name/kustomization.yaml"
		manifests="$manifests $f"
	done
	n=$(printf '%s\n' "$out" | grep -c '^kind:')
	echo "$name: $n objects"
done
[ -n "$manifests" ] || fail "no manifest in deploy/"

echo "== 2. schemas (kubernetes-models)"
# shellcheck disable=SC2086
out=$(node "$SRC/tests/kube/deploy-schemas.mjs" "$NODE_DIR" $manifests 2>&1) ||
	fail "schemas: $out"
printf '%s\n' "$out"
sed -e 's/^  replicas: 2$/  replicas: two/' \
	-e 's/^        imagePullPolicy: IfNotPresent$/        imagePolicy: IfNotPresent/' \
	"$DEPLOY/deployment.yaml" >"$TMP/broken.yaml"
out=$(node "$SRC/tests/kube/deploy-schemas.mjs" "$NODE_DIR" "$TMP/broken.yaml" 2>&1) &&
	fail "a broken Deployment passed: $out"
line=$(grep -n '^  replicas: two$' "$TMP/broken.yaml" | cut -d: -f1)
expect_line() { # what output
	printf '%s\n' "$2" | grep -q -- "$1" || fail "no \"$1\" in: $2"
}
expect_line "broken.yaml:$line:13: Deployment/echelon: spec.replicas: must be integer" "$out"
line=$(grep -n 'imagePolicy' "$TMP/broken.yaml" | cut -d: -f1)
expect_line "broken.yaml:$line:9: Deployment/echelon: spec.template.spec.containers\[0\].imagePolicy: unknown field" "$out"

echo "== 3. the Deployment against the rest"
mkdir "$TMP/split"
for f in "$TMP"/rendered-*.yaml; do
	p=${f#"$TMP"/rendered-}
	split "$f" "$TMP/split" "${p%.yaml}" >>"$TMP/objects" ||
		fail "cannot split $f"
done
dep=$(awk '$3 == "Deployment" { print $1 }' "$TMP/objects")
cm=$(awk '$3 == "ConfigMap" { print $1 }' "$TMP/objects")
{ [ -n "$dep" ] && [ -n "$cm" ]; } || fail "no Deployment or ConfigMap in deploy/"
# field JSON EXPR: a value of the object in JSON file (Python expression
# over o), one per line.
field() {
	$PY -c 'import json, sys
o = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print("\n".join(v) if isinstance(v, list) else v)' "$1" "$2"
}
c='o["spec"]["template"]["spec"]["containers"][0]'
image=$(field "$TMP/split/$dep.json" "' '.join(sorted({x['image'] for x in o['spec']['template']['spec']['containers'] + o['spec']['template']['spec'].get('initContainers', [])}))")
version=$("$ECHELON" version | sed -n 's/^echelon //p')
[ "$image" = "echelon:$version" ] ||
	fail "the Deployment's images are $image, echelon is $version"
field "$TMP/split/$dep.json" "${c}[\"args\"]" >"$TMP/args"
mount=$(field "$TMP/split/$dep.json" \
	"[m['mountPath'] for m in ${c}['volumeMounts'] if m['name'] == 'config'][0]")
[ "$mount" = /etc/echelon ] || fail "the ConfigMap is mounted at $mount"
mkdir "$TMP/etc"
field "$TMP/split/$cm.json" 'list(o["data"])' >"$TMP/keys"
while read -r key; do
	field "$TMP/split/$cm.json" "o['data']['$key']" >"$TMP/etc/$key"
done <"$TMP/keys"
files=""
prev=""
while read -r a; do
	if [ "$prev" = -f ]; then
		case $a in
		/etc/echelon/*) ;;
		*) fail "-f $a is not in the ConfigMap's mount" ;;
		esac
		key=${a#/etc/echelon/}
		grep -qx "$key" "$TMP/keys" || fail "-f $a: no key $key in the ConfigMap"
		files="$files -f $TMP/etc/$key"
	fi
	prev=$a
done <"$TMP/args"
[ -n "$files" ] || fail "the Deployment gives echelon no -f"
# Beyond loopback echelon serves TLS: the probes must speak HTTPS to the
# port it listens on.
listen=$(sed -n '/^--listen$/{n;p;}' "$TMP/args")
case $listen in
127.* | localhost:* | "[::1]":*) scheme=HTTP ;;
*) scheme=HTTPS ;;
esac
port=${listen##*:}
probes=$(field "$TMP/split/$dep.json" "[p + ' ' + ${c}[p]['httpGet'].get('scheme', 'HTTP') + ' ' + str(([x['containerPort'] for x in ${c}['ports'] if x['name'] == ${c}[p]['httpGet']['port']] or [${c}[p]['httpGet']['port']])[0]) for p in ('startupProbe', 'livenessProbe', 'readinessProbe')]")
printf '%s\n' "$probes" | while read -r p s n; do
	[ "$s" = "$scheme" ] && [ "$n" = "$port" ] ||
		fail "$p: $s to port $n, echelon listens on $listen ($scheme)"
done || exit 1
# shellcheck disable=SC2086
out=$("$ECHELON" validate --strict $files 2>&1) ||
	fail "the ConfigMap's files: $out"
printf '%s\n' "$out"
# Every argument is one `echelon serve` knows (--help last: all before it
# are parsed, none acted on; tests/kube/deploy_walkthrough.sh runs them).
# shellcheck disable=SC2046
out=$("$ECHELON" $(cat "$TMP/args") --help 2>&1 >/dev/null) ||
	fail "echelon refuses the Deployment's arguments: $out"
# RBAC for what the arguments name: the Role for the Lease is in its
# namespace and names it, and the bindings name the pod's service account.
lease=$(sed -n '/^--lease$/{n;p;}' "$TMP/args")
sa=$(field "$TMP/split/$dep.json" "o['spec']['template']['spec']['serviceAccountName']")
ns=$(field "$TMP/split/$dep.json" "o['metadata']['namespace']")
one() { # KIND: the file of the one object of that kind
	n=$(awk -v k="$1" '$3 == k { print $1 }' "$TMP/objects")
	[ "$(printf '%s\n' "$n" | grep -c .)" -eq 1 ] ||
		fail "deploy/ has not one $1 but: $n"
	echo "$TMP/split/$n.json"
}
f_Role=$(one Role) && f_RoleBinding=$(one RoleBinding) &&
	f_ClusterRoleBinding=$(one ClusterRoleBinding) &&
	f_ServiceAccount=$(one ServiceAccount) || exit 1
[ "$(field "$f_ServiceAccount" "o['metadata']['name'] + '/' + o['metadata']['namespace']")" = "$sa/$ns" ] ||
	fail "the service account is not $sa in $ns"
for b in "$f_RoleBinding" "$f_ClusterRoleBinding"; do
	[ "$(field "$b" "' '.join(s['kind'] + ':' + s['namespace'] + '/' + s['name'] for s in o['subjects'])")" = "ServiceAccount:$ns/$sa" ] ||
		fail "$(basename "$b"): its subject is not the service account $ns/$sa"
done
[ "$(field "$f_Role" "o['metadata']['namespace'] + '/' + ','.join(n for r in o['rules'] if 'update' in r['verbs'] for n in r.get('resourceNames', []))")" = "$lease" ] ||
	fail "the Role does not let the pods update their Lease $lease"

# The Pod Security Standard "restricted" (namespace.yaml enforces it), and
# the image's user.
out=$($PY - "$TMP/split/$dep.json" "$DEPLOY/Containerfile" <<'EOT'
import json, re, sys
spec = json.load(open(sys.argv[1]))["spec"]["template"]["spec"]
bad = []
psc = spec.get("securityContext", {})
for key in ("hostNetwork", "hostPID", "hostIPC"):
    if spec.get(key):
        bad.append(key)
for v in spec.get("volumes", []):
    kinds = set(v) - {"name"}
    if not kinds <= {"configMap", "secret", "emptyDir", "projected",
                     "downwardAPI", "persistentVolumeClaim", "ephemeral"}:
        bad.append("volume %s: %s" % (v["name"], ", ".join(sorted(kinds))))
if psc.get("seccompProfile", {}).get("type") != "RuntimeDefault":
    bad.append("securityContext.seccompProfile.type is not RuntimeDefault")
for c in spec.get("initContainers", []) + spec["containers"]:
    sc = c.get("securityContext", {})
    where = "container " + c["name"]
    if sc.get("allowPrivilegeEscalation") is not False:
        bad.append(where + ": allowPrivilegeEscalation is not false")
    if sc.get("privileged"):
        bad.append(where + ": privileged")
    if sc.get("capabilities", {}).get("drop") != ["ALL"]:
        bad.append(where + ": capabilities.drop is not [ALL]")
    if set(sc.get("capabilities", {}).get("add", [])) - {"NET_BIND_SERVICE"}:
        bad.append(where + ": capabilities.add")
    if not sc.get("runAsNonRoot", psc.get("runAsNonRoot")):
        bad.append(where + ": runAsNonRoot is not true")
    if sc.get("runAsUser", psc.get("runAsUser")) == 0:
        bad.append(where + ": runAsUser 0")
    if any(p.get("hostPort") for p in c.get("ports", [])):
        bad.append(where + ": hostPort")
user = re.findall(r"^USER\s+(\d+)", open(sys.argv[2]).read(), re.M)
if not user or int(user[-1].split(":")[0]) != psc.get("runAsUser"):
    bad.append("the image's USER %s is not runAsUser %s"
               % (user, psc.get("runAsUser")))
print("\n".join(bad))
EOT
) || fail "cannot check the pod's security: $out"
[ -z "$out" ] || fail "the Deployment's pod is not restricted: $out"
out=$(sh "$DEPLOY/runtime-packages.sh" "$ECHELON" 2>&1) ||
	fail "runtime-packages.sh: $out"
echo "runtime packages: $(printf "%s\n" "$out" | tr "\n" " ")"
for p in libc6 libfyaml0 libjansson4; do
	printf '%s\n' "$out" | grep -qx "$p" || fail "runtime packages lack $p"
done

echo "== 4. kubectl apply --dry-run=server"
for KC in $list; do
	# a fresh server per kubectl: the namespaces made below are gone
	start_serve
	V=$("$KC" version --client 2>/dev/null | sed -n \
		's/.*Client Version: \(v[0-9][0-9.]*\).*/\1/p;s/.*GitVersion:"\(v[0-9][0-9.]*\)".*/\1/p' |
		head -n 1)
	K() { "$KC" --kubeconfig "$KUBECONFIG" --cache-dir "$TMP/cache-$V" \
		--request-timeout=20s "$@"; }
	echo "kubectl $V ($KC)"
	K api-resources --no-headers >"$TMP/resources" 2>&1 ||
		fail "$V api-resources: $(cat "$TMP/resources")"
	served() { # apiVersion kind
		awk -v v="$1" -v k="$2" '$(NF-2) == v && $NF == k { f = 1 }
			END { exit !f }' "$TMP/resources"
	}
	skipped=""
	applied=0
	# Namespaces first, and each really created after its dry run: the
	# server checks a namespaced object's namespace even in a dry run.
	for pass in Namespace other; do
		while read -r n api kind ns name; do
			if [ "$pass" = Namespace ] && [ "$kind" != Namespace ]; then
				continue
			elif [ "$pass" = other ] && [ "$kind" = Namespace ]; then
				continue
			fi
			if ! served "$api" "$kind"; then
				skipped="$skipped $kind/$name"
				continue
			fi
			nsopt=""
			[ "$ns" = - ] || nsopt="-n $ns"
			# shellcheck disable=SC2086
			K get $nsopt "$kind.${api%/*}" "$name" >/dev/null 2>&1 &&
				[ "$kind" != Namespace ] &&
				fail "$V: $kind/$name exists before the dry run"
			out=$(K apply --dry-run=server -f "$TMP/split/$n.json" 2>&1) ||
				fail "$V apply --dry-run=server $kind/$name: $out"
			echo "  $out"
			printf '%s\n' "$out" | grep -q "(server dry run)" ||
				fail "$V: not a server dry run: $out"
			if [ "$kind" = Namespace ]; then
				K get namespace "$name" >/dev/null 2>&1 &&
					fail "$V: the dry run created namespace $name"
				out=$(K apply -f "$TMP/split/$n.json" 2>&1) ||
					fail "$V: apply namespace $name: $out"
			else
				# shellcheck disable=SC2086
				K get $nsopt "$kind.${api%/*}" "$name" >/dev/null 2>&1 &&
					fail "$V: the dry run created $kind/$name"
			fi
			applied=$((applied + 1))
		done <"$TMP/objects"
	done
	[ "$applied" -gt 0 ] || fail "$V: no object of deploy/ was applied"
	echo "  skipped, not served by echelon serve:$skipped"
	for key in $(cat "$TMP/keys"); do
		grep -q '^apiVersion: kueue.x-k8s.io/' "$TMP/etc/$key" || continue
		out=$(K apply --dry-run=server -f "$TMP/etc/$key" 2>&1) ||
			fail "$V apply --dry-run=server the ConfigMap's $key: $out"
		printf '%s\n' "$out" | sed 's/^/  /'
		n=$(printf '%s\n' "$out" | grep -c "(server dry run)")
		[ "$n" -eq "$(grep -c '^kind:' "$TMP/etc/$key")" ] ||
			fail "$V: $key: $n of its objects dry-run applied: $out"
		out=$(K get clusterqueues -o name 2>&1)
		[ -z "$out" ] || fail "$V: the dry run stored $out"
	done
	stop_serve
	rm -rf "$TMP/data"
done
echo "ok"

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `echelon serve` driven by @kubernetes/client-node 1.x: an informer
# (list, then watch) sees a pod created after it started, and a merge
# patch.
. "$(dirname "$0")/lib/common.sh"

mod=$CLIENTS/node/node_modules
command -v node >/dev/null 2>&1 || skip "no node"
[ -d "$mod/@kubernetes/client-node" ] ||
	skip "no @kubernetes/client-node (scripts/setup-clients.sh installs it)"
start_serve --cluster blocks=1,racks=1,hosts=1,gpus=8 --no-schedule

cat >"$TMP/informer.mjs" <<'EOF2'
const k8s = await import(process.env.CLIENT_NODE);
const kc = new k8s.KubeConfig();
kc.loadFromFile(process.env.KUBECONFIG);
const api = kc.makeApiClient(k8s.CoreV1Api);
const inf = k8s.makeInformer(kc, '/api/v1/namespaces/default/pods',
	() => api.listNamespacedPod({ namespace: 'default' }));
const seen = [];
let finished = false;
const done = (code, msg) => {
	if (finished)
		return;
	finished = true;
	console.log(msg);
	inf.stop();
	process.exit(code);
};
setTimeout(() => done(1, 'timeout: ' + JSON.stringify(seen)), 15000);
inf.on('add', (p) => { seen.push('add ' + p.metadata.name); });
inf.on('update', (p) => {
	seen.push('update ' + p.metadata.name);
	if (p.metadata.labels && p.metadata.labels.patched === 'yes')
		done(0, 'node ok ' + JSON.stringify(seen));
});
inf.on('error', (e) => done(1, 'error ' + e));
await inf.start();
await api.createNamespacedPod({ namespace: 'default', body: {
	metadata: { name: 'n1' },
	spec: { schedulerName: 'external',
		containers: [{ name: 'c', image: 'busybox' }] } } });
await api.patchNamespacedPod({ name: 'n1', namespace: 'default',
	body: { metadata: { labels: { patched: 'yes' } } } },
	k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
EOF2
CLIENT_NODE=$mod/@kubernetes/client-node/dist/index.js timeout 30 node \
	"$TMP/informer.mjs" >"$TMP/node.out" 2>&1 ||
	fail "client-node: $(cat "$TMP/node.out")"
cat "$TMP/node.out"
stop_serve
echo "ok"

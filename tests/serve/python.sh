#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `echelon serve` driven by Debian's python3-kubernetes: list, watch,
# patch (strategic merge), and binding a pod that an external scheduler
# owns (--no-schedule leaves every pod to it).
. "$(dirname "$0")/lib/common.sh"

$PY -c 'import kubernetes' 2>/dev/null ||
	skip "no python3-kubernetes (scripts/setup-clients.sh installs it)"
start_serve --cluster blocks=1,racks=1,hosts=2,gpus=8 --no-schedule

$PY - "$KUBECONFIG" >"$TMP/py.out" 2>&1 <<'EOF2' || fail "python: $(cat "$TMP/py.out")"
import sys, threading, time
from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
v1 = client.CoreV1Api()

nodes = v1.list_node().items
assert len(nodes) == 2, [n.metadata.name for n in nodes]
node = nodes[0].metadata.name

# A watch from the list's resourceVersion sees the pod created after it.
rv = v1.list_namespaced_pod("default").metadata.resource_version
seen = []
def watcher():
    w = watch.Watch()
    for ev in w.stream(v1.list_namespaced_pod, "default",
                       resource_version=rv, timeout_seconds=10):
        seen.append((ev["type"], ev["object"].metadata.name))
        if any(t == "MODIFIED" for t, _ in seen):
            w.stop()
t = threading.Thread(target=watcher)
t.start()
time.sleep(0.5)

pod = client.V1Pod(
    metadata=client.V1ObjectMeta(name="p1"),
    spec=client.V1PodSpec(
        scheduler_name="external",
        containers=[client.V1Container(name="c", image="busybox")]))
v1.create_namespaced_pod("default", pod)

# Strategic merge patch of a label.
v1.patch_node(node, {"metadata": {"labels": {"echelon.dev/py": "yes"}}})
assert v1.read_node(node).metadata.labels["echelon.dev/py"] == "yes"

# Bind the pod as an external scheduler does.
body = client.V1Binding(
    metadata=client.V1ObjectMeta(name="p1"),
    target=client.V1ObjectReference(api_version="v1", kind="Node", name=node))
v1.create_namespaced_pod_binding("p1", "default", body,
                                 _preload_content=False)
got = v1.read_namespaced_pod("p1", "default")
assert got.spec.node_name == node, got.spec.node_name
# Binding it elsewhere again is a conflict.
try:
    v1.create_namespaced_pod_binding("p1", "default", client.V1Binding(
        metadata=client.V1ObjectMeta(name="p1"),
        target=client.V1ObjectReference(kind="Node",
                                        name=nodes[1].metadata.name)),
        _preload_content=False)
    raise SystemExit("second binding accepted")
except client.rest.ApiException as e:
    assert e.status == 409, e.status

t.join(15)
assert ("ADDED", "p1") in seen, seen
assert ("MODIFIED", "p1") in seen, seen

# The server's defaults, as the typed client reads them.
assert got.spec.restart_policy == "Always", got.spec.restart_policy
assert got.spec.dns_policy == "ClusterFirst", got.spec.dns_policy
assert got.spec.containers[0].image_pull_policy == "Always"
batch = client.BatchV1Api()
job = batch.create_namespaced_job("default", client.V1Job(
    metadata=client.V1ObjectMeta(name="j1"),
    spec=client.V1JobSpec(template=client.V1PodTemplateSpec(
        spec=client.V1PodSpec(restart_policy="Never", containers=[
            client.V1Container(name="c", image="busybox:1.36")])))))
uid = job.metadata.uid
sel = job.spec.selector.match_labels
assert sel == {"batch.kubernetes.io/controller-uid": uid}, sel
labels = batch.read_namespaced_job("j1", "default").spec.template.metadata.labels
assert labels["job-name"] == "j1" and labels["controller-uid"] == uid, labels
assert job.spec.backoff_limit == 6 and job.spec.completions == 1, job.spec
print("python ok", seen)
EOF2
cat "$TMP/py.out"
stop_serve
echo "ok"

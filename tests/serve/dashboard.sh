#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The dashboard at "/" as a browser shows it: a headless Chromium (Debian's
# chromium, installed by scripts/setup-clients.sh) driven through the
# DevTools protocol (Debian's python3-websocket) loads the page of a daemon
# scheduling the quickstart, and the page must show the daemon's state,
# checked against the API itself: a heat-map cell per node with the GPUs
# its bound pods request, a row per workload and ClusterQueue, the nodes of
# the workload named in the URL outlined. Then it must follow the watch
# stream (a Job created after the page loaded appears), and the keyboard
# (arrows, Enter, Escape) must select and clear workloads. The screenshot is
# kept as a build artefact (BUILD/artifacts/dashboard.png).
# usage: sh dashboard.sh ECHELON SOURCE_DIR [CLIENTS_DIR]
. "$(dirname "$0")/lib/common.sh"

chrome=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium (scripts/setup-clients.sh installs it)"
$PY -c 'import websocket' 2>/dev/null ||
	skip "no python3-websocket (scripts/setup-clients.sh installs it)"
art=$(dirname "$ECHELON")/artifacts
mkdir -p "$art"

start_serve -f "$SRC/examples/quickstart" --speed 60
# The quickstart's first gangs are bound within a few turns.
until_ok 20 sh -c "curl -fs '$URL/api/v1/pods' | grep -q nodeName" ||
	fail "no pod was bound"

# Its own session, so that its helper processes go with it at the end.
HOME=$TMP setsid "$chrome" --headless --disable-gpu --no-sandbox --no-first-run \
	--user-data-dir="$TMP/profile" --remote-debugging-port=0 \
	--remote-allow-origins='*' --window-size=1400,1000 about:blank \
	2>"$TMP/chromium.log" &
CHROME_PID=$!
stop_chrome() {
	kill -9 "-$CHROME_PID" 2>/dev/null
	i=0
	while pgrep -s "$CHROME_PID" >/dev/null 2>&1 && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
trap 'stop_chrome; cleanup' EXIT INT TERM
until_ok 30 test -s "$TMP/profile/DevToolsActivePort" ||
	fail "chromium did not open its DevTools port: $(tail -n 5 "$TMP/chromium.log")"
DEVTOOLS=$(head -n 1 "$TMP/profile/DevToolsActivePort")

$PY - "$URL" "$DEVTOOLS" "$TMP/dashboard.png" <<'PYEOF' || fail "the dashboard does not show the daemon's state"
import base64, json, sys, time, urllib.request
import websocket

url, port, png = sys.argv[1], sys.argv[2], sys.argv[3]


def api(path, body=None):
    req = urllib.request.Request(url + path, method="POST" if body else "GET",
                                 data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


targets = json.load(urllib.request.urlopen(
    "http://127.0.0.1:%s/json/list" % port, timeout=10))
page = [t for t in targets if t.get("type") == "page"][0]
ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
seq = [0]


def cdp(method, **params):
    seq[0] += 1
    ws.send(json.dumps({"id": seq[0], "method": method, "params": params}))
    while True:
        m = json.loads(ws.recv())
        if m.get("id") == seq[0]:
            if "error" in m:
                raise SystemExit("%s: %s" % (method, m["error"]))
            return m.get("result", {})


def js(expr):
    r = cdp("Runtime.evaluate", expression=expr, returnByValue=True)
    return r.get("result", {}).get("value")


def until(what, expr, seconds=20):
    end = time.time() + seconds
    while time.time() < end:
        v = js(expr)
        if v:
            return v
        time.sleep(0.2)
    raise SystemExit("timed out waiting for " + what)


def key(k, code):
    for t in ("keyDown", "keyUp"):
        cdp("Input.dispatchKeyEvent", type=t, key=k, code=code,
            windowsVirtualKeyCode={"ArrowDown": 40, "Enter": 13,
                                   "Escape": 27}[k])


def gpus(p):
    n = 0
    for c in p["spec"].get("containers", []):
        v = c.get("resources", {}).get("requests", {}).get("nvidia.com/gpu")
        n += int(v) if v else 0
    return n


def truth():
    used, by_owner = {}, {}
    for p in api("/api/v1/pods")["items"]:
        node = p["spec"].get("nodeName")
        if not node or p.get("status", {}).get("phase") in ("Succeeded", "Failed"):
            continue
        used[node] = used.get(node, 0) + gpus(p)
        for r in p["metadata"].get("ownerReferences", []):
            by_owner.setdefault(r["uid"], set()).add(node)
    return used, by_owner


wls = api("/apis/kueue.x-k8s.io/v1beta2/workloads")["items"]
running = [w for w in wls if w.get("status", {}).get("admission")]
assert running, "no admitted workload"
sel = running[0]["metadata"]
sel_key = sel["namespace"] + "/" + sel["name"]
cdp("Page.navigate", url=url + "/#wl=" + sel_key)
until("the page to go live",
      "document.getElementById('conn').className === 'live' && "
      "document.querySelectorAll('#workloads tbody tr').length === %d" % len(wls))

# The heat map against the API: every node, the GPUs in use on each.
cells = js("[...document.querySelectorAll('#heat .host')].map(e => "
           "[e.dataset.node, +e.dataset.used, +e.dataset.gpus, e.className])")
nodes = api("/api/v1/nodes")["items"]
assert len(cells) == len(nodes), "%d cells for %d nodes" % (len(cells), len(nodes))
used, by_owner = truth()
shown = {c[0]: c[1] for c in cells}
for n in nodes:
    name = n["metadata"]["name"]
    assert shown[name] == used.get(name, 0), \
        "%s: page shows %s GPUs in use, the API %s" % (name, shown[name], used.get(name, 0))
busy = sum(1 for c in cells if c[1] > 0)
assert busy > 0, "no cell shows GPUs in use"
assert all(("u0" in c[3]) == (c[1] == 0) for c in cells), "colour does not follow use"

# The selected workload's nodes are outlined, and only those.
owner = running[0]["metadata"]["ownerReferences"][0]["uid"]
hl = set(js("[...document.querySelectorAll('#heat .host.hl')].map(e => e.dataset.node)"))
assert hl == by_owner.get(owner, set()), "outlined %s, its pods are on %s" % (
    sorted(hl), sorted(by_owner.get(owner, set())))
assert js("document.querySelector('#workloads tr.selected').dataset.wl") == sel_key

# Placement: hosts and racks of each admitted workload, as its pods are.
racks = {n["metadata"]["name"]: n["metadata"]["labels"].get(
    "cloud.provider.com/topology-rack") for n in nodes}
place = dict(js("[...document.querySelectorAll('#workloads tbody tr')].map(r => "
                "[r.dataset.wl, r.cells[5].textContent])"))
for w in running:
    on = by_owner.get(w["metadata"]["ownerReferences"][0]["uid"], set())
    if not on:
        continue
    k = w["metadata"]["namespace"] + "/" + w["metadata"]["name"]
    nr = len({racks[h] for h in on})
    want = "%d host%s, %d rack%s" % (len(on), "" if len(on) == 1 else "s",
                                    nr, "" if nr == 1 else "s")
    assert place[k].startswith(want), "%s: page says %r, its pods %r" % (k, place[k], want)

# Queues: a row per ClusterQueue, admitted counts as their status says.
cqs = api("/apis/kueue.x-k8s.io/v1beta2/clusterqueues")["items"]
rows = js("[...document.querySelectorAll('#queues tbody tr')].map(r => "
          "[r.dataset.cq, r.cells[2].textContent])")
assert sorted(r[0] for r in rows) == sorted(c["metadata"]["name"] for c in cqs), rows
for c in cqs:
    want = str(c.get("status", {}).get("admittedWorkloads", 0))
    got = [r[1] for r in rows if r[0] == c["metadata"]["name"]][0]
    assert got == want, "%s: admitted %s on the page, %s in its status" % (
        c["metadata"]["name"], got, want)

# Live: a Job created now appears through the watch, without a reload.
api("/apis/batch/v1/namespaces/team-a/jobs", {
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "dash-live", "namespace": "team-a",
                 "labels": {"kueue.x-k8s.io/queue-name": "training"}},
    "spec": {"parallelism": 1, "completions": 1, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "t", "image": "trainer",
                        "resources": {"requests": {"nvidia.com/gpu": "8"}}}]}}}})
until("the new Job's workload on the page",
      "[...document.querySelectorAll('#workloads tbody tr')].some(r => "
      "r.dataset.wl.startsWith('team-a/job-dash-live-'))", 15)

# A gang beyond the quota waits: Pending, first in its queue, and why.
api("/apis/batch/v1/namespaces/team-b/jobs", {
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "dash-huge", "namespace": "team-b",
                 "labels": {"kueue.x-k8s.io/queue-name": "training"}},
    "spec": {"parallelism": 48, "completions": 48, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "t", "image": "trainer",
                        "resources": {"requests": {"nvidia.com/gpu": "8"}}}]}}}})
row = until("the pending gang with its position",
            "(r => r && r.cells[3].textContent !== '' && r.cells[6].textContent !== '' ? "
            "[r.dataset.wl, r.dataset.phase, r.cells[3].textContent, r.cells[6].textContent] : null)("
            "[...document.querySelectorAll('#workloads tbody tr')].find(r => "
            "r.dataset.wl.startsWith('team-b/job-dash-huge-')))", 15)
w = api("/apis/kueue.x-k8s.io/v1beta2/namespaces/team-b/workloads/" + row[0].split("/")[1])
msg = [c["message"] for c in w["status"]["conditions"] if c["type"] == "QuotaReserved"][0]
assert row[1] == "Pending" and row[2] == "0" and row[3] == msg, (row, msg)

# Keyboard: Escape clears, arrows move, Enter selects.
key("Escape", "Escape")
until("Escape to clear the selection",
      "!document.querySelector('#workloads tr.selected') && "
      "!document.querySelector('#heat .host.hl')")
js("document.querySelector('#workloads tbody tr').focus()")
key("ArrowDown", "ArrowDown")
key("Enter", "Enter")
second = until("Enter to select the second row",
               "(document.querySelector('#workloads tr.selected') || {dataset: {}}).dataset.wl")
order = js("[...document.querySelectorAll('#workloads tbody tr')].map(r => r.dataset.wl)")
assert second == order[1], "selected %s, the second row is %s" % (second, order[1])

shot = cdp("Page.captureScreenshot", format="png")
open(png, "wb").write(base64.b64decode(shot["data"]))
print("dashboard: %d nodes (%d in use), %d workloads, %d queues; selection, "
      "pending reason, live update and keyboard ok" % (len(cells), busy, len(wls) + 2, len(cqs)))
PYEOF
cp "$TMP/dashboard.png" "$art/dashboard.png"
stop_serve

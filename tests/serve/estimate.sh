#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Start-time estimates against the daemon, checked against the outcome:
# two hosts of 8 GPUs, two single-host Jobs running (30 s and 5 minutes)
# and two waiting (30 s each: the second after the first), nothing else
# arriving. Each waiting one's estimate (explain's estimatedWaitSeconds,
# the same in /metrics, a timestamp in the visibility API) is compared
# with when it is admitted (the eventTime, in microseconds, of its
# QuotaReserved Event): within TOLERANCE simulated seconds. What is left
# is the kubelets' start-up jitter (the estimate counts its mean) and the
# daemon's turns between an admission and its pods' start and between
# their end and the next admission, each a few milliseconds of the wall
# clock that the clock's speed makes tenths of seconds: 0.3 to 0.8 s
# measured on a loaded machine. Then two Jobs that never end take the
# hosts: what waits behind them has an unknown estimate and no sample in
# /metrics. The clock runs 30 times the wall clock: about 4 s in all.
# usage: sh estimate.sh ECHELON SOURCE_DIR [CLIENTS_DIR]
. "$(dirname "$0")/lib/common.sh"

SPEED=30
TOLERANCE=5

start_serve --cluster blocks=1,racks=1,hosts=2,gpus=8 --speed $SPEED \
	-f "$SRC/tests/serve/data/queues.yaml"

# jobs.py URL [name=duration | name]...: create single-host Jobs of 8
# GPUs, with a sim.echelon.dev/duration or running until deleted
cat >"$TMP/jobs.py" <<'PYEOF'
import json, sys, urllib.request
def create(url, name, duration=None):
    ann = {"sim.echelon.dev/duration": duration} if duration else {}
    body = {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": "default", "annotations": ann,
                         "labels": {"kueue.x-k8s.io/queue-name": "main"}},
            "spec": {"parallelism": 1, "completions": 1, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "t", "image": "trainer",
                "resources": {"requests": {"nvidia.com/gpu": "8"}}}]}}}}
    req = urllib.request.Request(url + "/apis/batch/v1/namespaces/default/jobs",
                                 data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()
if __name__ == "__main__":
    for a in sys.argv[2:]:
        create(sys.argv[1], *a.split("="))
PYEOF

# All four at once (a few milliseconds apart: the clock runs fast).
PYTHONPATH=$TMP $PY - "$URL" "$SPEED" "$TOLERANCE" "$TMP/metrics.txt" \
	"$TMP/d.txt" <<'PYEOF' || fail "estimates"
import json, re, sys, time, urllib.request
from jobs import create
url, speed, tol = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
for j, d in (("a", "30s"), ("b", "5m"), ("c", "30s"), ("d", "30s")):
    create(url, j, d)

def get(path):
    return urllib.request.urlopen(url + path, timeout=10).read().decode()

def workload(job):
    for w in json.loads(get("/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads"))["items"]:
        if w["metadata"]["name"].startswith("job-" + job + "-"):
            return w
    return None

def admitted(w):
    return any(c["type"] == "QuotaReserved" and c["status"] == "True"
               for c in w.get("status", {}).get("conditions", []))

def explain(name):
    t0 = time.time()
    e = json.loads(get("/apis/echelon.dev/v1alpha1/namespaces/default/workloads/"
                       + name + "/explain"))
    return e, (t0 + time.time()) / 2

def wait_for(what, cond, limit=20):
    end = time.time() + limit
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.02)
    sys.exit("timed out waiting for " + what)

# a and b run, c and d wait
wl = {j: wait_for("Workload of " + j, lambda j=j: workload(j)) for j in "abcd"}
wait_for("a and b admitted", lambda: all(admitted(workload(j)) for j in "ab"))
name = {j: wl[j]["metadata"]["name"] for j in "abcd"}
est = {}
for j in "cd":
    e, t = explain(name[j])
    L = {l["layer"]: l for l in e["layers"]}["admission"]
    if e["state"] != "Pending" or "estimatedWaitSeconds" not in L:
        sys.exit("no estimate for %s:\n%s" % (j, e["text"]))
    if "estimated admission in " not in e["text"]:
        sys.exit("no estimate in the text of %s:\n%s" % (j, e["text"]))
    est[j] = (t + L["estimatedWaitSeconds"] / speed, L)
# c follows a, d follows c (b runs longer than both)
if not est["c"][1]["estimatedAfter"].startswith("default/job-a-"):
    sys.exit("c waits for %s" % est["c"][1]["estimatedAfter"])
if not est["d"][1]["estimatedAfter"].startswith("default/job-c-"):
    sys.exit("d waits for %s" % est["d"][1]["estimatedAfter"])
# the visibility API and /metrics say the same
vis = json.loads(get("/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/main/pendingworkloads"))
got = {i["metadata"]["name"]: i for i in vis["items"]}
for j in "cd":
    i = got.get(name[j])
    if not i or not re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", i.get("estimatedAdmissionTime", "")):
        sys.exit("visibility: %s: %s" % (j, json.dumps(i)))
    if i["positionInClusterQueue"] != "cd".index(j):
        sys.exit("visibility: %s: position %s" % (j, i["positionInClusterQueue"]))
metrics = get("/metrics")
open(sys.argv[4], "w").write(metrics)
open(sys.argv[5], "w").write(explain(name["d"])[0]["text"])
for j in "cd":
    m = re.search(r'^echelon_pending_workload_estimated_wait_seconds\{namespace="default",'
                  r'workload="%s",cluster_queue="main"\} (\S+)$' % name[j], metrics, re.M)
    if not m:
        sys.exit("no estimated wait of %s in /metrics" % j)
    if abs(float(m.group(1)) - est[j][1]["estimatedWaitSeconds"]) > 0.1 * speed:
        sys.exit("/metrics says %s s for %s, explain %s s" %
                 (m.group(1), j, est[j][1]["estimatedWaitSeconds"]))

# the outcome: when each was admitted, from its QuotaReserved Event
wait_for("c and d admitted", lambda: all(admitted(workload(j)) for j in "cd"))
def parse(ts):
    m = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z$", ts)
    import calendar
    s = calendar.timegm(tuple(int(x) for x in m.groups()[:6]))
    return s + (float(m.group(7)) if m.group(7) else 0.0)
events = json.loads(get("/api/v1/namespaces/default/events"))["items"]
for j in "cd":
    at = [parse(e["eventTime"]) for e in events
          if e["reason"] == "QuotaReserved" and e["involvedObject"]["name"] == name[j]]
    if len(at) != 1:
        sys.exit("%d QuotaReserved Events of %s" % (len(at), j))
    err = (at[0] - est[j][0]) * speed
    print("estimate of %s: %+.2f s (simulated) from the outcome" % (j, -err))
    if abs(err) > tol:
        sys.exit("%s admitted %.2f s (simulated) from its estimate, more than %s s"
                 % (j, err, tol))
PYEOF

# The series passes Prometheus' linter; the text says when and after what.
if command -v promtool >/dev/null; then
	promtool check metrics <"$TMP/metrics.txt" >"$TMP/lint" 2>&1 ||
		fail "promtool check metrics: $(cat "$TMP/lint")"
else
	skip "no promtool (Debian package prometheus)"
fi
grep -q "^   estimated admission in [0-9hmds]* (at 20[0-9-]*T[0-9:]*Z), after default/job-c-[0-9a-f]* ends$" "$TMP/d.txt" ||
	fail "explain's text of d: $(cat "$TMP/d.txt")"

# Two that never end take both hosts once c and d are done; the third
# waits behind them for good: unknown, never a number.
$PY "$TMP/jobs.py" "$URL" u1 u2 u3 || fail "cannot create u1, u2, u3"
$PY - "$URL" <<'PYEOF' || fail "unknown estimate"
import json, re, sys, time, urllib.request
url = sys.argv[1]
def get(path):
    return urllib.request.urlopen(url + path, timeout=10).read().decode()
def name(job):
    for w in json.loads(get("/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads"))["items"]:
        if w["metadata"]["name"].startswith("job-" + job + "-"):
            return w["metadata"]["name"]
end = time.time() + 10
while time.time() < end and not name("u3"):
    time.sleep(0.02)
n = name("u3")
e = json.loads(get("/apis/echelon.dev/v1alpha1/namespaces/default/workloads/" + n + "/explain"))
L = {l["layer"]: l for l in e["layers"]}["admission"]
if e["state"] != "Pending" or L.get("estimatedAdmissionTime", 0) is not None \
        or "estimated admission: unknown" not in e["text"]:
    sys.exit("u3 is not unknown:\n" + json.dumps(L) + "\n" + e["text"])
if re.search(r'^echelon_pending_workload_estimated_wait_seconds\{[^}]*workload="%s"' % n,
             get("/metrics"), re.M):
    sys.exit("a sample of u3's unknown wait in /metrics")
vis = json.loads(get("/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/main/pendingworkloads"))
for i in vis["items"]:
    if i["metadata"]["name"] == n and "estimatedAdmissionTime" in i:
        sys.exit("visibility: an estimate for u3: " + json.dumps(i))
PYEOF
echo "ok"

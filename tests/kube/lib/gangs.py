# SPDX-License-Identifier: Apache-2.0
"""Watch a cluster's gangs from the outside and check echelon's promises.

Polls the cluster (`echelon serve --no-schedule`) over HTTP every 0.2 s
and asserts, for the gangs of a namespace (a scheduler-plugins PodGroup
and the pods labelled with it; a Job and its pods):

- no gang stays partly bound (some of its live pods on a node, some not)
  longer than --bound seconds;
- no pod is bound twice: a pod's uid keeps the node it first got, and
  in the cluster's log (`echelon serve --faults` logs every successful
  binding) one uid is bound to one node only;
- the quota of each ClusterQueue is never exceeded by the bound, running
  pods of its LocalQueues (nominal quota, summed over flavors): a gang
  evicted because a bind failed keeps its quota until the cluster has
  deleted its bound pods (--quota-bound allows an overrun that short, for
  experiments; 0 by default); the longest overrun is printed;
- in the end (--until) every gang has finished (`finished`: its pods
  Succeeded, or its Job Complete) or is wholly bound (`bound`), before
  --timeout seconds.

It also plays the operator of the PodGroups' pods (as Kubeflow's or the
MPI operator do): a pod of an unfinished PodGroup that disappears (echelon
deletes the pods of a gang it evicts) is created again under its name, so
that every gang can finish.

Requests the cluster fails (it may be injecting faults) are retried.
Prints one summary line; exits 1 with the reason on a violation.
"""
import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.request

POD_GROUP = "scheduling.x-k8s.io/pod-group"
JOB_NAME = "batch.kubernetes.io/job-name"
QUEUE = "kueue.x-k8s.io/queue-name"


def get(url, path):
    """GET path as JSON, retrying what the cluster fails for 20 s."""
    until = time.time() + 20
    while True:
        try:
            with urllib.request.urlopen(url + path, timeout=10) as r:
                return json.load(r)
        except (urllib.error.URLError, OSError, ValueError) as e:
            if isinstance(e, urllib.error.HTTPError) and e.code == 404:
                return {"items": []}
            if time.time() > until:
                raise SystemExit(f"FAIL: GET {path}: {e}")
            time.sleep(0.1)


def quantity(v):
    """A Kubernetes quantity as a float (the suffixes the tests use)."""
    m = re.fullmatch(r"([0-9.]+)([a-zA-Z]*)", str(v))
    if not m:
        return 0.0
    units = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    return float(m.group(1)) * units.get(m.group(2), 1)


def post(url, path, body):
    """POST body as JSON; the cluster may fail it (faults): best effort."""
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                 method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
    except (urllib.error.URLError, OSError):
        pass


def requests(pod):
    total = {}
    for c in pod["spec"].get("containers", []):
        for r, v in c.get("resources", {}).get("requests", {}).items():
            total[r] = total.get(r, 0) + quantity(v)
    return total


def live(pod):
    return ("deletionTimestamp" not in pod["metadata"] and
            pod["status"].get("phase") not in ("Succeeded", "Failed"))


class Checker:
    def __init__(self, a):
        self.a = a
        self.node_of = {}       # pod uid -> node it was first seen on
        self.partial_since = {}  # gang -> when first seen partly bound
        self.worst_partial = 0.0
        self.max_use = {}       # ClusterQueue -> highest use seen
        self.made = {}          # PodGroup pod name -> its first spec
        self.recreated = 0
        self.over_since = {}    # ClusterQueue -> when first seen over
        self.worst_over = 0.0
        self.polls = 0

    def fail(self, msg):
        print(f"FAIL: {msg}", file=sys.stderr)
        sys.exit(1)

    def poll(self):
        a, ns = self.a, self.a.namespace
        pods = get(a.url, f"/api/v1/namespaces/{ns}/pods")["items"]
        jobs = get(a.url, f"/apis/batch/v1/namespaces/{ns}/jobs")["items"]
        pgs = get(a.url, "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/"
                  f"{ns}/podgroups")["items"]
        now = time.time()
        self.polls += 1
        # No pod bound twice: a uid keeps its node.
        for p in pods:
            uid, node = p["metadata"]["uid"], p["spec"].get("nodeName")
            if not node:
                continue
            first = self.node_of.setdefault(uid, node)
            if first != node:
                self.fail(f"pod {p['metadata']['name']} ({uid}) moved from "
                          f"{first} to {node}")
        # Gangs: PodGroups and Jobs, with their live pods.
        gangs = {}
        for pg in pgs:
            gangs[f"podgroup/{pg['metadata']['name']}"] = {
                "size": pg["spec"].get("minMember", 1), "pods": [],
                "done": False}
        for j in jobs:
            conds = j.get("status", {}).get("conditions", [])
            gangs[f"job/{j['metadata']['name']}"] = {
                "size": j["spec"].get("parallelism", 1), "pods": [],
                "done": any(c["type"] == "Complete" and
                            c["status"] == "True" for c in conds)}
        for p in pods:
            labels = p["metadata"].get("labels", {})
            key = (f"podgroup/{labels[POD_GROUP]}" if POD_GROUP in labels
                   else f"job/{labels[JOB_NAME]}" if JOB_NAME in labels
                   else None)
            if key in gangs:
                gangs[key]["pods"].append(p)
        for key, g in gangs.items():
            ps = [p for p in g["pods"] if live(p)]
            bound = sum(1 for p in ps if p["spec"].get("nodeName"))
            if key.startswith("podgroup/") and g["pods"] and all(
                    p["status"].get("phase") == "Succeeded"
                    for p in g["pods"]):
                g["done"] = len(g["pods"]) >= g["size"]
            g["bound"] = bound == len(ps) and len(ps) >= g["size"]
            if 0 < bound < len(ps):
                since = self.partial_since.setdefault(key, now)
                self.worst_partial = max(self.worst_partial, now - since)
                if now - since > a.bound:
                    self.fail(f"{key}: {bound} of {len(ps)} pods bound for "
                              f"{now - since:.1f} s (bound {a.bound} s): " +
                              ", ".join(f"{p['metadata']['name']}="
                                        f"{p['spec'].get('nodeName') or '-'}"
                                        for p in ps))
            else:
                self.partial_since.pop(key, None)
        self.check_quota(pods, jobs)
        self.recreate(pods, gangs)
        return gangs

    def learn(self, pods):
        """The PodGroup pods to make again: the first spec seen of each."""
        ns = self.a.namespace
        for p in pods:
            group = p["metadata"].get("labels", {}).get(POD_GROUP)
            name = p["metadata"]["name"]
            if group and name not in self.made:
                spec = dict(p["spec"])
                spec.pop("nodeName", None)
                self.made[name] = (group, {
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": name, "namespace": ns,
                                 "labels": p["metadata"].get("labels", {}),
                                 "annotations":
                                 p["metadata"].get("annotations", {})},
                    "spec": spec})

    def recreate(self, pods, gangs):
        """The operator's part: pods of unfinished PodGroups come back."""
        a, ns = self.a, self.a.namespace
        names = {p["metadata"]["name"] for p in pods}
        self.learn(pods)
        for name, (group, body) in self.made.items():
            g = gangs.get(f"podgroup/{group}")
            if name in names or not g or g["done"]:
                continue
            post(a.url, f"/api/v1/namespaces/{ns}/pods", body)
            self.recreated += 1

    def check_quota(self, pods, jobs):
        a = self.a
        cqs = get(a.url, "/apis/kueue.x-k8s.io/v1beta2/clusterqueues")["items"]
        lqs = get(a.url, f"/apis/kueue.x-k8s.io/v1beta2/namespaces/"
                  f"{a.namespace}/localqueues")["items"]
        cq_of = {lq["metadata"]["name"]: lq["spec"]["clusterQueue"]
                 for lq in lqs}
        quota = {}
        for cq in cqs:
            q = {}
            for rg in cq["spec"].get("resourceGroups", []):
                for fl in rg.get("flavors", []):
                    for r in fl.get("resources", []):
                        q[r["name"]] = (q.get(r["name"], 0) +
                                        quantity(r["nominalQuota"]))
            quota[cq["metadata"]["name"]] = q
        queue_of_job = {j["metadata"]["name"]:
                        j["metadata"].get("labels", {}).get(QUEUE)
                        for j in jobs}
        use = {}
        for p in pods:
            if not live(p) or not p["spec"].get("nodeName"):
                continue
            labels = p["metadata"].get("labels", {})
            lq = labels.get(QUEUE) or queue_of_job.get(labels.get(JOB_NAME))
            cq = cq_of.get(lq)
            if cq not in quota:
                continue
            u = use.setdefault(cq, {})
            for r, v in requests(p).items():
                u[r] = u.get(r, 0) + v
        now = time.time()
        for cq in quota:
            over = [(r, v) for r, v in use.get(cq, {}).items()
                    if r in quota[cq] and v > quota[cq][r] + 1e-9]
            if not over:
                self.over_since.pop(cq, None)
                continue
            since = self.over_since.setdefault(cq, now)
            self.worst_over = max(self.worst_over, now - since)
            if now - since > a.quota_bound:
                r, v = over[0]
                self.fail(f"ClusterQueue {cq}: bound pods use {v:g} {r} "
                          f"for {now - since:.1f} s, its quota is "
                          f"{quota[cq][r]:g}")
        for cq, u in use.items():
            for r, v in u.items():
                m = self.max_use.setdefault(cq, {})
                m[r] = max(m.get(r, 0), v)

    def check_log(self):
        """One node per bound uid in the cluster's binding log."""
        if not self.a.log:
            return 0
        nodes = {}
        n = 0
        with open(self.a.log, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.search(r"faults: bound pod=(\S+) node=(\S+) "
                              r"uid=(\S+)", line)
                if not m:
                    continue
                n += 1
                pod, node, uid = m.groups()
                key = uid if uid != "-" else pod
                nodes.setdefault(key, set()).add(node)
        for key, ns in nodes.items():
            if len(ns) > 1:
                self.fail(f"pod {key} bound to {sorted(ns)}")
        return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--namespace", default="default")
    ap.add_argument("--gangs", type=int, required=True,
                    help="how many gangs to expect")
    ap.add_argument("--bound", type=float, default=30)
    ap.add_argument("--quota-bound", type=float, default=0)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--until", choices=("finished", "bound"),
                    default="finished")
    ap.add_argument("--log", help="the cluster's log (binding lines)")
    ap.add_argument("--pods", help="a PodList read before the scheduler "
                    "started: PodGroup pods it may delete before the "
                    "first look, made again as the operator would")
    a = ap.parse_args()
    c = Checker(a)
    if a.pods:
        with open(a.pods) as f:
            c.learn(json.load(f)["items"])
    t0 = time.time()
    while True:
        gangs = c.poll()
        state = "done" if a.until == "finished" else "bound"
        ready = [k for k, g in gangs.items() if g[state] or g["done"]]
        if len(gangs) >= a.gangs and len(ready) == len(gangs):
            break
        if time.time() - t0 > a.timeout:
            c.fail(f"after {a.timeout:g} s, {len(ready)} of {len(gangs)} "
                   f"gangs ({a.gangs} expected) {a.until}: " +
                   ", ".join(sorted(set(gangs) - set(ready))))
        time.sleep(0.2)
    binds = c.check_log()
    print(f"{len(gangs)} gangs {a.until} in {time.time() - t0:.1f} s, "
          f"{c.polls} polls; longest partly bound {c.worst_partial:.1f} s; "
          f"longest over quota {c.worst_over:.1f} s; "
          f"{c.recreated} pods made again; "
          f"{len(c.node_of)} pods bound, {binds} binding replies logged; "
          f"peak use {json.dumps(c.max_use, sort_keys=True)}")


main()

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The simulation report as a browser shows it: a headless Chromium (Debian's
# chromium, installed by scripts/setup-clients.sh) loads the report.html of
# the quickstart under two policies, and the page it built must show the
# run's numbers: the summary cells the terminal table printed, a row per
# ClusterQueue and run, and the job that waited longest with its wait and
# reasons from workloads.jsonl, and every tas job shown with its modelled
# cross-rack and cross-block traffic. Its screenshot is kept as a build artefact
# (BUILD/artifacts/sim-report.png, BUILD the folder of ECHELON).
# usage: sh sim_report.sh ECHELON SOURCE_DIR [CLIENTS_DIR]
. "$(dirname "$0")/lib/common.sh"

chrome=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium (scripts/setup-clients.sh installs it)"
art=$(dirname "$ECHELON")/artifacts
mkdir -p "$art"

q=$SRC/examples/quickstart
"$ECHELON" sim -q -f "$q" --trace "$q/trace.jsonl" \
	--compare tas,kube-default --seed 7 --out "$TMP/out" >"$TMP/table" ||
	fail "sim failed"
[ -f "$TMP/out/report.html" ] || fail "no report.html"

# Chromium wants a writable home and profile; each run gets its own.
browse() { # flags...
	HOME=$TMP timeout 60 "$chrome" --headless --disable-gpu --no-sandbox \
		--no-first-run --user-data-dir="$TMP/profile" \
		--window-size=1280,6000 "$@" "file://$TMP/out/report.html" \
		2>>"$TMP/chromium.log"
}
browse --dump-dom >"$TMP/dom.html" ||
	fail "chromium --dump-dom: $(tail -n 5 "$TMP/chromium.log")"
browse --screenshot="$TMP/report.png" >/dev/null ||
	fail "chromium --screenshot: $(tail -n 5 "$TMP/chromium.log")"
cp "$TMP/report.png" "$art/sim-report.png"

$PY - "$TMP/dom.html" "$TMP/table" "$TMP/out/workloads.jsonl" \
	"$TMP/report.png" <<'EOF' || fail "the report does not show the run"
import json, sys
from html.parser import HTMLParser

dom, table, records, png = sys.argv[1:5]


class Tables(HTMLParser):
    """Every table as rows of (text, title) cells; svg elements counted."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell, self.svgs = [], None, 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            self.cell = ["", dict(attrs).get("title")]
        elif tag == "svg":
            self.svgs += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append((self.cell[0].strip(), self.cell[1]))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[0] += data


p = Tables()
p.feed(open(dom, encoding="utf-8").read())
bad = []

def texts(row):
    return [c[0] for c in row]

# The summary: the terminal table's cells, row by row, policy by policy.
summary = next(t for t in p.tables if t and texts(t[0])[1:3] == ["tas", "kube-default"])
rows = {texts(r)[0]: texts(r) for r in summary[1:]}
for line in open(table, encoding="utf-8"):
    for label in ("p95 wait", "GPU utilization", "goodput", "jobs finished"):
        if line.startswith(label + "  "):
            cells = [c.strip() for c in line[len(label):].split("  ") if c.strip()]
            if rows.get(label, [None])[1:3] != cells:
                bad.append("summary %s: page %s, terminal %s" % (label, rows.get(label), cells))
            if not rows[label][3]:
                bad.append("summary %s says nothing of what it means" % label)

# A row per ClusterQueue and run.
cqs = next(t for t in p.tables if t and texts(t[0])[0] == "ClusterQueue")
names = {" ".join(texts(r)[0].split()) for r in cqs[2:]}
for cq in ("team-a", "team-b"):
    for pol in ("tas", "kube-default"):
        if cq + " " + pol not in names:
            bad.append("no ClusterQueue row %s %s in %s" % (cq, pol, sorted(names)))

# The tas job that waited longest: its row, its exact wait, its reasons.
recs = [json.loads(l) for l in open(records, encoding="utf-8")]
tas = [r for r in recs if r["policy"] == "tas" and r["wait_s"] is not None]
top = max(tas, key=lambda r: r["wait_s"])
jobs = next(t for t in p.tables if t and texts(t[0])[0] == "job")
row = next((r for r in jobs[2:] if texts(r)[0].endswith("/" + top["name"])), None)
if row is None:
    bad.append("job %s (wait %s s) not in the job table" % (top["name"], top["wait_s"]))
else:
    wait = row[4]
    want = "%s s" % top["wait_s"]
    if wait[1] != want:
        bad.append("job %s wait: page %r, records %r" % (top["name"], wait[1], want))
    for reason in top.get("waits") or {}:
        if reason not in row[5][0]:
            bad.append("job %s: reason %s not shown: %r" % (top["name"], reason, row[5][0]))
# Each shown tas job's traffic, in the units people read, is its record's.
def rate(v):
    if v is None:
        return "-"
    if v < 999.5:
        return "%d B/s" % round(v)
    for unit in ("kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s"):
        v /= 1000
        if v < 999.95 or unit == "EB/s":
            return "%.1f %s" % (v, unit)

head = texts(jobs[0])
byname = {r["namespace"] + "/" + r["name"]: r for r in tas}
for col, key in (("cross-rack", "cross_rack_bytes_per_second"),
                 ("cross-block", "cross_block_bytes_per_second")):
    if col not in head:
        bad.append("no %s column in %s" % (col, head))
        continue
    for r in jobs[2:]:
        rec = byname.get(texts(r)[0])
        if rec and r[head.index(col)][0] != rate(rec[key]):
            bad.append("job %s %s: page %r, records %r" % (
                rec["name"], col, r[head.index(col)][0], rec[key]))
if p.svgs < 7:
    bad.append("%d charts" % p.svgs)
if open(png, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
    bad.append("the screenshot is no PNG")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
echo "ok: chromium shows the report's tables and charts ($art/sim-report.png)"

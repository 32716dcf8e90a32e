#!/usr/bin/env python3
"""openhtp-memory-map's page against qnn-context-binary-utility's JSON.

Runs both tools on one context binary, then checks
  1. the JSON plan against the graph it describes, computed here:
     - lifetimes: firstUse/lastUse are the first/last op whose inputs or
       outputs name the tensor (from the JSON's op list);
     - bytes: product of the dimensions times the data type's size;
     - the client I/O tensors are exactly the graph inputs/outputs
       libQnnSystem reports (the utility's standard graphInputs/Outputs);
     - VTCM: every slot aligned and ending within the budget; spill-fill
       and VTCM: no two tensors alive at the same op overlap; the totals
       cover every slot; spilled tensors carry a reason, "too big" exactly
       when a slot is bigger than the budget, "VTCM full at op K" only when
       the VTCM tensors alive at K leave no room, "no VTCM gap" only when
       they leave room at every op of its life;
  2. the page: no script, no external reference; one <rect class="tensor">
     per tensor of the plan, in the panel of its region, spanning its first
     to last op on x and its offset to offset + slot on y (by the panel's
     own scale), at least 3 px either way; a tooltip naming the tensor,
     shape, type and bytes; one op cell per op; the budget line at the
     budget; the spilled-tensor table listing exactly the spilled tensors.
Exit 0 when everything holds; otherwise every failure is printed and exit 1.
"""
import argparse
import html.parser
import json
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

DTYPE_BYTES = {
    "QNN_DATATYPE_FLOAT_32": 4, "QNN_DATATYPE_FLOAT_16": 2, "QNN_DATATYPE_INT_32": 4, "QNN_DATATYPE_UINT_32": 4,
    "QNN_DATATYPE_INT_8": 1, "QNN_DATATYPE_UINT_8": 1, "QNN_DATATYPE_UFIXED_POINT_8": 1,
    "QNN_DATATYPE_SFIXED_POINT_8": 1, "QNN_DATATYPE_UFIXED_POINT_16": 2, "QNN_DATATYPE_SFIXED_POINT_16": 2,
    "QNN_DATATYPE_SFIXED_POINT_32": 4, "QNN_DATATYPE_INT_64": 8, "QNN_DATATYPE_BOOL_8": 1,
    "QNN_DATATYPE_INT_16": 2, "QNN_DATATYPE_UINT_16": 2,
}
PANEL_OF = {"VTCM": "vtcm", "spill-fill": "spill-fill", "weights": "weights-io", "client I/O": "weights-io",
            "unplaced": "weights-io"}
MIN_BOX = 3.0

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        print("command failed (%d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout, p.stderr))
        sys.exit(1)
    return p


def check_plan(graph_info, plan, expect_ops, spills):
    name = graph_info["graphName"]
    ops = plan["ops"]
    check(plan["numOps"] == len(ops) == expect_ops, "%s: %d ops, expected %d" % (name, len(ops), expect_ops))
    first, last = {}, {}
    for op in ops:
        for tid in op["inputs"] + op["outputs"]:
            first.setdefault(tid, op["index"])
            last[tid] = op["index"]
    io_names = {t["info"]["name"] for t in graph_info["graphInputs"] + graph_info["graphOutputs"]}
    tensors = plan["tensors"]
    check({t["id"] for t in tensors} == set(first), "%s: plan tensors are not the tensors the ops use" % name)
    budget, align = plan["vtcmBudgetBytes"], plan["alignment"]
    for t in tensors:
        tn = "%s/%s" % (name, t["name"])
        check(t["firstUse"] == first.get(t["id"]) and t["lastUse"] == last.get(t["id"]),
              "%s: lifetime %s-%s, ops say %s-%s" % (tn, t["firstUse"], t["lastUse"], first.get(t["id"]),
                                                      last.get(t["id"])))
        check(t["bytes"] == math.prod(t["dimensions"]) * DTYPE_BYTES.get(t["dataType"], -1),
              "%s: %d bytes for %s %s" % (tn, t["bytes"], t["dataType"], t["dimensions"]))
        check((t["region"] == "client I/O") == (t["name"] in io_names), "%s: region %s" % (tn, t["region"]))
        if t["region"] in ("VTCM", "spill-fill"):
            check(t["offset"] % align == 0 and t["slotBytes"] >= t["bytes"] and t["slotBytes"] % align == 0,
                  "%s: offset %d / slot %d not aligned to %d" % (tn, t["offset"], t["slotBytes"], align))
        if t["region"] == "VTCM":
            check(t["offset"] + t["slotBytes"] <= budget, "%s: VTCM slot ends past the budget" % tn)
            check(t["offset"] + t["slotBytes"] <= plan["vtcmBytes"], "%s: VTCM slot past vtcmBytes" % tn)
        if t["region"] == "spill-fill":
            check(t["offset"] + t["slotBytes"] <= plan["spillFillBytes"], "%s: past spillFillBytes" % tn)
            reason = t["spillReason"] or ""
            check(reason != "", "%s: spilled without a reason" % tn)
            check(reason.startswith("too big") == (t["slotBytes"] > budget), "%s: reason '%s'" % (tn, reason))
        else:
            check(t["spillReason"] is None, "%s: a spill reason but not spilled" % tn)
    for region in ("VTCM", "spill-fill"):
        placed = [t for t in tensors if t["region"] == region]
        for i, a in enumerate(placed):
            for b in placed[:i]:
                alive = a["firstUse"] <= b["lastUse"] and b["firstUse"] <= a["lastUse"]
                apart = a["offset"] + a["slotBytes"] <= b["offset"] or b["offset"] + b["slotBytes"] <= a["offset"]
                check(not alive or apart, "%s: %s and %s overlap in %s" % (name, a["name"], b["name"], region))
    check(plan["arenaBytes"] == plan["vtcmBytes"] + plan["spillFillBytes"], "%s: arena != vtcm + spill" % name)
    spilled = [t for t in tensors if t["region"] == "spill-fill"]
    if spills == "none":
        check(not spilled and plan["spillFillBytes"] == 0, "%s: expected nothing spilled" % name)
    else:
        # Kernel workspaces (not in the binary) move the other spills around,
        # so only "too big" is certain; at least one spill must be another kind.
        check(any(t["slotBytes"] > budget for t in spilled) and any(t["slotBytes"] <= budget for t in spilled),
              "%s: expected spills both bigger than the budget and not" % name)
    # Each reason's claim, checked against the VTCM tensors alive at each op.
    vtcm = [t for t in tensors if t["region"] == "VTCM"]

    def live_at(op):
        return sum(v["slotBytes"] for v in vtcm if v["firstUse"] <= op <= v["lastUse"])

    for t in spilled:
        reason, tn = t["spillReason"], "%s/%s" % (name, t["name"])
        m = re.match(r"VTCM full at op (\d+) ", reason)
        if m:
            op = int(m.group(1))
            check(t["firstUse"] <= op <= t["lastUse"] and live_at(op) + t["slotBytes"] > budget,
                  "%s: '%s' but %d bytes live there" % (tn, reason, live_at(op)))
        elif reason.startswith("no VTCM gap"):
            check(all(live_at(op) + t["slotBytes"] <= budget for op in range(t["firstUse"], t["lastUse"] + 1)),
                  "%s: '%s' but VTCM is full at some op of its life" % (tn, reason))
        else:
            check(reason.startswith("too big for VTCM"), "%s: unknown reason '%s'" % (tn, reason))
    return spilled


class PageScan(html.parser.HTMLParser):
    """Flags scripts and anything the page would fetch."""

    def __init__(self):
        super().__init__()
        self.problems = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "iframe", "img", "object", "embed"):
            self.problems.append("<%s>" % tag)
        for k, v in attrs:
            if k in ("src", "href", "xlink:href") or k.startswith("on"):
                self.problems.append("%s=%r on <%s>" % (k, v, tag))


def check_page(path, plan, spilled):
    text = open(path, encoding="utf-8").read()
    scan = PageScan()
    scan.feed(text)
    check(not scan.problems, "%s: external or active content: %s" % (path, scan.problems))
    check("url(" not in text and "@import" not in text and "http://" not in text.replace(
        'xmlns="http://www.w3.org/2000/svg"', ""), "%s: a URL in the page" % path)
    m = re.search(r"<svg\b.*?</svg>", text, re.S)
    if not check(m is not None, "%s: no <svg>" % path):
        return
    ns = "{http://www.w3.org/2000/svg}"
    svg = ET.fromstring(m.group(0))
    width = float(svg.get("width"))
    n_ops = plan["numOps"]
    boxes = {}
    panels = {}
    for g in svg.iter(ns + "g"):
        if g.get("class") != "panel":
            continue
        panels[g.get("data-panel")] = g
        for r in g.iter(ns + "rect"):
            if r.get("class") == "tensor":
                check(int(r.get("data-id")) not in boxes, "%s: two boxes for id %s" % (path, r.get("data-id")))
                boxes[int(r.get("data-id"))] = (g, r)
    check(set(panels) == {"vtcm", "spill-fill", "weights-io"}, "%s: panels %s" % (path, sorted(panels)))
    check(set(boxes) == {t["id"] for t in plan["tensors"]}, "%s: boxes are not the plan's tensors" % path)
    op_w = float(panels["vtcm"].get("data-op-width"))
    # Readable at 150 ops: columns of at least 6 px, a page that fits a screen.
    check(op_w >= 6 and width <= 1400, "%s: %d ops drawn %.2f px each, %g px wide" % (path, n_ops, op_w, width))
    for t in plan["tensors"]:
        if t["id"] not in boxes:
            continue
        g, r = boxes[t["id"]]
        tn = t["name"]
        check(g.get("data-panel") == PANEL_OF[t["region"]], "%s: in panel %s" % (tn, g.get("data-panel")))
        x0, ow = float(g.get("data-x0")), float(g.get("data-op-width"))
        x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
        check(w >= MIN_BOX and h >= MIN_BOX, "%s: box %gx%g under %g px" % (tn, w, h, MIN_BOX))
        left, right = x0 + t["firstUse"] * ow, x0 + (t["lastUse"] + 1) * ow
        check(left <= x + 0.01 and x <= left + 1.01, "%s: x %g, op %d starts at %g" % (tn, x, t["firstUse"], left))
        check(x + w <= right + 0.01 and (x + w >= right - 1.01 or w == MIN_BOX),
              "%s: right edge %g, op %d ends at %g" % (tn, x + w, t["lastUse"], right))
        if t["region"] in ("VTCM", "spill-fill"):
            base, ppb = float(g.get("data-y-base")), float(g.get("data-px-per-byte"))
            want_bottom = base - t["offset"] * ppb
            want_h = max(MIN_BOX, t["slotBytes"] * ppb)
            check(abs(y + h - want_bottom) < 0.02, "%s: bottom %g, offset %d is at %g" % (tn, y + h, t["offset"],
                                                                                          want_bottom))
            check(abs(h - want_h) < 0.02, "%s: height %g, %d bytes are %g" % (tn, h, t["slotBytes"], want_h))
        tip = r.find(ns + "title")
        tip = tip.text if tip is not None else ""
        shape = "[" + ",".join(str(d) for d in t["dimensions"]) + "]"
        for part in (tn, shape, t["dataType"], "(%d B)" % t["bytes"], plan["ops"][t["firstUse"]]["name"]):
            check(part in tip, "%s: tooltip lacks %r: %r" % (tn, part, tip))
    cells = [r for r in svg.iter(ns + "rect") if r.get("class") == "op"]
    check(len(cells) == n_ops, "%s: %d op cells for %d ops" % (path, len(cells), n_ops))
    for c in cells:
        op = plan["ops"][int(c.get("data-index"))]
        check(op["name"] in c.find(ns + "title").text, "%s: op cell %s" % (path, c.get("data-index")))
    line = [e for e in svg.iter(ns + "line") if e.get("class") == "budget"]
    if check(len(line) == 1, "%s: %d budget lines" % (path, len(line))):
        line = line[0]
        g = panels["vtcm"]
        check(int(line.get("data-budget-bytes")) == plan["vtcmBudgetBytes"], "%s: budget line value" % path)
        if line.get("data-off-scale") == "false":
            want = float(g.get("data-y-base")) - plan["vtcmBudgetBytes"] * float(g.get("data-px-per-byte"))
            check(abs(float(line.get("y1")) - want) < 0.02, "%s: budget line at %s, want %g" % (path, line.get("y1"),
                                                                                               want))
    rows = set(int(i) for i in re.findall(r'<tr data-id="(\d+)">', text))
    check(rows == {t["id"] for t in spilled}, "%s: spilled table rows %s" % (path, sorted(rows)))
    for t in spilled:
        check(t["spillReason"].replace("&", "&amp;") in text, "%s: reason of %s missing" % (path, t["name"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--utility", required=True)
    ap.add_argument("--memory-map", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--ops", type=int, required=True, help="ops the (single) graph must have")
    ap.add_argument("--spills", choices=("none", "some"), required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    json_path = os.path.join(a.workdir, "info.json")
    run([a.utility, "--context_binary", a.binary, "--json_file", json_path])
    doc = json.load(open(json_path))
    graphs = doc["info"]["graphs"]
    check(len(graphs) == 1, "%d graphs, expected 1" % len(graphs))
    out_dir = os.path.join(a.workdir, "html")
    run([a.memory_map, "--context_binary", a.binary, "--output_dir", out_dir])
    for g in graphs:
        gi = g["info"]
        if not check("memoryPlan" in gi, "graph %s has no memoryPlan" % gi["graphName"]):
            continue
        spilled = check_plan(gi, gi["memoryPlan"], a.ops, a.spills)
        page = os.path.join(out_dir, re.sub(r"[^A-Za-z0-9._-]", "_", gi["graphName"]) + ".html")
        if check(os.path.isfile(page), "no page %s" % page):
            check_page(page, gi["memoryPlan"], spilled)
    for f in failures[:40]:
        print("FAIL:", f)
    if failures:
        print("%d failures" % len(failures))
        return 1
    print("ok: %s" % a.binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Ratios from bench_memory's JSON (bench_memory --json PATH).

For each N: DSP-process private memory (Private_Clean + Private_Dirty) of
shared_spillfill / internal and external_weights / internal, and the same
with the idle DSP process (right after backendCreate) subtracted. Then the
cost of one more context in each configuration (least-squares slope of
private memory over N) and the saving per extra context against internal.

    bench/summarize_memory.py memory_results.json
"""
import json
import sys

BASE = "internal"
OTHERS = ["shared_spillfill", "external_weights"]


def mib(kb):
    return kb / 1024.0


def slope(points):
    """Least-squares slope of [(n, kb)], in MiB per context; None if < 2 points."""
    if len(points) < 2:
        return None
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    den = sum((x - mx) ** 2 for x, _ in points)
    if den == 0:
        return None
    return mib(sum((x - mx) * (y - my) for x, y in points) / den)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        data = json.load(f)
    by = {}
    for r in data["results"]:
        by[(r["config"], r["n"])] = r
    g = data.get("graph", {})
    print("bench_memory summary: weights buffer %.1f MiB, spill-fill buffer %.1f MiB per context" %
          (g.get("weights_buffer_bytes", 0) / 2**20, g.get("spillfill_buffer_bytes", 0) / 2**20))
    ns = sorted({n for (c, n) in by if c == BASE})
    if not ns:
        print("no '%s' results: no baseline" % BASE)
        return 1
    print()
    print("DSP private memory, ratio to %s (lower is better; in brackets: idle DSP process subtracted)" % BASE)
    print("%4s %14s" % ("N", BASE + " MiB") + "".join(" %26s" % c for c in OTHERS))
    for n in ns:
        base = by[(BASE, n)]
        line = "%4d %14.1f" % (n, mib(base["private"]))
        for c in OTHERS:
            r = by.get((c, n))
            if r is None:
                line += " %26s" % "n/a"
                continue
            ratio = r["private"] / base["private"]
            bd = base["private"] - base["idle_private"]
            rd = r["private"] - r["idle_private"]
            line += " %26s" % ("%.3f (%.3f)" % (ratio, rd / bd if bd else float("nan")))
        print(line)
    print()
    print("Cost of one more context (slope of DSP private memory over N) and saving against %s:" % BASE)
    base_slope = slope([(n, by[(BASE, n)]["private"]) for n in ns])
    print("  %-17s %6.2f MiB per context" % (BASE, base_slope if base_slope is not None else float("nan")))
    for c in OTHERS:
        s = slope([(n, by[(c, n)]["private"]) for n in ns if (c, n) in by])
        if s is None or base_slope is None:
            print("  %-17s n/a" % c)
            continue
        print("  %-17s %6.2f MiB per context, saving %.2f MiB per extra context" % (c, s, base_slope - s))
    return 0


if __name__ == "__main__":
    sys.exit(main())

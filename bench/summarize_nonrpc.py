#!/usr/bin/env python3
"""Ratios from bench_nonrpc's JSON (openhtp-dsp-run bench_nonrpc --json PATH).

(a) DSP-heap bytes and RSS of N contexts sharing one spill-fill + VTCM-backup
    buffer pair against N contexts with a pair each, and what sharing saves
    against (N-1) pairs.
(b) The HIGH-priority tiny execute's latency while a LOW-priority long graph
    runs, against the tiny graph alone, the long graph's whole duration, and
    what it should cost: the op the long graph is in plus its VTCM save and
    restore.
(c) The Non-RPC tiny execute against the raw ping-pong of the same run, next
    to bench_execute's in-process (BM_TinyExecute/inproc) ratio when its JSON
    is given: Non-RPC should sit at that in-process floor.

    bench/summarize_nonrpc.py nonrpc.json [bench_execute.json ...]
"""
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for the import below
from summarize import Table, fmt_ns, fmt_ratio, load, ratio  # noqa: E402  (summarize.py, next to this file)


def section_error(doc, name):
    if doc.get("error"):
        return doc["error"]
    sec = doc.get(name)
    if sec is None:
        return "not in the results"
    return sec.get("error")


def kib(b):
    return b / 1024.0


def memory(doc):
    print("(a) Memory of N contexts from one binary: one shared spill-fill + VTCM-backup pair vs a pair each")
    err = section_error(doc, "memory")
    m = doc.get("memory") or {}
    rows = {(r["config"], r["n"]): r for r in m.get("results", [])}
    pair = m.get("spill_needed", 0) + m.get("backup_needed", 0)
    print(f"    one context needs {kib(m.get('spill_needed', 0)):.0f} KiB spill-fill + "
          f"{kib(m.get('backup_needed', 0)):.0f} KiB VTCM-backup = {kib(pair):.0f} KiB (the largest single need)")
    ns = sorted({n for (_, n) in rows})
    if ns:
        print(f"    {'N':>3} {'heap shared/own':>16} {'RSS shared/own':>15} {'shared buffers / single need':>29} "
              f"{'heap saved / ((N-1) pairs)':>27}")
    verdict_rows = []
    for n in ns:
        s, o = rows.get(("shared", n)), rows.get(("own", n))
        if s is None or o is None:
            continue
        saved = o["heap_bytes"] - s["heap_bytes"]
        per_pairs = saved / ((n - 1) * pair) if n > 1 and pair else None
        print(f"    {n:>3} {fmt_ratio(ratio(s['heap_bytes'], o['heap_bytes'])):>16} "
              f"{fmt_ratio(ratio(s['rss_bytes'], o['rss_bytes'])):>15} "
              f"{fmt_ratio(ratio(s['buffer_bytes'], pair)):>29} {fmt_ratio(per_pairs):>27}")
        if per_pairs is not None:
            verdict_rows.append(per_pairs)
    if rows:
        # What stays in the heap after every context and buffer is freed: a
        # few hundred bytes of QNN's own tables is first-use growth; a leaked
        # context or buffer would be a sizeable share of a row's heap bytes.
        worst = max(rows.values(), key=lambda r: r["heap_left"])
        share = worst["heap_left"] / min(r["heap_bytes"] for r in rows.values())
        print(f"    DSP heap after freeing everything: at most {worst['heap_left']} B above where it started "
              f"({worst['config']}, N={worst['n']}): "
              f"{'nothing of the contexts or buffers left behind' if share < 0.01 else '!! possible leak'}")
    if verdict_rows:
        ok = all(0.9 <= x <= 1.1 for x in verdict_rows)
        print(f"    sharing saves (N-1) whole pairs at every N (heap saved / ((N-1) pairs) within 0.9-1.1x): "
              f"{'met' if ok else 'NOT met'}")
    if err:
        print(f"    NOT MEASURED / FAILED: {err}")


def preemption(doc):
    print("\n(b) Preemption: tiny HIGH-priority execute submitted while a LOW-priority long graph runs")
    err = section_error(doc, "preemption")
    p = doc.get("preemption") or {}
    if not p.get("preempted"):
        print(f"    NOT MEASURED: {err or 'no preempted round'}")
        return
    lat, alone = p["latency_ns"], p["tiny_alone_ns"]
    long_wall = p["long_wall_ns"]["p50"]
    per_op = p["long_accel_ns"]["p50"] / p["long_ops"]
    one_op = p["one_op_accel_ns"]["p50"]
    longest_op = max(per_op, one_op)
    save = p["save_us"]["p50"] * 1e3
    restore = p["restore_us"]["p50"] * 1e3
    print(f"    {p['preempted']} of {p['rounds']} rounds preempted the long graph ({p['long_ops']} ops, "
          f"{fmt_ns(long_wall)} alone); in {p.get('not_preempted', 0)} the tiny execute found the HTP free "
          f"({p.get('submitted_after_return', 0)} of them submitted after the long execute had returned: the "
          f"submitting thread lost its CPU on this shared machine)")
    print(f"    long graph per op: total/ops {fmt_ns(per_op)}, one op alone {fmt_ns(one_op)}")
    print(f"    low execute's profile (p50): {p['yields']['p50']:.0f} yield(s), "
          f"{kib(p['vtcm_saved_bytes']['p50']):.0f} KiB VTCM saved, save {fmt_ns(save)}, restore {fmt_ns(restore)}; "
          f"{kib(p.get('backup_written', 0)):.0f} of {kib(p.get('backup_bytes', 0)):.0f} KiB of the client's "
          f"VTCM-backup buffer written by the saves")
    print(f"    tiny latency: p50 {fmt_ns(lat['p50'])}, p90 {fmt_ns(lat['p90'])}; tiny alone p50 "
          f"{fmt_ns(alone['p50'])}, p90 {fmt_ns(alone['p90'])}")
    expected = longest_op + save + restore
    rows = [
        ("latency p50 / tiny alone p50", ratio(lat["p50"], alone["p50"]), "-", "info"),
        ("latency p90 / tiny alone p90", ratio(lat["p90"], alone["p90"]), "-", "info"),
        ("latency p50 / whole long graph", ratio(lat["p50"], long_wall), "<= 0.25x", None),
        ("latency p90 / whole long graph", ratio(lat["p90"], long_wall), "-", "info"),
        ("latency p50 / (longest op + save + restore)", ratio(lat["p50"], expected), "~1x", "info"),
        ("latency p90 / (longest op + save + restore)", ratio(lat["p90"], expected), "~1x", "info"),
    ]
    width = max(len(r[0]) for r in rows)
    for label, r, target, v in rows:
        if v is None:
            v = "NOT MEASURED" if r is None else ("met" if r <= 0.25 else "NOT met")
        print(f"    {label:<{width}}  {fmt_ratio(r):>8}  {target:<9} {v}")
    if err:
        print(f"    FAILED: {err}")


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if v else None


def tiny(doc, execute_json):
    print("\n(c) Tiny execute (Relu over 16 floats) in the Non-RPC domain / raw ping-pong of the same run")
    err = section_error(doc, "tiny")
    t = doc.get("tiny") or {}
    spin, no_spin = t.get("pingpong_spin_ns", []), t.get("pingpong_no_spin_ns", [])
    if not spin or not no_spin:
        print(f"    NOT MEASURED: {err or 'no ping-pong results'}")
        return
    # As summarize.py: the baseline is the faster of the two raw variants.
    pp = {"median": min(median(spin), median(no_spin)), "best": min(min(spin), min(no_spin))}
    print(f"    raw ping-pong: spin-then-sleep {fmt_ns(median(spin))}, sleep only {fmt_ns(median(no_spin))}; "
          f"baseline {fmt_ns(pp['median'])} (best {fmt_ns(pp['best'])}); {len(spin)} repetitions, interleaved")
    print(f"    bytes copied per execute: memhandle {t.get('memhandle_bytes_copied')}, client buffers "
          f"{t.get('client_buffer_bytes_copied')}; accelerator time p50 {fmt_ns(t.get('accel_p50_ns'))}")
    # As summarize.py: sleeping beating spinning means the two processes
    # shared a CPU for most of the run, and the baseline is not the machine's
    # best, so a ratio to it says little.
    disturbed = median(no_spin) < median(spin)
    if disturbed:
        print("    !! sleeping beat spinning: the ping-pong processes shared a CPU for most of the run")
    inproc = {"median": None, "best": None}
    inproc_ns = {"median": None, "best": None}
    inproc_disturbed = False
    if execute_json:
        _, runs, _ = load(execute_json)
        tb = Table(runs)
        for stat, key in (("median", "median"), ("min", "best")):
            spin_x = tb.get("BM_RawPingPong", "p50_ns", stat)
            sleep_x = tb.get("BM_RawPingPong/no_spin", "p50_ns", stat)
            base = [x for x in (spin_x, sleep_x) if x is not None]
            inproc_ns[key] = tb.get("BM_TinyExecute/inproc", "p50_wall_ns", stat)
            inproc[key] = ratio(inproc_ns[key], min(base) if base else None)
            if key == "median" and spin_x is not None and sleep_x is not None:
                inproc_disturbed = sleep_x < spin_x
    rows = []
    for mode, key in (("memhandle", "memhandle_ns"), ("client_buffer", "client_buffer_ns")):
        v = t.get(key, [])
        r = {"median": ratio(median(v), pp["median"]), "best": ratio(min(v) if v else None, pp["best"])}
        if r["median"] is None:
            v_text = "NOT MEASURED"
        elif disturbed:
            v_text = "INCONCLUSIVE (baseline co-located)"
        else:
            v_text = "met" if r["median"] <= 1.0 else "NOT met"
        rows.append((f"Non-RPC tiny {mode} / raw ping-pong", r, "<= 1.0x", v_text))
    rows.append(("bench_execute inproc tiny / its raw ping-pong", inproc, "-",
                 "NOT MEASURED (no bench_execute JSON)" if inproc["median"] is None else
                 "info (its baseline co-located)" if inproc_disturbed else "info"))
    # Non-RPC against the in-process door: each execute as a ratio to the
    # ping-pong of its own run (the project's rule: absolute times on this
    # shared machine drift between runs minutes apart), then the ratio of the
    # two. That is the verdict; the direct per-call ratio of the two programs'
    # absolute times is shown for reference, and is off by however much the
    # machine changed between them. The verdict is withheld when a baseline
    # ran co-located.
    mem = rows[0][1]
    rel = {k: ratio(mem[k], inproc[k]) for k in ("median", "best")}
    rows.append(("(Non-RPC memhandle / ping-pong) / (inproc / ping-pong)", rel, "<= 1.1x",
                 "NOT MEASURED" if rel["median"] is None else
                 "info (a baseline co-located)" if disturbed or inproc_disturbed else
                 ("met" if rel["median"] <= 1.1 else "NOT met")))
    mem_list = t.get("memhandle_ns", [])
    mem_ns = {"median": median(mem_list), "best": min(mem_list) if mem_list else None}
    direct = {k: ratio(mem_ns[k], inproc_ns[k]) for k in ("median", "best")}
    rows.append(("Non-RPC memhandle / bench_execute inproc, per call", direct, "-",
                 "NOT MEASURED" if direct["median"] is None else "info (two runs minutes apart)"))
    width = max(len(r[0]) for r in rows)
    print(f"\n    {'ratio':<{width}}  {'median':>8}  {'best':>8}  {'target':<9} verdict")
    for label, r, target, v in rows:
        print(f"    {label:<{width}}  {fmt_ratio(r['median']):>8}  {fmt_ratio(r['best']):>8}  {target:<9} {v}")
    if err:
        print(f"    FAILED: {err}")


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench_nonrpc summary: NOT MEASURED: cannot read {sys.argv[1]} ({e}): bench_nonrpc did not finish")
        return 1
    print("bench_nonrpc summary (Non-RPC domain: the program runs under openhtp-dsp-run)")
    if doc.get("error"):
        print(f"  CANNOT RUN: {doc['error']}")
        return 1
    memory(doc)
    preemption(doc)
    tiny(doc, sys.argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())

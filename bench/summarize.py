#!/usr/bin/env python3
"""Turns bench_execute's JSON (run with --benchmark_repetitions=N
--benchmark_report_aggregates_only=true) into ratios against the baselines
measured in the same run, and says whether each target is met.

Only ratios are printed as results: the machine is shared and noisy, so an
absolute time means little, while two numbers taken minutes apart in one run
are comparable. Every figure is built from the per-call medians the benchmarks
report (p50_* counters, see bench_stats.h), aggregated over repetitions two
ways: "median" (the verdict) and "best" (the least disturbed repetition of
each benchmark, for reference).

Usage: summarize.py results.json [more.json...]   (later files add to / override earlier ones)
"""

import json
import sys

STATS = ("median", "min")  # aggregate names; "min" is registered by bench_registry.h


def load(paths):
    runs = {}
    errors = {}
    context = {}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        context = context or doc.get("context", {})
        add_runs(doc, runs, errors)
    return context, runs, errors


def add_runs(doc, runs, errors):
    for b in doc.get("benchmarks", []):
        # "BM_X/mode/manual_time" -> "BM_X/mode": the timing suffix is noise here.
        name = b.get("run_name", b["name"])
        for suffix in ("/manual_time", "/real_time"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
            continue
        if b.get("run_type") != "aggregate":
            continue
        runs.setdefault(name, {})[b.get("aggregate_name")] = b


class Table:
    def __init__(self, runs):
        self.runs = runs
        self.missing = set()

    def get(self, name, counter, stat):
        r = self.runs.get(name, {}).get(stat)
        if r is None or counter not in r:
            self.missing.add(name)
            return None
        return float(r[counter])


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r):
    if r is None:
        return "n/a"
    return f"{r:.2f}x" if 0.1 <= r < 100 else f"{r:.3g}x"


def fmt_ns(v):
    if v is None:
        return "n/a"
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e3:
        return f"{v / 1e3:.1f} us"
    return f"{v:.0f} ns"


def verdict(value, ok, best_value=None, best_ok=None):
    if value is None:
        return "NOT MEASURED"
    if ok(value):
        return "met"
    if best_value is not None and best_ok is not None and best_ok(best_value):
        return "NOT met (met only in the best repetition)"
    return "NOT met"


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    context, runs, errors = load(sys.argv[1:])
    t = Table(runs)
    reps = None
    for r in runs.values():
        for agg in r.values():
            reps = agg.get("repetitions", reps)
    load_avg = context.get("load_avg")
    print(f"bench_execute summary: {context.get('num_cpus', '?')} CPUs, "
          f"{reps if reps is not None else '?'} repetitions (interleaved), load average at start "
          f"{', '.join(f'{x:.2f}' for x in load_avg) if load_avg else 'n/a'}")
    print("All figures are per-call medians; 'median' = median over repetitions (used for the verdict),")
    print("'best' = each benchmark's least disturbed repetition.\n")

    rows = []  # (label, median ratio, best ratio, target text, verdict)

    # 1. Tiny round trip / raw ping-pong, both left to the scheduler. The
    # baseline is the faster of the two raw variants: spinning wins when each
    # process has a core, sleeping wins when they end up sharing one.
    spin = {s: t.get("BM_RawPingPong", "p50_ns", s) for s in STATS}
    sleep = {s: t.get("BM_RawPingPong/no_spin", "p50_ns", s) for s in STATS}
    pp = {s: min((x for x in (spin[s], sleep[s]) if x is not None), default=None) for s in STATS}
    print(f"Raw shm+futex ping-pong, per round trip: spin-then-sleep {fmt_ns(spin['median'])} "
          f"(best {fmt_ns(spin['min'])}), sleep only {fmt_ns(sleep['median'])} (best {fmt_ns(sleep['min'])})")
    baseline_disturbed = (spin["median"] is not None and sleep["median"] is not None
                          and sleep["median"] < spin["median"])
    if baseline_disturbed:
        print("  !! sleeping beat spinning: the two processes shared a CPU for most of the run, so the")
        print("     free-placement baseline is not the machine's best; judge by the CPUs-apart row instead")
    print(f"Baseline (the faster of the two): median {fmt_ns(pp['median'])}, best {fmt_ns(pp['min'])}")
    # Issue 9's targets: the in-process execute costs at most one raw ping-pong,
    # and FastRPC adds at most one more.
    limits = {"memhandle": 2.0, "inproc": 1.0}
    for mode in ("memhandle", "client_buffer", "inproc"):
        name = f"BM_TinyExecute/{mode}"
        r = {s: ratio(t.get(name, "p50_wall_ns", s), pp[s]) for s in STATS}
        if mode in limits:
            lim = limits[mode]
            target = f"<= {lim}x"
            if baseline_disturbed:
                v = "INCONCLUSIVE (baseline co-located)"
            else:
                v = verdict(r["median"], lambda x, lim=lim: x <= lim, r["min"], lambda x, lim=lim: x <= lim)
        else:
            target, v = "-", "info"
        rows.append((f"tiny execute {mode} / raw ping-pong", r["median"], r["min"], target, v))
    # The same two ratios block by block (BM_TinyExecute/paired): the raw
    # ping-pong and both executes take turns in blocks of 200 calls, so each
    # ratio compares calls made while the host's placement of the two vCPUs
    # was the same (it changes within seconds here: near ~200 ns, far ~800 ns
    # a ping-pong). Per repetition the median of the blocks' ratios.
    # "fastest placement": only the blocks whose ping-pong was within 1.5x of
    # the run's fastest block (the hard case: the transfer is cheapest there).
    for which, label in (("paired", "paired blocks"), ("fastest", "paired, fastest placement")):
        for mode, lim in (("memhandle", 2.0), ("inproc", 1.0)):
            r = {s: t.get("BM_TinyExecute/paired", f"{which}_{mode}_ratio", s) for s in STATS}
            rows.append((f"tiny execute {mode} / raw ping-pong, {label}", r["median"], r["min"], f"<= {lim}x",
                         verdict(r["median"], lambda x, lim=lim: x <= lim, r["min"], lambda x, lim=lim: x <= lim)))
    # The same comparison with placement taken out: client and server pinned
    # to two different CPUs on both sides (measured in the pinned run).
    r = {s: ratio(t.get("BM_TinyExecute/memhandle/cpus_apart", "p50_wall_ns", s),
                  t.get("BM_RawPingPong/cpus_apart", "p50_ns", s)) for s in STATS}
    rows.append(("tiny memhandle / raw ping-pong, both on 2 pinned CPUs", r["median"], r["min"], "<= 2.0x",
                 verdict(r["median"], lambda x: x <= 2.0, r["min"], lambda x: x <= 2.0)))
    r = {s: ratio(t.get("BM_FastRpcInvoke/query", "p50_ns", s), pp[s]) for s in STATS}
    rows.append(("FastRPC invoke alone (no QNN) / raw ping-pong", r["median"], r["min"], "-", "info"))

    # 2. Large-I/O memhandle overhead (wall - DSP kernel) across sizes: flat
    # means the largest of the three is within 1.5x of the smallest.
    sizes = ("1MiB", "4MiB", "16MiB")
    oh = {size: {s: t.get(f"BM_LargeExecute/memhandle/{size}", "p50_overhead_ns", s) for s in STATS}
          for size in sizes}
    for size in ("4MiB", "16MiB"):
        r = {s: ratio(oh[size][s], oh["1MiB"][s]) for s in STATS}
        rows.append((f"memhandle overhead {size} / 1MiB", r["median"], r["min"], "-", "info"))
    spread = {}
    for s in STATS:
        vals = [oh[size][s] for size in sizes]
        spread[s] = None if None in vals or min(vals) <= 0 else max(vals) / min(vals)
    rows.append(("memhandle overhead max/min over 1/4/16MiB", spread["median"], spread["min"], "-", "info"))
    # "Independent of tensor size" is judged against the one cost that does
    # not depend on bytes but on time: a kernel that outlasts the caller's spin
    # (~30 us) leaves the caller asleep, and waking it costs what a raw
    # ping-pong with a late reply costs. Shorter kernels are answered while the
    # caller still spins and cost less, which is why max/min above is not ~1.
    # The verdict: at every size the overhead stays within 1.5x of that floor.
    late = {s: t.get("BM_RawPingPong/reply_after_1500us", "p50_overhead_ns", s) for s in STATS}
    worst = {s: None if None in [oh[z][s] for z in sizes] else max(oh[z][s] for z in sizes) for s in STATS}
    r = {s: ratio(worst[s], late[s]) for s in STATS}
    rows.append(("memhandle overhead, worst of 1/4/16MiB / raw wake-up", r["median"], r["min"], "<= 1.5x",
                 verdict(r["median"], lambda x: x <= 1.5, r["min"], lambda x: x <= 1.5)))

    # 3. Client-buffer copy bandwidth / memcpy bandwidth.
    mc = {s: t.get("BM_Memcpy/16MiB", "p50_bytes_per_second", s) for s in STATS}
    cb = {s: t.get("BM_LargeExecute/client_buffer/16MiB", "p50_copy_bytes_per_second", s) for s in STATS}
    r = {s: ratio(cb[s], mc[s]) for s in STATS}
    rows.append(("client_buffer copy bandwidth / cache-hot memcpy", r["median"], r["min"], "-", "info"))
    # The verdict uses the cold memcpy (buffers rotated through 128 MiB): a
    # 16 MiB client-buffer execute streams 64 MiB through four buffers, so its
    # copies can never be cache-hot; the hot figure above is shown for honesty.
    mc_cold = {s: t.get("BM_Memcpy/16MiB/cold", "p50_bytes_per_second", s) for s in STATS}
    r = {s: ratio(cb[s], mc_cold[s]) for s in STATS}
    rows.append(("client_buffer copy bandwidth / cold memcpy", r["median"], r["min"], ">= 0.8x",
                 verdict(r["median"], lambda x: x >= 0.8, r["min"], lambda x: x >= 0.8)))

    # 4. Memhandle vs in-process wall time.
    for label, a, b in (("tiny", "BM_TinyExecute/memhandle", "BM_TinyExecute/inproc"),
                        ("16MiB", "BM_LargeExecute/memhandle/16MiB", "BM_LargeExecute/inproc/16MiB")):
        r = {s: ratio(t.get(a, "p50_wall_ns", s), t.get(b, "p50_wall_ns", s)) for s in STATS}
        rows.append((f"memhandle / inproc wall time, {label}", r["median"], r["min"], "-", "info"))
    # The same 16 MiB kernel has run anywhere from 1.4 to 3.5 ms on this
    # machine depending on the physical pages it got, which swamps the wall
    # ratio above; the difference (wall - kernel) does not depend on it.
    mh = t.get("BM_LargeExecute/memhandle/16MiB", "p50_overhead_ns", "median")
    ip = t.get("BM_LargeExecute/inproc/16MiB", "p50_overhead_ns", "median")
    ip_wall = t.get("BM_LargeExecute/inproc/16MiB", "p50_wall_ns", "median")
    if None not in (mh, ip, ip_wall):
        rows.append(("memhandle 16MiB extra time (overhead diff) / inproc wall", (mh - ip) / ip_wall, None, "-",
                     "info"))

    # 5. Diagnostics: both sides forced onto one CPU.
    for label, a, b in (
            ("co-located raw ping-pong: spin / no-spin", "BM_RawPingPong/same_cpu", "BM_RawPingPong/no_spin/same_cpu"),
            ("co-located tiny memhandle / no-spin ping-pong", "BM_TinyExecute/memhandle/same_cpu",
             "BM_RawPingPong/no_spin/same_cpu")):
        ca = "p50_wall_ns" if a.startswith("BM_TinyExecute") else "p50_ns"
        r = {s: ratio(t.get(a, ca, s), t.get(b, "p50_ns", s)) for s in STATS}
        rows.append((label, r["median"], r["min"], "~1x", "diagnostic"))

    width = max(len(x[0]) for x in rows)
    print(f"\n{'ratio':<{width}}  {'median':>8}  {'best':>8}  {'target':<15} verdict")
    print("-" * (width + 52))
    for label, med, best, target, v in rows:
        print(f"{label:<{width}}  {fmt_ratio(med):>8}  {fmt_ratio(best):>8}  {target:<15} {v}")

    # Context for reading the ratios (medians over repetitions).
    print("\nContext (medians over repetitions):")
    print(f"  raw ping-pong answered after 1.5 ms (caller sleeps): wake-up overhead "
          f"{fmt_ns(t.get('BM_RawPingPong/reply_after_1500us', 'p50_overhead_ns', 'median'))}")
    def paired(counter, stat="median"):
        return t.get("BM_TinyExecute/paired", counter, stat)
    blocks = paired("paired_blocks")
    fast_blocks = paired("fastest_blocks")
    print(f"  paired blocks: raw ping-pong {fmt_ns(paired('paired_pingpong_ns'))} (the median block's, of "
          f"{blocks if blocks is None else int(blocks)}); in the fastest placement "
          f"{fmt_ns(paired('fastest_pingpong_ns'))} ({fast_blocks if fast_blocks is None else int(fast_blocks)} blocks)")
    print(f"  pinned to two CPUs: raw ping-pong {fmt_ns(t.get('BM_RawPingPong/cpus_apart', 'p50_ns', 'median'))}, "
          f"tiny memhandle execute {fmt_ns(t.get('BM_TinyExecute/memhandle/cpus_apart', 'p50_wall_ns', 'median'))}")
    print(f"  raw ping-pong without spinning: {fmt_ns(t.get('BM_RawPingPong/no_spin', 'p50_ns', 'median'))}; "
          f"both pinned to one CPU: spinning {fmt_ns(t.get('BM_RawPingPong/same_cpu', 'p50_ns', 'median'))}, "
          f"not spinning {fmt_ns(t.get('BM_RawPingPong/no_spin/same_cpu', 'p50_ns', 'median'))}")
    print("  memhandle overhead (wall - DSP kernel) by size: "
          + ", ".join(f"{k} {fmt_ns(t.get(n, 'p50_overhead_ns', 'median'))}" for k, n in (
              ("64B", "BM_TinyExecute/memhandle"), ("1MiB", "BM_LargeExecute/memhandle/1MiB"),
              ("4MiB", "BM_LargeExecute/memhandle/4MiB"), ("16MiB", "BM_LargeExecute/memhandle/16MiB"))))
    for size in ("1MiB", "4MiB", "16MiB"):
        n = f"BM_LargeExecute/memhandle/{size}"
        copied = t.get(n, "bytes_copied", "median")
        faults = t.get(n, "dsp_minflt", "median")
        kern = t.get(n, "p50_dsp_exec_ns", "median")
        print(f"    {size}: DSP kernel {fmt_ns(kern)}, bytes copied/call "
              f"{'n/a' if copied is None else f'{copied:.0f}'}, DSP minor faults/call "
              f"{'n/a' if faults is None else f'{faults:.2f}'}")
    cb_oh = t.get("BM_LargeExecute/client_buffer/16MiB", "p50_overhead_ns", "median")
    cb_copied = t.get("BM_LargeExecute/client_buffer/16MiB", "bytes_copied", "median")
    mh_oh = t.get("BM_LargeExecute/memhandle/16MiB", "p50_overhead_ns", "median")
    if None not in (cb_oh, cb_copied, mh_oh, mc["median"]) and cb_oh > mh_oh:
        est = cb_copied / ((cb_oh - mh_oh) * 1e-9)
        print(f"  client_buffer 16MiB: {cb_copied / 2**20:.0f} MiB copied per call; bandwidth with the memhandle "
              f"call overhead taken out: {est / mc['median']:.2f}x memcpy")
    k_mh = t.get("BM_LargeExecute/memhandle/16MiB", "p50_dsp_exec_ns", "median")
    k_ip = t.get("BM_LargeExecute/inproc/16MiB", "p50_dsp_exec_ns", "median")
    if k_mh and k_ip:
        print(f"  16MiB Relu kernel time, DSP process / in-process: {k_mh / k_ip:.2f}x "
              "(same code; anything but ~1x is machine noise or memory effects)")

    if errors:
        print("\nBenchmarks that failed:")
        for n, m in sorted(errors.items()):
            print(f"  {n}: {m}")
    missing = sorted(n for n in t.missing if n not in errors)
    if missing:
        print("\nNot in the results (filtered out?): " + ", ".join(missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())

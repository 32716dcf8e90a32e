#!/usr/bin/env python3
"""LLM decoding tokens/s: openhtp (examples/llm_decode.cpp) against ONNX Runtime on the same ONNX graphs.

    python3 bench/llm_bench.py --data DIR --binaries DIR --example BIN [--threads 1,2] [--reps 7]
                               [--ort-runner bench/ort_peer/llm.js --ort-node-path NODE_MODULES]
                               [--json OUT]

DIR (--data): the model folder (models/tinylm: prefill.onnx, decode.onnx, tinylm.weights, prompts.txt,
expected.txt, expected_logits/). --binaries: tinylm_fp32_t<N>.bin and tinylm_uint8_t<N>.bin, converted
with qnn-onnx-converter --num_hvx_threads N (bench/run_bench.sh makes them); a missing one is left out
with a line that says so.

openhtp's figure is the example's own "N tokens decoded, X tokens/s" line: the client that is the
deliverable, run as a user runs it (one process a repetition: context from the binary, the KV cache in
one rpcmem buffer updated in place), with its checks on every run (tokens against PyTorch's, no tensor
byte copied). Its tokens/s covers the decode steps only (64 a prompt, every prompt of prompts.txt), as
ONNX Runtime's does (bench/ort_peer/llm.js: same greedy decode, same prompts, the cache a Float32Array
that the kv output is copied into). The example's first decode step is the graph's first execute
(profiled, cold caches): it stays in the timed window, a few % against openhtp; ORT's sessions are
warmed up by one repetition before the first timed one.

Repetitions are interleaved (ORT t1, openhtp float t1, openhtp uint8 t1, ORT t2, ... then again) so
that the load of this shared machine lands on every engine alike. ORT runs served (llm.js --serve, one
process per thread count, intra-op spinning off). Prints a table: engine, threads, tokens/s median
(min-max), ratio to ORT of the same thread count, tokens equal to PyTorch's (worst run), ORT's prefill
ms a prompt; writes every run to --json.
Exit status 1 when an openhtp run fails its checks or dies, or ORT's tokens differ from PyTorch's.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

TOKENS_RE = re.compile(r"(\d+) tokens decoded, ([0-9.]+) tokens/s")
AGREE_RE = re.compile(r"prompt \d+: (\d+)/(\d+) tokens equal PyTorch's")


def run_openhtp(example, binary, data, precision, timeout):
    """One run of example_llm_decode: its tokens/s, token agreement and verdict."""
    try:
        p = subprocess.run([example, "--binary", binary, "--data", data, "--precision", precision],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {timeout} s"}
    m = TOKENS_RE.search(p.stdout)
    agree = [(int(a), int(b)) for a, b in AGREE_RE.findall(p.stdout)]
    r = {"ok": p.returncode == 0 and m is not None and "-- checks passed" in p.stdout,
         "tokens_per_s": float(m.group(2)) if m else None,
         "agreeing": sum(a for a, _ in agree), "tokens": sum(b for _, b in agree)}
    if not r["ok"]:
        lines = [l for l in p.stdout.splitlines() if "FAILED" in l or "error" in l.lower()]
        tail = p.stdout.strip().splitlines()
        r["error"] = lines[0] if lines else (tail[-1] if tail else "no output")
        r["exit_status"] = p.returncode
    return r


class OrtPeer:
    """bench/ort_peer/llm.js --serve: one repetition over all prompts per 'run'."""

    def __init__(self, runner, node_path, data, threads, timeout):
        env = dict(os.environ, NODE_PATH=node_path)
        self.timeout = timeout
        self.proc = subprocess.Popen(["node", runner, "--serve", "--data", data, "--threads", str(threads)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            err = (self.proc.stderr.read().strip().splitlines() or [""])[0]
            self.proc.kill()
            raise RuntimeError(f"llm.js --serve did not start: {line or err or 'no output'}")

    def run(self):
        self.proc.stdin.write("run\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("llm.js exited: " + self.proc.stderr.read().strip())
        return json.loads(line)

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=10)
        except Exception:  # noqa: BLE001 - it is going away either way
            self.proc.kill()


def summary(values):
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--binaries", required=True)
    ap.add_argument("--example", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--ort-runner")
    ap.add_argument("--ort-node-path")
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run")
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",") if t]

    engines = []  # (name, threads, callable)
    peers, problems = [], []
    for t in threads:
        if a.ort_runner:
            try:
                peer = OrtPeer(a.ort_runner, a.ort_node_path or "", a.data, t, a.timeout)
                peers.append(peer)
                engines.append(("ONNX Runtime fp32", t, peer.run))
            except RuntimeError as e:
                print(f"ONNX Runtime {t}T left out: {e}")
        for kind, precision in (("fp32", "float"), ("uint8", "quantized")):
            binary = os.path.join(a.binaries, f"tinylm_{kind}_t{t}.bin")
            if not os.path.exists(binary):
                print(f"openhtp {kind} {t}T left out: {binary} not found")
                continue
            engines.append((f"openhtp {kind}", t,
                            lambda b=binary, p=precision: run_openhtp(a.example, b, a.data, p, a.timeout)))

    runs = {(name, t): [] for name, t, _ in engines}
    load_before = open("/proc/loadavg").read().split()[:3]
    start = time.time()
    try:
        for rep in range(a.reps):
            for name, t, run in engines:
                r = run()
                r["rep"] = rep
                runs[(name, t)].append(r)
    finally:
        for peer in peers:
            peer.close()
    load_after = open("/proc/loadavg").read().split()[:3]

    rows = []
    for name, t, _ in engines:
        rs = runs[(name, t)]
        good = [r["tokens_per_s"] for r in rs if r.get("tokens_per_s") is not None and r.get("ok", True)]
        row = {"engine": name, "threads": t, "runs": rs, "tokens_per_s": summary(good),
               # the worst run's agreement with PyTorch
               "agreeing": min((r.get("agreeing") or 0 for r in rs), default=0),
               "tokens": rs[0].get("tokens") if rs else 0}
        if name.startswith("ONNX"):
            row["prefill_ms"] = summary([r["prefill_ms"] for r in rs])
            bad = [r for r in rs if r.get("mismatches")]
            if bad:
                problems.append(f"ONNX Runtime {t}T: tokens differ from PyTorch's: {bad[0]['mismatches']}")
        else:
            failed = [r for r in rs if not r.get("ok")]
            if failed:
                problems.append(f"{name} {t}T: {len(failed)}/{len(rs)} runs failed: {failed[0].get('error')}")
        rows.append(row)

    ort = {r["threads"]: r["tokens_per_s"]["median"] for r in rows
           if r["engine"].startswith("ONNX") and r["tokens_per_s"]}
    print(f"LLM decoding (tinylm, {a.data}): {a.reps} interleaved repetitions, decode steps only; "
          f"load average before {' '.join(load_before)}, after {' '.join(load_after)} ({time.time() - start:.0f} s)")
    print(f"{'engine':<20} {'threads':>7}  {'tokens/s median (min-max)':<28} {'/ ORT':>6}  "
          f"{'= PyTorch':>9}  ORT prefill ms")  # = PyTorch: tokens equal to PyTorch's, worst run
    for r in rows:
        s = r["tokens_per_s"]
        fig = f"{s['median']:.0f} ({s['min']:.0f}-{s['max']:.0f})" if s else "n/a"
        ratio = f"{s['median'] / ort[r['threads']]:.2f}" if s and r["threads"] in ort else "-"
        agree = f"{r['agreeing']}/{r['tokens']}" if r.get("tokens") else "-"
        pre = r.get("prefill_ms")
        pre = f"{pre['median']:.2f} ({pre['min']:.2f}-{pre['max']:.2f})" if pre else ""
        print(f"{r['engine']:<20} {r['threads']:>7}  {fig:<28} {ratio:>6}  {agree:>9}  {pre}")
    print("(/ ORT > 1: faster than ONNX Runtime at the same thread count)")
    for p in problems:
        print("PROBLEM: " + p)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"data": a.data, "reps": a.reps, "load_before": load_before, "load_after": load_after,
                       "rows": rows}, f, indent=1)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

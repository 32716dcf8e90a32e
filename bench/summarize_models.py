#!/usr/bin/python3
"""bench_onnx_models against ONNX Runtime and against the machine's fp32 GEMM rate.

    /usr/bin/python3 bench/summarize_models.py <rows.json> <models-dir> <gemm.json>...

<rows.json>: bench_onnx_models --json; <gemm.json>: bench_gemm_peak --json, one or more (run_bench.sh
measures it on its own before and after the models, so the pair shows how much the machine moved).
Needs the onnx package (Debian's python3-onnx, seen by /usr/bin/python3).

The fraction of the GEMM peak is taken against the GEMM rate measured in the same interleaved run
(bench_onnx_models --gemm-peak: one dnnl_sgemm a turn, taking turns with the models, so under the
same load) when the rows have it, else against the mean of the standalone medians.

MACs are counted from each <model>.onnx after shape inference: Conv (output elements x input channels
per group x kernel size), ConvTranspose (input elements x output channels per group x kernel size),
Gemm (M x N x K) and MatMul (output elements x K); everything else (adds, activations, softmax,
normalisation, pooling) is left out, so the GFLOP/s are those of the matrix work (2 flops a MAC) and
the fraction of the GEMM peak is an upper bound on the share of the machine the model's GEMM-like
work used.
"""
import json
import sys

import onnx
from onnx import shape_inference


def shapes_of(model):
    shapes = {}
    for vi in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        dims = [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]
        shapes[vi.name] = dims
    for t in model.graph.initializer:
        shapes[t.name] = list(t.dims)
    return shapes


def prod(v):
    p = 1
    for x in v:
        p *= x
    return p


def count_macs(path):
    model = shape_inference.infer_shapes(onnx.load(path))
    shapes = shapes_of(model)
    macs, unknown = 0, []
    for n in model.graph.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        try:
            if n.op_type == "Conv":
                w, y = shapes[n.input[1]], shapes[n.output[0]]
                macs += prod(y) * prod(w[1:])
            elif n.op_type == "ConvTranspose":
                x, w = shapes[n.input[0]], shapes[n.input[1]]
                macs += prod(x) * prod(w[1:])
            elif n.op_type == "Gemm":
                a, b = shapes[n.input[0]], shapes[n.input[1]]
                m, k = (a[1], a[0]) if attrs.get("transA", 0) else (a[0], a[1])
                nn = b[0] if attrs.get("transB", 0) else b[1]
                macs += m * nn * k
            elif n.op_type == "MatMul":
                a, y = shapes[n.input[0]], shapes[n.output[0]]
                macs += prod(y) * a[-1]
        except (KeyError, TypeError, IndexError):
            unknown.append(n.name or n.op_type)
    return macs, unknown


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    rows = json.load(open(sys.argv[1]))["rows"]
    models_dir = sys.argv[2]
    gemms = [json.load(open(p)) for p in sys.argv[3:]]
    peak = {}  # threads -> list of median GFLOP/s, one per bench_gemm_peak run
    print("\nfp32 GEMM peak (dnnl_sgemm %d^3; median GFLOP/s, best..worst, per run of bench_gemm_peak):"
          % gemms[0]["n"])
    for g in gemms:
        for p in g["peaks"]:
            peak.setdefault(p["threads"], []).append(p["median_gflops"])
    for t, v in sorted(peak.items()):
        runs = "; ".join("%.1f (%.1f..%.1f)" % (p["median_gflops"], p["best_gflops"], p["worst_gflops"])
                         for g in gemms for p in g["peaks"] if p["threads"] == t)
        print(f"  {t} thread{'s' if t > 1 else ' '}: {runs}")

    macs = {}
    for m in sorted({r["model"] for r in rows}):
        macs[m], unknown = count_macs(f"{models_dir}/{m}.onnx")
        note = f" (no shape for {len(unknown)} nodes: {', '.join(unknown[:3])})" if unknown else ""
        print(f"  {m}: {macs[m] / 1e9:.3f} GMACs (Conv/Gemm/MatMul){note}")

    doc = json.load(open(sys.argv[1]))
    n = doc.get("gemm_n", gemms[0]["n"])
    print("\nagainst ONNX Runtime (median ms, lower..upper quartile; ratios < 1: openhtp is faster):")
    print(f"  {'model':20} {'thr':>3} {'ORT fp32':>18} {'openhtp fp32':>18} {'openhtp uint8':>18}"
          f" {'fp32/ORT':>9} {'u8/ORT':>7} {'GEMM GF/s':>9} {'ORT %peak':>9} {'htp %peak':>9}"
          f" {'ORT %best':>9} {'htp %best':>9}")
    best = {t: max(p["best_gflops"] for g in gemms for p in g["peaks"] if p["threads"] == t) for t in peak}
    for r in rows:
        t = r["threads"]
        if r.get("gemm_peak_ms"):
            gemm = 2 * n ** 3 / (r["gemm_peak_ms"] * 1e-3) / 1e9
        else:
            gemm = sum(peak[t]) / len(peak[t]) if t in peak else None
        gf = lambda ms: 2 * macs[r["model"]] / (ms * 1e-3) / 1e9 if ms else None  # noqa: E731
        cell = lambda e: (f"{r[e + '_ms']:.2f} ({r[e + '_q1_ms']:.1f}..{r[e + '_q3_ms']:.1f})"  # noqa: E731
                          if r.get(e + "_ms") is not None else "-")
        ort, f32, u8 = r.get("onnxruntime_ms"), r.get("htp_fp32_ms"), r.get("htp_uint8_ms")
        ratio = lambda a, b: a / b if a is not None and b else None  # noqa: E731
        frac = lambda ms: 100 * gf(ms) / gemm if ms and gemm else None  # noqa: E731
        frac_best = lambda ms: 100 * gf(ms) / best[t] if ms and t in best else None  # noqa: E731
        print(f"  {r['model']:20} {t:>3} {cell('onnxruntime'):>18} {cell('htp_fp32'):>18} {cell('htp_uint8'):>18}"
              f" {fmt(ratio(f32, ort)):>9} {fmt(ratio(u8, ort)):>7} {fmt(gemm, '.1f'):>9} {fmt(frac(ort), '.0f'):>8}%"
              f" {fmt(frac(f32), '.0f'):>8}%"
              f" {fmt(frac_best(ort), '.0f'):>8}% {fmt(frac_best(f32), '.0f'):>8}%")
    print("  %%peak: the model's Conv/Gemm/MatMul GFLOP/s (2 x MACs / median time) over GEMM GF/s, the"
          " median rate of dnnl_sgemm %d^3 taking turns with that model's runs (else the standalone mean);\n"
          "  %%best: the same over the best standalone dnnl_sgemm run at that thread count (the least"
          " disturbed rate this machine gave in this run)" % n)

    # Issue 14 item 3: how much faster two threads are than one, per engine
    # (median times); read it against bench_cpu_balance's ceiling, printed
    # before the models.
    by = {(r["model"], r["threads"]): r for r in rows}
    pairs = [(m, by[(m, 1)], by[(m, 2)]) for m in dict.fromkeys(r["model"] for r in rows)
             if (m, 1) in by and (m, 2) in by]
    if pairs:
        print("\ntwo threads over one (median time at 1 thread / at 2; target >= 1.7 on ResNet-18 and MobileNetV2):")
        print(f"  {'model':20} {'ORT fp32':>9} {'openhtp fp32':>13} {'openhtp uint8':>14}")
        for m, one, two in pairs:
            speedup = lambda e: (one[e + "_ms"] / two[e + "_ms"]  # noqa: E731
                                 if one.get(e + "_ms") and two.get(e + "_ms") else None)
            print(f"  {m:20} {fmt(speedup('onnxruntime')):>9} {fmt(speedup('htp_fp32')):>13}"
                  f" {fmt(speedup('htp_uint8')):>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

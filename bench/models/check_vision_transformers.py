#!/usr/bin/python3
"""ViT-B/16 and ConvNeXt-T through openhtp, float and quantized, against PyTorch (issue 15 item 3).

    /usr/bin/python3 bench/models/check_vision_transformers.py <build-dir> <work-dir>   (~3 min)

For each model: export from torchvision with random weights (fixed seed; nothing can be downloaded
here; ViT's classification head, zero-initialised by torchvision, gets random weights so that its
output is not all zeros), write NUM_INPUTS random inputs and PyTorch's outputs for them, convert with
qnn-onnx-converter to a float binary and to quantized ones (8-bit activations with min/max, percentile
and MSE calibration, and 16-bit activations; 8-bit per-channel weights in all), run each binary with
qnn-net-run on the same inputs (one 8-bit binary with every LayerNorm's input at 16 bits, through
--quantization_overrides), and print max |openhtp - PyTorch| / max |PyTorch| per input and
whether the top-1 class agrees. The calibration inputs are the evaluation inputs (a best case for the
quantizer). Needs Debian's python3-torch, python3-torchvision and python3-onnx (only
/usr/bin/python3 sees them); exits 2 with a message when they are missing. A measurement, not a
test: the figures go to docs/onnx-import.md.
"""
import json
import os
import sys

import numpy as np

from qnn_tools import Tools, torch_missing, write_inputs

NUM_INPUTS = 4
SEED = 1234
# (name, converter flags) of each binary made per model.
KINDS = [
    ("float", []),
    ("a8 minmax", ["--act_bitwidth", "8"]),
    ("a8 percentile", ["--act_bitwidth", "8", "--act_quantizer_calibration", "percentile"]),
    ("a8 mse", ["--act_bitwidth", "8", "--act_quantizer_calibration", "mse"]),
    ("a16 minmax", ["--act_bitwidth", "16"]),
    # 8-bit, with every LayerNorm's input at 16 bits (--quantization_overrides; the names come from the
    # exported graph: see layer_norm_inputs()).
    ("a8 minmax, LayerNorm inputs 16-bit", ["--act_bitwidth", "8", "--quantization_overrides", "{overrides}"]),
]


def layer_norm_inputs(onnx_path):
    """The tensors the exporter's LayerNorms normalize: x where ReduceMean(x) and Sub(x, ReduceMean(x)) both read it
    (the nine-node LayerNorm the converter fuses into one LayerNorm op)."""
    import onnx

    g = onnx.load(onnx_path).graph
    means = {n.output[0]: n.input[0] for n in g.node if n.op_type == "ReduceMean"}
    return sorted({n.input[0] for n in g.node
                   if n.op_type == "Sub" and len(n.input) == 2 and means.get(n.input[1]) == n.input[0]})


def export(name, work):
    import torch
    import torchvision

    torch.manual_seed(SEED)
    model = getattr(torchvision.models, name)(weights=None).eval()
    if name == "vit_b_16":
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
        torch.nn.init.normal_(model.heads.head.bias, std=0.02)
    x = torch.randn(1, 3, 224, 224)
    onnx_path = os.path.join(work, name + ".onnx")
    torch.onnx.export(model, x, onnx_path, opset_version=14, input_names=["input"], output_names=["output"])
    _, refs, input_list = write_inputs(model, work, name, (1, 3, 224, 224), NUM_INPUTS)
    return onnx_path, input_list, refs


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    build, work = sys.argv[1], sys.argv[2]
    missing = torch_missing()
    if missing:
        print(missing)
        return 2
    os.makedirs(work, exist_ok=True)
    tools = Tools(build)
    print("| model | binary | max error / max output, per input | top-1 as PyTorch |")
    print("|---|---|---|---|")
    for name in ["vit_b_16", "convnext_tiny"]:
        onnx_path, input_list, refs = export(name, work)
        overrides = os.path.join(work, name + "_layernorm_inputs_16bit.json")
        with open(overrides, "w") as f:
            json.dump({"activation_encodings": {t: [{"bitwidth": 16, "dtype": "int"}]
                                                for t in layer_norm_inputs(onnx_path)}, "param_encodings": {}}, f)
        for kind, raw_flags in KINDS:
            flags = [x.format(overrides=overrides) for x in raw_flags]
            tag = kind.replace(" ", "_")
            binary = os.path.join(work, f"{name}_{tag}.bin")
            outputs, failed = tools.convert_and_run(onnx_path, binary, flags, input_list,
                                                    os.path.join(work, f"out_{name}_{tag}"), len(refs))
            if failed is not None:
                print(f"| {name} | {kind} | {failed} | |")
                continue
            errors, agree = [], 0
            for got, ref in zip(outputs, refs):
                errors.append(float(np.abs(got - ref).max() / np.abs(ref).max()))
                agree += int(got.argmax() == ref.argmax())
            print(f"| {name} | {kind} | {', '.join(f'{e:.2e}' for e in errors)} | {agree}/{len(refs)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

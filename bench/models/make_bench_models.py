#!/usr/bin/python3
"""Generates the ONNX models bench_onnx_models compares against OpenCV DNN.

    /usr/bin/python3 bench/models/make_bench_models.py <out-dir>      (~10 s; run by bench/run_bench.sh)

Debian's torch/torchvision/onnx are only visible to /usr/bin/python3 (not to the pyenv python3 on
PATH). The outputs are NOT checked in (ResNet-18 alone is 45 MB); they are regenerated per run:

  <out-dir>/resnet18.onnx        torchvision resnet18, opset 13, input 'input' [1,3,224,224]
  <out-dir>/mobilenet_v2.onnx    torchvision mobilenet_v2, opset 10 (OpenCV DNN 4.6 cannot read the
                                 opset >= 11 Clip with min/max inputs that ReLU6 becomes)
  <out-dir>/efficientnet_b0.onnx torchvision efficientnet_b0, opset 13 (SiLU as Sigmoid * Mul)
  <out-dir>/transformer_encoder.onnx
                                 torch.nn.TransformerEncoder, 2 layers, d_model 256, 4 heads,
                                 feed-forward 1024, batch_first, input 'input' [1,128,256], opset 13
  <out-dir>/calibration/<model>_NN.raw + <model>_calibration_list.txt
                                 8 calibration inputs per model, float32 NCHW, for the uint8 conversion
  <out-dir>/input.raw            one bench input [1,3,224,224] float32 NCHW (the CNNs')
  <out-dir>/<model>_input.raw + <model>_input_shape.txt
                                 the input each model is benched on (the CNNs': a copy of input.raw)
                                 and its shape, "1,3,224,224"

Weights are random (fixed seed; torchvision weights cannot be downloaded here), but BatchNorm
statistics and affine parameters are randomised too: with default init BN is nearly identity, the
outputs of MobileNetV2 come out ~1e-9 and the exporter turns the many equal folded biases into
Identity-on-initializer nodes that OpenCV rejects. Any remaining such nodes are rewritten into
initializer copies.
"""
import os
import sys

import numpy as np
import onnx
import torch
import torchvision

SEED = 1234
NUM_CALIB = 8


def randomize_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            c = m.num_features
            m.weight.data = torch.rand(c, generator=gen) + 0.5        # gamma in [0.5, 1.5]
            m.bias.data = (torch.rand(c, generator=gen) - 0.5) * 0.2  # beta in [-0.1, 0.1]
            m.running_mean.data = (torch.rand(c, generator=gen) - 0.5) * 0.2
            m.running_var.data = torch.rand(c, generator=gen) + 0.5   # var in [0.5, 1.5]


def fix_identity_on_initializers(model):
    """Identity nodes that read an initializer become copies of it (OpenCV DNN 4.6 rejects them)."""
    inits = {t.name: t for t in model.graph.initializer}
    keep = []
    for node in model.graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            copy = onnx.TensorProto()
            copy.CopyFrom(inits[node.input[0]])
            copy.name = node.output[0]
            model.graph.initializer.append(copy)
        else:
            keep.append(node)
    removed = len(model.graph.node) - len(keep)
    del model.graph.node[:]
    model.graph.node.extend(keep)
    return removed


def export(name, model, opset, out_dir, gen, shape=(1, 3, 224, 224)):
    randomize_batchnorm(model, gen)
    model.eval()
    path = os.path.join(out_dir, f"{name}.onnx")
    dummy = torch.zeros(*shape)
    torch.onnx.export(model, dummy, path, opset_version=opset, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    m = onnx.load(path)
    removed = fix_identity_on_initializers(m)
    onnx.checker.check_model(m)
    onnx.save(m, path)
    print(f"{path}: opset {opset}, {len(m.graph.node)} nodes, {removed} Identity nodes rewritten, "
          f"{os.path.getsize(path) / 1e6:.1f} MB")

    # Calibration inputs: ImageNet-normalised-like values (roughly N(0,1) per channel).
    calib_dir = os.path.join(out_dir, "calibration")
    os.makedirs(calib_dir, exist_ok=True)
    lines = []
    for i in range(NUM_CALIB):
        x = torch.randn(*shape, generator=gen).numpy().astype(np.float32)
        rel = f"calibration/{name}_{i:02d}.raw"
        x.tofile(os.path.join(out_dir, rel))
        lines.append(os.path.join(os.path.abspath(out_dir), rel))
    with open(os.path.join(out_dir, f"{name}_calibration_list.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(out_dir, f"{name}_input_shape.txt"), "w") as f:
        f.write(",".join(str(d) for d in shape) + "\n")


def transformer_encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0,
                                             batch_first=True)
    # enable_nested_tensor=False: no nested-tensor fast path in the exported graph.
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} <out-dir>", file=sys.stderr)
        return 2
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    export("resnet18", torchvision.models.resnet18(weights=None), 13, out_dir, gen)
    export("mobilenet_v2", torchvision.models.mobilenet_v2(weights=None), 10, out_dir, gen)
    # Drawn here, as before the other two models were added, so the CNNs' input is unchanged.
    x = torch.randn(1, 3, 224, 224, generator=gen).numpy().astype(np.float32)
    export("efficientnet_b0", torchvision.models.efficientnet_b0(weights=None), 13, out_dir, gen)
    export("transformer_encoder", transformer_encoder(), 13, out_dir, gen, shape=(1, 128, 256))
    x.tofile(os.path.join(out_dir, "input.raw"))
    for name in ("resnet18", "mobilenet_v2", "efficientnet_b0"):
        x.tofile(os.path.join(out_dir, f"{name}_input.raw"))
    torch.randn(1, 128, 256, generator=gen).numpy().astype(np.float32).tofile(
        os.path.join(out_dir, "transformer_encoder_input.raw"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

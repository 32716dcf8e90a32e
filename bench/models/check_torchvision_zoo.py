#!/usr/bin/python3
"""torchvision's model zoo through openhtp: does each model convert, run, and agree with PyTorch?

    /usr/bin/python3 bench/models/check_torchvision_zoo.py <build-dir> <work-dir> [model,model,...]   (~10 min)

For each model (default: MODELS below, classification and segmentation, up to ResNeXt-50's size): build it
from torchvision with random weights (fixed seed; nothing can be downloaded here), export it to ONNX
(opset 13), write NUM_INPUTS random inputs and PyTorch's outputs for them, convert it with
qnn-onnx-converter to a float binary and to quantized ones (8-bit per-channel weights; 8- and 16-bit
activations, min/max calibration on the same inputs: a best case for the quantizer), run each with
qnn-net-run and print, per binary, ||openhtp - PyTorch|| / ||PyTorch|| (the worst input) and, for the
classifiers, whether the top-1 class agrees.

Random weights need two things to be a fair test:
- Every BatchNorm's running statistics are set from a few random batches (as training would set them).
  Otherwise the activations shrink layer by layer: MobileNetV3's logits came out near 1e-9, LR-ASPP's
  segmentation map in the denormal range, which every fast CPU kernel flushes to zero.
- The quantized error has a floor that is no fault of the backend: the weights' own 8-bit rounding.
  The "weights alone" column is PyTorch itself with each BatchNorm folded into the convolution before
  it (torch.fx's fuse) and every convolution's and linear layer's weights rounded to 8 bits per output
  channel (symmetric, as the converter does), against the float model. openhtp's 16-bit-activation
  error should sit at that floor (a BatchNorm that follows no convolution stays a float op in both).
  Where torch.fx cannot trace the model, the BatchNorms that follow a convolution in a Sequential are
  folded by hand, and where any other is left the column says n/a.

Needs Debian's python3-torch, python3-torchvision and python3-onnx (only /usr/bin/python3 sees them);
exits 2 with a message when they are missing. A measurement, not a test: the figures go to
docs/onnx-import.md ("The torchvision zoo").
"""
import copy
import os
import sys
import time

import numpy as np

from qnn_tools import Tools, torch_missing, write_inputs

NUM_INPUTS = 2
SEED = 1234
MODELS = [
    "squeezenet1_1", "shufflenet_v2_x1_0", "mobilenet_v3_small", "mobilenet_v3_large", "mnasnet1_0",
    "googlenet", "inception_v3", "regnet_x_400mf", "regnet_y_400mf", "densenet121", "efficientnet_v2_s",
    "resnext50_32x4d", "swin_t", "lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large",
]
SEGMENTATION = ("lraspp_", "deeplabv3_", "fcn_")
# (name, converter flags) of each binary made per model.
KINDS = [
    ("float", []),
    ("a8", ["--act_bitwidth", "8"]),
    ("a16", ["--act_bitwidth", "16"]),
]


def build_model(name):
    import torch
    import torchvision

    torch.manual_seed(SEED)
    segmentation = name.startswith(SEGMENTATION)
    kw = {"weights": None}
    if name in ("googlenet", "inception_v3"):
        kw.update(aux_logits=False, init_weights=True)
    if segmentation:
        kw["weights_backbone"] = None
    model = getattr(torchvision.models.segmentation if segmentation else torchvision.models, name)(**kw)
    size = 299 if name == "inception_v3" else 224
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # a plain average over the batches below
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 3, size, size))
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    if segmentation:
        class Out(torch.nn.Module):  # the segmentation models return {"out": ...}
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(x)["out"]

        model = Out(model).eval()
    return model, size, segmentation


def fold_sequential_pairs(model):
    """Each BatchNorm2d that follows a Conv2d inside a Sequential folded into it; None if any BatchNorm is left."""
    import torch

    with torch.no_grad():
        for m in model.modules():
            if not isinstance(m, torch.nn.Sequential):
                continue
            children = list(m.children())
            for conv, bn in zip(children, children[1:]):
                if not (isinstance(conv, torch.nn.Conv2d) and isinstance(bn, torch.nn.BatchNorm2d)):
                    continue
                s = bn.weight / torch.sqrt(bn.running_var + bn.eps)
                conv.weight.mul_(s.reshape(-1, 1, 1, 1))
                bias = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)
                conv.bias = torch.nn.Parameter(bn.bias + (bias - bn.running_mean) * s, requires_grad=False)
                for name, child in m.named_children():
                    if child is bn:
                        setattr(m, name, torch.nn.Identity())
    if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules()):
        return None
    return model


def weights_alone(model, inputs, refs):
    """PyTorch with BatchNorms folded and 8-bit per-channel weights: the error the weights' rounding alone makes."""
    import torch
    from torch.fx.experimental.optimization import fuse

    try:
        # Each BatchNorm right after a convolution folded into it, as the converter folds it; one after
        # anything else (DenseNet's pre-activation ones) stays a float op in both.
        q = fuse(copy.deepcopy(model))
    except Exception:  # not traceable by torch.fx (ShuffleNetV2 unpacks x.size()): fold the pairs a Sequential holds
        q = fold_sequential_pairs(copy.deepcopy(model))
        if q is None:
            return None
    with torch.no_grad():
        for m in q.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                w = m.weight
                dims = tuple(range(1, w.dim()))
                scale = w.abs().amax(dim=dims, keepdim=True).clamp_min(1e-30) / 127
                m.weight.copy_(torch.round(w / scale) * scale)
    worst = 0.0
    with torch.no_grad():
        for x, ref in zip(inputs, refs):
            got = q(x).numpy().ravel()
            worst = max(worst, float(np.linalg.norm(got - ref) / np.linalg.norm(ref)))
    return worst


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    build, work = sys.argv[1], sys.argv[2]
    models = sys.argv[3].split(",") if len(sys.argv) == 4 else MODELS
    missing = torch_missing()
    if missing:
        print(missing)
        return 2
    import torch

    os.makedirs(work, exist_ok=True)
    tools = Tools(build)
    print("| model | float | 8-bit act. | 16-bit act. | weights alone | top-1 as PyTorch (float, 8, 16) | s |")
    print("|---|---|---|---|---|---|---|")
    for name in models:
        start = time.time()
        model, size, segmentation = build_model(name)
        onnx_path = os.path.join(work, name + ".onnx")
        torch.onnx.export(model, torch.randn(1, 3, size, size), onnx_path, opset_version=13,
                          input_names=["input"], output_names=["output"])
        model.eval()  # torch.onnx.export puts back the mode it found; a wrapper may have been in training mode
        inputs, refs, input_list = write_inputs(model, work, name, (1, 3, size, size), NUM_INPUTS)
        cells, agree = [], []
        for kind, flags in KINDS:
            binary = os.path.join(work, f"{name}_{kind}.bin")
            outputs, failed = tools.convert_and_run(onnx_path, binary, flags, input_list,
                                                    os.path.join(work, f"out_{name}_{kind}"), len(refs))
            if failed is not None:
                cells.append(failed)
                agree.append("-")
                continue
            worst, same = 0.0, 0
            for got, ref in zip(outputs, refs):
                if got.size != ref.size:
                    worst = float("nan")
                    continue
                worst = max(worst, float(np.linalg.norm(got - ref) / np.linalg.norm(ref)))
                same += int(got.argmax() == ref.argmax())
            cells.append(f"{worst:.1e}")
            agree.append("-" if segmentation else f"{same}/{len(refs)}")
        floor = weights_alone(model, inputs, refs)
        print(f"| {name} | {' | '.join(cells)} | {'n/a' if floor is None else f'{floor:.1e}'} | "
              f"{', '.join(agree)} | {time.time() - start:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

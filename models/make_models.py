#!/usr/bin/python3
"""Makes the demo model `democnn` and its test data, all checked in under models/democnn/.

How it was run (Debian's torch 1.13 / onnx 1.12; the pyenv python3 on PATH cannot see them):

    /usr/bin/python3 models/make_models.py            # writes models/democnn/: ~40 s on 2 idle cores
                                                      # (146 s measured while sharing them with a build)

Its outputs are checked in, so nothing in the build or the tests needs torch; rerun it only to
change the model. Everything is seeded, but torch's CPU kernels are not bit-reproducible across
machines, so a rerun may change the weights in the last bits: regenerate and commit all files
together.

What it makes (see docs/models.md):
  democnn.onnx                  opset 13, input 'input' [1,3,32,32] float32 NCHW, output 'logits' [1,10]
  test/input_NN.raw             16 test inputs, float32 NCHW (12288 B each)
  test/expected_NN.raw          PyTorch's float32 logits for each test input (40 B each)
  test/labels.txt               per test input: "<pytorch top-1> <true class>"
  calibration/calib_NN.raw      32 calibration inputs, float32 NCHW
  input_list.txt                the test inputs, one path a line (qnn-net-run style)
  expected_list.txt             the expected logits, line for line with input_list.txt
  calibration_list.txt          the calibration inputs, one path a line
Paths in the lists are relative to models/democnn/ (run tools from that folder).

The task: a 32x32 image shows one of 10 shapes/patterns (filled square, filled disc, ring, hollow
square, plus, X, horizontal stripes, vertical stripes, checkerboard, triangle) in a random colour,
size and place on a random noisy background; the class is the shape. It is learnable by a small
CNN in a few hundred steps, so the trained network's logits are decisive (large top-1 margins) and
top-1 agreement between two runtimes means something.
"""
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn

SEED = 20261130
IMAGE = 32
CLASSES = 10
CLASS_NAMES = ["square", "disc", "ring", "hollow_square", "plus", "x_cross",
               "h_stripes", "v_stripes", "checker", "triangle"]
TRAIN_STEPS = 500
BATCH = 64
NUM_TEST = 16
NUM_CALIB = 32

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "democnn")


# ---------------------------------------------------------------------------------------------
# Synthetic data
# ---------------------------------------------------------------------------------------------
def shape_mask(cls, rng):
    """A boolean 32x32 mask of shape `cls` at a random size and position."""
    half = rng.randint(6, 12)  # half-extent in pixels
    cy = rng.randint(half, IMAGE - half)
    cx = rng.randint(half, IMAGE - half)
    yy, xx = np.mgrid[0:IMAGE, 0:IMAGE]
    dy, dx = yy - cy, xx - cx
    inside = (np.abs(dy) <= half) & (np.abs(dx) <= half)
    r = np.sqrt(dy * dy + dx * dx)
    thick = max(2, half // 3)
    period = rng.randint(3, 5)
    if cls == 0:
        return inside
    if cls == 1:
        return r <= half
    if cls == 2:
        return (r <= half) & (r >= half - thick)
    if cls == 3:
        return inside & ~((np.abs(dy) <= half - thick) & (np.abs(dx) <= half - thick))
    if cls == 4:
        return inside & ((np.abs(dy) <= thick // 2) | (np.abs(dx) <= thick // 2))
    if cls == 5:
        return inside & ((np.abs(dy - dx) <= thick // 2) | (np.abs(dy + dx) <= thick // 2))
    if cls == 6:
        return inside & ((yy // period) % 2 == 0)
    if cls == 7:
        return inside & ((xx // period) % 2 == 0)
    if cls == 8:
        return inside & (((yy // period) + (xx // period)) % 2 == 0)
    # 9: an upward triangle with its apex at the top of the box
    return inside & (np.abs(dx) <= (dy + half) / 2)


def make_image(cls, rng):
    """One NCHW-less (3,32,32) float32 image in [0,1] showing class `cls`."""
    background = rng.uniform(0.0, 1.0, size=3)
    colour = rng.uniform(0.0, 1.0, size=3)
    # Keep the shape visible: at least 0.35 away from the background in some channel.
    while np.max(np.abs(colour - background)) < 0.35:
        colour = rng.uniform(0.0, 1.0, size=3)
    mask = shape_mask(cls, rng).astype(np.float32)
    img = background[:, None, None] * (1 - mask) + colour[:, None, None] * mask
    img = img + rng.normal(0.0, 0.05, size=img.shape)
    return np.clip(img, 0.0, 1.0).astype(np.float32)


def make_batch(n, rng):
    labels = rng.randint(0, CLASSES, size=n)
    images = np.stack([make_image(int(c), rng) for c in labels])
    return images, labels


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------
def conv_bn(cin, cout, k, stride=1, groups=1):
    return [nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout)]


class DemoCnn(nn.Module):
    """~70k parameters: conv-bn-relu blocks, a depthwise-separable block with a residual add,
    max pool, global average pool and a linear classifier. BatchNorm folds into the convolutions
    at export, so the ONNX graph has Conv, Relu, Add, MaxPool, GlobalAveragePool, Flatten, Gemm."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(*conv_bn(3, 24, 3), nn.ReLU(),            # 32x32x24
                                  *conv_bn(24, 48, 3, stride=2), nn.ReLU())  # 16x16x48
        self.dw = nn.Sequential(*conv_bn(48, 48, 3, groups=48), nn.ReLU(),  # depthwise 3x3
                                *conv_bn(48, 48, 1))                         # pointwise
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)                                          # 8x8x48
        self.head = nn.Sequential(*conv_bn(48, 96, 3), nn.ReLU(),
                                  *conv_bn(96, 128, 1), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(128, CLASSES)

    def forward(self, x):
        x = self.stem(x)
        x = self.relu(x + self.dw(x))  # residual add
        x = self.pool(x)
        return self.fc(self.head(x))


# ---------------------------------------------------------------------------------------------
def fix_identity_on_initializers(model):
    """The exporter de-duplicates equal initializers into Identity nodes reading an initializer;
    OpenCV DNN 4.6 rejects those, and a converter gains nothing from them. Replace each such node
    by a copy of the initializer under the node's output name."""
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


def write_raw(path, array):
    np.ascontiguousarray(array, dtype=np.float32).tofile(path)


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(2)  # Debian's torch defaults to 1 thread on this machine
    rng = np.random.RandomState(SEED)

    model = DemoCnn()
    params = sum(p.numel() for p in model.parameters())
    print(f"democnn: {params} parameters")

    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=TRAIN_STEPS)
    loss_fn = nn.CrossEntropyLoss()
    t0 = time.time()
    model.train()
    for step in range(TRAIN_STEPS):
        x, y = make_batch(BATCH, rng)
        loss = loss_fn(model(torch.from_numpy(x)), torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0 or step == TRAIN_STEPS - 1:
            print(f"  step {step:4d}  loss {loss.item():.4f}  ({time.time() - t0:.1f} s)")
    print(f"trained {TRAIN_STEPS} steps of {BATCH} in {time.time() - t0:.1f} s")

    model.eval()
    with torch.no_grad():
        xv, yv = make_batch(1000, np.random.RandomState(SEED + 1))
        acc = (model(torch.from_numpy(xv)).argmax(1).numpy() == yv).mean()
    print(f"held-out accuracy on 1000 fresh images: {acc * 100:.1f}%")

    os.makedirs(os.path.join(OUT, "test"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "calibration"), exist_ok=True)

    # Export with batch 1 and static shapes.
    onnx_path = os.path.join(OUT, "democnn.onnx")
    dummy = torch.zeros(1, 3, IMAGE, IMAGE)
    torch.onnx.export(model, dummy, onnx_path, opset_version=13, input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    m = onnx.load(onnx_path)
    removed = fix_identity_on_initializers(m)
    onnx.checker.check_model(m)
    onnx.save(m, onnx_path)
    ops = sorted({n.op_type for n in m.graph.node})
    print(f"exported {onnx_path}: {len(m.graph.node)} nodes ({', '.join(ops)}); "
          f"{removed} Identity-on-initializer nodes rewritten")

    # Test inputs, PyTorch's float logits for them, and the labels.
    xt, yt = make_batch(NUM_TEST, np.random.RandomState(SEED + 2))
    with torch.no_grad():
        logits = model(torch.from_numpy(xt)).numpy()
    input_list, expected_list, label_lines = [], [], []
    margins = []
    for i in range(NUM_TEST):
        write_raw(os.path.join(OUT, "test", f"input_{i:02d}.raw"), xt[i:i + 1])
        write_raw(os.path.join(OUT, "test", f"expected_{i:02d}.raw"), logits[i])
        input_list.append(f"test/input_{i:02d}.raw")
        expected_list.append(f"test/expected_{i:02d}.raw")
        top = np.sort(logits[i])[::-1]
        margins.append(top[0] - top[1])
        label_lines.append(f"{int(logits[i].argmax())} {int(yt[i])}")
    with open(os.path.join(OUT, "input_list.txt"), "w") as f:
        f.write("\n".join(input_list) + "\n")
    with open(os.path.join(OUT, "expected_list.txt"), "w") as f:
        f.write("\n".join(expected_list) + "\n")
    with open(os.path.join(OUT, "test", "labels.txt"), "w") as f:
        f.write("\n".join(label_lines) + "\n")
    correct = int((logits.argmax(1) == yt).sum())
    print(f"test inputs: PyTorch top-1 right on {correct}/{NUM_TEST}; max|logit| "
          f"{np.abs(logits).max():.2f}; top-1 margin min {min(margins):.2f}, "
          f"median {np.median(margins):.2f}")

    # Calibration inputs: drawn like the training data, from their own seed.
    xc, _ = make_batch(NUM_CALIB, np.random.RandomState(SEED + 3))
    calib_list = []
    for i in range(NUM_CALIB):
        write_raw(os.path.join(OUT, "calibration", f"calib_{i:02d}.raw"), xc[i:i + 1])
        calib_list.append(f"calibration/calib_{i:02d}.raw")
    with open(os.path.join(OUT, "calibration_list.txt"), "w") as f:
        f.write("\n".join(calib_list) + "\n")

    # Cross-check the exported file with a second runtime when one is installed.
    try:
        import cv2
        net = cv2.dnn.readNetFromONNX(onnx_path)
        worst = 0.0
        for i in range(NUM_TEST):
            net.setInput(xt[i:i + 1])
            worst = max(worst, float(np.abs(net.forward().reshape(-1) - logits[i]).max()))
        print(f"OpenCV DNN on the exported ONNX: max |logit - PyTorch| = {worst:.2e}")
    except ImportError:
        print("cv2 not installed: skipped the OpenCV cross-check of the export")

    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs)
    print(f"wrote {OUT}: {total / 1024:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

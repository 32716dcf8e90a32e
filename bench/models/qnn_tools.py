"""What the model checks here share: the Debian packages they need, and a binary converted and run.

The checks run qnn-onnx-converter and qnn-net-run from a build folder exactly as a QNN user would
(a context binary, an input list, Result_<i>/<output>.raw files), so what they measure is what the
user's own pipeline gets.
"""
import os
import subprocess

import numpy as np


def torch_missing():
    """None when /usr/bin/python3 can import torch, torchvision and onnx; else the line to print."""
    try:
        import onnx  # noqa: F401
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        return f"skipped: {e} (apt install python3-torch python3-torchvision python3-onnx)"
    return None


def write_inputs(model, work, name, shape, count):
    """count random inputs of `shape` for `model`: written as <name>_in<i>.raw with an input list, and the model's
    outputs for them. Returns (input tensors, reference outputs as flat float32 arrays, input list path)."""
    import torch

    tensors, refs, paths = [], [], []
    for i in range(count):
        x = torch.randn(*shape)
        path = os.path.join(work, f"{name}_in{i}.raw")
        x.numpy().astype(np.float32).tofile(path)
        tensors.append(x)
        paths.append(path)
        with torch.no_grad():
            refs.append(model(x).numpy().astype(np.float32).ravel())
    input_list = os.path.join(work, name + "_inputs.txt")
    with open(input_list, "w") as f:
        f.write("\n".join(paths) + "\n")
    return tensors, refs, input_list


class Tools:
    """qnn-onnx-converter, qnn-net-run and libQnnHtp.so of one build folder."""

    def __init__(self, build):
        self.converter = os.path.join(build, "bin", "qnn-onnx-converter")
        self.net_run = os.path.join(build, "bin", "qnn-net-run")
        self.backend = os.path.join(build, "lib", "libQnnHtp.so")

    def convert(self, onnx_path, binary, flags=(), input_list=None):
        """Converts; quantized (per-channel weights, calibrated on input_list) when input_list is given.
        Returns None, or the converter's reason for failing."""
        args = [self.converter, "-i", onnx_path, "-o", binary]
        if input_list is not None:
            args += ["--input_list", input_list, "--use_per_channel_quantization"]
        conv = subprocess.run(args + list(flags), capture_output=True, text=True)
        if conv.returncode == 0:
            return None
        why = (conv.stdout + conv.stderr).strip().splitlines()
        return "conversion failed: " + (why[1].strip() if len(why) > 1 else " ".join(why))

    def run(self, binary, input_list, out_dir, count, output="output"):
        """Runs binary on every input of input_list; returns (outputs as float32 arrays, None) or (None, why)."""
        run = subprocess.run([self.net_run, "--backend", self.backend, "--retrieve_context", binary, "--input_list",
                              input_list, "--output_dir", out_dir], capture_output=True, text=True)
        if run.returncode != 0:
            return None, "qnn-net-run failed: " + " ".join(run.stderr.strip().splitlines()[-1:])
        return [np.fromfile(os.path.join(out_dir, f"Result_{i}", output + ".raw"), dtype=np.float32)
                for i in range(count)], None

    def convert_and_run(self, onnx_path, binary, flags, input_list, out_dir, count):
        """convert (quantized when flags are given, calibrated on input_list), then run on input_list."""
        failed = self.convert(onnx_path, binary, flags, input_list if flags else None)
        if failed is not None:
            return None, failed
        return self.run(binary, input_list, out_dir, count)

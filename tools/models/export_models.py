#!/usr/bin/python3
"""Exports Lathe's test and benchmark models from PyTorch, the oracle.

Each model is a real architecture from torch.nn or torchvision with seeded
random weights. BatchNorm layers get running statistics measured on random
data (otherwise activations vanish or explode through a deep network and every
comparison passes trivially). For each NAME the script writes

  NAME.onnx    the model, ONNX opset 13, one input "input", one output "output"
  NAME.io.npz  "input" (uniform in [-1, 1], seeded) and "output", the output
               PyTorch computed for it

The same seeds give the same files, so the build caches them: CMake reruns the
script only when it changes. Needs Debian's python3-torch, python3-torchvision
and python3-onnx (packaging/install-deps.sh installs them).

usage: export_models.py OUTPUT_DIR [--set ci|all] [NAME ...]
"""

import argparse
import os
import sys
import zlib

try:
    import numpy as np
    import onnx
    import torch
    import torch.nn as nn
    import torchvision
except ImportError as e:
    sys.exit(f"export_models.py: {e}; install Debian's python3-torch, python3-torchvision "
             "and python3-onnx (bash packaging/install-deps.sh does)")


class Mlp(nn.Module):
    """784-512-256-10 perceptron on 28x28 images."""

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(),
                                    nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.layers(x)


def transformer_encoder(layers, d_model=256, heads=4, ff=1024):
    layer = nn.TransformerEncoderLayer(d_model, heads, ff, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


# name -> (constructor, input shape, sets it belongs to)
MODELS = {
    "mlp": (Mlp, (1, 1, 28, 28), {"ci"}),
    "transformer_block": (lambda: transformer_encoder(2), (1, 64, 256), {"ci"}),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), (1, 3, 224, 224), {"ci"}),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224), {"ci"}),
    "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224), {"ci"}),
    # Large and dense graphs for the studio's layout: a Concat per dense layer, of growing
    # fan-in, and a 24-layer encoder of over 1,000 nodes.
    "densenet121": (lambda: torchvision.models.densenet121(), (1, 3, 224, 224), {"ci"}),
    "transformer_encoder24": (lambda: transformer_encoder(24), (1, 64, 256), {"ci"}),
}


def seed_of(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def calibrate_batch_norm(model, shape, generator):
    """Running mean and variance of every BatchNorm from random batches."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average over the batches below
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.rand((4,) + tuple(shape[1:]), generator=generator) * 2 - 1)
    model.eval()


def export(name, out_dir):
    make, shape, _ = MODELS[name]
    seed = seed_of(name)
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = make()
    calibrate_batch_norm(model, shape, generator)
    model.eval()
    x = torch.rand(shape, generator=generator) * 2 - 1
    with torch.no_grad():
        y = model(x)
    onnx_path = os.path.join(out_dir, name + ".onnx")
    tmp = onnx_path + ".part"
    torch.onnx.export(model, x, tmp, opset_version=13, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    onnx.checker.check_model(onnx.load(tmp))
    npz_tmp = os.path.join(out_dir, name + ".io.part.npz")
    np.savez(npz_tmp, input=x.numpy(), output=y.numpy())
    os.replace(npz_tmp, os.path.join(out_dir, name + ".io.npz"))
    os.replace(tmp, onnx_path)  # last: the .onnx marks a complete export
    scale = float(y.abs().max())
    print(f"{name}: input {list(shape)} -> output {list(y.shape)}, max |output| {scale:.3g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--set", default="ci", choices=["ci", "all"])
    parser.add_argument("names", nargs="*", help="models to export (default: the whole set)")
    args = parser.parse_args()
    names = args.names or [n for n, (_, _, sets) in MODELS.items()
                           if args.set == "all" or args.set in sets]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"export_models.py: unknown model {', '.join(unknown)}; "
                 f"known: {', '.join(MODELS)}")
    os.makedirs(args.out_dir, exist_ok=True)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    for name in names:
        export(name, args.out_dir)


if __name__ == "__main__":
    main()

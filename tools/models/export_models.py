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

usage: export_models.py OUTPUT_DIR [--set ci|zoo|all] [NAME ...]
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


class SpeechLstm(nn.Module):
    """Two stacked LSTMs over 100 frames of 40 filterbank features, a GRU, a classifier."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(40, 128, num_layers=2, batch_first=True)
        self.gru = nn.GRU(128, 64, batch_first=True, bidirectional=True)
        self.head = nn.Linear(128, 12)

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        return self.head(y[:, -1])


class UNet(nn.Module):
    """A three-level U-Net: 2x2 stride-2 ConvTranspose up-sampling, skip concatenation."""

    def __init__(self, c=16):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())

        self.e1, self.e2, self.e3, self.bottom = block(3, c), block(c, 2 * c), block(2 * c, 4 * c), \
            block(4 * c, 8 * c)
        self.pool = nn.MaxPool2d(2)
        self.u3, self.d3 = nn.ConvTranspose2d(8 * c, 4 * c, 2, stride=2), block(8 * c, 4 * c)
        self.u2, self.d2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2), block(4 * c, 2 * c)
        self.u1, self.d1 = nn.ConvTranspose2d(2 * c, c, 2, stride=2), block(2 * c, c)
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(self.pool(e1))
        e3 = self.e3(self.pool(e2))
        b = self.bottom(self.pool(e3))
        d3 = self.d3(torch.cat([self.u3(b), e3], 1))
        d2 = self.d2(torch.cat([self.u2(d3), e2], 1))
        d1 = self.d1(torch.cat([self.u1(d2), e1], 1))
        return self.head(d1)


class TemporalConvNet(nn.Module):
    """Dilated Conv1d residual blocks over 40 mel bands x 400 frames (audio), no LSTM."""

    def __init__(self, bands=40, c=64, classes=10):
        super().__init__()
        self.inp = nn.Conv1d(bands, c, 1)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv1d(c, c, 3, dilation=d, padding=d), nn.BatchNorm1d(c), nn.ReLU())
            for d in (1, 2, 4, 8, 16, 32))
        self.head = nn.Conv1d(c, classes, 1)

    def forward(self, x):
        x = self.inp(x)
        for block in self.blocks:
            x = x + block(x)
        return self.head(x).mean(dim=2)


class SmallViT(nn.Module):
    """ViT-style: 16x16 patch embedding, class token, 6 pre-norm GELU encoder layers."""

    def __init__(self, d=192, heads=3, layers=6, classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, d, 16, stride=16)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, 197, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        return self.head(self.norm(self.encoder(x)[:, 0]))


class CausalDecoder(nn.Module):
    """Two pre-norm GELU decoder-only (GPT-style) blocks with a causal mask."""

    def __init__(self, d=256, heads=4, tokens=64):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.register_buffer("mask", torch.triu(torch.full((tokens, tokens), float("-inf")), 1))

    def forward(self, x):
        return self.blocks(x, mask=self.mask)


def vision(name, **kwargs):
    return lambda: getattr(torchvision.models, name)(**kwargs)


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
    # The zoo: architectures the benchmarks check generality on, one pattern each.
    "efficientnet_b0": (vision("efficientnet_b0"), (1, 3, 224, 224), {"zoo"}),  # SE, SiLU
    "mobilenet_v3_small": (vision("mobilenet_v3_small"), (1, 3, 224, 224), {"zoo"}),  # hardswish
    "shufflenet_v2_x1_0": (vision("shufflenet_v2_x1_0"), (1, 3, 224, 224), {"zoo"}),  # shuffle
    "regnet_y_400mf": (vision("regnet_y_400mf"), (1, 3, 224, 224), {"zoo"}),  # grouped + SE
    "mnasnet1_0": (vision("mnasnet1_0"), (1, 3, 224, 224), {"zoo"}),
    "googlenet": (vision("googlenet", aux_logits=False, init_weights=True), (1, 3, 224, 224),
                  {"zoo"}),  # inception branches
    "resnet50": (vision("resnet50"), (1, 3, 224, 224), {"zoo"}),  # bottlenecks
    "convnext_tiny": (vision("convnext_tiny"), (1, 3, 224, 224), {"zoo"}),  # 7x7 dw, LayerNorm
    "unet": (UNet, (1, 3, 128, 128), {"zoo"}),  # ConvTranspose decoder
    "tcn_audio": (TemporalConvNet, (1, 40, 400), {"zoo"}),  # dilated Conv1d
    "vit_small": (SmallViT, (1, 3, 224, 224), {"zoo"}),  # patch embedding, GELU
    "causal_decoder": (CausalDecoder, (1, 64, 256), {"zoo"}),  # masked attention
    # (2+1)-D video convs: 1x3x3 spatial and 3x1x1 temporal Conv3d, 8 frames of 112x112.
    "speech_lstm": (SpeechLstm, (1, 100, 40), {"zoo"}),  # LSTM and GRU, unrolled
    "alexnet": (vision("alexnet"), (1, 3, 224, 224), {"zoo"}),  # 220 MB of DRAM-bound GEMVs
    "r2plus1d_18": (lambda: torchvision.models.video.r2plus1d_18(), (1, 3, 8, 112, 112), {"zoo"}),
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
    parser.add_argument("--set", default="ci", choices=["ci", "zoo", "all"])
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

#!/usr/bin/env python3
"""Exports architectures with a modern PyTorch (>= 2.9) the way users do:
torch.onnx.export(..., dynamo=True) at the default opset and at 18, 21 and 23,
plus ONNX Runtime's float16 conversion of some. Debian's PyTorch 1.13 cannot
make these; run it where a recent PyTorch, torchvision, timm, transformers,
onnx and onnxruntime are installed (the GPU machine has them), then bring
the archive back. A generality check of the importer, not test material:
nothing in the repository needs its output.

For each model NAME it writes NAME.onnx and NAME.io.npz (the inputs by their
ONNX names and `output`, PyTorch's first output, or ONNX Runtime's for the
float16 ones) and a line in index.json with the opset, the ops and ONNX
Runtime's error against the reference. Weights are random, rounded to 17
levels per tensor so that the archive compresses.

  export_modern_models.py OUT_DIR [--jobs N] [--only SUBSTRING]
"""
import argparse
import json
import multiprocessing
import os
import sys
import time
import traceback


def round_weights(model):
    import torch
    with torch.no_grad():
        for p in model.parameters():
            lo, hi = p.min(), p.max()
            if hi > lo:
                p.copy_(torch.round((p - lo) / (hi - lo) * 16) / 16 * (hi - lo) + lo)


def give_batchnorm_statistics(model, make_inputs):
    """Runs a few training-mode passes so BatchNorm layers hold real running
    statistics and activations stay O(1)."""
    import torch
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(*make_inputs())
    model.eval()


def torchvision_model(name, size=224):
    import torch
    import torchvision
    def build():
        m = getattr(torchvision.models, name)(weights=None)
        return m, (lambda: (torch.randn(1, 3, size, size),))
    return build


def timm_model(name, size=224):
    import torch
    def build():
        import timm
        m = timm.create_model(name, pretrained=False)
        return m, (lambda: (torch.randn(1, 3, size, size),))
    return build


def hf_text(kind, **config):
    import torch
    def build():
        import transformers
        cfg = getattr(transformers, kind + "Config")(**config)
        # torch.export fails on GPT-2's and LLaMA's KV cache and SDPA dispatch.
        cfg.use_cache = False
        cfg._attn_implementation = "eager"
        m = getattr(transformers, kind + "Model")(cfg)
        vocab = cfg.vocab_size
        return m, (lambda: (torch.randint(0, vocab, (1, 32)),))
    return build


def hf_audio(kind, samples, **config):
    import torch
    def build():
        import transformers
        cfg = getattr(transformers, kind + "Config")(**config)
        m = getattr(transformers, kind + "Model")(cfg)
        return m, (lambda: (torch.randn(1, samples),))
    return build


def hf_vision(kind, size=224, **config):
    import torch
    def build():
        import transformers
        cfg = getattr(transformers, kind + "Config")(**config)
        m = getattr(transformers, kind + "Model")(cfg)
        return m, (lambda: (torch.randn(1, 3, size, size),))
    return build


def whisper_encoder():
    import torch
    def build():
        import transformers
        cfg = transformers.WhisperConfig(d_model=128, encoder_layers=2, encoder_attention_heads=4,
                                         decoder_layers=1, decoder_attention_heads=4,
                                         encoder_ffn_dim=256, decoder_ffn_dim=256,
                                         num_mel_bins=80, max_source_positions=100)
        m = transformers.WhisperModel(cfg).get_encoder()
        return m, (lambda: (torch.randn(1, 80, 200),))
    return build


SMALL_TEXT = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=256, vocab_size=1000)

# name: (builder, opset or None for the exporter's default)
MODELS = {
    "tv_mobilenet_v3_large": (torchvision_model("mobilenet_v3_large"), None),
    "tv_regnet_y_400mf": (torchvision_model("regnet_y_400mf"), None),
    "tv_shufflenet_v2_x0_5": (torchvision_model("shufflenet_v2_x0_5"), 18),
    "tv_squeezenet1_1": (torchvision_model("squeezenet1_1"), 21),
    "tv_mnasnet0_5": (torchvision_model("mnasnet0_5"), 23),
    "tv_googlenet": (torchvision_model("googlenet"), None),
    "timm_mobilevit_xxs": (timm_model("mobilevit_xxs", 256), None),
    "timm_convnext_atto": (timm_model("convnext_atto"), None),
    "timm_efficientformerv2_s0": (timm_model("efficientformerv2_s0"), None),
    "timm_edgenext_xx_small": (timm_model("edgenext_xx_small", 256), 18),
    "timm_tiny_vit_5m_224": (timm_model("tiny_vit_5m_224"), 21),
    "timm_fastvit_t8": (timm_model("fastvit_t8", 256), None),
    "timm_ghostnet_100": (timm_model("ghostnet_100"), None),
    "timm_lcnet_050": (timm_model("lcnet_050"), 23),
    "timm_efficientvit_b0": (timm_model("efficientvit_b0"), None),
    "hf_bert": (hf_text("Bert", **SMALL_TEXT), None),
    "hf_gpt2": (hf_text("GPT2", n_embd=128, n_layer=2, n_head=4, vocab_size=1000,
                        n_positions=64), None),
    "hf_llama_opset23": (hf_text("Llama", hidden_size=128, num_hidden_layers=2,
                                 num_attention_heads=4, num_key_value_heads=2,
                                 intermediate_size=256, vocab_size=1000), 23),
    "hf_albert": (hf_text("Albert", embedding_size=64, **SMALL_TEXT), 21),
    "hf_wav2vec2": (hf_audio("Wav2Vec2", 16000, hidden_size=128, num_hidden_layers=2,
                             num_attention_heads=4, intermediate_size=256,
                             conv_dim=(64, 64, 64, 64, 64, 64, 64),
                             num_conv_pos_embeddings=32, num_conv_pos_embedding_groups=16), None),
    "hf_whisper_encoder": (whisper_encoder(), None),
    "hf_vit": (hf_vision("ViT", hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                         intermediate_size=256), None),
    "hf_segformer": (hf_vision("Segformer", 256, hidden_sizes=[32, 64, 128, 160],
                               decoder_hidden_size=128), 18),
    "hf_convnextv2": (hf_vision("ConvNextV2", hidden_sizes=[32, 64, 128, 256],
                                depths=[1, 1, 2, 1]), None),
}

FP16 = ["tv_mobilenet_v3_large", "hf_bert", "timm_convnext_atto"]


def export_one(name, out_dir):
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    start = time.time()
    builder, opset = MODELS[name]
    model, make_inputs = builder()
    if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules()):
        give_batchnorm_statistics(model, make_inputs)
    round_weights(model)
    model.eval()
    torch.manual_seed(1)
    inputs = make_inputs()
    with torch.no_grad():
        out = model(*inputs)
    if isinstance(out, torch.Tensor):
        first = out
    elif getattr(out, "last_hidden_state", None) is not None:
        first = out.last_hidden_state
    else:
        first = out[0]
    path = os.path.join(out_dir, name + ".onnx")
    kwargs = dict(dynamo=True, external_data=False)
    if opset is not None:
        kwargs["opset_version"] = opset
    torch.onnx.export(model, inputs, path, **kwargs)
    m = onnx.load(path)
    names = [i.name for i in m.graph.input]
    feeds = {n: t.numpy() for n, t in zip(names, inputs)}
    np.savez(os.path.join(out_dir, name + ".io.npz"), output=first.numpy(), **feeds)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, feeds)[0]
    ref = first.numpy()
    err = float(np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-30)) \
        if got.shape == ref.shape else float("inf")
    opsets = {o.domain or "ai.onnx": o.version for o in m.opset_import}
    ops = sorted({n.op_type for n in m.graph.node})
    row = dict(name=name, opsets=opsets, ops=ops, inputs={n: list(v.shape) for n, v in feeds.items()},
               output=list(ref.shape), ort_vs_torch=err, seconds=round(time.time() - start, 1))
    if name in FP16:
        from onnxruntime.transformers.float16 import convert_float_to_float16
        half = convert_float_to_float16(m, keep_io_types=False)
        hpath = os.path.join(out_dir, "fp16_" + name + ".onnx")
        onnx.save(half, hpath)
        hsession = ort.InferenceSession(hpath, providers=["CPUExecutionProvider"])
        hfeeds = {n: v.astype(np.float16) if v.dtype == np.float32 else v for n, v in feeds.items()}
        hout = hsession.run(None, hfeeds)[0]
        np.savez(os.path.join(out_dir, "fp16_" + name + ".io.npz"), output=hout,
                 float_output=ref, **hfeeds)
        row["fp16_vs_float"] = float(np.max(np.abs(hout.astype(np.float64) - ref)) /
                                     max(np.max(np.abs(ref)), 1e-30))
    return row


def worker(args):
    name, out_dir = args
    try:
        return export_one(name, out_dir)
    except Exception as e:  # one model's failure is reported, the others go on
        return dict(name=name, error=f"{type(e).__name__}: {e}"[:2000],
                    trace=traceback.format_exc()[-3000:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    names = [n for n in MODELS if args.only in n]
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        rows = []
        for row in pool.imap_unordered(worker, [(n, args.out_dir) for n in names]):
            status = "FAILED " + row["error"][:300] if "error" in row else \
                f"OK opsets={row['opsets']} ort_err={row['ort_vs_torch']:.2g} {row['seconds']}s"
            print(row["name"], status, flush=True)
            rows.append(row)
    with open(os.path.join(args.out_dir, "index.json"), "w") as f:
        json.dump(sorted(rows, key=lambda r: r["name"]), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

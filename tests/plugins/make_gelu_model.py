#!/usr/bin/env python3
"""Writes gelu.onnx, a small model with ONNX Runtime's com.microsoft Gelu and
FastGelu (with and without bias), and gelu.io.npz: its seeded input and the
outputs PyTorch computes (the oracle; erf Gelu, and tanh Gelu for FastGelu).

Usage: make_gelu_model.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper


def main(out_dir):
    rng = np.random.default_rng(20)
    x = rng.uniform(-4, 4, size=(2, 8, 16)).astype(np.float32)
    w = rng.uniform(-0.5, 0.5, size=(16, 32)).astype(np.float32)
    bias = rng.uniform(-1, 1, size=(32,)).astype(np.float32)

    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Gelu", ["h"], ["gelu"], domain="com.microsoft"),
        helper.make_node("FastGelu", ["gelu", "bias"], ["fast_gelu"], domain="com.microsoft"),
        helper.make_node("FastGelu", ["x"], ["fast_gelu_no_bias"], domain="com.microsoft"),
    ]
    graph = helper.make_graph(
        nodes,
        "contrib_gelu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [
            helper.make_tensor_value_info("gelu", TensorProto.FLOAT, (2, 8, 32)),
            helper.make_tensor_value_info("fast_gelu", TensorProto.FLOAT, (2, 8, 32)),
            helper.make_tensor_value_info("fast_gelu_no_bias", TensorProto.FLOAT, x.shape),
        ],
        initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "bias")],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
        producer_name="lathe tests/plugins",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out_dir, "gelu.onnx"))

    F = torch.nn.functional
    tx = torch.from_numpy(x).double()
    h = tx @ torch.from_numpy(w).double()
    gelu = F.gelu(h)
    fast_gelu = F.gelu(gelu + torch.from_numpy(bias).double(), approximate="tanh")
    fast_gelu_no_bias = F.gelu(tx, approximate="tanh")
    np.savez(
        os.path.join(out_dir, "gelu.io.npz"),
        x=x,
        gelu=gelu.float().numpy(),
        fast_gelu=fast_gelu.float().numpy(),
        fast_gelu_no_bias=fast_gelu_no_bias.float().numpy(),
    )


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/python3
"""Quantizes a float ONNX model to int8 as ONNX Runtime's quantizer would.

ONNX Runtime's Python quantizer (onnxruntime.quantization) is what most int8
ONNX models are made with, but it cannot be installed here (no Python
onnxruntime on Debian). This script reproduces its defaults where they decide
the model's numbers, read off its sources (quant_utils.py, base_quantizer.py,
qdq_quantizer.py, calibrate.py, registry.py, operators/):

  static  quantize_static(..., quant_format=QDQ, per_channel=True) with the
          MinMax calibrator: uint8 asymmetric activations, int8 symmetric
          weights ([-127, 127], zero point 0) per output channel, int32 biases
          with scale x_scale * w_scale (zero point 0). QuantizeLinear/
          DequantizeLinear pairs on the tensors ORT's QDQ registry picks: Conv
          and Gemm (input, output, weight, bias), MatMul, the ops quantized as
          QDQOperatorBase (Add, Mul, GlobalAveragePool, Concat, Sigmoid, ...:
          every float input and output), Relu and Clip removed when they follow
          a quantized op (the producer writes their output, whose range they
          calibrate), MaxPool, Reshape, Flatten, Transpose, ... sharing their
          input's parameters.
  dynamic quantize_dynamic(...) defaults: each MatMul with a constant weight
          becomes DynamicQuantizeLinear on its input, MatMulInteger with the
          weight per tensor int8 symmetric, Cast and a Mul by a_scale * b_scale.

Calibration runs the float model in ONNX Runtime (onnxruntime-node, set up by
benchmarks/ort/setup.sh) with the tensors to calibrate as extra graph outputs
and optimisations disabled, as ORT's calibrator does, over seeded random
inputs uniform in [-1, 1] (export_models.py's input distribution). --oracle then
runs the quantized model in ONNX Runtime on the float model's .io.npz inputs and
writes OUT.io.npz: the inputs, "output" (ONNX Runtime's, the oracle) and
"float_output" (the float model's reference output).

usage: quantize_qdq.py FLOAT.onnx OUT.onnx [--dynamic] [--oracle FLOAT.io.npz]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_DIR = os.path.join(HERE, "..", "..", "benchmarks", "ort")

# registry.py: quantize_static's default op types are the union of the
# QLinearOps and QDQ registries; an op of the union without a QDQ class of its
# own is quantized by QDQOperatorBase (all float inputs and outputs).
QLINEAR_OPS = {"ArgMax", "Conv", "Gemm", "MatMul", "Add", "Mul", "Relu", "Clip", "LeakyRelu",
               "Sigmoid", "MaxPool", "GlobalAveragePool", "Split", "Pad", "Reshape", "Squeeze",
               "Unsqueeze", "Resize", "AveragePool", "Concat", "Softmax", "Where", "Gather",
               "Transpose", "EmbedLayerNormalization"}
REMOVABLE_ACTIVATIONS = {"Relu", "Clip"}
# Ops whose output takes the input's scale and zero point (QDQDirect8BitOp,
# QDQMaxPool, QDQResize, QDQGather): quantized only when the input is.
SAME_AS_INPUT = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Resize", "MaxPool", "AveragePool",
                 "Slice", "Flatten", "Gather", "GatherElements"}
QDQ_OPS = {"Conv", "ConvTranspose", "Gemm", "MatMul", "Split", "Where", "Pad",
           "InstanceNormalization", "LayerNormalization", "BatchNormalization"} \
    | REMOVABLE_ACTIVATIONS | SAME_AS_INPUT
OPS_TO_QUANTIZE = QLINEAR_OPS | QDQ_OPS
UNSUPPORTED = {"Split", "Where", "Pad", "InstanceNormalization", "LayerNormalization",
               "BatchNormalization", "EmbedLayerNormalization", "ArgMax"}

FLOAT_TYPES = (TensorProto.FLOAT, TensorProto.FLOAT16)


def fail(message):
    sys.exit(f"quantize_qdq.py: {message}")


# --- quant_utils.py ------------------------------------------------------------------------------


def compute_scale_zp(rmin, rmax, qmin, qmax, symmetric):
    """quant_utils.compute_scale_zp: float32 range, float64 scale, cast to float32 last."""
    rmin = np.minimum(rmin, np.array(0, dtype=rmin.dtype))
    rmax = np.maximum(rmax, np.array(0, dtype=rmax.dtype))
    if symmetric:
        absmax = np.maximum(np.abs(rmin), np.abs(rmax))
        rmin, rmax = -absmax, +absmax
    dr = np.array(rmax - rmin, dtype=np.float64)
    dq = np.array(qmax, dtype=np.float64) - np.array(qmin, dtype=np.float64)
    scale = np.array(dr / dq)
    if scale < np.finfo(rmax.dtype).tiny:
        return np.array(0, dtype=qmin.dtype), np.array(1.0, dtype=rmax.dtype)
    if symmetric:
        zero_point = np.array(np.round((qmin + qmax) / np.array(2.0, dtype=np.float64)),
                              dtype=qmin.dtype)
    else:
        zero_point = np.array(np.round(qmin - rmin / scale), dtype=qmin.dtype)
    return zero_point, scale.astype(rmax.dtype)


def quantize_nparray(dtype, arr, scale, zero_point):
    """quant_utils.quantize_nparray: a float32 division, numpy's round (half to even), clip."""
    info = np.iinfo(dtype)
    q = np.asarray((arr.astype(np.float32) / scale).round() + zero_point)
    np.clip(q, info.min, info.max, out=q)
    return q.astype(dtype)


def qrange(dtype, symmetric):
    """get_qmin_qmax_for_qType without reduce_range: int8 symmetric is [-127, 127]."""
    if dtype == np.int8 and symmetric:
        return np.array(-127, dtype=np.int8), np.array(127, dtype=np.int8)
    info = np.iinfo(dtype)
    return np.array(info.min, dtype=dtype), np.array(info.max, dtype=dtype)


def quantize_weight(w, axis):
    """Int8 symmetric weights, per channel along axis (or per tensor when axis is None)."""
    qmin, qmax = qrange(np.int8, True)
    if axis is None:
        zp, scale = compute_scale_zp(np.array(w.min(), np.float32), np.array(w.max(), np.float32),
                                     qmin, qmax, True)
        return quantize_nparray(np.int8, w, scale, zp), scale, zp
    scales, zps, parts = [], [], []
    shape = list(w.shape)
    shape[axis] = 1
    for c in range(w.shape[axis]):
        data = w.take(c, axis).ravel()
        zp, scale = compute_scale_zp(np.array(data.min(), np.float32),
                                     np.array(data.max(), np.float32), qmin, qmax, True)
        scales.append(scale)
        zps.append(zp)
        parts.append(quantize_nparray(np.int8, data, scale, zp).reshape(shape))
    return (np.concatenate(parts, axis), np.array(scales, np.float32).reshape(-1),
            np.array(zps, np.int8).reshape(-1))


def adjust_weight_scale_for_int32_bias(x_scale, w_scale, bias):
    """qdq_quantizer._adjust_weight_scale_for_int32_bias: widens a weight scale whose bias
    scale x_scale * w_scale would clip the bias in int32 (rare: |bias| > 2^31 * scale)."""
    qrange32 = np.float64(np.iinfo(np.int32).max) - np.float64(np.iinfo(np.int32).min + 1)
    w_scale = np.array(w_scale)
    absmax = np.maximum(np.abs(np.minimum(bias, 0)), np.abs(np.maximum(bias, 0))).astype(np.float64)
    smallest = 1.0001 * (2.0 * absmax) / qrange32
    candidate = np.float64(x_scale) * w_scale.astype(np.float64)
    too_small = (candidate < smallest) & (candidate > 0)
    if not np.any(too_small):
        return None
    new = w_scale.astype(np.float64) * np.where(too_small, smallest / np.where(candidate > 0, candidate, 1), 1)
    return new.astype(w_scale.dtype).reshape(w_scale.shape)


# --- the model -----------------------------------------------------------------------------------


class Model:
    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.inits = {i.name: i for i in self.graph.initializer}
        self.value_infos = {vi.name: vi for vi in self.graph.value_info}
        self.value_infos.update({o.name: o for o in self.graph.output})
        self.value_infos.update({i.name: i for i in self.graph.input})
        self.outputs = {o.name for o in self.graph.output}
        self.inputs = {i.name for i in self.graph.input if i.name not in self.inits}

    def is_float(self, name):
        if name in self.inits:
            return self.inits[name].data_type in FLOAT_TYPES
        vi = self.value_infos.get(name)
        return vi is not None and vi.type.HasField("tensor_type") \
            and vi.type.tensor_type.elem_type in FLOAT_TYPES

    def consumers(self, name):
        return [n for n in self.graph.node if name in n.input]

    def add_init(self, array, name):
        tensor = numpy_helper.from_array(array, name)
        self.graph.initializer.append(tensor)
        self.inits[name] = tensor
        return name


def tensors_to_calibrate(m):
    """calibrate.py select_tensors_to_calibrate: float non-initializer inputs and outputs of
    the nodes whose op is one to quantize."""
    names = []
    for node in m.graph.node:
        if node.op_type not in OPS_TO_QUANTIZE:
            continue
        for t in list(node.input) + list(node.output):
            if t and t not in m.inits and t not in names and m.is_float(t):
                names.append(t)
    return names


def calibrate(model_path, m, shapes, runs, seed, work):
    """Min and max of every tensor to calibrate, from ONNX Runtime (see ort_ranges.js)."""
    augmented = onnx.ModelProto()
    augmented.CopyFrom(m.model)
    names = tensors_to_calibrate(m)
    for t in names:
        if t not in m.outputs:
            augmented.graph.output.append(m.value_infos[t])
    aug_path = os.path.join(work, "augmented.onnx")
    onnx.save(augmented, aug_path)
    rng = np.random.default_rng(seed)
    feeds = []
    for r in range(runs):
        run = []
        for name, shape in shapes.items():
            x = (rng.random(shape, dtype=np.float32) * 2 - 1).astype(np.float32)
            path = os.path.join(work, f"calib{r}_{len(run)}.bin")
            x.tofile(path)
            run.append({"name": name, "type": "float32", "dims": list(shape), "file": path})
        feeds.append(run)
    feeds_path = os.path.join(work, "feeds.json")
    with open(feeds_path, "w") as f:
        json.dump(feeds, f)
    out = subprocess.run(["node", os.path.join(HERE, "ort_ranges.js"), aug_path, feeds_path],
                         check=True, capture_output=True, text=True).stdout
    ranges = {k: (np.array(v[0], np.float32), np.array(v[1], np.float32))
              for k, v in json.loads(out).items() if v[0] is not None}
    missing = [t for t in names if t not in ranges]
    if missing:
        fail(f"{model_path}: no calibration range for {', '.join(missing[:5])}")
    return ranges


def input_shapes(m):
    shapes = {}
    for i in m.graph.input:
        if i.name in m.inits:
            continue
        tt = i.type.tensor_type
        if tt.elem_type != TensorProto.FLOAT:
            fail(f"input '{i.name}' is not float32; only float inputs are calibrated here")
        dims = [d.dim_value for d in tt.shape.dim]
        if any(d <= 0 for d in dims):
            fail(f"input '{i.name}' has a symbolic dimension; export with static shapes")
        shapes[i.name] = dims
    return shapes


# --- static QDQ (qdq_quantizer.py) ---------------------------------------------------------------


class QdqQuantizer:
    def __init__(self, m, ranges):
        self.m = m
        self.ranges = ranges
        self.to_quantize = {}  # tensor -> ("activation", None) | ("weight", axis) | ("shared", input)
        self.biases = {}  # bias -> (input, weight, beta)
        self.removed = []
        self.params = {}  # quantized tensor -> (scale name, zero point name)

    def quantized(self, t):
        return t in self.to_quantize or t in self.biases

    def activation(self, t):
        if t and t not in self.to_quantize and self.m.is_float(t):
            self.to_quantize[t] = ("activation", None)

    def weight(self, t, axis):
        if t not in self.m.inits:
            self.activation(t)  # ORT quantizes a non-constant "weight" as an activation
        elif t not in self.to_quantize:
            self.to_quantize[t] = ("weight", axis)

    def same_as_input(self, out, inp):
        self.to_quantize[out] = ("shared", inp)

    def adjust_ranges(self):
        """base_quantizer.adjust_tensor_ranges: Relu's and Clip's input gets their output's range;
        Softmax's output is [0, 1]."""
        users = {}
        for n in self.m.graph.node:
            for t in n.input:
                users[t] = users.get(t, 0) + 1
        for n in self.m.graph.node:
            if n.op_type in REMOVABLE_ACTIVATIONS:
                if users.get(n.input[0]) == 1 and n.input[0] in self.ranges and n.output[0] in self.ranges:
                    self.ranges[n.input[0]] = self.ranges[n.output[0]]
            elif n.op_type == "Softmax":
                self.ranges[n.output[0]] = (np.array(0, np.float32), np.array(1, np.float32))

    def visit(self, node):
        op = node.op_type
        if op in ("Conv", "ConvTranspose"):
            self.activation(node.input[0])
            self.activation(node.output[0])
            self.weight(node.input[1], 0 if op == "Conv" else 1)
            if len(node.input) > 2 and node.input[2]:
                self.biases[node.input[2]] = (node.input[0], node.input[1], 1.0)
        elif op == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            self.activation(node.input[0])
            self.activation(node.output[0])
            self.weight(node.input[1], 0 if attrs.get("transB", 0) else 1)
            if len(node.input) > 2 and node.input[2] in self.m.inits:
                self.biases[node.input[2]] = (node.input[0], node.input[1], attrs.get("beta", 1.0))
        elif op == "MatMul":
            for t in list(node.input) + list(node.output):
                if t in self.m.inits:
                    self.weight(t, 1)
                else:
                    self.activation(t)
        elif op in REMOVABLE_ACTIVATIONS:
            if not self.quantized(node.input[0]):
                return
            up = node.input[0]
            if (node.output[0] in self.ranges and len(self.m.consumers(up)) == 1
                    and up not in self.m.outputs and up not in self.m.inputs):
                for n in self.m.graph.node:  # the producer writes the activation's output
                    for i, o in enumerate(n.output):
                        if o == up:
                            n.output[i] = node.output[0]
                self.to_quantize.pop(up, None)
                self.removed.append(node)
            else:
                self.activation(node.input[0])
            self.activation(node.output[0])
        elif op in SAME_AS_INPUT:
            if op in ("MaxPool", "Resize") and not self.quantized(node.input[0]):
                return
            if self.quantized(node.input[0]):
                self.same_as_input(node.output[0], node.input[0])
        elif op in UNSUPPORTED:
            fail(f"node '{node.name}' ({op}): its QDQ rule is not reproduced by this script")
        else:  # QDQOperatorBase
            for t in list(node.input) + list(node.output):
                self.activation(t)

    def qdq_pair(self, t, scale, zp):
        """_add_qdq_pair_for_activation: T -> Q -> DQ -> T's consumers (a graph output keeps
        its name on the DequantizeLinear)."""
        g = self.m.graph
        q_in, dq_out = t, t + "_DequantizeLinear_Output"
        if t in self.m.outputs:
            q_in, dq_out = t + "_QuantizeLinear_Input", t
            for n in g.node:
                for i, o in enumerate(n.output):
                    if o == t:
                        n.output[i] = q_in
        else:
            for n in g.node:
                for i, x in enumerate(n.input):
                    if x == t:
                        n.input[i] = dq_out
        g.node.append(helper.make_node("QuantizeLinear", [q_in, scale, zp],
                                       [t + "_QuantizeLinear_Output"], t + "_QuantizeLinear"))
        g.node.append(helper.make_node("DequantizeLinear", [t + "_QuantizeLinear_Output", scale, zp],
                                       [dq_out], t + "_DequantizeLinear"))
        self.params[t] = (scale, zp)

    def dequantized_initializer(self, t, q, scale, zp, axis, scale_name, zp_name, q_name, out):
        g = self.m.graph
        self.m.add_init(q, q_name)
        self.m.add_init(scale, scale_name)
        self.m.add_init(zp, zp_name)
        attrs = {"axis": axis} if axis is not None and np.asarray(scale).size > 1 else {}
        g.node.append(helper.make_node("DequantizeLinear", [q_name, scale_name, zp_name], [out],
                                       t + "_DequantizeLinear", **attrs))
        self.params[t] = (scale_name, zp_name)

    def run(self):
        m = self.m
        self.adjust_ranges()
        for node in list(m.graph.node):
            if node.op_type in OPS_TO_QUANTIZE:
                self.visit(node)
        for n in self.removed:
            m.graph.node.remove(n)
        weights = []
        # _quantize_normal_tensors
        for t, (kind, arg) in list(self.to_quantize.items()):
            if kind == "shared":
                continue
            if t in m.inits:
                w = numpy_helper.to_array(m.inits[t]).astype(np.float32)
                if kind == "weight":
                    weights.append((t, w, arg))
                    continue
                qmin, qmax = qrange(np.uint8, False)
                zp, scale = compute_scale_zp(np.array(w.min(), np.float32),
                                             np.array(w.max(), np.float32), qmin, qmax, False)
                q = quantize_nparray(np.uint8, w, scale, zp)
                self.replace_input(t, t + "_DequantizeLinear_Output")
                self.dequantized_initializer(t, q, scale, zp, None, t + "_scale", t + "_zero_point",
                                             t + "_quantized", t + "_DequantizeLinear_Output")
                continue
            if t not in self.ranges:
                fail(f"tensor '{t}' has no calibration range")
            rmin, rmax = self.ranges[t]
            qmin, qmax = qrange(np.uint8, False)
            zp, scale = compute_scale_zp(rmin, rmax, qmin, qmax, False)
            self.qdq_pair(t, m.add_init(scale, t + "_scale"), m.add_init(zp, t + "_zero_point"))
        # _quantize_sharing_param_tensors
        pending = {t: arg for t, (kind, arg) in self.to_quantize.items() if kind == "shared"}
        while pending:
            progress = False
            for t, src in list(pending.items()):
                if src in self.params:
                    self.qdq_pair(t, *self.params[src])
                    del pending[t]
                    progress = True
            if not progress:
                fail(f"no quantization parameters to share for {', '.join(pending)}")
        # Weights, then biases (the bias scale needs the weight's, which the bias may widen).
        bias_of = {w: (b, x, beta) for b, (x, w, beta) in self.biases.items()}
        for t, w, axis in weights:
            q, scale, zp = quantize_weight(w, axis)
            if t in bias_of:
                b, x, _ = bias_of[t]
                bias = numpy_helper.to_array(m.inits[b]).astype(np.float32)
                x_scale = numpy_helper.to_array(m.inits[self.params[x][0]])
                wider = adjust_weight_scale_for_int32_bias(x_scale, scale, bias)
                if wider is not None:
                    scale = wider
                    q = quantize_with_scales(w, scale, axis)
            self.replace_input(t, t + "_DequantizeLinear_Output")
            self.dequantized_initializer(t, q, scale, zp, axis, t + "_scale", t + "_zero_point",
                                         t + "_quantized", t + "_DequantizeLinear_Output")
        for b, (x, w, beta) in self.biases.items():
            if x not in self.params or w not in self.params:
                continue
            bias = numpy_helper.to_array(m.inits[b]).astype(np.float32)
            x_scale = numpy_helper.to_array(m.inits[self.params[x][0]])
            w_scale = numpy_helper.to_array(m.inits[self.params[w][0]])
            bias_scale = x_scale * w_scale * beta  # float32, as ORT's numpy arrays
            # The quotient in float64 (checked against ORT 1.30's qdq_resnet18: a float32
            # quotient rounds 7 of its 21 biases differently).
            q = (np.asarray(bias, np.float64) / np.asarray(bias_scale, np.float64)).round()
            q = np.clip(q, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)
            q = q.reshape(bias.shape)
            bias_scale = np.asarray(bias_scale, np.float32).reshape(-1) if bias_scale.size > 1 \
                else np.asarray(bias_scale, np.float32)
            zp = np.zeros(bias_scale.shape, np.int32)
            del m.graph.initializer[[i.name for i in m.graph.initializer].index(b)]
            del m.inits[b]
            self.dequantized_initializer(b, q, bias_scale, zp, 0, b + "_quantized_scale",
                                         b + "_quantized_zero_point", b + "_quantized", b)
        self.clean_initializers()
        topological_sort(m.graph)
        m.model.producer_name = "onnx.quantize"
        m.model.producer_version = "0.1.0"

    def replace_input(self, old, new):
        for n in self.m.graph.node:
            for i, x in enumerate(n.input):
                if x == old:
                    n.input[i] = new

    def clean_initializers(self):
        """model.clean_initializers, and the Constant nodes a removed Clip read (its bounds)."""
        used = {x for n in self.m.graph.node for x in n.input} | {o.name for o in self.m.graph.output}
        for n in [n for n in self.m.graph.node if n.op_type == "Constant" and n.output[0] not in used]:
            self.m.graph.node.remove(n)
        keep = [i for i in self.m.graph.initializer if i.name in used]
        del self.m.graph.initializer[:]
        self.m.graph.initializer.extend(keep)
        for i in [i for i in self.m.graph.input if i.name not in used]:
            self.m.graph.input.remove(i)


def quantize_with_scales(w, scale, axis):
    shape = list(w.shape)
    shape[axis] = 1
    parts = [quantize_nparray(np.int8, w.take(c, axis).ravel(), scale[c], np.int8(0)).reshape(shape)
             for c in range(w.shape[axis])]
    return np.concatenate(parts, axis)


def topological_sort(g):
    """Producers before consumers, the existing order kept otherwise."""
    available = {i.name for i in g.initializer} | {i.name for i in g.input} | {""}
    nodes, ordered = list(g.node), []
    while nodes:
        rest = []
        for n in nodes:
            if all(x in available for x in n.input):
                ordered.append(n)
                available.update(n.output)
            else:
                rest.append(n)
        if len(rest) == len(nodes):
            fail(f"the quantized graph has a cycle or a dangling input at '{rest[0].name}'")
        nodes = rest
    del g.node[:]
    g.node.extend(ordered)


# --- dynamic (onnx_quantizer.py, operators/matmul.py MatMulInteger) ------------------------------


def fold_weight_views(m):
    """Identity and Transpose of constants folded into constants, as ORT's quant_pre_process
    (its graph optimizer) leaves an exported model: PyTorch writes tied or transposed
    Linear weights so, and quantize_dynamic only quantizes a MatMul whose B is an
    initializer."""
    g = m.graph
    for node in list(g.node):
        if node.op_type not in ("Identity", "Transpose") or node.input[0] not in m.inits:
            continue
        w = numpy_helper.to_array(m.inits[node.input[0]])
        if node.op_type == "Transpose":
            perm = [a.ints for a in node.attribute if a.name == "perm"]
            w = np.transpose(w, list(perm[0]) if perm else None)
        m.add_init(np.ascontiguousarray(w), node.output[0])
        g.node.remove(node)


def quantize_dynamic(m):
    fold_weight_views(m)
    g = m.graph
    new_nodes = []
    quantized_inputs = {}
    for node in g.node:
        if node.op_type != "MatMul" or node.input[1] not in m.inits or node.input[0] in m.inits:
            new_nodes.append(node)
            continue
        a, b = node.input
        if a not in quantized_inputs:
            new_nodes.append(helper.make_node(
                "DynamicQuantizeLinear", [a],
                [a + "_quantized", a + "_scale", a + "_zero_point"], a + "_QuantizeLinear"))
            quantized_inputs[a] = (a + "_quantized", a + "_scale", a + "_zero_point")
        aq, ascale, azp = quantized_inputs[a]
        if b + "_quantized" not in m.inits:
            w = numpy_helper.to_array(m.inits[b]).astype(np.float32)
            q, scale, zp = quantize_weight(w, None)
            m.add_init(q, b + "_quantized")
            m.add_init(np.asarray(scale, np.float32), b + "_scale")
            m.add_init(np.asarray(zp, np.int8), b + "_zero_point")
        out = node.output[0]
        new_nodes.append(helper.make_node("MatMulInteger", [aq, b + "_quantized", azp, b + "_zero_point"],
                                          [out + "_output_quantized"], node.name + "_quant"))
        new_nodes.append(helper.make_node("Cast", [out + "_output_quantized"],
                                          [out + "_output_quantized_cast_output"],
                                          out + "_output_quantized_cast", to=TensorProto.FLOAT))
        new_nodes.append(helper.make_node("Mul", [ascale, b + "_scale"], [out + "_scales_mul"],
                                          out + "_scales_mul"))
        new_nodes.append(helper.make_node("Mul", [out + "_output_quantized_cast_output", out + "_scales_mul"],
                                          [out], out + "_output_scale_mul"))
    del g.node[:]
    g.node.extend(new_nodes)
    used = {x for n in g.node for x in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    m.model.producer_name = "onnx.quantize"
    m.model.producer_version = "0.1.0"


# --- the oracle ----------------------------------------------------------------------------------


def ort_oracle(model_path, npz_path, out_npz, work):
    io = dict(np.load(npz_path))
    m = onnx.load(model_path)
    specs = []
    for i in m.graph.input:
        if i.name not in io:
            continue
        x = io[i.name]
        path = os.path.join(work, f"oracle_{len(specs)}.bin")
        np.ascontiguousarray(x).tofile(path)
        specs.append({"name": i.name, "type": str(x.dtype), "dims": list(x.shape), "file": path})
    inputs_json = os.path.join(work, "oracle.json")
    with open(inputs_json, "w") as f:
        json.dump(specs, f)
    out_bin = os.path.join(work, "oracle.bin")
    subprocess.run(["node", os.path.join(ORT_DIR, "time_ort.js"), model_path, inputs_json, "1", "1",
                    out_bin], check=True, capture_output=True)
    y = np.fromfile(out_bin, dtype=np.float32).reshape(io["output"].shape)
    result = {k: v for k, v in io.items() if k not in ("output", "float_output")}
    result["output"] = y
    result["float_output"] = io["output"]
    tmp = out_npz + ".part.npz"
    np.savez(tmp, **result)
    os.replace(tmp, out_npz)
    err = float(np.abs(y - io["output"]).max() / max(np.abs(io["output"]).max(), 1e-30))
    print(f"{out_npz}: ONNX Runtime's output, {err:.3g} from the float model's (max|d| / max|ref|)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--dynamic", action="store_true",
                        help="quantize_dynamic (MatMulInteger) instead of static QDQ")
    parser.add_argument("--calibration-runs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--oracle", metavar="FLOAT.io.npz",
                        help="write OUT's .io.npz with ONNX Runtime's output on these inputs")
    args = parser.parse_args()
    if not os.path.isdir(os.path.join(ORT_DIR, "node_modules", "onnxruntime-node")):
        fail("ONNX Runtime is missing: run benchmarks/ort/setup.sh first")
    model = onnx.shape_inference.infer_shapes(onnx.load(args.model))
    m = Model(model)
    with tempfile.TemporaryDirectory() as work:
        if args.dynamic:
            quantize_dynamic(m)
        else:
            ranges = calibrate(args.model, m, input_shapes(m), args.calibration_runs, args.seed, work)
            QdqQuantizer(m, ranges).run()
        onnx.checker.check_model(m.model)
        onnx.save(m.model, args.out)
        ops = {}
        for n in m.graph.node:
            ops[n.op_type] = ops.get(n.op_type, 0) + 1
        print(f"{args.out}: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
        if args.oracle:
            out_npz = args.out[:-len(".onnx")] + ".io.npz" if args.out.endswith(".onnx") \
                else args.out + ".io.npz"
            ort_oracle(args.out, args.oracle, out_npz, work)


if __name__ == "__main__":
    main()

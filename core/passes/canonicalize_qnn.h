// Canonicalization of quantized regions into integer products and a float
// requantize epilogue, after TVM's QNN canonicalization and its
// FakeQuantizationToInteger:
//
//  - QLinearConv, QLinearMatMul and com.microsoft.QGemm become
//    ConvInteger / MatMulInteger (int32), + int32 bias, Cast to float,
//    Mul by x_scale * w_scale / y_scale (per output channel), and
//    QuantizeLinear with scale 1 and the output zero point: exactly ONNX
//    Runtime's requantize (ir/quant_arith.h), so the result keeps the op's bits.
//  - A Conv, MatMul or Gemm whose data input is DequantizeLinear (per
//    tensor, uint8) and whose weight is DequantizeLinear of a constant becomes
//    ConvInteger / MatMulInteger on the quantized values, Cast, Mul by
//    x_scale * w_scale, + the float bias; the QuantizeLinear (and Relu or
//    Clip) that follows stays and fuses into the integer op's group. The
//    weight's dequantize is not computed at all. Against the float
//    computation the result differs only in the order of rounding, within
//    one quantization step of the output.
//
// Everything else (a non-constant weight, a per-channel or int8 activation,
// scales not known at compile time) stays as it is, float and correct. Int8
// activations stay float as ONNX Runtime keeps them on x86, which is what
// makes an S8S8 model's results match its.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph canonicalize_qnn(const Graph& graph);

}  // namespace lathe::passes

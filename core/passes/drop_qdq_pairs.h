// DequantizeLinear -> op -> QuantizeLinear with the same per-tensor scale and
// zero point, where `op` commutes with the dequantize, becomes `op` on the
// quantized integers, as ONNX Runtime's QDQ transformer drops such pairs
// (DropQDQNodesRules) and runs QLinearConcat as a copy when the scales agree:
//
//  - MaxPool and GlobalMaxPool, when the scale is positive: the dequantize is
//    then increasing, so the max of dequantized values is the dequantized max;
//  - data movement (Flatten, Reshape, Transpose, Squeeze, Unsqueeze, Identity):
//    it moves values without computing on them;
//  - Concat of dequantized inputs: an input of the output's parameters is
//    read as its integers, one of other parameters is quantized with the
//    output's before the Concat instead of after it (the same elementwise
//    QuantizeLinear of the same values, which then fuses into the input's
//    producer), so the Concat moves integers.
//
// Exact: Q(DQ(q)) = q for the same scale s and zero point z, because
// (q - z) * s / s lies within a few ulps of the integer q - z and so rounds
// back to it. An int8 or uint8 MaxPool also keeps the quantized convs on
// either side integer (the QDQ around it no longer reads float), and the pool
// moves a quarter of the bytes.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph drop_qdq_pairs(const Graph& graph);

}  // namespace lathe::passes

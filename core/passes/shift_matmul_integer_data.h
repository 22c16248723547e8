// An int8 A of a MatMulInteger whose B is a constant int8 [K, N] becomes
// uint8 by adding 128 to it and to its zero point (0 when omitted): A - a_zero
// is unchanged, and the packed vpdpbusd kernel (pack_matmul_integer), which
// multiplies unsigned by signed bytes, then takes it. alter_int8_conv_layout
// shifts int8 conv data the same way (ONNX Runtime's S8 -> U8 conversion); a
// QOperator S8 model's classifier is such a MatMulInteger.
#pragma once

#include "ir/graph.h"

namespace lathe::passes {

Graph shift_matmul_integer_data(const Graph& graph);

}  // namespace lathe::passes

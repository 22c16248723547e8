// DepthwiseConvIntegerNCHWc: a depthwise ConvInteger (group == C == OC, one
// input channel per output channel) on channel-blocked operands, the form
// the int8 layout pass (passes/alter_int8_conv_layout.h) gives it so that
// the uint8 activations around it stay blocked, as around ConvIntegerNCHWc.
//
//   DepthwiseConvIntegerNCHWc(x, w, w_sum?, x_zero_point?, w_zero_point?) -> y
//     x             uint8 [N, C/b, H, W, b]        (NCHW{b}c)
//     w             int8  [C/b, KH, KW, b]         w[c / b, ky, kx, c % b] = W[c, 0, ky, kx]
//     w_sum         int32 [C/b, b]: sum of W[c, 0, ...] over ky, kx
//     x_zero_point  uint8 scalar
//     w_zero_point  int8 scalar or [C]
//     y             int32 [N, C/b, OH, OW, b]      (NCHW{b}c, the data's block)
//   y[n, c] = sum over ky, kx of (x − xz)(W − wz[c]), a tap in the padding
//   adding zero (it holds xz), as ConvInteger pads. Attributes: strides,
//   dilations, pads (explicit, [top, left, bottom, right]).
// The compiled kernel computes Σ x·(W − wz) − xz·(w_sum − KH·KW·wz): the
// weights' zero point is subtracted from the weight vector once per tap,
// and the activations' one folds into a constant per channel.
#pragma once

#include "ir/op_registry.h"

namespace lathe {

void register_depthwise_conv_integer_nchwc_op(OpRegistry& registry);

}  // namespace lathe

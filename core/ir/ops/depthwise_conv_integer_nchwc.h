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
//
// GroupedConvIntegerNCHWc: a grouped ConvInteger (C == OC) whose groups of g
// channels nest in the 16-channel blocks (16 % g == 0: RegNet's groups of
// 8), as a block-diagonal conv: output block k reads input block k only,
// through a [16 x 16] weight per tap that is zero across groups, so the
// int8 dot product (4 input channels per lane) takes it as it takes a dense
// conv of 16 input channels.
//
//   GroupedConvIntegerNCHWc(x, w, w_sum?, x_zero_point?) -> y
//     x             uint8 [N, C/16, H, W, 16]
//     w             int8  [C/16, 1, KH, KW, 4, 16, 4]
//                   w[o / 16, 0, ky, kx, (c % 16) / 4, o % 16, c % 4] = W[o, c − group start, ky,
//                   kx] for c in o's group, 0 for the other channels of the block
//     w_sum         int32 [C/16, 16]: sum of W[o, ...] over its group and window
//     x_zero_point  uint8 scalar (the weights' zero point is zero)
//     y             int32 [N, C/16, OH, OW, 16]
//   y[n, o] = sum over c of o's block, ky, kx of (x − xz)·w, a padded tap
//   adding zero; attributes as DepthwiseConvIntegerNCHWc's.
#pragma once

#include "ir/op_registry.h"

namespace lathe {

void register_depthwise_conv_integer_nchwc_op(OpRegistry& registry);

}  // namespace lathe

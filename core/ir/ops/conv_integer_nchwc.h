// ConvIntegerNCHWc: ConvInteger on channel-blocked operands, the form the
// int8 layout pass (passes/alter_int8_conv_layout.h) gives a ConvInteger
// whose weight is a constant, so that the weight is packed once at compile
// time and its sums per output channel are constants too.
//
//   ConvIntegerNCHWc(x, w, w_sum?, x_zero_point?, w_zero_point?) -> y
//     x             uint8 [N, C/ib, H, W, ib]          (NCHW{ib}c, ib a multiple of 4)
//     w             int8  [OC/16, C/ib, KH, KW, ib/4, 16, 4]
//                   w[o / 16, c / ib, ky, kx, (c % ib) / 4, o % 16, c % 4] = W[o, c, ky, kx]
//     w_sum         int32 [OC/16, 16]: sum of W[o, ...] over c, ky, kx
//     x_zero_point  uint8 scalar
//     w_zero_point  int8 scalar or [OC]
//     y             int32 [N, OC/16, OH, OW, 16] (NCHW16c)
//   y[n, o] = sum over c, ky, kx of (x − xz)(W − wz[o]), a tap in the padding
//   adding zero (it holds xz), as ConvInteger pads. Attributes: strides,
//   dilations, pads (explicit, [top, left, bottom, right]).
// The compiled kernel expands the sum as Σxw − wz·Σx − xz·w_sum + K·xz·wz
// (topi/int8.h), which is why w_sum is an input: a constant, folded once.
#pragma once

#include "ir/op_registry.h"

namespace lathe {

inline constexpr int64_t kConvIntegerLanes = 16;  // output channels per block
inline constexpr int64_t kConvIntegerGroup = 4;   // input channels per 32-bit lane

void register_conv_integer_nchwc_op(OpRegistry& registry);

}  // namespace lathe

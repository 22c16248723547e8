// StemConvInteger: the first conv of an int8 CNN, whose input has few
// channels (RGB: 3), as oneDNN's small-input-channel conv computes it: the
// kernel width and the channels reduced together. Its data is in padded
// NHWC rows, so that the KW·C bytes (kx, c) of one output pixel's window row
// are contiguous: x[n, y, (ox·sw + kx)·C + c] = x[n, y, ox·sw·C + j] for
// j = kx·C + c < KW·C. Four consecutive j are one 32-bit lane of vpdpbusd,
// KW·C rounded up to a multiple of 4 (7x7 RGB: 21 → 24, 6 dot products a
// kernel row where NCHW4c takes 7, each with a wasted channel). The layout
// pass (passes/alter_int8_conv_layout.h) gives a ConvInteger this form when
// it saves dot products (passes/int8_stem_layout.h).
//
//   StemConvInteger(x, w, w_sum?, x_zero_point?, w_zero_point?) -> y
//     x             uint8 [N, HP, WR]: rows already padded (top, left, and at
//                   the bottom and right as far as the windows read; every
//                   padded byte the zero point), WR >= (OW−1)·sw·C + 4·Q
//     w             int8  [OC/16, KH, Q, 16, 4], Q = ceil(KW·C / 4):
//                   w[o / 16, ky, j / 4, o % 16, j % 4] = W[o, c, ky, kx]
//                   for j = kx·C + c, zero for j >= KW·C
//     w_sum         int32 [OC/16, 16]: sum of W[o, ...] over c, ky, kx
//     x_zero_point  uint8 scalar
//     w_zero_point  int8 scalar or [OC]
//     y             int32 [N, OC/16, OH, OW, 16] (NCHW16c)
//   y[n, o, oy, ox] = sum over ky, j < KW·C of
//     (x[n, oy·sh + ky·dh, ox·sw·C + j] − xz)(w[.., ky, j, o] − wz[o]).
// Attributes: channels (C), kernel_shape [KH, KW], strides [sh, sw],
// dilations [dh, 1] (a dilated kernel width would not be contiguous),
// output_width (OW: the rows may run past the last window, so WR does not
// give it). OH = (HP − (KH−1)·dh − 1) / sh + 1.
#pragma once

#include "ir/op_registry.h"

namespace lathe {

// The attributes of a StemConvInteger node, checked.
struct StemConvGeometry {
  int64_t channels = 0, kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1;
  int64_t output_width = 0;
  int64_t quads() const { return (kernel_w * channels + 3) / 4; }  // Q
  // Throws naming the op and the attribute that is missing or wrong.
  static StemConvGeometry of(const Attributes& attrs);
};

void register_stem_conv_integer_op(OpRegistry& registry);

}  // namespace lathe

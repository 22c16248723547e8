// StemConvInteger: the first conv of an int8 CNN, whose input has few
// channels (RGB: 3), as oneDNN's small-input-channel conv computes it: the
// kernel width and the channels reduced together. Its data is padded NHWC,
// so that the KW·C bytes (kx, c) of one output pixel's window row are
// contiguous: row y's byte (ox·sw + kx)·C + c = ox·sw·C + j for
// j = kx·C + c < KW·C. Four consecutive j are one 32-bit lane of vpdpbusd,
// KW·C rounded up to a multiple of 4 (7x7 RGB: 21 → 24, 6 dot products a
// kernel row where NCHW4c takes 7, each with a wasted channel). The layout
// pass (passes/alter_int8_conv_layout.h) gives a ConvInteger this form when
// it takes fewer lanes than NCHW4c (passes/int8_stem_layout.h).
//
//   StemConvInteger(x, w, w_sum?, x_zero_point?, w_zero_point?) -> y
//     x             uint8 [N, C, H, W] (NCHW, as ConvInteger reads it)
//     w             int8  [OC/16, KH, Q, 16, 4], Q = ceil(KW·C / 4):
//                   w[o / 16, ky, j / 4, o % 16, j % 4] = W[o, c, ky, kx]
//                   for j = kx·C + c, zero for j >= KW·C
//     w_sum         int32 [OC/16, 16]: sum of W[o, ...] over c, ky, kx
//     x_zero_point  uint8 scalar
//     w_zero_point  int8 scalar or [OC]
//     y             int32 [N, OC/16, OH, OW, 16] (NCHW16c)
//   y[n, o, oy, ox] = ConvInteger's: the sum over c, ky, kx of (x − xz)(W − wz[o]),
//   a tap in the padding adding zero (it holds xz). Attributes as
//   ConvInteger's, explicit: kernel_shape [KH, KW], strides, dilations
//   [dh, 1] (a dilated kernel width would not be contiguous), pads [top,
//   left, bottom, right]. The compiled kernel copies x into padded NHWC
//   rows first (topi/int8_stem.h): the NCHW input is what the quantization
//   before it writes in one elementwise kernel.
#pragma once

#include "ir/op_registry.h"

namespace lathe {

// The attributes of a StemConvInteger node and its input's shape, checked.
struct StemConvGeometry {
  int64_t channels = 0, height = 0, width = 0;  // the input's
  int64_t kernel_h = 0, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t quads() const { return (kernel_w * channels + 3) / 4; }  // Q
  int64_t output_height() const {
    return (height + pad_top + pad_bottom - (kernel_h - 1) * dilation_h - 1) / stride_h + 1;
  }
  int64_t output_width() const { return (width + pad_left + pad_right - kernel_w) / stride_w + 1; }
  // The padded NHWC rows the kernel reads: as many rows as the windows
  // reach, and pixels enough that each window's last 4-byte group, which
  // runs past its KW·C bytes, stays in the row.
  int64_t row_count() const {
    return (output_height() - 1) * stride_h + (kernel_h - 1) * dilation_h + 1;
  }
  int64_t row_pixels() const {
    const int64_t bytes = (output_width() - 1) * stride_w * channels + 4 * quads();
    return (bytes + channels - 1) / channels;
  }
  // Throws naming the op and the attribute that is missing or wrong.
  static StemConvGeometry of(const Attributes& attrs, const Shape& input);
};

void register_stem_conv_integer_op(OpRegistry& registry);

}  // namespace lathe

// The stem part of the int8 layout pass (passes/alter_int8_conv_layout.h):
// which ConvIntegers run as StemConvInteger (ir/ops/stem_conv_integer.h),
// the kernel width and the few input channels reduced together, and their
// weights and rows laid out for it.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace lathe::passes {

// Whether a conv of `channels` input channels and a kernel `kernel_w` wide
// (its width not dilated) runs as StemConvInteger: fewer than 16 channels,
// not a multiple of 4 (NCHW{4k}c then wastes no lane), and a kernel row's
// KW·C bytes in fewer 4-byte lanes than NCHW{4k}c's KW per 4 channels
// (RGB 7x7: 6 lanes instead of 7). An RGB 3x3 takes 3 either way and stays
// NCHW4c: the stem's copy into NHWC rows then costs what its tiles save
// (MobileNetV2's and RegNetY's stems measured alike both ways), while
// NCHW4c's transform fuses with the quantization before it.
bool stem_layout_fits(int64_t channels, int64_t kernel_w, int64_t dilation_w);

// W [OC, C, KH, KW] int8 as [OC/16, KH, Q, 16, 4], Q = ceil(KW·C / 4):
// element (o, c, ky, kx) at j = kx·C + c of row ky, zero for j >= KW·C.
Tensor pack_stem_weight(const Tensor& w);

}  // namespace lathe::passes

// ConvTranspose's leading padding per spatial axis, after the ONNX reference:
// the explicit `pads`, or, when `output_shape` or SAME auto_pad decides the
// output extent, whatever makes the full result land on it (SAME_UPPER puts
// the smaller half first). Shared by the reference kernel, the compute and the
// pass that lowers ConvTranspose to Conv, so all three place taps alike.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attributes.h"
#include "ir/tensor.h"

namespace lathe {

// x and y are the N x C x spatial input and output shapes, `kernel` the
// spatial kernel extents. May be negative when output_shape asks for more
// than the full result.
std::vector<int64_t> conv_transpose_pad_begin(const Attributes& attrs, const Shape& x,
                                              const Shape& y, const Shape& kernel);

}  // namespace lathe

// The geometry of a sliding window over the spatial dimensions of an
// N x C x D1 x ... x Dn tensor (Conv, ConvTranspose and the pools): their
// per-axis attributes, ONNX's auto_pad and the explicit padding it implies.
// One definition for shape inference, the reference kernels, the TE computes
// and the graph passes, so that all of them place the window's taps alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attributes.h"
#include "ir/tensor.h"

namespace lathe {

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

// The `auto_pad` attribute; fails on a value ONNX does not define.
AutoPad auto_pad(const Attributes& attrs);
inline bool is_same_padding(AutoPad mode) {
  return mode == AutoPad::SameUpper || mode == AutoPad::SameLower;
}

// A per-spatial-axis attribute such as `strides`: `fallback` repeated when
// absent (or empty, as some exporters write it), otherwise exactly n values,
// each at least `min_value`.
std::vector<int64_t> spatial_ints(const Attributes& attrs, const std::string& name, size_t n,
                                  int64_t fallback, int64_t min_value = INT64_MIN);

// The explicit `pads` as [begin..., end...] over n spatial axes: zeros when
// absent or when auto_pad overrides them.
std::vector<int64_t> explicit_pads(const Attributes& attrs, AutoPad mode, size_t n);

// The output extents of a window of (dilated) extents `window` sliding over
// the spatial extents `in` (Conv and the pools; ceil_mode as the pools').
Shape window_output_extents(const Attributes& attrs, const Shape& in, const Shape& window,
                            const std::vector<int64_t>& strides, bool ceil_mode);

// A Conv's or a pool's window resolved against its actual spatial input and
// output extents: explicit pads, or, under SAME auto_pad, the total padding
// that makes the output extents come out (SAME_UPPER puts the smaller half
// first), as ONNX's reference does.
struct SpatialWindow {
  Shape kernel;  // undilated extents
  std::vector<int64_t> strides, dilations, pad_begin, pad_end;

  int64_t dilated_extent(size_t d) const { return (kernel[d] - 1) * dilations[d] + 1; }
};
SpatialWindow resolve_window(const Attributes& attrs, const Shape& in, const Shape& out,
                             const Shape& kernel);

// ConvTranspose's leading padding per spatial axis, after the ONNX reference:
// the explicit `pads`, or, when `output_shape` or SAME auto_pad decides the
// output extent, whatever makes the full result land on it. x and y are the
// N x C x spatial input and output shapes, `kernel` the spatial kernel
// extents. May be negative when output_shape asks for more than the full
// result.
std::vector<int64_t> conv_transpose_pad_begin(const Attributes& attrs, const Shape& x,
                                              const Shape& y, const Shape& kernel);

}  // namespace lathe

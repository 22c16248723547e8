// GridSample's arithmetic (opset 16; N-D and the mode names linear/cubic
// from opset 20), after PyTorch's grid_sampler, which ONNX's definition and
// ONNX Runtime follow: a normalised grid coordinate in [-1, 1] becomes an
// input coordinate (align_corners picks whether -1 and 1 are the centres or
// the edges of the end elements), and the taps around the coordinate
// (1 nearest, 2 linear, 4 cubic per axis) read the input with the padding
// mode applied to each index: clamped, reflected, or (zeros) read as 0.
// ONNX's reference implementation clamps or reflects the coordinate itself
// first; for nearest and linear that gives the same values, for cubic it does
// not, and models come from PyTorch and are checked against ONNX Runtime.
// The reference kernel computes this in double; the compiled kernel builds
// the same steps as expressions (topi/shape_compute.cpp).
#pragma once

#include <cstdint>

#include "ir/attributes.h"

namespace lathe {

enum class GridMode { Nearest, Linear, Cubic };
enum class GridPadding { Zeros, Border, Reflection };

struct GridSampleParams {
  GridMode mode = GridMode::Linear;
  GridPadding padding = GridPadding::Zeros;
  bool align_corners = false;
};

// Accepts both spellings (bilinear/bicubic before opset 20, linear/cubic
// since); throws lathe::Error naming an unknown mode or padding mode.
GridSampleParams grid_sample_params(const Attributes& attrs);

// The input coordinate of normalised coordinate g along an axis of n.
inline double grid_unnormalize(double g, int64_t n, bool align_corners) {
  return align_corners ? (g + 1) / 2 * static_cast<double>(n - 1)
                       : ((g + 1) * static_cast<double>(n) - 1) / 2;
}

// The range coordinates are reflected into: element centres with
// align_corners, else element edges.
inline double grid_low(bool align_corners) {
  return align_corners ? 0 : -0.5;
}
inline double grid_high(int64_t n, bool align_corners) {
  return static_cast<double>(n) - (align_corners ? 1 : 0.5);
}

// x reflected at lo and hi until it lies between them.
double grid_reflect(double x, double lo, double hi);

}  // namespace lathe

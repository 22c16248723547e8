// Resize's per-axis geometry, after the ONNX reference implementation (opsets
// 11-19): an output coordinate maps to a fractional input coordinate, whose
// neighbours (1 for nearest, 2 for linear, 4 for cubic) are the taps of a
// weighted sum. Shared by the reference kernel and the compiled kernel's
// compute, which bakes the taps into tables, so both read the same inputs
// with the same weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attributes.h"

namespace lathe {

struct ResizeTap {
  int64_t index;
  double weight;
};

struct ResizeParams {
  std::string mode, transform, nearest_mode;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;  // tf_crop_and_resize's value outside the input
  // Opset 18: linear and cubic widen their filter by 1 / scale when
  // downscaling, so every input element contributes (PIL's and TF's resize).
  bool antialias = false;
  // keep_aspect_ratio_policy (opset 18) scales every resized axis by one
  // factor while `sizes` gives the rounded lengths: the importer records the
  // per-axis factors here. Empty: the factor is `scales`, or out / in.
  std::vector<double> coordinate_scales;
};

// The Resize node's attributes, with ONNX's defaults.
ResizeParams resize_params(const Attributes& attrs);

// The attribute that carries ResizeParams::coordinate_scales: per axis a
// numerator and a denominator, so the factor is the exact ratio of lengths
// the reference computes in double.
inline constexpr const char* kResizeCoordinateScales = "coordinate_scales";

// The factor that maps axis `d`'s coordinates: the recorded coordinate
// scale, else `scales[d]` when given, else the exact ratio out_n / in_n.
double resize_axis_scale(const ResizeParams& p, size_t d, const std::vector<double>& scales,
                         int64_t in_n, int64_t out_n);

// The input coordinate of output coordinate `x` along an axis of `in_n`
// elements; `outside` is set for tf_crop_and_resize coordinates that need the
// extrapolation value. Throws UnsupportedError for an unknown transformation.
double resize_source_coord(const ResizeParams& p, int64_t x, double scale, int64_t in_n,
                           double roi_start, double roi_end, bool& outside);

// resize_source_coord as a + b * x, for the transformations that are affine
// in x (all but tf_crop_and_resize): {a, b}, or false.
bool resize_affine_coord(const ResizeParams& p, double scale, int64_t in_n, double& a, double& b);

enum class ZeroWeightTaps { Keep, Drop };

// The taps of input coordinate `c` on an axis resized by `scale`, indices
// clamped to [0, in_n) (the reference pads by repeating the edge).
// ZeroWeightTaps::Keep returns all of them (every output coordinate then has
// the same number of taps); Drop leaves out zero weights but keeps at least
// one tap. Throws UnsupportedError for an unknown mode or nearest_mode.
std::vector<ResizeTap> resize_taps(const ResizeParams& p, double c, double scale, int64_t in_n,
                                   ZeroWeightTaps zeros);

}  // namespace lathe

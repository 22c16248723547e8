#include "ir/ops/resize_geometry.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace lathe {

namespace {

// half_pixel_symmetric (opset 19) keeps the input's centre on the output's
// when the output length is the real scale * in_n rounded down: the shift of
// half_pixel's coordinates that this takes.
double half_pixel_symmetric_offset(double scale, int64_t in_n) {
  const double out_len = scale * static_cast<double>(in_n);
  const double adjustment = std::floor(out_len) / out_len;
  return static_cast<double>(in_n) / 2 * (1 - adjustment);
}

// Keys' cubic convolution kernel with parameter a.
double cubic_kernel(double a, double t) {
  t = std::abs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

// The antialiased filter (opset 18) at fractional offset r in (0, 1] right of
// input element x0: the kernel stretched by 1 / scale covers the elements
// x0 + first ... x0 + first + n - 1, weights normalised to sum to one. At
// scale >= 1 this is the plain linear or cubic filter.
std::vector<ResizeTap> antialias_taps(const ResizeParams& p, int64_t x0, double r, double scale) {
  const double s = std::min(scale, 1.0);
  const bool cubic = p.mode == "cubic";
  const double support = cubic ? 2 : 1;
  const auto first = static_cast<int64_t>(std::floor(-support / s) + 1);
  const int64_t n = 2 - 2 * first;
  std::vector<ResizeTap> taps;
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double t = s * (static_cast<double>(first + j) - r);
    const double w = cubic ? cubic_kernel(p.cubic_a, t) : std::clamp(1 - std::abs(t), 0.0, 1.0);
    taps.push_back({x0 + first + j, w});
    sum += w;
  }
  for (ResizeTap& t : taps) t.weight /= sum;
  return taps;
}

}  // namespace

ResizeParams resize_params(const Attributes& attrs) {
  ResizeParams p;
  p.mode = attrs.get_string("mode", "nearest");
  p.transform = attrs.get_string("coordinate_transformation_mode", "half_pixel");
  p.nearest_mode = attrs.get_string("nearest_mode", "round_prefer_floor");
  p.cubic_a = attrs.get_float("cubic_coeff_a", -0.75f);
  p.exclude_outside = attrs.get_int("exclude_outside", 0) != 0;
  p.extrapolation = attrs.get_float("extrapolation_value", 0.0f);
  p.antialias = attrs.get_int("antialias", 0) != 0;
  if (attrs.has(kResizeCoordinateScales)) {
    const std::vector<int64_t> ratios = attrs.get_ints(kResizeCoordinateScales);
    LATHE_CHECK(ratios.size() % 2 == 0, kResizeCoordinateScales, " needs pairs of integers");
    for (size_t k = 0; k < ratios.size(); k += 2) {
      LATHE_CHECK(ratios[k] > 0 && ratios[k + 1] > 0, kResizeCoordinateScales,
                  " needs positive ratios");
      p.coordinate_scales.push_back(static_cast<double>(ratios[k]) /
                                    static_cast<double>(ratios[k + 1]));
    }
  }
  return p;
}

double resize_axis_scale(const ResizeParams& p, size_t d, const std::vector<double>& scales,
                         int64_t in_n, int64_t out_n) {
  if (d < p.coordinate_scales.size()) return p.coordinate_scales[d];
  if (d < scales.size()) return scales[d];
  return static_cast<double>(out_n) / static_cast<double>(in_n);
}

double resize_source_coord(const ResizeParams& p, int64_t x, double scale, int64_t in_n,
                           double roi_start, double roi_end, bool& outside) {
  double xd = static_cast<double>(x);
  // The reference uses the real-valued output length scale * input length.
  double out_len = scale * static_cast<double>(in_n);
  double last = static_cast<double>(in_n - 1);
  const std::string& t = p.transform;
  if (t == "half_pixel") return (xd + 0.5) / scale - 0.5;
  if (t == "pytorch_half_pixel") return out_len > 1 ? (xd + 0.5) / scale - 0.5 : -0.5;
  if (t == "align_corners") return out_len == 1 ? 0 : xd * last / (out_len - 1);
  if (t == "asymmetric") return xd / scale;
  if (t == "tf_half_pixel_for_nn") return (xd + 0.5) / scale;
  if (t == "half_pixel_symmetric")
    return half_pixel_symmetric_offset(scale, in_n) + (xd + 0.5) / scale - 0.5;
  if (t == "tf_crop_and_resize") {
    double c = out_len == 1 ? (roi_end - roi_start) * last / 2
                            : xd * (roi_end - roi_start) * last / (out_len - 1);
    c += roi_start * last;
    outside = c < 0 || c > last;
    return c;
  }
  fail_unsupported(str("coordinate_transformation_mode '", t, "' is not supported"));
}

bool resize_affine_coord(const ResizeParams& p, double scale, int64_t in_n, double& a, double& b) {
  const double out_len = scale * static_cast<double>(in_n);
  const double last = static_cast<double>(in_n - 1);
  const std::string& t = p.transform;
  a = 0;
  b = 0;
  if (t == "half_pixel" || (t == "pytorch_half_pixel" && out_len > 1)) {
    a = 0.5 / scale - 0.5;
    b = 1 / scale;
  } else if (t == "pytorch_half_pixel") {
    a = -0.5;
  } else if (t == "align_corners") {
    b = out_len == 1 ? 0 : last / (out_len - 1);
  } else if (t == "asymmetric") {
    b = 1 / scale;
  } else if (t == "tf_half_pixel_for_nn") {
    a = 0.5 / scale;
    b = 1 / scale;
  } else if (t == "half_pixel_symmetric") {
    a = half_pixel_symmetric_offset(scale, in_n) + 0.5 / scale - 0.5;
    b = 1 / scale;
  } else {
    return false;
  }
  return true;
}

std::vector<ResizeTap> resize_taps(const ResizeParams& p, double c, double scale, int64_t in_n,
                                   ZeroWeightTaps zeros) {
  int64_t x0 = static_cast<int64_t>(std::floor(c));
  double r = c - static_cast<double>(x0);
  // The reference prefers the left neighbour: an integral coordinate is the
  // right end (ratio 1) of the interval that ends there.
  if (r == 0) {
    x0 -= 1;
    r = 1;
  }
  std::vector<ResizeTap> taps;
  if (p.mode == "nearest") {
    bool right = r == 1;
    if (!right) {
      const std::string& m = p.nearest_mode;
      if (m == "round_prefer_floor")
        right = r > 0.5;
      else if (m == "round_prefer_ceil")
        right = r >= 0.5;
      else if (m == "floor")
        right = false;
      else if (m == "ceil")
        right = true;
      else
        fail_unsupported(str("nearest_mode '", m, "' is not supported"));
    }
    taps.push_back({right ? x0 + 1 : x0, 1.0});
  } else if (p.antialias && (p.mode == "linear" || p.mode == "cubic")) {
    taps = antialias_taps(p, x0, r, scale);
  } else if (p.mode == "linear") {
    taps = {{x0, 1 - r}, {x0 + 1, r}};
  } else if (p.mode == "cubic") {
    double a = p.cubic_a;
    auto far = [a](double t) { return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a; };  // 1<|t|<2
    auto near = [a](double t) { return ((a + 2) * t - (a + 3)) * t * t + 1; };       // |t|<=1
    taps = {{x0 - 1, far(r + 1)}, {x0, near(r)}, {x0 + 1, near(1 - r)}, {x0 + 2, far(2 - r)}};
  } else {
    fail_unsupported(str("mode '", p.mode, "' is not supported"));
  }
  if (p.exclude_outside && p.mode != "nearest") {
    double sum = 0;
    for (ResizeTap& t : taps) {
      if (t.index < 0 || t.index >= in_n) t.weight = 0;
      sum += t.weight;
    }
    if (sum != 0)
      for (ResizeTap& t : taps) t.weight /= sum;
  }
  std::vector<ResizeTap> kept;
  for (ResizeTap t : taps) {
    // Zero weights add nothing; dropping them keeps the tap product small.
    if (zeros == ZeroWeightTaps::Drop && t.weight == 0 && taps.size() > 1) continue;
    t.index = std::clamp<int64_t>(t.index, 0, in_n - 1);
    kept.push_back(t);
  }
  if (kept.empty()) kept.push_back({std::clamp<int64_t>(x0, 0, in_n - 1), 0.0});
  return kept;
}

}  // namespace lathe

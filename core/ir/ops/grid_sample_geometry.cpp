#include "ir/ops/grid_sample_geometry.h"

#include <cmath>

#include "support/error.h"

namespace lathe {

GridSampleParams grid_sample_params(const Attributes& attrs) {
  GridSampleParams p;
  const std::string mode = attrs.get_string("mode", "linear");
  if (mode == "nearest")
    p.mode = GridMode::Nearest;
  else if (mode == "linear" || mode == "bilinear")
    p.mode = GridMode::Linear;
  else if (mode == "cubic" || mode == "bicubic")
    p.mode = GridMode::Cubic;
  else
    fail(str("GridSample mode '", mode, "' is not one of nearest, linear, cubic"));
  const std::string padding = attrs.get_string("padding_mode", "zeros");
  if (padding == "zeros")
    p.padding = GridPadding::Zeros;
  else if (padding == "border")
    p.padding = GridPadding::Border;
  else if (padding == "reflection")
    p.padding = GridPadding::Reflection;
  else
    fail(str("GridSample padding_mode '", padding, "' is not one of zeros, border, reflection"));
  p.align_corners = attrs.get_int("align_corners", 0) != 0;
  return p;
}

double grid_reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double dx = lo - x, turns = std::floor(dx / range), r = dx - turns * range;
    return std::fmod(turns, 2) == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi, turns = std::floor(dx / range), r = dx - turns * range;
    return std::fmod(turns, 2) == 0 ? hi - r : lo + r;
  }
  return x;
}

}  // namespace lathe

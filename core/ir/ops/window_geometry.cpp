#include "ir/ops/window_geometry.h"

#include <algorithm>

#include "support/error.h"
#include "support/int_math.h"

namespace lathe {
namespace {

// The leading share of `total` padding: SAME_UPPER puts the smaller half
// first, SAME_LOWER the larger.
int64_t same_pad_begin(AutoPad mode, int64_t total) {
  return mode == AutoPad::SameUpper ? floordiv(total, 2) : total - floordiv(total, 2);
}

}  // namespace

AutoPad auto_pad(const Attributes& attrs) {
  const std::string mode = attrs.get_string("auto_pad", "NOTSET");
  if (mode == "NOTSET") return AutoPad::NotSet;
  if (mode == "SAME_UPPER") return AutoPad::SameUpper;
  if (mode == "SAME_LOWER") return AutoPad::SameLower;
  if (mode == "VALID") return AutoPad::Valid;
  fail(str("unknown auto_pad '", mode, "'"));
}

std::vector<int64_t> spatial_ints(const Attributes& attrs, const std::string& name, size_t n,
                                  int64_t fallback, int64_t min_value) {
  std::vector<int64_t> v = attrs.get_ints(name);
  if (v.empty()) return std::vector<int64_t>(n, fallback);
  LATHE_CHECK(v.size() == n, "attribute '", name, "' has ", v.size(), " values, expected ", n,
              " (one per spatial dimension)");
  for (int64_t x : v)
    LATHE_CHECK(x >= min_value, "attribute '", name, "' has value ", x,
                ", expected >= ", min_value);
  return v;
}

std::vector<int64_t> explicit_pads(const Attributes& attrs, AutoPad mode, size_t n) {
  std::vector<int64_t> pads = attrs.get_ints("pads");
  if (pads.empty() || mode != AutoPad::NotSet) return std::vector<int64_t>(2 * n, 0);
  LATHE_CHECK(pads.size() == 2 * n, "attribute 'pads' has ", pads.size(), " values, expected ",
              2 * n);
  return pads;
}

Shape window_output_extents(const Attributes& attrs, const Shape& in, const Shape& window,
                            const std::vector<int64_t>& strides, bool ceil_mode) {
  const size_t n = in.size();
  const AutoPad mode = auto_pad(attrs);
  const std::vector<int64_t> pads = explicit_pads(attrs, mode, n);
  Shape out(n);
  for (size_t d = 0; d < n; ++d) {
    if (is_same_padding(mode)) {
      out[d] = ceildiv(in[d], strides[d]);
      continue;
    }
    const int64_t padded = in[d] + pads[d] + pads[n + d];
    LATHE_CHECK(padded >= window[d], "spatial dimension ", d, ": padded input extent ", padded,
                " is smaller than the window extent ", window[d]);
    const int64_t span = padded - window[d];
    out[d] = (ceil_mode ? ceildiv(span, strides[d]) : span / strides[d]) + 1;
    // As PyTorch: the last window must start inside the input or its left
    // padding, else ceil mode would add a window made only of padding.
    if (ceil_mode && mode == AutoPad::NotSet && (out[d] - 1) * strides[d] >= in[d] + pads[d])
      --out[d];
  }
  return out;
}

SpatialWindow resolve_window(const Attributes& attrs, const Shape& in, const Shape& out,
                             const Shape& kernel) {
  const size_t n = in.size();
  const AutoPad mode = auto_pad(attrs);
  SpatialWindow w;
  w.kernel = kernel;
  w.strides = spatial_ints(attrs, "strides", n, 1);
  w.dilations = spatial_ints(attrs, "dilations", n, 1);
  const std::vector<int64_t> pads = explicit_pads(attrs, mode, n);
  w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  w.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  if (!is_same_padding(mode)) return w;
  for (size_t d = 0; d < n; ++d) {
    const int64_t total =
        std::max<int64_t>(0, (out[d] - 1) * w.strides[d] + w.dilated_extent(d) - in[d]);
    w.pad_begin[d] = same_pad_begin(mode, total);
    w.pad_end[d] = total - w.pad_begin[d];
  }
  return w;
}

std::vector<int64_t> conv_transpose_pad_begin(const Attributes& attrs, const Shape& x,
                                              const Shape& y, const Shape& kernel) {
  const size_t n = x.size() - 2;
  const AutoPad mode = auto_pad(attrs);
  const bool derived = !attrs.get_ints("output_shape").empty() || is_same_padding(mode);
  if (!derived) {
    const std::vector<int64_t> pads = explicit_pads(attrs, mode, n);
    return std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  }
  const std::vector<int64_t> strides = spatial_ints(attrs, "strides", n, 1);
  const std::vector<int64_t> dilations = spatial_ints(attrs, "dilations", n, 1);
  const std::vector<int64_t> output_padding = spatial_ints(attrs, "output_padding", n, 0);
  std::vector<int64_t> begin(n, 0);
  for (size_t d = 0; d < n; ++d) {
    const int64_t full =
        strides[d] * (x[2 + d] - 1) + output_padding[d] + (kernel[d] - 1) * dilations[d] + 1;
    const int64_t total = full - y[2 + d];
    // Only SAME_UPPER puts the smaller half first; NOTSET with output_shape
    // puts the larger half first, as SAME_LOWER does (ONNX's reference).
    begin[d] = same_pad_begin(mode == AutoPad::SameUpper ? mode : AutoPad::SameLower, total);
  }
  return begin;
}

}  // namespace lathe

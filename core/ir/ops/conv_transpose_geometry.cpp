#include "ir/ops/conv_transpose_geometry.h"

#include <string>

#include "support/int_math.h"

namespace lathe {
namespace {

std::vector<int64_t> per_axis(const Attributes& attrs, const char* name, size_t n,
                              int64_t fallback) {
  std::vector<int64_t> v = attrs.get_ints(name);
  if (v.empty()) v.assign(n, fallback);
  return v;
}

}  // namespace

std::vector<int64_t> conv_transpose_pad_begin(const Attributes& attrs, const Shape& x,
                                              const Shape& y, const Shape& kernel) {
  const size_t n = x.size() - 2;
  const std::string mode = attrs.get_string("auto_pad", "NOTSET");
  const bool derived =
      !attrs.get_ints("output_shape").empty() || mode == "SAME_UPPER" || mode == "SAME_LOWER";
  std::vector<int64_t> begin(n, 0);
  if (!derived) {
    const std::vector<int64_t> pads = attrs.get_ints("pads");
    if (mode != "VALID" && pads.size() >= n) begin.assign(pads.begin(), pads.begin() + n);
    return begin;
  }
  const std::vector<int64_t> strides = per_axis(attrs, "strides", n, 1);
  const std::vector<int64_t> dilations = per_axis(attrs, "dilations", n, 1);
  const std::vector<int64_t> output_padding = per_axis(attrs, "output_padding", n, 0);
  for (size_t d = 0; d < n; ++d) {
    const int64_t full =
        strides[d] * (x[2 + d] - 1) + output_padding[d] + (kernel[d] - 1) * dilations[d] + 1;
    const int64_t total = full - y[2 + d];
    begin[d] = mode == "SAME_UPPER" ? floordiv(total, 2) : total - floordiv(total, 2);
  }
  return begin;
}

}  // namespace lathe

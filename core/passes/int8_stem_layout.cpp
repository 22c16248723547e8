#include "passes/int8_stem_layout.h"

#include <algorithm>

#include "ir/ops/conv_integer_nchwc.h"

namespace lathe::passes {

namespace {
constexpr int64_t kLanes = kConvIntegerLanes;
constexpr int64_t kGroup = kConvIntegerGroup;

int64_t quads(int64_t bytes) {
  return (bytes + kGroup - 1) / kGroup;
}
}  // namespace

bool stem_layout_fits(int64_t channels, int64_t kernel_w, int64_t dilation_w) {
  return channels > 0 && channels < 16 && channels % kGroup != 0 && dilation_w == 1 &&
         quads(kernel_w * channels) < kernel_w * quads(channels);
}

Tensor pack_stem_weight(const Tensor& w) {
  const Shape& s = w.shape();
  const int64_t oc = s[0], c = s[1], kh = s[2], kw = s[3], q = quads(kw * c);
  Tensor packed(DType::Int8, {oc / kLanes, kh, q, kLanes, kGroup});
  int8_t* dst = packed.data<int8_t>();
  std::fill(dst, dst + packed.numel(), int8_t{0});
  const int8_t* src = w.data<int8_t>();
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          const int64_t j = x * c + ch;
          dst[(((o / kLanes * kh + y) * q + j / kGroup) * kLanes + o % kLanes) * kGroup +
              j % kGroup] = src[((o * c + ch) * kh + y) * kw + x];
        }
  return packed;
}

}  // namespace lathe::passes

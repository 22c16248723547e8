// The reference kernel of DepthwiseConvIntegerNCHWc
// (ir/ops/depthwise_conv_integer_nchwc.h), written from its definition: the
// sum of x·(W − wz[c]) over the taps, a padded tap reading xz, less
// xz·(w_sum − KH·KW·wz[c]). It reads w_sum as the compiled kernel does, so a
// w_sum that is not the weights' sum shows in both alike (and against the
// ConvInteger the layout pass replaced).
#include <vector>

#include "reference/executor.h"
#include "support/error.h"

namespace lathe::reference {
namespace {

void depthwise_conv_integer_nchwc(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  Tensor& y = ctx.output(0);
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  const int64_t n = xs[0], cb = xs[1], h = xs[2], wd = xs[3], b = xs[4];
  const int64_t kh = ws[1], kw = ws[2];
  const int64_t oh = y.shape()[2], ow = y.shape()[3];
  auto ints = [&](const char* name, std::vector<int64_t> fallback) {
    std::vector<int64_t> v = ctx.attrs().get_ints(name);
    return v.empty() ? fallback : v;
  };
  const std::vector<int64_t> strides = ints("strides", {1, 1});
  const std::vector<int64_t> dilations = ints("dilations", {1, 1});
  const std::vector<int64_t> pads = ints("pads", {0, 0, 0, 0});
  const int32_t xz = ctx.has_input(3) ? ctx.input(3).data<uint8_t>()[0] : 0;
  const Tensor* wz = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  const Tensor* w_sum = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  LATHE_CHECK(w_sum || xz == 0, "DepthwiseConvIntegerNCHWc: an x_zero_point of ", xz,
              " needs w_sum");
  const uint8_t* px = x.data<uint8_t>();
  const int8_t* pw = w.data<int8_t>();
  int32_t* py = y.data<int32_t>();
  const int32_t taps = static_cast<int32_t>(kh * kw);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < cb * b; ++c) {
      const int64_t chunk = c / b, lane = c % b;
      const int32_t z = !wz ? 0 : wz->data<int8_t>()[wz->numel() == 1 ? 0 : c];
      const int32_t sw = w_sum ? w_sum->data<int32_t>()[c] : 0;
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          int32_t acc = 0;
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = oy * strides[0] - pads[0] + ky * dilations[0];
              const int64_t ix = ox * strides[1] - pads[1] + kx * dilations[1];
              const int32_t v = iy < 0 || iy >= h || ix < 0 || ix >= wd
                                    ? xz
                                    : px[(((i * cb + chunk) * h + iy) * wd + ix) * b + lane];
              acc += v * (pw[((chunk * kh + ky) * kw + kx) * b + lane] - z);
            }
          py[(((i * cb + chunk) * oh + oy) * ow + ox) * b + lane] = acc - xz * (sw - taps * z);
        }
    }
}

// GroupedConvIntegerNCHWc: output block k reads input block k through the
// block-diagonal weight; Σ x·w − xz·w_sum, a padded tap reading xz.
void grouped_conv_integer_nchwc(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  Tensor& y = ctx.output(0);
  const Shape& xs = x.shape();
  const int64_t n = xs[0], cb = xs[1], h = xs[2], wd = xs[3];
  const int64_t kh = w.shape()[2], kw = w.shape()[3];
  const int64_t oh = y.shape()[2], ow = y.shape()[3];
  auto ints = [&](const char* name, std::vector<int64_t> fallback) {
    std::vector<int64_t> v = ctx.attrs().get_ints(name);
    return v.empty() ? fallback : v;
  };
  const std::vector<int64_t> strides = ints("strides", {1, 1});
  const std::vector<int64_t> dilations = ints("dilations", {1, 1});
  const std::vector<int64_t> pads = ints("pads", {0, 0, 0, 0});
  const int32_t xz = ctx.has_input(3) ? ctx.input(3).data<uint8_t>()[0] : 0;
  const Tensor* w_sum = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  LATHE_CHECK(w_sum || xz == 0, "GroupedConvIntegerNCHWc: an x_zero_point of ", xz, " needs w_sum");
  const uint8_t* px = x.data<uint8_t>();
  const int8_t* pw = w.data<int8_t>();
  int32_t* py = y.data<int32_t>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < cb; ++k)
      for (int64_t l = 0; l < 16; ++l) {
        const int32_t sw = w_sum ? w_sum->data<int32_t>()[k * 16 + l] : 0;
        for (int64_t oy = 0; oy < oh; ++oy)
          for (int64_t ox = 0; ox < ow; ++ox) {
            int32_t acc = 0;
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = oy * strides[0] - pads[0] + ky * dilations[0];
                const int64_t ix = ox * strides[1] - pads[1] + kx * dilations[1];
                const bool inside = iy >= 0 && iy < h && ix >= 0 && ix < wd;
                for (int64_t j = 0; j < 16; ++j) {
                  const int32_t v = inside ? px[(((i * cb + k) * h + iy) * wd + ix) * 16 + j] : xz;
                  acc += v * pw[((((k * kh + ky) * kw + kx) * 4 + j / 4) * 16 + l) * 4 + j % 4];
                }
              }
            py[(((i * cb + k) * oh + oy) * ow + ox) * 16 + l] = acc - xz * sw;
          }
      }
}

}  // namespace

void register_depthwise_conv_integer_nchwc_kernel(OpRegistry& r) {
  r.set_kernel("DepthwiseConvIntegerNCHWc", depthwise_conv_integer_nchwc);
  r.set_kernel("GroupedConvIntegerNCHWc", grouped_conv_integer_nchwc);
}

}  // namespace lathe::reference

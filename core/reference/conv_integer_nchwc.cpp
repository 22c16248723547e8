// The reference kernel of ConvIntegerNCHWc (ir/ops/conv_integer_nchwc.h),
// written from its definition: the sum of (x − xz)(W − wz[o]) over the taps
// inside the input (a padded tap adds zero), with W read through the packed
// index. It reads w_sum as the compiled kernel does (Σxw − xz·w_sum − wz·Σx
// + K·xz·wz), so a w_sum that is not the weights' sum shows in both alike.
#include <vector>

#include "ir/ops/conv_integer_nchwc.h"
#include "reference/executor.h"
#include "support/error.h"

namespace lathe::reference {
namespace {

void conv_integer_nchwc(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  Tensor& y = ctx.output(0);
  const Shape& xs = x.shape();
  const Shape& ws = w.shape();
  const int64_t n = xs[0], cb = xs[1], h = xs[2], wd = xs[3], ib = xs[4];
  const int64_t ocb = ws[0], kh = ws[2], kw = ws[3], iq = ws[4];
  constexpr int64_t lanes = kConvIntegerLanes, group = kConvIntegerGroup;
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
  LATHE_CHECK(w_sum || xz == 0, "ConvIntegerNCHWc: an x_zero_point of ", xz, " needs w_sum");
  const uint8_t* px = x.data<uint8_t>();
  const int8_t* pw = w.data<int8_t>();
  int32_t* py = y.data<int32_t>();
  const int64_t taps = cb * ib * kh * kw;
  auto x_at = [&](int64_t b, int64_t c, int64_t iy, int64_t ix) -> int32_t {
    if (iy < 0 || iy >= h || ix < 0 || ix >= wd) return xz;  // the padding holds xz
    return px[(((b * cb + c / ib) * h + iy) * wd + ix) * ib + c % ib];
  };
  auto w_at = [&](int64_t o, int64_t c, int64_t ky, int64_t kx) -> int32_t {
    const int64_t i =
        (((((o / lanes * cb + c / ib) * kh + ky) * kw + kx) * iq + (c % ib) / group) * lanes +
         o % lanes) *
            group +
        c % group;
    return pw[i];
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < ocb * lanes; ++o) {
      const int32_t z = !wz ? 0 : wz->data<int8_t>()[wz->numel() == 1 ? 0 : o];
      const int32_t sw = w_sum ? w_sum->data<int32_t>()[o] : 0;
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          int32_t xw = 0, sx = 0;
          for (int64_t c = 0; c < cb * ib; ++c)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int32_t v = x_at(b, c, oy * strides[0] - pads[0] + ky * dilations[0],
                                       ox * strides[1] - pads[1] + kx * dilations[1]);
                xw += v * w_at(o, c, ky, kx);
                sx += v;
              }
          const int32_t acc = xw - z * sx - xz * sw + static_cast<int32_t>(taps) * xz * z;
          py[(((b * ocb + o / lanes) * oh + oy) * ow + ox) * lanes + o % lanes] = acc;
        }
    }
}

}  // namespace

void register_conv_integer_nchwc_kernel(OpRegistry& r) {
  r.set_kernel("ConvIntegerNCHWc", conv_integer_nchwc);
}

}  // namespace lathe::reference

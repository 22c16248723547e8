// The reference kernel of StemConvInteger (ir/ops/stem_conv_integer.h),
// written from its definition: ConvInteger's sum of (x − xz)(W − wz[o]), a
// padded tap reading xz, the weight read from its packed form. w_sum is not
// needed here: it only saves the compiled kernel a sum.
#include "ir/ops/stem_conv_integer.h"
#include "reference/executor.h"

namespace lathe::reference {
namespace {

void stem_conv_integer(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const StemConvGeometry g = StemConvGeometry::of(ctx.attrs(), x.shape());
  const Tensor& w = ctx.input(1);
  Tensor& y = ctx.output(0);
  const int64_t n = x.shape()[0], c = g.channels, h = g.height, wd = g.width;
  const int64_t ocb = w.shape()[0], q = g.quads();
  const int64_t oh = y.shape()[2], ow = y.shape()[3];
  const int32_t xz = ctx.has_input(3) ? ctx.input(3).data<uint8_t>()[0] : 0;
  const Tensor* wz = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  const uint8_t* px = x.data<uint8_t>();
  const int8_t* pw = w.data<int8_t>();
  int32_t* py = y.data<int32_t>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < ocb * 16; ++o) {
      const int32_t z = !wz ? 0 : wz->data<int8_t>()[wz->numel() == 1 ? 0 : o];
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          int32_t acc = 0;
          for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t ky = 0; ky < g.kernel_h; ++ky)
              for (int64_t kx = 0; kx < g.kernel_w; ++kx) {
                const int64_t iy = oy * g.stride_h - g.pad_top + ky * g.dilation_h;
                const int64_t ix = ox * g.stride_w - g.pad_left + kx;
                const int32_t v = iy < 0 || iy >= h || ix < 0 || ix >= wd
                                      ? xz
                                      : px[((i * c + ch) * h + iy) * wd + ix];
                const int64_t j = kx * c + ch;
                const int32_t wv =
                    pw[(((o / 16 * g.kernel_h + ky) * q + j / 4) * 16 + o % 16) * 4 + j % 4];
                acc += (v - xz) * (wv - z);
              }
          py[(((i * ocb + o / 16) * oh + oy) * ow + ox) * 16 + o % 16] = acc;
        }
    }
}

}  // namespace

void register_stem_conv_integer_kernel(OpRegistry& r) {
  r.set_kernel("StemConvInteger", stem_conv_integer);
}

}  // namespace lathe::reference

// Reference kernels for the quantized ops, with ONNX Runtime's arithmetic
// (ir/quant_arith.h): integer products accumulate exactly in int32, and every
// float step is the one ORT's MLAS kernels take, in the same order. The
// integer products run through Conv's and MatMul's own kernels on operands
// shifted by their zero points into int32.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "ir/ops/infer_util.h"
#include "ir/quant_arith.h"
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

// Element i of an integer or float tensor; a one-element tensor serves every i.
int32_t int_at(const Tensor* t, int64_t i) {
  if (!t) return 0;
  return static_cast<int32_t>(t->element_as_double(t->numel() == 1 ? 0 : i));
}
float float_at(const Tensor& t, int64_t i) {
  return t.data<float>()[t.numel() == 1 ? 0 : i];
}

// Index along `axis` of each element of a tensor of `shape`, as a function of
// its flat index: (e / inner) % extent.
struct AxisIndex {
  int64_t inner = 1, extent = 1;
  int64_t operator()(int64_t e) const { return (e / inner) % extent; }
};
AxisIndex axis_index(const KernelContext& ctx, const Shape& shape) {
  if (ctx.input(1).numel() == 1) return {};
  const int axis = normalize_axis(ctx.attrs().get_int("axis", 1), static_cast<int>(shape.size()));
  return {dims_product(shape, static_cast<size_t>(axis) + 1, shape.size()), shape[axis]};
}

template <typename Out>
void quantize_into(const std::vector<float>& x, const Tensor& scale, const Tensor* zp, AxisIndex ax,
                   Out* y, quant::QRange range) {
  for (int64_t e = 0; e < static_cast<int64_t>(x.size()); ++e) {
    const int64_t c = ax(e);
    y[e] = static_cast<Out>(quant::quantize(x[e], float_at(scale, c), int_at(zp, c), range));
  }
}

void quantize_linear(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  Tensor& y = ctx.output(0);
  std::vector<float> xf(static_cast<size_t>(x.numel()));
  if (x.dtype() == DType::Float32) {
    std::copy(x.data<float>(), x.data<float>() + x.numel(), xf.begin());
  } else {
    // int32 input (opset 21), or float64: converted to float32 as ORT does.
    for (int64_t i = 0; i < x.numel(); ++i) xf[i] = static_cast<float>(x.element_as_double(i));
  }
  const AxisIndex ax = axis_index(ctx, x.shape());
  dispatch_types<int8_t, uint8_t, int16_t, uint16_t>(y.dtype(), "QuantizeLinear", [&](auto tag) {
    using T = decltype(tag);
    quantize_into(xf, scale, zp, ax, y.data<T>(), quant::range_of(y.dtype()));
  });
}

void dequantize_linear(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor* zp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  float* y = ctx.output(0).data<float>();
  const AxisIndex ax = axis_index(ctx, x.shape());
  dispatch_types<int8_t, uint8_t, int16_t, uint16_t, int32_t>(
      x.dtype(), "DequantizeLinear", [&](auto tag) {
        using T = decltype(tag);
        const T* px = x.data<T>();
        for (int64_t e = 0; e < x.numel(); ++e) {
          const int64_t c = ax(e);
          y[e] = quant::dequantize(static_cast<int32_t>(px[e]), float_at(scale, c), int_at(zp, c));
        }
      });
}

void dynamic_quantize_linear(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const float* px = x.data<float>();
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  for (int64_t i = 0; i < x.numel(); ++i) {
    lo = quant::min_ps(px[i], lo);
    hi = quant::max_ps(px[i], hi);
  }
  const quant::DynamicParams p = quant::dynamic_params(lo, hi);
  uint8_t* y = ctx.output(0).data<uint8_t>();
  for (int64_t i = 0; i < x.numel(); ++i)
    y[i] = static_cast<uint8_t>(quant::quantize(px[i], p.scale, p.zero_point, {0, 255}));
  ctx.output(1).data<float>()[0] = p.scale;
  ctx.output(2).data<uint8_t>()[0] = p.zero_point;
}

// x - zero_point in int32; the zero point per slice along `axis` (dimension 0
// of a conv weight, the last one of a matmul's B) when it has several values.
Tensor shifted(const Tensor& x, const Tensor* zp, int axis) {
  Tensor out(DType::Int32, x.shape());
  int32_t* po = out.data<int32_t>();
  AxisIndex ax;
  if (zp && zp->numel() > 1)
    ax = {dims_product(x.shape(), static_cast<size_t>(axis) + 1, x.shape().size()),
          x.shape()[axis]};
  for (int64_t e = 0; e < x.numel(); ++e)
    po[e] = static_cast<int32_t>(x.element_as_double(e)) - int_at(zp, ax(e));
  return out;
}

// Runs op's reference kernel (Conv or MatMul) on int32 operands into y.
void run_int32(const char* op, const Node& node, const Tensor& a, const Tensor& b, Tensor& y) {
  KernelContext inner(node, {&a, &b}, {&y});
  kernel_registry().find(op)->kernel(inner);
}

const Tensor* optional(const KernelContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.input(i) : nullptr;
}

void conv_integer(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  run_int32("Conv", ctx.node(), shifted(x, optional(ctx, 2), 0), shifted(w, optional(ctx, 3), 0),
            ctx.output(0));
}

void matmul_integer(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  run_int32("MatMul", ctx.node(), shifted(a, optional(ctx, 2), 0),
            shifted(b, optional(ctx, 3), b.rank() - 1), ctx.output(0));
}

// Requantizes an int32 accumulator whose channel of element e is ch(e):
// (acc + bias[c]) * scale[c] into y's type.
template <typename Channel>
void requantize_into(const Tensor& acc, const Tensor* bias, const std::vector<float>& scales,
                     int32_t zero_point, Channel ch, Tensor& y) {
  const int32_t* pa = acc.data<int32_t>();
  const int32_t* pb = bias ? bias->data<int32_t>() : nullptr;
  const quant::QRange range = quant::range_of(y.dtype());
  dispatch_types<int8_t, uint8_t>(y.dtype(), "requantize", [&](auto tag) {
    using T = decltype(tag);
    T* py = y.data<T>();
    for (int64_t e = 0; e < acc.numel(); ++e) {
      const int64_t c = ch(e);
      const int32_t v = pa[e] + (pb ? pb[c] : 0);
      py[e] = static_cast<T>(
          quant::requantize(v, scales[scales.size() == 1 ? 0 : c], zero_point, range));
    }
  });
}

std::vector<float> product_scales(const Tensor& x_scale, const Tensor& w_scale,
                                  const Tensor& y_scale) {
  std::vector<float> s(static_cast<size_t>(w_scale.numel()));
  for (int64_t i = 0; i < w_scale.numel(); ++i)
    s[i] =
        quant::product_scale(float_at(x_scale, 0), w_scale.data<float>()[i], float_at(y_scale, 0));
  return s;
}

void qlinear_conv(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(3);
  Tensor& y = ctx.output(0);
  Tensor acc(DType::Int32, y.shape());
  run_int32("Conv", ctx.node(), shifted(x, &ctx.input(2), 0), shifted(w, &ctx.input(5), 0), acc);
  const int64_t plane = dims_product(y.shape(), 2, y.shape().size());
  const int64_t filters = y.shape()[1];
  requantize_into(
      acc, optional(ctx, 8), product_scales(ctx.input(1), ctx.input(4), ctx.input(6)),
      int_at(&ctx.input(7), 0), [&](int64_t e) { return (e / plane) % filters; }, y);
}

void qlinear_matmul(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(3);
  Tensor& y = ctx.output(0);
  Tensor acc(DType::Int32, y.shape());
  run_int32("MatMul", ctx.node(), shifted(a, &ctx.input(2), 0),
            shifted(b, &ctx.input(5), b.rank() - 1), acc);
  const int64_t columns = y.shape().back();
  requantize_into(
      acc, nullptr, product_scales(ctx.input(1), ctx.input(4), ctx.input(6)),
      int_at(&ctx.input(7), 0), [&](int64_t e) { return e % columns; }, y);
}

// QGemm: alpha * (A - a_zp)(B - b_zp) + C with C an int32 bias added to the
// accumulator; requantized with alpha * a_scale * b_scale / y_scale, or
// scaled to float32 by alpha * a_scale * b_scale when no y_scale is given.
void qgemm(KernelContext& ctx) {
  const bool trans_a = ctx.attrs().get_int("transA", 0) != 0;
  const bool trans_b = ctx.attrs().get_int("transB", 0) != 0;
  const float alpha = ctx.attrs().get_float("alpha", 1.0f);
  const Tensor a = shifted(ctx.input(0), &ctx.input(2), 0);
  const Tensor& b_raw = ctx.input(3);
  const Tensor b = shifted(b_raw, &ctx.input(5), trans_b ? 0 : 1);
  Tensor& y = ctx.output(0);
  const int64_t m = y.shape()[0], n = y.shape()[1];
  const int64_t k = a.shape()[trans_a ? 0 : 1];
  const int32_t* pa = a.data<int32_t>();
  const int32_t* pb = b.data<int32_t>();
  Tensor acc(DType::Int32, y.shape());
  int32_t* pc = acc.data<int32_t>();
  std::vector<int64_t> c_strides;
  const Tensor* bias = optional(ctx, 6);
  if (bias) c_strides = broadcast_strides(bias->shape(), y.shape());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int32_t s = bias ? bias->data<int32_t>()[i * c_strides[0] + j * c_strides[1]] : 0;
      for (int64_t p = 0; p < k; ++p)
        s += pa[trans_a ? p * m + i : i * k + p] * pb[trans_b ? j * k + p : p * n + j];
      pc[i * n + j] = s;
    }
  const Tensor& b_scale = ctx.input(4);
  std::vector<float> scales(static_cast<size_t>(b_scale.numel()));
  for (int64_t c = 0; c < b_scale.numel(); ++c) {
    scales[c] = alpha * float_at(ctx.input(1), 0) * b_scale.data<float>()[c];
    if (ctx.has_input(7)) scales[c] /= float_at(ctx.input(7), 0);
  }
  if (ctx.has_input(7)) {
    requantize_into(
        acc, nullptr, scales, int_at(&ctx.input(8), 0), [&](int64_t e) { return e % n; }, y);
    return;
  }
  float* py = y.data<float>();
  for (int64_t e = 0; e < m * n; ++e)
    py[e] = static_cast<float>(pc[e]) * scales[scales.size() == 1 ? 0 : e % n];
}

// QLinearAdd as ORT's AVX2 kernel computes it: with r_a = A_scale / C_scale
// and r_b = B_scale / C_scale, C = round(fma(a, r_a, fma(b, r_b, fixed))) with
// fixed = C_zp - fma(r_a, A_zp, r_b * B_zp) (the kernel's C++ expression,
// contracted by the compiler: a separate product and sum differs from ONNX
// Runtime on a ResNet-50 whose residual Adds have both zero points nonzero),
// saturated; a scalar B is folded
// into fixed first (fixed + b * r_b). A scalar A swaps the operands.
void qlinear_add(KernelContext& ctx) {
  size_t ia = 0, ib = 3;
  if (ctx.input(0).numel() == 1 && ctx.input(3).numel() != 1) std::swap(ia, ib);
  const Tensor& a = ctx.input(ia);
  const Tensor& b = ctx.input(ib);
  const float sa = float_at(ctx.input(ia + 1), 0), sb = float_at(ctx.input(ib + 1), 0);
  const int32_t za = int_at(optional(ctx, ia + 2), 0), zb = int_at(optional(ctx, ib + 2), 0);
  const float sc = float_at(ctx.input(6), 0);
  const int32_t zc = int_at(optional(ctx, 7), 0);
  Tensor& y = ctx.output(0);
  const float ra = sa / sc, rb = sb / sc;
  float fixed =
      static_cast<float>(zc) - std::fma(ra, static_cast<float>(za), rb * static_cast<float>(zb));
  const bool scalar_b = b.numel() == 1;
  if (scalar_b) fixed = fixed + static_cast<float>(int_at(&b, 0)) * rb;
  const quant::QRange range = quant::range_of(y.dtype());
  std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(a.shape(), y.shape()),
                                                 broadcast_strides(b.shape(), y.shape())};
  dispatch_types<int8_t, uint8_t>(y.dtype(), "QLinearAdd", [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = y.data<T>();
    for_each_broadcast(y.shape(), strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
      const float va = static_cast<float>(pa[off[0]]);
      float acc = scalar_b ? fixed : std::fma(static_cast<float>(pb[off[1]]), rb, fixed);
      acc = std::fma(va, ra, acc);
      py[i] = static_cast<T>(std::clamp(quant::round_even(acc), range.min, range.max));
    });
  });
}

// QLinearMul as ORT's SSE2 kernel (the one x86 runs): the exact int32
// product (a - A_zp) * (b - B_zp), times (A_scale * B_scale) / C_scale, plus
// C_zp in float, rounded half to even, then saturated.
void qlinear_mul(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(3);
  const float ratio =
      float_at(ctx.input(1), 0) * float_at(ctx.input(4), 0) / float_at(ctx.input(6), 0);
  const int32_t za = int_at(optional(ctx, 2), 0), zb = int_at(optional(ctx, 5), 0);
  const float zc = static_cast<float>(int_at(optional(ctx, 7), 0));
  Tensor& y = ctx.output(0);
  const quant::QRange range = quant::range_of(y.dtype());
  std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(a.shape(), y.shape()),
                                                 broadcast_strides(b.shape(), y.shape())};
  dispatch_types<int8_t, uint8_t>(y.dtype(), "QLinearMul", [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = y.data<T>();
    for_each_broadcast(y.shape(), strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
      const int32_t p =
          (static_cast<int32_t>(pa[off[0]]) - za) * (static_cast<int32_t>(pb[off[1]]) - zb);
      const float v = static_cast<float>(p) * ratio + zc;
      py[i] = static_cast<T>(std::clamp(quant::round_even(v), range.min, range.max));
    });
  });
}

// QLinearGlobalAveragePool as MLAS: the int32 sum less x_zp per element,
// requantized with x_scale / (y_scale * image size).
void qlinear_global_average_pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const bool channels_last = ctx.attrs().get_int("channels_last", 0) != 0;
  const Shape& s = x.shape();
  const int64_t batch = s[0];
  const int64_t channels = channels_last ? s.back() : s[1];
  const int64_t image = x.numel() / (batch * channels);
  const float scale =
      float_at(ctx.input(1), 0) / (float_at(ctx.input(3), 0) * static_cast<float>(image));
  const int32_t zx = int_at(optional(ctx, 2), 0), zy = int_at(optional(ctx, 4), 0);
  const quant::QRange range = quant::range_of(y.dtype());
  dispatch_types<int8_t, uint8_t>(x.dtype(), "QLinearGlobalAveragePool", [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t c = 0; c < channels; ++c) {
        int32_t acc = -zx * static_cast<int32_t>(image);
        for (int64_t i = 0; i < image; ++i)
          acc +=
              px[channels_last ? (n * image + i) * channels + c : (n * channels + c) * image + i];
        py[n * channels + c] = static_cast<T>(quant::requantize(acc, scale, zy, range));
      }
  });
}

}  // namespace

void register_quantize_kernels(OpRegistry& r) {
  r.set_kernel("QuantizeLinear", quantize_linear);
  r.set_kernel("DequantizeLinear", dequantize_linear);
  r.set_kernel("DynamicQuantizeLinear", dynamic_quantize_linear);
  r.set_kernel("ConvInteger", conv_integer);
  r.set_kernel("MatMulInteger", matmul_integer);
  r.set_kernel("QLinearConv", qlinear_conv);
  r.set_kernel("QLinearMatMul", qlinear_matmul);
  r.set_kernel("com.microsoft.QGemm", qgemm);
  r.set_kernel("com.microsoft.QLinearAdd", qlinear_add);
  r.set_kernel("com.microsoft.QLinearMul", qlinear_mul);
  r.set_kernel("com.microsoft.QLinearGlobalAveragePool", run_in_nchw<qlinear_global_average_pool>);
}

}  // namespace lathe::reference

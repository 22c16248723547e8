// The depthwise int8 convolution on blocked operands (topi/int8_depthwise.h)
// and its place in the graph compiler: DepthwiseConvIntegerNCHWc's compute,
// scheduled by the float depthwise NCHWc template.
#include "topi/int8_depthwise.h"

#include "support/error.h"
#include "topi/group_schedule.h"
#include "topi/int8.h"
#include "topi/nn_schedule_x86.h"
#include "topi/op_compute.h"

namespace lathe::topi {
namespace {

using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kI32 = DataType::Int(32);
constexpr const char* kOp = "DepthwiseConvIntegerNCHWc";

// A zero point as an int32 expression: a literal where it is a compile-time
// constant (`value`), else a read of the tensor, at `channel` for a
// per-channel one; null for none.
Expr zero_point(const Tensor& z, const lathe::Tensor* value, const Expr& channel) {
  if (!z.defined()) return Expr();
  const bool per_channel = z.ndim() == 1 && z.shape()[0] > 1;
  if (value && !per_channel)
    return te::make_int(value->dtype() == DType::UInt8 ? value->data<uint8_t>()[0]
                                                       : value->data<int8_t>()[0]);
  std::vector<Expr> index;
  if (z.ndim() == 1) index.push_back(per_channel ? channel : te::make_int(0));
  return te::cast(kI32, z(index));
}

bool all_zero(const lathe::Tensor* t) {
  if (!t) return false;
  for (int64_t i = 0; i < t->numel(); ++i)
    if ((t->dtype() == DType::UInt8 ? t->data<uint8_t>()[i] : t->data<int8_t>()[i]) != 0)
      return false;
  return true;
}

// DepthwiseConvIntegerNCHWc(x, w, w_sum, x_zero_point, w_zero_point).
std::vector<te::Tensor> depthwise_conv_integer_nchwc_compute(const ComputeContext& ctx) {
  const Conv2dParams p = packed_conv2d_params(ctx.attrs());
  auto input_or_none = [&](size_t i) { return ctx.has_input(i) ? ctx.input(i) : Tensor(); };
  const QuantOperand x = {ctx.input(0), input_or_none(3)};
  const QuantOperand w = {ctx.input(1), input_or_none(4)};
  return {depthwise_conv2d_integer_packed(x, w, input_or_none(2), p, ctx.constant(3),
                                          ctx.constant(4), ctx.name())};
}

SearchSpace depthwise_conv_integer_nchwc_template(const Tensor& anchor,
                                                  const std::vector<Tensor>& outputs,
                                                  const VectorUnit& vector_unit) {
  return conv2d_nchwc_template(anchor, outputs, vector_unit);
}

}  // namespace

Tensor depthwise_conv2d_integer_packed(const QuantOperand& x, const QuantOperand& w,
                                       const Tensor& weight_sum, const Conv2dParams& p,
                                       const lathe::Tensor* x_zero, const lathe::Tensor* w_zero,
                                       const std::string& name) {
  LATHE_CHECK(x.value.ndim() == 5 && x.value.dtype() == DataType::UInt(8) && w.value.ndim() == 4 &&
                  w.value.dtype() == DataType::Int(8) && w.value.shape()[0] == x.value.shape()[1] &&
                  w.value.shape()[3] == x.value.shape()[4],
              kOp, ": needs uint8 data [N, C/b, H, W, b] and int8 weights [C/b, KH, KW, b]");
  const auto& xs = x.value.shape();
  const auto& ws = w.value.shape();
  const int64_t n = xs[0], cb = xs[1], h = xs[2], wd = xs[3], b = xs[4];
  const int64_t kh = ws[1], kw = ws[2];
  const int64_t oh = (h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (wd + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  LATHE_CHECK(oh > 0 && ow > 0, kOp, ": empty output");
  const bool x_zero_nonzero = x.zero_point.defined() && !all_zero(x_zero);
  const bool w_zero_nonzero = w.zero_point.defined() && !all_zero(w_zero);
  LATHE_CHECK(!x_zero_nonzero || weight_sum.defined(), kOp,
              ": a data zero point that is not zero needs the weights' sums");
  const Expr x_zero_expr = x_zero_nonzero ? zero_point(x.zero_point, x_zero, Expr()) : Expr();

  // The padding holds the zero point (its product is taken off with the
  // correction below, as for every other tap).
  Tensor padded = x.value;
  if (p.pad_top || p.pad_bottom || p.pad_left || p.pad_right) {
    const Expr fill = x_zero_nonzero ? te::cast(DataType::UInt(8), x_zero_expr)
                                     : te::cast(DataType::UInt(8), te::make_int(0));
    padded = te::compute(
        {n, cb, h + p.pad_top + p.pad_bottom, wd + p.pad_left + p.pad_right, b},
        [&](const std::vector<Var>& i) {
          Expr y = i[2] - te::make_int(p.pad_top), xx = i[3] - te::make_int(p.pad_left);
          Expr inside;
          auto both = [&](Expr c) { inside = inside.defined() ? (inside && c) : c; };
          if (p.pad_top) both(y >= 0);
          if (p.pad_bottom) both(y < te::make_int(h));
          if (p.pad_left) both(xx >= 0);
          if (p.pad_right) both(xx < te::make_int(wd));
          return te::select(inside, x.value(i[0], i[1], y, xx, i[4]), fill);
        },
        name + "_pad", {"n", "c_chunk", "h", "w", "c_block"}, "pad");
  }
  IterVar ry = te::reduce_axis(kh, "ry"), rx = te::reduce_axis(kw, "rx");
  Tensor product = te::compute(
      {n, cb, oh, ow, b},
      [&](const std::vector<Var>& i) {
        Expr a = padded(
            i[0], i[1], i[2] * te::make_int(p.stride_h) + ry.var() * te::make_int(p.dilation_h),
            i[3] * te::make_int(p.stride_w) + rx.var() * te::make_int(p.dilation_w), i[4]);
        Expr wv = te::cast(kI32, w.value(i[1], ry.var(), rx.var(), i[4]));
        if (w_zero_nonzero)
          wv = wv - zero_point(w.zero_point, w_zero, i[1] * te::make_int(b) + i[4]);
        return te::sum(te::cast(kI32, a) * wv, {ry, rx});
      },
      name + (x_zero_nonzero ? "_product" : ""), {"n", "oc_chunk", "oh", "ow", "oc_block"},
      "depthwise_conv2d_NCHWc");
  if (!x_zero_nonzero) return product;
  // − xz·(Σw − K·wz): one constant per channel when the sums are constants.
  return te::compute(
      product.shape(),
      [&](const std::vector<Var>& i) {
        Expr sum = weight_sum(i[1], i[4]);
        if (w_zero_nonzero)
          sum = sum - te::make_int(kh * kw) *
                          zero_point(w.zero_point, w_zero, i[1] * te::make_int(b) + i[4]);
        return product(i[0], i[1], i[2], i[3], i[4]) - x_zero_expr * sum;
      },
      name, {"n", "oc_chunk", "oh", "ow", "oc_block"}, "depthwise_conv_integer_nchwc");
}

void register_int8_grouped_computes(OpStrategyRegistry& registry);  // int8_grouped.cpp

void register_int8_depthwise_computes(OpStrategyRegistry& registry) {
  registry.define_compute(kOp, depthwise_conv_integer_nchwc_compute);
  registry.define_template(kOp, depthwise_conv_integer_nchwc_template);
  register_int8_grouped_computes(registry);
}

}  // namespace lathe::topi

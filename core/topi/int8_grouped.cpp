// The grouped int8 convolution as a block-diagonal packed conv
// (GroupedConvIntegerNCHWc, topi/int8_depthwise.h): its compute and the
// template of the groups it anchors, the int8 dot-product template
// (conv2d_int8_template) with the requantize epilogue inlined into the
// group's output, as int8_strategy.cpp schedules ConvIntegerNCHWc.
#include "support/error.h"
#include "topi/group_schedule.h"
#include "topi/int8.h"
#include "topi/int8_depthwise.h"
#include "topi/op_compute.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kI32 = DataType::Int(32);
constexpr int64_t kLanes = 16, kGroup = 4;

std::vector<te::Tensor> grouped_conv_integer_nchwc_compute(const ComputeContext& ctx) {
  const Conv2dParams p = packed_conv2d_params(ctx.attrs());
  const QuantOperand x = {ctx.input(0), ctx.has_input(3) ? ctx.input(3) : Tensor()};
  const Tensor w_sum = ctx.has_input(2) ? ctx.input(2) : Tensor();
  return {grouped_conv2d_integer_packed(x, ctx.input(1), w_sum, p, ctx.name()).output};
}

SearchSpace grouped_conv_integer_nchwc_template(const Tensor& anchor,
                                                const std::vector<Tensor>& outputs,
                                                const VectorUnit&) {
  Int8Kernel k = int8_kernel_of(anchor);
  const bool epilogue = !is_output(outputs, anchor);
  if (epilogue) k.output = k.product;  // the correction inlined into the epilogue
  SearchSpace space = conv2d_int8_template(k);
  auto kernel = space.apply;
  space.apply = [kernel, anchor, outputs, epilogue](Schedule& s, const Config& config) {
    kernel(s, config);
    schedule_int8_epilogue(s, anchor, outputs);
    if (epilogue) s[anchor].compute_inline();
  };
  return space;
}

}  // namespace

Int8Kernel grouped_conv2d_integer_packed(const QuantOperand& x, const Tensor& w,
                                         const Tensor& weight_sum, const Conv2dParams& p,
                                         const std::string& name) {
  const char* op = "GroupedConvIntegerNCHWc";
  LATHE_CHECK(x.value.ndim() == 5 && x.value.dtype() == DataType::UInt(8) &&
                  x.value.shape()[4] == kLanes && w.ndim() == 7 && w.dtype() == DataType::Int(8) &&
                  w.shape()[0] == x.value.shape()[1] && w.shape()[1] == 1,
              op, ": needs uint8 data [N, C/16, H, W, 16] and int8 weights [C/16, 1, KH, KW, 4, ",
              "16, 4]");
  const auto& xs = x.value.shape();
  const int64_t n = xs[0], cb = xs[1], h = xs[2], wd = xs[3];
  const int64_t kh = w.shape()[2], kw = w.shape()[3];
  const int64_t oh = (h + p.pad_top + p.pad_bottom - p.dilation_h * (kh - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (wd + p.pad_left + p.pad_right - p.dilation_w * (kw - 1) - 1) / p.stride_w + 1;
  LATHE_CHECK(oh > 0 && ow > 0, op, ": empty output");
  Expr x_zero;
  if (x.zero_point.defined()) {
    std::vector<Expr> index;
    if (x.zero_point.ndim() == 1) index.push_back(te::make_int(0));
    x_zero = te::cast(kI32, x.zero_point(index));
  }
  LATHE_CHECK(!x_zero.defined() || weight_sum.defined(), op,
              ": a data zero point needs the weights' sums");
  Int8Kernel k;
  k.lanes = kLanes;
  k.weights = w;
  k.weight_sum = weight_sum;
  if (p.pad_top || p.pad_bottom || p.pad_left || p.pad_right) {
    // The spatial padding holds the zero point: a padded tap adds zero.
    const Expr fill = te::cast(DataType::UInt(8), x_zero.defined() ? x_zero : te::make_int(0));
    k.data =
        te::compute({n, cb, h + p.pad_top + p.pad_bottom, wd + p.pad_left + p.pad_right, kLanes},
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
                    name + "_data", {"n", "c_chunk", "h", "w", "c_block"});
  } else {
    k.data = x.value;
  }
  // conv2d_nchwc_int8's product with one input block, the output's own:
  // the reduction axes keep their order (rco of extent 1) for the template.
  IterVar rco = te::reduce_axis(1, "rco"), ry = te::reduce_axis(kh, "ry"),
          rx = te::reduce_axis(kw, "rx"), rcq = te::reduce_axis(kLanes / kGroup, "rcq"),
          rcl = te::reduce_axis(kGroup, "rcl");
  k.product = te::compute(
      {n, cb, oh, ow, kLanes},
      [&](const std::vector<Var>& i) {
        Expr a = k.data(i[0], i[1] + rco.var(),
                        i[2] * te::make_int(p.stride_h) + ry.var() * te::make_int(p.dilation_h),
                        i[3] * te::make_int(p.stride_w) + rx.var() * te::make_int(p.dilation_w),
                        rcq.var() * te::make_int(kGroup) + rcl.var());
        Expr b = k.weights(i[1], rco.var(), ry.var(), rx.var(), rcq.var(), i[4], rcl.var());
        return te::sum(te::cast(kI32, a) * te::cast(kI32, b), {rco, ry, rx, rcq, rcl});
      },
      name + "_product", {"n", "oc_chunk", "oh", "ow", "oc_block"}, "conv2d_NCHWc_int8");
  k.output = te::compute(
      k.product.shape(),
      [&](const std::vector<Var>& i) {
        Expr v = k.product(i[0], i[1], i[2], i[3], i[4]);
        return x_zero.defined() ? v - x_zero * k.weight_sum(i[1], i[4]) : v;
      },
      name, {"n", "oc_chunk", "oh", "ow", "oc_block"}, "conv_integer");
  return k;
}

void register_int8_grouped_computes(OpStrategyRegistry& registry) {
  registry.define_compute("GroupedConvIntegerNCHWc", grouped_conv_integer_nchwc_compute);
  registry.define_template("GroupedConvIntegerNCHWc", grouped_conv_integer_nchwc_template);
}

}  // namespace lathe::topi

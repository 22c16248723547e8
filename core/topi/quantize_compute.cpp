// Compute definitions of the quantized ops that stay in a graph after
// canonicalize_qnn (core/passes): QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear and the com.microsoft elementwise ops QLinearAdd,
// QLinearMul and QLinearGlobalAveragePool; and the generic ConvInteger and
// MatMulInteger for the shapes int8_strategy.cpp's packed kernels do not take.
// QLinearConv, QLinearMatMul and QGemm have none: the pass rewrites them
// into ConvInteger/MatMulInteger and a requantize epilogue.
//
// The float steps are those of ir/quant_arith.h, in the same order (a
// division by the scale, MAXPS/MINPS clamps, round half to even), so that a
// compiled kernel gives the reference's bits. ConvInteger and MatMulInteger
// generic ones are Conv's and MatMul's computes on operands shifted into
// int32 by their zero points: correct for any target and shape.
#include <cmath>
#include <string>

#include "ir/quant_arith.h"
#include "topi/compute_util.h"
#include "topi/int8.h"

namespace lathe::topi {
namespace {

using detail::as_exprs;
using detail::broadcast_read;
using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

// A scale or zero point (input i) for the element at `index` of a tensor
// whose quantization axis is `axis` (-1: per tensor): a compile-time constant
// when it is one and has one value, else read from its tensor.
Expr param(const ComputeContext& ctx, size_t i, const std::vector<Expr>& index, int axis,
           DataType as) {
  const lathe::Tensor* c = ctx.constant(i);
  const TensorType& t = ctx.input_type(i);
  if (c && c->numel() == 1) return te::make_const(as, c->element_as_double(0));
  const te::Tensor& p = ctx.input(i);
  Expr v = t.numel() == 1 || axis < 0
               ? detail::read_first(p)
               : p(std::vector<Expr>(static_cast<size_t>(p.ndim()), index[axis]));
  return v.type() == as ? v : te::cast(as, v);
}

Expr zero_point(const ComputeContext& ctx, size_t i, const std::vector<Expr>& index, int axis) {
  if (!ctx.has_input(i) && !ctx.constant(i)) return te::make_const(kI32, 0);
  return param(ctx, i, index, axis, kI32);
}

// The quantization axis of Quantize/DequantizeLinear: -1 when per tensor.
int quant_axis(const ComputeContext& ctx) {
  if (ctx.input_type(1).numel() == 1) return -1;
  return normalize_axis(ctx.attrs().get_int("axis", 1), ctx.input_type(0).rank());
}

// MAXPS/MINPS clamp of a float to [qmin - zp, qmax - zp], rounded half to
// even, shifted by zp: quant::saturate_round.
Expr saturate_round(const Expr& scaled, const Expr& zp, quant::QRange r) {
  Expr lo = te::cast(kF32, te::make_const(kI32, r.min) - zp);
  Expr hi = te::cast(kF32, te::make_const(kI32, r.max) - zp);
  Expr v = te::select(scaled > lo, scaled, lo);
  v = te::select(v < hi, v, hi);
  return te::cast(kI32, te::round(v)) + zp;
}

// Within ±2^30 the conversion of a rounded float to int32 cannot overflow.
constexpr double kIntegerClampBound = 1073741824.0;

// saturate_round of a value known to lie within ±bound. Up to
// kIntegerClampBound the conversion to int32 cannot overflow (which gives INT_MIN, saturating to
// the low end), so the clamp may follow it, in integers: the same result
// (rounding is monotone and the bounds are integers), and the form x86
// narrows with its saturating packs (codegen/saturating_narrow_x86.cpp),
// where the float clamp took two instructions more a vector.
Expr saturate_round(const Expr& scaled, const Expr& zp, quant::QRange r, double bound) {
  if (!(bound <= kIntegerClampBound)) return saturate_round(scaled, zp, r);
  Expr q = te::cast(kI32, te::round(scaled)) + zp;
  return te::max(te::min(q, te::make_const(kI32, r.max)), te::make_const(kI32, r.min));
}

// The bound on |x / y_scale| of a QuantizeLinear: kIntegerClampBound where
// canonicalize_qnn marked its input bounded (a requantization, scale 1, of
// an int32 accumulator times scales of at most 1/2), infinite otherwise.
double quantized_bound(const ComputeContext& ctx) {
  const lathe::Tensor* scale = ctx.constant(1);
  if (ctx.attrs().get_int("bounded_input", 0) == 0 || !scale || scale->numel() != 1 ||
      scale->element_as_double(0) != 1.0)
    return HUGE_VAL;
  return kIntegerClampBound;
}

std::vector<te::Tensor> quantize_linear(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const DType out = ctx.output_type(0).dtype;
  const int axis = quant_axis(ctx);
  const double bound = quantized_bound(ctx);
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = as_exprs(i);
        Expr v = x(index);
        if (v.type() != kF32) v = te::cast(kF32, v);
        Expr q = saturate_round(v / param(ctx, 1, index, axis, kF32),
                                zero_point(ctx, 2, index, axis), quant::range_of(out), bound);
        return te::cast(te_dtype(out), q);
      },
      ctx.name(), {}, "elemwise")};
}

std::vector<te::Tensor> dequantize_linear(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const int axis = quant_axis(ctx);
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = as_exprs(i);
        Expr shifted = te::cast(kI32, x(index)) - zero_point(ctx, 2, index, axis);
        return te::cast(kF32, shifted) * param(ctx, 1, index, axis, kF32);
      },
      ctx.name(), {}, "elemwise")};
}

// The range of x (two reductions over every element), the parameters of
// quant::dynamic_params as two scalar stages, and the quantized values.
std::vector<te::Tensor> dynamic_quantize_linear(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const Shape& shape = ctx.input_type(0).shape;
  auto reduce_all = [&](bool is_min) {
    std::vector<IterVar> axes;
    for (size_t d = 0; d < shape.size(); ++d)
      axes.push_back(te::reduce_axis(shape[d], "r" + std::to_string(d)));
    std::vector<Expr> index;
    for (const IterVar& a : axes) index.push_back(a.var());
    return te::compute(
        {},
        [&](const std::vector<Var>&) {
          return is_min ? te::min(x(index), axes) : te::max(x(index), axes);
        },
        ctx.name(is_min ? "min" : "max"), {}, "comm_reduce");
  };
  te::Tensor lo = reduce_all(true), hi = reduce_all(false);
  const Expr zero = te::make_const(kF32, 0);
  auto range_min = [&] { return te::min(lo(std::vector<Expr>{}), zero); };
  auto range_max = [&] { return te::max(hi(std::vector<Expr>{}), zero); };
  te::Tensor scale = te::compute(
      {},
      [&](const std::vector<Var>&) {
        Expr mn = range_min(), mx = range_max();
        return te::select(mx == mn, te::make_const(kF32, 1), (mx - mn) / te::make_const(kF32, 255));
      },
      ctx.name("scale"), {}, "elemwise");
  te::Tensor zp = te::compute(
      {},
      [&](const std::vector<Var>&) {
        Expr initial = zero - range_min() / scale(std::vector<Expr>{});
        Expr clamped =
            te::max(zero, te::min(te::make_const(kF32, 255), initial));  // finite: roundeven
        return te::cast(DataType::UInt(8), te::round(clamped));
      },
      ctx.name("zero_point"), {}, "elemwise");
  te::Tensor y = te::compute(
      shape,
      [&](const std::vector<Var>& i) {
        Expr q = saturate_round(x(as_exprs(i)) / scale(std::vector<Expr>{}),
                                te::cast(kI32, zp(std::vector<Expr>{})), {0, 255});
        return te::cast(DataType::UInt(8), q);
      },
      ctx.name(), {}, "elemwise");
  return {y, scale, zp};
}

// x - zero_point in int32, the zero point per slice along `axis` when it has
// several values.
te::Tensor shifted(const ComputeContext& ctx, size_t data, size_t zp, int axis,
                   const std::string& suffix) {
  const te::Tensor& x = ctx.input(data);
  return te::compute(
      ctx.input_type(data).shape,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = as_exprs(i);
        return te::cast(kI32, x(index)) - zero_point(ctx, zp, index, axis);
      },
      ctx.name(suffix), {}, "elemwise");
}

// Runs `op`'s compute (Conv or MatMul) on the int32 operands a and b.
std::vector<te::Tensor> integer_product(const ComputeContext& ctx, const char* op,
                                        const te::Tensor& a, const te::Tensor& b) {
  TensorType ta{DType::Int32, ctx.input_type(0).shape};
  TensorType tb{DType::Int32, ctx.input_type(1).shape};
  ComputeContext inner(ctx.node(), {a, b}, {nullptr, nullptr}, {ta, tb}, {ctx.output_type(0)},
                       ctx.name());
  return OpStrategyRegistry::global().find(op)->compute(inner);
}

float scalar_constant(const ComputeContext& ctx, size_t i, const char* what) {
  return static_cast<float>(ctx.require_constant(i, what).element_as_double(0));
}
int32_t zero_point_constant(const ComputeContext& ctx, size_t i) {
  const lathe::Tensor* c = ctx.constant(i);
  if (!c && i < ctx.num_inputs() && ctx.has_input(i))
    throw UnsupportedError(describe_node(ctx.node()) + ": zero points must be constants");
  return c ? static_cast<int32_t>(c->element_as_double(0)) : 0;
}

// QLinearAdd as the reference (ORT's AVX2 kernel): fma(a, r_a, fma(b, r_b,
// fixed)), or fma(a, r_a, fixed + b * r_b) for a one-element B; fixed is
// C_zp - fma(r_a, A_zp, r_b * B_zp).
std::vector<te::Tensor> qlinear_add(const ComputeContext& ctx) {
  size_t ia = 0, ib = 3;
  if (ctx.input_type(0).numel() == 1 && ctx.input_type(3).numel() != 1) std::swap(ia, ib);
  const float sa = scalar_constant(ctx, ia + 1, "A_scale");
  const float sb = scalar_constant(ctx, ib + 1, "B_scale");
  const float sc = scalar_constant(ctx, 6, "C_scale");
  const int32_t za = zero_point_constant(ctx, ia + 2), zb = zero_point_constant(ctx, ib + 2);
  const int32_t zc = zero_point_constant(ctx, 7);
  const float ra = sa / sc, rb = sb / sc;
  const float fixed =
      static_cast<float>(zc) - std::fma(ra, static_cast<float>(za), rb * static_cast<float>(zb));
  const bool scalar_b = ctx.input_type(ib).numel() == 1;
  const te::Tensor& a = ctx.input(ia);
  const te::Tensor& b = ctx.input(ib);
  const DType out = ctx.output_type(0).dtype;
  const quant::QRange r = quant::range_of(out);
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = as_exprs(i);
        Expr vb = te::cast(kF32, broadcast_read(b, index));
        Expr acc = scalar_b ? te::make_const(kF32, fixed) + vb * te::make_const(kF32, rb)
                            : te::call(te::Intrinsic::Fma,
                                       {vb, te::make_const(kF32, rb), te::make_const(kF32, fixed)});
        Expr va = te::cast(kF32, broadcast_read(a, index));
        acc = te::call(te::Intrinsic::Fma, {va, te::make_const(kF32, ra), acc});
        Expr q = te::cast(kI32, te::round(acc));
        q = te::min(te::max(q, te::make_const(kI32, r.min)), te::make_const(kI32, r.max));
        return te::cast(te_dtype(out), q);
      },
      ctx.name(), {}, "elemwise")};
}

// QLinearMul as the reference: round(float(int32 product) * ratio + C_zp),
// saturated. (The back end may contract the multiply-add into an FMA.)
std::vector<te::Tensor> qlinear_mul(const ComputeContext& ctx) {
  const float ratio = scalar_constant(ctx, 1, "A_scale") * scalar_constant(ctx, 4, "B_scale") /
                      scalar_constant(ctx, 6, "C_scale");
  const int32_t za = zero_point_constant(ctx, 2), zb = zero_point_constant(ctx, 5);
  const int32_t zc = zero_point_constant(ctx, 7);
  const te::Tensor& a = ctx.input(0);
  const te::Tensor& b = ctx.input(3);
  const DType out = ctx.output_type(0).dtype;
  const quant::QRange r = quant::range_of(out);
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = as_exprs(i);
        Expr va = te::cast(kI32, broadcast_read(a, index)) - te::make_const(kI32, za);
        Expr vb = te::cast(kI32, broadcast_read(b, index)) - te::make_const(kI32, zb);
        Expr v = te::cast(kF32, va * vb) * te::make_const(kF32, ratio) +
                 te::make_const(kF32, static_cast<double>(zc));
        Expr q = te::cast(kI32, te::round(v));
        q = te::min(te::max(q, te::make_const(kI32, r.min)), te::make_const(kI32, r.max));
        return te::cast(te_dtype(out), q);
      },
      ctx.name(), {}, "elemwise")};
}

// The int32 sum over the spatial positions less x_zp per position,
// requantized with x_scale / (y_scale * positions).
std::vector<te::Tensor> qlinear_global_average_pool(const ComputeContext& ctx) {
  if (ctx.attrs().get_int("channels_last", 0) != 0)
    throw UnsupportedError(describe_node(ctx.node()) + ": channels_last is not supported");
  const te::Tensor& x = ctx.input(0);
  const Shape& xs = ctx.input_type(0).shape;
  // Blocked data [N, C/b, H, W, b] (the layout pass's `layout`): the
  // spatial axes end before the channel block.
  const bool blocked = ctx.attrs().get_string("layout", "NCHW") != "NCHW";
  const size_t spatial_end = xs.size() - (blocked ? 1 : 0);
  int64_t image = 1;
  for (size_t d = 2; d < spatial_end; ++d) image *= xs[d];
  const float scale = scalar_constant(ctx, 1, "x_scale") /
                      (scalar_constant(ctx, 3, "y_scale") * static_cast<float>(image));
  const int32_t zx = zero_point_constant(ctx, 2), zy = zero_point_constant(ctx, 4);
  std::vector<IterVar> axes;
  for (size_t d = 2; d < spatial_end; ++d)
    axes.push_back(te::reduce_axis(xs[d], "r" + std::to_string(d)));
  te::Tensor sum = te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = {i[0], i[1]};
        for (const IterVar& a : axes) index.push_back(a.var());
        if (blocked) index.push_back(i.back());
        return te::sum(te::cast(kI32, x(index)), axes);
      },
      ctx.name("sum"), {}, "comm_reduce");
  const DType out = ctx.output_type(0).dtype;
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        Expr acc = sum(as_exprs(i)) - te::make_const(kI32, static_cast<int64_t>(zx) * image);
        Expr q = saturate_round(te::cast(kF32, acc) * te::make_const(kF32, scale),
                                te::make_const(kI32, zy), quant::range_of(out),
                                255.0 * static_cast<double>(image) * std::fabs(scale));
        return te::cast(te_dtype(out), q);
      },
      ctx.name(), {}, "elemwise")};
}

}  // namespace

std::vector<te::Tensor> generic_conv_integer(const ComputeContext& ctx) {
  return integer_product(ctx, "Conv", shifted(ctx, 0, 2, 0, "x"), shifted(ctx, 1, 3, 0, "w"));
}

std::vector<te::Tensor> generic_matmul_integer(const ComputeContext& ctx) {
  const int last = ctx.input_type(1).rank() - 1;
  return integer_product(ctx, "MatMul", shifted(ctx, 0, 2, 0, "a"), shifted(ctx, 1, 3, last, "b"));
}

void register_quantize_computes(OpStrategyRegistry& r) {
  r.define_compute("QuantizeLinear", quantize_linear);
  r.define_compute("DequantizeLinear", dequantize_linear);
  r.define_compute("DynamicQuantizeLinear", dynamic_quantize_linear);
  r.define_compute("com.microsoft.QLinearAdd", qlinear_add);
  r.define_compute("com.microsoft.QLinearMul", qlinear_mul);
  r.define_compute("com.microsoft.QLinearGlobalAveragePool", qlinear_global_average_pool);
}

}  // namespace lathe::topi

// Compute definitions of the elementwise and broadcasting ops: one stage per
// node, each input read through NumPy broadcasting, with the arithmetic of
// the reference kernels (core/reference/elementwise.cpp) in the tensor's type.
#include <cmath>
#include <functional>
#include <limits>

#include "topi/compute_util.h"

namespace lathe::topi {
namespace {

using detail::broadcast_read;
using te::DataType;
using te::Expr;
using te::Var;

// One stage computing f over the broadcast values of every present input.
te::Tensor elementwise(const ComputeContext& ctx,
                       const std::function<Expr(const std::vector<Expr>&)>& f,
                       const std::string& tag = "elemwise") {
  std::vector<te::Tensor> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i)) inputs.push_back(ctx.input(i));
  return te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = detail::as_exprs(i);
        std::vector<Expr> values;
        for (const te::Tensor& t : inputs) values.push_back(broadcast_read(t, index));
        return f(values);
      },
      ctx.name(), {}, tag);
}

Expr constant(const Expr& like, double value) {
  return te::make_const(like.type(), value);
}

// Unary float op whose attributes are read once per node.
template <Expr (*F)(const ComputeContext&, const Expr&)>
std::vector<te::Tensor> unary(const ComputeContext& ctx) {
  return {elementwise(ctx, [&](const std::vector<Expr>& v) { return F(ctx, v[0]); })};
}

template <Expr (*F)(Expr)>
Expr apply(const ComputeContext&, const Expr& x) {
  return F(x);
}

template <te::Intrinsic Op>
Expr intrinsic(const ComputeContext&, const Expr& x) {
  return te::call(Op, {x});
}

Expr reciprocal(const ComputeContext&, const Expr& x) {
  return constant(x, 1) / x;
}

Expr softplus(const ComputeContext&, const Expr& x) {
  return te::log(te::exp(x) + constant(x, 1));
}

Expr softsign(const ComputeContext&, const Expr& x) {
  return x / (constant(x, 1) + te::abs(x));
}

// NaN stays NaN, as in ONNX's reference (np.maximum) and PyTorch: with the
// test written as x < 0, a NaN takes the else branch. That is exactly x86's
// maxps(0, x), whose second operand wins on NaN and on equal zeros (so -0
// stays -0, which compares equal to 0): one instruction, as before.
Expr relu(const ComputeContext&, const Expr& x) {
  return te::select(x < te::make_zero(x.type()), te::make_zero(x.type()), x);
}

Expr neg(const ComputeContext&, const Expr& x) {
  return te::make_zero(x.type()) - x;
}

Expr sign(const ComputeContext&, const Expr& x) {
  Expr zero = te::make_zero(x.type());
  return te::select(x > zero, constant(x, 1), te::select(x < zero, constant(x, -1), zero));
}

Expr is_nan(const ComputeContext&, const Expr& x) {
  return x != x;
}

Expr is_inf(const ComputeContext& ctx, const Expr& x) {
  const bool pos = ctx.attrs().get_int("detect_positive", 1) != 0;
  const bool neg = ctx.attrs().get_int("detect_negative", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  Expr result = te::make_zero(DataType::Bool());
  if (pos) result = result || x == constant(x, inf);
  if (neg) result = result || x == constant(x, -inf);
  return result;
}

Expr leaky_relu(const ComputeContext& ctx, const Expr& x) {
  const double alpha = ctx.attrs().get_float("alpha", 0.01f);
  return te::select(x >= constant(x, 0), x, x * constant(x, alpha));
}

Expr thresholded_relu(const ComputeContext& ctx, const Expr& x) {
  const double alpha = ctx.attrs().get_float("alpha", 1.0f);
  return te::select(x > constant(x, alpha), x, constant(x, 0));
}

Expr elu(const ComputeContext& ctx, const Expr& x) {
  const double alpha = ctx.attrs().get_float("alpha", 1.0f);
  return te::select(x >= constant(x, 0), x, constant(x, alpha) * (te::exp(x) - constant(x, 1)));
}

Expr celu(const ComputeContext& ctx, const Expr& x) {
  Expr a = constant(x, ctx.attrs().get_float("alpha", 1.0f));
  Expr zero = constant(x, 0);
  return te::max(zero, x) + te::min(zero, a * (te::exp(x / a) - constant(x, 1)));
}

Expr selu(const ComputeContext& ctx, const Expr& x) {
  Expr alpha = constant(x, ctx.attrs().get_float("alpha", 1.67326319217681884765625f));
  Expr gamma = constant(x, ctx.attrs().get_float("gamma", 1.05070102214813232421875f));
  return te::select(x > constant(x, 0), gamma * x, gamma * (alpha * te::exp(x) - alpha));
}

Expr hard_sigmoid(const ComputeContext& ctx, const Expr& x) {
  Expr alpha = constant(x, ctx.attrs().get_float("alpha", 0.2f));
  Expr beta = constant(x, ctx.attrs().get_float("beta", 0.5f));
  return te::max(constant(x, 0), te::min(constant(x, 1), alpha * x + beta));
}

Expr hard_swish(const ComputeContext&, const Expr& x) {
  return x *
         te::max(constant(x, 0), te::min(constant(x, 1), x / constant(x, 6) + constant(x, 0.5)));
}

// Comparisons run in double so that -lambd means the same for unsigned
// types; the shifted value is computed in the tensor's type.
Expr shrink(const ComputeContext& ctx, const Expr& x) {
  const double bias = ctx.attrs().get_float("bias", 0.0f);
  const double lambd = ctx.attrs().get_float("lambd", 0.5f);
  DataType f64 = DataType::Float(64);
  Expr v = te::cast(f64, x);
  Expr b = constant(x, bias);
  return te::select(v < te::make_const(f64, -lambd), x + b,
                    te::select(v > te::make_const(f64, lambd), x - b, constant(x, 0)));
}

// ---- Casts and clipping ----------------------------------------------------

Expr cast_to(const Expr& x, DataType to) {
  DataType from = x.type();
  // bfloat16 has no arithmetic (not even x != x): it goes through float32.
  if (from.is_bfloat() && !to.is_float() && !to.is_bfloat())
    return cast_to(te::cast(DataType::Float(32, from.lanes), x), to);
  // A float out of the integer range is undefined in C++; NaN becomes 0 as in
  // the reference (LLVM's fptosi gives poison, which the select discards).
  if (from.is_float() && to.is_integer() && !to.is_bool())
    return te::select(x != x, te::make_zero(to), te::cast(to, x));
  return te::cast(to, x);
}

std::vector<te::Tensor> cast(const ComputeContext& ctx) {
  DataType to = detail::out_dtype(ctx);
  te::Tensor x = ctx.input(0);
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) { return cast_to(x(detail::as_exprs(i)), to); }, ctx.name(),
      {}, "elemwise")};
}

std::vector<te::Tensor> clip(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  Expr lo = detail::scalar_operand(ctx, 1, t);
  Expr hi = detail::scalar_operand(ctx, 2, t);
  te::Tensor x = ctx.input(0);
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        Expr v = x(detail::as_exprs(i));
        // std::max(v, lo) keeps v unless v < lo; std::min(., hi) likewise.
        if (lo.defined()) v = te::select(v < lo, lo, v);
        if (hi.defined()) v = te::select(hi < v, hi, v);
        return v;
      },
      ctx.name(), {}, "elemwise")};
}

// ---- Binary and variadic ---------------------------------------------------

template <Expr (*F)(const Expr&, const Expr&)>
std::vector<te::Tensor> binary(const ComputeContext& ctx) {
  return {elementwise(
      ctx, [](const std::vector<Expr>& v) { return F(v[0], v[1]); }, "broadcast")};
}

template <te::Intrinsic Op>
Expr binary_intrinsic(const Expr& a, const Expr& b) {
  return te::call(Op, {a, b});
}

Expr add(const Expr& a, const Expr& b) {
  return a + b;
}
Expr sub(const Expr& a, const Expr& b) {
  return a - b;
}
Expr mul(const Expr& a, const Expr& b) {
  return a * b;
}
Expr div(const Expr& a, const Expr& b) {
  return detail::trunc_div(a, b);
}
Expr equal(const Expr& a, const Expr& b) {
  return a == b;
}
Expr less(const Expr& a, const Expr& b) {
  return a < b;
}
Expr greater(const Expr& a, const Expr& b) {
  return a > b;
}
Expr less_equal(const Expr& a, const Expr& b) {
  return a <= b;
}
Expr greater_equal(const Expr& a, const Expr& b) {
  return a >= b;
}
Expr logical_and(const Expr& a, const Expr& b) {
  return a && b;
}
Expr logical_or(const Expr& a, const Expr& b) {
  return a || b;
}
Expr logical_xor(const Expr& a, const Expr& b) {
  return a != b;
}

// NaN propagates through Max and Min, as in NumPy's maximum/minimum.
Expr nan_max(const Expr& a, const Expr& b) {
  if (!a.type().is_float()) return te::max(a, b);
  return te::select(a != a, a, te::select(b != b, b, te::max(a, b)));
}
Expr nan_min(const Expr& a, const Expr& b) {
  if (!a.type().is_float()) return te::min(a, b);
  return te::select(a != a, a, te::select(b != b, b, te::min(a, b)));
}

std::vector<te::Tensor> mod(const ComputeContext& ctx) {
  const bool fmod = ctx.attrs().get_int("fmod", 0) != 0;
  return {elementwise(
      ctx,
      [fmod](const std::vector<Expr>& v) {
        const Expr &a = v[0], &b = v[1];
        if (a.type().is_float()) {
          // C's fmod, then without fmod the divisor's sign, as Python's %.
          Expr r = te::fmod(a, b);
          if (fmod) return r;
          Expr zero = constant(a, 0);
          return te::select(r != zero && ((r < zero) != (b < zero)), r + b, r);
        }
        return fmod ? detail::trunc_mod(a, b) : a % b;
      },
      "broadcast")};
}

std::vector<te::Tensor> pow(const ComputeContext& ctx) {
  return {elementwise(
      ctx,
      [](const std::vector<Expr>& v) {
        DataType t = v[0].type();
        // float32 raises in float32; every other base type in double. An
        // integer base's power by a whole exponent is rounded, not
        // truncated: a pow without libm (the GPU's exp(y log x)) may give
        // 242.99999999999997 for 3^5. A fractional exponent truncates, as
        // ONNX's reference does (int32 2 ** 1.5 is 2).
        if (t == DataType::Float(32)) return te::pow(v[0], te::cast(t, v[1]));
        DataType f64 = DataType::Float(64);
        const Expr e = te::cast(f64, v[1]);
        Expr p = te::pow(te::cast(f64, v[0]), e);
        if (t.is_float()) return te::cast(t, p);
        return cast_to(te::select(te::round(e) == e, te::round(p), p), t);
      },
      "broadcast")};
}

std::vector<te::Tensor> bit_shift(const ComputeContext& ctx) {
  const bool left = ctx.attrs().get_string("direction", "") == "LEFT";
  return {elementwise(
      ctx,
      [left](const std::vector<Expr>& v) {
        DataType t = v[0].type();
        Expr shifted = left ? te::shift_left(v[0], v[1]) : te::shift_right(v[0], v[1]);
        // Every bit is shifted out at or past the width (LLVM: poison).
        return te::select(v[1] >= te::make_int(t.bits, t), te::make_zero(t), shifted);
      },
      "broadcast")};
}

std::vector<te::Tensor> where(const ComputeContext& ctx) {
  return {elementwise(
      ctx, [](const std::vector<Expr>& v) { return te::select(v[0], v[1], v[2]); }, "broadcast")};
}

std::vector<te::Tensor> logical_not_op(const ComputeContext& ctx) {
  return {elementwise(ctx, [](const std::vector<Expr>& v) { return !v[0]; })};
}

template <Expr (*F)(const Expr&, const Expr&)>
std::vector<te::Tensor> variadic(const ComputeContext& ctx) {
  return {elementwise(
      ctx,
      [](const std::vector<Expr>& v) {
        Expr acc = v[0];
        for (size_t k = 1; k < v.size(); ++k) acc = F(acc, v[k]);
        return acc;
      },
      "broadcast")};
}

std::vector<te::Tensor> mean(const ComputeContext& ctx) {
  return {elementwise(
      ctx,
      [](const std::vector<Expr>& v) {
        Expr acc = v[0];
        for (size_t k = 1; k < v.size(); ++k) acc = acc + v[k];
        return detail::trunc_div(acc, constant(acc, static_cast<double>(v.size())));
      },
      "broadcast")};
}

}  // namespace

void register_elementwise_computes(OpStrategyRegistry& r) {
  using I = te::Intrinsic;
  r.define_compute("Sqrt", unary<intrinsic<I::Sqrt>>);
  r.define_compute("Exp", unary<intrinsic<I::Exp>>);
  r.define_compute("Log", unary<intrinsic<I::Log>>);
  r.define_compute("Erf", unary<intrinsic<I::Erf>>);
  r.define_compute("Floor", unary<intrinsic<I::Floor>>);
  r.define_compute("Ceil", unary<intrinsic<I::Ceil>>);
  r.define_compute("Round", unary<intrinsic<I::Round>>);
  r.define_compute("Tanh", unary<intrinsic<I::Tanh>>);
  r.define_compute("Sigmoid", unary<intrinsic<I::Sigmoid>>);
  r.define_compute("Sin", unary<intrinsic<I::Sin>>);
  r.define_compute("Cos", unary<intrinsic<I::Cos>>);
  r.define_compute("Tan", unary<intrinsic<I::Tan>>);
  r.define_compute("Asin", unary<intrinsic<I::Asin>>);
  r.define_compute("Acos", unary<intrinsic<I::Acos>>);
  r.define_compute("Atan", unary<intrinsic<I::Atan>>);
  r.define_compute("Sinh", unary<intrinsic<I::Sinh>>);
  r.define_compute("Cosh", unary<intrinsic<I::Cosh>>);
  r.define_compute("Asinh", unary<intrinsic<I::Asinh>>);
  r.define_compute("Acosh", unary<intrinsic<I::Acosh>>);
  r.define_compute("Atanh", unary<intrinsic<I::Atanh>>);
  r.define_compute("Abs", unary<intrinsic<I::Abs>>);
  r.define_compute("Reciprocal", unary<reciprocal>);
  r.define_compute("Softplus", unary<softplus>);
  r.define_compute("Softsign", unary<softsign>);
  r.define_compute("Relu", unary<relu>);
  r.define_compute("Neg", unary<neg>);
  r.define_compute("Sign", unary<sign>);
  r.define_compute("IsNaN", unary<is_nan>);
  r.define_compute("IsInf", unary<is_inf>);
  r.define_compute("LeakyRelu", unary<leaky_relu>);
  r.define_compute("ThresholdedRelu", unary<thresholded_relu>);
  r.define_compute("Elu", unary<elu>);
  r.define_compute("Celu", unary<celu>);
  r.define_compute("Selu", unary<selu>);
  r.define_compute("HardSigmoid", unary<hard_sigmoid>);
  r.define_compute("HardSwish", unary<hard_swish>);
  r.define_compute("Shrink", unary<shrink>);
  r.define_compute("Cast", cast);
  // CastLike's output type, inferred from target_type, is all the cast needs.
  r.define_compute("CastLike", cast);
  r.define_compute("Clip", clip);
  r.define_compute("Add", binary<add>);
  r.define_compute("Sub", binary<sub>);
  r.define_compute("Mul", binary<mul>);
  r.define_compute("Div", binary<div>);
  r.define_compute("Mod", mod);
  r.define_compute("Pow", pow);
  r.define_compute("Equal", binary<equal>);
  r.define_compute("Less", binary<less>);
  r.define_compute("Greater", binary<greater>);
  r.define_compute("LessOrEqual", binary<less_equal>);
  r.define_compute("GreaterOrEqual", binary<greater_equal>);
  r.define_compute("And", binary<logical_and>);
  r.define_compute("Or", binary<logical_or>);
  r.define_compute("Xor", binary<logical_xor>);
  r.define_compute("Not", logical_not_op);
  r.define_compute("Where", where);
  r.define_compute("BitShift", bit_shift);
  r.define_compute("BitwiseAnd", binary<binary_intrinsic<I::BitwiseAnd>>);
  r.define_compute("BitwiseOr", binary<binary_intrinsic<I::BitwiseOr>>);
  r.define_compute("BitwiseXor", binary<binary_intrinsic<I::BitwiseXor>>);
  r.define_compute("BitwiseNot", unary<intrinsic<I::BitwiseNot>>);
  r.define_compute("Sum", variadic<add>);
  r.define_compute("Max", variadic<nan_max>);
  r.define_compute("Min", variadic<nan_min>);
  r.define_compute("Mean", mean);
}

}  // namespace lathe::topi

// Compute definitions of the reduce family: each Reduce* op is one reduction
// stage (over reduce axes for the reduced dimensions) and, where the result
// needs it, an elementwise stage that finishes it (mean, sqrt, log, the
// conversion back to the input type). Integer sums and products accumulate in
// 64 bits, whose wrapping narrows to what the reference's uint64_t gives;
// float ones accumulate in their own type, as TVM does.
//
// Not as the reference: ReduceMax/ReduceMin/ArgMax/ArgMin ignore NaN (the
// reference, as NumPy, lets NaN win); TVM's reductions behave the same way.
#include <string>

#include "topi/compute_util.h"
#include "topi/generic_template.h"

namespace lathe::topi {
namespace {

using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

struct ReducePlan {
  std::vector<bool> reduced;  // per input dimension
  bool keepdims = true;
  int64_t count = 1;  // input elements per output element
};

// Same axes rules as core/ir/ops/reduce.cpp: input 1 (a constant) when
// present, else the attribute; empty axes reduce all unless noop_with_empty_axes.
ReducePlan make_plan(const ComputeContext& ctx) {
  const std::vector<int64_t>& shape = ctx.input_type(0).shape;
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> axes = ctx.node().has_input(1) ? detail::constant_ints(ctx, 1, "axes")
                                                      : ctx.attrs().get_ints("axes");
  ReducePlan plan;
  plan.keepdims = ctx.attrs().get_int("keepdims", 1) != 0;
  const bool noop = ctx.attrs().get_int("noop_with_empty_axes", 0) != 0;
  plan.reduced.assign(static_cast<size_t>(rank), axes.empty() && !noop);
  for (int64_t a : axes) plan.reduced[static_cast<size_t>(normalize_axis(a, rank))] = true;
  for (size_t d = 0; d < shape.size(); ++d)
    if (plan.reduced[d]) plan.count *= shape[d];
  return plan;
}

// The input index for output index `out` and the reduce axes' variables.
std::vector<Expr> input_index(const ReducePlan& plan, const std::vector<Var>& out,
                              const std::vector<IterVar>& axes) {
  std::vector<Expr> index;
  size_t o = 0, r = 0;
  for (bool reduced : plan.reduced) {
    if (reduced) {
      index.push_back(axes[r++].var());
      if (plan.keepdims) ++o;
    } else {
      index.push_back(out[o++]);
    }
  }
  return index;
}

std::vector<IterVar> reduce_axes(const ReducePlan& plan, const std::vector<int64_t>& shape) {
  std::vector<IterVar> axes;
  for (size_t d = 0; d < shape.size(); ++d)
    if (plan.reduced[d]) {
      std::string name = "k";  // GCC 12 warns (-Wrestrict) on "k" + std::string
      name += std::to_string(d);
      axes.push_back(te::reduce_axis(shape[d], name));
    }
  return axes;
}

// combiner(source(x)) over the reduced dimensions of input 0, in the output
// shape; with nothing reduced, source(x) itself.
te::Tensor reduce_stage(const ComputeContext& ctx, const ReducePlan& plan, te::Reducer combiner,
                        const std::function<Expr(const Expr&)>& source, const std::string& suffix) {
  te::Tensor x = ctx.input(0);
  std::vector<IterVar> axes = reduce_axes(plan, x.shape());
  return te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) -> Expr {
        Expr v = source(x(input_index(plan, i, axes)));
        if (axes.empty()) return v;
        switch (combiner) {
          case te::Reducer::Sum:
            return te::sum(v, axes);
          case te::Reducer::Prod:
            return te::prod(v, axes);
          case te::Reducer::Max:
            return te::max(v, axes);
          case te::Reducer::Min:
            return te::min(v, axes);
        }
        return Expr();
      },
      ctx.name(suffix), {}, "comm_reduce");
}

te::Tensor finish_stage(const ComputeContext& ctx, const te::Tensor& acc,
                        const std::function<Expr(const Expr&)>& finish) {
  return te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) { return finish(acc(detail::as_exprs(i))); }, ctx.name(), {},
      "elemwise");
}

// 64-bit accumulator for integers (sign kept), the type itself for floats.
DataType wide_type(DataType t) {
  if (t.is_float()) return t;
  return t.is_int() ? DataType::Int(64) : DataType::UInt(64);
}

// A reduction accumulated in `acc_type`, converted back to the output type.
std::vector<te::Tensor> accumulate(const ComputeContext& ctx, te::Reducer combiner,
                                   DataType acc_type,
                                   const std::function<Expr(const Expr&)>& source,
                                   const std::function<Expr(const Expr&)>& finish) {
  const ReducePlan plan = make_plan(ctx);
  DataType t = detail::out_dtype(ctx);
  auto widened = [&](const Expr& x) { return source(te::cast(acc_type, x)); };
  te::Tensor acc =
      reduce_stage(ctx, plan, combiner, widened, acc_type == t && !finish ? "" : "acc");
  if (!finish && acc_type == t) return {acc};
  return {
      finish_stage(ctx, acc, [&](const Expr& a) { return finish ? finish(a) : te::cast(t, a); })};
}

Expr same(const Expr& x) {
  return x;
}

std::vector<te::Tensor> reduce_sum(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  return accumulate(ctx, te::Reducer::Sum, wide_type(t), same, nullptr);
}

std::vector<te::Tensor> reduce_sum_square(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  return accumulate(
      ctx, te::Reducer::Sum, wide_type(t), [](const Expr& x) { return x * x; }, nullptr);
}

std::vector<te::Tensor> reduce_l1(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  return accumulate(ctx, te::Reducer::Sum, wide_type(t), te::abs, nullptr);
}

std::vector<te::Tensor> reduce_prod(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  return accumulate(ctx, te::Reducer::Prod, wide_type(t), same, nullptr);
}

std::vector<te::Tensor> reduce_extreme(const ComputeContext& ctx, te::Reducer combiner) {
  return {reduce_stage(ctx, make_plan(ctx), combiner, same, "")};
}

std::vector<te::Tensor> reduce_max(const ComputeContext& ctx) {
  return reduce_extreme(ctx, te::Reducer::Max);
}

std::vector<te::Tensor> reduce_min(const ComputeContext& ctx) {
  return reduce_extreme(ctx, te::Reducer::Min);
}

// Mean, L2 and LogSum have real results whatever the input type: integers
// go through double as the reference does; floats stay in their type.
std::vector<te::Tensor> reduce_mean(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  const double n = static_cast<double>(make_plan(ctx).count);
  DataType acc = t.is_float() ? t : DataType::Float(64);
  return accumulate(ctx, te::Reducer::Sum, acc, same, [t, n](const Expr& a) {
    return detail::from_double(a / te::make_const(a.type(), n), t);
  });
}

std::vector<te::Tensor> reduce_l2(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  DataType acc = t.is_float() ? t : DataType::Float(64);
  return accumulate(
      ctx, te::Reducer::Sum, acc, [](const Expr& x) { return x * x; },
      [t](const Expr& a) { return detail::from_double(te::sqrt(a), t); });
}

std::vector<te::Tensor> reduce_log_sum(const ComputeContext& ctx) {
  DataType t = detail::out_dtype(ctx);
  DataType acc = t.is_float() ? t : DataType::Float(64);
  return accumulate(ctx, te::Reducer::Sum, acc, same,
                    [t](const Expr& a) { return detail::from_double(te::log(a), t); });
}

// log(sum(exp(x))) as m + log(sum(exp(x - m))) with m the maximum, so that
// large inputs do not overflow; an infinite m is the answer itself.
std::vector<te::Tensor> reduce_log_sum_exp(const ComputeContext& ctx) {
  const ReducePlan plan = make_plan(ctx);
  DataType t = detail::out_dtype(ctx);
  DataType acc = t.is_float() ? t : DataType::Float(64);
  te::Tensor x = ctx.input(0);
  te::Tensor m = reduce_stage(
      ctx, plan, te::Reducer::Max, [&](const Expr& v) { return te::cast(acc, v); }, "max");
  std::vector<IterVar> axes = reduce_axes(plan, x.shape());
  te::Tensor s = te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) -> Expr {
        Expr e = te::exp(te::cast(acc, x(input_index(plan, i, axes))) - m(detail::as_exprs(i)));
        return axes.empty() ? e : te::sum(e, axes);
      },
      ctx.name("sum"), {}, "comm_reduce");
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        Expr mv = m(detail::as_exprs(i));
        Expr finite = mv - mv == te::make_zero(acc);
        return detail::from_double(te::select(finite, mv + te::log(s(detail::as_exprs(i))), mv), t);
      },
      ctx.name(), {}, "elemwise")};
}

// ArgMax/ArgMin as two reductions: the extreme, then the first (or last)
// position that holds it.
template <bool kMax>
std::vector<te::Tensor> arg_reduce(const ComputeContext& ctx) {
  te::Tensor x = ctx.input(0);
  ReducePlan plan;
  const size_t axis = static_cast<size_t>(normalize_axis(ctx.attrs().get_int("axis", 0), x.ndim()));
  plan.reduced.assign(static_cast<size_t>(x.ndim()), false);
  plan.reduced[axis] = true;
  plan.keepdims = ctx.attrs().get_int("keepdims", 1) != 0;
  const bool last = ctx.attrs().get_int("select_last_index", 0) != 0;
  te::Tensor extreme =
      reduce_stage(ctx, plan, kMax ? te::Reducer::Max : te::Reducer::Min, same, "value");
  IterVar k = te::reduce_axis(x.shape()[axis], "k");
  const DataType i64 = DataType::Int(64);
  return {te::compute(
      detail::out_shape(ctx),
      [&](const std::vector<Var>& i) {
        Expr hit = x(input_index(plan, i, {k})) == extreme(detail::as_exprs(i));
        Expr position = te::cast(i64, k.var());
        if (last) return te::max(te::select(hit, position, te::make_int(-1, i64)), {k});
        return te::min(te::select(hit, position, te::make_int(x.shape()[axis], i64)), {k});
      },
      ctx.name(), {}, "comm_reduce")};
}

}  // namespace

void register_reduce_computes(OpStrategyRegistry& r) {
  r.define_compute("ReduceSum", reduce_sum);
  r.define_compute("ReduceSumSquare", reduce_sum_square);
  r.define_compute("ReduceL1", reduce_l1);
  r.define_compute("ReduceL2", reduce_l2);
  r.define_compute("ReduceProd", reduce_prod);
  r.define_compute("ReduceMean", reduce_mean);
  r.define_compute("ReduceLogSum", reduce_log_sum);
  r.define_compute("ReduceLogSumExp", reduce_log_sum_exp);
  r.define_compute("ReduceMax", reduce_max);
  r.define_compute("ReduceMin", reduce_min);
  r.define_compute("ArgMax", arg_reduce<true>);
  r.define_compute("ArgMin", arg_reduce<false>);
  for (const char* op :
       {"ReduceSum", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceProd", "ReduceMean",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMin", "ArgMax", "ArgMin"})
    r.define_template(op, generic_template);
}

}  // namespace lathe::topi

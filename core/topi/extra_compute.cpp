// Compute definitions of the loss ops (NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss) and of TopK for small K.
//
// The losses follow core/reference/loss.cpp: they compute in float64 (the
// log-softmax, each element's weighted loss, the sums) and convert to the
// output type at the end. A target outside [0, C) that is not ignore_index
// is an error in the reference; here it reads class min(max(t, 0), C - 1)
// instead of memory outside the input.
//
// TopK selects its K elements one stage pair at a time, as ArgMax does: stage
// j takes the greatest (smallest) value strictly after stage j - 1's pick in
// the order (value, then index ascending), then the first position holding
// it. NaN ranks above every number, as in the reference's (NumPy's) sort:
// inside the reductions NaN counts as +inf, and among positions holding that
// maximum a NaN comes before +inf when largest (after it when smallest),
// which gives exactly the reference's order. Output is always sorted (the
// reference's order also serves sorted = 0).
#include <string>

#include "topi/compute_util.h"

namespace lathe::topi {
namespace {

using te::DataType;
using te::Expr;
using te::IterVar;
using te::Var;

const DataType kF64 = DataType::Float(64);
const DataType kI64 = DataType::Int(64);

bool wants_output(const ComputeContext& ctx, size_t i) {
  return i < ctx.node().outputs.size() && ctx.node().outputs[i] != kNoValue;
}

// ---- Losses -------------------------------------------------------------------

// The input index [n, c, d1..dk] of target index [n, d1..dk] and class c.
std::vector<Expr> with_class(const std::vector<Expr>& target_index, const Expr& c) {
  std::vector<Expr> index = target_index;
  index.insert(index.begin() + 1, c);
  return index;
}

// The loss of float64 log-probabilities `logp` ([N, C, d1..dk]) against
// input 1's targets, with input 2's optional weights, reduced as the
// "reduction" attribute says; converted to output 0's type.
te::Tensor nll_stages(const ComputeContext& ctx, const te::Tensor& logp) {
  const te::Tensor& target = ctx.input(1);
  const Shape& ts = ctx.input_type(1).shape;
  const int64_t classes = ctx.input_type(0).shape[1];
  const DataType t = detail::out_dtype(ctx);
  const DataType tt = target.dtype();
  const bool has_ignore = ctx.attrs().has("ignore_index");
  const int64_t ignore = ctx.attrs().get_int("ignore_index", 0);
  const std::string reduction = ctx.attrs().get_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    throw UnsupportedError(describe_node(ctx.node()) + ": unknown reduction '" + reduction + "'");

  // Whether target element `index` counts, and the class it reads (clamped).
  auto counts = [&](const std::vector<Expr>& index) -> Expr {
    if (!has_ignore) return te::make_int(1, DataType::Bool());
    return target(index) != te::make_int(ignore, tt);
  };
  auto klass = [&](const std::vector<Expr>& index) -> Expr {
    Expr c = te::cast(kI64, target(index));
    return te::min(te::max(c, te::make_int(0, kI64)), te::make_int(classes - 1, kI64));
  };
  auto weight = [&](const Expr& c) -> Expr {
    if (!ctx.has_input(2)) return te::make_one(kF64);
    return te::cast(kF64, ctx.input(2)(std::vector<Expr>{c}));
  };
  te::Tensor loss = te::compute(
      ts,
      [&](const std::vector<Var>& i) {
        std::vector<Expr> index = detail::as_exprs(i);
        Expr c = klass(index);
        return te::select(counts(index),
                          te::make_zero(kF64) - logp(with_class(index, c)) * weight(c),
                          te::make_zero(kF64));
      },
      ctx.name(reduction == "none" ? "loss" : "elem"), {}, "elemwise");
  if (reduction == "none")
    return te::compute(
        ts, [&](const std::vector<Var>& i) { return te::cast(t, loss(detail::as_exprs(i))); },
        ctx.name(), {}, "elemwise");

  auto all_axes = [&](const char* prefix) {
    std::vector<IterVar> axes;
    for (size_t d = 0; d < ts.size(); ++d) {
      std::string name = prefix;
      name += std::to_string(d);
      axes.push_back(te::reduce_axis(ts[d], name));
    }
    return axes;
  };
  auto vars = [](const std::vector<IterVar>& axes) {
    std::vector<Expr> index;
    for (const IterVar& a : axes) index.push_back(a.var());
    return index;
  };
  std::vector<IterVar> ra = all_axes("r");
  te::Tensor total = te::compute(
      {}, [&](const std::vector<Var>&) { return te::sum(loss(vars(ra)), ra); }, ctx.name("sum"), {},
      "comm_reduce");
  if (reduction == "sum")
    return te::compute(
        {}, [&](const std::vector<Var>&) { return te::cast(t, total(std::vector<Expr>{})); },
        ctx.name(), {}, "elemwise");
  std::vector<IterVar> wa = all_axes("w");
  te::Tensor total_weight = te::compute(
      {},
      [&](const std::vector<Var>&) {
        std::vector<Expr> index = vars(wa);
        return te::sum(te::select(counts(index), weight(klass(index)), te::make_zero(kF64)), wa);
      },
      ctx.name("weight"), {}, "comm_reduce");
  // Every target ignored: 0 / 0, NaN as in the reference.
  return te::compute(
      {},
      [&](const std::vector<Var>&) {
        return te::cast(t, total(std::vector<Expr>{}) / total_weight(std::vector<Expr>{}));
      },
      ctx.name(), {}, "elemwise");
}

std::vector<te::Tensor> nll_loss_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  te::Tensor logp = te::compute(
      x.shape(), [&](const std::vector<Var>& i) { return te::cast(kF64, x(detail::as_exprs(i))); },
      ctx.name("f64"), {}, "elemwise");
  return {nll_stages(ctx, logp)};
}

// Log-softmax over the class dimension in float64, (x - max) - log(sum(exp(x - max))).
std::vector<te::Tensor> softmax_cross_entropy_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  Shape stats = x.shape();
  const int64_t classes = stats[1];
  stats[1] = 1;
  auto at_class = [](const std::vector<Var>& i, const Expr& c) {
    std::vector<Expr> index = detail::as_exprs(i);
    index[1] = c;
    return index;
  };
  IterVar km = te::reduce_axis(classes, "c");
  te::Tensor max = te::compute(
      stats,
      [&](const std::vector<Var>& i) {
        return te::max(te::cast(kF64, x(at_class(i, km.var()))), {km});
      },
      ctx.name("max"), {}, "comm_reduce");
  IterVar ks = te::reduce_axis(classes, "c");
  te::Tensor sum = te::compute(
      stats,
      [&](const std::vector<Var>& i) {
        Expr v = te::cast(kF64, x(at_class(i, ks.var()))) - max(detail::as_exprs(i));
        return te::sum(te::exp(v), {ks});
      },
      ctx.name("sumexp"), {}, "comm_reduce");
  te::Tensor logp = te::compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        std::vector<Expr> s = at_class(i, te::make_int(0));
        return te::cast(kF64, x(detail::as_exprs(i))) - max(s) - te::log(sum(s));
      },
      ctx.name("logp"), {}, "elemwise");
  std::vector<te::Tensor> out = {nll_stages(ctx, logp)};
  if (ctx.num_outputs() > 1) {
    if (!wants_output(ctx, 1)) {
      out.emplace_back();
    } else {
      const DataType t = detail::out_dtype(ctx, 1);
      out.push_back(te::compute(
          x.shape(),
          [&](const std::vector<Var>& i) { return te::cast(t, logp(detail::as_exprs(i))); },
          ctx.name("log_prob"), {}, "elemwise"));
    }
  }
  return out;
}

// ---- TopK ---------------------------------------------------------------------

constexpr int64_t kMaxTopK = 16;

std::vector<te::Tensor> top_k_compute(const ComputeContext& ctx) {
  const te::Tensor& x = ctx.input(0);
  const int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.ndim());
  const size_t ax = static_cast<size_t>(axis);
  const int64_t n = x.shape()[ax];
  const std::vector<int64_t> kv = detail::constant_ints(ctx, 1, "K");
  if (kv.size() != 1) throw Error(describe_node(ctx.node()) + ": K must hold a single value");
  const int64_t k = kv[0];
  if (k < 1 || k > kMaxTopK || k > n)
    throw UnsupportedError(
        describe_node(ctx.node()) + ": TopK is compiled for 1 <= K <= " + std::to_string(kMaxTopK) +
        " (and K <= the axis size " + std::to_string(n) + "), not K = " + std::to_string(k));
  const bool largest = ctx.attrs().get_int("largest", 1) != 0;
  const DataType t = x.dtype();
  const bool is_float = t.is_float();

  // The value the reductions see (NaN as +inf) and the tie rank of position
  // p: among equal keys, lower ranks come first; NaN goes before +inf when
  // largest, after it when smallest.
  auto key = [&](const Expr& v) -> Expr {
    if (!is_float) return v;
    return te::select(v != v, te::make_const(t, INFINITY), v);
  };
  auto rank = [&](const Expr& v, const Expr& p) -> Expr {
    Expr pos = te::cast(kI64, p);
    if (!is_float) return pos;
    Expr nan_first = largest ? (v != v) : (v == v);
    return te::select(nan_first, pos, pos + te::make_int(n, kI64));
  };
  const int64_t rank_span = is_float ? 2 * n : n;

  Shape stats = x.shape();
  stats[ax] = 1;
  auto along = [&](const std::vector<Var>& i, const Expr& p) {
    std::vector<Expr> index = detail::as_exprs(i);
    index[ax] = p;
    return index;
  };
  std::vector<te::Tensor> values, ranks;
  for (int64_t j = 0; j < k; ++j) {
    const std::string s = std::to_string(j);
    // Whether the element at p (value v) comes strictly after the previous pick.
    const te::Tensor prev_value = j == 0 ? te::Tensor() : values.back();
    const te::Tensor prev_rank = j == 0 ? te::Tensor() : ranks.back();
    auto after = [&](const std::vector<Var>& i, const Expr& v, const Expr& p) -> Expr {
      if (j == 0) return te::make_int(1, DataType::Bool());
      std::vector<Expr> at = along(i, te::make_int(0));
      Expr pv = prev_value(at), pr = prev_rank(at);
      Expr kx = key(v);
      Expr beyond = largest ? kx < pv : kx > pv;
      return beyond || (kx == pv && rank(v, p) > pr);
    };
    IterVar kvax = te::reduce_axis(n, "k");
    te::Tensor best = te::compute(
        stats,
        [&](const std::vector<Var>& i) {
          Expr v = x(along(i, kvax.var()));
          Expr cond = after(i, v, kvax.var());
          return largest ? te::max(key(v), {kvax}, cond) : te::min(key(v), {kvax}, cond);
        },
        ctx.name("value" + s), {}, "comm_reduce");
    values.push_back(best);
    IterVar kiax = te::reduce_axis(n, "k");
    te::Tensor first = te::compute(
        stats,
        [&](const std::vector<Var>& i) {
          Expr v = x(along(i, kiax.var()));
          Expr hit = after(i, v, kiax.var()) && key(v) == best(along(i, te::make_int(0)));
          return te::min(te::select(hit, rank(v, kiax.var()), te::make_int(rank_span, kI64)),
                         {kiax});
        },
        ctx.name("rank" + s), {}, "comm_reduce");
    ranks.push_back(first);
  }

  // Position j of the output axis reads stage j's rank, as a position in [0, n).
  auto position = [&](const std::vector<Var>& i) -> Expr {
    std::vector<Expr> at = along(i, te::make_int(0));
    Expr r = ranks.back()(at);
    for (int64_t j = k - 1; j-- > 0;)
      r = te::select(i[ax] == te::make_int(j), ranks[static_cast<size_t>(j)](at), r);
    if (!is_float) return r;
    return te::select(r >= te::make_int(n, kI64), r - te::make_int(n, kI64), r);
  };
  Shape out = x.shape();
  out[ax] = k;
  te::Tensor indices = te::compute(
      out, [&](const std::vector<Var>& i) { return position(i); }, ctx.name("indices"), {},
      "injective");
  te::Tensor vals = te::compute(
      out, [&](const std::vector<Var>& i) { return x(along(i, indices(detail::as_exprs(i)))); },
      ctx.name(), {}, "injective");
  std::vector<te::Tensor> result = {vals};
  if (ctx.num_outputs() > 1) result.push_back(indices);
  return result;
}

}  // namespace

void register_extra_computes(OpStrategyRegistry& r) {
  r.define_compute("NegativeLogLikelihoodLoss", nll_loss_compute);
  r.define_compute("SoftmaxCrossEntropyLoss", softmax_cross_entropy_compute);
  r.define_compute("TopK", top_k_compute);
}

}  // namespace lathe::topi

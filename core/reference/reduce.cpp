// Reference kernels for the reduce op family: the Reduce* ops and ArgMax/ArgMin.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ir/ops/infer_util.h"
#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

// How input elements map onto output elements: the output offset of an input
// element is the dot product of its index with out_strides, whose reduced
// dimensions have stride 0. `count` is how many inputs meet in one output.
struct Plan {
  std::vector<int64_t> out_strides;
  int64_t count = 1;
};

// Same axes rules as the inference in core/ir/ops/reduce.cpp, which has
// already validated them: axes from input 1 when present (ReduceSum 13+),
// otherwise from the attribute; empty axes reduce all unless noop_with_empty_axes.
Plan make_plan(const KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int rank = x.rank();
  std::vector<int64_t> axes =
      ctx.has_input(1) ? ctx.input(1).to_int64_vector() : ctx.attrs().get_ints("axes");
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  if (axes.empty() && ctx.attrs().get_int("noop_with_empty_axes", 0) != 0)
    reduced.assign(static_cast<size_t>(rank), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(normalize_axis(a, rank))] = true;

  Shape kept = x.shape();  // the output shape with keepdims=1; same layout as without
  Plan plan;
  for (size_t d = 0; d < kept.size(); ++d) {
    if (reduced[d]) {
      plan.count *= kept[d];
      kept[d] = 1;
    }
  }
  plan.out_strides = shape_strides(kept);
  for (size_t d = 0; d < kept.size(); ++d)
    if (reduced[d]) plan.out_strides[d] = 0;
  LATHE_CHECK(shape_numel(kept) == ctx.output(0).numel(), "output ",
              ctx.output(0).type().to_string(), " does not match the reduction of ",
              x.type().to_string());
  return plan;
}

// Calls f(input offset, output offset) for every input element.
template <typename F>
void for_each_element(const Tensor& x, const Plan& plan, F&& f) {
  const std::array<std::vector<int64_t>, 1> strides = {plan.out_strides};
  for_each_broadcast(x.shape(), strides,
                     [&](int64_t i, const std::array<int64_t, 1>& off) { f(i, off[0]); });
}

// The accumulator of sums and products: double for floats, since these kernels
// are the oracle and float32 sums drift; uint64_t for integers, whose modular
// arithmetic narrows back to exactly what the wrapping narrow type would give,
// without the undefined behaviour of signed overflow.
template <typename T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

template <typename T>
Acc<T> widen(T x) {
  return static_cast<Acc<T>>(x);
}

template <typename T>
Acc<T> widen_abs(T x) {
  if constexpr (std::is_signed_v<T>) {
    if constexpr (std::is_floating_point_v<T>) return std::fabs(static_cast<double>(x));
    // Negating in uint64_t: |INT_MIN| wraps as numpy's np.abs does.
    if (x < 0) return uint64_t{0} - static_cast<uint64_t>(x);
  }
  return widen(x);
}

template <typename T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  (void)x;
  return false;
}

// A real result converted to T; integers truncate like numpy's astype, with
// NaN and out-of-range values (empty ReduceMean, log of 0) pinned instead of UB.
template <typename T>
T from_double(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    if (std::isnan(v)) return T{0};
    if (v >= static_cast<double>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    return static_cast<T>(v);
  }
}

// Folds every input element into its output's accumulator, starting from
// `init` (the identity, which is what an empty reduction yields), then maps
// each accumulator to the output with `finish`.
template <typename T, typename A, typename Step, typename Finish>
void fold(KernelContext& ctx, const Plan& plan, A init, Step step, Finish finish) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  std::vector<A> acc(static_cast<size_t>(y.numel()), init);
  const T* px = x.data<T>();
  for_each_element(x, plan,
                   [&](int64_t i, int64_t o) { step(acc[static_cast<size_t>(o)], px[i]); });
  T* py = y.data<T>();
  for (size_t o = 0; o < acc.size(); ++o) py[o] = finish(acc[o]);
}

// Runs body(T{}, ctx, plan) with T the C++ type of the input dtype.
template <typename Body>
void reduce(KernelContext& ctx, Body body) {
  const Plan plan = make_plan(ctx);
  dispatch(ctx.input(0).dtype(), kNumericTypes, ctx.node().op.c_str(), [&](auto tag) {
    // dispatch instantiates the bool case even when it is excluded;
    // skip it so that accumulators never become std::vector<bool>.
    if constexpr (!std::is_same_v<decltype(tag), bool>) body(tag, ctx, plan);
  });
}

void reduce_sum(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, Acc<T>{0}, [](Acc<T>& a, T x) { a += widen(x); },
        [](Acc<T> a) { return static_cast<T>(a); });
  });
}

void reduce_sum_square(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, Acc<T>{0}, [](Acc<T>& a, T x) { a += widen(x) * widen(x); },
        [](Acc<T> a) { return static_cast<T>(a); });
  });
}

void reduce_l1(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, Acc<T>{0}, [](Acc<T>& a, T x) { a += widen_abs(x); },
        [](Acc<T> a) { return static_cast<T>(a); });
  });
}

void reduce_prod(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, Acc<T>{1}, [](Acc<T>& a, T x) { a *= widen(x); },
        [](Acc<T> a) { return static_cast<T>(a); });
  });
}

// Mean, L2 and LogSum have real results whatever the input type, so they
// accumulate in double as numpy does for integer means.
void reduce_mean(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    const double n = static_cast<double>(p.count);
    fold<T>(
        c, p, 0.0, [](double& a, T x) { a += static_cast<double>(x); },
        [n](double a) { return from_double<T>(a / n); });
  });
}

void reduce_l2(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, 0.0,
        [](double& a, T x) {
          const double v = static_cast<double>(x);
          a += v * v;
        },
        [](double a) { return from_double<T>(std::sqrt(a)); });
  });
}

void reduce_log_sum(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, 0.0, [](double& a, T x) { a += static_cast<double>(x); },
        [](double a) { return from_double<T>(std::log(a)); });
  });
}

// The extreme of an empty set is the identity of max/min: -inf/+inf where the
// type has them, else its lowest/highest value. NaN wins, as in np.max.
template <typename T>
T lowest_value() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}
template <typename T>
T highest_value() {
  if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::max();
}

void reduce_max(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, lowest_value<T>(),
        [](T& a, T x) {
          if (x > a || is_nan(x)) a = x;
        },
        [](T a) { return a; });
  });
}

void reduce_min(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    fold<T>(
        c, p, highest_value<T>(),
        [](T& a, T x) {
          if (x < a || is_nan(x)) a = x;
        },
        [](T a) { return a; });
  });
}

// log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m the maximum,
// so that large inputs do not overflow exp.
void reduce_log_sum_exp(KernelContext& ctx) {
  reduce(ctx, [](auto tag, KernelContext& c, const Plan& p) {
    using T = decltype(tag);
    const Tensor& x = c.input(0);
    Tensor& y = c.output(0);
    const T* px = x.data<T>();
    const size_t n = static_cast<size_t>(y.numel());
    std::vector<double> m(n, -std::numeric_limits<double>::infinity());
    for_each_element(x, p, [&](int64_t i, int64_t o) {
      const double v = static_cast<double>(px[i]);
      double& a = m[static_cast<size_t>(o)];
      if (v > a || std::isnan(v)) a = v;
    });
    std::vector<double> sum(n, 0.0);
    for_each_element(x, p, [&](int64_t i, int64_t o) {
      const size_t k = static_cast<size_t>(o);
      sum[k] += std::exp(static_cast<double>(px[i]) - m[k]);
    });
    T* py = y.data<T>();
    for (size_t k = 0; k < n; ++k) {
      // An infinite (or NaN) maximum, or an empty set (m = -inf), is the
      // answer itself: shifting by it would give inf - inf = NaN.
      py[k] = from_double<T>(std::isfinite(m[k]) ? m[k] + std::log(sum[k]) : m[k]);
    }
  });
}

// ArgMax/ArgMin along one axis. Ties go to the first index, or the last with
// select_last_index; NaN counts as the extreme, as in np.argmax.
template <bool kMax>
void arg_reduce(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const int axis = normalize_axis(ctx.attrs().get_int("axis", 0), x.rank());
  const bool select_last = ctx.attrs().get_int("select_last_index", 0) != 0;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x.shape()[static_cast<size_t>(d)];
  for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[static_cast<size_t>(d)];
  const int64_t n = x.shape()[static_cast<size_t>(axis)];
  LATHE_CHECK(n > 0, "cannot take the ", ctx.node().op, " of an empty axis");
  LATHE_CHECK(y.numel() == outer * inner, "output ", y.type().to_string(),
              " does not match the reduction of ", x.type().to_string());
  int64_t* py = y.data<int64_t>();
  dispatch(x.dtype(), kNumericTypes, ctx.node().op.c_str(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        const T* base = px + o * n * inner + in;
        T best = base[0];
        int64_t best_k = 0;
        for (int64_t k = 1; k < n; ++k) {
          const T v = base[k * inner];
          const bool better = (kMax ? v > best : v < best) || (is_nan(v) && !is_nan(best));
          const bool tie = v == best || (is_nan(v) && is_nan(best));
          if (better || (select_last && tie)) {
            best = v;
            best_k = k;
          }
        }
        py[o * inner + in] = best_k;
      }
    }
  });
}

}  // namespace

void register_reduce_kernels(OpRegistry& r) {
  r.find_mutable("ReduceSum")->kernel = reduce_sum;
  r.find_mutable("ReduceSumSquare")->kernel = reduce_sum_square;
  r.find_mutable("ReduceL1")->kernel = reduce_l1;
  r.find_mutable("ReduceL2")->kernel = reduce_l2;
  r.find_mutable("ReduceProd")->kernel = reduce_prod;
  r.find_mutable("ReduceMean")->kernel = reduce_mean;
  r.find_mutable("ReduceLogSum")->kernel = reduce_log_sum;
  r.find_mutable("ReduceLogSumExp")->kernel = reduce_log_sum_exp;
  r.find_mutable("ReduceMax")->kernel = reduce_max;
  r.find_mutable("ReduceMin")->kernel = reduce_min;
  r.find_mutable("ArgMax")->kernel = arg_reduce<true>;
  r.find_mutable("ArgMin")->kernel = arg_reduce<false>;
}

}  // namespace lathe::reference

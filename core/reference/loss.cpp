// Reference kernels for the loss ops. Both compute in double on plain vectors,
// which is exact enough to check against and keeps one code path per dtype;
// SoftmaxCrossEntropyLoss is the NegativeLogLikelihoodLoss of a log-softmax.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "reference/executor.h"
#include "reference/kernel_util.h"

namespace lathe::reference {
namespace {

// Input [N, C, d1..dk] seen as [N, C, D] with D = d1 * ... * dk.
struct LossLayout {
  int64_t n, c, d;
};

LossLayout layout_of(const Tensor& x, const Tensor& target) {
  LATHE_CHECK(x.rank() >= 2, "input must be [N, C, d1..dk], got ", x.type().to_string());
  LossLayout l{x.shape()[0], x.shape()[1], 1};
  for (size_t i = 2; i < x.shape().size(); ++i) l.d *= x.shape()[i];
  LATHE_CHECK(target.numel() == l.n * l.d, "target ", target.type().to_string(),
              " does not match input ", x.type().to_string());
  return l;
}

// The loss of log-probabilities `logp` laid out as [N, C, D], following the
// spec: each target element t contributes -logp[n, t, d] * weight[t], or
// nothing (and no weight) when t is ignore_index; "mean" divides by the total
// weight of the elements that count.
std::vector<double> nll(const KernelContext& ctx, const std::vector<double>& logp, LossLayout l) {
  std::vector<int64_t> target = ctx.input(1).to_int64_vector();
  std::vector<double> weight;
  if (ctx.has_input(2)) {
    weight = ctx.input(2).to_double_vector();
    LATHE_CHECK(static_cast<int64_t>(weight.size()) == l.c, "weight has ", weight.size(),
                " values for ", l.c, " classes");
  }
  const bool has_ignore = ctx.attrs().has("ignore_index");
  const int64_t ignore = ctx.attrs().get_int("ignore_index", 0);
  const std::string reduction = ctx.attrs().get_string("reduction", "mean");
  std::vector<double> loss(target.size());
  double total = 0, total_weight = 0;
  for (int64_t n = 0; n < l.n; ++n)
    for (int64_t d = 0; d < l.d; ++d) {
      size_t i = static_cast<size_t>(n * l.d + d);
      int64_t t = target[i];
      // An ignored target may lie outside [0, C) (the tests use -1 and C + 7).
      if (has_ignore && t == ignore) continue;
      LATHE_CHECK(t >= 0 && t < l.c, "target ", t, " is out of range for ", l.c, " classes");
      double w = weight.empty() ? 1.0 : weight[static_cast<size_t>(t)];
      loss[i] = -logp[static_cast<size_t>((n * l.c + t) * l.d + d)] * w;
      total += loss[i];
      total_weight += w;
    }
  if (reduction == "none") return loss;
  if (reduction == "sum") return {total};
  LATHE_CHECK(reduction == "mean", "unknown reduction '", reduction, "'");
  // With every target ignored this is 0 / 0 = NaN, as in the spec's reference.
  return {total / total_weight};
}

void store(Tensor& out, const std::vector<double>& values, const char* op) {
  LATHE_CHECK(static_cast<int64_t>(values.size()) == out.numel(), "internal: ", values.size(),
              " values for output ", out.type().to_string());
  dispatch_types<float, double>(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
}

void nll_loss(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  LossLayout l = layout_of(x, ctx.input(1));
  store(ctx.output(0), nll(ctx, x.to_double_vector(), l), "NegativeLogLikelihoodLoss");
}

void softmax_cross_entropy(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  LossLayout l = layout_of(x, ctx.input(1));
  std::vector<double> logp = x.to_double_vector();
  // Log-softmax over the class dimension: (x - max) - log(sum(exp(x - max))),
  // shifted by the maximum so that exp cannot overflow.
  for (int64_t n = 0; n < l.n; ++n)
    for (int64_t d = 0; d < l.d; ++d) {
      auto at = [&](int64_t c) -> double& {
        return logp[static_cast<size_t>((n * l.c + c) * l.d + d)];
      };
      double max = -INFINITY;
      for (int64_t c = 0; c < l.c; ++c) max = std::max(max, at(c));
      double sum = 0;
      for (int64_t c = 0; c < l.c; ++c) sum += std::exp(at(c) - max);
      double log_sum = std::log(sum);
      for (int64_t c = 0; c < l.c; ++c) at(c) = at(c) - max - log_sum;
    }
  store(ctx.output(0), nll(ctx, logp, l), "SoftmaxCrossEntropyLoss");
  if (ctx.num_outputs() > 1 && ctx.node().outputs[1] != kNoValue)
    store(ctx.output(1), logp, "SoftmaxCrossEntropyLoss");
}

}  // namespace

void register_loss_kernels(OpRegistry& r) {
  r.find_mutable("NegativeLogLikelihoodLoss")->kernel = nll_loss;
  r.find_mutable("SoftmaxCrossEntropyLoss")->kernel = softmax_cross_entropy;
}

}  // namespace lathe::reference

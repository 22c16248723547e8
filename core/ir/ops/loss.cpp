// Inference for the loss ops: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (opset 13), which share their input layout:
// predictions [N, C, d1..dk], class targets [N, d1..dk], optional weights [C].
#include <string>

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

// Checks the three inputs and sets output 0, the loss: one per target element
// with reduction "none", else a scalar.
void infer_loss_common(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  ctx.check_dtype(1, kIndexTypes);
  const TensorType& x = ctx.input(0);
  const TensorType& target = ctx.input(1);
  LATHE_CHECK(x.rank() >= 2, "input must be [N, C, d1..dk], got ", x.to_string());
  // The target is the input without its class dimension (dimension 1).
  Shape expected = x.shape;
  expected.erase(expected.begin() + 1);
  LATHE_CHECK(target.shape == expected, "target ", target.to_string(), " should have shape ",
              shape_to_string(expected), " for input ", x.to_string());
  if (ctx.has_input(2)) {
    const TensorType& w = ctx.input(2);
    LATHE_CHECK(w.dtype == x.dtype, "weight is ", dtype_name(w.dtype), " but input is ",
                dtype_name(x.dtype));
    LATHE_CHECK(w.shape == Shape{x.shape[1]}, "weight ", w.to_string(), " should have shape [",
                x.shape[1], "] (one per class)");
  }
  std::string reduction = ctx.attrs().get_string("reduction", "mean");
  LATHE_CHECK(reduction == "none" || reduction == "sum" || reduction == "mean",
              "unknown reduction '", reduction, "'");
  ctx.set_output(0, {x.dtype, reduction == "none" ? target.shape : Shape{}});
}

void infer_nll_loss(InferContext& ctx) {
  infer_loss_common(ctx);
}

void infer_softmax_cross_entropy(InferContext& ctx) {
  infer_loss_common(ctx);
  // The optional second output is the log-softmax of the scores over classes.
  ctx.set_output(1, ctx.input(0));
}

}  // namespace

void register_loss_ops(OpRegistry& r) {
  r.define("NegativeLogLikelihoodLoss", FusionKind::Opaque, infer_nll_loss);
  r.define("SoftmaxCrossEntropyLoss", FusionKind::Opaque, infer_softmax_cross_entropy);
}

}  // namespace lathe

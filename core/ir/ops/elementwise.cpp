// Inference for elementwise and broadcasting ops: unary math and activations,
// binary arithmetic, comparisons, logic, bit shifts and bitwise ops, Where, Cast, CastLike,
// Clip, Shrink and the variadic Sum/Mean/Max/Min.
#include <string>

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

void infer_float_unary(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  infer_same_as_input(ctx);
}

void infer_numeric_unary(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  infer_same_as_input(ctx);
}

void infer_signed_unary(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes | kSignedTypes);
  infer_same_as_input(ctx);
}

void infer_float_predicate(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  ctx.set_output(0, {DType::Bool, ctx.input(0).shape});
}

void infer_numeric_broadcast(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  ctx.set_output(0, broadcast_inputs(ctx));
}

void infer_pow(InferContext& ctx) {
  // Pow's exponent may have another numeric type than its base (opset 12).
  ctx.check_dtype(0, kNumericTypes);
  ctx.check_dtype(1, kNumericTypes);
  ctx.set_output(0, {ctx.input(0).dtype, broadcast_shapes(ctx.input(0).shape, ctx.input(1).shape)});
}

void infer_compare(InferContext& ctx) {
  ctx.check_dtype(0, kAllTypes);
  ctx.set_output(0, {DType::Bool, broadcast_inputs(ctx).shape});
}

void infer_logic(InferContext& ctx) {
  ctx.check_dtype(0, kBoolType);
  ctx.set_output(0, {DType::Bool, broadcast_inputs(ctx).shape});
}

void infer_not(InferContext& ctx) {
  ctx.check_dtype(0, kBoolType);
  infer_same_as_input(ctx);
}

void infer_where(InferContext& ctx) {
  LATHE_CHECK(ctx.input(0).dtype == DType::Bool, "condition must be bool, got ",
              dtype_name(ctx.input(0).dtype));
  ctx.check_dtype(1, kAllTypes);
  LATHE_CHECK(ctx.input(1).dtype == ctx.input(2).dtype, "X is ", dtype_name(ctx.input(1).dtype),
              " but Y is ", dtype_name(ctx.input(2).dtype));
  Shape shape = broadcast_shapes(ctx.input(0).shape,
                                 broadcast_shapes(ctx.input(1).shape, ctx.input(2).shape));
  ctx.set_output(0, {ctx.input(1).dtype, shape});
}

void infer_cast(InferContext& ctx) {
  // The storage floats enter and leave float32 compute through Casts.
  ctx.check_dtype(0, kAllTypes | kStorageFloatTypes);
  int64_t to = ctx.attrs().get_int("to", 0);
  auto dtype = dtype_from_onnx(static_cast<int>(to));
  if (!dtype)
    fail_unsupported(str("cast to unsupported dtype ", onnx_dtype_name(static_cast<int>(to))));
  ctx.set_output(0, {*dtype, ctx.input(0).shape});
}

void infer_cast_like(InferContext& ctx) {
  ctx.check_dtype(0, kAllTypes | kStorageFloatTypes);
  // Only the dtype of target_type matters; its shape is free.
  ctx.set_output(0, {ctx.input(1).dtype, ctx.input(0).shape});
}

void infer_bit_shift(InferContext& ctx) {
  ctx.check_dtype(0, kUnsignedTypes);
  std::string direction = ctx.attrs().get_string("direction", "");
  LATHE_CHECK(direction == "LEFT" || direction == "RIGHT", "direction must be LEFT or RIGHT, got '",
              direction, "'");
  ctx.set_output(0, broadcast_inputs(ctx));
}

// BitwiseAnd/Or/Xor (opset 18): integers of one type, broadcast.
void infer_bitwise(InferContext& ctx) {
  ctx.check_dtype(0, kIntegerTypes);
  check_same_dtype(ctx);
  ctx.set_output(0, broadcast_inputs(ctx));
}

void infer_bitwise_not(InferContext& ctx) {
  ctx.check_dtype(0, kIntegerTypes);
  infer_same_as_input(ctx);
}

void infer_clip(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  check_same_dtype(ctx);
  for (size_t i = 1; i < 3; ++i)
    if (ctx.has_input(i))
      LATHE_CHECK(ctx.input(i).numel() == 1, "Clip bound ", i, " must be a scalar, got ",
                  shape_to_string(ctx.input(i).shape));
  infer_same_as_input(ctx);
}

}  // namespace

void register_elementwise_ops(OpRegistry& r) {
  for (const char* op : {"Sqrt",
                         "Reciprocal",
                         "Exp",
                         "Log",
                         "Erf",
                         "Floor",
                         "Ceil",
                         "Round",
                         "Sigmoid",
                         "HardSigmoid",
                         "HardSwish",
                         "Tanh",
                         "Softplus",
                         "Softsign",
                         "Elu",
                         "Selu",
                         "Celu",
                         "LeakyRelu",
                         "ThresholdedRelu",
                         "Sin",
                         "Cos",
                         "Tan",
                         "Asin",
                         "Acos",
                         "Atan",
                         "Sinh",
                         "Cosh",
                         "Asinh",
                         "Acosh",
                         "Atanh"})
    r.define(op, FusionKind::ElemWise, infer_float_unary);
  for (const char* op : {"Abs", "Relu"}) r.define(op, FusionKind::ElemWise, infer_numeric_unary);
  for (const char* op : {"Neg", "Sign"}) r.define(op, FusionKind::ElemWise, infer_signed_unary);
  for (const char* op : {"IsNaN", "IsInf"})
    r.define(op, FusionKind::ElemWise, infer_float_predicate);
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Sum", "Mean"})
    r.define(op, FusionKind::Broadcast, infer_numeric_broadcast);
  r.define("Pow", FusionKind::Broadcast, infer_pow);
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"})
    r.define(op, FusionKind::Broadcast, infer_compare);
  for (const char* op : {"And", "Or", "Xor"}) r.define(op, FusionKind::Broadcast, infer_logic);
  r.define("Not", FusionKind::ElemWise, infer_not);
  r.define("Where", FusionKind::Broadcast, infer_where);
  r.define("Cast", FusionKind::ElemWise, infer_cast);
  r.define("Clip", FusionKind::ElemWise, infer_clip);
  r.define("CastLike", FusionKind::ElemWise, infer_cast_like);
  r.define("Shrink", FusionKind::ElemWise, infer_numeric_unary);
  r.define("BitShift", FusionKind::Broadcast, infer_bit_shift);
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    r.define(op, FusionKind::Broadcast, infer_bitwise);
  r.define("BitwiseNot", FusionKind::ElemWise, infer_bitwise_not);
}

}  // namespace lathe

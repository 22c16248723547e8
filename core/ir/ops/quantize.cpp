// Inference for the quantized ops ONNX Runtime's quantizer writes: the QDQ
// form (QuantizeLinear, DequantizeLinear), the QOperator form (QLinearConv,
// QLinearMatMul and the com.microsoft contrib ops QLinearAdd, QLinearMul,
// QLinearGlobalAveragePool, QGemm) and the dynamic form
// (DynamicQuantizeLinear, ConvInteger, MatMulInteger).
//
// The conv- and matmul-shaped ops take their output shape from Conv's, Gemm's
// and MatMul's own inference, run on float stand-ins of their operands, so
// that all of them place windows and broadcast batches alike.
#include <string>

#include "ir/ops/infer_util.h"
#include "ir/ops/nn_dtypes.h"

namespace lathe {
namespace {

constexpr DTypeSet kQuantTypes = dtype_bit(DType::Int8) | dtype_bit(DType::UInt8);
// DequantizeLinear also reads int32 (biases) and, since opset 21, 16-bit values.
constexpr DTypeSet kDequantInputTypes =
    kQuantTypes | dtype_bit(DType::Int32) | dtype_bit(DType::Int16) | dtype_bit(DType::UInt16);

// A scale or zero point: a scalar (or a one-element vector) for the whole
// tensor, or with `axis` one value per slice along that axis of `x`.
void check_quant_param(const InferContext& ctx, size_t i, const TensorType& x, int axis,
                       const char* what) {
  const TensorType& p = ctx.input(i);
  if (p.numel() == 1 && p.rank() <= 1) return;
  LATHE_CHECK(p.rank() == 1, what, " (input ", i, ") must be a scalar or 1-D, got ", p.to_string());
  LATHE_CHECK(axis >= 0 && axis < x.rank() && p.shape[0] == x.shape[axis], what, " (input ", i,
              ") ", p.to_string(), " must have one value per slice along axis ", axis, " of ",
              x.to_string());
}

// A per-tensor parameter: scalar or a one-element vector.
void check_scalar_param(const InferContext& ctx, size_t i, const char* what) {
  const TensorType& p = ctx.input(i);
  LATHE_CHECK(p.numel() == 1 && p.rank() <= 1, what, " (input ", i,
              ") must be a scalar or a one-element vector, got ", p.to_string());
}

void check_scale(const InferContext& ctx, size_t i, const char* what) {
  LATHE_CHECK(ctx.input(i).dtype == DType::Float32, what, " (input ", i, ") must be float32, got ",
              ctx.input(i).to_string());
}

int quant_axis(const InferContext& ctx, const TensorType& x) {
  const int64_t axis = ctx.attrs().get_int("axis", 1);
  // A per-tensor scale ignores the axis, which may then lie outside a
  // scalar's rank (ORT writes axis 1 on scalars too).
  if (ctx.input(1).numel() == 1) return 0;
  return normalize_axis(axis, x.rank());
}

void check_block_size(const InferContext& ctx, const char* op) {
  if (ctx.attrs().get_int("block_size", 0) != 0)
    fail_unsupported(str(op, ": blocked quantization (block_size, opset 21) is not supported"));
}

void infer_quantize_linear(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes | dtype_bit(DType::Int32));
  check_block_size(ctx, "QuantizeLinear");
  const TensorType& x = ctx.input(0);
  check_scale(ctx, 1, "y_scale");
  const int axis = quant_axis(ctx, x);
  check_quant_param(ctx, 1, x, axis, "y_scale");
  DType out = DType::UInt8;
  if (ctx.has_input(2)) {
    ctx.check_dtype(2, kQuantTypes | dtype_bit(DType::Int16) | dtype_bit(DType::UInt16));
    check_quant_param(ctx, 2, x, axis, "y_zero_point");
    out = ctx.input(2).dtype;
  } else if (int64_t code = ctx.attrs().get_int("output_dtype", 0); code != 0) {
    auto t = dtype_from_onnx(static_cast<int>(code));
    LATHE_CHECK(t && dtype_in(*t, kQuantTypes | dtype_bit(DType::Int16) | dtype_bit(DType::UInt16)),
                "QuantizeLinear output_dtype ", onnx_dtype_name(static_cast<int>(code)),
                " is not supported (int8, uint8, int16, uint16 are)");
    out = *t;
  }
  ctx.set_output(0, {out, x.shape});
}

void infer_dequantize_linear(InferContext& ctx) {
  ctx.check_dtype(0, kDequantInputTypes);
  check_block_size(ctx, "DequantizeLinear");
  const TensorType& x = ctx.input(0);
  check_scale(ctx, 1, "x_scale");
  const int axis = quant_axis(ctx, x);
  check_quant_param(ctx, 1, x, axis, "x_scale");
  if (ctx.has_input(2)) {
    LATHE_CHECK(ctx.input(2).dtype == x.dtype, "x_zero_point ", ctx.input(2).to_string(),
                " must have the dtype of x ", x.to_string());
    check_quant_param(ctx, 2, x, axis, "x_zero_point");
  }
  ctx.set_output(0, {DType::Float32, x.shape});
}

void infer_dynamic_quantize_linear(InferContext& ctx) {
  LATHE_CHECK(ctx.input(0).dtype == DType::Float32,
              "DynamicQuantizeLinear input must be float32, got ", ctx.input(0).to_string());
  ctx.set_output(0, {DType::UInt8, ctx.input(0).shape});
  ctx.set_output(1, {DType::Float32, {}});
  ctx.set_output(2, {DType::UInt8, {}});
}

// Output types of `op`'s inference on float32 stand-ins of `operands`.
std::vector<TensorType> infer_as(const InferContext& ctx, const char* op,
                                 const std::vector<const TensorType*>& operands) {
  std::vector<TensorType> as_float;
  as_float.reserve(operands.size());
  for (const TensorType* t : operands) as_float.push_back({DType::Float32, t->shape});
  std::vector<const TensorType*> types;
  for (const TensorType& t : as_float) types.push_back(&t);
  InferContext inner(ctx.node(), types, std::vector<const Tensor*>(types.size(), nullptr));
  OpRegistry::global().find(op)->infer(inner);
  return std::move(inner.outputs());
}

// The weight's zero point and scale are per tensor or per output channel
// (dimension 0 of a conv weight, the last of a matmul's B).
void check_weight_param(const InferContext& ctx, size_t i, int64_t channels, const char* what) {
  const TensorType& p = ctx.input(i);
  LATHE_CHECK((p.numel() == 1 && p.rank() <= 1) || (p.rank() == 1 && p.shape[0] == channels), what,
              " (input ", i, ") must be a scalar or have one value per output channel (", channels,
              "), got ", p.to_string());
}

void infer_conv_integer(InferContext& ctx) {
  ctx.check_dtype(0, kQuantTypes);
  ctx.check_dtype(1, kQuantTypes);
  const TensorType& w = ctx.input(1);
  if (ctx.has_input(2)) {
    check_scalar_param(ctx, 2, "x_zero_point");
    LATHE_CHECK(ctx.input(2).dtype == ctx.input(0).dtype, "x_zero_point must have x's dtype");
  }
  if (ctx.has_input(3)) {
    check_weight_param(ctx, 3, w.shape.empty() ? 0 : w.shape[0], "w_zero_point");
    LATHE_CHECK(ctx.input(3).dtype == w.dtype, "w_zero_point must have w's dtype");
  }
  TensorType y = infer_as(ctx, "Conv", {&ctx.input(0), &w})[0];
  ctx.set_output(0, {DType::Int32, y.shape});
}

void infer_matmul_integer(InferContext& ctx) {
  ctx.check_dtype(0, kQuantTypes);
  ctx.check_dtype(1, kQuantTypes);
  const TensorType& b = ctx.input(1);
  if (ctx.has_input(2)) {
    // Per row of A is allowed by ONNX; ORT takes one value. So does Lathe.
    check_scalar_param(ctx, 2, "a_zero_point");
    LATHE_CHECK(ctx.input(2).dtype == ctx.input(0).dtype, "a_zero_point must have A's dtype");
  }
  if (ctx.has_input(3)) {
    check_weight_param(ctx, 3, b.shape.empty() ? 0 : b.shape.back(), "b_zero_point");
    LATHE_CHECK(ctx.input(3).dtype == b.dtype, "b_zero_point must have B's dtype");
  }
  TensorType y = infer_as(ctx, "MatMul", {&ctx.input(0), &b})[0];
  ctx.set_output(0, {DType::Int32, y.shape});
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?).
void infer_qlinear_conv(InferContext& ctx) {
  ctx.check_dtype(0, kQuantTypes);
  ctx.check_dtype(3, kQuantTypes);
  const TensorType& w = ctx.input(3);
  const int64_t filters = w.shape.empty() ? 0 : w.shape[0];
  for (size_t i : {1, 6}) check_scale(ctx, i, "scale");
  check_scale(ctx, 4, "w_scale");
  check_scalar_param(ctx, 1, "x_scale");
  check_scalar_param(ctx, 2, "x_zero_point");
  check_weight_param(ctx, 4, filters, "w_scale");
  check_weight_param(ctx, 5, filters, "w_zero_point");
  check_scalar_param(ctx, 6, "y_scale");
  check_scalar_param(ctx, 7, "y_zero_point");
  ctx.check_dtype(7, kQuantTypes);
  if (ctx.has_input(8)) {
    ctx.check_dtype(8, dtype_bit(DType::Int32));
    LATHE_CHECK(ctx.input(8).shape == Shape{filters}, "QLinearConv bias ", ctx.input(8).to_string(),
                " must be int32[", filters, "]");
  }
  TensorType y = infer_as(ctx, "Conv", {&ctx.input(0), &w})[0];
  ctx.set_output(0, {ctx.input(7).dtype, y.shape});
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
void infer_qlinear_matmul(InferContext& ctx) {
  ctx.check_dtype(0, kQuantTypes);
  ctx.check_dtype(3, kQuantTypes);
  const TensorType& b = ctx.input(3);
  const int64_t columns = b.shape.empty() ? 0 : b.shape.back();
  check_scalar_param(ctx, 1, "a_scale");
  check_scalar_param(ctx, 2, "a_zero_point");
  check_weight_param(ctx, 4, columns, "b_scale");
  check_weight_param(ctx, 5, columns, "b_zero_point");
  check_scalar_param(ctx, 6, "y_scale");
  check_scalar_param(ctx, 7, "y_zero_point");
  ctx.check_dtype(7, kQuantTypes);
  TensorType y = infer_as(ctx, "MatMul", {&ctx.input(0), &b})[0];
  ctx.set_output(0, {ctx.input(7).dtype, y.shape});
}

// com.microsoft.QGemm(A, a_scale, a_zp, B, b_scale, b_zp, C?, y_scale?, y_zp?):
// int32 bias C; a quantized output when y_scale is given, else float32.
void infer_qgemm(InferContext& ctx) {
  ctx.check_dtype(0, kQuantTypes);
  ctx.check_dtype(3, kQuantTypes);
  const TensorType& b = ctx.input(3);
  const bool trans_b = ctx.attrs().get_int("transB", 0) != 0;
  const int64_t columns = b.rank() == 2 ? b.shape[trans_b ? 0 : 1] : 0;
  check_scalar_param(ctx, 1, "a_scale");
  check_scalar_param(ctx, 2, "a_zero_point");
  check_weight_param(ctx, 4, columns, "b_scale");
  check_weight_param(ctx, 5, columns, "b_zero_point");
  if (ctx.has_input(6)) ctx.check_dtype(6, dtype_bit(DType::Int32));
  TensorType y = infer_as(ctx, "Gemm", {&ctx.input(0), &b})[0];
  DType out = DType::Float32;
  if (ctx.has_input(7)) {
    check_scalar_param(ctx, 7, "y_scale");
    LATHE_CHECK(ctx.has_input(8), "QGemm: y_scale without y_zero_point");
    check_scalar_param(ctx, 8, "y_zero_point");
    ctx.check_dtype(8, kQuantTypes);
    out = ctx.input(8).dtype;
  }
  ctx.set_output(0, {out, y.shape});
}

// com.microsoft.QLinearAdd / QLinearMul(A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp).
void infer_qlinear_binary(InferContext& ctx) {
  ctx.check_dtype(0, kQuantTypes);
  LATHE_CHECK(ctx.input(3).dtype == ctx.input(0).dtype, "A ", ctx.input(0).to_string(), " and B ",
              ctx.input(3).to_string(), " must have the same dtype");
  // The zero points (2, 5, 7) are optional.
  for (size_t i : {1, 2, 4, 5, 6, 7})
    if (ctx.has_input(i)) check_scalar_param(ctx, i, "scale or zero point");
  ctx.set_output(0, {ctx.input(0).dtype, broadcast_shapes(ctx.input(0).shape, ctx.input(3).shape)});
}

// com.microsoft.QLinearGlobalAveragePool(X, x_scale, x_zp, y_scale, y_zp).
void infer_qlinear_global_average_pool(InferContext& ctx) {
  ctx.check_dtype(0, kQuantTypes);
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() >= 3, "QLinearGlobalAveragePool input must be N x C x spatial, got ",
              x.to_string());
  for (size_t i : {1, 2, 3, 4})
    if (ctx.has_input(i)) check_scalar_param(ctx, i, "scale or zero point");
  // Blocked by the layout pass ([N, C/b, H, W, b] between int8 convs).
  const TensorLayout layout = pool_layout(ctx);
  if (layout.kind == TensorLayout::Kind::NCHWc) {
    LATHE_CHECK(ctx.attrs().get_int("channels_last", 0) == 0,
                "QLinearGlobalAveragePool: channels_last and layout ", layout.to_string(),
                " exclude each other");
    Shape out = layout.logical_shape(x.shape);
    out[2] = out[3] = 1;
    ctx.set_output(0, {x.dtype, layout.physical_shape(out)});
    return;
  }
  const bool channels_last = ctx.attrs().get_int("channels_last", 0) != 0;
  Shape out = x.shape;
  for (size_t d = channels_last ? 1 : 2; d < out.size() - (channels_last ? 1 : 0); ++d) out[d] = 1;
  ctx.set_output(0, {x.dtype, out});
}

int64_t qlinear_conv_macs(const Node&, const std::vector<TensorType>& in,
                          const std::vector<TensorType>& out) {
  const Shape& w = in[3].shape;
  int64_t per_output = 1;
  for (size_t d = 1; d < w.size(); ++d) per_output *= w[d];
  return out[0].numel() * per_output;
}

int64_t conv_integer_macs(const Node&, const std::vector<TensorType>& in,
                          const std::vector<TensorType>& out) {
  const Shape& w = in[1].shape;
  int64_t per_output = 1;
  for (size_t d = 1; d < w.size(); ++d) per_output *= w[d];
  return out[0].numel() * per_output;
}

int64_t matmul_integer_macs(const Node&, const std::vector<TensorType>& in,
                            const std::vector<TensorType>& out) {
  return out[0].numel() * in[0].shape.back();
}

int64_t qgemm_macs(const Node& node, const std::vector<TensorType>& in,
                   const std::vector<TensorType>& out) {
  const bool trans_a = node.attrs.get_int("transA", 0) != 0;
  return out[0].numel() * in[0].shape[trans_a ? 0 : 1];
}

}  // namespace

void register_quantize_ops(OpRegistry& r) {
  r.define("QuantizeLinear", FusionKind::Broadcast, infer_quantize_linear);
  r.define("DequantizeLinear", FusionKind::Broadcast, infer_dequantize_linear);
  r.define("DynamicQuantizeLinear", FusionKind::Opaque, infer_dynamic_quantize_linear);
  r.define("ConvInteger", FusionKind::OutEWiseFusable, infer_conv_integer).macs = conv_integer_macs;
  r.define("MatMulInteger", FusionKind::OutEWiseFusable, infer_matmul_integer).macs =
      matmul_integer_macs;
  r.define("QLinearConv", FusionKind::OutEWiseFusable, infer_qlinear_conv).macs = qlinear_conv_macs;
  r.define("QLinearMatMul", FusionKind::OutEWiseFusable, infer_qlinear_matmul).macs =
      matmul_integer_macs;
  r.define("com.microsoft.QGemm", FusionKind::OutEWiseFusable, infer_qgemm).macs = qgemm_macs;
  r.define("com.microsoft.QLinearAdd", FusionKind::Broadcast, infer_qlinear_binary);
  r.define("com.microsoft.QLinearMul", FusionKind::Broadcast, infer_qlinear_binary);
  r.define("com.microsoft.QLinearGlobalAveragePool", FusionKind::Opaque,
           infer_qlinear_global_average_pool);
}

}  // namespace lathe

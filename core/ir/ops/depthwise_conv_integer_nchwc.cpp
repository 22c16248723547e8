// Inference of DepthwiseConvIntegerNCHWc (ir/ops/depthwise_conv_integer_nchwc.h).
#include "ir/ops/depthwise_conv_integer_nchwc.h"

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

constexpr const char* kOp = "DepthwiseConvIntegerNCHWc";

void infer_depthwise_conv_integer_nchwc(InferContext& ctx) {
  ctx.check_dtype(0, dtype_bit(DType::UInt8));
  ctx.check_dtype(1, dtype_bit(DType::Int8));
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(1);
  LATHE_CHECK(x.rank() == 5, kOp, ": data must be [N, C/b, H, W, b], got ", x.to_string());
  LATHE_CHECK(w.rank() == 4 && w.shape[0] == x.shape[1] && w.shape[3] == x.shape[4], kOp,
              ": weight must be [C/b, KH, KW, b] for data ", x.to_string(), ", got ",
              w.to_string());
  const int64_t channels = x.shape[1] * x.shape[4];
  if (ctx.has_input(2)) {
    ctx.check_dtype(2, dtype_bit(DType::Int32));
    LATHE_CHECK(ctx.input(2).shape == Shape({x.shape[1], x.shape[4]}), kOp, ": w_sum must be [",
                x.shape[1], ", ", x.shape[4], "], got ", ctx.input(2).to_string());
  }
  if (ctx.has_input(3)) {
    ctx.check_dtype(3, dtype_bit(DType::UInt8));
    LATHE_CHECK(ctx.input(3).numel() == 1 && ctx.input(3).rank() <= 1, kOp,
                ": x_zero_point must be a scalar, got ", ctx.input(3).to_string());
  }
  if (ctx.has_input(4)) {
    ctx.check_dtype(4, dtype_bit(DType::Int8));
    const TensorType& z = ctx.input(4);
    LATHE_CHECK((z.numel() == 1 && z.rank() <= 1) || (z.rank() == 1 && z.shape[0] == channels), kOp,
                ": w_zero_point must be a scalar or have ", channels, " values, got ",
                z.to_string());
  }
  const std::vector<int64_t> strides = ints_or(ctx.attrs(), kOp, "strides", 2, 1);
  const std::vector<int64_t> dilations = ints_or(ctx.attrs(), kOp, "dilations", 2, 1);
  const std::vector<int64_t> pads = ints_or(ctx.attrs(), kOp, "pads", 4, 0);
  Shape out = {x.shape[0], x.shape[1], 0, 0, x.shape[4]};
  for (size_t d = 0; d < 2; ++d) {
    LATHE_CHECK(strides[d] >= 1 && dilations[d] >= 1 && pads[d] >= 0 && pads[2 + d] >= 0, kOp,
                ": strides and dilations must be positive, pads not negative");
    const int64_t padded = x.shape[2 + d] + pads[d] + pads[2 + d];
    const int64_t extent = (w.shape[1 + d] - 1) * dilations[d] + 1;
    LATHE_CHECK(padded >= extent, kOp, ": spatial dimension ", d, ": padded input extent ", padded,
                " is smaller than the window extent ", extent);
    out[2 + d] = (padded - extent) / strides[d] + 1;
  }
  ctx.set_output(0, {DType::Int32, out});
}

void infer_grouped_conv_integer_nchwc(InferContext& ctx) {
  constexpr const char* op = "GroupedConvIntegerNCHWc";
  ctx.check_dtype(0, dtype_bit(DType::UInt8));
  ctx.check_dtype(1, dtype_bit(DType::Int8));
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(1);
  LATHE_CHECK(x.rank() == 5 && x.shape[4] == 16, op, ": data must be [N, C/16, H, W, 16], got ",
              x.to_string());
  LATHE_CHECK(w.rank() == 7 && w.shape[0] == x.shape[1] && w.shape[1] == 1 && w.shape[4] == 4 &&
                  w.shape[5] == 16 && w.shape[6] == 4,
              op, ": weight must be [C/16, 1, KH, KW, 4, 16, 4] for data ", x.to_string(), ", got ",
              w.to_string());
  if (ctx.has_input(2)) {
    ctx.check_dtype(2, dtype_bit(DType::Int32));
    LATHE_CHECK(ctx.input(2).shape == Shape({x.shape[1], 16}), op, ": w_sum must be [", x.shape[1],
                ", 16], got ", ctx.input(2).to_string());
  }
  if (ctx.has_input(3)) {
    ctx.check_dtype(3, dtype_bit(DType::UInt8));
    LATHE_CHECK(ctx.input(3).numel() == 1 && ctx.input(3).rank() <= 1, op,
                ": x_zero_point must be a scalar, got ", ctx.input(3).to_string());
  }
  const std::vector<int64_t> strides = ints_or(ctx.attrs(), kOp, "strides", 2, 1);
  const std::vector<int64_t> dilations = ints_or(ctx.attrs(), kOp, "dilations", 2, 1);
  const std::vector<int64_t> pads = ints_or(ctx.attrs(), kOp, "pads", 4, 0);
  Shape out = {x.shape[0], x.shape[1], 0, 0, 16};
  for (size_t d = 0; d < 2; ++d) {
    LATHE_CHECK(strides[d] >= 1 && dilations[d] >= 1 && pads[d] >= 0 && pads[2 + d] >= 0, op,
                ": strides and dilations must be positive, pads not negative");
    const int64_t padded = x.shape[2 + d] + pads[d] + pads[2 + d];
    const int64_t extent = (w.shape[2 + d] - 1) * dilations[d] + 1;
    LATHE_CHECK(padded >= extent, op, ": spatial dimension ", d, ": padded input extent ", padded,
                " is smaller than the window extent ", extent);
    out[2 + d] = (padded - extent) / strides[d] + 1;
  }
  ctx.set_output(0, {DType::Int32, out});
}

// KH x KW multiply-adds per output element.
int64_t depthwise_conv_integer_nchwc_macs(const Node&, const std::vector<TensorType>& in,
                                          const std::vector<TensorType>& out) {
  return out[0].numel() * in[1].shape[1] * in[1].shape[2];
}

// The block-diagonal product's: 16 x KH x KW per output element.
int64_t grouped_conv_integer_nchwc_macs(const Node&, const std::vector<TensorType>& in,
                                        const std::vector<TensorType>& out) {
  return out[0].numel() * 16 * in[1].shape[2] * in[1].shape[3];
}

}  // namespace

void register_depthwise_conv_integer_nchwc_op(OpRegistry& r) {
  r.define(kOp, FusionKind::OutEWiseFusable, infer_depthwise_conv_integer_nchwc).macs =
      depthwise_conv_integer_nchwc_macs;
  r.define("GroupedConvIntegerNCHWc", FusionKind::OutEWiseFusable, infer_grouped_conv_integer_nchwc)
      .macs = grouped_conv_integer_nchwc_macs;
}

}  // namespace lathe

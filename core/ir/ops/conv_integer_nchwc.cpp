// Inference of ConvIntegerNCHWc (ir/ops/conv_integer_nchwc.h).
#include "ir/ops/conv_integer_nchwc.h"

#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

void infer_conv_integer_nchwc(InferContext& ctx) {
  ctx.check_dtype(0, dtype_bit(DType::UInt8));
  ctx.check_dtype(1, dtype_bit(DType::Int8));
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(1);
  LATHE_CHECK(x.rank() == 5, "ConvIntegerNCHWc: data must be [N, C/ib, H, W, ib], got ",
              x.to_string());
  LATHE_CHECK(w.rank() == 7 && w.shape[5] == kConvIntegerLanes && w.shape[6] == kConvIntegerGroup &&
                  w.shape[1] == x.shape[1] && w.shape[4] * kConvIntegerGroup == x.shape[4],
              "ConvIntegerNCHWc: weight must be [OC/16, C/ib, KH, KW, ib/4, 16, 4] for data ",
              x.to_string(), ", got ", w.to_string());
  const int64_t filters = w.shape[0] * kConvIntegerLanes;
  if (ctx.has_input(2)) {
    ctx.check_dtype(2, dtype_bit(DType::Int32));
    LATHE_CHECK(ctx.input(2).shape == Shape({w.shape[0], kConvIntegerLanes}),
                "ConvIntegerNCHWc: w_sum must be [", w.shape[0], ", 16], got ",
                ctx.input(2).to_string());
  }
  if (ctx.has_input(3)) {
    ctx.check_dtype(3, dtype_bit(DType::UInt8));
    LATHE_CHECK(ctx.input(3).numel() == 1 && ctx.input(3).rank() <= 1,
                "ConvIntegerNCHWc: x_zero_point must be a scalar, got ", ctx.input(3).to_string());
  }
  if (ctx.has_input(4)) {
    ctx.check_dtype(4, dtype_bit(DType::Int8));
    const TensorType& z = ctx.input(4);
    LATHE_CHECK((z.numel() == 1 && z.rank() <= 1) || (z.rank() == 1 && z.shape[0] == filters),
                "ConvIntegerNCHWc: w_zero_point must be a scalar or have ", filters,
                " values, got ", z.to_string());
  }
  const std::vector<int64_t> strides = ints_or(ctx.attrs(), "ConvIntegerNCHWc", "strides", 2, 1);
  const std::vector<int64_t> dilations =
      ints_or(ctx.attrs(), "ConvIntegerNCHWc", "dilations", 2, 1);
  const std::vector<int64_t> pads = ints_or(ctx.attrs(), "ConvIntegerNCHWc", "pads", 4, 0);
  Shape out = {x.shape[0], w.shape[0], 0, 0, kConvIntegerLanes};
  for (size_t d = 0; d < 2; ++d) {
    LATHE_CHECK(strides[d] >= 1 && dilations[d] >= 1 && pads[d] >= 0 && pads[2 + d] >= 0,
                "ConvIntegerNCHWc: strides and dilations must be positive, pads not negative");
    const int64_t padded = x.shape[2 + d] + pads[d] + pads[2 + d];
    const int64_t extent = (w.shape[2 + d] - 1) * dilations[d] + 1;
    LATHE_CHECK(padded >= extent, "ConvIntegerNCHWc: spatial dimension ", d,
                ": padded input extent ", padded, " is smaller than the window extent ", extent);
    out[2 + d] = (padded - extent) / strides[d] + 1;
  }
  ctx.set_output(0, {DType::Int32, out});
}

// As ConvInteger: C x KH x KW multiply-adds per output element.
int64_t conv_integer_nchwc_macs(const Node&, const std::vector<TensorType>& in,
                                const std::vector<TensorType>& out) {
  const Shape& w = in[1].shape;
  return out[0].numel() * w[1] * w[2] * w[3] * w[4] * kConvIntegerGroup;
}

}  // namespace

void register_conv_integer_nchwc_op(OpRegistry& r) {
  r.define("ConvIntegerNCHWc", FusionKind::OutEWiseFusable, infer_conv_integer_nchwc).macs =
      conv_integer_nchwc_macs;
}

}  // namespace lathe

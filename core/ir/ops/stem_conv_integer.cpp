// Inference of StemConvInteger (ir/ops/stem_conv_integer.h).
#include "ir/ops/stem_conv_integer.h"

#include "ir/ops/conv_integer_nchwc.h"
#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

constexpr const char* kOp = "StemConvInteger";

std::vector<int64_t> ints_or(const Attributes& attrs, const char* name, int64_t fallback) {
  std::vector<int64_t> v = attrs.get_ints(name);
  if (v.empty()) return {fallback, fallback};
  LATHE_CHECK(v.size() == 2, kOp, ": attribute '", name, "' has ", v.size(), " values, expected 2");
  return v;
}

void infer_stem_conv_integer(InferContext& ctx) {
  ctx.check_dtype(0, dtype_bit(DType::UInt8));
  ctx.check_dtype(1, dtype_bit(DType::Int8));
  const StemConvGeometry g = StemConvGeometry::of(ctx.attrs());
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(1);
  LATHE_CHECK(x.rank() == 3, kOp, ": data must be padded rows [N, HP, WR], got ", x.to_string());
  LATHE_CHECK(w.rank() == 5 && w.shape[1] == g.kernel_h && w.shape[2] == g.quads() &&
                  w.shape[3] == kConvIntegerLanes && w.shape[4] == kConvIntegerGroup,
              kOp, ": weight must be [OC/16, ", g.kernel_h, ", ", g.quads(), ", 16, 4] for a ",
              g.kernel_h, "x", g.kernel_w, " kernel on ", g.channels, " channels, got ",
              w.to_string());
  const int64_t filters = w.shape[0] * kConvIntegerLanes;
  if (ctx.has_input(2)) {
    ctx.check_dtype(2, dtype_bit(DType::Int32));
    LATHE_CHECK(ctx.input(2).shape == Shape({w.shape[0], kConvIntegerLanes}), kOp,
                ": w_sum must be [", w.shape[0], ", 16], got ", ctx.input(2).to_string());
  }
  if (ctx.has_input(3)) {
    ctx.check_dtype(3, dtype_bit(DType::UInt8));
    LATHE_CHECK(ctx.input(3).numel() == 1 && ctx.input(3).rank() <= 1, kOp,
                ": x_zero_point must be a scalar, got ", ctx.input(3).to_string());
  }
  if (ctx.has_input(4)) {
    ctx.check_dtype(4, dtype_bit(DType::Int8));
    const TensorType& z = ctx.input(4);
    LATHE_CHECK((z.numel() == 1 && z.rank() <= 1) || (z.rank() == 1 && z.shape[0] == filters), kOp,
                ": w_zero_point must be a scalar or have ", filters, " values, got ",
                z.to_string());
  }
  const int64_t extent = (g.kernel_h - 1) * g.dilation_h + 1;
  LATHE_CHECK(x.shape[1] >= extent, kOp, ": ", x.shape[1], " rows, fewer than the window's ",
              extent);
  const int64_t row_bytes = (g.output_width - 1) * g.stride_w * g.channels + 4 * g.quads();
  LATHE_CHECK(x.shape[2] >= row_bytes, kOp, ": rows of ", x.shape[2], " bytes, but ",
              g.output_width, " output pixels read ", row_bytes);
  const int64_t oh = (x.shape[1] - extent) / g.stride_h + 1;
  ctx.set_output(0,
                 {DType::Int32, {x.shape[0], w.shape[0], oh, g.output_width, kConvIntegerLanes}});
}

// As ConvInteger: C x KH x KW multiply-adds per output element.
int64_t stem_conv_integer_macs(const Node& node, const std::vector<TensorType>&,
                               const std::vector<TensorType>& out) {
  const StemConvGeometry g = StemConvGeometry::of(node.attrs);
  return out[0].numel() * g.channels * g.kernel_h * g.kernel_w;
}

}  // namespace

StemConvGeometry StemConvGeometry::of(const Attributes& attrs) {
  StemConvGeometry g;
  g.channels = attrs.get_int("channels", 0);
  const std::vector<int64_t> kernel = attrs.get_ints("kernel_shape");
  LATHE_CHECK(kernel.size() == 2 && kernel[0] > 0 && kernel[1] > 0, kOp,
              ": attribute 'kernel_shape' must be [KH, KW], positive");
  g.kernel_h = kernel[0];
  g.kernel_w = kernel[1];
  const std::vector<int64_t> strides = ints_or(attrs, "strides", 1);
  const std::vector<int64_t> dilations = ints_or(attrs, "dilations", 1);
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dilations[0];
  g.output_width = attrs.get_int("output_width", 0);
  LATHE_CHECK(g.channels > 0 && g.output_width > 0, kOp,
              ": attributes 'channels' and 'output_width' must be positive");
  LATHE_CHECK(g.stride_h > 0 && g.stride_w > 0 && g.dilation_h > 0, kOp,
              ": strides and dilations must be positive");
  LATHE_CHECK(dilations[1] == 1, kOp, ": the kernel width cannot be dilated (dilation ",
              dilations[1], "): its taps would not be contiguous");
  return g;
}

void register_stem_conv_integer_op(OpRegistry& r) {
  r.define(kOp, FusionKind::OutEWiseFusable, infer_stem_conv_integer).macs = stem_conv_integer_macs;
}

}  // namespace lathe

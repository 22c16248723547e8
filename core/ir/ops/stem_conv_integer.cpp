// Inference of StemConvInteger (ir/ops/stem_conv_integer.h).
#include "ir/ops/stem_conv_integer.h"

#include "ir/ops/conv_integer_nchwc.h"
#include "ir/ops/infer_util.h"

namespace lathe {
namespace {

constexpr const char* kOp = "StemConvInteger";

void infer_stem_conv_integer(InferContext& ctx) {
  ctx.check_dtype(0, dtype_bit(DType::UInt8));
  ctx.check_dtype(1, dtype_bit(DType::Int8));
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() == 4, kOp, ": data must be [N, C, H, W], got ", x.to_string());
  const StemConvGeometry g = StemConvGeometry::of(ctx.attrs(), x.shape);
  const TensorType& w = ctx.input(1);
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
  ctx.set_output(
      0, {DType::Int32,
          {x.shape[0], w.shape[0], g.output_height(), g.output_width(), kConvIntegerLanes}});
}

// As ConvInteger: C x KH x KW multiply-adds per output element.
int64_t stem_conv_integer_macs(const Node& node, const std::vector<TensorType>& in,
                               const std::vector<TensorType>& out) {
  const StemConvGeometry g = StemConvGeometry::of(node.attrs, in[0].shape);
  return out[0].numel() * g.channels * g.kernel_h * g.kernel_w;
}

}  // namespace

StemConvGeometry StemConvGeometry::of(const Attributes& attrs, const Shape& input) {
  LATHE_CHECK(input.size() == 4, kOp, ": data must be [N, C, H, W]");
  StemConvGeometry g;
  g.channels = input[1];
  g.height = input[2];
  g.width = input[3];
  const std::vector<int64_t> kernel = attrs.get_ints("kernel_shape");
  LATHE_CHECK(kernel.size() == 2 && kernel[0] > 0 && kernel[1] > 0, kOp,
              ": attribute 'kernel_shape' must be [KH, KW], positive");
  g.kernel_h = kernel[0];
  g.kernel_w = kernel[1];
  const std::vector<int64_t> strides = ints_or(attrs, kOp, "strides", 2, 1);
  const std::vector<int64_t> dilations = ints_or(attrs, kOp, "dilations", 2, 1);
  const std::vector<int64_t> pads = ints_or(attrs, kOp, "pads", 4, 0);
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dilations[0];
  g.pad_top = pads[0];
  g.pad_left = pads[1];
  g.pad_bottom = pads[2];
  g.pad_right = pads[3];
  LATHE_CHECK(g.stride_h > 0 && g.stride_w > 0 && g.dilation_h > 0, kOp,
              ": strides and dilations must be positive");
  LATHE_CHECK(pads[0] >= 0 && pads[1] >= 0 && pads[2] >= 0 && pads[3] >= 0, kOp,
              ": pads must not be negative");
  LATHE_CHECK(dilations[1] == 1, kOp, ": the kernel width cannot be dilated (dilation ",
              dilations[1], "): its taps would not be contiguous");
  LATHE_CHECK(g.channels > 0 &&
                  g.height + g.pad_top + g.pad_bottom >= (g.kernel_h - 1) * g.dilation_h + 1 &&
                  g.width + g.pad_left + g.pad_right >= g.kernel_w,
              kOp, ": the padded input is smaller than the window");
  return g;
}

void register_stem_conv_integer_op(OpRegistry& r) {
  r.define(kOp, FusionKind::OutEWiseFusable, infer_stem_conv_integer).macs = stem_conv_integer_macs;
}

}  // namespace lathe

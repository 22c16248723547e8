// ConvInteger and MatMulInteger in the graph compiler: their computes
// (topi/int8.h: packed for the int8 dot product, zero points corrected
// after it) and the templates of the groups they anchor, whose default
// config is the x86 schedule with the product tensorized. The group's
// elementwise epilogue (the requantization the quantized-model pass puts
// after them) is inlined into the group's output, which runs in parallel
// and in vectors; the anchor's int32 result stays a stage of its own.
//
// The ops themselves (shape inference, reference kernels) are the quantized
// import's (core/ir/ops/quantize.cpp). Shapes the packed kernels do not take
// get the generic computes (int8.h); the templates below then find none of
// their stages and the group falls back to the generic template
// (tune::template_search_space).
#include <algorithm>
#include <utility>

#include "ir/ops/window_geometry.h"
#include "support/error.h"
#include "topi/group_schedule.h"
#include "topi/int8.h"
#include "topi/int8_dense_packed.h"
#include "topi/op_compute.h"

namespace lathe::topi {
namespace {

using schedule::Schedule;
using schedule::Stage;
using te::IterVar;

QuantOperand operand(const ComputeContext& ctx, size_t value, size_t zero_point) {
  return {ctx.input(value), ctx.has_input(zero_point) ? ctx.input(zero_point) : Tensor()};
}

int64_t input_block(int64_t channels) {
  const int64_t d = largest_divisor(channels, 16);
  return d % 4 == 0 ? d : std::min<int64_t>(16, (channels + 3) / 4 * 4);
}

// ConvInteger(x, w, x_zero_point, w_zero_point).
std::vector<te::Tensor> conv_integer_compute(const ComputeContext& ctx) {
  const Shape& x = ctx.input_type(0).shape;
  const Shape& w = ctx.input_type(1).shape;
  const Shape& y = ctx.output_type(0).shape;
  if (x.size() != 4 || w.size() != 4) return generic_conv_integer(ctx);
  const SpatialWindow s = resolve_window(ctx.attrs(), {x[2], x[3]}, {y[2], y[3]}, {w[2], w[3]});
  Conv2dParams p;
  p.stride_h = s.strides[0];
  p.stride_w = s.strides[1];
  p.dilation_h = s.dilations[0];
  p.dilation_w = s.dilations[1];
  p.pad_top = s.pad_begin[0];
  p.pad_left = s.pad_begin[1];
  p.pad_bottom = s.pad_end[0];
  p.pad_right = s.pad_end[1];
  p.groups = ctx.attrs().get_int("group", 1);
  const QuantOperand qx = operand(ctx, 0, 2), qw = operand(ctx, 1, 3);
  if (p.groups > 1 && p.groups == x[1] && w[0] == x[1] && w[1] == 1)
    return {depthwise_conv2d_integer(qx, qw, p, ctx.name())};
  if (p.groups != 1) return generic_conv_integer(ctx);
  return {conv2d_integer_nchwc(qx, qw, p, input_block(x[1]), ctx.name()).output};
}

// ConvIntegerNCHWc(x, w, w_sum, x_zero_point, w_zero_point): the layout
// pass's form, its weight and sums constants packed at compile time.
std::vector<te::Tensor> conv_integer_nchwc_compute(const ComputeContext& ctx) {
  const Conv2dParams p = packed_conv2d_params(ctx.attrs());
  const Tensor w_sum = ctx.has_input(2) ? ctx.input(2) : Tensor();
  return {
      conv2d_integer_packed(operand(ctx, 0, 3), operand(ctx, 1, 4), w_sum, p, ctx.name()).output};
}

// MatMulInteger(a, b, a_zero_point, b_zero_point).
std::vector<te::Tensor> matmul_integer_compute(const ComputeContext& ctx) {
  if (ctx.input_type(0).rank() < 2 || ctx.input_type(1).rank() != 2)
    return generic_matmul_integer(ctx);
  return {matmul_integer(operand(ctx, 0, 2), operand(ctx, 1, 3), ctx.name()).output};
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// `space` (a template of the product alone, `k.output = k.product`) followed
// by the group's epilogue, with the anchor (the zero-point correction)
// inlined into it, so that the int32 product is read once and not copied
// into a second int32 buffer.
SearchSpace with_inlined_anchor(SearchSpace space, const Tensor& anchor,
                                const std::vector<Tensor>& outputs) {
  auto kernel = space.apply;
  space.apply = [kernel, anchor, outputs](Schedule& s, const Config& config) {
    kernel(s, config);
    schedule_int8_epilogue(s, anchor, outputs);
    s[anchor].compute_inline();
  };
  return space;
}

SearchSpace conv_integer_template(const Tensor& anchor, const std::vector<Tensor>& outputs,
                                  const VectorUnit& vector_unit) {
  if (tag_of(anchor) == "depthwise_conv_integer") {
    SearchSpace space;
    space.name = "depthwise_conv_integer.x86";
    const int64_t lanes = vector_unit.lanes(4);
    space.apply = [anchor, lanes](Schedule& s, const Config&) {
      schedule_depthwise_conv2d_integer_x86(s, anchor, lanes);
    };
    return with_epilogue(space, anchor, outputs);
  }
  // The packed form (ConvIntegerNCHWc), its correction elementwise in the
  // product: inlined into the epilogue, so the int32 sums are read once. An
  // epilogue of one output of the product's shape (the requantization, a
  // residual QLinearAdd) is fused with the product tile by tile.
  if (anchor.ndim() == 5 && outputs.size() == 1 && !outputs[0].same_as(anchor) &&
      outputs[0].shape() == anchor.shape()) {
    Int8Kernel k = int8_kernel_of(anchor);
    k.output = outputs[0];
    return with_tile_epilogue(conv2d_int8_fused_template(k, vector_unit), anchor, outputs);
  }
  if (anchor.ndim() == 5 && !is_output(outputs, anchor)) {
    Int8Kernel k = int8_kernel_of(anchor);
    k.output = k.product;  // no root stage for the anchor
    return with_inlined_anchor(conv2d_int8_template(k), anchor, outputs);
  }
  return with_epilogue(conv2d_int8_template(int8_kernel_of(anchor)), anchor, outputs);
}

SearchSpace matmul_integer_template(const Tensor& anchor, const std::vector<Tensor>& outputs,
                                    const VectorUnit&) {
  // As the packed conv: the zero-point correction inlined into the float
  // rescale epilogue (Cast → Mul → Add ...), so the int32 product is read
  // once, not copied into a second int32 buffer by a serial root stage.
  if (tag_of(anchor) == "matmul_integer" && !is_output(outputs, anchor)) {
    Int8Kernel k = int8_kernel_of(anchor);
    k.output = k.product;  // no root stage for the anchor
    if (outputs.size() == 1) {
      // The product's tiles computed inside the epilogue's loops.
      SearchSpace tiled = matmul_int8_tile_epilogue_template(k, outputs[0]);
      if (tiled.apply) return with_tile_epilogue(std::move(tiled), anchor, outputs);
    }
    return with_inlined_anchor(matmul_int8_template(k), anchor, outputs);
  }
  return with_epilogue(matmul_int8_template(int8_kernel_of(anchor)), anchor, outputs);
}

}  // namespace

Conv2dParams packed_conv2d_params(const Attributes& attrs) {
  auto ints = [&](const char* name, std::vector<int64_t> fallback) {
    std::vector<int64_t> v = attrs.get_ints(name);
    return v.empty() ? fallback : v;
  };
  const std::vector<int64_t> strides = ints("strides", {1, 1});
  const std::vector<int64_t> dilations = ints("dilations", {1, 1});
  const std::vector<int64_t> pads = ints("pads", {0, 0, 0, 0});
  Conv2dParams p;
  p.stride_h = strides[0];
  p.stride_w = strides[1];
  p.dilation_h = dilations[0];
  p.dilation_w = dilations[1];
  p.pad_top = pads[0];
  p.pad_left = pads[1];
  p.pad_bottom = pads[2];
  p.pad_right = pads[3];
  return p;
}

// The group's stages between the anchor and its outputs inlined, the outputs
// left to the caller.
void inline_epilogue(Schedule& s, const Tensor& anchor, const std::vector<Tensor>& outputs) {
  OpSet seen;
  std::vector<Tensor> stack(outputs.begin(), outputs.end());
  while (!stack.empty()) {
    Tensor t = stack.back();
    stack.pop_back();
    if (t.same_as(anchor) || !t.op().as_compute() || !seen.insert(t.op()).second) continue;
    if (!is_output(outputs, t)) s[t].compute_inline();
    for (const Tensor& in : t.op().input_tensors()) stack.push_back(in);
  }
}

SearchSpace with_epilogue(SearchSpace space, const Tensor& anchor,
                          const std::vector<Tensor>& outputs) {
  auto kernel = space.apply;
  space.apply = [kernel, anchor, outputs](Schedule& s, const Config& config) {
    kernel(s, config);
    schedule_int8_epilogue(s, anchor, outputs);
  };
  return space;
}

SearchSpace with_tile_epilogue(SearchSpace space, const Tensor& anchor,
                               const std::vector<Tensor>& outputs) {
  auto kernel = space.apply;
  space.apply = [kernel, anchor, outputs](Schedule& s, const Config& config) {
    inline_epilogue(s, anchor, outputs);
    s[anchor].compute_inline();
    kernel(s, config);
  };
  return space;
}

// The stages of an integer kernel, found from its output (the anchor).
Int8Kernel int8_kernel_of(const Tensor& anchor) {
  Int8Kernel k;
  k.output = anchor;
  for (const Tensor& t : anchor.op().input_tensors()) {
    const std::string& tag = tag_of(t);
    if (tag == "conv2d_NCHWc_int8" || tag == "dense_int8" || tag == "conv2d_stem_int8")
      k.product = t;
    if (ends_with(t.name(), "_data_sum")) k.data_sum = t;
    if (ends_with(t.name(), "_weight_sum")) k.weight_sum = t;
  }
  LATHE_CHECK(k.product.defined(), "the anchor '", anchor.name(),
              "' reads no tensorizable int8 product (another compute made it)");
  const std::vector<Tensor> in = k.product.op().input_tensors();
  LATHE_CHECK(in.size() == 2, "the int8 product reads ", in.size(), " tensors");
  k.data = in[0];
  k.weights = in[1];
  return k;
}

// The group's epilogue: its stages between the anchor and the outputs
// inlined, each output in parallel over its outer axes and in vectors of 16
// along its last where that divides it.
void schedule_int8_epilogue(Schedule& s, const Tensor& anchor, const std::vector<Tensor>& outputs) {
  inline_epilogue(s, anchor, outputs);
  for (const Tensor& out : outputs) {
    if (out.same_as(anchor)) continue;
    Stage st = s[out];
    std::vector<IterVar> ax = st.axis();
    if (ax.size() >= 2) {
      IterVar outer = ax[0];
      for (size_t i = 1; i + 1 < ax.size(); ++i) outer = st.fuse(outer, ax[i]);
      st.parallel(outer);
    }
    if (out.shape().back() % 16 == 0) {
      auto [o, i] = st.split(ax.back(), 16);
      st.vectorize(i);
    }
  }
}

void register_int8_computes(OpStrategyRegistry& registry) {
  registry.define_compute("ConvInteger", conv_integer_compute);
  registry.define_template("ConvInteger", conv_integer_template);
  registry.define_compute("ConvIntegerNCHWc", conv_integer_nchwc_compute);
  registry.define_template("ConvIntegerNCHWc", conv_integer_template);
  registry.define_compute("MatMulInteger", matmul_integer_compute);
  registry.define_template("MatMulInteger", matmul_integer_template);
  registry.define_compute("MatMulIntegerPacked", matmul_integer_packed_compute);
  registry.define_template("MatMulIntegerPacked", matmul_integer_template);
}

}  // namespace lathe::topi

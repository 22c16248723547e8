// Inference for the nn op family: convolutions, pools, normalizations, Gemm,
// MatMul, Softmax/LogSoftmax, PRelu and LRN, with their fusion kinds and MACs.
#include <algorithm>
#include <string>

#include "ir/ops/col2im_geometry.h"
#include "ir/ops/infer_util.h"
#include "ir/ops/layout.h"
#include "ir/ops/nn_dtypes.h"
#include "ir/ops/window_geometry.h"
#include "support/int_math.h"

namespace lathe {
namespace {

// The checks every N x C x D1 x ... x Dn input of this family shares.
void check_spatial_input(const TensorType& x, const char* what) {
  LATHE_CHECK(x.rank() >= 3, what, " input must have rank >= 3 (N x C x spatial...), got ",
              x.to_string());
}

// Checks that a per-channel input (BatchNormalization's scale, ...) is [C].
void check_per_channel(const InferContext& ctx, size_t i, int64_t channels, const char* what) {
  const TensorType& t = ctx.input(i);
  LATHE_CHECK(t.rank() == 1 && t.shape[0] == channels, what, " (input ", i, ") must be [", channels,
              "], got ", t.to_string());
}

void infer_conv(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  check_same_dtype(ctx);
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(1);
  check_spatial_input(x, "Conv");
  LATHE_CHECK(w.rank() == x.rank(), "Conv weight ", w.to_string(), " must have the rank of X ",
              x.to_string());
  const size_t n = static_cast<size_t>(x.rank() - 2);
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t channels = x.shape[1], filters = w.shape[0];
  LATHE_CHECK(group >= 1 && channels % group == 0 && filters % group == 0, "Conv group ", group,
              " must divide both the input channels ", channels, " and the filters ", filters);
  LATHE_CHECK(w.shape[1] * group == channels, "Conv weight ", w.to_string(), " expects ",
              w.shape[1] * group, " input channels with group ", group, ", X ", x.to_string(),
              " has ", channels);
  Shape kernel(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> ks = ctx.attrs().get_ints("kernel_shape");
  LATHE_CHECK(ks.empty() || ks == kernel, "Conv kernel_shape ", shape_to_string(ks),
              " does not match the weight ", w.to_string());
  if (ctx.has_input(2)) check_per_channel(ctx, 2, filters, "Conv bias");
  std::vector<int64_t> strides = spatial_ints(ctx.attrs(), "strides", n, 1, 1);
  std::vector<int64_t> dilations = spatial_ints(ctx.attrs(), "dilations", n, 1, 1);
  Shape dilated(n);
  for (size_t d = 0; d < n; ++d) dilated[d] = (kernel[d] - 1) * dilations[d] + 1;
  Shape in(x.shape.begin() + 2, x.shape.end());
  Shape out = {x.shape[0], filters};
  for (int64_t e : window_output_extents(ctx.attrs(), in, dilated, strides, false))
    out.push_back(e);
  ctx.set_output(0, {x.dtype, out});
}

void infer_conv_transpose(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  check_same_dtype(ctx);
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(1);
  check_spatial_input(x, "ConvTranspose");
  LATHE_CHECK(w.rank() == x.rank(), "ConvTranspose weight ", w.to_string(),
              " must have the rank of X ", x.to_string());
  const size_t n = static_cast<size_t>(x.rank() - 2);
  const int64_t group = ctx.attrs().get_int("group", 1);
  const int64_t channels = x.shape[1];
  LATHE_CHECK(group >= 1 && channels % group == 0, "ConvTranspose group ", group,
              " must divide the input channels ", channels);
  LATHE_CHECK(w.shape[0] == channels, "ConvTranspose weight ", w.to_string(), " expects ",
              w.shape[0], " input channels, X ", x.to_string(), " has ", channels);
  const int64_t filters = w.shape[1] * group;
  Shape kernel(w.shape.begin() + 2, w.shape.end());
  std::vector<int64_t> ks = ctx.attrs().get_ints("kernel_shape");
  LATHE_CHECK(ks.empty() || ks == kernel, "ConvTranspose kernel_shape ", shape_to_string(ks),
              " does not match the weight ", w.to_string());
  if (ctx.has_input(2)) check_per_channel(ctx, 2, filters, "ConvTranspose bias");
  std::vector<int64_t> strides = spatial_ints(ctx.attrs(), "strides", n, 1, 1);
  std::vector<int64_t> dilations = spatial_ints(ctx.attrs(), "dilations", n, 1, 1);
  std::vector<int64_t> output_padding = spatial_ints(ctx.attrs(), "output_padding", n, 0, 0);
  const AutoPad mode = auto_pad(ctx.attrs());
  const std::vector<int64_t> pads = explicit_pads(ctx.attrs(), mode, n);
  std::vector<int64_t> output_shape = ctx.attrs().get_ints("output_shape");
  // output_shape may name the spatial extents only or, as some exporters
  // write it, the whole output shape.
  if (output_shape.size() == n + 2)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  LATHE_CHECK(output_shape.empty() || output_shape.size() == n, "ConvTranspose output_shape ",
              shape_to_string(output_shape), " must have one value per spatial dimension");
  Shape out = {x.shape[0], filters};
  for (size_t d = 0; d < n; ++d) {
    LATHE_CHECK(output_padding[d] < std::max(strides[d], dilations[d]),
                "ConvTranspose output_padding ", output_padding[d],
                " must be smaller than the stride or the dilation");
    int64_t in = x.shape[2 + d];
    if (!output_shape.empty()) {
      out.push_back(output_shape[d]);
    } else if (is_same_padding(mode)) {
      out.push_back(in * strides[d]);
    } else {
      int64_t full = strides[d] * (in - 1) + output_padding[d] + (kernel[d] - 1) * dilations[d] + 1;
      out.push_back(full - pads[d] - pads[n + d]);
    }
    LATHE_CHECK(out.back() > 0, "ConvTranspose output extent ", out.back(),
                " of spatial dimension ", d, " is not positive");
  }
  ctx.set_output(0, {x.dtype, out});
}

template <DTypeSet kTypes>
void infer_pool(InferContext& ctx) {
  ctx.check_dtype(0, kTypes);
  const TensorLayout layout = pool_layout(ctx);
  const bool blocked = layout.kind == TensorLayout::Kind::NCHWc;
  const TensorType& input = ctx.input(0);
  const TensorType x = {input.dtype, blocked ? layout.logical_shape(input.shape) : input.shape};
  const std::string& op = ctx.node().op;
  check_spatial_input(x, op.c_str());
  const size_t n = static_cast<size_t>(x.rank() - 2);
  std::vector<int64_t> kernel = ctx.attrs().get_ints("kernel_shape");
  LATHE_CHECK(kernel.size() == n, op,
              " needs a kernel_shape with one value per spatial dimension of X ", x.to_string(),
              ", got ", shape_to_string(kernel));
  for (int64_t k : kernel) LATHE_CHECK(k >= 1, op, " kernel_shape must be positive");
  std::vector<int64_t> strides = spatial_ints(ctx.attrs(), "strides", n, 1, 1);
  std::vector<int64_t> dilations = spatial_ints(ctx.attrs(), "dilations", n, 1, 1);
  Shape dilated(n);
  for (size_t d = 0; d < n; ++d) dilated[d] = (kernel[d] - 1) * dilations[d] + 1;
  const bool ceil_mode = ctx.attrs().get_int("ceil_mode", 0) != 0;
  Shape in(x.shape.begin() + 2, x.shape.end());
  Shape out = {x.shape[0], x.shape[1]};
  for (int64_t e : window_output_extents(ctx.attrs(), in, dilated, strides, ceil_mode))
    out.push_back(e);
  const int64_t storage_order = ctx.attrs().get_int("storage_order", 0);
  LATHE_CHECK(storage_order == 0 || storage_order == 1, "storage_order must be 0 or 1, got ",
              storage_order);
  if (blocked) {
    const std::vector<ValueId>& outputs = ctx.node().outputs;
    LATHE_CHECK(outputs.size() < 2 || outputs[1] == kNoValue, op, " in layout ", layout.to_string(),
                " has no Indices output");
    ctx.set_output(0, {x.dtype, layout.physical_shape(out)});
    return;
  }
  ctx.set_output(0, {x.dtype, out});
  ctx.set_output(1, {DType::Int64, out});  // MaxPool's optional Indices
}

void infer_global_pool(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  const TensorLayout layout = pool_layout(ctx);
  const TensorType& x = ctx.input(0);
  if (layout.kind == TensorLayout::Kind::NCHWc) {
    Shape out = layout.logical_shape(x.shape);
    out[2] = out[3] = 1;
    ctx.set_output(0, {x.dtype, layout.physical_shape(out)});
    return;
  }
  check_spatial_input(x, ctx.node().op.c_str());
  Shape out = x.shape;
  std::fill(out.begin() + 2, out.end(), 1);
  ctx.set_output(0, {x.dtype, out});
}

void infer_batch_norm(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  const TensorType& x = ctx.input(0);
  // Lathe compiles inference graphs: training mode's batch statistics and
  // running-stat outputs are not supported.
  if (ctx.attrs().get_int("training_mode", 0) != 0)
    fail_unsupported("BatchNormalization in training mode");
  LATHE_CHECK(x.rank() >= 2, "BatchNormalization input X must have rank >= 2, got ", x.to_string());
  for (size_t i = 1; i < 5; ++i) {
    if (ctx.input(i).dtype != x.dtype)
      fail_unsupported(str("BatchNormalization input ", i, " of dtype ",
                           dtype_name(ctx.input(i).dtype), " with X of dtype ",
                           dtype_name(x.dtype)));
    check_per_channel(ctx, i, x.shape[1], "BatchNormalization parameter");
  }
  ctx.set_output(0, x);
}

void infer_instance_norm(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  check_same_dtype(ctx);
  const TensorType& x = ctx.input(0);
  check_spatial_input(x, "InstanceNormalization");
  check_per_channel(ctx, 1, x.shape[1], "InstanceNormalization scale");
  check_per_channel(ctx, 2, x.shape[1], "InstanceNormalization bias");
  ctx.set_output(0, x);
}

// Checks that input i broadcasts unidirectionally to `target`.
void check_unidirectional(const InferContext& ctx, size_t i, const Shape& target,
                          const char* what) {
  const TensorType& t = ctx.input(i);
  bool ok = t.shape.size() <= target.size();
  for (size_t d = 0; ok && d < t.shape.size(); ++d) {
    const int64_t want = target[target.size() - t.shape.size() + d];
    ok = t.shape[d] == 1 || t.shape[d] == want;
  }
  LATHE_CHECK(ok, what, " ", t.to_string(), " does not broadcast to ", shape_to_string(target));
}

void infer_layer_norm(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  check_same_dtype(ctx);
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() >= 1, "LayerNormalization input X must have rank >= 1");
  const int axis = normalize_axis(ctx.attrs().get_int("axis", -1), x.rank());
  const Shape normalized(x.shape.begin() + axis, x.shape.end());
  check_unidirectional(ctx, 1, normalized, "LayerNormalization scale");
  if (ctx.has_input(2)) check_unidirectional(ctx, 2, normalized, "LayerNormalization bias");
  const int64_t stash = ctx.attrs().get_int("stash_type", 1);
  DType stash_type = DType::Float32;
  if (stash == 11)
    stash_type = DType::Float64;
  else if (stash != 1)
    fail_unsupported(str("LayerNormalization stash_type ", stash));
  Shape stats = x.shape;
  std::fill(stats.begin() + axis, stats.end(), 1);
  ctx.set_output(0, x);
  ctx.set_output(1, {stash_type, stats});  // Mean
  ctx.set_output(2, {stash_type, stats});  // InvStdDev
}

void infer_gemm(InferContext& ctx) {
  ctx.check_dtype(0, kGemmTypes);
  check_same_dtype(ctx);
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  LATHE_CHECK(a.rank() == 2 && b.rank() == 2, "Gemm inputs must be matrices, got ", a.to_string(),
              " and ", b.to_string());
  const bool trans_a = ctx.attrs().get_int("transA", 0) != 0;
  const bool trans_b = ctx.attrs().get_int("transB", 0) != 0;
  const int64_t m = a.shape[trans_a ? 1 : 0], k = a.shape[trans_a ? 0 : 1];
  const int64_t kb = b.shape[trans_b ? 1 : 0], n = b.shape[trans_b ? 0 : 1];
  LATHE_CHECK(k == kb, "Gemm inner dimensions differ: A ", a.to_string(),
              trans_a ? " (transposed)" : "", " and B ", b.to_string(),
              trans_b ? " (transposed)" : "");
  if (ctx.has_input(2)) check_unidirectional(ctx, 2, {m, n}, "Gemm C");
  ctx.set_output(0, {a.dtype, {m, n}});
}

void infer_matmul(InferContext& ctx) {
  ctx.check_dtype(0, kGemmTypes);
  check_same_dtype(ctx);
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  LATHE_CHECK(a.rank() >= 1 && b.rank() >= 1, "MatMul inputs must not be scalars, got ",
              a.to_string(), " and ", b.to_string());
  // NumPy: a 1-D A is a row vector and a 1-D B a column vector; the added
  // dimension is dropped from the result.
  Shape sa = a.shape, sb = b.shape;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t k = sa.back(), kb = sb[sb.size() - 2];
  LATHE_CHECK(k == kb, "MatMul inner dimensions differ: ", a.to_string(), " and ", b.to_string());
  Shape batch = broadcast_shapes(Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2));
  Shape out = batch;
  if (a.rank() > 1) out.push_back(sa[sa.size() - 2]);
  if (b.rank() > 1) out.push_back(sb.back());
  ctx.set_output(0, {a.dtype, out});
}

void infer_softmax(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  normalize_axis(ctx.attrs().get_int("axis", -1), ctx.input(0).rank());
  infer_same_as_input(ctx);
}

void infer_prelu(InferContext& ctx) {
  ctx.check_dtype(0, kGemmTypes);
  check_same_dtype(ctx);
  check_unidirectional(ctx, 1, ctx.input(0).shape, "PRelu slope");
  infer_same_as_input(ctx);
}

void infer_lrn(InferContext& ctx) {
  ctx.check_dtype(0, kFloatTypes);
  LATHE_CHECK(ctx.input(0).rank() >= 2, "LRN input must have rank >= 2");
  LATHE_CHECK(ctx.attrs().get_int("size", 0) >= 1, "LRN needs a positive 'size' attribute");
  infer_same_as_input(ctx);
}

int64_t product(Shape::const_iterator begin, Shape::const_iterator end) {
  int64_t p = 1;
  for (auto it = begin; it != end; ++it) p *= *it;
  return p;
}

// Every output element takes (input channels per group) x (kernel volume) MACs.
int64_t conv_macs(const Node&, const std::vector<TensorType>& in,
                  const std::vector<TensorType>& out) {
  const Shape& w = in[1].shape;
  return out[0].numel() * product(w.begin() + 1, w.end());
}

// Every input element is scattered through (filters per group) x (kernel volume) MACs.
int64_t conv_transpose_macs(const Node&, const std::vector<TensorType>& in,
                            const std::vector<TensorType>&) {
  const Shape& w = in[1].shape;
  return in[0].numel() * product(w.begin() + 1, w.end());
}

int64_t gemm_macs(const Node& node, const std::vector<TensorType>& in,
                  const std::vector<TensorType>& out) {
  const bool trans_a = node.attrs.get_int("transA", 0) != 0;
  return out[0].numel() * in[0].shape[trans_a ? 0 : 1];
}

int64_t matmul_macs(const Node&, const std::vector<TensorType>& in,
                    const std::vector<TensorType>& out) {
  return out[0].numel() * in[0].shape.back();
}

// Col2Im (opset 18): [N, C * prod(block_shape), L] to [N, C, image_shape...].
void infer_col2im(InferContext& ctx) {
  ctx.check_dtype(0, kNumericTypes);
  const TensorType& x = ctx.input(0);
  LATHE_CHECK(x.rank() == 3, "Col2Im input must be [N, C * prod(block_shape), L], got ",
              x.to_string());
  const std::vector<int64_t> image = ctx.require_constant(1, "image_shape").to_int64_vector();
  const Col2ImGeometry g =
      col2im_geometry(ctx.attrs(), image, ctx.require_constant(2, "block_shape").to_int64_vector());
  LATHE_CHECK(x.shape[1] % g.block_size == 0, "Col2Im input ", x.to_string(), ": ", x.shape[1],
              " rows are not a multiple of the block's ", g.block_size, " elements");
  LATHE_CHECK(x.shape[2] == g.positions, "Col2Im input ", x.to_string(), " has ", x.shape[2],
              " block positions; image_shape, block_shape and the attributes give ", g.positions);
  Shape out = {x.shape[0], x.shape[1] / g.block_size};
  out.insert(out.end(), image.begin(), image.end());
  ctx.set_output(0, {x.dtype, out});
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.define("Conv", FusionKind::OutEWiseFusable, infer_conv).macs = conv_macs;
  r.define("ConvTranspose", FusionKind::OutEWiseFusable, infer_conv_transpose).macs =
      conv_transpose_macs;
  r.define("Gemm", FusionKind::OutEWiseFusable, infer_gemm).macs = gemm_macs;
  r.define("MatMul", FusionKind::OutEWiseFusable, infer_matmul).macs = matmul_macs;
  r.define("MaxPool", FusionKind::OutEWiseFusable, infer_pool<kMaxPoolTypes>);
  r.define("AveragePool", FusionKind::OutEWiseFusable, infer_pool<kFloatTypes>);
  r.define("GlobalAveragePool", FusionKind::OutEWiseFusable, infer_global_pool);
  r.define("GlobalMaxPool", FusionKind::OutEWiseFusable, infer_global_pool);
  // Usually folded into the preceding convolution; alone it is a per-channel
  // scale and shift, a broadcast.
  r.define("BatchNormalization", FusionKind::Broadcast, infer_batch_norm);
  r.define("InstanceNormalization", FusionKind::Opaque, infer_instance_norm);
  r.define("LayerNormalization", FusionKind::Opaque, infer_layer_norm);
  r.define("Softmax", FusionKind::Opaque, infer_softmax);
  r.define("LogSoftmax", FusionKind::Opaque, infer_softmax);
  r.define("PRelu", FusionKind::Broadcast, infer_prelu);
  r.define("LRN", FusionKind::Opaque, infer_lrn);
  r.define("Col2Im", FusionKind::OutEWiseFusable, infer_col2im).shape_inputs = {1, 2};
}

}  // namespace lathe

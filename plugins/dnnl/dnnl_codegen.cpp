// Pattern matching and lowering for the dnnl codegen, after TVM's DNNL
// composite patterns (python/tvm/relay/op/contrib/dnnl.py): a convolution
// (grouped, depthwise, strided, dilated, with its bias) followed by ReLU,
// Clip (ReLU6) or an Add of another tensor (oneDNN's sum post-op) and ReLU;
// Gemm, or MatMul + bias, followed by ReLU or com.microsoft.Gelu; and the
// 2-D pools. A match is declined, and left to Lathe's kernels, when it is not
// float32 in 4-D (2-D for the products), when its weights are not constants,
// or when an attribute has no oneDNN equivalent.
#include "dnnl_codegen.h"

#include <algorithm>
#include <cfloat>

#include "dnnl_params.h"
#include "ir/ops/window_geometry.h"
#include "passes/graph_edit.h"

namespace lathe::dnnl_plugin {
namespace {

using passes::ExternalCall;
using passes::ExternalPattern;

const Node& node_at(const Graph& g, int n) {
  return g.nodes[static_cast<size_t>(n)];
}

bool is_f32(const Graph& g, ValueId v, size_t rank) {
  const TensorType& t = g.type(v);
  return t.dtype == DType::Float32 && t.shape.size() == rank;
}

bool is_constant(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).is_constant();
}

bool has_input(const Node& node, size_t i) {
  return i < node.inputs.size() && node.inputs[i] != kNoValue;
}

// The value of a scalar constant input, or `fallback` when it is omitted.
std::optional<float> scalar_input(const Graph& g, const Node& node, size_t i, float fallback) {
  if (!has_input(node, i)) return fallback;
  if (!is_constant(g, node.inputs[i])) return std::nullopt;
  const Tensor& t = g.value(node.inputs[i]).constant;
  if (t.numel() != 1 || t.dtype() != DType::Float32) return std::nullopt;
  return t.data<float>()[0];
}

// The post-ops of the nodes after the first: ReLU, Clip, Gelu, and an Add of
// a same-shaped tensor (the sum post-op, before any activation). Appends the
// sum operand to `call`; false when a node has no oneDNN post-op.
bool add_post_ops(const Graph& g, const std::vector<int>& nodes, size_t from, Params& p,
                  ExternalCall& call) {
  for (size_t k = from; k < nodes.size(); ++k) {
    const Node& node = node_at(g, nodes[k]);
    const ValueId previous = node_at(g, nodes[k - 1]).outputs[0];
    if (node.op == "Add" && p.eltwise.empty() && !p.sum) {
      const ValueId other = node.inputs[0] == previous ? node.inputs[1] : node.inputs[0];
      if (node.inputs[0] == node.inputs[1] || g.type(other) != g.type(previous) ||
          is_constant(g, other))
        return false;
      p.sum = true;
      call.inputs.push_back(other);
    } else if (node.op == "Relu" && p.eltwise.empty()) {
      p.eltwise = "relu";
    } else if (node.op == "Clip" && p.eltwise.empty()) {
      const std::optional<float> low = scalar_input(g, node, 1, -FLT_MAX);
      const std::optional<float> high = scalar_input(g, node, 2, FLT_MAX);
      if (!low || !high) return false;
      p.eltwise = "clip";
      p.alpha = *low;
      p.beta = *high;
    } else if (node.op == "com.microsoft.Gelu" && p.eltwise.empty()) {
      p.eltwise = "gelu_erf";
    } else {
      return false;
    }
  }
  return true;
}

std::optional<ExternalCall> lower_conv(const Graph& g, const std::vector<int>& nodes) {
  const Node& conv = node_at(g, nodes[0]);
  if (!is_f32(g, conv.inputs[0], 4) || !has_input(conv, 1) || !is_constant(g, conv.inputs[1]) ||
      (has_input(conv, 2) && !is_constant(g, conv.inputs[2])) || is_constant(g, conv.inputs[0]))
    return std::nullopt;
  Params p;
  p.kind = Params::Kind::Conv;
  p.src = g.type(conv.inputs[0]).shape;
  p.weights = g.type(conv.inputs[1]).shape;
  p.dst = g.type(conv.outputs[0]).shape;
  p.group = conv.attrs.get_int("group", 1);
  if (p.weights.size() != 4 || p.weights[0] % p.group) return std::nullopt;
  const SpatialWindow w = resolve_window(conv.attrs, {p.src[2], p.src[3]}, {p.dst[2], p.dst[3]},
                                         {p.weights[2], p.weights[3]});
  for (size_t d = 0; d < 2; ++d) {
    p.strides.push_back(w.strides[d]);
    p.dilations.push_back(w.dilations[d] - 1);
    p.pad_l.push_back(w.pad_begin[d]);
    // What makes oneDNN's output extent come out as the graph's.
    p.pad_r.push_back((p.dst[2 + d] - 1) * w.strides[d] + w.dilated_extent(d) - p.src[2 + d] -
                      w.pad_begin[d]);
  }
  ExternalCall call{{}, {conv.inputs[0], conv.inputs[1]}};
  if (has_input(conv, 2)) {
    p.bias = true;
    call.inputs.push_back(conv.inputs[2]);
  }
  if (!add_post_ops(g, nodes, 1, p, call)) return std::nullopt;
  call.params = to_text(p);
  return call;
}

// Gemm (alpha = beta = 1, A not transposed, C a row of biases) and MatMul,
// whose leading dimensions fold into rows, then + bias as an Add.
std::optional<ExternalCall> lower_product(const Graph& g, const std::vector<int>& nodes) {
  const Node& product = node_at(g, nodes[0]);
  const ValueId a = product.inputs[0], b = product.inputs[1];
  const Shape& a_shape = g.type(a).shape;
  if (g.type(a).dtype != DType::Float32 || a_shape.size() < 2 || is_constant(g, a) ||
      !is_constant(g, b) || !is_f32(g, b, 2))
    return std::nullopt;
  Params p;
  p.kind = Params::Kind::MatMul;
  const Shape& b_shape = g.type(b).shape;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < a_shape.size(); ++d) rows *= a_shape[d];
  const int64_t k = a_shape.back();
  ExternalCall call{{}, {a, b}};
  size_t post_from = 1;
  if (product.op == "Gemm") {
    if (a_shape.size() != 2 || product.attrs.get_int("transA", 0) != 0 ||
        product.attrs.get_float("alpha", 1.0f) != 1.0f ||
        product.attrs.get_float("beta", 1.0f) != 1.0f)
      return std::nullopt;
    p.weights_transposed = product.attrs.get_int("transB", 0) != 0;
    if (has_input(product, 2)) {
      const Shape& c = g.type(product.inputs[2]).shape;
      const int64_t n = p.weights_transposed ? b_shape[0] : b_shape[1];
      if (!is_constant(g, product.inputs[2]) || !(c == Shape{n} || c == Shape{1, n}))
        return std::nullopt;
      p.bias = true;
      call.inputs.push_back(product.inputs[2]);
    }
  } else if (nodes.size() > 1 && node_at(g, nodes[1]).op == "Add") {
    // MatMul + a constant row: the bias, not a sum.
    const Node& add = node_at(g, nodes[1]);
    const ValueId bias = add.inputs[0] == product.outputs[0] ? add.inputs[1] : add.inputs[0];
    if (!is_constant(g, bias) || g.type(bias).shape != Shape{b_shape[1]} ||
        g.type(bias).dtype != DType::Float32)
      return std::nullopt;
    p.bias = true;
    call.inputs.push_back(bias);
    post_from = 2;
  }
  const int64_t n = p.weights_transposed ? b_shape[0] : b_shape[1];
  if ((p.weights_transposed ? b_shape[1] : b_shape[0]) != k) return std::nullopt;
  p.src = {rows, k};
  p.weights = b_shape;
  p.dst = {rows, n};
  if (!add_post_ops(g, nodes, post_from, p, call) || p.sum) return std::nullopt;
  call.params = to_text(p);
  return call;
}

std::optional<ExternalCall> lower_pool(const Graph& g, const std::vector<int>& nodes) {
  const Node& pool = node_at(g, nodes[0]);
  if (!is_f32(g, pool.inputs[0], 4) || is_constant(g, pool.inputs[0]) || pool.outputs.size() != 1 ||
      pool.attrs.has("layout"))
    return std::nullopt;
  Params p;
  p.kind = Params::Kind::Pool;
  p.src = g.type(pool.inputs[0]).shape;
  p.dst = g.type(pool.outputs[0]).shape;
  if (pool.op == "GlobalAveragePool") {
    p.pool = "avg_include";
    p.kernel = {p.src[2], p.src[3]};
    p.strides = {1, 1};
    p.dilations = {0, 0};
    p.pad_l = p.pad_r = {0, 0};
  } else {
    const Shape kernel = pool.attrs.get_ints("kernel_shape", {});
    if (kernel.size() != 2 || pool.attrs.get_int("storage_order", 0) != 0) return std::nullopt;
    if (pool.op == "MaxPool") {
      p.pool = "max";
    } else {
      // Padding past the input's end under ceil_mode would count in the average.
      if (pool.attrs.get_int("ceil_mode", 0) != 0) return std::nullopt;
      p.pool = pool.attrs.get_int("count_include_pad", 0) ? "avg_include" : "avg_exclude";
    }
    const SpatialWindow w =
        resolve_window(pool.attrs, {p.src[2], p.src[3]}, {p.dst[2], p.dst[3]}, kernel);
    p.kernel = kernel;
    for (size_t d = 0; d < 2; ++d) {
      p.strides.push_back(w.strides[d]);
      p.dilations.push_back(w.dilations[d] - 1);
      p.pad_l.push_back(w.pad_begin[d]);
      p.pad_r.push_back((p.dst[2 + d] - 1) * w.strides[d] + w.dilated_extent(d) - p.src[2 + d] -
                        w.pad_begin[d]);
    }
  }
  return ExternalCall{to_text(p), {pool.inputs[0]}};
}

std::optional<ExternalCall> lower(const Graph& g, const ExternalPattern& pattern,
                                  const std::vector<int>& nodes) {
  const std::string& first = pattern.ops.front();
  if (first == "Conv") return lower_conv(g, nodes);
  if (first == "Gemm" || first == "MatMul") return lower_product(g, nodes);
  return lower_pool(g, nodes);
}

bool is_dnnl_call(const Node& node) {
  return node.op == passes::kExternalCallOp && node.attrs.get_string("codegen", "") == "dnnl";
}

// Reorders at the boundary only: a 4-D tensor that one dnnl call writes and
// only dnnl convolutions and pools read, as their source or their sum
// operand, stays channels-last (NHWC, what oneDNN's convolutions choose on
// AVX-512 and AVX2), so the chain between two Lathe kernels converts from and
// to NCHW once.
void keep_channels_last(Graph& g) {
  std::vector<std::optional<Params>> params(g.nodes.size());
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (is_dnnl_call(g.nodes[n])) {
      Params p = parse_params(g.nodes[n].attrs.get_string("params", ""));
      if (p.kind != Params::Kind::MatMul) params[n] = p;
    }
  const std::vector<std::vector<int>> consumers = passes::value_consumers(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!params[n]) continue;
    const ValueId out = g.nodes[n].outputs[0];
    const std::vector<int>& readers = consumers[static_cast<size_t>(out)];
    if (readers.empty() || passes::is_graph_output(g, out)) continue;
    const bool all_dnnl = std::all_of(readers.begin(), readers.end(), [&](int r) {
      const Node& reader = node_at(g, r);
      const bool as_src = reader.inputs[0] == out;
      const bool as_sum = params[static_cast<size_t>(r)] && params[static_cast<size_t>(r)]->sum &&
                          reader.inputs.back() == out;
      return params[static_cast<size_t>(r)] && (as_src || as_sum);
    });
    if (!all_dnnl) continue;
    params[n]->dst_nhwc = true;
    for (int r : readers) {
      const Node& reader = node_at(g, r);
      Params& p = *params[static_cast<size_t>(r)];
      if (reader.inputs[0] == out) p.src_nhwc = true;
      if (p.sum && reader.inputs.back() == out) p.sum_nhwc = true;
    }
  }
  for (size_t n = 0; n < g.nodes.size(); ++n)
    if (params[n]) g.nodes[n].attrs.set("params", to_text(*params[n]));
}

}  // namespace

passes::ExternalCodegen make_codegen(const std::string& runtime_library) {
  passes::ExternalCodegen codegen;
  codegen.name = "dnnl";
  // Longest first: each node starts at most one match.
  codegen.patterns = {
      {"conv_add_relu", {"Conv", "Add", "Relu"}},
      {"conv_add", {"Conv", "Add"}},
      {"conv_relu", {"Conv", "Relu"}},
      {"conv_clip", {"Conv", "Clip"}},
      {"conv", {"Conv"}},
      {"gemm_relu", {"Gemm", "Relu"}},
      {"gemm", {"Gemm"}},
      {"matmul_bias_relu", {"MatMul", "Add", "Relu"}},
      {"matmul_bias_gelu", {"MatMul", "Add", "com.microsoft.Gelu"}},
      {"matmul_bias", {"MatMul", "Add"}},
      {"matmul", {"MatMul"}},
      {"max_pool", {"MaxPool"}},
      {"average_pool", {"AveragePool"}},
      {"global_average_pool", {"GlobalAveragePool"}},
  };
  codegen.lower = lower;
  codegen.finalize = keep_channels_last;
  codegen.runtime_library = runtime_library;
  codegen.runtime_symbol = "lathe_dnnl_functions";
  return codegen;
}

}  // namespace lathe::dnnl_plugin

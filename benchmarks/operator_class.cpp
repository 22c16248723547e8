#include "operator_class.h"

#include <algorithm>

namespace lathe::bench {
namespace {

const Shape& shape_of(const Graph& graph, ValueId v) {
  return graph.values[static_cast<size_t>(v)].type.shape;
}

// Convolutions by what their schedule must do: one input channel per output
// (depthwise), a few per group, pointwise, along one axis, or a window.
std::string conv_class(const Graph& graph, const Node& conv) {
  if (conv.op == "ConvTranspose") return "conv transpose";
  const Shape& x = shape_of(graph, conv.inputs[0]);
  const Shape& w = shape_of(graph, conv.inputs[1]);
  // NCHW{b}c carries the channel block last: C = C_outer * b.
  const int64_t channels = conv.op == "Conv2dNCHWc" && x.size() == 5 ? x[1] * x[4] : x[1];
  const int64_t group = conv.attrs.get_int("group", 1);
  if (group > 1 && group == channels) return "depthwise conv";
  if (group > 1) return "grouped conv";
  // Squeeze-and-excitation: a pooled [N, C, 1, 1] through a 1x1 conv.
  if (x.size() >= 4 && x[2] == 1 && x[3] == 1) return "conv on one pixel (SE)";
  if (x.size() == 3 || (x.size() >= 4 && x[2] == 1 && w.size() >= 4 && w[2] == 1)) return "conv1d";
  const bool pointwise = w.size() >= 4 && w[2] == 1 && w[3] == 1;
  return pointwise ? "1x1 conv" : "conv KxK";
}

bool is_reduction(const std::string& op) {
  return op.starts_with("Reduce") || op == "Softmax" || op == "LogSoftmax" ||
         op == "LayerNormalization" || op == "InstanceNormalization" || op == "ArgMax" ||
         op == "ArgMin" || op == "CumSum" || op == "TopK" || op == "Hardmax";
}

}  // namespace

std::string operator_class(const Graph& graph, const passes::FusedGroup& group) {
  const Node& anchor = graph.nodes[static_cast<size_t>(group.anchor)];
  const std::string& op = anchor.op;
  if (op == "Conv" || op == "Conv2dNCHWc" || op == "ConvTranspose")
    return conv_class(graph, anchor);
  if (op == "MatMul" || op == "Gemm") {
    // One row: a matrix-vector product, bound by reading the matrix.
    const Shape& a = shape_of(graph, anchor.inputs[0]);
    const bool transposed = op == "Gemm" && anchor.attrs.get_int("transA", 0) != 0;
    const int64_t rows = a.size() < 2 ? 1 : transposed ? a.back() : a[a.size() - 2];
    return rows == 1 ? "GEMV" : "matmul";
  }
  if (op == "ExternalCall") return "external";
  if (op.find("Pool") != std::string::npos) return "pool";
  if (is_reduction(op)) return "reduction / normalization";
  auto has = [&](const char* name) {
    return std::any_of(group.nodes.begin(), group.nodes.end(),
                       [&](int n) { return graph.nodes[static_cast<size_t>(n)].op == name; });
  };
  if (has("Concat")) return "concat";
  if (has("Transpose")) return "transpose";
  if (has("LayoutTransform")) return "layout transform";
  if (has("Gather") || has("Slice") || has("Pad") || has("Resize")) return "gather / slice / pad";
  return "elementwise";
}

}  // namespace lathe::bench

// Rules on matrix products:
// - MatMul of 2-D operands where one comes from Transpose(perm=[1,0])
//   becomes Gemm reading the untransposed matrix with transA / transB set.
// - Gemm with transB and a constant float32 B (how PyTorch exports Linear)
//   reads B transposed once, at compile time: the kernel then reads rows of
//   B as they lie instead of gathering a column per element, and a product
//   of a few rows need not repack B on every run.
#include "passes/simplify_rules.h"

namespace lathe::passes::rules {
namespace {

// The input of the 2-D transpose producing `id`, or kNoValue.
ValueId untransposed(const Graph& graph, ValueId id) {
  const int producer = graph.value(id).producer;
  if (producer < 0) return kNoValue;
  const Node& t = graph.nodes[static_cast<size_t>(producer)];
  if (t.op != "Transpose" || !t.has_input(0) || graph.type(t.inputs[0]).rank() != 2)
    return kNoValue;
  const std::vector<int64_t> perm = t.attrs.get_ints("perm", {1, 0});
  return perm == std::vector<int64_t>{1, 0} ? t.inputs[0] : kNoValue;
}

}  // namespace

bool matmul_of_transpose_to_gemm(Graph& graph) {
  bool changed = false;
  for (Node& node : graph.nodes) {
    if (node.op != "MatMul" || node.inputs.size() != 2 || !node.has_input(0) ||
        !node.has_input(1) || graph.type(node.inputs[0]).rank() != 2 ||
        graph.type(node.inputs[1]).rank() != 2)
      continue;
    const ValueId a = untransposed(graph, node.inputs[0]);
    const ValueId b = untransposed(graph, node.inputs[1]);
    if (a == kNoValue && b == kNoValue) continue;
    node.op = "Gemm";
    node.attrs = Attributes();
    if (a != kNoValue) {
      node.inputs[0] = a;
      node.attrs.set("transA", int64_t{1});
    }
    if (b != kNoValue) {
      node.inputs[1] = b;
      node.attrs.set("transB", int64_t{1});
    }
    changed = true;
  }
  // A transpose nothing reads any more goes with the dead code.
  return changed;
}

bool pretranspose_constant_gemm_weights(Graph& graph) {
  const std::vector<int> uses = graph.use_counts();
  NameTable names(graph);
  bool changed = false;
  for (Node& node : graph.nodes) {
    if (node.op != "Gemm" || node.attrs.get_int("transB", 0) == 0) continue;
    const Tensor* b = constant_input(graph, node, 1);
    if (!b || b->dtype() != DType::Float32 || b->rank() != 2) continue;
    const int64_t rows = b->shape()[0], cols = b->shape()[1];
    Tensor bt(DType::Float32, {cols, rows});
    const float* src = b->data<float>();
    float* dst = bt.data<float>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
    set_constant_input(graph, node, 1, std::move(bt), "weight", uses, names);
    node.attrs.set("transB", int64_t{0});
    changed = true;
  }
  return changed;
}

}  // namespace lathe::passes::rules

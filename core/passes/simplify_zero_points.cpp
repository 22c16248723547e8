// Rule: a zero point that is a constant of zeros is no zero point. The
// integer ops (ConvInteger, MatMulInteger) then drop its correction terms:
// a zero weight zero point spares the per-pixel sum of the activations, a
// zero activation zero point the per-channel sum of the weights. ONNX
// Runtime's quantizer writes such zeros for every symmetric weight and for
// activations after a ReLU.
#include "passes/simplify_rules.h"

namespace lathe::passes::rules {
namespace {

bool all_zero(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (t.element_as_double(i) != 0) return false;
  return true;
}

}  // namespace

bool drop_zero_zero_points(Graph& graph) {
  bool changed = false;
  for (Node& node : graph.nodes) {
    if (node.op != "ConvInteger" && node.op != "MatMulInteger") continue;
    for (size_t i = 2; i < 4 && i < node.inputs.size(); ++i) {
      if (!node.has_input(i)) continue;
      const Tensor* z = constant_input(graph, node, i);
      if (!z || !all_zero(*z)) continue;
      node.inputs[i] = kNoValue;
      changed = true;
    }
    while (node.inputs.size() > 2 && node.inputs.back() == kNoValue) node.inputs.pop_back();
  }
  return changed;
}

}  // namespace lathe::passes::rules

// Rule: Identity and inference-mode Dropout pass their input through, so
// their readers read the input directly.
#include "passes/simplify_rules.h"

namespace lathe::passes::rules {
namespace {

// Dropout is the identity unless training_mode is set, and it may go only
// when nothing reads its mask.
bool is_inference_dropout(const Graph& graph, const Node& node, const std::vector<int>& uses) {
  if (node.has_input(2)) {
    const Tensor* training = constant_input(graph, node, 2);
    if (!training || training->numel() != 1 || training->element_as_double(0) != 0) return false;
  }
  for (size_t k = 1; k < node.outputs.size(); ++k)
    if (node.outputs[k] != kNoValue && uses[static_cast<size_t>(node.outputs[k])] != 0)
      return false;
  return true;
}

}  // namespace

bool remove_identities(Graph& graph) {
  const std::vector<int> uses = graph.use_counts();
  std::vector<bool> keep(graph.nodes.size(), true);
  bool changed = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    const bool passes_through = (node.op == "Identity" && node.outputs.size() == 1) ||
                                (node.op == "Dropout" && is_inference_dropout(graph, node, uses));
    if (!passes_through || !node.has_input(0) || node.outputs.empty() ||
        node.outputs[0] == kNoValue)
      continue;
    const ValueId x = node.inputs[0], y = node.outputs[0];
    if (is_graph_output(graph, y)) {
      // The graph output keeps its name: the value passed through takes it,
      // which only a value computed inside the graph and not itself an
      // output can do.
      if (is_graph_input(graph, x) || is_graph_output(graph, x) || graph.value(x).is_constant())
        continue;
      graph.value(x).name = graph.value(y).name;
      graph.value(y).name.clear();
    }
    replace_uses(graph, y, x);
    keep[i] = false;
    changed = true;
  }
  if (changed) remove_nodes(graph, keep);
  return changed;
}

}  // namespace lathe::passes::rules

#include "passes/simplify.h"

#include "passes/eliminate_dead_code.h"
#include "passes/simplify_rules.h"

namespace lathe::passes {

namespace rules {

void set_constant_input(Graph& graph, Node& node, size_t i, Tensor value, const std::string& role,
                        const std::vector<int>& uses, NameTable& names) {
  if (node.has_input(i)) {
    Value& old = graph.value(node.inputs[i]);
    if (old.is_constant() && single_use(graph, node.inputs[i], uses)) {
      old.type = value.type();
      old.constant = std::move(value);
      return;
    }
  }
  ValueId id = graph.add_constant(names.value(node.name + "." + role), std::move(value));
  if (node.inputs.size() <= i) node.inputs.resize(i + 1, kNoValue);
  node.inputs[i] = id;
}

bool single_use(const Graph& graph, ValueId id, const std::vector<int>& uses) {
  return uses[static_cast<size_t>(id)] == 1 && !is_graph_output(graph, id);
}

}  // namespace rules

Graph simplify(const Graph& input) {
  Graph graph = input;
  // Each rule can enable another (a Gemm made from a MatMul takes the Add
  // after it); a few rounds reach the fixed point.
  for (int round = 0; round < 16; ++round) {
    bool changed = rules::remove_identities(graph);
    changed |= rules::fold_batch_norm(graph);
    // What fold_batch_norm left becomes a scale and shift, which may fold
    // into a Conv or Gemm later in the round.
    changed |= rules::batch_norm_to_scale_shift(graph);
    changed |= rules::fold_scale_and_shift(graph);
    changed |= rules::matmul_of_transpose_to_gemm(graph);
    changed |= rules::pretranspose_constant_gemm_weights(graph);
    changed |= rules::drop_zero_zero_points(graph);
    if (!changed) break;
  }
  return eliminate_dead_code(graph);
}

}  // namespace lathe::passes

#include "passes/fold_constants.h"

#include "passes/graph_edit.h"
#include "reference/executor.h"
#include "support/error.h"

namespace lathe::passes {

Graph fold_constants(const Graph& input) {
  Graph graph = input;
  OpRegistry& registry = reference::kernel_registry();
  std::vector<bool> keep(graph.nodes.size(), true);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    const OpDef* op = registry.find(node.op);
    if (!op || !op->kernel || node.outputs.empty()) continue;
    std::vector<const Tensor*> args;
    bool all_constant = true;
    for (ValueId in : node.inputs) {
      if (in == kNoValue) {
        args.push_back(nullptr);
        continue;
      }
      const Value& v = graph.value(in);
      all_constant &= v.is_constant();
      args.push_back(&v.constant);
    }
    if (!all_constant) continue;
    std::vector<TensorType> types;
    for (ValueId out : node.outputs)
      types.push_back(out == kNoValue ? TensorType{} : graph.type(out));
    std::vector<Tensor> results;
    try {
      results = reference::run_node(*op, node, args, types);
    } catch (const UnsupportedError&) {
      continue;  // the kernel declines these inputs (training-mode Dropout ...): leave it to run
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (node.outputs[k] == kNoValue) continue;
      Value& v = graph.value(node.outputs[k]);
      v.constant = std::move(results[k]);
      v.producer = -1;
    }
    keep[i] = false;
  }
  remove_nodes(graph, keep);
  return graph;
}

}  // namespace lathe::passes

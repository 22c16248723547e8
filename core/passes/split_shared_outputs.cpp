#include "passes/split_shared_outputs.h"

#include <set>
#include <string_view>

#include "passes/graph_edit.h"

namespace lathe::passes {

namespace {

bool outputs_share_a_reduction(std::string_view op) {
  return op == "LayerNormalization" || op == "TopK" || op == "MaxPool" ||
         op == "SoftmaxCrossEntropyLoss";
}

}  // namespace

Graph split_shared_outputs(const Graph& input) {
  Graph graph = input;
  // Read: by a node (a control-flow node's captures included) or the graph.
  std::set<ValueId> read(graph.outputs.begin(), graph.outputs.end());
  for (const Node& node : graph.nodes)
    for (ValueId in : node.inputs)
      if (in != kNoValue) read.insert(in);
  NameTable names(graph);
  replace_nodes(graph, [&](const Node& node) {
    if (!outputs_share_a_reduction(node.op)) return false;
    std::vector<size_t> wanted;
    for (size_t k = 0; k < node.outputs.size(); ++k)
      if (node.outputs[k] != kNoValue && read.count(node.outputs[k])) wanted.push_back(k);
    if (wanted.size() < 2) return false;
    for (size_t k : wanted) {
      Node copy = node;
      // The first keeps the node's name, the others say which output they write.
      if (k != wanted.front()) copy.name = names.node(node.name + "_output" + std::to_string(k));
      for (size_t j = 1; j < copy.outputs.size(); ++j)
        if (j != k) copy.outputs[j] = kNoValue;
      // Computes take output 0 as always there (its shape is the op's): a
      // copy for another output has one of its own that nothing reads.
      if (k != 0 && copy.outputs[0] != kNoValue)
        copy.outputs[0] =
            graph.add_value(names.value(graph.value(node.outputs[0]).name + "_unread"),
                            graph.type(node.outputs[0]));
      graph.add_node(std::move(copy));
    }
    return true;
  });
  return graph;
}

}  // namespace lathe::passes

#include "passes/eliminate_dead_code.h"

#include "passes/graph_edit.h"

namespace lathe::passes {

Graph eliminate_dead_code(const Graph& input) {
  Graph graph = input;
  std::vector<bool> live(graph.values.size(), false);
  for (ValueId out : graph.outputs) live[static_cast<size_t>(out)] = true;
  std::vector<bool> keep(graph.nodes.size(), false);
  for (size_t i = graph.nodes.size(); i-- > 0;) {
    const Node& node = graph.nodes[i];
    for (ValueId out : node.outputs)
      if (out != kNoValue && live[static_cast<size_t>(out)]) keep[i] = true;
    if (!keep[i]) continue;
    for (ValueId in : node.inputs)
      if (in != kNoValue) live[static_cast<size_t>(in)] = true;
  }
  remove_nodes(graph, keep);
  return graph;
}

}  // namespace lathe::passes

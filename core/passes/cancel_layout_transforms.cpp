#include "passes/cancel_layout_transforms.h"

#include <map>
#include <tuple>

#include "ir/ops/layout.h"
#include "passes/eliminate_dead_code.h"
#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

// Layout names in their canonical spelling, so "NCHW16c" matches however written.
std::string canonical(const Node& node, const char* attr) {
  return TensorLayout::parse(node.attrs.get_string(attr, "")).to_string();
}

}  // namespace

Graph cancel_layout_transforms(const Graph& input) {
  Graph graph = input;
  std::map<std::tuple<ValueId, std::string, std::string>, ValueId> seen;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != "LayoutTransform" || !node.has_input(0) || node.outputs.size() != 1) continue;
    const ValueId x = node.inputs[0], y = node.outputs[0];
    // A graph output keeps its name and producer.
    if (is_graph_output(graph, y)) continue;
    const std::string src = canonical(node, "src_layout"), dst = canonical(node, "dst_layout");
    const int producer = graph.value(x).producer;
    if (producer >= 0) {
      const Node& before = graph.nodes[static_cast<size_t>(producer)];
      if (before.op == "LayoutTransform" && canonical(before, "src_layout") == dst &&
          canonical(before, "dst_layout") == src) {
        replace_uses(graph, y, before.inputs[0]);
        continue;
      }
    }
    auto [it, inserted] = seen.emplace(std::make_tuple(x, src, dst), y);
    if (!inserted) {
      replace_uses(graph, y, it->second);
    }
  }
  // Back transforms that the layout pass bypassed go too.
  return eliminate_dead_code(graph);
}

}  // namespace lathe::passes

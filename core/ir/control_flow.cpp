#include "ir/control_flow.h"

namespace lathe {

bool is_control_flow(const Node& node) {
  return (node.op == kIfOp || node.op == kLoopOp) && !node.subgraphs.empty();
}

size_t control_flow_leading_inputs(const Node& node) {
  return node.op == kIfOp ? 1 : 2 + node.outputs.size();
}

std::string subgraph_role(const Node& node, size_t i) {
  if (node.op == kIfOp) return i == 0 ? "then" : "else";
  return "body";
}

}  // namespace lathe

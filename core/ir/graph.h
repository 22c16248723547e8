// The graph IR: values with a static type, nodes with an op and typed
// attributes, constants held as tensors. Plain structs with public fields, in
// the manner of Halide's IR; Graph keeps nodes in topological order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/attributes.h"
#include "ir/tensor.h"

namespace lathe {

class Graph;

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;  // an omitted optional input

struct Value {
  std::string name;
  TensorType type;
  int producer = -1;  // index of the producing node, -1 for graph inputs and constants
  Tensor constant;    // defined for initializers and folded values
  bool is_constant() const { return constant.defined(); }
};

struct Node {
  std::string name;
  std::string op;
  std::vector<ValueId> inputs;   // kNoValue marks an omitted optional input
  std::vector<ValueId> outputs;  // kNoValue marks an omitted optional output
  Attributes attrs;
  // The graphs a control-flow node runs (If: then, else; Loop: the body;
  // ir/control_flow.h says how their inputs and outputs line up with the
  // node's). Shared and never changed: copying a node or its graph is cheap.
  std::vector<std::shared_ptr<const Graph>> subgraphs = {};

  bool has_input(size_t i) const { return i < inputs.size() && inputs[i] != kNoValue; }
};

class Graph {
 public:
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<ValueId> inputs;  // runtime inputs, never constants
  std::vector<ValueId> outputs;

  ValueId add_value(const std::string& name, TensorType type);
  ValueId add_constant(const std::string& name, Tensor tensor);
  // Appends a node and sets the producer of its outputs; returns its index.
  int add_node(Node node);

  Value& value(ValueId id) { return values.at(static_cast<size_t>(id)); }
  const Value& value(ValueId id) const { return values.at(static_cast<size_t>(id)); }
  const TensorType& type(ValueId id) const { return value(id).type; }
  // kNoValue when no value has that name.
  ValueId find_value(const std::string& name) const;
  // Node index by name, -1 when absent.
  int find_node(const std::string& name) const;

  // Number of nodes consuming each value (graph outputs count as a use).
  std::vector<int> use_counts() const;
  // Drops values that no node, graph input or output refers to, renumbering ids.
  void remove_unused_values();
  // Throws when ids dangle, a node reads a value produced after it, or names
  // clash, here or in a subgraph.
  void verify() const;
};

// "conv1 (Conv)" — how diagnostics name a node.
std::string describe_node(const Node& node);

}  // namespace lathe

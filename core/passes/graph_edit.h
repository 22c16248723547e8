// Small graph-editing helpers the passes share: who reads a value, rewiring
// uses, dropping nodes, fresh names, and re-running type inference.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace lathe::passes {

// Per value, the nodes reading it, in node order (a node reading a value
// twice is listed twice).
std::vector<std::vector<int>> value_consumers(const Graph& graph);
bool is_graph_output(const Graph& graph, ValueId id);
bool is_graph_input(const Graph& graph, ValueId id);
// Every node input and graph output reading `from` reads `to` instead.
void replace_uses(Graph& graph, ValueId from, ValueId to);
// Re-derives every value's producer from the node list.
void reset_producers(Graph& graph);
// Keeps the nodes with keep[i], resets producers and drops unused values.
void remove_nodes(Graph& graph, const std::vector<bool>& keep);
// Rebuilds the node list in order: `lower` may append nodes that replace a
// node and return true, or return false to keep it. Producers are re-derived
// and unused values dropped afterwards.
void replace_nodes(Graph& graph, const std::function<bool(const Node&)>& lower);

// The op's pattern kind; Opaque for ops the registry does not know.
FusionKind op_kind(std::string_view op);
// Output types of `node` from its op's inference; throws naming the node.
std::vector<TensorType> infer_types(const Graph& graph, const Node& node);
// The constant behind input i, nullptr when it is omitted or not constant.
const Tensor* constant_input(const Graph& graph, const Node& node, size_t i);

// Fresh value and node names: `base` when unused, else base_1, base_2 ...
class NameTable {
 public:
  explicit NameTable(const Graph& graph);
  std::string value(const std::string& base);
  std::string node(const std::string& base);

 private:
  static std::string fresh(std::unordered_set<std::string>& used, const std::string& base);
  std::unordered_set<std::string> values_, nodes_;
};

// Appends one-output nodes to a graph under fresh names, each output typed by
// its op's inference: how the lowering passes spell an op as several.
class NodeEmitter {
 public:
  NodeEmitter(Graph& graph, NameTable& names) : graph_(graph), names_(names) {}

  // Node `op` named after `name`; its output value is named after its first
  // input's value plus `value_suffix`.
  ValueId append(const std::string& name, const std::string& op, std::vector<ValueId> inputs,
                 Attributes attrs, const std::string& value_suffix);
  // A constant int64 vector named after `name`.
  ValueId ints(const std::string& name, const std::vector<int64_t>& values);
  // Reshape of `v` to `shape`, named `name`, its shape constant name + "_shape".
  ValueId reshape(const std::string& name, ValueId v, const std::vector<int64_t>& shape,
                  const std::string& value_suffix);

 private:
  Graph& graph_;
  NameTable& names_;
};

}  // namespace lathe::passes

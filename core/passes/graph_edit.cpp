#include "passes/graph_edit.h"

#include <algorithm>

#include "support/error.h"

namespace lathe::passes {

std::vector<std::vector<int>> value_consumers(const Graph& graph) {
  std::vector<std::vector<int>> consumers(graph.values.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (ValueId in : graph.nodes[i].inputs)
      if (in != kNoValue) consumers[static_cast<size_t>(in)].push_back(static_cast<int>(i));
  return consumers;
}

bool is_graph_output(const Graph& graph, ValueId id) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
}

bool is_graph_input(const Graph& graph, ValueId id) {
  return std::find(graph.inputs.begin(), graph.inputs.end(), id) != graph.inputs.end();
}

void replace_uses(Graph& graph, ValueId from, ValueId to) {
  for (Node& node : graph.nodes)
    for (ValueId& in : node.inputs)
      if (in == from) in = to;
  for (ValueId& out : graph.outputs)
    if (out == from) out = to;
}

void reset_producers(Graph& graph) {
  for (Value& v : graph.values) v.producer = -1;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (ValueId out : graph.nodes[i].outputs)
      if (out != kNoValue) graph.value(out).producer = static_cast<int>(i);
}

void remove_nodes(Graph& graph, const std::vector<bool>& keep) {
  std::vector<Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    if (keep[i]) kept.push_back(std::move(graph.nodes[i]));
  graph.nodes = std::move(kept);
  reset_producers(graph);
  graph.remove_unused_values();
}

FusionKind op_kind(std::string_view op) {
  const OpDef* def = OpRegistry::global().find(op);
  return def ? def->kind : FusionKind::Opaque;
}

std::vector<TensorType> infer_types(const Graph& graph, const Node& node) {
  const OpDef* def = OpRegistry::global().find(node.op);
  if (!def || !def->infer) fail(str("node ", describe_node(node), ": unknown op"));
  const std::string where = "node " + describe_node(node);
  try {
    return infer_node_types(*def, graph, node);
  } catch (const UnsupportedError& e) {
    if (std::string_view(e.what()).find(where) != std::string_view::npos) throw;
    throw UnsupportedError(str(where, ": ", e.what()));
  } catch (const Error& e) {
    if (std::string_view(e.what()).find(where) != std::string_view::npos) throw;
    throw Error(str(where, ": ", e.what()));
  }
}

const Tensor* constant_input(const Graph& graph, const Node& node, size_t i) {
  if (!node.has_input(i)) return nullptr;
  const Value& v = graph.value(node.inputs[i]);
  return v.is_constant() ? &v.constant : nullptr;
}

void replace_nodes(Graph& graph, const std::function<bool(const Node&)>& lower) {
  std::vector<Node> old_nodes = std::move(graph.nodes);
  graph.nodes.clear();
  for (Node& node : old_nodes)
    if (!lower(node)) graph.add_node(std::move(node));
  reset_producers(graph);
  graph.remove_unused_values();
}

NameTable::NameTable(const Graph& graph) {
  for (const Value& v : graph.values) values_.insert(v.name);
  for (const Node& n : graph.nodes) nodes_.insert(n.name);
}

std::string NameTable::value(const std::string& base) {
  return fresh(values_, base);
}

std::string NameTable::node(const std::string& base) {
  return fresh(nodes_, base);
}

std::string NameTable::fresh(std::unordered_set<std::string>& used, const std::string& base) {
  std::string name = base;
  for (int k = 1; used.count(name) != 0; ++k) name = str(base, "_", k);
  used.insert(name);
  return name;
}

ValueId NodeEmitter::append(const std::string& name, const std::string& op,
                            std::vector<ValueId> inputs, Attributes attrs,
                            const std::string& value_suffix) {
  Node node;
  node.name = names_.node(name);
  node.op = op;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  node.outputs = {
      graph_.add_value(names_.value(graph_.value(node.inputs[0]).name + value_suffix), {})};
  graph_.value(node.outputs[0]).type = infer_types(graph_, node)[0];
  graph_.add_node(std::move(node));
  return graph_.nodes.back().outputs[0];
}

ValueId NodeEmitter::ints(const std::string& name, const std::vector<int64_t>& values) {
  return graph_.add_constant(
      names_.value(name),
      Tensor::from_vector<int64_t>(values, {static_cast<int64_t>(values.size())}));
}

ValueId NodeEmitter::reshape(const std::string& name, ValueId v, const std::vector<int64_t>& shape,
                             const std::string& value_suffix) {
  return append(name, "Reshape", {v, ints(name + "_shape", shape)}, {}, value_suffix);
}

}  // namespace lathe::passes

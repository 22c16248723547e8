#include "frontend/onnx/node_order.h"

#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

namespace lathe::onnx_frontend {
namespace {

template <typename F>
void for_each_subgraph(const onnx::NodeProto& node, F f) {
  for (const auto& a : node.attribute()) {
    if (a.has_g()) f(a.g());
    for (const auto& g : a.graphs()) f(g);
  }
}

template <typename F>
void for_each_subgraph(onnx::NodeProto& node, F f) {
  for (auto& a : *node.mutable_attribute()) {
    if (a.has_g()) f(*a.mutable_g());
    for (auto& g : *a.mutable_graphs()) f(g);
  }
}

std::set<std::string> names_defined_at_entry(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const auto& v : graph.input()) names.insert(v.name());
  for (const auto& t : graph.initializer()) names.insert(t.name());
  for (const auto& t : graph.sparse_initializer()) names.insert(t.values().name());
  return names;
}

// Every name a node reads: its inputs and what its subgraphs read from outside.
std::set<std::string> names_read(const onnx::NodeProto& node) {
  std::set<std::string> names;
  for (const std::string& in : node.input())
    if (!in.empty()) names.insert(in);
  for_each_subgraph(node, [&](const onnx::GraphProto& g) { names.merge(outer_names_read(g)); });
  return names;
}

}  // namespace

std::set<std::string> outer_names_read(const onnx::GraphProto& graph) {
  std::set<std::string> defined = names_defined_at_entry(graph);
  for (const auto& node : graph.node())
    for (const std::string& out : node.output()) defined.insert(out);
  std::set<std::string> outer;
  for (const auto& node : graph.node())
    for (const std::string& name : names_read(node))
      if (!defined.count(name)) outer.insert(name);
  for (const auto& out : graph.output())
    if (!defined.count(out.name())) outer.insert(out.name());
  return outer;
}

int sort_nodes_topologically(onnx::GraphProto& graph, const std::set<std::string>& outer) {
  const int n = graph.node_size();
  std::set<std::string> visible = outer;
  visible.merge(names_defined_at_entry(graph));
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const std::string& out : graph.node(i).output())
      if (!out.empty()) producer.emplace(out, i);

  // Subgraphs see every value of this graph (ONNX scoping allows those of
  // earlier nodes, which after sorting is a subset).
  std::set<std::string> inner_outer = visible;
  for (const auto& [name, i] : producer) inner_outer.insert(name);
  for (auto& node : *graph.mutable_node())
    for_each_subgraph(node, [&](onnx::GraphProto& g) { sort_nodes_topologically(g, inner_outer); });

  // Kahn's algorithm, always releasing the earliest ready node: a sorted
  // graph comes out unchanged.
  std::vector<int> waiting(n, 0);
  std::vector<bool> satisfiable(n, true);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    for (const std::string& name : names_read(graph.node(i))) {
      if (auto it = producer.find(name); it != producer.end() && it->second != i) {
        ++waiting[i];
        consumers[it->second].push_back(i);
      } else if (!visible.count(name)) {
        satisfiable[i] = false;
      }
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < n; ++i)
    if (waiting[i] == 0 && satisfiable[i]) ready.push(i);
  std::vector<int> order;
  std::vector<bool> placed(n, false);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    placed[i] = true;
    for (int c : consumers[i])
      if (--waiting[c] == 0 && satisfiable[c]) ready.push(c);
  }
  for (int i = 0; i < n; ++i)
    if (!placed[i]) order.push_back(i);

  int moved = 0;
  for (int k = 0; k < n; ++k) moved += order[k] != k;
  if (moved == 0) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int i : order) *sorted.Add() = std::move(*graph.mutable_node(i));
  graph.mutable_node()->Swap(&sorted);
  return moved;
}

}  // namespace lathe::onnx_frontend

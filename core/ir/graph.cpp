#include "ir/graph.h"

#include <unordered_set>

#include "support/error.h"

namespace lathe {

ValueId Graph::add_value(const std::string& value_name, TensorType type) {
  values.push_back(Value{value_name, std::move(type), -1, Tensor()});
  return static_cast<ValueId>(values.size() - 1);
}

ValueId Graph::add_constant(const std::string& value_name, Tensor tensor) {
  TensorType type = tensor.type();
  values.push_back(Value{value_name, std::move(type), -1, std::move(tensor)});
  return static_cast<ValueId>(values.size() - 1);
}

int Graph::add_node(Node node) {
  int index = static_cast<int>(nodes.size());
  for (ValueId out : node.outputs)
    if (out != kNoValue) value(out).producer = index;
  nodes.push_back(std::move(node));
  return index;
}

ValueId Graph::find_value(const std::string& value_name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == value_name) return static_cast<ValueId>(i);
  return kNoValue;
}

int Graph::find_node(const std::string& node_name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == node_name) return static_cast<int>(i);
  return -1;
}

std::vector<int> Graph::use_counts() const {
  std::vector<int> uses(values.size(), 0);
  for (const Node& n : nodes)
    for (ValueId in : n.inputs)
      if (in != kNoValue) ++uses[static_cast<size_t>(in)];
  for (ValueId out : outputs) ++uses[static_cast<size_t>(out)];
  return uses;
}

void Graph::remove_unused_values() {
  std::vector<bool> used(values.size(), false);
  auto mark = [&](ValueId id) {
    if (id != kNoValue) used[static_cast<size_t>(id)] = true;
  };
  for (const Node& n : nodes) {
    for (ValueId id : n.inputs) mark(id);
    for (ValueId id : n.outputs) mark(id);
  }
  for (ValueId id : inputs) mark(id);
  for (ValueId id : outputs) mark(id);
  std::vector<ValueId> remap(values.size(), kNoValue);
  std::vector<Value> kept;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<ValueId>(kept.size());
    kept.push_back(std::move(values[i]));
  }
  values = std::move(kept);
  auto apply = [&](std::vector<ValueId>& ids) {
    for (ValueId& id : ids)
      if (id != kNoValue) id = remap[static_cast<size_t>(id)];
  };
  for (Node& n : nodes) {
    apply(n.inputs);
    apply(n.outputs);
  }
  apply(inputs);
  apply(outputs);
}

void Graph::verify() const {
  auto check_id = [&](ValueId id, const std::string& where) {
    LATHE_CHECK(id >= 0 && static_cast<size_t>(id) < values.size(), where, ": refers to value #",
                id, " which does not exist");
  };
  std::vector<bool> available(values.size(), false);
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].is_constant()) available[i] = true;
  for (ValueId in : inputs) {
    check_id(in, "graph input");
    available[static_cast<size_t>(in)] = true;
  }
  std::unordered_set<std::string> node_names;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    std::string where = "node " + describe_node(n);
    if (!n.name.empty())
      LATHE_CHECK(node_names.insert(n.name).second, where, ": node name used twice");
    for (ValueId in : n.inputs) {
      if (in == kNoValue) continue;
      check_id(in, where);
      LATHE_CHECK(available[static_cast<size_t>(in)], where, ": reads '", value(in).name,
                  "' before it is produced");
    }
    for (ValueId out : n.outputs) {
      if (out == kNoValue) continue;  // an omitted optional output
      check_id(out, where);
      LATHE_CHECK(value(out).producer == static_cast<int>(i), where, ": output '", value(out).name,
                  "' has another producer");
      available[static_cast<size_t>(out)] = true;
    }
    for (const auto& sub : n.subgraphs) {
      LATHE_CHECK(sub, where, ": has an empty subgraph");
      try {
        sub->verify();
      } catch (const Error& e) {
        fail(str(where, ", subgraph '", sub->name, "': ", e.what()));
      }
    }
  }
  for (ValueId out : outputs) {
    check_id(out, "graph output");
    LATHE_CHECK(available[static_cast<size_t>(out)], "graph output '", value(out).name,
                "' is never produced");
  }
}

std::string describe_node(const Node& node) {
  return "'" + node.name + "' (" + node.op + ")";
}

}  // namespace lathe

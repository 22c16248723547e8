// Builds graphs for tests node by node, typing each output by shape inference
// as the importer does.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "passes/graph_edit.h"

namespace lathe::testing {

// Seeded values in [-1, 1).
inline Tensor random_tensor(Shape shape, uint32_t seed) {
  Tensor t(DType::Float32, std::move(shape));
  uint32_t s = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return t;
}

inline Attributes attrs_of(std::initializer_list<std::pair<std::string, Attribute>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

struct GraphBuilder {
  Graph g;

  ValueId input(const std::string& name, Shape shape, DType dtype = DType::Float32) {
    const ValueId id = g.add_value(name, {dtype, std::move(shape)});
    g.inputs.push_back(id);
    return id;
  }
  ValueId constant(const std::string& name, Tensor t) { return g.add_constant(name, std::move(t)); }

  // A node with `outputs` outputs named after it.
  std::vector<ValueId> node_n(const std::string& op, const std::string& name,
                              std::vector<ValueId> inputs, Attributes attrs, size_t outputs) {
    Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    for (size_t k = 0; k < outputs; ++k)
      n.outputs.push_back(
          g.add_value(outputs == 1 ? name + "_out" : name + "_out" + std::to_string(k), {}));
    const std::vector<TensorType> types = passes::infer_types(g, n);
    for (size_t k = 0; k < outputs; ++k) g.value(n.outputs[k]).type = types[k];
    std::vector<ValueId> outs = n.outputs;
    g.add_node(std::move(n));
    return outs;
  }
  ValueId node(const std::string& op, const std::string& name, std::vector<ValueId> inputs,
               Attributes attrs = {}) {
    return node_n(op, name, std::move(inputs), std::move(attrs), 1)[0];
  }
  // A one-output node named after its op and position.
  ValueId add(const std::string& op, std::vector<ValueId> inputs, Attributes attrs = {}) {
    return node(op, op + std::to_string(g.nodes.size()), std::move(inputs), std::move(attrs));
  }

  Graph finish(std::vector<ValueId> outputs) {
    g.outputs = std::move(outputs);
    g.verify();
    return g;
  }
};

}  // namespace lathe::testing

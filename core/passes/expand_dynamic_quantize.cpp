#include "passes/expand_dynamic_quantize.h"

#include "passes/graph_edit.h"

namespace lathe::passes {

Graph expand_dynamic_quantize(const Graph& input) {
  Graph graph = input;
  NameTable names(graph);
  NodeEmitter emit(graph, names);
  replace_nodes(graph, [&](const Node& node) {
    if (node.op != "DynamicQuantizeLinear" || !node.has_input(0)) return false;
    const std::string& name = node.name;
    const ValueId x = node.inputs[0];
    auto scalar = [&](const std::string& role, float v) {
      return graph.add_constant(names.value(name + "_" + role), Tensor::scalar<float>(v));
    };
    auto op = [&](const std::string& suffix, const std::string& type, std::vector<ValueId> in,
                  Attributes attrs = {}) {
      return emit.append(name + "_" + suffix, type, std::move(in), std::move(attrs), "_" + suffix);
    };
    // Writes `type(in)` into the node's output k, or into a new value when
    // nothing reads that output.
    auto into_output = [&](size_t k, const std::string& suffix, const std::string& type,
                           std::vector<ValueId> in, Attributes attrs = {}) {
      if (k >= node.outputs.size() || node.outputs[k] == kNoValue)
        return op(suffix, type, std::move(in), std::move(attrs));
      Node n;
      n.name = names.node(name + "_" + suffix);
      n.op = type;
      n.inputs = std::move(in);
      n.attrs = std::move(attrs);
      n.outputs = {node.outputs[k]};
      graph.add_node(std::move(n));
      return node.outputs[k];
    };
    Attributes all;
    all.set("keepdims", int64_t{0});
    const ValueId zero = scalar("zero", 0.f);
    const ValueId lo = op("range_min", "Min", {op("min", "ReduceMin", {x}, all), zero});
    const ValueId hi = op("range_max", "Max", {op("max", "ReduceMax", {x}, all), zero});
    const ValueId step = op("step", "Div", {op("range", "Sub", {hi, lo}), scalar("levels", 255.f)});
    const ValueId scale =
        into_output(1, "scale", "Where", {op("flat", "Equal", {hi, lo}), scalar("one", 1.f), step});
    const ValueId initial = op("initial", "Sub", {zero, op("lo_steps", "Div", {lo, scale})});
    const ValueId clamped = op("clamped", "Clip", {initial, zero, scalar("top", 255.f)});
    Attributes to_u8;
    to_u8.set("to", int64_t{2});  // ONNX's UINT8
    const ValueId zero_point =
        into_output(2, "zero_point", "Cast", {op("rounded", "Round", {clamped})}, to_u8);
    into_output(0, "quantize", "QuantizeLinear", {x, scale, zero_point});
    return true;
  });
  return graph;
}

}  // namespace lathe::passes

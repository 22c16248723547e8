#include "passes/drop_qdq_pairs.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

// The per-tensor parameters of a DequantizeLinear or QuantizeLinear: the
// integer type, the scale and the zero point (0 when omitted, as ONNX says).
struct QuantParams {
  DType dtype = DType::UInt8;
  float scale = 0.0f;
  int32_t zero_point = 0;

  bool operator==(const QuantParams&) const = default;
};

// The parameters of a per-tensor (de)quantize `node` whose scale and zero
// point are constants and whose integer side has type `integer`.
std::optional<QuantParams> per_tensor_params(const Graph& graph, const Node& node, DType integer) {
  if (integer != DType::UInt8 && integer != DType::Int8) return std::nullopt;
  const Tensor* scale = constant_input(graph, node, 1);
  if (!scale || scale->dtype() != DType::Float32 || scale->numel() != 1) return std::nullopt;
  QuantParams p;
  p.dtype = integer;
  p.scale = scale->data<float>()[0];
  if (node.has_input(2)) {
    const Tensor* zero = constant_input(graph, node, 2);
    if (!zero || zero->numel() != 1 || zero->dtype() != integer) return std::nullopt;
    p.zero_point = static_cast<int32_t>(zero->element_as_double(0));
  }
  return p;
}

// Ops whose every listed data input is read through the dequantize.
enum class Role { Pool, Movement, Concat };

std::optional<Role> role_of(const std::string& op) {
  if (op == "MaxPool" || op == "GlobalMaxPool") return Role::Pool;
  if (op == "Flatten" || op == "Reshape" || op == "Transpose" || op == "Squeeze" ||
      op == "Unsqueeze" || op == "Identity")
    return Role::Movement;
  if (op == "Concat") return Role::Concat;
  return std::nullopt;
}

class QdqPairDropper {
 public:
  explicit QdqPairDropper(Graph& graph) : graph_(graph), names_(graph), emit_(graph, names_) {
    for (const Node& n : graph.nodes)
      if (n.op == "DequantizeLinear" && n.outputs.size() == 1 && n.has_input(0) && n.has_input(1))
        if (auto p = per_tensor_params(graph, n, graph.type(n.inputs[0]).dtype))
          dequantized_[n.outputs[0]] = {n.inputs[0], *p};
    const std::vector<std::vector<int>> consumers = value_consumers(graph);
    for (const Node& n : graph.nodes) {
      if (auto q = quantize_after(n, consumers)) {
        dropped_.insert(n.name);
        op_of_q_[graph.nodes[static_cast<size_t>(*q)].name] = n;
      }
    }
  }

  void run() {
    replace_nodes(graph_, [this](const Node& node) { return rewrite(node); });
  }

 private:
  struct Dequantized {
    ValueId integers = kNoValue;
    QuantParams params;
  };

  // The data inputs of `n` that the dequantize must feed.
  static std::vector<size_t> data_inputs(const Node& n, Role role) {
    if (role != Role::Concat) return {0};
    std::vector<size_t> all(n.inputs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }

  // The index of the QuantizeLinear that alone reads `n`'s output and whose
  // parameters are those of every dequantize feeding `n`, when `n` is an op
  // of role_of() the pair can be dropped around.
  std::optional<int> quantize_after(const Node& n,
                                    const std::vector<std::vector<int>>& consumers) const {
    const std::optional<Role> role = role_of(n.op);
    if (!role || n.outputs.empty() || n.outputs[0] == kNoValue || !n.has_input(0) ||
        is_graph_output(graph_, n.outputs[0]))
      return std::nullopt;
    // MaxPool's Indices, where the node has them, stay with the float pool.
    for (size_t k = 1; k < n.outputs.size(); ++k)
      if (n.outputs[k] != kNoValue) return std::nullopt;
    // A Concat's inputs may differ from its output (see rewrite()).
    std::optional<QuantParams> params;
    for (size_t i : data_inputs(n, *role)) {
      const auto it = n.has_input(i) ? dequantized_.find(n.inputs[i]) : dequantized_.end();
      if (it == dequantized_.end() ||
          (*role != Role::Concat && params && !(*params == it->second.params)))
        return std::nullopt;
      if (!params) params = it->second.params;
    }
    if (*role == Role::Pool && !(params->scale > 0.0f)) return std::nullopt;
    const std::vector<int>& readers = consumers[static_cast<size_t>(n.outputs[0])];
    if (readers.size() != 1) return std::nullopt;
    const Node& q = graph_.nodes[static_cast<size_t>(readers[0])];
    if (q.op != "QuantizeLinear" || q.outputs.size() != 1 || q.inputs[0] != n.outputs[0] ||
        !q.has_input(1))
      return std::nullopt;
    const std::optional<QuantParams> out =
        per_tensor_params(graph_, q, graph_.type(q.outputs[0]).dtype);
    if (!out || (*role != Role::Concat && !(*out == *params))) return std::nullopt;
    return readers[0];
  }

  bool rewrite(const Node& node) {
    if (dropped_.count(node.name)) return true;  // emitted in place of its QuantizeLinear
    const auto it = op_of_q_.find(node.name);
    if (it == op_of_q_.end()) return false;
    Node op = it->second;
    const QuantParams out = *per_tensor_params(graph_, node, graph_.type(node.outputs[0]).dtype);
    for (size_t i : data_inputs(op, *role_of(op.op))) {
      const Dequantized& in = dequantized_.at(op.inputs[i]);
      // A Concat input of other parameters is quantized with the output's
      // before the Concat instead of after it: the same elementwise
      // QuantizeLinear of the same values (GoogLeNet's branches), which
      // fuses into the branch's producer, so the Concat moves integers.
      op.inputs[i] =
          in.params == out
              ? in.integers
              : emit_.append(node.name + "_input" + std::to_string(i), "QuantizeLinear",
                             requantize_inputs(node, op.inputs[i]), node.attrs, "_requantized");
    }
    op.outputs = {node.outputs[0]};
    graph_.add_node(std::move(op));
    return true;
  }

  // The QuantizeLinear `q`'s inputs with `x` as its data.
  static std::vector<ValueId> requantize_inputs(const Node& q, ValueId x) {
    std::vector<ValueId> inputs = q.inputs;
    inputs[0] = x;
    return inputs;
  }

  Graph& graph_;
  NameTable names_;
  NodeEmitter emit_;
  std::map<ValueId, Dequantized> dequantized_;
  std::set<std::string> dropped_;        // ops emitted in place of their QuantizeLinear
  std::map<std::string, Node> op_of_q_;  // QuantizeLinear name -> the op it follows
};

}  // namespace

Graph drop_qdq_pairs(const Graph& graph) {
  Graph out = graph;
  QdqPairDropper(out).run();
  return out;
}

}  // namespace lathe::passes

// Rules on inference BatchNormalization, y = (x - mean) * s + beta with
// s = scale / sqrt(var + eps):
// - after a Conv it folds into the Conv's weights and bias: conv(x) with
//   W' = W * s per output channel and B' = (B - mean) * s + beta;
// - elsewhere (after a Concat, a pool, an input) it becomes x * s + t with
//   t = beta - mean * s, per-channel constants of shape [C, 1, ...]: the
//   square root leaves the kernel, and the layout pass can run the Mul and
//   Add channel-blocked like any other per-channel op.
#include <cmath>

#include "passes/simplify_rules.h"

namespace lathe::passes::rules {
namespace {

bool float32_constants(const Graph& graph, const Node& node, size_t first, size_t last) {
  for (size_t i = first; i <= last; ++i) {
    const Tensor* t = constant_input(graph, node, i);
    if (!t || t->dtype() != DType::Float32) return false;
  }
  return true;
}

// True for a BatchNormalization in inference mode whose parameters are
// float32 constants and whose running-statistics outputs nobody reads.
bool inference_batch_norm(const Graph& graph, const Node& bn, const std::vector<int>& uses) {
  if (bn.op != "BatchNormalization" || bn.attrs.get_int("training_mode", 0) != 0) return false;
  if (bn.outputs.empty() || bn.outputs[0] == kNoValue || !bn.has_input(0) ||
      !float32_constants(graph, bn, 1, 4))
    return false;
  for (size_t k = 1; k < bn.outputs.size(); ++k)  // running statistics, training mode only
    if (bn.outputs[k] != kNoValue && uses[static_cast<size_t>(bn.outputs[k])] != 0) return false;
  return true;
}

}  // namespace

bool batch_norm_to_scale_shift(Graph& graph) {
  const std::vector<int> uses = graph.use_counts();
  NameTable names(graph);
  std::vector<Node> nodes = std::move(graph.nodes);
  graph.nodes.clear();
  bool changed = false;
  for (Node& bn : nodes) {
    const TensorType x = bn.has_input(0) ? graph.type(bn.inputs[0]) : TensorType{};
    if (!inference_batch_norm(graph, bn, uses) || x.dtype != DType::Float32 || x.rank() < 2) {
      graph.nodes.push_back(std::move(bn));
      continue;
    }
    const int64_t channels = x.shape[1];
    Shape per_channel(x.rank() - 1, 1);
    per_channel[0] = channels;
    Tensor s(DType::Float32, per_channel), t(DType::Float32, per_channel);
    const float* scale = constant_input(graph, bn, 1)->data<float>();
    const float* beta = constant_input(graph, bn, 2)->data<float>();
    const float* mean = constant_input(graph, bn, 3)->data<float>();
    const float* var = constant_input(graph, bn, 4)->data<float>();
    const double eps = bn.attrs.get_float("epsilon", 1e-5f);
    for (int64_t c = 0; c < channels; ++c) {
      const double sc = scale[c] / std::sqrt(static_cast<double>(var[c]) + eps);
      s.data<float>()[c] = static_cast<float>(sc);
      t.data<float>()[c] = static_cast<float>(beta[c] - mean[c] * sc);
    }
    Node mul;
    mul.name = names.node(bn.name + "_scale");
    mul.op = "Mul";
    mul.inputs = {bn.inputs[0], graph.add_constant(names.value(bn.name + "_scale"), std::move(s))};
    mul.outputs = {graph.add_value(names.value(bn.name + "_scaled"), x)};
    Node add;
    add.name = bn.name;
    add.op = "Add";
    add.inputs = {mul.outputs[0],
                  graph.add_constant(names.value(bn.name + "_shift"), std::move(t))};
    add.outputs = {bn.outputs[0]};
    graph.nodes.push_back(std::move(mul));
    graph.nodes.push_back(std::move(add));
    changed = true;
  }
  reset_producers(graph);
  graph.remove_unused_values();
  return changed;
}

bool fold_batch_norm(Graph& graph) {
  const std::vector<int> uses = graph.use_counts();
  NameTable names(graph);
  std::vector<bool> keep(graph.nodes.size(), true);
  bool changed = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& bn = graph.nodes[i];
    if (!inference_batch_norm(graph, bn, uses)) continue;
    const ValueId x = bn.inputs[0];
    const int producer = graph.value(x).producer;
    if (producer < 0 || !keep[static_cast<size_t>(producer)] || !single_use(graph, x, uses))
      continue;
    Node& conv = graph.nodes[static_cast<size_t>(producer)];
    if (conv.op != "Conv" || conv.outputs.size() != 1 || !float32_constants(graph, conv, 1, 1) ||
        (conv.has_input(2) && !float32_constants(graph, conv, 2, 2)))
      continue;

    const Tensor& w = *constant_input(graph, conv, 1);
    const int64_t filters = w.shape()[0];
    const int64_t per_filter = w.numel() / filters;
    const float* scale = constant_input(graph, bn, 1)->data<float>();
    const float* beta = constant_input(graph, bn, 2)->data<float>();
    const float* mean = constant_input(graph, bn, 3)->data<float>();
    const float* var = constant_input(graph, bn, 4)->data<float>();
    const double eps = bn.attrs.get_float("epsilon", 1e-5f);
    const float* bias = conv.has_input(2) ? constant_input(graph, conv, 2)->data<float>() : nullptr;

    Tensor new_w(w.type());
    Tensor new_b(DType::Float32, {filters});
    const float* pw = w.data<float>();
    float* qw = new_w.data<float>();
    float* qb = new_b.data<float>();
    for (int64_t o = 0; o < filters; ++o) {
      const double s = scale[o] / std::sqrt(static_cast<double>(var[o]) + eps);
      for (int64_t k = 0; k < per_filter; ++k)
        qw[o * per_filter + k] = static_cast<float>(pw[o * per_filter + k] * s);
      qb[o] = static_cast<float>(((bias ? bias[o] : 0.0) - mean[o]) * s + beta[o]);
    }
    set_constant_input(graph, conv, 1, std::move(new_w), "weight", uses, names);
    set_constant_input(graph, conv, 2, std::move(new_b), "bias", uses, names);
    // The Conv now produces what the BatchNormalization did, under its name.
    conv.outputs[0] = bn.outputs[0];
    keep[i] = false;
    changed = true;
  }
  if (changed) remove_nodes(graph, keep);
  return changed;
}

}  // namespace lathe::passes::rules

// Rule: a Mul or Add by a constant that is a scalar or holds one value per
// output channel folds into the Conv or Gemm producing the other operand:
// a scale multiplies the weights (and bias), a shift adds to the bias.
#include "passes/simplify_rules.h"

namespace lathe::passes::rules {
namespace {

// The constant's value for each of `channels` output channels when it is a
// scalar or lies along `axis` of a rank-`rank` output ([C,1,1] or [1,C,1,1]
// for a 4-D Conv; [N] or [1,N] for Gemm); empty otherwise.
std::vector<double> per_channel(const Tensor& c, int64_t channels, int rank, int axis) {
  if (c.dtype() != DType::Float32) return {};
  if (c.numel() == 1 && c.rank() <= rank)
    return std::vector<double>(channels, c.element_as_double(0));
  if (c.numel() != channels || c.rank() > rank) return {};
  // Aligned to the right against the output, only `axis` may be non-unit.
  const int offset = rank - c.rank();
  for (int d = 0; d < c.rank(); ++d)
    if (d + offset != axis && c.shape()[static_cast<size_t>(d)] != 1) return {};
  if (axis - offset < 0) return {};
  std::vector<double> v(static_cast<size_t>(channels));
  for (int64_t o = 0; o < channels; ++o) v[static_cast<size_t>(o)] = c.element_as_double(o);
  return v;
}

bool float32_constant_or_absent(const Graph& graph, const Node& node, size_t i) {
  if (!node.has_input(i)) return true;
  const Tensor* t = constant_input(graph, node, i);
  return t && t->dtype() == DType::Float32;
}

// Conv: W'[o] = W[o] * c[o], B'[o] = B[o] * c[o] (Mul); B'[o] = B[o] + c[o] (Add).
bool fold_into_conv(Graph& graph, Node& conv, const std::vector<double>& c, bool scale,
                    const std::vector<int>& uses, NameTable& names) {
  if (!float32_constant_or_absent(graph, conv, 2)) return false;
  const int64_t filters = static_cast<int64_t>(c.size());
  const Tensor* bias = constant_input(graph, conv, 2);
  Tensor new_b(DType::Float32, {filters});
  for (int64_t o = 0; o < filters; ++o) {
    const double b = bias ? bias->data<float>()[o] : 0.0;
    new_b.data<float>()[o] =
        static_cast<float>(scale ? b * c[static_cast<size_t>(o)] : b + c[static_cast<size_t>(o)]);
  }
  if (scale) {
    const Tensor* w = constant_input(graph, conv, 1);
    if (!w || w->dtype() != DType::Float32) return false;
    Tensor new_w(w->type());
    const int64_t per_filter = w->numel() / filters;
    for (int64_t k = 0; k < w->numel(); ++k)
      new_w.data<float>()[k] =
          static_cast<float>(w->data<float>()[k] * c[static_cast<size_t>(k / per_filter)]);
    set_constant_input(graph, conv, 1, std::move(new_w), "weight", uses, names);
  }
  if (bias || !scale) set_constant_input(graph, conv, 2, std::move(new_b), "bias", uses, names);
  return true;
}

// Gemm Y = alpha * A'B' + beta * C. Mul by c[n]: B's column n (row n when
// transB) and C scale by c[n]. Add of c[n]: C' = beta * C + c, beta = 1.
bool fold_into_gemm(Graph& graph, Node& gemm, const std::vector<double>& c, bool scale,
                    const std::vector<int>& uses, NameTable& names) {
  if (!float32_constant_or_absent(graph, gemm, 2)) return false;
  const Shape& out = graph.type(gemm.outputs[0]).shape;
  const int64_t m = out[0], n = out[1];
  const Tensor* bias = constant_input(graph, gemm, 2);
  const double beta = gemm.attrs.get_float("beta", 1.0f);
  // C keeps one row unless it varies along M.
  const bool full = bias && bias->rank() == 2 && bias->shape()[0] == m && m > 1;
  const Shape c_shape = full ? Shape{m, n} : Shape{n};
  Tensor new_c(DType::Float32, c_shape);
  if (bias || !scale) {
    const std::vector<int64_t> strides = [&] {
      if (!bias) return std::vector<int64_t>{0, 0};
      Shape s = bias->shape();
      while (s.size() < 2) s.insert(s.begin(), 1);
      return std::vector<int64_t>{s[0] == 1 ? 0 : s[1], s[1] == 1 ? 0 : 1};
    }();
    for (int64_t r = 0; r < (full ? m : 1); ++r)
      for (int64_t j = 0; j < n; ++j) {
        const double b = bias ? bias->data<float>()[r * strides[0] + j * strides[1]] : 0.0;
        const double cj = c[static_cast<size_t>(j)];
        new_c.data<float>()[r * n + j] = static_cast<float>(scale ? b * cj : beta * b + cj);
      }
  }
  if (scale) {
    const Tensor* w = constant_input(graph, gemm, 1);
    if (!w || w->dtype() != DType::Float32) return false;
    const bool trans_b = gemm.attrs.get_int("transB", 0) != 0;
    Tensor new_w(w->type());
    const int64_t cols = w->shape()[1];
    for (int64_t k = 0; k < w->numel(); ++k) {
      const int64_t column = trans_b ? k / cols : k % cols;
      new_w.data<float>()[k] =
          static_cast<float>(w->data<float>()[k] * c[static_cast<size_t>(column)]);
    }
    set_constant_input(graph, gemm, 1, std::move(new_w), "weight", uses, names);
  } else {
    gemm.attrs.set("beta", 1.0f);
  }
  if (bias || !scale) set_constant_input(graph, gemm, 2, std::move(new_c), "bias", uses, names);
  return true;
}

}  // namespace

bool fold_scale_and_shift(Graph& graph) {
  const std::vector<int> uses = graph.use_counts();
  NameTable names(graph);
  std::vector<bool> keep(graph.nodes.size(), true);
  bool changed = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& op = graph.nodes[i];
    if ((op.op != "Mul" && op.op != "Add") || op.inputs.size() != 2 || !op.has_input(0) ||
        !op.has_input(1) || op.outputs.size() != 1)
      continue;
    for (size_t side = 0; side < 2; ++side) {
      const ValueId x = op.inputs[side];
      const Tensor* c = constant_input(graph, op, 1 - side);
      const int producer = graph.value(x).producer;
      if (!c || producer < 0 || !keep[static_cast<size_t>(producer)] || !single_use(graph, x, uses))
        continue;
      // The result must have the producer's type: no broadcasting beyond it.
      if (graph.type(op.outputs[0]) != graph.type(x)) continue;
      Node& target = graph.nodes[static_cast<size_t>(producer)];
      const Shape& shape = graph.type(x).shape;
      const bool scale = op.op == "Mul";
      bool folded = false;
      if (target.op == "Conv" && target.outputs.size() == 1 && shape.size() >= 3) {
        const std::vector<double> v = per_channel(*c, shape[1], static_cast<int>(shape.size()), 1);
        folded = !v.empty() && fold_into_conv(graph, target, v, scale, uses, names);
      } else if (target.op == "Gemm" && shape.size() == 2) {
        const std::vector<double> v = per_channel(*c, shape[1], 2, 1);
        folded = !v.empty() && fold_into_gemm(graph, target, v, scale, uses, names);
      }
      if (!folded) continue;
      target.outputs[0] = op.outputs[0];
      keep[i] = false;
      changed = true;
      break;
    }
  }
  if (changed) remove_nodes(graph, keep);
  return changed;
}

}  // namespace lathe::passes::rules

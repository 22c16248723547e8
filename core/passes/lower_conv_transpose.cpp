#include "passes/lower_conv_transpose.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include "ir/ops/window_geometry.h"
#include "passes/graph_edit.h"
#include "support/int_math.h"

namespace lathe::passes {
namespace {

// Where the sub-pixel form of one spatial axis puts its rows.
struct AxisPlan {
  int64_t stride, taps;        // s and J = ceil(K / s)
  int64_t pad_begin, pad_end;  // of the Conv
  int64_t conv_extent;         // L, the Conv's output rows
  int64_t crop;                // first interleaved row that is an output row
};

// Conv row u computes q = u + q_first, q_first = J - 1 - pad_begin; the
// interleaved row (q - q_first) * s + r holds output row q * s + r - pad.
AxisPlan plan_axis(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t pad) {
  AxisPlan a;
  a.stride = stride;
  a.taps = ceildiv(kernel, stride);
  const int64_t q_lo = pad / stride, q_hi = (pad + out - 1) / stride;
  a.pad_begin = std::max<int64_t>(0, a.taps - 1 - q_lo);
  const int64_t q_first = a.taps - 1 - a.pad_begin;
  a.pad_end = std::max<int64_t>(0, q_hi - q_first + a.taps - in - a.pad_begin);
  a.conv_extent = in + a.pad_begin + a.pad_end - a.taps + 1;
  a.crop = pad - q_first * stride;
  return a;
}

class ConvTransposeLowering {
 public:
  explicit ConvTransposeLowering(Graph& graph)
      : graph_(graph), names_(graph), nodes_(graph, names_) {}

  void run() {
    replace_nodes(graph_, [this](const Node& node) { return lower(node); });
  }

 private:
  bool lower(const Node& node) {
    if (node.op != "ConvTranspose" || node.outputs.size() != 1 || !node.has_input(0) ||
        !node.has_input(1))
      return false;
    // Copies throughout: adding values moves the graph's value list.
    const TensorType xt = graph_.type(node.inputs[0]);
    const Tensor* w = constant_input(graph_, node, 1);
    const Tensor* b = node.has_input(2) ? constant_input(graph_, node, 2) : nullptr;
    if (xt.dtype != DType::Float32 || !w || w->dtype() != DType::Float32 ||
        (node.has_input(2) && (!b || b->dtype() != DType::Float32)))
      return false;
    const size_t nd = xt.rank() - 2;
    if (xt.rank() < 3 || nd > 3 || node.attrs.get_int("group", 1) != 1) return false;
    for (int64_t d : node.attrs.get_ints("dilations"))
      if (d != 1) return false;
    const Shape x = xt.shape;
    const Shape y = graph_.type(node.outputs[0]).shape;
    const Shape kernel(w->shape().begin() + 2, w->shape().end());
    std::vector<int64_t> strides = node.attrs.get_ints("strides");
    if (strides.empty()) strides.assign(nd, 1);
    const std::vector<int64_t> pads = conv_transpose_pad_begin(node.attrs, x, y, kernel);
    std::vector<AxisPlan> axes;
    for (size_t k = 0; k < nd; ++k) {
      if (pads[k] < 0) return false;
      axes.push_back(plan_axis(x[2 + k], y[2 + k], kernel[k], strides[k], pads[k]));
    }

    const int64_t phases =
        std::accumulate(strides.begin(), strides.end(), int64_t{1}, std::multiplies<int64_t>());
    const int64_t channels = x[1], filters = y[1];
    const Tensor weight = *w, bias = b ? *b : Tensor();
    const ValueId conv =
        emit_conv(node, weight, b ? &bias : nullptr, axes, phases * filters, channels);
    ValueId result = conv;
    if (phases > 1) result = interleave(node, conv, axes, filters);
    crop(node, result, axes, y);
    return true;
  }

  // W'[(phase) * M + f, c, t...] = W[c, f, r + s * (J - 1 - t)...], zero past K.
  ValueId emit_conv(const Node& node, const Tensor& w, const Tensor* b,
                    const std::vector<AxisPlan>& axes, int64_t out_channels, int64_t channels) {
    const size_t nd = axes.size();
    const int64_t filters = w.shape()[1];
    Shape shape = {out_channels, channels};
    for (const AxisPlan& a : axes) shape.push_back(a.taps);
    Tensor weight(DType::Float32, shape);
    float* dst = weight.data<float>();
    const float* src = w.data<float>();
    const Shape& ws = w.shape();
    std::vector<int64_t> idx(shape.size(), 0);  // [o, c, t...]
    for (int64_t e = 0; e < weight.numel(); ++e) {
      int64_t rest = e;
      for (size_t d = shape.size(); d-- > 0;) {
        idx[d] = rest % shape[d];
        rest /= shape[d];
      }
      const int64_t f = idx[0] % filters;
      int64_t phase = idx[0] / filters;
      int64_t offset = idx[1] * ws[1] + f;  // W[c, f, ...]
      bool inside = true;
      // Phases are row-major over the axes: the last axis varies fastest.
      std::vector<int64_t> r(nd);
      for (size_t k = nd; k-- > 0;) {
        r[k] = phase % axes[k].stride;
        phase /= axes[k].stride;
      }
      for (size_t k = 0; k < nd; ++k) {
        const int64_t tap = r[k] + axes[k].stride * (axes[k].taps - 1 - idx[2 + k]);
        inside = inside && tap < ws[2 + k];
        offset = offset * ws[2 + k] + tap;
      }
      dst[e] = inside ? src[offset] : 0.0f;
    }
    std::vector<ValueId> inputs = {
        node.inputs[0],
        graph_.add_constant(names_.value(node.name + "_subpixel_weight"), std::move(weight))};
    if (b) {
      Tensor bias(DType::Float32, {out_channels});
      for (int64_t o = 0; o < out_channels; ++o)
        bias.data<float>()[o] = b->data<float>()[o % filters];
      inputs.push_back(
          graph_.add_constant(names_.value(node.name + "_subpixel_bias"), std::move(bias)));
    }
    Attributes attrs;
    std::vector<int64_t> kernel, pads(2 * nd), ones(nd, 1);
    for (size_t k = 0; k < nd; ++k) {
      kernel.push_back(axes[k].taps);
      pads[k] = axes[k].pad_begin;
      pads[nd + k] = axes[k].pad_end;
    }
    attrs.set("kernel_shape", kernel);
    attrs.set("strides", ones);
    attrs.set("dilations", ones);
    attrs.set("pads", pads);
    attrs.set("group", int64_t{1});
    return emit(node.name, "Conv", std::move(inputs), std::move(attrs), "_subpixel");
  }

  // [N, S*M, L...] -> [N, s..., M, L...] -> [N, M, L0, s0, ...] -> [N, M, L0*s0, ...].
  ValueId interleave(const Node& node, ValueId conv, const std::vector<AxisPlan>& axes,
                     int64_t filters) {
    const size_t nd = axes.size();
    const int64_t n = graph_.type(conv).shape[0];
    std::vector<int64_t> split = {n}, merged = {n, filters},
                         perm = {0, static_cast<int64_t>(nd) + 1};
    for (const AxisPlan& a : axes) split.push_back(a.stride);
    split.push_back(filters);
    for (const AxisPlan& a : axes) split.push_back(a.conv_extent);
    for (size_t k = 0; k < nd; ++k) {
      perm.push_back(static_cast<int64_t>(nd + 2 + k));
      perm.push_back(static_cast<int64_t>(1 + k));
      merged.push_back(axes[k].conv_extent * axes[k].stride);
    }
    const ValueId phased = reshape(node, conv, split, "_phases");
    Attributes attrs;
    attrs.set("perm", perm);
    const ValueId moved =
        emit(node.name + "_interleave", "Transpose", {phased}, std::move(attrs), "_interleaved");
    return reshape(node, moved, merged, "_rows");
  }

  // Slices the output rows out of `v` (a copy when nothing is cut) into the
  // ConvTranspose's own output value.
  void crop(const Node& node, ValueId v, const std::vector<AxisPlan>& axes, const Shape& y) {
    const size_t nd = axes.size();
    std::vector<int64_t> starts, ends, axis_ids;
    const Shape have = graph_.type(v).shape;
    for (size_t k = 0; k < nd; ++k) {
      if (axes[k].crop == 0 && have[2 + k] == y[2 + k]) continue;
      starts.push_back(axes[k].crop);
      ends.push_back(axes[k].crop + y[2 + k]);
      axis_ids.push_back(static_cast<int64_t>(2 + k));
    }
    Node last;
    if (starts.empty()) {
      last = std::move(graph_.nodes.back());
      graph_.nodes.pop_back();
    } else {
      auto constant = [&](const char* role, const std::vector<int64_t>& values) {
        return nodes_.ints(node.name + "_" + role, values);
      };
      last.name = names_.node(node.name + "_crop");
      last.op = "Slice";
      last.inputs = {v, constant("starts", starts), constant("ends", ends),
                     constant("axes", axis_ids)};
    }
    // The last node writes the ConvTranspose's output value, which keeps its
    // name and readers; the node producing it takes the ConvTranspose's name.
    last.outputs = {node.outputs[0]};
    last.name = node.name;
    graph_.add_node(std::move(last));
  }

  ValueId reshape(const Node& node, ValueId v, const std::vector<int64_t>& shape,
                  const char* suffix) {
    return nodes_.reshape(node.name + suffix, v, shape, suffix);
  }

  ValueId emit(const std::string& name, const std::string& op, std::vector<ValueId> inputs,
               Attributes attrs, const char* value_suffix) {
    return nodes_.append(name, op, std::move(inputs), std::move(attrs), value_suffix);
  }

  Graph& graph_;
  NameTable names_;
  NodeEmitter nodes_;
};

}  // namespace

Graph lower_conv_transpose(const Graph& input) {
  Graph graph = input;
  ConvTransposeLowering(graph).run();
  return graph;
}

}  // namespace lathe::passes

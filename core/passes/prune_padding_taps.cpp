#include "passes/prune_padding_taps.h"

#include <cstring>

#include "ir/ops/window_geometry.h"
#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

// Whether output positions o in [0, out) at input o*stride + offset hit [0, in).
bool reads_input(int64_t offset, int64_t stride, int64_t out, int64_t in) {
  const int64_t first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  return first < out && offset + first * stride < in;
}

// w [M, C/g, K...] restricted to taps [begin[d], begin[d] + extent[d]) per spatial axis.
Tensor slice_taps(const Tensor& w, const std::vector<int64_t>& begin,
                  const std::vector<int64_t>& extent) {
  const Shape& shape = w.shape();
  const size_t spatial = shape.size() - 2;
  Shape out_shape = {shape[0], shape[1]};
  for (int64_t e : extent) out_shape.push_back(e);
  Tensor out(w.dtype(), out_shape);
  const float* src = w.data<float>();
  float* dst = out.data<float>();
  const int64_t filters = shape[0] * shape[1];
  std::vector<int64_t> in_strides(spatial, 1);
  for (size_t d = spatial; d-- > 1;) in_strides[d - 1] = in_strides[d] * shape[d + 2];
  int64_t in_taps = 1, out_taps = 1;
  for (size_t d = 0; d < spatial; ++d) {
    in_taps *= shape[d + 2];
    out_taps *= extent[d];
  }
  std::vector<int64_t> at(spatial, 0);
  for (int64_t t = 0; t < out_taps; ++t) {
    int64_t rest = t, offset = 0;
    for (size_t d = spatial; d-- > 0;) {
      at[d] = rest % extent[d];
      rest /= extent[d];
      offset += (begin[d] + at[d]) * in_strides[d];
    }
    for (int64_t f = 0; f < filters; ++f) dst[f * out_taps + t] = src[f * in_taps + offset];
  }
  return out;
}

}  // namespace

Graph prune_padding_taps(const Graph& input) {
  Graph graph = input;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.op != "Conv" || node.outputs.size() != 1 || !node.has_input(0)) continue;
    const Tensor* w = constant_input(graph, node, 1);
    if (!w || w->dtype() != DType::Float32 || w->rank() < 3) continue;
    const Shape x = graph.type(node.inputs[0]).shape;
    const Shape y = graph.type(node.outputs[0]).shape;
    const size_t spatial = static_cast<size_t>(w->rank()) - 2;
    if (x.size() != spatial + 2 || y.size() != spatial + 2) continue;
    const Shape kernel(w->shape().begin() + 2, w->shape().end());
    const SpatialWindow window = resolve_window(node.attrs, Shape(x.begin() + 2, x.end()),
                                                Shape(y.begin() + 2, y.end()), kernel);
    std::vector<int64_t> begin(spatial), extent(spatial), dilations = window.dilations;
    std::vector<int64_t> pad_begin = window.pad_begin, pad_end = window.pad_end;
    bool pruned = false, keep = true;
    for (size_t d = 0; d < spatial && keep; ++d) {
      const int64_t k_n = kernel[d], dil = window.dilations[d], stride = window.strides[d];
      auto live = [&](int64_t k) {
        return reads_input(k * dil - window.pad_begin[d], stride, y[d + 2], x[d + 2]);
      };
      int64_t first = 0, last = k_n - 1;
      while (first < k_n && !live(first)) ++first;
      while (last > first && !live(last)) --last;
      if (first == k_n) {
        keep = false;  // nothing but padding: the bias alone; rare, left to the conv
        break;
      }
      begin[d] = first;
      extent[d] = last - first + 1;
      pad_begin[d] -= first * dil;
      pad_end[d] -= (k_n - 1 - last) * dil;
      if (extent[d] == 1) dilations[d] = 1;
      pruned |= extent[d] != k_n;
      keep = pad_begin[d] >= 0 && pad_end[d] >= 0;
    }
    if (!keep || !pruned) continue;

    const ValueId weight = graph.add_constant(graph.value(node.inputs[1]).name + "_live_taps",
                                              slice_taps(*w, begin, extent));
    Node& conv = graph.nodes[n];
    conv.inputs[1] = weight;
    Attributes attrs;
    attrs.set("kernel_shape", extent);
    attrs.set("strides", window.strides);
    attrs.set("dilations", dilations);
    std::vector<int64_t> pads = pad_begin;
    pads.insert(pads.end(), pad_end.begin(), pad_end.end());
    attrs.set("pads", pads);
    attrs.set("group", conv.attrs.get_int("group", 1));
    conv.attrs = std::move(attrs);
  }
  return graph;
}

}  // namespace lathe::passes

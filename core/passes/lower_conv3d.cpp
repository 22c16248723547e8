#include "passes/lower_conv3d.h"

#include "ir/ops/window_geometry.h"
#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

class Conv3dLowering {
 public:
  explicit Conv3dLowering(Graph& graph) : graph_(graph), names_(graph), nodes_(graph, names_) {}

  void run() {
    replace_nodes(graph_, [this](const Node& node) { return lower(node); });
  }

 private:
  bool lower(const Node& node) {
    if (node.op != "Conv" || node.outputs.size() != 1 || !node.has_input(0) || !node.has_input(1))
      return false;
    // Copies: adding values moves the graph's value list.
    const TensorType xt = graph_.type(node.inputs[0]);
    const TensorType wt = graph_.type(node.inputs[1]);
    const Shape y = graph_.type(node.outputs[0]).shape;
    if (xt.rank() != 5 || wt.rank() != 5 || xt.dtype != DType::Float32 ||
        wt.dtype != DType::Float32)
      return false;
    const Shape& x = xt.shape;
    const Shape kernel(wt.shape.begin() + 2, wt.shape.end());
    const SpatialWindow window = resolve_window(node.attrs, Shape(x.begin() + 2, x.end()),
                                                Shape(y.begin() + 2, y.end()), kernel);
    const int64_t n = x[0], channels = x[1], depth_out = y[2], taps = kernel[0];
    const int64_t stride = window.strides[0], dilation = window.dilations[0];
    const std::string& name = node.name;

    if (depth_only(kernel, window)) return lower_depth_only(node, window, x, y, wt.shape);

    // Depth padding first, so that every tap's slice is in bounds.
    ValueId v = node.inputs[0];
    if (window.pad_begin[0] != 0 || window.pad_end[0] != 0) {
      std::vector<int64_t> pads(10, 0);
      pads[2] = window.pad_begin[0];
      pads[7] = window.pad_end[0];
      v = nodes_.append(name + "_depth_pad", "Pad", {v, nodes_.ints(name + "_depth_pads", pads)},
                        {}, "_depth_padded");
    }
    const int64_t padded_depth = graph_.type(v).shape[2];
    std::vector<ValueId> slices;
    for (int64_t kd = 0; kd < taps; ++kd) {
      const int64_t start = kd * dilation, end = start + (depth_out - 1) * stride + 1;
      if (start == 0 && end == padded_depth && stride == 1) {
        slices.push_back(v);
        continue;
      }
      const std::string tap = name + "_depth_tap" + std::to_string(kd);
      slices.push_back(nodes_.append(
          tap, "Slice",
          {v, nodes_.ints(tap + "_starts", {start}), nodes_.ints(tap + "_ends", {end}),
           nodes_.ints(tap + "_axes", {2}), nodes_.ints(tap + "_steps", {stride})},
          {}, "_tap" + std::to_string(kd)));
    }
    if (slices.size() > 1) {
      Attributes concat;
      concat.set("axis", int64_t{2});
      v = nodes_.append(name + "_depth_taps", "Concat", slices, std::move(concat), "_depth_taps");
    } else {
      v = slices[0];
    }
    // Channel kd*C/g + c within each group: a tap's channels stay in the
    // input's order, so in the blocked layout each output vector is one input
    // vector of an earlier or later frame, a plain copy, where c*KD + kd
    // interleaved the taps and made every lane a gather.
    const int64_t groups = node.attrs.get_int("group", 1), group_channels = channels / groups;
    v = nodes_.reshape(name + "_taps_split", v,
                       {n, groups, group_channels, taps, depth_out, x[3], x[4]}, "_by_tap");
    v = transpose(name + "_slices_first", v, {0, 4, 1, 3, 2, 5, 6}, "_by_slice");
    v = nodes_.reshape(name + "_as_2d", v, {n * depth_out, channels * taps, x[3], x[4]}, "_2d");

    ValueId weight =
        transpose(name + "_weight_taps_first", node.inputs[1], {0, 2, 1, 3, 4}, "_taps_first");
    std::vector<ValueId> inputs = {
        v, nodes_.reshape(name + "_weight_2d", weight,
                          {wt.shape[0], wt.shape[1] * taps, kernel[1], kernel[2]}, "_2d")};
    if (node.has_input(2)) inputs.push_back(node.inputs[2]);
    Attributes attrs;
    attrs.set("kernel_shape", std::vector<int64_t>{kernel[1], kernel[2]});
    attrs.set("strides", std::vector<int64_t>{window.strides[1], window.strides[2]});
    attrs.set("dilations", std::vector<int64_t>{window.dilations[1], window.dilations[2]});
    attrs.set("pads", std::vector<int64_t>{window.pad_begin[1], window.pad_begin[2],
                                           window.pad_end[1], window.pad_end[2]});
    attrs.set("group", node.attrs.get_int("group", 1));
    v = nodes_.append(name + "_2d", "Conv", std::move(inputs), std::move(attrs), "_conv2d");
    v = nodes_.reshape(name + "_slices_split", v, {n, depth_out, y[1], y[3], y[4]}, "_by_slice");

    // The last node writes the Conv's output value, which keeps its name and
    // readers, and takes the Conv's name.
    Node last;
    last.name = name;
    last.op = "Transpose";
    last.inputs = {v};
    last.attrs.set("perm", std::vector<int64_t>{0, 2, 1, 3, 4});
    last.outputs = {node.outputs[0]};
    graph_.add_node(std::move(last));
    return true;
  }

  // A KD x 1 x 1 window with no stride or padding across H and W: (2+1)-D
  // networks' temporal convs.
  static bool depth_only(const Shape& kernel, const SpatialWindow& w) {
    return kernel[1] == 1 && kernel[2] == 1 && w.strides[1] == 1 && w.strides[2] == 1 &&
           w.pad_begin[1] == 0 && w.pad_begin[2] == 0 && w.pad_end[1] == 0 && w.pad_end[2] == 0;
  }

  // A depth-only conv is a 2-D one over [N, C, D, H*W] with a KD x 1 window:
  // both reshapes are free, and the input is read in place. The depth im2col
  // below copied R(2+1)D-18's activations three times over (2.5 ms a
  // temporal conv of its 150 ms, its conv then streaming 43 MB).
  bool lower_depth_only(const Node& node, const SpatialWindow& window, const Shape& x,
                        const Shape& y, const Shape& w) {
    const std::string& name = node.name;
    const int64_t plane = x[3] * x[4];
    std::vector<ValueId> inputs = {
        nodes_.reshape(name + "_as_2d", node.inputs[0], {x[0], x[1], x[2], plane}, "_2d"),
        nodes_.reshape(name + "_weight_2d", node.inputs[1], {w[0], w[1], w[2], 1}, "_2d")};
    if (node.has_input(2)) inputs.push_back(node.inputs[2]);
    Attributes attrs;
    attrs.set("kernel_shape", std::vector<int64_t>{w[2], 1});
    attrs.set("strides", std::vector<int64_t>{window.strides[0], 1});
    attrs.set("dilations", std::vector<int64_t>{window.dilations[0], 1});
    attrs.set("pads", std::vector<int64_t>{window.pad_begin[0], 0, window.pad_end[0], 0});
    attrs.set("group", node.attrs.get_int("group", 1));
    const ValueId v =
        nodes_.append(name + "_2d", "Conv", std::move(inputs), std::move(attrs), "_conv2d");
    // The last node writes the Conv's output value and takes its name.
    Node last;
    last.name = name;
    last.op = "Reshape";
    last.inputs = {v, nodes_.ints(name + "_shape", {y[0], y[1], y[2], y[3], y[4]})};
    last.outputs = {node.outputs[0]};
    graph_.add_node(std::move(last));
    return true;
  }

  ValueId transpose(const std::string& name, ValueId v, const std::vector<int64_t>& perm,
                    const std::string& suffix) {
    Attributes attrs;
    attrs.set("perm", perm);
    return nodes_.append(name, "Transpose", {v}, std::move(attrs), suffix);
  }

  Graph& graph_;
  NameTable names_;
  NodeEmitter nodes_;
};

}  // namespace

Graph lower_conv3d(const Graph& input) {
  Graph graph = input;
  Conv3dLowering(graph).run();
  return graph;
}

}  // namespace lathe::passes

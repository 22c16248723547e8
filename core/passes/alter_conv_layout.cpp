#include "passes/alter_conv_layout.h"

#include "ir/ops/resize_geometry.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/ops/layout.h"
#include "ir/ops/resize_geometry.h"
#include "ir/ops/window_geometry.h"
#include "passes/graph_edit.h"
#include "support/error.h"
#include "support/int_math.h"

namespace lathe::passes {
namespace {

// A filter block of half a vector or more is padded to whole vectors only
// where the zero filters add at most 1/kMaxFilterPadding of the work.
constexpr int64_t kMaxFilterPadding = 32;

struct BlockedValue {
  ValueId blocked = kNoValue;  // the NCHW{block}c value a back transform reads
  int64_t block = 0;
};

class LayoutRewriter {
 public:
  LayoutRewriter(Graph& graph, int64_t max_block)
      : graph_(graph), names_(graph), max_block_(max_block) {}

  void run() {
    std::vector<Node> old_nodes = std::move(graph_.nodes);
    graph_.nodes.clear();
    for (Node& node : old_nodes) {
      if (convert_conv(node)) continue;
      if (adopt_back_transform(node)) continue;
      if (sink_back_transforms(node)) continue;
      if (sink_through_pool(node)) continue;
      if (sink_through_concat(node)) continue;
      if (sink_through_reduce(node)) continue;
      if (sink_through_resize(node)) continue;
      emit(std::move(node));
    }
    reset_producers(graph_);
    graph_.remove_unused_values();
  }

 private:
  // Appends a node, typing its outputs that have no type yet by inference.
  ValueId emit(Node node) {
    for (ValueId out : node.outputs)
      if (out != kNoValue) graph_.value(out).producer = static_cast<int>(graph_.nodes.size());
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back().outputs.empty() ? kNoValue : graph_.nodes.back().outputs[0];
  }

  // A new node `op` reading `inputs` whose one output is a new value, typed.
  ValueId emit_new(const std::string& op, const std::string& node_name, std::vector<ValueId> inputs,
                   Attributes attrs, const std::string& value_name) {
    Node node;
    node.name = names_.node(node_name);
    node.op = op;
    node.inputs = std::move(inputs);
    node.attrs = std::move(attrs);
    node.outputs = {graph_.add_value(names_.value(value_name), TensorType{})};
    graph_.value(node.outputs[0]).type = infer_types(graph_, node)[0];
    return emit(std::move(node));
  }

  ValueId transform(ValueId x, const std::string& src, const std::string& dst,
                    const std::string& node_name) {
    Attributes attrs;
    attrs.set("src_layout", src);
    attrs.set("dst_layout", dst);
    return emit_new("LayoutTransform", node_name, {x}, std::move(attrs),
                    graph_.value(x).name + "_" + dst);
  }

  // The back transform NCHW{block}c -> NCHW producing the existing value `y`;
  // a 1-D value [N, C, W] is blocked as [N, C/b, 1, W, b] and comes back
  // through [N, C, 1, W] and a Reshape.
  void transform_back(ValueId blocked, int64_t block, ValueId y, const std::string& node_name) {
    const TensorType want = graph_.type(y);
    Node node;
    node.name = names_.node(node_name + "_to_NCHW");
    node.op = "LayoutTransform";
    node.inputs = {blocked};
    node.attrs.set("src_layout", nchwc_layout(block));
    node.attrs.set("dst_layout", std::string("NCHW"));
    node.outputs = {
        want.rank() == 3 ? graph_.add_value(names_.value(graph_.value(y).name + "_4d"), {}) : y};
    const TensorType back = infer_types(graph_, node)[0];
    // Padded filters (padded_filters) come back with more channels.
    const bool padded = back.shape[1] > want.shape[1];
    Shape expected = with_unit_height(want.shape);
    expected[1] = back.shape[1];
    LATHE_CHECK(back.shape == expected, "node ", describe_node(node),
                ": back transform does not restore ", want.to_string());
    if (padded && want.rank() == 4)
      node.outputs[0] = graph_.add_value(names_.value(graph_.value(y).name + "_padded"), {});
    graph_.value(node.outputs[0]).type = back;
    ValueId restored = emit(std::move(node));
    if (padded) {
      auto ints = [&](const char* role, std::vector<int64_t> v) {
        return graph_.add_constant(
            names_.value(node_name + "_" + role),
            Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}));
      };
      Node slice;
      slice.name = names_.node(node_name + "_unpad");
      slice.op = "Slice";
      slice.inputs = {restored, ints("unpad_starts", {0}), ints("unpad_ends", {want.shape[1]}),
                      ints("unpad_axes", {1})};
      if (want.rank() == 4) {
        slice.outputs = {y};
        emit(std::move(slice));
        return;  // the padded blocked value stands for no value of the graph
      }
      Shape sliced = back.shape;
      sliced[1] = want.shape[1];
      slice.outputs = {
          graph_.add_value(names_.value(graph_.value(y).name + "_unpadded"), {back.dtype, sliced})};
      restored = emit(std::move(slice));
    }
    if (want.rank() == 3) {
      Node squeeze;
      squeeze.name = names_.node(node_name + "_to_NCW");
      squeeze.op = "Reshape";
      squeeze.inputs = {restored, shape_constant(node_name + "_ncw_shape", want.shape)};
      squeeze.outputs = {y};
      emit(std::move(squeeze));
    }
    if (!padded) blocked_[y] = {blocked, block};
  }

  // [N, C, W] -> [N, C, 1, W]: how a 1-D value runs on the 2-D kernels.
  static Shape with_unit_height(Shape s) {
    if (s.size() == 3) s.insert(s.begin() + 2, 1);
    return s;
  }

  ValueId shape_constant(const std::string& name, const Shape& shape) {
    return graph_.add_constant(
        names_.value(name),
        Tensor::from_vector<int64_t>(shape, {static_cast<int64_t>(shape.size())}));
  }

  // `x` (NCHW, or NCW seen as height 1) in NCHW{block}c: the blocked value it
  // came from when there is one, else a forward transform, made once per
  // value and block: the three convs of a TextCNN read one embedding.
  ValueId to_blocked(ValueId x, int64_t block, const std::string& node_name) {
    const auto it = blocked_.find(x);
    if (it != blocked_.end() && it->second.block == block) return it->second.blocked;
    if (const auto done = forward_.find({x, block}); done != forward_.end()) return done->second;
    ValueId nchw = x;
    if (graph_.type(x).rank() == 3)
      nchw = emit_new(
          "Reshape", node_name + "_nchw",
          {x, shape_constant(node_name + "_nchw_shape", with_unit_height(graph_.type(x).shape))},
          {}, graph_.value(x).name + "_nchw");
    return forward_[{x, block}] = transform(nchw, "NCHW", nchwc_layout(block), node_name);
  }

  // The Conv's window as the 2-D kernel reads it, auto_pad resolved as the
  // reference kernel resolves it: a 1-D conv's gets a unit height in front.
  SpatialWindow window_2d(const Node& conv) const {
    const Shape& x = graph_.type(conv.inputs[0]).shape;
    const Shape& w = graph_.type(conv.inputs[1]).shape;
    const Shape& y = graph_.type(conv.outputs[0]).shape;
    SpatialWindow win =
        resolve_window(conv.attrs, Shape(x.begin() + 2, x.end()), Shape(y.begin() + 2, y.end()),
                       Shape(w.begin() + 2, w.end()));
    if (win.kernel.size() == 1) {
      win.kernel.insert(win.kernel.begin(), 1);
      win.strides.insert(win.strides.begin(), 1);
      win.dilations.insert(win.dilations.begin(), 1);
      win.pad_begin.insert(win.pad_begin.begin(), 0);
      win.pad_end.insert(win.pad_end.begin(), 0);
    }
    return win;
  }

  // A back transform NCHW{b}c -> NCHW that an earlier pass wrote (the int8
  // layout pass, alter_int8_conv_layout) is one of this pass's own: the ops
  // after it run blocked in the same way.
  bool adopt_back_transform(Node& node) {
    if (node.op != "LayoutTransform" || node.inputs.size() != 1 || node.outputs.size() != 1)
      return false;
    const TensorType& in = graph_.type(node.inputs[0]);
    if (in.rank() != 5 || node.attrs.get_string("dst_layout", "") != "NCHW" ||
        node.attrs.get_string("src_layout", "") != nchwc_layout(in.shape[4]))
      return false;
    const ValueId blocked = node.inputs[0], y = node.outputs[0];
    const int64_t block = in.shape[4];
    emit(std::move(node));
    blocked_[y] = {blocked, block};
    return true;
  }

  bool convert_conv(Node& conv) {
    if (conv.op != "Conv" || conv.outputs.size() != 1 || !conv.has_input(0) || !conv.has_input(1))
      return false;
    const TensorType& xt = graph_.type(conv.inputs[0]);
    const TensorType& wt = graph_.type(conv.inputs[1]);
    if (xt.dtype != DType::Float32 || (xt.rank() != 4 && xt.rank() != 3) || wt.rank() != xt.rank())
      return false;
    const int64_t channels = xt.shape[1], filters = wt.shape[0];
    const int64_t group = conv.attrs.get_int("group", 1);
    if (group < 1 || channels % group != 0 || filters % group != 0) return false;
    const size_t nd = xt.rank() - 2;
    // A copy: the graph's values move as this pass adds new ones.
    const Shape w_shape = with_unit_height(wt.shape);
    const ValueId y = conv.outputs[0];
    // Group 1, depthwise, and groups that nest with the blocks; the others
    // would gather their inputs lane by lane and stay in NCHW.
    const bool depthwise = group == channels && filters == channels;
    // The block the input already has, where it is at least half a vector:
    // a dense conv reads its input channels a block at a time in any block,
    // and a depthwise conv computes in its data's block. A Concat of two
    // 36-channel convs (a Ghost module: blocks of 12) would otherwise go
    // through NCHW into blocks of 8 for the depthwise conv of its 72
    // channels, a gather at 7 GB/s that took a quarter of the model.
    int64_t xb = channel_block(channels, max_block_);
    if (const auto it = blocked_.find(conv.inputs[0]);
        it != blocked_.end() && (group == 1 || depthwise) && 2 * it->second.block >= max_block_)
      xb = it->second.block;
    int64_t ob = depthwise ? xb : channel_block(filters, max_block_);
    const int64_t ib = group == 1 ? xb : channel_block(channels / group, max_block_);
    if (group != 1 && !depthwise &&
        group_nesting(group, channels / group, filters / group, xb, ib, ob) == GroupNesting::None)
      return false;

    // Filters that block only in slivers (58 = 29 x 2 would make 2-lane
    // vectors) compute in whole vectors instead: zero filters pad them, and
    // the back transform slices the padding off again.
    const int64_t padded = padded_filters(conv, filters, group);
    if (padded != filters) {
      pad_filters(conv, padded);
      ob = channel_block(padded, max_block_);
    }

    const ValueId x = to_blocked(conv.inputs[0], xb, conv.name + "_data");
    ValueId w2d = conv.inputs[1];
    if (nd == 1) {
      Shape shape = w_shape;
      shape[0] = padded;
      w2d = emit_new("Reshape", conv.name + "_weight_2d",
                     {w2d, shape_constant(conv.name + "_weight_shape", shape)}, {},
                     graph_.value(w2d).name + "_2d");
    }
    const ValueId w = transform(w2d, "OIHW", oihwio_layout(ib, ob), conv.name + "_weight");
    std::vector<ValueId> inputs = {x, w};
    if (conv.has_input(2)) {
      const ValueId shape =
          graph_.add_constant(names_.value(conv.name + "_bias_shape"),
                              Tensor::from_vector<int64_t>({padded / ob, ob}, {2}));
      inputs.push_back(emit_new("Reshape", conv.name + "_bias", {conv.inputs[2], shape}, {},
                                graph_.value(conv.inputs[2]).name + "_blocked"));
    }
    const SpatialWindow window = window_2d(conv);
    std::vector<int64_t> pads = window.pad_begin;
    pads.insert(pads.end(), window.pad_end.begin(), window.pad_end.end());
    Attributes attrs;
    attrs.set("strides", window.strides);
    attrs.set("dilations", window.dilations);
    attrs.set("pads", pads);
    attrs.set("group", group);
    Node blocked_conv;
    blocked_conv.name = conv.name;
    blocked_conv.op = "Conv2dNCHWc";
    blocked_conv.inputs = std::move(inputs);
    blocked_conv.attrs = std::move(attrs);
    blocked_conv.outputs = {
        graph_.add_value(names_.value(graph_.value(y).name + "_" + nchwc_layout(ob)), {})};
    graph_.value(blocked_conv.outputs[0]).type = infer_types(graph_, blocked_conv)[0];
    const ValueId out = emit(std::move(blocked_conv));
    transform_back(out, ob, y, conv.name);
    return true;
  }

  // The filters a dense conv computes: `filters`, or, where their channel
  // block would be under a whole vector, the next multiple of a vector if
  // that takes fewer vectors (58 -> 64 on AVX-512: 4 vectors, not 29 of 2
  // lanes; a pose head's 17 keypoints -> 32: 2, not 17 scalars, which ran
  // at 5 % of the roof), the weights and bias being constants that can take
  // zero filters.
  int64_t padded_filters(const Node& conv, int64_t filters, int64_t group) const {
    const int64_t block = channel_block(filters, max_block_);
    if (group != 1 || filters <= max_block_ || block == max_block_) return filters;
    const int64_t padded = ceildiv(filters, max_block_) * max_block_;
    if (padded / max_block_ >= filters / block) return filters;
    // A block of half a vector or more pads only where the zero filters are
    // a sliver of the work (SqueezeNet's 1,000-class 1x1 conv: 1,008 filters
    // in 63 vectors, not 125 half vectors, which ran at under half the FMA
    // peak), since a padded output is transformed back for its consumers:
    // 24 -> 32 would cost a mobile network's every layer a transform.
    if (2 * block >= max_block_ && (padded - filters) * kMaxFilterPadding > filters) return filters;
    for (size_t i = 1; i < 3; ++i) {
      if (i == 2 && !conv.has_input(2)) continue;
      const Tensor* t = constant_input(graph_, conv, i);
      if (!t || t->dtype() != DType::Float32) return filters;
    }
    return padded;
  }

  // Replaces the weight and bias of `conv` by copies with zero filters up to `padded`.
  void pad_filters(Node& conv, int64_t padded) {
    for (size_t i = 1; i < 3; ++i) {
      if (i == 2 && !conv.has_input(2)) continue;
      const Tensor t = *constant_input(graph_, conv, i);  // a copy: values move below
      Shape shape = t.shape();
      shape[0] = padded;
      Tensor wide(DType::Float32, shape);  // zero-filled
      std::copy(t.data<float>(), t.data<float>() + t.numel(), wide.data<float>());
      conv.inputs[i] = graph_.add_constant(
          names_.value(graph_.value(conv.inputs[i]).name + "_padded"), std::move(wide));
    }
  }

  // [C, 1, ...] or [1, C, 1, ...] against an output [N, C, ...].
  static bool is_per_channel(const Shape& s, const Shape& out) {
    Shape trailing(out.size() - 2, 1);
    Shape c = trailing, one_c = trailing;
    c.insert(c.begin(), out[1]);
    one_c.insert(one_c.begin(), {1, out[1]});
    return s == c || s == one_c;
  }

  // `s` broadcasts to `out` along the spatial axes only, with `channels`
  // channels: [N, C, 1, 1] against [N, C, H, W] for C channels (an SE
  // block's gate), [N, 1, H, W] for one (a spatial attention map).
  static bool spatial_broadcast(const Shape& s, const Shape& out, int64_t channels) {
    if (s.size() != out.size() || s[0] != out[0] || s[1] != channels) return false;
    for (size_t d = 2; d < s.size(); ++d)
      if (s[d] != out[d] && s[d] != 1) return false;
    return true;
  }

  bool sink_back_transforms(Node& node) {
    const FusionKind kind = op_kind(node.op);
    if ((kind != FusionKind::ElemWise && kind != FusionKind::Broadcast) ||
        node.op == "BatchNormalization" || node.outputs.size() != 1 || node.outputs[0] == kNoValue)
      return false;
    const TensorType out = graph_.type(node.outputs[0]);
    if (out.rank() != 4 && out.rank() != 3) return false;
    // The block of the back transforms read, which must agree; they may
    // broadcast along the spatial axes, as 5-D values they still do.
    int64_t block = 0;
    for (ValueId in : node.inputs) {
      auto it = in == kNoValue ? blocked_.end() : blocked_.find(in);
      if (it == blocked_.end() || graph_.type(in).shape[1] == 1 || out.shape[1] == 1) continue;
      if (!spatial_broadcast(graph_.type(in).shape, out.shape, out.shape[1]) ||
          (block != 0 && block != it->second.block))
        return false;
      block = it->second.block;
    }
    if (block == 0) return false;
    // A one-channel map ([N, 1, H, W], NCHW or a conv's blocks of 1) reads
    // as [N, 1, H, W, 1]: the same order, broadcast along the blocks.
    enum class Role { Blocked, Scalar, PerChannel, Nchw, Map };
    std::vector<Role> roles;
    for (ValueId in : node.inputs) {
      if (in == kNoValue) {
        roles.push_back(Role::Scalar);
        continue;
      }
      const Value& v = graph_.value(in);
      const Shape& s = v.type.shape;
      if (v.type.numel() == 1 && v.type.rank() <= 4)
        roles.push_back(Role::Scalar);
      else if (blocked_.count(in) && s[1] == out.shape[1])
        roles.push_back(Role::Blocked);
      else if (v.is_constant() && is_per_channel(s, out.shape))
        roles.push_back(Role::PerChannel);
      else if (s == out.shape)
        roles.push_back(Role::Nchw);
      else if (spatial_broadcast(s, out.shape, 1))
        roles.push_back(Role::Map);
      else
        return false;
    }
    const std::string layout = nchwc_layout(block);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueId in = node.inputs[i];
      switch (roles[i]) {
        case Role::Blocked:
          node.inputs[i] = blocked_[in].blocked;
          break;
        case Role::Scalar:
          break;
        case Role::PerChannel: {
          // Channel c of [C] sits at [c / b, c % b]: the same order, reshaped.
          const Value& v = graph_.value(in);
          Tensor t = v.constant.reshaped({1, out.shape[1] / block, 1, 1, block});
          node.inputs[i] = graph_.add_constant(names_.value(v.name + "_" + layout), std::move(t));
          break;
        }
        case Role::Nchw:
          node.inputs[i] = to_blocked(in, block, node.name + "_input" + std::to_string(i));
          break;
        case Role::Map: {
          Shape map = with_unit_height(graph_.type(in).shape);
          map.push_back(1);
          node.inputs[i] = emit_new("Reshape", node.name + "_map" + std::to_string(i),
                                    {in, shape_constant(node.name + "_map_shape", map)}, {},
                                    graph_.value(in).name + "_" + layout);
          break;
        }
      }
    }
    emit_blocked(std::move(node), block);
    return true;
  }

  // A pool of a back transform's output pools the blocked value instead (a
  // pool keeps channels apart; its `layout` attribute says how they are
  // stored), so a pool between convolutions costs no layout change.
  bool sink_through_pool(Node& node) {
    // QLinearGlobalAveragePool: the quantized mean before a classifier.
    const bool qlinear = node.op == "com.microsoft.QLinearGlobalAveragePool";
    if (node.op != "MaxPool" && node.op != "AveragePool" && node.op != "GlobalAveragePool" &&
        node.op != "GlobalMaxPool" && !qlinear)
      return false;
    if (qlinear && node.attrs.get_int("channels_last", 0) != 0) return false;
    if (!node.has_input(0) || node.outputs.empty() || node.outputs[0] == kNoValue ||
        node.attrs.has("layout"))
      return false;
    // MaxPool's Indices count positions in NCHW.
    for (size_t k = 1; k < node.outputs.size(); ++k)
      if (node.outputs[k] != kNoValue) return false;
    const auto it = blocked_.find(node.inputs[0]);
    const TensorType& in = graph_.type(node.inputs[0]);
    // A max pools quantized (uint8 / int8) values as well, between int8 convs.
    const bool max = node.op == "MaxPool" || node.op == "GlobalMaxPool";
    const bool integer = in.dtype == DType::UInt8 || in.dtype == DType::Int8;
    if (it == blocked_.end() || in.rank() != 4 ||
        (in.dtype != DType::Float32 && !((max || qlinear) && integer)))
      return false;
    const BlockedValue source = it->second;
    node.inputs[0] = source.blocked;
    node.outputs.resize(1);
    node.attrs.set("layout", nchwc_layout(source.block));
    emit_blocked(std::move(node), source.block);
    return true;
  }

  // A channel Concat of back transforms concatenates the blocked values
  // along the channel-block axis instead: every input's channels are whole
  // blocks, so block k of an input is block (offset / b + k) of the result.
  // Inputs still in NCHW get a forward transform, when their channels
  // divide into blocks; the blocked inputs must agree on the block.
  bool sink_through_concat(Node& node) {
    if (node.op != "Concat" || node.outputs.size() != 1 || node.outputs[0] == kNoValue)
      return false;
    const TensorType out = graph_.type(node.outputs[0]);
    // Quantized (uint8 / int8) values too: a Concat only moves them.
    if (out.rank() != 4 ||
        (out.dtype != DType::Float32 && out.dtype != DType::UInt8 && out.dtype != DType::Int8))
      return false;
    int64_t axis = node.attrs.get_int("axis", 1);
    if (axis < 0) axis += 4;
    if (axis != 1) return false;
    int64_t block = 0;
    for (ValueId in : node.inputs) {
      const auto it = in == kNoValue ? blocked_.end() : blocked_.find(in);
      if (it == blocked_.end()) continue;
      if (block != 0 && block != it->second.block) return false;
      block = it->second.block;
    }
    if (block == 0) return false;
    for (ValueId in : node.inputs)
      if (in == kNoValue || graph_.type(in).shape[1] % block != 0) return false;
    const std::string layout = nchwc_layout(block);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueId in = node.inputs[i];
      const auto it = blocked_.find(in);
      node.inputs[i] = it != blocked_.end() ? it->second.blocked
                                            : transform(in, "NCHW", layout,
                                                        node.name + "_input" + std::to_string(i));
    }
    node.attrs.set("axis", int64_t{1});
    emit_blocked(std::move(node), block);
    return true;
  }

  // A reduction over spatial axes of a back transform's output (a max over
  // time after 1-D convs, a mean over the plane in an SE block, PointNet's
  // max over points) reduces the blocked value instead: channels stay apart,
  // so each block reduces in whole vectors, and the result comes back to NCHW
  // through a transform of the (small) reduced value. Before, the transform
  // of the whole input was fused into the reduction, which then gathered
  // one lane of each pixel's line: PointNet's max over 1024 points of 1024
  // channels ran at 11 GB/s.
  bool sink_through_reduce(Node& node) {
    static const std::set<std::string> reductions = {
        "ReduceMean", "ReduceSum", "ReduceMax",    "ReduceMin",       "ReduceProd",
        "ReduceL1",   "ReduceL2",  "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
    if (!reductions.count(node.op) || node.outputs.size() != 1 || node.outputs[0] == kNoValue ||
        !node.has_input(0))
      return false;
    const auto it = blocked_.find(node.inputs[0]);
    const TensorType in = graph_.type(node.inputs[0]);
    if (it == blocked_.end() || (in.rank() != 4 && in.rank() != 3) || in.dtype != DType::Float32)
      return false;
    std::vector<int64_t> axes;
    if (node.has_input(1)) {
      const Value& v = graph_.value(node.inputs[1]);
      if (!v.is_constant()) return false;
      axes = v.constant.to_int64_vector();
    } else {
      axes = node.attrs.get_ints("axes", {});
    }
    if (axes.empty()) return false;  // everything, or nothing: channels too
    const int64_t rank = in.rank();
    std::vector<int64_t> blocked_axes;
    for (int64_t a : axes) {
      if (a < 0) a += rank;
      if (a < 2 || a >= rank) return false;  // batch or channels
      // A 1-D value [N, C, W] is blocked as [N, C/b, 1, W, b].
      blocked_axes.push_back(rank == 3 ? 3 : a);
    }
    const BlockedValue source = it->second;
    const ValueId y = node.outputs[0];
    const bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
    // The blocked reduction keeps its dimensions, so that its result is the
    // blocked form of the NCHW value with the reduced axes of extent 1.
    Node reduce = node;
    reduce.inputs = {source.blocked};
    reduce.attrs.set("axes", blocked_axes);
    reduce.attrs.set("keepdims", int64_t{1});
    reduce.outputs = {graph_.add_value(
        names_.value(graph_.value(y).name + "_" + nchwc_layout(source.block)), {})};
    graph_.value(reduce.outputs[0]).type = infer_types(graph_, reduce)[0];
    const ValueId blocked = emit(std::move(reduce));
    if (keepdims) {
      transform_back(blocked, source.block, y, node.name);
      return true;
    }
    Shape kept = in.shape;
    for (int64_t a : axes) kept[static_cast<size_t>(a < 0 ? a + rank : a)] = 1;
    const ValueId k = graph_.add_value(names_.value(graph_.value(y).name + "_keepdims"),
                                       TensorType{in.dtype, kept});
    transform_back(blocked, source.block, k, node.name);
    Node squeeze;
    squeeze.name = names_.node(node.name + "_squeeze");
    squeeze.op = "Reshape";
    squeeze.inputs = {k, shape_constant(node.name + "_squeezed_shape", graph_.type(y).shape)};
    squeeze.outputs = {y};
    emit(std::move(squeeze));
    return true;
  }

  // A Resize of a back transform's spatial axes (an FPN's or HRNet's
  // upsampling between convs) resizes the blocked value instead: Resize is
  // N-dimensional, and the channel block's axis, like the batch and
  // channel-block axes, keeps its extent and copies (scale 1). HRNet-like
  // fusion (bilinear upsampling, Add, ReLU, Concat) otherwise gathered its
  // inputs through NCHW.
  bool sink_through_resize(Node& node) {
    if (node.op != "Resize" || node.outputs.size() != 1 || node.outputs[0] == kNoValue ||
        !node.has_input(0))
      return false;
    const auto it = blocked_.find(node.inputs[0]);
    const TensorType in = graph_.type(node.inputs[0]);
    if (it == blocked_.end() || (in.rank() != 4 && in.rank() != 3) || in.dtype != DType::Float32 ||
        node.attrs.get_string("coordinate_transformation_mode", "") == "tf_crop_and_resize" ||
        node.attrs.has(kResizeCoordinateScales))
      return false;
    const int64_t block = it->second.block;
    // [N, C, H, W] (or [N, C, W]) entries as [N, C/b, H, W, b].
    auto blocked_entries = [&](std::vector<double> v, double channels, double lanes) {
      if (v.size() == 3) v.insert(v.begin() + 2, 1);
      v[1] = channels;
      v.push_back(lanes);
      return v;
    };
    const Shape out = graph_.type(node.outputs[0]).shape;  // a copy: values move below
    auto constant = [&](size_t k) -> const Value* {
      if (!node.has_input(k)) return nullptr;
      const Value& v = graph_.value(node.inputs[k]);
      return v.is_constant() && v.constant.numel() > 0 ? &v : nullptr;
    };
    Node resize = node;
    resize.inputs = {it->second.blocked, kNoValue, kNoValue};
    if (const Value* sizes = constant(3)) {
      if (out[0] != in.shape[0] || out[1] != in.shape[1]) return false;
      std::vector<int64_t> v;
      for (double d :
           blocked_entries(sizes->constant.to_double_vector(),
                           static_cast<double>(in.shape[1] / block), static_cast<double>(block)))
        v.push_back(static_cast<int64_t>(d));
      resize.inputs.push_back(
          graph_.add_constant(names_.value(sizes->name + "_" + nchwc_layout(block)),
                              Tensor::from_vector<int64_t>(v, {static_cast<int64_t>(v.size())})));
    } else if (const Value* scales = constant(2)) {
      std::vector<double> v = scales->constant.to_double_vector();
      if (v[0] != 1 || v[1] != 1) return false;
      std::vector<float> f;
      for (double d : blocked_entries(v, 1, 1)) f.push_back(static_cast<float>(d));
      resize.inputs[2] =
          graph_.add_constant(names_.value(scales->name + "_" + nchwc_layout(block)),
                              Tensor::from_vector<float>(f, {static_cast<int64_t>(f.size())}));
    } else {
      return false;
    }
    emit_blocked(std::move(resize), block);
    return true;
  }

  // Emits `node`, now reading blocked values, with a new blocked output
  // value, and the back transform that gives its old output value.
  void emit_blocked(Node node, int64_t block) {
    const ValueId y = node.outputs[0];
    node.outputs[0] =
        graph_.add_value(names_.value(graph_.value(y).name + "_" + nchwc_layout(block)), {});
    graph_.value(node.outputs[0]).type = infer_types(graph_, node)[0];
    const std::string name = node.name;
    const ValueId blocked = emit(std::move(node));
    transform_back(blocked, block, y, name);
  }

  Graph& graph_;
  NameTable names_;
  int64_t max_block_;  // one vector of float32
  std::unordered_map<ValueId, BlockedValue> blocked_;
  std::map<std::pair<ValueId, int64_t>, ValueId> forward_;  // (NCHW value, block) -> transform
};

}  // namespace

Graph alter_conv_layout(const Graph& input, const VectorUnit& vector_unit) {
  Graph graph = input;
  LayoutRewriter(graph, vector_unit.lanes()).run();
  return graph;
}

}  // namespace lathe::passes

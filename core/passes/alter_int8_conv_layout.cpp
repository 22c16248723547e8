#include "passes/alter_int8_conv_layout.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/ops/conv_integer_nchwc.h"
#include "ir/ops/layout.h"
#include "ir/ops/window_geometry.h"
#include "passes/graph_edit.h"
#include "passes/int8_channel_padding.h"
#include "passes/int8_depthwise_layout.h"
#include "passes/int8_stem_layout.h"

namespace lathe::passes {
namespace {

constexpr int64_t kLanes = kConvIntegerLanes;
constexpr int64_t kGroup = kConvIntegerGroup;

// The input channels per block: the largest multiple of 4 up to 16 that
// divides C; 0 when C is not a multiple of 4 (see padded_channels).
int64_t input_block(int64_t channels) {
  for (int64_t b = 16; b >= kGroup; b -= kGroup)
    if (channels % b == 0) return b;
  return 0;
}

// C rounded up to a multiple of 4: a model's first conv reads 3 (RGB)
// channels, which the packed conv takes padded with one channel. Its
// weights are zero and its data the data's zero point, so its products
// (x - x_zero) * (w - w_zero) are zero, whatever the weight's zero point.
int64_t padded_channels(int64_t channels) {
  return (channels + kGroup - 1) / kGroup * kGroup;
}

// W [OC, C, KH, KW] with zero filters taps for channels C..padded-1.
Tensor pad_weight_channels(const Tensor& w, int64_t padded) {
  const Shape& s = w.shape();
  const int64_t oc = s[0], c = s[1], taps = s[2] * s[3];
  Tensor out(DType::Int8, {oc, padded, s[2], s[3]});
  int8_t* dst = out.data<int8_t>();
  std::fill(dst, dst + out.numel(), int8_t{0});
  for (int64_t o = 0; o < oc; ++o)
    std::copy_n(w.data<int8_t>() + o * c * taps, c * taps, dst + o * padded * taps);
  return out;
}

// W [OC, C, KH, KW] int8 as [OC/16, C/ib, KH, KW, ib/4, 16, 4].
Tensor pack_weight(const Tensor& w, int64_t ib) {
  const Shape& s = w.shape();
  const int64_t oc = s[0], c = s[1], kh = s[2], kw = s[3];
  Tensor packed(DType::Int8, {oc / kLanes, c / ib, kh, kw, ib / kGroup, kLanes, kGroup});
  const int8_t* src = w.data<int8_t>();
  int8_t* dst = packed.data<int8_t>();
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t x = 0; x < kw; ++x) {
          const int64_t at =
              (((((o / kLanes * (c / ib) + ch / ib) * kh + y) * kw + x) * (ib / kGroup) +
                (ch % ib) / kGroup) *
                   kLanes +
               o % kLanes) *
                  kGroup +
              ch % kGroup;
          dst[at] = src[((o * c + ch) * kh + y) * kw + x];
        }
  return packed;
}

// A uint8 weight as int8 (w - 128) with its zero point z - 128 beside it:
// the same differences w - z, so the same products, exactly. vpdpbusd
// multiplies unsigned data by signed weights; ORT's dynamic quantizer and
// U8U8 QLinearConv give uint8 weights.
struct SignedWeight {
  Tensor weight;
  Tensor zero_point;  // int8, one element or one per output channel
};

SignedWeight signed_weight(const Tensor& w, const Tensor* zero) {
  SignedWeight r{Tensor(DType::Int8, w.shape()), {}};
  for (int64_t i = 0; i < w.numel(); ++i)
    r.weight.data<int8_t>()[i] = static_cast<int8_t>(static_cast<int>(w.data<uint8_t>()[i]) - 128);
  const Shape zero_shape = zero ? zero->shape() : Shape{};
  r.zero_point = Tensor(DType::Int8, zero_shape);
  for (int64_t i = 0; i < r.zero_point.numel(); ++i)
    r.zero_point.data<int8_t>()[i] =
        static_cast<int8_t>(static_cast<int>(zero ? zero->element_as_double(i) : 0) - 128);
  return r;
}

// Σw per output channel as [OC/16, 16] int32.
Tensor weight_sums(const Tensor& w) {
  const int64_t oc = w.shape()[0], per = w.numel() / oc;
  Tensor sums(DType::Int32, {oc / kLanes, kLanes});
  const int8_t* src = w.data<int8_t>();
  for (int64_t o = 0; o < oc; ++o) {
    int32_t s = 0;
    for (int64_t i = 0; i < per; ++i) s += src[o * per + i];
    sums.data<int32_t>()[o] = s;
  }
  return sums;
}

// A grouped ConvInteger that stays in NCHW: one that is not a depthwise or
// block-diagonal grouped conv the pass blocks (int8_depthwise_layout.h).
bool is_unpacked_grouped_conv(const Graph& graph, const Node& node) {
  return node.op == "ConvInteger" && node.attrs.get_int("group", 1) != 1 &&
         !packable_depthwise(graph, node) && !packable_grouped(graph, node);
}

// An elementwise or broadcast node whose inputs other than `in` are
// constants: the requantize steps between two convolutions.
bool passes_through(const Graph& graph, const Node& node, ValueId in) {
  const FusionKind kind = op_kind(node.op);
  if ((kind != FusionKind::ElemWise && kind != FusionKind::Broadcast) || node.outputs.size() != 1)
    return false;
  for (ValueId v : node.inputs)
    if (v != kNoValue && v != in && !graph.value(v).is_constant()) return false;
  return true;
}

// Whether `conv` reads from or feeds a grouped ConvInteger that stays NCHW
// through the requantize steps only: a packed conv beside one would pay a
// layout transform of its activations on that side each call. Depthwise
// convs run blocked (MobileNetV2's 1x1 convs between them stay packed).
bool beside_grouped_conv(const Graph& graph, const std::vector<std::vector<int>>& consumers,
                         const Node& conv) {
  for (ValueId v = conv.inputs[0]; v != kNoValue;) {
    const int p = graph.value(v).producer;
    if (p < 0) break;
    const Node& node = graph.nodes[static_cast<size_t>(p)];
    if (is_unpacked_grouped_conv(graph, node)) return true;
    if (!passes_through(graph, node, node.inputs.empty() ? kNoValue : node.inputs[0])) break;
    v = node.inputs[0];
  }
  std::vector<ValueId> stack = {conv.outputs[0]};
  while (!stack.empty()) {
    const ValueId v = stack.back();
    stack.pop_back();
    for (int c : consumers[static_cast<size_t>(v)]) {
      const Node& node = graph.nodes[static_cast<size_t>(c)];
      if (is_unpacked_grouped_conv(graph, node)) return true;
      if (passes_through(graph, node, v)) stack.push_back(node.outputs[0]);
    }
  }
  return false;
}

class Int8LayoutRewriter {
 public:
  explicit Int8LayoutRewriter(Graph& graph)
      : graph_(graph), names_(graph), emit_(graph, names_), consumers_(value_consumers(graph)) {
    for (const Node& node : graph.nodes)
      if (node.op == "ConvInteger" && node.has_input(0) && node.outputs.size() == 1 &&
          beside_grouped_conv(graph, consumers_, node))
        skipped_.insert(node.name);
  }

  bool convert(const Node& conv) {
    if (conv.op == "ConvInteger" && conv.attrs.get_int("group", 1) != 1)
      return (packable_depthwise(graph_, conv) && convert_depthwise(conv)) ||
             (packable_grouped(graph_, conv) && convert_grouped(conv));
    if (conv.op != "ConvInteger" || conv.outputs.size() != 1 || !conv.has_input(0) ||
        !conv.has_input(1) || skipped_.count(conv.name))
      return false;
    const TensorType xt = graph_.type(conv.inputs[0]);
    const Tensor* weight = constant_input(graph_, conv, 1);
    if (!weight) return false;
    // A copy: adding constants below moves the graph's values.
    Tensor wt = *weight;
    const Tensor* w = &wt;
    const bool int8_data = xt.dtype == DType::Int8;
    if ((xt.dtype != DType::UInt8 && !int8_data) || xt.rank() != 4 ||
        (w->dtype() != DType::Int8 && w->dtype() != DType::UInt8) || w->rank() != 4 ||
        conv.attrs.get_int("group", 1) != 1)
      return false;
    const int64_t channels = xt.shape[1], filters = w->shape()[0];
    const int64_t padded = padded_channels(channels);
    const int64_t ib = input_block(padded);
    if (filters % kLanes != 0 || w->shape()[1] != channels) return false;
    // A weight zero point that is not a constant would be read per call; rare, left as is.
    if (conv.has_input(3) && !constant_input(graph_, conv, 3)) return false;
    // Padded channels take the data's zero point, which must be known.
    if (padded != channels && conv.has_input(2) && !constant_input(graph_, conv, 2)) return false;
    ValueId weight_zero = conv.has_input(3) ? conv.inputs[3] : kNoValue;
    if (w->dtype() == DType::UInt8) {
      const Tensor* z = weight_zero == kNoValue ? nullptr : constant_input(graph_, conv, 3);
      SignedWeight sw = signed_weight(*w, z);
      wt = std::move(sw.weight);
      const int8_t* zs = sw.zero_point.data<int8_t>();
      const bool zeros = std::all_of(zs, zs + sw.zero_point.numel(), [](int8_t v) { return !v; });
      weight_zero = zeros ? kNoValue
                          : graph_.add_constant(names_.value(conv.name + "_w_zero_point_signed"),
                                                std::move(sw.zero_point));
    }

    const ValueId y = conv.outputs[0];
    const Shape& ys = graph_.type(y).shape;
    const SpatialWindow win = resolve_window(conv.attrs, {xt.shape[2], xt.shape[3]}, {ys[2], ys[3]},
                                             {w->shape()[2], w->shape()[3]});
    std::vector<int64_t> pads = win.pad_begin;
    pads.insert(pads.end(), win.pad_end.begin(), win.pad_end.end());

    const std::string& name = conv.name;
    ValueId data = conv.inputs[0];
    ValueId data_zero = conv.has_input(2) ? conv.inputs[2] : kNoValue;
    if (int8_data && !to_unsigned(conv, data, data_zero)) return false;
    if (stem_layout_fits(channels, w->shape()[3], win.dilations[1]))
      return convert_stem(conv, data, data_zero, *w, weight_zero, win);
    Tensor weight_padded;
    if (padded != channels) {
      data = pad_channels(data, data_zero, padded - channels, name);
      weight_padded = pad_weight_channels(*w, padded);
      w = &weight_padded;
    }
    std::vector<ValueId> inputs = {
        transform(data, "NCHW", nchwc_layout(ib), name + "_data"),
        graph_.add_constant(names_.value(name + "_weight_packed"), pack_weight(*w, ib)),
        data_zero != kNoValue
            ? graph_.add_constant(names_.value(name + "_weight_sum"), weight_sums(*w))
            : kNoValue,
        data_zero, weight_zero};
    while (!inputs.empty() && inputs.back() == kNoValue) inputs.pop_back();
    Attributes attrs;
    attrs.set("strides", win.strides);
    attrs.set("dilations", win.dilations);
    attrs.set("pads", pads);
    Node blocked;
    blocked.name = name;
    blocked.op = "ConvIntegerNCHWc";
    blocked.inputs = std::move(inputs);
    blocked.attrs = std::move(attrs);
    blocked.outputs = {graph_.add_value(names_.value(graph_.value(y).name + "_NCHW16c"), {})};
    graph_.value(blocked.outputs[0]).type = infer_types(graph_, blocked)[0];
    const ValueId out = blocked.outputs[0];
    graph_.add_node(std::move(blocked));
    transform_back(out, kLanes, y, name);
    return true;
  }

 private:
  // `x` (N, C, H, W) with `extra` more channels holding the zero point
  // (a constant; 0 when there is none).
  ValueId pad_channels(ValueId x, ValueId zero, int64_t extra, const std::string& name) {
    const DType dtype = graph_.type(x).dtype;
    Tensor fill = dtype == DType::Int8 ? Tensor::scalar<int8_t>(0) : Tensor::scalar<uint8_t>(0);
    if (zero != kNoValue) fill = graph_.value(zero).constant.reshaped({});
    const ValueId pads = emit_.ints(name + "_channel_pads", {0, 0, 0, 0, 0, extra, 0, 0});
    const ValueId value = graph_.add_constant(names_.value(name + "_channel_fill"), fill);
    return emit_.append(name + "_channel_pad", "Pad", {x, pads, value}, {}, "_padded");
  }

  // A ConvInteger of few input channels (stem_layout_fits) as
  //   StemConvInteger(X, W packed, Σw, x_zero_point, w_zero_point)
  //   -> LayoutTransform(NCHW16c -> NCHW)
  // X stays NCHW: the kernel copies it into padded NHWC rows itself, and
  // the quantization before it stays one elementwise kernel. `data` is
  // uint8 (shifted), `w` int8 (shifted), the zero points theirs.
  bool convert_stem(const Node& conv, ValueId data, ValueId data_zero, const Tensor& w,
                    ValueId weight_zero, const SpatialWindow& win) {
    const std::string& name = conv.name;
    std::vector<int64_t> pads = win.pad_begin;
    pads.insert(pads.end(), win.pad_end.begin(), win.pad_end.end());
    const ValueId y = conv.outputs[0];
    std::vector<ValueId> inputs = {
        data, graph_.add_constant(names_.value(name + "_weight_packed"), pack_stem_weight(w)),
        data_zero != kNoValue
            ? graph_.add_constant(names_.value(name + "_weight_sum"), weight_sums(w))
            : kNoValue,
        data_zero, weight_zero};
    while (!inputs.empty() && inputs.back() == kNoValue) inputs.pop_back();
    Node stem;
    stem.name = name;
    stem.op = "StemConvInteger";
    stem.inputs = std::move(inputs);
    stem.attrs.set("kernel_shape", std::vector<int64_t>{w.shape()[2], w.shape()[3]});
    stem.attrs.set("strides", win.strides);
    stem.attrs.set("dilations", std::vector<int64_t>{win.dilations[0], 1});
    stem.attrs.set("pads", pads);
    stem.outputs = {graph_.add_value(names_.value(graph_.value(y).name + "_NCHW16c"), {})};
    graph_.value(stem.outputs[0]).type = infer_types(graph_, stem)[0];
    const ValueId out = stem.outputs[0];
    graph_.add_node(std::move(stem));
    transform_back(out, kLanes, y, name);
    return true;
  }

  // A depthwise ConvInteger (packable_depthwise) as
  //   LayoutTransform(X: NCHW -> NCHW{b}c)
  //   -> DepthwiseConvIntegerNCHWc(X', W packed, Σw, x_zero_point, w_zero_point)
  //   -> LayoutTransform(NCHW{b}c -> NCHW)
  // whose transforms alter_conv_layout then cancels against its neighbours'.
  bool convert_depthwise(const Node& conv) {
    const Tensor w = *constant_input(graph_, conv, 1);  // a copy: values move below
    const TensorType xt = graph_.type(conv.inputs[0]);
    const int64_t block = depthwise_block(xt.shape[1]);
    const ValueId y = conv.outputs[0];
    const Shape& ys = graph_.type(y).shape;
    const SpatialWindow win = resolve_window(conv.attrs, {xt.shape[2], xt.shape[3]}, {ys[2], ys[3]},
                                             {w.shape()[2], w.shape()[3]});
    std::vector<int64_t> pads = win.pad_begin;
    pads.insert(pads.end(), win.pad_end.begin(), win.pad_end.end());
    const std::string& name = conv.name;
    ValueId data = conv.inputs[0];
    ValueId data_zero = conv.has_input(2) ? conv.inputs[2] : kNoValue;
    if (xt.dtype == DType::Int8 && !to_unsigned(conv, data, data_zero)) return false;
    std::vector<ValueId> inputs = {
        transform(data, "NCHW", nchwc_layout(block), name + "_data"),
        graph_.add_constant(names_.value(name + "_weight_packed"), pack_depthwise_weight(w, block)),
        data_zero != kNoValue ? graph_.add_constant(names_.value(name + "_weight_sum"),
                                                    depthwise_weight_sums(w, block))
                              : kNoValue,
        data_zero, conv.has_input(3) ? conv.inputs[3] : kNoValue};
    while (!inputs.empty() && inputs.back() == kNoValue) inputs.pop_back();
    Node blocked;
    blocked.name = name;
    blocked.op = "DepthwiseConvIntegerNCHWc";
    blocked.inputs = std::move(inputs);
    blocked.attrs.set("strides", win.strides);
    blocked.attrs.set("dilations", win.dilations);
    blocked.attrs.set("pads", pads);
    blocked.outputs = {
        graph_.add_value(names_.value(graph_.value(y).name + "_" + nchwc_layout(block)), {})};
    graph_.value(blocked.outputs[0]).type = infer_types(graph_, blocked)[0];
    const ValueId out = blocked.outputs[0];
    graph_.add_node(std::move(blocked));
    transform_back(out, block, y, name);
    return true;
  }

  // A grouped ConvInteger (packable_grouped) as the block-diagonal
  // GroupedConvIntegerNCHWc(X in NCHW16c, W packed, Σw, x_zero_point).
  bool convert_grouped(const Node& conv) {
    const Tensor w = *constant_input(graph_, conv, 1);  // a copy: values move below
    const TensorType xt = graph_.type(conv.inputs[0]);
    const ValueId y = conv.outputs[0];
    const Shape& ys = graph_.type(y).shape;
    const SpatialWindow win = resolve_window(conv.attrs, {xt.shape[2], xt.shape[3]}, {ys[2], ys[3]},
                                             {w.shape()[2], w.shape()[3]});
    std::vector<int64_t> pads = win.pad_begin;
    pads.insert(pads.end(), win.pad_end.begin(), win.pad_end.end());
    const std::string& name = conv.name;
    ValueId data = conv.inputs[0];
    ValueId data_zero = conv.has_input(2) ? conv.inputs[2] : kNoValue;
    if (xt.dtype == DType::Int8 && !to_unsigned(conv, data, data_zero)) return false;
    std::vector<ValueId> inputs = {
        transform(data, "NCHW", nchwc_layout(kLanes), name + "_data"),
        graph_.add_constant(names_.value(name + "_weight_packed"), pack_grouped_weight(w)),
        data_zero != kNoValue ? graph_.add_constant(names_.value(name + "_weight_sum"),
                                                    depthwise_weight_sums(w, kLanes))
                              : kNoValue,
        data_zero};
    while (!inputs.empty() && inputs.back() == kNoValue) inputs.pop_back();
    Node blocked;
    blocked.name = name;
    blocked.op = "GroupedConvIntegerNCHWc";
    blocked.inputs = std::move(inputs);
    blocked.attrs.set("strides", win.strides);
    blocked.attrs.set("dilations", win.dilations);
    blocked.attrs.set("pads", pads);
    blocked.outputs = {graph_.add_value(names_.value(graph_.value(y).name + "_NCHW16c"), {})};
    graph_.value(blocked.outputs[0]).type = infer_types(graph_, blocked)[0];
    const ValueId out = blocked.outputs[0];
    graph_.add_node(std::move(blocked));
    transform_back(out, kLanes, y, name);
    return true;
  }

  // The back transform NCHW{block}c -> NCHW of `blocked` producing `y`.
  void transform_back(ValueId blocked, int64_t block, ValueId y, const std::string& name) {
    Node back;
    back.name = names_.node(name + "_to_NCHW");
    back.op = "LayoutTransform";
    back.inputs = {blocked};
    back.attrs.set("src_layout", nchwc_layout(block));
    back.attrs.set("dst_layout", std::string("NCHW"));
    back.outputs = {y};
    graph_.add_node(std::move(back));
  }

  // vpdpbusd's unsigned operand: int8 data and its zero point + 128 as
  // uint8 (exact; ORT's S8 -> U8 conversion), elementwise ops that fuse
  // into the producer's epilogue. False (nothing added) where the zero
  // point is not a constant.
  bool to_unsigned(const Node& conv, ValueId& data, ValueId& data_zero) {
    const std::string& name = conv.name;
    const Tensor* z = data_zero == kNoValue ? nullptr : constant_input(graph_, conv, 2);
    if (data_zero != kNoValue && !z) return false;
    const int32_t zero = z ? z->data<int8_t>()[0] : 0;
    // One shift of a value that several convs read (a residual block's
    // input feeds its conv and its downsample), not one each.
    auto [it, fresh] = shifted_.try_emplace(data, kNoValue);
    if (fresh) {
      ValueId wide = cast(data, DType::Int32, name + "_data_widen");
      wide = emit_.append(
          name + "_data_shift", "Add",
          {wide, graph_.add_constant(names_.value(name + "_shift"), Tensor::scalar<int32_t>(128))},
          {}, "_shifted");
      it->second = cast(wide, DType::UInt8, name + "_data_unsigned");
    }
    data = it->second;
    data_zero = graph_.add_constant(names_.value(name + "_x_zero_point_unsigned"),
                                    Tensor::scalar<uint8_t>(static_cast<uint8_t>(zero + 128)));
    return true;
  }

  // Cast of `x` to int32 or uint8.
  ValueId cast(ValueId x, DType to, const std::string& name) {
    Attributes attrs;
    attrs.set("to", static_cast<int64_t>(to == DType::Int32 ? 6 : 2));  // ONNX's INT32, UINT8
    return emit_.append(name, "Cast", {x}, std::move(attrs), to == DType::Int32 ? "_i32" : "_u8");
  }

  ValueId transform(ValueId x, const std::string& src, const std::string& dst,
                    const std::string& node_name) {
    Attributes attrs;
    attrs.set("src_layout", src);
    attrs.set("dst_layout", dst);
    return emit_.append(node_name, "LayoutTransform", {x}, std::move(attrs), "_" + dst);
  }

  Graph& graph_;
  NameTable names_;
  NodeEmitter emit_;
  std::vector<std::vector<int>> consumers_;  // of the graph before the rewrite
  std::set<std::string> skipped_;            // convs beside a depthwise one, by name
  std::map<ValueId, ValueId> shifted_;       // int8 data -> its uint8 shift
};

}  // namespace

Graph alter_int8_conv_layout(const Graph& input) {
  // Filters padded to whole blocks first, where the chain of convs allows.
  Graph graph = pad_int8_conv_filters(input);
  Int8LayoutRewriter rewriter(graph);
  replace_nodes(graph, [&](const Node& node) { return rewriter.convert(node); });
  return graph;
}

}  // namespace lathe::passes

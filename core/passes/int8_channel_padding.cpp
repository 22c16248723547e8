// Channel padding for the int8 layout pass (passes/int8_channel_padding.h).
#include "passes/int8_channel_padding.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "passes/graph_edit.h"
#include "support/error.h"

namespace lathe::passes {
namespace {

constexpr int64_t kBlock = 16;

bool is_8bit(DType d) {
  return d == DType::UInt8 || d == DType::Int8;
}

// A dense ConvInteger on 4-D 8-bit data with a constant int8 weight whose
// zero point is a constant or absent.
bool dense_conv_integer(const Graph& graph, const Node& node) {
  if (node.op != "ConvInteger" || node.outputs.size() != 1 || !node.has_input(0) ||
      node.attrs.get_int("group", 1) != 1)
    return false;
  const TensorType& x = graph.type(node.inputs[0]);
  const Tensor* w = constant_input(graph, node, 1);
  return x.rank() == 4 && is_8bit(x.dtype) && w && w->dtype() == DType::Int8 && w->rank() == 4 &&
         (!node.has_input(3) || constant_input(graph, node, 3));
}

// A grouped ConvInteger of `channels` input and output channels (RegNet's
// groups of 8) with a constant int8 weight: zero filters pad it by whole
// groups when its input and output both pad.
bool grouped_conv_integer(const Graph& graph, const Node& node, int64_t channels) {
  const int64_t groups = node.attrs.get_int("group", 1);
  if (node.op != "ConvInteger" || node.outputs.size() != 1 || !node.has_input(0) || groups < 2 ||
      channels % groups != 0)
    return false;
  const TensorType& x = graph.type(node.inputs[0]);
  const Tensor* w = constant_input(graph, node, 1);
  return x.rank() == 4 && is_8bit(x.dtype) && x.shape[1] == channels && w &&
         w->dtype() == DType::Int8 && w->rank() == 4 && w->shape()[0] == channels &&
         w->shape()[1] == channels / groups && graph.type(node.outputs[0]).shape[1] == channels;
}

bool zero_weight_zero_point(const Graph& graph, const Node& conv) {
  if (!conv.has_input(3)) return true;
  const Tensor* z = constant_input(graph, conv, 3);
  for (int64_t i = 0; i < z->numel(); ++i)
    if (z->data<int8_t>()[i] != 0) return false;
  return true;
}

// A constant of one value per channel of [N, channels, H, W], right-aligned
// as ONNX broadcasts it: [C, 1, 1] or [1, C, 1, 1].
bool per_channel_constant(const Value& v, int64_t channels) {
  const Shape& s = v.type.shape;
  if (!v.is_constant() || s.size() < 3 || s.size() > 4) return false;
  for (size_t d = 0; d < s.size(); ++d)
    if (s[d] != (d == s.size() - 3 ? channels : 1)) return false;
  return true;
}

// `t` (one value per channel along `axis`, the other dims 1) with `padded`
// channels, the last channel's value repeated.
Tensor repeat_last_channel(const Tensor& t, size_t axis, int64_t padded) {
  Shape shape = t.shape();
  const int64_t channels = shape[axis];
  shape[axis] = padded;
  Tensor out(t.dtype(), shape);
  const size_t size = t.nbytes() / static_cast<size_t>(channels);
  const auto* src = static_cast<const char*>(t.raw());
  auto* dst = static_cast<char*>(out.raw());
  for (int64_t c = 0; c < padded; ++c)
    std::memcpy(dst + static_cast<size_t>(c) * size,
                src + static_cast<size_t>(std::min(c, channels - 1)) * size, size);
  return out;
}

// `t` with `padded` entries along `axis` (0 or 1), zeros after the first.
Tensor zero_padded(const Tensor& t, size_t axis, int64_t padded) {
  Shape shape = t.shape();
  const int64_t outer = axis == 0 ? 1 : shape[0], old = shape[axis];
  shape[axis] = padded;
  Tensor out(t.dtype(), shape);  // zero-filled
  const size_t inner = t.nbytes() / static_cast<size_t>(outer * old);
  const auto* src = static_cast<const char*>(t.raw());
  auto* dst = static_cast<char*>(out.raw());
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(dst + static_cast<size_t>(o * padded) * inner,
                src + static_cast<size_t>(o * old) * inner, static_cast<size_t>(old) * inner);
  return out;
}

// [N, C, 1, 1] against [N, C, H, W]: an SE block's gate.
bool spatial_broadcast(const Shape& s, const Shape& out) {
  return s.size() == 4 && s[0] == out[0] && s[1] == out[1] && s[2] == 1 && s[3] == 1;
}

// A reader of a padded value that takes no padding (a Flatten, a Concat, a
// conv with a weight zero point): it reads the value sliced back to its
// `channels` channels.
struct Boundary {
  ValueId value = kNoValue;
  int reader = -1;  // node index
  int64_t channels = 0;
};

struct Region {
  std::set<int> producers, elementwise, consumers, grouped;  // node indices
  std::set<ValueId> values;
  std::vector<Boundary> boundaries;
};

class Padder {
 public:
  explicit Padder(Graph& graph)
      : graph_(graph), names_(graph), consumers_(value_consumers(graph)) {}

  void run() {
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      const Node& node = graph_.nodes[i];
      if (done_.count(static_cast<int>(i)) || !dense_conv_integer(graph_, node)) continue;
      const int64_t filters = graph_.type(node.outputs[0]).shape[1];
      if (filters % kBlock == 0) continue;
      Region region;
      const bool ok = grow(region, node.outputs[0], filters);
      done_.insert(region.producers.begin(), region.producers.end());
      const int64_t padded = (filters + kBlock - 1) / kBlock * kBlock;
      if (ok && whole_groups(region, filters, padded) && packs_some_reader(region)) {
        pad(region, filters, padded);
        boundaries_.insert(boundaries_.end(), region.boundaries.begin(), region.boundaries.end());
      }
    }
    if (!boundaries_.empty()) insert_slices();
  }

 private:
  // An elementwise node the region's values flow through: every input a
  // scalar or per-channel constant or a value of the output's shape.
  bool passes_channels(const Node& node, int64_t channels) const {
    const FusionKind kind = op_kind(node.op);
    if ((kind != FusionKind::ElemWise && kind != FusionKind::Broadcast) ||
        node.outputs.size() != 1 || node.outputs[0] == kNoValue)
      return false;
    const TensorType& out = graph_.type(node.outputs[0]);
    if (out.rank() != 4 || out.shape[1] != channels) return false;
    for (ValueId in : node.inputs) {
      if (in == kNoValue) continue;
      const Value& v = graph_.value(in);
      if (v.is_constant()
              ? v.type.numel() != 1 && !per_channel_constant(v, channels)
              : v.type.shape != out.shape && !spatial_broadcast(v.type.shape, out.shape))
        return false;
    }
    return true;
  }

  // A global pool that keeps the channels apart ([N, C, H, W] -> [N, C, 1,
  // 1]; an SE block's squeeze), its other inputs scalar constants.
  bool pools_channels(const Node& node, int64_t channels) const {
    if ((node.op != "com.microsoft.QLinearGlobalAveragePool" && node.op != "GlobalAveragePool" &&
         node.op != "GlobalMaxPool") ||
        node.outputs.size() != 1 || node.attrs.get_int("channels_last", 0) != 0 ||
        !node.has_input(0) || graph_.type(node.inputs[0]).rank() != 4 ||
        graph_.type(node.inputs[0]).shape[1] != channels)
      return false;
    for (size_t i = 1; i < node.inputs.size(); ++i)
      if (node.inputs[i] != kNoValue && graph_.value(node.inputs[i]).type.numel() != 1)
        return false;
    return true;
  }

  // Adds `start` and everything it connects to; false where some producer
  // or consumer does not qualify.
  bool grow(Region& r, ValueId start, int64_t channels) {
    std::vector<ValueId> stack = {start};
    while (!stack.empty()) {
      const ValueId v = stack.back();
      stack.pop_back();
      if (!r.values.insert(v).second) continue;
      if (is_graph_output(graph_, v) || is_graph_input(graph_, v)) return false;
      const int p = graph_.value(v).producer;
      if (p < 0) return false;
      const Node& producer = graph_.nodes[static_cast<size_t>(p)];
      if (dense_conv_integer(graph_, producer)) {
        r.producers.insert(p);
      } else if (grouped_conv_integer(graph_, producer, channels) &&
                 zero_weight_zero_point(graph_, producer)) {
        if (r.grouped.insert(p).second) stack.push_back(producer.inputs[0]);
      } else if (pools_channels(producer, channels)) {
        if (r.elementwise.insert(p).second) stack.push_back(producer.inputs[0]);
      } else if (passes_channels(producer, channels)) {
        if (r.elementwise.insert(p).second) add_inputs(producer, stack);
      } else {
        return false;
      }
      for (int c : consumers_[static_cast<size_t>(v)]) {
        const Node& node = graph_.nodes[static_cast<size_t>(c)];
        if (dense_conv_integer(graph_, node) && node.inputs[0] == v &&
            zero_weight_zero_point(graph_, node) &&
            std::count(node.inputs.begin(), node.inputs.end(), v) == 1) {
          r.consumers.insert(c);
        } else if (node.inputs[0] == v && grouped_conv_integer(graph_, node, channels) &&
                   zero_weight_zero_point(graph_, node)) {
          if (r.grouped.insert(c).second) stack.push_back(node.outputs[0]);
        } else if (node.inputs[0] == v && pools_channels(node, channels)) {
          if (r.elementwise.insert(c).second) stack.push_back(node.outputs[0]);
        } else if (passes_channels(node, channels)) {
          if (r.elementwise.insert(c).second) {
            add_inputs(node, stack);
            stack.push_back(node.outputs[0]);
          }
        } else {
          r.boundaries.push_back({v, c, channels});
        }
      }
    }
    return true;
  }

  // Whether padding saves a layout transform somewhere: some reader of the
  // region takes the padding (a conv, or the elementwise steps between two
  // convs), not only slices back.
  static bool packs_some_reader(const Region& r) {
    return !r.consumers.empty() || !r.grouped.empty() || r.boundaries.empty();
  }

  // The Slices back to the original channels, each just before its reader
  // (node indices change here, so after every region is padded).
  void insert_slices() {
    std::vector<Node> old_nodes = std::move(graph_.nodes);
    graph_.nodes.clear();
    for (size_t i = 0; i < old_nodes.size(); ++i) {
      Node node = std::move(old_nodes[i]);
      for (const Boundary& b : boundaries_) {
        if (b.reader != static_cast<int>(i)) continue;
        auto ints = [&](const char* role, int64_t v) {
          return graph_.add_constant(names_.value(node.name + "_unpad_" + role),
                                     Tensor::from_vector<int64_t>({v}, {1}));
        };
        TensorType type = graph_.type(b.value);
        type.shape[1] = b.channels;
        Node slice;
        slice.name = names_.node(node.name + "_unpad");
        slice.op = "Slice";
        slice.inputs = {b.value, ints("starts", 0), ints("ends", b.channels), ints("axes", 1)};
        slice.outputs = {
            graph_.add_value(names_.value(graph_.value(b.value).name + "_unpadded"), type)};
        for (ValueId& in : node.inputs)
          if (in == b.value) in = slice.outputs[0];
        graph_.nodes.push_back(std::move(slice));
      }
      graph_.nodes.push_back(std::move(node));
    }
    reset_producers(graph_);
  }

  void add_inputs(const Node& node, std::vector<ValueId>& stack) const {
    for (ValueId in : node.inputs)
      if (in != kNoValue && !graph_.value(in).is_constant()) stack.push_back(in);
  }

  // Whether the padding is whole groups of every grouped conv in `r`.
  bool whole_groups(const Region& r, int64_t channels, int64_t padded) const {
    for (int g : r.grouped) {
      const int64_t width =
          channels / graph_.nodes[static_cast<size_t>(g)].attrs.get_int("group", 1);
      if ((padded - channels) % width != 0) return false;
    }
    return true;
  }

  ValueId constant(const std::string& base, Tensor t) {
    return graph_.add_constant(names_.value(base + "_padded"), std::move(t));
  }

  void pad(const Region& r, int64_t channels, int64_t padded) {
    for (int p : r.producers) {
      Node& conv = graph_.nodes[static_cast<size_t>(p)];
      const Tensor w = *constant_input(graph_, conv, 1);
      conv.inputs[1] = constant(graph_.value(conv.inputs[1]).name, zero_padded(w, 0, padded));
      if (conv.has_input(3)) {
        const Tensor z = *constant_input(graph_, conv, 3);
        if (z.numel() == channels)
          conv.inputs[3] = constant(graph_.value(conv.inputs[3]).name, zero_padded(z, 0, padded));
      }
    }
    for (int e : r.elementwise) {
      Node& node = graph_.nodes[static_cast<size_t>(e)];
      for (ValueId& in : node.inputs) {
        if (in == kNoValue || !per_channel_constant(graph_.value(in), channels)) continue;
        const Tensor t = graph_.value(in).constant;
        in = constant(graph_.value(in).name,
                      repeat_last_channel(t, static_cast<size_t>(t.rank() - 3), padded));
      }
    }
    for (int g : r.grouped) {
      Node& conv = graph_.nodes[static_cast<size_t>(g)];
      const Tensor w = *constant_input(graph_, conv, 1);
      const int64_t width = w.shape()[1];
      conv.inputs[1] = constant(graph_.value(conv.inputs[1]).name, zero_padded(w, 0, padded));
      conv.attrs.set("group", padded / width);
    }
    // After the producers: a conv both reading and writing the region's
    // values (24 -> 24 channels) gets both paddings.
    for (int c : r.consumers) {
      Node& conv = graph_.nodes[static_cast<size_t>(c)];
      const Tensor w = *constant_input(graph_, conv, 1);
      conv.inputs[1] = constant(graph_.value(conv.inputs[1]).name, zero_padded(w, 1, padded));
    }
    for (ValueId v : r.values) graph_.value(v).type.shape[1] = padded;
    // The new types, checked by the ops' own inference.
    std::set<int> changed = r.producers;
    changed.insert(r.elementwise.begin(), r.elementwise.end());
    changed.insert(r.consumers.begin(), r.consumers.end());
    changed.insert(r.grouped.begin(), r.grouped.end());
    for (int n : changed) {
      const Node& node = graph_.nodes[static_cast<size_t>(n)];
      const std::vector<TensorType> types = infer_types(graph_, node);
      LATHE_CHECK(types[0] == graph_.type(node.outputs[0]), "pad_int8_conv_filters: node '",
                  node.name, "' infers ", types[0].to_string(), " for ",
                  graph_.type(node.outputs[0]).to_string());
    }
  }

  Graph& graph_;
  NameTable names_;
  std::vector<std::vector<int>> consumers_;
  std::set<int> done_;
  std::vector<Boundary> boundaries_;  // of the regions padded
};

}  // namespace

Graph pad_int8_conv_filters(const Graph& input) {
  Graph graph = input;
  Padder(graph).run();
  graph.remove_unused_values();
  return graph;
}

}  // namespace lathe::passes

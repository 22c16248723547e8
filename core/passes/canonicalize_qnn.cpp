#include "passes/canonicalize_qnn.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/quant_arith.h"
#include "passes/graph_edit.h"

namespace lathe::passes {
namespace {

bool is_quant_dtype(DType t) {
  return t == DType::Int8 || t == DType::UInt8;
}

// The largest |v| of values (0 for none; NaN stays NaN).
float largest_magnitude(const std::vector<float>& values) {
  float m = 0.0f;
  for (float v : values) m = std::isnan(v) ? v : std::max(m, std::fabs(v));
  return m;
}

// Values of a float32 tensor.
std::vector<float> floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

// A DequantizeLinear as the pass sees it: its quantized input, scale and
// zero point (kNoValue when omitted), and the constants behind them.
struct Dequantize {
  ValueId data = kNoValue, scale = kNoValue, zero_point = kNoValue;
  // Copies (sharing the buffers): adding values moves the graph's value list.
  Tensor data_constant, scale_constant;
  int64_t axis = 1;
};

class QnnCanonicalizer {
 public:
  explicit QnnCanonicalizer(Graph& graph) : graph_(graph), names_(graph), nodes_(graph, names_) {
    for (const Node& n : graph.nodes) {
      if (n.op != "DequantizeLinear" || n.outputs.size() != 1 || !n.has_input(0)) continue;
      Dequantize dq;
      dq.data = n.inputs[0];
      dq.scale = n.inputs[1];
      dq.zero_point = n.has_input(2) ? n.inputs[2] : kNoValue;
      if (const Tensor* c = constant_input(graph, n, 0)) dq.data_constant = *c;
      const Tensor* scale = constant_input(graph, n, 1);
      if (scale) dq.scale_constant = *scale;
      dq.axis = n.attrs.get_int("axis", 1);
      if (scale && scale->dtype() == DType::Float32 && is_quant_dtype(graph.type(dq.data).dtype))
        dequantized_[n.outputs[0]] = dq;
    }
    find_fused_pairs();
    find_fused_elementwise();
  }

  void run() {
    replace_nodes(graph_, [this](const Node& node) { return rewrite(node); });
  }

 private:
  bool rewrite(const Node& node) {
    if (node.outputs.size() != 1) return false;
    if (node.op == "QLinearConv") return qlinear(node, Kind::Conv);
    if (node.op == "QLinearMatMul") return qlinear(node, Kind::MatMul);
    if (node.op == "com.microsoft.QGemm") return qlinear(node, Kind::Gemm);
    if (node.op == "QuantizeLinear")
      return quantize_of_product(node) || quantize_of_elementwise(node);
    if (fused_elementwise_.count(node.name)) return true;  // emitted with its QuantizeLinear
    return dequantized_product(node);
  }

  enum class Kind { Conv, MatMul, Gemm };

  // The shape a per-output-channel vector of `channels` values takes to
  // broadcast against the product's output: [C, 1, ...] for a conv's
  // N x C x spatial output, [C] for a matmul's; a scalar for one value.
  Shape channel_shape(Kind kind, int64_t channels, int out_rank) const {
    if (channels == 1) return {};
    if (kind != Kind::Conv) return {channels};
    Shape s(static_cast<size_t>(out_rank - 1), 1);
    s[0] = channels;
    return s;
  }

  ValueId constant(const std::string& name, Tensor t) {
    return graph_.add_constant(names_.value(name), std::move(t));
  }

  // The integer product of a and b (Conv: ConvInteger with the node's
  // attributes; MatMul: MatMulInteger) with their zero points.
  ValueId integer_product(const Node& node, Kind kind, ValueId a, ValueId b, ValueId a_zp,
                          ValueId b_zp) {
    Attributes attrs;
    if (kind == Kind::Conv) attrs = node.attrs;
    return nodes_.append(node.name + "_integer",
                         kind == Kind::Conv ? "ConvInteger" : "MatMulInteger", {a, b, a_zp, b_zp},
                         attrs, "_acc");
  }

  // acc (int32) -> Cast float -> * scale: the first steps of the epilogue;
  // with `last`, the Mul writes the node's own output.
  ValueId scaled(const Node& node, ValueId acc, const std::vector<float>& scale, Kind kind,
                 bool last) {
    Attributes to;
    to.set("to", int64_t{1});  // float32
    ValueId f = nodes_.append(node.name + "_to_float", "Cast", {acc}, to, "_f");
    const int rank = graph_.type(f).rank();
    const int64_t channels = static_cast<int64_t>(scale.size());
    ValueId s = constant(node.name + "_requant_scale",
                         Tensor::from_vector<float>(scale, channel_shape(kind, channels, rank)));
    if (!last) return nodes_.append(node.name + "_scale", "Mul", {f, s}, {}, "_scaled");
    finish(node, "Mul", {f, s});
    return node.outputs[0];
  }

  // Appends the node that writes `node`'s own output value.
  void finish(const Node& node, const std::string& op, std::vector<ValueId> inputs,
              Attributes attrs = {}) {
    Node last;
    last.name = node.name;
    last.op = op;
    last.inputs = std::move(inputs);
    last.attrs = std::move(attrs);
    last.outputs = {node.outputs[0]};
    graph_.add_node(std::move(last));
  }

  // B of a Gemm as MatMul's [K, N]: transposed when transB (a constant).
  std::optional<Tensor> gemm_weight(const Node& node, const Tensor& b) {
    if (b.rank() != 2) return std::nullopt;
    if (node.attrs.get_int("transB", 0) == 0) return b;
    const int64_t n = b.shape()[0], k = b.shape()[1];
    Tensor t(b.dtype(), {k, n});
    const size_t size = dtype_size(b.dtype());
    const auto* src = static_cast<const uint8_t*>(b.raw());
    auto* dst = static_cast<uint8_t*>(t.raw());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j)
        std::copy_n(src + (i * k + j) * size, size, dst + (j * n + i) * size);
    return t;
  }

  // QLinearConv(x, xs, xzp, w, ws, wzp, ys, yzp, B?), QLinearMatMul(a, as,
  // azp, b, bs, bzp, ys, yzp), QGemm(a, as, azp, b, bs, bzp, C?, ys?, yzp?).
  bool qlinear(const Node& node, Kind kind) {
    const bool gemm = kind == Kind::Gemm;
    const size_t ys_index = gemm ? 7 : 6, yzp_index = gemm ? 8 : 7;
    const bool quantized_output = node.has_input(ys_index);
    ValueId b = node.inputs[3];
    if (gemm && node.attrs.get_int("transA", 0) != 0) return false;
    if (gemm && node.attrs.get_int("transB", 0) != 0) {
      const Tensor* bc = constant_input(graph_, node, 3);
      if (!bc || bc->rank() != 2) return false;
      std::optional<Tensor> kn = gemm_weight(node, Tensor(*bc));
      b = constant(node.name + "_b", std::move(*kn));
    }
    const int out_rank = graph_.type(node.outputs[0]).rank();
    const int64_t channels = graph_.type(node.inputs[4]).numel();
    // The requantize multiplier per output channel, in the order ORT
    // computes it: (x_scale * w_scale) / y_scale, QGemm's as
    // ((alpha * a_scale) * b_scale) / y_scale. Graph nodes, which
    // fold_constants folds (with the same float operations) when the scales
    // are constants, as they are in models.
    ValueId scale = node.inputs[1];
    const float alpha = gemm ? node.attrs.get_float("alpha", 1.0f) : 1.0f;
    if (alpha != 1.0f)
      scale = nodes_.append(node.name + "_alpha", "Mul",
                            {constant(node.name + "_alpha", Tensor::scalar<float>(alpha)), scale},
                            {}, "_alpha");
    scale = nodes_.append(node.name + "_product_scale", "Mul", {scale, node.inputs[4]}, {}, "_w");
    if (quantized_output)
      scale = nodes_.append(node.name + "_requant_scale", "Div", {scale, node.inputs[ys_index]}, {},
                            "_y");
    if (kind == Kind::Conv && channels > 1)
      scale = nodes_.reshape(node.name + "_scale_per_channel", scale,
                             channel_shape(kind, channels, out_rank), "_c");
    ValueId acc = integer_product(node, kind, node.inputs[0], b, node.inputs[2], node.inputs[5]);
    const size_t bias_index = kind == Kind::Conv ? 8 : 6;
    if (kind != Kind::MatMul && node.has_input(bias_index)) {
      ValueId bias = node.inputs[bias_index];
      const int64_t filters = graph_.type(bias).numel();
      if (kind == Kind::Conv && filters > 1)
        bias = nodes_.reshape(node.name + "_bias_per_channel", bias,
                              channel_shape(kind, filters, out_rank), "_c");
      acc = nodes_.append(node.name + "_bias", "Add", {acc, bias}, {}, "_biased");
    }
    Attributes to;
    to.set("to", int64_t{1});  // float32
    ValueId f = nodes_.append(node.name + "_to_float", "Cast", {acc}, to, "_f");
    if (!quantized_output) {
      finish(node, "Mul", {f, scale});
      return true;
    }
    f = nodes_.append(node.name + "_scale", "Mul", {f, scale}, {}, "_scaled");
    ValueId one = constant(node.name + "_unit_scale", Tensor::scalar<float>(1.0f));
    // The multipliers' bound, where the scales are constants (as in models):
    // alpha, the largest x_scale and w_scale, over the one y_scale; slightly
    // widened, as ORT's order of the float operations may round up.
    const std::vector<float> xs = constant_floats(node, 1), ws = constant_floats(node, 4),
                             ys = constant_floats(node, ys_index);
    const float largest_scale = xs.empty() || ws.empty() || ys.size() != 1
                                    ? HUGE_VALF
                                    : std::fabs(alpha) * largest_magnitude(xs) *
                                          largest_magnitude(ws) / std::fabs(ys[0]) * 1.0001f;
    finish(node, "QuantizeLinear", {f, one, node.inputs[yzp_index]},
           requantize_attributes(largest_scale));
    return true;
  }

  std::optional<Tensor> constant_copy(const Node& node, size_t i) const {
    const Tensor* c = constant_input(graph_, node, i);
    return c ? std::optional<Tensor>(*c) : std::nullopt;
  }

  // A DequantizeLinear output, nullptr otherwise.
  const Dequantize* dequantized(ValueId v) const {
    auto it = dequantized_.find(v);
    return it == dequantized_.end() ? nullptr : &it->second;
  }

  // What a Conv / MatMul / Gemm of a per-tensor dequantized activation and a
  // dequantized constant weight (per tensor, or per output channel) becomes.
  struct ProductPlan {
    Kind kind = Kind::Conv;
    const Dequantize* x = nullptr;
    const Dequantize* w = nullptr;
    std::optional<Tensor> bias;  // float32
  };

  static std::optional<Kind> product_kind(const std::string& op) {
    if (op == "Conv") return Kind::Conv;
    if (op == "MatMul") return Kind::MatMul;
    if (op == "Gemm") return Kind::Gemm;
    return std::nullopt;
  }

  // The plan for `node`, or nothing when it must stay float. Emits nothing.
  std::optional<ProductPlan> plan_product(const Node& node) const {
    std::optional<Kind> kind = product_kind(node.op);
    if (!kind || node.outputs.size() != 1 || !node.has_input(0) || !node.has_input(1))
      return std::nullopt;
    ProductPlan p;
    p.kind = *kind;
    p.x = dequantized(node.inputs[0]);
    p.w = dequantized(node.inputs[1]);
    if (!p.x || !p.w || !p.w->data_constant.defined() || p.x->scale_constant.numel() != 1)
      return std::nullopt;
    // Int8 activations stay float, as ONNX Runtime keeps them on x86
    // (QDQIsInt8Allowed() is false off ARM): its results then match, and
    // vpdpbusd multiplies uint8 by int8, so an int8 activation would need
    // shifting by 128 first.
    if (graph_.type(p.x->data).dtype != DType::UInt8) return std::nullopt;
    if (p.x->zero_point != kNoValue && !graph_.value(p.x->zero_point).is_constant())
      return std::nullopt;
    if (p.w->zero_point != kNoValue && !graph_.value(p.w->zero_point).is_constant())
      return std::nullopt;
    const Tensor& wq = p.w->data_constant;
    if (p.kind == Kind::Gemm &&
        (node.attrs.get_int("transA", 0) != 0 || node.attrs.get_float("alpha", 1.0f) != 1.0f ||
         (node.has_input(2) && node.attrs.get_float("beta", 1.0f) != 1.0f)))
      return std::nullopt;
    if (p.kind != Kind::Conv && wq.rank() != 2) return std::nullopt;
    // The weight's channel axis: a conv's filters (0), MatMul's columns
    // (1 of [K, N]), a Gemm's columns (0 of a transB [N, K], else 1).
    const bool trans_b = p.kind == Kind::Gemm && node.attrs.get_int("transB", 0) != 0;
    const int64_t channel_axis = p.kind == Kind::Conv || trans_b ? 0 : 1;
    const int64_t w_channels = p.w->scale_constant.numel();
    if (w_channels != 1 && (p.w->axis < 0 ? p.w->axis + wq.rank() : p.w->axis) != channel_axis)
      return std::nullopt;
    p.bias = constant_copy(node, 2);
    if (node.has_input(2) && (!p.bias || p.bias->dtype() != DType::Float32)) return std::nullopt;
    // The epilogue's bias is one value per output channel (a [C, 1, ...] or
    // [N] constant) or one in all.
    const int64_t columns = wq.shape()[static_cast<size_t>(channel_axis)];
    if (p.bias && p.bias->numel() != 1 && p.bias->numel() != columns) return std::nullopt;
    if (p.bias && w_channels != 1 && p.bias->numel() != w_channels) return std::nullopt;
    return p;
  }

  // The integer product of a plan: the weight as MatMul's [K, N] for a Gemm.
  ValueId emit_product(const Node& node, const ProductPlan& p) {
    ValueId wv = p.w->data;
    if (p.kind == Kind::Gemm)
      wv = constant(node.name + "_weight", *gemm_weight(node, p.w->data_constant));
    return integer_product(node, p.kind, p.x->data, wv, p.x->zero_point, p.w->zero_point);
  }

  std::vector<float> weight_scales(const ProductPlan& p) const {
    return floats(p.w->scale_constant);
  }

  // Unfused: acc -> float * (x_scale * w_scale) + bias, writing the node's output.
  void emit_float_epilogue(const Node& node, const ProductPlan& p) {
    ValueId acc = emit_product(node, p);
    const float x_scale = p.x->scale_constant.data<float>()[0];
    std::vector<float> scale;
    for (float w_scale : weight_scales(p)) scale.push_back(x_scale * w_scale);
    ValueId f = scaled(node, acc, scale, p.kind, !p.bias);
    if (!p.bias) return;
    const int rank = graph_.type(f).rank();
    ValueId b = constant(node.name + "_bias",
                         p.bias->reshaped(channel_shape(p.kind, p.bias->numel(), rank)));
    finish(node, "Add", {f, b});
  }

  // Fused with the QuantizeLinear `q` that alone reads it, as ONNX Runtime
  // fuses DQ -> Conv/Gemm/MatMul -> Q into QLinearConv, QGemm and
  // QLinearMatMul: the float bias quantized to int32 with scale
  // x_scale * w_scale (ORT's WeightBiasQuantization: round half to even of
  // bias / scale), added to the accumulator, and the requantize of qlinear().
  void emit_requantized(const Node& node, const ProductPlan& p, const Node& q) {
    ValueId acc = emit_product(node, p);
    const float x_scale = p.x->scale_constant.data<float>()[0];
    const float y_scale = graph_.value(q.inputs[1]).constant.data<float>()[0];
    const std::vector<float> w_scales = weight_scales(p);
    if (p.bias) {
      const std::vector<float> b = floats(*p.bias);
      std::vector<int32_t> bq(b.size());
      for (size_t c = 0; c < b.size(); ++c) {
        const float bias_scale = x_scale * w_scales[w_scales.size() == 1 ? 0 : c];
        bq[c] = static_cast<int32_t>(std::nearbyintf(b[c] / bias_scale));
      }
      const int rank = graph_.type(acc).rank();
      ValueId bv = constant(node.name + "_bias_int32",
                            Tensor::from_vector<int32_t>(
                                bq, channel_shape(p.kind, static_cast<int64_t>(bq.size()), rank)));
      acc = nodes_.append(node.name + "_bias", "Add", {acc, bv}, {}, "_biased");
    }
    std::vector<float> scale;
    for (float w_scale : w_scales) scale.push_back(quant::product_scale(x_scale, w_scale, y_scale));
    ValueId f = scaled(node, acc, scale, p.kind, false);
    ValueId one = constant(node.name + "_unit_scale", Tensor::scalar<float>(1.0f));
    std::vector<ValueId> inputs = {f, one};
    if (q.has_input(2)) inputs.push_back(q.inputs[2]);
    finish(q, "QuantizeLinear", inputs, requantize_attributes(largest_magnitude(scale)));
  }

  // The attributes of a requantization's QuantizeLinear (scale 1), whose
  // input is an int32 accumulator times scales of at most `largest_scale`:
  // "bounded_input" where that is at most 1/2, so that |x| <= 2^30 and its
  // compute may clamp after rounding to integers (topi/quantize_compute.cpp).
  // A flag rather than the bound, so that equal groups still share a kernel.
  static Attributes requantize_attributes(float largest_scale) {
    Attributes attrs;
    if (largest_scale <= 0.5f) attrs.set("bounded_input", int64_t{1});
    return attrs;
  }

  // The constant floats of input i of `node`, or none.
  std::vector<float> constant_floats(const Node& node, size_t i) const {
    const Tensor* t = constant_input(graph_, node, i);
    if (!t || t->dtype() != DType::Float32) return {};
    return floats(*t);
  }

  // Pairs each product that a per-tensor QuantizeLinear alone reads with it.
  void find_fused_pairs() {
    const std::vector<std::vector<int>> consumers = value_consumers(graph_);
    for (const Node& n : graph_.nodes) {
      if (!plan_product(n) || is_graph_output(graph_, n.outputs[0])) continue;
      const std::vector<int>& readers = consumers[static_cast<size_t>(n.outputs[0])];
      if (readers.size() != 1) continue;
      const Node& q = graph_.nodes[static_cast<size_t>(readers[0])];
      if (q.op != "QuantizeLinear" || q.inputs[0] != n.outputs[0]) continue;
      const Tensor* ys = constant_input(graph_, q, 1);
      if (!ys || ys->numel() != 1 || ys->dtype() != DType::Float32) continue;
      if (q.has_input(2) && !constant_input(graph_, q, 2)) continue;
      fused_products_.insert(n.name);
      product_of_q_[q.name] = n;
    }
  }

  bool dequantized_product(const Node& node) {
    if (fused_products_.count(node.name)) return true;  // emitted with its QuantizeLinear
    std::optional<ProductPlan> p = plan_product(node);
    if (!p) return false;
    emit_float_epilogue(node, *p);
    return true;
  }

  bool quantize_of_product(const Node& q) {
    auto it = product_of_q_.find(q.name);
    if (it == product_of_q_.end()) return false;
    emit_requantized(it->second, *plan_product(it->second), q);
    return true;
  }

  // A per-tensor uint8 DequantizeLinear with constant parameters.
  bool per_tensor_uint8(const Dequantize* dq) const {
    return dq && dq->scale_constant.numel() == 1 && graph_.type(dq->data).dtype == DType::UInt8 &&
           dq->zero_point != kNoValue && graph_.value(dq->zero_point).is_constant();
  }

  // DQ -> Add / Mul / GlobalAveragePool -> Q, which ONNX Runtime fuses into
  // QLinearAdd, QLinearMul and QLinearGlobalAveragePool (its QDQ binary and
  // unary selectors) when the operands are per-tensor uint8 (int8 ones stay
  // float on x86, as for the products): paired here, and emitted as those
  // contrib ops, whose arithmetic is ORT's kernels' (ir/quant_arith.h). The
  // float Add differs from QLinearAdd's fused multiply-adds by one step where
  // a sum lands near a rounding boundary (137 of 802816 values of one layer
  // of a ResNet-50).
  void find_fused_elementwise() {
    const std::vector<std::vector<int>> consumers = value_consumers(graph_);
    for (const Node& n : graph_.nodes) {
      const size_t arity = n.op == "Add" || n.op == "Mul" ? 2 : n.op == "GlobalAveragePool" ? 1 : 0;
      if (arity == 0 || n.inputs.size() != arity || n.outputs.size() != 1 ||
          is_graph_output(graph_, n.outputs[0]))
        continue;
      bool quantized = true;
      for (size_t i = 0; i < arity; ++i)
        quantized = quantized && per_tensor_uint8(dequantized(n.inputs[i]));
      if (!quantized) continue;
      const std::vector<int>& readers = consumers[static_cast<size_t>(n.outputs[0])];
      if (readers.size() != 1) continue;
      const Node& q = graph_.nodes[static_cast<size_t>(readers[0])];
      if (q.op != "QuantizeLinear" || q.inputs[0] != n.outputs[0] || !q.has_input(2)) continue;
      const Tensor* ys = constant_input(graph_, q, 1);
      const Tensor* yzp = constant_input(graph_, q, 2);
      if (!ys || ys->numel() != 1 || ys->dtype() != DType::Float32 || !yzp || yzp->numel() != 1 ||
          yzp->dtype() != DType::UInt8)
        continue;
      fused_elementwise_.insert(n.name);
      elementwise_of_q_[q.name] = n;
    }
  }

  bool quantize_of_elementwise(const Node& q) {
    auto it = elementwise_of_q_.find(q.name);
    if (it == elementwise_of_q_.end()) return false;
    const Node& n = it->second;
    const Dequantize* a = dequantized(n.inputs[0]);
    if (n.op == "GlobalAveragePool") {
      Attributes attrs;
      attrs.set("channels_last", int64_t{0});
      finish(q, "com.microsoft.QLinearGlobalAveragePool",
             {a->data, a->scale, a->zero_point, q.inputs[1], q.inputs[2]}, attrs);
      return true;
    }
    const Dequantize* b = dequantized(n.inputs[1]);
    finish(q, n.op == "Add" ? "com.microsoft.QLinearAdd" : "com.microsoft.QLinearMul",
           {a->data, a->scale, a->zero_point, b->data, b->scale, b->zero_point, q.inputs[1],
            q.inputs[2]});
    return true;
  }

  Graph& graph_;
  NameTable names_;
  NodeEmitter nodes_;
  std::map<ValueId, Dequantize> dequantized_;
  std::set<std::string> fused_products_;      // names of products emitted with their Q
  std::map<std::string, Node> product_of_q_;  // Q name -> the product it quantizes
  std::set<std::string> fused_elementwise_;   // Add / Mul / GlobalAveragePool emitted with their Q
  std::map<std::string, Node> elementwise_of_q_;
};

}  // namespace

Graph canonicalize_qnn(const Graph& graph) {
  Graph out = graph;
  QnnCanonicalizer(out).run();
  return out;
}

}  // namespace lathe::passes

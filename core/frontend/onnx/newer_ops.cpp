// Ops and forms from ONNX opsets after 17. Ops that Lathe has no kernel for
// are expanded into ones it has, the way the legacy exporter wrote them
// (Gelu as Erf arithmetic), so that fusion sees what it already knows; newer
// forms of ops it has are checked for what Lathe does not implement and
// brought to the form its ops take.
#include <cmath>
#include <numbers>
#include <set>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/node_sequence.h"
#include "ir/ops/resize_geometry.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

ValueId input_at(const Node& node, size_t i) {
  LATHE_CHECK(i < node.inputs.size() && node.inputs[i] != kNoValue, node.op, " needs input ", i);
  return node.inputs[i];
}

// Gelu (opset 20): x * Φ(x), exactly with erf or by PyTorch's tanh formula.
std::vector<Node> expand_gelu(Node node, const UpgradeHooks& hooks) {
  const std::string approximate = node.attrs.get_string("approximate", "none");
  NodeSequence u(node.name, hooks);
  ValueId x = input_at(node, 0);
  ValueId inner;
  if (approximate == "none") {
    inner = u.op("Erf", {u.op("Mul", {x, u.scalar(static_cast<float>(1 / std::numbers::sqrt2))})});
  } else if (approximate == "tanh") {
    // sqrt(2/pi) * (x + 0.044715 x^3)
    ValueId cube = u.op("Mul", {u.op("Mul", {x, x}), x});
    ValueId poly = u.op("Add", {x, u.op("Mul", {cube, u.scalar(0.044715f)})});
    const float k = static_cast<float>(std::sqrt(2 / std::numbers::pi));
    inner = u.op("Tanh", {u.op("Mul", {poly, u.scalar(k)})});
  } else {
    fail(str("Gelu approximate must be 'none' or 'tanh', got '", approximate, "'"));
  }
  ValueId half_x = u.op("Mul", {x, u.scalar(0.5f)});
  u.into(node.outputs.at(0), "Mul", {half_x, u.op("Add", {inner, u.scalar(1.0f)})});
  return std::move(u.nodes);
}

// Mish (opset 18): x * tanh(softplus(x)).
std::vector<Node> expand_mish(Node node, const UpgradeHooks& hooks) {
  NodeSequence u(node.name, hooks);
  ValueId x = input_at(node, 0);
  u.into(node.outputs.at(0), "Mul", {x, u.op("Tanh", {u.op("Softplus", {x})})});
  return std::move(u.nodes);
}

// GroupNormalization (opset 18, and 21, where scale and bias became per
// channel): X [N, C, ...] viewed as [N, G, C/G * ...] is InstanceNormalization
// of G channels. Opset 18's per-group scale and bias go to it; opset 21's
// per-channel ones apply after the view is undone.
std::vector<Node> expand_group_norm(Node node, int opset, const UpgradeHooks& hooks) {
  const Shape shape = known_type(node, 0, hooks).shape;
  LATHE_CHECK(shape.size() >= 2, "GroupNormalization needs X of rank >= 2");
  LATHE_CHECK(node.attrs.has("num_groups"), "GroupNormalization needs num_groups");
  const int64_t groups = node.attrs.get_int("num_groups", 0);
  const int64_t channels = shape[1];
  LATHE_CHECK(groups >= 1 && channels % groups == 0, "GroupNormalization: ", channels,
              " channels do not divide into num_groups ", groups);
  const int64_t stash = node.attrs.get_int("stash_type", 1);
  LATHE_CHECK(stash == 1, "GroupNormalization stash_type ", stash, " is not supported");
  const bool per_channel = opset >= 21;
  const int64_t params = per_channel ? channels : groups;
  for (size_t i : {size_t{1}, size_t{2}}) {
    const TensorType& t = known_type(node, i, hooks);
    LATHE_CHECK(t.rank() == 1 && t.shape[0] == params, "GroupNormalization (opset ", opset,
                ") input ", i, " must have ", params, " values (",
                per_channel ? "one per channel" : "one per group", "), got ", t.to_string());
  }
  NodeSequence u(node.name, hooks);
  Attributes a;
  a.set("epsilon", node.attrs.get_float("epsilon", 1e-5f));
  ValueId grouped = u.reshape(input_at(node, 0), {shape[0], groups, -1});
  std::vector<int64_t> x_shape(shape.begin(), shape.end());
  if (!per_channel) {
    ValueId normed =
        u.op("InstanceNormalization", {grouped, input_at(node, 1), input_at(node, 2)}, a);
    u.into(node.outputs.at(0), "Reshape", {normed, u.ints(x_shape)});
    return std::move(u.nodes);
  }
  ValueId ones = hooks.add_constant(node.name + "/ones",
                                    Tensor::from_vector(std::vector<float>(groups, 1.f), {groups}));
  ValueId zeros = u.zeros({groups});
  ValueId normed = u.reshape(u.op("InstanceNormalization", {grouped, ones, zeros}, a), x_shape);
  std::vector<int64_t> per_channel_shape(shape.size() - 1, 1);
  per_channel_shape[0] = channels;
  ValueId scaled = u.op("Mul", {normed, u.reshape(input_at(node, 1), per_channel_shape)});
  u.into(node.outputs.at(0), "Add", {scaled, u.reshape(input_at(node, 2), per_channel_shape)});
  return std::move(u.nodes);
}

// RMSNormalization (opset 23): X / sqrt(mean(X^2 over axis..) + epsilon) * scale.
std::vector<Node> expand_rms_norm(Node node, const UpgradeHooks& hooks) {
  const auto rank = static_cast<int64_t>(known_type(node, 0, hooks).shape.size());
  int64_t axis = node.attrs.get_int("axis", -1);
  if (axis < 0) axis += rank;
  LATHE_CHECK(axis >= 0 && axis < rank, "RMSNormalization axis out of range for rank ", rank);
  const int64_t stash = node.attrs.get_int("stash_type", 1);
  LATHE_CHECK(stash == 1, "RMSNormalization stash_type ", stash, " is not supported");
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  NodeSequence u(node.name, hooks);
  ValueId x = input_at(node, 0);
  Attributes keep;
  keep.set("keepdims", int64_t{1});
  ValueId mean_square = u.op("ReduceMean", {u.op("Mul", {x, x}), u.ints(axes)}, keep);
  ValueId rms =
      u.op("Sqrt", {u.op("Add", {mean_square, u.scalar(node.attrs.get_float("epsilon", 1e-5f))})});
  u.into(node.outputs.at(0), "Mul", {u.op("Div", {x, rms}), input_at(node, 1)});
  return std::move(u.nodes);
}

// A constant 1-D input of `node` as doubles; nullopt when absent.
std::optional<std::vector<double>> constant_values(const Node& node, size_t i,
                                                   const UpgradeHooks& hooks) {
  if (i >= node.inputs.size() || node.inputs[i] == kNoValue) return std::nullopt;
  const Tensor* t = hooks.constant_of(node.inputs[i]);
  LATHE_CHECK(t, node.op, " input ", i, " must be a constant");
  if (t->numel() == 0) return std::nullopt;
  std::vector<double> v;
  visit_dtype(t->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t k = 0; k < t->numel(); ++k) v.push_back(static_cast<double>(t->data<T>()[k]));
  });
  return v;
}

// keep_aspect_ratio_policy (opset 18) with `sizes`: one factor for every
// resized axis, the smallest (not_larger) or largest (not_smaller) of
// sizes / input, and lengths round(factor * input). The node gets those
// lengths as `sizes` and the factor as its coordinate scales, as a ratio of
// the two lengths it came from.
void apply_aspect_policy(Node& node, const std::string& policy, const std::vector<int64_t>& axes,
                         const Shape& shape, const UpgradeHooks& hooks) {
  const std::vector<double> sizes = *constant_values(node, 3, hooks);
  LATHE_CHECK(sizes.size() == shape.size(), "Resize sizes has ", sizes.size(), " values for rank ",
              shape.size());
  int64_t num = 0, den = 1;  // the chosen factor num / den
  for (int64_t a : axes) {
    const auto out = static_cast<int64_t>(sizes[static_cast<size_t>(a)]);
    const int64_t in = shape[static_cast<size_t>(a)];
    LATHE_CHECK(out > 0 && in > 0, "Resize with keep_aspect_ratio_policy needs positive lengths");
    const bool better =
        num == 0 || (policy == "not_larger" ? out * den < num * in : out * den > num * in);
    if (better) num = out, den = in;
  }
  const double factor = static_cast<double>(num) / static_cast<double>(den);
  std::vector<int64_t> lengths(shape.begin(), shape.end());
  std::vector<int64_t> ratios(2 * shape.size(), 1);
  for (int64_t a : axes) {
    const auto d = static_cast<size_t>(a);
    lengths[d] = static_cast<int64_t>(factor * static_cast<double>(shape[d]) + 0.5);
    ratios[2 * d] = num;
    ratios[2 * d + 1] = den;
  }
  node.inputs[3] = hooks.add_constant(
      node.name + "/aspect_sizes",
      Tensor::from_vector<int64_t>(lengths, {static_cast<int64_t>(lengths.size())}));
  node.attrs.set(kResizeCoordinateScales, ratios);
}

// Resize's opset-18 attributes: `axes` names the axes roi, scales and sizes
// cover (the others keep their size); `antialias` stays for the kernels;
// keep_aspect_ratio_policy becomes sizes and coordinate scales.
Node upgrade_resize_18(Node node, const UpgradeHooks& hooks) {
  const std::string policy = node.attrs.get_string("keep_aspect_ratio_policy", "stretch");
  node.attrs.erase("keep_aspect_ratio_policy");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    fail(str("Resize keep_aspect_ratio_policy '", policy,
             "' is not one of stretch, not_larger, not_smaller"));
  const Shape shape = known_type(node, 0, hooks).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> axes;
  if (node.attrs.has("axes")) {
    axes = node.attrs.get_ints("axes");
    for (int64_t& a : axes) {
      if (a < 0) a += rank;
      LATHE_CHECK(a >= 0 && a < rank, "Resize axes entry out of range for rank ", rank);
    }
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (node.attrs.has("axes")) {
    node.attrs.erase("axes");
    // roi (1): starts then ends; scales (2); sizes (3): one value per listed axis.
    auto widen = [&](size_t input, auto fill, DType dtype) {
      auto v = constant_values(node, input, hooks);
      if (!v) return;
      const size_t per = input == 1 ? 2 : 1;
      LATHE_CHECK(v->size() == per * axes.size(), "Resize input ", input, " has ", v->size(),
                  " values for ", axes.size(), " axes");
      std::vector<double> full(per * shape.size());
      for (size_t p = 0; p < per; ++p)
        for (size_t d = 0; d < shape.size(); ++d) full[p * shape.size() + d] = fill(p, d);
      for (size_t p = 0; p < per; ++p)
        for (size_t k = 0; k < axes.size(); ++k)
          full[p * shape.size() + static_cast<size_t>(axes[k])] = (*v)[p * axes.size() + k];
      Tensor t(dtype, {static_cast<int64_t>(full.size())});
      visit_dtype(dtype, [&](auto tag) {
        using T = decltype(tag);
        for (size_t k = 0; k < full.size(); ++k) t.data<T>()[k] = static_cast<T>(full[k]);
      });
      node.inputs[input] = hooks.add_constant(node.name + "/full_" + std::to_string(input), t);
    };
    widen(
        1, [](size_t p, size_t) { return p == 0 ? 0.0 : 1.0; }, DType::Float32);
    widen(
        2, [](size_t, size_t) { return 1.0; }, DType::Float32);
    widen(
        3, [&](size_t, size_t d) { return static_cast<double>(shape[d]); }, DType::Int64);
  }
  if (policy != "stretch" && constant_values(node, 3, hooks))
    apply_aspect_policy(node, policy, axes, shape, hooks);
  return node;
}

}  // namespace

const TensorType& known_type(const Node& node, size_t i, const UpgradeHooks& hooks) {
  const TensorType* t = hooks.type_of(input_at(node, i));
  LATHE_CHECK(t && !t->shape.empty(), node.op, ": the type of input ", i, " is unknown");
  return *t;
}

bool is_newer_expanded_op(const std::string& op) {
  return op == "Gelu" || op == "Mish" || op == "GroupNormalization" || op == "RMSNormalization";
}

std::vector<Node> expand_newer_op(Node node, int opset, const UpgradeHooks& hooks) {
  if (node.op == "Gelu") return expand_gelu(std::move(node), hooks);
  if (node.op == "Mish") return expand_mish(std::move(node), hooks);
  if (node.op == "RMSNormalization") return expand_rms_norm(std::move(node), hooks);
  return expand_group_norm(std::move(node), opset, hooks);
}

Node upgrade_newer_form(Node node, int opset, const UpgradeHooks& hooks) {
  if (opset >= 18 && node.op == "Resize") return upgrade_resize_18(std::move(node), hooks);
  // Cast's saturate (opset 19) concerns only float8 targets, which Lathe lacks.
  if (opset >= 19 && (node.op == "Cast" || node.op == "CastLike")) node.attrs.erase("saturate");
  // QuantizeLinear's saturate (opset 19) too; its block_size and
  // output_dtype (opset 21) are checked by the op's inference.
  if (opset >= 19 && node.op == "QuantizeLinear") node.attrs.erase("saturate");
  return node;
}

bool handles_newer_form(const std::string& op, int opset) {
  static const std::set<std::string> kReduce = {"ReduceL1",        "ReduceL2",   "ReduceLogSum",
                                                "ReduceLogSumExp", "ReduceMax",  "ReduceMean",
                                                "ReduceMin",       "ReduceProd", "ReduceSumSquare"};
  if (opset == 18 &&
      (kReduce.count(op) || op == "Split" || op == "Pad" || op == "ScatterElements" ||
       op == "LpPool" || op == "ScatterND" || op == "Resize" || op == "GroupNormalization"))
    return true;
  if (opset == 19 &&
      (op == "AveragePool" || op == "Cast" || op == "CastLike" || op == "Pad" || op == "Resize"))
    return true;
  // DFT's axis as an input (signal_ops.cpp); GridSample's N-D and mode names.
  if (opset == 20 && (op == "DFT" || op == "GridSample")) return true;
  // Quantize/DequantizeLinear: opsets 19 and 21 added float8, int4, 16-bit
  // types and blocked scales; the int8 and uint8 forms mean what they did.
  if ((opset == 19 || opset == 21) && (op == "QuantizeLinear" || op == "DequantizeLinear"))
    return true;
  return opset == 21 && op == "GroupNormalization";
}

}  // namespace lathe::onnx_frontend

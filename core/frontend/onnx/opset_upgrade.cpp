// Older-opset forms rewritten into the newest form that Lathe's ops implement:
// attributes that later opsets turned into inputs, and Softmax's pre-13
// flatten-to-2-D semantics. Each rewrite names the opset where ONNX changed.
#include "frontend/onnx/import_internal.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

// Input i of a node an upgrade rewrites; an Error, not std::out_of_range, when
// the model gave fewer (libonnx's checker leaves some legacy arities alone).
ValueId required_input(const Node& node, size_t i) {
  LATHE_CHECK(i < node.inputs.size(), node.op, " needs input ", i, "; the node has ",
              node.inputs.size());
  return node.inputs[i];
}

// Moves an ints attribute into input `index` as an int64 constant.
void ints_attribute_to_input(Node& node, const std::string& attr, size_t index,
                             const UpgradeHooks& hooks) {
  if (node.inputs.size() < index) node.inputs.resize(index, kNoValue);
  if (!node.attrs.has(attr)) return;
  std::vector<int64_t> v = node.attrs.get_ints(attr);
  node.attrs.erase(attr);
  ValueId c = hooks.add_constant(node.name + "/" + attr,
                                 Tensor::from_vector(v, {static_cast<int64_t>(v.size())}));
  if (node.inputs.size() <= index) node.inputs.resize(index + 1, kNoValue);
  node.inputs[index] = c;
}

// A float attribute as a scalar input of the dtype of input 0.
void float_attribute_to_input(Node& node, const std::string& attr, size_t index,
                              const UpgradeHooks& hooks) {
  if (!node.attrs.has(attr)) return;
  float v = node.attrs.get_float(attr, 0.f);
  node.attrs.erase(attr);
  const TensorType* t = node.inputs.empty() ? nullptr : hooks.type_of(node.inputs[0]);
  DType dtype = t ? t->dtype : DType::Float32;
  Tensor scalar(dtype, {});
  visit_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    scalar.data<T>()[0] = static_cast<T>(v);
  });
  if (node.inputs.size() <= index) node.inputs.resize(index + 1, kNoValue);
  node.inputs[index] = hooks.add_constant(node.name + "/" + attr, scalar);
}

// Softmax before opset 13 flattens the input to 2-D at `axis` and normalizes
// each row: Flatten → Softmax(axis = 1) → Reshape back.
std::vector<Node> upgrade_softmax(Node node, const UpgradeHooks& hooks) {
  const TensorType* t = hooks.type_of(required_input(node, 0));
  int64_t axis = node.attrs.get_int("axis", 1);
  if (!t) return {node};
  // A copy: the hooks below add values, which may move the one t points to.
  const Shape shape = t->shape;
  const int rank = t->rank();
  if (axis < 0) axis += rank;
  if (axis == rank - 1 || rank == 0) {
    node.attrs.set("axis", int64_t{-1});
    return {node};
  }
  Node flatten{node.name + "/flatten", "Flatten", {node.inputs[0]}, {}, {}};
  flatten.attrs.set("axis", axis);
  flatten.outputs = {hooks.add_value(flatten.name)};
  Node softmax{node.name, node.op, {flatten.outputs[0]}, {}, {}};
  softmax.attrs.set("axis", int64_t{1});
  softmax.outputs = {hooks.add_value(node.name + "/2d")};
  ValueId target = hooks.add_constant(
      node.name + "/shape", Tensor::from_vector(shape, {static_cast<int64_t>(shape.size())}));
  Node reshape{node.name + "/reshape", "Reshape", {softmax.outputs[0], target}, node.outputs, {}};
  reshape.attrs.set("allowzero", int64_t{0});
  return {flatten, softmax, reshape};
}

// Upsample (opsets 7-9, removed in 10) is Resize with asymmetric coordinates
// and floor rounding; opset 7 gives the scales as an attribute.
Node upgrade_upsample(Node node, const UpgradeHooks& hooks) {
  node.op = "Resize";
  ValueId scales = node.inputs.size() > 1 ? node.inputs[1] : kNoValue;
  if (node.attrs.has("scales")) {
    std::vector<float> v = node.attrs.get_floats("scales");
    node.attrs.erase("scales");
    scales = hooks.add_constant(node.name + "/scales",
                                Tensor::from_vector(v, {static_cast<int64_t>(v.size())}));
  }
  LATHE_CHECK(scales != kNoValue, "Upsample needs scales");
  node.inputs = {required_input(node, 0), kNoValue, scales};
  node.attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
  node.attrs.set("nearest_mode", std::string("floor"));
  return node;
}

}  // namespace

bool is_rewritten_op(const std::string& op) {
  return op == "Upsample" || op == "Einsum" || is_signal_op(op) || is_image_op(op) ||
         is_recurrent_op(op) || is_newer_expanded_op(op) || is_attention_op(op);
}

std::vector<int> legacy_shape_inputs(const std::string& op) {
  if (op == "Upsample") return {1};
  if (is_image_op(op)) return image_shape_inputs(op);
  return signal_shape_inputs(op);
}

std::vector<Node> upgrade_node(Node node, int opset, const UpgradeHooks& hooks) {
  const std::string& op = node.op;
  if (op == "Upsample") return {upgrade_upsample(std::move(node), hooks)};
  if (is_recurrent_op(op)) return expand_recurrent(std::move(node), hooks);
  if (op == "Einsum") return expand_einsum(std::move(node), hooks);
  if (is_signal_op(op)) return expand_signal_op(std::move(node), opset, hooks);
  if (is_image_op(op)) return expand_image_op(node, hooks);
  if (is_newer_expanded_op(op)) return expand_newer_op(std::move(node), opset, hooks);
  if (is_attention_op(op)) return expand_attention_op(node, hooks);
  if (opset > 17) return {upgrade_newer_form(std::move(node), opset, hooks)};
  if (opset < 13 && (op == "Squeeze" || op == "Unsqueeze" || op == "ReduceSum")) {
    ints_attribute_to_input(node, "axes", 1, hooks);
  } else if (opset < 13 && op == "Split") {
    ints_attribute_to_input(node, "split", 1, hooks);
  } else if (opset < 10 && op == "Slice") {
    node.inputs.resize(1);
    ints_attribute_to_input(node, "starts", 1, hooks);
    ints_attribute_to_input(node, "ends", 2, hooks);
    ints_attribute_to_input(node, "axes", 3, hooks);
  } else if (opset < 11 && op == "Pad") {
    node.inputs.resize(1);
    ints_attribute_to_input(node, "pads", 1, hooks);
    float_attribute_to_input(node, "value", 2, hooks);
  } else if (opset < 11 && op == "Clip") {
    node.inputs.resize(1);
    float_attribute_to_input(node, "min", 1, hooks);
    float_attribute_to_input(node, "max", 2, hooks);
  } else if (opset < 12 && op == "Dropout") {
    node.attrs.erase("ratio");
    node.attrs.erase("is_test");
  } else if (opset < 13 && (op == "Softmax" || op == "LogSoftmax")) {
    return upgrade_softmax(std::move(node), hooks);
  } else if (opset < 7 && op == "PRelu") {
    // Before opset 7 a 1-D slope of C values applied per channel (axis 1).
    const TensorType* x = hooks.type_of(required_input(node, 0));
    const TensorType* slope = hooks.type_of(required_input(node, 1));
    const Tensor* value = hooks.constant_of(node.inputs[1]);
    if (x && slope && value && slope->rank() == 1 && x->rank() >= 3 &&
        slope->shape[0] == x->shape[1]) {
      Shape per_channel(static_cast<size_t>(x->rank() - 1), 1);
      per_channel[0] = slope->shape[0];
      node.inputs[1] = hooks.add_constant(node.name + "/slope", value->reshaped(per_channel));
    }
  } else if (opset < 11 && op == "Resize") {
    // Opset 10 Resize is (X, scales) with asymmetric coordinates.
    LATHE_CHECK(node.inputs.size() == 2, "opset-10 Resize takes X and scales");
    node.inputs = {node.inputs[0], kNoValue, node.inputs[1]};
    node.attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
    node.attrs.set("nearest_mode", std::string("floor"));
  }
  return {node};
}

}  // namespace lathe::onnx_frontend

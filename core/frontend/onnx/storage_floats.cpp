#include "frontend/onnx/storage_floats.h"

#include <map>
#include <variant>

#include "support/error.h"

namespace lathe::onnx_frontend {

ValueId StorageFloats::add_constant(const std::string& name, const Tensor& value) {
  ValueId id = graph_.add_constant(name, widened_to_compute(value));
  if (is_storage_float(value.dtype())) note_constant(id, value.dtype());
  return id;
}

void StorageFloats::note_constant(ValueId id, DType stored) {
  if (is_storage_float(stored)) stored_[id] = stored;
}

std::optional<DType> StorageFloats::prepare(Node& node) const {
  std::optional<DType> stored;
  for (const auto& [name, value] : std::map<std::string, Attribute>(node.attrs.all())) {
    const Tensor* t = std::get_if<Tensor>(&value);
    if (t && is_storage_float(t->dtype())) {
      stored = t->dtype();
      node.attrs.set(name, widened_to_compute(*t));
    }
  }
  if (node.op != "Cast" && node.op != "CastLike" && node.attrs.has("dtype")) {
    const std::optional<DType> dtype =
        dtype_from_onnx(static_cast<int>(node.attrs.get_int("dtype", 0)));
    if (dtype && is_storage_float(*dtype)) {
      stored = *dtype;
      node.attrs.set("dtype", static_cast<int64_t>(dtype_to_onnx(DType::Float32)));
    }
  }
  if (node.op == "CastLike" && node.inputs.size() == 2) {
    if (const std::optional<DType> target = stored_dtype(node.inputs[1])) {
      node.op = "Cast";
      node.inputs.resize(1);
      node.attrs = Attributes();
      node.attrs.set("to", static_cast<int64_t>(dtype_to_onnx(*target)));
    }
  }
  return stored;
}

void StorageFloats::note_node(const Node& node, std::optional<DType> stored) {
  if (!stored && node.op != "Cast" && node.op != "CastLike") {
    for (ValueId in : node.inputs)
      if (const std::optional<DType> s = stored_dtype(in)) stored = s;
  }
  if (!stored) return;
  for (ValueId out : node.outputs)
    if (out != kNoValue && graph_.type(out).dtype == DType::Float32) stored_[out] = *stored;
}

std::optional<DType> StorageFloats::stored_dtype(ValueId id) const {
  if (id == kNoValue) return std::nullopt;
  if (is_storage_float(graph_.type(id).dtype)) return graph_.type(id).dtype;
  auto it = stored_.find(id);
  if (it == stored_.end()) return std::nullopt;
  return it->second;
}

std::string StorageFloats::unique_value_name(const std::string& base) const {
  std::string name = base;
  for (int k = 1; graph_.find_value(name) != kNoValue; ++k) name = base + "_" + std::to_string(k);
  return name;
}

ValueId StorageFloats::add_cast(ValueId from, DType to, const std::string& name) {
  Node cast;
  cast.name = node_name_(name);
  cast.op = "Cast";
  cast.attrs.set("to", static_cast<int64_t>(dtype_to_onnx(to)));
  cast.inputs = {from};
  cast.outputs = {graph_.add_value(name, {})};
  const ValueId out = cast.outputs[0];
  return add_node_(std::move(cast)) ? out : kNoValue;
}

ValueId StorageFloats::widened(ValueId id) {
  const DType dtype = graph_.type(id).dtype;
  if (!is_storage_float(dtype)) return id;
  const ValueId wide =
      add_cast(id, DType::Float32, unique_value_name(graph_.value(id).name + "/float32"));
  if (wide == kNoValue) return kNoValue;
  stored_[wide] = dtype;
  widened_from_[wide] = id;
  return wide;
}

ValueId StorageFloats::output(ValueId id, int declared) {
  const std::optional<DType> dtype = dtype_from_onnx(declared);
  if (!dtype || !is_storage_float(*dtype) || graph_.type(id).dtype == *dtype) return id;
  if (auto it = widened_from_.find(id);
      it != widened_from_.end() && graph_.type(it->second).dtype == *dtype)
    return it->second;  // narrowing the widened value gives it back
  LATHE_CHECK(graph_.type(id).dtype == DType::Float32, "output '", graph_.value(id).name, "' is ",
              graph_.type(id).to_string(), " but the model declares it ", dtype_name(*dtype));
  // The output keeps the model's name; the float32 value it rounds is renamed.
  const std::string name = graph_.value(id).name;
  graph_.value(id).name = unique_value_name(name + "/float32");
  return add_cast(id, *dtype, name);
}

}  // namespace lathe::onnx_frontend

// ONNX AttributeProto → Attributes, with the schema's defaults filled in.
#include <onnx/defs/schema.h>

#include "frontend/onnx/import_internal.h"
#include "frontend/onnx/tensor_proto.h"
#include "support/error.h"

namespace lathe::onnx_frontend {
namespace {

std::optional<Attribute> convert(const onnx::AttributeProto& a, const std::string& base_dir) {
  using AP = onnx::AttributeProto;
  AP::AttributeType type = a.type();
  if (type == AP::UNDEFINED) {
    // Old exporters omit the type; it follows from the field that is set.
    if (a.has_f())
      type = AP::FLOAT;
    else if (a.has_i())
      type = AP::INT;
    else if (a.has_s())
      type = AP::STRING;
    else if (a.has_t())
      type = AP::TENSOR;
    else if (a.floats_size())
      type = AP::FLOATS;
    else if (a.ints_size())
      type = AP::INTS;
    else if (a.strings_size())
      type = AP::STRINGS;
  }
  switch (type) {
    case AP::FLOAT:
      return Attribute(a.f());
    case AP::INT:
      return Attribute(static_cast<int64_t>(a.i()));
    case AP::STRING:
      return Attribute(a.s());
    case AP::TENSOR:
      return Attribute(tensor_from_proto(a.t(), base_dir));
    case AP::FLOATS:
      return Attribute(std::vector<float>(a.floats().begin(), a.floats().end()));
    case AP::INTS:
      return Attribute(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case AP::STRINGS:
      return Attribute(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case AP::GRAPH:
    case AP::GRAPHS:
      fail_unsupported(str("attribute '", a.name(), "' holds a subgraph"));
    case AP::SPARSE_TENSOR:
    case AP::SPARSE_TENSORS:
      fail_unsupported(str("attribute '", a.name(), "' is a sparse tensor"));
    case AP::TYPE_PROTO:
    case AP::TYPE_PROTOS:
      fail_unsupported(str("attribute '", a.name(), "' holds a type"));
    case AP::TENSORS:
      fail_unsupported(str("attribute '", a.name(), "' holds a tensor list"));
    default:
      break;
  }
  fail(str("attribute '", a.name(), "' has no value"));
}

}  // namespace

Attributes convert_attributes(const onnx::NodeProto& node, int opset, const std::string& base_dir) {
  Attributes attrs;
  for (const onnx::AttributeProto& a : node.attribute()) {
    LATHE_CHECK(!a.name().empty(), "an attribute has no name");
    LATHE_CHECK(!attrs.has(a.name()), "attribute '", a.name(), "' is given twice");
    if (auto v = convert(a, base_dir)) attrs.set(a.name(), std::move(*v));
  }
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), opset, node.domain());
  if (schema) {
    for (const auto& [name, spec] : schema->attributes()) {
      if (attrs.has(name) || !spec.default_value.has_name()) continue;
      if (auto v = convert(spec.default_value, base_dir)) attrs.set(name, std::move(*v));
    }
  }
  return attrs;
}

}  // namespace lathe::onnx_frontend

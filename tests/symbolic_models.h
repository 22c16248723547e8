// Small ONNX models whose inputs leave dimensions symbolic, written with
// ONNX's protobuf classes, for the tests of how those dimensions get their
// values (frontend/onnx/input_shapes.h): nothing outside the test is needed.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

namespace lathe::testing {

// A declared dimension: a fixed size or a symbol's name.
using DeclaredDim = std::variant<int64_t, std::string>;

inline void declare_tensor(onnx::ValueInfoProto* value, const std::string& name,
                           const std::vector<DeclaredDim>& dims) {
  value->set_name(name);
  auto* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor->mutable_shape();
  for (const DeclaredDim& d : dims) {
    auto* dim = shape->add_dim();
    if (const auto* size = std::get_if<int64_t>(&d))
      dim->set_dim_value(*size);
    else
      dim->set_dim_param(std::get<std::string>(d));
  }
}

inline onnx::ModelProto empty_model(const std::string& name) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  model.mutable_graph()->set_name(name);
  return model;
}

// x[dims] (NCHW, 3 channels) → Conv 3→4, 3×3, pad 1 (weights 0.01·k) → Relu → y[N,4,H,W].
inline onnx::ModelProto conv_model(const std::vector<DeclaredDim>& x_dims) {
  onnx::ModelProto model = empty_model("symbolic_conv");
  auto* graph = model.mutable_graph();
  declare_tensor(graph->add_input(), "x", x_dims);
  declare_tensor(graph->add_output(), "y",
                 {std::string("N"), int64_t{4}, std::string("H"), std::string("W")});
  auto* weight = graph->add_initializer();
  weight->set_name("w");
  weight->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {4, 3, 3, 3}) weight->add_dims(d);
  for (int k = 0; k < 4 * 3 * 3 * 3; ++k)
    weight->add_float_data(0.01f * static_cast<float>(k % 17 - 8));
  auto* conv = graph->add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  auto* relu = graph->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("c");
  relu->add_output("y");
  return model;
}

// a[batch,seq] + b[batch,seq] → c: two inputs that share their symbols.
inline onnx::ModelProto shared_symbols_model() {
  onnx::ModelProto model = empty_model("shared_symbols");
  auto* graph = model.mutable_graph();
  declare_tensor(graph->add_input(), "a", {std::string("batch"), std::string("seq")});
  declare_tensor(graph->add_input(), "b", {std::string("batch"), std::string("seq")});
  declare_tensor(graph->add_output(), "c", {std::string("batch"), std::string("seq")});
  auto* add = graph->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("a");
  add->add_input("b");
  add->add_output("c");
  return model;
}

inline bool write_model(const onnx::ModelProto& model, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  return out && model.SerializeToOstream(&out);
}

}  // namespace lathe::testing

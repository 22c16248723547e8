// ONNX models written node by node in a test, as exporters write them.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "ir/tensor.h"

namespace lathe::testing {

// An ONNX model written node by node.
class ModelWriter {
 public:
  explicit ModelWriter(int opset, int ir_version = 10) {
    model_.set_ir_version(ir_version);
    model_.add_opset_import()->set_version(opset);
    graph_ = model_.mutable_graph();
    graph_->set_name("newer");
  }

  void input(const std::string& name, const Shape& shape, int elem = onnx::TensorProto::FLOAT) {
    describe(graph_->add_input(), name, shape, elem);
  }
  // Outputs are declared by rank only, with symbolic dims.
  void output(const std::string& name, size_t rank, int elem = onnx::TensorProto::FLOAT) {
    Shape dims(rank, -1);
    describe(graph_->add_output(), name, dims, elem);
  }
  void floats(const std::string& name, const std::vector<float>& v, Shape shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }
  void ints(const std::string& name, const std::vector<int64_t>& v) {
    auto* t = graph_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> inputs,
                        std::vector<std::string> outputs, onnx::GraphProto* into = nullptr) {
    onnx::NodeProto* n = (into ? into : graph_)->add_node();
    n->set_op_type(op);
    n->set_name(outputs.empty() ? op : outputs[0] + "_node");
    for (const auto& in : inputs) n->add_input(in);
    for (const auto& out : outputs) n->add_output(out);
    return n;
  }
  std::string bytes() const { return model_.SerializeAsString(); }
  onnx::GraphProto* graph() { return graph_; }

  static void describe(onnx::ValueInfoProto* v, const std::string& name, const Shape& shape,
                       int elem) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* s = t->mutable_shape();
    for (size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] >= 0)
        s->add_dim()->set_dim_value(shape[k]);
      else
        s->add_dim()->set_dim_param("d" + std::to_string(k));
    }
  }

 private:
  onnx::ModelProto model_;
  onnx::GraphProto* graph_;
};

inline void set_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_float(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}
inline void set_string(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
inline void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline onnx::GraphProto* add_graph(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

}  // namespace lathe::testing

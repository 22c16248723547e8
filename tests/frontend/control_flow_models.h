// Small ONNX models with an If and a Loop whose conditions are known only at
// run time, and what they mean computed directly: shared by the control-flow
// and command-line tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "ir/tensor.h"
#include "onnx_model_writer.h"

namespace lathe::testing {

// y = flag ? (relu(x) + w) * k : -x, where relu(x) and the initializer w
// come from the model's graph and k is the then branch's own initializer.
inline std::string if_model() {
  ModelWriter m(17, 8);
  m.input("x", {2, 3});
  m.input("flag", {}, onnx::TensorProto::BOOL);
  m.output("y", 2);
  m.floats("w", {0.5f, -1.f, 2.f});
  m.node("Relu", {"x"}, {"rx"});
  auto* node = m.node("If", {"flag"}, {"y"});
  onnx::GraphProto* then_g = add_graph(node, "then_branch");
  auto* k = then_g->add_initializer();
  k->set_name("k");
  k->set_data_type(onnx::TensorProto::FLOAT);
  k->add_float_data(2.f);
  m.node("Add", {"rx", "w"}, {"sum"}, then_g);
  m.node("Mul", {"sum", "k"}, {"scaled"}, then_g);
  then_g->add_output()->set_name("scaled");
  onnx::GraphProto* else_g = add_graph(node, "else_branch");
  m.node("Neg", {"x"}, {"negated"}, else_g);
  else_g->add_output()->set_name("negated");
  return m.bytes();
}

inline Tensor if_meaning(const Tensor& x, bool flag) {
  const float w[3] = {0.5f, -1.f, 2.f};
  Tensor y(DType::Float32, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = x.data<float>()[i];
    y.data<float>()[i] = flag ? (std::max(v, 0.f) + w[i % 3]) * 2.f : -v;
  }
  return y;
}

// acc = x; for i in [0, n) while sum(acc) < 50: acc = 2 * acc + i + |x|.
// The body reads |x| (a run-time value) and the limit (an initializer) from
// the model's graph, and computes its own condition.
inline std::string loop_model() {
  ModelWriter m(17, 8);
  m.input("n", {}, onnx::TensorProto::INT64);
  m.input("x", {2});
  m.output("acc", 1);
  for (const auto& [name, value] : {std::pair{"limit", 50.f}, std::pair{"two", 2.f}}) {
    auto* t = m.graph()->add_initializer();  // a scalar
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
  }
  m.node("Abs", {"x"}, {"ax"});
  auto* loop = m.node("Loop", {"n", "", "x"}, {"acc"});
  onnx::GraphProto* body = add_graph(loop, "body");
  ModelWriter::describe(body->add_input(), "i", {}, onnx::TensorProto::INT64);
  ModelWriter::describe(body->add_input(), "c", {}, onnx::TensorProto::BOOL);
  ModelWriter::describe(body->add_input(), "a", {2}, onnx::TensorProto::FLOAT);
  set_int(m.node("Cast", {"i"}, {"fi"}, body), "to", onnx::TensorProto::FLOAT);
  m.node("Mul", {"a", "two"}, {"a2"}, body);
  m.node("Add", {"a2", "fi"}, {"a3"}, body);
  m.node("Add", {"a3", "ax"}, {"next"}, body);
  set_int(m.node("ReduceSum", {"next"}, {"total"}, body), "keepdims", 0);
  m.node("Less", {"total", "limit"}, {"go"}, body);
  ModelWriter::describe(body->add_output(), "go", {}, onnx::TensorProto::BOOL);
  ModelWriter::describe(body->add_output(), "next", {2}, onnx::TensorProto::FLOAT);
  return m.bytes();
}

inline Tensor loop_meaning(const Tensor& x, int64_t n) {
  Tensor acc = x.clone();
  float* a = acc.data<float>();
  const float* v = x.data<float>();
  bool go = true;
  for (int64_t i = 0; i < n && go; ++i) {
    for (int j = 0; j < 2; ++j) a[j] = 2 * a[j] + static_cast<float>(i) + std::abs(v[j]);
    go = a[0] + a[1] < 50.f;
  }
  return acc;
}

}  // namespace lathe::testing

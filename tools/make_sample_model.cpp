// Writes resources/sample_cnn.onnx, the small model the studio opens when
// started without one: a residual CNN block with batch norm, pooling and a
// classifier, so that fusion has something to show. Weights are seeded.
//   make_sample_model OUTPUT.onnx
#include <onnx/onnx_pb.h>

#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

std::mt19937 rng(20261122);

void add_initializer(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                     float scale, float offset = 0.f) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < n; ++i) t->add_float_data(offset + dist(rng));
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : inputs) n->add_input(i);
  n->add_output(output);
  return n;
}

void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// conv → batch norm → relu, the pattern fusion folds and fuses.
std::string conv_bn_relu(onnx::GraphProto* g, const std::string& prefix, const std::string& in,
                         int64_t cin, int64_t cout, int64_t k, bool relu = true) {
  add_initializer(g, prefix + ".weight", {cout, cin, k, k}, 1.0f / static_cast<float>(cin * k));
  auto* conv = add_node(g, "Conv", prefix + "/conv", {in, prefix + ".weight"}, prefix + "_conv");
  set_ints(conv, "kernel_shape", {k, k});
  set_ints(conv, "pads", {k / 2, k / 2, k / 2, k / 2});
  add_initializer(g, prefix + ".bn.scale", {cout}, 0.2f, 1.0f);
  add_initializer(g, prefix + ".bn.bias", {cout}, 0.1f);
  add_initializer(g, prefix + ".bn.mean", {cout}, 0.1f);
  add_initializer(g, prefix + ".bn.var", {cout}, 0.2f, 1.0f);
  add_node(g, "BatchNormalization", prefix + "/bn",
           {prefix + "_conv", prefix + ".bn.scale", prefix + ".bn.bias", prefix + ".bn.mean",
            prefix + ".bn.var"},
           prefix + "_bn");
  if (!relu) return prefix + "_bn";
  add_node(g, "Relu", prefix + "/relu", {prefix + "_bn"}, prefix + "_relu");
  return prefix + "_relu";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_sample_model OUTPUT.onnx\n";
    return 2;
  }
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("lathe make_sample_model");
  model.add_opset_import()->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("sample_cnn");

  auto* input = g->add_input();
  input->set_name("input");
  auto* tt = input->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 3, 32, 32}) tt->mutable_shape()->add_dim()->set_dim_value(d);

  std::string x = conv_bn_relu(g, "stem", "input", 3, 16, 3);
  auto* pool = add_node(g, "MaxPool", "stem/pool", {x}, "pool");
  set_ints(pool, "kernel_shape", {2, 2});
  set_ints(pool, "strides", {2, 2});
  std::string a = conv_bn_relu(g, "block.conv1", "pool", 16, 16, 3);
  std::string b = conv_bn_relu(g, "block.conv2", a, 16, 16, 3, /*relu=*/false);
  add_node(g, "Add", "block/add", {b, "pool"}, "block_sum");
  add_node(g, "Relu", "block/relu", {"block_sum"}, "block_out");
  std::string c = conv_bn_relu(g, "head.conv", "block_out", 16, 32, 1);
  add_node(g, "GlobalAveragePool", "head/gap", {c}, "gap");
  auto* flatten = add_node(g, "Flatten", "head/flatten", {"gap"}, "features");
  set_int(flatten, "axis", 1);
  add_initializer(g, "fc.weight", {10, 32}, 0.2f);
  add_initializer(g, "fc.bias", {10}, 0.1f);
  auto* fc = add_node(g, "Gemm", "head/fc", {"features", "fc.weight", "fc.bias"}, "logits");
  set_int(fc, "transB", 1);
  add_node(g, "Softmax", "head/softmax", {"logits"}, "probabilities");

  auto* output = g->add_output();
  output->set_name("probabilities");
  auto* ot = output->mutable_type()->mutable_tensor_type();
  ot->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {1, 10}) ot->mutable_shape()->add_dim()->set_dim_value(d);

  std::ofstream out(argv[1], std::ios::binary);
  if (!out || !model.SerializeToOstream(&out)) {
    std::cerr << "make_sample_model: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}

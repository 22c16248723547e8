// ONNX's LSTM, GRU and RNN, unrolled by the importer (recurrent_ops.cpp).
// ONNX's own backend cases check the equations on equal-length batches
// (tst_onnx_conformance) and PyTorch checks the zoo's exports; this test
// checks what neither covers: sequence_lens. A batch whose rows end at
// different steps must give, row by row, what that row's sequence alone gives
// (the reverse direction starting at the row's own last step), zeros in Y past
// its end, and its state at its end in Y_h and Y_c; the compiled graph must
// agree with the reference executor. And the layers it cannot run are clear
// errors naming the node.
#include <onnx/onnx_pb.h>

#include <QtTest>
#include <cmath>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "frontend/onnx/onnx_import.h"
#include "ir/normalized_error.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;

namespace {

constexpr int64_t kSteps = 5, kBatch = 3, kInput = 4, kHidden = 6;

struct Layer {
  std::string op;  // LSTM, GRU, RNN
  std::string direction = "bidirectional";
  int64_t linear_before_reset = 0;
  int64_t input_forget = 0;
  std::string activation;  // replaces the first default when set
};

int64_t gates(const std::string& op) {
  return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
}

void add_float_initializer(onnx::GraphProto* g, const std::string& name, const Shape& shape,
                           uint32_t seed) {
  const Tensor t = testing::random_tensor(shape, seed);
  onnx::TensorProto* p = g->add_initializer();
  p->set_name(name);
  p->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : shape) p->add_dims(d);
  for (int64_t i = 0; i < t.numel(); ++i) p->add_float_data(t.data<float>()[i] * 0.5f);
}

void add_value(onnx::ValueInfoProto* v, const std::string& name, int type, const Shape& shape) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// X [steps, batch, input] -> the layer -> Y, Y_h (and Y_c for an LSTM);
// with `lengths`, sequence_lens is the graph input "lens".
std::string layer_model(const Layer& layer, int64_t steps, int64_t batch, bool lengths) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(14);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("recurrent");
  const int64_t dirs = layer.direction == "bidirectional" ? 2 : 1, gh = gates(layer.op) * kHidden;
  add_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {steps, batch, kInput});
  if (lengths) add_value(g->add_input(), "lens", onnx::TensorProto::INT32, {batch});
  add_float_initializer(g, "w", {dirs, gh, kInput}, 1);
  add_float_initializer(g, "r", {dirs, gh, kHidden}, 2);
  add_float_initializer(g, "b", {dirs, 2 * gh}, 3);
  add_float_initializer(g, "h0", {dirs, batch, kHidden}, 4);
  onnx::NodeProto* node = g->add_node();
  node->set_name("layer");
  node->set_op_type(layer.op);
  for (const char* in : {"x", "w", "r", "b"}) node->add_input(in);
  node->add_input(lengths ? "lens" : "");
  node->add_input("h0");
  if (layer.op == "LSTM") {
    add_float_initializer(g, "c0", {dirs, batch, kHidden}, 5);
    add_float_initializer(g, "p", {dirs, 3 * kHidden}, 6);
    node->add_input("c0");
    node->add_input("p");
  }
  const int outputs = layer.op == "LSTM" ? 3 : 2;
  const char* names[] = {"y", "y_h", "y_c"};
  for (int k = 0; k < outputs; ++k) {
    node->add_output(names[k]);
    add_value(g->add_output(), names[k], onnx::TensorProto::FLOAT,
              k == 0 ? Shape{steps, dirs, batch, kHidden} : Shape{dirs, batch, kHidden});
  }
  auto attr = [&](const char* name) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(name);
    return a;
  };
  onnx::AttributeProto* hidden = attr("hidden_size");
  hidden->set_type(onnx::AttributeProto::INT);
  hidden->set_i(kHidden);
  onnx::AttributeProto* direction = attr("direction");
  direction->set_type(onnx::AttributeProto::STRING);
  direction->set_s(layer.direction);
  if (layer.op == "GRU") {
    onnx::AttributeProto* a = attr("linear_before_reset");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(layer.linear_before_reset);
  }
  if (layer.input_forget) {
    onnx::AttributeProto* a = attr("input_forget");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(layer.input_forget);
  }
  if (!layer.activation.empty()) {
    onnx::AttributeProto* a = attr("activations");
    a->set_type(onnx::AttributeProto::STRINGS);
    const std::vector<std::string> rest = layer.op == "LSTM"
                                              ? std::vector<std::string>{"Tanh", "Tanh"}
                                          : layer.op == "GRU" ? std::vector<std::string>{"Tanh"}
                                                              : std::vector<std::string>{};
    for (int64_t d = 0; d < dirs; ++d) {
      a->add_strings(layer.activation);
      for (const std::string& s : rest) a->add_strings(s);
    }
  }
  return m.SerializeAsString();
}

Graph import(const std::string& bytes) {
  return onnx_frontend::import_model_bytes(bytes, "recurrent.onnx", ".");
}

// Rows [first, first + count) of axis `axis`.
Tensor rows(const Tensor& t, int axis, int64_t first, int64_t count) {
  Shape shape = t.shape();
  shape[static_cast<size_t>(axis)] = count;
  Tensor out(DType::Float32, shape);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= t.shape()[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t extent = t.shape()[static_cast<size_t>(axis)];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t r = 0; r < count; ++r)
      for (int64_t i = 0; i < inner; ++i)
        out.data<float>()[(o * count + r) * inner + i] =
            t.data<float>()[(o * extent + first + r) * inner + i];
  return out;
}

}  // namespace

class TestRecurrentLayers : public QObject {
  Q_OBJECT

 private slots:
  void rowsEndAtTheirOwnLength_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("direction");
    QTest::addColumn<int>("linearBeforeReset");
    QTest::newRow("LSTM bidirectional") << "LSTM"
                                        << "bidirectional" << 0;
    QTest::newRow("GRU bidirectional") << "GRU"
                                       << "bidirectional" << 0;
    QTest::newRow("GRU reverse, linear before reset") << "GRU"
                                                      << "reverse" << 1;
    QTest::newRow("RNN forward") << "RNN"
                                 << "forward" << 0;
  }

  void rowsEndAtTheirOwnLength() {
    QFETCH(QString, op);
    QFETCH(QString, direction);
    QFETCH(int, linearBeforeReset);
    Layer layer;
    layer.op = op.toStdString();
    layer.direction = direction.toStdString();
    layer.linear_before_reset = linearBeforeReset;
    const Tensor x = testing::random_tensor({kSteps, kBatch, kInput}, 7);
    const std::vector<int32_t> lengths = {kSteps, 3, 1};
    const Tensor lens = Tensor::from_vector<int32_t>(lengths, {kBatch});

    const Graph batched = import(layer_model(layer, kSteps, kBatch, true));
    const std::vector<Tensor> got = reference::Executor(batched).run({{"x", x}, {"lens", lens}});

    for (int64_t b = 0; b < kBatch; ++b) {
      const int64_t n = lengths[static_cast<size_t>(b)];
      // Row b alone, over its own n steps, from its own initial state.
      std::string bytes = layer_model(layer, n, 1, false);
      onnx::ModelProto single;
      QVERIFY(single.ParseFromString(bytes));
      for (onnx::TensorProto& init : *single.mutable_graph()->mutable_initializer()) {
        if (init.name() != "h0" && init.name() != "c0") continue;
        const Tensor full =
            testing::random_tensor({init.dims(0), kBatch, kHidden}, init.name() == "h0" ? 4u : 5u);
        const Tensor row = rows(full, 1, b, 1);
        init.set_dims(1, 1);
        init.clear_float_data();
        for (int64_t i = 0; i < row.numel(); ++i) init.add_float_data(row.data<float>()[i] * 0.5f);
      }
      const std::vector<Tensor> alone = reference::Executor(import(single.SerializeAsString()))
                                            .run({{"x", rows(rows(x, 0, 0, n), 1, b, 1)}});
      const Tensor y_row = rows(got[0], 2, b, 1);
      QVERIFY2(normalized_error(rows(y_row, 0, 0, n), alone[0]) < 1e-6,
               qPrintable(QString("row %1: Y over its steps differs").arg(b)));
      if (n < kSteps) {
        const Tensor past_end = rows(y_row, 0, n, kSteps - n);
        QVERIFY2(normalized_error(past_end, Tensor(past_end.type())) == 0,
                 qPrintable(QString("row %1: Y past its end is not zero").arg(b)));
      }
      for (size_t k = 1; k < got.size(); ++k)
        QVERIFY2(
            normalized_error(rows(got[k], 1, b, 1), alone[k]) < 1e-6,
            qPrintable(QString("row %1: output %2 is not its state at its end").arg(b).arg(k)));
    }

    // The compiled graph computes the same.
    const driver::CompiledGraph compiled = driver::compile_graph(batched);
    driver::JitGraphModule module(compiled, codegen::Target::host());
    runtime::GraphExecutor& exec = module.executor();
    exec.set_input("x", x.raw(), x.nbytes());
    exec.set_input("lens", lens.raw(), lens.nbytes());
    exec.run();
    for (size_t k = 0; k < got.size(); ++k)
      QVERIFY2(
          normalized_error(driver::from_ndarray(exec.output(static_cast<int>(k))), got[k]) < 1e-5,
          qPrintable(QString("compiled output %1 differs").arg(k)));
  }

  void unsupportedFormsAreClearErrors_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("inputForget");
    QTest::addColumn<QString>("activation");
    QTest::addColumn<QString>("message");
    QTest::newRow("input_forget") << "LSTM" << 1 << ""
                                  << "input_forget";
    QTest::newRow("unknown activation") << "GRU" << 0 << "Swish"
                                        << "activation 'Swish'";
  }

  void unsupportedFormsAreClearErrors() {
    QFETCH(QString, op);
    QFETCH(int, inputForget);
    QFETCH(QString, activation);
    QFETCH(QString, message);
    Layer layer;
    layer.op = op.toStdString();
    layer.input_forget = inputForget;
    layer.activation = activation.toStdString();
    try {
      import(layer_model(layer, kSteps, kBatch, false));
      QFAIL("the layer was imported");
    } catch (const Error& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("node 'layer'") != std::string::npos &&
                   what.find(message.toStdString()) != std::string::npos,
               what.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestRecurrentLayers)
#include "tst_recurrent_layers.moc"

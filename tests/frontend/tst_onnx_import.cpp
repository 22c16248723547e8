// The ONNX importer on real models: static shapes, shape-chain folding,
// --input-shapes overrides, and the graph's printed form.
#include <onnx/onnx_pb.h>

#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "../test_models.h"
#include "driver/model_info.h"
#include "driver/model_loader.h"
#include "ir/printer.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;

namespace {

std::string model(const char* name) {
  return lathe::testing::test_models_dir().toStdString() + "/" + name + ".onnx";
}

int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op == op;
  return n;
}

}  // namespace

class TestOnnxImport : public QObject {
  Q_OBJECT

 private slots:
  void parsesInputShapes() {
    auto shapes = driver::parse_input_shapes("input:[1,3,224,224] mask:[1, 64],ids:[]");
    QCOMPARE(shapes.size(), size_t{3});
    QCOMPARE(shapes["input"], (Shape{1, 3, 224, 224}));
    QCOMPARE(shapes["mask"], (Shape{1, 64}));
    QCOMPARE(shapes["ids"], Shape{});
    QVERIFY_THROWS_EXCEPTION(Error, driver::parse_input_shapes("input:[1,x]"));
    QVERIFY_THROWS_EXCEPTION(Error, driver::parse_input_shapes("input[1,2]"));
    QVERIFY_THROWS_EXCEPTION(Error, driver::parse_input_shapes("a:[1] a:[2]"));
  }

  void everyValueHasAStaticType() {
    Graph g = driver::load_model(model("resnet18"));
    g.verify();
    for (const Node& n : g.nodes)
      for (ValueId out : n.outputs) QVERIFY(!g.type(out).shape.empty() || n.op == "ReduceSum");
    QCOMPARE(g.type(g.outputs[0]).to_string(), std::string("float32[1,1000]"));
    QCOMPARE(count_ops(g, "Conv"), 20);
  }

  void foldsShapeChains() {
    // PyTorch exports attention reshapes as Shape → Gather → Concat → Reshape.
    Graph g = driver::load_model(model("transformer_block"));
    QCOMPARE(count_ops(g, "Shape"), 0);
    QCOMPARE(count_ops(g, "Gather") + count_ops(g, "Concat"), 0);
    QVERIFY(count_ops(g, "Reshape") > 0);
    for (const Node& n : g.nodes)
      if (n.op == "Reshape") QVERIFY(g.value(n.inputs[1]).is_constant());
  }

  void overridesInputShapes() {
    driver::LoadOptions options;
    options.input_shapes = driver::parse_input_shapes("input:[4,1,28,28]");
    Graph g = driver::load_model(model("mlp"), options);
    QCOMPARE(g.type(g.outputs[0]).shape, (Shape{4, 10}));

    options.input_shapes = driver::parse_input_shapes("nosuchinput:[1]");
    try {
      driver::load_model(model("mlp"), options);
      QFAIL("an unknown input name was accepted");
    } catch (const DiagnosticError& e) {
      QVERIFY(std::string(e.what()).find("nosuchinput") != std::string::npos);
    }
  }

  void inspectCountsParametersAndMacs() {
    driver::ModelInfo info = driver::inspect_graph(driver::load_model(model("mlp")));
    QCOMPARE(info.parameter_count, int64_t{784 * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10});
    QCOMPARE(info.total_macs, int64_t{784 * 512 + 512 * 256 + 256 * 10});
    QCOMPARE(info.op_histogram["Gemm"], 3);
  }

  void printsOneLinePerNode() {
    Graph g = driver::load_model(model("mlp"));
    std::string text = print_graph(g);
    QVERIFY(text.find("input %input : float32[1,1,28,28]") != std::string::npos);
    QVERIFY(text.find("= Gemm(") != std::string::npos);
    QVERIFY(text.find("transB=1") != std::string::npos);
    int lines = 0;
    for (char c : text) lines += c == '\n';
    QVERIFY(lines >= static_cast<int>(g.nodes.size()) + 3);
  }

  // Initializers moved to a side file (ONNX's external data) load the same values.
  void readsExternalData() {
    QTemporaryDir dir;
    onnx::ModelProto m;
    {
      std::ifstream in(model("mlp"), std::ios::binary);
      QVERIFY(m.ParseFromIstream(&in));
    }
    std::ofstream weights(dir.filePath("weights.bin").toStdString(), std::ios::binary);
    int64_t offset = 0;
    for (auto& init : *m.mutable_graph()->mutable_initializer()) {
      QVERIFY(init.has_raw_data());
      const std::string data = init.raw_data();
      weights.write(data.data(), static_cast<std::streamsize>(data.size()));
      init.clear_raw_data();
      init.set_data_location(onnx::TensorProto::EXTERNAL);
      auto add = [&](const char* key, const std::string& value) {
        auto* e = init.add_external_data();
        e->set_key(key);
        e->set_value(value);
      };
      add("location", "weights.bin");
      add("offset", std::to_string(offset));
      add("length", std::to_string(data.size()));
      offset += static_cast<int64_t>(data.size());
    }
    weights.close();
    const std::string path = dir.filePath("external.onnx").toStdString();
    {
      std::ofstream out(path, std::ios::binary);
      QVERIFY(m.SerializeToOstream(&out));
    }
    Graph inline_graph = driver::load_model(model("mlp"));
    Graph external_graph = driver::load_model(path);
    Tensor x(DType::Float32, {1, 1, 28, 28});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i % 7) - 3;
    Tensor a = reference::Executor(inline_graph).run({{"input", x}})[0];
    Tensor b = reference::Executor(external_graph).run({{"input", x}})[0];
    QCOMPARE(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0);

    // A side file shorter than the model says is an error naming the tensor.
    std::filesystem::resize_file(dir.filePath("weights.bin").toStdString(), 1000);
    try {
      driver::load_model(path);
      QFAIL("a truncated external-data file was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("weights.bin") != std::string::npos, e.what());
    }
  }

  void missingFileIsOneClearError() {
    try {
      driver::load_model("/nonexistent/model.onnx");
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).find("/nonexistent/model.onnx") != std::string::npos);
    }
  }
};

QTEST_GUILESS_MAIN(TestOnnxImport)
#include "tst_onnx_import.moc"

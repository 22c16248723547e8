// The ONNX importer on real models: static shapes, shape-chain folding,
// --input-shapes overrides, and the graph's printed form.
#include <QtTest>

#include "driver/model_info.h"
#include "driver/model_loader.h"
#include "ir/printer.h"
#include "support/error.h"

using namespace lathe;

namespace {

std::string model(const char* name) {
  return qEnvironmentVariable("LATHE_SHARED_MODELS", "../shared/models").toStdString() + "/" +
         name + ".onnx";
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

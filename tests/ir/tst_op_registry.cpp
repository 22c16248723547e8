// The op registry covers every op the foundation promises, each with its
// inference, TVM pattern kind and reference kernel.
#include <QtTest>

#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;

class TestOpRegistry : public QObject {
  Q_OBJECT

 private slots:
  void everyPromisedOpHasInferenceAndKernel_data() {
    QTest::addColumn<QString>("op");
    const char* ops[] = {"Add",
                         "Sub",
                         "Mul",
                         "Div",
                         "Pow",
                         "Max",
                         "Min",
                         "Sum",
                         "Mean",
                         "Neg",
                         "Abs",
                         "Sqrt",
                         "Reciprocal",
                         "Exp",
                         "Log",
                         "Erf",
                         "Floor",
                         "Ceil",
                         "Relu",
                         "LeakyRelu",
                         "PRelu",
                         "Elu",
                         "Selu",
                         "Sigmoid",
                         "HardSigmoid",
                         "HardSwish",
                         "Tanh",
                         "Softplus",
                         "Softsign",
                         "Clip",
                         "Equal",
                         "Less",
                         "Greater",
                         "Where",
                         "Not",
                         "And",
                         "Or",
                         "Cast",
                         "Conv",
                         "ConvTranspose",
                         "BatchNormalization",
                         "InstanceNormalization",
                         "LayerNormalization",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "GlobalMaxPool",
                         "Gemm",
                         "MatMul",
                         "Flatten",
                         "Reshape",
                         "Transpose",
                         "Concat",
                         "Split",
                         "Slice",
                         "Gather",
                         "Squeeze",
                         "Unsqueeze",
                         "Shape",
                         "Size",
                         "Constant",
                         "ConstantOfShape",
                         "Identity",
                         "Dropout",
                         "Pad",
                         "Softmax",
                         "LogSoftmax",
                         "ReduceMean",
                         "ReduceSum",
                         "ReduceMax",
                         "ReduceMin",
                         "ReduceProd",
                         "ReduceL2",
                         "ReduceSumSquare",
                         "ArgMax",
                         "ArgMin",
                         "Expand",
                         "Tile",
                         "Range",
                         "Resize",
                         "DepthToSpace",
                         "SpaceToDepth"};
    for (const char* op : ops) QTest::newRow(op) << QString(op);
  }

  void everyPromisedOpHasInferenceAndKernel() {
    QFETCH(QString, op);
    const OpDef* def = reference::kernel_registry().find(op.toStdString());
    QVERIFY2(def, "not registered");
    QVERIFY(def->infer);
    QVERIFY2(def->kernel, "no reference kernel");
  }

  void fusionKindsFollowTvm() {
    const OpRegistry& r = reference::kernel_registry();
    QCOMPARE(r.find("Conv")->kind, FusionKind::OutEWiseFusable);
    QCOMPARE(r.find("Gemm")->kind, FusionKind::OutEWiseFusable);
    QCOMPARE(r.find("Relu")->kind, FusionKind::ElemWise);
    QCOMPARE(r.find("Add")->kind, FusionKind::Broadcast);
    QCOMPARE(r.find("Reshape")->kind, FusionKind::Injective);
    QCOMPARE(r.find("ReduceMean")->kind, FusionKind::CommReduce);
    QCOMPARE(r.find("Softmax")->kind, FusionKind::Opaque);
  }

  void shapeDecidingInputsAreDeclared() {
    const OpRegistry& r = reference::kernel_registry();
    QCOMPARE(r.find("Reshape")->shape_inputs, std::vector<int>{1});
    QVERIFY(!r.find("Slice")->shape_inputs.empty());
    QVERIFY(r.find("Add")->shape_inputs.empty());
  }

  void inferenceRejectsShapeMismatch() {
    Graph g;
    ValueId a = g.add_value("a", {DType::Float32, {3, 4}});
    ValueId b = g.add_value("b", {DType::Float32, {5}});
    Node add{"add", "Add", {a, b}, {g.add_value("c", {})}, {}};
    try {
      infer_node_types(*OpRegistry::global().find("Add"), g, add);
      QFAIL("a non-broadcastable Add was accepted");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).find("[3,4]") != std::string::npos);
    }
  }

  void tensorsAre64ByteAligned() {
    for (int n : {0, 1, 3, 17, 1000}) {
      Tensor t(DType::Float32, {n});
      QCOMPARE(reinterpret_cast<uintptr_t>(t.raw()) % 64, uintptr_t{0});
    }
  }

  void attributesAreTyped() {
    Attributes a;
    a.set("k", int64_t{3});
    QCOMPARE(a.get_int("k", 0), int64_t{3});
    QCOMPARE(a.get_int("missing", 7), int64_t{7});
    QVERIFY_THROWS_EXCEPTION(Error, a.get_float("k", 0.f));
  }

  void verifyRejectsOutOfOrderGraphs() {
    Graph g;
    ValueId x = g.add_value("x", {DType::Float32, {2}});
    g.inputs.push_back(x);
    ValueId y = g.add_value("y", {DType::Float32, {2}});
    ValueId z = g.add_value("z", {DType::Float32, {2}});
    g.add_node(Node{"second", "Relu", {y}, {z}, {}});
    g.add_node(Node{"first", "Relu", {x}, {y}, {}});
    g.outputs.push_back(z);
    QVERIFY_THROWS_EXCEPTION(Error, g.verify());
  }
};

QTEST_GUILESS_MAIN(TestOpRegistry)
#include "tst_op_registry.moc"

// 3-D convolutions (passes/lower_conv3d: a 2-D conv over the output's depth
// slices) compiled with their default schedules match the reference
// executor: depth strides, dilations and asymmetric padding, SAME auto_pad,
// groups, depthwise, a batch of two, 1x1x1 kernels, and a 3-D ConvTranspose,
// which becomes a 3-D conv first. None is left a 3-D Conv.
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "driver/kernel_code.h"
#include "ir/normalized_error.h"
#include "reference/executor.h"

using namespace lathe;
using lathe::testing::attrs_of;
using lathe::testing::random_tensor;

namespace {

using Ints = std::vector<int64_t>;

// The compiled graph's output against the reference executor's on a random
// input "x" of `shape`: their normalized error.
double compiled_error(const Graph& graph, const Ints& shape) {
  const Tensor in = random_tensor(shape, 1);
  return normalized_error(driver::run_compiled(graph, {{"x", in}})[0],
                          reference::Executor(graph).run({{"x", in}})[0]);
}

}  // namespace

class TestConv3d : public QObject {
  Q_OBJECT

 private slots:
  void matchesReference_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<Ints>("input");   // N, C, D, H, W
    QTest::addColumn<Ints>("weight");  // Conv: M, C/g, KD, KH, KW; ConvTranspose: C, M/g, ...
    QTest::addColumn<int>("group");
    QTest::addColumn<Ints>("strides");
    QTest::addColumn<Ints>("dilations");
    QTest::addColumn<Ints>("pads");
    QTest::addColumn<QString>("autoPad");
    QTest::addColumn<bool>("bias");
    QTest::newRow("3x3x3, padded")
        << "Conv" << Ints{1, 3, 6, 10, 9} << Ints{16, 3, 3, 3, 3} << 1 << Ints{1, 1, 1}
        << Ints{1, 1, 1} << Ints{1, 1, 1, 1, 1, 1} << "" << true;
    QTest::newRow("depth stride 2, asymmetric pads")
        << "Conv" << Ints{1, 8, 9, 7, 8} << Ints{16, 8, 3, 3, 3} << 1 << Ints{2, 1, 2}
        << Ints{1, 1, 1} << Ints{0, 1, 1, 2, 0, 1} << "" << false;
    QTest::newRow("depth dilation 2")
        << "Conv" << Ints{1, 4, 10, 6, 6} << Ints{8, 4, 3, 1, 3} << 1 << Ints{1, 1, 1}
        << Ints{2, 1, 2} << Ints{2, 0, 2, 2, 0, 2} << "" << true;
    QTest::newRow("SAME_UPPER, stride 2")
        << "Conv" << Ints{1, 5, 7, 9, 11} << Ints{12, 5, 3, 3, 3} << 1 << Ints{2, 2, 2}
        << Ints{1, 1, 1} << Ints{0, 0, 0, 0, 0, 0} << "SAME_UPPER" << true;
    QTest::newRow("groups, batch 2")
        << "Conv" << Ints{2, 16, 5, 8, 8} << Ints{32, 4, 3, 3, 3} << 4 << Ints{1, 1, 1}
        << Ints{1, 1, 1} << Ints{1, 1, 1, 1, 1, 1} << "" << true;
    QTest::newRow("depthwise") << "Conv" << Ints{1, 32, 4, 7, 7} << Ints{32, 1, 3, 3, 3} << 32
                               << Ints{1, 2, 2} << Ints{1, 1, 1} << Ints{1, 1, 1, 1, 1, 1} << ""
                               << false;
    QTest::newRow("1x1x1") << "Conv" << Ints{1, 24, 3, 5, 6} << Ints{40, 24, 1, 1, 1} << 1
                           << Ints{1, 1, 1} << Ints{1, 1, 1} << Ints{0, 0, 0, 0, 0, 0} << ""
                           << true;
    QTest::newRow("depth only, stride 2, dilation 2")
        << "Conv" << Ints{1, 16, 11, 5, 6} << Ints{32, 16, 3, 1, 1} << 1 << Ints{2, 1, 1}
        << Ints{2, 1, 1} << Ints{2, 0, 0, 1, 0, 0} << "" << true;
    QTest::newRow("depth only, groups")
        << "Conv" << Ints{1, 32, 6, 4, 4} << Ints{32, 8, 3, 1, 1} << 4 << Ints{1, 1, 1}
        << Ints{1, 1, 1} << Ints{1, 0, 0, 1, 0, 0} << "" << false;
    QTest::newRow("ConvTranspose 2x2x2, stride 2")
        << "ConvTranspose" << Ints{1, 16, 3, 4, 5} << Ints{16, 8, 2, 2, 2} << 1 << Ints{2, 2, 2}
        << Ints{1, 1, 1} << Ints{0, 0, 0, 0, 0, 0} << "" << true;
  }

  void matchesReference() {
    QFETCH(QString, op);
    QFETCH(Ints, input);
    QFETCH(Ints, weight);
    QFETCH(int, group);
    QFETCH(Ints, strides);
    QFETCH(Ints, dilations);
    QFETCH(Ints, pads);
    QFETCH(QString, autoPad);
    QFETCH(bool, bias);

    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", input);
    std::vector<ValueId> inputs = {x, b.constant("w", random_tensor(weight, 2))};
    const int64_t filters = op == "Conv" ? weight[0] : weight[1] * group;
    if (bias) inputs.push_back(b.constant("b", random_tensor({filters}, 3)));
    Attributes attrs = attrs_of({{"group", int64_t{group}},
                                 {"strides", strides},
                                 {"dilations", dilations},
                                 {"kernel_shape", Ints(weight.begin() + 2, weight.end())}});
    if (autoPad.isEmpty())
      attrs.set("pads", pads);
    else
      attrs.set("auto_pad", autoPad.toStdString());
    const ValueId y = b.node("Relu", "relu", {b.node(op.toStdString(), "conv", inputs, attrs)});
    const Graph graph = b.finish({y});

    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    for (const Node& n : compiled.optimized.graph.nodes)
      QVERIFY2(n.op != "Conv" || compiled.optimized.graph.type(n.inputs[0]).rank() == 4,
               qPrintable(QString::fromStdString("a 3-D conv is left: " + n.name)));

    const double error = compiled_error(graph, input);
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }

  void depthTapsBetweenConvsCopyWholeVectors() {
    // A 1x3x3 conv, ReLU, then a 3x3x3 one over 32 channels, two blocks of
    // 16. The second conv's depth taps are a copy of whole channel blocks of
    // the first's output from neighbouring frames: contiguous vector loads,
    // the padding frames chosen by branches. Taps interleaved with the
    // channels, or a reshape read through the whole tensor's linear
    // position, made each lane a gather.
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 6, 8, 8});
    auto conv = [&](const std::string& name, ValueId in, Ints weight, Ints pads) {
      Attributes attrs =
          attrs_of({{"kernel_shape", Ints(weight.begin() + 2, weight.end())}, {"pads", pads}});
      return b.node("Conv", name, {in, b.constant(name + "_w", random_tensor(weight, 2))},
                    std::move(attrs));
    };
    const ValueId spatial = conv("spatial", x, {32, 16, 1, 3, 3}, {0, 1, 1, 0, 1, 1});
    const ValueId y =
        conv("temporal", b.node("Relu", "relu", {spatial}), {32, 32, 3, 3, 3}, {1, 1, 1, 1, 1, 1});
    const Graph graph = b.finish({y});

    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    int copies = 0;
    for (const tir::PrimFunc& func : compiled.funcs) {
      if (func.name.find("concat") == std::string::npos) continue;
      ++copies;
      const std::string ir = driver::llvm_ir_text(func, options.target);
      QVERIFY2(ir.find("gather") == std::string::npos, qPrintable(QString::fromStdString(ir)));
      QVERIFY2(ir.find("masked.load") == std::string::npos, qPrintable(QString::fromStdString(ir)));
      QVERIFY2(ir.find("load <16 x float>") != std::string::npos ||
                   ir.find("load <8 x float>") != std::string::npos,
               qPrintable(QString::fromStdString(ir)));
    }
    QCOMPARE(copies, 1);

    const double error = compiled_error(graph, Ints{1, 16, 6, 8, 8});
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }

  void depthOnlyConvsReadTheirInputInPlace() {
    // A (2+1)-D block's temporal conv (3x1x1) is a 2-D conv with a 3x1
    // window over [frames, H*W]: no copy of its input, and one kernel.
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 32, 6, 8, 8});
    const ValueId y =
        b.node("Conv", "temporal", {x, b.constant("w", random_tensor({32, 32, 3, 1, 1}, 2))},
               attrs_of({{"kernel_shape", Ints{3, 1, 1}}, {"pads", Ints{1, 0, 0, 1, 0, 0}}}));
    const Graph graph = b.finish({y});

    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    int convs = 0;
    for (const tir::PrimFunc& func : compiled.funcs) {
      QVERIFY2(func.name.find("concat") == std::string::npos, func.name.c_str());
      convs += func.name.find("conv") != std::string::npos;
    }
    QCOMPARE(convs, 1);
    const double error = compiled_error(graph, Ints{1, 32, 6, 8, 8});
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }
};

QTEST_GUILESS_MAIN(TestConv3d)
#include "tst_conv3d.moc"

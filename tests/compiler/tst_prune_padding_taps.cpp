// passes/prune_padding_taps: the kernel taps of a dilated conv that read only
// padding are cut (DeepLab's ASPP on a small map), the conv left with the
// live taps and less padding, and the compiled result still matches the
// reference executor on the unpruned graph.
#include <QtTest>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "ir/normalized_error.h"
#include "passes/prune_padding_taps.h"
#include "reference/executor.h"

using namespace lathe;
using lathe::testing::attrs_of;
using lathe::testing::random_tensor;

namespace {
using Ints = std::vector<int64_t>;
}

class TestPrunePaddingTaps : public QObject {
  Q_OBJECT

 private slots:
  void cutsTapsThatReadOnlyPadding_data() {
    QTest::addColumn<Ints>("input");   // N, C, spatial...
    QTest::addColumn<Ints>("weight");  // M, C, K...
    QTest::addColumn<Ints>("strides");
    QTest::addColumn<Ints>("dilations");
    QTest::addColumn<Ints>("pads");
    QTest::addColumn<Ints>("liveKernel");  // the kernel after the pass
    QTest::addColumn<Ints>("livePads");
    // ASPP: dilation 36 on a 16x16 map reads only the centre tap.
    QTest::newRow("3x3, dilation 36 on 16x16")
        << Ints{1, 32, 16, 16} << Ints{16, 32, 3, 3} << Ints{1, 1} << Ints{36, 36}
        << Ints{36, 36, 36, 36} << Ints{1, 1} << Ints{0, 0, 0, 0};
    // Taps 1..3 of 5 live on a 4-wide axis; the other axis keeps all three.
    QTest::newRow("5 taps, 3 live")
        << Ints{1, 8, 4, 9} << Ints{8, 8, 5, 3} << Ints{1, 1} << Ints{3, 2} << Ints{6, 2, 6, 2}
        << Ints{3, 3} << Ints{3, 2, 3, 2};
    QTest::newRow("stride 2") << Ints{1, 4, 6, 6} << Ints{8, 4, 3, 3} << Ints{2, 2} << Ints{8, 8}
                              << Ints{8, 8, 8, 8} << Ints{1, 1} << Ints{0, 0, 0, 0};
    QTest::newRow("Conv1d, dilation 64 on 20 samples")
        << Ints{1, 16, 20} << Ints{16, 16, 3} << Ints{1} << Ints{64} << Ints{64, 64} << Ints{1}
        << Ints{0, 0};
    // Every tap reads the input somewhere: nothing to cut.
    QTest::newRow("all live") << Ints{1, 8, 16, 16} << Ints{8, 8, 3, 3} << Ints{1, 1} << Ints{6, 6}
                              << Ints{6, 6, 6, 6} << Ints{3, 3} << Ints{6, 6, 6, 6};
  }

  void cutsTapsThatReadOnlyPadding() {
    QFETCH(Ints, input);
    QFETCH(Ints, weight);
    QFETCH(Ints, strides);
    QFETCH(Ints, dilations);
    QFETCH(Ints, pads);
    QFETCH(Ints, liveKernel);
    QFETCH(Ints, livePads);

    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", input);
    const ValueId y = b.node("Conv", "conv",
                             {x, b.constant("w", random_tensor(weight, 2)),
                              b.constant("b", random_tensor({weight[0]}, 3))},
                             attrs_of({{"strides", strides},
                                       {"dilations", dilations},
                                       {"pads", pads},
                                       {"kernel_shape", Ints(weight.begin() + 2, weight.end())}}));
    const Graph graph = b.finish({y});

    const Graph pruned = passes::prune_padding_taps(graph);
    const Node& conv = pruned.nodes.at(static_cast<size_t>(pruned.find_node("conv")));
    QCOMPARE(conv.attrs.get_ints("kernel_shape"), liveKernel);
    QCOMPARE(conv.attrs.get_ints("pads"), livePads);
    QCOMPARE(Ints(pruned.type(conv.inputs[1]).shape.begin() + 2,
                  pruned.type(conv.inputs[1]).shape.end()),
             liveKernel);

    const Tensor in = random_tensor(input, 1);
    const double error = normalized_error(driver::run_compiled(graph, {{"x", in}})[0],
                                          reference::Executor(graph).run({{"x", in}})[0]);
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }
};

QTEST_GUILESS_MAIN(TestPrunePaddingTaps)
#include "tst_prune_padding_taps.moc"

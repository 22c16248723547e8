// Grouped convolutions compiled with their default schedules match the
// reference executor: every group width the blocked layout takes (a channel
// block inside a group, groups inside a block, depthwise), stride, dilation,
// odd sizes, with and without a bias and a Relu, and the grouped convs whose
// groups and blocks do not nest, which stay in NCHW. Grouped 1-D convs with
// long windows (a Wav2Vec2 positional conv: 32 taps, 16 groups) get a point
// of their template, no fallback (tst_schedule_fallback).
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "ir/normalized_error.h"
#include "reference/executor.h"

using namespace lathe;
using lathe::testing::attrs_of;
using lathe::testing::random_tensor;

namespace {

bool has_op(const Graph& g, const std::string& op) {
  return std::ranges::any_of(g.nodes, [&](const Node& n) { return n.op == op; });
}

}  // namespace

class TestGroupedConvs : public QObject {
  Q_OBJECT

 private slots:
  void matchesReference_data() {
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("filters");
    QTest::addColumn<int>("group");
    QTest::addColumn<int>("stride");
    QTest::addColumn<int>("dilation");
    QTest::addColumn<int>("pad");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("width");
    QTest::addColumn<bool>("bias");
    QTest::addColumn<bool>("relu");
    QTest::addColumn<bool>("blocked");  // on AVX-512 and AVX2 alike
    // channels filters group stride dilation pad height width bias relu blocked
    QTest::newRow("width 1 (depthwise)")
        << 32 << 32 << 32 << 1 << 1 << 1 << 15 << 15 << true << true << true;
    QTest::newRow("width 2, groups in a block")
        << 32 << 32 << 16 << 1 << 1 << 1 << 13 << 11 << true << false << true;
    QTest::newRow("width 8, stride 2")
        << 48 << 48 << 6 << 2 << 1 << 1 << 17 << 17 << true << true << true;
    QTest::newRow("width 8, block of 8")
        << 104 << 104 << 13 << 1 << 1 << 1 << 9 << 9 << false << true << true;
    QTest::newRow("width 8, dilation 2")
        << 32 << 32 << 4 << 1 << 2 << 2 << 12 << 10 << true << false << true;
    QTest::newRow("width 8, odd sizes, no padding")
        << 24 << 24 << 3 << 2 << 1 << 0 << 11 << 13 << true << true << true;
    QTest::newRow("width 48, block in a group")
        << 96 << 96 << 2 << 1 << 1 << 1 << 7 << 7 << true << true << true;
    QTest::newRow("width 64, stride 2")
        << 128 << 128 << 2 << 2 << 1 << 1 << 9 << 8 << false << false << true;
    QTest::newRow("4 in, 8 out per group: NCHW")
        << 16 << 32 << 4 << 1 << 1 << 1 << 6 << 7 << true << true << false;
  }

  void matchesReference() {
    QFETCH(int, channels);
    QFETCH(int, filters);
    QFETCH(int, group);
    QFETCH(int, stride);
    QFETCH(int, dilation);
    QFETCH(int, pad);
    QFETCH(int, height);
    QFETCH(int, width);
    QFETCH(bool, bias);
    QFETCH(bool, relu);
    QFETCH(bool, blocked);

    lathe::testing::GraphBuilder b;
    const Shape x_shape = {1, channels, height, width};
    const ValueId x = b.input("x", x_shape);
    std::vector<ValueId> inputs = {
        x, b.constant("w", random_tensor({filters, channels / group, 3, 3}, 2))};
    if (bias) inputs.push_back(b.constant("b", random_tensor({filters}, 3)));
    const int64_t s = stride, d = dilation, p = pad;
    ValueId y = b.node("Conv", "conv", inputs,
                       attrs_of({{"group", int64_t{group}},
                                 {"strides", std::vector<int64_t>{s, s}},
                                 {"dilations", std::vector<int64_t>{d, d}},
                                 {"pads", std::vector<int64_t>{p, p, p, p}}}));
    if (relu) y = b.node("Relu", "relu", {y});
    const Graph graph = b.finish({y});

    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    QCOMPARE(has_op(compiled.optimized.graph, "Conv2dNCHWc"), blocked);
    QCOMPARE(has_op(compiled.optimized.graph, "Conv"), !blocked);

    const Tensor input = random_tensor(x_shape, 1);
    driver::JitGraphModule module(compiled, options.target);
    runtime::GraphExecutor& exec = module.executor();
    exec.set_input(exec.input_name(0), input.raw(), input.nbytes());
    exec.run();
    const Tensor got = driver::from_ndarray(exec.output(0));
    const Tensor expected = reference::Executor(graph).run({{"x", input}})[0];
    const double error = normalized_error(got, expected);
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }

  void conv1dMatchesReference_data() {
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("group");
    QTest::addColumn<int>("kernel");
    QTest::addColumn<int>("pad");
    QTest::addColumn<int>("length");
    // channels group kernel pad length
    QTest::newRow("Wav2Vec2 positional conv, 49 frames") << 128 << 16 << 32 << 16 << 49;
    QTest::newRow("Wav2Vec2 positional conv, 99 frames") << 128 << 16 << 32 << 16 << 99;
    QTest::newRow("Wav2Vec2 positional conv, 249 frames") << 128 << 16 << 32 << 16 << 249;
    QTest::newRow("width 4, 32 taps") << 128 << 32 << 32 << 16 << 49;
    QTest::newRow("width 8, 17 taps") << 64 << 8 << 17 << 8 << 40;
    QTest::newRow("width 16, 7 taps") << 64 << 4 << 7 << 3 << 50;
    QTest::newRow("width 48, 31 taps") << 96 << 2 << 31 << 15 << 61;
    QTest::newRow("width 8, odd channels, 5 taps") << 24 << 3 << 5 << 2 << 33;
  }

  // Conv1d (with a bias) over [1, C, T], its last frame sliced off as
  // Wav2Vec2 does with its positional conv's T + 1 frames.
  void conv1dMatchesReference() {
    QFETCH(int, channels);
    QFETCH(int, group);
    QFETCH(int, kernel);
    QFETCH(int, pad);
    QFETCH(int, length);

    lathe::testing::GraphBuilder b;
    const Shape x_shape = {1, channels, length};
    const ValueId x = b.input("x", x_shape);
    const ValueId w = b.constant("w", random_tensor({channels, channels / group, kernel}, 2));
    const ValueId bias = b.constant("b", random_tensor({channels}, 3));
    const int64_t p = pad;
    const ValueId y = b.node("Conv", "conv", {x, w, bias},
                             attrs_of({{"group", int64_t{group}},
                                       {"kernel_shape", std::vector<int64_t>{kernel}},
                                       {"pads", std::vector<int64_t>{p, p}}}));
    auto ints = [&](const std::string& name, int64_t v) {
      return b.constant(name, Tensor::from_vector<int64_t>({v}, {1}));
    };
    const ValueId sliced =
        b.node("Slice", "slice", {y, ints("starts", 0), ints("ends", -1), ints("axes", 2)});
    const Graph graph = b.finish({b.node("Relu", "relu", {sliced})});

    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    // The blocked conv's kernel is a point of its template.
    for (const driver::KernelTask& task : compiled.tasks) {
      QVERIFY2(task.fallback.empty(), task.fallback.c_str());
      if (std::ranges::count(task.ops, "Conv2dNCHWc"))
        QCOMPARE(QString::fromStdString(task.space), QString("conv2d_NCHWc.x86"));
    }

    const Tensor input = random_tensor(x_shape, 1);
    driver::JitGraphModule module(compiled, options.target);
    runtime::GraphExecutor& exec = module.executor();
    exec.set_input(exec.input_name(0), input.raw(), input.nbytes());
    exec.run();
    const Tensor got = driver::from_ndarray(exec.output(0));
    const Tensor expected = reference::Executor(graph).run({{"x", input}})[0];
    const double error = normalized_error(got, expected);
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }
};

QTEST_GUILESS_MAIN(TestGroupedConvs)
#include "tst_grouped_convs.moc"

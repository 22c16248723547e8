// The depthwise part of the int8 layout pass (passes/int8_depthwise_layout.h):
// a depthwise ConvInteger becomes DepthwiseConvIntegerNCHWc on blocked uint8
// data, and the dense convs beside it stay packed, so a MobileNetV2 block
// (1x1, depthwise, 1x1) keeps its activations blocked. Every result is
// compared exactly with the reference executor running the graph before the
// pass (ConvInteger's own definition), on pseudo-random operands: uint8 and
// int8 data, zero points that are not zero, per-channel weight zero points,
// strides 1 and 2, 3x3 and 5x5 windows, 16, 24 and 40 channels; grouped
// convs (groups of 2 to 16 channels) as block-diagonal packed convs.
#include <QtTest>

#include <cstdint>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "int8_graph_run.h"
#include "int8_operands.h"
#include "passes/alter_int8_conv_layout.h"
#include "reference/executor.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

// QLinearConv(x, ...) with pseudo-random int8 weights, `group` groups.
ValueId qlinear_conv(GraphBuilder& b, const std::string& name, ValueId x, int64_t filters,
                     int64_t k, int64_t group, uint8_t x_zp, uint8_t y_zp, uint32_t seed) {
  const int64_t c = b.g.type(x).shape[1];
  std::vector<float> w_scales;
  for (int64_t o = 0; o < filters; ++o) w_scales.push_back(0.01f + 0.001f * static_cast<float>(o));
  return b.node(
      "QLinearConv", name,
      {x, b.constant(name + "_xs", Tensor::scalar(0.05f)),
       b.constant(name + "_xzp", Tensor::scalar<uint8_t>(x_zp)),
       b.constant(name + "_w", random_tensor<int8_t>({filters, c / group, k, k}, -127, 127, seed)),
       b.constant(name + "_ws", Tensor::from_vector<float>(w_scales, {filters})),
       b.constant(name + "_wzp", Tensor(DType::Int8, {filters})),
       b.constant(name + "_ys", Tensor::scalar(0.4f)),
       b.constant(name + "_yzp", Tensor::scalar<uint8_t>(y_zp)),
       b.constant(name + "_bias", random_tensor<int32_t>({filters}, -3000, 3000, seed + 1))},
      attrs_of({{"group", group}, {"pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2}}}));
}

}  // namespace

class TestInt8DepthwiseLayout : public QObject {
  Q_OBJECT

 private slots:
  // The pass alone (reference executor) and compiled: the blocked depthwise
  // conv computes ConvInteger's result exactly.
  void depthwiseMatchesConvInteger_data() {
    QTest::addColumn<int64_t>("channels");
    QTest::addColumn<int64_t>("kernel");
    QTest::addColumn<int64_t>("stride");
    QTest::addColumn<bool>("int8_data");
    QTest::addColumn<bool>("per_channel_w_zero");
    QTest::newRow("16 ch 3x3") << int64_t{16} << int64_t{3} << int64_t{1} << false << false;
    QTest::newRow("16 ch 3x3 stride 2 int8")
        << int64_t{16} << int64_t{3} << int64_t{2} << true << true;
    QTest::newRow("24 ch 5x5") << int64_t{24} << int64_t{5} << int64_t{1} << false << true;
    QTest::newRow("24 ch 3x3 stride 2 int8")
        << int64_t{24} << int64_t{3} << int64_t{2} << true << false;
    QTest::newRow("40 ch 5x5 stride 2") << int64_t{40} << int64_t{5} << int64_t{2} << false << true;
    QTest::newRow("40 ch 3x3 int8") << int64_t{40} << int64_t{3} << int64_t{1} << true << true;
  }
  void depthwiseMatchesConvInteger() {
    QFETCH(int64_t, channels);
    QFETCH(int64_t, kernel);
    QFETCH(int64_t, stride);
    QFETCH(bool, int8_data);
    QFETCH(bool, per_channel_w_zero);
    GraphBuilder b;
    const DType dtype = int8_data ? DType::Int8 : DType::UInt8;
    const Shape shape = {1, channels, 11, 9};
    const ValueId x = b.input("x", shape, dtype);
    const Tensor wz = per_channel_w_zero ? random_tensor<int8_t>({channels}, -5, 5, 7)
                                         : Tensor::scalar<int8_t>(-3);
    const Tensor xz = int8_data ? Tensor::scalar<int8_t>(-9) : Tensor::scalar<uint8_t>(117);
    const int64_t pad = kernel / 2;
    const ValueId y = b.node(
        "ConvInteger", "depthwise",
        {x, b.constant("w", random_tensor<int8_t>({channels, 1, kernel, kernel}, -128, 127, 3)),
         b.constant("xz", xz), b.constant("wz", wz)},
        attrs_of({{"group", channels},
                  {"strides", std::vector<int64_t>{stride, stride}},
                  {"pads", std::vector<int64_t>{pad, pad - 1 + stride % 2, pad, pad}}}));
    const Graph g = b.finish({y});
    const Graph altered = passes::alter_int8_conv_layout(g);
    QCOMPARE(count_op(altered, "DepthwiseConvIntegerNCHWc"), 1);
    QCOMPARE(count_op(altered, "ConvInteger"), 0);
    const Tensor in = int8_data ? random_tensor<int8_t>(shape, -128, 127, 11)
                                : random_tensor<uint8_t>(shape, 0, 255, 11);
    const Tensor expected = run_reference(g, in);
    QCOMPARE(values<int32_t>(run_reference(altered, in)), values<int32_t>(expected));
    QCOMPARE(values<int32_t>(run_compiled(g, in).output), values<int32_t>(expected));
  }

  // A MobileNetV2 block: the 1x1 convs beside the depthwise one are packed
  // too, the requantize epilogues run blocked and the only layout
  // transforms left are the graph's input and output ones.
  void mobileNetBlockStaysBlocked() {
    GraphBuilder b;
    const Shape shape = {1, 16, 10, 10};
    const ValueId x = b.input("x", shape, DType::UInt8);
    const ValueId expand = qlinear_conv(b, "expand", x, 32, 1, 1, 120, 7, 21);
    const ValueId dw = qlinear_conv(b, "depthwise", expand, 32, 3, 32, 7, 131, 31);
    const ValueId project = qlinear_conv(b, "project", dw, 16, 1, 1, 131, 100, 41);
    const Graph g = b.finish({project});
    const Tensor in = random_tensor<uint8_t>(shape, 0, 255, 5);
    const Tensor expected = run_reference(g, in);
    const Compiled out = run_compiled(g, in);
    QCOMPARE(values<uint8_t>(out.output), values<uint8_t>(expected));
    QCOMPARE(count_op(out.optimized, "ConvIntegerNCHWc"), 2);
    QCOMPARE(count_op(out.optimized, "DepthwiseConvIntegerNCHWc"), 1);
    QCOMPARE(count_op(out.optimized, "LayoutTransform"), 2);
  }

  // A grouped conv whose groups nest in the 16-channel blocks runs as the
  // block-diagonal GroupedConvIntegerNCHWc, exactly.
  void groupedMatchesConvInteger_data() {
    QTest::addColumn<int64_t>("channels");
    QTest::addColumn<int64_t>("width");
    QTest::addColumn<int64_t>("kernel");
    QTest::addColumn<int64_t>("stride");
    QTest::addColumn<bool>("int8_data");
    QTest::newRow("48 ch, groups of 8, 3x3")
        << int64_t{48} << int64_t{8} << int64_t{3} << int64_t{1} << false;
    QTest::newRow("32 ch, groups of 8, 3x3 stride 2 int8")
        << int64_t{32} << int64_t{8} << int64_t{3} << int64_t{2} << true;
    QTest::newRow("16 ch, groups of 4, 5x5")
        << int64_t{16} << int64_t{4} << int64_t{5} << int64_t{1} << false;
    QTest::newRow("32 ch, groups of 2, 3x3 stride 2")
        << int64_t{32} << int64_t{2} << int64_t{3} << int64_t{2} << false;
    QTest::newRow("16 ch, one group of 16, 3x3 int8")
        << int64_t{16} << int64_t{16} << int64_t{3} << int64_t{1} << true;
  }
  void groupedMatchesConvInteger() {
    QFETCH(int64_t, channels);
    QFETCH(int64_t, width);
    QFETCH(int64_t, kernel);
    QFETCH(int64_t, stride);
    QFETCH(bool, int8_data);
    GraphBuilder b;
    const DType dtype = int8_data ? DType::Int8 : DType::UInt8;
    const Shape shape = {1, channels, 10, 9};
    const ValueId x = b.input("x", shape, dtype);
    const Tensor xz = int8_data ? Tensor::scalar<int8_t>(-9) : Tensor::scalar<uint8_t>(117);
    const int64_t pad = kernel / 2;
    const ValueId y = b.node(
        "ConvInteger", "grouped",
        {x, b.constant("w", random_tensor<int8_t>({channels, width, kernel, kernel}, -128, 127, 3)),
         b.constant("xz", xz)},
        attrs_of({{"group", channels / width},
                  {"strides", std::vector<int64_t>{stride, stride}},
                  {"pads", std::vector<int64_t>{pad, pad, pad + 1, pad}}}));
    const Graph g = b.finish({y});
    const Graph altered = passes::alter_int8_conv_layout(g);
    QCOMPARE(count_op(altered, "GroupedConvIntegerNCHWc"), channels == width ? 0 : 1);
    const Tensor in = int8_data ? random_tensor<int8_t>(shape, -128, 127, 11)
                                : random_tensor<uint8_t>(shape, 0, 255, 11);
    const Tensor expected = run_reference(g, in);
    QCOMPARE(values<int32_t>(run_reference(altered, in)), values<int32_t>(expected));
    QCOMPARE(values<int32_t>(run_compiled(g, in).output), values<int32_t>(expected));
  }

  // A grouped conv whose groups straddle the blocks (groups of 3) stays
  // NCHW, and so does the conv feeding it: packed, it would pay a layout
  // transform on that side.
  void convsBesideGroupedConvStay() {
    GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 6, 6}, DType::UInt8);
    const ValueId expand =
        b.node("ConvInteger", "expand",
               {x, b.constant("we", random_tensor<int8_t>({48, 16, 1, 1}, -128, 127, 1))});
    const ValueId f = b.node("Cast", "f", {expand}, attrs_of({{"to", int64_t{1}}}));
    const ValueId q = b.node(
        "QuantizeLinear", "q",
        {f, b.constant("s", Tensor::scalar(64.0f)), b.constant("z", Tensor::scalar<uint8_t>(128))});
    const ValueId grouped =
        b.node("ConvInteger", "grouped",
               {q, b.constant("wg", random_tensor<int8_t>({48, 3, 3, 3}, -9, 9, 2))},
               attrs_of({{"group", int64_t{16}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    const Graph altered = passes::alter_int8_conv_layout(b.finish({grouped}));
    QCOMPARE(count_op(altered, "ConvInteger"), 2);
    QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), 0);
    QCOMPARE(count_op(altered, "GroupedConvIntegerNCHWc"), 0);
  }
};

QTEST_GUILESS_MAIN(TestInt8DepthwiseLayout)
#include "tst_int8_depthwise_layout.moc"

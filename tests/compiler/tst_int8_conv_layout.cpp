// The int8 layout pass (passes/alter_int8_conv_layout.h): ConvInteger with a
// constant weight becomes ConvIntegerNCHWc on a weight packed at compile
// time, and uint8 activations stay blocked between quantized convolutions.
// Every result is compared exactly with the reference executor running the
// graph before the pass (ConvInteger's own definition), on pseudo-random
// operands, including non-zero and per-channel zero points, strides,
// dilations and asymmetric padding.
#include <QtTest>

#include <algorithm>
#include <cstdint>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "int8_graph_run.h"
#include "int8_operands.h"
#include "passes/alter_int8_conv_layout.h"
#include "reference/executor.h"

using namespace lathe;
using lathe::testing::attrs_of;

using namespace lathe::testing;

namespace {

// QLinearConv(x, ...) with pseudo-random int8 weights of `filters` x C x k x k.
ValueId qlinear_conv(lathe::testing::GraphBuilder& b, const std::string& name, ValueId x,
                     int64_t filters, int64_t k, Attributes attrs, uint8_t x_zp, uint8_t y_zp,
                     uint32_t seed) {
  const int64_t c = b.g.type(x).shape[1];
  std::vector<float> w_scales;
  for (int64_t o = 0; o < filters; ++o) w_scales.push_back(0.01f + 0.001f * static_cast<float>(o));
  return b.node(
      "QLinearConv", name,
      {x, b.constant(name + "_xs", Tensor::scalar(0.05f)),
       b.constant(name + "_xzp", Tensor::scalar<uint8_t>(x_zp)),
       b.constant(name + "_w", random_tensor<int8_t>({filters, c, k, k}, -127, 127, seed)),
       b.constant(name + "_ws", Tensor::from_vector<float>(w_scales, {filters})),
       b.constant(name + "_wzp", Tensor(DType::Int8, {filters})),
       b.constant(name + "_ys", Tensor::scalar(0.4f)),
       b.constant(name + "_yzp", Tensor::scalar<uint8_t>(y_zp)),
       b.constant(name + "_bias", random_tensor<int32_t>({filters}, -3000, 3000, seed + 1))},
      std::move(attrs));
}

}  // namespace

class TestInt8ConvLayout : public QObject {
  Q_OBJECT

 private slots:
  // The pass alone, run by the reference executor: ConvIntegerNCHWc on the
  // packed weight computes ConvInteger's result, with zero points on both
  // operands (the weight's per channel), strides, dilations and pads.
  void packedConvMatchesConvInteger_data() {
    QTest::addColumn<int64_t>("channels");
    QTest::addColumn<int64_t>("kernel");
    QTest::addColumn<int64_t>("stride");
    QTest::addColumn<int64_t>("dilation");
    QTest::addColumn<bool>("per_channel_w_zero");
    QTest::newRow("3x3 pad 1") << int64_t{16} << int64_t{3} << int64_t{1} << int64_t{1} << false;
    QTest::newRow("3x3 stride 2 dilation 2")
        << int64_t{8} << int64_t{3} << int64_t{2} << int64_t{2} << true;
    QTest::newRow("1x1 stride 2, 12 channels")
        << int64_t{12} << int64_t{1} << int64_t{2} << int64_t{1} << true;
    QTest::newRow("1x1, 4 channels")
        << int64_t{4} << int64_t{1} << int64_t{1} << int64_t{1} << false;
    // An RGB stem: StemConvInteger (tst_int8_stem), its padding the zero point 117.
    QTest::newRow("7x7 stride 2, 3 channels")
        << int64_t{3} << int64_t{7} << int64_t{2} << int64_t{1} << true;
    QTest::newRow("3x3, 6 channels")
        << int64_t{6} << int64_t{3} << int64_t{1} << int64_t{1} << true;
  }
  void packedConvMatchesConvInteger() {
    QFETCH(int64_t, channels);
    QFETCH(int64_t, kernel);
    QFETCH(int64_t, stride);
    QFETCH(int64_t, dilation);
    QFETCH(bool, per_channel_w_zero);
    const int64_t filters = 32;
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, channels, 9, 7}, DType::UInt8);
    const Tensor wz =
        per_channel_w_zero ? random_tensor<int8_t>({filters}, -5, 5, 7) : Tensor::scalar<int8_t>(3);
    const int64_t pad = kernel / 2;
    const ValueId y = b.node(
        "ConvInteger", "conv",
        {x,
         b.constant("w", random_tensor<int8_t>({filters, channels, kernel, kernel}, -128, 127, 3)),
         b.constant("xz", Tensor::scalar<uint8_t>(117)), b.constant("wz", wz)},
        attrs_of({{"strides", std::vector<int64_t>{stride, stride}},
                  {"dilations", std::vector<int64_t>{dilation, dilation}},
                  {"pads", std::vector<int64_t>{pad, 0, pad + 1, pad}}}));
    const Graph g = b.finish({y});
    const Graph altered = passes::alter_int8_conv_layout(g);
    // Channels that are no multiple of 4 run as the stem conv, which pads
    // its NCHW input itself (tst_int8_stem).
    const bool stem = channels % 4 != 0;
    QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), stem ? 0 : 1);
    QCOMPARE(count_op(altered, "StemConvInteger"), stem ? 1 : 0);
    QCOMPARE(count_op(altered, "ConvInteger"), 0);
    QCOMPARE(count_op(altered, "Pad"), 0);
    const Tensor in = random_tensor<uint8_t>({1, channels, 9, 7}, 0, 255, 11);
    const Tensor expected = run_reference(g, in);
    QCOMPARE(values<int32_t>(run_reference(altered, in)), values<int32_t>(expected));
    QCOMPARE(values<int32_t>(run_compiled(g, in).output), values<int32_t>(expected));
  }

  // int8 data (QOperator S8S8 models) goes to uint8 by +128, its zero point
  // too: the same result, exactly, with and without a zero point.
  // 3 channels: padded after the shift, with the shifted zero point.
  void int8DataIsShifted() {
    for (const auto& [with_zero, c] : {std::pair{true, 8}, {false, 8}, {true, 3}, {false, 3}}) {
      lathe::testing::GraphBuilder b;
      const ValueId x = b.input("x", {1, c, 6, 6}, DType::Int8);
      std::vector<ValueId> inputs = {
          x, b.constant("w", random_tensor<int8_t>({16, c, 3, 3}, -128, 127, 9))};
      if (with_zero) inputs.push_back(b.constant("xz", Tensor::scalar<int8_t>(-7)));
      const ValueId y = b.node("ConvInteger", "conv", inputs,
                               attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
      const Graph g = b.finish({y});
      const Graph altered = passes::alter_int8_conv_layout(g);
      QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), 1);
      const Tensor in = random_tensor<int8_t>({1, c, 6, 6}, -128, 127, 13);
      const Tensor expected = run_reference(g, in);
      QCOMPARE(values<int32_t>(run_reference(altered, in)), values<int32_t>(expected));
      QCOMPARE(values<int32_t>(run_compiled(g, in).output), values<int32_t>(expected));
    }
  }

  // uint8 weights (ORT's dynamic quantizer, U8U8 QLinearConv) go to int8 by
  // -128, their zero point too: the same result, exactly. A zero point of
  // 128 becomes none; per channel, one per filter.
  void uint8WeightsAreShifted_data() {
    QTest::addColumn<int>("zero_kind");  // 0: none, 1: 128, 2: per tensor 77, 3: per channel
    QTest::newRow("no zero point") << 0;
    QTest::newRow("zero point 128") << 1;
    QTest::newRow("zero point 77") << 2;
    QTest::newRow("per channel") << 3;
  }
  void uint8WeightsAreShifted() {
    QFETCH(int, zero_kind);
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 8, 6, 6}, DType::UInt8);
    std::vector<ValueId> inputs = {
        x, b.constant("w", random_tensor<uint8_t>({16, 8, 3, 3}, 0, 255, 21)),
        b.constant("xz", Tensor::scalar<uint8_t>(9))};
    if (zero_kind == 1) inputs.push_back(b.constant("wz", Tensor::scalar<uint8_t>(128)));
    if (zero_kind == 2) inputs.push_back(b.constant("wz", Tensor::scalar<uint8_t>(77)));
    if (zero_kind == 3) inputs.push_back(b.constant("wz", random_tensor<uint8_t>({16}, 0, 255, 5)));
    const ValueId y = b.node("ConvInteger", "conv", inputs,
                             attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    const Graph g = b.finish({y});
    const Graph altered = passes::alter_int8_conv_layout(g);
    QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), 1);
    for (const Node& n : altered.nodes)
      if (n.op == "ConvIntegerNCHWc") QCOMPARE(n.has_input(4), zero_kind != 1);
    const Tensor in = random_tensor<uint8_t>({1, 8, 6, 6}, 0, 255, 23);
    const Tensor expected = run_reference(g, in);
    QCOMPARE(values<int32_t>(run_reference(altered, in)), values<int32_t>(expected));
    QCOMPARE(values<int32_t>(run_compiled(g, in).output), values<int32_t>(expected));
  }

  // Two convs reading one int8 value (a residual block's conv and
  // downsample) share its shift: one Add, and both results exact.
  void sharedInt8DataIsShiftedOnce() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 8, 6, 6}, DType::Int8);
    const ValueId xz = b.constant("xz", Tensor::scalar<int8_t>(5));
    const ValueId a =
        b.node("ConvInteger", "a",
               {x, b.constant("wa", random_tensor<int8_t>({16, 8, 3, 3}, -128, 127, 15)), xz},
               attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    const ValueId c =
        b.node("ConvInteger", "c",
               {x, b.constant("wc", random_tensor<int8_t>({16, 8, 1, 1}, -128, 127, 17)), xz});
    const Graph g = b.finish({a, c});
    const Graph altered = passes::alter_int8_conv_layout(g);
    QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), 2);
    QCOMPARE(count_op(altered, "Add"), 1);
    const Tensor in = random_tensor<int8_t>({1, 8, 6, 6}, -128, 127, 19);
    const std::vector<Tensor> expected = reference::Executor(g).run({{"x", in}});
    const std::vector<Tensor> got = reference::Executor(altered).run({{"x", in}});
    for (size_t k = 0; k < 2; ++k) QCOMPARE(values<int32_t>(got[k]), values<int32_t>(expected[k]));
  }

  // Shapes the packed form does not take stay ConvInteger: 3 input channels
  // (not a multiple of 4) with a zero point that is not a constant (the
  // padding's value), 24 filters (not a multiple of 16), a weight that is
  // not a constant.
  void unsupportedShapesStay() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 3, 5, 5}, DType::UInt8);
    const ValueId xz = b.input("xz", {}, DType::UInt8);
    const ValueId x8 = b.input("x8", {1, 8, 5, 5}, DType::UInt8);
    const ValueId wv = b.input("w", {16, 8, 1, 1}, DType::Int8);
    const ValueId a =
        b.node("ConvInteger", "rgb", {x, b.constant("w3", Tensor(DType::Int8, {16, 3, 1, 1})), xz});
    const ValueId c =
        b.node("ConvInteger", "odd", {x8, b.constant("w24", Tensor(DType::Int8, {24, 8, 1, 1}))});
    const ValueId d = b.node("ConvInteger", "variable", {x8, wv});
    const Graph altered = passes::alter_int8_conv_layout(b.finish({a, c, d}));
    QCOMPARE(count_op(altered, "ConvInteger"), 3);
    QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), 0);
  }

  // A conv feeding a depthwise ConvInteger through its requantize steps is
  // packed, the depthwise one too (DepthwiseConvIntegerNCHWc), and so is the
  // conv after it: no layout transform between them.
  void convsBesideDepthwiseArePacked() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 6, 6}, DType::UInt8);
    auto requantize = [&](ValueId acc, const std::string& name) {
      const ValueId f = b.node("Cast", name + "_f", {acc}, attrs_of({{"to", int64_t{1}}}));
      return b.node("QuantizeLinear", name + "_q",
                    {f, b.constant(name + "_s", Tensor::scalar(64.0f)),
                     b.constant(name + "_z", Tensor::scalar<uint8_t>(128))});
    };
    const ValueId expand =
        b.node("ConvInteger", "expand",
               {x, b.constant("we", random_tensor<int8_t>({16, 16, 1, 1}, -128, 127, 1))});
    const ValueId dw = b.node(
        "ConvInteger", "depthwise",
        {requantize(expand, "e"), b.constant("wd", random_tensor<int8_t>({16, 1, 3, 3}, -9, 9, 2))},
        attrs_of({{"group", int64_t{16}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    const ValueId project =
        b.node("ConvInteger", "project",
               {requantize(dw, "d"),
                b.constant("wp", random_tensor<int8_t>({16, 16, 1, 1}, -128, 127, 3))});
    const ValueId alone =
        b.node("ConvInteger", "alone",
               {x, b.constant("wa", random_tensor<int8_t>({16, 16, 3, 3}, -128, 127, 4))});
    const Graph altered = passes::alter_int8_conv_layout(b.finish({project, alone}));
    QCOMPARE(count_op(altered, "ConvInteger"), 0);
    QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), 3);
    QCOMPARE(count_op(altered, "DepthwiseConvIntegerNCHWc"), 1);
  }

  // Two quantized convolutions in a row: the requantize epilogue between
  // them runs blocked and writes uint8 NCHW16c, which the second reads
  // directly (the only layout transforms left are the model's input and
  // output ones), and the compiled result is the reference's, exactly.
  void activationsStayBlockedBetweenConvs() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 10, 10}, DType::UInt8);
    const ValueId a = qlinear_conv(
        b, "a", x, 32, 3, attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}), 120, 7, 21);
    const ValueId c = qlinear_conv(b, "c", a, 16, 1,
                                   attrs_of({{"strides", std::vector<int64_t>{2, 2}}}), 7, 130, 31);
    const Graph g = b.finish({c});
    const Tensor in = random_tensor<uint8_t>({1, 16, 10, 10}, 0, 255, 5);
    const Tensor expected = run_reference(g, in);
    const Compiled out = run_compiled(g, in);
    QCOMPARE(values<uint8_t>(out.output), values<uint8_t>(expected));
    QCOMPARE(count_op(out.optimized, "ConvIntegerNCHWc"), 2);
    QCOMPARE(count_op(out.optimized, "LayoutTransform"), 2);
    // The weights are packed constants: nothing in the graph packs them.
    for (const Node& n : out.optimized.nodes)
      if (n.op == "ConvIntegerNCHWc") QVERIFY(out.optimized.value(n.inputs[1]).is_constant());
  }

  // QLinearGlobalAveragePool after a quantized conv (a classifier's head)
  // pools the blocked uint8 value: the only transform after the conv is of
  // the pooled [1, C, 1, 1] result, and the result is the reference's.
  void globalAveragePoolStaysBlocked() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 9, 9}, DType::UInt8);
    const ValueId a = qlinear_conv(
        b, "a", x, 48, 3, attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}), 120, 7, 41);
    const ValueId pooled = b.node("com.microsoft.QLinearGlobalAveragePool", "pool",
                                  {a, b.constant("pool_xs", Tensor::scalar(0.4f)),
                                   b.constant("pool_xzp", Tensor::scalar<uint8_t>(7)),
                                   b.constant("pool_ys", Tensor::scalar(0.1f)),
                                   b.constant("pool_yzp", Tensor::scalar<uint8_t>(11))},
                                  {});
    const Graph g = b.finish({pooled});
    const Tensor in = random_tensor<uint8_t>({1, 16, 9, 9}, 0, 255, 6);
    const Tensor expected = run_reference(g, in);
    const Compiled out = run_compiled(g, in);
    QCOMPARE(values<uint8_t>(out.output), values<uint8_t>(expected));
    bool blocked = false;
    for (const Node& n : out.optimized.nodes) {
      if (n.op == "com.microsoft.QLinearGlobalAveragePool")
        blocked = n.attrs.get_string("layout", "NCHW") == "NCHW16c";
      // Back to NCHW: only the pooled 1 x 1 plane.
      if (n.op == "LayoutTransform" && n.has_input(0) &&
          out.optimized.type(n.inputs[0]).rank() == 5) {
        const TensorType& t = out.optimized.type(n.inputs[0]);
        QVERIFY2(
            t.shape[2] * t.shape[3] == 1,
            qPrintable(QString::fromStdString("a transform of " + t.to_string() + " is left")));
      }
    }
    QVERIFY(blocked);
  }
};

QTEST_GUILESS_MAIN(TestInt8ConvLayout)
#include "tst_int8_conv_layout.moc"

// Channel padding of the int8 layout pass (passes/int8_channel_padding.h):
// convs of 24 filters (MobileNetV2's) get zero filters up to 32, the
// requantize steps and residual adds after them run on 32 channels and the
// convs reading them get zero input channels, so that the whole chain is
// packed; RegNet's grouped convs and SE gates pad along. Results are compared exactly with the
// reference executor running the graph before the pass.
#include <QtTest>

#include <cstdint>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "int8_graph_run.h"
#include "int8_operands.h"
#include "passes/alter_int8_conv_layout.h"
#include "passes/int8_channel_padding.h"
#include "reference/executor.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

// QLinearConv with pseudo-random int8 weights and per-channel scales; its
// weight zero point `w_zp` for every filter.
ValueId qlinear_conv(GraphBuilder& b, const std::string& name, ValueId x, int64_t filters,
                     int64_t k, uint8_t x_zp, uint8_t y_zp, uint32_t seed, int8_t w_zp = 0,
                     int64_t group = 1) {
  const int64_t c = b.g.type(x).shape[1];
  std::vector<float> w_scales;
  for (int64_t o = 0; o < filters; ++o) w_scales.push_back(0.01f + 0.001f * static_cast<float>(o));
  Tensor wz(DType::Int8, {filters});
  for (int64_t o = 0; o < filters; ++o) wz.data<int8_t>()[o] = w_zp;
  return b.node(
      "QLinearConv", name,
      {x, b.constant(name + "_xs", Tensor::scalar(0.05f)),
       b.constant(name + "_xzp", Tensor::scalar<uint8_t>(x_zp)),
       b.constant(name + "_w", random_tensor<int8_t>({filters, c / group, k, k}, -127, 127, seed)),
       b.constant(name + "_ws", Tensor::from_vector<float>(w_scales, {filters})),
       b.constant(name + "_wzp", wz), b.constant(name + "_ys", Tensor::scalar(0.4f)),
       b.constant(name + "_yzp", Tensor::scalar<uint8_t>(y_zp)),
       b.constant(name + "_bias", random_tensor<int32_t>({filters}, -3000, 3000, seed + 1))},
      attrs_of({{"group", group}, {"pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2}}}));
}

ValueId qlinear_add(GraphBuilder& b, const std::string& name, ValueId a, ValueId c) {
  return b.node("com.microsoft.QLinearAdd", name,
                {a, b.constant(name + "_as", Tensor::scalar(0.4f)),
                 b.constant(name + "_azp", Tensor::scalar<uint8_t>(7)), c,
                 b.constant(name + "_bs", Tensor::scalar(0.3f)),
                 b.constant(name + "_bzp", Tensor::scalar<uint8_t>(130)),
                 b.constant(name + "_ys", Tensor::scalar(0.5f)),
                 b.constant(name + "_yzp", Tensor::scalar<uint8_t>(120))});
}

// A scalar uint8 QLinear op of `inputs`, each quantized operand given
// scale `scale` and zero point `zp`, as ORT's com.microsoft ops take them.
ValueId qlinear(GraphBuilder& b, const std::string& op, const std::string& name,
                const std::vector<ValueId>& operands, Attributes attrs = {}) {
  std::vector<ValueId> inputs;
  int i = 0;
  for (ValueId v : operands) {
    inputs.push_back(v);
    inputs.push_back(b.constant(name + "_s" + std::to_string(i), Tensor::scalar(0.3f + 0.1f * i)));
    inputs.push_back(b.constant(name + "_z" + std::to_string(i),
                                Tensor::scalar<uint8_t>(static_cast<uint8_t>(110 + 9 * i))));
    ++i;
  }
  inputs.push_back(b.constant(name + "_ys", Tensor::scalar(0.25f)));
  inputs.push_back(b.constant(name + "_yz", Tensor::scalar<uint8_t>(125)));
  return b.node(op, name, inputs, std::move(attrs));
}

}  // namespace

class TestInt8ChannelPadding : public QObject {
  Q_OBJECT

 private slots:
  // 16 -> 24 (1x1) -> 24 (1x1, padded on both sides) + residual -> 16
  // (3x3): every conv packed,
  // no layout transform but the graph's input and output ones, exact.
  void paddedChainIsPackedAndExact() {
    GraphBuilder b;
    const Shape shape = {1, 16, 9, 9};
    const ValueId x = b.input("x", shape, DType::UInt8);
    const ValueId a = qlinear_conv(b, "a", x, 24, 1, 120, 7, 21);
    const ValueId c = qlinear_conv(b, "c", a, 24, 1, 7, 130, 31);
    const ValueId sum = qlinear_add(b, "add", a, c);
    const ValueId d = qlinear_conv(b, "d", sum, 16, 3, 120, 100, 41);
    const Graph g = b.finish({d});
    const Tensor in = random_tensor<uint8_t>(shape, 0, 255, 5);
    const Tensor expected = run_reference(g, in);
    const Compiled out = run_compiled(g, in);
    QCOMPARE(values<uint8_t>(out.output), values<uint8_t>(expected));
    QCOMPARE(count_op(out.optimized, "ConvInteger"), 0);
    QCOMPARE(count_op(out.optimized, "ConvIntegerNCHWc"), 3);
    QCOMPARE(count_op(out.optimized, "LayoutTransform"), 2);
  }

  // A RegNetY block of 24 channels: 1x1, grouped 3x3 (groups of 8), an SE
  // gate (global pool, two 1x1 convs, a QLinearMul), 1x1. Every value pads
  // to 32 channels (the gate's 8-channel squeeze to 16), the grouped conv by
  // a group of zero filters; every conv is then packed, exactly.
  void regNetBlockIsPaddedAndExact() {
    GraphBuilder b;
    const Shape shape = {1, 16, 8, 8};
    const ValueId x = b.input("x", shape, DType::UInt8);
    const ValueId a = qlinear_conv(b, "a", x, 24, 1, 120, 7, 21);
    const ValueId g = qlinear_conv(b, "g", a, 24, 3, 7, 110, 31, 0, 3);
    const ValueId pooled = qlinear(b, "com.microsoft.QLinearGlobalAveragePool", "pool", {g},
                                   attrs_of({{"channels_last", int64_t{0}}}));
    const ValueId squeeze = qlinear_conv(b, "squeeze", pooled, 8, 1, 125, 100, 41);
    const ValueId gate = qlinear_conv(b, "gate", squeeze, 24, 1, 100, 90, 51);
    const ValueId excited = qlinear(b, "com.microsoft.QLinearMul", "excite", {g, gate});
    const ValueId d = qlinear_conv(b, "d", excited, 16, 1, 125, 100, 61);
    const Graph graph = b.finish({d});
    const Tensor in = random_tensor<uint8_t>(shape, 0, 255, 5);
    const Tensor expected = run_reference(graph, in);
    const Compiled out = run_compiled(graph, in);
    QCOMPARE(values<uint8_t>(out.output), values<uint8_t>(expected));
    QCOMPARE(count_op(out.optimized, "ConvInteger"), 0);
    QCOMPARE(count_op(out.optimized, "GroupedConvIntegerNCHWc"), 1);
  }

  // A padded value that a conv with a weight zero point reads too: that
  // reader reads a Slice back to 24 channels, the other the padding; exact.
  void otherReaderReadsASlice() {
    GraphBuilder b;
    const Shape shape = {1, 8, 6, 6};
    const ValueId x = b.input("x", shape, DType::UInt8);
    const ValueId a = b.node("ConvInteger", "a",
                             {x, b.constant("wa", random_tensor<int8_t>({24, 8, 1, 1}, -9, 9, 1))});
    const ValueId f = b.node("Cast", "f", {a}, attrs_of({{"to", int64_t{1}}}));
    const ValueId q = b.node("QuantizeLinear", "q",
                             {f, b.constant("qs", Tensor::scalar(3.0f)),
                              b.constant("qz", Tensor::scalar<uint8_t>(128))});
    const ValueId packed =
        b.node("ConvInteger", "packed",
               {q, b.constant("wp", random_tensor<int8_t>({16, 24, 3, 3}, -128, 127, 2)),
                b.constant("xzp", Tensor::scalar<uint8_t>(128))},
               attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    const ValueId sliced =
        b.node("ConvInteger", "sliced",
               {q, b.constant("ws", random_tensor<int8_t>({16, 24, 1, 1}, -128, 127, 3)),
                b.constant("xzs", Tensor::scalar<uint8_t>(128)),
                b.constant("wzs", Tensor::scalar<int8_t>(5))});
    const ValueId y = b.node("Add", "sum", {packed, sliced});
    const Graph g = b.finish({y});
    const Graph padded = passes::pad_int8_conv_filters(g);
    QCOMPARE(count_op(padded, "Slice"), 1);
    for (const Node& n : padded.nodes) {
      if (n.name == "q") QCOMPARE(padded.type(n.outputs[0]).shape[1], int64_t{32});
      if (n.name == "sliced") QCOMPARE(padded.type(n.inputs[0]).shape[1], int64_t{24});
    }
    const Tensor in = random_tensor<uint8_t>(shape, 0, 255, 9);
    const Tensor expected = run_reference(g, in);
    QCOMPARE(values<int32_t>(run_reference(padded, in)), values<int32_t>(expected));
    QCOMPARE(values<int32_t>(run_compiled(g, in).output), values<int32_t>(expected));
  }

  // The pass alone on ConvIntegers: the padded graph computes the same
  // result, its requantized values [N, 32, H, W]; a reader whose weight
  // zero point is not zero would see the padded lanes ((x − xz)·(0 − wz)
  // is not 0), so then nothing is padded.
  void paddingKeepsResults_data() {
    QTest::addColumn<int>("reader_w_zero");
    QTest::newRow("reader's weight zero point 0") << 0;
    QTest::newRow("reader's weight zero point 3") << 3;
  }
  void paddingKeepsResults() {
    QFETCH(int, reader_w_zero);
    GraphBuilder b;
    const Shape shape = {1, 8, 7, 7};
    const ValueId x = b.input("x", shape, DType::UInt8);
    const ValueId a =
        b.node("ConvInteger", "a",
               {x, b.constant("wa", random_tensor<int8_t>({24, 8, 3, 3}, -128, 127, 1)),
                b.constant("xza", Tensor::scalar<uint8_t>(100)),
                b.constant("wza", random_tensor<int8_t>({24}, -4, 4, 2))},
               attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    const ValueId f = b.node("Cast", "f", {a}, attrs_of({{"to", int64_t{1}}}));
    const ValueId scaled =
        b.node("Mul", "scale", {f, b.constant("s", random_tensor({24, 1, 1}, 3))});
    const ValueId q = b.node("QuantizeLinear", "q",
                             {scaled, b.constant("qs", Tensor::scalar(0.2f)),
                              b.constant("qz", Tensor::scalar<uint8_t>(128))});
    const ValueId y =
        b.node("ConvInteger", "y",
               {q, b.constant("wy", random_tensor<int8_t>({16, 24, 1, 1}, -128, 127, 4)),
                b.constant("xzy", Tensor::scalar<uint8_t>(128)),
                b.constant("wzy", Tensor::scalar<int8_t>(static_cast<int8_t>(reader_w_zero)))});
    const Graph g = b.finish({y});
    const Graph padded = passes::pad_int8_conv_filters(g);
    const int64_t expected_channels = reader_w_zero == 0 ? 32 : 24;
    for (const Node& n : padded.nodes)
      if (n.name == "q") QCOMPARE(padded.type(n.outputs[0]).shape[1], expected_channels);
    const Tensor in = random_tensor<uint8_t>(shape, 0, 255, 9);
    const Tensor expected = run_reference(g, in);
    QCOMPARE(values<int32_t>(run_reference(padded, in)), values<int32_t>(expected));
    QCOMPARE(values<int32_t>(run_compiled(g, in).output), values<int32_t>(expected));
  }
};

QTEST_GUILESS_MAIN(TestInt8ChannelPadding)
#include "tst_int8_channel_padding.moc"

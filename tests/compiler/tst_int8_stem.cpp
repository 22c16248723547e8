// The int8 stem conv (StemConvInteger, ir/ops/stem_conv_integer.h): a
// ConvInteger of few input channels (RGB, grayscale) that the int8 layout
// pass gives padded NHWC rows, its kernel width and channels reduced
// together. Every result is compared exactly with the reference executor
// running the graph before the pass (ConvInteger's own definition) — the
// pass's graph by the reference executor, and the whole pipeline compiled —
// for 1, 3 and 6 channels, 3x3, 5x5 and 7x7 kernels, strides 1 and 2, odd
// and asymmetric sizes and pads, zero points per tensor and per channel,
// int8 and uint8 data, a batch of 2. The compiled product's inner loop is
// the int8 dot product (dot_16x4_u8s8), in the IR and the assembly.
#include <QtTest>

#include <cstdint>

#include "../graph_builder.h"
#include "codegen/codegen.h"
#include "int8_graph_run.h"
#include "int8_operands.h"
#include "passes/alter_int8_conv_layout.h"
#include "passes/int8_stem_layout.h"
#include "tir/lower.h"
#include "tir/printer.h"
#include "topi/int8_stem.h"

using namespace lathe;
using namespace lathe::testing;

class TestInt8Stem : public QObject {
  Q_OBJECT

 private slots:
  // Which convs take the stem: few channels, not a multiple of 4, the
  // kernel row in fewer lanes than NCHW4c's, an undilated width.
  void stemLayoutFits() {
    QVERIFY(passes::stem_layout_fits(3, 7, 1));   // 6 lanes instead of 7
    QVERIFY(!passes::stem_layout_fits(3, 3, 1));  // 3 either way: NCHW4c
    QVERIFY(passes::stem_layout_fits(3, 5, 1));   // 4 instead of 5
    QVERIFY(passes::stem_layout_fits(1, 5, 1));   // 2 instead of 5
    QVERIFY(!passes::stem_layout_fits(3, 7, 2));  // dilated width: not contiguous
    QVERIFY(!passes::stem_layout_fits(8, 3, 1));  // a multiple of 4: no lane wasted
    QVERIFY(!passes::stem_layout_fits(17, 3, 1));
  }

  void stemMatchesConvInteger_data() {
    QTest::addColumn<int64_t>("batch");
    QTest::addColumn<int64_t>("channels");
    QTest::addColumn<int64_t>("height");
    QTest::addColumn<int64_t>("width");
    QTest::addColumn<int64_t>("kernel");
    QTest::addColumn<int64_t>("stride");
    QTest::addColumn<std::vector<int64_t>>("pads");
    QTest::addColumn<int>("zeros");  // 0: none, 1: per tensor, 2: w per channel
    QTest::addColumn<bool>("int8_data");
    using P = std::vector<int64_t>;
    QTest::newRow("RGB 7x7/2 pad 3, 15x17, per-channel w zero")
        << int64_t{1} << int64_t{3} << int64_t{15} << int64_t{17} << int64_t{7} << int64_t{2}
        << P{3, 3, 3, 3} << 2 << false;
    QTest::newRow("RGB 5x5/2 pad 2, 13x9")
        << int64_t{1} << int64_t{3} << int64_t{13} << int64_t{9} << int64_t{5} << int64_t{2}
        << P{1, 1, 1, 1} << 1 << false;
    QTest::newRow("RGB 5x5/1, no zero points")
        << int64_t{1} << int64_t{3} << int64_t{10} << int64_t{11} << int64_t{5} << int64_t{1}
        << P{2, 2, 2, 2} << 0 << false;
    QTest::newRow("gray 3x3/2 pad 1, 9x8")
        << int64_t{1} << int64_t{1} << int64_t{9} << int64_t{8} << int64_t{3} << int64_t{2}
        << P{1, 1, 1, 1} << 1 << true;
    QTest::newRow("gray 3x3/1 pad 1, 7x5")
        << int64_t{1} << int64_t{1} << int64_t{7} << int64_t{5} << int64_t{3} << int64_t{1}
        << P{1, 1, 1, 1} << 2 << false;
    QTest::newRow("gray 5x5/2 unpadded, 11x12")
        << int64_t{1} << int64_t{1} << int64_t{11} << int64_t{12} << int64_t{5} << int64_t{2}
        << P{0, 0, 0, 0} << 1 << false;
    QTest::newRow("6 channels 3x3/2, asymmetric pads")
        << int64_t{1} << int64_t{6} << int64_t{9} << int64_t{10} << int64_t{3} << int64_t{2}
        << P{1, 0, 2, 1} << 2 << false;
    QTest::newRow("RGB 7x7/2 batch 2, int8 data")
        << int64_t{2} << int64_t{3} << int64_t{12} << int64_t{13} << int64_t{7} << int64_t{2}
        << P{3, 3, 3, 3} << 1 << true;
  }
  void stemMatchesConvInteger() {
    QFETCH(int64_t, batch);
    QFETCH(int64_t, channels);
    QFETCH(int64_t, height);
    QFETCH(int64_t, width);
    QFETCH(int64_t, kernel);
    QFETCH(int64_t, stride);
    QFETCH(std::vector<int64_t>, pads);
    QFETCH(int, zeros);
    QFETCH(bool, int8_data);
    const int64_t filters = 32;
    const Shape in_shape = {batch, channels, height, width};
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", in_shape, int8_data ? DType::Int8 : DType::UInt8);
    std::vector<ValueId> inputs = {
        x,
        b.constant("w", random_tensor<int8_t>({filters, channels, kernel, kernel}, -128, 127, 3))};
    if (zeros) {
      inputs.push_back(
          b.constant("xz", int8_data ? Tensor::scalar<int8_t>(-21) : Tensor::scalar<uint8_t>(117)));
      inputs.push_back(b.constant("wz", zeros == 2 ? random_tensor<int8_t>({filters}, -5, 5, 7)
                                                   : Tensor::scalar<int8_t>(3)));
    }
    const ValueId y =
        b.node("ConvInteger", "conv", inputs,
               attrs_of({{"strides", std::vector<int64_t>{stride, stride}}, {"pads", pads}}));
    const Graph g = b.finish({y});
    const Graph altered = passes::alter_int8_conv_layout(g);
    QCOMPARE(count_op(altered, "StemConvInteger"), 1);
    QCOMPARE(count_op(altered, "ConvIntegerNCHWc"), 0);
    QCOMPARE(count_op(altered, "ConvInteger"), 0);
    const Tensor in = int8_data ? random_tensor<int8_t>(in_shape, -128, 127, 11)
                                : random_tensor<uint8_t>(in_shape, 0, 255, 11);
    const Tensor expected = run_reference(g, in);
    QCOMPARE(values<int32_t>(run_reference(altered, in)), values<int32_t>(expected));
    const Compiled compiled = run_compiled(g, in);
    QCOMPARE(count_op(compiled.optimized, "StemConvInteger"), 1);
    QCOMPARE(values<int32_t>(compiled.output), values<int32_t>(expected));
  }

  // A quantized stem as a QDQ model gives it (QLinearConv: the requantize
  // epilogue fused into the stem's tiles), exactly the reference's.
  void requantizedStem() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 3, 14, 15}, DType::UInt8);
    const int64_t filters = 48;
    std::vector<float> w_scales;
    for (int64_t o = 0; o < filters; ++o)
      w_scales.push_back(0.01f + 0.001f * static_cast<float>(o));
    const ValueId y = b.node(
        "QLinearConv", "stem",
        {x, b.constant("xs", Tensor::scalar(0.05f)),
         b.constant("xzp", Tensor::scalar<uint8_t>(114)),
         b.constant("w", random_tensor<int8_t>({filters, 3, 7, 7}, -127, 127, 5)),
         b.constant("ws", Tensor::from_vector<float>(w_scales, {filters})),
         b.constant("wzp", Tensor(DType::Int8, {filters})), b.constant("ys", Tensor::scalar(0.4f)),
         b.constant("yzp", Tensor::scalar<uint8_t>(3)),
         b.constant("bias", random_tensor<int32_t>({filters}, -3000, 3000, 6))},
        attrs_of(
            {{"strides", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{3, 3, 3, 3}}}));
    const Graph g = b.finish({y});
    const Tensor in = random_tensor<uint8_t>({1, 3, 14, 15}, 0, 255, 8);
    const Compiled compiled = run_compiled(g, in);
    QCOMPARE(count_op(compiled.optimized, "StemConvInteger"), 1);
    QCOMPARE(values<uint8_t>(compiled.output), values<uint8_t>(run_reference(g, in)));
  }

  // The template's product: its inner loop the int8 dot product intrinsic
  // in the lowered IR, and an int8 dot-product instruction in the assembly.
  void innerLoopIsTensorized() {
    StemConvGeometry geo;
    geo.channels = 3;
    geo.height = geo.width = 15;
    geo.kernel_h = geo.kernel_w = 7;
    geo.stride_h = geo.stride_w = 2;
    geo.pad_top = geo.pad_left = geo.pad_bottom = geo.pad_right = 3;
    const te::Tensor rows = te::placeholder({1, 3, 15, 15}, te::DataType::UInt(8), "x");
    const te::Tensor w =
        te::placeholder({4, 7, geo.quads(), 16, 4}, te::DataType::Int(8), "weights");
    const te::Tensor xz = te::placeholder({1}, te::DataType::UInt(8), "xz");
    const topi::Int8Kernel k = topi::stem_conv2d_integer({rows, xz}, {w, {}}, te::Tensor(), geo);
    const topi::SearchSpace space = topi::stem_conv2d_int8_template(k);
    schedule::Schedule s({k.output.op()});
    space.apply(s, space.default_config);
    const tir::LoweredFunc f = tir::lower(s, {rows, w, xz, k.output}, "stem", {.record_ir = false});
    const std::string ir = tir::to_string(f.func);
    QVERIFY2(ir.find("dot_16x4_u8s8") != std::string::npos, ir.c_str());
    const std::string assembly = codegen::emit_assembly({f.func}, codegen::Target::host());
    QVERIFY2(assembly.find("vpdpbusd") != std::string::npos ||
                 assembly.find("vpmaddubsw") != std::string::npos,
             "no int8 dot-product instruction in the stem's assembly");
  }

  // Bad attributes name the op and what is wrong.
  void badGeometryIsAnError() {
    Attributes attrs;
    attrs.set("kernel_shape", std::vector<int64_t>{7, 7});
    attrs.set("dilations", std::vector<int64_t>{1, 2});
    try {
      (void)StemConvGeometry::of(attrs, {1, 3, 16, 16});
      QFAIL("a dilated kernel width was accepted");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).find("StemConvInteger") != std::string::npos);
    }
  }
};

QTEST_GUILESS_MAIN(TestInt8Stem)
#include "tst_int8_stem.moc"

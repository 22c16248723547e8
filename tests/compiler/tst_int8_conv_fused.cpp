// The packed int8 conv groups (ConvIntegerNCHWc and its requantize
// epilogue, topi/int8.h's conv2d_int8_fused.x86): the product is computed
// per output tile inside the epilogue's loops, so no int32 buffer of the
// whole output is lowered; and the compiled groups, for 1x1, strided, odd
// widths and two-row tiles, give exactly the reference executor's result.
#include <QtTest>

#include <cstdint>

#include "../graph_builder.h"
#include "codegen/target.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "int8_operands.h"
#include "reference/executor.h"
#include "tir/lower.h"
#include "tir/stmt_functor.h"
#include "topi/int8.h"
#include "topi/op_compute.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

// A ConvIntegerNCHWc group: x [1, C/16, hw, hw, 16], a k x k conv of
// `filters` output channels, then the requantization (bias, scale, round,
// saturate to uint8) the quantized-model pass puts after it, with its
// template's space.
struct GroupUnderTest {
  te::Tensor x, w, bias, scale, out;
  topi::SearchSpace space;
};

GroupUnderTest conv_group(int64_t channels, int64_t filters, int64_t hw, int64_t k,
                          int64_t stride) {
  const te::DataType u8 = te::DataType::UInt(8), s8 = te::DataType::Int(8),
                     i32 = te::DataType::Int(32), f32 = te::DataType::Float(32);
  topi::Conv2dParams p;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = k / 2;
  GroupUnderTest g;
  g.x = te::placeholder({1, channels / 16, hw, hw, 16}, u8, "x");
  g.w = te::placeholder({filters / 16, channels / 16, k, k, 4, 16, 4}, s8, "w");
  const te::Tensor anchor =
      topi::conv2d_integer_packed({g.x, {}}, {g.w, {}}, te::Tensor(), p, "conv").output;
  g.bias = te::placeholder({1, filters / 16, 1, 1, 16}, i32, "bias");
  g.scale = te::placeholder({1, filters / 16, 1, 1, 16}, f32, "scale");
  g.out = te::compute(
      anchor.shape(),
      [&](const std::vector<te::Var>& i) {
        te::Expr v = te::cast(f32, anchor(i[0], i[1], i[2], i[3], i[4]) +
                                       g.bias(i[0], i[1], te::make_int(0), te::make_int(0), i[4]));
        v = te::round(v * g.scale(i[0], i[1], te::make_int(0), te::make_int(0), i[4]));
        v = te::min(te::max(v, te::make_const(f32, 0.0)), te::make_const(f32, 255.0));
        return te::cast(u8, te::cast(i32, v));
      },
      "requantize");
  const topi::OpStrategy* strategy = topi::OpStrategyRegistry::global().find("ConvIntegerNCHWc");
  g.space = strategy->template_for("llvm")(anchor, {g.out}, codegen::Target::host().vector_unit());
  return g;
}

// The element counts of the int32 allocations of conv_group(...) lowered
// with its template's default config.
std::vector<int64_t> lowered_int32_buffers(int64_t channels, int64_t filters, int64_t hw, int64_t k,
                                           int64_t stride, int64_t& output_elements,
                                           bool* parallel = nullptr) {
  const GroupUnderTest g = conv_group(channels, filters, hw, k, stride);
  const te::Tensor& out = g.out;
  const topi::SearchSpace& space = g.space;
  schedule::Schedule s({out.op()});
  space.apply(s, space.default_config);
  const tir::LoweredFunc f =
      tir::lower(s, {g.x, g.w, g.bias, g.scale, out}, "group", {.record_ir = false});
  output_elements = 1;
  for (int64_t d : out.shape()) output_elements *= d;
  if (parallel) {
    *parallel = false;
    tir::visit_stmt(f.func.body, [&](const tir::Stmt& st) {
      if (const auto* loop = st.as<tir::ForNode>())
        *parallel = *parallel || loop->kind == tir::ForKind::Parallel;
    });
  }
  std::vector<int64_t> found;
  tir::visit_stmt(f.func.body, [&](const tir::Stmt& st) {
    const auto* a = st.as<tir::AllocateNode>();
    if (!a || a->dtype != te::DataType::Int(32)) return;
    int64_t elements = 1;
    for (const te::Expr& e : a->extents) {
      const int64_t* n = te::as_const_int(e);
      elements *= n ? *n : output_elements;
    }
    found.push_back(elements);
  });
  return found;
}

// QLinearConv(x, ...) with pseudo-random int8 weights of `filters` x C x k x k.
ValueId qlinear_conv(GraphBuilder& b, const std::string& name, ValueId x, int64_t filters,
                     int64_t k, Attributes attrs, uint32_t seed, float y_scale = 0.6f) {
  const int64_t c = b.g.type(x).shape[1];
  return b.node(
      "QLinearConv", name,
      {x, b.constant(name + "_xs", Tensor::scalar(0.05f)),
       b.constant(name + "_xzp", Tensor::scalar<uint8_t>(0)),
       b.constant(name + "_w", random_tensor<int8_t>({filters, c, k, k}, -127, 127, seed)),
       b.constant(name + "_ws", Tensor::scalar(0.01f)),
       b.constant(name + "_wzp", Tensor::scalar<int8_t>(0)),
       b.constant(name + "_ys", Tensor::scalar(y_scale)),
       b.constant(name + "_yzp", Tensor::scalar<uint8_t>(3)),
       b.constant(name + "_bias", random_tensor<int32_t>({filters}, -3000, 3000, seed + 1))},
      std::move(attrs));
}

}  // namespace

class TestInt8ConvFused : public QObject {
  Q_OBJECT

 private slots:
  // The product is a tile of at most 28 accumulators of 16 channels
  // (registers), never an int32 buffer of the whole output read back by the
  // epilogue.
  void productIsATile_data() {
    QTest::addColumn<int64_t>("channels");
    QTest::addColumn<int64_t>("filters");
    QTest::addColumn<int64_t>("hw");
    QTest::addColumn<int64_t>("kernel");
    QTest::addColumn<int64_t>("stride");
    QTest::newRow("3x3") << int64_t{32} << int64_t{32} << int64_t{28} << int64_t{3} << int64_t{1};
    QTest::newRow("3x3/2") << int64_t{16} << int64_t{32} << int64_t{28} << int64_t{3} << int64_t{2};
    QTest::newRow("1x1/2") << int64_t{32} << int64_t{64} << int64_t{28} << int64_t{1} << int64_t{2};
    QTest::newRow("7x7 rows") << int64_t{32} << int64_t{32} << int64_t{7} << int64_t{3}
                              << int64_t{1};
  }
  void productIsATile() {
    QFETCH(int64_t, channels);
    QFETCH(int64_t, filters);
    QFETCH(int64_t, hw);
    QFETCH(int64_t, kernel);
    QFETCH(int64_t, stride);
    int64_t output_elements = 0;
    const std::vector<int64_t> buffers =
        lowered_int32_buffers(channels, filters, hw, kernel, stride, output_elements);
    QCOMPARE(buffers.size(), size_t{1});  // the product's tile
    QVERIFY2(buffers[0] <= 28 * 16, qPrintable(QString("an int32 buffer of %1 elements (the "
                                                       "output has %2)")
                                                   .arg(buffers[0])
                                                   .arg(output_elements)));
  }

  // The dot products count as work: a 7x7 output of 512 x 128 channels
  // (3.2 M multiply-adds in 12 K tensorized calls) runs on the thread pool,
  // not "too small to parallelize".
  void smallOutputRunsInParallel() {
    int64_t output_elements = 0;
    bool parallel = false;
    lowered_int32_buffers(512, 128, 7, 1, 1, output_elements, &parallel);
    QVERIFY(parallel);
  }

  // The threads share out row tiles where the packed weights are smaller
  // than the packed input (ResNet's first layers), so that each reads its
  // part of the input; channel tiles where they are larger (its last).
  void threadsShareTheLargerOperand() {
    const GroupUnderTest early = conv_group(64, 64, 56, 1, 1);
    QVERIFY2(
        early.space.describe(early.space.default_config).find("rows_outer=1") != std::string::npos,
        early.space.describe(early.space.default_config).c_str());
    const GroupUnderTest late = conv_group(512, 512, 7, 3, 1);
    QVERIFY2(
        late.space.describe(late.space.default_config).find("rows_outer=0") != std::string::npos,
        late.space.describe(late.space.default_config).c_str());
  }

  // Compiled through the whole pipeline (QLinearConv -> ConvIntegerNCHWc
  // groups), against the reference executor, exactly.
  void matchesReference_data() {
    QTest::addColumn<int64_t>("hw");
    QTest::addColumn<int64_t>("kernel");
    QTest::addColumn<int64_t>("stride");
    QTest::addColumn<int64_t>("filters");
    QTest::newRow("1x1/2 14") << int64_t{14} << int64_t{1} << int64_t{2} << int64_t{32};
    QTest::newRow("1x1 10") << int64_t{10} << int64_t{1} << int64_t{1} << int64_t{32};
    QTest::newRow("3x3/2 14") << int64_t{14} << int64_t{3} << int64_t{2} << int64_t{32};
    QTest::newRow("3x3 two rows 14") << int64_t{14} << int64_t{3} << int64_t{1} << int64_t{32};
    QTest::newRow("3x3 odd 9") << int64_t{9} << int64_t{3} << int64_t{1} << int64_t{32};
    // Tiles of several channel blocks: 4 and 3 blocks of 16.
    QTest::newRow("3x3 7 64 filters") << int64_t{7} << int64_t{3} << int64_t{1} << int64_t{64};
    QTest::newRow("3x3/2 12 48 filters") << int64_t{12} << int64_t{3} << int64_t{2} << int64_t{48};
    QTest::newRow("7x7/2 16 64 filters") << int64_t{16} << int64_t{7} << int64_t{2} << int64_t{64};
  }
  void matchesReference() {
    QFETCH(int64_t, hw);
    QFETCH(int64_t, kernel);
    QFETCH(int64_t, stride);
    QFETCH(int64_t, filters);
    compare_with_reference(hw, kernel, stride, filters, 0.6f);
  }

  // A requantize scale above 1/2 (0.05 * 0.01 / 0.0008): the clamp stays in
  // float before the conversion (which could overflow after it), and the
  // groups still match. Below it, the QuantizeLinear is marked bounded.
  void largeScaleMatchesReference() { compare_with_reference(14, 3, 1, 32, 0.0008f); }

 private:
  void compare_with_reference(int64_t hw, int64_t kernel, int64_t stride, int64_t filters,
                              float y_scale) {
    GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, hw, hw}, DType::UInt8);
    const int64_t pad = kernel / 2;
    // Two convs: the second reads the first's blocked uint8 output, so both
    // are packed groups with their requantize epilogue.
    const ValueId a = qlinear_conv(b, "a", x, filters, kernel,
                                   attrs_of({{"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                                             {"strides", std::vector<int64_t>{stride, stride}}}),
                                   11, y_scale);
    const ValueId c = qlinear_conv(
        b, "c", a, 16, 3, attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}), 21, y_scale);
    const Graph g = b.finish({c});
    const Tensor in = random_tensor<uint8_t>({1, 16, hw, hw}, 0, 255, 5);
    const Tensor expected = reference::Executor(g).run({{"x", in}})[0];
    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph compiled = driver::compile_graph(g, options);
    QCOMPARE(count_op(compiled.optimized.graph, "ConvIntegerNCHWc"), 2);
    int bounded = 0;
    for (const Node& n : compiled.optimized.graph.nodes)
      if (n.op == "QuantizeLinear" && n.attrs.get_int("bounded_input", 0) != 0) ++bounded;
    QCOMPARE(bounded, y_scale > 0.001f ? 2 : 0);
    driver::JitGraphModule module(compiled, options.target);
    runtime::GraphExecutor& exec = module.executor();
    exec.set_input(exec.input_name(0), in.raw(), in.nbytes());
    exec.run();
    QCOMPARE(values<uint8_t>(driver::from_ndarray(exec.output(0))), values<uint8_t>(expected));
  }
};

QTEST_GUILESS_MAIN(TestInt8ConvFused)
#include "tst_int8_conv_fused.moc"

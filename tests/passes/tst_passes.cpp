// The graph passes on small hand-built graphs: the layout ops against the
// NCHW Conv, and each pass's exact rewrite checked structurally and, where it
// computes, against the reference executor on the original graph.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../graph_builder.h"
#include "ir/normalized_error.h"
#include "ir/ops/layout.h"
#include "passes/alter_conv_layout.h"
#include "passes/cancel_layout_transforms.h"
#include "passes/eliminate_dead_code.h"
#include "passes/expand_dynamic_quantize.h"
#include "passes/fold_constants.h"
#include "passes/fuse_ops.h"
#include "passes/graph_edit.h"
#include "passes/lower_conv_transpose.h"
#include "passes/pipeline.h"
#include "passes/simplify.h"
#include "passes/split_shared_outputs.h"
#include "reference/executor.h"
#include "support/error.h"

using namespace lathe;

Q_DECLARE_METATYPE(lathe::Attributes)

namespace {

using testing::random_tensor;

using testing::attrs_of;
using Builder = testing::GraphBuilder;

std::vector<Tensor> run(const Graph& g, const std::map<std::string, Tensor>& inputs) {
  return reference::Executor(g).run(inputs);
}

int count_op(const Graph& g, const std::string& op) {
  return static_cast<int>(
      std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == op; }));
}

std::vector<std::string> ops_of(const Graph& g) {
  std::vector<std::string> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

QString joined(const std::vector<std::string>& v) {
  QStringList l;
  for (const auto& s : v) l << QString::fromStdString(s);
  return l.join(' ');
}

// Each output of `g` against the same output of `original` on `in`: the
// outputs whose shape is not `shapes`' or whose normalized error is over
// 1e-6, or an empty string.
QString output_mismatches(const Graph& original, const Graph& g,
                          const std::map<std::string, Tensor>& in,
                          const std::vector<Shape>& shapes) {
  const std::vector<Tensor> want = run(original, in), got = run(g, in);
  QStringList bad;
  for (size_t k = 0; k < want.size(); ++k) {
    const double err = normalized_error(got[k], want[k]);
    if (g.type(g.outputs[k]).shape != shapes.at(k) || !(err <= 1e-6))
      bad << QString("output %1: %2, error %3")
                 .arg(k)
                 .arg(QString::fromStdString(shape_to_string(got[k].shape())))
                 .arg(err);
  }
  return bad.join("; ");
}

Attributes transform_attrs(const std::string& src, const std::string& dst) {
  return attrs_of({{"src_layout", src}, {"dst_layout", dst}});
}

}  // namespace

class TestPasses : public QObject {
  Q_OBJECT

 private slots:
  void channelBlocks() {
    const std::vector<std::pair<int64_t, int64_t>> cases = {{3, 3},  {64, 16}, {96, 16},  {144, 16},
                                                            {24, 8}, {12, 12}, {960, 16}, {1000, 8},
                                                            {40, 8}, {20, 10}, {17, 1},   {1, 1}};
    for (auto [c, b] : cases) QCOMPARE(channel_block(c), b);
    QCOMPARE(TensorLayout::parse("NCHW16c").to_string(), std::string("NCHW16c"));
    QCOMPARE(TensorLayout::parse("OIHW4i16o").out_block, int64_t{16});
    QVERIFY_THROWS_EXCEPTION(Error, TensorLayout::parse("NHWC"));
    QVERIFY_THROWS_EXCEPTION(Error, TensorLayout::parse("NCHW0c"));
  }

  void layoutTransformPlacesElements() {
    Builder b;
    ValueId x = b.input("x", {2, 8, 3, 5});
    ValueId w = b.input("w", {8, 6, 3, 2});
    ValueId xb = b.node("LayoutTransform", "to4c", {x}, transform_attrs("NCHW", "NCHW4c"));
    ValueId x2 = b.node("LayoutTransform", "to2c", {xb}, transform_attrs("NCHW4c", "NCHW2c"));
    ValueId back = b.node("LayoutTransform", "back", {x2}, transform_attrs("NCHW2c", "NCHW"));
    ValueId wb = b.node("LayoutTransform", "wt", {w}, transform_attrs("OIHW", "OIHW3i4o"));
    Graph g = b.finish({xb, back, wb});
    QCOMPARE(g.type(xb).shape, Shape({2, 2, 3, 5, 4}));
    QCOMPARE(g.type(wb).shape, Shape({2, 2, 3, 2, 3, 4}));
    Tensor tx = random_tensor({2, 8, 3, 5}, 1), tw = random_tensor({8, 6, 3, 2}, 2);
    std::vector<Tensor> out = run(g, {{"x", tx}, {"w", tw}});
    const float* px = tx.data<float>();
    const float* pb = out[0].data<float>();
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < 8; ++c)
        for (int64_t h = 0; h < 3; ++h)
          for (int64_t x5 = 0; x5 < 5; ++x5)
            QCOMPARE(pb[(((n * 2 + c / 4) * 3 + h) * 5 + x5) * 4 + c % 4],
                     px[((n * 8 + c) * 3 + h) * 5 + x5]);
    QCOMPARE(normalized_error(out[1], tx), 0.0);
    const float* pw = tw.data<float>();
    const float* pwb = out[2].data<float>();
    for (int64_t o = 0; o < 8; ++o)
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 2; ++kw)
            QCOMPARE(pwb[((((o / 4) * 2 + i / 3) * 3 + kh) * 2 + kw) * 12 + (i % 3) * 4 + o % 4],
                     pw[((o * 6 + i) * 3 + kh) * 2 + kw]);
  }

  void layoutTransformRejectsBlockNotDividing() {
    Builder b;
    ValueId x = b.input("x", {1, 6, 2, 2});
    try {
      b.node("LayoutTransform", "bad_block", {x}, transform_attrs("NCHW", "NCHW4c"));
      QFAIL("no error");
    } catch (const Error& e) {
      const QString msg = e.what();
      QVERIFY2(msg.contains("bad_block") && msg.contains("does not divide"), e.what());
    }
  }

  void conv2dNchwcMatchesConv_data() {
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("filters");
    QTest::addColumn<int>("group");
    QTest::addColumn<int>("xb");
    QTest::addColumn<int>("ib");
    QTest::addColumn<int>("ob");
    QTest::addColumn<int>("stride");
    QTest::addColumn<int>("pad");
    QTest::addColumn<int>("dilation");
    QTest::newRow("dense 3x3") << 8 << 16 << 1 << 4 << 8 << 16 << 1 << 1 << 1;
    QTest::newRow("mixed blocks, stride 2") << 12 << 6 << 1 << 3 << 4 << 2 << 2 << 1 << 1;
    QTest::newRow("dilated") << 6 << 5 << 1 << 2 << 3 << 5 << 1 << 2 << 2;
    QTest::newRow("depthwise") << 16 << 16 << 16 << 8 << 1 << 16 << 1 << 1 << 1;
    QTest::newRow("depthwise, odd blocks") << 12 << 12 << 12 << 4 << 1 << 6 << 2 << 1 << 1;
    QTest::newRow("grouped") << 8 << 8 << 2 << 4 << 2 << 4 << 1 << 0 << 1;
    QTest::newRow("grouped, block spans groups") << 8 << 8 << 2 << 4 << 2 << 8 << 1 << 1 << 1;
  }

  void conv2dNchwcMatchesConv() {
    QFETCH(int, channels);
    QFETCH(int, filters);
    QFETCH(int, group);
    QFETCH(int, xb);
    QFETCH(int, ib);
    QFETCH(int, ob);
    QFETCH(int, stride);
    QFETCH(int, pad);
    QFETCH(int, dilation);
    const int64_t c = channels, oc = filters, cg = channels / group;
    Tensor tx = random_tensor({2, c, 9, 7}, 3);
    Tensor tw = random_tensor({oc, cg, 3, 3}, 4);
    Tensor tb = random_tensor({oc}, 5);
    Attributes conv_attrs = attrs_of({{"strides", std::vector<int64_t>{stride, stride}},
                                      {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                                      {"dilations", std::vector<int64_t>{dilation, dilation}},
                                      {"group", int64_t{group}}});
    Builder ref;
    {
      ValueId x = ref.input("x", tx.shape());
      ValueId y =
          ref.node("Conv", "conv", {x, ref.constant("w", tw), ref.constant("b", tb)}, conv_attrs);
      ref.finish({y});
    }
    Builder blk;
    {
      ValueId x = blk.input("x", tx.shape());
      ValueId xt =
          blk.node("LayoutTransform", "tx", {x}, transform_attrs("NCHW", nchwc_layout(xb)));
      ValueId wt = blk.node("LayoutTransform", "tw", {blk.constant("w", tw)},
                            transform_attrs("OIHW", oihwio_layout(ib, ob)));
      ValueId bt = blk.constant("b", tb.reshaped({oc / ob, ob}));
      ValueId y = blk.node("Conv2dNCHWc", "conv", {xt, wt, bt}, conv_attrs);
      ValueId back =
          blk.node("LayoutTransform", "ty", {y}, transform_attrs(nchwc_layout(ob), "NCHW"));
      blk.finish({back});
    }
    const Tensor want = run(ref.g, {{"x", tx}})[0];
    const Tensor got = run(blk.g, {{"x", tx}})[0];
    QCOMPARE(got.shape(), want.shape());
    const double err = normalized_error(got, want);
    QVERIFY2(err <= 1e-6, qPrintable(QString("normalized error %1").arg(err)));
    const OpDef* op = OpRegistry::global().find("Conv2dNCHWc");
    QCOMPARE(op->kind, FusionKind::OutEWiseFusable);
    const Node& conv = blk.g.nodes[static_cast<size_t>(blk.g.find_node("conv"))];
    std::vector<TensorType> in_types, out_types = {blk.g.type(conv.outputs[0])};
    for (ValueId v : conv.inputs) in_types.push_back(blk.g.type(v));
    QCOMPARE(op->macs(conv, in_types, out_types), want.numel() * cg * 9);
  }

  void conv2dNchwcChecksNameTheNode() {
    Builder b;
    ValueId x = b.input("x", {1, 2, 4, 4, 4});
    ValueId w = b.constant("w", Tensor(DType::Float32, {1, 1, 3, 3, 4, 8}));  // 4 in, x has 8
    try {
      b.node("Conv2dNCHWc", "odd_conv", {x, w});
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("odd_conv"), e.what());
    }
  }

  void deadCodeGoes() {
    Builder b;
    ValueId x = b.input("x", {4});
    ValueId used = b.node("Relu", "used", {x});
    ValueId dead = b.node("Exp", "dead", {x});
    b.node("Neg", "dead_too", {dead});
    Graph g = passes::eliminate_dead_code(b.finish({used}));
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Relu"));
    QCOMPARE(g.find_value("dead_out"), kNoValue);
    QCOMPARE(g.find_value("dead_too_out"), kNoValue);
    QCOMPARE(g.values.size(), size_t{2});
  }

  void constantsFold() {
    Builder b;
    ValueId x = b.input("x", {3});
    ValueId c1 = b.constant("c1", Tensor::from_vector<float>({1, 2, 3}, {3}));
    ValueId c2 = b.constant("c2", Tensor::from_vector<float>({10, 20, 30}, {3}));
    ValueId sum = b.node("Add", "sum", {c1, c2});
    ValueId sq = b.node("Mul", "square", {sum, sum});
    ValueId y = b.node("Mul", "scale", {x, sq});
    Graph g = passes::fold_constants(b.finish({y}));
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Mul"));
    ValueId folded = g.find_value("square_out");
    QVERIFY(folded != kNoValue && g.value(folded).is_constant());
    QCOMPARE(g.value(folded).constant.data<float>()[2], 33.0f * 33.0f);
    QCOMPARE(g.find_value("sum_out"), kNoValue);  // no reader left
  }

  void identityAndDropoutGo() {
    Builder b;
    ValueId x = b.input("x", {2, 3});
    ValueId r = b.node("Relu", "relu", {x});
    ValueId i1 = b.node("Identity", "id1", {r});
    std::vector<ValueId> drop = b.node_n("Dropout", "drop", {i1}, {}, 2);
    ValueId e = b.node("Exp", "exp", {drop[0]});
    ValueId out = b.node("Identity", "id_out", {e});  // a graph output: its name must stay
    ValueId passthrough = b.node("Identity", "id_input", {x});  // input and output: stays
    Graph original = b.finish({out, passthrough});
    Graph g = passes::simplify(original);
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Relu Exp Identity"));
    QCOMPARE(g.value(g.outputs[0]).name, std::string("id_out_out"));
    QCOMPARE(g.value(g.outputs[1]).name, std::string("id_input_out"));
    const Node& exp = g.nodes[static_cast<size_t>(g.find_node("exp"))];
    QCOMPARE(g.value(exp.inputs[0]).name, std::string("relu_out"));
    Tensor tx = random_tensor({2, 3}, 9);
    QCOMPARE(normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]), 0.0);
  }

  // Zero points that are constants of zeros go; a nonzero one stays, and the
  // integer results are the same.
  void zeroZeroPointsGo() {
    Builder b;
    ValueId x = b.input("x", {1, 4, 5, 5}, DType::UInt8);
    Tensor w(DType::Int8, {8, 4, 3, 3});
    for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = static_cast<int8_t>(i % 7 - 3);
    Tensor w_zero(DType::Int8, {8});  // per channel, all zero
    std::fill_n(w_zero.data<int8_t>(), 8, int8_t{0});
    ValueId conv = b.node("ConvInteger", "conv",
                          {x, b.constant("w", w), b.constant("xz", Tensor::scalar<uint8_t>(0)),
                           b.constant("wz", w_zero)});
    Tensor a_zero = Tensor::scalar<uint8_t>(3);
    ValueId a = b.input("a", {2, 6}, DType::UInt8);
    Tensor m(DType::Int8, {6, 4});
    for (int64_t i = 0; i < m.numel(); ++i) m.data<int8_t>()[i] = static_cast<int8_t>(i % 5 - 2);
    ValueId mm = b.node("MatMulInteger", "mm",
                        {a, b.constant("m", m), b.constant("az", a_zero),
                         b.constant("mz", Tensor::scalar<int8_t>(0))});
    Graph original = b.finish({conv, mm});
    Graph g = passes::simplify(original);
    g.verify();
    const Node& c = g.nodes[static_cast<size_t>(g.find_node("conv"))];
    QCOMPARE(c.inputs.size(), size_t{2});
    const Node& d = g.nodes[static_cast<size_t>(g.find_node("mm"))];
    QCOMPARE(d.inputs.size(), size_t{3});  // A's zero point 3 stays
    QVERIFY(d.has_input(2));
    Tensor tx(DType::UInt8, {1, 4, 5, 5}), ta(DType::UInt8, {2, 6});
    for (int64_t i = 0; i < tx.numel(); ++i) tx.data<uint8_t>()[i] = static_cast<uint8_t>(i * 37);
    for (int64_t i = 0; i < ta.numel(); ++i) ta.data<uint8_t>()[i] = static_cast<uint8_t>(i * 53);
    const std::map<std::string, Tensor> in = {{"x", tx}, {"a", ta}};
    const std::vector<Tensor> want = run(original, in), got = run(g, in);
    for (size_t k = 0; k < want.size(); ++k) QCOMPARE(normalized_error(got[k], want[k]), 0.0);
  }

  // For GPUs, a LayerNormalization whose statistics are read too becomes one
  // node per read output, each writing that one (output 0 kept as a fresh,
  // unread value where the copy is for another), with the same results; one
  // whose statistics nothing reads, and a Split, stay as they are.
  void sharedOutputsSplitIntoOneNodeEach() {
    Builder b;
    ValueId x = b.input("x", {2, 3, 8});
    ValueId scale = b.constant("scale", random_tensor({8}, 3));
    std::vector<ValueId> ln =
        b.node_n("LayerNormalization", "ln", {x, scale}, attrs_of({{"axis", int64_t{-1}}}), 3);
    std::vector<ValueId> alone =
        b.node_n("LayerNormalization", "alone", {x, scale}, attrs_of({{"axis", int64_t{-1}}}), 3);
    std::vector<ValueId> parts = b.node_n(
        "Split", "split", {x}, attrs_of({{"axis", int64_t{1}}, {"num_outputs", int64_t{3}}}), 3);
    Graph original = b.finish({ln[0], ln[1], ln[2], alone[0], parts[0], parts[2]});
    Graph g = passes::split_shared_outputs(original);
    g.verify();
    QCOMPARE(count_op(g, "LayerNormalization"), 4);
    QCOMPARE(count_op(g, "Split"), 1);
    int written = 0;
    for (const Node& n : g.nodes) {
      if (n.op != "LayerNormalization" || n.name == "alone") continue;
      int outputs = 0;
      for (size_t k = 1; k < n.outputs.size(); ++k) outputs += n.outputs[k] != kNoValue;
      QVERIFY2(outputs <= 1, qPrintable(QString::fromStdString(n.name)));
      ++written;
    }
    QCOMPARE(written, 3);
    const Tensor t = random_tensor({2, 3, 8}, 5);
    const std::vector<Tensor> want = run(original, {{"x", t}}), got = run(g, {{"x", t}});
    QCOMPARE(got.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) QCOMPARE(normalized_error(got[k], want[k]), 0.0);
  }

  // DynamicQuantizeLinear spelled as its ONNX function (for GPUs): the same
  // three outputs, bit for bit, on mixed, one-signed and all-zero inputs.
  void dynamicQuantizeExpands() {
    Builder b;
    ValueId x = b.input("x", {3, 5});
    std::vector<ValueId> q = b.node_n("DynamicQuantizeLinear", "dq", {x}, {}, 3);
    Graph original = b.finish({q[0], q[1], q[2]});
    Graph g = passes::expand_dynamic_quantize(original);
    g.verify();
    QCOMPARE(count_op(g, "DynamicQuantizeLinear"), 0);
    QCOMPARE(count_op(g, "ReduceMin"), 1);
    QCOMPARE(count_op(g, "QuantizeLinear"), 1);
    Tensor mixed = random_tensor({3, 5}, 21), positive = mixed.clone(),
           zeros(DType::Float32, {3, 5});
    for (int64_t i = 0; i < positive.numel(); ++i)
      positive.data<float>()[i] = std::abs(positive.data<float>()[i]) + 0.25f;
    std::fill_n(zeros.data<float>(), zeros.numel(), 0.f);
    for (const Tensor& t : {mixed, positive, zeros}) {
      const std::vector<Tensor> want = run(original, {{"x", t}}), got = run(g, {{"x", t}});
      for (size_t k = 0; k < 3; ++k)
        QVERIFY2(std::memcmp(got[k].raw(), want[k].raw(), want[k].nbytes()) == 0,
                 qPrintable(QString("output %1 differs").arg(k)));
    }
  }

  void batchNormFoldsIntoConv() {
    Builder b;
    ValueId x = b.input("x", {1, 3, 6, 6});
    ValueId c = b.node("Conv", "conv",
                       {x, b.constant("w", random_tensor({4, 3, 3, 3}, 1)),
                        b.constant("b", random_tensor({4}, 2))},
                       attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    Tensor var = random_tensor({4}, 6);
    for (int64_t i = 0; i < 4; ++i) var.data<float>()[i] = std::abs(var.data<float>()[i]) + 0.5f;
    ValueId bn = b.node(
        "BatchNormalization", "bn",
        {c, b.constant("s", random_tensor({4}, 3)), b.constant("beta", random_tensor({4}, 4)),
         b.constant("mean", random_tensor({4}, 5)), b.constant("var", var)},
        attrs_of({{"epsilon", 1e-3f}}));
    ValueId y = b.node("Relu", "relu", {bn});
    Graph original = b.finish({y});
    Graph g = passes::simplify(original);
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Conv Relu"));
    QCOMPARE(g.nodes[0].name, std::string("conv"));
    QCOMPARE(g.value(g.nodes[0].outputs[0]).name, std::string("bn_out"));
    Tensor tx = random_tensor({1, 3, 6, 6}, 7);
    const double err = normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
  }

  // A BatchNormalization that cannot fold into a Conv (the Conv's output is
  // read twice here) becomes a per-channel scale and shift.
  void batchNormStaysApartWhenConvOutputIsShared() {
    Builder b;
    ValueId x = b.input("x", {1, 2, 4, 4});
    ValueId c = b.node("Conv", "conv", {x, b.constant("w", random_tensor({2, 2, 1, 1}, 1))});
    ValueId bn = b.node(
        "BatchNormalization", "bn",
        {c, b.constant("s", random_tensor({2}, 2)), b.constant("beta", random_tensor({2}, 3)),
         b.constant("mean", random_tensor({2}, 4)),
         b.constant("var", Tensor::from_vector<float>({0.5f, 2.0f}, {2}))});
    ValueId y = b.node("Add", "add", {bn, c});
    Graph original = b.finish({y});
    Graph g = passes::simplify(original);
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Conv Mul Add Add"));
    QCOMPARE(g.type(g.nodes[1].inputs[1]).shape, (Shape{2, 1, 1}));
    QVERIFY(g.find_node("bn") >= 0);
    Tensor tx = random_tensor({1, 2, 4, 4}, 7);
    const double err = normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
  }

  void scaleAndShiftFoldIntoConv() {
    Builder b;
    ValueId x = b.input("x", {1, 2, 5, 5});
    ValueId c = b.node("Conv", "conv", {x, b.constant("w", random_tensor({3, 2, 3, 3}, 1))});
    ValueId m = b.node("Mul", "scale", {b.constant("k", random_tensor({3, 1, 1}, 2)), c});
    ValueId a = b.node("Add", "shift", {m, b.constant("t", random_tensor({1, 3, 1, 1}, 3))});
    ValueId s = b.node("Mul", "half", {a, b.constant("h", Tensor::scalar<float>(0.5f))});
    ValueId y = b.node("Add", "not_per_channel", {s, b.constant("u", random_tensor({3}, 4))});
    Graph original = b.finish({y});
    Graph g = passes::simplify(original);
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Conv Add"));
    QCOMPARE(g.value(g.nodes[0].outputs[0]).name, std::string("half_out"));
    QVERIFY(g.nodes[0].has_input(2));  // the shift made a bias
    Tensor tx = random_tensor({1, 2, 5, 5}, 7);
    const double err = normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
  }

  void scaleAndShiftFoldIntoGemm_data() {
    QTest::addColumn<int>("transB");
    QTest::addColumn<bool>("withC");
    QTest::newRow("transB, C") << 1 << true;
    QTest::newRow("B, no C") << 0 << false;
  }

  void scaleAndShiftFoldIntoGemm() {
    QFETCH(int, transB);
    QFETCH(bool, withC);
    Builder b;
    ValueId x = b.input("x", {3, 4});
    std::vector<ValueId> in = {
        x, b.constant("w", random_tensor(transB ? Shape{5, 4} : Shape{4, 5}, 1))};
    if (withC) in.push_back(b.constant("c", random_tensor({1, 5}, 2)));
    ValueId gm = b.node("Gemm", "gemm", in,
                        attrs_of({{"transB", int64_t{transB}}, {"alpha", 0.5f}, {"beta", 2.0f}}));
    ValueId m = b.node("Mul", "scale", {gm, b.constant("k", random_tensor({5}, 3))});
    ValueId a = b.node("Add", "shift", {m, b.constant("t", random_tensor({1, 5}, 4))});
    Graph original = b.finish({a});
    Graph g = passes::simplify(original);
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Gemm"));
    QCOMPARE(g.value(g.outputs[0]).name, std::string("shift_out"));
    // A constant B is read untransposed.
    QCOMPARE(g.nodes[0].attrs.get_int("transB", 0), int64_t{0});
    QCOMPARE(g.type(g.nodes[0].inputs[1]).shape, (Shape{4, 5}));
    Tensor tx = random_tensor({3, 4}, 7);
    const double err = normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
  }

  void sharedGemmWeightIsTransposedForItsGemmOnly() {
    Builder b;
    ValueId x = b.input("x", {2, 4});
    ValueId w = b.constant("w", random_tensor({4, 4}, 1));
    ValueId g1 = b.node("Gemm", "g1", {x, w}, attrs_of({{"transB", int64_t{1}}}));
    ValueId g2 = b.node("MatMul", "g2", {x, w});
    Graph original = b.finish({g1, g2});
    Graph g = passes::simplify(original);
    QCOMPARE(g.nodes[0].attrs.get_int("transB", 0), int64_t{0});
    QVERIFY(g.nodes[0].inputs[1] != g.nodes[1].inputs[1]);
    Tensor tx = random_tensor({2, 4}, 7);
    auto got = run(g, {{"x", tx}});
    auto want = run(original, {{"x", tx}});
    QVERIFY(normalized_error(got[0], want[0]) <= 1e-6);
    QVERIFY(normalized_error(got[1], want[1]) <= 1e-6);
  }

  void matmulOfTransposeBecomesGemm() {
    Builder b;
    ValueId x = b.input("x", {3, 4});
    ValueId w = b.input("w", {5, 4});
    ValueId wt = b.node("Transpose", "wt", {w}, attrs_of({{"perm", std::vector<int64_t>{1, 0}}}));
    ValueId xt = b.node("Transpose", "xt", {x});
    ValueId y = b.node("MatMul", "mm", {x, wt});
    ValueId z = b.node("MatMul", "mm2", {xt, b.constant("k", random_tensor({3, 2}, 1))});
    Graph original = b.finish({y, z});
    Graph g = passes::simplify(original);
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("Gemm Gemm"));
    QCOMPARE(g.nodes[0].attrs.get_int("transB", 0), int64_t{1});
    QCOMPARE(g.nodes[1].attrs.get_int("transA", 0), int64_t{1});
    QCOMPARE(g.nodes[0].inputs[1], g.find_value("w"));
    Tensor tx = random_tensor({3, 4}, 7), tw = random_tensor({5, 4}, 8);
    auto got = run(g, {{"x", tx}, {"w", tw}});
    auto want = run(original, {{"x", tx}, {"w", tw}});
    QVERIFY(normalized_error(got[0], want[0]) <= 1e-6);
    QVERIFY(normalized_error(got[1], want[1]) <= 1e-6);
  }

  void convLayoutIsAlteredAndSunk() {
    Builder b;
    ValueId x = b.input("x", {1, 3, 8, 8});
    ValueId c1 = b.node("Conv", "conv1",
                        {x, b.constant("w1", random_tensor({24, 3, 3, 3}, 1)),
                         b.constant("b1", random_tensor({24}, 2))},
                        attrs_of({{"auto_pad", std::string("SAME_UPPER")},
                                  {"strides", std::vector<int64_t>{2, 2}}}));
    ValueId r1 = b.node("Relu", "relu1", {c1});
    ValueId dw =
        b.node("Conv", "dw", {r1, b.constant("w2", random_tensor({24, 1, 3, 3}, 3))},
               attrs_of({{"group", int64_t{24}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    ValueId clip = b.node("Clip", "clip",
                          {dw, b.constant("lo", Tensor::scalar<float>(0.0f)),
                           b.constant("hi", Tensor::scalar<float>(0.5f))});
    ValueId sc =
        b.node("Mul", "per_channel", {clip, b.constant("k", random_tensor({24, 1, 1}, 4))});
    ValueId add = b.node("Add", "residual", {sc, r1});
    ValueId pool = b.node("GlobalAveragePool", "pool", {add});
    Graph original = b.finish({pool});

    Graph altered = passes::alter_conv_layout(original);
    altered.verify();
    QCOMPARE(count_op(altered, "Conv"), 0);
    QCOMPARE(count_op(altered, "Conv2dNCHWc"), 2);
    const Node& conv1 = altered.nodes[static_cast<size_t>(altered.find_node("conv1"))];
    QCOMPARE(conv1.op, std::string("Conv2dNCHWc"));
    QCOMPARE(altered.type(conv1.outputs[0]).shape, Shape({1, 3, 4, 4, 8}));
    QCOMPARE(altered.type(conv1.inputs[1]).shape, Shape({3, 1, 3, 3, 3, 8}));
    QCOMPARE(conv1.attrs.get_ints("pads"), std::vector<int64_t>({0, 0, 1, 1}));
    const Node& depthwise = altered.nodes[static_cast<size_t>(altered.find_node("dw"))];
    QCOMPARE(altered.type(depthwise.inputs[1]).shape, Shape({3, 1, 3, 3, 1, 8}));
    for (const char* sunk : {"relu1", "clip", "per_channel", "residual"}) {
      const Node& n = altered.nodes[static_cast<size_t>(altered.find_node(sunk))];
      QVERIFY2(altered.type(n.outputs[0]).rank() == 5, sunk);
    }
    // The pool runs blocked too; its back transform gives the graph output.
    const Node& pool_node = altered.nodes[static_cast<size_t>(altered.find_node("pool"))];
    QCOMPARE(pool_node.attrs.get_string("layout", ""), std::string("NCHW8c"));
    QCOMPARE(altered.type(pool_node.outputs[0]).shape, Shape({1, 3, 1, 1, 8}));
    QCOMPARE(altered.value(altered.outputs[0]).name, std::string("pool_out"));

    Graph folded = passes::fold_constants(altered);
    Graph cancelled = passes::cancel_layout_transforms(folded);
    cancelled.verify();
    // Left: the input's transform and the one after the pool.
    QCOMPARE(count_op(cancelled, "LayoutTransform"), 2);
    QCOMPARE(count_op(cancelled, "Reshape"), 0);
    Tensor tx = random_tensor({1, 3, 8, 8}, 9);
    const Tensor want = run(original, {{"x", tx}})[0];
    for (const Graph* g : {&altered, &cancelled}) {
      const double err = normalized_error(run(*g, {{"x", tx}})[0], want);
      QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
    }
  }

  void poolsRunBlocked() {
    // conv -> relu -> MaxPool (ceil mode, padded) -> conv -> AveragePool; a
    // MaxPool with Indices stays NCHW, since they count NCHW positions.
    Builder b;
    ValueId x = b.input("x", {1, 8, 9, 9});
    auto conv = [&](const std::string& name, ValueId in, uint32_t seed) {
      return b.node("Conv", name, {in, b.constant(name + "_w", random_tensor({16, 8, 3, 3}, seed))},
                    attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    };
    ValueId r = b.node("Relu", "relu", {conv("conv1", x, 1)});
    ValueId mp = b.node("MaxPool", "max", {r},
                        attrs_of({{"kernel_shape", std::vector<int64_t>{3, 3}},
                                  {"strides", std::vector<int64_t>{2, 2}},
                                  {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                                  {"ceil_mode", int64_t{1}}}));
    ValueId c2 = b.node("Conv", "conv2", {mp, b.constant("w2", random_tensor({8, 16, 3, 3}, 2))},
                        attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    ValueId ap = b.node("AveragePool", "avg", {c2},
                        attrs_of({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                  {"pads", std::vector<int64_t>{0, 0, 1, 1}}}));
    std::vector<ValueId> with_indices = b.node_n(
        "MaxPool", "indexed", {r}, attrs_of({{"kernel_shape", std::vector<int64_t>{2, 2}}}), 2);
    Graph original = b.finish({ap, with_indices[0], with_indices[1]});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    QCOMPARE(node("max").attrs.get_string("layout", ""), std::string("NCHW16c"));
    QCOMPARE(g.type(node("max").outputs[0]).shape, Shape({1, 1, 5, 5, 16}));
    QCOMPARE(node("avg").attrs.get_string("layout", ""), std::string("NCHW8c"));
    QVERIFY(!node("indexed").attrs.has("layout"));
    // conv2 reads the pool's blocked output: no transform between them.
    QCOMPARE(g.value(node("conv2").inputs[0]).name, g.value(node("max").outputs[0]).name);
    Tensor tx = random_tensor({1, 8, 9, 9}, 7);
    const std::vector<Tensor> want = run(original, {{"x", tx}}), got = run(g, {{"x", tx}});
    for (size_t k = 0; k < 2; ++k) {
      const double err = normalized_error(got[k], want[k]);
      QVERIFY2(err <= 1e-6, qPrintable(QString("output %1: %2").arg(k).arg(err)));
    }
    QCOMPARE(got[2].shape(), want[2].shape());
    QVERIFY(std::equal(want[2].data<int64_t>(), want[2].data<int64_t>() + want[2].numel(),
                       got[2].data<int64_t>()));
  }

  void concatRunsBlocked() {
    // Two convs (16 channels each) and an NCHW input concatenated on
    // channels, as in a dense block, then scaled per channel: all blocked. A
    // Concat with an input of 4 channels (not whole blocks) stays NCHW.
    Builder b;
    ValueId x = b.input("x", {1, 8, 5, 5});
    ValueId skip = b.input("skip", {1, 16, 5, 5});
    ValueId narrow = b.input("narrow", {1, 4, 5, 5});
    auto conv = [&](const std::string& name, uint32_t seed) {
      return b.node("Conv", name, {x, b.constant(name + "_w", random_tensor({16, 8, 3, 3}, seed))},
                    attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    };
    ValueId c1 = conv("conv1", 1), c2 = conv("conv2", 2);
    ValueId cat = b.node("Concat", "cat", {c1, skip, c2}, attrs_of({{"axis", int64_t{-3}}}));
    ValueId scaled = b.node("Mul", "scale", {cat, b.constant("k", random_tensor({48, 1, 1}, 3))});
    ValueId mixed = b.node("Concat", "mixed", {c1, narrow}, attrs_of({{"axis", int64_t{1}}}));
    Graph original = b.finish({scaled, mixed});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    QCOMPARE(g.type(node("cat").outputs[0]).shape, Shape({1, 3, 5, 5, 16}));
    QCOMPARE(node("cat").attrs.get_int("axis", 0), int64_t{1});
    QCOMPARE(g.value(node("cat").inputs[0]).name, g.value(node("conv1").outputs[0]).name);
    QCOMPARE(g.type(node("scale").outputs[0]).rank(), 5);
    QCOMPARE(g.type(node("mixed").outputs[0]).shape, Shape({1, 20, 5, 5}));
    Tensor tx = random_tensor({1, 8, 5, 5}, 7), ts = random_tensor({1, 16, 5, 5}, 8),
           tn = random_tensor({1, 4, 5, 5}, 9);
    const std::map<std::string, Tensor> in = {{"x", tx}, {"skip", ts}, {"narrow", tn}};
    const std::vector<Tensor> want = run(original, in), got = run(g, in);
    for (size_t k = 0; k < 2; ++k) {
      const double err = normalized_error(got[k], want[k]);
      QVERIFY2(err <= 1e-6, qPrintable(QString("output %1: %2").arg(k).arg(err)));
    }
  }

  void conv1dRunsBlocked() {
    // Dilated 1-D convs with a residual, as in a TCN: they run as 2-D
    // convs of height 1, blocked, and so do the ops between them.
    using V = std::vector<int64_t>;
    Builder b;
    ValueId x = b.input("x", {1, 16, 12});
    ValueId c1 = b.node("Conv", "conv1",
                        {x, b.constant("w1", random_tensor({16, 16, 3}, 1)),
                         b.constant("b1", random_tensor({16}, 2))},
                        attrs_of({{"dilations", V{2}}, {"pads", V{2, 2}}}));
    ValueId r = b.node("Relu", "relu", {c1});
    ValueId sc = b.node("Mul", "per_channel", {r, b.constant("k", random_tensor({16, 1}, 3))});
    ValueId add = b.node("Add", "residual", {sc, x});
    ValueId c2 = b.node("Conv", "conv2", {add, b.constant("w2", random_tensor({8, 16, 4}, 4))},
                        attrs_of({{"strides", V{2}}, {"auto_pad", std::string("SAME_UPPER")}}));
    Graph original = b.finish({c2});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    QCOMPARE(count_op(g, "Conv"), 0);
    QCOMPARE(count_op(g, "Conv2dNCHWc"), 2);
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    QCOMPARE(g.type(node("conv1").outputs[0]).shape, Shape({1, 1, 1, 12, 16}));
    QCOMPARE(node("conv1").attrs.get_ints("dilations"), V({1, 2}));
    QCOMPARE(node("conv2").attrs.get_ints("pads"), V({0, 1, 0, 1}));
    for (const char* sunk : {"relu", "per_channel", "residual"})
      QVERIFY2(g.type(node(sunk).outputs[0]).rank() == 5, sunk);
    // conv2 reads the residual's blocked value directly.
    QCOMPARE(node("conv2").inputs[0], node("residual").outputs[0]);
    QCOMPARE(g.type(g.outputs[0]).shape, Shape({1, 8, 6}));
    Tensor tx = random_tensor({1, 16, 12}, 9);
    const double err = normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
  }

  void reductionsOverSpaceRunBlocked() {
    // Reductions of conv outputs over their spatial axes reduce the blocked
    // value (keepdims or not, all spatial axes or one, axes as attribute or
    // as input, 1-D and 2-D); one over the channels stays NCHW.
    using V = std::vector<int64_t>;
    Builder b;
    ValueId x = b.input("x", {1, 8, 5, 6});
    ValueId c = b.node("Conv", "conv", {x, b.constant("w", random_tensor({16, 8, 3, 3}, 1))},
                       attrs_of({{"pads", V{1, 1, 1, 1}}}));
    ValueId plane_max = b.node("ReduceMax", "plane_max", {c},
                               attrs_of({{"axes", V{2, 3}}, {"keepdims", int64_t{0}}}));
    ValueId row_mean = b.node("ReduceMean", "row_mean", {c}, attrs_of({{"axes", V{-1}}}));
    ValueId channel_max = b.node("ReduceMax", "channel_max", {c}, attrs_of({{"axes", V{1}}}));
    ValueId s = b.input("s", {1, 8, 12});
    ValueId c1 = b.node("Conv", "conv1d", {s, b.constant("w1", random_tensor({16, 8, 3}, 2))});
    ValueId time_sum = b.node("ReduceSum", "time_sum",
                              {c1, b.constant("axes", Tensor::from_vector<int64_t>({2}, {1}))});
    Graph original = b.finish({plane_max, row_mean, channel_max, time_sum});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    QCOMPARE(g.type(node("plane_max").outputs[0]).shape, Shape({1, 1, 1, 1, 16}));
    QCOMPARE(node("plane_max").inputs[0], node("conv").outputs[0]);
    QCOMPARE(g.type(node("row_mean").outputs[0]).shape, Shape({1, 1, 5, 1, 16}));
    QCOMPARE(g.type(node("time_sum").outputs[0]).shape, Shape({1, 1, 1, 1, 16}));
    QCOMPARE(node("time_sum").inputs[0], node("conv1d").outputs[0]);
    QCOMPARE(g.type(node("channel_max").inputs[0]).rank(), 4);
    const QString bad = output_mismatches(
        original, g, {{"x", random_tensor({1, 8, 5, 6}, 3)}, {"s", random_tensor({1, 8, 12}, 4)}},
        {{1, 16}, {1, 16, 5, 1}, {1, 1, 5, 6}, {1, 16, 1}});
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
  }

  void gatesAndMapsBroadcastBlocked() {
    // An SE block's gate ([1, C, 1, 1], computed by convs) and a spatial
    // attention map ([1, 1, H, W]: a channel mean, and a one-filter conv)
    // scale the blocked value where it is; a map of another batch does not.
    using V = std::vector<int64_t>;
    Builder b;
    ValueId x = b.input("x", {1, 8, 5, 6});
    ValueId c = b.node("Conv", "conv", {x, b.constant("w", random_tensor({16, 8, 3, 3}, 1))},
                       attrs_of({{"pads", V{1, 1, 1, 1}}}));
    ValueId pooled = b.node("GlobalAveragePool", "pool", {c});
    ValueId squeeze =
        b.node("Conv", "squeeze", {pooled, b.constant("ws", random_tensor({4, 16, 1, 1}, 2))});
    ValueId excite =
        b.node("Conv", "excite", {squeeze, b.constant("we", random_tensor({16, 4, 1, 1}, 3))});
    ValueId gate = b.node("Sigmoid", "gate", {excite});
    ValueId se = b.node("Mul", "se", {c, gate});
    ValueId mean = b.node("ReduceMean", "channel_mean", {se}, attrs_of({{"axes", V{1}}}));
    ValueId attended = b.node("Mul", "attend", {se, mean});
    ValueId spot =
        b.node("Conv", "spot", {attended, b.constant("wm", random_tensor({1, 16, 3, 3}, 4))},
               attrs_of({{"pads", V{1, 1, 1, 1}}}));
    ValueId spotted = b.node("Mul", "spotted", {attended, spot});
    ValueId other = b.input("other", {2, 1, 5, 6});
    ValueId batch = b.node("Mul", "batch", {spotted, other});
    Graph original = b.finish({spotted, batch});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    for (const char* blocked : {"se", "attend", "spotted"})
      QVERIFY2(g.type(node(blocked).outputs[0]).shape == Shape({1, 1, 5, 6, 16}), blocked);
    QCOMPARE(node("se").inputs[1], node("gate").outputs[0]);
    QCOMPARE(g.type(node("batch").outputs[0]).rank(), 4);
    const QString bad = output_mismatches(
        original, g,
        {{"x", random_tensor({1, 8, 5, 6}, 5)}, {"other", random_tensor({2, 1, 5, 6}, 6)}},
        {{1, 16, 5, 6}, {2, 16, 5, 6}});
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
  }

  void resizesOfSpaceRunBlocked() {
    // Bilinear upsampling by scales, nearest by sizes, a 1-D linear one:
    // blocked; a Resize that scales the channels stays NCHW.
    using V = std::vector<int64_t>;
    Builder b;
    ValueId x = b.input("x", {1, 8, 5, 6});
    ValueId c = b.node("Conv", "conv", {x, b.constant("w", random_tensor({16, 8, 3, 3}, 1))},
                       attrs_of({{"pads", V{1, 1, 1, 1}}}));
    auto floats = [](std::vector<float> v) {
      return Tensor::from_vector<float>(v, {static_cast<int64_t>(v.size())});
    };
    ValueId up = b.node("Resize", "up", {c, kNoValue, b.constant("scales", floats({1, 1, 2, 2}))},
                        attrs_of({{"mode", std::string("linear")}}));
    ValueId near = b.node("Resize", "near",
                          {c, kNoValue, kNoValue,
                           b.constant("sizes", Tensor::from_vector<int64_t>({1, 16, 7, 9}, {4}))},
                          attrs_of({{"mode", std::string("nearest")}}));
    ValueId deep =
        b.node("Resize", "deep", {c, kNoValue, b.constant("deep_scales", floats({1, 2, 1, 1}))});
    ValueId s = b.input("s", {1, 8, 12});
    ValueId c1 = b.node("Conv", "conv1d", {s, b.constant("w1", random_tensor({16, 8, 3}, 2))});
    ValueId line =
        b.node("Resize", "line", {c1, kNoValue, b.constant("line_scales", floats({1, 1, 3}))},
               attrs_of({{"mode", std::string("linear")},
                         {"coordinate_transformation_mode", std::string("align_corners")}}));
    Graph original = b.finish({up, near, deep, line});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    QCOMPARE(g.type(node("up").outputs[0]).shape, Shape({1, 1, 10, 12, 16}));
    QCOMPARE(node("up").inputs[0], node("conv").outputs[0]);
    QCOMPARE(g.type(node("near").outputs[0]).shape, Shape({1, 1, 7, 9, 16}));
    QCOMPARE(g.type(node("line").outputs[0]).shape, Shape({1, 1, 1, 30, 16}));
    QCOMPARE(g.type(node("deep").inputs[0]).rank(), 4);
    const QString bad = output_mismatches(
        original, g, {{"x", random_tensor({1, 8, 5, 6}, 3)}, {"s", random_tensor({1, 8, 12}, 4)}},
        {{1, 16, 10, 12}, {1, 16, 7, 9}, {1, 32, 5, 6}, {1, 16, 30}});
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
  }

  void convsOfOneInputShareItsTransform() {
    // A TextCNN: three 1-D convs of widths 3, 4, 5 over one embedding, each
    // max-pooled over time: one forward transform of the embedding.
    Builder b;
    ValueId e = b.input("embedding", {1, 16, 12});
    std::vector<ValueId> pooled;
    for (int64_t width : {3, 4, 5}) {
      const std::string name = "conv" + std::to_string(width);
      ValueId c =
          b.node("Conv", name,
                 {e, b.constant(name + "_w", random_tensor({16, 16, width}, uint32_t(width)))});
      pooled.push_back(
          b.node("ReduceMax", name + "_max", {c},
                 attrs_of({{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{0}}})));
    }
    Graph original = b.finish(pooled);
    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    int forward = 0;
    for (const Node& n : g.nodes)
      forward += n.op == "LayoutTransform" && n.attrs.get_string("src_layout", "") == "NCHW";
    QCOMPARE(forward, 1);
    const QString bad = output_mismatches(
        original, g, {{"embedding", random_tensor({1, 16, 12}, 4)}}, {{1, 16}, {1, 16}, {1, 16}});
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
  }

  void convsReadTheBlockTheirInputHas() {
    // A Ghost module: two 36-channel convs (blocks of 12) concatenated into
    // 72 channels, whose own block would be 8. The depthwise conv and the
    // dense conv after it read the Concat's blocks of 12: no transform.
    using V = std::vector<int64_t>;
    Builder b;
    ValueId x = b.input("x", {1, 16, 6, 6});
    ValueId primary =
        b.node("Conv", "primary", {x, b.constant("wp", random_tensor({36, 16, 1, 1}, 1))});
    ValueId cheap =
        b.node("Conv", "cheap", {primary, b.constant("wc", random_tensor({36, 1, 3, 3}, 2))},
               attrs_of({{"pads", V{1, 1, 1, 1}}, {"group", int64_t{36}}}));
    ValueId ghost = b.node("Concat", "ghost", {primary, cheap}, attrs_of({{"axis", int64_t{1}}}));
    ValueId dw = b.node("Conv", "dw", {ghost, b.constant("wd", random_tensor({72, 1, 3, 3}, 3))},
                        attrs_of({{"pads", V{1, 1, 1, 1}}, {"group", int64_t{72}}}));
    ValueId dense =
        b.node("Conv", "dense", {dw, b.constant("wn", random_tensor({24, 72, 1, 1}, 4))});
    Graph original = b.finish({dense});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    QCOMPARE(g.type(node("ghost").outputs[0]).shape, Shape({1, 6, 6, 6, 12}));
    QCOMPARE(node("dw").inputs[0], node("ghost").outputs[0]);
    QCOMPARE(g.type(node("dw").outputs[0]).shape, Shape({1, 6, 6, 6, 12}));
    QCOMPARE(node("dense").inputs[0], node("dw").outputs[0]);
    QCOMPARE(count_op(g, "LayoutTransform"), 2);  // x in, the result out
    Tensor tx = random_tensor({1, 16, 6, 6}, 5);
    const double err = normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
  }

  void slimFilterBlocksArePadded() {
    // 58 filters would block by 2: they compute as 64 (4 zero filters), the
    // back transform slices them off; 1-D likewise. 40 filters block by 8
    // and a 58-filter depthwise conv cannot take zero filters: unpadded.
    Builder b;
    ValueId x = b.input("x", {1, 8, 6, 6});
    ValueId wide = b.node("Conv", "wide",
                          {x, b.constant("w1", random_tensor({58, 8, 1, 1}, 1)),
                           b.constant("b1", random_tensor({58}, 2))});
    ValueId r = b.node("Relu", "relu", {wide});
    ValueId dw = b.node("Conv", "dw", {r, b.constant("w2", random_tensor({58, 1, 3, 3}, 3))},
                        attrs_of({{"group", int64_t{58}}}));
    ValueId narrow =
        b.node("Conv", "narrow", {x, b.constant("w3", random_tensor({40, 8, 1, 1}, 4))});
    ValueId x1 = b.input("x1", {1, 8, 10});
    ValueId line = b.node("Conv", "line", {x1, b.constant("w4", random_tensor({58, 8, 3}, 5))});
    // A pose head's 17 keypoints would block by 1 (17 scalar filters): 32,
    // two vectors, though that nearly doubles them.
    ValueId head = b.node("Conv", "head", {x, b.constant("w5", random_tensor({17, 8, 1, 1}, 6))});
    // 264 filters block by 8 (half vectors): 272 whole ones add 3 % to the
    // work, so they pad, where 40's 48 would add 20 % and do not.
    ValueId classes =
        b.node("Conv", "classes", {x, b.constant("w6", random_tensor({264, 8, 1, 1}, 9))});
    Graph original = b.finish({dw, narrow, line, head, classes});

    Graph g = passes::cancel_layout_transforms(
        passes::fold_constants(passes::alter_conv_layout(original)));
    g.verify();
    auto node = [&](const char* name) -> const Node& {
      return g.nodes[static_cast<size_t>(g.find_node(name))];
    };
    QCOMPARE(g.type(node("wide").outputs[0]).shape, Shape({1, 4, 6, 6, 16}));
    QCOMPARE(g.type(node("line").outputs[0]).shape, Shape({1, 4, 1, 8, 16}));
    QCOMPARE(g.type(node("narrow").outputs[0]).shape, Shape({1, 5, 6, 6, 8}));
    QCOMPARE(g.type(node("dw").outputs[0]).shape, Shape({1, 29, 4, 4, 2}));
    QCOMPARE(g.type(node("head").outputs[0]).shape, Shape({1, 2, 6, 6, 16}));
    QCOMPARE(g.type(node("classes").outputs[0]).shape, Shape({1, 17, 6, 6, 16}));
    QCOMPARE(count_op(g, "Slice"), 4);
    Tensor tx = random_tensor({1, 8, 6, 6}, 7), tx1 = random_tensor({1, 8, 10}, 8);
    const std::map<std::string, Tensor> in = {{"x", tx}, {"x1", tx1}};
    const std::vector<Tensor> want = run(original, in), got = run(g, in);
    for (size_t k = 0; k < want.size(); ++k) {
      const double err = normalized_error(got[k], want[k]);
      QVERIFY2(err <= 1e-6, qPrintable(QString("output %1: %2").arg(k).arg(err)));
    }
  }

  void blockedPoolInferenceChecksLayout() {
    Builder b;
    ValueId x = b.input("x", {1, 2, 4, 4, 8});
    Node pool;
    pool.name = "pool";
    pool.op = "MaxPool";
    pool.inputs = {x};
    pool.outputs = {b.g.add_value("y", {})};
    pool.attrs =
        attrs_of({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"layout", std::string("NCHW8c")}});
    QCOMPARE(passes::infer_types(b.g, pool)[0].shape, Shape({1, 2, 3, 3, 8}));
    pool.attrs.set("layout", std::string("NCHW4c"));  // the block is 8
    QVERIFY_THROWS_EXCEPTION(Error, passes::infer_types(b.g, pool));
    pool.attrs.set("layout", std::string("OIHW"));
    QVERIFY_THROWS_EXCEPTION(Error, passes::infer_types(b.g, pool));
    pool.attrs.set("layout", std::string("NCHW8c"));
    pool.outputs.push_back(b.g.add_value("indices", {}));
    QVERIFY_THROWS_EXCEPTION(Error, passes::infer_types(b.g, pool));
  }

  // Groups of 4 in blocks of 8 nest: the blocked kernel reads each group's
  // lanes from its own input block.
  void groupedConvNestingBlocksIsBlocked() {
    Builder b;
    ValueId x = b.input("x", {1, 8, 4, 4});
    ValueId c = b.node("Conv", "grouped", {x, b.constant("w", random_tensor({8, 4, 1, 1}, 1))},
                       attrs_of({{"group", int64_t{2}}}));
    Graph g = passes::alter_conv_layout(b.finish({c}));
    QCOMPARE(joined(ops_of(g)), QString("LayoutTransform LayoutTransform Conv2dNCHWc "
                                        "LayoutTransform"));
  }

  // 4 input and 8 output channels a group against blocks of 8: an output
  // block's lanes would read from two input blocks, so the conv stays NCHW.
  void groupedConvNotNestingStaysNchw() {
    Builder b;
    ValueId x = b.input("x", {1, 8, 4, 4});
    ValueId c = b.node("Conv", "grouped", {x, b.constant("w", random_tensor({16, 4, 1, 1}, 1))},
                       attrs_of({{"group", int64_t{2}}}));
    Graph g = passes::alter_conv_layout(b.finish({c}));
    QCOMPARE(joined(ops_of(g)), QString("Conv"));
  }

  void inverseTransformsCancelAndDuplicatesMerge() {
    Builder b;
    ValueId x = b.input("x", {1, 8, 2, 2});
    ValueId t1 = b.node("LayoutTransform", "t1", {x}, transform_attrs("NCHW", "NCHW4c"));
    ValueId r = b.node("Relu", "relu", {t1});
    ValueId back = b.node("LayoutTransform", "back", {r}, transform_attrs("NCHW4c", "NCHW"));
    ValueId again = b.node("LayoutTransform", "again", {back}, transform_attrs("NCHW", "NCHW4c"));
    ValueId twin = b.node("LayoutTransform", "twin", {x}, transform_attrs("NCHW", "NCHW4c"));
    ValueId a = b.node("Add", "add", {again, twin});
    ValueId out = b.node("LayoutTransform", "out", {a}, transform_attrs("NCHW4c", "NCHW"));
    Graph original = b.finish({out});
    Graph g = passes::cancel_layout_transforms(original);
    g.verify();
    QCOMPARE(joined(ops_of(g)), QString("LayoutTransform Relu Add LayoutTransform"));
    const Node& add = g.nodes[static_cast<size_t>(g.find_node("add"))];
    QCOMPARE(g.value(add.inputs[0]).name, std::string("relu_out"));
    QCOMPARE(g.value(add.inputs[1]).name, std::string("t1_out"));
    Tensor tx = random_tensor({1, 8, 2, 2}, 3);
    QCOMPARE(normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]), 0.0);
  }

  void snakeCaseNames() {
    QCOMPARE(passes::snake_case_op("Conv2dNCHWc"), std::string("conv2dnchwc"));
    QCOMPARE(passes::snake_case_op("LayoutTransform"), std::string("layout_transform"));
    QCOMPARE(passes::snake_case_op("GlobalAveragePool"), std::string("global_average_pool"));
    QCOMPARE(passes::snake_case_op("Relu"), std::string("relu"));
    QCOMPARE(passes::snake_case_op("com.microsoft.QLinearAdd"),
             std::string("com_microsoft_qlinear_add"));
  }

  void fusionFollowsTvmRules() {
    // conv -> add(bias) -> relu -> [exp, neg] -> add: a diamond after relu;
    // softmax (opaque) alone; transpose -> reshape -> reduce.
    Builder b;
    ValueId x = b.input("x", {1, 2, 4, 4});
    ValueId c = b.node("Conv", "conv", {x, b.constant("w", random_tensor({2, 2, 1, 1}, 1))});
    ValueId a = b.node("Add", "bias", {c, b.constant("bias", random_tensor({2, 1, 1}, 2))});
    ValueId r = b.node("Relu", "relu", {a});
    ValueId e = b.node("Exp", "exp", {r});
    ValueId n = b.node("Neg", "neg", {r});
    ValueId s = b.node("Add", "join", {e, n});
    ValueId sm = b.node("Softmax", "softmax", {s}, attrs_of({{"axis", int64_t{1}}}));
    ValueId t = b.node("Transpose", "transpose", {sm},
                       attrs_of({{"perm", std::vector<int64_t>{0, 2, 3, 1}}}));
    ValueId sq = b.node("Sqrt", "sqrt", {t});
    ValueId red = b.node("ReduceSum", "sum",
                         {sq, b.constant("axes", Tensor::from_vector<int64_t>({3}, {1}))});
    ValueId conv2 = b.node("Conv", "conv2", {x, b.constant("w2", random_tensor({2, 2, 1, 1}, 3))});
    ValueId r2 = b.node("Relu", "relu2", {conv2});
    Graph g = b.finish({red, r2, conv2});
    std::vector<passes::FusedGroup> groups = passes::fuse_ops(g);
    QStringList names;
    for (const auto& grp : groups) names << QString::fromStdString(grp.name);
    QCOMPARE(
        names.join(' '),
        QString("fused_conv_add_relu_exp_neg_add fused_softmax fused_transpose_sqrt_reduce_sum "
                "fused_conv fused_relu"));
    QCOMPARE(groups[0].anchor, g.find_node("conv"));
    QCOMPARE(groups[0].kind, FusionKind::OutEWiseFusable);
    QCOMPARE(groups[0].inputs, std::vector<ValueId>({x, g.find_value("w"), g.find_value("bias")}));
    QCOMPARE(groups[0].outputs, std::vector<ValueId>({s}));
    QCOMPARE(groups[2].anchor, g.find_node("sum"));
    QCOMPARE(groups[2].kind, FusionKind::CommReduce);
    QCOMPARE(groups[3].outputs, std::vector<ValueId>({conv2}));  // a graph output ends its group
    QCOMPARE(groups[4].inputs, std::vector<ValueId>({conv2}));
    for (size_t k = 0; k < groups.size(); ++k) QCOMPARE(groups[k].id, static_cast<int>(k));
  }

  void anchorsDoNotFuseEpiloguesThatBroadcastThem() {
    // An SE gate: conv over the pooled [1, C, 1, 1] -> Sigmoid -> Mul by
    // the [1, C, H, W] activation. The Mul would recompute the Sigmoid for
    // every pixel: the conv keeps its Sigmoid, the Mul is a kernel of its own.
    Builder b;
    ValueId x = b.input("x", {1, 4, 6, 6});
    ValueId pooled = b.input("pooled", {1, 4, 1, 1});
    ValueId c = b.node("Conv", "excite", {pooled, b.constant("w", random_tensor({4, 4, 1, 1}, 1))});
    ValueId gate = b.node("Sigmoid", "gate", {c});
    ValueId se = b.node("Mul", "se", {x, gate});
    std::vector<passes::FusedGroup> groups = passes::fuse_ops(b.finish({se}));
    QStringList names;
    for (const auto& grp : groups) names << QString::fromStdString(grp.name);
    QCOMPARE(names.join(' '), QString("fused_conv_sigmoid fused_mul"));
  }

  void upsamplingsDoNotTakeInTheirProducers() {
    // A 4x bilinear Resize reads 4 input elements per output element: fused
    // in, the Add before it would be redone 64 times per input element. It
    // stays a kernel of its own; a 1.5x Resize (2.25 outputs per input)
    // takes its Relu in.
    auto floats = [](std::vector<float> v) {
      return Tensor::from_vector<float>(v, {static_cast<int64_t>(v.size())});
    };
    Builder b;
    ValueId x = b.input("x", {1, 3, 8, 8});
    ValueId sum = b.node("Add", "sum", {x, x});
    ValueId up = b.node("Resize", "up", {sum, kNoValue, b.constant("scales", floats({1, 1, 4, 4}))},
                        attrs_of({{"mode", std::string("linear")}}));
    ValueId relu = b.node("Relu", "relu", {x});
    ValueId small = b.node("Resize", "small",
                           {relu, kNoValue, b.constant("small_scales", floats({1, 1, 1.5, 1.5}))},
                           attrs_of({{"mode", std::string("linear")}}));
    std::vector<passes::FusedGroup> groups = passes::fuse_ops(b.finish({up, small}));
    QStringList names;
    for (const auto& grp : groups) names << QString::fromStdString(grp.name);
    QCOMPARE(names.join(' '), QString("fused_add fused_resize fused_relu_resize"));
  }

  void fusionNamesAreUnique() {
    Builder b;
    ValueId x = b.input("x", {4});
    ValueId y = b.node("Softmax", "s1", {x});
    ValueId z = b.node("Softmax", "s2", {y});
    ValueId w = b.node("Softmax", "s3", {z});
    std::vector<passes::FusedGroup> groups = passes::fuse_ops(b.finish({w}));
    QCOMPARE(groups.size(), size_t{3});
    QCOMPARE(groups[0].name, std::string("fused_softmax"));
    QCOMPARE(groups[1].name, std::string("fused_softmax_1"));
    QCOMPARE(groups[2].name, std::string("fused_softmax_2"));
  }

  // Every ConvTranspose geometry ONNX allows with group 1 and unit dilation,
  // lowered, against the reference ConvTranspose on the original graph.
  void convTransposeBecomesSubpixelConv_data() {
    QTest::addColumn<Shape>("x");
    QTest::addColumn<Shape>("w");
    QTest::addColumn<Attributes>("attrs");
    QTest::addColumn<bool>("bias");
    QTest::addColumn<int>("slices");
    using V = std::vector<int64_t>;
    QTest::newRow("unet 2x2 stride 2")
        << Shape{1, 4, 5, 5} << Shape{4, 3, 2, 2} << attrs_of({{"strides", V{2, 2}}}) << true << 0;
    QTest::newRow("3x3 stride 2 pad 1 output_padding 1")
        << Shape{1, 4, 5, 6} << Shape{4, 3, 3, 3}
        << attrs_of({{"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}, {"output_padding", V{1, 1}}})
        << false << 1;
    QTest::newRow("dcgan 4x4 stride 2 pad 1")
        << Shape{2, 3, 4, 4} << Shape{3, 5, 4, 4}
        << attrs_of({{"strides", V{2, 2}}, {"pads", V{1, 1, 1, 1}}}) << true << 1;
    QTest::newRow("stride 1") << Shape{1, 3, 6, 6} << Shape{3, 2, 3, 3}
                              << attrs_of({{"pads", V{1, 0, 1, 2}}}) << true << 0;
    QTest::newRow("uneven strides and kernels")
        << Shape{1, 2, 4, 5} << Shape{2, 3, 3, 5}
        << attrs_of({{"strides", V{2, 3}}, {"pads", V{0, 2, 1, 1}}}) << true << 1;
    QTest::newRow("kernel below stride")
        << Shape{1, 2, 3, 3} << Shape{2, 2, 2, 1} << attrs_of({{"strides", V{3, 2}}}) << false << 1;
    QTest::newRow("same upper") << Shape{1, 2, 5, 5} << Shape{2, 3, 3, 3}
                                << attrs_of({{"strides", V{2, 2}},
                                             {"auto_pad", std::string("SAME_UPPER")}})
                                << true << 0;
    QTest::newRow("output_shape") << Shape{1, 2, 3, 3} << Shape{2, 2, 3, 3}
                                  << attrs_of({{"strides", V{3, 2}}, {"output_shape", V{10, 8}}})
                                  << false << 1;
    QTest::newRow("1-d") << Shape{1, 4, 7} << Shape{4, 2, 5}
                         << attrs_of({{"strides", V{3}}, {"pads", V{2, 1}}}) << true << 1;
    QTest::newRow("3-d") << Shape{1, 2, 3, 4, 3} << Shape{2, 3, 2, 3, 2}
                         << attrs_of({{"strides", V{2, 1, 2}}}) << true << 0;
  }

  void convTransposeBecomesSubpixelConv() {
    QFETCH(Shape, x);
    QFETCH(Shape, w);
    QFETCH(Attributes, attrs);
    QFETCH(bool, bias);
    QFETCH(int, slices);
    Builder b;
    ValueId in = b.input("x", x);
    std::vector<ValueId> inputs = {in, b.constant("w", random_tensor(w, 3))};
    if (bias) inputs.push_back(b.constant("b", random_tensor({w[1]}, 4)));
    ValueId y = b.node("ConvTranspose", "up", inputs, attrs);
    ValueId r = b.node("Relu", "relu", {y});
    Graph original = b.finish({r});
    Graph g = passes::lower_conv_transpose(original);
    g.verify();
    QCOMPARE(count_op(g, "ConvTranspose"), 0);
    QCOMPARE(count_op(g, "Conv"), 1);
    QCOMPARE(count_op(g, "Slice"), slices);
    // The output value keeps its name, type and reader.
    QCOMPARE(g.type(g.find_value("up_out")), original.type(original.find_value("up_out")));
    QVERIFY(g.find_node("up") >= 0);
    Tensor tx = random_tensor(x, 5);
    const double err = normalized_error(run(g, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));
  }

  void convTransposeOutsideTheFormStays() {
    using V = std::vector<int64_t>;
    Builder b;
    ValueId x = b.input("x", {1, 4, 4, 4});
    ValueId grouped =
        b.node("ConvTranspose", "grouped", {x, b.constant("w1", random_tensor({4, 1, 2, 2}, 1))},
               attrs_of({{"strides", V{2, 2}}, {"group", int64_t{2}}}));
    ValueId dilated =
        b.node("ConvTranspose", "dilated", {x, b.constant("w2", random_tensor({4, 2, 2, 2}, 2))},
               attrs_of({{"dilations", V{2, 2}}}));
    ValueId runtime_weight = b.node("ConvTranspose", "runtime", {x, b.input("w3", {4, 2, 2, 2})});
    Graph g = passes::lower_conv_transpose(b.finish({grouped, dilated, runtime_weight}));
    QCOMPARE(count_op(g, "ConvTranspose"), 3);
    QCOMPARE(count_op(g, "Conv"), 0);
  }

  void pipelineRecordsEveryPass() {
    Builder b;
    ValueId x = b.input("x", {1, 4, 4, 4});
    ValueId c = b.node("Conv", "conv", {x, b.constant("w", random_tensor({16, 4, 3, 3}, 1))},
                       attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    ValueId id = b.node("Identity", "id", {c});
    ValueId r = b.node("Relu", "relu", {id});
    Graph original = b.finish({r});
    passes::OptimizedGraph opt = passes::optimize_graph(original);
    QStringList passes_run;
    for (const auto& s : opt.snapshots) passes_run << QString::fromStdString(s.pass);
    QCOMPARE(passes_run.join(' '),
             QString("eliminate_dead_code drop_qdq_pairs canonicalize_qnn fold_constants simplify "
                     "fold_constants lower_conv_transpose prune_padding_taps lower_conv3d "
                     "fold_constants alter_int8_conv_layout shift_matmul_integer_data "
                     "pad_matmul_integer_columns "
                     "pack_matmul_integer "
                     "alter_conv_layout "
                     "fold_constants "
                     "cancel_layout_transforms eliminate_dead_code fuse_ops"));
    for (size_t k = 0; k + 1 < opt.snapshots.size(); ++k) QVERIFY(opt.snapshots[k].groups.empty());
    QCOMPARE(opt.snapshots.back().groups.size(), opt.groups.size());
    QCOMPARE(joined(ops_of(opt.graph)),
             QString("LayoutTransform Conv2dNCHWc Relu LayoutTransform"));
    QCOMPARE(opt.groups.size(), size_t{3});
    QCOMPARE(opt.groups[1].name, std::string("fused_conv2dnchwc_relu"));
    QCOMPARE(opt.graph.value(opt.graph.outputs[0]).name, std::string("relu_out"));
    Tensor tx = random_tensor({1, 4, 4, 4}, 2);
    const double err =
        normalized_error(run(opt.graph, {{"x", tx}})[0], run(original, {{"x", tx}})[0]);
    QVERIFY2(err <= 1e-6, qPrintable(QString::number(err)));

    passes::OptimizedGraph plain =
        passes::optimize_graph(original, {.alter_layout = false,
                                          .record_snapshots = false,
                                          .vector_unit = {},
                                          .external_codegens = std::nullopt});
    QVERIFY(plain.snapshots.empty());
    QCOMPARE(joined(ops_of(plain.graph)), QString("Conv Relu"));
  }
};

QTEST_GUILESS_MAIN(TestPasses)
#include "tst_passes.moc"

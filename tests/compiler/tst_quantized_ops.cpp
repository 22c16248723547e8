// The quantized ops on both executors, on small graphs whose results are
// worked out by hand in the comments (ONNX Runtime's arithmetic: division by
// the scale, round half to even, saturation; requantize as
// float(acc + bias) * (x_scale * w_scale / y_scale)): QuantizeLinear,
// DequantizeLinear per channel, QLinearConv, QGemm, MatMulInteger,
// QLinearAdd, QLinearMul, QLinearGlobalAveragePool. A QDQ Conv region is canonicalized
// into ConvInteger and agrees with the float reference within one
// quantization step; ONNX's node tests for these ops run in
// tst_onnx_conformance.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "reference/executor.h"

using namespace lathe;
using lathe::testing::attrs_of;

namespace {

template <typename T>
Tensor tensor(std::vector<T> values, Shape shape) {
  return Tensor::from_vector<T>(values, std::move(shape));
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

struct Outputs {
  Tensor reference, compiled;
  Graph optimized;
};

// Runs a one-output graph on both executors with the given inputs (in the
// order of the graph's inputs).
Outputs run_both(const Graph& graph, const std::vector<Tensor>& inputs) {
  std::map<std::string, Tensor> by_name;
  for (size_t i = 0; i < inputs.size(); ++i) by_name[graph.value(graph.inputs[i]).name] = inputs[i];
  Outputs out;
  out.reference = reference::Executor(graph).run(by_name)[0];
  driver::CompileOptions options;
  options.passes.record_snapshots = false;
  const driver::CompiledGraph compiled = driver::compile_graph(graph, options);
  out.optimized = compiled.optimized.graph;
  driver::JitGraphModule module(compiled, options.target);
  runtime::GraphExecutor& exec = module.executor();
  for (size_t i = 0; i < inputs.size(); ++i)
    exec.set_input(exec.input_name(static_cast<int>(i)), inputs[i].raw(), inputs[i].nbytes());
  exec.run();
  out.compiled = driver::from_ndarray(exec.output(0));
  return out;
}

bool has_op(const Graph& g, const std::string& op) {
  return std::ranges::any_of(g.nodes, [&](const Node& n) { return n.op == op; });
}

}  // namespace

class TestQuantizedOps : public QObject {
  Q_OBJECT

 private slots:
  // x / 1 + zp, rounded half to even and saturated: 0.5 -> 0, 1.5 -> 2,
  // 2.5 -> 2, -1.5 -> -2, 300 -> 127 (int8) or 255 (uint8).
  void quantizeRoundsHalfToEvenAndSaturates() {
    const std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300.0f, -300.0f, 3.49f};
    for (DType t : {DType::Int8, DType::UInt8}) {
      lathe::testing::GraphBuilder b;
      const ValueId in = b.input("x", {8});
      const ValueId zp = t == DType::Int8 ? b.constant("zp", Tensor::scalar<int8_t>(0))
                                          : b.constant("zp", Tensor::scalar<uint8_t>(0));
      const ValueId y =
          b.node("QuantizeLinear", "q", {in, b.constant("s", Tensor::scalar(1.0f)), zp});
      const Outputs out = run_both(b.finish({y}), {tensor(x, {8})});
      if (t == DType::Int8) {
        const std::vector<int8_t> expected = {0, 2, 2, 0, -2, 127, -128, 3};
        QCOMPARE(values<int8_t>(out.reference), expected);
        QCOMPARE(values<int8_t>(out.compiled), expected);
      } else {
        const std::vector<uint8_t> expected = {0, 2, 2, 0, 0, 255, 0, 3};
        QCOMPARE(values<uint8_t>(out.reference), expected);
        QCOMPARE(values<uint8_t>(out.compiled), expected);
      }
    }
  }

  // Per channel along axis 0: row 0 scale 0.5 zp 0, row 1 scale 2 zp 1.
  void dequantizePerChannel() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {2, 3}, DType::Int8);
    const ValueId y = b.node("DequantizeLinear", "dq",
                             {x, b.constant("s", tensor<float>({0.5f, 2.0f}, {2})),
                              b.constant("zp", tensor<int8_t>({0, 1}, {2}))},
                             attrs_of({{"axis", int64_t{0}}}));
    const Outputs out = run_both(b.finish({y}), {tensor<int8_t>({-128, 0, 127, 1, 2, 3}, {2, 3})});
    const std::vector<float> expected = {-64.0f, 0.0f, 63.5f, 0.0f, 2.0f, 4.0f};
    QCOMPARE(values<float>(out.reference), expected);
    QCOMPARE(values<float>(out.compiled), expected);
  }

  // 1x1 QLinearConv: x - 10 = [0, 1, 2, 240], times w = 5, + bias 1 =
  // [1, 6, 11, 1201]; times 0.5 * 0.25 / 0.25 = 0.5: [0.5, 3, 5.5, 600.5];
  // rounded half to even [0, 3, 6, 600], + y_zp 5, saturated: [5, 8, 11, 255].
  void qlinearConvRequantizes() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 1, 2, 2}, DType::UInt8);
    const ValueId y = b.node(
        "QLinearConv", "qconv",
        {x, b.constant("xs", Tensor::scalar(0.5f)), b.constant("xzp", Tensor::scalar<uint8_t>(10)),
         b.constant("w", tensor<int8_t>({5}, {1, 1, 1, 1})),
         b.constant("ws", tensor<float>({0.25f}, {1})), b.constant("wzp", tensor<int8_t>({0}, {1})),
         b.constant("ys", Tensor::scalar(0.25f)), b.constant("yzp", Tensor::scalar<uint8_t>(5)),
         b.constant("bias", tensor<int32_t>({1}, {1}))});
    const Outputs out = run_both(b.finish({y}), {tensor<uint8_t>({10, 11, 12, 250}, {1, 1, 2, 2})});
    const std::vector<uint8_t> expected = {5, 8, 11, 255};
    QCOMPARE(values<uint8_t>(out.reference), expected);
    QCOMPARE(values<uint8_t>(out.compiled), expected);
    QVERIFY(has_op(out.optimized, "ConvInteger"));
    QVERIFY(!has_op(out.optimized, "QLinearConv"));
  }

  // A - 1 = [2, 3]; B - [1, 2] per column = [[4, 0], [2, 2]]: [14, 6].
  void matmulIntegerPerColumnZeroPoint() {
    lathe::testing::GraphBuilder b;
    const ValueId a = b.input("a", {1, 2}, DType::UInt8);
    const ValueId y = b.node("MatMulInteger", "mmi",
                             {a, b.constant("b", tensor<uint8_t>({5, 2, 3, 4}, {2, 2})),
                              b.constant("azp", Tensor::scalar<uint8_t>(1)),
                              b.constant("bzp", tensor<uint8_t>({1, 2}, {2}))});
    const Outputs out = run_both(b.finish({y}), {tensor<uint8_t>({3, 4}, {1, 2})});
    const std::vector<int32_t> expected = {14, 6};
    QCOMPARE(values<int32_t>(out.reference), expected);
    QCOMPARE(values<int32_t>(out.compiled), expected);
  }

  // QGemm, transB: A - 10 = [2, 4]; B rows [1, 2] and [3, -1]: [10, 2], + C
  // [1, 0] = [11, 2]; quantized with 0.5 * 1 / 0.5 = 1: [11, 2]; without a
  // y_scale, scaled to float by 0.5: [5.5, 1].
  void qgemmQuantizedAndFloatOutputs() {
    for (bool quantized : {true, false}) {
      lathe::testing::GraphBuilder b;
      const ValueId a = b.input("a", {1, 2}, DType::UInt8);
      std::vector<ValueId> inputs = {a,
                                     b.constant("as", Tensor::scalar(0.5f)),
                                     b.constant("azp", Tensor::scalar<uint8_t>(10)),
                                     b.constant("b", tensor<int8_t>({1, 2, 3, -1}, {2, 2})),
                                     b.constant("bs", Tensor::scalar(1.0f)),
                                     b.constant("bzp", Tensor::scalar<int8_t>(0)),
                                     b.constant("c", tensor<int32_t>({1, 0}, {2}))};
      if (quantized) {
        inputs.push_back(b.constant("ys", Tensor::scalar(0.5f)));
        inputs.push_back(b.constant("yzp", Tensor::scalar<uint8_t>(0)));
      }
      const ValueId y =
          b.node("com.microsoft.QGemm", "qgemm", inputs, attrs_of({{"transB", int64_t{1}}}));
      const Outputs out = run_both(b.finish({y}), {tensor<uint8_t>({12, 14}, {1, 2})});
      if (quantized) {
        const std::vector<uint8_t> expected = {11, 2};
        QCOMPARE(values<uint8_t>(out.reference), expected);
        QCOMPARE(values<uint8_t>(out.compiled), expected);
      } else {
        const std::vector<float> expected = {5.5f, 1.0f};
        QCOMPARE(values<float>(out.reference), expected);
        QCOMPARE(values<float>(out.compiled), expected);
      }
    }
  }

  // r_a = 0.1 / 0.1 = 1, r_b = 0.2 / 0.1 = 2, fixed = 0 - (100 + 2 * 50):
  // a = [100, 101, 110, 250], b = [50, 50, 51, 110]: [0, 1, 12, 270 -> 255].
  void qlinearAdd() {
    lathe::testing::GraphBuilder b;
    const ValueId a = b.input("a", {4}, DType::UInt8);
    const ValueId c = b.input("b", {4}, DType::UInt8);
    const ValueId y = b.node(
        "com.microsoft.QLinearAdd", "qadd",
        {a, b.constant("as", Tensor::scalar(0.1f)), b.constant("azp", Tensor::scalar<uint8_t>(100)),
         c, b.constant("bs", Tensor::scalar(0.2f)), b.constant("bzp", Tensor::scalar<uint8_t>(50)),
         b.constant("cs", Tensor::scalar(0.1f)), b.constant("czp", Tensor::scalar<uint8_t>(0))});
    const Outputs out = run_both(b.finish({y}), {tensor<uint8_t>({100, 101, 110, 250}, {4}),
                                                 tensor<uint8_t>({50, 50, 51, 110}, {4})});
    const std::vector<uint8_t> expected = {0, 1, 12, 255};
    QCOMPARE(values<uint8_t>(out.reference), expected);
    QCOMPARE(values<uint8_t>(out.compiled), expected);
  }

  // The fixed part as ORT's kernel computes it, contracted: with r_a =
  // 0.0427 / 0.0718 and r_b = 0.004 / 0.0718, fixed = 117 - fma(r_a, 131,
  // r_b * 152) = 30.62535 (30.625359 as a separate product and sum). a = 18,
  // b = 21 then lands on 42.5 exactly, which rounds to even: 42, as ONNX
  // Runtime 1.30 gives (the separate sum gives 42.500008 -> 43); a = b = 0:
  // round(30.62535) = 31.
  void qlinearAddFixedPartIsContracted() {
    lathe::testing::GraphBuilder b;
    const ValueId a = b.input("a", {2}, DType::UInt8);
    const ValueId c = b.input("b", {2}, DType::UInt8);
    const ValueId y = b.node(
        "com.microsoft.QLinearAdd", "qadd",
        {a, b.constant("as", Tensor::scalar(0.0427f)),
         b.constant("azp", Tensor::scalar<uint8_t>(131)), c,
         b.constant("bs", Tensor::scalar(0.004f)), b.constant("bzp", Tensor::scalar<uint8_t>(152)),
         b.constant("cs", Tensor::scalar(0.0718f)),
         b.constant("czp", Tensor::scalar<uint8_t>(117))});
    const Outputs out =
        run_both(b.finish({y}), {tensor<uint8_t>({18, 0}, {2}), tensor<uint8_t>({21, 0}, {2})});
    const std::vector<uint8_t> expected = {42, 31};
    QCOMPARE(values<uint8_t>(out.reference), expected);
    QCOMPARE(values<uint8_t>(out.compiled), expected);
  }

  // (a - 10) * (b - 1) = [0, 40, 10], times 0.5 * 0.25 / 0.5 = 0.25, + 3 in
  // float (as ORT's kernel adds the zero point before rounding): [3, 13, 5.5
  // -> 6]; rounding before adding it would give 2 + 3 = 5.
  void qlinearMulAddsZeroPointBeforeRounding() {
    lathe::testing::GraphBuilder b;
    const ValueId a = b.input("a", {3}, DType::UInt8);
    const ValueId c = b.input("b", {3}, DType::UInt8);
    const ValueId y = b.node(
        "com.microsoft.QLinearMul", "qmul",
        {a, b.constant("as", Tensor::scalar(0.5f)), b.constant("azp", Tensor::scalar<uint8_t>(10)),
         c, b.constant("bs", Tensor::scalar(0.25f)), b.constant("bzp", Tensor::scalar<uint8_t>(1)),
         b.constant("cs", Tensor::scalar(0.5f)), b.constant("czp", Tensor::scalar<uint8_t>(3))});
    const Outputs out = run_both(
        b.finish({y}), {tensor<uint8_t>({10, 20, 15}, {3}), tensor<uint8_t>({3, 5, 3}, {3})});
    const std::vector<uint8_t> expected = {3, 13, 6};
    QCOMPARE(values<uint8_t>(out.reference), expected);
    QCOMPARE(values<uint8_t>(out.compiled), expected);
  }

  // Channel 0: 52 - 4 * 10 = 12, times 0.5 / (0.25 * 4) = 0.5: 6, + 3 = 9.
  // Channel 1: 1 - 40 = -39: -19.5 rounds to -20, + 3 = -17, saturates to 0.
  void qlinearGlobalAveragePool() {
    lathe::testing::GraphBuilder b;
    const ValueId x = b.input("x", {1, 2, 2, 2}, DType::UInt8);
    const ValueId y = b.node(
        "com.microsoft.QLinearGlobalAveragePool", "qgap",
        {x, b.constant("xs", Tensor::scalar(0.5f)), b.constant("xzp", Tensor::scalar<uint8_t>(10)),
         b.constant("ys", Tensor::scalar(0.25f)), b.constant("yzp", Tensor::scalar<uint8_t>(3))});
    const Outputs out =
        run_both(b.finish({y}), {tensor<uint8_t>({10, 12, 14, 16, 0, 0, 0, 1}, {1, 2, 2, 2})});
    const std::vector<uint8_t> expected = {9, 0};
    QCOMPARE(values<uint8_t>(out.reference), expected);
    QCOMPARE(values<uint8_t>(out.compiled), expected);
  }

  // QuantizeLinear -> DequantizeLinear -> Conv (weights: DequantizeLinear of
  // int8 per channel, float bias) -> Relu -> QuantizeLinear: compiled, the
  // Conv is ConvInteger (its weights never dequantized) for uint8
  // activations, and stays float for int8 ones (as ONNX Runtime keeps them on
  // x86); every output is within one quantization step of the float reference.
  void qdqConvBecomesInteger_data() {
    QTest::addColumn<bool>("int8_activations");
    QTest::newRow("uint8 activations") << false;
    QTest::newRow("int8 activations") << true;
  }

  void qdqConvBecomesInteger() {
    QFETCH(bool, int8_activations);
    lathe::testing::GraphBuilder b;
    const Shape x_shape = {1, 8, 9, 9};
    const ValueId x = b.input("x", x_shape);
    const ValueId xs = b.constant("xs", Tensor::scalar(0.02f));
    const ValueId xzp = int8_activations ? b.constant("xzp", Tensor::scalar<int8_t>(0))
                                         : b.constant("xzp", Tensor::scalar<uint8_t>(128));
    const ValueId xq = b.node("QuantizeLinear", "xq", {x, xs, xzp});
    const ValueId xd = b.node("DequantizeLinear", "xd", {xq, xs, xzp});
    std::vector<int8_t> w(16 * 8 * 3 * 3);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>((i * 37) % 255 - 127);
    std::vector<float> ws(16), bias(16);
    for (int c = 0; c < 16; ++c) {
      ws[c] = 0.001f * static_cast<float>(c + 1);
      bias[c] = 0.5f + 0.05f * static_cast<float>(c);
    }
    const ValueId wd =
        b.node("DequantizeLinear", "wd",
               {b.constant("w", tensor(w, {16, 8, 3, 3})), b.constant("ws", tensor(ws, {16})),
                b.constant("wzp", Tensor(DType::Int8, {16}))},
               attrs_of({{"axis", int64_t{0}}}));
    const ValueId conv = b.node("Conv", "conv", {xd, wd, b.constant("bias", tensor(bias, {16}))},
                                attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    const ValueId relu = b.node("Relu", "relu", {conv});
    const ValueId y = b.node("QuantizeLinear", "yq",
                             {relu, b.constant("ys", Tensor::scalar(0.05f)),
                              b.constant("yzp", Tensor::scalar<uint8_t>(0))});
    const Outputs out = run_both(b.finish({y}), {lathe::testing::random_tensor(x_shape, 7)});
    // ConvInteger, packed by the int8 layout pass into ConvIntegerNCHWc.
    QCOMPARE(has_op(out.optimized, "ConvIntegerNCHWc"), !int8_activations);
    if (!int8_activations) QVERIFY(!has_op(out.optimized, "Conv"));
    const std::vector<uint8_t> got = values<uint8_t>(out.compiled);
    const std::vector<uint8_t> expected = values<uint8_t>(out.reference);
    int steps = 0, differing = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      steps = std::max(steps, std::abs(int{got[i]} - int{expected[i]}));
      differing += got[i] != expected[i];
    }
    QVERIFY2(steps <= 1, qPrintable(QString("%1 steps off").arg(steps)));
    // The outputs are not all zero: the comparison means something.
    QVERIFY(std::ranges::count(expected, uint8_t{0}) < static_cast<int64_t>(expected.size()) / 2);
    QVERIFY2(differing < static_cast<int>(got.size()) / 20,
             qPrintable(QString("%1 outputs differ").arg(differing)));
  }

  // DQ -> Add / Mul / GlobalAveragePool -> Q with uint8 operands is compiled
  // as ONNX Runtime fuses it, into its QLinear contrib op: the compiled QDQ
  // graph equals, bit for bit, the reference executor on the same region
  // written with the contrib op (ORT's arithmetic), and has no float op left.
  void qdqElementwiseBecomesQLinear_data() {
    QTest::addColumn<QString>("op");
    QTest::newRow("Add") << "Add";
    QTest::newRow("Mul") << "Mul";
    QTest::newRow("GlobalAveragePool") << "GlobalAveragePool";
  }

  void qdqElementwiseBecomesQLinear() {
    QFETCH(QString, op);
    const bool unary = op == "GlobalAveragePool";
    const Shape shape = {1, 8, 5, 5};
    auto build = [&](bool contrib) {
      lathe::testing::GraphBuilder b;
      const ValueId a = b.input("a", shape, DType::UInt8);
      const ValueId c = unary ? kNoValue : b.input("b", shape, DType::UInt8);
      const ValueId as = b.constant("as", Tensor::scalar(0.031f));
      const ValueId azp = b.constant("azp", Tensor::scalar<uint8_t>(131));
      const ValueId bs = b.constant("bs", Tensor::scalar(0.027f));
      const ValueId bzp = b.constant("bzp", Tensor::scalar<uint8_t>(119));
      const ValueId ys = b.constant("ys", Tensor::scalar(unary ? 0.013f : 0.043f));
      const ValueId yzp = b.constant("yzp", Tensor::scalar<uint8_t>(unary ? 120 : 101));
      if (contrib) {
        const std::vector<ValueId> in = unary
                                            ? std::vector<ValueId>{a, as, azp, ys, yzp}
                                            : std::vector<ValueId>{a, as, azp, c, bs, bzp, ys, yzp};
        const std::string name = "com.microsoft.QLinear" + op.toStdString();
        return b.finish({b.node(name, "q", in)});
      }
      std::vector<ValueId> in = {b.node("DequantizeLinear", "ad", {a, as, azp})};
      if (!unary) in.push_back(b.node("DequantizeLinear", "bd", {c, bs, bzp}));
      const ValueId f = b.node(op.toStdString(), "op", in);
      return b.finish({b.node("QuantizeLinear", "q", {f, ys, yzp})});
    };
    std::vector<Tensor> inputs;
    for (uint32_t seed : {3u, 4u}) {
      const Tensor r = lathe::testing::random_tensor(shape, seed);
      std::vector<uint8_t> q(static_cast<size_t>(r.numel()));
      for (size_t i = 0; i < q.size(); ++i)
        q[i] = static_cast<uint8_t>(std::lround((r.data<float>()[i] + 1.0f) * 127.5f));
      inputs.push_back(tensor(q, shape));
    }
    if (unary) inputs.pop_back();
    const Outputs qdq = run_both(build(false), inputs);
    const Outputs qlinear = run_both(build(true), inputs);
    QVERIFY(has_op(qdq.optimized, "com.microsoft.QLinear" + op.toStdString()));
    QVERIFY(!has_op(qdq.optimized, op.toStdString()));
    QCOMPARE(values<uint8_t>(qdq.compiled), values<uint8_t>(qlinear.reference));
    // Not all saturated: the comparison means something.
    const std::vector<uint8_t> got = values<uint8_t>(qdq.compiled);
    QVERIFY(std::ranges::count(got, uint8_t{0}) + std::ranges::count(got, uint8_t{255}) <
            static_cast<int64_t>(got.size()) / 2);
  }
};

QTEST_GUILESS_MAIN(TestQuantizedOps)
#include "tst_quantized_ops.moc"

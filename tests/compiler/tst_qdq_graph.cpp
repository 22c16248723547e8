// The graph around quantized convolutions: DequantizeLinear -> MaxPool /
// data movement -> QuantizeLinear of equal parameters on the integers
// (passes/drop_qdq_pairs.h), the pool blocked between packed int8 convs, the
// RGB stem packed with padded channels, and a MatMulInteger whose column
// count is not a multiple of 16 padded and packed
// (passes/pad_matmul_integer_columns.h), its int8 A shifted to uint8
// (passes/shift_matmul_integer_data.h). Every result is compared exactly
// with the reference executor running the original graph, on pseudo-random
// operands, uint8 and int8, with non-zero zero points.
#include <QtTest>

#include <cstdint>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "int8_graph_run.h"
#include "int8_operands.h"
#include "passes/drop_qdq_pairs.h"
#include "passes/eliminate_dead_code.h"
#include "passes/pad_matmul_integer_columns.h"
#include "passes/shift_matmul_integer_data.h"
#include "reference/executor.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

// A zero point of `dtype` holding `value`.
Tensor zero_point(DType dtype, int value) {
  return dtype == DType::Int8 ? Tensor::scalar<int8_t>(static_cast<int8_t>(value))
                              : Tensor::scalar<uint8_t>(static_cast<uint8_t>(value));
}

// Pseudo-random data of `dtype` over its whole range.
Tensor random_quantized(DType dtype, Shape shape, uint32_t seed) {
  return dtype == DType::Int8 ? random_tensor<int8_t>(std::move(shape), -128, 127, seed)
                              : random_tensor<uint8_t>(std::move(shape), 0, 255, seed);
}

// The integers a graph's output holds, whatever their type.
std::vector<int64_t> integers(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numel(); ++i)
    out.push_back(static_cast<int64_t>(t.element_as_double(i)));
  return out;
}

struct QParams {
  float scale;
  int zero;
};

ValueId dequantize(GraphBuilder& b, const std::string& name, ValueId x, QParams p) {
  const DType dtype = b.g.type(x).dtype;
  return b.node("DequantizeLinear", name,
                {x, b.constant(name + "_s", Tensor::scalar(p.scale)),
                 b.constant(name + "_z", zero_point(dtype, p.zero))});
}

ValueId quantize(GraphBuilder& b, const std::string& name, ValueId x, QParams p, DType dtype) {
  return b.node("QuantizeLinear", name,
                {x, b.constant(name + "_s", Tensor::scalar(p.scale)),
                 b.constant(name + "_z", zero_point(dtype, p.zero))});
}

const Attributes kPool3x3 = attrs_of({{"kernel_shape", std::vector<int64_t>{3, 3}},
                                      {"strides", std::vector<int64_t>{2, 2}},
                                      {"pads", std::vector<int64_t>{1, 1, 1, 1}}});

// The input dtype of the graph's one `op` node.
DType input_dtype(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes)
    if (n.op == op) return g.type(n.inputs[0]).dtype;
  return DType::Bool;
}

// QLinearConv(x, ...) with pseudo-random int8 weights of `filters` x C x k x k,
// per-channel weight scales, activations of x's type with zero point x_zp in
// and y_zp out.
ValueId qlinear_conv(GraphBuilder& b, const std::string& name, ValueId x, int64_t filters,
                     int64_t k, Attributes attrs, int x_zp, int y_zp, uint32_t seed) {
  const int64_t c = b.g.type(x).shape[1];
  const DType dtype = b.g.type(x).dtype;
  std::vector<float> w_scales;
  for (int64_t o = 0; o < filters; ++o) w_scales.push_back(0.01f + 0.001f * static_cast<float>(o));
  return b.node(
      "QLinearConv", name,
      {x, b.constant(name + "_xs", Tensor::scalar(0.05f)),
       b.constant(name + "_xzp", zero_point(dtype, x_zp)),
       b.constant(name + "_w", random_tensor<int8_t>({filters, c, k, k}, -127, 127, seed)),
       b.constant(name + "_ws", Tensor::from_vector<float>(w_scales, {filters})),
       b.constant(name + "_wzp", Tensor(DType::Int8, {filters})),
       b.constant(name + "_ys", Tensor::scalar(0.4f)),
       b.constant(name + "_yzp", zero_point(dtype, y_zp)),
       b.constant(name + "_bias", random_tensor<int32_t>({filters}, -3000, 3000, seed + 1))},
      std::move(attrs));
}

}  // namespace

class TestQdqGraph : public QObject {
  Q_OBJECT

 private slots:
  // DQ -> MaxPool -> Q with one scale and zero point: the pool reads the
  // integers, no QuantizeLinear is left, and the values are the same.
  void maxPoolRunsOnIntegers_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<int>("zero");
    QTest::newRow("uint8, zero point 0") << static_cast<int>(DType::UInt8) << 0;
    QTest::newRow("uint8, zero point 131") << static_cast<int>(DType::UInt8) << 131;
    QTest::newRow("int8, zero point -9") << static_cast<int>(DType::Int8) << -9;
  }
  void maxPoolRunsOnIntegers() {
    QFETCH(int, dtype);
    QFETCH(int, zero);
    const DType t = static_cast<DType>(dtype);
    GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 9, 9}, t);
    const QParams p{0.037f, zero};
    const ValueId pooled = b.node("MaxPool", "pool", {dequantize(b, "dq", x, p)}, kPool3x3);
    const Graph g = b.finish({quantize(b, "q", pooled, p, t)});
    const Graph dropped = passes::eliminate_dead_code(passes::drop_qdq_pairs(g));
    QCOMPARE(input_dtype(dropped, "MaxPool"), t);
    QCOMPARE(count_op(dropped, "QuantizeLinear"), 0);
    QCOMPARE(count_op(dropped, "DequantizeLinear"), 0);
    const Tensor in = random_quantized(t, {1, 16, 9, 9}, 3);
    const std::vector<int64_t> expected = integers(run_reference(g, in));
    QCOMPARE(integers(run_reference(dropped, in)), expected);
    QCOMPARE(integers(run_compiled(g, in).output), expected);
  }

  // Pairs that are not exact stay float: another scale or zero point on
  // the QuantizeLinear, a negative scale (the dequantize is decreasing), a
  // pool whose float output has another reader.
  void otherParametersStay_data() {
    QTest::addColumn<float>("q_scale");
    QTest::addColumn<int>("q_zero");
    QTest::addColumn<float>("dq_scale");
    QTest::addColumn<bool>("second_reader");
    QTest::newRow("scale differs") << 0.05f << 128 << 0.037f << false;
    QTest::newRow("zero point differs") << 0.037f << 127 << 0.037f << false;
    QTest::newRow("negative scale") << -0.037f << 128 << -0.037f << false;
    QTest::newRow("float output read twice") << 0.037f << 128 << 0.037f << true;
  }
  void otherParametersStay() {
    QFETCH(float, q_scale);
    QFETCH(int, q_zero);
    QFETCH(float, dq_scale);
    QFETCH(bool, second_reader);
    GraphBuilder b;
    const ValueId x = b.input("x", {1, 16, 9, 9}, DType::UInt8);
    const ValueId pooled =
        b.node("MaxPool", "pool", {dequantize(b, "dq", x, {dq_scale, 128})}, kPool3x3);
    const ValueId q = quantize(b, "q", pooled, {q_scale, q_zero}, DType::UInt8);
    const Graph g = b.finish(second_reader ? std::vector<ValueId>{q, pooled} : std::vector{q});
    const Graph dropped = passes::drop_qdq_pairs(g);
    QCOMPARE(input_dtype(dropped, "MaxPool"), DType::Float32);
    QCOMPARE(count_op(dropped, "QuantizeLinear"), 1);
    const Tensor in = random_quantized(DType::UInt8, {1, 16, 9, 9}, 5);
    QCOMPARE(integers(run_compiled(g, in).output), integers(run_reference(g, in)));
  }

  // Concat of dequantized inputs, then Flatten, both on the integers: an
  // input of the output's parameters as it is, one of another zero point
  // quantized with the output's parameters before the Concat. A Concat
  // with an input that is not dequantized (a Relu's) stays float.
  void concatAndFlatten_data() {
    QTest::addColumn<int>("second");  // 0: same parameters, 1: another zero point, 2: float
    QTest::addColumn<int>("concat_dtype");
    QTest::addColumn<int>("quantizes");
    QTest::newRow("same parameters") << 0 << static_cast<int>(DType::Int8) << 0;
    QTest::newRow("another zero point") << 1 << static_cast<int>(DType::Int8) << 1;
    QTest::newRow("a float input") << 2 << static_cast<int>(DType::Float32) << 1;
  }
  void concatAndFlatten() {
    QFETCH(int, second);
    QFETCH(int, concat_dtype);
    QFETCH(int, quantizes);
    GraphBuilder b;
    const ValueId x = b.input("x", {1, 4, 3, 3}, DType::Int8);
    const QParams p{0.11f, -3};
    ValueId other = dequantize(b, "dq_b", x, {p.scale, second == 1 ? 5 : p.zero});
    if (second == 2) other = b.node("Relu", "relu", {other});
    const ValueId c = b.node("Concat", "concat", {dequantize(b, "dq_a", x, p), other},
                             attrs_of({{"axis", int64_t{1}}}));
    const ValueId cq = dequantize(b, "dq_c", quantize(b, "q_c", c, p, DType::Int8), p);
    const ValueId f = b.node("Flatten", "flatten", {cq}, attrs_of({{"axis", int64_t{1}}}));
    const Graph g = b.finish({quantize(b, "q_f", f, p, DType::Int8)});
    const Graph dropped = passes::eliminate_dead_code(passes::drop_qdq_pairs(g));
    QCOMPARE(input_dtype(dropped, "Concat"), static_cast<DType>(concat_dtype));
    QCOMPARE(input_dtype(dropped, "Flatten"), DType::Int8);
    QCOMPARE(count_op(dropped, "QuantizeLinear"), quantizes);
    const Tensor in = random_quantized(DType::Int8, {1, 4, 3, 3}, 7);
    const std::vector<int64_t> expected = integers(run_reference(g, in));
    QCOMPARE(integers(run_reference(dropped, in)), expected);
    QCOMPARE(integers(run_compiled(g, in).output), expected);
  }

  // A quantized RGB stem, MaxPool and a second conv, as QDQ CNNs begin:
  // the stem a StemConvInteger (reading the NCHW input), the second conv
  // packed, the pool on the integers in their NCHW16c layout, and one
  // layout transform, at the model's output; the result is the
  // reference's, exactly.
  void stemAndPoolStayBlocked_data() {
    QTest::addColumn<int>("dtype");
    QTest::newRow("uint8") << static_cast<int>(DType::UInt8);
    QTest::newRow("int8") << static_cast<int>(DType::Int8);
  }
  void stemAndPoolStayBlocked() {
    QFETCH(int, dtype);
    const DType t = static_cast<DType>(dtype);
    const bool s8 = t == DType::Int8;
    GraphBuilder b;
    const ValueId x = b.input("x", {1, 3, 20, 18}, t);
    const ValueId stem = qlinear_conv(b, "stem", x, 16, 7,
                                      attrs_of({{"strides", std::vector<int64_t>{2, 2}},
                                                {"pads", std::vector<int64_t>{3, 3, 3, 3}}}),
                                      s8 ? -5 : 123, s8 ? -20 : 9, 41);
    const QParams p{0.4f, s8 ? -20 : 9};
    const ValueId pooled = b.node("MaxPool", "pool", {dequantize(b, "dq", stem, p)}, kPool3x3);
    const ValueId conv = qlinear_conv(b, "conv", quantize(b, "q", pooled, p, t), 16, 3,
                                      attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}),
                                      p.zero, s8 ? 3 : 130, 43);
    const Graph g = b.finish({conv});
    const Tensor in = random_quantized(t, {1, 3, 20, 18}, 9);
    const Compiled out = run_compiled(g, in);
    QCOMPARE(integers(out.output), integers(run_reference(g, in)));
    QCOMPARE(count_op(out.optimized, "StemConvInteger"), 1);
    QCOMPARE(count_op(out.optimized, "ConvIntegerNCHWc"), 1);
    QCOMPARE(count_op(out.optimized, "ConvInteger"), 0);
    QCOMPARE(count_op(out.optimized, "LayoutTransform"), 1);
    for (const Node& n : out.optimized.nodes)
      if (n.op == "MaxPool") {
        QCOMPARE(n.attrs.get_string("layout", "NCHW"), std::string("NCHW16c"));
        QVERIFY(out.optimized.type(n.inputs[0]).dtype != DType::Float32);
      }
  }

  // A MatMulInteger of 40 columns (not a multiple of 16) is packed on B
  // padded to 48 columns, then sliced: exactly MatMulInteger's result, with
  // zero points on A and per column or per tensor on B, or none.
  void oddColumnsArePadded_data() {
    QTest::addColumn<int>("zero_points");  // 0: none, 1: per tensor, 2: B's per column
    QTest::newRow("no zero points") << 0;
    QTest::newRow("per-tensor zero points") << 1;
    QTest::newRow("per-column B zero point") << 2;
  }
  void oddColumnsArePadded() {
    QFETCH(int, zero_points);
    GraphBuilder b;
    const ValueId a = b.input("a", {3, 64}, DType::UInt8);
    std::vector<ValueId> inputs = {a,
                                   b.constant("b", random_tensor<int8_t>({64, 40}, -128, 127, 17))};
    if (zero_points > 0) {
      inputs.push_back(b.constant("az", Tensor::scalar<uint8_t>(119)));
      inputs.push_back(b.constant("bz", zero_points == 1 ? Tensor::scalar<int8_t>(-4)
                                                         : random_tensor<int8_t>({40}, -9, 9, 19)));
    }
    const Graph g = b.finish({b.node("MatMulInteger", "mm", inputs)});
    const Graph padded = passes::pad_matmul_integer_columns(g);
    QCOMPARE(count_op(padded, "Slice"), 1);
    const Tensor in = random_tensor<uint8_t>({3, 64}, 0, 255, 23);
    const std::vector<int32_t> expected = values<int32_t>(run_reference(g, in));
    QCOMPARE(values<int32_t>(run_reference(padded, in)), expected);
    const Compiled out = run_compiled(g, in);
    QCOMPARE(values<int32_t>(out.output), expected);
    QCOMPARE(count_op(out.optimized, "MatMulIntegerPacked"), 1);
    QCOMPARE(count_op(out.optimized, "MatMulInteger"), 0);
  }

  // An int8 A (a QOperator S8 model's classifier) goes to uint8 by +128,
  // its zero point too: packed, and exactly MatMulInteger's result, with a
  // zero point and without, 32 and 40 columns. A zero point that is not a
  // constant stays.
  void int8DataIsShifted() {
    for (const auto& [with_zero, n] : {std::pair{true, 32}, {false, 32}, {true, 40}}) {
      GraphBuilder b;
      const ValueId a = b.input("a", {2, 64}, DType::Int8);
      std::vector<ValueId> inputs = {
          a, b.constant("b", random_tensor<int8_t>({64, n}, -128, 127, 29))};
      if (with_zero) inputs.push_back(b.constant("az", Tensor::scalar<int8_t>(-7)));
      const Graph g = b.finish({b.node("MatMulInteger", "mm", inputs)});
      const Tensor in = random_tensor<int8_t>({2, 64}, -128, 127, 31);
      const Compiled out = run_compiled(g, in);
      QCOMPARE(values<int32_t>(out.output), values<int32_t>(run_reference(g, in)));
      QCOMPARE(count_op(out.optimized, "MatMulIntegerPacked"), 1);
      QCOMPARE(count_op(out.optimized, "MatMulInteger"), 0);
    }
    GraphBuilder b;
    const ValueId a = b.input("a", {2, 64}, DType::Int8);
    const ValueId az = b.input("az", {}, DType::Int8);
    const Graph g = b.finish(
        {b.node("MatMulInteger", "mm",
                {a, b.constant("b", random_tensor<int8_t>({64, 32}, -128, 127, 29)), az})});
    QCOMPARE(count_op(passes::shift_matmul_integer_data(g), "Cast"), 0);
  }
};

QTEST_GUILESS_MAIN(TestQdqGraph)
#include "tst_qdq_graph.moc"

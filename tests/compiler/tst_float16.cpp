// float16 and bfloat16 models: the conversions against values worked out by
// hand and against the CPU's own (F16C, through LLVM's fptrunc), ONNX models
// the test writes (16-bit inputs, outputs, weights and Casts) on the
// reference and the compiled executors against the float32 model with the
// same weights, and the storage types through .npz files, `lathe run`,
// packages and the C API.
#include <onnx/onnx_pb.h>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "../graph_builder.h"
#include "driver/compiled_module.h"
#include "driver/graph_compiler.h"
#include "driver/tensor_files.h"
#include "frontend/onnx/onnx_import.h"
#include "reference/executor.h"
#include "runtime/c_api.h"
#include "support/error.h"
#include "support/npz.h"
#include "te/expr.h"
#include "tir/arith/simplify.h"

using namespace lathe;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ---- ONNX models written by the test ----------------------------------------

using Elem = onnx::TensorProto::DataType;

struct OnnxModel {
  onnx::ModelProto proto;
  onnx::GraphProto* g;

  explicit OnnxModel(int opset = 17) {
    proto.set_ir_version(8);
    proto.add_opset_import()->set_version(opset);
    g = proto.mutable_graph();
    g->set_name("m");
  }
  static void set_type(onnx::ValueInfoProto* v, const std::string& name, Elem elem,
                       const Shape& shape) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    t->mutable_shape();
    for (int64_t d : shape) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void input(const std::string& name, Elem elem, const Shape& shape) {
    set_type(g->add_input(), name, elem, shape);
  }
  void output(const std::string& name, Elem elem, const Shape& shape) {
    set_type(g->add_output(), name, elem, shape);
  }
  // Values exactly representable in `elem`; a 16-bit one is stored as its bit
  // patterns, in raw_data or (as ONNX also allows) in int32_data.
  void initializer(const std::string& name, Elem elem, const Shape& shape,
                   const std::vector<float>& values, bool in_int32_data = false) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (int64_t d : shape) t->add_dims(d);
    if (elem == onnx::TensorProto::FLOAT) {
      for (float v : values) t->add_float_data(v);
      return;
    }
    std::vector<uint16_t> bits;
    for (float v : values)
      bits.push_back(elem == onnx::TensorProto::FLOAT16 ? float_to_half_bits(v)
                                                        : float_to_bfloat16_bits(v));
    if (in_int32_data)
      for (uint16_t b : bits) t->add_int32_data(b);
    else
      t->set_raw_data(std::string(reinterpret_cast<const char*>(bits.data()), bits.size() * 2));
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> inputs,
                        const std::string& output) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(output + "_node");
    for (const std::string& in : inputs) n->add_input(in);
    n->add_output(output);
    return n;
  }
  static void int_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void ints_attr(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  Graph import() const { return onnx_frontend::import_model_bytes(bytes(), "m.onnx", "."); }
  std::string bytes() const { return proto.SerializeAsString(); }
};

// Values in [-1, 1) rounded to `elem`'s precision, so that the float32 model
// given them holds what the 16-bit model holds.
std::vector<float> values_in(Elem elem, int64_t n, uint32_t seed) {
  const Tensor r = testing::random_tensor({n}, seed);
  std::vector<float> v(r.data<float>(), r.data<float>() + n);
  for (float& x : v)
    x = elem == onnx::TensorProto::FLOAT16 ? static_cast<float>(Float16(x))
                                           : static_cast<float>(BFloat16(x));
  return v;
}

// A small convolutional net (Conv, Relu, Add, GlobalAveragePool, Flatten,
// Gemm) with input, output and weights of type `elem`; the float32 model with
// the same (exactly widened) weights is its oracle.
OnnxModel conv_net(Elem elem) {
  const Elem storage = onnx::TensorProto::FLOAT16;
  OnnxModel m;
  m.input("x", elem, {1, 3, 6, 6});
  m.initializer("w", elem, {4, 3, 3, 3}, values_in(storage, 108, 1));
  m.initializer("b", elem, {4}, values_in(storage, 4, 2), /*in_int32_data=*/true);
  m.initializer("shift", elem, {4, 1, 1}, values_in(storage, 4, 3));
  m.initializer("fc_w", elem, {5, 4}, values_in(storage, 20, 4));
  m.initializer("fc_b", elem, {5}, values_in(storage, 5, 5));
  onnx::NodeProto* conv = m.node("Conv", {"x", "w", "b"}, "conv");
  OnnxModel::ints_attr(conv, "pads", {1, 1, 1, 1});
  m.node("Relu", {"conv"}, "relu");
  m.node("Add", {"relu", "shift"}, "shifted");
  m.node("GlobalAveragePool", {"shifted"}, "pooled");
  m.node("Flatten", {"pooled"}, "flat");
  onnx::NodeProto* gemm = m.node("Gemm", {"flat", "fc_w", "fc_b"}, "y");
  OnnxModel::int_attr(gemm, "transB", 1);
  m.output("y", elem, {1, 5});
  return m;
}

Tensor half_tensor(const std::vector<float>& values, Shape shape) {
  Tensor t(DType::Float16, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<Float16>()[i] = Float16(values[i]);
  return t;
}

Tensor float_tensor(const Tensor& t) {
  return widened_to_compute(t);
}

// The float32 oracle's output rounded to float16, beside the output of the
// float16 model; every element within `ulps` units in the last place of
// float16 (a different summation order may round the other way).
void compare_to_rounded(const Tensor& got, const Tensor& oracle, int ulps, const char* what) {
  QCOMPARE(got.dtype(), DType::Float16);
  QCOMPARE(got.shape(), oracle.shape());
  for (int64_t i = 0; i < got.numel(); ++i) {
    const uint16_t want = float_to_half_bits(oracle.data<float>()[i]);
    const uint16_t have = got.data<Float16>()[i].bits;
    // Same-signed halves are ordered as their bit patterns.
    const int distance = std::abs(int(want & 0x7fff) * ((want & 0x8000) ? -1 : 1) -
                                  int(have & 0x7fff) * ((have & 0x8000) ? -1 : 1));
    QVERIFY2(distance <= ulps, qPrintable(QString("%1: element %2 is %3, the oracle rounds to %4")
                                              .arg(what)
                                              .arg(i)
                                              .arg(static_cast<float>(Float16::from_bits(have)))
                                              .arg(static_cast<float>(Float16::from_bits(want)))));
  }
}

Tensor run_compiled_once(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  return driver::run_compiled(graph, inputs)[0];
}

// x -> Cast(to) -> Mul(3, stored as `to`) -> Cast(float): what a model with
// float32 I/O and 16-bit compute (ORT's float16 converter's keep_io_types)
// looks like.
OnnxModel cast_model(Elem to, int64_t n) {
  OnnxModel m;
  m.input("x", onnx::TensorProto::FLOAT, {n});
  m.initializer("three", to, {}, {3.0f});
  OnnxModel::int_attr(m.node("Cast", {"x"}, "x16"), "to", to);
  m.node("Mul", {"x16", "three"}, "tripled");
  OnnxModel::int_attr(m.node("Cast", {"tripled"}, "y"), "to", onnx::TensorProto::FLOAT);
  m.output("y", onnx::TensorProto::FLOAT, {n});
  return m;
}

struct Rounding {
  float in;
  float rounded;  // worked out by hand
};

// Round to nearest, ties to even, at float16's 11 significant bits.
const std::vector<Rounding> kHalfRoundings = {
    {1.0f, 1.0f},
    {0.1f, 0.0999755859375f},
    {1.0f + 0x1p-11f, 1.0f},                        // halfway: to the even 1.0
    {1.0f + 3 * 0x1p-11f, 1.0f + 0x1p-9f},          // halfway: to the even 1 + 2^-9
    {1.0f + 0x1p-11f + 0x1p-20f, 1.0f + 0x1p-10f},  // above halfway
    {2049.0f, 2048.0f},                             // spacing 2 from 2048: a tie, to even
    {2051.0f, 2052.0f},
    {-2051.0f, -2052.0f},
    {65504.0f, 65504.0f},  // the largest float16
    {65519.0f, 65504.0f},
    {65520.0f, kInf},  // halfway to 2^16: overflows
    {-1e6f, -kInf},
    {0x1p-24f, 0x1p-24f},                     // the smallest subnormal
    {0x1p-25f, 0.0f},                         // halfway to it: the even zero
    {0x1.8p-25f, 0x1p-24f},                   // above halfway
    {0x1p-14f - 0x1p-26f, 0x1p-14f},          // a subnormal rounding up to the smallest normal
    {3 * 0x1p-24f + 0x1p-25f, 4 * 0x1p-24f},  // subnormal tie to even
    {kInf, kInf},
};

// bfloat16 keeps float32's exponent and 8 significant bits.
const std::vector<Rounding> kBFloatRoundings = {
    {1.0f, 1.0f},
    {1.0f + 0x1p-8f, 1.0f},                       // halfway: to the even 1.0
    {1.0f + 3 * 0x1p-8f, 1.0f + 0x1p-6f},         // halfway: to the even 1 + 2^-6
    {1.0f + 0x1p-8f + 0x1p-20f, 1.0f + 0x1p-7f},  // above halfway
    {0.1f, 0.10009765625f},
    {257.0f, 256.0f},
    {259.0f, 260.0f},
    {-259.0f, -260.0f},
    {0x1.ff8p127f, kInf},  // halfway past the largest bfloat16: overflows
    {kInf, kInf},
};

bool same_float(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

}  // namespace

class TestFloat16 : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  QString path(const QString& name) const { return dir_.filePath(name); }

 private slots:
  // ---- The conversions ------------------------------------------------------

  void halfConversionsRoundToNearestEven() {
    for (const Rounding& r : kHalfRoundings) {
      QVERIFY2(same_float(static_cast<float>(Float16(r.in)), r.rounded),
               qPrintable(QString("%1 -> %2, expected %3")
                              .arg(double(r.in), 0, 'g', 10)
                              .arg(double(static_cast<float>(Float16(r.in))), 0, 'g', 10)
                              .arg(double(r.rounded), 0, 'g', 10)));
      QCOMPARE(Float16(-r.in).bits, static_cast<uint16_t>(Float16(r.in).bits ^ 0x8000));
    }
    QCOMPARE(Float16(1.0f).bits, uint16_t{0x3c00});
    QCOMPARE(Float16(-2.0f).bits, uint16_t{0xc000});
    QCOMPARE(Float16(65504.0f).bits, uint16_t{0x7bff});
    QCOMPARE(Float16(0x1p-24f).bits, uint16_t{0x0001});
    QCOMPARE(Float16(-0.0f).bits, uint16_t{0x8000});
    QVERIFY(std::isnan(static_cast<float>(Float16(kNaN))));
    // Every float16 widens exactly and narrows back to itself.
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const auto h = Float16::from_bits(static_cast<uint16_t>(b));
      const float f = static_cast<float>(h);
      if (std::isnan(f)) {
        QVERIFY((b & 0x7c00) == 0x7c00 && (b & 0x3ff) != 0);
        continue;
      }
      QCOMPARE(Float16(f).bits, h.bits);
    }
    // And the widening has float16's values: 2^-24 steps below 2^-14.
    QCOMPARE(static_cast<float>(Float16::from_bits(0x0003)), 3 * 0x1p-24f);
    QCOMPARE(static_cast<float>(Float16::from_bits(0x3555)), 0.333251953125f);
    QCOMPARE(static_cast<float>(Float16::from_bits(0xfc00)), -kInf);
  }

  void bfloatConversionsRoundToNearestEven() {
    for (const Rounding& r : kBFloatRoundings) {
      QVERIFY2(same_float(static_cast<float>(BFloat16(r.in)), r.rounded),
               qPrintable(QString("%1 -> %2, expected %3")
                              .arg(double(r.in), 0, 'g', 10)
                              .arg(double(static_cast<float>(BFloat16(r.in))), 0, 'g', 10)
                              .arg(double(r.rounded), 0, 'g', 10)));
    }
    QCOMPARE(BFloat16(1.0f).bits, uint16_t{0x3f80});
    QCOMPARE(BFloat16(3.4e38f).bits, uint16_t{0x7f80});  // past the largest bfloat16: infinity
    QCOMPARE(BFloat16(-0x1.fep127f).bits, uint16_t{0xff7f});
    // A NaN whose payload lies in the dropped half stays a NaN.
    float payload_nan;
    const uint32_t nan_bits = 0x7f800001u;
    std::memcpy(&payload_nan, &nan_bits, 4);
    QVERIFY(std::isnan(static_cast<float>(BFloat16(payload_nan))));
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const auto h = BFloat16::from_bits(static_cast<uint16_t>(b));
      if (!std::isnan(static_cast<float>(h)))
        QCOMPARE(BFloat16(static_cast<float>(h)).bits, h.bits);
    }
  }

  // LLVM's fptrunc runs the CPU's vcvtps2ph where the target has F16C: an
  // implementation of its own, here given every tie between neighbouring
  // float16 values, the values just beside each tie, and the specials.
  void compiledCastsRoundAsTheReference_data() {
    QTest::addColumn<int>("to");
    QTest::newRow("float16") << int(onnx::TensorProto::FLOAT16);
    QTest::newRow("bfloat16") << int(onnx::TensorProto::BFLOAT16);
  }
  void compiledCastsRoundAsTheReference() {
    QFETCH(int, to);
    std::vector<float> xs = {0.0f, -0.0f, kInf, -kInf, kNaN, 3.4e38f, -3.4e38f, 1e-30f};
    const bool half = to == onnx::TensorProto::FLOAT16;
    for (uint32_t b = 0; b + 1 < 0x7c00; b += 7) {
      const float lo = half ? static_cast<float>(Float16::from_bits(uint16_t(b)))
                            : static_cast<float>(BFloat16::from_bits(uint16_t(b)));
      const float hi = half ? static_cast<float>(Float16::from_bits(uint16_t(b + 1)))
                            : static_cast<float>(BFloat16::from_bits(uint16_t(b + 1)));
      const float tie = lo + (hi - lo) / 2;  // exact in float32
      for (float x : {tie, std::nextafter(tie, 0.0f), std::nextafter(tie, kInf), lo}) {
        xs.push_back(x);
        xs.push_back(-x);
      }
    }
    const auto n = static_cast<int64_t>(xs.size());
    testing::GraphBuilder b;
    const ValueId x = b.input("x", {n});
    Attributes attrs;
    attrs.set("to", int64_t{to});
    const ValueId y = b.add("Cast", {x}, attrs);
    const Graph graph = b.finish({y});
    const Tensor input = Tensor::from_vector(xs, {n});
    const Tensor reference = reference::Executor(graph).run({{"x", input}})[0];
    const Tensor compiled = run_compiled_once(graph, {{"x", input}});
    QCOMPARE(compiled.dtype(), half ? DType::Float16 : DType::BFloat16);
    for (int64_t i = 0; i < n; ++i) {
      uint16_t want = 0, got = 0;
      std::memcpy(&want, static_cast<const char*>(reference.raw()) + 2 * i, 2);
      std::memcpy(&got, static_cast<const char*>(compiled.raw()) + 2 * i, 2);
      if (std::isnan(xs[static_cast<size_t>(i)])) {
        QVERIFY((got & 0x7fff) > (half ? 0x7c00 : 0x7f80));
        continue;
      }
      QVERIFY2(want == got, qPrintable(QString("%1: reference %2, compiled %3")
                                           .arg(double(xs[static_cast<size_t>(i)]), 0, 'g', 12)
                                           .arg(want, 4, 16)
                                           .arg(got, 4, 16)));
    }
  }

  // Folding a cast of a constant rounds as the kernel would, and a rounding
  // pair of casts is never taken for a no-op.
  void simplifierKeepsTheRounding() {
    const te::DataType f32 = te::DataType::Float(32), f16 = te::DataType::Float(16);
    const te::Expr folded = arith::simplify(te::cast(f32, te::cast(f16, te::make_const(f32, 0.1))));
    const auto* imm = folded.as<te::FloatImmNode>();
    QVERIFY(imm);
    QCOMPARE(imm->value, 0.0999755859375);
    const te::Expr bf = arith::simplify(
        te::cast(f32, te::cast(te::DataType::BFloat(16), te::make_const(f32, 0.1))));
    QVERIFY(bf.as<te::FloatImmNode>());
    QCOMPARE(bf.as<te::FloatImmNode>()->value, 0.10009765625);
    const te::Var v("v", f32);
    const te::Expr pair = arith::simplify(te::cast(f32, te::cast(f16, v)));
    QCOMPARE(pair.kind(), te::ExprKind::Cast);
    QVERIFY(pair.as<te::CastNode>()->value.kind() == te::ExprKind::Cast);
    // Widening then narrowing is exact: that pair goes.
    const te::Var h("h", f16);
    QVERIFY(arith::simplify(te::cast(f16, te::cast(f32, h))).same_as(h));
  }

  // ---- Models -----------------------------------------------------------------

  // float16 inputs, outputs and weights: computed in float32 and rounded once,
  // at the output, as the float32 model's output rounded.
  void float16ModelMatchesTheFloat32Model() {
    const Graph graph = conv_net(onnx::TensorProto::FLOAT16).import();
    const Graph oracle_graph = conv_net(onnx::TensorProto::FLOAT).import();
    QCOMPARE(graph.type(graph.inputs[0]).to_string(), std::string("float16[1,3,6,6]"));
    QCOMPARE(graph.type(graph.outputs[0]).to_string(), std::string("float16[1,5]"));
    QCOMPARE(graph.value(graph.inputs[0]).name, std::string("x"));
    QCOMPARE(graph.value(graph.outputs[0]).name, std::string("y"));
    for (const Value& v : graph.values)
      if (v.is_constant()) QCOMPARE(v.type.dtype, DType::Float32);

    const Tensor x16 = half_tensor(values_in(onnx::TensorProto::FLOAT16, 108, 9), {1, 3, 6, 6});
    const Tensor oracle = reference::Executor(oracle_graph).run({{"x", float_tensor(x16)}})[0];
    // The reference computes as the float32 model does, to the bit.
    compare_to_rounded(reference::Executor(graph).run({{"x", x16}})[0], oracle, 0, "reference");
    compare_to_rounded(run_compiled_once(graph, {{"x", x16}}), oracle, 1, "compiled");
    // The rounding is visible: the float32 output is not all float16 values.
    int inexact = 0;
    for (int64_t i = 0; i < oracle.numel(); ++i)
      inexact += static_cast<float>(Float16(oracle.data<float>()[i])) != oracle.data<float>()[i];
    QVERIFY(inexact > 0);
  }

  // A Cast to a 16-bit type inside the graph rounds, on both executors.
  void castsInsideTheGraphRound_data() {
    QTest::addColumn<int>("to");
    QTest::newRow("float16") << int(onnx::TensorProto::FLOAT16);
    QTest::newRow("bfloat16") << int(onnx::TensorProto::BFLOAT16);
  }
  void castsInsideTheGraphRound() {
    QFETCH(int, to);
    const std::vector<Rounding>& cases =
        to == onnx::TensorProto::FLOAT16 ? kHalfRoundings : kBFloatRoundings;
    std::vector<float> xs;
    for (const Rounding& r : cases) xs.push_back(r.in);
    const auto n = static_cast<int64_t>(xs.size());
    const Graph graph = cast_model(Elem(to), n).import();
    const Tensor x = Tensor::from_vector(xs, {n});
    const Tensor by_reference = reference::Executor(graph).run({{"x", x}})[0];
    const Tensor compiled = run_compiled_once(graph, {{"x", x}});
    size_t k = 0;
    for (const Rounding& r : cases) {
      const float want = 3 * r.rounded;
      QVERIFY2(same_float(by_reference.data<float>()[k], want),
               qPrintable(QString("reference: 3 * cast(%1) = %2, expected %3")
                              .arg(double(r.in), 0, 'g', 10)
                              .arg(double(by_reference.data<float>()[k]), 0, 'g', 10)
                              .arg(double(want), 0, 'g', 10)));
      QVERIFY2(same_float(compiled.data<float>()[k], want),
               qPrintable(QString("compiled: 3 * cast(%1) = %2, expected %3")
                              .arg(double(r.in), 0, 'g', 10)
                              .arg(double(compiled.data<float>()[k]), 0, 'g', 10)
                              .arg(double(want), 0, 'g', 10)));
      ++k;
    }
  }

  // bfloat16 inputs and outputs: the output rounds once, from float32.
  void bfloat16ModelRoundsItsOutput() {
    const Elem bf = onnx::TensorProto::BFLOAT16;
    OnnxModel m;
    m.input("x", bf, {8});
    m.initializer("third", bf, {}, {1.0f / 3});
    m.node("Relu", {"x"}, "r");
    m.node("Mul", {"r", "third"}, "y");
    m.output("y", bf, {8});
    const Graph graph = m.import();
    QCOMPARE(graph.type(graph.outputs[0]).to_string(), std::string("bfloat16[8]"));
    const std::vector<float> xs = {1, 2, 3, -4, 5.5f, 100, 0.25f, 7};
    Tensor x(DType::BFloat16, {8});
    for (size_t i = 0; i < xs.size(); ++i) x.data<BFloat16>()[i] = BFloat16(xs[i]);
    const float third = static_cast<float>(BFloat16(1.0f / 3));  // 0.333984375
    QCOMPARE(third, 0.333984375f);
    for (const Tensor& y :
         {reference::Executor(graph).run({{"x", x}})[0], run_compiled_once(graph, {{"x", x}})}) {
      QCOMPARE(y.dtype(), DType::BFloat16);
      for (size_t i = 0; i < xs.size(); ++i) {
        const float want = static_cast<float>(BFloat16(std::max(xs[i], 0.0f) * third));
        QCOMPARE(static_cast<float>(y.data<BFloat16>()[i]), want);
      }
    }
  }

  // Unrepresentable: no silent widening of a type without a storage path.
  void complexTypesStayUnsupported() {
    OnnxModel m;
    m.input("x", onnx::TensorProto::COMPLEX64, {2});
    m.node("Identity", {"x"}, "y");
    m.output("y", onnx::TensorProto::COMPLEX64, {2});
    try {
      m.import();
      QFAIL("a complex64 input was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("complex64") != std::string::npos, e.what());
    }
  }

  // ---- Files, the command line, packages and the C API ----------------------

  void npzCarriesFloat16() {
    const std::vector<uint16_t> bits = {0x3c00, 0x0001, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x8000};
    Tensor t(DType::Float16, {7});
    std::memcpy(t.raw(), bits.data(), 14);
    const std::string file = path("h.npz").toStdString();
    driver::write_npz_tensors(file, {{"h", t}});
    const auto arrays = read_npz(file);
    QCOMPARE(arrays.size(), size_t{1});
    QCOMPARE(arrays[0].second.descr, std::string("<f2"));
    const driver::NamedTensors back = driver::read_npz_tensors(file);
    QCOMPARE(back[0].second.dtype(), DType::Float16);
    QCOMPARE(std::memcmp(back[0].second.raw(), bits.data(), 14), 0);
  }

  // NumPy has no bfloat16: it is written as float32 (exactly), and a
  // float32 array given for a bfloat16 input is rounded.
  void npzCarriesBFloat16AsFloat32() {
    Tensor t(DType::BFloat16, {3});
    t.data<BFloat16>()[0] = BFloat16(1.0f);
    t.data<BFloat16>()[1] = BFloat16(0.1f);
    t.data<BFloat16>()[2] = BFloat16(-kInf);
    const std::string file = path("b.npz").toStdString();
    driver::write_npz_tensors(file, {{"b", t}});
    QCOMPARE(read_npz(file)[0].second.descr, std::string("<f4"));
    const Tensor back = driver::read_npz_tensors(file)[0].second;
    QCOMPARE(back.dtype(), DType::Float32);
    QCOMPARE(back.data<float>()[1], 0.10009765625f);
    QCOMPARE(back.data<float>()[2], -kInf);
    const Tensor given = Tensor::from_vector(std::vector<float>{1.0f + 0x1p-8f, 259.0f}, {2});
    const Tensor as_input = driver::as_input_dtype(given, DType::BFloat16);
    QCOMPARE(as_input.dtype(), DType::BFloat16);
    QCOMPARE(static_cast<float>(as_input.data<BFloat16>()[0]), 1.0f);
    QCOMPARE(static_cast<float>(as_input.data<BFloat16>()[1]), 260.0f);
    QCOMPARE(driver::as_input_dtype(given, DType::Float16).dtype(), DType::Float32);  // no guessing
  }

  // `lathe run` on the compiled executor, `lathe compile` and the package
  // through the C API: float16 in, float16 out.
  void float16ModelRunsAsAProgramAndAPackage() {
    const OnnxModel m = conv_net(onnx::TensorProto::FLOAT16);
    const QString model = path("conv16.onnx");
    {
      QFile f(model);
      QVERIFY(f.open(QIODevice::WriteOnly));
      const std::string bytes = m.bytes();
      f.write(bytes.data(), static_cast<qint64>(bytes.size()));
    }
    const Tensor x16 = half_tensor(values_in(onnx::TensorProto::FLOAT16, 108, 11), {1, 3, 6, 6});
    const Graph oracle_graph = conv_net(onnx::TensorProto::FLOAT).import();
    const Tensor oracle = reference::Executor(oracle_graph).run({{"x", float_tensor(x16)}})[0];
    driver::write_npz_tensors(path("in.npz").toStdString(), {{"x", x16}});

    const QString lathe = qEnvironmentVariable("LATHE_BIN_DIR", "bin") + "/lathe";
    QProcess run;
    run.start(lathe, {"run", model, "--inputs", path("in.npz"), "--output", path("out.npz")});
    QVERIFY(run.waitForFinished(120000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    const driver::NamedTensors out = driver::read_npz_tensors(path("out.npz").toStdString());
    QCOMPARE(out[0].first, std::string("y"));
    compare_to_rounded(out[0].second, oracle, 1, "lathe run");

    const std::string package = path("conv16.tar").toStdString();
    const Graph graph = m.import();
    driver::export_package(driver::compile_graph(graph), codegen::Target::host(), package);
    LatheModule* module = nullptr;
    QVERIFY2(lathe_module_load(package.c_str(), &module) == 0, lathe_last_error());
    QCOMPARE(QString(lathe_module_input_dtype(module, 0)), QString("float16"));
    QCOMPARE(QString(lathe_module_output_dtype(module, 0)), QString("float16"));
    QCOMPARE(lathe_module_input_nbytes(module, 0), size_t{108 * 2});
    QCOMPARE(lathe_module_set_input(module, "x", x16.raw(), x16.nbytes()), 0);
    QCOMPARE(lathe_module_run(module), 0);
    Tensor y(DType::Float16, {1, 5});
    QCOMPARE(lathe_module_get_output(module, 0, y.raw(), y.nbytes()), 0);
    lathe_module_free(module);
    compare_to_rounded(y, oracle, 1, "package");
  }
};

QTEST_GUILESS_MAIN(TestFloat16)
#include "tst_float16.moc"

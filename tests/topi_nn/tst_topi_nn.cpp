// The nn ops' compute definitions and x86 schedules (core/topi/nn_compute.cpp,
// nn_schedule_x86.cpp): each op, built from a graph node through the strategy
// registry, scheduled with its registered schedule (or the generic default),
// JIT-compiled and compared with the reference kernel, alone and with an
// elementwise epilogue (add a per-channel constant, relu) fused after it.
#include <QtTest>

#include <functional>

#include "ir/op_registry.h"
#include "kernel_harness.h"
#include "reference/executor.h"
#include "support/error.h"
#include "topi/default_schedule.h"
#include "topi/nn.h"
#include "topi/op_compute.h"

using namespace lathe;
using namespace lathe::testing;

namespace {

struct OpCase {
  std::string op;
  Attributes attrs;
  std::vector<Shape> inputs;     // an empty shape marks an omitted input
  std::vector<bool> outputs{1};  // which outputs the node asks for
  std::vector<int> positive;     // inputs drawn from [0.5, 1.5] (variances)
  double tolerance = 1e-5;
};

Attributes conv_attrs(int64_t group, std::vector<int64_t> strides, std::vector<int64_t> pads,
                      std::vector<int64_t> dilations) {
  Attributes a;
  a.set("group", group);
  a.set("strides", strides);
  a.set("pads", pads);
  a.set("dilations", dilations);
  return a;
}

Tensor random_tensor(const Shape& shape, std::mt19937& rng, bool positive) {
  std::uniform_real_distribution<float> dist(positive ? 0.5f : -1.f, positive ? 1.5f : 1.f);
  Tensor t(DType::Float32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// relu(x + bias), bias [1, C, 1, ...] (per channel) or [last dim] for rank < 3:
// the epilogue group fusion puts after an anchor, built by hand in TE.
te::Tensor epilogue(const te::Tensor& x, const te::Tensor& bias) {
  std::vector<std::string> names;
  for (int d = 0; d < x.ndim(); ++d) names.push_back("e" + std::to_string(d));
  te::Tensor added = te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& i) {
        std::vector<te::Expr> bi;
        for (int d = 0; d < bias.ndim(); ++d) {
          const int xd = x.ndim() - bias.ndim() + d;
          bi.push_back(bias.shape()[d] == 1 ? te::make_int(0) : te::Expr(i[xd]));
        }
        return x(std::vector<te::Expr>(i.begin(), i.end())) + bias(bi);
      },
      "epilogue_add", names, "elemwise");
  return te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& i) {
        return te::max(added(std::vector<te::Expr>(i.begin(), i.end())), te::make_zero(x.dtype()));
      },
      "epilogue_relu", names, "elemwise");
}

Shape epilogue_bias_shape(const Shape& out) {
  if (out.size() < 3) return {out.back()};
  Shape s(out.size(), 1);
  s[1] = out[1];
  return s;
}

Tensor apply_epilogue(const Tensor& y, const Tensor& bias) {
  TensorType t{DType::Float32, y.shape()};
  return run_reference("Relu", {}, {run_reference("Add", {}, {y, bias}, t)}, t);
}

// Compiles the node through the strategy registry (schedule: the op's own or the
// generic default), runs it, and returns its requested outputs.
struct Compiled {
  std::vector<Tensor> outputs;
  std::string schedule_used;
};

Compiled compile_and_run(const Node& node, const std::vector<TensorType>& in_types,
                         const std::vector<TensorType>& out_types,
                         const std::vector<Tensor>& inputs, const Tensor* epilogue_bias) {
  const topi::OpStrategy* strategy = topi::OpStrategyRegistry::global().find(node.op);
  LATHE_CHECK(strategy, "no compute for ", node.op);
  std::vector<te::Tensor> placeholders, args;
  std::vector<Tensor> values;
  for (size_t i = 0; i < in_types.size(); ++i) {
    if (!node.has_input(i)) {
      placeholders.emplace_back();
      continue;
    }
    placeholders.push_back(
        te::placeholder(in_types[i].shape, te::DataType::Float(32), "in" + std::to_string(i)));
    args.push_back(placeholders.back());
    values.push_back(inputs[i]);
  }
  topi::ComputeContext ctx(node, placeholders, {}, in_types, out_types, "op");
  std::vector<te::Tensor> outs = strategy->compute(ctx);
  std::vector<te::Tensor> group_outputs;
  if (epilogue_bias) {
    te::Tensor bias =
        te::placeholder(epilogue_bias->shape(), te::DataType::Float(32), "epilogue_bias");
    args.push_back(bias);
    values.push_back(*epilogue_bias);
    group_outputs.push_back(epilogue(outs[0], bias));
  } else {
    for (size_t i = 0; i < outs.size(); ++i)
      if (node.outputs[i] != kNoValue) group_outputs.push_back(outs[i]);
  }
  std::vector<te::Operation> ops;
  for (const te::Tensor& t : group_outputs) ops.push_back(t.op());
  schedule::Schedule sch(ops);
  Compiled result;
  if (strategy->tuning_template) {
    // The op's untuned schedule: its template's default config.
    const topi::SearchSpace space = strategy->tuning_template(outs[0], group_outputs, VectorUnit{});
    space.apply(sch, space.default_config);
    result.schedule_used = "registered";
  } else {
    topi::apply_default_schedule(sch);
    result.schedule_used = "default";
  }
  for (const te::Tensor& t : group_outputs) args.push_back(t);
  result.outputs = run_compiled(sch, args, values);
  return result;
}

std::vector<TensorType> infer(const Node& node, const std::vector<TensorType>& in_types) {
  const OpDef* def = OpRegistry::global().find(node.op);
  LATHE_CHECK(def, "no op ", node.op);
  std::vector<const TensorType*> types;
  for (size_t i = 0; i < in_types.size(); ++i)
    types.push_back(node.has_input(i) ? &in_types[i] : nullptr);
  InferContext ictx(node, types, std::vector<const Tensor*>(in_types.size(), nullptr));
  def->infer(ictx);
  std::vector<TensorType> out = ictx.outputs();
  out.resize(node.outputs.size());
  return out;
}

void check_case(const OpCase& c, bool with_epilogue, std::mt19937& rng) {
  Node node{"node", c.op, {}, {}, c.attrs};
  std::vector<TensorType> in_types;
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const bool present = !c.inputs[i].empty();
    node.inputs.push_back(present ? static_cast<ValueId>(i) : kNoValue);
    in_types.push_back({DType::Float32, c.inputs[i]});
    const bool positive = std::count(c.positive.begin(), c.positive.end(), int(i)) > 0;
    inputs.push_back(present ? random_tensor(c.inputs[i], rng, positive) : Tensor());
  }
  for (size_t i = 0; i < c.outputs.size(); ++i)
    node.outputs.push_back(c.outputs[i] ? static_cast<ValueId>(100 + i) : kNoValue);
  std::vector<TensorType> out_types = infer(node, in_types);

  std::vector<const Tensor*> ref_inputs;
  for (size_t i = 0; i < inputs.size(); ++i)
    ref_inputs.push_back(node.has_input(i) ? &inputs[i] : nullptr);
  std::vector<Tensor> want =
      reference::run_node(*reference::kernel_registry().find(c.op), node, ref_inputs, out_types);

  std::optional<Tensor> bias;
  if (with_epilogue) {
    bias = random_tensor(epilogue_bias_shape(out_types[0].shape), rng, false);
    want = {apply_epilogue(want[0], *bias)};
  }
  Compiled got = compile_and_run(node, in_types, out_types, inputs, bias ? &*bias : nullptr);
  size_t g = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!with_epilogue && node.outputs[i] == kNoValue) continue;
    QVERIFY(g < got.outputs.size());
    double err = normalized_error(got.outputs[g++], want[i]);
    QVERIFY2(err <= c.tolerance,
             qPrintable(QString("%1 output %2 (%3 schedule%4): normalized error %5")
                            .arg(QString::fromStdString(c.op))
                            .arg(i)
                            .arg(QString::fromStdString(got.schedule_used))
                            .arg(with_epilogue ? ", fused epilogue" : "")
                            .arg(err)));
  }
}

// --- Conv2dNCHWc against Conv on NCHW, through explicit layout conversion ---

struct BlockedConv {
  Shape x, w;  // NCHW and OIHW shapes
  int64_t group = 1;
  std::vector<int64_t> strides{1, 1}, pads{0, 0, 0, 0}, dilations{1, 1};
  int64_t ib = 0;  // weight input-channel block; 0: block(C / group)
  bool bias = true;
};

// data [N, C, H, W] -> [N, C/b, H, W, b]
Tensor to_nchwc(const Tensor& t, int64_t b) {
  const Shape& s = t.shape();
  Tensor out(DType::Float32, {s[0], s[1] / b, s[2], s[3], b});
  const float* src = t.data<float>();
  float* dst = out.data<float>();
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t w = 0; w < s[3]; ++w)
          dst[(((n * (s[1] / b) + c / b) * s[2] + h) * s[3] + w) * b + c % b] =
              src[((n * s[1] + c) * s[2] + h) * s[3] + w];
  return out;
}

Tensor from_nchwc(const Tensor& t) {
  const Shape& s = t.shape();
  const int64_t b = s[4], channels = s[1] * b;
  Tensor out(DType::Float32, {s[0], channels, s[2], s[3]});
  const float* src = t.data<float>();
  float* dst = out.data<float>();
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t h = 0; h < s[2]; ++h)
        for (int64_t w = 0; w < s[3]; ++w)
          dst[((n * channels + c) * s[2] + h) * s[3] + w] =
              src[(((n * s[1] + c / b) * s[2] + h) * s[3] + w) * b + c % b];
  return out;
}

// weight [O, I, KH, KW] -> [O/ob, I/ib, KH, KW, ib, ob]
Tensor to_blocked_weight(const Tensor& t, int64_t ib, int64_t ob) {
  const Shape& s = t.shape();
  Tensor out(DType::Float32, {s[0] / ob, s[1] / ib, s[2], s[3], ib, ob});
  const float* src = t.data<float>();
  float* dst = out.data<float>();
  for (int64_t o = 0; o < s[0]; ++o)
    for (int64_t i = 0; i < s[1]; ++i)
      for (int64_t y = 0; y < s[2]; ++y)
        for (int64_t x = 0; x < s[3]; ++x)
          dst[(((((o / ob) * (s[1] / ib) + i / ib) * s[2] + y) * s[3] + x) * ib + i % ib) * ob +
              o % ob] = src[((o * s[1] + i) * s[2] + y) * s[3] + x];
  return out;
}

void check_blocked_conv(const BlockedConv& c, bool with_epilogue, std::mt19937& rng) {
  const int64_t channels = c.x[1], filters = c.w[0], cg = c.w[1];
  const int64_t xb = topi::largest_divisor(channels, 16), ob = topi::largest_divisor(filters, 16);
  const int64_t ib = c.ib ? c.ib : topi::largest_divisor(cg, 16);
  Attributes attrs = conv_attrs(c.group, c.strides, c.pads, c.dilations);
  Tensor x = random_tensor(c.x, rng, false), w = random_tensor(c.w, rng, false);
  Tensor b = random_tensor({filters}, rng, false);
  Shape out_nchw = infer(Node{"conv", "Conv", {0, 1}, {2}, attrs},
                         {{DType::Float32, c.x}, {DType::Float32, c.w}})[0]
                       .shape;
  std::vector<const Tensor*> ref_in = {&x, &w};
  if (c.bias) ref_in.push_back(&b);
  Node ref_node{"conv", "Conv", {0, 1}, {3}, attrs};
  if (c.bias) ref_node.inputs.push_back(2);
  Tensor want = reference::run_node(*reference::kernel_registry().find("Conv"), ref_node, ref_in,
                                    {{DType::Float32, out_nchw}})[0];

  Tensor bx = to_nchwc(x, xb), bw = to_blocked_weight(w, ib, ob);
  Tensor bb = Tensor::from_vector<float>(
      std::vector<float>(b.data<float>(), b.data<float>() + filters), {filters / ob, ob});
  Node node{"conv", "Conv2dNCHWc", {0, 1}, {3}, attrs};
  std::vector<TensorType> in_types = {{DType::Float32, bx.shape()}, {DType::Float32, bw.shape()}};
  std::vector<Tensor> inputs = {bx, bw};
  if (c.bias) {
    node.inputs.push_back(2);
    in_types.push_back({DType::Float32, bb.shape()});
    inputs.push_back(bb);
  }
  std::vector<TensorType> out_types = {
      {DType::Float32, {out_nchw[0], filters / ob, out_nchw[2], out_nchw[3], ob}}};
  std::optional<Tensor> blocked_bias;
  if (with_epilogue) {
    Tensor per_channel = random_tensor({1, filters, 1, 1}, rng, false);
    want = apply_epilogue(want, per_channel);
    blocked_bias = to_nchwc(per_channel, ob);
  }
  Compiled got =
      compile_and_run(node, in_types, out_types, inputs, blocked_bias ? &*blocked_bias : nullptr);
  QCOMPARE(got.schedule_used, std::string("registered"));
  double err = normalized_error(from_nchwc(got.outputs[0]), want);
  QVERIFY2(err <= 1e-5, qPrintable(QString("Conv2dNCHWc %1 -> %2 group %3%4: normalized error %5")
                                       .arg(QString::fromStdString(shape_to_string(c.x)))
                                       .arg(QString::fromStdString(shape_to_string(c.w)))
                                       .arg(c.group)
                                       .arg(with_epilogue ? ", fused epilogue" : "")
                                       .arg(err)));
}

Attributes pool_attrs(std::vector<int64_t> kernel, std::vector<int64_t> strides,
                      std::vector<int64_t> pads, int64_t ceil_mode = 0,
                      int64_t count_include_pad = 0, std::vector<int64_t> dilations = {1, 1}) {
  Attributes a;
  a.set("kernel_shape", kernel);
  a.set("strides", strides);
  a.set("pads", pads);
  a.set("ceil_mode", ceil_mode);
  a.set("count_include_pad", count_include_pad);
  a.set("dilations", dilations);
  return a;
}

Attributes one_int(const std::string& name, int64_t v) {
  Attributes a;
  a.set(name, v);
  return a;
}

void add(std::vector<OpCase>& cases, std::string op, Attributes attrs, std::vector<Shape> inputs,
         std::vector<bool> outputs = {true}, std::vector<int> positive = {},
         double tolerance = 1e-5) {
  cases.push_back({std::move(op), std::move(attrs), std::move(inputs), std::move(outputs),
                   std::move(positive), tolerance});
}

std::vector<OpCase> op_cases() {
  std::vector<OpCase> cases;
  // Conv on NCHW: plain, strided with bias, dilated, grouped, depthwise, auto_pad.
  add(cases, "Conv", conv_attrs(1, {1, 1}, {1, 1, 1, 1}, {1, 1}), {{1, 8, 14, 13}, {16, 8, 3, 3}});
  add(cases, "Conv", conv_attrs(1, {2, 2}, {3, 3, 2, 2}, {1, 1}),
      {{2, 3, 17, 19}, {8, 3, 7, 7}, {8}});
  add(cases, "Conv", conv_attrs(1, {1, 1}, {2, 2, 2, 2}, {2, 2}), {{1, 5, 11, 12}, {6, 5, 3, 3}});
  add(cases, "Conv", conv_attrs(2, {1, 1}, {1, 1, 1, 1}, {1, 1}),
      {{1, 8, 10, 10}, {6, 4, 3, 3}, {6}});
  add(cases, "Conv", conv_attrs(8, {2, 2}, {1, 0, 1, 0}, {1, 1}), {{1, 8, 13, 13}, {8, 1, 3, 3}});
  {
    Attributes a;
    a.set("auto_pad", std::string("SAME_UPPER"));
    a.set("strides", std::vector<int64_t>{2, 2});
    add(cases, "Conv", a, {{1, 4, 9, 10}, {4, 4, 4, 4}, {4}});
  }
  // ConvTranspose: stride 2 with output padding, grouped.
  {
    Attributes a = conv_attrs(1, {2, 2}, {1, 1, 1, 1}, {1, 1});
    a.set("output_padding", std::vector<int64_t>{1, 1});
    add(cases, "ConvTranspose", a, {{1, 4, 5, 6}, {4, 3, 3, 3}, {3}});
    add(cases, "ConvTranspose", conv_attrs(2, {1, 1}, {0, 0, 0, 0}, {1, 1}),
        {{1, 4, 5, 5}, {4, 2, 2, 2}});
  }
  // Gemm: transposes, alpha/beta, C broadcast (row, scalar, full).
  {
    Attributes a;
    a.set("transB", int64_t{1});
    add(cases, "Gemm", a, {{64, 48}, {80, 48}, {80}});
    Attributes b;
    b.set("transA", int64_t{1});
    b.set("alpha", 0.5f);
    b.set("beta", 2.0f);
    add(cases, "Gemm", b, {{33, 21}, {33, 40}, {1}});
    add(cases, "Gemm", {}, {{7, 9}, {9, 5}, {7, 5}});
    add(cases, "Gemm", {}, {{16, 32}, {32, 64}});
  }
  // MatMul: 2-D, batched with broadcast, 1-D on either side.
  add(cases, "MatMul", {}, {{64, 256}, {256, 768}}, {1}, {}, 1e-4);
  add(cases, "MatMul", {}, {{4, 64, 64}, {4, 64, 64}});
  add(cases, "MatMul", {}, {{2, 3, 5, 6}, {3, 6, 7}});
  add(cases, "MatMul", {}, {{12}, {3, 12, 10}});
  add(cases, "MatMul", {}, {{2, 5, 12}, {12}});
  // Pools.
  add(cases, "MaxPool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}), {{1, 8, 15, 16}}, {1, 0});
  add(cases, "MaxPool", pool_attrs({3, 3}, {2, 2}, {0, 0, 0, 0}, 1), {{1, 3, 10, 12}}, {1, 0});
  add(cases, "MaxPool", pool_attrs({2, 3}, {1, 2}, {1, 0, 0, 1}, 0, 0, {2, 1}), {{2, 3, 9, 11}},
      {1, 0});
  add(cases, "AveragePool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}), {{1, 8, 15, 16}});
  add(cases, "AveragePool", pool_attrs({3, 3}, {2, 2}, {1, 1, 1, 1}, 1, 1), {{1, 4, 10, 12}});
  add(cases, "AveragePool", pool_attrs({2, 2}, {2, 2}, {0, 0, 0, 0}, 1, 0), {{1, 4, 7, 9}});
  add(cases, "GlobalAveragePool", {}, {{2, 20, 7, 9}});
  add(cases, "GlobalMaxPool", {}, {{2, 20, 7, 9}});
  // Normalizations.
  add(cases, "BatchNormalization", {}, {{2, 6, 5, 7}, {6}, {6}, {6}, {6}}, {1}, {4});
  add(cases, "InstanceNormalization", {}, {{2, 5, 9, 11}, {5}, {5}});
  add(cases, "LayerNormalization", {}, {{4, 7, 96}, {96}, {96}}, {1, 1, 1});
  add(cases, "LayerNormalization", one_int("axis", 1), {{3, 4, 10}, {4, 10}, {}}, {1, 0, 1});
  // Softmax family, PRelu, LRN.
  add(cases, "Softmax", one_int("axis", -1), {{6, 100}});
  add(cases, "Softmax", one_int("axis", 1), {{2, 7, 5}});
  add(cases, "LogSoftmax", one_int("axis", 0), {{5, 3, 4}});
  add(cases, "LogSoftmax", one_int("axis", -1), {{3, 40}});
  add(cases, "PRelu", {}, {{2, 6, 5, 5}, {6, 1, 1}});
  add(cases, "PRelu", {}, {{3, 33}, {33}});
  {
    Attributes a;
    a.set("size", int64_t{3});
    a.set("alpha", 0.02f);
    add(cases, "LRN", a, {{1, 7, 5, 6}});
    a.set("size", int64_t{4});
    add(cases, "LRN", a, {{2, 5, 3, 3}});
  }
  return cases;
}

}  // namespace

class TestTopiNn : public QObject {
  Q_OBJECT

 private slots:
  void opMatchesReference_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<bool>("fused");
    std::vector<OpCase> cases = op_cases();
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string name = cases[i].op + " #" + std::to_string(i);
      QTest::newRow(name.c_str()) << int(i) << false;
      QTest::newRow((name + " + epilogue").c_str()) << int(i) << true;
    }
  }

  void opMatchesReference() {
    QFETCH(int, which);
    QFETCH(bool, fused);
    std::mt19937 rng(7000 + which);
    check_case(op_cases()[static_cast<size_t>(which)], fused, rng);
  }

  void conv2dNchwcMatchesConv_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<bool>("fused");
    const char* names[] = {"3x3 32->32",
                           "1x1 stride 2",
                           "7x7 stride 2, 3 channels",
                           "depthwise 3x3",
                           "depthwise stride 2",
                           "grouped",
                           "ib != xb, prime width",
                           "dilated, asymmetric pads"};
    for (int i = 0; i < 8; ++i) {
      QTest::newRow(names[i]) << i << false;
      QTest::newRow((std::string(names[i]) + " + epilogue").c_str()) << i << true;
    }
  }

  void conv2dNchwcMatchesConv() {
    QFETCH(int, which);
    QFETCH(bool, fused);
    std::vector<BlockedConv> cases(8);
    cases[0] = {{1, 32, 14, 14}, {32, 32, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}};
    cases[1] = {{1, 32, 14, 14}, {48, 32, 1, 1}, 1, {2, 2}, {0, 0, 0, 0}};
    cases[2] = {{1, 3, 30, 30}, {16, 3, 7, 7}, 1, {2, 2}, {3, 3, 3, 3}};
    cases[3] = {{1, 32, 13, 13}, {32, 1, 3, 3}, 32, {1, 1}, {1, 1, 1, 1}};
    cases[4] = {{2, 24, 12, 11}, {24, 1, 3, 3}, 24, {2, 2}, {1, 1, 1, 1}};
    cases[5] = {{1, 32, 9, 9}, {16, 8, 3, 3}, 4, {1, 1}, {1, 1, 1, 1}};
    cases[6] = {{1, 16, 17, 17}, {16, 16, 3, 3}, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4, false};
    cases[7] = {{1, 16, 12, 12}, {32, 16, 3, 3}, 1, {1, 1}, {2, 1, 0, 2}, {2, 2}};
    std::mt19937 rng(9000 + which);
    check_blocked_conv(cases[static_cast<size_t>(which)], fused, rng);
  }
};

QTEST_GUILESS_MAIN(TestTopiNn)
#include "tst_topi_nn.moc"

// The template-free search space (core/tune/sketch_space): for the kernels a
// model's fused groups make (matmul and NCHWc conv with a bias + relu
// epilogue, depthwise conv, max pool, softmax, an elementwise chain, and the
// groups of a small network's optimized graph) the space has knobs and,
// where two rules apply, more than one sketch; seeded random points apply,
// lower, JIT-compile and compute what the reference executor computes for
// the same graph (tune::make_kernel_fixture for the fused groups).
// Points the scheduler rejects (ScheduleError) are counted and must stay a
// minority.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>

#include "../graph_builder.h"
#include "codegen/codegen.h"
#include "ir/normalized_error.h"
#include "ir/tensor.h"
#include "passes/graph_edit.h"
#include "passes/pipeline.h"
#include "reference/executor.h"
#include "schedule/schedule_text.h"
#include "support/error.h"
#include "tir/lower.h"
#include "topi/nn.h"
#include "tune/group_computation.h"
#include "tune/kernel_fixture.h"
#include "tune/sketch_space.h"

using namespace lathe;

namespace {

// Kernels assume their buffers aligned as lathe::Tensor's are.
using Buffer = lathe::Tensor;
const te::DataType kF32 = te::DataType::Float(32);

// The computation written as graph nodes, which the reference executor runs:
// the oracle. Its inputs are the computation's, in order.
struct OracleGraph : testing::GraphBuilder {
  ValueId input(const te::Tensor& t) {
    return GraphBuilder::input("in" + std::to_string(g.inputs.size()), t.shape());
  }
  ValueId scalar(float v) {
    return constant("k" + std::to_string(g.values.size()), Buffer::from_vector<float>({v}, {}));
  }
  Graph finish(ValueId output) { return GraphBuilder::finish({output}); }
};

struct Computation {
  std::string name;
  std::vector<te::Tensor> inputs, outputs;
  size_t sketches = 1;  // how many sketches the rules make for it
  Graph oracle;         // the same computation as a graph

  std::vector<te::Operation> output_ops() const {
    std::vector<te::Operation> ops;
    for (const te::Tensor& t : outputs) ops.push_back(t.op());
    return ops;
  }
};

std::vector<te::Expr> point(const std::vector<te::Var>& i) {
  return std::vector<te::Expr>(i.begin(), i.end());
}

// relu(x + bias), the epilogue fusion puts after an anchor; `bias_index`
// maps the output point to the bias element.
te::Tensor bias_relu(
    const te::Tensor& x, const te::Tensor& bias,
    const std::function<std::vector<te::Expr>(const std::vector<te::Var>&)>& bias_index) {
  te::Tensor added = te::compute(
      x.shape(), [&](const std::vector<te::Var>& i) { return x(point(i)) + bias(bias_index(i)); },
      "bias_add");
  return te::compute(
      x.shape(),
      [&](const std::vector<te::Var>& i) { return te::max(added(point(i)), te::make_zero(kF32)); },
      "relu");
}

Computation matmul_bias_relu() {
  te::Tensor a = te::placeholder({24, 32}, kF32, "A");
  te::Tensor b = te::placeholder({32, 64}, kF32, "B");
  te::Tensor bias = te::placeholder({64}, kF32, "bias");
  te::Tensor mm = topi::matmul(a, b, "matmul");
  te::Tensor out = bias_relu(
      mm, bias, [](const std::vector<te::Var>& i) { return std::vector<te::Expr>{i[1]}; });
  OracleGraph g;
  const ValueId mm_out = g.add("MatMul", {g.input(a), g.input(b)});
  const ValueId sum = g.add("Add", {mm_out, g.input(bias)});
  return {"matmul+bias+relu", {a, b, bias}, {out}, 2, g.finish(g.add("Relu", {sum}))};
}

Attributes conv_attrs(std::vector<int64_t> strides, std::vector<int64_t> pads, int64_t group) {
  Attributes attrs;
  attrs.set("strides", std::move(strides));
  attrs.set("pads", std::move(pads));
  attrs.set("group", group);
  return attrs;
}

// 3x3 conv on NCHW8c data, 16 -> 16 channels, padding 1, with a per-channel
// bias and relu.
Computation conv_nchwc_bias_relu() {
  te::Tensor data = te::placeholder({1, 2, 12, 12, 8}, kF32, "data");
  te::Tensor kernel = te::placeholder({2, 2, 3, 3, 8, 8}, kF32, "kernel");
  te::Tensor bias = te::placeholder({1, 2, 1, 1, 8}, kF32, "bias");
  topi::Conv2dParams p;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  te::Tensor conv = topi::conv2d_nchwc(data, kernel, p, "conv");
  te::Tensor out = bias_relu(conv, bias, [](const std::vector<te::Var>& i) {
    return std::vector<te::Expr>{0, i[1], 0, 0, i[4]};
  });
  OracleGraph g;
  const ValueId c =
      g.add("Conv2dNCHWc", {g.input(data), g.input(kernel)}, conv_attrs({1, 1}, {1, 1, 1, 1}, 1));
  const ValueId sum = g.add("Add", {c, g.input(bias)});
  return {
      "conv2d_NCHWc 3x3+bias+relu", {data, kernel, bias}, {out}, 2, g.finish(g.add("Relu", {sum}))};
}

Computation depthwise_conv() {
  te::Tensor data = te::placeholder({1, 2, 12, 12, 8}, kF32, "data");
  te::Tensor kernel = te::placeholder({2, 1, 3, 3, 1, 8}, kF32, "kernel");
  topi::Conv2dParams p;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.groups = 16;
  te::Tensor conv = topi::conv2d_nchwc(data, kernel, p, "dwconv");
  OracleGraph g;
  const ValueId c =
      g.add("Conv2dNCHWc", {g.input(data), g.input(kernel)}, conv_attrs({2, 2}, {1, 1, 1, 1}, 16));
  return {"depthwise conv2d_NCHWc 3x3/2", {data, kernel}, {conv}, 2, g.finish(c)};
}

Computation max_pool() {
  te::Tensor x = te::placeholder({1, 8, 16, 16}, kF32, "x");
  topi::Pool2dParams p;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  OracleGraph g;
  Attributes attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.set("strides", std::vector<int64_t>{2, 2});
  attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId pool = g.add("MaxPool", {g.input(x)}, std::move(attrs));
  return {"max pool 3x3/2",
          {x},
          {topi::pool2d_nchw(x, topi::PoolKind::Max, p, "pool")},
          2,
          g.finish(pool)};
}

// Two reductions (max, sum), each with cache-write and plain tiling.
Computation softmax() {
  te::Tensor x = te::placeholder({6, 40}, kF32, "x");
  OracleGraph g;
  Attributes attrs;
  attrs.set("axis", int64_t{-1});
  const ValueId out = g.add("Softmax", {g.input(x)}, std::move(attrs));
  return {"softmax", {x}, {topi::softmax_last_axis(x, "softmax")}, 4, g.finish(out)};
}

Computation elementwise_chain() {
  te::Tensor x = te::placeholder({4, 30, 24}, kF32, "x");
  te::Tensor y = te::placeholder({24}, kF32, "y");
  te::Tensor scaled = te::compute(
      x.shape(), [&](const std::vector<te::Var>& i) { return x(point(i)) * 2.0f + y(i[2]); },
      "scaled");
  te::Tensor act = te::compute(
      x.shape(), [&](const std::vector<te::Var>& i) { return te::tanh(scaled(point(i))); }, "act");
  te::Tensor out = te::compute(
      x.shape(), [&](const std::vector<te::Var>& i) { return act(point(i)) * 0.5f - 1.0f; }, "out");
  OracleGraph g;
  const ValueId gx = g.input(x), gy = g.input(y);
  const ValueId s = g.add("Add", {g.add("Mul", {gx, g.scalar(2.0f)}), gy});
  const ValueId t = g.add("Tanh", {s});
  const ValueId o = g.add("Sub", {g.add("Mul", {t, g.scalar(0.5f)}), g.scalar(1.0f)});
  return {"elementwise chain", {x, y}, {out}, 1, g.finish(o)};
}

std::vector<Buffer> random_inputs(const Computation& c, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<Buffer> values;
  for (const te::Tensor& t : c.inputs) {
    Buffer& b = values.emplace_back(DType::Float32, t.shape());
    for (int64_t i = 0; i < b.numel(); ++i) b.data<float>()[i] = dist(rng);
  }
  return values;
}

// Lowers, JIT-compiles and runs; outputs start as NaN so that an element the
// kernel never writes shows up as an error.
std::vector<Buffer> run(schedule::Schedule& sch, const Computation& c,
                        const std::vector<Buffer>& inputs) {
  std::vector<te::Tensor> args = c.inputs;
  args.insert(args.end(), c.outputs.begin(), c.outputs.end());
  tir::LoweredFunc lowered = tir::lower(sch, args, "kernel", {.record_ir = false});
  codegen::CompiledKernel kernel = codegen::jit_compile(lowered.func, codegen::Target::host());
  std::vector<Buffer> buffers = inputs;
  for (const te::Tensor& t : c.outputs) {
    Buffer& b = buffers.emplace_back(DType::Float32, t.shape());
    std::fill_n(b.data<float>(), b.numel(), std::numeric_limits<float>::quiet_NaN());
  }
  std::vector<void*> pointers;
  for (Buffer& b : buffers) pointers.push_back(b.raw());
  kernel.run(pointers);
  return std::vector<Buffer>(buffers.begin() + static_cast<long>(inputs.size()), buffers.end());
}

// The reference executor's outputs of the computation's graph.
std::vector<Buffer> run_reference(const Computation& c, const std::vector<Buffer>& inputs) {
  std::map<std::string, Buffer> named;
  for (size_t i = 0; i < inputs.size(); ++i)
    named.emplace(c.oracle.value(c.oracle.inputs[i]).name, inputs[i]);
  return reference::Executor(c.oracle).run(named);
}

// The largest normalized error of an output (never NaN: a NaN output's is
// infinite).
double largest_normalized_error(const std::vector<Buffer>& got, const std::vector<Buffer>& want) {
  LATHE_CHECK(got.size() == want.size(), got.size(), " outputs, expected ", want.size());
  double error = 0;
  for (size_t o = 0; o < want.size(); ++o)
    error = std::max(error, normalized_error(got[o], want[o]));
  return error;
}

topi::Config random_config(const topi::SearchSpace& space, size_t sketch, std::mt19937& rng) {
  topi::Config config;
  for (const topi::Knob& k : space.knobs)
    config.push_back(static_cast<int>(rng() % k.options.size()));
  config[0] = static_cast<int>(sketch);  // the sketch knob comes first
  return config;
}

bool has_step(const schedule::Schedule& sch, const std::string& primitive,
              const std::string& stage) {
  for (const schedule::ScheduleStep& s : sch.trace())
    if (s.primitive == primitive && s.stage == stage) return true;
  return false;
}

std::map<std::string, te::Tensor> tensors_by_name(const Computation& c) {
  std::map<std::string, te::Tensor> tensors;
  schedule::Schedule sch(c.output_ops());
  for (const schedule::Stage& st : sch.stages()) tensors.emplace(st.name(), te::Tensor(st.op()));
  return tensors;
}

constexpr int kRandomConfigs = 20;
constexpr int kRandomGroupConfigs = 4;

// Applies the default point and `random` seeded random points (cycling
// through the sketches) to fresh schedules, and checks that each lowers,
// compiles and computes `want` from `inputs`. Points the scheduler rejects
// are counted; they must stay under a fifth.
void check_points(const Computation& c, const topi::SearchSpace& space, int random, uint32_t seed,
                  const std::vector<Buffer>& inputs, const std::vector<Buffer>& want) {
  QVERIFY(space.valid(space.default_config));
  std::mt19937 rng(seed);
  const size_t sketches = space.knobs[0].options.size();
  std::vector<topi::Config> configs = {space.default_config};
  for (int t = 0; t < random; ++t)
    configs.push_back(random_config(space, static_cast<size_t>(t) % sketches, rng));

  int rejected = 0;
  QString rejections;
  for (const topi::Config& config : configs) {
    const QString point = QString::fromStdString(space.describe(config));
    schedule::Schedule sch(c.output_ops());
    std::vector<Buffer> got;
    try {
      space.apply(sch, config);
      got = run(sch, c, inputs);
    } catch (const schedule::ScheduleError& e) {
      ++rejected;
      rejections += QString("\n  %1: %2").arg(point, e.what());
      continue;
    } catch (const std::exception& e) {
      QFAIL(
          qPrintable(QString("%1 at %2: %3").arg(QString::fromStdString(c.name), point, e.what())));
    }
    const double err = largest_normalized_error(got, want);
    QVERIFY2(err <= 1e-5, qPrintable(QString("%1 at %2: relative error %3")
                                         .arg(QString::fromStdString(c.name), point)
                                         .arg(err)));
  }
  qInfo("%s: %zu knobs, %.3g points, %zu sketches; %zu configs, %d rejected%s", c.name.c_str(),
        space.knobs.size(), space.size(), sketches, configs.size(), rejected,
        qPrintable(rejections));
  QVERIFY2(rejected * 5 < static_cast<int>(configs.size()),
           qPrintable("too many rejected points:" + rejections));
}

// x [1, 16, 10, 10] -> Conv 3x3 (bias) -> Relu -> GlobalAveragePool ->
// Flatten -> Gemm (transB, bias) -> Softmax.
Graph small_network() {
  testing::GraphBuilder b;
  uint32_t seed = 5;
  auto constant = [&](const std::string& name, Shape shape) {
    return b.constant(name, testing::random_tensor(std::move(shape), seed++));
  };
  const ValueId x = b.input("x", {1, 16, 10, 10});
  ValueId v = b.add("Conv", {x, constant("w", {16, 16, 3, 3}), constant("b", {16})},
                    testing::attrs_of({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  v = b.add("GlobalAveragePool", {b.add("Relu", {v})});
  v = b.add("Flatten", {v});
  v = b.add("Gemm", {v, constant("fc_w", {10, 16}), constant("fc_b", {10})},
            testing::attrs_of({{"transB", int64_t{1}}}));
  return b.finish({b.add("Softmax", {v}, testing::attrs_of({{"axis", int64_t{-1}}}))});
}

}  // namespace

class TestSketchSpace : public QObject {
  Q_OBJECT

 private slots:
  void random_points_compute_the_reference_result_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("matmul+bias+relu") << 0;
    QTest::newRow("conv2d_NCHWc+bias+relu") << 1;
    QTest::newRow("depthwise conv") << 2;
    QTest::newRow("max pool") << 3;
    QTest::newRow("softmax") << 4;
    QTest::newRow("elementwise chain") << 5;
  }

  void random_points_compute_the_reference_result() {
    QFETCH(int, which);
    const Computation c = std::vector<Computation (*)()>{
        matmul_bias_relu, conv_nchwc_bias_relu, depthwise_conv, max_pool,
        softmax,          elementwise_chain}[static_cast<size_t>(which)]();
    const topi::SearchSpace space = tune::sketch_search_space(c.outputs);
    QVERIFY(space.knobs.size() > 3);
    QCOMPARE(space.knobs[0].name, std::string("sketch"));
    QCOMPARE(space.knobs[0].options.size(), c.sketches);
    std::mt19937 rng(1234u + static_cast<unsigned>(which));
    const std::vector<Buffer> inputs = random_inputs(c, rng);
    const std::vector<Buffer> want = run_reference(c, inputs);
    check_points(c, space, kRandomConfigs, rng(), inputs, want);
  }

  // The groups a small network's optimized graph fuses (layout transforms,
  // conv + bias + relu on NCHW16c, global pool, Gemm, softmax), as the tuner
  // gets them from tune::build_group_computation.
  void fused_groups_of_a_graph() {
    const passes::OptimizedGraph optimized = passes::optimize_graph(small_network());
    QVERIFY(optimized.groups.size() >= 3);
    for (const passes::FusedGroup& group : optimized.groups) {
      const tune::GroupComputation g = tune::build_group_computation(optimized.graph, group);
      Computation c{group.name, g.inputs, g.outputs, 1, {}};
      const topi::SearchSpace space = tune::sketch_search_space(c.outputs);
      // The group's real parameters, random activations and the reference
      // executor's outputs for them, as the tuner checks its candidates.
      const tune::KernelFixture data = tune::make_kernel_fixture(optimized.graph, group, g);
      const std::vector<Buffer> inputs(data.buffers.begin(),
                                       data.buffers.begin() + static_cast<long>(data.num_inputs));
      check_points(c, space, kRandomGroupConfigs, 99u + static_cast<unsigned>(group.id), inputs,
                   data.expected);
      if (QTest::currentTestFailed()) return;
    }
  }

  // Fuse-consumer keeps the epilogue as stages attached in the output's tile
  // loops; cache-write accumulates in a local cache and inlines the epilogue.
  void matmul_epilogue_sketches_apply_different_rules() {
    const Computation c = matmul_bias_relu();
    const topi::SearchSpace space = tune::sketch_search_space(c.outputs);
    topi::Config config = space.default_config;

    config[0] = 0;
    schedule::Schedule fused(c.output_ops());
    space.apply(fused, config);
    QVERIFY(has_step(fused, "compute_at", "matmul"));
    QVERIFY(has_step(fused, "compute_at", "bias_add"));
    QVERIFY(!has_step(fused, "cache_write", "matmul"));
    QVERIFY(has_step(fused, "parallel", "relu"));
    QVERIFY(has_step(fused, "vectorize", "matmul"));
    QVERIFY(has_step(fused, "pragma", "relu"));

    config[0] = 1;
    schedule::Schedule cached(c.output_ops());
    space.apply(cached, config);
    QVERIFY(has_step(cached, "cache_write", "matmul"));
    QVERIFY(has_step(cached, "compute_inline", "bias_add"));
    QVERIFY(has_step(cached, "compute_at", "matmul.local"));
    QVERIFY(has_step(cached, "parallel", "matmul"));
    QVERIFY(has_step(cached, "parallel", "relu"));
  }

  // The default point tiles the conv as a register block: one vector of the
  // channel block by a few output columns; every knob is listed for a reader.
  void conv_default_point_prints_and_replays() {
    const Computation c = conv_nchwc_bias_relu();
    const topi::SearchSpace space = tune::sketch_search_space(c.outputs);
    for (const topi::Knob& k : space.knobs)
      qInfo("knob %s: %zu options", k.name.c_str(), k.options.size());
    qInfo("default: %s", space.describe(space.default_config).c_str());
    QCOMPARE(space.value(space.default_config, "conv.oc_block"),
             (std::vector<int64_t>{1, 1, 1, 8}));
    QCOMPARE(space.value(space.default_config, "conv.ow"), (std::vector<int64_t>{3, 1, 4, 1}));

    schedule::Schedule sch(c.output_ops());
    space.apply(sch, space.default_config);
    const std::string text = schedule::print_schedule(sch);
    qInfo("fuse-consumer sketch at the default point:\n%s", text.c_str());

    // The printed text is the schedule: parsed back, it computes what the
    // schedule computes, which is the reference's result.
    std::mt19937 rng(7);
    const std::vector<Buffer> inputs = random_inputs(c, rng);
    std::unique_ptr<schedule::Schedule> replayed =
        schedule::parse_schedule(text, tensors_by_name(c));
    QCOMPARE(replayed->trace().size(), sch.trace().size());
    const std::vector<Buffer> want = run_reference(c, inputs);
    QVERIFY(largest_normalized_error(run(sch, c, inputs), want) <= 1e-5);
    QVERIFY(largest_normalized_error(run(*replayed, c, inputs), want) <= 1e-5);
  }
};

QTEST_GUILESS_MAIN(TestSketchSpace)
#include "tst_sketch_space.moc"

// The tuning templates (core/topi/*_template*.cpp) on small fused groups of
// each kind: the space has knobs and more than one point, and its default
// config and seeded random configs lower, compile and compute what the
// reference executor computes for the group's nodes.
#include <sys/mman.h>
#include <unistd.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "../graph_builder.h"
#include "codegen/codegen.h"
#include "ir/normalized_error.h"
#include "passes/graph_edit.h"
#include "passes/pipeline.h"
#include "schedule/schedule_text.h"
#include "support/error.h"
#include "tir/lower.h"
#include "tir/printer.h"
#include "tune/group_computation.h"
#include "tune/kernel_fixture.h"

using namespace lathe;

namespace {

using testing::attrs_of;
using testing::random_tensor;

// Test graphs whose constants are seeded random tensors.
struct Builder : testing::GraphBuilder {
  uint32_t seed = 1;
  ValueId constant(const std::string& name, Shape shape) {
    return GraphBuilder::constant(name, random_tensor(std::move(shape), seed++));
  }
};

std::vector<int64_t> ints(std::initializer_list<int64_t> v) {
  return v;
}

// Conv (with bias) and Relu on NCHW; the layout pass makes it Conv2dNCHWc
// unless it is grouped.
Graph conv_relu(Shape input, Shape weight, int64_t stride, int64_t pad, int64_t group) {
  Builder b;
  ValueId x = b.input("x", input);
  ValueId w = b.constant("w", weight);
  ValueId bias = b.constant("b", {weight[0]});
  ValueId c = b.add("Conv", {x, w, bias},
                    attrs_of({{"strides", ints({stride, stride})},
                              {"pads", ints({pad, pad, pad, pad})},
                              {"group", group}}));
  b.g.outputs = {b.add("Relu", {c})};
  return b.g;
}

Graph gemm_bias() {
  Builder b;
  ValueId x = b.input("x", {8, 32});
  ValueId w = b.constant("w", {48, 32});
  ValueId c = b.constant("c", {48});
  b.g.outputs = {b.add("Gemm", {x, w, c}, attrs_of({{"transB", int64_t{1}}}))};
  return b.g;
}

Graph matmul_add(Shape a, Shape w, bool constant_b) {
  Builder b;
  ValueId x = b.input("x", a);
  ValueId y = constant_b ? b.constant("w", w) : b.input("y", w);
  ValueId m = b.add("MatMul", {x, y});
  b.g.outputs = {b.add("Add", {m, b.constant("bias", {w.back()})})};
  return b.g;
}

Graph pool(const std::string& op, Attributes attrs) {
  Builder b;
  ValueId x = b.input("x", {1, 8, 10, 10});
  b.g.outputs = {b.add(op, {x}, std::move(attrs))};
  return b.g;
}

Graph reduce_mean() {
  Builder b;
  ValueId x = b.input("x", {4, 6, 32});
  ValueId sq = b.add("Mul", {x, x});
  b.g.outputs = {b.add("ReduceMean", {sq}, attrs_of({{"axes", ints({2})}}))};
  return b.g;
}

Graph softmax() {
  Builder b;
  ValueId x = b.input("x", {4, 6, 32});
  b.g.outputs = {b.add("Softmax", {x}, attrs_of({{"axis", int64_t{-1}}}))};
  return b.g;
}

Graph injective_chain() {
  Builder b;
  ValueId x = b.input("x", {2, 6, 48});
  ValueId y = b.input("y", {2, 6, 48});
  ValueId s = b.add("Add", {x, y});
  ValueId r = b.add("Relu", {s});
  b.g.outputs = {b.add("Mul", {r, b.constant("k", {48})})};
  return b.g;
}

// A batch of matrices transposed: the output's rows run along the input's
// columns.
Graph transpose() {
  Builder b;
  ValueId x = b.input("x", {2, 40, 48});
  b.g.outputs = {b.add("Transpose", {x}, attrs_of({{"perm", ints({0, 2, 1})}}))};
  return b.g;
}

// Blocked channels back to planes, as a conv's output before an op that
// stays in NCHW: each output row gathers one channel of each 16-channel line.
Graph unblock_channels() {
  Builder b;
  ValueId x = b.input("x", {1, 3, 5, 40, 16});
  b.g.outputs = {b.add(
      "LayoutTransform", {x},
      attrs_of({{"src_layout", std::string("NCHW16c")}, {"dst_layout", std::string("NCHW")}}))};
  return b.g;
}

struct Case {
  Graph graph;
  std::string anchor_op;  // the op anchoring the group under test
  std::string space;      // the template's name
};

std::map<std::string, std::function<Case()>> cases() {
  return {
      {"conv 3x3",
       [] {
         return Case{conv_relu({1, 32, 8, 8}, {32, 32, 3, 3}, 1, 1, 1), "Conv2dNCHWc",
                     "conv2d_NCHWc.x86"};
       }},
      {"conv 3x3, 4 channel chunks",
       [] {
         return Case{conv_relu({1, 64, 8, 12}, {64, 64, 3, 3}, 1, 1, 1), "Conv2dNCHWc",
                     "conv2d_NCHWc.x86"};
       }},
      {"conv 1x1",
       [] {
         return Case{conv_relu({1, 16, 7, 7}, {32, 16, 1, 1}, 1, 0, 1), "Conv2dNCHWc",
                     "conv2d_NCHWc.x86"};
       }},
      {"conv 3x3, a prime row",  // 31 pixels: ragged row blocks
       [] {
         return Case{conv_relu({1, 16, 4, 31}, {32, 16, 3, 3}, 1, 1, 1), "Conv2dNCHWc",
                     "conv2d_NCHWc.x86"};
       }},
      {"depthwise, a prime row",
       [] {
         return Case{conv_relu({1, 16, 3, 29}, {16, 1, 3, 3}, 1, 1, 16), "Conv2dNCHWc",
                     "depthwise_conv2d_NCHWc.x86"};
       }},
      {"conv 3x3 stride 2",
       [] {
         return Case{conv_relu({1, 32, 12, 12}, {32, 32, 3, 3}, 2, 1, 1), "Conv2dNCHWc",
                     "conv2d_NCHWc.x86"};
       }},
      {"depthwise",
       [] {
         return Case{conv_relu({1, 32, 8, 8}, {32, 1, 3, 3}, 1, 1, 32), "Conv2dNCHWc",
                     "depthwise_conv2d_NCHWc.x86"};
       }},
      {"grouped conv (NCHW)",  // 4 input, 8 output channels a group: no nesting
       [] {
         return Case{conv_relu({1, 8, 8, 8}, {16, 4, 3, 3}, 1, 1, 2), "Conv", "conv2d_nchw.x86"};
       }},
      {"grouped conv (groups in a block)",  // taps_inner by default
       [] {
         return Case{conv_relu({1, 32, 9, 9}, {32, 8, 3, 3}, 2, 1, 4), "Conv2dNCHWc",
                     "conv2d_NCHWc.x86"};
       }},
      {"grouped conv (a block in a group)",
       [] {
         return Case{conv_relu({1, 64, 8, 8}, {64, 32, 3, 3}, 1, 1, 2), "Conv2dNCHWc",
                     "conv2d_NCHWc.x86"};
       }},
      {"dense (Gemm, bias)",
       [] {
         return Case{gemm_bias(), "Gemm", "dense_pack.x86"};
       }},
      {"dense (MatMul, bias)",
       [] {
         return Case{matmul_add({16, 32}, {32, 64}, true), "MatMul", "dense_pack.x86"};
       }},
      {"batch matmul",
       [] {
         return Case{matmul_add({2, 8, 16}, {2, 16, 32}, false), "MatMul", "batch_matmul.x86"};
       }},
      {"batch matmul, rows folded",
       [] {
         return Case{matmul_add({6, 1, 16}, {16, 32}, true), "MatMul", "batch_matmul.x86"};
       }},
      {"max pool",
       [] {
         return Case{pool("MaxPool", attrs_of({{"kernel_shape", ints({3, 3})},
                                               {"strides", ints({2, 2})},
                                               {"pads", ints({1, 1, 1, 1})}})),
                     "MaxPool", "reduction.x86"};
       }},
      {"average pool",
       [] {
         return Case{pool("AveragePool",
                          attrs_of({{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}})),
                     "AveragePool", "reduction.x86"};
       }},
      {"global average pool",
       [] {
         return Case{pool("GlobalAveragePool", {}), "GlobalAveragePool", "reduction.x86"};
       }},
      {"reduce mean",
       [] {
         return Case{reduce_mean(), "ReduceMean", "reduction.x86"};
       }},
      {"softmax",
       [] {
         return Case{softmax(), "Softmax", "reduction.x86"};
       }},
      {"injective chain",
       [] {
         return Case{injective_chain(), "Mul", "injective.x86"};
       }},
      {"transpose",
       [] {
         return Case{transpose(), "Transpose", "injective.x86"};
       }},
      {"NCHW16c to NCHW",
       [] {
         return Case{unblock_channels(), "LayoutTransform", "injective.x86"};
       }},
  };
}

struct Group {
  passes::OptimizedGraph optimized;
  int index = -1;
};

Group group_anchored_by(const Graph& graph, const std::string& op,
                        const VectorUnit& vector_unit = {}) {
  Group g;
  g.optimized = passes::optimize_graph(graph, {.alter_layout = true,
                                               .record_snapshots = false,
                                               .vector_unit = vector_unit,
                                               .external_codegens = std::nullopt});
  for (const passes::FusedGroup& group : g.optimized.groups)
    if (g.optimized.graph.nodes[static_cast<size_t>(group.anchor)].op == op) g.index = group.id;
  return g;
}

// A conv's fused group, its computation and its template's search space.
struct ConvSpace {
  Group group;
  tune::GroupComputation computation;
  topi::SearchSpace space;
  const Graph& graph() const { return group.optimized.graph; }
};

ConvSpace conv_space_of(const Graph& graph, const VectorUnit& vector_unit = {}) {
  Group group = group_anchored_by(graph, "Conv2dNCHWc", vector_unit);
  tune::GroupComputation c = tune::build_group_computation(
      group.optimized.graph, group.optimized.groups[static_cast<size_t>(group.index)], vector_unit);
  topi::SearchSpace space = tune::template_search_space(c);
  return {std::move(group), std::move(c), std::move(space)};
}

// A row-blocked config of a 3x3 conv's space: the micro-kernel's pixels,
// channel and row tiles, input channels in `ic_chunks` blocks outside, both
// kernel loops unrolled; empty where the knobs have no such values.
topi::Config row_blocked_config(const topi::SearchSpace& space, std::vector<int64_t> tile_ow,
                                int64_t tile_oc, int64_t tile_oh, int64_t ic_chunks) {
  return space.config_from_values({{"tile_ow", std::move(tile_ow)},
                                   {"tile_oc", {tile_oc}},
                                   {"tile_oh", {tile_oh}},
                                   {"tile_ic", {ic_chunks, 1}},
                                   {"unroll_kw", {1}},
                                   {"unroll_kh", {1}},
                                   {"taps_inner", {0}},
                                   {"stationary", {0}},
                                   {"prefetch", {0}},
                                   {"pad_rows", {0}}});
}

// The kernel's input buffers: the graph's constants, random data for the rest.
std::vector<Tensor> kernel_inputs(const Graph& graph, const tune::GroupComputation& c) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.input_values.size(); ++i) {
    const Value& v = graph.value(c.input_values[i]);
    inputs.push_back(v.is_constant() ? v.constant
                                     : random_tensor(v.type.shape, 100 + static_cast<uint32_t>(i)));
  }
  return inputs;
}

// The group's inputs (its real parameters and seeded random activations) and
// the reference executor's outputs for them, as the tuner checks candidates:
// the oracle every schedule is checked against.
struct Reference {
  std::vector<Tensor> inputs, outputs;
};

Reference reference_of(const Graph& graph, const passes::FusedGroup& group,
                       const tune::GroupComputation& c) {
  tune::KernelFixture data = tune::make_kernel_fixture(graph, group, c);
  data.buffers.resize(data.num_inputs);
  return {std::move(data.buffers), std::move(data.expected)};
}

std::vector<Tensor> run_schedule(schedule::Schedule& sch, const tune::GroupComputation& c,
                                 std::vector<Tensor> inputs) {
  tir::LoweredFunc lowered = tir::lower(sch, c.args(), "kernel", {false});
  codegen::CompiledKernel kernel = codegen::jit_compile(lowered.func, codegen::Target::host());
  std::vector<void*> buffers;
  for (Tensor& t : inputs) buffers.push_back(t.raw());
  std::vector<Tensor> outputs;
  for (const te::Tensor& o : c.outputs) outputs.emplace_back(DType::Float32, o.shape());
  for (Tensor& t : outputs) buffers.push_back(t.raw());
  kernel.run(buffers);
  return outputs;
}

// A copy of a tensor's floats that ends less than 64 bytes before an
// inaccessible page (it starts 64-byte aligned, as the kernels assume): a
// kernel that reads a row past the end faults.
struct PageEndCopy {
  explicit PageEndCopy(const Tensor& t) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = static_cast<size_t>(t.numel()) * sizeof(float);
    const size_t pages = (bytes + page - 1) / page;
    total = (pages + 1) * page;
    base = static_cast<char*>(
        mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    mprotect(base + pages * page, page, PROT_NONE);
    data = reinterpret_cast<float*>(base + (pages * page - bytes) / 64 * 64);
    std::copy(t.data<float>(), t.data<float>() + t.numel(), data);
  }
  ~PageEndCopy() { munmap(base, total); }
  PageEndCopy(const PageEndCopy&) = delete;
  char* base;
  float* data;
  size_t total;
};

// A point of the space: random options until the space's constraint accepts them.
topi::Config random_config(const topi::SearchSpace& space, std::mt19937& rng) {
  topi::Config config;
  do {
    config.clear();
    for (const topi::Knob& k : space.knobs)
      config.push_back(std::uniform_int_distribution<int>(0, int(k.options.size()) - 1)(rng));
  } while (!space.valid(config));
  return config;
}

constexpr int kRandomConfigs = 10;

// The default schedule of the MatMul group of x @ y + bias, run on page-end
// copies of its inputs, against a plain loop: its normalized error, and the
// space it came from.
// `pick` chooses another point of the space instead.
std::pair<double, topi::SearchSpace> default_matmul_error(
    const Shape& a, const Shape& b, bool constant_b,
    const std::function<topi::Config(const topi::SearchSpace&)>& pick = {}) {
  const Group group = group_anchored_by(matmul_add(a, b, constant_b), "MatMul");
  if (group.index < 0) return {INFINITY, {}};
  const Graph& graph = group.optimized.graph;
  const tune::GroupComputation c = tune::build_group_computation(
      graph, group.optimized.groups[static_cast<size_t>(group.index)]);
  const topi::SearchSpace space = tune::template_search_space(c);
  const int64_t m = a[a.size() - 2], n = b.back();

  std::vector<Tensor> inputs = kernel_inputs(graph, c);
  std::vector<std::unique_ptr<PageEndCopy>> guarded;
  std::vector<void*> buffers;
  for (const Tensor& t : inputs) {
    guarded.push_back(std::make_unique<PageEndCopy>(t));
    buffers.push_back(guarded.back()->data);
  }
  auto sch = tune::apply_config(c, space, pick ? pick(space) : space.default_config);
  tir::LoweredFunc lowered = tir::lower(*sch, c.args(), "kernel", {false});
  codegen::CompiledKernel kernel = codegen::jit_compile(lowered.func, codegen::Target::host());
  Tensor out(DType::Float32, c.outputs[0].shape());
  buffers.push_back(out.raw());
  kernel.run(buffers);

  // x @ y + bias, from the inputs by name.
  auto input = [&](const std::string& name) -> const Tensor& {
    for (size_t i = 0; i < c.input_values.size(); ++i)
      if (graph.value(c.input_values[i]).name == name) return inputs[i];
    throw std::runtime_error("no input " + name);
  };
  const float* x = input("x").data<float>();
  const float* y = input(constant_b ? "w" : "y").data<float>();
  const float* bias = input("bias").data<float>();
  const int64_t k = a.back(), batch = a.size() == 3 ? a[0] : 1;
  Tensor want(DType::Float32, out.shape());
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = bias[j];
        for (int64_t r = 0; r < k; ++r)
          acc += double(x[(bi * m + i) * k + r]) * y[(b.size() == 3 ? bi * k * n : 0) + r * n + j];
        want.data<float>()[(bi * m + i) * n + j] = static_cast<float>(acc);
      }
  return {normalized_error(out, want), space};
}

// The default's option of a knob.
int64_t default_option(const topi::SearchSpace& space, const std::string& knob) {
  for (size_t i = 0; i < space.knobs.size(); ++i)
    if (space.knobs[i].name == knob) return space.knobs[i].options[space.default_config[i]][0];
  return -1;
}

}  // namespace

class TestTemplates : public QObject {
  Q_OBJECT

 private slots:
  void randomConfigsComputeTheReference_data() {
    QTest::addColumn<QString>("name");
    for (const auto& [name, make] : cases()) QTest::newRow(name.c_str()) << QString(name.c_str());
  }

  void randomConfigsComputeTheReference() {
    QFETCH(QString, name);
    const Case test = cases().at(name.toStdString())();
    const Group group = group_anchored_by(test.graph, test.anchor_op);
    QVERIFY2(group.index >= 0, "no group anchored by the op");
    const Graph& graph = group.optimized.graph;
    const tune::GroupComputation c = tune::build_group_computation(
        graph, group.optimized.groups[static_cast<size_t>(group.index)]);

    const topi::SearchSpace space = tune::template_search_space(c);
    QCOMPARE(space.name, test.space);
    QVERIFY(!space.knobs.empty());
    QVERIFY2(space.size() > 1, qPrintable(QString::fromStdString(space.name)));
    QVERIFY(space.valid(space.default_config));

    const Reference reference =
        reference_of(graph, group.optimized.groups[static_cast<size_t>(group.index)], c);
    std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>()(name.toStdString())));
    int compiled = 0, refused = 0;
    std::set<std::string> texts;
    // The default config first: it must apply.
    for (bool first = true; compiled < kRandomConfigs && refused <= kRandomConfigs; first = false) {
      const topi::Config config = first ? space.default_config : random_config(space, rng);
      std::unique_ptr<schedule::Schedule> sch;
      try {
        sch = tune::apply_config(c, space, config);
      } catch (const schedule::ScheduleError& e) {
        if (first) QFAIL(qPrintable(QString("the default config is refused: ") + e.what()));
        ++refused;
        continue;
      }
      std::vector<Tensor> got;
      try {
        texts.insert(schedule::print_schedule(*sch));
        got = run_schedule(*sch, c, reference.inputs);
      } catch (const std::exception& e) {
        QFAIL(qPrintable(QString::fromStdString(space.describe(config) + ": " + e.what())));
      }
      for (size_t i = 0; i < got.size(); ++i) {
        const double err = normalized_error(got[i], reference.outputs[i]);
        QVERIFY2(err <= 1e-5, qPrintable(QString("%1: error %2")
                                             .arg(QString::fromStdString(space.describe(config)))
                                             .arg(err)));
      }
      ++compiled;
    }
    qInfo("%s: %s, %.0f points, %d configs compiled, %d refused, %zu distinct schedules",
          qPrintable(name), space.name.c_str(), space.size(), compiled, refused, texts.size());
    QCOMPARE(compiled, kRandomConfigs);
    QVERIFY(refused < compiled);
    QVERIFY(texts.size() > 1);
  }

  // Rows and columns without a divisor near the register tile (a ViT's 197
  // tokens): the default tiles them anyway, the last tile guarded, and B's
  // last panel packed past its end; the product matches a plain loop, and no
  // stage reads past an input (each input ends at an inaccessible page).
  void matmulTilesThatDoNotDivide_data() {
    QTest::addColumn<Shape>("a");
    QTest::addColumn<Shape>("b");
    QTest::addColumn<bool>("constant_b");
    QTest::newRow("dense 37x24 * 24x53") << Shape{37, 24} << Shape{24, 53} << true;
    QTest::newRow("batch 3x37x16 * 3x16x37") << Shape{3, 37, 16} << Shape{3, 16, 37} << false;
    QTest::newRow("batch 2x23x37 * 2x37x16") << Shape{2, 23, 37} << Shape{2, 37, 16} << false;
    // One row per batch against a shared B: the batch folds into the rows,
    // tiles of several rows though 37 is prime.
    QTest::newRow("folded 37x1x24 * 24x48") << Shape{37, 1, 24} << Shape{24, 48} << true;
  }

  void matmulTilesThatDoNotDivide() {
    QFETCH(Shape, a);
    QFETCH(Shape, b);
    QFETCH(bool, constant_b);
    const auto [error, space] = default_matmul_error(a, b, constant_b);
    QVERIFY(!space.knobs.empty());
    const int64_t m = a[a.size() - 2], n = b.back();
    QVERIFY2(m % default_option(space, "tile_y") != 0 || n % default_option(space, "tile_x") != 0,
             qPrintable(QString::fromStdString(space.describe(space.default_config))));
    if (m == 1)
      QVERIFY2(default_option(space, "tile_y") > 1,
               qPrintable(QString::fromStdString(space.describe(space.default_config))));
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }

  // Many rows against columns that block only in half vectors (1,000 on
  // AVX-512) take panels of two whole vectors, the last one ragged, and the
  // product stays right.
  void manyRowsTakeWholeVectorPanels() {
    const int64_t lanes = codegen::Target::host().vector_unit().lanes();
    const int64_t n = 125 * lanes / 2;
    const auto [error, space] = default_matmul_error({64, 32}, {32, n}, true);
    QVERIFY(!space.knobs.empty());
    QVERIFY2(default_option(space, "tile_x") == 2 * lanes,
             qPrintable(QString::fromStdString(space.describe(space.default_config))));
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }

  // Batches of many rows against one B keep the batch inside each column
  // panel: the panels alone run in parallel, B's panel packed once for all
  // batches; the product stays right.
  void batchesOfManyRowsShareEachPanel() {
    const Shape a = {3, 14, 32}, b = {32, 256};
    const auto [error, space] = default_matmul_error(a, b, true);
    QVERIFY(!space.knobs.empty());
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
    const Group group = group_anchored_by(matmul_add(a, b, true), "MatMul");
    const tune::GroupComputation c = tune::build_group_computation(
        group.optimized.graph, group.optimized.groups[static_cast<size_t>(group.index)]);
    const topi::SearchSpace own = tune::template_search_space(c);
    auto sch = tune::apply_config(c, own, own.default_config);
    const std::string ir = tir::to_string(tir::lower(*sch, c.args(), "kernel").func);
    const int64_t panels = 256 / default_option(own, "tile_x");
    QVERIFY2(ir.find("j_outer in T.parallel(" + std::to_string(panels) + "):") != std::string::npos,
             ir.c_str());
  }

  // A matrix-vector product (one row tile) whose B outgrows a core's L2
  // streams B in wide panels, whole vectors of columns at a time, and still
  // leaves kMinParallelPanels (8) panels; a B that fits takes register
  // panels of up to 8 vectors (one row), as many. Both compute the product.
  void streamingMatrixVectorProductsTakeWidePanels_data() {
    QTest::addColumn<Shape>("a");
    QTest::addColumn<Shape>("b");
    QTest::addColumn<bool>("wide");
    QTest::newRow("1x2048 * 2048x1024: 8 MB") << Shape{1, 2048} << Shape{2048, 1024} << true;
    QTest::newRow("3 rows * 2048x1024") << Shape{3, 2048} << Shape{2048, 1024} << true;
    QTest::newRow("1x784 * 784x512: 1.6 MB") << Shape{1, 784} << Shape{784, 512} << true;
    QTest::newRow("1x784 * 784x256: 8 panels of 2 vectors")
        << Shape{1, 784} << Shape{784, 256} << false;
  }

  void streamingMatrixVectorProductsTakeWidePanels() {
    QFETCH(Shape, a);
    QFETCH(Shape, b);
    QFETCH(bool, wide);
    const auto [error, space] = default_matmul_error(a, b, true);
    QVERIFY(!space.knobs.empty());
    const int64_t cols = default_option(space, "tile_x");
    const QString config = QString::fromStdString(space.describe(space.default_config));
    QVERIFY2((cols > 32) == wide, qPrintable(config));
    QVERIFY2(b.back() / cols >= 8, qPrintable(config));
    QVERIFY2(error <= 1e-5, qPrintable(QString("normalized error %1").arg(error)));
  }

  // A matrix-vector product whose columns leave no wide parallel panels
  // (1000 classes, 256 features) and whose B streams splits k into parts
  // summed apart; one with wide panels, or whose B fits in cache, does not,
  // though its space can (checked at every split).
  void narrowStreamingMatrixVectorProductsSplitK_data() {
    QTest::addColumn<Shape>("a");
    QTest::addColumn<Shape>("b");
    QTest::addColumn<int64_t>("parts");
    QTest::newRow("1x8192 * 8192x256: 8 MB") << Shape{1, 8192} << Shape{8192, 256} << int64_t{16};
    QTest::newRow("1x1280 * 1280x1000: 5 MB") << Shape{1, 1280} << Shape{1280, 1000} << int64_t{16};
    QTest::newRow("1x2048 * 2048x1024: wide panels")
        << Shape{1, 2048} << Shape{2048, 1024} << int64_t{1};
    QTest::newRow("1x512 * 512x1000: 2 MB") << Shape{1, 512} << Shape{512, 1000} << int64_t{1};
  }

  void narrowStreamingMatrixVectorProductsSplitK() {
    QFETCH(Shape, a);
    QFETCH(Shape, b);
    QFETCH(int64_t, parts);
    const auto [error, space] = default_matmul_error(a, b, true);
    const QString config = QString::fromStdString(space.describe(space.default_config));
    QCOMPARE(default_option(space, "split_k"), parts);
    QVERIFY2(error <= 1e-5,
             qPrintable(QString("normalized error %1 with %2").arg(error).arg(config)));
    // Every split the space offers computes the product (page-end inputs
    // catch a read past B).
    size_t knob = 0;
    while (space.knobs[knob].name != "split_k") ++knob;
    for (int option = 1; option < int(space.knobs[knob].options.size()); ++option) {
      auto split = [&](const topi::SearchSpace& sp) {
        std::mt19937 rng(option);
        topi::Config c;
        do c = random_config(sp, rng);
        while (c[knob] != option);
        return c;
      };
      const double error = default_matmul_error(a, b, true, split).first;
      QVERIFY2(error <= 1e-5, qPrintable(QString("split %1: normalized error %2")
                                             .arg(space.knobs[knob].options[option][0])
                                             .arg(error)));
    }
  }

  // A transposing stage's default runs a block of the axis its input's
  // lines follow (16 float32, a 64-byte line; for NCHW16c the block of the
  // channel's `% 16`) between the parallel loops and the vectors, unrolled;
  // transpose_tile=0 is the plain order. Both compute the reference (above).
  void transposesTileTheGatheredLines_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("stage");
    QTest::newRow("transpose") << "transpose"
                               << "transpose";
    QTest::newRow("NCHW16c to NCHW") << "NCHW16c to NCHW"
                                     << "layouttransform";
  }

  void transposesTileTheGatheredLines() {
    QFETCH(QString, name);
    QFETCH(QString, stage);
    const Case test = cases().at(name.toStdString())();
    const Group group = group_anchored_by(test.graph, test.anchor_op);
    QVERIFY(group.index >= 0);
    const tune::GroupComputation c = tune::build_group_computation(
        group.optimized.graph, group.optimized.groups[static_cast<size_t>(group.index)]);
    const topi::SearchSpace space = tune::template_search_space(c);
    QCOMPARE(space.value(space.default_config, "transpose_tile"), std::vector<int64_t>{1});
    const std::string s = "s[" + stage.toStdString() + "]";
    const std::string op = stage.toStdString() + ".op";
    const std::string tiled =
        schedule::print_schedule(*tune::apply_config(c, space, space.default_config));
    for (const std::string& line : {
             "i1_outer, i1_inner = " + s + ".split(" + op + ".axis[1], factor=16)",
             s + ".unroll(i1_inner)",
         })
      QVERIFY2(tiled.find(line) != std::string::npos, qPrintable(QString::fromStdString(tiled)));
    // The block sits between the outer loops and the vectors.
    const size_t reorder = tiled.find(s + ".reorder(");
    QVERIFY2(reorder != std::string::npos, qPrintable(QString::fromStdString(tiled)));
    const std::string order = tiled.substr(reorder, tiled.find('\n', reorder) - reorder);
    const std::string lanes =
        "i" + std::to_string(QTest::currentDataTag() == QString("transpose") ? 2 : 3) + "_inner";
    QVERIFY2(order.ends_with("_outer, i1_inner, " + lanes + ")"),
             qPrintable(QString::fromStdString(order)));
    QVERIFY2(tiled.find(s + ".vectorize(" + lanes + ")") != std::string::npos,
             qPrintable(QString::fromStdString(tiled)));

    topi::Config plain = space.default_config;
    for (size_t k = 0; k < space.knobs.size(); ++k)
      if (space.knobs[k].name == "transpose_tile")
        plain[k] = topi::option_index(space.knobs[k], {0});
    const std::string untiled = schedule::print_schedule(*tune::apply_config(c, space, plain));
    QVERIFY2(untiled.find("i1_inner") == std::string::npos,
             qPrintable(QString::fromStdString(untiled)));
  }

  // The default config of the 3x3 conv template on a plane too large for L1
  // is TVM's row-blocked conv2d_NCHWc schedule with two output-channel blocks
  // per micro-kernel, the channel blocks innermost (ResNet-18's 56x56 and
  // 28x28 3x3 convs are benchmarked on it).
  void convDefaultIsTheFixedSchedule() {
    const Group group =
        group_anchored_by(conv_relu({1, 32, 40, 8}, {32, 32, 3, 3}, 1, 1, 1), "Conv2dNCHWc");
    const tune::GroupComputation c = tune::build_group_computation(
        group.optimized.graph, group.optimized.groups[static_cast<size_t>(group.index)]);
    const std::string text = schedule::print_schedule(*tune::default_group_schedule(c));
    for (const char* line : {
             "s[conv2dnchwc_pad].parallel(i0_i1_fused_i2_fused)",
             "ow_chunk, ow_block = s[relu].split(relu.op.axis[3], factor=8)",
             "oc_outer, oc_inner = s[relu].split(relu.op.axis[1], factor=2)",
             "s[relu].reorder(relu.op.axis[0], oc_outer, relu.op.axis[2], ow_chunk, oc_inner, "
             "ow_block, relu.op.axis[4])",
             "s[relu].parallel(i0_oc_outer_fused_i2_fused)",
             "s[conv2dnchwc_bias].compute_at(s[relu], ow_chunk)",
             "s[conv2dnchwc].reorder(conv2dnchwc.op.axis[0], conv2dnchwc.op.axis[2], "
             "conv2dnchwc.op.reduce_axis[0], conv2dnchwc.op.reduce_axis[1], "
             "conv2dnchwc.op.reduce_axis[2], conv2dnchwc.op.reduce_axis[3], "
             "conv2dnchwc.op.axis[3], conv2dnchwc.op.axis[1], conv2dnchwc.op.axis[4])",
             "s[conv2dnchwc].unroll(conv2dnchwc.op.axis[3])",
             "s[conv2dnchwc].unroll(conv2dnchwc.op.axis[1])",
         })
      QVERIFY2(text.find(line) != std::string::npos, qPrintable(QString::fromStdString(text)));
  }

  // A grouped conv with whole groups in a channel block builds each input
  // vector with a shuffle: by default the window row's taps go innermost, so
  // that one shuffled vector serves every tap reading it; a conv whose block
  // lies in one group broadcasts, as a dense one does, and keeps TVM's order.
  void groupedConvTapsInnerWhereGroupsShareABlock() {
    const topi::SearchSpace in_block =
        conv_space_of(cases().at("grouped conv (groups in a block)")().graph).space;
    QVERIFY2(in_block.describe(in_block.default_config).find("taps_inner=1") != std::string::npos,
             qPrintable(QString::fromStdString(in_block.describe(in_block.default_config))));
    const topi::SearchSpace in_group =
        conv_space_of(cases().at("grouped conv (a block in a group)")().graph).space;
    QVERIFY2(in_group.describe(in_group.default_config).find("taps_inner=0") != std::string::npos,
             qPrintable(QString::fromStdString(in_group.describe(in_group.default_config))));
  }

  // A window row of more taps than the registers hold beside an accumulator
  // and a broadcast (Wav2Vec2's positional conv: 32 taps, groups of 8
  // channels in AVX-512's blocks of 16) cannot keep its taps innermost: the
  // space offers no taps_inner, and its default, TVM's order, is a point of
  // it. Rows of 3 and 17 taps go innermost by default (10 pixels); a row of
  // 27 keeps the option but not the default, where it leaves 2 pixels.
  void longGroupedWindowsKeepAPointOfTheTemplate() {
    auto conv1d = [](int64_t channels, int64_t group, int64_t kernel, int64_t length) {
      Builder b;
      const ValueId x = b.input("x", {1, channels, length});
      const ValueId w = b.constant("w", {channels, channels / group, kernel});
      const ValueId c =
          b.add("Conv", {x, w, b.constant("b", {channels})},
                attrs_of({{"pads", ints({kernel / 2, kernel / 2})}, {"group", group}}));
      b.g.outputs = {c};
      return b.g;
    };
    struct Row {
      int64_t channels, group, kernel, length;
      int64_t taps_options, taps_inner;
    };
    for (const Row& row :
         {Row{128, 16, 32, 49, 1, 0}, Row{128, 16, 32, 249, 1, 0}, Row{128, 32, 32, 99, 1, 0},
          Row{64, 8, 27, 1000, 2, 0}, Row{64, 8, 17, 40, 2, 1}, Row{64, 8, 3, 40, 2, 1}}) {
      const topi::SearchSpace space =
          conv_space_of(conv1d(row.channels, row.group, row.kernel, row.length)).space;
      const QString where = QString("%1 channels, group %2, %3 taps: %4")
                                .arg(row.channels)
                                .arg(row.group)
                                .arg(row.kernel)
                                .arg(QString::fromStdString(space.fallback));
      QCOMPARE(space.name, std::string("conv2d_NCHWc.x86"));
      QVERIFY2(space.fallback.empty(), qPrintable(where));
      QVERIFY2(space.valid(space.default_config), qPrintable(where));
      for (const topi::Knob& k : space.knobs)
        if (k.name == "taps_inner")
          QCOMPARE(static_cast<int64_t>(k.options.size()), row.taps_options);
      QCOMPARE(default_option(space, "taps_inner"), row.taps_inner);
    }
  }

  // The knobs of the 3x3 conv and their options follow from its shapes; its
  // 8x8 plane (4 KB a channel block) defaults to the stationary order.
  // A row whose width has no divisor of 4 to 28 pixels (31, a prime) runs
  // in blocks that do not divide it, the last one guarded: by default the
  // widest the registers hold, at least 4 (randomConfigsComputeTheReference
  // checks them against the reference), depthwise too. A row of 28 keeps
  // dividing blocks.
  void convRowsWithoutDivisorsTakeRaggedBlocks() {
    struct Row {
      int64_t width, group;
      bool ragged;
    };
    for (const Row& row : {Row{31, 1, true}, Row{28, 1, false}, Row{29, 16, true}}) {
      const auto [width, groups, ragged] = row;
      const int64_t filters = groups == 1 ? 32 : 16, channels = 16 / groups;
      const Group group = group_anchored_by(
          conv_relu({1, 16, 4, width}, {filters, channels, 3, 3}, 1, 1, groups), "Conv2dNCHWc");
      QVERIFY(group.index >= 0);
      const tune::GroupComputation c = tune::build_group_computation(
          group.optimized.graph, group.optimized.groups[static_cast<size_t>(group.index)]);
      const topi::SearchSpace space = tune::template_search_space(c);
      const std::vector<int64_t> tile_ow = space.value(space.default_config, "tile_ow");
      const QString config = QString::fromStdString(space.describe(space.default_config));
      QVERIFY2(tile_ow.back() >= 4, qPrintable(config));
      QVERIFY2((width % tile_ow.back() != 0) == ragged, qPrintable(config));
      QVERIFY2(tile_ow[0] * tile_ow[1] * tile_ow[2] >= width, qPrintable(config));
    }
  }

  // A window along the rows only (3 x 1) tiles rows: each input value's
  // broadcast feeds the output rows it is in the window of, the window's
  // rows unrolled, the padded rows copied inside each row block (4 output
  // rows read 6; with stride 2, 9, still padded inside the block). A 3 x 3
  // window keeps rows of one.
  void rowWindowsTileRows() {
    for (const int64_t stride : {1, 2})
      for (const int64_t kw : {1, 3}) {
        const Group group = group_anchored_by(
            conv_relu({1, 32, 8 * stride, 48 * stride}, {32, 32, 3, kw}, stride, 1, 1),
            "Conv2dNCHWc");
        QVERIFY(group.index >= 0);
        const tune::GroupComputation c = tune::build_group_computation(
            group.optimized.graph, group.optimized.groups[static_cast<size_t>(group.index)]);
        const topi::SearchSpace space = tune::template_search_space(c);
        const QString config = QString::fromStdString(space.describe(space.default_config));
        const bool tiled = kw == 1;
        QVERIFY2((space.value(space.default_config, "tile_oh")[0] == 4) == tiled,
                 qPrintable(config));
        QVERIFY2((space.value(space.default_config, "unroll_kh")[0] == 1) == tiled,
                 qPrintable(config));
        // A 3 x 3 stride-2 window pads inside its rows too (each padded row
        // copied 1.5 times), one of stride 1 not.
        QVERIFY2((space.value(space.default_config, "pad_rows")[0] == 1) == (tiled || stride > 1),
                 qPrintable(config));
      }
  }

  void convKnobsFollowTheShapes() {
    const topi::SearchSpace space = conv_space_of(cases().at("conv 3x3")().graph).space;
    // An 8-pixel row's divisor nearest the stationary order's 7 pixels: 8.
    QCOMPARE(space.describe(space.default_config),
             std::string("tile_ow=[1,1,8] tile_oc=2 tile_oh=1 tile_ic=[2,1] unroll_kw=0 "
                         "unroll_kh=0 taps_inner=0 stationary=1 prefetch=1 pad_rows=0"));
    for (const topi::Knob& k : space.knobs) {
      if (k.name == "tile_ow") {
        for (const auto& o : k.options) QCOMPARE(o[0] * o[1] * o[2], int64_t{8});
        QCOMPARE(k.options.size(), size_t{10});  // ordered 3-factorizations of 8
      }
      if (k.name == "tile_oc") QCOMPARE(k.options.size(), size_t{2});  // 2 chunks: 1, 2
      if (k.name == "tile_oh") QCOMPARE(k.options.size(), size_t{3});  // 1, 2, 4 of 8 rows
      if (k.name == "unroll_kh") QCOMPARE(k.options.size(), size_t{2});
    }
  }

  // A 3x3 stride-2 conv in row blocks computes its padded input inside each
  // parallel row by default (each padded row copied 1.5 times, no pass of its
  // own), with the channel chunks inside the rows; split rows, row tiles and
  // the root pad all compute what the reference does.
  void convStridedRowsPadInsideTheRows() {
    const ConvSpace conv = conv_space_of(conv_relu({1, 32, 40, 40}, {32, 32, 3, 3}, 2, 1, 1));
    const tune::GroupComputation& c = conv.computation;
    const topi::SearchSpace& space = conv.space;
    QVERIFY2(space.describe(space.default_config).ends_with("stationary=0 prefetch=0 pad_rows=1"),
             qPrintable(QString::fromStdString(space.describe(space.default_config))));
    auto config = [&](std::vector<int64_t> tile_ow, int64_t oh, int64_t stationary,
                      int64_t pad_rows) {
      return space.config_from_values({{"tile_ow", tile_ow},
                                       {"tile_oc", {2}},
                                       {"tile_oh", {oh}},
                                       {"tile_ic", {2, 1}},
                                       {"unroll_kw", {0}},
                                       {"unroll_kh", {0}},
                                       {"taps_inner", {0}},
                                       {"stationary", {stationary}},
                                       {"prefetch", {0}},
                                       {"pad_rows", {pad_rows}}});
    };
    QVERIFY(!space.valid(config({1, 4, 5}, 1, 1, 1)));  // stationary planes pad at the root

    const Reference reference = reference_of(
        conv.graph(), conv.group.optimized.groups[static_cast<size_t>(conv.group.index)], c);
    auto check_result = [&](const topi::Config& config, schedule::Schedule& sch) {
      const double err =
          normalized_error(run_schedule(sch, c, reference.inputs)[0], reference.outputs[0]);
      QVERIFY2(err <= 1e-5, qPrintable(QString("%1: error %2")
                                           .arg(QString::fromStdString(space.describe(config)))
                                           .arg(err)));
    };
    const topi::Config root = config({1, 2, 10}, 1, 0, 0);
    check_result(root, *tune::apply_config(c, space, root));
    for (const topi::Config& rows :
         {space.default_config, config({2, 1, 10}, 1, 0, 1), config({1, 4, 5}, 2, 0, 1)}) {
      QVERIFY(space.valid(rows));
      auto sch = tune::apply_config(c, space, rows);
      const std::string text = schedule::print_schedule(*sch);
      // At the parallel loop of rows, whatever its name.
      const size_t at = text.find("s[relu].parallel(");
      QVERIFY(at != std::string::npos);
      const std::string rows_loop = text.substr(at + 17, text.find(')', at) - at - 17);
      QVERIFY2(text.find("s[conv2dnchwc_pad].compute_at(s[relu], " + rows_loop + ")") !=
                   std::string::npos,
               qPrintable(QString::fromStdString(text)));
      QVERIFY2(text.find("s[conv2dnchwc_pad].parallel") == std::string::npos,
               qPrintable(QString::fromStdString(text)));
      check_result(rows, *sch);
    }
  }

  // ResNet-18's 56x56 3x3 conv: the register budget holds per config
  // (pixels x channel tiles x rows accumulators, a kernel vector per channel
  // tile and a broadcast in 32 vectors), so 14 pixels x 2 channel tiles is a
  // point while 7 x 4 (33 vectors, one accumulator spilled) is not; rows tile
  // up to 4.
  void convRegisterBudgetIsPerConfig() {
    const ConvSpace conv = conv_space_of(conv_relu({1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 1));
    const topi::SearchSpace& space = conv.space;
    auto config = [&](std::vector<int64_t> tile_ow, int64_t oc, int64_t oh) {
      return row_blocked_config(space, tile_ow, oc, oh, 4);
    };
    QVERIFY(space.valid(config({1, 4, 14}, 2, 1)));
    QVERIFY(!space.valid(config({1, 8, 7}, 4, 1)));
    QVERIFY(space.valid(config({1, 8, 7}, 2, 2)));
    QVERIFY(space.valid(config({1, 14, 4}, 1, 4)));
    QVERIFY(space.valid(config({1, 2, 28}, 1, 1)));
    QVERIFY(!config({1, 4, 14}, 4, 1).empty());
    QVERIFY(!space.valid(config({1, 4, 14}, 4, 1)));
    QVERIFY(!space.valid(config({1, 8, 7}, 4, 2)));
    QVERIFY(space.size() < space.combinations());
    qInfo("56x56 3x3 conv space: %.0f points of %.0f combinations", space.size(),
          space.combinations());
    QCOMPARE(space.describe(space.default_config),
             std::string("tile_ow=[1,4,14] tile_oc=2 tile_oh=1 tile_ic=[4,1] unroll_kw=0 "
                         "unroll_kh=0 taps_inner=0 stationary=0 prefetch=0 pad_rows=0"));
    // A 56x56 plane of 16 channels (200 KB) is too large to stay in L1.
    for (const topi::Knob& k : space.knobs)
      if (k.name == "stationary" || k.name == "prefetch") QCOMPARE(k.options.size(), size_t{1});
  }

  // AVX2: channel blocks of 8 floats (one ymm register) and a budget of 16
  // registers, so the AVX-512 default (14 pixels x 2 blocks, 31 registers)
  // is out; the default keeps one register spare.
  void convRegisterBudgetFollowsTheTarget() {
    const ConvSpace conv =
        conv_space_of(conv_relu({1, 64, 56, 56}, {64, 64, 3, 3}, 1, 1, 1), VectorUnit::avx2());
    QCOMPARE(conv.computation.outputs[0].shape().back(), int64_t{8});
    const topi::SearchSpace& space = conv.space;
    auto config = [&](std::vector<int64_t> tile_ow, int64_t oc, int64_t oh) {
      return row_blocked_config(space, tile_ow, oc, oh, 8);
    };
    QVERIFY(!config({1, 4, 14}, 2, 1).empty());
    QVERIFY(!space.valid(config({1, 4, 14}, 2, 1)));  // 28 + 2 + 1
    QVERIFY(!space.valid(config({1, 8, 7}, 2, 1)));   // 14 + 2 + 1
    QVERIFY(space.valid(config({1, 8, 7}, 1, 2)));    // 14 + 1 + 1
    QVERIFY(space.valid(config({1, 4, 14}, 1, 1)));   // 14 + 1 + 1
    QCOMPARE(space.describe(space.default_config),
             std::string("tile_ow=[1,14,4] tile_oc=2 tile_oh=1 tile_ic=[8,1] unroll_kw=0 "
                         "unroll_kh=0 taps_inner=0 stationary=0 prefetch=0 pad_rows=0"));
  }

  // The weights-stationary order (an 8x8 plane's accumulators for all its
  // rows, input-channel blocks outside the rows) computes what the reference
  // does, for channel and row tiles, each split of the input channels and
  // with the next block's weights prefetched; it is offered only where a
  // plane fits in L1, and splits no row; the prefetch needs blocks outside
  // the rows.
  void convStationaryOrderComputesTheReference() {
    const ConvSpace conv = conv_space_of(conv_relu({1, 64, 8, 8}, {64, 64, 3, 3}, 1, 1, 1));
    const tune::GroupComputation& c = conv.computation;
    const topi::SearchSpace& space = conv.space;
    auto config = [&](std::vector<int64_t> tile_ow, int64_t oc, int64_t oh,
                      std::vector<int64_t> tile_ic, int64_t stationary, int64_t prefetch = 0) {
      return space.config_from_values({{"tile_ow", tile_ow},
                                       {"tile_oc", {oc}},
                                       {"tile_oh", {oh}},
                                       {"tile_ic", tile_ic},
                                       {"unroll_kw", {1}},
                                       {"unroll_kh", {0}},
                                       {"taps_inner", {0}},
                                       {"stationary", {stationary}},
                                       {"prefetch", {prefetch}},
                                       {"pad_rows", {0}}});
    };
    QVERIFY(!space.valid(config({2, 1, 4}, 1, 1, {4, 1}, 1)));  // rows split across threads
    QVERIFY(space.valid(config({2, 1, 4}, 1, 1, {4, 1}, 0)));
    QVERIFY(!space.valid(config({1, 1, 8}, 2, 1, {4, 1}, 0, 1)));  // not stationary
    QVERIFY(!space.valid(config({1, 1, 8}, 2, 1, {1, 4}, 1, 1)));  // no block outside the rows

    const Reference reference = reference_of(
        conv.graph(), conv.group.optimized.groups[static_cast<size_t>(conv.group.index)], c);
    for (const topi::Config& stationary :
         {config({1, 1, 8}, 2, 1, {4, 1}, 1), config({1, 2, 4}, 2, 2, {2, 2}, 1),
          config({1, 1, 8}, 1, 1, {1, 4}, 1), config({1, 1, 8}, 2, 1, {4, 1}, 1, 1),
          config({1, 2, 4}, 1, 2, {2, 2}, 1, 1)}) {
      QVERIFY(space.valid(stationary));
      auto sch = tune::apply_config(c, space, stationary);
      const std::string text = schedule::print_schedule(*sch);
      // The accumulator is attached at the parallel (n, oc_outer) loop.
      QVERIFY2(
          text.find("s[conv2dnchwc].compute_at(s[relu], i0_oc_outer_fused)") != std::string::npos ||
              text.find("s[conv2dnchwc].compute_at(s[relu], i0_i1_fused)") != std::string::npos,
          qPrintable(QString::fromStdString(text)));
      const bool prefetch = space.describe(stationary).find("prefetch=1") != std::string::npos;
      QCOMPARE(text.find(".prefetch(") != std::string::npos, prefetch);
      const double err =
          normalized_error(run_schedule(*sch, c, reference.inputs)[0], reference.outputs[0]);
      QVERIFY2(err <= 1e-5, qPrintable(QString("%1: error %2")
                                           .arg(QString::fromStdString(space.describe(stationary)))
                                           .arg(err)));
    }
  }
};

QTEST_GUILESS_MAIN(TestTemplates)
#include "tst_templates.moc"

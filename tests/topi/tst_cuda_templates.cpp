// The cuda templates per op class (topi/schedule_cuda_templates.h) without a
// GPU: each schedules its kind of group, lowers for cuda with the structure
// its class needs (cross-thread reductions, shared tiles and barriers), and
// comes out as PTX with the pieces that structure implies and no .local
// memory, which CUDA's ptxas assembles where the machine has it.
#include <QtTest>

#include <map>

#include "../gpu_test_support.h"
#include "codegen/codegen.h"
#include "codegen/gpu_launch.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "te/tensor.h"
#include "tir/lower.h"
#include "tir/printer.h"
#include "tir/stmt_functor.h"
#include "topi/nn.h"
#include "topi/op_compute.h"
#include "topi/schedule_cuda.h"
#include "topi/schedule_cuda_templates.h"

namespace lathe {
namespace {
using codegen::Target;
using te::Expr;
using te::Tensor;
using te::Var;

using testing::has_ptxas;
using testing::kH100;
using testing::kPtxas;
const te::DataType f32 = te::DataType::Float(32);

struct Kernel {
  topi::SearchSpace space;
  tir::PrimFunc func;
  codegen::GpuLaunch launch;
  QString ir, ptx;
};

// The template's default schedule of the group (with `knobs` set to other
// values), lowered and built for cuda.
Kernel build(topi::OpTemplateFn fn, const Tensor& anchor, const std::vector<Tensor>& args,
             const std::string& name, const std::map<std::string, int64_t>& knobs = {}) {
  Kernel k;
  const Target target = Target::parse(kH100);
  k.space = fn(anchor, {args.back()}, target.vector_unit());
  topi::Config config = k.space.default_config;
  for (const auto& [knob, value] : knobs)
    for (size_t i = 0; i < k.space.knobs.size(); ++i)
      if (k.space.knobs[i].name == knob) config[i] = topi::option_index(k.space.knobs[i], {value});
  if (!knobs.empty() && !k.space.valid(config))
    throw Error("the config " + k.space.describe(config) + " is outside the space");
  schedule::Schedule sch({args.back().op()});
  k.space.apply(sch, config);
  k.func = tir::lower(sch, args, name, {.record_ir = false, .target = kH100}).func;
  k.launch = codegen::verify_gpu_func(k.func, target);
  k.ir = QString::fromStdString(tir::to_string(k.func));
  k.ptx = QString::fromStdString(codegen::emit_assembly({k.func}, target));
  return k;
}

void check_ptx(const Kernel& k, const std::vector<const char*>& pieces,
               const std::vector<const char*>& absent = {}) {
  for (const char* piece : pieces)
    QVERIFY2(k.ptx.contains(piece), qPrintable(QString("no '%1' in:\n%2").arg(piece, k.ptx)));
  for (const char* piece : absent)
    QVERIFY2(!k.ptx.contains(piece), qPrintable(QString("'%1' in:\n%2").arg(piece, k.ptx)));
  // Per-thread arrays in local memory would mean registers spilled or a
  // register block indexed at run time.
  QVERIFY2(!k.ptx.contains(".local"), qPrintable(k.ptx));
  QVERIFY2(k.ptx.contains(QString(".maxntid %1, %2, %3")
                              .arg(k.launch.block[0])
                              .arg(k.launch.block[1])
                              .arg(k.launch.block[2])),
           qPrintable(k.ptx));
  if (!has_ptxas()) {
    qInfo("no CUDA ptxas at %s (not a Debian package): the PTX is checked by its text alone",
          kPtxas);
    return;
  }
  const QString errors =
      testing::ptxas_errors(k.ptx.toStdString(), QString::fromStdString(k.func.name));
  QVERIFY2(errors.isEmpty(), qPrintable(errors));
}

// softmax over the rows of [rows, cols]: max, exp(x - max), sum, divide.
std::vector<Tensor> softmax(int64_t rows, int64_t cols) {
  Tensor x = te::placeholder({rows, cols}, f32, "x");
  te::IterVar k1 = te::reduce_axis(cols, "k1"), k2 = te::reduce_axis(cols, "k2");
  Tensor mx = te::compute(
      {rows}, [&](const std::vector<Var>& i) { return te::max(x(i[0], k1.var()), {k1}); }, "mx",
      {"i"});
  Tensor e = te::compute(
      {rows, cols}, [&](const std::vector<Var>& i) { return te::exp(x(i[0], i[1]) - mx(i[0])); },
      "e", {"i", "j"});
  Tensor sum = te::compute(
      {rows}, [&](const std::vector<Var>& i) { return te::sum(e(i[0], k2.var()), {k2}); }, "sum",
      {"i"});
  Tensor out = te::compute({rows, cols},
                           [&](const std::vector<Var>& i) { return e(i[0], i[1]) / sum(i[0]); },
                           "out", {"i", "j"});
  return {x, mx, out};
}

// softmax over the last axis of [heads, rows, cols] (attention's scores).
std::vector<Tensor> softmax3(int64_t heads, int64_t rows, int64_t cols) {
  Tensor x = te::placeholder({heads, rows, cols}, f32, "x");
  te::IterVar k1 = te::reduce_axis(cols, "k1"), k2 = te::reduce_axis(cols, "k2");
  Tensor mx =
      te::compute({heads, rows},
                  [&](const std::vector<Var>& i) { return te::max(x(i[0], i[1], k1.var()), {k1}); },
                  "mx", {"h", "i"});
  Tensor sum =
      te::compute({heads, rows},
                  [&](const std::vector<Var>& i) {
                    return te::sum(te::exp(x(i[0], i[1], k2.var()) - mx(i[0], i[1])), {k2});
                  },
                  "sum", {"h", "i"});
  Tensor out = te::compute({heads, rows, cols},
                           [&](const std::vector<Var>& i) {
                             return te::exp(x(i[0], i[1], i[2]) - mx(i[0], i[1])) / sum(i[0], i[1]);
                           },
                           "out", {"h", "i", "j"});
  return {x, mx, out};
}

// mean over the last axis of [rows, cols]: a sum and its division.
std::vector<Tensor> row_mean(int64_t rows, int64_t cols) {
  Tensor x = te::placeholder({rows, cols}, f32, "x");
  te::IterVar k = te::reduce_axis(cols, "k");
  Tensor sum = te::compute(
      {rows, 1}, [&](const std::vector<Var>& i) { return te::sum(x(i[0], k.var()), {k}); }, "sum",
      {"i", "o"});
  Tensor mean = te::compute(
      {rows, 1}, [&](const std::vector<Var>& i) { return sum(i[0], i[1]) * Expr(1.0f / cols); },
      "mean", {"i", "o"});
  return {x, sum, mean};
}

// out = relu(A x B + bias), B given as [N, K] (transposed in the group, as
// a Gemm of transB) or as [K, N].
std::vector<Tensor> dense(int64_t m, int64_t n, int64_t k, bool b_transposed) {
  Tensor a = te::placeholder({m, k}, f32, "a");
  Tensor b = te::placeholder(b_transposed ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n},
                             f32, "b");
  Tensor bias = te::placeholder({n}, f32, "bias");
  Tensor bt = b;
  if (b_transposed)
    bt = te::compute(
        {k, n}, [&](const std::vector<Var>& i) { return b(i[1], i[0]); }, "bt", {"k", "j"},
        "transpose_b");
  te::IterVar r = te::reduce_axis(k, "r");
  Tensor mm = te::compute(
      {m, n},
      [&](const std::vector<Var>& i) { return te::sum(a(i[0], r.var()) * bt(r.var(), i[1]), {r}); },
      "mm", {"i", "j"}, "matmul");
  Tensor out = te::compute(
      {m, n},
      [&](const std::vector<Var>& i) { return te::max(mm(i[0], i[1]) + bias(i[1]), Expr(0.0f)); },
      "out", {"i", "j"});
  return {a, b, bias, mm, out};
}

// out = relu(conv2d(x, w) + bias), NCHW, padding 1, groups 1 (or depthwise).
std::vector<Tensor> conv(int64_t c, int64_t f, int64_t size, int64_t k, int64_t stride,
                         bool depthwise = false) {
  topi::Conv2dParams p;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = k / 2;
  p.groups = depthwise ? c : 1;
  Tensor x = te::placeholder({1, c, size, size}, f32, "x");
  Tensor w = te::placeholder({f, depthwise ? 1 : c, k, k}, f32, "w");
  Tensor bias = te::placeholder({f}, f32, "bias");
  Tensor y = topi::conv2d_nchw(x, w, p, "conv");
  Tensor out = te::compute(y.shape(),
                           [&](const std::vector<Var>& i) {
                             return te::max(y(i[0], i[1], i[2], i[3]) + bias(i[1]), Expr(0.0f));
                           },
                           "out", {"n", "f", "y", "x"});
  return {x, w, bias, y, out};
}

}  // namespace
}  // namespace lathe

using namespace lathe;

class TestCudaTemplates : public QObject {
  Q_OBJECT

 private slots:
  void registeredPerOpClass() {
    const auto& registry = topi::OpStrategyRegistry::global();
    for (const char* op : {"Softmax", "ReduceMean", "GlobalAveragePool", "LayerNormalization"})
      QVERIFY2(registry.find(op)->template_for("cuda") == topi::cuda_reduce_template, op);
    for (const char* op : {"Gemm", "MatMul"})
      QVERIFY2(registry.find(op)->template_for("cuda") == topi::cuda_dense_template, op);
    QVERIFY(registry.find("Conv")->template_for("cuda") == topi::cuda_conv2d_template);
  }

  // One block per row; the max and the sum are cross-thread reductions over
  // the block's threads, which then write the row.
  void softmaxIsOneBlockPerRow() {
    const std::vector<te::Tensor> t = softmax(64, 1000);
    const Kernel k = build(topi::cuda_reduce_template, t[1], {t[0], t[2]}, "softmax");
    QCOMPARE(QString::fromStdString(k.space.name), QString("reduce.cuda"));
    QCOMPARE(k.launch.grid[0], int64_t(64));
    QCOMPARE(k.launch.block[0], int64_t(256));
    QVERIFY2(k.ir.contains("thread_allreduce_max") && k.ir.contains("thread_allreduce_sum"),
             qPrintable(k.ir));
    // Butterflies within warps, then the 8 warps through shared memory.
    check_ptx(k, {".entry softmax(", "shfl.sync.bfly.b32", ".shared", "bar.sync"});
  }

  // Rows over two axes: each block computes its own row's max and sum, one
  // element each (fused apart from the columns, the row index is exact).
  void softmaxOverLeadingAxes() {
    const std::vector<te::Tensor> t = softmax3(3, 197, 197);
    const Kernel k = build(topi::cuda_reduce_template, t[1], {t[0], t[2]}, "softmax");
    QCOMPARE(k.launch.grid[0], int64_t(3 * 197));
    QCOMPARE(k.launch.block[0], int64_t(128));
    QVERIFY2(k.ir.contains("mx = T.allocate([1]") && k.ir.contains("sum = T.allocate([1]"),
             qPrintable(k.ir));
    check_ptx(k, {"shfl.sync.bfly.b32", "bar.sync"});
  }

  void reductionWithEpilogue() {
    // 49 terms (a 7 x 7 global pool): 32 threads, one warp, no shared memory.
    const std::vector<te::Tensor> t = row_mean(512, 49);
    const Kernel k = build(topi::cuda_reduce_template, t[1], {t[0], t[2]}, "mean");
    QCOMPARE(QString::fromStdString(k.space.name), QString("reduce.cuda"));
    QCOMPARE(k.launch.block[0], int64_t(32));
    QCOMPARE(k.launch.grid[0], int64_t(512));
    check_ptx(k, {"shfl.sync.bfly.b32"}, {"bar.sync"});
    // Few terms: one thread per output does them (the default template).
    const std::vector<te::Tensor> short_rows = row_mean(512, 9);
    const topi::SearchSpace space = topi::cuda_reduce_template(short_rows[1], {short_rows[2]},
                                                               Target::parse(kH100).vector_unit());
    QCOMPARE(QString::fromStdString(space.name), QString("reduction.cuda"));
  }

  // Batch 1 with [N, K] weights: a warp of threadIdx.x per output splits k.
  void smallDenseOverKContiguous() {
    const std::vector<te::Tensor> t = dense(1, 1000, 512, true);
    const Kernel k = build(topi::cuda_dense_template, t[3], {t[0], t[1], t[2], t[4]}, "dense");
    QCOMPARE(QString::fromStdString(k.space.name), QString("dense_small.cuda"));
    QCOMPARE(k.launch.block[0], int64_t(32));
    QVERIFY2(k.ir.contains("T.attr(\"thread_allreduce_sum\"") && k.ir.contains("threadIdx.y"),
             qPrintable(k.ir));
    check_ptx(k, {"shfl.sync.bfly.b32", "%tid.y"}, {"bar.sync"});
  }

  // Batch 1 with [K, N] weights: 32 columns on threadIdx.x, k on threadIdx.y.
  void smallDenseOverColumns() {
    const std::vector<te::Tensor> t = dense(1, 1000, 512, false);
    const Kernel k = build(topi::cuda_dense_template, t[3], {t[0], t[1], t[2], t[4]}, "dense");
    QCOMPARE(QString::fromStdString(k.space.name), QString("dense_small.cuda"));
    QCOMPARE(k.launch.block[0], int64_t(32));
    QVERIFY(k.launch.block[1] > 1);
    check_ptx(k, {"bar.sync", "st.shared", "ld.shared"}, {"shfl.sync"});
  }

  // Many rows: shared tiles of A and B per k step, a register block of
  // outputs per thread.
  void tiledDense_data() {
    QTest::addColumn<int>("m");
    QTest::addColumn<bool>("transposed");
    QTest::newRow("128 rows") << 128 << false;
    QTest::newRow("197 rows, B transposed") << 197 << true;
    // Fewer rows than a tile: the threads are the rows', the same in the
    // output's loops and the fetches' (else the barriers sit under a guard).
    QTest::newRow("56 rows") << 56 << false;
  }
  void tiledDense() {
    QFETCH(int, m);
    QFETCH(bool, transposed);
    const std::vector<te::Tensor> t = dense(m, 384, 256, transposed);
    const Kernel k = build(topi::cuda_dense_template, t[3], {t[0], t[1], t[2], t[4]}, "dense");
    QCOMPARE(QString::fromStdString(k.space.name), QString("dense_tiled.cuda"));
    const auto& tile_i = k.space.value(k.space.default_config, "tile_i");
    const auto& tile_j = k.space.value(k.space.default_config, "tile_j");
    const auto& tile_k = k.space.value(k.space.default_config, "tile_k");
    const int64_t block_i = k.space.value(k.space.default_config, "block_i")[0];
    QCOMPARE(k.launch.grid[1], (m + tile_i[0] - 1) / tile_i[0]);
    QCOMPARE(k.launch.grid[0], (384 + tile_j[0] - 1) / tile_j[0]);
    QCOMPARE(k.launch.shared_bytes, (tile_i[0] + tile_j[0]) * tile_k[0] * 4);
    QVERIFY2(k.ir.contains("\"shared\"") && k.ir.count("storage_sync") >= 2, qPrintable(k.ir));
    QCOMPARE(k.launch.block[1], (std::min<int64_t>(tile_i[0], m) + block_i - 1) / block_i);
    check_ptx(k, {"ld.shared", "st.shared", "bar.sync", "fma.rn.f32"});
  }

  // Two virtual threads per axis: each thread's register block is 2 x 2
  // sub-blocks half a tile apart, interleaved; the launch, the shared tiles
  // and the registers are the default's.
  void tiledDenseWithVirtualThreads() {
    const std::vector<te::Tensor> t = dense(1024, 1024, 256, false);  // 64 x 64 tiles
    const std::vector<te::Tensor> args = {t[0], t[1], t[2], t[4]};
    const Kernel plain = build(topi::cuda_dense_template, t[3], args, "dense");
    QCOMPARE(plain.space.value(plain.space.default_config, "vthreads")[0], int64_t(1));
    const int64_t block_i = plain.space.value(plain.space.default_config, "block_i")[0];
    const int64_t block_j = plain.space.value(plain.space.default_config, "block_j")[0];
    QVERIFY(block_i % 2 == 0 && block_j % 2 == 0);
    const Kernel k = build(topi::cuda_dense_template, t[3], args, "dense", {{"vthreads", 2}});
    QVERIFY2(!k.ir.contains("vthread"), qPrintable(k.ir));
    QVERIFY(k.launch.block == plain.launch.block);
    QVERIFY(k.launch.grid == plain.launch.grid);
    QCOMPARE(k.launch.shared_bytes, plain.launch.shared_bytes);
    int64_t local = 0;
    tir::visit_stmt(k.func.body, [&](const tir::Stmt& x) {
      const auto* a = x.as<tir::AllocateNode>();
      if (!a || a->storage_scope != "local") return;
      local = 1;
      for (const te::Expr& e : a->extents) local *= *te::as_const_int(e);
    });
    QCOMPARE(local, block_i * block_j);  // 2 x 2 virtual threads' sub-blocks
    check_ptx(k, {"ld.shared", "st.shared", "bar.sync", "fma.rn.f32"});
    // Virtual threads that do not divide the register block are not offered.
    bool refused = false;
    try {
      build(topi::cuda_dense_template, t[3], args, "dense", {{"vthreads", 4}, {"block_i", 2}});
    } catch (const Error& e) {
      refused = QString(e.what()).contains("outside the space");
    }
    QVERIFY(refused);
  }

  // A block's channels x pixels patch; its input window (padding included)
  // and weights per step of input channels in shared memory, a register
  // block of channels per thread.
  void directConv_data() {
    QTest::addColumn<int>("c");
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("stride");
    QTest::addColumn<int>("f");
    QTest::newRow("3x3 on 56x56") << 64 << 56 << 3 << 1 << 64;
    QTest::newRow("7x7 stem, stride 2") << 3 << 224 << 7 << 2 << 64;
    QTest::newRow("1x1 on 7x7") << 256 << 7 << 1 << 1 << 64;
    // Fewer channels and columns than a tile.
    QTest::newRow("4 channels on 10x10") << 3 << 10 << 3 << 1 << 4;
  }
  void directConv() {
    QFETCH(int, c);
    QFETCH(int, size);
    QFETCH(int, k);
    QFETCH(int, stride);
    QFETCH(int, f);
    const std::vector<te::Tensor> t = conv(c, f, size, k, stride);
    const Kernel kernel = build(topi::cuda_conv2d_template, t[3], {t[0], t[1], t[2], t[4]}, "conv");
    QCOMPARE(QString::fromStdString(kernel.space.name), QString("conv2d_direct.cuda"));
    const topi::SearchSpace& space = kernel.space;
    auto knob = [&](const char* name) { return space.value(space.default_config, name)[0]; };
    // The window of a tile_h x tile_w patch and the slab of weights, as the
    // lowering sized them.
    const int64_t out = (size + 2 * (k / 2) - k) / stride + 1;
    const int64_t tile_h = std::min<int64_t>(knob("tile_h"), out);
    const int64_t tile_w = std::min<int64_t>(knob("tile_w"), out);
    const int64_t rows = (tile_h - 1) * stride + k, cols = (tile_w - 1) * stride + k;
    const int64_t tile_c = std::min<int64_t>(knob("tile_c"), c);
    const int64_t tile_f = std::min<int64_t>(knob("tile_f"), f);
    QCOMPARE(kernel.launch.shared_bytes, 4 * (tile_c * rows * cols + tile_f * tile_c * k * k));
    QCOMPARE(kernel.launch.block[0], tile_h * tile_w);
    QCOMPARE(kernel.launch.block[1], (tile_f + knob("block_f") - 1) / knob("block_f"));
    QVERIFY2(kernel.ir.count("storage_sync") >= 2, qPrintable(kernel.ir));
    check_ptx(kernel, {".shared", "bar.sync", "ld.shared", "fma.rn.f32"});
  }

  void depthwiseConvKeepsTheDefault() {
    const std::vector<te::Tensor> t = conv(32, 32, 56, 3, 1, true);
    const Kernel kernel =
        build(topi::cuda_conv2d_template, t[3], {t[0], t[1], t[2], t[4]}, "depthwise");
    QCOMPARE(QString::fromStdString(kernel.space.name), QString("reduction.cuda"));
    check_ptx(kernel, {"ld.global"}, {".shared"});
  }

  // Split's parts: one kernel writes both, its launch covers the longer and
  // the shorter's extra threads skip it. An output that reads another, or a
  // reduction among several outputs, is refused naming the group.
  void severalOutputsOfOneKernel() {
    te::Tensor x = te::placeholder({3000}, f32, "x");
    te::Tensor a = te::compute(
        {1000}, [&](const std::vector<te::Var>& i) { return x(i[0]) * 2.0f; }, "a", {"i"});
    te::Tensor b = te::compute(
        {2000}, [&](const std::vector<te::Var>& i) { return x(i[0] + 1000) + 1.0f; }, "b", {"i"});
    const Target target = Target::parse(kH100);
    const topi::SearchSpace space = topi::cuda_default_template(a, {a, b}, target.vector_unit());
    QCOMPARE(QString::fromStdString(space.name), QString("injective_outputs.cuda"));
    schedule::Schedule sch({a.op(), b.op()});
    space.apply(sch, space.default_config);
    Kernel k;
    k.func = tir::lower(sch, {x, a, b}, "split", {.record_ir = false, .target = kH100}).func;
    k.launch = codegen::verify_gpu_func(k.func, target);
    QCOMPARE(k.launch.grid[0], int64_t{8});  // 2000 elements over 256 threads
    QCOMPARE(k.launch.block[0], int64_t{256});
    k.ptx = QString::fromStdString(codegen::emit_assembly({k.func}, target));
    check_ptx(k, {".entry split(", "st.global"});

    te::Tensor c = te::compute(
        {1000}, [&](const std::vector<te::Var>& i) { return a(i[0]) + 1.0f; }, "c", {"i"});
    QString message;
    try {
      topi::cuda_default_template(a, {a, c}, target.vector_unit());
    } catch (const std::exception& e) {
      message = e.what();
    }
    QVERIFY2(message.contains("its output 'c' reads its output 'a'"), qPrintable(message));
  }

  // Every point of each template's space (a sample of them) is a kernel the
  // device can run: tuning may pick any.
  void pointsOfTheSpacesBuild_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("reduce.cuda") << 0;
    QTest::newRow("dense_small.cuda") << 1;
    QTest::newRow("dense_tiled.cuda") << 2;
    QTest::newRow("conv2d_direct.cuda") << 3;
  }
  void pointsOfTheSpacesBuild() {
    QFETCH(int, which);
    std::vector<te::Tensor> t;
    topi::OpTemplateFn fn = nullptr;
    te::Tensor anchor;
    std::vector<te::Tensor> args;
    if (which == 0) {
      t = softmax(64, 1000);
      fn = topi::cuda_reduce_template;
      anchor = t[1];
      args = {t[0], t[2]};
    } else if (which == 1 || which == 2) {
      t = dense(which == 1 ? 1 : 100, 384, 256, which == 1);
      fn = topi::cuda_dense_template;
      anchor = t[3];
      args = {t[0], t[1], t[2], t[4]};
    } else {
      t = conv(32, 64, 28, 3, 1);
      fn = topi::cuda_conv2d_template;
      anchor = t[3];
      args = {t[0], t[1], t[2], t[4]};
    }
    const Target target = Target::parse(kH100);
    const topi::SearchSpace space = fn(anchor, {args.back()}, target.vector_unit());
    QVERIFY(space.valid(space.default_config));
    // Index combinations in mixed radix, about 24 of them spread over the
    // space (an odd stride, so that every knob's options come up).
    int64_t combinations = 1;
    for (const topi::Knob& knob : space.knobs) combinations *= int64_t(knob.options.size());
    int built = 0;
    const int64_t stride = std::max<int64_t>(1, combinations / 24) | 1;
    for (int64_t n = 0; n < combinations && built < 24; n += stride) {
      topi::Config config;
      int64_t rest = n;
      for (const topi::Knob& knob : space.knobs) {
        config.push_back(int(rest % int64_t(knob.options.size())));
        rest /= int64_t(knob.options.size());
      }
      if (!space.valid(config)) continue;
      schedule::Schedule sch({args.back().op()});
      space.apply(sch, config);
      const tir::PrimFunc f =
          tir::lower(sch, args, "point", {.record_ir = false, .target = kH100}).func;
      const QString ptx = QString::fromStdString(codegen::emit_assembly({f}, target));
      QVERIFY2(ptx.contains(".entry point("),
               qPrintable(QString::fromStdString(space.describe(config))));
      ++built;
    }
    QVERIFY2(built >= 5, qPrintable(QString("only %1 points built").arg(built)));
  }
};

QTEST_GUILESS_MAIN(TestCudaTemplates)
#include "tst_cuda_templates.moc"

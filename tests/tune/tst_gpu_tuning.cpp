// Tuning for cuda without a GPU: the GPU sketches (tune/sketch_space_cuda.h)
// of dense, conv, reduction and elementwise groups give schedules that lower,
// pass the GPU verifier and assemble with CUDA's ptxas for sm_90 (where the
// machine has it), in every sketch and over a sample of each space's points;
// a candidate the verifier refuses is an instantiation error before any
// measurement; a cuda candidate travels to the measure worker as a cuda
// kernel object; and without a CUDA driver the worker answers a cuda
// candidate with the driver's reason and the tuner refuses up front with
// "no CUDA driver". What needs a GPU (the timings) runs in tools/gpu.
#include <QtTest>

#include <cstdlib>
#include <map>

#include "../gpu_test_support.h"
#include "../test_models.h"
#include "codegen/codegen.h"
#include "codegen/gpu_launch.h"
#include "frontend/onnx/onnx_import.h"
#include "passes/pipeline.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "tir/lower.h"
#include "tir/printer.h"
#include "topi/nn.h"
#include "tune/cuda_kernel_object.h"
#include "tune/gpu_task.h"
#include "tune/measure.h"
#include "tune/records.h"
#include "tune/search_task.h"
#include "tune/sketch_space_cuda.h"
#include "tune/tuning_session.h"

namespace lathe {
namespace {
using codegen::Target;
using te::Expr;

using te::Var;

using testing::has_ptxas;
using testing::kH100;
using testing::kPtxas;
using testing::ptxas_errors;
const te::DataType f32 = te::DataType::Float(32);

// out = relu(A x B^T + bias), B of [N, K] (a Gemm of transB).
std::vector<te::Tensor> dense(int64_t m, int64_t n, int64_t k) {
  te::Tensor a = te::placeholder({m, k}, f32, "a");
  te::Tensor b = te::placeholder({n, k}, f32, "b");
  te::Tensor bias = te::placeholder({n}, f32, "bias");
  te::Tensor bt = te::compute(
      {k, n}, [&](const std::vector<Var>& i) { return b(i[1], i[0]); }, "bt", {"k", "j"},
      "transpose_b");
  te::IterVar r = te::reduce_axis(k, "r");
  te::Tensor mm = te::compute(
      {m, n},
      [&](const std::vector<Var>& i) { return te::sum(a(i[0], r.var()) * bt(r.var(), i[1]), {r}); },
      "mm", {"i", "j"}, "matmul");
  te::Tensor out = te::compute(
      {m, n},
      [&](const std::vector<Var>& i) { return te::max(mm(i[0], i[1]) + bias(i[1]), Expr(0.0f)); },
      "out", {"i", "j"});
  return {a, b, bias, out};
}

// out = relu(conv2d(x, w) + bias), NCHW, padding k/2.
std::vector<te::Tensor> conv(int64_t c, int64_t f, int64_t size, int64_t k) {
  topi::Conv2dParams p;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = k / 2;
  te::Tensor x = te::placeholder({1, c, size, size}, f32, "x");
  te::Tensor w = te::placeholder({f, c, k, k}, f32, "w");
  te::Tensor bias = te::placeholder({f}, f32, "bias");
  te::Tensor y = topi::conv2d_nchw(x, w, p, "conv");
  te::Tensor out = te::compute(y.shape(),
                               [&](const std::vector<Var>& i) {
                                 return te::max(y(i[0], i[1], i[2], i[3]) + bias(i[1]), Expr(0.0f));
                               },
                               "out", {"n", "f", "y", "x"});
  return {x, w, bias, out};
}

// A global average pool: [1, c, h, w] -> [1, c, 1, 1].
std::vector<te::Tensor> global_pool(int64_t c, int64_t size) {
  te::Tensor x = te::placeholder({1, c, size, size}, f32, "x");
  te::IterVar ry = te::reduce_axis(size, "ry"), rx = te::reduce_axis(size, "rx");
  te::Tensor sum = te::compute({1, c, 1, 1},
                               [&](const std::vector<Var>& i) {
                                 return te::sum(x(i[0], i[1], ry.var(), rx.var()), {ry, rx});
                               },
                               "sum", {"n", "c", "o1", "o2"});
  te::Tensor mean =
      te::compute({1, c, 1, 1},
                  [&](const std::vector<Var>& i) {
                    return sum(i[0], i[1], i[2], i[3]) * Expr(1.0f / float(size * size));
                  },
                  "mean", {"n", "c", "o1", "o2"});
  return {x, mean};
}

// clip(x + y, 0, 6) over [1, c, h, w].
std::vector<te::Tensor> elementwise(int64_t c, int64_t size) {
  te::Tensor x = te::placeholder({1, c, size, size}, f32, "x");
  te::Tensor y = te::placeholder({1, c, size, size}, f32, "y");
  te::Tensor out = te::compute({1, c, size, size},
                               [&](const std::vector<Var>& i) {
                                 Expr v = x(i[0], i[1], i[2], i[3]) + y(i[0], i[1], i[2], i[3]);
                                 return te::min(te::max(v, Expr(0.0f)), Expr(6.0f));
                               },
                               "out", {"n", "c", "h", "w"});
  return {x, y, out};
}

std::vector<te::Tensor> group(int which) {
  switch (which) {
    case 0:
      return dense(128, 256, 512);
    case 1:
      return conv(64, 64, 28, 3);
    case 2:
      return global_pool(256, 7);
    case 3:
      return dense(1, 1000, 512);
    default:
      return elementwise(32, 28);
  }
}

struct Built {
  tir::PrimFunc func;
  codegen::GpuLaunch launch;
  std::string ptx;
};

// The config's schedule of the group, lowered for `target`, verified and as
// PTX. Throws what lowering, the verifier or the back end throw.
Built build(const topi::SearchSpace& space, const topi::Config& config,
            const std::vector<te::Tensor>& args, const Target& target) {
  schedule::Schedule sch({args.back().op()});
  space.apply(sch, config);
  Built b;
  b.func = tir::lower(sch, args, "k", {.record_ir = false, .target = target.to_string()}).func;
  b.launch = codegen::verify_gpu_func(b.func, target);
  b.ptx = codegen::emit_assembly({b.func}, target);
  return b;
}

// The space's points in mixed radix with an odd stride (so every knob's
// options come up), those the constraint keeps, up to `count`, with
// knob 0 (the sketch) set to `sketch`.
std::vector<topi::Config> sample(const topi::SearchSpace& space, int sketch, int count) {
  std::vector<topi::Config> configs;
  double combinations = 1;
  for (size_t k = 1; k < space.knobs.size(); ++k) combinations *= space.knobs[k].options.size();
  const double stride = std::max(1.0, std::floor(combinations / 4000)) + 1;
  for (double n = 0; n < combinations && int(configs.size()) < count; n += stride) {
    topi::Config config = {sketch};
    double rest = n;
    for (size_t k = 1; k < space.knobs.size(); ++k) {
      const double size = double(space.knobs[k].options.size());
      config.push_back(int(std::fmod(rest, size)));
      rest = std::floor(rest / size);
    }
    if (space.valid(config)) configs.push_back(config);
  }
  return configs;
}

struct Model {
  Graph graph;
  passes::OptimizedGraph optimized;
  std::vector<tune::KernelTask> tasks;
};

Model load_mlp() {
  Model m;
  m.graph = onnx_frontend::import_model_file(
      (lathe::testing::test_models_dir() + "/mlp.onnx").toStdString());
  passes::PassOptions options;
  options.record_snapshots = false;
  options.alter_layout = false;
  m.optimized = passes::optimize_graph(m.graph, options);
  m.tasks = tune::extract_tasks(m.optimized.graph, m.optimized.groups);
  return m;
}

}  // namespace
}  // namespace lathe

using namespace lathe;

class TestGpuTuning : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // No test may find a driver: a GPU machine runs tools/gpu instead.
    qputenv("LATHE_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
  }

  void sketchesOfEachGroup_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QStringList>("rules");
    QTest::newRow("dense 128x256x512") << 0 << QStringList{"0", "1"};
    QTest::newRow("conv 64->64 3x3 28x28") << 1 << QStringList{"0", "1"};
    QTest::newRow("global pool 256x7x7") << 2 << QStringList{"1"};
    QTest::newRow("dense 1x1000x512") << 3 << QStringList{"1", "0"};
    QTest::newRow("elementwise") << 4 << QStringList{"2"};
  }
  // Each group's sketches (0 multi-level tiling, 1 cross-thread reduction,
  // 2 elementwise, preferred first), their defaults and a sample of their
  // points: lowered, verified, PTX that ptxas assembles. Multi-level tiling
  // fetches into shared memory between barriers; a cross-thread reduction
  // combines partials by warp shuffles.
  void sketchesOfEachGroup() {
    QFETCH(int, which);
    QFETCH(QStringList, rules);
    const Target target = Target::parse(kH100);
    const std::vector<te::Tensor> args = group(which);
    const topi::SearchSpace space = tune::gpu_sketch_search_space({args.back()}, target);
    QCOMPARE(QString::fromStdString(space.name), QString("sketch.cuda"));
    QStringList offered;
    for (const auto& option : space.knobs[0].options) offered << QString::number(option[0]);
    QCOMPARE(offered, rules);
    QVERIFY(space.valid(space.default_config));
    const Built def = build(space, space.default_config, args, target);
    QVERIFY(def.launch.threads_per_block() >= 32);
    if (has_ptxas()) {
      const QString errors = ptxas_errors(def.ptx);
      QVERIFY2(errors.isEmpty(), qPrintable(errors));
    } else {
      qInfo("no CUDA ptxas at %s (not a Debian package): PTX checked by its text alone", kPtxas);
    }

    for (int s = 0; s < rules.size(); ++s) {
      const std::vector<topi::Config> configs = sample(space, s, 12);
      QVERIFY2(configs.size() >= 4,
               qPrintable(QString("sketch %1: %2 points kept").arg(rules[s]).arg(configs.size())));
      int built = 0, assembled = 0;
      for (const topi::Config& config : configs) {
        Built b;
        try {
          b = build(space, config, args, target);
        } catch (const codegen::GpuVerifyError& e) {
          // The constraint's estimate of the shared tiles keeps only points
          // the verifier accepts.
          QFAIL(qPrintable(QString::fromStdString(space.describe(config) + ": " + e.what())));
        } catch (const std::exception& e) {
          QFAIL(qPrintable(QString::fromStdString(space.describe(config) + ": " + e.what())));
        }
        ++built;
        const QString ptx = QString::fromStdString(b.ptx);
        if (rules[s] == "0") {
          QVERIFY2(ptx.contains(".shared") && ptx.contains("bar.sync"),
                   qPrintable(QString::fromStdString(space.describe(config))));
        } else if (rules[s] == "1") {
          QVERIFY2(ptx.contains("shfl.sync.bfly"),
                   qPrintable(QString::fromStdString(space.describe(config))));
        }
        if (assembled < 3 && has_ptxas()) {
          const QString e = ptxas_errors(b.ptx);
          QVERIFY2(e.isEmpty(), qPrintable(QString::fromStdString(space.describe(config)) + e));
          ++assembled;
        }
      }
      QVERIFY2(built >= 3, qPrintable(QString("sketch %1: %2 built").arg(rules[s]).arg(built)));
    }
  }

  // Multi-level tiling's vthread level (S1): two virtual threads on the
  // dense's rows give every thread two register tiles a block of rows
  // apart, interleaved in its code; the launch keeps the default's threads
  // and each step's shared tile of A grows to the block's rows.
  void multiLevelTilingWithVirtualThreads() {
    const Target target = Target::parse(kH100);
    const std::vector<te::Tensor> args = group(0);
    const topi::SearchSpace space = tune::gpu_sketch_search_space({args.back()}, target);
    topi::Config config = space.default_config;
    QCOMPARE(space.knobs[0].options[size_t(config[0])][0], int64_t(0));  // multi-level tiling
    const Built plain = build(space, config, args, target);
    const std::vector<int64_t> rows = space.knobs[1].options[size_t(config[1])];  // S0..S4
    QCOMPARE(int(rows.size()), 5);
    QCOMPARE(rows[1], int64_t(1));  // no virtual threads by default
    QVERIFY(rows[0] % 2 == 0);
    config[1] =
        int(topi::option_index(space.knobs[1], {rows[0] / 2, 2, rows[2], rows[3], rows[4]}));
    QVERIFY2(space.valid(config), space.describe(config).c_str());
    const Built b = build(space, config, args, target);
    const QString ir = QString::fromStdString(tir::to_string(b.func));
    QVERIFY2(!ir.contains("vthread"), qPrintable(ir));
    QCOMPARE(b.launch.threads_per_block(), plain.launch.threads_per_block());
    QVERIFY(b.launch.shared_bytes > plain.launch.shared_bytes);
    if (has_ptxas()) {
      const QString errors = ptxas_errors(b.ptx);
      QVERIFY2(errors.isEmpty(), qPrintable(errors));
    }
  }

  // Groups the GPU rules do not cover say why (the tuner then searches the
  // cuda template's space).
  void uncoveredGroupsAreRefusedByName() {
    te::Tensor x = te::placeholder({64}, f32, "x");
    te::IterVar k = te::reduce_axis(64, "k");
    te::Tensor total = te::compute(
        {}, [&](const std::vector<Var>&) { return te::sum(x(k.var()), {k}); }, "total", {});
    try {
      tune::gpu_sketch_search_space({total}, Target::parse(kH100));
      QFAIL("a scalar reduction got GPU sketches");
    } catch (const UnsupportedError& e) {
      QVERIFY2(QString(e.what()).contains("scalar"), e.what());
    }
  }

  // The constraint follows the target's limits: with 128 threads and 16 KiB
  // of shared memory, every kept point of every sketch fits them.
  void constraintFollowsTheTarget() {
    const Target target = Target::parse(
        "cuda -arch=sm_90 -max_threads_per_block=128 -max_shared_memory_per_block=16384");
    const std::vector<te::Tensor> args = group(0);
    const topi::SearchSpace space = tune::gpu_sketch_search_space({args.back()}, target);
    for (int s = 0; s < int(space.knobs[0].options.size()); ++s)
      for (const topi::Config& config : sample(space, s, 6)) {
        Built b;
        try {
          b = build(space, config, args, target);
        } catch (const codegen::GpuVerifyError& e) {
          QFAIL(qPrintable(QString::fromStdString(space.describe(config) + ": " + e.what())));
        }
        QVERIFY2(b.launch.threads_per_block() <= 128 && b.launch.shared_bytes <= 16384,
                 qPrintable(QString::fromStdString(space.describe(config))));
      }
  }

  // The tuner's GPU build: a verifier refusal (here: shared memory over a
  // 1 KiB limit) is an instantiation error, so it is never measured; a
  // kernel that passes becomes a cuda kernel object with its launch.
  void verifierRefusalIsAnInstantiationError() {
    const std::vector<te::Tensor> args = group(0);
    const Target small = Target::parse("cuda -arch=sm_90 -max_shared_memory_per_block=1024");
    const Target full = Target::parse(kH100);
    const topi::SearchSpace space = tune::gpu_sketch_search_space({args.back()}, full);
    schedule::Schedule sch({args.back().op()});
    space.apply(sch, space.default_config);
    tune::Candidate c;
    c.func = tir::lower(sch, args, "k", {.record_ir = false, .target = small.to_string()}).func;
    tune::Candidate ok = c;
    tune::compile_gpu_candidate(c, small);
    QCOMPARE(QString::fromStdString(c.error_kind), QString("instantiation"));
    QVERIFY2(QString::fromStdString(c.error_message).contains("shared"), c.error_message.c_str());
    QVERIFY(c.object.empty());

    ok.func.target = full.to_string();
    tune::compile_gpu_candidate(ok, full);
    QVERIFY2(ok.ok(), ok.error_message.c_str());
    const tune::CudaKernelObject object = tune::decode_cuda_kernel_object(ok.object);
    QCOMPARE(QString::fromStdString(object.kernel), QString("k"));
    QVERIFY(object.launch.block[0] >= 32);
    QVERIFY(QString::fromStdString(object.ptx).contains(".entry k("));
  }

  void cudaKernelObjectRoundTrip() {
    tune::CudaKernelObject o{"fused_dense", {{4, 2, 1}, {128, 1, 1}, 4096}, ".version 7.8\n"};
    const std::vector<char> bytes = tune::encode_cuda_kernel_object(o);
    QVERIFY(tune::is_cuda_kernel_object(bytes));
    const tune::CudaKernelObject back = tune::decode_cuda_kernel_object(bytes);
    QCOMPARE(QString::fromStdString(back.kernel), QString("fused_dense"));
    QVERIFY(back.launch == o.launch);
    QCOMPARE(QString::fromStdString(back.ptx), QString(".version 7.8\n"));
    // An ELF object is not one; a damaged header is named.
    QVERIFY(!tune::is_cuda_kernel_object({'\x7f', 'E', 'L', 'F'}));
    std::string bad = "LATHE-CUDA-KERNEL 1\n{\"kernel\": \"k\", \"grid\": [0, 1, 1]}\nptx";
    try {
      tune::decode_cuda_kernel_object({bad.begin(), bad.end()});
      QFAIL("a grid of 0 was accepted");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("grid"), e.what());
    }
  }

  // Without a driver the worker answers a cuda candidate with the driver's
  // reason, as a compile error that leaves it running (no context was
  // harmed), and still measures CPU candidates.
  void workerWithoutDriverNamesIt() {
    tune::MeasureWorker worker;
    tune::BufferData in{"float32", {4}, std::vector<char>(16, 0)};
    tune::BufferData out{"float32", {4}, {}};
    worker.set_buffers({in, out}, 1);
    tune::CudaKernelObject o{"k", {{1, 1, 1}, {32, 1, 1}, 0}, ".version 7.8\n"};
    tune::MeasureOptions options;
    options.repeat = 1;
    for (int i = 0; i < 2; ++i) {
      const tune::MeasureResult r =
          worker.measure({tune::encode_cuda_kernel_object(o), "k", true}, options);
      QCOMPARE(tune::to_string(r.error), std::string("compile"));
      QVERIFY2(QString::fromStdString(r.message).contains("cannot open the CUDA driver"),
               r.message.c_str());
    }
    QCOMPARE(worker.restarts(), 1);
  }

  void tunerRefusesWithoutDriver() {
    try {
      tune::require_cuda_device(Target::parse(kH100));
      QFAIL("a CUDA driver was found at /nonexistent");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).startsWith("no CUDA driver: cuda: cannot open the CUDA driver "
                                            "/nonexistent/libcuda.so.1"),
               e.what());
    }
  }

  // A whole session for cuda, on a machine without a driver (which `lathe
  // tune` refuses before this): the PTX candidates reach the measure worker,
  // whose answer names the driver; every trial is a record of that error
  // under the cuda target, and nothing crashes.
  void sessionOnCudaRecordsTheDriversAbsence() {
    const Model m = load_mlp();
    const Target target = Target::parse(kH100);
    std::vector<tune::SearchTask> tasks;
    tasks.push_back(tune::make_search_task(m.optimized.graph, m.optimized.groups, m.tasks.at(0),
                                           tune::SpaceKind::Template, target));
    QTemporaryDir dir;
    tune::TuningOptions o;
    o.target = target;
    o.tuner = "random";
    o.trials = 3;
    o.batch_size = 3;
    o.build_threads = 2;
    o.measure.repeat = 1;
    o.measure.flush_cache = false;
    o.records_path = dir.filePath("records.json").toStdString();
    tune::TuningSession session(std::move(tasks), o);
    session.run();
    const tune::RecordFile file = tune::read_records(o.records_path);
    QVERIFY(!file.records.empty());
    for (const tune::TuningRecord& r : file.records) {
      QCOMPARE(QString::fromStdString(r.target), QString::fromStdString(target.to_string()));
      QCOMPARE(QString::fromStdString(r.error_kind), QString("compile"));
      QVERIFY2(QString::fromStdString(r.error_message).contains("cannot open the CUDA driver"),
               r.error_message.c_str());
    }
  }

  // The MLP's tasks as cuda search tasks: the baseline is the cuda template
  // (what `lathe compile --target cuda` runs), the sketch space covers the
  // Gemm groups, and every candidate (both spaces' defaults and a sample)
  // builds into a cuda kernel object whose PTX ptxas accepts.
  void mlpTasksBuildForCuda() {
    const Model m = load_mlp();
    const Target target = Target::parse(kH100);
    int sketched = 0;
    for (const tune::KernelTask& task : m.tasks) {
      const tune::SearchTask t = tune::make_search_task(m.optimized.graph, m.optimized.groups, task,
                                                        tune::SpaceKind::Sketch, target);
      QVERIFY2(QString::fromStdString(t.baseline.name).endsWith(".cuda"), t.baseline.name.c_str());
      QCOMPARE(t.gpu_target, target.to_string());
      if (t.space.name == "sketch.cuda") ++sketched;
      const tune::Candidate base = tune::build_baseline(t, target);
      QVERIFY2(base.ok(), base.error_message.c_str());
      for (const topi::Config& config : sample(t.space, t.space.default_config[0], 4)) {
        const tune::Candidate c = tune::build_candidate(t, config, target);
        QVERIFY2(c.ok() || c.error_kind == "instantiation",
                 qPrintable(QString::fromStdString(c.error_kind + ": " + c.error_message)));
        if (!c.ok()) continue;
        const tune::CudaKernelObject o = tune::decode_cuda_kernel_object(c.object);
        if (has_ptxas()) {
          const QString errors = ptxas_errors(o.ptx);
          QVERIFY2(errors.isEmpty(), qPrintable(errors));
        }
        // A record keeps the schedule as text: it must build the same kernel
        // (what `lathe compile --tuning-records` and the session's rivals do).
        const tune::Candidate again = tune::build_schedule_text(t, c.schedule_text, target);
        QVERIFY2(again.ok(), again.error_message.c_str());
        QVERIFY(again.object == c.object);
      }
    }
    QVERIFY(sketched >= 1);
  }

  // What the candidates compute, without a GPU: the MLP's tasks' baselines
  // and a sample of both spaces (sketches: multi-level tiling with shared
  // tiles, cross-thread reductions) run on the GPU simulator against the
  // reference kernels, as `lathe_gpu_candidates --simulate` checks a model's
  // tuning space before a GPU measures it.
  void candidatesComputeTheReference() {
    const Model m = load_mlp();
    const Target target = Target::parse(kH100);
    int simulated = 0;
    for (const tune::KernelTask& task : m.tasks) {
      for (tune::SpaceKind kind : {tune::SpaceKind::Template, tune::SpaceKind::Sketch}) {
        const tune::SearchTask t =
            tune::make_search_task(m.optimized.graph, m.optimized.groups, task, kind, target);
        std::vector<tune::Candidate> candidates = {tune::build_baseline(t, target)};
        if (!t.space.knobs.empty())
          for (const topi::Config& config : sample(t.space, t.space.default_config[0], 4))
            candidates.push_back(tune::build_candidate(t, config, target));
        for (const tune::Candidate& c : candidates) {
          if (!c.ok()) continue;
          const double error = tune::simulated_output_error(t.data, c.func, target);
          QVERIFY2(error <= 1e-4, qPrintable(QString::fromStdString(c.schedule_text) +
                                             QString("max error %1").arg(error)));
          ++simulated;
        }
      }
    }
    QVERIFY(simulated >= 8);
  }
};

QTEST_GUILESS_MAIN(TestGpuTuning)
#include "tst_gpu_tuning.moc"

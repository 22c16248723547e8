// Every test model compiles (graph passes, fusion, TOPI, default
// schedules, LLVM) and matches PyTorch's output to a normalized error of
// 1e-4, and so does a tuned build (schedules the tuner could pick, read from
// records); the same model packaged as module.tar and run by `lathe run` in a
// fresh process gives the same output as the in-memory compile.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>
#include <sstream>

#include "../test_models.h"
#include "driver/compiled_module.h"
#include "driver/kernel_workbench.h"
#include "driver/model_loader.h"
#include "driver/tensor_files.h"
#include "driver/tuning_records.h"
#include "ir/normalized_error.h"
#include "runtime/cpu_features.h"
#include "schedule/schedule_text.h"
#include "support/error.h"
#include "support/timer.h"
#include "tune/group_computation.h"
#include "tune/records.h"

using namespace lathe;

namespace {

QString models_dir() {
  return lathe::testing::test_models_dir();
}

// Vector-register spills and reloads inside innermost loops of verbose x86
// assembly: LLVM marks each innermost loop's header block ("This Inner Loop
// Header"), the loop runs to the last branch back to it, and it comments
// every spill and reload with its size ("32-byte Spill", "64-byte Folded
// Reload"); 16 bytes and more are xmm, ymm or zmm registers.
//
// A spill store in the loop means a value the loop computes goes through
// memory every iteration (an accumulator, a broadcast the next tap reuses):
// that is the register budget overrun the templates must avoid. A reload
// without one reads a loop-invariant value stored before the loop, which
// costs what a constant-pool operand costs (LLVM folds those into the FMA
// the same way); a vector exp's 13 constants do that on 16 registers.
struct InnerLoopSpills {
  int stores = 0;   // "N-byte Spill" inside an innermost loop
  int reloads = 0;  // "N-byte (Folded) Reload" inside one
};

InnerLoopSpills inner_loop_vector_spills(const std::string& assembly) {
  std::vector<std::string> lines;
  std::istringstream in(assembly);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex label(R"(^(\.LBB\w+):)");
  const std::regex spill(R"((16|32|64)-byte (Folded )?(Spill|Reload))");
  InnerLoopSpills spills;
  std::string block;
  size_t block_line = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_search(lines[i], m, label)) {
      block = m[1];
      block_line = i;
    }
    if (lines[i].find("Inner Loop Header") == std::string::npos || block.empty()) continue;
    // The loop's back edge: the last jump to its header, "jne .LBB3_5".
    auto jumps_to_block = [&](const std::string& l) {
      const size_t op = l.find_first_not_of(" \t");
      const size_t target = l.find_last_not_of(" \t") + 1;
      return op != std::string::npos && l[op] == 'j' && target >= block.size() &&
             l.compare(target - block.size(), block.size(), block) == 0 &&
             std::isspace(static_cast<unsigned char>(l[target - block.size() - 1]));
    };
    size_t end = block_line;
    for (size_t j = block_line + 1; j < lines.size(); ++j)
      if (jumps_to_block(lines[j])) end = j;
    for (size_t k = block_line; k <= end; ++k)
      if (std::regex_search(lines[k], m, spill))
        ++(m[3] == "Spill" ? spills.stores : spills.reloads);
  }
  return spills;
}

Tensor find(const driver::NamedTensors& io, const std::string& name) {
  for (const auto& [n, t] : io)
    if (n == name) return t;
  return {};
}

// Runs the compiled graph on the model's one input; its one output.
Tensor run_compiled(const driver::CompiledGraph& compiled, const codegen::Target& target,
                    const Tensor& input) {
  driver::JitGraphModule module(compiled, target);
  runtime::GraphExecutor& exec = module.executor();
  exec.set_input(exec.input_name(0), input.raw(), input.nbytes());
  exec.run();
  return driver::from_ndarray(exec.output(0));
}

// A schedule the tuner could pick for the task: a seeded random point of its
// template's search space other than the default, as schedule text; nullopt
// where the space has no other point the scheduler accepts.
std::optional<std::string> random_tuned_schedule(const driver::CompiledGraph& compiled,
                                                 const driver::KernelTask& task,
                                                 std::mt19937& rng) {
  const tune::GroupComputation c = tune::build_group_computation(
      compiled.optimized.graph, compiled.optimized.groups[static_cast<size_t>(task.groups.front())],
      compiled.optimized.vector_unit);
  const topi::SearchSpace space = tune::template_search_space(c);
  for (int attempt = 0; attempt < 50; ++attempt) {
    topi::Config config;
    for (const topi::Knob& k : space.knobs)
      config.push_back(std::uniform_int_distribution<int>(0, int(k.options.size()) - 1)(rng));
    if (config == space.default_config || !space.valid(config)) continue;
    try {
      return schedule::print_schedule(*tune::apply_config(c, space, config));
    } catch (const schedule::ScheduleError&) {
    }
  }
  return std::nullopt;
}

}  // namespace

class TestCompiledModels : public QObject {
  Q_OBJECT

 private slots:
  void compiledModelMatchesReference_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"mlp", "transformer_block", "squeezenet1_1", "mobilenet_v2", "resnet18"})
      QTest::newRow(m) << QString(m);
  }

  void compiledModelMatchesReference() {
    QFETCH(QString, model);
    const std::string base = (models_dir() + "/" + model).toStdString();
    Graph graph = driver::load_model(base + ".onnx");
    driver::NamedTensors io = driver::read_npz_tensors(base + ".io.npz");
    Tensor input = find(io, "input"), expected = find(io, "output");
    QVERIFY(input.defined() && expected.defined());

    Timer timer;
    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    driver::JitGraphModule module(compiled, options.target);
    double compile_ms = timer.milliseconds();
    runtime::GraphExecutor& exec = module.executor();
    QCOMPARE(exec.num_inputs(), 1);
    QCOMPARE(exec.num_outputs(), 1);
    exec.set_input(exec.input_name(0), input.raw(), input.nbytes());
    exec.run();
    Tensor got = driver::from_ndarray(exec.output(0));
    double error = normalized_error(got, expected);
    std::cout << model.toStdString() << ": " << compiled.tasks.size() << " kernels, "
              << compiled.optimized.groups.size() << " groups, compiled in " << compile_ms
              << " ms, normalized error " << error << std::endl;
    QVERIFY2(error <= 1e-4, qPrintable(QString("normalized error %1").arg(error)));

    // A second run reuses the planned storage: same answer.
    exec.run();
    QCOMPARE(normalized_error(driver::from_ndarray(exec.output(0)), got), 0.0);
  }

  // A tuned build: each task's schedule a random non-default point of its
  // search space, written as tuning records and read back as `lathe compile
  // --tuning-records` reads them; the model still matches PyTorch.
  void tunedModelMatchesPyTorch_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"mlp", "transformer_block", "squeezenet1_1", "mobilenet_v2"})
      QTest::newRow(m) << QString(m);
  }

  void tunedModelMatchesPyTorch() {
    QFETCH(QString, model);
    const std::string base = (models_dir() + "/" + model).toStdString();
    Graph graph = driver::load_model(base + ".onnx");
    driver::NamedTensors io = driver::read_npz_tensors(base + ".io.npz");
    const Tensor input = find(io, "input"), expected = find(io, "output");
    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    const driver::CompiledGraph plain = driver::compile_graph(graph, options);

    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>()(model.toStdString())));
    size_t written = 0;
    {
      std::ofstream out(path);
      for (const driver::KernelTask& task : plain.tasks) {
        const std::optional<std::string> schedule = random_tuned_schedule(plain, task, rng);
        if (!schedule) continue;
        tune::TuningRecord r;
        r.workload = tune::task_workload_id(task);
        r.target = options.target.to_string();
        r.schedule = *schedule;
        r.costs_ms = {1.0};
        out << tune::to_json_line(r) << "\n";
        ++written;
      }
    }
    QVERIFY2(written * 2 > plain.tasks.size(),
             qPrintable(QString("%1 of %2 tasks have a non-default point")
                            .arg(written)
                            .arg(plain.tasks.size())));

    const auto from_records = driver::best_schedules_from_records(path, options.target);
    size_t tuned_tasks = 0;
    options.schedule_for = [&](const driver::KernelTask& task) {
      std::optional<std::string> schedule = from_records(task);
      tuned_tasks += schedule.has_value();
      return schedule;
    };
    const driver::CompiledGraph tuned = driver::compile_graph(graph, options);
    QCOMPARE(tuned_tasks, written);
    const double error = normalized_error(run_compiled(tuned, options.target, input), expected);
    std::cout << model.toStdString() << ": " << tuned_tasks << " of " << tuned.tasks.size()
              << " tasks tuned, normalized error " << error << std::endl;
    QVERIFY2(error <= 1e-4, qPrintable(QString("normalized error %1").arg(error)));
  }

  // For an AVX2 target (16 ymm registers, 8 float lanes) the layout blocks
  // channels by 8 and the templates budget 16 registers: no kernel stores a
  // vector register to the stack inside an innermost loop (see
  // InnerLoopSpills), the code uses ymm and never zmm, and the model still
  // matches PyTorch (an AVX-512 machine runs AVX2 code). MobileNetV2's first
  // conv (3 channels, 3x3 stride 2: overlapping windows) and the
  // transformer's softmax and GELU (vector exp and erf) are the hard cases.
  void avx2TargetKeepsInnerLoopsInRegisters_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"mlp", "squeezenet1_1", "resnet18", "transformer_block", "mobilenet_v2"})
      QTest::newRow(m) << QString(m);
  }

  void avx2TargetKeepsInnerLoopsInRegisters() {
    QFETCH(QString, model);
    const std::string base = (models_dir() + "/" + model).toStdString();
    Graph graph = driver::load_model(base + ".onnx");
    driver::CompileOptions options;
    options.target = codegen::Target::parse("llvm -mcpu=haswell");
    options.passes.record_snapshots = false;
    QVERIFY(options.target.vector_unit() == VectorUnit::avx2());
    driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    QVERIFY(compiled.optimized.vector_unit == VectorUnit::avx2());
    for (const Node& node : compiled.optimized.graph.nodes)
      if (node.op == "Conv2dNCHWc")
        QVERIFY2(compiled.optimized.graph.type(node.outputs[0]).shape.back() <= 8,
                 node.name.c_str());

    QStringList spilling;
    for (size_t i = 0; i < compiled.funcs.size(); ++i) {
      const std::string assembly = codegen::emit_assembly({compiled.funcs[i]}, options.target);
      const std::string& name = compiled.tasks[i].func_name;
      QVERIFY2(assembly.find("%zmm") == std::string::npos, name.c_str());
      if (const int n = inner_loop_vector_spills(assembly).stores; n > 0)
        spilling << QString("%1 (%2)").arg(QString::fromStdString(name)).arg(n);
    }
    QVERIFY2(spilling.isEmpty(),
             qPrintable("vector spills in an inner loop: " + spilling.join(", ")));

    const std::vector<std::string> lacking =
        runtime::missing_cpu_features(options.target.isa_features());
    if (!lacking.empty()) QSKIP("this CPU cannot run Haswell code (it lacks AVX2 or FMA)");
    driver::NamedTensors io = driver::read_npz_tensors(base + ".io.npz");
    driver::JitGraphModule module(compiled, options.target);
    runtime::GraphExecutor& exec = module.executor();
    const Tensor input = find(io, "input");
    exec.set_input(exec.input_name(0), input.raw(), input.nbytes());
    exec.run();
    const double error = normalized_error(driver::from_ndarray(exec.output(0)), find(io, "output"));
    QVERIFY2(error <= 1e-4, qPrintable(QString("normalized error %1").arg(error)));
  }

  // A spill inside an inner loop is found: 28 accumulators of a 3x3 conv
  // cannot live in AVX2's 16 registers.
  void innerLoopSpillsAreDetected() {
    const std::string base = (models_dir() + "/resnet18").toStdString();
    Graph graph = driver::load_model(base + ".onnx");
    const codegen::Target haswell = codegen::Target::parse("llvm -mcpu=haswell");
    passes::OptimizedGraph optimized =
        passes::optimize_graph(graph, {.alter_layout = true,
                                       .record_snapshots = false,
                                       .vector_unit = VectorUnit::avx2(),
                                       .external_codegens = std::nullopt});
    std::vector<driver::KernelTask> tasks = tune::extract_tasks(optimized.graph, optimized.groups);
    const auto conv = std::find_if(tasks.begin(), tasks.end(), [](const driver::KernelTask& t) {
      return t.signature.find("float32[1,8,56,56,8], float32[8,8,3,3,8,8]") == 0;
    });
    QVERIFY(conv != tasks.end());
    driver::KernelWorkbench bench(optimized.graph, optimized.groups, *conv, VectorUnit::avx2());
    std::string text = bench.default_schedule_text();
    const size_t at = text.find("factor=4)");
    QVERIFY2(at != std::string::npos, text.c_str());
    text.replace(at, 9, "factor=28)");
    const std::string spilling = codegen::emit_assembly({bench.lower(text, false).func}, haswell);
    QVERIFY(inner_loop_vector_spills(spilling).stores > 0);
    const std::string fitting =
        codegen::emit_assembly({bench.lower(bench.default_schedule_text(), false).func}, haswell);
    QCOMPARE(inner_loop_vector_spills(fitting).stores, 0);
  }

  // The package, loaded by a fresh `lathe run` process, reproduces the
  // in-memory compile bit for bit.
  void packageInFreshProcessMatchesInMemory() {
    const std::string base = (models_dir() + "/squeezenet1_1").toStdString();
    Graph graph = driver::load_model(base + ".onnx");
    driver::NamedTensors io = driver::read_npz_tensors(base + ".io.npz");
    Tensor input = find(io, "input");
    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    driver::CompiledGraph compiled = driver::compile_graph(graph, options);
    std::vector<Tensor> in_memory = driver::run_compiled(graph, {{"input", input}}, options);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string tar = dir.filePath("module.tar").toStdString();
    driver::export_package(compiled, options.target, tar);
    std::string in_npz = dir.filePath("in.npz").toStdString();
    std::string out_npz = dir.filePath("out.npz").toStdString();
    driver::write_npz_tensors(in_npz, {{"input", input}});

    QProcess p;
    p.start(qEnvironmentVariable("LATHE_BIN_DIR", "bin") + "/lathe",
            {"run", QString::fromStdString(tar), "--inputs", QString::fromStdString(in_npz),
             "--output", QString::fromStdString(out_npz)});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    driver::NamedTensors out = driver::read_npz_tensors(out_npz);
    QCOMPARE(out.size(), size_t{1});
    QCOMPARE(normalized_error(out[0].second, in_memory[0]), 0.0);
  }

  // --tuning-records: per task, the fastest record without an error for the
  // compile target wins; a torn last line is skipped with a warning, a
  // malformed line before it is an error naming the file and line.
  void tuningRecordsChooseTheFastestValidSchedule() {
    const std::string base = (models_dir() + "/mlp.onnx").toStdString();
    Graph graph = driver::load_model(base);
    driver::CompileOptions options;
    options.passes.record_snapshots = false;
    driver::CompiledGraph plain = driver::compile_graph(graph, options);
    const driver::KernelTask& task = plain.tasks.at(1);
    driver::KernelWorkbench bench(plain.optimized.graph, plain.optimized.groups, task);
    std::string good = bench.default_schedule_text();

    QTemporaryDir dir;
    std::string path = dir.filePath("records.json").toStdString();
    auto record = [&](const std::string& schedule, double ms, bool error,
                      const std::string& target) {
      tune::TuningRecord r;
      r.workload = tune::task_workload_id(task);
      r.target = target;
      r.schedule = schedule;
      r.costs_ms = {ms};
      if (error) r.error_kind = "runtime";
      return tune::to_json_line(r) + "\n";
    };
    const std::string host = options.target.to_string();
    {
      std::ofstream out(path);
      out << record("this is not a schedule", 0.001, true, host)       // fastest, but failed
          << record("nor is this", 0.002, false, "llvm -mcpu=znver4")  // another target
          << record(good, 0.5, false, host)                            // the one to use
          << record("also not a schedule", 0.9, false, host);          // slower
    }
    driver::TuningRecordSet set = driver::load_tuning_records(path, options.target);
    QCOMPARE(set.num_records, size_t{4});
    QCOMPARE(set.other_target, size_t{1});
    QCOMPARE(set.schedule_for(task).value_or(""), good);
    QVERIFY(!set.schedule_for(plain.tasks.at(0)));
    options.schedule_for = driver::best_schedules_from_records(path, options.target);
    driver::CompiledGraph tuned = driver::compile_graph(graph, options);
    QCOMPARE(tuned.tasks.size(), plain.tasks.size());

    {
      std::ofstream out(path, std::ios::app);
      out << "{\"version\": 1, \"task\": {\"work";  // a writer killed mid-line
    }
    set = driver::load_tuning_records(path, options.target);
    QCOMPARE(set.warnings.size(), size_t{1});
    QVERIFY2(set.warnings[0].find("records.json:5: torn last line") != std::string::npos,
             set.warnings[0].c_str());
    QCOMPARE(set.schedule_for(task).value_or(""), good);
    {
      std::ofstream out(path, std::ios::app);
      out << "\n" << record(good, 0.4, false, host);  // the torn line is now in the middle
    }
    try {
      driver::load_tuning_records(path, options.target);
      QFAIL("a malformed record was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("records.json:5:") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestCompiledModels)
#include "tst_compiled_models.moc"

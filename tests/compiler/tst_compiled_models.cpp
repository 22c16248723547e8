// Every model in shared/models compiles (graph passes, fusion, TOPI, default
// schedules, LLVM) and matches PyTorch's output to a normalized error of
// 1e-4; the same model packaged as module.tar and run by `lathe run` in a
// fresh process gives the same output as the in-memory compile.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

#include "../test_models.h"
#include "driver/compiled_module.h"
#include "driver/model_loader.h"
#include "driver/task_workbench.h"
#include "driver/tensor_files.h"
#include "driver/tuning_records.h"
#include "support/error.h"
#include "support/timer.h"

using namespace lathe;

namespace {

double normalized_error(const Tensor& got, const Tensor& ref) {
  if (got.shape() != ref.shape()) return INFINITY;
  const float* g = got.data<float>();
  const float* r = ref.data<float>();
  double max_diff = 0, max_ref = 0;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    max_diff = std::max(max_diff, std::isnan(g[i]) ? INFINITY : std::abs(double(g[i]) - r[i]));
    max_ref = std::max(max_ref, std::abs(static_cast<double>(r[i])));
  }
  return max_diff / max_ref;
}

QString models_dir() {
  return lathe::testing::test_models_dir();
}

Tensor find(const driver::NamedTensors& io, const std::string& name) {
  for (const auto& [n, t] : io)
    if (n == name) return t;
  return {};
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
    driver::TaskWorkbench bench(plain.optimized.graph, plain.optimized.groups, task);
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

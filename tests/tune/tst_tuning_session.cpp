// Tuning sessions end to end on the shared MLP: every trial becomes one record
// line as it finishes, each task's default schedule is measured first, a
// candidate whose output disagrees with the reference executor is recorded as
// a wrong answer and never becomes the best, a resumed session measures no
// config twice, and a session stops when told to.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>

#include "frontend/onnx/onnx_import.h"
#include "passes/pipeline.h"
#include "tune/records.h"
#include "tune/tuning_session.h"

using namespace lathe;
using namespace lathe::tune;

namespace {

struct Model {
  Graph graph;
  passes::OptimizedGraph optimized;
  std::vector<KernelTask> tasks;
};

Model load_mlp() {
  QString dir = qEnvironmentVariable("LATHE_SHARED_MODELS", "../shared/models");
  Model m;
  m.graph = onnx_frontend::import_model_file((dir + "/mlp.onnx").toStdString());
  passes::PassOptions options;
  options.record_snapshots = false;
  m.optimized = passes::optimize_graph(m.graph, options);
  m.tasks = extract_tasks(m.optimized.graph, m.optimized.groups);
  return m;
}

std::vector<TuningTask> tuning_tasks(const Model& m) {
  std::vector<TuningTask> tasks;
  for (const KernelTask& t : m.tasks)
    tasks.push_back(
        make_tuning_task(m.optimized.graph, m.optimized.groups, t, SpaceKind::Template));
  return tasks;
}

TuningOptions quick_options(const std::string& records) {
  TuningOptions o;
  o.trials = 20;
  o.batch_size = 4;
  o.build_threads = 2;
  o.measure.repeat = 2;
  o.measure.timeout_s = 20;
  o.records_path = records;
  return o;
}

class Counter : public TuningListener {
 public:
  int trials = 0, rounds = 0, finished = 0;
  int stop_after = 0;
  TuningControl* control = nullptr;
  void on_trial(const TrialEvent&, const TuningProgress&) override {
    if (++trials == stop_after && control) control->stop = true;
  }
  void on_round(int, const TuningProgress&) override { ++rounds; }
  void on_finish(const TuningProgress&) override { ++finished; }
};

}  // namespace

class TestTuningSession : public QObject {
  Q_OBJECT

 private slots:
  void everyTrialIsARecordAndDefaultsComeFirst() {
    Model m = load_mlp();
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    Counter counter;
    TuningSession session(tuning_tasks(m), quick_options(path), &counter);
    session.run();
    const TuningProgress& p = session.progress();
    QCOMPARE(p.total_trials, 20);
    QCOMPARE(counter.trials, 20);
    QCOMPARE(counter.finished, 1);
    QVERIFY(counter.rounds >= static_cast<int>(m.tasks.size()));

    RecordFile file = read_records(path);
    QVERIFY(file.warnings.empty());
    QCOMPARE(file.records.size(), size_t{20});
    std::set<std::string> defaults;
    for (const TuningRecord& r : file.records) {
      QVERIFY(!r.workload.empty() && !r.task_key.empty() && !r.schedule.empty());
      QCOMPARE(r.target, codegen::Target::host().to_string());
      QVERIFY(!r.started.empty() && !r.finished.empty());
      if (r.tuner == "default") defaults.insert(r.workload);
    }
    QCOMPARE(defaults.size(), m.tasks.size());  // each task's untuned baseline
    for (const TaskStatus& s : p.tasks) {
      QVERIFY(std::isfinite(s.default_ms));
      QVERIFY(s.best_ms <= s.default_ms);
    }
    QVERIFY(p.estimated_latency_ms <= p.estimated_default_ms);
    for (size_t i = 0; i < m.tasks.size(); ++i) QVERIFY(session.best()[i].ok());
  }

  void aWrongAnswerIsRecordedAndNeverBest() {
    Model m = load_mlp();
    std::vector<TuningTask> tasks = tuning_tasks(m);
    tasks.resize(1);
    // Corrupt the reference: every candidate now disagrees with it.
    for (Tensor& t : tasks[0].data.expected)
      for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] += 1000;
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    TuningOptions o = quick_options(path);
    o.trials = 6;
    TuningSession session(std::move(tasks), o);
    session.run();
    QVERIFY(!session.best()[0].ok());
    QVERIFY(std::isinf(session.progress().tasks[0].best_ms));
    RecordFile file = read_records(path);
    QCOMPARE(file.records.size(), size_t{6});
    for (const TuningRecord& r : file.records) {
      QCOMPARE(r.error_kind, std::string("wrong_answer"));
      QVERIFY(r.error_message.find("reference") != std::string::npos);
    }
  }

  void aResumedSessionMeasuresNoConfigTwice() {
    Model m = load_mlp();
    QTemporaryDir dir;
    const std::string first = dir.filePath("first.json").toStdString();
    const std::string second = dir.filePath("second.json").toStdString();
    TuningSession(tuning_tasks(m), quick_options(first)).run();
    TuningOptions o = quick_options(second);
    o.prior_records = read_records(first).records;
    TuningSession resumed(tuning_tasks(m), o);
    resumed.run();
    std::set<std::pair<std::string, std::vector<int>>> seen;
    for (const TuningRecord& r : o.prior_records) seen.insert({r.workload, r.config});
    for (const TuningRecord& r : read_records(second).records) {
      QVERIFY2(!seen.count({r.workload, r.config}), r.schedule.c_str());
      QVERIFY(r.tuner != "default");  // the baselines came with the prior records
    }
    for (const TaskStatus& s : resumed.progress().tasks) QVERIFY(std::isfinite(s.default_ms));
  }

  void stopEndsTheSession() {
    Model m = load_mlp();
    TuningControl control;
    Counter counter;
    counter.stop_after = 3;
    counter.control = &control;
    TuningOptions o = quick_options("");
    o.control = &control;
    TuningSession session(tuning_tasks(m), o, &counter);
    session.run();
    QCOMPARE(session.progress().total_trials, 3);
    QCOMPARE(counter.finished, 1);
  }
};

QTEST_GUILESS_MAIN(TestTuningSession)
#include "tst_tuning_session.moc"

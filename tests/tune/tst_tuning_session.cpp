// Tuning sessions end to end on the shared MLP: every trial becomes one record
// line as it finishes, each task's default schedule is measured first, a
// candidate whose output disagrees with the reference executor is recorded as
// a wrong answer and never becomes the best, a candidate faster than the best
// becomes the best only if it stays faster when measured again alternately
// with it (and the records file then picks the same best), a resumed session
// measures no config twice, and a session stops when told to.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

#include "../test_models.h"
#include "frontend/onnx/onnx_import.h"
#include "passes/pipeline.h"
#include "schedule/schedule_text.h"
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
  QString dir = lathe::testing::test_models_dir();
  Model m;
  m.graph = onnx_frontend::import_model_file((dir + "/mlp.onnx").toStdString());
  passes::PassOptions options;
  options.record_snapshots = false;
  m.optimized = passes::optimize_graph(m.graph, options);
  m.tasks = extract_tasks(m.optimized.graph, m.optimized.groups);
  return m;
}

std::vector<SearchTask> tuning_tasks(const Model& m) {
  std::vector<SearchTask> tasks;
  for (const KernelTask& t : m.tasks)
    tasks.push_back(
        make_search_task(m.optimized.graph, m.optimized.groups, t, SpaceKind::Template));
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
  int trials = 0, rounds = 0, finished = 0, new_bests = 0, unconfirmed = 0;
  int stop_after = 0;
  TuningControl* control = nullptr;
  std::vector<double> best_gflops;  // each task's best as reported after each trial
  void on_trial(const TrialEvent& e, const TuningProgress& p) override {
    new_bests += e.new_best;
    unconfirmed += e.unconfirmed;
    best_gflops.push_back(p.tasks[static_cast<size_t>(e.task_index)].best_gflops);
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
    // Whoever picks the best from the file picks the session's.
    std::map<std::string, TuningRecord> from_file = best_records(file.records);
    for (size_t i = 0; i < m.tasks.size(); ++i) {
      const TuningRecord& best = session.best()[i];
      QVERIFY(best.ok());
      QCOMPARE(from_file.at(best.workload).schedule, best.schedule);
      QCOMPARE(from_file.at(best.workload).latency_ms(), p.tasks[i].best_ms);
    }
  }

  // Every task's default is measured before any search, the heaviest
  // first, so a budget that runs out early still estimates the whole model,
  // and one smaller than the task count says how many tasks it left out.
  void defaultsCoverTheModelBeforeAnySearch() {
    Model m = load_mlp();
    const std::vector<SearchTask> tasks = tuning_tasks(m);
    QVERIFY(tasks.size() >= 3);
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    TuningOptions o = quick_options(path);
    o.trials = static_cast<int>(tasks.size());
    TuningSession session(tasks, o);
    session.run();
    const TuningProgress& p = session.progress();
    QCOMPARE(p.unmeasured_tasks, 0);
    double sum = 0;
    for (const TaskStatus& t : p.tasks) {
      QVERIFY(std::isfinite(t.default_ms));
      sum += t.weight * t.default_ms;
    }
    QCOMPARE(p.estimated_default_ms, sum);
    const std::vector<TuningRecord> records = read_records(path).records;
    QCOMPARE(records.size(), tasks.size());
    for (size_t k = 0; k + 1 < records.size(); ++k) {
      QCOMPARE(records[k].tuner, std::string("default"));
      QVERIFY(records[k].flops >= records[k + 1].flops);
    }

    o.trials = static_cast<int>(tasks.size()) - 1;
    o.records_path.clear();
    TuningSession short_session(tasks, o);
    short_session.run();
    QCOMPARE(short_session.progress().unmeasured_tasks, 1);
    QVERIFY(short_session.progress().estimated_latency_ms > 0);
  }

  // The winner's curse: a candidate whose first measurement is lucky (10x
  // faster than the default) but which is 10x slower whenever measured again
  // next to the default never becomes the best, in the session or the file.
  void aLuckyFirstMeasurementIsNotKept() {
    Model m = load_mlp();
    std::vector<SearchTask> tasks = tuning_tasks(m);
    tasks.resize(1);
    const std::string default_text =
        instantiate(tasks[0], tasks[0].space.default_config).schedule_text;
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    TuningOptions o = quick_options(path);
    o.trials = 8;
    std::map<std::string, int> calls;
    o.measure_hook = [&](size_t task, const std::string& schedule, MeasureResult& r) {
      QCOMPARE(task, size_t{0});
      if (r.error != ErrorKind::None) return;
      const int n = ++calls[schedule];
      const double ms = schedule == default_text ? 1.0 : n == 1 ? 0.1 : 10.0;
      for (double& cost : r.costs_ms) cost = ms;
    };
    Counter counter;
    TuningSession session(std::move(tasks), o, &counter);
    session.run();

    const TaskStatus& s = session.progress().tasks[0];
    QCOMPARE(session.best()[0].tuner, std::string("default"));
    QCOMPARE(session.best()[0].schedule, default_text);
    QCOMPARE(s.best_ms, 1.0);
    QCOMPARE(s.default_ms, 1.0);
    QCOMPARE(counter.new_bests, 1);  // the default, first
    for (double gflops : counter.best_gflops) QCOMPARE(gflops, session.best()[0].gflops());

    RecordFile file = read_records(path);
    QCOMPARE(file.records.size(), size_t{8});
    int lost = 0;
    for (const TuningRecord& r : file.records) {
      if (!r.ok() || r.tuner == "default") continue;
      ++lost;
      QVERIFY(r.confirmation == Confirmation::Lost);
      QCOMPARE(r.trial_ms(), 0.1);
      QVERIFY(std::isinf(r.latency_ms()));
      QCOMPARE(r.confirm_costs_ms, std::vector<double>(3 * o.measure.repeat, 10.0));
      QCOMPARE(r.rival_costs_ms, std::vector<double>(3 * o.measure.repeat, 1.0));
      QCOMPARE(calls[r.schedule], 4);  // first, then 3 times against the default
    }
    QVERIFY(lost >= 5);
    QCOMPARE(s.unconfirmed, lost);
    QCOMPARE(counter.unconfirmed, lost);
    QCOMPARE(calls[default_text], 1 + 3 * lost);
    std::map<std::string, TuningRecord> best = best_records(file.records);
    QCOMPARE(best.size(), size_t{1});
    QCOMPARE(best.begin()->second.schedule, default_text);
  }

  // A candidate that is faster in its first measurement and again whenever
  // measured next to the best becomes the best, with its re-measurements in
  // its record; slower candidates after it are not measured again.
  void aCandidateThatStaysFasterBecomesTheBest() {
    Model m = load_mlp();
    std::vector<SearchTask> tasks = tuning_tasks(m);
    tasks.resize(1);
    const std::string default_text =
        instantiate(tasks[0], tasks[0].space.default_config).schedule_text;
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    TuningOptions o = quick_options(path);
    o.trials = 8;
    std::string chosen;  // the first candidate after the default
    std::map<std::string, int> calls;
    o.measure_hook = [&](size_t, const std::string& schedule, MeasureResult& r) {
      if (r.error != ErrorKind::None) return;
      ++calls[schedule];
      if (schedule != default_text && chosen.empty()) chosen = schedule;
      const double ms = schedule == default_text ? 1.0 : schedule == chosen ? 0.5 : 2.0;
      for (double& cost : r.costs_ms) cost = ms;
    };
    Counter counter;
    TuningSession session(std::move(tasks), o, &counter);
    session.run();

    QVERIFY(!chosen.empty());
    QCOMPARE(session.best()[0].schedule, chosen);
    QVERIFY(session.best()[0].confirmation == Confirmation::Won);
    QCOMPARE(session.progress().tasks[0].best_ms, 0.5);
    QCOMPARE(session.progress().tasks[0].default_ms, 1.0);
    QCOMPARE(counter.new_bests, 2);
    QCOMPARE(counter.unconfirmed, 0);
    QCOMPARE(calls[chosen], 4);
    QCOMPARE(calls[default_text], 4);
    RecordFile file = read_records(path);
    std::map<std::string, TuningRecord> best = best_records(file.records);
    QCOMPARE(best.begin()->second.schedule, chosen);
    QCOMPARE(best.begin()->second.rival_costs_ms, std::vector<double>(3 * o.measure.repeat, 1.0));
    QCOMPARE(best.begin()->second.confirm_costs_ms, std::vector<double>(3 * o.measure.repeat, 0.5));
    for (const TuningRecord& r : file.records)
      if (r.schedule != chosen) QVERIFY(r.confirmation == Confirmation::None);
  }

  // With sketches the baseline is still the untuned build's schedule: the
  // template's default config, recorded under the template's space.
  void aSketchSearchMeasuresTheTemplateDefaultFirst() {
    Model m = load_mlp();
    SearchTask task =
        make_search_task(m.optimized.graph, m.optimized.groups, m.tasks.at(1), SpaceKind::Sketch);
    QCOMPARE(task.space.name, std::string("sketch"));
    QVERIFY(task.baseline.name != task.space.name);
    const std::string untuned = schedule::print_schedule(*default_group_schedule(task.computation));
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    TuningOptions o = quick_options(path);
    o.space = SpaceKind::Sketch;
    o.trials = 3;
    o.batch_size = 3;
    std::vector<SearchTask> tasks;
    tasks.push_back(std::move(task));
    TuningSession session(std::move(tasks), o);
    session.run();
    RecordFile file = read_records(path);
    QCOMPARE(file.records.size(), size_t{3});
    const TuningRecord& first = file.records[0];
    QCOMPARE(first.tuner, std::string("default"));
    QCOMPARE(first.schedule, untuned);
    QVERIFY(first.space != "sketch");
    QCOMPARE(session.progress().tasks[0].default_ms,
             std::min(first.trial_ms(), first.latency_ms()));
    for (size_t i = 1; i < file.records.size(); ++i)
      QCOMPARE(file.records[i].space, std::string("sketch"));
  }

  void aWrongAnswerIsRecordedAndNeverBest() {
    Model m = load_mlp();
    std::vector<SearchTask> tasks = tuning_tasks(m);
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

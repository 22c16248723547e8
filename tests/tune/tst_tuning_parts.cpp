// The tuner's bookkeeping: records survive a round trip and a killed writer,
// every search strategy proposes each config once and covers a small space,
// and the task scheduler warms every task up before following the gradient.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>

#include "passes/fuse_ops.h"
#include "passes/graph_edit.h"
#include "support/error.h"
#include "tune/group_computation.h"
#include "tune/kernel_fixture.h"
#include "tune/records.h"
#include "tune/search_strategy.h"
#include "tune/task_scheduler.h"

using namespace lathe;
using namespace lathe::tune;

namespace {

TuningRecord sample_record(double ms, const std::string& kind = "none") {
  TuningRecord r;
  r.workload = "00000000deadbeef";
  r.task_key = "Conv2dNCHWc(...)";
  r.ops = {"Conv2dNCHWc", "Relu"};
  r.signature = "float32[1,4,56,56,16] -> float32[1,4,56,56,16]";
  r.flops = 231211008;
  r.target = "llvm";
  r.space = "conv2d_NCHWc.x86";
  r.config = {2, 0, 1};
  r.knobs = {{"tile_ow", {4, 14}}, {"unroll_kw", {1}}};
  r.schedule = "s = te.create_schedule(C.op)\n";
  r.tuner = "xgb";
  if (kind == "none") {
    r.costs_ms = {ms * 1.1, ms, ms * 1.2};  // the cost is the minimum
  } else {
    r.error_kind = kind;
    r.error_message = "killed by signal 11 (Segmentation fault)";
  }
  r.build_ms = 120.5;
  r.started = utc_timestamp();
  r.finished = utc_timestamp();
  return r;
}

// Two knobs of 3 and 4 options: 12 configs.
topi::SearchSpace small_space() {
  topi::SearchSpace space;
  space.name = "small";
  space.knobs = {topi::choice_knob("a", {1, 2, 3}), topi::split_knob("b", 8, 2, 0)};
  space.default_config = {0, 0};
  return space;
}

}  // namespace

class TestTuningParts : public QObject {
  Q_OBJECT

 private slots:
  // Integer inputs of a task are drawn as indices within the group's float
  // inputs (here below 4, the table's shorter axis), not all zeros, so a
  // kernel that gathers the wrong row cannot pass on row 0.
  void taskDataDrawsIndicesInRange() {
    Graph g;
    const ValueId table = g.add_value("table", {DType::Float32, {10, 4}});
    const ValueId indices = g.add_value("indices", {DType::Int64, {64}});
    g.inputs = {table, indices};
    Node gather;
    gather.name = "gather";
    gather.op = "Gather";
    gather.inputs = {table, indices};
    gather.outputs = {g.add_value("rows", {})};
    g.value(gather.outputs[0]).type = passes::infer_types(g, gather)[0];
    g.add_node(gather);
    g.outputs = {gather.outputs[0]};
    const std::vector<passes::FusedGroup> groups = passes::fuse_ops(g);
    QCOMPARE(groups.size(), size_t{1});
    const KernelFixture data =
        make_kernel_fixture(g, groups[0], build_group_computation(g, groups[0]));
    const Tensor* drawn = nullptr;
    for (size_t i = 0; i < data.num_inputs; ++i)
      if (data.buffers[i].dtype() == DType::Int64) drawn = &data.buffers[i];
    QVERIFY(drawn);
    std::set<int64_t> seen;
    for (int64_t i = 0; i < drawn->numel(); ++i) {
      const int64_t v = drawn->data<int64_t>()[i];
      QVERIFY(v >= 0 && v < 4);
      seen.insert(v);
    }
    QVERIFY(seen.size() > 1);
  }

  void recordRoundTrip() {
    TuningRecord r = sample_record(2.0);
    TuningRecord back = record_from_json_line(to_json_line(r));
    QCOMPARE(back.workload, r.workload);
    QCOMPARE(back.task_key, r.task_key);
    QCOMPARE(back.ops, r.ops);
    QCOMPARE(back.flops, r.flops);
    QCOMPARE(back.knobs, r.knobs);
    QCOMPARE(back.config, r.config);
    QCOMPARE(back.schedule, r.schedule);
    QCOMPARE(back.costs_ms, r.costs_ms);
    QCOMPARE(back.version, kRecordVersion);
    QCOMPARE(back.latency_ms(), 2.0);
    QVERIFY(std::abs(back.gflops() - 231211008 / 2e6) < 1e-6);
    QVERIFY(to_json_line(r).find('\n') == std::string::npos);  // one line, whatever the text

    TuningRecord failed = record_from_json_line(to_json_line(sample_record(0, "runtime")));
    QVERIFY(!failed.ok());
    QCOMPARE(failed.error_kind, std::string("runtime"));
    QVERIFY(std::isinf(failed.latency_ms()));
    QCOMPARE(failed.gflops(), 0.0);
  }

  // A record's cost is the minimum of its first measurement and, when it won
  // its confirmation against the task's best, of its re-measurements; one
  // that lost never competes. Files without confirmations read as before.
  void confirmationDecidesTheRecordsCost() {
    TuningRecord won = sample_record(2.0);
    won.confirmation = Confirmation::Won;
    won.confirm_costs_ms = {1.7, 1.5, 1.9};
    won.rival_costs_ms = {1.8, 1.6, 2.0};
    TuningRecord back = record_from_json_line(to_json_line(won));
    QVERIFY(back.confirmation == Confirmation::Won);
    QCOMPARE(back.confirm_costs_ms, won.confirm_costs_ms);
    QCOMPARE(back.rival_costs_ms, won.rival_costs_ms);
    QCOMPARE(back.latency_ms(), 1.5);
    QCOMPARE(back.trial_ms(), 2.0);

    TuningRecord lost = sample_record(1.0);
    lost.confirmation = Confirmation::Lost;
    lost.confirm_costs_ms = {3.0, 2.5, 2.8};
    lost.rival_costs_ms = {1.8, 1.6, 2.0};
    back = record_from_json_line(to_json_line(lost));
    QVERIFY(back.confirmation == Confirmation::Lost);
    QVERIFY(back.ok());  // it computed the right answer
    QVERIFY(std::isinf(back.latency_ms()));
    QCOMPARE(back.gflops(), 0.0);
    QCOMPARE(back.trial_ms(), 1.0);
    QVERIFY(std::abs(back.trial_gflops() - 231211008 / 1e6) < 1e-6);

    // best_records picks what a session picks: the lucky 1.0 ms lost.
    std::map<std::string, TuningRecord> best =
        best_records({sample_record(3.0), won, lost, sample_record(1.6)});
    QCOMPARE(best.size(), size_t{1});
    QCOMPARE(best.begin()->second.latency_ms(), 1.5);
    QVERIFY(best.begin()->second.confirmation == Confirmation::Won);
    QVERIFY(best_records({lost}).empty());

    // No confirmation: the field is left out, and a version 1 line without it reads as none.
    const std::string plain = to_json_line(sample_record(2.0));
    QVERIFY(plain.find("confirmation") == std::string::npos);
    QVERIFY(record_from_json_line(plain).confirmation == Confirmation::None);
    std::string bad = to_json_line(won);
    bad.replace(bad.find("\"won\""), 5, "\"maybe\"");
    QVERIFY_THROWS_EXCEPTION(Error, record_from_json_line(bad));
  }

  void malformedRecordsNameTheField() {
    QVERIFY_THROWS_EXCEPTION(Error, record_from_json_line("{\"version\": 1}"));
    QVERIFY_THROWS_EXCEPTION(Error, record_from_json_line("not json"));
  }

  void writerAppendsAndReaderSkipsATornLastLine() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("records.json").toStdString();
    {
      RecordWriter w(path);
      w.write(sample_record(3.0));
      w.write(sample_record(0, "timeout"));
    }
    {
      RecordWriter w(path);  // appends
      w.write(sample_record(2.0));
    }
    RecordFile file = read_records(path);
    QCOMPARE(file.records.size(), size_t{3});
    QVERIFY(file.warnings.empty());
    std::map<std::string, TuningRecord> best = best_records(file.records);
    QCOMPARE(best.size(), size_t{1});
    QCOMPARE(best.begin()->second.latency_ms(), 2.0);
    QVERIFY(best_records(file.records, "llvm -mcpu=znver4").empty());

    // A writer killed halfway through a line.
    std::string line = to_json_line(sample_record(1.0));
    {
      std::ofstream out(path, std::ios::app);
      out << line.substr(0, line.size() / 2);
    }
    file = read_records(path);
    QCOMPARE(file.records.size(), size_t{3});
    QCOMPARE(file.warnings.size(), size_t{1});
    QVERIFY(file.warnings[0].find(":4: torn last line") != std::string::npos);
    {
      // The next writer cuts the torn line off instead of continuing it.
      const std::string resumed = dir.filePath("resumed.json").toStdString();
      {
        std::ofstream out(resumed);
        out << to_json_line(sample_record(3.0)) << "\n" << line.substr(0, line.size() / 2);
      }
      RecordWriter(resumed).write(sample_record(2.5));
      RecordFile cut = read_records(resumed);
      QVERIFY(cut.warnings.empty());
      QCOMPARE(cut.records.size(), size_t{2});
      QCOMPARE(cut.records[1].latency_ms(), 2.5);
    }

    // A newer format is skipped with a warning, not misread.
    TuningRecord future = sample_record(0.5);
    future.version = kRecordVersion + 1;
    {
      std::ofstream out(path, std::ios::app);
      out << "\n" << to_json_line(future) << "\n";
    }
    QVERIFY_THROWS_EXCEPTION(Error, read_records(path));  // the torn line is now in the middle
    const std::string newer = dir.filePath("newer.json").toStdString();
    {
      std::ofstream out(newer);
      out << to_json_line(sample_record(1.0)) << "\n" << to_json_line(future) << "\n";
    }
    file = read_records(newer);
    QCOMPARE(file.records.size(), size_t{1});
    QCOMPARE(file.warnings.size(), size_t{1});
    QVERIFY(file.warnings[0].find("newer") != std::string::npos);
  }

  void strategiesProposeEachConfigOnceAndCoverTheSpace() {
    topi::SearchSpace space = small_space();
    QCOMPARE(space.size(), 12.0);
    // With a constraint (as the conv's register budget): only its points.
    topi::SearchSpace constrained = small_space();
    constrained.constraint = [](const topi::Config& c) { return c[0] + c[1] != 3; };
    QCOMPARE(constrained.size(), 9.0);
    QCOMPARE(constrained.combinations(), 12.0);
    QVERIFY(!constrained.valid({1, 2}) && constrained.valid({1, 1}));
    for (const char* kind : {"random", "grid", "ga", "xgb"}) {
      auto strategy = make_search_strategy(kind, constrained, 5, nullptr);
      std::set<topi::Config> seen;
      for (int round = 0; round < 10 && !strategy->exhausted(); ++round) {
        std::vector<topi::Config> batch = strategy->next_batch(4);
        for (const topi::Config& c : batch) {
          QVERIFY2(constrained.valid(c), kind);
          QVERIFY2(seen.insert(c).second, kind);
        }
        strategy->update(batch, std::vector<double>(batch.size(), 1.0));
      }
      QCOMPARE(seen.size(), size_t{9});
      QVERIFY(strategy->exhausted());
    }
    for (const char* kind : {"random", "grid", "ga", "xgb"}) {
      // No model: "xgb" starts as random search.
      auto strategy = make_search_strategy(kind, space, 7, nullptr);
      std::set<topi::Config> seen;
      for (int round = 0; round < 10 && !strategy->exhausted(); ++round) {
        std::vector<topi::Config> batch = strategy->next_batch(5);
        std::vector<double> gflops;
        for (const topi::Config& c : batch) {
          QVERIFY2(space.valid(c), kind);
          QVERIFY2(seen.insert(c).second, kind);  // never twice
          gflops.push_back(1.0 + c[0]);
        }
        strategy->update(batch, gflops);
      }
      QCOMPARE(seen.size(), size_t{12});
      QVERIFY(strategy->exhausted());
      QVERIFY(strategy->next_batch(5).empty());
    }
    auto grid = make_search_strategy("grid", space, 1, nullptr);
    std::vector<topi::Config> first = grid->next_batch(3);
    QCOMPARE(first, (std::vector<topi::Config>{{0, 0}, {0, 1}, {0, 2}}));
    QVERIFY_THROWS_EXCEPTION(Error, make_search_strategy("annealing", space, 1, nullptr));
  }

  void modelGuidedSearchFollowsTheScores() {
    // A space of 400 configs; the scorer prefers large knob indices.
    topi::SearchSpace space;
    space.knobs = {topi::choice_knob("a", std::vector<int64_t>(20, 0)),
                   topi::choice_knob("b", std::vector<int64_t>(20, 0))};
    for (int i = 0; i < 20; ++i) space.knobs[0].options[i] = space.knobs[1].options[i] = {i};
    auto scorer = [](const std::vector<topi::Config>& configs) {
      std::vector<double> s;
      for (const topi::Config& c : configs) s.push_back(c[0] + c[1]);
      return s;
    };
    auto strategy = make_search_strategy("xgb", space, 3, scorer);
    std::vector<topi::Config> warm = strategy->next_batch(16);
    strategy->update(warm, std::vector<double>(warm.size(), 1.0));
    std::vector<topi::Config> guided = strategy->next_batch(16);
    double mean = 0;
    for (const topi::Config& c : guided) mean += c[0] + c[1];
    mean /= static_cast<double>(guided.size());
    // Random configs average 19; the guided batch leans far towards 38.
    QVERIFY2(mean > 28, qPrintable(QString::number(mean)));
  }

  void schedulerWarmsUpThenFollowsTheGradient() {
    std::vector<TaskTuningState> tasks(3);
    TaskScheduler gradient("gradient");
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(gradient.next_task(tasks), i);
      tasks[static_cast<size_t>(i)].rounds = 1;
      tasks[static_cast<size_t>(i)].trials = 16;
    }
    // Task 1 weighs most and is slowest: the most to gain.
    tasks[0].best_ms = 1;
    tasks[1].best_ms = 10;
    tasks[1].weight = 4;
    tasks[2].best_ms = 2;
    QCOMPARE(gradient.next_task(tasks), 1);
    tasks[1].finished = true;
    QCOMPARE(gradient.next_task(tasks), 2);
    for (TaskTuningState& t : tasks) t.finished = true;
    QCOMPARE(gradient.next_task(tasks), -1);

    std::vector<TaskTuningState> more(3);
    for (TaskTuningState& t : more) t.rounds = 1;
    TaskScheduler round_robin("round-robin");
    QCOMPARE(round_robin.next_task(more), 0);
    QCOMPARE(round_robin.next_task(more), 1);
    QCOMPARE(round_robin.next_task(more), 2);
    QCOMPARE(round_robin.next_task(more), 0);
    QVERIFY_THROWS_EXCEPTION(Error, TaskScheduler("fastest-first"));
  }
};

QTEST_APPLESS_MAIN(TestTuningParts)
#include "tst_tuning_parts.moc"

// The in-model check (driver/in_model_check): a task's best record that runs
// slower inside the model than the default schedule loses its verdict, and
// load_tuning_records then applies the default; a verdict on a schedule that
// is no longer the best, or one the best won, leaves the best applied.
#include <QtTest>

#include <QTemporaryDir>

#include "../test_models.h"
#include "driver/in_model_check.h"
#include "driver/kernel_tasks.h"
#include "driver/model_loader.h"
#include "driver/tuning_records.h"

using namespace lathe;

namespace {

// A record that measured `ms` for `task` with `schedule`.
tune::TuningRecord measured(const driver::KernelTask& task, const std::string& schedule,
                            double ms) {
  tune::TuningRecord r;
  r.workload = tune::task_workload_id(task);
  r.task_key = task.key;
  r.ops = task.ops;
  r.signature = task.signature;
  r.flops = task.flops;
  r.target = driver::Target::host().to_string();
  r.space = "editor";
  r.tuner = "editor";
  r.schedule = schedule;
  r.costs_ms = {ms};
  r.started = r.finished = tune::utc_timestamp();
  return r;
}

}  // namespace

class TestInModelCheck : public QObject {
  Q_OBJECT

  Graph graph_;
  std::vector<driver::KernelTask> tasks_;
  QTemporaryDir dir_;

  std::string records_path(const char* name) { return dir_.filePath(name).toStdString(); }

 private slots:
  void initTestCase() {
    graph_ = driver::load_model((testing::test_models_dir() + "/mlp.onnx").toStdString());
    tasks_ = driver::kernel_tasks(driver::optimize_graph(graph_, {}));
    QCOMPARE(tasks_.at(1).func_name, std::string("fused_gemm_relu"));
  }

  void aBestSlowerInTheModelKeepsTheDefault() {
    // The Gemm → Relu kernel unscheduled (serial scalar loops) is many times
    // slower than its default; a record claiming it measured 1 ns is the
    // best the tuner knows, and the model shows otherwise.
    const driver::KernelTask& task = tasks_.at(1);
    const std::string path = records_path("slower.json");
    {
      tune::RecordWriter writer(path);
      writer.write(measured(task, "s = te.create_schedule(relu.op)\n", 1e-6));
    }
    QVERIFY(driver::load_tuning_records(path, driver::Target::host()).schedule_for(task));

    const driver::InModelCheck check =
        driver::check_records_in_model(graph_, driver::CompileOptions{}, path, 3, 20);
    QCOMPARE(check.tasks.size(), size_t{1});
    QCOMPARE(check.tasks[0].task_id, task.id);
    QVERIFY2(check.tasks[0].tuned_ms > check.tasks[0].default_ms,
             qPrintable(QString("best %1 ms, default %2 ms")
                            .arg(check.tasks[0].tuned_ms)
                            .arg(check.tasks[0].default_ms)));
    QVERIFY(!check.tasks[0].kept);
    QVERIFY(driver::format_in_model_check(check).find("default kept") != std::string::npos);

    // The verdict travels in the file, apart from the measurements.
    const tune::RecordFile file = tune::read_records(path);
    QCOMPARE(file.records.size(), size_t{1});
    QCOMPARE(file.in_model_checks.size(), size_t{1});
    QCOMPARE(file.in_model_checks[0].confirmation, tune::Confirmation::Lost);
    QCOMPARE(file.in_model_checks[0].confirm_costs_ms.size(), size_t{3});
    const driver::TuningRecordSet set = driver::load_tuning_records(path, driver::Target::host());
    QVERIFY(!set.schedule_for(task));
    QCOMPARE(set.slower_in_model.count(tune::task_workload_id(task)), size_t{1});
    // The tuner's own ranking still sees the measured best.
    QCOMPARE(tune::best_records(file.records).size(), size_t{1});

    // A newer best (tuning went on) is applied until it is checked itself.
    {
      tune::RecordWriter writer(path);
      writer.write(measured(task, "s = te.create_schedule(relu.op)\n# newer\n", 1e-7));
    }
    QVERIFY(driver::load_tuning_records(path, driver::Target::host()).schedule_for(task));
  }

  void theFastestWholeBuildDecides() {
    using driver::InModelChoice;
    // The per-task choice stands unless another build ran faster as a whole.
    QCOMPARE(driver::choose_in_model_build(1.40, 1.20, 1.20), InModelChoice::PerTask);
    QCOMPARE(driver::choose_in_model_build(1.40, 1.30, 1.20), InModelChoice::PerTask);
    // Near-ties judged one by one dropped bests that together were faster.
    QCOMPARE(driver::choose_in_model_build(1.41, 1.15, 1.38), InModelChoice::EveryBest);
    // The kept bests made the model slower than no best at all.
    QCOMPARE(driver::choose_in_model_build(1.00, 1.20, 1.05), InModelChoice::Defaults);
    QCOMPARE(driver::choose_in_model_build(1.00, 0.99, 1.05), InModelChoice::EveryBest);
  }

  void aVerdictTheBestWonKeepsIt() {
    const driver::KernelTask& task = tasks_.at(1);
    const std::string path = records_path("won.json");
    tune::TuningRecord best = measured(task, "s = te.create_schedule(relu.op)\n", 1e-6);
    tune::TuningRecord verdict = best;
    verdict.tuner = tune::kInModelTuner;
    verdict.costs_ms.clear();
    verdict.confirmation = tune::Confirmation::Won;
    verdict.confirm_costs_ms = {0.1};
    verdict.rival_costs_ms = {0.2};
    {
      tune::RecordWriter writer(path);
      writer.write(best);
      writer.write(verdict);
    }
    const driver::TuningRecordSet set = driver::load_tuning_records(path, driver::Target::host());
    QVERIFY(set.schedule_for(task));
    QVERIFY(set.slower_in_model.empty());
  }
};

QTEST_GUILESS_MAIN(TestInModelCheck)
#include "tst_in_model_check.moc"

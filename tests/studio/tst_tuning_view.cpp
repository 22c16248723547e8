// The studio's Tuning tab on the shared MLP: a short session puts points on
// both charts and its trials in the task table, writes a record per trial and
// ends with Start enabled again; Pause holds the trial count and Resume moves
// it on; Stop ends a session early; a new model stops the session on the old
// one; a failed candidate lists its error and shows its schedule; closing the
// window while tuning crashes nothing. The item models pass
// QAbstractItemModelTester.
#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <limits>
#include <memory>

#include "../test_models.h"
#include "driver/model_loader.h"
#include "isolated_settings.h"
#include "studio/graph_snapshot_tracker.h"
#include "studio/main_window.h"
#include "studio/tuning_page.h"
#include "studio/tuning_runner.h"
#include "tune/records.h"
#include "views/tuning_charts.h"
#include "views/tuning_failures_model.h"
#include "views/tuning_task_model.h"

using namespace lathe;
using lathe::studio::TuningPage;
using lathe::studio::TuningRunner;
using lathe::views::TuningFailuresModel;
using lathe::views::TuningTaskModel;

namespace {

// Planning and a dozen MLP trials take seconds; a loaded CI machine is slower.
constexpr int kTimeoutMs = 60000;
// Long enough that no session below ends on its own before the test acts.
constexpr int kManyTrials = 2000;

QString mlpPath() {
  return lathe::testing::test_models_dir() + QStringLiteral("/mlp.onnx");
}

int bestCurvePoints(const views::TuningCharts& charts, int tasks) {
  int points = 0;
  for (int i = 0; i < tasks; ++i) points += charts.taskGraph(i)->dataCount();
  return points;
}

tune::TaskStatus taskStatus(int id, int64_t flops, int weight) {
  tune::TaskStatus t;
  t.id = id;
  t.name = "fused_dense_" + std::to_string(id);
  t.signature = "float32[1,64] -> float32[1,64]";
  t.flops = flops;
  t.weight = weight;
  return t;
}

}  // namespace

class TestTuningView : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const studio::GraphSnapshots> snapshots_;

  // A fresh copy of the MLP's snapshots: to the page, a newly opened model.
  std::shared_ptr<const studio::GraphSnapshots> mlpSnapshots() const {
    auto copy = std::make_shared<studio::GraphSnapshots>(*snapshots_);
    return copy;
  }

  // A page with the MLP's tasks listed, tuning `trials` into `records`; null
  // when planning failed.
  std::unique_ptr<TuningPage> plannedPage(const char* records, int trials) {
    auto page = std::make_unique<TuningPage>();
    page->resize(1200, 800);
    page->show();
    QSignalSpy planned(page.get(), &TuningPage::tasksPlanned);
    page->setGraphSnapshots(mlpSnapshots());
    if (!planned.wait(kTimeoutMs) && planned.isEmpty()) return nullptr;
    page->trialsSpin()->setValue(trials);
    page->recordsPathEdit()->setText(dir_.filePath(QString::fromLatin1(records)));
    return page;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    // Settings and application data of this run only, never the user's.
    QStandardPaths::setTestModeEnabled(true);
    isolate_settings(dir_.path(), QStringLiteral("tst_tuning_view"));

    QVERIFY2(QFileInfo::exists(mlpPath()), qPrintable(mlpPath()));
    auto snapshots = std::make_shared<studio::GraphSnapshots>();
    snapshots->path = mlpPath();
    snapshots->original = driver::load_model(mlpPath().toStdString());
    snapshots->optimized = passes::optimize_graph(snapshots->original, {});
    snapshots_ = snapshots;
  }

  void taskModelShowsProgressAgainstThePlan() {
    TuningTaskModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    tune::TuningProgress p;
    p.tasks = {taskStatus(0, 2'000'000, 1), taskStatus(1, 8'000'000, 2), taskStatus(2, 500, 1)};
    model.setTasks(p.tasks);
    QCOMPARE(model.rowCount(), 3);

    p.planned_trials = 30;  // a share of 10 trials a task
    p.tasks[1].trials = 5;
    p.tasks[1].errors = 1;
    p.tasks[1].default_ms = 1.0;
    p.tasks[1].best_ms = 0.25;
    p.tasks[1].best_gflops = 32;
    p.total_trials = 5;
    model.setProgress(p);
    auto value = [&](int row, int column, int role = TuningTaskModel::ValueRole) {
      return model.data(model.index(row, column), role);
    };
    QCOMPARE(value(1, TuningTaskModel::TrialsColumn).toInt(), 5);
    QCOMPARE(value(1, TuningTaskModel::SpeedupColumn).toDouble(), 4.0);
    QCOMPARE(value(1, TuningTaskModel::MflopColumn).toDouble(), 8.0);
    QCOMPARE(value(1, TuningTaskModel::TrialsColumn, TuningTaskModel::ProgressRole).toDouble(),
             0.5);
    QCOMPARE(value(0, TuningTaskModel::SpeedupColumn, Qt::DisplayRole).toString(),
             QStringLiteral("–"));
    QCOMPARE(model.totalTrials(), 5);

    // Only a budget: the share is what the budget allows at the rate so far.
    p.planned_trials = 0;
    p.time_budget_s = 100;
    p.elapsed_s = 25;
    p.total_trials = 6;  // 24 trials in the budget, 8 a task
    p.tasks[1].trials = 6;
    model.setProgress(p);
    QCOMPARE(value(1, TuningTaskModel::TrialsColumn, TuningTaskModel::ProgressRole).toDouble(),
             0.75);
    p.tasks[2].finished = true;
    model.setProgress(p);
    QCOMPARE(value(2, TuningTaskModel::TrialsColumn, TuningTaskModel::ProgressRole).toDouble(),
             1.0);

    // Progress of other tasks (a new session) replaces the rows.
    p.tasks.pop_back();
    model.setProgress(p);
    QCOMPARE(model.rowCount(), 2);
  }

  void failuresModelKeepsTheErrorAndSchedule() {
    TuningFailuresModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    views::TuningFailure f;
    f.taskId = 3;
    f.taskName = QStringLiteral("fused_dense_relu");
    f.trial = 7;
    f.errorKind = QStringLiteral("timeout");
    f.message = QStringLiteral("killed after 10 s\nthe worker was restarted");
    f.knobs = QStringLiteral("tile_x=8 tile_y=4");
    f.schedule = QStringLiteral("s[C].split(C.op.axis[0], factor=8)");
    model.addFailure(f);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.data(model.index(0, TuningFailuresModel::KindColumn)).toString(),
             QStringLiteral("timeout"));
    QCOMPARE(model.data(model.index(0, TuningFailuresModel::MessageColumn)).toString(),
             QStringLiteral("killed after 10 s …"));
    const QString details = TuningFailuresModel::describe(f);
    QVERIFY(details.contains(QStringLiteral("the worker was restarted")));
    QVERIFY(details.contains(f.schedule));
    QVERIFY(details.contains(f.knobs));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void shortSessionDrawsPointsAndFinishes() {
    auto page = plannedPage("short.jsonl", 12);
    QVERIFY(page);
    const int tasks = static_cast<int>(page->plan()->tasks.size());
    QVERIFY(tasks > 0);
    QCOMPARE(page->taskModel()->rowCount(), tasks);
    QVERIFY(page->startButton()->isEnabled());
    QVERIFY(!page->stopButton()->isEnabled());

    QSignalSpy finished(page.get(), &TuningPage::sessionFinished);
    QStringList log;
    connect(page.get(), &TuningPage::logMessage, this,
            [&log](const QString& text, bool) { log << text; });
    QTest::mouseClick(page->startButton(), Qt::LeftButton);
    QVERIFY(!page->startButton()->isEnabled());
    QVERIFY(page->stopButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(bestCurvePoints(*page->charts(), tasks) > 0, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(page->charts()->tunedLatencyGraph()->dataCount() > 0, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kTimeoutMs);

    QCOMPARE(finished.first().first().toBool(), false);  // ran out of trials, not stopped
    QCOMPARE(page->taskModel()->rowCount(), tasks);
    QCOMPARE(page->taskModel()->totalTrials(), 12);
    QCOMPARE(page->progress().total_trials, 12);
    QVERIFY(page->charts()->defaultLatencyGraph()->dataCount() > 0);
    // The selected task's measured candidates are dots under its curve.
    const int selected = page->charts()->selectedTask();
    QVERIFY(selected >= 0);
    QCOMPARE(page->taskTable()->currentIndex().row(), selected);
    QVERIFY(page->startButton()->isEnabled());
    QVERIFY(!page->pauseButton()->isEnabled());
    QVERIFY(!page->stopButton()->isEnabled());
    QVERIFY2(page->statusLine()->text().startsWith(QStringLiteral("Finished")),
             qPrintable(page->statusLine()->text()));
    // Every trial is one record, appended as it finished.
    const auto records =
        tune::read_records(dir_.filePath(QStringLiteral("short.jsonl")).toStdString());
    QCOMPARE(records.records.size(), size_t{12});
    // Then each task's best was timed inside the model against its default,
    // the verdicts appended and the table shown in the log.
    QVERIFY(!records.in_model_checks.empty());
    QVERIFY2(log.join('\n').contains(QStringLiteral("in the model (medians of")),
             qPrintable(log.join('\n')));

    // Choosing another row draws that task bold and its candidates as dots.
    const int other = (selected + 1) % tasks;
    page->taskTable()->setCurrentIndex(page->taskModel()->index(other, 0));
    QCOMPARE(page->charts()->selectedTask(), other);
  }

  void pauseHoldsTrialsAndResumeContinues() {
    auto page = plannedPage("pause.jsonl", kManyTrials);
    QVERIFY(page);
    QTest::mouseClick(page->startButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(page->taskModel()->totalTrials() >= 1, kTimeoutMs);

    QTest::mouseClick(page->pauseButton(), Qt::LeftButton);
    QCOMPARE(page->runner()->state(), TuningRunner::State::Paused);
    QCOMPARE(page->pauseButton()->text(), QStringLiteral("&Resume"));
    // The session looks at Pause before each measurement, so at most the
    // candidate being measured when Pause was pressed still reports, however
    // long a loaded machine takes over it; after that the count holds.
    const int at_pause = page->taskModel()->totalTrials();
    QTest::qWait(5000);
    const int held = page->taskModel()->totalTrials();
    QVERIFY2(held <= at_pause + 1, qPrintable(QStringLiteral("%1 -> %2").arg(at_pause).arg(held)));
    QTest::qWait(2000);
    QCOMPARE(page->taskModel()->totalTrials(), held);
    QVERIFY2(page->statusLine()->text().startsWith(QStringLiteral("Paused")),
             qPrintable(page->statusLine()->text()));

    QTest::mouseClick(page->pauseButton(), Qt::LeftButton);
    QCOMPARE(page->pauseButton()->text(), QStringLiteral("&Pause"));
    QTRY_VERIFY_WITH_TIMEOUT(page->taskModel()->totalTrials() > held, kTimeoutMs);

    QSignalSpy finished(page.get(), &TuningPage::sessionFinished);
    page->stopTuning();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kTimeoutMs);
  }

  void stopEndsTheSessionEarly() {
    auto page = plannedPage("stop.jsonl", kManyTrials);
    QVERIFY(page);
    QSignalSpy finished(page.get(), &TuningPage::sessionFinished);
    QTest::mouseClick(page->startButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(page->taskModel()->totalTrials() >= 2, kTimeoutMs);

    QTest::mouseClick(page->stopButton(), Qt::LeftButton);
    QVERIFY(!page->stopButton()->isEnabled());
    QVERIFY(!page->startButton()->isEnabled());  // until the session has ended
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kTimeoutMs);
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(page->progress().total_trials < kManyTrials);
    QCOMPARE(page->taskModel()->totalTrials(), page->progress().total_trials);
    QVERIFY(page->startButton()->isEnabled());
    QVERIFY2(page->statusLine()->text().startsWith(QStringLiteral("Stopped")),
             qPrintable(page->statusLine()->text()));
  }

  void newModelStopsTheSessionOnTheOldOne() {
    auto page = plannedPage("new_model.jsonl", kManyTrials);
    QVERIFY(page);
    QSignalSpy finished(page.get(), &TuningPage::sessionFinished);
    QSignalSpy planned(page.get(), &TuningPage::tasksPlanned);
    QTest::mouseClick(page->startButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(page->taskModel()->totalTrials() >= 1, kTimeoutMs);

    page->setGraphSnapshots(mlpSnapshots());
    QCOMPARE(page->runner()->state(), TuningRunner::State::Stopping);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() && !planned.isEmpty(), kTimeoutMs);
    // The old session's last events did not land in the new model's table.
    QCOMPARE(page->taskModel()->totalTrials(), 0);
    QCOMPARE(bestCurvePoints(*page->charts(), page->taskModel()->rowCount()), 0);
    QVERIFY(page->startButton()->isEnabled());
  }

  void failedCandidateShowsItsErrorAndSchedule() {
    auto page = plannedPage("failures.jsonl", 4);
    QVERIFY(page);
    QSignalSpy finished(page.get(), &TuningPage::sessionFinished);
    page->startTuning();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kTimeoutMs);

    // A candidate that timed out, as the session reports one; real failures
    // are rare on the MLP, so this one is handed to the page as its runner would.
    driver::TuningProgress progress = page->progress();
    progress.tasks[0].errors += 1;
    driver::TrialEvent trial;
    trial.task_index = 0;
    trial.trial = progress.tasks[0].trials;
    trial.knobs = "tile_y=4 tile_x=16";
    trial.schedule = "s[C].split(C.op.axis[1], factor=16)";
    trial.latency_ms = std::numeric_limits<double>::infinity();
    trial.error_kind = "timeout";
    trial.error_message = "the worker was killed after 10 s";
    const int failuresBefore = page->failuresModel()->rowCount();
    emit page->runner()->trialMeasured(trial, progress);
    QCOMPARE(page->failuresModel()->rowCount(), failuresBefore + 1);
    const int row = failuresBefore;
    QCOMPARE(page->failuresModel()->failure(row).errorKind, QStringLiteral("timeout"));
    QCOMPARE(page->taskModel()
                 ->data(page->taskModel()->index(0, TuningTaskModel::ErrorsColumn),
                        TuningTaskModel::ValueRole)
                 .toInt(),
             progress.tasks[0].errors);

    page->failureTable()->setCurrentIndex(page->failuresModel()->index(row, 0));
    const QString details = page->failureDetails()->toPlainText();
    QVERIFY2(details.contains(QStringLiteral("killed after 10 s")), qPrintable(details));
    QVERIFY2(details.contains(QStringLiteral("s[C].split(C.op.axis[1], factor=16)")),
             qPrintable(details));
  }

  void badTaskSelectionIsReported() {
    auto page = plannedPage("bad_selection.jsonl", 4);
    QVERIFY(page);
    page->taskSelectionEdit()->setText(QStringLiteral("0,99"));
    page->startTuning();
    QCOMPARE(page->runner()->state(), TuningRunner::State::Idle);
    QVERIFY2(page->statusLine()->text().contains(QStringLiteral("99")),
             qPrintable(page->statusLine()->text()));
    QVERIFY(page->startButton()->isEnabled());
  }

  void closingTheWindowWhileTuningCrashesNothing() {
    auto* window = new studio::MainWindow;
    window->show();
    TuningPage* page = window->tuningPage();
    QVERIFY(page);
    const int tab = window->centralTabs()->indexOf(page);
    QVERIFY(tab >= 0);
    QCOMPARE(window->centralTabs()->tabText(tab), QStringLiteral("T&uning"));
    QSignalSpy planned(page, &TuningPage::tasksPlanned);
    window->openModel(mlpPath());
    QTRY_VERIFY_WITH_TIMEOUT(!planned.isEmpty(), kTimeoutMs);
    window->centralTabs()->setCurrentIndex(tab);
    page->trialsSpin()->setValue(kManyTrials);
    page->recordsPathEdit()->setText(dir_.filePath(QStringLiteral("closing.jsonl")));
    QTest::mouseClick(page->startButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(page->taskModel()->totalTrials() >= 1, kTimeoutMs);

    QElapsedTimer closing;
    closing.start();
    QVERIFY(window->close());
    delete window;
    // Only the candidate in flight is waited for.
    QVERIFY2(closing.elapsed() < kTimeoutMs, qPrintable(QString::number(closing.elapsed())));
  }
};

QTEST_MAIN(TestTuningView)
#include "tst_tuning_view.moc"

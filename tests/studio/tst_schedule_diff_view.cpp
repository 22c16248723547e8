// The Schedule tab's Compare: the diff view colours the loop IR's rows by
// what changed and highlights the knobs that differ, with both measurements
// on top; the dialog lists a kernel's schedules (default, editor, records,
// journal) and compares two in the background.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "driver/model_loader.h"
#include "driver/schedule_diff.h"
#include "isolated_settings.h"
#include "studio/edit_journal.h"
#include "studio/graph_snapshot_tracker.h"
#include "studio/schedule_compare_dialog.h"
#include "studio/schedule_editor_page.h"
#include "studio/schedule_editor_tracker.h"
#include "tune/group_computation.h"
#include "tune/kernel_task.h"
#include "views/aligned_diff_model.h"
#include "views/schedule_diff_view.h"
#include "views/schedule_editor.h"

using namespace lathe;
using driver::RowChange;
using views::AlignedDiffModel;

namespace {

constexpr int kTimeoutMs = 60000;

QString samplePath() {
  return qEnvironmentVariable("LATHE_SOURCE_DIR") + QStringLiteral("/resources/sample_cnn.onnx");
}

// A record of the task's template space at another config than the default:
// the first knob moved to another accepted option.
driver::TuningRecord otherConfigRecord(const driver::KernelWorkbench& bench) {
  const topi::SearchSpace space = tune::template_search_space(bench.computation());
  for (size_t k = 0; k < space.knobs.size(); ++k)
    for (int option = 0; option < static_cast<int>(space.knobs[k].options.size()); ++option) {
      topi::Config config = space.default_config;
      config[k] = option;
      if (option == space.default_config[k] || !space.valid(config)) continue;
      driver::TuningRecord record;
      record.workload = driver::task_workload_id(bench.task());
      record.space = space.name;
      record.tuner = "grid";
      record.target = driver::Target::host().to_string();
      record.costs_ms = {1.0};
      record.schedule =
          schedule::print_schedule(*tune::apply_config(bench.computation(), space, config));
      for (const topi::Knob& knob : space.knobs)
        record.knobs.emplace_back(knob.name, space.value(config, knob.name));
      return record;
    }
  return {};
}

driver::DiffMeasurement measurement(double ms, double percent) {
  driver::DiffMeasurement m;
  m.kernel.median_ms = m.kernel.best_ms = ms;
  m.kernel.gflops = 1 / ms;
  m.kernel.runs = 20;
  m.roof.bound = "DRAM";
  m.roof.roof_gflops = 10;
  m.percent_of_roof = percent;
  return m;
}

QColor background(const AlignedDiffModel& model, int row, int column) {
  return model.data(model.index(row, column), Qt::BackgroundRole).value<QColor>();
}

}  // namespace

class TestScheduleDiffView : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::shared_ptr<const studio::GraphSnapshots> snapshots_;
  driver::KernelTask conv_;
  int convTask_ = -1;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    isolate_settings(dir_.path(), QStringLiteral("tst_schedule_diff_view"));
    auto snapshots = std::make_shared<studio::GraphSnapshots>();
    snapshots->path = samplePath();
    snapshots->original = driver::load_model(samplePath().toStdString());
    snapshots->optimized = passes::optimize_graph(snapshots->original, {});
    snapshots_ = snapshots;
    const std::vector<driver::KernelTask> tasks =
        tune::extract_tasks(snapshots_->optimized.graph, snapshots_->optimized.groups);
    for (size_t i = 0; i < tasks.size() && convTask_ < 0; ++i)
      if (tasks[i].ops.front().rfind("Conv", 0) == 0) {
        convTask_ = static_cast<int>(i);
        conv_ = tasks[i];
      }
    QVERIFY2(convTask_ >= 0, "the sample model has no convolution kernel");
  }

  // Default against another config: every row of the loop IR coloured by its
  // change, the knob that moved highlighted, the measurements on top.
  void viewColoursRowsAndHighlightsKnobs() {
    const driver::KernelWorkbench bench(snapshots_->optimized.graph, snapshots_->optimized.groups,
                                        conv_, snapshots_->optimized.vector_unit);
    const driver::TuningRecord record = otherConfigRecord(bench);
    QVERIFY(!record.knobs.empty());
    driver::ScheduleDiff diff = driver::diff_schedules(
        bench, driver::default_diff_schedule(bench), driver::record_diff_schedule(record, "tuned"));
    diff.a.measurement = measurement(2.0, 40);
    diff.b.measurement = measurement(1.0, 80);

    views::ScheduleDiffView view;
    QAbstractItemModelTester tester(view.loopIRModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.resize(1200, 800);
    view.setDiff(diff);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    const AlignedDiffModel& ir = *view.loopIRModel();
    QCOMPARE(ir.rowCount(), static_cast<int>(diff.loop_ir_rows.size()));
    QCOMPARE(ir.headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("A: default (loop IR)"));
    int changed = 0;
    for (int row = 0; row < ir.rowCount(); ++row) {
      const RowChange change = diff.loop_ir_rows[static_cast<size_t>(row)].change;
      QCOMPARE(ir.data(ir.index(row, 0), AlignedDiffModel::ChangeRole).toInt(),
               static_cast<int>(change));
      const QColor a = background(ir, row, 0), b = background(ir, row, 1);
      switch (change) {
        case RowChange::Same:
          QVERIFY(!a.isValid() && !b.isValid());
          QCOMPARE(ir.data(ir.index(row, 0)).toString(),
                   QString::fromStdString(diff.a.loop_ir_lines[static_cast<size_t>(
                       diff.loop_ir_rows[static_cast<size_t>(row)].a)]));
          break;
        case RowChange::Changed:
          ++changed;
          QVERIFY(a.isValid() && a == b);
          break;
        case RowChange::Removed:
          QVERIFY(a.isValid() && a != b && ir.data(ir.index(row, 1)).toString().isEmpty());
          break;
        case RowChange::Added:
          QVERIFY(b.isValid() && a != b && ir.data(ir.index(row, 0)).toString().isEmpty());
          break;
      }
    }
    QVERIFY2(changed > 0, "another config changed no line of the loop IR");

    QTableWidget* knobs = view.knobTable();
    QVERIFY(knobs->isVisible());
    QCOMPARE(knobs->rowCount(), static_cast<int>(diff.knobs.size()));
    int differing = 0;
    for (int r = 0; r < knobs->rowCount(); ++r) {
      const bool differs = diff.knobs[static_cast<size_t>(r)].differs();
      differing += differs;
      QCOMPARE(knobs->item(r, 0)->text(),
               QString::fromStdString(diff.knobs[static_cast<size_t>(r)].knob));
      QCOMPARE(knobs->item(r, 1)->font().bold(), differs);
      QCOMPARE(knobs->item(r, 2)->background().style() != Qt::NoBrush, differs);
    }
    QCOMPARE(differing, 1);
    QVERIFY2(
        view.knobNote()->text().contains(QStringLiteral("1 of %1 differ").arg(knobs->rowCount())),
        qPrintable(view.knobNote()->text()));

    QTableWidget* m = view.measurementTable();
    QCOMPARE(m->item(0, 1)->text(), QStringLiteral("tuned"));
    QCOMPARE(m->item(1, 0)->text(), QStringLiteral("2.0000"));
    QCOMPARE(m->item(4, 1)->text(), QStringLiteral("80.0"));
    QCOMPARE(m->item(6, 0)->text(), QStringLiteral("DRAM"));
    QVERIFY2(view.verdict()->text().startsWith(QStringLiteral("B is 2.00× faster")),
             qPrintable(view.verdict()->text()));
  }

  // From the Schedule tab: the dialog lists the default, the editor's text,
  // the records and the journal; comparing the default with an edit lowers,
  // aligns and measures both off the GUI thread.
  void compareDialogDiffsAnEditInTheBackground() {
    const QString journal = dir_.filePath(QStringLiteral("journal.jsonl"));
    const QString records = dir_.filePath(QStringLiteral("records.jsonl"));
    studio::ScheduleEditorPage page(journal);
    page.setRecordsPath(records);
    page.resize(1200, 800);
    QSignalSpy listed(&page, &studio::ScheduleEditorPage::tasksListed);
    page.setGraphSnapshots(snapshots_);
    QVERIFY(listed.wait(kTimeoutMs));
    QSignalSpy emitted(&page, &studio::ScheduleEditorPage::previewEmitted);
    page.openTask(convTask_);
    QVERIFY(emitted.wait(kTimeoutMs));
    {
      driver::RecordWriter writer(records.toStdString());
      writer.write(otherConfigRecord(page.openedTask()->workbench));
    }
    // An edit: the default with its first split's factor changed.
    QString edit = page.editor()->toPlainText();
    const QRegularExpression factor(QStringLiteral(R"(factor=(\d+))"));
    const QRegularExpressionMatch match = factor.match(edit);
    QVERIFY(match.hasMatch());
    edit.replace(
        match.capturedStart(1), match.capturedLength(1),
        match.captured(1) == QLatin1String("2") ? QStringLiteral("4") : QStringLiteral("2"));
    page.editor()->replaceText(edit);

    studio::ScheduleCompareDialog* dialog = page.compare();
    QVERIFY(dialog);
    QSignalSpy sources(dialog, &studio::ScheduleCompareDialog::sourcesListed);
    QVERIFY(sources.wait(kTimeoutMs));
    // default, editor, the records' best and its one record.
    QCOMPARE(dialog->sourceA()->count(), 4);
    QVERIFY(dialog->sourceB()->currentText().startsWith(QStringLiteral("best of records.jsonl")));
    QVERIFY(dialog->sourceA()->itemText(3).startsWith(QStringLiteral("record 0 of records.jsonl")));

    dialog->sourceA()->setCurrentIndex(0);
    dialog->sourceB()->setCurrentIndex(1);
    QSignalSpy compared(dialog, &studio::ScheduleCompareDialog::compared);
    QSignalSpy failed(dialog, &studio::ScheduleCompareDialog::compareFailed);
    dialog->compareButton()->click();
    QVERIFY(!dialog->compareButton()->isEnabled());  // busy: the GUI thread did not compute it
    QTRY_VERIFY_WITH_TIMEOUT(compared.count() + failed.count() > 0, kTimeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(dialog->statusLine()->text()));

    views::ScheduleDiffView* view = dialog->view();
    const AlignedDiffModel& ir = *view->loopIRModel();
    int changed = 0;
    for (int row = 0; row < ir.rowCount(); ++row) changed += ir.change(row) != RowChange::Same;
    QVERIFY(changed > 0);
    // An edit is no config: the primitives that differ stand in for knobs.
    QVERIFY(!view->knobTable()->isVisibleTo(view));
    QVERIFY2(view->knobNote()->text().contains(QStringLiteral("1 line(s)")),
             qPrintable(view->knobNote()->text()));
    const AlignedDiffModel& text = *view->scheduleModel();
    int changedLines = 0;
    for (int row = 0; row < text.rowCount(); ++row)
      changedLines += text.change(row) == RowChange::Changed;
    QCOMPARE(changedLines, 1);
    // Both measured, each placed under the roof.
    bool ok = false;
    QVERIFY(view->measurementTable()->item(1, 0)->text().toDouble(&ok) > 0 && ok);
    QVERIFY(view->measurementTable()->item(4, 1)->text().toDouble(&ok) > 0 && ok);
    QCOMPARE(view->measurementTable()->item(7, 1)->text(), QStringLiteral("ok"));
    dialog->close();
  }
};

QTEST_MAIN(TestScheduleDiffView)
#include "tst_schedule_diff_view.moc"

// The studio's schedule editor on the bundled sample: a convolution opens
// with its default schedule and a loop-IR preview; an edit changes the
// preview; a bad edit is underlined with its message, keeps the last preview
// and crashes nothing; Reset restores the default; the journal keeps edits
// for the next editor; Measure checks the kernel against the reference.
#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QComboBox>
#include <QCompleter>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QtTest>
#include <memory>

#include "driver/model_loader.h"
#include "isolated_settings.h"
#include "studio/edit_journal.h"
#include "studio/graph_snapshot_tracker.h"
#include "studio/main_window.h"
#include "studio/schedule_editor_page.h"
#include "studio/schedule_editor_tracker.h"
#include "tune/kernel_task.h"
#include "tune/records.h"
#include "views/code_preview.h"
#include "views/schedule_editor.h"
#include "views/schedule_editor_measurements.h"
#include "views/schedule_editor_vocabulary.h"

using namespace lathe;
using lathe::studio::ScheduleEditorPage;
using lathe::views::MeasurementTableModel;
using lathe::views::ScheduleEditor;

namespace {

// Lowering and compiling a small kernel takes milliseconds; a CI machine
// shared by several builds can be a hundred times slower.
constexpr int kTimeoutMs = 30000;

QString samplePath() {
  return qEnvironmentVariable("LATHE_SOURCE_DIR") + QStringLiteral("/resources/sample_cnn.onnx");
}

// Selects the first "factor=N" of the text and types another factor over it,
// key by key, as a user would. Returns the new text, or "" without a factor.
QString typeOtherSplitFactor(ScheduleEditor& editor) {
  static const QRegularExpression factor(QStringLiteral(R"(factor=(\d+))"));
  const QRegularExpressionMatch m = factor.match(editor.toPlainText());
  if (!m.hasMatch()) return {};
  QTextCursor cursor = editor.textCursor();
  cursor.setPosition(static_cast<int>(m.capturedStart(1)));
  cursor.setPosition(static_cast<int>(m.capturedEnd(1)), QTextCursor::KeepAnchor);
  editor.setTextCursor(cursor);
  QTest::keyClicks(&editor,
                   m.captured(1) == QLatin1String("2") ? QStringLiteral("4") : QStringLiteral("2"));
  return editor.toPlainText();
}

// Moves the cursor to the end and types `line` on a new line. Returns whether
// the completion popup was open when the line was typed; it is closed after.
bool typeLine(ScheduleEditor& editor, const QString& line) {
  QTextCursor cursor = editor.textCursor();
  cursor.movePosition(QTextCursor::End);
  editor.setTextCursor(cursor);
  if (!editor.toPlainText().endsWith(QLatin1Char('\n'))) QTest::keyClick(&editor, Qt::Key_Return);
  QTest::keyClicks(&editor, line);
  QAbstractItemView* popup = editor.completer()->popup();
  const bool popupOpen = popup->isVisible();
  // Keys go to the popup while it is open, as they do when a user types.
  if (popupOpen) QTest::keyClick(popup, Qt::Key_Escape);
  return popupOpen;
}

}  // namespace

class TestScheduleEditor : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const studio::GraphSnapshots> snapshots_;
  std::vector<driver::KernelTask> tasks_;
  int convTask_ = -1;

  QString journalPath(const char* name) const {
    return dir_.filePath(QString::fromLatin1(name) + QStringLiteral(".jsonl"));
  }

  // A new page over the sample's tasks with the first convolution opened and
  // its preview (loop IR, LLVM IR, assembly) shown; null when that failed.
  std::unique_ptr<ScheduleEditorPage> openConvolution(const QString& journal) {
    auto page = std::make_unique<ScheduleEditorPage>(journal);
    page->resize(1200, 800);
    QSignalSpy listed(page.get(), &ScheduleEditorPage::tasksListed);
    page->setGraphSnapshots(snapshots_);
    if (!listed.wait(kTimeoutMs)) return nullptr;
    QSignalSpy emitted(page.get(), &ScheduleEditorPage::previewEmitted);
    page->openTask(convTask_);
    if (!emitted.wait(kTimeoutMs)) return nullptr;
    return page;
  }

  static std::vector<tune::TuningRecord> journalRecords(const QString& path) {
    return tune::read_records(path.toStdString()).records;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    // Settings and application data of this run only, never the user's.
    QStandardPaths::setTestModeEnabled(true);
    isolate_settings(dir_.path(), QStringLiteral("tst_schedule_editor"));
    QFile::remove(studio::EditJournal::defaultPath());

    QVERIFY2(QFileInfo::exists(samplePath()), qPrintable(samplePath()));
    auto snapshots = std::make_shared<studio::GraphSnapshots>();
    snapshots->path = samplePath();
    snapshots->original = driver::load_model(samplePath().toStdString());
    snapshots->optimized = passes::optimize_graph(snapshots->original, {});
    snapshots_ = snapshots;
    tasks_ = tune::extract_tasks(snapshots_->optimized.graph, snapshots_->optimized.groups);
    for (size_t i = 0; i < tasks_.size() && convTask_ < 0; ++i)
      for (const std::string& op : tasks_[i].ops)
        if (op.rfind("Conv", 0) == 0) convTask_ = static_cast<int>(i);
    QVERIFY2(convTask_ >= 0, "the sample model has no convolution kernel");
  }

  void boundNamesFollowAssignments() {
    const QString text = QStringLiteral(
        "s = te.create_schedule(C.op)\n"
        "xo, xi = s[C].split(C.op.axis[0], factor=8)\n"
        "(f,) = s[C].fuse(xo)\n"
        "x == 1\n"
        "xo = s[C].fuse(xo, xi)\n");
    QCOMPARE(views::boundNames(text), (QStringList{"s", "xo", "xi", "f"}));
  }

  void codePreviewKeepsPassAndScroll() {
    views::CodePreview preview;
    preview.resize(600, 300);
    QString longIR;
    for (int i = 0; i < 400; ++i) longIR += QStringLiteral("for i%1 in range(8):\n").arg(i);
    preview.setLoweringPasses({{QStringLiteral("schedule_ops"), longIR, 0.5},
                               {QStringLiteral("simplify"), QStringLiteral("unchanged"), 0.1},
                               {QStringLiteral("vectorize"), longIR + QStringLiteral("x\n"), 0.2}});
    QCOMPARE(preview.passCombo()->count(), 3);
    QCOMPARE(preview.passCombo()->currentIndex(), 2);  // the function as compiled
    // An unchanged pass shows the IR it left alone.
    preview.passCombo()->setCurrentIndex(1);
    QCOMPARE(preview.loopIRText(), longIR);

    preview.show();
    QScrollBar* scroll = preview.codeView(views::CodePreview::LoopIRTab)->verticalScrollBar();
    QVERIFY(scroll->maximum() > 100);
    scroll->setValue(100);
    preview.setLoweringPasses(
        {{QStringLiteral("schedule_ops"), longIR + QStringLiteral("y\n"), 0.5},
         {QStringLiteral("simplify"), QStringLiteral("unchanged"), 0.1},
         {QStringLiteral("vectorize"), longIR, 0.2}});
    QCOMPARE(preview.passCombo()->currentIndex(), 1);  // still the pass the user chose
    QVERIFY(preview.loopIRText().endsWith(QStringLiteral("y\n")));
    QCOMPARE(scroll->value(), 100);
  }

  void opensWithDefaultScheduleAndPreview() {
    auto page = openConvolution(journalPath("open"));
    QVERIFY(page);
    const auto task = page->openedTask();
    QVERIFY(task);
    QCOMPARE(task->task().id, tasks_[static_cast<size_t>(convTask_)].id);
    const QString defaultText = QString::fromStdString(task->workbench.default_schedule_text());
    QCOMPARE(page->editor()->toPlainText(), defaultText);
    QCOMPARE(page->taskCombo()->currentIndex(), convTask_);

    views::CodePreview* preview = page->preview();
    QVERIFY2(preview->loopIRText().contains(QStringLiteral("for ")),
             qPrintable(preview->loopIRText()));
    QVERIFY(preview->passCombo()->count() > 1);
    QVERIFY(preview->llvmIRText().contains(QStringLiteral("define ")));
    QVERIFY(preview->assemblyText().contains(QString::fromStdString(task->task().func_name)));
    QVERIFY(page->editor()->diagnostics().isEmpty());
    // The "updating" notice a slow preview shows goes when the preview ends,
    // which may be a moment after its last stage arrived.
    QTRY_VERIFY(preview->notice().isEmpty());
    // Opening is not an edit: nothing is journaled.
    QVERIFY(!QFileInfo::exists(journalPath("open")));
  }

  void completesPrimitivesTensorsAndAxes() {
    auto page = openConvolution(journalPath("complete"));
    QVERIFY(page);
    ScheduleEditor* editor = page->editor();
    const views::ScheduleVocabulary& vocabulary = editor->vocabulary();
    QVERIFY(!vocabulary.stages.isEmpty());
    QVERIFY(!vocabulary.axes.isEmpty());
    const QString stage = vocabulary.stages.front();

    typeLine(*editor, QStringLiteral("s[%1].sp").arg(stage));
    QCOMPARE(editor->completionsAtCursor(), QStringList{QStringLiteral("split")});
    typeLine(*editor, QStringLiteral("s.cache_w"));
    QCOMPARE(editor->completionsAtCursor(), QStringList{QStringLiteral("cache_write")});
    typeLine(*editor, stage + QStringLiteral(".op.ax"));
    const QStringList axes = editor->completionsAtCursor();
    QVERIFY2(axes.contains(stage + QStringLiteral(".op.axis[0]")), qPrintable(axes.join(',')));
    // Names the text binds are offered too ("s" is bound by every schedule).
    typeLine(*editor, QStringLiteral("s"));
    QVERIFY(editor->completionsAtCursor().contains(QStringLiteral("s")));
    // Choosing a completion replaces what was typed of it and opens the call.
    QVERIFY(typeLine(*editor, QStringLiteral("s[%1].vecto").arg(stage)));
    QCOMPARE(editor->completionsAtCursor(), QStringList{QStringLiteral("vectorize")});
    emit editor->completer()->activated(editor->completer()->completionModel()->index(0, 0));
    QVERIFY2(editor->toPlainText().endsWith(QStringLiteral("s[%1].vectorize(").arg(stage)),
             qPrintable(editor->toPlainText()));
  }

  void editRefreshesPreview() {
    auto page = openConvolution(journalPath("edit"));
    QVERIFY(page);
    const QString before = page->preview()->loopIRText();
    QSignalSpy lowered(page.get(), &ScheduleEditorPage::previewLowered);
    const QString edited = typeOtherSplitFactor(*page->editor());
    QVERIFY2(!edited.isEmpty(), "the default schedule splits nothing");
    QTRY_VERIFY_WITH_TIMEOUT(!lowered.isEmpty() && lowered.last().at(0).toString() == edited,
                             kTimeoutMs);
    QVERIFY(page->preview()->loopIRText() != before);
    QVERIFY(page->editor()->diagnostics().isEmpty());
    QVERIFY(page->statusLine()->text().startsWith(QStringLiteral("Lowered")));
  }

  void badEditIsUnderlinedAndKeepsPreview() {
    auto page = openConvolution(journalPath("bad"));
    QVERIFY(page);
    ScheduleEditor* editor = page->editor();
    const QString stage = editor->vocabulary().stages.front();
    const QString goodText = editor->toPlainText();
    const QString goodIR = page->preview()->loopIRText();
    const QString goodLlvm = page->preview()->llvmIRText();

    struct Case {
      QString line;
      QString inMessage;
    };
    const QList<Case> cases = {
        // A primitive's own check.
        {QStringLiteral("s[%1].split(%1.op.axis[0], factor=0)").arg(stage),
         QStringLiteral("factor")},
        // An unknown name, pointed at by its column.
        {QStringLiteral("s[%1].unroll(no_such_axis)").arg(stage), QStringLiteral("no_such_axis")},
        // A syntax error.
        {QStringLiteral("s[%1].unroll(").arg(stage), QString()},
    };
    for (const Case& c : cases) {
      QSignalSpy shown(page.get(), &ScheduleEditorPage::diagnosticsShown);
      typeLine(*editor, c.line);
      const int line = editor->document()->blockCount();
      QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), kTimeoutMs);
      QCOMPARE(shown.last().at(0).toString(), editor->toPlainText());

      const QList<views::ScheduleEditorDiagnostic>& problems = editor->diagnostics();
      QVERIFY(!problems.isEmpty());
      QCOMPARE(problems.front().line, line);
      QVERIFY2(problems.front().message.contains(c.inMessage),
               qPrintable(problems.front().message));
      // Underlined on that line, with the message as its tooltip.
      QVERIFY(!editor->diagnosticSelections().isEmpty());
      const QTextEdit::ExtraSelection& underline = editor->diagnosticSelections().front();
      QCOMPARE(underline.format.underlineStyle(), QTextCharFormat::WaveUnderline);
      QCOMPARE(underline.cursor.blockNumber(), line - 1);
      QVERIFY(underline.cursor.hasSelection());
      QCOMPARE(editor->diagnosticAt(underline.cursor.selectionStart()), problems.front().message);
      QVERIFY(page->statusLine()->text().contains(QStringLiteral("line %1").arg(line)));
      // The last schedule that lowered stays in the preview.
      QCOMPARE(page->preview()->loopIRText(), goodIR);
      QCOMPARE(page->preview()->llvmIRText(), goodLlvm);
      QVERIFY(!page->preview()->notice().isEmpty());

      // Undoing the bad line brings the good text back and clears the underline.
      QSignalSpy lowered(page.get(), &ScheduleEditorPage::previewLowered);
      while (editor->document()->isUndoAvailable()) editor->undo();
      QCOMPARE(editor->toPlainText(), goodText);
      QTRY_VERIFY_WITH_TIMEOUT(!lowered.isEmpty(), kTimeoutMs);
      QVERIFY(editor->diagnostics().isEmpty());
      QVERIFY(editor->diagnosticSelections().isEmpty());
      QVERIFY(page->preview()->notice().isEmpty() ||
              page->preview()->notice() == QStringLiteral("updating…"));
    }

    // An empty text is a problem too, not the default schedule in disguise.
    QSignalSpy shown(page.get(), &ScheduleEditorPage::diagnosticsShown);
    editor->selectAll();
    QTest::keyClick(editor, Qt::Key_Delete);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), kTimeoutMs);
    QVERIFY(editor->diagnostics().front().message.contains(QStringLiteral("empty")));
    QCOMPARE(page->preview()->loopIRText(), goodIR);
  }

  void resetRestoresDefaultUndoably() {
    auto page = openConvolution(journalPath("reset"));
    QVERIFY(page);
    const QString defaultText = page->openedTask()->defaultText;
    const QString edited = typeOtherSplitFactor(*page->editor());
    QVERIFY(!edited.isEmpty());
    QSignalSpy lowered(page.get(), &ScheduleEditorPage::previewLowered);
    page->resetToDefault();
    QCOMPARE(page->editor()->toPlainText(), defaultText);
    QTRY_VERIFY_WITH_TIMEOUT(!lowered.isEmpty() && lowered.last().at(0).toString() == defaultText,
                             kTimeoutMs);
    page->editor()->undo();
    QCOMPARE(page->editor()->toPlainText(), edited);
  }

  void journalKeepsEditsForTheNextEditor() {
    const QString journal = journalPath("journal");
    QString edited;
    std::string workload;
    {
      auto page = openConvolution(journal);
      QVERIFY(page);
      workload = tune::task_workload_id(page->openedTask()->task());
      QSignalSpy lowered(page.get(), &ScheduleEditorPage::previewLowered);
      edited = typeOtherSplitFactor(*page->editor());
      QVERIFY(!edited.isEmpty());
      QTRY_VERIFY_WITH_TIMEOUT(!lowered.isEmpty() && lowered.last().at(0).toString() == edited,
                               kTimeoutMs);
      // Written as soon as it lowered: a crash from here on loses nothing.
      const std::vector<tune::TuningRecord> records = journalRecords(journal);
      QVERIFY(!records.empty());
      const tune::TuningRecord& last = records.back();
      QCOMPARE(QString::fromStdString(last.schedule), edited);
      QCOMPARE(last.workload, workload);
      QCOMPARE(last.space, std::string("editor"));
      QCOMPARE(last.tuner, std::string("editor"));
      QCOMPARE(last.target, page->tracker()->target().to_string());
      QVERIFY(!last.ok());  // not measured: the compiler does not apply it
    }
    // A new editor (the studio restarted, or crashed) opens the task with the edit.
    auto again = openConvolution(journal);
    QVERIFY(again);
    QCOMPARE(again->editor()->toPlainText(), edited);
    QCOMPARE(journalRecords(journal).size(), size_t{1});  // reopening writes nothing
  }

  void measureShowsResultAndKeepsIt() {
    const QString journal = journalPath("measure");
    auto page = openConvolution(journal);
    QVERIFY(page);
    const QString measuredText = page->editor()->toPlainText();
    QAbstractItemModelTester tester(page->measurements(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy added(page.get(), &ScheduleEditorPage::measurementAdded);
    page->measure();
    QVERIFY(page->findChild<QWidget*>(QStringLiteral("measureBusy"))->isVisibleTo(page.get()));
    QTRY_VERIFY_WITH_TIMEOUT(!added.isEmpty(), kTimeoutMs);

    MeasurementTableModel* model = page->measurements();
    QCOMPARE(model->rowCount(), 1);
    auto cell = [&](int column, int role = Qt::DisplayRole) {
      return model->index(0, column).data(role);
    };
    QVERIFY(cell(MeasurementTableModel::MedianColumn, MeasurementTableModel::ValueRole).toDouble() >
            0);
    QVERIFY(cell(MeasurementTableModel::GflopsColumn, MeasurementTableModel::ValueRole).toDouble() >
            0);
    const double percent =
        cell(MeasurementTableModel::PeakColumn, MeasurementTableModel::ValueRole).toDouble();
    QVERIFY2(percent > 0 && percent < 1000, qPrintable(QString::number(percent)));
    QCOMPARE(cell(MeasurementTableModel::CheckColumn).toString(), QStringLiteral("ok"));
    QVERIFY(!page->findChild<QWidget*>(QStringLiteral("measureBusy"))->isVisibleTo(page.get()));

    // The measured edit is a record the compiler would apply ...
    const std::vector<tune::TuningRecord> records = journalRecords(journal);
    QVERIFY(!records.empty());
    QVERIFY(records.back().ok());
    QCOMPARE(QString::fromStdString(records.back().schedule), measuredText);
    // ... and "Load Best" brings it back after other edits.
    QSignalSpy lowered(page.get(), &ScheduleEditorPage::previewLowered);
    QVERIFY(!typeOtherSplitFactor(*page->editor()).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(!lowered.isEmpty(), kTimeoutMs);
    page->loadBestFromJournal();
    QTRY_COMPARE_WITH_TIMEOUT(page->editor()->toPlainText(), measuredText, kTimeoutMs);
  }

  void mainWindowHasScheduleTab() {
    studio::MainWindow window;
    window.show();
    QSignalSpy graphs(&window, &studio::MainWindow::graphsShown);
    window.openModel(samplePath());
    QTRY_VERIFY_WITH_TIMEOUT(!graphs.isEmpty(), kTimeoutMs);
    ScheduleEditorPage* page = window.schedulePage();
    QVERIFY(page);
    const int tab = window.centralTabs()->indexOf(page);
    QVERIFY(tab >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(page->taskCombo()->count(), static_cast<int>(tasks_.size()),
                              kTimeoutMs);
    // The kernel opens when the tab is first shown: the heaviest one.
    QSignalSpy emitted(page, &ScheduleEditorPage::previewEmitted);
    window.centralTabs()->setCurrentIndex(tab);
    QTRY_VERIFY_WITH_TIMEOUT(!emitted.isEmpty(), kTimeoutMs);
    QVERIFY(page->openedTask());
    QVERIFY(page->preview()->loopIRText().contains(QStringLiteral("for ")));
  }
};

QTEST_MAIN(TestScheduleEditor)
#include "tst_schedule_editor.moc"

// The studio with a GPU target: the toolbar's target picker rebuilds the
// model's kernels for "cuda -arch=sm_90", the Schedule tab shows the kernel's
// GPU schedule (its binds), the loop IR with its thread bindings and the PTX;
// an illegal GPU schedule (too many threads per block) is underlined at the
// bind the verifier's message is about; what needs a running kernel is off
// with the reason; back on llvm the assembly is x86 again; a bad target text
// shows Target::parse's message and changes nothing. No GPU is needed.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <algorithm>
#include <memory>

#include "driver/gpu_schedule_check.h"
#include "driver/target_device.h"
#include "isolated_settings.h"
#include "studio/benchmark_page.h"
#include "studio/graph_snapshot_tracker.h"
#include "studio/main_window.h"
#include "studio/schedule_editor_page.h"
#include "studio/schedule_editor_tracker.h"
#include "studio/tuning_page.h"
#include "support/run_program.h"
#include "views/code_preview.h"
#include "views/schedule_editor.h"
#include "views/target_picker.h"

using namespace lathe;
using lathe::studio::ScheduleEditorPage;

namespace {

// Lowering and emitting PTX for a small kernel takes well under a second; a
// shared CI machine can be a hundred times slower.
constexpr int kTimeoutMs = 60000;

QString samplePath() {
  return qEnvironmentVariable("LATHE_SOURCE_DIR") + QStringLiteral("/resources/sample_cnn.onnx");
}

// Target::parse's message for `text` (what the picker must show).
QString parseError(const QString& text) {
  try {
    driver::Target::parse(text.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestGpuStudio : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<studio::MainWindow> window_;

  ScheduleEditorPage* page() const { return window_->schedulePage(); }
  views::TargetPicker* picker() const { return window_->targetPicker(); }

  // Applies `text` and waits until the Schedule tab shows a kernel of the
  // model compiled for it, with all its code.
  bool switchTarget(const QString& text) {
    QSignalSpy emitted(page(), &ScheduleEditorPage::previewEmitted);
    if (!picker()->apply(text)) return false;
    const driver::Target want = driver::Target::parse(text.toStdString());
    return QTest::qWaitFor(
        [&] {
          const auto task = page()->openedTask();
          return !emitted.isEmpty() && task && task->target() == want &&
                 emitted.last().at(0).toString() == page()->editor()->toPlainText();
        },
        kTimeoutMs);
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    isolate_settings(dir_.path(), QStringLiteral("tst_gpu_studio"));
    window_ = std::make_unique<studio::MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QSignalSpy computed(window_.get(), &studio::MainWindow::snapshotsComputed);
    window_->openModel(samplePath());
    QTRY_VERIFY_WITH_TIMEOUT(!computed.isEmpty(), kTimeoutMs);
    QSignalSpy emitted(page(), &ScheduleEditorPage::previewEmitted);
    window_->centralTabs()->setCurrentWidget(page());
    QTRY_VERIFY_WITH_TIMEOUT(!emitted.isEmpty(), kTimeoutMs);
    QCOMPARE(picker()->target(), driver::Target::host());
  }

  void badTargetShowsParseError() {
    const driver::Target before = picker()->target();
    for (const QString& text :
         {QStringLiteral("gpu"), QStringLiteral("cuda -arch=sm_90 -max_threads_per_block=lots")}) {
      const QString expected = parseError(text);
      QVERIFY2(!expected.isEmpty(), qPrintable(text));
      // Typed and entered, as a user does.
      QSignalSpy rejected(picker(), &views::TargetPicker::targetRejected);
      QSignalSpy computed(window_.get(), &studio::MainWindow::snapshotsComputed);
      QLineEdit* edit = picker()->combo()->lineEdit();
      edit->selectAll();
      QTest::keyClicks(edit, text);
      QTest::keyClick(edit, Qt::Key_Return);
      QTRY_COMPARE(rejected.size(), 1);
      QCOMPARE(picker()->problem(), expected);
      auto* label = picker()->findChild<QLabel*>(QStringLiteral("targetProblem"));
      QVERIFY(label && label->isVisible());
      QCOMPARE(label->text(), expected);
      // Nothing is rebuilt: the target stays.
      QCOMPARE(picker()->target(), before);
      QTest::qWait(50);
      QVERIFY(computed.isEmpty());
      QCOMPARE(rejected.size(), 1);  // one message for one Return
    }
  }

  void cudaShowsScheduleBindingsAndPtx() {
    QVERIFY(switchTarget(QStringLiteral("cuda -arch=sm_90")));
    QVERIFY(picker()->problem().isEmpty());
    const auto task = page()->openedTask();
    QVERIFY(task->target().is_gpu());
    QVERIFY(window_->graphSnapshots()->target.is_gpu());
    const QString schedule = page()->editor()->toPlainText();
    QVERIFY2(schedule.contains(QStringLiteral("te.thread_axis(\"threadIdx.x\")")),
             qPrintable(schedule));
    QVERIFY2(schedule.contains(QStringLiteral("te.thread_axis(\"blockIdx.x\")")),
             qPrintable(schedule));

    views::CodePreview* preview = page()->preview();
    const QString loopIR = preview->loopIRText();
    QVERIFY2(loopIR.contains(QRegularExpression(
                 QStringLiteral(R"(for \w+ in T\.thread_binding\(\d+, thread="threadIdx\.x"\))"))),
             qPrintable(loopIR));
    const QString name = QString::fromStdString(task->task().func_name);
    const QString ptx = preview->assemblyText();
    QVERIFY2(ptx.contains(QStringLiteral(".entry ") + name), qPrintable(ptx.left(2000)));
    QVERIFY(ptx.contains(QStringLiteral(".target sm_90")));
    QVERIFY(ptx.contains(QStringLiteral("%tid.x")));
    QVERIFY(preview->llvmIRText().contains(QStringLiteral("nvptx64")));
    QCOMPARE(preview->tabText(views::CodePreview::AssemblyTab), QStringLiteral("PTX"));
    // Above the PTX, what CUDA's ptxas makes of it and the occupancy that
    // gives (or what to install); below it, the SASS or why there is none.
    if (find_cuda_tool("ptxas")) {
      QVERIFY2(ptx.startsWith(QStringLiteral("// ptxas -v -arch=sm_90")) &&
                   ptx.contains(QStringLiteral("//   ") + name + QStringLiteral(": ")) &&
                   ptx.contains(QStringLiteral(" registers, ")) &&
                   ptx.contains(QStringLiteral("//     occupancy ")) &&
                   ptx.contains(QStringLiteral("% on sm_90 (")),
               qPrintable(ptx.left(2000)));
      if (!find_cuda_tool("nvdisasm") && !find_cuda_tool("cuobjdump"))
        QVERIFY2(ptx.contains(QStringLiteral("// SASS needs nvdisasm")),
                 qPrintable(ptx.right(800)));
    } else {
      QVERIFY2(ptx.startsWith(QStringLiteral("// no ptxas")), qPrintable(ptx.left(2000)));
    }
    QVERIFY(page()->editor()->diagnostics().isEmpty());
    // Side by Side: the loop IR and the PTX at once.
    views::CodePreview* beside = page()->besidePreview();
    QVERIFY(!beside->isVisible());
    page()->besideButton()->click();
    QVERIFY(beside->isVisible());
    QCOMPARE(beside->currentIndex(), static_cast<int>(views::CodePreview::AssemblyTab));
    QCOMPARE(beside->assemblyText(), ptx);
    QCOMPARE(beside->loopIRText(), loopIR);

    // Running kernels is off, with the driver's reason; never a number.
    const QString why = QString::fromStdString(driver::why_kernels_cannot_run(task->target()));
    QVERIFY(!why.isEmpty());
    auto* measure = page()->findChild<QPushButton*>(QStringLiteral("measureButton"));
    QVERIFY(measure);
    QVERIFY(!measure->isEnabled());
    QVERIFY2(measure->toolTip().contains(why), qPrintable(measure->toolTip()));
    QTabWidget* tabs = window_->centralTabs();
    const int tuning = tabs->indexOf(window_->tuningPage());
    const int benchmark = tabs->indexOf(window_->benchmarkPage());
    QVERIFY(!tabs->isTabEnabled(tuning));
    QVERIFY(tabs->tabToolTip(tuning).contains(why));
    QVERIFY(!tabs->isTabEnabled(benchmark));
    // The roofline has no GPU peak to show, and says so rather than the CPU's.
    QVERIFY(tabs->tabToolTip(benchmark).contains(QStringLiteral("unknown")));
  }

  void gpuScheduleIsCheckedOnTheSimulator() {
    // Without a GPU the kernel still runs: once, on the GPU simulator, and
    // the status says whether it matches the reference.
    QVERIFY(page()->openedTask() && page()->openedTask()->target().is_gpu());
    auto* check = page()->findChild<QPushButton*>(QStringLiteral("simulateButton"));
    QVERIFY(check);
    QVERIFY(check->isVisible());
    QVERIFY(check->isEnabled());
    QSignalSpy simulated(page()->tracker(), &studio::ScheduleEditorTracker::simulated);
    QSignalSpy failed(page()->tracker(), &studio::ScheduleEditorTracker::simulateFailed);
    check->click();
    QTRY_VERIFY_WITH_TIMEOUT(!simulated.isEmpty() || !failed.isEmpty(), kTimeoutMs);
    QVERIFY2(failed.isEmpty(),
             qPrintable(failed.isEmpty() ? QString() : failed.first().at(1).toString()));
    QVERIFY(simulated.first().at(2).toBool());
    auto* status = page()->findChild<QLabel*>(QStringLiteral("scheduleStatus"));
    QVERIFY2(status->text().contains(QStringLiteral("matches the reference")),
             qPrintable(status->text()));
    QTRY_VERIFY_WITH_TIMEOUT(check->isEnabled(), kTimeoutMs);  // ready for the next edit
  }

  void illegalGpuScheduleShowsVerifierMessage() {
    // A kernel whose threadIdx.x loop is one split's inner part (the default
    // template's; the convolution template binds fusions of clamped splits).
    const QRegularExpression bindPattern(
        QStringLiteral(R"(\.bind\((\w+), te\.thread_axis\("threadIdx\.x"\)\))"));
    auto splitOf = [](const QString& text, const QString& threads) {
      return QRegularExpression(
                 QStringLiteral(R"(\b%1\b[^\n]*= s\[\w+\]\.split\([^\n]*factor=(\d+)\))")
                     .arg(threads))
          .match(text);
    };
    views::ScheduleEditor* editor = page()->editor();
    for (int id = 0; id < page()->taskCombo()->count(); ++id) {
      const QRegularExpressionMatch b = bindPattern.match(editor->toPlainText());
      if (b.hasMatch() && splitOf(editor->toPlainText(), b.captured(1)).hasMatch()) break;
      QSignalSpy opened(page(), &ScheduleEditorPage::previewEmitted);
      page()->openTask(id);
      QTRY_VERIFY_WITH_TIMEOUT(
          !opened.isEmpty() && opened.last().at(0).toString() == editor->toPlainText(), kTimeoutMs);
    }
    const QString good = editor->toPlainText();
    const QString goodPtx = page()->preview()->assemblyText();
    // The loop bound to threadIdx.x, the split that makes it, and its factor.
    const QRegularExpressionMatch bind = bindPattern.match(good);
    QVERIFY2(bind.hasMatch(), qPrintable(good));
    const QRegularExpressionMatch split = splitOf(good, bind.captured(1));
    QVERIFY2(split.hasMatch(), qPrintable(good));
    const int bindLine =
        static_cast<int>(good.left(bind.capturedStart(1)).count(QLatin1Char('\n'))) + 1;

    // 4096 threads per block: over the target's 1024.
    QSignalSpy shown(page(), &ScheduleEditorPage::diagnosticsShown);
    QTextCursor cursor = editor->textCursor();
    cursor.setPosition(static_cast<int>(split.capturedStart(1)));
    cursor.setPosition(static_cast<int>(split.capturedEnd(1)), QTextCursor::KeepAnchor);
    editor->setTextCursor(cursor);
    QTest::keyClicks(editor, QStringLiteral("4096"));
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), kTimeoutMs);
    QCOMPARE(shown.last().at(0).toString(), editor->toPlainText());
    // Every threadIdx bind is marked when the block has too many threads;
    // one mark is the threadIdx.x bind's.
    const QList<views::ScheduleEditorDiagnostic>& problems = editor->diagnostics();
    auto at_bind = std::find_if(problems.begin(), problems.end(),
                                [&](const auto& p) { return p.line == bindLine; });
    QVERIFY(at_bind != problems.end());
    QCOMPARE(at_bind->column,
             static_cast<int>(bind.capturedStart(1) -
                              good.lastIndexOf(QLatin1Char('\n'), bind.capturedStart(1))));
    QVERIFY2(at_bind->message.contains(QStringLiteral("-max_threads_per_block=1024")),
             qPrintable(at_bind->message));
    QVERIFY(page()->statusLine()->text().contains(QStringLiteral("line %1").arg(bindLine)));
    // The PTX of the last schedule the verifier accepted stays.
    QCOMPARE(page()->preview()->assemblyText(), goodPtx);

    // Back to a legal block: the PTX is emitted again for the new text.
    QSignalSpy emitted(page(), &ScheduleEditorPage::previewEmitted);
    while (editor->document()->isUndoAvailable()) editor->undo();
    QCOMPARE(editor->toPlainText(), good);
    QTRY_VERIFY_WITH_TIMEOUT(!emitted.isEmpty(), kTimeoutMs);
    QVERIFY(editor->diagnostics().isEmpty());
  }

  void verifierProblemsPointAtTheirLines() {
    const std::string text =
        "s = te.create_schedule(C.op)\n"
        "xo, xi = s[C].split(C.op.axis[0], factor=64)\n"
        "s[C].bind(xo, te.thread_axis(\"blockIdx.x\"))\n"
        "s[C].bind(xi, te.thread_axis(\"threadIdx.x\"))\n"
        "AA = s.cache_read(A, \"shared\", [C])\n"
        "s[AA].compute_at(s[C], xo)\n";
    using Subject = codegen::GpuVerifyError::Subject;
    auto at = [&](const Subject& subject) {
      std::vector<std::pair<int, int>> places;
      for (const auto& d :
           driver::gpu_verify_diagnostics(text, codegen::GpuVerifyError("problem", subject)))
        places.emplace_back(d.line, d.column);
      return places;
    };
    using Places = std::vector<std::pair<int, int>>;
    QCOMPARE(at(Subject::of_loop("xi")), (Places{{4, 11}}));
    QCOMPARE(at(Subject::of_threads("threadIdx")), (Places{{4, 11}}));
    QCOMPARE(at(Subject::of_threads("blockIdx.x")), (Places{{3, 11}}));
    QCOMPARE(at(Subject::of_scope("shared")), (Places{{5, 22}}));
    // A buffer: where its stage is placed.
    QCOMPARE(at(Subject::of_buffer("AA")), (Places{{6, 1}}));
    // A name the text does not bind: where it first stands alone.
    QCOMPARE(at(Subject::of_loop("C")), (Places{{1, 24}}));
    // Nothing to point at: the schedule's first statement.
    QCOMPARE(at(Subject{}), (Places{{1, 8}}));
  }

  void llvmAgainShowsX86Assembly() {
    QVERIFY(switchTarget(QStringLiteral("llvm")));
    const auto task = page()->openedTask();
    QVERIFY(!task->target().is_gpu());
    const QString assembly = page()->preview()->assemblyText();
    QVERIFY(!assembly.contains(QStringLiteral(".entry")));
    QVERIFY2(assembly.contains(QStringLiteral("%rdi")) || assembly.contains(QStringLiteral("%rsi")),
             qPrintable(assembly.left(2000)));
    QCOMPARE(page()->preview()->tabText(views::CodePreview::AssemblyTab),
             QStringLiteral("Assembly"));
    QVERIFY(!page()->editor()->toPlainText().contains(QStringLiteral("thread_axis")));
    QTabWidget* tabs = window_->centralTabs();
    QVERIFY(tabs->isTabEnabled(tabs->indexOf(window_->tuningPage())));
    auto* measure = page()->findChild<QPushButton*>(QStringLiteral("measureButton"));
    QVERIFY(measure->isEnabled());
  }

  void cleanupTestCase() { window_.reset(); }
};

QTEST_MAIN(TestGpuStudio)
#include "tst_gpu_studio.moc"

// The Schedule tab's loop IR annotated with each loop's costs: on the
// bundled sample's second convolution, every `for` line and no other carries
// a note; the default schedule fits the caches and shows no spill mark; a
// schedule that runs the kernel's taps outside the pixels marks the loops
// whose one iteration overflows L1 (in cache lines) while carrying reuse, on their own lines,
// and hovering such a line explains the mark, naming the buffer re-read.
#include <QHelpEvent>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtTest>
#include <memory>

#include "driver/model_loader.h"
#include "studio/graph_snapshot_tracker.h"
#include "studio/schedule_editor_page.h"
#include "studio/schedule_editor_tracker.h"
#include "views/annotated_code_view.h"
#include "views/code_preview.h"
#include "views/schedule_editor.h"

using namespace lathe;
using lathe::studio::ScheduleEditorPage;
using lathe::views::AnnotatedCodeView;

namespace {

constexpr int kTimeoutMs = 30000;

// Caches of fixed sizes, so the marks do not depend on the machine running
// the test: 24 KB L1, 256 KB L2, 4 MB L3.
driver::LoopCostMachine testMachine() {
  driver::LoopCostMachine m;
  m.peak_gflops = 100;
  m.register_file_bytes = 2048;
  m.bandwidth.threads = 1;
  m.bandwidth.levels = {{"L1", 24 << 10, 1, 24 << 10, 200, 150},
                        {"L2", 256 << 10, 1, 256 << 10, 100, 70},
                        {"L3", 4 << 20, 1, 4 << 20, 50, 35},
                        {"DRAM", 0, 1, 16 << 20, 20, 15}};
  return m;
}

// The convolution's reduction over kernel rows and columns outside its
// pixels: one row of taps sweeps the whole output and a third of the input.
const QString kReductionOutside = QStringLiteral(
    "s = te.create_schedule(relu.op)\n"
    "s[conv2dnchwc].reorder(conv2dnchwc.op.reduce_axis[1], conv2dnchwc.op.reduce_axis[2], "
    "conv2dnchwc.op.reduce_axis[0], conv2dnchwc.op.reduce_axis[3], conv2dnchwc.op.axis[0], "
    "conv2dnchwc.op.axis[1], conv2dnchwc.op.axis[2], conv2dnchwc.op.axis[3], "
    "conv2dnchwc.op.axis[4])\n");

QStringList lines(const AnnotatedCodeView* view) {
  return view->toPlainText().split(QLatin1Char('\n'));
}

// The lines (from 0) of `for VAR in` for each variable, in order.
QList<int> forLines(const AnnotatedCodeView* view, const QStringList& vars) {
  QList<int> found;
  const QStringList text = lines(view);
  for (int i = 0; i < text.size(); ++i)
    for (const QString& var : vars)
      if (text[i].trimmed().startsWith(QStringLiteral("for %1 in").arg(var))) found.append(i);
  return found;
}

}  // namespace

class TestLoopCostMarks : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const studio::GraphSnapshots> snapshots_;
  std::unique_ptr<ScheduleEditorPage> page_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    const QString sample =
        qEnvironmentVariable("LATHE_SOURCE_DIR") + QStringLiteral("/resources/sample_cnn.onnx");
    auto snapshots = std::make_shared<studio::GraphSnapshots>();
    snapshots->path = sample;
    snapshots->original = driver::load_model(sample.toStdString());
    snapshots->optimized = passes::optimize_graph(snapshots->original, {});
    snapshots_ = snapshots;

    page_ = std::make_unique<ScheduleEditorPage>(dir_.filePath(QStringLiteral("journal.jsonl")));
    page_->resize(1400, 900);
    page_->tracker()->setLoopCostMachine(testMachine());
    QSignalSpy listed(page_.get(), &ScheduleEditorPage::tasksListed);
    page_->setGraphSnapshots(snapshots_);
    QVERIFY(listed.wait(kTimeoutMs));
    // The second convolution: 16 -> 16 channels on 16 x 16 pixels, ReLU fused.
    int task = -1;
    for (size_t i = 0; i < page_->tasks().size(); ++i)
      if (page_->tasks()[i].func_name == "fused_conv2dnchwc_relu_1") task = static_cast<int>(i);
    QVERIFY2(task >= 0, "the sample has no fused_conv2dnchwc_relu_1");
    QSignalSpy costed(page_.get(), &ScheduleEditorPage::loopCostsShown);
    page_->openTask(task);
    QVERIFY(costed.wait(kTimeoutMs));
    page_->show();
  }

  void everyLoopLineIsAnnotated() {
    const AnnotatedCodeView* view = page_->preview()->loopIRView();
    const QStringList text = lines(view);
    int loops = 0;
    for (const QString& line : text) loops += line.trimmed().startsWith(QStringLiteral("for "));
    QVERIFY(loops > 3);
    QCOMPARE(view->annotations().size(), loops);
    for (const views::LineAnnotation& a : view->annotations()) {
      QVERIFY2(text.value(a.line).trimmed().startsWith(QStringLiteral("for ")),
               qPrintable(text.value(a.line)));
      // "×16 · 40% · 14.2 KB (L1)": trip count, share, working set and level.
      QVERIFY2(a.note.startsWith(QStringLiteral("×")) && a.note.contains(QStringLiteral("%")) &&
                   a.note.endsWith(QStringLiteral(")")),
               qPrintable(a.note));
    }
    // Notes are drawn, not typed: the text is the printed loop IR.
    QCOMPARE(view->toPlainText(), page_->preview()->loopIRText());
    QVERIFY(!view->toPlainText().contains(QStringLiteral("×")));
  }

  void defaultScheduleFitsAndIsNotMarked() {
    const AnnotatedCodeView* view = page_->preview()->loopIRView();
    QVERIFY2(view->markedLines().isEmpty(),
             qPrintable(view->toolTipForLine(view->markedLines().value(0))));
  }

  void reductionOutsideThePixelsIsMarked() {
    AnnotatedCodeView* view = page_->preview()->loopIRView();
    QSignalSpy costed(page_.get(), &ScheduleEditorPage::loopCostsShown);
    page_->editor()->setPlainText(kReductionOutside);
    QTRY_VERIFY_WITH_TIMEOUT(
        !costed.isEmpty() && costed.last().at(0).toString() == kReductionOutside, kTimeoutMs);

    // One row of taps (ry) sweeps the whole 16 KB accumulator and 18 KB of
    // the padded input: over L1, and the next row of taps reads that input
    // again, one row down. So does one tap (rx), one column over. And so does
    // one input channel of the block (rci): it reads one float of each
    // pixel's 64-byte line, 16 KB of lines for 1 KB used, which with the
    // accumulator overflows L1 before the next channel reads the same lines.
    const QList<int> expected =
        forLines(view, {QStringLiteral("ry"), QStringLiteral("rx"), QStringLiteral("rci")});
    QCOMPARE(expected.size(), 3);
    QString marks;  // what is marked, for the failure message
    for (int line : view->markedLines())
      marks += lines(view).value(line).trimmed() + ": " + view->toolTipForLine(line) + "\n";
    QVERIFY2(view->markedLines() == expected, qPrintable(marks));

    const QString tip = view->toolTipForLine(expected.front());
    QVERIFY2(tip.contains(QStringLiteral("exceeds L1 (24.0 KB)")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("conv2dnchwc_pad is re-read 3 times")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("from L2")), qPrintable(tip));
    const QString channel = view->toolTipForLine(expected.back());
    QVERIFY2(channel.contains(QStringLiteral("conv2dnchwc_pad 16.0 KB for 1.0 KB used")),
             qPrintable(channel));

    // Hovering the line shows it.
    const QPoint at(20, static_cast<int>(view->lineGeometry(expected.front()).center().y()));
    QCOMPARE(view->lineAt(at), expected.front());
    QHelpEvent hover(QEvent::ToolTip, at, view->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(view->viewport(), &hover);
    QTRY_COMPARE(QToolTip::text(), tip);
  }
};

QTEST_MAIN(TestLoopCostMarks)
#include "tst_loop_cost_marks.moc"

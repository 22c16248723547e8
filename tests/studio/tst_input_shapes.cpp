// The studio on models that leave input dimensions symbolic: a batch
// dimension is 1 and the log says so; the arrays of NAME.io.npz give the
// rest; else the input shapes dialog asks once, prefilled with what is
// known, and opens the model with the sizes given, or, cancelled, keeps the
// model shown before.
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "../symbolic_models.h"
#include "driver/tensor_files.h"
#include "isolated_settings.h"
#include "studio/graph_snapshot_tracker.h"
#include "studio/input_shapes_dialog.h"
#include "studio/main_window.h"

using namespace lathe;
using lathe::studio::InputShapesDialog;
using lathe::studio::MainWindow;
using lathe::testing::DeclaredDim;

namespace {

constexpr int kLoadTimeoutMs = 30000;

const DeclaredDim N = std::string("N");
const DeclaredDim H = std::string("H");
const DeclaredDim W = std::string("W");

QString logText(const MainWindow& window) {
  auto* log = window.findChild<QPlainTextEdit*>(QStringLiteral("logView"));
  return log ? log->toPlainText() : QString();
}

// The shape of the shown model's input, once its passes have run.
Shape shownInputShape(MainWindow& window, const QString& path) {
  if (!window.graphSnapshots() || window.graphSnapshots()->path != path) {
    QSignalSpy computed(&window, &MainWindow::snapshotsComputed);
    if (!computed.wait(kLoadTimeoutMs)) return {};
  }
  const Graph& graph = window.graphSnapshots()->original;
  return graph.type(graph.inputs.at(0)).shape;
}

}  // namespace

class TestInputShapes : public QObject {
  Q_OBJECT

  QTemporaryDir settingsDir_;
  QTemporaryDir workDir_;

  QString write(const onnx::ModelProto& model, const QString& name) {
    const QString path = workDir_.filePath(name);
    if (!lathe::testing::write_model(model, path.toStdString())) return {};
    return path;
  }

  bool openAndWait(MainWindow& window, const QString& path) {
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(path);
    return shown.wait(kLoadTimeoutMs) || shown.count() > 0;
  }

 private slots:
  void initTestCase() {
    QVERIFY(settingsDir_.isValid());
    QVERIFY(workDir_.isValid());
    isolate_settings(settingsDir_.path(), QStringLiteral("tst_input_shapes"));
  }

  void typedShapesAreChecked_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<QString>("problem");
    QTest::newRow("sizes") << "1, 3, 64, 48" << Shape{1, 3, 64, 48} << "";
    QTest::newRow("brackets") << "[2,3,8,8]" << Shape{2, 3, 8, 8} << "";
    QTest::newRow("open") << "1, 3, ?, ?" << Shape{} << "give a size for dimension 2 (H)";
    QTest::newRow("not a number") << "1, 3, big, 8" << Shape{}
                                  << "'big' in dimension 2 is not a positive whole number";
    QTest::newRow("zero") << "1, 3, 0, 8" << Shape{} << "'0' in dimension 2";
    QTest::newRow("rank") << "1, 3, 8" << Shape{}
                          << "has rank 3, but the model declares x[N,3,H,W]";
    QTest::newRow("fixed size") << "1, 4, 8, 8" << Shape{}
                                << "has 4 in dimension 1, but the model declares x[N,3,H,W], fixed "
                                   "at 3 there";
    QTest::newRow("empty") << "" << Shape{} << "give the sizes";
  }

  void typedShapesAreChecked() {
    QFETCH(QString, text);
    QFETCH(Shape, shape);
    QFETCH(QString, problem);
    driver::DeclaredInput x;
    x.name = "x";
    x.has_shape = true;
    x.dims = {-1, 3, -1, -1};
    x.symbols = {"N", "", "H", "W"};
    QString got;
    QCOMPARE(studio::parseTypedShape(text, x, &got), shape);
    if (problem.isEmpty())
      QVERIFY2(got.isEmpty(), qPrintable(got));
    else
      QVERIFY2(got.contains(problem), qPrintable(got));
  }

  void symbolicBatchOpensAsOneWithANote() {
    const QString path =
        write(lathe::testing::conv_model({N, int64_t{3}, int64_t{8}, int64_t{8}}), "batch.onnx");
    MainWindow window;
    QSignalSpy asked(&window, &MainWindow::inputShapesAsked);
    QVERIFY(openAndWait(window, path));
    QCOMPARE(asked.count(), 0);
    QCOMPARE(shownInputShape(window, path), (Shape{1, 3, 8, 8}));
    const QString log = logText(window);
    QVERIFY2(log.contains(QStringLiteral(
                 "Note: input 'x' has a symbolic batch dimension 'N'; it is taken as 1")),
             qPrintable(log));
  }

  void ioNpzGivesTheShapes() {
    const QString path = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "withio.onnx");
    driver::write_npz_tensors(workDir_.filePath(QStringLiteral("withio.io.npz")).toStdString(),
                              {{"x", Tensor(DType::Float32, {2, 3, 12, 10})},
                               {"output", Tensor(DType::Float32, {2, 4, 12, 10})}});
    MainWindow window;
    QSignalSpy asked(&window, &MainWindow::inputShapesAsked);
    QVERIFY(openAndWait(window, path));
    QCOMPARE(asked.count(), 0);
    QCOMPARE(shownInputShape(window, path), (Shape{2, 3, 12, 10}));
  }

  void dialogAsksOnceThenOpens() {
    const QString path = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "open_hw.onnx");
    MainWindow window;
    window.show();
    QSignalSpy asked(&window, &MainWindow::inputShapesAsked);
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(path);
    QTRY_COMPARE_WITH_TIMEOUT(asked.count(), 1, kLoadTimeoutMs);
    QCOMPARE(asked.at(0).at(0).toString(), path);
    InputShapesDialog* dialog = window.inputShapesDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->inputCount(), 1);
    // Prefilled with what is known: the fixed channels and a batch of 1.
    QCOMPARE(dialog->shapeEdit(0)->text(), QStringLiteral("1, 3, ?, ?"));
    QVERIFY(!dialog->openButton()->isEnabled());
    QVERIFY2(dialog->problemLine()->text().contains(QStringLiteral("dimension 2 (H)")),
             qPrintable(dialog->problemLine()->text()));
    QVERIFY2(logText(window).contains(QStringLiteral(
                 "open_hw.onnx leaves input dimensions symbolic; asking for their sizes")),
             qPrintable(logText(window)));

    dialog->shapeEdit(0)->setText(QStringLiteral("1, 3, 16, 20"));
    QVERIFY(dialog->openButton()->isEnabled());
    QVERIFY(dialog->problemLine()->text().isEmpty());
    dialog->openButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QCOMPARE(window.currentModelPath(), path);
    QCOMPARE(shownInputShape(window, path), (Shape{1, 3, 16, 20}));
    QCOMPARE(asked.count(), 1);
    QVERIFY(!window.inputShapesDialog());
    QVERIFY2(logText(window).contains(
                 QStringLiteral("Opening %1 with input shapes x:[1,3,16,20]").arg(path)),
             qPrintable(logText(window)));
  }

  void cancelKeepsThePreviousModel() {
    const QString shown = write(
        lathe::testing::conv_model({int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}}), "fixed.onnx");
    const QString open = write(lathe::testing::conv_model({N, int64_t{3}, H, W}), "cancel_hw.onnx");
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, shown));
    QSignalSpy asked(&window, &MainWindow::inputShapesAsked);
    QSignalSpy cancelled(&window, &MainWindow::openingCancelled);
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openModel(open);
    QTRY_COMPARE_WITH_TIMEOUT(asked.count(), 1, kLoadTimeoutMs);
    QVERIFY(window.inputShapesDialog());
    window.inputShapesDialog()->reject();
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(cancelled.at(0).at(0).toString(), open);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(window.currentModelPath(), shown);
    QCOMPARE(shownInputShape(window, shown), (Shape{1, 3, 8, 8}));
    QVERIFY2(
        logText(window).contains(
            QStringLiteral("Did not open %1: no input shapes were given; fixed.onnx stays shown")
                .arg(open)),
        qPrintable(logText(window)));

    // A newer request closes a dialog still open, unanswered.
    window.openModel(open);
    QTRY_COMPARE_WITH_TIMEOUT(asked.count(), 2, kLoadTimeoutMs);
    QVERIFY(openAndWait(window, shown));
    QVERIFY(!window.inputShapesDialog());
    QCOMPARE(cancelled.count(), 1);
  }
};

QTEST_MAIN(TestInputShapes)
#include "tst_input_shapes.moc"

// Compiled packages in the studio: the shared MLP compiled and exported by the
// driver, opened in the window through the runtime alone; the Package tab
// lists its executor graph, parameters and memory plan as the compiler wrote
// them (and as the runtime's executor allocates them), the tabs that need
// the ONNX model are disabled, and its Benchmark runs it on random inputs and
// on a user's .npz. A truncated tar and a bad mod.json are reported, naming
// the problem, and leave the package shown before.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>
#include <set>

#include "../test_models.h"
#include "driver/compiled_module.h"
#include "driver/executor.h"
#include "driver/graph_compiler.h"
#include "driver/model_loader.h"
#include "driver/package_contents.h"
#include "isolated_settings.h"
#include "studio/benchmark_page.h"
#include "studio/main_window.h"
#include "studio/package_page.h"
#include "studio/schedule_editor_page.h"
#include "studio/tuning_page.h"
#include "views/log_view.h"
#include "views/package_models.h"
#include "views/package_view.h"

using namespace lathe;
using lathe::studio::MainWindow;
using lathe::studio::PackagePage;
using lathe::views::PackageNodeModel;
using lathe::views::PackageParamModel;
using lathe::views::PackageStorageModel;

namespace {

// Compiling the MLP takes a second; a CI machine shared by several builds
// can be many times slower.
constexpr int kTimeoutMs = 120000;

QString mlpPath() {
  return lathe::testing::test_models_dir() + QStringLiteral("/mlp.onnx");
}

QStringList column(const QAbstractItemModel& model, int column) {
  QStringList values;
  for (int row = 0; row < model.rowCount(); ++row)
    values << model.index(row, column).data().toString();
  return values;
}

qulonglong columnSum(const QAbstractItemModel& model, int column) {
  qulonglong sum = 0;
  for (int row = 0; row < model.rowCount(); ++row)
    sum += model.index(row, column).data(views::PackageTableModel::SortRole).toULongLong();
  return sum;
}

}  // namespace

class TestPackageView : public QObject {
  Q_OBJECT

 private:
  // Opens `path` in `window` and waits for the package to show, or the load to fail.
  bool openPackage(MainWindow& window, const QString& path) {
    QSignalSpy shown(&window, &MainWindow::packageShown);
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    window.openModel(path);
    return QTest::qWaitFor([&] { return shown.count() + failed.count() > 0; }, kTimeoutMs) &&
           !shown.isEmpty();
  }

  // The package at `path` rewritten with `member` replaced by `bytes` (system tar).
  QString packageWithMember(const QString& name, const QString& member, const QByteArray& bytes) {
    const QString dir = work_.filePath(name + QStringLiteral(".d"));
    QDir().mkpath(dir);
    if (QProcess::execute(QStringLiteral("tar"),
                          {QStringLiteral("-xf"), package_, QStringLiteral("-C"), dir}) != 0)
      return {};
    QFile file(QDir(dir).filePath(member));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
      return {};
    file.close();
    const QString tar = work_.filePath(name);
    if (QProcess::execute(
            QStringLiteral("tar"),
            {QStringLiteral("-cf"), tar, QStringLiteral("-C"), dir, QStringLiteral("mod.so"),
             QStringLiteral("mod.json"), QStringLiteral("mod.params")}) != 0)
      return {};
    return tar;
  }

  QTemporaryDir settingsDir_;
  QTemporaryDir work_;
  QString package_;
  driver::CompiledGraph compiled_;

 private slots:
  void initTestCase() {
    QVERIFY(settingsDir_.isValid());
    QVERIFY(work_.isValid());
    isolate_settings(settingsDir_.path(), QStringLiteral("tst_package_view"));
    const Graph graph = driver::load_model(mlpPath().toStdString());
    compiled_ = driver::compile_graph(graph);
    // The name lathe compile gives by default.
    package_ = work_.filePath(QStringLiteral("mlp.lathe.tar"));
    driver::export_package(compiled_, driver::Target::host(), package_.toStdString());
  }

  void recognisesPackages() {
    QVERIFY(driver::is_package_path(package_.toStdString()));
    // A package is a ustar archive, whatever its name.
    const QString renamed = work_.filePath(QStringLiteral("renamed-package"));
    QVERIFY(QFile::copy(package_, renamed));
    QVERIFY(driver::is_package_path(renamed.toStdString()));
    QVERIFY(!driver::is_package_path(mlpPath().toStdString()));

    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(package_)});
    QCOMPARE(MainWindow::modelPathFromMimeData(&mime), package_);
  }

  void modelsShowThePackage() {
    auto contents = std::make_shared<const driver::PackageContents>(
        driver::read_package_contents(package_.toStdString()));
    PackageNodeModel nodes;
    PackageParamModel params;
    PackageStorageModel storage;
    QAbstractItemModelTester nodeTester(&nodes,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester paramTester(&params,
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester storageTester(&storage,
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    nodes.setContents(contents);
    params.setContents(contents);
    storage.setContents(contents);

    // The executor graph as the compiler described it.
    const runtime::GraphModuleDesc& desc = compiled_.desc;
    QCOMPARE(nodes.rowCount(), static_cast<int>(desc.nodes.size()));
    int kernels = 0;
    for (int row = 0; row < nodes.rowCount(); ++row) {
      const runtime::GraphNode& node = desc.nodes[static_cast<size_t>(row)];
      QCOMPARE(column(nodes, PackageNodeModel::NameColumn)[row], QString::fromStdString(node.name));
      QCOMPARE(column(nodes, PackageNodeModel::FunctionColumn)[row],
               QString::fromStdString(node.func_name));
      const uint32_t entry = desc.entry_id(static_cast<uint32_t>(row), 0);
      QCOMPARE(column(nodes, PackageNodeModel::ShapeColumn)[row],
               QString::fromStdString(runtime::shape_to_string(desc.shape[entry])));
      QCOMPARE(column(nodes, PackageNodeModel::DTypeColumn)[row],
               QString::fromStdString(desc.dltype[entry]));
      QCOMPARE(column(nodes, PackageNodeModel::StorageColumn)[row],
               QString::number(desc.storage_id[entry]));
      const QString kind = column(nodes, PackageNodeModel::KindColumn)[row];
      QCOMPARE(kind, node.is_op()                            ? QStringLiteral("kernel")
                     : compiled_.params.count(node.name) > 0 ? QStringLiteral("parameter")
                                                             : QStringLiteral("input"));
      kernels += node.is_op();
    }
    QVERIFY(kernels > 0);

    // The parameters, each with its size.
    QCOMPARE(params.rowCount(), static_cast<int>(compiled_.params.size()));
    qulonglong paramBytes = 0;
    for (const auto& [name, array] : compiled_.params) paramBytes += array.nbytes();
    QCOMPARE(columnSum(params, PackageParamModel::BytesColumn), paramBytes);
    QCOMPARE(contents->param_bytes, size_t{paramBytes});
    QVERIFY(column(params, PackageParamModel::NameColumn)
                .contains(QString::fromStdString(compiled_.params.begin()->first)));

    // The memory plan: what the runtime's executor allocates for this package.
    runtime::Package loaded(package_.toStdString());
    QCOMPARE(storage.rowCount(), static_cast<int>(loaded.executor().num_storages()));
    QCOMPARE(columnSum(storage, PackageStorageModel::BytesColumn),
             qulonglong{loaded.executor().storage_bytes()});
    QCOMPARE(contents->storage_bytes, loaded.executor().storage_bytes());
    // Every entry lies in exactly one pool.
    QCOMPARE(columnSum(storage, PackageStorageModel::EntryCountColumn),
             qulonglong{desc.num_entries()});
  }

  void windowOpensAndBenchmarksPackage() {
    MainWindow window;
    window.show();
    QVERIFY(openPackage(window, package_));
    PackagePage* page = window.packagePage();
    QTabWidget* tabs = window.centralTabs();
    QCOMPARE(tabs->currentWidget(), page);
    QVERIFY(tabs->isTabVisible(tabs->indexOf(page)));
    QCOMPARE(window.currentModelPath(), package_);
    QCOMPARE(page->view()->nodeModel()->rowCount(), static_cast<int>(compiled_.desc.nodes.size()));
    QCOMPARE(page->view()->paramModel()->rowCount(), static_cast<int>(compiled_.params.size()));
    QVERIFY(page->view()->storageModel()->rowCount() > 0);
    QVERIFY2(page->view()->summary()->text().contains(
                 QStringLiteral("built for %1")
                     .arg(QString::fromStdString(driver::Target::host().to_string()))),
             qPrintable(page->view()->summary()->text()));
    // The tabs that need the model say so.
    for (QWidget* needsModel :
         {static_cast<QWidget*>(window.schedulePage()), static_cast<QWidget*>(window.tuningPage()),
          static_cast<QWidget*>(window.benchmarkPage())}) {
      const int index = tabs->indexOf(needsModel);
      QVERIFY(!tabs->isTabEnabled(index));
      QVERIFY2(tabs->tabToolTip(index).contains(QStringLiteral("ONNX model")),
               qPrintable(tabs->tabToolTip(index)));
    }

    // Benchmark on random inputs, then on the model's reference inputs.
    QVERIFY(page->isRunnable());
    QVERIFY(page->benchmarkButton()->isEnabled());
    page->repeatSpin()->setValue(3);
    QSignalSpy benchmarked(page, &PackagePage::benchmarked);
    QSignalSpy benchmarkFailed(page, &PackagePage::benchmarkFailed);
    page->benchmarkButton()->click();
    QVERIFY(!page->benchmarkButton()->isEnabled());  // one run at a time
    QTRY_VERIFY_WITH_TIMEOUT(benchmarked.count() + benchmarkFailed.count() > 0, kTimeoutMs);
    QVERIFY2(benchmarkFailed.isEmpty(), qPrintable(page->report()->toPlainText()));
    QString report = page->report()->toPlainText();
    QVERIFY2(report.contains(QStringLiteral("random inputs")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("output_0: float32 (1, 10)")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("Execution time summary")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("3 × 1 runs")), qPrintable(report));

    const QString npz = lathe::testing::test_models_dir() + QStringLiteral("/mlp.io.npz");
    page->inputsEdit()->setText(npz);
    QTRY_VERIFY(page->benchmarkButton()->isEnabled());
    page->benchmarkButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(benchmarked.count() + benchmarkFailed.count() > 1, kTimeoutMs);
    QVERIFY2(benchmarkFailed.isEmpty(), qPrintable(page->report()->toPlainText()));
    report = page->report()->toPlainText();
    QVERIFY2(report.contains(QStringLiteral("inputs from mlp.io.npz")), qPrintable(report));

    // The model opens over it: its tabs come back, the Package tab goes.
    QSignalSpy modelShown(&window, &MainWindow::modelShown);
    window.openModel(mlpPath());
    QVERIFY(modelShown.wait(kTimeoutMs));
    QVERIFY(!tabs->isTabVisible(tabs->indexOf(page)));
    QVERIFY(tabs->isTabEnabled(tabs->indexOf(window.schedulePage())));
    QVERIFY(tabs->tabToolTip(tabs->indexOf(window.schedulePage())).isEmpty());
  }

  void malformedPackageIsReported_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("problem");
    QTest::newRow("truncated tar") << QStringLiteral("truncated") << QStringLiteral("truncated");
    QTest::newRow("bad mod.json") << QStringLiteral("json") << QStringLiteral("mod.json");
    QTest::newRow("bad mod.params") << QStringLiteral("params") << QStringLiteral("mod.params");
    QTest::newRow("not a tar") << QStringLiteral("garbage")
                               << QStringLiteral("cannot open as a tar archive");
  }

  void malformedPackageIsReported() {
    QFETCH(QString, kind);
    QFETCH(QString, problem);
    QString bad;
    if (kind == QStringLiteral("truncated")) {
      QFile whole(package_);
      QVERIFY(whole.open(QIODevice::ReadOnly));
      bad = work_.filePath(QStringLiteral("truncated.tar"));
      QFile part(bad);
      QVERIFY(part.open(QIODevice::WriteOnly | QIODevice::Truncate));
      part.write(whole.read(whole.size() / 2));
    } else if (kind == QStringLiteral("json")) {
      bad = packageWithMember(QStringLiteral("bad-json.tar"), QStringLiteral("mod.json"),
                              QByteArrayLiteral("{\"nodes\": [{\"op\": \"tvm_op\"}"));
    } else if (kind == QStringLiteral("params")) {
      bad = packageWithMember(QStringLiteral("bad-params.tar"), QStringLiteral("mod.params"),
                              QByteArrayLiteral("not a parameter blob at all"));
    } else {
      bad = work_.filePath(QStringLiteral("garbage.tar"));
      QFile garbage(bad);
      QVERIFY(garbage.open(QIODevice::WriteOnly | QIODevice::Truncate));
      garbage.write(QByteArray(2048, 'x'));
    }
    QVERIFY(!bad.isEmpty());

    MainWindow window;
    window.show();
    QVERIFY(openPackage(window, package_));
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    QVERIFY(!openPackage(window, bad));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.front().front().toString(), bad);
    auto* box = window.findChild<QMessageBox*>(QStringLiteral("loadErrorBox"));
    QVERIFY(box);
    QVERIFY2(box->informativeText().contains(bad) && box->informativeText().contains(problem),
             qPrintable(box->informativeText()));
    // The package shown before stays.
    QCOMPARE(window.packagePage()->packagePath(), package_);
    QCOMPARE(window.currentModelPath(), package_);
  }
};

QTEST_MAIN(TestPackageView)
#include "tst_package_view.moc"

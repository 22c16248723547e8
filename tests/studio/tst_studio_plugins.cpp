// Plugins in the studio, in a process of their own (a load lasts for the
// session): the Plugins dialog lists contrib_gelu and dnnl from the build
// tree's plugin folder with what each adds, and loading contrib_gelu from it
// makes a model with com.microsoft Gelu, which failed to open before, open;
// with dnnl loaded, the Benchmark tab offers a build row for its codegen, and
// its per-kernel table compares each group Lathe's kernel ran in the
// baseline with the oneDNN call that claimed it.
#include <QCheckBox>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "driver/plugins.h"
#include "isolated_settings.h"
#include "studio/benchmark_page.h"
#include "studio/main_window.h"
#include "studio/plugin_dialog.h"
#include "views/benchmark_table_model.h"
#include "views/kernel_profile_model.h"
#include "views/plugin_table_model.h"

using namespace lathe;
using lathe::studio::MainWindow;
using lathe::studio::PluginDialog;
using lathe::views::PluginTableModel;

namespace {

constexpr int kTimeoutMs = 120000;

// The row of plugin `name` in the dialog's table, or -1.
int rowOf(const PluginTableModel& model, const QString& name) {
  for (int row = 0; row < model.rowCount(); ++row)
    if (QString::fromStdString(model.plugins()[static_cast<size_t>(row)].name) == name) return row;
  return -1;
}

QString cell(const PluginTableModel& model, int row, int column) {
  return model.index(row, column).data().toString();
}

// The window's dialog, opened from Plugins › Load Plugins….
PluginDialog* openDialog(MainWindow& window) {
  auto* action = window.findChild<QAction*>(QStringLiteral("loadPluginsAction"));
  if (!action) return nullptr;
  action->trigger();
  return window.findChild<PluginDialog*>();
}

// Checks plugin `name` in the dialog and presses Load.
bool loadFromDialog(PluginDialog& dialog, const QString& name) {
  const int row = rowOf(*dialog.model(), name);
  if (row < 0 || !dialog.model()->isLoadable(row)) return false;
  dialog.model()->setData(dialog.model()->index(row, PluginTableModel::NameColumn), Qt::Checked,
                          Qt::CheckStateRole);
  if (!dialog.loadButton()->isEnabled()) return false;
  dialog.loadButton()->click();
  return true;
}

}  // namespace

class TestStudioPlugins : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString geluModel_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    isolate_settings(dir_.path(), QStringLiteral("tst_studio_plugins"));
    QProcess python;
    python.start(
        QStringLiteral(LATHE_PYTHON),
        {QStringLiteral(LATHE_SOURCE_DIR "/tests/plugins/make_gelu_model.py"), dir_.path()});
    QVERIFY(python.waitForFinished(kTimeoutMs));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    geluModel_ = dir_.filePath(QStringLiteral("gelu.onnx"));
    QVERIFY(driver::loaded_plugins().empty());
  }

  // Before any load: both plugins of the build tree, with their descriptions.
  void dialogListsTheBuildTreesPlugins() {
    PluginDialog dialog({}, {});
    const PluginTableModel& model = *dialog.model();
    QStringList expected = {QStringLiteral("contrib_gelu")};
#ifdef LATHE_HAVE_DNNL
    expected << QStringLiteral("dnnl");
#endif
    for (const QString& name : expected) {
      const int row = rowOf(model, name);
      QVERIFY2(row >= 0, qPrintable(name));
      const driver::AvailablePlugin& plugin = model.plugins()[static_cast<size_t>(row)];
      QCOMPARE(QFileInfo(QString::fromStdString(plugin.path)).absolutePath(),
               QFileInfo(QStringLiteral(LATHE_PLUGIN_OUTPUT_DIR)).absoluteFilePath());
      QCOMPARE(cell(model, row, PluginTableModel::FileColumn), name + QStringLiteral(".so"));
      QCOMPARE(cell(model, row, PluginTableModel::StateColumn), QStringLiteral("not loaded"));
      QVERIFY(!cell(model, row, PluginTableModel::AddsColumn).isEmpty());
      QVERIFY(model.isLoadable(row));
    }
    // dnnl's runtime library beside it is no plugin.
    QCOMPARE(rowOf(model, QStringLiteral("liblathe_dnnl_runtime")), -1);
    QVERIFY(!dialog.loadButton()->isEnabled());
  }

  // The Gelu model fails to import; loaded from the dialog, contrib_gelu
  // makes the same model open, and its row says what it added.
  void loadingContribGeluOpensTheGeluModel() {
    MainWindow window;
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(geluModel_);
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), kTimeoutMs);
    QVERIFY(shown.isEmpty());

    PluginDialog* dialog = openDialog(window);
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QSignalSpy loaded(dialog, &PluginDialog::pluginsLoaded);
    QVERIFY(loadFromDialog(*dialog, QStringLiteral("contrib_gelu")));
    QCOMPARE(loaded.count(), 1);
    QVERIFY(!shown.isEmpty() || shown.wait(kTimeoutMs));
    QCOMPARE(shown.front().front().toString(), geluModel_);
    QCOMPARE(window.currentModelPath(), geluModel_);

    const PluginTableModel& model = *dialog->model();
    const int row = rowOf(model, QStringLiteral("contrib_gelu"));
    QCOMPARE(cell(model, row, PluginTableModel::StateColumn), QStringLiteral("loaded"));
    QVERIFY2(cell(model, row, PluginTableModel::AddsColumn).contains("com.microsoft.Gelu"),
             qPrintable(cell(model, row, PluginTableModel::AddsColumn)));
    QVERIFY(!model.isLoadable(row));
    QVERIFY(dialog->statusLine()->text().contains(QStringLiteral("contrib_gelu")));
  }

  // With dnnl loaded, the Benchmark tab has its build row; a run gives the
  // baseline and the oneDNN build, and the kernel table matches each claimed
  // group to the baseline's kernel of the same nodes.
  void benchmarkTabComparesTheCodegenBuild() {
#ifdef LATHE_DNNL_MISSING
    QSKIP("the dnnl plugin is not built: " LATHE_DNNL_MISSING
          ", as packaging/install-deps.sh does, then configure the build again");
#else
    MainWindow window;
    window.resize(1400, 900);
    studio::BenchmarkPage* page = window.benchmarkPage();
    QVERIFY(page->codegenChecks().isEmpty());
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openModel(QStringLiteral(LATHE_SOURCE_DIR "/resources/sample_cnn.onnx"));
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), kTimeoutMs);

    PluginDialog* dialog = openDialog(window);
    QVERIFY(dialog);
    QVERIFY(loadFromDialog(*dialog, QStringLiteral("dnnl")));
    // The model compiles again, with the codegen registered.
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 2, kTimeoutMs);
    QCOMPARE(page->codegenChecks().size(), 1);
    QCheckBox* dnnl = page->codegenChecks().front();
    QCOMPARE(dnnl->objectName(), QStringLiteral("codegenCheck_dnnl"));
    QVERIFY(dnnl->isChecked());

    window.centralTabs()->setCurrentWidget(page);
    page->untunedCheck()->setChecked(true);
    page->tunedCheck()->setChecked(false);
    page->handEditedCheck()->setChecked(false);
    page->onnxRuntimeCheck()->setChecked(false);
    page->repeatSpin()->setValue(2);
    QSignalSpy finished(page, &studio::BenchmarkPage::benchmarkFinished);
    page->runButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QCOMPARE(finished.front().front().toBool(), false);

    const views::BenchmarkTableModel* builds = page->buildTable();
    QCOMPARE(builds->rowCount(), 2);
    const views::BuildBenchmark& untuned = builds->builds()[0];
    const views::BuildBenchmark& offloaded = builds->builds()[1];
    QCOMPARE(untuned.name, QStringLiteral("untuned"));
    QCOMPARE(untuned.externalCalls, 0);
    QCOMPARE(offloaded.name, QStringLiteral("dnnl (dnnl plugin)"));
    QCOMPARE(offloaded.externalCodegens, QStringList{QStringLiteral("dnnl")});
    QVERIFY(offloaded.externalCalls > 0);
    QCOMPARE(offloaded.flops, untuned.flops);  // the same work, claimed or not
    QVERIFY(builds->index(1, views::BenchmarkTableModel::TunedColumn)
                .data()
                .toString()
                .contains(QStringLiteral("dnnl")));

    // Every row is a baseline kernel; its conv kernels have a oneDNN time.
    const views::KernelProfileModel* kernels = page->kernelTable();
    int convsCompared = 0;
    for (int row = 0; row < kernels->rowCount(); ++row) {
      const QString kernel = kernels->index(row, views::KernelProfileModel::KernelColumn)
                                 .data(views::KernelProfileModel::ValueRole)
                                 .toString();
      const QVariant base =
          kernels->index(row, kernels->timeColumn(0)).data(views::KernelProfileModel::ValueRole);
      const QVariant claimed =
          kernels->index(row, kernels->timeColumn(1)).data(views::KernelProfileModel::ValueRole);
      QVERIFY2(base.isValid(), qPrintable(kernel));
      if (kernel.contains(QStringLiteral("conv"))) {
        QVERIFY2(claimed.isValid() && claimed.toDouble() > 0, qPrintable(kernel));
        ++convsCompared;
      }
    }
    QVERIFY(convsCompared > 0);
#endif
  }
};

QTEST_MAIN(TestStudioPlugins)
#include "tst_studio_plugins.moc"

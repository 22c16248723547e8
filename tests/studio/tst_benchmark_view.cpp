// The studio's Benchmark tab and Export Package on the shared MLP: the
// table, chart and kernel models on known numbers; untuned and tuned builds
// (a records file holding one task's schedule) measured from the window,
// with a row each, a box each, a per-kernel breakdown and CSV/PNG/PDF
// exports; the roofline on known numbers (its roofs, a disc per kernel,
// the kernel a click names, its CSV) and after a real run (a click opens the
// kernel in the Schedule tab); a build whose records cover no task runs and says so; a package
// compiled, written, loaded by the runtime alone and run; a bad target
// reported in the dialog.
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <limits>

#include "../test_models.h"
#include "driver/kernel_workbench.h"
#include "driver/machine_roof.h"
#include "driver/model_loader.h"
#include "driver/onnx_runtime.h"
#include "isolated_settings.h"
#include "runtime/package.h"
#include "studio/benchmark_page.h"
#include "studio/export_dialog.h"
#include "studio/main_window.h"
#include "studio/schedule_editor_page.h"
#include "tune/kernel_task.h"
#include "tune/records.h"
#include "views/benchmark_chart.h"
#include "views/benchmark_table_model.h"
#include "views/kernel_profile_model.h"
#include "views/machine_panel.h"
#include "views/roofline_chart.h"

using namespace lathe;
using lathe::studio::BenchmarkPage;
using lathe::studio::ExportDialog;
using lathe::views::BenchmarkTableModel;
using lathe::views::BuildBenchmark;
using lathe::views::KernelProfileModel;

namespace {

// Compiling the MLP takes a second; a CI machine shared by several builds
// can be many times slower.
constexpr int kTimeoutMs = 120000;

QString mlpPath() {
  return lathe::testing::test_models_dir() + QStringLiteral("/mlp.onnx");
}

// A build of two kernels: "dense" called twice, "relu" once.
BuildBenchmark syntheticBuild(const QString& name, const QString& records, double median,
                              double denseUs) {
  BuildBenchmark b;
  b.name = name;
  b.recordsPath = records;
  b.tunedKernels = records.isEmpty() ? 0 : 1;
  b.totalKernels = 2;
  b.flops = 2e6;
  b.repeat = 3;
  b.number = 1;
  b.times = runtime::TimeSummary::from_samples({median * 0.9, median, median * 1.2});
  b.kernels = {{"dense_a", "dense", denseUs, {1, 10}},
               {"relu_a", "relu", 10, {1, 10}},
               {"dense_b", "dense", denseUs, {1, 10}}};
  return b;
}

// A machine of round numbers: 400 GFLOPS, DRAM at 20 GB/s.
std::shared_ptr<const driver::MachineRoof> knownMachine() {
  auto machine = std::make_shared<driver::MachineRoof>();
  machine->machine = {"Test CPU 9000", {}, 4};
  machine->peak_gflops = 400;
  machine->bandwidth.threads = 4;
  machine->bandwidth.levels = {{"L1", 48 << 10, 1, 0, 1000, 800},
                               {"L2", 2 << 20, 1, 0, 300, 250},
                               {"L3", 32 << 20, 4, 0, 100, 80},
                               {"DRAM", 0, 4, 0, 20, 16}};
  machine->measured_at = "2026-11-24T18:00:00.000Z";
  return machine;
}

// A kernel run moving `bytes` at every level, as the driver would place it.
driver::KernelRoofline knownKernel(const std::string& group, double flops, double bytes, double us,
                                   const driver::MachineRoof& machine) {
  driver::KernelRoofline r;
  r.profile = {group, "kernel_" + group, us, {1}};
  r.task = 0;
  r.workload = "workload_" + group;
  r.flops = flops;
  r.roof = classify_roofline(flops, std::vector<LevelTraffic>(4, {bytes, 0}), machine.peak_gflops,
                             machine.bandwidth);
  r.achieved_gflops = flops / (us * 1e-6) / 1e9;
  r.percent_of_roof = r.roof.estimated_seconds / (us * 1e-6) * 100;
  return r;
}

QStringList csvLines(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
  return QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

}  // namespace

class TestBenchmarkView : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString recordsPath_;         // one record: the first task's default schedule
  QString foreignRecordsPath_;  // one record of a task the MLP does not have
  int taskCount_ = 0;

  // Measures the checked builds of `page` with repeat 5 and waits for the end.
  static void runBenchmark(BenchmarkPage& page, int builds) {
    QSignalSpy finished(&page, &BenchmarkPage::benchmarkFinished);
    page.repeatSpin()->setValue(5);
    page.numberSpin()->setValue(1);
    page.runButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(page.buildTable()->rowCount() == builds, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);
    QCOMPARE(finished.front().front().toBool(), false);  // not cancelled
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    // Settings and application data of this run only, never the user's.
    QStandardPaths::setTestModeEnabled(true);
    isolate_settings(dir_.path(), QStringLiteral("tst_benchmark_view"));
    QVERIFY2(QFileInfo::exists(mlpPath()), qPrintable(mlpPath()));

    const Graph graph = driver::load_model(mlpPath().toStdString());
    const passes::OptimizedGraph optimized = passes::optimize_graph(graph, {});
    const std::vector<driver::KernelTask> tasks =
        tune::extract_tasks(optimized.graph, optimized.groups);
    QVERIFY(!tasks.empty());
    taskCount_ = static_cast<int>(tasks.size());
    const driver::KernelTask& task = tasks.front();
    const driver::KernelWorkbench workbench(optimized.graph, optimized.groups, task);

    tune::TuningRecord record;
    record.workload = tune::task_workload_id(task);
    record.task_key = task.key;
    record.ops = task.ops;
    record.signature = task.signature;
    record.flops = task.flops;
    record.target = codegen::Target::host().to_string();
    record.space = "default";
    record.tuner = "default";
    record.schedule = workbench.default_schedule_text();
    record.costs_ms = {0.01, 0.012};
    record.started = record.finished = tune::utc_timestamp();
    recordsPath_ = dir_.filePath(QStringLiteral("tuning.jsonl"));
    tune::RecordWriter(recordsPath_.toStdString()).write(record);

    record.workload = "00000000deadbeef";
    record.task_key = "no such task";
    foreignRecordsPath_ = dir_.filePath(QStringLiteral("foreign.jsonl"));
    tune::RecordWriter(foreignRecordsPath_.toStdString()).write(record);
  }

  void tableSpeedUpAgainstUntuned() {
    BenchmarkTableModel model;
    QAbstractItemModelTester tester(&model);
    model.addBuild(syntheticBuild(QStringLiteral("untuned"), QString(), 10.0, 100));
    model.addBuild(syntheticBuild(QStringLiteral("tuned"), QStringLiteral("t.jsonl"), 4.0, 40));
    QCOMPARE(model.rowCount(), 2);
    const auto value = [&](int row, int column) {
      return model.index(row, column).data(BenchmarkTableModel::ValueRole).toDouble();
    };
    QCOMPARE(value(0, BenchmarkTableModel::SpeedUpColumn), 1.0);
    QCOMPARE(value(1, BenchmarkTableModel::SpeedUpColumn), 2.5);
    QCOMPARE(value(1, BenchmarkTableModel::MedianColumn), 4.0);
    QCOMPARE(value(1, BenchmarkTableModel::MaxColumn), 4.8);
    // 2e6 FLOPs in 4 ms: 0.5 GFLOPS.
    QCOMPARE(value(1, BenchmarkTableModel::GflopsColumn), 0.5);
    QCOMPARE(model.index(0, BenchmarkTableModel::SpeedUpColumn).data().toString(),
             QStringLiteral("baseline"));
    QCOMPARE(model.index(1, BenchmarkTableModel::TunedColumn).data().toString(),
             QStringLiteral("1 / 2"));

    const QStringList csv = model.toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 3);
    QVERIFY(csv[0].startsWith(QStringLiteral("build,records,tuned_kernels")));
    QVERIFY2(csv[2].startsWith(QStringLiteral("tuned,t.jsonl,1,2,3.6,4,4.8,")), qPrintable(csv[2]));
  }

  void kernelProfileSumsCallsSideBySide() {
    KernelProfileModel model;
    QAbstractItemModelTester tester(&model);
    model.setBuilds({syntheticBuild(QStringLiteral("untuned"), QString(), 10.0, 100),
                     syntheticBuild(QStringLiteral("tuned"), QStringLiteral("t.jsonl"), 4.0, 40)});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), 6);  // kernel, calls, 2 times, share, 1 speed-up
    const auto value = [&](int row, int column) {
      return model.index(row, column).data(KernelProfileModel::ValueRole);
    };
    // Slowest first: dense, twice per run.
    QCOMPARE(value(0, KernelProfileModel::KernelColumn).toString(), QStringLiteral("dense"));
    QCOMPARE(value(0, KernelProfileModel::CallsColumn).toInt(), 2);
    QCOMPARE(value(0, model.timeColumn(0)).toDouble(), 200.0);
    QCOMPARE(value(0, model.timeColumn(1)).toDouble(), 80.0);
    QCOMPARE(value(0, model.shareColumn()).toDouble(), 100.0 * 200 / 210);
    QCOMPARE(model.speedUpColumn(0), -1);
    QCOMPARE(value(0, model.speedUpColumn(1)).toDouble(), 2.5);
    QCOMPARE(value(1, model.speedUpColumn(1)).toDouble(), 1.0);
    QCOMPARE(model.headerData(model.timeColumn(1), Qt::Horizontal).toString(),
             QStringLiteral("tuned (µs)"));
  }

  // A conv-like kernel under the peak, two under DRAM's roof (one with a
  // what-if hint) and a copy without FLOPs: three discs, five roofs, and a
  // click on each disc names its group and workload.
  void rooflineChartPlacesKernelsUnderTheRoofs() {
    const auto machine = knownMachine();
    std::vector<driver::KernelRoofline> rows = {knownKernel("conv", 2e9, 4e6, 10000, *machine),
                                                knownKernel("add", 1e6, 12e6, 1000, *machine),
                                                knownKernel("pool", 4e6, 2e6, 200, *machine),
                                                knownKernel("copy", 0, 8e6, 500, *machine)};
    rows[1].hints.push_back(
        {"its output y (12 MB) is read again by conv, fused", "conv", "DRAM", 24e6, 1.5e-3});
    QCOMPARE(rows[0].roof.bound, std::string("compute"));
    QCOMPARE(rows[1].roof.bound, std::string("DRAM"));
    QCOMPARE(rows[2].roof.bound, std::string("DRAM"));

    views::RooflineChart chart;
    chart.resize(800, 600);
    chart.setRoofline(QStringLiteral("untuned"), machine, rows);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replot();

    QCOMPARE(chart.pointCount(), 3);
    QCOMPARE(chart.roofCount(), 5);  // L1, L2, L3, DRAM, peak
    for (int i = 0; i < chart.roofCount(); ++i) {
      const QCPGraph* roof = chart.roofGraph(i);
      QCOMPARE(roof->data()->size(), 2);
      const double x = roof->data()->at(0)->key;
      const double y = roof->data()->at(0)->value;
      const double endY = roof->data()->at(1)->value;
      if (roof->name() == QStringLiteral("peak")) {
        QCOMPARE(y, 400.0);
        QCOMPARE(endY, 400.0);
      } else {
        QCOMPARE(endY, 400.0);  // up to its ridge
        const QString level = roof->name().section(QLatin1Char(' '), 0, 0);
        for (const BandwidthLevel& l : machine->bandwidth.levels)
          if (QString::fromStdString(l.name) == level) QCOMPARE(y, l.read_gbps * x);
      }
    }

    for (int p = 0; p < chart.pointCount(); ++p) {
      const driver::KernelRoofline& row = rows[static_cast<size_t>(chart.pointRow(p))];
      QCOMPARE(chart.pointCoords(p), QPointF(row.intensity(), row.achieved_gflops));
      const QPoint pixel(qRound(chart.xAxis->coordToPixel(row.intensity())),
                         qRound(chart.yAxis->coordToPixel(row.achieved_gflops)));
      QSignalSpy clicked(&chart, &views::RooflineChart::kernelClicked);
      QTest::mouseClick(&chart, Qt::LeftButton, {}, pixel);
      QCOMPARE(clicked.size(), 1);
      QCOMPARE(clicked.front().at(0).toString(), QString::fromStdString(row.profile.node_name));
      QCOMPARE(clicked.front().at(1).toString(), QString::fromStdString(row.workload));
    }
    QSignalSpy missed(&chart, &views::RooflineChart::kernelClicked);
    QTest::mouseClick(&chart, Qt::LeftButton, {}, QPoint(5, 5));
    QCOMPARE(missed.size(), 0);

    QVERIFY(chart.toolTipFor(1).contains(QStringLiteral("What if")));
    QVERIFY(chart.toolTipFor(1).contains(QStringLiteral("bound: DRAM")));
    QVERIFY(!chart.toolTipFor(0).contains(QStringLiteral("What if")));

    // Every kernel run in the CSV, the copy too.
    const QStringList csv = chart.toCsv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 1 + 4);
    QVERIFY(csv[0].startsWith(QStringLiteral("group,kernel,task,time_us,")));
    QVERIFY2(csv[2].startsWith(QStringLiteral("add,kernel_add,0,1000,")), qPrintable(csv[2]));
    QVERIFY2(csv[2].endsWith(QStringLiteral(",DRAM,\"its output y (12 MB) is read again by conv, "
                                            "fused\"")),
             qPrintable(csv[2]));
    QVERIFY(csv[4].startsWith(QStringLiteral("copy,kernel_copy,")));
  }

  // "Measure again" measures in the background, holding its button, then
  // shows and keeps the new measurement for this machine.
  void measureMachineAgain() {
    BenchmarkPage page(dir_.filePath(QStringLiteral("none.jsonl")),
                       dir_.filePath(QStringLiteral("none-journal.jsonl")));
    const std::optional<driver::MachineRoof> before = driver::kept_machine_roof();
    QSignalSpy shown(&page, &BenchmarkPage::machineShown);
    QPushButton* button = page.machinePanel()->measureButton();
    button->click();
    QVERIFY(!button->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), kTimeoutMs);
    QVERIFY(button->isEnabled());
    const std::optional<driver::MachineRoof> kept = driver::kept_machine_roof();
    QVERIFY(kept.has_value());
    if (before) QVERIFY(kept->measured_at != before->measured_at);
    QVERIFY(kept->peak_gflops > 0);
    QVERIFY(page.machinePanel()->summary()->text().contains(
        QString::fromStdString(kept->machine.cpu).toHtmlEscaped()));
  }

  void benchmarkAndSeeTableRows() {
    studio::MainWindow window;
    window.resize(1400, 900);
    QSignalSpy shown(&window, &studio::MainWindow::modelShown);
    window.openModel(mlpPath());
    QVERIFY(shown.wait(kTimeoutMs));
    BenchmarkPage* page = window.benchmarkPage();
    QVERIFY(page);
    window.centralTabs()->setCurrentWidget(page);
    page->untunedCheck()->setChecked(true);
    page->tunedCheck()->setChecked(true);
    page->handEditedCheck()->setChecked(false);
    page->tuningRecordsEdit()->setText(recordsPath_);
    runBenchmark(*page, 2);
    if (QTest::currentTestFailed()) return;

    const BenchmarkTableModel* table = page->buildTable();
    QCOMPARE(table->rowCount(), 2);
    const auto cell = [&](int row, int column) {
      return table->index(row, column).data(BenchmarkTableModel::ValueRole);
    };
    QCOMPARE(cell(0, BenchmarkTableModel::BuildColumn).toString(), QStringLiteral("untuned"));
    QCOMPARE(cell(1, BenchmarkTableModel::BuildColumn).toString(), QStringLiteral("tuned"));
    QCOMPARE(cell(1, BenchmarkTableModel::TunedColumn).toInt(), 1);
    QCOMPARE(table->builds()[1].totalKernels, taskCount_);
    for (int row = 0; row < 2; ++row) {
      QVERIFY(cell(row, BenchmarkTableModel::MinColumn).toDouble() > 0);
      QVERIFY(cell(row, BenchmarkTableModel::MinColumn).toDouble() <=
              cell(row, BenchmarkTableModel::MedianColumn).toDouble());
      QVERIFY(cell(row, BenchmarkTableModel::MedianColumn).toDouble() <=
              cell(row, BenchmarkTableModel::MaxColumn).toDouble());
      QVERIFY(cell(row, BenchmarkTableModel::GflopsColumn).toDouble() > 0);
      QCOMPARE(table->builds()[row].times.results.size(), size_t{5});
      QVERIFY2(table->builds()[row].inputs.contains(QStringLiteral("mlp.io.npz")),
               qPrintable(table->builds()[row].inputs));
    }
    QCOMPARE(cell(0, BenchmarkTableModel::SpeedUpColumn).toDouble(), 1.0);

    QCOMPARE(page->chart()->boxCount(), 2);
    const KernelProfileModel* kernels = page->kernelTable();
    QVERIFY(kernels->rowCount() > 0);
    int calls = 0;
    for (int row = 0; row < kernels->rowCount(); ++row) {
      calls += kernels->index(row, KernelProfileModel::CallsColumn).data().toInt();
      QVERIFY(kernels->index(row, kernels->timeColumn(1))
                  .data(KernelProfileModel::ValueRole)
                  .isValid());
    }
    QCOMPARE(static_cast<size_t>(calls), table->builds()[0].kernels.size());

    const QString csv = dir_.filePath(QStringLiteral("mlp-benchmark.csv"));
    QVERIFY(page->exportCsv(csv));
    const QStringList lines = csvLines(csv);
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith(QStringLiteral("build,")));
    QVERIFY(lines[1].startsWith(QStringLiteral("untuned,")));
    QVERIFY(lines[2].startsWith(QStringLiteral("tuned,")));

    const QString png = dir_.filePath(QStringLiteral("mlp-benchmark.png"));
    QVERIFY(page->exportPng(png));
    QVERIFY(QFileInfo(png).size() > 0);
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 960);

    const QString pdf = dir_.filePath(QStringLiteral("mlp-benchmark.pdf"));
    QVERIFY(page->exportPdf(pdf));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.read(5) == "%PDF-");

    // The roofline of the untuned build: a disc per kernel run with FLOPs,
    // under the machine the box shows.
    const BuildBenchmark& untuned = table->builds()[0];
    QVERIFY2(untuned.rooflineError.isEmpty(), qPrintable(untuned.rooflineError));
    QVERIFY(untuned.machine);
    QCOMPARE(untuned.roofline.size(), untuned.kernels.size());
    QCOMPARE(page->rooflineBuildCombo()->count(), 2);
    views::RooflineChart* roofline = page->rooflineChart();
    QCOMPARE(roofline->rows().size(), untuned.kernels.size());
    int withFlops = 0;
    for (const driver::KernelRoofline& r : untuned.roofline) withFlops += r.flops > 0 ? 1 : 0;
    QVERIFY(withFlops > 0);
    QCOMPARE(roofline->pointCount(), withFlops);
    QCOMPARE(roofline->roofCount(), 1 + static_cast<int>(untuned.machine->bandwidth.levels.size()));
    QVERIFY(page->machinePanel()->summary()->text().contains(
        QString::fromStdString(untuned.machine->machine.cpu).toHtmlEscaped()));

    page->chartTabs()->setCurrentIndex(1);
    const QString rooflineCsv = dir_.filePath(QStringLiteral("mlp-roofline.csv"));
    QVERIFY(page->exportCsv(rooflineCsv));
    const QStringList rooflineLines = csvLines(rooflineCsv);
    QCOMPARE(rooflineLines.size(), 1 + static_cast<int>(untuned.kernels.size()));
    QVERIFY(rooflineLines[0].startsWith(QStringLiteral("group,kernel,")));
    const QString rooflinePng = dir_.filePath(QStringLiteral("mlp-roofline.png"));
    QVERIFY(page->exportPng(rooflinePng));
    QVERIFY(!QImage(rooflinePng).isNull());

    // Clicking a disc opens its kernel in the Schedule tab.
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    roofline->replot();
    // The disc farthest from every other: discs of measured kernels may
    // overlap, and a click on an overlapped one opens whichever lies on top.
    auto pixel = [&](int i) {
      const QPointF at = roofline->pointCoords(i);
      return QPointF(roofline->xAxis->coordToPixel(at.x()), roofline->yAxis->coordToPixel(at.y()));
    };
    int point = 0;
    double farthest = -1;
    for (int i = 0; i < roofline->pointCount(); ++i) {
      double nearest = std::numeric_limits<double>::infinity();
      for (int j = 0; j < roofline->pointCount(); ++j)
        if (j != i) nearest = std::min(nearest, QLineF(pixel(i), pixel(j)).length());
      if (nearest > farthest) {
        farthest = nearest;
        point = i;
      }
    }
    const int row = roofline->pointRow(point);
    const driver::KernelRoofline& clicked = roofline->rows()[static_cast<size_t>(row)];
    studio::ScheduleEditorPage* schedule = window.schedulePage();
    QTRY_VERIFY_WITH_TIMEOUT(!schedule->tasks().empty(), kTimeoutMs);
    int task = -1;
    for (const driver::KernelTask& t : schedule->tasks())
      if (tune::task_workload_id(t) == clicked.workload) task = t.id;
    QVERIFY(task >= 0);
    QSignalSpy opened(schedule, &studio::ScheduleEditorPage::taskOpened);
    QTest::mouseClick(roofline, Qt::LeftButton, {}, pixel(point).toPoint());
    QCOMPARE(window.centralTabs()->currentWidget(), schedule);
    QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), kTimeoutMs);
    QCOMPARE(opened.back().front().toInt(), task);
  }

  void recordsCoveringNoTaskStillRun() {
    BenchmarkPage page(foreignRecordsPath_, dir_.filePath(QStringLiteral("no-journal.jsonl")));
    const Graph graph = driver::load_model(mlpPath().toStdString());
    page.setModel(mlpPath(), std::make_shared<const Graph>(graph));
    QVERIFY(page.tunedCheck()->isChecked());  // the file exists
    QVERIFY(!page.handEditedCheck()->isChecked());
    page.untunedCheck()->setChecked(false);
    runBenchmark(page, 1);
    if (QTest::currentTestFailed()) return;
    const BuildBenchmark& build = page.buildTable()->builds().front();
    QCOMPARE(build.tunedKernels, 0);
    QVERIFY2(build.recordsNote.contains(QStringLiteral("cover none")),
             qPrintable(build.recordsNote));
    QVERIFY(page.buildTable()
                ->index(0, BenchmarkTableModel::TunedColumn)
                .data()
                .toString()
                .contains(QStringLiteral("no record applies")));
  }

  // With ONNX Runtime set up (benchmarks/ort/setup.sh), its row comes after
  // Lathe's, on the same inputs, without becoming the baseline or adding a
  // column to the kernel table; without it the check is disabled and says why.
  void onnxRuntimeRowBesideTheBuilds() {
    BenchmarkPage page(dir_.filePath(QStringLiteral("none.json")),
                       dir_.filePath(QStringLiteral("no-journal.jsonl")));
    const std::string missing = driver::onnx_runtime_missing(driver::onnx_runtime_dir());
    QCOMPARE(page.onnxRuntimeCheck()->isEnabled(), missing.empty());
    if (!missing.empty())
      QSKIP(qPrintable(QString::fromStdString("ONNX Runtime is not set up: " + missing)));
    const Graph graph = driver::load_model(mlpPath().toStdString());
    page.setModel(mlpPath(), std::make_shared<const Graph>(graph));
    page.untunedCheck()->setChecked(true);
    page.onnxRuntimeCheck()->setChecked(true);
    runBenchmark(page, 2);
    if (QTest::currentTestFailed()) return;
    const QList<BuildBenchmark> builds = page.buildTable()->builds();
    QCOMPARE(builds[0].name, QStringLiteral("untuned"));
    QVERIFY(builds[1].isExternal());
    QVERIFY(builds[1].times.median > 0);
    QCOMPARE(builds[1].times.results.size(), size_t{5});
    QCOMPARE(baselineIndex(builds), 0);
    QVERIFY(page.buildTable()
                ->index(1, BenchmarkTableModel::TunedColumn)
                .data()
                .toString()
                .contains(QStringLiteral("reference")));
    // One build's columns: the kernel table knows nothing of ONNX Runtime.
    for (int c = 0; c < page.kernelTable()->columnCount(); ++c)
      QVERIFY(!page.kernelTable()
                   ->headerData(c, Qt::Horizontal)
                   .toString()
                   .contains(QStringLiteral("ONNX")));
  }

  void exportDialogWritesAndRunsPackage() {
    const Graph graph = driver::load_model(mlpPath().toStdString());
    ExportDialog dialog(mlpPath(), std::make_shared<const Graph>(graph), recordsPath_,
                        dir_.filePath(QStringLiteral("no-journal.jsonl")));
    QCOMPARE(dialog.targetEdit()->text(), QStringLiteral("llvm"));
    dialog.recordsCombo()->setCurrentIndex(ExportDialog::TuningRecords);
    const QString package = dir_.filePath(QStringLiteral("out/mlp.tar"));
    dialog.outputEdit()->setText(package);
    QVERIFY(!dialog.runButton()->isEnabled());  // nothing written there yet

    QSignalSpy exported(&dialog, &ExportDialog::exported);
    QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
    dialog.exportButton()->click();
    QVERIFY(dialog.isBusy());
    QTRY_VERIFY_WITH_TIMEOUT(exported.count() + failed.count() > 0, kTimeoutMs);
    QVERIFY2(failed.isEmpty(), qPrintable(dialog.report()->toPlainText()));
    QVERIFY(QFileInfo::exists(package));
    QVERIFY2(
        dialog.report()->toPlainText().contains(QStringLiteral("1 scheduled from tuning.jsonl")),
        qPrintable(dialog.report()->toPlainText()));
    {
      runtime::Package loaded(package.toStdString());
      QCOMPARE(loaded.executor().num_outputs(), 1);
      QVERIFY(loaded.executor().output_shape(0) == (std::vector<int64_t>{1, 10}));
    }

    QVERIFY(dialog.runButton()->isEnabled());
    QSignalSpy ran(&dialog, &ExportDialog::packageRan);
    QSignalSpy runFailed(&dialog, &ExportDialog::runFailed);
    dialog.runButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(ran.count() + runFailed.count() > 0, kTimeoutMs);
    QVERIFY2(runFailed.isEmpty(), qPrintable(dialog.report()->toPlainText()));
    const QString report = dialog.report()->toPlainText();
    QVERIFY2(report.contains(QStringLiteral("output_0: float32 (1, 10)")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("Execution time summary")), qPrintable(report));
    QVERIFY2(report.contains(QStringLiteral("mlp.io.npz")), qPrintable(report));
  }

  void exportDialogReportsBadTarget() {
    const Graph graph = driver::load_model(mlpPath().toStdString());
    ExportDialog dialog(mlpPath(), std::make_shared<const Graph>(graph), recordsPath_,
                        dir_.filePath(QStringLiteral("no-journal.jsonl")));
    dialog.targetEdit()->setText(QStringLiteral("rocm"));
    dialog.outputEdit()->setText(dir_.filePath(QStringLiteral("bad/mlp.tar")));
    QSignalSpy failed(&dialog, &ExportDialog::exportFailed);
    dialog.exportButton()->click();
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY2(failed.front().front().toString().contains(QStringLiteral("unknown target kind")),
             qPrintable(failed.front().front().toString()));
    QVERIFY(dialog.report()->toPlainText().startsWith(QStringLiteral("Error:")));
    QVERIFY(!dialog.isBusy());
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("bad/mlp.tar"))));
  }
};

QTEST_MAIN(TestBenchmarkView)
#include "tst_benchmark_view.moc"

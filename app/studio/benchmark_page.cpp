// The Benchmark tab's widgets and their wiring to the runner.
#include "studio/benchmark_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStringList>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

#include "driver/machine_roof.h"
#include "driver/onnx_runtime.h"
#include "driver/plugins.h"
#include "studio/benchmark_runner.h"
#include "studio/exception_text.h"
#include "views/benchmark_chart.h"
#include "views/benchmark_table_model.h"
#include "views/kernel_profile_model.h"
#include "views/machine_panel.h"
#include "views/roofline_chart.h"

namespace lathe::studio {

struct MachineOutcome {
  std::optional<driver::MachineRoof> roof;
  QString error;
};

namespace {

// The chart as exported: a size that reads well in a report or on a slide,
// whatever the window's size; PNG at twice the pixels for high-DPI screens.
constexpr int kExportWidth = 960;
constexpr int kExportHeight = 600;

QTableView* makeTable(QAbstractItemModel* model, const QString& name) {
  auto* view = new QTableView;
  view->setObjectName(name);
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setStretchLastSection(true);
  view->horizontalHeader()->setHighlightSections(false);
  return view;
}

}  // namespace

BenchmarkPage::BenchmarkPage(const QString& tuningRecordsPath, const QString& journalPath,
                             QWidget* parent)
    : QWidget(parent), runner_(new BenchmarkRunner(this)) {
  machinePanel_ = new views::MachinePanel;
  connect(machinePanel_, &views::MachinePanel::measureRequested, this,
          &BenchmarkPage::measureMachine);
  auto* controls = new QHBoxLayout;
  controls->addWidget(createBuildChooser(), 1);
  controls->addWidget(createRunControls());
  controls->addWidget(machinePanel_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->addLayout(controls);
  layout->addWidget(createResults(), 1);

  tuningRecordsEdit_->setText(tuningRecordsPath);
  journalEdit_->setText(journalPath);
  tunedCheck_->setChecked(QFileInfo::exists(tuningRecordsPath));
  handEditedCheck_->setChecked(QFileInfo::exists(journalPath));

  connect(runner_, &BenchmarkRunner::progressed, this,
          [this](int step, int steps, const QString& stage) {
            progress_->setRange(0, steps);
            progress_->setValue(step);
            progress_->setFormat(stage);
          });
  connect(runner_, &BenchmarkRunner::buildMeasured, this, &BenchmarkPage::showBuild);
  connect(runner_, &BenchmarkRunner::buildFailed, this,
          [this](const QString& build, const QString& message) {
            ++failedBuilds_;
            setStatus(tr("The %1 build failed: %2").arg(build, message), true);
            emit logMessage(tr("error: benchmark of the %1 build failed\n  %2").arg(build, message),
                            true);
          });
  connect(runner_, &BenchmarkRunner::runningChanged, this, &BenchmarkPage::setRunning);
  connect(runner_, &BenchmarkRunner::finished, this, &BenchmarkPage::showFinished);
  clearResults();
  setRunning(false);
  setStatus(tr("Open a model, choose the builds and press Run."));

  // What is kept for this machine, read in the background (it reads /sys
  // and /proc); nothing is measured until a roofline or the button asks.
  machineJobs_.start(
      []() -> MachineOutcome {
        try {
          return {driver::kept_machine_roof(), {}};
        } catch (...) {
          return {std::nullopt, exceptionText(std::current_exception())};
        }
      },
      [this](const MachineOutcome& outcome) {
        if (outcome.roof || !outcome.error.isEmpty()) showMachine(outcome);
      });
}

void BenchmarkPage::setTarget(const driver::Target& target) {
  runner_->setTarget(target);
}

void BenchmarkPage::measureMachine() {
  machinePanel_->setMeasuring(true);
  emit logMessage(tr("Measuring the machine's peak and memory bandwidths…"), false);
  machineJobs_.start(
      []() -> MachineOutcome {
        try {
          return {driver::machine_roof(driver::Remeasure::Always), {}};
        } catch (...) {
          return {std::nullopt, exceptionText(std::current_exception())};
        }
      },
      [this](const MachineOutcome& outcome) {
        machinePanel_->setMeasuring(false);
        showMachine(outcome);
        if (outcome.roof)
          emit logMessage(
              tr("Machine: peak %1 GFLOPS on %n thread(s)", nullptr, outcome.roof->machine.threads)
                  .arg(QLocale().toString(outcome.roof->peak_gflops, 'f', 1)),
              false);
      },
      [this] { machinePanel_->setMeasuring(false); });
}

void BenchmarkPage::showMachine(const MachineOutcome& outcome) {
  if (outcome.roof) {
    machinePanel_->setMachine(*outcome.roof);
    emit machineShown();
  } else {
    machinePanel_->setUnmeasured(tr("Cannot measure this machine: %1").arg(outcome.error));
    emit logMessage(tr("error: measuring the machine failed\n  %1").arg(outcome.error), true);
  }
}

BenchmarkPage::~BenchmarkPage() = default;

QWidget* BenchmarkPage::createBuildChooser() {
  auto* box = new QGroupBox(tr("Builds"));
  auto* grid = new QGridLayout(box);

  untunedCheck_ = new QCheckBox(tr("Untuned"));
  untunedCheck_->setObjectName(QStringLiteral("untunedCheck"));
  untunedCheck_->setChecked(true);
  untunedCheck_->setToolTip(tr("The baseline: the speed-ups are measured against it"));
  grid->addWidget(untunedCheck_, 0, 0);
  grid->addWidget(
      new QLabel(tr("Lathe's own kernels, each on its default schedule (the baseline)")), 0, 1, 1,
      2);
  // The external codegens' rows (updateExternalCodegens), under the baseline
  // they are compared with.
  auto* codegens = new QWidget;
  codegenGrid_ = new QGridLayout(codegens);
  codegenGrid_->setContentsMargins(0, 0, 0, 0);
  codegenGrid_->setColumnStretch(1, 1);
  grid->addWidget(codegens, 1, 0, 1, 3);

  auto fileRow = [this, grid](int row, QCheckBox*& check, QLineEdit*& edit, const QString& label,
                              const QString& name, const QString& tip) {
    check = new QCheckBox(label);
    check->setObjectName(name + QStringLiteral("Check"));
    check->setToolTip(tip);
    edit = new QLineEdit;
    edit->setObjectName(name + QStringLiteral("RecordsEdit"));
    edit->setToolTip(tip);
    edit->setClearButtonEnabled(true);
    auto* browse = new QToolButton;
    browse->setText(tr("…"));
    browse->setToolTip(tr("Choose a records file"));
    connect(browse, &QToolButton::clicked, this, [this, edit, label] {
      chooseRecordsFile(edit, tr("Records for the %1 Build").arg(label));
    });
    grid->addWidget(check, row, 0);
    grid->addWidget(edit, row, 1);
    grid->addWidget(browse, row, 2);
  };
  fileRow(2, tunedCheck_, tuningRecordsEdit_, tr("Tuned"), QStringLiteral("tuned"),
          tr("The fastest error-free record of each kernel in this records file "
             "(what the Tuning tab and `lathe tune` write)"));
  fileRow(3, handEditedCheck_, journalEdit_, tr("Hand-edited"), QStringLiteral("handEdited"),
          tr("The fastest measured edit of each kernel in the schedule editor's journal; "
             "edits never measured have no cost and do not apply"));

  // ONNX Runtime, the yardstick, where benchmarks/ort/setup.sh installed it.
  onnxRuntimeCheck_ = new QCheckBox(tr("ONNX Runtime"));
  onnxRuntimeCheck_->setObjectName(QStringLiteral("onnxRuntimeCheck"));
  const std::string missing = driver::onnx_runtime_missing(driver::onnx_runtime_dir());
  auto* ortLabel = new QLabel(
      missing.empty() ? tr("its CPU provider on the same inputs and threads: a reference row")
                      : tr("not available: %1").arg(QString::fromStdString(missing)));
  ortLabel->setWordWrap(true);
  onnxRuntimeCheck_->setEnabled(missing.empty());
  onnxRuntimeCheck_->setToolTip(
      tr("Times ONNX Runtime (npm's onnxruntime-node, from $LATHE_ORT_DIR or the checkout's "
         "benchmarks/ort) after Lathe's builds, on the first build's inputs"));
  grid->addWidget(onnxRuntimeCheck_, 4, 0);
  grid->addWidget(ortLabel, 4, 1, 1, 2);
  grid->setColumnStretch(1, 1);
  updateExternalCodegens();
  return box;
}

void BenchmarkPage::updateExternalCodegens() {
  for (const driver::LoadedPlugin& plugin : driver::loaded_plugins()) {
    for (const std::string& name : plugin.codegens) {
      const QString codegen = QString::fromStdString(name);
      const QString objectName = QStringLiteral("codegenCheck_") + codegen;
      if (std::any_of(codegenChecks_.begin(), codegenChecks_.end(),
                      [&](const QCheckBox* c) { return c->objectName() == objectName; }))
        continue;
      auto* check =
          new QCheckBox(tr("%1 (%2 plugin)").arg(codegen, QString::fromStdString(plugin.name)));
      check->setObjectName(objectName);
      check->setChecked(true);
      check->setProperty("codegen", codegen);
      check->setToolTip(QString::fromStdString(plugin.description));
      auto* label = new QLabel(tr("Lathe's kernels, and %1's calls for the groups it claims; "
                                  "the kernel table compares each group")
                                   .arg(codegen));
      label->setWordWrap(true);
      const int row = static_cast<int>(codegenChecks_.size());
      codegenGrid_->addWidget(check, row, 0);
      codegenGrid_->addWidget(label, row, 1);
      codegenChecks_.append(check);
    }
  }
}

QWidget* BenchmarkPage::createRunControls() {
  auto* box = new QGroupBox(tr("Measurement"));
  auto* grid = new QGridLayout(box);

  repeatSpin_ = new QSpinBox;
  repeatSpin_->setObjectName(QStringLiteral("repeatSpin"));
  repeatSpin_->setRange(1, 10000);
  repeatSpin_->setValue(10);
  repeatSpin_->setToolTip(
      tr("Samples per build (--repeat): the chart's dots; the profile averages as many runs"));
  numberSpin_ = new QSpinBox;
  numberSpin_->setObjectName(QStringLiteral("numberSpin"));
  numberSpin_->setRange(1, 10000);
  numberSpin_->setValue(1);
  numberSpin_->setToolTip(tr("Runs averaged into one sample (--number)"));

  runButton_ = new QPushButton(tr("&Run"));
  runButton_->setObjectName(QStringLiteral("benchmarkRunButton"));
  runButton_->setToolTip(tr("Compile, JIT-compile, time and profile each checked build"));
  cancelButton_ = new QPushButton(tr("Cancel"));
  cancelButton_->setObjectName(QStringLiteral("benchmarkCancelButton"));
  cancelButton_->setToolTip(tr("Stop after the current stage (a compile runs to its end)"));
  connect(runButton_, &QPushButton::clicked, this, &BenchmarkPage::run);
  connect(cancelButton_, &QPushButton::clicked, this, &BenchmarkPage::cancel);

  grid->addWidget(new QLabel(tr("Repeat:")), 0, 0);
  grid->addWidget(repeatSpin_, 0, 1);
  grid->addWidget(runButton_, 0, 2);
  grid->addWidget(new QLabel(tr("Number:")), 1, 0);
  grid->addWidget(numberSpin_, 1, 1);
  grid->addWidget(cancelButton_, 1, 2);

  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("benchmarkProgress"));
  progress_->setTextVisible(true);
  progress_->setMinimumWidth(260);
  grid->addWidget(progress_, 2, 0, 1, 3);
  return box;
}

QWidget* BenchmarkPage::createResults() {
  chart_ = new views::BenchmarkChart;
  buildModel_ = new views::BenchmarkTableModel(this);
  kernelModel_ = new views::KernelProfileModel(this);
  buildView_ = makeTable(buildModel_, QStringLiteral("benchmarkTable"));
  kernelView_ = makeTable(kernelModel_, QStringLiteral("kernelProfileTable"));

  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("benchmarkStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notes_ = new QLabel;
  notes_->setObjectName(QStringLiteral("benchmarkNotes"));
  notes_->setWordWrap(true);
  notes_->hide();

  auto exportButton = [this](const QString& text, const QString& tip) {
    auto* button = new QPushButton(text);
    button->setToolTip(tip);
    return button;
  };
  csvButton_ = exportButton(
      tr("Export CSV…"),
      tr("The builds table, or with the roofline shown its kernels, as comma-separated values"));
  pngButton_ = exportButton(tr("Export PNG…"), tr("The chart shown as a PNG image"));
  pdfButton_ = exportButton(tr("Export PDF…"), tr("The chart shown as a PDF (vector graphics)"));
  connect(csvButton_, &QPushButton::clicked, this, [this] {
    chooseExportFile(tr("Export Benchmark Table"), tr("CSV files (*.csv)"), QStringLiteral("csv"),
                     &BenchmarkPage::exportCsv);
  });
  connect(pngButton_, &QPushButton::clicked, this, [this] {
    chooseExportFile(tr("Export Benchmark Chart"), tr("PNG images (*.png)"), QStringLiteral("png"),
                     &BenchmarkPage::exportPng);
  });
  connect(pdfButton_, &QPushButton::clicked, this, [this] {
    chooseExportFile(tr("Export Benchmark Chart"), tr("PDF documents (*.pdf)"),
                     QStringLiteral("pdf"), &BenchmarkPage::exportPdf);
  });
  auto* exportRow = new QHBoxLayout;
  exportRow->addWidget(status_, 1);
  exportRow->addWidget(csvButton_);
  exportRow->addWidget(pngButton_);
  exportRow->addWidget(pdfButton_);

  // The builds table shows four rows (Lathe's three and ONNX Runtime's;
  // more scroll): full width for its nine columns; the chart and the kernel
  // table share the rest.
  const int rowHeight = fontMetrics().height() + 8;
  buildView_->verticalHeader()->setDefaultSectionSize(rowHeight);
  buildView_->setFixedHeight(buildView_->horizontalHeader()->sizeHint().height() + 4 * rowHeight +
                             2 * buildView_->frameWidth() + 2);
  buildView_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  // The two text columns fit their contents (showBuild), the numbers share the rest.
  buildView_->horizontalHeader()->setSectionResizeMode(views::BenchmarkTableModel::BuildColumn,
                                                       QHeaderView::Interactive);
  buildView_->horizontalHeader()->setSectionResizeMode(views::BenchmarkTableModel::TunedColumn,
                                                       QHeaderView::Interactive);
  kernelView_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);

  auto* kernelPane = new QWidget;
  auto* kernelLayout = new QVBoxLayout(kernelPane);
  kernelLayout->setContentsMargins(0, 0, 0, 0);
  kernelLayout->setSpacing(2);
  auto* kernelTitle =
      new QLabel(tr("Per kernel: the profiling executor's time per run of the model"));
  QFont bold = kernelTitle->font();
  bold.setBold(true);
  kernelTitle->setFont(bold);
  kernelLayout->addWidget(kernelTitle);
  kernelLayout->addWidget(kernelView_, 1);

  chartTabs_ = new QTabWidget;
  chartTabs_->setObjectName(QStringLiteral("benchmarkChartTabs"));
  chartTabs_->setDocumentMode(true);
  chartTabs_->addTab(chart_, tr("Run time"));
  chartTabs_->addTab(createRooflinePane(), tr("R&oofline"));

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("benchmarkSplitter"));
  splitter->addWidget(chartTabs_);
  splitter->addWidget(kernelPane);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({450, 610});  // in proportion: the kernel table has the wider rows
  splitter->setChildrenCollapsible(false);

  auto* results = new QWidget;
  auto* layout = new QVBoxLayout(results);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(exportRow);
  layout->addWidget(buildView_);
  layout->addWidget(notes_);
  layout->addWidget(splitter, 1);
  return results;
}

QWidget* BenchmarkPage::createRooflinePane() {
  roofline_ = new views::RooflineChart;
  connect(roofline_, &views::RooflineChart::kernelClicked, this,
          &BenchmarkPage::kernelOpenRequested);
  rooflineBuild_ = new QComboBox;
  rooflineBuild_->setObjectName(QStringLiteral("rooflineBuildCombo"));
  rooflineBuild_->setToolTip(tr("The build whose kernels the roofline places"));
  connect(rooflineBuild_, &QComboBox::currentIndexChanged, this, [this](int index) {
    showRooflineOf(index < 0 ? -1 : rooflineBuild_->itemData(index).toInt());
  });
  rooflineNote_ = new QLabel;
  rooflineNote_->setWordWrap(true);
  rooflineNote_->hide();

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Build:")));
  top->addWidget(rooflineBuild_);
  auto* hint =
      new QLabel(tr("Hover a kernel for its numbers and what-if hints; click it to open "
                    "it in the Schedule tab."));
  hint->setWordWrap(true);
  top->addWidget(hint, 1);

  auto* pane = new QWidget;
  auto* layout = new QVBoxLayout(pane);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(top);
  layout->addWidget(rooflineNote_);
  layout->addWidget(roofline_, 1);
  return pane;
}

void BenchmarkPage::showRooflineOf(int build) {
  const QList<views::BuildBenchmark>& builds = buildModel_->builds();
  if (build < 0 || build >= builds.size()) {
    roofline_->clear();
    rooflineNote_->hide();
    return;
  }
  const views::BuildBenchmark& b = builds[build];
  roofline_->setRoofline(b.name, b.machine, b.roofline);
  rooflineNote_->setText(b.rooflineError.isEmpty()
                             ? QString()
                             : tr("No roofline for the %1 build: %2").arg(b.name, b.rooflineError));
  rooflineNote_->setVisible(!b.rooflineError.isEmpty());
}

QCustomPlot* BenchmarkPage::shownChart() const {
  return chartTabs_->currentIndex() == 0 ? static_cast<QCustomPlot*>(chart_)
                                         : static_cast<QCustomPlot*>(roofline_);
}

void BenchmarkPage::setModel(const QString& path, std::shared_ptr<const Graph> graph) {
  if (runner_->isRunning()) runner_->cancel();
  modelPath_ = path;
  graph_ = std::move(graph);
  clearResults();
  chart_->setModelName(QFileInfo(path).fileName());
  roofline_->setModelName(QFileInfo(path).fileName());
  setStatus(tr("%1: choose the builds and press Run.").arg(QFileInfo(path).fileName()));
}

void BenchmarkPage::run() {
  if (!graph_) {
    setStatus(tr("Open a model first."), true);
    return;
  }
  BenchmarkRequest request;
  request.modelPath = modelPath_;
  request.graph = graph_;
  request.repeat = repeatSpin_->value();
  request.number = numberSpin_->value();
  if (untunedCheck_->isChecked())
    request.builds.append(BenchmarkBuildSpec{tr("untuned"), QString(), {}});
  const struct {
    QCheckBox* check;
    QLineEdit* records;
    QString name;
  } recordBuilds[] = {{tunedCheck_, tuningRecordsEdit_, tr("tuned")},
                      {handEditedCheck_, journalEdit_, tr("hand-edited")}};
  for (const auto& build : recordBuilds) {
    if (!build.check->isChecked()) continue;
    const QString records = build.records->text().trimmed();
    if (records.isEmpty()) {
      setStatus(tr("Choose a records file for the %1 build.").arg(build.name), true);
      return;
    }
    request.builds.append(BenchmarkBuildSpec{build.name, records, {}});
  }
  // After Lathe's own builds, whose work (FLOPs) they share.
  for (QCheckBox* check : codegenChecks_)
    if (check->isChecked())
      request.builds.append(
          BenchmarkBuildSpec{check->text(), QString(), {check->property("codegen").toString()}});
  if (request.builds.isEmpty()) {
    setStatus(tr("Check at least one of Lathe's builds."), true);
    return;
  }
  request.onnxRuntime = onnxRuntimeCheck_->isEnabled() && onnxRuntimeCheck_->isChecked();
  clearResults();
  failedBuilds_ = 0;
  runTimer_.start();
  progress_->setRange(0, BenchmarkRunner::stepCount(static_cast<int>(request.builds.size()),
                                                    request.repeat, request.onnxRuntime));
  progress_->setValue(0);
  progress_->setFormat(tr("starting…"));
  setStatus(tr("Measuring %n build(s) of %1…", nullptr, static_cast<int>(request.builds.size()))
                .arg(QFileInfo(modelPath_).fileName()));
  emit logMessage(tr("Benchmark of %1: repeat %2, number %3")
                      .arg(QFileInfo(modelPath_).fileName())
                      .arg(request.repeat)
                      .arg(request.number),
                  false);
  runner_->run(std::move(request));
}

void BenchmarkPage::cancel() {
  if (!runner_->isRunning()) return;
  runner_->cancel();
  progress_->setFormat(tr("cancelling after this stage…"));
}

void BenchmarkPage::clearResults() {
  buildModel_->clear();
  kernelModel_->clear();
  chart_->setBuilds({});
  {
    const QSignalBlocker blocker(rooflineBuild_);
    rooflineBuild_->clear();
  }
  showRooflineOf(-1);
  notes_->clear();
  notes_->hide();
  progress_->reset();
  progress_->setFormat(QString());
  csvButton_->setEnabled(false);
  pngButton_->setEnabled(false);
  pdfButton_->setEnabled(false);
}

void BenchmarkPage::showBuild(const views::BuildBenchmark& build) {
  buildModel_->addBuild(build);
  // Per-kernel times exist for Lathe's builds only.
  QList<views::BuildBenchmark> compiled = buildModel_->builds();
  compiled.removeIf([](const views::BuildBenchmark& b) { return b.isExternal(); });
  kernelModel_->setBuilds(compiled);
  chart_->setBuilds(buildModel_->builds());
  if (!build.isExternal()) {
    // The first build with a roofline shows; the combo offers the others.
    rooflineBuild_->addItem(build.name, static_cast<int>(buildModel_->builds().size()) - 1);
    if (build.machine) {
      machinePanel_->setMachine(*build.machine);
      emit machineShown();
    }
  }
  buildView_->resizeColumnToContents(views::BenchmarkTableModel::BuildColumn);
  buildView_->resizeColumnToContents(views::BenchmarkTableModel::TunedColumn);
  kernelView_->resizeColumnsToContents();

  QStringList notes;
  for (const views::BuildBenchmark& b : buildModel_->builds())
    if (!b.recordsNote.isEmpty())
      notes << tr("<b>%1</b>: %2")
                   .arg(b.name.toHtmlEscaped(), b.recordsNote.toHtmlEscaped().replace(
                                                    QLatin1Char('\n'), QStringLiteral("<br>")));
  notes_->setText(notes.join(QStringLiteral("<br>")));
  notes_->setVisible(!notes.isEmpty());
  csvButton_->setEnabled(true);
  pngButton_->setEnabled(true);
  pdfButton_->setEnabled(true);

  const QLocale locale;
  const QString schedules =
      build.usesRecords()
          ? tr("%1 of %2 kernels from records").arg(build.tunedKernels).arg(build.totalKernels)
          : tr("default schedules");
  emit logMessage(tr("Benchmark %1 build: median %2 ms (min %3, max %4), %5; %6")
                      .arg(build.name, locale.toString(build.times.median, 'f', 3),
                           locale.toString(build.times.min, 'f', 3),
                           locale.toString(build.times.max, 'f', 3), schedules, build.inputs),
                  false);
  emit buildShown(build.name);
}

void BenchmarkPage::showFinished(bool cancelled) {
  const int measured = buildModel_->rowCount();
  const QString seconds = QLocale().toString(runTimer_.elapsed() / 1000.0, 'f', 1);
  if (cancelled) {
    progress_->setFormat(tr("cancelled"));
    setStatus(tr("Cancelled after %n build(s) measured.", nullptr, measured));
  } else {
    progress_->setValue(progress_->maximum());
    progress_->setFormat(tr("done in %1 s").arg(seconds));
    if (failedBuilds_ == 0) {
      QString text = tr("Measured %n build(s) in %1 s", nullptr, measured).arg(seconds);
      if (measured > 0) text += QStringLiteral("; ") + buildModel_->builds().front().inputs;
      setStatus(text);
    }
  }
  emit benchmarkFinished(cancelled);
}

void BenchmarkPage::setRunning(bool running) {
  cancelButton_->setEnabled(running);
  machinePanel_->setMeasureEnabled(!running);
  runButton_->setText(running ? tr("&Restart") : tr("&Run"));
}

void BenchmarkPage::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("color: #c0392b;") : QString());
}

void BenchmarkPage::chooseRecordsFile(QLineEdit* edit, const QString& title) {
  // Start where the file is, or where the studio keeps its records.
  const QString start = edit->text().isEmpty() ? journalEdit_->text() : edit->text();
  const QString path =
      QFileDialog::getOpenFileName(this, title, QFileInfo(start).absolutePath(),
                                   tr("Tuning records (*.jsonl *.json *.log);;All files (*)"));
  if (!path.isEmpty()) edit->setText(path);
}

void BenchmarkPage::chooseExportFile(const QString& title, const QString& filter,
                                     const QString& suffix,
                                     bool (BenchmarkPage::*write)(const QString&)) {
  const QFileInfo model(modelPath_);
  const QString suggested = model.dir().filePath(
      model.completeBaseName() +
      (shownChart() == roofline_ ? QStringLiteral("-roofline.") : QStringLiteral("-benchmark.")) +
      suffix);
  QString path = QFileDialog::getSaveFileName(this, title, suggested, filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
  if ((this->*write)(path)) setStatus(tr("Wrote %1").arg(path));
}

bool BenchmarkPage::exportCsv(const QString& path) {
  if (buildModel_->rowCount() == 0) {
    setStatus(tr("Nothing to export yet: run a benchmark first."), true);
    return false;
  }
  const QString csv = shownChart() == roofline_ ? roofline_->toCsv() : buildModel_->toCsv();
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text) || file.write(csv.toUtf8()) < 0 ||
      !file.commit()) {
    setStatus(tr("Cannot write %1: %2").arg(path, file.errorString()), true);
    return false;
  }
  return true;
}

bool BenchmarkPage::exportPng(const QString& path) {
  if (buildModel_->rowCount() == 0) {
    setStatus(tr("Nothing to export yet: run a benchmark first."), true);
    return false;
  }
  if (!shownChart()->savePng(path, kExportWidth, kExportHeight, 2.0)) {
    setStatus(tr("Cannot write %1").arg(path), true);
    return false;
  }
  return true;
}

bool BenchmarkPage::exportPdf(const QString& path) {
  if (buildModel_->rowCount() == 0) {
    setStatus(tr("Nothing to export yet: run a benchmark first."), true);
    return false;
  }
  if (!shownChart()->savePdf(path, kExportWidth, kExportHeight, QCP::epNoCosmetic,
                             QStringLiteral("Lathe Studio"),
                             shownChart() == roofline_ ? tr("Roofline") : tr("Benchmark"))) {
    setStatus(tr("Cannot write %1").arg(path), true);
    return false;
  }
  return true;
}

}  // namespace lathe::studio

// The export dialog's form and its two background jobs: compile and write
// the package, then load and run it. Each job runs in a pool thread on its
// own copies, catches every exception, and reports to the GUI thread.
#include "studio/export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QStringList>
#include <QToolButton>
#include <QVBoxLayout>

#include "driver/compiled_module.h"
#include "driver/executor.h"
#include "driver/graph_compiler.h"
#include "studio/exception_text.h"
#include "studio/executor_inputs.h"
#include "studio/executor_report.h"
#include "studio/record_schedules.h"
#include "support/error.h"
#include "support/timer.h"

namespace lathe::studio {

namespace {

struct ExportJob {
  std::shared_ptr<const Graph> graph;
  QString target;
  QString recordsPath;  // empty: default schedules
  QString outputPath;
};

// A stage begun, or the outcome (done or failed).
struct ExportEvent {
  enum class Kind { Stage, Done, Failed } kind = Kind::Stage;
  int step = 0;
  QString text;  // the stage, the report, or the failure
};

constexpr int kExportSteps = 2;  // compile, write

QString megabytes(qint64 bytes) {
  return QStringLiteral("%1 MB").arg(QLocale().toString(static_cast<double>(bytes) / 1e6, 'f', 2));
}

void exportModel(QPromise<ExportEvent>& promise, ExportJob job) {
  try {
    promise.addResult(ExportEvent{ExportEvent::Kind::Stage, 0,
                                  QStringLiteral("compiling: graph passes, "
                                                 "schedules, lowering")});
    driver::CompileOptions options;
    options.target = driver::Target::parse(job.target.trimmed().toStdString());
    options.passes.record_snapshots = false;
    RecordSchedules records;
    if (!job.recordsPath.isEmpty()) records = applyRecordSchedules(job.recordsPath, options);
    Timer compileTimer;
    const driver::CompiledGraph compiled = driver::compile_graph(*job.graph, options);
    const double compileMs = compileTimer.milliseconds();
    if (promise.isCanceled()) return;

    promise.addResult(ExportEvent{ExportEvent::Kind::Stage, 1,
                                  QStringLiteral("writing the package: code generation, linking")});
    const QString folder = QFileInfo(job.outputPath).absolutePath();
    LATHE_CHECK(QDir().mkpath(folder), "cannot create the folder ", folder.toStdString());
    const double llvmMs = driver::export_package(compiled, options.target,
                                                 QFile::encodeName(job.outputPath).toStdString());

    QStringList lines;
    lines << QStringLiteral("Wrote %1 (%2) for %3")
                 .arg(job.outputPath, megabytes(QFileInfo(job.outputPath).size()),
                      QString::fromStdString(options.target.to_string()));
    QString kernels = QStringLiteral("%1 kernel(s)").arg(compiled.tasks.size());
    if (!job.recordsPath.isEmpty())
      kernels += QStringLiteral(", %1 scheduled from %2")
                     .arg(records.tunedCount())
                     .arg(QFileInfo(job.recordsPath).fileName());
    lines << kernels;
    if (!job.recordsPath.isEmpty() && records.tunedCount() == 0 && records.note.isEmpty())
      records.note = noRecordAppliedNote(options.target);
    if (!records.note.isEmpty()) lines << QStringLiteral("Note: ") + records.note;
    const QLocale locale;
    lines << QStringLiteral(
                 "Compile %1 ms (graph passes %2 ms, lowering %3 ms); code generation "
                 "and linking %4 ms")
                 .arg(locale.toString(compileMs, 'f', 0),
                      locale.toString(compiled.passes_ms, 'f', 0),
                      locale.toString(compiled.lower_ms, 'f', 0), locale.toString(llvmMs, 'f', 0));
    promise.addResult(
        ExportEvent{ExportEvent::Kind::Done, kExportSteps, lines.join(QLatin1Char('\n'))});
  } catch (...) {
    promise.addResult(
        ExportEvent{ExportEvent::Kind::Failed, 0, exceptionText(std::current_exception())});
  }
}

struct RunOutcome {
  bool ok = false;
  QString text;  // the report, or the failure
};

// Loads the package with the runtime alone, runs it once on the inputs, then
// times it as `lathe run module.tar --print-time` does.
RunOutcome runExportedPackage(QString packagePath, QString modelPath, int repeat) {
  RunOutcome outcome;
  try {
    driver::Package package(QFile::encodeName(packagePath).toStdString());
    driver::GraphExecutor& executor = package.executor();
    const QString inputs = feedInputs(executor, modelPath);
    QStringList lines;
    lines << QStringLiteral("Loaded %1, built for %2")
                 .arg(packagePath, QString::fromStdString(package.target()));
    lines << QStringLiteral("Inputs: %1").arg(inputs);
    lines << runAndTime(executor, repeat, 1);
    outcome.ok = true;
    outcome.text = lines.join(QLatin1Char('\n'));
  } catch (...) {
    outcome.text = exceptionText(std::current_exception());
  }
  return outcome;
}

}  // namespace

ExportDialog::ExportDialog(const QString& modelPath, std::shared_ptr<const Graph> graph,
                           const QString& tuningRecordsPath, const QString& journalPath,
                           QWidget* parent)
    : QDialog(parent),
      modelPath_(modelPath),
      graph_(std::move(graph)),
      tuningRecordsPath_(tuningRecordsPath),
      journalPath_(journalPath) {
  setObjectName(QStringLiteral("exportDialog"));
  setWindowTitle(tr("Export Package — %1").arg(QFileInfo(modelPath).fileName()));

  targetEdit_ = new QLineEdit(QStringLiteral("llvm"));
  targetEdit_->setObjectName(QStringLiteral("exportTarget"));
  targetEdit_->setToolTip(
      tr("As `lathe compile --target`: llvm (this machine), or llvm -mcpu=… -mattr=… -mtriple=…"));

  recordsCombo_ = new QComboBox;
  recordsCombo_->setObjectName(QStringLiteral("exportRecords"));
  recordsCombo_->addItem(tr("None: default schedules"));
  recordsCombo_->addItem(tr("Tuning records (%1)").arg(QFileInfo(tuningRecordsPath).fileName()));
  recordsCombo_->addItem(tr("Schedule editor journal (%1)").arg(QFileInfo(journalPath).fileName()));
  recordsCombo_->addItem(tr("Other file…"));
  recordsCombo_->setItemData(TuningRecords, tuningRecordsPath, Qt::ToolTipRole);
  recordsCombo_->setItemData(JournalRecords, journalPath, Qt::ToolTipRole);
  recordsCombo_->setCurrentIndex(QFileInfo::exists(tuningRecordsPath) ? TuningRecords : NoRecords);
  recordsFileEdit_ = new QLineEdit;
  recordsFileEdit_->setObjectName(QStringLiteral("exportRecordsFile"));
  recordsBrowse_ = new QToolButton;
  recordsBrowse_->setText(tr("…"));
  recordsBrowse_->setToolTip(tr("Choose a records file"));
  connect(recordsCombo_, &QComboBox::currentIndexChanged, this, &ExportDialog::updateRecordsChoice);
  connect(recordsBrowse_, &QToolButton::clicked, this, &ExportDialog::chooseRecordsFile);
  auto* recordsRow = new QHBoxLayout;
  recordsRow->addWidget(recordsCombo_);
  recordsRow->addWidget(recordsFileEdit_, 1);
  recordsRow->addWidget(recordsBrowse_);

  const QFileInfo model(modelPath);
  outputEdit_ =
      new QLineEdit(model.dir().filePath(model.completeBaseName() + QStringLiteral(".lathe.tar")));
  outputEdit_->setObjectName(QStringLiteral("exportOutput"));
  auto* outputBrowse = new QToolButton;
  outputBrowse->setText(tr("…"));
  outputBrowse->setToolTip(tr("Choose where to write the package"));
  connect(outputBrowse, &QToolButton::clicked, this, &ExportDialog::chooseOutputFile);
  connect(outputEdit_, &QLineEdit::textChanged, this, &ExportDialog::updateRunButton);
  auto* outputRow = new QHBoxLayout;
  outputRow->addWidget(outputEdit_, 1);
  outputRow->addWidget(outputBrowse);

  auto* form = new QFormLayout;
  form->addRow(tr("&Target:"), targetEdit_);
  form->addRow(tr("&Schedules:"), recordsRow);
  form->addRow(tr("&Output:"), outputRow);

  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("exportProgress"));
  progress_->setRange(0, kExportSteps);
  progress_->setValue(0);
  progress_->setTextVisible(false);
  stage_ = new QLabel;
  stage_->setObjectName(QStringLiteral("exportStage"));

  report_ = new QPlainTextEdit;
  report_->setObjectName(QStringLiteral("exportReport"));
  report_->setReadOnly(true);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  report_->setPlaceholderText(
      tr("Export writes module.tar (mod.so, mod.json, mod.params); Run Package then loads it "
         "with the runtime alone and times it."));
  report_->setMinimumHeight(180);

  exportButton_ = new QPushButton(tr("&Export"));
  exportButton_->setObjectName(QStringLiteral("exportButton"));
  exportButton_->setDefault(true);
  runButton_ = new QPushButton(tr("&Run Package"));
  runButton_->setObjectName(QStringLiteral("runPackageButton"));
  cancelButton_ = new QPushButton(tr("Cancel"));
  auto* buttons = new QDialogButtonBox;
  buttons->addButton(exportButton_, QDialogButtonBox::ActionRole);
  buttons->addButton(runButton_, QDialogButtonBox::ActionRole);
  buttons->addButton(cancelButton_, QDialogButtonBox::ActionRole);
  buttons->addButton(QDialogButtonBox::Close);
  connect(exportButton_, &QPushButton::clicked, this, &ExportDialog::exportPackage);
  connect(runButton_, &QPushButton::clicked, this, &ExportDialog::runPackage);
  connect(cancelButton_, &QPushButton::clicked, this, &ExportDialog::cancel);
  connect(buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(progress_);
  layout->addWidget(stage_);
  layout->addWidget(report_, 1);
  layout->addWidget(buttons);
  resize(720, 440);

  updateRecordsChoice();
  setBusy(false);
}

ExportDialog::~ExportDialog() = default;

QString ExportDialog::recordsPath() const {
  switch (recordsCombo_->currentIndex()) {
    case TuningRecords:
      return tuningRecordsPath_;
    case JournalRecords:
      return journalPath_;
    case OtherRecords:
      return recordsFileEdit_->text().trimmed();
  }
  return {};
}

void ExportDialog::updateRecordsChoice() {
  const bool other = recordsCombo_->currentIndex() == OtherRecords;
  recordsFileEdit_->setReadOnly(!other);
  recordsBrowse_->setEnabled(other);
  if (!other) recordsFileEdit_->setText(recordsPath());
  recordsFileEdit_->setPlaceholderText(other ? tr("records file (.jsonl)") : QString());
}

void ExportDialog::chooseRecordsFile() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Records to Compile With"), QFileInfo(tuningRecordsPath_).absolutePath(),
      tr("Tuning records (*.jsonl *.json *.log);;All files (*)"));
  if (!path.isEmpty()) recordsFileEdit_->setText(path);
}

void ExportDialog::chooseOutputFile() {
  QString path = QFileDialog::getSaveFileName(this, tr("Write Package"), outputEdit_->text(),
                                              tr("Packages (*.tar)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".tar");
  outputEdit_->setText(path);
}

void ExportDialog::exportPackage() {
  const QString output = outputEdit_->text().trimmed();
  if (output.isEmpty()) {
    showReport(tr("Choose where to write the package."), true);
    return;
  }
  if (recordsCombo_->currentIndex() == OtherRecords && recordsPath().isEmpty()) {
    showReport(tr("Choose a records file, or another schedules entry."), true);
    return;
  }
  ExportJob job{graph_, targetEdit_->text(), recordsPath(), QFileInfo(output).absoluteFilePath()};
  // A job still running is asked to stop: its compile ends at its next stage.
  jobs_.startStreaming<ExportEvent>(
      [job = std::move(job)](QPromise<ExportEvent>& promise) { exportModel(promise, job); },
      [this](const ExportEvent& event) {
        progress_->setValue(event.step);
        switch (event.kind) {
          case ExportEvent::Kind::Stage:
            stage_->setText(event.text);
            break;
          case ExportEvent::Kind::Done:
            setBusy(false);
            stage_->setText(tr("Package written."));
            showReport(event.text, false);
            updateRunButton();
            emit exported(outputEdit_->text().trimmed());
            break;
          case ExportEvent::Kind::Failed:
            setBusy(false);
            progress_->setValue(0);
            stage_->setText(tr("Export failed."));
            showReport(event.text, true);
            emit exportFailed(event.text);
            break;
        }
      });  // the last event, Done or Failed, ends the export: no onFinished
  progress_->setValue(0);
  setBusy(true, tr("starting…"));
}

void ExportDialog::runPackage() {
  const QString package = QFileInfo(outputEdit_->text().trimmed()).absoluteFilePath();
  // Loading and ten runs take moments; the job has nothing to stop early.
  jobs_.start(
      [package, modelPath = modelPath_] {
        return runExportedPackage(package, modelPath, kRunRepeat);
      },
      [this](const RunOutcome& outcome) {
        setBusy(false);
        stage_->setText(outcome.ok ? tr("Package ran.") : tr("Running the package failed."));
        showReport(outcome.text, !outcome.ok);
        if (outcome.ok)
          emit packageRan(outcome.text);
        else
          emit runFailed(outcome.text);
      });
  progress_->setRange(0, 0);  // no steps to count
  setBusy(true, tr("loading %1 and running it…").arg(QFileInfo(package).fileName()));
}

void ExportDialog::cancel() {
  if (!busy_) return;
  jobs_.drop();
  setBusy(false);
  progress_->setValue(0);
  stage_->setText(
      tr("Cancelled. A compile already running finishes in the background and is "
         "discarded."));
}

void ExportDialog::reject() {
  cancel();
  QDialog::reject();
}

void ExportDialog::setBusy(bool busy, const QString& stage) {
  busy_ = busy;
  if (!busy) progress_->setRange(0, kExportSteps);
  exportButton_->setEnabled(!busy);
  cancelButton_->setEnabled(busy);
  targetEdit_->setEnabled(!busy);
  recordsCombo_->setEnabled(!busy);
  outputEdit_->setEnabled(!busy);
  if (busy) stage_->setText(stage);
  updateRunButton();
}

void ExportDialog::showReport(const QString& text, bool error) {
  report_->setPlainText(error ? tr("Error: %1").arg(text) : text);
}

void ExportDialog::updateRunButton() {
  runButton_->setEnabled(!busy_ && QFileInfo::exists(outputEdit_->text().trimmed()));
}

}  // namespace lathe::studio

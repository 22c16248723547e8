// The Package tab's wiring: the load job (contents, then mod.so through the
// runtime) and the benchmark job.
#include "studio/package_page.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "driver/executor.h"
#include "driver/package_contents.h"
#include "studio/exception_text.h"
#include "studio/executor_inputs.h"
#include "studio/executor_report.h"
#include "views/package_view.h"

namespace lathe::studio {

struct PackagePage::Opened {
  QString path;
  std::shared_ptr<const driver::PackageContents> contents;  // null when unreadable
  QString error;                                            // why contents is null
  // Null when mod.so cannot run here (another CPU's features, a dlopen
  // failure, parameters that do not fit the graph): the contents still show.
  std::shared_ptr<runtime::Package> package;
  QString runError;  // why package is null
};

namespace {

std::string localPath(const QString& path) {
  return QFile::encodeName(path).toStdString();
}

struct BenchmarkOutcome {
  bool ok = false;
  QString text;  // the report, or the failure
};

// As `lathe run module.tar --inputs in.npz --print-time --repeat R --number N`.
BenchmarkOutcome runPackage(const std::shared_ptr<runtime::Package>& package, const QString& npz,
                            int repeat, int number) {
  BenchmarkOutcome outcome;
  try {
    driver::GraphExecutor& executor = package->executor();
    QStringList lines;
    lines << QStringLiteral("Inputs: %1").arg(feedInputsFrom(executor, npz));
    lines << runAndTime(executor, repeat, number);
    outcome.ok = true;
    outcome.text = lines.join(QLatin1Char('\n'));
  } catch (...) {
    outcome.text = exceptionText(std::current_exception());
  }
  return outcome;
}

}  // namespace

PackagePage::PackagePage(QWidget* parent) : QWidget(parent) {
  view_ = new views::PackageView;
  view_->setObjectName(QStringLiteral("packageView"));

  inputsEdit_ = new QLineEdit;
  inputsEdit_->setObjectName(QStringLiteral("packageInputs"));
  inputsEdit_->setPlaceholderText(tr("random inputs (floats uniform in [-1, 1], seed 0)"));
  inputsEdit_->setClearButtonEnabled(true);
  inputsEdit_->setToolTip(
      tr("An .npz with an array per input name (as `lathe run --inputs`); inputs it lacks are "
         "random"));
  auto* browse = new QToolButton;
  browse->setText(tr("…"));
  browse->setToolTip(tr("Choose an .npz of inputs"));
  connect(browse, &QToolButton::clicked, this, &PackagePage::chooseInputs);

  repeatSpin_ = new QSpinBox;
  repeatSpin_->setObjectName(QStringLiteral("packageRepeat"));
  repeatSpin_->setRange(1, 10000);
  repeatSpin_->setValue(10);
  repeatSpin_->setToolTip(tr("Samples (--repeat)"));
  numberSpin_ = new QSpinBox;
  numberSpin_->setObjectName(QStringLiteral("packageNumber"));
  numberSpin_->setRange(1, 10000);
  numberSpin_->setValue(1);
  numberSpin_->setToolTip(tr("Runs averaged into each sample (--number)"));
  // &R: Alt+B is the Benchmark tab's.
  benchmarkButton_ = new QPushButton(tr("&Run Benchmark"));
  benchmarkButton_->setObjectName(QStringLiteral("packageBenchmark"));
  connect(benchmarkButton_, &QPushButton::clicked, this, &PackagePage::benchmark);

  runStatus_ = new QLabel;
  runStatus_->setObjectName(QStringLiteral("packageRunStatus"));

  report_ = new QPlainTextEdit;
  report_->setObjectName(QStringLiteral("packageReport"));
  report_->setReadOnly(true);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  // The time summary and a few lines of inputs and outputs.
  report_->setMaximumHeight(report_->fontMetrics().lineSpacing() * 9);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Inputs:")));
  controls->addWidget(inputsEdit_, 1);
  controls->addWidget(browse);
  controls->addWidget(new QLabel(tr("Repeat:")));
  controls->addWidget(repeatSpin_);
  controls->addWidget(new QLabel(tr("Number:")));
  controls->addWidget(numberSpin_);
  controls->addWidget(benchmarkButton_);
  controls->addWidget(runStatus_);
  auto* runBox = new QGroupBox(tr("Run the package (runtime only, as `lathe run --print-time`)"));
  auto* runLayout = new QVBoxLayout(runBox);
  runLayout->addLayout(controls);
  runLayout->addWidget(report_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->addWidget(view_, 1);
  layout->addWidget(runBox);

  connect(&runs_, &views::JobTracker::busyChanged, this, &PackagePage::updateBenchmarkButton);
  updateBenchmarkButton();
}

PackagePage::~PackagePage() = default;

void PackagePage::open(const QString& path) {
  loads_.start(
      [path]() {
        Opened result;
        result.path = path;
        try {
          result.contents = std::make_shared<const driver::PackageContents>(
              driver::read_package_contents(localPath(path)));
        } catch (...) {
          result.error = exceptionText(std::current_exception());
          return result;
        }
        try {
          result.package = std::make_shared<runtime::Package>(localPath(path));
        } catch (...) {
          result.runError = exceptionText(std::current_exception());
        }
        return result;
      },
      [this](const Opened& result) { showOpened(result); });
}

void PackagePage::cancelOpen() {
  loads_.drop();
}

void PackagePage::showOpened(const Opened& result) {
  if (!result.contents) {
    emit failed(result.path, result.error, {});
    return;
  }
  path_ = result.path;
  contents_ = result.contents;
  package_ = result.package;
  // A benchmark of the previous package would report on the wrong one.
  runs_.drop();
  view_->setContents(contents_, package_ ? QString::fromStdString(package_->target()) : QString());
  report_->clear();
  runStatus_->clear();
  if (!package_) {
    report_->setPlainText(tr("This package cannot run here:\n%1").arg(result.runError));
    emit logMessage(tr("%1 cannot run here: %2").arg(path_, result.runError), true);
  }
  updateBenchmarkButton();
  emit opened(path_);
}

void PackagePage::chooseInputs() {
  const QString start =
      inputsEdit_->text().isEmpty() ? QFileInfo(path_).absolutePath() : inputsEdit_->text();
  const QString npz = QFileDialog::getOpenFileName(this, tr("Inputs"), start,
                                                   tr("NumPy archives (*.npz);;All files (*)"));
  if (!npz.isEmpty()) inputsEdit_->setText(npz);
}

void PackagePage::benchmark() {
  if (!package_) return;
  const QString npz = inputsEdit_->text().trimmed();
  const int repeat = repeatSpin_->value(), number = numberSpin_->value();
  runStatus_->setText(tr("running…"));
  emit logMessage(tr("Benchmarking %1: %2 × %3 runs").arg(path_).arg(repeat).arg(number), false);
  runs_.start(
      [package = package_, npz, repeat, number] {
        return runPackage(package, npz, repeat, number);
      },
      [this](const BenchmarkOutcome& outcome) {
        report_->setPlainText(outcome.ok ? outcome.text : tr("Error: %1").arg(outcome.text));
        runStatus_->setText(outcome.ok ? tr("done") : tr("failed"));
        if (outcome.ok) {
          emit logMessage(tr("Benchmark of %1:\n%2").arg(path_, outcome.text), false);
          emit benchmarked(outcome.text);
        } else {
          emit logMessage(tr("error: benchmark of %1 failed: %2").arg(path_, outcome.text), true);
          emit benchmarkFailed(outcome.text);
        }
      });
}

void PackagePage::updateBenchmarkButton() {
  benchmarkButton_->setEnabled(package_ != nullptr && !runs_.isBusy());
  benchmarkButton_->setToolTip(
      package_ ? tr("Run the package in the background and show TVM's time summary")
               : tr("Open a package whose mod.so loads on this machine"));
}

}  // namespace lathe::studio

// The Package tab: a compiled package (lathe compile's NAME.lathe.tar, or any
// module.tar in its format) opened through the runtime alone, without the
// model it came from: its executor graph, parameters and memory plan
// (views::PackageView), and a Benchmark that runs it on random inputs or a
// user's .npz and shows TVM's time summary. Loading and benchmarks run in the
// background, the newest request winning.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>

#include "views/job_tracker.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace lathe::driver {
struct PackageContents;
}
namespace lathe::runtime {
class Package;
}
namespace lathe::views {
class PackageView;
}

namespace lathe::studio {

class PackagePage : public QWidget {
  Q_OBJECT

 public:
  explicit PackagePage(QWidget* parent = nullptr);
  ~PackagePage() override;

  // Reads the package in the background; opened() or failed() follows.
  void open(const QString& path);
  // Forgets a load still running; nothing of it arrives.
  void cancelOpen();
  bool isOpening() const { return loads_.isBusy(); }
  // The package shown; empty until one opened.
  QString packagePath() const { return path_; }
  // Whether the shown package's mod.so loaded here, so it can run.
  bool isRunnable() const { return package_ != nullptr; }

  // Runs the shown package: inputs from inputsEdit()'s .npz (random when
  // empty), repeat × number runs; benchmarked() or benchmarkFailed() follows.
  void benchmark();

  views::PackageView* view() const { return view_; }
  QLineEdit* inputsEdit() const { return inputsEdit_; }
  QSpinBox* repeatSpin() const { return repeatSpin_; }
  QSpinBox* numberSpin() const { return numberSpin_; }
  QPushButton* benchmarkButton() const { return benchmarkButton_; }
  QPlainTextEdit* report() const { return report_; }

 signals:
  void opened(const QString& path);
  // `summary` names the file and the problem (a truncated tar, a bad mod.json …).
  void failed(const QString& path, const QString& summary, const QStringList& problems);
  void benchmarked(const QString& report);
  void benchmarkFailed(const QString& message);
  void logMessage(const QString& message, bool error);

 private:
  struct Opened;
  void showOpened(const Opened& result);
  void chooseInputs();
  void updateBenchmarkButton();

  views::PackageView* view_ = nullptr;
  QLineEdit* inputsEdit_ = nullptr;
  QSpinBox* repeatSpin_ = nullptr;
  QSpinBox* numberSpin_ = nullptr;
  QPushButton* benchmarkButton_ = nullptr;
  QLabel* runStatus_ = nullptr;
  QPlainTextEdit* report_ = nullptr;

  QString path_;
  std::shared_ptr<const driver::PackageContents> contents_;
  // Shared with a benchmark in flight, which may outlive a newer package's arrival.
  std::shared_ptr<runtime::Package> package_;
  views::JobTracker loads_{this};
  views::JobTracker runs_{this, views::JobTracker::Overlap::Serial};
};

}  // namespace lathe::studio

// The Benchmark tab: the shown model built untuned (Lathe's own kernels on
// default schedules), tuned (the best records of the tuner's records file),
// hand-edited (the schedule editor's measured edits) and once per external
// codegen of the loaded plugins (Lathe's kernels plus the groups it claims:
// "should I offload this conv?"), each timed with repeat/number as
// `lathe run --print-time` times it; a box chart of the run times with the
// speed-ups, a table per build, the profiling executor's per-kernel table,
// the roofline of a build's kernels (clicking one asks to open it), the
// machine the roofline is drawn for, and export to CSV, PNG and PDF of the
// chart shown. The work runs in BenchmarkRunner; measuring the machine again
// in a job of its own.
#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QString>
#include <QWidget>
#include <memory>

#include "driver/target.h"
#include "ir/graph.h"
#include "views/job_tracker.h"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;
class QTabWidget;

namespace lathe::views {
class BenchmarkChart;
class BenchmarkTableModel;
struct BuildBenchmark;
class KernelProfileModel;
class MachinePanel;
class RooflineChart;
}  // namespace lathe::views

namespace lathe::studio {

class BenchmarkRunner;
struct MachineOutcome;  // a measurement of the machine, or why there is none

class BenchmarkPage : public QWidget {
  Q_OBJECT

 public:
  // The tuned build reads `tuningRecordsPath`, the hand-edited one
  // `journalPath`; both can be changed on the page. A build whose file
  // exists starts checked.
  BenchmarkPage(const QString& tuningRecordsPath, const QString& journalPath,
                QWidget* parent = nullptr);
  ~BenchmarkPage() override;

  // The model the builds compile. A run of the previous model is cancelled
  // and its results cleared.
  void setModel(const QString& path, std::shared_ptr<const Graph> graph);
  // The target the builds compile for (the studio's picker): this machine's
  // CPU, or a GPU target whose builds run on GPU 0 and are placed on the
  // board's roofline. Takes effect from the next run.
  void setTarget(const driver::Target& target);

  // One build row per external codegen of the plugins loaded so far
  // (driver/plugins.h), checked when new; call after loading plugins.
  void updateExternalCodegens();

  // Measures the checked builds; a run going is superseded.
  void run();
  void cancel();

  // Measures the machine's peak and bandwidths again, in the background.
  void measureMachine();

  // The chart shown (run times or roofline) is what PNG and PDF export, and
  // its table what CSV exports (the builds, or the roofline's kernels).
  // Each returns whether the file was written; failures go to the status line.
  bool exportCsv(const QString& path);
  bool exportPng(const QString& path);
  bool exportPdf(const QString& path);

  QCheckBox* untunedCheck() const { return untunedCheck_; }
  QCheckBox* tunedCheck() const { return tunedCheck_; }
  QCheckBox* handEditedCheck() const { return handEditedCheck_; }
  QCheckBox* onnxRuntimeCheck() const { return onnxRuntimeCheck_; }
  // One per external codegen, in the order the plugins registered them;
  // each check's objectName is "codegenCheck_" and the codegen's name.
  const QList<QCheckBox*>& codegenChecks() const { return codegenChecks_; }
  QLineEdit* tuningRecordsEdit() const { return tuningRecordsEdit_; }
  QLineEdit* journalEdit() const { return journalEdit_; }
  QSpinBox* repeatSpin() const { return repeatSpin_; }
  QSpinBox* numberSpin() const { return numberSpin_; }
  QPushButton* runButton() const { return runButton_; }
  QPushButton* cancelButton() const { return cancelButton_; }
  QProgressBar* progressBar() const { return progress_; }
  QLabel* statusLine() const { return status_; }
  views::BenchmarkChart* chart() const { return chart_; }
  views::RooflineChart* rooflineChart() const { return roofline_; }
  // Which build the roofline shows.
  QComboBox* rooflineBuildCombo() const { return rooflineBuild_; }
  // "Run time" and "Roofline".
  QTabWidget* chartTabs() const { return chartTabs_; }
  views::MachinePanel* machinePanel() const { return machinePanel_; }
  views::BenchmarkTableModel* buildTable() const { return buildModel_; }
  views::KernelProfileModel* kernelTable() const { return kernelModel_; }
  BenchmarkRunner* runner() const { return runner_; }

 signals:
  void buildShown(const QString& name);
  // A kernel's disc on the roofline was clicked: its fused group and the
  // workload id of its task, for the Schedule tab.
  void kernelOpenRequested(const QString& group, const QString& workload);
  // The machine box shows a measurement (kept, or just made).
  void machineShown();
  void benchmarkFinished(bool cancelled);
  // For the studio's log.
  void logMessage(const QString& message, bool error);

 private:
  QWidget* createBuildChooser();
  QWidget* createRunControls();
  QWidget* createResults();
  QWidget* createRooflinePane();
  void showRooflineOf(int build);
  void showMachine(const MachineOutcome& outcome);
  QCustomPlot* shownChart() const;
  void chooseRecordsFile(QLineEdit* edit, const QString& title);
  void chooseExportFile(const QString& title, const QString& filter, const QString& suffix,
                        bool (BenchmarkPage::*write)(const QString&));
  void showBuild(const views::BuildBenchmark& build);
  void showFinished(bool cancelled);
  void setRunning(bool running);
  void setStatus(const QString& text, bool error = false);
  void clearResults();

  BenchmarkRunner* runner_ = nullptr;
  QString modelPath_;
  std::shared_ptr<const Graph> graph_;
  QElapsedTimer runTimer_;
  int failedBuilds_ = 0;

  QCheckBox* untunedCheck_ = nullptr;
  QCheckBox* tunedCheck_ = nullptr;
  QCheckBox* handEditedCheck_ = nullptr;
  QCheckBox* onnxRuntimeCheck_ = nullptr;
  QGridLayout* codegenGrid_ = nullptr;
  QList<QCheckBox*> codegenChecks_;
  QLineEdit* tuningRecordsEdit_ = nullptr;
  QLineEdit* journalEdit_ = nullptr;
  QSpinBox* repeatSpin_ = nullptr;
  QSpinBox* numberSpin_ = nullptr;
  QPushButton* runButton_ = nullptr;
  QPushButton* cancelButton_ = nullptr;
  QPushButton* csvButton_ = nullptr;
  QPushButton* pngButton_ = nullptr;
  QPushButton* pdfButton_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* notes_ = nullptr;  // what the records did not cover, under the table
  views::BenchmarkChart* chart_ = nullptr;
  views::RooflineChart* roofline_ = nullptr;
  QComboBox* rooflineBuild_ = nullptr;
  QLabel* rooflineNote_ = nullptr;  // why the build shown has no roofline
  QTabWidget* chartTabs_ = nullptr;
  views::MachinePanel* machinePanel_ = nullptr;
  views::JobTracker machineJobs_{this, views::JobTracker::Overlap::Serial};
  views::BenchmarkTableModel* buildModel_ = nullptr;
  views::KernelProfileModel* kernelModel_ = nullptr;
  QTableView* buildView_ = nullptr;
  QTableView* kernelView_ = nullptr;
};

}  // namespace lathe::studio

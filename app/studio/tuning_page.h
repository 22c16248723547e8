// The Tuning tab: the options of a tuning session (tuner, autoscheduler,
// trials, time budget, early stopping, tasks, records file and resuming),
// Start / Pause / Stop, the live charts, the task table and the failed
// candidates. The session runs in TuningRunner; this page only wires it.
#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QTimer>
#include <QWidget>
#include <memory>

#include "driver/tuning.h"
#include "studio/tuning_runner.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace lathe::views {
class TuningCharts;
class TuningFailuresModel;
class TuningTaskModel;
}  // namespace lathe::views

namespace lathe::studio {

struct GraphSnapshots;

class TuningPage : public QWidget {
  Q_OBJECT

 public:
  explicit TuningPage(QWidget* parent = nullptr);
  ~TuningPage() override;

  // The model to tune, once its graph passes have run. A session still
  // running on the previous model is stopped first.
  void setGraphSnapshots(std::shared_ptr<const GraphSnapshots> snapshots);

  void startTuning();
  void togglePause();
  void stopTuning();

  // Where records go unless the user picks another file.
  static QString defaultRecordsPath();

  TuningRunner* runner() const { return runner_; }
  // Null until the shown model's tasks are planned.
  std::shared_ptr<const driver::TuningPlan> plan() const { return plan_; }
  // Of the session shown; empty before one started.
  const driver::TuningProgress& progress() const { return progress_; }

  views::TuningCharts* charts() const { return charts_; }
  views::TuningTaskModel* taskModel() const { return taskModel_; }
  views::TuningFailuresModel* failuresModel() const { return failuresModel_; }
  QTableView* taskTable() const { return taskTable_; }
  QTableView* failureTable() const { return failureTable_; }
  // The selected failure's error, knobs and schedule text.
  QPlainTextEdit* failureDetails() const { return failureDetails_; }

  QComboBox* tunerCombo() const { return tunerCombo_; }
  QCheckBox* autoschedulerCheck() const { return autoschedulerCheck_; }
  QComboBox* schedulerCombo() const { return schedulerCombo_; }
  QSpinBox* trialsSpin() const { return trialsSpin_; }
  QDoubleSpinBox* timeBudgetSpin() const { return timeBudgetSpin_; }  // minutes
  QSpinBox* earlyStoppingSpin() const { return earlyStoppingSpin_; }
  QLineEdit* taskSelectionEdit() const { return taskSelectionEdit_; }
  QLineEdit* recordsPathEdit() const { return recordsPathEdit_; }
  QCheckBox* resumeCheck() const { return resumeCheck_; }
  QPushButton* startButton() const { return startButton_; }
  QPushButton* pauseButton() const { return pauseButton_; }
  QPushButton* stopButton() const { return stopButton_; }
  QLabel* statusLine() const { return status_; }

 signals:
  // The shown model's tasks are listed in the table, ready to tune.
  void tasksPlanned(int count);
  void sessionFinished(bool stopped);
  // For the studio's log.
  void logMessage(const QString& message, bool error);

 private:
  QWidget* createOptions();
  QWidget* createResults();

  void showPlan(std::shared_ptr<const driver::TuningPlan> plan);
  void showSessionStart(const driver::TuningProgress& progress);
  void showTrial(const driver::TrialEvent& trial, const driver::TuningProgress& progress);
  void showSessionEnd(const driver::TuningProgress& progress, bool stopped);
  void showTasks(const std::vector<driver::TaskStatus>& tasks);
  void showFailureDetails();
  void chooseRecordsFile();

  void updateControls();
  void updateStatus();
  void setStatus(const QString& text, bool error);
  // "48 / 256 trials · 23 s · estimated 3.214 ms (default 5.601 ms, 1.74×) · 2 errors"
  QString describeProgress() const;

  TuningRunner* runner_ = nullptr;
  std::shared_ptr<const GraphSnapshots> snapshots_;
  std::shared_ptr<const driver::TuningPlan> plan_;
  // Whether the runner's events belong to what the page shows: a new model
  // stops the session, whose last events must not land in the new tables.
  bool sessionShown_ = false;
  driver::TuningProgress progress_;
  QString recordsPath_;       // of the session shown
  QElapsedTimer sinceEvent_;  // the elapsed time ticks on between events
  QTimer tick_;
  QString finalStatus_;  // how the last session ended, kept until the next starts
  bool finalError_ = false;

  QComboBox* tunerCombo_ = nullptr;
  QCheckBox* autoschedulerCheck_ = nullptr;
  QComboBox* schedulerCombo_ = nullptr;
  QSpinBox* trialsSpin_ = nullptr;
  QDoubleSpinBox* timeBudgetSpin_ = nullptr;
  QSpinBox* earlyStoppingSpin_ = nullptr;
  QLineEdit* taskSelectionEdit_ = nullptr;
  QLineEdit* recordsPathEdit_ = nullptr;
  QCheckBox* resumeCheck_ = nullptr;
  QPushButton* startButton_ = nullptr;
  QPushButton* pauseButton_ = nullptr;
  QPushButton* stopButton_ = nullptr;
  QLabel* status_ = nullptr;

  views::TuningCharts* charts_ = nullptr;
  views::TuningTaskModel* taskModel_ = nullptr;
  views::TuningFailuresModel* failuresModel_ = nullptr;
  QTabWidget* resultTabs_ = nullptr;
  QTableView* taskTable_ = nullptr;
  QTableView* failureTable_ = nullptr;
  QPlainTextEdit* failureDetails_ = nullptr;
};

}  // namespace lathe::studio

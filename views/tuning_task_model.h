// The tuning view's task table: one row per task of a session with its work
// (MFLOP, how many fused groups run it), the schedule space it is searched in
// (marked, with the reason in its tooltip, where the anchor op's template had
// no point for the kernel and the generic template stands in), its trials,
// the default and best latency, GFLOPS, speed-up and errors, as `lathe tune`
// prints at its end.
// An item model without widgets; the trials column carries a fraction for
// the progress bar delegate (views/tuning_progress_delegate.h).
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <QList>
#include <vector>

#include "driver/tuning_events.h"

namespace lathe::views {

class TuningTaskModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    IdColumn,
    TaskColumn,
    SpaceColumn,
    MflopColumn,
    WeightColumn,
    TrialsColumn,
    DefaultMsColumn,
    BestMsColumn,
    GflopsColumn,
    SpeedupColumn,
    ErrorsColumn,
    ColumnCount
  };
  // Numbers for sorting and tests, where the display role has units or dashes.
  static constexpr int ValueRole = Qt::UserRole + 1;
  // Of the trials column: how far the task is, from 0 to 1.
  static constexpr int ProgressRole = Qt::UserRole + 2;

  explicit TuningTaskModel(QObject* parent = nullptr);

  // Replaces every row: the tasks of a plan before tuning, or of a session.
  void setTasks(const std::vector<driver::TaskStatus>& tasks);
  // The same tasks, measured further; rows that changed are updated in place.
  // Progress over other tasks than the rows' resets the model.
  void setProgress(const driver::TuningProgress& progress);
  // Row i's ID cell shows colors[i], the task's curve color in the charts.
  void setTaskColors(const QList<QColor>& colors);
  void clear();

  const std::vector<driver::TaskStatus>& tasks() const { return tasks_; }
  int totalTrials() const;
  // How far a task is: its trials over its share of the planned trials, or
  // of the trials the time budget will allow at the rate so far; 1 when done.
  double trialFraction(const driver::TaskStatus& task) const;

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant displayData(const driver::TaskStatus& task, int column) const;
  QVariant valueData(const driver::TaskStatus& task, int column) const;

  std::vector<driver::TaskStatus> tasks_;
  QList<QColor> colors_;
  // From the latest progress: what the trials column measures against.
  int plannedTrials_ = 0;
  double timeBudgetS_ = 0;
  double elapsedS_ = 0;
  int sessionTrials_ = 0;
};

}  // namespace lathe::views

// Two schedules of one kernel side by side (driver::ScheduleDiff): both
// measurements on top (time, GFLOPS, % of roof), the template's knobs with
// those that differ highlighted, then the two schedule texts and the two
// loop IRs, each aligned row by row with changed rows coloured.
#pragma once

#include <QWidget>

#include "driver/schedule_diff.h"

class QLabel;
class QTableView;
class QTableWidget;

namespace lathe::views {

class AlignedDiffModel;

class ScheduleDiffView : public QWidget {
  Q_OBJECT

 public:
  explicit ScheduleDiffView(QWidget* parent = nullptr);

  void setDiff(const driver::ScheduleDiff& diff);
  // Empties the view and says why (computing, failed).
  void clear(const QString& message);

  QTableWidget* measurementTable() const { return measurements_; }
  QTableWidget* knobTable() const { return knobs_; }
  QLabel* knobNote() const { return knobNote_; }
  QLabel* verdict() const { return verdict_; }
  AlignedDiffModel* scheduleModel() const { return scheduleModel_; }
  AlignedDiffModel* loopIRModel() const { return loopIRModel_; }

 private:
  void showMeasurements(const driver::ScheduleDiff& diff);
  void showKnobs(const driver::ScheduleDiff& diff);

  QTableWidget* measurements_ = nullptr;
  QLabel* verdict_ = nullptr;
  QTableWidget* knobs_ = nullptr;
  QLabel* knobNote_ = nullptr;
  AlignedDiffModel* scheduleModel_ = nullptr;
  AlignedDiffModel* loopIRModel_ = nullptr;
  QTableView* scheduleTable_ = nullptr;
  QTableView* loopIRTable_ = nullptr;
};

}  // namespace lathe::views

// The tuning view's two live charts (QCustomPlot): the best GFLOPS of each
// task against its trial number, one curve per task with the selected task
// drawn bold over the dots of all its measured candidates; and the model's
// estimated end-to-end latency against elapsed time, beside the same sum with
// every task's default schedule. Fed from tuning events on the GUI thread.
#pragma once

#include <QColor>
#include <QList>
#include <QWidget>
#include <vector>

#include "driver/tuning_events.h"

class QCPGraph;
class QCustomPlot;

namespace lathe::views {

class TuningCharts : public QWidget {
  Q_OBJECT

 public:
  explicit TuningCharts(QWidget* parent = nullptr);

  // Starts over with one curve per task; tasks resumed from records start at
  // their trial count and best.
  void setTasks(const std::vector<driver::TaskStatus>& tasks);
  void clear() { setTasks({}); }
  // One measured candidate of task `trial.task_index`, and the estimate after it.
  void addTrial(const driver::TrialEvent& trial, const driver::TuningProgress& progress);
  // The estimate alone (at the start of a session, and at its end).
  void addEstimate(const driver::TuningProgress& progress);
  // Draws task `index` bold with its candidates; -1: none.
  void setSelectedTask(int index);
  int selectedTask() const { return selected_; }

  // The curve color of task `index`: the task table shows it too.
  static QColor taskColor(int index);
  QList<QColor> taskColors() const;

  QCustomPlot* gflopsPlot() const { return gflopsPlot_; }
  QCustomPlot* latencyPlot() const { return latencyPlot_; }
  QCPGraph* taskGraph(int index) const;
  QCPGraph* candidateGraph() const { return candidates_; }
  QCPGraph* tunedLatencyGraph() const { return tunedLatency_; }
  QCPGraph* defaultLatencyGraph() const { return defaultLatency_; }

 signals:
  // A task's curve was clicked.
  void taskClicked(int index);

 private:
  struct TaskSeries {
    QCPGraph* graph = nullptr;
    double work = 0;  // flops × weight: which tasks the legend names first
    // Every measured candidate (trial, GFLOPS), for the selected task's dots.
    QVector<double> trials, gflops;
  };

  void styleTaskGraph(int index);
  void updateLegend();
  void refitGflops();
  void refitLatency();

  QCustomPlot* gflopsPlot_ = nullptr;
  QCustomPlot* latencyPlot_ = nullptr;
  std::vector<TaskSeries> tasks_;
  QCPGraph* candidates_ = nullptr;
  QCPGraph* tunedLatency_ = nullptr;
  QCPGraph* defaultLatency_ = nullptr;
  int selected_ = -1;
  // The data's extent, for ranges that follow it.
  double maxTrial_ = 0;
  double maxGflops_ = 0;
  double maxElapsedS_ = 0;
  double maxLatencyMs_ = 0;
  // Ranges follow the data until the user zooms or drags; a double click resumes.
  bool followGflops_ = true;
  bool followLatency_ = true;
};

}  // namespace lathe::views

// The task table's cells.
#include "views/tuning_task_model.h"

#include <QBrush>
#include <QLocale>
#include <QPixmap>
#include <algorithm>
#include <cmath>

namespace lathe::views {

namespace {

const QColor kErrorColor(0xc0, 0x39, 0x2b);
// A task on the generic schedule because its template had no point for it.
const QColor kFallbackColor(0xb9, 0x77, 0x0e);

double speedupOf(const driver::TaskStatus& t) {
  return std::isfinite(t.best_ms) && std::isfinite(t.default_ms) && t.best_ms > 0
             ? t.default_ms / t.best_ms
             : 0;
}

// The precision `lathe tune` prints latencies with: sub-millisecond kernels need four digits.
QString milliseconds(double ms) {
  if (!std::isfinite(ms)) return QStringLiteral("–");
  return QLocale().toString(ms, 'f', ms < 1 ? 4 : 3);
}

bool sameTasks(const std::vector<driver::TaskStatus>& a, const std::vector<driver::TaskStatus>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const auto& x, const auto& y) { return x.id == y.id && x.name == y.name; });
}

}  // namespace

TuningTaskModel::TuningTaskModel(QObject* parent) : QAbstractTableModel(parent) {}

void TuningTaskModel::setTasks(const std::vector<driver::TaskStatus>& tasks) {
  beginResetModel();
  tasks_ = tasks;
  plannedTrials_ = sessionTrials_ = 0;
  timeBudgetS_ = elapsedS_ = 0;
  endResetModel();
}

void TuningTaskModel::setProgress(const driver::TuningProgress& progress) {
  if (!sameTasks(tasks_, progress.tasks)) setTasks(progress.tasks);
  plannedTrials_ = progress.planned_trials;
  timeBudgetS_ = progress.time_budget_s;
  elapsedS_ = progress.elapsed_s;
  sessionTrials_ = progress.total_trials;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const driver::TaskStatus& now = progress.tasks[i];
    driver::TaskStatus& row = tasks_[i];
    const bool changed = now.trials != row.trials || now.errors != row.errors ||
                         now.best_ms != row.best_ms || now.default_ms != row.default_ms ||
                         now.finished != row.finished || now.space != row.space;
    row = now;
    if (changed)
      emit dataChanged(index(static_cast<int>(i), 0), index(static_cast<int>(i), ColumnCount - 1));
  }
  // A budget-bound bar depends on the session's rate, so every trials cell may move.
  if (!tasks_.empty() && timeBudgetS_ > 0)
    emit dataChanged(index(0, TrialsColumn), index(rowCount() - 1, TrialsColumn), {ProgressRole});
}

void TuningTaskModel::setTaskColors(const QList<QColor>& colors) {
  colors_ = colors;
  if (!tasks_.empty())
    emit dataChanged(index(0, IdColumn), index(rowCount() - 1, IdColumn), {Qt::DecorationRole});
}

void TuningTaskModel::clear() {
  setTasks({});
}

int TuningTaskModel::totalTrials() const {
  int total = 0;
  for (const driver::TaskStatus& t : tasks_) total += t.trials;
  return total;
}

double TuningTaskModel::trialFraction(const driver::TaskStatus& task) const {
  if (task.finished) return 1;
  const double tasks = static_cast<double>(std::max<size_t>(tasks_.size(), 1));
  double share = 0;
  if (plannedTrials_ > 0) {
    share = plannedTrials_ / tasks;
  } else if (timeBudgetS_ > 0 && elapsedS_ > 0 && sessionTrials_ > 0) {
    // Trials the budget allows at the rate so far, shared evenly.
    share = sessionTrials_ * (timeBudgetS_ / elapsedS_) / tasks;
  }
  return share > 0 ? std::min(1.0, task.trials / share) : 0;
}

int TuningTaskModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(tasks_.size());
}

int TuningTaskModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuningTaskModel::displayData(const driver::TaskStatus& t, int column) const {
  const QLocale locale;
  switch (column) {
    case IdColumn:
      return t.id;
    case TaskColumn:
      return QString::fromStdString(t.name);
    case SpaceColumn:
      if (t.space.empty()) return QStringLiteral("–");
      return t.fallback.empty() ? QString::fromStdString(t.space)
                                : tr("%1 · fallback").arg(QString::fromStdString(t.space));
    case MflopColumn:
      return locale.toString(static_cast<double>(t.flops) / 1e6, 'f', 2);
    case WeightColumn:
      return t.weight;
    case TrialsColumn:
      return t.finished ? tr("%1 · done").arg(t.trials) : QString::number(t.trials);
    case DefaultMsColumn:
      return milliseconds(t.default_ms);
    case BestMsColumn:
      return milliseconds(t.best_ms);
    case GflopsColumn:
      return t.best_gflops > 0 ? locale.toString(t.best_gflops, 'f', 1) : QStringLiteral("–");
    case SpeedupColumn: {
      const double s = speedupOf(t);
      return s > 0 ? tr("%1×").arg(locale.toString(s, 'f', 2)) : QStringLiteral("–");
    }
    case ErrorsColumn:
      return t.errors;
  }
  return {};
}

QVariant TuningTaskModel::valueData(const driver::TaskStatus& t, int column) const {
  switch (column) {
    case IdColumn:
      return t.id;
    case TaskColumn:
      return QString::fromStdString(t.name);
    case SpaceColumn:
      return QString::fromStdString(t.space);
    case MflopColumn:
      return static_cast<double>(t.flops) / 1e6;
    case WeightColumn:
      return t.weight;
    case TrialsColumn:
      return t.trials;
    case DefaultMsColumn:
      return t.default_ms;
    case BestMsColumn:
      return t.best_ms;
    case GflopsColumn:
      return t.best_gflops;
    case SpeedupColumn:
      return speedupOf(t);
    case ErrorsColumn:
      return t.errors;
  }
  return {};
}

QVariant TuningTaskModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const driver::TaskStatus& t = tasks_[static_cast<size_t>(index.row())];
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return displayData(t, column);
    case ValueRole:
      return valueData(t, column);
    case ProgressRole:
      return column == TrialsColumn ? QVariant(trialFraction(t)) : QVariant();
    case Qt::TextAlignmentRole:
      if (column != TaskColumn && column != SpaceColumn && column != TrialsColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::DecorationRole:
      if (column == IdColumn && index.row() < colors_.size()) {
        QPixmap swatch(10, 10);
        swatch.fill(colors_[index.row()]);
        return swatch;
      }
      return {};
    case Qt::ForegroundRole:
      if (column == ErrorsColumn && t.errors > 0) return QBrush(kErrorColor);
      if (column == SpaceColumn && !t.fallback.empty()) return QBrush(kFallbackColor);
      return {};
    case Qt::ToolTipRole:
      if (column == TaskColumn) return QString::fromStdString(t.signature);
      if (column == SpaceColumn && !t.fallback.empty())
        return tr("the generic schedule stands in for the template, which had no point for "
                  "this kernel: %1")
            .arg(QString::fromStdString(t.fallback));
      if (column == WeightColumn)
        return tr("the model runs this kernel in %n fused group(s)", nullptr, t.weight);
      if (column == TrialsColumn)
        return t.finished ? tr("finished: its search space is exhausted or it stopped early")
                          : tr("%n candidate(s) measured", nullptr, t.trials);
      if (column == GflopsColumn || column == SpeedupColumn)
        return tr("of the best schedule; the current round's best: %1 GFLOPS")
            .arg(QLocale().toString(t.current_gflops, 'f', 1));
      return {};
  }
  return {};
}

QVariant TuningTaskModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case WeightColumn:
        return tr("fused groups of the model that run this kernel");
      case SpaceColumn:
        return tr(
            "the schedule space the task is searched in; a fallback is the generic template "
            "standing in where the op's own template had no point for the kernel");
      case DefaultMsColumn:
        return tr("latency of the untuned (default) schedule, measured first");
      case SpeedupColumn:
        return tr("default latency over best latency");
      case ErrorsColumn:
        return tr(
            "candidates that did not compile, crashed, timed out or computed wrong "
            "results");
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case IdColumn:
      return tr("ID");
    case TaskColumn:
      return tr("Task");
    case SpaceColumn:
      return tr("Schedule");
    case MflopColumn:
      return tr("MFLOP");
    case WeightColumn:
      return tr("Weight");
    case TrialsColumn:
      return tr("Trials");
    case DefaultMsColumn:
      return tr("Default ms");
    case BestMsColumn:
      return tr("Best ms");
    case GflopsColumn:
      return tr("GFLOPS");
    case SpeedupColumn:
      return tr("Speed-up");
    case ErrorsColumn:
      return tr("Errors");
  }
  return {};
}

}  // namespace lathe::views

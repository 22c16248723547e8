// The failed candidates' cells.
#include "views/tuning_failures_model.h"

#include <QBrush>
#include <QColor>

namespace lathe::views {

namespace {

// A worker's message can hold a compiler's whole diagnostic; the cell shows its first line.
QString firstLine(const QString& text) {
  const qsizetype end = text.indexOf(QLatin1Char('\n'));
  return end < 0 ? text : text.left(end) + QStringLiteral(" …");
}

}  // namespace

TuningFailuresModel::TuningFailuresModel(QObject* parent) : QAbstractTableModel(parent) {}

void TuningFailuresModel::addFailure(const TuningFailure& failure) {
  const int row = static_cast<int>(rows_.size());
  beginInsertRows(QModelIndex(), row, row);
  rows_.append(failure);
  endInsertRows();
}

void TuningFailuresModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

QString TuningFailuresModel::describe(const TuningFailure& f) {
  QString text = tr("Task %1 (%2), trial %3: %4 error\n%5\n")
                     .arg(f.taskId)
                     .arg(f.taskName)
                     .arg(f.trial)
                     .arg(f.errorKind, f.message.trimmed());
  if (!f.knobs.isEmpty()) text += tr("\nKnobs: %1\n").arg(f.knobs);
  text += f.schedule.trimmed().isEmpty()
              ? tr("\n(no schedule: the configuration did not instantiate)\n")
              : tr("\nSchedule:\n%1\n").arg(f.schedule.trimmed());
  return text;
}

int TuningFailuresModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int TuningFailuresModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuningFailuresModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const TuningFailure& f = rows_[index.row()];
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case TaskColumn:
        return QStringLiteral("%1  %2").arg(f.taskId).arg(f.taskName);
      case TrialColumn:
        return f.trial;
      case KindColumn:
        return f.errorKind;
      case MessageColumn:
        return firstLine(f.message);
      case KnobsColumn:
        return f.knobs;
    }
  } else if (role == Qt::ToolTipRole) {
    if (index.column() == MessageColumn) return f.message;
    if (index.column() == KnobsColumn) return f.knobs;
  } else if (role == Qt::ForegroundRole && index.column() == KindColumn) {
    return QBrush(QColor(0xc0, 0x39, 0x2b));
  } else if (role == Qt::TextAlignmentRole && index.column() == TrialColumn) {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant TuningFailuresModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case TaskColumn:
      return tr("Task");
    case TrialColumn:
      return tr("Trial");
    case KindColumn:
      return tr("Error");
    case MessageColumn:
      return tr("Message");
    case KnobsColumn:
      return tr("Knobs");
  }
  return {};
}

}  // namespace lathe::views

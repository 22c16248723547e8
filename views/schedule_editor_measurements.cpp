// The measurement table's cells.
#include "views/schedule_editor_measurements.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

namespace lathe::views {

MeasurementTableModel::MeasurementTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void MeasurementTableModel::addMeasurement(const ScheduleMeasurement& measurement) {
  const int row = static_cast<int>(rows_.size());
  beginInsertRows(QModelIndex(), row, row);
  rows_.append(measurement);
  endInsertRows();
}

void MeasurementTableModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int MeasurementTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int MeasurementTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant MeasurementTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const ScheduleMeasurement& m = rows_[index.row()];
  const QLocale locale;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case TimeColumn:
        return locale.toString(m.when.time(), QStringLiteral("HH:mm:ss"));
      case MedianColumn:
        return tr("%1 ms").arg(locale.toString(m.median_ms, 'f', 4));
      case BestColumn:
        return tr("%1 ms").arg(locale.toString(m.best_ms, 'f', 4));
      case GflopsColumn:
        return locale.toString(m.gflops, 'f', 2);
      case PeakColumn:
        return m.peak_gflops > 0 ? tr("%1 %").arg(locale.toString(m.percentOfPeak(), 'f', 1))
                                 : tr("n/a");
      case ErrorColumn:
        return QString::number(m.max_error, 'e', 2);
      case CheckColumn:
        return m.correct ? tr("ok") : tr("MISMATCH");
    }
  } else if (role == ValueRole) {
    switch (index.column()) {
      case TimeColumn:
        return m.when;
      case MedianColumn:
        return m.median_ms;
      case BestColumn:
        return m.best_ms;
      case GflopsColumn:
        return m.gflops;
      case PeakColumn:
        return m.percentOfPeak();
      case ErrorColumn:
        return m.max_error;
      case CheckColumn:
        return m.correct;
    }
  } else if (role == Qt::TextAlignmentRole) {
    if (index.column() != TimeColumn && index.column() != CheckColumn)
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  } else if (role == Qt::ForegroundRole && index.column() == CheckColumn) {
    return QBrush(m.correct ? QColor(0x1e, 0x84, 0x49) : QColor(0xc0, 0x39, 0x2b));
  } else if (role == Qt::ToolTipRole) {
    if (index.column() == PeakColumn)
      return m.peak_gflops > 0 ? tr("of the machine's FP32 FMA peak, %1 GFLOPS on all threads")
                                     .arg(locale.toString(m.peak_gflops, 'f', 1))
                               : tr("the machine's peak is not known yet");
    if (index.column() == ErrorColumn || index.column() == CheckColumn)
      return tr("largest normalized error of the outputs against the reference kernels");
    return tr("%n run(s) of:\n%1", nullptr, m.runs).arg(m.schedule.trimmed());
  }
  return {};
}

QVariant MeasurementTableModel::headerData(int section, Qt::Orientation orientation,
                                           int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case TimeColumn:
      return tr("Measured");
    case MedianColumn:
      return tr("Median");
    case BestColumn:
      return tr("Best");
    case GflopsColumn:
      return tr("GFLOPS");
    case PeakColumn:
      return tr("% of peak");
    case ErrorColumn:
      return tr("Max error");
    case CheckColumn:
      return tr("Reference");
  }
  return {};
}

}  // namespace lathe::views

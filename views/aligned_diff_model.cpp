#include "views/aligned_diff_model.h"

#include <QColor>

namespace lathe::views {

using driver::RowChange;

AlignedDiffModel::AlignedDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void AlignedDiffModel::setLines(const QStringList& a, const QStringList& b,
                                const std::vector<driver::AlignedRow>& rows) {
  beginResetModel();
  a_ = a;
  b_ = b;
  rows_ = rows;
  endResetModel();
}

void AlignedDiffModel::setHeaders(const QString& a, const QString& b) {
  headerA_ = a;
  headerB_ = b;
  emit headerDataChanged(Qt::Horizontal, ColumnA, ColumnB);
}

void AlignedDiffModel::clear() {
  setLines({}, {}, {});
}

RowChange AlignedDiffModel::change(int row) const {
  return rows_.at(static_cast<size_t>(row)).change;
}

QColor AlignedDiffModel::background(RowChange change, int column) {
  switch (change) {
    case RowChange::Same:
      return {};
    case RowChange::Changed:
      return QColor(0xff, 0xf0, 0xb3);  // amber
    case RowChange::Removed:
      return column == ColumnA ? QColor(0xff, 0xd6, 0xd6) : QColor(0xee, 0xee, 0xee);
    case RowChange::Added:
      return column == ColumnB ? QColor(0xd3, 0xf5, 0xd8) : QColor(0xee, 0xee, 0xee);
  }
  return {};
}

int AlignedDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int AlignedDiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AlignedDiffModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const driver::AlignedRow& row = rows_[static_cast<size_t>(index.row())];
  const int line = index.column() == ColumnA ? row.a : row.b;
  switch (role) {
    case Qt::DisplayRole:
      return line < 0 ? QString() : (index.column() == ColumnA ? a_ : b_).value(line);
    case Qt::BackgroundRole: {
      const QColor color = background(row.change, index.column());
      return color.isValid() ? QVariant(color) : QVariant();
    }
    case Qt::ForegroundRole:
      // The light backgrounds need dark text whatever the palette.
      return row.change == RowChange::Same ? QVariant() : QVariant(QColor(Qt::black));
    case Qt::ToolTipRole:
      switch (row.change) {
        case RowChange::Same:
          return {};
        case RowChange::Changed:
          return tr("changed: A line %1, B line %2").arg(row.a + 1).arg(row.b + 1);
        case RowChange::Removed:
          return tr("only in A (line %1)").arg(row.a + 1);
        case RowChange::Added:
          return tr("only in B (line %1)").arg(row.b + 1);
      }
      return {};
    case ChangeRole:
      return static_cast<int>(row.change);
    default:
      return {};
  }
}

QVariant AlignedDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Horizontal) return section == ColumnA ? headerA_ : headerB_;
  return section + 1;
}

}  // namespace lathe::views

// Two texts aligned row by row (driver/line_alignment) as a two-column table:
// A's line, B's line, each row coloured by what changed. The schedule diff
// view shows the two schedule texts and the two loop IRs through it; a table
// keeps the columns' rows together as they scroll.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

#include "driver/line_alignment.h"

namespace lathe::views {

class AlignedDiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { ColumnA, ColumnB, ColumnCount };
  // The row's driver::RowChange, as an int, in either column.
  static constexpr int ChangeRole = Qt::UserRole + 1;

  explicit AlignedDiffModel(QObject* parent = nullptr);

  void setLines(const QStringList& a, const QStringList& b,
                const std::vector<driver::AlignedRow>& rows);
  void setHeaders(const QString& a, const QString& b);
  void clear();

  driver::RowChange change(int row) const;
  // The background a row's cell in `column` gets: changed rows in both
  // columns, a removed line on A's side, an added one on B's, and the empty
  // cell beside either greyed.
  static QColor background(driver::RowChange change, int column);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QStringList a_, b_;
  std::vector<driver::AlignedRow> rows_;
  QString headerA_ = QStringLiteral("A"), headerB_ = QStringLiteral("B");
};

}  // namespace lathe::views

// The node table's filter: name or op, smart case.
#include "views/node_filter_proxy_model.h"

#include <algorithm>

#include "views/node_table_model.h"

namespace lathe::views {

NodeFilterProxyModel::NodeFilterProxyModel(QObject* parent) : QSortFilterProxyModel(parent) {
  // Numbers sort as numbers (see NodeTableModel::SortRole).
  setSortRole(NodeTableModel::SortRole);
}

void NodeFilterProxyModel::setFilterText(const QString& text) {
  const QString trimmed = text.trimmed();
  if (trimmed == filterText_) return;
  filterText_ = trimmed;
  const bool hasCapital =
      std::any_of(trimmed.begin(), trimmed.end(), [](QChar c) { return c.isUpper(); });
  filterCase_ = hasCapital ? Qt::CaseSensitive : Qt::CaseInsensitive;
  invalidateFilter();
}

bool NodeFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (filterText_.isEmpty()) return true;
  const QAbstractItemModel* source = sourceModel();
  for (int column : {NodeTableModel::NameColumn, NodeTableModel::OpColumn}) {
    const QString text = source->index(sourceRow, column, sourceParent).data().toString();
    if (text.contains(filterText_, filterCase_)) return true;
  }
  return false;
}

}  // namespace lathe::views

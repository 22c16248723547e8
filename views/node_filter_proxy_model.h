// Sorting and filtering for the node table. A node passes the filter when its
// name or its op contains the filter text, with "smart case" (as in ripgrep and
// vim): the match ignores case unless the text has a capital letter, so "Conv"
// finds the Conv nodes and "conv" every node whose name mentions conv.
#pragma once

#include <QSortFilterProxyModel>
#include <QString>

namespace lathe::views {

class NodeFilterProxyModel : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit NodeFilterProxyModel(QObject* parent = nullptr);

  QString filterText() const { return filterText_; }
  void setFilterText(const QString& text);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString filterText_;
  Qt::CaseSensitivity filterCase_ = Qt::CaseInsensitive;
};

}  // namespace lathe::views

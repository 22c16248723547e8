// Draws a table cell as a progress bar: the fraction from a model role, the
// cell's text on the bar. The tuning view's trials column uses it.
#pragma once

#include <QStyledItemDelegate>

namespace lathe::views {

class TuningProgressDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  // `fractionRole` holds a double from 0 to 1; cells without it paint as usual.
  explicit TuningProgressDelegate(int fractionRole, QObject* parent = nullptr);

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;

 private:
  int fractionRole_;
};

}  // namespace lathe::views

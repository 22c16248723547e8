// The progress bar cell, drawn by the style so it looks like the platform's bars.
#include "views/tuning_progress_delegate.h"

#include <QApplication>
#include <QPainter>
#include <QStyle>
#include <QStyleOption>
#include <algorithm>

namespace lathe::views {

namespace {

// Thousandths: smooth enough for a bar a few hundred pixels wide.
constexpr int kSteps = 1000;

}  // namespace

TuningProgressDelegate::TuningProgressDelegate(int fractionRole, QObject* parent)
    : QStyledItemDelegate(parent), fractionRole_(fractionRole) {}

void TuningProgressDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                   const QModelIndex& index) const {
  const QVariant fraction = index.data(fractionRole_);
  if (!fraction.isValid()) {
    QStyledItemDelegate::paint(painter, option, index);
    return;
  }
  // The row's selection background first, then the bar inset within it.
  QStyleOptionViewItem background = option;
  initStyleOption(&background, index);
  background.text.clear();
  QStyle* style = option.widget ? option.widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ItemViewItem, &background, painter, option.widget);

  QStyleOptionProgressBar bar;
  bar.rect = option.rect.adjusted(2, 2, -2, -2);
  bar.minimum = 0;
  bar.maximum = kSteps;
  bar.progress = static_cast<int>(std::clamp(fraction.toDouble(), 0.0, 1.0) * kSteps);
  bar.text = index.data(Qt::DisplayRole).toString();
  bar.textVisible = true;
  bar.textAlignment = Qt::AlignCenter;
  bar.state = option.state | QStyle::State_Horizontal;
  bar.palette = option.palette;
  bar.fontMetrics = option.fontMetrics;
  style->drawControl(QStyle::CE_ProgressBar, &bar, painter, option.widget);
}

}  // namespace lathe::views

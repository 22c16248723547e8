#include "views/graph_overview.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

namespace lathe::views {

GraphOverview::GraphOverview(QGraphicsView* target) : QWidget(target), target_(target) {
  setObjectName(QStringLiteral("graphOverview"));
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview: click or drag to move the view (O hides it)"));
  // Scrolling and zooming both move the scroll bars or change their ranges.
  for (QScrollBar* bar : {target->horizontalScrollBar(), target->verticalScrollBar()}) {
    connect(bar, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    connect(bar, &QScrollBar::rangeChanged, this, qOverload<>(&QWidget::update));
  }
}

void GraphOverview::renderScene(QSize box, bool sceneChanged) {
  sceneRect_ = target_->sceneRect();
  if (sceneRect_.isEmpty() || box.isEmpty()) {
    image_ = QPixmap();
    resize(0, 0);
    return;
  }
  const QSize size =
      sceneRect_.size().scaled(QSizeF(box), Qt::KeepAspectRatio).toSize().expandedTo({24, 24});
  if (!sceneChanged && !image_.isNull() && size == this->size()) return;
  const qreal ratio = devicePixelRatioF();
  image_ = QPixmap(size * ratio);
  image_.setDevicePixelRatio(ratio);
  image_.fill(QColor(0xfc, 0xfc, 0xfa));
  {
    QPainter painter(&image_);
    painter.setRenderHint(QPainter::Antialiasing);
    // Stretched to the whole pixmap (the minimum size may widen a tall graph),
    // so toScene and fromScene map what is drawn.
    target_->scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), sceneRect_,
                             Qt::IgnoreAspectRatio);
  }
  resize(size);
  update();
}

QRectF GraphOverview::visibleSceneRect() const {
  return target_->mapToScene(target_->viewport()->rect()).boundingRect().intersected(sceneRect_);
}

QPointF GraphOverview::toScene(QPointF pos) const {
  if (sceneRect_.isEmpty() || width() == 0 || height() == 0) return sceneRect_.center();
  return {sceneRect_.left() + pos.x() * sceneRect_.width() / width(),
          sceneRect_.top() + pos.y() * sceneRect_.height() / height()};
}

QPointF GraphOverview::fromScene(QPointF scenePos) const {
  if (sceneRect_.isEmpty()) return {};
  return {(scenePos.x() - sceneRect_.left()) * width() / sceneRect_.width(),
          (scenePos.y() - sceneRect_.top()) * height() / sceneRect_.height()};
}

void GraphOverview::paintEvent(QPaintEvent*) {
  if (image_.isNull()) return;
  QPainter painter(this);
  painter.drawPixmap(0, 0, image_);
  painter.setPen(QPen(QColor(0x90, 0x90, 0x90), 1));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(rect().adjusted(0, 0, -1, -1));
  const QRectF visible = visibleSceneRect();
  if (visible.isEmpty()) return;
  const QRectF shown(fromScene(visible.topLeft()), fromScene(visible.bottomRight()));
  painter.setPen(QPen(QColor(40, 110, 210), 1.5));
  painter.setBrush(QColor(40, 110, 210, 40));
  painter.drawRect(shown.adjusted(0.5, 0.5, -0.5, -0.5));
}

void GraphOverview::mousePressEvent(QMouseEvent* event) {
  target_->centerOn(toScene(event->position()));
  event->accept();
}

void GraphOverview::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) target_->centerOn(toScene(event->position()));
  event->accept();
}

}  // namespace lathe::views

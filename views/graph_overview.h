// The graph view's overview: the whole scene in miniature in a corner of the
// view, the part the view shows outlined; clicking or dragging in it moves the
// view there. The scene is rendered once into a pixmap when it changes, so a
// ResNet-50-sized graph does not repaint all its items on every scroll.
#pragma once

#include <QPixmap>
#include <QRectF>
#include <QWidget>

class QGraphicsView;

namespace lathe::views {

class GraphOverview : public QWidget {
  Q_OBJECT

 public:
  // Shows `target`'s scene; a child of `target`, placed by it.
  explicit GraphOverview(QGraphicsView* target);

  // Resizes to the scene's aspect within `box`, rendering the scene again
  // when it changed or the size did.
  void renderScene(QSize box, bool sceneChanged);
  // The part of the scene the target shows, in scene coordinates.
  QRectF visibleSceneRect() const;
  // The scene point under `pos` (widget coordinates).
  QPointF toScene(QPointF pos) const;
  QPointF fromScene(QPointF scenePos) const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QGraphicsView* target_;
  QPixmap image_;
  QRectF sceneRect_;  // what image_ shows
};

}  // namespace lathe::views

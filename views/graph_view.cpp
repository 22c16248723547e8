// The graph view's scene items and interaction. Geometry comes finished from
// layout_graph (scene units are Graphviz points); this file only paints it.
#include "views/graph_view.h"

#include <QContextMenuEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <QSvgGenerator>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "views/graph_overview.h"

namespace lathe::views {

namespace {

constexpr int kNameRole = 0;
constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 8.0;
constexpr double kZoomStep = 1.2;
// Below this a fitted graph is unreadable: start at a readable zoom at the top instead.
constexpr double kMinReadableFit = 0.55;
constexpr double kStartZoom = 0.85;
// Graphviz sized the boxes for 10 pt labels and 8 pt edge labels.
constexpr int kNodeFontPixels = 10;
constexpr int kEdgeFontPixels = 8;
constexpr int kMaxPngSide = 16000;

QRectF toRect(const LayoutRect& r) {
  return {r.x, r.y, r.width, r.height};
}

QPointF toPoint(const LayoutPoint& p) {
  return {p.x, p.y};
}

QColor categoryColor(OpCategory category) {
  return QColor(QString::fromStdString(op_category_color(category)));
}

// One graph node: a rounded box with the label lines, the op in bold.
class NodeItem : public QGraphicsItem {
 public:
  explicit NodeItem(const LayoutNode& node)
      : box_(toRect(node.box)), fill_(categoryColor(node.category)), io_(node.op.empty()) {
    for (const std::string& line : node.label) lines_ << QString::fromStdString(line);
    setFlag(ItemIsSelectable);
    setData(kNameRole, QString::fromStdString(node.name));
    setToolTip(QStringLiteral("%1\n%2\n%3")
                   .arg(QString::fromStdString(node.name), lines_.join(QLatin1Char('\n')),
                        QString::fromStdString(op_category_name(node.category))));
    setZValue(2);
    setCursor(Qt::PointingHandCursor);
  }

  QRectF boundingRect() const override { return box_.adjusted(-2, -2, 2, 2); }

  void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
    const bool selected = isSelected();
    painter->setPen(selected ? QPen(QColor(0x1a, 0x73, 0xe8), 2.5)
                             : QPen(QColor(0x55, 0x55, 0x55), 1));
    painter->setBrush(fill_);
    const double radius = io_ ? box_.height() / 2 : 4;
    painter->drawRoundedRect(box_, radius, radius);

    QFont font = painter->font();
    font.setPixelSize(kNodeFontPixels);
    const double lineHeight = kNodeFontPixels * 1.2;
    double y = box_.center().y() - lineHeight * lines_.size() / 2;
    painter->setPen(Qt::black);
    for (int i = 0; i < lines_.size(); ++i) {
      font.setBold(i == 0);
      painter->setFont(font);
      const QRectF lineRect(box_.left() + 2, y, box_.width() - 4, lineHeight);
      const QString text = painter->fontMetrics().elidedText(lines_[i], Qt::ElideMiddle,
                                                             static_cast<int>(lineRect.width()));
      painter->drawText(lineRect, Qt::AlignCenter, text);
      y += lineHeight;
    }
  }

 private:
  QRectF box_;
  QColor fill_;
  bool io_;
  QStringList lines_;
};

QPainterPath edgePath(const LayoutEdge& edge) {
  QPainterPath path;
  if (edge.points.empty()) return path;
  path.moveTo(toPoint(edge.points[0]));
  for (size_t i = 1; i + 2 < edge.points.size(); i += 3)
    path.cubicTo(toPoint(edge.points[i]), toPoint(edge.points[i + 1]), toPoint(edge.points[i + 2]));
  return path;
}

QPolygonF arrowHead(QPointF base, QPointF tip) {
  const QPointF d = tip - base;
  const double length = std::hypot(d.x(), d.y());
  if (length < 1e-6) return {};
  const QPointF normal(-d.y() / length, d.x() / length);
  const double half = std::max(2.0, length * 0.45);
  return QPolygonF({tip, base + normal * half, base - normal * half});
}

}  // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing |
                 QPainter::SmoothPixmapTransform);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setBackgroundBrush(QColor(0xfc, 0xfc, 0xfa));
  setFocusPolicy(Qt::StrongFocus);
  connect(scene(), &QGraphicsScene::selectionChanged, this, &GraphView::onSceneSelectionChanged);
  overview_ = new GraphOverview(this);
  overview_->hide();
}

GraphView::~GraphView() {
  // The scene deletes its items after this body: a selected item going away
  // would signal a selection change into a half-destroyed view.
  scene()->disconnect(this);
}

void GraphView::setGraphLayout(std::shared_ptr<const GraphLayout> layout) {
  const QString keep = selectedNodeName();
  layout_ = std::move(layout);
  buildScene();
  fitGraph();
  if (zoomFactor() < kMinReadableFit && layout_) {
    resetTransform();
    scaleBy(kStartZoom);
    // Readable from the start: the top of the drawing, around its first node
    // (a wide graph's middle may be empty space beside its long edges).
    double x = sceneRect().center().x();
    const LayoutNode* first = nullptr;
    for (const LayoutNode& node : layout_->nodes)
      if (!first || node.box.y < first->box.y) first = &node;
    if (first) x = first->box.x + first->box.width / 2;
    centerOn(x, sceneRect().top() + viewport()->height() / 2.0 / kStartZoom);
  }
  if (!keep.isEmpty()) selectNode(keep);
  overviewStale_ = true;
  updateOverview();
}

void GraphView::clearGraph() {
  layout_.reset();
  buildScene();
  overviewStale_ = true;
  updateOverview();
}

void GraphView::setOverviewVisible(bool visible) {
  overviewWanted_ = visible;
  updateOverview();
}

void GraphView::updateOverview() {
  constexpr int kMargin = 8;
  // At most a third of the view each way, and never more than 200 pixels.
  const QRect area = viewport()->geometry();
  const QSize box(std::min(200, area.width() / 3), std::min(200, area.height() / 3));
  if (!overviewWanted_ || !layout_ || box.width() < 40 || box.height() < 40) {
    overview_->hide();
    return;
  }
  overview_->renderScene(box, overviewStale_);
  overviewStale_ = false;
  overview_->move(area.right() - overview_->width() - kMargin,
                  area.bottom() - overview_->height() - kMargin);
  overview_->show();
  overview_->raise();
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  updateOverview();
}

void GraphView::buildScene() {
  selectingQuietly_ = true;
  scene()->clear();
  selectingQuietly_ = false;
  nodeItems_.clear();
  edgeItemCount_ = 0;
  clusterItemCount_ = 0;
  lastSelected_.clear();
  if (!layout_) {
    scene()->setSceneRect(QRectF());
    return;
  }

  QFont clusterFont = font();
  clusterFont.setPixelSize(9);
  clusterFont.setItalic(true);
  for (const LayoutCluster& cluster : layout_->clusters) {
    QPainterPath path;
    path.addRoundedRect(toRect(cluster.box), 6, 6);
    auto* box = scene()->addPath(path, QPen(QColor(0xb0, 0xa5, 0x83), 1, Qt::DashLine),
                                 QColor(0xe8, 0xe0, 0xc8, 110));
    box->setZValue(0);
    box->setToolTip(QString::fromStdString(cluster.name));
    auto* label = scene()->addSimpleText(QString::fromStdString(cluster.name), clusterFont);
    label->setBrush(QColor(0x6b, 0x5f, 0x3c));
    label->setParentItem(box);
    const QRectF r = label->boundingRect();
    label->setPos(toPoint(cluster.label_pos) - QPointF(r.width() / 2, r.height() / 2));
    ++clusterItemCount_;
  }

  QFont edgeFont = font();
  edgeFont.setPixelSize(kEdgeFontPixels);
  const QPen edgePen(QColor(0x66, 0x66, 0x66), 1);
  for (const LayoutEdge& edge : layout_->edges) {
    if (edge.points.empty()) continue;
    auto* line = scene()->addPath(edgePath(edge), edgePen);
    line->setZValue(1);
    if (edge.has_arrow) {
      auto* head = new QGraphicsPolygonItem(
          arrowHead(toPoint(edge.points.back()), toPoint(edge.arrow_tip)), line);
      head->setPen(Qt::NoPen);
      head->setBrush(edgePen.color());
    }
    if (!edge.label.empty()) {
      auto* label = new QGraphicsSimpleTextItem(QString::fromStdString(edge.label), line);
      label->setFont(edgeFont);
      label->setBrush(QColor(0x44, 0x44, 0x44));
      const QRectF r = label->boundingRect();
      label->setPos(toPoint(edge.label_pos) - QPointF(r.width() / 2, r.height() / 2));
    }
    ++edgeItemCount_;
  }

  for (const LayoutNode& node : layout_->nodes) {
    auto* item = new NodeItem(node);
    scene()->addItem(item);
    const QString name = QString::fromStdString(node.name);
    if (!nodeItems_.contains(name)) nodeItems_.insert(name, item);
  }
  constexpr double kMargin = 20;
  scene()->setSceneRect(
      QRectF(0, 0, layout_->width, layout_->height).adjusted(-kMargin, -kMargin, kMargin, kMargin));
}

int GraphView::operatorItemCount() const {
  if (!layout_) return 0;
  int count = 0;
  for (QGraphicsItem* item : nodeItems_) {
    const int index = layout_->find_node(item->data(kNameRole).toString().toStdString());
    if (index >= 0 && layout_->nodes[static_cast<size_t>(index)].graph_node >= 0) ++count;
  }
  return count;
}

QStringList GraphView::nodeNames() const {
  QStringList names;
  if (layout_)
    for (const LayoutNode& node : layout_->nodes) names << QString::fromStdString(node.name);
  return names;
}

QString GraphView::selectedNodeName() const {
  const QList<QGraphicsItem*> selected = scene()->selectedItems();
  return selected.isEmpty() ? QString() : selected.front()->data(kNameRole).toString();
}

double GraphView::zoomFactor() const {
  return transform().m11();
}

QGraphicsItem* GraphView::itemForNode(const QString& name) const {
  return nodeItems_.value(name, nullptr);
}

void GraphView::selectNode(const QString& name) {
  if (selectedNodeName() == name) return;
  selectingQuietly_ = true;
  scene()->clearSelection();
  if (QGraphicsItem* item = itemForNode(name)) {
    item->setSelected(true);
    centerOn(item);
  }
  selectingQuietly_ = false;
  lastSelected_ = selectedNodeName();
}

bool GraphView::findNode(const QString& text) {
  if (!layout_ || text.isEmpty()) return false;
  const auto& nodes = layout_->nodes;
  const int count = static_cast<int>(nodes.size());
  int current = layout_->find_node(selectedNodeName().toStdString());
  // A node named exactly so comes first, then every node containing the text
  // in its name or op, one per call.
  // Only when a search starts: while cycling through matches the selection
  // contains the text, and the order below goes on from it.
  if (!selectedNodeName().contains(text, Qt::CaseInsensitive)) {
    for (int i = 0; i < count; ++i)
      if (QString::fromStdString(nodes[static_cast<size_t>(i)].name)
              .compare(text, Qt::CaseInsensitive) == 0)
        current = i - 1;
  }
  for (int step = 1; step <= count; ++step) {
    const LayoutNode& node = nodes[static_cast<size_t>((current + step + count) % count)];
    const QString name = QString::fromStdString(node.name);
    if (!name.contains(text, Qt::CaseInsensitive) &&
        !QString::fromStdString(node.op).contains(text, Qt::CaseInsensitive))
      continue;
    // Cleared quietly: followers should jump to the match, not clear first.
    selectingQuietly_ = true;
    scene()->clearSelection();
    selectingQuietly_ = false;
    if (QGraphicsItem* item = itemForNode(name)) {
      item->setSelected(true);
      centerOn(item);
    }
    return true;
  }
  return false;
}

void GraphView::onSceneSelectionChanged() {
  if (selectingQuietly_) return;
  const QString name = selectedNodeName();
  if (name == lastSelected_) return;
  lastSelected_ = name;
  emit nodeSelected(name);
}

void GraphView::scaleBy(double factor) {
  const double target = std::clamp(zoomFactor() * factor, kMinZoom, kMaxZoom);
  if (zoomFactor() > 0) factor = target / zoomFactor();
  scale(factor, factor);
}

void GraphView::zoomIn() {
  scaleBy(kZoomStep);
}

void GraphView::zoomOut() {
  scaleBy(1 / kZoomStep);
}

void GraphView::fitGraph() {
  if (!layout_) return;
  resetTransform();
  fitInView(sceneRect(), Qt::KeepAspectRatio);
  if (zoomFactor() > 1.5) {
    resetTransform();
    scale(1.5, 1.5);
    centerOn(sceneRect().center());
  }
}

void GraphView::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & Qt::ControlModifier) {
    const int delta = event->angleDelta().y();
    if (delta != 0) scaleBy(std::pow(kZoomStep, delta / 120.0));
    event->accept();
    return;
  }
  QGraphicsView::wheelEvent(event);
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomIn();
      return;
    case Qt::Key_Minus:
      zoomOut();
      return;
    case Qt::Key_F:
      fitGraph();
      return;
    case Qt::Key_O:
      setOverviewVisible(!overviewWanted_);
      return;
    default:
      QGraphicsView::keyPressEvent(event);
  }
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("Fit (F)"), this, &GraphView::fitGraph);
  menu.addAction(tr("Zoom In (+)"), this, &GraphView::zoomIn);
  menu.addAction(tr("Zoom Out (-)"), this, &GraphView::zoomOut);
  QAction* overview = menu.addAction(tr("Overview (O)"), this,
                                     [this](bool checked) { setOverviewVisible(checked); });
  overview->setCheckable(true);
  overview->setChecked(overviewWanted_);
  menu.addSeparator();
  menu.addAction(tr("Export…"), this, &GraphView::chooseExportFile)->setEnabled(layout_ != nullptr);
  menu.exec(event->globalPos());
}

void GraphView::chooseExportFile() {
  if (!layout_) return;
  const QString svg = tr("SVG image (*.svg)");
  const QString png = tr("PNG image (*.png)");
  const QString dot = tr("Graphviz DOT (*.dot *.gv)");
  QString filter = svg;
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export Graph"), QString(),
                                   QStringList{svg, png, dot}.join(QStringLiteral(";;")), &filter);
  if (path.isEmpty()) return;
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png") || (suffix.isEmpty() && filter == png))
    exportPng(path);
  else if (suffix == QLatin1String("dot") || suffix == QLatin1String("gv") ||
           (suffix.isEmpty() && filter == dot))
    exportDot(path);
  else
    exportSvg(path);
}

bool GraphView::exportSvg(const QString& path) const {
  if (!layout_) return false;
  const QRectF source = sceneRect();
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(source.size().toSize());
  generator.setViewBox(QRectF(QPointF(0, 0), source.size()));
  generator.setTitle(QStringLiteral("Lathe graph"));
  QPainter painter;
  if (!painter.begin(&generator)) return false;
  painter.fillRect(QRectF(QPointF(0, 0), source.size()), backgroundBrush());
  scene()->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
  return painter.end();
}

bool GraphView::exportPng(const QString& path) const {
  if (!layout_) return false;
  const QRectF source = sceneRect();
  // Twice the scene's resolution, as long as the image stays of a sane size.
  const double scale = std::min(2.0, kMaxPngSide / std::max(source.width(), source.height()));
  QImage image((source.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return false;
  image.fill(backgroundBrush().color());
  QPainter painter(&image);
  painter.setRenderHints(renderHints());
  scene()->render(&painter, QRectF(image.rect()), source);
  painter.end();
  return image.save(path, "PNG");
}

bool GraphView::exportDot(const QString& path) const {
  if (!layout_) return false;
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  const QByteArray text = QByteArray::fromStdString(layout_->dot);
  return file.write(text) == text.size();
}

}  // namespace lathe::views

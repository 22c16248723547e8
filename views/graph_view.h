// Draws a GraphLayout: nodes as rounded boxes coloured by op category, edges
// with their tensor shapes, fused groups as labelled translucent boxes. Zoom
// with Ctrl+wheel or +/-, pan by dragging, F fits; exports SVG, PNG and DOT.
#pragma once

#include <QGraphicsView>
#include <QHash>
#include <QString>
#include <QStringList>
#include <memory>

#include "views/graph_layout.h"

class QGraphicsItem;

namespace lathe::views {

class GraphOverview;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // Replaces what is shown; keeps the selected node when the new layout has it.
  void setGraphLayout(std::shared_ptr<const GraphLayout> layout);
  void clearGraph();
  const GraphLayout* graphLayout() const { return layout_.get(); }

  // Items drawn, for the tests and the status line.
  int operatorItemCount() const;  // nodes of the graph, without graph inputs/outputs
  int nodeItemCount() const { return static_cast<int>(nodeItems_.size()); }
  int edgeItemCount() const { return edgeItemCount_; }
  int clusterItemCount() const { return clusterItemCount_; }
  QStringList nodeNames() const;

  QString selectedNodeName() const;
  double zoomFactor() const;
  // The miniature of the whole graph in the bottom right corner (key O toggles it).
  GraphOverview* overview() const { return overview_; }
  void setOverviewVisible(bool visible);

  // Selects the next node (after the current one) whose name or op contains
  // `text`, case-insensitively, centres on it and emits nodeSelected.
  // Returns false when no node matches.
  bool findNode(const QString& text);

  bool exportSvg(const QString& path) const;
  bool exportPng(const QString& path) const;
  bool exportDot(const QString& path) const;

 public slots:
  // Selects and centres on `name` without emitting nodeSelected (it is how
  // another view follows this one); an unknown name clears the selection.
  void selectNode(const QString& name);
  void zoomIn();
  void zoomOut();
  void fitGraph();
  // The export dialogs behind the context menu.
  void chooseExportFile();

 signals:
  // The user selected a node (by click or search); empty when cleared.
  void nodeSelected(const QString& name);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  void buildScene();
  void scaleBy(double factor);
  void onSceneSelectionChanged();
  // Renders and places the overview after the scene or the view changed size.
  void updateOverview();
  QGraphicsItem* itemForNode(const QString& name) const;

  std::shared_ptr<const GraphLayout> layout_;
  QHash<QString, QGraphicsItem*> nodeItems_;
  int edgeItemCount_ = 0;
  int clusterItemCount_ = 0;
  bool selectingQuietly_ = false;
  QString lastSelected_;
  GraphOverview* overview_ = nullptr;
  bool overviewWanted_ = true;
  bool overviewStale_ = true;  // the scene changed since the overview was rendered
};

}  // namespace lathe::views

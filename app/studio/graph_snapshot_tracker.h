// Runs the graph passes and the Graphviz layouts off the GUI thread for the
// graph views, latest request wins (as ModelLoadTracker): optimising a newly
// opened model supersedes the previous one, and choosing another snapshot
// supersedes a layout still running.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "ir/graph.h"
#include "passes/pipeline.h"
#include "views/graph_layout.h"

namespace lathe::studio {

// One model's graph before and after every pass, with the two layouts shown first.
struct GraphSnapshots {
  QString path;
  Graph original;
  passes::OptimizedGraph optimized;  // its snapshots: one per pass, fuse_ops last
  std::shared_ptr<const views::GraphLayout> original_layout;
  std::shared_ptr<const views::GraphLayout> fused_layout;  // of the last snapshot
  qint64 milliseconds = 0;                                 // passes and both layouts
};

class GraphSnapshotTracker : public QObject {
  Q_OBJECT

 public:
  explicit GraphSnapshotTracker(QObject* parent = nullptr);

  // Optimises `graph` with snapshots and lays out the original and the fused graph.
  void compute(const QString& path, std::shared_ptr<const Graph> graph);
  // Lays out snapshot `index` of `snapshots` (its groups as clusters, if any).
  void layOut(std::shared_ptr<const GraphSnapshots> snapshots, int index);
  bool isBusy() const { return computing_ || layingOut_; }

 signals:
  void busyChanged(bool busy);
  void computed(std::shared_ptr<const GraphSnapshots> snapshots);
  void failed(const QString& path, const QString& message);
  void laidOut(std::shared_ptr<const GraphSnapshots> snapshots, int index,
               std::shared_ptr<const views::GraphLayout> layout);

 private:
  void setState(bool computing, bool layingOut);

  quint64 latestCompute_ = 0;
  quint64 latestLayout_ = 0;
  bool computing_ = false;
  bool layingOut_ = false;
};

}  // namespace lathe::studio

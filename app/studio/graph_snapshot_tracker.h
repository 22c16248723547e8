// Runs the graph passes and the Graphviz layouts off the GUI thread for the
// graph views, latest request wins (as ModelLoadTracker): optimising a newly
// opened model supersedes the previous one, and choosing another snapshot
// supersedes a layout still running. The passes report first, so that the
// fused groups, the Schedule and the Tuning tabs never wait for a layout;
// each pane's layout then reports on its own.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "driver/optimized_graph.h"
#include "ir/graph.h"
#include "views/graph_layout.h"

namespace lathe::studio {

// One model's graph before and after every pass.
struct GraphSnapshots {
  QString path;
  Graph original;
  driver::OptimizedGraph optimized;  // its snapshots: one per pass, fuse_ops last
  qint64 milliseconds = 0;           // the passes
};

class GraphSnapshotTracker : public QObject {
  Q_OBJECT

 public:
  explicit GraphSnapshotTracker(QObject* parent = nullptr);

  // Optimises `graph` with snapshots.
  void compute(const QString& path, std::shared_ptr<const Graph> graph);
  // Lays out the graph as imported.
  void layOutOriginal(std::shared_ptr<const GraphSnapshots> snapshots);
  // Lays out snapshot `index` of `snapshots` (its groups as clusters, if any).
  void layOut(std::shared_ptr<const GraphSnapshots> snapshots, int index);
  // Stops every layout still running (their workers are killed); each
  // reports layoutCancelled instead of its result.
  void cancelLayouts();
  bool isBusy() const { return running_ > 0; }
  bool isLayingOut() const { return !cancelFlags_.empty(); }
  // Whether the newest layout of the original graph is still running.
  bool isLayingOutOriginal() const;

 signals:
  void busyChanged(bool busy);
  void computed(std::shared_ptr<const GraphSnapshots> snapshots);
  void failed(const QString& path, const QString& message);
  void originalLaidOut(std::shared_ptr<const GraphSnapshots> snapshots,
                       std::shared_ptr<const views::GraphLayout> layout);
  void laidOut(std::shared_ptr<const GraphSnapshots> snapshots, int index,
               std::shared_ptr<const views::GraphLayout> layout);
  void layoutCancelled(const QString& path);
  void layingOutChanged(bool layingOut);

 private:
  // Runs `layout` in the pool as the newest request counted by `latest`;
  // `deliver` gets its result on the GUI thread unless a newer one came since.
  void startLayout(std::function<views::GraphLayout(const std::atomic<bool>*)> layout,
                   quint64* latest, const QString& path,
                   std::function<void(std::shared_ptr<const views::GraphLayout>)> deliver);
  void setRunning(int delta);

  quint64 latestCompute_ = 0;
  quint64 latestOriginal_ = 0;
  quint64 latestLayout_ = 0;
  int running_ = 0;
  // The cancel flags of the layouts running now, and of the newest one per
  // request counter (pane): a newer request stops the one it supersedes.
  std::set<std::shared_ptr<std::atomic<bool>>> cancelFlags_;
  std::map<const quint64*, std::shared_ptr<std::atomic<bool>>> newestFlag_;
};

}  // namespace lathe::studio

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
#include <memory>

#include "driver/optimized_graph.h"
#include "driver/target.h"
#include "ir/graph.h"
#include "views/graph_layout.h"
#include "views/job_tracker.h"

namespace lathe::studio {

// One model's graph before and after every pass, for one target.
struct GraphSnapshots {
  QString path;
  driver::Target target;  // what the kernels compile for: the passes lay out for it
  Graph original;
  driver::OptimizedGraph optimized;  // its snapshots: one per pass, fuse_ops last
  qint64 milliseconds = 0;           // the passes
};

class GraphSnapshotTracker : public QObject {
  Q_OBJECT

 public:
  explicit GraphSnapshotTracker(QObject* parent = nullptr);

  // Optimises `graph` with snapshots for `target`: a CPU's vector layout
  // (NCHWc) for llvm, the plain layouts for a GPU, as `lathe compile` does.
  void compute(const QString& path, std::shared_ptr<const Graph> graph,
               const driver::Target& target = driver::Target::host());
  // Lays out the graph as imported.
  void layOutOriginal(std::shared_ptr<const GraphSnapshots> snapshots);
  // Lays out snapshot `index` of `snapshots` (its groups as clusters, if any).
  void layOut(std::shared_ptr<const GraphSnapshots> snapshots, int index);
  // Stops the layouts still running (their workers are killed); each pane's
  // newest reports layoutCancelled instead of its result.
  void cancelLayouts();
  // Whether the passes or a pane's newest layout are still running.
  bool isBusy() const { return busy_; }
  bool isLayingOut() const { return layingOut_; }
  // Whether the newest layout of the original graph is still running, not cancelled.
  bool isLayingOutOriginal() const {
    return originalLayouts_.isBusy() && !originalLayouts_.isStopRequested();
  }

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
  // Lays out in the pool as the newest request of `pane`; `deliver` gets the
  // layout on the GUI thread.
  void startLayout(views::JobTracker& pane,
                   std::function<views::GraphLayout(const std::atomic<bool>*)> layout,
                   const QString& path,
                   std::function<void(std::shared_ptr<const views::GraphLayout>)> deliver);
  void updateBusy();

  views::JobTracker passes_{this};
  // One per pane: a newer layout of a pane stops the one it supersedes.
  views::JobTracker originalLayouts_{this};
  views::JobTracker snapshotLayouts_{this};
  bool busy_ = false;       // as last announced
  bool layingOut_ = false;  // as last announced
};

}  // namespace lathe::studio

// Background graph passes and layouts: each job runs in a pool thread on its
// own copies, results come back through QFutureWatcher on the GUI thread.
#include "studio/graph_snapshot_tracker.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace lathe::studio {

namespace {

struct ComputeOutcome {
  std::shared_ptr<const GraphSnapshots> snapshots;  // null on failure
  QString message;
};

struct LayoutOutcome {
  std::shared_ptr<const views::GraphLayout> layout;  // null on failure
  QString message;
};

ComputeOutcome computeSnapshots(const QString& path, std::shared_ptr<const Graph> graph) {
  ComputeOutcome outcome;
  QElapsedTimer timer;
  timer.start();
  try {
    auto result = std::make_shared<GraphSnapshots>();
    result->path = path;
    result->original = *graph;
    result->optimized =
        passes::optimize_graph(*graph, {.alter_layout = true, .record_snapshots = true});
    result->original_layout =
        std::make_shared<views::GraphLayout>(views::layout_graph(result->original));
    // The last snapshot is the fused graph; without snapshots, the result is.
    const auto& snapshots = result->optimized.snapshots;
    const Graph& fused = snapshots.empty() ? result->optimized.graph : snapshots.back().graph;
    const auto& groups = snapshots.empty() ? result->optimized.groups : snapshots.back().groups;
    result->fused_layout = std::make_shared<views::GraphLayout>(views::layout_graph(fused, groups));
    result->milliseconds = timer.elapsed();
    outcome.snapshots = std::move(result);
  } catch (const std::exception& e) {
    outcome.message = QString::fromStdString(e.what());
  } catch (...) {
    outcome.message = QStringLiteral("unknown error while optimising the graph");
  }
  return outcome;
}

LayoutOutcome layOutSnapshot(std::shared_ptr<const GraphSnapshots> snapshots, int index) {
  LayoutOutcome outcome;
  try {
    const auto& list = snapshots->optimized.snapshots;
    if (index < 0 || index >= static_cast<int>(list.size())) {
      outcome.message = QStringLiteral("no snapshot %1").arg(index);
      return outcome;
    }
    const passes::GraphSnapshot& snapshot = list[static_cast<size_t>(index)];
    outcome.layout =
        std::make_shared<views::GraphLayout>(views::layout_graph(snapshot.graph, snapshot.groups));
  } catch (const std::exception& e) {
    outcome.message = QString::fromStdString(e.what());
  } catch (...) {
    outcome.message = QStringLiteral("unknown error while laying out the graph");
  }
  return outcome;
}

}  // namespace

GraphSnapshotTracker::GraphSnapshotTracker(QObject* parent) : QObject(parent) {}

void GraphSnapshotTracker::compute(const QString& path, std::shared_ptr<const Graph> graph) {
  const quint64 request = ++latestCompute_;
  ++latestLayout_;  // a layout of the previous model's snapshots is moot now
  auto* watcher = new QFutureWatcher<ComputeOutcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, request, path] {
    watcher->deleteLater();
    if (request != latestCompute_) return;
    const ComputeOutcome outcome = watcher->result();
    setState(false, false);
    if (outcome.snapshots)
      emit computed(outcome.snapshots);
    else
      emit failed(path, outcome.message);
  });
  watcher->setFuture(QtConcurrent::run(computeSnapshots, path, std::move(graph)));
  setState(true, false);
}

void GraphSnapshotTracker::layOut(std::shared_ptr<const GraphSnapshots> snapshots, int index) {
  const quint64 request = ++latestLayout_;
  auto* watcher = new QFutureWatcher<LayoutOutcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, request, snapshots, index] {
    watcher->deleteLater();
    if (request != latestLayout_) return;
    const LayoutOutcome outcome = watcher->result();
    setState(computing_, false);
    if (outcome.layout)
      emit laidOut(snapshots, index, outcome.layout);
    else
      emit failed(snapshots->path, outcome.message);
  });
  watcher->setFuture(QtConcurrent::run(layOutSnapshot, snapshots, index));
  setState(computing_, true);
}

void GraphSnapshotTracker::setState(bool computing, bool layingOut) {
  const bool wasBusy = isBusy();
  computing_ = computing;
  layingOut_ = layingOut;
  if (wasBusy != isBusy()) emit busyChanged(isBusy());
}

}  // namespace lathe::studio

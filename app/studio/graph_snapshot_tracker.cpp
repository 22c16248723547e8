// Background graph passes and layouts: each job runs in a pool thread on its
// own copies, and its outcome comes back on the GUI thread.
#include "studio/graph_snapshot_tracker.h"

#include <QElapsedTimer>
#include <exception>

#include "driver/target.h"

namespace lathe::studio {

namespace {

struct ComputeOutcome {
  std::shared_ptr<const GraphSnapshots> snapshots;  // null on failure
  QString message;
};

struct LayoutOutcome {
  std::shared_ptr<const views::GraphLayout> layout;  // null on failure
  QString message;
  bool cancelled = false;
};

ComputeOutcome computeSnapshots(const QString& path, std::shared_ptr<const Graph> graph,
                                const driver::Target& target) {
  ComputeOutcome outcome;
  QElapsedTimer timer;
  timer.start();
  try {
    auto result = std::make_shared<GraphSnapshots>();
    result->path = path;
    result->target = target;
    result->original = *graph;
    // The target's vector unit decides the layout; NCHWc channel blocks are
    // the CPU's, GPU kernels keep NCHW (as `lathe compile --target cuda`).
    result->optimized = driver::optimize_graph(
        *graph, {.alter_layout = !target.is_gpu(),
                 .gpu = target.is_gpu(),
                 .record_snapshots = true,
                 .vector_unit = target.vector_unit(),
                 // The plugins' codegens (oneDNN) run on the CPU.
                 .external_codegens =
                     target.is_gpu() ? std::optional(std::vector<std::string>{}) : std::nullopt});
    result->milliseconds = timer.elapsed();
    outcome.snapshots = std::move(result);
  } catch (const std::exception& e) {
    outcome.message = QString::fromStdString(e.what());
  } catch (...) {
    outcome.message = QStringLiteral("unknown error while optimising the graph");
  }
  return outcome;
}

LayoutOutcome runLayout(const std::function<views::GraphLayout(const std::atomic<bool>*)>& layout,
                        const std::atomic<bool>& cancel) {
  LayoutOutcome outcome;
  try {
    outcome.layout = std::make_shared<views::GraphLayout>(layout(&cancel));
  } catch (const views::LayoutCancelled&) {
    outcome.cancelled = true;
  } catch (const std::exception& e) {
    outcome.message = QString::fromStdString(e.what());
  } catch (...) {
    outcome.message = QStringLiteral("unknown error while laying out the graph");
  }
  return outcome;
}

}  // namespace

GraphSnapshotTracker::GraphSnapshotTracker(QObject* parent) : QObject(parent) {
  for (views::JobTracker* jobs : {&passes_, &originalLayouts_, &snapshotLayouts_})
    connect(jobs, &views::JobTracker::busyChanged, this, &GraphSnapshotTracker::updateBusy);
}

void GraphSnapshotTracker::compute(const QString& path, std::shared_ptr<const Graph> graph,
                                   const driver::Target& target) {
  // Layouts of the previous model's snapshots are moot now: stop them.
  originalLayouts_.drop();
  snapshotLayouts_.drop();
  passes_.start(
      [path, graph = std::move(graph), target] { return computeSnapshots(path, graph, target); },
      [this, path](const ComputeOutcome& outcome) {
        if (outcome.snapshots)
          emit computed(outcome.snapshots);
        else
          emit failed(path, outcome.message);
      });
}

void GraphSnapshotTracker::layOutOriginal(std::shared_ptr<const GraphSnapshots> snapshots) {
  startLayout(
      originalLayouts_,
      [snapshots](const std::atomic<bool>* cancel) {
        return views::layout_graph(snapshots->original, {}, cancel);
      },
      snapshots->path,
      [this, snapshots](std::shared_ptr<const views::GraphLayout> layout) {
        emit originalLaidOut(snapshots, std::move(layout));
      });
}

void GraphSnapshotTracker::layOut(std::shared_ptr<const GraphSnapshots> snapshots, int index) {
  const auto& list = snapshots->optimized.snapshots;
  if (index < 0 || index >= static_cast<int>(list.size())) {
    emit failed(snapshots->path, QStringLiteral("no snapshot %1").arg(index));
    return;
  }
  startLayout(
      snapshotLayouts_,
      [snapshots, index](const std::atomic<bool>* cancel) {
        const driver::GraphSnapshot& s = snapshots->optimized.snapshots[static_cast<size_t>(index)];
        return views::layout_graph(s.graph, s.groups, cancel);
      },
      snapshots->path,
      [this, snapshots, index](std::shared_ptr<const views::GraphLayout> layout) {
        emit laidOut(snapshots, index, std::move(layout));
      });
}

void GraphSnapshotTracker::startLayout(
    views::JobTracker& pane, std::function<views::GraphLayout(const std::atomic<bool>*)> layout,
    const QString& path, std::function<void(std::shared_ptr<const views::GraphLayout>)> deliver) {
  pane.start([layout = std::move(layout)](
                 const std::atomic<bool>& cancel) { return runLayout(layout, cancel); },
             [this, path, deliver = std::move(deliver)](const LayoutOutcome& outcome) {
               if (outcome.cancelled)
                 emit layoutCancelled(path);
               else if (outcome.layout)
                 deliver(outcome.layout);
               else
                 emit failed(path, outcome.message);
             });
}

void GraphSnapshotTracker::cancelLayouts() {
  originalLayouts_.stop();
  snapshotLayouts_.stop();
}

void GraphSnapshotTracker::updateBusy() {
  const bool layingOut = originalLayouts_.isBusy() || snapshotLayouts_.isBusy();
  const bool busy = passes_.isBusy() || layingOut;
  if (layingOut != layingOut_) {
    layingOut_ = layingOut;
    emit layingOutChanged(layingOut);
  }
  if (busy != busy_) {
    busy_ = busy;
    emit busyChanged(busy);
  }
}

}  // namespace lathe::studio

// Background graph passes and layouts: each job runs in a pool thread on its
// own copies, results come back through QFutureWatcher on the GUI thread.
#include "studio/graph_snapshot_tracker.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
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

ComputeOutcome computeSnapshots(const QString& path, std::shared_ptr<const Graph> graph) {
  ComputeOutcome outcome;
  QElapsedTimer timer;
  timer.start();
  try {
    auto result = std::make_shared<GraphSnapshots>();
    result->path = path;
    result->original = *graph;
    // The studio compiles for this machine: its vector unit decides the layout.
    result->optimized =
        driver::optimize_graph(*graph, {.alter_layout = true,
                                        .record_snapshots = true,
                                        .vector_unit = driver::Target::host().vector_unit()});
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
                        std::shared_ptr<std::atomic<bool>> cancel) {
  LayoutOutcome outcome;
  try {
    outcome.layout = std::make_shared<views::GraphLayout>(layout(cancel.get()));
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

GraphSnapshotTracker::GraphSnapshotTracker(QObject* parent) : QObject(parent) {}

void GraphSnapshotTracker::compute(const QString& path, std::shared_ptr<const Graph> graph) {
  const quint64 request = ++latestCompute_;
  // Layouts of the previous model's snapshots are moot now: stop them.
  ++latestOriginal_;
  ++latestLayout_;
  cancelLayouts();
  auto* watcher = new QFutureWatcher<ComputeOutcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, request, path] {
    watcher->deleteLater();
    setRunning(-1);
    if (request != latestCompute_) return;
    const ComputeOutcome outcome = watcher->result();
    if (outcome.snapshots)
      emit computed(outcome.snapshots);
    else
      emit failed(path, outcome.message);
  });
  setRunning(+1);
  watcher->setFuture(QtConcurrent::run(computeSnapshots, path, std::move(graph)));
}

void GraphSnapshotTracker::layOutOriginal(std::shared_ptr<const GraphSnapshots> snapshots) {
  startLayout(
      [snapshots](const std::atomic<bool>* cancel) {
        return views::layout_graph(snapshots->original, {}, cancel);
      },
      &latestOriginal_, snapshots->path,
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
      [snapshots, index](const std::atomic<bool>* cancel) {
        const driver::GraphSnapshot& s = snapshots->optimized.snapshots[static_cast<size_t>(index)];
        return views::layout_graph(s.graph, s.groups, cancel);
      },
      &latestLayout_, snapshots->path,
      [this, snapshots, index](std::shared_ptr<const views::GraphLayout> layout) {
        emit laidOut(snapshots, index, std::move(layout));
      });
}

void GraphSnapshotTracker::startLayout(
    std::function<views::GraphLayout(const std::atomic<bool>*)> layout, quint64* latest,
    const QString& path, std::function<void(std::shared_ptr<const views::GraphLayout>)> deliver) {
  const quint64 request = ++*latest;
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  // Its worker would only lay out what nobody will see.
  if (auto& superseded = newestFlag_[latest]) superseded->store(true);
  newestFlag_[latest] = cancel;
  auto* watcher = new QFutureWatcher<LayoutOutcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [this, watcher, latest, request, path, cancel, deliver = std::move(deliver)] {
            watcher->deleteLater();
            cancelFlags_.erase(cancel);
            if (cancelFlags_.empty()) emit layingOutChanged(false);
            setRunning(-1);
            const LayoutOutcome outcome = watcher->result();
            if (outcome.cancelled) {
              if (request == *latest) emit layoutCancelled(path);
              return;
            }
            if (request != *latest) return;
            if (outcome.layout)
              deliver(outcome.layout);
            else
              emit failed(path, outcome.message);
          });
  if (cancelFlags_.empty()) emit layingOutChanged(true);
  cancelFlags_.insert(cancel);
  setRunning(+1);
  watcher->setFuture(QtConcurrent::run(runLayout, std::move(layout), cancel));
}

bool GraphSnapshotTracker::isLayingOutOriginal() const {
  auto it = newestFlag_.find(&latestOriginal_);
  return it != newestFlag_.end() && cancelFlags_.count(it->second) && !it->second->load();
}

void GraphSnapshotTracker::cancelLayouts() {
  for (const auto& flag : cancelFlags_) flag->store(true);
}

void GraphSnapshotTracker::setRunning(int delta) {
  const bool wasBusy = isBusy();
  running_ += delta;
  if (wasBusy != isBusy()) emit busyChanged(isBusy());
}

}  // namespace lathe::studio

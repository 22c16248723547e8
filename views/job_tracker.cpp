// The bookkeeping of JobTracker on its context's thread: which request is the
// newest, how to stop it, what waits, and whether the tracker is busy.
#include "views/job_tracker.h"

namespace lathe::views {

JobTracker::JobTracker(QObject* context, Overlap overlap) : QObject(context), overlap_(overlap) {}

JobTracker::~JobTracker() {
  if (stopNewest_) stopNewest_();
}

void JobTracker::submit(Launch launch) {
  const quint64 id = ++newest_;
  // The request it supersedes would only compute what nobody will see.
  if (stopNewest_) stopNewest_();
  stopNewest_ = nullptr;
  newestPending_ = true;
  newestStopRequested_ = false;
  if (overlap_ == Overlap::Serial && running_ > 0)
    waiting_.emplace(id, std::move(launch));
  else
    run(id, launch);
  updateBusy();
}

void JobTracker::run(quint64 id, Launch& launch) {
  ++running_;
  stopNewest_ = launch(id, newestStopRequested_);
  if (newestStopRequested_) stopNewest_();
}

bool JobTracker::jobEnded(quint64 id) {
  --running_;
  const bool delivered = id == newest_;
  if (delivered) {
    newestPending_ = false;
    stopNewest_ = nullptr;
  }
  if (waiting_ && running_ == 0) {
    auto [next, launch] = std::move(*waiting_);
    waiting_.reset();
    run(next, launch);
  }
  updateBusy();
  return delivered;
}

void JobTracker::stop() {
  if (!newestPending_) return;
  newestStopRequested_ = true;
  if (stopNewest_) stopNewest_();
}

void JobTracker::drop() {
  ++newest_;
  if (stopNewest_) stopNewest_();
  stopNewest_ = nullptr;
  waiting_.reset();
  newestPending_ = false;
  newestStopRequested_ = false;
  updateBusy();
}

void JobTracker::updateBusy() {
  if (busy_ == isBusy()) return;
  busy_ = isBusy();
  emit busyChanged(busy_);
}

}  // namespace lathe::views

// The studio's one "latest request wins" background job (after hotspot's
// JobTracker): each start() is a request that supersedes the one before; the
// job runs in Qt's thread pool and only the newest request's outcome reaches
// its callbacks, on the thread of the tracker's context. A superseded job is
// asked to stop and runs to its end unheard. The tracker is a child of its
// context, so once the context is destroyed no callback runs.
//
// Two kinds of job:
//   start(job, onResult)           job() -> Result, or job(const std::atomic<bool>& stop)
//                                  -> Result for one that can end early;
//   startStreaming<Event>(job, onEvent, onFinished)
//                                  job(QPromise<Event>&) reports events as the
//                                  promise's results; onEvent gets each in order,
//                                  onFinished(stopped) the end.
// Jobs must catch their own exceptions (a result type with an error field):
// a job that throws would rethrow on the GUI thread.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace lathe::views {

class JobTracker : public QObject {
  Q_OBJECT

 public:
  // What a newer request does while an older job runs.
  enum class Overlap {
    // The newer job starts at once beside the older one.
    Parallel,
    // The newer job waits until the older one has ended, and a still newer
    // request replaces the one waiting: for work two of which must never run
    // at once (timings) or that would only queue up (a preview per keystroke).
    Serial,
  };

  explicit JobTracker(QObject* context, Overlap overlap = Overlap::Parallel);
  // Asks the job running to stop; it ends in the background, unheard.
  ~JobTracker() override;

  // Runs `job` in the pool; onResult(result) follows unless a newer request or
  // drop() comes first. onDropped() follows instead when the job ends superseded
  // or dropped (a request replaced while waiting never runs, and hears nothing).
  template <typename Job, typename OnResult, typename OnDropped = void (*)()>
  void start(
      Job job, OnResult onResult, OnDropped onDropped = [] {});

  // Runs job(promise) in the pool; onEvent(event) follows for each result the
  // job adds, in order, then onFinished(stopped) with whether stop() was
  // called on it, unless a newer request or drop() comes first. The events a
  // job adds after it was asked to stop are lost.
  template <typename Event, typename Job, typename OnEvent, typename OnFinished = void (*)(bool)>
  void startStreaming(
      Job job, OnEvent onEvent, OnFinished onFinished = [](bool) {});

  // Asks the newest job to stop (its stop flag, or its promise's isCanceled());
  // its outcome still arrives. A job still waiting starts with its flag set,
  // or, streaming, never runs and only finishes.
  void stop();
  // Abandons the newest request: it is asked to stop and nothing of it arrives.
  void drop();

  // Whether the newest request's outcome is still to come. Serial trackers
  // are also busy while a dropped job runs, since nothing else may start then.
  bool isBusy() const { return newestPending_ || (overlap_ == Overlap::Serial && running_ > 0); }
  // Whether stop() was called on the newest request, whose outcome is to come.
  bool isStopRequested() const { return newestPending_ && newestStopRequested_; }

 signals:
  void busyChanged(bool busy);

 private:
  using StopHook = std::function<void()>;
  // Starts request `id` in the pool, asked to stop from the start if
  // `stopped`, and returns how to ask it to stop.
  using Launch = std::function<StopHook(quint64 id, bool stopped)>;

  void submit(Launch launch);
  void run(quint64 id, Launch& launch);
  // Books the end of job `id` (and starts a waiting one); true when its outcome is delivered.
  bool jobEnded(quint64 id);
  void updateBusy();

  Overlap overlap_;
  quint64 newest_ = 0;  // drop() moves it past every request made
  bool newestPending_ = false;
  bool newestStopRequested_ = false;
  StopHook stopNewest_;                                // empty until the newest request runs
  int running_ = 0;                                    // jobs in the pool, superseded ones included
  std::optional<std::pair<quint64, Launch>> waiting_;  // Serial: the next to run
  bool busy_ = false;                                  // as last announced
};

template <typename Job, typename OnResult, typename OnDropped>
void JobTracker::start(Job job, OnResult onResult, OnDropped onDropped) {
  constexpr bool kStoppable = std::is_invocable_v<Job&, const std::atomic<bool>&>;
  submit([this, job = std::move(job), onResult = std::move(onResult),
          onDropped = std::move(onDropped)](quint64 id, bool stopped) mutable -> StopHook {
    auto stop = std::make_shared<std::atomic<bool>>(stopped);
    auto run = [job = std::move(job), stop]() mutable {
      if constexpr (kStoppable)
        return job(std::as_const(*stop));
      else
        return job();
    };
    using Result = std::invoke_result_t<decltype(run)&>;
    auto* watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, id, onResult = std::move(onResult), onDropped = std::move(onDropped)] {
              watcher->deleteLater();
              if (jobEnded(id))
                onResult(watcher->result());
              else
                onDropped();
            });
    // Connected before the job starts, so a job that ends at once is not missed.
    watcher->setFuture(QtConcurrent::run(std::move(run)));
    return [stop] { stop->store(true); };
  });
}

template <typename Event, typename Job, typename OnEvent, typename OnFinished>
void JobTracker::startStreaming(Job job, OnEvent onEvent, OnFinished onFinished) {
  submit([this, job = std::move(job), onEvent = std::move(onEvent),
          onFinished = std::move(onFinished)](quint64 id, bool stopped) mutable -> StopHook {
    auto* watcher = new QFutureWatcher<Event>(this);
    connect(watcher, &QFutureWatcherBase::resultReadyAt, this,
            [this, watcher, id, onEvent = std::move(onEvent)](int index) {
              if (id == newest_) onEvent(watcher->resultAt(index));
            });
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, id, onFinished = std::move(onFinished)] {
              watcher->deleteLater();
              const bool stopRequested = newestStopRequested_;
              if (jobEnded(id)) onFinished(stopRequested);
            });
    // A job stopped before it started never runs.
    QFuture<Event> future =
        QtConcurrent::run([job = std::move(job), stopped](QPromise<Event>& promise) mutable {
          if (!stopped) job(promise);
        });
    watcher->setFuture(future);
    return [future]() mutable { future.cancel(); };
  });
}

}  // namespace lathe::views
